//! Snapshots and forks of conversations (docs/snapshots.md) on a
//! memory store, a directory store and the S3 server: a real session changes
//! `/scratch` and stores a tool result, the conversation is snapshotted, changed,
//! snapshotted again (reading only what changed), restored to the first snapshot
//! and forked from the second into a new conversation; each side holds exactly
//! what it should, tool results keep their type and read-only flag, and the
//! snapshot and the fork are seen through a second handle on the store (another
//! replica). The `filestore snapshot` command and the agent's `filestore_snapshot`
//! tool over MCP.

use filestore::handlers::ShippedHandlers as _;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use filestore::conversation::{ConversationKey, StateErrorKind, StateSpec, StateStore};
use filestore::tools::ToolRegistry;
use filestore::volumes::{ErrorKind, Volume};
use filestore::{MountSpec, Session, SessionOptions};
use serde_json::json;

use crate::common::engine;
use crate::support::s3_server::{ACCESS_KEY, SECRET_KEY, prefix, shared};

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

/// A session over the conversation `key` of `store`, with a SQLite tool that
/// stores its result in `/tool_calls`.
fn session(store: &StateStore, key: &ConversationKey) -> Session {
    let v = store.volumes(key).unwrap();
    let options = SessionOptions {
        tools: Arc::new(ToolRegistry::with_builtin_handlers()),
        unique_call_ids: true,
        ..Default::default()
    };
    let mounts = vec![
        MountSpec::new("/scratch", v.scratch),
        MountSpec::new("/tool_calls", v.tool_calls).read_only(),
    ];
    let mut s = engine().session_with(mounts, options).unwrap();
    let yaml = "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n---\n\
                kind: tool\nname: answer\ntype: sqlite-sql\nsource: db\n\
                description: The answer.\nstatement: SELECT 42 AS n;\n";
    s.load_config(&[("tools.yaml".into(), yaml.into())]).unwrap().unwrap();
    s
}

/// Every file of a volume: path to (content, entry type, read-only).
fn files(v: &dyn Volume) -> BTreeMap<String, (String, String, bool)> {
    let walk = v.walk("/", usize::MAX).unwrap();
    walk.entries
        .into_iter()
        .filter(|e| e.kind == filestore::volumes::EntryKind::File)
        .map(|e| {
            let bytes = v.read(&e.path, 0, e.size).unwrap();
            (e.path, (String::from_utf8(bytes).unwrap(), e.entry_type, e.read_only))
        })
        .collect()
}

fn write(s: &mut Session, path: &str, content: &str) {
    s.call("filestore_write", &json!({"path": path, "content": content})).unwrap();
}

