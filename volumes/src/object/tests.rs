//! Unit tests of the object volume over `file://` (object_store's local file system
//! store: real files, no server). The same semantics over a real S3 server are
//! tested end to end in `tests/integration/object_store.rs`.

use super::*;
use filestore_guest::error::ErrorKind;
use serde_json::json;

fn spec(dir: &std::path::Path) -> ObjectSpec {
    ObjectSpec::parse(&format!("file://{}", dir.display())).unwrap().unwrap()
}

fn vol() -> (tempfile::TempDir, ObjectVolume) {
    let t = tempfile::tempdir().unwrap();
    let v = ObjectVolume::open(&spec(t.path()), false).unwrap();
    (t, v)
}

fn put(v: &ObjectVolume, p: &str, c: &str) {
    v.write(p, c.as_bytes(), &WriteOptions::default()).unwrap();
}

fn kind<T: std::fmt::Debug>(r: Result<T>) -> ErrorKind {
    r.unwrap_err().kind()
}

fn result_options() -> WriteOptions {
    WriteOptions {
        create_only: true,
        read_only: true,
        entry_type: Some("tool_result".into()),
        attributes: Some(json!({"tool_id": "t", "tool_call_id": "c1"})),
    }
}

#[test]
fn files_and_implied_directories() {
    let (_t, v) = vol();
    put(&v, "/a.txt", "hello");
    put(&v, "/d/e/f.txt", "deep");
    assert_eq!(v.stat("/a.txt").unwrap().size, 5);
    assert!(v.stat("/d").unwrap().is_dir());
    assert!(v.stat("/d/e").unwrap().is_dir());
    assert!(v.stat("/").unwrap().is_dir());
    assert_eq!(kind(v.stat("/nope")), ErrorKind::NotFound);
    let mut names: Vec<String> = v.list("/").unwrap().into_iter().map(|e| e.path).collect();
    names.sort();
    assert_eq!(names, ["/a.txt", "/d"]);
    assert_eq!(kind(v.list("/a.txt")), ErrorKind::NotADirectory);
    assert_eq!(kind(v.list("/nope")), ErrorKind::NotFound);
    let w = v.walk("/", 100).unwrap();
    let p: Vec<&str> = w.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(p, ["/a.txt", "/d", "/d/e", "/d/e/f.txt"]);
    assert!(!w.truncated);
    assert!(v.walk("/", 2).unwrap().truncated);
    assert_eq!(v.walk("/d", 100).unwrap().entries.len(), 2);
    assert_eq!(kind(v.walk("/a.txt", 10)), ErrorKind::NotADirectory);
    // The last file gone, its directories are gone too (as in memory volumes).
    v.delete("/d/e/f.txt", false).unwrap();
    assert_eq!(kind(v.stat("/d")), ErrorKind::NotFound);
}

#[test]
fn reads_are_ranged() {
    let (_t, v) = vol();
    put(&v, "/f", "0123456789");
    assert_eq!(v.read("/f", 2, 3).unwrap(), b"234");
    assert_eq!(v.read("/f", 8, 100).unwrap(), b"89");
    assert_eq!(v.read("/f", 10, 5).unwrap(), b"");
    assert_eq!(v.read("/f", 50, 5).unwrap(), b"");
    assert_eq!(v.read("/f", 0, 0).unwrap(), b"");
    put(&v, "/empty", "");
    assert_eq!(v.read("/empty", 0, 10).unwrap(), b"");
    put(&v, "/d/x", "x");
    assert_eq!(kind(v.read("/d", 0, 1)), ErrorKind::NotAFile);
    assert_eq!(kind(v.read("/missing", 0, 1)), ErrorKind::NotFound);
}

