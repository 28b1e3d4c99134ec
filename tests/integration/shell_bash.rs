//! The shell's fixed differences from bash: each command runs by `/bin/bash` (with
//! GNU coreutils, gzip and Info-ZIP's zip) and by `filestore_execute` through the real
//! component, each on a fresh copy of one small tree on the real filesystem, and must
//! give the same stdout, exit code and resulting tree. The cases are those bashkit
//! (guest/vendor/README.md) or the shell's own commands (guest/src/shell/nested/zcat.rs)
//! once answered differently.
//!
//! `du` and `ls -l`'s `total` count disk blocks: bash's answer is the host
//! filesystem's, so the test expects one that allocates 4 KiB blocks (ext4, overlayfs
//! on it), as the machines that run it have.

use std::path::Path;
use std::time::{Duration, SystemTime};

use filestore::{MountSpec, Session};
use serde_json::json;

use crate::common::*;
use crate::support::bash::{Locale, bash, tree};

/// Commands with their reason; each ran differently before its fix.
const CASES: &[(&str, &str)] = &[
    // Redirections are opened before the command runs.
    ("sort f > f; wc -c < f", "`>` truncates before sort reads"),
    ("ls > out; cat out", "`>` creates its file before ls lists"),
    // Execute bits.
    ("chmod 644 f; [[ -x f ]]; echo $?; test -x f; echo $?", "[[ -x ]] checks the bit"),
    (
        "printf 'echo hi\\n' > x; chmod +x x; command -v ./x; type ./x; [[ -x x ]]; echo $?; ./x",
        "a chmod +x file found by command -v and type",
    ),
    ("command -v ./f; echo $?; type ./f; echo $?", "a file without the bit is not a command"),
    // Commands.
    ("ls -l | head -1", "ls -l's total"),
    ("ls -S", "ls -S by size"),
    ("ls -t", "ls -t by time"),
    ("du f; du -s .; du", "du in disk blocks"),
    ("du -b f; du -sb .", "du -b in bytes"),
    ("TZ=UTC date -d '2024-02-28 +1 day' +%F", "date's +N unit"),
    ("zcat x.gz; zcat < x.gz; zcat x.gz x.gz | wc -l", "zcat"),
    ("zip -q z.zip f; echo $?; ls z.zip; rm z.zip", "zip -q"),
    // Interpreter.
    ("set -u; echo $UNDEF; echo after", "set -u exits the shell with 127"),
    ("(set -u; echo $U); echo $?", "a subshell's set -u error is 1"),
    ("echo ${x?unset}; echo after", "${x?} exits with 127"),
    ("s=straße; echo ${s^^} ${s^} ${s@U}; declare -u t=$s; echo $t", "towupper maps ß to ß"),
    ("echo {Z..a}; x=({Z..a}); echo ${#x[@]}", "{Z..a}'s backslash is an empty word"),
    ("printf 'echo ran\\n' > run1.sh; chmod +x run1.sh; ./run*.sh", "a glob in the command word"),
    // Process substitution.
    ("cat <(<f); cat < <(<f)", "<(<f) reads f, as $(<f) does"),
    ("{ echo b; echo a; } > >(sort)", "a group's output reaches >(cmd)"),
    ("for i in 3 1 2; do echo $i; done > >(sort)", "a loop's output reaches >(cmd)"),
    ("exec > >(sort); echo b; echo a", "exec > >(cmd) sends later output to cmd"),
    // Endless devices read by a bounded reader.
    (
        "head -c 2M /dev/zero | wc -c; head -c 100000 /dev/urandom | wc -c; \
         head -c 1500000 /dev/zero > z; cmp -n 1500000 z /dev/zero; echo $?; rm z",
        "head -c and cmp -n get the bytes they ask for",
    ),
    // Commands.
    (
        "cat f h.txt > h.txt; echo $?; cat h.txt; cat f >> f; echo $?; cat f",
        "input file is output file",
    ),
    ("mkdir d; touch d/.x d/y; ls -a d; ls -A d; ls -a d | wc -l", "ls -a lists . and .."),
    // A missing operand among others.
    (
        "wc -l f nosuch; echo $?; cut -c1 nosuch f; echo $?; nl f nosuch; echo $?; \
         tac f nosuch; md5sum nosuch f; echo $?; cksum f nosuch; stat -c %n nosuch f; echo $?",
        "a missing operand is reported and the others still processed",
    ),
    (
        "ls nosuch h.txt f; echo $?; ls h.txt f; mkdir d; ls h.txt d f",
        "ls's operands in name order",
    ),
    // Brace expansion under the limit.
    ("echo {1..300}{1..300} | wc -w; echo {1..20000} | wc -w", "brace products and ranges whole"),
    (
        "printf '1 2 \"abc' > j; jq . j || echo failed; printf '{\"a\":1}\\n{\"a\":' > k; jq -c . k || echo failed",
        "jq prints the values before invalid input",
    ),
];

