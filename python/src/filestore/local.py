"""`Session`: the filestore sandbox inside this process (the wheel's native extension).

The extension (`filestore._native`, built from `python/native`) embeds the Rust host
itself: the engine, the component, the volumes (directories confined with
`openat2`, memory, object stores) and the configured tools. A `Session` is what
`filestore serve` gives one stdio client — the same mounts and defaults, tools,
results and errors — without a child process or MCP in between. Calls release the
GIL while the sandbox works, so threads call concurrently (one session serialises
its own calls, as a `serve` session does).

`McpSession` (`filestore.session`) remains for talking to a `filestore` server
over MCP.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import threading
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, TypeVar

from filestore.errors import ErrorKind, FilestoreError, SessionClosedError, SessionStartError

__all__ = ["SESSION_CALL_DEADLINE", "Session"]

T = TypeVar("T")

#: The sandbox's own wall-clock limit of one call (seconds), as in `filestore serve`:
#: a longer call ends with a `limit-exceeded`/`trap` error and a fresh sandbox.
SESSION_CALL_DEADLINE = 30.0

#: `serve` flags an in-process session understands, and whether each takes a value.
_FLAGS = {"--shell": False, "--config": True, "--toolset": True, "--skills": True}


def _native() -> Any:
    """The extension module, or an error saying how to get it."""
    try:
        from filestore import _native as native
    except ImportError as e:  # a source checkout without the built extension
        raise SessionStartError(
            "the in-process session needs the filestore wheel's native extension (filestore._native), which this "
            f"installation lacks ({e}); install the wheel (`maturin build -m python/pyproject.toml`, then "
            "`pip install target/wheels/filestore-*.whl`), or use filestore.McpSession with a filestore binary"
        ) from e
    return native


def _options(args: Sequence[str]) -> dict[str, Any]:
    """`serve` flags as the extension's keyword arguments; any other flag is refused,
    naming it (an in-process session has no transport, auth or HTTP options)."""
    out: dict[str, Any] = {}
    items = [str(a) for a in args]
    i = 0
    while i < len(items):
        flag, value = items[i], None
        if "=" in flag and flag.startswith("--"):
            flag, value = flag.split("=", 1)
        if flag not in _FLAGS:
            raise ValueError(
                f"args: {items[i]!r} is not a flag an in-process Session takes (it takes {', '.join(_FLAGS)}); "
                "use filestore.McpSession to run `filestore serve` with other flags"
            )
        if _FLAGS[flag] and value is None:
            i += 1
            if i == len(items):
                raise ValueError(f"args: {flag} needs a value")
            value = items[i]
        out[flag[2:]] = True if not _FLAGS[flag] else value
        i += 1
    return out


def _error(tool: str | None, exc: RuntimeError) -> FilestoreError:
    """The typed error of the extension's `RuntimeError((kind, message))`."""
    name, message = exc.args if len(exc.args) == 2 else (ErrorKind.UNKNOWN, str(exc))
    kind = ErrorKind.parse(name)
    if kind is ErrorKind.SESSION_CLOSED:
        return SessionClosedError(message)
    if kind is ErrorKind.SESSION_START:
        return SessionStartError(message)
    return FilestoreError(name, message, tool=tool)


