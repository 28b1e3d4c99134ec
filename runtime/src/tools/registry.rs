//! [`ToolRegistry`]: the [`ToolHost`] that dispatches a session's external tool calls
//! to the registered handlers by tool type and to providers by ref, each on a worker
//! under its timeout, redacting and bounding what comes back.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::{
    CANCEL_POLL, CallRef, Cancel, ConnectionStatus, DEFAULT_MAX_RESULT_BYTES, DEFAULT_TOOL_TIMEOUT,
    Redactor, Secret, SourceSet, ToolCall, ToolError, ToolHandler, ToolHost, ToolProvider,
    ToolRequest, budget,
};

/// How long the registry waits past a provider's own timeout before it abandons the
/// worker: the provider ends its call itself first (cancelling it upstream) and says
/// why, which is a better error than the registry's.
const PROVIDER_GRACE: Duration = Duration::from_secs(2);

/// A [`ToolHost`] dispatching calls by tool `type` to registered [`ToolHandler`]s,
/// under a per-call timeout, and provider calls to registered [`ToolProvider`]s.
/// Cloning is cheap and shares the handlers.
#[derive(Clone)]
pub struct ToolRegistry {
    handlers: Arc<HashMap<String, Arc<dyn ToolHandler>>>,
    providers: Arc<HashMap<String, Arc<dyn ToolProvider>>>,
    sources: Arc<SourceSet>,
    timeout: Duration,
    max_result_bytes: u64,
}

impl Default for ToolRegistry {
    fn default() -> ToolRegistry {
        ToolRegistry::new()
    }
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tool_types", &self.tool_types())
            .field("providers", &self.providers.keys().collect::<Vec<_>>())
            .field("sources", &self.sources.names())
            .field("timeout", &self.timeout)
            .field("max_result_bytes", &self.max_result_bytes)
            .finish()
    }
}

impl ToolRegistry {
    /// A registry with no handlers and the default timeout.
    pub fn new() -> ToolRegistry {
        ToolRegistry {
            handlers: Arc::new(HashMap::new()),
            providers: Arc::new(HashMap::new()),
            sources: Arc::new(SourceSet::default()),
            timeout: DEFAULT_TOOL_TIMEOUT,
            max_result_bytes: DEFAULT_MAX_RESULT_BYTES,
        }
    }

    /// Registers (or replaces) the handler of a tool type.
    pub fn register(
        &mut self,
        tool_type: &str,
        handler: Arc<dyn ToolHandler>,
    ) -> &mut ToolRegistry {
        Arc::make_mut(&mut self.handlers).insert(tool_type.to_string(), handler);
        self
    }

    /// Registers (or replaces) the provider of the refs `tools.{name}.…`.
    pub fn register_provider(
        &mut self,
        name: &str,
        provider: Arc<dyn ToolProvider>,
    ) -> &mut ToolRegistry {
        Arc::make_mut(&mut self.providers).insert(name.to_string(), provider);
        self
    }

