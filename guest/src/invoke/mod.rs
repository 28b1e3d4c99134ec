//! Tool invocation (DESIGN §6 Invocation, §7): one entry point for every tool a
//! session offers, and the session's tool state.
//!
//! `invoke(name, args, context)`:
//!
//! 1. **find** the tool: a built-in `filestore_*` tool; a *dynamic* tool (activated by
//!    a skill through [`activate`], or a provider tool registered by [`resolve`]); a
//!    configured tool of the selected toolset. A configured tool outside the selected
//!    toolset is `not-found` until something activates it.
//! 2. **authorise** (`authRequired`: any one listed service verified the caller) and
//! 3. **validate and default** the arguments ([`params::validate_call`]); auth
//!    parameters take their values from the verified claims only.
//! 4. **run**: built-ins inside the component, never stored or offloaded; every other
//!    tool through the host ([`ToolExecutor`], the imported `tool-host` in the
//!    component) with its type, source name, call ref, configuration document (tools
//!    hold no secrets), validated arguments, positional values and templated
//!    statement. The host enforces the timeout.
//!
//! External results are stored read-only in the results volume ([`crate::invoke::results`])
//! and, when larger than the offload threshold, reach the model as a preview plus the
//! path. A tool with `requiresApproval: true` is validated and then parked: the
//! outcome is *pending* with an approval id, and nothing runs until [`approve`];
//! [`reject`] drops it and stores nothing.
//!
//! Every outcome carries one envelope: `{"success": true, "data": ...}` or
//! `{"success": false, "error": {"code", "message"}}` (see [`InvokeOutcome`]).
//!
//! **Extension point for skills.** The session's dynamic-tool registry
//! ([`ToolState::dynamic`]) holds tools activated at run time. A skill loader calls
//! [`activate`] with the names of a skill's `allowed-tools`; each becomes callable and
//! listed, and the tools version ([`ToolState::version`]) grows so an MCP server can
//! announce `tools/list_changed`.
//!
//! ```
//! use filestore_guest::invoke::{self, InvokeContext, ExternalCall};
//! use filestore_guest::{session::Session, vfs::volume::MemoryVolume};
//! use serde_json::json;
//! let mut s = Session::new(Default::default());
//! s.mount("/tool_calls", Box::new(MemoryVolume::new()), 0, true).unwrap();
//! let yaml = "kind: source\nname: db\ntype: sqlite\ndatabase: /tmp/x.db\n---\n\
//!     kind: tool\nname: find\ntype: sqlite-sql\nsource: db\ndescription: d\n\
//!     statement: SELECT ?\nparameters:\n  - {name: id, type: integer}\n";
//! invoke::load_config(&s, &[("tools.yaml", yaml)]).unwrap();
//! let host = |c: &ExternalCall| Ok(json!([{"id": c.positional[0]}]).to_string());
//! let out = invoke::invoke(&s, "find", &json!({"id": 7}), &InvokeContext::default(), &host);
//! assert_eq!(out.envelope["data"][0]["id"], 7);
//! assert_eq!(out.result_path.as_deref(), Some("/tool_calls/find/call_1/result-1.json"));
//! ```

pub mod results;

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::error::{Error, ErrorKind, Result};
use crate::ops::builtin;
use crate::session::Session;
use crate::tools::config::{CheckReport, Config, ConfigError, ToolConfig};
use crate::tools::manifest::{self, ToolSpec};
use crate::tools::params::{self, VerifiedClaims};
use crate::tools::toolrefs::{self, CallRef, ConnectionChecker, ResolvedTool};

/// Most dynamic tools one session holds. Bounds what a stream of skill activations or
/// resolved refs can add to every `tools/list`.
pub const MAX_DYNAMIC_TOOLS: usize = 1000;

/// Most calls waiting for approval in one session. Bounds memory held by parked
/// calls that nobody decides.
pub const MAX_PENDING_APPROVALS: usize = 1000;

/// Tool type sent to the host for provider tools (resolved agent refs); the call ref
/// says which provider action to run.
pub const PROVIDER_TOOL_TYPE: &str = "provider";

/// One external call, as the host receives it (WIT `tool-host.tool-call`).
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalCall {
    /// The tool's name as the agent sees it.
    pub tool_name: String,
    /// The tool's `type`: selects the host handler.
    pub tool_type: String,
    /// The source the tool names; the host holds its configuration.
    pub source: Option<String>,
    /// The provider call ref (`tools.{provider}.{integration}.{action}.{connection}`).
    pub call_ref: Option<String>,
    /// The tool's configuration document (no secrets: sources are not included).
    pub config: Value,
    /// Validated, defaulted arguments, by name.
    pub arguments: Value,
    /// Positional values (`parameters`), in declared order.
    pub positional: Vec<Value>,
    /// The statement after template substitution.
    pub statement: Option<String>,
    /// For http tools: the path with `pathParams` substituted and percent-encoded.
    pub path: Option<String>,
    /// The call id under which the result is stored.
    pub tool_call_id: String,
    /// Verified claims per auth service.
    pub claims: Value,
}

/// Runs external calls: the component implements it over the imported `tool-host`;
/// native tests use closures (`Fn(&ExternalCall) -> Result<String>`). Returns the
/// result as JSON text (anything else is kept as a JSON string).
pub trait ToolExecutor {
    /// Runs one call.
    fn call(&self, call: &ExternalCall) -> Result<String>;
}

