//! The shell's `grep`: the guest's own search engine (the one behind
//! `filestore_grep`) for the command lines it runs exactly, bashkit's `grep` for the
//! rest.
//!
//! bashkit's `grep` reads every file through the interpreter's filesystem, whole,
//! and charges it to the command's input budget (100 MB over all commands), so
//! `grep -rn X .` over a large tree stopped at that limit, slowly. This command
//! walks and reads the mount table directly, as `filestore_grep` does, searches each
//! file's buffer with the engine's line search and prints GNU grep's lines. It
//! streams: in `grep ... | head -50` the write after `head` has exited fails and the
//! search stops there.
//!
//! [`args::plan`] decides, before anything runs, whether a command line is one the
//! engine reproduces exactly (the flags agents use, patterns whose meaning is the
//! same in GNU's syntax and the `regex` crate's, file or directory operands). Any
//! other line (stdin input, `-P`, `-m`, back-references...) runs bashkit's `grep`
//! unchanged, in a nested interpreter over the same filesystem whose input and
//! output are bridged to this command's, so it streams as before.

mod args;
mod search;

use std::sync::Arc;
use std::time::Duration;

use bashkit::{
    Bash, Command, CommandContext, CommandInput, CommandOutput, CommandStatus, async_trait,
};

use crate::ops::grep::{GrepRequest, compile};
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;

/// Stdout is written in pieces of about this size (the search yields between them):
/// the interpreter's pipe capacity, so in `grep -rn X . | head -50` the reader gets
/// lines as soon as a pipe's worth is found and the search stops soon after `head`
/// has its lines (a larger piece searched on for nothing: 64 KiB made that line 35×
/// slower than GNU grep on the registry tree).
const FLUSH_BYTES: usize = 4 * 1024;

/// The `grep` command (see the module docs).
pub(crate) struct EngineGrep {
    pub(crate) mounts: Arc<MountTable>,
    /// The interpreter's filesystem: reads made here are noted on it (a `SKILL.md`
    /// read activates its skill, as through any other command).
    pub(crate) fs: Arc<super::fs::MountFs>,
    pub(crate) limits: Limits,
    /// The command's wall time, for the nested interpreter of the fallback.
    pub(crate) timeout: Duration,
}

#[async_trait]
impl Command for EngineGrep {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let cwd = ctx.cwd.to_string_lossy().into_owned();
        // `/dev/fd/N` (a process substitution, `grep x <(cmd)`) and `/dev/stdin`
        // exist only inside the interpreter: its own grep reads them.
        let device = ctx.args.iter().any(|a| a.starts_with("/dev/"));
        let Some(plan) = args::plan(ctx.args).filter(|_| !device) else {
            return fallback(&ctx, self.timeout).await;
        };
        let mut req = GrepRequest::new(plan.regex.clone(), "/");
        req.case_insensitive = plan.ignore_case;
        let Ok(re) = compile(&req, &self.limits) else {
            return fallback(&ctx, self.timeout).await;
        };
        match search::targets(&plan, &self.mounts, &self.limits, &cwd) {
            Some(targets) => self.search(&plan, &re, targets, &ctx).await,
            None => fallback(&ctx, self.timeout).await,
        }
    }
}

impl EngineGrep {
    async fn search(
        &self,
        plan: &args::Plan,
        re: &regex::bytes::Regex,
        mut targets: search::Targets<'_>,
        ctx: &CommandContext<'_>,
    ) -> bashkit::Result<CommandStatus> {
        let mut s = search::Searcher::new(plan, re);
        let many = plan.operands.len() > 1;
        while let Some(next) = targets.next() {
            let t = match next {
                Ok(t) => t,
                Err((name, e)) => {
                    s.failed(&name, &e);
                    continue;
                }
            };
            let show_name = plan.with_filename.unwrap_or(many || t.recursed);
            let flow = match search::read(&self.mounts, &self.limits, &t) {
                Ok(buf) => {
                    self.fs.note_read_of(&t.path, &t.entry_type);
                    s.file(&buf, &t.name, show_name)
                }
                // Deleted between the walk and the read.
                Err(e) if t.recursed && e.kind() == crate::error::ErrorKind::NotFound => continue,
                Err(e) => {
                    s.failed(&t.name, &e);
                    std::ops::ControlFlow::Continue(())
                }
            };
            if s.out.len() >= FLUSH_BYTES {
                // A reader that has gone (`| head`) fails this write: the search ends
                // there with status 141, as grep ends on SIGPIPE.
                ctx.stdout.write_all(&std::mem::take(&mut s.out)).await?;
            }
            if !s.err.is_empty() {
                let _ = ctx.stderr.write_all(&std::mem::take(&mut s.err)).await;
            }
            if flow.is_break() {
                break;
            }
            // Lets the interpreter's timeout and cancellation reach a long search.
            tokio::task::yield_now().await;
        }
        ctx.stdout.write_all(&s.out).await?;
        let _ = ctx.stderr.write_all(&s.err).await;
        // GNU: 0 when a line was selected, 1 when none, 2 on an error unless `-q`
        // found a line.
        let code = if s.error && !(plan.quiet && s.selected_any) {
            2
        } else if s.selected_any {
            0
        } else {
            1
        };
        Ok(CommandStatus::with_code(code))
    }
}

