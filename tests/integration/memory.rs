//! The memory of live sandboxes (docs/security.md#memory): every session's linear
//! memory is charged to its engine's budget (all sessions together, and one
//! identity's) and given back when the session goes; a growth past the budget ends
//! the call with `limit-exceeded` naming the budget's flag, and the next call works.
//! Through `serve --http`, sessions and cached 2026-07-28 sandboxes that read a large
//! file are replaced once their call is over, so the server's resident memory grows
//! by little per idle session instead of by what the read needed, and a replaced
//! session keeps its activated skills and held follow-ups.
//!
//! Memory figures are the server's `VmRSS` (`/proc/PID/status`), compared with wide
//! margins: the old behaviour kept about 90 MiB per session that read the 60 MB file;
//! the bounds here allow [`RECLAIM_ABOVE_BYTES`] (32 MiB) per session. Nothing here
//! depends on timing.

use std::path::Path;

use filestore::memory_budget::{
    MemoryBudgetConfig, PER_IDENTITY_FLAG, RECLAIM_ABOVE_BYTES, TOTAL_FLAG,
};
use filestore::{Engine, EngineConfig, Error, MountSpec, SandboxLimit, SessionOptions};
use serde_json::{Value, json};

use crate::common::mem;
use crate::support::mcp_http::{Answer, McpHttp, Replica, stateless};

const BIN: &str = env!("CARGO_BIN_EXE_filestore");
const MIB: usize = 1 << 20;
/// The size of the file each large call reads whole (a shell pipeline holds it, and
/// more, in the sandbox's linear memory).
const BIG_BYTES: usize = 60_000_000;
/// The command reading it whole; its answer is the size.
const READ_BIG: &str = "cat /workspace/big.txt | wc -c";

/// The server's resident memory, bytes.
fn rss(pid: u32) -> usize {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_else(|e| panic!("/proc/{pid}/status: {e} (these tests need Linux's /proc)"));
    let kib: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS in /proc/{pid}/status:\n{status}"));
    kib * 1024
}

/// A workspace directory holding `big.txt` ([`BIG_BYTES`] of text lines), mounted
/// read-only.
fn workspace(root: &Path) -> String {
    format!("/workspace={}:ro", big_file_dir(root).display())
}

/// The directory holding `big.txt`, made.
fn big_file_dir(root: &Path) -> std::path::PathBuf {
    let ws = root.join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let line = format!("{}\n", "x".repeat(99));
    std::fs::write(ws.join("big.txt"), line.repeat(BIG_BYTES / line.len())).unwrap();
    ws
}

/// The text of a tool result.
fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// Runs [`READ_BIG`] in `session` and checks it read the whole file.
fn read_big(session: &mut McpHttp) {
    let out = session.call_ok("filestore_execute", json!({"command": READ_BIG}));
    assert_eq!(out.trim(), BIG_BYTES.to_string(), "{out}");
}

// ---- the budget, through the host library ----------------------------------------

/// An engine with a small budget (and a small pool: a few sessions at once).
fn budget_engine(total: usize, per_identity: usize) -> Engine {
    filestore::new_engine_with(EngineConfig {
        max_sessions: 8,
        memory_budget: MemoryBudgetConfig {
            total_bytes: Some(total),
            per_identity_bytes: Some(per_identity),
        },
        ..EngineConfig::default()
    })
    .expect("engine")
}

fn options(identity: Option<&str>) -> SessionOptions {
    SessionOptions { memory_identity: identity.map(str::to_string), ..SessionOptions::default() }
}

/// The budget a refusal names, by its flag.
fn refused_by(e: &Error) -> &'static str {
    assert_eq!(e.sandbox_limit(), Some(SandboxLimit::Memory), "{e}");
    let m = e.to_string();
    match (m.contains(PER_IDENTITY_FLAG), m.contains(&format!("({TOTAL_FLAG})"))) {
        (true, false) => PER_IDENTITY_FLAG,
        (false, true) => TOTAL_FLAG,
        _ => panic!("names neither budget: {m}"),
    }
}

