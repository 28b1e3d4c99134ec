//! Unit tests of `mounts`.

use super::*;
use crate::vfs::memory::MemoryVolume;

fn table() -> MountTable {
    let base = MemoryVolume::new();
    base.insert("/a.txt", "base-a").insert("/only-base.txt", "b").insert("/dir/x.txt", "bx");
    let upper = MemoryVolume::new();
    upper.insert("/a.txt", "upper-a").insert("/dir/y.txt", "uy").insert("/shadow", "file");
    base.insert("/shadow/child", "hidden");
    let scratch = MemoryVolume::new();
    scratch.insert("/s.txt", "s");
    let mut t = MountTable::new();
    t.add("/w", Box::new(base), 10, true).unwrap();
    t.add("/w", Box::new(upper), 0, false).unwrap();
    t.add("/mnt/scratch", Box::new(scratch), 0, false).unwrap();
    t
}

#[test]
fn whole_file_reads_go_on_past_a_short_answer() {
    let big: String = (0..1000).map(|i| format!("line {i}\n")).collect();
    let v = MemoryVolume::new();
    v.insert("/big.txt", big.as_str()).insert("/small.txt", "tiny");
    let capped = std::sync::Arc::new(crate::vfs::bare::BareVolume::capped(v, 1000));
    let mut t = MountTable::new();
    t.add("/w", Box::new(std::sync::Arc::clone(&capped)), 0, false).unwrap();
    let (_, data) = t.read_all("/w/big.txt", 1 << 20).unwrap();
    assert_eq!(data, big.as_bytes(), "read whole, not cut at the first answer");
    let listed = t.read_listed("/w/big.txt", big.len() as u64, 1 << 20).unwrap();
    assert_eq!(listed, big.as_bytes());
    // Listed smaller than it is now (it grew since the walk): read to its end.
    let grown = t.read_listed("/w/big.txt", 10, 1 << 20).unwrap();
    assert_eq!(grown, big.as_bytes());
    assert!(t.read_listed("/w/big.txt", 10, 100).is_err(), "past the limit");
    let before = capped.reads();
    assert_eq!(t.read_listed("/w/small.txt", 4, 1 << 20).unwrap(), b"tiny");
    let calls = capped.reads() - before;
    assert_eq!(calls, 1, "a small file is one read");
}

#[test]
fn overlay_priority_reads_first_layer() {
    let t = table();
    assert_eq!(t.read("/w/a.txt", 0, 100).unwrap(), b"upper-a");
    assert_eq!(t.read("/w/only-base.txt", 0, 100).unwrap(), b"b");
    assert!(t.stat("/w/only-base.txt").unwrap().read_only);
    assert!(!t.stat("/w/a.txt").unwrap().read_only);
}

#[test]
fn merged_listing() {
    let t = table();
    let names: Vec<String> = t.list("/w").unwrap().into_iter().map(|e| e.path).collect();
    assert_eq!(names, vec!["/w/a.txt", "/w/dir", "/w/only-base.txt", "/w/shadow"]);
    assert!(!t.stat("/w/shadow").unwrap().is_dir(), "file shadows directory");
    let d: Vec<String> = t.list("/w/dir").unwrap().into_iter().map(|e| e.path).collect();
    assert_eq!(d, vec!["/w/dir/x.txt", "/w/dir/y.txt"]);
}

#[test]
fn root_lists_mount_points() {
    let t = table();
    let names: Vec<String> = t.list("/").unwrap().into_iter().map(|e| e.path).collect();
    assert_eq!(names, vec!["/mnt", "/w"]);
    let names: Vec<String> = t.list("/mnt").unwrap().into_iter().map(|e| e.path).collect();
    assert_eq!(names, vec!["/mnt/scratch"]);
    assert_eq!(t.stat("/nowhere").unwrap_err().kind(), ErrorKind::NotFound);
}

