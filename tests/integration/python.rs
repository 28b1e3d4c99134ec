//! `python3` in `filestore_execute`: real CPython in an instance of its own, over the
//! shell's filesystem, through the real component and host.
//!
//! - The corpus: scripts of the kind data and coding agents run (CSV and JSON
//!   summaries, regex extraction, file rewriting, `pathlib` walks, `statistics`,
//!   `datetime`, `sqlite3`, `-m json.tool`, stdin through a pipe, `sys.exit`, argv) run
//!   by the machine's `python3` and through the shell on two copies of one tree;
//!   stdout, the exit code and the resulting tree must match.
//! - Hostile scripts: host files, `..`, links planted on the host, `os.system`,
//!   `subprocess`, `socket`, `ctypes`, a read-only mount, runaways (a busy loop, a
//!   10 GB list); each is contained and the session answers the next call.

use std::path::Path;
use std::process::Command;

use filestore::{MountSpec, Session};
use serde_json::{Value, json};

use crate::common::*;
use crate::support::bash::{require_programs, tree};

/// The tree the corpus runs over.
fn fixture(root: &Path) {
    let files: &[(&str, &str)] = &[
        ("data/people.csv", "name,age,city\nann,34,oslo\nbob,27,rome\ncid,45,oslo\ndee,30,lima\n"),
        (
            "data/items.json",
            "{\"count\": 3, \"items\": [{\"id\": 1, \"name\": \"apple\", \"price\": 1.5}, {\"id\": 2, \"name\": \"kale\", \"price\": 3.25}, {\"id\": 3, \"name\": \"plum\", \"price\": 0.75}]}\n",
        ),
        (
            "logs/app.log",
            "2024-01-01 INFO start\n2024-01-01 WARN disk low\n2024-01-02 ERROR failed to open /etc/x\n2024-01-03 ERROR timeout after 30s\n",
        ),
        ("src/app.py", "import os\n\n\ndef main():\n    print('hi')  # TODO: greet properly\n"),
        ("src/util.py", "def add(a, b):\n    return a + b  # TODO: types\n"),
        (
            "tools/summarize.py",
            "import sys, csv\nrows = list(csv.DictReader(sys.stdin))\nfor r in sorted(rows, key=lambda r: int(r['age'])):\n    print(r['name'], r['age'])\n",
        ),
        ("tools/mymod.py", "VALUE = 41\n"),
        ("tools/use_mymod.py", "import mymod\nprint(mymod.VALUE)\n"),
    ];
    for (p, c) in files {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, c).unwrap();
    }
}

/// Command lines run by bash over the host's `python3` and by the shell.
const CORPUS: &[&str] = &[
    "python3 -c 'print(1 + 1)'",
    r#"python3 -c 'import csv; rows = list(csv.DictReader(open("data/people.csv"))); print(len(rows), sum(int(r["age"]) for r in rows))'"#,
    r#"python3 -c 'import json; d = json.load(open("data/items.json")); print(sorted(i["name"] for i in d["items"]), round(sum(i["price"] for i in d["items"]), 2))'"#,
    r#"python3 -c 'import re, pathlib; print(re.findall(r"ERROR (.*)", pathlib.Path("logs/app.log").read_text()))'"#,
    r#"python3 -c 'import pathlib; print(sorted(str(p) for p in pathlib.Path(".").rglob("*.py")))'"#,
    r#"python3 -c 'import pathlib
for p in sorted(pathlib.Path("src").glob("*.py")):
    t = p.read_text()
    p.write_text(t.replace("TODO", "DONE"))
print("rewritten")'"#,
    r#"python3 -c 'import statistics as s; a = [34, 27, 45, 30]; print(s.mean(a), s.median(a), round(s.stdev(a), 4))'"#,
    r#"python3 -c 'import datetime as d; t = d.date(2024, 2, 28) + d.timedelta(days=1); print(t.isoformat(), t.strftime("%A"))'"#,
    r#"python3 -c 'import sqlite3; c = sqlite3.connect(":memory:"); c.execute("create table t(x)"); c.executemany("insert into t values (?)", [(1,), (2,), (3,)]); print(c.execute("select sum(x) from t").fetchone()[0])'"#,
    "python3 -m json.tool data/items.json",
    "cat data/people.csv | python3 tools/summarize.py | head -2",
    "python3 tools/summarize.py < data/people.csv > out.txt; cat out.txt",
    "python3 -c 'import sys; print(sys.argv[1:])' a 'b c'",
    "python3 -c 'import sys; sys.exit(3)'; echo status $?",
    "python3 -c 'raise SystemExit(\"bye\")'; echo status $?",
    "python3 -c 'import os; os.makedirs(\"made/deep\", exist_ok=True); open(\"made/deep/f.txt\", \"w\").write(\"x\"); print(os.listdir(\"made\"))'",
    "python3 -c 'import os; os.rename(\"data/people.csv\", \"data/p.csv\"); os.remove(\"data/items.json\"); print(sorted(os.listdir(\"data\")))'",
    "cd tools && python3 -c 'import mymod; print(mymod.VALUE + 1)'",
    "python3 tools/use_mymod.py",
    "X=exported; export X; python3 -c 'import os; print(os.environ[\"X\"])'",
    "python3 -c 'import os; print(os.getcwd() == os.environ[\"PWD\"])'",
    "echo 'print(\"from stdin\")' | python3",
    "python3 -c 'open(\"missing.txt\")' 2>/dev/null; echo status $?",
    "python3 -c 'with open(\"log.txt\", \"a\") as f: f.write(\"one\\n\")'; python3 -c 'with open(\"log.txt\", \"a\") as f: f.write(\"two\\n\")'; cat log.txt",
];

