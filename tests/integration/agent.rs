//! Agent configurations through the host library, with a real upstream MCP server
//! (the Python SDK server of `tests/mcp_python/upstream_server.py`, run by the venv
//! the MCP tests use). `tests/mcp_python/test_agent.py` covers `serve --agent` with a
//! real client; this covers what the library user sees: the catalog crossing the WIT,
//! approval and skill activation of upstream tools, re-resolution, and errors.

use filestore::handlers::ShippedHandlers as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use filestore::agent::{Agent, AgentError};
use filestore::tools::{InvokeContext, InvokeStatus, ToolRegistry};
use filestore::volumes::skills::SkillsVolume;
use filestore::{MountSpec, Session, SessionOptions};
use serde_json::{Value, json};

use crate::common::engine;

fn upstream_script() -> PathBuf {
    crate::common::repo_root().join("tests/mcp_python/upstream_server.py")
}

fn agent_text(dir: &Path, tools: &str) -> String {
    format!(
        "name: helper\nservers:\n  py:\n    command: {py:?}\n    args: [{script:?}]\n    timeout: 5s\n    env: {{UPSTREAM_LOG: {log:?}}}\n{tools}",
        py = crate::mcp::python().display().to_string(),
        script = upstream_script().display().to_string(),
        log = dir.join("upstream.log").display().to_string(),
    )
}

/// A session whose registry has `agent`'s providers, with `mounts` and /tool_calls.
fn session(agent: &Agent, mut mounts: Vec<MountSpec>) -> Session {
    let mut registry = ToolRegistry::with_builtin_handlers();
    agent.install(&mut registry);
    mounts.push(filestore::tools::results_mount());
    engine()
        .session_with(mounts, SessionOptions { tools: Arc::new(registry), ..Default::default() })
        .unwrap()
}

fn invoke(s: &mut Session, tool: &str, args: Value) -> filestore::tools::InvokeOutcome {
    s.invoke(tool, &args, &InvokeContext::default()).unwrap()
}

