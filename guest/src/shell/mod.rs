//! `filestore_execute`: a bash-like shell inside the component, over the session's
//! mounts.
//!
//! Commands run in [bashkit](https://docs.rs/bashkit) (MIT): a bash interpreter with
//! its commands (`grep`, `sed`, `awk`, `jq`, `find`, `sort`...) written in Rust, no
//! process ever spawned. Its filesystem is the mount table ([`fs`]), so the shell
//! sees what the file tools see, with the same confinement; its limits are ours
//! ([`limits`]); each call runs a fresh interpreter to completion ([`run`]), and the
//! answer is cut to what a model should see, the whole output stored under
//! `/tool_calls` ([`output`]). See `docs/shell.md` for the commands, the limits and
//! the known differences from bash.
//!
//! May use: [`crate::vfs`], [`crate::ops`] (deletes and moves go through the tools'
//! own operations), [`crate::skills`] (what a skill read activated), [`crate::error`]. The session finishes what needs it: storing a
//! cut output and activating skills whose `SKILL.md` the command read.

// The interpreter and its commands: the component's runtime only (a native host
// that shares the limits, the request and the answer's shape builds none of it).
#[cfg(feature = "runtime")]
mod find;
#[cfg(feature = "runtime")]
mod fs;
#[cfg(feature = "runtime")]
mod grep;
pub mod limits;
#[cfg(feature = "runtime")]
mod missing;
#[cfg(feature = "runtime")]
mod nested;
mod output;
pub mod python;
pub mod request;
#[cfg(feature = "runtime")]
mod run;
#[cfg(feature = "runtime")]
pub mod stream;
#[cfg(feature = "runtime")]
mod wc;

#[cfg(feature = "runtime")]
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
#[cfg(feature = "runtime")]
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;

#[cfg(feature = "runtime")]
pub use fs::Modes;
pub use request::{ExecuteRequest, ExecuteResult};
#[cfg(feature = "runtime")]
pub use run::{HOSTNAME, USER};

/// The tool's name.
pub const TOOL: &str = "filestore_execute";

/// A command that ran: its output and what the session still has to do with it.
pub struct Executed {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    exit_code: i32,
    capture_truncated: bool,
    duration_ms: u64,
    /// `SKILL.md` files the command read whole, in order.
    pub skills_read: Vec<String>,
}

impl Executed {
    /// Whether the answer will be cut, so the whole output is worth storing.
    pub fn is_long(&self) -> bool {
        self.stdout.len() > limits::MAX_INLINE_BYTES
            || self.stderr.len() > limits::MAX_INLINE_BYTES
            || self.capture_truncated
    }

    /// The whole captured output, for the results volume.
    pub fn whole(&self) -> serde_json::Value {
        serde_json::json!({
            "stdout": String::from_utf8_lossy(&self.stdout),
            "stderr": String::from_utf8_lossy(&self.stderr),
            "exit_code": self.exit_code,
            "truncated": self.capture_truncated,
        })
    }

    /// The answer: each stream cut to [`limits::MAX_INLINE_BYTES`] with a marker
    /// line naming `stored` (where the whole output is) when given.
    pub fn answer(&self, stored: Option<&str>) -> ExecuteResult {
        let (mut stdout, out_cut) = output::inline(&self.stdout, limits::MAX_INLINE_BYTES);
        let (mut stderr, err_cut) = output::inline(&self.stderr, limits::MAX_INLINE_BYTES);
        let captured = !self.capture_truncated;
        if out_cut || (self.capture_truncated && !err_cut) {
            stdout.push_str(&output::marker("stdout", self.stdout.len(), captured, stored));
        }
        if err_cut {
            stderr.push_str(&output::marker("stderr", self.stderr.len(), captured, stored));
        }
        ExecuteResult {
            stdout,
            stderr,
            exit_code: self.exit_code,
            truncated: out_cut || err_cut || self.capture_truncated,
            duration_ms: self.duration_ms,
            output_path: stored.map(str::to_string),
            activations: Vec::new(),
        }
    }
}

/// The text a model sees of a result.
pub fn render(r: &ExecuteResult) -> String {
    output::render(r)
}

