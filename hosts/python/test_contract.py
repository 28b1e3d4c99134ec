"""The Python host (wasmtime-py) against the shared contract suite, a misbehaving
volume, the compiled-component cache and the embedding guide's Python snippet
(docs/embedding.md).

Run by tests/integration/python_host.rs, which writes the component with the real
binary (FILESTORE_COMPONENT) and the Rust host's answers (FILESTORE_RUST_ANSWERS);
this host's answers go to FILESTORE_PY_ANSWERS for that test to count. The suite's
memory-backend cases run here (the Python host ships no directory volume).
"""

import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import wasmtime  # noqa: E402
from wasmtime.component import Record  # noqa: E402
import compiled_cache  # noqa: E402
from filestore_host import (  # noqa: E402
    PACKAGE, ConfigErrors, Filestore, FilestoreError, MemoryVolume, ToolError, ToolHost, VolumeError,
)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


SUITE = json.loads(read(os.environ.get("FILESTORE_SUITE", os.path.join(ROOT, "tests/contract/suite.json"))))
_FS = None


def filestore() -> Filestore:
    global _FS
    if _FS is None:
        _FS = Filestore(os.environ["FILESTORE_COMPONENT"])
    return _FS


def content(spec):
    if isinstance(spec, str):
        return spec.encode("utf-8")
    if "hex" in spec:
        return bytes.fromhex(spec["hex"])
    if "lines" in spec:
        return "".join(f"{spec['lines']}{i}\n" for i in range(1, spec["count"] + 1)).encode("utf-8")
    if "repeat" in spec:
        return (spec["repeat"] * spec["times"] + spec.get("then", "")).encode("utf-8")
    raise ValueError(f"no memory form for {spec}")


def suite_tools() -> ToolHost:
    def echo(req):
        src = req["source"]
        return {"tool": req["tool_name"], "arguments": req["arguments"], "positional": req["positional"],
                "statement": req["statement"], "source_type": src["type"] if src else None,
                "endpoint": src["fields"].get("endpoint") if src else None}

    def fail(req):
        raise ToolError("not-found", "no such row")

    def bulk(req):
        return {"rows": [{"i": i, "text": f"row {i} of the bulky result"} for i in range(1, 201)]}

    return ToolHost(handlers={"echo": echo, "fail": fail, "bulk": bulk}, env={})


def normalise(v):
    if isinstance(v, list):
        return [normalise(x) for x in v]
    if isinstance(v, dict):
        return {k: ("<recent>" if k == "modified_ms" and isinstance(x, int) and not isinstance(x, bool)
                    and x >= SUITE["recent_ms"] else
                    "<duration>" if k == "duration_ms" and isinstance(x, int) and not isinstance(x, bool)
                    else normalise(x)) for k, x in v.items()}
    return v


def canon(v):
    """A typed result as contract_typed.rs shapes it: fields with ``_``, hex bytes."""
    if isinstance(v, Record):
        return {k.replace("-", "_"): canon(x) for k, x in vars(v).items()}
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, list):
        return [canon(x) for x in v]
    return v


def typed(s, op, args):
    """A typed step (``{"typed": op, "args"}``) through the Python host's typed methods."""
    if op == "read_many":
        files = s.read_many(**args)
        return [{"path": p, "outcome": {"error": {"kind": r.kind, "message": r.message}}
                 if isinstance(r, FilestoreError) else {"ok": canon(r)}} for p, r in files]
    method = {"read": s.read, "read_bytes": s.read_bytes, "glob": s.glob, "grep": s.grep,
              "tree": s.tree, "tree_nodes": s.tree_nodes}[op]
    return canon(method(**args))