fn upstream_calls(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("upstream.log"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["tool"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn catalog_crosses_the_wit_and_approval_gates_upstream_calls() {
    let tmp = tempfile::tempdir().unwrap();
    let text = agent_text(
        tmp.path(),
        "tools:\n  - {type: mcp, integration: py, action: add, connection: default, name: add, requiresApproval: true}\n  - {type: mcp, integration: py, action: echo, connection: default, name: say}\n",
    );
    let agent = Agent::from_text(engine(), "agent.yaml", text, tmp.path()).unwrap();
    assert_eq!(agent.report.servers.len(), 1);
    assert_eq!(agent.report.entries[1].call_ref.as_deref(), Some("tools.mcp.py.echo.default"));
    let mut s = session(&agent, Vec::new());
    let report = agent.load_into(&mut s).unwrap();
    assert_eq!(report.offered, ["add", "say"]);
    let specs = s.tool_specs().unwrap();
    let add = specs.iter().find(|t| t["name"] == "add").unwrap();
    assert_eq!(add["description"], "Adds two integers.");
    assert_eq!(add["inputSchema"]["properties"]["a"]["type"], "integer");
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    // Only the agent's tools: the built-ins it does not list are refused.
    assert_eq!(specs.len(), 2, "{specs:#?}");
    let e = s.call("filestore_ls", &json!({"path": "/"})).unwrap_err();
    assert!(e.to_string().contains("not among the tools of agent 'helper'"), "{e}");
    // Approval: nothing reaches the upstream until approved.
    let pending = invoke(&mut s, "add", json!({"a": 1, "b": 2}));
    assert_eq!(pending.status, InvokeStatus::Pending);
    assert!(upstream_calls(tmp.path()).is_empty());
    let done = s.approve(&pending.approval_id.unwrap()).unwrap();
    assert_eq!(done.status, InvokeStatus::Completed, "{:?}", done.error);
    // The SDK's `{"result": 3}` of the text `3` is unwrapped: the text form is `3` too.
    assert_eq!(done.envelope["data"], json!(3));
    assert_eq!(done.text, "3");
    let stored = done.result_path.unwrap();
    assert!(stored.starts_with("/tool_calls/add/"), "{stored}");
    assert_eq!(upstream_calls(tmp.path()), ["add"]);
    let said = invoke(&mut s, "say", json!({"text": "hi"}));
    assert_eq!(said.envelope["data"], "hi");
    // Re-loading re-resolves against the live catalog; the connection is reused.
    agent.load_into(&mut s).unwrap();
    assert_eq!(invoke(&mut s, "say", json!({"text": "again"})).envelope["data"], "again");
}

/// A ref in its function-name form (`tools__mcp__py__echo__default`, `__` for each
/// `.`) is the dotted ref: through `filestore call --agent` it resolves, the tool is
/// named as the dotted ref's (`py__echo`) and the upstream server runs the call.
#[test]
fn a_ref_in_its_function_name_form_runs_through_call() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("agent.yaml");
    std::fs::write(&file, agent_text(tmp.path(), "tools:\n  - tools__mcp__py__echo__default\n"))
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
        .args(["call", "--agent"])
        .arg(&file)
        .args(["py__echo", r#"{"text": "by its function name"}"#])
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["data"], "by its function name", "{answer}");
    assert_eq!(upstream_calls(tmp.path()), ["echo"]);
}

/// `call --agent --text` prints an upstream tool's text as the tool gave it: also
/// when the result is large enough to be stored in /tool_calls (the stored file holds
/// it as a JSON string), and for a value the SDK wraps as structured content.
#[test]
fn call_text_prints_an_upstream_tools_text() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("agent.yaml");
    let tools = "tools:\n  - {type: mcp, integration: py, action: echo, connection: default, name: say}\n  - {type: mcp, integration: py, action: add, connection: default, name: add}\n";
    std::fs::write(&file, agent_text(tmp.path(), tools)).unwrap();
    // About 29,000 tokens: past the 20,000 at which a result is stored, not inlined.
    let said: String =
        (0..2500).map(|i| format!("line {i:04} of a long answer from the upstream\n")).collect();
    let call_tool = |tool: &str, args: Value, text: bool| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_filestore"));
        c.args(["call", "--agent"]).arg(&file).args([tool, &args.to_string()]);
        if text {
            c.arg("--text");
        }
        let out = c.current_dir(tmp.path()).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let call = |text: bool| call_tool("say", json!({"text": said}), text);
    let answer: Value = serde_json::from_str(&call(false)).unwrap();
    assert_eq!(answer["offloaded"], true, "stored, so the whole result is read back");
    assert_eq!(answer["data"], said.as_str());
    assert_eq!(call(true), said, "--text prints the text, not its JSON");
    // A number the SDK wraps as `{"result": 3}` beside the text `3` prints as `3`.
    assert_eq!(call_tool("add", json!({"a": 1, "b": 2}), true), "3");
}

#[test]
fn a_skill_activates_an_available_upstream_tool() {
    let tmp = tempfile::tempdir().unwrap();
    let skill = tmp.path().join("skills/greeter");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: greeter\ndescription: Greets.\nallowed-tools: greet\n---\nUse greet.\n",
    )
    .unwrap();
    let text = agent_text(
        tmp.path(),
        "tools: [filestore_read]\navailable:\n  - {type: mcp, integration: py, action: echo, connection: default, name: greet}\n",
    );
    let agent = Agent::from_text(engine(), "agent.yaml", text, tmp.path()).unwrap();
    let sv = SkillsVolume::load_dir(tmp.path().join("skills")).unwrap();
    let mut s = session(&agent, vec![MountSpec::new("/skills", Arc::new(sv.volume())).read_only()]);
    let report = agent.load_into(&mut s).unwrap();
    assert_eq!(report.available, ["greet"]);
    let names = |s: &mut Session| -> Vec<String> {
        s.tool_specs().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
    };
    assert!(!names(&mut s).contains(&"greet".to_string()));
    let refused = invoke(&mut s, "greet", json!({"text": "x"}));
    assert_eq!(refused.status, InvokeStatus::Failed);
    s.call("filestore_read", &json!({"path": "/skills/greeter/SKILL.md"})).unwrap();
    assert!(names(&mut s).contains(&"greet".to_string()));
    assert_eq!(invoke(&mut s, "greet", json!({"text": "hey"})).envelope["data"], "hey");
}

#[test]
fn connection_problems_are_located_at_the_entry() {
    let tmp = tempfile::tempdir().unwrap();
    let text = "servers:\n  gone:\n    command: ./no-such-server\n  off:\n    url: http://127.0.0.1:9/mcp\n    connections:\n      c: {disabled: true}\n  secret:\n    url: http://127.0.0.1:9/mcp\n    headers: {Authorization: \"Bearer ${FILESTORE_TEST_UNSET_TOKEN}\"}\ntools:\n  - tools.mcp.gone.x.default\n";
    let load = |text: &str| {
        let agent = Agent::from_text(engine(), "a.yaml", text.to_string(), tmp.path()).unwrap();
        let mut s = session(&agent, Vec::new());
        match agent.load_into(&mut s) {
            Err(AgentError::Config(issues)) => {
                assert_eq!(issues.len(), 1, "{issues:?}");
                issues[0].rendered.clone()
            }
            other => panic!("{other:?}"),
        }
    };
    let e = load(text);
    assert!(e.starts_with("a.yaml: document 1, line 12, column 5: field 'tools[0]'"), "{e}");
    assert!(e.contains("cannot start") && e.contains("no-such-server"), "{e}");
    let e = load(&text.replace("tools.mcp.gone.x.default", "tools.mcp.off.x.c"));
    assert!(e.contains("is not active") && e.contains("disabled"), "{e}");
    let e = load(&text.replace("tools.mcp.gone.x.default", "tools.mcp.secret.x.default"));
    assert!(e.contains("'FILESTORE_TEST_UNSET_TOKEN'") && e.contains("is not active"), "{e}");
    // Structural errors come from the component's check, before anything connects.
    let e = Agent::from_text(
        engine(),
        "a.yaml",
        "tools: [tools.mcp.nope.x.default]\n".into(),
        tmp.path(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("integration 'nope' is not a server"), "{e}");
}

#[test]
fn a_reply_the_client_cannot_parse_is_named_in_the_timeout() {
    // A stdio server that prints on stdout (a cut-off reply, a log line): the client
    // skips both lines, so the call waits out its timeout, and the error quotes what
    // was skipped instead of only saying the server did not answer.
    let tmp = tempfile::tempdir().unwrap();
    let text = agent_text(
        tmp.path(),
        "tools:\n  - {type: mcp, integration: py, action: garble, connection: default, name: garble}\n  - {type: mcp, integration: py, action: echo, connection: default, name: say}\n",
    )
    // The timeout bounds the connection too: long enough for a loaded machine to
    // start Python (2 s was not, on a shared CI machine), which the call then waits out.
    .replace("timeout: 5s", "timeout: 10s");
    let agent = Agent::from_text(engine(), "agent.yaml", text, tmp.path()).unwrap();
    let mut s = session(&agent, Vec::new());
    agent.load_into(&mut s).unwrap();
    let out = invoke(&mut s, "garble", json!({}));
    assert_eq!(out.status, InvokeStatus::Failed, "{out:?}");
    let e = out.error.expect("a failed call has an error").to_string();
    assert!(e.contains("did not answer tool 'garble' within 10"), "{e}");
    assert!(
        e.contains("meanwhile its stdout had 2 lines that are not a JSON-RPC message and were ignored, the last: \"DEBUG: garble sent its reply\" (not JSON)"),
        "{e}"
    );
    // The connection stays usable, and an answered call mentions nothing.
    let said = invoke(&mut s, "say", json!({"text": "still here"}));
    assert_eq!(said.envelope["data"], "still here", "{said:?}");
}

/// The variable the misbehaving upstreams' `API_KEY` is resolved from.
const KEY_VAR: &str = "FILESTORE_TEST_UPSTREAM_KEY";
/// The credential they leak: long, with characters JSON and Rust quoting escape.
const KEY: &str = r#"sk-live-8f3a"9b2c\0d1e-7f6a5b4c3d2e1f00-secret"#;
/// What stands in for it once redacted.
const PLACEHOLDER: &str = "${FILESTORE_TEST_UPSTREAM_KEY}";

/// An agent whose server `py` runs the upstream in `mode` (see upstream_server.py)
/// with `API_KEY: "${FILESTORE_TEST_UPSTREAM_KEY}"`, that variable being [`KEY`]. Its
/// timeout (connect, and each call) leaves a loaded machine time to start Python.
fn leaky_agent(dir: &Path, mode: &str, tools: &str) -> Agent {
    let text = agent_text(dir, tools)
        .replace("timeout: 5s", "timeout: 10s")
        .replace("env: {", &format!("env: {{API_KEY: \"${{{KEY_VAR}}}\", UPSTREAM_MODE: {mode}, "));
    let env: filestore::providers::mcp::EnvLookup =
        Arc::new(|k: &str| (k == KEY_VAR).then(|| KEY.to_string()));
    Agent::from_text_with_env(engine(), "agent.yaml", text, dir, env).unwrap()
}

/// Fails when `text` holds [`KEY`], or any 8 characters of it, as written or
/// escaped in JSON.
fn assert_no_key(what: &str, text: &str) {
    let escaped = serde_json::to_string(KEY).unwrap();
    for form in [KEY, &escaped[1..escaped.len() - 1]] {
        let chars: Vec<char> = form.chars().collect();
        for piece in chars.windows(8) {
            let piece: String = piece.iter().collect();
            assert!(!text.contains(&piece), "{what} holds '{piece}' of the key: {text}");
        }
    }
}

fn error_of(out: &filestore::tools::InvokeOutcome) -> String {
    assert_eq!(out.status, InvokeStatus::Failed, "{out:?}");
    out.error.as_ref().expect("a failed call has an error").to_string()
}

/// What an upstream prints during a call that times out (the
/// quoted stdout line, the stderr tail) and what a failed call returns (as JSON)
/// never carries the credential it was given.
#[test]
fn upstream_text_in_call_errors_is_redacted() {
    let tmp = tempfile::tempdir().unwrap();
    let agent = leaky_agent(tmp.path(), "leaky", "tools:\n  - tools.mcp.py.*.default\n");
    let mut s = session(&agent, Vec::new());
    agent.load_into(&mut s).unwrap();
    // The quoted stdout line: the key whole, then one the quote's cut splits.
    for pad in [0, 170] {
        let e = error_of(&invoke(&mut s, "py__leak_stdout", json!({"pad": pad})));
        assert!(e.contains("did not answer tool 'leak_stdout' within "), "{e}");
        assert!(e.contains("meanwhile its stdout had 1 line"), "{e}");
        assert_no_key(&format!("the stdout quote (pad {pad})"), &e);
        if pad == 0 {
            assert!(e.contains(&format!("DEBUG: using API_KEY={PLACEHOLDER}")), "{e}");
        }
    }
    let e = error_of(&invoke(&mut s, "py__leak_stderr", json!({})));
    assert!(
        e.contains(&format!("its stderr ends with: error: the API rejected key {PLACEHOLDER}")),
        "{e}"
    );
    assert_no_key("the stderr tail", &e);
    // isError with a resource block: the content as JSON, the key escaped in it.
    let e = error_of(&invoke(&mut s, "py__leak_error", json!({})));
    assert!(e.contains("tool 'leak_error' failed") && e.contains(PLACEHOLDER), "{e}");
    assert_no_key("the isError content", &e);
}

/// A server that prints its credential at start and then hangs
/// or exits: the connection's error (the entry's, for a required ref) and the
/// start-up warning (for an optional one) are redacted.
#[test]
fn upstream_text_at_start_up_is_redacted() {
    for (mode, says) in [
        ("leak-at-start-then-hang", "did not connect, initialize and list its tools within 10 s"),
        ("leak-at-start-then-exit", "initialize failed"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let agent = leaky_agent(tmp.path(), mode, "tools:\n  - tools.mcp.py.echo.default\n");
        let mut s = session(&agent, Vec::new());
        let e = match agent.load_into(&mut s) {
            Err(AgentError::Config(issues)) => issues[0].rendered.clone(),
            other => panic!("{mode}: {other:?}"),
        };
        assert!(e.contains(says) && e.contains(&format!("API_KEY={PLACEHOLDER}")), "{mode}: {e}");
        assert_no_key(mode, &e);
        let optional = "tools:\n  - {type: mcp, integration: py, action: echo, connection: default, optional: true}\n";
        let agent = leaky_agent(tmp.path(), mode, optional);
        let mut s = session(&agent, Vec::new());
        let report = agent.load_into(&mut s).unwrap();
        let warnings = report.warnings.join("\n");
        assert!(warnings.contains(says) && warnings.contains(PLACEHOLDER), "{mode}: {warnings}");
        assert_no_key(mode, &warnings);
    }
}

/// The catalog (`check-connection`'s answer) is redacted too: a
/// server that describes a tool with its credential (a connection string).
#[test]
fn upstream_catalogs_are_redacted() {
    let tmp = tempfile::tempdir().unwrap();
    let agent = leaky_agent(tmp.path(), "leaky", "tools:\n  - tools.mcp.py.leak_error.default\n");
    let mut s = session(&agent, Vec::new());
    agent.load_into(&mut s).unwrap();
    let specs = serde_json::to_string(&s.tool_specs().unwrap()).unwrap();
    assert!(specs.contains(&format!("Connects with key {PLACEHOLDER}.")), "{specs}");
    assert_no_key("the tool specs", &specs);
}

/// A server's stderr is read to its end whatever it holds: bytes that are not
/// UTF-8 and a 1 MB line do not stop the reader (which would leave the server's
/// writes failing or blocked), and the tail quoted stays short.
#[test]
fn an_upstream_stderr_is_read_to_its_end() {
    let tmp = tempfile::tempdir().unwrap();
    let agent = leaky_agent(tmp.path(), "leaky", "tools:\n  - tools.mcp.py.flood.default\n");
    let mut s = session(&agent, Vec::new());
    agent.load_into(&mut s).unwrap();
    // It floods, then hangs: the timeout quotes the last line of its stderr.
    let e = error_of(&invoke(&mut s, "py__flood", json!({"kb": 1024})));
    assert!(e.contains("did not answer tool 'flood' within "), "{e}");
    assert!(e.ends_with("its stderr ends with: after the flood"), "{e}");
    assert!(e.len() < 1000, "{} bytes", e.len());
}

/// The log messages (`notifications/message`) a client was sent.
#[derive(Clone, Default)]
struct Logs(Arc<std::sync::Mutex<Vec<String>>>);

#[allow(deprecated)] // logging: the server still sends it (see filestore::mcp::logging)
impl rmcp::ClientHandler for Logs {
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) {
        let text = params.data.as_str().map(str::to_string);
        self.0.lock().unwrap().push(text.unwrap_or_else(|| params.data.to_string()));
    }
}

impl Logs {
    fn all(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// Through `filestore serve --agent` and an rmcp client, a hostile upstream cannot
/// flood the client or leak another's secret: its 12 MB description,
/// 100,000-character title and 20,000-character name leave `tools/list` small; the start-up warnings (sent to the client as log
/// messages, and on stderr) are short, and redacted of another upstream's
/// credential, which it printed as it failed to start.
#[test]
fn serve_bounds_and_redacts_what_upstreams_send() {
    use rmcp::ServiceExt;
    let tmp = tempfile::tempdir().unwrap();
    let server = |mode: &str, env: &str| {
        format!(
            "    command: {py:?}\n    args: [{script:?}]\n    timeout: 60s\n    env: {{UPSTREAM_MODE: {mode}{env}}}\n",
            py = crate::mcp::python().display().to_string(),
            script = upstream_script().display().to_string(),
        )
    };
    let yaml = format!(
        "name: bounded\nservers:\n  huge:\n{}  leaky:\n{}tools:\n  - tools.mcp.huge.*.default\n  - {{type: mcp, integration: leaky, action: echo, connection: default, optional: true}}\n",
        server("huge", ""),
        server("leak-at-start-then-exit", &format!(", API_KEY: \"${{{KEY_VAR}}}\"")),
    );
    std::fs::write(tmp.path().join("agent.yaml"), yaml).unwrap();
    let err_path = tmp.path().join("serve.err");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_filestore"));
    cmd.args(["serve", "--agent", "agent.yaml", "--mount", "/workspace=mem:"])
        .current_dir(tmp.path())
        .env(KEY_VAR, KEY);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let logs = Logs::default();
    let tools = runtime.block_on(async {
        let (transport, _) = rmcp::transport::TokioChildProcess::builder(cmd)
            .stderr(std::fs::File::create(&err_path).unwrap())
            .spawn()
            .unwrap();
        let client = logs.clone().serve(transport).await.expect("serve --agent starts");
        let tools = client.list_all_tools().await.unwrap();
        // Sent once the session is initialised; not a timing assertion: a bound on
        // the wait, so a regression fails instead of hanging.
        for _ in 0..600 {
            if logs.all().len() >= 3 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let _ = client.cancel().await;
        tools
    });
    let listed = serde_json::to_string(&tools).unwrap();
    assert!(listed.len() < 64 * 1024, "tools/list is {} bytes", listed.len());
    let verbose = tools.iter().find(|t| t.name == "huge__verbose").expect("verbose is offered");
    let d = verbose.description.as_deref().unwrap();
    assert!(d.ends_with("… (the description is cut here: it has 12000000 bytes)"), "{}", d.len());
    assert_eq!(verbose.title.as_deref().map(|t| t.chars().count()), Some(257));
    assert!(!listed.contains("nnnnnnnnnn"), "the long name is left out");
    let logs = logs.all();
    let said = logs.join("\n");
    for want in [
        "has a name of 20000 characters, over the limit of 128; it is left out",
        "has a description of 12000000 bytes; it is cut to 16384",
        "optional and was left out",
    ] {
        assert!(said.contains(want), "no log message says '{want}': {said}");
    }
    assert!(said.contains(PLACEHOLDER), "{said}");
    assert_no_key("the log messages", &said);
    let stderr = std::fs::read_to_string(&err_path).unwrap();
    assert_no_key("serve's stderr", &stderr);
    for line in logs.iter().map(String::as_str).chain(stderr.lines()) {
        let start: String = line.chars().take(200).collect();
        assert!(line.len() < 4096, "a line of {} bytes: {start}...", line.len());
    }
}

/// A warning made of an upstream's answer (its `tools/list`
/// failing after `list_changed`, quoting the credential) is redacted.
#[test]
fn upstream_text_in_warnings_is_redacted() {
    let tmp = tempfile::tempdir().unwrap();
    let agent =
        leaky_agent(tmp.path(), "leaky", "tools:\n  - tools.mcp.py.break_listing.default\n");
    let mut s = session(&agent, Vec::new());
    agent.load_into(&mut s).unwrap();
    assert_eq!(invoke(&mut s, "py__break_listing", json!({})).envelope["data"], "broken");
    // The re-listing runs on its own after the notification; not a timing
    // assertion: a bound on the wait, so a regression fails instead of hanging.
    let mut warnings = Vec::new();
    for _ in 0..600 {
        warnings = agent.provider_warnings();
        if !warnings.is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let said = warnings.join("\n");
    assert!(said.contains("re-listing tools after list_changed"), "{said}");
    assert!(said.contains(&format!("the backend refused key {PLACEHOLDER}")), "{said}");
    assert_no_key("the provider's warnings", &said);
}

/// The processes whose environment has `UPSTREAM_LOG` set to `log`: the upstream
/// servers started for one test's agent.
fn upstream_pids(log: &Path) -> Vec<u32> {
    let wanted = format!("UPSTREAM_LOG={}", log.display());
    std::fs::read_dir("/proc")
        .expect("reading /proc (Linux)")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|b| *b == 0).any(|v| v == wanted.as_bytes()))
        })
        .collect()
}

/// `filestore serve --agent` with an upstream stdio server ends cleanly when its
/// client closes stdin: exit status 0, nothing panicked, and the upstream stopped and
/// waited for before the server exits (it panicked, "Cannot start a runtime from
/// within a runtime", exit 101, the upstream left running).
#[test]
fn serve_with_an_upstream_ends_cleanly_when_stdin_closes() {
    let tmp = tempfile::tempdir().unwrap();
    let text = agent_text(
        tmp.path(),
        "tools:\n  - {type: mcp, integration: py, action: echo, connection: default, name: say}\n",
    );
    // A start-up bound, not a timing check: Python starts slowly beside other tests.
    let text = text.replace("timeout: 5s", "timeout: 60s");
    std::fs::write(tmp.path().join("agent.yaml"), text).unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_filestore"));
    command
        .args(["serve", "--agent", "agent.yaml", "--mount", "/workspace=mem:"])
        .current_dir(tmp.path());
    let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(command);
    let said = client.call_tool("say", json!({"text": "hello"}));
    assert_ne!(said["isError"], true, "{said}");
    assert_eq!(upstream_calls(tmp.path()), ["echo"]);
    let log = tmp.path().join("upstream.log");
    let running = upstream_pids(&log);
    assert_eq!(running.len(), 1, "the upstream runs during the session: {running:?}");
    let (status, stderr) = client.close();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status.code(), Some(0), "{stderr}");
    // Waited for by the server (reaped), not left to stop after it: gone now.
    let pid = running[0];
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the upstream (pid {pid}) outlived the server: {stderr}"
    );
}

