//! Malformed request bodies on the streamable HTTP transport get a JSON-RPC error.
//!
//! rmcp answers a POST whose JSON body it cannot read with `415` and a line of text,
//! which a client cannot match to anything. This middleware reads a JSON POST body
//! first (it is buffered by rmcp anyway) and answers one that is not a JSON-RPC
//! message with `400` and the error the stdio transport gives (see
//! [`crate::guard`]): `-32700` for text that is not JSON, `-32600` for JSON that is
//! not a message, `-32602` with its id for a request of an MCP method whose params
//! rmcp's types refuse. Bodies larger than [`MAX_HTTP_BODY_BYTES`] get `413` before
//! any of them is held: at once when their `Content-Length` says so (of any
//! request), else when the limit is reached.

use axum::body::{Body, HttpBody, to_bytes};
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Largest POST body read: the stdio transport's message limit.
pub const MAX_HTTP_BODY_BYTES: usize = crate::guard::MAX_STDIO_MESSAGE_BYTES;

/// The middleware.
pub async fn check(request: Request, next: Next) -> Response {
    // The media type, parameters aside: this reads any `application/json...` body;
    // rmcp itself takes `application/json` only.
    let media_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|t| t.split(';').next())
        .map(|t| t.trim().to_ascii_lowercase());
    let json = media_type.as_deref().is_some_and(|t| t.starts_with("application/json"));
    let exactly_json = media_type.as_deref() == Some("application/json");
    // A body announced larger than the limit (its `Content-Length`) is refused
    // before any of it is waited for: else the request sits until the body deadline
    // and is answered `408` for a body that could never have been taken.
    if request.body().size_hint().lower() > MAX_HTTP_BODY_BYTES as u64 {
        return too_large();
    }
    if request.method() != Method::POST || !json {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, MAX_HTTP_BODY_BYTES).await {
        Ok(b) => b,
        Err(e) if super::conn::is_body_timeout(&e) => {
            let reply = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {
                "code": -32600,
                "message": format!("{e}; nothing was done"),
            }});
            return json_error(StatusCode::REQUEST_TIMEOUT, reply.to_string());
        }
        Err(_) => return too_large(),
    };
    if let Some(reply) = crate::guard::malformed(&bytes) {
        return json_error(StatusCode::BAD_REQUEST, reply);
    }
    let response = next.run(Request::from_parts(parts, Body::from(bytes.clone()))).await;
    // A message rmcp's types refuse (a `tools/call` whose `_meta` is not an object)
    // is its `415` with a line of text: a request of an MCP method gets its id and
    // `-32602` naming the field instead, as on stdio. Read again only then. rmcp's
    // `415` for another media type stays.
    if response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE
        && exactly_json
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes)
        && let Some(reply) = crate::guard::invalid_params(&value)
    {
        return json_error(StatusCode::BAD_REQUEST, reply);
    }
    response
}

/// `413` with the JSON-RPC error naming the limit.
fn too_large() -> Response {
    let reply = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {
        "code": -32600,
        "message": format!("the message is larger than {MAX_HTTP_BODY_BYTES} bytes; nothing was done"),
    }});
    json_error(StatusCode::PAYLOAD_TOO_LARGE, reply.to_string())
}

fn json_error(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}
