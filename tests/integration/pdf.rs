//! PDFs read as text, page by page, through the real component
//! (docs/architecture.md#pdf-pages): real files in a directory volume, written byte by
//! byte (support/pdf.rs), read with `filestore_read` and its `pages` option; and
//! hostile PDFs — malformed, truncated, a flate bomb, a page tree that contains
//! itself, arrays nested thousands deep — each answered with an error naming the
//! file, the session still serving the next call.
//!
//! Pages without a text layer (scans: an image and nothing else) come back drawn as
//! PNGs, decoded here and looked at: the size the caps give, dark where the scan is
//! dark. The same through `filestore call`, MCP (image content) and the typed
//! `read-pdf`; and hostile pages for the renderer — a page a billion points wide, an
//! image of ten billion pixels, a flate bomb in an image stream, a garbled content
//! stream, a form that draws itself — each bounded or refused alone.

use std::io::Write;

use serde_json::json;

use filestore::MountSpec;

use crate::common::*;
use crate::support::pdf::{
    Page, SCAN_H, SCAN_W, big_scan_pdf, one_page, pdf, scan_pdf, stream, text_pdf,
};

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
    // broken ones say what the parser found.
    let (kind, msg) = err(&mut s, "filestore_read", json!({"path": "/w/bomb.pdf"}));
    assert_eq!(kind, "too-large", "{msg}");
    assert!(msg.contains("/w/bomb.pdf (page 1)") && msg.contains("inflates past"), "{msg}");
    for name in ["garbage", "header-only", "truncated"] {
        let (kind, msg) = err(&mut s, "filestore_read", json!({"path": format!("/w/{name}.pdf")}));
        assert_eq!(kind, "invalid-argument", "{name}: {msg}");
        assert!(msg.contains("not a readable PDF"), "{name}: {msg}");
    }
    // The cycle's tree declares 2 pages and holds none: malformed, not empty.
    let (kind, msg) = err(&mut s, "filestore_read", json!({"path": "/w/cycle.pdf"}));
    assert_eq!(kind, "invalid-argument", "{msg}");
    assert!(msg.contains("declares 2 page(s) and none of them parses"), "{msg}");
    // The nesting is in the catalog, which the parser gives up on: no tree to read.
    let (kind, msg) = err(&mut s, "filestore_read", json!({"path": "/w/nested.pdf"}));
    assert_eq!(kind, "invalid-argument", "{msg}");
    assert!(msg.contains("its page tree cannot be read"), "{msg}");
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

/// A PNG's size and gray pixels (RGB averaged), decoded with the `png` crate.
fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).expect("its pixels");
    let channels = info.color_type.samples();
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let gray = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .map(|p| {
            (p.iter().take(3).map(|&c| u32::from(c)).sum::<u32>() / p.len().min(3) as u32) as u8
        })
        .collect();
    (info.width, info.height, gray)
}

/// The PNG of a page in a JSON read result, decoded.
fn page_png(page: &serde_json::Value) -> (u32, u32, Vec<u8>) {
    use base64::Engine as _;
    let image = &page["image"];
    assert_eq!(image["mime_type"], "image/png", "{page}");
    let data = base64::engine::general_purpose::STANDARD
        .decode(image["data"].as_str().expect("base64 data"))
        .unwrap();
    assert_eq!(image["bytes"], data.len() as u64);
    let decoded = decode_png(&data);
    assert_eq!(
        (image["width"].as_u64(), image["height"].as_u64()),
        (Some(decoded.0.into()), Some(decoded.1.into()))
    );
    decoded
}

/// A drawn [`Page::Scan`]: US Letter at 144 dpi, dark in its top-left quarter
/// (where the scan is black), white in its bottom-right one.
fn assert_scan_drawn(w: u32, h: u32, gray: &[u8]) {
    assert_eq!((w, h), (1224, 1584), "US Letter at 2 pixels a point");
    let at = |x: u32, y: u32| gray[(y * w + x) as usize];
    for (x, y) in [(100, 100), (300, 400), (580, 760)] {
        assert!(at(x, y) < 40, "dark at ({x},{y}): {}", at(x, y));
    }
    for (x, y) in [(900, 1200), (640, 100), (100, 820), (1200, 1500)] {
        assert!(at(x, y) > 215, "light at ({x},{y}): {}", at(x, y));
    }
    let dark = gray.iter().filter(|&&g| g < 128).count() as f64 / gray.len() as f64;
    assert!((0.2..0.3).contains(&dark), "a quarter of the page is dark: {dark}");
}

