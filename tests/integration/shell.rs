//! `filestore_execute`, the shell inside the component, on real directories through
//! the host library.
//!
//! - The corpus: every command of [`CORPUS`] runs twice on two copies of one tree, by
//!   `/bin/bash` with the system's GNU tools and by `filestore_execute` over a
//!   directory volume; stdout, the exit code and the resulting tree must match,
//!   except the commands of [`KNOWN`], which must still differ (each row of that list
//!   is a row of docs/shell.md's table of differences, with its reason).
//! - Hostile commands: `cd ..` out of the mounts, `/proc`, `/dev/zero`, host paths,
//!   links planted in the directory, `exec`/`eval`, runaways (infinite loops, a fork
//!   bomb of functions, a 10 GB write through a pipe, `$( )` nesting); each is
//!   contained, runaways end with `limit-exceeded` naming the limit, and the session
//!   answers the next call.
//! - What the shell sees of the host: no environment, no host paths, coarse clocks.
//! - `filestore call filestore_execute` needs no flag.
//!
//! It stays above 800 lines because the corpus of commands compared with bash is a
//! table of several hundred rows, read as one list.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use filestore::{MountSpec, Session};
use serde_json::{Value, json};

use crate::common::*;
use crate::support::bash::{Locale, bash, tree};

// ---- fixtures -------------------------------------------------------------------

/// Writes the corpus tree at `root`: small synthetic files of each kind agents
/// handle (code, logs, JSON, CSV, notes, an empty file, a name with a space) and a
/// real tree, a copy of this repository's `guest/src/vfs`.
fn fixture(root: &Path) {
    let files: &[(&str, &str)] = &[
        ("notes.txt", "banana\napple\ncherry\napple\ndate\nbanana\napple\n"),
        ("empty.txt", ""),
        ("with space.txt", "spaced out\n"),
        (
            "logs/app.log",
            "2024-01-01 INFO start\n2024-01-01 WARN disk low\n2024-01-02 INFO running\n2024-01-02 ERROR failed to open\n2024-01-03 INFO stop\n",
        ),
        (
            "data/items.json",
            "{\"count\": 3, \"items\": [{\"id\": 1, \"name\": \"apple\", \"tags\": [\"fruit\", \"red\"]}, {\"id\": 2, \"name\": \"kale\", \"tags\": [\"leaf\"]}, {\"id\": 3, \"name\": \"plum\", \"tags\": []}]}\n",
        ),
        (
            "data/people.csv",
            "name,age,city\nann,34,oslo\nbob,27,rome\ncid,45,oslo\napple,30,lima\n",
        ),
        (
            "src/main.rs",
            "use crate::util::add;\n\nfn main() {\n    println!(\"{}\", add(1, 2));\n}\n",
        ),
        ("src/lib.rs", "pub mod util;\n\npub fn version() -> &'static str {\n    \"1.0\"\n}\n"),
        ("src/util/mod.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"),
        ("manual/guide.md", "# Guide\n\nRead the notes.\n\n## Usage\n\nRun it.\n"),
    ];
    for (p, c) in files {
        let path = root.join(p);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, c).unwrap();
    }
    let real = crate::common::repo_root().join("guest/src/vfs");
    copy_tree(&real, &root.join("real"));
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// A session over `dir` at `/w` (writable) with the shell enabled.
fn shell_session(dir: &Path) -> Session {
    let mut s = engine()
        .session(vec![
            MountSpec::new("/w", dir_volume(dir, false)),
            filestore::tools::results_mount(),
        ])
        .expect("session");
    s.enable_shell(true).expect("enable the shell");
    s
}

fn dir_volume(dir: &Path, read_only: bool) -> filestore::volumes::SharedVolume {
    crate::common::dir(dir, read_only)
}

fn execute(s: &mut Session, command: &str) -> Result<Value, (String, String)> {
    s.call("filestore_execute", &json!({"command": command, "cwd": "/w"}))
        .map(|o| o.json)
        .map_err(|e| (e.kind_name().to_string(), e.to_string()))
}

fn ran(s: &mut Session, command: &str) -> Value {
    execute(s, command).unwrap_or_else(|e| panic!("{command}: {e:?}"))
}

// ---- the corpus ------------------------------------------------------------------

