//! Which conversation an MCP session serves, and how its state follows it through
//! the conversation store ([`filestore_store::conversation`], docs/state.md#serving).
//!
//! With `serve --state SPEC`, a session's `/scratch` and `/tool_calls` are the
//! conversation's volumes in the store, and the skills it activated are recorded in
//! the conversation's state document, so another session of the same conversation
//! (a reconnect, another replica behind a load balancer, the process restarted
//! after a crash) continues it: same files, same stored results, same tools.
//!
//! The conversation of a session:
//! - the key the client names, in the `Filestore-Conversation` HTTP header of the
//!   request that creates the session, or in `_meta["filestore/conversation"]` of
//!   its `initialize` (`serve --conversation KEY` for stdio's one session);
//! - scoped to the authenticated identity: the store keeps only the SHA-256 of
//!   (identity, key) ([`ConversationKey::scoped`]), so one caller naming another's
//!   key reaches a conversation of its own, never the other's;
//! - a client that names none gets a fresh conversation, `session-<ULID>`, whose
//!   key the `initialize` result returns in `_meta["filestore/conversation"]`: it
//!   can name it again after a reconnect. Why not one default conversation per
//!   identity: two agents of one user (two editor windows) would then share
//!   `/scratch` without either asking for it.
//!
//! A session keeps the conversation it was created with: a later request naming
//! another one is refused (`invalid-params`), since its sandbox is mounted over the
//! first one's volumes. Without `--state`, no conversation is kept and a request
//! naming one is refused, saying so, rather than letting the client believe its
//! state persists.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use filestore_guest::error::{Error as FsError, ErrorKind};
use sha2::{Digest, Sha256};

use filestore_runtime::{MountSpec, Session};
use filestore_store::conversation::{
    ConversationKey, ConversationVolumes, StateDoc, StateError, StateStore, now_ms,
};

/// The HTTP header naming the request's conversation.
pub const HEADER: &str = "filestore-conversation";
/// The `_meta` key naming the request's conversation (and, in the `initialize`
/// result, the session's).
pub const META_KEY: &str = "filestore/conversation";
/// Calls waiting for approval one conversation keeps (the oldest is dropped).
pub const MAX_PENDING_APPROVALS: usize = 16;
/// Largest arguments (JSON bytes) of a call waiting for approval.
pub const MAX_PARKED_ARGUMENT_BYTES: usize = 64 * 1024;

/// The default of `--max-conversations-per-identity`: far more than one user's
/// agents keep within the idle limit, few enough that one identity creating keys
/// in a loop stops long before the store fills.
pub const DEFAULT_MAX_PER_IDENTITY: usize = 1000;
/// What the refusal of a conversation past that cap names (the HTTP layer answers
/// it with 429, [`super::http::pool`]).
pub const CAP_FLAG: &str = "--max-conversations-per-identity";

/// The default of `--conversation-idle-timeout`: a week, since agent platforms keep
/// conversations for days.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(7 * 24 * 3600);

/// The conversations of a server: the store and the rules binding sessions to it.
pub struct Conversations {
    store: Arc<StateStore>,
    /// Whether the store supplies `/scratch` (the user did not mount one).
    scratch: bool,
    /// Whether the store supplies `/tool_calls`.
    tool_calls: bool,
    /// Conversations unused this long are removed ([`Conversations::sweep_every`]).
    idle: Duration,
    /// The key of a session that names none (`--conversation`, stdio).
    default_key: Option<String>,
    /// Most conversations of one authenticated identity
    /// (`--max-conversations-per-identity`); `None`: no cap.
    max_per_identity: Option<usize>,
}

impl Conversations {
    /// Conversations kept in `store`, removed after `idle` unused, supplying
    /// `/scratch` and/or `/tool_calls` as the flags say.
    pub fn new(
        store: StateStore,
        idle: Duration,
        scratch: bool,
        tool_calls: bool,
    ) -> Conversations {
        Conversations {
            store: Arc::new(store),
            scratch,
            tool_calls,
            idle,
            default_key: None,
            max_per_identity: None,
        }
    }

