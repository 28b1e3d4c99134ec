"""A small upstream MCP server, written with the Python SDK, for the agent tests
(test_agent.py and tests/integration/agent.rs): `filestore serve --agent` connects
to it as provider `mcp`.

    python upstream_server.py            # stdio

Every call is appended to $UPSTREAM_LOG (one JSON line) when set, so tests can see
what reached the upstream and what did not.

$UPSTREAM_MODE makes it misbehave, for the tests of what filestore takes from an
upstream (an untrusted party); $API_KEY is the credential it was given, which it
leaks:

    leaky                    tools that print $API_KEY on stdout or stderr and hang,
                             fail quoting it (a call, or tools/list from then on),
                             or flood stderr; one describes itself with it
    leak-at-start-then-hang  prints $API_KEY on stdout and stderr, never answers
    leak-at-start-then-exit  prints $API_KEY on stderr, exits with status 1
    huge                     a tool with a 12 MB description and a long title, and
                             one with a 20,000-character name
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, EmbeddedResource, TextContent, TextResourceContents, ToolAnnotations

server = MCPServer("upstream", version="1.0.0")
MODE = os.environ.get("UPSTREAM_MODE", "")
API_KEY = os.environ.get("API_KEY", "")


def log(tool: str, args: dict) -> None:
    path = os.environ.get("UPSTREAM_LOG")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"tool": tool, "args": args}) + "\n")


@server.tool(description="Echoes the text back, prefixed with $UPSTREAM_GREETING.")
def echo(text: str) -> str:
    log("echo", {"text": text})
    return os.environ.get("UPSTREAM_GREETING", "") + text


@server.tool(
    description="Adds two integers.",
    annotations=ToolAnnotations(readOnlyHint=True, idempotentHint=True),
)
def add(a: int, b: int) -> int:
    log("add", {"a": a, "b": b})
    return a + b


@server.tool(description="Exits the server process in the middle of the call.")
def crash() -> str:
    log("crash", {})
    sys.stderr.write("upstream crash: boom\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool(description="Sleeps for the given seconds before answering.")
async def hang(seconds: float) -> str:
    log("hang", {"seconds": seconds})
    try:
        await asyncio.sleep(seconds)
    except BaseException:
        # Cancelled: the client sent notifications/cancelled (or the server stopped).
        log("hang-stopped", {"seconds": seconds})
        raise
    return "woke up"


def wire() -> int:
    """The descriptor of the wire (stdout). The SDK diverts fd 1 to stderr, to keep
    stray prints off the wire, and writes on a private descriptor."""
    from mcp.server import stdio as sdk_stdio

    claim = getattr(sdk_stdio, "_claims", {}).get(1)
    return claim.private_fd if claim is not None and claim.private_fd is not None else 1


@server.tool(description="Writes a cut-off reply and a log line on stdout, then hangs.")
async def garble(seconds: float = 60) -> str:
    log("garble", {"seconds": seconds})
    # Straight onto the wire, past the SDK's writer (no message is being written
    # now): a reply whose JSON is cut off, then a stray print, as a buggy server
    # would (a Node server's console.log lands there).
    fd = wire()
    os.write(fd, b'{"jsonrpc": "2.0", "id": 99, "result": {"content": [{"type": "text", "text": "cut off\n')
    os.write(fd, b"DEBUG: garble sent its reply\n")
    await asyncio.sleep(seconds)
    return "too late"


@server.tool(description="Returns about `kb` kilobytes of numbered text lines.")
def big(kb: int) -> str:
    log("big", {"kb": kb})
    lines = []
    size = 0
    n = 0
    while size < kb * 1024:
        line = f"line {n:06}: the quick brown fox jumps over the lazy dog"
        if n == 4242:
            line += " NEEDLE-4242"
        lines.append(line)
        size += len(line) + 1
        n += 1
    return "\n".join(lines)


@server.tool(name="fs.stat", description="A tool whose name is not a call-ref segment.")
def fs_stat(path: str) -> str:
    log("fs.stat", {"path": path})
    return f"stat {path}"


def fresh(word: str) -> str:
    """Added by `grow`."""
    log("fresh", {"word": word})
    return f"fresh {word}"


@server.tool(description="Adds the tool `fresh` and announces the change (tools/list_changed).")
async def grow(ctx: Context) -> str:
    log("grow", {})
    server.add_tool(fresh, description="A tool that appeared after start.")
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool(description="A tool that `shrink` removes.")
def doomed() -> str:
    return "still here"


@server.tool(description="Removes `doomed`, adds `fresh`, and announces it `times` times (a storm).")
async def shrink(ctx: Context, times: int = 1) -> str:
    log("shrink", {"times": times})
    server.remove_tool("doomed")
    server.add_tool(fresh, description="A tool that appeared after start.")
    for _ in range(times):
        await ctx.session.send_tool_list_changed()
    return "shrunk"


async def leak_stdout(pad: int = 0, seconds: float = 60) -> str:
    """Prints the key on stdout (after `pad` dots), then hangs."""
    log("leak_stdout", {"pad": pad})
    os.write(wire(), ("." * pad + f"DEBUG: using API_KEY={API_KEY}\n").encode())
    await asyncio.sleep(seconds)
    return "too late"


async def leak_stderr(seconds: float = 60) -> str:
    log("leak_stderr", {})
    os.write(2, f"error: the API rejected key {API_KEY}\n".encode())
    await asyncio.sleep(seconds)
    return "too late"


def leak_error() -> CallToolResult:
    """Fails with the key in a resource (sent as JSON, escaped)."""
    log("leak_error", {})
    creds = TextResourceContents(uri="file:///creds.json", text=f'{{"key": "{API_KEY}"}}')
    return CallToolResult(
        content=[TextContent(text=f"rejected: {API_KEY}"), EmbeddedResource(resource=creds)],
        is_error=True,
    )


async def flood(kb: int = 1024, seconds: float = 60) -> str:
    """Writes bytes that are not UTF-8 on stderr, then a line of `kb` KB, then a
    last line, then hangs: what a reader that stopped early would block or break."""
    log("flood", {"kb": kb})
    os.write(2, b"caf\xe9 \xff\xfe: not UTF-8\n")
    line = b"x" * (kb * 1024)
    while line:
        line = line[os.write(2, line):]
    os.write(2, b"\nafter the flood\n")
    await asyncio.sleep(seconds)
    return "flooded"


async def break_listing(ctx: Context) -> str:
    """From now on tools/list fails quoting the key; announces a change to have the
    client re-list."""
    from mcp.shared.exceptions import MCPError

    log("break_listing", {})

    async def failing() -> list:
        raise MCPError(-32603, f"tools/list: the backend refused key {API_KEY}")

    server.list_tools = failing
    await ctx.session.send_tool_list_changed()
    return "broken"


def whatever() -> str:
    return "ok"


def misbehave() -> None:
    """Applies $UPSTREAM_MODE (see the module docs)."""
    if MODE == "leaky":
        server.add_tool(leak_stdout, description="Prints its key on stdout and hangs.")
        server.add_tool(leak_stderr, description="Prints its key on stderr and hangs.")
        server.add_tool(leak_error, description=f"Fails quoting its key. Connects with key {API_KEY}.")
        server.add_tool(flood, description="Floods stderr and hangs.")
        server.add_tool(break_listing, description="Makes tools/list fail quoting its key.")
    elif MODE.startswith("leak-at-start"):
        os.write(2, f"starting with API_KEY={API_KEY}\n".encode())
        if MODE == "leak-at-start-then-exit":
            sys.exit(1)
        os.write(1, f"DEBUG: API_KEY={API_KEY}\n".encode())
        while True:
            time.sleep(3600)
    elif MODE == "huge":
        server.add_tool(whatever, name="verbose", title="T" * 100_000, description="x" * 12_000_000)
        server.add_tool(whatever, name="n" * 20_000, description="A tool with a very long name.")


if __name__ == "__main__":
    misbehave()
    server.run()
