//! The MCP handler: one sandboxed session per MCP session, tools listed and called
//! through the session's generic entry points.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, GetPromptRequestParams,
    GetPromptResponse, Implementation, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig as McpServerInfo, Tool,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::ServerConfig;
use super::approval::{
    APPROVAL_INPUT, APPROVAL_TIMEOUT, approval_form, approved, ask_approval, pending_approval,
};
use super::conversations::no_conversations;
use super::reply::{failure, protocol_error, success};
use super::sandbox::{Called, Sandbox, lock};
use filestore_guest::error::ErrorKind;
#[allow(deprecated)]
use rmcp::model::LoggingLevel;

use crate::{Error, MountSpec};

/// A short version of the instructions, sent in the `initialize` result.
const SERVER_INSTRUCTIONS: &str = "A sandboxed virtual filesystem. Use the filestore_* tools with \
absolute virtual paths (e.g. /workspace/src/main.rs); start with filestore_tree or filestore_ls \
on / to see the mounts. The prompt `filestore_instructions` has the full guide and the tree.";

/// The MCP server of one MCP session.
///
/// Cheap to clone (clones share the sandbox). Every sandbox operation runs off the
/// async runtime's workers (see [`FilestoreServer::on_sandbox`]), so a slow call
/// never stalls it.
#[derive(Clone)]
pub struct FilestoreServer {
    sandbox: Arc<Mutex<Sandbox>>,
    /// Interrupts the sandbox's running call (shared with every session the sandbox
    /// creates, so it is reachable without waiting for the sandbox's lock).
    cancel: Arc<std::sync::atomic::AtomicBool>,
    /// The ticket of the tool call running in the sandbox now (0: none).
    running: Arc<Mutex<u64>>,
    /// The last ticket handed out.
    next_ticket: Arc<std::sync::atomic::AtomicU64>,
    /// The client's logging level (see [`super::logging`]).
    log_level: Arc<super::logging::LogThreshold>,
    /// Auth services whose claims are the bearer token's (see [`super::ServerConfig`]).
    bearer_services: Arc<Vec<String>>,
    /// Concurrent calls per identity (see [`super::ServerConfig`]).
    call_limits: Option<Arc<super::http::auth::CallLimits>>,
    /// Upstream catalog changes (see [`super::CatalogRefresh`]): watched once the
    /// client is initialized, to tell it to re-list.
    catalog_changes: Option<tokio::sync::watch::Receiver<u64>>,
    /// Which of the client's roots may become `/workspace`, for this session's
    /// caller (see [`super::roots`]).
    roots: Arc<super::roots::RootsPolicy>,
    /// Requests that reach the sandbox wait here while roots are being applied.
    roots_gate: Arc<super::roots::Gate>,
    /// `roots/list_changed` notifications the stdio reader handed to rmcp that the
    /// handler has not taken up yet (see `roots_notice_sent`).
    roots_notices: Arc<std::sync::atomic::AtomicUsize>,
    /// Why no default `/workspace` was mounted, if none was.
    no_workspace_reason: Option<Arc<str>>,
    /// The server's conversations (`serve --state`); `None`: none are kept.
    conversations: Option<Arc<super::conversations::Conversations>>,
    /// The name of the conversation the session serves (readable while a call
    /// holds the sandbox).
    conversation: Arc<Mutex<Option<String>>>,
    /// Made for one MCP 2026-07-28 HTTP request (no session): the conversation its
    /// `_meta` names is bound when the handler reads it.
    per_request: bool,
    /// Gives the sandbox back to its conversation's cache when the last clone of
    /// this server is dropped (a 2026-07-28 request, see [`super::sandbox_cache`]).
    /// Last: dropped after `sandbox`. Never read: held for its `Drop`.
    #[allow(dead_code)]
    give_back: Option<Arc<GiveBack>>,
}

/// Gives a 2026-07-28 request's sandbox back to the cache when dropped, if nothing
/// else holds it and it is fit to serve another request of its conversation.
struct GiveBack {
    cache: Arc<super::sandbox_cache::SandboxCache>,
    key: crate::conversation::ConversationKey,
    sandbox: Arc<Mutex<Sandbox>>,
}

impl Drop for GiveBack {
    fn drop(&mut self) {
        if Arc::strong_count(&self.sandbox) != 1 {
            return;
        }
        let stamp = lock(&self.sandbox).stamp();
        if let Some(stamp) = stamp {
            self.cache.give_back(self.key.clone(), stamp, self.sandbox.clone());
        }
    }
}