/// `walk_packed` answers `walk`'s entries, in its order, with its truncation:
/// through one volume (the fast path: volume-relative paths made virtual, a
/// read-only mount's flag), through overlays and nested mounts (the merged walk),
/// and at every cap.
#[test]
fn packed_walk_is_the_walk() {
    let mut t = table();
    let ro = MemoryVolume::new();
    ro.insert("/z.txt", "z").insert("/a-b/c", "c").insert("/a/b/c.txt", "abc");
    ro.insert("/a.b", "d");
    t.add("/ro", Box::new(ro), 0, true).unwrap();
    let root = MemoryVolume::new();
    root.insert("/top.txt", "t");
    let mut at_root = MountTable::new();
    at_root.add("/", Box::new(root), 0, false).unwrap();
    for (t, dir) in [
        (&t, "/"),
        (&t, "/w"),
        (&t, "/w/dir"),
        (&t, "/mnt"),
        (&t, "/mnt/scratch"),
        (&t, "/ro"),
        (&t, "/ro/a"),
        (&at_root, "/"),
    ] {
        let n = t.walk(dir, usize::MAX).unwrap().entries.len();
        for cap in 0..=n + 1 {
            let want = t.walk(dir, cap).unwrap();
            let got = t.walk_packed(dir, cap).unwrap();
            let entries: Vec<Entry> = got.iter().map(|e| e.entry()).collect();
            assert_eq!(entries, want.entries, "{dir} cap {cap}");
            assert_eq!(got.truncated, want.truncated, "{dir} cap {cap}");
            for e in got.iter() {
                let below = paths::strip_dir(&e.path(), dir).trim_start_matches('/').to_string();
                assert_eq!(e.below(), below, "{dir}");
            }
        }
    }
    assert_eq!(t.walk_packed("/w/a.txt", 10).unwrap_err().kind(), ErrorKind::NotADirectory);
    assert_eq!(t.walk_packed("/nowhere", 10).unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn walk_merges_and_hides_shadowed() {
    let t = table();
    let w = t.walk("/", 1000).unwrap();
    let p: Vec<String> = w.entries.into_iter().map(|e| e.path).collect();
    assert_eq!(
        p,
        vec![
            "/mnt",
            "/mnt/scratch",
            "/mnt/scratch/s.txt",
            "/w",
            "/w/a.txt",
            "/w/dir",
            "/w/dir/x.txt",
            "/w/dir/y.txt",
            "/w/only-base.txt",
            "/w/shadow"
        ]
    );
}

#[test]
fn writes_go_to_first_writable_layer() {
    let t = table();
    t.write("/w/only-base.txt", b"copied", &Default::default()).unwrap_err();
    let e = t.write("/w/new.txt", b"n", &Default::default()).unwrap();
    assert_eq!(e.path, "/w/new.txt");
    assert_eq!(t.writable("/nowhere/x").unwrap_err().kind(), ErrorKind::ReadOnly);
    assert_eq!(t.writable("/w").unwrap_err().kind(), ErrorKind::InvalidPath);
}

/// An append follows the rules of a write: a file of a read-only layer is
/// refused with the same error, a new file goes to the first writable layer, a
/// file of a writable lower layer is copied up (its bytes and the new ones), the
/// lower copy unchanged, and a file of the first writable layer is appended to
/// in place by its volume.
#[test]
fn appends_follow_the_rules_of_writes() {
    let t = table();
    let write_err = t.write("/w/only-base.txt", b"x", &Default::default()).unwrap_err();
    let append_err = t.append("/w/only-base.txt", b"x", 1 << 20).unwrap_err();
    assert_eq!(append_err.to_string(), write_err.to_string());
    assert_eq!(append_err.kind(), ErrorKind::ReadOnly);
    assert_eq!(t.read("/w/only-base.txt", 0, 100).unwrap(), b"b");
    assert_eq!(t.append("/w/a.txt", b"+", 1 << 20).unwrap().size, 8);
    assert_eq!(t.read("/w/a.txt", 0, 100).unwrap(), b"upper-a+");
    assert_eq!(t.append("/w/dir", b"x", 1 << 20).unwrap_err().kind(), ErrorKind::NotAFile);
    assert_eq!(t.append("/w/n.txt", b"new", 1 << 20).unwrap().path, "/w/n.txt");
    assert_eq!(t.append("/nowhere/x", b"x", 1 << 20).unwrap_err().kind(), ErrorKind::ReadOnly);

    // Two writable layers: the lower one's file is copied up, not changed.
    let (upper, lower) = (MemoryVolume::new(), MemoryVolume::new());
    lower.insert("/log", "old\n");
    let mut o = MountTable::new();
    o.add("/o", Box::new(upper.clone()), 0, false).unwrap();
    o.add("/o", Box::new(lower.clone()), 10, false).unwrap();
    assert_eq!(
        o.append("/o/log", b"new\n", 3).unwrap_err().kind(),
        ErrorKind::TooLarge,
        "a copy-up past the limit"
    );
    o.append("/o/log", b"new\n", 1 << 20).unwrap();
    assert_eq!(upper.read("/log", 0, 100).unwrap(), b"old\nnew\n");
    assert_eq!(lower.read("/log", 0, 100).unwrap(), b"old\n");
    o.append("/o/log", b"more\n", 1 << 20).unwrap();
    assert_eq!(o.read("/o/log", 0, 100).unwrap(), b"old\nnew\nmore\n");
}

/// A volume without its own append gets the trait's: a read and a whole write.
#[test]
fn the_default_append_reads_and_writes_whole() {
    let v = MemoryVolume::new();
    v.insert("/big.txt", "0123456789");
    let capped = crate::vfs::bare::BareVolume::capped(v.clone(), 3);
    assert_eq!(capped.append("/big.txt", b"ab").unwrap().size, 12);
    assert_eq!(v.read("/big.txt", 0, 100).unwrap(), b"0123456789ab");
    assert_eq!(capped.append("/n/new.txt", b"x").unwrap().size, 1);
    assert_eq!(capped.append("/n", b"x").unwrap_err().kind(), ErrorKind::NotAFile);
    v.write("/ro", b"r", &WriteOptions { read_only: true, ..Default::default() }).unwrap();
    assert_eq!(capped.append("/ro", b"x").unwrap_err().kind(), ErrorKind::ReadOnly);
}

#[test]
fn longest_prefix_routing() {
    let inner = MemoryVolume::new();
    inner.insert("/deep.txt", "inner");
    let outer = MemoryVolume::new();
    outer.insert("/sub/deep.txt", "outer").insert("/top.txt", "t");
    let mut t = MountTable::new();
    t.add("/", Box::new(outer), 0, false).unwrap();
    t.add("/sub", Box::new(inner), 0, false).unwrap();
    assert_eq!(t.read("/sub/deep.txt", 0, 10).unwrap(), b"inner");
    assert_eq!(t.read("/top.txt", 0, 10).unwrap(), b"t");
    let p: Vec<String> = t.walk("/", 100).unwrap().entries.into_iter().map(|e| e.path).collect();
    assert_eq!(p, vec!["/sub", "/sub/deep.txt", "/top.txt"]);
}
