"""A 2026-07-28 client against two `filestore serve --http --state` replicas.

Run by tests/integration/replicas.rs with the `mcp` SDK (2.x, its protocol pinned to
2026-07-28: no initialize, no session, `_meta` on every request) as
`python stateless_client.py URL_A URL_B`. Every request names its conversation in
`_meta["filestore/conversation"]`, and the two replicas alternate: a write on A is
read on B, a result stored on A is read on B, a skill read on A offers its tool on
B. A request naming no conversation keeps nothing. Prints `ok` at the end.
"""

import asyncio
import sys

from mcp import Client

A, B = sys.argv[1], sys.argv[2]
CONV = {"filestore/conversation": "python-stateless"}


def text(result) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def say_yes(context, params):
    """Declares the elicitation capability; the approvals below answer by hand."""
    from mcp.types import ElicitResult

    return ElicitResult(action="accept", content={"approve": True})


async def main() -> None:
    ask = {"mode": "2026-07-28", "elicitation_callback": say_yes}
    async with Client(A, **ask) as a, Client(B, **ask) as b:
        assert a.protocol_version == "2026-07-28", a.protocol_version
        r = await a.call_tool(
            "filestore_write",
            {"path": "/scratch/py.txt", "content": "from the python sdk on A\n"},
            meta=CONV,
        )
        assert not r.is_error, text(r)
        r = await b.call_tool("filestore_read", {"path": "/scratch/py.txt"}, meta=CONV)
        assert "from the python sdk on A" in text(r), text(r)

        r = await a.call_tool("count_rows", {}, meta=CONV)
        assert not r.is_error, text(r)
        stored = r.structured_content["result_path"]
        r = await b.call_tool("filestore_read", {"path": stored}, meta=CONV)
        assert "42" in text(r), text(r)

        names = {t.name for t in (await b.list_tools(meta=CONV, cache_mode="refresh")).tools}
        assert "hidden_report" not in names, names
        r = await a.call_tool("filestore_read", {"path": "/skills/reporting/SKILL.md"}, meta=CONV)
        assert "enabled tools: hidden_report" in text(r), text(r)
        names = {t.name for t in (await b.list_tools(meta=CONV, cache_mode="refresh")).tools}
        assert "hidden_report" in names, names
        r = await b.call_tool("hidden_report", {}, meta=CONV)
        assert not r.is_error and "7" in text(r), text(r)

        # An approval asked on A (input_required, the call parked in the conversation)
        # and answered on B; the same answer replayed finds nothing to run.
        from mcp import types

        asked = await a.session.call_tool("purge", {}, meta=CONV, allow_input_required=True)
        assert isinstance(asked, types.InputRequiredResult), asked
        assert "approve" in asked.input_requests, asked
        yes = {"approve": {"action": "accept", "content": {"approve": True}}}
        done = await b.session.call_tool(
            "purge", {}, meta=CONV, input_responses=yes, request_state=asked.request_state
        )
        assert not done.is_error and "purged" in text(done), text(done)
        again = await a.session.call_tool(
            "purge", {}, meta=CONV, input_responses=yes, request_state=asked.request_state
        )
        assert again.is_error and "no call waiting" in text(again), text(again)
        # A "no" runs nothing; another conversation cannot answer this one's call.
        asked = await a.session.call_tool("purge", {}, meta=CONV, allow_input_required=True)
        other = {"filestore/conversation": "someone-else"}
        stolen = await b.session.call_tool(
            "purge", {}, meta=other, input_responses=yes, request_state=asked.request_state
        )
        assert stolen.is_error and "no call waiting" in text(stolen), text(stolen)
        no = {"approve": {"action": "decline"}}
        refused = await b.session.call_tool(
            "purge", {}, meta=CONV, input_responses=no, request_state=asked.request_state
        )
        assert refused.is_error and "declined" in text(refused), text(refused)

        # The SDK's own loop: asked, answered by the callback, retried on the same URL.
        done = await a.call_tool("purge", {}, meta=CONV)
        assert not done.is_error and "purged" in text(done), text(done)

        # No conversation named: each request has its own /scratch, nothing is kept.
        r = await a.call_tool("filestore_write", {"path": "/scratch/gone.txt", "content": "x\n"})
        assert not r.is_error, text(r)
        r = await a.call_tool("filestore_read", {"path": "/scratch/gone.txt"})
        assert r.is_error, text(r)
    # A client that does not declare elicitation cannot be asked: -32021, nothing ran.
    from mcp.shared.exceptions import MCPError

    async with Client(A, mode="2026-07-28") as plain:
        try:
            r = await plain.call_tool("purge", {}, meta=CONV)
            raise AssertionError(f"purge ran without a way to ask: {text(r)}")
        except MCPError as e:
            assert e.error.code == -32021, e.error
    print("ok")


asyncio.run(main())
