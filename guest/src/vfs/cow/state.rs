//! What a copy-on-write mount remembers beside its upper layer's files: the
//! whiteouts (deleted lower paths) and, for every path it changed, what the lower
//! directory held there when the session first touched it (the base an apply checks
//! the lower directory against). Kept as JSON in the upper volume at
//! [`STATE_PATH`], next to the files under [`FILES_DIR`], so that a directory upper
//! layer carries the whole session from one process to the next.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::EntryKind;
use crate::vfs::paths;
use crate::vfs::volume::is_absent;
use crate::vfs::volume::{Volume, has_content};

/// Where the upper volume keeps the changed files: `/files/<path in the mount>`.
pub const FILES_DIR: &str = "/files";
/// Where the upper volume keeps the [`CowState`].
pub const STATE_PATH: &str = "/cow-state.json";
/// The most bytes one read of a whole-file copy asks for (a host caps one boundary
/// crossing at 16 MiB; asking less keeps each answer within it).
const READ_CHUNK: u64 = 8 << 20;

/// What the lower directory held at a path when the session first changed it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Base {
    /// Nothing (the session created the path).
    Absent,
    /// A regular file with this content.
    File {
        /// Its size in bytes.
        size: u64,
        /// SHA-256 of its content, lowercase hex.
        sha256: String,
    },
    /// Something without content a directory volume lists (a link, a special file),
    /// or a directory.
    Other {
        /// Its entry type (`symlink`, `special`, `directory`).
        entry_type: String,
    },
}

/// The whiteouts and bases of one copy-on-write mount (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CowState {
    /// Lower paths deleted in the session: each hides the lower entry and everything
    /// beneath it. Stays when the path is created again (the new entry comes from the
    /// upper layer, nothing of the lower one shows through).
    pub whiteouts: BTreeSet<String>,
    /// The lower state of every path the session changed, as first seen.
    pub bases: BTreeMap<String, Base>,
    /// Whether anything was ever changed (an empty directory made counts): while
    /// not, every call goes straight to the lower layer.
    #[serde(default)]
    pub touched: bool,
}

impl CowState {
    /// Whether `rel` (volume-relative) is hidden by a whiteout at it or above it.
    pub fn hidden(&self, rel: &str) -> bool {
        if self.whiteouts.is_empty() {
            return false;
        }
        let mut at = Some(rel);
        while let Some(p) = at {
            if self.whiteouts.contains(p) {
                return true;
            }
            at = paths::parent(p);
        }
        false
    }

    /// Adds a whiteout at `rel`, dropping the ones beneath it (it covers them).
    pub fn add_whiteout(&mut self, rel: &str) {
        self.whiteouts.retain(|w| !paths::is_within(w, rel));
        self.whiteouts.insert(rel.to_string());
    }

    /// Takes in what `other` knows that this state does not: its whiteouts (one
    /// already covered here adds nothing, one above whiteouts here replaces them)
    /// and the bases of paths this state has none for (a base is the lower state
    /// when a path was *first* changed, so the one recorded first stays). Two
    /// sessions of one conversation changing one mount at once (replicas over a
    /// shared state store) each keep their changes this way: the state only grows,
    /// until an apply empties it.
    pub fn merge(&mut self, other: &CowState) {
        for w in &other.whiteouts {
            if !self.hidden(w) {
                self.add_whiteout(w);
            }
        }
        for (path, base) in &other.bases {
            self.bases.entry(path.clone()).or_insert_with(|| base.clone());
        }
        self.touched |= other.touched;
    }

    /// Loads the state kept in `upper`, or a fresh one when there is none.
    pub fn load(upper: &dyn Volume) -> Result<CowState> {
        let e = match upper.stat(STATE_PATH) {
            Ok(e) => e,
            Err(e) if is_absent(&e) => return Ok(CowState::default()),
            Err(e) => return Err(e),
        };
        let bytes = read_whole(upper, STATE_PATH, e.size)?;
        serde_json::from_slice(&bytes).map_err(|e| {
            Error::at(
                ErrorKind::Backend,
                STATE_PATH,
                format!("the copy-on-write state of the upper layer is not readable: {e}"),
            )
        })
    }

    /// Writes the state into `upper`.
    pub fn save(&self, upper: &dyn Volume) -> Result<()> {
        let bytes = serde_json::to_vec(self).map_err(|e| {
            Error::new(ErrorKind::Backend, format!("serialising the copy-on-write state: {e}"))
        })?;
        upper.write(STATE_PATH, &bytes, &Default::default()).map(|_| ())
    }
}

/// What `lower` holds at `rel` now, as a [`Base`]: what a change records when first
/// made and what an apply compares with.
pub fn lower_state(lower: &dyn Volume, rel: &str) -> Result<Base> {
    let e = match lower.stat(rel) {
        Ok(e) => e,
        Err(e) if is_absent(&e) || beneath_non_dir(lower, rel) => return Ok(Base::Absent),
        Err(e) => return Err(e),
    };
    if e.kind != EntryKind::File || !has_content(&e) {
        return Ok(Base::Other { entry_type: e.entry_type });
    }
    let data = read_whole(lower, rel, e.size)?;
    Ok(Base::File { size: data.len() as u64, sha256: sha256_hex(&data) })
}

/// Whether a directory above `rel` is something else in `v` (a link, a file): a
/// volume refuses to look through such an entry, and nothing is beneath it. The case
/// of a link or file in the lower directory that the session deleted and made a
/// directory in its place.
pub fn beneath_non_dir(v: &dyn Volume, rel: &str) -> bool {
    // The nearest ancestor the volume answers for decides: one it can stat was
    // reached through directories only.
    let mut above = paths::parent(rel);
    while let Some(dir) = above.filter(|d| *d != "/") {
        match v.stat(dir) {
            Ok(e) => return !e.is_dir(),
            Err(_) => above = paths::parent(dir),
        }
    }
    false
}

/// SHA-256 of `data`, lowercase hex.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

/// The whole content of a file listed with `size` bytes: read in chunks until a
/// short or empty answer past the listed size (a volume may answer less than asked).
pub fn read_whole(v: &dyn Volume, rel: &str, size: u64) -> Result<Vec<u8>> {
    let mut data = Vec::with_capacity(size as usize);
    loop {
        let chunk = v.read(rel, data.len() as u64, READ_CHUNK)?;
        if chunk.is_empty() {
            return Ok(data);
        }
        data.extend_from_slice(&chunk);
    }
}

/// `rel` in the upper volume: beneath [`FILES_DIR`].
pub fn upper_path(rel: &str) -> String {
    if rel == "/" { FILES_DIR.to_string() } else { format!("{FILES_DIR}{rel}") }
}

/// An upper volume's path back in the mount (`/files/a` is `/a`).
pub fn from_upper(path: &str) -> String {
    match path.strip_prefix(FILES_DIR) {
        Some("") => "/".to_string(),
        Some(rest) if rest.starts_with('/') => rest.to_string(),
        _ => path.to_string(),
    }
}
