"""The errors a `filestore.Session` raises.

A failed filestore tool call is an MCP result with `isError: true` whose text is
`error[KIND]: message` (and whose `_meta["filestore/error"]` is
`{"kind": KIND, "message": message}`); KIND is the typed error kind of the
product (`not-found`, `invalid-path`, `read-only`, `conflict`, `too-large`, ...).
`FilestoreError` carries that kind as an `ErrorKind` and the message, so callers
branch on the kind instead of parsing text. Failures of the sandbox or of the
connection itself have kinds of their own (`ErrorKind.TRAP`,
`ErrorKind.SESSION_CLOSED`, ...); they never collide with the product's kinds.
"""

from __future__ import annotations

import enum
import re
from typing import Any

__all__ = [
    "BinaryNotFoundError",
    "ErrorKind",
    "FilestoreError",
    "SessionClosedError",
    "SessionStartError",
    "parse_error_text",
]

_ERROR_TEXT = re.compile(r"^error\[(?P<kind>[a-z0-9-]+)\]:\s?(?P<message>.*)\Z", re.DOTALL)


class ErrorKind(str, enum.Enum):
    """What kind of failure a `FilestoreError` is.

    The first fourteen are the product's kinds: the cases of the WIT `types.error`
    variant (`wit/filestore.wit`), spelled as there (a test compares the two). The
    rest are failures with no WIT case: the sandbox's own (a trap, a cancelled call,
    a setup failure) and the session's (it did not start, it is closed, ...).

    A member is a `str` equal to its name in the product (`ErrorKind.NOT_FOUND ==
    "not-found"`), so code that compares kinds with strings keeps working.
    """

    NOT_FOUND = "not-found"
    NOT_A_FILE = "not-a-file"
    NOT_A_DIRECTORY = "not-a-directory"
    ALREADY_EXISTS = "already-exists"
    READ_ONLY = "read-only"
    INVALID_PATH = "invalid-path"
    INVALID_PATTERN = "invalid-pattern"
    INVALID_ARGUMENT = "invalid-argument"
    TOO_LARGE = "too-large"
    CONFLICT = "conflict"
    UNSUPPORTED = "unsupported"
    LIMIT_EXCEEDED = "limit-exceeded"
    UNAUTHORIZED = "unauthorized"
    BACKEND = "backend"

    #: The sandbox trapped; the next call gets a fresh one (the host's `trap`).
    TRAP = "trap"
    #: The call was cancelled (e.g. by a `timeout`) and the sandbox replaced.
    CANCELLED = "cancelled"
    #: The engine or component could not be set up.
    SETUP = "setup"
    #: The in-process session's `--config` did not load.
    CONFIG = "config"
    #: The session did not start (`SessionStartError`).
    SESSION_START = "session-start"
    #: The session is closed or its server went away (`SessionClosedError`).
    SESSION_CLOSED = "session-closed"
    #: No `filestore` executable was found (`BinaryNotFoundError`).
    BINARY_NOT_FOUND = "binary-not-found"
    #: The MCP server answered a JSON-RPC error that names no kind.
    PROTOCOL = "protocol"
    #: A kind this package does not know (a newer server's), or none at all; the
    #: message says which.
    UNKNOWN = "unknown"

    @property
    def is_product(self) -> bool:
        """Whether this is a case of the WIT `types.error` variant, not a failure of
        the sandbox or session."""
        return self not in _NOT_PRODUCT

    @classmethod
    def parse(cls, name: str) -> ErrorKind | None:
        """The kind named `name` (`"not-found"`), or `None` for a name it does not know."""
        try:
            return cls(name)
        except ValueError:
            return None

    def __str__(self) -> str:
        """The kind's name in the product (`not-found`), as in `error[KIND]`."""
        return self.value

    def __format__(self, spec: str) -> str:
        """Formats as the name in the product, on every Python version."""
        return format(self.value, spec)


_NOT_PRODUCT = frozenset(
    {
        ErrorKind.TRAP,
        ErrorKind.CANCELLED,
        ErrorKind.SETUP,
        ErrorKind.CONFIG,
        ErrorKind.SESSION_START,
        ErrorKind.SESSION_CLOSED,
        ErrorKind.BINARY_NOT_FOUND,
        ErrorKind.PROTOCOL,
        ErrorKind.UNKNOWN,
    }
)


class FilestoreError(Exception):
    """A filestore call failed with a typed error.

    `kind` is the `ErrorKind` (`ErrorKind.NOT_FOUND`, ...; each equal to its name,
    `"not-found"`), `message` the product's explanation, which names the path,
    parameter or limit concerned, and `tool` the tool that failed (when known).
    `str(err)` is the same `error[KIND]: message` line the product prints, so logs
    read like the CLI's.
    """

    def __init__(self, kind: ErrorKind | str, message: str, *, tool: str | None = None) -> None:
        """Record the kind, the message and (when known) the tool that failed.

        A kind given by name becomes its `ErrorKind`; a name this package does not
        know (a newer server's) becomes `ErrorKind.UNKNOWN`, and the message keeps it.
        """
        known = kind if isinstance(kind, ErrorKind) else ErrorKind.parse(kind)
        if known is None:
            known = ErrorKind.UNKNOWN
            message = f"{message} (error kind '{kind}', unknown to this filestore package)"
        super().__init__(known, message)
        self.kind: ErrorKind = known
        self.message = message
        self.tool = tool

    def __str__(self) -> str:
        """The product's own rendering: `error[KIND]: message`."""
        return f"error[{self.kind}]: {self.message}"

    def __reduce__(self) -> tuple[Any, ...]:
        """Keep `tool` when pickled (exceptions pickle only their args by default)."""
        return (_rebuild, (type(self), self.kind, self.message, self.tool))


def _rebuild(cls: type[FilestoreError], kind: ErrorKind, message: str, tool: str | None) -> FilestoreError:
    err = cls.__new__(cls)
    FilestoreError.__init__(err, kind, message, tool=tool)
    return err


class BinaryNotFoundError(FilestoreError):
    """No `filestore` executable could be found (kind `binary-not-found`).

    Raised before anything is started; the message names the three places looked
    at: the `binary=` argument, `$FILESTORE_BIN`, and `filestore` on `PATH`.
    """

    def __init__(self, message: str) -> None:
        """Build the error with the local kind `binary-not-found`."""
        super().__init__(ErrorKind.BINARY_NOT_FOUND, message)


class SessionStartError(FilestoreError):
    """`filestore serve` did not start or did not complete the MCP handshake
    (kind `session-start`); the message ends with what the server wrote on stderr."""

    def __init__(self, message: str) -> None:
        """Build the error with the local kind `session-start`."""
        super().__init__(ErrorKind.SESSION_START, message)


class SessionClosedError(FilestoreError):
    """The session was closed, or its server process went away (kind
    `session-closed`). A closed session cannot be reopened: start a new one."""

    def __init__(self, message: str) -> None:
        """Build the error with the local kind `session-closed`."""
        super().__init__(ErrorKind.SESSION_CLOSED, message)


def parse_error_text(text: str) -> tuple[str, str] | None:
    """Split `error[KIND]: message` into `(KIND, message)`; `None` for other text.

    Used for error results without structured content and for JSON-RPC errors whose
    message follows the same convention (e.g. `error[too-large]` for an oversized
    request).
    """
    m = _ERROR_TEXT.match(text.strip())
    if m is None:
        return None
    return m.group("kind"), m.group("message")
