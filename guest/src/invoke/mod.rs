//! Tool invocation (docs/architecture.md#invocation,
//! docs/architecture.md#tool-results): one entry point for every tool a
//! session offers, and the session's tool state.
//!
//! Owns: [`state`] (configuration, toolset, dynamic tools, pending approvals),
//! [`mod@activate`] (reading a skill activates its tools), [`results`] (external results
//! stored read-only under `/tool_calls`, offloading), [`builtins`] (the one list of
//! built-in `filestore_*` tools: specs and dispatch), and the call path below.
//! May use: [`crate::shell`], [`crate::skills`], [`crate::tools`], [`crate::ops`],
//! [`crate::vfs`]; it reaches its session only through the [`Sandbox`] trait (a
//! built-in call through [`builtins::BuiltinHost`]).
//!
//! `invoke(name, args, context)`:
//!
//! 1. **find** the tool: a built-in `filestore_*` tool; a *dynamic* tool (activated by
//!    a skill through [`fn@activate`], or a provider tool registered by [`resolve`]); a
//!    configured tool of the selected toolset. A configured tool outside the selected
//!    toolset is `not-found` until something activates it.
//! 2. **authorise** (`authRequired`: any one listed service verified the caller) and
//! 3. **validate and default** the arguments ([`ToolConfig::validate_call`]); auth
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
//! [`fn@activate`] with the names of a skill's `allowed-tools`; each becomes callable and
//! listed, and the tools version ([`ToolState::version`]) grows so an MCP server can
//! announce `tools/list_changed`.
//!
//! ```
//! use filestore_guest::invoke::{self, InvokeContext, ExternalCall};
//! use filestore_guest::{session::Session, vfs::memory::MemoryVolume};
//! use serde_json::json;
//! let mut s = Session::new(Default::default());
//! s.mount("/tool_calls", Box::new(MemoryVolume::new()), 0, true).unwrap();
//! let yaml = "kind: source\nname: db\ntype: sqlite\ndatabase: /tmp/x.db\n---\n\
//!     kind: tool\nname: find\ntype: sqlite-sql\nsource: db\ndescription: d\n\
//!     statement: SELECT ?\nparameters:\n  - {name: id, type: integer, description: x}\n";
//! invoke::load_config(&s, &[("tools.yaml", yaml)], &Default::default()).unwrap();
//! let host = |c: &ExternalCall| Ok(json!([{"id": c.positional[0]}]).to_string());
//! let out = invoke::invoke(&s, "find", &json!({"id": 7}), &InvokeContext::default(), &host);
//! assert_eq!(out.envelope["data"][0]["id"], 7);
//! assert_eq!(out.result_path.as_deref(), Some("/tool_calls/find/call_1/result-1.json"));
//! ```

pub mod activate;
pub mod agent;
pub mod builtins;
pub mod result_rules;
pub mod results;
pub mod state;
#[cfg(test)]
mod tests;

use serde_json::{Value, json};

use crate::error::{Error, ErrorKind, Result};
use crate::ops::ToolOutput;
use crate::tools::config::ToolConfig;
use crate::tools::params::{self, VerifiedClaims};
use crate::vfs::mounts::MountTable;

pub use activate::{SkillOrphan, activate_skill, active_skills, restore_skills, skill_orphans};
pub use agent::{AgentReport, AgentState, check_agent, load_agent};
pub use result_rules::{ApprovalGate, approval_gates, restore_approval_gates};
pub use state::{
    DynamicTool, PromptSpec, ProviderTool, ToolState, ToolStateCell, activate, get_prompt,
    list_prompts, list_tools, load_config, resolve, select_toolset, tools_version,
};

/// What invocation needs from the session that owns it: its mounts (results are
/// stored under `/tool_calls` through them), its tool state, and a way to run a
/// built-in `filestore_*` tool with everything the session adds to it (reading a
/// `SKILL.md` activates the skill). The session implements this; invocation never
/// names the session type, so the dependency runs one way (the session composes
/// invocation, not the reverse).
pub trait Sandbox {
    /// The session's mount table.
    fn mounts(&self) -> &MountTable;
    /// The session's tool state.
    fn tool_state(&self) -> &ToolStateCell;
    /// Runs a built-in tool by name with JSON arguments.
    fn call_builtin(&self, name: &str, args: &Value) -> Result<ToolOutput>;
}

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

// ---- invocation ----------------------------------------------------------------

enum Found {
    Builtin,
    Configured(Box<ToolConfig>),
    Provider(Box<ProviderTool>),
    /// A skill called through its descriptor, and the configured tool that runs it.
    Skill(Box<crate::skills::descriptor::SkillTool>, Box<ToolConfig>),
}