/// Commands agents write, run by bash and by the shell on copies of [`fixture`].
/// Relative paths only (the two copies live at different absolute paths), and
/// `find` piped to `sort` (GNU find lists in directory order).
const CORPUS: &[&str] = &[
    // Output and text basics.
    "echo hello world",
    // A line that does not parse: status 2, nothing run.
    "if [ (; then",
    "echo before; done",
    "echo -n no-newline",
    "echo -e 'a\\tb'",
    "printf '%s-%d\\n' a 1 b 2",
    "printf '%05.2f\\n' 3.14159",
    "printf '%x %o\\n' 255 8",
    "printf '%s\\n' \"$@\"",
    "cat notes.txt",
    "cat -n notes.txt",
    "cat \"with space.txt\"",
    "cat empty.txt; echo end",
    "head -3 notes.txt",
    "head -n 2 logs/app.log",
    "head -c 5 notes.txt",
    "head -n1 src/main.rs src/lib.rs",
    "tail -2 notes.txt",
    "tail -n +5 notes.txt",
    "tail -c 4 notes.txt",
    "tail -n1 notes.txt logs/app.log",
    "wc -l notes.txt",
    "wc -w notes.txt",
    "wc -c notes.txt",
    "wc -m notes.txt",
    "wc notes.txt",
    "wc -l < notes.txt",
    "wc -l notes.txt logs/app.log",
    "wc -lc notes.txt logs/app.log src/main.rs",
    "wc --bytes --lines notes.txt",
    "wc -c empty.txt notes.txt",
    "printf 'a\\nb' | wc -lc",
    "printf 'no newline' | wc -l",
    "wc -l missing.txt; echo \"status $?\"",
    // grep.
    "grep ERROR logs/app.log",
    "grep -n WARN logs/app.log",
    "grep -c INFO logs/app.log",
    "egrep -n 'WARN|ERROR' logs/app.log",
    "fgrep -c 'a.b' notes.txt; echo \"status $?\"",
    "egrep -rl 'fn (main|add)' src | sort",
    "grep -i error logs/app.log",
    "grep -v INFO logs/app.log",
    "grep -E 'WARN|ERROR' logs/app.log",
    "grep -o 'a[a-z]' notes.txt",
    "grep -w apple data/people.csv; echo $?",
    "grep nothing-here notes.txt; echo $?",
    "grep -q apple notes.txt && echo found",
    "grep -h fn src/main.rs src/lib.rs",
    "grep -l fn src/main.rs src/lib.rs src/util/mod.rs",
    "grep -rn 'fn ' src | sort",
    "grep -rl pub real | sort",
    "grep -rc fn real | sort",
    "grep -rn --include='*.rs' 'pub fn' real | sort | head -5",
    "grep -A1 WARN logs/app.log",
    "grep -B1 ERROR logs/app.log",
    "grep -C1 running logs/app.log",
    "grep -F 'a + b' src/util/mod.rs",
    "grep -x apple notes.txt",
    "grep -m2 apple notes.txt",
    "grep -e banana -e cherry notes.txt",
    // grep lines the guest's engine runs (guest/src/shell/grep), each flag it takes.
    "grep -rn 'fn ' . | sort",
    "grep -rn pub | sort",
    "grep -ril ERROR . | sort",
    "grep -rc apple --include='*.txt' . | sort",
    "grep -rl fn --exclude='*.rs' . | sort; echo $?",
    "grep -rl pub --exclude-dir=util src | sort",
    "grep -rwn add src | sort",
    "grep -rhF 'a + b' src",
    "grep -rH INFO logs",
    "grep -n -E 'WARN|ERROR' logs/app.log notes.txt",
    "grep -vn apple notes.txt",
    "grep -vc apple notes.txt data/people.csv",
    "grep -on 'ap[a-z]' notes.txt",
    "grep -rn -A1 -B1 WARN logs notes.txt",
    "grep -2 banana notes.txt",
    "grep -rn -C1 apple . | sort",
    "grep -i 'INFO.*start' logs/app.log",
    "grep -q nothing notes.txt; echo $?",
    "grep -s apple notes.txt missing.txt; echo $?",
    "grep -rn 'fn ' src | head -2 | wc -l",
    "grep 'a+' notes.txt; echo $?",
    "grep -x -E 'apple|date' notes.txt",
    // Lines left to bashkit's grep: stdin, -P, back-references, -m.
    "cat notes.txt | grep -n apple",
    "grep -E '(an)\\1' notes.txt",
    "printf 'x\\ny\\n' | grep -c y",
    // find and ls.
    "find . -name '*.rs' | sort",
    "find . -type d | sort",
    "find src -type f | sort",
    "find . -name '*.md' -o -name '*.json' | sort",
    "find . -maxdepth 1 | sort",
    "find . -empty | sort",
    "find real -name '*.rs' | wc -l",
    "find . -path ./real -prune -o -type f -print | sort",
    "find . -name '*.txt' -print0 | sort -z | xargs -0 cat",
    "find src -name '*.rs' -exec grep -l add {} \\; | sort",
    // find lines the mount table's walk runs (guest/src/shell/find), each test it takes.
    "find . -name '*.rs' | wc -l",
    "find . -type f | wc -l",
    "find . -iname '*.TXT' | sort",
    "find . -type f -size +1k | sort",
    "find . -type f -size -1 | sort",
    "find . -mindepth 2 -maxdepth 2 -type d | sort",
    "find . -not -name '*.rs' -type f | sort",
    "find src logs -name '*.rs' -o -name '*.log' | sort",
    "find . -path '*/util*' | sort",
    "find real -maxdepth 1 -type f -name 'm*.rs' | sort",
    "find . \\( -name '*.json' -o -name '*.csv' \\) -size -2k | sort",
    "find . -empty -type f | sort",
    "find . -name '*.rs' -print -quit | wc -l",
    "find . -type d -name util -prune -o -name '*.rs' -print | sort",
    "find ./src/ -type f | sort",
    "find nope src 2>&1 | sort; echo ${PIPESTATUS[0]}",
    "find . -name '*.md' -print0 | xargs -0 cat",
    "ls",
    "ls src",
    "ls -a src",
    "ls -1 data",
    "ls -d */",
    "ls *.txt",
    "ls \"with space.txt\"",
    "ls -R src",
    "ls nope 2>&1 | wc -l",
    // sed, awk.
    "sed -n 2,3p notes.txt",
    "sed 's/a/A/g' notes.txt",
    "sed -e '1d' notes.txt",
    "sed -n '/ERROR/p' logs/app.log",
    "sed 's/\\(.*\\),\\(.*\\),\\(.*\\)/\\3 \\1/' data/people.csv",
    "sed -i 's/apple/APPLE/' data/people.csv && cat data/people.csv",
    "sed '$d' notes.txt",
    "sed -n '$=' notes.txt",
    "echo abc | sed 's/b/X/'",
    "awk '{print $1}' logs/app.log",
    "awk -F, 'NR>1 {s+=$2} END {print s}' data/people.csv",
    "awk -F, '$2 > 30 {print $1}' data/people.csv",
    "awk '{ n[$2]++ } END { for (k in n) print k, n[k] }' logs/app.log | sort",
    "awk 'length > 5' notes.txt",
    "awk 'NR==2' notes.txt",
    "awk '{print NR\": \"$0}' notes.txt",
    "awk -v x=5 'BEGIN {print x*2}'",
    // sort, uniq, cut, tr, and friends.
    "sort notes.txt",
    "sort -r notes.txt",
    "sort -u notes.txt",
    "sort -t, -k2 -n data/people.csv",
    "sort notes.txt | uniq -c",
    "sort notes.txt | uniq -c | sort -rn | head -1",
    "sort notes.txt | uniq -d",
    "uniq notes.txt",
    "sort -k3 logs/app.log | head -3",
    "sort -n <<< $'10\\n9\\n100'",
    "cut -d, -f1 data/people.csv",
    "cut -c1-3 notes.txt",
    "cut -d, -f2,3 data/people.csv",
    "echo 'a,b,c' | cut -d, -f2",
    "tr a-z A-Z < notes.txt",
    "tr -d '\\n' < notes.txt; echo",
    "echo hello | tr -s l",
    "tr ',' ':' < data/people.csv",
    "printf 'x\\0y' | tr '\\0' '\\n'",
    "paste -sd, notes.txt",
    "tac notes.txt",
    "rev notes.txt",
    "nl notes.txt",
    // xargs, diff, jq.
    "ls src/*.rs | xargs -n1 basename",
    "echo a b c | xargs -n1",
    "echo '  trim  ' | xargs",
    "find . -name '*.rs' | sort | xargs wc -l | tail -1",
    "diff notes.txt notes.txt; echo $?",
    "printf 'a\\nb\\n' > x; printf 'a\\nc\\n' > y; diff x y; echo $?",
    "diff <(printf 'a\\nb\\n') <(printf 'a\\nc\\n')",
    "jq .count data/items.json",
    "jq -r '.items[].name' data/items.json",
    "jq '.items | length' data/items.json",
    "jq -c '.items[] | select(.id > 1)' data/items.json",
    "jq -r '.items[0].tags | join(\",\")' data/items.json",
    "jq -r 'keys[]' data/items.json",
    "cat data/items.json | jq '.items | map(.id) | add'",
    "echo '{\"a\":1}' | jq .a",
    // Files and directories.
    "mkdir -p out/deep/er && ls out/deep",
    "mkdir newdir; echo $?",
    "mkdir src 2>/dev/null; echo $?",
    "rm notes.txt && ls",
    "rm -r logs && ls",
    "rm nothing 2>/dev/null; echo $?",
    "rm -f nothing; echo $?",
    "rm -rf src && [ ! -e src ] && echo gone",
    "mv notes.txt moved.txt && ls",
    "mv notes.txt src/ && ls src",
    "mv src source && ls",
    "cp notes.txt copy.txt && cmp notes.txt copy.txt && echo same",
    "cp -r src src2 && find src2 | sort",
    "cp -r data data2 && diff -r data data2 && echo same",
    "touch new.txt && ls",
    "touch a b c && ls a b c",
    "mkdir d && touch d/x && rmdir d 2>/dev/null; echo $?",
    "echo hi | tee out.txt",
    "echo more | tee -a notes.txt >/dev/null; tail -1 notes.txt",
    "basename /a/b/c.txt",
    "basename /a/b/c.txt .txt",
    "dirname /a/b/c.txt",
    "dirname c.txt",
    "basename \"$(realpath notes.txt)\"",
    "stat -c %s notes.txt",
    "stat -c '%n %s' notes.txt data/items.json",
    "test -f notes.txt && echo file",
    "test -d src && echo dir",
    "[ -e nope ] || echo missing",
    "[ 3 -gt 2 ] && echo yes",
    "[ a = b ]; echo $?",
    "test -s empty.txt; echo $?",
    "test -z '' && echo empty",
    "[[ abc == a* ]] && echo match",
    "[[ -n $UNSET_VAR ]] || echo unset",
    "seq 5",
    "seq 2 2 10",
    "seq -s, 1 5",
    "seq 100 | tail -1",
    "yes | head -3",
    "env | grep -c ^NOPE=; echo $?",
    "FOO=bar env | grep ^FOO=",
    "true; echo $?",
    "false; echo $?",
    "expr 2 + 3",
    "md5sum notes.txt",
    "sha256sum notes.txt",
    "base64 notes.txt | head -1",
    // Shell syntax.
    "false || echo recovered",
    "true && echo chained",
    "echo a; echo b",
    "(cd src && ls)",
    "x=$(wc -l < notes.txt); echo \"lines: $x\"",
    "echo \"$(echo nested $(echo deeper))\"",
    "echo `echo backticks`",
    "for f in src/*.rs; do echo \"== $f\"; head -1 \"$f\"; done",
    "for i in 1 2 3; do echo $i; done",
    "i=0; while [ $i -lt 3 ]; do i=$((i+1)); echo $i; done",
    "until false; do echo once; break; done",
    "for i in 1 2 3 4; do [ $i = 3 ] && continue; echo $i; done",
    "case foo.rs in *.rs) echo rust;; *) echo other;; esac",
    "if grep -q ERROR logs/app.log; then echo found; else echo none; fi",
    "f() { echo \"arg: $1\"; }; f one; f two",
    "greet() { local n=$1; echo \"hi $n\"; return 3; }; greet x; echo $?",
    "fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 5",
    "cat <<EOF\nline one\nline two\nEOF",
    "cat > made.txt <<'EOF'\n$HOME stays\nEOF\ncat made.txt",
    "cat <<-EOF\n\tindented\n\tEOF",
    "n=3; cat <<EOF\nn is $n\nEOF",
    "cat <<< 'here string'",
    "echo out > o.txt 2>&1; cat o.txt",
    "cat nope 2>/dev/null; echo $?",
    "echo to-stderr >&2",
    "ls nope 2>&1 >/dev/null | wc -l",
    "{ echo a; echo b; } > grouped.txt; cat grouped.txt",
    "echo first > f.txt; echo second >> f.txt; cat f.txt",
    "wc -l < notes.txt > count.txt; cat count.txt",
    "sort < notes.txt | head -2",
    "cat notes.txt | while read line; do echo \"[$line]\"; done",
    "while IFS=, read -r name age city; do echo \"$name:$city\"; done < data/people.csv",
    "echo ${UNSET_VAR:-default}",
    "v=hello; echo ${v^^} ${#v} ${v:1:3}",
    "v=path/to/file.txt; echo ${v##*/} ${v%.*} ${v/to/TO}",
    "arr=(a b c); echo ${arr[1]} ${#arr[@]}",
    "declare -A m=([k]=v); echo ${m[k]}",
    "echo {1..5}",
    "echo file{A,B}.txt",
    "echo *.txt",
    "echo src/*",
    "echo nomatch*",
    "shopt -s nullglob; echo *.nothing; echo done",
    "echo $((3 * (4 + 5))) $((7 / 2)) $((7 % 3))",
    "a=1; b=2; echo $((a+b))",
    "echo 'single $quoted'",
    "echo \"double $((1+1))\"",
    "set -- a b; echo $2 $#",
    "echo $#",
    "set -e; false; echo not reached",
    "exit 7",
    "readonly R=1; echo $R",
    "export E=1; bash -c 'echo $E'",
    "echo hello > /dev/null; echo $?",
    "cat notes.txt | sort | uniq | wc -l",
    "(exit 3); echo $?",
    "! false; echo $?",
    "echo a | { read x; echo got $x; }",
    "printf '%s\\n' c a b | sort | head -1",
    "type cd | head -1",
];