impl<F: Fn(&ExternalCall) -> Result<String>> ToolExecutor for F {
    fn call(&self, call: &ExternalCall) -> Result<String> {
        self(call)
    }
}

/// Who is invoking.
#[derive(Clone, Debug, Default)]
pub struct InvokeContext {
    /// The model's call id; generated when absent.
    pub tool_call_id: Option<String>,
    /// Claims the host verified, per auth service: `{"service": {"claim": value}}`
    /// (`null` or `{}`: none).
    pub claims: Value,
}

/// A tool added at run time.
#[derive(Clone, Debug)]
pub enum DynamicTool {
    /// A configured tool (by name) activated outside the selected toolset.
    Configured(String),
    /// A provider action resolved from an agent tool ref.
    Provider {
        /// Its spec.
        spec: Box<ToolSpec>,
        /// What the host runs.
        call_ref: CallRef,
    },
}

/// A validated call waiting for approval.
#[derive(Clone, Debug)]
struct PendingCall {
    call: ExternalCall,
}

/// The tool state of one session: configuration, exposure, dynamic tools, pending
/// approvals, counters.
#[derive(Debug, Default)]
pub struct ToolState {
    config: Option<Config>,
    toolset: Option<String>,
    /// Dynamic tools by name, in activation order (the skills extension point).
    pub dynamic: Vec<(String, DynamicTool)>,
    pending: BTreeMap<String, PendingCall>,
    next_approval: u64,
    next_call: u64,
    /// Grows whenever the tool list changes.
    pub version: u64,
    offload_tokens: Option<usize>,
    /// Tools activated by reading skills (LRU of skills, capped per skill).
    pub skills: crate::skills::skill::ActiveSkills,
}

impl ToolState {
    /// The loaded configuration.
    pub fn config(&self) -> Option<&Config> {
        self.config.as_ref()
    }

    /// The selected toolset (`None`: every configured tool).
    pub fn toolset(&self) -> Option<&str> {
        self.toolset.as_deref()
    }

    /// The offloading threshold in tokens.
    pub fn offload_tokens(&self) -> usize {
        self.offload_tokens.unwrap_or(results::DEFAULT_OFFLOAD_TOKENS)
    }

    /// Sets the offloading threshold in tokens.
    pub fn set_offload_tokens(&mut self, tokens: usize) {
        self.offload_tokens = Some(tokens);
    }

    fn dynamic_tool(&self, name: &str) -> Option<&DynamicTool> {
        self.dynamic.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    fn exposed(&self) -> Vec<&ToolConfig> {
        match &self.config {
            None => Vec::new(),
            Some(c) => c.toolset(self.toolset.as_deref().unwrap_or("")).unwrap_or_default(),
        }
    }
}

/// How an invocation ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InvokeStatus {
    /// The tool ran.
    Completed,
    /// The tool was refused or failed.
    Failed,
    /// The tool waits for approval.
    Pending,
}

/// The outcome of [`invoke`] or [`approve`].
#[derive(Clone, Debug)]
pub struct InvokeOutcome {
    /// Completed, failed or pending.
    pub status: InvokeStatus,
    /// The envelope: `{"success": true, "data", "result_path"?}`, the offloaded form
    /// `{"success": true, "offloaded": true, "result_path", "tokens", "preview"}`,
    /// `{"success": false, "error": {"code", "message"}}`, or for a pending call
    /// `{"success": false, "pending": true, "approval_id", "error": {"code":
    /// "approval-pending", ...}}`.
    pub envelope: Value,
    /// What the model sees.
    pub text: String,
    /// The error of a failed invocation.
    pub error: Option<Error>,
    /// The pending call's id.
    pub approval_id: Option<String>,
    /// Where the result was stored.
    pub result_path: Option<String>,
    /// Only a preview reached the model.
    pub offloaded: bool,
}

impl InvokeOutcome {
    fn failed(e: Error) -> InvokeOutcome {
        InvokeOutcome {
            status: InvokeStatus::Failed,
            envelope: json!({"success": false, "error": {"code": e.kind().as_str(), "message": e.to_string()}}),
            text: format!("error[{}]: {e}", e.kind().as_str()),
            error: Some(e),
            approval_id: None,
            result_path: None,
            offloaded: false,
        }
    }
}

// ---- configuration -------------------------------------------------------------

/// Loads configuration files as the session's configured tools (replacing any
/// earlier configuration and resetting the toolset to all). On error nothing changes.
pub fn load_config<N: AsRef<str>, T: AsRef<str>>(
    session: &Session,
    files: &[(N, T)],
) -> std::result::Result<CheckReport, Vec<ConfigError>> {
    let config = Config::load(files)?;
    let report = config.check_report();
    let mut st = session.tool_state().borrow_mut();
    st.config = Some(config);
    st.toolset = None;
    st.version += 1;
    Ok(report)
}

/// Selects the exposed toolset (`None`: every configured tool). Unknown: `not-found`.
pub fn select_toolset(session: &Session, toolset: Option<&str>) -> Result<()> {
    let mut st = session.tool_state().borrow_mut();
    if let Some(name) = toolset {
        match &st.config {
            Some(c) => {
                c.toolset(name)?;
            }
            None => {
                return Err(Error::new(
                    ErrorKind::NotFound,
                    format!("unknown toolset '{name}': no configuration is loaded"),
                ));
            }
        }
    }
    st.toolset = toolset.map(String::from);
    st.version += 1;
    Ok(())
}

