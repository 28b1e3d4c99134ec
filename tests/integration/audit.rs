//! The audit timeline (docs/audit.md): a known set of mutations,
//! failing ones and a configured tool call with a secret in its source and a
//! secret-looking argument included, made through the Rust API, `filestore call`
//! and an MCP session; the timeline lists exactly those, and no byte of the store
//! holds a secret. Two replicas appending to one directory store lose no record;
//! the agent cannot write or delete `/audit`.

use filestore::handlers::ShippedHandlers as _;
use std::path::Path;
use std::sync::Arc;

use filestore::audit::{AuditLog, AuditRecord, Status, read_records};
use filestore::conversation::{ConversationKey, StateSpec, StateStore};
use filestore::tools::ToolRegistry;
use filestore::volumes::MountArg;
use filestore::{MountSpec, Session, SessionOptions};
use serde_json::{Value, json};

use crate::common::engine;
use crate::support::mcp_http::Replica;

const BIN: &str = env!("CARGO_BIN_EXE_filestore");
/// The configured tool's source secret (its `Authorization` header).
const SOURCE_SECRET: &str = "sk-audit-SOURCE-SECRET-7f3a9";
/// A secret-looking argument an agent passes to the tool.
const ARG_SECRET: &str = "password=hunter2-ARG-SECRET-41c";

/// An HTTP tool whose source sends `${API_KEY}` to a loopback server.
fn tools_yaml(port: u16) -> String {
    format!(
        "kind: source\nname: api\ntype: http\nbaseUrl: http://127.0.0.1:{port}\n\
         headers:\n  Authorization: Bearer ${{API_KEY}}\n---\n\
         kind: tool\nname: post_note\ntype: http\nsource: api\nmethod: POST\npath: /notes\n\
         description: Post a note.\nbodyParams:\n  - name: note\n    type: string\n    description: The note.\n"
    )
}

