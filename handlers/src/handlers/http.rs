//! `http` tools on `http` sources, through `ureq` (a small, well-kept blocking client;
//! TLS by rustls).
//!
//! **Source** fields: `baseUrl` (required, `http` or `https`), `headers` (sent with
//! every call; typically `Authorization: Bearer ${API_KEY}`, resolved by the host),
//! `queryParams` (a map added to every URL), and `allowedHosts` — the hosts (or
//! `host:port`) calls may reach; default: only the `baseUrl`'s host. The Toolbox has
//! no allow-list; filestore adds one because the URL is assembled from
//! model-controlled values.
//!
//! **Tool** fields: `method` (default `GET`), `path` (appended to `baseUrl`;
//! `pathParams` substituted and percent-encoded by the component), `headers` (static),
//! `requestBody` (a template: `{{.name}}` becomes the value — a string JSON-escaped
//! without its quotes, so `"{{.city}}"` stays one JSON string whatever the value —
//! anything else its JSON), and the parameter lists `queryParams`, `headerParams`,
//! `bodyParams` (without `requestBody`, body parameters are sent as a JSON object).
//!
//! **Refused**: a final URL whose scheme is not http(s) or whose host is not allowed
//! (this also catches `baseUrl` + `path` tricks such as `@evil.example/`), redirects
//! (never followed: a redirect could leave the allow-list), and a response body over
//! the tool result limit ([`ToolRequest::max_result_bytes`]), which is read no
//! further than that. A non-2xx status is an error naming the method, the URL without
//! its query (which may carry keys) and the status, and quoting the body's start
//! (read up to [`ERROR_BODY_READ_BYTES`]; the registry redacts the message, then
//! cuts it: see [`filestore_runtime::tools::redaction`]). Header values and the query never
//! appear in errors.
//!
//! The result is the response body: parsed JSON when it parses, else the text.

use std::io::Read as _;
use std::time::Duration;

use serde_json::{Map, Value};
use ureq::http::{Method, Request, Uri};

use filestore_runtime::tools::{Source, ToolError, ToolHandler, ToolRequest, budget};

/// Most bytes of an error response's body read to quote it: bounds memory only. The
/// message is cut far sooner, by the registry, once it is redacted
/// ([`filestore_runtime::tools::redaction::MAX_ERROR_CHARS`]): a cut here, before redaction,
/// could split a secret the upstream echoed, so it must lie beyond that one.
pub const ERROR_BODY_READ_BYTES: u64 = 64 * 1024;

// The read bound lies beyond the message cut, whatever the characters' widths.
const _: () = assert!(
    ERROR_BODY_READ_BYTES >= 4 * filestore_runtime::tools::redaction::MAX_ERROR_CHARS as u64
);

/// The `http` handler.
#[derive(Debug, Default, Clone, Copy)]
pub struct HttpHandler;

/// Percent-encodes everything but RFC 3986 unreserved characters. Hand-rolled: six
/// lines, and the query must be encoded exactly this strictly.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Names of the parameters a tool declares under `field` (`queryParams`...).
fn declared(config: &Map<String, Value>, field: &str) -> Vec<String> {
    config
        .get(field)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|p| p.get("name")?.as_str().map(String::from)).collect())
        .unwrap_or_default()
}

fn render_body(template: &str, args: &Map<String, Value>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let Some(end) = tail.find("}}") else {
            out.push_str(tail);
            return out;
        };
        let inner = tail[2..end].trim();
        match inner.strip_prefix('.').and_then(|n| args.get(n).map(|v| (n, v))) {
            Some((_, Value::String(s))) => {
                let quoted = Value::String(s.clone()).to_string();
                out.push_str(&quoted[1..quoted.len() - 1]);
            }
            Some((_, v)) => out.push_str(&v.to_string()),
            None if inner.starts_with('.') => out.push_str("null"),
            None => out.push_str(&tail[..end + 2]),
        }
        rest = &tail[end + 2..];
    }
    out.push_str(rest);
    out
}

fn host_allowed(uri: &Uri, allowed: &[String]) -> bool {
    let Some(host) = uri.host() else { return false };
    let host = host.to_ascii_lowercase();
    let with_port = uri.port_u16().map(|p| format!("{host}:{p}"));
    allowed.iter().any(|a| {
        let a = a.to_ascii_lowercase();
        a == host || Some(&a) == with_port.as_ref()
    })
}