/// The tasks watching one running call (see [`FilestoreServer::watch`]).
struct CallWatch {
    /// The call's ticket: the running call a cancellation may interrupt.
    ticket: u64,
    /// Sets the cancel flag once the request is cancelled; none on the stdio fast
    /// path, whose requests are not cancellable (`super::stdio::fast`).
    watcher: Option<tokio::task::JoinHandle<()>>,
    progress: Option<tokio::task::JoinHandle<()>>,
    /// What a shell command printed, for the progress notifications.
    output: Option<Arc<Mutex<ProgressOutput>>>,
}

impl CallWatch {
    /// Ends the watch: the call is over (or never started).
    fn stop(&self) {
        if let Some(w) = &self.watcher {
            w.abort();
        }
        if let Some(p) = &self.progress {
            p.abort();
        }
    }
}

impl FilestoreServer {
    /// A server over a new sandboxed session built from `config`.
    pub fn new(config: &ServerConfig) -> crate::Result<FilestoreServer> {
        // Over HTTP, the caller of the request creating the session: `{sub}` in the
        // directories roots are allowed in is theirs, and so is its conversation.
        let caller = super::http::identity::current_identity().map(|i| i.segment);
        let requested = super::conversations::requested();
        let (sandbox, name, give_back) =
            match (&config.sandbox_cache, &config.conversations, &requested.named) {
                // A 2026-07-28 request naming a conversation: its cached sandbox.
                (Some(cache), Some(c), Some(named)) if requested.per_request => {
                    let (name, key) = c.key_of(caller.as_deref(), Some(named.as_str()))?;
                    let sandbox = cached_sandbox(config, cache, c, caller.as_deref(), &key, named)?;
                    let back = GiveBack { cache: cache.clone(), key, sandbox: sandbox.clone() };
                    (sandbox, Some(name), Some(Arc::new(back)))
                }
                (_, conversations, named) => {
                    let (bound, ephemeral) = match (conversations, named) {
                        // A 2026-07-28 request naming no conversation keeps nothing: no
                        // conversation is made for it.
                        (Some(c), None) if requested.per_request => (None, c.ephemeral_mounts()),
                        (Some(c), named) => {
                            (Some(c.bind(caller.as_deref(), named.as_deref())?), Vec::new())
                        }
                        (None, Some(_)) => return Err(no_conversations()),
                        (None, None) => (None, Vec::new()),
                    };
                    let name = bound.as_ref().map(|b| b.name().to_string());
                    let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
                    let mut sandbox = Sandbox::new(config, cancel, bound, ephemeral)?;
                    // A 2026-07-28 request's own sandbox ends with it.
                    sandbox.lasting = !requested.per_request;
                    (Arc::new(Mutex::new(sandbox)), name, None)
                }
            };
        let conversation = Arc::new(Mutex::new(name));
        requested.created.set(&conversation);
        let cancel = lock(&sandbox).cancel_flag();
        Ok(FilestoreServer {
            sandbox,
            cancel,
            running: Default::default(),
            next_ticket: Default::default(),
            log_level: Default::default(),
            bearer_services: Arc::new(config.bearer_services.clone()),
            call_limits: config.call_limits.clone(),
            catalog_changes: config.catalog_refresh.as_ref().map(|r| r.changes.clone()),
            roots: Arc::new(config.roots.for_caller(caller.as_deref())),
            roots_gate: Arc::new(super::roots::Gate::new()),
            roots_notices: Default::default(),
            no_workspace_reason: config.no_workspace_reason.as_deref().map(Arc::from),
            conversations: config.conversations.clone(),
            conversation,
            per_request: requested.per_request,
            give_back,
        })
    }

