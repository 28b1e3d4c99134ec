//! `python3` in the shell: CPython runs in the host, in a WebAssembly instance of
//! its own, and asks this side for every file it touches.
//!
//! The protocol is a loop the shell drives ([`command`]): it starts a run with an
//! [`Invocation`], then answers each [`FsRequest`] the run returns from the shell's
//! own filesystem (the mount table with its budgets, read-only and copy-on-write
//! mounts, `/tmp`, skills activated on read) until the run returns [`Finished`]. So
//! the interpreter sees exactly what the shell sees, and no rule of the mounts is
//! written twice. The types here are the protocol's, shared with the host (which
//! compiles this crate natively) so both sides speak one definition; the glue on
//! each side maps them to the WIT `python` interface.

#[cfg(feature = "runtime")]
pub(crate) mod command;

use std::sync::OnceLock;

use crate::error::Error;

/// One `python3` command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The arguments after `python3`.
    pub args: Vec<String>,
    /// Exported variables.
    pub env: Vec<(String, String)>,
    /// The working directory.
    pub cwd: String,
    /// Bytes on standard input.
    pub stdin: Vec<u8>,
    /// Wall time left for the command.
    pub timeout_ms: u64,
}

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link.
    Symlink,
}

/// An entry's metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// File, directory or link.
    pub kind: NodeKind,
    /// Size in bytes.
    pub size: u64,
    /// Unix permission bits.
    pub mode: u32,
    /// Last modification, milliseconds since the Unix epoch.
    pub modified_ms: u64,
}

/// One entry of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// Its name.
    pub name: String,
    /// Its metadata.
    pub node: Node,
}

/// A filesystem request of the interpreter (absolute virtual paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FsRequest {
    /// Metadata.
    Stat(String),
    /// Metadata of the entry itself.
    Lstat(String),
    /// A file's content.
    ReadFile(String),
    /// Replace or create a file.
    WriteFile(String, Vec<u8>),
    /// Add bytes at the end of a file (none: may it be written?).
    Append(String, Vec<u8>),
    /// A directory's entries.
    ReadDir(String),
    /// Create one directory.
    Mkdir(String),
    /// Remove a file or an empty directory.
    Remove(String),
    /// Rename `from` to `to`.
    Rename(String, String),
    /// Create a link at `link` pointing at `target`.
    Symlink {
        /// What the link points at.
        target: String,
        /// Where the link is made.
        link: String,
    },
    /// A link's target.
    ReadLink(String),
    /// Set a modification time (milliseconds since the Unix epoch).
    SetModified(String, u64),
}

/// Why a request failed, in the terms the interpreter maps to `errno`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// `ENOENT`.
    NotFound,
    /// `EEXIST`.
    AlreadyExists,
    /// `EACCES`.
    PermissionDenied,
    /// `EINVAL`.
    InvalidInput,
    /// The message decides.
    Other,
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FsReply {
    /// Done, nothing to return.
    Done,
    /// Metadata.
    Node(Node),
    /// A file's bytes.
    Bytes(Vec<u8>),
    /// A listing.
    Entries(Vec<DirEntry>),
    /// A link's target.
    Target(String),
    /// The request failed: its kind and message.
    Failed(FailureKind, String),
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// The exit status.
    pub exit_code: i32,
    /// Standard output.
    pub stdout: Vec<u8>,
    /// Standard error.
    pub stderr: Vec<u8>,
}

/// What a run needs next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Answer this request.
    Fs(FsRequest),
    /// The run is over.
    Finished(Finished),
}

/// A run in the host, as the glue presents it.
pub trait Running: Send {
    /// Hands over the answer to the previous request; returns the next step.
    fn next(&mut self, reply: Option<FsReply>) -> Step;
}

/// Starts a run in the host (the glue's).
pub type Starter = fn(Invocation) -> Result<Box<dyn Running>, Error>;

static STARTER: OnceLock<Starter> = OnceLock::new();

/// Sets how runs start (once; later calls are ignored). Without it, `python3`
/// answers that this build has no way to run it.
pub fn set_starter(start: Starter) {
    let _ = STARTER.set(start);
}

/// How runs start, when set.
#[cfg(feature = "runtime")]
fn starter() -> Option<Starter> {
    STARTER.get().copied()
}
