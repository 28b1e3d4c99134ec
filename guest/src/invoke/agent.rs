//! An agent configuration loaded into a session (WIT `tools.load-agent`): its
//! entries resolved (see [`crate::tools::toolrefs`]) into what the session offers.
//!
//! Once an agent is loaded, its `tools` list — not the toolset — says what is
//! offered, in its order: the built-in and configured tools it names, and its provider
//! tools. Tools it does not name are `not-found` until a skill activates them, as
//! configured tools outside a toolset are; its `available` provider tools likewise
//! wait for a skill. Loading again (a refreshed upstream catalog) replaces the
//! previous agent as a whole, or, on error, leaves it as it was.

use serde_json::{Value, json};

use super::Sandbox;
use super::state::{ProviderTool, names};
use crate::tools::agent::{self, AgentConfig, AgentEntry, Section, ServerDecl};
use crate::tools::config::{ConfigError, ConfigErrorKind as K};
use crate::tools::toolrefs::{ConnectionChecker, ResolveCause, ToolRef, resolve_labelled_with};

/// How one offered tool runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Offered {
    /// A built-in or configured tool, by its name.
    Named,
    /// A provider tool.
    Provider(Box<ProviderTool>),
}

/// The tools a loaded agent offers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentState {
    /// The agent's name, when it has one.
    pub name: Option<String>,
    offered: Vec<(String, Offered)>,
    available: Vec<(String, ProviderTool)>,
}

impl AgentState {
    /// Every offered tool, in the agent's order.
    pub fn offered(&self) -> impl Iterator<Item = &(String, Offered)> {
        self.offered.iter()
    }

    /// The built-in and configured tools it names.
    pub fn named(&self) -> impl Iterator<Item = &str> {
        self.offered.iter().filter(|(_, o)| *o == Offered::Named).map(|(n, _)| n.as_str())
    }

    /// The offered provider tool `name`.
    pub fn offered_provider(&self, name: &str) -> Option<&ProviderTool> {
        self.offered.iter().find_map(|(n, o)| match o {
            Offered::Provider(t) if n == name => Some(&**t),
            _ => None,
        })
    }

    /// The provider tool `name` of the `available` list (offered once a skill names it).
    pub fn available_provider(&self, name: &str) -> Option<&ProviderTool> {
        self.available.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// The names of all its provider tools, offered and available.
    pub fn provider_names(&self) -> impl Iterator<Item = &str> {
        self.offered
            .iter()
            .filter(|(_, o)| matches!(o, Offered::Provider(_)))
            .map(|(n, _)| n.as_str())
            .chain(self.available.iter().map(|(n, _)| n.as_str()))
    }
}

/// An agent configuration, checked or loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentReport {
    /// The parsed configuration.
    pub config: AgentConfig,
    /// Loaded: the tools offered, in order.
    pub offered: Vec<String>,
    /// Loaded: the provider tools waiting for a skill.
    pub available: Vec<String>,
    /// What resolution left out, and why.
    pub warnings: Vec<String>,
}

impl AgentReport {
    /// The servers declared.
    pub fn servers(&self) -> &[ServerDecl] {
        &self.config.servers
    }

    /// The report as text: the agent, its tools, its warnings.
    pub fn rendered(&self) -> String {
        let who = self
            .config
            .name
            .as_deref()
            .map(|n| format!("agent '{n}'"))
            .unwrap_or_else(|| format!("agent {}", self.config.file));
        let mut out = format!(
            "{who}: {} server(s), {} entries",
            self.config.servers.len(),
            self.config.entries.len()
        );
        if !self.offered.is_empty() || !self.available.is_empty() {
            out.push_str(&format!(
                "; {} tool(s) offered, {} available to skills",
                self.offered.len(),
                self.available.len()
            ));
        }
        out.push('\n');
        for s in &self.config.servers {
            out.push_str(&format!(
                "  server {} ({}; connections: {})\n",
                s.name,
                s.transport.as_str(),
                s.connections.join(", ")
            ));
        }
        for t in &self.offered {
            out.push_str(&format!("  offers {t}\n"));
        }
        for t in &self.available {
            out.push_str(&format!("  available {t}\n"));
        }
        for w in &self.warnings {
            out.push_str(&format!("  warning: {w}\n"));
        }
        out
    }

