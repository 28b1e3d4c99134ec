//! Copy-on-write mounts end to end (docs/cow.md): a cow
//! mount over a real checkout (this repository's guest sources, inside the hostile
//! tree of links the confinement suites attack), changed by an agent session through
//! `filestore call` (one process per call, the upper layer in a directory) and the
//! Rust API (the component in wasmtime); the lower tree checked byte for byte, inode
//! and mtime before and after; the diff compared with `diff -ruN` of the trees; the
//! patch checked by `git apply --check` in a git repository; `filestore apply`
//! refusing a concurrent change, then applying; an apply is all or nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine as _;
use serde_json::{Value, json};

use crate::common::{engine, err, mem, ok};
use crate::support::cmd::run;
use crate::support::hostile_tree::{self, SECRET, snapshot};
use crate::support::immutable::Immutable;
use filestore::MountSpec;
use filestore::volumes::{MountArg, Volume};

/// Copies a directory tree (links as links) with `cp -a`.
fn copy_tree(from: &Path, to: &Path) {
    run(Command::new("cp").arg("-a").arg(from).arg(to)).success();
}

/// The checkout: the hostile tree's root with this repository's guest sources in
/// `src/` and a binary file. Returns the lower directory (the root).
fn checkout(top: &Path) -> PathBuf {
    let (root, _) = hostile_tree::build(top);
    let sources = crate::common::repo_root().join("guest/src");
    copy_tree(&sources, &root.join("src"));
    std::fs::write(root.join("logo.bin"), [0u8, 1, 2, 3, 255]).unwrap();
    root
}

/// The entries of two snapshots that differ (their paths), for a short failure.
fn changed_entries(a: &hostile_tree::Snapshot, b: &hostile_tree::Snapshot) -> Vec<PathBuf> {
    let mut keys: Vec<&PathBuf> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter().filter(|k| a.get(*k) != b.get(*k)).cloned().collect()
}

/// `filestore call` with the cow mount (and nothing else mounted at /workspace).
fn call(lower: &Path, upper: &Path, tool: &str, args: Value) -> Value {
    let spec = format!("/workspace={}:cow={}", lower.display(), upper.display());
    let ran = run(Command::new(env!("CARGO_BIN_EXE_filestore")).args([
        "call",
        tool,
        &args.to_string(),
        "--mount",
        &spec,
    ]))
    .success();
    serde_json::from_str(&ran.stdout()).unwrap_or_else(|e| panic!("{e}: {}", ran.describe()))
}

/// Per file, the hunks of a unified diff (`@@` lines and the lines after them), with
/// the headers (names, dates, modes) left out: what `diff -ruN` and the patch must
/// agree on. `strip` is the prefix of the names in `+++`/`---` lines.
fn hunks(patch: &str, new_prefix: &str, old_prefix: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut old_name = String::new();
    for line in patch.lines() {
        if let Some(rest) = line.strip_prefix("--- ") {
            old_name = rest.split('\t').next().unwrap_or_default().to_string();
        } else if let Some(rest) = line.strip_prefix("+++ ") {
            let new_name = rest.split('\t').next().unwrap_or_default();
            let name = new_name
                .strip_prefix(new_prefix)
                .or_else(|| old_name.strip_prefix(old_prefix))
                .unwrap_or(new_name);
            out.push((name.trim_start_matches('/').to_string(), String::new()));
        } else if line.starts_with("@@")
            || line.starts_with(['+', '-', ' ', '\\'])
                && !line.starts_with("diff ")
                && !out.is_empty()
        {
            let body = &mut out.last_mut().unwrap().1;
            body.push_str(line);
            body.push('\n');
        }
    }
    out.sort();
    out
}

