//! Errors and entries between the guest's types and the WIT `types` interface.

use super::filestore::component::types::{Entry, EntryKind as WitKind, Error};
use crate::error::Error as DomError;
use crate::vfs::entry::{Entry as DomEntry, EntryKind};

crate::wit_error_conversions!(Error);

pub(super) fn to_wit_error(e: DomError) -> Error {
    kind_to_wit(e.kind(), e.to_string())
}

/// A volume error about `path`: the host sends the message without the path.
pub(super) fn from_wit_error(e: Error, path: &str) -> DomError {
    let (kind, m) = kind_from_wit(e);
    DomError::at(kind, path, m)
}

/// A host error about no path (a refused `python` run).
pub(super) fn from_wit_error_plain(e: Error) -> DomError {
    let (kind, m) = kind_from_wit(e);
    DomError::new(kind, m)
}

pub(super) fn to_wit_entry(e: DomEntry) -> Entry {
    Entry {
        path: e.path,
        kind: match e.kind {
            EntryKind::File => WitKind::File,
            EntryKind::Directory => WitKind::Directory,
        },
        size: e.size,
        modified_ms: e.modified_ms,
        read_only: e.read_only,
        entry_type: e.entry_type,
        attributes: e.attributes.map(|a| a.to_string()),
    }
}

pub(super) fn from_wit_entry(e: Entry) -> DomEntry {
    DomEntry {
        path: e.path,
        kind: match e.kind {
            WitKind::File => EntryKind::File,
            WitKind::Directory => EntryKind::Directory,
        },
        size: e.size,
        modified_ms: e.modified_ms,
        read_only: e.read_only,
        entry_type: e.entry_type,
        attributes: e.attributes.and_then(|a| serde_json::from_str(&a).ok()),
    }
}