#[test]
fn write_rules_match_the_memory_volume() {
    let (_t, v) = vol();
    put(&v, "/a.txt", "A");
    put(&v, "/d/b.txt", "B");
    let once = WriteOptions { create_only: true, ..Default::default() };
    assert_eq!(kind(v.write("/a.txt", b"x", &once)), ErrorKind::AlreadyExists);
    assert_eq!(v.read("/a.txt", 0, 10).unwrap(), b"A", "a refused write changes nothing");
    assert_eq!(kind(v.write("/d", b"x", &Default::default())), ErrorKind::NotAFile);
    assert_eq!(kind(v.write("/a.txt/x", b"x", &Default::default())), ErrorKind::NotADirectory);
    assert_eq!(kind(v.write("/", b"x", &Default::default())), ErrorKind::NotAFile);
    v.write("/new.txt", b"n", &once).unwrap();
    put(&v, "/a.txt", "replaced");
    assert_eq!(v.read("/a.txt", 0, 100).unwrap(), b"replaced");
}

#[test]
fn hostile_paths_are_refused_and_odd_names_round_trip() {
    let (_t, v) = vol();
    for bad in ["/../x", "/a//b", "/a/./b", "/a\\b", "/a\nb", "/.filestore/meta/x", "rel"] {
        assert_eq!(
            kind(v.write(bad, b"x", &Default::default())),
            ErrorKind::InvalidPath,
            "{bad:?}"
        );
        assert_eq!(kind(v.stat(bad)), ErrorKind::InvalidPath, "{bad:?}");
    }
    let long = format!("/{}", vec!["n".repeat(250); 5].join("/"));
    let e = v.write(&long, b"x", &Default::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidPath);
    assert!(e.message().contains("1024"), "{e}");
    // Percent signs and non-ASCII names are names, not encodings.
    for odd in ["/a%2Fb.txt", "/ünïcødé/名前.txt", "/sp ace/#hash?.txt"] {
        put(&v, odd, odd);
        assert_eq!(v.read(odd, 0, 100).unwrap(), odd.as_bytes());
    }
    let w: Vec<String> = v.walk("/", 100).unwrap().entries.into_iter().map(|e| e.path).collect();
    assert!(w.contains(&"/a%2Fb.txt".to_string()) && !w.contains(&"/a".to_string()), "{w:?}");
    assert!(w.contains(&"/ünïcødé/名前.txt".to_string()), "{w:?}");
}

#[test]
fn entry_metadata_survives_and_read_only_entries_refuse_mutation() {
    let (_t, v) = vol();
    assert!(!v.keeps_entry_metadata(), "no role: no type is trusted");
    let v = v.with_trusted_entry_types(&["tool_result"]);
    let e = v.write("/r/result-1.json", b"{}", &result_options()).unwrap();
    assert!(e.read_only);
    assert!(v.keeps_entry_metadata());
    let check = |e: &Entry| {
        assert!(e.read_only, "{e:?}");
        assert_eq!(e.entry_type, "tool_result");
        assert_eq!(e.attributes.as_ref().unwrap()["tool_call_id"], "c1");
    };
    check(&v.stat("/r/result-1.json").unwrap());
    check(&v.list("/r").unwrap()[0]);
    check(v.walk("/", 10).unwrap().entries.iter().find(|e| !e.is_dir()).unwrap());
    check(v.walk("/r", 10).unwrap().entries.iter().find(|e| !e.is_dir()).unwrap());
    assert_eq!(kind(v.write("/r/result-1.json", b"x", &Default::default())), ErrorKind::ReadOnly);
    assert_eq!(kind(v.delete("/r/result-1.json", false)), ErrorKind::ReadOnly);
    assert_eq!(kind(v.rename("/r/result-1.json", "/s.json", false)), ErrorKind::ReadOnly);
    put(&v, "/r/other.txt", "o");
    assert_eq!(kind(v.delete("/r", true)), ErrorKind::ReadOnly);
    assert_eq!(v.read("/r/other.txt", 0, 9).unwrap(), b"o", "a refused delete deletes nothing");
    assert_eq!(kind(v.rename("/r", "/moved", false)), ErrorKind::ReadOnly);
    assert!(v.stat("/r/other.txt").is_ok(), "a refused move moves nothing");
    // The sidecar is not an entry.
    assert!(v.walk("/", 100).unwrap().entries.iter().all(|e| !e.path.contains(".filestore")));
}

