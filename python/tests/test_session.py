"""`filestore.McpSession`: one persistent `filestore serve` process over MCP stdio, or a
remote `filestore serve --http` (`McpSession.connect`)."""

from __future__ import annotations

import asyncio
import gc
import os
import re
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import filestore.session
from filestore import (
    BinaryNotFoundError,
    ErrorKind,
    FilestoreError,
    McpSession,
    SessionClosedError,
    SessionStartError,
    find_binary,
)


def test_call_returns_structured_content_and_writes_through(work: Path, cwd: Path, binary: str) -> None:
    with McpSession([f"/w={work}"], binary=binary, cwd=cwd) as s:
        out = s.call("filestore_write", {"path": "/w/hello.txt", "content": "hi\n"})
        assert out["entry"]["path"] == "/w/hello.txt"
        assert (work / "hello.txt").read_text() == "hi\n"
        read = s.call("filestore_read", {"path": "/w/hello.txt", "raw": True})
        assert read["text"] == "hi\n"
        assert "filestore_write" in {t["name"] for t in s.tools}
        assert s.server_info["name"] == "filestore"


def test_errors_carry_the_typed_kind(work: Path, cwd: Path, binary: str) -> None:
    with McpSession([f"/w={work}"], binary=binary, cwd=cwd) as s:
        with pytest.raises(FilestoreError) as info:
            s.call("filestore_read", {"path": "/w/missing.txt"})
        err = info.value
        assert err.kind == "not-found"
        assert err.kind is ErrorKind.NOT_FOUND
        assert "/w/missing.txt" in err.message
        assert err.tool == "filestore_read"
        assert str(err) == f"error[not-found]: {err.message}"
        with pytest.raises(FilestoreError) as info:
            s.call("filestore_read", {"path": "/w/../../etc/passwd"})
        assert info.value.kind == "invalid-path"


def test_one_process_keeps_its_sandbox_between_calls(work: Path, cwd: Path, binary: str) -> None:
    """In-memory volumes live as long as the session: /scratch survives between calls."""
    with McpSession([f"/w={work}:ro"], binary=binary, cwd=cwd) as s:
        s.call("filestore_write", {"path": "/scratch/note.md", "content": "kept"})
        assert s.call("filestore_read", {"path": "/scratch/note.md", "raw": True})["text"] == "kept"
        with pytest.raises(FilestoreError) as info:
            s.call("filestore_write", {"path": "/w/x.txt", "content": "no"})
        assert info.value.kind == "read-only"


async def test_acall_from_asyncio_runs_calls_concurrently(work: Path, cwd: Path, binary: str) -> None:
    for i in range(8):
        (work / f"f{i}.txt").write_text(f"file {i}\n")
    async with McpSession([f"/w={work}"], binary=binary, cwd=cwd) as s:
        reads = await asyncio.gather(*(s.acall("filestore_read", {"path": f"/w/f{i}.txt", "raw": True}) for i in range(8)))
        assert [r["text"] for r in reads] == [f"file {i}\n" for i in range(8)]
        with pytest.raises(FilestoreError) as info:
            await s.acall("filestore_ls", {"path": "/w/nope"})
        assert info.value.kind == "not-found"


def test_close_is_idempotent_and_later_calls_fail(work: Path, cwd: Path, binary: str) -> None:
    s = McpSession([f"/w={work}"], binary=binary, cwd=cwd)
    assert not s.closed
    s.close()
    s.close()
    assert s.closed
    with pytest.raises(SessionClosedError) as info:
        s.call("filestore_ls", {"path": "/w"})
    assert info.value.kind == "session-closed"


def test_a_dropped_session_is_closed_by_its_finaliser(work: Path, cwd: Path, binary: str) -> None:
    s = McpSession([f"/w={work}"], binary=binary, cwd=cwd)
    runner = s._runner
    assert runner.thread.is_alive()
    del s
    gc.collect()
    assert not runner.thread.is_alive()
    assert runner.client is None
    assert runner.loop.is_closed()


def test_a_message_over_the_stdio_cap_is_a_typed_error_and_the_session_goes_on(work: Path, cwd: Path, binary: str) -> None:
    with McpSession([f"/w={work}"], binary=binary, cwd=cwd) as s:
        with pytest.raises(FilestoreError) as info:
            s.call("filestore_write", {"path": "/w/big.txt", "content": "x" * (17 * 1024 * 1024)})
        assert info.value.kind == "too-large"
        assert not (work / "big.txt").exists()
        s.call("filestore_write", {"path": "/w/small.txt", "content": "ok"})
        assert (work / "small.txt").read_text() == "ok"


