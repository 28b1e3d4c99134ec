"""Shared fixtures: backends over temporary roots, and the real `filestore` binary.

Backends run in process on the installed wheel's native extension (the Rust
integration test `python_package` builds the wheel and installs it). `McpSession`'s
tests use the binary `$FILESTORE_BIN`, else `filestore` on PATH (`python_package`
sets `FILESTORE_BIN` to the binary cargo just built). Nothing here mocks filestore.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from filestore import find_binary


@pytest.fixture(scope="session")
def binary() -> str:
    """The filestore executable the tests run (fails with the lookup's message if none)."""
    return find_binary()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An empty directory served as `/`, beside (not inside) an `outside` directory."""
    r = tmp_path / "root"
    r.mkdir()
    return r


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the root holding a secret the backend must never reach."""
    o = tmp_path / "outside"
    o.mkdir()
    (o / "secret.txt").write_text("top secret\n")
    return o


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The directory mounted at /w."""
    w = tmp_path / "w"
    w.mkdir()
    return w


@pytest.fixture
def cwd(tmp_path: Path) -> Path:
    """An empty working directory for a session (its default /workspace), apart from
    /w: the product refuses a read-only mount inside a writable one."""
    c = tmp_path / "cwd"
    c.mkdir()
    return c


@pytest.fixture
def backend(root: Path) -> Iterator[Any]:
    """A read-write FilestoreBackend serving `root`, in process."""
    from filestore.deepagents import FilestoreBackend

    be = FilestoreBackend(root)
    try:
        yield be
    finally:
        be.close()


@pytest.fixture(params=["sync", "async"])
def op(request: pytest.FixtureRequest, backend: Any) -> Callable[..., Any]:
    """Call a backend method by its sync name, through the sync method or its `a*` twin.

    Parametrised, so each test using it runs once per flavour of the protocol.
    """
    if request.param == "sync":
        return lambda name, *args, **kwargs: getattr(backend, name)(*args, **kwargs)

    def run_async(name: str, *args: Any, **kwargs: Any) -> Any:
        return asyncio.run(getattr(backend, "a" + name)(*args, **kwargs))

    return run_async
