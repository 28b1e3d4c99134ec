"""`filestore serve --http` serving many users, tried as they and an attacker would.

Keys and tokens are minted here (PyJWT with RSA and EC keys written to a JWKS file,
and a static tokens file); the real binary ($FILESTORE_BIN) serves a workspace per
user (`--mount /workspace=TENANTS/{sub}`) and a Toolbox tool whose parameter is bound
to a claim. The MCP client is the Python SDK; hostile requests are raw HTTP.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx2
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client

BIN = os.environ.get("FILESTORE_BIN", "")
ISSUER = "https://issuer.test"
STATIC_TOKEN = "static-token-for-carol-0123456789abcdef"

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "raw", "version": "1"}},
}
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def b64u(n: int, size: int | None = None) -> str:
    raw = n.to_bytes(size or (n.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


class Keys:
    def __init__(self) -> None:
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        rn = self.rsa.public_key().public_numbers()
        en = self.ec.public_key().public_numbers()
        self.jwks = {"keys": [
            {"kty": "RSA", "kid": "k-rsa", "alg": "RS256", "use": "sig", "n": b64u(rn.n), "e": b64u(rn.e)},
            {"kty": "EC", "kid": "k-ec", "alg": "ES256", "use": "sig", "crv": "P-256",
             "x": b64u(en.x, 32), "y": b64u(en.y, 32)},
        ]}
        self.rsa_public_pem = self.rsa.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

    def token(self, sub: str, aud: str, *, alg: str = "RS256", key=None, kid: str | None = None,
              iss: str = ISSUER, exp: float | None = None, nbf: float | None = None,
              headers: dict | None = None, **claims) -> str:
        now = time.time()
        payload = {"sub": sub, "aud": aud, "iss": iss, "iat": int(now),
                   "exp": int(now + 600 if exp is None else exp), **claims}
        if nbf is not None:
            payload["nbf"] = int(nbf)
        if key is None:
            key = self.rsa if alg.startswith("RS") else self.ec
        kid = kid if kid is not None else ("k-rsa" if alg.startswith("RS") else "k-ec")
        return jwt.encode(payload, key, algorithm=alg, headers={"kid": kid, **(headers or {})})


class Server:
    """`filestore serve --http 127.0.0.1:0` with authentication; the URL from its line."""

    def __init__(self, cwd: Path, *args: str) -> None:
        self.proc = subprocess.Popen([BIN, "serve", "--http", "127.0.0.1:0", *args], cwd=cwd,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        m = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
        if not m:
            self.proc.kill()
            raise AssertionError(f"no URL in the startup line: {line!r} {self.proc.stderr.read()}")
        self.url = m.group(1)
        self.base = self.url[: -len("/mcp")]
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


@contextlib.asynccontextmanager
async def connect(url: str, token: str):
    async with httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1]) as s:
                await s.initialize()
                yield s


class ManyUsersTest(unittest.IsolatedAsyncioTestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = Path(tempfile.mkdtemp(prefix="filestore-auth-"))
        cls.keys = Keys()
        (cls.dir / "jwks.json").write_text(json.dumps(cls.keys.jwks))
        (cls.dir / "tokens.json").write_text(json.dumps({"tokens": [
            {"token": STATIC_TOKEN, "sub": "carol", "claims": {"email": "carol@example.com"}}]}))
        db = cls.dir / "notes.db"
        with sqlite3.connect(db) as c:
            c.execute("CREATE TABLE notes (owner TEXT, text TEXT)")
            c.executemany("INSERT INTO notes VALUES (?, ?)",
                          [("alice", "alice's note"), ("bob", "bob's secret note"), ("carol", "carol's note")])
        (cls.dir / "tools.yaml").write_text(f"""
kind: source
name: notes
type: sqlite
database: {db}
---
kind: authService
name: corp
type: generic
audience: filestore
authorizationServer: {ISSUER}
---
kind: authService
name: elsewhere
type: google
clientId: nobody.apps.googleusercontent.com
---
kind: tool
name: my_notes
type: sqlite-sql
source: notes
description: The caller's own notes.
statement: SELECT text FROM notes WHERE owner = ?
authRequired: [corp]
parameters:
  - name: owner
    type: string
    description: Whose notes (always the caller).
    authServices: [{{name: corp, field: sub}}]
