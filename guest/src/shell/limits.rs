//! The shell's limits: each a named constant bounding one way a command can run away,
//! and how a limit that was hit becomes a typed `limit-exceeded` error naming it.
//!
//! The interpreter counts commands, loop iterations, call depth, substitution and
//! subshell nesting, parser work and captured output itself (bashkit's
//! `ExecutionLimits`); the filesystem adapter counts bytes written
//! ([`WriteBudget`]); the host's epoch deadline and memory cap stay the backstop for
//! anything that slips past both (a trap, after which the host gives the session a
//! fresh instance).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use crate::error::{Error, ErrorKind};

/// Default wall time of one command.
pub const DEFAULT_TIMEOUT_MS: u64 = 20_000;
/// Longest wall time a command may ask for. Below the host's default call deadline
/// (30 s), so the shell's own timeout ends a slow command with a typed error and its
/// output so far, before the host has to interrupt the whole call.
pub const MAX_TIMEOUT_MS: u64 = 25_000;
/// Longest command text, bytes. A script is parsed whole before it runs.
pub const MAX_COMMAND_BYTES: usize = 1024 * 1024;
/// Largest `stdin`, bytes.
pub const MAX_STDIN_BYTES: usize = 16 * 1024 * 1024;
/// Output captured per stream, bytes: beyond it output is dropped (and the result
/// says `truncated`). Bounds guest memory for `yes` and its kind.
pub const MAX_CAPTURE_BYTES: usize = 4 * 1024 * 1024;
/// Output shown in the answer per stream, bytes; the rest is stored under
/// `/tool_calls` and the answer says where. Protects the model's context window.
pub const MAX_INLINE_BYTES: usize = 30_000;
/// File bytes one command may write in all (each write's or append's bytes). Bounds
/// `yes | head -c 10G > f` and loops that fill a volume.
pub const MAX_WRITTEN_BYTES: u64 = 64 * 1024 * 1024;
/// Commands one command line may run (builtins, functions, each pipeline stage).
pub const MAX_COMMANDS: usize = 1_000_000;
/// Iterations of one loop.
pub const MAX_LOOP_ITERATIONS: usize = 1_000_000;
/// Iterations of all loops together (nested loops multiply).
pub const MAX_TOTAL_LOOP_ITERATIONS: usize = 10_000_000;
/// Nesting of function calls, `source` and child shells: `f(){ f|f; }; f` ends
/// here. The interpreter caps it at 16 anyway (its host stack safety).
pub const MAX_FUNCTION_DEPTH: usize = 16;
/// Nesting of `$( )`.
pub const MAX_SUBSTITUTION_DEPTH: usize = 32;

/// The interpreter's limits for one command that may run for `timeout`.
#[cfg(feature = "runtime")]
pub(crate) fn interpreter_limits(timeout: Duration) -> bashkit::ExecutionLimits {
    bashkit::ExecutionLimits::new()
        .timeout(timeout)
        .max_input_bytes(MAX_COMMAND_BYTES)
        .max_commands(MAX_COMMANDS)
        .max_loop_iterations(MAX_LOOP_ITERATIONS)
        .max_total_loop_iterations(MAX_TOTAL_LOOP_ITERATIONS)
        .max_function_depth(MAX_FUNCTION_DEPTH)
        .max_stdout_bytes(MAX_CAPTURE_BYTES)
        .max_stderr_bytes(MAX_CAPTURE_BYTES)
        .max_subst_depth(MAX_SUBSTITUTION_DEPTH)
}

/// The wall time a request asks for, bounded.
pub(crate) fn timeout(timeout_ms: Option<u64>) -> Duration {
    Duration::from_millis(timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS).clamp(1, MAX_TIMEOUT_MS))
}

/// The error of a limit the interpreter reported.
pub(crate) fn exceeded(what: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::LimitExceeded,
        format!("the shell command was stopped: {what}; nothing after that point ran"),
    )
}

/// File bytes written by one command, against [`MAX_WRITTEN_BYTES`]. When a write
/// would pass the cap it is refused whole (nothing of it is written) and the budget
/// trips: the adapter then asks the interpreter to stop, and the command ends with
/// `limit-exceeded` naming this limit.
#[derive(Debug)]
pub(crate) struct WriteBudget {
    cap: u64,
    used: AtomicU64,
    tripped: Mutex<Option<String>>,
    /// The interpreter's cancellation flag, set when the budget trips.
    cancel: Mutex<Option<std::sync::Arc<AtomicBool>>>,
}

impl WriteBudget {
    pub(crate) fn new(cap: u64) -> WriteBudget {
        WriteBudget {
            cap,
            used: AtomicU64::new(0),
            tripped: Mutex::new(None),
            cancel: Mutex::new(None),
        }
    }

    /// Connects the interpreter's cancellation flag.
    pub(crate) fn stop_with(&self, flag: std::sync::Arc<AtomicBool>) {
        *self.cancel.lock().unwrap_or_else(|e| e.into_inner()) = Some(flag);
    }

    /// Takes `bytes` for a write of `path`, or refuses (and trips) when the total would
    /// pass the cap.
    pub(crate) fn charge(&self, path: &str, bytes: u64) -> crate::Result<()> {
        let before = self.used.fetch_add(bytes, Ordering::Relaxed);
        if before.saturating_add(bytes) <= self.cap {
            return Ok(());
        }
        self.used.fetch_sub(bytes, Ordering::Relaxed);
        let why = format!(
            "writing {bytes} bytes to {path} would pass the limit of {} file bytes written per command ({before} written before it)",
            self.cap
        );
        self.tripped.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(why.clone());
        if let Some(flag) = &*self.cancel.lock().unwrap_or_else(|e| e.into_inner()) {
            flag.store(true, Ordering::Relaxed);
        }
        Err(Error::at(ErrorKind::LimitExceeded, path, why))
    }

    /// Why the budget tripped, if it did.
    pub(crate) fn tripped(&self) -> Option<String> {
        self.tripped.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_write_budget_refuses_a_write_that_passes_it_whole_and_trips() {
        let b = WriteBudget::new(10);
        let flag = std::sync::Arc::new(AtomicBool::new(false));
        b.stop_with(flag.clone());
        b.charge("/w/a", 6).unwrap();
        let e = b.charge("/w/b", 5).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        assert!(e.message().contains("10 file bytes written per command"), "{e}");
        assert!(flag.load(Ordering::Relaxed), "the interpreter is asked to stop");
        // The refused write took nothing: 4 bytes still fit.
        b.charge("/w/c", 4).unwrap();
        assert!(b.tripped().unwrap().contains("/w/b"));
    }

    #[test]
    fn timeouts_are_bounded() {
        assert_eq!(timeout(None), Duration::from_millis(DEFAULT_TIMEOUT_MS));
        assert_eq!(timeout(Some(0)), Duration::from_millis(1));
        assert_eq!(timeout(Some(u64::MAX)), Duration::from_millis(MAX_TIMEOUT_MS));
    }
}
