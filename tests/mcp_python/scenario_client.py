"""One client session through a scenario, with the Python `mcp` SDK (1.x or 2.x).

Run by tests/integration/mcp/clients.rs as `python scenario_client.py < SCENARIO`,
SCENARIO being JSON: `{"server": {"command": ..., "args": [...]} | {"url": ...},
"steps": [{"tool": NAME, "arguments": {...}} | {"resource": URI}, ...]}`.

Prints one JSON line per step, what the SDK handed back: `{"result": {"isError",
"text", "structured", "meta"}}` for a call's result, `{"result": {"text"}}` for a
resource, `{"error": {"code", "message", "data"}}` for a JSON-RPC error the SDK
raised; then `{"closed": true}` once the session is closed. Everything the SDK logs
goes to stderr, which the test expects to be empty (the server's own stderr goes to
a file the scenario names, or nowhere).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys

from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

try:  # mcp 2.x
    from mcp.shared.exceptions import MCPError as ProtocolError
except ImportError:  # mcp 1.x
    from mcp.shared.exceptions import McpError as ProtocolError


def field(obj: object, snake: str, camel: str):
    """A result field by its 2.x name (snake case) or its 1.x name."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def text_of(content: list) -> str:
    return "\n".join(c.text for c in content if isinstance(c, types.TextContent))


async def step(session: ClientSession, s: dict) -> dict:
    try:
        if "resource" in s:
            r = await session.read_resource(s["resource"])
            return {"result": {"text": getattr(r.contents[0], "text", None)}}
        r = await session.call_tool(s["tool"], s.get("arguments", {}))
        return {
            "result": {
                "isError": bool(field(r, "is_error", "isError")),
                "text": text_of(r.content),
                "structured": field(r, "structured_content", "structuredContent") is not None,
                "meta": r.meta,
            }
        }
    except ProtocolError as e:
        return {"error": {"code": e.error.code, "message": e.error.message, "data": e.error.data}}


async def main() -> None:
    scenario = json.load(sys.stdin)
    server = scenario["server"]
    async with contextlib.AsyncExitStack() as stack:
        if "url" in server:
            streams = await stack.enter_async_context(streamable_http_client(server["url"]))
        else:
            params = StdioServerParameters(command=server["command"], args=server["args"])
            devnull = stack.enter_context(open(os.devnull, "w"))
            streams = await stack.enter_async_context(stdio_client(params, errlog=devnull))
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await session.initialize()
        for s in scenario["steps"]:
            print(json.dumps(await step(session, s)), flush=True)
    print(json.dumps({"closed": True}), flush=True)


asyncio.run(main())
