"""Every list of error kinds outside Rust is the WIT's: `filestore.ErrorKind`'s
product kinds, the Node host's `ERROR_KINDS` (`hosts/node/src/errors.js`) and the
wasmtime-py host's (`hosts/python/filestore_host.py`) are exactly the cases of the
`types.error` variant in `wit/filestore.wit`. (The Rust table is checked against the
same variant by `guest/src/error.rs`.)

The lists are read from the checkout as each host defines them: the WIT parsed here
(the one parser of it on the Python side), the Node module imported by `node`, and
the wasmtime-py host's tuple read from its source (importing it needs wasmtime-py,
which this package's environment does not have).
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from filestore import ErrorKind, FilestoreError

REPO = Path(__file__).resolve().parents[2]
WIT = REPO / "wit/filestore.wit"
NODE_ERRORS = REPO / "hosts/node/src/errors.js"
WASMTIME_PY_HOST = REPO / "hosts/python/filestore_host.py"

# One case of the variant: `name(payload),` or `name,`.
_CASE = re.compile(r"(?P<name>[a-z][a-z0-9]*(?:-[a-z0-9]+)*)\s*(?:\([^()]*\))?\s*,?")


def wit_error_kinds(wit: Path) -> list[str]:
    """The cases of `variant error` in the WIT's `interface types`, in order.

    Every line of the variant's body is a doc comment or one case; anything else
    fails, naming the line, so a change of the WIT's shape cannot go unnoticed.
    """
    text = wit.read_text()
    types = re.search(r"^\s*interface types \{", text, re.MULTILINE)
    assert types is not None, f"{wit} has no `interface types`"
    variant = re.compile(r"^\s*variant error \{\s*$", re.MULTILINE).search(text, types.end())
    assert variant is not None, f"{wit}: `interface types` has no `variant error {{`"
    close = text.find("}", variant.end())
    assert close != -1, f"{wit}: `variant error` is not closed"
    kinds = []
    for line in text[variant.end() : close].splitlines():
        line = line.strip()
        if not line or line.startswith("//"):
            continue
        case = _CASE.fullmatch(line)
        assert case is not None, f"{wit}: {line!r} in `variant error` is not a case"
        kinds.append(case["name"])
    assert kinds, f"{wit}: `variant error` has no cases"
    return kinds


def node_host_kinds(errors_js: Path) -> list[str]:
    """`ERROR_KINDS` as the Node host's module exports it."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("`node` is not on PATH: install Node.js (18 or newer) to check hosts/node's ERROR_KINDS")
    script = "const m = await import(process.argv[1]); process.stdout.write(JSON.stringify(m.ERROR_KINDS));"
    out = subprocess.run(
        [node, "--input-type=module", "-e", script, errors_js.as_uri()],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, f"node could not import {errors_js}: {out.stderr}"
    return json.loads(out.stdout)


def wasmtime_py_host_kinds(host_py: Path) -> list[str]:
    """The wasmtime-py host's `ERROR_KINDS`: the literal tuple its module assigns."""
    for node in ast.parse(host_py.read_text()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "ERROR_KINDS" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError(f"{host_py} assigns no literal ERROR_KINDS")


def python_package_kinds() -> list[str]:
    """The product kinds of `filestore.ErrorKind`."""
    return [k.value for k in ErrorKind if k.is_product]


def differences(wit: list[str], lists: dict[str, list[str]]) -> list[str]:
    """What each named list lacks or has beyond the WIT's kinds (empty when all match)."""
    out = []
    for name, kinds in lists.items():
        missing = [k for k in wit if k not in kinds]
        extra = [k for k in kinds if k not in wit]
        if missing or extra or len(kinds) != len(set(kinds)):
            out.append(f"{name}: lacks {missing}, has beyond the WIT {extra}, lists {kinds}")
    return out


def host_lists(node_errors: Path, wasmtime_py_host: Path) -> dict[str, list[str]]:
    return {
        "filestore.ErrorKind": python_package_kinds(),
        "hosts/node ERROR_KINDS": node_host_kinds(node_errors),
        "hosts/python ERROR_KINDS": wasmtime_py_host_kinds(wasmtime_py_host),
    }


def test_every_list_of_error_kinds_is_the_wits() -> None:
    wit = wit_error_kinds(WIT)
    assert "not-found" in wit and "backend" in wit, wit
    found = differences(wit, host_lists(NODE_ERRORS, WASMTIME_PY_HOST))
    assert not found, f"lists of error kinds that are not the cases of `variant error` in {WIT}:\n" + "\n".join(found)


def test_a_kind_added_to_the_wit_alone_fails_the_check(tmp_path: Path) -> None:
    """The check above is not vacuous: a WIT with one more case than the lists, here a
    copy of the real one, makes every list that lacks it a difference."""
    wit = tmp_path / "filestore.wit"
    text = WIT.read_text()
    assert text.count("        backend(string),\n") == 1, "the WIT's last error case moved; update this test"
    added = "        backend(string),\n        /// A kind the hosts do not know yet.\n        stale(string),\n"
    wit.write_text(text.replace("        backend(string),\n", added))
    node = tmp_path / "errors.js"
    node.write_text(NODE_ERRORS.read_text().replace("  'backend',\n", "  'backend',\n  'stale',\n"))
    kinds = wit_error_kinds(wit)
    assert kinds[-1] == "stale"
    found = differences(kinds, host_lists(node, WASMTIME_PY_HOST))
    assert [d.split(":")[0] for d in found] == ["filestore.ErrorKind", "hosts/python ERROR_KINDS"], found
    assert all("lacks ['stale']" in d for d in found), found


def test_kinds_are_enum_members_equal_to_their_names() -> None:
    err = FilestoreError("not-found", "/w/x: no such file or directory", tool="filestore_read")
    assert err.kind is ErrorKind.NOT_FOUND
    assert err.kind == "not-found"
    assert str(err) == "error[not-found]: /w/x: no such file or directory"
    assert not ErrorKind.SESSION_CLOSED.is_product
    newer = FilestoreError("exploded", "boom")
    assert newer.kind is ErrorKind.UNKNOWN
    assert "exploded" in newer.message
