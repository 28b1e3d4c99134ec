//! Sessions: one sandboxed instance of the component per agent conversation.
//!
//! A session owns a wasmtime `Store` with its own memory, its own mounts (volume
//! handles in its resource table) and its own limits. A trap (deadline, memory, fuel
//! or a guest bug) poisons only that session: the error says so, later calls are
//! refused, and the host creates a new one. The process and every other session go on.
//!
//! This file holds the session itself (its creation, the guarded call every export
//! goes through, the file operations); `tools.rs` its configured tools, skills,
//! prompts, agents and invocations (the WIT `tools` interface); `diagnostics.rs` the
//! test hooks.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use wasmtime::component::{Resource, ResourceAny};
use wasmtime::{Store, StoreLimitsBuilder, Trap};

use filestore_guest::vfs::limits::Limits;

use crate::bindings::VolumeHandle;
use crate::bindings::exports::filestore::component::diagnostics as diag;
use crate::bindings::exports::filestore::component::filestore as fs;
use crate::bindings::exports::filestore::component::tools as tw;
use crate::clocks::EPOCH_TICK;
use crate::engine::{DEFAULT_CALL_DEADLINE, Engine, ExportIndices};
use crate::error::{Error, Result, SandboxLimit};
use crate::glue::types::{from_wit_entry, from_wit_error};
use crate::state::HostState;
use crate::tools::{NoTools, ToolHost};
/// Mounts live with the volumes; a session is created over them.
pub use crate::volumes::{MountSpec, check_mounts};
pub use tools::shaping_variables;

mod diagnostics;
mod tools;

/// Per-session options.
#[derive(Clone)]
pub struct SessionOptions {
    /// Limits enforced inside the component (page sizes, regex size...).
    pub limits: Limits,
    /// Wall-clock deadline of each call.
    pub deadline: Duration,
    /// Fuel per call (requires an engine built with `fuel: true`).
    pub fuel: Option<u64>,
    /// Linear-memory cap (bytes); at most the engine's pool slot size.
    pub memory_bytes: Option<usize>,
    /// Executes external tools.
    pub tools: Arc<dyn ToolHost>,
    /// The session's id as tool handlers see it (`ToolRequest::session_id`), e.g. the
    /// embedder's conversation id. `None`: a process-unique id is generated per
    /// session, so sessions built from one cloned `SessionOptions` stay distinct.
    pub session_id: Option<String>,
    /// A flag that cancels the session's running call when set (shared with whoever
    /// may cancel it: the MCP server keeps one per connection so it can set it
    /// without waiting for the session). `None`: the session makes its own (see
    /// [`Session::cancel_handle`]).
    pub cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// Offer `filestore_execute`, the shell over the mounts (`serve --shell`); off
    /// by default. See [`Session::enable_shell`].
    pub shell: bool,
    /// Give each stored tool result an id unique across processes
    /// ([`crate::ids::new_call_id`], a ULID) instead of the session's
    /// `call_N` sequence: for sessions whose `/tool_calls` other processes write too
    /// (a conversation served by several replicas), where a sequence checked against
    /// the volume could hand one id to two writers.
    pub unique_call_ids: bool,
    /// Record every mutating call in this audit timeline (docs/audit.md), mounted
    /// read-only at `/audit` unless a mount takes that point (or `/`). `None`: no
    /// timeline.
    pub audit: Option<Arc<crate::audit::AuditLog>>,
    /// Whose share of the engine's memory budget the session's linear memory counts
    /// against ([`crate::memory_budget`]; the MCP server gives the authenticated
    /// caller's identity). `None`: the budget of all sessions only.
    pub memory_identity: Option<String>,
}

impl Default for SessionOptions {
    fn default() -> SessionOptions {
        SessionOptions {
            limits: Limits::default(),
            deadline: DEFAULT_CALL_DEADLINE,
            fuel: None,
            memory_bytes: None,
            tools: Arc::new(NoTools),
            session_id: None,
            cancel: None,
            shell: false,
            unique_call_ids: false,
            audit: None,
            memory_identity: None,
        }
    }
}

