//! Shell benchmarks: `filestore_execute` on a session
//! against `bash -c` with the GNU tools, measured in the same run, reported as ratios
//! (`BENCHMARKS.md`, "Shell").
//!
//! Run: `cargo bench -p filestore --bench shell`. Environment: `FILESTORE_BENCH_TREE`
//! (the large tree, default the cargo registry sources, mounted as a read-only
//! directory volume).
//!
//! - Per call, small: `echo hi` and `wc -l FILE` (a session call each, the shell's
//!   interpreter built for it) vs spawning `bash -c` for the same command.
//! - Per call, the large tree: `grep -rn PATTERN . | head -50` and
//!   `find . -name '*.rs' | wc -l` vs `bash -c` with GNU grep and find.
//! - The component's size (the release component this binary embeds).

mod timing;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use filestore::engine::component;
use filestore::volumes::dir::DirVolume;
use filestore::{Engine, MountSpec, Session, SessionOptions};
use serde_json::json;
use timing::{median_us, us};

fn main() {
    let mut rows: Vec<[String; 5]> = Vec::new();
    let tree =
        tree().expect("no large tree: set FILESTORE_BENCH_TREE (default ~/.cargo/registry/src/*)");
    let small = tempfile::tempdir().expect("tempdir");
    let lines: String = (0..1000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(small.path().join("file.txt"), lines).unwrap();

    let engine = Engine::new().expect("engine");
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

    println!("| section | measurement | filestore | bash -c | ratio |");
    println!("|---|---|---|---|---|");
    for r in &rows {
        println!("| {} | {} | {} | {} | {} |", r[0], r[1], r[2], r[3], r[4]);
    }
    println!(
        "\ncomponent: {:.1} MB (release, embedded in this build)",
        component().len() as f64 / 1e6
    );
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

/// `bash -c command` in `dir`, its stdout.
fn bash(dir: &Path, command: &str) -> String {
    let out = Command::new("/bin/bash")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .expect("/bin/bash");
    String::from_utf8_lossy(&out.stdout).into_owned()
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
