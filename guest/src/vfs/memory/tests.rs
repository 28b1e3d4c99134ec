//! Unit tests of `memory`.

use super::*;

#[test]
fn empty_directories_exist_list_walk_move_and_delete() {
    let v = MemoryVolume::new();
    v.insert("/a.txt", "A");
    v.create_dir("/d/e").unwrap();
    v.create_dir("/d/e").unwrap(); // idempotent
    assert!(v.stat("/d/e").unwrap().is_dir());
    assert!(v.stat("/d").unwrap().is_dir());
    assert_eq!(v.len(), 1);
    let names = |es: Vec<Entry>| {
        let mut v: Vec<(String, bool)> = es
            .into_iter()
            .map(|e| {
                let d = e.is_dir();
                (e.path, d)
            })
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(v.list("/d").unwrap()), [("/d/e".to_string(), true)]);
    assert!(v.list("/d/e").unwrap().is_empty());
    v.insert("/d/e.txt", "x").insert("/d/e/f.txt", "y");
    // `/d/e/` (marker), `/d/e.txt`, `/d/e/f.txt`: `e` listed once.
    assert_eq!(
        names(v.list("/d").unwrap()),
        [("/d/e".to_string(), true), ("/d/e.txt".to_string(), false)]
    );
    let w = v.walk("/", 100).unwrap();
    assert_eq!(w.entries.iter().filter(|e| e.path == "/d/e").count(), 1);
    assert!(w.entries.iter().all(|e| !e.path.ends_with('/')));
    v.delete("/d/e/f.txt", false).unwrap();
    assert!(v.stat("/d/e").unwrap().is_dir(), "an explicit directory outlives its files");
    // The parents `mkdir` made are directories of their own, as on a file system.
    v.create_dir("/p/q/r").unwrap();
    v.rename("/p/q", "/pq", false).unwrap();
    assert!(v.stat("/p").unwrap().is_dir(), "a made parent outlives a move out of it");
    v.delete("/pq/r", false).unwrap();
    assert!(v.stat("/pq").unwrap().is_dir(), "a made parent outlives its child");
    v.delete("/pq", false).unwrap();
    v.delete("/p", false).unwrap();
    v.rename("/d/e", "/m", false).unwrap();
    assert!(v.stat("/m").unwrap().is_dir() && v.stat("/d/e").is_err());
    v.delete("/m", false).unwrap();
    assert!(v.stat("/m").is_err());
    assert_eq!(v.create_dir("/a.txt").unwrap_err().kind(), ErrorKind::AlreadyExists);
    assert_eq!(v.create_dir("/a.txt/x").unwrap_err().kind(), ErrorKind::NotADirectory);
    assert_eq!(
        v.write("/d", b"x", &WriteOptions::default()).unwrap_err().kind(),
        ErrorKind::NotAFile
    );
}

fn vol() -> MemoryVolume {
    let v = MemoryVolume::new();
    v.insert("/a.txt", "A").insert("/d/b.txt", "BB").insert("/d/e/c.txt", "CCC");
    v
}

#[test]
fn stat_and_list() {
    let v = vol();
    assert_eq!(v.stat("/a.txt").unwrap().size, 1);
    assert!(v.stat("/d").unwrap().is_dir());
    assert!(v.stat("/").unwrap().is_dir());
    assert_eq!(v.stat("/nope").unwrap_err().kind(), ErrorKind::NotFound);
    let names: Vec<String> = v.list("/d").unwrap().into_iter().map(|e| e.path).collect();
    assert_eq!(names, vec!["/d/b.txt", "/d/e"]);
    assert_eq!(v.list("/a.txt").unwrap_err().kind(), ErrorKind::NotADirectory);
    // `/d` must not list `/d2/...`.
    v.insert("/d2/x", "x");
    assert_eq!(v.list("/d").unwrap().len(), 2);
}

