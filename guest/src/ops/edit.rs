//! `filestore_edit`: exact-string replacement, all or nothing (DESIGN §5).
//!
//! The file is loaded once, every edit is applied in order to the text produced by
//! the previous one, and only if all succeed is the result written, in one volume
//! write (atomic in the `dir` backend). A failed edit therefore never leaves a
//! half-edited file. Before writing, the file's size and modification time are checked
//! again, so a concurrent change is reported as a conflict instead of being lost.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::Entry;
use crate::vfs::limits::Limits;
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
    /// Unified diff of the change.
    pub diff: String,
    /// Whether the file was written.
    pub written: bool,
}

/// Applies `ops` to `text`; returns the new text and the replacement count.
///
/// A file using CRLF line endings matches `old_string` written with LF: both strings
/// are converted to CRLF before matching, so the file keeps its line endings.
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
        let (old, new) = if crlf && !op.old_string.contains("\r\n") && op.old_string.contains('\n')
        {
            (
                op.old_string.replace('\n', "\r\n"),
                op.new_string.replace("\r\n", "\n").replace('\n', "\r\n"),
            )
        } else {
            (op.old_string.clone(), op.new_string.clone())
        };
        let count = cur.matches(old.as_str()).count() as u64;
        if count == 0 {
            return Err(Error::at(
                ErrorKind::NotFound,
                path,
                format!(
                    "{which}old_string not found in the file{}",
                    if n > 1 && i > 0 { " (after the previous edits)" } else { "" }
                ),
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

/// A unified diff between two versions of `path` (3 lines of context).
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a{path}"), &format!("b{path}"))
        .to_string()
}

/// Edits a file.
pub fn edit(mounts: &MountTable, limits: &Limits, req: &EditRequest) -> Result<EditResult> {
    let path = paths::normalize(&req.path)?;
    let ops = req.ops()?;
    let before = mounts.stat(&path)?;
    if before.is_dir() {
        return Err(Error::at(ErrorKind::NotAFile, &path, "is a directory"));
    }
    if before.read_only && !req.dry_run {
        return Err(Error::at(ErrorKind::ReadOnly, &path, "entry is read-only"));
    }
    let (entry, bytes) = mounts.read_all(&path, limits.file_bytes)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::at(ErrorKind::Unsupported, &path, "is not UTF-8 text; edit works on text files only")
    })?;
    let (new_text, replacements) = apply(&path, &text, &ops)?;
    let diff = unified_diff(&path, &text, &new_text);
    if req.dry_run {
        return Ok(EditResult { entry, replacements, diff, written: false });
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
    Ok(EditResult { entry: written, replacements, diff, written: true })
}

/// Text form of an edit result.
pub fn render(r: &EditResult) -> String {
    let verb = if r.written { "Edited" } else { "Dry run, not written:" };
    format!(
        "{verb} {} ({} replacement{}).\n{}",
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
        assert_eq!(
            apply("/f", t, &[op("zz", "x", false)]).unwrap_err().kind(),
            ErrorKind::NotFound
        );
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
}
