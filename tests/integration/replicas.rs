//! `serve --state`: conversations kept in a state store that several
//! `filestore serve --http` processes share (docs/state.md#serving). Two
//! replicas on one store, on a directory and on the S3 server; a replica killed with
//! SIGKILL and restarted; 40 sessions of one conversation racing over both; keys of
//! another identity, forged and oversized keys; expiry; a server without `--state`.
//!
//! It stays above 800 lines because its cases share the replica processes, the state
//! store and the HTTP client fixtures above, and each scenario (kill and restart,
//! races, expiry, foreign keys) needs two servers running together.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::mcp_http::{McpHttp, Replica, stateless, stateless_with};
use crate::support::s3_server;

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

/// A configuration whose toolset leaves `hidden_report` to a skill, and the skill.
fn fixture(root: &Path) -> (String, String) {
    std::fs::write(
        root.join("tools.yaml"),
        "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n\
         ---\nkind: tool\nname: count_rows\ntype: sqlite-sql\nsource: db\n\
         description: Count something.\nstatement: SELECT 42 AS n;\n\
         ---\nkind: tool\nname: hidden_report\ntype: sqlite-sql\nsource: db\n\
         description: A report only the reporting skill enables.\nstatement: SELECT 7 AS n;\n\
         ---\nkind: tool\nname: purge\ntype: sqlite-sql\nsource: db\n\
         description: Purge everything.\nstatement: SELECT 'purged' AS done;\nrequiresApproval: true\n\
         ---\nkind: toolset\nname: base\ntools: [count_rows, purge]\n",
    )
    .unwrap();
    let skill = root.join("skills/reporting");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: reporting\ndescription: Build reports.\nallowed-tools: hidden_report\n---\nRun it.\n",
    )
    .unwrap();
    (root.join("tools.yaml").display().to_string(), root.join("skills").display().to_string())
}

/// Two replicas over the state store `state` (plus `extra` arguments).
fn replicas(root: &Path, state: &str, extra: &[&str]) -> (Replica, Replica, Vec<String>) {
    replicas_with_env(root, state, extra, &[])
}

