//! Shell benchmarks: `filestore_execute` on a session
//! against `bash -c` with the GNU tools, measured in the same run, reported as ratios
//! (`BENCHMARKS.md`, "Shell").
//!
//! Run: `cargo bench -p filestore --bench shell`; `-- append` runs only the appends.
//! Environment: `FILESTORE_BENCH_TREE` (the large tree, default the cargo registry
//! sources, mounted as a read-only directory volume).
//!
//! - Per call, small: `echo hi` and `wc -l FILE` (a session call each, the shell's
//!   interpreter built for it) vs spawning `bash -c` for the same command.
//! - Per call, the large tree: `grep -rn PATTERN . | head -50` and
//!   `find . -name '*.rs' | wc -l` vs `bash -c` with GNU grep and find.
//! - Appends: `for i in $(seq 200); do echo $i >> log; done` on a writable directory
//!   volume, through the volume's own append, and through the same volume without
//!   one (each `>>` a read and a whole-file write, `fsync`ed: how the shell appended
//!   before volumes had `append`), vs `bash -c` on the same directory.
//! - The component's size (the release component this binary embeds).

#[path = "../../tests/integration/support/mod.rs"]
#[allow(dead_code)]
mod support;
mod timing;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use filestore::component;
use filestore::volumes::dir::DirVolume;
use filestore::volumes::{Entry, Volume, Walk, WriteOptions};
use filestore::{Engine, MountSpec, Session, SessionOptions};
use serde_json::json;
use timing::{median_us, us};

