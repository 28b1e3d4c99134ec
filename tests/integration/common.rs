//! Shared fixtures: one engine per test binary (compiling the component once), and
//! helpers to build sessions over memory volumes and temporary directories.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use filestore::volumes::{MemoryVolume, SharedVolume, dir::DirVolume};
use filestore::{Engine, MountSpec, Session};
use serde_json::Value;

/// The repository's root: the parent of `CARGO_MANIFEST_DIR` as cargo sets it when it
/// runs the tests (the checkout under test), else as it was at compile time. Not the
/// compile-time value alone: checkouts sharing a target directory reuse each other's
/// test binaries for unchanged sources, and a path compiled in would read the files
/// of the checkout that built them.
pub fn repo_root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest.parent().expect("the host crate's manifest is in the repository").to_path_buf()
}

/// The engine shared by every test in this binary.
pub fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(|| filestore::new_engine().expect("engine"))
}

/// A memory volume holding `files`.
pub fn mem(files: &[(&str, &str)]) -> Arc<MemoryVolume> {
    let v = MemoryVolume::new();
    for (p, c) in files {
        v.insert(p, c);
    }
    Arc::new(v)
}

/// A session with one writable mount.
pub fn session_with(point: &str, vol: SharedVolume) -> Session {
    engine().session(vec![MountSpec::new(point, vol)]).expect("session")
}

/// A dir volume over a path.
pub fn dir(path: &std::path::Path, read_only: bool) -> SharedVolume {
    Arc::new(DirVolume::open(path, read_only).expect("dir volume"))
}

/// Calls a tool and unwraps the JSON.
pub fn ok(s: &mut Session, tool: &str, args: Value) -> Value {
    match s.call(tool, &args) {
        Ok(o) => o.json,
        Err(e) => panic!("{tool} {args}: {e}"),
    }
}

/// Calls a tool that must fail; returns (kind, message).
pub fn err(s: &mut Session, tool: &str, args: Value) -> (String, String) {
    match s.call(tool, &args) {
        Ok(o) => panic!("{tool} {args} should fail, got {}", o.json),
        Err(e) => (e.kind_name().to_string(), e.to_string()),
    }
}