/// The id of a new session: the one the options give, or `session-{pid}-{n}`.
fn session_id(options: &SessionOptions) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    options.session_id.clone().unwrap_or_else(|| {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        format!("session-{}-{n}", std::process::id())
    })
}

/// A tool's result: structured JSON plus the text for an LLM.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutput {
    /// Structured result.
    pub json: Value,
    /// Rendered text.
    pub text: String,
}

/// Whether JSON text (from the component) can be passed on as it is, if it parses:
/// one line (no raw `\n` or `\r`, which would end an MCP stdio message) and no `\u`
/// escape (which could be a lone surrogate, refused by strict parsers). serde_json
/// writes neither for text without control characters.
fn passes_as_is(json: &str) -> bool {
    let bytes = json.as_bytes();
    memchr::memchr2(b'\n', b'\r', bytes).is_none() && memchr::memmem::find(bytes, b"\\u").is_none()
}

/// A tool's result with its JSON as text: see [`Session::call_unparsed`].
#[derive(Debug, Clone, PartialEq)]
pub struct UnparsedCallOutput {
    /// Structured result, as JSON text (well-formed; an object for a built-in).
    pub json: String,
    /// Rendered text.
    pub text: String,
}

/// A sandboxed filestore session.
pub struct Session {
    store: Store<HostState>,
    exports: Exports,
    handle: ResourceAny,
    deadline: Duration,
    fuel: Option<u64>,
    poisoned: Option<String>,
    /// Linear-memory cap in bytes (named in limit errors).
    memory_cap: usize,
    /// An agent configuration is loaded: built-in tools go through `invoke`, which
    /// refuses the ones the agent does not list.
    agent_loaded: bool,
    /// See [`SessionOptions::unique_call_ids`].
    unique_call_ids: bool,
    /// See [`SessionOptions::audit`].
    audit: Option<Arc<crate::audit::AuditLog>>,
    /// Audited calls waiting for approval, by approval id: recorded when approved.
    awaiting: std::collections::HashMap<String, crate::audit::Attempt>,
    /// The ids of the calls waiting for approval in the instance (audited or not):
    /// while there is one, the instance must not be replaced.
    parked: std::collections::HashSet<String>,
    /// Names for a trap's frames in the server's log.
    frame_names: Arc<crate::trap_log::FrameNames>,
}

/// One session's exported functions. Loading an interface type-checks every one
/// of its functions against the component (the three together were ~6 µs of each
/// new session), so `filestore` is loaded when the session is created (it
/// creates the session) and `tools` and `diagnostics` when first called: a session
/// that never configures tools never pays for them.
struct Exports {
    instance: wasmtime::component::Instance,
    indices: Arc<ExportIndices>,
    filestore: fs::Guest,
    tools: std::cell::OnceCell<tw::Guest>,
    diagnostics: std::cell::OnceCell<diag::Guest>,
}

impl Exports {
    /// The `filestore` interface.
    fn filestore_component_filestore(&self) -> &fs::Guest {
        &self.filestore
    }

    /// The `tools` interface, loaded on first use.
    fn filestore_component_tools(
        &self,
        store: &mut Store<HostState>,
    ) -> wasmtime::Result<&tw::Guest> {
        if let Some(t) = self.tools.get() {
            return Ok(t);
        }
        let t = self.indices.tools.load(store, &self.instance)?;
        Ok(self.tools.get_or_init(|| t))
    }

    /// The `diagnostics` interface, loaded on first use.
    fn filestore_component_diagnostics(
        &self,
        store: &mut Store<HostState>,
    ) -> wasmtime::Result<&diag::Guest> {
        if let Some(d) = self.diagnostics.get() {
            return Ok(d);
        }
        let d = self.indices.diagnostics.load(store, &self.instance)?;
        Ok(self.diagnostics.get_or_init(|| d))
    }
}

impl Engine {
    /// A session over `mounts` with default options.
    pub fn session(&self, mounts: Vec<MountSpec>) -> Result<Session> {
        self.session_with(mounts, SessionOptions::default())
    }

