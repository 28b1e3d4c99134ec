//! The storage a mount points at.
//!
//! [`Volume`] is the guest-side view of the WIT `volume` resource: a handful of
//! primitive operations on volume-relative paths (absolute, normalised, `/` being the
//! volume root). Everything above it (routing, overlays, read paging, grep, edits) is
//! written against this trait, so the same logic runs over the WIT import inside the
//! component and over [`MemoryVolume`](crate::vfs::memory::MemoryVolume) natively, in unit tests and benchmarks.
//!
//! The host's own backends (`memory`, `dir`) implement this trait as well; the host's
//! memory backend *is* [`MemoryVolume`](crate::vfs::memory::MemoryVolume).

use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::{Entry, EntryKind, TYPE_DIRECTORY, TYPE_FILE};

/// Options of [`Volume::write`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WriteOptions {
    /// Fail with `already-exists` when the path exists.
    pub create_only: bool,
    /// Mark the new entry read-only (tool results, skills).
    pub read_only: bool,
    /// Entry type to record (`None`: `file`). Volumes that cannot store it ignore it.
    pub entry_type: Option<String>,
    /// Per-type attributes to record. Volumes that cannot store them ignore them.
    pub attributes: Option<serde_json::Value>,
}

/// The result of [`Volume::walk`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Walk {
    /// Every file and directory beneath the walked directory (not the directory itself),
    /// in no particular order.
    pub entries: Vec<Entry>,
    /// Whether the walk stopped at the entry cap.
    pub truncated: bool,
}

/// [`PackedWalk::entry_flags`]: a directory (else a file).
pub const PACKED_DIRECTORY: u8 = 1;
/// [`PackedWalk::entry_flags`]: read-only.
pub const PACKED_READ_ONLY: u8 = 2;
/// [`PackedWalk::entry_flags`]: the modification time is known.
pub const PACKED_MODIFIED: u8 = 4;

/// A [`Walk`] as columns, for the component boundary (WIT `packed-walk`,
/// [`Volume::walk_packed`]): entry `i` is element `i` of each column, every path is in
/// one string, and only the entries whose type is not their kind's name, or that
/// have attributes, are listed with them. Lists of numbers cross the boundary as one
/// copy each; 100,000 [`Entry`] records cost two or three allocations in the
/// component per entry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackedWalk {
    /// The entries' paths, one after another.
    pub paths: String,
    /// Each entry's path length in bytes.
    pub path_lens: Vec<u32>,
    /// Each entry's size (0 for a directory).
    pub sizes: Vec<u64>,
    /// Each entry's modification time (ms since the Unix epoch), when its flags have
    /// [`PACKED_MODIFIED`]; 0 otherwise.
    pub modified_ms: Vec<u64>,
    /// Each entry's [`PACKED_DIRECTORY`], [`PACKED_READ_ONLY`], [`PACKED_MODIFIED`].
    pub entry_flags: Vec<u8>,
    /// (entry, type) for the entries whose type is not `file` (a file) or `directory`
    /// (a directory), by increasing entry.
    pub entry_types: Vec<(u32, String)>,
    /// (entry, attributes) for the entries with attributes, by increasing entry.
    pub attributes: Vec<(u32, serde_json::Value)>,
    /// Whether the walk stopped at the entry cap.
    pub truncated: bool,
}