/// A session over `dir` at `/w` with the shell on.
fn shell_session(dir: &Path, read_only: bool) -> Session {
    let mut s = engine()
        .session(vec![
            MountSpec::new("/w", crate::common::dir(dir, read_only)),
            MountSpec::new("/tmp", mem(&[])),
            filestore::tools::results_mount(),
        ])
        .expect("session");
    s.enable_shell(true).expect("enable the shell");
    s
}

fn execute(s: &mut Session, command: &str) -> Value {
    match s.call("filestore_execute", &json!({"command": command, "cwd": "/w"})) {
        Ok(o) => o.json,
        Err(e) => panic!("{command}: {e}"),
    }
}

fn text(v: &Value, field: &str) -> String {
    v[field].as_str().unwrap_or_default().to_string()
}

/// The host's `python3` under bash, in `dir`, with no bytecode written.
fn host_python(dir: &Path, command: &str) -> (String, i64) {
    let out = Command::new("/bin/bash")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("LANG", "C.UTF-8")
        .output()
        .expect("running /bin/bash");
    (String::from_utf8_lossy(&out.stdout).into_owned(), i64::from(out.status.code().unwrap_or(-1)))
}

#[test]
fn agent_scripts_match_the_host_s_cpython() {
    require_programs(
        &[("bash", "bash"), ("python3", "python3")],
        "comparing python3 in the shell with CPython",
    );
    let mut differ = Vec::new();
    for command in CORPUS {
        let theirs = tempfile::tempdir().unwrap();
        let ours = tempfile::tempdir().unwrap();
        fixture(theirs.path());
        fixture(ours.path());
        let (want, want_code) = host_python(theirs.path(), command);
        let mut s = shell_session(ours.path(), false);
        let got = execute(&mut s, command);
        let (out, code) = (text(&got, "stdout"), got["exit_code"].as_i64().unwrap_or(-99));
        if out != want || code != want_code {
            differ.push(format!(
                "{command}\n  python3: {want:?} ({want_code})\n  shell:   {out:?} ({code}) stderr {:?}",
                text(&got, "stderr")
            ));
            continue;
        }
        if tree(theirs.path()) != tree(ours.path()) {
            differ.push(format!("{command}: the resulting trees differ"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} differ:\n{}",
        differ.len(),
        CORPUS.len(),
        differ.join("\n")
    );
}

#[test]
fn an_uncaught_exception_prints_a_traceback_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = shell_session(dir.path(), false);
    let got = execute(&mut s, "python3 -c 'def f():\n    raise ValueError(\"bad value\")\nf()'");
    assert_eq!(got["exit_code"], 1, "{got}");
    let err = text(&got, "stderr");
    assert!(err.starts_with("Traceback (most recent call last):"), "{err}");
    assert!(err.trim_end().ends_with("ValueError: bad value"), "{err}");
}

#[test]
fn python_sees_the_shell_s_files_and_tmp() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = shell_session(dir.path(), false);
    let got = execute(
        &mut s,
        "f=$(mktemp); echo 'from the shell' > $f; python3 -c \"print(open('$f').read().strip()); open('/tmp/py.txt', 'w').write('from python')\"; cat /tmp/py.txt",
    );
    assert_eq!(text(&got, "stdout"), "from the shell\nfrom python", "{got}");
    // The root is the mount table: the mounts, nothing of the host.
    let got = execute(&mut s, "python3 -c 'import os; print(sorted(os.listdir(\"/\")))'");
    let listed = text(&got, "stdout");
    assert!(
        listed.contains("'w'") && !listed.contains("'etc'") && !listed.contains("'proc'"),
        "{got}"
    );
}

