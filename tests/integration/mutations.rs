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
    assert_eq!(kind, "conflict");
    assert!(msg.contains("edit 2 of 2") && msg.contains("occurs 0 times"), "{msg}");
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

/// Two mounts of one directory tree (`/a` = `ov`, `/b` = `ov/sub`): a move between
/// them would copy and then delete the copy with the source. It is refused before
/// anything changes, for a directory and for a file moved onto itself.
#[test]
fn moves_between_mounts_of_the_same_storage_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let ov = tmp.path().join("ov");
    std::fs::create_dir_all(ov.join("sub/inner")).unwrap();
    std::fs::write(ov.join("sub/f.txt"), "precious").unwrap();
    std::fs::write(ov.join("sub/inner/g.txt"), "also precious").unwrap();
    let mut s = engine()
        .session(vec![
            filestore::MountSpec::new("/a", dir(&ov, false)),
            filestore::MountSpec::new("/b", dir(&ov.join("sub"), false)),
        ])
        .unwrap();
    let (kind, msg) =
        err(&mut s, "filestore_move", json!({"source": "/a/sub", "destination": "/b/copy"}));
    assert_eq!(kind, "unsupported", "{msg}");
    assert!(msg.contains("same storage") && msg.contains("nothing was moved"), "{msg}");
    let (kind, _) = err(
        &mut s,
        "filestore_move",
        json!({"source": "/a/sub/f.txt", "destination": "/b/f.txt", "overwrite": true}),
    );
    assert_eq!(kind, "unsupported");
    assert_eq!(std::fs::read_to_string(ov.join("sub/f.txt")).unwrap(), "precious");
    assert_eq!(std::fs::read_to_string(ov.join("sub/inner/g.txt")).unwrap(), "also precious");
    assert!(!ov.join("sub/copy").exists());
    // Separate trees on the same file system are separate storage: the move works.
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let mut s = engine()
        .session(vec![
            filestore::MountSpec::new("/a", dir(&ov, false)),
            filestore::MountSpec::new("/c", dir(&other, false)),
        ])
        .unwrap();
    let j = ok(&mut s, "filestore_move", json!({"source": "/a/sub", "destination": "/c/sub"}));
    assert!(j["message"].as_str().unwrap().starts_with("Moved /a/sub to /c/sub (2 files)."), "{j}");
    assert_eq!(std::fs::read_to_string(other.join("sub/inner/g.txt")).unwrap(), "also precious");
    assert!(!ov.join("sub").exists());
}