    /// The report as JSON (for hosts that want it whole).
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.config.name,
            "offered": self.offered,
            "available": self.available,
            "warnings": self.warnings,
        })
    }
}

/// Parses and checks an agent configuration without a session.
pub fn check_agent(file: &str, text: &str) -> Result<AgentReport, Vec<ConfigError>> {
    let config = agent::parse(file, text)?;
    Ok(AgentReport { config, offered: Vec::new(), available: Vec::new(), warnings: Vec::new() })
}

/// Loads an agent configuration into `session` (see the module docs): parses it,
/// resolves its entries through `checker`, and on success replaces what the session
/// offers. Every failure is a located error; on error nothing changes. `lenient`: the
/// rules of a load after start (provider entries that fail are left out with a
/// warning; see [`resolve_labelled_with`]).
pub fn load_agent(
    session: &dyn Sandbox,
    file: &str,
    text: &str,
    checker: &dyn ConnectionChecker,
    lenient: bool,
) -> Result<AgentReport, Vec<ConfigError>> {
    let config = agent::parse(file, text)?;
    let refs: Vec<ToolRef> = config.entries.iter().map(|e| e.tool_ref.clone()).collect();
    let names = names(session, &session.tool_state().borrow(), true);
    let label = |i: usize| config.entries[i].label();
    let resolution = resolve_labelled_with(&refs, &label, &names, checker, lenient)
        .map_err(|e| vec![located(&config.entries, e)])?;
    let mut state = AgentState { name: config.name.clone(), ..Default::default() };
    for t in resolution.tools {
        let entry = &config.entries[t.index];
        match (entry.section, t.call_ref) {
            (Section::Tools, None) => state.offered.push((t.name, Offered::Named)),
            (Section::Tools, Some(call_ref)) => state.offered.push((
                t.name,
                Offered::Provider(Box::new(ProviderTool { spec: t.spec, call_ref })),
            )),
            (Section::Available, Some(call_ref)) => {
                state.available.push((t.name, ProviderTool { spec: t.spec, call_ref }))
            }
            // A named tool in `available` is one the agent does not list: a skill may
            // activate it, as it may any tool not offered.
            (Section::Available, None) => {}
        }
    }
    let report = AgentReport {
        offered: state.offered.iter().map(|(n, _)| n.clone()).collect(),
        available: state.available.iter().map(|(n, _)| n.clone()).collect(),
        warnings: resolution.warnings,
        config,
    };
    let mut st = session.tool_state().borrow_mut();
    if st.agent.as_ref() != Some(&state) {
        st.agent = Some(state);
        st.schemas.clear();
        st.version += 1;
    }
    Ok(report)
}

/// A resolution failure as a configuration error at its entry.
fn located(entries: &[AgentEntry], e: crate::tools::toolrefs::ResolveError) -> ConfigError {
    let kind = match e.cause {
        ResolveCause::UnknownTool => K::UnknownTool,
        ResolveCause::DuplicateName => K::DuplicateName,
        ResolveCause::MissingConnection => K::MissingConnection,
        ResolveCause::InactiveConnection => K::InactiveConnection,
        ResolveCause::ConnectionFailed => K::ConnectionFailed,
        ResolveCause::InvalidSchema => K::InvalidSchema,
        ResolveCause::InvalidName => K::InvalidName,
    };
    let entry = e.index.and_then(|i| entries.get(i));
    let message = e.error.message().to_string();
    match entry {
        Some(entry) => {
            let label = entry.label();
            // The location names the entry; the message need not repeat it first.
            let message =
                message.strip_prefix(&format!("{label}: ")).map(str::to_string).unwrap_or(message);
            ConfigError { kind, location: entry.location.clone(), field: Some(label), message }
        }
        None => ConfigError {
            kind,
            location: crate::tools::config::Location {
                file: entries.first().map(|e| e.location.file.clone()).unwrap_or_default(),
                document: 1,
                line: 1,
                column: 1,
            },
            field: None,
            message,
        },
    }
}
