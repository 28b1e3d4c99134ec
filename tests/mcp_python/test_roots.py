"""MCP roots offered by a client we did not write (the Python SDK), hostile ones
included.

- Over HTTP a client is remote: its roots never choose a host directory unless the
  operator allowed directories with `--http-roots-within`, and then only roots that
  resolve (`..` and symbolic links resolved) within them; `{sub}` makes that the
  caller's own directory, so one tenant cannot mount another's.
- Over stdio the roots are the local user's and apply, and a request made right
  after `initialize` already sees them (it waits while they are applied).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import tempfile
import unittest
import warnings
from pathlib import Path

import httpx2
from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from test_mcp import HttpServer, text_of

BIN = os.environ.get("FILESTORE_BIN", "")
ALICE = "static-token-for-alice-0123456789abcdef"
BOB = "static-token-for-bob-0123456789abcdef00"


# The roots below are sent as written, `..` included (the SDK would normalise a
# validated URL): pydantic warns that they are plain strings.
warnings.filterwarnings("ignore", message="Pydantic serializer warnings")


class Client:
    """An MCP client offering `roots` (URIs sent exactly as given, as a hostile client
    would); it records the roots/list requests it answers and the log messages it
    receives."""

    def __init__(self, roots: list[str] | None) -> None:
        """`None`: the client offers no roots at all (no `roots` capability)."""
        self.offers = roots is not None
        self.roots = [types.Root.model_construct(uri=u) for u in roots or []]
        self.asked = 0
        self.logs: list[str] = []

    async def list_roots(self, _ctx) -> types.ListRootsResult:
        self.asked += 1
        return types.ListRootsResult.model_construct(roots=list(self.roots))

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(str(params.data))

    def session(self, read, write) -> ClientSession:
        return ClientSession(read, write,
                             list_roots_callback=self.list_roots if self.offers else None,
                             logging_callback=self.on_log)

    @contextlib.asynccontextmanager
    async def over_http(self, url: str, token: str | None = None):
        headers = {"authorization": f"Bearer {token}"} if token else {}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                async with self.session(streams[0], streams[1]) as s:
                    await s.initialize()
                    yield s

    async def wait_for_logs(self, needle: str, count: int = 1) -> list[str]:
        """The log messages containing `needle`, once there are `count` (bounded:
        over HTTP they travel on another stream than the answers)."""
        for _ in range(100):
            got = [m for m in self.logs if needle in m]
            if len(got) >= count:
                return got
            await asyncio.sleep(0.1)
        return [m for m in self.logs if needle in m]


class Listings(unittest.IsolatedAsyncioTestCase):
    """Assertions on listings that quote at most their start (a root of / would
    otherwise put the whole host's tree in a failure)."""

    def shows(self, shown: str, name: str, why: str = "") -> None:
        if name not in shown:
            self.fail(f"{name} is not shown {why}: {brief(shown)}")

    def hides(self, shown: str, name: str, why: str = "") -> None:
        if name in shown:
            at = shown.index(name)
            self.fail(f"{name} is shown {why}: ...{shown[max(0, at - 300):at + 100]}... in {brief(shown)}")


def brief(text: str) -> str:
    return text if len(text) <= 1500 else f"{text[:1500]}... [{len(text)} characters]"


async def listing(s: ClientSession, path: str = "/workspace") -> str:
    """The recursive listing of `path` (every name beneath it), or its error."""
    r = await s.call_tool("filestore_tree", {"path": path})
    return text_of(r)


class Fixture:
    """TOP/served (the server's directory: served-marker.txt), TOP/allowed/proj
    (inside.txt), TOP/outside (outside-secret.txt), TOP/allowed/link_out -> outside,
    TOP/tenants/{alice,bob} (each with a proj/ and a secret)."""

    def __init__(self) -> None:
        self.top = Path(tempfile.mkdtemp(prefix="filestore-roots-")).resolve()
        self.served = self.top / "served"
        self.allowed = self.top / "allowed"
        self.proj = self.allowed / "proj"
        self.outside = self.top / "outside"
        self.tenants = self.top / "tenants"
        for d in (self.served, self.proj, self.outside):
            d.mkdir(parents=True)
        (self.served / "served-marker.txt").write_text("the server's own directory\n")
        (self.proj / "inside.txt").write_text("inside the allowed directory\n")
        (self.outside / "outside-secret.txt").write_text("outside\n")
        (self.allowed / "link_out").symlink_to(self.outside)
        for who in ("alice", "bob"):
            (self.tenants / who / "proj").mkdir(parents=True)
            (self.tenants / who / f"{who}-secret.txt").write_text(f"{who}'s secret\n")
            (self.tenants / who / "proj" / f"{who}-proj.txt").write_text(f"{who}'s project\n")
        self.tokens = self.top / "tokens.json"
        self.tokens.write_text(json.dumps({"tokens": [
            {"token": ALICE, "sub": "alice"}, {"token": BOB, "sub": "bob"}]}))

    def remove(self) -> None:
        shutil.rmtree(self.top, ignore_errors=True)


class HttpRootsTest(Listings):
    def setUp(self) -> None:
        self.f = Fixture()
        self.servers: list[HttpServer] = []

    def tearDown(self) -> None:
        for server in self.servers:
            server.stop()
        self.f.remove()

    def serve(self, *args: str) -> HttpServer:
        server = HttpServer(self.f.served, *args)
        self.servers.append(server)
        return server

    def assert_host_hidden(self, shown: str) -> None:
        for secret in ("passwd", "shadow", "outside-secret.txt", "bob-secret.txt", "bob-proj.txt"):
            self.hides(shown, secret)

    async def test_remote_roots_are_ignored_by_default(self) -> None:
        """`serve --http`: roots naming /etc, / and another directory choose nothing;
        /workspace stays the server's own, the server never asks for them and says
        why."""
        server = self.serve()
        client = Client(["file:///etc", "file:///", self.f.outside.as_uri(), self.f.proj.as_uri()])
        async with client.over_http(server.url) as s:
            said = await client.wait_for_logs("roots are ignored")
            for _ in range(5):
                shown = await listing(s)
                self.shows(shown, "served-marker.txt")
                self.assert_host_hidden(shown)
                self.hides(shown, "inside.txt")
                r = await s.call_tool("filestore_read", {"path": "/workspace/passwd"})
                self.assertTrue(r.is_error, text_of(r))
            self.assertTrue(said, f"no warning that the roots are ignored: {client.logs}")
            self.assertIn("--http-roots-within", said[0])
            self.assertEqual(client.asked, 0, "the server asked for roots it does not use")

    async def test_an_authenticated_tenant_cannot_mount_another_or_the_host(self) -> None:
        """With `{sub}` mounts and authentication, alice's roots naming bob's
        directory and /etc are ignored: she sees neither, under /workspace or
        anywhere."""
        server = self.serve("--auth-tokens", str(self.f.tokens),
                            "--mount", f"/home={self.f.tenants}/{{sub}}")
        client = Client([(self.f.tenants / "bob").as_uri(), "file:///etc"])
        async with client.over_http(server.url, ALICE) as s:
            await client.wait_for_logs("roots are ignored")
            for _ in range(5):
                shown = await listing(s, "/")
                self.shows(shown, "alice-secret.txt", "her own /home")
                self.shows(shown, "served-marker.txt")
                self.assert_host_hidden(shown)
            self.assertEqual(client.asked, 0)

    async def test_roots_within_an_allowed_directory_only(self) -> None:
        """`--http-roots-within DIR`: a root inside DIR is mounted, and the request
        made right after initialize already sees it; /etc, /, a directory outside, a
        link inside pointing outside and `..` in the URI (plain and percent-encoded)
        are each refused and said."""
        server = self.serve("--http-roots-within", str(self.f.allowed))
        hostile = [
            "file:///etc",
            "file:///",
            self.f.outside.as_uri(),
            (self.f.allowed / "link_out").as_uri(),
            f"file://{self.f.allowed}/../outside",
            f"file://{self.f.allowed}/%2E%2E/outside",
        ]
        client = Client([self.f.proj.as_uri(), *hostile])
        async with client.over_http(server.url) as s:
            shown = await listing(s)
            self.shows(shown, "inside.txt", "the allowed root is /workspace")
            self.hides(shown, "served-marker.txt")
            self.assert_host_hidden(shown)
            shown = await listing(s, "/")
            self.assert_host_hidden(shown)
            for path in ("/workspace/passwd", "/workspace/outside-secret.txt",
                         "/workspace/../outside/outside-secret.txt"):
                r = await s.call_tool("filestore_read", {"path": path})
                self.assertTrue(r.is_error, f"{path}: {text_of(r)}")
            refused = await client.wait_for_logs("not a directory within", len(hostile))
            self.assertEqual(len(refused), len(hostile), client.logs)
            for uri in hostile:
                self.assertTrue(any(uri in m for m in refused), f"{uri} not said: {refused}")

    async def test_a_client_without_roots_gets_no_workspace_within(self) -> None:
        """`--http-roots-within DIR`: a client that offers no roots gets no /workspace
        at all, never the directory the server was started in; the operator's mounts
        serve, and the client is told why."""
        server = self.serve("--http-roots-within", str(self.f.allowed))
        client = Client(None)
        async with client.over_http(server.url) as s:
            shown = await listing(s, "/")
            self.hides(shown, "served-marker.txt", "the server's own directory")
            self.assert_host_hidden(shown)
            r = await s.call_tool("filestore_ls", {"path": "/workspace"})
            self.assertTrue(r.is_error, text_of(r))
            r = await s.call_tool("filestore_write", {"path": "/scratch/x.txt", "content": "x"})
            self.assertFalse(r.is_error, text_of(r))
            said = await client.wait_for_logs("no /workspace")
            self.assertTrue(said, client.logs)
            self.assertEqual(client.asked, 0)

    async def test_tenants_roots_within_their_own_directory(self) -> None:
        """`--http-roots-within 'TENANTS/{sub}'`: alice's root in her own directory
        is mounted, her root naming bob's is refused; bob cannot mount alice's."""
        server = self.serve("--auth-tokens", str(self.f.tokens),
                            "--http-roots-within", f"{self.f.tenants}/{{sub}}",
                            "--mount", f"/home={self.f.tenants}/{{sub}}:ro")
        alice = Client([(self.f.tenants / "alice" / "proj").as_uri(),
                        (self.f.tenants / "bob").as_uri()])
        async with alice.over_http(server.url, ALICE) as s:
            shown = await listing(s)
            self.shows(shown, "alice-proj.txt")
            self.assert_host_hidden(shown)
            self.assert_host_hidden(await listing(s, "/"))
            refused = await alice.wait_for_logs("not a directory within")
            self.assertTrue(any("tenants/bob" in m for m in refused), alice.logs)
        bob = Client([(self.f.tenants / "alice" / "proj").as_uri()])
        async with bob.over_http(server.url, BOB) as s:
            shown = await listing(s, "/")
            self.hides(shown, "alice-proj.txt")
            self.hides(shown, "alice-secret.txt")
            self.shows(shown, "bob-secret.txt", "his own /home")

    async def test_a_static_tokens_roots_stay_in_its_own_directory(self) -> None:
        """On a server accepting JWTs too, a static token's `{sub}` is `token~SUB`
        (its mounts' directory): its roots may not reach the directory of the JWT
        user of the same subject (`TENANTS/alice`)."""
        from test_auth import Keys

        (self.f.top / "jwks.json").write_text(json.dumps(Keys().jwks))
        own = self.f.tenants / "token~alice" / "proj"
        own.mkdir(parents=True)
        (own / "static-alice.txt").write_text("the static token's alice\n")
        server = self.serve("--auth-tokens", str(self.f.tokens),
                            "--auth-issuer", "https://issuer.example",
                            "--auth-jwks", str(self.f.top / "jwks.json"),
                            "--http-roots-within", f"{self.f.tenants}/{{sub}}",
                            "--mount", f"/home={self.f.tenants}/{{sub}}:ro")
        alice = Client([(self.f.tenants / "alice" / "proj").as_uri()])
        async with alice.over_http(server.url, ALICE) as s:
            shown = await listing(s, "/")
            self.hides(shown, "alice-proj.txt", "the JWT alice's directory")
            self.hides(shown, "alice-secret.txt", "the JWT alice's directory")
            await alice.wait_for_logs("not a directory within")
        alice = Client([own.as_uri()])
        async with alice.over_http(server.url, ALICE) as s:
            self.shows(await listing(s), "static-alice.txt", "its own directory")

    async def test_roots_the_other_mounts_rule_out_leave_no_workspace(self) -> None:
        """A root inside a writable mount cannot be mounted read-only (its files could
        change through that mount): it is left out and said, and the session serves
        its other mounts."""
        server = self.serve("--auth-tokens", str(self.f.tokens),
                            "--http-roots-within", f"{self.f.tenants}/{{sub}}",
                            "--mount", f"/home={self.f.tenants}/{{sub}}")
        alice = Client([(self.f.tenants / "alice" / "proj").as_uri()])
        async with alice.over_http(server.url, ALICE) as s:
            shown = await listing(s, "/")
            self.shows(shown, "alice-secret.txt", "her /home still serves")
            self.hides(shown, "served-marker.txt")
            r = await s.call_tool("filestore_ls", {"path": "/workspace"})
            self.assertTrue(r.is_error, text_of(r))
            said = await alice.wait_for_logs("cannot be mounted with the server's mounts")
            self.assertTrue(said, alice.logs)
            self.assertNotIn(str(self.f.top), said[0], "no host path reaches the client")


class StdioRootsTest(Listings):
    """Over stdio the client's roots apply, and no request runs before they did."""

    def setUp(self) -> None:
        self.f = Fixture()

    def tearDown(self) -> None:
        self.f.remove()

    @contextlib.asynccontextmanager
    async def connect(self, client: Client):
        params = StdioServerParameters(command=BIN, args=["serve"], cwd=str(self.f.served))
        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write):
                async with client.session(read, write) as s:
                    await s.initialize()
                    yield s

    async def test_a_request_right_after_initialize_sees_the_roots(self) -> None:
        """Repeated, each in a new session: the first request after initialize (a
        tool call, a resource listing, the instructions prompt) shows the client's
        root, never the directory the server was started in."""
        for i in range(6):
            client = Client([self.f.proj.as_uri()])
            async with self.connect(client) as s:
                if i % 3 == 0:
                    shown = await listing(s)
                elif i % 3 == 1:
                    shown = " ".join(str(r.uri) for r in (await s.list_resources()).resources)
                else:
                    prompt = await s.get_prompt("filestore_instructions")
                    shown = " ".join(m.content.text for m in prompt.messages
                                     if isinstance(m.content, types.TextContent))
                self.shows(shown, "inside.txt", f"session {i}")
                self.hides(shown, "served-marker.txt", f"session {i}")
                self.assertEqual(client.asked, 1)

    async def test_a_flood_of_roots_changes_rebuilds_the_session_a_few_times(self) -> None:
        """300 `roots/list_changed` notifications at once are taken together: the
        server asks for the roots (and rebuilds the session) a few times, not 300,
        and the last change is not lost."""
        second = self.f.allowed / "second"
        second.mkdir()
        (second / "second.txt").write_text("the second root\n")
        client = Client([self.f.proj.as_uri()])
        async with self.connect(client) as s:
            self.shows(await listing(s), "inside.txt")
            client.roots = [types.Root.model_construct(uri=second.as_uri())]
            for _ in range(300):
                await s.send_roots_list_changed()
            for _ in range(100):
                shown = await listing(s)
                if "second.txt" in shown:
                    break
                await asyncio.sleep(0.1)
            self.shows(shown, "second.txt", "the last change")
            self.assertLessEqual(client.asked, 5, "roots/list asked once per notification")

    async def test_a_client_without_roots_does_not_wait(self) -> None:
        """A client that offers no roots gets the server's directory at once."""
        params = StdioServerParameters(command=BIN, args=["serve"], cwd=str(self.f.served))
        with open(os.devnull, "w") as devnull:
            async with stdio_client(params, errlog=devnull) as (read, write):
                async with ClientSession(read, write) as s:
                    await s.initialize()
                    self.shows(await listing(s), "served-marker.txt")


if __name__ == "__main__":
    unittest.main()
