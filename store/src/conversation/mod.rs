//! Conversation state as data: the state store.
//!
//! A conversation is its `/scratch` files, its stored tool results (`/tool_calls`,
//! with their metadata), and a small state document ([`StateDoc`]: activated skills,
//! the tool catalog version, pending approvals, times). All of it lives in one
//! store, named by one spec ([`StateSpec`]: a directory, an object-store URL, or
//! memory), on the volumes that already exist: the confined [`DirVolume`], the
//! [`ObjectVolume`], the [`MemoryVolume`]. Any process opening the same spec sees the
//! same conversations, so any replica can serve any request.
//!
//! Layout beneath the store's root (`<key>` is a [`ConversationKey`] digest):
//!
//! ```text
//! conversations/<key>/state.json     the state document (JSON)
//! conversations/<key>/state.lock     directories only: the writers' flock
//! conversations/<key>/scratch/…      the /scratch volume
//! conversations/<key>/tool_calls/…   the /tool_calls volume (results + metadata)
//! conversations/<key>/audit/…        the audit timeline (one file per record)
//! conversations/<key>/cow/<point>/…   a copy-on-write mount's upper files ([`cow`])
//! conversations/<key>/snapshots/…    its snapshots' records ([`crate::snapshot`])
//! snapshots/…                        the snapshots' objects, shared by all
//! sessions/<digest>.json             an MCP session another replica can take over
//! ```
//!
//! The document is updated by compare-and-swap with a bounded retry
//! ([`StateStore::update`], see [`cas`] for how each store makes the swap atomic);
//! tool-call ids come from [`new_call_id`] (no counter in any process). What is and
//! is not atomic is in docs/state.md.

mod cas;
pub mod cow;
mod doc;
mod key;
mod owners;
mod records;
mod snapshots;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use cas::LOCK_WAIT;
pub use doc::{FORMAT, MAX_DOC_BYTES, PendingApproval, StateDoc};
pub use filestore_runtime::clocks::now_ms;
pub use filestore_runtime::ids::{new_call_id, new_ulid};
pub use key::{ConversationKey, MAX_IDENTITY_BYTES, MAX_KEY_BYTES};
pub use records::MAX_RECORD_BYTES;
pub use snapshots::MAX_SNAPSHOTS;

use cas::{Docs, Seen};
use filestore_volumes::dir::DirVolume;
use filestore_volumes::object::{ObjectSpec, ObjectVolume, StoreKind};
use filestore_volumes::quota::{Counter, Quota, QuotaVolume};
use filestore_volumes::{ErrorKind, MemoryVolume, SharedVolume};

/// Attempts of one [`StateStore::update`] before it gives up with `contended`.
pub const MAX_UPDATE_ATTEMPTS: usize = 100;

/// Bytes the audit timeline may hold beyond a full conversation quota: an agent that
/// fills its quota still has every call it makes recorded (at most 256 KiB each), and
/// once this is used too, calls that change anything are refused before they run
/// ([`filestore_runtime::audit::AuditLog::check_room`]), so none goes unrecorded.
pub const AUDIT_HEADROOM: u64 = 16 * 1024 * 1024;

/// What went wrong with conversation state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateErrorKind {
    /// A conversation key or identity outside the rules of [`ConversationKey`].
    InvalidKey,
    /// A state spec that names no usable store.
    InvalidSpec,
    /// The store failed (the volume error's kind and message are in the context).
    Storage(ErrorKind),
    /// A state document that cannot be read as one.
    Corrupt,
    /// Other writers kept winning: [`MAX_UPDATE_ATTEMPTS`] swaps failed.
    Contended,
    /// The change would make the document larger than [`MAX_DOC_BYTES`].
    TooLarge,
    /// The identity has as many conversations as it may have (see
    /// [`StateStore::claim`]).
    TooMany,
}