/// Commands of [`CORPUS`] whose answer differs from bash's on purpose or because of
/// the interpreter, each with the reason (docs/shell.md, "Differences from bash").
const KNOWN: &[(&str, &str)] = &[(
    "cp -r data data2 && diff -r data data2 && echo same",
    "bashkit's diff compares two files; it has no -r",
)];

/// Runs one corpus command both ways; `None` when they agree, else what differs.
fn compare(template: &Path, command: &str) -> Option<String> {
    let tmp = tempfile::tempdir().unwrap();
    let (b, f) = (tmp.path().join("bash"), tmp.path().join("fs"));
    copy_tree(template, &b);
    copy_tree(template, &f);
    let (want_out, want_code) = bash(&b, command, Locale::C);
    let mut s = shell_session(&f);
    let got = match execute(&mut s, command) {
        Ok(v) => v,
        Err(e) => {
            return Some(format!("the shell failed: {e:?}; bash: {want_out:?} ({want_code})"));
        }
    };
    let got_out = got["stdout"].as_str().unwrap_or_default();
    let got_code = got["exit_code"].as_i64().unwrap_or(-1) as i32;
    let mut why = Vec::new();
    if got_out != want_out {
        why.push(format!("stdout {got_out:?}, bash {want_out:?}"));
    }
    if got_code != want_code {
        why.push(format!(
            "exit {got_code}, bash {want_code} (stderr {:?})",
            got["stderr"].as_str().unwrap_or_default()
        ));
    }
    let (tb, tf) = (tree(&b), tree(&f));
    if tb != tf {
        let only = |x: &BTreeMap<String, Option<Vec<u8>>>,
                    y: &BTreeMap<String, Option<Vec<u8>>>| {
            x.iter()
                .filter(|(k, v)| y.get(*k) != Some(v))
                .map(|(k, _)| k.clone())
                .collect::<Vec<_>>()
        };
        why.push(format!(
            "tree: bash has {:?}, the shell has {:?}",
            only(&tb, &tf),
            only(&tf, &tb)
        ));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

#[test]
fn the_corpus_agrees_with_bash() {
    let template = tempfile::tempdir().unwrap();
    fixture(template.path());
    let mut failures = Vec::new();
    let mut now_agree = Vec::new();
    for command in CORPUS {
        let known = KNOWN.iter().find(|(c, _)| c == command);
        match (compare(template.path(), command), known) {
            (Some(why), None) => failures.push(format!("{command:?}: {why}")),
            (None, Some(_)) => now_agree.push(*command),
            _ => {}
        }
    }
    eprintln!(
        "shell corpus: {} commands, {} agree with bash, {} known differences, {} failures",
        CORPUS.len(),
        CORPUS.len() - failures.len() - KNOWN.len() + now_agree.len(),
        KNOWN.len() - now_agree.len(),
        failures.len()
    );
    assert!(
        now_agree.is_empty(),
        "these now agree with bash; remove them from KNOWN and docs/shell.md: {now_agree:?}"
    );
    assert!(failures.is_empty(), "{} differ from bash:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_corpus_is_large_and_its_known_differences_are_in_it() {
    assert!(CORPUS.len() >= 200, "the corpus has {} commands", CORPUS.len());
    for (c, why) in KNOWN {
        assert!(CORPUS.contains(c), "KNOWN names a command not in the corpus: {c:?}");
        assert!(!why.is_empty());
    }
}

// ---- hostile commands --------------------------------------------------------------

struct Hostile {
    _tmp: tempfile::TempDir,
    /// The mounted directory (its host path must never be reachable).
    root: PathBuf,
    /// A sibling directory outside every mount.
    outside: PathBuf,
    s: Session,
}

fn hostile() -> Hostile {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("mounted");
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    std::fs::write(root.join("ok.txt"), "ok\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("link")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("dirlink")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", root.join("passwd")).unwrap();
    let s = shell_session(&root);
    Hostile { _tmp: tmp, root, outside, s }
}

fn limit(s: &mut Session, command: &str) -> String {
    match execute(s, command) {
        Err((kind, message)) => {
            assert_eq!(kind, "limit-exceeded", "{command}: {message}");
            message
        }
        Ok(v) => panic!("{command} should hit a limit, got {v}"),
    }
}

#[test]
fn cd_and_paths_never_leave_the_mounts() {
    let mut h = hostile();
    let host = h.root.display().to_string();
    let outside = h.outside.display().to_string();
    let r = ran(&mut h.s, "cd ..; pwd; cd ../../..; pwd; ls");
    assert_eq!(r["stdout"], "/\n/\ntool_calls\nw\n");
    for cmd in [
        format!("cat {host}/ok.txt"),
        format!("cat {outside}/secret.txt"),
        format!("ls {outside}"),
        "cat ../../../../etc/passwd".to_string(),
        "cat /etc/passwd".to_string(),
        "cat /proc/self/environ".to_string(),
        "cat /proc/self/maps".to_string(),
        "ls /proc /sys /dev /tmp /home".to_string(),
    ] {
        let r = ran(&mut h.s, &cmd);
        assert_ne!(r["exit_code"], 0, "{cmd}: {r}");
        assert_eq!(r["stdout"], "", "{cmd}: {r}");
        // Only a path the command itself gave may appear in its messages.
        let err = r["stderr"].as_str().unwrap();
        if !cmd.contains(&host) {
            assert!(!err.contains(&host), "{cmd} names the host path: {err}");
        }
    }
}

#[test]
fn planted_links_are_never_followed() {
    let mut h = hostile();
    for cmd in ["cat link", "cat passwd", "cat dirlink/secret.txt", "cp link copy", "ls dirlink/"] {
        let r = ran(&mut h.s, cmd);
        // `ls` names a link without listing what it points to (bash would list it).
        if !cmd.starts_with("ls") {
            assert_ne!(r["exit_code"], 0, "{cmd}: {r}");
        }
        assert!(!r["stdout"].as_str().unwrap().contains("secret"), "{cmd}: {r}");
        assert!(!r["stdout"].as_str().unwrap().contains("root:"), "{cmd}: {r}");
    }
    // Writing to a link's path never writes through it.
    let _ = ran(&mut h.s, "echo overwritten > link; echo x >> passwd; echo y > dirlink/new");
    assert_eq!(std::fs::read_to_string(h.outside.join("secret.txt")).unwrap(), "secret\n");
    assert!(!h.outside.join("new").exists());
    // The shell creates no links and reads no link targets.
    let r = ran(&mut h.s, "ln -s /etc/passwd made-link; echo $?; readlink link; echo $?");
    assert_eq!(r["stdout"], "1\n1\n", "{r}");
    assert!(std::fs::symlink_metadata(h.root.join("made-link")).is_err());
    // find lists them without descending.
    let r = ran(&mut h.s, "find . | sort");
    assert!(!r["stdout"].as_str().unwrap().contains("secret"), "{r}");
}

#[test]
fn devices_read_as_in_bash_and_endless_ones_are_cut() {
    let mut h = hostile();
    assert_eq!(ran(&mut h.s, "echo x > /dev/null; cat /dev/null; echo $?")["stdout"], "0\n");
    for (cmd, want) in [
        ("head -c 16 /dev/urandom | base64 | wc -c", "25"),
        ("head -c 1M /dev/zero | wc -c", "1048576"),
        ("head -c 3000 /dev/zero | tr '\\0' x | grep -c x", "1"),
        ("tr -dc 'A-Za-z0-9' </dev/urandom | head -c 20 | wc -c", "20"),
        ("od -An -N4 -tx1 /dev/random | wc -w", "4"),
        // Each read draws new bytes.
        (
            "a=$(head -c 16 /dev/urandom | base64); b=$(head -c 16 /dev/urandom | base64); [ \"$a\" != \"$b\" ] && echo differ",
            "differ",
        ),
        // An endless device is cut (1 MiB of zeros, 64 KiB of random bytes a read):
        // `cat` ends.
        ("cat /dev/zero | wc -c", "1048576"),
        ("cat /dev/urandom | wc -c", "65536"),
        ("cat /dev/urandom > /dev/null; echo $?", "0"),
        // Writes are swallowed, as by Linux's devices.
        ("echo x > /dev/zero && echo x >> /dev/urandom && echo ok", "ok"),
        ("test -e /dev/urandom && echo yes", "yes"),
    ] {
        let r = ran(&mut h.s, cmd);
        assert_eq!(r["stdout"].as_str().unwrap().trim(), want, "{cmd}: {r}");
    }
    let r = ran(&mut h.s, "cat /dev/zero");
    assert_eq!(r["exit_code"], 0, "{r}");
    assert_eq!(r["truncated"], true, "a MiB of NULs is cut in the answer: {r}");
    let r = ran(&mut h.s, "cat /dev/full; echo $?");
    assert_eq!(r["stdout"], "1\n", "no other device: {r}");
}

#[test]
fn exec_and_eval_reach_nothing_outside() {
    let mut h = hostile();
    for cmd in [
        "exec /bin/sh -c 'cat /etc/passwd'",
        "eval 'cat /etc/passwd'",
        "/bin/cat /etc/passwd",
        "command -p cat /etc/passwd",
        "source /etc/profile",
    ] {
        let r = ran(&mut h.s, cmd);
        assert_ne!(r["exit_code"], 0, "{cmd}: {r}");
        assert!(!r["stdout"].as_str().unwrap().contains("root:"), "{cmd}: {r}");
    }
}

#[test]
fn runaways_end_with_limit_exceeded_and_the_session_goes_on() {
    let mut h = hostile();
    let m = limit(&mut h.s, "while true; do :; done");
    // The command count stops it, or the wall time first on a loaded machine.
    assert!(m.contains("command count") || m.contains("loop") || m.contains("time"), "{m}");
    let m = limit(&mut h.s, "f(){ f|f; }; f");
    assert!(m.contains("depth"), "{m}");
    // 200 files of 1 MB: the write that would pass 64 MiB is refused whole and the
    // command stops there; the files written before it stay, as bash leaves them.
    let m = limit(&mut h.s, "s=$(seq 150000); for i in $(seq 200); do echo \"$s\" > f$i; done");
    assert!(m.contains("file bytes written per command"), "{m}");
    let written: u64 = (1..=200)
        .filter_map(|i| std::fs::metadata(h.root.join(format!("f{i}"))).ok())
        .map(|m| m.len())
        .sum();
    assert!(h.root.join("f1").exists() && !h.root.join("f200").exists());
    assert!(written <= 64 << 20 && written > 60 << 20, "{written} bytes written");
    // `yes` stops itself at 10,000 lines (the interpreter's own bound), so a 10 GB
    // write through a pipe writes 20,000 bytes.
    let r = ran(&mut h.s, "yes | head -c 10G > big; wc -c < big");
    assert_eq!(r["stdout"], "20000\n", "{r}");
    let deep = format!("echo {}x{}", "$(echo ".repeat(64), ")".repeat(64));
    let m = limit(&mut h.s, &deep);
    assert!(m.contains("depth") || m.contains("nesting"), "{m}");
    assert_eq!(ran(&mut h.s, "echo still here")["stdout"], "still here\n");
}

#[test]
fn huge_heredocs_and_binary_output_are_bounded() {
    let mut h = hostile();
    let big = format!("cat <<EOF | wc -c\n{}\nEOF", "x".repeat(200_000));
    assert_eq!(ran(&mut h.s, &big)["stdout"].as_str().unwrap().trim(), "200001");
    let r = ran(&mut h.s, "printf 'a\\0b\\377c'");
    assert_eq!(r["stdout"], "a\u{0}b\u{fffd}c");
    let r = ran(&mut h.s, "seq 1 100000");
    assert_eq!(r["truncated"], true);
    let path = r["output_path"].as_str().expect("the whole output is stored");
    let whole = ran(&mut h.s, &format!("jq -j .stdout {path} | tail -1"));
    assert_eq!(whole["stdout"], "100000\n");
}

/// Names a shell cannot hold as text, and a tree that changes while a command runs:
/// nothing traps, nothing outside is reached, the session answers on.
#[test]
fn odd_names_eval_pieces_and_a_changing_tree_are_contained() {
    use std::os::unix::ffi::OsStrExt;
    let mut h = hostile();
    // A name with invalid UTF-8, planted on the host.
    let bad = std::ffi::OsStr::from_bytes(b"bad\xffname.txt");
    std::fs::write(h.root.join(bad), "odd\n").unwrap();
    let r = ran(&mut h.s, "ls | sort; echo status $?");
    let out = r["stdout"].as_str().unwrap();
    assert!(out.contains("ok.txt") && out.ends_with("status 0\n"), "{r}");
    // Listed escaped, as the file tools list it, and readable by that name.
    assert!(out.lines().any(|l| l == "~x~bad%FFname.txt"), "listed: {r}");
    let r = ran(&mut h.s, "for f in *bad*; do cat \"$f\"; done; find . -name '*bad*' | wc -l");
    assert_eq!(r["stdout"], "odd\n1\n", "{r}");
    // NUL cannot be in a name: the shell drops it, as the interpreter's strings do.
    let r = ran(&mut h.s, "touch \"$(printf 'nul\\0x')\"; ls | grep -c '^nul'");
    assert_eq!(r["stdout"], "1\n", "{r}");
    assert!(
        std::fs::read_dir(&h.root).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .as_bytes()
            .contains(&0))
    );
    // `eval` of a command built from pieces is the same command: confined.
    for cmd in [
        "c=ca; t=t; p=/et; eval \"$c$t ${p}c/passwd\"",
        "x=$(printf '%s' 'cat /et' 'c/passwd'); eval \"$x\"",
        "eval \"$(echo Y2F0IC9ldGMvcGFzc3dk | base64 -d)\"",
        "a=(c a t); eval \"$(IFS=; echo \"${a[*]}\") /proc/self/environ\"",
        "f=\"cat ../../..$(echo /outside/secret.txt)\"; eval \"$f\"",
    ] {
        let r = ran(&mut h.s, cmd);
        assert_ne!(r["exit_code"], 0, "{cmd}: {r}");
        let out = r["stdout"].as_str().unwrap();
        assert!(!out.contains("root:") && !out.contains("secret"), "{cmd}: {r}");
    }
    // The tree changes under a running command (another process writes and deletes
    // in the mounted directory meanwhile): every listing answers, nothing traps.
    let root = h.root.clone();
    let churn = std::thread::spawn(move || {
        for i in 0..400 {
            let p = root.join(format!("churn-{}", i % 20));
            if i % 2 == 0 {
                let _ = std::fs::write(&p, "x".repeat(i));
            } else {
                let _ = std::fs::remove_file(&p);
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    });
    let r = ran(
        &mut h.s,
        "for i in $(seq 40); do ls | wc -l >/dev/null; cat churn-* 2>/dev/null | wc -c >/dev/null; done; echo done",
    );
    churn.join().unwrap();
    assert_eq!(r["stdout"], "done\n", "{r}");
    assert_eq!(ran(&mut h.s, "cat ok.txt")["stdout"], "ok\n");
}

// ---- what the shell sees of the host ------------------------------------------------

#[test]
fn no_host_environment_pid_or_fine_clock_leaks() {
    let mut h = hostile();
    let env = ran(&mut h.s, "env | cut -d= -f1 | sort")["stdout"].as_str().unwrap().to_string();
    for host_var in std::env::vars().map(|(k, _)| k) {
        let allowed = ["PATH", "HOME", "PWD", "SHELL", "LANG", "USER"];
        if !allowed.contains(&host_var.as_str()) {
            assert!(!env.lines().any(|l| l == host_var), "host variable {host_var} leaks: {env}");
        }
    }
    let pid = ran(&mut h.s, "echo $$")["stdout"].as_str().unwrap().trim().to_string();
    assert_ne!(pid, std::process::id().to_string());
    // Three readings, so one landing on a whole second by chance proves nothing.
    let t = ran(&mut h.s, "date +%s.%N; date +%s.%N; date +%s.%N")["stdout"]
        .as_str()
        .unwrap()
        .to_string();
    for line in t.lines() {
        let (secs, frac) = line.split_once('.').expect("seconds.nanoseconds");
        assert!(secs.parse::<u64>().unwrap() > 1_700_000_000, "{t}");
        assert_eq!(frac, "000000000", "the wall clock shows sub-second time: {t}");
    }
}

// ---- the CLI -------------------------------------------------------------------------

#[test]
fn filestore_call_runs_the_shell_without_a_flag() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a.txt"), "one\ntwo\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_filestore"))
        .args(["call", "filestore_execute", r#"{"command": "wc -l a.txt && echo made > b.txt"}"#])
        .arg("--mount")
        .arg(format!("/w={}", tmp.path().display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["stdout"], "2 a.txt\n");
    assert_eq!(std::fs::read_to_string(tmp.path().join("b.txt")).unwrap(), "made\n");
}

// ---- MCP -------------------------------------------------------------------------------

/// An rmcp client connected in-process to a server over a writable memory `/w`, with
/// the shell offered or not (`serve --shell` sets `options.shell`).
async fn mcp_client(shell: bool) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    use rmcp::ServiceExt;
    let mut config = filestore::mcp::ServerConfig::new(engine().clone(), || {
        let w = filestore::volumes::MemoryVolume::new();
        w.insert("/a.txt", "one\ntwo\n");
        Ok(vec![MountSpec::new("/w", std::sync::Arc::new(w))])
    });
    config.options.shell = shell;
    let server = filestore::mcp::FilestoreServer::new(&config).expect("server");
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("client connects")
}

fn execute_params(command: &str) -> rmcp::model::CallToolRequestParams {
    let args = json!({"command": command}).as_object().cloned().unwrap();
    rmcp::model::CallToolRequestParams::new("filestore_execute").with_arguments(args)
}

#[tokio::test]
async fn mcp_offers_the_shell_only_when_enabled() {
    let off = mcp_client(false).await;
    let tools = off.peer().list_all_tools().await.unwrap();
    assert!(!tools.iter().any(|t| t.name == "filestore_execute"));
    // A tool the session does not list is unknown to it: a protocol error (-32602)
    // that says how to enable it.
    let err = off.peer().call_tool(execute_params("echo hi")).await.unwrap_err();
    let text = err.to_string();
    assert!(text.contains("-32602") && text.contains("serve --shell"), "{text}");
    off.cancel().await.unwrap();

    let on = mcp_client(true).await;
    let tools = on.peer().list_all_tools().await.unwrap();
    let t = tools.iter().find(|t| t.name == "filestore_execute").expect("listed");
    let ann = t.annotations.as_ref().unwrap();
    assert_eq!((ann.read_only_hint, ann.destructive_hint), (Some(false), Some(true)));
    let r = on
        .peer()
        .call_tool(execute_params("wc -l < a.txt; echo x > b.txt; cat b.txt"))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let out = r.structured_content.as_ref().unwrap();
    assert_eq!(out["stdout"], "2\nx\n");
    assert_eq!(out["exit_code"], 0);
    let r = on.peer().call_tool(execute_params("while :; do :; done")).await.unwrap();
    assert_eq!(r.is_error, Some(true));
    let text = &r.content[0].as_text().unwrap().text;
    assert!(text.starts_with("error[limit-exceeded]: "), "{text}");
    on.cancel().await.unwrap();
}

/// `filestore serve` over stdio with `extra` flags: the names of the tools it lists
/// and its answer to one `filestore_execute` call.
fn serve_stdio(extra: &[&str]) -> (Vec<String>, Value) {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_filestore"))
        .args(["serve", "--mount", "/w=mem:"])
        .args(extra)
        .current_dir(tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let send = |stdin: &mut std::process::ChildStdin, v: Value| writeln!(stdin, "{v}").unwrap();
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}}),
    );
    send(&mut stdin, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(&mut stdin, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "filestore_execute", "arguments": {"command": "echo hi > /w/f; cat /w/f"}}}),
    );
    stdin.flush().unwrap();
    let mut answers = BTreeMap::new();
    for line in stdout.lines() {
        let v: Value = serde_json::from_str(&line.unwrap()).unwrap_or_default();
        // Answers only (the server's own requests and notifications carry a method).
        if let (Some(id), None) = (v["id"].as_i64(), v.get("method")) {
            answers.insert(id, v);
        }
        // Requests are answered concurrently, in any order.
        if answers.contains_key(&2) && answers.contains_key(&3) {
            break;
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let names = answers
        .get(&2)
        .and_then(|a| a["result"]["tools"].as_array())
        .unwrap_or_else(|| panic!("tools/list unanswered: {answers:?}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    // A result, or the error when the call was refused as a protocol error.
    let call = answers
        .get(&3)
        .map(|a| if a.get("error").is_some() { a["error"].clone() } else { a["result"].clone() });
    (names, call.unwrap_or_default())
}

#[test]
fn serve_offers_the_shell_with_the_shell_flag_only() {
    let (names, call) = serve_stdio(&[]);
    assert!(!names.iter().any(|n| n == "filestore_execute"), "{names:?}");
    assert_eq!(call["code"], -32602, "{call}");
    let (names, call) = serve_stdio(&["--shell"]);
    assert!(names.iter().any(|n| n == "filestore_execute"), "{names:?}");
    assert_eq!(call["structuredContent"]["stdout"], "hi\n", "{call}");
}

/// An agent's working loop through the shell on an S3 mount (SeaweedFS on loopback)
/// and a memory mount: the same commands as on a directory, `mkdir` included although
/// object storage has no empty directories, and a `mv` across the two mounts that
/// loses nothing.
#[test]
fn the_shell_works_on_s3_and_memory_mounts() {
    let srv = crate::support::s3_server::shared();
    let p = crate::support::s3_server::prefix("shell");
    let mut s = engine()
        .session(vec![
            MountSpec::new("/s3", std::sync::Arc::new(srv.volume(&p))),
            MountSpec::new("/mem", crate::common::mem(&[("/notes.txt", "b\na\nc\n")])),
            filestore::tools::results_mount(),
        ])
        .expect("session");
    s.enable_shell(true).unwrap();
    let run = |s: &mut Session, command: &str| -> Value {
        s.call("filestore_execute", &json!({"command": command, "cwd": "/s3"}))
            .map(|o| o.json)
            .unwrap_or_else(|e| panic!("{command}: {e}"))
    };
    let out = run(
        &mut s,
        "mkdir -p src/deep && cd src/deep && test -d . && printf 'fn a() {}\\n// TODO x\\n' > a.rs && \
         cd /s3 && echo 'TODO y' > src/b.txt && grep -rn TODO src | sort && find . -type f | sort",
    );
    assert_eq!(out["exit_code"], 0, "{out}");
    assert_eq!(
        out["stdout"],
        "src/b.txt:1:TODO y\nsrc/deep/a.rs:2:// TODO x\n./src/b.txt\n./src/deep/a.rs\n"
    );
    // The directory stays in the bucket because a file was written into it; an empty
    // one made by mkdir is gone with the command.
    let out = run(&mut s, "mkdir empty && ls -d empty && ls");
    assert_eq!(out["stdout"], "empty\nempty\nsrc\n", "{out}");
    let out = run(&mut s, "ls; test -d empty; echo $?");
    assert_eq!(out["stdout"], "src\n1\n", "{out}");
    // Across mounts: sort on memory into S3, then move it back.
    let out = run(
        &mut s,
        "sort /mem/notes.txt > sorted.txt && mv sorted.txt /mem/ && cat /mem/sorted.txt; ls",
    );
    assert_eq!(out["stdout"], "a\nb\nc\nsrc\n", "{out}");
    let listed = s.call("filestore_ls", &json!({"path": "/mem"})).unwrap().json;
    assert!(listed.to_string().contains("sorted.txt"), "{listed}");
    // Appends on S3 keep what was there.
    let out = run(&mut s, "echo one >> log && echo two >> log && cat log && wc -c < log");
    assert_eq!(out["stdout"], "one\ntwo\n8\n", "{out}");
}

/// Files past one boundary crossing's cap (16 MiB): the shell and the move read them
/// whole (they were cut to their first 16 MiB, and a `mv` across mounts then deleted
/// the source: hostile review of the shell).
#[test]
fn files_over_16_mib_are_read_whole_and_moved_whole() {
    let tmp = tempfile::tempdir().unwrap();
    // Past 16 MiB, within the interpreter's own 32 MB of live data per command.
    let size = 17_000_000usize;
    let mut big: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    big[size - 8..].copy_from_slice(b"TAILMARK");
    std::fs::write(tmp.path().join("big"), &big).unwrap();
    std::fs::write(tmp.path().join("big2"), &big).unwrap();
    let mut s = engine()
        .session(vec![
            MountSpec::new("/w", dir_volume(tmp.path(), false)),
            MountSpec::new("/m", crate::common::mem(&[])),
            filestore::tools::results_mount(),
        ])
        .expect("session");
    s.enable_shell(true).unwrap();
    assert_eq!(ran(&mut s, "wc -c big")["stdout"], "17000000 big\n");
    assert_eq!(ran(&mut s, "tail -c 8 big")["stdout"], "TAILMARK");
    ran(&mut s, "cp big copy");
    assert_eq!(std::fs::read(tmp.path().join("copy")).unwrap(), big);
    ran(&mut s, "echo x >> copy");
    assert_eq!(std::fs::metadata(tmp.path().join("copy")).unwrap().len(), 17_000_002);
    ran(&mut s, "mv big /m/big");
    assert_eq!(ran(&mut s, "wc -c /m/big")["stdout"], "17000000 /m/big\n");
    assert!(!tmp.path().join("big").exists());
    // The file tool's move, memory back to the directory, and another across.
    s.call("filestore_move", &json!({"source": "/m/big", "destination": "/w/back"})).unwrap();
    assert_eq!(std::fs::read(tmp.path().join("back")).unwrap(), big);
    s.call("filestore_move", &json!({"source": "/w/big2", "destination": "/m/big2"})).unwrap();
    assert_eq!(ran(&mut s, "wc -c /m/big2")["stdout"], "17000000 /m/big2\n");
}

/// A builtin's I/O error is the command's failure (status 1, the error on stderr), not
/// a failed tool call; bounds checked before a line runs are `limit-exceeded`.
#[test]
fn io_errors_are_a_status_and_static_bounds_are_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let ro = tempfile::tempdir().unwrap();
    std::fs::write(ro.path().join("kept.txt"), "kept\n").unwrap();
    let mut s = engine()
        .session(vec![
            MountSpec::new("/w", dir_volume(tmp.path(), false)),
            MountSpec::new("/ro", dir_volume(ro.path(), true)),
            filestore::tools::results_mount(),
        ])
        .expect("session");
    s.enable_shell(true).unwrap();
    let out = ran(&mut s, "echo hi | tee /ro/kept.txt; echo after");
    assert_eq!(out["exit_code"], 1, "{out}");
    assert!(out["stderr"].as_str().unwrap().contains("Read-only file system"), "{out}");
    assert_eq!(std::fs::read_to_string(ro.path().join("kept.txt")).unwrap(), "kept\n");
    // `rm -f` hides a missing operand only, not a refused delete (GNU).
    let out = ran(&mut s, "rm -f /ro/kept.txt /ro/missing.txt; echo $?");
    assert_eq!(out["stdout"], "1\n", "{out}");
    assert!(out["stderr"].as_str().unwrap().contains("Read-only file system"), "{out}");
    assert!(!out["stderr"].as_str().unwrap().contains("missing.txt"), "{out}");
    assert!(ro.path().join("kept.txt").exists());
    let (kind, message) = execute(&mut s, "echo {1..99999999}").unwrap_err();
    assert_eq!(kind, "limit-exceeded", "{message}");
    assert!(message.contains("brace range too large"), "{message}");
    assert_eq!(ran(&mut s, "echo still").pointer("/stdout").unwrap(), "still\n");
}

/// A trap reaching the agent says what happened in one line: `jq` with a filter
/// nested 30,000 deep runs the sandbox out of stack, told as `limit-exceeded`
/// (stack) without the WebAssembly backtrace, which goes to the server's stderr
/// only (the agent was sent the whole backtrace), its frames named although the
/// precompiled artifact carries no function names (runtime/function_names.rs). The
/// next call runs in a fresh sandbox.
#[test]
fn a_trap_reaches_the_agent_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let depth = 30_000;
    let filter = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    std::fs::write(tmp.path().join("deep.jq"), filter).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_filestore"));
    command.args(["serve", "--shell", "--mount", &format!("/w={}", tmp.path().display())]);
    let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(command);
    let r = client.call_tool("filestore_execute", json!({"command": "echo 1 | jq -f /w/deep.jq"}));
    assert_eq!(r["isError"], true, "{r}");
    let text = r["content"][0]["text"].as_str().unwrap_or_default();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("error[limit-exceeded]: limit-exceeded (stack): "), "{text}");
    assert!(text.contains("ran out of stack"), "{text}");
    assert!(!text.contains("backtrace") && !text.contains("0x"), "{text}");
    assert_eq!(r["_meta"]["filestore/error"]["kind"], "limit-exceeded", "{r}");
    let next = client.call_tool("filestore_execute", json!({"command": "echo ok"}));
    assert_eq!(next["structuredContent"]["stdout"], "ok\n", "{next}");
    let (_, stderr) = client.close();
    assert!(
        stderr.contains("wasm backtrace") && stderr.contains("call stack exhausted"),
        "{stderr}"
    );
    assert!(stderr.contains("filestore_guest.wasm!jaq_core::"), "{stderr}");
    assert!(!stderr.contains("<wasm function"), "{stderr}");
}

/// `serve` and `call` give the shell an in-memory `/tmp`: `mktemp`, `mktemp -d` and
/// `> /tmp/x` work as in bash; each session has its own (another session does not
/// see its files); it is bounded as memory volumes are (`--volume-quota-mib`), and
/// it is no host directory (nothing lands in the host's `/tmp`).
#[test]
fn the_shell_has_a_tmp_of_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    let line = "f=$(mktemp) && echo one > $f && d=$(mktemp -d) && echo two > $d/x && \
                printf 'b\\na\\n' > /tmp/list && sort /tmp/list > /tmp/sorted && \
                cat $f $d/x /tmp/sorted && dirname $f && test -d $d && echo $f";
    let out = Command::new(env!("CARGO_BIN_EXE_filestore"))
        .args(["call", "filestore_execute"])
        .arg(json!({"command": line}).to_string())
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let result: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    assert_eq!(result["exit_code"], 0, "{result} {}", String::from_utf8_lossy(&out.stderr));
    let stdout = result["stdout"].as_str().unwrap();
    let made = stdout.lines().last().unwrap();
    assert!(stdout.starts_with("one\ntwo\na\nb\n/tmp\n"), "{stdout}");
    assert!(made.starts_with("/tmp/tmp."), "{stdout}");
    // The name the sandbox made is not a file of the host's /tmp.
    assert!(!Path::new(made).exists(), "{made} was made on the host");

    // Two sessions of one server: each its own /tmp, bounded by the volume quota.
    let server = crate::support::mcp_http::Replica::start(
        env!("CARGO_BIN_EXE_filestore"),
        tmp.path(),
        &["--shell", "--volume-quota-mib", "1", "--mount", "/w=mem:"],
    );
    let mut a = server.session(None, None).unwrap();
    let mut b = server.session(None, None).unwrap();
    a.call_ok("filestore_execute", json!({"command": "echo mine > /tmp/a"}));
    let seen = b.call_ok("filestore_execute", json!({"command": "ls -A /tmp; echo end"}));
    assert_eq!(seen.trim(), "end", "{seen}");
    let kept = a.call_ok("filestore_execute", json!({"command": "cat /tmp/a"}));
    assert_eq!(kept.trim(), "mine");
    let big = a.call(
        "filestore_execute",
        json!({"command": "s=xxxxxxxx; for i in $(seq 18); do s=$s$s; done; echo $s > /tmp/big"}),
    );
    let said = big.to_string();
    assert!(said.contains("quota"), "a 2 MB file in a 1 MiB /tmp: {said}");
    // `>` opened (created) /tmp/big before the write was refused, as bash leaves it.
    let kept = a.call_ok("filestore_execute", json!({"command": "cat /tmp/a; ls /tmp"}));
    assert_eq!(kept.trim(), "mine\na\nbig", "{kept}");
}

