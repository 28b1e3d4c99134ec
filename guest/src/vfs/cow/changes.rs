//! The changes of a copy-on-write mount, file by file: what `filestore_diff` shows
//! and what an apply writes. Only regular files count (as in `diff -r` and `git
//! diff`): an empty directory made, or a link deleted with its directory, is not a
//! file change.

use std::collections::BTreeSet;

use crate::error::Result;
use crate::vfs::cow::CowVolume;
use crate::vfs::cow::state::{read_whole, upper_path};
use crate::vfs::entry::{Entry, EntryKind};
use crate::vfs::paths;
use crate::vfs::volume::is_absent;
use crate::vfs::volume::{Volume, has_content};

/// How a file changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeStatus {
    /// Only in the merged view.
    Added,
    /// In both, with different content.
    Modified,
    /// Only in the lower directory.
    Deleted,
}

/// One changed file, with its content before (lower) and after (merged).
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// Volume-relative path (`/src/main.rs`).
    pub path: String,
    /// How it changed.
    pub status: ChangeStatus,
    /// The lower directory's content (not for [`ChangeStatus::Added`]).
    pub old: Option<Vec<u8>>,
    /// The merged content (not for [`ChangeStatus::Deleted`]).
    pub new: Option<Vec<u8>>,
}

/// A regular file of `v` at `rel`, or `None` (absent, a directory, a link).
fn file_at(v: &dyn Volume, rel: &str) -> Result<Option<Entry>> {
    match v.stat(rel) {
        Ok(e) if e.kind == EntryKind::File && has_content(&e) => Ok(Some(e)),
        Ok(_) => Ok(None),
        Err(e) if is_absent(&e) || super::state::beneath_non_dir(v, rel) => Ok(None),
        Err(e) => Err(e),
    }
}

impl CowVolume {
    /// The paths that may differ from the lower directory: every upper file, and
    /// every lower file under a whiteout. Sorted.
    fn candidates(&self, within: &str) -> Result<BTreeSet<String>> {
        let st = self.state();
        let mut out = BTreeSet::new();
        let root = upper_path("/");
        if self.upper.stat(&root).is_ok() {
            for e in self.upper.walk(&root, usize::MAX)?.entries {
                if !e.is_dir() {
                    out.insert(super::state::from_upper(&e.path));
                }
            }
        }
        for w in &st.whiteouts {
            match self.lower.stat(w) {
                Ok(e) if e.is_dir() => {
                    for f in self.lower.walk(w, usize::MAX)?.entries {
                        if !f.is_dir() {
                            out.insert(f.path);
                        }
                    }
                }
                Ok(_) => {
                    out.insert(w.clone());
                }
                Err(e) if is_absent(&e) => {}
                Err(e) => return Err(e),
            }
        }
        out.retain(|p| paths::is_within(p, within));
        Ok(out)
    }

    /// The changed files at or beneath `within` (volume-relative; `/` for all), in
    /// path order, with their contents. A file written back to its lower content is
    /// not a change.
    pub fn changes(&self, within: &str) -> Result<Vec<Change>> {
        let mut out = Vec::new();
        for path in self.candidates(within)? {
            let old = match file_at(self.lower(), &path)? {
                Some(e) => Some(read_whole(self.lower(), &path, e.size)?),
                None => None,
            };
            let new = match file_at(self, &path)? {
                Some(e) => Some(read_whole(self, &path, e.size)?),
                None => None,
            };
            let status = match (&old, &new) {
                (Some(a), Some(b)) if a == b => continue,
                (Some(_), Some(_)) => ChangeStatus::Modified,
                (None, Some(_)) => ChangeStatus::Added,
                (Some(_), None) => ChangeStatus::Deleted,
                (None, None) => continue,
            };
            out.push(Change { path, status, old, new });
        }
        Ok(out)
    }
}