impl StateErrorKind {
    /// The filestore error kind a state error is reported as (to agents, on the
    /// command line, through a volume).
    pub fn error_kind(self) -> ErrorKind {
        match self {
            StateErrorKind::InvalidKey | StateErrorKind::InvalidSpec => ErrorKind::InvalidArgument,
            StateErrorKind::Storage(k) => k,
            StateErrorKind::Corrupt => ErrorKind::Backend,
            StateErrorKind::Contended => ErrorKind::Conflict,
            StateErrorKind::TooLarge => ErrorKind::TooLarge,
            StateErrorKind::TooMany => ErrorKind::LimitExceeded,
        }
    }
}

/// An error of the state store: its kind, and what it was about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{context}")]
pub struct StateError {
    /// What went wrong.
    pub kind: StateErrorKind,
    /// Which conversation or spec, and the cause.
    pub context: String,
}

impl StateError {
    fn new(kind: StateErrorKind, context: impl Into<String>) -> StateError {
        StateError { kind, context: context.into() }
    }

    fn storage(e: filestore_volumes::Error) -> StateError {
        StateError::new(StateErrorKind::Storage(e.kind()), e.to_string())
    }
}

/// Where conversation state lives (`--state`): `DIR`, `s3://bucket/prefix` (or
/// `gs://`, `az://`), or `mem:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateSpec {
    /// A local directory (must exist: [`StateSpec::create_missing_dir`] makes it).
    Dir(std::path::PathBuf),
    /// A prefix of an object store; endpoint and region as for `--mount`.
    Object(ObjectSpec),
    /// This process's memory (stdio, `call`, tests): gone when it exits.
    Memory,
}

impl StateSpec {
    /// For a directory that does not exist yet but whose parent does, creates it,
    /// readable by its owner only (mode 700), and says so (`Ok(true)`); a server
    /// started with `--state ./state` needs no step before it. The parent is not
    /// created: a mistyped path fails as a missing directory instead of growing a
    /// tree of them.
    pub fn create_missing_dir(&self) -> std::io::Result<bool> {
        let StateSpec::Dir(p) = self else { return Ok(false) };
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty());
        if p.exists() || parent.is_some_and(|d| !d.is_dir()) {
            return Ok(false);
        }
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        match builder.create(p) {
            Ok(()) => Ok(true),
            // Another process made it meanwhile: it exists, as wanted.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// For a directory that users other than its owner may enter or read (any
    /// group or other permission bit), what to say about it: the store's files are
    /// created with the process's umask, so such a directory shows every
    /// conversation's files to them. `None` for other stores, or a private directory.
    pub fn exposure(&self) -> Option<String> {
        #[cfg(unix)]
        if let StateSpec::Dir(p) = self {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(p).ok()?.permissions().mode() & 0o777;
            if mode & 0o077 != 0 {
                return Some(format!(
                    "{}: mode {mode:03o} lets other users reach the conversations' files (their modes follow the umask); `chmod 700` it",
                    p.display()
                ));
            }
        }
        None
    }
}

impl std::str::FromStr for StateSpec {
    type Err = StateError;

    /// Parses a spec with the conventions of `--mount` sources: `mem:`, an object
    /// store URL ([`ObjectSpec::parse`]), else a directory. No `:ro`/`:rw` mode: state
    /// is written. `file://` is refused (that store has no conditional update): give
    /// the directory as a plain path.
    fn from_str(s: &str) -> Result<StateSpec, StateError> {
        let bad = |why: String| StateError::new(StateErrorKind::InvalidSpec, why);
        if s == "mem:" || s == "mem" {
            return Ok(StateSpec::Memory);
        }
        if let Some(parsed) = ObjectSpec::parse(s) {
            let spec = parsed.map_err(|e| bad(format!("state {s}: {e}")))?;
            if spec.kind == StoreKind::File {
                return Err(bad(format!(
                    "state {s}: a file:// store cannot update objects conditionally; give the directory as a plain path ({})",
                    spec.bucket
                )));
            }
            return Ok(StateSpec::Object(spec));
        }
        if s.is_empty() {
            return Err(bad(
                "state: empty spec; give a directory, s3://bucket/prefix or mem:".into()
            ));
        }
        if s.ends_with(":ro") {
            return Err(bad(format!("state {s}: the state store is written; it has no :ro mode")));
        }
        Ok(StateSpec::Dir(s.into()))
    }
}

/// A conversation's volumes, rooted in the store: mount them at `/scratch` and
/// `/tool_calls` instead of fresh memory volumes.
#[derive(Clone)]
pub struct ConversationVolumes {
    /// `conversations/<key>/scratch/`.
    pub scratch: SharedVolume,
    /// `conversations/<key>/tool_calls/`: keeps entry types, attributes and
    /// read-only flags (on a directory store, through `object_store`'s local file
    /// system with metadata sidecars, since a plain directory cannot keep them).
    pub tool_calls: SharedVolume,
    /// `conversations/<key>/audit/`: the conversation's audit timeline (one file per
    /// record, appended by every session and replica; see [`filestore_runtime::audit`]).
    pub audit: SharedVolume,
}

/// What [`StateStore::sweep`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Conversations removed (idle longer than the limit).
    pub removed: Vec<ConversationKey>,
    /// Conversations still in use.
    pub kept: usize,
    /// Conversations that could not be looked at or removed, with why; left for
    /// the next sweep.
    pub failed: Vec<(String, String)>,
}

