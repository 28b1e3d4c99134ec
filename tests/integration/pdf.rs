//! PDFs read as text, page by page, through the real component (issue 40, item 4;
//! docs/architecture.md#pdf-pages): real files in a directory volume, written byte by
//! byte (support/pdf.rs), read with `filestore_read` and its `pages` option; and
//! hostile PDFs — malformed, truncated, a flate bomb, a page tree that contains
//! itself, arrays nested thousands deep — each answered with an error naming the
//! file, the session still serving the next call.

use std::io::Write;

use serde_json::json;

use crate::common::*;
use crate::support::pdf::{pdf, stream, text_pdf};

fn pdf_session(files: &[(&str, Vec<u8>)]) -> (tempfile::TempDir, filestore::Session) {
    let tmp = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        std::fs::write(tmp.path().join(name), bytes).unwrap();
    }
    let s = session_with("/w", dir(tmp.path(), true));
    (tmp, s)
}

#[test]
fn a_pdf_reads_as_text_page_by_page() {
    let pages: Vec<String> = (1..=30).map(|n| format!("Page {n} title\nline two of {n}")).collect();
    let refs: Vec<&str> = pages.iter().map(String::as_str).collect();
    let mut with_blank = vec!["Cover (1)", ""];
    with_blank.push("After (the) blank");
    let (_tmp, mut s) = pdf_session(&[
        ("report.pdf", text_pdf(&refs)),
        ("scan.pdf", text_pdf(&with_blank)),
        ("notes.txt", b"not a pdf\n".to_vec()),
    ]);

    // From page 1, at most 20 pages, and where to go on.
    let out = s.call("filestore_read", &json!({"path": "/w/report.pdf"})).unwrap();
    assert_eq!(out.json["content"], "pdf", "{}", out.json);
    let pdf = &out.json["pdf"];
    assert_eq!(pdf["page_count"], 30);
    assert_eq!(pdf["pages"].as_array().unwrap().len(), 20);
    assert_eq!(pdf["next_page"], 21);
    assert_eq!(out.json["truncated_by"], "pages");
    let first = pdf["pages"][0]["text"].as_str().unwrap();
    assert!(first.contains("Page 1 title") && first.contains("line two of 1"), "{first}");
    assert!(out.text.starts_with("--- page 1 of 30 ---\n"), "{}", out.text);
    assert!(out.text.contains("[more pages: continue with pages: \"21-\"]"), "{}", out.text);

    // A selection: ranges, lists, open ends.
    let out = s.call("filestore_read", &json!({"path": "/w/report.pdf", "pages": "21-"})).unwrap();
    let got: Vec<u64> = out.json["pdf"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["page"].as_u64().unwrap())
        .collect();
    assert_eq!(got, (21..=30).collect::<Vec<u64>>());
    assert!(out.json["pdf"].get("next_page").is_none());
    let out =
        s.call("filestore_read", &json!({"path": "/w/report.pdf", "pages": "3,7-8"})).unwrap();
    assert!(out.text.contains("--- page 7 of 30 ---\nPage 7 title"), "{}", out.text);
    assert_eq!(out.json["pdf"]["pages"].as_array().unwrap().len(), 3);

    // A page without text says so; parentheses in text survive.
    let out = s.call("filestore_read", &json!({"path": "/w/scan.pdf"})).unwrap();
    assert!(
        out.text.contains("Cover (1)") && out.text.contains("After (the) blank"),
        "{}",
        out.text
    );
    assert!(out.text.contains("--- page 2 of 3 ---\n[no text on this page"), "{}", out.text);

    // Bad selections and options name their parameter; a text file has no pages.
    for (args, param) in [
        (json!({"path": "/w/report.pdf", "pages": "31"}), "pages"),
        (json!({"path": "/w/report.pdf", "pages": "0-2"}), "pages"),
        (json!({"path": "/w/report.pdf", "pages": "5-2"}), "pages"),
        (json!({"path": "/w/report.pdf", "offset": 3}), "offset"),
        (json!({"path": "/w/report.pdf", "pages": "1", "tail": 3}), "pages"),
        (json!({"path": "/w/notes.txt", "pages": "1"}), "pages"),
    ] {
        let (kind, msg) = err(&mut s, "filestore_read", args.clone());
        assert_eq!(kind, "invalid-argument", "{args}: {msg}");
        assert!(msg.contains(param), "{args}: {msg}");
    }
    // Its bytes are still there as bytes, and raw is untouched.
    let b = ok(
        &mut s,
        "filestore_read",
        json!({"path": "/w/report.pdf", "encoding": "base64", "max_bytes": 8}),
    );
    assert_eq!(b["text"], "JVBERi0xLjc=", "the first 8 bytes, %PDF-1.7");
    // Several files at once: the PDF among them reads as pages.
    let many = ok(&mut s, "filestore_read", json!({"paths": ["/w/notes.txt", "/w/scan.pdf"]}));
    assert_eq!(many["files"][1]["content"], "pdf", "{many}");
}