    /// A session over `mounts` with `options`.
    ///
    /// Refused ([`Error::Mount`]) when the mounts would not keep their
    /// promises (see [`check_mounts`]).
    pub fn session_with(&self, mounts: Vec<MountSpec>, options: SessionOptions) -> Result<Session> {
        let mut mounts = mounts;
        if let Some(audit) = &options.audit {
            crate::audit::mount_point(&mut mounts, audit);
        }
        check_mounts(&mounts)?;
        let mem = options
            .memory_bytes
            .unwrap_or(self.config().memory_bytes)
            .min(self.config().memory_bytes);
        let limits = StoreLimitsBuilder::new()
            .memory_size(mem)
            .instances(64)
            .tables(64)
            .memories(16)
            .build();
        let mut store = Store::new(
            self.wasmtime(),
            HostState::new(limits, options.tools.clone(), session_id(&options)),
        );
        // Charged from the first page of the instance's memory on.
        let account = self.memory_budget().account(options.memory_identity.as_deref());
        store.data_mut().charge_to(account);
        store.limiter(|s| s);
        if let Some(flag) = &options.cancel {
            // A cancellation is for the call that was running when it came: one that
            // interrupted the session this one replaces must not stop its setup (a
            // stale flag interrupted the new instance at its first epoch tick).
            flag.store(false, std::sync::atomic::Ordering::SeqCst);
            store.data_mut().cancel = flag.clone();
        }
        // Every epoch tick: stop for a cancellation, or at the deadline; else go on.
        store.epoch_deadline_callback(|mut ctx| {
            let state = ctx.data_mut();
            if state.cancel.load(std::sync::atomic::Ordering::SeqCst) {
                state.cancelled = true;
                return Ok(wasmtime::UpdateDeadline::Interrupt);
            }
            // The wall clock, not a count of ticks: a guest that waited in a host
            // call (a `sleep`) saw one check for many ticks.
            if std::time::Instant::now() >= state.deadline_at {
                return Ok(wasmtime::UpdateDeadline::Interrupt);
            }
            Ok(wasmtime::UpdateDeadline::Continue(1))
        });
        set_budget(&mut store, options.deadline, options.fuel)?;
        let instance = self
            .instance_pre()
            .instance_pre()
            .instantiate(&mut store)
            .map_err(|e| setup_failure(&store, mem, "instantiating the component", e))?;
        let indices = self.export_indices().clone();
        let exports = Exports {
            filestore: indices
                .filestore
                .load(&mut store, &instance)
                .map_err(|e| Error::setup("component exports", e))?,
            instance,
            indices,
            tools: Default::default(),
            diagnostics: Default::default(),
        };
        let mut wit_mounts = Vec::with_capacity(mounts.len());
        let audited = options.audit.is_some();
        if audited {
            store.data_mut().touched = Some(Vec::new());
        }
        for m in mounts {
            let touch = |cow_upper| {
                audited.then(|| crate::audit::TouchPoint { point: m.point.clone(), cow_upper })
            };
            let handle: Resource<VolumeHandle> = store
                .data_mut()
                .table
                .push(VolumeHandle { volume: m.volume, touch: touch(false) })
                .map_err(|e| Error::setup("volume table", e))?;
            let upper = match m.upper {
                Some(volume) => Some(
                    store
                        .data_mut()
                        .table
                        .push(VolumeHandle { volume, touch: touch(true) })
                        .map_err(|e| Error::setup("volume table", e))?,
                ),
                None => None,
            };
            wit_mounts.push(fs::Mount {
                point: m.point,
                volume: handle,
                priority: m.priority,
                read_only: m.read_only,
                upper,
            });
        }
        let l = &options.limits;
        let wit_limits = fs::Limits {
            read_tokens: Some(l.read_tokens.min(u32::MAX as usize) as u32),
            file_bytes: Some(l.file_bytes),
            regex_bytes: Some(l.regex_bytes.min(u32::MAX as usize) as u32),
            walk_entries: Some(l.walk_entries.min(u32::MAX as usize) as u32),
            grep_records: Some(l.grep_records.min(u32::MAX as usize) as u32),
            write_bytes: Some(l.write_bytes),
        };
        let handle = exports
            .filestore_component_filestore()
            .session()
            .call_create(&mut store, &wit_mounts, wit_limits)
            .map_err(|e| setup_failure(&store, mem, "creating the session", e))?
            .map_err(|e| Error::Filestore(from_wit_error(e)))?;
        let mut session = Session {
            store,
            exports,
            handle,
            deadline: options.deadline,
            fuel: options.fuel,
            poisoned: None,
            memory_cap: mem,
            agent_loaded: false,
            unique_call_ids: options.unique_call_ids,
            audit: options.audit.clone(),
            awaiting: Default::default(),
            parked: Default::default(),
            frame_names: self.frame_names().clone(),
        };
        if options.shell {
            session.enable_shell(true)?;
        }
        Ok(session)
    }
}

