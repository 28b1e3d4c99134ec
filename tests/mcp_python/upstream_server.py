"""A small upstream MCP server, written with the Python SDK, for the agent tests
(test_agent.py and tests/integration/agent.rs): `filestore serve --agent` connects
to it as provider `mcp`.

    python upstream_server.py            # stdio

Every call is appended to $UPSTREAM_LOG (one JSON line) when set, so tests can see
what reached the upstream and what did not.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("upstream", version="1.0.0")


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


@server.tool(description="Writes a cut-off reply and a log line on stdout, then hangs.")
async def garble(seconds: float = 60) -> str:
    log("garble", {"seconds": seconds})
    # Straight onto the wire, past the SDK's writer (no message is being written
    # now): a reply whose JSON is cut off, then a stray print, as a buggy server
    # would (a Node server's console.log lands there). The SDK diverts fd 1 to
    # stderr to prevent exactly this and keeps the wire on a private descriptor.
    from mcp.server import stdio as sdk_stdio

    claim = getattr(sdk_stdio, "_claims", {}).get(1)
    wire = claim.private_fd if claim is not None and claim.private_fd is not None else 1
    os.write(wire, b'{"jsonrpc": "2.0", "id": 99, "result": {"content": [{"type": "text", "text": "cut off\n')
    os.write(wire, b"DEBUG: garble sent its reply\n")
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


if __name__ == "__main__":
    server.run()
