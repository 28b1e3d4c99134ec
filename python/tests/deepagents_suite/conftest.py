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
from typing import Any

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

# -- failures expected at deepagents 0.7.8, each with its class ---------------------
# (b) a deliberate difference;
# (c) the test depends on FilesystemBackend's internals (private methods, patched
#     module globals, ripgrep or subprocess plumbing), not on backend behaviour.
# They are marked xfail (not strict), so the suite passes while they fail for any
# reason and an XPASS shows when one starts passing (e.g. after a product fix).

B_GLOB_DOTDIRS = (
    "(b) deliberate: as in a shell and ripgrep, `*` and `**` never enter a dot-directory the pattern does not "
    "name (`.git`, `.venv` do not flood an answer); deepagents lets a bare pattern match basenames inside them "
    "(`*.py` finds `.hidden/x.py`). `hidden: true` or a pattern naming the directory includes them"
)
B_LOSSY = "(b) deliberate: a non-UTF-8 text file is read with U+FFFD for the bad bytes (lossy_lines), not refused"
B_LINKS = (
    "(b) deliberate: links are listed, never followed or resolved "
    "(a link loop is just a link; grep does not enter a linked directory)"
)
C_PRIVATE = (
    "(c) internals: calls or patches a private FilesystemBackend method (_python_search, _to_virtual_path, "
    "_display_path, _resolve_path, _add_grep_context, _read_grep_context, _ripgrep_search results)"
)
C_RIPGREP = (
    "(c) internals: FilesystemBackend's ripgrep plumbing (subprocess.Popen or _resolve_ripgrep_path patched)"
)
C_GLOBALS = (
    "(c) internals: patches a FilesystemBackend module global or a stdlib call its walk uses (_DEFAULT_GLOB_TIMEOUT, "
    "time.monotonic, Path.rglob, Path.unlink, MAX_VIDEO_INPUT_BYTES, ASYNC_GREP_TIMEOUT, backend.grep)"
)

