//! The stdio fast path: the reader thread answers a quick call itself.
//!
//! Through rmcp, a call over stdio passes from the reader thread to a runtime worker
//! (rmcp's serve loop), to the task rmcp spawns for the request, and back to the
//! serve loop to be written: each hand-off a wake-up and a context switch, most of a
//! small read's time on a 2-CPU machine (BENCHMARKS.md, "MCP server").
//! Here the reader thread, which already holds the parsed request, runs the same
//! handler ([`rmcp::Service::handle_request`] of the same [`FilestoreServer`]: the
//! same checks, result shapes, protocol-version handling and notifications) on
//! itself and writes the answer, with no hand-off at all.
//!
//! It takes only what cannot tell the difference:
//! - after the session is initialized (rmcp's handshake done, [`FastPath::ready`]);
//! - `tools/call` of `filestore_read` of one page of one file that is not a PDF
//!   (no `paths`, `pages` or `render`; a PDF may be drawn, which takes long), and of
//!   `filestore_ls` of one level of at most 1,000 entries (the defaults): bounded
//!   work, never an approval, an upstream call or a shell command, so that it needs
//!   no cancellation, which could not reach it (the thread that would read a
//!   `notifications/cancelled` is running the call);
//! - without a progress token (no progress notifications to send meanwhile);
//! - while rmcp answers no request ([`FastPath::delivered`] and
//!   [`FastPath::answered`] track them by id; a cancelled one, which rmcp never
//!   answers, ends with its `notifications/cancelled`): the fast path never runs a
//!   call before a request sent earlier (rmcp itself runs its requests
//!   concurrently, so requests sent without waiting were never ordered);
//! - while the client's roots are settled: no `notifications/roots/list_changed`
//!   handed to rmcp and not yet taken up by it, and no application of roots under
//!   way. Waiting for roots here could never end: the client's answer with them is
//!   on the input this thread reads.
//!
//! Anything else goes to rmcp as before.
//!
//! A listing's structured content passes through as the component wrote it
//! ([`crate::fast_call::passes_json_through`]): parsed into a `Value` for rmcp's
//! result type and written out again, it was a sixth of a listing with details.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use rmcp::RoleServer;
use rmcp::model::{
    ClientNotification, ClientRequest, GetMeta, JsonRpcMessage, JsonRpcNotification,
    JsonRpcRequest, RequestId, ServerResult,
};
use rmcp::service::{Peer, RequestContext, RxJsonRpcMessage, Service, TxJsonRpcMessage};

use crate::server::FilestoreServer;

/// The largest listing the fast path takes (`filestore_ls`'s default limit).
const MAX_FAST_LIST: u64 = 1000;

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
    /// Requests handed to rmcp and not answered yet, by id (how many of each: a
    /// client may reuse one).
    pending: Mutex<HashMap<RequestId, usize>>,
}

/// The answer line: `reply` serialised, with the JSON a call passed through as its
/// result's `structuredContent` (written as is, not parsed: `Session::call_unparsed`
/// checked it is JSON that can be, one line without `\u` escapes).
fn serialise_reply(mut reply: TxJsonRpcMessage<RoleServer>, passed: Option<String>) -> Vec<u8> {
    let serialise = |reply: &TxJsonRpcMessage<RoleServer>| {
        serde_json::to_vec(reply).unwrap_or_else(|e| {
            // A reply that does not serialise (it always does) is rmcp's to fail on:
            // rather than lose the call, say so in the same shape rmcp would.
            let message = format!("serialising the answer: {e}");
            crate::guard::error_reply(serde_json::Value::Null, -32603, message).into_bytes()
        })
    };
    let Some(json) = passed else { return serialise(&reply) };
    let result = match &mut reply {
        JsonRpcMessage::Response(r) => match &mut r.result {
            // The placeholder `pass_json_through` gave, and nothing else.
            ServerResult::CallToolResult(result)
                if result.is_error != Some(true)
                    && result
                        .structured_content
                        .as_ref()
                        .and_then(serde_json::Value::as_object)
                        .is_some_and(serde_json::Map::is_empty) =>
            {
                result
            }
            _ => return serialise(&reply),
        },
        _ => return serialise(&reply),
    };
    result.structured_content = None;
    let mut line = serialise(&reply);
    // The result is the message's last member and the structured content would be
    // the result's: `...}}` becomes `...,"structuredContent":JSON}}`.
    if !line.ends_with(b"}}") {
        result_back(&mut reply, &json);
        return serialise(&reply);
    }
    line.truncate(line.len() - 2);
    line.reserve(json.len() + 24);
    line.extend_from_slice(b",\"structuredContent\":");
    line.extend_from_slice(json.as_bytes());
    line.extend_from_slice(b"}}");
    line
}

