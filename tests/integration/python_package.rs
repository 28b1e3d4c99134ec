//! The Python package (`python/`): `filestore.Session` (one `filestore serve` over MCP
//! stdio) and `filestore.deepagents.FilestoreBackend` (deepagents' `BackendProtocol`),
//! tested by their own pytest suite (`python/tests/`) against the binary cargo just
//! built, with a deepagents agent run on a fake chat model (no network, no API key).
//!
//! The package, deepagents and pytest are installed on first use into a virtual
//! environment outside the clone (`$FILESTORE_PY_PACKAGE_VENV`, else
//! `~/.cache/filestore/py-package`), pinned by `python/pyproject.toml`,
//! `python/tests/constraints.txt` and `TEST_PINS`; when any of them changes the venv is
//! made anew. The package itself is reinstalled from a copy of `python/` on every run,
//! so the tests always import the checkout's code.
//!
//! deepagents' own backend tests (`python/tests/deepagents_suite/`) run against
//! FilestoreBackend from the unmodified copy in `shared/thirdparty/` beside the clone
//! (or `$DEEPAGENTS_TESTS`: the `libs/deepagents/tests/unit_tests/backends` directory
//! of a deepagents checkout at the pinned release; they are not on PyPI); the failures
//! classified there are expected (xfail), any other fails that test, and so does a
//! missing copy.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::support::cmd::{Ran, run};

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

/// What the tests need besides the package's own dependencies (versions also in
/// constraints.txt).
const TEST_PINS: &[&str] = &["pytest==9.2.0", "pytest-asyncio==1.5.0", "setuptools==84.2.1"];

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

/// A copy of `python/` without build leftovers, so installing never writes into the
/// checkout (setuptools builds in the source tree).
fn copy_package(to: &Path) {
    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let name = entry.file_name();
            let name_str = name.to_string_lossy();
            if name_str == "__pycache__" || name_str == "build" || name_str.ends_with(".egg-info") {
                continue;
            }
            let (src, dst) = (entry.path(), to.join(&name));
            if entry.file_type().unwrap().is_dir() {
                copy_dir(&src, &dst);
            } else {
                std::fs::copy(&src, &dst).unwrap();
            }
        }
    }
    let python = repo_root().join("python");
    std::fs::create_dir_all(to).unwrap();
    for file in ["pyproject.toml", "README.md"] {
        std::fs::copy(python.join(file), to.join(file)).unwrap();
    }
    copy_dir(&python.join("src"), &to.join("src"));
}

/// The venv's python with the pinned dependencies and this checkout's package.
pub fn python() -> &'static Path {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| {
        let root = repo_root();
        let pyproject = std::fs::read(root.join("python/pyproject.toml")).expect("python/pyproject.toml");
        let constraints_file = root.join("python/tests/constraints.txt");
        let constraints = std::fs::read(&constraints_file).expect("python/tests/constraints.txt");
        let mut hasher = Sha256::new();
        hasher.update(&pyproject);
        hasher.update(&constraints);
        hasher.update(TEST_PINS.join("\n"));
        let key: String = hasher.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect();
        let tmp = tempfile::tempdir().unwrap();
        let package = tmp.path().join("python");
        copy_package(&package);
        let version = Command::new("python3")
            .args(["-c", "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)"])
            .status();
        assert!(
            version.is_ok_and(|s| s.success()),
            "python3 on PATH must be 3.11 or newer (deepagents requires it) to test the Python package"
        );
        let mut pip: Vec<std::ffi::OsString> = vec!["-c".into(), constraints_file.into()];
        pip.push(format!("{}[deepagents]", package.display()).into());
        pip.extend(TEST_PINS.iter().map(|p| p.into()));
        let venv = crate::support::install::venv(&crate::support::install::Venv {
            dir: crate::support::install::cache_dir("FILESTORE_PY_PACKAGE_VENV", "py-package"),
            pip,
            key,
            ready: &|d| d.join("bin/python").exists(),
        });
        let py = venv.join("bin/python");
        // The checkout's code, every run (no dependency resolution, no download).
        run(Command::new(&py)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .args(["--no-deps", "--no-build-isolation", "--force-reinstall"])
            .arg(&package))
        .success();
        py
    })
}

fn pytest(args: &[&str], deepagents_tests: Option<&std::ffi::OsStr>) -> Ran {
    let mut cmd = Command::new(python());
    cmd.args(["-m", "pytest", "-p", "no:cacheprovider", "-q", "-rfE"])
        .args(args)
        .current_dir(repo_root())
        .env("FILESTORE_BIN", BIN)
        .env_remove("DEEPAGENTS_TESTS");
    if let Some(dir) = deepagents_tests {
        cmd.env("DEEPAGENTS_TESTS", dir);
    }
    run(&mut cmd)
}

fn summary(out: &Ran) -> String {
    out.stdout().lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").to_string()
}

#[test]
fn python_package_tests_pass() {
    let out = pytest(&["python/tests"], None).success();
    eprintln!("python package: {}", summary(&out));
}

/// Where deepagents' own backend tests are: `$DEEPAGENTS_TESTS`, else the unmodified
/// copy in `shared/thirdparty/` beside the clone (as CI and every developer has it).
fn deepagents_tests() -> PathBuf {
    if let Some(dir) = std::env::var_os("DEEPAGENTS_TESTS") {
        return PathBuf::from(dir);
    }
    let dir = repo_root().join(
        "../shared/thirdparty/deepagents-0.7.8-tests/libs/deepagents/tests/unit_tests/backends",
    );
    assert!(
        dir.is_dir(),
        "deepagents' backend tests are not at {}: put shared/ (with thirdparty/deepagents-0.7.8-tests) \
         beside the clone, or set DEEPAGENTS_TESTS to libs/deepagents/tests/unit_tests/backends of a \
         deepagents 0.7.8 checkout (git clone --branch deepagents==0.7.8 \
         https://github.com/langchain-ai/deepagents)",
        dir.display()
    );
    dir
}

/// deepagents' own backend tests on FilestoreBackend (see [`deepagents_tests`] for
/// where they come from); a missing copy fails, never passes.
#[test]
fn deepagents_own_backend_tests_pass_on_filestore() {
    let dir = deepagents_tests();
    // Native tracebacks: pytest's source rendering trips over some of deepagents'
    // test files on Python 3.11 (an AST recursion error).
    let out =
        pytest(&["python/tests/deepagents_suite", "--tb=native"], Some(dir.as_os_str())).success();
    eprintln!("deepagents' backend tests on FilestoreBackend: {}", summary(&out));
}