/// A missing program is bash's `command not found` and status 127 (as `/bin/bash`
/// on a machine without it), followed by one sentence true of this sandbox: no
/// build advice for the interpreter's embedders, no network hint (there is no
/// network), no guessed look-alikes (`perl` is not `curl`).
#[test]
fn a_missing_program_says_so_plainly() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = shell_session(tmp.path());
    let said = |s: &mut Session, program: &str| {
        let r = ran(s, &format!("{program} --version"));
        assert_eq!(r["exit_code"], 127, "{program}: {r}");
        r["stderr"].as_str().unwrap().to_string()
    };
    let expect = [
        ("ssh", "This sandbox has no network"),
        ("rsync", "This sandbox has no network"),
        ("perl", "No such interpreter in this sandbox"),
        ("pytest", "python3 is here with its standard library only"),
        ("uv", "Nothing can be installed in this sandbox"),
        ("git", "No git in this sandbox"),
    ];
    for (program, hint) in expect {
        let stderr = said(&mut s, program);
        let want = format!("bash: line 1: {program}: command not found. {hint}");
        assert!(stderr.starts_with(&want), "{program}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        for wrong in ["feature", "Did you mean", "curl/wget", "Enable with"] {
            assert!(!stderr.contains(wrong), "{program}: {stderr}");
        }
    }
    // A name nothing is known of: bash's plain line.
    assert_eq!(said(&mut s, "frobnicatx"), "bash: line 1: frobnicatx: command not found\n");
    // `command -v` still finds nothing: the program is missing, not a stub.
    let r = ran(&mut s, "command -v node || echo none");
    assert_eq!(r["stdout"], "none\n", "{r}");
}
