//! The MCP server (`filestore serve`, `filestore::mcp`).
//!
//! - `python_sdk_client`: an MCP client we did not write — the Python `mcp` SDK —
//!   drives the real binary over stdio and streamable HTTP (tests/mcp_python/). The
//!   virtual environment is `$FILESTORE_PY_VENV` or `~/.cache/filestore/venv`; it is
//!   created (`python3 -m venv` + `pip install mcp`) when missing.
//! - in-process tests: an rmcp client connected to a `FilestoreServer` over an
//!   in-memory duplex pipe, on memory volumes.
//! - CLI: `serve` refuses what it cannot do with a clear error.

/// The Python MCP SDK the independent-client tests are written against (pinned so a
/// new SDK release cannot change what CI checks without a commit).
const MCP_SDK: &str = "mcp==2.3.0";

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

use crate::common::engine;

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("repo root").to_path_buf()
}

/// The venv's python, creating the venv with the `mcp` SDK when it is missing.
fn python() -> PathBuf {
    let venv = std::env::var_os("FILESTORE_PY_VENV").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/filestore/venv")
    });
    let py = venv.join("bin/python");
    let has_mcp = |py: &PathBuf| {
        py.exists()
            && Command::new(py)
                .args(["-c", "import mcp.client.streamable_http"])
                .status()
                .is_ok_and(|s| s.success())
    };
    if !has_mcp(&py) {
        let ok = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "python3 -m venv {} failed (is python3-venv installed?)", venv.display());
        let ok = Command::new(&py)
            .args(["-m", "pip", "install", "--quiet", MCP_SDK])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "pip install {MCP_SDK} into {} failed", venv.display());
        assert!(has_mcp(&py), "the mcp SDK is still not importable from {}", py.display());
    }
    py
}

#[test]
fn python_sdk_client() {
    let out = Command::new(python())
        .args(["-m", "unittest", "discover", "-s", "tests/mcp_python", "-v"])
        .current_dir(repo_root())
        .env("FILESTORE_BIN", BIN)
        .env("PYTHONWARNINGS", "ignore::ResourceWarning")
        .output()
        .expect("running python");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Echo the per-test lines so a CI log shows what the independent client checked.
    for line in stderr.lines().filter(|l| l.contains(" ... ") || l.starts_with("Ran ")) {
        eprintln!("{line}");
    }
    assert!(out.status.success(), "the Python MCP client tests failed:\n{stderr}");
    assert!(stderr.contains("Ran "), "unittest ran nothing:\n{stderr}");
}

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
    assert_eq!(e.structured_content.as_ref().unwrap()["error"]["kind"], "read-only");

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
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--mount", "/s=mem:"])
        .current_dir(tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(v) = serde_json::from_str(&line) {
                let _ = tx.send(v);
            }
        }
    });
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    writeln!(stdin, "{init}").unwrap();
    writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .unwrap();
    let big = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "filestore_write",
        "arguments": {"path": "/s/big.txt", "content": "x".repeat(17 << 20)}}});
    writeln!(stdin, "{big}").unwrap();
    writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "id": 3, "method": "ping"})).unwrap();
    stdin.flush().unwrap();
    let mut answers = std::collections::BTreeMap::new();
    while answers.len() < 3 {
        // Not a timing assertion: a guard so a regression fails instead of hanging.
        let v = rx.recv_timeout(std::time::Duration::from_secs(120)).expect("an answer");
        if let Some(id) = v["id"].as_i64() {
            answers.insert(id, v);
        }
    }
    drop(stdin);
    let _ = child.wait();
    let err = &answers[&2]["error"];
    assert_eq!(err["code"], -32600, "{err}");
    let msg = err["message"].as_str().unwrap();
    assert!(msg.contains("too-large") && msg.contains("at most"), "{msg}");
    assert_eq!(answers[&3]["result"], json!({}), "the session goes on");
}
