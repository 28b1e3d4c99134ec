//! The shared contract suite (`tests/contract/suite.json`) through the Rust host.
//!
//! The suite is what every host of the component runs: fixtures, and call sequences
//! over them. This module runs it through the Rust host (memory volumes and real
//! directories) and produces the answers the other hosts must match exactly
//! (`node_host`, `python_host`); `compare` counts identical answers.
//!
//! An answer is one JSON value per step:
//! - a filestore call: `{"json", "text"}`, or `{"error": {"kind", "message"}}`;
//! - a typed call (`{"typed": op, "args"}`): `{"typed": value}` (see `contract_typed`);
//! - `tool_specs`, `list_tools`, `tools_version`: `{"json"}`; `system_prompt`: `{"text"}`;
//! - `load_config`: `{"rendered", "v2_yaml", "tools"}` or `{"config_errors": [rendered...]}`;
//! - `invoke`, `approve`: `{"status", "envelope", "text", "error", "approval_id",
//!   "result_path", "offloaded"}`; `reject`, `select_toolset`, `set_offload_tokens`,
//!   `enable_shell`: `{"ok": true}`; any failure of those: `{"error": ...}`.
//!
//! Modification times the suite did not set (files written during a case, memory
//! volumes) are replaced by `"<recent>"`, and the shell's `duration_ms` by
//! `"<duration>"`, before answers are compared.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use filestore::tools::{InvokeContext, InvokeOutcome, InvokeStatus, ToolError, ToolRegistry};
use filestore::volumes::{MemoryVolume, SharedVolume, dir::DirVolume};
use filestore::{MountSpec, Session, SessionOptions};
use serde_json::{Value, json};

use crate::common::{engine, repo_root};

/// The path of the suite file.
pub fn suite_path() -> PathBuf {
    repo_root().join("tests/contract/suite.json")
}

/// The parsed suite.
pub fn suite() -> Value {
    let text = std::fs::read_to_string(suite_path()).expect("tests/contract/suite.json");
    serde_json::from_str(&text).expect("the suite is JSON")
}

