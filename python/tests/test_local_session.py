"""`filestore.Session`: the sandbox in this process (the wheel's native extension),
and the `filestore` command the wheel installs."""

from __future__ import annotations

import asyncio
import gc
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import filestore
from filestore import FilestoreError, Session, SessionClosedError, SessionStartError


def test_the_session_is_the_native_one() -> None:
    from filestore import _native

    assert filestore.Session is Session
    assert Session.__module__ == "filestore.local"
    assert _native.__file__ and _native.__file__.endswith(".so")


def test_call_returns_structured_content_and_writes_through(work: Path, cwd: Path) -> None:
    with Session([f"/w={work}"], cwd=cwd) as s:
        out = s.call("filestore_write", {"path": "/w/hello.txt", "content": "hi\n"})
        assert out["entry"]["path"] == "/w/hello.txt"
        assert (work / "hello.txt").read_text() == "hi\n"
        assert s.call("filestore_read", {"path": "/w/hello.txt", "raw": True})["text"] == "hi\n"
        assert "filestore_write" in {t["name"] for t in s.tools}
        assert s.server_info["name"] == "filestore"


def test_errors_carry_the_typed_kind(work: Path, cwd: Path) -> None:
    with Session([f"/w={work}"], cwd=cwd) as s:
        with pytest.raises(FilestoreError) as info:
            s.call("filestore_read", {"path": "/w/missing.txt"})
        err = info.value
        assert (err.kind, err.tool) == ("not-found", "filestore_read")
        assert err.kind is filestore.ErrorKind.NOT_FOUND
        assert "/w/missing.txt" in err.message
        assert str(err) == f"error[not-found]: {err.message}"
        with pytest.raises(FilestoreError) as info:
            s.call("filestore_read", {"path": "/w/../../etc/passwd"})
        assert info.value.kind == "invalid-path"


def test_serve_defaults_and_read_only_mounts(work: Path, cwd: Path) -> None:
    """The cwd is the read-only /workspace and /scratch lives as long as the session,
    as with `serve`."""
    (cwd / "here.txt").write_text("cwd\n")
    with Session([f"/w={work}:ro"], cwd=cwd) as s:
        assert s.call("filestore_read", {"path": "/workspace/here.txt", "raw": True})["text"] == "cwd\n"
        s.call("filestore_write", {"path": "/scratch/note.md", "content": "kept"})
        assert s.call("filestore_read", {"path": "/scratch/note.md", "raw": True})["text"] == "kept"
        for path in ("/w/x.txt", "/workspace/x.txt"):
            with pytest.raises(FilestoreError) as info:
                s.call("filestore_write", {"path": path, "content": "no"})
            assert info.value.kind == "read-only"


