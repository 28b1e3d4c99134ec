//! The conversation state store (`filestore::conversation`) on a real
//! directory and on a real S3 server (SeaweedFS, `support::s3_server`): two store
//! handles racing as two replicas would, writers killed with SIGKILL in the middle
//! of their write loop, leftover temporary files, expiry, and the conversation's
//! volumes seen from another handle; one quota over everything a conversation keeps.

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use filestore::conversation::{
    ConversationKey, PendingApproval, StateSpec, StateStore, new_call_id,
};
use filestore::volumes::{Volume, WriteOptions};

use crate::support::s3_server::{ACCESS_KEY, S3Server, SECRET_KEY, prefix, shared};

/// Racing writers in each race test.
const RACERS: usize = 50;

fn s3_store(server: &S3Server, prefix: &str) -> StateStore {
    StateStore::open_s3_with(&server.spec(prefix), |b| {
        b.with_access_key_id(ACCESS_KEY).with_secret_access_key(SECRET_KEY)
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

fn dir_store(dir: &std::path::Path) -> StateStore {
    StateStore::open(&StateSpec::Dir(dir.to_path_buf())).unwrap()
}

/// [`RACERS`] threads, alternating between the two handles, each allocate a call id
/// and add one skill and one pending approval under it, all released at once.
/// Nothing may be lost and no id may repeat.
fn race(a: StateStore, b: StateStore) {
    let stores = [Arc::new(a), Arc::new(b)];
    let key = ConversationKey::scoped("alice", "race").unwrap();
    let start = Arc::new(Barrier::new(RACERS));
    let threads: Vec<_> = (0..RACERS)
        .map(|i| {
            let store = stores[i % 2].clone();
            let (key, start) = (key.clone(), start.clone());
            std::thread::spawn(move || {
                let id = new_call_id();
                start.wait();
                store
                    .update(&key, |d| {
                        d.activate_skill(&format!("skill-{i}"));
                        d.pending_approvals.insert(
                            id.clone(),
                            PendingApproval { tool: format!("tool-{i}"), ..Default::default() },
                        );
                    })
                    .unwrap_or_else(|e| panic!("racer {i}: {e}"));
                id
            })
        })
        .collect();
    let ids: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    for store in &stores {
        let doc = store.load(&key).unwrap().expect("a document");
        let skills: BTreeSet<&String> = doc.activated_skills.iter().collect();
        assert_eq!(skills.len(), RACERS, "every skill once: {:?}", doc.activated_skills);
        assert_eq!(doc.activated_skills.len(), RACERS);
        assert_eq!(doc.version, RACERS as u64, "one version per update, none lost");
        let parked: BTreeSet<&String> = doc.pending_approvals.keys().collect();
        let issued: BTreeSet<&String> = ids.iter().collect();
        assert_eq!(issued.len(), RACERS, "no call id issued twice");
        assert_eq!(parked, issued, "every racer's approval is parked under its own id");
    }
}

#[test]
fn fifty_updates_from_two_replicas_on_a_directory_lose_nothing() {
    let t = tempfile::tempdir().unwrap();
    race(dir_store(t.path()), dir_store(t.path()));
}

#[test]
fn fifty_updates_from_two_replicas_on_s3_lose_nothing() {
    let server = shared();
    let p = prefix("state-race");
    race(s3_store(server, &p), s3_store(server, &p));
}

/// Where the writer child writes: `dir:PATH` or `s3:ENDPOINT:PREFIX`.
const CHILD_ENV: &str = "FILESTORE_TEST_STATE_WRITER";

/// Not a test of its own: the writer process [`killed_writer`] starts and kills.
/// It updates one conversation forever, each update adding one skill and rewriting
/// a 256 KiB argument, so that a kill often lands inside a write.
#[test]
#[ignore = "the child process of the killed-writer tests, started by them"]
fn state_writer_child() {
    let target = std::env::var(CHILD_ENV)
        .unwrap_or_else(|_| panic!("run by the killed-writer tests, with {CHILD_ENV} set"));
    let store = match target.split_once(':') {
        Some(("dir", path)) => dir_store(std::path::Path::new(path)),
        Some(("s3", rest)) => {
            let (endpoint, p) = rest.rsplit_once('|').expect("s3:ENDPOINT|PREFIX");
            let mut spec = filestore::volumes::object::ObjectSpec::parse(&format!(
                "s3://{}/{p}",
                crate::support::s3_server::BUCKET
            ))
            .unwrap()
            .unwrap();
            spec.endpoint = Some(endpoint.to_string());
            spec.region = Some("us-east-1".into());
            StateStore::open_s3_with(&spec, |b| {
                b.with_access_key_id(ACCESS_KEY).with_secret_access_key(SECRET_KEY)
            })
            .unwrap()
        }
        _ => panic!("{CHILD_ENV}={target}: expected dir:PATH or s3:ENDPOINT|PREFIX"),
    };
    let key = ConversationKey::scoped("alice", "crash").unwrap();
    let big = serde_json::Value::String("x".repeat(256 * 1024));
    loop {
        store
            .update(&key, |d| {
                let n = d.version;
                d.activate_skill(&format!("skill-{n}"));
                d.pending_approvals.insert(
                    "big".into(),
                    PendingApproval { arguments: big.clone(), ..Default::default() },
                );
            })
            .unwrap();
    }
}

/// Starts the writer on `target`, lets it make at least `updates` updates, kills it
/// with SIGKILL, and checks what is left: a whole document whose every update is
/// there (one skill per version), which the next writer updates.
fn killed_writer(target: &str, store: StateStore, updates: u64) {
    let key = ConversationKey::scoped("alice", "crash").unwrap();
    for round in 0..3 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "conversation::state_writer_child", "--ignored", "--nocapture"])
            .env(CHILD_ENV, target)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let before = store.load(&key).unwrap().map_or(0, |d| d.version);
        // A bound so a broken writer fails the test instead of hanging it.
        let give_up = Instant::now() + Duration::from_secs(120);
        loop {
            let seen = store.load(&key).unwrap().map_or(0, |d| d.version);
            if seen >= before + updates {
                break;
            }
            if let Some(status) = child.try_wait().unwrap() {
                let mut err = String::new();
                std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
                panic!("round {round}: the writer exited ({status}): {err}");
            }
            assert!(Instant::now() < give_up, "round {round}: the writer made no progress");
            std::thread::sleep(Duration::from_millis(5));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let doc = store.load(&key).unwrap().expect("the document survives");
        assert!(doc.version >= before + updates, "round {round}: an acknowledged update was lost");
        assert_eq!(
            doc.activated_skills.len() as u64,
            doc.version,
            "round {round}: one skill per version: the document is one whole version"
        );
        assert_eq!(doc.pending_approvals["big"].arguments.as_str().map(str::len), Some(256 * 1024));
        // The lock of the killed writer is gone with it: the next update goes through.
        // On S3 it may come after one more of the killed writer's: a request the
        // server had whole when the writer died is still carried out.
        let (next, _) =
            store.update(&key, |d| d.activate_skill(&format!("after-kill-{round}"))).unwrap();
        assert!(
            (doc.version + 1..=doc.version + 2).contains(&next.version),
            "round {round}: version {} after {}",
            next.version,
            doc.version
        );
        assert_eq!(next.activated_skills.len() as u64, next.version, "round {round}: whole");
        assert!(
            doc.activated_skills.iter().all(|s| next.activated_skills.contains(s)),
            "round {round}: an update before the kill was lost"
        );
    }
}

#[test]
fn a_writer_killed_mid_write_leaves_a_whole_document_on_a_directory() {
    let t = tempfile::tempdir().unwrap();
    killed_writer(&format!("dir:{}", t.path().display()), dir_store(t.path()), 20);
    // Whatever temporary files the kills left are not documents, and not listed.
    let k = ConversationKey::scoped("alice", "crash").unwrap();
    let dir = t.path().join(format!("conversations/{k}"));
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.contains(&"state.json".to_string()), "{names:?}");
}

