//! Mutations through the real component: write, edit, delete, move, on memory and
//! directory volumes, read-only mounts refusing each.

use serde_json::json;

use crate::common::*;

#[test]
fn write_edit_delete_move_on_a_real_directory() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a.txt"), "one\r\ntwo\r\nthree\r\n").unwrap();
    let mut s = session_with("/w", dir(tmp.path(), false));
    let j = ok(&mut s, "filestore_write", json!({"path": "/w/new/deep/f.txt", "content": "hello"}));
    assert_eq!(j["entry"]["size"], 5);
    assert_eq!(std::fs::read_to_string(tmp.path().join("new/deep/f.txt")).unwrap(), "hello");
    let (kind, _) = err(
        &mut s,
        "filestore_write",
        json!({"path": "/w/new/deep/f.txt", "content": "x", "create_only": true}),
    );
    assert_eq!(kind, "already-exists");
    // CRLF file edited with LF text keeps CRLF.
    ok(
        &mut s,
        "filestore_edit",
        json!({"path": "/w/a.txt", "old_string": "one\ntwo", "new_string": "uno\ndos"}),
    );
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(),
        "uno\r\ndos\r\nthree\r\n"
    );
    // Multi-edit failing in the middle writes nothing.
    let (kind, msg) = err(
        &mut s,
        "filestore_edit",
        json!({"path": "/w/a.txt", "edits": [{"old_string": "uno", "new_string": "1"}, {"old_string": "absent", "new_string": "2"}]}),
    );
    assert_eq!(kind, "not-found");
    assert!(msg.contains("edit 2 of 2"), "{msg}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("a.txt")).unwrap(),
        "uno\r\ndos\r\nthree\r\n"
    );
    // Dry run returns a diff and writes nothing.
    let j = ok(
        &mut s,
        "filestore_edit",
        json!({"path": "/w/new/deep/f.txt", "old_string": "hello", "new_string": "bye", "dry_run": true}),
    );
    let diff = j["diff"].as_str().unwrap();
    assert!(
        diff.starts_with("--- a/w/new/deep/f.txt\n+++ b/w/new/deep/f.txt\n@@ -1 +1 @@\n-hello\n"),
        "{diff}"
    );
    assert!(diff.contains("\n+bye\n"), "{diff}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("new/deep/f.txt")).unwrap(), "hello");
    ok(&mut s, "filestore_move", json!({"source": "/w/new", "destination": "/w/moved"}));
    assert!(tmp.path().join("moved/deep/f.txt").exists());
    assert_eq!(err(&mut s, "filestore_delete", json!({"path": "/w/moved"})).0, "conflict");
    ok(&mut s, "filestore_delete", json!({"path": "/w/moved", "recursive": true}));
    assert!(!tmp.path().join("moved").exists());
}

#[test]
fn edit_errors_say_what_happened() {
    let mut s = session_with("/w", mem(&[("/f.txt", "x x y")]));
    let (kind, msg) = err(
        &mut s,
        "filestore_edit",
        json!({"path": "/w/f.txt", "old_string": "x", "new_string": "z"}),
    );
    assert_eq!(kind, "conflict");
    assert!(msg.contains("2 times"), "{msg}");
    let (kind, _) = err(
        &mut s,
        "filestore_edit",
        json!({"path": "/w/f.txt", "old_string": "", "new_string": "z"}),
    );
    assert_eq!(kind, "invalid-argument");
    let (kind, _) = err(
        &mut s,
        "filestore_edit",
        json!({"path": "/w/f.txt", "old_string": "y", "new_string": "y"}),
    );
    assert_eq!(kind, "invalid-argument");
    let j = ok(
        &mut s,
        "filestore_edit",
        json!({"path": "/w/f.txt", "old_string": "x", "new_string": "z", "replace_all": true}),
    );
    assert_eq!(j["replacements"], 2);
}

#[test]
fn read_only_mount_refuses_every_mutation() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("keep.txt"), "keep").unwrap();
    let mut s = engine()
        .session(vec![filestore::MountSpec::new("/ro", dir(tmp.path(), true)).read_only()])
        .unwrap();
    for (tool, args) in [
        ("filestore_write", json!({"path": "/ro/keep.txt", "content": "x"})),
        ("filestore_write", json!({"path": "/ro/new.txt", "content": "x"})),
        (
            "filestore_edit",
            json!({"path": "/ro/keep.txt", "old_string": "keep", "new_string": "x"}),
        ),
        ("filestore_delete", json!({"path": "/ro/keep.txt"})),
        ("filestore_move", json!({"source": "/ro/keep.txt", "destination": "/ro/k2.txt"})),
    ] {
        let (kind, msg) = err(&mut s, tool, args);
        assert_eq!(kind, "read-only", "{tool}: {msg}");
        assert!(msg.contains("/ro/"), "{tool}: {msg}");
    }
    assert_eq!(std::fs::read_to_string(tmp.path().join("keep.txt")).unwrap(), "keep");
    assert!(!tmp.path().join("new.txt").exists());
}