def answer(s, step):
    try:
        if "call" in step:
            o = s.call(step["call"], step["args"])
            return {"json": o["json"], "text": o["text"]}
        if "typed" in step:
            return {"typed": typed(s, step["typed"], step["args"])}
        op, arg = next(iter(step.items()))
        if op == "tool_specs":
            return {"json": s.tool_specs()}
        if op == "list_tools":
            return {"json": s.list_tools()}
        if op == "tools_version":
            return {"json": s.tools_version()}
        if op == "system_prompt":
            return {"text": s.system_prompt(arg[0], arg[1])}
        if op == "load_config":
            try:
                r = s.load_config(arg)
            except ConfigErrors as e:
                return {"config_errors": e.errors}
            return {"rendered": r.rendered, "v2_yaml": getattr(r, "v2-yaml"),
                    "tools": [{"name": t.name, "type": getattr(t, "tool-type"), "runnable": t.runnable} for t in r.tools]}
        if op == "invoke":
            return s.invoke(arg, step["args"], tool_call_id=step.get("tool_call_id"), claims=step.get("claims"))
        if op == "approve":
            return s.approve(arg)
        if op == "reject":
            s.reject(arg)
            return {"ok": True}
        if op == "select_toolset":
            s.select_toolset(arg)
            return {"ok": True}
        if op == "set_offload_tokens":
            s.set_offload_tokens(arg)
            return {"ok": True}
        if op == "enable_shell":
            s.enable_shell(arg)
            return {"ok": True}
        raise ValueError(f"unknown step {op}")
    except FilestoreError as e:
        return {"error": {"kind": e.kind, "message": e.message}}


class ContractSuite(unittest.TestCase):
    def test_memory_cases_match_the_rust_host(self):
        rust = None
        if os.environ.get("FILESTORE_RUST_ANSWERS"):
            rust = json.loads(read(os.environ["FILESTORE_RUST_ANSWERS"]))
        mine = []
        for case in SUITE["cases"]:
            if "memory" not in case["backends"]:
                continue
            mounts = [{"point": m["point"], "priority": m.get("priority", 0), "read_only": bool(m.get("read_only")),
                       "volume": MemoryVolume({p: content(c) for p, c in SUITE["fixtures"][m["fixture"]].items()})}
                      for m in case["mounts"]]
            s = filestore().session(mounts, tools=suite_tools())
            answers = [normalise(answer(s, step)) for step in case["steps"]]
            s.close()
            mine.append({"case": case["name"], "backend": "memory", "answers": answers})
            if rust is not None:
                want = next(r for r in rust if r["case"] == case["name"] and r["backend"] == "memory")
                for i, (got, exp) in enumerate(zip(answers, want["answers"])):
                    with self.subTest(case=case["name"], step=i + 1):
                        self.assertEqual(got, exp)
        if os.environ.get("FILESTORE_PY_ANSWERS"):
            with open(os.environ["FILESTORE_PY_ANSWERS"], "w") as f:
                json.dump(mine, f)
        self.assertGreater(len(mine), 10)


def liar(lie):
    m = MemoryVolume({"/d/a.txt": "alpha\n"})

    class Liar:
        def __getattr__(self, name):
            return getattr(m, name)

    v = Liar()
    if lie == "list-outside":
        v.list = lambda p: m.list(p) + [{"path": "/../etc/passwd", "kind": "file", "size": 1}]
    elif lie == "stat-other-path":
        v.stat = lambda p: {**m.stat(p), "path": "/elsewhere.txt"}
    elif lie == "read-too-much":
        v.read = lambda p, o, n: m.read(p, o, n) + b"x" * (n + 1)
    elif lie == "write-wrong-size":
        v.write = lambda p, c, o: {**m.write(p, c, o), "size": 10**12}
    elif lie == "negative-size":
        v.stat = lambda p: {**m.stat(p), "size": -1}
    elif lie == "raises":
        def boom(*a):
            raise ZeroDivisionError("division by zero")
        v.read = boom
    elif lie == "raises-oserror":
        def nope(*a):
            raise FileNotFoundError(2, "No such file", "/srv/secret/host/path")
        v.read = nope
    elif lie == "unknown-kind":
        def odd(p):
            raise VolumeError("exploded", "kaboom")
        v.stat = odd
    elif lie == "returns-none":
        v.stat = lambda p: None
    return v


