//! What the component reports of an agent configuration (`check-agent`,
//! `load-agent`): the upstream servers the providers connect to and the entries of
//! its tool lists they resolve. Sessions return it; the `filestore` crate's agents
//! build their upstream providers from it.

use std::time::Duration;

use serde_json::{Map, Value};

/// One entry of an agent's `tools` or `available` list, as the component reported it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentEntryInfo {
    /// `tools` or `available`.
    pub section: String,
    /// 0-based index in its list.
    pub index: u32,
    /// The entry as written (a name, a prefix, or a call ref).
    pub text: String,
    /// The call ref of a provider entry.
    pub call_ref: Option<String>,
    /// Whether it may be left out when its connection cannot be used.
    pub optional: bool,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// An agent configuration as checked or loaded by the component.
#[derive(Clone, Debug)]
pub struct AgentReport {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// The declared upstream servers.
    pub servers: Vec<ServerDecl>,
    /// Every entry of `tools`, then of `available`.
    pub entries: Vec<AgentEntryInfo>,
    /// After a load: the tools offered, in order.
    pub offered: Vec<String>,
    /// After a load: the tools a skill can activate.
    pub available: Vec<String>,
    /// What resolution left out, and why.
    pub warnings: Vec<String>,
    /// The report as text.
    pub rendered: String,
}

/// How long a server may take to connect and to answer one call, when its
/// declaration gives no `timeout`.
pub const DEFAULT_SERVER_TIMEOUT: Duration = Duration::from_secs(30);

/// One declared server, as the component's `check-agent` reported it.
#[derive(Clone, Debug)]
pub struct ServerDecl {
    /// Its name (the refs' `integration`).
    pub name: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// Its fields, normalised by the component (`command`, `args`, `env`, `cwd`,
    /// `url`, `headers`, `timeoutMs`, `connections`), unresolved.
    pub fields: Map<String, Value>,
    /// Where it is declared: `file: line L, column C`.
    pub location: String,
}

impl ServerDecl {
    /// The server's per-call timeout.
    pub fn timeout(&self) -> Duration {
        self.fields
            .get("timeoutMs")
            .and_then(Value::as_u64)
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_SERVER_TIMEOUT)
    }

    /// Whether `connection` is declared (`default` always is).
    pub fn has_connection(&self, connection: &str) -> bool {
        connection == DEFAULT_CONNECTION || self.connection(connection).is_some()
    }

    /// The declaration of `connection`, when the server declares it.
    pub fn connection(&self, connection: &str) -> Option<&Map<String, Value>> {
        self.fields.get("connections")?.get(connection)?.as_object()
    }

    /// Whether `connection` is declared `disabled: true`.
    pub fn is_disabled(&self, connection: &str) -> bool {
        self.connection(connection)
            .and_then(|c| c.get("disabled"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }
}

/// The connection every server has.
pub const DEFAULT_CONNECTION: &str = "default";
