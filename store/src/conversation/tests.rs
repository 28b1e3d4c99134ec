use std::sync::Arc;
use std::time::Duration;

use super::*;

fn key(id: &str, k: &str) -> ConversationKey {
    ConversationKey::scoped(id, k).unwrap()
}

#[test]
fn keys_are_scoped_to_their_identity() {
    let alice = key("alice", "conv-1");
    assert_eq!(alice, key("alice", "conv-1"), "stable");
    assert_ne!(alice, key("bob", "conv-1"), "another identity, another conversation");
    assert_ne!(alice, key("alice", "conv-2"));
    // Field boundaries cannot be shifted: ("a", "b:c") is not ("a:b", "c").
    assert_ne!(key("a", "b:c"), key("a:b", "c"));
    assert_eq!(alice.as_str().len(), 64);
    assert!(alice.as_str().bytes().all(|b| b.is_ascii_hexdigit()));
}

#[test]
fn a_forged_key_names_no_one_elses_conversation() {
    let alice = key("alice", "conv-1");
    // Bob sends Alice's digest as his key: it is hashed again under his identity.
    let forged = key("bob", alice.as_str());
    assert_ne!(forged, alice);
    // And the identity "" (unauthenticated) is an identity like any other.
    assert_ne!(key("", "conv-1"), alice);
}

#[test]
fn bad_keys_are_refused_without_echoing_them() {
    let long = "k".repeat(MAX_KEY_BYTES + 1);
    let cases = [
        "",
        long.as_str(),
        "../../etc/passwd",
        "a/b",
        "a\\b",
        "a b",
        "a\0b",
        "a\nb",
        "é",
        "%2e%2e",
        "conv/../../other",
        "..",
        ".",
    ];
    for bad in cases {
        let e = ConversationKey::scoped("alice", bad).unwrap_err();
        assert_eq!(e.kind, StateErrorKind::InvalidKey, "{bad:?}");
        if bad.len() > 3 {
            assert!(!e.context.contains(bad), "{bad:?} echoed: {e}");
        }
    }
    assert!(ConversationKey::scoped("alice", &"k".repeat(MAX_KEY_BYTES)).is_ok());
    assert!(ConversationKey::scoped("alice", "mcp-session:01J9Z.x_y-z").is_ok());
    let e = ConversationKey::scoped(&"i".repeat(MAX_IDENTITY_BYTES + 1), "k").unwrap_err();
    assert_eq!(e.kind, StateErrorKind::InvalidKey);
}

#[test]
fn stored_names_are_only_digests() {
    let k = key("alice", "c");
    assert_eq!(ConversationKey::from_stored(k.as_str()), Some(k));
    for name in ["..", "x", &"A".repeat(64), &"0".repeat(63), &format!("{}/", "0".repeat(63))] {
        assert_eq!(ConversationKey::from_stored(name), None, "{name}");
    }
}

#[test]
fn specs_parse_like_mount_sources() {
    assert_eq!("mem:".parse::<StateSpec>().unwrap(), StateSpec::Memory);
    assert_eq!("./state".parse::<StateSpec>().unwrap(), StateSpec::Dir("./state".into()));
    match "s3://bkt/team/state".parse::<StateSpec>().unwrap() {
        StateSpec::Object(o) => {
            assert_eq!((o.bucket.as_str(), o.prefix.as_str()), ("bkt", "team/state"))
        }
        other => panic!("{other:?}"),
    }
    for bad in ["", "s3://", "s3://b/a/../c", "file:///tmp/x", "./state:ro", "s3://k:s@b/p"] {
        let e = bad.parse::<StateSpec>().unwrap_err();
        assert_eq!(e.kind, StateErrorKind::InvalidSpec, "{bad}");
    }
}

fn exercise(store: &StateStore) {
    let k = key("alice", "c1");
    assert_eq!(store.load(&k).unwrap(), None);
    let id = new_call_id();
    let (doc, added) = store
        .update(&k, |d| {
            d.catalog_version = 7;
            d.pending_approvals.insert(
                id.clone(),
                PendingApproval {
                    tool: "t".into(),
                    arguments: serde_json::json!({"a": 1}),
                    message: "ok?".into(),
                    asked_ms: 1,
                },
            );
            d.activate_skill("pdf")
        })
        .unwrap();
    assert!(added);
    assert_eq!((doc.version, doc.format), (1, FORMAT));
    let (doc2, again) = store.update(&k, |d| d.activate_skill("pdf")).unwrap();
    assert!(!again);
    assert_eq!(doc2.version, 2);
    let read = store.load(&k).unwrap().unwrap();
    assert_eq!(read, doc2);
    assert_eq!(read.activated_skills, vec!["pdf"]);
    assert_eq!(read.catalog_version, 8, "the activation moved the catalog version");
    assert_eq!(read.pending_approvals[&id].arguments["a"], 1);
    // Another identity's conversation of the same key is another document.
    assert_eq!(store.load(&key("bob", "c1")).unwrap(), None);
}

