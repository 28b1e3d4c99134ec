//! Entry metadata beyond content: an entry type, attributes, a read-only flag.
//!
//! Object listings carry a key, a size, a time and an ETag, nothing else, so the
//! metadata of an object lives in a small JSON object of its own, the *sidecar*, at
//! `{prefix}/.filestore/meta/{path}` (see [`RESERVED_NAME`]). A walk lists the
//! sidecars of its subtree with one more paginated LIST and fetches only the ones
//! that exist (a workspace of plain files has none: no extra GET), a bounded number
//! at a time; `stat` fetches the one sidecar alongside its HEAD.
//!
//! **Whose word a sidecar is.** Anyone who can write the bucket can write a sidecar,
//! so a sidecar carries no authority of its own: an entry type (and the attributes
//! that go with it) is shown only when it is one of the types the volume's role
//! allows ([`ObjectVolume::with_trusted_entry_types`]; the `/tool_calls` mount
//! allows `tool_result`, every other mount none). Any other type — `skill`,
//! `tool_result` outside `/tool_calls`, `symlink`, `directory`, anything — leaves
//! the object a plain `file` without attributes. The read-only flag is honoured
//! from any sidecar: it only takes rights away from agents, never grants them (a
//! forged one refuses agents' changes to a file its forger could delete anyway).
//!
//! A sidecar records the ETag (and size) of the object it describes and applies
//! only while they match: an object replaced by another client, or by a plain
//! write, is shown as a plain file, never with stale attributes or a stale
//! read-only flag. Writes with metadata put the object first, then its sidecar; a
//! create whose sidecar cannot be stored is undone (the object deleted), so a tool
//! result is never left without its read-only flag.
//!
//! [`RESERVED_NAME`]: super::keys::RESERVED_NAME
//! [`ObjectVolume::with_trusted_entry_types`]: super::ObjectVolume::with_trusted_entry_types

use filestore_guest::vfs::entry::{Entry, TYPE_FILE};
use filestore_guest::vfs::volume::WriteOptions;
use serde::{Deserialize, Serialize};

/// The metadata of one object.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Meta {
    /// The ETag of the object described (quotes and `W/` removed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// Its size.
    pub size: u64,
    /// Mutation refused.
    #[serde(default)]
    pub read_only: bool,
    /// Entry type (`tool_result`...); none means `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry_type: Option<String>,
    /// Per-type attributes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attributes: Option<serde_json::Value>,
}

/// Most bytes of a sidecar read back: entry attributes are small JSON objects.
pub(super) const MAX_META_BYTES: usize = 64 * 1024;

impl Meta {
    /// The metadata `options` asks to store, or `None` when it asks for none (a plain
    /// file needs no sidecar).
    pub(super) fn wanted(options: &WriteOptions) -> Option<Meta> {
        (options.read_only || options.entry_type.is_some() || options.attributes.is_some()).then(
            || Meta {
                etag: None,
                size: 0,
                read_only: options.read_only,
                entry_type: options.entry_type.clone(),
                attributes: options.attributes.clone(),
            },
        )
    }

    /// Parses a stored sidecar; unreadable ones count as absent (a plain file).
    pub(super) fn parse(bytes: &[u8]) -> Option<Meta> {
        if bytes.len() > MAX_META_BYTES {
            return None;
        }
        serde_json::from_slice(bytes).ok()
    }

    /// Whether this sidecar describes the object with `etag` and `size`.
    pub(super) fn describes(&self, etag: Option<&str>, size: u64) -> bool {
        if self.size != size {
            return false;
        }
        match (self.etag.as_deref(), etag.map(normalize_etag)) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
    }

    /// Applies the metadata to a file entry: the read-only flag always, the entry
    /// type and attributes only when `trusted` (the volume's role) lists the type
    /// (`file` for attributes on a plain file). See the module docs.
    pub(super) fn apply(&self, e: &mut Entry, trusted: &[String]) {
        e.read_only = self.read_only;
        let ty = self.entry_type.as_deref().unwrap_or(TYPE_FILE);
        if !trusted.iter().any(|t| t == ty) {
            return;
        }
        e.entry_type = ty.to_string();
        e.attributes = self.attributes.clone();
    }
}

/// An ETag without quotes or a weak marker, as stores spell it differently in
/// listings and headers.
pub(super) fn normalize_etag(e: &str) -> String {
    e.trim().trim_start_matches("W/").trim_matches('"').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sidecar_applies_only_to_the_object_it_describes() {
        let m = Meta { etag: Some("abc".into()), size: 3, read_only: true, ..Default::default() };
        assert!(m.describes(Some("\"abc\""), 3));
        assert!(m.describes(Some("W/\"abc\""), 3));
        assert!(!m.describes(Some("\"abd\""), 3));
        assert!(!m.describes(Some("\"abc\""), 4));
        let bytes = serde_json::to_vec(&m).unwrap();
        assert_eq!(Meta::parse(&bytes), Some(m));
        assert_eq!(Meta::parse(b"not json"), None);
        assert!(Meta::wanted(&WriteOptions::default()).is_none());
    }
}
