//! The MCP handler: one sandboxed session per MCP session, tools listed and called
//! through the session's generic entry points.
//!
//! [`FilestoreServer`] is here with what every request goes through: its creation
//! (the sandbox, a conversation's cached one included) and running work on the
//! sandbox off the async runtime's workers. The rest are its methods by concern:
//! [`handler`] (the rmcp `ServerHandler`: each MCP request), [`call`] (a tool call:
//! cancellation, progress, per-identity slots, approvals), [`conversation`] (which
//! conversation a request names) and [`client_roots`] (the client's roots as
//! `/workspace`).

use std::sync::{Arc, Mutex};

use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};

use super::conversations::no_conversations;
use super::sandbox::{Sandbox, lock};
use crate::server_config::ServerConfig;

mod call;
mod client_roots;
mod conversation;
mod handler;

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
    /// Auth services whose claims are the bearer token's (see [`ServerConfig`]).
    bearer_services: Arc<Vec<String>>,
    /// Concurrent calls per identity (see [`ServerConfig`]).
    call_limits: Option<Arc<super::http::auth::CallLimits>>,
    /// Upstream catalog changes (see [`crate::config::CatalogRefresh`]): watched once the
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
    key: filestore_store::conversation::ConversationKey,
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

impl FilestoreServer {
    /// A server over a new sandboxed session built from `config`.
    pub fn new(config: &ServerConfig) -> filestore_runtime::Result<FilestoreServer> {
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
                    let mut sandbox =
                        Sandbox::new(config.sandbox_source(), cancel, bound, ephemeral)?;
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

    /// Runs `f` on the sandbox off the runtime's workers, once the client's roots
    /// (if they are being applied) are.
    async fn with_sandbox<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Sandbox) -> T + Send + 'static,
    ) -> Result<T, McpError> {
        // Not on the stdio fast path's reader: it runs only while the gate is open
        // (checked before, `roots_settled`), and waiting there could never end, since
        // the client's answer with its roots is on the input its thread would read.
        if !crate::fast_call::on_reader() {
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
        if crate::fast_call::on_reader() || crate::fast_call::on_executor() {
            // A thread of the stdio fast path running a call (in the runtime's
            // `block_on`): its own to block. Out of the runtime's context, though, as
            // on a worker: WASI's blocking calls (a `sleep`'s poll) run a `block_on`
            // of their own, which tokio refuses within another. Off a worker this is
            // only that, no hand-off.
            let run = std::panic::AssertUnwindSafe(|| {
                tokio::task::block_in_place(|| f(&mut lock(&sandbox)))
            });
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
    /// [`filestore_runtime::Session::skill_orphans`]).
    pub fn skill_orphans(
        &self,
    ) -> filestore_runtime::Result<Vec<filestore_guest::invoke::SkillOrphan>> {
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
    key: &filestore_store::conversation::ConversationKey,
    named: &str,
) -> filestore_runtime::Result<Arc<Mutex<Sandbox>>> {
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
    Ok(Arc::new(Mutex::new(Sandbox::new(
        config.sandbox_source(),
        cancel,
        Some(bound),
        Vec::new(),
    )?)))
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
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)");
    format!("it panicked: {text}")
}

/// Whether the request speaks MCP 2026-07-28 or later (approvals are then asked
/// with an `input_required` result, never a request to the client).
fn is_modern(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str())
}
