//! `Origin` validation for the streamable HTTP transport (DNS-rebinding and
//! cross-site protection the MCP spec requires).
//!
//! A browser page on another site can make a user's browser send requests to a
//! server on loopback; the `Origin` header says where such a request came from.
//! Requests without `Origin` (non-browser clients) pass. With one, it must be a
//! loopback origin (`http(s)://localhost`, `127.0.0.1` or `[::1]`, any port) or be
//! listed with `--allowed-origin`; anything else, `null` included, gets `403`.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Origins allowed besides loopback ones, as given (`https://app.example.com`).
#[derive(Clone, Debug, Default)]
pub struct AllowedOrigins(pub Vec<String>);

impl AllowedOrigins {
    /// Whether a request with this `Origin` header value may proceed.
    pub fn allows(&self, origin: &str) -> bool {
        let origin = origin.trim();
        if self.0.iter().any(|o| o.trim_end_matches('/').eq_ignore_ascii_case(origin)) {
            return true;
        }
        let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"))
        else {
            return false;
        };
        let host = if let Some(v6) = rest.strip_prefix('[') {
            v6.split(']').next().map(|h| format!("[{h}]"))
        } else {
            rest.split(':').next().map(str::to_string)
        };
        matches!(host.as_deref(), Some("localhost" | "127.0.0.1" | "[::1]"))
    }
}

/// The middleware: `403` for a request whose `Origin` is not allowed.
pub async fn check(
    State(allowed): State<Arc<AllowedOrigins>>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(origin) = request.headers().get(header::ORIGIN) {
        let text = origin.to_str().unwrap_or("");
        if !allowed.allows(text) {
            return (
                StatusCode::FORBIDDEN,
                format!(
                    "origin '{text}' is not allowed: only loopback origins and those given with --allowed-origin may use this server"
                ),
            )
                .into_response();
        }
    }
    next.run(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_listed_origins_only() {
        let a = AllowedOrigins(vec!["https://app.example.com".into()]);
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "https://[::1]:8443",
            "https://app.example.com",
        ] {
            assert!(a.allows(ok), "{ok}");
        }
        for bad in [
            "null",
            "http://evil.example.com",
            "http://localhost.evil.com",
            "http://127.0.0.1.evil.com",
            "file://",
            "",
        ] {
            assert!(!a.allows(bad), "{bad}");
        }
    }
}
