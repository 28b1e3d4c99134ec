//! The audit timeline (docs/audit.md): a record of every mutating
//! call a session runs — when, by whom, which tool, the paths it named or changed,
//! a digest of its arguments and how it ended — kept in a volume and shown to the
//! agent, read-only, at `/audit`.
//!
//! Append-only without coordination: each record is one new file named by a ULID
//! (time-ordered, unique across processes), written create-only. No record is ever
//! read, changed and written back, so any number of sessions and replicas sharing
//! one store append at once without losing a record (a conversation's audit volume
//! is `conversations/<key>/audit/` of its state store, see
//! [`crate::conversation::StateStore::audit_volume`]).
//!
//! What is recorded is decided by the host ([`crate::Session`] records after each
//! call), never by the component: a broken or hostile guest cannot leave its calls
//! out. The paths come from the arguments (what a call tried to change) and from
//! the volume writes the call actually made (what a shell command changed,
//! [`calls::TouchPoint`]). Never the arguments, never an error's message: no secret
//! an argument or a tool's source holds reaches the timeline.

pub mod calls;
pub mod record;

use std::sync::Arc;

use filestore_guest::error::ErrorKind;
use filestore_guest::vfs::volume::WriteOptions;

pub use calls::{TouchPoint, is_audited, named_paths};
pub use record::{AuditRecord, MAX_PATHS, MAX_RECORD_BYTES, Status, args_digest};

use crate::volumes::{MemoryVolume, SharedVolume};

/// Where a session's audit records go, and who the caller is.
#[derive(Clone)]
pub struct AuditLog {
    volume: SharedVolume,
    identity: Option<String>,
    /// The quota the records are charged to and the room they have past it (a
    /// conversation's: see [`AuditLog::check_room`]).
    room: Option<(Arc<crate::volumes::quota::Quota>, u64)>,
}

/// What a session knows of one call when it ends, before it is recorded.
#[derive(Clone, Debug)]
pub struct Attempt {
    /// The tool called.
    pub tool: String,
    /// [`args_digest`] of its arguments.
    pub args_sha256: String,
    /// Paths its arguments name ([`named_paths`]).
    pub named: Vec<String>,
    /// The tool call's id, if it had one.
    pub call_id: Option<String>,
}

impl Attempt {
    /// The attempt of a call of `tool` with `args`.
    pub fn new(tool: &str, args: &serde_json::Value, call_id: Option<String>) -> Attempt {
        Attempt {
            tool: tool.to_string(),
            args_sha256: args_digest(args),
            named: named_paths(tool, args),
            call_id,
        }
    }
}

impl AuditLog {
    /// Records into `volume` (written, create-only) for the caller `identity` (a
    /// verified principal; `None` when the caller is not authenticated).
    pub fn new(volume: SharedVolume, identity: Option<String>) -> AuditLog {
        AuditLog { volume, identity, room: None }
    }

    /// The same log, its records charged to `quota` with `headroom` bytes past its
    /// limit (the volume charges them; this is what [`AuditLog::check_room`] asks).
    pub fn with_quota(
        mut self,
        quota: Arc<crate::volumes::quota::Quota>,
        headroom: u64,
    ) -> AuditLog {
        self.room = Some((quota, headroom));
        self
    }

