//! Provider `mcp`: tools of other MCP servers, as agent tool refs
//! `tools.mcp.{server}.{tool}.{connection}`.
//!
//! An agent configuration declares its upstream servers (docs/agents.md): a command the host starts (stdio) or a streamable-HTTP URL, each
//! with named connections (credentials: `env` for a command, `headers` for a URL).
//! [`McpProvider`] holds one MCP client per (server, connection) in use:
//!
//! - **Connecting** is lazy and happens on the component's first `check-connection`
//!   for the pair (at agent load, so at `filestore serve` start): start or reach the
//!   server, `initialize`, `tools/list`. A failure is the check's error, which the
//!   component reports located at the ref; a disabled connection, a missing
//!   `${VAR}` or an HTTP 401/403 is `inactive`, with the reason.
//! - **The catalog** (each tool's description, input schema, annotations) is what
//!   `check-connection` answers; an upstream `notifications/tools/list_changed`
//!   re-lists it and bumps [`McpProvider::changes`], so servers built on it
//!   re-resolve their agent and tell their own clients.
//! - **Calls** run `tools/call` under the server's timeout; a call that overruns is
//!   abandoned, which sends the upstream `notifications/cancelled`. A connection
//!   that died (the process exited mid-call) is dropped and made anew on the next use;
//!   the error names the server and ends with the last lines of its stderr.
//! - **Results**: `structuredContent` when given (a one-member wrapper of exactly
//!   what the text content says, such as `{"result": text}` or `{"result": 3}` with
//!   the text `3`, is unwrapped to that value), else the text of a text-only
//!   result, else `{"content": [...]}` with the blocks as MCP sent them;
//!   `isError: true` is a `backend` error carrying the tool's text.
//!
//! **Security.** Upstream servers are trusted programs and endpoints the operator
//! declared; what they return is untrusted data that the component stores and bounds
//! like every tool result. A stdio server inherits only [`spec::INHERITED_ENV`] from
//! the host plus its declared `env`. Connections are shared by every session of the
//! process: an upstream server sees one client, the host.
//!
//! **Redaction.** The values a connection's `${VAR}` resolved to (its `env`,
//! `headers`, `url`, `args`) are removed from everything of the upstream's that
//! reaches the agent or the logs. Calls' results and errors, and the errors and
//! inactive reasons of connection checks, are redacted by the registry, the one
//! place where host text becomes agent text ([`filestore_runtime::tools::redaction`]; this
//! provider tells it the values, [`ToolProvider::secrets`]). What the registry
//! cannot see is redacted here: text that is cut as it is taken in (a cut could
//! split a secret: the stderr tail [`stderr`] and a skipped stdout line [`stdio`],
//! through [`upstream_text`]), the catalog's names, descriptions, titles and
//! schemas (listed, and bounded, before any call: [`Catalog::new`]), and warnings,
//! which go to the operator's log ([`warn`]).
//!
//! It stays above 800 lines because [`McpProvider`]'s lifecycle (a lazy connect, the
//! catalog, calls and their cancellation, the process group's shutdown) is one impl
//! over one upstream map; the stdio transport, the stderr tail, the spec and the
//! catalog's bounds are the modules beside it.

pub mod catalog;
pub mod spec;
pub mod stderr;
pub mod stdio;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientConfig,
    ContentBlock, Implementation, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceError};
use serde_json::{Value, json};

use catalog::Catalog;
use filestore_runtime::tools::ConnectionStatus;
use filestore_runtime::tools::{
    CallRef, Secret, ToolError, ToolProvider, ToolRequest, redact, redact_prefix,
};
use spec::{Endpoint, Resolved, ServerDecl};
use stderr::StderrTail;

/// The provider segment of the refs this provider answers.
pub const PROVIDER: &str = "mcp";

/// How many warnings the provider keeps: an upstream that keeps failing differently
/// (re-listings after `list_changed`) must not grow them without end.
const MAX_WARNINGS: usize = 256;
/// The longest warning kept, in characters.
const MAX_WARNING_CHARS: usize = 1000;

