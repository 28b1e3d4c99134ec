//! The interpreter's thread: bashkit's CPython over a filesystem whose every
//! operation is a request to the component (see [`super`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, Sender};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bashkit_cpython_runner::{
    CPython, CPythonInvocation, CPythonLimits, DirEntry, Error as FsError, FileSystem, FileType,
    Metadata, Result as FsResult,
};
use filestore_guest::shell::limits::{MAX_CAPTURE_BYTES, MAX_WRITTEN_BYTES};
use filestore_guest::shell::python::{
    FailureKind, Finished, FsReply, FsRequest, Invocation, Node, NodeKind, Step,
};

/// Runs `invocation` to its end, then sends [`Step::Finished`].
pub(super) fn interpret(
    invocation: Invocation,
    steps: Sender<Step>,
    replies: Receiver<FsReply>,
    stop: Arc<AtomicBool>,
) {
    let timeout = Duration::from_millis(invocation.timeout_ms);
    let fs = Arc::new(Bridge { channel: Mutex::new((steps.clone(), replies)) });
    let limits = CPythonLimits::default()
        .max_duration(timeout)
        .max_memory(super::MAX_MEMORY)
        .max_output(MAX_CAPTURE_BYTES);
    let run = CPythonInvocation {
        args: invocation.args,
        env: invocation.env,
        cwd: invocation.cwd,
        stdin: invocation.stdin,
        timeout,
    };
    let finished = match tokio::runtime::Builder::new_current_thread().enable_time().build() {
        Ok(rt) => match rt.block_on(CPython::with_limits(limits).run(fs, run, stop)) {
            Ok(r) => Finished { exit_code: r.exit_code, stdout: r.stdout, stderr: r.stderr },
            Err(e) => Finished {
                exit_code: 124,
                stdout: Vec::new(),
                stderr: format!("python3: stopped: {e}\n").into_bytes(),
            },
        },
        Err(e) => Finished {
            exit_code: 1,
            stdout: Vec::new(),
            stderr: format!("python3: cannot start its runtime: {e}\n").into_bytes(),
        },
    };
    let _ = steps.send(Step::Finished(finished));
}

/// The interpreter's filesystem: each operation asks the component and waits.
struct Bridge {
    channel: Mutex<(Sender<Step>, Receiver<FsReply>)>,
}

impl Bridge {
    fn ask(&self, request: FsRequest) -> FsResult<FsReply> {
        let channel = self.channel.lock().unwrap_or_else(|p| p.into_inner());
        let gone = || io(std::io::ErrorKind::BrokenPipe, "the shell is no longer answering");
        channel.0.send(Step::Fs(request)).map_err(|_| gone())?;
        match channel.1.recv().map_err(|_| gone())? {
            FsReply::Failed(kind, message) => Err(io(io_kind(kind), &message)),
            reply => Ok(reply),
        }
    }

    fn done(&self, request: FsRequest) -> FsResult<()> {
        self.ask(request).map(|_| ())
    }

    fn node(&self, request: FsRequest) -> FsResult<Metadata> {
        match self.ask(request)? {
            FsReply::Node(n) => Ok(metadata(n)),
            other => Err(unexpected(&other)),
        }
    }
}

/// Refuses, before it crosses into the component, a write larger than the shell lets
/// one command write: the component would refuse it anyway, after holding it in its
/// linear memory (whose cap a few hundred MiB would pass, ending the session).
fn bounded(content: &[u8]) -> FsResult<()> {
    if content.len() as u64 > MAX_WRITTEN_BYTES {
        return Err(io(
            std::io::ErrorKind::Other,
            &format!(
                "a write of {} bytes would pass the limit of {MAX_WRITTEN_BYTES} file bytes \
                 written per command",
                content.len()
            ),
        ));
    }
    Ok(())
}

fn io(kind: std::io::ErrorKind, message: &str) -> FsError {
    FsError::Io(std::io::Error::new(kind, message.to_string()))
}

