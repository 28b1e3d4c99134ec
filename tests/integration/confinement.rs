//! The hostile-path regression suite through the real component
//! (docs/security.md#what-is-denied-with-examples, docs/architecture.md#virtual-paths).
//!
//! Every case runs one or two tool calls (`filestore_*` through a real [`Session`]) on a
//! fresh fixture: a real temporary directory holding `root/` (mounted read-write at
//! `/root`), a sibling `root_evil/` sharing the root's prefix, and `outside/`, plus
//! symbolic links from the root to all of them. Each case asserts
//!
//! - the typed error kind (or success),
//! - that nothing outside the root was created or changed (a full snapshot of the tree
//!   around the root, without following links, before and after: type, mode, inode,
//!   size, mtime, content and link target),
//! - that nothing outside was read: no secret content, no name that exists only
//!   outside, and no host path appears in any JSON result, rendered text or error
//!   message (unless the request itself contained it),
//! - that no temporary file of an atomic write was left beneath the root.
//!
//! The same attacks are run against the `Volume` trait directly in
//! `runtime/src/volumes/dir/`; this suite proves the guarantees hold end to end, with
//! the component's path normaliser, mount routing, grep/glob/ls/tree in the loop.

use std::os::unix::fs::symlink;
use std::path::PathBuf;

use filestore::volumes::dir::TEMP_MARKER;
use filestore::{CallOutput, Session};
use serde_json::{Value, json};
use tempfile::TempDir;

use crate::common::*;

use crate::support::hostile_tree::{self, EVIL_SECRET, SECRET, SECRET_X, snapshot};

const SECRETS: [&str; 3] = [SECRET, EVIL_SECRET, SECRET_X];
/// Names that exist only outside the root: no output may report them unless the
/// request named them itself.
const OUTSIDE_NAMES: [&str; 5] =
    ["secret.txt", "deep.txt", "evil_secret.txt", "outside_only", "hostname"];

/// The mount point of the root (named like the directory, as in the advisory).
const MP: &str = "/root";

struct Fx {
    _tmp: TempDir,
    top: PathBuf,
    root: PathBuf,
    outside: PathBuf,
    session: Session,
}

fn fixture() -> Fx {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().to_path_buf();
    let (root, outside) = hostile_tree::build(&top);
    let session = session_with(MP, dir(&root, false));
    Fx { _tmp: tmp, top, root, outside, session }
}

fn is_link(fx: &Fx, rel: &str) -> bool {
    std::fs::symlink_metadata(fx.root.join(rel)).is_ok_and(|m| m.file_type().is_symlink())
}

/// What a case's last call returned.
type Got = Result<CallOutput, filestore::Error>;
type Run = Box<dyn Fn(&mut Fx) -> (Value, Got)>;
type Post = Box<dyn Fn(&Fx, &CallOutput)>;

struct Case {
    name: &'static str,
    run: Run,
    /// `None`: must succeed; else the error kind name.
    expect: Option<&'static str>,
    post: Option<Post>,
}

/// One tool call; the request is returned for the leak check.
fn call(tool: &'static str, args: Value) -> Run {
    Box::new(move |fx| (args.clone(), fx.session.call(tool, &args)))
}

/// A path beneath the mount.
fn p(rel: &str) -> String {
    format!("{MP}{rel}")
}

fn read(rel: &str) -> Run {
    call("filestore_read", json!({"path": p(rel)}))
}
fn read_abs(path: impl Into<String>) -> Run {
    call("filestore_read", json!({"path": path.into()}))
}
fn write(rel: &str) -> Run {
    call("filestore_write", json!({"path": p(rel), "content": "PWNED"}))
}
fn create(rel: &str) -> Run {
    call("filestore_write", json!({"path": p(rel), "content": "PWNED", "create_only": true}))
}
fn edit(rel: &str, old: &str) -> Run {
    call("filestore_edit", json!({"path": p(rel), "old_string": old, "new_string": "PWNED"}))
}
fn delete(rel: &str, recursive: bool) -> Run {
    call("filestore_delete", json!({"path": p(rel), "recursive": recursive}))
}
fn mv(from: &str, to: &str, overwrite: bool) -> Run {
    call("filestore_move", json!({"source": p(from), "destination": p(to), "overwrite": overwrite}))
}
fn ls(rel: &str) -> Run {
    call("filestore_ls", json!({"details": true, "path": p(rel), "depth": 6}))
}
fn tree(rel: &str) -> Run {
    call("filestore_tree", json!({"path": p(rel), "max_depth": 6, "max_files_per_folder": 100}))
}
fn glob(pattern: &str, rel: &str) -> Run {
    call("filestore_glob", json!({"pattern": pattern, "path": p(rel)}))
}
fn grep(pattern: &str, rel: &str) -> Run {
    call(
        "filestore_grep",
        json!({"pattern": pattern, "path": p(rel), "output_mode": "content", "case_insensitive": true}),
    )
}