/// A fixture file's bytes (see the suite's `about`); `None` for a link.
fn content(spec: &Value) -> Option<Vec<u8>> {
    match spec {
        Value::String(s) => Some(s.as_bytes().to_vec()),
        Value::Object(o) if o.contains_key("hex") => {
            let h = o["hex"].as_str().expect("hex");
            Some(
                (0..h.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
                    .collect(),
            )
        }
        Value::Object(o) if o.contains_key("lines") => {
            let p = o["lines"].as_str().unwrap();
            Some(
                (1..=o["count"].as_u64().unwrap())
                    .map(|i| format!("{p}{i}\n"))
                    .collect::<String>()
                    .into_bytes(),
            )
        }
        Value::Object(o) if o.contains_key("repeat") => {
            let mut s = o["repeat"].as_str().unwrap().repeat(o["times"].as_u64().unwrap() as usize);
            s.push_str(o.get("then").and_then(Value::as_str).unwrap_or(""));
            Some(s.into_bytes())
        }
        Value::Object(o) if o.contains_key("symlink") => None,
        other => panic!("unknown fixture content {other}"),
    }
}

/// A fixture in a memory volume.
pub fn memory_fixture(files: &Value) -> SharedVolume {
    let v = MemoryVolume::new();
    for (path, spec) in files.as_object().unwrap() {
        let bytes = content(spec).unwrap_or_else(|| panic!("{path}: links need a dir backend"));
        v.insert(path, bytes);
    }
    Arc::new(v)
}

/// A fixture materialised under `root` with the suite's modification times.
pub fn materialise(files: &Value, root: &Path, mtime_base_ms: u64) {
    let set = |p: &Path, ms: u64| {
        let t = UNIX_EPOCH + Duration::from_millis(ms);
        std::fs::File::open(p).and_then(|f| f.set_modified(t)).unwrap();
    };
    let mut paths: Vec<&String> = files.as_object().unwrap().keys().collect();
    paths.sort();
    let mut dirs = vec![root.to_path_buf()];
    for path in &paths {
        let host = root.join(path.trim_start_matches('/'));
        let parent = host.parent().unwrap();
        std::fs::create_dir_all(parent).unwrap();
        let mut d = parent;
        while d.starts_with(root) {
            dirs.push(d.to_path_buf());
            match d.parent() {
                Some(p) => d = p,
                None => break,
            }
        }
        match content(&files[path.as_str()]) {
            Some(bytes) => std::fs::write(&host, bytes).unwrap(),
            None => {
                std::os::unix::fs::symlink(files[path.as_str()]["symlink"].as_str().unwrap(), &host)
                    .unwrap()
            }
        }
    }
    let mut n = 0;
    for path in &paths {
        if content(&files[path.as_str()]).is_some() {
            n += 1;
            set(&root.join(path.trim_start_matches('/')), mtime_base_ms + 1000 * n);
        }
    }
    dirs.sort();
    dirs.dedup();
    for d in dirs {
        set(&d, mtime_base_ms);
    }
}

/// The suite's tool handlers (`tool_types` in the suite).
pub fn registry() -> ToolRegistry {
    let mut r = ToolRegistry::new();
    r.register(
        "echo",
        Arc::new(|req: &filestore::tools::ToolRequest| {
            Ok(json!({
                "tool": req.tool_name,
                "arguments": req.arguments,
                "positional": req.positional,
                "statement": req.statement,
                "source_type": req.source.as_ref().map(|s| s.source_type.clone()),
                "endpoint": req.source.as_ref().and_then(|s| s.fields.get("endpoint").cloned()),
            }))
        }),
    );
    r.register(
        "fail",
        Arc::new(|_: &filestore::tools::ToolRequest| -> Result<Value, ToolError> {
            Err(ToolError::not_found("no such row"))
        }),
    );
    r.register(
        "bulk",
        Arc::new(|_: &filestore::tools::ToolRequest| {
            let rows: Vec<Value> = (1..=200)
                .map(|i| json!({"i": i, "text": format!("row {i} of the bulky result")}))
                .collect();
            Ok(json!({"rows": rows}))
        }),
    );
    r
}

fn error(e: &filestore::Error) -> Value {
    json!({"error": {"kind": e.kind_name(), "message": e.to_string()}})
}

fn outcome(o: InvokeOutcome) -> Value {
    json!({
        "status": match o.status {
            InvokeStatus::Completed => "completed",
            InvokeStatus::Failed => "failed",
            InvokeStatus::Pending => "pending",
        },
        "envelope": o.envelope,
        "text": o.text,
        "error": o.error.map(|e| json!({"kind": e.kind().as_str(), "message": e.to_string()})),
        "approval_id": o.approval_id,
        "result_path": o.result_path,
        "offloaded": o.offloaded,
    })
}

fn done(r: filestore::Result<()>) -> Value {
    match r {
        Ok(()) => json!({"ok": true}),
        Err(e) => error(&e),
    }
}

/// The answer to one step.
fn answer(s: &mut Session, step: &Value) -> Value {
    let step = step.as_object().expect("a step is an object");
    if let Some(tool) = step.get("call") {
        return match s.call(tool.as_str().unwrap(), &step["args"]) {
            Ok(o) => json!({"json": o.json, "text": o.text}),
            Err(e) => error(&e),
        };
    }
    if let Some(op) = step.get("typed") {
        return crate::contract_typed::answer(s, op.as_str().unwrap(), &step["args"]);
    }
    let (op, arg) = step.iter().next().expect("a step names its operation");
    match op.as_str() {
        "tool_specs" => match s.tool_specs() {
            Ok(v) => json!({"json": v}),
            Err(e) => error(&e),
        },
        "list_tools" => match s.list_tools(None) {
            Ok(v) => json!({"json": v}),
            Err(e) => error(&e),
        },
        "tools_version" => match s.tools_version() {
            Ok(v) => json!({"json": v}),
            Err(e) => error(&e),
        },
        "system_prompt" => {
            let n = |i: usize| arg[i].as_u64().map(|v| v as u32);
            match s.system_prompt(n(0), n(1)) {
                Ok(t) => json!({"text": t}),
                Err(e) => error(&e),
            }
        }
        "load_config" => {
            let files: Vec<(String, String)> = arg
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (f["name"].as_str().unwrap().into(), f["text"].as_str().unwrap().into()))
                .collect();
            match s.load_config_with_env(&files, &|_| None) {
                Ok(Ok(r)) => json!({
                    "rendered": r.rendered,
                    "v2_yaml": r.v2_yaml,
                    "tools": r.tools.iter().map(|t| json!({"name": t.name, "type": t.tool_type, "runnable": t.runnable})).collect::<Vec<_>>(),
                }),
                Ok(Err(issues)) => {
                    json!({"config_errors": issues.iter().map(|i| i.rendered.clone()).collect::<Vec<_>>()})
                }
                Err(e) => error(&e),
            }
        }
        "invoke" => {
            let ctx = InvokeContext {
                tool_call_id: step.get("tool_call_id").and_then(Value::as_str).map(String::from),
                claims: step.get("claims").cloned().unwrap_or(Value::Null),
            };
            match s.invoke(arg.as_str().unwrap(), &step["args"], &ctx) {
                Ok(o) => outcome(o),
                Err(e) => error(&e),
            }
        }
        "approve" => match s.approve(arg.as_str().unwrap()) {
            Ok(o) => outcome(o),
            Err(e) => error(&e),
        },
        "reject" => done(s.reject(arg.as_str().unwrap())),
        "select_toolset" => done(s.select_toolset(arg.as_str())),
        "set_offload_tokens" => done(s.set_offload_tokens(arg.as_u64().unwrap() as u32)),
        "enable_shell" => done(s.enable_shell(arg.as_bool().unwrap())),
        other => panic!("unknown step '{other}'"),
    }
}

