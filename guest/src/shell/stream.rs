//! A running command's output, sent to the host while it runs (docs/shell.md#streaming-progress-and-cancellation).
//!
//! The interpreter hands us each command's `(stdout, stderr)` as it finishes (after
//! every loop iteration, list element and top-level command). We keep it in order and
//! send it through the [`Sink`] (the WIT import `shell-output.emit` in the component)
//! in bounded chunks: at most [`MAX_CHUNK_BYTES`] each, at most every
//! [`FLUSH_INTERVAL`] unless a full chunk is waiting, at most [`MAX_STREAMED_BYTES`] per
//! command. The final result is built from the interpreter's own capture, never from
//! what was streamed, so streaming cannot change it.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Which stream a chunk comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Where chunks go: the component's import (set once by the glue); none natively.
pub type Sink = fn(Stream, &[u8]);

/// Most bytes in one chunk.
pub const MAX_CHUNK_BYTES: usize = 4096;
/// Least time between two sends, unless a full chunk is waiting: a `while true; do
/// echo y; done` costs the host a call per chunk, not per line.
pub const FLUSH_INTERVAL: Duration = Duration::from_millis(100);
/// Most bytes sent per command; the rest reaches only the result.
pub const MAX_STREAMED_BYTES: usize = 1024 * 1024;
/// How often the runtime wakes while a command waits (`sleep`): to send what is
/// waiting, and so that the guest runs and the host's epoch check sees a
/// cancellation or the call's deadline (a guest blocked in a host clock poll is not
/// interruptible).
pub const HEARTBEAT: Duration = Duration::from_millis(50);

static SINK: OnceLock<Sink> = OnceLock::new();

/// Sets where chunks go (once; later calls are ignored).
pub fn set_sink(sink: Sink) {
    let _ = SINK.set(sink);
}

/// The output of one command, waiting to be sent.
pub(crate) struct Streamer {
    sink: Option<Sink>,
    /// Segments in the order printed, consecutive ones of a stream merged.
    pending: Vec<(Stream, Vec<u8>)>,
    pending_bytes: usize,
    /// Bytes sent or dropped past the budget so far.
    sent: usize,
    last_flush: Option<Instant>,
}

impl Streamer {
    /// A streamer to the component's sink (nothing is sent without one).
    pub(crate) fn new() -> Streamer {
        Streamer::with_sink(SINK.get().copied())
    }

    /// A streamer to `sink`.
    pub(crate) fn with_sink(sink: Option<Sink>) -> Streamer {
        Streamer { sink, pending: Vec::new(), pending_bytes: 0, sent: 0, last_flush: None }
    }

    /// Takes what the interpreter produced and sends it when due.
    pub(crate) fn push(&mut self, stdout: &[u8], stderr: &[u8]) {
        if self.sink.is_none() {
            return;
        }
        self.append(Stream::Stdout, stdout);
        self.append(Stream::Stderr, stderr);
        if self.pending_bytes >= MAX_CHUNK_BYTES || self.due() {
            self.flush();
        }
    }

    fn append(&mut self, stream: Stream, bytes: &[u8]) {
        // Within the budget only: what would not be sent is not kept either.
        let room = MAX_STREAMED_BYTES.saturating_sub(self.sent + self.pending_bytes);
        let bytes = &bytes[..bytes.len().min(room)];
        if bytes.is_empty() {
            return;
        }
        match self.pending.last_mut() {
            Some((s, b)) if *s == stream => b.extend_from_slice(bytes),
            _ => self.pending.push((stream, bytes.to_vec())),
        }
        self.pending_bytes += bytes.len();
    }

    fn due(&self) -> bool {
        self.last_flush.is_none_or(|t| t.elapsed() >= FLUSH_INTERVAL)
    }

    /// Sends what waits when the interval has passed (the heartbeat's call).
    pub(crate) fn tick(&mut self) {
        if self.pending_bytes > 0 && self.due() {
            self.flush();
        }
    }

    /// Sends everything waiting, in chunks of at most [`MAX_CHUNK_BYTES`].
    pub(crate) fn flush(&mut self) {
        let Some(sink) = self.sink else { return };
        for (stream, bytes) in self.pending.drain(..) {
            for chunk in bytes.chunks(MAX_CHUNK_BYTES) {
                sink(stream, chunk);
            }
        }
        self.sent += self.pending_bytes;
        self.pending_bytes = 0;
        self.last_flush = Some(Instant::now());
    }
}

/// `fut`, calling `start` the first time it waits (returns pending): the heartbeat
/// starts only for a command that suspends (`sleep`, a pipe between stages, a
/// search yielding), so one that runs straight through pays for no task or timer.
pub(crate) async fn on_first_wait<F: std::future::Future>(
    fut: F,
    start: impl FnOnce(),
) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut start = Some(start);
    std::future::poll_fn(move |cx| {
        let r = fut.as_mut().poll(cx);
        if r.is_pending()
            && let Some(s) = start.take()
        {
            s();
        }
        r
    })
    .await
}

/// A streamer shared by the interpreter's callback and the runtime's heartbeat.
pub(crate) type Shared = std::sync::Arc<Mutex<Streamer>>;

/// Locks `s` (a panic while it was held leaves only unsent output behind).
pub(crate) fn lock(s: &Shared) -> std::sync::MutexGuard<'_, Streamer> {
    s.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    thread_local! {
        static GOT: RefCell<Vec<(Stream, Vec<u8>)>> = const { RefCell::new(Vec::new()) };
    }

    fn record(s: Stream, b: &[u8]) {
        GOT.with(|g| g.borrow_mut().push((s, b.to_vec())));
    }

    fn got() -> Vec<(Stream, Vec<u8>)> {
        GOT.with(|g| g.borrow_mut().drain(..).collect())
    }

    #[test]
    fn output_is_sent_in_order_and_merged_until_due() {
        let mut s = Streamer::with_sink(Some(record));
        s.push(b"1\n", b"");
        // The first output goes at once; the next waits for the interval.
        assert_eq!(got(), [(Stream::Stdout, b"1\n".to_vec())]);
        s.push(b"2\n", b"e\n");
        s.push(b"3\n", b"");
        assert_eq!(got(), []);
        s.flush();
        assert_eq!(
            got(),
            [
                (Stream::Stdout, b"2\n".to_vec()),
                (Stream::Stderr, b"e\n".to_vec()),
                (Stream::Stdout, b"3\n".to_vec())
            ]
        );
    }

    #[test]
    fn the_heartbeat_starts_only_when_the_command_waits() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let mut started = false;
        assert_eq!(rt.block_on(on_first_wait(async { 1 }, || started = true)), 1);
        assert!(!started, "a command that never waits");
        let mut started = false;
        rt.block_on(on_first_wait(tokio::task::yield_now(), || started = true));
        assert!(started, "a command that waits");
    }

    #[test]
    fn chunks_and_the_total_are_bounded() {
        let mut s = Streamer::with_sink(Some(record));
        let big = vec![b'y'; MAX_STREAMED_BYTES + 10_000];
        s.push(&big, b"");
        s.push(b"more", b"late");
        s.flush();
        let chunks = got();
        assert!(chunks.iter().all(|(_, b)| b.len() <= MAX_CHUNK_BYTES));
        let total: usize = chunks.iter().map(|(_, b)| b.len()).sum();
        assert_eq!(total, MAX_STREAMED_BYTES);
        assert!(chunks.iter().all(|(st, _)| *st == Stream::Stdout));
    }
}