/// Runs `first` (which must succeed on the real `/d`), then replaces `root/d` by a
/// link to `outside/` (which holds an `x.txt` of its own), then runs `then`: the
/// "directory swapped for a symlink between two calls" attack.
fn swapped(first: Run, then: Run) -> Run {
    Box::new(move |fx| {
        let (args, got) = first(fx);
        if let Err(e) = got {
            panic!("first call {args}, before the swap, failed: {e}");
        }
        std::fs::remove_dir_all(fx.root.join("d")).unwrap();
        symlink(&fx.outside, fx.root.join("d")).unwrap();
        then(fx)
    })
}

fn with_post(mut c: Case, post: impl Fn(&Fx, &CallOutput) + 'static) -> Case {
    c.post = Some(Box::new(post));
    c
}

/// Every entry of an `ls` result, nested children included.
fn ls_entries(j: &Value) -> Vec<&Value> {
    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
        for e in v.as_array().into_iter().flatten() {
            out.push(e);
            walk(&e["children"], out);
        }
    }
    let mut out = Vec::new();
    walk(&j["entries"], &mut out);
    out
}

/// One row per case: `"name" => "expected-kind" (or Ok): run`.
macro_rules! hostile {
    ($($name:literal => $kind:tt : $run:expr),* $(,)?) => {
        vec![$(Case { name: $name, run: $run, expect: hostile!(@kind $kind), post: None }),*]
    };
    (@kind Ok) => { None };
    (@kind $k:literal) => { Some($k) };
}

/// Reads the outside secret by its host path (known only once the fixture exists).
fn read_host_path() -> Run {
    Box::new(|fx| {
        let args = json!({"path": fx.outside.join("secret.txt").display().to_string()});
        let got = fx.session.call("filestore_read", &args);
        (args, got)
    })
}

