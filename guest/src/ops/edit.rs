//! `filestore_edit`: exact-string replacement, all or nothing
//! (docs/architecture.md#filestore_edit).
//!
//! The file is loaded once, every edit is applied in order to the text produced by
//! the previous one, and only if all succeed is the result written, in one volume
//! write (atomic in the `dir` backend). A failed edit therefore never leaves a
//! half-edited file. Before writing, the file's size and modification time are checked
//! again, so a concurrent change is reported as a conflict instead of being lost.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::Entry;
use crate::vfs::limits::{Limits, MAX_DIFF_BYTES, MAX_DIFF_INPUT_BYTES, MAX_DIFF_REGION_LINES};
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;
use crate::vfs::volume::WriteOptions;

/// One replacement.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EditOp {
    /// Exact text to find (non-empty).
    pub old_string: String,
    /// Replacement (must differ from `old_string`).
    pub new_string: String,
    /// Replace every occurrence instead of requiring exactly one.
    #[serde(default)]
    pub replace_all: bool,
}

/// Parameters of `filestore_edit`: either one edit inline or a list in `edits`.
#[derive(Debug, Clone, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct EditRequest {
    /// The file to edit.
    pub path: String,
    /// Single-edit form: text to find.
    #[serde(default)]
    pub old_string: Option<String>,
    /// Single-edit form: replacement.
    #[serde(default)]
    pub new_string: Option<String>,
    /// Single-edit form: replace every occurrence.
    #[serde(default)]
    pub replace_all: Option<bool>,
    /// List form: edits applied in order, all or nothing.
    #[serde(default)]
    pub edits: Option<Vec<EditOp>>,
    /// Compute and return the diff without writing.
    #[serde(default)]
    pub dry_run: bool,
}

impl EditRequest {
    /// The edits to apply, from whichever form was used.
    pub fn ops(&self) -> Result<Vec<EditOp>> {
        match (&self.edits, &self.old_string, &self.new_string) {
            (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(Error::invalid_argument(
                "edits",
                "give either old_string/new_string or edits, not both",
            )),
            (Some(list), None, None) => {
                if list.is_empty() {
                    return Err(Error::invalid_argument("edits", "the list is empty"));
                }
                if self.replace_all.is_some() {
                    return Err(Error::invalid_argument(
                        "replace_all",
                        "set replace_all inside each edit of the list",
                    ));
                }
                Ok(list.clone())
            }
            (None, Some(old), Some(new)) => Ok(vec![EditOp {
                old_string: old.clone(),
                new_string: new.clone(),
                replace_all: self.replace_all.unwrap_or(false),
            }]),
            (None, None, _) => {
                Err(Error::invalid_argument("old_string", "is required (or give edits)"))
            }
            (None, Some(_), None) => Err(Error::invalid_argument("new_string", "is required")),
        }
    }
}

/// Result of `filestore_edit`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EditResult {
    /// The file after the edit (before it on a dry run).
    pub entry: Entry,
    /// Total replacements made.
    pub replacements: u64,
    /// Unified diff of the change (cut at [`MAX_DIFF_BYTES`], or empty when the change
    /// is too large to diff: see `diff_note`).
    pub diff: String,
    /// Why `diff` is cut or empty; absent when it is whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_note: Option<String>,
    /// Whether the file was written.
    pub written: bool,
}