/// The tree each command starts from: files of distinct sizes and modification
/// times (for `ls -S` and `ls -t`), a gzip file.
fn fixture(root: &Path) {
    std::fs::create_dir_all(root).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, b"one\ntwo\n").unwrap();
    let files: [(&str, Vec<u8>); 4] = [
        ("f", b"c\nb\na\n".to_vec()),
        ("h.txt", b"hello\n".to_vec()),
        ("big.log", vec![b'x'; 5000]),
        ("x.gz", gz.finish().unwrap()),
    ];
    let base = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    for (i, (name, bytes)) in files.iter().enumerate() {
        let path = root.join(name);
        std::fs::write(&path, bytes).unwrap();
        // Distinct whole seconds, newest last written: `ls -t` is not name order.
        let when = base + Duration::from_secs(60 * (i as u64 + 1));
        std::fs::File::options().write(true).open(&path).unwrap().set_modified(when).unwrap();
    }
}

/// The programs bash runs for [`CASES`]; a missing one fails the test naming it.
fn require_programs() {
    crate::support::bash::require_programs(
        &[
            ("/bin/bash", "bash"),
            ("zip", "zip"),
            ("gzip", "gzip"),
            ("sort", "coreutils"),
            ("jq", "jq"),
        ],
        "to compare the shell with bash",
    );
}

/// `command` through `filestore_execute` over `root` mounted at `/w`.
fn shell(root: &Path, command: &str) -> (String, i32) {
    let mut s: Session = engine()
        .session(vec![MountSpec::new("/w", dir(root, false)), filestore::tools::results_mount()])
        .expect("session");
    s.enable_shell(true).expect("enable the shell");
    let out = s
        .call("filestore_execute", &json!({"command": command, "cwd": "/w"}))
        .unwrap_or_else(|e| panic!("{command}: {e}"))
        .json;
    (
        out["stdout"].as_str().unwrap_or_default().to_string(),
        out["exit_code"].as_i64().unwrap_or(-1) as i32,
    )
}

/// One case both ways; what differs, if anything.
fn compare(command: &str) -> Option<String> {
    let tmp = tempfile::tempdir().unwrap();
    let (b, f) = (tmp.path().join("bash"), tmp.path().join("fs"));
    fixture(&b);
    fixture(&f);
    let want = bash(&b, command, Locale::Utf8);
    let got = shell(&f, command);
    let mut why = Vec::new();
    if got.0 != want.0 {
        why.push(format!("stdout {:?}, bash {:?}", got.0, want.0));
    }
    if got.1 != want.1 {
        why.push(format!("exit {}, bash {}", got.1, want.1));
    }
    let (tb, tf) = (tree(&b), tree(&f));
    if tb != tf {
        why.push(format!(
            "tree: bash has {:?}, the shell has {:?}",
            tb.keys().collect::<Vec<_>>(),
            tf.keys().collect::<Vec<_>>()
        ));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

#[test]
fn fixed_differences_agree_with_bash() {
    require_programs();
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|(command, what)| compare(command).map(|d| format!("{what}: `{command}`: {d}")))
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} differ from bash:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}
