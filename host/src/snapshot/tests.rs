use filestore_guest::vfs::volume::{Volume, WriteOptions};

use super::*;
use crate::volumes::MemoryVolume;

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