/// [`replicas`] with `env` in their environment.
fn replicas_with_env(
    root: &Path,
    state: &str,
    extra: &[&str],
    env: &[(&str, String)],
) -> (Replica, Replica, Vec<String>) {
    let (config, skills) = fixture(root);
    let mut args: Vec<String> = [
        "--state",
        state,
        "--config",
        &config,
        "--toolset",
        "base",
        "--skills",
        &skills,
        "--mount",
        "/workspace=mem:",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let a = Replica::start_with_env(BIN, root, &refs, env);
    let b = Replica::start_with_env(BIN, root, &refs, env);
    (a, b, args)
}

/// What every store must give: a conversation's files, stored results and skills
/// seen from the other replica, and after the first one was killed and restarted.
fn conversation_moves_between_replicas(
    root: &Path,
    state: &str,
    extra: &[&str],
    env: &[(&str, String)],
) {
    let (mut a, b, args) = replicas_with_env(root, state, extra, env);
    let mut on_a = a.session(Some("conv-1"), None).unwrap();
    assert_eq!(on_a.conversation.as_deref(), Some("conv-1"));
    on_a.call_ok("filestore_write", json!({"path": "/scratch/notes.md", "content": "from A\n"}));
    // A configured tool's result, stored in /tool_calls.
    let stored = on_a.call("count_rows", json!({}));
    assert_ne!(stored["isError"], true, "{stored}");
    let result_path = stored["structuredContent"]["result_path"]
        .as_str()
        .unwrap_or_else(|| panic!("no result_path: {stored}"))
        .to_string();
    assert!(!on_a.tool_names().contains(&"hidden_report".to_string()));
    let read = on_a.call_ok("filestore_read", json!({"path": "/skills/reporting/SKILL.md"}));
    assert!(read.contains("enabled tools: hidden_report"), "{read}");

    // Replica B, a new session of the same conversation.
    let mut on_b = b.session(Some("conv-1"), None).unwrap();
    let text = on_b.call_ok("filestore_read", json!({"path": "/scratch/notes.md"}));
    assert!(text.contains("from A"), "{text}");
    let text = on_b.call_ok("filestore_read", json!({"path": result_path}));
    assert!(text.contains("42"), "the result stored on A, read on B: {text}");
    assert!(
        on_b.tool_names().contains(&"hidden_report".to_string()),
        "the skill read on A activates its tool on B"
    );
    let r = on_b.call_ok("hidden_report", json!({}));
    assert!(r.contains('7'), "{r}");
    // B's write, seen by A's session as it is (no reconnect).
    on_b.call_ok("filestore_write", json!({"path": "/scratch/b.md", "content": "from B\n"}));
    assert!(on_a.call_ok("filestore_read", json!({"path": "/scratch/b.md"})).contains("from B"));

    // Another conversation sees none of it.
    let mut other = b.session(Some("conv-2"), None).unwrap();
    let r = other.call("filestore_read", json!({"path": "/scratch/notes.md"}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(!other.tool_names().contains(&"hidden_report".to_string()));

    // A dies mid-conversation (SIGKILL) and is started again on the same store.
    on_a.call_ok("filestore_write", json!({"path": "/scratch/last.md", "content": "acked\n"}));
    a.kill();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let a2 = Replica::start_with_env(BIN, root, &refs, env);
    let mut again = a2.session(Some("conv-1"), None).unwrap();
    for (path, expected) in [
        ("/scratch/notes.md", "from A"),
        ("/scratch/last.md", "acked"),
        ("/scratch/b.md", "from B"),
    ] {
        let text = again.call_ok("filestore_read", json!({"path": path}));
        assert!(text.contains(expected), "{path} after the restart: {text}");
    }
    assert!(again.call_ok("filestore_read", json!({"path": result_path})).contains("42"));
    assert!(again.tool_names().contains(&"hidden_report".to_string()));
}

#[test]
fn replicas_on_a_directory_store_share_conversations_and_survive_a_kill() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    conversation_moves_between_replicas(root.path(), state.to_str().unwrap(), &[], &[]);
}

#[test]
fn replicas_on_s3_share_conversations_and_survive_a_kill() {
    let srv = s3_server::shared();
    let root = tempfile::tempdir().unwrap();
    let state = format!("s3://{}/{}", s3_server::BUCKET, s3_server::prefix("replicas"));
    // The replicas take the test server's credentials from their environment.
    let env: Vec<(&str, String)> = srv.env().into_iter().collect();
    conversation_moves_between_replicas(
        root.path(),
        &state,
        &["--s3-endpoint", &srv.endpoint],
        &env,
    );
}

/// A 2026-07-28 client (the Python SDK, its protocol pinned: no initialize, no
/// session, `_meta` on every request) alternating between two replicas: files,
/// stored results and skills follow the conversation its requests name.
#[test]
fn a_2026_07_28_client_alternates_between_replicas() {
    let script = crate::common::repo_root().join("tests/mcp_python/stateless_client.py");
    let mut python = std::process::Command::new(crate::mcp::python());
    python.arg(&script);
    client_alternates(python);
}

/// Runs `client` with the URLs of two replicas on one directory store appended; it
/// must succeed and print `ok` last.
fn client_alternates(mut client: std::process::Command) {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let (a, b, _) = replicas(root.path(), state.to_str().unwrap(), &[]);
    let url = |r: &Replica| format!("http://127.0.0.1:{}/mcp", r.port);
    let ran = crate::support::cmd::run(client.arg(url(&a)).arg(url(&b)));
    assert!(
        ran.output.status.success() && ran.stdout().trim_end().ends_with("ok"),
        "{}\nA: {}\nB: {}",
        ran.describe(),
        a.stderr(),
        b.stderr()
    );
}

/// The TypeScript SDK release line that speaks 2026-07-28 (v2; the single
/// `@modelcontextprotocol/sdk` package, 1.x, stops at 2025-11-25).
pub(crate) const TS_CLIENT: &str = "@modelcontextprotocol/client@2.4.0";

/// The same as [`a_2026_07_28_client_alternates_between_replicas`] with the
/// TypeScript SDK (`tests/mcp_node/stateless_client.mjs`), installed from npm into
/// the cache.
#[test]
fn a_typescript_2026_07_28_client_alternates_between_replicas() {
    let dir = crate::support::install::cache_dir("FILESTORE_MCP_CLIENT_TS", "mcp-client-ts-2.4.0");
    let entry = dir.join("node_modules/@modelcontextprotocol/client/dist/index.mjs");
    let args = ["install", "--silent", "--no-audit", "--no-fund", "--prefix", ".", TS_CLIENT];
    crate::support::install::npm(&dir, &entry, |_| {}, &args);
    let script = crate::common::repo_root().join("tests/mcp_node/stateless_client.mjs");
    let mut node = std::process::Command::new("node");
    node.arg(&script).arg(&entry);
    client_alternates(node);
}

/// The tool names a 2026-07-28 `tools/list` of `conversation` on `port` gives.
fn stateless_tools(port: u16, conversation: &str) -> Vec<String> {
    let m = stateless(port, Some(conversation), "tools/list", json!({}));
    let tools = m["result"]["tools"].as_array().unwrap_or_else(|| panic!("tools/list: {m}"));
    tools.iter().map(|t| t["name"].as_str().unwrap_or_default().to_string()).collect()
}

/// A 2026-07-28 `tools/call` of `conversation` on `port` that must succeed: its text.
fn stateless_ok(port: u16, conversation: &str, tool: &str, arguments: Value) -> String {
    let m = stateless(
        port,
        Some(conversation),
        "tools/call",
        json!({"name": tool, "arguments": arguments}),
    );
    assert_ne!(m["result"]["isError"], true, "{tool}: {m}");
    assert!(m.get("error").is_none(), "{tool}: {m}");
    m["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

/// A 2026-07-28 request takes the sandbox an earlier request of its conversation
/// left on its replica (`--conversation-cache`) only when that sandbox is current
/// with the conversation's state. A skill activated on B reaches A's cached
/// sandbox; then the conversation is removed (idle) and made again on B, its new
/// document at the version A's cached sandbox saw: A serves the new conversation
/// (no skill, B's new file), never its cached sandbox of the old one.
#[test]
fn a_cached_sandbox_never_serves_a_changed_conversation() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let idle = ["--conversation-idle-timeout", "5"];
    let (a, b, _) = replicas(root.path(), state.to_str().unwrap(), &idle);
    let conv = "cached";
    stateless_ok(
        a.port,
        conv,
        "filestore_write",
        json!({"path": "/scratch/old.txt", "content": "old\n"}),
    );
    assert!(!stateless_tools(a.port, conv).contains(&"hidden_report".to_string()));
    // Changed on B: A's cached sandbox is behind, and is not used as it is.
    stateless_ok(b.port, conv, "filestore_read", json!({"path": "/skills/reporting/SKILL.md"}));
    assert!(stateless_tools(a.port, conv).contains(&"hidden_report".to_string()));
    assert!(stateless_ok(a.port, conv, "hidden_report", json!({})).contains('7'));
    // Removed for being idle (both replicas sweep), then made again on B.
    let conversations = state.join("conversations");
    // Not a timing assertion: a bound so a sweep that never runs fails instead of hanging.
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_dir(&conversations).unwrap().count() > 0 {
        assert!(std::time::Instant::now() < give_up, "not swept: {}", a.stderr());
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    stateless_ok(
        b.port,
        conv,
        "filestore_write",
        json!({"path": "/scratch/new.txt", "content": "new\n"}),
    );
    let doc: Value = serde_json::from_slice(
        &std::fs::read(
            walk(&conversations).into_iter().find(|p| p.ends_with("state.json")).unwrap(),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(doc["activated_skills"].as_array().unwrap().is_empty(), "{doc}");
    let tools = stateless_tools(a.port, conv);
    assert!(
        !tools.contains(&"hidden_report".to_string()),
        "A served the removed conversation's skill: {tools:?}"
    );
    assert!(
        stateless_ok(a.port, conv, "filestore_read", json!({"path": "/scratch/new.txt"}))
            .contains("new")
    );
    let old = stateless(
        a.port,
        Some(conv),
        "tools/call",
        json!({"name": "filestore_read", "arguments": {"path": "/scratch/old.txt"}}),
    );
    assert_eq!(old["result"]["isError"], true, "the removed conversation's file: {old}");
}

/// A `subscriptions/listen` (2026-07-28) stream opened on `port` for tool-list
/// changes of `conversation`: waits for `what` in it, with what it read so far.
struct Listener {
    lines: std::io::Lines<std::io::BufReader<std::net::TcpStream>>,
    seen: String,
}

impl Listener {
    /// Opens the stream; the HTTP status line when it was refused instead.
    fn open(port: u16, conversation: &str) -> Result<Listener, String> {
        use std::io::{BufRead, BufReader, Write};
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {}});
        let listen = json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": {"toolsListChanged": true}}})
        .to_string();
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        // A guard against a hung stream; not a timing check.
        stream.set_read_timeout(Some(std::time::Duration::from_secs(60))).unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nFilestore-Conversation: {conversation}\r\nContent-Length: {}\r\n\r\n{listen}",
            listen.len()
        )
        .unwrap();
        let mut lines = BufReader::new(stream).lines();
        let status = lines.next().and_then(Result::ok).unwrap_or_default();
        if !status.contains(" 200 ") {
            return Err(status);
        }
        let mut listener = Listener { lines, seen: String::new() };
        listener.wait_for("notifications/subscriptions/acknowledged");
        Ok(listener)
    }

    fn wait_for(&mut self, what: &str) {
        for line in self.lines.by_ref() {
            let line =
                line.unwrap_or_else(|e| panic!("waiting for {what}: {e}; got:\n{}", self.seen));
            self.seen.push_str(&line);
            self.seen.push('\n');
            if line.contains(what) {
                return;
            }
        }
        panic!("the stream ended before {what}:\n{}", self.seen);
    }
}

/// `subscriptions/listen` (2026-07-28) on replica B, naming a conversation, hears
/// `notifications/tools/list_changed` when a skill read through replica A adds a
/// tool to that conversation.
#[test]
fn a_listener_hears_a_skill_activated_on_another_replica() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let (a, b, _) = replicas(root.path(), state.to_str().unwrap(), &[]);
    let mut listener = Listener::open(b.port, "listened").unwrap();
    let mut on_a = a.session(Some("listened"), None).unwrap();
    on_a.call_ok("filestore_read", json!({"path": "/skills/reporting/SKILL.md"}));
    listener.wait_for("notifications/tools/list_changed");
    let seen = &listener.seen;
    assert!(seen.contains("\"io.modelcontextprotocol/subscriptionId\":\"listen-1\""), "{seen}");
}

/// A `subscriptions/listen` stream holds a sandbox as a session does: it counts
/// against `--max-sessions` while open (a new session or stream is refused with
/// 503, the stream never closed to make room), and its place is free once its
/// client closed it.
#[test]
fn listen_streams_count_against_max_sessions() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let (a, _b, _) = replicas(root.path(), state.to_str().unwrap(), &["--max-sessions", "1"]);
    let listener = Listener::open(a.port, "streams").unwrap();
    let refused = McpHttp::initialize(a.port, None, None, json!({}))
        .err()
        .expect("a session beyond --max-sessions 1 was admitted beside an open stream");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.body.contains("listen streams included"), "{refused:?}");
    let second = Listener::open(a.port, "streams").err().expect("a second stream was admitted");
    assert!(second.contains(" 503 "), "{second}");
    drop(listener);
    // Not a timing assertion: the server notices the closed stream at its next write
    // (a keep-alive); a bound so a place never given back fails instead of hanging.
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(90);
    while McpHttp::initialize(a.port, None, None, json!({})).is_err() {
        assert!(std::time::Instant::now() < give_up, "the stream's place was never given back");
        std::thread::sleep(std::time::Duration::from_millis(250));
    }
}

