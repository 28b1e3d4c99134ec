//! The read side through the real component: paths, overlays, ls, read, glob, grep,
//! tree.

use std::sync::Arc;

use filestore::MountSpec;
use filestore::volumes::MemoryVolume;
use serde_json::json;

use crate::common::*;

#[test]
fn path_normalisation_through_the_boundary() {
    let mut s = session_with("/foo", mem(&[("/bar/baz", "x"), ("/baz", "y")]));
    for p in
        ["foo/bar/baz", "/foo//bar///baz", "/foo/./bar/baz", "/foo/bar/../bar/baz", "/foo/bar/baz/"]
    {
        let j = ok(&mut s, "filestore_read", json!({"path": p}));
        assert_eq!(j["entry"]["path"], "/foo/bar/baz", "{p}");
    }
    let (kind, msg) = err(&mut s, "filestore_read", json!({"path": "/.."}));
    assert_eq!(kind, "invalid-path");
    assert!(msg.contains("above the root"), "{msg}");
    let (kind, _) = err(&mut s, "filestore_read", json!({"path": "/foo/a\u{0}b"}));
    assert_eq!(kind, "invalid-path");
    let long = format!("/foo/{}", "a".repeat(5000));
    assert_eq!(err(&mut s, "filestore_read", json!({"path": long})).0, "invalid-path");
}

#[test]
fn overlay_priority_and_merged_listing() {
    let lower = mem(&[("/a.txt", "lower a"), ("/only-lower.txt", "L")]);
    let upper = mem(&[("/a.txt", "upper a"), ("/only-upper.txt", "U")]);
    let mut s = engine()
        .session(vec![
            MountSpec::new("/w", lower).priority(5).read_only(),
            MountSpec::new("/w", upper).priority(1),
        ])
        .unwrap();
    let j = ok(&mut s, "filestore_read", json!({"path": "/w/a.txt"}));
    assert_eq!(j["text"], "     1\tupper a\n");
    let j = ok(&mut s, "filestore_ls", json!({"details": true, "path": "/w"}));
    let names: Vec<&str> =
        j["entries"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["a.txt", "only-lower.txt", "only-upper.txt"]);
    // The lower layer is read-only; its files say so and refuse edits.
    assert_eq!(j["entries"][1]["read_only"], true);
    let (kind, msg) =
        err(&mut s, "filestore_write", json!({"path": "/w/only-lower.txt", "content": "x"}));
    assert_eq!(kind, "read-only");
    assert!(msg.contains("/w/only-lower.txt"), "{msg}");
}

#[test]
fn ls_depths_and_missing_path() {
    let mut s =
        session_with("/w", mem(&[("/a/b/c/d.txt", "d"), ("/a/top.txt", "t"), ("/z.txt", "z")]));
    let j = ok(&mut s, "filestore_ls", json!({"details": true, "path": "/w"}));
    assert!(j["entries"][0]["children"].is_null());
    let j = ok(&mut s, "filestore_ls", json!({"details": true, "path": "/w", "depth": 2}));
    assert_eq!(j["entries"][0]["children"][0]["path"], "/w/a/b");
    assert!(j["entries"][0]["children"][0]["children"].is_null());
    let j = ok(&mut s, "filestore_ls", json!({"details": true, "path": "/w", "depth": 3}));
    assert_eq!(j["entries"][0]["children"][0]["children"][0]["path"], "/w/a/b/c");
    let (kind, msg) = err(&mut s, "filestore_ls", json!({"details": true, "path": "/w/missing"}));
    assert_eq!(kind, "not-found");
    assert!(msg.contains("/w/missing"));
    // The root lists the mount point.
    let j = ok(&mut s, "filestore_ls", json!({"details": true}));
    assert_eq!(j["entries"][0]["path"], "/w");
}

#[test]
fn read_pages_large_files_and_special_content() {
    let big: String = (1..=10_000).map(|i| format!("line {i}\n")).collect();
    let long = "y".repeat(100_000);
    let v = MemoryVolume::new();
    v.insert("/big.txt", &big)
        .insert("/long.txt", &long)
        .insert("/empty.txt", "")
        .insert("/bin.dat", b"\x00\x01\x02binary");
    let mut s = session_with("/w", Arc::new(v));
    let mut offset = 1u64;
    let mut lines = 0;
    loop {
        let j = ok(&mut s, "filestore_read", json!({"path": "/w/big.txt", "offset": offset}));
        assert_eq!(j["total_lines"], 10_000);
        lines += j["end_line"].as_u64().unwrap() - j["start_line"].as_u64().unwrap() + 1;
        match j["next_offset"].as_u64() {
            Some(n) => offset = n,
            None => break,
        }
    }
    assert_eq!(lines, 10_000);
    let j = ok(&mut s, "filestore_read", json!({"path": "/w/long.txt"}));
    assert_eq!(j["cut_lines"], 1);
    assert!(j["text"].as_str().unwrap().len() < 2_200);
    let o = s.call("filestore_read", &json!({"path": "/w/empty.txt"})).unwrap();
    assert_eq!(o.json["content"], "empty");
    assert!(o.text.contains("empty"));
    let o = s.call("filestore_read", &json!({"path": "/w/bin.dat"})).unwrap();
    assert_eq!(o.json["content"], "binary");
    assert!(!o.text.contains("binary\u{0}"));
    assert_eq!(err(&mut s, "filestore_read", json!({"path": "/w"})).0, "not-a-file");
}

#[test]
fn tree_renders() {
    let mut s =
        session_with("/w", mem(&[("/src/a.rs", ""), ("/src/b.rs", ""), ("/README.md", "")]));
    let o = s.call("filestore_tree", &json!({"path": "/w"})).unwrap();
    assert_eq!(o.text, "/w/\n├── src/\n│   ├── a.rs\n│   └── b.rs\n└── README.md\n");
}

#[test]
fn tool_specs_depend_on_writability() {
    let mut s = engine().session(vec![MountSpec::new("/w", mem(&[])).read_only()]).unwrap();
    let names: Vec<String> =
        s.tool_specs().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect();
    assert_eq!(
        names,
        ["filestore_ls", "filestore_read", "filestore_glob", "filestore_grep", "filestore_tree"]
    );
    let mut s = session_with("/w", mem(&[]));
    assert_eq!(s.tool_specs().unwrap().len(), 10);
}
