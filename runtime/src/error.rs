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
    /// A sandbox limit stopped the call (deadline, fuel, memory cap or stack). Like a trap,
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
    /// Setting up the engine, component or instance failed: what was being set up,
    /// and the underlying error when there is one (its chain follows the context in
    /// the message, as `anyhow`'s `{:#}` renders it).
    #[error("sandbox setup: {}", with_chain(context, source.as_deref()))]
    Setup {
        /// What was being set up.
        context: String,
        /// Why it failed.
        #[source]
        source: Option<BoxError>,
    },
    /// A volume or mount specification was invalid, or its backend could not be
    /// opened (then with the underlying error).
    #[error("{}", with_chain(context, source.as_deref()))]
    Mount {
        /// Which mount, and what is wrong with it.
        context: String,
        /// The backend's error, when one made the mount fail.
        #[source]
        source: Option<BoxError>,
    },
}

/// An underlying error of any type, kept as an [`Error`]'s `source()`.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// `context`, then `: ` and each error of `source`'s chain, `: `-separated.
fn with_chain(context: &str, source: Option<&(dyn std::error::Error + Send + Sync)>) -> String {
    let mut out = context.to_string();
    let mut next: Option<&dyn std::error::Error> = source.map(|e| e as _);
    while let Some(e) = next {
        out.push_str(": ");
        out.push_str(&e.to_string());
        next = e.source();
    }
    out
}

impl Error {
    /// Setting up `context` failed with `source`.
    pub fn setup(context: impl Into<String>, source: impl Into<BoxError>) -> Error {
        Error::Setup { context: context.into(), source: Some(source.into()) }
    }

    /// Setting up failed for the reason `message` gives (no underlying error).
    pub fn setup_message(message: impl Into<String>) -> Error {
        Error::Setup { context: message.into(), source: None }
    }

    /// A mount is wrong for the reason `message` gives.
    pub fn mount(message: impl Into<String>) -> Error {
        Error::Mount { context: message.into(), source: None }
    }

    /// Opening a mount (`context`) failed with `source`.
    pub fn mount_with(context: impl Into<String>, source: impl Into<BoxError>) -> Error {
        Error::Mount { context: context.into(), source: Some(source.into()) }
    }
}

impl Error {
    /// The filestore error kind of this error: the guest's for [`Error::Filestore`],
    /// `limit-exceeded` for a sandbox limit, `invalid-argument` for a bad mount; `None`
    /// for a failure of the sandbox itself (trap, cancellation, setup), which has no
    /// WIT kind.
    pub fn kind(&self) -> Option<ErrorKind> {
        match self {
            Error::Filestore(e) => Some(e.kind()),
            Error::LimitExceeded { .. } => Some(ErrorKind::LimitExceeded),
            Error::Mount { .. } => Some(ErrorKind::InvalidArgument),
            Error::Trap(_) | Error::Poisoned(_) | Error::Cancelled(_) | Error::Setup { .. } => None,
        }
    }

    /// A stable kind name for CLIs and JSON envelopes: the [`ErrorKind`]'s name, or
    /// `trap`, `cancelled` or `setup` for the sandbox's own failures.
    pub fn kind_name(&self) -> &'static str {
        match (self.kind(), self) {
            (Some(k), _) => k.as_str(),
            (None, Error::Cancelled(_)) => "cancelled",
            (None, Error::Setup { .. }) => "setup",
            (None, _) => "trap",
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
    /// The WebAssembly call stack (input or a command nested too deeply).
    Stack,
}

impl std::fmt::Display for SandboxLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SandboxLimit::Deadline => "deadline",
            SandboxLimit::Fuel => "fuel",
            SandboxLimit::Memory => "memory",
            SandboxLimit::Stack => "stack",
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `kind()` and the rendered name agree: every error with a WIT kind renders its
    /// name, so callers branch on the typed kind instead of comparing names.
    #[test]
    fn kind_and_kind_name_agree() {
        for &k in ErrorKind::ALL {
            let e = Error::Filestore(FsError::new(k, "m"));
            assert_eq!((e.kind(), e.kind_name()), (Some(k), k.as_str()));
        }
        let limit = Error::LimitExceeded { limit: SandboxLimit::Fuel, message: "m".into() };
        assert_eq!(
            (limit.kind(), limit.kind_name()),
            (Some(ErrorKind::LimitExceeded), "limit-exceeded")
        );
        let mount = Error::mount("m");
        assert_eq!(
            (mount.kind(), mount.kind_name()),
            (Some(ErrorKind::InvalidArgument), "invalid-argument")
        );
        for (e, name) in [
            (Error::Trap("m".into()), "trap"),
            (Error::Poisoned("m".into()), "trap"),
            (Error::Cancelled("m".into()), "cancelled"),
            (Error::setup_message("m"), "setup"),
        ] {
            assert_eq!((e.kind(), e.kind_name()), (None, name));
        }
    }

    /// A setup error keeps its underlying error as `source()`, and its message is the
    /// context followed by the source's chain (what the `format!("{e:#}")` it replaces
    /// printed).
    #[test]
    fn setup_keeps_its_source_and_renders_the_chain() {
        let inner = std::io::Error::other("disk gone");
        let chained = anyhow::Error::new(inner).context("reading the cache");
        let e = Error::setup("compiling the component", chained);
        assert_eq!(
            e.to_string(),
            "sandbox setup: compiling the component: reading the cache: disk gone"
        );
        let source = std::error::Error::source(&e).expect("a source");
        assert_eq!(source.to_string(), "reading the cache");
        assert_eq!(source.source().map(|s| s.to_string()).as_deref(), Some("disk gone"));
        let plain = Error::mount("mount /w: bad");
        assert!(std::error::Error::source(&plain).is_none());
        assert_eq!(plain.to_string(), "mount /w: bad");
    }
}