/// A cross-volume move deletes exactly what it copied: a name the source volume cannot
/// show (too long once escaped) and an empty directory stay in the source, and the
/// answer says so; names it shows escaped (a newline, non-UTF-8 bytes) move with
/// their exact bytes; a copy that fails midway removes the copies made so far, so
/// nothing has moved and a retry succeeds.
#[test]
fn cross_volume_moves_delete_only_what_was_copied() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let (src, dst) = (tmp.path().join("src"), tmp.path().join("dst"));
    std::fs::create_dir_all(src.join("d/empty")).unwrap();
    std::fs::create_dir_all(src.join("d/deep")).unwrap();
    std::fs::create_dir_all(&dst).unwrap();
    std::fs::write(src.join("d/a.txt"), "A").unwrap();
    std::fs::write(src.join("d/deep/b.txt"), "B").unwrap();
    std::fs::write(src.join("d/deep/line\nbreak"), "shown 1").unwrap();
    std::fs::write(src.join("d").join(std::ffi::OsStr::from_bytes(b"latin-\xe9")), "shown 2")
        .unwrap();
    // 200 non-UTF-8 bytes: 600 once escaped, past the component limit, so not shown.
    let unshowable = std::ffi::OsStr::from_bytes(&[0xe9; 200]).to_os_string();
    std::fs::write(src.join("d").join(&unshowable), "hidden").unwrap();
    let mounts = || {
        vec![
            filestore::MountSpec::new("/src", dir(&src, false)),
            filestore::MountSpec::new("/dst", dir(&dst, false)),
        ]
    };
    // The second file is over this session's file-size limit: its copy fails after
    // the first one was made, which is removed again with the directories it
    // created; the source is untouched.
    std::fs::write(src.join("d/deep/b.txt"), "B".repeat(100)).unwrap();
    let limits = filestore_guest::vfs::limits::Limits { file_bytes: 50, ..Default::default() };
    let options = filestore::SessionOptions { limits, ..Default::default() };
    let mut small = engine().session_with(mounts(), options).unwrap();
    let (kind, msg) =
        err(&mut small, "filestore_move", json!({"source": "/src/d", "destination": "/dst/d"}));
    assert_eq!(kind, "too-large", "{msg}");
    assert!(msg.contains("nothing was moved"), "{msg}");
    assert!(!dst.join("d").exists(), "the copy and its directories were removed");
    assert_eq!(std::fs::read_to_string(src.join("d/a.txt")).unwrap(), "A");
    // A retry (here with room for the file) starts clean and succeeds.
    std::fs::write(src.join("d/deep/b.txt"), "B").unwrap();
    let mut s = engine().session(mounts()).unwrap();
    let j = ok(&mut s, "filestore_move", json!({"source": "/src/d", "destination": "/dst/d"}));
    let msg = j["message"].as_str().unwrap();
    assert!(msg.starts_with("Moved /src/d to /dst/d (4 files)."), "{msg}");
    assert!(msg.contains("Left in place") && msg.contains("/src/d/empty (held no file)"), "{msg}");
    assert!(msg.contains("/src/d (still holds entries not listed)"), "{msg}");
    assert_eq!(std::fs::read_to_string(dst.join("d/a.txt")).unwrap(), "A");
    assert_eq!(std::fs::read_to_string(dst.join("d/deep/b.txt")).unwrap(), "B");
    // Escaped names arrive with their exact bytes.
    assert_eq!(std::fs::read_to_string(dst.join("d/deep/line\nbreak")).unwrap(), "shown 1");
    let latin = std::ffi::OsStr::from_bytes(b"latin-\xe9");
    assert_eq!(std::fs::read_to_string(dst.join("d").join(latin)).unwrap(), "shown 2");
    assert!(!src.join("d/deep/line\nbreak").exists() && !src.join("d").join(latin).exists());
    // What the volume could not show is still there, unharmed.
    assert_eq!(std::fs::read_to_string(src.join("d").join(&unshowable)).unwrap(), "hidden");
    assert!(src.join("d/empty").is_dir());
    assert!(!src.join("d/a.txt").exists() && !src.join("d/deep/b.txt").exists());
}

/// Mounts that would break a promise are refused when the session is created: tool
/// results on a directory (which cannot keep them read-only with attributes), and a
/// read-only mount inside a writable mount's tree (changeable through it).
#[test]
fn mounts_that_would_break_a_promise_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("docs")).unwrap();
    let refused = |mounts: Vec<filestore::MountSpec>| match engine().session(mounts) {
        Ok(_) => panic!("the session should be refused"),
        Err(e) => (e.kind_name().to_string(), e.to_string()),
    };
    let (kind, msg) =
        refused(vec![filestore::MountSpec::new("/tool_calls", dir(tmp.path(), false))]);
    assert_eq!(kind, "invalid-argument");
    assert!(msg.contains("tool results") && msg.contains("mem:"), "{msg}");
    let (_, msg) = refused(vec![
        filestore::MountSpec::new("/w", dir(tmp.path(), false)),
        filestore::MountSpec::new("/docs", dir(&tmp.path().join("docs"), true)).read_only(),
    ]);
    assert!(msg.contains("'/docs'") && msg.contains("'/w'"), "{msg}");
    // Fine: a writable mount inside a read-only one (the user chose to open part of
    // the tree), and the default in-memory results volume.
    engine()
        .session(vec![
            filestore::MountSpec::new("/w", dir(tmp.path(), true)).read_only(),
            filestore::MountSpec::new("/out", dir(&tmp.path().join("docs"), false)),
            filestore::tools::results_mount(),
        ])
        .unwrap();
}

/// A 6,000-level tree (which took minutes when every directory was reopened from the
/// root) is deleted through the component within the call's deadline, whole.
#[test]
fn very_deep_trees_are_deleted_within_the_deadline() {
    let tmp = tempfile::tempdir().unwrap();
    let mut d =
        cap_std::fs::Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
    for _ in 0..6_000 {
        d.create_dir("d").unwrap();
        d = d.open_dir("d").unwrap();
    }
    d.write("leaf.txt", b"x").unwrap();
    drop(d);
    let mut s = session_with("/w", dir(tmp.path(), false));
    let j = ok(&mut s, "filestore_delete", json!({"path": "/w/d", "recursive": true}));
    assert!(j["message"].as_str().unwrap().starts_with("Deleted /w/d"), "{j}");
    assert!(!tmp.path().join("d").exists());
}

