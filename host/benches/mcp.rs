//! `filestore serve` vs `@modelcontextprotocol/server-filesystem`, over stdio, with the
//! same client, on the same directory: calls per second for a small read, a directory
//! listing and a recursive search.
//!
//! ```sh
//! cargo bench -p filestore --bench mcp
//! ```
//!
//! `$FILESTORE_BENCH_BIN` names another `filestore` binary to measure (default: the
//! one cargo built with the bench). The reference server is installed with npm into `~/.cache/filestore/npm` (or
//! `$FILESTORE_NPM_PREFIX`) on first run, never into the repository. Without `npm`
//! the bench measures filestore alone and says so.
//!
//! The client is a minimal synchronous JSON-RPC-over-stdio loop written here rather
//! than an SDK client: one request in flight, one line out, one line back. Its own
//! cost is a few microseconds per call, so the numbers (and their ratio) measure the
//! servers, not a client's async machinery. Both servers get byte-for-byte the same
//! client and the same protocol version.

mod mcp_stdio;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_stdio::Server;
use serde_json::{Value, json};

/// Directories in the fixture tree.
const DIRS: usize = 30;
/// Files per directory.
const FILES_PER_DIR: usize = 40;
/// Calls before timing (JIT warm-up for node, page cache for both).
const WARMUP: usize = 30;

/// `filestore serve --http` on loopback and a keep-alive HTTP client: the same
/// calls over streamable HTTP, to compare with stdio (without `TCP_NODELAY`, Nagle
/// and delayed ACKs add ~40 ms per request on a reused connection).
struct HttpServer {
    child: Child,
    agent: ureq::Agent,
    url: String,
    session: String,
    next_id: u64,
}

impl HttpServer {
    fn start(bin: &std::ffi::OsStr, dir: &std::path::Path) -> HttpServer {
        let mut child = Command::new(bin)
            .args(["serve", "--http", "127.0.0.1:0"])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting serve --http");
        let mut err = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        err.read_line(&mut line).expect("startup line");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap_or_else(|| panic!("no URL in {line:?}"))
            .trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
            .to_string();
        // Keep draining stderr so the server never blocks on it.
        std::thread::spawn(move || for _ in err.lines() {});
        let agent: ureq::Agent =
            ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let mut s = HttpServer { child, agent, url, session: String::new(), next_id: 0 };
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params":
            {"protocolVersion": "2025-06-18", "capabilities": {},
             "clientInfo": {"name": "filestore-bench", "version": "0"}}});
        let mut r = s
            .agent
            .post(&s.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .send(body.to_string())
            .expect("initialize");
        s.session = r
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_string();
        let _ = r.body_mut().read_to_string();
        s.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    fn post(&mut self, msg: &Value) -> String {
        let mut r = self
            .agent
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("Mcp-Session-Id", &self.session)
            .header("MCP-Protocol-Version", "2025-06-18")
            .send(msg.to_string())
            .expect("POST");
        r.body_mut().read_to_string().expect("body")
    }

    fn call(&mut self, tool: &str, args: &Value) -> Value {
        self.next_id += 1;
        let body = self.post(&json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
                                     "params": {"name": tool, "arguments": args}}));
        // A JSON body, or server-sent events whose `data:` line holds the response.
        let json_text = body
            .lines()
            .find_map(|l| l.strip_prefix("data:").map(str::trim).filter(|d| d.starts_with('{')))
            .unwrap_or(body.trim());
        let msg: Value = serde_json::from_str(json_text).unwrap_or_else(|e| panic!("{e}: {body}"));
        assert_ne!(msg["result"].get("isError"), Some(&json!(true)), "{tool} failed: {msg}");
        msg["result"].clone()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The text content of a call result.
fn text(r: &Value) -> String {
    r["content"]
        .as_array()
        .map(|c| c.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for d in 0..DIRS {
        let sub = dir.path().join(format!("d{d:02}"));
        std::fs::create_dir(&sub).unwrap();
        for f in 0..FILES_PER_DIR {
            let body: String =
                (0..20).map(|l| format!("// line {l} of file {f} in {d}\n")).collect();
            std::fs::write(sub.join(format!("f{f:02}.rs")), body).unwrap();
        }
    }
    dir
}

fn npm_prefix() -> PathBuf {
    std::env::var_os("FILESTORE_NPM_PREFIX").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/filestore/npm")
    })
}

/// The reference server's entry point, installing it when missing.
fn reference_server() -> Option<PathBuf> {
    let prefix = npm_prefix();
    let entry = prefix.join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    if !entry.exists() {
        eprintln!("installing @modelcontextprotocol/server-filesystem into {}", prefix.display());
        let ok = Command::new("npm")
            .args(["install", "--silent", "--no-audit", "--no-fund", "--prefix"])
            .arg(&prefix)
            .arg("@modelcontextprotocol/server-filesystem")
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("npm is not available or the install failed: measuring filestore alone");
            return None;
        }
    }
    Some(entry)
}

/// Calls per second of `n` calls (after the warm-up).
fn rate(s: &mut Server, tool: &str, args: &Value, n: usize) -> f64 {
    for _ in 0..WARMUP {
        s.call(tool, args);
    }
    let t = Instant::now();
    for _ in 0..n {
        s.call(tool, args);
    }
    n as f64 / t.elapsed().max(Duration::from_nanos(1)).as_secs_f64()
}

