"""filestore for Python: the filestore WebAssembly component hosted by wasmtime-py.

The component is the exact one the ``filestore`` binary runs
(``filestore component -o filestore.wasm``); wasmtime's component API (wasmtime-py
>= 39, tested with the version pinned in ``requirements.txt``) runs it. The host
supplies what the WIT world imports:

- ``filestore:component/volume``: a ``volume`` resource per mount, answered by any
  Python object with the volume methods (``stat``, ``list``, ``walk``, ``read``,
  ``write``, ``delete``, ``rename``; ``append`` optional, since WIT 0.10.0: without it
  an append reads the file and writes it whole); :class:`MemoryVolume` is one;
- ``filestore:component/tool-host``: :class:`ToolHost`, handlers by tool type;
- ``filestore:component/shell-output``: a running shell command's output, to the
  ``on_output`` callback of :meth:`Session.execute`;
- ``filestore:component/python``: the shell's ``python3``. CPython runs only in the
  Rust host (``filestore serve``, the sandbox crate), which runs it in a WebAssembly
  instance of its own; here ``start`` answers ``unsupported``, and the shell prints
  that with status 127;
- the minimal WASI Rust's standard library links, from wasmtime's own WASI with an
  empty configuration: no environment, no arguments, no stdio, no preopens; its
  wall clock reads whole seconds, as the Rust host's (runtime/src/clocks.rs). Its
  monotonic clock stays wasmtime's (a Python linker can replace an instance only
  whole, and its timers return WASI pollables Python cannot make); what the shell
  shows of it, `time`, prints milliseconds.

Every session is its own store and instance, with a wall-clock deadline per call
(epoch interruption) and a linear-memory cap: a trap or a limit poisons that
session only. Whatever a Python volume or handler does (raise anything, return the
wrong types), the component gets a well-formed answer or a typed error.

The compiled component is cached on disk (``compiled_cache.py``), so only the first
process compiles it; see :class:`Filestore`'s ``cache_dir``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any, Callable, Optional, Union

from wasmtime import Config, Engine, Store, WasiConfig, WasmtimeError
from wasmtime.component import Linker, Record, ResourceHost, ResourceType, Variant

import compiled_cache

#: The error kinds of the WIT ``types.error`` variant (``python/tests/test_error_kinds.py``
#: checks that they are exactly its cases).
ERROR_KINDS = (
    "not-found", "not-a-file", "not-a-directory", "already-exists", "read-only",
    "invalid-path", "invalid-pattern", "invalid-argument", "too-large", "conflict",
    "unsupported", "limit-exceeded", "unauthorized", "backend",
)
#: The WIT package version this host implements.
PACKAGE = "filestore:component@0.11.0"
#: Most bytes one volume ``read`` hands the component (as the Rust host).
MAX_READ_CALL_BYTES = 16 * 1024 * 1024
#: Default wall-clock deadline of one call, seconds.
DEFAULT_DEADLINE_S = 30.0
#: Default linear-memory cap of a session, bytes.
DEFAULT_MEMORY_BYTES = 256 * 1024 * 1024
#: Epoch tick period, seconds: the granularity of deadlines.
EPOCH_TICK_S = 0.01
#: The ``wasi:clocks`` version whose wall clock is replaced (what wasmtime's WASI
#: defines, and the component imports).
WASI_CLOCKS = "0.2.6"
#: Where stored tool results live.
RESULTS_MOUNT = "/tool_calls"
#: The engine's settings (wasmtime ``Config`` attributes): the one place they are
#: set, so the compiled-component cache keys on exactly what the engine runs with.
ENGINE_SETTINGS = {"epoch_interruption": True}

BUILTIN = {
    "filestore_ls", "filestore_read", "filestore_glob", "filestore_grep", "filestore_tree",
    "filestore_write", "filestore_edit", "filestore_delete", "filestore_move", "filestore_mkdir",
    "filestore_execute", "filestore_diff",
}
_VOLUME = 1  # the host resource type id of `volume`
_PYTHON_RUN = 2  # the host resource type id of `python.run` (never made: see below)

#: Why ``python3`` does not run in this host (the WIT ``python`` interface).
NO_PYTHON = ("command not found: python3 runs in the Rust host (filestore serve, the "
             "sandbox crate), in a WebAssembly instance of its own; this Python host "
             "(wasmtime-py) has no CPython to give it")


class FilestoreError(Exception):
    """A failed call: ``kind`` is a WIT error case or ``trap`` (the session is poisoned)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return f"error[{self.kind}]: {self.message}"


class VolumeError(Exception):
    """Raised by a volume to answer with a typed error (message without the path)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


class ToolError(Exception):
    """Raised by a tool handler to fail a call with a typed error."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind
        self.message = message


class ConfigErrors(Exception):
    """Every located error of a configuration that did not load (``errors``: rendered lines)."""

    def __init__(self, errors: list):
        super().__init__("\n".join(errors))
        self.errors = errors


def _rec(**fields: Any) -> Record:
    """A WIT record; Python names use ``_`` where WIT uses ``-``."""
    r = Record()
    for k, v in fields.items():
        setattr(r, k.replace("_", "-"), v)
    return r


def _get(r: Record, name: str) -> Any:
    return getattr(r, name.replace("_", "-"))


def _err(kind: str, message: str) -> Variant:
    return Variant(kind, message)


def _connection_status(status: Any) -> Optional[Variant]:
    """A ``connections`` answer as the WIT ``connection-status`` variant (``None`` if
    malformed): ``"active"`` (no catalog), ``{"active": [{action, title?, description,
    inputSchema, annotations?}]}``, ``"inactive"``, ``{"inactive": reason}``, ``"missing"``."""
    if status == "active":
        return Variant("active", [])
    if status == "inactive":
        return Variant("inactive", None)
    if status == "missing":
        return Variant("missing")
    if isinstance(status, dict) and isinstance(status.get("active"), list):
        def text(v: Any) -> str:
            return v if isinstance(v, str) else json.dumps(v if v is not None else {})
        return Variant("active", [
            _rec(action=str(a["action"]), title=a.get("title"), description=str(a.get("description", "")),
                 input_schema=text(a.get("inputSchema")),
                 annotations=None if a.get("annotations") is None else text(a["annotations"]))
            for a in status["active"]])
    if isinstance(status, dict) and "inactive" in status:
        reason = status["inactive"]
        return Variant("inactive", None if reason is None else str(reason))
    return None