#[test]
fn a_scanned_page_reads_as_a_png_image() {
    let six = [Page::Scan, Page::Scan, Page::Scan, Page::Scan, Page::Scan, Page::Scan];
    let (_tmp, mut s) = pdf_session(&[
        ("mixed.pdf", scan_pdf(&[Page::Text("Cover page"), Page::Scan, Page::Text("After (it)")])),
        ("six.pdf", scan_pdf(&six)),
        ("notes.txt", b"not a pdf\n".to_vec()),
    ]);
    // Default (render: auto): the page without text is drawn, the others are text.
    let out = s.call("filestore_read", &json!({"path": "/w/mixed.pdf"})).unwrap();
    let pages = out.json["pdf"]["pages"].as_array().unwrap().clone();
    assert_eq!(pages.len(), 3);
    assert!(pages[0].get("image").is_none() && pages[2].get("image").is_none(), "{pages:?}");
    assert_eq!(pages[1]["text"], "");
    let (w, h, gray) = page_png(&pages[1]);
    assert_scan_drawn(w, h, &gray);
    assert!(
        out.text.contains("--- page 2 of 3 ---\n[no text on this page (a scan?): page 2 drawn as image 1 of this answer (1224×1584 PNG"),
        "{}",
        out.text
    );
    assert!(out.text.contains("Cover page") && out.text.contains("After (it)"), "{}", out.text);

    // render: all draws the text pages too (a diagram's layout); none draws nothing.
    let all = ok(&mut s, "filestore_read", json!({"path": "/w/mixed.pdf", "render": "all"}));
    let pages = all["pdf"]["pages"].as_array().unwrap();
    assert!(pages.iter().all(|p| p.get("image").is_some()), "{all}");
    let (w, h, gray) = page_png(&pages[0]);
    assert_eq!((w, h), (1224, 1584));
    assert!(gray.iter().any(|&g| g < 128), "the cover's text is drawn");
    assert!(
        all["text"].as_str().unwrap().contains("Cover page\n[page 1 drawn as image 1"),
        "{all}"
    );
    let none =
        s.call("filestore_read", &json!({"path": "/w/mixed.pdf", "render": "none"})).unwrap();
    assert!(none.json["pdf"]["pages"].as_array().unwrap().iter().all(|p| p.get("image").is_none()));
    assert!(
        none.text.contains("[no text on this page (a scan?); a read of this file alone (path, render \"auto\") draws it"),
        "{}",
        none.text
    );

    // At most 4 images an answer: the fifth page waits for the next read.
    let first = ok(&mut s, "filestore_read", json!({"path": "/w/six.pdf"}));
    assert_eq!(first["pdf"]["pages"].as_array().unwrap().len(), 4);
    assert_eq!(first["pdf"]["next_page"], 5);
    assert_eq!(first["truncated_by"], "pages");
    let rest = ok(&mut s, "filestore_read", json!({"path": "/w/six.pdf", "pages": "5-"}));
    let pages = rest["pdf"]["pages"].as_array().unwrap();
    assert_eq!(pages.len(), 2);
    assert_scan_drawn(page_png(&pages[1]).0, page_png(&pages[1]).1, &page_png(&pages[1]).2);

    // Bad values and misplaced uses name `render`; several files read as text only.
    for args in [
        json!({"path": "/w/mixed.pdf", "render": "images"}),
        json!({"path": "/w/mixed.pdf", "render": true}),
        json!({"path": "/w/notes.txt", "render": "all"}),
        json!({"path": "/w/mixed.pdf", "render": "all", "raw": true}),
        json!({"paths": ["/w/mixed.pdf"], "render": "all"}),
    ] {
        let (kind, msg) = err(&mut s, "filestore_read", args.clone());
        assert_eq!(kind, "invalid-argument", "{args}: {msg}");
        assert!(msg.contains("render"), "{args}: {msg}");
    }
    let many = ok(&mut s, "filestore_read", json!({"paths": ["/w/mixed.pdf", "/w/notes.txt"]}));
    let pages = many["files"][0]["pdf"]["pages"].as_array().unwrap();
    assert!(pages.iter().all(|p| p.get("image").is_none()), "{many}");
}

