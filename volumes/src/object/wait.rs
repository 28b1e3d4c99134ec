//! The object store's async client driven from the synchronous [`Volume`] trait.
//!
//! Requests run on one tokio runtime shared by every object volume of the process
//! ([`runtime`], two worker threads). A volume call spawns its future there and
//! waits for the answer on a plain channel, so it works from any thread, including
//! a thread of another runtime (the MCP server calls volumes from `spawn_blocking`
//! threads; the wait never enters a runtime, so it cannot panic with "cannot block
//! inside a runtime"). The wait is bounded twice: by [`OP_TIMEOUT`], and by the
//! call's host-work deadline ([`filestore_runtime::volumes::with_work_deadline`]), after which the
//! request is abandoned and the call answers instead of outliving the sandbox.
//!
//! [`Volume`]: filestore_guest::vfs::volume::Volume

use std::future::Future;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Longest one volume operation may wait for the object store, retries included.
/// Bounds a call when no deadline is set (a host calling the volume directly).
pub const OP_TIMEOUT: Duration = Duration::from_secs(60);

/// Worker threads of the shared runtime: requests are I/O bound, and the sandbox's
/// own threads do the CPU work.
const WORKER_THREADS: usize = 2;

/// The runtime every object volume's requests run on.
pub(super) fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(WORKER_THREADS)
            .thread_name("filestore-object-store")
            .enable_all()
            .build()
            .expect("the object-store runtime starts")
    })
}

/// Why a wait ended without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unanswered {
    /// [`OP_TIMEOUT`] passed.
    Timeout,
    /// The call's host-work deadline passed.
    Deadline,
}

/// Runs `fut` on the shared runtime and waits for its output, at most until
/// [`OP_TIMEOUT`] or this thread's host-work deadline, whichever comes first; the
/// request is abandoned (its task aborted) when the wait ends unanswered.
pub(super) fn block<T: Send + 'static>(
    fut: impl Future<Output = T> + Send + 'static,
) -> Result<T, Unanswered> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let task = runtime().spawn(async move {
        let _ = tx.send(fut.await);
    });
    let start = Instant::now();
    let (limit, why) = match filestore_runtime::volumes::work_deadline() {
        Some(d) if d.saturating_duration_since(start) < OP_TIMEOUT => {
            (d.saturating_duration_since(start), Unanswered::Deadline)
        }
        _ => (OP_TIMEOUT, Unanswered::Timeout),
    };
    match rx.recv_timeout(limit) {
        Ok(v) => Ok(v),
        Err(_) => {
            task.abort();
            Err(why)
        }
    }
}
