"""deepagents' own backend tests, run against FilestoreBackend.

deepagents' test suite is not part of its PyPI release, and its code is not ours to
commit, so this conftest runs it from a checkout named by `$DEEPAGENTS_TESTS`: the
`libs/deepagents/tests/unit_tests/backends` directory of a deepagents checkout at the
pinned release (0.7.8), e.g.

    git --git-dir=DEEPAGENTS_REPO archive 'deepagents==0.7.8' libs/deepagents/tests | tar -x -C /tmp/da
    DEEPAGENTS_TESTS=/tmp/da/libs/deepagents/tests/unit_tests/backends pytest python/tests/deepagents_suite

Without the variable nothing is collected here.

Only the backend construction changes: before the test modules are imported,
`deepagents.backends.filesystem.FilesystemBackend` (and the name re-exported by
`deepagents.backends`) becomes `FilesystemBackendOnFilestore`, which takes
FilesystemBackend's arguments and builds a FilestoreBackend serving the same
`root_dir`: at `/` in virtual mode, at its own host path for `virtual_mode=False` (so
host paths inside the root name the same files). It also carries an inert
`_ripgrep_search` attribute, which tests patch to pick FilesystemBackend's Python
fallback before checking grep's public answers. Everything else in the tests runs
unmodified.

The files run are the ones that test the public behaviour of a filesystem backend:
`FILES` below. The others in that directory test other backends (state, store,
sandbox, LangSmith, context hub, local shell: a shell backend built on
FilesystemBackend's internals), deepagents' helpers (`test_utils.py`,
`test_file_format.py`, `test_protocol.py`, `test_timeout_compat.py`), and do not
construct a FilesystemBackend whose behaviour they check.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

ENV = "DEEPAGENTS_TESTS"

#: deepagents' test files that exercise FilesystemBackend's public behaviour.
FILES = (
    "test_filesystem_backend.py",
    "test_filesystem_backend_async.py",
    "test_glob_semantics.py",
    "test_composite_backend.py",
    "test_composite_backend_async.py",
)

_live: list[Any] = []

# -- failures expected at deepagents 0.7.8 -----------------------------------------
# Each is a strict xfail with its reason and the exception it fails with: a test that
# passes, or fails with another exception, fails the run. Two kinds:
# (b) a deliberate difference of filestore's behaviour from FilesystemBackend's;
# (c) the test reaches into FilesystemBackend's internals (a private method, a module
#     global or stdlib call it patches, its ripgrep subprocess), which FilestoreBackend
#     does not have or never goes through.


class Expected(NamedTuple):
    """Why a test fails on FilestoreBackend, and the exception it fails with."""

    reason: str
    raises: type[BaseException]


LOSSY_READ = Expected(
    "(b) expects reading a GBK-encoded file to give an error; filestore reads non-UTF-8 text with U+FFFD for "
    "the bad bytes (as `filestore_read` does), so `result.error` is None",
    AssertionError,
)
LINKED_DIR_GREP = Expected(
    "(b) greps a symlinked directory expecting matches through it; filestore lists links but never follows "
    "them, so grep finds nothing there (runs only where `rg` is on PATH)",
    AssertionError,
)
LINK_LOOP_LS = Expected(
    "(b) expects `ls /` to report a child link loop as a `child error:`; filestore lists a link as a link and "
    "never resolves it, so a loop is an ordinary entry and `ls` has no error",
    AssertionError,
)
DOTDIR_GLOB = Expected(
    "(b) expects a bare pattern (`*.py`, `*`, `?.py`...) at `/` to match files inside dot-directories "
    "(`.hidden/x.py`, `.github/workflows/ci.yml`); filestore's glob, as a shell and ripgrep, never enters a "
    "dot-directory the pattern does not name (`hidden: true` or naming the directory includes them)",
    AssertionError,
)
DOTDIR_GLOB_SCRIPT = Expected(
    "(b) compares deepagents' sandbox glob script, which matches files inside dot-directories for a bare "
    "pattern, with the backend's glob; filestore's glob never enters a dot-directory the pattern does not name",
    AssertionError,
)
VIDEO_LIMIT = Expected(
    "(c) patches the module global `MAX_VIDEO_INPUT_BYTES` to 3; FilestoreBackend's read limits are "
    "filestore's own, which the global does not reach, so the 4-byte clip is read without an error",
    AssertionError,
)
GLOB_DEADLINE = Expected(
    "(c) patches FilesystemBackend's glob deadline (`_DEFAULT_GLOB_TIMEOUT`, `time.monotonic`) to expire at "
    "once; filestore's glob runs in the sandbox under its own limits, so the answer is whole and "
    "`truncated` is False",
    AssertionError,
)
RGLOB_FAULT = Expected(
    "(c) makes `pathlib.Path.rglob` raise mid-walk; filestore walks directories in Rust, never through "
    "pathlib, so the walk completes and `result.error` is None",
    AssertionError,
)
UNLINK_FAULT = Expected(
    "(c) makes `pathlib.Path.unlink` raise; filestore deletes in Rust, never through pathlib, so the "
    "file is deleted and `result.path` is set",
    AssertionError,
)
AGREP_TIMEOUT = Expected(
    "(c) patches `ASYNC_GREP_TIMEOUT` and the instance's `grep` to sleep; FilestoreBackend.agrep calls "
    "filestore's search itself, not `self.grep` under that timeout, so it returns the matches",
    AssertionError,
)
RIPGREP_FAKE = Expected(
    "(c) fakes FilesystemBackend's ripgrep process (`shutil.which`, `subprocess.Popen` patched in its "
    "module) and checks its logs or output; filestore's grep never starts ripgrep, so the fake is never "
    "called",
    AssertionError,
)
RIPGREP_FAKE_NEVER_CALLED = Expected(
    "(c) fakes FilesystemBackend's ripgrep process (`subprocess.Popen` patched in its module) and reads "
    "what the fake recorded; filestore's grep never starts ripgrep, so nothing was recorded (KeyError)",
    KeyError,
)
CANNED_CR_LINE = Expected(
    "(c) patches `_ripgrep_search` to return a bare-CR file as one line ending in `\\r`; filestore's search "
    "never calls that method and ends the line before its final `\\r`",
    AssertionError,
)
CANNED_TRUNCATION = Expected(
    "(c) patches `_ripgrep_search` to return one of two matches, flagged truncated; filestore's search never "
    "calls that method and returns both matches, not truncated",
    AssertionError,
)


def _private(method: str, use: str = "calls") -> Expected:
    return Expected(
        f"(c) {use} FilesystemBackend's private `{method}`, which FilestoreBackend does not have (AttributeError)",
        AttributeError,
    )


EXPECTED_FAILURES: dict[str, Expected] = {
    "test_filesystem_backend.py::test_filesystem_backend_read_non_utf8_file": LOSSY_READ,
    "test_filesystem_backend.py::test_grep_preserves_symlink_path_in_results": LINKED_DIR_GREP,
    "test_filesystem_backend.py::test_ls_virtual_mode_reports_child_symlink_loop": LINK_LOOP_LS,
    "test_filesystem_backend.py::test_filesystem_backend_rejects_oversized_video_before_read": VIDEO_LIMIT,
    "test_filesystem_backend.py::test_filesystem_backend_rejects_oversized_mkv_before_read": VIDEO_LIMIT,
    "test_filesystem_backend.py::test_glob_times_out_and_flags_truncated": GLOB_DEADLINE,
    "test_filesystem_backend.py::test_glob_zero_match_still_honors_deadline": GLOB_DEADLINE,
    "test_filesystem_backend.py::test_glob_returns_matches_gathered_before_deadline": GLOB_DEADLINE,
    "test_filesystem_backend.py::test_glob_mid_iteration_oserror_is_error_not_truncated": RGLOB_FAULT,
    "test_filesystem_backend.py::test_grep_python_fallback_survives_mid_iteration_failure[False]": RGLOB_FAULT,
    "test_filesystem_backend.py::test_grep_python_fallback_survives_mid_iteration_failure[True]": RGLOB_FAULT,
    "test_filesystem_backend.py::test_grep_python_fallback_survives_runtime_error_mid_walk": RGLOB_FAULT,
    "test_filesystem_backend.py::test_grep_virtual_mode_sanitizes_runtime_error_details": RGLOB_FAULT,
    "test_filesystem_backend.py::test_grep_virtual_mode_sanitizes_oserror_path": RGLOB_FAULT,
    "test_filesystem_backend.py::TestFilesystemDelete::test_delete_unlink_failure_returns_error": UNLINK_FAULT,
    "test_filesystem_backend_async.py::test_filesystem_agrep_with_context_times_out": AGREP_TIMEOUT,
    "test_filesystem_backend.py::test_resolve_ripgrep_logs_once_when_missing": RIPGREP_FAKE,
    "test_filesystem_backend.py::test_resolve_ripgrep_uses_resolved_path_in_argv": RIPGREP_FAKE_NEVER_CALLED,
    "test_filesystem_backend.py::test_ripgrep_timeout_logs_warning": RIPGREP_FAKE,
    "test_filesystem_backend.py::test_ripgrep_timeout_returns_partial_results_when_output_captured": RIPGREP_FAKE,
    "test_filesystem_backend.py::test_ripgrep_exec_race_logs_warning_and_clears_cache": RIPGREP_FAKE,
    "test_filesystem_backend.py::test_ripgrep_nonzero_returncode_falls_back_with_warning": RIPGREP_FAKE,
    "test_filesystem_backend.py::test_ripgrep_nonzero_returncode_discards_partial_output": RIPGREP_FAKE,
    "test_filesystem_backend.py::test_ripgrep_drains_stderr_while_streaming_stdout": RIPGREP_FAKE,
    "test_filesystem_backend.py::test_ripgrep_streaming_caps_total_and_terminates": RIPGREP_FAKE_NEVER_CALLED,
    "test_filesystem_backend.py::TestFilesystemGrepContext::test_ripgrep_context_treats_bare_carriage_returns_as_text": (
        CANNED_CR_LINE
    ),
    "test_filesystem_backend.py::TestFilesystemGrepContext::test_omitted_match_is_not_returned_as_truncated_context": (
        CANNED_TRUNCATION
    ),
    **{
        f"test_filesystem_backend.py::TestToVirtualPath::{name}": _private("_to_virtual_path")
        for name in (
            "test_returns_forward_slash_relative_path",
            "test_cwd_itself_returns_slash_dot",
            "test_outside_cwd_raises_value_error",
        )
    },
    **{
        f"test_filesystem_backend.py::TestDisplayPath::{name}": _private("_display_path")
        for name in (
            "test_non_virtual_returns_real_path",
            "test_virtual_returns_virtual_path",
            "test_virtual_out_of_root_falls_back_to_basename",
            "test_virtual_root_path_falls_back_to_slash",
        )
    },
    **{
        f"test_filesystem_backend.py::TestGrepPythonFallbackTimeout::{name}": _private("_python_search")
        for name in (
            "test_python_search_times_out_with_zero_timeout",
            "test_python_search_matches_literal_substrings",
            "test_python_search_streams_large_file_with_per_line_timeout",
            "test_python_search_does_not_match_regex_metacharacters",
            "test_python_search_strips_carriage_returns",
            "test_python_search_skips_non_utf8_file",
            "test_python_search_reports_file_error_after_partial_scan",
            "test_python_search_surfaces_open_failure_without_scanned_lines",
            "test_python_search_returns_matches_when_another_file_errors",
            "test_python_search_glob_filters_files",
            "test_python_search_glob_matches_directory_components",
            "test_python_search_skips_file_over_size_limit",
            "test_python_search_non_virtual_mode_keys_on_absolute_path",
            "test_python_search_accumulates_multiple_matches_per_file",
            "test_python_search_handles_cr_only_line_endings",
        )
    },
    "test_filesystem_backend.py::TestGrepPythonFallbackTimeout::test_grep_flags_timeout_as_truncated_with_partial_results": (
        _private("_python_search", "patches")
    ),
    "test_filesystem_backend.py::TestFilesystemGrepContext::test_default_and_zero_preserve_existing_matches": (
        _private("_add_grep_context", "patches")
    ),
    "test_filesystem_backend.py::TestFilesystemGrepContext::test_context_error_is_appended_to_existing_partial_error": (
        _private("_add_grep_context", "patches")
    ),
    "test_filesystem_backend.py::TestFilesystemGrepContext::test_context_read_failure_keeps_matches_and_surfaces_error": (
        _private("_read_grep_context", "patches")
    ),
    "test_filesystem_backend.py::TestFilesystemGrepContext::test_read_grep_context_reports_unreadable_file": (
        _private("_read_grep_context")
    ),
    (
        "test_filesystem_backend.py::TestFilesystemGrepContext::"
        "test_context_resolver_runtime_error_keeps_matches_and_surfaces_error"
    ): _private("_resolve_path"),
    "test_filesystem_backend.py::TestFilesystemDelete::test_delete_resolve_failure_returns_error": (
        _private("_resolve_path", "patches")
    ),
    **{
        f"test_glob_semantics.py::TestFilesystemBackendGlobMatrix::test_matrix[{case}]": DOTDIR_GLOB
        for case in (
            "*.py-/-expected0",
            "*.yml-/-expected8",
            "*-/-expected13",
            "*.{py,md}-/-expected14",
            "*.{yml,yaml}-/-expected15",
            "?.py-/-expected16",
            "[!a].py-/-expected18",
            "[^a].py-/-expected19",
        )
    },
    **{
        f"test_glob_semantics.py::TestSandboxGlobScriptMatrix::test_matches_filesystem_backend[{case}]": DOTDIR_GLOB_SCRIPT
        for case in ("*.py", "*.yml", "*", "*.{py,yml}", "?.py", "[!a].py", "[^a].py")
    },
}


def _suite_dir() -> Path | None:
    value = os.environ.get(ENV)
    if not value:
        return None
    path = Path(value).expanduser().resolve()
    if not (path / FILES[0]).is_file():
        raise pytest.UsageError(f"${ENV}={value!r} is not deepagents' tests/unit_tests/backends directory (no {FILES[0]})")
    return path


def _install_factory() -> None:
    """Replace FilesystemBackend by a FilestoreBackend factory in the modules tests import it from."""
    import deepagents.backends
    import deepagents.backends.filesystem as fs_module

    from filestore.deepagents import FilestoreBackend

    if getattr(fs_module.FilesystemBackend, "_is_filestore_stand_in", False):
        return

    class FilesystemBackendOnFilestore(FilestoreBackend):
        """FilesystemBackend's constructor, FilestoreBackend's behaviour.

        `root_dir` (default: the current directory, as FilesystemBackend) is served at
        `/` in virtual mode. With `virtual_mode=False` it is served at its own host
        path, so the host paths those tests use inside the root name the same files
        (paths outside the root still name nothing). `cwd`, `virtual_mode` and
        `max_file_size_bytes` are kept as attributes because a few tests read them.
        """

        _is_filestore_stand_in = True

        #: FilesystemBackend's switch between ripgrep and its Python fallback. Tests
        #: patch it to force the fallback and then check grep's public answers;
        #: filestore has a single search, so the attribute exists only to be
        #: patchable and is never called.
        _ripgrep_search = None

        def __init__(self, root_dir: str | Path | None = None, virtual_mode: bool = True, max_file_size_mb: int = 10) -> None:  # noqa: FBT001, FBT002
            root = Path(root_dir).resolve() if root_dir else Path.cwd()
            super().__init__(root, mount_point="/" if virtual_mode else str(root))
            self.cwd = root
            self.virtual_mode = virtual_mode
            self.max_file_size_bytes = max_file_size_mb * 1024 * 1024
            _live.append(self)

    FilesystemBackendOnFilestore.__name__ = "FilesystemBackend"
    FilesystemBackendOnFilestore.__qualname__ = "FilesystemBackend"
    fs_module.FilesystemBackend = FilesystemBackendOnFilestore
    deepagents.backends.FilesystemBackend = FilesystemBackendOnFilestore


class UpstreamSuite(pytest.File):
    """Collects deepagents' test modules from `$DEEPAGENTS_TESTS` (anchored on this conftest file)."""

    def collect(self) -> Iterator[pytest.Module]:
        """Install the factory, then yield one Module per file in `FILES`."""
        suite = _suite_dir()
        if suite is None:
            return
        _install_factory()
        plugins = self.config.pluginmanager
        if not plugins.has_plugin("filestore-deepagents-report"):
            plugins.register(_Report(), "filestore-deepagents-report")
        for name in FILES:
            path = suite / name
            if path.is_file():
                yield pytest.Module.from_parent(self, path=path)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Anchor the upstream suite on this very file, the only one in its directory."""
    if file_path == Path(__file__) and os.environ.get(ENV):
        return UpstreamSuite.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the classified failures strict xfail (their reason and exception), and make
    deepagents' own xfail marks strict too; a classified test that was not collected is
    an error, so the list cannot outlive the tests it names."""
    if _suite_dir() is None:
        return
    matched: set[str] = set()
    for item in items:
        key = item.nodeid.split("::", 1)[1] if "::" in item.nodeid else item.nodeid
        expected = EXPECTED_FAILURES.get(key)
        if expected is not None:
            matched.add(key)
            item.add_marker(pytest.mark.xfail(strict=True, reason=expected.reason, raises=expected.raises))
            continue
        # deepagents' own marks (`strict` unset, so pytest's default, not strict):
        # the same mark, strict, ahead of it (pytest takes the first xfail mark).
        for mark in list(item.iter_markers(name="xfail")):
            if "strict" not in mark.kwargs:
                item.add_marker(pytest.mark.xfail(*mark.args, **mark.kwargs, strict=True), append=False)
    filtered = config.option.keyword or config.option.markexpr or config.option.deselect
    unmatched = sorted(set(EXPECTED_FAILURES) - matched)
    if unmatched and not filtered:
        raise pytest.UsageError(
            "deepagents_suite/conftest.py classifies tests that were not collected (renamed or removed upstream?): "
            + ", ".join(unmatched)
        )


