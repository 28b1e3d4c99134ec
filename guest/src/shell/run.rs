//! One command: a fresh interpreter over the mount table, run to completion on a
//! single-threaded async runtime.
//!
//! Each call gets its own interpreter, as `bash -c` would: variables, functions and
//! `cd` do not carry over to the next call (the `cwd` parameter says where to start).
//! What the interpreter is told about its world is fixed here and reveals nothing of
//! the host: user `agent`, host `filestore`, `HOME` the working directory, a `PATH`
//! of virtual directories that hold nothing (commands are built in), no host
//! environment, no real process ids.

use std::sync::Arc;
use std::time::Duration;

use bashkit::{Bash, ExecOptions, ExecResult};

use super::find::EngineFind;
use super::fs::MountFs;
use super::grep::EngineGrep;
use super::limits;
use super::missing;
use super::python::command::Python;
use super::request::ExecuteRequest;
use super::stream;
use super::wc::EngineWc;
use crate::error::{Error, ErrorKind, Result};

/// The user name the shell reports (`whoami`, `$USER`).
pub const USER: &str = "agent";
/// The host name the shell reports (`hostname`, `uname -n`).
pub const HOSTNAME: &str = "filestore";

/// What one command produced.
pub(crate) struct Ran {
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: Vec<u8>,
    pub(crate) exit_code: i32,
    /// The interpreter dropped output past its capture limit.
    pub(crate) capture_truncated: bool,
}

/// Builds the interpreter for `req`, starting in `cwd` (checked by the caller).
pub(crate) fn interpreter(
    fs: Arc<MountFs>,
    grep: EngineGrep,
    find: EngineFind,
    cwd: &str,
    req: &ExecuteRequest,
) -> Bash {
    let deadline = std::time::Instant::now() + limits::timeout(req.timeout_ms);
    let mut b = Bash::builder()
        .fs(fs)
        // Our mount table is the whole world: no synthetic /etc, /proc or /usr/bin,
        // and no link following (volumes never follow links either).
        .rootfs(false)
        .follow_symlinks(false)
        // Pipeline stages that run shell code stream into each other over bounded
        // pipes (so `while :; do echo x; done | head -2` ends with SIGPIPE instead
        // of running into the timeout) and `cmd &` jobs run concurrently, both as in
        // bash; all on this one task, no threads.
        .concurrent_jobs(true)
        .username(USER)
        .hostname(HOSTNAME)
        .cwd(cwd)
        .env("HOME", cwd)
        .env("PWD", cwd)
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("SHELL", "/bin/bash")
        .env("LANG", "C.UTF-8")
        .limits(limits::interpreter_limits(limits::timeout(req.timeout_ms)))
        // One interpreter per call: its per-session counters are per call, and the
        // per-call limits above are the ones that count.
        .session_limits(bashkit::SessionLimits::unlimited())
        // The guest's search engine for the grep (egrep, fgrep) lines it runs
        // exactly (super::grep), its walk for the find lines (super::find).
        .command("egrep", grep.alias("-E"))
        .command("fgrep", grep.alias("-F"))
        .command("grep", grep)
        .command("find", find)
        // Line and byte counts without bashkit's every-count pass (super::wc).
        .command("wc", EngineWc { timeout: limits::timeout(req.timeout_ms) })
        // gzip's `-dc`, which bashkit lacks as a name (super::nested::zcat).
        .command("zcat", super::nested::zcat::Zcat { timeout: limits::timeout(req.timeout_ms) })
        // CPython in the host, over this filesystem (super::python).
        .command("python3", Python { deadline })
        .command("python", Python { deadline });
    for (k, v) in &req.env {
        b = b.env(k, v);
    }
    b.build()
}

