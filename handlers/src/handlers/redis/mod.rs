//! `redis` tools on `redis` sources and `valkey` tools on `valkey` sources (Valkey
//! is a fork of Redis 7.2; both speak RESP): a call sends the tool's `commands`,
//! which the component rendered with the call's values in place (the request's
//! statement, a JSON array of word lists: `filestore_guest::tools::commands`), over a
//! pooled connection ([`connect`]), pipelined, and answers one entry per command, as
//! Toolbox's tools do: the reply as JSON ([`resp`]), or, for a command the server
//! refused or a nil reply, the text Toolbox's client writes in its place (`error from
//! executing command at index N: ...`).
//!
//! Bounds: the replies are read against the tool result limit and a count of values
//! ([`resp::Limits`]) as they arrive; past either, the call fails `limit-exceeded` and
//! its connection is closed (replies are left unread on it). Every read gives up at
//! the call's deadline and soon after a cancel.
//!
//! Connections: pooled per source. A connection whose commands changed what the next
//! call on it would see (`SELECT`, `MULTI`, `CLIENT`, `AUTH`, scripts...) is closed
//! after the call instead of pooled, as is one whose call failed midway. Commands
//! that answer more than once (`SUBSCRIBE`, `MONITOR`) are refused.

pub(crate) mod connect;
pub(crate) mod resp;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::pool::{Pools, Unavailable};
use connect::{RedisConnector, Stopped};
use resp::{Limits, ReadError, Reply};

use filestore_runtime::tools::{Source, ToolError, ToolHandler, ToolRequest, budget};

/// What Toolbox's Valkey client (valkey-go) calls a nil reply.
const VALKEY_NIL: &str = "valkey nil message";

/// Connections per source pool.
pub const POOL_SIZE: usize = 4;

/// An idle connection older than this is closed instead of reused.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// Commands after which a connection is not given to another call: they change the
/// connection's database, transaction, subscriptions, identity or protocol.
/// Scripts are among them: before Redis 7 a `SELECT` inside one changed the caller's
/// database.
const CONNECTION_STATE: &[&str] = &[
    "SELECT",
    "MULTI",
    "EXEC",
    "DISCARD",
    "WATCH",
    "UNWATCH",
    "UNSUBSCRIBE",
    "PUNSUBSCRIBE",
    "SUNSUBSCRIBE",
    "CLIENT",
    "AUTH",
    "HELLO",
    "RESET",
    "READONLY",
    "READWRITE",
    "QUIT",
    "SYNC",
    "PSYNC",
    "REPLCONF",
    "EVAL",
    "EVALSHA",
    "EVAL_RO",
    "EVALSHA_RO",
    "FCALL",
    "FCALL_RO",
];

/// Commands that answer more than once (a confirmation per channel, then messages):
/// a tool call answers once, so they are refused before anything is sent.
const STREAMING: &[&str] = &["SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "MONITOR"];

/// The handler of `redis` and `valkey` tools.
#[derive(Default)]
pub struct RedisHandler {
    pools: Arc<Pools<RedisConnector>>,
}

impl std::fmt::Debug for RedisHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisHandler").finish()
    }
}

impl RedisHandler {
    /// Another handler sharing this one's pools (`valkey` beside `redis`).
    pub fn same_pools(&self) -> RedisHandler {
        RedisHandler { pools: self.pools.clone() }
    }
}