#[test]
fn a_writer_killed_mid_write_leaves_a_whole_document_on_s3() {
    let server = shared();
    let p = prefix("state-crash");
    killed_writer(&format!("s3:{}|{p}", server.endpoint), s3_store(server, &p), 10);
}

#[test]
fn a_torn_temporary_file_left_by_a_crash_is_not_the_document() {
    let t = tempfile::tempdir().unwrap();
    let store = dir_store(t.path());
    let key = ConversationKey::scoped("alice", "c").unwrap();
    store.update(&key, |d| d.activate_skill("one")).unwrap();
    // What a writer killed between its write and its rename leaves: a temporary
    // file next to the document, with half a document in it.
    let dir = t.path().join(format!("conversations/{key}"));
    std::fs::write(
        dir.join(".state.json.filestore-tmp-0123456789abcdef"),
        b"{\"version\": 9, \"activ",
    )
    .unwrap();
    let doc = store.load(&key).unwrap().unwrap();
    assert_eq!((doc.version, doc.activated_skills.clone()), (1, vec!["one".to_string()]));
    let (doc, _) = store.update(&key, |d| d.activate_skill("two")).unwrap();
    assert_eq!(doc.activated_skills, ["one", "two"]);
}

#[test]
fn idle_conversations_expire_on_s3() {
    let server = shared();
    let p = prefix("state-sweep");
    let store = s3_store(server, &p);
    let (old, fresh) = (
        ConversationKey::scoped("a", "old").unwrap(),
        ConversationKey::scoped("a", "new").unwrap(),
    );
    let (doc, _) = store.update(&old, |_| ()).unwrap();
    let vols = store.volumes(&old).unwrap();
    vols.scratch.write("/f.txt", b"x", &WriteOptions::default()).unwrap();
    let result = WriteOptions {
        read_only: true,
        entry_type: Some("tool_result".into()),
        ..Default::default()
    };
    vols.tool_calls.write("/call_1/result.json", b"{}", &result).unwrap();
    // An hour later (by the sweep's clock) `fresh` has been used, `old` has not.
    let later = doc.last_used_ms + 3_600_000;
    store.update(&fresh, |d| d.last_used_ms = later).unwrap();
    let report = store.sweep_at(Duration::from_secs(600), later).unwrap();
    assert_eq!(report.removed, vec![old.clone()], "{report:?}");
    assert_eq!(report.kept, 1, "{report:?}");
    assert!(report.failed.is_empty(), "{report:?}");
    assert_eq!(store.load(&old).unwrap(), None);
    let other = s3_store(server, &p);
    assert!(other.volumes(&old).unwrap().scratch.read("/f.txt", 0, 1).is_err(), "files went too");
    // Nothing of it is left in the bucket: results, their metadata sidecars, the document.
    let client = server.client();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let under = object_store::path::Path::parse(format!("{p}/conversations/{old}")).unwrap();
    let left: Vec<String> = rt.block_on(async {
        use futures::TryStreamExt;
        object_store::ObjectStore::list(&client, Some(&under))
            .map_ok(|m| m.location.to_string())
            .try_collect()
            .await
            .unwrap()
    });
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_conversations_volumes_on_s3_are_seen_by_another_replica() {
    let server = shared();
    let p = prefix("state-volumes");
    let (a, b) = (s3_store(server, &p), s3_store(server, &p));
    let key = ConversationKey::scoped("alice", "c").unwrap();
    let va = a.volumes(&key).unwrap();
    va.scratch.write("/notes/a.txt", b"from a", &WriteOptions::default()).unwrap();
    let opts = WriteOptions {
        read_only: true,
        entry_type: Some("tool_result".into()),
        ..Default::default()
    };
    va.tool_calls.write("/call_1/result.json", b"{}", &opts).unwrap();
    let vb = b.volumes(&key).unwrap();
    assert_eq!(vb.scratch.read("/notes/a.txt", 0, 100).unwrap(), b"from a");
    let e = vb.tool_calls.stat("/call_1/result.json").unwrap();
    assert_eq!((e.entry_type.as_str(), e.read_only), ("tool_result", true));
    assert!(vb.tool_calls.keeps_entry_metadata());
    // Bob's conversation of the same name is elsewhere.
    let bob = b.volumes(&ConversationKey::scoped("bob", "c").unwrap()).unwrap();
    assert!(bob.scratch.read("/notes/a.txt", 0, 100).is_err());
    // The objects live under conversations/<digest>/scratch/.
    let client = server.client();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let k = object_store::path::Path::parse(format!("{p}/conversations/{key}/scratch/notes/a.txt"))
        .unwrap();
    rt.block_on(async { object_store::ObjectStoreExt::head(&client, &k).await }).unwrap();
}

/// Bytes beneath `dir`, files only; and those beneath its `audit/` folder.
fn stored_bytes(dir: &std::path::Path) -> (u64, u64) {
    let (mut all, mut audit) = (0, 0);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                all += meta.len();
                if e.path().components().any(|c| c.as_os_str() == "audit") {
                    audit += meta.len();
                }
            }
        }
    }
    (all, audit)
}

