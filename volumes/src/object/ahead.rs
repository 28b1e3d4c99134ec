//! Read-ahead: the files grep is about to read, fetched before it asks.
//!
//! The component reads one file at a time (a synchronous `read` per file); over an
//! object store that would be one round trip per file, so a grep over thousands of
//! objects would spend its time waiting. Before such a loop the component names the
//! files in order (`volume.prefetch`); this module then keeps up to
//! [`AHEAD_FILES`] of them (and at most [`AHEAD_BYTES`], at least one file) fetched
//! or in flight, [`AHEAD_PARALLEL`] GETs at a time, while the reads take them in
//! order. A read of the next file waits only for its own fetch; files the component
//! skips are dropped (their fetches aborted) and the window moves on. Each fetch is
//! a ranged GET of exactly what the component will ask for (`size + 1` bytes), so a
//! file that grew since the walk is still noticed. A later `prefetch` replaces the
//! list, and any change to the volume (write, delete, rename) drops it, so a read
//! never returns content older than a change made through this volume.

use std::collections::VecDeque;
use std::sync::Arc;

use filestore_guest::vfs::volume::PrefetchFile;
use object_store::path::Path as Key;
use object_store::{GetOptions, GetRange, ObjectStore};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

/// Most files fetched or in flight ahead of the reads.
pub const AHEAD_FILES: usize = 64;
/// Most bytes held ahead of the reads (a single larger file is still fetched alone).
pub const AHEAD_BYTES: u64 = 64 * 1024 * 1024;
/// Most GETs of one read-ahead in flight at once.
pub const AHEAD_PARALLEL: usize = 16;

/// A fetch in progress or done.
struct Pending {
    path: String,
    size: u64,
    task: JoinHandle<object_store::Result<Vec<u8>>>,
}

/// The read-ahead of one volume.
pub(super) struct ReadAhead {
    store: Arc<dyn ObjectStore>,
    started: VecDeque<Pending>,
    waiting: VecDeque<(PrefetchFile, Key)>,
    bytes: u64,
    permits: Arc<Semaphore>,
}

impl ReadAhead {
    pub(super) fn new(store: Arc<dyn ObjectStore>) -> ReadAhead {
        ReadAhead {
            store,
            started: VecDeque::new(),
            waiting: VecDeque::new(),
            bytes: 0,
            permits: Arc::new(Semaphore::new(AHEAD_PARALLEL)),
        }
    }

    /// Drops everything (aborting fetches in flight).
    pub(super) fn clear(&mut self) {
        for p in self.started.drain(..) {
            p.task.abort();
        }
        self.waiting.clear();
        self.bytes = 0;
    }

    /// Replaces the list with `files` (each with its key) and starts fetching.
    pub(super) fn start(&mut self, files: Vec<(PrefetchFile, Key)>) {
        self.clear();
        self.waiting = files.into();
        self.fill();
    }

    fn fill(&mut self) {
        let rt = super::wait::runtime();
        while self.started.len() < AHEAD_FILES
            && (self.started.is_empty() || self.bytes < AHEAD_BYTES)
            && let Some((f, key)) = self.waiting.pop_front()
        {
            let store = self.store.clone();
            let permits = self.permits.clone();
            let want = f.size.saturating_add(1);
            let task = rt.spawn(async move {
                let _permit = permits.acquire_owned().await;
                let opts =
                    GetOptions { range: Some(GetRange::Bounded(0..want)), ..Default::default() };
                let got = store.get_opts(&key, opts).await?;
                Ok(got.bytes().await?.to_vec())
            });
            self.bytes += want;
            self.started.push_back(Pending { path: f.path, size: f.size, task });
        }
    }

    /// The fetch of `path`, if it is on the list: files before it are dropped (the
    /// reader skipped them) and the window moves on. `None` when `path` is not on the
    /// list (the caller reads it directly).
    pub(super) fn take(
        &mut self,
        path: &str,
    ) -> Option<(u64, JoinHandle<object_store::Result<Vec<u8>>>)> {
        if let Some(i) = self.started.iter().position(|p| p.path == path) {
            for skipped in self.started.drain(..i) {
                self.bytes -= skipped.size.saturating_add(1);
                skipped.task.abort();
            }
            let p = self.started.pop_front().expect("found");
            self.bytes -= p.size.saturating_add(1);
            self.fill();
            return Some((p.size, p.task));
        }
        if let Some(i) = self.waiting.iter().position(|(f, _)| f.path == path) {
            // The reader skipped past the whole window: start again after `path`.
            self.clear_started();
            self.waiting.drain(..=i);
            self.fill();
        }
        None
    }

    fn clear_started(&mut self) {
        for p in self.started.drain(..) {
            p.task.abort();
        }
        self.bytes = 0;
    }
}

impl Drop for ReadAhead {
    fn drop(&mut self) {
        self.clear();
    }
}