/// Sessions charge what their instance holds from its first page, one identity's
/// sessions together; a growth past either budget is refused (`limit-exceeded`
/// naming the flag) and poisons only its session; a dropped session gives its memory
/// back, and a session the budget has no room for is refused when made.
#[test]
fn sessions_charge_the_budget_and_give_it_back() {
    let engine = budget_engine(160 * MIB, 80 * MIB);
    let budget = engine.memory_budget().clone();
    let mount = || vec![MountSpec::new("/w", mem(&[("/a.txt", "a")]))];
    let mut alice = engine.session_with(mount(), options(Some("alice"))).unwrap();
    let start = alice.memory_bytes();
    assert!(start > 0, "an instance starts with some memory");
    assert_eq!((budget.in_use(), budget.in_use_by("alice")), (start, start));
    // Two sessions of one identity share its budget.
    let mut alice2 = engine.session_with(mount(), options(Some("alice"))).unwrap();
    alice.diagnostics_allocate(30 * MIB as u64).expect("within alice's budget");
    let e = alice2.diagnostics_allocate(50 * MIB as u64).expect_err("past alice's budget");
    assert_eq!(refused_by(&e), PER_IDENTITY_FLAG);
    assert!(alice2.is_poisoned() && !alice.is_poisoned());
    alice.call("filestore_read", &json!({"path": "/w/a.txt"})).expect("alice's first session");
    // Another identity is held to the total only beyond its own share.
    let mut bob = engine.session_with(mount(), options(Some("bob"))).unwrap();
    bob.diagnostics_allocate(40 * MIB as u64).expect("within bob's budget");
    let mut anonymous = engine.session_with(mount(), options(None)).unwrap();
    let e = anonymous.diagnostics_allocate(100 * MIB as u64).expect_err("past the total");
    assert_eq!(refused_by(&e), TOTAL_FLAG);
    // What is in use is what the live instances hold.
    let held: usize = [&alice, &alice2, &bob, &anonymous].iter().map(|s| s.memory_bytes()).sum();
    assert_eq!(budget.in_use(), held);
    // Fill the total: a new session has no room for its first pages.
    anonymous = engine.session_with(mount(), options(None)).unwrap();
    while anonymous.diagnostics_allocate(MIB as u64).is_ok() {}
    let Err(e) = engine.session_with(mount(), options(None)) else {
        panic!("a session was made past the budget ({} in use)", budget.in_use());
    };
    assert_eq!(refused_by(&e), TOTAL_FLAG);
    drop((alice, alice2, bob, anonymous));
    assert_eq!(budget.in_use(), 0, "every dropped session gave its memory back");
    let mut next = engine.session_with(mount(), options(Some("alice"))).unwrap();
    next.diagnostics_allocate(70 * MIB as u64).expect("alice's whole budget is hers again");
}

/// `Session::release` gives the instance's memory back at once (a server about to
/// make its replacement); the session is unusable after, as after a trap.
#[test]
fn a_released_session_holds_nothing() {
    let engine = budget_engine(512 * MIB, 512 * MIB);
    let mut s = engine.session_with(vec![], options(Some("alice"))).unwrap();
    s.diagnostics_allocate(64 * MIB as u64).unwrap();
    assert!(engine.memory_budget().in_use() > 64 * MIB);
    s.release();
    assert_eq!((engine.memory_budget().in_use(), s.memory_bytes()), (0, 0));
    assert!(s.is_poisoned());
    let e = s.call("filestore_ls", &json!({"path": "/"})).expect_err("released");
    assert!(e.poisons_session(), "{e}");
}

// ---- serve --http: idle sandboxes give their memory back --------------------------

/// Eight 2025-11-25 sessions each read the 60 MB file through the shell and stay
/// open: the server's resident memory grows by far less than the reclaim threshold
/// per session (the old behaviour: about 90 MiB each, 720 MiB in all), and every
/// session still works.
#[test]
fn idle_sessions_give_back_what_a_large_read_grew() {
    let root = tempfile::tempdir().unwrap();
    let mount = workspace(root.path());
    let server = Replica::start(BIN, root.path(), &["--shell", "--mount", &mount]);
    let mut warm = server.session(None, None).unwrap();
    warm.call_ok("filestore_execute", json!({"command": "echo warm"}));
    let before = rss(server.pid());
    let mut sessions: Vec<McpHttp> = (0..8).map(|_| server.session(None, None).unwrap()).collect();
    for s in &mut sessions {
        read_big(s);
    }
    let grown = rss(server.pid()).saturating_sub(before);
    let bound = sessions.len() * RECLAIM_ABOVE_BYTES;
    assert!(
        grown < bound,
        "{} sessions that each read {BIG_BYTES} bytes left the server {} MiB larger (bound {} MiB)",
        sessions.len(),
        grown / MIB,
        bound / MIB
    );
    for s in &mut sessions {
        assert_eq!(s.call_ok("filestore_execute", json!({"command": "echo ok"})).trim(), "ok");
    }
}