def test_binary_lookup_names_all_three_places(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("FILESTORE_BIN", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(BinaryNotFoundError) as info:
        find_binary()
    msg = info.value.message
    assert "binary=" in msg and "$FILESTORE_BIN" in msg and "PATH" in msg
    assert info.value.kind == "binary-not-found"
    with pytest.raises(BinaryNotFoundError, match="not an executable"):
        McpSession(binary=tmp_path / "no-such-filestore")
    monkeypatch.setenv("FILESTORE_BIN", str(tmp_path / "missing"))
    with pytest.raises(BinaryNotFoundError, match=r"\$FILESTORE_BIN"):
        McpSession()


def test_binary_from_env_and_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, binary: str) -> None:
    monkeypatch.setenv("FILESTORE_BIN", binary)
    assert find_binary() == os.path.abspath(binary)
    monkeypatch.delenv("FILESTORE_BIN")
    link = tmp_path / "filestore"
    link.symlink_to(binary)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_binary() == str(link)


def test_a_server_that_cannot_start_reports_its_stderr(work: Path, cwd: Path, binary: str) -> None:
    with pytest.raises(SessionStartError) as info:
        McpSession(["/w=" + str(work / "does-not-exist")], binary=binary, cwd=cwd)
    assert info.value.kind == "session-start"
    assert "server stderr" in info.value.message


def test_a_frozen_server_times_out_instead_of_hanging(
    work: Path, cwd: Path, binary: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call to a server that stopped answering (SIGSTOP) raises `TimeoutError` after
    the default call timeout, with no `timeout` given anywhere, instead of hanging its
    caller forever; once the server goes on, so does the session."""
    monkeypatch.setattr(filestore.session, "DEFAULT_CALL_TIMEOUT", 2.0)
    pidfile = tmp_path / "server.pid"
    wrapper = tmp_path / "filestore-wrapper"
    wrapper.write_text(f'#!/bin/sh\necho $$ > "{pidfile}"\nexec "{binary}" "$@"\n')
    wrapper.chmod(0o755)
    with McpSession([f"/w={work}"], binary=wrapper, cwd=cwd) as s:
        pid = int(pidfile.read_text())
        outcome: list[BaseException | dict] = []

        def call() -> None:
            try:
                outcome.append(s.call("filestore_ls", {"path": "/w"}))
            except BaseException as e:  # noqa: BLE001 - recorded for the assertion
                outcome.append(e)

        os.kill(pid, signal.SIGSTOP)
        try:
            _wait_until_stopped(pid)
            caller = threading.Thread(target=call, daemon=True)
            caller.start()
            caller.join(60)  # a bound on a hang, not a timing check
            assert not caller.is_alive(), "the call to a frozen server never returned"
        finally:
            os.kill(pid, signal.SIGCONT)
        assert len(outcome) == 1 and isinstance(outcome[0], TimeoutError), outcome
        assert "2 s" in str(outcome[0])
        assert s.call("filestore_ls", {"path": "/w"}, timeout=60)["entries"] == []


def _wait_until_stopped(pid: int) -> None:
    """Waits until every thread of `pid` is stopped (SIGSTOP takes effect per thread,
    as each next enters the kernel): a call made before that may still be answered."""
    tasks = Path(f"/proc/{pid}/task")
    for _ in range(400):
        states = []
        for task in tasks.iterdir():
            try:
                stat = (task / "stat").read_text()
            except FileNotFoundError:  # a thread that just ended
                continue
            states.append(stat.rsplit(")", 1)[1].split()[0])
        if states and all(state in "Tt" for state in states):
            return
        threading.Event().wait(0.05)
    pytest.fail(f"process {pid} did not stop within 20 s of SIGSTOP (thread states {states})")


@pytest.fixture
def http_server(work: Path, cwd: Path, binary: str, tmp_path: Path) -> Iterator[str]:
    """A `filestore serve --http` on a free loopback port with a state store; its /mcp URL."""
    state = tmp_path / "state"
    state.mkdir()
    proc = subprocess.Popen(
        [binary, "serve", "--http", "127.0.0.1:0", "--mount", f"/w={work}", "--state", str(state)],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    said = []
    assert proc.stderr is not None
    for line in proc.stderr:
        said.append(line)
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if found:
            port = int(found.group(1))
            break
    else:
        proc.wait()
        pytest.fail("serve --http ended before printing its address:\n" + "".join(said))
    threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep its pipe drained
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_connect_talks_to_a_remote_serve_and_resumes_its_conversation(work: Path, http_server: str) -> None:
    """`McpSession.connect` reaches a running `serve --http`: same calls and typed errors
    as over stdio; with `conversation=`, a second connection finds the first one's
    /scratch (the server keeps it in its --state store)."""
    with McpSession.connect(http_server, conversation="py-remote-1") as s:
        assert s.server_info["name"] == "filestore"
        s.call("filestore_write", {"path": "/w/remote.txt", "content": "over http\n"})
        assert (work / "remote.txt").read_text() == "over http\n"
        s.call("filestore_write", {"path": "/scratch/plan.md", "content": "step 1"})
        with pytest.raises(FilestoreError) as info:
            s.call("filestore_read", {"path": "/w/missing.txt"})
        assert info.value.kind == "not-found"
        assert "/w/missing.txt" in info.value.message
    with McpSession.connect(http_server, conversation="py-remote-1") as again:
        assert again.call("filestore_read", {"path": "/scratch/plan.md", "raw": True})["text"] == "step 1"
    with McpSession.connect(http_server, conversation="py-remote-2") as other:
        with pytest.raises(FilestoreError) as info:
            other.call("filestore_read", {"path": "/scratch/plan.md"})
        assert info.value.kind == "not-found"


def test_connect_to_nothing_is_a_start_error_naming_the_url(tmp_path: Path) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/mcp"
    with pytest.raises(SessionStartError) as info:
        McpSession.connect(url, start_timeout=20)
    assert url in info.value.message
