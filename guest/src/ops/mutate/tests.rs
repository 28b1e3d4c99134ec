//! Unit tests of `mutate`.

use super::*;
use crate::vfs::memory::MemoryVolume;

fn table() -> (MountTable, MemoryVolume, MemoryVolume) {
    let a = MemoryVolume::new();
    a.insert("/f.txt", "F").insert("/d/x", "X").insert("/d/y/z", "Z");
    let b = MemoryVolume::new();
    let ro = MemoryVolume::new();
    ro.insert("/locked", "L");
    let mut t = MountTable::new();
    t.add("/a", Box::new(a.clone()), 0, false).unwrap();
    t.add("/b", Box::new(b.clone()), 0, false).unwrap();
    t.add("/ro", Box::new(ro), 0, true).unwrap();
    (t, a, b)
}

#[test]
fn write_create_only_and_read_only() {
    let (t, _, _) = table();
    let l = Limits::default();
    let r = write(
        &t,
        &l,
        &WriteRequest {
            path: "/a/new/deep.txt".into(),
            content: "hi".into(),
            create_only: true,
            encoding: Encoding::Utf8,
        },
    )
    .unwrap();
    assert!(r.message.starts_with("Created"));
    let e = write(
        &t,
        &l,
        &WriteRequest {
            path: "/a/new/deep.txt".into(),
            content: "x".into(),
            create_only: true,
            encoding: Encoding::Utf8,
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists);
    assert!(e.to_string().contains("/a/new/deep.txt"));
    let e = write(
        &t,
        &l,
        &WriteRequest {
            path: "/ro/locked".into(),
            content: "x".into(),
            create_only: false,
            encoding: Encoding::Utf8,
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    assert!(e.to_string().starts_with("/ro/locked"), "{e}");
    let e = write(
        &t,
        &l,
        &WriteRequest {
            path: "/ro/other".into(),
            content: "x".into(),
            create_only: false,
            encoding: Encoding::Utf8,
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    let e = write(
        &t,
        &l,
        &WriteRequest {
            path: "/nowhere".into(),
            content: "x".into(),
            create_only: false,
            encoding: Encoding::Utf8,
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
}

#[test]
fn delete_rules() {
    let (t, a, _) = table();
    assert_eq!(
        delete(&t, &DeleteRequest { path: "/a/d".into(), recursive: false }).unwrap_err().kind(),
        ErrorKind::Conflict
    );
    delete(&t, &DeleteRequest { path: "/a/d".into(), recursive: true }).unwrap();
    assert_eq!(a.len(), 1);
    assert_eq!(
        delete(&t, &DeleteRequest { path: "/ro/locked".into(), recursive: false })
            .unwrap_err()
            .kind(),
        ErrorKind::ReadOnly
    );
    assert_eq!(
        delete(&t, &DeleteRequest { path: "/a/zz".into(), recursive: false }).unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        delete(&t, &DeleteRequest { path: "/a".into(), recursive: true }).unwrap_err().kind(),
        ErrorKind::InvalidPath
    );
}

#[test]
fn move_within_and_across() {
    let (t, a, b) = table();
    let l = Limits::default();
    move_entry(
        &t,
        &l,
        &MoveRequest {
            source: "/a/f.txt".into(),
            destination: "/a/g.txt".into(),
            overwrite: false,
        },
    )
    .unwrap();
    assert_eq!(t.read("/a/g.txt", 0, 9).unwrap(), b"F");
    move_entry(
        &t,
        &l,
        &MoveRequest { source: "/a/d".into(), destination: "/b/moved".into(), overwrite: false },
    )
    .unwrap();
    assert_eq!(t.read("/b/moved/y/z", 0, 9).unwrap(), b"Z");
    assert_eq!(a.len(), 1);
    assert_eq!(b.len(), 2);
    let e = move_entry(
        &t,
        &l,
        &MoveRequest {
            source: "/a/g.txt".into(),
            destination: "/b/moved/x".into(),
            overwrite: false,
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists);
    move_entry(
        &t,
        &l,
        &MoveRequest {
            source: "/a/g.txt".into(),
            destination: "/b/moved/x".into(),
            overwrite: true,
        },
    )
    .unwrap();
    assert_eq!(t.read("/b/moved/x", 0, 9).unwrap(), b"F");
    let e = move_entry(
        &t,
        &l,
        &MoveRequest { source: "/ro/locked".into(), destination: "/a/l".into(), overwrite: false },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    let e = move_entry(
        &t,
        &l,
        &MoveRequest {
            source: "/b/moved".into(),
            destination: "/b/moved/in".into(),
            overwrite: false,
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
}

/// Two layers at one mount point: delete and move act on the layer that holds the
/// entry, a copy in another layer never reappears, and a read-only layer refuses
/// instead of being silently uncovered.
#[test]
fn overlay_delete_and_move() {
    use crate::vfs::volume::Volume;
    let upper = MemoryVolume::new();
    upper.insert("/u.txt", "U").insert("/both.txt", "upper");
    let lower = MemoryVolume::new();
    lower.insert("/l.txt", "L").insert("/both.txt", "lower").insert("/m.txt", "M");
    let mut t = MountTable::new();
    t.add("/o", Box::new(upper.clone()), 0, false).unwrap();
    t.add("/o", Box::new(lower.clone()), 1, false).unwrap();
    let l = Limits::default();
    let del = |p: &str| DeleteRequest { path: p.into(), recursive: false };
    // Only in the lower layer: deleted there.
    delete(&t, &del("/o/l.txt")).unwrap();
    assert!(t.stat("/o/l.txt").is_err() && lower.stat("/l.txt").is_err());
    // In both: gone from both, nothing reappears.
    delete(&t, &del("/o/both.txt")).unwrap();
    assert!(t.stat("/o/both.txt").is_err(), "the lower copy must not reappear");
    // Moving from the lower layer takes the entry out of that layer.
    let mv = |s: &str, d: &str| MoveRequest {
        source: s.into(),
        destination: d.into(),
        overwrite: false,
    };
    move_entry(&t, &l, &mv("/o/m.txt", "/o/moved.txt")).unwrap();
    assert!(t.stat("/o/m.txt").is_err());
    assert_eq!(t.read_all("/o/moved.txt", 10).unwrap().1, b"M");
    // A path held by two layers cannot be moved: one copy would stay in view.
    upper.insert("/twice.txt", "1");
    lower.insert("/twice.txt", "2");
    let e = move_entry(&t, &l, &mv("/o/twice.txt", "/o/x.txt")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict);
    assert!(e.to_string().contains("2 layers"), "{e}");

    // A read-only lower layer refuses, naming why.
    let upper = MemoryVolume::new();
    upper.insert("/both.txt", "upper");
    let lower = MemoryVolume::new();
    lower.insert("/both.txt", "lower").insert("/l.txt", "L");
    let mut t = MountTable::new();
    t.add("/o", Box::new(upper.clone()), 0, false).unwrap();
    t.add("/o", Box::new(lower), 1, true).unwrap();
    let e = delete(&t, &del("/o/both.txt")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    assert!(e.to_string().contains("reappear"), "{e}");
    assert_eq!(upper.read("/both.txt", 0, 10).unwrap(), b"upper", "nothing was deleted");
    let e = delete(&t, &del("/o/l.txt")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    let e = move_entry(&t, &l, &mv("/o/l.txt", "/o/y.txt")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ReadOnly);
    assert!(t.stat("/o/y.txt").is_err());
}

/// `encoding: base64` writes any bytes; bad base64 is refused naming `content`
/// and the offending character, and leaves the old content in place.
#[test]
fn base64_writes_bytes_and_refuses_bad_input() {
    use crate::vfs::volume::Volume;
    let (t, a, _) = table();
    let l = Limits::default();
    let w = |content: &str| WriteRequest {
        path: "/a/f.txt".into(),
        content: content.into(),
        create_only: false,
        encoding: Encoding::Base64,
    };
    write(&t, &l, &w("AP/+\r\nJw==")).unwrap();
    assert_eq!(a.read("/f.txt", 0, 100).unwrap(), [0x00, 0xff, 0xfe, 0x27]);
    write(&t, &l, &w("AP8")).unwrap(); // padding is optional
    assert_eq!(a.read("/f.txt", 0, 100).unwrap(), [0x00, 0xff]);
    for (bad, says) in [
        ("AP8*", "byte 3 ('*') is not base64"),
        ("AP\n\n8*", "byte 5 ('*') is not base64"),
        ("AP-_", "URL-safe"),
        ("AP8=AP8=", "padding in the middle"),
        ("AP\u{a0}8", "('\\u{a0}')"),
        ("A", "cannot be whole bytes"),
        ("AP9=", "bits set past the data"),
    ] {
        let e = write(&t, &l, &w(bad)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
        assert!(e.to_string().contains("content") && e.to_string().contains(says), "{e}");
    }
    assert_eq!(a.read("/f.txt", 0, 100).unwrap(), [0x00, 0xff], "old content kept");
    let small = Limits { write_bytes: 5, ..Limits::default() };
    let e = write(&t, &small, &w("AAAAAAAAAAAA")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooLarge, "{e}");
}

/// A trailing '/' names a directory: writing there is refused, not turned into a
/// file named after the directory.
#[test]
fn write_to_a_directory_path_is_refused() {
    let (t, a, _) = table();
    let req = WriteRequest {
        path: "/a/newdir/".into(),
        content: String::new(),
        create_only: false,
        encoding: Encoding::Utf8,
    };
    let e = write(&t, &Limits::default(), &req).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidPath);
    assert!(e.to_string().contains("names a directory"), "{e}");
    use crate::vfs::volume::Volume;
    assert!(a.stat("/newdir").is_err(), "nothing was created");
}
