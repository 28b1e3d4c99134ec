//! Copy-on-write mounts (docs/cow.md): a [`CowVolume`] shows a lower volume (a host
//! directory, mounted read-only by the host, so it cannot be written by construction)
//! through an upper volume that takes every change. Reads fall through to the lower
//! layer unless the upper one has the path; writes, edits, new directories, deletes
//! and moves land in the upper layer; a delete of a lower path is a whiteout
//! ([`state::CowState`]) that hides the lower entry and all beneath it; a move is a
//! copy into the upper layer and a delete of the source (a whiteout when the source
//! was in the lower layer). Links in the lower layer are listed, never followed (the
//! dir volume refuses to), and cannot be moved.
//!
//! The upper volume's layout ([`state::FILES_DIR`], [`state::STATE_PATH`]) is the
//! same in memory and in a directory, so the host can apply a directory upper layer
//! after the session ([`apply`]).
//!
//! May use: [`crate::error`], the rest of [`crate::vfs`].

pub mod apply;
pub mod changes;
pub mod state;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::{Entry, TYPE_SYMLINK};
use crate::vfs::paths;
use crate::vfs::volume::is_absent;
use crate::vfs::volume::{
    PACKED_READ_ONLY, PackedWalk, PrefetchFile, Volume, Walk, WriteOptions, rename_is_noop,
};
use state::{Base, CowState, from_upper, lower_state, read_whole, upper_path};

/// See the module docs.
pub struct CowVolume {
    lower: Box<dyn Volume>,
    upper: Box<dyn Volume>,
    state: Mutex<CowState>,
}

impl std::fmt::Debug for CowVolume {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CowVolume").finish_non_exhaustive()
    }
}

impl CowVolume {
    /// `lower` seen through `upper`, resuming the changes `upper` already holds (a
    /// directory upper layer from an earlier session). Only `upper` is ever written.
    pub fn new(lower: Box<dyn Volume>, upper: Box<dyn Volume>) -> Result<CowVolume> {
        let state = CowState::load(upper.as_ref())?;
        Ok(CowVolume { lower, upper, state: Mutex::new(state) })
    }

    /// The lower layer (read only through this type).
    pub fn lower(&self) -> &dyn Volume {
        self.lower.as_ref()
    }

    /// The upper layer.
    pub fn upper(&self) -> &dyn Volume {
        self.upper.as_ref()
    }

    /// A copy of the whiteouts and bases.
    pub fn state(&self) -> CowState {
        self.lock().clone()
    }