/// Bridges the nested interpreter's `grep` to this command's stdin.
struct StdinBridge(CommandInput);

#[async_trait]
impl Command for StdinBridge {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        while let Some(chunk) = self.0.read_chunk().await? {
            ctx.stdout.write_all(&chunk).await?;
        }
        Ok(CommandStatus::success())
    }
}

/// Bridges the nested interpreter's `grep` to this command's stdout.
struct StdoutBridge(CommandOutput);

#[async_trait]
impl Command for StdoutBridge {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        while let Some(chunk) = ctx.stdin.read_chunk().await? {
            self.0.write_all(&chunk).await?;
        }
        Ok(CommandStatus::success())
    }
}

/// Hands the nested interpreter's `grep` one process substitution of this
/// command's line: an interpreter answers `/dev/fd/N` only for its own
/// substitutions, so the nested one gets a substitution of its own with the same
/// bytes (`<(filestore-grep-fd-K)`).
struct FdBridge(Vec<u8>);

#[async_trait]
impl Command for FdBridge {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        ctx.stdout.write_all(&self.0).await?;
        Ok(CommandStatus::success())
    }
}

/// `/dev/fd/N` for a process substitution (N ≥ 3; 0–2 are the standard streams).
fn is_substitution(arg: &str) -> bool {
    arg.strip_prefix("/dev/fd/").and_then(|n| n.parse::<u32>().ok()).is_some_and(|n| n >= 3)
}

/// Names of the bridges inside the nested interpreter (not reachable from the
/// agent's command line, which runs in the outer one).
const STDIN_BRIDGE: &str = "filestore-grep-stdin";
const STDOUT_BRIDGE: &str = "filestore-grep-stdout";

/// Runs bashkit's own `grep` on the same arguments, filesystem, directory and
/// environment, its stdin and stdout streamed through this command's.
async fn fallback(ctx: &CommandContext<'_>, timeout: Duration) -> bashkit::Result<CommandStatus> {
    let mut b = Bash::builder()
        .fs(ctx.fs.clone())
        .rootfs(false)
        .follow_symlinks(false)
        .concurrent_jobs(false)
        .username(super::run::USER)
        .hostname(super::run::HOSTNAME)
        .cwd(ctx.cwd)
        .limits(super::limits::interpreter_limits(timeout))
        .session_limits(bashkit::SessionLimits::unlimited())
        .command(STDIN_BRIDGE, StdinBridge(ctx.stdin.clone()))
        .command(STDOUT_BRIDGE, StdoutBridge(ctx.stdout.clone()));
    for (k, v) in ctx.env {
        b = b.env(k, v);
    }
    let mut words = vec![quote(ctx.name)];
    for (k, arg) in ctx.args.iter().enumerate() {
        if is_substitution(arg) {
            // Read through this command's filesystem, which answers the outer
            // interpreter's substitutions.
            let bytes = ctx.fs.read_file(std::path::Path::new(arg)).await?;
            let bridge = format!("filestore-grep-fd-{k}");
            words.push(format!("<({bridge})"));
            b = b.command(bridge, FdBridge(bytes));
        } else {
            words.push(quote(arg));
        }
    }
    let mut bash = b.build();
    let line =
        format!("{STDIN_BRIDGE} | {} | {STDOUT_BRIDGE}; exit ${{PIPESTATUS[1]}}", words.join(" "));
    let r = bash.exec(&line).await?;
    if !r.stderr.is_empty() {
        let _ = ctx.stderr.write_all(r.stderr.as_bytes()).await;
    }
    Ok(CommandStatus::with_code(r.exit_code))
}

/// `s` as one shell word.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}