/// Hostile PDFs: every one is an error naming the file (or, for a parser that runs
/// away, the session's limit), never a crash of the host, and the session answers
/// the next call.
#[test]
fn hostile_pdfs_fail_alone() {
    // A flate bomb: 64 MB of zeros in a page's content stream, a few KB compressed.
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        z.write_all(&zeros).unwrap();
    }
    let bomb = z.finish().unwrap();
    let page = |contents: &str| {
        format!("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {contents} >>")
            .into_bytes()
    };
    let flate_bomb = pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        page("4 0 R"),
        stream("/Filter /FlateDecode", &bomb),
    ]);
    // A page tree whose Kids name the tree itself (and a page naming it as a kid).
    let cycle = pdf(&[
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>".to_vec(),
        b"<< /Type /Pages /Kids [2 0 R] /Count 1 >>".to_vec(),
    ]);
    // Arrays nested 100,000 deep in the catalog.
    let mut deep = b"<< /Type /Catalog /Pages 2 0 R /X ".to_vec();
    deep.extend(std::iter::repeat_n(b'[', 100_000));
    deep.extend(std::iter::repeat_n(b']', 100_000));
    deep.extend_from_slice(b" >>");
    let nested = pdf(&[deep, b"<< /Type /Pages /Kids [] /Count 0 >>".to_vec()]);
    let good = text_pdf(&["still fine"]);
    let truncated = good[..good.len() / 2].to_vec();
    let (_tmp, mut s) = pdf_session(&[
        ("garbage.pdf", b"%PDF-1.7\n\x00\x01 this is no PDF at all \xff\xfe".to_vec()),
        ("header-only.pdf", b"%PDF-".to_vec()),
        ("truncated.pdf", truncated),
        ("bomb.pdf", flate_bomb),
        ("cycle.pdf", cycle),
        ("nested.pdf", nested),
        ("good.pdf", good),
    ]);
    for name in ["garbage", "header-only", "truncated", "bomb", "cycle", "nested"] {
        let path = format!("/w/{name}.pdf");
        let answer = s.call("filestore_read", &json!({"path": path}));
        match answer {
            Err(e) => {
                let msg = e.to_string();
                let kind = e.kind_name();
                assert!(
                    msg.contains(&path) || kind == "limit-exceeded",
                    "{name}: an error names the file or the limit: {kind}: {msg}"
                );
            }
            // A lenient parser may recover some structure; then it must say what it
            // found, not invent pages.
            Ok(out) => {
                assert_eq!(out.json["content"], "pdf", "{name}: {}", out.json);
                let pages = out.json["pdf"]["pages"].as_array().unwrap();
                assert!(
                    pages.iter().all(|p| !p["text"].as_str().unwrap().contains("still fine")
                        || name == "truncated"),
                    "{name}: {}",
                    out.json
                );
            }
        }
        let after = ok(&mut s, "filestore_read", json!({"path": "/w/good.pdf"}));
        assert!(after["text"].as_str().unwrap().contains("still fine"), "after {name}: {after}");
    }
    // The bomb in particular is refused by size, not by running out of memory; the
    // broken ones say what the parser found; the cycle and the nesting have no pages.
    let (kind, msg) = err(&mut s, "filestore_read", json!({"path": "/w/bomb.pdf"}));
    assert_eq!(kind, "too-large", "{msg}");
    assert!(msg.contains("/w/bomb.pdf (page 1)") && msg.contains("inflates past"), "{msg}");
    for name in ["garbage", "header-only", "truncated"] {
        let (kind, msg) = err(&mut s, "filestore_read", json!({"path": format!("/w/{name}.pdf")}));
        assert_eq!(kind, "invalid-argument", "{name}: {msg}");
        assert!(msg.contains("not a readable PDF"), "{name}: {msg}");
    }
    for name in ["cycle", "nested"] {
        let out = ok(&mut s, "filestore_read", json!({"path": format!("/w/{name}.pdf")}));
        assert_eq!(out["pdf"]["page_count"], 0, "{name}: {out}");
    }
}

/// The same through the binary: `filestore call filestore_read` with `pages` over a
/// real directory prints the selected page, and a bad selection exits 1 naming it.
#[test]
fn filestore_call_reads_pdf_pages() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("r.pdf"), text_pdf(&["one", "two", "three"])).unwrap();
    let mount = format!("/w={}:ro", tmp.path().display());
    let call = |args: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
            .args(["call", "filestore_read", args, "--mount", &mount])
            .output()
            .unwrap()
    };
    let out = call(r#"{"path":"/w/r.pdf","pages":"2"}"#);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["text"], "--- page 2 of 3 ---\ntwo\n", "{j}");
    let out = call(r#"{"path":"/w/r.pdf","pages":"9"}"#);
    assert_eq!(out.status.code(), Some(1));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("error[invalid-argument]") && e.contains("pages"), "{e}");
}
