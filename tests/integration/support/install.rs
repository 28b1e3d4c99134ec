//! What the tests use besides cargo, installed on first use into
//! `~/.cache/filestore/` (never into the clone): pinned Python packages in a virtual
//! environment ([`venv`]) and npm packages in a directory ([`npm`]). Each is made
//! under a file lock, so parallel tests (and test binaries) install it once; each is
//! checked before use, and made anew when the check fails or its pins changed. A
//! missing `python3`, `venv` module, `node` or `npm` fails the test saying what to
//! install; a failed install shows the command, its directory and its output.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::cmd::{run, run_with_hint};

/// `~/.cache/filestore/NAME`, or the directory `$ENV` names when it is set.
pub fn cache_dir(env: &str, name: &str) -> PathBuf {
    std::env::var_os(env).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
            .join(".cache/filestore")
            .join(name)
    })
}

/// Holds `DIR.lock` (beside `dir`) exclusively while `f` runs.
pub fn locked<T>(dir: &Path, f: impl FnOnce() -> T) -> T {
    let parent = dir.parent().expect("a cache directory has a parent");
    std::fs::create_dir_all(parent).unwrap();
    let name = dir.file_name().unwrap().to_string_lossy();
    let lock = std::fs::File::create(parent.join(format!("{name}.lock"))).unwrap();
    lock.lock().unwrap();
    let out = f();
    lock.unlock().unwrap();
    out
}

/// A virtual environment with pinned packages.
pub struct Venv<'a> {
    /// Its directory (see [`cache_dir`]).
    pub dir: PathBuf,
    /// What `pip install` is given: pins (`mcp==2.3.0`), `-r FILE`, `-c FILE`, paths.
    pub pip: Vec<OsString>,
    /// A key of the pins (the pins themselves, or a hash of the files they come
    /// from); a venv made for another key is made anew.
    pub key: String,
    /// Whether a venv is usable (given its directory): run before and after making it.
    pub ready: &'a dyn Fn(&Path) -> bool,
}

/// The directory of `spec`'s venv, made when it is not ready (or its key changed).
#[track_caller]
pub fn venv(spec: &Venv) -> PathBuf {
    let marker = spec.dir.join("filestore-pins.sha256");
    // A venv without a marker was made before keys were kept (or by hand): its
    // check decides. Another session may be using it; it is never removed for that.
    let current = |dir: &Path| {
        (spec.ready)(dir) && std::fs::read_to_string(&marker).map_or(true, |k| k == spec.key)
    };
    if current(&spec.dir) {
        return spec.dir.clone();
    }
    locked(&spec.dir, || {
        if current(&spec.dir) {
            return;
        }
        let _ = std::fs::remove_dir_all(&spec.dir);
        run_with_hint(
            Command::new("python3").args(["-m", "venv"]).arg(&spec.dir),
            "python3 with its venv module is needed: install python3 and python3-venv",
        )
        .success();
        run(Command::new(spec.dir.join("bin/python"))
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .args(&spec.pip))
        .success();
        std::fs::write(&marker, &spec.key).unwrap();
        assert!(
            (spec.ready)(&spec.dir),
            "{} is still not usable after pip install {:?}",
            spec.dir.display(),
            spec.pip
        );
    });
    spec.dir.clone()
}

/// Whether the venv in `dir` imports `module`.
pub fn imports(dir: &Path, module: &str) -> bool {
    let py = dir.join("bin/python");
    py.exists()
        && Command::new(py)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success())
}

/// `dir` with npm packages installed by `npm ARGS` run in it (after `prepare`, which
/// may copy a manifest and lockfile in), unless `installed` (a path inside it)
/// exists already.
#[track_caller]
pub fn npm(dir: &Path, installed: &Path, prepare: impl FnOnce(&Path), args: &[&str]) -> PathBuf {
    if installed.exists() {
        return dir.to_path_buf();
    }
    locked(dir, || {
        if installed.exists() {
            return;
        }
        std::fs::create_dir_all(dir).unwrap();
        prepare(dir);
        run_with_hint(
            Command::new("npm").args(args).current_dir(dir),
            "node and npm are needed: install Node.js 20 or newer",
        )
        .success();
        assert!(
            installed.exists(),
            "npm {args:?} in {} did not install {}",
            dir.display(),
            installed.display()
        );
    });
    dir.to_path_buf()
}

/// Debian's `packages`, unpacked (never installed) under `dir/root`: `apt-get
/// download` fetches them (after `apt-get update` when the first try fails: a fresh
/// container has no package lists) and `dpkg -x` unpacks each, under a file lock, so
/// parallel test binaries fetch them once. `works` checks an unpacked tree; the tree
/// is made anew when it fails, and must pass once made. A machine without apt or
/// dpkg fails the test saying so.
pub fn debian(dir: &Path, packages: &[&str], works: &dyn Fn(&Path) -> bool) -> PathBuf {
    let root = dir.join("root");
    if works(&root) {
        return root;
    }
    let what = packages.join(" ");
    locked(dir, || {
        if works(&root) {
            return;
        }
        let _ = std::fs::remove_dir_all(dir);
        let debs = dir.join("debs");
        std::fs::create_dir_all(&debs).unwrap();
        let download = || {
            Command::new("apt-get")
                .arg("download")
                .args(packages)
                .current_dir(&debs)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !download() {
            run_with_hint(
                Command::new("apt-get").arg("update"),
                &format!("Debian's apt is needed to fetch {what} (apt-get download {what})"),
            )
            .success();
            run(Command::new("apt-get").arg("download").args(packages).current_dir(&debs))
                .success();
        }
        let tmp = dir.join("root.partial");
        for deb in std::fs::read_dir(&debs).unwrap() {
            let deb = deb.unwrap().path();
            run_with_hint(
                Command::new("dpkg").arg("-x").arg(&deb).arg(&tmp),
                &format!("dpkg is needed to unpack Debian's {what}"),
            )
            .success();
        }
        std::fs::rename(&tmp, &root).unwrap();
        assert!(works(&root), "{} does not run after unpacking {what}", root.display());
    });
    root
}