# ---- volumes ---------------------------------------------------------------------


def _parent(path: str) -> Optional[str]:
    if path == "/":
        return None
    i = path.rfind("/")
    return "/" if i <= 0 else path[:i]


def _prefix(d: str) -> str:
    return "/" if d == "/" else d + "/"


def _within(path: str, d: str) -> bool:
    return d == "/" or path == d or (path.startswith(d) and path[len(d):len(d) + 1] == "/")


def _key(s: str) -> bytes:
    return s.encode("utf-8")


def _is_marker(key: str) -> bool:
    """Whether ``key`` is an empty-directory marker (``/a/b/`` for ``/a/b``)."""
    return len(key) > 1 and key.endswith("/")


class MemoryVolume:
    """An in-memory volume answering as the Rust host's ``MemoryVolume`` (same rules
    and messages): files in a dict, directories implied by file paths, and empty
    directories (``create_dir``) kept as a marker key ``dir/`` that goes with its
    directory on delete and rename."""

    _next = 1

    def __init__(self, files: Optional[dict] = None):
        self.files: dict = {}
        self.storage = f"mem:py-{MemoryVolume._next}"
        MemoryVolume._next += 1
        for p, c in (files or {}).items():
            self.insert(p, c)

    def insert(self, path: str, content) -> "MemoryVolume":
        """Adds a file (text or bytes)."""
        # MemoryVolume.write itself: a subclass may refuse writes from the component.
        MemoryVolume.write(self, path if path.startswith("/") else "/" + path,
                           content.encode("utf-8") if isinstance(content, str) else bytes(content), {})
        return self

    def identity(self):
        return {"storage": self.storage, "root": []}

    def keeps_entry_metadata(self) -> bool:
        return True

    def _under(self, d: str):
        p = _prefix(d)
        return sorted((k for k in self.files if k.startswith(p)), key=_key)

    def _dir_exists(self, d: str) -> bool:
        if d == "/":
            return True
        p = _prefix(d)
        return any(k.startswith(p) for k in self.files)

    def _check_no_file_parent(self, path: str, other: bool = False) -> None:
        d = _parent(path)
        while d is not None:
            if d in self.files:
                msg = f"parent '{d}' is a file"
                raise VolumeError("not-a-directory", f"{path}: {msg}" if other else msg)
            d = _parent(d)

    @staticmethod
    def _entry(path: str, f: dict) -> dict:
        return {"path": path, "kind": "file", "size": len(f["content"]), "modified_ms": f["modified_ms"],
                "read_only": f["read_only"], "entry_type": f["entry_type"] or "file",
                "attributes": f["attributes"]}

    @staticmethod
    def _directory(path: str) -> dict:
        return {"path": path, "kind": "directory", "size": 0, "read_only": False, "entry_type": "directory"}

    def stat(self, path):
        if path in self.files:
            return self._entry(path, self.files[path])
        if self._dir_exists(path):
            return self._directory(path)
        raise VolumeError("not-found", "no such file or directory")

    def list(self, path):
        if path in self.files:
            raise VolumeError("not-a-directory", "not a directory")
        if not self._dir_exists(path):
            raise VolumeError("not-found", "no such file or directory")
        p, out, seen = _prefix(path), [], set()
        for k in self._under(path):
            rest = k[len(p):]
            if not rest:
                continue  # the listed directory's own marker
            i = rest.find("/")
            if i < 0:
                out.append(self._entry(k, self.files[k]))
            else:
                d = p + rest[:i]
                if d not in seen:
                    seen.add(d)
                    out.append(self._directory(d))
        return out

    def walk(self, path, max_entries):
        if path in self.files:
            raise VolumeError("not-a-directory", "not a directory")
        if not self._dir_exists(path):
            raise VolumeError("not-found", "no such file or directory")
        p, entries, seen = _prefix(path), [], set()
        for k in self._under(path):
            rest = k[len(p):]
            if not rest:
                continue
            idx = 0
            while True:
                i = rest.find("/", idx)
                if i < 0:
                    break
                d = p + rest[:i]
                if d not in seen:
                    seen.add(d)
                    if len(entries) >= max_entries:
                        return {"entries": entries, "truncated": True}
                    entries.append(self._directory(d))
                idx = i + 1
            if _is_marker(k):
                continue  # stands for its directory, emitted above
            if len(entries) >= max_entries:
                return {"entries": entries, "truncated": True}
            entries.append(self._entry(k, self.files[k]))
        return {"entries": entries, "truncated": False}

    def read(self, path, offset, length):
        f = self.files.get(path)
        if f is not None:
            start = min(offset, len(f["content"]))
            return f["content"][start:start + length]
        if self._dir_exists(path):
            raise VolumeError("not-a-file", "is a directory")
        raise VolumeError("not-found", "no such file or directory")

    def write(self, path, content, options):
        if path == "/":
            raise VolumeError("not-a-file", "cannot write the volume root")
        if self._dir_exists(path):
            raise VolumeError("not-a-file", "is a directory")
        self._check_no_file_parent(path)
        existing = self.files.get(path)
        if existing is not None:
            if options.get("create_only"):
                raise VolumeError("already-exists", "file already exists")
            if existing["read_only"]:
                raise VolumeError("read-only", "entry is read-only")
        f = {"content": bytes(content), "modified_ms": int(time.time() * 1000),
             "read_only": bool(options.get("read_only")), "entry_type": options.get("entry_type"),
             "attributes": options.get("attributes")}
        self.files[path] = f
        return self._entry(path, f)

    def append(self, path, content):
        """Adds ``content`` at the end of the file (created when missing), keeping its
        type and attributes."""
        f = self.files.get(path)
        if f is None:
            return MemoryVolume.write(self, path, content, {})
        if f["read_only"]:
            raise VolumeError("read-only", "entry is read-only")
        f["content"] = f["content"] + bytes(content)
        f["modified_ms"] = int(time.time() * 1000)
        return self._entry(path, f)

    def delete(self, path, recursive):
        f = self.files.get(path)
        if f is not None:
            if f["read_only"]:
                raise VolumeError("read-only", "entry is read-only")
            del self.files[path]
            return
        if path == "/" and not recursive:
            raise VolumeError("conflict", "directory is not empty; pass recursive=true")
        if not self._dir_exists(path):
            raise VolumeError("not-found", "no such file or directory")
        marker = path + "/"
        if all(k == marker for k in self._under(path)):
            del self.files[marker]  # an empty directory: only its marker
            return
        if not recursive:
            raise VolumeError("conflict", "directory is not empty; pass recursive=true to delete it")
        keys = self._under(path)
        for k in keys:
            if self.files[k]["read_only"]:
                raise VolumeError("read-only", f"{k}: entry is read-only")
        for k in keys:
            del self.files[k]

    def rename(self, src, dst, overwrite):
        if src == dst:
            return
        if _within(dst, src):
            raise VolumeError("invalid-argument", f"{dst}: cannot move '{src}' into itself")
        dst_is_dir = self._dir_exists(dst)
        f = self.files.get(src)
        if f is not None:
            if f["read_only"]:
                raise VolumeError("read-only", "entry is read-only")
            if dst_is_dir:
                raise VolumeError("already-exists", f"{dst}: destination is a directory")
            existing = self.files.get(dst)
            if existing is not None:
                if not overwrite:
                    raise VolumeError("already-exists", f"{dst}: destination exists; pass overwrite=true")
                if existing["read_only"]:
                    raise VolumeError("read-only", f"{dst}: entry is read-only")
            self._check_no_file_parent(dst, other=True)
            del self.files[src]
            self.files[dst] = f
            return
        if not self._dir_exists(src) or src == "/":
            raise VolumeError("not-found", "no such file or directory")
        if dst in self.files or dst_is_dir:
            raise VolumeError("already-exists", f"{dst}: destination exists")
        self._check_no_file_parent(dst, other=True)
        moved = self._under(src)
        for k in moved:
            if self.files[k]["read_only"]:
                raise VolumeError("read-only", f"{k}: entry is read-only")
        for k in moved:
            self.files[dst + k[len(src):]] = self.files.pop(k)


    def create_dir(self, path):
        if path == "/":
            return self._directory("/")
        if path in self.files:
            raise VolumeError("already-exists", "a file exists at this path")
        self._check_no_file_parent(path)
        # Like `mkdir -p`, every missing ancestor becomes a directory too (all found
        # before any is added: a marker makes its ancestors exist).
        missing, d = [], path
        while d is not None and d != "/" and not self._dir_exists(d):
            missing.append(d)
            d = _parent(d)
        for d in missing:
            self.files[d + "/"] = {"content": b"", "modified_ms": int(time.time() * 1000),
                                   "read_only": False, "entry_type": None, "attributes": None}
        return self._directory(path)