/// The round trip every store must give; `other` is a second handle on the same
/// store (another replica), or the same one for memory.
fn round_trip(store: &StateStore, other: &StateStore) {
    let key = ConversationKey::scoped("alice", "snapped").unwrap();
    let mut s = session(store, &key);
    write(&mut s, "/scratch/a.txt", "one\n");
    write(&mut s, "/scratch/dir/b.txt", "bee\n");
    for i in 0..20 {
        write(&mut s, &format!("/scratch/many/{i}.txt"), &format!("{i}\n"));
    }
    let stored = s.call("answer", &json!({})).unwrap();
    let result = stored.json["result_path"].as_str().unwrap().to_string();
    store.update(&key, |doc| doc.activate_skill("/skills/x/SKILL.md")).unwrap();
    let first = store.snapshot(&key, "first").unwrap();
    assert_eq!(first.stats.files, 23, "{:?}", first.stats);
    let v = store.volumes(&key).unwrap();
    let (scratch1, results1) = (files(v.scratch.as_ref()), files(v.tool_calls.as_ref()));
    let (_, (_, ty, ro)) = results1.iter().find(|(p, _)| result.ends_with(p.as_str())).unwrap();
    assert_eq!((ty.as_str(), *ro), ("tool_result", true));

    // Changed: one file edited, one deleted, one added, a directory removed.
    s.call(
        "filestore_edit",
        &json!({"path": "/scratch/a.txt", "old_string": "one", "new_string": "two"}),
    )
    .unwrap();
    s.call("filestore_delete", &json!({"path": "/scratch/dir", "recursive": true})).unwrap();
    write(&mut s, "/scratch/c.txt", "sea\n");
    store.update(&key, |doc| doc.activate_skill("/skills/y/SKILL.md")).unwrap();
    let second = store.snapshot(&key, "second").unwrap();
    assert_eq!(second.stats.files, 23);
    let (scratch2, results2) = (files(v.scratch.as_ref()), files(v.tool_calls.as_ref()));
    // Against the first: only the new and changed files are written as blobs (on a
    // store whose times are older than the racy window; S3's are seconds).
    assert!(
        second.stats.objects_written < first.stats.objects_written,
        "{:?} vs {:?}",
        second.stats,
        first.stats
    );

    // Restore the first: exactly its files, its results, its skills.
    let changed = store.restore_snapshot(&key, "first").unwrap();
    assert_eq!(changed["scratch"].written, 2, "a.txt and dir/b.txt: {changed:?}");
    assert_eq!(files(v.scratch.as_ref()), scratch1);
    assert_eq!(files(v.tool_calls.as_ref()), results1);
    let doc = store.load(&key).unwrap().unwrap();
    assert_eq!(doc.activated_skills, ["/skills/x/SKILL.md"]);
    // The session sees it (its volumes are the conversation's).
    let read = s.call("filestore_read", &json!({"path": "/scratch/a.txt"})).unwrap();
    assert!(read.text.contains("one"), "{}", read.text);
    let gone = s.call("filestore_read", &json!({"path": "/scratch/c.txt"}));
    assert_eq!(gone.unwrap_err().kind_name(), "not-found");

    // Fork the second into a new conversation, from the other handle.
    let fork = ConversationKey::scoped("alice", "forked").unwrap();
    other.fork(&key, "second", &fork).unwrap();
    let f = other.volumes(&fork).unwrap();
    assert_eq!(files(f.scratch.as_ref()), scratch2);
    assert_eq!(files(f.tool_calls.as_ref()), results2);
    assert_eq!(other.load(&fork).unwrap().unwrap().activated_skills.len(), 2);
    assert_eq!(other.snapshots(&fork).unwrap()[0].name, "second", "the fork point is kept");
    // The two share nothing after: a change in the fork is not in the source.
    let mut in_fork = session(other, &fork);
    write(&mut in_fork, "/scratch/only-in-fork.txt", "x");
    assert!(!files(v.scratch.as_ref()).contains_key("/only-in-fork.txt"));
    let again = other.fork(&key, "second", &fork).unwrap_err();
    assert_eq!(again.kind, StateErrorKind::Storage(ErrorKind::AlreadyExists), "{again}");

    // Names, listing, refusals.
    let names: Vec<String> = other.snapshots(&key).unwrap().into_iter().map(|r| r.name).collect();
    assert_eq!(names, ["first", "second"]);
    let dup = store.snapshot(&key, "first").unwrap_err();
    assert_eq!(dup.kind, StateErrorKind::Storage(ErrorKind::AlreadyExists), "{dup}");
    for bad in ["", "../x", "a/b", ".hidden", &"n".repeat(129)] {
        let e = store.snapshot(&key, bad).unwrap_err();
        assert_eq!(e.kind, StateErrorKind::Storage(ErrorKind::InvalidArgument), "{bad:?}: {e}");
    }
    let missing = store.restore_snapshot(&key, "nope").unwrap_err();
    assert_eq!(missing.kind, StateErrorKind::Storage(ErrorKind::NotFound));
    assert!(missing.to_string().contains("'nope'"), "{missing}");
    store.delete_snapshot(&key, "first").unwrap();
    assert_eq!(store.snapshots(&key).unwrap().len(), 1);
    // Another identity's conversation of the same name has none.
    let bob = ConversationKey::scoped("bob", "snapped").unwrap();
    assert!(store.snapshots(&bob).unwrap().is_empty());
}

