//! The Node.js host (`hosts/node/`): the component the `filestore` binary writes,
//! transpiled with jco, run by JavaScript volumes and tool handlers.
//!
//! On first use, `npm ci` installs the pinned jco of `hosts/node/package-lock.json`
//! into a cache directory outside the clone (`$FILESTORE_NODE_CACHE`, else
//! `~/.cache/filestore/node-host-<hash of the lockfile>`), as `mcp.rs` does for the
//! Python SDK; a fresh clone needs only `node` and `npm`. Then the test writes the
//! component and its WIT with the real binary (`filestore component`), transpiles it,
//! runs the shared suite through the Rust host (`contract.rs`), and runs the Node
//! tests (`node --test hosts/node/test/`): the contract suite, whose every answer
//! must equal the Rust host's, a misbehaving JS volume, JS tool handlers, sessions,
//! the JS directory volume's confinement, and the embedding guide's Node snippet
//! (`docs/embedding.md`).

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

use crate::contract::{compare, repo_root, rust_answers, suite_path};

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

fn node_dir() -> PathBuf {
    repo_root().join("hosts/node")
}

/// The cache directory holding `node_modules` with the pinned jco, installed when
/// missing. Keyed by the lockfile, so a new pin installs afresh.
pub fn jco() -> PathBuf {
    let lock =
        std::fs::read(node_dir().join("package-lock.json")).expect("hosts/node/package-lock.json");
    let manifest = std::fs::read(node_dir().join("package.json")).expect("hosts/node/package.json");
    let key: String = Sha256::digest([lock.as_slice(), manifest.as_slice()].concat())[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let cache =
        crate::support::install::cache_dir("FILESTORE_NODE_CACHE", &format!("node-host-{key}"));
    let bin = cache.join("node_modules/.bin/jco");
    // `npm ci`: exactly the lockfile, which it never rewrites (the lockfile lists
    // every platform's optional packages, so npm 11 accepts it).
    let copy_manifest = |dir: &Path| {
        for f in ["package.json", "package-lock.json"] {
            std::fs::copy(node_dir().join(f), dir.join(f)).expect("copying the manifest");
        }
    };
    crate::support::install::npm(
        &cache,
        &bin,
        copy_manifest,
        &["ci", "--no-audit", "--no-fund", "--loglevel=error"],
    );
    bin
}

/// Writes the component and its WIT with the real binary into `dir`, and transpiles
/// it into `dir/gen`.
pub fn transpile(dir: &Path) -> PathBuf {
    let wasm = dir.join("filestore.wasm");
    let out = Command::new(BIN)
        .args(["component", "-o"])
        .arg(&wasm)
        .arg("--wit")
        .arg(dir.join("wit"))
        .output()
        .expect("running filestore component");
    assert!(out.status.success(), "filestore component: {}", String::from_utf8_lossy(&out.stderr));
    let gen_dir = dir.join("gen");
    let out = Command::new("node")
        .arg(node_dir().join("scripts/transpile.mjs"))
        .arg(&wasm)
        .arg(&gen_dir)
        .arg(jco())
        .output()
        .expect("running node");
    assert!(out.status.success(), "transpiling: {}", String::from_utf8_lossy(&out.stderr));
    gen_dir
}

/// The Node package is versioned as the WIT package it hosts (and its lockfile
/// agrees), as the Python host's `PACKAGE` is.
#[test]
fn node_package_version_is_the_wit_version() {
    let wit = std::fs::read_to_string(repo_root().join("wit/filestore.wit")).unwrap();
    let version = wit
        .lines()
        .find_map(|l| l.strip_prefix("package filestore:component@"))
        .and_then(|v| v.strip_suffix(';'))
        .expect("the WIT package line");
    for file in ["package.json", "package-lock.json"] {
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(node_dir().join(file)).unwrap()).unwrap();
        assert_eq!(json["version"], version, "hosts/node/{file}");
    }
    let index = std::fs::read_to_string(node_dir().join("src/index.js")).unwrap();
    assert!(index.contains(&format!("'filestore:component@{version}'")), "src/index.js PACKAGE");
}

#[test]
fn node_host_matches_the_rust_host_on_the_shared_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let gen_dir = transpile(tmp.path());
    let rust = rust_answers();
    let rust_file = tmp.path().join("rust-answers.json");
    std::fs::write(&rust_file, rust.to_string()).unwrap();
    let node_file = tmp.path().join("node-answers.json");
    let out = Command::new("node")
        .args(["--test", "--test-reporter=spec"])
        .arg("test/")
        .current_dir(node_dir())
        .env("FILESTORE_JS_GEN", &gen_dir)
        .env("FILESTORE_SUITE", suite_path())
        .env("FILESTORE_RUST_ANSWERS", &rust_file)
        .env("FILESTORE_NODE_ANSWERS", &node_file)
        .env("FILESTORE_WIT", tmp.path().join("wit"))
        .env("FILESTORE_BIN", BIN)
        .output()
        .expect("running node --test");
    let report = String::from_utf8_lossy(&out.stdout);
    // Echo the per-test lines so a CI log shows what the Node host checked.
    for line in report.lines().filter(|l| l.contains('✔') || l.contains('✖') || l.starts_with('ℹ'))
    {
        eprintln!("{line}");
    }
    assert!(
        out.status.success(),
        "the Node host tests failed:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let node: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&node_file).expect("the Node answers"))
            .expect("JSON answers");
    let (same, total, diffs) = compare(&rust, &node);
    assert!(diffs.is_empty(), "the Node host answered differently:\n{}", diffs.join("\n"));
    assert!(total > 300, "the suite has {total} answers; expected the whole suite");
    eprintln!("node host: {same} of {total} answers identical to the Rust host's");
}