/// Applies `ops` to `text`; returns the new text and the replacement count.
///
/// A file using CRLF line endings matches `old_string` written with LF, and a file
/// using LF matches `old_string` written with CRLF: both strings are converted to the
/// file's line endings before matching (`new_string` too, whatever its endings), so
/// the file keeps them.
///
/// An `old_string` that does not occur is `conflict` (the file's content is not what
/// the edit expects), distinct from `not-found` (no such file); the message says how
/// many times it occurs (0) and, when `old_string` ends with a newline the file lacks
/// at its end, says so.
pub fn apply(path: &str, text: &str, ops: &[EditOp]) -> Result<(String, u64)> {
    let crlf = text.contains("\r\n");
    let mut cur = text.to_string();
    let mut total = 0u64;
    let n = ops.len();
    for (i, op) in ops.iter().enumerate() {
        let which = if n > 1 { format!("edit {} of {n}: ", i + 1) } else { String::new() };
        if op.old_string.is_empty() {
            return Err(Error::at(
                ErrorKind::InvalidArgument,
                path,
                format!("{which}old_string is empty"),
            ));
        }
        if op.old_string == op.new_string {
            return Err(Error::at(
                ErrorKind::InvalidArgument,
                path,
                format!("{which}old_string and new_string are identical; nothing to change"),
            ));
        }
        // The new text takes the file's line endings, whatever the model wrote.
        let (old, new) = if crlf {
            let to_crlf = |t: &str| t.replace("\r\n", "\n").replace('\n', "\r\n");
            let old = match op.old_string.contains("\r\n") {
                true => op.old_string.clone(),
                false => op.old_string.replace('\n', "\r\n"),
            };
            (old, to_crlf(&op.new_string))
        } else {
            // An LF file: a CRLF old_string (pasted from a Windows editor) is matched
            // as LF, and CRLF in new_string written as LF.
            (op.old_string.replace("\r\n", "\n"), op.new_string.replace("\r\n", "\n"))
        };
        let count = cur.matches(old.as_str()).count() as u64;
        if count == 0 {
            let after = if n > 1 && i > 0 { " (after the previous edits)" } else { "" };
            // The common near miss: old_string copied with a final newline the file
            // does not have at its end.
            let hint = match old.strip_suffix('\n') {
                Some(head) if !head.is_empty() && cur.ends_with(head.trim_end_matches('\r')) => {
                    "; old_string ends with a newline, but the file does not end with one: drop the final newline from old_string"
                }
                _ => "",
            };
            return Err(Error::at(
                ErrorKind::Conflict,
                path,
                format!("{which}old_string occurs 0 times in the file{after}{hint}"),
            ));
        }
        if count > 1 && !op.replace_all {
            return Err(Error::at(
                ErrorKind::Conflict,
                path,
                format!(
                    "{which}old_string occurs {count} times; add surrounding context to make it unique, or pass replace_all=true"
                ),
            ));
        }
        cur = if op.replace_all {
            cur.replace(old.as_str(), &new)
        } else {
            cur.replacen(old.as_str(), &new, 1)
        };
        total += count;
    }
    Ok((cur, total))
}

/// Lines of context around each change in a diff.
const DIFF_CONTEXT: usize = 3;

/// A unified diff between two versions of `path` (3 lines of context), bounded:
/// the common leading and trailing lines are set aside in linear time and only the
/// changed region is diffed (so one edit in a large file costs what the edit costs);
/// a changed region over [`MAX_DIFF_INPUT_BYTES`] or [`MAX_DIFF_REGION_LINES`] is not
/// diffed, and a diff over
/// [`MAX_DIFF_BYTES`] is cut at a line. The second value says what was skipped or cut.
pub fn unified_diff(path: &str, old: &str, new: &str) -> (String, Option<String>) {
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let common = old_lines.len().min(new_lines.len());
    let prefix = old_lines.iter().zip(&new_lines).take_while(|(a, b)| a == b).count();
    let suffix = old_lines[prefix..]
        .iter()
        .rev()
        .zip(new_lines[prefix..].iter().rev())
        .take(common - prefix)
        .take_while(|(a, b)| a == b)
        .count();
    let start = prefix.saturating_sub(DIFF_CONTEXT);
    let old_end = (old_lines.len() - suffix + DIFF_CONTEXT).min(old_lines.len());
    let new_end = (new_lines.len() - suffix + DIFF_CONTEXT).min(new_lines.len());
    let region_lines = (old_end - start) + (new_end - start);
    if region_lines > MAX_DIFF_REGION_LINES {
        return (
            String::new(),
            Some(format!(
                "diff not computed: the changed region spans {region_lines} lines (before and after), over the {MAX_DIFF_REGION_LINES}-line limit for diffs; read the file to review the change"
            )),
        );
    }
    let old_mid = old_lines[start..old_end].concat();
    let new_mid = new_lines[start..new_end].concat();
    let changed = old_mid.len() + new_mid.len();
    if changed > MAX_DIFF_INPUT_BYTES {
        return (
            String::new(),
            Some(format!(
                "diff not computed: the changed region is {changed} bytes (before and after), over the {MAX_DIFF_INPUT_BYTES}-byte limit for diffs; read the file to review the change"
            )),
        );
    }
    let diff = similar::TextDiff::from_lines(&old_mid, &new_mid)
        .unified_diff()
        .context_radius(DIFF_CONTEXT)
        .header(&format!("a{path}"), &format!("b{path}"))
        .to_string();
    let diff = shift_hunks(&diff, start);
    if diff.len() <= MAX_DIFF_BYTES {
        return (diff, None);
    }
    let cut = diff[..MAX_DIFF_BYTES].rfind('\n').map_or(0, |i| i + 1);
    let left_out =
        diff[cut..].matches("\n@@ ").count() + usize::from(diff[cut..].starts_with("@@ "));
    let note = format!(
        "diff cut at {cut} of {} bytes (limit {MAX_DIFF_BYTES}); {left_out} more hunk{} not shown; read the file to review the rest",
        diff.len(),
        if left_out == 1 { "" } else { "s" }
    );
    (diff[..cut].to_string(), Some(note))
}

