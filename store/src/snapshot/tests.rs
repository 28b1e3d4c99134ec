use filestore_guest::vfs::volume::{Volume, WriteOptions};

use super::*;
use filestore_volumes::MemoryVolume;

fn put(v: &MemoryVolume, path: &str, content: &str) {
    v.write(path, content.as_bytes(), &WriteOptions::default()).unwrap();
}

fn contents(v: &MemoryVolume) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v
        .walk("/", usize::MAX)
        .unwrap()
        .entries
        .into_iter()
        .filter(|e| e.kind == filestore_guest::vfs::entry::EntryKind::File)
        .map(|e| {
            let bytes = v.read(&e.path, 0, e.size).unwrap();
            (e.path, String::from_utf8(bytes).unwrap())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_restore_gives_back_exactly_the_snapshot_and_objects_are_shared() {
    let (store, work) = (MemoryVolume::new(), MemoryVolume::new());
    put(&work, "/a.txt", "a\n");
    put(&work, "/d/b.txt", "b\n");
    put(&work, "/d/same.txt", "a\n");
    let snaps = Snapshots::new(&store, "/scope");
    let first = snaps.create("one", &[("w", &work as &dyn Volume)], None).unwrap();
    // Two files of one content are one blob: 2 blobs, 2 trees.
    assert_eq!(first.stats.objects_written, 4, "{:?}", first.stats);
    let before = contents(&work);
    put(&work, "/a.txt", "changed\n");
    work.delete("/d", true).unwrap();
    put(&work, "/new/c.txt", "c\n");
    let second = snaps.create("two", &[("w", &work as &dyn Volume)], None).unwrap();
    assert_eq!(second.stats.files, 2);
    let (_, stats) = snaps.restore("one", &[("w", &work as &dyn Volume)]).unwrap();
    assert_eq!(contents(&work), before);
    assert_eq!((stats["w"].written, stats["w"].removed), (3, 1), "{stats:?}");
    // Restoring again changes nothing.
    let (_, again) = snaps.restore("one", &[("w", &work as &dyn Volume)]).unwrap();
    assert_eq!((again["w"].written, again["w"].removed, again["w"].unchanged), (0, 0, 3));
    let names: Vec<String> = snaps.list().unwrap().into_iter().map(|r| r.name).collect();
    assert_eq!(names, ["one", "two"]);
    let e = snaps.restore("one", &[("other", &work as &dyn Volume)]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

#[test]
fn names_are_checked_without_echoing_them() {
    for bad in ["", ".x", "a/b", "..", "a b", "é"] {
        let e = check_name(bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad:?}");
        assert!(bad.len() < 2 || !e.to_string().contains(bad), "{e}");
    }
    check_name("before-refactor_2.1").unwrap();
}

/// Every object file under the store's objects directory.
fn objects(store: &MemoryVolume) -> Vec<String> {
    let mut out: Vec<String> = store
        .walk(tree::OBJECTS, usize::MAX)
        .map(|w| w.entries)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.kind == filestore_guest::vfs::entry::EntryKind::File)
        .map(|e| e.path)
        .collect();
    out.sort();
    out
}

#[test]
fn a_collection_removes_only_what_no_snapshot_needs_once_the_grace_is_over() {
    use std::time::Duration;
    let (store, work) = (MemoryVolume::new(), MemoryVolume::new());
    put(&work, "/kept.txt", "shared\n");
    put(&work, "/d/gone.txt", "only in one\n");
    let snaps = Snapshots::new(&store, "/scope");
    snaps.create("one", &[("w", &work as &dyn Volume)], None).unwrap();
    work.delete("/d", true).unwrap();
    put(&work, "/new.txt", "only in two\n");
    snaps.create("two", &[("w", &work as &dyn Volume)], None).unwrap();
    let all = objects(&store);
    let scopes = ["/scope".to_string()];
    let far = filestore_runtime::clocks::now_ms() + 10 * 3_600_000;

    // Nothing unreachable while both are kept.
    let stats = gc::collect(&store, &scopes, Duration::ZERO, far).unwrap();
    assert_eq!((stats.roots, stats.removed), (2, 0), "{stats:?}");
    assert_eq!(objects(&store), all);

    // A deleted snapshot is still a root for the grace period...
    snaps.delete("one").unwrap();
    assert_eq!(snaps.list().unwrap().len(), 1);
    let now = filestore_runtime::clocks::now_ms();
    let stats = gc::collect(&store, &scopes, Duration::from_secs(60), now).unwrap();
    assert_eq!((stats.roots, stats.removed, stats.trash_removed), (2, 0, 0), "{stats:?}");

    // ...then it goes, and its objects no other snapshot shares with it: the blob
    // of gone.txt, the tree of /d and the old root tree.
    let stats = gc::collect(&store, &scopes, Duration::from_secs(60), far).unwrap();
    assert_eq!((stats.roots, stats.trash_removed, stats.removed), (1, 1, 3), "{stats:?}");
    assert_eq!(objects(&store).len(), all.len() - 3);
    let (_, restored) = snaps.restore("two", &[("w", &work as &dyn Volume)]).unwrap();
    assert_eq!(restored["w"].unchanged, 2, "{restored:?}");
    assert_eq!(
        contents(&work),
        [("/kept.txt".into(), "shared\n".into()), ("/new.txt".into(), "only in two\n".into())]
    );

    // An unreachable object younger than the grace period stays (a snapshot being
    // taken may be about to name it).
    snaps.delete("two").unwrap();
    let stats = gc::collect(&store, &scopes, Duration::from_secs(60), now).unwrap();
    assert_eq!(stats.removed, 0, "{stats:?}");
    let stats = gc::collect(&store, &scopes, Duration::from_secs(60), far).unwrap();
    assert_eq!((stats.roots, stats.reachable), (0, 0), "{stats:?}");
    assert!(objects(&store).is_empty());
}
