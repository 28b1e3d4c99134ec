"""filestore for Python: a client for the `filestore serve` MCP server, and a
deepagents backend on top of it.

- `Session` starts and owns one `filestore serve` process and calls its tools
  (`call`, `acall`), raising `FilestoreError` with the product's typed error kind.
- `filestore.deepagents.FilestoreBackend` (with the `deepagents` extra) is a
  `BackendProtocol` for LangChain's deepagents serving a directory as the agent's
  file system.
"""

from filestore.errors import (
    BinaryNotFoundError,
    FilestoreError,
    SessionClosedError,
    SessionStartError,
)
from filestore.session import DEFAULT_CALL_TIMEOUT, Session, find_binary

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "BinaryNotFoundError",
    "FilestoreError",
    "Session",
    "SessionClosedError",
    "SessionStartError",
    "find_binary",
]

__version__ = "0.1.0"