fn io_kind(kind: FailureKind) -> std::io::ErrorKind {
    match kind {
        FailureKind::NotFound => std::io::ErrorKind::NotFound,
        FailureKind::AlreadyExists => std::io::ErrorKind::AlreadyExists,
        FailureKind::PermissionDenied => std::io::ErrorKind::PermissionDenied,
        FailureKind::InvalidInput => std::io::ErrorKind::InvalidInput,
        FailureKind::Other => std::io::ErrorKind::Other,
    }
}

fn unexpected(reply: &FsReply) -> FsError {
    io(std::io::ErrorKind::Other, &format!("unexpected answer from the shell: {reply:?}"))
}

fn metadata(n: Node) -> Metadata {
    let at = UNIX_EPOCH + Duration::from_millis(n.modified_ms);
    Metadata {
        file_type: match n.kind {
            NodeKind::File => FileType::File,
            NodeKind::Directory => FileType::Directory,
            NodeKind::Symlink => FileType::Symlink,
        },
        size: n.size,
        mode: n.mode,
        modified: at,
        created: at,
    }
}

fn path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[bashkit_cpython_runner::async_trait]
impl FileSystem for Bridge {
    async fn read_file(&self, p: &Path) -> FsResult<Vec<u8>> {
        match self.ask(FsRequest::ReadFile(path(p)))? {
            FsReply::Bytes(b) => Ok(b),
            other => Err(unexpected(&other)),
        }
    }
    async fn write_file(&self, p: &Path, content: &[u8]) -> FsResult<()> {
        bounded(content)?;
        self.done(FsRequest::WriteFile(path(p), content.to_vec()))
    }
    async fn append_file(&self, p: &Path, content: &[u8]) -> FsResult<()> {
        bounded(content)?;
        self.done(FsRequest::Append(path(p), content.to_vec()))
    }
    async fn mkdir(&self, p: &Path, recursive: bool) -> FsResult<()> {
        if recursive {
            let mut at = PathBuf::from("/");
            for part in p.components().skip(1) {
                at.push(part);
                if self.stat(&at).await.is_err() {
                    self.done(FsRequest::Mkdir(path(&at)))?;
                }
            }
            return Ok(());
        }
        self.done(FsRequest::Mkdir(path(p)))
    }
    async fn remove(&self, p: &Path, _recursive: bool) -> FsResult<()> {
        self.done(FsRequest::Remove(path(p)))
    }
    async fn stat(&self, p: &Path) -> FsResult<Metadata> {
        self.node(FsRequest::Stat(path(p)))
    }
    async fn lstat(&self, p: &Path) -> FsResult<Metadata> {
        self.node(FsRequest::Lstat(path(p)))
    }
    async fn read_dir(&self, p: &Path) -> FsResult<Vec<DirEntry>> {
        match self.ask(FsRequest::ReadDir(path(p)))? {
            FsReply::Entries(entries) => Ok(entries
                .into_iter()
                .map(|e| DirEntry { name: e.name, metadata: metadata(e.node) })
                .collect()),
            other => Err(unexpected(&other)),
        }
    }
    async fn rename(&self, from: &Path, to: &Path) -> FsResult<()> {
        self.done(FsRequest::Rename(path(from), path(to)))
    }
    async fn symlink(&self, target: &Path, link: &Path) -> FsResult<()> {
        self.done(FsRequest::Symlink { target: path(target), link: path(link) })
    }
    async fn read_link(&self, p: &Path) -> FsResult<PathBuf> {
        match self.ask(FsRequest::ReadLink(path(p)))? {
            FsReply::Target(t) => Ok(PathBuf::from(t)),
            other => Err(unexpected(&other)),
        }
    }
    async fn set_modified_time(&self, p: &Path, time: SystemTime) -> FsResult<()> {
        let ms = time.duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
        self.done(FsRequest::SetModified(path(p), ms))
    }
}