/// Puts the passed-through `json` back into `reply`'s result, parsed (the fallback
/// when the answer is not shaped as [`serialise_reply`] expects).
fn result_back(reply: &mut TxJsonRpcMessage<RoleServer>, json: &str) {
    if let JsonRpcMessage::Response(r) = reply
        && let ServerResult::CallToolResult(result) = &mut r.result
    {
        result.structured_content = serde_json::from_str(json).ok();
    }
}

impl FastPath {
    /// The session is initialized: from now on the reader may answer calls with
    /// `server` (a clone of rmcp's) on `runtime`.
    pub fn ready(&self, server: FilestoreServer, peer: Peer<RoleServer>) {
        let runtime = tokio::runtime::Handle::current();
        let _ = self.ready.set(Ready { server, peer, runtime });
    }

    /// A message handed to rmcp: a request counts until [`FastPath::answered`], or
    /// until a `notifications/cancelled` names it (rmcp never answers a request
    /// cancelled while it runs); a `notifications/roots/list_changed` unsettles the
    /// roots until the server takes it up.
    pub fn delivered(&self, message: &RxJsonRpcMessage<RoleServer>) {
        match message {
            JsonRpcMessage::Request(r) => {
                *self.pending().entry(r.id.clone()).or_default() += 1;
            }
            JsonRpcMessage::Notification(JsonRpcNotification { notification, .. }) => {
                match notification {
                    ClientNotification::CancelledNotification(c) => {
                        if let Some(id) = &c.params.request_id {
                            self.pending().remove(id);
                        }
                    }
                    ClientNotification::RootsListChangedNotification(_) => {
                        if let Some(ready) = self.ready.get() {
                            ready.server.roots_notice_sent();
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// A message rmcp sends: an answer (result or error) ends its request's count.
    pub fn answered(&self, message: &TxJsonRpcMessage<RoleServer>) {
        let id = match message {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        if let Some(id) = id {
            let mut pending = self.pending();
            if let Some(n) = pending.get_mut(id) {
                *n -= 1;
                if *n == 0 {
                    pending.remove(id);
                }
            }
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, usize>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The answer to `message` as a line (without its newline) when the fast path
    /// takes it, else the message back, for rmcp.
    pub fn answer(
        &self,
        message: Box<RxJsonRpcMessage<RoleServer>>,
    ) -> Result<Vec<u8>, Box<RxJsonRpcMessage<RoleServer>>> {
        let Some(ready) = self.ready.get() else { return Err(message) };
        if !self.pending().is_empty() || !ready.server.roots_settled() || !takes(&message) {
            return Err(message);
        }
        let (id, mut request) = match *message {
            JsonRpcMessage::Request(JsonRpcRequest { id, request, .. }) => (id, request),
            other => return Err(Box::new(other)),
        };
        let mut context = RequestContext::new(id.clone(), ready.peer.clone());
        std::mem::swap(&mut context.meta, request.get_meta_mut());
        let (result, passed) = crate::fast_call::run(|| {
            ready.runtime.block_on(ready.server.handle_request(request, context))
        });
        let reply: TxJsonRpcMessage<RoleServer> = match result {
            Ok(result) => JsonRpcMessage::response(result, id),
            Err(error) => JsonRpcMessage::error(error, Some(id)),
        };
        Ok(serialise_reply(reply, passed))
    }
}

/// Whether the fast path takes `message` (see the module docs).
fn takes(message: &RxJsonRpcMessage<RoleServer>) -> bool {
    let JsonRpcMessage::Request(JsonRpcRequest { request, .. }) = message else { return false };
    let ClientRequest::CallToolRequest(call) = request else { return false };
    let params = &call.params;
    let progress = request.get_meta().get_progress_token().is_some()
        || params.meta.as_ref().is_some_and(|m| m.get_progress_token().is_some());
    if progress || params.request_state.is_some() {
        return false;
    }
    let empty = serde_json::Map::new();
    let args = params.arguments.as_ref().unwrap_or(&empty);
    let absent_or =
        |key: &str, ok: &dyn Fn(&serde_json::Value) -> bool| args.get(key).is_none_or(ok);
    match params.name.as_ref() {
        "filestore_read" => {
            let pdf = args
                .get("path")
                .and_then(serde_json::Value::as_str)
                .is_some_and(|p| p.to_ascii_lowercase().ends_with(".pdf"));
            !pdf && ["paths", "pages", "render"].iter().all(|k| args.get(*k).is_none())
        }
        "filestore_ls" => {
            absent_or("depth", &|v| v.as_u64() == Some(1))
                && absent_or("limit", &|v| v.as_u64().is_some_and(|n| n <= MAX_FAST_LIST))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(v: serde_json::Value) -> RxJsonRpcMessage<RoleServer> {
        serde_json::from_value(v).unwrap()
    }

    fn call(id: u64, name: &str, arguments: serde_json::Value) -> RxJsonRpcMessage<RoleServer> {
        message(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": name, "arguments": arguments}}))
    }

    /// A passed-through listing's JSON lands as the result's `structuredContent`,
    /// exactly as rmcp would write the parsed value; an error answer or a result
    /// without structured content ignores it.
    #[test]
    fn passed_json_is_the_structured_content() {
        use rmcp::model::{CallToolResult, ContentBlock, ErrorData};
        let listing =
            r#"{"path":"/w","entries":[{"name":"a \"b\"\n","size":3}],"truncated":false}"#;
        let reply = |structured: Option<serde_json::Value>| -> TxJsonRpcMessage<RoleServer> {
            let mut r = CallToolResult::success(vec![ContentBlock::text("a \"b\"\n (3 bytes)\n")]);
            r.structured_content = structured;
            JsonRpcMessage::response(ServerResult::CallToolResult(r), RequestId::Number(7))
        };
        let parsed = |line: Vec<u8>| serde_json::from_slice::<serde_json::Value>(&line).unwrap();
        let expected =
            parsed(serde_json::to_vec(&reply(serde_json::from_str(listing).ok())).unwrap());
        let spliced = serialise_reply(reply(Some(json!({}))), Some(listing.to_string()));
        assert_eq!(parsed(spliced), expected);

        let plain = reply(None);
        let alone = serde_json::to_vec(&plain).unwrap();
        assert_eq!(serialise_reply(plain, Some(listing.to_string())), alone);
        let error: TxJsonRpcMessage<RoleServer> = JsonRpcMessage::error(
            ErrorData::invalid_params("no", None),
            Some(RequestId::Number(7)),
        );
        let alone = serde_json::to_vec(&error).unwrap();
        assert_eq!(serialise_reply(error, Some(listing.to_string())), alone);
    }

    #[test]
    fn takes_only_bounded_calls_without_progress() {
        assert!(takes(&call(1, "filestore_read", json!({"path": "/w/a.rs"}))));
        assert!(takes(&call(1, "filestore_ls", json!({"path": "/w", "details": true}))));
        assert!(takes(&call(1, "filestore_ls", json!({"path": "/w", "depth": 1, "limit": 1000}))));
        for (name, args) in [
            ("filestore_read", json!({"path": "/w/scan.PDF"})),
            ("filestore_read", json!({"paths": ["/w/a", "/w/b"]})),
            ("filestore_read", json!({"path": "/w/a", "render": "none"})),
            ("filestore_ls", json!({"path": "/w", "depth": 2})),
            ("filestore_ls", json!({"path": "/w", "limit": 100000})),
            ("filestore_grep", json!({"pattern": "x"})),
            ("filestore_write", json!({"path": "/w/a", "content": ""})),
        ] {
            assert!(!takes(&call(1, name, args.clone())), "{name} {args}");
        }
        let progress = message(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "filestore_read", "arguments": {"path": "/w/a"},
                       "_meta": {"progressToken": 7}}}));
        assert!(!takes(&progress));
    }

    /// A request rmcp never answers (cancelled) or answers once for two of one id
    /// does not leave the fast path off for good.
    #[test]
    fn requests_in_flight_are_tracked_by_id() {
        let fast = FastPath::default();
        let grep = call(3, "filestore_grep", json!({"pattern": "x"}));
        fast.delivered(&grep);
        assert!(!fast.pending().is_empty());
        fast.delivered(&message(json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                        "params": {"requestId": 3}})));
        assert!(fast.pending().is_empty(), "a cancelled request is not waited for");
        fast.delivered(&call(7, "filestore_ls", json!({})));
        fast.delivered(&call(7, "filestore_ls", json!({})));
        let answer: TxJsonRpcMessage<RoleServer> = JsonRpcMessage::response(
            rmcp::model::ServerResult::empty(()),
            rmcp::model::NumberOrString::Number(7),
        );
        fast.answered(&answer);
        assert!(!fast.pending().is_empty(), "one of the two is answered");
        fast.answered(&answer);
        assert!(fast.pending().is_empty());
    }
}