    /// Caps the conversations of each authenticated identity at `cap` (0: no cap).
    /// Without authentication every caller is one identity, so there is none to
    /// cap: the limit applies only to callers with an identity.
    pub fn with_max_per_identity(mut self, cap: usize) -> Conversations {
        self.max_per_identity = (cap > 0).then_some(cap);
        self
    }

    /// The conversation of a session that names none (instead of a fresh one).
    pub fn with_default_key(mut self, key: Option<String>) -> Conversations {
        self.default_key = key;
        self
    }

    /// The mount points the store supplies.
    pub fn points(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.scratch {
            out.push(crate::config::DEFAULT_SCRATCH);
        }
        if self.tool_calls {
            out.push(crate::config::DEFAULT_TOOL_CALLS);
        }
        out
    }

    /// How often a session records that its conversation is in use (without a
    /// change to record): often enough that a conversation in use is never idle
    /// for the sweep, rarely enough that reads do not each write the document.
    fn touch_every(&self) -> Duration {
        (self.idle / 4).min(Duration::from_secs(60))
    }

    /// Binds a new session to the conversation `requested` names (or the default,
    /// or a fresh one) for the caller `identity` (its path segment; `None`
    /// unauthenticated): its volumes, opened in the store.
    pub fn bind(
        self: &Arc<Conversations>,
        identity: Option<&str>,
        requested: Option<&str>,
    ) -> filestore_runtime::Result<Bound> {
        let (name, key) = self.key_of(identity, requested)?;
        if let (Some(cap), Some(who)) = (self.max_per_identity, identity) {
            // Before anything of a new conversation is made: one refused makes nothing.
            let owner = owner_digest(Some(who));
            self.store.claim(&key, &owner, cap).map_err(state_error)?;
        }
        let volumes = self.store.volumes(&key).map_err(state_error)?;
        Ok(Bound {
            conversations: self.clone(),
            name,
            key,
            volumes,
            skills: Vec::new(),
            gates: Vec::new(),
            doc_version: 0,
            doc_created_ms: 0,
            pulled: false,
            written_ms: 0,
            preloaded: None,
            held_cow: Default::default(),
            cow_behind: false,
        })
    }

    /// The name and store key of the conversation `requested` names (or the
    /// default, or a fresh one) for the caller `identity`; nothing is opened.
    pub fn key_of(
        &self,
        identity: Option<&str>,
        requested: Option<&str>,
    ) -> filestore_runtime::Result<(String, ConversationKey)> {
        let name = match requested.or(self.default_key.as_deref()) {
            Some(k) => k.to_string(),
            None => format!(
                "session-{}",
                &filestore_store::conversation::new_call_id()["call_".len()..]
            ),
        };
        let key = ConversationKey::scoped(identity.unwrap_or(""), &name).map_err(state_error)?;
        Ok((name, key))
    }

    /// The conversation's state document as it is now (`None`: it has none).
    pub fn load(&self, key: &ConversationKey) -> filestore_runtime::Result<Option<StateDoc>> {
        self.store.load(key).map_err(state_error)
    }

    /// Removes conversations idle longer than the limit every so often, until the
    /// runtime ends. Every replica may run it: removing twice is harmless.
    pub fn sweep_every(self: &Arc<Conversations>, every: Duration) -> tokio::task::JoinHandle<()> {
        let this = self.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let (store, idle) = (this.store.clone(), this.idle);
                let report = tokio::task::spawn_blocking(move || {
                    // Records of sessions that stopped without a DELETE go with them.
                    if let Err(e) = store.sweep_records_at(idle, now_ms()) {
                        eprintln!("filestore serve: sweeping session records: {e}");
                    }
                    store.sweep(idle)
                })
                .await;
                match report {
                    Ok(Ok(r)) => {
                        for (name, why) in r.failed {
                            eprintln!("filestore serve: conversation {name} not swept: {why}");
                        }
                    }
                    Ok(Err(e)) => eprintln!("filestore serve: sweeping conversations: {e}"),
                    Err(_) => {}
                }
            }
        })
    }

    /// The store (shared with [`super::stored_sessions::StoredSessions`]).
    pub(crate) fn store(&self) -> Arc<StateStore> {
        self.store.clone()
    }

    /// The sweep interval for an idle limit: a tenth of it, between 1 s and 10 min.
    pub fn sweep_interval(&self) -> Duration {
        (self.idle / 10).clamp(Duration::from_secs(1), Duration::from_secs(600))
    }
}

