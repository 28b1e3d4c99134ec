//! `/bin/bash -c` as the peer the shell is compared with: a clean environment (only
//! `PATH`, `HOME` at the directory, and one locale), in a given directory.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// The locale bash runs under.
#[derive(Clone, Copy, Debug)]
pub enum Locale {
    /// `LC_ALL=C`: byte order, ASCII classes (coreutils' own conformance runs).
    C,
    /// `LANG=C.UTF-8`: the locale the sandbox's shell has.
    Utf8,
}

/// What `bash -c` printed on stdout, and its exit status (`-1` when killed by a
/// signal).
pub fn bash(dir: &Path, command: &str, locale: Locale) -> (String, i32) {
    let mut cmd = Command::new("/bin/bash");
    cmd.arg("-c")
        .arg(command)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", dir);
    match locale {
        Locale::C => cmd.env("LC_ALL", "C"),
        Locale::Utf8 => cmd.env("LANG", "C.UTF-8"),
    };
    let out = cmd.output().expect("running /bin/bash (install bash and GNU coreutils)");
    (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code().unwrap_or(-1))
}

/// Fails, naming the program and the Debian package to install, unless each of
/// `programs` (name, package) is on the `PATH`: what `purpose` needs to run.
pub fn require_programs(programs: &[(&str, &str)], purpose: &str) {
    for (program, package) in programs {
        let found = Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("command -v {program}"))
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(found, "{program} is needed {purpose}: apt-get install {package}");
    }
}

/// Every path under `root` with its content (`None` for a directory, `<symlink>` for
/// a link): what a command left behind, to compare bash's run with the shell's.
pub fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Option<Vec<u8>>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let t = e.file_type().unwrap();
            if t.is_dir() {
                out.insert(rel, None);
                walk(root, &e.path(), out);
            } else if t.is_symlink() {
                out.insert(rel, Some(b"<symlink>".to_vec()));
            } else {
                out.insert(rel, Some(std::fs::read(e.path()).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}
