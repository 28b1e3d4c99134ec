//! `python3` for the shell: real CPython 3.14 (bashkit's CPython runner, compiled
//! to native code by Cranelift at build time) in a WebAssembly instance of its own,
//! one per command, on a thread of its own.
//!
//! The component drives a [`Run`]: it answers each filesystem request the
//! interpreter makes from the shell's own filesystem (see
//! `filestore_guest::shell::python`), so the interpreter sees the mount table with
//! every rule the shell obeys and the host implements none of them twice. The
//! interpreter's instance is given that bridge and nothing else: no host files, no
//! sockets, no environment but the command's exported variables, no processes or
//! threads.
//!
//! Bounds: the command's wall time (the run ends with status 124), a memory cap per
//! instance ([`MAX_MEMORY`], a `MemoryError` in Python past it), the shell's capture
//! cap on output, the shell's write budget (its filesystem answers the writes), and
//! fuel-metered yields so a busy loop is stopped at the deadline or a cancellation.
//! Without the `python` feature, [`Run::start`] answers `unsupported`.

#[cfg(feature = "python")]
mod bridge;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

use filestore_guest::error::{Error, ErrorKind};
use filestore_guest::shell::python::{Finished, FsReply, Invocation, Step};

/// Most linear memory one interpreter instance may have.
pub const MAX_MEMORY: usize = 256 * 1024 * 1024;

/// How often a waiting [`Run::next`] looks at the call's cancellation and deadline.
const POLL: Duration = Duration::from_millis(20);

/// One `python3` command running on its own thread.
pub struct Run {
    /// Steps from the interpreter's thread.
    steps: Receiver<Step>,
    /// Answers to its filesystem requests.
    replies: Sender<FsReply>,
    /// Ends the interpreter at its next yield.
    stop: Arc<AtomicBool>,
    finished: bool,
}

impl Run {
    /// Starts `invocation` on a thread of its own.
    pub fn start(invocation: Invocation) -> Result<Run, Error> {
        #[cfg(feature = "python")]
        {
            let (step_tx, steps) = std::sync::mpsc::channel();
            let (replies, reply_rx) = std::sync::mpsc::channel();
            let stop = Arc::new(AtomicBool::new(false));
            let stopped = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("filestore-python".into())
                .spawn(move || bridge::interpret(invocation, step_tx, reply_rx, stopped))
                .map_err(|e| {
                    Error::new(ErrorKind::LimitExceeded, format!("cannot start python3: {e}"))
                })?;
            Ok(Run { steps, replies, stop, finished: false })
        }
        #[cfg(not(feature = "python"))]
        {
            let _ = invocation;
            Err(Error::new(
                ErrorKind::Unsupported,
                "command not found: this host is built without CPython (the sandbox crate's \
                 `python` feature)",
            ))
        }
    }

    /// Hands over `reply` and waits for the next step; a waiting host checks
    /// `interrupted` (the call's cancellation or deadline) every few milliseconds and
    /// ends the run when it says so.
    pub fn next(&mut self, reply: Option<FsReply>, interrupted: impl Fn() -> bool) -> Step {
        if self.finished {
            return ended(1, "python3: the run is over");
        }
        if let Some(reply) = reply {
            // A thread that already ended says so through `steps`.
            let _ = self.replies.send(reply);
        }
        loop {
            match self.steps.recv_timeout(POLL) {
                Ok(step) => {
                    self.finished = matches!(step, Step::Finished(_));
                    return step;
                }
                Err(RecvTimeoutError::Timeout) if interrupted() => {
                    self.stop.store(true, Ordering::Relaxed);
                    self.finished = true;
                    return ended(
                        124,
                        "python3: interrupted (the call was cancelled or ran out of time)",
                    );
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    self.finished = true;
                    return ended(1, "python3: the interpreter stopped without an answer");
                }
            }
        }
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        // The thread stops at its next yield or filesystem request; nobody waits for it.
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn ended(exit_code: i32, message: &str) -> Step {
    Step::Finished(Finished {
        exit_code,
        stdout: Vec::new(),
        stderr: format!("{message}\n").into_bytes(),
    })
}
