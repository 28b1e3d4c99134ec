"""Latency of one small read, in the same run, through:

1. `FilestoreBackend.read` — deepagents' protocol over a managed `filestore serve`
   (MCP over stdio, one persistent process, a directory mounted at `/`);
2. `Session.call("filestore_read")` — the same transport without the adapter;
3. deepagents' own `FilesystemBackend.read` (virtual mode) on the same directory;
4. the component embedded in this process by wasmtime-py (`hosts/python`), over a
   memory volume (the Python host has no directory volume), `filestore_read`.

    pip install "./python[deepagents]" -r hosts/python/requirements.txt
    FILESTORE_BIN=target/release/filestore python python/bench/read_latency.py [--n 2000]

Prints median and 90th percentile per read in microseconds, and each median as a
multiple of FilesystemBackend's. Rows whose dependencies are missing are skipped
with the reason.
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


def main() -> int:
    """Run each read path on the same small file and print the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000, help="reads per path (default 2000)")
    ap.add_argument("--binary", default=None, help="the filestore binary (default $FILESTORE_BIN, then PATH)")
    ap.add_argument("--component", default=None, help="filestore.wasm (default: written by `filestore component`)")
    args = ap.parse_args()

    from deepagents.backends.filesystem import FilesystemBackend

    from filestore import find_binary
    from filestore.deepagents import FilestoreBackend

    binary = find_binary(args.binary)
    rows: list[tuple[str, float, float] | tuple[str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        (root / "notes.md").write_text(CONTENT)

        with FilestoreBackend(root, binary=binary) as be:
            assert be.read("/notes.md").file_data["content"] == CONTENT
            rows.append(("FilestoreBackend.read (serve over stdio)", *measure(lambda: be.read("/notes.md"), args.n)))
            s = be.session
            rows.append(
                (
                    "Session.call filestore_read (no adapter)",
                    *measure(lambda: s.call("filestore_read", {"path": "/notes.md"}), args.n),
                )
            )

        fs = FilesystemBackend(root_dir=str(root), virtual_mode=True)
        assert fs.read("/notes.md").file_data["content"] == CONTENT
        rows.append(("deepagents FilesystemBackend.read", *measure(lambda: fs.read("/notes.md"), args.n)))

        try:
            sys.path.insert(0, str(REPO / "hosts" / "python"))
            from filestore_host import Filestore, MemoryVolume  # type: ignore[import-not-found]
        except ImportError as e:
            rows.append(("embedded component (wasmtime-py, memory volume)", f"skipped: {e}"))
        else:
            component = args.component
            if component is None:
                component = os.path.join(tmp, "filestore.wasm")
                subprocess.run([binary, "component", "-o", component], check=True, capture_output=True)
            host = Filestore(component)
            session = host.session([{"point": "/w", "volume": MemoryVolume({"/notes.md": CONTENT})}])
            session.call("filestore_read", {"path": "/w/notes.md"})
            rows.append(
                (
                    "embedded component (wasmtime-py, memory volume)",
                    *measure(lambda: session.call("filestore_read", {"path": "/w/notes.md"}), args.n),
                )
            )
            session.close()

    base = next(r[1] for r in rows if r[0].startswith("deepagents FilesystemBackend"))
    print(f"small read ({len(CONTENT)} bytes, 20 lines), {args.n} reads each, Python {sys.version.split()[0]}")
    print(f"{'path':<50} {'median µs':>10} {'p90 µs':>10} {'× FilesystemBackend':>20}")
    for row in rows:
        if len(row) == 2:
            print(f"{row[0]:<50} {row[1]}")
            continue
        name, median, p90 = row
        print(f"{name:<50} {median:>10.1f} {p90:>10.1f} {median / base:>20.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