#[test]
fn host_files_processes_sockets_and_native_code_are_out_of_reach() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "host secret").unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A link planted on the host side, to a file outside the mount.
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), dir.path().join("link.txt"))
        .unwrap();
    let mut s = shell_session(dir.path(), false);
    let secret = outside.path().join("secret.txt");
    let scripts = [
        "open('/etc/passwd').read()".to_string(),
        format!("open('{}').read()", secret.display()),
        "open('../../../../etc/hostname').read()".to_string(),
        "open('link.txt').read()".to_string(),
        "import os; os.system('id')".to_string(),
        "import subprocess; subprocess.run(['id'])".to_string(),
        "import socket; socket.create_connection(('127.0.0.1', 22))".to_string(),
        "import ctypes".to_string(),
        "import os; os.fork()".to_string(),
    ];
    for script in &scripts {
        let got = execute(&mut s, &format!("python3 -c \"{script}\"; echo status $?"));
        let out = text(&got, "stdout");
        let err = text(&got, "stderr");
        assert!(out.trim_end().ends_with("status 1"), "{script}: {got}");
        assert!(!out.contains("host secret") && !err.contains("host secret"), "{script}: {got}");
        assert!(!out.contains("uid="), "{script}: {got}");
    }
    // The session answers the next call.
    assert_eq!(text(&execute(&mut s, "python3 -c 'print(7)'"), "stdout"), "7\n");
}

#[test]
fn a_read_only_mount_refuses_python_s_writes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep.txt"), "old").unwrap();
    let mut s = shell_session(dir.path(), true);
    let got =
        execute(&mut s, "python3 -c 'open(\"keep.txt\", \"w\").write(\"new\")'; echo status $?");
    assert!(text(&got, "stderr").contains("Read-only file system"), "{got}");
    assert!(text(&got, "stdout").ends_with("status 1\n"), "{got}");
    assert!(text(&got, "stderr").contains("Error"), "{got}");
    assert_eq!(std::fs::read_to_string(dir.path().join("keep.txt")).unwrap(), "old");
}

#[test]
fn runaways_end_and_the_session_survives() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = shell_session(dir.path(), false);
    // A busy loop ends at the command's wall time.
    let got = s
        .call("filestore_execute", &json!({"command": "python3 -c 'while True: pass'; echo status $?", "cwd": "/w", "timeout_ms": 2000}))
        .map(|o| o.json);
    match got {
        Ok(v) => assert!(text(&v, "stdout").contains("status 124") || v["exit_code"] == 124, "{v}"),
        Err(e) => assert_eq!(e.kind_name(), "limit-exceeded", "{e}"),
    }
    // Gigabytes are a MemoryError inside Python (the run's memory cap).
    let got = execute(&mut s, "python3 -c 'x = bytearray(10 ** 9)'; echo status $?");
    assert!(text(&got, "stderr").contains("MemoryError"), "{got}");
    assert!(text(&got, "stdout").ends_with("status 1\n"), "{got}");
    assert_eq!(text(&execute(&mut s, "python3 -c 'print(8)'"), "stdout"), "8\n");
}

