//! What crosses the `tool-host` boundary, as the host's own types: one validated call
//! of an external tool ([`ToolCall`]) and whether a provider connection can be used
//! ([`ConnectionStatus`]). The WIT's generated records stay in `glue/tool_host.rs`,
//! which converts them, so an embedder's [`ToolHost`](super::ToolHost) does not
//! depend on the bindings (see `wit/filestore.wit`, interface `tool-host`).

/// One validated call of an external tool, as the component hands it to the host.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolCall {
    /// The tool's name as the agent sees it.
    pub tool_name: String,
    /// The tool's `type` (e.g. `sqlite-sql`, `http`): selects the host handler.
    pub tool_type: String,
    /// The source the tool names, if any; the host holds its configuration and
    /// secrets, which never enter the component.
    pub source: Option<String>,
    /// `tools.{provider}.{integration}.{action}.{connection}` for provider refs.
    pub call_ref: Option<String>,
    /// The tool's configuration document without secrets (JSON object text).
    pub config: String,
    /// Validated, defaulted arguments (JSON object text).
    pub arguments: String,
    /// Positional parameter values in declared order (JSON array text).
    pub positional: String,
    /// The statement after template-parameter substitution, when the tool has one.
    pub statement: Option<String>,
    /// For `http` tools: the configured `path` with `pathParams` substituted, each
    /// value percent-encoded so it cannot add segments, `..`, a query or a fragment.
    pub path: Option<String>,
    /// Who calls.
    pub context: CallContext,
}

/// The caller of a [`ToolCall`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallContext {
    /// The session's id, as the host states it (never the component's word).
    pub session_id: String,
    /// The client's id of this tool call, when it gave one.
    pub tool_call_id: Option<String>,
    /// The caller's verified claims (JSON text; `null` when none).
    pub claims: String,
}

/// Whether a connection named by a provider ref can be used, and what it offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectionStatus {
    /// Exists and is usable: the actions the ref selects (the one it names, or every
    /// action of the connection when the ref's action is `*`). An empty list for a
    /// named action means the host has no catalog: the component then offers the
    /// action with a generic description and an any-object schema.
    Active(Vec<ProviderAction>),
    /// Exists but cannot be used (disabled, expired or refused credentials, a
    /// credential variable that is not set); the reason, when the host knows it.
    Inactive(Option<String>),
    /// Unknown to the host.
    Missing,
}

/// One action a provider connection offers, as the provider's catalog describes it
/// (for provider `mcp`: one tool of the upstream server, from its `tools/list`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProviderAction {
    /// The action segment of the call ref; for an upstream tool whose own name is not
    /// a valid segment, the host's slug of it.
    pub action: String,
    /// A human title, when the catalog gives one.
    pub title: Option<String>,
    /// What the action does, as the provider describes it (may be empty).
    pub description: String,
    /// JSON Schema of the action's arguments (a JSON object text).
    pub input_schema: String,
    /// Behaviour hints as an MCP `ToolAnnotations` JSON object text, when given.
    pub annotations: Option<String>,
}
