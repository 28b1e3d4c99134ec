//! A small read over HTTP: an MCP 2026-07-28 request (no session; its conversation
//! named in the `Filestore-Conversation` header, kept by `--state` in a directory)
//! against the same read in a 2025-11-25 session of the same server. Issue 36's
//! target: the stateless call costs at most 1.5x the session's.
//!
//! ```sh
//! cargo bench -p filestore --bench stateless
//! ```
//!
//! Both sides use the same minimal client (the tests' `support::mcp_http::post`: one
//! request per new loopback connection, the whole answer read), so the ratio
//! compares the server's work: for the
//! stateless request, a sandbox made for the request, its conversation's volumes
//! opened and its state document read; for the session, the session's sandbox.

use std::time::Instant;

use serde_json::{Value, json};

#[path = "../../tests/integration/support/mod.rs"]
#[allow(dead_code)]
mod support;

use support::mcp_http::{Replica, post};

/// Calls before timing.
const WARMUP: usize = 30;
/// Timed calls per side.
const CALLS: usize = 400;

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
    let server = Replica::start(
        &bin,
        dir.path(),
        &["--mount", "/workspace=mem:", "--state", state.to_str().unwrap()],
    );
    let port = server.port;
    let conv = "Filestore-Conversation: bench".to_string();
    // The 2025-11-25 session, bound to the same conversation.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}});
    let legacy = vec!["MCP-Protocol-Version: 2025-11-25".to_string(), conv.clone()];
    let sid = post(port, &legacy, &init).header("mcp-session-id").expect("a session").to_string();
    let mut session = legacy.clone();
    session.push(format!("Mcp-Session-Id: {sid}"));
    post(port, &session, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let write = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "filestore_write", "arguments": {"path": "/scratch/small.txt", "content": "hello\n"}}});
    let answer = post(port, &session, &write).body;
    assert!(answer.contains("Created"), "{answer}");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": read_args()});
    let stateful = rate(|| {
        let a = post(port, &session, &call).body;
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
        let a = post(port, &modern, &call).body;
        assert!(a.contains("hello"), "{a}");
    });
    drop(server);
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