/// A failure while a session is made: `limit-exceeded` when the memory it needed
/// was refused (its cap, or a budget other sessions hold), else a setup error. The
/// refusal does not say `context`: a server answers an instantiation failure as a
/// full pool, and this one names its own bound.
fn setup_failure(store: &Store<HostState>, cap: usize, context: &str, e: wasmtime::Error) -> Error {
    match store.data().memory_denial() {
        Some(denial) => Error::LimitExceeded {
            limit: SandboxLimit::Memory,
            message: format!("a new sandbox: {}", memory_message(denial, cap)),
        },
        None => Error::setup(context, e),
    }
}

/// What a refused memory growth says: the session's cap, or the budget and its flag.
fn memory_message(denial: &crate::state::MemoryDenial, cap: usize) -> String {
    match denial {
        crate::state::MemoryDenial::Cap => {
            format!("linear memory would grow past the cap of {cap} bytes")
        }
        crate::state::MemoryDenial::Budget(refusal) => {
            format!("linear memory could not grow: {refusal}")
        }
    }
}

fn set_budget(store: &mut Store<HostState>, deadline: Duration, fuel: Option<u64>) -> Result<()> {
    // One tick at a time: the callback (see `session_with`) checks the deadline and
    // a cancellation at each.
    store.data_mut().deadline_at = std::time::Instant::now() + deadline.max(EPOCH_TICK);
    store.data_mut().cancelled = false;
    store.set_epoch_deadline(1);
    if let Some(f) = fuel {
        store.set_fuel(f).map_err(|e| Error::setup("fuel", e))?;
    }
    Ok(())
}

/// Logs a trap whole, with its WebAssembly backtrace (its frames named), on stderr
/// (the server's log): the caller is told only [`trap_line`] or the limit it hit.
fn log_trap(e: &wasmtime::Error, names: &crate::trap_log::FrameNames) {
    eprintln!("filestore: the sandbox trapped: {}", names.describe(e));
}

/// What a trap says to the caller (and through it the agent): one line, the trap's
/// own description (`wasm trap: ...`) or the innermost error's first line, never
/// the WebAssembly backtrace that comes with it, which says nothing to a model or
/// a user.
fn trap_line(e: &wasmtime::Error) -> String {
    let cause = match e.downcast_ref::<Trap>() {
        Some(trap) => trap.to_string(),
        None => e.root_cause().to_string(),
    };
    let line: String = cause.lines().next().unwrap_or_default().chars().take(300).collect();
    format!("{line} (the server's log has the details)")
}

