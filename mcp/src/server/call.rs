//! A tool call, step by step ([`FilestoreServer::run_call`]): the cancellation and
//! progress watch, a slot among the caller's concurrent calls, the claims it
//! carries, the run on the sandbox, the user's approval when the tool needs it
//! (asked by elicitation, or with an `input_required` result under MCP
//! 2026-07-28), and the outcome told.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::{FilestoreServer, is_modern};
use crate::approval::{
    APPROVAL_INPUT, APPROVAL_TIMEOUT, approval_form, approved, ask_approval, pending_approval,
};
use crate::reply::{failure, success};
use crate::sandbox::Called;
use filestore_guest::error::ErrorKind;
use filestore_runtime::Error;
#[allow(deprecated)]
use rmcp::model::LoggingLevel;

/// How often a long call with a `progressToken` reports that it is still running.
pub const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// The tasks watching one running call (see [`FilestoreServer::watch`]).
struct CallWatch {
    /// The call's ticket: the running call a cancellation may interrupt.
    ticket: u64,
    /// What sets the cancel flag once the request is cancelled.
    watcher: Watcher,
    progress: Option<tokio::task::JoinHandle<()>>,
    /// What a shell command printed, for the progress notifications.
    output: Option<Arc<Mutex<ProgressOutput>>>,
}

impl CallWatch {
    /// Ends the watch: the call is over (or never started).
    fn stop(&self) {
        match &self.watcher {
            Watcher::Task(task) => task.abort(),
            Watcher::OnCancel(cancellation) => cancellation.disarm(),
            Watcher::None => {}
        }
        if let Some(p) = &self.progress {
            p.abort();
        }
    }
}

/// How a call's cancellation reaches it.
enum Watcher {
    /// A task waiting for the request's cancellation (an rmcp request).
    Task(tokio::task::JoinHandle<()>),
    /// Started by the stdio fast path's reader when it reads the cancellation (a
    /// call on the fast path's executor, `crate::stdio::fast`).
    OnCancel(Arc<crate::fast_call::Cancellation>),
    /// None: a call the fast path's reader runs itself cannot be cancelled (the
    /// thread that would read the cancellation is running it).
    None,
}

/// What a running shell command printed, for the progress notifications of its call:
/// only what its answer can show (the first
/// [`MAX_INLINE_BYTES`](filestore_guest::shell::limits::MAX_INLINE_BYTES) of each
/// stream), and of that only the end since the last notification (at most
/// [`Tail::MAX_BYTES`](filestore_runtime::shell_output::Tail::MAX_BYTES)).
#[derive(Default)]
struct ProgressOutput {
    tail: filestore_runtime::shell_output::Tail,
    stdout: usize,
    stderr: usize,
}

impl ProgressOutput {
    fn push(&mut self, chunk: filestore_runtime::shell_output::OutputChunk<'_>) {
        let seen = match chunk.stream {
            filestore_runtime::shell_output::OutputStream::Stdout => &mut self.stdout,
            filestore_runtime::shell_output::OutputStream::Stderr => &mut self.stderr,
        };
        let room = filestore_guest::shell::limits::MAX_INLINE_BYTES.saturating_sub(*seen);
        let bytes = &chunk.bytes[..chunk.bytes.len().min(room)];
        *seen += bytes.len();
        if !bytes.is_empty() {
            self.tail
                .push(filestore_runtime::shell_output::OutputChunk { stream: chunk.stream, bytes });
        }
    }
}

fn lock_output(o: &Mutex<ProgressOutput>) -> MutexGuard<'_, ProgressOutput> {
    o.lock().unwrap_or_else(|p| p.into_inner())
}