/// The conversation state store. `Send + Sync`: one per process, shared.
pub struct StateStore {
    docs: Docs,
    /// Memory stores: each conversation's volumes (a memory volume has no subtree
    /// to hand out).
    memory: Mutex<HashMap<ConversationKey, ConversationVolumes>>,
    /// Memory stores: the files of each conversation's copy-on-write upper layers,
    /// by mount point.
    memory_cow: Mutex<HashMap<(ConversationKey, String), SharedVolume>>,
    /// Each conversation's quota, shared by every volume of it this process opens
    /// (so two sessions of one conversation cannot both take its last room).
    quotas: Mutex<HashMap<ConversationKey, Arc<Quota>>>,
    /// Bytes each conversation may keep (`--conversation-quota-mib`).
    conversation_quota: u64,
    max_attempts: usize,
}

impl StateStore {
    /// Opens the store `spec` names: a directory (which must exist; opened as a
    /// confined [`DirVolume`]), an object-store prefix (the shared client of
    /// [`ObjectVolume::open`], listed once to check it), or a new memory store.
    pub fn open(spec: &StateSpec) -> Result<StateStore, StateError> {
        let docs = match spec {
            StateSpec::Memory => Docs::Memory(Arc::new(MemoryVolume::new()), Mutex::new(())),
            StateSpec::Dir(p) => {
                Docs::Dir(Arc::new(DirVolume::open(p, false).map_err(StateError::storage)?))
            }
            StateSpec::Object(o) => {
                Docs::Object(Arc::new(ObjectVolume::open(o, false).map_err(StateError::storage)?))
            }
        };
        Ok(StateStore::over(docs))
    }

    /// A store on an `s3://` spec whose client `configure` finishes (credentials from
    /// an embedder's vault...), as [`ObjectVolume::open_s3_with`]. Each call builds
    /// its own client: two stores opened so behave as two replicas.
    pub fn open_s3_with(
        spec: &ObjectSpec,
        configure: impl FnOnce(object_store::aws::AmazonS3Builder) -> object_store::aws::AmazonS3Builder,
    ) -> Result<StateStore, StateError> {
        let v = ObjectVolume::open_s3_with(spec, false, configure).map_err(StateError::storage)?;
        Ok(StateStore::over(Docs::Object(Arc::new(v))))
    }

    /// A new memory store (the default for stdio and `call`).
    pub fn memory() -> StateStore {
        StateStore::over(Docs::Memory(Arc::new(MemoryVolume::new()), Mutex::new(())))
    }

    fn over(docs: Docs) -> StateStore {
        StateStore {
            docs,
            memory: Mutex::default(),
            memory_cow: Mutex::default(),
            quotas: Mutex::default(),
            conversation_quota: filestore_volumes::conversation_quota(),
            max_attempts: MAX_UPDATE_ATTEMPTS,
        }
    }

    /// Sets how many bytes each conversation may keep (default: the process's
    /// [`filestore_volumes::conversation_quota`]).
    pub fn with_conversation_quota(mut self, bytes: u64) -> StateStore {
        self.conversation_quota = bytes;
        self
    }

