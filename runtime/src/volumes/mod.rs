//! Volume backends: where mounted files actually live.
//!
//! Every backend implements the guest crate's [`Volume`] trait, the same trait the
//! component's logic is written against, so a backend can be tested directly (without
//! a component) and then served to the guest through the WIT `volume` resource.
//!
//! - [`MemoryVolume`]: in-memory (the embedded default; `/scratch`, tool results).
//! - [`dir::DirVolume`]: a local directory, confined beneath its root.
//!
//! Object-store volumes (S3, GCS, Azure) live in the `filestore` crate, beside the
//! `--mount` arguments that name them, so an embedder of this crate does not build
//! an object-store client.
//!
//! A [`MountSpec`] says where a session sees a volume; [`check_mounts`] refuses the
//! combinations of mounts that would break a promise.

use std::sync::{Arc, OnceLock};

pub use filestore_guest::vfs::memory::{ByteBudget, MemoryVolume};
pub use filestore_guest::vfs::volume::{PrefetchFile, Volume, Walk, WriteOptions};
/// What a [`Volume`] answers with: its entries, and its errors (a kind and a message
/// naming the path), for embedders writing their own volume.
pub use filestore_guest::{
    error::{Error, ErrorKind},
    vfs::entry::{Entry, EntryKind},
};

pub mod dir;
/// The hostile tree of the integration tests' harness, which the dir volume's unit
/// table attacks too (one fixture for both confinement suites).
#[cfg(test)]
#[path = "../../../tests/integration/support/hostile_tree.rs"]
mod hostile_tree;
mod mount;
pub mod quota;
pub mod skills;
mod upper_lock;

pub use mount::{MountSpec, check_mounts};
pub use upper_lock::{UPPER_LOCK, lock_upper};

thread_local! {
    /// When host-side volume work on this thread should stop (see [`with_work_deadline`]).
    static WORK_DEADLINE: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with host-side volume work on this thread bounded by `deadline`: long
/// operations (a recursive delete of a huge tree) check [`work_deadline_passed`] and
/// stop with a `limit-exceeded` error that says what they did. The session sets it a
/// little before the sandbox's own deadline, so the guest still has time to return
/// that error instead of being interrupted with nothing to report.
pub fn with_work_deadline<T>(deadline: std::time::Instant, f: impl FnOnce() -> T) -> T {
    let saved = WORK_DEADLINE.with(|d| d.replace(Some(deadline)));
    let out = f();
    WORK_DEADLINE.with(|d| d.set(saved));
    out
}

/// This thread's host-side volume work deadline, if a call set one (see
/// [`with_work_deadline`]): backends that wait on the network bound their waits by it.
pub fn work_deadline() -> Option<std::time::Instant> {
    WORK_DEADLINE.with(|d| d.get())
}

/// Whether this thread's host-side volume work is past its deadline.
pub fn work_deadline_passed() -> bool {
    WORK_DEADLINE.with(|d| d.get()).is_some_and(|t| std::time::Instant::now() >= t)
}

/// A backend shared between the host and any number of sessions.
pub type SharedVolume = Arc<dyn Volume + Send + Sync>;

/// Default content bytes of each in-memory volume a session gets (its `/scratch`,
/// its `/tool_calls`, any `mem:` mount): room to work, not to fill the host.
pub const DEFAULT_VOLUME_QUOTA: u64 = 256 * 1024 * 1024;
/// Default content bytes of all in-memory volumes of the process together: many
/// sessions each within their own quota must still not exhaust the host.
pub const DEFAULT_PROCESS_QUOTA: u64 = 4 * 1024 * 1024 * 1024;

/// Default bytes one conversation may keep in a state store (`--conversation-quota-mib`):
/// its `/scratch`, stored results, copy-on-write upper layers, audit timeline and what
/// its snapshots add, together (see [`crate::conversation::StateStore::quota`]).
pub const DEFAULT_CONVERSATION_QUOTA: u64 = 1024 * 1024 * 1024;

static CONVERSATION_QUOTA: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(DEFAULT_CONVERSATION_QUOTA);

/// Sets the conversation quota of the state stores this process opens from now on.
pub fn set_conversation_quota(bytes: u64) {
    CONVERSATION_QUOTA.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// The conversation quota a state store opened now takes (bytes).
pub fn conversation_quota() -> u64 {
    CONVERSATION_QUOTA.load(std::sync::atomic::Ordering::Relaxed)
}

/// The quotas of the in-memory volumes this process creates (see
/// [`set_memory_quotas`]).
#[derive(Debug)]
struct MemoryQuotas {
    per_volume: u64,
    process: Arc<ByteBudget>,
}

static QUOTAS: OnceLock<MemoryQuotas> = OnceLock::new();

fn quotas() -> &'static MemoryQuotas {
    QUOTAS.get_or_init(|| MemoryQuotas {
        per_volume: DEFAULT_VOLUME_QUOTA,
        process: ByteBudget::new("the process's memory-volume quota", DEFAULT_PROCESS_QUOTA),
    })
}

/// Sets the quotas of in-memory volumes (bytes per volume, bytes for the whole
/// process) before the first one is created; `Err` when they were already fixed.
/// The defaults are [`DEFAULT_VOLUME_QUOTA`] and [`DEFAULT_PROCESS_QUOTA`].
pub fn set_memory_quotas(per_volume: u64, process: u64) -> Result<(), crate::error::Error> {
    QUOTAS
        .set(MemoryQuotas {
            per_volume,
            process: ByteBudget::new("the process's memory-volume quota", process),
        })
        .map_err(|_| {
            crate::error::Error::Filestore(filestore_guest::error::Error::new(
                filestore_guest::error::ErrorKind::Conflict,
                "memory quotas are fixed once the first memory volume exists",
            ))
        })
}

/// A new in-memory volume charged against its own quota and the process's (a write
/// past either is `limit-exceeded`, naming the quota; the session goes on).
pub fn quota_memory_volume() -> MemoryVolume {
    let q = quotas();
    MemoryVolume::with_budgets(vec![
        ByteBudget::new("the memory-volume quota", q.per_volume),
        q.process.clone(),
    ])
}

/// The per-volume quota (`--volume-quota-mib`, bytes): what an in-memory volume may
/// hold, and a conversation's `/scratch` in a state store ([`quota::QuotaVolume`]).
pub fn volume_quota() -> u64 {
    quotas().per_volume
}

/// The process's shared memory-volume budget (for reports and tests).
pub fn process_memory_budget() -> Arc<ByteBudget> {
    quotas().process.clone()
}
