"""`FilestoreBackend`: every `BackendProtocol` method, sync and async (the `op`
fixture runs each test through both), against a real directory served by a real
`filestore serve`."""

from __future__ import annotations

import asyncio
import base64
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from deepagents.backends.protocol import BackendProtocol, ReadResult
from deepagents.backends.utils import EMPTY_CONTENT_WARNING

from filestore.deepagents import FilestoreBackend

Op = Callable[..., Any]


def test_is_a_backend_protocol(backend: FilestoreBackend) -> None:
    assert isinstance(backend, BackendProtocol)
    for name in ("ls", "read", "write", "edit", "delete", "grep", "glob", "upload_files", "download_files"):
        assert getattr(type(backend), name) is not getattr(BackendProtocol, name), name
        assert getattr(type(backend), "a" + name) is not getattr(BackendProtocol, "a" + name), name


# -- ls ------------------------------------------------------------------------------


def test_ls_lists_direct_children(op: Op, root: Path) -> None:
    (root / "a.txt").write_text("hello")
    (root / "dir").mkdir()
    (root / "dir" / "b.md").write_text("nested")
    (root / ".env").write_text("X=1")
    r = op("ls", "/")
    assert r.error is None
    by_path = {e["path"]: e for e in r.entries}
    assert set(by_path) == {"/a.txt", "/dir/", "/.env"}
    assert by_path["/a.txt"] | {"modified_at": None} == {"path": "/a.txt", "is_dir": False, "size": 5, "modified_at": None}
    assert by_path["/dir/"]["is_dir"] is True
    assert [e["path"] for e in r.entries] == sorted(by_path)
    assert [e["path"] for e in op("ls", "/dir").entries] == ["/dir/b.md"]
    assert op("ls", "/missing/").error == "Path '/missing/': path_not_found"
    assert op("ls", "/a.txt").error == "Path '/a.txt': not_a_directory"
    (root / "empty").mkdir()
    assert op("ls", "/empty").entries == []


# -- read ----------------------------------------------------------------------------


def test_read_windows_and_pagination(op: Op, root: Path) -> None:
    (root / "five.txt").write_text("one\ntwo\nthree\nfour\nfive\n")
    r = op("read", "/five.txt")
    assert r.error is None
    assert r.file_data == {"content": "one\ntwo\nthree\nfour\nfive\n", "encoding": "utf-8"}
    assert (r.total_lines, r.start_line, r.end_line, r.next_offset) == (5, 1, 5, None)
    r = op("read", "/five.txt", offset=1, limit=2)
    assert r.file_data["content"] == "two\nthree\n"
    assert (r.total_lines, r.start_line, r.end_line, r.next_offset) == (5, 2, 3, 3)
    r = op("read", "/five.txt", offset=-4, limit=1)
    assert (r.file_data["content"], r.start_line) == ("one\n", 1)
    r = op("read", "/five.txt", offset=0, limit=0)
    assert r.no_lines_requested and r.file_data["content"] == ""
    assert op("read", "/five.txt", offset=99).error == "Line offset 99 exceeds file length (5 lines)"


def test_read_keeps_the_last_line_as_stored(op: Op, root: Path) -> None:
    (root / "no-eol.txt").write_text("a\nb")
    (root / "crlf.txt").write_bytes(b"a\r\nb\r\n")
    assert op("read", "/no-eol.txt").file_data["content"] == "a\nb"
    assert op("read", "/crlf.txt").file_data["content"] == "a\nb\n"


def test_read_empty_and_blank_files_give_the_reminder(op: Op, root: Path) -> None:
    (root / "empty.txt").write_text("")
    (root / "blank.txt").write_text("  \n\n")
    for name in ("/empty.txt", "/blank.txt"):
        r = op("read", name)
        assert r.file_data["content"] == EMPTY_CONTENT_WARNING, name
        assert r.start_line is None