_used: set[str] = set()  # the nodeids of tests that built a FilestoreBackend


@pytest.fixture(autouse=True)
def _close_backends(request: pytest.FixtureRequest) -> Iterator[None]:
    """Stop the filestore processes a test started (tests never close their backends),
    noting which tests built one."""
    yield
    if _live:
        _used.add(request.node.nodeid)
    while _live:
        _live.pop().close()


class _Report:
    """A plugin registered for the whole session (a conftest's hooks only see items
    under its own directory, and deepagents' modules live elsewhere): it records
    outcomes and prints how many tests exercised FilestoreBackend."""

    def __init__(self) -> None:
        self.outcomes: dict[str, str] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Remember each test's outcome."""
        if report.when == "call" or report.outcome != "passed":
            xfail = hasattr(report, "wasxfail")
            outcome = report.outcome
            if xfail:
                outcome = "xpassed" if report.outcome == "passed" else "xfailed"
            self.outcomes.setdefault(report.nodeid, outcome)
            if report.when == "call":
                self.outcomes[report.nodeid] = outcome

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Say how many of deepagents' tests built a FilestoreBackend, by outcome."""
        if not _used:
            return
        counts: dict[str, int] = {}
        for nodeid in _used:
            outcome = self.outcomes.get(nodeid, "unknown")
            counts[outcome] = counts.get(outcome, 0) + 1
        detail = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
        terminalreporter.write_line(f"deepagents tests that built a FilestoreBackend: {len(_used)} ({detail})")