---
kind: tool
name: other_notes
type: sqlite-sql
source: notes
description: Needs a service this server cannot verify.
statement: SELECT text FROM notes
authRequired: [elsewhere]
""")
        cls.tenants = cls.dir / "tenants"
        cls.tenants.mkdir()
        cls.server = Server(cls.dir, "--auth-issuer", ISSUER, "--auth-jwks", str(cls.dir / "jwks.json"),
                            "--auth-tokens", str(cls.dir / "tokens.json"), "--auth-service", "corp",
                            "--mount", f"/workspace={cls.tenants}/{{sub}}", "--config", str(cls.dir / "tools.yaml"))
        cls.url = cls.server.url

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def tok(self, sub: str, **kw) -> str:
        return self.keys.token(sub, self.url, **kw)

    def post(self, token: str | None = None, body=INIT, **headers) -> httpx2.Response:
        h = dict(HEADERS, **headers)
        if token is not None:
            h["authorization"] = f"Bearer {token}"
        return httpx2.post(self.url, json=body, headers=h, timeout=30)

    def assert_refused(self, token: str | None, why: str) -> None:
        r = self.post(token)
        self.assertEqual(r.status_code, 401, r.text)
        challenge = r.headers.get("www-authenticate", "")
        self.assertIn(f'resource_metadata="{self.server.base}/.well-known/oauth-protected-resource/mcp"', challenge)
        if token is not None:
            self.assertIn('error="invalid_token"', challenge)
        self.assertIn(why, r.text)
        self.assertNotIn(token or "<none>", r.text)

    def test_metadata_and_missing_tokens(self) -> None:
        prm = httpx2.get(f"{self.server.base}/.well-known/oauth-protected-resource/mcp", timeout=10)
        self.assertEqual(prm.status_code, 200)
        self.assertEqual(prm.json()["resource"], self.url)
        self.assertEqual(prm.json()["authorization_servers"], [ISSUER])
        self.assert_refused(None, "needs a bearer token")
        r = self.post(None, authorization="Basic YWxpY2U6eA==")
        self.assertEqual(r.status_code, 401)
        self.assertIn("Bearer TOKEN", r.text)

    def test_hostile_tokens_are_refused(self) -> None:
        now = time.time()
        self.assert_refused(self.tok("alice", exp=now - 3600), "expired")
        self.assert_refused(self.tok("alice", nbf=now + 3600), "not valid yet")
        self.assert_refused(self.keys.token("alice", "http://127.0.0.1:1/mcp"), "not for this server")
        self.assert_refused(self.tok("alice", iss="https://evil.test"), "issuer")
        self.assert_refused(self.tok("alice", key=self.keys.other), "signature")
        self.assert_refused(self.tok("alice", kid="k-unknown"), "no key with kid 'k-unknown'")
        # alg none: unsigned.
        header = base64.urlsafe_b64encode(b'{"alg":"none","typ":"JWT"}').rstrip(b"=").decode()
        payload = base64.urlsafe_b64encode(json.dumps(
            {"sub": "alice", "aud": self.url, "iss": ISSUER, "exp": int(now + 600)}).encode()).rstrip(b"=").decode()
        self.assert_refused(f"{header}.{payload}.", "malformed")
        # HS256 signed with the RSA public key as the secret (key confusion).
        # (By hand: PyJWT itself refuses to make one.)
        seg = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()  # noqa: E731
        signing = f'{seg({"alg": "HS256", "typ": "JWT", "kid": "k-rsa"})}.' + seg(
            {"sub": "alice", "aud": self.url, "iss": ISSUER, "exp": int(now + 600)})
        mac = hmac.new(self.keys.rsa_public_pem, signing.encode(), hashlib.sha256).digest()
        hs = f"{signing}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"
        self.assert_refused(hs, "not accepted")
        # An ES256 token naming the RSA key.
        self.assert_refused(self.tok("alice", alg="ES256", kid="k-rsa"), "not its key's")
        # Validly signed, but with an extension marked critical that this server
        # cannot understand (RFC 7515 §4.1.11: refuse).
        crit = {"crit": ["urn:example:must-check"], "urn:example:must-check": True}
        self.assert_refused(self.tok("alice", headers=crit), "crit")
        self.assert_refused("not-a-token-at-all", "not valid")
        self.assert_refused(STATIC_TOKEN + "x", "not valid")

    async def test_each_user_has_a_private_workspace(self) -> None:
        alice, bob = self.tok("alice"), self.tok("bob", alg="ES256")
        async with connect(self.url, alice) as a:
            r = await a.call_tool("filestore_write", {"path": "/workspace/diary.txt", "content": "alice's diary\n"})
            self.assertFalse(r.is_error, text_of(r))
            notes = await a.call_tool("my_notes", {})
            self.assertFalse(notes.is_error, text_of(notes))
            result_path = notes.structured_content["result_path"]
        self.assertEqual((self.tenants / "alice" / "diary.txt").read_text(), "alice's diary\n")
        # Bob plants a link to Alice's directory in his own (as a local user might).
        (self.tenants / "bob").mkdir(exist_ok=True)
        os.symlink(self.tenants / "alice", self.tenants / "bob" / "to-alice")
        async with connect(self.url, bob) as b:
            for path in ["/workspace/diary.txt", "/workspace/to-alice/diary.txt", "/workspace/../alice/diary.txt"]:
                r = await b.call_tool("filestore_read", {"path": path})
                self.assertTrue(r.is_error, f"bob read {path}: {text_of(r)}")
                self.assertNotIn("alice's diary", text_of(r))
            listing = await b.call_tool("filestore_ls", {"path": "/workspace"})
            self.assertNotIn("diary", text_of(listing))
            with self.assertRaises(Exception):
                await b.read_resource("filestore:///workspace/diary.txt")
            r = await b.call_tool("filestore_read", {"path": result_path})
            self.assertTrue(r.is_error, f"bob read alice's tool result: {text_of(r)}")
            grep = await b.call_tool("filestore_grep", {"pattern": "diary", "path": "/"})
            self.assertNotIn("alice's diary", text_of(grep))

    async def test_a_session_id_is_useless_with_another_identity(self) -> None:
        alice, bob = self.tok("alice"), self.tok("bob")
        r = self.post(alice)
        self.assertEqual(r.status_code, 200, r.text)
        sid = r.headers["mcp-session-id"]
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "filestore_ls", "arguments": {"path": "/workspace"}}}
        stolen = self.post(bob, call, **{"mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"})
        self.assertEqual(stolen.status_code, 404, stolen.text)
        self.assertEqual(self.post(None, call, **{"mcp-session-id": sid}).status_code, 401)

    async def test_claims_bind_parameters_and_gate_tools(self) -> None:
        async with connect(self.url, self.tok("alice")) as a:
            mine = await a.call_tool("my_notes", {})
            self.assertFalse(mine.is_error, text_of(mine))
            self.assertIn("alice's note", text_of(mine))
            self.assertNotIn("bob", text_of(mine))
            # The claim decides, not the arguments.
            forged = await a.call_tool("my_notes", {"owner": "bob"})
            self.assertNotIn("bob's secret note", text_of(forged))
            other = await a.call_tool("other_notes", {})
            self.assertTrue(other.is_error)
            self.assertIn("unauthorized", text_of(other))
        async with connect(self.url, STATIC_TOKEN) as c:
            mine = await c.call_tool("my_notes", {})
            self.assertIn("carol's note", text_of(mine), text_of(mine))
            r = await c.call_tool("filestore_write", {"path": "/workspace/c.txt", "content": "c"})
            self.assertFalse(r.is_error, text_of(r))
        # A static token's workspace on a server accepting JWTs too (see below).
        self.assertTrue((self.tenants / "token~carol" / "c.txt").exists())

    async def test_a_jwt_and_a_static_token_of_one_subject_are_two_users(self) -> None:
        """The identity provider's `carol` is not the tokens file's `carol`: neither
        reaches the other's workspace or sessions."""
        async with connect(self.url, STATIC_TOKEN) as c:
            r = await c.call_tool("filestore_write", {"path": "/workspace/token-only.txt", "content": "static"})
            self.assertFalse(r.is_error, text_of(r))
        jwt_carol = self.tok("carol")
        async with connect(self.url, jwt_carol) as j:
            r = await j.call_tool("filestore_read", {"path": "/workspace/token-only.txt"})
            self.assertTrue(r.is_error, f"the JWT's carol read the static token's file: {text_of(r)}")
            self.assertIn("not-found", text_of(r))
        r = self.post(STATIC_TOKEN)
        self.assertEqual(r.status_code, 200, r.text)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "filestore_ls", "arguments": {"path": "/workspace"}}}
        borrowed = self.post(jwt_carol, call, **{"mcp-session-id": r.headers["mcp-session-id"],
                                                 "mcp-protocol-version": "2025-06-18"})
        self.assertEqual(borrowed.status_code, 404, borrowed.text)

    async def test_a_short_subject_cannot_name_a_long_ones_workspace(self) -> None:
        """A subject over 128 bytes becomes a hashed segment; a short subject spelling
        that segment (or its old `h-` form) is kept apart."""
        long = "L" * 200
        digest = hashlib.sha256(long.encode()).hexdigest()[:32]
        async with connect(self.url, self.tok(long)) as s:
            r = await s.call_tool("filestore_write", {"path": "/workspace/f.txt", "content": "the long one's"})
            self.assertFalse(r.is_error, text_of(r))
        for short in [f"h-{digest}", f"h~{digest}"]:
            async with connect(self.url, self.tok(short)) as s:
                r = await s.call_tool("filestore_read", {"path": "/workspace/f.txt"})
                self.assertTrue(r.is_error, f"{short} read the long subject's file: {text_of(r)}")
        self.assertEqual((self.tenants / f"h~{digest}" / "f.txt").read_text(), "the long one's")

    async def test_hostile_subjects_stay_in_one_directory(self) -> None:
        for sub in ["../escape", "..", "a/b", "x\ny"]:
            async with connect(self.url, self.tok(sub)) as s:
                r = await s.call_tool("filestore_write", {"path": "/workspace/f.txt", "content": sub})
                self.assertFalse(r.is_error, text_of(r))
        names = sorted(p.name for p in self.tenants.iterdir())
        for n in names:
            self.assertNotIn("/", n)
            self.assertNotIn(n, (".", ".."))
        self.assertFalse((self.dir / "escape").exists())
        self.assertIn("..%2Fescape", names)