/// A session's conversation: its key, its volumes, and what of its state the
/// session has (the skills restored or recorded, the document version seen).
pub struct Bound {
    conversations: Arc<Conversations>,
    /// The key as the client named it (or as it was made for it).
    name: String,
    key: ConversationKey,
    volumes: ConversationVolumes,
    /// The active skills as last recorded in, or restored from, the document.
    skills: Vec<String>,
    /// The approval gates the session has, as last recorded or restored.
    gates: Vec<filestore_guest::invoke::ApprovalGate>,
    /// The document version last seen (0: none yet).
    doc_version: u64,
    /// The `created_ms` of that document (0: none yet): a conversation removed and
    /// made again starts its versions over.
    doc_created_ms: u64,
    /// Whether the session has been brought up to the document once.
    pulled: bool,
    /// When the document was last written (Unix ms) as far as this session knows:
    /// by itself, or by another session (its `last_used_ms` when pulled), so a
    /// request-long session of a conversation in use writes nothing when nothing
    /// changed.
    written_ms: u64,
    /// The document as just read for this request ([`Bound::preload`]): the next
    /// [`Bound::pull`] uses it instead of reading it again.
    preloaded: Option<Option<StateDoc>>,
    /// The copy-on-write states the session's component holds.
    held_cow: filestore_store::conversation::cow::HeldCow,
    /// The document holds a copy-on-write state the component does not: the
    /// session is made again before its next call ([`Bound::take_cow_behind`]).
    cow_behind: bool,
}

impl Bound {
    /// The key as the client names it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The store's digest of the conversation.
    pub fn key(&self) -> &ConversationKey {
        &self.key
    }

    /// The mounts the conversation supplies: `/scratch` (writable) and
    /// `/tool_calls` (read-only for agents), as far as the store supplies them.
    pub fn mounts(&self) -> Vec<MountSpec> {
        self.conversations.supplied(|| self.volumes.clone())
    }

    /// Puts the conversation's upper layer (kept in the store) in place of the
    /// session's own in memory, in each copy-on-write mount of `mounts` that takes
    /// one (`:cow`; docs/cow.md#under-serve---state).
    pub fn bind_cow_uppers(&self, mounts: &mut [MountSpec]) -> filestore_runtime::Result<()> {
        for m in mounts.iter_mut().filter(|m| m.upper.is_some() && m.upper_from_conversation) {
            let upper = self
                .conversations
                .store
                .cow_upper(&self.key, &m.point, self.held_cow.clone())
                .map_err(state_error)?;
            m.upper = Some(upper);
        }
        Ok(())
    }

    /// Whether the last [`Bound::pull`] found a copy-on-write state the session's
    /// component does not hold (another session changed the mount): then make the
    /// session again, so that it reads the state anew. Reset by the call.
    pub fn take_cow_behind(&mut self) -> bool {
        std::mem::take(&mut self.cow_behind)
    }

    /// The store the conversation is kept in.
    pub fn store(&self) -> &StateStore {
        &self.conversations.store
    }

    /// The conversation's audit timeline (mounted at `/audit` by the session its
    /// audit option makes, see [`filestore_runtime::audit`]) for the caller `identity`: its
    /// records charged to the conversation's quota, with their headroom.
    pub fn audit_log(&self, identity: Option<String>) -> filestore_runtime::audit::AuditLog {
        filestore_runtime::audit::AuditLog::new(self.volumes.audit.clone(), identity).with_quota(
            self.conversations.store.quota(&self.key),
            filestore_store::conversation::AUDIT_HEADROOM,
        )
    }