    /// The conversation's quota: everything the store keeps of it (`/scratch`,
    /// stored results, copy-on-write upper layers, the audit timeline, its document,
    /// and what its snapshots added to the shared objects) counts against one limit.
    /// Counted by a walk of the conversation's folder at its first change; a memory
    /// store's conversations are charged from their first byte.
    pub fn quota(&self, key: &ConversationKey) -> Arc<Quota> {
        let mut map = self.quotas.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(key.clone())
            .or_insert_with(|| {
                let counter = match &self.docs {
                    Docs::Memory(..) => Counter::Once(Box::new(|| Ok(0))),
                    Docs::Dir(root) => conversation_counter(root.clone(), key),
                    Docs::Object(root) => conversation_counter(root.clone(), key),
                };
                Quota::new(
                    "conversation quota",
                    "--conversation-quota-mib",
                    self.conversation_quota,
                    counter,
                )
            })
            .clone()
    }

    /// Sets how many swaps [`StateStore::update`] tries before `contended`.
    pub fn with_max_attempts(mut self, attempts: usize) -> StateStore {
        self.max_attempts = attempts.max(1);
        self
    }

    /// The conversation's document, or `None` when it has none (new, or expired).
    pub fn load(&self, key: &ConversationKey) -> Result<Option<StateDoc>, StateError> {
        Ok(self.docs.load(key)?.map(|(doc, _)| doc))
    }

    /// Applies `change` to the conversation's document (a new one when it has none)
    /// and stores it, bumping its version and last-used time: read, change, then
    /// replace only if no one replaced it since (see [`cas`]); when someone did,
    /// `change` runs again on the newer document, up to the attempt limit, with a
    /// short random pause between attempts. So `change` may run more than once and
    /// must only change the document (no side effects elsewhere). Returns the stored
    /// document and what `change` returned on the attempt that won.
    pub fn update<T>(
        &self,
        key: &ConversationKey,
        change: impl FnMut(&mut StateDoc) -> T,
    ) -> Result<(StateDoc, T), StateError> {
        let updated = self.update_with(key, true, change)?;
        Ok(updated.expect("a document is created when absent"))
    }

    /// [`StateStore::update`] of a conversation that has a document: `None`, and
    /// nothing written, when it has none (never had, or was removed since). For a
    /// writer that must not bring back a conversation the sweep removed.
    pub fn update_existing<T>(
        &self,
        key: &ConversationKey,
        change: impl FnMut(&mut StateDoc) -> T,
    ) -> Result<Option<(StateDoc, T)>, StateError> {
        self.update_with(key, false, change)
    }

    fn update_with<T>(
        &self,
        key: &ConversationKey,
        create: bool,
        mut change: impl FnMut(&mut StateDoc) -> T,
    ) -> Result<Option<(StateDoc, T)>, StateError> {
        let mut pause_us = 100u64;
        for _ in 0..self.max_attempts {
            let (mut doc, seen) = match self.docs.load(key)? {
                Some(found) => found,
                None if create => (StateDoc::new(now_ms()), Seen::Absent),
                None => return Ok(None),
            };
            let out = change(&mut doc);
            doc.format = FORMAT;
            doc.version = doc.version.checked_add(1).ok_or_else(|| {
                StateError::new(
                    StateErrorKind::Corrupt,
                    format!("conversation {key}: the state document's version is at its maximum"),
                )
            })?;
            doc.last_used_ms = now_ms().max(doc.last_used_ms);
            // A document the store would refuse to read back is not written: the
            // conversation would be lost to every later request, and to the sweep.
            let size = serde_json::to_vec(&doc).map_or(0, |b| b.len()) as u64;
            if size > MAX_DOC_BYTES {
                return Err(StateError::new(
                    StateErrorKind::TooLarge,
                    format!(
                        "conversation {key}: the state document would be {size} bytes; the limit is {MAX_DOC_BYTES}; nothing was changed"
                    ),
                ));
            }
            if self.docs.swap(key, &seen, &doc)? {
                return Ok(Some((doc, out)));
            }
            // Full jitter: racing writers spread out instead of colliding again.
            let jitter = getrandom::u64().unwrap_or(pause_us) % pause_us.max(1);
            std::thread::sleep(Duration::from_micros(jitter));
            pause_us = (pause_us * 2).min(50_000);
        }
        Err(StateError::new(
            StateErrorKind::Contended,
            format!(
                "conversation {key}: the state document changed under each of {} attempts",
                self.max_attempts
            ),
        ))
    }