/// Runs one command over `mounts` (see the module docs). Errors: `invalid-argument`
/// for a request out of bounds, `not-found`/`not-a-directory` for a bad `cwd`,
/// `limit-exceeded` naming the limit a runaway command hit. `modes` are the
/// session's `chmod` bits ([`Modes`]).
#[cfg(feature = "runtime")]
pub fn execute(
    mounts: Arc<MountTable>,
    limits: &Limits,
    modes: Arc<Modes>,
    req: &ExecuteRequest,
) -> Result<Executed> {
    check(req)?;
    let cwd = working_directory(&mounts, req.cwd.as_deref())?;
    let budget = Arc::new(limits::WriteBudget::new(limits::MAX_WRITTEN_BYTES));
    let fs =
        Arc::new(fs::MountFs::new(Arc::clone(&mounts), limits.clone(), Arc::clone(&budget), modes));
    let timeout = limits::timeout(req.timeout_ms);
    let grep = grep::EngineGrep {
        mounts: Arc::clone(&mounts),
        fs: Arc::clone(&fs),
        limits: limits.clone(),
        timeout,
        implied: None,
    };
    let find = find::EngineFind {
        mounts,
        fs: Arc::clone(&fs),
        limits: limits.clone(),
        timeout,
        grep: grep.clone(),
    };
    let mut bash = run::interpreter(Arc::clone(&fs), grep, find, &cwd, req);
    budget.stop_with(bash.cancellation_token());
    let start = std::time::Instant::now();
    let outcome = run::run(&mut bash, req);
    let duration_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    if let Some(why) = budget.tripped() {
        return Err(limits::exceeded(why));
    }
    let ran = outcome?;
    Ok(Executed {
        stdout: ran.stdout,
        stderr: ran.stderr,
        exit_code: ran.exit_code,
        capture_truncated: ran.capture_truncated,
        duration_ms,
        skills_read: fs.skills_read(),
    })
}

/// Refuses requests out of bounds before anything runs.
fn check(req: &ExecuteRequest) -> Result<()> {
    if req.command.len() > limits::MAX_COMMAND_BYTES {
        return Err(Error::invalid_argument(
            "command",
            format!(
                "is {} bytes; the limit is {} bytes (write a long script to a file and run it with bash FILE)",
                req.command.len(),
                limits::MAX_COMMAND_BYTES
            ),
        ));
    }
    if let Some(s) = &req.stdin
        && s.len() > limits::MAX_STDIN_BYTES
    {
        return Err(Error::invalid_argument(
            "stdin",
            format!("is {} bytes; the limit is {} bytes", s.len(), limits::MAX_STDIN_BYTES),
        ));
    }
    if let Some(bad) = req.env.keys().find(|k| !is_name(k)) {
        return Err(Error::invalid_argument(
            "env",
            format!("{bad:?} is not a variable name (letters, digits and '_', not first a digit)"),
        ));
    }
    Ok(())
}

fn is_name(k: &str) -> bool {
    let mut chars = k.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The directory a command starts in: `cwd` (a virtual path; relative is from `/`),
/// else the first writable mount, else `/`. It must be a directory.
pub fn working_directory(mounts: &MountTable, cwd: Option<&str>) -> Result<String> {
    let dir = match cwd {
        Some(c) => paths::normalize(c)?,
        None => default_cwd(mounts),
    };
    let e = mounts.stat(&dir)?;
    if !e.is_dir() {
        return Err(Error::at(ErrorKind::NotADirectory, &dir, "cwd must be a directory"));
    }
    Ok(dir)
}

/// The first writable mount in the order mounted, else `/`: the host's own mounts
/// come first (`--mount`s before serve's default `/scratch`), so a command starts
/// where the user put the files, not in whichever point sorts first.
pub fn default_cwd(mounts: &MountTable) -> String {
    mounts
        .mounts()
        .iter()
        .filter(|m| !m.read_only)
        .min_by_key(|m| m.order())
        .map(|m| m.point.clone())
        .unwrap_or_else(|| "/".to_string())
}

#[cfg(test)]
mod tests;
