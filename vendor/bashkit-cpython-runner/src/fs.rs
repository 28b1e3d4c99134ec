//! The filesystem the interpreter sees: the operations its WASI layer
//! ([`crate::wasi`]) performs, as bashkit's `FileSystem` trait names them, so an
//! embedder that served bashkit's trait serves this one unchanged.
//!
//! filestore: bashkit's trait has some 30 methods (snapshots, usage, limits, links,
//! search); the interpreter calls these 12.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use async_trait::async_trait;

/// What a filesystem operation failed with.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The operation failed; its kind becomes the guest's `errno` (`NotFound` →
    /// `ENOENT`, ...), its message is matched for the rest.
    #[error("io error: {0}")]
    Io(#[from] std::io::Error),
    /// The run was cancelled before it ended (the embedder's flag).
    #[error("execution cancelled")]
    Cancelled,
}

/// A filesystem operation's result.
pub type Result<T> = std::result::Result<T, Error>;

/// A node's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    /// Regular file containing data.
    File,
    /// Directory that can contain other entries.
    Directory,
    /// Symbolic link pointing to another path.
    Symlink,
    /// Named pipe (FIFO).
    Fifo,
}

impl FileType {
    /// Whether this is a regular file.
    pub fn is_file(&self) -> bool {
        matches!(self, FileType::File)
    }

    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        matches!(self, FileType::Directory)
    }

    /// Whether this is a symbolic link.
    pub fn is_symlink(&self) -> bool {
        matches!(self, FileType::Symlink)
    }
}

/// A node's metadata.
#[derive(Debug, Clone)]
pub struct Metadata {
    /// The type of this entry (file, directory, or symlink).
    pub file_type: FileType,
    /// File size in bytes. For directories, this is typically 0.
    pub size: u64,
    /// Unix permission mode (e.g., `0o644` for files, `0o755` for directories).
    pub mode: u32,
    /// Last modification time.
    pub modified: SystemTime,
    /// Creation time.
    pub created: SystemTime,
}

/// One entry of a directory listing.
#[derive(Debug, Clone)]
pub struct DirEntry {
    /// Entry name (filename only, not the full path).
    pub name: String,
    /// Metadata for this entry.
    pub metadata: Metadata,
}

/// The filesystem a run reads and writes. Paths are absolute and normalised.
#[async_trait]
pub trait FileSystem: Send + Sync {
    /// A file's whole content.
    async fn read_file(&self, path: &Path) -> Result<Vec<u8>>;
    /// Creates or replaces a file.
    async fn write_file(&self, path: &Path, content: &[u8]) -> Result<()>;
    /// Appends to a file, creating it when missing.
    async fn append_file(&self, path: &Path, content: &[u8]) -> Result<()>;
    /// Creates a directory (and its parents with `recursive`).
    async fn mkdir(&self, path: &Path, recursive: bool) -> Result<()>;
    /// Removes a file or (with `recursive`) a directory tree.
    async fn remove(&self, path: &Path, recursive: bool) -> Result<()>;
    /// A node's metadata, following a final symbolic link.
    async fn stat(&self, path: &Path) -> Result<Metadata>;
    /// A node's metadata, not following a final symbolic link.
    async fn lstat(&self, path: &Path) -> Result<Metadata>;
    /// A directory's entries.
    async fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>>;
    /// Moves a node.
    async fn rename(&self, from: &Path, to: &Path) -> Result<()>;
    /// Creates a symbolic link at `link` pointing to `target`.
    async fn symlink(&self, target: &Path, link: &Path) -> Result<()>;
    /// A symbolic link's target.
    async fn read_link(&self, path: &Path) -> Result<PathBuf>;
    /// Sets a node's modification time.
    async fn set_modified_time(&self, path: &Path, time: SystemTime) -> Result<()>;
    /// The largest file a write may make; the guest's writes past it fail with
    /// `EFBIG` before they reach [`FileSystem::write_file`].
    fn max_file_size(&self) -> u64 {
        u64::MAX
    }
}

/// Joins a directory listing's `child` name onto `base` as bashkit's VFS does:
/// plain string concatenation with one `/`, no `.`/`..` resolution.
pub(crate) fn vfs_join(base: &Path, child: impl AsRef<Path>) -> PathBuf {
    let child = child.as_ref();
    let (Some(base), Some(child)) = (base.to_str(), child.to_str()) else {
        return base.join(child);
    };
    match (base, child) {
        ("", _) => PathBuf::from(child),
        (_, "") => PathBuf::from(base),
        (_, _) if child.starts_with('/') => PathBuf::from(child),
        _ => PathBuf::from(format!("{}/{}", base.trim_end_matches('/'), child)),
    }
}