def test_links_out_of_a_mount_are_refused(work: Path, cwd: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("top secret\n")
    (work / "link").symlink_to(tmp_path / "secret.txt")
    with Session([f"/w={work}"], cwd=cwd) as s, pytest.raises(FilestoreError) as info:
        s.call("filestore_read", {"path": "/w/link"})
    assert "top secret" not in info.value.message


async def test_acall_runs_calls_concurrently(work: Path, cwd: Path) -> None:
    for i in range(8):
        (work / f"f{i}.txt").write_text(f"file {i}\n")
    async with Session([f"/w={work}"], cwd=cwd) as s:
        reads = await asyncio.gather(*(s.acall("filestore_read", {"path": f"/w/f{i}.txt", "raw": True}) for i in range(8)))
        assert [r["text"] for r in reads] == [f"file {i}\n" for i in range(8)]
        with pytest.raises(FilestoreError) as info:
            await s.acall("filestore_ls", {"path": "/w/nope"})
        assert info.value.kind == "not-found"


def test_a_call_releases_the_gil_and_a_timeout_cancels_it(work: Path, cwd: Path) -> None:
    """A call that runs past its `timeout` raises `TimeoutError`; while it runs,
    other Python threads run (the GIL is released); the next call gets a fresh
    sandbox over the same volumes."""
    with Session([f"/w={work}"], args=["--shell"], cwd=cwd) as s:
        s.call("filestore_write", {"path": "/scratch/kept.txt", "content": "kept"})
        ticks = 0
        stop = threading.Event()

        def count() -> None:
            nonlocal ticks
            while not stop.is_set():
                ticks += 1
                time.sleep(0.001)

        counter = threading.Thread(target=count)
        counter.start()
        started = time.monotonic()
        try:
            with pytest.raises(TimeoutError):
                s.call("filestore_execute", {"command": "sleep 5"}, timeout=1.0)
        finally:
            stop.set()
            counter.join()
        assert 0.9 <= time.monotonic() - started < 10
        assert ticks > 100, f"the counting thread ran {ticks} times during a 1 s call: the GIL was held"
        assert s.call("filestore_read", {"path": "/scratch/kept.txt", "raw": True})["text"] == "kept"


def test_close_is_idempotent_and_later_calls_fail(work: Path, cwd: Path) -> None:
    s = Session([f"/w={work}"], cwd=cwd)
    assert not s.closed
    s.close()
    s.close()
    assert s.closed
    with pytest.raises(SessionClosedError) as info:
        s.call("filestore_ls", {"path": "/w"})
    assert info.value.kind == "session-closed"
    del s
    gc.collect()


def test_a_mount_that_cannot_open_and_a_flag_it_does_not_take(work: Path, cwd: Path) -> None:
    with pytest.raises(SessionStartError) as info:
        Session([f"/w={work / 'does-not-exist'}"], cwd=cwd)
    assert info.value.kind == "session-start"
    assert "does-not-exist" in info.value.message
    with pytest.raises(ValueError, match="--state"):
        Session([f"/w={work}"], args=["--state", "mem:"], cwd=cwd)


def _wheel_command() -> str:
    """The `filestore` command the wheel installed beside this interpreter."""
    path = Path(sys.executable).parent / "filestore"
    assert path.exists(), f"the wheel installs a filestore command; {path} is missing"
    return str(path)


def test_the_wheel_installs_the_filestore_command(work: Path) -> None:
    from filestore import _native

    out = subprocess.run([_wheel_command(), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout == f"filestore {_native.version()}\n"
    assert f"wit: {_native.WIT_PACKAGE}" in out.stdout and "component: filestore-guest" in out.stdout
    (work / "a.txt").write_text("fn main\n")
    out = subprocess.run(
        [_wheel_command(), "call", "filestore_grep", '{"pattern":"fn main","path":"/w"}', "--mount", f"/w={work}:ro"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert '"/w/a.txt"' in out.stdout
    bad = subprocess.run([_wheel_command(), "call", "filestore_read", '{"path":"/w/nope"}', "--mount", f"/w={work}"], capture_output=True, text=True)
    assert bad.returncode == 1 and "error[not-found]" in bad.stderr


def test_the_wheel_command_serves_mcp(work: Path, cwd: Path) -> None:
    """`filestore serve` from the wheel, spoken to by `McpSession`."""
    (work / "x.txt").write_text("over mcp\n")
    with filestore.McpSession([f"/w={work}"], binary=_wheel_command(), cwd=cwd, env=dict(os.environ)) as s:
        assert s.call("filestore_read", {"path": "/w/x.txt", "raw": True})["text"] == "over mcp\n"


def test_the_in_process_session_and_the_command_do_not_load_the_mcp_sdk(tmp_path: Path) -> None:
    """`import filestore`, an in-process `Session` and the wheel's `filestore` command
    leave the MCP SDK (most of a second to import) unloaded; `McpSession` loads it."""
    script = (
        "import sys, filestore\n"
        f"with filestore.Session(['/w={tmp_path}']) as s:\n"
        "    s.call('filestore_write', {'path': '/w/a.txt', 'content': 'x'})\n"
        "assert 'mcp' not in sys.modules, 'the in-process session imported mcp'\n"
        "from filestore import cli\n"
        "assert 'mcp' not in sys.modules, 'the command imported mcp'\n"
        "filestore.McpSession\n"
        "assert 'mcp' in sys.modules\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout == "ok\n", out.stderr
