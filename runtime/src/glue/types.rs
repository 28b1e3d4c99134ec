//! Conversions between the guest crate's domain types and the WIT `types` interface.

use filestore_guest::error::{Error as DomError, ErrorKind};
use filestore_guest::vfs::entry::{Entry as DomEntry, EntryKind};

use crate::bindings::filestore::component::types::{self as wit, Entry, Error};
use crate::state::HostState;

impl wit::Host for HostState {}

/// Converts a domain error into the WIT variant. `requested` is the path the guest
/// asked about: when the error names exactly that path, only the message crosses (the
/// guest re-attaches its own, virtual, path).
pub fn to_wit_error(e: DomError, requested: Option<&str>) -> Error {
    let m = match (e.path(), requested) {
        (Some(p), Some(r)) if p == r => e.message().to_string(),
        _ => e.to_string(),
    };
    kind_to_wit(e.kind(), m)
}

filestore_guest::wit_error_conversions!(Error);

/// The WIT error of `kind` carrying `message` (for errors that are not domain errors,
/// e.g. a tool handler's).
pub fn wit_error(kind: ErrorKind, message: String) -> Error {
    kind_to_wit(kind, message)
}

/// A tool handler's error as the WIT error the component receives.
impl From<crate::tools::ToolError> for Error {
    fn from(e: crate::tools::ToolError) -> Error {
        wit_error(e.kind(), e.message().to_string())
    }
}

/// Converts a WIT error (from the guest) into a domain error.
pub fn from_wit_error(e: Error) -> DomError {
    let (k, m) = kind_from_wit(e);
    DomError::new(k, m)
}

/// A WIT error the typed interface answers inside a result (`read-many`'s
/// per-file outcome) as the host's error, as a failed call returns it.
impl From<Error> for crate::Error {
    fn from(e: Error) -> crate::Error {
        crate::Error::Filestore(from_wit_error(e))
    }
}

/// Domain entry → WIT entry.
pub fn to_wit_entry(e: DomEntry) -> Entry {
    Entry {
        path: e.path,
        kind: match e.kind {
            EntryKind::File => wit::EntryKind::File,
            EntryKind::Directory => wit::EntryKind::Directory,
        },
        size: e.size,
        modified_ms: e.modified_ms,
        read_only: e.read_only,
        entry_type: e.entry_type,
        attributes: e.attributes.map(|a| a.to_string()),
    }
}

/// WIT entry → domain entry.
pub fn from_wit_entry(e: Entry) -> DomEntry {
    DomEntry {
        path: e.path,
        kind: match e.kind {
            wit::EntryKind::File => EntryKind::File,
            wit::EntryKind::Directory => EntryKind::Directory,
        },
        size: e.size,
        modified_ms: e.modified_ms,
        read_only: e.read_only,
        entry_type: e.entry_type,
        attributes: e.attributes.and_then(|a| serde_json::from_str(&a).ok()),
    }
}
