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

use crate::common::repo_root;
use crate::contract::{compare, rust_answers, suite_path};
use crate::support::suite::{Runner, Tally};

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

/// Writes the component (`dir/filestore.wasm`) and its WIT (`dir/wit`) with the real
/// binary; the component's path.
fn write_component(dir: &Path) -> PathBuf {
    let wasm = dir.join("filestore.wasm");
    let out = Command::new(BIN)
        .args(["component", "-o"])
        .arg(&wasm)
        .arg("--wit")
        .arg(dir.join("wit"))
        .output()
        .expect("running filestore component");
    assert!(out.status.success(), "filestore component: {}", String::from_utf8_lossy(&out.stderr));
    wasm
}

/// Writes the component and its WIT with the real binary into `dir`, and transpiles
/// it into `dir/gen`.
pub fn transpile(dir: &Path) -> PathBuf {
    let wasm = write_component(dir);
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
    let ran = crate::support::cmd::run_with_hint(
        Command::new("node")
            .args(["--test", "--test-reporter=spec"])
            .arg("test/")
            .current_dir(node_dir())
            .env("FILESTORE_JS_GEN", &gen_dir)
            .env("FILESTORE_SUITE", suite_path())
            .env("FILESTORE_RUST_ANSWERS", &rust_file)
            .env("FILESTORE_NODE_ANSWERS", &node_file)
            .env("FILESTORE_WIT", tmp.path().join("wit"))
            .env("FILESTORE_BIN", BIN),
        "install Node.js 20 or newer",
    );
    // Echo the per-test lines so a CI log shows what the Node host checked.
    for line in ran.stdout().lines().filter(|l| l.contains('✔') || l.contains('✖')) {
        eprintln!("{line}");
    }
    Runner::NodeTest.check(&ran, "the Node host tests (hosts/node/test/)", NODE_HOST_TESTS);
    let node: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&node_file).expect("the Node answers"))
            .expect("JSON answers");
    let (same, total, diffs) = compare(&rust, &node);
    Tally::counted(total, diffs.len()).check(
        "the Node host's answers to the shared suite",
        NODE_HOST_ANSWERS,
        &format!("the Node host answered differently:\n{}", diffs.join("\n")),
    );
    eprintln!("node host: {same} of {total} answers identical to the Rust host's");
}

/// The tests `node --test hosts/node/test/` counts: the `test(...)` calls of the
/// `*.test.js` files (the contract suite's a case and backend each) and
/// `test/harness.js`, which it runs as a file of its own.
const NODE_HOST_TESTS: usize = 53;

/// The answers of tests/contract/suite.json's cases on every backend (a step each).
const NODE_HOST_ANSWERS: usize = 512;

/// The npm package: `scripts/pack.mjs` bundles the transpiled component;
/// the tarball installs into an empty directory without a registry (`--offline`: it
/// has no dependencies) and the README's quickstart runs there with nothing else
/// present.
#[test]
fn the_npm_tarball_runs_the_readme_quickstart_in_an_empty_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let wasm = write_component(tmp.path());
    let dist = tmp.path().join("dist");
    let out = Command::new("node")
        .arg(node_dir().join("scripts/pack.mjs"))
        .arg(&wasm)
        .arg(&dist)
        .arg(jco())
        .output()
        .expect("running node scripts/pack.mjs");
    assert!(out.status.success(), "pack.mjs: {}", String::from_utf8_lossy(&out.stderr));
    let tarball = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    let version = json_file(&node_dir().join("package.json"))["version"].clone();
    assert_eq!(
        tarball.file_name().unwrap().to_string_lossy(),
        format!("filestore-node-host-{}.tgz", version.as_str().unwrap())
    );

    // Its size is the one docs/embedding.md states.
    crate::docs::sizes::assert_stated(
        &crate::common::repo_root().join("docs/embedding.md"),
        "`dist/filestore-node-host-VERSION.tgz` (",
        std::fs::metadata(&tarball).unwrap().len() as usize,
    );

    // What the tarball holds: the host, the bundled component, the docs; no tests,
    // no build scripts, no dependencies to fetch.
    let listing = Command::new("tar").arg("tzf").arg(&tarball).output().unwrap();
    let files = String::from_utf8(listing.stdout).unwrap();
    for want in [
        "package/gen/filestore.js",
        "package/gen/filestore.core.wasm",
        "package/src/index.js",
        "package/README.md",
        "package/LICENSE",
        "package/examples/quickstart.mjs",
    ] {
        assert!(files.lines().any(|l| l == want), "the tarball lacks {want}:\n{files}");
    }
    for unwanted in ["package/test/", "package/scripts/", "package/node_modules/"] {
        assert!(!files.contains(unwanted), "the tarball holds {unwanted}:\n{files}");
    }
    let manifest = json_file(&node_dir().join("package.json"));
    assert!(manifest.get("dependencies").is_none(), "the package must need nothing at run time");

    let app = tmp.path().join("app");
    std::fs::create_dir(&app).unwrap();
    let out = Command::new("npm")
        .args(["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error"])
        .arg(&tarball)
        .current_dir(&app)
        .output()
        .expect("running npm install");
    assert!(out.status.success(), "npm install: {}", String::from_utf8_lossy(&out.stderr));
    let installed: Vec<_> = std::fs::read_dir(app.join("node_modules"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(installed, ["@filestore"], "npm installed more than the package");

    // The README shows the quickstart verbatim; run that file from the empty app.
    let readme = std::fs::read_to_string(node_dir().join("README.md")).unwrap();
    let quickstart = std::fs::read_to_string(node_dir().join("examples/quickstart.mjs")).unwrap();
    assert!(
        readme.contains(&format!("```js\n{quickstart}```")),
        "hosts/node/README.md must show examples/quickstart.mjs verbatim"
    );
    std::fs::write(app.join("quickstart.mjs"), &quickstart).unwrap();
    let out = Command::new("node").arg("quickstart.mjs").current_dir(&app).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "quickstart: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    for want in [
        "     1\t# Notes\n     2\t- read the project\n",
        "node_modules/\npackage-lock.json\npackage.json\nquickstart.mjs\n",
        "1\nproject\nscratch\n",
        "error[read-only]: /project/x.txt: the mount at '/project' is read-only",
    ] {
        assert!(stdout.contains(want), "the quickstart's output lacks {want:?}:\n{stdout}");
    }
}

/// A checkout has no bundled component: `Filestore.load()` without a directory says
/// so and what to do, rather than failing on a missing module.
#[test]
fn loading_without_a_bundled_component_says_what_to_do() {
    let tmp = tempfile::tempdir().unwrap();
    let copy = tmp.path().join("pkg");
    std::fs::create_dir(&copy).unwrap();
    std::fs::copy(node_dir().join("package.json"), copy.join("package.json")).unwrap();
    let out = Command::new("cp").arg("-r").arg(node_dir().join("src")).arg(&copy).output().unwrap();
    assert!(out.status.success());
    let script = "import('./src/index.js').then((m) => m.Filestore.load()).then(\
                  () => console.log('loaded'), (e) => console.log(String(e)))";
    let out = Command::new("node")
        .args(["--input-type=module", "-e", script])
        .current_dir(&copy)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "error[not-found]: {}: this copy of the package bundles no component",
        copy.join("gen/filestore.js").display()
    );
    assert!(stdout.starts_with(&want), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}

fn json_file(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}