#[test]
fn walk_emits_implied_dirs_once() {
    let v = vol();
    let w = v.walk("/", 100).unwrap();
    let mut p: Vec<String> = w.entries.iter().map(|e| e.path.clone()).collect();
    p.sort();
    assert_eq!(p, vec!["/a.txt", "/d", "/d/b.txt", "/d/e", "/d/e/c.txt"]);
    assert!(!w.truncated);
    assert!(v.walk("/", 2).unwrap().truncated);
}

/// The straightforward walk (a set of every directory seen, a `String` per
/// implied directory per file): the reference the faster walk must agree with.
fn reference_walk(v: &MemoryVolume, path: &str, max_entries: usize) -> Result<Walk> {
    let map = v.files.read().unwrap();
    if map.contains_key(path) {
        return Err(Error::at(ErrorKind::NotADirectory, path, "not a directory"));
    }
    if !MemoryVolume::dir_exists(&map, path) {
        return Err(Error::not_found(path));
    }
    let prefix = prefix_of(path);
    let mut walk = Walk::default();
    let mut seen_dirs: std::collections::HashSet<String> = Default::default();
    for (k, f) in MemoryVolume::under(&map, path) {
        let rest = &k[prefix.len()..];
        if rest.is_empty() {
            continue;
        }
        let mut idx = 0;
        while let Some(i) = rest[idx..].find('/') {
            let d = format!("{}{}", prefix, &rest[..idx + i]);
            if seen_dirs.insert(d.clone()) {
                if walk.entries.len() >= max_entries {
                    walk.truncated = true;
                    return Ok(walk);
                }
                walk.entries.push(Entry::directory(d, None));
            }
            idx += i + 1;
        }
        if is_marker(k) {
            continue;
        }
        if walk.entries.len() >= max_entries {
            walk.truncated = true;
            return Ok(walk);
        }
        walk.entries.push(MemoryVolume::entry(k, f));
    }
    Ok(walk)
}

/// `walk` and `walk_packed` answer what the reference walk answers, entry for
/// entry and in the same order, at every cap, on trees whose names sort around
/// `/` (`a-b`, `a.b` before `a/`; `a0`, `ab` after), with empty-directory markers,
/// types and attributes.
#[test]
fn walks_agree_with_the_reference() {
    use proptest::prelude::*;
    let name = prop_oneof![
        Just("a"),
        Just("a-b"),
        Just("a.b"),
        Just("a0"),
        Just("ab"),
        Just("b"),
        Just("é")
    ];
    let path = proptest::collection::vec(name, 1..5);
    let item = (path, 0..4u8);
    proptest!(ProptestConfig::with_cases(300), |(items in proptest::collection::vec(item, 0..24))| {
        let v = MemoryVolume::new();
        for (parts, how) in &items {
            let p = format!("/{}", parts.join("/"));
            // Paths that would make a file a directory fail, as they should.
            let _ = match how {
                0 => v.create_dir(&p).map(drop),
                1 => v.write(&p, b"xy", &WriteOptions {
                    entry_type: Some("skill".into()),
                    attributes: Some(serde_json::json!({"n": parts.len()})),
                    ..Default::default()
                }).map(drop),
                _ => v.write(&p, b"x", &WriteOptions::default()).map(drop),
            };
        }
        let mut dirs = vec!["/".to_string()];
        dirs.extend(reference_walk(&v, "/", usize::MAX).unwrap().entries.iter()
            .map(|e| e.path.clone()));
        for dir in &dirs {
            let all = reference_walk(&v, dir, usize::MAX);
            let n = all.as_ref().map_or(0, |w| w.entries.len());
            for cap in [0, 1, 2, n / 2, n.saturating_sub(1), n, n + 1] {
                let want = reference_walk(&v, dir, cap);
                let got = v.walk(dir, cap);
                prop_assert_eq!(&got, &want, "walk {} cap {}", dir, cap);
                let packed = v.walk_packed(dir, cap).map(|p| {
                    let offsets = p.path_offsets().unwrap();
                    let entries: Vec<Entry> = offsets.windows(2).enumerate()
                        .map(|(i, s)| p.entry(i, p.paths[s[0] as usize..s[1] as usize].to_string()))
                        .collect();
                    Walk { entries, truncated: p.truncated }
                });
                prop_assert_eq!(&packed, &want, "walk_packed {} cap {}", dir, cap);
            }
        }
    });
}