class MisbehavingVolume(unittest.TestCase):
    CASES = {
        "list-outside": ("filestore_ls", {"path": "/bad/d"}, "is not absolute and normalised"),
        "stat-other-path": ("filestore_read", {"path": "/bad/d/a.txt"}, "returned an entry for '/elsewhere.txt'"),
        "read-too-much": ("filestore_read", {"path": "/bad/d/a.txt"}, "bytes were returned when at most"),
        "write-wrong-size": ("filestore_write", {"path": "/bad/n.txt", "content": "abc"}, "after writing 3 bytes"),
        "negative-size": ("filestore_read", {"path": "/bad/d/a.txt"}, "field 'the entry.size' is -1"),
        "raises": ("filestore_read", {"path": "/bad/d/a.txt"}, "the volume's read raised ZeroDivisionError"),
        "raises-oserror": ("filestore_read", {"path": "/bad/d/a.txt"}, "FileNotFoundError (errno 2)"),
        "unknown-kind": ("filestore_read", {"path": "/bad/d/a.txt"}, "unknown kind \"exploded\""),
        "returns-none": ("filestore_read", {"path": "/bad/d/a.txt"}, "the entry is None"),
    }

    def test_every_misbehaviour_is_a_typed_error_and_the_session_goes_on(self):
        for lie, (tool, args, says) in self.CASES.items():
            with self.subTest(lie=lie):
                s = filestore().session([{"point": "/bad", "volume": liar(lie)},
                                         {"point": "/good", "volume": MemoryVolume({"/ok.txt": "fine\n"})}])
                with self.assertRaises(FilestoreError) as cm:
                    s.call(tool, args)
                e = cm.exception
                self.assertEqual(e.kind, "backend", e.message)
                self.assertIn(says, e.message)
                self.assertTrue(e.message.startswith("/bad"), e.message)
                self.assertNotIn("/srv/secret", e.message)
                self.assertIsNone(s.poisoned)
                self.assertEqual(s.call("filestore_read", {"path": "/good/ok.txt"})["json"]["text"], "     1\tfine\n")
                s.close()

    def test_a_deadline_poisons_one_session_only(self):
        fs = Filestore(os.environ["FILESTORE_COMPONENT"], deadline_s=0.2)
        a = fs.session([{"point": "/w", "volume": MemoryVolume({"/a.txt": "a\n"})}])
        b = fs.session([{"point": "/w", "volume": MemoryVolume({"/b.txt": "b\n"})}])
        spin = a.instance.get_func(a.store, a.instance.get_export_index(
            a.store, "spin", a.instance.get_export_index(a.store, "filestore:component/diagnostics@" + PACKAGE.split("@")[1])))
        with self.assertRaises(FilestoreError) as cm:
            a._call(spin, 2**64 - 1)
        self.assertEqual(cm.exception.kind, "trap")
        self.assertIn("deadline", cm.exception.message)
        with self.assertRaises(FilestoreError) as cm:
            a.call("filestore_read", {"path": "/w/a.txt"})
        self.assertIn("unusable after an earlier trap", cm.exception.message)
        self.assertEqual(b.call("filestore_read", {"path": "/w/b.txt"})["json"]["total_lines"], 1)


class PackedWalk(unittest.TestCase):
    """Glob walks through ``walk-packed``, which this host packs from the backend's
    ``walk``: sizes, times, read-only flags, entry types and attributes, and paths that
    are not ASCII, survive the columns."""

    def test_glob_sees_what_the_backend_walk_returned(self):
        class Backend(MemoryVolume):
            def walk(self, path, max_entries):
                w = super().walk(path, max_entries)
                for e in w["entries"]:
                    if e["path"].endswith("link.txt"):
                        e["entry_type"] = "symlink"
                        e["size"] = 0
                    if e["kind"] == "file":
                        e["modified_ms"] = 1_700_000_000_000 + len(e["path"])
                        e["attributes"] = {"n": len(e["path"])}
                return w

        vol = Backend({"/a.txt": "abc", "/dé/é.txt": "ü", "/d/link.txt": "", "/d/z.txt": "z" * 9})
        s = filestore().session([{"point": "/w", "volume": vol}])
        files = s.call("filestore_glob", {"pattern": "**/*.txt", "path": "/w"})["json"]["files"]
        got = [(f["path"], f["size"], f.get("modified_ms"), f.get("kind")) for f in files]
        self.assertEqual(got, [
            ("/w/a.txt", 3, 1_700_000_000_006, None),
            ("/w/d/link.txt", 0, 1_700_000_000_011, "symlink"),
            ("/w/d/z.txt", 9, 1_700_000_000_008, None),
            ("/w/dé/é.txt", 2, 1_700_000_000_009, None),
        ])
        s.close()