impl Session {
    /// Runs one guest call with the per-call budget, converting traps into a
    /// poisoned session.
    fn guarded<T>(
        &mut self,
        f: impl FnOnce(
            &mut Store<HostState>,
            &Exports,
            ResourceAny,
        ) -> wasmtime::Result<
            std::result::Result<T, crate::bindings::filestore::component::types::Error>,
        >,
    ) -> Result<T> {
        if let Some(why) = &self.poisoned {
            return Err(Error::Poisoned(why.clone()));
        }
        // A cancellation is for the call that was running when it came.
        self.store.data().cancel.store(false, std::sync::atomic::Ordering::SeqCst);
        set_budget(&mut self.store, self.deadline, self.fuel)?;
        // Host-side volume work stops at 80% of the deadline, leaving the guest time
        // to return what happened (see volumes::with_work_deadline).
        let work_deadline = std::time::Instant::now() + self.deadline.mul_f64(0.8);
        let outcome = crate::volumes::with_work_deadline(work_deadline, || {
            f(&mut self.store, &self.exports, self.handle)
        });
        match outcome {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(Error::Filestore(from_wit_error(e))),
            Err(e) => {
                if matches!(e.downcast_ref::<Trap>(), Some(Trap::Interrupt))
                    && self.store.data().cancelled
                {
                    let why = "the call was cancelled; the sandbox was interrupted".to_string();
                    self.poisoned = Some(why.clone());
                    return Err(Error::Cancelled(why));
                }
                let limit = match e.downcast_ref::<Trap>() {
                    Some(Trap::Interrupt) => Some((
                        SandboxLimit::Deadline,
                        format!("the call ran past its deadline of {:?}", self.deadline),
                    )),
                    Some(Trap::OutOfFuel) => Some((
                        SandboxLimit::Fuel,
                        format!(
                            "the call ran out of fuel (budget {} per call)",
                            self.fuel.unwrap_or(0)
                        ),
                    )),
                    Some(Trap::StackOverflow) => {
                        log_trap(&e, &self.frame_names);
                        Some((
                            SandboxLimit::Stack,
                            "the call ran out of stack: what it worked on (a JSON value, a pattern, a command) is nested too deeply".to_string(),
                        ))
                    }
                    // Not the trap's text: it is the guest's abort with a wasm
                    // backtrace, which says nothing to the model or the user.
                    _ => self.store.data().memory_denial().map(|denial| {
                        (SandboxLimit::Memory, memory_message(denial, self.memory_cap))
                    }),
                };
                match limit {
                    Some((limit, message)) => {
                        self.poisoned = Some(format!("limit-exceeded ({limit}): {message}"));
                        Err(Error::LimitExceeded { limit, message })
                    }
                    None => {
                        log_trap(&e, &self.frame_names);
                        let why = trap_line(&e);
                        self.poisoned = Some(why.clone());
                        Err(Error::Trap(why))
                    }
                }
            }
        }
    }

    /// Runs a built-in tool by name (`filestore_read`...) with JSON arguments.
    ///
    /// Any other name (a configured tool after [`Session::load_config`], a dynamic
    /// tool) is invoked through [`Session::invoke`] with no call id and no claims: a
    /// completed call returns its envelope (`{"success": true, "data", "result_path"}`
    /// or the offloaded form) as `json` and the model's text; a pending call returns
    /// the pending envelope; a failed one is `Err` with its typed error.
    pub fn call(&mut self, tool: &str, args: &Value) -> Result<CallOutput> {
        self.call_with_claims(tool, args, &Value::Null)
    }

    /// [`Session::call`] on behalf of a caller whose tokens the host verified:
    /// `claims` (`{"auth service": {"claim": value}}`) reach a configured tool's
    /// `authRequired` check and its auth-bound parameters (a built-in tool ignores
    /// them). Only verified claims belong here: the component trusts them.
    pub fn call_with_claims(
        &mut self,
        tool: &str,
        args: &Value,
        claims: &Value,
    ) -> Result<CallOutput> {
        let builtin = filestore_guest::invoke::builtins::is_builtin(tool);
        if !builtin {
            return self.call_tool(tool, args, claims);
        }
        if self.agent_loaded {
            // Through `invoke`, which refuses what the agent does not list; the
            // answer is the built-in's own result, as on the direct path.
            let mut out = self.call_tool(tool, args, claims)?;
            out.json = out.json.get_mut("data").map(serde_json::Value::take).unwrap_or_default();
            return Ok(out);
        }
        let out = self.call_builtin_unparsed(tool, args)?;
        let json = serde_json::from_str(&out.json)
            .map_err(|e| Error::setup("guest returned invalid JSON", e))?;
        Ok(CallOutput { json, text: out.text })
    }

