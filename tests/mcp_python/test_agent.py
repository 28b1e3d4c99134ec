"""`filestore serve --agent`: upstream MCP servers' tools offered through filestore,
driven by the Python SDK's client (a client we did not write).

Upstreams, all real and started here: the SDK server of upstream_server.py (stdio),
another `filestore serve` over stdio, and one over streamable HTTP. The client sees
each upstream tool as the upstream describes it, calls run through the component
(arguments checked against the upstream schema in the sandbox, results stored under
/tool_calls), a crash, a hang and a 2 MB result are handled, and an upstream
`tools/list_changed` reaches the client.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

import anyio
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from test_mcp import BIN, HttpServer, anyio_sleep, text_of

HERE = Path(__file__).resolve().parent
UPSTREAM = HERE / "upstream_server.py"


def agent_yaml(root: Path, http_url: str, extra_tools: str = "") -> str:
    return f"""\
name: researcher
description: Reads the workspace and asks upstream servers.
servers:
  py:
    command: {json.dumps(sys.executable)}
    args: [{json.dumps(str(UPSTREAM))}]
    timeout: 10s
    env: {{UPSTREAM_GREETING: "${{TEST_GREETING}}", UPSTREAM_LOG: {json.dumps(str(root / "upstream.log"))}}}
  files:
    command: {json.dumps(BIN)}
    args: [serve, --mount, {json.dumps("/workspace=" + str(root / "upstream-files") + ":ro")}]
  web:
    url: {http_url}
    connections:
      off: {{disabled: true}}
tools:
  - filestore_read
  - filestore_grep
  - tools.mcp.py.*.default
  - {{type: mcp, integration: files, action: filestore_grep, connection: default, name: files_grep}}
  - {{type: mcp, integration: web, action: filestore_read, connection: default, name: web_read}}
  - {{type: mcp, integration: web, action: filestore_ls, connection: off, name: web_ls, optional: true}}
{extra_tools}"""


async def upstream_tools() -> dict[str, types.Tool]:
    """The upstream SDK server's own tools/list, for comparison."""
    params = StdioServerParameters(command=sys.executable, args=[str(UPSTREAM)])
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                return {t.name: t for t in (await s.list_tools()).tools}