/// Eight MCP 2026-07-28 requests, each of its own conversation (`--state mem:`), read
/// the 60 MB file: the sandbox cache keeps their sandboxes, made small again (the old
/// behaviour: about 90 MiB each in the cache). A later request of each conversation
/// is served.
#[test]
fn cached_stateless_sandboxes_give_back_what_a_large_read_grew() {
    let root = tempfile::tempdir().unwrap();
    let mount = workspace(root.path());
    let server =
        Replica::start(BIN, root.path(), &["--shell", "--state", "mem:", "--mount", &mount]);
    let call = |conversation: &str, command: &str| {
        let args = json!({"name": "filestore_execute", "arguments": {"command": command}});
        let m = stateless(server.port, Some(conversation), "tools/call", args);
        assert_ne!(m["result"]["isError"], true, "{m}");
        text(&m["result"]).trim().to_string()
    };
    call("warm", "echo warm");
    let before = rss(server.pid());
    let conversations: Vec<String> = (0..8).map(|i| format!("big-{i}")).collect();
    for c in &conversations {
        assert_eq!(call(c, READ_BIG), BIG_BYTES.to_string());
    }
    let grown = rss(server.pid()).saturating_sub(before);
    let bound = conversations.len() * RECLAIM_ABOVE_BYTES;
    assert!(
        grown < bound,
        "{} stateless requests that each read {BIG_BYTES} bytes left the server {} MiB larger (bound {} MiB)",
        conversations.len(),
        grown / MIB,
        bound / MIB
    );
    for c in &conversations {
        assert_eq!(call(c, "echo ok"), "ok");
    }
}

/// A call that would take the sandboxes past `--sandbox-memory-mib` ends with
/// `limit-exceeded` naming the flag; the next call of the session works, and so does
/// another session.
#[test]
fn a_call_past_the_global_budget_fails_alone() {
    let root = tempfile::tempdir().unwrap();
    let mount = workspace(root.path());
    let server = Replica::start(
        BIN,
        root.path(),
        &["--shell", "--mount", &mount, "--sandbox-memory-mib", "64"],
    );
    let mut other = server.session(None, None).unwrap();
    let mut s = server.session(None, None).unwrap();
    let r = s.call("filestore_execute", json!({"command": READ_BIG}));
    assert_eq!(r["isError"], true, "{r}");
    let message = text(&r);
    assert!(
        message.contains("limit-exceeded") && message.contains(TOTAL_FLAG),
        "the refusal names the budget: {message}"
    );
    assert_eq!(s.call_ok("filestore_execute", json!({"command": "echo next"})).trim(), "next");
    assert_eq!(
        other.call_ok("filestore_execute", json!({"command": "echo other"})).trim(),
        "other"
    );
}

/// With authentication, one identity's sandboxes are held to
/// `--sandbox-memory-per-identity-mib` (the refusal names it) while the total has
/// room; another identity is served.
#[test]
fn a_call_past_the_identity_budget_names_it() {
    let root = tempfile::tempdir().unwrap();
    let mount = workspace(root.path());
    let tokens = root.path().join("tokens.json");
    std::fs::write(
        &tokens,
        r#"{"tokens": [{"token": "alice-token-0123456789abcdef", "sub": "alice"}, {"token": "bob-token-0123456789abcdef01", "sub": "bob"}]}"#,
    )
    .unwrap();
    let server = Replica::start(
        BIN,
        root.path(),
        &[
            "--shell",
            "--mount",
            &mount,
            "--auth-tokens",
            tokens.to_str().unwrap(),
            "--sandbox-memory-mib",
            "4096",
            "--sandbox-memory-per-identity-mib",
            "64",
        ],
    );
    let mut alice = server.session(None, Some("alice-token-0123456789abcdef")).unwrap();
    let r = alice.call("filestore_execute", json!({"command": READ_BIG}));
    assert_eq!(r["isError"], true, "{r}");
    let message = text(&r);
    assert!(
        message.contains("limit-exceeded") && message.contains(PER_IDENTITY_FLAG),
        "the refusal names the identity's budget: {message}"
    );
    assert_eq!(alice.call_ok("filestore_execute", json!({"command": "echo a"})).trim(), "a");
    let mut bob = server.session(None, Some("bob-token-0123456789abcdef01")).unwrap();
    assert_eq!(bob.call_ok("filestore_execute", json!({"command": "echo b"})).trim(), "b");
}