impl ToolHandler for HttpHandler {
    fn call(&self, req: &ToolRequest) -> Result<Value, ToolError> {
        let tool = &req.tool_name;
        let source = req.require_source()?;
        let invalid = |m: String| ToolError::invalid_argument(format!("tool '{tool}': {m}"));
        let (base, allowed) = base_and_allowed_hosts(source)?;
        let path = req
            .path
            .clone()
            .or_else(|| req.config.get("path").and_then(Value::as_str).map(String::from))
            .unwrap_or_default();
        if !(path.is_empty() || path.starts_with('/') || path.starts_with('?')) {
            return Err(invalid(format!("path '{path}' must start with '/'")));
        }
        let query = query_pairs(source, req);
        let (uri, shown) = checked_url(req, source, base, &path, &query, &allowed)?;
        let method_name =
            req.config.get("method").and_then(Value::as_str).unwrap_or("GET").to_ascii_uppercase();
        let method = Method::from_bytes(method_name.as_bytes())
            .map_err(|_| invalid(format!("method '{method_name}' is not an HTTP method")))?;

        let mut builder = Request::builder().method(method.clone()).uri(uri);
        let mut headers = request_headers(source, req);
        let body = request_body(req);
        if body.is_some() && !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type")) {
            headers.push(("Content-Type".into(), "application/json".into()));
        }
        for (k, v) in &headers {
            builder = builder.header(k.as_str(), v.as_str());
        }
        let request = builder
            .body(body.unwrap_or_default())
            .map_err(|_| invalid("a header name or value is not valid HTTP".to_string()))?;
        send(req, request, &method, &shown)
    }
}

/// The source's `baseUrl`, and the hosts calls may reach (`allowedHosts`, by default
/// the `baseUrl`'s host).
fn base_and_allowed_hosts(source: &Source) -> Result<(&str, Vec<String>), ToolError> {
    let base = source.fields.get("baseUrl").and_then(Value::as_str).ok_or_else(|| {
        ToolError::invalid_argument(format!("source '{}' has no 'baseUrl'", source.name))
    })?;
    let base_uri: Uri = base.parse().map_err(|e| {
        ToolError::invalid_argument(format!(
            "source '{}': baseUrl does not parse: {e}",
            source.name
        ))
    })?;
    let allowed: Vec<String> = match source.fields.get("allowedHosts") {
        Some(Value::Array(a)) => a.iter().filter_map(|h| h.as_str().map(String::from)).collect(),
        Some(_) => {
            return Err(ToolError::invalid_argument(format!(
                "source '{}': allowedHosts must be a list of host names",
                source.name
            )));
        }
        None => base_uri.host().map(|h| vec![h.to_string()]).unwrap_or_default(),
    };
    Ok((base, allowed))
}

/// The query: the source's `queryParams`, then the tool's query parameters that have
/// a value (an array as one pair per item).
fn query_pairs(source: &Source, req: &ToolRequest) -> Vec<(String, String)> {
    let mut query: Vec<(String, String)> = Vec::new();
    if let Some(Value::Object(q)) = source.fields.get("queryParams") {
        query.extend(q.iter().map(|(k, v)| (k.clone(), text_of(v))));
    }
    for name in declared(&req.config, "queryParams") {
        if let Some(v) = req.arguments.get(&name) {
            match v {
                Value::Array(items) => {
                    query.extend(items.iter().map(|i| (name.clone(), text_of(i))))
                }
                v => query.push((name.clone(), text_of(v))),
            }
        }
    }
    query
}

/// The call's URL, and how errors show it (without the query, which may carry keys).
/// Refused unless it is http(s) to an allowed host: the URL is assembled from
/// model-controlled values.
fn checked_url(
    req: &ToolRequest,
    source: &Source,
    base: &str,
    path: &str,
    query: &[(String, String)],
    allowed: &[String],
) -> Result<(Uri, String), ToolError> {
    let tool = &req.tool_name;
    let base_trimmed = base.trim_end_matches('/');
    let shown = format!("{base_trimmed}{path}");
    let mut url = shown.clone();
    if !query.is_empty() {
        let q: Vec<String> =
            query.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect();
        url.push(if path.contains('?') { '&' } else { '?' });
        url.push_str(&q.join("&"));
    }
    let uri: Uri = url.parse().map_err(|e| {
        ToolError::invalid_argument(format!("tool '{tool}': URL {shown} does not parse: {e}"))
    })?;
    if !matches!(uri.scheme_str(), Some("http") | Some("https")) {
        return Err(ToolError::unsupported(format!(
            "tool '{tool}': only http and https URLs are allowed ({shown})"
        )));
    }
    if !host_allowed(&uri, allowed) {
        return Err(ToolError::unsupported(format!(
            "tool '{tool}': host '{}' is not in the allow-list of source '{}' ({})",
            uri.host().unwrap_or(""),
            source.name,
            allowed.join(", ")
        )));
    }
    Ok((uri, shown))
}

