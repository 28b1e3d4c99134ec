//! The Python host (`hosts/python/`): the component the `filestore` binary writes,
//! run by wasmtime-py's component API with Python volumes and tool handlers.
//!
//! wasmtime-py (pinned in `hosts/python/requirements.txt`) is installed on first use
//! into a virtual environment outside the clone (`$FILESTORE_WASMTIME_PY_VENV`, else
//! `~/.cache/filestore/wasmtime-py-<hash of requirements.txt>`), as `mcp.rs` does for
//! the MCP SDK. The Python tests run the shared suite's memory-backend cases (answers
//! must equal the Rust host's), a misbehaving Python volume, a deadline that poisons
//! one session only, the compiled-component cache, and the embedding guide's Python
//! snippet (`docs/embedding.md`).

use std::path::PathBuf;
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::common::repo_root;
use crate::contract::{compare, rust_answers, suite_path};
use crate::support::suite::{Runner, Tally};

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

/// The venv's python, created with the pinned wasmtime when missing.
pub fn python() -> PathBuf {
    use crate::support::install::{Venv, cache_dir, imports, venv};
    let req_file = repo_root().join("hosts/python/requirements.txt");
    let req = std::fs::read(&req_file).expect("hosts/python/requirements.txt");
    let key: String = Sha256::digest(&req)[..6].iter().map(|b| format!("{b:02x}")).collect();
    let dir = venv(&Venv {
        dir: cache_dir("FILESTORE_WASMTIME_PY_VENV", &format!("wasmtime-py-{key}")),
        pip: vec!["-r".into(), req_file.into()],
        key,
        ready: &|d| imports(d, "wasmtime.component"),
    });
    dir.join("bin/python")
}

#[test]
fn python_host_matches_the_rust_host_on_the_shared_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let wasm = tmp.path().join("filestore.wasm");
    let out = Command::new(BIN)
        .args(["component", "-o"])
        .arg(&wasm)
        .output()
        .expect("running filestore component");
    assert!(out.status.success(), "filestore component: {}", String::from_utf8_lossy(&out.stderr));
    let rust = rust_answers();
    let rust_file = tmp.path().join("rust-answers.json");
    std::fs::write(&rust_file, rust.to_string()).unwrap();
    let py_file = tmp.path().join("python-answers.json");
    let ran = crate::support::cmd::run(
        Command::new(python())
            .args(["-m", "unittest", "-v", "test_contract"])
            .current_dir(repo_root().join("hosts/python"))
            .env("FILESTORE_COMPONENT", &wasm)
            .env("FILESTORE_SUITE", suite_path())
            .env("FILESTORE_RUST_ANSWERS", &rust_file)
            .env("FILESTORE_PY_ANSWERS", &py_file)
            .env("PYTHONWARNINGS", "ignore::ResourceWarning"),
    );
    for line in ran.stderr().lines().filter(|l| l.contains(" ... ")) {
        eprintln!("{line}");
    }
    Runner::Unittest.check(
        &ran,
        "the Python host tests (hosts/python/test_contract.py)",
        PYTHON_HOST_TESTS,
    );
    let py: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&py_file).expect("the Python answers"))
            .expect("JSON answers");
    let memory_only = serde_json::Value::Array(
        rust.as_array().unwrap().iter().filter(|c| c["backend"] == "memory").cloned().collect(),
    );
    let (same, total, diffs) = compare(&memory_only, &py);
    Tally::counted(total, diffs.len()).check(
        "the Python host's answers to the shared suite's memory cases",
        PYTHON_HOST_ANSWERS,
        &format!("the Python host answered differently:\n{}", diffs.join("\n")),
    );
    eprintln!("python host: {same} of {total} answers identical to the Rust host's");
}

/// The `test_*` methods of hosts/python/test_contract.py.
const PYTHON_HOST_TESTS: usize = 11;

/// The answers of tests/contract/suite.json's memory-backend cases (a step each).
const PYTHON_HOST_ANSWERS: usize = 263;