/// 40 sessions of one conversation, alternating between the replicas, each write
/// a file and run a configured tool at once: every file and every stored result
/// is there afterwards, and no result id was handed out twice.
#[test]
fn racing_sessions_of_one_conversation_lose_nothing() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let (a, b, _) = replicas(root.path(), state.to_str().unwrap(), &[]);
    let ports = [a.port, b.port];
    let start = std::sync::Arc::new(std::sync::Barrier::new(40));
    let threads: Vec<_> = (0..40)
        .map(|i| {
            let port = ports[i % 2];
            let start = start.clone();
            std::thread::spawn(move || {
                let mut s = McpHttp::initialize(port, Some("race"), None, json!({})).unwrap();
                start.wait();
                let path = format!("/scratch/racer-{i}.txt");
                s.call_ok("filestore_write", json!({"path": path, "content": format!("{i}\n")}));
                let r = s.call("count_rows", json!({}));
                assert_ne!(r["isError"], true, "{r}");
                if i % 4 == 0 {
                    s.call_ok("filestore_read", json!({"path": "/skills/reporting/SKILL.md"}));
                }
                r["structuredContent"]["result_path"].as_str().unwrap().to_string()
            })
        })
        .collect();
    let paths: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let unique: std::collections::BTreeSet<&String> = paths.iter().collect();
    assert_eq!(unique.len(), paths.len(), "a result id was handed out twice: {paths:?}");
    let mut check = McpHttp::initialize(a.port, Some("race"), None, json!({})).unwrap();
    for i in 0..40 {
        let text =
            check.call_ok("filestore_read", json!({"path": format!("/scratch/racer-{i}.txt")}));
        assert!(text.contains(&i.to_string()), "racer {i}: {text}");
    }
    for p in &paths {
        assert!(check.call_ok("filestore_read", json!({"path": p})).contains("42"), "{p}");
    }
    assert!(check.tool_names().contains(&"hidden_report".to_string()));
    let docs: Vec<_> = walk(&state).into_iter().filter(|p| p.ends_with("state.json")).collect();
    assert_eq!(docs.len(), 1, "one conversation: {docs:?}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&docs[0]).unwrap()).unwrap();
    assert_eq!(doc["activated_skills"], json!(["/skills/reporting/SKILL.md"]), "{doc}");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Keys are scoped to the authenticated identity; forged, oversized and path-like
/// keys are refused naming the rule; a session keeps its conversation; a server
/// without `--state` refuses a request that names one.
/// A temporary root with an empty state directory and a tokens file of two callers:
/// alice (`alice-token-0123456789abcdef`) and bob (`bob-token-0123456789abcdef01`).
fn alice_and_bob() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let tokens = root.path().join("tokens.json");
    std::fs::write(
        &tokens,
        r#"{"tokens": [{"token": "alice-token-0123456789abcdef", "sub": "alice"}, {"token": "bob-token-0123456789abcdef01", "sub": "bob"}]}"#,
    )
    .unwrap();
    (root, state, tokens)
}

