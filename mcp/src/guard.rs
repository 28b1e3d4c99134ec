//! The stdio transport's input guard: every request gets an answer, even one too
//! large to read.
//!
//! rmcp reads one JSON-RPC message per line and drops a line longer than its cap
//! (16 MiB) with only a log line, so a client that sent a 17 MiB write would wait
//! forever. [`read_messages`] reads stdin for the transport ([`crate::stdio::transport`]):
//! lines within [`MAX_STDIO_MESSAGE_BYTES`] become messages; a longer line is
//! discarded as it streams by (never buffered whole) and replaced by a small request
//! for [`TOO_LARGE_METHOD`] carrying the original id, which the server answers with a
//! JSON-RPC error saying how large the message was and what the limit is.
//!
//! rmcp also drops a line that is not JSON, or not a JSON-RPC message, without a
//! word. The guard answers those itself, as JSON-RPC asks: `-32700` (parse error,
//! id `null`) for text that is not JSON, `-32600` (invalid request, with the id when
//! one can be found) for JSON that is not a message. Its answers go to the same
//! writer as the server's, whole lines, so they never interleave within a line.
//!
//! Each line is parsed once on the way in: a line that parses as a message is one
//! the checks above would pass (rmcp's message type requires `"jsonrpc": "2.0"` and
//! a `method`, `result` or `error`), so the checks run only for a line that does not.

use std::io::BufRead;

use memchr::memchr;
use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};

/// Largest message (one line, without its newline) read over stdio: just under
/// rmcp's own cap, so a message is never larger than rmcp would read either.
pub const MAX_STDIO_MESSAGE_BYTES: usize =
    rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH - 1024;

/// How much of an oversized line is kept to find its `"id"` (it comes first in
/// every client we know of; a message whose id is later cannot be answered).
const ID_SEARCH_BYTES: usize = 64 * 1024;

/// The method of the request that stands in for an oversized one.
pub const TOO_LARGE_METHOD: &str = "filestore/request-too-large";

/// What one line of input is for the server.
#[derive(Debug)]
pub enum Incoming {
    /// A message for rmcp (an oversized one's stand-in included).
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// The guard's own answer (a line of JSON, without its newline).
    Reply(String),
}

/// Reads `input` line by line until its end, handing each line's [`Incoming`] to
/// `deliver` (blank lines, and messages rmcp would ignore, hand nothing). Stops
/// early when `deliver` returns false (the server is gone). A line longer than
/// [`MAX_STDIO_MESSAGE_BYTES`] becomes a [`TOO_LARGE_METHOD`] request with the same
/// id (a line without a findable id, a notification, is dropped, and said so on
/// stderr).
pub fn read_messages(
    mut input: impl BufRead,
    mut deliver: impl FnMut(Incoming) -> bool,
) -> std::io::Result<()> {
    let mut line: Vec<u8> = Vec::new();
    // Bytes of the current line seen so far when it is oversized (`line` then
    // keeps only its head).
    let mut oversized: Option<usize> = None;
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            // A last line without its newline is an incomplete message: rmcp's
            // own transport drops it too.
            return Ok(());
        }
        let (chunk, ends_line) = match memchr(b'\n', buf) {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        let taken = chunk.len() + usize::from(ends_line);
        match oversized.as_mut() {
            Some(seen) => {
                *seen += chunk.len();
                let room = ID_SEARCH_BYTES.saturating_sub(line.len());
                line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            None if line.len() + chunk.len() > MAX_STDIO_MESSAGE_BYTES => {
                let seen = line.len() + chunk.len();
                line.truncate(ID_SEARCH_BYTES);
                let room = ID_SEARCH_BYTES.saturating_sub(line.len());
                line.extend_from_slice(&chunk[..chunk.len().min(room)]);
                oversized = Some(seen);
            }
            None => line.extend_from_slice(chunk),
        }
        input.consume(taken);
        if ends_line {
            let incoming = match oversized.take() {
                None => classify(&line),
                Some(bytes) => stand_in(&line, bytes),
            };
            if let Some(incoming) = incoming
                && !deliver(incoming)
            {
                return Ok(());
            }
            line.clear();
        }
    }
}