/// Adds `offset` to the old and new start lines of every `@@ -a,b +c,d @@` header:
/// the diff was computed on a region starting `offset` lines into the file.
fn shift_hunks(diff: &str, offset: usize) -> String {
    if offset == 0 {
        return diff.to_string();
    }
    let shift = |spec: &str| -> String {
        let (sign, rest) = spec.split_at(1);
        let (line, count) = match rest.split_once(',') {
            Some((l, c)) => (l, Some(c)),
            None => (rest, None),
        };
        let line = line.parse::<usize>().map_or(line.to_string(), |l| (l + offset).to_string());
        match count {
            Some(c) => format!("{sign}{line},{c}"),
            None => format!("{sign}{line}"),
        }
    };
    let mut out = String::with_capacity(diff.len() + 64);
    for line in diff.split_inclusive('\n') {
        let header = line
            .strip_prefix("@@ ")
            .and_then(|r| r.split_once(" @@"))
            .and_then(|(specs, tail)| specs.split_once(' ').map(|(o, n)| (o, n, tail)));
        match header {
            Some((o, n, tail)) => out.push_str(&format!("@@ {} {} @@{tail}", shift(o), shift(n))),
            None => out.push_str(line),
        }
    }
    out
}

/// Edits a file.
pub fn edit(mounts: &MountTable, limits: &Limits, req: &EditRequest) -> Result<EditResult> {
    let path = paths::normalize(&req.path)?;
    let ops = req.ops()?;
    let before = mounts.stat(&path)?;
    if before.is_dir() {
        return Err(Error::at(ErrorKind::NotAFile, &path, "is a directory"));
    }
    if !req.dry_run {
        mounts.refuse_read_only(&path, &before)?;
    }
    let (entry, bytes) = mounts.read_all(&path, limits.file_bytes)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::at(ErrorKind::Unsupported, &path, "is not UTF-8 text; edit works on text files only")
    })?;
    let (new_text, replacements) = apply(&path, &text, &ops)?;
    let (diff, diff_note) = unified_diff(&path, &text, &new_text);
    if req.dry_run {
        return Ok(EditResult { entry, replacements, diff, diff_note, written: false });
    }
    let now = mounts.stat(&path)?;
    if now.size != entry.size || now.modified_ms != entry.modified_ms {
        return Err(Error::at(
            ErrorKind::Conflict,
            &path,
            "the file changed while it was being edited; read it again and retry",
        ));
    }
    let written = mounts.write(&path, new_text.as_bytes(), &WriteOptions::default())?;
    Ok(EditResult { entry: written, replacements, diff, diff_note, written: true })
}