class _Broken(Exception):
    pass


def _describe(v: Any) -> str:
    if v is None:
        return "None"
    if isinstance(v, str):
        return json.dumps(v if len(v) <= 60 else v[:60] + "...")
    if isinstance(v, (dict, list, tuple)):
        return f"a {type(v).__name__}"
    return repr(v)


def _u64(v: Any, field: str) -> int:
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 64:
        return v
    raise _Broken(f"field '{field}' is {_describe(v)}, not an unsigned 64-bit integer")


def _wit_entry(e: Any, where: str) -> Record:
    if not isinstance(e, dict):
        raise _Broken(f"{where} is {_describe(e)}, not an entry dict")
    path, kind = e.get("path"), e.get("kind")
    if not isinstance(path, str):
        raise _Broken(f"field '{where}.path' is {_describe(path)}, not a string")
    if kind not in ("file", "directory"):
        raise _Broken(f"field '{where}.kind' is {_describe(kind)}, not 'file' or 'directory'")
    mtime = e.get("modified_ms")
    ro = e.get("read_only", False)
    if not isinstance(ro, bool):
        raise _Broken(f"field '{where}.read_only' is {_describe(ro)}, not a bool")
    et = e.get("entry_type") or kind
    if not isinstance(et, str):
        raise _Broken(f"field '{where}.entry_type' is {_describe(et)}, not a string")
    attrs = e.get("attributes")
    if isinstance(attrs, dict):
        attrs = json.dumps(attrs)
    elif attrs is not None and not isinstance(attrs, str):
        raise _Broken(f"field '{where}.attributes' is {_describe(attrs)}, not a JSON object")
    return _rec(path=path, kind=kind, size=_u64(e.get("size", 0), where + ".size"),
                modified_ms=None if mtime is None else _u64(mtime, where + ".modified_ms"),
                read_only=ro, entry_type=et, attributes=attrs)


def _volume_error(op: str, e: BaseException) -> Variant:
    if isinstance(e, _Broken):
        return _err("backend", f"the volume's {op} returned a malformed answer: {e}")
    if isinstance(e, VolumeError):
        if e.kind in ERROR_KINDS:
            return _err(e.kind, str(e.message))
        return _err("backend", f"the volume's {op} failed with an error of unknown kind {_describe(e.kind)}: {e.message}")
    if isinstance(e, OSError):
        # An OSError's text names host paths: report the error number only.
        return _err("backend", f"the volume's {op} failed: {type(e).__name__} (errno {e.errno})")
    return _err("backend", f"the volume's {op} raised {type(e).__name__}: {e}")