#[test]
fn snapshot_restore_and_fork_on_a_memory_store() {
    let store = StateStore::memory();
    round_trip(&store, &store);
}

#[test]
fn snapshot_restore_and_fork_on_a_directory_store() {
    let dir = tempfile::tempdir().unwrap();
    let open = || StateStore::open(&StateSpec::Dir(dir.path().into())).unwrap();
    round_trip(&open(), &open());
}

#[test]
fn snapshot_restore_and_fork_on_s3() {
    let server = shared();
    let p = prefix("snapshots");
    let open = || {
        StateStore::open_s3_with(&server.spec(&p), |b| {
            b.with_access_key_id(ACCESS_KEY).with_secret_access_key(SECRET_KEY)
        })
        .unwrap()
    };
    round_trip(&open(), &open());
}

/// A conversation's copy-on-write upper layer (as `serve --state` keeps it: files in
/// the store, whiteouts and bases in the state document) is in its snapshots: a
/// restore puts back the files, the deletions and the bases, a fork carries them,
/// and the lower directory is never written.
fn cow_round_trip(store: Arc<StateStore>, other: Arc<StateStore>) {
    let lower = tempfile::tempdir().unwrap();
    let l = lower.path();
    std::fs::create_dir(l.join("d")).unwrap();
    for (p, c) in [("a.txt", "a\n"), ("b.txt", "b\n"), ("d/c.txt", "c\n")] {
        std::fs::write(l.join(p), c).unwrap();
    }
    let before = crate::support::hostile_tree::snapshot(l, Path::new("/nonexistent"));
    let key = ConversationKey::scoped("alice", "cow-snapped").unwrap();
    let open = |store: &Arc<StateStore>, key: &ConversationKey| {
        let held = filestore::conversation::cow::HeldCow::default();
        let upper = store.cow_upper(key, "/repo", held).unwrap();
        let lower_volume = filestore::volumes::dir::DirVolume::open(l, true).unwrap();
        let mounts = vec![MountSpec::cow("/repo", Arc::new(lower_volume), upper)];
        engine().session_with(mounts, SessionOptions::default()).unwrap()
    };
    let read = |s: &mut Session, p: &str| {
        s.call("filestore_read", &json!({"path": p, "raw": true})).map(|o| o.text)
    };
    let mut s = open(&store, &key);
    write(&mut s, "/repo/a.txt", "A\n");
    s.call("filestore_delete", &json!({"path": "/repo/b.txt"})).unwrap();
    write(&mut s, "/repo/new.txt", "n\n");
    let taken = store.snapshot(&key, "s1").unwrap();
    assert!(taken.volumes.contains_key("cow:/repo"), "{:?}", taken.volumes);
    assert_eq!(taken.state.as_ref().unwrap()["cow"]["/repo"]["whiteouts"], json!(["/b.txt"]));

    s.call("filestore_delete", &json!({"path": "/repo/d", "recursive": true})).unwrap();
    write(&mut s, "/repo/a.txt", "AA\n");
    store.restore_snapshot(&key, "s1").unwrap();
    let check = |s: &mut Session| {
        assert_eq!(read(s, "/repo/a.txt").unwrap(), "A\n");
        assert_eq!(read(s, "/repo/d/c.txt").unwrap(), "c\n");
        assert_eq!(read(s, "/repo/new.txt").unwrap(), "n\n");
        assert_eq!(read(s, "/repo/b.txt").unwrap_err().kind_name(), "not-found");
        let diff = s.call("filestore_diff", &json!({})).unwrap();
        let files: Vec<(String, String)> = diff.json["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["path"].as_str().unwrap().into(), f["status"].as_str().unwrap().into()))
            .collect();
        assert_eq!(
            files,
            [
                ("/repo/a.txt".into(), "modified".into()),
                ("/repo/b.txt".into(), "deleted".into()),
                ("/repo/new.txt".into(), "added".into())
            ],
            "{}",
            diff.text
        );
    };
    // A session made now reads the restored state (a server makes its sessions again
    // when the document's state is not the one they hold).
    check(&mut open(&store, &key));
    // The fork, from another handle on the store, has the same.
    let fork = ConversationKey::scoped("alice", "cow-forked").unwrap();
    other.fork(&key, "s1", &fork).unwrap();
    let mut in_fork = open(&other, &fork);
    check(&mut in_fork);
    write(&mut in_fork, "/repo/only-in-fork.txt", "f\n");
    assert_eq!(
        read(&mut open(&store, &key), "/repo/only-in-fork.txt").unwrap_err().kind_name(),
        "not-found"
    );
    assert_eq!(crate::support::hostile_tree::snapshot(l, Path::new("/nonexistent")), before);
}

#[test]
fn cow_upper_layers_are_in_snapshots_on_memory_directory_and_s3_stores() {
    let memory = Arc::new(StateStore::memory());
    cow_round_trip(memory.clone(), memory);
    let dir = tempfile::tempdir().unwrap();
    let open = || Arc::new(StateStore::open(&StateSpec::Dir(dir.path().into())).unwrap());
    cow_round_trip(open(), open());
    let server = shared();
    let p = prefix("cow-snapshots");
    let open = || {
        Arc::new(
            StateStore::open_s3_with(&server.spec(&p), |b| {
                b.with_access_key_id(ACCESS_KEY).with_secret_access_key(SECRET_KEY)
            })
            .unwrap(),
        )
    };
    cow_round_trip(open(), open());
}

/// A second snapshot of a tree whose files are older than the racy window reads
/// only the changed files, and writes only their blobs and the trees above them.
#[test]
fn an_unchanged_tree_is_neither_read_nor_written_again() {
    let root = tempfile::tempdir().unwrap();
    let (work, store_dir) = (root.path().join("work"), root.path().join("store"));
    for d in 0..10 {
        std::fs::create_dir_all(work.join(format!("d{d}"))).unwrap();
        for f in 0..30 {
            std::fs::write(work.join(format!("d{d}/f{f}.txt")), format!("{d}/{f}\n")).unwrap();
        }
    }
    std::fs::create_dir(&store_dir).unwrap();
    // Past the racy window: times older than the first snapshot by more than 2 s.
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for d in 0..10 {
        for f in 0..30 {
            let file = std::fs::File::options()
                .write(true)
                .open(work.join(format!("d{d}/f{f}.txt")))
                .unwrap();
            file.set_modified(old).unwrap();
        }
    }
    let volume = filestore::volumes::dir::DirVolume::open(&work, false).unwrap();
    let store = filestore::volumes::dir::DirVolume::open(&store_dir, false).unwrap();
    let snaps = filestore::snapshot::Snapshots::new(&store, "/mounts/work");
    let first = snaps.create("first", &[("work", &volume as &dyn Volume)], None).unwrap();
    assert_eq!((first.stats.files, first.stats.files_read), (300, 300));
    assert_eq!(first.stats.objects_written, 300 + 11, "300 blobs, 10 + 1 trees");
    std::fs::write(work.join("d3/f7.txt"), "changed\n").unwrap();
    std::fs::write(work.join("d3/new.txt"), "new\n").unwrap();
    let second = snaps.create("second", &[("work", &volume as &dyn Volume)], None).unwrap();
    assert_eq!(second.stats.files_read, 2, "{:?}", second.stats);
    assert_eq!(second.stats.objects_written, 2 + 2, "two blobs, d3's tree and the root's");
    // Back to the first: the change undone, the new file gone.
    let (_, stats) = snaps.restore("first", &[("work", &volume as &dyn Volume)]).unwrap();
    assert_eq!((stats["work"].written, stats["work"].removed), (1, 1), "{stats:?}");
    assert_eq!(std::fs::read_to_string(work.join("d3/f7.txt")).unwrap(), "3/7\n");
    assert!(!work.join("d3/new.txt").exists());
}

/// The host's command: create, list, restore and fork a conversation kept in a
/// directory store.
#[test]
fn the_snapshot_command_creates_lists_restores_and_forks() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().to_str().unwrap();
    let store = StateStore::open(&StateSpec::Dir(dir.path().into())).unwrap();
    let key = ConversationKey::scoped("", "cli").unwrap();
    let mut s = session(&store, &key);
    write(&mut s, "/scratch/a.txt", "before\n");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(BIN)
            .args(["snapshot", "--state", state, "--conversation", "cli"])
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (ok, out, err) = run(&["create", "s1"]);
    assert!(ok, "{err}");
    assert!(out.contains("\"name\": \"s1\""), "{out}");
    write(&mut s, "/scratch/a.txt", "after\n");
    let (ok, out, _) = run(&["list"]);
    assert!(ok && out.contains("\"s1\""), "{out}");
    let (ok, _, err) = run(&["restore", "s1"]);
    assert!(ok, "{err}");
    let read = s.call("filestore_read", &json!({"path": "/scratch/a.txt"})).unwrap();
    assert!(read.text.contains("before"), "{}", read.text);
    let (ok, _, err) = run(&["fork", "s1", "--into", "cli-fork"]);
    assert!(ok, "{err}");
    let forked = ConversationKey::scoped("", "cli-fork").unwrap();
    assert!(files(store.volumes(&forked).unwrap().scratch.as_ref()).contains_key("/a.txt"));
    let (ok, _, err) = run(&["restore", "missing"]);
    assert!(!ok && err.starts_with("error[not-found]"), "{err}");
    let (ok, _, err) = run(&["create", "../x"]);
    assert!(!ok && err.starts_with("error[invalid-argument]"), "{err}");

    // A grace too short to protect a snapshot being taken is refused; a collection
    // keeps what the fork's copy of s1 still needs: the fork restores after it.
    let (ok, _, err) = run(&["delete", "s1"]);
    assert!(ok, "{err}");
    let short = std::process::Command::new(BIN)
        .args(["snapshot", "--state", state, "gc", "--grace", "0"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&short.stderr);
    assert!(!short.status.success() && err.contains("--grace 0"), "{err}");
    let gc = std::process::Command::new(BIN)
        .args(["snapshot", "--state", state, "gc", "--grace", "60"])
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&gc.stdout);
    assert!(gc.status.success(), "{}", String::from_utf8_lossy(&gc.stderr));
    let stats: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert!(
        stats["roots"].as_u64().unwrap() >= 1 && stats["reachable"].as_u64().unwrap() >= 2,
        "{stats}"
    );
    let restored = std::process::Command::new(BIN)
        .args(["snapshot", "--state", state, "--conversation", "cli-fork", "restore", "s1"])
        .output()
        .unwrap();
    assert!(restored.status.success(), "{}", String::from_utf8_lossy(&restored.stderr));
    // Every other action names the conversation it needs.
    let nameless = std::process::Command::new(BIN)
        .args(["snapshot", "--state", state, "list"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&nameless.stderr);
    assert!(!nameless.status.success() && err.contains("--conversation"), "{err}");
}

/// The agent's tool over MCP (`serve --state`): create, list, restore within its
/// own conversation; delete and fork are not its to do; each change is on the
/// audit timeline.
#[test]
fn an_agent_snapshots_and_restores_its_conversation_over_mcp() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let server = crate::support::mcp_http::Replica::start(
        BIN,
        root.path(),
        &["--state", state.to_str().unwrap(), "--mount", "/workspace=mem:"],
    );
    let mut s = server.session(Some("agent"), None).unwrap();
    assert!(s.tool_names().contains(&"filestore_snapshot".to_string()));
    s.call_ok("filestore_write", json!({"path": "/scratch/plan.md", "content": "v1\n"}));
    let taken = s.call_ok("filestore_snapshot", json!({"action": "create", "name": "v1"}));
    assert!(taken.contains("snapshot 'v1' taken"), "{taken}");
    s.call_ok("filestore_write", json!({"path": "/scratch/plan.md", "content": "v2\n"}));
    s.call_ok("filestore_write", json!({"path": "/scratch/extra.md", "content": "x\n"}));
    let listed = s.call_ok("filestore_snapshot", json!({"action": "list"}));
    assert!(listed.contains("v1"), "{listed}");
    s.call_ok("filestore_snapshot", json!({"action": "restore", "name": "v1"}));
    assert!(s.call_ok("filestore_read", json!({"path": "/scratch/plan.md"})).contains("v1"));
    assert_eq!(s.call("filestore_read", json!({"path": "/scratch/extra.md"}))["isError"], true);
    for refused in [
        json!({"action": "fork", "name": "v1"}),
        json!({"action": "delete", "name": "v1"}),
        json!({"action": "restore", "name": "missing"}),
        json!({"action": "create", "name": "../escape"}),
    ] {
        assert_eq!(s.call("filestore_snapshot", refused.clone())["isError"], true, "{refused}");
    }
    // Restores and creations are on the timeline; lists are not.
    let audit = s.call_ok("filestore_glob", json!({"pattern": "/audit/**/*.filestore_snapshot.*"}));
    assert!(audit.matches("filestore_snapshot").count() >= 6, "{audit}");
}