#[test]
fn read_ranges() {
    let v = vol();
    assert_eq!(v.read("/d/e/c.txt", 1, 10).unwrap(), b"CC");
    assert_eq!(v.read("/d/e/c.txt", 10, 10).unwrap(), b"");
    assert_eq!(v.read("/d", 0, 1).unwrap_err().kind(), ErrorKind::NotAFile);
}

#[test]
fn write_rules() {
    let v = vol();
    let o = WriteOptions { create_only: true, ..Default::default() };
    assert_eq!(v.write("/a.txt", b"x", &o).unwrap_err().kind(), ErrorKind::AlreadyExists);
    assert_eq!(v.write("/d", b"x", &Default::default()).unwrap_err().kind(), ErrorKind::NotAFile);
    assert_eq!(
        v.write("/a.txt/x", b"x", &Default::default()).unwrap_err().kind(),
        ErrorKind::NotADirectory
    );
    let ro = WriteOptions { read_only: true, ..Default::default() };
    v.write("/r", b"r", &ro).unwrap();
    assert_eq!(v.write("/r", b"x", &Default::default()).unwrap_err().kind(), ErrorKind::ReadOnly);
    assert_eq!(v.delete("/r", false).unwrap_err().kind(), ErrorKind::ReadOnly);
}

/// An append extends in place (keeping the entry's type and attributes), creates
/// a missing file, refuses what a write refuses, and is charged the added bytes:
/// one past a budget changes nothing.
#[test]
fn appends_extend_in_place_and_are_charged_their_bytes() {
    let v = vol();
    let typed = WriteOptions {
        entry_type: Some("note".into()),
        attributes: Some(serde_json::json!({"k": 1})),
        ..Default::default()
    };
    v.write("/t.txt", b"one\n", &typed).unwrap();
    let e = v.append("/t.txt", b"two\n").unwrap();
    assert_eq!((e.size, e.entry_type.as_str()), (8, "note"));
    assert_eq!(e.attributes, Some(serde_json::json!({"k": 1})));
    assert_eq!(v.read("/t.txt", 0, 100).unwrap(), b"one\ntwo\n");
    assert_eq!(v.append("/new/n.txt", b"n").unwrap().size, 1, "created with its parent");
    assert_eq!(v.append("/d", b"x").unwrap_err().kind(), ErrorKind::NotAFile);
    assert_eq!(v.append("/a.txt/x", b"x").unwrap_err().kind(), ErrorKind::NotADirectory);
    assert_eq!(v.append("/", b"x").unwrap_err().kind(), ErrorKind::NotAFile);
    v.write("/r", b"r", &WriteOptions { read_only: true, ..Default::default() }).unwrap();
    assert_eq!(v.append("/r", b"x").unwrap_err().kind(), ErrorKind::ReadOnly);

    let budget = ByteBudget::new("the test quota", 1000);
    let q = MemoryVolume::with_budgets(vec![budget.clone()]);
    q.write("/log", &[b'a'; 100], &WriteOptions::default()).unwrap();
    let before = budget.used();
    q.append("/log", &[b'b'; 50]).unwrap();
    assert_eq!(budget.used(), before + 50, "the appended bytes only");
    let e = q.append("/log", &[b'c'; 1000]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
    let mut want = vec![b'a'; 100];
    want.extend([b'b'; 50]);
    assert_eq!(q.read("/log", 0, 10_000).unwrap(), want, "the old content stays");
    assert_eq!(budget.used(), before + 50);
    // A clone of the storage (a reloaded map shares its contents) is not changed
    // by an append to the other.
    let shared = MemoryVolume::new();
    shared.replace_with(&q).unwrap();
    q.append("/log", b"d").unwrap();
    assert_eq!(shared.read("/log", 0, 10_000).unwrap(), want);
}

#[test]
fn moving_a_directory_under_a_file_is_refused() {
    // Regression (model test): a directory moved beneath a file used to succeed,
    // leaving `/f` both a file and a directory.
    let v = vol();
    let e = v.rename("/d", "/a.txt/d", false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotADirectory);
    assert!(e.to_string().contains("parent '/a.txt' is a file"), "{e}");
    assert_eq!(v.read("/a.txt", 0, 9).unwrap(), b"A");
    assert_eq!(v.read("/d/b.txt", 0, 9).unwrap(), b"BB");
    assert_eq!(v.stat("/a.txt/d").unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn delete_and_rename() {
    let v = vol();
    assert_eq!(v.delete("/d", false).unwrap_err().kind(), ErrorKind::Conflict);
    v.rename("/d", "/z", false).unwrap();
    assert_eq!(v.read("/z/e/c.txt", 0, 9).unwrap(), b"CCC");
    assert_eq!(v.rename("/a.txt", "/z/b.txt", false).unwrap_err().kind(), ErrorKind::AlreadyExists);
    v.rename("/a.txt", "/z/b.txt", true).unwrap();
    assert_eq!(v.read("/z/b.txt", 0, 9).unwrap(), b"A");
    assert_eq!(v.rename("/z", "/z/q", false).unwrap_err().kind(), ErrorKind::InvalidArgument);
    v.delete("/z", true).unwrap();
    assert!(v.is_empty());
}

#[test]
fn budgets_bound_content_and_come_back() {
    let c = MemoryVolume::charge_of;
    // Room for /x of 50 bytes in the volume's own quota; in the process's, for
    // /x of 10, /z of 60 and /w of 5 together, not for /x of 50 and /z of 200.
    let process =
        ByteBudget::new("the process memory quota", c("/x", 10) + c("/z", 60) + c("/w", 5));
    let volume_quota = c("/x", 50) + 10;
    let a = MemoryVolume::with_budgets(vec![
        ByteBudget::new("the volume quota", volume_quota),
        process.clone(),
    ]);
    let b = MemoryVolume::with_budgets(vec![process.clone()]);
    let o = WriteOptions::default();
    a.write("/x", &[1; 50], &o).unwrap();
    // Over the volume's own quota: refused, nothing changed.
    let e = a.write("/y", &[1; 20], &o).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(e.to_string().contains(&format!("the volume quota of {volume_quota} bytes")), "{e}");
    assert!(a.stat("/y").is_err() && a.charged_bytes() == c("/x", 50));
    // Over the shared process quota through another volume.
    let e = b.write("/z", &[1; 200], &o).unwrap_err();
    assert!(e.to_string().contains("the process memory quota of"), "{e}");
    assert_eq!(process.used(), c("/x", 50), "a refused write takes nothing");
    // Smaller overwrites, deletes, renames over a file and dropping give bytes back.
    a.write("/x", &[1; 10], &o).unwrap();
    assert_eq!(process.used(), c("/x", 10));
    b.write("/z", &[1; 60], &o).unwrap();
    b.write("/w", &[1; 5], &o).unwrap();
    b.rename("/w", "/z", true).unwrap();
    assert_eq!(process.used(), c("/x", 10) + c("/z", 5));
    b.delete("/z", false).unwrap();
    assert_eq!(process.used(), c("/x", 10));
    let clone = a.clone();
    drop(a);
    assert_eq!(process.used(), c("/x", 10), "a clone still holds the storage");
    drop(clone);
    assert_eq!(process.used(), 0);
}

/// Names and entries are charged as content is: empty files and directories
/// with long names run into the quota (they held unbounded memory when only
/// content counted), a rename to a longer name or under a longer directory is
/// charged the difference, and deleting gives every byte back.
#[test]
fn names_and_entries_are_charged() {
    let budget = ByteBudget::new("the volume quota", 64 * 1024);
    let v = MemoryVolume::with_budgets(vec![budget.clone()]);
    let o = WriteOptions::default();
    let long = "n".repeat(200);
    let mut made = 0;
    let refused = loop {
        match v.write(&format!("/{long}{made}"), b"", &o) {
            Ok(_) => made += 1,
            Err(e) => break e,
        }
        assert!(made < 1000, "64 KiB of empty files with long names was never refused");
    };
    assert_eq!(refused.kind(), ErrorKind::LimitExceeded);
    assert!(made > 100 && budget.used() <= 64 * 1024, "{made} files, {} bytes", budget.used());
    v.delete("/", true).unwrap();
    assert_eq!(budget.used(), 0);
    // Empty directories are entries too.
    v.create_dir("/a/b").unwrap();
    let dirs = budget.used();
    assert_eq!(dirs, 2 * ENTRY_BYTES + ("/a/".len() + "/a/b/".len()) as u64);
    v.delete("/a", true).unwrap();
    assert_eq!(budget.used(), 0);
    // A rename is charged how the names' lengths change.
    v.write("/d/f", b"x", &o).unwrap();
    let before = budget.used();
    v.rename("/d", "/dd", false).unwrap();
    assert_eq!(budget.used(), before + 1);
    v.rename("/dd/f", "/dd/ff", false).unwrap();
    assert_eq!(budget.used(), before + 2);
    let tight = ByteBudget::new("the tight quota", MemoryVolume::charge_of("/f", 1));
    let t = MemoryVolume::with_budgets(vec![tight.clone()]);
    t.write("/f", b"x", &o).unwrap();
    let e = t.rename("/f", "/longer", false).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert!(t.stat("/f").is_ok() && t.stat("/longer").is_err(), "a refused rename changes nothing");
}

/// `replace_with` swaps the whole file set for every clone at once, and charges
/// budgets as writing the new set would.
#[test]
fn replace_with_swaps_every_clone_at_once() {
    let live = MemoryVolume::new();
    live.insert("/old/SKILL.md", "old");
    live.insert("/kept/SKILL.md", "v1");
    let mounted = live.clone();
    let fresh = MemoryVolume::new();
    fresh.insert("/kept/SKILL.md", "v2");
    fresh.insert("/new/SKILL.md", "new");
    live.replace_with(&fresh).unwrap();
    let all = |v: &MemoryVolume| -> Vec<String> {
        v.walk("/", 100).unwrap().entries.into_iter().map(|e| e.path).collect()
    };
    assert_eq!(all(&mounted), ["/kept", "/kept/SKILL.md", "/new", "/new/SKILL.md"]);
    assert_eq!(mounted.read("/kept/SKILL.md", 0, 10).unwrap(), b"v2");
    live.replace_with(&mounted).unwrap(); // the same storage: nothing to do

    let c = MemoryVolume::charge_of;
    let fresh_bytes = c("/kept/SKILL.md", 2) + c("/new/SKILL.md", 3);
    let budget = ByteBudget::new("the volume quota", fresh_bytes);
    let small = MemoryVolume::with_budgets(vec![budget.clone()]);
    small.insert("/a", "ab");
    let big = MemoryVolume::new();
    big.insert("/b", "b".repeat(fresh_bytes as usize));
    let e = small.replace_with(&big).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    assert_eq!(all(&small), ["/a"], "a refused replacement changes nothing");
    small.replace_with(&fresh).unwrap();
    assert_eq!(budget.used(), fresh_bytes);
}