class ShellStreaming(unittest.TestCase):
    """``Session.execute`` hands a running command's output to ``on_output`` (the WIT
    ``shell-output`` import): in order, stdout and stderr apart, equal to the result."""

    def test_execute_streams_output_in_order_and_equal_to_the_result(self):
        s = filestore().session([{"point": "/w", "volume": MemoryVolume({})}])
        s.enable_shell(True)
        chunks = []
        out = s.execute({"command": "for i in 1 2; do echo $i; echo e$i >&2; done; echo end"},
                        on_output=lambda stream, data: chunks.append((stream, data)))
        runs = []
        for stream, data in chunks:
            if runs and runs[-1][0] == stream:
                runs[-1][1] += data
            else:
                runs.append([stream, data])
        self.assertEqual(runs, [["stdout", b"1\n"], ["stderr", b"e1\n"], ["stdout", b"2\n"],
                                ["stderr", b"e2\n"], ["stdout", b"end\n"]])
        joined = lambda which: b"".join(d for st, d in chunks if st == which).decode()
        self.assertEqual(joined("stdout"), out["json"]["stdout"])
        self.assertEqual(joined("stderr"), out["json"]["stderr"])
        # Without a callback: the same answer; a raising one does not break the session.
        self.assertEqual(s.call("filestore_execute", {"command": "echo plain"})["json"]["stdout"], "plain\n")

        def boom(stream, data):
            raise RuntimeError("boom")
        self.assertEqual(s.execute({"command": "echo x"}, on_output=boom)["json"]["stdout"], "x\n")

    def test_python3_says_this_host_has_no_cpython(self):
        # The WIT `python` import: `start` answers `unsupported`; the shell prints its
        # reason with status 127 and the session goes on.
        s = filestore().session([{"point": "/w", "volume": MemoryVolume({})}])
        s.enable_shell(True)
        out = s.call("filestore_execute", {"command": "python3 -c 'print(1)'; echo status $?"})["json"]
        self.assertEqual(out["stdout"], "status 127\n")
        self.assertIn("python3 runs in the Rust host", out["stderr"])
        self.assertIn("wasmtime-py", out["stderr"])


