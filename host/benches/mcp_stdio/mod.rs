//! A minimal synchronous MCP client over a server process's stdio, one request in
//! flight, so its own cost does not blur the server's (`mod mcp_stdio;` in the benches
//! that talk to a server: a bench is a crate of its own).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// One MCP server process and the client end of its stdio; killed when dropped.
pub struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    /// Starts `cmd` (its stderr discarded) and initialises the session.
    pub fn start(mut cmd: Command) -> Server {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {cmd:?}: {e}"));
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut s = Server { child, stdin, stdout, next_id: 0 };
        s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "filestore-bench", "version": "0"}}),
        );
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    /// The server's process id.
    #[allow(dead_code)]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn send(&mut self, msg: &Value) {
        let mut line = msg.to_string();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).expect("write to server");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and returns its result, skipping notifications.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).expect("read from server");
            assert!(n > 0, "the server closed stdout during {method}");
            let msg: Value = serde_json::from_str(&line).expect("the server sent invalid JSON");
            if msg.get("id") == Some(&json!(id)) {
                if let Some(err) = msg.get("error") {
                    panic!("{method} failed: {err}");
                }
                return msg["result"].clone();
            }
        }
    }

    /// `tools/call` of `tool`; a result with `isError` fails the bench.
    pub fn call(&mut self, tool: &str, args: &Value) -> Value {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert_ne!(r.get("isError"), Some(&json!(true)), "{tool} {args} failed: {r}");
        r
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
