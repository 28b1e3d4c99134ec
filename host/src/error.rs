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
    /// The session was poisoned by an earlier trap.
    #[error("session is unusable after an earlier trap ({0}); create a new session")]
    Poisoned(String),
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
            Error::Setup(_) => "setup",
            Error::Mount(_) => "invalid-argument",
        }
    }
}

/// Result alias.
pub type Result<T, E = Error> = std::result::Result<T, E>;
