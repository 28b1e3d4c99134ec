//! Agent configurations on the host side: the report the component returns for one
//! (`check-agent` / `load-agent`), and [`Agent`], which reads a configuration file,
//! has the component check it, and builds the providers its refs need (the `mcp`
//! provider over its declared servers) so that `load-agent` can resolve them.
//!
//! The file is parsed inside the sandbox like every other untrusted input; the host
//! only ever reads the component's report of it.

use std::path::Path;
use std::sync::Arc;

use crate::providers::mcp::{EnvLookup, McpProvider};
use filestore_runtime::Engine;
use filestore_runtime::tools::{ConfigIssue, ToolRegistry};

/// The component's report of an agent configuration (defined with the providers,
/// whose servers and refs it lists, so that sessions need not import this module).
pub use crate::providers::{AgentEntryInfo, AgentReport};

/// Why an agent configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The file cannot be read.
    #[error("{0}")]
    Read(String),
    /// The configuration has errors, each located (displayed one per line).
    #[error("{}", .0.iter().map(|i| i.rendered.clone()).collect::<Vec<_>>().join("\n"))]
    Config(Vec<ConfigIssue>),
    /// The sandbox failed (or the provider's runtime could not start).
    #[error(transparent)]
    Setup(#[from] filestore_runtime::Error),
}

/// An agent configuration file, checked, with the providers its refs need.
pub struct Agent {
    /// The file name as given (the one located errors name).
    pub file: String,
    /// Its text.
    pub text: String,
    /// The component's check of it.
    pub report: AgentReport,
    /// The `mcp` provider over its servers (none when it declares none).
    pub mcp: Option<Arc<McpProvider>>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent").field("file", &self.file).field("report", &self.report).finish()
    }
}

impl Agent {
    /// Reads `path` and has the component check it (in a session of `engine` with no
    /// mounts). Nothing connects yet: that happens when a session loads it
    /// ([`filestore_runtime::Session::load_agent`] through a registry made by
    /// [`Agent::install`]).
    pub fn read(engine: &Engine, path: &Path) -> Result<Agent, AgentError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| {
            AgentError::Read(format!("{file}: cannot read the agent configuration: {e}"))
        })?;
        Agent::from_text(engine, &file, text, path.parent().unwrap_or(Path::new(".")))
    }

    /// [`Agent::read`] for text already in hand; relative server commands and `cwd`
    /// resolve against `base_dir`.
    pub fn from_text(
        engine: &Engine,
        file: &str,
        text: String,
        base_dir: &Path,
    ) -> Result<Agent, AgentError> {
        let env: EnvLookup = Arc::new(|k: &str| std::env::var(k).ok());
        Agent::from_text_with_env(engine, file, text, base_dir, env)
    }

    /// [`Agent::from_text`] with the servers' `${VAR}` taken from `env` rather than
    /// the process environment (an embedder holding credentials elsewhere).
    pub fn from_text_with_env(
        engine: &Engine,
        file: &str,
        text: String,
        base_dir: &Path,
        env: EnvLookup,
    ) -> Result<Agent, AgentError> {
        let mut session = engine.session(Vec::new())?;
        let report = session.check_agent(file, &text)?.map_err(AgentError::Config)?;
        let base_dir = if base_dir.as_os_str().is_empty() { Path::new(".") } else { base_dir };
        let base_dir = std::path::absolute(base_dir).unwrap_or_else(|_| base_dir.to_path_buf());
        let mcp = if report.servers.is_empty() {
            None
        } else {
            let servers = report
                .servers
                .iter()
                .cloned()
                .map(|mut s| {
                    s.location = format!("{file}: {}", s.location);
                    s
                })
                .collect();
            Some(Arc::new(McpProvider::with_env(servers, &base_dir, env).map_err(|e| {
                AgentError::Setup(filestore_runtime::Error::setup(
                    "starting the MCP client runtime",
                    e,
                ))
            })?))
        };
        Ok(Agent { file: file.to_string(), text, report, mcp })
    }

    /// Registers this agent's providers in `registry`.
    pub fn install(&self, registry: &mut ToolRegistry) {
        if let Some(mcp) = &self.mcp {
            registry.register_provider(crate::providers::mcp::PROVIDER, mcp.clone());
        }
    }

    /// A receiver that changes whenever an upstream server's tool list changed (none
    /// when the agent has no servers).
    pub fn changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.mcp.as_ref().map(|m| m.changes())
    }

    /// Loads the agent into `session` (whose tool host must be a registry this agent
    /// was installed in); configuration errors become [`AgentError::Config`].
    pub fn load_into(
        &self,
        session: &mut filestore_runtime::Session,
    ) -> Result<AgentReport, AgentError> {
        // Checked when read: the guest does not parse it a second time here.
        let servers = Some(self.report.servers.len());
        session.load_agent_with(&self.file, &self.text, false, servers)?.map_err(AgentError::Config)
    }

    /// [`Agent::load_into`] after start ([`filestore_runtime::Session::reload_agent`]): what cannot
    /// be resolved now is a warning of the report, not an error.
    pub fn reload_into(
        &self,
        session: &mut filestore_runtime::Session,
    ) -> Result<AgentReport, AgentError> {
        let servers = Some(self.report.servers.len());
        session.load_agent_with(&self.file, &self.text, true, servers)?.map_err(AgentError::Config)
    }

    /// Warnings of the providers so far (upstream tools left out of catalogs).
    pub fn provider_warnings(&self) -> Vec<String> {
        self.mcp.as_ref().map(|m| m.warnings()).unwrap_or_default()
    }
}
