//! The stdio fast path: the calls rmcp would pass through three threads are run
//! by the reader thread itself or by one executor thread.
//!
//! Through rmcp, a call over stdio passes from the reader thread to a runtime worker
//! (rmcp's serve loop), to the task rmcp spawns for the request, and back to the
//! serve loop to be written: each hand-off a wake-up and a context switch, most of a
//! small call's time on a 2-CPU machine (BENCHMARKS.md, "MCP server"). Here the
//! same handler ([`rmcp::Service::handle_request`] of the same [`FilestoreServer`]:
//! the same checks, result shapes, protocol-version handling and notifications)
//! runs on one of two threads, which writes the answer:
//!
//! - **The reader thread**, which already holds the parsed request, with no hand-off
//!   at all: `filestore_read` of one page of one file that is not a PDF (no
//!   `paths`, `pages` or `render`; a PDF may be drawn, which takes long), and
//!   `filestore_ls` of one level of at most 1,000 entries (the defaults). Bounded
//!   work, never an approval, an upstream call or a shell command, so that it needs
//!   no cancellation, which could not reach it (the thread that would read a
//!   `notifications/cancelled` is running the call).
//! - **The executor thread** ([`super::executor`]), one hand-off: every other
//!   `tools/call`. The reader goes on reading while it runs, so a
//!   `notifications/cancelled` naming the call cancels it, and the client's answer
//!   to an approval asked meanwhile reaches rmcp.
//!
//! Either only:
//! - after the session is initialized (rmcp's handshake done, [`FastPath::ready`]);
//! - without a progress token: progress notifications go out through rmcp, and
//!   could be written after an answer written here;
//! - while the executor runs no call (one run meanwhile would wait for the sandbox,
//!   the reader thread with it);
//! - while rmcp answers no request ([`super::in_flight`]): the fast path never runs
//!   a call before a request sent earlier (rmcp itself runs its requests
//!   concurrently, so requests sent without waiting were never ordered);
//! - while the client's roots are settled: no `notifications/roots/list_changed`
//!   handed to rmcp and not yet taken up by it, and no application of roots under
//!   way. Waiting for roots on the reader could never end: the client's answer with
//!   them is on the input that thread reads.
//!
//! Anything else goes to rmcp as before.
//!
//! When the input ends, every request read is answered before rmcp hears the end
//! ([`FastPath::input_ended`]).
//!
//! A listing's structured content passes through as the component wrote it
//! ([`crate::fast_call::passes_json_through`]): parsed into a `Value` for rmcp's
//! result type and written out again, it was a sixth of a listing with details.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    ClientNotification, ClientRequest, GetExtensions, GetMeta, JsonRpcMessage, JsonRpcNotification,
    JsonRpcRequest, RequestId,
};
use rmcp::service::{Peer, RequestContext, RxJsonRpcMessage, Service, TxJsonRpcMessage};

use super::answer::answer_line;
use super::executor::{Executor, Job};
use super::in_flight::InFlight;
use super::writer::Writer;
use crate::fast_call::ReadCancellation;
use crate::server::FilestoreServer;

/// The largest listing the fast path takes (`filestore_ls`'s default limit).
const MAX_FAST_LIST: u64 = 1000;

/// How long the end of input waits for the next answer before it gives up on the
/// requests still unanswered (rmcp gives its own as long).
const DRAIN: Duration = Duration::from_secs(5);

/// What answering needs, once the session is initialized.
struct Ready {
    server: FilestoreServer,
    peer: Peer<RoleServer>,
    runtime: tokio::runtime::Handle,
    executor: Executor,
}

/// Where a message goes (see [`FastPath::route`]).
pub enum Route {
    /// Answered on the reader thread: the answer line, without its newline.
    Answered(Vec<u8>),
    /// Handed to the executor thread, which writes the answer.
    Running,
    /// For rmcp.
    Rmcp(Box<RxJsonRpcMessage<RoleServer>>),
}

/// Which of the fast path's threads runs a call (see the module docs).
#[derive(Debug, PartialEq, Eq)]
enum Runner {
    Reader,
    Executor,
}

/// See the module docs. Shared by the reader thread and the transport.
#[derive(Default)]
pub struct FastPath {
    ready: OnceLock<Ready>,
    /// Requests handed to rmcp and not answered yet, each with the cancellation the
    /// reader gave it ([`ReadCancellation`]).
    in_flight: Arc<InFlight>,
}

impl FastPath {
    /// The session is initialized: from now on the reader may answer calls with
    /// `server` (a clone of rmcp's) on `runtime`, or hand them to an executor
    /// thread that writes its answers to `writer`.
    pub fn ready(
        &self,
        server: FilestoreServer,
        peer: Peer<RoleServer>,
        writer: Writer,
    ) -> std::io::Result<()> {
        let runtime = tokio::runtime::Handle::current();
        let executor = Executor::start(runtime.clone(), writer, self.in_flight.clone())?;
        let _ = self.ready.set(Ready { server, peer, runtime, executor });
        Ok(())
    }