/// Approval gates are the operator's pending decisions, not the agent's state: a
/// follow-up held by a skill's result stays held after the agent restores a snapshot
/// taken before the hold, in a new session on the conversation, and in a fork made
/// from that earlier snapshot (`filestore snapshot fork`).
#[test]
fn a_restore_or_a_fork_never_lifts_an_approval_gate() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let dir = |p: &str| root.path().join(p).display().to_string();
    let mut args = vec!["--state".to_string(), dir("state")];
    args.extend(crate::support::fleet::write(root.path(), ""));
    args.extend(["--mount".to_string(), "/workspace=mem:".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = crate::support::mcp_http::Replica::start(BIN, root.path(), &args);
    let held = |s: &mut crate::support::mcp_http::McpHttp, when: &str| {
        let r = s.call("decommission", json!({}));
        let text = r["content"][0]["text"].as_str().unwrap_or_default().to_string();
        assert!(r["isError"] == true && text.contains("approv"), "{when}: {r}");
        assert!(!text.contains("done"), "{when}: {r}");
    };
    let mut s = server.session(Some("fleet"), None).unwrap();
    s.call_ok("filestore_read", json!({"path": "/skills/fleet-plan/SKILL.md"}));
    s.call_ok("filestore_snapshot", json!({"action": "create", "name": "before"}));
    let asked = s.call("fleet-plan", json!({"threshold": 1}));
    assert_eq!(asked["structuredContent"]["requires_approval"], true, "{asked}");
    held(&mut s, "held");
    s.call_ok("filestore_snapshot", json!({"action": "restore", "name": "before"}));
    held(&mut s, "after the agent's restore");
    let mut again = server.session(Some("fleet"), None).unwrap();
    held(&mut again, "in a new session on the conversation");
    let fork = std::process::Command::new(BIN)
        .args(["snapshot", "--state", &dir("state"), "--conversation", "fleet"])
        .args(["fork", "before", "--into", "fleet-fork"])
        .output()
        .unwrap();
    assert!(fork.status.success(), "{}", String::from_utf8_lossy(&fork.stderr));
    let mut forked = server.session(Some("fleet-fork"), None).unwrap();
    held(&mut forked, "in a fork of the earlier snapshot");
}