    /// Mount points the conversation supplies.
    pub fn points(&self) -> Vec<&'static str> {
        self.conversations.points()
    }

    /// A session over these volumes has just been made (or replaced): the next
    /// [`Bound::pull`] restores every recorded skill into it.
    pub fn new_session(&mut self) {
        self.pulled = false;
        self.gates.clear();
    }

    /// The document as the request just read it: the next [`Bound::pull`] uses it.
    pub fn preload(&mut self, doc: Option<StateDoc>) {
        self.preloaded = Some(doc);
    }

    /// The document the session was last brought up to, once it was
    /// ([`super::sandbox_cache`]); `None` before the first pull.
    pub fn stamp(&self) -> Option<Stamp> {
        self.pulled.then_some(Stamp { version: self.doc_version, created_ms: self.doc_created_ms })
    }

    /// `doc` is what this session's own change of the pending approvals made of the
    /// document: when nothing else changed it since the session last saw it (its
    /// version is the next), the session is still current with it.
    fn advance(&mut self, doc: &StateDoc) {
        let same_conversation = self.doc_created_ms == 0 || self.doc_created_ms == doc.created_ms;
        if self.pulled && same_conversation && doc.version == self.doc_version + 1 {
            self.doc_version = doc.version;
            self.doc_created_ms = doc.created_ms;
        }
    }

    /// Brings `session` up to the conversation's document: skills another session
    /// of the conversation activated (here or on another replica) are activated in
    /// this one, in the recorded order. One read of the document; restoring reads
    /// the skills' `SKILL.md`s only when the recorded skills changed. Whether the
    /// tools may have changed.
    pub fn pull(&mut self, session: &mut Session) -> filestore_runtime::Result<bool> {
        let doc = match self.preloaded.take() {
            Some(doc) => doc,
            None => self.conversations.store.load(&self.key).map_err(state_error)?,
        };
        let Some(doc) = doc else {
            if self.doc_version > 0 {
                return Err(self.expired());
            }
            self.pulled = true;
            return Ok(false);
        };
        if self.pulled && doc.version == self.doc_version {
            return Ok(false);
        }
        if self.pulled && self.held_cow.behind(&doc) {
            self.cow_behind = true;
        }
        self.doc_version = doc.version;
        self.doc_created_ms = doc.created_ms;
        self.written_ms = self.written_ms.max(doc.last_used_ms);
        if doc.approval_gates != self.gates {
            // Held follow-ups are approvals owed: restored before anything else runs.
            session.restore_approval_gates(&doc.approval_gates)?;
            self.gates = doc.approval_gates.clone();
        }
        if self.pulled && doc.activated_skills == self.skills {
            return Ok(false);
        }
        if doc.activated_skills.is_empty() {
            // Nothing to restore (and nothing recorded can have been dropped).
            self.pulled = true;
            return Ok(false);
        }
        let failed = session.restore_skills(&doc.activated_skills)?;
        for e in failed {
            // A skill removed from the skills directory since: its tools are gone.
            eprintln!("filestore serve: conversation {}: skill not restored: {e}", self.name);
        }
        self.skills = doc.activated_skills;
        self.pulled = true;
        Ok(true)
    }

    /// Records what `session` changed in the conversation's state (the skills it
    /// activated), and that the conversation is in use, at most every so often when
    /// nothing changed. One guest call, and a write only when due.
    pub fn push(&mut self, session: &mut Session) -> filestore_runtime::Result<()> {
        let active = session.active_skills()?;
        let gates = session.approval_gates()?;
        let added: Vec<_> = gates.iter().filter(|g| !self.gates.contains(g)).cloned().collect();
        let removed: Vec<_> = self.gates.iter().filter(|g| !gates.contains(g)).cloned().collect();
        let changed = active != self.skills || !added.is_empty() || !removed.is_empty();
        let since = now_ms().saturating_sub(self.written_ms);
        let due = since >= self.conversations.touch_every().as_millis() as u64;
        if !changed && !due {
            return Ok(());
        }
        let cap = filestore_guest::skills::skill::MAX_ACTIVE_SKILLS;
        let record = |doc: &mut filestore_store::conversation::StateDoc| {
            doc.record_active(&active, cap);
            doc.apply_gates(&added, &removed);
        };
        let store = &self.conversations.store;
        let doc = if self.doc_version > 0 {
            // The conversation had a document: one removed since (expired while this
            // call ran) is not brought back half empty.
            match store.update_existing(&self.key, record).map_err(state_error)? {
                Some((doc, ())) => doc,
                None => return Err(self.expired()),
            }
        } else {
            store.update(&self.key, record).map_err(state_error)?.0
        };
        self.doc_version = doc.version;
        self.doc_created_ms = doc.created_ms;
        self.written_ms = doc.last_used_ms;
        if doc.activated_skills != active
            || doc.approval_gates != gates
            || self.held_cow.behind(&doc)
        {
            // Skills, gates or copy-on-write changes of another session of the
            // conversation: this one gets them at its next pull (the document moved
            // on since).
            self.doc_version = 0;
        }
        self.skills = active;
        self.gates = gates;
        Ok(())
    }

    /// Parks a call waiting for the user's approval in the conversation's document
    /// under a new id (unique across replicas): the answer may reach any replica.
    /// Parked calls older than `ttl` are dropped, and the oldest beyond
    /// [`MAX_PENDING_APPROVALS`], so calls never answered cannot fill the document;
    /// arguments over [`MAX_PARKED_ARGUMENT_BYTES`] are refused (`too-large`).
    pub fn park_approval(
        &mut self,
        tool: &str,
        arguments: &serde_json::Value,
        ttl: Duration,
    ) -> filestore_runtime::Result<String> {
        let size = serde_json::to_vec(arguments).map_or(0, |b| b.len());
        if size > MAX_PARKED_ARGUMENT_BYTES {
            return Err(filestore_runtime::Error::Filestore(FsError::new(
                ErrorKind::TooLarge,
                format!(
                    "tool '{tool}' requires approval, and its arguments ({size} bytes) are over the {MAX_PARKED_ARGUMENT_BYTES} bytes a call waiting for approval may keep; nothing ran"
                ),
            )));
        }
        let id = filestore_store::conversation::new_call_id();
        let now = now_ms();
        let pending = filestore_store::conversation::PendingApproval {
            tool: tool.to_string(),
            arguments: arguments.clone(),
            // The question is rebuilt from the arguments when asked: not kept twice.
            message: format!("run '{tool}'?"),
            asked_ms: now,
        };
        let cutoff = now.saturating_sub(ttl.as_millis() as u64);
        let (doc, ()) = self
            .conversations
            .store
            .update(&self.key, |doc| {
                doc.pending_approvals.retain(|_, p| p.asked_ms >= cutoff);
                while doc.pending_approvals.len() >= MAX_PENDING_APPROVALS {
                    let oldest = doc
                        .pending_approvals
                        .iter()
                        .min_by_key(|(_, p)| p.asked_ms)
                        .map(|(k, _)| k.clone());
                    match oldest {
                        Some(k) => doc.pending_approvals.remove(&k),
                        None => break,
                    };
                }
                doc.pending_approvals.insert(id.clone(), pending.clone());
            })
            .map_err(state_error)?;
        self.advance(&doc);
        Ok(id)
    }

    /// Takes the parked call `id` out of the document (so an answer is used once,
    /// whichever replica it reaches first); `None` when it is not there (answered
    /// already, never asked, another conversation's) or was asked longer than
    /// `ttl` ago.
    pub fn take_approval(
        &mut self,
        id: &str,
        ttl: Duration,
    ) -> filestore_runtime::Result<Option<filestore_store::conversation::PendingApproval>> {
        let (doc, taken) = self
            .conversations
            .store
            .update(&self.key, |doc| doc.pending_approvals.remove(id))
            .map_err(state_error)?;
        self.advance(&doc);
        let cutoff = now_ms().saturating_sub(ttl.as_millis() as u64);
        Ok(taken.filter(|p| p.asked_ms >= cutoff))
    }

    fn expired(&self) -> filestore_runtime::Error {
        filestore_runtime::Error::Filestore(FsError::new(
            ErrorKind::NotFound,
            format!(
                "conversation '{}' was removed after {} s unused (--conversation-idle-timeout); start a new one",
                self.name,
                self.conversations.idle.as_secs()
            ),
        ))
    }
}