    /// The conversation's `/scratch` and `/tool_calls` volumes, rooted in the store
    /// (created on first use).
    pub fn volumes(&self, key: &ConversationKey) -> Result<ConversationVolumes, StateError> {
        let base = format!("/conversations/{key}");
        match &self.docs {
            Docs::Memory(..) => {
                let quota = self.quota(key);
                let mut map = self.memory.lock().unwrap_or_else(|p| p.into_inner());
                let shared = |v| QuotaVolume::shared(v, quota.clone());
                Ok(map
                    .entry(key.clone())
                    .or_insert_with(|| ConversationVolumes {
                        scratch: Arc::new(shared(filestore_volumes::quota_memory_volume())),
                        tool_calls: Arc::new(shared(filestore_volumes::quota_memory_volume())),
                        audit: Arc::new(
                            shared(filestore_volumes::quota_memory_volume())
                                .with_headroom(AUDIT_HEADROOM),
                        ),
                    })
                    .clone())
            }
            Docs::Dir(root) => {
                let scratch = root
                    .sub_volume(&format!("{base}/scratch"), true, false)
                    .map_err(StateError::storage)?;
                let results = root
                    .sub_volume(&format!("{base}/tool_calls"), true, false)
                    .map_err(StateError::storage)?;
                let audit = root
                    .sub_volume(&format!("{base}/audit"), true, false)
                    .map_err(StateError::storage)?;
                Ok(self.bounded(key, scratch, dir_results_volume(&results)?, audit))
            }
            Docs::Object(root) => {
                let sub = |p: &str| root.sub_volume(&format!("{base}/{p}"), false);
                let scratch = sub("scratch").map_err(StateError::storage)?;
                let results =
                    sub("tool_calls").map_err(StateError::storage)?.with_trusted_entry_types(&[
                        filestore_guest::invoke::results::TYPE_TOOL_RESULT,
                    ]);
                let audit = sub("audit").map_err(StateError::storage)?;
                Ok(self.bounded(key, scratch, results, audit))
            }
        }
    }

    /// A durable store's conversation volumes under the conversation's quota, and
    /// `/scratch` under the volume quota too.
    fn bounded(
        &self,
        key: &ConversationKey,
        scratch: impl filestore_volumes::Volume + 'static,
        tool_calls: impl filestore_volumes::Volume + 'static,
        audit: impl filestore_volumes::Volume + 'static,
    ) -> ConversationVolumes {
        let quota = self.quota(key);
        let scratch = QuotaVolume::new(scratch, filestore_volumes::volume_quota());
        ConversationVolumes {
            scratch: Arc::new(QuotaVolume::shared(scratch, quota.clone())),
            tool_calls: Arc::new(QuotaVolume::shared(tool_calls, quota.clone())),
            audit: Arc::new(QuotaVolume::shared(audit, quota).with_headroom(AUDIT_HEADROOM)),
        }
    }

