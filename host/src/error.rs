//! Host errors: what a guest operation returned, or why the sandbox failed.

use filestore_guest::error::{Error as FsError, ErrorKind};

/// A failed host operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The operation ran and returned a typed filestore error (bad path, not found...).
    /// The session is fine.
    #[error("{0}")]
    Filestore(FsError),
    /// The guest trapped or hit a limit (deadline, memory, fuel). The session is
    /// poisoned: it refuses further calls and should be replaced.
    #[error("sandbox trap: {0}")]
    Trap(String),
    /// A sandbox limit stopped the call (deadline, fuel or memory cap). Like a trap,
    /// it poisons the session: replace it with a new one.
    #[error("limit-exceeded ({limit}): {message}")]
    LimitExceeded {
        /// Which limit.
        limit: SandboxLimit,
        /// What happened, with the configured value.
        message: String,
    },
    /// The session was poisoned by an earlier trap.
    #[error("session is unusable after an earlier trap ({0}); create a new session")]
    Poisoned(String),
    /// The call was cancelled (e.g. the MCP client sent `notifications/cancelled`)
    /// and the guest was interrupted. Like a trap, it leaves the session unusable:
    /// replace it with a new one (volumes are the host's and keep their content).
    #[error("{0}")]
    Cancelled(String),
    /// Setting up the engine, component or instance failed.
    #[error("sandbox setup: {0}")]
    Setup(String),
    /// A volume or mount specification was invalid.
    #[error("{0}")]
    Mount(String),
}

impl Error {
    /// The filestore error kind when the guest returned one.
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            Error::Filestore(e) => Some(e.kind()),
            _ => None,
        }
    }

    /// A stable kind name for CLIs and JSON envelopes.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Error::Filestore(e) => e.kind().as_str(),
            Error::Trap(_) | Error::Poisoned(_) => "trap",
            Error::LimitExceeded { .. } => "limit-exceeded",
            Error::Cancelled(_) => "cancelled",
            Error::Setup(_) => "setup",
            Error::Mount(_) => "invalid-argument",
        }
    }
}

/// A per-session sandbox limit enforced by the host (the guest's own limits —
/// regex size, read page, grep records... — come back as [`Error::Filestore`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SandboxLimit {
    /// The per-call wall-clock deadline (epoch interruption).
    Deadline,
    /// The per-call fuel budget.
    Fuel,
    /// The linear-memory cap.
    Memory,
}

impl std::fmt::Display for SandboxLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SandboxLimit::Deadline => "deadline",
            SandboxLimit::Fuel => "fuel",
            SandboxLimit::Memory => "memory",
        })
    }
}

impl Error {
    /// The sandbox limit that stopped the call, if one did.
    pub fn sandbox_limit(&self) -> Option<SandboxLimit> {
        match self {
            Error::LimitExceeded { limit, .. } => Some(*limit),
            _ => None,
        }
    }

    /// Whether the session that returned this error is unusable and must be replaced.
    pub fn poisons_session(&self) -> bool {
        matches!(
            self,
            Error::Trap(_) | Error::Poisoned(_) | Error::LimitExceeded { .. } | Error::Cancelled(_)
        )
    }
}

/// Result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;
