//! PDF files read as text, page by page (docs/architecture.md#pdf-pages): what Eino's
//! multimodal reader gives an agent, extracted inside the sandbox by `lopdf` (a
//! maintained pure-Rust PDF library: no native code, nothing the component could not
//! run), so a hostile PDF meets the same fuel, deadline and memory cap as any call.
//!
//! `filestore_read` of a file starting `%PDF-` answers its pages' text, each headed
//! `--- page N of M ---`, from the first page (or the `pages` the request names,
//! `"3"`, `"2-5"`, `"1,4-6"`), as many as fit [`MAX_PAGES_PER_READ`] and the session's
//! read budget; `next_page` says where to go on. Limits, because a PDF is a program of
//! sorts: the file at most [`MAX_PDF_BYTES`], every stream's inflated size at most
//! [`MAX_STREAM_BYTES`] (a flate bomb fails as `too-large`, never as memory), each
//! page's text at most [`MAX_PAGE_CHARS`] characters. A malformed or encrypted PDF is
//! an error naming the file and what the parser said.
//!
//! A page without a text layer (a scan) is drawn as a PNG image instead
//! ([`super::pdf_render`]), at most [`super::pdf_render::MAX_IMAGES_PER_READ`] a read;
//! `render: "all"` draws every page read (its text too), `render: "none"` none.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

#[cfg(feature = "runtime")]
use super::pdf_render::{MAX_IMAGES_PER_READ, Renderer};
use super::pdf_render::{PageImage, RenderMode};
use crate::error::{Error, ErrorKind, Result};

/// Largest PDF read, bytes.
pub const MAX_PDF_BYTES: u64 = 64 * 1024 * 1024;
/// Largest size one stream of a PDF may inflate to, bytes.
pub const MAX_STREAM_BYTES: usize = 32 * 1024 * 1024;
/// Most pages in one read.
pub const MAX_PAGES_PER_READ: usize = 20;
/// Most characters of one page's text; the rest is cut with a marker.
pub const MAX_PAGE_CHARS: usize = 100_000;
/// Most pages a `pages` selection may name (it is expanded before reading).
const MAX_SELECTED_PAGES: usize = 100_000;

/// Whether a file's first bytes are a PDF's header.
pub fn is_pdf(head: &[u8]) -> bool {
    head.starts_with(b"%PDF-")
}

/// The pages of one PDF read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PdfPages {
    /// Pages in the document.
    pub page_count: u32,
    /// The pages read, in order.
    pub pages: Vec<PdfPage>,
    /// The next page to read, when the selection goes on past this answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_page: Option<u32>,
}

/// One page's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PdfPage {
    /// Its number, from 1.
    pub page: u32,
    /// Its text as extracted (empty when it has none).
    pub text: String,
    /// The text was cut at [`MAX_PAGE_CHARS`].
    #[serde(skip_serializing_if = "std::ops::Not::not", default)]
    pub truncated: bool,
    /// The page drawn as a PNG: when it has no text (`render: "auto"`, the default)
    /// or every page (`render: "all"`).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub image: Option<PageImage>,
}

