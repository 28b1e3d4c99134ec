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
//! unchanged, in a nested interpreter over the same filesystem ([`super::nested`]),
//! streaming as before.

mod args;
mod search;

use std::sync::Arc;
use std::time::Duration;

use bashkit::{Command, CommandContext, CommandStatus, async_trait};

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
#[derive(Clone)]
pub(crate) struct EngineGrep {
    pub(crate) mounts: Arc<MountTable>,
    /// The interpreter's filesystem: reads made here are noted on it (a `SKILL.md`
    /// read activates its skill, as through any other command).
    pub(crate) fs: Arc<super::fs::MountFs>,
    pub(crate) limits: Limits,
    /// The command's wall time, for the nested interpreter of the fallback.
    pub(crate) timeout: Duration,
    /// The flag the command's name implies: `-E` for `egrep`, `-F` for `fgrep` (as
    /// bashkit's and GNU's aliases put it before the arguments).
    pub(crate) implied: Option<&'static str>,
}

impl EngineGrep {
    /// This grep as `egrep` (`-E`) or `fgrep` (`-F`).
    pub(crate) fn alias(&self, flag: &'static str) -> EngineGrep {
        EngineGrep { implied: Some(flag), ..self.clone() }
    }
}

#[async_trait]
impl Command for EngineGrep {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let cwd = ctx.cwd.to_string_lossy().into_owned();
        // `/dev/fd/N` (a process substitution, `grep x <(cmd)`) and `/dev/stdin`
        // exist only inside the interpreter: its own grep reads them.
        let device = ctx.args.iter().any(|a| a.starts_with("/dev/"));
        let implied: Vec<String>;
        let args = match self.implied {
            Some(flag) => {
                implied =
                    std::iter::once(flag.to_string()).chain(ctx.args.iter().cloned()).collect();
                &implied[..]
            }
            None => ctx.args,
        };
        let Some(plan) = args::plan(args).filter(|_| !device) else {
            return super::nested::builtin(&ctx, self.timeout, |b| b).await;
        };
        let mut req = GrepRequest::new(plan.regex.clone(), "/");
        req.case_insensitive = plan.ignore_case;
        let Ok(re) = compile(&req, &self.limits) else {
            return super::nested::builtin(&ctx, self.timeout, |b| b).await;
        };
        match search::targets(&plan, &self.mounts, &self.limits, &cwd) {
            Some(targets) => self.search(&plan, &re, targets, &ctx).await,
            None => super::nested::builtin(&ctx, self.timeout, |b| b).await,
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
