//! `filestore_diff`: the changes of a copy-on-write mount (docs/cow.md#diff) as a
//! unified diff in git's format, with every added, modified, deleted and binary file
//! named. The patch covers text files; `git apply` accepts it in the lower directory
//! (binary files are listed, not patched: `filestore apply` writes them).

use std::fmt::Write as _;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::cow::CowVolume;
use crate::vfs::cow::changes::{Change, ChangeStatus};
use crate::vfs::paths;

/// Lines of context around each change (as `diff -u` and `git diff`).
pub const CONTEXT_LINES: usize = 3;

/// Parameters of `filestore_diff`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffRequest {
    /// A copy-on-write mount point, or a path beneath one to limit the diff to;
    /// may be left out when the session has one copy-on-write mount.
    #[serde(default)]
    pub path: Option<String>,
}

/// One changed file of a [`DiffResult`].
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FileChange {
    /// Virtual path.
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub status: ChangeStatus,
    /// Binary content on either side: named here, left out of the patch.
    pub binary: bool,
}

/// Result of `filestore_diff`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DiffResult {
    /// The copy-on-write mount point.
    pub mount: String,
    /// What was diffed (the mount point or a path beneath it).
    pub path: String,
    /// Every changed file, by path.
    pub files: Vec<FileChange>,
    /// The text changes as a git-style unified diff, paths relative to the mount
    /// (`a/src/x.rs`); `git apply` in the lower directory accepts it.
    pub patch: String,
}

/// Runs `filestore_diff` over the session's copy-on-write mounts (`cows`: point and
/// volume).
pub fn diff(cows: &[(String, Arc<CowVolume>)], req: &DiffRequest) -> Result<DiffResult> {
    let (point, cow, path) = pick(cows, req)?;
    let within = paths::strip_dir(&path, point).to_string();
    let changes = cow.changes(&within)?;
    let mut files = Vec::with_capacity(changes.len());
    let mut patch = String::new();
    for c in &changes {
        let binary = is_binary(c.old.as_deref()) || is_binary(c.new.as_deref());
        files.push(FileChange { path: paths::under(point, &c.path), status: c.status, binary });
        if !binary {
            render_file(&mut patch, c);
        }
    }
    Ok(DiffResult { mount: point.to_string(), path, files, patch })
}

/// The mount a request names, and its normalised path.
fn pick<'a>(
    cows: &'a [(String, Arc<CowVolume>)],
    req: &DiffRequest,
) -> Result<(&'a str, &'a CowVolume, String)> {
    let points = || cows.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>().join(", ");
    let Some(raw) = &req.path else {
        return match cows {
            [(p, c)] => Ok((p, c, p.clone())),
            [] => Err(Error::new(ErrorKind::NotFound, "this session has no copy-on-write mount")),
            _ => Err(Error::invalid_argument(
                "path",
                format!("several copy-on-write mounts ({}); name one", points()),
            )),
        };
    };
    let path = paths::normalize(raw)?;
    cows.iter()
        .filter(|(p, _)| paths::is_within(&path, p))
        .max_by_key(|(p, _)| p.len())
        .map(|(p, c)| (p.as_str(), c.as_ref(), path.clone()))
        .ok_or_else(|| {
            Error::at(
                ErrorKind::InvalidArgument,
                path.clone(),
                if cows.is_empty() {
                    "this session has no copy-on-write mount".to_string()
                } else {
                    format!("not inside a copy-on-write mount ({})", points())
                },
            )
        })
}

/// Whether content is binary: a NUL byte, or not UTF-8 (as git decides, roughly).
fn is_binary(data: Option<&[u8]>) -> bool {
    data.is_some_and(|d| d.contains(&0) || std::str::from_utf8(d).is_err())
}