    /// The conversation the session serves, if it keeps one.
    pub fn conversation(&self) -> Option<String> {
        self.conversation.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Refuses a request naming a conversation (header or `_meta`) other than the
    /// session's, or any conversation when none are kept.
    async fn check_conversation(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Every value: a second header must not hide behind the first.
        let headers: Vec<&str> = context
            .extensions
            .get::<axum::http::request::Parts>()
            .map(|p| {
                p.headers
                    .get_all(super::conversations::HEADER)
                    .iter()
                    .map(|v| v.to_str().unwrap_or("(not text)"))
                    .collect()
            })
            .unwrap_or_default();
        let meta = context.meta.get(super::conversations::META_KEY);
        if let Some(v) = meta
            && !v.is_string()
        {
            return Err(McpError::invalid_params(
                format!(
                    "_meta[\"{}\"] must be a string (a conversation key)",
                    super::conversations::META_KEY
                ),
                None,
            ));
        }
        let serving = self.conversation();
        if self.per_request
            && let Some(named) = meta.and_then(Value::as_str)
            && serving.is_none()
            && headers.is_empty()
        {
            // This server exists for this request alone: it serves what it names.
            return self.bind_named(context, named.to_string()).await;
        }
        for named in headers.into_iter().chain(meta.and_then(Value::as_str)) {
            match &serving {
                None => return Err(protocol_error(&no_conversations())),
                Some(s) if s != named && self.per_request => {
                    return Err(McpError::invalid_params(
                        format!(
                            "the request names two conversations ('{s}' and another) in its Filestore-Conversation header and _meta[\"{}\"]: name one",
                            super::conversations::META_KEY
                        ),
                        None,
                    ));
                }
                Some(s) if s != named => {
                    return Err(McpError::invalid_params(
                        format!(
                            "this MCP session serves conversation '{s}'; a request naming another conversation needs a session of its own (initialize with the Filestore-Conversation header or _meta[\"{}\"])",
                            super::conversations::META_KEY
                        ),
                        None,
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Binds the session to the conversation its `initialize` names in `_meta`, when
    /// the request creating it named none.
    async fn bind_initialize(
        &self,
        context: &RequestContext<RoleServer>,
        in_params: Option<&str>,
    ) -> Result<(), McpError> {
        let named = context.meta.get(super::conversations::META_KEY).and_then(Value::as_str);
        let Some(named) = named.or(in_params) else {
            return self.check_conversation(context).await;
        };
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let header = parts.and_then(|p| p.headers.get(super::conversations::HEADER));
        if header.is_some() || self.conversation().as_deref() == Some(named) {
            return self.check_conversation(context).await;
        }
        // Refused there too when the server keeps no conversations.
        self.bind_named(context, named.to_string()).await
    }

    /// Serves the conversation `named` (for the request's caller) from now on.
    async fn bind_named(
        &self,
        context: &RequestContext<RoleServer>,
        named: String,
    ) -> Result<(), McpError> {
        let Some(conversations) = self.conversations.clone() else {
            return Err(protocol_error(&no_conversations()));
        };
        let caller = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|p| p.extensions.get::<super::http::identity::Identity>())
            .map(|i| i.segment.clone());
        let name = named.clone();
        self.on_sandbox(move |s| -> crate::Result<()> {
            let bound = conversations.bind(caller.as_deref(), Some(&named))?;
            s.rebind(bound)
        })
        .await?
        .map_err(|e| protocol_error(&e))?;
        *self.conversation.lock().unwrap_or_else(|p| p.into_inner()) = Some(name);
        Ok(())
    }

    /// Runs `f` on the sandbox off the runtime's workers, once the client's roots
    /// (if they are being applied) are.
    async fn with_sandbox<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Sandbox) -> T + Send + 'static,
    ) -> Result<T, McpError> {
        // Not on the stdio fast path: it runs only while the gate is open (checked
        // before, `roots_settled`), and waiting there could never end, since the
        // client's answer with its roots is on the input its thread would read.
        if !super::stdio::fast_call::on_fast_path() {
            self.roots_gate.wait().await.map_err(|m| McpError::internal_error(m, None))?;
        }
        self.on_sandbox(f).await
    }

    /// [`FilestoreServer::with_sandbox`] without waiting for the roots: for
    /// applying them.
    ///
    /// On a multi-threaded runtime the work runs in place ([`block_in_place`]): the
    /// worker's other tasks move to another thread for as long as it runs, so a long
    /// call holds up nothing else (other sessions, this one's cancellation watch),
    /// while a short one (most calls take microseconds) pays no hand-off to the
    /// blocking pool and back. A current-thread runtime (some embedders and tests)
    /// cannot lend its thread: there the work goes to the blocking pool.
    ///
    /// [`block_in_place`]: tokio::task::block_in_place
    async fn on_sandbox<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Sandbox) -> T + Send + 'static,
    ) -> Result<T, McpError> {
        let sandbox = self.sandbox.clone();
        let failed = |e: &dyn std::fmt::Display| {
            McpError::internal_error(format!("sandbox task failed: {e}"), None)
        };
        // Every request's work, then the sandbox made small again if it grew large.
        let f = move |s: &mut Sandbox| {
            let out = f(s);
            s.reclaim();
            out
        };
        if super::stdio::fast_call::on_fast_path() {
            // The stdio reader thread answering a call itself: its own to block.
            let run = std::panic::AssertUnwindSafe(|| f(&mut lock(&sandbox)));
            return std::panic::catch_unwind(run).map_err(|p| failed(&panic_message(p.as_ref())));
        }
        if lends_threads() {
            let run = std::panic::AssertUnwindSafe(|| {
                tokio::task::block_in_place(|| f(&mut lock(&sandbox)))
            });
            return std::panic::catch_unwind(run).map_err(|p| failed(&panic_message(p.as_ref())));
        }
        tokio::task::spawn_blocking(move || f(&mut lock(&sandbox))).await.map_err(|e| failed(&e))
    }

    /// Whether the client's roots are applied (none being listed or mounted, no
    /// `roots/list_changed` on its way to the handler): what the stdio fast path
    /// needs to run a call now (`super::stdio::fast`).
    pub(crate) fn roots_settled(&self) -> bool {
        self.roots_notices.load(std::sync::atomic::Ordering::SeqCst) == 0
            && self.roots_gate.is_open()
    }

    /// A `roots/list_changed` was handed to rmcp: the roots are unsettled until
    /// [`FilestoreServer::on_roots_list_changed`] takes it up (and closes the gate
    /// while it applies them).
    pub(crate) fn roots_notice_sent(&self) {
        self.roots_notices.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// How many tools the session offers now.
    pub fn tool_count(&self) -> usize {
        lock(&self.sandbox).tools().map_or(0, |t| t.len())
    }

    /// The skills' names that no tool of the session answers to (see
    /// [`crate::Session::skill_orphans`]).
    pub fn skill_orphans(&self) -> crate::Result<Vec<filestore_guest::invoke::SkillOrphan>> {
        lock(&self.sandbox).synced()?.skill_orphans()
    }

    /// Mount points and whether each is read-only, in mount order.
    pub fn mounts(&self) -> Vec<(String, bool)> {
        lock(&self.sandbox).mounts.iter().map(|m| (m.point.clone(), m.read_only)).collect()
    }
}

/// The sandbox of a 2026-07-28 request naming the conversation `key` (`named` by
/// `caller`): the one an earlier request of it left in `cache` when that one is
/// current with the conversation's document (read here, once for the request),
/// else a new one. A cancellation meant for the previous request is cleared.
fn cached_sandbox(
    config: &ServerConfig,
    cache: &super::sandbox_cache::SandboxCache,
    conversations: &Arc<super::conversations::Conversations>,
    caller: Option<&str>,
    key: &crate::conversation::ConversationKey,
    named: &str,
) -> crate::Result<Arc<Mutex<Sandbox>>> {
    let doc = conversations.load(key)?;
    let current = super::conversations::Stamp::of(doc.as_ref());
    if let Some(sandbox) = cache.take(key, current) {
        let mut s = lock(&sandbox);
        if let Some(bound) = &mut s.conversation {
            bound.preload(doc);
        }
        s.cancel_flag().store(false, std::sync::atomic::Ordering::SeqCst);
        drop(s);
        return Ok(sandbox);
    }
    let mut bound = conversations.bind(caller, Some(named))?;
    bound.preload(doc);
    let cancel = Arc::new(std::sync::atomic::AtomicBool::new(false));
    Ok(Arc::new(Mutex::new(Sandbox::new(config, cancel, Some(bound), Vec::new())?)))
}

/// Whether blocking work can run in place: in a task of a multi-threaded runtime,
/// which runs on one of its workers (rmcp runs every handler in a task of its own;
/// the root future of a `Handle::block_on` may be on any thread, where
/// `block_in_place` would panic).
fn lends_threads() -> bool {
    tokio::task::try_id().is_some()
        && tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread)
}

/// The message of a panic caught from sandbox work.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)");
    format!("it panicked: {text}")
}

/// The `_meta` key that marks a tool as requiring the user's approval (MCP tool
/// annotations have no such hint; a client reading `_meta` can tell before calling).
pub const REQUIRES_APPROVAL_META: &str = "filestore/requiresApproval";

/// A tool spec from the session as an MCP tool.
fn to_tool(mut spec: Value) -> Result<Tool, McpError> {
    // A configured tool's `annotations.title` is also its MCP `title`.
    if spec.get("title").is_none()
        && let Some(t) = spec["annotations"]["title"].as_str().map(str::to_string)
    {
        spec["title"] = Value::String(t);
    }
    // `requiresApproval` is filestore's own annotation: MCP's would drop it, so it
    // travels in `_meta` and, for clients that show only text, in the description.
    if spec["annotations"]["requiresApproval"] == Value::Bool(true) {
        spec["_meta"] = json!({ REQUIRES_APPROVAL_META: true });
        let described = spec["description"].as_str().unwrap_or_default().trim_end().to_string();
        spec["description"] = Value::String(format!(
            "{described} Requires the user's approval: the server asks before it runs."
        ));
    }
    serde_json::from_value::<Tool>(spec.clone()).map_err(|e| {
        McpError::internal_error(format!("tool spec is not a valid MCP tool ({e}): {spec}"), None)
    })
}

/// What a running shell command printed, for the progress notifications of its call:
/// only what its answer can show (the first
/// [`MAX_INLINE_BYTES`](filestore_guest::shell::limits::MAX_INLINE_BYTES) of each
/// stream), and of that only the end since the last notification (at most
/// [`Tail::MAX_BYTES`](crate::shell_output::Tail::MAX_BYTES)).
#[derive(Default)]
struct ProgressOutput {
    tail: crate::shell_output::Tail,
    stdout: usize,
    stderr: usize,
}

impl ProgressOutput {
    fn push(&mut self, chunk: crate::shell_output::OutputChunk<'_>) {
        let seen = match chunk.stream {
            crate::shell_output::OutputStream::Stdout => &mut self.stdout,
            crate::shell_output::OutputStream::Stderr => &mut self.stderr,
        };
        let room = filestore_guest::shell::limits::MAX_INLINE_BYTES.saturating_sub(*seen);
        let bytes = &chunk.bytes[..chunk.bytes.len().min(room)];
        *seen += bytes.len();
        if !bytes.is_empty() {
            self.tail.push(crate::shell_output::OutputChunk { stream: chunk.stream, bytes });
        }
    }
}

fn lock_output(o: &Mutex<ProgressOutput>) -> MutexGuard<'_, ProgressOutput> {
    o.lock().unwrap_or_else(|p| p.into_inner())
}

