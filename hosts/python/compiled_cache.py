"""The compiled component, kept on disk between processes.

Compiling the component (about 23 MB of WebAssembly) with Cranelift takes seconds to
tens of seconds; loading wasmtime's serialized artifact of it takes a fraction of a
second. :func:`load` does the one or the other and writes what it compiled.

An artifact is only valid for the same component, the same wasmtime build and a
compatible engine configuration, so its file name hashes all three (and the CPU
architecture). wasmtime checks the build and the configuration again itself when it
deserializes; a file it refuses (or a corrupt one) is compiled over and rewritten.

A deserialized artifact is native code that runs unchecked, so a file is only read
when the current user owns it, it is a regular file (not a symlink), has one link
and neither group nor others can write it. Anything else is ignored (with a
warning) and compiled over. Platforms without POSIX file owners (Windows) have no
cache: nothing is read or written there.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import stat
import tempfile
import warnings
from importlib import metadata
from typing import Optional, Tuple

from wasmtime import Engine, WasmtimeError
from wasmtime.component import Component

#: Changes whenever what a file name hashes changes.
FORMAT = 1
#: Whether this platform can tell who owns a file, which reading an artifact needs.
SUPPORTED = hasattr(os, "getuid")


def default_dir() -> str:
    """``$XDG_CACHE_HOME/filestore/python-host`` (``~/.cache`` when unset or relative)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "filestore", "python-host")


def _wasmtime_version() -> str:
    try:
        return metadata.version("wasmtime")
    except metadata.PackageNotFoundError:
        # Not installed as a distribution: wasmtime's own check on deserialize
        # still refuses an artifact of another build.
        return "unknown"


def file_name(wasm: bytes, engine_settings: dict) -> str:
    """The artifact's file name: a hash of the component, the wasmtime-py version,
    the engine settings and the CPU architecture."""
    key = {
        "format": FORMAT,
        "component_sha256": hashlib.sha256(wasm).hexdigest(),
        "wasmtime": _wasmtime_version(),
        "engine": engine_settings,
        "machine": platform.machine(),
    }
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode("utf-8")).hexdigest()
    return f"component-{digest}.cwasm"


def load(engine: Engine, wasm: bytes, engine_settings: dict,
         directory: Optional[str]) -> Tuple[Component, bool, Optional[str]]:
    """The component for ``engine``: ``(component, loaded_from_cache, artifact_path)``.

    ``directory`` None means no cache (compile only). ``engine_settings`` must be
    what ``engine`` was configured with."""
    if directory is None or not SUPPORTED:
        return Component(engine, wasm), False, None
    path = os.path.join(directory, file_name(wasm, engine_settings))
    artifact = _read_trusted(path)
    if artifact is not None:
        try:
            return Component.deserialize(engine, artifact), True, path
        except WasmtimeError:
            pass  # corrupt, or of another wasmtime build or configuration: compile over it
    component = Component(engine, wasm)
    _write_atomically(directory, path, bytes(component.serialize()))
    return component, False, path


def trusted(st: os.stat_result) -> bool:
    """Whether a file with this status may be loaded as native code: a regular file
    with one link, owned by the current user, that neither group nor others can write."""
    return (stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and st.st_nlink == 1
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _read_trusted(path: str) -> Optional[bytes]:
    """The file's bytes if :func:`trusted` (checked on the open file, so it cannot be
    swapped between check and read), else None."""
    # O_NOFOLLOW: a symlink fails to open; O_NONBLOCK: a FIFO does not block the open.
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as e:
        warnings.warn(f"filestore: not loading the cached component {path}: {e}; compiling it",
                      RuntimeWarning, stacklevel=4)
        return None
    with os.fdopen(fd, "rb") as f:
        if not trusted(os.fstat(f.fileno())):
            warnings.warn(f"filestore: not loading the cached component {path}: it is not a regular file "
                          "of yours that only you can write; compiling it", RuntimeWarning, stacklevel=4)
            return None
        return f.read()


def _write_atomically(directory: str, path: str, artifact: bytes) -> None:
    """Writes ``artifact`` to ``path`` through a temporary file renamed over it, so a
    concurrent reader sees the old file or the whole new one. A failure only warns:
    the component is compiled and works, it is just compiled again next time."""
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".component-", suffix=".tmp")  # mode 0600
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(artifact)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    except OSError as e:
        warnings.warn(f"filestore: could not cache the compiled component in {directory}: {e}",
                      RuntimeWarning, stacklevel=4)