/// The changes every part of the test makes, through `filestore call` (each call a
/// process of its own, the changes carried by the upper directory).
fn change_through_calls(lower: &Path, upper: &Path) {
    let c = |tool: &str, args: Value| call(lower, upper, tool, args);
    c(
        "filestore_edit",
        json!({"path": "/workspace/src/lib.rs", "old_string": "pub mod vfs;", "new_string": "pub mod vfs;\n// edited through a cow mount"}),
    );
    c(
        "filestore_write",
        json!({"path": "/workspace/NOTES.md", "content": "# Notes\n\nnew file\n"}),
    );
    c("filestore_delete", json!({"path": "/workspace/src/entropy.rs"}));
    c("filestore_delete", json!({"path": "/workspace/src/skills", "recursive": true}));
    // A whole lower directory renamed: copied up, the old one whited out.
    c(
        "filestore_move",
        json!({"source": "/workspace/src/tools/params", "destination": "/workspace/src/params"}),
    );
    let listed = c("filestore_ls", json!({"path": "/workspace/src"}));
    let names = listed.to_string();
    assert!(
        names.contains("params") && !names.contains("entropy.rs") && !names.contains("skills"),
        "{names}"
    );
}

/// The changes made through the Rust API in one session, with a second mount to
/// move across, and the hostile ones (each refused, or landing in the upper layer).
fn change_through_session(lower: &Path, upper: &Path) {
    let spec: MountArg =
        format!("/workspace={}:cow={}", lower.display(), upper.display()).parse().unwrap();
    let scratch = mem(&[("/incoming.txt", "from scratch\n")]);
    let mut s = engine()
        .session(vec![spec.open().unwrap(), MountSpec::new("/scratch", scratch.clone())])
        .unwrap();
    // Across the boundary, both ways.
    ok(
        &mut s,
        "filestore_move",
        json!({"source": "/workspace/src/error.rs", "destination": "/scratch/error.rs"}),
    );
    ok(
        &mut s,
        "filestore_move",
        json!({"source": "/scratch/incoming.txt", "destination": "/workspace/src/incoming.txt"}),
    );
    assert!(scratch.read("/error.rs", 0, 100).unwrap().starts_with(b"//!"));
    // A binary file replaced, an empty directory made, a deleted file made again.
    let bin = base64::engine::general_purpose::STANDARD.encode([9u8, 0, 9]);
    ok(
        &mut s,
        "filestore_write",
        json!({"path": "/workspace/logo.bin", "content": bin, "encoding": "base64"}),
    );
    ok(&mut s, "filestore_mkdir", json!({"path": "/workspace/empty/dir"}));
    ok(
        &mut s,
        "filestore_write",
        json!({"path": "/workspace/src/entropy.rs", "content": "// again\n"}),
    );
    // Hostile: out of the mount, through links, links themselves.
    let outside = "/workspace/../outside/pwn.txt";
    let (kind, _) = err(&mut s, "filestore_write", json!({"path": outside, "content": "x"}));
    assert_eq!(kind, "read-only", "normalised to a path outside every mount");
    let above = "/workspace/../../outside/pwn.txt";
    let (kind, _) = err(&mut s, "filestore_write", json!({"path": above, "content": "x"}));
    assert_eq!(kind, "invalid-path", "above /");
    for link in [
        "link_out_abs",
        "link_out_rel",
        "link_evil",
        "chain_dir1",
        "link_self",
        "link_parent",
        "magic",
        "dangling_dir",
        "linkdir/out",
    ] {
        let path = format!("/workspace/{link}/pwn.txt");
        let (kind, m) = err(&mut s, "filestore_write", json!({"path": path, "content": "x"}));
        assert_eq!(kind, "invalid-path", "{path}: {m}");
    }
    for link in ["link_file_abs", "link_file_rel", "chain1", "dangling", "loop_a"] {
        let path = format!("/workspace/{link}");
        let (_, m) = err(&mut s, "filestore_read", json!({"path": path}));
        assert!(!m.contains(SECRET), "{m}");
        let (kind, m) = err(
            &mut s,
            "filestore_move",
            json!({"source": path, "destination": "/workspace/moved"}),
        );
        assert_eq!(kind, "unsupported", "{path}: {m}");
        // Neither followed nor replaced by a write, as in the dir volume.
        let (kind, m) = err(&mut s, "filestore_write", json!({"path": path, "content": "x"}));
        assert_eq!(kind, "invalid-path", "{path}: {m}");
    }
    ok(&mut s, "filestore_delete", json!({"path": "/workspace/link_out_abs"}));
    ok(&mut s, "filestore_delete", json!({"path": "/workspace/linkdir", "recursive": true}));
    let grep = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": SECRET, "path": "/workspace", "fixed": true}),
    );
    assert_eq!(grep["files"], json!([]), "{grep}");
    // The merged view: upper wins, whiteouts hidden.
    let glob = ok(&mut s, "filestore_glob", json!({"pattern": "**/*.rs", "path": "/workspace"}));
    let files = glob["files"].to_string();
    assert!(files.contains("/workspace/src/params/"), "{files}");
    assert!(
        !files.contains("/workspace/src/skills/") && !files.contains("/workspace/src/error.rs"),
        "{files}"
    );
    assert!(!files.contains("/workspace/src/tools/params/"), "{files}");
    let grep = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": "edited through a cow mount", "path": "/workspace", "fixed": true}),
    );
    assert_eq!(grep["files"], json!(["/workspace/src/lib.rs"]));
    let tree = ok(&mut s, "filestore_tree", json!({"path": "/workspace", "max_depth": 1}));
    let tree = tree["tree"].as_str().unwrap();
    assert!(
        tree.contains("NOTES.md") && tree.contains("empty") && !tree.contains("linkdir"),
        "{tree}"
    );
    // The agent's diff names every change.
    let diff = ok(&mut s, "filestore_diff", json!({}));
    let names: Vec<(String, String, bool)> = diff["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().into(),
                f["status"].as_str().unwrap().into(),
                f["binary"].as_bool().unwrap(),
            )
        })
        .collect();
    for want in [
        ("/workspace/NOTES.md", "added", false),
        ("/workspace/src/lib.rs", "modified", false),
        ("/workspace/src/error.rs", "deleted", false),
        ("/workspace/src/entropy.rs", "modified", false),
        ("/workspace/logo.bin", "modified", true),
        ("/workspace/src/incoming.txt", "added", false),
    ] {
        let want = (want.0.to_string(), want.1.to_string(), want.2);
        assert!(names.contains(&want), "{want:?} not in {names:?}");
    }
    let tools = serde_json::to_string(&s.tool_specs().unwrap()).unwrap();
    assert!(tools.contains("filestore_diff"), "offered with a cow mount");
}

