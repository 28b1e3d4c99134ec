//! External tool execution: the host's answer to the guest's `tool-host` import.
//!
//! The component validates every call (arguments, defaults, auth, templates) and hands
//! the host one [`ToolCall`] per external tool call. The host runs it:
//!
//! - [`ToolHost`] is what a session calls. [`NoTools`] refuses everything.
//! - [`ToolRegistry`] is the ready-made `ToolHost`: an embedder registers one
//!   [`ToolHandler`] per tool `type`; the registry looks the source up (the host keeps
//!   sources, with `${VAR}` references resolved — see [`resolve_sources`]), runs the
//!   handler on a worker thread under a per-call timeout, and turns a timeout, a
//!   panic, an unknown type or a handler error into a typed error naming the tool.
//! - The `filestore` crate's `ShippedHandlers::with_builtin_handlers` adds the
//!   handlers its binary ships (`sqlite-sql`, `postgres-sql`, `mysql-sql`, `http`...).
//! - [`ToolProvider`]s answer for agent tool refs (`tools.{provider}.…`): the registry
//!   routes `check-connection` and the calls of provider tools to the provider named
//!   by the ref (e.g. the `filestore` crate's `McpProvider` for `mcp`), under that
//!   provider's own timeout.
//!
//! **Secrets.** Source fields are resolved here, from the host's environment, after
//! the component has parsed the configuration; they never travel back into the
//! component, into a manifest, or into an error message (errors name the variable,
//! never its value). [`ToolRegistry::run`] is the one place where what a handler or
//! provider gives back becomes agent text: results and errors are redacted there,
//! before anything is cut ([`redaction`]).
//!
//! **Result size.** One limit ([`ToolRegistry::set_max_result_bytes`]) reaches every
//! call as [`ToolRequest::max_result_bytes`]; the shipped handlers count rows and
//! bodies against it as they read them and stop at once past it ([`budget`]).
//!
//! **Timeouts.** A handler that overruns is abandoned: the call returns
//! `limit-exceeded` at once and the worker thread finishes on its own (Rust cannot
//! kill a thread). The shipped handlers bound their own work by the same deadline
//! ([`ToolRequest::deadline`]): SQLite is interrupted, HTTP requests time out.
//!
//! **Cancellation.** A session's cancel flag (set when an MCP client sends
//! `notifications/cancelled`, see [`crate::Session::cancel_handle`]) reaches the call
//! as [`ToolRequest::cancel`]: the registry stops waiting for the worker at once, and
//! the shipped handlers and providers stop their own work — SQLite is interrupted, a
//! PostgreSQL statement is cancelled on the server, an upstream MCP call is abandoned
//! with `notifications/cancelled` to the upstream. Without this, a cancelled call
//! held its session until the tool's timeout.
//!
//! ```
//! use std::sync::Arc;
//! use filestore_runtime::tools::{ToolHandler, ToolRegistry, ToolRequest, ToolError};
//! struct Echo;
//! impl ToolHandler for Echo {
//!     fn call(&self, req: &ToolRequest) -> Result<serde_json::Value, ToolError> {
//!         Ok(serde_json::Value::Object(req.arguments.clone()))
//!     }
//! }
//! let mut registry = ToolRegistry::new();
//! registry.register("echo", Arc::new(Echo));
//! assert_eq!(registry.tool_types(), vec!["echo".to_string()]);
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use filestore_guest::error::ErrorKind;