# ---- tools -----------------------------------------------------------------------


class ToolHost:
    """Tool handlers by type: ``handler(request: dict) -> JSON value``; raise
    :class:`ToolError` to fail typed. ``env`` resolves ``${VAR}`` in sources."""

    def __init__(self, handlers: Optional[dict] = None, connections: Optional[Callable] = None,
                 env: Optional[dict] = None):
        import os
        self.handlers = dict(handlers or {})
        self.connections = connections or (lambda ref: "missing")
        self.env = dict(os.environ) if env is None else env

    def resolve_sources(self, report: Record) -> dict:
        needed = {_get(t, "source") for t in report.tools
                  if t.runnable or _get(t, "tool_type") in self.handlers} - {None}
        out, missing = {}, []
        for s in report.sources:
            if s.name not in needed:
                continue
            fields = {k: _resolve(v, f"{s.name}.{k}", self.env, missing) for k, v in json.loads(s.fields).items()}
            out[s.name] = {"name": s.name, "type": _get(s, "source_type"), "fields": fields}
        if missing:
            raise FilestoreError("invalid-argument", "; ".join(missing))
        return out

    def call(self, call: Record, session_id: str, sources: dict):
        tool, ttype = _get(call, "tool_name"), _get(call, "tool_type")
        handler = self.handlers.get(ttype)
        if handler is None:
            known = ", ".join(sorted(self.handlers)) or "none"
            return _err("unsupported", f"tool '{tool}' has type '{ttype}': type not supported by this host (it handles: {known})")
        source = None
        if call.source is not None:
            source = sources.get(call.source)
            if source is None:
                loaded = ", ".join(sources) or "none"
                return _err("not-found", f"tool '{tool}' names source '{call.source}', which this host has not loaded (loaded: {loaded})")
        ctx = call.context
        try:
            request = {
                "tool_name": tool, "tool_type": ttype, "source": source, "call_ref": _get(call, "call_ref"),
                "config": json.loads(call.config) or {}, "arguments": json.loads(call.arguments) or {},
                "positional": json.loads(call.positional), "statement": call.statement, "path": call.path,
                "tool_call_id": _get(ctx, "tool_call_id"), "session_id": session_id,
                "claims": json.loads(ctx.claims or "null"),
            }
            return json.dumps(handler(request), ensure_ascii=False, separators=(",", ":"))
        except ToolError as e:
            if e.kind not in ERROR_KINDS:
                return _err("backend", f"tool '{tool}': the handler failed with an error of unknown kind {_describe(e.kind)}: {e.message}")
            m = e.message if f"'{tool}'" in e.message else f"tool '{tool}': {e.message}"
            return _err(e.kind, m)
        except Exception as e:  # noqa: BLE001 - any handler failure becomes a typed error
            return _err("backend", f"tool '{tool}': the handler raised {type(e).__name__}: {e}")


def _resolve(v: Any, at: str, env: dict, missing: list) -> Any:
    if isinstance(v, str):
        out, rest = "", v
        while "$" in rest:
            i = rest.index("$")
            out, tail = out + rest[:i], rest[i:]
            if tail.startswith("$$"):
                out, rest = out + "$", tail[2:]
                continue
            end = tail.find("}", 2) if tail.startswith("${") else -1
            if end < 0:
                out, rest = out + "$", tail[1:]
                continue
            name, _, default = tail[2:end].partition(":")
            has_default = ":" in tail[2:end]
            if name in env:
                out += env[name]
            elif has_default:
                out += default
            else:
                missing.append(f"source field '{at}' references environment variable '{name}', which is not set")
            rest = tail[end + 1:]
        return out + rest
    if isinstance(v, list):
        return [_resolve(x, f"{at}[{i}]", env, missing) for i, x in enumerate(v)]
    if isinstance(v, dict):
        return {k: _resolve(x, f"{at}.{k}", env, missing) for k, x in v.items()}
    return v


# ---- engine and sessions ---------------------------------------------------------


class Filestore:
    """The component compiled once; :meth:`session` instantiates it per conversation.

    The compiled component is cached on disk (``compiled_cache``), so a later process
    loads it instead of compiling again: ``cache_dir`` None (the default) caches in
    ``$XDG_CACHE_HOME/filestore/python-host`` (``~/.cache/...``), a path caches there,
    False turns the cache off."""

    def __init__(self, component: Union[str, os.PathLike, bytes], deadline_s: float = DEFAULT_DEADLINE_S,
                 memory_bytes: int = DEFAULT_MEMORY_BYTES,
                 cache_dir: Union[str, os.PathLike, bool, None] = None):
        if cache_dir is None or cache_dir is True:
            directory = compiled_cache.default_dir()
        elif cache_dir is False:
            directory = None
        elif isinstance(cache_dir, (str, os.PathLike)):
            directory = os.fspath(cache_dir)
        else:
            raise FilestoreError("invalid-argument", "cache_dir must be a directory path, None (the default "
                                 f"cache directory) or False (no cache), not {type(cache_dir).__name__}")
        config = Config()
        for name, value in ENGINE_SETTINGS.items():
            setattr(config, name, value)
        self.engine = Engine(config)
        if isinstance(component, (bytes, bytearray)):
            wasm = bytes(component)
        else:
            with open(component, "rb") as f:
                wasm = f.read()
        self.component, self._loaded_from_cache, self._cache_path = compiled_cache.load(
            self.engine, wasm, ENGINE_SETTINGS, directory)
        self.deadline_ticks = max(1, int(deadline_s / EPOCH_TICK_S))
        self.memory_bytes = memory_bytes
        self._next = 1
        ticker = threading.Thread(target=self._tick, name="filestore-epoch", daemon=True)
        ticker.start()

    @property
    def loaded_from_cache(self) -> bool:
        """Whether the compiled component came from the cache (else it was compiled here)."""
        return self._loaded_from_cache

    @property
    def cache_path(self) -> Optional[str]:
        """The compiled component's cache file (None when the cache is off)."""
        return self._cache_path

    def _tick(self) -> None:
        while True:
            time.sleep(EPOCH_TICK_S)
            self.engine.increment_epoch()

    def session(self, mounts: list, tools: Optional[ToolHost] = None, limits: Optional[dict] = None,
                id: Optional[str] = None) -> "Session":
        """A new session over ``mounts`` (``[{"point", "volume", "priority"?, "read_only"?}]``)."""
        if id is None:
            id = f"session-py-{self._next}"
            self._next += 1
        return Session(self, mounts, tools or ToolHost(handlers={}, env={}), limits or {}, id)