fn hostile_table() -> Vec<Case> {
    let long_path = format!("{MP}/{}", "a/".repeat(2500));
    let long_comp = format!("/{}", "x".repeat(300));
    let mut cases = hostile! {
        // 2025 advisory 1 (prefix check): a sibling directory sharing the root's prefix.
        "sibling root_evil via .." => "not-found": read_abs(format!("{MP}/../root_evil/evil_secret.txt")),
        "sibling root_evil by prefix concatenation" => "not-found": read_abs("/root_evil/evil_secret.txt"),
        "sibling root_evil write" => "read-only": call("filestore_write", json!({"path": "/root_evil/new.txt", "content": "x"})),
        "sibling root_evil ls" => "not-found": call("filestore_ls", json!({"details": true, "path": "/root_evil"})),
        "sibling root_evil move into" => "read-only": call("filestore_move", json!({"source": p("/a.txt"), "destination": "/root_evil/a.txt"})),
        "sibling via a dir link" => "invalid-path": read("/link_evil/evil_secret.txt"),
        "sibling via a file link" => "invalid-path": read("/link_evil_rel"),
        "host absolute path" => "not-found": read_host_path(),
        // 2025 advisory 2: a symlink pointing outside.
        "absolute file link" => "invalid-path": read("/link_file_abs"),
        "relative file link" => "invalid-path": read("/link_file_rel"),
        "absolute dir link as parent" => "invalid-path": read("/link_out_abs/secret.txt"),
        "relative dir link as parent" => "invalid-path": read("/link_out_rel/secret.txt"),
        // A link is no directory to start from (not an empty, complete answer).
        "ls a dir link" => "invalid-path": ls("/link_out_abs"),
        "grep a dir link" => "invalid-path": grep("secret", "/link_out_abs"),
        "grep a link loop" => "invalid-path": grep("x", "/loop_a"),
        "ls through a dir link" => "invalid-path": ls("/link_out_rel/dir"),
        "tree of a dir link" => "invalid-path": tree("/link_out_abs"),
        "glob beneath a dir link" => "invalid-path": glob("**", "/link_out_abs"),
        "grep through a dir link" => "invalid-path": grep("secret", "/link_out_rel/dir"),
        "edit a file link" => "invalid-path": edit("/link_file_abs", "TOP"),
        // Loops, chains, links inside the root, magic links.
        "link loop leaf" => "invalid-path": read("/loop_a"),
        "link loop parent" => "invalid-path": read("/loop_a/x"),
        "write into a link loop" => "invalid-path": write("/loop_a/x"),
        "link chain to an outside file" => "invalid-path": read("/chain1"),
        "link chain to an outside dir" => "invalid-path": read("/chain_dir1/secret.txt"),
        "link to the root's parent" => "invalid-path": read("/link_parent/outside/secret.txt"),
        "link to the root itself" => "invalid-path": read("/link_self/a.txt"),
        "link inside the root is not followed" => "invalid-path": read("/link_in"),
        "dir link inside the root is not followed" => "invalid-path": read("/link_in_dir/x.txt"),
        "magic link /proc/self/root" => "invalid-path": read("/magic/etc/hostname"),
        // Writes through links: never followed, never replaced.
        "write dangling absolute leaf" => "invalid-path": write("/dangling"),
        "write dangling relative leaf" => "invalid-path": write("/dangling_rel"),
        "create_only dangling leaf" => "invalid-path": create("/dangling"),
        "write into a dangling dir link" => "invalid-path": write("/dangling_dir/x.txt"),
        "write onto a file link" => "invalid-path": write("/link_file_abs"),
        "write into an absolute dir link" => "invalid-path": write("/link_out_abs/new.txt"),
        "overwrite an outside file via a dir link" => "invalid-path": write("/link_out_rel/dir/deep.txt"),
        "write into the sibling via a link" => "invalid-path": write("/link_evil/evil_secret.txt"),
        "edit through a dir link" => "invalid-path": edit("/link_out_abs/secret.txt", "TOP"),
        // Deletes through links.
        "delete through a dir link" => "invalid-path": delete("/link_out_abs/secret.txt", false),
        "recursive delete through a dir link" => "invalid-path": delete("/link_out_rel/dir", true),
        // Moves onto and through links.
        "move into a dir link" => "invalid-path": mv("/a.txt", "/link_out_abs/a.txt", false),
        "move a dir into a dir link" => "invalid-path": mv("/d", "/link_out_abs/d", false),
        "move into an inside dir link" => "invalid-path": mv("/a.txt", "/link_in_dir/a.txt", false),
        "move out of a dir link" => "invalid-path": mv("/link_out_abs/secret.txt", "/s.txt", false),
        "move onto a file link" => "invalid-path": mv("/a.txt", "/link_file_abs", true),
        "move onto a dangling link" => "invalid-path": mv("/a.txt", "/dangling", true),
        "move onto a link without overwrite" => "already-exists": mv("/a.txt", "/dangling", false),
        "move out of the mount via .." => "read-only": call("filestore_move", json!({"source": p("/a.txt"), "destination": format!("{MP}/../outside/a.txt")})),
        // `..` climbing, NUL and control characters, lengths.
        ".. above the virtual root" => "invalid-path": read_abs(format!("{MP}/../../outside/secret.txt")),
        "bare .." => "invalid-path": read_abs("/.."),
        ".. climbing on write" => "invalid-path": call("filestore_write", json!({"path": format!("{MP}/d/../../../outside/x"), "content": "x"})),
        ".. climbing on delete" => "invalid-path": call("filestore_delete", json!({"path": format!("{MP}/../../outside"), "recursive": true})),
        "NUL byte" => "invalid-path": read_abs(format!("{MP}/a.txt\u{0}/../../outside/secret.txt")),
        "newline on write" => "invalid-path": write("/new\nline"),
        "escape sequence" => "invalid-path": read("/a\u{1b}[2J"),
        "DEL character" => "invalid-path": write("/a\u{7f}"),
        "backslash separators" => "invalid-path": read("/d\\..\\..\\outside\\secret.txt"),
        "5000-byte path read" => "invalid-path": read_abs(long_path.clone()),
        "5000-byte path write" => "invalid-path": call("filestore_write", json!({"path": long_path, "content": "x"})),
        "300-byte component" => "invalid-path": write(&long_comp),
        "percent-encoded .. is a plain name" => "not-found": read("/%2e%2e/outside/secret.txt"),
        "lookalike slash is a plain name" => "not-found": read("/link_out_abs\u{2215}secret.txt"),
        // A directory swapped for a link between two calls.
        "swap: read then read" => "invalid-path": swapped(read("/d/x.txt"), read("/d/x.txt")),
        "swap: read then write" => "invalid-path": swapped(read("/d/x.txt"), write("/d/x.txt")),
        "swap: read then edit" => "invalid-path": swapped(read("/d/x.txt"), edit("/d/x.txt", "TOP")),
        "swap: ls then ls" => "invalid-path": swapped(ls("/d"), ls("/d")),
        "swap: ls then ls beneath" => "invalid-path": swapped(ls("/d"), ls("/d/outside_only")),
        "swap: grep then grep" => "invalid-path": swapped(grep("x", "/d"), grep("secret", "/d/x.txt")),
        "swap: read then delete" => "invalid-path": swapped(read("/d/x.txt"), delete("/d/x.txt", false)),
        "swap: read then move out" => "invalid-path": swapped(read("/d/x.txt"), mv("/d/x.txt", "/x", false)),
        "swap: read then move onto" => "invalid-path": swapped(read("/d/x.txt"), mv("/a.txt", "/d/x.txt", true)),
    };
    // Successful calls with checks of their own (the common leak checks apply too).
    cases.extend([
        with_post(
            Case { name: "ls lists links as links", run: ls(""), expect: None, post: None },
            |_, out| {
                let entries = ls_entries(&out.json);
                for l in ["link_out_abs", "link_file_abs", "loop_a", "magic", "dangling"] {
                    let e = entries
                        .iter()
                        .find(|e| e["name"] == l)
                        .unwrap_or_else(|| panic!("{l} not listed"));
                    assert_eq!(e["entry_type"], "symlink", "{l}: {e}");
                    assert_eq!(e["size"], 0, "{l}: the size would describe the target");
                    assert!(e["children"].is_null(), "{l}: listed beyond a link: {e}");
                }
                let out = entries.iter().find(|e| e["path"] == "/root/linkdir/out").unwrap();
                assert_eq!(out["entry_type"], "symlink");
            },
        ),
        with_post(
            Case { name: "tree never crosses a link", run: tree(""), expect: None, post: None },
            |_, out| {
                let t = out.json["tree"].as_str().unwrap();
                assert!(t.contains("link_out_abs"), "{t}");
            },
        ),
        with_post(
            Case { name: "glob ** never crosses a link", run: glob("**", ""), expect: None, post: None },
            |_, out| {
                let files: Vec<&str> = out.json["files"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f["path"].as_str().unwrap())
                    .collect();
                assert!(files.contains(&"/root/a.txt"), "{files:?}");
                assert!(!files.iter().any(|f| f.starts_with("/root/link_out_abs/")), "{files:?}");
            },
        ),
        with_post(
            Case {
                name: "glob for an outside name finds nothing",
                run: glob("**/secret.txt", ""),
                expect: None,
                post: None,
            },
            |_, out| assert_eq!(out.json["files"], json!([]), "{}", out.json),
        ),
        with_post(
            Case {
                name: "grep never reads beyond a link",
                run: grep("secret", ""),
                expect: None,
                post: None,
            },
            |_, out| {
                assert_eq!(out.json["files_matched"], 0, "{}", out.json);
                assert!(out.json["files_searched"].as_u64().unwrap() >= 3, "{}", out.json);
            },
        ),
        with_post(
            Case {
                name: "grep with a glob through a link finds nothing",
                run: call(
                    "filestore_grep",
                    json!({"pattern": "secret", "path": MP, "glob": "link_out_abs/**", "case_insensitive": true}),
                ),
                expect: None,
                post: None,
            },
            |_, out| assert_eq!(out.json["files_matched"], 0, "{}", out.json),
        ),
        with_post(
            Case {
                name: "delete a dir link removes the link only",
                run: delete("/link_out_abs", true),
                expect: None,
                post: None,
            },
            |fx, _| assert!(!is_link(fx, "link_out_abs")),
        ),
        with_post(
            Case {
                name: "delete a dangling link",
                run: delete("/dangling", false),
                expect: None,
                post: None,
            },
            |fx, _| assert!(!is_link(fx, "dangling")),
        ),
        with_post(
            Case {
                name: "recursive delete of a dir holding a link",
                run: delete("/linkdir", true),
                expect: None,
                post: None,
            },
            |fx, _| assert!(!fx.root.join("linkdir").exists()),
        ),
        with_post(
            Case {
                name: "move a file link moves the link",
                run: mv("/link_file_abs", "/d/l", false),
                expect: None,
                post: None,
            },
            |fx, _| {
                assert!(is_link(fx, "d/l"));
                assert!(!is_link(fx, "link_file_abs"));
            },
        ),
        with_post(
            Case {
                name: "swap: recursive delete removes the link",
                run: swapped(read("/d/x.txt"), delete("/d", true)),
                expect: None,
                post: None,
            },
            |fx, _| assert!(std::fs::symlink_metadata(fx.root.join("d")).is_err()),
        ),
    ]);
    cases
}