impl PackedWalk {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.path_lens.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.path_lens.is_empty()
    }

    /// Appends one entry.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        path: &str,
        kind: EntryKind,
        size: u64,
        modified_ms: Option<u64>,
        read_only: bool,
        entry_type: &str,
        attributes: Option<&serde_json::Value>,
    ) {
        let i = self.len() as u32;
        let dir = kind == EntryKind::Directory;
        if entry_type != if dir { TYPE_DIRECTORY } else { TYPE_FILE } {
            self.entry_types.push((i, entry_type.to_string()));
        }
        if let Some(a) = attributes {
            self.attributes.push((i, a.clone()));
        }
        self.paths.push_str(path);
        self.path_lens.push(path.len() as u32);
        self.sizes.push(size);
        self.modified_ms.push(modified_ms.unwrap_or(0));
        self.entry_flags.push(
            if dir { PACKED_DIRECTORY } else { 0 }
                | if read_only { PACKED_READ_ONLY } else { 0 }
                | if modified_ms.is_some() { PACKED_MODIFIED } else { 0 },
        );
    }

    /// Appends `e`.
    pub fn push_entry(&mut self, e: &Entry) {
        self.push(
            &e.path,
            e.kind,
            e.size,
            e.modified_ms,
            e.read_only,
            &e.entry_type,
            e.attributes.as_ref(),
        );
    }

    /// Where each entry's path starts in [`PackedWalk::paths`], plus the end: `n + 1`
    /// offsets. `None` when the columns are not all `n` long, or the lengths do not
    /// add up to the string, or one ends inside a character (a broken answer).
    pub fn path_offsets(&self) -> Option<Vec<u32>> {
        let n = self.len();
        if self.sizes.len() != n || self.modified_ms.len() != n || self.entry_flags.len() != n {
            return None;
        }
        let mut out = Vec::with_capacity(n + 1);
        let mut at: u32 = 0;
        out.push(0);
        for &len in &self.path_lens {
            at = at.checked_add(len)?;
            if !self.paths.is_char_boundary(at as usize) {
                return None;
            }
            out.push(at);
        }
        (at as usize == self.paths.len()).then_some(out)
    }

    /// Whether entry `i` is a directory.
    pub fn is_dir(&self, i: usize) -> bool {
        self.entry_flags[i] & PACKED_DIRECTORY != 0
    }

    /// Entry `i`'s modification time, when known.
    pub fn modified(&self, i: usize) -> Option<u64> {
        (self.entry_flags[i] & PACKED_MODIFIED != 0).then(|| self.modified_ms[i])
    }

    /// Entry `i`'s type.
    pub fn entry_type(&self, i: usize) -> &str {
        match self.entry_types.binary_search_by_key(&(i as u32), |(j, _)| *j) {
            Ok(k) => &self.entry_types[k].1,
            Err(_) if self.is_dir(i) => TYPE_DIRECTORY,
            Err(_) => TYPE_FILE,
        }
    }

    /// Entry `i` as an [`Entry`] whose path is `path` (the caller's: its own slice of
    /// [`PackedWalk::paths`], or a virtual path built from it).
    pub fn entry(&self, i: usize, path: String) -> Entry {
        let attributes = self
            .attributes
            .binary_search_by_key(&(i as u32), |(j, _)| *j)
            .ok()
            .map(|k| self.attributes[k].1.clone());
        Entry {
            path,
            kind: if self.is_dir(i) { EntryKind::Directory } else { EntryKind::File },
            size: self.sizes[i],
            modified_ms: self.modified(i),
            read_only: self.entry_flags[i] & PACKED_READ_ONLY != 0,
            entry_type: self.entry_type(i).to_string(),
            attributes,
        }
    }
}

impl From<Walk> for PackedWalk {
    fn from(w: Walk) -> PackedWalk {
        let mut p = PackedWalk::default();
        for e in &w.entries {
            p.push_entry(e);
        }
        p.truncated = w.truncated;
        p
    }
}

/// A file about to be read whole (see [`Volume::prefetch`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrefetchFile {
    /// Volume-relative path, as listed by [`Volume::walk`].
    pub path: String,
    /// Its size as listed; the reader asks for `size + 1` bytes from offset 0.
    pub size: u64,
}

/// The first check of every volume's [`Volume::rename`]: `Ok(true)` when `from` and
/// `to` are the same path (nothing to do), `invalid-argument` when `to` lies inside
/// `from` (a directory cannot move into itself), `Ok(false)` otherwise. Paths are
/// volume-relative and normalised.
pub fn rename_is_noop(from: &str, to: &str) -> Result<bool> {
    if from == to {
        return Ok(true);
    }
    if crate::vfs::paths::is_within(to, from) {
        return Err(Error::at(
            ErrorKind::InvalidArgument,
            to,
            format!("cannot move '{from}' into itself"),
        ));
    }
    Ok(false)
}

/// Whether a `stat` error only says the path does not exist (yet): `not-found`, or
/// `not-a-directory` when a parent is a file. Any other error is a real failure.
pub fn is_absent(e: &Error) -> bool {
    matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory)
}

/// Whether a file entry has content to read: not a link or special file, which a
/// directory volume lists (types `symlink`, `special`) but never opens for reading.
pub fn has_content(e: &Entry) -> bool {
    !matches!(
        e.entry_type.as_str(),
        crate::vfs::entry::TYPE_SYMLINK | crate::vfs::entry::TYPE_SPECIAL
    )
}

