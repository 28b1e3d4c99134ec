"""filestore for Python: the sandboxed virtual filesystem of AI agents, in process,
and a deepagents backend on top of it.

- `Session` runs one filestore sandbox in this process (the wheel's native
  extension embeds the Rust host) and calls its tools (`call`, `acall`), raising
  `FilestoreError` with the product's typed error kind.
- `McpSession` does the same over MCP with a `filestore serve` child process (a
  binary of your choosing, any `serve` flag).
- `filestore.deepagents.FilestoreBackend` (with the `deepagents` extra) is a
  `BackendProtocol` for LangChain's deepagents serving a directory as the agent's
  file system.

The wheel also installs the `filestore` command (`filestore serve`, `call`, ...).
"""

from filestore.errors import (
    BinaryNotFoundError,
    FilestoreError,
    SessionClosedError,
    SessionStartError,
)
from filestore.local import SESSION_CALL_DEADLINE, Session
from filestore.session import DEFAULT_CALL_TIMEOUT, McpSession, find_binary

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "SESSION_CALL_DEADLINE",
    "BinaryNotFoundError",
    "FilestoreError",
    "McpSession",
    "Session",
    "SessionClosedError",
    "SessionStartError",
    "find_binary",
]

__version__ = "0.1.0"