/// Text form of an edit result.
pub fn render(r: &EditResult) -> String {
    let verb = if r.written { "Edited" } else { "Dry run, not written:" };
    let note = r.diff_note.as_ref().map(|n| format!("[{n}]\n")).unwrap_or_default();
    format!(
        "{verb} {} ({} replacement{}).\n{}{note}",
        r.entry.path,
        r.replacements,
        if r.replacements == 1 { "" } else { "s" },
        r.diff
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::memory::MemoryVolume;

    fn op(o: &str, n: &str, all: bool) -> EditOp {
        EditOp { old_string: o.into(), new_string: n.into(), replace_all: all }
    }

    #[test]
    fn apply_rules() {
        let t = "a b a\nc\n";
        assert_eq!(apply("/f", t, &[op("c", "d", false)]).unwrap(), ("a b a\nd\n".into(), 1));
        let e = apply("/f", t, &[op("a", "x", false)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Conflict);
        assert!(e.to_string().contains("occurs 2 times"), "{e}");
        assert_eq!(apply("/f", t, &[op("a", "x", true)]).unwrap().0, "x b x\nc\n");
        // Not in the file: conflict (not-found is for a missing file), with the count.
        let e = apply("/f", t, &[op("zz", "x", false)]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Conflict);
        assert!(e.to_string().contains("occurs 0 times"), "{e}");
        // A final newline the file lacks at its end is named.
        let e = apply("/f", "a\nlast", &[op("last\n", "x\n", false)]).unwrap_err();
        assert!(e.to_string().contains("does not end with one"), "{e}");
        let e = apply("/f", "a\nlast\n", &[op("nope\n", "x\n", false)]).unwrap_err();
        assert!(!e.to_string().contains("does not end with one"), "{e}");
        assert_eq!(
            apply("/f", t, &[op("", "x", false)]).unwrap_err().kind(),
            ErrorKind::InvalidArgument
        );
        assert_eq!(
            apply("/f", t, &[op("c", "c", false)]).unwrap_err().kind(),
            ErrorKind::InvalidArgument
        );
    }

    #[test]
    fn lf_matched_by_crlf() {
        let t = "one\ntwo\nthree\n";
        let (out, n) = apply("/f", t, &[op("one\r\ntwo", "uno\r\ndos", false)]).unwrap();
        assert_eq!(out, "uno\ndos\nthree\n");
        assert_eq!(n, 1);
    }

    /// new_string takes the file's endings: CRLF into an LF file is written as LF,
    /// LF into a CRLF file as CRLF (deepagents' test_edit_normalizes_crlf_in_new_string).
    #[test]
    fn new_string_takes_the_files_line_endings() {
        let (out, _) = apply("/f", "hello world\n", &[op("hello", "goodbye\r\n", false)]).unwrap();
        assert_eq!(out, "goodbye\n world\n");
        let (out, _) = apply("/f", "a\r\nb\r\n", &[op("b", "x\ny", false)]).unwrap();
        assert_eq!(out, "a\r\nx\r\ny\r\n");
        let (out, _) = apply("/f", "a\r\nb\r\n", &[op("a\r\nb", "c\r\nd", false)]).unwrap();
        assert_eq!(out, "c\r\nd\r\n");
    }

    #[test]
    fn crlf_matched_by_lf() {
        let t = "one\r\ntwo\r\nthree\r\n";
        let (out, n) = apply("/f", t, &[op("one\ntwo", "uno\ndos", false)]).unwrap();
        assert_eq!(out, "uno\r\ndos\r\nthree\r\n");
        assert_eq!(n, 1);
    }

    #[test]
    fn list_is_sequential_and_atomic() {
        let v = MemoryVolume::new();
        v.insert("/f.txt", "alpha beta\n");
        let mut t = MountTable::new();
        t.add("/w", Box::new(v.clone()), 0, false).unwrap();
        let req = EditRequest {
            path: "/w/f.txt".into(),
            edits: Some(vec![op("alpha", "gamma", false), op("gamma beta", "done", false)]),
            ..Default::default()
        };
        let r = edit(&t, &Limits::default(), &req).unwrap();
        assert_eq!(r.replacements, 2);
        assert_eq!(t.read("/w/f.txt", 0, 100).unwrap(), b"done\n");
        // Second edit fails: nothing written.
        let req = EditRequest {
            path: "/w/f.txt".into(),
            edits: Some(vec![op("done", "x", false), op("missing", "y", false)]),
            ..Default::default()
        };
        let e = edit(&t, &Limits::default(), &req).unwrap_err();
        assert!(e.to_string().contains("edit 2 of 2"), "{e}");
        assert_eq!(t.read("/w/f.txt", 0, 100).unwrap(), b"done\n");
    }

    #[test]
    fn dry_run_diff() {
        let v = MemoryVolume::new();
        v.insert("/f.txt", "a\nb\nc\n");
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        let req = EditRequest {
            path: "/w/f.txt".into(),
            old_string: Some("b".into()),
            new_string: Some("B".into()),
            dry_run: true,
            ..Default::default()
        };
        let r = edit(&t, &Limits::default(), &req).unwrap();
        assert!(!r.written);
        assert_eq!(r.diff, "--- a/w/f.txt\n+++ b/w/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
        assert_eq!(t.read("/w/f.txt", 0, 100).unwrap(), b"a\nb\nc\n");
    }

    #[test]
    fn request_forms() {
        let both = EditRequest {
            path: "/f".into(),
            old_string: Some("a".into()),
            new_string: Some("b".into()),
            edits: Some(vec![]),
            ..Default::default()
        };
        assert!(both.ops().is_err());
        let none = EditRequest { path: "/f".into(), ..Default::default() };
        assert!(none.ops().unwrap_err().to_string().contains("old_string"));
    }

    /// The bounded diff equals the whole-file diff whenever it is not cut: setting the
    /// common lines aside changes nothing but the cost.
    #[test]
    fn region_diff_equals_whole_diff() {
        let old: String = (1..=400).map(|i| format!("line {i}\n")).collect();
        let cases = [
            old.replace("line 200\n", "LINE 200\n"),
            old.replace("line 1\n", "first\n"),
            old.replace("line 400\n", "last"),
            old.replace("line 10\n", "").replace("line 390\n", "x\ny\n"),
            format!("new top\n{old}"),
            format!("{old}tail without newline"),
            old.replace("line 5", "five").replace("line 7", "seven"),
        ];
        for new in cases {
            let whole = similar::TextDiff::from_lines(old.as_str(), new.as_str())
                .unified_diff()
                .context_radius(3)
                .header("a/f", "b/f")
                .to_string();
            assert_eq!(unified_diff("/f", &old, &new), (whole, None));
        }
    }

    #[test]
    fn large_diffs_are_cut_and_huge_changes_not_diffed() {
        let v = MemoryVolume::new();
        // 1,500 lines of 60 bytes, every one changed: a ~180 KB diff, cut.
        let big: String =
            (0..1_500).map(|i| format!("item {i:>6} value {}\n", "-".repeat(40))).collect();
        v.insert("/big.txt", big.as_str());
        let mut t = MountTable::new();
        t.add("/w", Box::new(v.clone()), 0, false).unwrap();
        let req = |path: &str| EditRequest {
            path: path.into(),
            old_string: Some("value".into()),
            new_string: Some("VALUE".into()),
            replace_all: Some(true),
            edits: None,
            dry_run: false,
        };
        let r = edit(&t, &Limits::default(), &req("/w/big.txt")).unwrap();
        assert_eq!(r.replacements, 1_500);
        assert!(r.diff.len() <= MAX_DIFF_BYTES && r.diff.ends_with('\n'), "{}", r.diff.len());
        let note = r.diff_note.as_deref().unwrap();
        assert!(note.starts_with("diff cut at ") && note.contains("more hunk"), "{note}");
        assert!(render(&r).ends_with(&format!("[{note}]\n")));
        // Over the region limit: written, not diffed, and said so.
        let huge: String = (0..200_000).map(|i| format!("item {i} value\n")).collect();
        v.insert("/huge.txt", huge.as_str());
        let r = edit(&t, &Limits::default(), &req("/w/huge.txt")).unwrap();
        assert!(r.written && r.diff.is_empty());
        assert!(
            r.diff_note.as_deref().unwrap().starts_with("diff not computed"),
            "{:?}",
            r.diff_note
        );
        let (_, now) = t.read_all("/w/huge.txt", u64::MAX).unwrap();
        assert_eq!(String::from_utf8(now).unwrap(), huge.replace("value", "VALUE"));
        // A few long lines over the byte limit are not diffed either.
        let wide = format!("{}\n{}\n", "a".repeat(1_200_000), "b".repeat(10));
        v.insert("/wide.txt", wide.as_str());
        let mut r = req("/w/wide.txt");
        r.old_string = Some("a".repeat(1_200_000));
        r.new_string = Some("c".repeat(1_200_000));
        let r = edit(&t, &Limits::default(), &r).unwrap();
        assert!(r.diff_note.as_deref().unwrap().contains("-byte limit"), "{:?}", r.diff_note);
    }
}