class AgentTest(unittest.IsolatedAsyncioTestCase):
    def setUp(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="filestore-agent-"))
        files = self.root / "upstream-files"
        files.mkdir()
        (files / "notes.txt").write_text("alpha\nupstream needle here\nomega\n")
        web = self.root / "web"
        web.mkdir()
        (web / "page.txt").write_text("served over streamable HTTP\n")
        self.web = HttpServer(web)
        self.agent = self.root / "agent.yaml"
        self.agent.write_text(agent_yaml(self.root, self.web.url))
        self.env = {**os.environ, "TEST_GREETING": "hello "}

    def tearDown(self) -> None:
        self.web.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    @contextlib.asynccontextmanager
    async def connect(self, seen: list | None = None):
        async def handler(message: object) -> None:
            if seen is not None:
                seen.append(message)

        params = StdioServerParameters(
            command=BIN, args=["serve", "--agent", str(self.agent), "--mount", "/workspace=mem:"],
            cwd=str(self.root), env=self.env,
        )
        with open(self.root / "serve.err", "w") as err:
            async with stdio_client(params, errlog=err) as (read, write):
                async with ClientSession(read, write, message_handler=handler) as s:
                    await s.initialize()
                    yield s

    def upstream_log(self) -> list[dict]:
        path = self.root / "upstream.log"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    async def test_upstream_tools_are_offered_as_the_upstream_describes_them(self) -> None:
        direct = await upstream_tools()
        async with self.connect() as s:
            listed = {t.name: t for t in (await s.list_tools()).tools}
            # Exactly the agent's tools: two built-ins, every py tool, two single refs.
            # The optional ref through a disabled connection is left out.
            expected = {"filestore_read", "filestore_grep", "files_grep", "web_read"} | {
                f"py__{n.replace('.', '-')}" for n in direct
            }
            self.assertEqual(set(listed), expected)
            for name, tool in direct.items():
                mine = listed[f"py__{name.replace('.', '-')}"]
                self.assertEqual(mine.description, tool.description, name)
                self.assertEqual(mine.input_schema, tool.input_schema, name)
            self.assertTrue(listed["py__add"].annotations.read_only_hint)
            # A built-in the agent does not list is not callable either: a tool the
            # session does not offer is a protocol error (-32602), saying why.
            with self.assertRaises(MCPError) as raised:
                await s.call_tool("filestore_write", {"path": "/workspace/x", "content": "x"})
            self.assertEqual(raised.exception.error.code, -32602)
            self.assertIn("not among the tools of agent 'researcher'", raised.exception.error.message)

    async def test_calls_run_through_the_component(self) -> None:
        async with self.connect() as s:
            r = await s.call_tool("py__add", {"a": 2, "b": 40})
            self.assertFalse(r.is_error, text_of(r))
            self.assertIn("42", text_of(r))
            # The declared env reached the upstream, resolved host-side (it echoes
            # "hello world"); like every value resolved from the environment, the
            # agent reads its reference in place of it.
            r = await s.call_tool("py__echo", {"text": "world"})
            self.assertIn("${TEST_GREETING}world", text_of(r))
            self.assertNotIn("hello", text_of(r))
            # Checked against the upstream schema in the sandbox: never sent upstream.
            r = await s.call_tool("py__add", {"a": "two", "b": 1})
            self.assertTrue(r.is_error)
            self.assertIn("invalid-argument", text_of(r))
            self.assertIn("at /a", text_of(r))
            self.assertEqual([c["tool"] for c in self.upstream_log()], ["add", "echo"])
            # A tool name that is not a call-ref segment, called by its own name.
            r = await s.call_tool("py__fs-stat", {"path": "/etc"})
            self.assertIn("stat /etc", text_of(r))
            self.assertEqual(self.upstream_log()[-1]["tool"], "fs.stat")
            # Another filestore serve, over stdio and over HTTP.
            r = await s.call_tool("files_grep", {"pattern": "needle", "path": "/workspace", "output_mode": "content"})
            self.assertFalse(r.is_error, text_of(r))
            self.assertIn("upstream needle here", text_of(r))
            r = await s.call_tool("web_read", {"path": "/workspace/page.txt"})
            self.assertFalse(r.is_error, text_of(r))
            self.assertIn("served over streamable HTTP", text_of(r))

    async def test_large_results_are_offloaded_and_greppable(self) -> None:
        async with self.connect() as s:
            r = await s.call_tool("py__big", {"kb": 2048})
            self.assertFalse(r.is_error, text_of(r))
            text = text_of(r)
            self.assertIn("is large", text)
            self.assertLess(len(text), 20_000, "the model sees a preview, not 2 MB")
            path = text.split("stored at ")[1].split(".json")[0] + ".json"
            self.assertTrue(path.startswith("/tool_calls/py__big/"), path)
            r = await s.call_tool("filestore_grep", {"pattern": "NEEDLE-4242", "path": "/tool_calls", "output_mode": "files_with_matches"})
            self.assertFalse(r.is_error, text_of(r))
            self.assertIn(path, text_of(r))

    async def test_crash_and_hang_are_typed_errors_and_the_next_call_works(self) -> None:
        async with self.connect() as s:
            started = time.monotonic()
            r = await s.call_tool("py__hang", {"seconds": 60})
            self.assertTrue(r.is_error)
            self.assertIn("limit-exceeded", text_of(r))
            self.assertIn("cancelled upstream", text_of(r))
            self.assertLess(time.monotonic() - started, 30)
            r = await s.call_tool("py__echo", {"text": "after hang"})
            self.assertFalse(r.is_error, text_of(r))
            r = await s.call_tool("py__crash", {})
            self.assertTrue(r.is_error)
            self.assertIn("backend", text_of(r))
            self.assertIn("upstream crash: boom", text_of(r), "the error ends with the server's stderr")
            # Reconnected: a new upstream process answers.
            r = await s.call_tool("py__echo", {"text": "after crash"})
            self.assertFalse(r.is_error, text_of(r))
            self.assertIn("after crash", text_of(r))

    async def test_a_cancelled_call_is_cancelled_upstream_and_frees_the_session(self) -> None:
        # A long upstream timeout: only the client's cancel can end the call early.
        self.agent.write_text(agent_yaml(self.root, self.web.url).replace("timeout: 10s", "timeout: 300s"))
        async with self.connect() as s:
            started = time.monotonic()
            # Abandoning the request sends notifications/cancelled (the SDK's courtesy cancel).
            with anyio.move_on_after(1.5):
                await s.call_tool("py__hang", {"seconds": 250})
            r = await s.call_tool("py__echo", {"text": "after cancel"})
            self.assertFalse(r.is_error, text_of(r))
            self.assertIn("after cancel", text_of(r))
            self.assertLess(time.monotonic() - started, 120, "the next call waited for the cancelled one")
            # The cancel reached the upstream: its handler was stopped, not left to sleep.
            for _ in range(300):
                if any(c["tool"] == "hang-stopped" for c in self.upstream_log()):
                    break
                await anyio.sleep(0.1)
            self.assertCountEqual(
                [c["tool"] for c in self.upstream_log()], ["hang", "hang-stopped", "echo"])

    async def test_upstream_list_changed_reaches_the_client(self) -> None:
        seen: list = []
        async with self.connect(seen) as s:
            names = {t.name for t in (await s.list_tools()).tools}
            self.assertNotIn("py__fresh", names)
            r = await s.call_tool("py__grow", {})
            self.assertFalse(r.is_error, text_of(r))
            for _ in range(100):
                if any("ToolListChanged" in repr(m) or "list_changed" in repr(m) for m in seen):
                    break
                await anyio_sleep(0.1)
            self.assertTrue(any("ToolListChanged" in repr(m) or "list_changed" in repr(m) for m in seen), repr(seen))
            tools = {t.name: t for t in (await s.list_tools()).tools}
            self.assertIn("py__fresh", tools)
            self.assertEqual(tools["py__fresh"].description, "A tool that appeared after start.")
            r = await s.call_tool("py__fresh", {"word": "new"})
            self.assertFalse(r.is_error, text_of(r))
            self.assertIn("fresh new", text_of(r))


    async def test_a_tool_gone_after_start_is_left_out_not_fatal(self) -> None:
        # `doomed_one` names one action; after start the upstream drops it and sends a
        # storm of list_changed. Re-resolution leaves that ref out (said on stderr), the
        # new tool appears, and the session keeps working.
        self.agent.write_text(agent_yaml(self.root, self.web.url,
            "  - {type: mcp, integration: py, action: doomed, connection: default, name: doomed_one}\n"))
        seen: list = []
        async with self.connect(seen) as s:
            names = {t.name for t in (await s.list_tools()).tools}
            self.assertIn("doomed_one", names)
            r = await s.call_tool("py__shrink", {"times": 300})
            self.assertFalse(r.is_error, text_of(r))
            tools: set = set()
            for _ in range(100):
                tools = {t.name for t in (await s.list_tools()).tools}
                if "py__fresh" in tools:
                    break
                await anyio_sleep(0.1)
            self.assertIn("py__fresh", tools)
            self.assertNotIn("doomed_one", tools)
            self.assertNotIn("py__doomed", tools)
            self.assertIn("filestore_read", tools)
            # Calls go on, promptly: the storm was coalesced, not queued.
            r = await s.call_tool("py__echo", {"text": "after the storm"})
            self.assertFalse(r.is_error, text_of(r))
            with self.assertRaises(MCPError) as raised:
                await s.call_tool("doomed_one", {})
            self.assertEqual(raised.exception.error.code, -32602)
            changed = [m for m in seen if "ToolListChanged" in repr(m) or "list_changed" in repr(m)]
            self.assertGreaterEqual(len(changed), 1)
            self.assertLess(len(changed), 20, "one notification per real change, not per upstream one")
        err = (self.root / "serve.err").read_text()
        self.assertIn("was left out when the agent was resolved again", err)
        self.assertIn("no action 'doomed'", err)


