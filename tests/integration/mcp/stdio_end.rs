//! The end of a stdio client's input, as a script's `printf ... | filestore serve`
//! ends it: requests written whole, the input closed behind them before any is
//! answered. Every request read is answered, then the server exits.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use super::BIN;

/// The `initialize` request and the `initialized` notification, as lines.
fn handshake() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "pipe", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

fn command(id: i64, command: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "filestore_execute", "arguments": {"command": command, "timeout_ms": 25_000}}})
}

/// Runs `filestore serve --shell` with `messages` as its whole input: its answers
/// by id (each id answered once), and its stderr. Fails if it does not exit
/// successfully.
fn piped(messages: &[Value]) -> (std::collections::BTreeMap<i64, Value>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["serve", "--shell", "--mount", "/s=mem:"])
        .current_dir(tmp.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    let status = child.wait().unwrap();
    let stderr = stderr.join().unwrap();
    assert!(status.success(), "{status}: {stderr}");
    let mut answers = std::collections::BTreeMap::new();
    for line in out.lines() {
        let m: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if m.get("method").is_some() {
            continue; // a notification or a request of the server's
        }
        let id = m["id"].as_i64().unwrap_or_else(|| panic!("an answer without an id: {m}"));
        assert!(answers.insert(id, m).is_none(), "{id} answered twice: {out}");
    }
    (answers, stderr)
}

/// Commands that take longer together (6 s) than the end of input waits for any
/// one answer (5 s), written whole before the first is answered: each is answered
/// with its own output.
#[test]
fn every_request_read_before_the_input_ends_is_answered() {
    let mut messages = handshake();
    for id in 1..=6 {
        messages.push(command(id, &format!("sleep 1; echo {id} > /s/f{id}; cat /s/f{id}")));
    }
    let (answers, stderr) = piped(&messages);
    assert_eq!(answers.keys().copied().collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5, 6], "{stderr}");
    for id in 1..=6 {
        let stdout = &answers[&id]["result"]["structuredContent"]["stdout"];
        assert_eq!(stdout, &json!(format!("{id}\n")), "{}", answers[&id]);
    }
}

/// A command that would run on past the wait (its own timeout is 25 s) is
/// cancelled and answered with an error that says why, and the server exits. A
/// request sent after it is answered too: with its result if it ran first
/// (requests sent without waiting run concurrently), else given up with it.
#[test]
fn a_request_still_unanswered_after_the_wait_gets_an_error() {
    let mut messages = handshake();
    messages.push(command(1, "while true; do seq 1 1000 > /dev/null; done"));
    messages.push(command(2, "echo behind"));
    let (answers, stderr) = piped(&messages);
    assert_eq!(answers.keys().copied().collect::<Vec<_>>(), [0, 1, 2], "{stderr}");
    let given_up = |answer: &Value| {
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        answer["error"]["code"] == -32603
            && message.contains("input ended")
            && message.contains("5 s")
    };
    assert!(given_up(&answers[&1]), "{}", answers[&1]);
    let behind = &answers[&2];
    let ran = behind["result"]["structuredContent"]["stdout"] == "behind\n";
    assert!(ran || given_up(behind), "{behind}");
}