#[test]
fn a_session_on_a_cow_checkout_never_writes_it_and_its_diff_applies() {
    let t = tempfile::tempdir().unwrap();
    let top = &t.path().join("top");
    std::fs::create_dir(top).unwrap();
    let lower = checkout(top);
    // Beside `top`, so that everything under `top` can be compared.
    let upper = t.path().join("upper");
    let before = snapshot(top, &upper);
    change_through_calls(&lower, &upper);
    change_through_session(&lower, &upper);
    let after = snapshot(top, &upper);
    let changed = changed_entries(&before, &after);
    assert!(changed.is_empty(), "the lower tree (and all around it) changed: {changed:?}");

    // The host's diff (the same as the agent's), against `diff -ruN` of the trees.
    let spec = format!("/workspace={}:cow={}", lower.display(), upper.display());
    let bin = env!("CARGO_BIN_EXE_filestore");
    let patch = run(Command::new(bin).args(["diff", &spec])).success().stdout();
    let merged = top.join("merged");
    copy_tree(&lower, &merged);
    let upper_copy = top.join("upper-copy");
    copy_tree(&upper, &upper_copy);
    let v = filestore::cow::open_dirs(&merged, &upper_copy).unwrap();
    filestore::cow::apply(&v, &merged).unwrap();
    // The lower directory is `root` (the hostile tree's); both beside each other.
    let ran = run(Command::new("diff")
        .args(["-ruN", "--no-dereference", "root", "merged"])
        .current_dir(top));
    // GNU diff cannot compare a deleted link under -N (status 2, one line each):
    // that is the only trouble allowed.
    let trouble: Vec<String> = ran.stderr().lines().map(str::to_string).collect();
    assert_eq!(
        trouble,
        [
            "diff: merged/link_out_abs: No such file or directory",
            "diff: merged/linkdir/out: No such file or directory"
        ],
        "{}",
        ran.describe()
    );
    let theirs = ran.stdout();
    assert!(theirs.contains("Binary files root/logo.bin and merged/logo.bin differ"), "{theirs}");
    let ours = hunks(&patch, "b/", "a/");
    assert_eq!(ours, hunks(&theirs, "merged", "root"));
    // Added, modified, deleted (files, a directory, a moved directory): every one.
    let names: Vec<&str> = ours.iter().map(|(n, _)| n.as_str()).collect();
    for want in [
        "NOTES.md",
        "src/lib.rs",
        "src/error.rs",
        "src/skills/mod.rs",
        "src/params/mod.rs",
        "src/tools/params/mod.rs",
        "src/incoming.txt",
        "src/entropy.rs",
    ] {
        assert!(names.contains(&want), "{want} not in {names:?}");
    }
    assert!(!patch.is_empty() && patch.contains("deleted file mode"));

    // `git apply --check` in a git repository of the checkout.
    let repo = top.join("repo");
    copy_tree(&lower, &repo);
    let git = |args: &[&str]| {
        run(Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(&repo))
        .success()
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "checkout"]);
    std::fs::write(top.join("changes.patch"), &patch).unwrap();
    git(&["apply", "--check", top.join("changes.patch").to_str().unwrap()]);

    // A concurrent change to a changed file: refused, the path named, nothing written.
    std::fs::write(lower.join("src/lib.rs"), "changed meanwhile\n").unwrap();
    let check = run(Command::new(bin).args(["apply", &spec, "--check"]));
    assert!(!check.output.status.success(), "{}", check.describe());
    let listed: Value = serde_json::from_str(&check.stdout()).unwrap();
    // Paths as the mount shows them (as the diff names them); nothing refused.
    assert_eq!(
        listed,
        json!({"conflicts": ["/workspace/src/lib.rs"], "refused": []}),
        "{}",
        check.describe()
    );
    let refused = run(Command::new(bin).args(["apply", &spec]));
    assert!(!refused.output.status.success(), "{}", refused.describe());
    assert!(
        refused.stderr().contains("/src/lib.rs") && refused.stderr().contains("conflict"),
        "{}",
        refused.describe()
    );
    assert_eq!(std::fs::read_to_string(lower.join("src/lib.rs")).unwrap(), "changed meanwhile\n");
    assert!(lower.join("NOTES.md").symlink_metadata().is_err(), "nothing applied");
    // Put back: applies, and the lower tree is the merged one.
    std::fs::copy(repo.join("src/lib.rs"), lower.join("src/lib.rs")).unwrap();
    run(Command::new(bin).args(["apply", &spec])).success();
    let same = run(Command::new("diff").args(["-r", "--no-dereference"]).arg(&lower).arg(&merged));
    assert!(same.output.status.success(), "{}", same.describe());
    let again = run(Command::new(bin).args(["diff", &spec])).success();
    assert_eq!(again.stdout(), "", "the upper layer starts over");
}

