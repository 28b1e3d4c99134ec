//! Providers of agent tool refs (`tools.{provider}.{integration}.{action}.{connection}`,
//! docs/architecture.md#agent-tool-refs and docs/agents.md).
//!
//! A provider is what turns a ref into a runnable tool: it answers the component's
//! `check-connection` with the actions a connection offers (the upstream name,
//! description and input schema of each, which the component shows the agent as they
//! are) and runs the calls the component validated. The registry
//! ([`filestore_runtime::tools::ToolRegistry::register_provider`]) routes both by the ref's
//! `provider` segment.
//!
//! - [`mcp`]: provider `mcp`, whose integrations are other MCP servers (a command the
//!   host starts, or a streamable-HTTP URL), declared in an agent configuration.

pub mod mcp;
pub use filestore_runtime::tools::{AgentEntryInfo, AgentReport};
