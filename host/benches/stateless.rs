//! A small read over HTTP: an MCP 2026-07-28 request (no session; its conversation
//! named in the `Filestore-Conversation` header, kept by `--state`) against the same
//! read in a 2025-11-25 session of the same server, with the state in a directory
//! and on S3 (the tests' local SeaweedFS). The aim: the stateless call costs at most
//! 1.5x the session's, so replicas need not pin a client to one server.
//!
//! ```sh
//! cargo bench -p filestore --bench stateless
//! ```
//!
//! The server has a tool configuration and a skill, and the conversation has the
//! skill activated: what a request without a cached sandbox rebuilds (the
//! configuration loaded, the skill's `SKILL.md` read again). Each store is measured
//! twice: with the sandbox cache (`--conversation-cache`, the default) and without
//! (`--conversation-cache 0`, a sandbox made for every request). The session side
//! is the same in both servers.
//!
//! Every side uses the same minimal client (the tests' `support::mcp_http::post`:
//! one request per new loopback connection, the whole answer read), so the ratios
//! compare the server's work.

use std::path::Path;
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

/// A tool configuration and a skill enabling one of its tools, in `root`.
fn fixture(root: &Path) -> Vec<String> {
    std::fs::write(
        root.join("tools.yaml"),
        "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n\
         ---\nkind: tool\nname: count_rows\ntype: sqlite-sql\nsource: db\n\
         description: Count something.\nstatement: SELECT 42 AS n;\n\
         ---\nkind: tool\nname: hidden_report\ntype: sqlite-sql\nsource: db\n\
         description: A report only the reporting skill enables.\nstatement: SELECT 7 AS n;\n\
         ---\nkind: toolset\nname: base\ntools: [count_rows]\n",
    )
    .unwrap();
    let skill = root.join("skills/reporting");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: reporting\ndescription: Build reports.\nallowed-tools: hidden_report\n---\nRun it.\n",
    )
    .unwrap();
    let path = |p: &str| root.join(p).display().to_string();
    ["--config", &path("tools.yaml"), "--toolset", "base", "--skills", &path("skills")]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// What one server measured: calls/s of the session's read and the stateless one.
struct Rates {
    session: f64,
    stateless: f64,
}

/// Starts a server over `state` with `extra` arguments, puts a file and activates
/// the skill in conversation `conv`, and measures both sides.
fn measure(
    bin: &str,
    root: &Path,
    state: &str,
    extra: &[&str],
    env: &[(&str, String)],
    conv: &str,
) -> Rates {
    let mut args: Vec<String> = vec!["--mount".into(), "/workspace=mem:".into()];
    args.extend(["--state".to_string(), state.to_string()]);
    args.extend(fixture(root));
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = Replica::start_with_env(bin, root, &refs, env);
    let port = server.port;
    let conv = format!("Filestore-Conversation: {conv}");
    // The 2025-11-25 session, bound to the same conversation.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"}}});
    let legacy = vec!["MCP-Protocol-Version: 2025-11-25".to_string(), conv.clone()];
    let sid = post(port, &legacy, &init).header("mcp-session-id").expect("a session").to_string();
    let mut session = legacy.clone();
    session.push(format!("Mcp-Session-Id: {sid}"));
    post(port, &session, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let call = |id: u64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}})
    };
    let write =
        call(1, "filestore_write", json!({"path": "/scratch/small.txt", "content": "hello\n"}));
    let answer = post(port, &session, &write).body;
    assert!(answer.contains("Created"), "{answer}");
    let skill = call(2, "filestore_read", json!({"path": "/skills/reporting/SKILL.md"}));
    let answer = post(port, &session, &skill).body;
    assert!(answer.contains("hidden_report"), "{answer}");
    let read = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": read_args()});
    let stateful = rate(|| {
        let a = post(port, &session, &read).body;
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
    let read = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params});
    let stateless = rate(|| {
        let a = post(port, &modern, &read).body;
        assert!(a.contains("hello"), "{a}");
    });
    Rates { session: stateful, stateless }
}

fn us(rate: f64) -> f64 {
    1e6 / rate
}

fn report(store: &str, cached: &Rates, uncached: &Rates) {
    println!("state {store}:");
    for (what, session, stateless) in [
        ("with the sandbox cache", cached.session, cached.stateless),
        ("without (--conversation-cache 0)", uncached.session, uncached.stateless),
    ] {
        println!(
            "  {what:<34} session {:>6.0} us/call, 2026-07-28 {:>6.0} us/call: {:.2}x the session's (target at most 1.5x)",
            us(session),
            us(stateless),
            session / stateless
        );
    }
}

fn main() {
    let bin = std::env::var("FILESTORE_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_filestore").to_string());
    println!("small read over HTTP, one connection per call, {CALLS} calls after {WARMUP}:");
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let state = state.to_str().unwrap();
    let cached = measure(&bin, dir.path(), state, &[], &[], "bench-cached");
    let uncached =
        measure(&bin, dir.path(), state, &["--conversation-cache", "0"], &[], "bench-uncached");
    report("in a directory", &cached, &uncached);

    let s3 = support::s3_server::shared();
    let env: Vec<(&str, String)> = s3.env().into_iter().collect();
    let spec =
        format!("s3://{}/{}", support::s3_server::BUCKET, support::s3_server::prefix("bench"));
    let endpoint = ["--s3-endpoint", s3.endpoint.as_str()];
    let cached = measure(&bin, dir.path(), &spec, &endpoint, &env, "bench-cached");
    let mut no_cache = endpoint.to_vec();
    no_cache.extend(["--conversation-cache", "0"]);
    let uncached = measure(&bin, dir.path(), &spec, &no_cache, &env, "bench-uncached");
    report("on S3 (local SeaweedFS)", &cached, &uncached);
}
