//! The line a call answered on the stdio fast path is written as ([`answer_line`]):
//! rmcp's answer serialised as rmcp would, with a listing's JSON passed through
//! unparsed ([`crate::fast_call::passes_json_through`]).

use rmcp::RoleServer;
use rmcp::model::{JsonRpcMessage, ServerResult};
use rmcp::service::TxJsonRpcMessage;

/// The answer line: `reply` serialised, with the JSON a call passed through as its
/// result's `structuredContent` (written as is, not parsed: `Session::call_unparsed`
/// checked it is JSON that can be, one line without `\u` escapes).
pub(super) fn answer_line(
    mut reply: TxJsonRpcMessage<RoleServer>,
    passed: Option<String>,
) -> Vec<u8> {
    let serialise = |reply: &TxJsonRpcMessage<RoleServer>| {
        serde_json::to_vec(reply).unwrap_or_else(|e| {
            // A reply that does not serialise (it always does) is rmcp's to fail on:
            // rather than lose the call, say so in the same shape rmcp would.
            let message = format!("serialising the answer: {e}");
            crate::guard::error_reply(serde_json::Value::Null, -32603, message).into_bytes()
        })
    };
    let Some(json) = passed else { return serialise(&reply) };
    let result = match &mut reply {
        JsonRpcMessage::Response(r) => match &mut r.result {
            // The placeholder `pass_json_through` gave, and nothing else.
            ServerResult::CallToolResult(result)
                if result.is_error != Some(true)
                    && result
                        .structured_content
                        .as_ref()
                        .and_then(serde_json::Value::as_object)
                        .is_some_and(serde_json::Map::is_empty) =>
            {
                result
            }
            _ => return serialise(&reply),
        },
        _ => return serialise(&reply),
    };
    result.structured_content = None;
    let mut line = serialise(&reply);
    // The result is the message's last member and the structured content would be
    // the result's: `...}}` becomes `...,"structuredContent":JSON}}`.
    if !line.ends_with(b"}}") {
        result_back(&mut reply, &json);
        return serialise(&reply);
    }
    line.truncate(line.len() - 2);
    line.reserve(json.len() + 24);
    line.extend_from_slice(b",\"structuredContent\":");
    line.extend_from_slice(json.as_bytes());
    line.extend_from_slice(b"}}");
    line
}

/// Puts the passed-through `json` back into `reply`'s result, parsed (the fallback
/// when the answer is not shaped as [`answer_line`] expects).
fn result_back(reply: &mut TxJsonRpcMessage<RoleServer>, json: &str) {
    if let JsonRpcMessage::Response(r) = reply
        && let ServerResult::CallToolResult(result) = &mut r.result
    {
        result.structured_content = serde_json::from_str(json).ok();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::RequestId;
    use serde_json::json;

    /// A passed-through listing's JSON lands as the result's `structuredContent`,
    /// exactly as rmcp would write the parsed value; an error answer or a result
    /// without structured content ignores it.
    #[test]
    fn passed_json_is_the_structured_content() {
        use rmcp::model::{CallToolResult, ContentBlock, ErrorData};
        let listing =
            r#"{"path":"/w","entries":[{"name":"a \"b\"\n","size":3}],"truncated":false}"#;
        let reply = |structured: Option<serde_json::Value>| -> TxJsonRpcMessage<RoleServer> {
            let mut r = CallToolResult::success(vec![ContentBlock::text("a \"b\"\n (3 bytes)\n")]);
            r.structured_content = structured;
            JsonRpcMessage::response(ServerResult::CallToolResult(r), RequestId::Number(7))
        };
        let parsed = |line: Vec<u8>| serde_json::from_slice::<serde_json::Value>(&line).unwrap();
        let expected =
            parsed(serde_json::to_vec(&reply(serde_json::from_str(listing).ok())).unwrap());
        let spliced = answer_line(reply(Some(json!({}))), Some(listing.to_string()));
        assert_eq!(parsed(spliced), expected);

        let plain = reply(None);
        let alone = serde_json::to_vec(&plain).unwrap();
        assert_eq!(answer_line(plain, Some(listing.to_string())), alone);
        let error: TxJsonRpcMessage<RoleServer> = JsonRpcMessage::error(
            ErrorData::invalid_params("no", None),
            Some(RequestId::Number(7)),
        );
        let alone = serde_json::to_vec(&error).unwrap();
        assert_eq!(answer_line(error, Some(listing.to_string())), alone);
    }
}
