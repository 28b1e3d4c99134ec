//! A session's tool state: the loaded configuration, the selected toolset, the
//! dynamic tools (activated by skills or resolved from agent refs), calls parked for
//! approval, and the version that grows whenever the tool list changes.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::Value;

use super::{ExternalCall, MAX_DYNAMIC_TOOLS, Sandbox, builtins, results};
use crate::error::{Error, ErrorKind, Result};
use crate::tools::config::{CheckReport, Config, ConfigError, ToolConfig};
use crate::tools::manifest::{self, ToolSpec};
use crate::tools::schema::ArgsSchema;
use crate::tools::toolrefs::{self, CallRef, ConnectionChecker, Names, ResolvedTool};

/// A provider action resolved from an agent tool ref: what the model sees and what
/// the host runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderTool {
    /// Its spec (the provider's description and input schema, under the resolved name).
    pub spec: ToolSpec,
    /// What the host runs (a concrete action, never `*`).
    pub call_ref: CallRef,
}

/// A tool added at run time.
#[derive(Clone, Debug)]
pub enum DynamicTool {
    /// A configured tool (by name) activated outside the selected toolset.
    Configured(String),
    /// A provider action resolved from an agent tool ref.
    Provider(Box<ProviderTool>),
}

/// A validated call waiting for approval.
#[derive(Clone, Debug)]
pub(super) struct PendingCall {
    pub(super) call: ExternalCall,
    /// What its result will be checked against.
    pub(super) rules: super::result_rules::ResultRules,
}

/// The tool state of one session: configuration, exposure, dynamic tools, pending
/// approvals, counters.
#[derive(Debug, Default)]
pub struct ToolState {
    pub(super) config: Option<Config>,
    pub(super) toolset: Option<String>,
    /// Dynamic tools by name, in activation order (the skills extension point).
    pub dynamic: Vec<(String, DynamicTool)>,
    pub(super) pending: BTreeMap<String, PendingCall>,
    /// Follow-ups held for approval by a result's `requires_approval`, oldest first
    /// (see [`super::result_rules`]).
    pub(super) gates: Vec<super::result_rules::ApprovalGate>,
    pub(super) next_approval: u64,
    pub(super) next_call: u64,
    /// Grows whenever the tool list changes.
    pub version: u64,
    /// Whether `filestore_execute` (the shell) is offered: a host enables it (`serve
    /// --shell`, `filestore call filestore_execute`); off by default.
    pub shell: bool,
    pub(super) offload_tokens: Option<usize>,
    /// Tools activated by reading skills (LRU of skills, capped per skill).
    pub skills: crate::skills::active::ActiveSkills,
    /// The loaded agent configuration's tools, when one is loaded (see
    /// [`super::agent`]): then it, not the toolset, says what is offered.
    pub agent: Option<super::agent::AgentState>,
    /// Compiled input schemas of provider tools, by tool name (compiled on first call;
    /// cleared whenever provider tools change).
    pub(super) schemas: std::collections::HashMap<String, std::rc::Rc<ArgsSchema>>,
    /// Compiled output schemas (a configured tool's `outputSchema`, a skill's
    /// `outputs`), by tool name, each with the schema it was compiled from: a result
    /// is checked without compiling its schema again, and a tool whose schema changed
    /// (a reloaded configuration, another skill) compiles the new one. Cleared when a
    /// configuration loads.
    pub(super) output_schemas:
        std::collections::HashMap<String, (serde_json::Value, std::rc::Rc<ArgsSchema>)>,
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