/// Through MCP (`serve` over stdio): a cow `/workspace` offers `filestore_diff`,
/// takes an edit and a delete, shows them in the diff, and the directory is unchanged
/// when the session ends (the upper layer in memory, gone with it).
#[test]
fn an_mcp_session_on_a_cow_workspace_diffs_and_leaves_the_directory() {
    let t = tempfile::tempdir().unwrap();
    let lower = t.path().join("repo");
    std::fs::create_dir_all(lower.join("src")).unwrap();
    std::fs::write(lower.join("src/a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(lower.join("gone.txt"), "bye\n").unwrap();
    let before = snapshot(t.path(), Path::new("/nonexistent"));
    let mut command = Command::new(env!("CARGO_BIN_EXE_filestore"));
    command
        .args(["serve", "--mount", &format!("/workspace={}:cow", lower.display())])
        .current_dir(t.path());
    let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(command);
    assert!(client.tool_names().iter().any(|n| n == "filestore_diff"));
    let edit = json!({"path": "/workspace/src/a.txt", "old_string": "two", "new_string": "2"});
    let r = client.call_tool("filestore_edit", edit);
    assert_ne!(r["isError"], json!(true), "{r}");
    let r = client.call_tool("filestore_delete", json!({"path": "/workspace/gone.txt"}));
    assert_ne!(r["isError"], json!(true), "{r}");
    let diff = client.call_tool("filestore_diff", json!({}));
    let patch = diff["structuredContent"]["patch"].as_str().unwrap_or_else(|| panic!("{diff}"));
    assert!(
        patch.contains("--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"),
        "{patch}"
    );
    assert!(patch.contains("deleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n"), "{patch}");
    let (status, stderr) = client.close();
    assert!(status.success(), "{stderr}");
    assert!(changed_entries(&before, &snapshot(t.path(), Path::new("/nonexistent"))).is_empty());
}

/// A directory upper layer is one session's at a time: a second session over it (a
/// parallel `filestore call`, another HTTP client) is refused, naming the directory
/// and what to do, instead of overwriting the first one's whiteouts; and
/// `filestore apply` is refused while a session writes it. Once the first session
/// ends, both work.
#[test]
fn a_directory_upper_layer_serves_one_session_at_a_time() {
    let tmp = tempfile::tempdir().unwrap();
    let lower = tmp.path().join("repo");
    std::fs::create_dir(&lower).unwrap();
    std::fs::write(lower.join("a.txt"), "a\n").unwrap();
    let upper = tmp.path().join("changes");
    let cow = format!("/w={}:cow={}", lower.display(), upper.display());
    let spec: MountArg = cow.parse().unwrap();
    let apply = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
            .args(["apply", &cow])
            .output()
            .unwrap()
    };
    let mut first = engine().session(vec![spec.open().unwrap()]).unwrap();
    ok(&mut first, "filestore_write", json!({"path": "/w/b.txt", "content": "b\n"}));
    let refused = spec.open().err().expect("a second session over the upper directory in use");
    let m = refused.to_string();
    assert!(m.contains("in use by another session") && m.contains("changes"), "{m}");
    let out = apply();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("in use by another session"));
    assert!(!lower.join("b.txt").exists());

    drop(first);
    let mut again = engine().session(vec![spec.open().unwrap()]).unwrap();
    let read = ok(&mut again, "filestore_read", json!({"path": "/w/b.txt"}));
    assert!(read["text"].as_str().unwrap().contains('b'), "the first session's change: {read}");
    drop(again);
    let out = apply();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(lower.join("b.txt")).unwrap(), "b\n");
}