/// Appends one text file's diff in git's format.
pub fn render_file(out: &mut String, c: &Change) {
    let name = c.path.trim_start_matches('/');
    let old = std::str::from_utf8(c.old.as_deref().unwrap_or_default()).unwrap_or_default();
    let new = std::str::from_utf8(c.new.as_deref().unwrap_or_default()).unwrap_or_default();
    let _ = writeln!(out, "diff --git a/{name} b/{name}");
    let (from, to) = match c.status {
        ChangeStatus::Added => {
            out.push_str("new file mode 100644\n");
            ("/dev/null".to_string(), format!("b/{name}"))
        }
        ChangeStatus::Deleted => {
            out.push_str("deleted file mode 100644\n");
            (format!("a/{name}"), "/dev/null".to_string())
        }
        ChangeStatus::Modified => (format!("a/{name}"), format!("b/{name}")),
    };
    // An empty file added or deleted has no hunk, and git writes no ---/+++ for it.
    if old.is_empty() && new.is_empty() {
        return;
    }
    let _ = writeln!(out, "--- {from}\n+++ {to}");
    let diff = similar::TextDiff::from_lines(old, new);
    let mut unified = diff.unified_diff();
    unified.context_radius(CONTEXT_LINES).missing_newline_hint(true);
    for hunk in unified.iter_hunks() {
        let _ = write!(out, "{hunk}");
    }
}

/// The text of a [`DiffResult`] for a model: the files, then the patch.
pub fn render(r: &DiffResult) -> String {
    if r.files.is_empty() {
        return format!("No changes in {}.", r.path);
    }
    let mut out = format!("{} changed file(s) in {}:\n", r.files.len(), r.mount);
    for f in &r.files {
        let status = match f.status {
            ChangeStatus::Added => "added",
            ChangeStatus::Modified => "modified",
            ChangeStatus::Deleted => "deleted",
        };
        let _ =
            writeln!(out, "  {status:<8} {}{}", f.path, if f.binary { " (binary)" } else { "" });
    }
    out.push('\n');
    out.push_str(&r.patch);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::memory::MemoryVolume;
    use crate::vfs::volume::Volume;

    fn change(path: &str, status: ChangeStatus, old: Option<&str>, new: Option<&str>) -> Change {
        Change {
            path: path.into(),
            status,
            old: old.map(|s| s.as_bytes().to_vec()),
            new: new.map(|s| s.as_bytes().to_vec()),
        }
    }

    #[test]
    fn files_render_as_git_does() {
        let mut out = String::new();
        render_file(
            &mut out,
            &change("/a.txt", ChangeStatus::Modified, Some("1\n2\n"), Some("1\n3\n")),
        );
        render_file(&mut out, &change("/n.txt", ChangeStatus::Added, None, Some("new")));
        render_file(&mut out, &change("/d.txt", ChangeStatus::Deleted, Some("gone\n"), None));
        render_file(&mut out, &change("/e.txt", ChangeStatus::Added, None, Some("")));
        assert_eq!(
            out,
            "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n 1\n-2\n+3\n\
             diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+new\n\\ No newline at end of file\n\
             diff --git a/d.txt b/d.txt\ndeleted file mode 100644\n--- a/d.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n\
             diff --git a/e.txt b/e.txt\nnew file mode 100644\n"
        );
    }

    #[test]
    fn a_diff_names_binary_files_and_leaves_them_out_of_the_patch() {
        let lower = Arc::new(MemoryVolume::new());
        lower.insert("/bin.dat", [0u8, 1, 2]).insert("/t.txt", "t\n");
        let upper = MemoryVolume::new();
        let cow = Arc::new(CowVolume::new(Box::new(lower), Box::new(upper)).unwrap());
        cow.write("/bin.dat", &[0, 9], &Default::default()).unwrap();
        cow.write("/t.txt", b"u\n", &Default::default()).unwrap();
        let cows = vec![("/w".to_string(), cow)];
        let r = diff(&cows, &DiffRequest::default()).unwrap();
        assert_eq!(r.files.len(), 2);
        assert!(r.files[0].binary && r.files[0].path == "/w/bin.dat");
        assert!(!r.patch.contains("bin.dat"), "{}", r.patch);
        assert!(r.patch.contains("-t\n+u\n"));
        assert!(render(&r).contains("modified /w/bin.dat (binary)"));
        let e = diff(&cows, &DiffRequest { path: Some("/elsewhere".into()) }).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(diff(&[], &DiffRequest::default()).is_err());
    }
}