/// Opens sessions (kept open) until one is refused; how many were made, and the
/// refusal.
fn sessions_until_refused(server: &Replica, token: Option<&str>) -> (usize, Answer) {
    let mut open = Vec::new();
    for _ in 0..16 {
        match server.session(None, token) {
            Ok(s) => open.push(s),
            Err(refused) => return (open.len(), refused),
        }
    }
    panic!("16 sessions were made within a budget meant for a few");
}

/// A new session the budget has no room for is refused at once, never with `500`:
/// `503` with `Retry-After` past the server's budget, `429` past an identity's while
/// another identity still gets one, each naming its flag.
#[test]
fn a_session_past_a_budget_is_refused_naming_it() {
    let root = tempfile::tempdir().unwrap();
    let server = Replica::start(BIN, root.path(), &["--sandbox-memory-mib", "8"]);
    let (made, refused) = sessions_until_refused(&server, None);
    assert!(made >= 1, "not even one session fit: {refused:?}");
    assert_eq!(refused.status, 503, "{refused:?}");
    assert!(refused.body.contains(TOTAL_FLAG), "{refused:?}");
    assert!(refused.header("retry-after").is_some(), "{refused:?}");

    let tokens = root.path().join("tokens.json");
    std::fs::write(
        &tokens,
        r#"{"tokens": [{"token": "alice-token-0123456789abcdef", "sub": "alice"}, {"token": "bob-token-0123456789abcdef01", "sub": "bob"}]}"#,
    )
    .unwrap();
    let tokens = tokens.to_str().unwrap();
    let args = ["--auth-tokens", tokens, "--sandbox-memory-per-identity-mib", "8"];
    let server = Replica::start(BIN, root.path(), &args);
    let (made, refused) = sessions_until_refused(&server, Some("alice-token-0123456789abcdef"));
    assert!(made >= 1, "not even one session fit: {refused:?}");
    assert_eq!(refused.status, 429, "{refused:?}");
    assert!(refused.body.contains(PER_IDENTITY_FLAG), "{refused:?}");
    server.session(None, Some("bob-token-0123456789abcdef01")).expect("bob has a share of his own");
}

// ---- what a replaced sandbox keeps ---------------------------------------------------

/// A configuration whose toolset leaves `hidden_report` to the `reporting` skill, and
/// a `fleet-plan` skill whose result may hold `decommission` for approval; the
/// server arguments using them.
fn skills_fixture(root: &Path) -> Vec<String> {
    let hidden_report = "---\nkind: tool\nname: hidden_report\ntype: sqlite-sql\nsource: db\n\
         description: A report only the reporting skill enables.\nstatement: SELECT 7 AS n;\n";
    let mut args = crate::support::fleet::write(root, hidden_report);
    let reporting = root.join("skills/reporting");
    std::fs::create_dir_all(&reporting).unwrap();
    std::fs::write(
        reporting.join("SKILL.md"),
        "---\nname: reporting\ndescription: Build reports.\nallowed-tools: hidden_report\n---\nRun it.\n",
    )
    .unwrap();
    args.push("--shell".to_string());
    // Copy-on-write: the session's changes are kept beside the directory.
    let ws = big_file_dir(root);
    std::fs::write(ws.join("run.sh"), "echo ran\n").unwrap();
    std::fs::write(ws.join("gone.txt"), "soon deleted\n").unwrap();
    args.extend(["--mount".to_string(), format!("/workspace={}:cow", ws.display())]);
    args
}

/// What makes the server replace a session's sandbox.
#[derive(Clone, Copy)]
enum Replaced {
    /// A call grows it past the reclaim threshold (it reads the 60 MB file).
    ByGrowth,
    /// A call traps it (`jq` out of stack): the old instance can no longer be
    /// asked what it held, so an agent could otherwise drop an approval gate on
    /// purpose this way.
    ByTrap,
}