#[test]
fn metadata_of_a_replaced_object_is_ignored() {
    let (_t, v) = vol();
    let v = v.with_trusted_entry_types(&["attachment"]);
    let typed = WriteOptions { entry_type: Some("attachment".into()), ..Default::default() };
    v.write("/a.bin", b"one", &typed).unwrap();
    assert_eq!(v.stat("/a.bin").unwrap().entry_type, "attachment");
    // Another client replaces the object behind the volume's back.
    let key = v.keys.key("/a.bin").unwrap();
    let s = v.store.clone();
    wait::block(async move { s.put(&key, PutPayload::from(b"other client".to_vec())).await })
        .unwrap()
        .unwrap();
    let e = v.stat("/a.bin").unwrap();
    assert_eq!(e.entry_type, "file", "a sidecar that no longer describes the object");
    assert_eq!(e.size, 12);
    // A typed file moved keeps its type.
    v.write("/b.bin", b"two", &typed).unwrap();
    v.rename("/b.bin", "/c/b.bin", false).unwrap();
    assert_eq!(v.stat("/c/b.bin").unwrap().entry_type, "attachment");
    assert_eq!(kind(v.stat("/b.bin")), ErrorKind::NotFound);
}

#[test]
fn delete_and_rename() {
    let (_t, v) = vol();
    put(&v, "/d/a", "a");
    put(&v, "/d/s/b", "b");
    put(&v, "/f", "f");
    assert_eq!(kind(v.delete("/d", false)), ErrorKind::Conflict);
    assert_eq!(kind(v.delete("/", false)), ErrorKind::Conflict);
    assert_eq!(kind(v.delete("/nope", false)), ErrorKind::NotFound);
    assert_eq!(kind(v.rename("/d", "/d/s/x", false)), ErrorKind::InvalidArgument);
    assert_eq!(kind(v.rename("/f", "/d", true)), ErrorKind::AlreadyExists);
    assert_eq!(kind(v.rename("/d", "/f", true)), ErrorKind::AlreadyExists);
    assert_eq!(kind(v.rename("/d/a", "/f/x", false)), ErrorKind::NotADirectory);
    put(&v, "/g", "g");
    assert_eq!(kind(v.rename("/f", "/g", false)), ErrorKind::AlreadyExists);
    v.rename("/f", "/g", true).unwrap();
    assert_eq!(v.read("/g", 0, 9).unwrap(), b"f");
    assert_eq!(kind(v.stat("/f")), ErrorKind::NotFound);
    v.rename("/d", "/e/d2", false).unwrap();
    assert_eq!(v.read("/e/d2/s/b", 0, 9).unwrap(), b"b");
    assert_eq!(kind(v.stat("/d")), ErrorKind::NotFound);
    v.delete("/e", true).unwrap();
    assert_eq!(kind(v.stat("/e")), ErrorKind::NotFound);
    v.delete("/", true).unwrap();
    assert!(v.walk("/", 10).unwrap().entries.is_empty());
}

#[test]
fn read_only_volumes_refuse_every_mutation() {
    let t = tempfile::tempdir().unwrap();
    let rw = ObjectVolume::open(&spec(t.path()), false).unwrap();
    put(&rw, "/a", "a");
    let ro = ObjectVolume::open(&spec(t.path()), true).unwrap();
    assert_eq!(ro.read("/a", 0, 9).unwrap(), b"a");
    assert_eq!(kind(ro.write("/b", b"b", &Default::default())), ErrorKind::ReadOnly);
    assert_eq!(kind(ro.delete("/a", false)), ErrorKind::ReadOnly);
    assert_eq!(kind(ro.rename("/a", "/b", false)), ErrorKind::ReadOnly);
}

#[test]
fn nested_prefixes_of_one_store_overlap() {
    let t = tempfile::tempdir().unwrap();
    let s3 = |u: &str| ObjectSpec::parse(u).unwrap().unwrap();
    let id = |u: &str| {
        let s = s3(u);
        VolumeIdentity {
            storage: format!("object:{}", hash16(&s.storage_id())),
            root: s.prefix.split('/').filter(|c| !c.is_empty()).map(hash16).collect(),
        }
    };
    assert!(id("s3://b/team").overlaps(&id("s3://b/team/ws")));
    assert!(!id("s3://b/team/a").overlaps(&id("s3://b/team/b")));
    assert!(!id("s3://b/p").overlaps(&id("s3://c/p")));
    let v = ObjectVolume::open(&spec(t.path()), false).unwrap();
    assert!(v.identity().is_some());
}

