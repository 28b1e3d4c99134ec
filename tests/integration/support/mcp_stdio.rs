//! A JSON-RPC/MCP client of a stdio server child process: requests by id, answers
//! matched by id, notifications kept aside, and the server's stderr shown whenever
//! something is not as expected.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// How long an answer may take before the test fails instead of hanging. Not a
/// timing assertion: a guard.
const ANSWER_GUARD: Duration = Duration::from_secs(300);

/// A running stdio MCP server and the client side of its session.
pub struct McpStdio {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    stderr: std::thread::JoinHandle<String>,
    command: String,
    next_id: i64,
    /// Notifications received while waiting for answers, in order.
    pub notifications: Vec<Value>,
}

impl McpStdio {
    /// Starts `command` (its stdin, stdout and stderr piped) and completes the MCP
    /// handshake; the `initialize` result is returned beside the client.
    #[track_caller]
    pub fn start(mut command: Command) -> (McpStdio, Value) {
        let line = format!("{command:?}");
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {line}: {e}"));
        let stdout = child.stdout.take().unwrap();
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    let _ = tx.send(v);
                }
            }
        });
        let mut err = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            text
        });
        let stdin = child.stdin.take();
        let mut client = McpStdio {
            child,
            stdin,
            messages,
            stderr,
            command: line,
            next_id: 1,
            notifications: Vec::new(),
        };
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "filestore-tests", "version": "0"}}),
        );
        client.notify("notifications/initialized", json!({}));
        (client, init)
    }

    /// The server's process id (to read what the kernel says of it).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string());
    }

    /// Sends one line as it is (a message too large, or not JSON at all).
    pub fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        if let Err(e) = writeln!(stdin, "{line}").and_then(|()| stdin.flush()) {
            let why = self.stop_and_describe();
            panic!("writing to {}: {e}\n{why}", self.command);
        }
    }

    /// The next message the server sends, whatever it is.
    #[track_caller]
    pub fn next_message(&mut self) -> Value {
        match self.messages.recv_timeout(ANSWER_GUARD) {
            Ok(m) => m,
            Err(e) => {
                let why = self.stop_and_describe();
                panic!("no message from {}: {e}\n{why}", self.command)
            }
        }
    }

    /// Sends a request and returns its whole answer (`result` or `error`).
    #[track_caller]
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let message = self.next_message();
            if message["id"] == id {
                return message;
            }
            if message.get("id").is_none() {
                self.notifications.push(message);
            }
        }
    }

    /// Calls a tool; returns the `result` of a successful call (which may itself be
    /// a tool error, `isError: true`). A JSON-RPC error fails the test.
    #[track_caller]
    pub fn call_tool(&mut self, name: &str, arguments: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        match answer.get("result") {
            Some(r) => r.clone(),
            None => panic!("tools/call {name}: {answer}"),
        }
    }

    /// The names of the tools listed now.
    #[track_caller]
    pub fn tool_names(&mut self) -> Vec<String> {
        let answer = self.request("tools/list", json!({}));
        answer["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("tools/list: {answer}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// Closes stdin, the end of the client's input, while answers may still come.
    pub fn end_input(&mut self) {
        self.stdin = None;
    }

    /// Closes stdin (the end of the session) and returns how the server ended and
    /// what it printed on stderr.
    pub fn close(mut self) -> (ExitStatus, String) {
        self.stdin = None;
        let status = self.child.wait().expect("waiting for the server");
        let stderr = self.stderr.join().unwrap_or_default();
        (status, stderr)
    }

    fn stop_and_describe(&mut self) -> String {
        self.stdin = None;
        let _ = self.child.kill();
        let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
        let stderr = std::mem::replace(&mut self.stderr, std::thread::spawn(String::new));
        format!("status: {status}\n--- stderr ---\n{}", stderr.join().unwrap_or_default())
    }
}