/// How often a long call with a `progressToken` reports that it is still running.
pub const PROGRESS_INTERVAL: Duration = Duration::from_secs(1);

/// How often a `subscriptions/listen` stream reads its conversation's state for
/// tool-list changes made by other requests (other replicas included).
pub const LISTEN_POLL: Duration = Duration::from_secs(2);

/// Whether the request speaks MCP 2026-07-28 or later (approvals are then asked
/// with an `input_required` result, never a request to the client).
fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str())
}

impl FilestoreServer {
    /// A slot among the caller's concurrent calls (`--max-calls-per-identity`),
    /// held until dropped; the failed result when the caller has none left.
    fn call_slot(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<Option<super::http::auth::CallSlot>, Box<CallToolResult>> {
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let caller = parts.and_then(|p| p.extensions.get::<super::http::identity::Identity>());
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
        super::http::service_tokens::claims_for(
            parts.and_then(|p| p.extensions.get::<super::http::identity::Identity>()),
            &self.bearer_services,
            parts.and_then(|p| p.extensions.get::<super::http::service_tokens::ServiceClaims>()),
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
        let (cancel, running, ct) = (self.cancel.clone(), self.running.clone(), context.ct.clone());
        // A task woken per call is a wake-up of another thread: not spent where no
        // cancellation can arrive.
        let cancellable = !super::stdio::fast_call::on_fast_path();
        let watcher = cancellable.then(|| {
            tokio::spawn(async move {
                ct.cancelled().await;
                // Until aborted: the call may not have started yet, and each call clears
                // the flag when it starts.
                loop {
                    if *running.lock().unwrap_or_else(|p| p.into_inner()) == ticket {
                        cancel.store(true, std::sync::atomic::Ordering::SeqCst);
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            })
        });
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
        let decision = ask_approval(&context.peer, tool, args).await;
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
    #[allow(deprecated)] // logging: see super::logging
    async fn tell_storage_failure(&self, context: &RequestContext<RoleServer>, message: String) {
        if !is_modern(context) {
            super::logging::log(&context.peer, &self.log_level, LoggingLevel::Error, message).await;
            return;
        }
        let level = context
            .meta
            .get("io.modelcontextprotocol/logLevel")
            .and_then(|l| serde_json::from_value::<LoggingLevel>(l.clone()).ok());
        if let Some(level) = level {
            let threshold = super::logging::LogThreshold::default();
            threshold.set(level);
            super::logging::log(&context.peer, &threshold, LoggingLevel::Error, message).await;
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

    /// Mounts the client's roots at `/workspace` when it offers roots and the user
    /// left `/workspace` to them, as far as the session's [`RootsPolicy`] allows
    /// (see [`super::roots`]).
    ///
    /// [`RootsPolicy`]: super::roots::RootsPolicy
    #[allow(deprecated)] // roots: see super::roots
    async fn apply_roots(&self, peer: &Peer<RoleServer>) {
        if *self.roots == super::roots::RootsPolicy::Off {
            return;
        }
        let offers_roots = peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        if !offers_roots {
            if let Some(reason) = &self.no_workspace_reason {
                let m = format!("no /workspace: {reason}; the client offers no MCP roots either");
                eprintln!("filestore serve: {m}");
                self.warn(peer, m).await;
            }
            return;
        }
        if !self.roots.reads_roots() {
            self.say_roots_ignored(peer).await;
            return;
        }
        let _turn = self.roots_gate.turn().await;
        let (args, mut skipped) = self.requested_mounts(peer).await;
        skipped.extend(self.mount_roots(args).await);
        for s in skipped {
            eprintln!("filestore serve: skipped {s}");
            self.warn(peer, format!("skipped {s}")).await;
        }
    }

    /// The mounts of the client's roots that the policy allows, and a message for
    /// each root left out. When the roots cannot be had, none: what the client wants
    /// at /workspace is unknown, and the directory the server was started in is not
    /// its choice.
    #[allow(deprecated)] // roots: see super::roots
    async fn requested_mounts(
        &self,
        peer: &Peer<RoleServer>,
    ) -> (Vec<super::roots::RootMount>, Vec<String>) {
        let timeout = super::roots::ROOTS_LIST_TIMEOUT;
        match tokio::time::timeout(timeout, peer.list_roots()).await {
            Ok(Ok(r)) => {
                // Checked and opened off the async runtime (file system calls).
                let policy = self.roots.clone();
                let checked = tokio::task::spawn_blocking(move || {
                    super::roots::mount_args(&r.roots, super::DEFAULT_WORKSPACE, &policy)
                });
                checked.await.unwrap_or_else(|e| {
                    (Vec::new(), vec![format!("every root: checking them failed ({e})")])
                })
            }
            Ok(Err(e)) => (Vec::new(), vec![format!("every root: roots/list failed ({e})")]),
            Err(_) => (
                Vec::new(),
                vec![format!(
                    "every root: the client did not answer roots/list within {} s",
                    timeout.as_secs()
                )],
            ),
        }
    }

    /// Mounts `roots` at /workspace in place of what is there (nothing, for none);
    /// a message when they could not be mounted.
    async fn mount_roots(&self, roots: Vec<super::roots::RootMount>) -> Vec<String> {
        let result = self
            .on_sandbox(move |s| -> crate::Result<Vec<String>> {
                let specs: Vec<MountSpec> =
                    roots.into_iter().map(super::roots::RootMount::mount).collect();
                let mut unopened = Vec::new();
                if specs.is_empty() {
                    s.replace_workspace(specs)?;
                } else if let Err(e) = s.replace_workspace(specs) {
                    // Roots the other mounts rule out (inside a writable mount, say):
                    // no /workspace rather than a session that serves nothing.
                    s.replace_workspace(Vec::new())?;
                    unopened.push(format!(
                        "every root: they cannot be mounted with the server's mounts ({e})"
                    ));
                }
                Ok(unopened)
            })
            .await;
        match result {
            Ok(Ok(unopened)) => unopened,
            Ok(Err(e)) => vec![format!("every root: the session could not be rebuilt ({e})")],
            Err(e) => vec![format!("every root: {}", e.message)],
        }
    }

    /// Tells the operator (once per process) and the client (once per session)
    /// that a remote client's roots do not choose `/workspace`.
    async fn say_roots_ignored(&self, peer: &Peer<RoleServer>) {
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            eprintln!(
                "filestore serve: a client offers MCP roots; over HTTP they are ignored unless --http-roots-within allows directories (said once)"
            );
        });
        let m = "the client's MCP roots are ignored: over HTTP a client does not choose the server's directories (the operator can allow some with --http-roots-within); /workspace is what the server mounted";
        self.warn(peer, m.to_string()).await;
    }

    /// A warning to the client as a log message (see [`super::logging`]).
    #[allow(deprecated)] // logging: see super::logging
    async fn warn(&self, peer: &Peer<RoleServer>, message: String) {
        super::logging::log(peer, &self.log_level, LoggingLevel::Warning, message).await;
    }
}

#[allow(deprecated)] // logging and roots: see super::logging, super::roots
impl ServerHandler for FilestoreServer {
    /// Notes whether the client's roots will be read: if so, requests that reach
    /// the sandbox wait until `initialized` applied them.
    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        // A session another replica created, taken over here (rmcp replays its
        // `initialize` from the store, stored_sessions.rs): its conversation is in the
        // parameters' `_meta`, not in a request's.
        let restored = request.meta.as_ref().and_then(|m| m.0.get(super::conversations::META_KEY));
        self.bind_initialize(&context, restored.and_then(Value::as_str)).await?;
        if request.capabilities.roots.is_some() && self.roots.reads_roots() {
            self.roots_gate.expect_first();
        }
        let mut result = self.negotiate_initialize(&request)?;
        // The conversation served, so a client that named none can name it again
        // (after a reconnect, on another replica).
        if let Some(name) = self.conversation() {
            let mut meta = result.meta.take().unwrap_or_default();
            meta.insert(super::conversations::META_KEY.into(), Value::String(name));
            result.meta = Some(meta);
        }
        Ok(result)
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        // Released once the roots are applied (or found unusable).
        let _first = self.roots_gate.take_first();
        let warnings = lock(&self.sandbox).startup_warnings.clone();
        for w in warnings {
            self.warn(&context.peer, w).await;
        }
        if let Some(mut changes) = self.catalog_changes.clone() {
            // An upstream tool list changed: the client re-lists, and the listing
            // re-resolves the agent (Sandbox::session). Ends with the connection.
            changes.mark_unchanged();
            let peer = context.peer.clone();
            tokio::spawn(async move {
                while changes.changed().await.is_ok() {
                    if peer.notify_tool_list_changed().await.is_err() {
                        break;
                    }
                }
            });
        }
        self.apply_roots(&context.peer).await;
    }

    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.log_level.set(request.level);
        Ok(())
    }

    /// Requests arriving meanwhile wait for the new roots; a call already running
    /// ends on the previous ones (also the client's choice).
    /// A flood of these rebuilds the session at most once per
    /// [`super::roots::ROOTS_MIN_INTERVAL`]: one application waits behind the one under
    /// way, and notifications meanwhile are taken together with it. Where roots are
    /// not read (over HTTP without `--http-roots-within`), nothing changes: the client
    /// was told at `initialized`.
    async fn on_roots_list_changed(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        // Taken up: the gate below (or the application already waiting) now stands
        // for it (see `roots_notice_sent`).
        let taken = || {
            let _ = self.roots_notices.fetch_update(
                std::sync::atomic::Ordering::SeqCst,
                std::sync::atomic::Ordering::SeqCst,
                |n| n.checked_sub(1),
            );
        };
        if !self.roots.reads_roots() || !self.roots_gate.queue() {
            taken();
            return;
        }
        let _applying = self.roots_gate.hold();
        taken();
        self.apply_roots(&context.peer).await;
    }

    /// The stand-in for a stdio message too large to read ([`super::stdio::guard`]) is
    /// answered with an error saying so; any other unknown method is not found.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, McpError> {
        if request.method == super::stdio::guard::TOO_LARGE_METHOD {
            let params = request.params.unwrap_or_default();
            return Err(McpError::new(
                rmcp::model::ErrorCode::INVALID_REQUEST,
                format!(
                    "error[too-large]: the message was {} bytes; one message over stdio may be at most {} bytes. Nothing was done. Write large content in parts (e.g. several files), or mount the directory that holds it",
                    params["bytes"], params["limit"]
                ),
                Some(params),
            ));
        }
        // rmcp hands a request it could not parse as its known method here: for an
        // MCP method that is invalid params (-32602, with the reason), not "not found".
        let params = request.params.clone().unwrap_or(Value::Null);
        let reason = match request.method.as_str() {
            "tools/call" => {
                Some(serde_json::from_value::<rmcp::model::CallToolRequestParams>(params).err())
            }
            "resources/read" => {
                Some(serde_json::from_value::<rmcp::model::ReadResourceRequestParams>(params).err())
            }
            "prompts/get" => {
                Some(serde_json::from_value::<rmcp::model::GetPromptRequestParams>(params).err())
            }
            "resources/list" | "tools/list" | "prompts/list" => Some(
                serde_json::from_value::<Option<rmcp::model::PaginatedRequestParams>>(params).err(),
            ),
            _ => None,
        };
        match reason {
            Some(why) => Err(McpError::invalid_params(
                format!(
                    "invalid params for '{}': {}",
                    request.method,
                    why.map_or_else(|| "not a valid request".to_string(), |e| e.to_string())
                ),
                None,
            )),
            None => Err(McpError::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!("method '{}' not found", request.method),
                None,
            )),
        }
    }

    /// `subscriptions/listen` (MCP 2026-07-28): tool-list changes only, the one
    /// list that changes here (skills, upstream catalogs).
    fn accepted_subscription_filter(
        &self,
        _requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(rmcp::model::SubscriptionFilter::builder().tools_list_changed().build())
    }

    /// Tells the listener each time the tool list of the conversation the listen
    /// request names changes: a skill activated by any request of it, on any
    /// replica (its state is read every [`LISTEN_POLL`]), or an upstream catalog.
    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), McpError> {
        self.check_conversation(context.request_context()).await?;
        let mut catalog = self.catalog_changes.clone();
        let names = |s: &mut Sandbox| -> crate::Result<Vec<Value>> { s.tools() };
        let mut seen = self.with_sandbox(names).await?.map_err(|e| protocol_error(&e))?;
        loop {
            tokio::select! {
                _ = context.cancelled() => return Ok(()),
                _ = tokio::time::sleep(LISTEN_POLL) => {}
                _ = async {
                    match &mut catalog {
                        Some(c) => { let _ = c.changed().await; }
                        None => std::future::pending::<()>().await,
                    }
                } => {}
            }
            let now = self.with_sandbox(names).await?.map_err(|e| protocol_error(&e))?;
            if now != seen {
                seen = now;
                if context.sink().notify_tool_list_changed().await.is_err() {
                    return Ok(());
                }
            }
        }
    }