class Appends(unittest.TestCase):
    """WIT 0.10.0 ``volume.append``: the shell's ``>>`` reaches a volume's own
    ``append`` (only the new bytes), or, for a volume without one, a read and one whole
    ``write``; a lying or raising append is a typed error of that call."""

    LOOP = "for i in $(seq 50); do echo $i >> log; done; echo tail >> log; wc -l < log; tail -n 2 log"
    WANT = "".join(f"{i}\n" for i in range(1, 51)) + "tail\n"

    def test_appends_reach_the_volume_with_their_bytes_only(self):
        appended, written = [], []

        class Counting(MemoryVolume):
            def append(self, path, content):
                appended.append(len(content))
                return super().append(path, content)

        class NoAppend:
            """Only the required methods: no ``append``."""
            def __init__(self):
                self.m = MemoryVolume({})

            def __getattr__(self, name):
                if name in ("stat", "list", "walk", "read", "delete", "rename"):
                    return getattr(self.m, name)
                raise AttributeError(name)

            def write(self, path, content, options):
                written.append(len(content))
                return self.m.write(path, content, options)

        counting, bare = Counting({}), NoAppend()
        s = filestore().session([{"point": "/c", "volume": counting}, {"point": "/b", "volume": bare}])
        s.enable_shell(True)
        for d in ("/c", "/b"):
            out = s.call("filestore_execute", {"command": self.LOOP, "cwd": d})["json"]
            self.assertEqual(out["stdout"], "51\n50\ntail\n", d)
        self.assertEqual(counting.files["/log"]["content"].decode(), self.WANT)
        self.assertEqual(bare.m.files["/log"]["content"].decode(), self.WANT)
        self.assertEqual(sum(appended), len(self.WANT), "the appended bytes, nothing more")
        self.assertEqual(len(written), 51, "one whole write per append without append")
        self.assertGreater(sum(written), 10 * len(self.WANT))

        # A lying append (a size smaller than the bytes added) and a raising one.
        class Shrinks(MemoryVolume):
            def append(self, path, content):
                return dict(super().append(path, content), size=1)

        class Raises(MemoryVolume):
            def append(self, path, content):
                raise ZeroDivisionError("division by zero")

        s2 = filestore().session([{"point": "/s", "volume": Shrinks({"/a.txt": "a\n"})},
                                  {"point": "/r", "volume": Raises({"/a.txt": "a\n"})}])
        s2.enable_shell(True)
        a = s2.call("filestore_execute", {"command": "echo more >> /s/a.txt; echo $?"})["json"]
        self.assertEqual(a["stdout"], "1\n")
        self.assertIn("reported a file of 1 bytes after appending 5 bytes", a["stderr"])
        r = s2.call("filestore_execute", {"command": "echo more >> /r/a.txt; echo $?; cat /r/a.txt"})["json"]
        self.assertEqual(r["stdout"], "1\na\n")
        self.assertIn("the volume's append raised ZeroDivisionError", r["stderr"])
        self.assertIsNone(s2.poisoned)


class CowMount(unittest.TestCase):
    """A copy-on-write mount (``upper``): every change lands in the upper volume, the
    lower one is only read, and ``filestore_diff`` lists the changes."""

    def test_changes_land_in_the_upper_volume(self):
        lower = MemoryVolume({"/a.txt": "a\n", "/b.txt": "b\n"})
        upper = MemoryVolume({})
        before = {k: dict(v) for k, v in lower.files.items()}
        s = filestore().session([{"point": "/w", "volume": lower, "upper": upper}])
        s.call("filestore_write", {"path": "/w/a.txt", "content": "A\n"})
        s.call("filestore_delete", {"path": "/w/b.txt"})
        diff = s.call("filestore_diff", {})["json"]
        self.assertEqual(sorted((f["status"], f["path"]) for f in diff["files"]),
                         [("deleted", "/w/b.txt"), ("modified", "/w/a.txt")])
        self.assertEqual(lower.files, before)
        self.assertIn("/files/a.txt", upper.files)
        with self.assertRaises(FilestoreError) as refused:
            filestore().session([{"point": "/w", "volume": lower, "upper": upper, "read_only": True}])
        self.assertEqual(refused.exception.kind, "invalid-argument")