    /// [`Session::call_with_claims`] with the result's JSON as text, as the component
    /// wrote it, for a caller that only passes it on (the stdio server's fast path:
    /// parsing a listing's JSON into a `Value` and writing it out again was a sixth
    /// of the call). The text is checked to be JSON, on one line, without `\u`
    /// escapes (which could be a lone surrogate `Value` refuses): text that is not
    /// is parsed and written again, as `call_with_claims` would. A call that does
    /// not run a built-in directly is made as `call_with_claims` and its JSON written.
    pub fn call_unparsed(
        &mut self,
        tool: &str,
        args: &Value,
        claims: &Value,
    ) -> Result<UnparsedCallOutput> {
        if !filestore_guest::invoke::builtins::is_builtin(tool) || self.agent_loaded {
            let out = self.call_with_claims(tool, args, claims)?;
            let json = serde_json::to_string(&out.json)
                .map_err(|e| Error::setup("serialising a result", e))?;
            return Ok(UnparsedCallOutput { json, text: out.text });
        }
        let mut out = self.call_builtin_unparsed(tool, args)?;
        // Checked without building anything (no allocation per key or string) when
        // it can be passed on as it is, the usual case.
        if passes_as_is(&out.json) {
            serde_json::from_str::<serde::de::IgnoredAny>(&out.json)
                .map_err(|e| Error::setup("guest returned invalid JSON", e))?;
        } else {
            let json: Value = serde_json::from_str(&out.json)
                .map_err(|e| Error::setup("guest returned invalid JSON", e))?;
            out.json = serde_json::to_string(&json)
                .map_err(|e| Error::setup("serialising a result", e))?;
        }
        Ok(out)
    }

    /// A built-in tool run directly by the component, audited; its JSON unparsed
    /// and unchecked.
    fn call_builtin_unparsed(&mut self, tool: &str, args: &Value) -> Result<UnparsedCallOutput> {
        let attempt = self.audit_attempt(tool, args, None);
        self.audit_room(&attempt)?;
        // Into a buffer directly (`Value`'s `Display` goes through the formatter).
        let args = serde_json::to_string(args).unwrap_or_else(|_| args.to_string());
        let out = self.guarded(|store, b, h| {
            b.filestore_component_filestore().session().call_call(store, h, tool, &args)
        });
        self.audit_end(attempt, out.as_ref().err().map(Error::kind_name));
        let out = out?;
        Ok(UnparsedCallOutput { json: out.json, text: out.text })
    }

    /// Metadata of one path.
    pub fn stat(&mut self, path: &str) -> Result<filestore_guest::vfs::entry::Entry> {
        self.guarded(|store, b, h| {
            b.filestore_component_filestore().session().call_stat(store, h, path)
        })
        .map(from_wit_entry)
    }

    /// The filestore tools this session offers, as `{name, description, inputSchema,
    /// annotations}` objects.
    ///
    /// With a configuration loaded, the configured tools of the selected toolset and
    /// the dynamic tools follow the filestore tools (see [`Session::list_tools`]);
    /// [`Session::tools_version`] grows whenever this list changes.
    pub fn tool_specs(&mut self) -> Result<Vec<Value>> {
        self.list_tools(None)
    }

