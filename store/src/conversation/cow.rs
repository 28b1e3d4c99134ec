//! Copy-on-write upper layers a conversation keeps (docs/cow.md#under-serve---state):
//! under `serve --state`, a `:cow` mount's changes belong to the conversation, not to
//! one process's memory, so any replica's request sees them, a restart keeps them,
//! and a snapshot of the conversation holds them.
//!
//! The component's [`CowVolume`](filestore_guest::vfs::cow::CowVolume) keeps an upper
//! layer as files under `/files` and one state file (whiteouts and bases) at
//! [`STATE_PATH`]. Here the files are a volume of the store
//! (`conversations/<key>/cow/<hex of the point>/`), and the state file is not a file
//! at all: [`ConversationUpper`] answers reads of it from the conversation's state
//! document (`cow`, by mount point) and turns a write of it into a compare-and-swap
//! of that document which *merges* the state written with the one stored
//! ([`CowState::merge`]). A plain file would be replaced whole by each writer, and
//! two requests deleting at once on two replicas would lose one's whiteout.
//!
//! Each session remembers what state its component holds ([`HeldCow`]). When the
//! document holds another (a session elsewhere changed the mount), the session is
//! rebuilt before its next call, so its view is never older than the last request.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use filestore_guest::vfs::cow::state::{CowState, STATE_PATH};
use filestore_guest::vfs::entry::Entry;
use filestore_guest::vfs::volume::{PackedWalk, PrefetchFile, Volume, VolumeIdentity, Walk};

use super::{ConversationKey, StateDoc, StateError, StateStore};
use filestore_volumes::quota::QuotaVolume;
use filestore_volumes::{Error, ErrorKind, SharedVolume, WriteOptions};

/// The directory of a conversation holding its copy-on-write upper layers.
const COW_DIR: &str = "cow";

/// A mount point as one path segment: its bytes in hex (reversible, and nothing in it
/// can reach outside the conversation's directory).
fn segment(point: &str) -> String {
    point.bytes().map(|b| format!("{b:02x}")).collect()
}