/// [`Volume::append`] as a read and a whole write: the file's bytes (none when it is
/// missing) and `content` written as one [`Volume::write`], which keeps the old
/// content when it fails. A directory is `not-a-file`, a link or special file
/// refused as a read of it is, a read-only entry `read-only` (before anything is
/// read). Also the copy-up of a layered volume: what a file of a lower layer becomes
/// in the upper one.
pub fn append_by_rewrite<V: Volume + ?Sized>(v: &V, path: &str, content: &[u8]) -> Result<Entry> {
    let mut whole = match v.stat(path) {
        Ok(e) if e.kind == EntryKind::Directory => {
            return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
        }
        Ok(e) if e.read_only => {
            return Err(Error::at(ErrorKind::ReadOnly, path, "entry is read-only"));
        }
        Ok(e) => read_whole_file(v, path, e.size)?,
        Err(e) if is_absent(&e) => Vec::new(),
        Err(e) => return Err(e),
    };
    whole.extend_from_slice(content);
    v.write(path, &whole, &WriteOptions::default())
}

/// The bytes of the file at `path`, listed with `size` bytes. A volume may answer
/// fewer bytes than asked before the end, so only a short answer once `size` bytes
/// are in ends it (or an empty one: the file shrank); a small file is one read.
fn read_whole_file<V: Volume + ?Sized>(v: &V, path: &str, size: u64) -> Result<Vec<u8>> {
    let mut data: Vec<u8> = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    loop {
        let at = data.len() as u64;
        let ask = if at < size { size - at + 1 } else { 1 << 20 };
        let chunk = v.read(path, at, ask)?;
        let got = chunk.len() as u64;
        data.extend_from_slice(&chunk);
        if got == 0 || (got < ask && data.len() as u64 >= size) {
            return Ok(data);
        }
    }
}

/// Which storage a volume is (see [`Volume::identity`]): two mounts whose identities
/// overlap reach the same files, so a move between them must not copy and then
/// delete (the delete would take the copy with it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VolumeIdentity {
    /// The storage, opaque (`mem:…`, a directory's device…).
    pub storage: String,
    /// The root's place in that storage: one opaque token per path component.
    pub root: Vec<String>,
}

impl VolumeIdentity {
    /// Whether two volumes reach shared files: same storage, and one root at or
    /// beneath the other.
    pub fn overlaps(&self, other: &VolumeIdentity) -> bool {
        self.storage == other.storage
            && (self.root.starts_with(&other.root) || other.root.starts_with(&self.root))
    }
}