    pub(super) fn dynamic_tool(&self, name: &str) -> Option<&DynamicTool> {
        self.dynamic.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// The configured tools offered without a skill: the agent's, when an agent is
    /// loaded, else the selected toolset's.
    pub(super) fn exposed(&self) -> Vec<&ToolConfig> {
        let Some(config) = &self.config else { return Vec::new() };
        if let Some(agent) = &self.agent {
            return agent.named().filter_map(|n| config.tool(n)).collect();
        }
        config.toolset(self.toolset.as_deref().unwrap_or("")).unwrap_or_default()
    }

    /// Whether the built-in tool `name` is offered: always, unless an agent is loaded
    /// that does not list it (a skill may still activate it).
    pub(super) fn offers_builtin(&self, name: &str) -> bool {
        match &self.agent {
            None => true,
            Some(agent) => {
                agent.named().any(|n| n == name) || self.skills.tools().iter().any(|t| t == name)
            }
        }
    }

    /// A provider tool the session can run by `name`: offered by the agent, resolved
    /// by `resolve`, or waiting in the agent's `available` list and activated by a
    /// skill.
    pub(super) fn provider_tool(&self, name: &str) -> Option<&ProviderTool> {
        if let Some(t) = self.agent.as_ref().and_then(|a| a.offered_provider(name)) {
            return Some(t);
        }
        if let Some(DynamicTool::Provider(t)) = self.dynamic_tool(name) {
            return Some(t);
        }
        if self.skills.tools().iter().any(|t| t == name) {
            return self.agent.as_ref().and_then(|a| a.available_provider(name));
        }
        None
    }

    /// The compiled output schema `schema` of tool `tool` (compiled once per schema,
    /// then cached); why it cannot be used, if it cannot.
    pub(super) fn output_schema(
        &mut self,
        tool: &str,
        schema: &serde_json::Value,
    ) -> std::result::Result<std::rc::Rc<ArgsSchema>, String> {
        if let Some((compiled_from, compiled)) = self.output_schemas.get(tool)
            && compiled_from == schema
        {
            return Ok(compiled.clone());
        }
        let compiled = std::rc::Rc::new(ArgsSchema::compile(schema)?);
        self.output_schemas.insert(tool.to_string(), (schema.clone(), compiled.clone()));
        Ok(compiled)
    }

    /// The compiled input schema of provider tool `tool` (compiled once, then cached).
    pub(super) fn schema(&mut self, tool: &ProviderTool) -> Result<std::rc::Rc<ArgsSchema>> {
        if let Some(s) = self.schemas.get(&tool.spec.name) {
            return Ok(s.clone());
        }
        let compiled = ArgsSchema::compile(&tool.spec.input_schema).map_err(|why| {
            Error::new(
                ErrorKind::InvalidArgument,
                format!("tool '{}': its input schema cannot be used: {why}", tool.spec.name),
            )
        })?;
        let compiled = std::rc::Rc::new(compiled);
        self.schemas.insert(tool.spec.name.clone(), compiled.clone());
        Ok(compiled)
    }
}

// ---- configuration -------------------------------------------------------------

/// Loads configuration files as the session's configured tools (replacing any
/// earlier configuration and resetting the toolset to all). On error nothing changes.
pub fn load_config<N: AsRef<str>, T: AsRef<str>>(
    session: &dyn Sandbox,
    files: &[(N, T)],
    variables: &crate::tools::config::variables::Variables,
) -> std::result::Result<CheckReport, Vec<ConfigError>> {
    let config = Config::load_with_variables(files, variables)?;
    let report = config.check_report();
    let mut st = session.tool_state().borrow_mut();
    st.config = Some(config);
    st.output_schemas.clear();
    st.toolset = None;
    st.version += 1;
    Ok(report)
}

/// Selects the exposed toolset (`None`: every configured tool). Unknown: `not-found`.
pub fn select_toolset(session: &dyn Sandbox, toolset: Option<&str>) -> Result<()> {
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
pub fn activate(session: &dyn Sandbox, names: &[&str]) -> Result<usize> {
    let mut st = session.tool_state().borrow_mut();
    let mut added = 0;
    for name in names {
        if builtins::is_builtin(name) || st.dynamic_tool(name).is_some() {
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
/// dynamic tools of the session. A resolved name that a built-in, configured or
/// dynamic tool already has is an error, as is any clash among the refs.
pub fn resolve(
    session: &dyn Sandbox,
    refs: &Value,
    checker: &dyn ConnectionChecker,
) -> Result<Vec<ResolvedTool>> {
    let refs = toolrefs::parse_refs(refs)?;
    let names = names(session, &session.tool_state().borrow(), false);
    let resolved = toolrefs::resolve_refs(&refs, &names, checker)?;
    let mut st = session.tool_state().borrow_mut();
    let mut added = false;
    for r in &resolved.tools {
        if let Some(c) = &r.call_ref {
            push_dynamic(
                &mut st,
                r.name.clone(),
                DynamicTool::Provider(Box::new(ProviderTool {
                    spec: r.spec.clone(),
                    call_ref: c.clone(),
                })),
            )?;
            st.schemas.remove(&r.name);
            added = true;
        }
    }
    if added {
        st.version += 1;
    }
    Ok(resolved.tools)
}

/// What named refs select from (built-ins for this session's mounts, then every
/// configured tool) and the names a provider tool may not take: every built-in and
/// configured tool, and the dynamic tools (but the agent's own provider tools when
/// `replacing_agent`, which a new load replaces).
pub(super) fn names(session: &dyn Sandbox, st: &ToolState, replacing_agent: bool) -> Names {
    let mut offerable: Vec<ToolSpec> =
        builtins::specs(session.mounts().any_writable(), st.shell, session.mounts().has_cow())
            .iter()
            .filter_map(|s| serde_json::to_value(s).ok())
            .filter_map(|v| ToolSpec::from_json(&v).ok())
            .collect();
    let mut taken: Vec<(String, &'static str)> =
        builtins::BUILTINS.iter().map(|b| (b.name.to_string(), "built-in")).collect();
    if let Some(c) = &st.config {
        for t in c.tools() {
            offerable.push(manifest::spec(t));
            taken.push((t.name.clone(), "configured"));
        }
    }
    for (n, d) in &st.dynamic {
        if matches!(d, DynamicTool::Provider(_)) {
            taken.push((n.clone(), "resolved"));
        }
    }
    if !replacing_agent && let Some(agent) = &st.agent {
        for n in agent.provider_names() {
            taken.push((n.to_string(), "agent's"));
        }
    }
    Names { offerable, taken }
}

/// The tools the session offers, as MCP tool specs: the filestore tools, the
/// configured tools of `toolset` (`None`: the selected one), then the dynamic tools.
/// Names are unique: the first of a name wins (built-ins first).
pub fn list_tools(session: &dyn Sandbox, toolset: Option<&str>) -> Result<Vec<Value>> {
    let mut out: Vec<Value> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let st = session.tool_state().borrow();
    let builtins: Vec<Value> =
        builtins::specs(session.mounts().any_writable(), st.shell, session.mounts().has_cow())
            .into_iter()
            .filter_map(|s| serde_json::to_value(&s).ok())
            .collect();
    if let (Some(agent), None) = (&st.agent, toolset) {
        // The agent's order: its built-in, configured and provider tools as listed.
        for (name, tool) in agent.offered() {
            let spec = match tool {
                super::agent::Offered::Named => {
                    builtins.iter().find(|b| b["name"] == name.as_str()).cloned().or_else(|| {
                        st.config
                            .as_ref()
                            .and_then(|c| c.tool(name))
                            .map(|t| manifest::spec(t).to_json())
                    })
                }
                super::agent::Offered::Provider(t) => Some(t.spec.to_json()),
            };
            if let Some(spec) = spec
                && seen.insert(name.clone())
            {
                out.push(spec);
            }
        }
    } else {
        for b in &builtins {
            if let Some(n) = b["name"].as_str() {
                seen.insert(n.to_string());
                out.push(b.clone());
            }
        }
    }
    let configured: Vec<&ToolConfig> = match (toolset, &st.config) {
        (Some(name), Some(c)) => c.toolset(name)?,
        (Some(name), None) => {
            return Err(Error::new(
                ErrorKind::NotFound,
                format!("unknown toolset '{name}': no configuration is loaded"),
            ));
        }
        // The agent's configured tools are listed above, in its order.
        (None, _) if st.agent.is_some() => Vec::new(),
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
            DynamicTool::Provider(t) => out.push(t.spec.to_json()),
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
        } else if let Some(b) = builtins.iter().find(|b| b["name"] == name.as_str()) {
            out.push(b.clone());
        } else if let Some(t) = st.agent.as_ref().and_then(|a| a.available_provider(&name)) {
            out.push(t.spec.to_json());
        }
    }
    Ok(out)
}

/// The configured prompts (Toolbox `kind: prompt`), in load order: name,
/// description, and each argument's name, description and whether it is required.
pub fn list_prompts(session: &dyn Sandbox) -> Vec<PromptSpec> {
    let st = session.tool_state().borrow();
    let Some(config) = &st.config else { return Vec::new() };
    config
        .prompts()
        .iter()
        .map(|p| PromptSpec {
            name: p.name.clone(),
            description: p.description.clone(),
            arguments: p
                .arguments
                .iter()
                .map(|a| (a.name.clone(), a.description.clone(), a.is_required()))
                .collect(),
        })
        .collect()
}

/// A configured prompt as `prompts/list` shows it (see [`list_prompts`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PromptSpec {
    /// Name.
    pub name: String,
    /// Description (may be empty).
    pub description: String,
    /// `(name, description, required)` per argument.
    pub arguments: Vec<(String, String, bool)>,
}

/// The messages of the configured prompt `name` rendered with `arguments` (a JSON
/// object): `(role, text)` pairs. `not-found` naming the defined prompts; an
/// invalid argument is `invalid-argument` naming it.
pub fn get_prompt(
    session: &dyn Sandbox,
    name: &str,
    arguments: &serde_json::Value,
) -> Result<Vec<(String, String)>> {
    let st = session.tool_state().borrow();
    let prompt = st.config.as_ref().and_then(|c| c.prompt(name));
    let Some(prompt) = prompt else {
        let defined: Vec<String> = st
            .config
            .as_ref()
            .map(|c| c.prompts().iter().map(|p| p.name.clone()).collect())
            .unwrap_or_default();
        return Err(Error::new(
            ErrorKind::NotFound,
            format!(
                "unknown prompt '{name}' (configured: {})",
                if defined.is_empty() { "none".to_string() } else { defined.join(", ") }
            ),
        ));
    };
    prompt.render(arguments)
}

/// The session's tools version (see [`ToolState::version`]).
pub fn tools_version(session: &dyn Sandbox) -> u64 {
    session.tool_state().borrow().version
}

/// The session's tool state cell type (see [`Sandbox::tool_state`]).
pub type ToolStateCell = RefCell<ToolState>;
