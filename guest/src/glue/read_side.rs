//! Conversions of the read-side results (read, grep, tree) into their WIT records,
//! for the exported session (`glue::session`): the domain and JSON answers of the
//! operation modules, carried over field by field.

use serde_json::Value;

use super::exports::filestore::component::filestore as fs;
use super::types::to_wit_entry;
use crate::ops::read::{ReadContent, ReadResult};
use crate::ops::tree_nodes::TreeNodes;

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// A read page as the WIT `read-result`.
pub(super) fn read_result(out: ReadResult) -> fs::ReadResult {
    let content = match out.content {
        ReadContent::Empty => fs::ReadContent::Empty,
        ReadContent::Binary => fs::ReadContent::Binary,
        ReadContent::Raw => fs::ReadContent::Raw,
        ReadContent::Pdf => fs::ReadContent::Pdf,
        // A typed read never asks for base64 (`read-bytes` answers bytes).
        ReadContent::Text | ReadContent::Base64 => fs::ReadContent::Text,
    };
    let truncated_by = out.truncated_by.as_deref().and_then(|why| match why {
        "limit" => Some(fs::ReadCut::Limit),
        "tokens" => Some(fs::ReadCut::Tokens),
        "bytes" => Some(fs::ReadCut::Bytes),
        _ => None,
    });
    fs::ReadResult {
        entry: to_wit_entry(out.entry),
        content,
        text: out.text,
        total_lines: out.total_lines,
        start_line: out.start_line,
        end_line: out.end_line,
        next_offset: out.next_offset,
        truncated: out.truncated,
        truncated_by,
        cut_lines: out.cut_lines,
        lossy_lines: out.lossy_lines,
        ends_with_newline: out.ends_with_newline,
    }
}

/// A PDF's read as the WIT `read-pdf-result`; a file that is not a PDF is refused
/// (`read` reads it).
pub(super) fn read_pdf_result(out: ReadResult) -> crate::error::Result<fs::ReadPdfResult> {
    let Some(pdf) = out.pdf else {
        return Err(crate::error::Error::invalid_argument(
            "path",
            format!("{} is not a PDF (it does not start with %PDF-)", out.entry.path),
        ));
    };
    let pages = pdf
        .pages
        .into_iter()
        .map(|p| fs::PdfPage {
            page: p.page,
            text: p.text,
            truncated: p.truncated,
            image: p.image.map(|i| fs::PdfPageImage {
                mime_type: i.mime_type,
                width: i.width,
                height: i.height,
                data: i.data,
            }),
        })
        .collect();
    Ok(fs::ReadPdfResult {
        entry: to_wit_entry(out.entry),
        page_count: pdf.page_count,
        pages,
        next_page: pdf.next_page,
        text: out.text,
    })
}

/// `filestore_grep`'s JSON answer and text as the WIT `grep-result`.
pub(super) fn grep_result(j: &Value, rendered: String) -> fs::GrepResult {
    let files = j["files"]
        .as_array()
        .map(|v| v.iter().filter_map(|p| p.as_str().map(String::from)).collect())
        .unwrap_or_default();
    let lines = j["lines"]
        .as_array()
        .map(|v| {
            v.iter()
                .map(|l| fs::GrepLine {
                    path: l["path"].as_str().unwrap_or_default().to_string(),
                    line: u(&l["line"]),
                    text: l["text"].as_str().unwrap_or_default().to_string(),
                    is_context: l["is_context"].as_bool().unwrap_or(false),
                })
                .collect()
        })
        .unwrap_or_default();
    let counts = j["counts"]
        .as_array()
        .map(|v| {
            v.iter()
                .map(|c| fs::GrepCount {
                    path: c["path"].as_str().unwrap_or_default().to_string(),
                    count: u(&c["count"]),
                })
                .collect()
        })
        .unwrap_or_default();
    let flag = |k: &str| j[k].as_bool().unwrap_or(false);
    fs::GrepResult {
        files,
        lines,
        counts,
        files_searched: u(&j["files_searched"]),
        truncated: flag("truncated"),
        next_offset: j["next_offset"].as_u64().map(|v| v as u32),
        rendered,
        total_records: j["total_records"].as_u64(),
        total_matches: j["total_matches"].as_u64(),
        files_considered: u(&j["files_considered"]),
        files_matched: u(&j["files_matched"]),
        files_skipped_binary: u(&j["files_skipped_binary"]),
        files_skipped_too_large: u(&j["files_skipped_too_large"]),
        complete: flag("complete"),
        walk_truncated: flag("walk_truncated"),
    }
}

/// A structured tree as the WIT `tree-result`.
pub(super) fn tree_result(t: TreeNodes) -> fs::TreeResult {
    use super::filestore::component::types::EntryKind;
    let nodes = t
        .nodes
        .into_iter()
        .map(|n| fs::TreeNode {
            path: n.path,
            kind: if n.is_dir { EntryKind::Directory } else { EntryKind::File },
            children_first: n.children_first,
            children_count: n.children_count,
            more_files: n.more_files,
        })
        .collect();
    fs::TreeResult {
        path: t.path,
        nodes,
        top_count: t.top_count,
        more_files: t.more_files,
        truncated: t.truncated,
        rendered: t.rendered,
    }
}