    /// Removes the conversation: its document and its files.
    pub fn remove(&self, key: &ConversationKey) -> Result<(), StateError> {
        self.release(key)?;
        self.quotas.lock().unwrap_or_else(|p| p.into_inner()).remove(key);
        self.memory.lock().unwrap_or_else(|p| p.into_inner()).remove(key);
        self.memory_cow.lock().unwrap_or_else(|p| p.into_inner()).retain(|(k, _), _| k != key);
        match self.docs.root().delete(&format!("/conversations/{key}"), true) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(StateError::storage(e)),
        }
    }

    /// Removes every conversation whose document was last used more than `idle` ago
    /// (at `now_ms`, Unix milliseconds; [`StateStore::sweep`] uses the clock). Run it
    /// from one replica or from all: removing twice is harmless. Not atomic with a
    /// request that resumes the conversation at that moment (see docs/state.md).
    /// A directory without a document (being created, or left by a crash) is
    /// removed once its modification time, where the store knows it, is that old.
    pub fn sweep_at(&self, idle: Duration, now_ms: u64) -> Result<SweepReport, StateError> {
        let cutoff = now_ms.saturating_sub(idle.as_millis() as u64);
        let mut report = SweepReport::default();
        let entries = match self.docs.root().list("/conversations") {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(report),
            Err(e) => return Err(StateError::storage(e)),
        };
        for e in entries {
            let name = filestore_guest::vfs::paths::file_name(&e.path).to_string();
            let Some(key) = ConversationKey::from_stored(&name) else { continue };
            let last_used = match self.docs.load(&key) {
                Ok(Some((doc, _))) => Some(doc.last_used_ms),
                // Object stores know no time of a prefix: its owner file's, if any.
                Ok(None) => e.modified_ms.or_else(|| {
                    let owner = format!("/conversations/{key}/owner");
                    self.docs.root().stat(&owner).ok().and_then(|o| o.modified_ms)
                }),
                // A document no request can use either: judged by the directory's
                // time, like one without a document, so it does not stay forever.
                Err(err) if err.kind == StateErrorKind::Corrupt && e.modified_ms.is_some() => {
                    e.modified_ms
                }
                Err(err) => {
                    report.failed.push((name, err.to_string()));
                    continue;
                }
            };
            if last_used.is_none_or(|t| t >= cutoff) {
                report.kept += 1;
                continue;
            }
            match self.remove(&key) {
                Ok(()) => report.removed.push(key),
                Err(err) => report.failed.push((name, err.to_string())),
            }
        }
        Ok(report)
    }

    /// [`StateStore::sweep_at`] now.
    pub fn sweep(&self, idle: Duration) -> Result<SweepReport, StateError> {
        self.sweep_at(idle, now_ms())
    }
}

/// What a durable store keeps of conversation `key`: every file of its folder, and
/// the objects its snapshots added to the store's shared ones (each snapshot's record
/// says how many bytes it wrote).
fn conversation_counter<V: filestore_volumes::Volume + 'static>(
    root: Arc<V>,
    key: &ConversationKey,
) -> Counter {
    let dir = format!("/conversations/{key}");
    Counter::With(Box::new(move || {
        let files = filestore_volumes::quota::content_bytes(root.as_ref(), &dir)?;
        let snapshots = crate::snapshot::Snapshots::new(root.as_ref(), format!("{dir}/snapshots"))
            .list()?
            .iter()
            .map(|r| r.stats.bytes_written)
            .sum::<u64>();
        Ok(files.saturating_add(snapshots))
    }))
}

/// `/tool_calls` of a directory store: the same directory, through `object_store`'s
/// local file system store, which keeps entry metadata in sidecars (a plain
/// directory volume cannot, and a session refuses such a volume as `/tool_calls`).
/// The directory was just resolved under the dir volume's confinement; what is
/// beneath it is written only by this store (agents cannot create links), so the
/// local store's following of links is not a way out.
fn dir_results_volume(dir: &DirVolume) -> Result<ObjectVolume, StateError> {
    let path = dir.real_root().unwrap_or_else(|| dir.root().to_path_buf());
    let fs = object_store::local::LocalFileSystem::new_with_prefix(&path)
        .map_err(|e| {
            StateError::new(
                StateErrorKind::Storage(ErrorKind::Backend),
                format!("{}: {e}", path.display()),
            )
        })?
        .with_automatic_cleanup(true);
    let storage = format!("file:{}", path.display());
    let v = ObjectVolume::with_store(Arc::new(fs), &storage, "", false)
        .map_err(StateError::storage)?
        .with_trusted_entry_types(&[filestore_guest::invoke::results::TYPE_TOOL_RESULT]);
    Ok(v)
}

// The store is shared between request threads.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<StateStore>();
};