/// Runs `command` to completion (or to a limit).
pub(crate) fn run(bash: &mut Bash, req: &ExecuteRequest) -> Result<Ran> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| Error::new(ErrorKind::Backend, format!("starting the shell runtime: {e}")))?;
    let streamer: stream::Shared = Arc::new(std::sync::Mutex::new(stream::Streamer::new()));
    let to_stream = Arc::clone(&streamer);
    let mut options = ExecOptions::new().streaming(Box::new(move |out, err| {
        stream::lock(&to_stream).push(out.as_bytes(), missing::explain(err).as_bytes());
    }));
    if let Some(stdin) = &req.stdin {
        options = options.stdin(stdin.as_str());
    }
    // While the command waits (`sleep`), the runtime wakes every heartbeat: what it
    // printed goes out, and the host gets to interrupt a cancelled call. It starts
    // when the command first waits: one that never does (`echo hi`) sets no timer.
    let beating = Arc::clone(&streamer);
    let handle = runtime.handle().clone();
    let heartbeat = move || {
        handle.spawn(async move {
            loop {
                tokio::time::sleep(stream::HEARTBEAT).await;
                stream::lock(&beating).tick();
            }
        });
    };
    let exec = bash.exec_with_options(&req.command, options);
    let outcome = runtime.block_on(stream::on_first_wait(exec, heartbeat));
    // Timers and tasks of this command end with it.
    runtime.shutdown_timeout(Duration::ZERO);
    stream::lock(&streamer).flush();
    match outcome {
        Ok(r) => Ok(ran(r)),
        Err(bashkit::Error::Parse { message, line, .. }) => Ok(syntax_error(&message, line)),
        // A builtin that passed an I/O error up (`tee` into a read-only mount, `tar`
        // over a link) ends the line there; it is the command's failure, not the
        // tool's: status 1 with the message, as bash reports a failed command.
        Err(bashkit::Error::Io(e)) => Ok(failed_command(&e.to_string())),
        Err(e) => Err(interpreter_error(e)),
    }
}

/// A command that failed with an I/O error the interpreter did not turn into a status.
/// What the line printed before it is not recoverable (the interpreter returns output
/// only with a status), which the message says.
fn failed_command(message: &str) -> Ran {
    Ran {
        stdout: Vec::new(),
        stderr: format!(
            "bash: {message}\n(the command line stopped here; its earlier output is not shown)\n"
        )
        .into_bytes(),
        exit_code: 1,
        capture_truncated: false,
    }
}

/// A command line that does not parse is bash's status 2 with the message on stderr,
/// not a failure of the tool: the agent wrote a bad command and reads why.
fn syntax_error(message: &str, line: usize) -> Ran {
    let at = if line > 0 { format!("line {line}: ") } else { String::new() };
    Ran {
        stdout: Vec::new(),
        stderr: format!("bash: {at}{message}\n").into_bytes(),
        exit_code: 2,
        capture_truncated: false,
    }
}

fn ran(r: ExecResult) -> Ran {
    Ran {
        capture_truncated: r.stdout_truncated || r.stderr_truncated,
        stdout: r.stdout.into_bytes(),
        stderr: match missing::explain(&r.stderr) {
            std::borrow::Cow::Borrowed(_) => r.stderr.into_bytes(),
            std::borrow::Cow::Owned(explained) => explained.into_bytes(),
        },
        exit_code: r.exit_code,
    }
}

/// An error the interpreter returned instead of a result: a limit is
/// `limit-exceeded` naming it; anything else `backend`.
fn interpreter_error(e: bashkit::Error) -> Error {
    match e {
        bashkit::Error::ResourceLimit(l) => limits::exceeded(l),
        bashkit::Error::Cancelled => limits::exceeded("cancelled"),
        // Some limits reach us as text (the interpreter formats them on the way up:
        // "maximum command substitution depth exceeded", "session command limit
        // exceeded (...)").
        bashkit::Error::Execution(m) if is_limit_message(&m) => limits::exceeded(m),
        other => Error::new(ErrorKind::Backend, format!("the shell failed: {other}")),
    }
}

/// Whether an interpreter message reports one of its limits.
fn is_limit_message(m: &str) -> bool {
    (m.starts_with("maximum ") && m.contains("exceeded"))
        || m.contains("limit exceeded")
        || m.contains("budget exhausted")
        // Bounds checked on the parsed line before it runs (`{1..99999999}`, loops
        // nested too deep, too many commands).
        || m.starts_with("budget validation failed")
}

#[cfg(test)]
mod tests {
    #[test]
    fn limit_messages_are_limits() {
        for m in [
            "maximum command substitution depth exceeded",
            "session command limit exceeded (100000 total commands)",
            "execution budget exhausted: work units (1 used, max 1)",
            "budget validation failed: brace range too large: {1..99999999} produces 99999999 elements (max 100000)",
        ] {
            assert!(super::is_limit_message(m), "{m}");
        }
        assert!(!super::is_limit_message("rg: missing pattern"));
    }

    #[test]
    fn a_syntax_error_is_status_2_with_the_message() {
        let r = super::syntax_error("syntax error near unexpected token `;'", 1);
        assert_eq!(r.exit_code, 2);
        assert_eq!(r.stderr, b"bash: line 1: syntax error near unexpected token `;'\n");
    }
}
