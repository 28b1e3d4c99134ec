//! What the component reports of an agent configuration (`check-agent`,
//! `load-agent`): the upstream servers the providers connect to and the entries of
//! its tool lists they resolve. Sessions return it; [`crate::agent::Agent`] builds
//! the providers from it.

use super::mcp::spec::ServerDecl;

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
