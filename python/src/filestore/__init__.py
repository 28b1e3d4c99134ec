"""filestore for Python: the sandboxed virtual filesystem of AI agents, in process,
and a deepagents backend on top of it.

- `Session` runs one filestore sandbox in this process (the wheel's native
  extension embeds the Rust host) and calls its tools (`call`, `acall`), raising
  `FilestoreError` whose `kind` is an `ErrorKind` (the product's typed error kinds).
- `McpSession` does the same over MCP with a `filestore serve` child process (a
  binary of your choosing, any `serve` flag).
- `filestore.deepagents.FilestoreBackend` (with the `deepagents` extra) is a
  `BackendProtocol` for LangChain's deepagents serving a directory as the agent's
  file system.

The wheel also installs the `filestore` command (`filestore serve`, `call`, ...).
"""

import importlib
from typing import TYPE_CHECKING, Any

from filestore.errors import (
    BinaryNotFoundError,
    ErrorKind,
    FilestoreError,
    SessionClosedError,
    SessionStartError,
)
from filestore.local import SESSION_CALL_DEADLINE, Session

# The MCP client (`filestore.session`) loads the MCP SDK, pydantic and httpx: most of
# a second on a busy machine. It is imported on first use, so `import filestore`, the
# in-process `Session` and the wheel's `filestore` command do not pay for it.
_MCP_CLIENT_NAMES = ("DEFAULT_CALL_TIMEOUT", "McpSession", "find_binary")


def __getattr__(name: str) -> Any:
    if name in _MCP_CLIENT_NAMES:
        value = getattr(importlib.import_module("filestore.session"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'filestore' has no attribute {name!r}")


if TYPE_CHECKING:
    from filestore.session import DEFAULT_CALL_TIMEOUT, McpSession, find_binary

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "SESSION_CALL_DEADLINE",
    "BinaryNotFoundError",
    "ErrorKind",
    "FilestoreError",
    "McpSession",
    "Session",
    "SessionClosedError",
    "SessionStartError",
    "find_binary",
]

__version__ = "0.1.0"