#[test]
fn memory_and_dir_stores_update_and_load() {
    exercise(&StateStore::memory());
    let t = tempfile::tempdir().unwrap();
    let spec: StateSpec = t.path().display().to_string().parse().unwrap();
    exercise(&StateStore::open(&spec).unwrap());
    assert!(t.path().join("conversations").is_dir());
}

fn race(store: Arc<StateStore>, other: Arc<StateStore>) {
    let k = key("alice", "race");
    let threads: Vec<_> = (0..16)
        .map(|i| {
            let s = if i % 2 == 0 { store.clone() } else { other.clone() };
            let k = k.clone();
            std::thread::spawn(move || {
                s.update(&k, |d| d.activate_skill(&format!("skill-{i}"))).unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let doc = store.load(&k).unwrap().unwrap();
    assert_eq!(doc.activated_skills.len(), 16, "{:?}", doc.activated_skills);
    assert_eq!(doc.version, 16);
}

#[test]
fn concurrent_updates_lose_nothing_in_memory_and_on_two_dir_handles() {
    let m = Arc::new(StateStore::memory());
    race(m.clone(), m);
    let t = tempfile::tempdir().unwrap();
    let spec = StateSpec::Dir(t.path().to_path_buf());
    race(Arc::new(StateStore::open(&spec).unwrap()), Arc::new(StateStore::open(&spec).unwrap()));
}

#[test]
fn a_corrupt_document_is_reported_not_replaced() {
    let t = tempfile::tempdir().unwrap();
    let store = StateStore::open(&StateSpec::Dir(t.path().to_path_buf())).unwrap();
    let k = key("alice", "c");
    store.update(&k, |_| ()).unwrap();
    std::fs::write(
        t.path().join(format!("conversations/{k}/state.json")),
        b"{\"version\": 1, \"act",
    )
    .unwrap();
    let e = store.update(&k, |_| ()).unwrap_err();
    assert_eq!(e.kind, StateErrorKind::Corrupt);
    assert_eq!(store.load(&k).unwrap_err().kind, StateErrorKind::Corrupt);
    // No request can use it, and the sweep judges it by its directory's time
    // instead of keeping it forever.
    let later = now_ms() + 3_600_000;
    let report = store.sweep_at(Duration::from_secs(600), later).unwrap();
    assert_eq!(report.removed, vec![k.clone()], "{report:?}");
}

/// A change that would make the document larger than the store reads back is
/// refused, and the document stays as it was.
#[test]
fn an_oversized_document_is_not_written() {
    let t = tempfile::tempdir().unwrap();
    let store = StateStore::open(&StateSpec::Dir(t.path().to_path_buf())).unwrap();
    let k = key("alice", "c");
    store.update(&k, |d| d.activate_skill("/skills/a/SKILL.md")).unwrap();
    let huge = "x".repeat(MAX_DOC_BYTES as usize);
    let e = store.update(&k, |d| d.activate_skill(&huge)).unwrap_err();
    assert_eq!(e.kind, StateErrorKind::TooLarge, "{e}");
    let doc = store.load(&k).unwrap().unwrap();
    assert_eq!(doc.activated_skills, vec!["/skills/a/SKILL.md".to_string()]);
    // A conversation removed since is not brought back by an update of it.
    store.remove(&k).unwrap();
    assert!(store.update_existing(&k, |_| ()).unwrap().is_none());
    assert_eq!(store.load(&k).unwrap(), None);
}

#[test]
fn sweep_removes_idle_conversations_only() {
    let t = tempfile::tempdir().unwrap();
    for store in
        [StateStore::memory(), StateStore::open(&StateSpec::Dir(t.path().to_path_buf())).unwrap()]
    {
        let (old, fresh) = (key("alice", "old"), key("alice", "fresh"));
        store.update(&old, |_| ()).unwrap();
        let vols = store.volumes(&old).unwrap();
        vols.scratch.write("/notes.txt", b"hi", &Default::default()).unwrap();
        // An hour later (by the sweep's clock) `fresh` has been used, `old` has not.
        let later = store.load(&old).unwrap().unwrap().last_used_ms + 3_600_000;
        store.update(&fresh, |d| d.last_used_ms = later).unwrap();
        let report = store.sweep_at(Duration::from_secs(600), later).unwrap();
        assert_eq!(report.removed, vec![old.clone()], "{report:?}");
        assert_eq!(report.kept, 1);
        assert!(report.failed.is_empty(), "{report:?}");
        assert_eq!(store.load(&old).unwrap(), None);
        assert!(store.load(&fresh).unwrap().is_some());
        // Sweeping again removes nothing more.
        let report = store.sweep_at(Duration::from_secs(600), later).unwrap();
        assert!(report.removed.is_empty(), "{report:?}");
        // The scratch files went with it: a resumed conversation starts empty.
        let again = store.volumes(&old).unwrap();
        assert!(again.scratch.read("/notes.txt", 0, 10).is_err());
    }
}

#[test]
fn conversation_volumes_are_rooted_in_the_store() {
    let t = tempfile::tempdir().unwrap();
    let store = StateStore::open(&StateSpec::Dir(t.path().to_path_buf())).unwrap();
    let k = key("alice", "c");
    let v = store.volumes(&k).unwrap();
    v.scratch.write("/a/b.txt", b"data", &Default::default()).unwrap();
    let on_disk = t.path().join(format!("conversations/{k}/scratch/a/b.txt"));
    assert_eq!(std::fs::read(on_disk).unwrap(), b"data");
    assert!(v.tool_calls.keeps_entry_metadata(), "a session accepts it as /tool_calls");
    let opts = filestore_volumes::WriteOptions {
        read_only: true,
        entry_type: Some(filestore_guest::invoke::results::TYPE_TOOL_RESULT.into()),
        ..Default::default()
    };
    v.tool_calls.write("/call_1/result.json", b"{}", &opts).unwrap();
    // Another handle (another replica) sees the result with its metadata.
    let other = StateStore::open(&StateSpec::Dir(t.path().to_path_buf())).unwrap();
    let e = other.volumes(&k).unwrap().tool_calls.stat("/call_1/result.json").unwrap();
    assert_eq!(e.entry_type, filestore_guest::invoke::results::TYPE_TOOL_RESULT);
    assert!(e.read_only);
    // Another identity's conversation does not see it.
    let bob = other.volumes(&key("bob", "c")).unwrap();
    assert!(bob.scratch.read("/a/b.txt", 0, 10).is_err());
}

#[test]
fn recording_active_skills_keeps_order_and_cap_and_moves_the_catalog_version() {
    let mut d = StateDoc::new(0);
    let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(d.record_active(&v(&["a", "b"]), 3));
    assert_eq!((d.activated_skills.clone(), d.catalog_version), (v(&["a", "b"]), 1));
    assert!(!d.record_active(&v(&["a", "b"]), 3), "the same list again is no change");
    assert_eq!(d.catalog_version, 1);
    // Another session's skill `c` stays before this one's; the oldest go past the cap.
    d.activated_skills.push("c".into());
    assert!(d.record_active(&v(&["a", "d"]), 3));
    assert_eq!((d.activated_skills.clone(), d.catalog_version), (v(&["c", "a", "d"]), 2));
}

#[cfg(unix)]
#[test]
fn a_directory_others_can_enter_is_named_and_a_private_one_is_not() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    let spec = StateSpec::Dir(t.path().to_path_buf());
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let said = spec.exposure().expect("0755 is reported");
    assert!(said.contains("mode 755") && said.contains("chmod 700"), "{said}");
    std::fs::set_permissions(t.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    assert_eq!(spec.exposure(), None);
    assert_eq!(StateSpec::Memory.exposure(), None);
}

#[test]
fn a_missing_state_directory_is_created_for_its_owner_only_but_not_its_parents() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    let spec = StateSpec::Dir(state.clone());
    assert!(spec.create_missing_dir().unwrap(), "the directory is made");
    assert!(state.is_dir());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&state).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "mode {mode:o}");
        assert_eq!(spec.exposure(), None);
    }
    assert!(!spec.create_missing_dir().unwrap(), "an existing directory is left alone");
    let deep = StateSpec::Dir(tmp.path().join("typo/state"));
    assert!(!deep.create_missing_dir().unwrap());
    assert!(!tmp.path().join("typo").exists(), "no parent is made");
    assert!(!StateSpec::Memory.create_missing_dir().unwrap());
}
