//! Content-addressed objects of snapshots: blobs (file contents) and trees (one
//! directory's entries), each named by the SHA-256 of its bytes, as git stores them.
//! An unchanged file is the same blob and an unchanged directory the same tree in
//! every snapshot, so a snapshot stores only what changed since any earlier one.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use filestore_volumes::{Error, ErrorKind, Volume, WriteOptions};

/// Where objects live beneath the store's root.
pub const OBJECTS: &str = "/snapshots";

/// An existing object older than this is rewritten when a snapshot reuses it: half
/// of [`super::DEFAULT_GRACE`].
const REFRESH_MS: u64 = super::DEFAULT_GRACE.as_millis() as u64 / 2;

fn now() -> u64 {
    filestore_runtime::clocks::now_ms()
}

/// Largest tree object read back, bytes (a directory of ~100,000 entries).
pub const MAX_TREE_BYTES: u64 = 32 * 1024 * 1024;

/// One entry of a directory in a snapshot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TreeEntry {
    /// Its name in the directory.
    pub name: String,
    /// `file` or `dir`.
    pub kind: String,
    /// The SHA-256 of its blob (a file) or of its tree (a directory).
    pub sha256: String,
    /// Size in bytes (files).
    #[serde(default)]
    pub size: u64,
    /// Modified time as the volume reported it when captured: with the size, what
    /// the next snapshot compares to know a file unchanged without reading it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_ms: Option<u64>,
    /// The entry refused mutation (a stored tool result).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// Its entry type when not a plain `file`/`directory` (`tool_result`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_type: Option<String>,
    /// Its per-type attributes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<serde_json::Value>,
}

/// A directory's entries, sorted by name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// The entries.
    pub entries: Vec<TreeEntry>,
}

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn object_path(kind: &str, hash: &str) -> Result<String, Error> {
    if hash.len() != 64 || !hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(Error::new(
            ErrorKind::Backend,
            format!("snapshot object name is not a SHA-256: {} bytes", hash.len()),
        ));
    }
    Ok(format!("{OBJECTS}/{kind}/{}/{hash}", &hash[..2]))
}

/// The objects of one store, with what this process knows to be there already (so
/// an object seen in an earlier snapshot is not looked up again).
pub struct Objects<'a> {
    store: &'a dyn Volume,
    known: HashSet<String>,
    /// Objects written by this process since it was made.
    pub written: u64,
    /// Their bytes.
    pub written_bytes: u64,
}

impl<'a> Objects<'a> {
    /// The objects of the store whose root is `store`.
    pub fn new(store: &'a dyn Volume) -> Objects<'a> {
        Objects { store, known: HashSet::new(), written: 0, written_bytes: 0 }
    }

    /// Forgets which objects are in the store: each is looked up again.
    pub fn forget(&mut self) {
        self.known.clear();
    }

    /// Notes that the object `hash` is in the store (read from it, or written).
    pub fn know(&mut self, hash: &str) {
        self.known.insert(hash.to_string());
    }

    /// Stores `bytes` as an object of `kind` (`blobs`, `trees`) named by their hash,
    /// unless it is there: create-only, so two writers of one object (the same
    /// bytes) leave it whole. Returns the hash.
    fn put(&mut self, kind: &str, bytes: &[u8]) -> Result<String, Error> {
        let hash = sha256_hex(bytes);
        if self.known.contains(&hash) {
            return Ok(hash);
        }
        let path = object_path(kind, &hash)?;
        match self.store.stat(&path) {
            Ok(found)
                if found.modified_ms.is_some_and(|m| m.saturating_add(REFRESH_MS) < now()) =>
            {
                // An old object this snapshot will name: written again (the same
                // bytes, replaced whole) so that its time is young, and a collection
                // running meanwhile keeps it even while no record names it yet
                // (see `super::gc`).
                self.store.write(&path, bytes, &WriteOptions::default())?;
            }
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let options = WriteOptions { create_only: true, ..WriteOptions::default() };
                match self.store.write(&path, bytes, &options) {
                    Ok(_) => {
                        self.written += 1;
                        self.written_bytes += bytes.len() as u64;
                    }
                    Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        }
        self.know(&hash);
        Ok(hash)
    }

    /// Stores a file's content; its hash.
    pub fn put_blob(&mut self, bytes: &[u8]) -> Result<String, Error> {
        self.put("blobs", bytes)
    }

    /// Stores a tree; its hash.
    pub fn put_tree(&mut self, tree: &Tree) -> Result<String, Error> {
        let bytes = serde_json::to_vec(tree).expect("a tree serialises");
        self.put("trees", &bytes)
    }

    /// The content of the blob `hash`.
    pub fn blob(&self, hash: &str, size: u64) -> Result<Vec<u8>, Error> {
        let bytes = self.store.read(&object_path("blobs", hash)?, 0, size.max(1))?;
        if sha256_hex(&bytes) != hash {
            return Err(Error::new(
                ErrorKind::Backend,
                format!("snapshot blob {hash} does not match its hash (damaged store)"),
            ));
        }
        Ok(bytes)
    }

    /// The tree `hash`.
    pub fn tree(&mut self, hash: &str) -> Result<Tree, Error> {
        let path = object_path("trees", hash)?;
        let bytes = self.store.read(&path, 0, MAX_TREE_BYTES + 1)?;
        if bytes.len() as u64 > MAX_TREE_BYTES || sha256_hex(&bytes) != hash {
            return Err(Error::new(
                ErrorKind::Backend,
                format!("snapshot tree {hash} is damaged (its hash or size is wrong)"),
            ));
        }
        self.know(hash);
        serde_json::from_slice(&bytes).map_err(|e| {
            Error::new(ErrorKind::Backend, format!("snapshot tree {hash} is not a tree: {e}"))
        })
    }
}
