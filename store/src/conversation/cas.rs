//! The compare-and-swap of a state document, per kind of store.
//!
//! - **Object stores**: one object, `state.json`, replaced with a conditional PUT
//!   (`If-Match` on the ETag read, `PutMode::Update`; `If-None-Match: *` for the
//!   first write). The store decides, so it holds across replicas and hosts.
//! - **Directories**: one file, `state.json`, replaced by an atomic rename (the dir
//!   volume's write: temporary file, `fsync`, `rename`, directory `fsync`), with the
//!   version check and the rename done under an exclusive `flock` of `state.lock`.
//!   Why a lock and not version-numbered files made with `link`/`RENAME_NOREPLACE`
//!   (lock-free): old version files must be deleted some time, and once `N+1` is
//!   deleted a writer that read `N` long ago can create `N+1` again and "win" a
//!   swap that is already lost (ABA): its update would vanish behind `N+3`. With a
//!   lock, the check and the swap cannot be interleaved, one file is all there is,
//!   and the kernel drops the lock of a process that dies (`kill -9` included), so
//!   no stale lock outlives its holder. Readers never lock: the rename shows them the
//!   old document or the new one. `flock` orders processes of one host and, on
//!   Linux, NFS clients (emulated with POSIX locks); it is not for file systems
//!   without working locks.
//! - **Memory**: the same as directories, with a process-local mutex as the lock
//!   (memory state is one process's by nature).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use filestore_guest::error::ErrorKind;
use filestore_guest::vfs::volume::{Volume, WriteOptions};

use super::doc::{MAX_DOC_BYTES, StateDoc};
use super::{ConversationKey, StateError, StateErrorKind};
use filestore_volumes::MemoryVolume;
use filestore_volumes::dir::DirVolume;
use filestore_volumes::object::ObjectVolume;

/// Longest wait for a directory's state lock: held only for one read and one write.
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// Where documents live.
pub(super) enum Docs {
    Dir(Arc<DirVolume>),
    Object(Arc<ObjectVolume>),
    Memory(Arc<MemoryVolume>, Mutex<()>),
}

/// What a read saw: what the swap must still find there.
#[derive(Clone, Debug)]
pub(super) enum Seen {
    /// No document.
    Absent,
    /// A document of this version (directories, memory).
    Version(u64),
    /// An object of this ETag/version (object stores).
    Object(object_store::UpdateVersion),
}

fn doc_path(key: &ConversationKey) -> String {
    format!("/conversations/{key}/state.json")
}

fn parse(key: &ConversationKey, bytes: &[u8]) -> Result<StateDoc, StateError> {
    serde_json::from_slice(bytes).map_err(|e| {
        StateError::new(
            StateErrorKind::Corrupt,
            format!("conversation {key}: the state document is not valid: {e}"),
        )
    })
}

fn encode(doc: &StateDoc) -> Vec<u8> {
    serde_json::to_vec_pretty(doc).expect("a state document serialises")
}

/// Reads a document through a plain volume (directories, memory).
fn read_plain(
    v: &dyn Volume,
    key: &ConversationKey,
) -> Result<Option<(StateDoc, Seen)>, StateError> {
    let path = doc_path(key);
    match v.read(&path, 0, MAX_DOC_BYTES + 1) {
        Ok(bytes) if bytes.len() as u64 > MAX_DOC_BYTES => Err(StateError::new(
            StateErrorKind::Corrupt,
            format!("conversation {key}: the state document is over {MAX_DOC_BYTES} bytes"),
        )),
        Ok(bytes) => {
            let doc = parse(key, &bytes)?;
            let seen = Seen::Version(doc.version);
            Ok(Some((doc, seen)))
        }
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StateError::storage(e)),
    }
}

/// The version the current document has, under the writers' lock.
fn current_version(v: &dyn Volume, key: &ConversationKey) -> Result<Seen, StateError> {
    Ok(match read_plain(v, key)? {
        Some((doc, _)) => Seen::Version(doc.version),
        None => Seen::Absent,
    })
}

fn same(a: &Seen, b: &Seen) -> bool {
    match (a, b) {
        (Seen::Absent, Seen::Absent) => true,
        (Seen::Version(x), Seen::Version(y)) => x == y,
        _ => false,
    }
}

impl Docs {
    /// The document of `key` and what the swap must find, or `None`.
    pub(super) fn load(
        &self,
        key: &ConversationKey,
    ) -> Result<Option<(StateDoc, Seen)>, StateError> {
        match self {
            Docs::Dir(v) => read_plain(v.as_ref(), key),
            Docs::Memory(v, _) => read_plain(v.as_ref(), key),
            Docs::Object(v) => match v.read_versioned(&doc_path(key)) {
                Ok(None) => Ok(None),
                Ok(Some((bytes, _))) if bytes.len() as u64 > MAX_DOC_BYTES => Err(StateError::new(
                    StateErrorKind::Corrupt,
                    format!("conversation {key}: the state document is over {MAX_DOC_BYTES} bytes"),
                )),
                Ok(Some((bytes, version))) => {
                    Ok(Some((parse(key, &bytes)?, Seen::Object(version))))
                }
                Err(e) => Err(StateError::storage(e)),
            },
        }
    }

    /// Replaces the document of `key` with `doc` if it is still what `seen` says;
    /// `Ok(false)` when another writer replaced it first.
    pub(super) fn swap(
        &self,
        key: &ConversationKey,
        seen: &Seen,
        doc: &StateDoc,
    ) -> Result<bool, StateError> {
        let bytes = encode(doc);
        let path = doc_path(key);
        match self {
            Docs::Object(v) => {
                let expected = match seen {
                    Seen::Object(version) => Some(version),
                    _ => None,
                };
                v.write_if(&path, bytes, expected).map(|w| w.is_some()).map_err(StateError::storage)
            }
            Docs::Dir(v) => {
                let lock_path = format!("/conversations/{key}/state.lock");
                let _lock = v.lock(&lock_path, LOCK_WAIT).map_err(StateError::storage)?;
                if !same(&current_version(v.as_ref(), key)?, seen) {
                    return Ok(false);
                }
                v.write(&path, &bytes, &WriteOptions::default()).map_err(StateError::storage)?;
                Ok(true)
            }
            Docs::Memory(v, lock) => {
                let _lock = lock.lock().unwrap_or_else(|p| p.into_inner());
                if !same(&current_version(v.as_ref(), key)?, seen) {
                    return Ok(false);
                }
                v.write(&path, &bytes, &WriteOptions::default()).map_err(StateError::storage)?;
                Ok(true)
            }
        }
    }

    /// The store's root as a volume (listing and deleting conversations).
    pub(super) fn root(&self) -> &dyn Volume {
        match self {
            Docs::Dir(v) => v.as_ref(),
            Docs::Object(v) => v.as_ref(),
            Docs::Memory(v, _) => v.as_ref(),
        }
    }
}
