//! `Origin` validation for the streamable HTTP transport (DNS-rebinding and
//! cross-site protection the MCP spec requires).
//!
//! A browser page on another site can make a user's browser send requests to a
//! server on loopback; the `Origin` header says where such a request came from.
//! Requests without `Origin` (non-browser clients) pass. With one, it must be a
//! loopback origin (`http(s)://localhost`, `127.0.0.1` or `[::1]`, any port) or be
//! listed with `--allowed-origin`; anything else, `null` included, gets `403`.
//!
//! The header is parsed as the origin it must be (RFC 6454: `scheme://host[:port]`,
//! nothing more) and compared by its parts, never by prefix or by splitting: a value
//! with user information (`http://127.0.0.1:80@evil.com`), a path, a query, a
//! malformed port or anything else a browser never sends is refused. Scheme and host
//! compare case-insensitively and a port equal to the scheme's default is the same
//! as none, as browsers compare origins; `localhost.` (a trailing dot) is another
//! host.

use std::net::Ipv6Addr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Origins allowed besides loopback ones, as given (`https://app.example.com`).
#[derive(Clone, Debug, Default)]
pub struct AllowedOrigins(pub Vec<String>);

/// An origin's parts, normalised: lowercase scheme and host (an IPv6 address in
/// its compressed form, in brackets), the port only when it is not the scheme's
/// default.
#[derive(Debug, PartialEq, Eq)]
struct Origin {
    scheme: &'static str,
    host: String,
    port: Option<u16>,
}

/// The loopback hosts allowed with any port.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

impl Origin {
    /// `text` as an origin (`scheme://host[:port]`, scheme `http` or `https`), or
    /// `None` when it is anything else.
    fn parse(text: &str) -> Option<Origin> {
        let (scheme, rest) = text.split_once("://")?;
        let (scheme, default_port) = match scheme.to_ascii_lowercase().as_str() {
            "http" => ("http", 80),
            "https" => ("https", 443),
            _ => return None,
        };
        let (host, port) = if let Some(v6) = rest.strip_prefix('[') {
            let (address, after) = v6.split_once(']')?;
            // Letters, digits, ':' and '.' only: no zone (`%eth0`) or other text.
            if !address.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.') {
                return None;
            }
            let address: Ipv6Addr = address.parse().ok()?;
            let port = match after {
                "" => None,
                p => Some(p.strip_prefix(':')?),
            };
            (format!("[{address}]"), port)
        } else {
            let (host, port) = match rest.split_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (rest, None),
            };
            let label_ok = |l: &str| {
                !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            };
            if !host.split('.').all(label_ok) {
                return None;
            }
            (host.to_ascii_lowercase(), port)
        };
        let port = match port {
            None => None,
            Some(p) => {
                // Digits as a browser writes them: no sign, no leading zero, 1-65535.
                if p.is_empty() || p.len() > 5 || p.starts_with('0') {
                    return None;
                }
                if !p.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                let n: u16 = p.parse().ok()?;
                (n != default_port).then_some(n)
            }
        };
        Some(Origin { scheme, host, port })
    }
}

impl AllowedOrigins {
    /// Whether a request with this `Origin` header value may proceed.
    pub fn allows(&self, origin: &str) -> bool {
        let Some(origin) = Origin::parse(origin.trim()) else { return false };
        if LOOPBACK_HOSTS.contains(&origin.host.as_str()) {
            return true;
        }
        self.0
            .iter()
            .any(|o| Origin::parse(o.trim().trim_end_matches('/')).as_ref() == Some(&origin))
    }
}

/// An `--allowed-origin` value, checked: an origin as a browser sends it
/// (`https://app.example.com`, `http://host:8080`), a trailing `/` allowed. Anything
/// else is an `invalid-argument` error saying what an origin is.
pub fn parse_allowed_origin(text: &str) -> Result<String, filestore_guest::error::Error> {
    match Origin::parse(text.trim().trim_end_matches('/')) {
        Some(_) => Ok(text.trim().trim_end_matches('/').to_string()),
        None => Err(filestore_guest::error::Error::new(
            filestore_guest::error::ErrorKind::InvalidArgument,
            format!(
                "'{text}' is not an origin: expected http:// or https://, a host and an optional port, nothing else (e.g. https://app.example.com or http://app.example.com:8080)"
            ),
        )),
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

    /// Origins a browser never sends, each of which a prefix or `split(':')` check
    /// mistook for a loopback or listed one: refused.
    #[test]
    fn hostile_origins_are_refused() {
        let a =
            AllowedOrigins(vec!["https://app.example.com".into(), "http://a.test:8080/".into()]);
        for bad in [
            // User information: the host is what follows the '@'.
            "http://127.0.0.1:8080@evil.com",
            "http://127.0.0.1@evil.com",
            "http://localhost:3000@evil.com:3000",
            "http://user:pass@localhost:3000",
            "http://[::1]@evil.com",
            "https://app.example.com@evil.com",
            // Hosts that begin or end like an allowed one.
            "http://127.0.0.1.evil.com",
            "http://127.0.0.1.evil.com:3000",
            "http://localhost.:3000",
            "http://127.0.0.1.",
            "https://app.example.com.",
            "https://app.example.com.evil.com",
            "https://evil.com/https://app.example.com",
            "HTTP://LOCALHOST.EVIL.COM",
            // Paths, queries, fragments, backslashes, spaces, percent-encoding.
            "http://localhost:3000/",
            "http://localhost/path",
            "http://localhost?x",
            "http://localhost#x",
            "http://localhost\\@evil.com",
            "http://localhost evil.com",
            "http://local%68ost",
            "http://localhost:3000 http://evil.com",
            // Odd ports.
            "http://localhost:",
            "http://localhost::3000",
            "http://localhost:3000:4000",
            "http://localhost:0",
            "http://localhost:65536",
            "http://localhost:99999999999",
            "http://localhost:+80",
            "http://localhost:080",
            "http://localhost:0x50",
            "http://a.test",
            "http://a.test:8081",
            "https://a.test:8080",
            // IPv6 other than ::1, zones, junk, and unbracketed.
            "http://[::2]",
            "http://[::ffff:127.0.0.1]",
            "http://[::1%25eth0]",
            "http://[::1]evil.com",
            "http://[::1]:",
            "http://[::1",
            "http://::1",
            // Other schemes, no scheme, `null`.
            "ftp://localhost",
            "ws://localhost",
            "localhost:3000",
            "//localhost",
            "http:/localhost",
            "http:localhost",
            "null",
            "NULL",
        ] {
            assert!(!a.allows(bad), "{bad}");
        }
        for ok in [
            // Scheme and host compare case-insensitively; a default port is none.
            "HTTP://LOCALHOST:3000",
            "http://127.0.0.1:65535",
            "https://[0:0:0:0:0:0:0:1]:8443",
            "https://[::1]",
            "https://APP.example.com",
            "https://app.example.com:443",
            "http://a.test:8080",
            " http://localhost:3000 ",
        ] {
            assert!(a.allows(ok), "{ok}");
        }
    }

    #[test]
    fn allowed_origin_values_are_checked() {
        assert_eq!(
            parse_allowed_origin("https://app.example.com/").unwrap(),
            "https://app.example.com"
        );
        for bad in
            ["app.example.com", "https://app.example.com/path", "https://u@app.example.com", "*"]
        {
            let e = parse_allowed_origin(bad).unwrap_err();
            assert_eq!(e.kind(), filestore_guest::error::ErrorKind::InvalidArgument);
            assert!(e.to_string().contains("is not an origin"), "{bad}: {e}");
        }
    }
}
