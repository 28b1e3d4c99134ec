//! The Python package (`python/`) as the wheel users install: `filestore.Session`
//! (the sandbox in process, the wheel's native extension), `filestore.McpSession` (one
//! `filestore serve` over MCP stdio), `filestore.deepagents.FilestoreBackend`
//! (deepagents' `BackendProtocol`) and the wheel's `filestore` command, tested by
//! their own pytest suite (`python/tests/`), with a deepagents agent run on a fake chat
//! model (no network, no API key).
//!
//! The wheel is built by maturin from this checkout once per hash of its sources
//! ([`wheel`]) and installed anew, without its dependencies, on every run into a
//! virtual environment outside the clone (`$FILESTORE_PY_PACKAGE_VENV`, else
//! `~/.cache/filestore/py-package`) that holds deepagents, pytest and the rest, pinned
//! by `python/pyproject.toml`, `python/tests/constraints.txt` and `TEST_PINS`; when
//! any of them changes that venv is made anew. `McpSession`'s tests use the binary
//! cargo just built (`$FILESTORE_BIN`).
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
const TEST_PINS: &[&str] = &["pytest==9.2.0", "pytest-asyncio==1.5.0"];

/// The wheel's build backend (python/pyproject.toml's `build-system`), installed into
/// a venv of its own in the cache.
const MATURIN: &str = "maturin==1.16.0";

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

/// Feeds every file under `path` (sorted, build leftovers skipped) into `hasher`.
fn hash_tree(hasher: &mut Sha256, root: &Path, path: &Path) {
    let meta = std::fs::symlink_metadata(path).unwrap();
    if meta.is_dir() {
        let mut names: Vec<_> =
            std::fs::read_dir(path).unwrap().map(|e| e.unwrap().file_name()).collect();
        names.sort();
        for name in names {
            let n = name.to_string_lossy();
            if n == "target" || n == "__pycache__" || n == "build" || n.ends_with(".egg-info") {
                continue;
            }
            hash_tree(hasher, root, &path.join(&name));
        }
    } else if meta.is_file() {
        hasher.update(path.strip_prefix(root).unwrap().to_string_lossy().as_bytes());
        hasher.update(std::fs::read(path).unwrap());
    }
}

/// The wheel of this checkout (`maturin build` in `python/`), built once
/// per hash of its sources into `~/.cache/filestore/wheels/HASH/`
/// (`$FILESTORE_WHEELS`). It is built in the dev profile into this test's own target
/// directory, so it reuses the dependencies `cargo test` compiled (optimised, as
/// `[profile.dev.package."*"]` says) instead of a release build; maturin strips it.
fn wheel() -> PathBuf {
    let root = repo_root();
    let mut hasher = Sha256::new();
    for part in ["Cargo.toml", "Cargo.lock", "host", "guest", "wit", "python/native", "python/src"]
    {
        hash_tree(&mut hasher, &root, &root.join(part));
    }
    for file in ["python/pyproject.toml", "python/README.md"] {
        hash_tree(&mut hasher, &root, &root.join(file));
    }
    let key: String = hasher.finalize()[..8].iter().map(|b| format!("{b:02x}")).collect();
    let out = crate::support::install::cache_dir("FILESTORE_WHEELS", "wheels").join(&key);
    let find = |dir: &Path| -> Option<PathBuf> {
        std::fs::read_dir(dir)
            .ok()?
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "whl"))
    };
    if let Some(w) = find(&out) {
        return w;
    }
    let maturin = crate::support::install::venv(&crate::support::install::Venv {
        dir: crate::support::install::cache_dir("FILESTORE_MATURIN_VENV", "maturin"),
        pip: vec![MATURIN.into()],
        key: MATURIN.into(),
        ready: &|d| d.join("bin/maturin").exists(),
    });
    // target/debug/filestore -> target: the directory cargo test builds in.
    let target = Path::new(BIN).parent().and_then(Path::parent).expect("the target directory");
    let building = out.with_extension("building");
    let _ = std::fs::remove_dir_all(&building);
    run(Command::new(maturin.join("bin/maturin"))
        .args(["build", "--quiet", "--profile", "dev", "--strip", "--interpreter", "python3"])
        .arg("--out")
        .arg(&building)
        // maturin reads ./pyproject.toml (its -m names the crate's Cargo.toml).
        .current_dir(root.join("python"))
        .env("CARGO_TARGET_DIR", target))
    .success();
    let _ = std::fs::remove_dir_all(&out);
    std::fs::rename(&building, &out).unwrap();
    find(&out).expect("maturin wrote a wheel")
}

/// The venv's python with the pinned dependencies and this checkout's wheel,
/// installed anew (without its dependencies) on every run.
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
        let version = Command::new("python3")
            .args(["-c", "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)"])
            .status();
        assert!(
            version.is_ok_and(|s| s.success()),
            "python3 on PATH must be 3.11 or newer (deepagents requires it) to test the Python package"
        );
        let wheel = wheel();
        let mut pip: Vec<std::ffi::OsString> = vec!["-c".into(), constraints_file.into()];
        pip.push(format!("filestore[deepagents] @ file://{}", wheel.display()).into());
        pip.extend(TEST_PINS.iter().map(|p| p.into()));
        let venv = crate::support::install::venv(&crate::support::install::Venv {
            dir: crate::support::install::cache_dir("FILESTORE_PY_PACKAGE_VENV", "py-package"),
            pip,
            key,
            ready: &|d| d.join("bin/python").exists(),
        });
        let py = venv.join("bin/python");
        // This checkout's wheel, every run (no dependency resolution, no download).
        run(Command::new(&py)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .args(["--no-deps", "--force-reinstall"])
            .arg(&wheel))
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