/// Replaces modification times the suite did not set (`>= recent_ms`) by `"<recent>"`.
pub fn normalise(v: &mut Value, recent_ms: u64) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "modified_ms" && x.as_u64().is_some_and(|t| t >= recent_ms) {
                    *x = json!("<recent>");
                } else if k == "duration_ms" && x.is_u64() {
                    *x = json!("<duration>");
                } else {
                    normalise(x, recent_ms);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| normalise(x, recent_ms)),
        _ => {}
    }
}

/// Every case on every backend through the Rust host:
/// `[{"case", "backend", "answers": [...]}]`, normalised.
pub fn rust_answers() -> Value {
    let suite = suite();
    let base = suite["mtime_base_ms"].as_u64().unwrap();
    let recent = suite["recent_ms"].as_u64().unwrap();
    let mut out = Vec::new();
    for case in suite["cases"].as_array().unwrap() {
        for backend in case["backends"].as_array().unwrap() {
            let backend = backend.as_str().unwrap();
            let tmp = tempfile::tempdir().unwrap();
            let mut mounts = Vec::new();
            for (i, m) in case["mounts"].as_array().unwrap().iter().enumerate() {
                let files = &suite["fixtures"][m["fixture"].as_str().unwrap()];
                let volume = if backend == "memory" || m["memory"] == true {
                    memory_fixture(files)
                } else {
                    let root = tmp.path().join(format!("mount-{i}"));
                    std::fs::create_dir(&root).unwrap();
                    materialise(files, &root, base);
                    Arc::new(DirVolume::open(&root, m["read_only"] == true).unwrap())
                        as SharedVolume
                };
                let mut spec = MountSpec::new(m["point"].as_str().unwrap(), volume)
                    .priority(m["priority"].as_i64().unwrap_or(0) as i32);
                if m["read_only"] == true {
                    spec = spec.read_only();
                }
                mounts.push(spec);
            }
            let options = SessionOptions { tools: Arc::new(registry()), ..Default::default() };
            let mut s = engine().session_with(mounts, options).expect("session");
            let mut answers: Vec<Value> =
                case["steps"].as_array().unwrap().iter().map(|step| answer(&mut s, step)).collect();
            answers.iter_mut().for_each(|a| normalise(a, recent));
            out.push(json!({"case": case["name"], "backend": backend, "answers": answers}));
        }
    }
    Value::Array(out)
}

/// Compares another host's answers with the Rust host's: `(identical, total, diffs)`,
/// each diff naming the case, backend and step.
pub fn compare(rust: &Value, other: &Value) -> (usize, usize, Vec<String>) {
    let suite = suite();
    let (mut same, mut total, mut diffs) = (0, 0, Vec::new());
    for r in rust.as_array().unwrap() {
        let o = other
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["case"] == r["case"] && o["backend"] == r["backend"]);
        let steps = suite["cases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == r["case"])
            .map(|c| c["steps"].clone())
            .unwrap_or_default();
        for (i, want) in r["answers"].as_array().unwrap().iter().enumerate() {
            total += 1;
            let got = o.map(|o| &o["answers"][i]);
            if got == Some(want) {
                same += 1;
            } else {
                diffs.push(format!(
                    "{} [{}] step {}: {}\n  rust:  {}\n  other: {}",
                    r["case"],
                    r["backend"],
                    i + 1,
                    steps[i],
                    want,
                    got.map(|g| g.to_string()).unwrap_or_else(|| "(no answer)".into())
                ));
            }
        }
    }
    (same, total, diffs)
}

/// The Rust host answers every step (no step panics or poisons a session) and gives
/// the same answers twice: the suite is deterministic, so other hosts can match it.
#[test]
fn the_rust_host_answers_the_shared_suite_deterministically() {
    let a = rust_answers();
    let b = rust_answers();
    let (same, total, diffs) = compare(&a, &b);
    assert!(diffs.is_empty(), "the suite is not deterministic:\n{}", diffs.join("\n"));
    assert_eq!(same, total);
    let errors = a
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["answers"].as_array().unwrap().iter())
        .filter(|a| a["error"]["kind"] == "trap" || a["error"]["kind"] == "setup")
        .count();
    assert_eq!(errors, 0, "a step trapped");
    eprintln!("contract suite: {total} answers from the Rust host");
    // For reading the answers a host must give: `FILESTORE_CONTRACT_ANSWERS=FILE`.
    if let Some(file) = std::env::var_os("FILESTORE_CONTRACT_ANSWERS") {
        std::fs::write(file, serde_json::to_string_pretty(&a).unwrap()).unwrap();
    }
}