/// What a whole line (without its newline) is: a message, the guard's answer, or
/// nothing (a blank line; a notification rmcp ignores).
fn classify(line: &[u8]) -> Option<Incoming> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => Some(Incoming::Message(Box::new(message))),
        Err(_) => match malformed(line) {
            Some(reply) => Some(Incoming::Reply(reply)),
            None => unknown_message(line),
        },
    }
}

/// A JSON-RPC message rmcp's message type does not take (a batch, a notification
/// of a method it does not know, a request whose params are not of its method's
/// shape), handled as rmcp's own stdio transport does, with one difference: a
/// notification of a method outside MCP is ignored; a request of an MCP method with
/// an id gets [`invalid_params`], where rmcp answers "Invalid request" without an id,
/// which no client can match to its request; anything else is answered "Invalid
/// request" without an id.
fn unknown_message(line: &[u8]) -> Option<Incoming> {
    let value: serde_json::Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        // `malformed`'s skim (IgnoredAny) lets through what a full parse refuses, a
        // lone surrogate escape (`"\ud800"`): answered, with the request's id, or
        // the client would wait forever.
        Err(e) => {
            let id = request_id(line).unwrap_or(serde_json::Value::Null);
            let message = format!("parse error: the message is not JSON: {e}");
            return Some(Incoming::Reply(error_reply(id, -32700, message)));
        }
    };
    if let Some(method) = value.get("method").and_then(serde_json::Value::as_str) {
        let notification = value.get("id").is_none();
        let mcp = is_standard_method(method);
        let notice = method.starts_with("notifications/");
        if (notification && !mcp) || (notice && !is_standard_notification(method)) {
            return None;
        }
        if let Some(reply) = invalid_params(&value) {
            return Some(Incoming::Reply(reply));
        }
    }
    let error = TxJsonRpcMessage::<RoleServer>::error(
        rmcp::ErrorData::invalid_request("Invalid request", None),
        None,
    );
    serde_json::to_string(&error).ok().map(Incoming::Reply)
}

/// The answer to a request (`value`, a JSON object) of an MCP method that rmcp's
/// message type refused: `-32602` with the request's id, naming the field for a
/// `tools/call` (rmcp's types are untagged enums, whose error says only that nothing
/// matched; a call's params parsed alone name the field). `None` when it has no id
/// to answer or its method is not a request of MCP's.
pub(crate) fn invalid_params(value: &serde_json::Value) -> Option<String> {
    let method = value.get("method")?.as_str()?;
    let id = value.get("id").filter(|id| id.is_string() || id.is_i64() || id.is_u64())?;
    if !is_standard_method(method) || method.starts_with("notifications/") {
        return None;
    }
    let params = value.get("params").cloned().unwrap_or_default();
    let why = match method {
        "tools/call" => serde_json::from_value::<rmcp::model::CallToolRequestParams>(params)
            .err()
            .map(|e| e.to_string()),
        _ => None,
    };
    let why = why.unwrap_or_else(|| "not of the shape MCP defines for it".to_string());
    Some(error_reply(id.clone(), -32602, format!("invalid params of {method}: {why}")))
}

/// The MCP methods (rmcp's list, protocol 2026-07-28): a notification of another
/// method is not MCP's and is ignored.
fn is_standard_method(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "server/discover"
            | "prompts/get"
            | "prompts/list"
            | "resources/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "resources/templates/list"
            | "subscriptions/listen"
            | "tools/call"
            | "tools/list"
            | "completion/complete"
            | "elicitation/create"
            | "logging/setLevel"
            | "roots/list"
            | "sampling/createMessage"
    ) || is_standard_notification(method)
}