/// `serve --agent` ended by `SIGTERM` (as a client's shutdown sequence ends a server
/// still busy after its input closed) stops every upstream's process group before it
/// exits: here a process the upstream's `sh -c` wrapper left behind, which neither
/// the signal nor the end of `serve` would reach.
#[test]
fn sigterm_stops_the_upstreams_process_groups() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = tempfile::tempdir().unwrap();
    let pid_file = tmp.path().join("sleeper.pid");
    let wrapper = format!(
        "sleep 300 & echo $! > '{}'; exec '{}' '{}'",
        pid_file.display(),
        crate::mcp::python().display(),
        upstream_script().display(),
    );
    let yaml = format!(
        "name: wrapped\nservers:\n  py:\n    command: /bin/sh\n    args: [\"-c\", {wrapper:?}]\n    timeout: 60s\ntools:\n  - tools.mcp.py.echo.default\n"
    );
    std::fs::write(tmp.path().join("agent.yaml"), yaml).unwrap();
    let mut serve = std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
        .args(["serve", "--agent", "agent.yaml", "--mount", "/workspace=mem:"])
        .current_dir(tmp.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Bounds on waits, not timing assertions: a regression fails instead of hanging.
    let mut sleeper = None;
    for _ in 0..600 {
        sleeper =
            std::fs::read_to_string(&pid_file).ok().and_then(|t| t.trim().parse::<u32>().ok());
        if sleeper.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let sleeper = sleeper.expect("the upstream's wrapper started");
    let alive = || {
        std::fs::read_to_string(format!("/proc/{sleeper}/stat")).is_ok_and(|stat| {
            stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z'))
        })
    };
    assert!(alive(), "the sleeper runs while serve does");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &serve.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = serve.wait().unwrap();
    assert_eq!((status.code(), status.signal()), (Some(143), None), "{status}");
    for _ in 0..100 {
        if !alive() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let orphaned = alive();
    if orphaned {
        let _ = std::process::Command::new("kill").args(["-KILL", &sleeper.to_string()]).status();
    }
    assert!(!orphaned, "the upstream's process group outlived serve");
}