/// A state-store error as a host error for the agent: a bad key is the caller's
/// mistake, a store failure the store's kind. The store's own names stay out of it
/// ([`agent_facing`]).
pub fn state_error(e: StateError) -> filestore_runtime::Error {
    let message = agent_facing(&e.to_string());
    filestore_runtime::Error::Filestore(FsError::new(
        e.kind.error_kind(),
        format!("conversation state: {message}"),
    ))
}

/// `message` without what only the store knows: a conversation's digest (`conversation
/// 3fa…` is `this conversation`) and any path into the store (a word holding
/// `/conversations/<digest>`, the store's folder on the host included, is `(the
/// conversation's store)`). The agent knows its conversation by the name it gave; the
/// layout of the store and where it lives are the operator's.
pub fn agent_facing(message: &str) -> String {
    const DIGEST_LEN: usize = 64;
    let is_digest = |s: &str| {
        s.len() >= DIGEST_LEN && s.as_bytes()[..DIGEST_LEN].iter().all(u8::is_ascii_hexdigit)
    };
    let mut out = String::with_capacity(message.len());
    let mut after_conversation = false;
    for (i, word) in message.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let core = word.trim_end_matches([':', ',', ';', '.', ')']);
        let tail = &word[core.len()..];
        let in_store = core
            .find("/conversations/")
            .is_some_and(|at| is_digest(&core[at + "/conversations/".len()..]));
        if in_store {
            out.push_str("(the conversation's store)");
            out.push_str(tail);
        } else if after_conversation && core.len() == DIGEST_LEN && is_digest(core) {
            // "conversation <digest>" became "conversation this one".
            out.truncate(out.len() - "conversation ".len());
            out.push_str("this conversation");
            out.push_str(tail);
        } else {
            out.push_str(word);
        }
        after_conversation = word == "conversation";
    }
    out
}