/// Activates configured tools by name for this session (the skills extension point:
/// a skill's `allowed-tools`). Built-in names are accepted and ignored (always
/// available); an unknown name is `not-found`. Returns how many tools were added.
pub fn activate(session: &Session, names: &[&str]) -> Result<usize> {
    let mut st = session.tool_state().borrow_mut();
    let mut added = 0;
    for name in names {
        if builtin::is_builtin(name) || st.dynamic_tool(name).is_some() {
            continue;
        }
        if st.config.as_ref().and_then(|c| c.tool(name)).is_none() {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("cannot activate tool '{name}': it is not configured"),
            ));
        }
        push_dynamic(&mut st, name.to_string(), DynamicTool::Configured(name.to_string()))?;
        added += 1;
    }
    if added > 0 {
        st.version += 1;
    }
    Ok(added)
}

fn push_dynamic(st: &mut ToolState, name: String, tool: DynamicTool) -> Result<()> {
    if let Some(slot) = st.dynamic.iter_mut().find(|(n, _)| *n == name) {
        slot.1 = tool;
        return Ok(());
    }
    if st.dynamic.len() >= MAX_DYNAMIC_TOOLS {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "cannot add tool '{name}': the session already has {MAX_DYNAMIC_TOOLS} dynamic tools"
            ),
        ));
    }
    st.dynamic.push((name, tool));
    Ok(())
}

/// Resolves agent tool refs (see [`toolrefs`]) and registers the provider tools as
/// dynamic tools of the session.
pub fn resolve(
    session: &Session,
    refs: &Value,
    checker: &dyn ConnectionChecker,
) -> Result<Vec<ResolvedTool>> {
    let refs = toolrefs::parse_refs(refs)?;
    let builtins: Vec<ToolSpec> = builtin::specs(session.writable())
        .iter()
        .filter_map(|s| serde_json::to_value(s).ok())
        .filter_map(|v| ToolSpec::from_json(&v).ok())
        .collect();
    let resolved = toolrefs::resolve_refs(&refs, &builtins, checker)?;
    let mut st = session.tool_state().borrow_mut();
    let mut added = false;
    for r in &resolved {
        if let Some(c) = &r.call_ref {
            push_dynamic(
                &mut st,
                r.name.clone(),
                DynamicTool::Provider { spec: Box::new(r.spec.clone()), call_ref: c.clone() },
            )?;
            added = true;
        }
    }
    if added {
        st.version += 1;
    }
    Ok(resolved)
}

/// The tools the session offers, as MCP tool specs: the filestore tools, the
/// configured tools of `toolset` (`None`: the selected one), then the dynamic tools.
/// Names are unique: the first of a name wins (built-ins first).
pub fn list_tools(session: &Session, toolset: Option<&str>) -> Result<Vec<Value>> {
    let mut out: Vec<Value> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for s in session.tool_specs() {
        if let Ok(v) = serde_json::to_value(&s) {
            seen.insert(s.name.clone());
            out.push(v);
        }
    }
    let st = session.tool_state().borrow();
    let configured: Vec<&ToolConfig> = match (toolset, &st.config) {
        (Some(name), Some(c)) => c.toolset(name)?,
        (Some(name), None) => {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("unknown toolset '{name}': no configuration is loaded"),
            ));
        }
        (None, _) => st.exposed(),
    };
    for t in configured {
        if seen.insert(t.name.clone()) {
            out.push(manifest::spec(t).to_json());
        }
    }
    for (name, d) in &st.dynamic {
        if !seen.insert(name.clone()) {
            continue;
        }
        match d {
            DynamicTool::Configured(n) => {
                if let Some(t) = st.config.as_ref().and_then(|c| c.tool(n)) {
                    out.push(manifest::spec(t).to_json());
                }
            }
            DynamicTool::Provider { spec, .. } => out.push(spec.to_json()),
        }
    }
    for name in st.skills.tools() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(skill) = st.skills.callable(&name) {
            out.push(manifest::spec(&skill.spec).to_json());
        } else if let Some(t) = st.config.as_ref().and_then(|c| c.tool(&name)) {
            out.push(manifest::spec(t).to_json());
        }
    }
    Ok(out)
}