    /// A message for rmcp, about to be handed to it: a request counts until
    /// [`FastPath::answered`], or until a `notifications/cancelled` names it (rmcp
    /// never answers a request cancelled while it runs), which cancels it here at
    /// once, before rmcp takes the notification up (its [`ReadCancellation`], put in
    /// its extensions now); a `notifications/roots/list_changed` unsettles the roots
    /// until the server takes it up.
    pub fn delivered(&self, message: &mut RxJsonRpcMessage<RoleServer>) {
        match message {
            JsonRpcMessage::Request(r) => {
                let cancellation = ReadCancellation::default();
                self.in_flight.add(r.id.clone(), cancellation.0.clone());
                r.request.extensions_mut().insert(cancellation);
            }
            JsonRpcMessage::Notification(JsonRpcNotification { notification, .. }) => {
                match notification {
                    ClientNotification::CancelledNotification(c) => {
                        if let Some(id) = &c.params.request_id {
                            self.in_flight.cancel(id);
                            if let Some(ready) = self.ready.get() {
                                ready.executor.cancel(id);
                            }
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

    /// A message rmcp sends: whether to write it. An answer (result or error) ends
    /// its request's count; one to a request given up at the end of input, which
    /// the reader answered, is not written.
    pub fn answered(&self, message: &TxJsonRpcMessage<RoleServer>) -> bool {
        let id = match message {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        id.is_none_or(|id| self.in_flight.answered(id))
    }

    /// Where `message` goes: answered here, handed to the executor, or back for
    /// rmcp (see the module docs).
    pub fn route(&self, message: Box<RxJsonRpcMessage<RoleServer>>) -> Route {
        let Some(ready) = self.ready.get() else { return Route::Rmcp(message) };
        let Some(runner) = runner(&message) else { return Route::Rmcp(message) };
        if ready.executor.is_busy() || !self.in_flight.is_empty() || !ready.server.roots_settled() {
            return Route::Rmcp(message);
        }
        let (id, mut request) = match *message {
            JsonRpcMessage::Request(JsonRpcRequest { id, request, .. }) => (id, request),
            other => return Route::Rmcp(Box::new(other)),
        };
        let mut context = RequestContext::new(id.clone(), ready.peer.clone());
        std::mem::swap(&mut context.meta, request.get_meta_mut());
        if runner == Runner::Executor {
            let server = ready.server.clone();
            return match ready.executor.run(Job { server, id, request, context }) {
                Ok(()) => Route::Running,
                Err(job) => {
                    let message = "the server's call thread has ended; nothing ran".to_string();
                    Route::Answered(
                        crate::guard::error_reply(json_id(&job.id), -32603, message).into_bytes(),
                    )
                }
            };
        }
        let (result, passed) = crate::fast_call::run_on_reader(|| {
            ready.runtime.block_on(ready.server.handle_request(request, context))
        });
        let reply: TxJsonRpcMessage<RoleServer> = match result {
            Ok(result) => JsonRpcMessage::response(result, id),
            Err(error) => JsonRpcMessage::error(error, Some(id)),
        };
        Route::Answered(answer_line(reply, passed))
    }

    /// The input ended: returns once every request read is answered, or once
    /// [`DRAIN`] passes with no answer written and no call ended; then every request
    /// still unanswered is cancelled and answered here with an error, through
    /// `replies`, and the executor's call is given as long again to stop. rmcp hears
    /// the end after this (the transport's input ends), so it has nothing left to
    /// cancel unanswered.
    pub fn input_ended(&self, replies: &Writer) {
        let executor = self.ready.get().map(|r| &r.executor);
        let idle = || self.in_flight.is_empty() && executor.is_none_or(|e| !e.is_busy());
        let mut seen = self.in_flight.answers();
        while !idle() {
            match self.in_flight.wait_past(seen, DRAIN) {
                Some(answers) => seen = answers,
                None => break,
            }
        }
        let mut given_up = self.in_flight.abandon_all();
        given_up.extend(executor.and_then(Executor::abandon));
        for id in &given_up {
            let message = format!(
                "cancelled unanswered: the client's input ended and no request was answered in the {} s after",
                DRAIN.as_secs()
            );
            let _ =
                replies.line(crate::guard::error_reply(json_id(id), -32603, message).into_bytes());
        }
        if let Some(executor) = executor {
            executor.wait(DRAIN);
        }
    }
}

/// A request id as JSON.
fn json_id(id: &RequestId) -> serde_json::Value {
    serde_json::to_value(id).unwrap_or(serde_json::Value::Null)
}

/// Which thread of the fast path runs `message`, if one does (see the module docs).
fn runner(message: &RxJsonRpcMessage<RoleServer>) -> Option<Runner> {
    let JsonRpcMessage::Request(JsonRpcRequest { request, .. }) = message else { return None };
    let ClientRequest::CallToolRequest(call) = request else { return None };
    let params = &call.params;
    let progress = request.get_meta().get_progress_token().is_some()
        || params.meta.as_ref().is_some_and(|m| m.get_progress_token().is_some());
    if progress {
        return None;
    }
    if params.request_state.is_some() {
        return Some(Runner::Executor);
    }
    let empty = serde_json::Map::new();
    let args = params.arguments.as_ref().unwrap_or(&empty);
    let absent_or =
        |key: &str, ok: &dyn Fn(&serde_json::Value) -> bool| args.get(key).is_none_or(ok);
    let on_reader = match params.name.as_ref() {
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
    };
    Some(if on_reader { Runner::Reader } else { Runner::Executor })
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

    /// Bounded reads and listings run on the reader, every other tool call on the
    /// executor; a call with a progress token, and anything but a tool call, goes
    /// to rmcp.
    #[test]
    fn each_call_runs_where_nothing_can_tell_the_difference() {
        let on = |name: &str, args: serde_json::Value| runner(&call(1, name, args));
        assert_eq!(on("filestore_read", json!({"path": "/w/a.rs"})), Some(Runner::Reader));
        assert_eq!(
            on("filestore_ls", json!({"path": "/w", "details": true})),
            Some(Runner::Reader)
        );
        assert_eq!(
            on("filestore_ls", json!({"path": "/w", "depth": 1, "limit": 1000})),
            Some(Runner::Reader)
        );
        for (name, args) in [
            ("filestore_read", json!({"path": "/w/scan.PDF"})),
            ("filestore_read", json!({"paths": ["/w/a", "/w/b"]})),
            ("filestore_read", json!({"path": "/w/a", "render": "none"})),
            ("filestore_ls", json!({"path": "/w", "depth": 2})),
            ("filestore_ls", json!({"path": "/w", "limit": 100000})),
            ("filestore_grep", json!({"pattern": "x"})),
            ("filestore_write", json!({"path": "/w/a", "content": ""})),
            ("filestore_execute", json!({"command": "sleep 100"})),
            ("a_configured_tool", json!({})),
        ] {
            assert_eq!(on(name, args.clone()), Some(Runner::Executor), "{name} {args}");
        }
        let retry = message(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "filestore_read", "arguments": {"path": "/w/a"},
                       "requestState": "s1", "inputResponses": {}}}));
        assert_eq!(runner(&retry), Some(Runner::Executor));
        for progress in [
            json!({"name": "filestore_read", "arguments": {"path": "/w/a"},
                   "_meta": {"progressToken": 7}}),
            json!({"name": "filestore_execute", "arguments": {"command": "true"},
                   "_meta": {"progressToken": "p"}}),
        ] {
            let m = message(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                   "params": progress}));
            assert_eq!(runner(&m), None, "{m:?}");
        }
        let list = message(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
        assert_eq!(runner(&list), None);
        let ping = message(json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}));
        assert_eq!(runner(&ping), None);
    }

    /// A request handed to rmcp is cancelled the moment the reader reads its
    /// `notifications/cancelled`, through the cancellation in its extensions, which
    /// the server's check before a call starts reads; a notification naming an id
    /// already answered cancels nothing a later request of that id carries.
    #[test]
    fn the_reader_cancels_a_request_of_rmcps_as_it_reads_the_notification() {
        let fast = FastPath::default();
        let carried = |m: &RxJsonRpcMessage<RoleServer>| match m {
            JsonRpcMessage::Request(r) => {
                r.request.extensions().get::<ReadCancellation>().expect("a cancellation").0.clone()
            }
            other => panic!("not a request: {other:?}"),
        };
        let mut waiting = call(104, "filestore_execute", json!({"command": "true"}));
        fast.delivered(&mut waiting);
        let waiting = carried(&waiting);
        let mut other = call(105, "filestore_execute", json!({"command": "true"}));
        fast.delivered(&mut other);
        let other = carried(&other);
        assert!(!waiting.is_cancelled());
        fast.delivered(&mut cancelled(104));
        assert!(waiting.is_cancelled(), "cancelled as the notification is read");
        assert!(!other.is_cancelled(), "only the request it names");

        fast.answered(&answer(105));
        let mut reused = call(105, "filestore_execute", json!({"command": "true"}));
        fast.delivered(&mut reused);
        let reused = carried(&reused);
        fast.answered(&answer(105));
        fast.delivered(&mut cancelled(105));
        assert!(!reused.is_cancelled() && !other.is_cancelled(), "both were answered");
    }

    fn cancelled(id: u64) -> RxJsonRpcMessage<RoleServer> {
        message(json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": id}}))
    }

    fn answer(id: i64) -> TxJsonRpcMessage<RoleServer> {
        JsonRpcMessage::response(
            rmcp::model::ServerResult::empty(()),
            rmcp::model::NumberOrString::Number(id),
        )
    }
}
