"""`FilestoreBackend`: deepagents' `BackendProtocol` over a filestore session.

The backend serves one host directory as the whole virtual file system
(`filestore serve --mount /=ROOT`), so deepagents' virtual paths (`/notes.md`) are
filestore's paths unchanged, and every operation is one (or, when paging, a few)
filestore tool calls. Confinement is the product's: paths are resolved inside the
component, `..` above `/` is refused and symbolic links are listed but never
followed, whatever the agent asks.

The adapter is deliberately thin. It translates parameters (0-based line offsets to
filestore's 1-based ones, a literal grep to `fixed: true`), results (numbered read
pages to raw text windows, entries to `FileInfo`), and error kinds to the strings
and codes deepagents' own `FilesystemBackend` returns, so agents and middleware see
the same answers. Where filestore behaves differently in a way its own users also
see (long lines are cut in text reads, hidden directories are not searched by bare
patterns, ...), the adapter passes filestore's behaviour through; docs/python.md lists
those differences.

Every operation is written once, as a coroutine run on the session's event loop:
the sync methods wait for it, the async ones await it.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import tempfile
import weakref
from collections.abc import Coroutine, Mapping
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from deepagents.backends import utils as _da_utils
from deepagents.backends.protocol import (
    FILE_NOT_FOUND,
    INVALID_PATH,
    IS_DIRECTORY,
    PERMISSION_DENIED,
    BackendProtocol,
    ContextLine,
    DeleteResult,
    EditResult,
    FileData,
    FileDownloadResponse,
    FileInfo,
    FileUploadResponse,
    GlobResult,
    GrepMatch,
    GrepResult,
    LsResult,
    ReadResult,
    WriteResult,
)
from deepagents.backends.utils import EMPTY_CONTENT_WARNING, check_empty_content, normalize_read_bounds

from filestore.errors import ErrorKind, FilestoreError
from filestore.local import Session
from filestore.session import McpSession

__all__ = ["FilestoreBackend"]

T = TypeVar("T")

#: The most entries `filestore_ls` and `filestore_glob` return in one call (their
#: schema's maximum); neither pages, so this is also the most a listing can hold.
MAX_LISTING = 100_000
#: Records per `filestore_grep` page when every match is wanted.
GREP_PAGE = 10_000
#: Bytes per `filestore_read` page in base64 mode: the product's maximum (4 MiB),
#: whose base64 stays well under the 16 MiB MCP message cap.
DOWNLOAD_PAGE = 4 * 1024 * 1024

# A numbered text line of `filestore_read`: right-aligned line number, a tab, the line.
_GUTTER = re.compile(r" *(\d+)\t")
#: Kinds deepagents reports as a missing file (`File '/x' not found`).
_MISSING_FILE = (ErrorKind.NOT_FOUND, ErrorKind.NOT_A_FILE)


def _file_type(path: str) -> str:
    """deepagents' classification of a path for reads (`text`, `image`, `video`, ...).

    deepagents reads non-text types (by extension) as base64 bytes; its helper is
    private, so fall back to its public extension table if it moves.
    """
    helper = getattr(_da_utils, "_get_backend_read_file_type", None)
    if helper is not None:
        return helper(path)
    table: Mapping[str, str] = getattr(_da_utils, "_EXTENSION_TO_FILE_TYPE", {})
    return table.get(PurePosixPath(path).suffix.lower(), "text")


def _iso(modified_ms: int | None) -> str | None:
    """filestore's millisecond timestamp as the local ISO time deepagents uses."""
    if modified_ms is None:
        return None
    return datetime.fromtimestamp(modified_ms / 1000).isoformat()  # noqa: DTZ006 - local time, as FilesystemBackend


def _file_info(path: str, *, is_dir: bool, size: int | None, modified_ms: int | None) -> FileInfo:
    info: FileInfo = {"path": path + "/" if is_dir and not path.endswith("/") else path, "is_dir": is_dir}
    info["size"] = 0 if is_dir else int(size or 0)
    stamp = _iso(modified_ms)
    if stamp is not None:
        info["modified_at"] = stamp
    return info


def _traversal(path: str | None) -> bool:
    return path is not None and ".." in PurePosixPath(path).parts