/// Default per-call timeout of external tools. Bounds how long one model request can
/// hold a session (and a worker thread) on a slow or hung backend.
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs external tool calls for sessions.
pub trait ToolHost: Send + Sync {
    /// Runs one validated call; returns JSON text or a typed error.
    fn call(&self, call: ToolCall) -> Result<String, ToolError>;
    /// [`ToolHost::call`] for a caller that may cancel it: a host that can stop a
    /// call early returns soon after `cancel` fires (the session is interrupted
    /// then anyway). The default ignores `cancel`, so the call holds its session
    /// until it ends.
    fn call_cancellable(&self, call: ToolCall, cancel: &Cancel) -> Result<String, ToolError> {
        let _ = cancel;
        self.call(call)
    }
    /// Reports whether a provider connection can be used.
    fn check_connection(&self, call_ref: &str) -> Result<ConnectionStatus, ToolError>;
    /// The longest a call may take (the session extends its guest deadline by it
    /// while a tool runs). `None`: the host sets no timeout of its own.
    fn timeout(&self) -> Option<Duration> {
        None
    }
    /// Whether this host has a handler for tools of `tool_type` (their sources are
    /// then resolved on load).
    fn handles(&self, tool_type: &str) -> bool {
        let _ = tool_type;
        false
    }
    /// A host for a session whose configuration declared `sources` (already
    /// resolved). `None` keeps this host unchanged (it ignores configured sources).
    fn with_sources(&self, sources: Arc<SourceSet>) -> Option<Arc<dyn ToolHost>> {
        let _ = sources;
        None
    }
}

/// A tool host that has no tools.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTools;

impl ToolHost for NoTools {
    fn call(&self, call: ToolCall) -> Result<String, ToolError> {
        Err(ToolError::unsupported(format!(
            "tool '{}' of type '{}': this host has no handler for external tools",
            call.tool_name, call.tool_type
        )))
    }
    fn check_connection(&self, call_ref: &str) -> Result<ConnectionStatus, ToolError> {
        let _ = call_ref;
        Ok(ConnectionStatus::Missing)
    }
}

// ---- configuration and invocation records (host side of the WIT `tools` interface) --

/// One configuration error, located (from the component's parser).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigIssue {
    /// File name as given.
    pub file: String,
    /// 1-based document index.
    pub document: u32,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// The field concerned.
    pub field: Option<String>,
    /// Category, kebab-case (`unknown-kind`, `missing-source`...).
    pub kind: String,
    /// What is wrong.
    pub message: String,
    /// The whole error on one line, location first.
    pub rendered: String,
}

impl std::fmt::Display for ConfigIssue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.rendered)
    }
}

/// What the host can do with one configured tool: the component's own record (the
/// host lifts the WIT `tool-status` into it), one definition for both sides.
pub use filestore_guest::tools::config::ToolStatus;

/// A successful configuration load or check.
#[derive(Clone, Debug)]
pub struct ConfigReport {
    /// Sources as configured (unresolved).
    pub sources: Vec<UnresolvedSource>,
    /// Number of auth services.
    pub auth_services: u32,
    /// Toolset names.
    pub toolsets: Vec<String>,
    /// Every tool.
    pub tools: Vec<ToolStatus>,
    /// The report as text.
    pub rendered: String,
    /// The configuration as v2 YAML.
    pub v2_yaml: String,
}

/// Who invokes a tool, how an invocation ended, and its outcome: the component's own
/// types (the host lifts the WIT records into them), so embedders and the component
/// share one definition.
pub use filestore_guest::invoke::{InvokeContext, InvokeOutcome, InvokeStatus};

/// The tool-results volume as a session mount: an in-memory volume at
/// `/tool_calls`, read-only for agents (the component writes results through its
/// own privileged path).
pub fn results_mount() -> crate::volumes::MountSpec {
    crate::volumes::MountSpec::new(
        filestore_guest::invoke::results::RESULTS_MOUNT,
        Arc::new(crate::volumes::quota_memory_volume()),
    )
    .read_only()
}

mod agent_report;
pub mod budget;
mod call;
pub mod env;
mod prompt_spec;
pub mod redaction;
mod registry;
mod sources;

pub use agent_report::{
    AgentEntryInfo, AgentReport, DEFAULT_CONNECTION, DEFAULT_SERVER_TIMEOUT, ServerDecl,
};
pub use budget::{DEFAULT_MAX_RESULT_BYTES, ResultBudget};
pub use call::{CallContext, ConnectionStatus, ProviderAction, ToolCall};
pub use prompt_spec::{PromptArgument, PromptSpec};
pub use redaction::{MIN_REDACTED_LEN, Redactor, Secret, redact, redact_prefix};
pub use registry::ToolRegistry;
pub use sources::{
    IDENTITY_FIELDS, Source, SourceSet, UnresolvedSource, resolve_sources, resolve_sources_located,
};