/// `filestore_mkdir` on a real directory: parents created, an existing
/// directory is success, a file or a link in the way is refused (the link never
/// followed), an escape is confined, a read-only mount refuses; the empty directory
/// is listed, and on memory volumes it lives on after its last file is deleted.
#[test]
fn mkdir_creates_empty_directories_and_refuses_what_is_in_the_way() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("file.txt"), "x").unwrap();
    std::os::unix::fs::symlink(outside.path(), tmp.path().join("link")).unwrap();
    let mut s = session_with("/w", dir(tmp.path(), false));
    let j = ok(&mut s, "filestore_mkdir", json!({"path": "/w/a/b/c"}));
    assert_eq!(j["entry"]["kind"], "directory");
    assert_eq!(j["entry"]["path"], "/w/a/b/c");
    assert!(tmp.path().join("a/b/c").is_dir());
    let j = ok(&mut s, "filestore_mkdir", json!({"path": "/w/a/b/c"}));
    assert!(j["message"].as_str().unwrap().contains("already exists"), "{j}");
    let ls = ok(&mut s, "filestore_ls", json!({"path": "/w/a/b"}));
    assert_eq!(ls["entries"], json!([{"name": "c", "kind": "directory"}]));
    assert_eq!(err(&mut s, "filestore_mkdir", json!({"path": "/w/file.txt"})).0, "already-exists");
    assert_eq!(
        err(&mut s, "filestore_mkdir", json!({"path": "/w/file.txt/x"})).0,
        "not-a-directory"
    );
    let (kind, msg) = err(&mut s, "filestore_mkdir", json!({"path": "/w/link/inside"}));
    assert_eq!(kind, "invalid-path", "{msg}");
    assert!(
        std::fs::read_dir(outside.path()).unwrap().next().is_none(),
        "nothing created through the link"
    );
    // `..` stays inside the mount (normalised) and cannot leave it.
    ok(&mut s, "filestore_mkdir", json!({"path": "/w/a/../../w/d"}));
    assert!(tmp.path().join("d").is_dir());
    // Delete of the empty directory needs no `recursive`.
    ok(&mut s, "filestore_delete", json!({"path": "/w/a/b/c"}));
    assert!(!tmp.path().join("a/b/c").exists());

    let mut ro = session_with("/r", dir(tmp.path(), true));
    assert_eq!(err(&mut ro, "filestore_mkdir", json!({"path": "/r/new"})).0, "read-only");
    assert!(!tmp.path().join("new").exists());

    let mut m = session_with("/m", mem(&[("/keep.txt", "k")]));
    ok(&mut m, "filestore_mkdir", json!({"path": "/m/empty"}));
    ok(&mut m, "filestore_write", json!({"path": "/m/empty/f.txt", "content": "x"}));
    ok(&mut m, "filestore_delete", json!({"path": "/m/empty/f.txt"}));
    let ls = ok(&mut m, "filestore_ls", json!({"path": "/m"}));
    assert_eq!(ls["entries"][0], json!({"name": "empty", "kind": "directory"}), "{ls}");
    let tree = ok(&mut m, "filestore_tree", json!({"path": "/m"}));
    assert!(tree["tree"].as_str().unwrap().contains("empty/"), "{tree}");
}

/// The rename guard every volume shares (`volume::rename_is_noop`), called on the
/// volumes themselves (the component refuses both moves before a volume sees them):
/// a rename onto itself changes nothing, a directory into itself is refused naming it.
#[test]
fn a_volume_rename_onto_itself_is_nothing_and_into_itself_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("d")).unwrap();
    std::fs::write(tmp.path().join("d/f.txt"), "x").unwrap();
    let volumes: [filestore::volumes::SharedVolume; 2] =
        [mem(&[("/d/f.txt", "x")]), dir(tmp.path(), false)];
    for vol in volumes {
        vol.rename("/d", "/d", false).unwrap();
        let e = vol.rename("/d", "/d/e", false).unwrap_err();
        assert_eq!(e.to_string(), "/d/e: cannot move '/d' into itself");
        assert_eq!(vol.read("/d/f.txt", 0, 1).unwrap(), b"x");
    }
}