#[test]
fn pip_venv_and_servers_are_refused_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = shell_session(dir.path(), false);
    for (line, says) in [
        ("python3 -m pip install requests", "no package installation"),
        ("python3 -m venv .venv", "no virtual environments"),
        ("python3 -m http.server", "no network"),
    ] {
        let got = execute(&mut s, line);
        assert_eq!(got["exit_code"], 1, "{line}: {got}");
        assert!(text(&got, "stderr").contains(says), "{line}: {got}");
    }
    let got = execute(&mut s, "pip install x");
    assert_eq!(got["exit_code"], 127, "{got}");
    assert!(text(&got, "stderr").contains("python3 has its standard library"), "{got}");
}

#[test]
fn each_session_has_its_own_tmp() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = shell_session(dir.path(), false);
    let mut b = shell_session(dir.path(), false);
    execute(&mut a, "python3 -c 'open(\"/tmp/mine\", \"w\").write(\"a\")'");
    let got = execute(&mut b, "python3 -c 'import os; print(os.path.exists(\"/tmp/mine\"))'");
    assert_eq!(text(&got, "stdout"), "False\n", "{got}");
    let got = execute(&mut a, "cat /tmp/mine");
    assert_eq!(text(&got, "stdout"), "a", "{got}");
}

#[test]
fn a_link_planted_while_a_script_runs_is_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "host secret").unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("data.txt"), "plain").unwrap();
    let (target, planted) = (outside.path().join("secret.txt"), dir.path().join("data.txt"));
    let started = dir.path().join("started");
    // Once the script has read the file, swaps it for a link to the host's secret
    // while the script goes on reading it in a loop.
    let swapper = std::thread::spawn(move || {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !started.exists() && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        std::fs::remove_file(&planted).unwrap();
        std::os::unix::fs::symlink(&target, &planted).unwrap();
    });
    let mut s = shell_session(dir.path(), false);
    let script = "import time\nseen = [open('data.txt').read()]\nopen('started', 'w').close()\nfor _ in range(100):\n    try:\n        seen.append(open('data.txt').read())\n    except OSError as e:\n        seen.append(type(e).__name__)\n    time.sleep(0.01)\nprint(sorted(set(seen)))";
    std::fs::write(dir.path().join("loop.py"), script).unwrap();
    let got = execute(&mut s, "python3 loop.py");
    swapper.join().unwrap();
    let out = text(&got, "stdout");
    assert!(out.contains("'plain'") && out.contains("'OSError'"), "{got}");
    assert!(!out.contains("host secret") && !text(&got, "stderr").contains("host secret"), "{got}");
}

#[test]
fn a_write_past_the_command_s_budget_fails_and_keeps_the_old_content() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("keep.txt"), "old").unwrap();
    let mut s = shell_session(dir.path(), false);
    // 250 MiB: refused before it reaches the component (whose memory it would pass).
    let got = execute(
        &mut s,
        "python3 -c 'with open(\"keep.txt\", \"w\") as f:\n    for i in range(250): f.write(\"x\" * 1048576)'; echo status $?",
    );
    assert!(text(&got, "stdout").ends_with("status 1\n"), "{got}");
    assert!(text(&got, "stderr").contains("OSError"), "{got}");
    assert_eq!(std::fs::read_to_string(dir.path().join("keep.txt")).unwrap(), "old");
    // The session goes on.
    assert_eq!(text(&execute(&mut s, "python3 -c 'print(9)'"), "stdout"), "9\n");
}

/// SQLite's default connection fails on a read-only mount (`disk I/O error`, a
/// difference docs/shell.md lists); an immutable one reads it.
#[test]
fn sqlite_reads_a_database_on_a_read_only_mount_opened_immutable() {
    require_programs(&[("python3", "python3")], "making the database");
    let dir = tempfile::tempdir().unwrap();
    let made = Command::new("python3")
        .arg("-c")
        .arg("import sqlite3; c = sqlite3.connect('r.db'); c.execute('create table t(x)'); c.execute('insert into t values (42)'); c.commit()")
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(made.success());
    let mut s = shell_session(dir.path(), true);
    let got = execute(
        &mut s,
        "python3 -c 'import sqlite3; print(sqlite3.connect(\"file:r.db?immutable=1\", uri=True).execute(\"select x from t\").fetchone()[0])'",
    );
    assert_eq!(text(&got, "stdout"), "42\n", "{got}");
}
