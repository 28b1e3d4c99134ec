//! The imported `python` interface as the shell's [`Running`] runs: WIT records to
//! the protocol's domain types and back (see [`crate::shell::python`]).

use super::filestore::component::python as wit;
use crate::error::Error;
use crate::shell::python::{
    DirEntry, FailureKind, Finished, FsReply, FsRequest, Invocation, Node, NodeKind, Running, Step,
};

/// Starts a run through the imported `run.start`.
pub(super) fn start(inv: Invocation) -> Result<Box<dyn Running>, Error> {
    let inv = wit::Invocation {
        args: inv.args,
        env: inv.env,
        cwd: inv.cwd,
        stdin: inv.stdin,
        timeout_ms: inv.timeout_ms,
    };
    match wit::Run::start(&inv) {
        Ok(run) => Ok(Box::new(WitRun(run))),
        Err(e) => Err(super::types::from_wit_error_plain(e)),
    }
}

struct WitRun(wit::Run);

impl Running for WitRun {
    fn next(&mut self, reply: Option<FsReply>) -> Step {
        let reply = reply.map(to_wit_reply);
        match self.0.next(reply.as_ref()) {
            wit::Step::Fs(r) => Step::Fs(from_wit_request(r)),
            wit::Step::Finished(f) => Step::Finished(Finished {
                exit_code: f.exit_code,
                stdout: f.stdout,
                stderr: f.stderr,
            }),
        }
    }
}

fn from_wit_request(r: wit::FsRequest) -> FsRequest {
    use wit::FsRequest as W;
    match r {
        W::Stat(p) => FsRequest::Stat(p),
        W::Lstat(p) => FsRequest::Lstat(p),
        W::ReadFile(p) => FsRequest::ReadFile(p),
        W::WriteFile((p, bytes)) => FsRequest::WriteFile(p, bytes),
        W::Append((p, bytes)) => FsRequest::Append(p, bytes),
        W::ReadDir(p) => FsRequest::ReadDir(p),
        W::Mkdir(p) => FsRequest::Mkdir(p),
        W::Remove(p) => FsRequest::Remove(p),
        W::Rename((from, to)) => FsRequest::Rename(from, to),
        W::Symlink((target, link)) => FsRequest::Symlink { target, link },
        W::ReadLink(p) => FsRequest::ReadLink(p),
        W::SetModified((p, ms)) => FsRequest::SetModified(p, ms),
    }
}

fn to_wit_reply(r: FsReply) -> wit::FsReply {
    match r {
        FsReply::Done => wit::FsReply::Done,
        FsReply::Node(n) => wit::FsReply::Node(to_wit_node(n)),
        FsReply::Bytes(b) => wit::FsReply::Bytes(b),
        FsReply::Entries(entries) => wit::FsReply::Entries(
            entries
                .into_iter()
                .map(|DirEntry { name, node }| wit::DirEntry { name, node: to_wit_node(node) })
                .collect(),
        ),
        FsReply::Target(t) => wit::FsReply::Target(t),
        FsReply::Failed(kind, message) => {
            let kind = match kind {
                FailureKind::NotFound => wit::FsFailureKind::NotFound,
                FailureKind::AlreadyExists => wit::FsFailureKind::AlreadyExists,
                FailureKind::PermissionDenied => wit::FsFailureKind::PermissionDenied,
                FailureKind::InvalidInput => wit::FsFailureKind::InvalidInput,
                FailureKind::Other => wit::FsFailureKind::Other,
            };
            wit::FsReply::Failed(wit::FsFailure { kind, message })
        }
    }
}

fn to_wit_node(n: Node) -> wit::Node {
    let kind = match n.kind {
        NodeKind::File => wit::NodeKind::File,
        NodeKind::Directory => wit::NodeKind::Directory,
        NodeKind::Symlink => wit::NodeKind::Symlink,
    };
    wit::Node { kind, size: n.size, mode: n.mode, modified_ms: n.modified_ms }
}