    /// Runs `f` against the typed WIT interface (for embedders who want the records
    /// rather than JSON), with the same deadline and trap handling.
    pub fn with_typed<T>(
        &mut self,
        f: impl FnOnce(
            &mut Store<HostState>,
            &fs::GuestSession,
            ResourceAny,
        ) -> wasmtime::Result<
            std::result::Result<T, crate::bindings::filestore::component::types::Error>,
        >,
    ) -> Result<T> {
        // A typed call names no tool the timeline knows (`session.write`, or a JSON
        // tool through `session.call`), so it is recorded by what it changed: as
        // [`crate::audit::TYPED_TOOL`], with the paths written through the volumes,
        // when it wrote any (a read records nothing).
        let audited = self.audit.is_some();
        if audited {
            self.start_touching();
        }
        let out =
            self.guarded(|store, b, h| f(store, &b.filestore_component_filestore().session(), h));
        let changed = self.store.data().touched.as_ref().is_some_and(|t| !t.is_empty());
        if audited && changed {
            let attempt = crate::audit::Attempt::new(crate::audit::TYPED_TOOL, &Value::Null, None);
            let error = out.as_ref().err().map(|e| e.kind_name());
            self.audit_end(Some(attempt), error);
        }
        out
    }

    /// The session's id, as external tool handlers receive it in every call
    /// ([`crate::tools::ToolRequest::session_id`]).
    pub fn id(&self) -> &str {
        &self.store.data().session_id
    }

    /// Whether an earlier trap made this session unusable.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.is_some()
    }

    /// A flag that, when set from any thread, interrupts the call running in this
    /// session at the next epoch tick (10 ms) with [`Error::Cancelled`]; the session is
    /// then poisoned like after a trap. Each call clears it when it starts.
    pub fn cancel_handle(&self) -> Arc<std::sync::atomic::AtomicBool> {
        self.store.data().cancel.clone()
    }

    /// Bytes of linear memory the session's instance uses now (what it grew to: linear
    /// memory never shrinks while the instance lives).
    pub fn memory_bytes(&self) -> usize {
        self.store.data().memory_in_use()
    }

    /// Whether a call is waiting for approval in the instance ([`Session::approve`],
    /// [`Session::reject`]): replacing the instance would drop it.
    pub fn has_parked_calls(&self) -> bool {
        !self.parked.is_empty()
    }

    /// Drops the instance now: its linear memory goes back to the engine's pool and
    /// its budget ([`crate::memory_budget`]), without waiting for the session itself
    /// to be dropped (a server about to make its replacement). The session is
    /// unusable after, as after a trap; the volumes are the host's and keep their
    /// content.
    pub fn release(&mut self) {
        let bare = HostState::new(Default::default(), Arc::new(NoTools), self.id().to_string());
        let engine = self.store.engine().clone();
        let old = std::mem::replace(&mut self.store, Store::new(&engine, bare));
        drop(old);
        self.poisoned.get_or_insert_with(|| "the sandbox was released".to_string());
        self.parked.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::passes_as_is;

    /// What serde_json writes of plain text passes as is; a raw line break, a `\u`
    /// escape (a lone surrogate among them) does not, and is parsed and written again.
    #[test]
    fn only_one_line_json_without_unicode_escapes_passes_as_is() {
        let plain = serde_json::json!({"path": "/w/ünï \"q\" \\ 😀", "n": 1});
        assert!(passes_as_is(&serde_json::to_string(&plain).unwrap()));
        for text in ["{\"a\":\n1}", "{\"a\":1}\r", r#"{"a":"\ud800"}"#, r#"{"a":"\u0001"}"#] {
            assert!(!passes_as_is(text), "{text}");
        }
    }

    /// A trap is told in one line, without the WebAssembly backtrace wasmtime puts
    /// around it (the error's outer context).
    #[test]
    fn a_trap_is_told_in_one_line() {
        let backtrace = "error while executing at wasm backtrace:\n    0: 0x1f2e3 - jaq::parse\n    1: 0x1f2e4 - <unknown>";
        let trap = wasmtime::Error::new(wasmtime::Trap::UnreachableCodeReached).context(backtrace);
        let host = wasmtime::Error::msg("a host import failed\nsecond line").context(backtrace);
        for (e, says) in [
            (trap, "wasm trap: wasm `unreachable` instruction executed"),
            (host, "a host import failed"),
        ] {
            let line = super::trap_line(&e);
            assert_eq!(line, format!("{says} (the server's log has the details)"));
            assert!(format!("{e:#}").contains("0x1f2e3"), "the backtrace is the error's own");
        }
    }
}