/// Primitive storage operations on volume-relative paths.
///
/// Paths passed in are normalised and absolute (`/` is the volume root). Entries
/// returned carry volume-relative paths; the mount layer rewrites them.
///
/// `Send + Sync`: the shell of `filestore_execute` (crate::shell) hands the mount
/// table to an interpreter whose filesystem trait requires both. The component is
/// single-threaded, so the bound costs nothing there; the host's backends are shared
/// between threads anyway.
pub trait Volume: Send + Sync {
    /// Metadata of one path; `not-found` when absent.
    fn stat(&self, path: &str) -> Result<Entry>;
    /// The direct children of a directory, in any order.
    fn list(&self, path: &str) -> Result<Vec<Entry>>;
    /// Every entry beneath a directory, at most `max_entries` of them. One call instead
    /// of one per directory: the boundary is crossed once per walk.
    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk>;
    /// [`Volume::walk`], packed (WIT `walk-packed`): the same entries with their paths
    /// in one string, so that the boundary is crossed with a few copies rather than
    /// with allocations per entry. The default packs [`Volume::walk`]; a backend that
    /// can build it directly overrides it.
    fn walk_packed(&self, path: &str, max_entries: usize) -> Result<PackedWalk> {
        self.walk(path, max_entries).map(PackedWalk::from)
    }
    /// Up to `len` bytes of a file starting at byte `offset` (fewer at the end).
    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>>;
    /// [`Volume::stat`] and, when the entry is a file with content, [`Volume::read`]
    /// of up to `len` bytes from `offset`, in one call: a small file's read crosses
    /// the component boundary once instead of twice (WIT `volume.stat-read`). The
    /// bytes belong to the entry returned: never more than its size from `offset`. A
    /// directory, or a file without content (a link or special file a directory volume
    /// lists, see [`has_content`]), comes with no bytes. The default makes the two
    /// calls; a backend that can answer both at once (one lock, one open) overrides it.
    fn stat_read(&self, path: &str, offset: u64, len: u64) -> Result<(Entry, Vec<u8>)> {
        let e = self.stat(path)?;
        let want = len.min(e.size.saturating_sub(offset));
        if e.kind != crate::vfs::entry::EntryKind::File || !has_content(&e) || want == 0 {
            return Ok((e, Vec::new()));
        }
        let data = self.read(path, offset, want)?;
        Ok((e, data))
    }
    /// Replaces (or creates) a whole file, creating parent directories.
    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry>;
    /// Adds `content` at the end of a file, creating it (and its parents, as
    /// [`Volume::write`]) when missing; the file's entry after the append (WIT
    /// `volume.append`). All or nothing: a failed append leaves the old content
    /// intact. A directory is `not-a-file`, a read-only entry `read-only`.
    ///
    /// The default reads the file whole and writes it back with the new bytes (one
    /// [`Volume::write`], atomic as the backend makes it): correct for every backend,
    /// at the cost of the whole file per call. A backend that can add bytes in place
    /// (a directory, memory) overrides it, so that an append loop costs its new bytes.
    fn append(&self, path: &str, content: &[u8]) -> Result<Entry> {
        append_by_rewrite(self, path, content)
    }
    /// Deletes a file, or a directory (`recursive` required when it is not empty).
    fn delete(&self, path: &str, recursive: bool) -> Result<()>;
    /// Renames a file or directory; `overwrite` allows replacing an existing file.
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()>;
    /// Creates a directory and its missing parents; succeeds when the directory
    /// exists, `already-exists` when a file is there. The default refuses
    /// (`unsupported`): a backend without empty directories says so.
    fn create_dir(&self, path: &str) -> Result<Entry> {
        Err(Error::at(ErrorKind::Unsupported, path, "this volume cannot create empty directories"))
    }
    /// Which storage this is, when the backend can tell; `None` (the default) means
    /// distinct from every other volume.
    fn identity(&self) -> Option<VolumeIdentity> {
        None
    }
    /// A hint that each of `files` is about to be read whole, in this order (grep over
    /// a walked tree). A remote backend may start fetching them, a bounded number at a
    /// time, so that the reads that follow are not one round trip each; files never
    /// read are dropped, and a later call replaces the list. No result: a file that
    /// cannot be fetched fails its own `read`. The default does nothing.
    fn prefetch(&self, files: &[PrefetchFile]) {
        let _ = files;
    }
    /// Whether the volume stores what [`WriteOptions`] asks beyond content (entry
    /// type, attributes, read-only entries). A host mounts the tool-results volume
    /// only on one that does: results must stay read-only with their attributes.
    fn keeps_entry_metadata(&self) -> bool {
        false
    }
}

impl<V: Volume + ?Sized> Volume for Arc<V> {
    fn stat(&self, path: &str) -> Result<Entry> {
        (**self).stat(path)
    }
    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        (**self).list(path)
    }
    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        (**self).walk(path, max_entries)
    }
    fn walk_packed(&self, path: &str, max_entries: usize) -> Result<PackedWalk> {
        (**self).walk_packed(path, max_entries)
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        (**self).read(path, offset, len)
    }
    fn stat_read(&self, path: &str, offset: u64, len: u64) -> Result<(Entry, Vec<u8>)> {
        (**self).stat_read(path, offset, len)
    }
    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        (**self).write(path, content, options)
    }
    fn append(&self, path: &str, content: &[u8]) -> Result<Entry> {
        (**self).append(path, content)
    }
    fn delete(&self, path: &str, recursive: bool) -> Result<()> {
        (**self).delete(path, recursive)
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        (**self).rename(from, to, overwrite)
    }
    fn create_dir(&self, path: &str) -> Result<Entry> {
        (**self).create_dir(path)
    }
    fn identity(&self) -> Option<VolumeIdentity> {
        (**self).identity()
    }
    fn prefetch(&self, files: &[PrefetchFile]) {
        (**self).prefetch(files)
    }
    fn keeps_entry_metadata(&self) -> bool {
        (**self).keeps_entry_metadata()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rename_is_noop_for_the_same_path_and_refuses_into_itself() {
        assert!(rename_is_noop("/a", "/a").unwrap());
        assert!(!rename_is_noop("/a", "/b").unwrap());
        assert!(!rename_is_noop("/a", "/ab").unwrap(), "a sibling sharing the prefix");
        let e = rename_is_noop("/a", "/a/b").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(e.to_string(), "/a/b: cannot move '/a' into itself");
    }
}
