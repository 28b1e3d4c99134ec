//! The `filestore` binary: `call` prints JSON on success and a typed error on stderr
//! with a non-zero exit on failure; grep finds what ripgrep finds.

use std::collections::BTreeSet;
use std::process::Command;

use crate::support::cmd::Ran;

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

/// `call` mounts what `serve` mounts: without `--mount`, the current directory
/// read-only at /workspace, /scratch and /tool_calls (with nothing mounted, a grep
/// would answer "0 files" silently).
#[test]
fn call_mounts_what_serve_mounts() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("hello.txt"), "fn main\n").unwrap();
    let out = filestore()
        .args(["call", "filestore_grep", r#"{"pattern":"fn main","path":"/workspace"}"#])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["files"], serde_json::json!(["/workspace/hello.txt"]), "{j}");
    let out = filestore()
        .args(["call", "filestore_write", r#"{"path":"/workspace/x.txt","content":"x"}"#])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error[read-only]"), "/workspace is read-only, as in serve: {err}");
    let out = filestore()
        .args(["call", "filestore_write", r#"{"path":"/scratch/x.txt","content":"x"}"#])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A configured tool's result too large for a model is offloaded into /tool_calls,
/// which ends with the process: `call` prints it whole (JSON `data`, and `--text`),
/// not the preview and a path nobody can read afterwards.
#[test]
fn call_prints_an_offloaded_result_whole() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("tools.yaml"),
        "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n---\nkind: tool\n\
         name: big\ntype: sqlite-sql\nsource: db\ndescription: Many rows.\nstatement: \
         WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000) \
         SELECT i, 'row text' AS t FROM c\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let out = filestore()
            .args(["call", "big", "{}", "--config", "tools.yaml"])
            .args(extra)
            .current_dir(tmp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out.stdout
    };
    let j: serde_json::Value = serde_json::from_slice(&run(&[])).unwrap();
    assert_eq!(j["offloaded"], true, "large enough to be offloaded");
    assert!(j.get("preview").is_none(), "the whole result, not the preview");
    let rows = j["data"].as_array().expect("data");
    assert_eq!(rows.len(), 20000);
    assert_eq!(rows[19999], serde_json::json!({"i": 20000, "t": "row text"}));
    let text: serde_json::Value = serde_json::from_slice(&run(&["--text"])).unwrap();
    assert_eq!(&text, &j["data"], "--text prints the stored result");
}

/// `--mount /x=DIR:rw` where `DIR:rw` is itself a directory never
/// silently serves `DIR`: refused, naming both spellings; each spelling serves the
/// directory it names.
#[test]
fn a_mount_source_named_like_a_mode_has_one_reading() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root3").display().to_string();
    for name in [root.clone(), format!("{root}:rw")] {
        std::fs::create_dir_all(&name).unwrap();
        std::fs::write(format!("{name}/which.txt"), &name).unwrap();
    }
    let read = |spec: &str| {
        filestore()
            .args(["call", "filestore_read", r#"{"path":"/x/which.txt","raw":true}"#])
            .args(["--mount", &format!("/x={spec}")])
            .output()
            .unwrap()
    };
    let out = read(&format!("{root}:rw"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(
        err.contains(&format!("'{root}:rw/'")) && err.contains(&format!("'{root}/:rw'")),
        "{err}"
    );
    for (spec, served) in [
        (format!("{root}:rw/"), format!("{root}:rw")),
        (format!("{root}:rw/:ro"), format!("{root}:rw")),
        (format!("{root}/:rw"), root.clone()),
        (root.clone(), root.clone()),
    ] {
        let out = read(&spec);
        assert!(out.status.success(), "{spec}: {}", String::from_utf8_lossy(&out.stderr));
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["text"], served, "{spec}");
    }
}

/// `filestore_grep` over this repository's sources finds exactly the lines ripgrep
/// finds with `rg -n -uu` (binary files aside, which both skip). The baseline is
/// ripgrep's own engine in-process (`grep-searcher` + `grep-regex`, walked by
/// `ignore` with every filter off, which is what `-uu` means), so the test needs no
/// `rg` binary on the machine.
#[test]
fn grep_matches_ripgrep_on_a_real_tree() {
    let root = &crate::common::repo_root();
    let tree = tempfile::tempdir().unwrap();
    // A stable copy of the sources (the repo's target/ may be huge or changing).
    for sub in ["guest/src", "host/src", "wit", "tests"] {
        copy_dir(&root.join(sub), &tree.path().join(sub));
    }
    // A binary file with a match: both sides skip it.
    std::fs::write(tree.path().join("tests/blob.bin"), b"fn main\0\x01\x02").unwrap();
    let want = ripgrep_lines(tree.path(), "fn main");
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

/// `path:line` of every line ripgrep's engine matches under `root`, as `/w/...` paths.
fn ripgrep_lines(root: &std::path::Path, pattern: &str) -> BTreeSet<String> {
    use grep_regex::RegexMatcher;
    use grep_searcher::sinks::Lossy;
    use grep_searcher::{BinaryDetection, SearcherBuilder};
    let matcher = RegexMatcher::new_line_matcher(pattern).unwrap();
    // ripgrep's default for files found by walking: stop at the first NUL byte.
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(b'\0'))
        .build();
    let mut out = BTreeSet::new();
    for entry in ignore::WalkBuilder::new(root).standard_filters(false).build() {
        let entry = entry.unwrap();
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = entry.path().strip_prefix(root).unwrap().to_string_lossy().into_owned();
        let mut lines = Vec::new();
        searcher
            .search_path(
                &matcher,
                entry.path(),
                Lossy(|n, _| {
                    lines.push(n);
                    Ok(true)
                }),
            )
            .unwrap();
        out.extend(lines.into_iter().map(|n| format!("/w/{rel}:{n}")));
    }
    out
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

/// A reader that goes away (`filestore call ... | head -1`) ends the process quietly
/// with status 0, like `cat`, instead of a "failed printing to stdout" panic: for every
/// subcommand that prints to stdout (`call`, `call --text`, `check`, `migrate`). The
/// child's stdout is a pipe whose read end is closed before it starts, so its first
/// write fails with `EPIPE` every time, however small the output.
#[test]
fn closed_stdout_ends_quietly() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("hello.txt"), "hi\n").unwrap();
    let mount = format!("/w={}:ro", tmp.path().display());
    let data = |name: &str| {
        crate::common::repo_root().join("guest/tests-data").join(name).display().to_string()
    };
    let read = r#"{"path":"/w/hello.txt"}"#;
    let runs: [(&str, Vec<String>); 4] = [
        ("call", ["call", "filestore_read", read, "--mount", &mount].map(String::from).to_vec()),
        (
            "call --text",
            ["call", "filestore_read", read, "--mount", &mount, "--text"]
                .map(String::from)
                .to_vec(),
        ),
        ("check", vec!["check".into(), data("toolbox-v2-example-bound.yaml")]),
        ("migrate", vec!["migrate".into(), data("toolbox-v1-example-bound.yaml")]),
    ];
    for (name, args) in runs {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = filestore()
            .args(&args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(stderr.is_empty(), "{name}: nothing on stderr, got {stderr}");
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
    }
}

/// `filestore component` writes the exact component the binary runs and, with
/// `--wit`, the versioned WIT package it implements; a wasmtime engine of our own
/// compiles the written file (it is a component, not just bytes).
#[test]
fn component_and_wit_are_written() {
    let tmp = tempfile::tempdir().unwrap();
    let wasm = tmp.path().join("filestore.wasm");
    let wit = tmp.path().join("wit");
    let out = filestore()
        .args(["component", "-o", wasm.to_str().unwrap(), "--wit", wit.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bytes = std::fs::read(&wasm).unwrap();
    assert_eq!(bytes, filestore::component());
    // Validated, not compiled: the build compiled these bytes already (a compilation is
    // a minute of CPU in the test build).
    wasmparser::Validator::new().validate_all(&bytes).expect("a valid component");
    for name in ["filestore.wit", "tools.wit", "diagnostics.wit"] {
        let text = std::fs::read_to_string(wit.join(name)).unwrap();
        assert!(text.contains("package filestore:component@0.11.0;"), "{name}");
    }
    assert!(
        std::fs::read_to_string(wit.join("filestore.wit"))
            .unwrap()
            .contains("world filestore-component")
    );
    // A directory that cannot be created is a clear error.
    let out = filestore()
        .args([
            "component",
            "-o",
            wasm.to_str().unwrap(),
            "--wit",
            wasm.join("x").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[backend]: creating"));
}

/// `--version` names the component and the WIT package the binary carries, so two
/// builds of one version are told apart: the package line of wit/filestore.wit and
/// the digest of the embedded component, which `filestore component` writes out.
#[test]
fn version_names_the_component_and_wit() {
    use sha2::{Digest, Sha256};
    let out = filestore().arg("--version").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let wit =
        std::fs::read_to_string(crate::common::repo_root().join("wit/filestore.wit")).unwrap();
    let package = wit
        .lines()
        .find_map(|l| l.strip_prefix("package ")?.strip_suffix(';'))
        .expect("a package line");
    let tmp = tempfile::tempdir().unwrap();
    let wasm = tmp.path().join("c.wasm");
    let written = filestore().args(["component", "-o"]).arg(&wasm).status().unwrap();
    assert!(written.success());
    let digest: String = Sha256::digest(std::fs::read(&wasm).unwrap())[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        text,
        format!(
            "filestore {version}\ncomponent: filestore-guest {version} (sha256 {digest})\nwit: {package}\n"
        )
    );
}

/// A directory that cannot be read (mode 000), or read but not searched (644), is
/// refused "permission denied" by every tool that lists it, never answered as empty.
/// Run with the permission checks in force: as root, with the two capabilities that
/// bypass them dropped (`setpriv`, from util-linux).
#[cfg(target_os = "linux")]
#[test]
fn unreadable_directories_are_refused_not_listed_empty() {
    use serde_json::json;
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    for (dir, mode) in [("noread", 0o000), ("noexec", 0o644)] {
        std::fs::create_dir(tmp.path().join(dir)).unwrap();
        std::fs::write(tmp.path().join(dir).join("inside.txt"), "x\n").unwrap();
        std::fs::set_permissions(tmp.path().join(dir), std::fs::Permissions::from_mode(mode))
            .unwrap();
    }
    let mount = format!("/w={}:ro", tmp.path().display());
    let run = |tool: &str, args: serde_json::Value| {
        let mut c = if rustix::process::geteuid().is_root() {
            let mut c = Command::new("setpriv");
            c.args(["--bounding-set", "-dac_override,-dac_read_search"]);
            c.arg(env!("CARGO_BIN_EXE_filestore"));
            c
        } else {
            filestore()
        };
        c.args(["call", "--mount", &mount, tool, &args.to_string()]);
        c.output().unwrap_or_else(|e| panic!("{c:?}: {e}; install util-linux for setpriv"))
    };
    for dir in ["noread", "noexec"] {
        let path = format!("/w/{dir}");
        for (tool, args) in [
            ("filestore_ls", json!({"path": path})),
            ("filestore_ls", json!({"path": path, "details": true})),
            ("filestore_glob", json!({"pattern": "**/*", "path": path})),
            ("filestore_grep", json!({"pattern": "x", "path": path})),
        ] {
            let out = run(tool, args.clone());
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success(),
                "{tool} {args} answered: {}",
                String::from_utf8_lossy(&out.stdout)
            );
            assert!(
                err.contains("permission denied") && err.contains(&path),
                "{tool} {args}: {err}"
            );
        }
    }
    // The listing of the parent still shows both.
    let out = run("filestore_ls", json!({"path": "/w"}));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("noread") && listed.contains("noexec"), "{listed}");
    for dir in ["noread", "noexec"] {
        let _ =
            std::fs::set_permissions(tmp.path().join(dir), std::fs::Permissions::from_mode(0o755));
    }
}

/// `filestore call` in `dir` (its current directory is `/workspace`, read-only),
/// with `extra` arguments; the run, for its status and both outputs.
fn call_in(dir: &std::path::Path, tool: &str, args: serde_json::Value, extra: &[&str]) -> Ran {
    crate::support::cmd::run(
        filestore().args(["call", tool, &args.to_string()]).args(extra).current_dir(dir),
    )
}

/// A relative path is read from `/`, not from a working directory: a newcomer's
/// `README.md` that is not found says what it was read as and where that name is
/// (`/workspace/README.md`), whichever tool took the path, and for each file of a
/// read of several.
#[test]
fn a_relative_path_not_found_says_what_it_was_read_as() {
    use serde_json::json;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("README.md"), "# Hello\n").unwrap();
    std::fs::create_dir(tmp.path().join("src")).unwrap();
    std::fs::write(tmp.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    let ran = call_in(tmp.path(), "filestore_read", json!({"path": "README.md"}), &[]);
    assert!(!ran.output.status.success(), "{}", ran.describe());
    assert!(
        ran.stderr().contains(
            "error[not-found]: /README.md: no such file or directory: 'README.md' was read as /README.md (relative paths start at '/'"
        ) && ran.stderr().contains("; /workspace/README.md exists"),
        "{}",
        ran.describe()
    );
    for (tool, args, exists) in [
        ("filestore_grep", json!({"pattern": "main", "path": "src"}), "/workspace/src exists"),
        ("filestore_ls", json!({"path": "src"}), "/workspace/src exists"),
        ("filestore_tree", json!({"path": "./src"}), "/workspace/src exists"),
        ("filestore_glob", json!({"pattern": "*.rs", "path": "src"}), "/workspace/src exists"),
        ("filestore_read", json!({"path": "src/main.rs"}), "/workspace/src/main.rs exists"),
        (
            "filestore_read",
            json!({"path": "nope.md"}),
            "; the mounts are /audit, /scratch, /tmp, /tool_calls, /workspace",
        ),
    ] {
        let ran = call_in(tmp.path(), tool, args.clone(), &[]);
        let err = ran.stderr();
        assert!(err.contains("was read as /") && err.contains(exists), "{tool} {args}: {err}");
    }
    // Each file of a read of several gets it too.
    let ran = call_in(tmp.path(), "filestore_read", json!({"paths": ["README.md"]}), &[]);
    let out: serde_json::Value = serde_json::from_str(&ran.success().stdout()).unwrap();
    let message = out["files"][0]["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("/workspace/README.md exists"), "{out}");
}

/// One rule for an `offset` past the end (an error naming the parameter and the
/// count, the read tool's) and for a `head_limit` below the schema's minimum;
/// an empty file's read has no `ends_with_newline` (it has no last byte).
#[test]
fn paging_past_the_end_and_empty_files_follow_one_rule() {
    use serde_json::json;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a.txt"), "hi\nhi again\n").unwrap();
    std::fs::write(tmp.path().join("empty.txt"), "").unwrap();
    let refused = |key: &str, value: u64, want: &str| {
        let mut args = json!({"pattern": "hi", "path": "/workspace", "output_mode": "content"});
        args[key] = json!(value);
        let ran = call_in(tmp.path(), "filestore_grep", args, &[]);
        assert!(!ran.output.status.success(), "{}", ran.describe());
        assert!(ran.stderr().contains(want), "{}", ran.describe());
    };
    refused(
        "offset",
        5,
        "error[invalid-argument]: parameter 'offset': the search under /workspace has 2 lines in all; offset 5 is past the end",
    );
    refused(
        "head_limit",
        0,
        "error[invalid-argument]: parameter 'head_limit': must be at least 1, got 0",
    );
    let ran = call_in(
        tmp.path(),
        "filestore_read",
        json!({"path": "/workspace/a.txt", "offset": 5}),
        &[],
    );
    assert!(
        ran.stderr().contains("error[invalid-argument]: parameter 'offset': /workspace/a.txt has 2 lines; offset 5 is past the end"),
        "{}",
        ran.describe()
    );
    let ran = call_in(tmp.path(), "filestore_read", json!({"path": "/workspace/empty.txt"}), &[]);
    let out: serde_json::Value = serde_json::from_str(&ran.success().stdout()).unwrap();
    assert_eq!(out["content"], "empty", "{out}");
    assert!(out.get("ends_with_newline").is_none(), "absent for an empty file: {out}");
}

/// `filestore_write` and `filestore_edit` (and delete, move) word a read-only
/// mount the same way, naming where writing works.
#[test]
fn a_read_only_mount_is_worded_once_for_every_writing_tool() {
    use serde_json::json;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a.txt"), "one\n").unwrap();
    let want = "the mount at '/workspace' is read-only (writable: /scratch, /tmp)";
    for (tool, args, path) in [
        (
            "filestore_write",
            json!({"path": "/workspace/new.txt", "content": "x"}),
            "/workspace/new.txt",
        ),
        (
            "filestore_write",
            json!({"path": "/workspace/a.txt", "content": "x"}),
            "/workspace/a.txt",
        ),
        (
            "filestore_edit",
            json!({"path": "/workspace/a.txt", "old_string": "one", "new_string": "two"}),
            "/workspace/a.txt",
        ),
        ("filestore_delete", json!({"path": "/workspace/a.txt"}), "/workspace/a.txt"),
        (
            "filestore_move",
            json!({"source": "/workspace/a.txt", "destination": "/scratch/a.txt"}),
            "/workspace/a.txt",
        ),
    ] {
        let ran = call_in(tmp.path(), tool, args.clone(), &[]);
        assert!(
            ran.stderr().contains(&format!("error[read-only]: {path}: {want}")),
            "{tool} {args}: {}",
            ran.describe()
        );
    }
}

/// `serve --state` says at start which mounts a client gets, the store's per
/// conversation among them, and as many tools as a client lists (the conversation's
/// writable /scratch brings the writing tools, even where no other mount is
/// writable).
#[test]
fn serve_with_state_names_its_mounts_and_counts_the_listed_tools() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let (work, state, ro) =
        (tmp.path().join("work"), tmp.path().join("state"), tmp.path().join("ro"));
    for d in [&work, &state, &ro] {
        std::fs::create_dir(d).unwrap();
    }
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut command = filestore();
    command
        .args(["serve", "--state", state.to_str().unwrap()])
        .args(["--mount", &format!("/tmp={}:ro", ro.display())])
        .current_dir(&work);
    let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(command);
    let listed = client.tool_names();
    let (status, stderr) = client.close();
    assert!(status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.starts_with("filestore serve: MCP over stdio; mounts: "))
        .unwrap_or_else(|| panic!("no start-up line: {stderr}"));
    for mount in
        ["/workspace=. (ro)", "/scratch=per conversation (rw)", "/tool_calls=per conversation (ro)"]
    {
        assert!(line.contains(mount), "{mount} in {line}");
    }
    assert!(line.ends_with(&format!("; {} tools", listed.len())), "{line} vs {listed:?}");
    assert!(listed.iter().any(|t| t == "filestore_write"), "{listed:?}");
}

/// A missing snapshot is named by the conversation's name, as the command was
/// given it, not by the store's hash of it.
#[test]
fn snapshot_errors_name_the_conversation_as_given() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let snapshot = |args: &[&str]| {
        crate::support::cmd::run(
            filestore()
                .args(["snapshot", "--state", state.to_str().unwrap(), "--conversation", "alice"])
                .args(args),
        )
    };
    snapshot(&["create", "v1"]).success();
    for args in [&["restore", "nope"][..], &["delete", "nope"], &["fork", "--into", "bob", "nope"]]
    {
        let ran = snapshot(args);
        assert!(!ran.output.status.success(), "{}", ran.describe());
        let err = ran.stderr();
        assert!(
            err.contains("conversation 'alice': no snapshot named 'nope'"),
            "{args:?}: {}",
            ran.describe()
        );
        let digest = err.split(|c: char| !c.is_ascii_hexdigit()).any(|w| w.len() == 64);
        assert!(!digest, "no hash: {err}");
    }
}