/// The MCP notifications (rmcp's list): another `notifications/...` is ignored.
fn is_standard_notification(method: &str) -> bool {
    matches!(
        method,
        "notifications/cancelled"
            | "notifications/initialized"
            | "notifications/message"
            | "notifications/progress"
            | "notifications/prompts/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/resources/updated"
            | "notifications/roots/list_changed"
            | "notifications/subscriptions/acknowledged"
            | "notifications/tools/list_changed"
    )
}

/// The stand-in for an oversized line of `bytes` bytes whose head is `head`: a
/// [`TOO_LARGE_METHOD`] request with its id, or nothing (said on stderr) when it
/// has no id to answer.
fn stand_in(head: &[u8], bytes: usize) -> Option<Incoming> {
    let Some(id) = request_id(head) else {
        eprintln!(
            "filestore serve: dropped a {bytes}-byte message without an id (the limit is {MAX_STDIO_MESSAGE_BYTES} bytes)"
        );
        return None;
    };
    let stand_in = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": TOO_LARGE_METHOD,
        "params": {"bytes": bytes, "limit": MAX_STDIO_MESSAGE_BYTES},
    });
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(stand_in) {
        Ok(message) => Some(Incoming::Message(Box::new(message))),
        Err(e) => {
            eprintln!("filestore serve: the stand-in for a {bytes}-byte message is not one: {e}");
            None
        }
    }
}
/// A JSON-RPC error reply, as one line of text.
pub(crate) fn error_reply(id: serde_json::Value, code: i64, message: String) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        .to_string()
}

/// The error reply for a line that is not a JSON-RPC message, or `None` for one
/// that is (or a blank line, which rmcp skips). A batch (array) is passed on: which
/// batches to accept is the protocol version's business, rmcp's.
pub(crate) fn malformed(line: &[u8]) -> Option<String> {
    use serde_json::Value;
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    /// Only what tells a message apart; `params`/`result` are skipped, not built.
    #[derive(serde::Deserialize)]
    struct Probe {
        jsonrpc: Option<String>,
        method: Option<serde::de::IgnoredAny>,
        result: Option<serde::de::IgnoredAny>,
        error: Option<serde::de::IgnoredAny>,
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
        Err(e) => {
            return Some(error_reply(
                Value::Null,
                -32700,
                format!("parse error: the message is not JSON: {e}"),
            ));
        }
        Ok(_) if line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') => return None,
        Ok(_) => {}
    }
    let id = request_id(line).unwrap_or(Value::Null);
    match serde_json::from_slice::<Probe>(line) {
        Err(_) => Some(error_reply(
            id,
            -32600,
            "invalid request: a JSON-RPC message is a JSON object".to_string(),
        )),
        Ok(p) if p.jsonrpc.as_deref() != Some("2.0") => Some(error_reply(
            id,
            -32600,
            "invalid request: \"jsonrpc\" must be \"2.0\"".to_string(),
        )),
        Ok(p) if p.method.is_none() && p.result.is_none() && p.error.is_none() => Some(error_reply(
            id,
            -32600,
            "invalid request: a message has a \"method\" (or is a response with \"result\" or \"error\")"
                .to_string(),
        )),
        Ok(_) => None,
    }
}