// ---- handlers ------------------------------------------------------------------

/// One call as a handler receives it: everything the component validated, plus the
/// resolved source.
#[derive(Clone, Debug)]
pub struct ToolRequest {
    /// The tool's name.
    pub tool_name: String,
    /// The tool's `type` (selected this handler).
    pub tool_type: String,
    /// The tool's source, resolved (secrets included: do not echo it).
    pub source: Option<Source>,
    /// The provider call ref, for provider tools.
    pub call_ref: Option<String>,
    /// The tool's configuration document (`method`, `headers`, `requestBody`...).
    pub config: Map<String, Value>,
    /// Validated arguments by name (every role).
    pub arguments: Map<String, Value>,
    /// Positional values (`parameters`), declared order; `null` for an absent one.
    pub positional: Vec<Value>,
    /// The statement after template substitution (escaped by the component); for
    /// `redis` and `valkey` tools, their commands with the call's values in place (a
    /// JSON array of arrays of strings).
    pub statement: Option<String>,
    /// For http tools: the path with `pathParams` substituted and percent-encoded.
    pub path: Option<String>,
    /// The call id the result is stored under.
    pub tool_call_id: Option<String>,
    /// The id of the session that made the call (set by the host, never by the
    /// component: see [`crate::Session::id`]).
    pub session_id: String,
    /// Verified claims per auth service.
    pub claims: Value,
    /// When the registry gives up on this call; handlers should stop by then.
    pub deadline: Instant,
    /// The most bytes of JSON text the result may have: handlers count rows and
    /// bodies against it as they read them ([`ResultBudget`]).
    pub max_result_bytes: u64,
    /// Set when the caller cancelled the call; handlers should stop soon after.
    pub cancel: Cancel,
}

/// Whether a call was cancelled by its caller: a shared flag (the session's, see
/// [`crate::Session::cancel_handle`]) that handlers poll, or none. Cloning shares it.
///
/// Once seen set it stays set for this call (and its clones), even if the flag is
/// cleared: the session clears it as soon as the cancelled call returns, which may be
/// before an abandoned worker looks again.
#[derive(Clone, Debug, Default)]
pub struct Cancel {
    flag: Option<Arc<AtomicBool>>,
    seen: Arc<AtomicBool>,
}

/// How often the waits of this module look at a [`Cancel`] flag: often enough that a
/// cancelled call frees its session at once for a person, rarely enough to cost
/// nothing.
const CANCEL_POLL: Duration = Duration::from_millis(20);

impl Cancel {
    /// A cancel that follows `flag` (for one call: make a new one per call).
    pub fn new(flag: Arc<AtomicBool>) -> Cancel {
        Cancel { flag: Some(flag), seen: Arc::default() }
    }

    /// A cancel that never fires.
    pub fn never() -> Cancel {
        Cancel::default()
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        if self.seen.load(Ordering::SeqCst) {
            return true;
        }
        let set = self.flag.as_ref().is_some_and(|f| f.load(Ordering::SeqCst));
        if set {
            self.seen.store(true, Ordering::SeqCst);
        }
        set
    }

    /// Resolves once the call is cancelled (never, for [`Cancel::never`]); for a
    /// `select` against the work itself.
    pub async fn cancelled(&self) {
        if self.flag.is_none() {
            return std::future::pending().await;
        }
        while !self.is_cancelled() {
            tokio::time::sleep(CANCEL_POLL).await;
        }
    }
}

impl ToolRequest {
    /// The source, or an error naming the tool (for handlers that need one).
    pub fn require_source(&self) -> Result<&Source, ToolError> {
        self.source.as_ref().ok_or_else(|| {
            ToolError::invalid_argument(format!("tool '{}' names no source", self.tool_name))
        })
    }