/// Fails when `text` carries anything from outside the root that `request` did not.
fn assert_no_leak(case: &str, fx: &Fx, request: &str, text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "{case}: outside content leaked: {text}");
    }
    let top = fx.top.display().to_string();
    if !request.contains(&top) {
        assert!(!text.contains(&top), "{case}: host path leaked: {text}");
    }
    for n in OUTSIDE_NAMES {
        if !request.contains(n) {
            assert!(!text.contains(n), "{case}: outside name {n:?} leaked: {text}");
        }
    }
}

#[test]
fn hostile_paths_through_the_component() {
    let cases = hostile_table();
    assert!(cases.len() >= 40, "only {} hostile cases", cases.len());
    eprintln!("{} hostile cases through the component", cases.len());
    let mut failures = Vec::new();
    for c in cases {
        let mut fx = fixture();
        let before = snapshot(&fx.top, &fx.root);
        let (args, got) = (c.run)(&mut fx);
        let after = snapshot(&fx.top, &fx.root);
        assert_eq!(before, after, "{}: something outside the root changed", c.name);
        let request = args.to_string();
        match (&got, c.expect) {
            (Ok(out), None) => {
                assert_no_leak(c.name, &fx, &request, &out.json.to_string());
                assert_no_leak(c.name, &fx, &request, &out.text);
                if let Some(post) = &c.post {
                    post(&fx, out);
                }
            }
            (Err(e), Some(kind)) => {
                if e.kind_name() != kind {
                    failures.push(format!(
                        "{}: expected {kind}, got {}: {e}",
                        c.name,
                        e.kind_name()
                    ));
                }
                assert_no_leak(c.name, &fx, &request, &e.to_string());
            }
            (Ok(out), Some(kind)) => {
                failures.push(format!("{}: expected {kind}, got success: {}", c.name, out.json))
            }
            (Err(e), None) => failures.push(format!("{}: expected success, got {e}", c.name)),
        }
        assert!(
            hostile_tree::temp_files(&fx.root, TEMP_MARKER).is_empty(),
            "{}: temporary file left",
            c.name
        );
        assert!(!fx.session.is_poisoned(), "{}: session poisoned", c.name);
    }
    assert!(failures.is_empty(), "{} failing cases:\n{}", failures.len(), failures.join("\n"));
}
