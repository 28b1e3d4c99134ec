//! Running bashkit's own builtin for a command line a replacement command (our
//! `grep`, `find`) does not reproduce exactly: a nested interpreter over the same
//! filesystem, directory and exported environment runs the same words, its stdin and
//! stdout streamed through the replacement's, so output flows as before.
//!
//! The nested interpreter is a child process in bash's terms: it sees exported
//! variables, not the outer shell's functions or unexported ones (as a command `find
//! -exec` runs would not).

pub(crate) mod zcat;

use std::time::Duration;

use bashkit::{
    Bash, BashBuilder, Command, CommandContext, CommandInput, CommandOutput, CommandStatus,
    async_trait,
};

/// Bridges the nested interpreter's command to the outer command's stdin.
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

/// Bridges the nested interpreter's command to the outer command's stdout.
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

/// Hands the nested interpreter one process substitution of the outer line: an
/// interpreter answers `/dev/fd/N` only for its own substitutions, so the nested one
/// gets a substitution of its own with the same bytes (`<(filestore-nested-fd-K)`).
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
const STDIN_BRIDGE: &str = "filestore-nested-stdin";
const STDOUT_BRIDGE: &str = "filestore-nested-stdout";

/// Runs bashkit's own `ctx.name` on the same arguments, filesystem, directory and
/// environment, its stdin and stdout streamed through this command's. `extra` adds
/// commands to the nested interpreter (the engine's `grep` for `find -exec grep`).
pub(crate) async fn builtin(
    ctx: &CommandContext<'_>,
    timeout: Duration,
    extra: impl FnOnce(BashBuilder) -> BashBuilder,
) -> bashkit::Result<CommandStatus> {
    program(ctx, &[ctx.name], timeout, extra).await
}

/// As [`builtin`], running bashkit's `command` (a name and leading arguments, as
/// `gzip -dc` for `zcat`) before this command's arguments.
pub(crate) async fn program(
    ctx: &CommandContext<'_>,
    command: &[&str],
    timeout: Duration,
    extra: impl FnOnce(BashBuilder) -> BashBuilder,
) -> bashkit::Result<CommandStatus> {
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
    b = extra(b);
    for (k, v) in ctx.env {
        b = b.env(k, v);
    }
    let mut words: Vec<String> = command.iter().map(|w| quote(w)).collect();
    for (k, arg) in ctx.args.iter().enumerate() {
        if is_substitution(arg) {
            // Read through this command's filesystem, which answers the outer
            // interpreter's substitutions.
            let bytes = ctx.fs.read_file(std::path::Path::new(arg)).await?;
            let bridge = format!("filestore-nested-fd-{k}");
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