    /// Whether one more record fits: checked before a call that changes anything
    /// runs, so that no such call runs without its record (an agent that fills its
    /// quota, then its timeline's headroom, can no longer change anything; reads go
    /// on). `limit-exceeded` naming the quota when it does not fit.
    pub fn check_room(&self) -> Result<(), crate::volumes::Error> {
        let Some((quota, headroom)) = &self.room else { return Ok(()) };
        if quota.has_room(MAX_RECORD_BYTES, *headroom)? {
            return Ok(());
        }
        Err(crate::volumes::Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the audit timeline has no room left: the conversation keeps {} bytes, its quota is {} (--conversation-quota-mib) and the timeline may pass it by {headroom}; nothing that changes files can run in this conversation until files or snapshots are deleted (reads still work)",
                quota.used()?,
                quota.limit()
            ),
        ))
    }

    /// Records in a new memory volume: the timeline of one process's sessions.
    pub fn memory(identity: Option<String>) -> AuditLog {
        AuditLog::new(Arc::new(MemoryVolume::new()), identity)
    }

    /// The same caller, recording into `volume` (a session bound to another
    /// conversation).
    pub fn with_volume(&self, volume: SharedVolume) -> AuditLog {
        AuditLog { volume, identity: self.identity.clone(), room: None }
    }

    /// The volume the records are in (mounted read-only at `/audit`).
    pub fn volume(&self) -> &SharedVolume {
        &self.volume
    }

    /// The caller the records name.
    pub fn identity(&self) -> Option<&str> {
        self.identity.as_deref()
    }

    /// Records `attempt`, which ended with `error` (`None`: it succeeded; else the
    /// error's kind name), having changed `touched` (virtual paths). Returns the
    /// record written.
    pub fn record(
        &self,
        attempt: &Attempt,
        error: Option<&str>,
        touched: Vec<String>,
    ) -> Result<AuditRecord, crate::volumes::Error> {
        let now = crate::clocks::now_ms();
        let mut paths = attempt.named.clone();
        paths.extend(touched);
        paths.sort();
        paths.dedup();
        let paths_omitted = paths.len().saturating_sub(MAX_PATHS);
        paths.truncate(MAX_PATHS);
        let time = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(now as i64)
            .unwrap_or_default()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let record = AuditRecord {
            format: record::FORMAT,
            id: crate::ids::new_ulid(),
            time_ms: now,
            time,
            identity: self.identity.clone(),
            tool: attempt.tool.clone(),
            paths,
            paths_omitted,
            args_sha256: attempt.args_sha256.clone(),
            status: if error.is_some() { Status::Error } else { Status::Ok },
            error: error.map(str::to_string),
            call_id: attempt.call_id.clone(),
        };
        // Create-only: a record is never replaced (ids do not repeat; if one ever
        // did, the second write fails rather than erase the first).
        let options = WriteOptions { create_only: true, ..WriteOptions::default() };
        self.volume.write(&record.path(), &record.to_line(), &options)?;
        Ok(record)
    }

    /// Every record, oldest first (by id). For hosts and tests; agents read `/audit`.
    pub fn records(&self) -> Result<Vec<AuditRecord>, crate::volumes::Error> {
        read_records(self.volume.as_ref())
    }
}

/// The tool a typed call ([`crate::Session::with_typed`]) is recorded as: it names
/// no tool of the catalog, and its arguments are not JSON (`args_sha256` is the
/// digest of `null`).
pub const TYPED_TOOL: &str = "typed";

/// The tool `filestore apply --audit` records: the host writing a copy-on-write
/// mount's changes onto its lower directory (no agent can call it).
pub const APPLY_TOOL: &str = "host:apply";

/// Where the timeline shows in a session.
pub const AUDIT_MOUNT: &str = "/audit";

/// Adds the read-only `/audit` mount of `audit` to `mounts`, unless a mount takes
/// that point, lies beneath it, or is at `/` (a writable `/` cannot hold a
/// read-only mount; the embedder chose that layout and mounts the records itself).
pub fn mount_point(mounts: &mut Vec<crate::MountSpec>, audit: &AuditLog) {
    use filestore_guest::vfs::paths::is_within;
    if mounts.iter().any(|m| m.point == "/" || is_within(&m.point, AUDIT_MOUNT)) {
        return;
    }
    mounts.push(crate::MountSpec::new(AUDIT_MOUNT, audit.volume.clone()).read_only());
}

/// The records in an audit volume, oldest first. A file that is not a record (none
/// should be there) is a `backend` error naming it.
pub fn read_records(
    volume: &(dyn crate::volumes::Volume + Send + Sync),
) -> Result<Vec<AuditRecord>, crate::volumes::Error> {
    let walk = match volume.walk("/", usize::MAX) {
        Ok(w) => w,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for e in walk.entries.iter().filter(|e| e.kind == filestore_guest::vfs::entry::EntryKind::File)
    {
        let bytes = volume.read(&e.path, 0, record::MAX_RECORD_BYTES)?;
        let r: AuditRecord = serde_json::from_slice(&bytes).map_err(|err| {
            crate::volumes::Error::at(
                ErrorKind::Backend,
                &e.path,
                format!("not an audit record: {err}"),
            )
        })?;
        out.push(r);
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}
