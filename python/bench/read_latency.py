"""Latency of small backend operations, in the same run, through:

1. `FilestoreBackend` in process (the wheel's native extension, a directory mounted
   at `/`) and deepagents' own `FilesystemBackend` (virtual mode) on the same
   directory: a 1 KB `read`, a 1 KB `write` (a new file each time), an `edit`
   (one replacement), a literal `grep` and a `glob`, each op as a multiple of
   FilesystemBackend's;
2. `Session.call("filestore_read")` — the in-process session without the adapter;
3. `FilestoreBackend.read` over a managed `filestore serve` (MCP over stdio, the
   `McpSession`), when a binary is found;
4. the component embedded in this process by wasmtime-py (`hosts/python`), over a
   memory volume (the Python host has no directory volume), `filestore_read`.

    pip install "$(ls target/wheels/filestore-*.whl)[deepagents]" -r hosts/python/requirements.txt
    FILESTORE_BIN=target/release/filestore python python/bench/read_latency.py [--n 2000]

Prints median and 90th percentile per operation in microseconds, and each median as
a multiple of FilesystemBackend's for the same operation. Rows whose dependencies
are missing are skipped with the reason.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONTENT = "".join(f"line {i}: the quick brown fox jumps over the lazy dog\n" for i in range(20))  # ~1 KB


def measure(fn: Callable[[], object], n: int) -> tuple[float, float]:
    """Median and p90 of `n` calls of `fn`, in microseconds, after a warm-up."""
    for _ in range(min(200, n)):
        fn()
    samples = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9)]


def _ops(be: object, fs: object, root: Path) -> dict[str, list[tuple[str, Callable[[], object]]]]:
    """Each measured operation on both backends, over the same files. Writes go to
    a new path each time (both backends refuse to overwrite); edits swap a word back
    and forth so each call replaces exactly one occurrence."""
    (root / "edit.txt").write_text("alpha\n")
    (root / "w").mkdir(exist_ok=True)
    counter = iter(range(10**9))
    state = {"word": "alpha"}

    def edit(b: object) -> Callable[[], object]:
        def go() -> object:
            old = state["word"]
            new = "beta" if old == "alpha" else "alpha"
            r = b.edit("/edit.txt", old, new)  # type: ignore[attr-defined]
            assert r.error is None, r.error
            state["word"] = new
            return r

        return go

    def write(b: object, tag: str) -> Callable[[], object]:
        def go() -> object:
            r = b.write(f"/w/{tag}{next(counter)}.md", CONTENT)  # type: ignore[attr-defined]
            assert r.error is None, r.error
            return r

        return go

    both = [("FilestoreBackend (in process)", be), ("deepagents FilesystemBackend", fs)]
    return {
        "read": [(who, lambda b=b: b.read("/notes.md")) for who, b in both],  # type: ignore[attr-defined]
        "write": [(who, write(b, who[:4])) for who, b in both],
        "edit": [(who, edit(b)) for who, b in both],
        "grep": [(who, lambda b=b: b.grep("return 7", "/src")) for who, b in both],  # type: ignore[attr-defined]
        "glob": [(who, lambda b=b: b.glob("*.py", "/src")) for who, b in both],  # type: ignore[attr-defined]
    }


def main() -> int:
    """Run each read path on the same small file and print the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000, help="reads per path (default 2000)")
    ap.add_argument("--binary", default=None, help="the filestore binary (default $FILESTORE_BIN, then PATH)")
    ap.add_argument("--component", default=None, help="filestore.wasm (default: written by `filestore component`)")
    args = ap.parse_args()

    from deepagents.backends.filesystem import FilesystemBackend

    from filestore import BinaryNotFoundError, find_binary
    from filestore.deepagents import FilestoreBackend

    try:
        binary: str | None = find_binary(args.binary)
    except BinaryNotFoundError as e:
        binary, no_binary = None, str(e)
    rows: list[tuple[str, float, float, str] | tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        (root / "notes.md").write_text(CONTENT)
        (root / "src").mkdir()
        for i in range(20):
            (root / "src" / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")

        fs = FilesystemBackend(root_dir=str(root), virtual_mode=True)
        with FilestoreBackend(root) as be:
            assert be.read("/notes.md").file_data["content"] == CONTENT
            for name, op in _ops(be, fs, root).items():
                for who, fn in op:
                    rows.append((f"{name}: {who}", *measure(fn, args.n), name))
            s = be.session
            rows.append(
                (
                    "read: Session.call filestore_read (no adapter)",
                    *measure(lambda: s.call("filestore_read", {"path": "/notes.md"}), args.n),
                    "read",
                )
            )

        if binary is None:
            rows.append(("read: FilestoreBackend over serve (MCP stdio)", f"skipped: {no_binary}"))
        else:
            with FilestoreBackend(root, binary=binary) as be:
                rows.append(
                    ("read: FilestoreBackend over serve (MCP stdio)", *measure(lambda: be.read("/notes.md"), args.n), "read")
                )

        try:
            sys.path.insert(0, str(REPO / "hosts" / "python"))
            from filestore_host import Filestore, MemoryVolume  # type: ignore[import-not-found]
        except ImportError as e:
            rows.append(("read: embedded component (wasmtime-py, memory volume)", f"skipped: {e}"))
        else:
            component = args.component
            if component is None:
                component = os.path.join(tmp, "filestore.wasm")
                command = binary or os.path.join(os.path.dirname(sys.executable), "filestore")
                subprocess.run([command, "component", "-o", component], check=True, capture_output=True)
            host = Filestore(component)
            session = host.session([{"point": "/w", "volume": MemoryVolume({"/notes.md": CONTENT})}])
            session.call("filestore_read", {"path": "/w/notes.md"})
            rows.append(
                (
                    "read: embedded component (wasmtime-py, memory volume)",
                    *measure(lambda: session.call("filestore_read", {"path": "/w/notes.md"}), args.n),
                    "read",
                )
            )
            session.close()

    base = {r[3]: r[1] for r in rows if len(r) == 4 and "FilesystemBackend" in r[0]}
    print(f"small operations ({len(CONTENT)} bytes, 20 lines; 20 files under /src), {args.n} each, Python {sys.version.split()[0]}")
    print(f"{'path':<58} {'median µs':>10} {'p90 µs':>10} {'× FilesystemBackend':>20}")
    for row in rows:
        if len(row) == 2:
            print(f"{row[0]:<58} {row[1]}")
            continue
        name, median, p90, op = row
        print(f"{name:<58} {median:>10.1f} {p90:>10.1f} {median / base[op]:>20.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