/// A conversation's `/scratch` in the store holds at most `--volume-quota-mib`: a
/// write past it fails with `limit-exceeded` and leaves the old content; deleting
/// makes room again. On a directory and on S3.
fn scratch_quota_holds(state: &str, extra: &[&str], env: &[(&str, String)]) {
    let root = tempfile::tempdir().unwrap();
    let mut args = vec!["--state", state, "--volume-quota-mib", "1", "--mount", "/workspace=mem:"];
    args.extend(extra);
    let server = Replica::start_with_env(BIN, root.path(), &args, env);
    let conv = Some("quota");
    let write = |path: &str, bytes: usize| {
        let args = json!({"path": path, "content": "x".repeat(bytes)});
        let call = json!({"name": "filestore_write", "arguments": args});
        stateless(server.port, conv, "tools/call", call)["result"].clone()
    };
    let read_len = |path: &str| {
        let call = json!({"name": "filestore_read", "arguments": {"path": path, "limit": 100000}});
        let r = stateless(server.port, conv, "tools/call", call)["result"].clone();
        r["structuredContent"]["entry"]["size"].as_u64().unwrap_or_else(|| panic!("{r}"))
    };
    assert_ne!(write("/scratch/a.txt", 700_000)["isError"], true);
    let over = write("/scratch/b.txt", 400_000);
    assert_eq!(over["isError"], true, "{over}");
    assert_eq!(over["_meta"]["filestore/error"]["kind"], "limit-exceeded", "{over}");
    let said = over["_meta"]["filestore/error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("--volume-quota-mib") && said.contains("/b.txt"), "{said}");
    // A replacement past it fails too, and the old content stays.
    let over = write("/scratch/a.txt", 1_100_000);
    assert_eq!(over["_meta"]["filestore/error"]["kind"], "limit-exceeded", "{over}");
    assert_eq!(read_len("/scratch/a.txt"), 700_000);
    let deleted = stateless(
        server.port,
        conv,
        "tools/call",
        json!({"name": "filestore_delete", "arguments": {"path": "/scratch/a.txt"}}),
    );
    assert_ne!(deleted["result"]["isError"], true, "{deleted}");
    assert_ne!(write("/scratch/b.txt", 900_000)["isError"], true);
}

#[test]
fn a_conversations_scratch_in_a_directory_store_has_a_quota() {
    let root = tempfile::tempdir().unwrap();
    scratch_quota_holds(root.path().to_str().unwrap(), &[], &[]);
}

#[test]
fn a_conversations_scratch_on_s3_has_a_quota() {
    let srv = s3_server::shared();
    let state = format!("s3://{}/{}", s3_server::BUCKET, s3_server::prefix("quota"));
    let env: Vec<(&str, String)> = srv.env().into_iter().collect();
    scratch_quota_holds(&state, &["--s3-endpoint", &srv.endpoint], &env);
}

/// One identity creating conversation keys in a loop: past
/// `--max-conversations-per-identity` each new key is refused with 429, naming the
/// flag, and nothing of it is made in the store; the identity's conversations keep
/// working, and another identity still gets conversations of its own.
#[test]
fn one_identity_cannot_create_conversations_without_end() {
    let (root, state, tokens) = alice_and_bob();
    let args = [
        "--state",
        state.to_str().unwrap(),
        "--auth-tokens",
        tokens.to_str().unwrap(),
        "--max-conversations-per-identity",
        "3",
    ];
    let (a, b) = (Replica::start(BIN, root.path(), &args), Replica::start(BIN, root.path(), &args));
    let alice = ["Authorization: Bearer alice-token-0123456789abcdef".to_string()];
    let bob = ["Authorization: Bearer bob-token-0123456789abcdef01".to_string()];
    let write = |port: u16, who: &[String], conv: &str| {
        let args = json!({"path": "/scratch/f.txt", "content": format!("{conv}\n")});
        stateless_with(
            port,
            who,
            Some(conv),
            "tools/call",
            json!({"name": "filestore_write", "arguments": args}),
        )
    };
    let conversations = || std::fs::read_dir(state.join("conversations")).map_or(0, |d| d.count());
    for n in 0..3 {
        // Alternating replicas: the count is the store's, not one process's.
        let port = if n % 2 == 0 { a.port } else { b.port };
        let ok = write(port, &alice[..], &format!("alice-{n}"));
        assert_eq!(ok.status, 200, "{ok:?}");
        assert_ne!(ok.message()["result"]["isError"], true, "{ok:?}");
    }
    assert_eq!(conversations(), 3);
    for n in 3..40 {
        let port = if n % 2 == 0 { a.port } else { b.port };
        let refused = write(port, &alice[..], &format!("alice-{n}"));
        assert_eq!(refused.status, 429, "key {n}: {refused:?}");
        assert!(refused.body.contains("--max-conversations-per-identity 3"), "{}", refused.body);
    }
    // The same through a 2025-11-25 session naming a new key.
    let refused = McpHttp::initialize(
        a.port,
        Some("alice-new"),
        Some("alice-token-0123456789abcdef"),
        json!({}),
    )
    .err()
    .expect("a session of a new conversation past the cap was made");
    assert_eq!(refused.status, 429, "{refused:?}");
    assert_eq!(conversations(), 3, "refused keys made something in the store");
    let read = stateless_with(
        b.port,
        &alice,
        Some("alice-1"),
        "tools/call",
        json!({"name": "filestore_read", "arguments": {"path": "/scratch/f.txt"}}),
    );
    assert!(read.body.contains("alice-1"), "{read:?}");
    let theirs = write(a.port, &bob[..], "bob-0");
    assert_ne!(theirs.message()["result"]["isError"], true, "{theirs:?}");
    assert_eq!(conversations(), 4);
}

/// A 2025-11-25 session is not tied to the replica that created it: a request
/// naming its id on another replica (a load balancer's choice, or the first one
/// killed) continues it there, with its conversation's files and skills (rmcp's
/// restore from the session records in the store). Only the identity that created
/// it may: another token holding the id gets the 404 of an unknown session.
#[test]
fn a_2025_session_continues_on_any_replica_by_its_id() {
    let (root, state, tokens) = alice_and_bob();
    let tokens = tokens.display().to_string();
    let (alice_token, bob_token) = ("alice-token-0123456789abcdef", "bob-token-0123456789abcdef01");
    let (mut a, b, args) =
        replicas(root.path(), state.to_str().unwrap(), &["--auth-tokens", &tokens]);
    // No conversation named: the session gets a fresh one, recorded with it.
    let mut s = a.session(None, Some(alice_token)).unwrap();
    let conversation = s.conversation.clone().expect("a fresh conversation");
    s.call_ok("filestore_write", json!({"path": "/scratch/a.md", "content": "from A\n"}));
    s.call_ok("filestore_read", json!({"path": "/skills/reporting/SKILL.md"}));

    // Recorded for the other replicas: the conversation, by the session id's digest.
    let records: Vec<String> = std::fs::read_dir(state.join("sessions"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(records.len(), 1, "{records:?}");
    assert!(records[0].contains(&conversation), "{}", records[0]);
    assert!(!records[0].contains(s.session_id()), "the id itself is not written: {}", records[0]);
    // The same session id, on B.
    s.move_to(b.port);
    assert!(s.call_ok("filestore_read", json!({"path": "/scratch/a.md"})).contains("from A"));
    assert!(s.tool_names().contains(&"hidden_report".to_string()), "the skill read on A");
    s.call_ok("filestore_write", json!({"path": "/scratch/b.md", "content": "from B\n"}));

    // Bob, holding Alice's session id, on a replica that holds it and on one that
    // would take it over: unknown to him.
    let mut bob = s.with_token(bob_token);
    assert_eq!(bob.raw("tools/list", json!({})).status, 404, "on B, which holds it");
    a.kill();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let a2 = Replica::start(BIN, root.path(), &refs);
    bob.move_to(a2.port);
    let refused = bob.raw("tools/list", json!({}));
    assert_eq!(refused.status, 404, "{refused:?}");

    // A was killed: the session goes on on the restarted A, same conversation.
    s.move_to(a2.port);
    for (path, expected) in [("/scratch/a.md", "from A"), ("/scratch/b.md", "from B")] {
        let text = s.call_ok("filestore_read", json!({"path": path}));
        assert!(text.contains(expected), "{path} on the restarted replica: {text}");
    }
    assert!(s.tool_names().contains(&"hidden_report".to_string()));
    let here = s.request_with("initialize", json!({}), &[]);
    assert!(here.get("error").is_some(), "the session is initialized already: {here}");
}

/// A 2025-11-25 session taken over by another replica serves its own conversation
/// and makes no other: at `--max-conversations-per-identity` (1, the session's own)
/// the takeover succeeds and the store still holds one conversation. The takeover
/// made an empty conversation first, counted against the cap, so at the cap it
/// failed with 500. A new conversation past the cap is refused with 429 on either
/// replica, and a takeover naming another conversation in its header with 400.
#[test]
fn a_taken_over_session_makes_no_conversation() {
    let (root, state, tokens) = alice_and_bob();
    let tokens = tokens.display().to_string();
    let alice = "alice-token-0123456789abcdef";
    let cap = ["--auth-tokens", &tokens, "--max-conversations-per-identity", "1"];
    let (a, b, _) = replicas(root.path(), state.to_str().unwrap(), &cap);
    let conversations = || std::fs::read_dir(state.join("conversations")).map_or(0, |d| d.count());
    // A fresh conversation: the one alice may have.
    let mut s = a.session(None, Some(alice)).unwrap();
    let conversation = s.conversation.clone().expect("a fresh conversation");
    s.call_ok("filestore_write", json!({"path": "/scratch/a.md", "content": "from A\n"}));
    assert_eq!(conversations(), 1);
    // A second session of the same conversation, for the header check below.
    let second = a.session(Some(&conversation), Some(alice)).unwrap();
    s.move_to(b.port);
    let text = s.call_ok("filestore_read", json!({"path": "/scratch/a.md"}));
    assert!(text.contains("from A"), "{text}");
    s.call_ok("filestore_write", json!({"path": "/scratch/b.md", "content": "from B\n"}));
    assert_eq!(conversations(), 1, "the takeover made a conversation");
    for port in [a.port, b.port] {
        let refused = McpHttp::initialize(port, Some("another"), Some(alice), json!({}))
            .err()
            .expect("a session of a new conversation past the cap was made");
        assert_eq!(refused.status, 429, "{refused:?}");
        assert!(refused.body.contains("--max-conversations-per-identity 1"), "{}", refused.body);
    }
    let headers = [
        "Mcp-Protocol-Version: 2025-11-25".to_string(),
        format!("Authorization: Bearer {alice}"),
        format!("Mcp-Session-Id: {}", second.session_id()),
        "Filestore-Conversation: another".to_string(),
    ];
    let list = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}});
    let refused = crate::support::mcp_http::post(b.port, &headers, &list);
    assert_eq!(refused.status, 400, "{refused:?}");
    assert!(refused.body.contains(&format!("serves conversation '{conversation}'")), "{refused:?}");
    assert_eq!(conversations(), 1);
}