    /// The names of the plain (`parameters`) parameters, in declared order: what
    /// [`ToolRequest::positional`]'s values are the values of, from the tool's document.
    pub fn positional_names(&self) -> Vec<String> {
        self.config
            .get("parameters")
            .and_then(Value::as_array)
            .map(|ps| {
                ps.iter()
                    .map(|p| p.get("name").and_then(Value::as_str).unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Time left before [`ToolRequest::deadline`] (zero when past).
    pub fn time_left(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }
}

/// Why a handler failed: one of the WIT's error kinds (usually `invalid-argument`,
/// `unauthorized`, `not-found`, `unsupported`, `limit-exceeded` or `backend`) and a
/// message. Messages are lowercase and name the tool or field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    kind: ErrorKind,
    message: String,
}

impl ToolError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> ToolError {
        ToolError { kind, message: message.into() }
    }

    /// The call or the tool's configuration is wrong.
    pub fn invalid_argument(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::InvalidArgument, message)
    }

    /// The backend refused the caller.
    pub fn unauthorized(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Unauthorized, message)
    }

    /// Something the call names does not exist.
    pub fn not_found(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::NotFound, message)
    }

    /// The host cannot run this (unknown tool type, disallowed host...).
    pub fn unsupported(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Unsupported, message)
    }

    /// The call ran past its timeout or produced too much.
    pub fn limit_exceeded(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::LimitExceeded, message)
    }

    /// The backend failed (or the handler panicked).
    pub fn backend(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorKind::Backend, message)
    }

    /// The error's kind.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message (what [`Display`](std::fmt::Display) shows).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The same error with its message rewritten by `f`.
    pub fn map_message(self, f: impl FnOnce(String) -> String) -> ToolError {
        ToolError { kind: self.kind, message: f(self.message) }
    }
}

/// Runs the tools of one `type`. Implementations must be thread-safe: the registry
/// calls them from worker threads.
pub trait ToolHandler: Send + Sync + 'static {
    /// Runs one call; the result is any JSON value (it becomes the envelope's `data`).
    fn call(&self, request: &ToolRequest) -> Result<Value, ToolError>;
}

impl<F> ToolHandler for F
where
    F: Fn(&ToolRequest) -> Result<Value, ToolError> + Send + Sync + 'static,
{
    fn call(&self, request: &ToolRequest) -> Result<Value, ToolError> {
        self(request)
    }
}

/// The provider of agent tool refs `tools.{provider}.{integration}.{action}.{connection}`:
/// it tells the component which actions a connection offers (with their upstream
/// descriptions and input schemas) and runs calls of them. Implementations must be
/// thread-safe: the registry calls them from worker threads.
pub trait ToolProvider: Send + Sync + 'static {
    /// Whether the connection of `call_ref` can be used and, when it can, the actions
    /// it offers (`call_ref.action` may be `*`: the whole catalog). Answers from the
    /// provider's live connection, never from a guess.
    fn check_connection(&self, call_ref: &CallRef) -> Result<ConnectionStatus, ToolError>;
    /// Runs one call of the concrete action of `call_ref` with the request's
    /// (already validated) arguments; returns the result as JSON.
    fn call(&self, call_ref: &CallRef, request: &ToolRequest) -> Result<Value, ToolError>;
    /// The longest a call through `call_ref` may take.
    fn timeout(&self, call_ref: &CallRef) -> Duration;
    /// The longest any call may take (a session extends its guest deadline by it).
    fn max_timeout(&self) -> Duration;
    /// The values the connection of `call_ref` took from the environment: the
    /// registry removes them from everything a call or a check gives back (see
    /// [`redaction`]).
    fn secrets(&self, call_ref: &CallRef) -> Vec<Secret> {
        let _ = call_ref;
        Vec::new()
    }
}