/// The longest closing waits for one connection to end (see [`McpProvider::close`]).
const CLOSE_WAIT: Duration = Duration::from_secs(5);

/// The protocol version offered upstream: the newest with `initialize`, which every
/// server of the last two years answers.
const PROTOCOL: ProtocolVersion = ProtocolVersion::V_2025_11_25;

type Key = (String, String);

/// Where `${VAR}` values come from.
pub type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// One (server, connection)'s live connection, made once at a time.
type Slot = Arc<tokio::sync::Mutex<Option<Arc<Upstream>>>>;

/// The `mcp` provider: upstream MCP servers of one agent configuration.
pub struct McpProvider {
    /// Taken when the provider is dropped, to be shut down off any async context.
    runtime: Option<tokio::runtime::Runtime>,
    servers: HashMap<String, ServerDecl>,
    base_dir: PathBuf,
    env: EnvLookup,
    slots: Mutex<HashMap<Key, Slot>>,
    changes: Arc<tokio::sync::watch::Sender<u64>>,
    warnings: Arc<Mutex<Vec<String>>>,
}

impl std::fmt::Debug for McpProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpProvider").field("servers", &self.servers.keys()).finish()
    }
}

/// One live connection.
struct Upstream {
    service: RunningService<RoleClient, Client>,
    /// The catalog, replaced on `list_changed`.
    catalog: Arc<Mutex<Arc<Catalog>>>,
    stderr: Arc<Mutex<StderrTail>>,
    /// What a stdio server wrote on stdout that was not a message (see `stdio`).
    skipped: Arc<Mutex<stdio::Skipped>>,
    resolved: Resolved,
    /// A stdio server's process group, stopped with the connection.
    _group: GroupGuard,
}

/// The process group a stdio server is started in (its own, led by it), so that
/// stopping it stops what it started too: `sh -c`, `npx` and `uvx` wrappers leave
/// their real server as a grandchild, which killing the child alone would orphan.
#[derive(Clone, Default)]
struct ProcessGroup(Arc<Mutex<Option<u32>>>);

/// The leaders of the stdio servers' process groups still running, in this process:
/// what [`kill_every_process_group`] stops.
static RUNNING_GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

impl ProcessGroup {
    fn set(&self, leader: Option<u32>) {
        if let Some(id) = leader {
            lock(&RUNNING_GROUPS).push(id);
        }
        *lock(&self.0) = leader;
    }

    /// Kills every process of the group (once).
    fn kill(&self) {
        let Some(id) = lock(&self.0).take() else { return };
        lock(&RUNNING_GROUPS).retain(|&running| running != id);
        kill_group(id);
    }
}

fn kill_group(id: u32) {
    #[cfg(target_os = "linux")]
    if let Some(pid) = rustix::process::Pid::from_raw(id as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = id;
}

/// Kills the process group of every stdio server this process started and has not
/// stopped: for a process ending on a signal (`SIGTERM`), whose connections are
/// never dropped, so their groups would outlive it (each is a group of its own, which
/// a signal to the process, or to its group, does not reach).
pub fn kill_every_process_group() {
    for id in std::mem::take(&mut *lock(&RUNNING_GROUPS)) {
        kill_group(id);
    }
}

/// Stops a [`ProcessGroup`] when dropped: with its connection.
struct GroupGuard(ProcessGroup);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.0.kill();
    }
}

/// The client side of one connection: answers nothing, re-lists on `list_changed`.
#[derive(Clone)]
struct Client {
    catalog: Arc<Mutex<Arc<Catalog>>>,
    changes: Arc<tokio::sync::watch::Sender<u64>>,
    warnings: Arc<Mutex<Vec<String>>>,
    label: String,
    relist: Arc<Mutex<Relist>>,
    /// The connection's secrets, redacted from what the upstream sends.
    secrets: Arc<[Secret]>,
}

/// Re-listing after `list_changed`, coalesced: at most one `tools/list` in flight per
/// connection, and one more after it if notifications came meanwhile. An upstream
/// that sends thousands of notifications costs a few re-lists, not thousands (which
/// would queue every call behind them).
#[derive(Default)]
struct Relist {
    running: bool,
    again: bool,
}