#[test]
fn read_ahead_serves_the_reads_in_order_and_drops_what_is_skipped() {
    let (_t, v) = vol();
    let mut files = Vec::new();
    for i in 0..150 {
        let p = format!("/f/{i:03}.txt");
        put(&v, &p, &format!("content {i}"));
        files.push(PrefetchFile { path: p, size: format!("content {i}").len() as u64 });
    }
    v.prefetch(&files);
    let mut hits_before = v.counts.snapshot().read_ahead_hits;
    for (i, f) in files.iter().enumerate() {
        if i % 7 == 3 {
            continue; // skipped by the reader (a filter, a deleted file)
        }
        let got = v.read(&f.path, 0, f.size + 1).unwrap();
        assert_eq!(got, format!("content {i}").as_bytes());
    }
    let hits = v.counts.snapshot().read_ahead_hits - hits_before;
    assert_eq!(hits, 150 - (0..150).filter(|i| i % 7 == 3).count() as u64);
    // A change through the volume drops the read-ahead: no stale content.
    v.prefetch(&files[..2]);
    put(&v, &files[0].path, "changed!");
    hits_before = v.counts.snapshot().read_ahead_hits;
    assert_eq!(v.read(&files[0].path, 0, 100).unwrap(), b"changed!");
    assert_eq!(v.counts.snapshot().read_ahead_hits, hits_before);
    // A file that grew past what was fetched is read again, whole.
    v.prefetch(&[PrefetchFile { path: files[1].path.clone(), size: 2 }]);
    assert_eq!(v.read(&files[1].path, 0, 100).unwrap(), b"content 1");
}

/// A sidecar is the word of whoever can write the bucket. Whatever type a sidecar
/// gives an object (written here through the volume, as a bucket writer could write
/// it directly), a volume whose role does not trust that type shows a plain file
/// without attributes; only the read-only flag, which takes rights away, applies.
#[test]
fn untrusted_sidecar_types_are_plain_files() {
    let t = tempfile::tempdir().unwrap();
    let writer = ObjectVolume::open(&spec(t.path()), false).unwrap().with_trusted_entry_types(&[
        "skill",
        "tool_result",
        "symlink",
        "file",
    ]);
    let types = ["skill", "skill_reference", "tool_result", "symlink", "special", "directory"];
    for ty in types {
        let o = WriteOptions {
            entry_type: Some(ty.into()),
            attributes: Some(json!({"skill_name": "evil", "tool_id": "t"})),
            ..Default::default()
        };
        writer.write(&format!("/{ty}.md"), b"x", &o).unwrap();
    }
    let attrs = WriteOptions { attributes: Some(json!({"tool_id": "t"})), ..Default::default() };
    writer.write("/attributes-only.md", b"x", &attrs).unwrap();
    let ro = WriteOptions { read_only: true, ..Default::default() };
    writer.write("/read-only.md", b"x", &ro).unwrap();
    assert_eq!(writer.stat("/skill.md").unwrap().entry_type, "skill", "trusted by the writer");

    let plain = |e: &Entry| {
        assert_eq!((e.entry_type.as_str(), &e.attributes), ("file", &None), "{e:?}");
    };
    for v in [
        ObjectVolume::open(&spec(t.path()), false).unwrap(),
        ObjectVolume::open(&spec(t.path()), false)
            .unwrap()
            .with_trusted_entry_types(&["tool_result"]),
    ] {
        let trusts_results = v.keeps_entry_metadata();
        for e in v.walk("/", 100).unwrap().entries.iter().chain(&v.list("/").unwrap()) {
            if trusts_results && e.path == "/tool_result.md" {
                assert_eq!(e.entry_type, "tool_result", "{e:?}");
                continue;
            }
            plain(e);
            assert_eq!(e.read_only, e.path == "/read-only.md", "{e:?}");
        }
        plain(&v.stat("/skill.md").unwrap());
        assert!(v.stat("/read-only.md").unwrap().read_only, "read-only only restricts");
        assert_eq!(kind(v.write("/read-only.md", b"y", &Default::default())), ErrorKind::ReadOnly);
    }
}
