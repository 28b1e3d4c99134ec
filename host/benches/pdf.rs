//! PDF pages drawn as PNG images in the component (docs/architecture.md#pdf-pages)
//! against two baselines in the same run: the same page read as text only
//! (`render: "none"`, what a read cost before pages were drawn), and poppler's
//! `pdftoppm -r 144 -png` (native C++, the same 144 dpi; Debian's `poppler-utils`,
//! timed as a process as a user would run it) on the same file.
//!
//! Pages: a scanned US Letter page (an image and no text layer) at 200×260 and at
//! 600 dpi (5100×6600, 1 bit), and page 1 of a real document: Debian's
//! `libtasn1-doc` manual (`/usr/share/doc/libtasn1-doc/libtasn1.pdf`, or
//! `FILESTORE_BENCH_PDF`). Also prints the component's size.
//!
//! ```sh
//! apt-get install poppler-utils libtasn1-doc
//! cargo bench -p filestore --bench pdf
//! ```

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use filestore::component;
use filestore::volumes::dir::DirVolume;
use filestore::{MountSpec, Session};
use serde_json::json;

#[path = "../../tests/integration/support/mod.rs"]
#[allow(dead_code)]
mod support;
#[path = "timing/mod.rs"]
mod timing;

use support::pdf::{Page, big_scan_pdf, scan_pdf};
use timing::{median_us, us};

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let manual = std::env::var_os("FILESTORE_BENCH_PDF")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/share/doc/libtasn1-doc/libtasn1.pdf".into());
    let manual = std::fs::read(&manual).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; install it (apt-get install libtasn1-doc) or set FILESTORE_BENCH_PDF",
            manual.display()
        )
    });
    let files = [
        ("scan.pdf", scan_pdf(&[Page::Scan])),
        ("scan-600dpi.pdf", big_scan_pdf(5100, 6600, 1)),
        ("manual.pdf", manual),
    ];
    for (name, bytes) in &files {
        std::fs::write(tmp.path().join(name), bytes).unwrap();
    }
    let engine = filestore::new_engine().expect("engine");
    let vol = Arc::new(DirVolume::open(tmp.path(), true).expect("dir volume"));
    let mut s = engine.session(vec![MountSpec::new("/w", vol)]).expect("session");

    println!(
        "| page | drawn (filestore) | text only (filestore) | ratio | pdftoppm -r 144 | ratio |"
    );
    println!("|---|---|---|---|---|---|");
    for (name, what, n) in [
        ("scan.pdf", "scanned page, 200×260 image", 20),
        ("scan-600dpi.pdf", "scanned page, 600 dpi (5100×6600, 1 bit)", 5),
        ("manual.pdf", "libtasn1 manual, page 1 (text)", 20),
    ] {
        let path = format!("/w/{name}");
        let drawn = median_us(2, n, || read(&mut s, &path, "all"));
        let text = median_us(2, n, || read(&mut s, &path, "none"));
        let poppler = median_us(2, n, || pdftoppm(&tmp.path().join(name), tmp.path()));
        println!(
            "| {what} | {} | {} | {:.1}× | {} | {:.2}× |",
            us(drawn),
            us(text),
            drawn / text,
            us(poppler),
            drawn / poppler
        );
    }
    println!(
        "\ncomponent: {:.1} MB (release, embedded in this build)",
        component().len() as f64 / 1e6
    );
}

/// Page 1 of `path`, drawn or not.
fn read(s: &mut Session, path: &str, render: &str) {
    let out = s
        .call("filestore_read", &json!({"path": path, "pages": "1", "render": render}))
        .expect("read");
    assert_eq!(out.json["pdf"]["pages"][0].get("image").is_some(), render == "all");
    black_box(out);
}

/// Page 1 of `pdf` drawn by poppler at 144 dpi into `out`.
fn pdftoppm(pdf: &Path, out: &Path) {
    let status = Command::new("pdftoppm")
        .args(["-r", "144", "-png", "-f", "1", "-l", "1", "-singlefile"])
        .arg(pdf)
        .arg(out.join("poppler"))
        .status()
        .unwrap_or_else(|e| panic!("pdftoppm: {e}; install it: apt-get install poppler-utils"));
    assert!(status.success());
}