    fn get_info(&self) -> McpServerInfo {
        McpServerInfo::new(
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_resources()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_logging()
                .build(),
        )
        .with_server_info(Implementation::new("filestore", env!("CARGO_PKG_VERSION")))
        .with_instructions(SERVER_INSTRUCTIONS)
    }

    /// Protocol revisions up to 2026-07-28. Under 2026-07-28 there are no sessions:
    /// over HTTP each request gets a server (and sandbox) of its own, and what
    /// persists between requests is the conversation the request names in the
    /// store of `serve --state` (see [`super::conversations`]).
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.check_conversation(&context).await?;
        let specs = self.with_sandbox(|s| s.tools()).await?.map_err(|e| protocol_error(&e))?;
        let tools = specs.into_iter().map(to_tool).collect::<Result<Vec<_>, _>>()?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    /// A call, step by step: the conversation checked (or an approval's retry
    /// answered), the cancellation and progress watch started, a slot among the
    /// caller's calls taken, the tool run on the sandbox, an approval asked if the
    /// tool needs one, and the outcome told (list changes, storage failures) and
    /// returned.
    async fn call_tool(
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
        // The arguments go in and come back (an approval prompt shows them): no copy.
        let called = self
            .with_sandbox(move |s| {
                *running.lock().unwrap_or_else(|p| p.into_inner()) = ticket;
                let sink = output.map(|o| -> crate::shell_output::OutputSink {
                    Box::new(move |chunk: crate::shell_output::OutputChunk<'_>| {
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
            // The client re-lists on this; a closed connection just drops it. Under
            // 2026-07-28 notices travel only on `subscriptions/listen` streams.
            let _ = context.peer.notify_tool_list_changed().await;
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
                self.with_sandbox(move |s| super::media::attach(s, &json, result)).await?
            }
            // A PDF's pages drawn as images: PNG content beside the text.
            Ok(out) if tool == "filestore_read" && out.json["content"] == "pdf" => {
                super::media::pdf_pages(out)
            }
            Ok(out) => success(out),
            Err(e) => failure(&e, called.poisoned),
        }
        .into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.check_conversation(&context).await?;
        // The configured prompts (Toolbox `kind: prompt`) follow the built-in one.
        let configured = self
            .with_sandbox(|s| -> crate::Result<_> { s.session()?.prompts() })
            .await?
            .map_err(|e| protocol_error(&e))?;
        let mut all = vec![super::prompt::prompt()];
        all.extend(configured.into_iter().map(super::prompt::configured));
        Ok(ListPromptsResult::with_all_items(all))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        self.check_conversation(&context).await?;
        if request.name != super::INSTRUCTIONS_PROMPT {
            let name = request.name.clone();
            let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
            let rendered = self
                .with_sandbox(move |s| -> crate::Result<_> {
                    s.session()?.get_prompt(&name, &args)
                })
                .await?;
            return match rendered {
                Ok(messages) => Ok(super::prompt::configured_result(messages).into()),
                // An unknown name or a bad argument is the client's mistake.
                Err(crate::Error::Filestore(e))
                    if matches!(
                        e.kind(),
                        filestore_guest::error::ErrorKind::NotFound
                            | filestore_guest::error::ErrorKind::InvalidArgument
                    ) =>
                {
                    Err(McpError::invalid_params(
                        format!(
                            "{} (and the built-in '{}')",
                            e.message(),
                            super::INSTRUCTIONS_PROMPT
                        ),
                        None,
                    ))
                }
                Err(e) => Err(protocol_error(&e)),
            };
        }
        let args = super::prompt::PromptArgs::parse(request.arguments.as_ref())?;
        let result = self
            .with_sandbox(move |s| super::prompt::render(s, &args))
            .await?
            .map_err(|e| protocol_error(&e))?;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.check_conversation(&context).await?;
        let cursor = request.and_then(|r| r.cursor);
        self.with_sandbox(move |s| super::resources::list(s, cursor.as_deref())).await?
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.check_conversation(&context).await?;
        let (uri, modern) = (request.uri, is_modern(&context));
        let result = self.with_sandbox(move |s| super::resources::read(s, &uri, modern)).await??;
        Ok(result.into())
    }
}