impl FilestoreServer {
    /// A slot among the caller's concurrent calls (`--max-calls-per-identity`),
    /// held until dropped; the failed result when the caller has none left.
    fn call_slot(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<crate::http::auth::CallSlot>, Box<CallToolResult>> {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let caller = parts.and_then(|p| p.extensions.get::<crate::http::identity::Identity>());
        match (&self.call_limits, caller) {
            (Some(limits), Some(who)) => limits.acquire(who).map(Some).map_err(|why| {
                let e = Error::Filestore(filestore_guest::Error::new(
                    filestore_guest::ErrorKind::LimitExceeded,
                    why.to_string(),
                ));
                Box::new(failure(&e, false))
            }),
            _ => Ok(None),
        }
    }

    /// The verified claims of the HTTP request's bearer token, for the auth services
    /// that take it (`mcpEnabled`); never a token.
    fn claims(&self, context: &RequestContext<RoleServer>) -> Value {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        crate::http::service_tokens::claims_for(
            parts.and_then(|p| p.extensions.get::<crate::http::identity::Identity>()),
            &self.bearer_services,
            parts.and_then(|p| p.extensions.get::<crate::http::service_tokens::ServiceClaims>()),
        )
    }

    /// Starts watching a call of `tool`: `notifications/cancelled` for this request
    /// interrupts the guest at its next epoch tick (the next call gets a fresh
    /// sandbox over the same volumes), and with a progress token the client hears
    /// every [`PROGRESS_INTERVAL`] that the call is still running, with what a shell
    /// command printed since. Calls on one sandbox run one at a time; the ticket
    /// says which one is running, so a cancellation only ever interrupts the call it
    /// was sent for.
    fn watch(
        &self,
        context: &RequestContext<RoleServer>,
        tool: &str,
        token: Option<rmcp::model::ProgressToken>,
    ) -> CallWatch {
        let ticket = self.next_ticket.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let (cancel, running) = (self.cancel.clone(), self.running.clone());
        // Until aborted: the call may not have started yet, and each call clears the
        // flag when it starts.
        let interrupt = async move {
            loop {
                if *running.lock().unwrap_or_else(|p| p.into_inner()) == ticket {
                    cancel.store(true, std::sync::atomic::Ordering::SeqCst);
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        // A task spawned per call is a wake-up of another thread: on the stdio fast
        // path it is started only when the call is cancelled, or never where no
        // cancellation can arrive.
        let watcher = match context.extensions.get::<Arc<crate::fast_call::Cancellation>>() {
            Some(cancellation) => {
                let runtime = tokio::runtime::Handle::current();
                cancellation.arm(Box::new(move || runtime.spawn(interrupt)));
                Watcher::OnCancel(cancellation.clone())
            }
            None if crate::fast_call::on_reader() => Watcher::None,
            None => {
                let cancellation = crate::fast_call::RequestCancellation::of(context);
                Watcher::Task(tokio::spawn(async move {
                    cancellation.cancelled().await;
                    interrupt.await
                }))
            }
        };
        // No total: a grep does not know its size in advance.
        let output = token.is_some().then(|| Arc::new(Mutex::new(ProgressOutput::default())));
        let progress = token.map(|token| {
            let (peer, what, output) = (context.peer.clone(), tool.to_string(), output.clone());
            tokio::spawn(async move {
                let start = std::time::Instant::now();
                for n in 1u32.. {
                    tokio::time::sleep(PROGRESS_INTERVAL).await;
                    let tail = output.as_ref().and_then(|o| lock_output(o).tail.take());
                    let mut message =
                        format!("{what} is still running ({} s)", start.elapsed().as_secs());
                    if let Some(tail) = tail {
                        message.push('\n');
                        message.push_str(&tail);
                    }
                    let note = rmcp::model::ProgressNotificationParam::new(token.clone(), n.into())
                        .with_message(message);
                    if peer.notify_progress(note).await.is_err() {
                        break;
                    }
                }
            })
        });
        CallWatch { ticket, watcher, progress, output }
    }

    /// Asks for approval of the parked call `id` with an `input_required` result (MCP
    /// 2026-07-28: no request to the client), the call kept in the conversation under
    /// the id its retry echoes. A client that did not declare elicitation cannot
    /// answer one: `-32021`, nothing parked.
    async fn ask_input(
        &self,
        context: &RequestContext<RoleServer>,
        id: String,
        tool: &str,
        args: &Value,
    ) -> Result<CallToolResponse, McpError> {
        let declared = context
            .meta
            .get("io.modelcontextprotocol/clientCapabilities")
            .is_some_and(|c| c.get("elicitation").is_some());
        if !declared {
            let _ = self.with_sandbox(move |s| s.session().map(|s| s.reject(&id))).await;
            return Err(McpError::new(
                rmcp::model::ErrorCode(-32021),
                format!(
                    "tool '{tool}' requires the user's approval, asked through elicitation, which the request's clientCapabilities do not declare; nothing ran"
                ),
                Some(json!({"requiredCapabilities": {"elicitation": {}}})),
            ));
        }
        let (t, a) = (tool.to_string(), args.clone());
        let call_id = match self.with_sandbox(move |s| s.park(&id, &t, &a)).await? {
            Ok(call_id) => call_id,
            Err(e) => return Ok(failure(&e, false).into()),
        };
        let form = approval_form(tool, args).map_err(|m| McpError::internal_error(m, None))?;
        let ask = rmcp::model::InputRequest::Elicitation(rmcp::model::ElicitRequest::new(form));
        let requests = std::collections::BTreeMap::from([(APPROVAL_INPUT.to_string(), ask)]);
        Ok(rmcp::model::InputRequiredResult::new(Some(requests), Some(call_id)).into())
    }

    /// Asks the user, through the client (an elicitation request, MCP 2025-11-25),
    /// whether the parked call `id` may run, then runs or drops it. Nothing runs
    /// without a yes.
    async fn ask_elicitation(
        &self,
        context: &RequestContext<RoleServer>,
        id: String,
        tool: &str,
        args: &Value,
    ) -> Result<Called, McpError> {
        // A call cancelled while its approval is asked is not run, whatever the
        // answer, and the wait ends with the cancellation (an approval given later,
        // from a dialog still on screen, ran the call the client had given up).
        let cancellation = crate::fast_call::RequestCancellation::of(context);
        let cancelled = || Err("the call was cancelled".to_string());
        let decision = tokio::select! {
            decision = ask_approval(&context.peer, tool, args) => decision,
            () = cancellation.cancelled() => cancelled(),
        };
        let decision =
            decision.and_then(|()| if cancellation.is_cancelled() { cancelled() } else { Ok(()) });
        let approve = decision.is_ok();
        let decided = self.with_sandbox(move |s| s.decide(&id, approve)).await?;
        Ok(match decision {
            Ok(()) => decided,
            Err(why) => Called {
                out: Err(Error::Filestore(filestore_guest::Error::new(
                    filestore_guest::ErrorKind::Unauthorized,
                    format!(
                        "tool '{tool}' requires approval and was not approved: {why}; nothing ran"
                    ),
                ))),
                specs_changed: decided.specs_changed,
                poisoned: decided.poisoned,
            },
        })
    }

    /// Tells the user of a storage failure behind a call (not only the model): a log
    /// message, under 2026-07-28 only to a request that opts in with its `_meta`
    /// logLevel, at or above that level.
    #[allow(deprecated)] // logging: see crate::logging
    async fn tell_storage_failure(&self, context: &RequestContext<RoleServer>, message: String) {
        if !is_modern(context) {
            crate::logging::log(&context.peer, &self.log_level, LoggingLevel::Error, message).await;
            return;
        }
        let level = context
            .meta
            .get("io.modelcontextprotocol/logLevel")
            .and_then(|l| serde_json::from_value::<LoggingLevel>(l.clone()).ok());
        if let Some(level) = level {
            let threshold = crate::logging::LogThreshold::default();
            threshold.set(level);
            crate::logging::log(&context.peer, &threshold, LoggingLevel::Error, message).await;
        }
    }

    /// Answers the retry of a call parked for approval (MCP 2026-07-28): the parked
    /// call `state` names is taken from the conversation (once: a replayed answer
    /// finds nothing), checked against the retry's tool and arguments, and run only
    /// if the client's answer approves it.
    async fn answer_approval(
        &self,
        request: CallToolRequestParams,
        state: String,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let claims = self.claims(context);
        let _slot = match self.call_slot(context) {
            Ok(slot) => slot,
            Err(refused) => return Ok((*refused).into()),
        };
        let tool = request.name.to_string();
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        let refused = |why: String| -> Result<CallToolResponse, McpError> {
            let e = Error::Filestore(filestore_guest::Error::new(ErrorKind::Unauthorized, why));
            Ok(failure(&e, false).into())
        };
        let id = state.clone();
        let taken = self.with_sandbox(move |s| s.take_parked(&id)).await?;
        let pending = match taken {
            Ok(Some(p)) => p,
            Ok(None) => {
                return refused(format!(
                    "requestState names no call waiting for approval in this conversation (answered already, asked more than {} s ago, or never asked here); nothing ran for '{tool}'",
                    APPROVAL_TIMEOUT.as_secs()
                ));
            }
            Err(e) => return Ok(failure(&e, false).into()),
        };
        if pending.tool != tool || pending.arguments != args {
            return refused(format!(
                "the retry calls '{tool}' with other arguments than the call that asked for approval ('{}'); nothing ran, and that approval is spent",
                pending.tool
            ));
        }
        if let Err(why) = approved(request.input_responses.as_ref()) {
            return refused(format!(
                "tool '{tool}' requires approval and was not approved: {why}; nothing ran"
            ));
        }
        let called = self
            .with_sandbox(move |s| {
                let parked = s.call(&tool, &args, &claims, None);
                match parked.out.as_ref().ok().and_then(|o| pending_approval(&o.json)) {
                    Some(id) => s.decide(&id, true),
                    None => parked,
                }
            })
            .await?;
        Ok(match called.out {
            Ok(out) => success(out),
            Err(e) => failure(&e, called.poisoned),
        }
        .into())
    }

    /// A call, step by step: the conversation checked (or an approval's retry
    /// answered), the cancellation and progress watch started, a slot among the
    /// caller's calls taken, the tool run on the sandbox, an approval asked if the
    /// tool needs one, and the outcome told (list changes, storage failures) and
    /// returned.
    pub(super) async fn run_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.check_conversation(&context).await?;
        if let Some(state) = request.request_state.clone() {
            // The retry of a call that asked for approval (MCP 2026-07-28).
            return self.answer_approval(request, state, &context).await;
        }
        let token = request
            .meta
            .as_ref()
            .and_then(|m| m.get_progress_token())
            .or_else(|| context.meta.get_progress_token());
        let tool = request.name.to_string();
        let args = Value::Object(request.arguments.unwrap_or_default());
        let watch = self.watch(&context, &tool, token);
        // Held until the call ends (dropped with this function's locals).
        let _slot = match self.call_slot(&context) {
            Ok(slot) => slot,
            Err(refused) => {
                watch.stop();
                return Ok((*refused).into());
            }
        };
        let claims = self.claims(&context);
        let (cancel, running, ticket) = (self.cancel.clone(), self.running.clone(), watch.ticket);
        let (name, output) = (tool.clone(), watch.output.clone());
        let cancellation = crate::fast_call::RequestCancellation::of(&context);
        // The arguments go in and come back (an approval prompt shows them): no copy.
        let called = self
            .with_sandbox(move |s| {
                if cancellation.is_cancelled() {
                    // Cancelled while it waited for the sandbox (behind another call):
                    // it does not start. Its answer is not sent.
                    let why = format!("'{name}' was cancelled before it started; nothing ran");
                    let out = Err(Error::Cancelled(why));
                    return (Called { out, specs_changed: false, poisoned: false }, args, false);
                }
                *running.lock().unwrap_or_else(|p| p.into_inner()) = ticket;
                let sink = output.map(|o| -> filestore_runtime::shell_output::OutputSink {
                    Box::new(move |chunk: filestore_runtime::shell_output::OutputChunk<'_>| {
                        lock_output(&o).push(chunk)
                    })
                });
                let out = s.call(&name, &args, &claims, sink);
                *running.lock().unwrap_or_else(|p| p.into_inner()) = 0;
                cancel.store(false, std::sync::atomic::Ordering::SeqCst);
                let unknown = s.unknown_tool(&name, &out.out);
                (out, args, unknown)
            })
            .await;
        watch.stop();
        let (mut called, args, unknown) = called?;
        if unknown && let Err(e) = &called.out {
            // A tool the client was not offered is a protocol error, not a tool's
            // failure (the spec's "Unknown tool"), still saying what is offered.
            return Err(McpError::invalid_params(format!("error[{}]: {e}", e.kind_name()), None));
        }
        if let Some(id) = called.out.as_ref().ok().and_then(|o| pending_approval(&o.json)) {
            if is_modern(&context) {
                return self.ask_input(&context, id, &tool, &args).await;
            }
            called = self.ask_elicitation(&context, id, &tool, &args).await?;
        }
        if called.specs_changed && !is_modern(&context) {
            // The client re-lists on this. Under 2026-07-28 notices travel only on
            // `subscriptions/listen` streams.
            notify_tools_changed(&context).await;
        }
        if let Err(e) = &called.out
            && e.kind() == Some(ErrorKind::Backend)
        {
            self.tell_storage_failure(&context, format!("{tool} failed in storage: {e}")).await;
        }
        Ok(match called.out {
            // An image or audio file read: its content goes to the client as media.
            Ok(out) if tool == "filestore_read" && out.json["content"] == "binary" => {
                let json = out.json.clone();
                let result = success(out);
                self.with_sandbox(move |s| crate::media::attach(s, &json, result)).await?
            }
            // A PDF's pages drawn as images: PNG content beside the text.
            Ok(out) if tool == "filestore_read" && out.json["content"] == "pdf" => {
                crate::media::pdf_pages(out)
            }
            Ok(out) => success(out),
            Err(e) => failure(&e, called.poisoned),
        }
        .into())
    }
}

/// Tells the client that the tool list changed. The notice is queued at once; the
/// wait for rmcp to write it is bounded, and for a cancelled call not waited at all:
/// once the client's input has ended rmcp writes nothing more, and a call given up
/// then (or cancelled just before) held the end of the session 5 s on this wait.
async fn notify_tools_changed(context: &RequestContext<RoleServer>) {
    let cancelled = crate::fast_call::RequestCancellation::of(context).is_cancelled();
    let bound = if cancelled { Duration::ZERO } else { Duration::from_secs(1) };
    let _ = tokio::time::timeout(bound, context.peer.notify_tool_list_changed()).await;
}