/// A link and a FIFO in a cow mount's lower directory cannot be moved (a link is
/// never followed; a FIFO has no content to copy): each refusal names what the entry
/// is, and nothing changes in the lower directory.
#[test]
fn links_and_special_files_are_not_moved_and_each_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    let lower = tmp.path().join("lower");
    std::fs::create_dir(&lower).unwrap();
    std::os::unix::fs::symlink("/etc/hostname", lower.join("link")).unwrap();
    run(Command::new("mkfifo").arg(lower.join("fifo"))).success();
    let before = snapshot(&lower, &tmp.path().join("none"));
    let spec: MountArg = format!("/workspace={}:cow", lower.display()).parse().unwrap();
    let mut s = engine().session(vec![spec.open().unwrap()]).unwrap();
    for (name, noun) in [("link", "a link"), ("fifo", "a special file")] {
        let args =
            json!({"source": format!("/workspace/{name}"), "destination": "/workspace/moved"});
        let (kind, message) = err(&mut s, "filestore_move", args);
        assert_eq!(kind, "unsupported", "{message}");
        assert!(message.contains(noun) && message.contains(name), "{message}");
    }
    assert!(changed_entries(&before, &snapshot(&lower, &tmp.path().join("none"))).is_empty());
}

/// Each entry beneath `dir` (links not followed): its kind, mode and content or target.
/// What a rolled-back apply must give back (a replaced file comes back from a copy, so
/// its inode differs; a directory moved aside and back has a new time).
fn contents(dir: &Path) -> std::collections::BTreeMap<String, String> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let meta = p.symlink_metadata().unwrap();
            let mode = meta.permissions().mode();
            let what = if meta.is_symlink() {
                format!("link -> {}", std::fs::read_link(&p).unwrap().display())
            } else if meta.is_dir() {
                stack.push(p.clone());
                format!("dir {mode:o}")
            } else {
                format!("file {mode:o} {:?}", std::fs::read(&p).unwrap())
            };
            out.insert(p.strip_prefix(dir).unwrap().display().to_string(), what);
        }
    }
    out
}

