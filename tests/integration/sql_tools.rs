//! What the tests of the database tool handlers (`postgres`, `mysql`) share: a
//! session with a tool registry and the results mount, a configuration loaded with
//! one secret variable, and the outcome of an invocation read as data or failure.

use std::sync::Arc;

use filestore::tools::{InvokeContext, InvokeOutcome, InvokeStatus, ToolRegistry, results_mount};
use filestore::{Session, SessionOptions};
use serde_json::Value;

use crate::common::engine;

/// A session with `registry`'s handlers and `/tool_calls`.
pub fn session(registry: ToolRegistry) -> Session {
    let options = SessionOptions { tools: Arc::new(registry), ..Default::default() };
    engine().session_with(vec![results_mount()], options).expect("session")
}

/// Loads `yaml` as `tools.yaml`, with the variable `secret_var` set to `secret`
/// (the database password) and no other.
pub fn load_with_secret(s: &mut Session, yaml: &str, secret_var: &str, secret: &str) {
    let files = vec![("tools.yaml".to_string(), yaml.to_string())];
    match s.load_config_with_env(&files, &|k| (k == secret_var).then(|| secret.to_string())) {
        Ok(Ok(_)) => {}
        Ok(Err(issues)) => panic!("config: {issues:?}"),
        Err(e) => panic!("load: {e}"),
    }
}

/// Invokes `tool` with `args` and no claims.
pub fn invoke(s: &mut Session, tool: &str, args: Value) -> InvokeOutcome {
    s.invoke(tool, &args, &InvokeContext::default()).expect("invoke")
}

/// The data of a completed invocation.
pub fn data(out: &InvokeOutcome) -> Value {
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    out.envelope["data"].clone()
}

/// The text of an invocation that did not complete.
pub fn failure(out: &InvokeOutcome) -> String {
    assert_ne!(out.status, InvokeStatus::Completed, "expected a failure: {}", out.text);
    out.text.clone()
}
