"""`FilestoreSandbox`: a `FilestoreBackend` with deepagents' `execute` tool.

deepagents gives an agent its `execute` tool when the backend implements
`SandboxBackendProtocol`. Container and VM sandboxes do that by spawning processes;
this one runs each command line in filestore's shell (`filestore_execute`), inside
the WebAssembly component, over the same root the file operations use. No process
is spawned for a command, nothing outside the root is reachable, and links are never
followed (docs/shell.md lists the commands, the limits and the differences from bash).

The server is started with `serve --shell` (the tool is offered only when asked for).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from typing import Any

from deepagents.backends.protocol import ExecuteResponse, SandboxBackendProtocol

from filestore.backend import FilestoreBackend
from filestore.errors import ErrorKind, FilestoreError

__all__ = ["MAX_EXECUTE_TIMEOUT", "FilestoreSandbox"]

#: The longest a command may run, in seconds: `filestore_execute`'s maximum
#: `timeout_ms` (25 s, below the server's 30 s call deadline). A longer or zero
#: (no limit) `timeout` is clamped to it, since the sandbox has no unbounded mode.
MAX_EXECUTE_TIMEOUT = 25
#: Exit status reported when a limit stopped the command: bash's `timeout` uses 124
#: for a command it ended, which is the common case (the wall-time limit).
LIMIT_EXIT_CODE = 124


class FilestoreSandbox(FilestoreBackend, SandboxBackendProtocol):
    """A `FilestoreBackend` whose agents also get `execute`, run in filestore's shell.

    Takes the same arguments as `FilestoreBackend`. `execute(command, timeout=None)`
    runs `command` (bash syntax) with the root's mount point as working directory and
    answers deepagents' `ExecuteResponse`: `output` is stdout followed by stderr, as
    the other sandboxes combine them; `exit_code` is the command's status; a command
    stopped by a limit (time, output, writes, loops) answers the limit's message with
    exit code 124. `truncated` is true when the output was cut; the whole output is
    then stored in the session's `/tool_calls` (the output names the path).
    """

    def __init__(self, root_dir: str | os.PathLike[str], *, args: tuple[str, ...] | list[str] = (), **kwargs: Any) -> None:
        """Start a filestore session with the shell enabled (see `FilestoreBackend`)."""
        super().__init__(root_dir, args=("--shell", *args), **kwargs)
        self._id = f"filestore-{uuid.uuid4().hex[:12]}"

    @property
    def id(self) -> str:
        """This sandbox's identifier (unique per instance)."""
        return self._id

    def __repr__(self) -> str:
        """Name the root and the mode, for logs."""
        return "FilestoreSandbox" + super().__repr__().removeprefix("FilestoreBackend")

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run `command` in the sandbox's shell; see the class documentation."""
        return self._sync(self._execute(command, timeout))

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:  # noqa: ASYNC109
        """Async `execute`."""
        return await self._async(self._execute(command, timeout))

    async def _execute(self, command: str, timeout: int | None) -> ExecuteResponse:
        if timeout is not None and timeout < 0:
            raise ValueError(f"timeout must be non-negative, got {timeout}")
        args: dict[str, Any] = {"command": command, "cwd": self.mount_point}
        if timeout is not None:
            seconds = MAX_EXECUTE_TIMEOUT if timeout == 0 else min(timeout, MAX_EXECUTE_TIMEOUT)
            args["timeout_ms"] = seconds * 1000
        try:
            result = await self._call("filestore_execute", args)
        except FilestoreError as e:
            if e.kind is ErrorKind.LIMIT_EXCEEDED:
                return ExecuteResponse(output=f"{e}\n", exit_code=LIMIT_EXIT_CODE, truncated=False)
            if e.kind is ErrorKind.INVALID_ARGUMENT:
                raise ValueError(str(e)) from e
            raise
        return _response(result)


def _response(result: Mapping[str, Any]) -> ExecuteResponse:
    out = str(result.get("stdout", ""))
    err = str(result.get("stderr", ""))
    if out and err and not out.endswith("\n"):
        out += "\n"
    code = result.get("exit_code")
    return ExecuteResponse(
        output=out + err,
        exit_code=int(code) if code is not None else None,
        truncated=bool(result.get("truncated", False)),
    )