/// A session activates a skill, gets a follow-up held for approval, makes a script
/// executable (`chmod`: bits only the instance knows) and changes its copy-on-write
/// workspace; then its sandbox is replaced (`how`), and the replacement still
/// offers the skill's tool, still holds the follow-up, still runs the script and
/// still sees the workspace as changed. Replaced by growth, the server's memory is
/// back near where it was (where the old behaviour kept about 90 MiB).
fn a_replaced_sandbox_keeps(extra: &[&str], how: Replaced) {
    let root = tempfile::tempdir().unwrap();
    let mut args = skills_fixture(root.path());
    let depth = 30_000;
    let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    std::fs::write(root.path().join("ws/deep.jq"), deep).unwrap();
    args.extend(extra.iter().map(|s| s.to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = Replica::start(BIN, root.path(), &refs);
    let mut s = server.session(None, None).unwrap();
    s.call_ok("filestore_read", json!({"path": "/skills/reporting/SKILL.md"}));
    assert!(s.tool_names().contains(&"hidden_report".to_string()));
    s.call_ok("filestore_read", json!({"path": "/skills/fleet-plan/SKILL.md"}));
    let asked = s.call("fleet-plan", json!({"threshold": 1}));
    assert_eq!(asked["structuredContent"]["requires_approval"], true, "{asked}");
    let shell = |s: &mut McpHttp, command: &str| {
        s.call_ok("filestore_execute", json!({"command": command})).trim().to_string()
    };
    let changes =
        "chmod +x /workspace/run.sh && rm /workspace/gone.txt && echo new > /workspace/new.txt";
    shell(&mut s, changes);
    assert_eq!(shell(&mut s, "/workspace/run.sh"), "ran");
    match how {
        Replaced::ByGrowth => {
            let before = rss(server.pid());
            read_big(&mut s);
            let grown = rss(server.pid()).saturating_sub(before);
            assert!(
                grown < RECLAIM_ABOVE_BYTES,
                "the session that read {BIG_BYTES} bytes left the server {} MiB larger",
                grown / MIB
            );
        }
        Replaced::ByTrap => {
            let trapped = s
                .call("filestore_execute", json!({"command": "echo 1 | jq -f /workspace/deep.jq"}));
            assert_eq!(trapped["_meta"]["filestore/error"]["kind"], "limit-exceeded", "{trapped}");
            assert!(text(&trapped).contains("ran out of stack"), "{trapped}");
        }
    }
    assert!(s.tool_names().contains(&"hidden_report".to_string()), "the skill's tool is gone");
    assert!(s.call_ok("hidden_report", json!({})).contains('7'));
    let held = s.call("decommission", json!({}));
    assert_eq!(held["isError"], true, "the held follow-up ran: {held}");
    assert!(text(&held).contains("approv") && !text(&held).contains("done"), "{held}");
    assert_eq!(shell(&mut s, "/workspace/run.sh"), "ran", "the chmod bits are gone");
    let seen = "test -e /workspace/gone.txt || echo gone; cat /workspace/new.txt";
    assert_eq!(shell(&mut s, seen), "gone\nnew");
}

/// Without `--state` the session's skills and held follow-ups are carried from the
/// old instance to the new one.
#[test]
fn a_replaced_sandbox_keeps_its_skills_and_held_follow_ups() {
    a_replaced_sandbox_keeps(&[], Replaced::ByGrowth);
}

/// With `--state` the replacement is brought up to the conversation's document.
#[test]
fn a_replaced_conversation_sandbox_keeps_its_skills_and_held_follow_ups() {
    a_replaced_sandbox_keeps(&["--state", "mem:"], Replaced::ByGrowth);
}

/// A trap poisons the instance before anything can be read from it: what it held
/// is carried from the end of the call before.
#[test]
fn a_trapped_sandbox_keeps_its_skills_and_held_follow_ups() {
    a_replaced_sandbox_keeps(&[], Replaced::ByTrap);
}

/// The same with `--state`: the conversation's document has it.
#[test]
fn a_trapped_conversation_sandbox_keeps_its_skills_and_held_follow_ups() {
    a_replaced_sandbox_keeps(&["--state", "mem:"], Replaced::ByTrap);
}