class Session:
    """One sandboxed filestore: its own store and instance. Calls raise
    :class:`FilestoreError`; one of kind ``trap`` poisons the session."""

    def __init__(self, fs: Filestore, mounts: list, tools: ToolHost, limits: dict, id: str):
        self.id, self.tools, self.fs = id, tools, fs
        self.poisoned: Optional[str] = None
        self.sources: dict = {}
        self.volumes: dict = {}
        #: Receives a running shell command's output (see :meth:`execute`).
        self.on_output: Optional[Callable[[str, bytes], None]] = None
        self.store = Store(fs.engine)
        self.store.set_wasi(WasiConfig())  # nothing: no env, args, stdio or preopens
        self.store.set_limits(memory_size=fs.memory_bytes)
        self.store.set_epoch_deadline(fs.deadline_ticks)
        linker = self._linker()
        self.instance = self._guard(lambda: linker.instantiate(self.store, fs.component))
        fsx = self.instance.get_export_index(self.store, f"filestore:component/filestore@{PACKAGE.split('@')[1]}")
        tls = self.instance.get_export_index(self.store, f"filestore:component/tools@{PACKAGE.split('@')[1]}")
        self._f = lambda name: self.instance.get_func(self.store, self.instance.get_export_index(self.store, name, fsx))
        self._t = lambda name: self.instance.get_func(self.store, self.instance.get_export_index(self.store, name, tls))
        wit_mounts = []

        def own(volume) -> ResourceHost:
            rid = len(self.volumes) + 1
            self.volumes[rid] = volume
            return ResourceHost.own(rid, _VOLUME)

        for m in mounts:
            # `upper`: a copy-on-write mount (docs/cow.md): `volume` is only read,
            # every change lands in `upper`.
            upper = m.get("upper")
            if upper is not None and m.get("read_only"):
                raise FilestoreError("invalid-argument", f"the copy-on-write mount at '{m['point']}' "
                                     "cannot be read-only: its changes land in its upper volume")
            wit_mounts.append(_rec(point=m["point"], volume=own(m["volume"]),
                                   priority=m.get("priority", 0), read_only=bool(m.get("read_only")),
                                   upper=None if upper is None else own(upper)))
        wit_limits = _rec(**{k: limits.get(k) for k in ("read_tokens", "file_bytes", "regex_bytes",
                                                          "walk_entries", "grep_records", "write_bytes")})
        created = self._call(self._f("[static]session.create"), wit_mounts, wit_limits)
        self.handle = self._ok(created)

    # -- imports --

    def _linker(self) -> Linker:
        linker = Linker(self.fs.engine)
        linker.add_wasip2()
        # wasmtime's WASI reads the wall clock to the nanosecond: a measuring
        # instrument for timing side channels (`date +%N`). Its instance is replaced
        # by one in whole seconds. (The monotonic clock's instance also holds the
        # timers, which return WASI pollables: it stays wasmtime's.)
        linker.allow_shadowing = True
        version = PACKAGE.split("@")[1]
        with linker.root() as root:
            with root.add_instance(f"wasi:clocks/wall-clock@{WASI_CLOCKS}") as w:
                w.add_func("now", lambda store: _rec(seconds=int(time.time()), nanoseconds=0))
                w.add_func("resolution", lambda store: _rec(seconds=1, nanoseconds=0))
            with root.add_instance(f"filestore:component/types@{version}"):
                pass
            with root.add_instance(f"filestore:component/volume@{version}") as v:
                v.add_resource("volume", ResourceType.host(_VOLUME), lambda store, rep: self.volumes.pop(rep, None))
                v.add_func("[method]volume.identity", self._identity)
                for wit, method, conv in (
                    ("stat", "stat", lambda r: _wit_entry(r, "the entry")),
                    ("list-dir", "list", lambda r: self._entries(r, "the list")),
                    ("walk", "walk", self._walk),
                    ("walk-packed", "walk", self._walk_packed),
                    ("read", "read", None),
                    ("stat-read", "stat_read", None),
                    ("write", "write", lambda r: _wit_entry(r, "the entry")),
                    ("append", "append", lambda r: _wit_entry(r, "the entry")),
                    ("delete", "delete", lambda r: None),
                    ("rename", "rename", lambda r: None),
                    ("create-dir", "create_dir", lambda r: _wit_entry(r, "the entry")),
                ):
                    v.add_func(f"[method]volume.{wit}", self._volume_method(method, conv))
                v.add_func("[method]volume.prefetch", self._prefetch)
            with root.add_instance(f"filestore:component/tool-host@{version}") as t:
                t.add_func("call", lambda store, call: self.tools.call(call, self.id, self.sources))
                t.add_func("check-connection", self._check_connection)
            with root.add_instance(f"filestore:component/shell-output@{version}") as o:
                o.add_func("emit", self._emit)
            with root.add_instance(f"filestore:component/python@{version}") as p:
                p.add_resource("run", ResourceType.host(_PYTHON_RUN), lambda store, rep: None)
                p.add_func("[static]run.start",
                           lambda store, invocation: _err("unsupported", NO_PYTHON))
                p.add_func("[method]run.next", self._no_python_step)
        return linker

    @staticmethod
    def _no_python_step(store, run, reply):
        # Unreachable: `start` never makes a run. A guest that calls it anyway gets an end.
        return Variant("finished", _rec(exit_code=1, stdout=b"", stderr=NO_PYTHON.encode() + b"\n"))

    def _emit(self, store, stream, chunk) -> None:
        """A running shell command's output, to the ``on_output`` of the call running
        now (see :meth:`execute`). A raising callback must not trap the component:
        the output is a preview, the result holds all of it."""
        callback = self.on_output
        if callback is None:
            return
        try:
            callback(stream if isinstance(stream, str) else str(stream), bytes(chunk[:4096]))
        except Exception:
            pass

    def _backend(self, store, handle):
        return self.volumes[handle.to_host(store).rep]

    def _identity(self, store, handle):
        vol = self._backend(store, handle)
        try:
            i = vol.identity() if hasattr(vol, "identity") else None
            if isinstance(i, dict) and isinstance(i.get("storage"), str) and all(isinstance(t, str) for t in i.get("root", [])):
                return _rec(storage=i["storage"], root=list(i.get("root", [])))
        except Exception:  # noqa: BLE001 - no identity: distinct from every volume
            pass
        return None

    def _prefetch(self, store, handle, files):
        """A hint: files about to be read whole. A backend may ignore it; a failure
        here is dropped (each file's own read reports it)."""
        vol = self._backend(store, handle)
        try:
            if hasattr(vol, "prefetch"):
                vol.prefetch([{"path": f.path, "size": f.size} for f in files])
        except Exception:  # noqa: BLE001 - a hint only
            pass

    @staticmethod
    def _entries(r, where):
        if not isinstance(r, list):
            raise _Broken(f"{where} is {_describe(r)}, not a list of entries")
        return [_wit_entry(e, f"{where}[{i}]") for i, e in enumerate(r)]

    def _walk(self, r):
        if not isinstance(r, dict):
            raise _Broken(f"the walk is {_describe(r)}, not {{entries, truncated}}")
        if not isinstance(r.get("truncated"), bool):
            raise _Broken(f"field 'truncated' is {_describe(r.get('truncated'))}, not a bool")
        return _rec(entries=self._entries(r.get("entries"), "entries"), truncated=r["truncated"])

    def _walk_packed(self, r):
        """The backend's walk (checked and converted as for ``walk``) as the columns of
        WIT ``walk-packed``: paths in one string, sizes, times and flags, and entry
        types and attributes only where an entry has its own."""
        w = self._walk(r)
        es = _get(w, "entries")
        path_lens, sizes, modified, flags, types, attributes = [], [], [], [], [], []
        for i, e in enumerate(es):
            path_lens.append(len(e.path.encode("utf-8")))
            sizes.append(e.size)
            mtime = _get(e, "modified_ms")
            modified.append(mtime or 0)
            d = e.kind == "directory"
            flags.append((1 if d else 0) | (2 if _get(e, "read_only") else 0) | (4 if mtime is not None else 0))
            if _get(e, "entry_type") != ("directory" if d else "file"):
                types.append((i, _get(e, "entry_type")))
            if e.attributes is not None:
                attributes.append((i, e.attributes))
        return _rec(paths="".join(e.path for e in es), path_lens=path_lens, sizes=sizes,
                    modified_ms=modified, entry_flags=bytes(flags), entry_types=types, attributes=attributes,
                    truncated=w.truncated)

    def _volume_method(self, method: str, conv):
        def run(store, handle, *args):
            vol = self._backend(store, handle)
            try:
                if method == "read":
                    path, offset, length = args
                    want = min(length, MAX_READ_CALL_BYTES)
                    data = vol.read(path, offset, want)
                    if not isinstance(data, (bytes, bytearray)):
                        raise _Broken(f"the data is {_describe(data)}, not bytes")
                    if len(data) > want:
                        raise _Broken(f"{len(data)} bytes were returned when at most {want} were asked for")
                    return bytes(data)
                if method == "stat_read":
                    # WIT 0.5.0: stat and read in one call; a volume without its own
                    # stat_read(path, offset, len) -> (entry, data) is asked for both.
                    path, offset, length = args
                    want = min(length, MAX_READ_CALL_BYTES)
                    if hasattr(vol, "stat_read"):
                        got = vol.stat_read(path, offset, want)
                        if not isinstance(got, tuple) or len(got) != 2:
                            raise _Broken(f"the answer is {_describe(got)}, not (entry, data)")
                        entry, data = _wit_entry(got[0], "the entry"), got[1]
                    else:
                        # Each failure is the failing method's, as when they were two calls.
                        try:
                            entry = _wit_entry(vol.stat(path), "the entry")
                        except BaseException as e:  # noqa: BLE001
                            return _volume_error("stat", e)
                        want = min(want, max(0, entry.size - offset))
                        has_content = entry.kind == "file" and _get(entry, "entry_type") not in ("symlink", "special")
                        try:
                            data = vol.read(path, offset, want) if has_content and want > 0 else b""
                            if not isinstance(data, (bytes, bytearray)):
                                raise _Broken(f"the data is {_describe(data)}, not bytes")
                            if len(data) > want:
                                raise _Broken(f"{len(data)} bytes were returned when at most {want} were asked for")
                        except BaseException as e:  # noqa: BLE001
                            return _volume_error("read", e)
                    if not isinstance(data, (bytes, bytearray)):
                        raise _Broken(f"the data is {_describe(data)}, not bytes")
                    if len(data) > want:
                        raise _Broken(f"{len(data)} bytes were returned when at most {want} were asked for")
                    return _rec(entry=entry, data=bytes(data))
                if method == "write":
                    path, content, o = args
                    opts = {"create_only": _get(o, "create_only"), "read_only": _get(o, "read_only"),
                            "entry_type": _get(o, "entry_type"), "attributes": o.attributes}
                    return conv(vol.write(path, content, opts))
                if method == "append" and not hasattr(vol, "append"):
                    # WIT 0.10.0: a volume without its own append(path, content) is
                    # read whole and written once with the new bytes (a failed write
                    # leaves the old content, as the volume's write does).
                    return conv(self._append_by_rewrite(vol, *args))
                if not hasattr(vol, method):
                    raise VolumeError("unsupported", f"this volume cannot {method.replace('_', ' ')}")
                return conv(getattr(vol, method)(*args))
            except BaseException as e:  # noqa: BLE001 - nothing may unwind into the component
                return _volume_error(method, e)
        return run

    @staticmethod
    def _append_by_rewrite(vol, path, content):
        try:
            entry = _wit_entry(vol.stat(path), "the entry")
        except VolumeError as e:
            if e.kind not in ("not-found", "not-a-directory"):
                raise
            entry = None
        old = b""
        if entry is not None:
            if entry.kind == "directory":
                raise VolumeError("not-a-file", "is a directory")
            if _get(entry, "read_only"):
                raise VolumeError("read-only", "entry is read-only")
            chunks = []
            while True:
                data = vol.read(path, sum(len(c) for c in chunks), MAX_READ_CALL_BYTES)
                if not isinstance(data, (bytes, bytearray)):
                    raise _Broken(f"the data is {_describe(data)}, not bytes")
                if not data:
                    break
                chunks.append(bytes(data))
            old = b"".join(chunks)
        return vol.write(path, old + bytes(content), {})

    def _check_connection(self, store, call_ref):
        # The result's ok and err are both variants, so both are tagged explicitly.
        try:
            status = _connection_status(self.tools.connections(call_ref))
        except Exception as e:  # noqa: BLE001
            return Variant("err", _err("backend", f"connection check for '{call_ref}' failed: {e}"))
        if status is None:
            return Variant("err", _err("backend", f"connection check for '{call_ref}' answered an unknown status (want 'active', 'inactive', 'missing', {{'active': [...]}} or {{'inactive': reason}})"))
        return Variant("ok", status)

    # -- calls --

    def _guard(self, f):
        if self.poisoned is not None:
            raise FilestoreError("trap", f"session is unusable after an earlier trap ({self.poisoned}); create a new session")
        self.store.set_epoch_deadline(self.fs.deadline_ticks)
        try:
            return f()
        except FilestoreError:
            raise
        except (WasmtimeError, Exception) as e:  # noqa: BLE001 - a trap, whatever raised it
            why = str(e).split("\n")[0]
            if "interrupt" in str(e):
                why = f"the call ran past its deadline of {self.fs.deadline_ticks * EPOCH_TICK_S:.0f} s ({why})"
            self.poisoned = why
            raise FilestoreError("trap", f"sandbox trap: {why}") from None

    def _call(self, func, *args):
        def run():
            out = func(self.store, *args)
            func.post_return(self.store)
            return out
        return self._guard(run)

    @staticmethod
    def _ok(v):
        if isinstance(v, Variant):
            raise FilestoreError(v.tag, v.payload)
        return v

    def call(self, tool: str, args: Optional[dict] = None) -> dict:
        """Runs a tool by name: ``{"json", "text"}``; configured tools go through :meth:`invoke`."""
        args = {} if args is None else args
        if tool not in BUILTIN:
            out = self.invoke(tool, args)
            if out["status"] == "failed" and out["error"]:
                raise FilestoreError(out["error"]["kind"], out["error"]["message"])
            return {"json": out["envelope"], "text": out["text"]}
        out = self._ok(self._call(self._f("[method]session.call"), self.handle, tool, json.dumps(args)))
        return {"json": json.loads(out.json), "text": out.text}

    # -- the typed read side (WIT ``session.read``...; see wit/filestore.wit) --
    # Keyword arguments are the request record's fields (``_`` for ``-``; enum values
    # by their WIT case names, e.g. ``output_mode="count"``); left out means none.
    # Results are the WIT records as wasmtime-py returns them (fields by their WIT
    # names: ``getattr(r, "total-matches")``). A failure raises FilestoreError.

    def _typed(self, method: str, request: Record):
        return self._ok(self._call(self._f(f"[method]session.{method}"), self.handle, request))

    def read(self, path: str, *, offset: Optional[int] = None, limit: Optional[int] = None,
             raw: Optional[bool] = None, tail: Optional[int] = None) -> Record:
        """A page of a file: the ``read-result``."""
        return self._typed("read", _rec(path=path, offset=offset, limit=limit, raw=raw, tail=tail))

    def read_many(self, paths: list, *, offset: Optional[int] = None, limit: Optional[int] = None,
                  raw: Optional[bool] = None, tail: Optional[int] = None) -> list:
        """Several files read alike (at most 32): per file, in order, ``(path, result)``
        where ``result`` is its ``read-result`` or the :class:`FilestoreError` it failed
        with (one file's failure does not fail the others)."""
        files = self._typed("read-many", _rec(paths=list(paths), offset=offset, limit=limit, raw=raw, tail=tail))
        out = []
        for f in files:
            o = f.outcome
            out.append((f.path, FilestoreError(o.tag, o.payload) if isinstance(o, Variant) else o))
        return out

    def read_bytes(self, path: str, *, offset: Optional[int] = None, max_bytes: Optional[int] = None) -> Record:
        """A page of a file's bytes: ``entry``, ``data`` (bytes), ``offset``, ``next-offset``
        (None at the end)."""
        return self._typed("read-bytes", _rec(path=path, offset=offset, max_bytes=max_bytes))

    def glob(self, pattern: str, *, path: Optional[str] = None, limit: Optional[int] = None,
             exclude: Optional[list] = None, hidden: Optional[bool] = None) -> Record:
        """Files by pattern: the ``glob-result``."""
        return self._typed("glob", _rec(pattern=pattern, path=path, limit=limit, exclude=exclude, hidden=hidden))

    def grep(self, pattern: str, *, path: Optional[str] = None, glob: Optional[str] = None,
             file_type: Optional[str] = None, fixed: Optional[bool] = None,
             case_insensitive: Optional[bool] = None, multiline: Optional[bool] = None,
             before: Optional[int] = None, after: Optional[int] = None, context: Optional[int] = None,
             output_mode: Optional[str] = None, head_limit: Optional[int] = None,
             offset: Optional[int] = None, exclude: Optional[list] = None,
             hidden: Optional[bool] = None) -> Record:
        """A content search: the ``grep-result``, with every counter."""
        return self._typed("grep", _rec(
            pattern=pattern, path=path, glob=glob, file_type=file_type, fixed=fixed,
            case_insensitive=case_insensitive, multiline=multiline, before=before, after=after,
            context=context, output_mode=output_mode, head_limit=head_limit, offset=offset,
            exclude=exclude, hidden=hidden))

    def tree(self, *, path: Optional[str] = None, max_depth: Optional[int] = None,
             max_files_per_folder: Optional[int] = None, exclude: Optional[list] = None) -> str:
        """The rendered directory tree."""
        return self._typed("tree", _rec(path=path, max_depth=max_depth,
                                        max_files_per_folder=max_files_per_folder, exclude=exclude))

    def tree_nodes(self, *, path: Optional[str] = None, max_depth: Optional[int] = None,
                   max_files_per_folder: Optional[int] = None, exclude: Optional[list] = None) -> Record:
        """The same tree as data: the ``tree-result`` (``nodes`` with child ranges)."""
        return self._typed("tree-nodes", _rec(path=path, max_depth=max_depth,
                                              max_files_per_folder=max_files_per_folder, exclude=exclude))

    def tool_specs(self) -> list:
        return json.loads(self._call(self._f("[method]session.tool-specs"), self.handle))

    def load_config(self, files: list, variables: Optional[dict] = None) -> Record:
        """Loads ``[{"name", "text"}]``; raises :class:`ConfigErrors` with every located error.

        ``variables``: values of ``${NAME}`` in names, descriptions, titles and toolset
        members (what agents see; the component substitutes them). Pass only what agents
        may see, never the whole environment; sources are resolved here, outside."""
        wit = [_rec(name=f["name"], text=f["text"]) for f in files]
        wvars = [_rec(name=k, value=str(v)) for k, v in (variables or {}).items()]
        checked = self._call(self._t("check-config"), wit, wvars)
        if isinstance(checked, list):
            raise ConfigErrors([e.rendered for e in checked])
        self.sources = self.tools.resolve_sources(checked)
        report = self._call(self._t("load-config"), self.handle, wit, wvars)
        if isinstance(report, list):
            raise ConfigErrors([e.rendered for e in report])
        return report

    def list_tools(self, toolset: Optional[str] = None) -> list:
        return json.loads(self._ok(self._call(self._t("list-tools"), self.handle, toolset)))

    def select_toolset(self, toolset: Optional[str]) -> None:
        self._ok(self._call(self._t("select-toolset"), self.handle, toolset))

    def tools_version(self) -> int:
        return self._call(self._t("tools-version"), self.handle)

    def system_prompt(self, max_depth: Optional[int] = None, max_files_per_folder: Optional[int] = None,
                      skill_category: Optional[str] = None, skill_tag: Optional[str] = None) -> str:
        # Only the skills whose descriptor has this category and/or tag, when given.
        skills = None
        if skill_category is not None or skill_tag is not None:
            skills = _rec(category=skill_category, tag=skill_tag)
        return self._ok(self._call(self._t("system-prompt"), self.handle, max_depth, max_files_per_folder, skills))

    def set_offload_tokens(self, tokens: int) -> None:
        self._call(self._t("set-offload-tokens"), self.handle, tokens)

    def execute(self, args: dict, on_output: Optional[Callable[[str, bytes], None]] = None) -> dict:
        """Runs ``filestore_execute`` with ``args`` (as :meth:`call`), passing its output
        to ``on_output(stream, data)`` while it runs: ``stream`` is ``"stdout"`` or
        ``"stderr"``, ``data`` at most 4096 bytes (it may end inside a UTF-8
        character), in the order printed. The result is exactly what ``call`` returns."""
        saved, self.on_output = self.on_output, on_output
        try:
            return self.call("filestore_execute", args)
        finally:
            self.on_output = saved

    def enable_shell(self, enabled: bool = True) -> None:
        """Offers (or withdraws) `filestore_execute`, the shell over the mounts."""
        self._call(self._t("enable-shell"), self.handle, enabled)

    def invoke(self, name: str, args: Optional[dict] = None, tool_call_id: Optional[str] = None,
               claims: Any = None) -> dict:
        ctx = _rec(tool_call_id=tool_call_id, claims="{}" if claims is None else json.dumps(claims))
        out = self._ok(self._call(self._t("invoke"), self.handle, name, json.dumps(args or {}), ctx))
        return _outcome(out)

    def approve(self, approval_id: str) -> dict:
        return _outcome(self._ok(self._call(self._t("approve"), self.handle, approval_id)))

    def reject(self, approval_id: str) -> None:
        self._ok(self._call(self._t("reject"), self.handle, approval_id))

    def close(self) -> None:
        """Drops the component's session and the store."""
        if getattr(self, "handle", None) is not None and self.poisoned is None:
            try:
                self.handle.drop(self.store)
            except WasmtimeError:
                pass
        self.handle = None
        self.volumes.clear()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _outcome(o: Record) -> dict:
    err = o.error
    return {
        "status": o.status,
        "envelope": json.loads(o.envelope),
        "text": o.text,
        "error": None if err is None else {"kind": err.tag, "message": err.payload},
        "approval_id": _get(o, "approval_id"),
        "result_path": _get(o, "result_path"),
        "offloaded": o.offloaded,
    }


def results_mount() -> dict:
    """The tool-results mount: in memory, read-only."""
    return {"point": RESULTS_MOUNT, "volume": MemoryVolume(), "read_only": True}