impl rmcp::ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("filestore", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(PROTOCOL)
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        {
            let mut r = lock(&self.relist);
            if r.running {
                r.again = true;
                return;
            }
            r.running = true;
        }
        // Re-listing is a request: made on its own task, so the connection's loop
        // (which delivers its answer) is not waiting on this handler.
        let me = self.clone();
        let peer = context.peer.clone();
        tokio::spawn(async move {
            loop {
                lock(&me.relist).again = false;
                match peer.list_all_tools().await {
                    Ok(tools) => {
                        let catalog = Catalog::new(tools, &me.secrets);
                        note_skipped(&me.warnings, &me.secrets, &me.label, &catalog);
                        let changed = {
                            let mut current = lock(&me.catalog);
                            // The bindings' types compare as their Debug text.
                            let changed = format!("{:?}", current.provider_actions())
                                != format!("{:?}", catalog.provider_actions());
                            *current = Arc::new(catalog);
                            changed
                        };
                        // Only a real change makes every session re-resolve.
                        if changed {
                            me.changes.send_modify(|g| *g += 1);
                        }
                    }
                    Err(e) => warn(
                        &me.warnings,
                        &me.secrets,
                        &format!(
                            "{}: re-listing tools after list_changed: {}",
                            me.label,
                            upstream_error(&e)
                        ),
                    ),
                }
                let mut r = lock(&me.relist);
                if !r.again {
                    r.running = false;
                    break;
                }
            }
        });
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn note_skipped(warnings: &Mutex<Vec<String>>, secrets: &[Secret], label: &str, catalog: &Catalog) {
    for s in &catalog.warnings {
        warn(warnings, secrets, &format!("{label}: {s}"));
    }
}

/// Adds a warning: redacted, bounded, once, and only while fewer than
/// [`MAX_WARNINGS`] are kept. The one way a warning is added.
fn warn(warnings: &Mutex<Vec<String>>, secrets: &[Secret], line: &str) {
    let line = redact(secrets, line);
    let line = match line.char_indices().nth(MAX_WARNING_CHARS) {
        Some((cut, _)) => format!("{}… ({} characters in all)", &line[..cut], line.chars().count()),
        None => line,
    };
    let mut w = lock(warnings);
    if w.len() < MAX_WARNINGS && !w.contains(&line) {
        w.push(line);
    }
}

/// Bytes an upstream wrote (a stderr line, a stdout line) as text for a message:
/// decoded (bytes that are not UTF-8 as `�`) and redacted. `cut`: the bytes are the
/// start of a longer text, so neither a character nor a secret that the cut split
/// is kept.
pub(crate) fn upstream_text(secrets: &[Secret], bytes: &[u8], cut: bool) -> String {
    if !cut {
        return redact(secrets, &String::from_utf8_lossy(bytes));
    }
    redact_prefix(secrets, &String::from_utf8_lossy(without_split_char(bytes)))
}

/// `bytes` without a UTF-8 character cut off at its end (by a bound).
fn without_split_char(bytes: &[u8]) -> &[u8] {
    for back in 1..=bytes.len().min(4) {
        let at = bytes.len() - back;
        let width = match bytes[at] {
            0x80..=0xBF => continue,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if back < width { &bytes[..at] } else { bytes };
    }
    bytes
}

/// An error of the MCP client whose text may carry the upstream's (an HTTP body, a
/// JSON-RPC error message), tidied ([`tidy`]). Not redacted or cut: the registry
/// redacts what reaches an agent, then cuts it; [`warn`] does the same for the log.
fn upstream_error(e: &dyn std::fmt::Display) -> String {
    tidy(&e.to_string())
}

impl McpProvider {
    /// A provider for `servers` (from the component's `check-agent`), resolving their
    /// `${VAR}` from the process environment, relative commands and `cwd` against
    /// `base_dir` (the agent file's directory). Nothing connects yet.
    pub fn new(servers: Vec<ServerDecl>, base_dir: &Path) -> std::io::Result<McpProvider> {
        McpProvider::with_env(servers, base_dir, Arc::new(|k: &str| std::env::var(k).ok()))
    }

    /// [`McpProvider::new`] with `${VAR}` taken from `env`.
    pub fn with_env(
        servers: Vec<ServerDecl>,
        base_dir: &Path,
        env: EnvLookup,
    ) -> std::io::Result<McpProvider> {
        // Its own runtime: the provider is called from plain worker threads (and
        // from inside other runtimes' blocking sections), and its connections need
        // a runtime that keeps running between calls.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("mcp-upstream")
            .enable_all()
            .build()?;
        Ok(McpProvider {
            runtime: Some(runtime),
            servers: servers.into_iter().map(|s| (s.name.clone(), s)).collect(),
            base_dir: base_dir.to_path_buf(),
            env,
            slots: Mutex::new(HashMap::new()),
            changes: Arc::new(tokio::sync::watch::channel(0).0),
            warnings: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// A receiver that sees a new value each time an upstream catalog changed
    /// (`notifications/tools/list_changed`, re-listed).
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Upstream tools left out of catalogs (unusable or clashing names), and failed
    /// re-listings, so far.
    pub fn warnings(&self) -> Vec<String> {
        lock(&self.warnings).clone()
    }

    /// Closes every connection, all at once, from any thread (inside another
    /// runtime too: the server's, as it stops): a stdio server is told to exit (its
    /// stdin closed), killed if it has not within a second, and waited for; its
    /// process group is stopped with it. Each connection gets at most
    /// [`CLOSE_WAIT`]; one a call still holds is cancelled, its group stopped as
    /// that call lets go of it.
    pub fn close(&self) {
        let slots: Vec<_> = lock(&self.slots).drain().map(|(_, s)| s).collect();
        if slots.is_empty() {
            return;
        }
        let closing = slots.into_iter().map(|slot| async move {
            let Ok(mut slot) = tokio::time::timeout(CLOSE_WAIT, slot.lock_owned()).await else {
                return; // still connecting: dropped with the runtime, its child killed
            };
            match slot.take().map(Arc::try_unwrap) {
                Some(Ok(mut up)) => {
                    let _ = up.service.close_with_timeout(CLOSE_WAIT).await;
                }
                Some(Err(shared)) => shared.service.cancellation_token().cancel(),
                None => {}
            }
        });
        self.block_on(futures::future::join_all(closing));
    }

    /// Runs `f` on this provider's runtime from any thread: a thread of its own, so
    /// a caller inside another runtime does not block it.
    fn block_on<T: Send>(&self, f: impl std::future::Future<Output = T> + Send) -> T {
        let runtime = self.runtime.as_ref().expect("the runtime is taken only on drop");
        std::thread::scope(|s| {
            s.spawn(|| runtime.block_on(f)).join().unwrap_or_else(|p| std::panic::resume_unwind(p))
        })
    }

    fn server(&self, call_ref: &CallRef) -> Option<&ServerDecl> {
        self.servers.get(&call_ref.integration)
    }

    /// The live connection of `(server, connection)`, made if needed. `Ok(Err(why))`:
    /// the connection is inactive (disabled, a variable missing, refused credentials).
    async fn upstream(
        &self,
        server: &ServerDecl,
        connection: &str,
    ) -> Result<Result<Arc<Upstream>, String>, ToolError> {
        if server.is_disabled(connection) {
            return Ok(Err(format!(
                "connection '{connection}' of server '{}' is disabled ({})",
                server.name, server.location
            )));
        }
        let key = (server.name.clone(), connection.to_string());
        let slot = lock(&self.slots).entry(key).or_default().clone();
        let mut slot = slot.lock().await;
        if let Some(up) = slot.as_ref() {
            if !up.service.is_transport_closed() {
                return Ok(Ok(up.clone()));
            }
            *slot = None;
        }
        let resolved = match spec::resolve(server, connection, &self.base_dir, &*self.env) {
            Ok(r) => r,
            Err(why) => return Ok(Err(why.to_string())),
        };
        let label = format!("server '{}' (connection '{connection}')", server.name);
        let secrets: Arc<[Secret]> = Arc::from(resolved.secrets.clone());
        // The reasons carry upstream text: the registry redacts them (see the
        // module docs), with this connection's secrets (`ToolProvider::secrets`).
        let up = match self.connect_in_time(&label, resolved, secrets).await {
            Ok(up) => Arc::new(up),
            Err(Failure::Inactive(why)) => return Ok(Err(why)),
            Err(Failure::Error(e)) => return Err(e),
        };
        *slot = Some(up.clone());
        Ok(Ok(up))
    }

    /// [`McpProvider::connect`] within the server's timeout; its process group is
    /// stopped unless it connected.
    async fn connect_in_time(
        &self,
        label: &str,
        resolved: Resolved,
        secrets: Arc<[Secret]>,
    ) -> Result<Upstream, Failure> {
        let timeout = resolved.timeout;
        let group = ProcessGroup::default();
        let stderr = Arc::new(Mutex::new(StderrTail::new(secrets.clone())));
        let skipped = Arc::new(Mutex::new(stdio::Skipped::default()));
        let connecting = self.connect(
            label,
            resolved,
            Io { group: group.clone(), stderr: stderr.clone(), skipped: skipped.clone(), secrets },
        );
        let connected = tokio::time::timeout(timeout, connecting).await;
        if !matches!(connected, Ok(Ok(_))) {
            group.kill();
        }
        connected.unwrap_or_else(|_| {
            Err(Failure::Error(ToolError::limit_exceeded(format!(
                "{label} did not connect, initialize and list its tools within {}{}{}",
                seconds(timeout),
                lock(&skipped).note(),
                stderr_hint(&stderr)
            ))))
        })
    }

    async fn connect(&self, label: &str, resolved: Resolved, io: Io) -> Result<Upstream, Failure> {
        let Io { group, stderr, skipped, secrets } = io;
        let catalog = Arc::new(Mutex::new(Arc::new(Catalog::default())));
        let client = Client {
            catalog: catalog.clone(),
            changes: self.changes.clone(),
            warnings: self.warnings.clone(),
            label: label.to_string(),
            relist: Default::default(),
            secrets: secrets.clone(),
        };
        let service = match &resolved.endpoint {
            Endpoint::Stdio { program, args, env, cwd } => {
                let mut cmd = tokio::process::Command::new(program);
                cmd.args(args).env_clear().envs(env).current_dir(cwd);
                #[cfg(unix)]
                cmd.process_group(0);
                cmd.stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .kill_on_drop(true);
                let mut child = cmd.spawn().map_err(|e| {
                    Failure::Error(ToolError::backend(format!(
                        "{label}: cannot start '{}' in {}: {e}",
                        program.display(),
                        cwd.display()
                    )))
                })?;
                group.set(child.id());
                if let Some(err) = child.stderr.take() {
                    tokio::spawn(stderr::drain(err, stderr.clone()));
                }
                let transport = stdio::StdioTransport::new(child, skipped.clone(), secrets.clone())
                    .map_err(|e| {
                        Failure::Error(ToolError::backend(format!("{label}: cannot start: {e}")))
                    })?;
                client.serve(transport).await.map_err(|e| {
                    // Give the stderr reader a moment: a server that exits at start
                    // says why there.
                    std::thread::sleep(Duration::from_millis(50));
                    Failure::Error(ToolError::backend(format!(
                        "{label}: initialize failed: {}{}{}",
                        upstream_error(&e),
                        stderr_note(&stderr),
                        lock(&skipped).note()
                    )))
                })?
            }
            Endpoint::Http { url, headers } => {
                tls_provider();
                let mut custom = HashMap::new();
                for (k, v) in headers {
                    let name = reqwest::header::HeaderName::try_from(k.as_str()).map_err(|e| {
                        Failure::Error(ToolError::invalid_argument(format!(
                            "{label}: header '{k}': {e}"
                        )))
                    })?;
                    let value =
                        reqwest::header::HeaderValue::try_from(v.as_str()).map_err(|_| {
                            Failure::Error(ToolError::invalid_argument(format!(
                                "{label}: the value of header '{k}' is not a valid header value"
                            )))
                        })?;
                    custom.insert(name, value);
                }
                let http = reqwest::Client::builder().build().map_err(|e| {
                    Failure::Error(ToolError::backend(format!("{label}: HTTP client: {e}")))
                })?;
                let config = rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(custom);
                let transport =
                    rmcp::transport::StreamableHttpClientTransport::with_client(http, config);
                client.serve(transport).await.map_err(|e| {
                    let dbg = format!("{e:?}");
                    let text = upstream_error(&e);
                    if ["401", "403", "AuthRequired", "Unauthorized", "Forbidden"]
                        .iter()
                        .any(|s| text.contains(s) || dbg.contains(s))
                    {
                        Failure::Inactive(format!(
                            "{label} refused the credentials at {url}: {text}"
                        ))
                    } else {
                        Failure::Error(ToolError::backend(format!(
                            "{label}: initialize at {url} failed: {text}"
                        )))
                    }
                })?
            }
        };
        let tools = service.list_all_tools().await.map_err(|e| {
            Failure::Error(ToolError::backend(format!(
                "{label}: tools/list failed: {}{}{}",
                upstream_error(&e),
                lock(&skipped).note(),
                stderr_note(&stderr)
            )))
        })?;
        let listed = Catalog::new(tools, &secrets);
        note_skipped(&self.warnings, &secrets, label, &listed);
        *lock(&catalog) = Arc::new(listed);
        Ok(Upstream { service, catalog, stderr, skipped, resolved, _group: GroupGuard(group) })
    }

    async fn call_async(
        &self,
        call_ref: &CallRef,
        request: &ToolRequest,
    ) -> Result<Value, ToolError> {
        let server = self.server(call_ref).ok_or_else(|| {
            ToolError::not_found(format!(
                "this agent declares no server '{}'",
                call_ref.integration
            ))
        })?;
        let label = format!("server '{}'", server.name);
        let up = match self.upstream(server, &call_ref.connection).await? {
            Ok(up) => up,
            Err(why) => return Err(ToolError::unauthorized(why)),
        };
        // Results and errors carry upstream text: the registry redacts them.
        call_on(&label, &up, call_ref, request).await
    }
}

/// One `tools/call` of `call_ref`'s action on `up`.
async fn call_on(
    label: &str,
    up: &Upstream,
    call_ref: &CallRef,
    request: &ToolRequest,
) -> Result<Value, ToolError> {
    let catalog = lock(&up.catalog).clone();
    let tool = catalog.tool(&call_ref.action).ok_or_else(|| {
        ToolError::not_found(format!(
            "{label} no longer offers a tool for action '{}' (its tool list changed)",
            call_ref.action
        ))
    })?;
    let params =
        CallToolRequestParams::new(tool.name.to_string()).with_arguments(request.arguments.clone());
    let timeout = up.resolved.timeout.min(request.time_left().max(Duration::from_millis(1)));
    let skipped_before = lock(&up.skipped).lines;
    let call = tokio::time::timeout(timeout, up.service.call_tool_once(params));
    // A cancel by filestore's own client drops the request future, which tells
    // the upstream (notifications/cancelled), instead of waiting out the timeout.
    let answer = tokio::select! {
        answer = call => answer,
        () = request.cancel.cancelled() => {
            return Err(ToolError::limit_exceeded(format!(
                "the call of {label}'s tool '{}' was cancelled by the client; it was cancelled upstream",
                tool.name
            )));
        }
    };
    let result = match answer {
        // Dropping the request future told the server (notifications/cancelled).
        Err(_) => {
            return Err(ToolError::limit_exceeded(format!(
                "{label} did not answer tool '{}' within {}; the call was cancelled upstream{}{}",
                tool.name,
                seconds(timeout),
                unparsed_hint(up, skipped_before),
                stderr_hint(&up.stderr)
            )));
        }
        Ok(Err(e)) => return Err(service_error(label, &tool.name, e, up)),
        Ok(Ok(CallToolResponse::Complete(r))) => r,
        Ok(Ok(_)) => {
            return Err(ToolError::unsupported(format!(
                "{label} asked for input or started a task for tool '{}', which an agent tool call cannot give",
                tool.name
            )));
        }
    };
    result_value(label, &tool.name, result)
}

/// The pipes and process group of one stdio connection, and its secrets.
struct Io {
    group: ProcessGroup,
    stderr: Arc<Mutex<StderrTail>>,
    skipped: Arc<Mutex<stdio::Skipped>>,
    secrets: Arc<[Secret]>,
}

enum Failure {
    Inactive(String),
    Error(ToolError),
}

/// An error of the MCP client as a message: without the transport's Rust type
/// (`Transport [rmcp::transport::worker::WorkerTransport<...>]`), on one line. Not
/// cut: an HTTP error may carry a whole HTML page, which the registry cuts once it
/// is redacted.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" [rmcp::") {
        out.push_str(&rest[..at]);
        let mut depth = 0usize;
        let mut end = rest.len();
        for (k, ch) in rest[at + 1..].char_indices() {
            match ch {
                '[' => depth += 1,
                ']' => {
                    depth -= 1;
                    if depth == 0 {
                        end = at + 1 + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A duration as people write it in a message (`3 s`, `1.5 s`, `250 ms`).
fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

/// For a timeout: the last line of the server's stderr, where a server that could not
/// understand or be understood usually says so.
fn stderr_hint(stderr: &Mutex<StderrTail>) -> String {
    let t = lock(stderr);
    match t.text().trim().lines().last() {
        Some(line) if !line.trim().is_empty() => {
            let line: String = line.chars().take(300).collect();
            format!("; its stderr ends with: {line}")
        }
        _ => String::new(),
    }
}

/// For a call that timed out: what a stdio server wrote on stdout during the call
/// that was not a message (a broken reply, a log line), or, for an HTTP server,
/// that an unparseable reply counts as none.
fn unparsed_hint(up: &Upstream, before: u64) -> String {
    if !matches!(up.resolved.endpoint, Endpoint::Stdio { .. }) {
        return " (a reply it could not parse counts as none)".to_string();
    }
    let s = lock(&up.skipped).clone();
    let during = s.lines.saturating_sub(before);
    if during == 0 {
        return String::new();
    }
    stdio::Skipped { lines: during, last: s.last }.note().replacen(
        "; its stdout had",
        "; meanwhile its stdout had",
        1,
    )
}

fn stderr_note(stderr: &Mutex<StderrTail>) -> String {
    let t = lock(stderr);
    let t = t.text().trim();
    if t.is_empty() { String::new() } else { format!("; its stderr ends with: {t}") }
}

/// A failed `tools/call` as an error (redacted by the registry).
fn service_error(label: &str, tool: &str, e: ServiceError, up: &Upstream) -> ToolError {
    match e {
        ServiceError::McpError(d) => {
            let text =
                format!("{label} answered tool '{tool}' with error {}: {}", d.code.0, d.message);
            match d.code.0 {
                -32602 => ToolError::invalid_argument(text),
                -32601 => ToolError::not_found(text),
                _ => ToolError::backend(text),
            }
        }
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            std::thread::sleep(Duration::from_millis(50));
            ToolError::backend(format!(
                "{label} closed the connection during tool '{tool}' (it will be reconnected on the next call){}",
                stderr_note(&up.stderr)
            ))
        }
        ServiceError::Timeout { timeout } => ToolError::limit_exceeded(format!(
            "{label} did not answer tool '{tool}' within {}",
            seconds(timeout)
        )),
        other => ToolError::backend(format!("{label}: tool '{tool}': {}", upstream_error(&other))),
    }
}

/// A `tools/call` result as the tool's JSON result (see the module docs).
fn result_value(label: &str, tool: &str, r: CallToolResult) -> Result<Value, ToolError> {
    let texts: Option<Vec<&str>> = r
        .content
        .iter()
        .map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    if r.is_error == Some(true) {
        let why = match &texts {
            Some(t) if !t.is_empty() => t.join("\n"),
            _ => serde_json::to_string(&r.content).unwrap_or_default(),
        };
        return Err(ToolError::backend(format!("{label}: tool '{tool}' failed: {why}")));
    }
    if let Some(v) = r.structured_content {
        // SDKs wrap a plain return value as `{"result": value}`, with the same value
        // as the text content: the text itself is the better result (readable and
        // greppable when stored).
        // Servers do the same under other names (the filesystem server's
        // `{"content": text}`): any one-member object holding exactly the text.
        // A number or other value wrapped so (`{"result": 3}` with the text `3`) is
        // that value: its text form is then the upstream's text too.
        if let (Some(t), Some(o)) = (&texts, v.as_object())
            && o.len() == 1
            && let Some(inner) = o.values().next()
        {
            let text = t.join("\n");
            let same = match inner {
                Value::String(s) => *s == text,
                other => serde_json::from_str::<Value>(&text).is_ok_and(|said| said == *other),
            };
            if same {
                return Ok(inner.clone());
            }
        }
        return Ok(v);
    }
    Ok(match texts {
        Some(t) if t.len() == 1 => Value::String(t[0].to_string()),
        Some(t) if !t.is_empty() => Value::String(t.join("\n")),
        _ => json!({"content": r.content}),
    })
}

/// Installs the TLS crypto provider the HTTP client needs (ring), once.
fn tls_provider() {
    static DONE: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

impl ToolProvider for McpProvider {
    fn check_connection(&self, call_ref: &CallRef) -> Result<ConnectionStatus, ToolError> {
        let Some(server) = self.server(call_ref) else {
            return Ok(ConnectionStatus::Missing);
        };
        if !server.has_connection(&call_ref.connection) {
            return Ok(ConnectionStatus::Missing);
        }
        match self.block_on(self.upstream(server, &call_ref.connection))? {
            Ok(up) => Ok(ConnectionStatus::Active(lock(&up.catalog).provider_actions())),
            Err(why) => Ok(ConnectionStatus::Inactive(Some(why))),
        }
    }

    fn call(&self, call_ref: &CallRef, request: &ToolRequest) -> Result<Value, ToolError> {
        self.block_on(self.call_async(call_ref, request))
    }

    fn timeout(&self, call_ref: &CallRef) -> Duration {
        self.server(call_ref).map(ServerDecl::timeout).unwrap_or(spec::DEFAULT_SERVER_TIMEOUT)
    }

    fn max_timeout(&self) -> Duration {
        self.servers.values().map(ServerDecl::timeout).max().unwrap_or_default()
    }

    fn secrets(&self, call_ref: &CallRef) -> Vec<Secret> {
        // Resolved as a connection is made (cheap: no process, no I/O), so the
        // values are known even for a connection that failed to start.
        self.server(call_ref)
            .and_then(|s| spec::resolve(s, &call_ref.connection, &self.base_dir, &*self.env).ok())
            .map(|r| r.secrets)
            .unwrap_or_default()
    }
}

impl Drop for McpProvider {
    fn drop(&mut self) {
        // Stop stdio servers with the provider rather than leaving them to the
        // runtime's shutdown order.
        self.close();
        // Dropping a runtime where blocking is not allowed (in another runtime's
        // task) panics: shut it down on a thread of its own, bounded.
        if let Some(runtime) = self.runtime.take() {
            let _ = std::thread::spawn(move || runtime.shutdown_timeout(CLOSE_WAIT)).join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_texts_are_tidied() {
        let e = "Send message error Transport [rmcp::transport::worker::WorkerTransport<rmcp::X<reqwest::Client>>] error: Client error: HTTP status client error (404 Not Found)";
        assert_eq!(
            tidy(e),
            "Send message error Transport error: Client error: HTTP status client error (404 Not Found)"
        );
        let page = format!("status 404: <html>\n{}</html>", "<p>x</p>\n".repeat(3));
        assert_eq!(tidy(&page), "status 404: <html> <p>x</p> <p>x</p> <p>x</p> </html>");
        assert_eq!(seconds(Duration::from_millis(3999)), "4.0 s");
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
    }
}