struct Op {
    name: &'static str,
    calls: usize,
    filestore: (&'static str, Value),
    reference: (&'static str, Value),
}

fn main() {
    let dir = fixture();
    let root = dir.path().canonicalize().unwrap();
    let abs = |rel: &str| format!("{}/{rel}", root.display());

    // $FILESTORE_BENCH_BIN: measure another build (e.g. target/release/filestore).
    let bin = std::env::var_os("FILESTORE_BENCH_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_filestore").into());
    let mut fs = Server::start({
        let mut c = Command::new(&bin);
        c.arg("serve").current_dir(&root);
        c
    });
    let mut reference = reference_server().map(|entry| {
        let mut c = Command::new("node");
        c.arg(entry).arg(&root);
        Server::start(c)
    });

    let ops = [
        Op {
            name: "small read (20 lines)",
            calls: 2000,
            filestore: ("filestore_read", json!({"path": "/workspace/d07/f13.rs"})),
            reference: ("read_text_file", json!({"path": abs("d07/f13.rs")})),
        },
        Op {
            name: "directory listing (40 files)",
            calls: 2000,
            filestore: ("filestore_ls", json!({"path": "/workspace/d07"})),
            reference: ("list_directory", json!({"path": abs("d07")})),
        },
        Op {
            name: "listing with sizes (40 files)",
            calls: 2000,
            filestore: ("filestore_ls", json!({"path": "/workspace/d07", "details": true})),
            reference: ("list_directory_with_sizes", json!({"path": abs("d07")})),
        },
        Op {
            name: "recursive search (**/f13.rs over 1,200 files)",
            calls: 200,
            filestore: ("filestore_glob", json!({"pattern": "**/f13.rs", "path": "/workspace"})),
            reference: ("search_files", json!({"path": abs(""), "pattern": "**/f13.rs"})),
        },
    ];

    // Same answers first: the read returns the file, the listing 40 names, the search
    // one file per directory.
    let r = text(&fs.call(ops[0].filestore.0, &ops[0].filestore.1));
    assert!(r.contains("line 19 of file 13 in 7"), "{r}");
    let r = text(&fs.call(ops[1].filestore.0, &ops[1].filestore.1));
    assert_eq!(r.lines().count(), FILES_PER_DIR, "{r}");
    let r = text(&fs.call(ops[2].filestore.0, &ops[2].filestore.1));
    assert!(r.lines().count() == FILES_PER_DIR && r.contains("bytes"), "{r}");
    let r = text(&fs.call(ops[3].filestore.0, &ops[3].filestore.1));
    assert_eq!(r.matches("f13.rs").count(), DIRS, "{r}");
    if let Some(s) = reference.as_mut() {
        let r = text(&s.call(ops[0].reference.0, &ops[0].reference.1));
        assert!(r.contains("line 19 of file 13 in 7"), "{r}");
        let r = text(&s.call(ops[1].reference.0, &ops[1].reference.1));
        assert_eq!(r.lines().count(), FILES_PER_DIR, "{r}");
        let r = text(&s.call(ops[2].reference.0, &ops[2].reference.1));
        assert!(r.contains("f13.rs"), "{r}");
        let r = text(&s.call(ops[3].reference.0, &ops[3].reference.1));
        assert_eq!(r.matches("f13.rs").count(), DIRS, "{r}");
    }

    println!("| operation | filestore serve (calls/s) | server-filesystem (calls/s) | ratio |");
    println!("|---|---:|---:|---:|");
    for op in &ops {
        let a = rate(&mut fs, op.filestore.0, &op.filestore.1, op.calls);
        match reference.as_mut() {
            Some(s) => {
                let b = rate(s, op.reference.0, &op.reference.1, op.calls);
                println!("| {} | {a:.0} | {b:.0} | {:.2}x |", op.name, a / b);
            }
            None => println!("| {} | {a:.0} | n/a | n/a |", op.name),
        }
    }

    // The same small read over streamable HTTP (keep-alive) against stdio, same binary.
    let mut http = HttpServer::start(&bin, &root);
    let read = &ops[0].filestore;
    let r = text(&http.call(read.0, &read.1));
    assert!(r.contains("line 19 of file 13 in 7"), "{r}");
    for _ in 0..WARMUP {
        http.call(read.0, &read.1);
    }
    let n = 1000;
    let t = Instant::now();
    for _ in 0..n {
        http.call(read.0, &read.1);
    }
    let http_rate = n as f64 / t.elapsed().as_secs_f64();
    let stdio_rate = rate(&mut fs, read.0, &read.1, n);
    println!();
    println!(
        "| small read, filestore serve | stdio (calls/s) | streamable HTTP, keep-alive (calls/s) | HTTP − stdio per call |"
    );
    println!("|---|---:|---:|---:|");
    println!(
        "| 20 lines | {stdio_rate:.0} | {http_rate:.0} | {:.3} ms |",
        1000.0 / http_rate - 1000.0 / stdio_rate
    );
    drop(http);
    drop(fs);
    drop(reference);
}