/// Activates the `allowed-tools` of the skill whose `SKILL.md` is at `path` (an entry
/// of type `skill`, i.e. validated when the skills volume was loaded). Called when
/// the agent reads a skill with `filestore_read`. Unknown tools are reported in the
/// activation, not fatal; tools already offered are not duplicated.
pub fn activate_skill(session: &Session, path: &str) -> Result<crate::skills::skill::Activation> {
    use crate::skills::skill;
    let (entry, bytes) = session.mounts().read_all(path, skill::MAX_SKILL_FILE_BYTES as u64)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::at(ErrorKind::InvalidArgument, path, "SKILL.md is not UTF-8 text"))?;
    let folder = crate::vfs::paths::parent(&entry.path)
        .map(crate::vfs::paths::file_name)
        .unwrap_or_default();
    let skill = skill::parse(&entry.path, folder, &text)
        .map_err(|p| Error::at(ErrorKind::InvalidArgument, path, p.reasons.join("; ")))?;
    let descriptor = read_descriptor(session, &entry.path, &skill)?;
    let mut st = session.tool_state().borrow_mut();
    let exposed: Vec<String> = st.exposed().into_iter().map(|t| t.name.clone()).collect();
    let dynamic: Vec<String> = st.dynamic.iter().map(|(n, _)| n.clone()).collect();
    let configured: Vec<String> = st
        .config
        .as_ref()
        .map(|c| c.tools().iter().map(|t| t.name.clone()).collect())
        .unwrap_or_default();
    let known = |t: &str| {
        builtin::is_builtin(t)
            || configured.iter().any(|c| c == t)
            || dynamic.iter().any(|d| d == t)
    };
    let is_static = |t: &str| {
        builtin::is_builtin(t) || exposed.iter().any(|e| e == t) || dynamic.iter().any(|d| d == t)
    };
    // The skill as a tool: bound to the configuration now (it may have changed since
    // the skills were loaded), and never shadowing a tool the session already has.
    let mut not_callable = None;
    let callable = match descriptor {
        None => None,
        Some(d) => {
            let taken = known(&skill.name) && st.skills.callable(&skill.name).is_none();
            match crate::skills::descriptor::bind(&skill, &d, st.config.as_ref()) {
                Ok(_) if taken => {
                    not_callable = Some(format!("a tool named '{}' already exists", skill.name));
                    None
                }
                Ok(t) => Some(t),
                Err(why) => {
                    not_callable = Some(why);
                    None
                }
            }
        }
    };
    let mut active = std::mem::take(&mut st.skills);
    let mut act = active.activate(&skill, known, is_static, callable);
    act.not_callable = not_callable;
    st.skills = active;
    if !act.added.is_empty() || !act.removed.is_empty() {
        st.version += 1;
    }
    Ok(act)
}

