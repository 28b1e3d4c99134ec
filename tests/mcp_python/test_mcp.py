"""`filestore serve` driven by an MCP client we did not write: the Python `mcp` SDK.

Runs over stdio and over streamable HTTP (loopback only) against the real binary
named by $FILESTORE_BIN, in a fresh fixture directory that the server serves as its
current directory (the zero-flag default: read-only at /workspace).

    FILESTORE_BIN=target/debug/filestore python -m unittest discover -s tests/mcp_python -v

The Rust integration test `mcp::python_sdk_client` runs this with the venv's python.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
from pathlib import Path

from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

BIN = os.environ.get("FILESTORE_BIN", "")

READ_TOOLS = {"filestore_ls", "filestore_read", "filestore_glob", "filestore_grep", "filestore_tree"}
WRITE_TOOLS = {"filestore_write", "filestore_edit", "filestore_mkdir", "filestore_delete", "filestore_move"}
# Write tools that never destroy anything (their destructiveHint is false).
NON_DESTRUCTIVE = {"filestore_mkdir"}

# More files than one resources/list page (RESOURCE_PAGE_SIZE = 200), so paging is exercised.
MANY_FILES = 230
BINARY = bytes(range(256)) + b"\x00tail"
# A 1x1 PNG.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


def make_fixture() -> Path:
    root = Path(tempfile.mkdtemp(prefix="filestore-mcp-"))
    (root / "hello.txt").write_text("hello world\nsecond line\n")
    (root / "src").mkdir()
    (root / "src" / "main.rs").write_text("fn main() {\n    println!(\"hi\");\n}\n")
    (root / "src" / "lib.rs").write_text("pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n")
    (root / "a b.txt").write_text("spaces in the name\n")
    (root / "data.bin").write_bytes(BINARY)
    (root / "pixel.png").write_bytes(PNG)
    many = root / "many"
    many.mkdir()
    for i in range(MANY_FILES):
        (many / f"f{i:03}.txt").write_text(f"file {i}\n")
    return root


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Checks:
    """The assertions, shared by the stdio and HTTP cases. Subclasses provide `connect()`."""

    fixture: Path

    def connect(self) -> contextlib.AbstractAsyncContextManager[ClientSession]:
        raise NotImplementedError

    async def call_ok(self, s: ClientSession, tool: str, args: dict) -> types.CallToolResult:
        r = await s.call_tool(tool, args)
        self.assertFalse(r.is_error, f"{tool} {args} failed: {text_of(r)}")
        self.assertIsInstance(r.structured_content, dict, f"{tool}: structuredContent")
        return r

    async def call_err(self, s: ClientSession, tool: str, args: dict) -> str:
        r = await s.call_tool(tool, args)
        self.assertTrue(r.is_error, f"{tool} {args} should fail, got {text_of(r)}")
        return text_of(r)

    async def test_initialize_and_list_tools(self) -> None:
        async with self.connect() as s:
            info = s.initialize_result
            self.assertEqual(info.server_info.name, "filestore")
            caps = info.capabilities
            self.assertTrue(caps.tools and caps.tools.list_changed)
            self.assertIsNotNone(caps.prompts)
            self.assertIsNotNone(caps.resources)
            tools = {t.name: t for t in (await s.list_tools()).tools}
            # /scratch is writable, so the mutating tools are offered too.
            self.assertEqual(set(tools), READ_TOOLS | WRITE_TOOLS)
            for name, t in tools.items():
                self.assertEqual(t.input_schema.get("type"), "object", name)
                self.assertGreater(len(t.description or ""), 40, name)
                a = t.annotations
                self.assertIsNotNone(a, name)
                self.assertIs(a.open_world_hint, False, name)
                self.assertIs(a.read_only_hint, name in READ_TOOLS, name)
                self.assertIs(a.destructive_hint, name in WRITE_TOOLS - NON_DESTRUCTIVE, name)
                # Every tool has a title and an output schema; the SDK checks each
                # structured result against it (test_call_every_tool).
                self.assertTrue(t.title, name)
                self.assertEqual((t.output_schema or {}).get("type"), "object", name)
            self.assertEqual(
                tools["filestore_read"].input_schema["anyOf"],
                [{"required": ["path"]}, {"required": ["paths"]}],
            )

    async def test_images_come_back_as_image_content(self) -> None:
        """An image read through filestore_read is MCP image content (base64 + MIME
        type), so a client shows it to the model; another binary keeps its text answer."""
        import base64
        async with self.connect() as s:
            r = await self.call_ok(s, "filestore_read", {"path": "/workspace/pixel.png"})
            images = [c for c in r.content if isinstance(c, types.ImageContent)]
            self.assertEqual(len(images), 1, r.content)
            self.assertEqual(images[0].mime_type, "image/png")
            self.assertEqual(base64.b64decode(images[0].data), PNG)
            self.assertIn("image/png", text_of(r))
            r = await self.call_ok(s, "filestore_read", {"path": "/workspace/data.bin"})
            self.assertFalse([c for c in r.content if not isinstance(c, types.TextContent)])

    async def test_call_every_tool(self) -> None:
        async with self.connect() as s:
            r = await self.call_ok(s, "filestore_ls", {"path": "/"})
            for point in ("workspace", "scratch", "tool_calls"):
                self.assertIn(point, text_of(r))

            r = await self.call_ok(s, "filestore_read", {"path": "/workspace/hello.txt"})
            self.assertIn("     1\thello world", text_of(r))
            self.assertEqual(r.structured_content["total_lines"], 2)

            r = await self.call_ok(s, "filestore_glob", {"pattern": "*.rs", "path": "/workspace"})
            paths = [f["path"] for f in r.structured_content["files"]]
            self.assertEqual(paths, ["/workspace/src/lib.rs", "/workspace/src/main.rs"])

            r = await self.call_ok(
                s, "filestore_grep", {"pattern": "fn main", "path": "/workspace", "output_mode": "content"}
            )
            self.assertIn("/workspace/src/main.rs:1:fn main() {", text_of(r))

            r = await self.call_ok(s, "filestore_tree", {"path": "/workspace"})
            self.assertIn("src", text_of(r))
            self.assertIn("hello.txt", text_of(r))

            await self.call_ok(s, "filestore_write", {"path": "/scratch/notes/a.md", "content": "one\ntwo\n"})
            await self.call_ok(
                s, "filestore_edit", {"path": "/scratch/notes/a.md", "old_string": "two", "new_string": "three"}
            )
            r = await self.call_ok(s, "filestore_read", {"path": "/scratch/notes/a.md"})
            self.assertIn("     2\tthree", text_of(r))
            await self.call_ok(s, "filestore_move", {"source": "/scratch/notes/a.md", "destination": "/scratch/b.md"})
            await self.call_ok(s, "filestore_read", {"path": "/scratch/b.md"})
            await self.call_ok(s, "filestore_delete", {"path": "/scratch/b.md"})
            self.assertIn("not-found", await self.call_err(s, "filestore_read", {"path": "/scratch/b.md"}))

            # An empty directory is created, listed (lean listing: names), and deleted.
            r = await self.call_ok(s, "filestore_mkdir", {"path": "/scratch/empty/inner"})
            self.assertEqual(r.structured_content["entry"]["kind"], "directory")
            r = await self.call_ok(s, "filestore_ls", {"path": "/scratch/empty"})
            self.assertEqual(text_of(r), "inner/\n")
            self.assertEqual(r.structured_content["entries"], [{"name": "inner", "kind": "directory"}])
            r = await self.call_ok(s, "filestore_ls", {"path": "/scratch/empty", "details": True})
            self.assertEqual(r.structured_content["entries"][0]["path"], "/scratch/empty/inner")
            self.assertIn("read-only", await self.call_err(s, "filestore_mkdir", {"path": "/workspace/new"}))
            await self.call_ok(s, "filestore_delete", {"path": "/scratch/empty", "recursive": True})

    async def test_error_results_say_what_went_wrong(self) -> None:
        async with self.connect() as s:
            msg = await self.call_err(s, "filestore_write", {"path": "/workspace/new.txt", "content": "x"})
            self.assertRegex(msg, r"^error\[read-only\]: .*/workspace")
            self.assertFalse((self.fixture / "new.txt").exists(), "a refused write left a file")
            msg = await self.call_err(s, "filestore_read", {"path": "/workspace/missing.txt"})
            self.assertIn("error[not-found]", msg)
            self.assertIn("/workspace/missing.txt", msg)
            msg = await self.call_err(s, "filestore_read", {"path": "/../etc/passwd"})
            self.assertIn("error[invalid-path]", msg)
            msg = await self.call_err(s, "filestore_grep", {"pattern": "("})
            self.assertIn("error[invalid-pattern]", msg)
            # No structuredContent on an error (it would be checked against the
            # tool's outputSchema); the kind and message are in `_meta`.
            r = await s.call_tool("filestore_read", {"path": "/workspace/missing.txt"})
            self.assertIsNone(r.structured_content)
            self.assertEqual(r.meta["filestore/error"]["kind"], "not-found")
            # A tool the server does not offer is a protocol error (-32602).
            with self.assertRaises(MCPError) as raised:
                await s.call_tool("filestore_nope", {})
            self.assertEqual(raised.exception.error.code, -32602)
            self.assertIn("unknown tool 'filestore_nope'", raised.exception.error.message)

    async def test_instructions_prompt(self) -> None:
        async with self.connect() as s:
            prompts = (await s.list_prompts()).prompts
            self.assertEqual([p.name for p in prompts], ["filestore_instructions"])
            r = await s.get_prompt("filestore_instructions", {"max_depth": "2"})
            text = r.messages[0].content.text
            self.assertIn("/workspace (read-only)", text)
            self.assertIn("/scratch (writable)", text)
            for tool in READ_TOOLS | WRITE_TOOLS:
                self.assertIn(f"- {tool}: ", text)
            self.assertIn("hello.txt", text)  # the tree
            with self.assertRaises(Exception) as bad:
                await s.get_prompt("filestore_instructions", {"max_depth": "deep"})
            self.assertIn("max_depth", str(bad.exception))

    async def test_resources_paged_and_read(self) -> None:
        async with self.connect() as s:
            seen: list[str] = []
            cursor = None
            pages = 0
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await s.list_resources(params=params)
                pages += 1
                seen.extend(str(r.uri) for r in page.resources)
                cursor = page.next_cursor
                if not cursor:
                    break
                self.assertLess(pages, 100, "cursor never ends")
            self.assertGreaterEqual(pages, 2)
            self.assertEqual(len(seen), len(set(seen)), "a resource was listed twice")
            on_disk = {
                "filestore:///workspace/" + p.relative_to(self.fixture).as_posix().replace(" ", "%20")
                for p in self.fixture.rglob("*")
                if p.is_file()
            }
            self.assertEqual(set(seen), on_disk)

            r = await s.read_resource("filestore:///workspace/hello.txt")
            self.assertEqual(r.contents[0].text, "hello world\nsecond line\n")
            r = await s.read_resource("filestore:///workspace/a%20b.txt")
            self.assertEqual(r.contents[0].text, "spaces in the name\n")
            r = await s.read_resource("filestore:///workspace/data.bin")
            self.assertEqual(base64.b64decode(r.contents[0].blob), BINARY)
            with self.assertRaises(Exception) as bad:
                await s.read_resource("filestore:///workspace/missing.txt")
            self.assertIn("not-found", str(bad.exception))


class StdioTest(Checks, unittest.IsolatedAsyncioTestCase):
    def setUp(self) -> None:
        self.fixture = make_fixture()

    def tearDown(self) -> None:
        shutil.rmtree(self.fixture, ignore_errors=True)

    @contextlib.asynccontextmanager
    async def connect(self):
        params = StdioServerParameters(command=BIN, args=["serve"], cwd=str(self.fixture))
        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    yield s


class HttpServer:
    """`filestore serve --http 127.0.0.1:0` in a directory; the URL from its summary line."""

    def __init__(self, cwd: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [BIN, "serve", "--http", "127.0.0.1:0", *extra],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stderr: list[str] = []
        line = self.proc.stderr.readline()
        self.stderr.append(line)
        m = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
        if not m:
            self.proc.kill()
            raise AssertionError(f"no URL in the startup line: {line!r} {self.proc.stderr.read()}")
        self.url = m.group(1)
        # Keep draining stderr so the server never blocks on a full pipe.
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


class HttpTest(Checks, unittest.IsolatedAsyncioTestCase):
    def setUp(self) -> None:
        self.fixture = make_fixture()
        self.server = HttpServer(self.fixture)

    def tearDown(self) -> None:
        self.server.stop()
        shutil.rmtree(self.fixture, ignore_errors=True)

    @contextlib.asynccontextmanager
    async def connect(self):
        async with streamable_http_client(self.server.url) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as s:
                await s.initialize()
                yield s

    async def test_each_http_session_has_its_own_sandbox(self) -> None:
        async with self.connect() as a, self.connect() as b:
            await self.call_ok(a, "filestore_write", {"path": "/scratch/mine.txt", "content": "a's"})
            r = await self.call_ok(a, "filestore_read", {"path": "/scratch/mine.txt"})
            self.assertIn("a's", text_of(r))
            self.assertIn("not-found", await self.call_err(b, "filestore_read", {"path": "/scratch/mine.txt"}))


class WritableWorkspaceTest(unittest.IsolatedAsyncioTestCase):
    """`--mount /workspace=DIR` replaces the read-only default with a writable one."""

    async def test_writable_workspace_mount(self) -> None:
        fixture = make_fixture()
        try:
            params = StdioServerParameters(
                command=BIN, args=["serve", "--mount", f"/workspace={fixture}"], cwd=tempfile.gettempdir()
            )
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (read, write):
                    async with ClientSession(read, write) as s:
                        await s.initialize()
                        r = await s.call_tool("filestore_write", {"path": "/workspace/out.txt", "content": "written"})
                        self.assertFalse(r.is_error, text_of(r))
                        r = await s.call_tool("filestore_mkdir", {"path": "/workspace/made/here"})
                        self.assertFalse(r.is_error, text_of(r))
                        r = await s.call_tool("filestore_read", {"path": "/workspace/hello.txt"})
                        self.assertFalse(r.is_error, text_of(r))
            self.assertEqual((fixture / "out.txt").read_text(), "written")
            self.assertTrue((fixture / "made" / "here").is_dir())
        finally:
            shutil.rmtree(fixture, ignore_errors=True)



class SingleWorkspaceTest(unittest.IsolatedAsyncioTestCase):
    """`--mount /=DIR`: one workspace as the whole file system, and bytes in and out
    as base64 in pages; a resource read goes past the component's 4 MiB page (up to
    the 16 MiB message limit)."""

    async def test_root_workspace_and_binary_content(self) -> None:
        fixture = make_fixture()
        big_text = "".join(f"line {i:07}\n" for i in range(400_000))  # 5.2 MB
        (fixture / "big.txt").write_text(big_text)
        blob = os.urandom(5 * 1024 * 1024 + 17)
        try:
            params = StdioServerParameters(command=BIN, args=["serve", "--mount", f"/={fixture}"], cwd=tempfile.gettempdir())
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (read, write):
                    async with ClientSession(read, write) as s:
                        await s.initialize()
                        r = await s.call_tool("filestore_ls", {"path": "/"})
                        self.assertFalse(r.is_error, text_of(r))
                        names = {e["name"] for e in r.structured_content["entries"]}
                        self.assertEqual(names, {p.name for p in fixture.iterdir()})
                        r = await s.call_tool("filestore_read", {"path": "/../hello.txt"})
                        self.assertTrue(r.is_error)
                        self.assertIn("invalid-path", text_of(r))
                        r = await s.call_tool("filestore_read", {"path": "/hello.txt"})
                        self.assertIn("hello world", text_of(r))

                        # Upload 5 MB of random bytes, then download them in pages.
                        r = await s.call_tool(
                            "filestore_write",
                            {"path": "/up/blob.bin", "content": base64.b64encode(blob).decode(), "encoding": "base64"},
                        )
                        self.assertFalse(r.is_error, text_of(r))
                        self.assertEqual((fixture / "up" / "blob.bin").read_bytes(), blob)
                        got, at, pages = b"", 0, 0
                        while True:
                            r = await s.call_tool(
                                "filestore_read", {"path": "/up/blob.bin", "encoding": "base64", "byte_offset": at}
                            )
                            self.assertFalse(r.is_error, text_of(r))
                            page = r.structured_content
                            self.assertEqual((page["content"], page["byte_offset"]), ("base64", at))
                            got += base64.b64decode(page["text"])
                            pages += 1
                            if "next_byte_offset" not in page:
                                break
                            at = page["next_byte_offset"]
                        self.assertEqual(got, blob)
                        self.assertEqual(pages, 6)
                        # Bad base64 names the parameter and leaves the file as it was.
                        r = await s.call_tool(
                            "filestore_write", {"path": "/up/blob.bin", "content": "AAA*", "encoding": "base64"}
                        )
                        self.assertTrue(r.is_error)
                        self.assertIn("content", text_of(r))
                        self.assertIn("not base64", text_of(r))
                        self.assertEqual((fixture / "up" / "blob.bin").read_bytes(), blob)

                        # resources/read of files past the component's 4 MiB page.
                        r = await s.read_resource("filestore:///big.txt")
                        self.assertEqual(r.contents[0].text, big_text)
                        r = await s.read_resource("filestore:///up/blob.bin")
                        self.assertEqual(base64.b64decode(r.contents[0].blob), blob)
                        # Past 16 MiB: refused before the bytes are read, pointing to paging.
                        (fixture / "huge.bin").write_bytes(b"\0" * (16 * 1024 * 1024 + 1))
                        with self.assertRaises(Exception) as huge:
                            await s.read_resource("filestore:///huge.bin")
                        self.assertIn("too-large", str(huge.exception))
                        self.assertIn("byte_offset", str(huge.exception))
                        # Byte pages come one file per call.
                        r = await s.call_tool(
                            "filestore_read", {"paths": ["/hello.txt", "/big.txt"], "encoding": "base64"}
                        )
                        self.assertTrue(r.is_error)
                        self.assertIn("paths", text_of(r))
                        # A binary file's text read says how to get its bytes.
                        r = await s.call_tool("filestore_read", {"path": "/data.bin"})
                        self.assertIn('encoding: "base64"', text_of(r))

            # With --config, /tool_calls is there to hold (and offload) results.
            config = fixture / "tools.yaml"
            config.write_text(
                "sources:\n  db:\n    kind: sqlite\n    database: ':memory:'\n"
                "tools:\n  one:\n    kind: sqlite-sql\n    source: db\n    description: One.\n"
                "    statement: SELECT 1 AS n\n"
            )
            params = StdioServerParameters(
                command=BIN, args=["serve", "--mount", f"/={fixture}", "--config", str(config)], cwd=tempfile.gettempdir()
            )
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (read, write):
                    async with ClientSession(read, write) as s:
                        await s.initialize()
                        r = await s.call_tool("filestore_ls", {"path": "/"})
                        names = {e["name"] for e in r.structured_content["entries"]}
                        self.assertIn("tool_calls", names)
                        self.assertNotIn("scratch", names)
        finally:
            shutil.rmtree(fixture, ignore_errors=True)


if __name__ == "__main__":
    if not BIN:
        sys.exit("set FILESTORE_BIN to the filestore binary")
    unittest.main(verbosity=2)


class SkillActivationTest(unittest.IsolatedAsyncioTestCase):
    """`serve --config --toolset --skills`: reading a SKILL.md enables its tools and the
    client receives notifications/tools/list_changed, then sees the new tool."""

    async def test_list_changed_after_skill_read(self) -> None:
        root = Path(tempfile.mkdtemp(prefix="filestore-skills-"))
        try:
            (root / "tools.yaml").write_text(
                "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n"
                "---\nkind: tool\nname: count_rows\ntype: sqlite-sql\nsource: db\n"
                "description: Count something.\nstatement: SELECT 42 AS n;\n"
                "---\nkind: tool\nname: hidden_report\ntype: sqlite-sql\nsource: db\n"
                "description: A report only the reporting skill enables.\nstatement: SELECT 7 AS n;\n"
                "---\nkind: toolset\nname: base\ntools: [count_rows]\n"
            )
            skill = root / "skills" / "reporting"
            skill.mkdir(parents=True)
            (skill / "SKILL.md").write_text(
                "---\nname: reporting\ndescription: Build reports.\nallowed-tools: hidden_report\n---\nRun it.\n"
            )
            seen: list[object] = []

            async def handler(message: object) -> None:
                seen.append(message)

            params = StdioServerParameters(
                command=BIN,
                args=["serve", "--config", str(root / "tools.yaml"), "--toolset", "base",
                      "--skills", str(root / "skills"), "--mount", "/workspace=mem:"],
                cwd=str(root),
            )
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (read, write):
                    async with ClientSession(read, write, message_handler=handler) as s:
                        await s.initialize()
                        names = {t.name for t in (await s.list_tools()).tools}
                        self.assertIn("count_rows", names)
                        self.assertNotIn("hidden_report", names)
                        r = await s.call_tool("count_rows", {})
                        self.assertFalse(r.is_error, text_of(r))
                        self.assertIn("42", text_of(r))
                        prompt = (await s.get_prompt("filestore_instructions", {})).messages[0].content.text
                        self.assertIn("<location>/skills/reporting/SKILL.md</location>", prompt)
                        r = await s.call_tool("filestore_read", {"path": "/skills/reporting/SKILL.md"})
                        self.assertFalse(r.is_error, text_of(r))
                        self.assertIn("enabled tools: hidden_report", text_of(r))
                        for _ in range(50):
                            if any("list_changed" in repr(m) or "ListChanged" in repr(m) for m in seen):
                                break
                            await anyio_sleep(0.1)
                        self.assertTrue(
                            any("list_changed" in repr(m) or "ListChanged" in repr(m) for m in seen),
                            f"no tools/list_changed notification; got {seen!r}",
                        )
                        names = {t.name for t in (await s.list_tools()).tools}
                        self.assertIn("hidden_report", names)
                        r = await s.call_tool("hidden_report", {})
                        self.assertFalse(r.is_error, text_of(r))
        finally:
            shutil.rmtree(root, ignore_errors=True)


class SkillExecutorTest(unittest.IsolatedAsyncioTestCase):
    """Skill executors' typed results through the Python SDK, which checks every
    structured result against the tool's outputSchema itself: a configured tool's
    `outputSchema` and a skill descriptor's `outputs` reach the client, conforming
    results pass the SDK's check, a breaking one is an error naming where; the
    instructions prompt filters skills by category."""

    async def test_output_schemas_and_catalog(self) -> None:
        root = Path(tempfile.mkdtemp(prefix="filestore-executor-"))
        try:
            (root / "tools.yaml").write_text(
                "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n"
                "---\nkind: tool\nname: label\ntype: sqlite-sql\nsource: db\ndescription: Echo a label.\n"
                "statement: SELECT ? AS label\nparameters:\n  - {name: label, type: string, description: The label.}\n"
                "outputSchema:\n  type: array\n  items:\n    type: object\n    required: [label]\n"
                "    properties:\n      label: {type: string, maxLength: 5}\n"
                "---\nkind: tool\nname: plan\ntype: sqlite-sql\nsource: db\ndescription: Plan.\n"
                "statement: SELECT 3 AS hosts\n"
            )
            skill = root / "skills" / "fleet-plan"
            skill.mkdir(parents=True)
            (skill / "SKILL.md").write_text("---\nname: fleet-plan\ndescription: Plan the fleet.\n---\nx\n")
            (skill / "descriptor.yaml").write_text(
                "tool: plan\noutputs: {type: array, items: {type: object, required: [hosts]}}\n"
                "category: fleet\ntags: [ops]\ninvocationMode: one_shot\n"
            )
            other = root / "skills" / "notes"
            other.mkdir(parents=True)
            (other / "SKILL.md").write_text("---\nname: notes\ndescription: Take notes.\n---\nx\n")
            params = StdioServerParameters(
                command=BIN,
                args=["serve", "--config", str(root / "tools.yaml"), "--skills", str(root / "skills"),
                      "--mount", "/workspace=mem:"],
                cwd=str(root),
            )
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (read, write):
                    async with ClientSession(read, write) as s:
                        await s.initialize()
                        tools = {t.name: t for t in (await s.list_tools()).tools}
                        schema = tools["label"].output_schema
                        self.assertEqual(schema["properties"]["data"]["items"]["required"], ["label"], schema)
                        self.assertIsNone(tools["plan"].output_schema)
                        r = await s.call_tool("label", {"label": "ok"})
                        self.assertFalse(r.is_error, text_of(r))
                        self.assertEqual(r.structured_content["data"], [{"label": "ok"}])
                        r = await s.call_tool("label", {"label": "far too long"})
                        self.assertTrue(r.is_error)
                        self.assertIn("does not match its output schema: at /0/label", text_of(r))
                        self.assertIn("/tool_calls/label/", text_of(r))
                        prompt = await s.get_prompt("filestore_instructions", {"skill_category": "fleet"})
                        text = prompt.messages[0].content.text
                        self.assertIn("<category>fleet</category>", text)
                        self.assertIn("<invocation_mode>one_shot</invocation_mode>", text)
                        self.assertNotIn("<name>notes</name>", text)
                        r = await s.call_tool("filestore_read", {"path": "/skills/fleet-plan/SKILL.md"})
                        self.assertFalse(r.is_error, text_of(r))
                        tools = {t.name: t for t in (await s.list_tools()).tools}
                        self.assertEqual(tools["fleet-plan"].output_schema["properties"]["data"]["items"]["required"], ["hosts"])
                        r = await s.call_tool("fleet-plan", {})
                        self.assertFalse(r.is_error, text_of(r))
                        self.assertEqual(r.structured_content["data"], [{"hosts": 3}])
        finally:
            shutil.rmtree(root, ignore_errors=True)


class LoggingTest(unittest.IsolatedAsyncioTestCase):
    """The logging capability: a skill skipped at start reaches the client
    as a warning log message; logging/setLevel is accepted."""

    async def test_skipped_skills_are_logged(self) -> None:
        root = Path(tempfile.mkdtemp(prefix="filestore-logging-"))
        try:
            bad = root / "skills" / "broken"
            bad.mkdir(parents=True)
            (bad / "SKILL.md").write_text("no front matter here\n")
            got: list[types.LoggingMessageNotificationParams] = []

            async def on_log(params: types.LoggingMessageNotificationParams) -> None:
                got.append(params)

            params = StdioServerParameters(
                command=BIN,
                args=["serve", "--skills", str(root / "skills"), "--mount", "/workspace=mem:"],
                cwd=str(root),
            )
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (read, write):
                    async with ClientSession(read, write, logging_callback=on_log) as s:
                        init = await s.initialize()
                        self.assertIsNotNone(init.capabilities.logging)
                        await s.set_logging_level("info")
                        for _ in range(50):
                            if got:
                                break
                            await anyio_sleep(0.1)
                        self.assertTrue(got, "no log message")
                        self.assertEqual(got[0].level, "warning")
                        self.assertEqual(got[0].logger, "filestore")
                        self.assertIn("broken", str(got[0].data))
        finally:
            shutil.rmtree(root, ignore_errors=True)


class RootsTest(unittest.IsolatedAsyncioTestCase):
    """MCP roots: without --mount /workspace, the client's roots
    become /workspace (one root) or /workspace/NAME (several), read-only, at
    initialization and again on notifications/roots/list_changed; a server started
    in a home directory serves none of it."""

    async def test_roots_become_the_workspace(self) -> None:
        home = Path(tempfile.mkdtemp(prefix="filestore-home-"))
        a = Path(tempfile.mkdtemp(prefix="filestore-root-a-"))
        b = Path(tempfile.mkdtemp(prefix="filestore-root-b-"))
        try:
            (home / "secret.txt").write_text("do not show\n")
            (a / "a.txt").write_text("from a\n")
            (b / "b.txt").write_text("from b\n")
            current = [types.Root(uri=a.as_uri(), name="alpha")]

            async def roots(_ctx) -> types.ListRootsResult:
                return types.ListRootsResult(roots=list(current))

            env = dict(os.environ, HOME=str(home))
            params = StdioServerParameters(command=BIN, args=["serve"], cwd=str(home), env=env)
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (read, write):
                    async with ClientSession(read, write, list_roots_callback=roots) as s:
                        await s.initialize()
                        r = None
                        for _ in range(50):
                            r = await s.call_tool("filestore_ls", {"path": "/workspace"})
                            if not r.is_error:
                                break
                            await anyio_sleep(0.1)
                        self.assertFalse(r.is_error, text_of(r))
                        self.assertIn("a.txt", text_of(r))
                        self.assertNotIn("secret.txt", text_of(r))
                        r = await s.call_tool("filestore_write", {"path": "/workspace/new.txt", "content": "x"})
                        self.assertTrue(r.is_error, "roots are read-only")
                        current[:] = [types.Root(uri=a.as_uri(), name="alpha"),
                                      types.Root(uri=b.as_uri(), name="beta")]
                        await s.send_roots_list_changed()
                        listing = ""
                        for _ in range(50):
                            r = await s.call_tool("filestore_tree", {"path": "/workspace"})
                            listing = text_of(r)
                            if "beta/" in listing:
                                break
                            await anyio_sleep(0.1)
                        self.assertIn("alpha/", listing)
                        self.assertIn("beta/", listing)
                        self.assertIn("b.txt", listing)
        finally:
            for d in (home, a, b):
                shutil.rmtree(d, ignore_errors=True)


class ToolboxConfigTest(unittest.IsolatedAsyncioTestCase):
    """Toolbox configurations through `serve --config`: configured prompts are MCP
    prompts rendered with their arguments, and `$N` placeholders bind the N-th
    declared parameter (bound by first appearance, the hotels quickstart's booking
    would update the wrong row)."""

    async def test_prompts_and_numbered_placeholders(self) -> None:
        import sqlite3

        root = Path(tempfile.mkdtemp(prefix="filestore-toolbox-"))
        try:
            db = root / "hotels.db"
            c = sqlite3.connect(db)
            c.execute("CREATE TABLE hotels (id INTEGER PRIMARY KEY, name TEXT, booked INTEGER)")
            c.executemany("INSERT INTO hotels VALUES (?, ?, 0)", [(1, "A"), (2, "B"), (3, "C")])
            c.commit()
            c.close()
            (root / "tools.yaml").write_text(
                f"kind: source\nname: db\ntype: sqlite\ndatabase: {db}\n"
                "---\nkind: tool\nname: book-hotel\ntype: sqlite-sql\nsource: db\n"
                "description: Book a hotel.\n"
                "statement: UPDATE hotels SET booked = $2 WHERE id = $1\n"
                "parameters:\n"
                "  - {name: hotel_id, type: integer, description: The hotel.}\n"
                "  - {name: booked, type: integer, description: Rooms.}\n"
                "---\nkind: prompt\nname: plan-trip\ndescription: Plan a trip.\n"
                "messages:\n"
                "  - content: Find hotels in {{.city}} for {{.nights}} nights.\n"
                "  - role: assistant\n    content: I will search {{.city}}.\n"
                "arguments:\n"
                "  - {name: city, description: The city.}\n"
                "  - {name: nights, description: How long., required: false, default: '2'}\n"
            )
            params = StdioServerParameters(
                command=BIN,
                args=["serve", "--config", str(root / "tools.yaml"), "--mount", "/workspace=mem:"],
                cwd=str(root),
            )
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (read, write):
                    async with ClientSession(read, write) as s:
                        await s.initialize()
                        prompts = {p.name: p for p in (await s.list_prompts()).prompts}
                        self.assertIn("filestore_instructions", prompts)
                        trip = prompts["plan-trip"]
                        self.assertEqual(trip.description, "Plan a trip.")
                        self.assertEqual(
                            [(a.name, a.required) for a in trip.arguments],
                            [("city", True), ("nights", False)],
                        )
                        r = await s.get_prompt("plan-trip", {"city": "Basel"})
                        self.assertEqual(
                            [(m.role, m.content.text) for m in r.messages],
                            [("user", "Find hotels in Basel for 2 nights."),
                             ("assistant", "I will search Basel.")],
                        )
                        with self.assertRaises(Exception) as e:
                            await s.get_prompt("plan-trip", {})
                        self.assertIn("city", str(e.exception))
                        with self.assertRaises(Exception) as e:
                            await s.get_prompt("no-such", {})
                        self.assertIn("plan-trip", str(e.exception))

                        r = await s.call_tool("book-hotel", {"hotel_id": 1, "booked": 3})
                        self.assertFalse(r.is_error, text_of(r))
            c = sqlite3.connect(db)
            rows = c.execute("SELECT id, booked FROM hotels ORDER BY id").fetchall()
            c.close()
            self.assertEqual(rows, [(1, 3), (2, 0), (3, 0)])
        finally:
            shutil.rmtree(root, ignore_errors=True)


    async def test_hotels_quickstart_on_postgres(self) -> None:
        """Toolbox's PostgreSQL quickstart (its tools.yaml tools verbatim) against a
        real PostgreSQL that the Rust harness started and filled: search, book,
        update dates, cancel, as an agent would call them."""
        config = os.environ.get("FILESTORE_PG_HOTELS_YAML")
        if not config:
            self.skipTest("FILESTORE_PG_HOTELS_YAML is set by tests/integration/mcp.rs")
        root = Path(tempfile.mkdtemp(prefix="filestore-pg-"))
        try:
            params = StdioServerParameters(
                command=BIN,
                args=["serve", "--config", config, "--mount", "/workspace=mem:"],
                cwd=str(root),
                env=dict(os.environ, PG_PASSWORD=os.environ["FILESTORE_PG_PASSWORD"]),
            )
            with open(os.devnull, "w") as devnull:
                async with stdio_client(params, errlog=devnull) as (read, write):
                    async with ClientSession(read, write) as s:
                        await s.initialize()
                        names = {t.name for t in (await s.list_tools()).tools}
                        self.assertTrue(
                            {"search-hotels-by-name", "search-hotels-by-location", "book-hotel",
                             "update-hotel", "cancel-hotel"} <= names, names)

                        async def call(name, args):
                            r = await s.call_tool(name, args)
                            self.assertFalse(r.is_error, text_of(r))
                            return r.structured_content["data"]

                        basel = await call("search-hotels-by-location", {"location": "Basel"})
                        self.assertEqual(
                            [h["name"] for h in basel],
                            ["Hilton Basel", "Hyatt Regency Basel", "Holiday Inn Basel"])
                        self.assertEqual(await call("book-hotel", {"hotel_id": "3"}), {"rows_affected": 1})
                        await call("update-hotel", {"hotel_id": "3", "checkin_date": "2024-05-01",
                                                    "checkout_date": "2024-05-09"})
                        [hyatt] = await call("search-hotels-by-name", {"name": "Hyatt"})
                        self.assertEqual(
                            (hyatt["id"], hyatt["booked"], hyatt["checkin_date"]),
                            (3, "1", "2024-05-01T00:00:00Z"))
                        # Nothing else was booked.
                        every = await call("search-hotels-by-name", {"name": ""})
                        self.assertEqual([h["id"] for h in every if h["booked"] == "1"], [3])
                        await call("cancel-hotel", {"hotel_id": "3"})
                        [hyatt] = await call("search-hotels-by-name", {"name": "Hyatt"})
                        self.assertEqual(hyatt["booked"], "0")
                        r = await s.call_tool("book-hotel", {"hotel_id": "three"})
                        self.assertTrue(r.is_error)
                        self.assertIn("hotel_id", text_of(r))
        finally:
            shutil.rmtree(root, ignore_errors=True)


class ApprovalTest(unittest.IsolatedAsyncioTestCase):
    """A tool with `requiresApproval: true` (here a skill descriptor's) asks the user
    through MCP elicitation; only an accepted `approve: true` runs it. A client that
    cannot elicit gets a clear refusal, and nothing runs."""

    def setUp(self) -> None:
        import sqlite3

        self.root = Path(tempfile.mkdtemp(prefix="filestore-approval-"))
        self.db = self.root / "db.sqlite"
        con = sqlite3.connect(self.db)
        con.execute("CREATE TABLE items (n INTEGER)")
        con.executemany("INSERT INTO items VALUES (?)", [(1,), (2,), (3,)])
        con.commit()
        con.close()
        (self.root / "tools.yaml").write_text(
            f"kind: source\nname: db\ntype: sqlite\ndatabase: {self.db}\n"
            "---\nkind: tool\nname: delete_from\ntype: sqlite-sql\nsource: db\n"
            "description: Delete rows.\nstatement: DELETE FROM items WHERE n >= ?\n"
            "parameters:\n  - {name: min, type: integer, description: Lowest n.}\n"
            "---\nkind: toolset\nname: base\ntools: []\n"
        )
        skill = self.root / "skills" / "purge"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text("---\nname: purge\ndescription: Purge rows.\n---\nCall purge.\n")
        (skill / "descriptor.yaml").write_text(
            "tool: delete_from\nrequiresApproval: true\ninputs:\n  - {name: min, type: integer, minValue: 1}\n"
        )

    def tearDown(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def rows(self) -> int:
        import sqlite3

        con = sqlite3.connect(self.db)
        try:
            return con.execute("SELECT count(*) FROM items").fetchone()[0]
        finally:
            con.close()

    @contextlib.asynccontextmanager
    async def connect(self, elicitation_callback=None):
        params = StdioServerParameters(
            command=BIN,
            args=["serve", "--config", str(self.root / "tools.yaml"), "--toolset", "base",
                  "--skills", str(self.root / "skills"), "--mount", "/workspace=mem:"],
            cwd=str(self.root),
        )
        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write):
                kwargs = {"elicitation_callback": elicitation_callback} if elicitation_callback else {}
                async with ClientSession(read, write, **kwargs) as s:
                    await s.initialize()
                    r = await s.call_tool("filestore_read", {"path": "/skills/purge/SKILL.md"})
                    self.assertIn("can be called as tool 'purge'", text_of(r))
                    yield s

    async def test_approved_declined_and_unaskable(self) -> None:
        asked: list[str] = []
        answers = [
            types.ElicitResult(action="accept", content={"approve": False}),
            types.ElicitResult(action="decline"),
            types.ElicitResult(action="accept", content={"approve": True}),
        ]

        async def elicit(context, params):
            asked.append(params.message)
            self.assertIn("approve", params.requested_schema["properties"])
            return answers.pop(0)

        async with self.connect(elicit) as s:
            # The client can tell before calling: the flag travels in `_meta` and the
            # description (MCP annotations have no such hint).
            tools = {t.name: t for t in (await s.list_tools()).tools}
            self.assertEqual(tools["purge"].meta, {"filestore/requiresApproval": True})
            self.assertIn("Requires the user's approval", tools["purge"].description)
            self.assertIsNone(tools["filestore_read"].meta)

            r = await s.call_tool("purge", {"min": 0})
            self.assertTrue(r.is_error)
            self.assertIn("min", text_of(r))
            self.assertEqual(asked, [], "invalid input is refused before anyone is asked")

            r = await s.call_tool("purge", {"min": 2})
            self.assertTrue(r.is_error)
            self.assertIn("was not approved: the user answered no; nothing ran", text_of(r))
            r = await s.call_tool("purge", {"min": 2})
            self.assertIn("the user declined", text_of(r))
            self.assertEqual(self.rows(), 3, "nothing ran without approval")

            r = await s.call_tool("purge", {"min": 2})
            self.assertFalse(r.is_error, text_of(r))
            self.assertEqual(r.structured_content["data"]["rows_affected"], 2)
            self.assertEqual(self.rows(), 1)
            self.assertEqual(len(asked), 3)
            self.assertIn("'purge'", asked[0])
            self.assertIn('"min": 2', asked[0])

        async with self.connect() as s:
            r = await s.call_tool("purge", {"min": 1})
            self.assertTrue(r.is_error)
            self.assertIn("error[unauthorized]", text_of(r))
            self.assertIn("elicitation capability", text_of(r))
            self.assertEqual(self.rows(), 1)

    async def test_a_call_cancelled_while_asked_runs_nothing(self) -> None:
        """The client gives up on the call while the user is asked; the user approves
        afterwards (a dialog still on screen): nothing runs."""
        import asyncio

        asked, answered = asyncio.Event(), asyncio.Event()

        async def elicit(context, params):
            asked.set()
            await answered.wait()
            return types.ElicitResult(action="accept", content={"approve": True})

        async with self.connect(elicit) as s:
            call = asyncio.create_task(s.call_tool("purge", {"min": 2}))
            await asyncio.wait_for(asked.wait(), 60)
            call.cancel()  # the SDK sends `notifications/cancelled`
            with self.assertRaises(asyncio.CancelledError):
                await call
            await asyncio.sleep(0.5)
            answered.set()
            await asyncio.sleep(0.5)
            r = await s.call_tool("filestore_read", {"path": "/skills/purge/SKILL.md"})
            self.assertFalse(r.is_error, text_of(r))
            self.assertEqual(self.rows(), 3, "the cancelled call ran after the approval")


async def anyio_sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)