    fn lock(&self) -> MutexGuard<'_, CowState> {
        // A panic while holding the lock leaves a state that was valid before or
        // after one change: keep going with it.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn clean(&self) -> bool {
        !self.lock().touched
    }

    /// The upper layer's entry at `rel`, or `None`.
    fn upper_stat(&self, rel: &str) -> Result<Option<Entry>> {
        match self.upper.stat(&upper_path(rel)) {
            Ok(mut e) => {
                e.path = rel.to_string();
                Ok(Some(e))
            }
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(upper_err(e)),
        }
    }

    /// The lower layer's entry at `rel` when it shows (no whiteout over it).
    fn lower_stat(&self, st: &CowState, rel: &str) -> Result<Option<Entry>> {
        if st.hidden(rel) {
            return Ok(None);
        }
        match self.lower.stat(rel) {
            Ok(e) => Ok(Some(writable(e))),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The merged entry at `rel`: the upper layer's, else the lower's unless hidden.
    fn merged_stat(&self, rel: &str) -> Result<Option<Entry>> {
        if let Some(e) = self.upper_stat(rel)? {
            return Ok(Some(e));
        }
        let st = self.lock();
        self.lower_stat(&st, rel)
    }

    /// Refuses a new entry at `rel` beneath a file (as a directory volume does).
    fn check_parents(&self, rel: &str) -> Result<()> {
        let mut at = paths::parent(rel);
        while let Some(p) = at {
            if p == "/" {
                break;
            }
            match self.merged_stat(p)? {
                Some(e) if e.entry_type == TYPE_SYMLINK => return Err(link_error(p)),
                Some(e) if !e.is_dir() => {
                    return Err(Error::at(ErrorKind::NotADirectory, p, "not a directory"));
                }
                _ => {}
            }
            at = paths::parent(p);
        }
        Ok(())
    }

    /// Records the lower state at `rel` as its base, once: what an apply will expect
    /// to find there. A hidden path with no base had nothing when it was hidden.
    fn note_base(&self, st: &mut CowState, rel: &str) -> Result<()> {
        if st.bases.contains_key(rel) {
            return Ok(());
        }
        let base = if st.hidden(rel) { Base::Absent } else { lower_state(self.lower(), rel)? };
        st.bases.insert(rel.to_string(), base);
        Ok(())
    }

    fn save(&self, st: &mut CowState) -> Result<()> {
        st.touched = true;
        if let Err(e) = st.save(self.upper.as_ref()) {
            // Not stored (a full store, a state over its size limit): the state in
            // memory goes back to the stored one, or the next calls would show a
            // change the error said was not made.
            if let Ok(stored) = CowState::load(self.upper.as_ref()) {
                *st = stored;
            }
            return Err(e);
        }
        Ok(())
    }

    /// The merged content of the file at `rel` (for a move).
    fn read_merged(&self, rel: &str, size: u64) -> Result<Vec<u8>> {
        if self.upper_stat(rel)?.is_some() {
            return read_whole(self.upper.as_ref(), &upper_path(rel), size).map_err(upper_err);
        }
        read_whole(self.lower.as_ref(), rel, size)
    }

    /// The merged walk (see [`Volume::walk`]) once something changed.
    fn merged_walk(&self, rel: &str, max: usize) -> Result<Walk> {
        match self.merged_stat(rel)? {
            None => return Err(Error::not_found(rel)),
            Some(e) if !e.is_dir() => {
                return Err(Error::at(ErrorKind::NotADirectory, rel, "not a directory"));
            }
            Some(_) => {}
        }
        let mut merged: BTreeMap<String, Entry> = BTreeMap::new();
        let mut truncated = false;
        if self.upper_stat(rel)?.is_some_and(|e| e.is_dir()) {
            let w = self.upper.walk(&upper_path(rel), max).map_err(upper_err)?;
            truncated |= w.truncated;
            for mut e in w.entries {
                e.path = from_upper(&e.path);
                merged.insert(e.path.clone(), e);
            }
        }
        let st = self.lock();
        if !st.hidden(rel) && self.lower.stat(rel).is_ok_and(|e| e.is_dir()) {
            let w = self.lower.walk(rel, max.saturating_add(merged.len()))?;
            truncated |= w.truncated;
            let files: HashSet<String> =
                merged.values().filter(|e| !e.is_dir()).map(|e| e.path.clone()).collect();
            for e in w.entries {
                if !merged.contains_key(&e.path)
                    && !st.hidden(&e.path)
                    && !under_file(&files, &e.path)
                {
                    merged.insert(e.path.clone(), writable(e));
                }
            }
        }
        if merged.len() > max {
            truncated = true;
        }
        Ok(Walk { entries: merged.into_values().take(max).collect(), truncated })
    }

    /// Copies the merged entry at `from` (a file or a directory tree) to `to`.
    fn copy_entry(&self, from: &Entry, to: &str) -> Result<()> {
        if !from.is_dir() {
            if !crate::vfs::volume::has_content(from) {
                let what = if from.entry_type == TYPE_SYMLINK {
                    "a link in a copy-on-write mount cannot be moved (links are never followed)"
                } else {
                    "a special file (FIFO, socket or device) in a copy-on-write mount cannot be \
                     moved (it has no content to copy)"
                };
                return Err(Error::at(ErrorKind::Unsupported, from.path.clone(), what));
            }
            let data = self.read_merged(&from.path, from.size)?;
            self.write(to, &data, &WriteOptions::default())?;
            return Ok(());
        }
        self.create_dir(to)?;
        let w = self.merged_walk(&from.path, usize::MAX)?;
        for e in w.entries {
            let dest = paths::under(to, paths::strip_dir(&e.path, &from.path));
            if e.is_dir() {
                self.create_dir(&dest)?;
            } else {
                self.copy_entry(&e, &dest)?;
            }
        }
        Ok(())
    }
}

/// Writing at or through a link of the lower layer: refused as the dir volume
/// refuses it (the link is neither followed nor replaced).
fn link_error(path: &str) -> Error {
    Error::at(
        ErrorKind::InvalidPath,
        path,
        "is a symbolic link; links are never followed or replaced (delete the link first to put a file there)",
    )
}

/// A lower entry as the mount shows it: writable (the change lands in the upper
/// layer), though the host opened the lower directory read-only.
fn writable(mut e: Entry) -> Entry {
    e.read_only = false;
    e
}

/// [`writable`] for every entry of a walk or listing.
fn all_writable(entries: Vec<Entry>) -> Vec<Entry> {
    entries.into_iter().map(writable).collect()
}

/// Whether `path` lies beneath one of `files` (a file shadows a directory).
fn under_file(files: &HashSet<String>, path: &str) -> bool {
    let mut at = paths::parent(path);
    while let Some(p) = at {
        if files.contains(p) {
            return true;
        }
        at = paths::parent(p);
    }
    false
}

/// An upper-layer error with the path as the mount knows it.
fn upper_err(e: Error) -> Error {
    match e.path().map(from_upper) {
        Some(p) => e.with_path(p),
        None => e,
    }
}

impl Volume for CowVolume {
    fn stat(&self, path: &str) -> Result<Entry> {
        if self.clean() {
            return self.lower.stat(path).map(writable);
        }
        self.merged_stat(path)?.ok_or_else(|| Error::not_found(path))
    }

    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        if self.clean() {
            return self.lower.list(path).map(all_writable);
        }
        // A walk capped to one level would still visit everything below; listing
        // both layers' children directly is cheaper.
        let dir = self.merged_stat(path)?.ok_or_else(|| Error::not_found(path))?;
        if !dir.is_dir() {
            return Err(Error::at(ErrorKind::NotADirectory, path, "not a directory"));
        }
        let mut merged: BTreeMap<String, Entry> = BTreeMap::new();
        if self.upper_stat(path)?.is_some_and(|e| e.is_dir()) {
            for mut e in self.upper.list(&upper_path(path)).map_err(upper_err)? {
                e.path = from_upper(&e.path);
                merged.insert(e.path.clone(), e);
            }
        }
        let st = self.lock();
        if !st.hidden(path) && self.lower.stat(path).is_ok_and(|e| e.is_dir()) {
            for e in self.lower.list(path)? {
                if !merged.contains_key(&e.path) && !st.hidden(&e.path) {
                    merged.insert(e.path.clone(), writable(e));
                }
            }
        }
        Ok(merged.into_values().collect())
    }

    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        if self.clean() {
            let mut w = self.lower.walk(path, max_entries)?;
            w.entries = all_writable(w.entries);
            return Ok(w);
        }
        self.merged_walk(path, max_entries)
    }

    fn walk_packed(&self, path: &str, max_entries: usize) -> Result<PackedWalk> {
        if self.clean() {
            let mut w = self.lower.walk_packed(path, max_entries)?;
            for f in &mut w.entry_flags {
                *f &= !PACKED_READ_ONLY;
            }
            return Ok(w);
        }
        self.merged_walk(path, max_entries).map(PackedWalk::from)
    }

    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        if self.clean() {
            return self.lower.read(path, offset, len);
        }
        if self.upper_stat(path)?.is_some() {
            return self.upper.read(&upper_path(path), offset, len).map_err(upper_err);
        }
        if self.lock().hidden(path) {
            return Err(Error::not_found(path));
        }
        self.lower.read(path, offset, len)
    }

    fn stat_read(&self, path: &str, offset: u64, len: u64) -> Result<(Entry, Vec<u8>)> {
        if self.clean() {
            return self.lower.stat_read(path, offset, len).map(|(e, d)| (writable(e), d));
        }
        if self.upper_stat(path)?.is_some() {
            let (mut e, data) =
                self.upper.stat_read(&upper_path(path), offset, len).map_err(upper_err)?;
            e.path = path.to_string();
            return Ok((e, data));
        }
        if self.lock().hidden(path) {
            return Err(Error::not_found(path));
        }
        self.lower.stat_read(path, offset, len).map(|(e, d)| (writable(e), d))
    }

    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        if path == "/" {
            return Err(Error::at(ErrorKind::NotAFile, path, "cannot write the volume root"));
        }
        match self.merged_stat(path)? {
            Some(e) if e.is_dir() => {
                return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
            }
            // As the dir volume: a link is neither followed nor replaced by a write.
            Some(e) if e.entry_type == TYPE_SYMLINK => return Err(link_error(path)),
            Some(_) if options.create_only => {
                return Err(Error::at(ErrorKind::AlreadyExists, path, "file already exists"));
            }
            _ => {}
        }
        self.check_parents(path)?;
        let mut st = self.lock();
        self.note_base(&mut st, path)?;
        let mut e = self.upper.write(&upper_path(path), content, options).map_err(upper_err)?;
        self.save(&mut st)?;
        e.path = path.to_string();
        Ok(e)
    }

    /// A file of the upper layer is appended to there. Any other is copied up with
    /// the new bytes: the lower layer's content (when it shows) and `content`, as one
    /// write of the upper layer, so a failure leaves the lower file showing, unchanged.
    fn append(&self, path: &str, content: &[u8]) -> Result<Entry> {
        if path == "/" {
            return Err(Error::at(ErrorKind::NotAFile, path, "cannot write the volume root"));
        }
        if let Some(e) = self.upper_stat(path)? {
            if e.is_dir() {
                return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
            }
            if e.entry_type == TYPE_SYMLINK {
                return Err(link_error(path));
            }
            let mut st = self.lock();
            // A file of the upper layer has its base already (noted when it was first
            // written): the state is saved only when it changes.
            let known = st.bases.contains_key(path);
            self.note_base(&mut st, path)?;
            let mut e = self.upper.append(&upper_path(path), content).map_err(upper_err)?;
            if !known {
                self.save(&mut st)?;
            }
            e.path = path.to_string();
            return Ok(e);
        }
        let mut whole = match self.merged_stat(path)? {
            Some(e) if e.is_dir() => {
                return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
            }
            Some(e) if e.entry_type == TYPE_SYMLINK => return Err(link_error(path)),
            Some(e) => read_whole(self.lower.as_ref(), path, e.size)?,
            None => Vec::new(),
        };
        whole.extend_from_slice(content);
        self.write(path, &whole, &WriteOptions::default())
    }

    fn delete(&self, path: &str, recursive: bool) -> Result<()> {
        if path == "/" {
            return Err(Error::at(ErrorKind::InvalidPath, path, "cannot delete the volume root"));
        }
        let e = self.merged_stat(path)?.ok_or_else(|| Error::not_found(path))?;
        if e.is_dir() && !recursive && !self.list(path)?.is_empty() {
            return Err(Error::at(
                ErrorKind::Conflict,
                path,
                "directory is not empty; pass recursive=true",
            ));
        }
        let mut st = self.lock();
        let lower = self.lower_stat(&st, path)?;
        // What the session saw at and beneath the path, directories included: a file
        // written later where a directory was must find that directory at apply.
        if let Some(l) = &lower {
            self.note_base(&mut st, path)?;
            if l.is_dir() {
                for f in self.lower.walk(path, usize::MAX)?.entries {
                    if !st.hidden(&f.path) {
                        self.note_base(&mut st, &f.path)?;
                    }
                }
            }
        }
        if self.upper_stat(path)?.is_some() {
            self.upper.delete(&upper_path(path), true).map_err(upper_err)?;
        }
        if lower.is_some() {
            st.add_whiteout(path);
        }
        self.save(&mut st)
    }

    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        if rename_is_noop(from, to)? {
            return Ok(());
        }
        let src = self.merged_stat(from)?.ok_or_else(|| Error::not_found(from))?;
        match self.merged_stat(to)? {
            Some(d) if d.is_dir() => {
                return Err(Error::at(ErrorKind::AlreadyExists, to, "destination is a directory"));
            }
            Some(_) if !overwrite || src.is_dir() => {
                return Err(Error::at(ErrorKind::AlreadyExists, to, "destination exists"));
            }
            _ => {}
        }
        // Copy up, then delete the source: a lower source becomes a whiteout.
        self.copy_entry(&src, to)?;
        self.delete(from, true)
    }

    fn create_dir(&self, path: &str) -> Result<Entry> {
        match self.merged_stat(path)? {
            Some(e) if e.is_dir() => return Ok(e),
            Some(_) => {
                return Err(Error::at(
                    ErrorKind::AlreadyExists,
                    path,
                    "a file exists at this path",
                ));
            }
            None => {}
        }
        self.check_parents(path)?;
        let mut e = self.upper.create_dir(&upper_path(path)).map_err(upper_err)?;
        let mut st = self.lock();
        self.save(&mut st)?;
        e.path = path.to_string();
        Ok(e)
    }

    fn prefetch(&self, files: &[PrefetchFile]) {
        if self.clean() {
            return self.lower.prefetch(files);
        }
        let st = self.lock();
        let visible: Vec<PrefetchFile> =
            files.iter().filter(|f| !st.hidden(&f.path)).cloned().collect();
        drop(st);
        self.lower.prefetch(&visible)
    }
}
