//! External tool execution: the host's answer to the guest's `tool-host` import.
//!
//! An embedder implements [`ToolHost`]; [`NoTools`] refuses every call with a clear
//! error, for sessions that only offer the filestore's own tools.

use crate::bindings::filestore::component::tool_host::{ConnectionStatus, ToolCall};
use crate::bindings::filestore::component::types::Error;

/// Runs external tool calls for sessions.
pub trait ToolHost: Send + Sync {
    /// Runs one validated call; returns JSON text or a typed error.
    fn call(&self, call: ToolCall) -> Result<String, Error>;
    /// Reports whether a provider connection can be used.
    fn check_connection(&self, call_ref: &str) -> Result<ConnectionStatus, Error>;
}

/// A tool host that has no tools.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTools;

impl ToolHost for NoTools {
    fn call(&self, call: ToolCall) -> Result<String, Error> {
        Err(Error::Unsupported(format!(
            "tool '{}' of type '{}': this host has no handler for external tools",
            call.tool_name, call.tool_type
        )))
    }
    fn check_connection(&self, call_ref: &str) -> Result<ConnectionStatus, Error> {
        let _ = call_ref;
        Ok(ConnectionStatus::Missing)
    }
}