class OidcIssuer:
    """A loopback OpenID issuer: discovery document and JWKS."""

    def __init__(self, jwks: dict) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                if self.path == "/.well-known/openid-configuration":
                    body = {"issuer": outer.url, "jwks_uri": f"{outer.url}/jwks.json"}
                elif self.path == "/jwks.json":
                    body = jwks
                else:
                    self.send_error(404)
                    return
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()


class ToolboxGenericAuthTest(unittest.IsolatedAsyncioTestCase):
    """A Toolbox `generic` auth service with `mcpEnabled: true` turns authentication on
    by itself: keys from its authorizationServer's discovery, tokens for its audience."""

    async def test_mcp_enabled_generic_service(self) -> None:
        keys = Keys()
        issuer = OidcIssuer(keys.jwks)
        d = Path(tempfile.mkdtemp(prefix="filestore-oidc-"))
        try:
            (d / "tools.yaml").write_text(f"""
kind: authService
name: corp
type: generic
audience: filestore-api
mcpEnabled: true
authorizationServer: {issuer.url}
""")
            server = Server(d, "--config", str(d / "tools.yaml"), "--mount", "/workspace=mem:")
            try:
                r = httpx2.post(server.url, json=INIT, headers=HEADERS, timeout=10)
                self.assertEqual(r.status_code, 401)
                good = keys.token("dora", "filestore-api", iss=issuer.url)
                async with connect(server.url, good) as s:
                    r = await s.call_tool("filestore_ls", {"path": "/"})
                    self.assertFalse(r.is_error, text_of(r))
                wrong_aud = keys.token("dora", server.url, iss=issuer.url)
                r = httpx2.post(server.url, json=INIT, timeout=10,
                                headers=dict(HEADERS, authorization=f"Bearer {wrong_aud}"))
                self.assertEqual(r.status_code, 401)
            finally:
                server.stop()
        finally:
            issuer.stop()
            shutil.rmtree(d, ignore_errors=True)