/// The mount point a [`segment`] was made from.
fn point_of(segment: &str) -> Option<String> {
    if !segment.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..segment.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(segment.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok().filter(|p| p.starts_with('/'))
}

/// What the component of one session holds of each copy-on-write mount's state, by
/// point: the state it last read or wrote through [`ConversationUpper`]. Shared by
/// the session's upper volumes and its conversation binding.
#[derive(Clone, Default)]
pub struct HeldCow(Arc<Mutex<BTreeMap<String, CowState>>>);

impl HeldCow {
    fn set(&self, point: &str, state: CowState) {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(point.to_string(), state);
    }

    /// Whether `doc` holds a state of some mount other than the one the session's
    /// component has: then the session must be made again to see it.
    pub fn behind(&self, doc: &StateDoc) -> bool {
        let held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let empty = CowState::default();
        held.iter().any(|(point, state)| doc.cow.get(point).unwrap_or(&empty) != state)
    }
}

impl StateStore {
    /// The files of the conversation's upper layer for the copy-on-write mount at
    /// `point` (created on first use), under the same quota as `/scratch`.
    pub fn cow_files(
        &self,
        key: &ConversationKey,
        point: &str,
    ) -> Result<SharedVolume, StateError> {
        let path = format!("/conversations/{key}/{COW_DIR}/{}", segment(point));
        let per_volume = filestore_volumes::volume_quota();
        // Under the volume quota, and with everything else of the conversation
        // under its quota.
        let conversation = self.quota(key);
        let bounded = |v: filestore_volumes::MemoryVolume| -> SharedVolume {
            Arc::new(QuotaVolume::shared(v, conversation.clone()))
        };
        match &self.docs {
            super::Docs::Memory(..) => {
                let mut map = self.memory_cow.lock().unwrap_or_else(|p| p.into_inner());
                Ok(map
                    .entry((key.clone(), point.to_string()))
                    .or_insert_with(|| bounded(filestore_volumes::quota_memory_volume()))
                    .clone())
            }
            super::Docs::Dir(root) => {
                let v = root.sub_volume(&path, true, false).map_err(StateError::storage)?;
                Ok(Arc::new(QuotaVolume::shared(
                    QuotaVolume::new(v, per_volume),
                    conversation.clone(),
                )))
            }
            super::Docs::Object(root) => {
                let v = root.sub_volume(&path, false).map_err(StateError::storage)?;
                Ok(Arc::new(QuotaVolume::shared(
                    QuotaVolume::new(v, per_volume),
                    conversation.clone(),
                )))
            }
        }
    }

    /// The upper layer of the copy-on-write mount at `point` as a session mounts it
    /// (see the module docs); `held` is the session's.
    pub fn cow_upper(
        self: &Arc<Self>,
        key: &ConversationKey,
        point: &str,
        held: HeldCow,
    ) -> Result<SharedVolume, StateError> {
        let files = self.cow_files(key, point)?;
        Ok(Arc::new(ConversationUpper {
            files,
            store: self.clone(),
            key: key.clone(),
            point: point.to_string(),
            held,
            served: Mutex::new(None),
        }))
    }

    /// The mount points whose upper layers the conversation keeps: those its
    /// document has a state for, and those with files.
    pub fn cow_points(&self, key: &ConversationKey) -> Result<Vec<String>, StateError> {
        let mut points: Vec<String> =
            self.load(key)?.map(|d| d.cow.into_keys().collect()).unwrap_or_default();
        match &self.docs {
            super::Docs::Memory(..) => {
                let map = self.memory_cow.lock().unwrap_or_else(|p| p.into_inner());
                points.extend(map.keys().filter(|(k, _)| k == key).map(|(_, p)| p.clone()));
            }
            _ => {
                let dir = format!("/conversations/{key}/{COW_DIR}");
                match self.docs.root().list(&dir) {
                    Ok(entries) => {
                        points.extend(entries.iter().filter_map(|e| point_of(e.name())));
                    }
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => return Err(StateError::storage(e)),
                }
            }
        }
        points.sort();
        points.dedup();
        Ok(points)
    }
}

/// A conversation's upper layer for one copy-on-write mount: its files in the store,
/// its state in the conversation's document (see the module docs).
struct ConversationUpper {
    files: SharedVolume,
    store: Arc<StateStore>,
    key: ConversationKey,
    point: String,
    held: HeldCow,
    /// The state file as the last `stat` of it read it: the reads that follow (the
    /// component reads a file it stat'ed) answer from it, not from another load.
    served: Mutex<Option<Vec<u8>>>,
}

impl ConversationUpper {
    fn storage(&self, e: StateError) -> Error {
        Error::at(
            e.kind.error_kind(),
            STATE_PATH,
            format!("the copy-on-write state of {} in the conversation: {e}", self.point),
        )
    }

    /// The stored state as the file's bytes (`None`: the mount has none yet), and
    /// what the session now holds.
    fn load(&self) -> Result<Option<Vec<u8>>, Error> {
        let doc = self.store.load(&self.key).map_err(|e| self.storage(e))?;
        let state = doc.and_then(|mut d| d.cow.remove(&self.point));
        self.held.set(&self.point, state.clone().unwrap_or_default());
        let bytes = state.map(|s| serde_json::to_vec(&s).expect("a cow state serialises"));
        *self.served.lock().unwrap_or_else(|p| p.into_inner()) = bytes.clone();
        Ok(bytes)
    }

    fn not_found() -> Error {
        Error::at(ErrorKind::NotFound, STATE_PATH, "no copy-on-write state yet")
    }
}

impl Volume for ConversationUpper {
    fn stat(&self, path: &str) -> Result<Entry, Error> {
        if path != STATE_PATH {
            return self.files.stat(path);
        }
        match self.load()? {
            Some(bytes) => Ok(Entry::file(STATE_PATH, bytes.len() as u64, None)),
            None => Err(Self::not_found()),
        }
    }

    fn list(&self, path: &str) -> Result<Vec<Entry>, Error> {
        self.files.list(path)
    }

    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk, Error> {
        self.files.walk(path, max_entries)
    }

    fn walk_packed(&self, path: &str, max_entries: usize) -> Result<PackedWalk, Error> {
        self.files.walk_packed(path, max_entries)
    }

    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>, Error> {
        if path != STATE_PATH {
            return self.files.read(path, offset, len);
        }
        let served = self.served.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let bytes = match served {
            Some(b) => b,
            None => self.load()?.ok_or_else(Self::not_found)?,
        };
        let start = (offset as usize).min(bytes.len());
        let end = start.saturating_add(len as usize).min(bytes.len());
        Ok(bytes[start..end].to_vec())
    }

    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry, Error> {
        if path != STATE_PATH {
            return self.files.write(path, content, options);
        }
        let incoming: CowState = serde_json::from_slice(content).map_err(|e| {
            Error::at(
                ErrorKind::InvalidArgument,
                STATE_PATH,
                format!("not a copy-on-write state: {e}"),
            )
        })?;
        let point = self.point.clone();
        // A session's state is never the empty one (its first change marks it
        // touched): an empty state is an apply emptying the layer, and replaces it.
        let reset = incoming == CowState::default();
        self.store
            .update(&self.key, |doc| {
                if reset {
                    doc.cow.remove(&point);
                } else {
                    doc.cow.entry(point.clone()).or_default().merge(&incoming);
                }
            })
            .map_err(|e| self.storage(e))?;
        // The component holds what it wrote; what others merged in makes the
        // document differ from it, and the session is made again ([`HeldCow`]).
        self.held.set(&self.point, incoming);
        *self.served.lock().unwrap_or_else(|p| p.into_inner()) = None;
        Ok(Entry::file(STATE_PATH, content.len() as u64, None))
    }

    fn delete(&self, path: &str, recursive: bool) -> Result<(), Error> {
        if path == STATE_PATH {
            return Err(Error::at(
                ErrorKind::Unsupported,
                STATE_PATH,
                "the copy-on-write state of a conversation is emptied by an apply, not deleted",
            ));
        }
        self.files.delete(path, recursive)
    }

    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<(), Error> {
        if from == STATE_PATH || to == STATE_PATH {
            return Err(Error::at(ErrorKind::Unsupported, STATE_PATH, "cannot be moved"));
        }
        self.files.rename(from, to, overwrite)
    }

    fn create_dir(&self, path: &str) -> Result<Entry, Error> {
        self.files.create_dir(path)
    }

    fn identity(&self) -> Option<VolumeIdentity> {
        self.files.identity()
    }

    fn prefetch(&self, files: &[PrefetchFile]) {
        self.files.prefetch(files)
    }

    fn keeps_entry_metadata(&self) -> bool {
        self.files.keeps_entry_metadata()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_round_trip_through_their_segment() {
        for p in ["/workspace", "/a/b c/ü", "/"] {
            assert_eq!(point_of(&segment(p)).as_deref(), Some(p));
        }
        for bad in ["2", "zz", "776f", ""] {
            assert_eq!(point_of(bad), None, "{bad}");
        }
    }

    /// Two sessions' upper layers over one conversation: each writes a state from
    /// what it last read, and the document keeps both whiteouts; the one that did
    /// not see the other's is behind.
    #[test]
    fn concurrent_states_merge_and_the_stale_session_is_behind() {
        let store = Arc::new(StateStore::memory());
        let key = ConversationKey::scoped("", "c").unwrap();
        let (held_a, held_b) = (HeldCow::default(), HeldCow::default());
        let a = store.cow_upper(&key, "/w", held_a.clone()).unwrap();
        let b = store.cow_upper(&key, "/w", held_b.clone()).unwrap();
        let (sa, sb) = (CowState::load(a.as_ref()).unwrap(), CowState::load(b.as_ref()).unwrap());
        assert_eq!((sa.clone(), sb.clone()), (CowState::default(), CowState::default()));
        let mut sa = sa;
        sa.add_whiteout("/x");
        sa.save(a.as_ref()).unwrap();
        let mut sb = sb;
        sb.add_whiteout("/y");
        sb.save(b.as_ref()).unwrap();
        let doc = store.load(&key).unwrap().unwrap();
        assert_eq!(doc.cow["/w"].whiteouts.iter().collect::<Vec<_>>(), ["/x", "/y"]);
        assert!(held_a.behind(&doc), "a has not seen /y");
        assert!(held_b.behind(&doc), "b has not seen /x");
        assert_eq!(CowState::load(a.as_ref()).unwrap(), doc.cow["/w"]);
        assert!(!held_a.behind(&doc));
        // An apply's empty state empties it.
        CowState::default().save(a.as_ref()).unwrap();
        assert!(!store.load(&key).unwrap().unwrap().cow.contains_key("/w"));
        // Files go to the store's volume; the state file cannot be deleted.
        a.write("/files/f", b"1", &WriteOptions::default()).unwrap();
        assert_eq!(store.cow_files(&key, "/w").unwrap().read("/files/f", 0, 9).unwrap(), b"1");
        assert_eq!(a.delete(STATE_PATH, false).unwrap_err().kind(), ErrorKind::Unsupported);
        assert_eq!(store.cow_points(&key).unwrap(), ["/w"]);
    }
}