/// A request named a conversation on a server that keeps none.
pub fn no_conversations() -> filestore_runtime::Error {
    filestore_runtime::Error::Filestore(FsError::new(
        ErrorKind::InvalidArgument,
        format!(
            "the request names a conversation ({} header or _meta[\"{}\"]), but this server keeps no conversation state: start it with --state DIR|s3://bucket/prefix|mem:",
            "Filestore-Conversation", META_KEY
        ),
    ))
}

/// An identity as the store keeps it: a digest of its path segment (`""` without
/// authentication). The owner a conversation is counted against
/// (`--max-conversations-per-identity`), and the creator a session record keeps
/// ([`crate::stored_sessions`]).
pub fn owner_digest(segment: Option<&str>) -> String {
    let digest = Sha256::digest(format!("owner:{}", segment.unwrap_or("")).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Which state document a session was brought up to: its version, and when its
/// conversation was created (a conversation removed and made again starts its
/// versions over). What tells a cached sandbox still current
/// ([`crate::sandbox_cache`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Stamp {
    /// The document's version (0: no document yet).
    pub version: u64,
    /// The document's `created_ms` (0: no document yet).
    pub created_ms: u64,
}

impl Stamp {
    /// The stamp of `doc` (`None`: the conversation has no document).
    pub fn of(doc: Option<&StateDoc>) -> Stamp {
        doc.map_or(Stamp::default(), |d| Stamp { version: d.version, created_ms: d.created_ms })
    }
}

/// What the HTTP request being handled says about its conversation, for the server
/// made for it (set by [`crate::http::capture`]).
#[derive(Clone, Debug, Default)]
pub struct RequestConversation {
    /// The conversation its [`HEADER`] names.
    pub named: Option<String>,
    /// It speaks MCP 2026-07-28 or later (its `MCP-Protocol-Version` header): a
    /// server made for it serves this one request (no session).
    pub per_request: bool,
    /// Where a server made for the request puts its conversation (see
    /// [`crate::stored_sessions`]).
    pub created: CreatedServer,
}

tokio::task_local! {
    /// Set by the HTTP layer around the rest of the request
    /// ([`crate::http::capture`]).
    pub(crate) static REQUESTED: RequestConversation;
}

/// What the request being handled says about its conversation (nothing outside
/// an HTTP request).
pub fn requested() -> RequestConversation {
    REQUESTED.try_with(Clone::clone).unwrap_or_default()
}

/// Where the server made for a request that creates a session puts its conversation
/// name (its own cell, which a later `_meta` binding updates), so the HTTP layer can
/// record it once the session's id is known ([`crate::stored_sessions`]).
#[derive(Clone, Debug, Default)]
pub struct CreatedServer(Arc<Mutex<Option<ConversationCell>>>);

/// A server's conversation name, which a `_meta` binding may change.
pub type ConversationCell = Arc<Mutex<Option<String>>>;

impl CreatedServer {
    /// Called by the server made for the request: its conversation cell.
    pub fn set(&self, conversation: &ConversationCell) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(conversation.clone());
    }

    /// The conversation the server serves now, if one was made and keeps one.
    pub fn conversation(&self) -> Option<String> {
        let cell = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()?;
        cell.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Conversations {
    /// The in-memory volumes a request with no conversation gets at the points the
    /// store supplies (a 2026-07-28 request naming none: nothing of it is kept, so
    /// nothing is written to the store).
    pub fn ephemeral_mounts(&self) -> Vec<MountSpec> {
        let memory = || -> filestore_volumes::SharedVolume {
            Arc::new(filestore_volumes::quota_memory_volume())
        };
        self.supplied(|| ConversationVolumes {
            scratch: memory(),
            tool_calls: memory(),
            audit: memory(),
        })
    }

    /// The mounts at the points the store supplies, over `volumes`: `/scratch`
    /// writable, `/tool_calls` read-only for agents.
    fn supplied(&self, volumes: impl FnOnce() -> ConversationVolumes) -> Vec<MountSpec> {
        let v = volumes();
        let mut out = Vec::new();
        if self.scratch {
            out.push(MountSpec::new(crate::config::DEFAULT_SCRATCH, v.scratch));
        }
        if self.tool_calls {
            out.push(MountSpec::new(crate::config::DEFAULT_TOOL_CALLS, v.tool_calls).read_only());
        }
        out
    }
}

#[cfg(test)]
mod agent_facing_tests {
    use super::agent_facing;

    #[test]
    fn the_stores_names_stay_out_of_what_the_agent_reads() {
        let d = "3f".repeat(32);
        let message = format!(
            "conversation {d}: /conversations/{d}/snapshots/x.json: not found; /srv/state/conversations/{d}/tool_calls/a, and more"
        );
        assert_eq!(
            agent_facing(&message),
            "this conversation: (the conversation's store): not found; (the conversation's store), and more"
        );
        assert_eq!(agent_facing("no snapshot named 'v1'"), "no snapshot named 'v1'");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_tell_documents_apart() {
        let mut doc = StateDoc::new(7);
        assert_eq!(Stamp::of(None), Stamp::default());
        doc.version = 3;
        assert_eq!(Stamp::of(Some(&doc)), Stamp { version: 3, created_ms: 7 });
        assert_ne!(Stamp::of(Some(&doc)), Stamp::of(None));
    }
}
