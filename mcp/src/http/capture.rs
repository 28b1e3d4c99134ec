//! Which conversation an HTTP request names (docs/state.md#serving): the
//! [`HEADER`] (or, for a 2026-07-28 request that creates its server, the body's
//! `_meta`), checked before any session is made for it and kept for the server
//! made for the request ([`requested`](crate::conversations::requested)); a
//! session the request created is recorded with its conversation for other
//! replicas ([`crate::stored_sessions`]).

use std::sync::Arc;

use crate::conversations::{CreatedServer, HEADER, REQUESTED, RequestConversation, owner_digest};
use crate::stored_sessions::{Recorded, StoredSessions};
use filestore_store::conversation::ConversationKey;

/// What [`capture`] knows of the server.
#[derive(Clone, Default)]
pub struct CaptureState {
    /// The server keeps conversations (`--state`).
    pub keeps: bool,
    /// Where sessions are recorded for other replicas (with `--state`).
    pub stored: Option<Arc<StoredSessions>>,
}

/// Keeps the request's [`HEADER`] for the session it may create ([`requested`](crate::conversations::requested)).
/// A header that is not text is refused here (400), naming the header.
/// `keeps` says whether the server keeps conversations (`--state`): when it does
/// not, a request naming one is refused here (400), saying to start it with
/// `--state`, rather than after a session was set up for it. A session the request
/// created is recorded with its conversation and its creator in `stored`; a session
/// it takes over (see [`Recorded`]) keeps its conversation.
pub async fn capture(
    axum::extract::State(state): axum::extract::State<CaptureState>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let keeps = state.keeps;
    if !keeps && request.headers().contains_key(HEADER) {
        let m = format!(
            "the request names a conversation ({HEADER} header), but this server keeps no conversation state: start it with --state DIR|s3://bucket/prefix|mem:"
        );
        return (axum::http::StatusCode::BAD_REQUEST, m).into_response();
    }
    if request.headers().get_all(HEADER).iter().count() > 1 {
        let m = format!("more than one {HEADER} header: a request names one conversation");
        return (axum::http::StatusCode::BAD_REQUEST, m).into_response();
    }
    let value = match request.headers().get(HEADER).map(|v| v.to_str()) {
        None => None,
        Some(Ok(v)) => Some(v.to_string()),
        Some(Err(_)) => {
            let m = format!(
                "the {HEADER} header is not visible ASCII; a conversation key is ASCII letters, digits and . _ : -"
            );
            return (axum::http::StatusCode::BAD_REQUEST, m).into_response();
        }
    };
    // A key outside the rules is refused before any session is made for it (the
    // error names the rule, never echoes the key).
    if let Some(v) = &value
        && let Err(e) = ConversationKey::scoped("", v)
    {
        let m = format!("the {HEADER} header: {e}");
        return (axum::http::StatusCode::BAD_REQUEST, m).into_response();
    }
    // A request taking over a session recorded by another replica (or before a
    // restart): the server made for it serves the session's own conversation, so no
    // other is made (and counted against the cap) for a moment. A header naming
    // another one is refused before anything is made.
    let recorded = request.extensions().get::<Recorded>();
    let taken_over = recorded.and_then(|r| r.conversation.clone());
    if let (Some(theirs), Some(named)) = (&taken_over, &value)
        && theirs != named
    {
        let m = format!(
            "this MCP session serves conversation '{theirs}'; a request naming another conversation ({HEADER} header) needs a session of its own"
        );
        return (axum::http::StatusCode::BAD_REQUEST, m).into_response();
    }
    let value = value.or(taken_over);
    // Sessionless revisions name themselves in every request's header.
    let per_request = request
        .headers()
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v >= "2026-07-28");
    let creates = request.method() == axum::http::Method::POST
        && !request.headers().contains_key(super::pool::SESSION_HEADER);
    // A 2026-07-28 request naming its conversation in `_meta` only: the server made
    // for it is made for that conversation (from the cache of its sandboxes), not
    // for none and then rebuilt. A `_meta` value outside the rules is left to the
    // handler, which refuses it.
    let (value, request) = match value {
        None if per_request && keeps && creates => {
            let (parts, body) = request.into_parts();
            let Ok(bytes) = axum::body::to_bytes(body, super::body::MAX_HTTP_BODY_BYTES).await
            else {
                let m = format!(
                    "the request body is unreadable or larger than {} bytes",
                    super::body::MAX_HTTP_BODY_BYTES
                );
                return (axum::http::StatusCode::PAYLOAD_TOO_LARGE, m).into_response();
            };
            let named = meta_conversation(&bytes);
            (named, axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes)))
        }
        value => (value, request),
    };
    let created = CreatedServer::default();
    let asked = RequestConversation { named: value, per_request, created: created.clone() };
    let response = REQUESTED.scope(asked, next.run(request)).await;
    if let Some(stored) = &state.stored
        && creates
        && let Some(id) =
            response.headers().get(super::pool::SESSION_HEADER).and_then(|v| v.to_str().ok())
    {
        // Still inside the authentication's scope: the caller is the request's.
        let caller = super::identity::current_identity().map(|i| i.segment);
        let owner = owner_digest(caller.as_deref());
        stored.bind(id, created.conversation(), owner).await;
    }
    response
}

/// The conversation a JSON-RPC request body names in `params._meta`, when it is a
/// key within the rules ([`ConversationKey`]). Only that value is built: the rest of
/// the body is skipped, not parsed into values.
fn meta_conversation(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Message {
        params: Option<Params>,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<Meta>,
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(rename = "filestore/conversation")]
        conversation: Option<serde_json::Value>,
    }
    let message: Message = serde_json::from_slice(body).ok()?;
    let key = message.params?.meta?.conversation?.as_str()?.to_string();
    ConversationKey::scoped("", &key).is_ok().then_some(key)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_requests_meta_names_its_conversation() {
        let named = |body: &str| super::meta_conversation(body.as_bytes());
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x",
            "arguments":{"big":[1,2,{"a":"b"}]},"_meta":{"filestore/conversation":"c-1"}}}"#;
        assert_eq!(named(body).as_deref(), Some("c-1"));
        // Outside the rules, not a string, absent, or not a message: left to the handler.
        assert_eq!(named(r#"{"params":{"_meta":{"filestore/conversation":"a/b"}}}"#), None);
        assert_eq!(named(r#"{"params":{"_meta":{"filestore/conversation":7}}}"#), None);
        assert_eq!(named(r#"{"params":{"_meta":{}}}"#), None);
        assert_eq!(named(r#"{"method":"tools/list"}"#), None);
        assert_eq!(named(r#"[{"params":{"_meta":{"filestore/conversation":"c"}}}]"#), None);
        assert_eq!(named("not json"), None);
    }
}