/// The JSON-RPC id of a message, from the head of its text: the value after the
/// first top-level `"id":` key (a number or a string).
fn request_id(head: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(head);
    let mut depth = 0i32;
    let mut in_string = false;
    let mut escaped = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            b'"' if depth == 1 && text[i..].starts_with("\"id\"") => {
                let rest = text[i + 4..].trim_start().strip_prefix(':')?.trim_start();
                let mut stream =
                    serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
                return match stream.next()? {
                    Ok(v @ (serde_json::Value::Number(_) | serde_json::Value::String(_))) => {
                        Some(v)
                    }
                    _ => None,
                };
            }
            b'"' => in_string = true,
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `input` becomes: each message as JSON again, each reply as sent.
    fn read(input: &[u8]) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        read_messages(input, |item| {
            out.push(match item {
                Incoming::Message(m) => serde_json::to_value(&*m).unwrap(),
                Incoming::Reply(r) => serde_json::json!({"reply": serde_json::from_str::<serde_json::Value>(&r).unwrap()}),
            });
            true
        })
        .unwrap();
        out
    }

    #[test]
    fn small_lines_pass_and_oversized_ones_are_replaced() {
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":"w-7","method":"tools/call","params":{{"name":"filestore_write","arguments":{{"path":"/s/x","content":"{}"}}}}}}"#,
            "x".repeat(MAX_STDIO_MESSAGE_BYTES)
        );
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}\n{big}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n"
        );
        let items = read(input.as_bytes());
        assert_eq!(items.len(), 3, "{items:?}");
        assert_eq!(items[0]["id"], 1);
        assert_eq!(items[0]["method"], "ping");
        assert_eq!(items[1]["id"], "w-7");
        assert_eq!(items[1]["method"], TOO_LARGE_METHOD);
        assert_eq!(items[1]["params"]["bytes"], big.len());
        assert_eq!(items[1]["params"]["limit"], MAX_STDIO_MESSAGE_BYTES);
        assert_eq!(items[2]["id"], 2);
    }

    /// Text that is not JSON gets -32700 with id null; JSON that is not a message
    /// gets -32600 with its id; a batch gets rmcp's "Invalid request"; messages pass
    /// on (a notification outside MCP too: rmcp's to ignore); blank lines and an
    /// unfinished last line are dropped.
    #[test]
    fn malformed_lines_are_answered_not_dropped() {
        let input = "not json\n{\"id\":4,\"method\":\"ping\"}\n[1, 2]\n{\"jsonrpc\":\"2.0\",\"id\":5}\n\n \r\n{\"jsonrpc\":\"2.0\",\"method\":\"lsp/x\"}\n{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}\r\n{\"jsonrpc\":\"2.0\",\"id\":7,";
        let items = read(input.as_bytes());
        let errors: Vec<(serde_json::Value, i64)> = items
            .iter()
            .filter_map(|i| i.get("reply"))
            .map(|r| (r["id"].clone(), r["error"]["code"].as_i64().unwrap()))
            .collect();
        assert_eq!(
            errors,
            [
                (serde_json::Value::Null, -32700),
                (4.into(), -32600),
                (serde_json::Value::Null, -32600),
                (5.into(), -32600)
            ],
            "{items:?}"
        );
        let passed: Vec<&serde_json::Value> =
            items.iter().filter(|i| i.get("reply").is_none()).collect();
        let passed: Vec<(serde_json::Value, serde_json::Value)> =
            passed.iter().map(|m| (m["id"].clone(), m["method"].clone())).collect();
        assert_eq!(
            passed,
            [(serde_json::Value::Null, "lsp/x".into()), (6.into(), "ping".into())],
            "{items:?}"
        );
    }

    /// A lone surrogate escape passes the skim but not rmcp's parse: it is answered
    /// as a parse error with the request's id (the client waited forever before).
    #[test]
    fn a_lone_surrogate_is_answered_with_its_id() {
        let input = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"q\":\"x\\ud800\"}}}\n";
        let items = read(input.as_bytes());
        assert_eq!(items.len(), 1, "{items:?}");
        let reply = &items[0]["reply"];
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (5.into(), (-32700).into()),
            "{items:?}"
        );
    }

    /// The reader stops when the server is gone (`deliver` says so).
    #[test]
    fn reading_stops_when_the_server_is_gone() {
        let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".repeat(3);
        let mut seen = 0;
        read_messages(input.as_bytes(), |_| {
            seen += 1;
            false
        })
        .unwrap();
        assert_eq!(seen, 1);
    }

    #[test]
    fn ids_are_found_at_the_top_level_only() {
        assert_eq!(request_id(br#"{"jsonrpc":"2.0","id":5,"method":"x"}"#), Some(5.into()));
        assert_eq!(
            request_id(br#"{"params":{"id":9,"s":"\"id\":3"},"id":"a b"}"#),
            Some("a b".into())
        );
        assert_eq!(request_id(br#"{"method":"notifications/x","params":{"id":1}}"#), None);
    }
}
