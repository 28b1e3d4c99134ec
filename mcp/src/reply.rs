//! What a client gets back: the result of a tool call, successful or failed (every
//! tool's: the component's, configured and host tools alike), and the protocol
//! error of a request outside a call (prompts, resources). How an error reaches an
//! MCP client is decided here, once.

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::{Value, json};

use filestore_guest::error::ErrorKind;
use filestore_runtime::{CallOutput, Error};

/// The MCP result of a successful call: the JSON as `structuredContent` (wrapped in
/// `{"result": ...}` when it is not an object, which MCP requires) plus the text.
pub(crate) fn success(out: CallOutput) -> CallToolResult {
    let structured = match out.json {
        Value::Object(_) => out.json,
        other => json!({ "result": other }),
    };
    let mut r = CallToolResult::success(vec![ContentBlock::text(out.text)]);
    r.structured_content = Some(structured);
    r
}

/// The `_meta` key of a failed call's result holding `{"kind", "message"}`.
pub const ERROR_META: &str = "filestore/error";

/// The MCP result of a failed call, of every tool (the component's, configured and
/// host tools alike): `isError: true`, the text `error[KIND]: message`, and the kind
/// and message under `_meta["filestore/error"]` for programs.
///
/// No `structuredContent`: a client checks it against the tool's `outputSchema`,
/// which describes a success, and TypeScript SDK 1.x does so for errors too (it
/// throws `-32602 Structured content does not match the tool's output schema`
/// instead of returning the result, so the user never sees the error).
pub(crate) fn failure(e: &Error, poisoned: bool) -> CallToolResult {
    let kind = e.kind_name();
    let mut message = e.to_string();
    if poisoned {
        message.push_str(
            "; the sandbox is replaced by a fresh one for the next call (volumes are kept)",
        );
    }
    let mut r =
        CallToolResult::error(vec![ContentBlock::text(format!("error[{kind}]: {message}"))]);
    let mut meta = serde_json::Map::new();
    meta.insert(ERROR_META.into(), json!({"kind": kind, "message": message}));
    r.meta = Some(rmcp::model::MetaObject(meta));
    r
}

/// Maps a host error outside a tool call (prompt, resource) to a protocol error.
pub(crate) fn protocol_error(e: &Error) -> McpError {
    let text = format!("error[{}]: {e}", e.kind_name());
    match e.kind() {
        Some(ErrorKind::NotFound) => McpError::resource_not_found(text, None),
        Some(
            ErrorKind::InvalidPath
            | ErrorKind::InvalidArgument
            | ErrorKind::NotAFile
            | ErrorKind::TooLarge,
        ) => McpError::invalid_params(text, None),
        _ => McpError::internal_error(text, None),
    }
}