fn main() {
    let mut rows: Vec<[String; 5]> = Vec::new();
    let engine = filestore::new_engine().expect("engine");
    appends(&engine, &mut rows);
    if std::env::args().skip(1).any(|a| a == "append") {
        return print(&rows);
    }
    let tree =
        tree().expect("no large tree: set FILESTORE_BENCH_TREE (default ~/.cargo/registry/src/*)");
    let small = tempfile::tempdir().expect("tempdir");
    let lines: String = (0..1000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(small.path().join("file.txt"), lines).unwrap();

    let mut s = session(&engine, small.path());
    for (what, cmd) in [("echo hi", "echo hi"), ("wc -l file", "wc -l file.txt")] {
        let want = bash(small.path(), cmd);
        assert_eq!(execute(&mut s, cmd), want, "{cmd}");
        let ours = median_us(3, 31, || {
            execute(&mut s, cmd);
        });
        let base = median_us(3, 31, || {
            bash(small.path(), cmd);
        });
        rows.push(row("per call", what, ours, base));
    }

    let mut t = session(&engine, &tree);
    let pattern = "unsafe fn";
    for (what, cmd) in [
        ("grep -rn | head -50 (registry tree)", format!("grep -rn '{pattern}' . | head -50")),
        ("find -name '*.rs' | wc -l (registry tree)", "find . -name '*.rs' | wc -l".to_string()),
    ] {
        let ours_out = execute(&mut t, &cmd);
        let bash_out = bash(&tree, &cmd);
        // Fifty lines each (directory order differs: GNU's is readdir order), or the
        // same count.
        assert_eq!(ours_out.lines().count(), bash_out.lines().count(), "{cmd}: {ours_out}");
        let ours = median_us(1, 5, || {
            execute(&mut t, &cmd);
        });
        let base = median_us(1, 5, || {
            bash(&tree, &cmd);
        });
        rows.push(row("large tree", what, ours, base));
    }
    // The whole tree: the search cannot stop early.
    let cmd = "grep -rc 'unsafe fn' . | wc -l";
    let ours = median_us(0, 3, || {
        execute(&mut t, cmd);
    });
    let base = median_us(0, 3, || {
        bash(&tree, cmd);
    });
    rows.push(row("large tree", "grep -rc (every file) | wc -l (registry tree)", ours, base));
    print(&rows);
}

fn print(rows: &[[String; 5]]) {
    println!("| section | measurement | filestore | bash -c | ratio |");
    println!("|---|---|---|---|---|");
    for r in rows {
        println!("| {} | {} | {} | {} | {} |", r[0], r[1], r[2], r[3], r[4]);
    }
    println!(
        "\ncomponent: {:.1} MB (release, embedded in this build)",
        component().len() as f64 / 1e6
    );
}

/// The append loop, each run from an empty file, on one writable directory: through
/// the directory volume's append, through the same volume without it, and by bash.
/// The three leave the same file.
fn appends(engine: &Engine, rows: &mut Vec<[String; 5]>) {
    const LOOP: &str = "rm -f log; for i in $(seq 200); do echo $i >> log; done";
    let dir = tempfile::tempdir().expect("tempdir");
    let want: String = (1..=200).map(|i| format!("{i}\n")).collect();
    let base = median_us(1, 11, || {
        bash(dir.path(), LOOP);
    });
    assert_eq!(std::fs::read_to_string(dir.path().join("log")).unwrap(), want);
    let vol = || DirVolume::open(dir.path(), false).expect("dir volume");
    for (what, volume, runs) in [
        ("200 × `echo $i >> log`, directory volume's append", writable(Arc::new(vol())), 11),
        (
            "the same, each `>>` a read and an fsynced whole write (no append: before)",
            writable(Arc::new(WholeWrites(vol()))),
            3,
        ),
    ] {
        let mut s = engine_session(engine, volume);
        let ours = median_us(1, runs, || {
            execute(&mut s, LOOP);
        });
        assert_eq!(std::fs::read_to_string(dir.path().join("log")).unwrap(), want, "{what}");
        rows.push(row("appends", what, ours, base));
    }
}

/// A writable mount of `volume` at `/w`.
fn writable(volume: filestore::volumes::SharedVolume) -> MountSpec {
    MountSpec::new("/w", volume)
}

/// A session over `mount` with the shell on and a long deadline.
fn engine_session(engine: &Engine, mount: MountSpec) -> Session {
    let opts = SessionOptions { deadline: Duration::from_secs(600), ..SessionOptions::default() };
    let mut s = engine.session_with(vec![mount], opts).expect("session");
    s.enable_shell(true).expect("shell");
    s
}

/// A directory volume without its own append: the `Volume` trait's, a read and one
/// whole-file write per append.
struct WholeWrites(DirVolume);

type VolResult<T> = Result<T, filestore::volumes::Error>;

impl Volume for WholeWrites {
    fn stat(&self, path: &str) -> VolResult<Entry> {
        self.0.stat(path)
    }
    fn list(&self, path: &str) -> VolResult<Vec<Entry>> {
        self.0.list(path)
    }
    fn walk(&self, path: &str, max_entries: usize) -> VolResult<Walk> {
        self.0.walk(path, max_entries)
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> VolResult<Vec<u8>> {
        self.0.read(path, offset, len)
    }
    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> VolResult<Entry> {
        self.0.write(path, content, options)
    }
    fn delete(&self, path: &str, recursive: bool) -> VolResult<()> {
        self.0.delete(path, recursive)
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> VolResult<()> {
        self.0.rename(from, to, overwrite)
    }
}

fn row(section: &str, what: &str, ours: f64, base: f64) -> [String; 5] {
    [section.into(), what.into(), us(ours), us(base), format!("{:.2}×", ours / base)]
}

fn session(engine: &Engine, dir: &Path) -> Session {
    let vol = Arc::new(DirVolume::open(dir, true).expect("dir volume"));
    let opts = SessionOptions { deadline: Duration::from_secs(600), ..SessionOptions::default() };
    let mut s = engine
        .session_with(vec![MountSpec::new("/w", vol), filestore::tools::results_mount()], opts)
        .expect("session");
    s.enable_shell(true).expect("shell");
    s
}

/// The command's stdout through `filestore_execute` (panics on a failed call).
fn execute(s: &mut Session, command: &str) -> String {
    let v = s
        .call("filestore_execute", &json!({"command": command, "cwd": "/w", "timeout_ms": 25_000}))
        .unwrap_or_else(|e| panic!("{command}: {e}"))
        .json;
    v["stdout"].as_str().unwrap_or_default().to_string()
}

/// `bash -c command` in `dir` in the shell's locale: its stdout.
fn bash(dir: &Path, command: &str) -> String {
    support::bash::bash(dir, command, support::bash::Locale::Utf8).0
}

fn tree() -> Option<PathBuf> {
    if let Some(t) = std::env::var_os("FILESTORE_BENCH_TREE") {
        return Some(PathBuf::from(t));
    }
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let src = home.join("registry").join("src");
    std::fs::read_dir(&src).ok()?.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| p.is_dir())
}