    /// The registered provider names, sorted.
    pub fn provider_names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.providers.keys().cloned().collect();
        v.sort();
        v
    }

    fn provider(&self, call_ref: &str) -> Result<(CallRef, Arc<dyn ToolProvider>), ToolError> {
        let parsed = CallRef::parse_selector(call_ref)
            .map_err(|e| ToolError::invalid_argument(format!("call ref '{call_ref}': {e}")))?;
        let provider = self.providers.get(&parsed.provider).cloned().ok_or_else(|| {
            let known = self.provider_names();
            ToolError::not_found(format!(
                "call ref '{call_ref}': this host has no provider '{}' (it has: {})",
                parsed.provider,
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ))
        })?;
        Ok((parsed, provider))
    }

    /// Sets the per-call timeout.
    pub fn set_timeout(&mut self, timeout: Duration) -> &mut ToolRegistry {
        self.timeout = timeout;
        self
    }

    /// Sets the limit of one call's result, bytes of JSON text (see [`budget`]).
    pub fn set_max_result_bytes(&mut self, bytes: u64) -> &mut ToolRegistry {
        self.max_result_bytes = bytes;
        self
    }

    /// The limit of one call's result, bytes of JSON text.
    pub fn max_result_bytes(&self) -> u64 {
        self.max_result_bytes
    }

    /// The registered tool types, sorted.
    pub fn tool_types(&self) -> Vec<String> {
        let mut v: Vec<String> = self.handlers.keys().cloned().collect();
        v.sort();
        v
    }

    /// The known tool type `tool_type` looks like a misspelling of (see
    /// [`filestore_guest::tools::config::typos`]), this registry's own types included.
    pub fn misspelling_of(&self, tool_type: &str) -> Option<String> {
        filestore_guest::tools::config::typos::misspelling_of(tool_type, &self.tool_types())
    }

    /// Why tool `tool` of `tool_type`, which this registry has no handler for, cannot
    /// run: a misspelt type names the type it is nearest (`invalid-argument`); any
    /// other is a type this host does not run (`unsupported`), with the ones it does
    /// (one call's answer; the start-up warnings name the list once instead).
    pub fn unsupported(&self, tool: &str, tool_type: &str) -> ToolError {
        if let Some(near) = self.misspelling_of(tool_type) {
            return ToolError::invalid_argument(format!(
                "tool '{tool}' has type '{tool_type}', which is not a known tool type: did you mean '{near}'?"
            ));
        }
        let known = self.tool_types();
        ToolError::unsupported(format!(
            "tool '{tool}' has type '{tool_type}': type not supported by this host (it handles: {})",
            if known.is_empty() { "none".to_string() } else { known.join(", ") }
        ))
    }

    /// The sources this registry resolves tools against.
    pub fn sources(&self) -> &SourceSet {
        &self.sources
    }

    /// Runs one request through its handler (or, for a provider tool, its provider)
    /// on a worker thread under the timeout.
    ///
    /// The one place where what a tool gives back becomes agent text: every string
    /// of the result and every error message is redacted of the call's secrets (its
    /// source's, its own `${VAR}` references', its provider connection's), and only
    /// then is an error cut to its bound or the result held to
    /// [`ToolRequest::max_result_bytes`] (see [`redaction`]).
    pub fn run(&self, request: ToolRequest) -> Result<Value, ToolError> {
        let (all, for_results) = self.secrets_of(&request);
        let (errors, results) = (Redactor::new(&all), Redactor::new(&for_results));
        let (tool, limit) = (request.tool_name.clone(), request.max_result_bytes);
        let outcome = if request.tool_type == filestore_guest::invoke::PROVIDER_TOOL_TYPE {
            self.run_provider(request)
        } else {
            self.run_handler(request)
        };
        match outcome {
            Ok(value) => {
                let value = results.value(value);
                // Handlers count as they read; this holds providers and embedders'
                // handlers to the same limit.
                if budget::json_len(&value) > limit {
                    return Err(budget::limit_exceeded(&tool, limit));
                }
                Ok(value)
            }
            Err(e) => Err(errors.error(e)),
        }
    }

    /// Every value `request` may carry that came from the environment (redacted from
    /// errors), and those of them redacted from results: all but a source's
    /// [`IDENTITY_FIELDS`] (see [`Source::result_secrets`]).
    fn secrets_of(&self, request: &ToolRequest) -> (Vec<Secret>, Vec<Secret>) {
        let mut others = self.sources.tool_env().secrets(&request.tool_name);
        if let Some(call_ref) = &request.call_ref
            && let Ok((parsed, provider)) = self.provider(call_ref)
        {
            others.extend(provider.secrets(&parsed));
        }
        let (mut all, mut for_results) = match &request.source {
            Some(s) => (s.secrets.clone(), s.result_secrets()),
            None => (Vec::new(), Vec::new()),
        };
        all.extend(others.iter().cloned());
        for_results.extend(others);
        (all, for_results)
    }

    /// The handler of `tool_type`, or why tool `tool` cannot run ([`Self::unsupported`]).
    fn handler_for(&self, tool: &str, tool_type: &str) -> Result<Arc<dyn ToolHandler>, ToolError> {
        self.handlers.get(tool_type).cloned().ok_or_else(|| self.unsupported(tool, tool_type))
    }

    fn run_handler(&self, mut request: ToolRequest) -> Result<Value, ToolError> {
        let handler = self.handler_for(&request.tool_name, &request.tool_type)?;
        let tool = request.tool_name.clone();
        self.sources.tool_env().apply(&mut request)?;
        let cancel = request.cancel.clone();
        on_worker(&tool, self.timeout, &cancel, move || handler.call(&request))
    }

    fn run_provider(&self, mut request: ToolRequest) -> Result<Value, ToolError> {
        let tool = request.tool_name.clone();
        let call_ref = request.call_ref.clone().ok_or_else(|| {
            ToolError::invalid_argument(format!("provider tool '{tool}' came without a call ref"))
        })?;
        let (parsed, provider) = self.provider(&call_ref).map_err(|e| prefix(&tool, e))?;
        let timeout = provider.timeout(&parsed);
        request.deadline = Instant::now() + timeout;
        let cancel = request.cancel.clone();
        on_worker(&tool, timeout + PROVIDER_GRACE, &cancel, move || {
            provider.call(&parsed, &request)
        })
    }

    fn request(&self, call: ToolCall) -> Result<ToolRequest, ToolError> {
        let object = |what: &str, text: &str| -> Result<Map<String, Value>, ToolError> {
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(m)) => Ok(m),
                Ok(Value::Null) => Ok(Map::new()),
                _ => Err(ToolError::invalid_argument(format!(
                    "tool '{}': {what} is not a JSON object",
                    call.tool_name
                ))),
            }
        };
        let source = match &call.source {
            None => None,
            Some(name) => Some(self.sources.get(name).cloned().ok_or_else(|| {
                ToolError::not_found(format!(
                    "tool '{}' names source '{name}', which this host has not loaded (loaded: {})",
                    call.tool_name,
                    if self.sources.names().is_empty() {
                        "none".to_string()
                    } else {
                        self.sources.names().join(", ")
                    }
                ))
            })?),
        };
        let positional = match serde_json::from_str::<Value>(&call.positional) {
            Ok(Value::Array(a)) => a,
            _ => Vec::new(),
        };
        Ok(ToolRequest {
            config: object("config", &call.config)?,
            arguments: object("arguments", &call.arguments)?,
            claims: serde_json::from_str(&call.context.claims).unwrap_or(Value::Null),
            tool_name: call.tool_name,
            tool_type: call.tool_type,
            source,
            call_ref: call.call_ref,
            positional,
            statement: call.statement,
            path: call.path,
            tool_call_id: call.context.tool_call_id,
            session_id: call.context.session_id,
            deadline: Instant::now() + self.timeout,
            max_result_bytes: self.max_result_bytes,
            cancel: Cancel::never(),
        })
    }
}