class ScopesRequiredTest(unittest.IsolatedAsyncioTestCase):
    """Toolbox 1.12's `scopesRequired`: every scope a tool lists must be in the `scope`
    claim of the bearer token the server verified (through a `generic` auth service
    with `mcpEnabled: true`); a tool without the field is not affected."""

    async def test_scopes_required_are_checked_against_the_bearer_token(self) -> None:
        keys = Keys()
        issuer = OidcIssuer(keys.jwks)
        d = Path(tempfile.mkdtemp(prefix="filestore-scopes-"))
        try:
            db = d / "hotels.db"
            with sqlite3.connect(db) as c:
                c.execute("CREATE TABLE hotels (id INTEGER PRIMARY KEY, name TEXT)")
                c.executemany("INSERT INTO hotels VALUES (?, ?)", [(1, "Hilton"), (2, "Hyatt")])
            (d / "tools.yaml").write_text(f"""
kind: source
name: hotels
type: sqlite
database: {db}
---
kind: authService
name: my-oauth
type: generic
audience: https://tools.example.com/mcp
mcpEnabled: true
authorizationServer: {issuer.url}
---
kind: tool
name: delete_hotel
type: sqlite-sql
source: hotels
description: Delete a hotel.
statement: DELETE FROM hotels WHERE id = ?
parameters:
  - {{name: id, type: integer, description: The hotel's id.}}
scopesRequired: [hotels:write, hotels:read]
---
kind: tool
name: count_hotels
type: sqlite-sql
source: hotels
description: How many hotels there are.
statement: SELECT count(*) AS n FROM hotels
""")
            server = Server(d, "--config", str(d / "tools.yaml"), "--mount", "/workspace=mem:")
            aud = "https://tools.example.com/mcp"
            try:
                lacking = keys.token("erin", aud, iss=issuer.url, scope="hotels:read profile")
                unscoped = keys.token("erin", aud, iss=issuer.url)
                full = keys.token("frank", aud, iss=issuer.url, scope="profile hotels:write hotels:read")
                for token, missing in [(lacking, "'hotels:write'"), (unscoped, "'hotels:write', 'hotels:read'")]:
                    async with connect(server.url, token) as s:
                        listed = {t.name for t in (await s.list_tools()).tools}
                        self.assertIn("delete_hotel", listed)
                        r = await s.call_tool("delete_hotel", {"id": 1})
                        self.assertTrue(r.is_error, text_of(r))
                        why = text_of(r)
                        self.assertIn("unauthorized", why)
                        self.assertIn("insufficient scopes for tool 'delete_hotel'", why)
                        self.assertIn(f"lacks {missing}", why)
                        # A tool without scopesRequired is not affected.
                        r = await s.call_tool("count_hotels", {})
                        self.assertFalse(r.is_error, text_of(r))
                        self.assertRegex(text_of(r), r'"n":\s*2')
                with sqlite3.connect(db) as c:
                    self.assertEqual(c.execute("SELECT count(*) FROM hotels").fetchone()[0], 2)
                async with connect(server.url, full) as s:
                    r = await s.call_tool("delete_hotel", {"id": 1})
                    self.assertFalse(r.is_error, text_of(r))
                with sqlite3.connect(db) as c:
                    self.assertEqual(c.execute("SELECT count(*) FROM hotels").fetchone()[0], 1)
            finally:
                server.stop()
        finally:
            issuer.stop()
            shutil.rmtree(d, ignore_errors=True)


