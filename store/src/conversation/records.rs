//! Small JSON records beside the conversations: one per MCP 2025-11-25 session a
//! replica created (`sessions/<name>.json`, written by
//! the MCP server's `stored_sessions`), so another replica can take the session over.
//!
//! A record is written whole and read whole; it has one writer at a time (the
//! replica handling the session's `initialize`, then the one taking it over), so no
//! compare-and-swap is needed, unlike the state document.

use std::time::Duration;

use super::{StateError, StateErrorKind, StateStore};
use filestore_volumes::{ErrorKind, WriteOptions};

/// Largest record read back, bytes (a client's `initialize` parameters and a name).
pub const MAX_RECORD_BYTES: u64 = 256 * 1024;

/// Where the records live beneath the store's root.
const DIR: &str = "/sessions";

fn path(name: &str) -> Result<String, StateError> {
    // Names are hex digests made by the caller; anything else is a bug, not input.
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(StateError::new(
            StateErrorKind::InvalidKey,
            format!("a session record's name must be a hex digest, got {} bytes", name.len()),
        ));
    }
    Ok(format!("{DIR}/{name}.json"))
}

impl StateStore {
    /// The record `name`, or `None` when there is none.
    pub fn record(&self, name: &str) -> Result<Option<serde_json::Value>, StateError> {
        let path = path(name)?;
        match self.docs.root().read(&path, 0, MAX_RECORD_BYTES + 1) {
            Ok(bytes) if bytes.len() as u64 > MAX_RECORD_BYTES => Err(StateError::new(
                StateErrorKind::Corrupt,
                format!("session record {name}: over {MAX_RECORD_BYTES} bytes"),
            )),
            Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
                StateError::new(StateErrorKind::Corrupt, format!("session record {name}: {e}"))
            }),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StateError::storage(e)),
        }
    }

    /// Writes the record `name` whole (atomically, as the store writes files).
    pub fn put_record(&self, name: &str, value: &serde_json::Value) -> Result<(), StateError> {
        let path = path(name)?;
        let bytes = serde_json::to_vec(value).unwrap_or_default();
        if bytes.len() as u64 > MAX_RECORD_BYTES {
            return Err(StateError::new(
                StateErrorKind::TooLarge,
                format!("session record {name}: {} bytes, over {MAX_RECORD_BYTES}", bytes.len()),
            ));
        }
        self.docs
            .root()
            .write(&path, &bytes, &WriteOptions::default())
            .map_err(StateError::storage)?;
        Ok(())
    }

    /// Removes the record `name` (none there is not an error).
    pub fn remove_record(&self, name: &str) -> Result<(), StateError> {
        match self.docs.root().delete(&path(name)?, false) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StateError::storage(e)),
        }
    }

    /// Removes records last written more than `idle` before `now_ms`; how many.
    /// A record whose time the store does not know is kept.
    pub fn sweep_records_at(&self, idle: Duration, now_ms: u64) -> Result<usize, StateError> {
        let cutoff = now_ms.saturating_sub(idle.as_millis() as u64);
        let entries = match self.docs.root().list(DIR) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(StateError::storage(e)),
        };
        let mut removed = 0;
        for e in entries {
            if e.modified_ms.is_some_and(|t| t < cutoff) && e.path.ends_with(".json") {
                match self.docs.root().delete(&e.path, false) {
                    Ok(()) => removed += 1,
                    Err(err) if err.kind() == ErrorKind::NotFound => {}
                    Err(err) => return Err(StateError::storage(err)),
                }
            }
        }
        Ok(removed)
    }
}