#[test]
fn conversation_keys_are_scoped_checked_and_fixed_per_session() {
    let (root, state, tokens) = alice_and_bob();
    let server = Replica::start(
        BIN,
        root.path(),
        &["--state", state.to_str().unwrap(), "--auth-tokens", tokens.to_str().unwrap()],
    );
    let mut alice =
        server.session(Some("shared-name"), Some("alice-token-0123456789abcdef")).unwrap();
    alice
        .call_ok("filestore_write", json!({"path": "/scratch/secret.txt", "content": "alice's\n"}));
    // Bob names the same key: a conversation of his own.
    let mut bob =
        server.session(Some("shared-name"), Some("bob-token-0123456789abcdef01")).unwrap();
    let r = bob.call("filestore_read", json!({"path": "/scratch/secret.txt"}));
    assert_eq!(r["isError"], true, "bob read alice's conversation: {r}");
    let listed = bob.call_ok("filestore_ls", json!({"path": "/scratch"}));
    assert!(!listed.contains("secret"), "{listed}");

    for (key, rule) in [
        ("../../etc", "allowed are"),
        ("a/b", "allowed are"),
        ("x".repeat(129).as_str(), "limit is 128"),
        ("", "empty"),
    ] {
        let refused = McpHttp::initialize(
            server.port,
            Some(key),
            Some("alice-token-0123456789abcdef"),
            json!({}),
        )
        .err()
        .unwrap_or_else(|| panic!("key {key:?} was accepted"));
        assert_eq!(refused.status, 400, "{key:?}: {refused:?}");
        assert!(refused.body.contains(rule), "{key:?}: {}", refused.body);
        assert!(!refused.body.contains("etc"), "the key is echoed: {}", refused.body);
    }
    // The same rules for a key in `_meta`.
    let refused = McpHttp::initialize(
        server.port,
        None,
        Some("alice-token-0123456789abcdef"),
        json!({"filestore/conversation": "a/b"}),
    )
    .err()
    .expect("a path in _meta was accepted");
    assert!(refused.message().to_string().contains("allowed are"), "{refused:?}");

    // A key in `_meta` at initialize binds the session; the result names it.
    let mut by_meta = McpHttp::initialize(
        server.port,
        None,
        Some("alice-token-0123456789abcdef"),
        json!({"filestore/conversation": "shared-name"}),
    )
    .unwrap();
    assert_eq!(by_meta.conversation.as_deref(), Some("shared-name"));
    assert!(
        by_meta
            .call_ok("filestore_read", json!({"path": "/scratch/secret.txt"}))
            .contains("alice's")
    );
    // A session that named none gets a fresh conversation, and its key.
    let mut fresh = server.session(None, Some("alice-token-0123456789abcdef")).unwrap();
    let name = fresh.conversation.clone().expect("initialize names the session's conversation");
    assert!(name.starts_with("session-"), "{name}");
    fresh.call_ok("filestore_write", json!({"path": "/scratch/f.txt", "content": "f\n"}));
    let mut resumed = server.session(Some(&name), Some("alice-token-0123456789abcdef")).unwrap();
    assert!(resumed.call_ok("filestore_read", json!({"path": "/scratch/f.txt"})).contains('f'));

    // A request of the session naming another conversation is refused, in a header
    // or in `_meta`; two headers are refused before anything else.
    let m = by_meta.request_with(
        "tools/call",
        json!({"name": "filestore_ls", "arguments": {"path": "/scratch"}}),
        &["Filestore-Conversation: other".to_string()],
    );
    let message = m["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("serves conversation 'shared-name'"), "{m}");
    let m = alice.request_with(
        "tools/call",
        json!({"name": "filestore_ls", "arguments": {"path": "/scratch"},
               "_meta": {"filestore/conversation": "other"}}),
        &[],
    );
    assert!(m.get("error").is_some(), "{m}");
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let two = crate::support::mcp_http::post(
        server.port,
        &[
            "Authorization: Bearer alice-token-0123456789abcdef".to_string(),
            "Filestore-Conversation: shared-name".to_string(),
            "Filestore-Conversation: other".to_string(),
        ],
        &init,
    );
    assert_eq!(two.status, 400, "{two:?}");
    assert!(two.body.contains("more than one"), "{two:?}");

    // Without --state, naming a conversation is refused, saying what to do.
    let stateless = Replica::start(BIN, root.path(), &[]);
    let refused = stateless.session(Some("conv"), None).err().expect("accepted without --state");
    assert_eq!(refused.status, 400, "{refused:?}");
    assert!(refused.body.contains("--state"), "{refused:?}");
}

/// A conversation unused for longer than `--conversation-idle-timeout` is removed
/// from the store; one in use is kept.
#[test]
fn idle_conversations_expire() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let server = Replica::start(
        BIN,
        root.path(),
        &["--state", state.to_str().unwrap(), "--conversation-idle-timeout", "2"],
    );
    let mut s = server.session(Some("short-lived"), None).unwrap();
    s.call_ok("filestore_write", json!({"path": "/scratch/x.txt", "content": "x\n"}));
    let conversations = state.join("conversations");
    assert_eq!(std::fs::read_dir(&conversations).unwrap().count(), 1);
    // Not a timing assertion: a bound so a sweep that never runs fails instead of hanging.
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_dir(&conversations).unwrap().count() > 0 {
        assert!(std::time::Instant::now() < give_up, "not swept: {}", server.stderr());
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    // Its session says so instead of serving from removed volumes.
    let r = s.call("filestore_read", json!({"path": "/scratch/x.txt"}));
    assert_eq!(r["isError"], true, "{r}");
    let text = r["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("removed after 2 s unused"), "{text}");
}

/// A skill result that asks for approval of its follow-up holds
/// that tool in the whole conversation, on every replica. A plan run through replica
/// A holds `decommission` on replica B (B's client cannot approve: refused, nothing
/// ran, and a retry is refused too); a later plan on B that does not ask lifts the
/// hold on A.
#[test]
fn a_held_follow_up_is_held_on_every_replica() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let dir = |p: &str| root.path().join(p).display().to_string();
    let mut args = vec!["--state".to_string(), dir("state")];
    args.extend(crate::support::fleet::write(root.path(), ""));
    args.extend(["--mount".to_string(), "/workspace=mem:".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let a = Replica::start(BIN, root.path(), &args);
    let b = Replica::start(BIN, root.path(), &args);
    let mut on_a = a.session(Some("fleet"), None).unwrap();
    let mut on_b = b.session(Some("fleet"), None).unwrap();
    assert!(on_b.call_ok("decommission", json!({})).contains("done"), "free before any plan");
    on_a.call_ok("filestore_read", json!({"path": "/skills/fleet-plan/SKILL.md"}));
    let asked = on_a.call("fleet-plan", json!({"threshold": 1}));
    assert_eq!(asked["structuredContent"]["requires_approval"], true, "{asked}");
    assert_eq!(asked["structuredContent"]["follow_up"], "decommission", "{asked}");
    for attempt in ["first", "retry"] {
        let held = on_b.call("decommission", json!({}));
        assert_eq!(held["isError"], true, "{attempt} on B: {held}");
        let text = held["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains("approv") && !text.contains("done"), "{attempt}: {held}");
    }
    // B's plan does not ask: the hold is lifted for A too.
    let calm = on_b.call("fleet-plan", json!({"threshold": 5}));
    assert_ne!(calm["isError"], true, "{calm}");
    assert!(calm["structuredContent"].get("requires_approval").is_none(), "{calm}");
    assert!(on_a.call_ok("decommission", json!({})).contains("done"), "lifted on A");
}

/// A `:cow` workspace under `serve --state` is the conversation's (docs/cow.md#under-serve---state):
/// 2026-07-28 requests alternating between two replicas on one directory store see
/// each other's writes and deletes of lower files, a 2025-11-25 session held on one
/// replica sees a delete made on the other, deletes racing on both replicas all
/// stay deleted, the diff on either lists every change, a snapshot taken on one and
/// restored on the other gives the state back, the audit names a shell `rm`'s path,
/// and the lower directory is never written.
#[test]
fn a_cow_workspace_is_the_conversations_on_every_replica() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let lower = root.path().join("repo");
    std::fs::create_dir_all(lower.join("src")).unwrap();
    std::fs::create_dir_all(lower.join("many")).unwrap();
    for (p, c) in [("src/a.txt", "a\n"), ("src/b.txt", "b\n"), ("README.md", "readme\n")] {
        std::fs::write(lower.join(p), c).unwrap();
    }
    for i in 0..20 {
        std::fs::write(lower.join(format!("many/{i}.txt")), format!("{i}\n")).unwrap();
    }
    for i in 0..10 {
        std::fs::write(lower.join(format!("many/burst{i}.txt")), "b\n").unwrap();
    }
    let skip = root.path().join("none");
    let before = crate::support::hostile_tree::snapshot(&lower, &skip);
    let cow = format!("/repo={}:cow", lower.display());
    let (a, b, _) = replicas(root.path(), state.to_str().unwrap(), &["--mount", &cow, "--shell"]);
    let conv = "cow-conv";
    let read = |port: u16, path: &str| {
        stateless(
            port,
            Some(conv),
            "tools/call",
            json!({"name": "filestore_read", "arguments": {"path": path}}),
        )
    };
    let missing = |port: u16, path: &str| {
        let m = read(port, path);
        m["result"]["isError"] == true
            && m["result"]["content"][0]["text"].as_str().unwrap_or("").contains("not-found")
    };

    // A 2025-11-25 session on A, holding its sandbox, reads a lower file first.
    let mut held = a.session(Some(conv), None).unwrap();
    assert!(held.call_ok("filestore_read", json!({"path": "/repo/src/b.txt"})).contains('b'));

    stateless_ok(
        a.port,
        conv,
        "filestore_write",
        json!({"path": "/repo/src/a.txt", "content": "A2\n"}),
    );
    assert!(
        stateless_ok(b.port, conv, "filestore_read", json!({"path": "/repo/src/a.txt"}))
            .contains("A2")
    );
    stateless_ok(b.port, conv, "filestore_delete", json!({"path": "/repo/src/b.txt"}));
    assert!(missing(a.port, "/repo/src/b.txt"), "A still shows the file B deleted");
    let gone = held.call("filestore_read", json!({"path": "/repo/src/b.txt"}));
    assert_eq!(gone["isError"], true, "the held session is behind: {gone}");
    let rm = stateless_ok(
        a.port,
        conv,
        "filestore_execute",
        json!({"command": "rm /repo/README.md && echo new > /repo/new.txt"}),
    );
    assert!(!rm.contains("No such"), "{rm}");
    assert!(
        stateless_ok(b.port, conv, "filestore_read", json!({"path": "/repo/new.txt"}))
            .contains("new")
    );

    // Deletes of twenty lower files racing on both replicas: each stays deleted.
    std::thread::scope(|s| {
        for i in 0..20 {
            let port = if i % 2 == 0 { a.port } else { b.port };
            s.spawn(move || {
                stateless_ok(
                    port,
                    conv,
                    "filestore_delete",
                    json!({"path": format!("/repo/many/{i}.txt")}),
                )
            });
        }
    });
    for i in 0..20 {
        let port = if i % 2 == 0 { b.port } else { a.port };
        assert!(missing(port, &format!("/repo/many/{i}.txt")), "many/{i}.txt shows again");
    }

    let diff = |port: u16| {
        let m = stateless(
            port,
            Some(conv),
            "tools/call",
            json!({"name": "filestore_diff", "arguments": {}}),
        );
        let files =
            m["result"]["structuredContent"]["files"].as_array().cloned().unwrap_or_default();
        let mut out: Vec<String> = files
            .iter()
            .map(|f| {
                format!(
                    "{} {}",
                    f["status"].as_str().unwrap_or(""),
                    f["path"].as_str().unwrap_or("")
                )
            })
            .collect();
        out.sort();
        (out, m)
    };
    let (on_a, m) = diff(a.port);
    let mut expected: Vec<String> = vec![
        "modified /repo/src/a.txt".into(),
        "deleted /repo/src/b.txt".into(),
        "deleted /repo/README.md".into(),
        "added /repo/new.txt".into(),
    ];
    expected.extend((0..20).map(|i| format!("deleted /repo/many/{i}.txt")));
    expected.sort();
    assert_eq!(on_a, expected, "{m}");
    assert_eq!(diff(b.port).0, expected);

    // A burst of deletes on one replica in a new conversation: its later calls show
    // them all (no session of it stays behind the merges it made with the others).
    let burst = "cow-burst";
    std::thread::scope(|s| {
        for i in 0..20 {
            let port = a.port;
            s.spawn(move || {
                let path = format!(
                    "/repo/many/{}.txt",
                    if i < 10 { format!("burst{i}") } else { (i - 10).to_string() }
                );
                stateless_ok(port, burst, "filestore_delete", json!({"path": path}))
            });
        }
    });
    for port in [a.port, a.port, a.port, b.port] {
        let m = stateless(
            port,
            Some(burst),
            "tools/call",
            json!({"name": "filestore_diff", "arguments": {}}),
        );
        let files = m["result"]["structuredContent"]["files"].as_array().map_or(0, Vec::len);
        assert_eq!(files, 20, "a session of the conversation is behind: {m}");
    }

    // A snapshot on A, changes, a restore on B: the state of the snapshot on both.
    stateless_ok(a.port, conv, "filestore_snapshot", json!({"action": "create", "name": "s1"}));
    stateless_ok(
        a.port,
        conv,
        "filestore_write",
        json!({"path": "/repo/src/a.txt", "content": "A3\n"}),
    );
    stateless_ok(a.port, conv, "filestore_delete", json!({"path": "/repo/src", "recursive": true}));
    stateless_ok(b.port, conv, "filestore_snapshot", json!({"action": "restore", "name": "s1"}));
    assert!(
        stateless_ok(a.port, conv, "filestore_read", json!({"path": "/repo/src/a.txt"}))
            .contains("A2")
    );
    assert_eq!(diff(a.port).0, expected);
    assert!(held.call_ok("filestore_read", json!({"path": "/repo/src/a.txt"})).contains("A2"));

    // The audit names the path the shell deleted (only a whiteout was written).
    let audit = stateless_ok(
        b.port,
        conv,
        "filestore_grep",
        json!({"pattern": "\"/repo/README.md\"", "path": "/audit", "fixed": true, "output_mode": "content"}),
    );
    assert!(audit.contains("filestore_execute"), "{audit}");

    assert_eq!(
        crate::support::hostile_tree::snapshot(&lower, &skip),
        before,
        "the lower directory changed"
    );

    // The host's step: the conversation's changes as a patch, then applied onto the
    // directory; both replicas then see the applied tree with no change left.
    let host = |args: &[&str]| {
        let out = std::process::Command::new(BIN)
            .args(args)
            .args(["--state", state.to_str().unwrap(), "--conversation", conv])
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let patch = host(&["diff", &cow]);
    assert!(patch.contains("+++ b/new.txt") && patch.contains("--- a/README.md"), "{patch}");
    assert!(host(&["apply", &cow, "--check"]).contains("\"conflicts\":[]"));
    host(&["apply", &cow]);
    assert_eq!(std::fs::read_to_string(lower.join("src/a.txt")).unwrap(), "A2\n");
    assert_eq!(std::fs::read_to_string(lower.join("new.txt")).unwrap(), "new\n");
    assert!(!lower.join("README.md").exists() && !lower.join("many/3.txt").exists());
    assert!(diff(b.port).0.is_empty(), "a change is left after the apply");
    assert!(
        stateless_ok(a.port, conv, "filestore_read", json!({"path": "/repo/new.txt"}))
            .contains("new")
    );
}

/// A state store reachable through a mount would show every conversation to every
/// agent: `serve` refuses a mounted directory holding the store (or inside it), and
/// leaves out the default `/workspace` (the current directory) when it holds it.
#[test]
fn a_state_store_is_never_reachable_through_a_mount() {
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let out = std::process::Command::new(BIN)
        .args(["serve", "--state", state.to_str().unwrap(), "--mount"])
        .arg(format!("/data={}:ro", root.path().display()))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("lie inside one another") && err.contains("/data"),
        "{err}"
    );
    let server = Replica::start(BIN, root.path(), &["--state", state.to_str().unwrap()]);
    assert!(server.stderr().contains("holds the --state store"), "{}", server.stderr());
    let m = stateless(
        server.port,
        Some("c"),
        "tools/call",
        json!({"name": "filestore_ls", "arguments": {"path": "/workspace"}}),
    );
    assert_eq!(m["result"]["isError"], true, "{m}");
}