class ServiceHeaderTokensTest(unittest.IsolatedAsyncioTestCase):
    """Toolbox's per-service tokens: a `generic` auth service's token in the
    `{name}_token` header, verified against the keys its authorizationServer
    publishes; over MCP (no server authentication on loopback) and `filestore call`."""

    async def test_service_tokens_in_headers_and_on_the_command_line(self) -> None:
        keys = Keys()
        issuer = OidcIssuer(keys.jwks)
        d = Path(tempfile.mkdtemp(prefix="filestore-svc-"))
        try:
            sqlite3.connect(d / "empty.db").close()
            (d / "tools.yaml").write_text(f"""
kind: source
name: db
type: sqlite
database: {d / "empty.db"}
---
kind: authService
name: hdr
type: generic
audience: hdr-aud
authorizationServer: {issuer.url}
---
kind: tool
name: whoami
type: sqlite-sql
source: db
description: Who the caller is, by the verified email claim.
statement: SELECT ? AS me
authRequired: [hdr]
parameters:
  - {{name: me, type: string, description: The caller., authServices: [{{name: hdr, field: email}}]}}
""")
            good = keys.token("dora", "hdr-aud", iss=issuer.url, email="dora@example.com")
            wrong = keys.token("dora", "other-aud", iss=issuer.url, email="dora@example.com")
            server = Server(d, "--config", str(d / "tools.yaml"), "--mount", "/workspace=mem:")
            try:
                async with httpx2.AsyncClient(headers={"hdr_token": good}, timeout=30) as http:
                    async with streamable_http_client(server.url, http_client=http) as st:
                        async with ClientSession(st[0], st[1]) as s:
                            await s.initialize()
                            r = await s.call_tool("whoami", {"me": "mallory@example.com"})
                            self.assertFalse(r.is_error, text_of(r))
                            self.assertIn("dora@example.com", text_of(r))
                            self.assertNotIn("mallory", text_of(r))
                async with httpx2.AsyncClient(timeout=30) as http:
                    async with streamable_http_client(server.url, http_client=http) as st:
                        async with ClientSession(st[0], st[1]) as s:
                            await s.initialize()
                            r = await s.call_tool("whoami", {})
                            self.assertTrue(r.is_error)
                            self.assertIn("unauthorized", text_of(r))
                r = httpx2.post(server.url, json=INIT, timeout=10, headers=dict(HEADERS, hdr_token=wrong))
                self.assertEqual(r.status_code, 401)
                self.assertIn("hdr_token", r.text)
                self.assertIn("not for this server", r.text)
            finally:
                server.stop()
            cli = [BIN, "call", "--config", str(d / "tools.yaml")]
            out = subprocess.run(cli + ["--token", f"hdr={good}", "whoami", "{}"], capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("dora@example.com", out.stdout)
            out = subprocess.run(cli + ["--token", f"hdr={wrong}", "whoami", "{}"], capture_output=True, text=True, timeout=60)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("unauthorized", out.stderr)
            self.assertNotIn(wrong, out.stderr)
            out = subprocess.run(cli + ["whoami", "{}"], capture_output=True, text=True, timeout=60)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("unauthorized", out.stderr + out.stdout)
        finally:
            issuer.stop()
            shutil.rmtree(d, ignore_errors=True)


class CallLimitTest(unittest.IsolatedAsyncioTestCase):
    """`--max-calls-per-identity`: one identity's calls beyond the limit fail at once
    (limit-exceeded) while another identity's still run."""

    async def test_one_identity_cannot_take_every_worker(self) -> None:
        release = threading.Event()
        arrived = threading.Event()

        class Slow(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                arrived.set()
                release.wait(30)
                data = b'{"ok": true}'
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a):
                pass

        upstream = ThreadingHTTPServer(("127.0.0.1", 0), Slow)
        threading.Thread(target=upstream.serve_forever, daemon=True).start()
        d = Path(tempfile.mkdtemp(prefix="filestore-limit-"))
        try:
            (d / "tokens.json").write_text(json.dumps({"tokens": [
                {"token": "a" * 32, "sub": "alice"}, {"token": "b" * 32, "sub": "bob"}]}))
            (d / "tools.yaml").write_text(f"""
kind: source
name: slow
type: http
baseUrl: http://127.0.0.1:{upstream.server_address[1]}
allowedHosts: [127.0.0.1]
---
kind: tool
name: wait
type: http
source: slow
method: GET
path: /wait
description: Waits for the test.
""")
            server = Server(d, "--auth-tokens", str(d / "tokens.json"), "--config", str(d / "tools.yaml"),
                            "--mount", "/workspace=mem:", "--max-calls-per-identity", "1")
            try:
                async with connect(server.url, "a" * 32) as a1, connect(server.url, "a" * 32) as a2, \
                        connect(server.url, "b" * 32) as b:
                    import asyncio
                    first = asyncio.ensure_future(a1.call_tool("wait", {}))
                    self.assertTrue(await asyncio.to_thread(arrived.wait, 30), "the first call never arrived")
                    second = await a2.call_tool("filestore_ls", {"path": "/"})
                    self.assertTrue(second.is_error)
                    self.assertIn("limit-exceeded", text_of(second))
                    other = await b.call_tool("filestore_ls", {"path": "/"})
                    self.assertFalse(other.is_error, text_of(other))
                    release.set()
                    done = await first
                    self.assertFalse(done.is_error, text_of(done))
                    again = await a2.call_tool("filestore_ls", {"path": "/"})
                    self.assertFalse(again.is_error, text_of(again))
            finally:
                release.set()
                server.stop()
        finally:
            upstream.shutdown()
            shutil.rmtree(d, ignore_errors=True)


class ExposureTest(unittest.TestCase):
    def run_serve(self, *args: str, cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run([BIN, "serve", *args], cwd=cwd, capture_output=True, text=True, timeout=60)

    def test_no_public_bind_without_authentication(self) -> None:
        d = Path(tempfile.mkdtemp(prefix="filestore-bind-"))
        try:
            out = self.run_serve("--http", "0.0.0.0:0", "--mount", "/workspace=mem:", cwd=d)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("without authentication", out.stderr)
            out = self.run_serve("--mount", f"/workspace={d}/{{sub}}", cwd=d)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("{sub}", out.stderr)
            proc = subprocess.Popen([BIN, "serve", "--http", "0.0.0.0:0", "--allow-unauthenticated",
                                     "--mount", "/workspace=mem:"], cwd=d, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            try:
                self.assertIn("streamable HTTP at", proc.stderr.readline())
            finally:
                proc.kill()
                proc.wait()
                proc.stderr.close()
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
