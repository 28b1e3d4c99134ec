//! The shape of a built-in tool as an agent sees it ([`ToolSpec`]) and the schema
//! pieces the built-in tools share. The tools themselves (names, descriptions, JSON
//! Schemas, annotations and how a call runs) are one list,
//! `crate::invoke::builtins` (docs/architecture.md#operations).

use serde::Serialize;
use serde_json::{Value, json};

/// A tool's advertised specification (MCP `tools/list` shape).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    /// Tool name (`filestore_read`...).
    pub name: String,
    /// What the tool does and when to use it, for the model.
    pub description: String,
    /// JSON Schema of the arguments.
    pub input_schema: Value,
    /// MCP annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`) plus `requiresApproval` where set.
    pub annotations: Value,
    /// A short human-readable name (MCP `title`).
    pub title: String,
    /// JSON Schema of the structured result (MCP `outputSchema`): what a successful
    /// call's JSON holds.
    pub output_schema: Value,
}

/// The JSON Schema of an entry (`Entry`) inside a result.
pub fn entry_schema() -> Value {
    json!({"type": "object", "required": ["path", "kind"], "properties": {
        "path": {"type": "string"}, "kind": {"type": "string"}, "size": {"type": "integer"},
        "modified_ms": {"type": ["integer", "null"]}, "read_only": {"type": "boolean"},
        "entry_type": {"type": "string"}
    }})
}

/// The result schema of `filestore_write`, `_mkdir`, `_delete` and `_move` (a
/// `MutationResult`).
pub fn mutation_schema() -> Value {
    json!({"type": "object", "required": ["entry", "message"], "properties": {
        "entry": entry_schema(), "message": {"type": "string"}
    }})
}

/// A path parameter's schema: `what` it names, and how a path is read.
pub fn path_prop(what: &str) -> Value {
    json!({"type": "string", "description": format!("{what} Absolute virtual path such as /workspace/src/main.rs; relative paths are taken from /.")})
}

/// The MCP annotations of a tool.
pub fn annotations(read_only: bool, destructive: bool, idempotent: bool) -> Value {
    json!({
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": false
    })
}