/// Hostile pages for the renderer: each is drawn within the caps or refused with a
/// typed error naming the page, and the same session reads a good page after each.
#[test]
fn hostile_pages_are_bounded_or_refused_alone() {
    let scan = "q 612 0 0 792 0 0 cm /Im1 Do Q";
    let image = |w: u64, h: u64, data: &[u8]| {
        stream(
            &format!(
                "/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode"
            ),
            data,
        )
    };
    // 64 MiB of zeros for a 5000×5000 image (25 M pixels, within the pixel cap).
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        z.write_all(&zeros).unwrap();
    }
    let bomb = z.finish().unwrap();
    // A form that draws itself, twice each time: hayro stops at its nesting depth.
    let form = stream(
        "/Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /XObject << /F 5 0 R >> >>",
        b"0 0 m 612 792 l S /F Do /F Do",
    );
    let files = [
        (
            "huge-page.pdf",
            one_page(
                "[0 0 1000000000 1000000000]",
                "/XObject << /Im1 5 0 R >>",
                b"q 1000000000 0 0 1000000000 0 0 cm /Im1 Do Q",
                &[image(SCAN_W as u64, SCAN_H as u64, &crate::support::pdf::scan_pixels())],
            ),
        ),
        (
            "huge-image.pdf",
            one_page(
                "[0 0 612 792]",
                "/XObject << /Im1 5 0 R >>",
                scan.as_bytes(),
                &[image(100_000, 100_000, b"x")],
            ),
        ),
        (
            "image-bomb.pdf",
            one_page(
                "[0 0 612 792]",
                "/XObject << /Im1 5 0 R >>",
                scan.as_bytes(),
                &[image(5000, 5000, &bomb)],
            ),
        ),
        (
            "garbled.pdf",
            one_page(
                "[0 0 612 792]",
                "",
                b"q 1 0 0 cm ] [[ /Nope Do 1 2 3 4 re f BT Tj ET << >> 9e999 0 0 l S Q Q Q",
                &[],
            ),
        ),
        ("recursive.pdf", one_page("[0 0 612 792]", "/XObject << /F 5 0 R >>", b"/F Do", &[form])),
        ("zero-page.pdf", one_page("[0 0 0 0]", "", b"", &[])),
        ("good.pdf", scan_pdf(&[Page::Scan])),
    ];
    let files: Vec<(&str, Vec<u8>)> = files.into_iter().collect();
    let (_tmp, mut s) = pdf_session(&files);
    let good = |s: &mut filestore::Session, after: &str| {
        let out = ok(s, "filestore_read", json!({"path": "/w/good.pdf"}));
        let (w, h, gray) = page_png(&out["pdf"]["pages"][0]);
        assert_scan_drawn(w, h, &gray);
        assert!(!s.is_poisoned(), "after {after}");
    };
    // Drawn, within the caps: a page of any size; a garbled one draws what it can
    // (or, if the text extractor refuses its content, is an error naming the file).
    for name in ["huge-page", "garbled"] {
        let path = format!("/w/{name}.pdf");
        match s.call("filestore_read", &json!({"path": path})) {
            Ok(out) => {
                let (w, h, gray) = page_png(&out.json["pdf"]["pages"][0]);
                assert!(
                    w <= 1600 && h <= 1600 && u64::from(w) * u64::from(h) <= 2_000_000,
                    "{name}: {w}×{h}"
                );
                assert_eq!(gray.len() as u64, u64::from(w) * u64::from(h));
            }
            Err(e) => {
                assert_eq!(e.kind_name(), "invalid-argument", "{name}: {e}");
                assert!(name == "garbled" && e.to_string().contains(&path), "{name}: {e}");
            }
        }
        good(&mut s, name);
    }
    // Refused as too large, naming the page and what was over; a form that draws
    // itself twice (2^50 draws at hayro's depth) is refused before drawing.
    for (name, why) in [
        ("huge-image", "100000×100000 pixels"),
        ("image-bomb", "inflates past"),
        ("recursive", "draws itself"),
    ] {
        let (kind, msg) = err(&mut s, "filestore_read", json!({"path": format!("/w/{name}.pdf")}));
        assert_eq!(kind, "too-large", "{name}: {msg}");
        assert!(
            msg.contains(&format!("/w/{name}.pdf (page 1)")) && msg.contains(why),
            "{name}: {msg}"
        );
        good(&mut s, name);
    }
    // A page whose MediaBox has no area is drawn at the renderer's default size (A4,
    // hayro's fallback; poppler falls back to Letter): blank, bounded, not an error.
    let out = ok(&mut s, "filestore_read", json!({"path": "/w/zero-page.pdf"}));
    let image = &out["pdf"]["pages"][0]["image"];
    assert!(image["width"].as_u64().unwrap() <= 1600 && image["height"] == 1600, "{image}");
    good(&mut s, "zero-page");
}

