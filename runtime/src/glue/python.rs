//! Host side of the WIT `python` interface: a guest `run` handle is a
//! [`crate::python::Run`]; records become the protocol's domain types and back.

use wasmtime::component::Resource;

use filestore_guest::shell::python::{
    DirEntry, FailureKind, FsReply, FsRequest, Invocation, Node, NodeKind, Step,
};

use crate::bindings::filestore::component::python::{self as wit, HostRun};
use crate::bindings::filestore::component::types::Error;
use crate::glue::types::to_wit_error;
use crate::python::Run;
use crate::state::HostState;

impl wit::Host for HostState {}

impl HostRun for HostState {
    fn start(
        &mut self,
        invocation: wit::Invocation,
    ) -> wasmtime::Result<Result<Resource<Run>, Error>> {
        let invocation = Invocation {
            args: invocation.args,
            env: invocation.env,
            cwd: invocation.cwd,
            stdin: invocation.stdin,
            timeout_ms: invocation.timeout_ms,
        };
        match Run::start(invocation) {
            Ok(run) => Ok(Ok(self.table.push(run)?)),
            Err(e) => Ok(Err(to_wit_error(e, None))),
        }
    }

    fn next(
        &mut self,
        run: Resource<Run>,
        reply: Option<wit::FsReply>,
    ) -> wasmtime::Result<wit::Step> {
        let cancel = self.cancel.clone();
        let deadline = self.deadline_at;
        let interrupted = move || {
            cancel.load(std::sync::atomic::Ordering::Relaxed)
                || std::time::Instant::now() >= deadline
        };
        let step = self.table.get_mut(&run)?.next(reply.map(from_wit_reply), interrupted);
        Ok(match step {
            Step::Fs(request) => wit::Step::Fs(to_wit_request(request)),
            Step::Finished(f) => wit::Step::Finished(wit::Finished {
                exit_code: f.exit_code,
                stdout: f.stdout,
                stderr: f.stderr,
            }),
        })
    }

    fn drop(&mut self, run: Resource<Run>) -> wasmtime::Result<()> {
        self.table.delete(run)?;
        Ok(())
    }
}

fn to_wit_request(r: FsRequest) -> wit::FsRequest {
    use wit::FsRequest as W;
    match r {
        FsRequest::Stat(p) => W::Stat(p),
        FsRequest::Lstat(p) => W::Lstat(p),
        FsRequest::ReadFile(p) => W::ReadFile(p),
        FsRequest::WriteFile(p, bytes) => W::WriteFile((p, bytes)),
        FsRequest::Append(p, bytes) => W::Append((p, bytes)),
        FsRequest::ReadDir(p) => W::ReadDir(p),
        FsRequest::Mkdir(p) => W::Mkdir(p),
        FsRequest::Remove(p) => W::Remove(p),
        FsRequest::Rename(from, to) => W::Rename((from, to)),
        FsRequest::Symlink { target, link } => W::Symlink((target, link)),
        FsRequest::ReadLink(p) => W::ReadLink(p),
        FsRequest::SetModified(p, ms) => W::SetModified((p, ms)),
    }
}

fn from_wit_reply(r: wit::FsReply) -> FsReply {
    match r {
        wit::FsReply::Done => FsReply::Done,
        wit::FsReply::Node(n) => FsReply::Node(from_wit_node(n)),
        wit::FsReply::Bytes(b) => FsReply::Bytes(b),
        wit::FsReply::Entries(entries) => FsReply::Entries(
            entries
                .into_iter()
                .map(|e| DirEntry { name: e.name, node: from_wit_node(e.node) })
                .collect(),
        ),
        wit::FsReply::Target(t) => FsReply::Target(t),
        wit::FsReply::Failed(f) => {
            let kind = match f.kind {
                wit::FsFailureKind::NotFound => FailureKind::NotFound,
                wit::FsFailureKind::AlreadyExists => FailureKind::AlreadyExists,
                wit::FsFailureKind::PermissionDenied => FailureKind::PermissionDenied,
                wit::FsFailureKind::InvalidInput => FailureKind::InvalidInput,
                wit::FsFailureKind::Other => FailureKind::Other,
            };
            FsReply::Failed(kind, f.message)
        }
    }
}

fn from_wit_node(n: wit::Node) -> Node {
    let kind = match n.kind {
        wit::NodeKind::File => NodeKind::File,
        wit::NodeKind::Directory => NodeKind::Directory,
        wit::NodeKind::Symlink => NodeKind::Symlink,
    };
    Node { kind, size: n.size, mode: n.mode, modified_ms: n.modified_ms }
}