impl ToolHandler for RedisHandler {
    fn call(&self, req: &ToolRequest) -> Result<Value, ToolError> {
        let tool = &req.tool_name;
        let source = super::source_speaking(req, "redis")?;
        let commands: Vec<Vec<String>> = req
            .statement
            .as_deref()
            .and_then(|s| serde_json::from_str(s).ok())
            .filter(|c: &Vec<Vec<String>>| !c.is_empty() && c.iter().all(|w| !w.is_empty()))
            .ok_or_else(|| ToolError::invalid_argument(format!("tool '{tool}' has no commands")))?;
        if let Some((i, c)) = commands
            .iter()
            .enumerate()
            .find(|(_, c)| STREAMING.iter().any(|s| c[0].eq_ignore_ascii_case(s)))
        {
            return Err(ToolError::invalid_argument(format!(
                "tool '{tool}': command {i} is {}, which answers more than once; a tool call answers once (read a list or stream instead)",
                c[0].to_ascii_uppercase()
            )));
        }
        let pool = self
            .pools
            .of(source, "", POOL_SIZE, IDLE_TIMEOUT, || RedisConnector::of(source))
            .map_err(|e| ToolError::invalid_argument(format!("tool '{tool}': {e}")))?;
        if req.time_left().is_zero() {
            return Err(ToolError::limit_exceeded(format!("tool '{tool}': no time left")));
        }
        let mut conn = pool.get(req.deadline).map_err(|e| match e {
            Unavailable::Connect(e) => ToolError::backend(format!(
                "tool '{tool}': cannot connect to source '{}': {e}",
                source.name
            )),
            Unavailable::Busy => ToolError::limit_exceeded(format!(
                "tool '{tool}': all {POOL_SIZE} connections of source '{}' stayed busy until the call's timeout",
                source.name
            )),
        })?;
        conn.arm(req.deadline, req.cancel.clone());
        let result = run(req, source, &mut conn, &commands);
        let changes_state =
            commands.iter().any(|c| CONNECTION_STATE.iter().any(|s| c[0].eq_ignore_ascii_case(s)));
        if result.is_err() || changes_state {
            conn.discard();
        }
        let value = result?;
        // What the limit holds is the JSON text; the reader bounded the raw bytes.
        budget::ResultBudget::of(req).charge_json(&value)?;
        Ok(value)
    }
}

/// Sends `commands` and reads one reply each.
fn run(
    req: &ToolRequest,
    source: &Source,
    conn: &mut connect::Conn,
    commands: &[Vec<String>],
) -> Result<Value, ToolError> {
    let tool = &req.tool_name;
    let nil = match source.source_type.as_str() {
        // What each Toolbox client calls a nil reply (go-redis, valkey-go).
        "valkey" => VALKEY_NIL,
        _ => "redis: nil",
    };
    conn.send(commands).map_err(|e| io_error(req, &e))?;
    let mut limits = Limits::new(req.max_result_bytes);
    let mut out = Vec::with_capacity(commands.len());
    for i in 0..commands.len() {
        let reply = conn.reply(&mut limits).map_err(|e| match e {
            ReadError::Io(e) => io_error(req, &e),
            ReadError::Protocol(p) => ToolError::backend(format!(
                "tool '{tool}': the server's reply to command {i} is not RESP: {p}"
            )),
            ReadError::TooLarge => budget::limit_exceeded(tool, req.max_result_bytes),
            ReadError::TooDeep => ToolError::limit_exceeded(format!(
                "tool '{tool}': the reply to command {i} nests deeper than {} levels",
                resp::MAX_DEPTH
            )),
            ReadError::TooMany => ToolError::limit_exceeded(format!(
                "tool '{tool}': the replies hold more than {} values, the tool result limit of values; ask for less (SCAN with COUNT, LRANGE or ZRANGE with a range)",
                resp::MAX_REPLY_VALUES
            )),
        })?;
        out.push(match reply {
            Reply::Value(v) => v,
            Reply::Error(e) => {
                // valkey-go leaves out the generic `ERR ` prefix (and only that one).
                let e = match e.strip_prefix("ERR ") {
                    Some(rest) if nil == VALKEY_NIL => rest,
                    _ => &e,
                };
                Value::String(format!("error from executing command at index {i}: {e}"))
            }
            Reply::Nil => {
                Value::String(format!("error from executing command at index {i}: {nil}"))
            }
        });
    }
    Ok(Value::Array(out))
}

/// A connection's failure as the call's error.
fn io_error(req: &ToolRequest, e: &std::io::Error) -> ToolError {
    let tool = &req.tool_name;
    match Stopped::of(e) {
        Some(Stopped::Cancelled) => {
            ToolError::limit_exceeded(format!("tool '{tool}': interrupted: the call was cancelled"))
        }
        Some(Stopped::Deadline) => {
            ToolError::limit_exceeded(format!("tool '{tool}': interrupted at its timeout"))
        }
        None => ToolError::backend(format!(
            "tool '{tool}': the connection to source '{}' failed: {e}",
            req.source.as_ref().map_or("?", |s| s.name.as_str())
        )),
    }
}
