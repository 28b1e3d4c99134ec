//! A session's tool state: the loaded configuration, the selected toolset, the
//! dynamic tools (activated by skills or resolved from agent refs), calls parked for
//! approval, and the version that grows whenever the tool list changes.

use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::Value;

use super::{ExternalCall, MAX_DYNAMIC_TOOLS, Sandbox, results};
use crate::error::{Error, ErrorKind, Result};
use crate::ops::builtin;
use crate::tools::config::{CheckReport, Config, ConfigError, ToolConfig};
use crate::tools::manifest::{self, ToolSpec};
use crate::tools::toolrefs::{self, CallRef, ConnectionChecker, ResolvedTool};

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
pub(super) struct PendingCall {
    pub(super) call: ExternalCall,
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
    pub(super) next_approval: u64,
    pub(super) next_call: u64,
    /// Grows whenever the tool list changes.
    pub version: u64,
    pub(super) offload_tokens: Option<usize>,
    /// Tools activated by reading skills (LRU of skills, capped per skill).
    pub skills: crate::skills::active::ActiveSkills,
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

    pub(super) fn exposed(&self) -> Vec<&ToolConfig> {
        match &self.config {
            None => Vec::new(),
            Some(c) => c.toolset(self.toolset.as_deref().unwrap_or("")).unwrap_or_default(),
        }
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
    session: &dyn Sandbox,
    refs: &Value,
    checker: &dyn ConnectionChecker,
) -> Result<Vec<ResolvedTool>> {
    let refs = toolrefs::parse_refs(refs)?;
    let builtins: Vec<ToolSpec> = builtin::specs(session.mounts().any_writable())
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
pub fn list_tools(session: &dyn Sandbox, toolset: Option<&str>) -> Result<Vec<Value>> {
    let mut out: Vec<Value> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for s in builtin::specs(session.mounts().any_writable()) {
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
