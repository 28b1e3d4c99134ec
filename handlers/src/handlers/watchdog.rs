//! The watchdog of a running SQL statement: a thread that calls `stop` (a cancel
//! request the driver sends over a connection of its own) when the statement is
//! still running a moment after the call's deadline, or as soon as the caller
//! cancels the call. The server's own statement timeout normally ends the statement
//! first; the watchdog covers SQL that turned that timeout off (a model's script may
//! `SET statement_timeout = 0` or `SET max_statement_time = 0`), so no call keeps
//! running on the server, or holds its pooled connection, past its deadline.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::mpsc::{RecvTimeoutError, Sender, channel};
use std::time::{Duration, Instant};

use filestore_runtime::tools::{Cancel, ToolError, ToolRequest};

/// How often the watchdog looks at the caller's cancel flag.
const POLL: Duration = Duration::from_millis(20);

const RUNNING: u8 = 0;
const FINISHED: u8 = 1;
const FIRED: u8 = 2;

/// A running watchdog; [`Watchdog::finish`] (or dropping it) ends the thread.
pub struct Watchdog {
    _stop: Sender<()>,
    state: Arc<AtomicU8>,
}

impl Watchdog {
    /// Ends the watch: `true` when `stop` ran (or is running) first. The connection
    /// of such a call is closed, not pooled: a cancel request still on its way must
    /// not reach the next statement run on it.
    pub fn finish(self) -> bool {
        self.state.compare_exchange(RUNNING, FINISHED, Ordering::SeqCst, Ordering::SeqCst).is_err()
    }
}

/// Starts the watchdog of `req`'s statement: `stop` runs at `req.deadline + grace`
/// or when `req` is cancelled, unless [`Watchdog::finish`] came first.
pub fn watch(
    req: &ToolRequest,
    grace: Duration,
    stop: impl FnOnce() + Send + 'static,
) -> Result<Watchdog, ToolError> {
    let (tx, rx) = channel::<()>();
    let deadline = req.deadline + grace;
    let cancel: Cancel = req.cancel.clone();
    let state = Arc::new(AtomicU8::new(RUNNING));
    let shared = state.clone();
    std::thread::Builder::new()
        .name("sql-watchdog".into())
        .spawn(move || {
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match rx.recv_timeout(left.min(POLL)) {
                    Err(RecvTimeoutError::Timeout) if !left.is_zero() && !cancel.is_cancelled() => {
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        // Only while the statement is still the call's.
                        let won = shared.compare_exchange(
                            RUNNING,
                            FIRED,
                            Ordering::SeqCst,
                            Ordering::SeqCst,
                        );
                        if won.is_ok() {
                            stop();
                        }
                        return;
                    }
                    _ => return,
                }
            }
        })
        .map_err(|e| {
            ToolError::backend(format!("tool '{}': cannot start a watchdog: {e}", req.tool_name))
        })?;
    Ok(Watchdog { _stop: tx, state })
}
