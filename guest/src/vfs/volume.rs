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
use crate::vfs::entry::Entry;

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

/// A file about to be read whole (see [`Volume::prefetch`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrefetchFile {
    /// Volume-relative path, as listed by [`Volume::walk`].
    pub path: String,
    /// Its size as listed; the reader asks for `size + 1` bytes from offset 0.
    pub size: u64,
}

/// Whether a file entry has content to read: not a link or special file, which a
/// directory volume lists (types `symlink`, `special`) but never opens for reading.
pub fn has_content(e: &Entry) -> bool {
    !matches!(
        e.entry_type.as_str(),
        crate::vfs::entry::TYPE_SYMLINK | crate::vfs::entry::TYPE_SPECIAL
    )
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
pub trait Volume {
    /// Metadata of one path; `not-found` when absent.
    fn stat(&self, path: &str) -> Result<Entry>;
    /// The direct children of a directory, in any order.
    fn list(&self, path: &str) -> Result<Vec<Entry>>;
    /// Every entry beneath a directory, at most `max_entries` of them. One call instead
    /// of one per directory: the boundary is crossed once per walk.
    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk>;
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
    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        (**self).read(path, offset, len)
    }
    fn stat_read(&self, path: &str, offset: u64, len: u64) -> Result<(Entry, Vec<u8>)> {
        (**self).stat_read(path, offset, len)
    }
    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        (**self).write(path, content, options)
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