/// `filestore apply` writes everything or nothing. A link the session replaced with
/// a directory is replaced on apply (it used to stop at the link after deleting and
/// writing other paths). A step that fails after every check passed (a file made
/// immutable meanwhile, which refuses its replacement even to root) puts back every
/// earlier step: the removed directory and the rewritten file are as they were, no
/// undo directory is left, and once the cause is gone the same apply goes through.
#[test]
fn an_apply_is_all_or_nothing() {
    let bin = env!("CARGO_BIN_EXE_filestore");
    let tmp = tempfile::tempdir().unwrap();
    let (lower, upper) = (tmp.path().join("lower"), tmp.path().join("upper"));
    std::fs::create_dir_all(lower.join("gone/deep")).unwrap();
    std::fs::create_dir_all(lower.join("target")).unwrap();
    for (p, c) in [("gone/deep/g.txt", "g\n"), ("a.txt", "old a\n"), ("z.txt", "old z\n")] {
        std::fs::write(lower.join(p), c).unwrap();
    }
    std::os::unix::fs::symlink("target", lower.join("link")).unwrap();
    let spec = format!("/workspace={}:cow={}", lower.display(), upper.display());
    let w = |path: &str, content: &str| {
        call(&lower, &upper, "filestore_write", json!({"path": path, "content": content}))
    };
    call(&lower, &upper, "filestore_delete", json!({"path": "/workspace/gone", "recursive": true}));
    call(&lower, &upper, "filestore_delete", json!({"path": "/workspace/link"}));
    w("/workspace/link/inside.txt", "a directory where the link was\n");
    w("/workspace/a.txt", "new a\n");
    w("/workspace/z.txt", "new z\n");
    let before = contents(&lower);

    let z = lower.join("z.txt");
    let guard = Immutable::set(&z);
    let failed = run(Command::new(bin).args(["apply", &spec]));
    assert!(!failed.output.status.success(), "{}", failed.describe());
    assert!(
        failed.stderr().contains("z.txt") && failed.stderr().contains("nothing was applied"),
        "{}",
        failed.describe()
    );
    drop(guard);
    assert_eq!(contents(&lower), before, "the lower directory is as it was");
    assert_eq!(std::fs::read_link(lower.join("link")).unwrap(), Path::new("target"));
    assert!(
        std::fs::read_dir(&lower).unwrap().all(|e| {
            !e.unwrap().file_name().to_string_lossy().starts_with(".filestore-apply-undo")
        }),
        "no undo directory left"
    );

    run(Command::new(bin).args(["apply", &spec])).success();
    let read = |p: &str| std::fs::read_to_string(lower.join(p)).unwrap();
    assert_eq!(read("a.txt"), "new a\n");
    assert_eq!(read("z.txt"), "new z\n");
    assert!(lower.join("link").symlink_metadata().unwrap().is_dir(), "the link is a directory now");
    assert_eq!(read("link/inside.txt"), "a directory where the link was\n");
    assert!(
        lower.join("target").read_dir().unwrap().next().is_none(),
        "the link's target untouched"
    );
    assert!(lower.join("gone").symlink_metadata().is_err());
}