/// The sandbox's memory cap holds for the renderer too: a session capped below what
/// drawing a page needs fails that call as `limit-exceeded` (memory), typed, without
/// a backtrace, and the host goes on. The largest scan the caps let through (a 600
/// dpi US Letter page, 1 bit per pixel; an 8-bit one of 32 MiB) is drawn within the
/// default cap.
#[test]
fn drawing_within_and_past_the_memory_cap() {
    let (_tmp, mut s) = pdf_session(&[
        ("bitonal-600dpi.pdf", big_scan_pdf(5100, 6600, 1)),
        ("gray-32mib.pdf", big_scan_pdf(5790, 5790, 8)),
    ]);
    for name in ["bitonal-600dpi", "gray-32mib"] {
        let out = ok(&mut s, "filestore_read", json!({"path": format!("/w/{name}.pdf")}));
        let (w, h, gray) = page_png(&out["pdf"]["pages"][0]);
        assert_scan_drawn(w, h, &gray);
    }
    const CAP: usize = 24 * 1024 * 1024;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("scan.pdf"), big_scan_pdf(5790, 5790, 8)).unwrap();
    let mut capped = engine()
        .session_with(
            vec![MountSpec::new("/w", dir(tmp.path(), true))],
            filestore::SessionOptions { memory_bytes: Some(CAP), ..Default::default() },
        )
        .unwrap();
    // The cap leaves room for the session and a text read of the same file: what
    // does not fit is the drawing (the 32 MiB image decoded).
    let text = capped.call("filestore_read", &json!({"path": "/w/scan.pdf", "render": "none"}));
    assert_eq!(text.expect("a text read fits the cap").json["content"], "pdf");
    let e =
        capped.call("filestore_read", &json!({"path": "/w/scan.pdf"})).expect_err("over the cap");
    assert_eq!(e.sandbox_limit(), Some(filestore::SandboxLimit::Memory), "{e}");
    assert!(!e.to_string().contains("wasm backtrace"), "{e}");
    let after =
        ok(&mut s, "filestore_read", json!({"path": "/w/gray-32mib.pdf", "render": "none"}));
    assert_eq!(after["content"], "pdf", "the other session goes on");
}

