//! The text an LLM sees for a grep result, in ripgrep's output form.

use super::{GrepLine, GrepResult, OutputMode};

/// The text an LLM sees.
///
/// `files_with_matches`: one path per line. `content`: `path:line:text` for matching
/// lines, `path-line-text` for context lines, `--` between non-adjacent groups (when
/// context was asked for), as ripgrep prints them. `count`: `path:count` lines and a
/// total. Notes in brackets follow: more pages, files too large to search, an
/// incomplete walk. Nothing found is a sentence that says why: no file passed the
/// filters, every file was skipped, or no line matched.
pub fn render(result: &GrepResult) -> String {
    let mut out = String::new();
    let records = match result.output_mode {
        OutputMode::FilesWithMatches => {
            let files = result.files.as_deref().unwrap_or_default();
            for f in files {
                out.push_str(f);
                out.push('\n');
            }
            files.len()
        }
        OutputMode::Content => {
            let lines = result.lines.as_deref().unwrap_or_default();
            let grouped = result.before > 0 || result.after > 0;
            let mut prev: Option<&GrepLine> = None;
            for l in lines {
                if let Some(p) = prev
                    && grouped
                    && (p.path != l.path || p.line + 1 != l.line)
                {
                    out.push_str("--\n");
                }
                let sep = if l.is_context { '-' } else { ':' };
                out.push_str(&format!("{}{sep}{}{sep}{}\n", l.path, l.line, l.text));
                prev = Some(l);
            }
            lines.len()
        }
        OutputMode::Count => {
            let counts = result.counts.as_deref().unwrap_or_default();
            for c in counts {
                out.push_str(&format!("{}:{}\n", c.path, c.count));
            }
            counts.len()
        }
    };

    if records == 0 {
        out.push_str(&nothing_found(result));
        out.push('\n');
    } else if result.output_mode == OutputMode::Count {
        out.push_str(&format!(
            "[total: {} matching {} in {} {}]\n",
            result.total_matches.unwrap_or_default(),
            plural(result.total_matches.unwrap_or_default() as usize, "line", "lines"),
            result.files_matched,
            plural(result.files_matched, "file", "files"),
        ));
    }
    if result.truncated {
        let unit = match result.output_mode {
            OutputMode::FilesWithMatches => "files",
            OutputMode::Content => "lines",
            OutputMode::Count => "file counts",
        };
        let next = result.next_offset.unwrap_or(result.offset + records);
        out.push_str(&format!(
            "[more results: showing {records} {unit} from offset {}; call again with offset={next} for the next page]\n",
            result.offset
        ));
    }
    if result.files_skipped_too_large > 0 && records > 0 {
        out.push_str(&format!(
            "[{} too large to search]\n",
            plural_count(result.files_skipped_too_large, "file was", "files were")
        ));
    }
    if result.walk_truncated {
        out.push_str("[incomplete: the directory walk stopped at its entry limit; narrow 'path' or add a 'glob']\n");
    }
    out
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

fn plural_count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The sentence for an empty page.
fn nothing_found(r: &GrepResult) -> String {
    let filter = match (&r.glob, &r.file_type) {
        (Some(g), Some(t)) => Some(format!("the glob '{g}' and type '{t}'")),
        (Some(g), None) => Some(format!("the glob '{g}'")),
        (None, Some(t)) => Some(format!("the type '{t}'")),
        (None, None) => None,
    };
    if r.files_considered == 0 {
        return match filter {
            Some(f) => format!("No files matched {f} under {}", r.path),
            None => format!("No files to search under {}", r.path),
        };
    }
    let skipped = skipped_note(r);
    if r.files_searched == 0 {
        return format!("No files searched under {}: {skipped}", r.path);
    }
    if r.files_matched == 0 {
        let scope = match filter {
            Some(f) => format!("{} matching {f}", plural_count(r.files_searched, "file", "files")),
            None => plural_count(r.files_searched, "file", "files"),
        };
        let mut s = format!("No matches for pattern '{}' in {scope} under {}", r.pattern, r.path);
        if !skipped.is_empty() {
            s.push_str(&format!(" ({skipped})"));
        }
        return s;
    }
    let total = r.total_records.map_or_else(|| "more".to_string(), |n| n.to_string());
    format!(
        "No results at offset {}: there are {total} results in all; use a smaller offset",
        r.offset
    )
}

fn skipped_note(r: &GrepResult) -> String {
    let mut parts = Vec::new();
    if r.files_skipped_binary > 0 {
        parts.push(format!(
            "{} skipped as binary",
            plural_count(r.files_skipped_binary, "file", "files")
        ));
    }
    if r.files_skipped_too_large > 0 {
        parts.push(format!(
            "{} skipped as too large",
            plural_count(r.files_skipped_too_large, "file", "files")
        ));
    }
    parts.join(", ")
}
