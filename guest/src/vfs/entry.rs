//! File and directory metadata (docs/architecture.md#entries).

use serde::{Deserialize, Serialize};

/// Whether an entry is a file or a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A regular file with content.
    File,
    /// A directory (real in directory volumes, implied by file paths in memory volumes).
    Directory,
}

/// The entry type of an ordinary file.
pub const TYPE_FILE: &str = "file";
/// The entry type of a directory.
pub const TYPE_DIRECTORY: &str = "directory";
/// Entry type of a symbolic link listed by a directory volume (the host's
/// `volumes::dir::TYPE_SYMLINK`): shown, never followed, no content.
pub const TYPE_SYMLINK: &str = "symlink";
/// Entry type of a FIFO, socket or device listed by a directory volume (the host's
/// `volumes::dir::TYPE_SPECIAL`): shown, never opened.
pub const TYPE_SPECIAL: &str = "special";

/// One file or directory with its metadata.
///
/// Paths are absolute: virtual paths once they leave the mount layer, volume-relative
/// paths (still starting with `/`) inside a volume.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Absolute, normalised path.
    pub path: String,
    /// File or directory.
    pub kind: EntryKind,
    /// Size in bytes (0 for directories).
    pub size: u64,
    /// Last modification, milliseconds since the Unix epoch, when the volume knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified_ms: Option<u64>,
    /// Whether the entry refuses mutation (read-only mount or read-only entry).
    pub read_only: bool,
    /// `file`, `directory`, `tool_result`, `skill`, `skill_reference`, `attachment`, ...
    pub entry_type: String,
    /// Per-type attributes, a JSON object (e.g. `{tool_id, tool_call_id, result_type}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes: Option<serde_json::Value>,
}

impl Entry {
    /// A plain file entry.
    pub fn file(path: impl Into<String>, size: u64, modified_ms: Option<u64>) -> Entry {
        Entry {
            path: path.into(),
            kind: EntryKind::File,
            size,
            modified_ms,
            read_only: false,
            entry_type: TYPE_FILE.to_string(),
            attributes: None,
        }
    }

    /// A directory entry.
    pub fn directory(path: impl Into<String>, modified_ms: Option<u64>) -> Entry {
        Entry {
            path: path.into(),
            kind: EntryKind::Directory,
            size: 0,
            modified_ms,
            read_only: false,
            entry_type: TYPE_DIRECTORY.to_string(),
            attributes: None,
        }
    }

    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        self.kind == EntryKind::Directory
    }

    /// The last path component (`""` for the root).
    pub fn name(&self) -> &str {
        crate::vfs::paths::file_name(&self.path)
    }

    /// Estimated tokens for the content: `ceil(bytes / 4)`.
    ///
    /// The design says chars/4 (docs/architecture.md#entries); bytes are what metadata
    /// knows without reading the file, and for ASCII text the two agree.
    pub fn tokens(&self) -> u64 {
        estimate_tokens_bytes(self.size)
    }
}

/// `ceil(n / 4)`: the token estimate for `n` characters or bytes.
pub fn estimate_tokens_bytes(n: u64) -> u64 {
    n.div_ceil(4)
}

/// The token estimate of a string: `ceil(chars / 4)`.
pub fn estimate_tokens(text: &str) -> u64 {
    estimate_tokens_bytes(text.chars().count() as u64)
}
