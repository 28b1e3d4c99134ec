//! Redaction at the one place where host text becomes agent text: resolved secrets
//! never reach an agent, whole or cut, in an error or a result, from a handler or a
//! provider.

use super::*;

/// The `queryParams` key of the echoing source (20 characters).
const ECHO_KEY: &str = "qk7Z3pX9vR2mW8tL4nB6";
/// The bearer token of its `Authorization` header (26 characters).
const ECHO_TOKEN: &str = "tA1b2C3d4E5f6G7h8I9j0K1L2m";

/// A loopback upstream that echoes what it is sent. `X-Status: 200` answers JSON
/// holding the request target and `Authorization` header (the target also as a key);
/// any other status answers an error body of `X-Pad` characters of padding, then the
/// target (or, for `/auth...`, the `Authorization` header), then more text.
fn echo_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            let target = first.split(' ').nth(1).unwrap_or("").to_string();
            let mut headers = std::collections::HashMap::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some((k, v)) = line.split_once(':') {
                    headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                }
            }
            let header = |k: &str| headers.get(k).cloned().unwrap_or_default();
            let auth = header("authorization");
            let (status, body) = match header("x-status").as_str() {
                "200" => (
                    "200 OK".to_string(),
                    json!({"target": target, "authorization": auth, target.clone(): "asked"})
                        .to_string(),
                ),
                code => {
                    let pad = "p".repeat(header("x-pad").parse().unwrap_or(0));
                    let echoed = if target.starts_with("/auth") { auth } else { target };
                    (format!("{code} Failed"), format!("{pad}{echoed} and more text after it"))
                }
            };
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            );
        }
    });
    port
}

/// An `http` source on the echo server sending both secrets, and three tools: two
/// whose error bodies put a secret across the old 300-character cut (19 of the
/// key's 20 characters, 32 of the 33 of `Bearer <token>` before it), one that
/// answers with both echoed.
fn echo_yaml(port: u16) -> String {
    let url_pad = 300 - 19 - "/url?key=".len();
    let auth_pad = 300 - 32;
    let tool = |name: &str, path: &str, status: &str, pad: usize| {
        format!(
            "---\nkind: tool\nname: {name}\ntype: http\nsource: echo\nmethod: GET\npath: {path}\n\
             description: Echoes.\nheaders:\n  X-Status: \"{status}\"\n  X-Pad: \"{pad}\"\n"
        )
    };
    format!(
        "kind: source\nname: echo\ntype: http\nbaseUrl: http://127.0.0.1:{port}\n\
         headers:\n  Authorization: Bearer ${{ECHO_TOKEN}}\nqueryParams:\n  key: ${{ECHO_KEY}}\n{}{}{}",
        tool("url_fails", "/url", "500", url_pad),
        tool("auth_fails", "/auth", "502", auth_pad),
        tool("echoes", "/ok", "200", 0),
    )
}

/// Every 6 characters of `secret` in a row, as a regex alternation (the secrets are
/// alphanumeric).
fn pieces(secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    chars.windows(6).map(|w| w.iter().collect()).collect()
}

/// Secrets are redacted before anything is cut, and in results as in errors: an
/// upstream's error body that puts the `queryParams` key or the `Authorization`
/// token across the old 300-character cut, and a successful answer echoing both
/// (as values and as a key), show no piece of either in the answer, the stored
/// result under `/tool_calls` or the audit timeline; each shows `${VAR}` instead.
#[test]
fn secrets_are_redacted_before_any_cut_in_errors_and_results() {
    let port = echo_server();
    let options = SessionOptions {
        tools: Arc::new(ToolRegistry::with_builtin_handlers()),
        audit: Some(Arc::new(filestore::audit::AuditLog::memory(None))),
        ..Default::default()
    };
    let mut s = engine().session_with(vec![results_mount()], options).expect("session");
    let files = vec![("tools.yaml".to_string(), echo_yaml(port))];
    let env = |k: &str| match k {
        "ECHO_KEY" => Some(ECHO_KEY.to_string()),
        "ECHO_TOKEN" => Some(ECHO_TOKEN.to_string()),
        _ => None,
    };
    s.load_config_with_env(&files, &env).unwrap().unwrap();
    let all: Vec<String> = [pieces(ECHO_KEY), pieces(ECHO_TOKEN)].concat();
    let leaks =
        |text: &str| all.iter().filter(|p| text.contains(p.as_str())).cloned().collect::<Vec<_>>();

    let out = invoke(&mut s, "url_fails", json!({}));
    let seen = format!("{} {}", out.text, out.envelope);
    assert_eq!(out.envelope["error"]["code"], "backend", "{seen}");
    assert!(seen.contains("/url?key=${ECHO_KEY} and more text"), "{seen}");
    assert_eq!(leaks(&seen), Vec::<String>::new(), "{seen}");

    let out = invoke(&mut s, "auth_fails", json!({}));
    let seen = format!("{} {}", out.text, out.envelope);
    assert!(seen.contains("502") && seen.contains("Bearer ${ECHO_TOKEN} and more"), "{seen}");
    assert_eq!(leaks(&seen), Vec::<String>::new(), "{seen}");

    let out = invoke(&mut s, "echoes", json!({}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    assert_eq!(
        out.envelope["data"],
        json!({"target": "/ok?key=${ECHO_KEY}", "authorization": "Bearer ${ECHO_TOKEN}",
               "/ok?key=${ECHO_KEY}": "asked"})
    );
    assert_eq!(leaks(&format!("{} {}", out.text, out.envelope)), Vec::<String>::new());
    let stored = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": r"Bearer \$\{ECHO_TOKEN\}", "path": out.result_path, "output_mode": "count"}),
    );
    assert_eq!(stored["total_matches"], 1, "{stored}");

    // Nothing anywhere in the stored results or the audit timeline, which has
    // recorded the three calls.
    let pattern = all.join("|");
    for place in ["/tool_calls", "/audit"] {
        let found = ok(
            &mut s,
            "filestore_grep",
            json!({"pattern": pattern, "path": place, "output_mode": "count"}),
        );
        assert_eq!(found["total_matches"], 0, "{place}: {found}");
    }
    let audited = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": "url_fails|auth_fails|echoes", "path": "/audit", "output_mode": "files_with_matches"}),
    );
    assert_eq!(audited["files"].as_array().map(Vec::len), Some(3), "{audited}");
}