/// The edges a user met: a page so long its short side is under a pixel at 1600
/// pixels, a page object the parser cannot read, a page that cannot be drawn among
/// pages that can, and `render: "auto"` (the schema's default, which clients fill
/// in) on files without pages and with `paths`.
#[test]
fn page_edges_and_the_render_default() {
    let scan = "q 612 0 0 792 0 0 cm /Im1 Do Q";
    let huge_image = stream(
        "/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceGray /BitsPerComponent 8",
        b"x",
    );
    let nested = format!("[0 0 612 792] /Foo {}1{}", "<< /A ".repeat(50_000), " >>".repeat(50_000));
    let (_tmp, mut s) = pdf_session(&[
        ("wide.pdf", one_page("[0 0 1000000000 792]", "", b"1 0 0 rg 10 10 200 200 re f", &[])),
        ("nested.pdf", one_page(&nested, "", b"", &[])),
        (
            "huge-image.pdf",
            one_page("[0 0 612 792]", "/XObject << /Im1 5 0 R >>", scan.as_bytes(), &[huge_image]),
        ),
        ("mixed.pdf", scan_pdf(&[Page::Text("Cover page"), Page::Scan])),
        ("notes.txt", b"text\n".to_vec()),
    ]);
    let (kind, msg) =
        err(&mut s, "filestore_read", json!({"path": "/w/wide.pdf", "render": "all"}));
    assert_eq!(kind, "invalid-argument", "{msg}");
    assert!(msg.contains("/w/wide.pdf (page 1)") && msg.contains("under one pixel"), "{msg}");
    let (kind, msg) = err(&mut s, "filestore_read", json!({"path": "/w/nested.pdf"}));
    assert_eq!(kind, "invalid-argument", "{msg}");
    assert!(
        msg.contains("/w/nested.pdf") && msg.contains("declares 1 page(s) and none of them parses"),
        "{msg}"
    );
    let (kind, msg) = err(&mut s, "filestore_read", json!({"path": "/w/huge-image.pdf"}));
    assert_eq!(kind, "too-large", "{msg}");
    assert!(
        msg.contains("image object 5 0 R is 100000×100000") && msg.contains("render \"none\""),
        "{msg}"
    );
    assert!(!msg.contains("ObjectIdentifier"), "{msg}");
    // "auto" is accepted wherever leaving render out is.
    let out = ok(&mut s, "filestore_read", json!({"path": "/w/notes.txt", "render": "auto"}));
    assert!(out["text"].as_str().unwrap().contains("text"), "{out}");
    let out = ok(
        &mut s,
        "filestore_read",
        json!({"paths": ["/w/notes.txt", "/w/mixed.pdf"], "render": "auto"}),
    );
    let files = out["files"].as_array().unwrap();
    assert!(files[1]["pdf"]["pages"][1]["image"].is_null(), "{out}");
    assert!(files[1]["text"].as_str().unwrap().contains("a read of this file alone"), "{out}");
    let (kind, msg) =
        err(&mut s, "filestore_read", json!({"paths": ["/w/mixed.pdf"], "render": "all"}));
    assert_eq!(kind, "invalid-argument", "{msg}");
    let (kind, msg) =
        err(&mut s, "filestore_read", json!({"path": "/w/notes.txt", "render": "all"}));
    assert_eq!(kind, "invalid-argument", "{msg}");
}

/// The typed `read-pdf` (WIT 0.9.0) returns the pages and the PNG bytes themselves,
/// as the JSON tool does; a file that is not a PDF is refused.
#[test]
fn the_typed_read_pdf_returns_page_images() {
    use filestore::wit::exports::filestore::component::filestore as fs;
    let (_tmp, mut s) = pdf_session(&[
        ("mixed.pdf", scan_pdf(&[Page::Text("Cover page"), Page::Scan])),
        ("notes.txt", b"text\n".to_vec()),
    ]);
    let req = fs::ReadPdfRequest { path: "/w/mixed.pdf".into(), pages: None, render: None };
    let r = s.with_typed(|st, f, h| f.call_read_pdf(st, h, &req)).unwrap();
    assert_eq!((r.page_count, r.pages.len(), r.next_page), (2, 2, None));
    assert_eq!(r.pages[0].text, "Cover page");
    assert!(r.pages[0].image.is_none());
    let image = r.pages[1].image.as_ref().expect("the scan drawn");
    assert_eq!(image.mime_type, "image/png");
    let (w, h, gray) = decode_png(&image.data);
    assert_eq!((image.width, image.height), (w, h));
    assert_scan_drawn(w, h, &gray);
    let json = ok(&mut s, "filestore_read", json!({"path": "/w/mixed.pdf"}));
    assert_eq!(r.text, json["text"].as_str().unwrap(), "the same text as the JSON tool");

    let req = fs::ReadPdfRequest {
        path: "/w/mixed.pdf".into(),
        pages: Some("1".into()),
        render: Some(fs::PdfRender::All),
    };
    let r = s.with_typed(|st, f, h| f.call_read_pdf(st, h, &req)).unwrap();
    assert_eq!(r.pages.len(), 1);
    assert!(r.pages[0].image.is_some());
    let req = fs::ReadPdfRequest { path: "/w/notes.txt".into(), pages: None, render: None };
    let e = s.with_typed(|st, f, h| f.call_read_pdf(st, h, &req)).unwrap_err();
    assert_eq!(e.kind_name(), "invalid-argument", "{e}");
    assert!(e.to_string().contains("/w/notes.txt") && e.to_string().contains("not a PDF"), "{e}");
    // The typed `read` has no place for images: a scan says it has no text.
    let req = fs::ReadRequest {
        path: "/w/mixed.pdf".into(),
        offset: None,
        limit: None,
        raw: None,
        tail: None,
    };
    let r = s.with_typed(|st, f, h| f.call_read(st, h, &req)).unwrap();
    assert!(
        r.text.contains("[no text on this page (a scan?); a read of this file alone"),
        "{}",
        r.text
    );
}

