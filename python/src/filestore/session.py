"""`McpSession`: one persistent `filestore serve` child process, spoken to over MCP.

The default `filestore.Session` runs the sandbox in this process (`filestore.local`);
this one is for a `filestore` binary of its own: another build, other `serve` flags
(`--agent`, `--state`...), or a server process kept apart from the caller.

Why a persistent process: every MCP session of `filestore serve` is one sandbox
(one component instance over its mounts). Keeping the process for the life of the
`McpSession` keeps that sandbox, so in-memory volumes such as `/scratch` survive from one
call to the next, and each call costs one JSON-RPC round trip instead of a process
start.

The MCP client is the official Python SDK (`mcp`), which is asyncio code. A
`McpSession` runs it on a private event loop in a daemon thread, so it can be used from
plain synchronous code (`call`) and from any asyncio program (`acall`) alike, without
the caller's loop having to host the SDK's task groups.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Callable, Coroutine, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from time import monotonic as _monotonic  # bound at import: immune to a patched time.monotonic
from typing import IO, Any, TypeVar

from mcp import ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from filestore.errors import (
    BinaryNotFoundError,
    ErrorKind,
    FilestoreError,
    SessionClosedError,
    SessionStartError,
    parse_error_text,
)

try:  # the SDK's JSON-RPC codes live in the `mcp-types` distribution it depends on
    from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
except ImportError:  # pragma: no cover - older layouts
    CONNECTION_CLOSED, REQUEST_TIMEOUT = -32000, -32001

__all__ = ["DEFAULT_CALL_TIMEOUT", "McpSession", "find_binary"]

T = TypeVar("T")

#: How long a call waits for its answer when neither the call nor the session names
#: a `timeout` (seconds): a server that stopped answering (frozen, stopped with
#: SIGSTOP, swapped out) makes the call raise `TimeoutError` instead of hanging its
#: caller forever. Well above the server's own per-call deadline (30 s by default),
#: which ends a slow call with an error result first.
DEFAULT_CALL_TIMEOUT = 120.0
#: How long `close()` lets the server wind down (the SDK closes stdin, waits, then
#: terminates the process tree) before the loop is torn down regardless.
_CLOSE_GRACE_SECONDS = 10.0
#: How often a waiting caller checks that the session's loop thread is still alive.
_WATCH_SECONDS = 0.5
#: The most of the server's stderr quoted in a start-up error.
_STDERR_TAIL_CHARS = 4000


def _executable(name: str | os.PathLike[str]) -> str | None:
    """`name` as an absolute path when it is an executable file (a bare name is
    looked up on `PATH`), else `None`."""
    text = os.fspath(name)
    if os.sep in text or os.path.isfile(text):
        return os.path.abspath(text) if os.path.isfile(text) and os.access(text, os.X_OK) else None
    found = shutil.which(text)
    return os.path.abspath(found) if found else None


def find_binary(binary: str | os.PathLike[str] | None = None) -> str:
    """Locate the `filestore` executable: `binary`, else `$FILESTORE_BIN`, else
    `filestore` on `PATH`.

    Raises `BinaryNotFoundError` naming all three places when none gives an
    executable file, so a missing install is diagnosed in one message.
    """
    places = "the binary= argument, $FILESTORE_BIN, or 'filestore' on PATH"
    if binary is not None:
        found = _executable(binary)
        if found is None:
            raise BinaryNotFoundError(
                f"binary={os.fspath(binary)!r} is not an executable file "
                f"(the filestore binary is taken from {places}, in that order)"
            )
        return found
    env_bin = os.environ.get("FILESTORE_BIN")
    if env_bin:
        found = _executable(env_bin)
        if found is None:
            raise BinaryNotFoundError(
                f"$FILESTORE_BIN={env_bin!r} is not an executable file "
                f"(the filestore binary is taken from {places}, in that order)"
            )
        return found
    found = _executable("filestore")
    if found is not None:
        return found
    raise BinaryNotFoundError(
        "cannot find the filestore binary: no binary= argument, $FILESTORE_BIN is not set, and there is no "
        "'filestore' on PATH. Pass binary=, set $FILESTORE_BIN, or install it (`cargo install --path host` "
        "in the filestore checkout)."
    )


class _Runner:
    """The event loop thread, the server process and the MCP client session.

    Separate from `McpSession` so that a finaliser can hold it without keeping the
    `McpSession` alive: when a `McpSession` is garbage-collected, `close()` still runs.
    """

    def __init__(
        self,
        transport: Callable[[], AbstractAsyncContextManager[Any]],
        label: str,
        errlog: IO[str],
        owns_errlog: bool,
    ) -> None:
        # `transport()` opens the connection (stdio child or HTTP) and yields the
        # SDK's (read, write) streams; `label` names the server in errors.
        self.transport = transport
        self.label = label
        self.errlog = errlog
        self.owns_errlog = owns_errlog
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run_loop, name="filestore-session", daemon=True)
        self.client: ClientSession | None = None
        self.tools: list[types.Tool] = []
        self.server_info: types.Implementation | None = None
        self.closed_reason: str | None = None
        self._stop = asyncio.Event()  # bound to the loop on first use (Python >= 3.10)
        self._serve_future: concurrent.futures.Future[None] | None = None
        self._lock = threading.Lock()
        self._closed = False

    def _run_loop(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def start(self, start_timeout: float) -> None:
        """Start the loop thread and the server; return once the MCP handshake is done."""
        self.thread.start()
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._serve_future = asyncio.run_coroutine_threadsafe(self._serve(ready), self.loop)
        try:
            ready.result(timeout=start_timeout)
        except concurrent.futures.TimeoutError:
            self.close(keep_errlog=True)
            tail = self._stderr_tail()
            self._close_errlog()
            raise SessionStartError(
                f"{self.label} did not complete the MCP handshake within {start_timeout:g} s" + tail
            ) from None
        except BaseException as e:  # the spawn or the handshake failed
            self.close(keep_errlog=True)
            tail = self._stderr_tail()
            self._close_errlog()
            if isinstance(e, FilestoreError):
                raise
            raise SessionStartError(
                f"cannot start a session with {self.label}: {_describe(e)}" + tail
            ) from e

    async def _serve(self, ready: concurrent.futures.Future[None]) -> None:
        """Own the transport and the client session from start to close.

        The SDK's transports are anyio task groups, which must be entered and left in
        the same task: this coroutine is that task. Calls run as other tasks on the
        same loop, sharing `self.client`.
        """
        try:
            async with self.transport() as (read, write):
                async with ClientSession(read, write) as client:
                    init = await client.initialize()
                    listed = await client.list_tools()  # also primes the SDK's output-schema checks
                    self.server_info = init.server_info
                    self.tools = list(listed.tools)
                    self.client = client
                    if not ready.done():
                        ready.set_result(None)
                    await self._stop.wait()
        except BaseException as e:
            if not ready.done():
                ready.set_exception(e if isinstance(e, Exception) else RuntimeError(repr(e)))
            elif self.closed_reason is None:
                self.closed_reason = f"the filestore server connection ended: {_describe(e)}"
            if not isinstance(e, Exception):
                raise
        finally:
            self.client = None
            if self.closed_reason is None:
                self.closed_reason = "the session was closed"

    def _stderr_tail(self) -> str:
        if not self.owns_errlog:
            return ""
        try:
            self.errlog.flush()
            self.errlog.seek(0)
            text = self.errlog.read()
        except (OSError, ValueError):
            return ""
        text = text.strip()
        if not text:
            return ""
        return "\nserver stderr:\n" + text[-_STDERR_TAIL_CHARS:]

    def in_loop_thread(self) -> bool:
        """Whether the caller is the session's own loop thread (where blocking would deadlock)."""
        return threading.current_thread() is self.thread

    def close(self, keep_errlog: bool = False) -> None:
        """Stop the server (stdin closed, then terminated if it lingers), the loop and the thread.

        Idempotent; safe from a finaliser. Called from the loop thread itself it only
        requests the stop, since waiting there would deadlock. `keep_errlog` leaves
        the captured stderr open so a start-up error can quote it.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        if self.closed_reason is None:
            self.closed_reason = "the session was closed"
        loop = self.loop
        if loop.is_closed():
            return
        loop.call_soon_threadsafe(self._stop.set)
        if self.in_loop_thread():
            return
        if self._serve_future is not None and self.thread.is_alive():
            try:
                self._serve_future.result(timeout=_CLOSE_GRACE_SECONDS)
            except BaseException:  # noqa: BLE001 - shutting down; the server is being stopped either way
                self._serve_future.cancel()
        if self.thread.is_alive():
            loop.call_soon_threadsafe(loop.stop)
            self.thread.join(timeout=_CLOSE_GRACE_SECONDS)
        if not self.thread.is_alive():
            try:
                loop.close()
            except RuntimeError:  # a loop that died mid-iteration may refuse; nothing more to free
                pass
        if not keep_errlog:
            self._close_errlog()

    def _close_errlog(self) -> None:
        if self.owns_errlog:
            try:
                self.errlog.close()
            except (OSError, ValueError):
                pass


def _describe(e: BaseException) -> str:
    """A one-line account of an exception, looking inside exception groups."""
    inner = getattr(e, "exceptions", None)
    if inner:
        return "; ".join(_describe(x) for x in inner)
    text = str(e)
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


class McpSession:
    """One `filestore serve` process over stdio and the MCP session with it, or (with
    `McpSession.connect(url)`) an MCP session with a remote `filestore serve --http`.

    `mounts` are `--mount` specs passed through unchanged (`"/=/path/to/root"`,
    `"/workspace=./src:ro"`, `"/notes=mem:"`); with none, `serve` applies its own
    defaults (see docs/mcp-server.md#mounts). `args` adds any other `serve`
    flags (`["--config", "tools.yaml"]`). `cwd` is the server's working directory
    (the default `/workspace` when no mount replaces it); `env` replaces the
    environment the server gets (default: this process's). `timeout` bounds each
    call in seconds (default `DEFAULT_CALL_TIMEOUT`, 120 s; `math.inf` waits
    forever): past it the call raises `TimeoutError`, so a frozen server cannot hang
    its caller.

    `call()` and `acall()` return a tool's `structuredContent` and raise
    `FilestoreError` (with `.kind` and `.message`) for an error result. Close the
    session with `close()` or a `with` block; a session that is garbage-collected or
    still open at interpreter exit is closed by a finaliser.
    """

    def __init__(
        self,
        mounts: Sequence[str] = (),
        *,
        binary: str | os.PathLike[str] | None = None,
        args: Sequence[str] = (),
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        stderr: IO[str] | None = None,
        timeout: float | None = None,
        start_timeout: float = 60.0,
    ) -> None:
        """Start `filestore serve` with the given mounts and complete the MCP handshake.

        Raises `BinaryNotFoundError` when no binary is found and `SessionStartError`
        when the server does not come up (its stderr is quoted).
        """
        command = find_binary(binary)
        argv = ["serve"]
        for spec in mounts:
            argv += ["--mount", str(spec)]
        argv += [str(a) for a in args]
        self.binary = command
        self.argv = argv
        self.url: str | None = None
        params = StdioServerParameters(
            command=command,
            args=argv,
            cwd=os.fspath(cwd) if cwd is not None else None,
            env=dict(os.environ if env is None else env),
        )
        owns = stderr is None
        errlog = stderr if stderr is not None else tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        runner = _Runner(lambda: stdio_client(params, errlog=errlog), f"`{command} {' '.join(argv)}`", errlog, owns)
        self._start(runner, timeout, start_timeout)

    def _start(self, runner: _Runner, timeout: float | None, start_timeout: float) -> None:
        """Run `runner` (closed by a finaliser) and wait for the MCP handshake."""
        self._timeout = DEFAULT_CALL_TIMEOUT if timeout is None else timeout
        self._runner = runner
        self._finalizer = weakref.finalize(self, runner.close)
        runner.start(start_timeout)

    @classmethod
    def connect(
        cls,
        url: str,
        *,
        token: str | None = None,
        conversation: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        start_timeout: float = 60.0,
    ) -> McpSession:
        """A session with a running `filestore serve --http` at `url` (its `/mcp` endpoint).

        `token` is sent as `Authorization: Bearer TOKEN` (a server with `--auth`);
        `conversation` as the `Filestore-Conversation` header, so a server with
        `--state` keeps this session's `/scratch` and stored results under that
        conversation across reconnects and replicas (docs/state.md#serving);
        `headers` adds any others. Methods, errors and `timeout` are as for a
        session over stdio. Closing it ends the MCP session, not the server.

        Raises `SessionStartError` when the server does not answer the handshake.
        """
        extra = dict(headers or {})
        if token is not None:
            extra["Authorization"] = f"Bearer {token}"
        if conversation is not None:
            extra["Filestore-Conversation"] = conversation

        @asynccontextmanager
        async def transport() -> Any:
            async with create_mcp_http_client(headers=extra) as client:
                async with streamable_http_client(url, http_client=client) as streams:
                    yield streams

        self = cls.__new__(cls)
        self.binary = None
        self.argv = []
        self.url = url
        errlog = tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace")
        self._start(_Runner(transport, url, errlog, True), timeout, start_timeout)
        return self

    # -- lifecycle -----------------------------------------------------------------

    def close(self) -> None:
        """Close the MCP session and stop the server process (idempotent).

        In-memory volumes of the session (`/scratch`, `mem:` mounts) are gone after.
        """
        self._finalizer()

    @property
    def closed(self) -> bool:
        """Whether the session can no longer take calls (closed, or its server exited)."""
        return self._runner.client is None

    def __enter__(self) -> McpSession:
        """Use the session in a `with` block; it is closed at the end."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the session."""
        self.close()

    async def __aenter__(self) -> McpSession:
        """Use the session in an `async with` block; it is closed at the end."""
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Close the session without blocking the caller's event loop."""
        await asyncio.to_thread(self.close)

    # -- information ---------------------------------------------------------------

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools the server listed at start: name, description, input and output schema.

        Write tools are absent when every mount is read-only.
        """
        return [t.model_dump(by_alias=True, exclude_none=True) for t in self._runner.tools]

    @property
    def server_info(self) -> dict[str, Any]:
        """The server's `initialize` answer `serverInfo` (name, version)."""
        info = self._runner.server_info
        return info.model_dump(by_alias=True, exclude_none=True) if info is not None else {}

    # -- calls ---------------------------------------------------------------------

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> dict[str, Any]:
        """Call `tool` with `arguments` and return its `structuredContent`.

        Blocks until the answer arrives (or `timeout` seconds, by default the
        session's, then `TimeoutError`).
        Raises `FilestoreError` for an error result, with the product's kind.
        """
        return self.run(self._call_on_loop(tool, arguments), timeout=timeout)

    async def acall(
        self, tool: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """`call` for asyncio code: awaits the answer without blocking the caller's loop.

        Cancelling the awaiting task cancels the request.
        """
        return await self.arun(self._call_on_loop(tool, arguments), timeout=timeout)

    def run(self, coro: Coroutine[Any, Any, T], *, timeout: float | None = None) -> T:
        """Run `coro` on the session's loop and wait for its result.

        For adapters that make several calls per operation (paging): the coroutine
        may await `_call_on_loop` any number of times. Not callable from the
        session's own loop thread (it would wait on itself).
        """
        if self._runner.in_loop_thread():
            coro.close()
            raise RuntimeError("McpSession.run() was called from the session's own event loop; await the coroutine instead")
        future = self._submit(coro)
        limit = timeout if timeout is not None else self._timeout
        deadline = None if limit is None else _monotonic() + limit
        while True:
            try:
                return future.result(timeout=_WATCH_SECONDS)
            except concurrent.futures.TimeoutError:
                self._check_waiting(future, deadline, limit)

    async def arun(self, coro: Coroutine[Any, Any, T], *, timeout: float | None = None) -> T:
        """`run` for asyncio code: the coroutine runs on the session's loop, the
        caller's loop awaits it. Cancelling the caller cancels the coroutine."""
        cfuture = self._submit(coro)
        future = asyncio.wrap_future(cfuture)
        limit = timeout if timeout is not None else self._timeout
        deadline = None if limit is None else _monotonic() + limit
        try:
            while True:
                done, _ = await asyncio.wait({future}, timeout=_WATCH_SECONDS)
                if done:
                    return future.result()
                self._check_waiting(cfuture, deadline, limit)
        except asyncio.CancelledError:
            cfuture.cancel()
            raise

    def _check_waiting(self, future: concurrent.futures.Future[Any], deadline: float | None, limit: float | None) -> None:
        """Between waits: give up when the loop thread died or the deadline passed."""
        if not self._runner.thread.is_alive():
            future.cancel()
            raise SessionClosedError("the session's event loop stopped unexpectedly; start a new session")
        if deadline is not None and _monotonic() >= deadline:
            future.cancel()
            raise TimeoutError(f"filestore call did not answer within {limit:g} s")

    def _submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        loop = self._runner.loop
        if self._runner.client is None or loop.is_closed():
            coro.close()
            raise SessionClosedError(self._runner.closed_reason or "the session is closed")
        return asyncio.run_coroutine_threadsafe(coro, loop)

    async def _call_on_loop(self, tool: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """One `tools/call` on the session's loop: the structured result, or a raise."""
        client = self._runner.client
        if client is None:
            raise SessionClosedError(self._runner.closed_reason or "the session is closed")
        try:
            result = await client.call_tool(tool, dict(arguments or {}))
        except MCPError as e:
            if e.code == CONNECTION_CLOSED:
                raise SessionClosedError(
                    f"{tool}: the filestore server closed the connection" + self._runner._stderr_tail()
                ) from e
            if e.code == REQUEST_TIMEOUT:
                raise TimeoutError(f"{tool}: {e.message}") from e
            parsed = parse_error_text(e.message)
            if parsed is not None:  # e.g. error[too-large] for a message over the stdio cap
                raise FilestoreError(parsed[0], parsed[1], tool=tool) from e
            raise FilestoreError(ErrorKind.PROTOCOL, f"{tool}: JSON-RPC error {e.code}: {e.message}", tool=tool) from e
        if result.is_error:
            raise _error_from_result(tool, result)
        content = result.structured_content
        if isinstance(content, dict):
            return content
        # Every filestore tool answers with structured content; a configured tool
        # without an output schema may not: give its text.
        return {"text": _text_of(result)}


def _text_of(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def _error_from_result(tool: str, result: types.CallToolResult) -> FilestoreError:
    """The `FilestoreError` of an `isError` result: `_meta["filestore/error"]` first, else the text."""
    err = (result.meta or {}).get("filestore/error")
    if isinstance(err, dict):
        kind, message = err.get("kind"), err.get("message")
        if isinstance(kind, str) and isinstance(message, str):
            return FilestoreError(kind, message, tool=tool)
    text = _text_of(result)
    parsed = parse_error_text(text)
    if parsed is not None:
        return FilestoreError(parsed[0], parsed[1], tool=tool)
    return FilestoreError(ErrorKind.UNKNOWN, text or f"{tool} failed without a message", tool=tool)