/// Reads and checks the descriptor of the skill whose `SKILL.md` is at `skill_md`
/// (metadata, or the sidecar beside it). An invalid descriptor is an error naming
/// every reason, as at load time.
fn read_descriptor(
    session: &Session,
    skill_md: &str,
    skill: &crate::skills::skill::Skill,
) -> Result<Option<crate::skills::descriptor::Descriptor>> {
    use crate::skills::descriptor::{self, DESCRIPTOR_FILE, MAX_DESCRIPTOR_BYTES};
    let dir = crate::vfs::paths::parent(skill_md).unwrap_or("/");
    let sidecar_path = crate::vfs::paths::join(dir, DESCRIPTOR_FILE)?;
    let sidecar = match session.mounts().read_all(&sidecar_path, MAX_DESCRIPTOR_BYTES as u64) {
        Ok((_, bytes)) => Some(String::from_utf8(bytes).map_err(|_| {
            Error::at(ErrorKind::InvalidArgument, &sidecar_path, "descriptor is not UTF-8 text")
        })?),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    descriptor::load(skill, sidecar.as_deref().map(|t| (sidecar_path.as_str(), t))).map_err(
        |reasons| {
            Error::at(
                ErrorKind::InvalidArgument,
                skill_md,
                format!("invalid skill descriptor: {}", reasons.join("; ")),
            )
        },
    )
}

/// The session's tools version (see [`ToolState::version`]).
pub fn tools_version(session: &Session) -> u64 {
    session.tool_state().borrow().version
}

// ---- invocation ----------------------------------------------------------------

enum Found {
    Builtin,
    Configured(Box<ToolConfig>),
    Provider(CallRef),
    /// A skill called through its descriptor, and the configured tool that runs it.
    Skill(Box<crate::skills::descriptor::SkillTool>, Box<ToolConfig>),
}

fn find(session: &Session, name: &str) -> Result<Found> {
    if builtin::is_builtin(name) {
        return Ok(Found::Builtin);
    }
    let st = session.tool_state().borrow();
    match st.dynamic_tool(name) {
        Some(DynamicTool::Provider { call_ref, .. }) => {
            return Ok(Found::Provider(call_ref.clone()));
        }
        Some(DynamicTool::Configured(n)) => {
            if let Some(t) = st.config.as_ref().and_then(|c| c.tool(n)) {
                return Ok(Found::Configured(Box::new(t.clone())));
            }
        }
        None => {}
    }
    if let Some(t) = st.exposed().into_iter().find(|t| t.name == name) {
        return Ok(Found::Configured(Box::new(t.clone())));
    }
    if let Some(skill) = st.skills.callable(name) {
        let target = st.config.as_ref().and_then(|c| c.tool(&skill.descriptor.tool));
        return match target {
            Some(t) => Ok(Found::Skill(Box::new(skill.clone()), Box::new(t.clone()))),
            None => Err(Error::new(
                ErrorKind::NotFound,
                format!(
                    "skill '{name}' runs tool '{}', which is no longer configured",
                    skill.descriptor.tool
                ),
            )),
        };
    }
    if st.skills.tools().iter().any(|t| t == name)
        && let Some(t) = st.config.as_ref().and_then(|c| c.tool(name))
    {
        return Ok(Found::Configured(Box::new(t.clone())));
    }
    if st.config.as_ref().and_then(|c| c.tool(name)).is_some() {
        return Err(Error::new(
            ErrorKind::NotFound,
            format!(
                "tool '{name}' is configured but not in the selected toolset '{}'; a skill can activate it",
                st.toolset.as_deref().unwrap_or("")
            ),
        ));
    }
    let mut names: Vec<String> = session.tool_specs().into_iter().map(|s| s.name).collect();
    names.extend(st.exposed().into_iter().map(|t| t.name.clone()));
    names.extend(st.dynamic.iter().map(|(n, _)| n.clone()));
    for t in st.skills.tools() {
        if !names.contains(&t) {
            names.push(t);
        }
    }
    Err(Error::new(
        ErrorKind::NotFound,
        format!("unknown tool '{name}'; this session offers {}", names.join(", ")),
    ))
}

fn call_id(session: &Session, tool: &str, given: &Option<String>) -> String {
    if let Some(id) = given {
        return id.clone();
    }
    let mut st = session.tool_state().borrow_mut();
    loop {
        st.next_call += 1;
        let id = format!("call_{}", st.next_call);
        // Never reuse an id whose directory exists (another session sharing the
        // volume, or a model that chose `call_1` itself).
        if !results::call_dir_exists(session.mounts(), tool, &id) {
            return id;
        }
    }
}

/// Invokes a tool (see the module docs). Never fails: refusals and failures are a
/// [`InvokeStatus::Failed`] outcome.
pub fn invoke(
    session: &Session,
    name: &str,
    args: &Value,
    ctx: &InvokeContext,
    exec: &dyn ToolExecutor,
) -> InvokeOutcome {
    match prepare(session, name, args, ctx) {
        Err(e) => InvokeOutcome::failed(e),
        Ok(Prepared::Builtin) => run_builtin(session, name, args),
        Ok(Prepared::External { call, approval: false }) => run_external(session, &call, exec),
        Ok(Prepared::External { call, approval: true }) => park(session, *call),
    }
}

enum Prepared {
    Builtin,
    External { call: Box<ExternalCall>, approval: bool },
}

fn prepare(session: &Session, name: &str, args: &Value, ctx: &InvokeContext) -> Result<Prepared> {
    let claims = VerifiedClaims::from_json(&ctx.claims)?;
    let claims_json = || if ctx.claims.is_null() { json!({}) } else { ctx.claims.clone() };
    match find(session, name)? {
        Found::Builtin => Ok(Prepared::Builtin),
        Found::Skill(skill, target) => {
            // The model's arguments against the skill's inputs first (its schema is
            // what the model saw), then the fixed arguments, then the target's rules.
            params::check_auth_required(&skill.spec.name, &skill.spec.auth_required, &claims)?;
            let inputs = params::validate_args(&skill.spec.parameters, args, &claims)?;
            let mut merged = skill.descriptor.arguments.clone();
            for a in inputs.iter() {
                if let Some(v) = &a.value {
                    merged.insert(a.name.clone(), v.clone());
                }
            }
            let v =
                params::validate_call(&target, &Value::Object(merged), &claims).map_err(|e| {
                    Error::new(
                        e.kind(),
                        format!("skill '{}' (runs tool '{}'): {e}", skill.spec.name, target.name),
                    )
                })?;
            let call = ExternalCall {
                tool_name: skill.spec.name.clone(),
                tool_type: target.tool_type.clone(),
                source: target.source.clone(),
                call_ref: None,
                config: Value::Object(target.document.clone()),
                arguments: Value::Object(v.args.to_object()),
                positional: v.args.positional(),
                statement: v.statement,
                path: v.path,
                tool_call_id: call_id(session, &skill.spec.name, &ctx.tool_call_id),
                claims: claims_json(),
            };
            Ok(Prepared::External {
                call: Box::new(call),
                approval: skill.spec.annotations.requires_approval,
            })
        }
        Found::Configured(tool) => {
            let v = params::validate_call(&tool, args, &claims)?;
            let call = ExternalCall {
                tool_name: tool.name.clone(),
                tool_type: tool.tool_type.clone(),
                source: tool.source.clone(),
                call_ref: None,
                config: Value::Object(tool.document.clone()),
                arguments: Value::Object(v.args.to_object()),
                positional: v.args.positional(),
                statement: v.statement,
                path: v.path,
                tool_call_id: call_id(session, &tool.name, &ctx.tool_call_id),
                claims: claims_json(),
            };
            Ok(Prepared::External {
                call: Box::new(call),
                approval: tool.annotations.requires_approval,
            })
        }
        Found::Provider(call_ref) => {
            let arguments = match args {
                Value::Null => json!({}),
                Value::Object(_) => args.clone(),
                other => {
                    return Err(Error::new(
                        ErrorKind::InvalidArgument,
                        format!("arguments of '{name}' must be a JSON object, got {other}"),
                    ));
                }
            };
            let call = ExternalCall {
                tool_name: name.to_string(),
                tool_type: PROVIDER_TOOL_TYPE.to_string(),
                source: None,
                call_ref: Some(call_ref.to_string()),
                config: json!({"kind": "tool", "name": name, "type": PROVIDER_TOOL_TYPE}),
                arguments,
                positional: Vec::new(),
                statement: None,
                path: None,
                tool_call_id: call_id(session, name, &ctx.tool_call_id),
                claims: claims_json(),
            };
            Ok(Prepared::External { call: Box::new(call), approval: false })
        }
    }
}

fn run_builtin(session: &Session, name: &str, args: &Value) -> InvokeOutcome {
    match session.call(name, args) {
        Ok(out) => InvokeOutcome {
            status: InvokeStatus::Completed,
            envelope: json!({"success": true, "data": out.json}),
            text: out.text,
            error: None,
            approval_id: None,
            result_path: None,
            offloaded: false,
        },
        Err(e) => InvokeOutcome::failed(e),
    }
}

fn park(session: &Session, call: ExternalCall) -> InvokeOutcome {
    let mut st = session.tool_state().borrow_mut();
    if st.pending.len() >= MAX_PENDING_APPROVALS {
        return InvokeOutcome::failed(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "{MAX_PENDING_APPROVALS} calls already wait for approval; approve or reject some first"
            ),
        ));
    }
    st.next_approval += 1;
    let id = format!("approval_{}", st.next_approval);
    let message = format!(
        "tool '{}' requires approval; the call waits as '{id}' until the host approves or rejects it",
        call.tool_name
    );
    st.pending.insert(id.clone(), PendingCall { call });
    InvokeOutcome {
        status: InvokeStatus::Pending,
        envelope: json!({"success": false, "pending": true, "approval_id": id,
                         "error": {"code": "approval-pending", "message": message}}),
        text: message,
        error: None,
        approval_id: Some(id),
        result_path: None,
        offloaded: false,
    }
}