EXPECTED_FAILURES: dict[str, str] = {
    "test_filesystem_backend.py::test_filesystem_backend_read_non_utf8_file": B_LOSSY,
    "test_filesystem_backend.py::test_grep_preserves_symlink_path_in_results": B_LINKS,
    "test_filesystem_backend.py::test_ls_virtual_mode_reports_child_symlink_loop": B_LINKS,
    "test_filesystem_backend.py::test_filesystem_backend_rejects_oversized_video_before_read": C_GLOBALS,
    "test_filesystem_backend.py::test_filesystem_backend_rejects_oversized_mkv_before_read": C_GLOBALS,
    "test_filesystem_backend.py::test_glob_times_out_and_flags_truncated": C_GLOBALS,
    "test_filesystem_backend.py::test_glob_zero_match_still_honors_deadline": C_GLOBALS,
    "test_filesystem_backend.py::test_glob_returns_matches_gathered_before_deadline": C_GLOBALS,
    "test_filesystem_backend.py::test_glob_mid_iteration_oserror_is_error_not_truncated": C_GLOBALS,
    "test_filesystem_backend.py::test_grep_python_fallback_survives_mid_iteration_failure[False]": C_GLOBALS,
    "test_filesystem_backend.py::test_grep_python_fallback_survives_mid_iteration_failure[True]": C_GLOBALS,
    "test_filesystem_backend.py::test_grep_python_fallback_survives_runtime_error_mid_walk": C_GLOBALS,
    "test_filesystem_backend.py::test_grep_virtual_mode_sanitizes_runtime_error_details": C_GLOBALS,
    "test_filesystem_backend.py::test_grep_virtual_mode_sanitizes_oserror_path": C_GLOBALS,
    "test_filesystem_backend.py::TestFilesystemDelete::test_delete_unlink_failure_returns_error": C_GLOBALS,
    "test_filesystem_backend_async.py::test_filesystem_agrep_with_context_times_out": C_GLOBALS,
    "test_filesystem_backend.py::test_resolve_ripgrep_logs_once_when_missing": C_RIPGREP,
    "test_filesystem_backend.py::test_resolve_ripgrep_uses_resolved_path_in_argv": C_RIPGREP,
    "test_filesystem_backend.py::test_ripgrep_timeout_logs_warning": C_RIPGREP,
    "test_filesystem_backend.py::test_ripgrep_timeout_returns_partial_results_when_output_captured": C_RIPGREP,
    "test_filesystem_backend.py::test_ripgrep_exec_race_logs_warning_and_clears_cache": C_RIPGREP,
    "test_filesystem_backend.py::test_ripgrep_nonzero_returncode_falls_back_with_warning": C_RIPGREP,
    "test_filesystem_backend.py::test_ripgrep_nonzero_returncode_discards_partial_output": C_RIPGREP,
    "test_filesystem_backend.py::test_ripgrep_drains_stderr_while_streaming_stdout": C_RIPGREP,
    "test_filesystem_backend.py::test_ripgrep_streaming_caps_total_and_terminates": C_RIPGREP,
    **{
        f"test_filesystem_backend.py::{name}": C_PRIVATE
        for name in (
            "TestToVirtualPath::test_returns_forward_slash_relative_path",
            "TestToVirtualPath::test_cwd_itself_returns_slash_dot",
            "TestToVirtualPath::test_outside_cwd_raises_value_error",
            "TestDisplayPath::test_non_virtual_returns_real_path",
            "TestDisplayPath::test_virtual_returns_virtual_path",
            "TestDisplayPath::test_virtual_out_of_root_falls_back_to_basename",
            "TestDisplayPath::test_virtual_root_path_falls_back_to_slash",
            "TestGrepPythonFallbackTimeout::test_python_search_times_out_with_zero_timeout",
            "TestGrepPythonFallbackTimeout::test_python_search_matches_literal_substrings",
            "TestGrepPythonFallbackTimeout::test_python_search_streams_large_file_with_per_line_timeout",
            "TestGrepPythonFallbackTimeout::test_python_search_does_not_match_regex_metacharacters",
            "TestGrepPythonFallbackTimeout::test_python_search_strips_carriage_returns",
            "TestGrepPythonFallbackTimeout::test_python_search_skips_non_utf8_file",
            "TestGrepPythonFallbackTimeout::test_python_search_reports_file_error_after_partial_scan",
            "TestGrepPythonFallbackTimeout::test_python_search_surfaces_open_failure_without_scanned_lines",
            "TestGrepPythonFallbackTimeout::test_python_search_returns_matches_when_another_file_errors",
            "TestGrepPythonFallbackTimeout::test_python_search_glob_filters_files",
            "TestGrepPythonFallbackTimeout::test_python_search_glob_matches_directory_components",
            "TestGrepPythonFallbackTimeout::test_python_search_skips_file_over_size_limit",
            "TestGrepPythonFallbackTimeout::test_python_search_non_virtual_mode_keys_on_absolute_path",
            "TestGrepPythonFallbackTimeout::test_python_search_accumulates_multiple_matches_per_file",
            "TestGrepPythonFallbackTimeout::test_python_search_handles_cr_only_line_endings",
            "TestGrepPythonFallbackTimeout::test_grep_flags_timeout_as_truncated_with_partial_results",
            "TestFilesystemGrepContext::test_default_and_zero_preserve_existing_matches",
            "TestFilesystemGrepContext::test_ripgrep_context_treats_bare_carriage_returns_as_text",
            "TestFilesystemGrepContext::test_omitted_match_is_not_returned_as_truncated_context",
            "TestFilesystemGrepContext::test_context_read_failure_keeps_matches_and_surfaces_error",
            "TestFilesystemGrepContext::test_context_resolver_runtime_error_keeps_matches_and_surfaces_error",
            "TestFilesystemGrepContext::test_read_grep_context_reports_unreadable_file",
            "TestFilesystemGrepContext::test_context_error_is_appended_to_existing_partial_error",
            "TestFilesystemDelete::test_delete_resolve_failure_returns_error",
        )
    },
    **{
        f"test_glob_semantics.py::{name}": B_GLOB_DOTDIRS
        for name in (
            "TestFilesystemBackendGlobMatrix::test_matrix[*.py-/-expected0]",
            "TestFilesystemBackendGlobMatrix::test_matrix[*.yml-/-expected8]",
            "TestFilesystemBackendGlobMatrix::test_matrix[*-/-expected13]",
            "TestFilesystemBackendGlobMatrix::test_matrix[*.{py,md}-/-expected14]",
            "TestFilesystemBackendGlobMatrix::test_matrix[*.{yml,yaml}-/-expected15]",
            "TestFilesystemBackendGlobMatrix::test_matrix[?.py-/-expected16]",
            "TestFilesystemBackendGlobMatrix::test_matrix[[!a].py-/-expected18]",
            "TestFilesystemBackendGlobMatrix::test_matrix[[^a].py-/-expected19]",
            "TestSandboxGlobScriptMatrix::test_matches_filesystem_backend[*.py]",
            "TestSandboxGlobScriptMatrix::test_matches_filesystem_backend[*.yml]",
            "TestSandboxGlobScriptMatrix::test_matches_filesystem_backend[*]",
            "TestSandboxGlobScriptMatrix::test_matches_filesystem_backend[*.{py,yml}]",
            "TestSandboxGlobScriptMatrix::test_matches_filesystem_backend[?.py]",
            "TestSandboxGlobScriptMatrix::test_matches_filesystem_backend[[!a].py]",
            "TestSandboxGlobScriptMatrix::test_matches_filesystem_backend[[^a].py]",
        )
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
    """Mark the classified failures xfail (not strict), with their class as the reason."""
    if _suite_dir() is None:
        return
    for item in items:
        for key, reason in EXPECTED_FAILURES.items():
            if item.nodeid.endswith("::" + key):
                item.add_marker(pytest.mark.xfail(reason=reason, strict=False))
                break


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
