//! The `python3` (and `python`) command: starts a run in the host and answers its
//! filesystem requests from the shell's filesystem until it ends (see [`super`]).

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bashkit::{
    Command, CommandContext, CommandStatus, FileSystem, FileType, Metadata, async_trait,
};

use super::{DirEntry, FailureKind, FsReply, FsRequest, Invocation, Node, NodeKind, Step};
use crate::error::ErrorKind;

/// The `python3` command.
pub(crate) struct Python {
    /// When the shell command's wall time runs out.
    pub(crate) deadline: Instant,
}

/// `-m` modules that cannot work here, and why.
const REFUSED_MODULES: &[(&str, &str)] = &[
    ("pip", "no package installation in this sandbox: the standard library is what python3 has"),
    (
        "ensurepip",
        "no package installation in this sandbox: the standard library is what python3 has",
    ),
    ("venv", "no virtual environments in this sandbox (no processes, nothing to install)"),
    ("http.server", "no network in this sandbox: a server could not be reached"),
];

#[async_trait]
impl Command for Python {
    async fn execute(&self, ctx: CommandContext<'_>) -> bashkit::Result<CommandStatus> {
        let name = ctx.name;
        if let Some((module, why)) = refused_module(ctx.args) {
            let message = format!("{name}: -m {module}: {why}\n");
            ctx.stderr.write_all(message.as_bytes()).await?;
            return Ok(CommandStatus::with_code(1));
        }
        let Some(start) = super::starter() else {
            let message = format!("{name}: command not found. This build has no python3\n");
            ctx.stderr.write_all(message.as_bytes()).await?;
            return Ok(CommandStatus::with_code(127));
        };
        let mut stdin = Vec::new();
        while let Some(chunk) = ctx.stdin.read_chunk().await? {
            stdin.extend_from_slice(&chunk);
        }
        let mut env: Vec<(String, String)> =
            ctx.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        env.sort();
        // The run ends a little before the command does, so the line goes on to
        // report its status 124 instead of the whole command being stopped.
        let left = self.deadline.saturating_duration_since(Instant::now());
        let left = left.saturating_sub((left / 10).min(Duration::from_millis(200)));
        let invocation = Invocation {
            args: ctx.args.to_vec(),
            env,
            cwd: ctx.cwd.to_string_lossy().into_owned(),
            stdin,
            timeout_ms: u64::try_from(left.as_millis()).unwrap_or(u64::MAX).max(1),
        };
        let mut run = match start(invocation) {
            Ok(run) => run,
            Err(e) => {
                let code = if e.kind() == ErrorKind::Unsupported { 127 } else { 1 };
                let message = format!("{name}: {}\n", e.message());
                ctx.stderr.write_all(message.as_bytes()).await?;
                return Ok(CommandStatus::with_code(code));
            }
        };
        let mut reply = None;
        loop {
            match run.next(reply.take()) {
                Step::Fs(request) => reply = Some(answer(&*ctx.fs, request).await),
                Step::Finished(done) => {
                    ctx.stdout.write_all(&done.stdout).await?;
                    ctx.stderr.write_all(&done.stderr).await?;
                    return Ok(CommandStatus::with_code(done.exit_code));
                }
            }
        }
    }
}

/// The refused module a command line runs with `-m`, if it does: options before
/// the first non-option (`-c`, a script, `-`) are python's, the rest the program's.
fn refused_module(args: &[String]) -> Option<(&'static str, &'static str)> {
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let module = match arg.as_str() {
            "-m" => it.next()?.as_str(),
            a if a.starts_with("-m") => &a[2..],
            "-c" | "-" => return None,
            a if !a.starts_with('-') => return None,
            _ => continue,
        };
        return REFUSED_MODULES.iter().find(|(m, _)| *m == module).copied();
    }
    None
}

/// Answers one request from the shell's filesystem.
async fn answer(fs: &dyn FileSystem, request: FsRequest) -> FsReply {
    let done = |r: bashkit::Result<()>| r.map(|()| FsReply::Done);
    let outcome = match request {
        FsRequest::Stat(p) => fs.stat(Path::new(&p)).await.map(|m| FsReply::Node(node(&m))),
        FsRequest::Lstat(p) => fs.lstat(Path::new(&p)).await.map(|m| FsReply::Node(node(&m))),
        FsRequest::ReadFile(p) => fs.read_file(Path::new(&p)).await.map(FsReply::Bytes),
        FsRequest::WriteFile(p, bytes) => done(fs.write_file(Path::new(&p), &bytes).await),
        FsRequest::Append(p, bytes) => done(fs.append_file(Path::new(&p), &bytes).await),
        FsRequest::ReadDir(p) => fs.read_dir(Path::new(&p)).await.map(|entries| {
            FsReply::Entries(
                entries
                    .into_iter()
                    .map(|e| DirEntry { node: node(&e.metadata), name: e.name })
                    .collect(),
            )
        }),
        FsRequest::Mkdir(p) => done(fs.mkdir(Path::new(&p), false).await),
        FsRequest::Remove(p) => done(fs.remove(Path::new(&p), false).await),
        FsRequest::Rename(from, to) => done(fs.rename(Path::new(&from), Path::new(&to)).await),
        FsRequest::Symlink { target, link } => {
            done(fs.symlink(Path::new(&target), Path::new(&link)).await)
        }
        FsRequest::ReadLink(p) => fs
            .read_link(Path::new(&p))
            .await
            .map(|t| FsReply::Target(t.to_string_lossy().into_owned())),
        FsRequest::SetModified(p, ms) => {
            let at = UNIX_EPOCH + Duration::from_millis(ms);
            done(fs.set_modified_time(Path::new(&p), at).await)
        }
    };
    outcome.unwrap_or_else(|e| failed(&e))
}

fn node(m: &Metadata) -> Node {
    let kind = match m.file_type {
        FileType::Directory => NodeKind::Directory,
        FileType::Symlink => NodeKind::Symlink,
        FileType::File | FileType::Fifo => NodeKind::File,
    };
    Node { kind, size: m.size, mode: m.mode, modified_ms: millis(m.modified) }
}

fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

fn failed(e: &bashkit::Error) -> FsReply {
    use std::io::ErrorKind as Io;
    let kind = match e {
        bashkit::Error::Io(io) => match io.kind() {
            Io::NotFound => FailureKind::NotFound,
            Io::AlreadyExists => FailureKind::AlreadyExists,
            Io::PermissionDenied => FailureKind::PermissionDenied,
            Io::InvalidInput => FailureKind::InvalidInput,
            _ => FailureKind::Other,
        },
        _ => FailureKind::Other,
    };
    FsReply::Failed(kind, e.to_string())
}

#[cfg(test)]
mod tests {
    use super::refused_module;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn pip_venv_and_servers_are_refused_only_as_python_s_own_module() {
        assert_eq!(refused_module(&args(&["-m", "pip", "install", "x"])).unwrap().0, "pip");
        assert_eq!(refused_module(&args(&["-mvenv", ".venv"])).unwrap().0, "venv");
        assert_eq!(refused_module(&args(&["-u", "-m", "http.server"])).unwrap().0, "http.server");
        assert!(refused_module(&args(&["-m", "json.tool", "f.json"])).is_none());
        // A script's own `-m pip` is its argument, not python's.
        assert!(refused_module(&args(&["tool.py", "-m", "pip"])).is_none());
        assert!(refused_module(&args(&["-c", "print(1)", "-m", "pip"])).is_none());
    }
}
