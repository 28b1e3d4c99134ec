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
    match e.kind() {
        ErrorKind::NotFound => Error::NotFound(m),
        ErrorKind::NotAFile => Error::NotAFile(m),
        ErrorKind::NotADirectory => Error::NotADirectory(m),
        ErrorKind::AlreadyExists => Error::AlreadyExists(m),
        ErrorKind::ReadOnly => Error::ReadOnly(m),
        ErrorKind::InvalidPath => Error::InvalidPath(m),
        ErrorKind::InvalidPattern => Error::InvalidPattern(m),
        ErrorKind::InvalidArgument => Error::InvalidArgument(m),
        ErrorKind::TooLarge => Error::TooLarge(m),
        ErrorKind::Conflict => Error::Conflict(m),
        ErrorKind::Unsupported => Error::Unsupported(m),
        ErrorKind::LimitExceeded => Error::LimitExceeded(m),
        ErrorKind::Unauthorized => Error::Unauthorized(m),
        _ => Error::Backend(m),
    }
}

/// Converts a WIT error (from the guest) into a domain error.
pub fn from_wit_error(e: Error) -> DomError {
    let (k, m) = match e {
        Error::NotFound(m) => (ErrorKind::NotFound, m),
        Error::NotAFile(m) => (ErrorKind::NotAFile, m),
        Error::NotADirectory(m) => (ErrorKind::NotADirectory, m),
        Error::AlreadyExists(m) => (ErrorKind::AlreadyExists, m),
        Error::ReadOnly(m) => (ErrorKind::ReadOnly, m),
        Error::InvalidPath(m) => (ErrorKind::InvalidPath, m),
        Error::InvalidPattern(m) => (ErrorKind::InvalidPattern, m),
        Error::InvalidArgument(m) => (ErrorKind::InvalidArgument, m),
        Error::TooLarge(m) => (ErrorKind::TooLarge, m),
        Error::Conflict(m) => (ErrorKind::Conflict, m),
        Error::Unsupported(m) => (ErrorKind::Unsupported, m),
        Error::LimitExceeded(m) => (ErrorKind::LimitExceeded, m),
        Error::Unauthorized(m) => (ErrorKind::Unauthorized, m),
        Error::Backend(m) => (ErrorKind::Backend, m),
    };
    DomError::new(k, m)
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