fn find(session: &dyn Sandbox, name: &str) -> Result<Found> {
    let st = session.tool_state().borrow();
    if builtins::is_builtin(name) {
        if st.offers_builtin(name) {
            return Ok(Found::Builtin);
        }
        return Err(Error::new(
            ErrorKind::NotFound,
            format!(
                "tool '{name}' is not among the tools of {}; a skill can activate it",
                st.agent
                    .as_ref()
                    .and_then(|a| a.name.as_deref())
                    .map_or_else(|| "this agent".to_string(), |n| format!("agent '{n}'"))
            ),
        ));
    }
    if let Some(t) = st.provider_tool(name) {
        return Ok(Found::Provider(Box::new(t.clone())));
    }
    if let Some(DynamicTool::Configured(n)) = st.dynamic_tool(name)
        && let Some(t) = st.config.as_ref().and_then(|c| c.tool(n))
    {
        return Ok(Found::Configured(Box::new(t.clone())));
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
        let offered_by = match &st.agent {
            Some(_) => "not among the agent's tools".to_string(),
            None => {
                format!("not in the selected toolset '{}'", st.toolset.as_deref().unwrap_or(""))
            }
        };
        return Err(Error::new(
            ErrorKind::NotFound,
            format!("tool '{name}' is configured but {offered_by}; a skill can activate it"),
        ));
    }
    if st.agent.as_ref().and_then(|a| a.available_provider(name)).is_some() {
        return Err(Error::new(
            ErrorKind::NotFound,
            format!(
                "tool '{name}' is in the agent's available list: it is offered once a skill that names it in allowed-tools is read"
            ),
        ));
    }
    drop(st);
    let names: Vec<String> = list_tools(session, None)
        .unwrap_or_default()
        .iter()
        .filter_map(|s| s["name"].as_str().map(str::to_string))
        .collect();
    Err(Error::new(
        ErrorKind::NotFound,
        format!("unknown tool '{name}'; this session offers {}", names.join(", ")),
    ))
}

