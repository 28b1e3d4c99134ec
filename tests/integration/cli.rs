//! The `filestore` binary: `call` prints JSON on success and a typed error on stderr
//! with a non-zero exit on failure; grep finds what ripgrep finds.

use std::collections::BTreeSet;
use std::process::Command;

fn filestore() -> Command {
    Command::new(env!("CARGO_BIN_EXE_filestore"))
}

#[test]
fn call_prints_json_and_typed_errors() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("hello.txt"), "hi\n").unwrap();
    let mount = format!("/w={}", tmp.path().display());
    let out = filestore()
        .args(["call", "filestore_read", r#"{"path":"/w/hello.txt"}"#, "--mount", &mount])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["text"], "     1\thi\n");
    let out = filestore()
        .args(["call", "filestore_read", r#"{"path":"/w/nope.txt"}"#, "--mount", &mount])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error[not-found]") && err.contains("/w/nope.txt"), "{err}");
    let out = filestore()
        .args(["call", "filestore_read", "{not json", "--mount", &mount])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid-argument"));
}

/// `filestore_grep` over this repository's sources finds exactly the lines
/// `rg -n -uu` finds (binary files aside, which both skip).
#[test]
fn grep_matches_ripgrep_on_a_real_tree() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let tree = tempfile::tempdir().unwrap();
    // A stable copy of the sources (the repo's target/ may be huge or changing).
    for sub in ["guest/src", "host/src", "wit", "tests"] {
        copy_dir(&root.join(sub), &tree.path().join(sub));
    }
    let rg = Command::new("rg")
        .args(["-n", "-uu", "--no-heading", "--with-filename", "fn main", "."])
        .current_dir(tree.path())
        .output();
    let rg = match rg {
        Ok(o) => o,
        Err(e) => panic!("ripgrep (rg) is required for this test; .ci/run installs it: {e}"),
    };
    let want: BTreeSet<String> = String::from_utf8_lossy(&rg.stdout)
        .lines()
        .map(|l| {
            let l = l.strip_prefix("./").unwrap_or(l);
            let mut parts = l.splitn(3, ':');
            format!("/w/{}:{}", parts.next().unwrap(), parts.next().unwrap())
        })
        .collect();
    assert!(!want.is_empty());
    let mount = format!("/w={}:ro", tree.path().display());
    let out = filestore()
        .args([
            "call",
            "filestore_grep",
            r#"{"pattern":"fn main","path":"/w","output_mode":"content","head_limit":100000}"#,
            "--mount",
            &mount,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got: BTreeSet<String> = j["lines"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["is_context"] == false)
        .map(|l| format!("{}:{}", l["path"].as_str().unwrap(), l["line"]))
        .collect();
    assert_eq!(got, want);
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &t);
        } else if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), t).unwrap();
        }
    }
}