/// Runs a pending call. An unknown or already decided id is `not-found`.
pub fn approve(session: &Session, id: &str, exec: &dyn ToolExecutor) -> Result<InvokeOutcome> {
    let pending = session.tool_state().borrow_mut().pending.remove(id);
    match pending {
        Some(p) => Ok(run_external(session, &p.call, exec)),
        None => Err(unknown_approval(id)),
    }
}

/// Drops a pending call without running it. An unknown id is `not-found`.
pub fn reject(session: &Session, id: &str) -> Result<()> {
    match session.tool_state().borrow_mut().pending.remove(id) {
        Some(_) => Ok(()),
        None => Err(unknown_approval(id)),
    }
}

fn unknown_approval(id: &str) -> Error {
    Error::new(ErrorKind::NotFound, format!("no call waits for approval as '{id}'"))
}

fn run_external(session: &Session, call: &ExternalCall, exec: &dyn ToolExecutor) -> InvokeOutcome {
    let text = match exec.call(call) {
        Ok(t) => t,
        Err(e) => return InvokeOutcome::failed(e),
    };
    let (data, result_type) = match serde_json::from_str::<Value>(&text) {
        Ok(v) => (v, "json"),
        Err(_) => (Value::String(text), "text"),
    };
    let rendered = results::result_text(&data);
    let stored =
        results::store(session.mounts(), &call.tool_name, &call.tool_call_id, result_type, &data);
    let mut outcome = InvokeOutcome {
        status: InvokeStatus::Completed,
        envelope: Value::Null,
        text: String::new(),
        error: None,
        approval_id: None,
        result_path: None,
        offloaded: false,
    };
    match stored {
        Ok(Some(stored)) => {
            let tokens = results::estimate_tokens(&rendered);
            let threshold = session.tool_state().borrow().offload_tokens();
            if tokens > threshold {
                outcome.envelope = json!({
                    "success": true,
                    "offloaded": true,
                    "result_path": stored.path,
                    "tokens": tokens,
                    "preview": results::preview(&rendered),
                });
                outcome.text =
                    results::offload_message(&call.tool_name, &stored.path, &rendered, tokens);
                outcome.offloaded = true;
            } else {
                outcome.envelope =
                    json!({"success": true, "data": data, "result_path": stored.path});
                outcome.text = rendered;
            }
            outcome.result_path = Some(stored.path);
        }
        Ok(None) => {
            outcome.envelope = json!({"success": true, "data": data});
            outcome.text = rendered;
        }
        // The tool ran (maybe with side effects): never turn that into a failure
        // that invites a retry. The result goes back inline with the reason.
        Err(e) => {
            outcome.envelope =
                json!({"success": true, "data": data, "storage_error": e.to_string()});
            outcome.text = rendered;
        }
    }
    outcome
}

