//! Agent configurations through the host library, with a real upstream MCP server
//! (the Python SDK server of `tests/mcp_python/upstream_server.py`, run by the venv
//! the MCP tests use). `tests/mcp_python/test_agent.py` covers `serve --agent` with a
//! real client; this covers what the library user sees: the catalog crossing the WIT,
//! approval and skill activation of upstream tools, re-resolution, and errors.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use filestore::agent::{Agent, AgentError};
use filestore::tools::{InvokeContext, InvokeStatus, ToolRegistry};
use filestore::volumes::skills::SkillsVolume;
use filestore::{MountSpec, Session, SessionOptions};
use serde_json::{Value, json};

use crate::common::engine;

fn upstream_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/mcp_python/upstream_server.py")
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
    assert_eq!(done.envelope["data"], json!({"result": 3}));
    let stored = done.result_path.unwrap();
    assert!(stored.starts_with("/tool_calls/add/"), "{stored}");
    assert_eq!(upstream_calls(tmp.path()), ["add"]);
    let said = invoke(&mut s, "say", json!({"text": "hi"}));
    assert_eq!(said.envelope["data"], "hi");
    // Re-loading re-resolves against the live catalog; the connection is reused.
    agent.load_into(&mut s).unwrap();
    assert_eq!(invoke(&mut s, "say", json!({"text": "again"})).envelope["data"], "again");
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
    .replace("timeout: 5s", "timeout: 2s");
    let agent = Agent::from_text(engine(), "agent.yaml", text, tmp.path()).unwrap();
    let mut s = session(&agent, Vec::new());
    agent.load_into(&mut s).unwrap();
    let out = invoke(&mut s, "garble", json!({}));
    assert_eq!(out.status, InvokeStatus::Failed, "{out:?}");
    let e = out.error.expect("a failed call has an error").to_string();
    assert!(e.contains("did not answer tool 'garble' within 2"), "{e}");
    assert!(
        e.contains("meanwhile its stdout had 2 lines that are not a JSON-RPC message and were ignored, the last: \"DEBUG: garble sent its reply\" (not JSON)"),
        "{e}"
    );
    // The connection stays usable, and an answered call mentions nothing.
    let said = invoke(&mut s, "say", json!({"text": "still here"}));
    assert_eq!(said.envelope["data"], "still here", "{said:?}");
}