/// Through the binary: `filestore call` prints the JSON with the PNG in base64, and
/// `--text` the page's note and where the image is.
#[test]
fn filestore_call_prints_page_images() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("s.pdf"), scan_pdf(&[Page::Text("one"), Page::Scan])).unwrap();
    let mount = format!("/w={}:ro", tmp.path().display());
    let call = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
            .args(["call", "filestore_read", r#"{"path":"/w/s.pdf"}"#, "--mount", &mount])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = call(&[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (w, h, gray) = page_png(&j["pdf"]["pages"][1]);
    assert_scan_drawn(w, h, &gray);
    let out = call(&["--text"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("page 2 drawn as image 1 of this answer (1224×1584 PNG"), "{text}");
    assert!(text.contains("run without --text to get them"), "{text}");
}

/// Through MCP (`filestore serve` over stdio): the drawn page arrives as `image`
/// content with mimeType image/png after the text, and the structured content keeps
/// the image's size but not its base64.
#[test]
fn mcp_answers_page_images_as_image_content() {
    use base64::Engine as _;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("s.pdf"),
        scan_pdf(&[Page::Text("one"), Page::Scan, Page::Scan]),
    )
    .unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_filestore"));
    command.args(["serve", "--mount", &format!("/w={}:ro", tmp.path().display())]);
    let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(command);
    let r = client.call_tool("filestore_read", json!({"path": "/w/s.pdf"}));
    assert_ne!(r["isError"], true, "{r}");
    let content = r["content"].as_array().unwrap();
    assert_eq!(content.len(), 3, "the text, then two images: {r}");
    assert_eq!(content[0]["type"], "text");
    assert!(content[0]["text"].as_str().unwrap().contains("page 3 drawn as image 2"), "{r}");
    for block in &content[1..] {
        assert_eq!(
            (block["type"].as_str(), block["mimeType"].as_str()),
            (Some("image"), Some("image/png"))
        );
        let png = base64::engine::general_purpose::STANDARD
            .decode(block["data"].as_str().unwrap())
            .unwrap();
        let (w, h, gray) = decode_png(&png);
        assert_scan_drawn(w, h, &gray);
    }
    let image = &r["structuredContent"]["pdf"]["pages"][1]["image"];
    assert_eq!(
        (image["width"].as_u64(), image["height"].as_u64()),
        (Some(1224), Some(1584)),
        "{r}"
    );
    assert!(image.get("data").is_none(), "the base64 travels once: {image}");
    // A bad render is a tool error naming the parameter; the session goes on.
    let r = client.call_tool("filestore_read", json!({"path": "/w/s.pdf", "render": "bogus"}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(r["content"][0]["text"].as_str().unwrap().contains("render"), "{r}");
    let r = client.call_tool("filestore_read", json!({"path": "/w/s.pdf", "pages": "1"}));
    assert_eq!(r["content"].as_array().unwrap().len(), 1, "a text page: text only: {r}");
    let (status, _) = client.close();
    assert!(status.success() || status.code().is_none());
}