/// The call ref type providers receive (parsed and checked by the component's rules).
pub use filestore_guest::tools::toolrefs::CallRef;

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn redact_replaces_resolved_values_with_their_references() {
        let s = Source {
            name: "api".into(),
            source_type: "http".into(),
            fields: Map::new(),
            secrets: vec![
                Secret { variable: "TOKEN".into(), value: "ab/c d".into() },
                Secret { variable: "LONG".into(), value: "ab/c d-and-more".into() },
                Secret { variable: "FLAG".into(), value: "on".into() },
            ],
        };
        assert_eq!(s.redact("x ab/c d-and-more y"), "x ${LONG} y");
        assert_eq!(s.redact("GET /p/ab%2Fc%20d/q"), "GET /p/${TOKEN}/q");
        assert_eq!(s.redact("ab/c d"), "${TOKEN}");
        assert_eq!(s.redact("turned on"), "turned on", "values under 3 characters stay");
        assert!(!format!("{:?}", s.secrets[0]).contains("ab/c"), "Debug hides the value");
    }

    /// The forms a value takes in messages, and a text cut inside one.
    #[test]
    fn redact_finds_escaped_and_multi_line_values_and_cut_ones() {
        let secrets = [
            Secret { variable: "KEY".into(), value: "k\"e\\y-123".into() },
            Secret { variable: "PEM".into(), value: "-----BEGIN-----\nMIIEabc\nxy\n".into() },
        ];
        let json = serde_json::json!({"k": "k\"e\\y-123"}).to_string();
        assert_eq!(redact(&secrets, &json), r#"{"k":"${KEY}"}"#);
        assert_eq!(redact(&secrets, &format!("{:?}", "k\"e\\y-123")), "\"${KEY}\"");
        assert_eq!(redact(&secrets, "line MIIEabc, xy"), "line ${PEM}, xy", "lines of 3+");
        assert_eq!(redact_prefix(&secrets, "key: k\"e\\y-1"), "key: ");
        assert_eq!(redact_prefix(&secrets, "key: k\"e\\y-123 and k"), "key: ${KEY} and ");
        assert_eq!(redact_prefix(&secrets, "nothing to cut"), "nothing to cut");
    }
    use serde_json::json;

    fn req(tool_type: &str) -> ToolRequest {
        ToolRequest {
            tool_name: "t".into(),
            tool_type: tool_type.into(),
            source: None,
            call_ref: None,
            config: Map::new(),
            arguments: Map::new(),
            positional: vec![],
            statement: None,
            path: None,
            tool_call_id: None,
            session_id: "s".into(),
            claims: Value::Null,
            deadline: Instant::now() + DEFAULT_TOOL_TIMEOUT,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
            cancel: Cancel::never(),
        }
    }

    #[test]
    fn env_references_resolve_or_name_the_variable() {
        let src = UnresolvedSource {
            name: "api".into(),
            source_type: "http".into(),
            fields: json!({"baseUrl": "http://${HOST:127.0.0.1}:${PORT}", "headers": {"A": "Bearer ${KEY}"}, "n": 3, "lit": "$$x $y"})
                .as_object()
                .unwrap()
                .clone(),
        };
        let env = |k: &str| match k {
            "PORT" => Some("80".to_string()),
            "KEY" => Some("s3cret".to_string()),
            _ => None,
        };
        let set = resolve_sources(std::slice::from_ref(&src), &|_| true, &env).unwrap();
        let s = set.get("api").unwrap();
        assert_eq!(s.fields["baseUrl"], "http://127.0.0.1:80");
        assert_eq!(s.fields["headers"]["A"], "Bearer s3cret");
        assert_eq!(s.fields["lit"], "$x $y");
        assert!(!format!("{s:?}").contains("s3cret"));
        let none = |_: &str| None;
        let e =
            resolve_sources(std::slice::from_ref(&src), &|_| true, &none).unwrap_err().to_string();
        assert!(e.contains("'PORT'") && e.contains("'KEY'") && e.contains("api.headers.A"), "{e}");
        // Sources nobody uses are not resolved.
        assert!(resolve_sources(&[src], &|_| false, &none).unwrap().names().is_empty());
    }

    /// Results keep the values that went only into where-and-who fields (`user`,
    /// `database`...), which the backend reports itself; errors redact them too.
    #[test]
    fn results_keep_identity_values_and_redact_credentials() {
        let src = UnresolvedSource {
            name: "pg".into(),
            source_type: "postgres".into(),
            fields: json!({"user": "${U}", "database": "${D}", "password": "${P}-${U}"})
                .as_object()
                .unwrap()
                .clone(),
        };
        let env = |k: &str| Some(format!("value-of-{k}"));
        let set = resolve_sources(&[src], &|_| true, &env).unwrap();
        let s = set.get("pg").unwrap();
        let names = |v: Vec<Secret>| v.into_iter().map(|s| s.variable).collect::<Vec<_>>();
        assert_eq!(names(s.secrets.clone()), ["U", "D", "P"]);
        // `U` also went into the password: a credential, redacted.
        assert_eq!(names(s.result_secrets()), ["U", "P"]);
    }

    #[test]
    fn unknown_type_panic_and_timeout_are_typed() {
        let mut r = ToolRegistry::new();
        r.register(
            "boom",
            Arc::new(|_: &ToolRequest| -> Result<Value, ToolError> { panic!("kaput") }),
        );
        r.register(
            "slow",
            Arc::new(|_: &ToolRequest| -> Result<Value, ToolError> {
                // Never finishes: only the timeout can end the call.
                loop {
                    std::thread::park();
                }
            }),
        );
        let e = r.run(req("nope")).unwrap_err();
        assert!(e.kind() == ErrorKind::Unsupported && e.to_string().contains("boom, slow"), "{e}");
        let e = r.run(req("boom")).unwrap_err();
        assert!(e.kind() == ErrorKind::Backend && e.to_string().contains("kaput"), "{e}");
        r.set_timeout(Duration::from_millis(100));
        let e = r.run(req("slow")).unwrap_err();
        assert!(e.kind() == ErrorKind::LimitExceeded && e.to_string().contains("100ms"), "{e}");
    }

    #[test]
    fn a_cancelled_call_stops_waiting_and_the_handler_sees_it() {
        let (seen_tx, seen_rx) = mpsc::channel();
        let seen_tx = std::sync::Mutex::new(seen_tx);
        let mut r = ToolRegistry::new();
        r.register(
            "waits",
            Arc::new(move |req: &ToolRequest| -> Result<Value, ToolError> {
                // Ends only when cancelled (or after a minute, failing the test).
                let until = Instant::now() + Duration::from_secs(60);
                while !req.cancel.is_cancelled() && Instant::now() < until {
                    std::thread::sleep(Duration::from_millis(5));
                }
                let _ = seen_tx.lock().unwrap().send(req.cancel.is_cancelled());
                // Slow to wind down: the registry must not wait for it.
                std::thread::sleep(Duration::from_secs(5));
                Ok(Value::Null)
            }),
        );
        r.set_timeout(Duration::from_secs(120));
        let flag = Arc::new(AtomicBool::new(false));
        let mut request = req("waits");
        request.cancel = Cancel::new(flag.clone());
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            flag.store(true, Ordering::SeqCst);
        });
        let e = r.run(request).unwrap_err();
        setter.join().unwrap();
        assert!(e.kind() == ErrorKind::LimitExceeded && e.to_string().contains("cancelled"), "{e}");
        assert!(
            seen_rx.recv_timeout(Duration::from_secs(60)).unwrap(),
            "the handler saw the cancel"
        );
        assert!(!Cancel::never().is_cancelled());
        // Seen once, a cancel stays for the call (and its clones) after the session
        // clears its flag; a new call's cancel starts afresh.
        let flag = Arc::new(AtomicBool::new(false));
        let (c, d) = (Cancel::new(flag.clone()), Cancel::new(flag.clone()));
        let e = c.clone();
        flag.store(true, Ordering::SeqCst);
        assert!(c.is_cancelled());
        flag.store(false, Ordering::SeqCst);
        assert!(e.is_cancelled() && !d.is_cancelled() && !Cancel::new(flag).is_cancelled());
    }
}
