//! `filestore serve --http` processes and a raw MCP client of them: the requests as
//! a client writes them on the wire (the headers included), so tests can send what
//! an SDK would not (a forged conversation key, a session of another replica).
//!
//! [`Replica`] runs one server (killed with SIGKILL on drop or by [`Replica::kill`]);
//! [`McpHttp`] is one MCP session with it (2025-11-25: `initialize`, then requests
//! carrying `Mcp-Session-Id`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

/// A running `filestore serve --http` on a free loopback port.
pub struct Replica {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// What it printed on stderr, collected in the background.
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
}

impl Replica {
    /// Starts `bin serve --http 127.0.0.1:0 ARGS...` in `cwd` and waits for its address.
    pub fn start(bin: &str, cwd: &Path, args: &[&str]) -> Replica {
        Replica::start_with_env(bin, cwd, args, &[])
    }

    /// [`Replica::start`] with `env` added to its environment.
    pub fn start_with_env(bin: &str, cwd: &Path, args: &[&str], env: &[(&str, String)]) -> Replica {
        let mut child = Command::new(bin)
            .args(["serve", "--http", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {bin} serve: {e}"));
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut said = String::new();
        let port = loop {
            let Some(Ok(line)) = lines.next() else {
                let _ = child.kill();
                panic!("serve {args:?} ended before printing its address:\n{said}");
            };
            said.push_str(&line);
            said.push('\n');
            if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
                break rest.split('/').next().unwrap().parse().unwrap();
            }
        };
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(said));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        Replica { child, port, stderr }
    }

    /// Kills the process with SIGKILL (no shutdown of any kind) and waits for it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The server's process id (its `/proc/PID/status`, for memory figures).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// What the server printed on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// A new MCP session, its conversation named by the `Filestore-Conversation`
    /// header when `conversation` is given (and with `Authorization: Bearer` when
    /// `token` is).
    pub fn session(
        &self,
        conversation: Option<&str>,
        token: Option<&str>,
    ) -> Result<McpHttp, Answer> {
        McpHttp::initialize(self.port, conversation, token, json!({}))
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.kill();
    }
}

/// An HTTP answer: status, headers (lowercase names) and body, and the JSON-RPC
/// message in it (the last `data:` of an event stream, or the JSON body).
#[derive(Debug, Clone)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// Headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The raw body.
    pub body: String,
}