def test_read_errors(op: Op, root: Path) -> None:
    (root / "dir").mkdir()
    assert op("read", "/missing.txt").error == "File '/missing.txt' not found"
    assert op("read", "/dir").error == "File '/dir' not found"
    (root / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    assert "binary" in op("read", "/blob.bin").error


def test_read_media_is_base64_of_the_whole_file(op: Op, root: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + os.urandom(3000)
    (root / "pic.png").write_bytes(png)
    r = op("read", "/pic.png")
    assert r.file_data["encoding"] == "base64"
    assert base64.b64decode(r.file_data["content"]) == png
    assert op("read", "/none.png").error == "File '/none.png' not found"


# -- write, edit, delete -------------------------------------------------------------


def test_write_creates_parents_and_overwrites(op: Op, root: Path) -> None:
    r = op("write", "/a/b/c.txt", "first\n")
    assert (r.error, r.path) == (None, "/a/b/c.txt")
    assert (root / "a" / "b" / "c.txt").read_text() == "first\n"
    assert op("write", "/a/b/c.txt", "second").error is None
    assert (root / "a" / "b" / "c.txt").read_text() == "second"
    assert op("write", "relative.txt", "r").error is None
    assert (root / "relative.txt").read_text() == "r"
    err = op("write", "/a", "into a directory").error
    assert err.startswith("Error writing file '/a': ")


def test_edit_replaces_and_reports(op: Op, root: Path) -> None:
    (root / "e.txt").write_text("alpha beta alpha\nno newline at end")
    r = op("edit", "/e.txt", "beta", "BETA")
    assert (r.error, r.path, r.occurrences) == (None, "/e.txt", 1)
    assert op("edit", "/e.txt", "alpha", "x").error.startswith("Error: String 'alpha' appears 2 times in file.")
    r = op("edit", "/e.txt", "alpha", "x", replace_all=True)
    assert (r.error, r.occurrences) == (None, 2)
    assert (root / "e.txt").read_text() == "x BETA x\nno newline at end"
    assert op("edit", "/e.txt", "zeta", "z").error == "Error: String not found in file: 'zeta'"
    assert "old_string ends with a newline" in op("edit", "/e.txt", "at end\n", "x").error
    assert op("edit", "/missing.txt", "a", "b").error == "Error: File '/missing.txt' not found"


def test_delete_files_and_directories(op: Op, root: Path) -> None:
    (root / "d" / "e").mkdir(parents=True)
    (root / "d" / "e" / "f.txt").write_text("x")
    (root / "g.txt").write_text("x")
    assert op("delete", "/g.txt").path == "/g.txt"
    assert not (root / "g.txt").exists()
    assert op("delete", "/d").error is None
    assert not (root / "d").exists()
    assert op("delete", "/d").error == "Error: '/d' not found"


# -- grep, glob ----------------------------------------------------------------------


def test_grep_is_literal_with_glob_cap_and_context(op: Op, root: Path) -> None:
    (root / "a.py").write_text("x = f(1)\nhello\ny = f(2)\n")
    (root / "sub").mkdir()
    (root / "sub" / "b.py").write_text("z = f(3)\n")
    (root / "c.txt").write_text("f(4) in text\n")
    r = op("grep", "f(")
    assert r.error is None and not r.truncated
    got = {(m["path"], m["line"], m["text"]) for m in r.matches}
    assert got == {
        ("/a.py", 1, "x = f(1)"),
        ("/a.py", 3, "y = f(2)"),
        ("/sub/b.py", 1, "z = f(3)"),
        ("/c.txt", 1, "f(4) in text"),
    }
    assert {m["path"] for m in op("grep", "f(", glob="*.py").matches} == {"/a.py", "/sub/b.py"}
    assert {m["path"] for m in op("grep", "f(", path="/sub").matches} == {"/sub/b.py"}
    assert [m["line"] for m in op("grep", "f(", path="/a.py").matches] == [1, 3]
    capped = op("grep", "f(", max_count=2)
    assert len(capped.matches) == 2 and capped.truncated
    exact = op("grep", "f(", max_count=4)
    assert len(exact.matches) == 4 and not exact.truncated
    ctx = op("grep", "hello", context_lines=1).matches
    assert ctx == [
        {
            "path": "/a.py",
            "line": 2,
            "text": "hello",
            "context_before": [{"line": 1, "text": "x = f(1)"}],
            "context_after": [{"line": 3, "text": "y = f(2)"}],
        }
    ]
    assert op("grep", "[", path="/").matches == []
    assert op("grep", "f(", path="/missing").matches == []


def test_grep_rejects_negative_context(backend: FilestoreBackend) -> None:
    with pytest.raises(ValueError, match="context_lines must be non-negative"):
        backend.grep("x", context_lines=-1)
    with pytest.raises(ValueError, match="context_lines must be non-negative"):
        asyncio.run(backend.agrep("x", context_lines=-1))


def test_glob_follows_the_shared_contract(op: Op, root: Path) -> None:
    for rel in ("top.py", "src/app/main.py", "src/readme.md", ".hidden.py", ".github/workflows/ci.yml"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    paths = lambda pattern, path=None: [m["path"] for m in op("glob", pattern, path).matches]  # noqa: E731
    assert paths("*.py") == ["/src/app/main.py", "/top.py"]
    assert paths("/*.py") == ["/top.py"]
    assert paths("src/**/*.py") == ["/src/app/main.py"]
    assert paths("*.md", "/src") == ["/src/readme.md"]
    assert paths(".*.py") == ["/.hidden.py"]
    assert paths(".github/**/*.yml") == ["/.github/workflows/ci.yml"]
    assert paths("*", "/src") == ["/src/app/main.py", "/src/readme.md"]  # files only: no /src/app/
    info = op("glob", "top.py").matches[0]
    assert (info["is_dir"], info["size"]) == (False, 1)
    assert op("glob", "*.py", "/missing").matches == []


# -- bytes ---------------------------------------------------------------------------


def test_binary_round_trip_of_five_megabytes(op: Op, root: Path) -> None:
    blob = os.urandom(5 * 1024 * 1024 + 3)
    up = op("upload_files", [("/bin/blob.bin", blob), ("/small.bin", b"\x00\xff")])
    assert [u.error for u in up] == [None, None]
    assert (root / "bin" / "blob.bin").read_bytes() == blob
    down = op("download_files", ["/bin/blob.bin", "/small.bin"])
    assert [d.error for d in down] == [None, None]
    assert down[0].content == blob
    assert down[1].content == b"\x00\xff"
    (root / "empty.bin").write_bytes(b"")
    assert op("download_files", ["/empty.bin"])[0].content == b""


def test_upload_and_download_errors_are_codes(op: Op, root: Path) -> None:
    (root / "dir").mkdir()
    (root / "file.txt").write_text("x")
    up = op("upload_files", [("/ok.txt", b"1"), ("/../escape.txt", b"2"), ("/dir", b"3"), ("/file.txt/child", b"4")])
    assert [u.path for u in up] == ["/ok.txt", "/../escape.txt", "/dir", "/file.txt/child"]
    assert [u.error for u in up] == [None, "invalid_path", "is_directory", "invalid_path"]
    down = op("download_files", ["/ok.txt", "/missing.txt", "/dir", "/../etc/passwd"])
    assert [d.error for d in down] == [None, "file_not_found", "is_directory", "invalid_path"]
    assert [d.content for d in down] == [b"1", None, None, None]


# -- confinement ---------------------------------------------------------------------


def test_dotdot_escapes_are_refused(op: Op, root: Path, outside: Path) -> None:
    escape = "/../outside/secret.txt"
    with pytest.raises(ValueError, match="traversal"):
        op("read", escape)
    with pytest.raises(ValueError, match="traversal"):
        op("write", "/../outside/new.txt", "x")
    with pytest.raises(ValueError, match="traversal"):
        op("edit", escape, "top", "bottom")
    with pytest.raises(ValueError, match="traversal"):
        op("ls", "/..")
    with pytest.raises(ValueError, match="traversal"):
        op("delete", escape)
    with pytest.raises(ValueError, match="traversal"):
        op("glob", "../**/*.txt")
    assert op("grep", "secret", path="/..").matches == []
    assert op("download_files", [escape])[0].error == "invalid_path"
    assert op("upload_files", [("/../outside/up.txt", b"x")])[0].error == "invalid_path"
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_absolute_host_paths_name_nothing_outside_the_root(op: Op, root: Path, outside: Path) -> None:
    host_path = str(outside / "secret.txt")
    assert op("read", host_path).error == f"File '{host_path}' not found"
    assert op("download_files", [host_path])[0].error == "file_not_found"
    assert op("write", "/etc/evil.conf", "x").error is None
    assert (root / "etc" / "evil.conf").read_text() == "x"  # inside the root, not /etc
    assert not Path("/etc/evil.conf").exists()


def test_symlinks_planted_in_the_root_are_never_followed(op: Op, root: Path, outside: Path) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    (root / "real.txt").write_text("not a secret\n")
    assert "symbolic link" in op("read", "/link.txt").error
    assert "symbolic link" in op("read", "/linkdir/secret.txt").error
    assert op("download_files", ["/link.txt"])[0].error == "invalid_path"
    assert op("upload_files", [("/link.txt", b"overwrite")])[0].error == "invalid_path"
    assert op("upload_files", [("/linkdir/planted.txt", b"x")])[0].error == "invalid_path"
    assert "symbolic link" in op("write", "/link.txt", "overwrite").error
    assert "symbolic link" in op("edit", "/link.txt", "top", "bottom").error
    assert "symbolic link" in op("ls", "/linkdir").error
    assert [m["path"] for m in op("grep", "secret").matches] == ["/real.txt"]
    assert op("grep", "secret", path="/linkdir").matches == []
    # glob may name the link itself (filestore lists links, as ls does), never what is behind it.
    globbed = {m["path"]: m for m in op("glob", "**/*.txt").matches}
    assert set(globbed) - {"/link.txt"} == {"/real.txt"}
    assert globbed.get("/link.txt", {"size": 0})["size"] == 0
    listed = {e["path"]: e for e in op("ls", "/").entries}
    assert listed["/link.txt"]["is_dir"] is False  # listed as an entry, not followed
    assert "/linkdir/" not in listed
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert op("delete", "/link.txt").error is None  # removes the link only
    assert (outside / "secret.txt").exists()


# -- read-only -----------------------------------------------------------------------


def test_read_only_backend_reads_but_never_writes(root: Path) -> None:
    (root / "a.txt").write_text("keep me\n")
    with FilestoreBackend(root, read_only=True) as be:
        assert be.read("/a.txt").file_data["content"] == "keep me\n"
        assert "read-only" in be.write("/a.txt", "changed").error
        assert "read-only" in be.edit("/a.txt", "keep", "lose").error
        assert "read-only" in be.delete("/a.txt").error
        assert be.upload_files([("/b.txt", b"x")])[0].error == "permission_denied"
        assert asyncio.run(be.aupload_files([("/b.txt", b"x")]))[0].error == "permission_denied"
    assert (root / "a.txt").read_text() == "keep me\n"
    assert not (root / "b.txt").exists()


def test_a_root_named_like_a_mode_is_that_directory(tmp_path: Path) -> None:
    """`root3:rw` and `root3:ro` are directories of their own, never `root3` with a
    mode, whichever of them exist (a mount must serve the directory it names)."""
    for name in ("root3", "root3:rw", "root3:ro"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "which.txt").write_text(name)
    for name in ("root3:rw", "root3:ro", "root3"):
        for read_only in (False, True):
            with FilestoreBackend(tmp_path / name, read_only=read_only) as be:
                assert be.read("/which.txt").file_data["content"] == name, (name, read_only)
                assert (be.write("/new.txt", "x").error is None) != read_only, (name, read_only)
            (tmp_path / name / "new.txt").unlink(missing_ok=True)


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        FilestoreBackend(tmp_path / "missing")


# -- async ---------------------------------------------------------------------------


async def test_async_methods_run_concurrently(backend: FilestoreBackend, root: Path) -> None:
    writes = await asyncio.gather(*(backend.awrite(f"/n{i}.txt", f"note {i}\n") for i in range(10)))
    assert all(w.error is None for w in writes)
    reads: list[ReadResult] = await asyncio.gather(*(backend.aread(f"/n{i}.txt") for i in range(10)))
    assert [r.file_data["content"] for r in reads] == [f"note {i}\n" for i in range(10)]
    found = await backend.agrep("note", max_count=3)
    assert len(found.matches) == 3 and found.truncated


def test_mount_point_at_the_host_path_gives_host_paths(root: Path, outside: Path) -> None:
    """`mount_point=str(root)`: the agent's paths are the host's, for files inside the root."""
    (root / "a.txt").write_text("hello\n")
    with FilestoreBackend(root, mount_point=str(root)) as be:
        assert be.read(str(root / "a.txt")).file_data["content"] == "hello\n"
        assert be.read("a.txt").file_data["content"] == "hello\n"  # relative: from the root
        assert be.write(str(root / "sub" / "b.txt"), "b").error is None
        assert (root / "sub" / "b.txt").read_text() == "b"
        assert [e["path"] for e in be.ls(str(root)).entries] == [str(root / "a.txt"), str(root / "sub") + "/"]
        assert [m["path"] for m in be.glob("*.txt").matches] == [str(root / "a.txt"), str(root / "sub" / "b.txt")]
        assert be.read(str(outside / "secret.txt")).error == f"File '{outside / 'secret.txt'}' not found"
    with pytest.raises(ValueError, match="mount_point"):
        FilestoreBackend(root, mount_point="relative")