class CompiledComponentCache(unittest.TestCase):
    """The compiled component is cached on disk: a second Filestore loads it instead
    of compiling, a corrupt cache file is compiled over and rewritten, and a file that
    someone else could have written is never loaded (it would run as native code)."""

    def works(self, fs: Filestore) -> None:
        s = fs.session([{"point": "/w", "volume": MemoryVolume({"/a.txt": "cached\n"})}])
        self.assertEqual(s.call("filestore_read", {"path": "/w/a.txt"})["json"]["text"], "     1\tcached\n")
        s.close()

    def test_a_second_filestore_loads_the_compiled_component_from_the_cache(self):
        wasm = os.environ["FILESTORE_COMPONENT"]
        with tempfile.TemporaryDirectory() as tmp:
            cache = os.path.join(tmp, "python-host")
            first = Filestore(wasm, cache_dir=cache)
            self.assertFalse(first.loaded_from_cache)
            self.assertEqual(stat.S_IMODE(os.stat(cache).st_mode), 0o700)
            self.assertEqual(os.listdir(cache), [os.path.basename(first.cache_path)])
            self.assertEqual(stat.S_IMODE(os.stat(first.cache_path).st_mode), 0o600)
            del first

            second = Filestore(wasm, cache_dir=cache)
            self.assertTrue(second.loaded_from_cache)
            self.works(second)
            del second

        with self.assertRaises(FilestoreError) as bad:
            Filestore(wasm, cache_dir=3)
        self.assertEqual(bad.exception.kind, "invalid-argument")
        self.assertIn("cache_dir", bad.exception.message)

    def load_tiny(self, directory):
        """``(loaded_from_cache, path)`` of a tiny component through the loader Filestore
        uses: compiling the real one costs a minute of CPU on a slow machine, and each
        refusal below compiles again."""
        if not hasattr(self, "_tiny"):
            self._tiny = bytes(wasmtime.wat2wasm("(component)")), wasmtime.Engine()
        tiny, engine = self._tiny
        _, cached, path = compiled_cache.load(engine, tiny, {}, directory)
        return cached, path

    def test_a_corrupt_cache_file_is_compiled_over_and_rewritten(self):
        with tempfile.TemporaryDirectory() as tmp:
            cache = os.path.join(tmp, "c")
            cached, path = self.load_tiny(cache)
            self.assertFalse(cached)
            with open(path, "wb") as f:
                f.write(b"not a compiled component\n" * 4096)
            self.assertEqual(self.load_tiny(cache), (False, path))
            self.assertTrue(self.load_tiny(cache)[0], "the fallback rewrote it")
            self.assertEqual(os.listdir(cache), [os.path.basename(path)], "no temporary file is left behind")

    def test_a_cache_file_others_could_have_written_is_not_loaded(self):
        load = self.load_tiny
        with tempfile.TemporaryDirectory() as tmp:
            cache = os.path.join(tmp, "c")
            self.assertEqual(load(cache)[0], False)
            cached, path = load(cache)
            self.assertTrue(cached)

            os.chmod(path, 0o620)
            with self.assertWarnsRegex(RuntimeWarning, "only you can write"):
                self.assertEqual(load(cache), (False, path))
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o600, "the fallback rewrites it")
            self.assertTrue(load(cache)[0])

            elsewhere = os.path.join(tmp, "elsewhere.cwasm")
            os.replace(path, elsewhere)
            os.symlink(elsewhere, path)
            with self.assertWarns(RuntimeWarning):
                self.assertFalse(load(cache)[0])
            self.assertFalse(os.path.islink(path), "the fallback replaces the link with a file")

            os.link(path, os.path.join(tmp, "second-name.cwasm"))
            with self.assertWarnsRegex(RuntimeWarning, "only you can write"):
                self.assertFalse(load(cache)[0])
            self.assertTrue(load(cache)[0])

            mine = os.stat(path)
            self.assertTrue(compiled_cache.trusted(mine))
            theirs = list(mine)
            theirs[stat.ST_UID] = os.getuid() + 1
            self.assertFalse(compiled_cache.trusted(os.stat_result(theirs)))

            self.assertEqual(load(None), (False, None), "no directory: no cache")


class GuideSnippet(unittest.TestCase):
    def test_the_embedding_guide_python_snippet_is_this_file_and_runs(self):
        example = read(os.path.join(HERE, "example.py"))
        guide = read(os.path.join(ROOT, "docs", "embedding.md"))
        blocks = [b.split("\n", 1)[1] for b in guide.split("```python")[1:]]
        self.assertIn(example, [b[: len(example)] for b in blocks], "docs/embedding.md's ```python block must be hosts/python/example.py")
        out = subprocess.run([sys.executable, os.path.join(HERE, "example.py"), os.environ["FILESTORE_COMPONENT"]],
                             capture_output=True, text=True, cwd=HERE, timeout=600)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("error[read-only]: /notes/todo.md: this volume is frozen", out.stdout)
        self.assertIn('"sky": "clear"', out.stdout)


if __name__ == "__main__":
    unittest.main()
