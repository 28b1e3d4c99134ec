//! A small read over HTTP: an MCP 2026-07-28 request (no session; its conversation
//! named in the `Filestore-Conversation` header, kept by `--state` in a directory)
//! against the same read in a 2025-11-25 session of the same server. Issue 36's
//! target: the stateless call costs at most 1.5x the session's.
//!
//! ```sh
//! cargo bench -p filestore --bench stateless
//! ```
//!
//! Both sides use the same minimal client (one request per new loopback connection,
//! the whole answer read), so the ratio compares the server's work: for the
//! stateless request, a sandbox made for the request, its conversation's volumes
//! opened and its state document read; for the session, the session's sandbox.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{Value, json};

/// Calls before timing.
const WARMUP: usize = 30;
/// Timed calls per side.
const CALLS: usize = 400;

fn post(port: u16, headers: &[String], body: &Value) -> (Vec<(String, String)>, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_nodelay(true).unwrap();
    let body = body.to_string();
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    req.push_str(&body);
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, rest) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (headers, rest.to_string())
}

fn read_args() -> Value {
    json!({"name": "filestore_read", "arguments": {"path": "/scratch/small.txt"}})
}

/// Calls per second of `call` over [`CALLS`] calls after [`WARMUP`].
fn rate(mut call: impl FnMut()) -> f64 {
    for _ in 0..WARMUP {
        call();
    }
    let start = Instant::now();
    for _ in 0..CALLS {
        call();
    }
    CALLS as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let bin = std::env::var("FILESTORE_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_filestore").to_string());
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let mut child = Command::new(&bin)
        .args(["serve", "--http", "127.0.0.1:0", "--mount", "/workspace=mem:", "--state"])
        .arg(&state)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting serve");
    let port: u16 = {
        use std::io::BufRead;
        let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
        loop {
            let line = lines.next().expect("serve printed its address").unwrap();
            if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
                std::thread::spawn(move || for _ in lines {});
                break rest.split('/').next().unwrap().parse().unwrap();
            }
        }
    };
    let conv = "Filestore-Conversation: bench".to_string();
    // The 2025-11-25 session, bound to the same conversation.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}});
    let legacy = vec!["MCP-Protocol-Version: 2025-11-25".to_string(), conv.clone()];
    let (headers, _) = post(port, &legacy, &init);
    let sid = headers.iter().find(|(k, _)| k == "mcp-session-id").expect("a session").1.clone();
    let mut session = legacy.clone();
    session.push(format!("Mcp-Session-Id: {sid}"));
    post(port, &session, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let write = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "filestore_write", "arguments": {"path": "/scratch/small.txt", "content": "hello\n"}}});
    let (_, answer) = post(port, &session, &write);
    assert!(answer.contains("Created"), "{answer}");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": read_args()});
    let stateful = rate(|| {
        let (_, a) = post(port, &session, &call);
        assert!(a.contains("hello"), "{a}");
    });
    let modern = vec![
        "MCP-Protocol-Version: 2026-07-28".to_string(),
        "Mcp-Method: tools/call".to_string(),
        "Mcp-Name: filestore_read".to_string(),
        conv,
    ];
    let mut params = read_args();
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                             "io.modelcontextprotocol/clientCapabilities": {}});
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params});
    let stateless = rate(|| {
        let (_, a) = post(port, &modern, &call);
        assert!(a.contains("hello"), "{a}");
    });
    let _ = child.kill();
    let _ = child.wait();
    println!("small read over HTTP, one connection per call, state in a directory:");
    println!(
        "  2025-11-25 session:        {stateful:>8.0} calls/s ({:.0} us/call)",
        1e6 / stateful
    );
    println!(
        "  2026-07-28, no session:    {stateless:>8.0} calls/s ({:.0} us/call)",
        1e6 / stateless
    );
    println!(
        "  stateless per-call time / session's: {:.2}x (target at most 1.5x)",
        stateful / stateless
    );
}
