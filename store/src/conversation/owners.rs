//! Whose each conversation is, so that one identity's conversations can be counted
//! and capped (`serve --max-conversations-per-identity`, docs/state.md#serving):
//!
//! ```text
//! owners/<owner>/<key>         an empty marker per conversation of the owner
//! conversations/<key>/owner    the owner's digest (removing the conversation removes its marker)
//! ```
//!
//! `<owner>` is a digest of the identity (the caller's, never its name). Counting is
//! one listing of the owner's markers, made only for a conversation new to the
//! store. Not atomic across replicas: two replicas creating conversations of one
//! identity at the same instant can both pass the count, so the cap can be passed
//! by as many conversations as are created at once.

use super::{ConversationKey, StateError, StateErrorKind, StateStore};
use filestore_volumes::{ErrorKind, WriteOptions};

fn marker(owner: &str, key: &ConversationKey) -> String {
    format!("/owners/{owner}/{key}")
}

fn owner_file(key: &ConversationKey) -> String {
    format!("/conversations/{key}/owner")
}

impl StateStore {
    /// Counts `key` among `owner`'s conversations. A conversation already counted
    /// (of anyone: keys are scoped to their identity, so it is this owner's) costs
    /// one small read; a new one is refused with `too-many` when `owner` has `cap`
    /// already, before anything is written for it. Whether it was new.
    pub fn claim(
        &self,
        key: &ConversationKey,
        owner: &str,
        cap: usize,
    ) -> Result<bool, StateError> {
        // Digests made by the caller; anything else is a bug, not input.
        if owner.is_empty() || !owner.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(StateError::new(
                StateErrorKind::InvalidKey,
                format!("an owner must be a hex digest, got {} bytes", owner.len()),
            ));
        }
        let root = self.docs.root();
        match root.read(&owner_file(key), 0, 256) {
            Ok(_) => return Ok(false),
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(StateError::storage(e)),
        }
        let owned = self.owned(owner)?;
        if owned >= cap {
            return Err(StateError::new(
                StateErrorKind::TooMany,
                format!(
                    "this identity has {owned} conversations, the most one may have (--max-conversations-per-identity {cap}); nothing was made for a new one: continue one of them, or let unused ones expire (--conversation-idle-timeout)"
                ),
            ));
        }
        let write = |path: &str, bytes: &[u8]| {
            root.write(path, bytes, &WriteOptions::default()).map_err(StateError::storage)
        };
        write(&marker(owner, key), b"")?;
        write(&owner_file(key), owner.as_bytes())?;
        Ok(true)
    }

    /// How many conversations `owner` has (markers under `owners/<owner>/`).
    pub fn owned(&self, owner: &str) -> Result<usize, StateError> {
        match self.docs.root().list(&format!("/owners/{owner}")) {
            Ok(entries) => Ok(entries.len()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(0),
            Err(e) => Err(StateError::storage(e)),
        }
    }

    /// Removes the marker of `key` from its owner's, when it has an owner (before
    /// the conversation's files go: the owner file says whose it was).
    pub(super) fn release(&self, key: &ConversationKey) -> Result<(), StateError> {
        let root = self.docs.root();
        let owner = match root.read(&owner_file(key), 0, 256) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(StateError::storage(e)),
        };
        if owner.is_empty() || !owner.bytes().all(|b| b.is_ascii_hexdigit()) {
            // Not written by this store: nothing of its can be the marker.
            return Ok(());
        }
        match root.delete(&marker(&owner, key), false) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StateError::storage(e)),
        }
    }
}