/// Runs `f` on a fresh worker thread and waits at most `timeout` for it, or until
/// `cancel` fires; a panic, a timeout, a cancellation and a dead worker become typed
/// errors naming `tool`. A worker that overruns or is cancelled is abandoned (Rust
/// cannot kill a thread): it ends on its own, which the shipped handlers make soon
/// (they watch the same deadline and cancel).
fn on_worker(
    tool: &str,
    timeout: Duration,
    cancel: &Cancel,
    f: impl FnOnce() -> Result<Value, ToolError> + Send + 'static,
) -> Result<Value, ToolError> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new().name(format!("tool-{tool}")).spawn(move || {
        let r = std::panic::catch_unwind(AssertUnwindSafe(f));
        // The receiver may have given up (timeout): nothing to do then.
        let _ = tx.send(r);
    });
    if let Err(e) = spawned {
        return Err(ToolError::backend(format!("tool '{tool}': cannot start a worker: {e}")));
    }
    let until = Instant::now() + timeout;
    let received = loop {
        // Without a cancel flag, one wait; with one, waits of CANCEL_POLL between looks.
        let left = until.saturating_duration_since(Instant::now());
        let slice = if cancel.flag.is_some() { left.min(CANCEL_POLL) } else { left };
        match rx.recv_timeout(slice) {
            Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() < until => {
                if cancel.is_cancelled() {
                    return Err(ToolError::limit_exceeded(format!(
                        "tool '{tool}' was cancelled by its caller before it finished"
                    )));
                }
            }
            other => break other,
        }
    };
    match received {
        Ok(Ok(r)) => r.map_err(|e| prefix(tool, e)),
        Ok(Err(panic)) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(ToolError::backend(format!("tool '{tool}': the handler panicked: {why}")))
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Err(ToolError::limit_exceeded(format!(
            "tool '{tool}' did not finish within its timeout of {timeout:?}"
        ))),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(ToolError::backend(format!("tool '{tool}': the handler thread died")))
        }
    }
}

fn prefix(tool: &str, e: ToolError) -> ToolError {
    let p = |m: String| {
        if m.contains(&format!("'{tool}'")) { m } else { format!("tool '{tool}': {m}") }
    };
    e.map_message(p)
}

impl ToolHost for ToolRegistry {
    fn call(&self, call: ToolCall) -> Result<String, ToolError> {
        self.call_cancellable(call, &Cancel::never())
    }

    fn call_cancellable(&self, call: ToolCall, cancel: &Cancel) -> Result<String, ToolError> {
        // A type without a handler is `unsupported` before anything about its source
        // (which is not loaded for such a tool) is looked at.
        if call.tool_type != filestore_guest::invoke::PROVIDER_TOOL_TYPE {
            self.handler_for(&call.tool_name, &call.tool_type)?;
        }
        let mut request = self.request(call)?;
        request.cancel = cancel.clone();
        let value = self.run(request)?;
        Ok(value.to_string())
    }

    fn check_connection(&self, call_ref: &str) -> Result<ConnectionStatus, ToolError> {
        // A ref to a provider this host does not have is a connection it does not
        // have: `missing`, which resolution reports with the ref.
        let Ok((parsed, provider)) = self.provider(call_ref) else {
            return Ok(ConnectionStatus::Missing);
        };
        // Why a connection is inactive or failed is upstream text: redacted as a
        // call's is. (Its catalog is redacted by the provider, which cuts it.)
        let redactor = Redactor::new(&provider.secrets(&parsed));
        match provider.check_connection(&parsed).map_err(|e| redactor.error(e))? {
            ConnectionStatus::Inactive(Some(why)) => Ok(ConnectionStatus::Inactive(Some(
                redactor.error(ToolError::backend(why)).message().to_string(),
            ))),
            other => Ok(other),
        }
    }

    fn timeout(&self) -> Option<Duration> {
        let providers = self.providers.values().map(|p| p.max_timeout() + PROVIDER_GRACE);
        Some(providers.fold(self.timeout, Duration::max))
    }

    fn handles(&self, tool_type: &str) -> bool {
        self.handlers.contains_key(tool_type)
    }

    fn with_sources(&self, sources: Arc<SourceSet>) -> Option<Arc<dyn ToolHost>> {
        Some(Arc::new(ToolRegistry {
            handlers: self.handlers.clone(),
            providers: self.providers.clone(),
            sources,
            timeout: self.timeout,
            max_result_bytes: self.max_result_bytes,
        }))
    }
}