def _raise_if_traversal(path: str | None, err: FilestoreError) -> None:
    """Raise the `ValueError` FilesystemBackend raises for a `..` path (virtual mode).

    deepagents' tools check for `..` before calling a backend, so only direct callers
    see this. Other `invalid-path` refusals (a symbolic link, a mount point) become
    error results instead, which an agent's tool call reports rather than crashing on.
    """
    if _traversal(path):
        raise ValueError(f"Path traversal not allowed: {err.message}") from err


def _upload_code(err: FilestoreError) -> str:
    """A product error kind as deepagents' `FileOperationError` code (else the error text)."""
    return {
        ErrorKind.NOT_FOUND: FILE_NOT_FOUND,
        ErrorKind.NOT_A_FILE: IS_DIRECTORY,
        ErrorKind.NOT_A_DIRECTORY: INVALID_PATH,
        ErrorKind.INVALID_PATH: INVALID_PATH,
        ErrorKind.READ_ONLY: PERMISSION_DENIED,
        ErrorKind.UNAUTHORIZED: PERMISSION_DENIED,
    }.get(err.kind, str(err))


class FilestoreBackend(BackendProtocol):
    """A deepagents backend whose files live in `root_dir`, served by filestore.

    `root_dir` becomes `/` of the agent's file system (what `FilesystemBackend` calls
    virtual mode); nothing outside it is reachable: `..` above `/` and absolute host
    paths name nothing, and symbolic links are never followed. `read_only=True`
    mounts it read-only (writes, edits, deletes and uploads fail with the product's
    `read-only` error). `mount_point` is where `root_dir` appears: `/` (the default)
    makes it the whole file system; its own host path (`str(root_dir)`) makes the
    agent's paths the host's paths for files inside it, as `FilesystemBackend`'s
    non-virtual mode does (the server then also has its default `/scratch` and
    `/tool_calls`). `args` adds `serve` flags (`--shell`, `--config`...);
    `timeout` bounds each call in seconds.

    The backend owns one filestore sandbox for its lifetime, in this process (the
    wheel's native extension, `filestore.Session`); with `binary=` or `env=` it runs
    `filestore serve` from that binary instead and speaks MCP to it
    (`filestore.McpSession`; `timeout` then defaults to 120 s, and `start_timeout`
    bounds its start). `close()` (or a `with` block, or garbage collection) ends it.
    """

    def __init__(
        self,
        root_dir: str | os.PathLike[str],
        *,
        read_only: bool = False,
        mount_point: str = "/",
        binary: str | os.PathLike[str] | None = None,
        args: tuple[str, ...] | list[str] = (),
        env: Mapping[str, str] | None = None,
        timeout: float | None = None,
        start_timeout: float = 60.0,
    ) -> None:
        """Start a filestore session serving `root_dir` at `mount_point`.

        Raises `NotADirectoryError` when `root_dir` is not a directory, `ValueError`
        for a relative `mount_point`, and the `Session` errors
        (`BinaryNotFoundError`, `SessionStartError`) otherwise.
        """
        root = Path(root_dir).expanduser().resolve()
        if not root.is_dir():
            raise NotADirectoryError(f"root_dir {os.fspath(root_dir)!r} is not a directory")
        if not mount_point.startswith("/"):
            raise ValueError(f"mount_point must be an absolute virtual path, got {mount_point!r}")
        self.root_dir = root
        self.read_only = read_only
        self.mount_point = mount_point
        # With a mount at `/`, `serve` mounts nothing else. At another mount point it
        # also mounts its working directory read-only at /workspace: an empty one
        # keeps it from exposing whatever directory this process runs in.
        self._cwd = tempfile.mkdtemp(prefix="filestore-backend-")
        cleanup = weakref.finalize(self, shutil.rmtree, self._cwd, True)
        # The mode is always explicit and follows a `/`: a root whose own name ends
        # in `:rw` or `:ro` is that directory, never its namesake without the suffix.
        spec = f"{mount_point}={os.path.join(root, '')}" + (":ro" if read_only else ":rw")
        try:
            self.session: Session | McpSession
            if binary is None and env is None:
                self.session = Session([spec], args=args, cwd=self._cwd, timeout=timeout)
            else:
                self.session = McpSession(
                    [spec], binary=binary, args=args, cwd=self._cwd, env=env, timeout=timeout, start_timeout=start_timeout
                )
        except BaseException:
            cleanup()
            raise
        self._cleanup = cleanup

    # -- lifecycle -----------------------------------------------------------------

    def close(self) -> None:
        """Stop the filestore process (idempotent)."""
        self.session.close()
        self._cleanup()

    def __enter__(self) -> FilestoreBackend:
        """Use the backend in a `with` block; its process is stopped at the end."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Stop the filestore process."""
        self.close()

    def __repr__(self) -> str:
        """Name the root and the mode, for logs."""
        mode = "ro" if self.read_only else "rw"
        return f"FilestoreBackend({str(self.root_dir)!r}, {mode})"

    # -- plumbing ------------------------------------------------------------------

    def _sync(self, coro: Coroutine[Any, Any, T]) -> T:
        return self.session.run(coro)

    async def _async(self, coro: Coroutine[Any, Any, T]) -> T:
        return await self.session.arun(coro)

    def _where(self, path: str | None) -> str:
        """A path argument as filestore's: none means the root, a relative path is
        taken from the root (as FilesystemBackend does), an absolute one is kept."""
        if not path:
            return self.mount_point
        if path.startswith("/"):
            return path
        return self.mount_point.rstrip("/") + "/" + path

    async def _call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return await self.session._call_on_loop(tool, arguments)

    async def _total_lines(self, file_path: str) -> int | None:
        """The file's line count as `filestore_read` reports it (`total_lines` of a
        one-line `tail` read); `None` when that read fails too."""
        try:
            r = await self._call("filestore_read", {"path": self._where(file_path), "tail": 1})
        except FilestoreError:
            return None
        total = r.get("total_lines")
        return total if isinstance(total, int) else None

    async def _occurrences(self, edit: dict[str, Any]) -> int | None:
        """How often the edit's `old_string` occurs in the file now, counted by
        filestore's own matcher (line endings included): the `replacements` of a
        `replace_all` dry run, 0 when that finds none (`conflict`); `None` when the
        dry run fails otherwise."""
        try:
            r = await self._call("filestore_edit", {**edit, "replace_all": True, "dry_run": True})
        except FilestoreError as e:
            return 0 if e.kind is ErrorKind.CONFLICT else None
        return int(r.get("replacements", 0))

    # -- ls ------------------------------------------------------------------------

    def ls(self, path: str) -> LsResult:
        """List the direct children of `path` (directories end with `/`)."""
        return self._sync(self._ls(path))

    async def als(self, path: str) -> LsResult:
        """Async `ls`."""
        return await self._async(self._ls(path))

    async def _ls(self, path: str) -> LsResult:
        try:
            r = await self._call("filestore_ls", {"path": self._where(path), "details": True, "limit": MAX_LISTING})
        except FilestoreError as e:
            if e.kind is ErrorKind.NOT_FOUND:
                return LsResult(error=f"Path '{path}': path_not_found", entries=None)
            if e.kind is ErrorKind.NOT_A_DIRECTORY:
                return LsResult(error=f"Path '{path}': not_a_directory", entries=None)
            _raise_if_traversal(path, e)
            return LsResult(error=f"Cannot list '{path}': {e.message}", entries=None)
        entries = [
            _file_info(
                e.get("path") or _join(r.get("path", path), e["name"]),
                is_dir=e.get("kind") == "directory",
                size=e.get("size"),
                modified_ms=e.get("modified_ms"),
            )
            for e in r.get("entries", [])
        ]
        entries.sort(key=lambda i: i["path"])
        error = None
        if r.get("truncated"):
            error = f"Listing of '{path}' stopped after {len(entries)} entries"
        return LsResult(error=error, entries=entries)

    # -- read ----------------------------------------------------------------------

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read lines `offset` (0-based) .. `offset + limit` of a text file, raw.

        Files that deepagents treats as media by extension (images, audio, video,
        PDF) come back whole, as base64.
        """
        return self._sync(self._read(file_path, offset, limit))

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Async `read`."""
        return await self._async(self._read(file_path, offset, limit))

    async def _read(self, file_path: str, offset: int, limit: int) -> ReadResult:
        kind = _file_type(file_path)
        if kind != "text":
            return await self._read_media(file_path, kind)
        offset, limit = normalize_read_bounds(offset, limit)
        try:
            r = await self._call("filestore_read", {"path": self._where(file_path), "offset": offset + 1, "limit": max(limit, 1)})
        except FilestoreError as e:
            if e.kind in _MISSING_FILE:
                return ReadResult(error=f"File '{file_path}' not found")
            _raise_if_traversal(file_path, e)
            if e.kind is ErrorKind.INVALID_ARGUMENT:  # the offset may be past the end
                total = await self._total_lines(file_path)
                if total is not None and offset >= total:
                    return ReadResult(error=f"Line offset {offset} exceeds file length ({total} lines)")
            return ReadResult(error=f"Error reading file '{file_path}': {e.message}")
        content_kind = r.get("content")
        if content_kind == "empty":
            return ReadResult(file_data=FileData(content=EMPTY_CONTENT_WARNING, encoding="utf-8"))
        if content_kind != "text":  # binary by content: filestore does not show it as text
            size = (r.get("entry") or {}).get("size")
            return ReadResult(
                error=f"Error reading file '{file_path}': binary content ({size} bytes) is not text; "
                "use download_files for its bytes"
            )
        lines = [_strip_gutter(line) for line in r.get("text", "").split("\n")[:-1]]
        total, start, end = r.get("total_lines"), r.get("start_line"), r.get("end_line")
        at_end = r.get("next_offset") is None
        text = "\n".join(lines)
        if lines and not (at_end and r.get("ends_with_newline") is False):
            text += "\n"
        whole_file = start == 1 and at_end
        if whole_file and check_empty_content(text):
            return ReadResult(file_data=FileData(content=EMPTY_CONTENT_WARNING, encoding="utf-8"))
        if limit == 0:  # nothing was asked for; the file exists and is not blank
            return ReadResult(file_data=FileData(content="", encoding="utf-8"), no_lines_requested=True)
        if not lines or not start or not end:
            return ReadResult(file_data=FileData(content=text, encoding="utf-8"))
        return ReadResult(
            file_data=FileData(content=text, encoding="utf-8"),
            total_lines=total,
            start_line=start,
            end_line=end,
            next_offset=None if at_end else end,
        )

    async def _read_media(self, file_path: str, kind: str) -> ReadResult:
        try:
            data = await self._download_one(file_path)
        except FilestoreError as e:
            if e.kind in _MISSING_FILE:
                return ReadResult(error=f"File '{file_path}' not found")
            _raise_if_traversal(file_path, e)
            return ReadResult(error=f"Error reading file '{file_path}': {e.message}")
        limit = getattr(_da_utils, "MAX_VIDEO_INPUT_BYTES", None)
        if kind == "video" and limit is not None and len(data) > limit:
            return ReadResult(error=f"Video file exceeds maximum input size of {limit} bytes")
        return ReadResult(file_data=FileData(content=base64.standard_b64encode(data).decode("ascii"), encoding="base64"))

    # -- write, edit, delete -------------------------------------------------------

    def write(self, file_path: str, content: str) -> WriteResult:
        """Create or overwrite a text file (parents are created)."""
        return self._sync(self._write(file_path, content))

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """Async `write`."""
        return await self._async(self._write(file_path, content))

    async def _write(self, file_path: str, content: str) -> WriteResult:
        try:
            await self._call("filestore_write", {"path": self._where(file_path), "content": content})
        except FilestoreError as e:
            _raise_if_traversal(file_path, e)
            return WriteResult(error=f"Error writing file '{file_path}': {e.message}")
        return WriteResult(path=file_path)

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:  # noqa: FBT001, FBT002
        """Replace `old_string` (which must be unique unless `replace_all`) by `new_string`."""
        return self._sync(self._edit(file_path, old_string, new_string, replace_all))

    async def aedit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:  # noqa: FBT001, FBT002
        """Async `edit`."""
        return await self._async(self._edit(file_path, old_string, new_string, replace_all))

    async def _edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool) -> EditResult:
        args = {
            "path": self._where(file_path),
            "old_string": old_string,
            "new_string": new_string,
            "replace_all": bool(replace_all),
        }
        try:
            r = await self._call("filestore_edit", args)
        except FilestoreError as e:
            if e.kind in _MISSING_FILE:
                return EditResult(error=f"Error: File '{file_path}' not found")
            _raise_if_traversal(file_path, e)
            if e.kind is ErrorKind.CONFLICT:  # old_string is missing or ambiguous, or the file changed
                found = await self._occurrences(args)
                if found == 0:
                    # The product explains a final newline the file's end lacks.
                    why = f" ({e.message})" if old_string.endswith("\n") else ""
                    return EditResult(error=f"Error: String not found in file: '{old_string}'{why}")
                if found is not None and found > 1 and not replace_all:
                    return EditResult(
                        error=f"Error: String '{old_string}' appears {found} times in file. Use replace_all=True to "
                        "replace all instances, or provide a more specific string with surrounding context."
                    )
                return EditResult(error=f"Error: {e.message}")
            return EditResult(error=f"Error editing file '{file_path}': {e.message}")
        return EditResult(path=file_path, occurrences=int(r.get("replacements", 0)))

    def delete(self, file_path: str) -> DeleteResult:
        """Delete a file, or a directory with everything in it; links are removed, not followed."""
        return self._sync(self._delete(file_path))

    async def adelete(self, file_path: str) -> DeleteResult:
        """Async `delete`."""
        return await self._async(self._delete(file_path))

    async def _delete(self, file_path: str) -> DeleteResult:
        try:
            await self._call("filestore_delete", {"path": self._where(file_path), "recursive": True})
        except FilestoreError as e:
            if e.kind is ErrorKind.NOT_FOUND:
                return DeleteResult(error=f"Error: '{file_path}' not found")
            _raise_if_traversal(file_path, e)
            return DeleteResult(error=f"Error deleting '{file_path}': {e.message}")
        return DeleteResult(path=file_path)

    # -- grep ----------------------------------------------------------------------

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        context_lines: int = 0,
    ) -> GrepResult:
        """Search files under `path` (default `/`) for the literal `pattern`.

        `glob` filters file names as in deepagents' other backends; `max_count` caps
        the matches (`truncated` says more exist); `context_lines` adds surrounding
        lines to each match, as `FilesystemBackend.grep` does.
        """
        if context_lines < 0:
            raise ValueError("context_lines must be non-negative")
        return self._sync(self._grep(pattern, path, glob, max_count, context_lines))

    async def agrep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        context_lines: int = 0,
    ) -> GrepResult:
        """Async `grep`."""
        if context_lines < 0:
            raise ValueError("context_lines must be non-negative")
        return await self._async(self._grep(pattern, path, glob, max_count, context_lines))

    async def _grep(
        self, pattern: str, path: str | None, glob: str | None, max_count: int | None, context_lines: int
    ) -> GrepResult:
        args: dict[str, Any] = {"pattern": pattern, "path": self._where(path), "fixed": True, "output_mode": "content"}
        if glob:
            args["glob"] = glob
        if context_lines:
            args["context"] = context_lines
        capped = max_count is not None and not context_lines
        # With a cap and no context lines, one page of max_count records answers;
        # filestore's `truncated` says whether more exist.
        page = max(1, max_count) if capped and max_count is not None else GREP_PAGE
        records: list[dict[str, Any]] = []
        truncated = False
        at = 0
        while True:
            try:
                r = await self._call("filestore_grep", {**args, "head_limit": page, "offset": at})
            except FilestoreError as e:
                if e.kind is ErrorKind.NOT_FOUND or (e.kind is ErrorKind.INVALID_PATH and _traversal(path)):
                    return GrepResult(matches=[])  # as FilesystemBackend: nothing there to search
                return GrepResult(error=f"Error searching path '{path or '.'}': {e.message}", matches=[])
            records.extend(r.get("lines", []))
            if r.get("walk_truncated"):
                truncated = True
            nxt = r.get("next_offset")
            if capped or nxt is None or not r.get("lines"):
                truncated = truncated or (capped and bool(r.get("truncated")))
                break
            at = nxt
        matches = _grep_matches(records, context_lines)
        if max_count is not None and max_count <= 0:
            return GrepResult(matches=[], truncated=bool(matches))
        if max_count is not None and len(matches) > max_count:
            return GrepResult(matches=matches[:max_count], truncated=True)
        return GrepResult(matches=matches, truncated=truncated)

    # -- glob ----------------------------------------------------------------------

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Files (never directories) under `path` (default `/`) matching `pattern`."""
        return self._sync(self._glob(pattern, path))

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Async `glob`."""
        return await self._async(self._glob(pattern, path))

    async def _glob(self, pattern: str, path: str | None) -> GlobResult:
        try:
            r = await self._call("filestore_glob", {"pattern": pattern, "path": self._where(path), "limit": MAX_LISTING})
        except FilestoreError as e:
            if e.kind in (ErrorKind.NOT_FOUND, ErrorKind.NOT_A_DIRECTORY):
                return GlobResult(matches=[])
            if e.kind is ErrorKind.INVALID_PATH:
                _raise_if_traversal(path, e)
                if _traversal(pattern.lstrip("/")):
                    raise ValueError(f"Path traversal not allowed in glob pattern: {e.message}") from e
            shown = path if path is not None else "<default>"
            return GlobResult(error=f"Error globbing path '{shown}': {e.message}", matches=[])
        matches = [
            _file_info(f["path"], is_dir=False, size=f.get("size"), modified_ms=f.get("modified_ms"))
            for f in r.get("files", [])
            if f.get("kind", "file") != "directory"
        ]
        matches.sort(key=lambda i: i["path"])
        return GlobResult(matches=matches, truncated=bool(r.get("truncated") or r.get("walk_truncated")))

    # -- bytes ---------------------------------------------------------------------

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write each `(path, bytes)`; one response per file, in order, errors as codes."""
        return self._sync(self._upload(files))

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Async `upload_files`."""
        return await self._async(self._upload(files))

    async def _upload(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        out: list[FileUploadResponse] = []
        for path, content in files:
            args = {
                "path": self._where(path),
                "content": base64.standard_b64encode(bytes(content)).decode("ascii"),
                "encoding": "base64",
            }
            try:
                await self._call("filestore_write", args)
            except FilestoreError as e:
                out.append(FileUploadResponse(path=path, error=_upload_code(e)))
            else:
                out.append(FileUploadResponse(path=path, error=None))
        return out

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Read each file's bytes (paged, any size); one response per path, in order."""
        return self._sync(self._download(paths))

    async def adownload_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Async `download_files`."""
        return await self._async(self._download(paths))

    async def _download(self, paths: list[str]) -> list[FileDownloadResponse]:
        out: list[FileDownloadResponse] = []
        for path in paths:
            try:
                data = await self._download_one(path)
            except FilestoreError as e:
                out.append(FileDownloadResponse(path=path, content=None, error=_upload_code(e)))
            else:
                out.append(FileDownloadResponse(path=path, content=data, error=None))
        return out

    async def _download_one(self, path: str) -> bytes:
        """A file's bytes, page by page through `filestore_read`'s base64 mode."""
        chunks: list[bytes] = []
        at = 0
        while True:
            page = await self._call(
                "filestore_read", {"path": self._where(path), "encoding": "base64", "byte_offset": at, "max_bytes": DOWNLOAD_PAGE}
            )
            # The bytes are in `text` (`content` is "base64", the kind of the answer).
            chunk = base64.b64decode(page.get("text", ""))
            chunks.append(chunk)
            nxt = page.get("next_byte_offset")
            if nxt is None or not chunk:
                return b"".join(chunks)
            at = int(nxt)


def _join(directory: str, name: str) -> str:
    return directory.rstrip("/") + "/" + name


def _strip_gutter(line: str) -> str:
    m = _GUTTER.match(line)
    return line[m.end() :] if m else line


def _grep_matches(records: list[dict[str, Any]], context_lines: int) -> list[GrepMatch]:
    """filestore's grep records (matches and `is_context` lines) as deepagents matches."""
    matches: list[GrepMatch] = []
    if not context_lines:
        for rec in records:
            if not rec.get("is_context"):
                matches.append({"path": rec["path"], "line": int(rec["line"]), "text": rec.get("text", "")})
        return matches
    context: dict[str, dict[int, str]] = {}
    for rec in records:
        if rec.get("is_context"):
            context.setdefault(rec["path"], {})[int(rec["line"])] = rec.get("text", "")
        else:
            matches.append({"path": rec["path"], "line": int(rec["line"]), "text": rec.get("text", "")})
    for m in matches:
        lines = context.get(m["path"], {})
        n = m["line"]
        before: list[ContextLine] = [{"line": i, "text": lines[i]} for i in range(max(1, n - context_lines), n) if i in lines]
        after: list[ContextLine] = [{"line": i, "text": lines[i]} for i in range(n + 1, n + context_lines + 1) if i in lines]
        m["context_before"] = before
        m["context_after"] = after
    return matches