/// Every file beneath `dir` holding `needle`, by path.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if std::fs::read(&p)
                .unwrap()
                .windows(needle.len())
                .any(|w| w == needle.as_bytes())
            {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

/// What a record says, in short: tool, status, error kind.
fn summary(records: &[AuditRecord]) -> Vec<(String, Status, Option<String>)> {
    records.iter().map(|r| (r.tool.clone(), r.status, r.error.clone())).collect()
}

/// Runs the known mutations on `s` (with `/scratch` writable, `/ro` read-only and
/// the `post_note` tool loaded); reads and a dry run in between are not audited.
fn known_mutations(s: &mut Session) {
    let ok = |s: &mut Session, tool: &str, args: Value| {
        s.call(tool, &args).unwrap_or_else(|e| panic!("{tool}: {e}"));
    };
    ok(s, "filestore_write", json!({"path": "/scratch/a.txt", "content": "one\n"}));
    ok(s, "filestore_read", json!({"path": "/scratch/a.txt"}));
    ok(
        s,
        "filestore_edit",
        json!({"path": "/scratch/a.txt", "old_string": "one", "new_string": "two"}),
    );
    ok(
        s,
        "filestore_edit",
        json!({"path": "/scratch/a.txt", "old_string": "two", "new_string": "x", "dry_run": true}),
    );
    ok(s, "filestore_mkdir", json!({"path": "/scratch/d"}));
    ok(s, "filestore_move", json!({"source": "scratch/a.txt", "destination": "/scratch/d/b.txt"}));
    assert!(s.call("filestore_write", &json!({"path": "/ro/x.txt", "content": "no"})).is_err());
    assert!(s.call("filestore_delete", &json!({"path": "/scratch/missing"})).is_err());
    ok(
        s,
        "filestore_execute",
        json!({"command": "echo hi > /scratch/sh.txt && mkdir -p /scratch/e"}),
    );
    ok(s, "filestore_grep", json!({"pattern": "hi", "path": "/scratch"}));
    ok(s, "post_note", json!({"note": ARG_SECRET}));
}

/// The records [`known_mutations`] leaves: exactly these, in this order.
fn check_known(records: &[AuditRecord], identity: Option<&str>) {
    let e = |k: &str| Some(k.to_string());
    let expected = vec![
        ("filestore_write".to_string(), Status::Ok, None),
        ("filestore_edit".to_string(), Status::Ok, None),
        ("filestore_mkdir".to_string(), Status::Ok, None),
        ("filestore_move".to_string(), Status::Ok, None),
        ("filestore_write".to_string(), Status::Error, e("read-only")),
        ("filestore_delete".to_string(), Status::Error, e("not-found")),
        ("filestore_execute".to_string(), Status::Ok, None),
        ("post_note".to_string(), Status::Ok, None),
    ];
    assert_eq!(summary(records), expected, "{records:#?}");
    let paths: Vec<&[String]> = records.iter().map(|r| r.paths.as_slice()).collect();
    assert_eq!(paths[0], ["/scratch/a.txt"]);
    assert_eq!(paths[3], ["/scratch/a.txt", "/scratch/d/b.txt"], "normalised and changed");
    assert_eq!(paths[4], ["/ro/x.txt"], "what a failed call tried to change");
    // What the shell command changed, seen in the volume writes it made.
    assert!(paths[6].contains(&"/scratch/sh.txt".to_string()), "{:?}", paths[6]);
    assert!(paths[6].contains(&"/scratch/e".to_string()), "{:?}", paths[6]);
    // The configured tool stored its result under /tool_calls.
    assert!(paths[7].iter().any(|p| p.starts_with("/tool_calls/")), "{:?}", paths[7]);
    for r in records {
        assert_eq!(r.identity.as_deref(), identity);
        assert_eq!(r.args_sha256.len(), 64);
        assert!(r.time.ends_with('Z') && r.time_ms > 0, "{r:?}");
    }
    let digest = filestore::audit::args_digest(&json!({"note": ARG_SECRET}));
    assert_eq!(records[7].args_sha256, digest, "the host can match a record to its call");
    let all = serde_json::to_string(records).unwrap();
    assert!(!all.contains(SOURCE_SECRET) && !all.contains("hunter2"), "{all}");
}

/// A Rust API session over a conversation of `store` (its `/scratch`,
/// `/tool_calls` and audit volume, as `serve --state` mounts them), with `/ro`,
/// the shell and the HTTP tool.
fn conversation_session(
    store: &StateStore,
    key: &ConversationKey,
    port: u16,
) -> (Session, AuditLog) {
    let v = store.volumes(key).unwrap();
    let log = AuditLog::new(v.audit.clone(), Some("alice".into()));
    let options = SessionOptions {
        tools: Arc::new(ToolRegistry::with_builtin_handlers()),
        shell: true,
        unique_call_ids: true,
        audit: Some(Arc::new(log.clone())),
        ..Default::default()
    };
    let mounts = vec![
        MountSpec::new("/scratch", v.scratch),
        MountSpec::new("/tool_calls", v.tool_calls).read_only(),
        MountSpec::new("/ro", crate::common::mem(&[("/f.txt", "keep\n")])).read_only(),
    ];
    let mut s = engine().session_with(mounts, options).unwrap();
    let files = vec![("tools.yaml".to_string(), tools_yaml(port))];
    let env = |k: &str| (k == "API_KEY").then(|| SOURCE_SECRET.to_string());
    s.load_config_with_env(&files, &env).unwrap().unwrap();
    (s, log)
}

#[test]
fn the_rust_api_records_exactly_the_mutations_and_no_secret() {
    let (port, seen) = crate::tools::http_server("200 OK", r#"{"ok": true}"#);
    let dir = tempfile::tempdir().unwrap();
    let store = StateStore::open(&StateSpec::Dir(dir.path().into())).unwrap();
    let key = ConversationKey::scoped("alice", "audited").unwrap();
    let (mut s, log) = conversation_session(&store, &key, port);
    known_mutations(&mut s);
    assert!(seen.lock().unwrap()[0].contains(SOURCE_SECRET), "the tool did send it");
    let records = log.records().unwrap();
    check_known(&records, Some("alice"));

    // The agent reads the timeline as files, and filters it with glob and grep.
    let errors = s.call("filestore_glob", &json!({"pattern": "/audit/**/*.error.json"})).unwrap();
    assert_eq!(errors.json["total_matches"], 2, "{}", errors.text);
    let moves =
        s.call("filestore_glob", &json!({"pattern": "**/*.filestore_move.*", "path": "/audit"}));
    assert_eq!(moves.unwrap().json["total_matches"], 1);
    let by_path = s
        .call("filestore_grep", &json!({"pattern": "\"/scratch/d/b.txt\"", "path": "/audit", "output_mode": "content", "fixed": true}))
        .unwrap();
    assert!(by_path.text.contains("\"tool\":\"filestore_move\""), "{}", by_path.text);
    let jsonl = s.call("filestore_execute", &json!({"command": "cat /audit/*/* | wc -l"})).unwrap();
    assert_eq!(jsonl.json["stdout"].as_str().unwrap().trim(), "8", "one line per record");

    // Nothing of either secret anywhere in the store: records, results, documents.
    assert_eq!(files_holding(dir.path(), SOURCE_SECRET), Vec::<String>::new());
    assert_eq!(files_holding(dir.path(), "hunter2"), Vec::<String>::new());
}

#[test]
fn the_agent_cannot_write_or_delete_the_audit_tree() {
    let mut s = engine()
        .session_with(
            vec![MountSpec::new("/scratch", crate::common::mem(&[]))],
            SessionOptions {
                shell: true,
                audit: Some(Arc::new(AuditLog::memory(None))),
                ..Default::default()
            },
        )
        .unwrap();
    s.call("filestore_write", &json!({"path": "/scratch/a", "content": "x"})).unwrap();
    let listed = s.call("filestore_glob", &json!({"pattern": "/audit/**"})).unwrap();
    let record = listed.json["files"][0]["path"].as_str().unwrap().to_string();
    for (tool, args) in [
        ("filestore_write", json!({"path": record.clone(), "content": "forged"})),
        ("filestore_write", json!({"path": "/audit/new.json", "content": "{}"})),
        (
            "filestore_edit",
            json!({"path": record.clone(), "old_string": "ok", "new_string": "error"}),
        ),
        ("filestore_delete", json!({"path": "/audit", "recursive": true})),
        ("filestore_delete", json!({"path": record.clone()})),
        ("filestore_move", json!({"source": record.clone(), "destination": "/scratch/r"})),
        ("filestore_mkdir", json!({"path": "/audit/x"})),
    ] {
        let (kind, msg) = crate::common::err(&mut s, tool, args.clone());
        assert_eq!(kind, "read-only", "{tool} {args}: {msg}");
    }
    let shell = s
        .call(
            "filestore_execute",
            &json!({"command": format!("rm -rf /audit; echo forged > {record}; ls /audit/*")}),
        )
        .unwrap();
    assert!(shell.json["stdout"].as_str().unwrap().contains(".json"), "{}", shell.text);
    let read = s.call("filestore_read", &json!({"path": record})).unwrap();
    assert!(read.text.contains("\"status\":\"ok\""), "the record is intact: {}", read.text);
    // The refused attempts are on the timeline too, as errors.
    let refused = s.call("filestore_glob", &json!({"pattern": "/audit/**/*.error.json"})).unwrap();
    assert_eq!(refused.json["total_matches"], 7, "{}", refused.text);
}

#[test]
fn two_replicas_appending_to_one_directory_store_lose_no_record() {
    let dir = tempfile::tempdir().unwrap();
    let key = ConversationKey::scoped("", "raced").unwrap();
    const EACH: usize = 40;
    let writers: Vec<_> = (0..2)
        .map(|replica| {
            // Each replica opens the store itself, as two processes would.
            let store = StateStore::open(&StateSpec::Dir(dir.path().into())).unwrap();
            let key = key.clone();
            std::thread::spawn(move || {
                let v = store.volumes(&key).unwrap();
                let options = SessionOptions {
                    audit: Some(Arc::new(AuditLog::new(v.audit, None))),
                    ..Default::default()
                };
                let mut s = engine()
                    .session_with(vec![MountSpec::new("/scratch", v.scratch)], options)
                    .unwrap();
                for i in 0..EACH {
                    let path = format!("/scratch/r{replica}/{i}.txt");
                    s.call("filestore_write", &json!({"path": path, "content": "x"})).unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let store = StateStore::open(&StateSpec::Dir(dir.path().into())).unwrap();
    let records = read_records(store.volumes(&key).unwrap().audit.as_ref()).unwrap();
    assert_eq!(records.len(), 2 * EACH);
    let mut paths: Vec<String> = records.iter().flat_map(|r| r.paths.clone()).collect();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), 2 * EACH, "each write recorded once");
}

#[test]
fn filestore_call_appends_to_an_audit_directory() {
    let (port, _seen) = crate::tools::http_server("200 OK", r#"{"ok": true}"#);
    let root = tempfile::tempdir().unwrap();
    let (audit, scratch) = (root.path().join("audit"), root.path().join("scratch"));
    std::fs::create_dir_all(&audit).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    let config = root.path().join("tools.yaml");
    std::fs::write(&config, tools_yaml(port)).unwrap();
    let call = |tool: &str, args: Value| {
        std::process::Command::new(BIN)
            .current_dir(root.path())
            .env("API_KEY", SOURCE_SECRET)
            .args(["call", tool, &args.to_string(), "--audit", audit.to_str().unwrap()])
            .args(["--mount", &format!("/scratch={}", scratch.display()), "--mount", "/ro=mem::ro"])
            .args(["--config", config.to_str().unwrap()])
            .output()
            .unwrap()
    };
    assert!(
        call("filestore_write", json!({"path": "/scratch/a.txt", "content": "1\n"}))
            .status
            .success()
    );
    let refused = call("filestore_write", json!({"path": "/ro/a.txt", "content": "1\n"}));
    assert!(!refused.status.success());
    assert!(
        call("filestore_execute", json!({"command": "echo 2 >> /scratch/a.txt"})).status.success()
    );
    let posted = call("post_note", json!({"note": ARG_SECRET}));
    assert!(posted.status.success(), "{}", String::from_utf8_lossy(&posted.stderr));
    // A later call reads the earlier ones at /audit.
    let listed = call(
        "filestore_grep",
        json!({"pattern": "filestore_execute", "path": "/audit", "output_mode": "count"}),
    );
    assert!(String::from_utf8_lossy(&listed.stdout).contains("\"total_matches\": 1"), "{listed:?}");

    let log = AuditLog::new(crate::common::dir(&audit, true), None);
    let records = log.records().unwrap();
    let e = |k: &str| Some(k.to_string());
    let expected: Vec<(String, Status, Option<String>)> = vec![
        ("filestore_write".into(), Status::Ok, None),
        ("filestore_write".into(), Status::Error, e("read-only")),
        ("filestore_execute".into(), Status::Ok, None),
        ("post_note".into(), Status::Ok, None),
    ];
    assert_eq!(summary(&records), expected);
    assert_eq!(records[2].paths, ["/scratch/a.txt"]);
    assert!(records.iter().all(|r| r.identity.is_none()));
    // Anywhere: the configuration names the variable, never its value.
    assert!(files_holding(root.path(), SOURCE_SECRET).is_empty());
    assert!(files_holding(&audit, "hunter2").is_empty());
}

#[test]
fn an_mcp_session_records_its_callers_mutations_in_the_conversation() {
    let (port, _seen) = crate::tools::http_server("200 OK", r#"{"ok": true}"#);
    let root = tempfile::tempdir().unwrap();
    let state = root.path().join("state");
    std::fs::create_dir(&state).unwrap();
    let config = root.path().join("tools.yaml");
    std::fs::write(&config, tools_yaml(port)).unwrap();
    let tokens = root.path().join("tokens.json");
    std::fs::write(
        &tokens,
        r#"{"tokens": [{"token": "alice-token-0123456789abcdef", "sub": "alice"}]}"#,
    )
    .unwrap();
    let args = [
        "--state",
        state.to_str().unwrap(),
        "--auth-tokens",
        tokens.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--shell",
        "--mount",
        "/ro=mem::ro",
        "--mount",
        "/workspace=mem:",
    ];
    let server =
        Replica::start_with_env(BIN, root.path(), &args, &[("API_KEY", SOURCE_SECRET.to_string())]);
    let mut s = server.session(Some("audited"), Some("alice-token-0123456789abcdef")).unwrap();
    s.call_ok("filestore_write", json!({"path": "/scratch/a.txt", "content": "one\n"}));
    s.call_ok(
        "filestore_edit",
        json!({"path": "/scratch/a.txt", "old_string": "one", "new_string": "two"}),
    );
    assert_eq!(
        s.call("filestore_write", json!({"path": "/ro/a", "content": "x"}))["isError"],
        true
    );
    s.call_ok("filestore_execute", json!({"command": "rm /scratch/a.txt"}));
    s.call_ok("post_note", json!({"note": ARG_SECRET}));
    assert_eq!(
        s.call("filestore_delete", json!({"path": "/audit", "recursive": true}))["isError"],
        true
    );

    // The agent's view.
    let text = s.call_ok(
        "filestore_grep",
        json!({"pattern": "\"identity\":\"alice\"", "path": "/audit", "output_mode": "count"}),
    );
    assert!(text.contains('6'), "six records name alice: {text}");
    // The store's: the conversation's audit directory, one file per record.
    let key = ConversationKey::scoped("alice", "audited").unwrap();
    let audit = state.join("conversations").join(key.as_str()).join("audit");
    let records = AuditLog::new(crate::common::dir(&audit, true), None).records().unwrap();
    let e = |k: &str| Some(k.to_string());
    let expected: Vec<(String, Status, Option<String>)> = vec![
        ("filestore_write".into(), Status::Ok, None),
        ("filestore_edit".into(), Status::Ok, None),
        ("filestore_write".into(), Status::Error, e("read-only")),
        ("filestore_execute".into(), Status::Ok, None),
        ("post_note".into(), Status::Ok, None),
        ("filestore_delete".into(), Status::Error, e("read-only")),
    ];
    assert_eq!(summary(&records), expected);
    assert_eq!(records[3].paths, ["/scratch/a.txt"], "what rm removed");
    assert!(records.iter().all(|r| r.identity.as_deref() == Some("alice")));
    assert!(files_holding(&state, SOURCE_SECRET).is_empty());
    assert!(files_holding(&state, "hunter2").is_empty());
}

/// A typed call (`Session::with_typed`) names no tool the timeline knows: one that
/// changed files is recorded as `typed` with the paths it wrote; a typed read is
/// not recorded. A shell `rm` of a file of a copy-on-write mount's lower layer
/// (which writes only the layer's whiteouts) names the deleted path.
#[test]
fn typed_calls_and_deletes_through_a_cow_mount_name_their_paths() {
    use filestore::wit::exports::filestore::component::filestore as fs;
    let lower = tempfile::tempdir().unwrap();
    std::fs::write(lower.path().join("keep.txt"), "k\n").unwrap();
    std::fs::write(lower.path().join("gone.txt"), "g\n").unwrap();
    let cow: MountArg = format!("/repo={}:cow", lower.path().display()).parse().unwrap();
    let log = AuditLog::memory(None);
    let options =
        SessionOptions { shell: true, audit: Some(Arc::new(log.clone())), ..Default::default() };
    let mounts = vec![cow.open().unwrap(), MountSpec::new("/scratch", crate::common::mem(&[]))];
    let mut s = engine().session_with(mounts, options).unwrap();

    let req = fs::WriteRequest {
        path: "/scratch/typed.txt".into(),
        content: "t\n".into(),
        create_only: None,
    };
    s.with_typed(|st, f, h| f.call_write(st, h, &req)).unwrap();
    s.with_typed(|st, f, h| f.call_stat(st, h, "/scratch/typed.txt")).unwrap();
    let rm = s.call("filestore_execute", &json!({"command": "rm /repo/gone.txt"})).unwrap();
    assert_eq!(rm.json["exit_code"], 0, "{}", rm.text);

    let records = log.records().unwrap();
    let got: Vec<(String, Vec<String>)> =
        records.iter().map(|r| (r.tool.clone(), r.paths.clone())).collect();
    assert_eq!(
        got,
        [
            (filestore::audit::TYPED_TOOL.to_string(), vec!["/scratch/typed.txt".to_string()]),
            ("filestore_execute".to_string(), vec!["/repo/gone.txt".to_string()]),
        ]
    );
    assert!(lower.path().join("gone.txt").exists(), "the lower file is untouched");
}

/// `filestore apply --audit DIR` records the apply on the timeline the mount's
/// sessions recorded into (`filestore call --audit DIR`): `host:apply`, with every
/// path it wrote or deleted; a refused apply as a `conflict` error. `--check` is not
/// recorded.
#[test]
fn filestore_apply_is_on_the_audit_timeline() {
    let top = tempfile::tempdir().unwrap();
    let (lower, upper, audit) =
        (top.path().join("repo"), top.path().join("changes"), top.path().join("audit"));
    std::fs::create_dir_all(&lower).unwrap();
    std::fs::create_dir(&audit).unwrap();
    std::fs::write(lower.join("a.txt"), "a\n").unwrap();
    std::fs::write(lower.join("b.txt"), "b\n").unwrap();
    let mount = format!("/w={}:cow={}", lower.display(), upper.display());
    let filestore = |args: &[&str]| {
        let out = std::process::Command::new(BIN).args(args).output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).to_string())
    };
    let audit_dir = audit.to_str().unwrap();
    for (tool, args) in [
        ("filestore_write", json!({"path": "/w/a.txt", "content": "A\n"})),
        ("filestore_delete", json!({"path": "/w/b.txt"})),
    ] {
        let (code, err) =
            filestore(&["call", tool, &args.to_string(), "--mount", &mount, "--audit", audit_dir]);
        assert_eq!(code, Some(0), "{tool}: {err}");
    }
    // A concurrent change to a lower file: refused, and recorded as refused.
    std::fs::write(lower.join("a.txt"), "changed meanwhile\n").unwrap();
    let (code, _) = filestore(&["apply", &mount, "--audit", audit_dir]);
    assert_eq!(code, Some(1));
    std::fs::write(lower.join("a.txt"), "a\n").unwrap();
    let (code, err) = filestore(&["apply", &mount, "--check", "--audit", audit_dir]);
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = filestore(&["apply", &mount, "--audit", audit_dir]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(std::fs::read_to_string(lower.join("a.txt")).unwrap(), "A\n");

    let store = filestore::volumes::dir::DirVolume::open(&audit, true).unwrap();
    let records = read_records(&store).unwrap();
    let got: Vec<(String, Status, Option<String>, Vec<String>)> = records
        .iter()
        .map(|r| (r.tool.clone(), r.status, r.error.clone(), r.paths.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("filestore_write".into(), Status::Ok, None, vec!["/w/a.txt".into()]),
            ("filestore_delete".into(), Status::Ok, None, vec!["/w/b.txt".into()]),
            (filestore::audit::APPLY_TOOL.into(), Status::Error, Some("conflict".into()), vec![]),
            (
                filestore::audit::APPLY_TOOL.into(),
                Status::Ok,
                None,
                vec!["/w/a.txt".into(), "/w/b.txt".into()]
            ),
        ]
    );
}

/// A call that changes anything runs only when its record fits: once the quota the
/// timeline is charged to, and its headroom, are used up, such calls are refused
/// before they run (`limit-exceeded` naming the timeline), while reads go on.
#[test]
fn no_call_that_changes_files_runs_without_room_for_its_record() {
    use filestore::volumes::quota::{Counter, Quota, QuotaVolume};
    let quota = Quota::new(
        "conversation quota",
        "--conversation-quota-mib",
        0,
        Counter::Once(Box::new(|| Ok(0))),
    );
    let headroom = filestore::audit::MAX_RECORD_BYTES + 2000;
    let timeline = QuotaVolume::shared(filestore::volumes::MemoryVolume::new(), quota.clone())
        .with_headroom(headroom);
    let log = AuditLog::new(Arc::new(timeline), None).with_quota(quota, headroom);
    let options = SessionOptions { audit: Some(Arc::new(log.clone())), ..Default::default() };
    let mounts = vec![MountSpec::new("/w", crate::common::mem(&[]))];
    let mut s = engine().session_with(mounts, options).unwrap();
    let mut written = 0;
    let refusal = loop {
        let path = format!("/w/{written}.txt");
        match s.call("filestore_write", &json!({"path": path, "content": "x"})) {
            Ok(_) => written += 1,
            Err(e) => break (path, format!("{}: {e}", e.kind_name())),
        }
        assert!(written < 100, "never refused");
    };
    assert!(written >= 2, "{refusal:?}");
    assert!(
        refusal.1.contains("limit-exceeded") && refusal.1.contains("audit timeline"),
        "{refusal:?}"
    );
    assert!(
        s.call("filestore_read", &json!({"path": refusal.0})).is_err(),
        "the refused write did not run"
    );
    assert_eq!(log.records().unwrap().len(), written, "every call that ran is recorded");
    s.call("filestore_read", &json!({"path": "/w/0.txt"})).unwrap();
}