/// Everything a conversation keeps counts against one quota
/// (`--conversation-quota-mib`): shell output stored as tool results (each call's
/// over a MiB), `/scratch` files and a copy-on-write upper layer fill it together, a
/// change past it is refused with `limit-exceeded` naming the quota and changes
/// nothing, the folder never holds more than the quota and the audit records, and
/// the audit timeline records every call made, the refused ones included.
#[test]
fn everything_a_conversation_keeps_counts_against_its_quota() {
    use filestore::audit::AuditLog;
    use filestore::{MountSpec, SessionOptions};
    const QUOTA: u64 = 4 << 20;
    let dir = tempfile::tempdir().unwrap();
    let store = dir_store(dir.path()).with_conversation_quota(QUOTA);
    let key = ConversationKey::scoped("alice", "filler").unwrap();
    let v = store.volumes(&key).unwrap();
    let log = AuditLog::new(v.audit.clone(), None)
        .with_quota(store.quota(&key), filestore::conversation::AUDIT_HEADROOM);
    let options = SessionOptions {
        shell: true,
        unique_call_ids: true,
        audit: Some(Arc::new(log.clone())),
        ..Default::default()
    };
    // The files of a copy-on-write upper layer the conversation keeps.
    let cow = store.cow_files(&key, "/repo").unwrap();
    let mounts = vec![
        MountSpec::new("/scratch", v.scratch.clone()),
        MountSpec::new("/tool_calls", v.tool_calls.clone()).read_only(),
        MountSpec::new("/upper", cow),
    ];
    let write = |s: &mut filestore::Session, path: &str, mib: usize| {
        s.call(
            "filestore_write",
            &serde_json::json!({"path": path, "content": "x".repeat(mib << 20)}),
        )
    };
    let mut s = crate::common::engine().session_with(mounts, options).unwrap();
    write(&mut s, "/scratch/a.txt", 1).unwrap();
    write(&mut s, "/upper/files/b.txt", 1).unwrap();
    let mut refused = None;
    for i in 0..10 {
        match s.call("filestore_execute", &serde_json::json!({"command": "seq 1 200000"})) {
            Ok(out) => assert!(out.text.contains("/tool_calls/"), "stored: {}", out.text),
            Err(e) => {
                refused = Some((i, format!("{}: {e}", e.kind_name())));
                break;
            }
        }
    }
    let (calls, why) = refused.expect("the stored results stop at the quota");
    assert!(calls >= 1, "{why}");
    assert!(why.contains("limit-exceeded") && why.contains("--conversation-quota-mib"), "{why}");
    for path in ["/scratch/c.txt", "/upper/files/c.txt"] {
        let e = write(&mut s, path, 1).unwrap_err().to_string();
        assert!(e.contains("--conversation-quota-mib"), "{path}: {e}");
    }
    let folder = dir.path().join("conversations").join(key.to_string());
    let (all, audit) = stored_bytes(&folder);
    assert!(all - audit <= QUOTA, "{all} bytes kept ({audit} of them audit), quota {QUOTA}");
    assert!(all <= QUOTA + filestore::conversation::AUDIT_HEADROOM, "{all}");
    // Every call is on the record, the refused ones too.
    assert_eq!(log.records().unwrap().len(), 2 + calls + 1 + 2);
}