fn call_id(session: &dyn Sandbox, tool: &str, given: &Option<String>) -> String {
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

/// A fresh call id for a result of `tool` stored by the session itself (the shell's
/// cut output): `call_N`, never one whose directory exists.
pub fn next_call_id(session: &dyn Sandbox, tool: &str) -> String {
    call_id(session, tool, &None)
}

/// Invokes a tool (see the module docs). Never fails: refusals and failures are a
/// [`InvokeStatus::Failed`] outcome.
pub fn invoke(
    session: &dyn Sandbox,
    name: &str,
    args: &Value,
    ctx: &InvokeContext,
    exec: &dyn ToolExecutor,
) -> InvokeOutcome {
    match prepare(session, name, args, ctx) {
        Err(e) => InvokeOutcome::failed(e),
        Ok(Prepared::Builtin) => run_builtin(session, name, args),
        Ok(Prepared::External { call, approval, rules }) => {
            // A result that asked for approval of this tool holds its next call,
            // whatever the tool's own rule.
            let held = result_rules::gate_for(session, &call.tool_name);
            if approval || held.is_some() {
                park(session, *call, rules, held)
            } else {
                run_external(session, &call, &rules, exec)
            }
        }
    }
}

enum Prepared {
    Builtin,
    External { call: Box<ExternalCall>, approval: bool, rules: result_rules::ResultRules },
}

fn prepare(
    session: &dyn Sandbox,
    name: &str,
    args: &Value,
    ctx: &InvokeContext,
) -> Result<Prepared> {
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
            let v = target.validate_call(&Value::Object(merged), &claims).map_err(|e| {
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
            let rules = result_rules::ResultRules {
                output_schema: skill.spec.output_schema.clone(),
                follow_up: skill.descriptor.follow_up.as_ref().map(|(t, _)| t.clone()),
            };
            Ok(Prepared::External {
                call: Box::new(call),
                approval: skill.spec.annotations.requires_approval,
                rules,
            })
        }
        Found::Configured(tool) => {
            let v = tool.validate_call(args, &claims)?;
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
            let rules = result_rules::ResultRules {
                output_schema: tool.output_schema.clone(),
                follow_up: None,
            };
            Ok(Prepared::External {
                call: Box::new(call),
                approval: tool.annotations.requires_approval,
                rules,
            })
        }
        Found::Provider(tool) => {
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
            // The provider's own schema, checked here: nothing malformed reaches it.
            let schema = session.tool_state().borrow_mut().schema(&tool)?;
            schema.validate(name, &arguments)?;
            let call = ExternalCall {
                tool_name: name.to_string(),
                tool_type: PROVIDER_TOOL_TYPE.to_string(),
                source: None,
                call_ref: Some(tool.call_ref.to_string()),
                config: json!({"kind": "tool", "name": name, "type": PROVIDER_TOOL_TYPE}),
                arguments,
                positional: Vec::new(),
                statement: None,
                path: None,
                tool_call_id: call_id(session, name, &ctx.tool_call_id),
                claims: claims_json(),
            };
            let approval = tool.spec.annotations.requires_approval;
            Ok(Prepared::External { call: Box::new(call), approval, rules: Default::default() })
        }
    }
}

fn run_builtin(session: &dyn Sandbox, name: &str, args: &Value) -> InvokeOutcome {
    match session.call_builtin(name, args) {
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

fn park(
    session: &dyn Sandbox,
    call: ExternalCall,
    rules: result_rules::ResultRules,
    held: Option<result_rules::ApprovalGate>,
) -> InvokeOutcome {
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
    let why = match &held {
        Some(g) => format!("{} asked for approval of its follow-up", g.reason),
        None => "it requires approval".to_string(),
    };
    let message = format!(
        "tool '{}' waits for approval ({why}); the call waits as '{id}' until the host approves or rejects it",
        call.tool_name
    );
    st.pending.insert(id.clone(), state::PendingCall { call, rules });
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
pub fn approve(session: &dyn Sandbox, id: &str, exec: &dyn ToolExecutor) -> Result<InvokeOutcome> {
    let pending = session.tool_state().borrow_mut().pending.remove(id);
    match pending {
        Some(p) => {
            // An approved call spends the hold a result put on its tool.
            result_rules::release_gate(session, &p.call.tool_name);
            Ok(run_external(session, &p.call, &p.rules, exec))
        }
        None => Err(unknown_approval(id)),
    }
}

/// Drops a pending call without running it. An unknown id is `not-found`.
pub fn reject(session: &dyn Sandbox, id: &str) -> Result<()> {
    match session.tool_state().borrow_mut().pending.remove(id) {
        Some(_) => Ok(()),
        None => Err(unknown_approval(id)),
    }
}

fn unknown_approval(id: &str) -> Error {
    Error::new(ErrorKind::NotFound, format!("no call waits for approval as '{id}'"))
}

/// How deeply a tool's JSON result may nest and still be answered as JSON. The
/// answer wraps it in its envelope, and JSON readers on its way to a client refuse
/// deep nesting (serde_json's, in the host and in clients, past 128 levels): a deeper
/// result, whatever handler made it, is answered as its text.
pub const MAX_RESULT_DEPTH: usize = 100;

/// How many arrays and objects deep `v` nests (a scalar: 0).
fn json_depth(v: &Value) -> usize {
    // Recursion is bounded: what reaches here was parsed by serde_json, which refuses
    // past 128 levels.
    match v {
        Value::Array(items) => 1 + items.iter().map(json_depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(json_depth).max().unwrap_or(0),
        _ => 0,
    }
}

fn run_external(
    session: &dyn Sandbox,
    call: &ExternalCall,
    rules: &result_rules::ResultRules,
    exec: &dyn ToolExecutor,
) -> InvokeOutcome {
    let text = match exec.call(call) {
        Ok(t) => t,
        Err(e) => return InvokeOutcome::failed(e),
    };
    let (data, result_type) = match serde_json::from_str::<Value>(&text) {
        Ok(v) if json_depth(&v) <= MAX_RESULT_DEPTH => (v, "json"),
        _ => (Value::String(text), "text"),
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
    match result_rules::apply(session, rules, &call.tool_name, &call.tool_call_id, &data) {
        Ok(applied) => {
            if let Some(follow_up) = applied.held {
                outcome.envelope["requires_approval"] = Value::Bool(true);
                outcome.envelope["follow_up"] = Value::String(follow_up.clone());
                outcome.text.push_str(&format!(
                    "\n[This result asks for approval: the next call of '{follow_up}' waits for the host's approval.]"
                ));
            }
            outcome
        }
        // The tool ran and its result is stored: the error says where.
        Err(e) => {
            let stored = outcome.result_path.take();
            let e = match &stored {
                Some(p) => {
                    Error::new(e.kind(), format!("{}; the result is stored at {p}", e.message()))
                }
                None => e,
            };
            let mut failed = InvokeOutcome::failed(e);
            failed.result_path = stored;
            failed
        }
    }
}