class Session:
    """One filestore sandbox in this process.

    `mounts` are `serve --mount` specs (`"/=/path/to/root"`, `"/workspace=./src:ro"`,
    `"/notes=mem:"`), with `serve`'s defaults where none takes their place (`cwd`
    read-only at `/workspace`, `/scratch`, `/tool_calls`, `/tmp`; nothing beside a mount at
    `/`). `args` takes the `serve` flags that shape a session: `--shell`,
    `--config FILE`, `--toolset NAME`, `--skills DIR`. `cwd` is the directory relative
    mount paths and the default `/workspace` are taken from (default: this process's).
    `timeout` bounds each call in seconds (default: the sandbox's own 30 s deadline;
    a shorter one cancels the call and raises `TimeoutError`).

    `call()` and `acall()` return a tool's `structuredContent`, as over MCP, and raise
    `FilestoreError` (with `.kind` and `.message`) for an error result. A trap or limit
    ends that call only: the next one gets a fresh sandbox over the same volumes.
    `close()` or a `with` block ends the session (garbage collection does too).
    """

    def __init__(
        self,
        mounts: Sequence[str] = (),
        *,
        args: Sequence[str] = (),
        cwd: str | os.PathLike[str] | None = None,
        timeout: float | None = None,
    ) -> None:
        """Open the mounts and start the sandbox; raises `SessionStartError` (a mount
        that cannot be opened, a bad configuration) or `ValueError` (a flag in `args`
        an in-process session does not take)."""
        native = _native()
        options = _options(args)
        self._timeout = timeout
        try:
            self._sandbox = native.Sandbox(
                [str(m) for m in mounts], cwd=os.fspath(cwd) if cwd is not None else None, **options
            )
        except RuntimeError as e:
            raise _error(None, e) from None
        self._tools: list[dict[str, Any]] | None = None

    # -- lifecycle -----------------------------------------------------------------

    def close(self) -> None:
        """End the session (idempotent); in-memory volumes (`/scratch`) are gone after."""
        self._sandbox.close()

    @property
    def closed(self) -> bool:
        """Whether the session was closed."""
        return bool(self._sandbox.closed)

    def __enter__(self) -> Session:
        """Use the session in a `with` block; it is closed at the end."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the session."""
        self.close()

    async def __aenter__(self) -> Session:
        """Use the session in an `async with` block; it is closed at the end."""
        return self

    async def __aexit__(self, *exc: object) -> None:
        """Close the session (waiting for a running call off the event loop)."""
        await asyncio.to_thread(self.close)

    # -- information ---------------------------------------------------------------

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The tools the session offers: name, description, input and output schema."""
        try:
            return json.loads(self._sandbox.tools())
        except RuntimeError as e:
            raise _error(None, e) from None

    @property
    def server_info(self) -> dict[str, Any]:
        """What `serve` would answer as `serverInfo`: the name and this build's version."""
        from filestore import _native

        return {"name": "filestore", "version": _native.version().split("\n", 1)[0]}

    # -- calls ---------------------------------------------------------------------

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> dict[str, Any]:
        """Call `tool` with `arguments` and return its structured result.

        Raises `FilestoreError` for an error result, with the product's kind, and
        `TimeoutError` when `timeout` (or the session's) passed first.
        """
        text = json.dumps(dict(arguments or {}))
        limit = timeout if timeout is not None else self._timeout
        if limit is None or limit >= SESSION_CALL_DEADLINE or math.isinf(limit):
            try:  # the sandbox's deadline comes first: no watchdog needed
                return json.loads(self._sandbox.call(tool, text))
            except RuntimeError as e:
                raise _error(tool, e) from None
        timer = threading.Timer(max(limit, 0.0), self._sandbox.cancel)
        timer.start()
        try:
            return json.loads(self._sandbox.call(tool, text))
        except RuntimeError as e:
            if timer.finished.is_set() and e.args[:1] == ("cancelled",):
                raise TimeoutError(f"{tool}: the call did not finish within {limit:g} s") from None
            raise _error(tool, e) from None
        finally:
            timer.cancel()

    async def acall(
        self, tool: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """`call` for asyncio code: the call runs on a worker thread (the GIL is
        released), so the caller's loop goes on. Cancelling the task cancels the call."""
        try:
            return await asyncio.to_thread(self.call, tool, arguments, timeout=timeout)
        except asyncio.CancelledError:
            self._sandbox.cancel()
            raise

    def run(self, coro: Coroutine[Any, Any, T], *, timeout: float | None = None) -> T:
        """Run `coro`, which awaits only `_call_on_loop`, to its result, here.

        For adapters that make several calls per operation (paging): each awaited call
        completes at once (it is a plain call in this process), so no event loop is
        involved. `timeout` applies to each call.
        """
        del timeout  # each call has its own limit
        try:
            coro.send(None)
        except StopIteration as done:
            return done.value
        coro.close()
        raise RuntimeError("Session.run(): the coroutine awaited something other than the session's calls")

    async def arun(self, coro: Coroutine[Any, Any, T], *, timeout: float | None = None) -> T:
        """`run` for asyncio code, on a worker thread."""
        return await asyncio.to_thread(self.run, coro, timeout=timeout)

    async def _call_on_loop(self, tool: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """One call, as a coroutine that never suspends (see `run`)."""
        return self.call(tool, arguments)