/// The headers: the source's, the tool's static ones, then its header parameters that
/// have a value.
fn request_headers(source: &Source, req: &ToolRequest) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    for m in [source.fields.get("headers"), req.config.get("headers")].into_iter().flatten() {
        if let Value::Object(h) = m {
            headers.extend(h.iter().map(|(k, v)| (k.clone(), text_of(v))));
        }
    }
    for name in declared(&req.config, "headerParams") {
        if let Some(v) = req.arguments.get(&name) {
            headers.push((name.clone(), text_of(v)));
        }
    }
    headers
}

/// The body: `requestBody` rendered, else the body parameters as a JSON object, else
/// none.
fn request_body(req: &ToolRequest) -> Option<String> {
    match req.config.get("requestBody").and_then(Value::as_str) {
        Some(t) => Some(render_body(t, &req.arguments)),
        None => {
            let names = declared(&req.config, "bodyParams");
            if names.is_empty() {
                None
            } else {
                let obj: Map<String, Value> = names
                    .iter()
                    .filter_map(|n| req.arguments.get(n).map(|v| (n.clone(), v.clone())))
                    .collect();
                Some(Value::Object(obj).to_string())
            }
        }
    }
}

/// Sends `request` within the call's time left, redirects not followed, and returns
/// the response body (JSON when it parses), read up to the result limit; a non-2xx
/// status is an error quoting the body (its start, past [`ERROR_BODY_READ_BYTES`]).
fn send(
    req: &ToolRequest,
    request: Request<String>,
    method: &Method,
    shown: &str,
) -> Result<Value, ToolError> {
    let tool = &req.tool_name;
    let timeout = req.time_left().max(Duration::from_millis(1));
    let agent = ureq::Agent::new_with_config(
        ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .max_redirects(0)
            .max_redirects_will_error(false)
            .http_status_as_error(false)
            .allow_non_standard_methods(false)
            .proxy(None)
            .build(),
    );
    let mut resp = agent.run(request).map_err(|e| match e {
        ureq::Error::Timeout(_) => {
            ToolError::limit_exceeded(format!("tool '{tool}': {method} {shown} timed out"))
        }
        e => ToolError::backend(format!("tool '{tool}': {method} {shown} failed: {e}")),
    })?;
    let status = resp.status();
    let reading = |e: &dyn std::fmt::Display| {
        format!("tool '{tool}': reading the response of {method} {shown}: {e}")
    };
    if !status.is_success() {
        // The start of the body, whole: the registry redacts the message, then cuts it.
        let mut start = Vec::new();
        resp.body_mut()
            .as_reader()
            .take(ERROR_BODY_READ_BYTES)
            .read_to_end(&mut start)
            .map_err(|e| ToolError::backend(reading(&e)))?;
        let quoted = String::from_utf8_lossy(&start);
        return Err(ToolError::backend(format!(
            "tool '{tool}': {method} {shown} returned {status}: {quoted}"
        )));
    }
    let limit = req.max_result_bytes;
    let text =
        resp.body_mut().with_config().limit(limit).read_to_string().map_err(|e| match e {
            ureq::Error::BodyExceedsLimit(_) => budget::limit_exceeded(tool, limit),
            e => ToolError::backend(reading(&e)),
        })?;
    Ok(serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn body_template_keeps_strings_inside_their_quotes() {
        let args = json!({"city": "Paris\", \"admin\": true, \"x\": \"", "age": 3})
            .as_object()
            .unwrap()
            .clone();
        let body =
            render_body(r#"{"city": "{{.city}}", "age": {{.age}}, "none": {{.zzz}}}"#, &args);
        let v: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["city"], "Paris\", \"admin\": true, \"x\": \"");
        assert_eq!(v["age"], 3);
        assert!(v.get("admin").is_none());
        assert_eq!(v["none"], Value::Null);
    }

    #[test]
    fn allow_list_checks_the_final_host() {
        let ok: Uri = "http://127.0.0.1:8080/x".parse().unwrap();
        assert!(host_allowed(&ok, &["127.0.0.1".into()]));
        assert!(host_allowed(&ok, &["127.0.0.1:8080".into()]));
        assert!(!host_allowed(&ok, &["127.0.0.1:9".into()]));
        let trick: Uri = "http://127.0.0.1:8080@evil.example/x".parse().unwrap();
        assert!(!host_allowed(&trick, &["127.0.0.1".into()]));
        assert_eq!(encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
    }
}
