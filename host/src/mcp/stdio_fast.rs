//! The stdio fast path: the reader thread answers a quick call itself.
//!
//! Through rmcp, a call over stdio passes from the reader thread to a runtime worker
//! (rmcp's serve loop), to the task rmcp spawns for the request, and back to the
//! serve loop to be written: each hand-off a wake-up and a context switch, most of a
//! small read's time on a 2-CPU machine (issue 36's stdio target, BENCHMARKS.md).
//! Here the reader thread, which already holds the parsed request, runs the same
//! handler ([`rmcp::Service::handle_request`] of the same [`FilestoreServer`]: the
//! same checks, result shapes, protocol-version handling and notifications) on
//! itself and writes the answer, with no hand-off at all.
//!
//! It takes only what cannot tell the difference:
//! - after the session is initialized (rmcp's handshake done, [`FastPath::ready`]);
//! - `tools/call` of `filestore_read` and `filestore_ls`: bounded work (a page, a
//!   listing under its limit), never an approval, an upstream call or a shell
//!   command, so that it needs no cancellation: while it runs the reader is busy
//!   and would not see a `notifications/cancelled` for it (rmcp would not either:
//!   the request is not rmcp's);
//! - without a progress token (no progress notifications to send meanwhile);
//! - while rmcp answers no request ([`FastPath::delivered`] and
//!   [`FastPath::answered`] count them): a client that sent a write and then a read
//!   without waiting gets them run in that order, as before;
//! - while the client's roots are settled (none being listed or mounted): waiting
//!   for them here would never end, since the client's answer with its roots is on
//!   the input this thread reads.
//!
//! Anything else goes to rmcp as before.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::RoleServer;
use rmcp::model::{ClientRequest, GetMeta, JsonRpcMessage, JsonRpcRequest};
use rmcp::service::{Peer, RequestContext, RxJsonRpcMessage, Service, TxJsonRpcMessage};

use super::server::FilestoreServer;

/// The calls the fast path takes (see the module docs).
const FAST_TOOLS: [&str; 2] = ["filestore_read", "filestore_ls"];

/// What answering needs, once the session is initialized.
struct Ready {
    server: FilestoreServer,
    peer: Peer<RoleServer>,
    runtime: tokio::runtime::Handle,
}

/// See the module docs. Shared by the reader thread and the transport.
#[derive(Default)]
pub struct FastPath {
    ready: OnceLock<Ready>,
    /// Requests handed to rmcp and not answered yet.
    pending: AtomicUsize,
}

thread_local! {
    /// Set on the reader thread while it runs a call: the sandbox work runs in
    /// place there (it is the thread's own to block), see
    /// [`FilestoreServer::on_sandbox`](super::server).
    static ON_FAST_PATH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the current thread is the fast path's, running a call.
pub(crate) fn on_fast_path() -> bool {
    ON_FAST_PATH.with(std::cell::Cell::get)
}

impl FastPath {
    /// The session is initialized: from now on the reader may answer calls with
    /// `server` (a clone of rmcp's) on `runtime`.
    pub fn ready(&self, server: FilestoreServer, peer: Peer<RoleServer>) {
        let runtime = tokio::runtime::Handle::current();
        let _ = self.ready.set(Ready { server, peer, runtime });
    }

    /// A message handed to rmcp: a request counts until [`FastPath::answered`].
    pub fn delivered(&self, message: &RxJsonRpcMessage<RoleServer>) {
        if matches!(message, JsonRpcMessage::Request(_)) {
            self.pending.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// A message rmcp sends: an answer (result or error) ends a request's count.
    pub fn answered(&self, message: &TxJsonRpcMessage<RoleServer>) {
        if matches!(message, JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_)) {
            let _ =
                self.pending.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
    }

    /// The answer to `message` as a line (without its newline) when the fast path
    /// takes it, else the message back, for rmcp.
    pub fn answer(
        &self,
        message: Box<RxJsonRpcMessage<RoleServer>>,
    ) -> Result<Vec<u8>, Box<RxJsonRpcMessage<RoleServer>>> {
        let Some(ready) = self.ready.get() else { return Err(message) };
        if self.pending.load(Ordering::SeqCst) != 0
            || !ready.server.roots_settled()
            || !takes(&message)
        {
            return Err(message);
        }
        let (id, mut request) = match *message {
            JsonRpcMessage::Request(JsonRpcRequest { id, request, .. }) => (id, request),
            other => return Err(Box::new(other)),
        };
        let mut context = RequestContext::new(id.clone(), ready.peer.clone());
        std::mem::swap(&mut context.meta, request.get_meta_mut());
        ON_FAST_PATH.with(|f| f.set(true));
        let result = ready.runtime.block_on(ready.server.handle_request(request, context));
        ON_FAST_PATH.with(|f| f.set(false));
        let reply: TxJsonRpcMessage<RoleServer> = match result {
            Ok(result) => JsonRpcMessage::response(result, id),
            Err(error) => JsonRpcMessage::error(error, Some(id)),
        };
        // A reply that does not serialise (it always does) is rmcp's to fail on:
        // rather than lose the call, say so in the same shape rmcp would.
        Ok(serde_json::to_vec(&reply).unwrap_or_else(|e| {
            serde_json::json!({"jsonrpc": "2.0", "id": serde_json::Value::Null,
                               "error": {"code": -32603, "message": format!("serialising the answer: {e}")}})
            .to_string()
            .into_bytes()
        }))
    }
}

/// Whether the fast path takes `message` (see the module docs).
fn takes(message: &RxJsonRpcMessage<RoleServer>) -> bool {
    let JsonRpcMessage::Request(JsonRpcRequest { request, .. }) = message else { return false };
    let ClientRequest::CallToolRequest(call) = request else { return false };
    let params = &call.params;
    let progress = request.get_meta().get_progress_token().is_some()
        || params.meta.as_ref().is_some_and(|m| m.get_progress_token().is_some());
    FAST_TOOLS.contains(&params.name.as_ref()) && params.request_state.is_none() && !progress
}