class AgentStartTest(unittest.TestCase):
    """What stops `serve --agent` at start, and what does not."""

    def setUp(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="filestore-agent-start-"))
        (self.root / "upstream-files").mkdir()

    def tearDown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def start(self, tools: str) -> subprocess.CompletedProcess:
        text = agent_yaml(self.root, "http://127.0.0.1:9/mcp").split("tools:\n")[0] + "tools:\n" + tools
        (self.root / "agent.yaml").write_text(text)
        return subprocess.run(
            [BIN, "serve", "--agent", "agent.yaml", "--mount", "/workspace=mem:"],
            cwd=self.root, input="", capture_output=True, text=True, timeout=120,
            env={**os.environ, "TEST_GREETING": "x"},
        )

    def test_a_name_clash_is_an_error_at_the_entry(self) -> None:
        # Every tool of the upstream filestore, unprefixed: its filestore_read is the
        # built-in's name.
        out = self.start("  - {type: mcp, integration: files, action: '*', connection: default, prefix: ''}\n")
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertIn("agent.yaml: document 1, line", out.stderr)
        self.assertIn("tools[0]", out.stderr)
        self.assertIn("both resolve to the tool name 'filestore_", out.stderr)
        self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)

    def test_failing_and_unknown_refs_stop_the_start_with_the_reason(self) -> None:
        out = self.start("  - tools.mcp.web.filestore_read.default\n")
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertIn("tools[0]", out.stderr)
        self.assertIn("127.0.0.1:9", out.stderr)
        out = self.start("  - tools.mcp.py.nope.default\n")
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertIn("has no action 'nope' (it offers: add, big, crash, doomed, echo, fs-stat, garble, grow, hang, shrink)", out.stderr)

    def test_an_optional_ref_is_left_out_with_a_warning(self) -> None:
        out = self.start(
            "  - {type: mcp, integration: web, action: filestore_read, connection: default, optional: true}\n"
            "  - tools.mcp.py.echo.default\n"
        )
        # stdin closed at once: the server starts, then ends with the client.
        self.assertIn("optional and was left out", out.stderr)
        self.assertIn("MCP over stdio", out.stderr)


if __name__ == "__main__":
    unittest.main()
