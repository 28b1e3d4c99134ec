//! What the subcommands print on their way out: a result on stdout ([`emit`]), and
//! the `error[KIND]: message` line of a failed command ([`fail`], [`fail_with`]).

use std::process::ExitCode;

use filestore::Engine;
use filestore_guest::error::ErrorKind;

/// Writes `text` to stdout. A closed stdout (the reader went away, as in
/// `filestore call ... | head -1`) ends the process quietly with status 0, as `rg` and
/// `cat` do; `print!` would panic with "failed printing to stdout". Any other write
/// error is reported on stderr with status 1.
pub(super) fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error[backend]: writing to stdout: {e}");
        std::process::exit(1);
    }
}

/// The `KIND` of the `error[KIND]: message` line a failed command prints: one of
/// the WIT's kinds, or a failure of the host's own that has none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FailKind {
    /// A filestore error kind.
    Wit(ErrorKind),
    /// The process could not set itself up (the async runtime).
    Setup,
    /// `serve` stopped with an error while serving.
    Serve,
    /// `call`: the call waited for approval and was rejected.
    Rejected,
}

impl From<ErrorKind> for FailKind {
    fn from(kind: ErrorKind) -> FailKind {
        FailKind::Wit(kind)
    }
}

impl std::fmt::Display for FailKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FailKind::Wit(kind) => kind.as_str(),
            FailKind::Setup => "setup",
            FailKind::Serve => "serve",
            FailKind::Rejected => "rejected",
        })
    }
}

/// Prints `error[KIND]: message` on stderr; the command fails.
pub(super) fn fail(kind: impl Into<FailKind>, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error[{}]: {message}", kind.into());
    ExitCode::FAILURE
}

/// [`fail`] with a host error, under its own kind name (`trap`, `setup`... for the
/// sandbox's failures that have no WIT kind).
pub(super) fn fail_with(e: &filestore::Error) -> ExitCode {
    eprintln!("error[{}]: {e}", e.kind_name());
    ExitCode::FAILURE
}

/// Says on stderr, once per process, when the compiled component could not be cached
/// (each start then compiles it again).
pub(super) fn warn_uncached(engine: Engine) -> Engine {
    if let Some(why) = engine.cache_warning() {
        eprintln!("filestore: warning: {why}");
    }
    engine
}