impl Answer {
    /// The JSON-RPC message of the body (`Null` when there is none).
    pub fn message(&self) -> Value {
        if let Ok(v) = serde_json::from_str(&self.body) {
            return v;
        }
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .next_back()
            .unwrap_or(Value::Null)
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

/// POSTs `body` to `/mcp` with `headers` (`Name: value` each) over a new connection.
/// The `Host` is `127.0.0.1:PORT` unless `headers` give one.
pub fn post(port: u16, headers: &[String], body: &Value) -> Answer {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connecting to serve");
    // A guard against a hung server; not a timing check.
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let body = body.to_string();
    let own_host = headers.iter().any(|h| h.to_ascii_lowercase().starts_with("host:"));
    let host = if own_host { String::new() } else { format!("Host: 127.0.0.1:{port}\r\n") };
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\n{host}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    req.push_str(&body);
    stream.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok());
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer { status: status.unwrap_or(0), headers, body: dechunk(body) }
}

/// One MCP 2026-07-28 request (no session, no `initialize`) naming `conversation`
/// in its `Filestore-Conversation` header (`None`: none); the JSON-RPC answer.
pub fn stateless(port: u16, conversation: Option<&str>, method: &str, params: Value) -> Value {
    stateless_with(port, &[], conversation, method, params).message()
}

/// [`stateless`] with `extra` headers (`Authorization: Bearer ...`); the whole answer.
pub fn stateless_with(
    port: u16,
    extra: &[String],
    conversation: Option<&str>,
    method: &str,
    mut params: Value,
) -> Answer {
    let mut headers =
        vec!["MCP-Protocol-Version: 2026-07-28".to_string(), format!("Mcp-Method: {method}")];
    if let Some(name) = params.get("name").and_then(Value::as_str) {
        headers.push(format!("Mcp-Name: {name}"));
    }
    if let Some(c) = conversation {
        headers.push(format!("Filestore-Conversation: {c}"));
    }
    headers.extend(extra.iter().cloned());
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    post(port, &headers, &body)
}

/// The body of a `Transfer-Encoding: chunked` answer as sent (a plain body as is).
fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    loop {
        let Some((size, after)) = rest.split_once("\r\n") else { return body.to_string() };
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else { return body.to_string() };
        if n == 0 || after.len() < n {
            return if out.is_empty() && n != 0 { body.to_string() } else { out };
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
}

/// One MCP session over HTTP (protocol 2025-11-25).
pub struct McpHttp {
    port: u16,
    /// Sent with every request.
    headers: Vec<String>,
    /// The conversation the server says the session serves (`initialize`'s
    /// `_meta["filestore/conversation"]`).
    pub conversation: Option<String>,
    next_id: u64,
}

impl McpHttp {
    /// `initialize` (with `meta` as its `_meta`) and `notifications/initialized`; the
    /// answer when the server refused the session.
    pub fn initialize(
        port: u16,
        conversation: Option<&str>,
        token: Option<&str>,
        meta: Value,
    ) -> Result<McpHttp, Answer> {
        let mut headers = vec!["Mcp-Protocol-Version: 2025-11-25".to_string()];
        if let Some(c) = conversation {
            headers.push(format!("Filestore-Conversation: {c}"));
        }
        if let Some(t) = token {
            headers.push(format!("Authorization: Bearer {t}"));
        }
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "replica-test", "version": "1"}, "_meta": meta}});
        let answer = post(port, &headers, &init);
        let message = answer.message();
        let Some(sid) = answer.header("mcp-session-id").map(str::to_string) else {
            return Err(answer);
        };
        if message.get("result").is_none() {
            return Err(answer);
        }
        let conversation =
            message["result"]["_meta"]["filestore/conversation"].as_str().map(str::to_string);
        headers.push(format!("Mcp-Session-Id: {sid}"));
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        post(port, &headers, &note);
        Ok(McpHttp { port, headers, conversation, next_id: 1 })
    }

    /// Sends the next requests to the replica at `port` (same session id, headers).
    pub fn move_to(&mut self, port: u16) {
        self.port = port;
    }

    /// The session's id.
    pub fn session_id(&self) -> &str {
        let h = self.headers.iter().find(|h| h.starts_with("Mcp-Session-Id: "));
        h.map(|h| &h["Mcp-Session-Id: ".len()..]).expect("a session id")
    }

    /// This session's requests with another token (a caller holding a leaked id).
    pub fn with_token(&self, token: &str) -> McpHttp {
        let mut headers: Vec<String> =
            self.headers.iter().filter(|h| !h.starts_with("Authorization:")).cloned().collect();
        headers.push(format!("Authorization: Bearer {token}"));
        McpHttp { port: self.port, headers, conversation: None, next_id: 100 }
    }

    /// Sends a request; the whole answer (status, headers, body).
    pub fn raw(&mut self, method: &str, params: Value) -> Answer {
        self.next_id += 1;
        let body =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        post(self.port, &self.headers, &body)
    }

    /// Sends a request with `extra` headers; the JSON-RPC answer.
    pub fn request_with(&mut self, method: &str, params: Value, extra: &[String]) -> Value {
        self.next_id += 1;
        let body =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        let mut headers = self.headers.clone();
        headers.extend(extra.iter().cloned());
        let answer = post(self.port, &headers, &body);
        let message = answer.message();
        assert!(!message.is_null(), "{method}: no JSON-RPC answer: {answer:?}");
        message
    }

    /// `tools/call`: the result (panics on a protocol error, naming it).
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let m = self.request_with("tools/call", json!({"name": tool, "arguments": arguments}), &[]);
        assert!(m.get("error").is_none(), "{tool}({arguments}): {m}");
        m["result"].clone()
    }

    /// `tools/call` whose result must not be an error: its text.
    pub fn call_ok(&mut self, tool: &str, arguments: Value) -> String {
        let r = self.call(tool, arguments.clone());
        assert_ne!(r["isError"], true, "{tool}({arguments}): {r}");
        r["content"][0]["text"].as_str().unwrap_or_default().to_string()
    }

    /// The names `tools/list` gives.
    pub fn tool_names(&mut self) -> Vec<String> {
        let m = self.request_with("tools/list", json!({}), &[]);
        m["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("tools/list: {m}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    }
}
