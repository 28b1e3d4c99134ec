"""The errors a `filestore.Session` raises.

A failed filestore tool call is an MCP result with `isError: true` whose text is
`error[KIND]: message` (and whose `_meta["filestore/error"]` is
`{"kind": KIND, "message": message}`); KIND is the typed error kind of the
product (`not-found`, `invalid-path`, `read-only`, `conflict`, `too-large`, ...).
`FilestoreError` carries that kind and message so callers can branch on the kind
instead of parsing text. Failures of the connection itself use kinds of their own,
listed on the subclasses below; they never collide with the product's kinds.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "BinaryNotFoundError",
    "FilestoreError",
    "SessionClosedError",
    "SessionStartError",
    "parse_error_text",
]

_ERROR_TEXT = re.compile(r"^error\[(?P<kind>[a-z0-9-]+)\]:\s?(?P<message>.*)\Z", re.DOTALL)


class FilestoreError(Exception):
    """A filestore call failed with a typed error.

    `kind` is the error kind (`not-found`, `invalid-path`, ...) and `message` the
    product's explanation, which names the path concerned. `str(err)` is the same
    `error[KIND]: message` line the product prints, so logs read like the CLI's.
    """

    def __init__(self, kind: str, message: str, *, tool: str | None = None) -> None:
        """Record the kind, the message and (when known) the tool that failed."""
        super().__init__(kind, message)
        self.kind = kind
        self.message = message
        self.tool = tool

    def __str__(self) -> str:
        """The product's own rendering: `error[KIND]: message`."""
        return f"error[{self.kind}]: {self.message}"

    def __reduce__(self) -> tuple[Any, ...]:
        """Keep `tool` when pickled (exceptions pickle only their args by default)."""
        return (_rebuild, (type(self), self.kind, self.message, self.tool))


def _rebuild(cls: type[FilestoreError], kind: str, message: str, tool: str | None) -> FilestoreError:
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
        super().__init__("binary-not-found", message)


class SessionStartError(FilestoreError):
    """`filestore serve` did not start or did not complete the MCP handshake
    (kind `session-start`); the message ends with what the server wrote on stderr."""

    def __init__(self, message: str) -> None:
        """Build the error with the local kind `session-start`."""
        super().__init__("session-start", message)


class SessionClosedError(FilestoreError):
    """The session was closed, or its server process went away (kind
    `session-closed`). A closed session cannot be reopened: start a new one."""

    def __init__(self, message: str) -> None:
        """Build the error with the local kind `session-closed`."""
        super().__init__("session-closed", message)


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