/// Parses a `pages` selection (`"3"`, `"2-5"`, `"1,4-6"`, `"7-"` to the end) against
/// a document of `count` pages; the pages in order, each once.
pub fn select(spec: &str, count: u32) -> Result<Vec<u32>> {
    let bad = |why: String| Error::invalid_argument("pages", why);
    let mut out: Vec<u32> = Vec::new();
    for part in spec.split(',').map(str::trim) {
        let number = |s: &str| -> Result<u32> {
            match s.trim().parse::<u32>() {
                Ok(n) if n >= 1 => Ok(n),
                _ => Err(bad(format!("'{part}' in \"{spec}\": pages are numbered from 1"))),
            }
        };
        let (from, to) = match part.split_once('-') {
            Some((a, "")) => (number(a)?, count.max(1)),
            Some((a, b)) => (number(a)?, number(b)?),
            None => (number(part)?, number(part)?),
        };
        if from > to {
            return Err(bad(format!("'{part}' in \"{spec}\" runs backwards")));
        }
        if from > count {
            return Err(bad(format!("page {from} of \"{spec}\": the document has {count} pages")));
        }
        for p in from..=to.min(count) {
            if out.len() >= MAX_SELECTED_PAGES {
                return Err(bad(format!("\"{spec}\" names more than {MAX_SELECTED_PAGES} pages")));
            }
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    Ok(out)
}

/// The page count the catalog's page tree declares (`/Pages /Count`), if readable.
#[cfg(feature = "runtime")]
fn declared_pages(doc: &lopdf::Document) -> Option<i64> {
    let pages = doc.catalog().ok()?.get(b"Pages").ok()?.as_reference().ok()?;
    doc.get_dictionary(pages).ok()?.get(b"Count").ok()?.as_i64().ok()
}

/// Without the component's runtime (a native host sharing these types) there is no
/// PDF parser: reading a PDF is `unsupported`, naming the file.
#[cfg(not(feature = "runtime"))]
pub fn extract(
    path: &str,
    _bytes: Arc<Vec<u8>>,
    _spec: Option<&str>,
    _budget_chars: usize,
    _render: RenderMode,
) -> Result<PdfPages> {
    Err(Error::at(
        ErrorKind::Unsupported,
        path,
        "this build of filestore-guest has no PDF reader (its `runtime` feature is off)",
    ))
}

/// Extracts the text of the pages `spec` selects (the first pages when `None`) from
/// the PDF `bytes` at `path`, at most [`MAX_PAGES_PER_READ`] pages and `budget_chars`
/// characters in all (at least one page is always returned), drawing the pages
/// `render` asks for as images, at most [`MAX_IMAGES_PER_READ`] of them.
#[cfg(feature = "runtime")]
pub fn extract(
    path: &str,
    bytes: Arc<Vec<u8>>,
    spec: Option<&str>,
    budget_chars: usize,
    render: RenderMode,
) -> Result<PdfPages> {
    let options =
        lopdf::LoadOptions { max_decompressed_size: Some(MAX_STREAM_BYTES), ..Default::default() };
    let doc = lopdf::Document::load_mem_with_options(&bytes, options)
        .map_err(|e| parse_error(path, &e))?;
    if doc.is_encrypted() {
        return Err(Error::at(
            ErrorKind::Unsupported,
            path,
            "the PDF is encrypted; filestore reads no password-protected PDF",
        ));
    }
    let page_count = doc.get_pages().len() as u32;
    if page_count == 0 {
        // lopdf leaves out a page object it cannot parse: a page tree that declares
        // pages none of which came through is a malformed PDF, not an empty one.
        return match declared_pages(&doc) {
            Some(0) => Ok(PdfPages { page_count, pages: Vec::new(), next_page: None }),
            declared => Err(Error::at(
                ErrorKind::InvalidArgument,
                path,
                match declared {
                    Some(n) => format!(
                        "not a readable PDF: its page tree declares {n} page(s) and none of them parses"
                    ),
                    None => "not a readable PDF: its page tree cannot be read".to_string(),
                },
            )),
        };
    }
    let wanted = match spec {
        Some(s) => select(s, page_count)?,
        None => (1..=page_count).collect(),
    };
    // Opened when a page first needs drawing: a text PDF never parses twice.
    let mut renderer: Option<Renderer> = None;
    let mut pages = Vec::new();
    let mut used = 0usize;
    let mut images = 0usize;
    let mut next_page = None;
    for &n in &wanted {
        if pages.len() >= MAX_PAGES_PER_READ || (!pages.is_empty() && used >= budget_chars) {
            next_page = Some(n);
            break;
        }
        let text = doc
            .extract_text_with_limit(&[n], MAX_STREAM_BYTES)
            .map_err(|e| parse_error(&format!("{path} (page {n})"), &e))?;
        let (text, truncated) = cut(text.trim_end(), MAX_PAGE_CHARS);
        let draw = match render {
            RenderMode::All => true,
            RenderMode::Auto => text.trim().is_empty(),
            RenderMode::None => false,
        };
        let image = if draw {
            if images >= MAX_IMAGES_PER_READ {
                next_page = Some(n);
                break;
            }
            let r = match &mut renderer {
                Some(r) => r,
                None => renderer.insert(Renderer::open(path, bytes.clone())?),
            };
            images += 1;
            // One page that cannot be drawn fails the read (a partial answer would
            // hide it); the message says how to read around it.
            Some(r.render(path, n).map_err(|e| {
                let hint = format!(
                    "; render \"none\" reads this page's text, and pages without {n} the others"
                );
                Error::at(e.kind(), e.path().unwrap_or(path), format!("{}{hint}", e.message()))
            })?)
        } else {
            None
        };
        used += text.chars().count();
        pages.push(PdfPage { page: n, text, truncated, image });
    }
    Ok(PdfPages { page_count, pages, next_page })
}

/// `text` cut to `max` characters; whether it was.
fn cut(text: &str, max: usize) -> (String, bool) {
    match text.char_indices().nth(max) {
        Some((at, _)) => (text[..at].to_string(), true),
        None => (text.to_string(), false),
    }
}

/// A parser error as the reader's: an inflated stream over the limit is `too-large`,
/// anything else the PDF's fault (`invalid-argument`), naming the file.
#[cfg(feature = "runtime")]
fn parse_error(path: &str, e: &lopdf::Error) -> Error {
    if let lopdf::Error::Decompress(lopdf::DecompressError::MemoryLimitExceeded { limit }) = e {
        return Error::at(
            ErrorKind::TooLarge,
            path,
            format!(
                "a stream of the PDF, or a page's content streams joined, inflates past {limit} bytes (a decompression bomb?); pages and render \"none\" read the other pages"
            ),
        );
    }
    let detail = match e {
        // The wrapper says only "couldn't decompress stream": name why.
        lopdf::Error::Decompress(d) => format!("{e}: {d}"),
        _ => e.to_string(),
    };
    Error::at(ErrorKind::InvalidArgument, path, format!("not a readable PDF: {detail}"))
}

/// The text a model sees for `pdf` (the pages of `path`); an image drawn of a page
/// is named where the page is, its PNG travelling beside the text (MCP image content,
/// `pdf.pages[i].image` in JSON).
pub fn render(path: &str, pdf: &PdfPages) -> String {
    let m = pdf.page_count;
    let mut out = String::new();
    if pdf.pages.is_empty() {
        out.push_str(&format!("{path} is a PDF with no pages.\n"));
    }
    let mut k = 0;
    for p in &pdf.pages {
        out.push_str(&format!("--- page {} of {m} ---\n", p.page));
        let blank = p.text.trim().is_empty();
        if !blank {
            out.push_str(&p.text);
            out.push('\n');
        }
        match (&p.image, blank) {
            (Some(img), _) => {
                k += 1;
                let why = if blank { "no text on this page (a scan?): " } else { "" };
                out.push_str(&format!(
                    "[{why}page {} drawn as image {k} of this answer ({}×{} PNG, {} bytes)]\n",
                    p.page, img.width, img.height, img.bytes
                ));
            }
            (None, true) => out.push_str(
                "[no text on this page (a scan?); a read of this file alone (path, render \"auto\") draws it as an image]\n",
            ),
            (None, false) => {}
        }
        if p.truncated {
            out.push_str(&format!("[page cut at {MAX_PAGE_CHARS} characters]\n"));
        }
    }
    if let Some(n) = pdf.next_page {
        out.push_str(&format!("[more pages: continue with pages: \"{n}-\"]\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_parse_and_refuse_with_the_parameter_named() {
        assert_eq!(select("3", 5).unwrap(), [3]);
        assert_eq!(select("2-4", 5).unwrap(), [2, 3, 4]);
        assert_eq!(select("1, 4-5, 1", 5).unwrap(), [1, 4, 5]);
        assert_eq!(select("4-", 5).unwrap(), [4, 5]);
        assert_eq!(select("4-9", 5).unwrap(), [4, 5], "a range past the end stops at it");
        for bad in ["0", "3-1", "x", "", "6", "-2", "1-2-3"] {
            let e = select(bad, 5).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad}");
            assert!(e.to_string().contains("pages"), "{bad}: {e}");
        }
    }

    #[test]
    fn garbage_after_the_header_is_a_named_error() {
        for bytes in [&b"%PDF-1.7\n"[..], b"%PDF-1.4\n1 0 obj << /Type /Catalog", b"%PDF-"] {
            let e = extract("/w/x.pdf", Arc::new(bytes.to_vec()), None, 1000, RenderMode::Auto)
                .unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
            assert!(
                e.to_string().contains("/w/x.pdf") && e.to_string().contains("not a readable PDF")
            );
        }
    }

    #[test]
    fn long_pages_are_cut_on_a_character() {
        assert_eq!(cut("héllo", 2), ("hé".to_string(), true));
        assert_eq!(cut("hé", 2), ("hé".to_string(), false));
    }
}