/// A successful result of an upstream MCP server (a provider tool) is redacted at
/// the same place: its `echo` answers with a greeting the connection took from the
/// environment.
#[test]
fn provider_results_are_redacted_too() {
    const GREETING: &str = "greet-8d7c6b5a4f3e2d1c";
    let tmp = tempfile::tempdir().unwrap();
    let script = crate::common::repo_root().join("tests/mcp_python/upstream_server.py");
    let text = format!(
        "name: helper\nservers:\n  py:\n    command: {py:?}\n    args: [{script:?}]\n    timeout: 10s\n    env: {{UPSTREAM_GREETING: \"${{GREETING_VAR}}\"}}\n\
         tools:\n  - filestore_grep\n  - {{type: mcp, integration: py, action: echo, connection: default, name: say}}\n",
        py = crate::mcp::python().display().to_string(),
        script = script.display().to_string(),
    );
    let env: filestore::providers::mcp::EnvLookup =
        Arc::new(|k: &str| (k == "GREETING_VAR").then(|| GREETING.to_string()));
    let agent =
        filestore::agent::Agent::from_text_with_env(engine(), "agent.yaml", text, tmp.path(), env)
            .unwrap();
    let mut registry = ToolRegistry::with_builtin_handlers();
    agent.install(&mut registry);
    let mut s = session_with(registry);
    agent.load_into(&mut s).unwrap();
    let out = invoke(&mut s, "say", json!({"text": " and hello"}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    assert_eq!(out.envelope["data"], "${GREETING_VAR} and hello", "{}", out.envelope);
    let found = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": "greet-8d7c", "path": "/tool_calls", "output_mode": "count"}),
    );
    assert_eq!(found["total_matches"], 0, "{found}");
}

/// Values resolved from `${VAR}` never appear in an error: the server's 404 for a URL
/// holding the token, a connection refused to such a URL, and sqlite's "cannot open"
/// for a path holding a password all name `${VAR}` instead, in the error text, the
/// envelope, and what the results volume holds.
#[test]
fn resolved_secrets_never_appear_in_errors() {
    const TOKEN: &str = "tok-SECRET-7f3a9";
    const PASSWORD: &str = "pw SECRET/9";
    let env = |k: &str| match k {
        "BOT_TOKEN" => Some(TOKEN.to_string()),
        "DB_PASSWORD" => Some(PASSWORD.to_string()),
        _ => None,
    };
    let (port, _) = http_server("404 Not Found", r#"{"error": "no such bot"}"#);
    let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let tmp = tempfile::tempdir().unwrap();
    let yaml = format!(
        r#"kind: source
name: bot
type: http
baseUrl: http://127.0.0.1:{port}/bot${{BOT_TOKEN}}
---
kind: source
name: gone
type: http
baseUrl: http://127.0.0.1:{closed}/bot${{BOT_TOKEN}}
---
kind: source
name: db
type: sqlite
database: {}/missing-${{DB_PASSWORD}}/db.sqlite
---
kind: tool
name: ping
type: http
source: bot
method: GET
path: /ping
description: Ping.
---
kind: tool
name: ping_gone
type: http
source: gone
method: GET
path: /ping
description: Ping a closed port.
---
kind: tool
name: query
type: sqlite-sql
source: db
statement: SELECT 1
description: Query.
"#,
        tmp.path().display()
    );
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    let files = vec![("tools.yaml".to_string(), yaml)];
    s.load_config_with_env(&files, &env).unwrap().unwrap();
    for tool in ["ping", "ping_gone", "query"] {
        let out = invoke(&mut s, tool, json!({}));
        assert_eq!(out.envelope["success"], false, "{tool}: {}", out.envelope);
        let everything = format!("{} {}", out.text, out.envelope);
        for secret in [TOKEN, PASSWORD, "pw%20SECRET%2F9", "SECRET"] {
            assert!(!everything.contains(secret), "{tool} leaks {secret:?}: {everything}");
        }
        let wanted = if tool == "query" { "${DB_PASSWORD}" } else { "${BOT_TOKEN}" };
        assert!(everything.contains(wanted), "{tool}: {everything}");
    }
    let stored = crate::common::ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": "SECRET", "path": "/tool_calls", "output_mode": "count"}),
    );
    assert_eq!(stored["total_matches"], 0, "{stored}");
}