/// The session's tool state cell type (see [`Session::tool_state`]).
pub type ToolStateCell = RefCell<ToolState>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::volume::MemoryVolume;

    const YAML: &str = "kind: source\nname: db\ntype: sqlite\ndatabase: /tmp/x.db\n---\n\
kind: tool\nname: find\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT ?\n\
parameters:\n  - {name: id, type: integer}\n---\n\
kind: tool\nname: drop\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: DELETE FROM t\n\
requiresApproval: true\n---\n\
kind: tool\nname: secret\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT ?\n\
authRequired: [g]\nparameters:\n  - {name: email, type: string, authServices: [{name: g, field: email}]}\n---\n\
kind: authService\nname: g\ntype: google\nclientId: x\n---\n\
kind: toolset\nname: small\ntools: [find]\n";

    fn session() -> Session {
        let mut s = Session::new(Default::default());
        s.mount("/tool_calls", Box::new(MemoryVolume::new()), 0, true).unwrap();
        s.mount("/w", Box::new(MemoryVolume::new()), 0, false).unwrap();
        load_config(&s, &[("t.yaml", YAML)]).unwrap();
        s
    }

    fn echo(c: &ExternalCall) -> Result<String> {
        Ok(json!({"args": c.arguments, "positional": c.positional, "claims": c.claims}).to_string())
    }

    #[test]
    fn configured_tool_runs_and_is_stored() {
        let s = session();
        let ctx = InvokeContext { tool_call_id: Some("abc".into()), ..Default::default() };
        let out = invoke(&s, "find", &json!({"id": 3}), &ctx, &echo);
        assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
        assert_eq!(out.envelope["data"]["positional"], json!([3]));
        let path = out.result_path.unwrap();
        assert_eq!(path, "/tool_calls/find/abc/result-1.json");
        let read = s.call("filestore_read", &json!({"path": path, "raw": true})).unwrap();
        assert!(read.json["text"].as_str().unwrap().contains("\"positional\""));
        // Validation errors are failed envelopes naming the parameter.
        let bad = invoke(&s, "find", &json!({"id": "x"}), &ctx, &echo);
        assert_eq!(bad.status, InvokeStatus::Failed);
        assert_eq!(bad.envelope["error"]["code"], "invalid-argument");
        assert!(bad.text.contains("'id'"), "{}", bad.text);
    }

    #[test]
    fn builtins_run_inside_and_are_not_stored() {
        let s = session();
        let out =
            invoke(&s, "filestore_ls", &json!({"path": "/"}), &InvokeContext::default(), &echo);
        assert_eq!(out.status, InvokeStatus::Completed);
        assert_eq!(out.envelope["success"], true);
        assert!(out.result_path.is_none());
    }

    #[test]
    fn generated_ids_are_unique() {
        let s = session();
        let ctx = InvokeContext::default();
        let a = invoke(&s, "find", &json!({"id": 1}), &ctx, &echo).result_path.unwrap();
        let b = invoke(&s, "find", &json!({"id": 2}), &ctx, &echo).result_path.unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn auth_params_come_from_claims() {
        let s = session();
        let out = invoke(&s, "secret", &json!({}), &InvokeContext::default(), &echo);
        assert_eq!(out.envelope["error"]["code"], "unauthorized");
        let ctx = InvokeContext { claims: json!({"g": {"email": "a@b.c"}}), ..Default::default() };
        let out = invoke(&s, "secret", &json!({}), &ctx, &echo);
        assert_eq!(out.envelope["data"]["positional"], json!(["a@b.c"]));
    }

    fn add_skill(vol: &MemoryVolume, name: &str, front: &str, sidecar: Option<&str>) {
        use crate::vfs::volume::Volume;
        let ro = |t: &str| crate::vfs::volume::WriteOptions {
            read_only: true,
            entry_type: Some(t.to_string()),
            ..Default::default()
        };
        let md = format!("---\nname: {name}\ndescription: Skill {name}\n{front}---\nDo it.\n");
        vol.write(
            &format!("/{name}/SKILL.md"),
            md.as_bytes(),
            &ro(crate::skills::skill::TYPE_SKILL),
        )
        .unwrap();
        if let Some(d) = sidecar {
            vol.write(&format!("/{name}/descriptor.yaml"), d.as_bytes(), &ro("skill_reference"))
                .unwrap();
        }
    }

    #[test]
    fn skill_descriptors_make_skills_callable() {
        let mut s = Session::new(Default::default());
        s.mount("/tool_calls", Box::new(MemoryVolume::new()), 0, true).unwrap();
        let vol = MemoryVolume::new();
        s.mount("/skills", Box::new(vol.clone()), 0, false).unwrap();
        load_config(&s, &[("t.yaml", YAML)]).unwrap();
        select_toolset(&s, Some("small")).unwrap();
        add_skill(
            &vol,
            "lookup",
            "",
            Some(
                "tool: find\nrequiresApproval: true\ninputs:\n  - {name: id, type: integer, minValue: 1, description: Which row}\n",
            ),
        );
        add_skill(
            &vol,
            "seven",
            "metadata:\n  filestore.tool: find\n  filestore.arguments: '{id: 7}'\n",
            None,
        );
        add_skill(&vol, "broken", "", Some("tool: missing_tool\n"));
        add_skill(&vol, "find", "", Some("tool: find\n"));
        let ctx = InvokeContext::default();

        // Not callable until read.
        let out = invoke(&s, "lookup", &json!({"id": 1}), &ctx, &echo);
        assert_eq!(out.error.unwrap().kind(), ErrorKind::NotFound);

        let read = s.call("filestore_read", &json!({"path": "/skills/lookup/SKILL.md"})).unwrap();
        assert_eq!(read.json["activation"]["callable"], "lookup");
        assert!(read.text.contains("can be called as tool 'lookup'"), "{}", read.text);
        let listed = list_tools(&s, None).unwrap();
        let spec = listed.iter().find(|t| t["name"] == "lookup").expect("listed");
        assert_eq!(spec["description"], "Skill lookup");
        assert_eq!(spec["inputSchema"]["properties"]["id"]["type"], "integer");
        assert_eq!(spec["inputSchema"]["required"], json!(["id"]));
        assert_eq!(spec["annotations"]["requiresApproval"], true, "{spec}");

        // The skill's inputs are validated first, naming the skill's parameter.
        let bad = invoke(&s, "lookup", &json!({"id": 0}), &ctx, &echo);
        let e = bad.error.unwrap();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.to_string().contains("id"), "{e}");
        let bad = invoke(&s, "lookup", &json!({}), &ctx, &echo);
        assert!(bad.error.unwrap().to_string().contains("id"));
        // Approval, then the target runs with the validated inputs; stored under the skill.
        let out = invoke(&s, "lookup", &json!({"id": 3}), &ctx, &echo);
        assert_eq!(out.status, InvokeStatus::Pending);
        let done = approve(&s, &out.approval_id.unwrap(), &echo).unwrap();
        assert_eq!(done.status, InvokeStatus::Completed);
        assert_eq!(done.envelope["data"]["positional"], json!([3]));
        assert!(done.result_path.unwrap().starts_with("/tool_calls/lookup/"));

        // Metadata descriptor: fixed arguments the model cannot set; no approval.
        let read = s.call("filestore_read", &json!({"path": "/skills/seven/SKILL.md"})).unwrap();
        assert_eq!(read.json["activation"]["callable"], "seven");
        let out = invoke(&s, "seven", &json!({}), &ctx, &echo);
        assert_eq!(out.status, InvokeStatus::Completed, "{:?}", out.error);
        assert_eq!(out.envelope["data"]["positional"], json!([7]));
        let out = invoke(&s, "seven", &json!({"id": 8}), &ctx, &echo);
        assert_eq!(out.error.unwrap().kind(), ErrorKind::InvalidArgument);

        // A descriptor that does not bind: reported, the skill still reads.
        let read = s.call("filestore_read", &json!({"path": "/skills/broken/SKILL.md"})).unwrap();
        let why = read.json["activation"]["not_callable"].as_str().unwrap();
        assert!(why.contains("runs tool 'missing_tool'"), "{why}");
        assert!(read.text.contains("cannot be called"), "{}", read.text);
        // A skill named like an existing tool never shadows it.
        let read = s.call("filestore_read", &json!({"path": "/skills/find/SKILL.md"})).unwrap();
        assert!(
            read.json["activation"]["not_callable"].as_str().unwrap().contains("already exists")
        );
        let out = invoke(&s, "find", &json!({"id": 2}), &ctx, &echo);
        assert_eq!(out.envelope["data"]["args"], json!({"id": 2}));

        // An invalid sidecar written later fails the read with every reason.
        add_skill(&vol, "bad", "", Some("tool: find\nrequiresApproval: maybe\ncolour: red\n"));
        let e = s.call("filestore_read", &json!({"path": "/skills/bad/SKILL.md"})).unwrap_err();
        assert!(e.to_string().contains("requiresApproval must be true or false"), "{e}");
        assert!(e.to_string().contains("unknown field 'colour'"), "{e}");
    }

    #[test]
    fn approval_parks_then_runs_or_drops() {
        let s = session();
        let out = invoke(&s, "drop", &json!({}), &InvokeContext::default(), &echo);
        assert_eq!(out.status, InvokeStatus::Pending);
        let id = out.approval_id.unwrap();
        let done = approve(&s, &id, &echo).unwrap();
        assert_eq!(done.status, InvokeStatus::Completed);
        assert_eq!(approve(&s, &id, &echo).unwrap_err().kind(), ErrorKind::NotFound);
        let out = invoke(&s, "drop", &json!({}), &InvokeContext::default(), &echo);
        let id = out.approval_id.unwrap();
        reject(&s, &id).unwrap();
        assert_eq!(reject(&s, &id).unwrap_err().kind(), ErrorKind::NotFound);
    }

    #[test]
    fn toolsets_and_activation() {
        let s = session();
        let v0 = tools_version(&s);
        select_toolset(&s, Some("small")).unwrap();
        assert!(tools_version(&s) > v0);
        let names: Vec<String> = list_tools(&s, None)
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        assert!(names.contains(&"find".to_string()) && !names.contains(&"drop".to_string()));
        let out = invoke(&s, "drop", &json!({}), &InvokeContext::default(), &echo);
        assert!(out.text.contains("not in the selected toolset"), "{}", out.text);
        assert_eq!(activate(&s, &["drop"]).unwrap(), 1);
        let out = invoke(&s, "drop", &json!({}), &InvokeContext::default(), &echo);
        assert_eq!(out.status, InvokeStatus::Pending);
        assert_eq!(select_toolset(&s, Some("nope")).unwrap_err().kind(), ErrorKind::NotFound);
        let out = invoke(&s, "nope", &json!({}), &InvokeContext::default(), &echo);
        assert_eq!(out.envelope["error"]["code"], "not-found");
    }

    #[test]
    fn large_results_are_offloaded() {
        let s = session();
        let big = |_: &ExternalCall| -> Result<String> {
            let rows: Vec<Value> =
                (0..5000).map(|i| json!({"i": i, "pad": "x".repeat(40)})).collect();
            Ok(Value::Array(rows).to_string())
        };
        let out = invoke(&s, "find", &json!({"id": 1}), &InvokeContext::default(), &big);
        assert!(out.offloaded);
        assert!(out.text.len() < 10_000);
        assert!(out.text.contains(out.result_path.as_deref().unwrap()));
        assert!(out.envelope.get("data").is_none());
        let err =
            |_: &ExternalCall| -> Result<String> { Err(Error::new(ErrorKind::Backend, "boom")) };
        let out = invoke(
            &s,
            "find",
            &json!({"id": 1}),
            &InvokeContext { tool_call_id: Some("e".into()), ..Default::default() },
            &err,
        );
        assert_eq!(out.envelope["error"]["code"], "backend");
        assert!(!results::call_dir_exists(s.mounts(), "find", "e"));
    }
}
