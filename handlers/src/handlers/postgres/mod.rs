//! `postgres-sql` and `postgres-execute-sql` tools on `postgres` sources (Toolbox's
//! flagship pair), and the same statement tools of the other PostgreSQL-wire sources
//! (`cockroachdb-sql`, `yugabytedb-sql`...; see
//! `filestore_guest::tools::config::RUNNABLE_TOOL_TYPES`), through rust-postgres with
//! a pool per source.
//!
//! Binding: the statement is prepared, and `$N` receives the N-th declared parameter
//! (as pgx does with Toolbox's positional slice); each JSON value is encoded for the
//! type the server inferred for its placeholder ([`codec`]), so `$1` compared with an
//! `integer` column takes `3` and a `date` column takes `"2024-05-01"`. Values are
//! always bound, never spliced into the SQL. Template parameters arrive already
//! substituted (validated and escaped) by the component.
//!
//! Results: rows as JSON objects in column order ([`codec`] says how each type reads);
//! a statement without result columns yields `{"rows_affected": n}` (Toolbox returns
//! `null`, which cannot tell an UPDATE that changed nothing from one that changed
//! rows: a deliberate extension, as for SQLite). Rows are counted against the tool
//! result limit ([`ToolRequest::max_result_bytes`]) as they arrive, and the socket
//! itself refuses to take in a row much larger than it ([`client::Meter`]): past the
//! limit the call fails `limit-exceeded` and its connection is closed.
//!
//! `postgres-execute-sql` runs the model's `sql` unbound. One statement is prepared
//! and typed like the above; a script of several statements (which the extended
//! protocol refuses) runs through the simple protocol, where the server sends text:
//! the last statement's rows come back as strings, counted as they arrive too.
//!
//! Pools: one per source (keyed by its resolved fields, so an edited configuration
//! gets a new pool), at most [`POOL_SIZE`] connections, checked on checkout, opened
//! lazily (a server that is down fails the call with the reason, not the start); see
//! [`super::pool`]. A connection that ran a model's SQL (`postgres-execute-sql`) is closed
//! after the call instead of pooled: whatever that SQL left (an open transaction, a
//! role, temporary tables) never reaches another call. A watchdog cancels a statement
//! still running [`CANCEL_GRACE`] after the deadline, whatever `statement_timeout` the
//! SQL set. Each call sets
//! `statement_timeout` to the time left before its deadline, so the server itself
//! cancels a runaway query when the call times out, and the connection returns to
//! the pool usable.

pub mod client;
pub mod codec;
pub mod connect;
mod regnames;

use std::time::Duration;

use postgres::types::ToSql;
use serde_json::{Map, Value, json};

use super::pool::{self, Pool, Pools};
use client::{Client, ConnectError};
use connect::Connection;

use filestore_runtime::tools::{ResultBudget, ToolError, ToolHandler, ToolRequest, budget};

/// Bytes a connection may take in ahead of the next row beyond the result limit
/// itself: the driver's read-ahead of small rows and protocol framing.
pub const READ_AHEAD_SLACK: u64 = 1024 * 1024;

/// Connections per source pool (pgxpool's default is max(4, CPUs)).
pub const POOL_SIZE: u32 = 4;

/// How long after a call's deadline the watchdog cancels a statement still running.
pub const CANCEL_GRACE: Duration = Duration::from_millis(250);

/// An idle connection older than this is closed instead of reused.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// The `postgres-sql` and `postgres-execute-sql` handlers, sharing the pools.
#[derive(Default)]
pub struct PostgresHandler {
    /// `execute-sql` semantics (the model's `sql`) instead of a configured statement.
    execute: bool,
    pools: std::sync::Arc<Pools<Connection>>,
}

impl std::fmt::Debug for PostgresHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresHandler").field("execute", &self.execute).finish()
    }
}

impl PostgresHandler {
    /// The `postgres-sql` handler.
    pub fn sql() -> PostgresHandler {
        PostgresHandler::default()
    }

    /// Another statement handler sharing this one's pools (for the prebuilt types).
    pub fn same_pools(&self) -> PostgresHandler {
        PostgresHandler { execute: false, pools: self.pools.clone() }
    }

    /// The `postgres-execute-sql` handler, sharing this one's pools.
    pub fn execute_sql(&self) -> PostgresHandler {
        PostgresHandler { execute: true, pools: self.pools.clone() }
    }

    fn pool(&self, req: &ToolRequest) -> Result<std::sync::Arc<Pool<Connection>>, ToolError> {
        let source = super::source_speaking(req, "postgres")?;
        self.pools.of(source, "", POOL_SIZE as usize, IDLE_TIMEOUT, || connect::connection(source))
    }
}

impl ToolHandler for PostgresHandler {
    fn call(&self, req: &ToolRequest) -> Result<Value, ToolError> {
        let pool = self.pool(req)?;
        let source = req.require_source()?.name.clone();
        let left = req.time_left();
        if left.is_zero() {
            return Err(ToolError::limit_exceeded(format!(
                "tool '{}': no time left",
                req.tool_name
            )));
        }
        let client = pool.get(req.deadline).map_err(|e| match e {
            pool::Unavailable::Connect(e) => {
                let why = match e {
                    ConnectError::Driver(e) => fail(req, e).to_string(),
                    ConnectError::Other(why) => why,
                };
                let why = why.strip_prefix(&format!("tool '{}': ", req.tool_name)).unwrap_or(&why).to_string();
                ToolError::backend(format!("tool '{}': cannot connect to source '{source}': {why}", req.tool_name))
            }
            pool::Unavailable::Busy => ToolError::limit_exceeded(format!(
                "tool '{}': all {POOL_SIZE} connections of source '{source}' stayed busy until the call's timeout",
                req.tool_name
            )),
        })?;
        // Whole milliseconds, at least one (0 would mean no timeout at all).
        let ms = req.time_left().as_millis().clamp(1, i32::MAX as u128);
        client.batch_execute(&format!("SET statement_timeout = {ms}")).map_err(|e| fail(req, e))?;
        // The server stops the statement at the deadline; the watchdog also cancels
        // it a moment later whatever the SQL did to that setting, or at once when
        // the caller cancels the call.
        let canceller = client.canceller(pool.connector().tls.clone());
        let watchdog = super::watchdog::watch(req, CANCEL_GRACE, move || canceller.cancel())?;
        client.meter().arm(req.max_result_bytes.saturating_add(READ_AHEAD_SLACK));
        let result = if self.execute {
            let sql = req.arguments.get("sql").and_then(Value::as_str).ok_or_else(|| {
                ToolError::invalid_argument(format!(
                    "tool '{}': no 'sql' to execute",
                    req.tool_name
                ))
            });
            sql.and_then(|sql| execute(req, &client, sql))
        } else {
            let statement = req.statement.as_deref().ok_or_else(|| {
                ToolError::invalid_argument(format!("tool '{}' has no statement", req.tool_name))
            });
            statement.and_then(|s| run(req, &client, s))
        };
        let fired = watchdog.finish();
        client.meter().disarm();
        // A row past the limit ended the connection as it arrived: the driver's
        // error says only that it closed.
        let tripped = client.meter().tripped();
        let result = if tripped {
            Err(budget::limit_exceeded(&req.tool_name, req.max_result_bytes))
        } else {
            result
        };
        // What a model's SQL leaves on its connection (an open transaction and its
        // locks, `SET ROLE`, temporary tables, `DEALLOCATE ALL` under the driver's
        // cached statements) must not reach the next call, which may be another
        // session's: that connection is closed, never pooled. (`DISCARD ALL` would
        // also drop the driver's own prepared statements.)
        // A connection whose statement the watchdog cancelled goes too: the cancel
        // may still be on its way (see `Watchdog::finish`).
        if self.execute || fired || tripped {
            client.discard();
        }
        result
    }
}

/// A driver error as a tool error: the server's own message (with its detail and
/// hint), a timeout as a limit.
fn fail(req: &ToolRequest, e: tokio_postgres::Error) -> ToolError {
    if let Some(db) = e.as_db_error() {
        let mut m = format!("tool '{}': {}: {}", req.tool_name, db.severity(), db.message());
        if let Some(d) = db.detail() {
            m.push_str(&format!(" ({d})"));
        }
        if let Some(h) = db.hint() {
            m.push_str(&format!(" hint: {h}"));
        }
        if *db.code() == postgres::error::SqlState::QUERY_CANCELED {
            return ToolError::limit_exceeded(format!("{m}: stopped at the call's timeout"));
        }
        return ToolError::backend(m);
    }
    // Parameter encoding errors carry their source (which parameter, which type).
    let mut m = format!("tool '{}': {e}", req.tool_name);
    let mut cause = std::error::Error::source(&e);
    while let Some(c) = cause {
        let s = c.to_string();
        if !m.contains(&s) {
            m.push_str(&format!(": {s}"));
        }
        cause = c.source();
    }
    ToolError::backend(m)
}

/// A configured statement, its parameters bound by number.
fn run(req: &ToolRequest, client: &Client, statement: &str) -> Result<Value, ToolError> {
    let stmt = client.prepare(statement).map_err(|e| fail(req, e))?;
    let names = req.positional_names();
    let wanted = stmt.params().len();
    if wanted > req.positional.len() {
        return Err(ToolError::invalid_argument(format!(
            "tool '{}': the statement has {wanted} placeholders but the tool declares {} parameters",
            req.tool_name,
            req.positional.len()
        )));
    }
    // Declared names from the tool's document; a prebuilt type's parameters are the
    // component's, so there the placeholder stands for the name.
    let labels: Vec<String> = (0..wanted)
        .map(|i| {
            names.get(i).filter(|n| !n.is_empty()).cloned().unwrap_or_else(|| format!("${}", i + 1))
        })
        .collect();
    let params: Vec<codec::Param> = req.positional[..wanted]
        .iter()
        .zip(&labels)
        .map(|(v, name)| codec::Param { value: v, name })
        .collect();
    let refs: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
    rows(req, client, &stmt, &refs)
}

/// `stmt`'s rows as JSON, counted against the result limit as they arrive.
fn rows(
    req: &ToolRequest,
    client: &Client,
    stmt: &postgres::Statement,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Value, ToolError> {
    if stmt.columns().is_empty() {
        let n = client.execute(stmt, params).map_err(|e| fail(req, e))?;
        return Ok(json!({"rows_affected": n}));
    }
    let mut out = Vec::new();
    let mut budget = ResultBudget::of(req);
    budget.charge(2)?;
    let mut it = client.rows(stmt, params).map_err(|e| fail(req, e))?;
    while let Some(row) = it.fetch().map_err(|e| fail(req, e))? {
        budget.row()?;
        let mut obj = Map::new();
        for (i, col) in row.columns().iter().enumerate() {
            let raw: codec::Raw = row.try_get(i).map_err(|e| fail(req, e))?;
            let v = codec::decode(col.type_(), raw.0).map_err(|e| {
                e.map_message(|why| {
                    format!("tool '{}': column '{}' {why}", req.tool_name, col.name())
                })
            })?;
            budget.charge(budget::json_len(&v) + col.name().len() as u64 + 4)?;
            obj.insert(col.name().to_string(), v);
        }
        out.push(Value::Object(obj));
    }
    drop(it);
    regnames::resolve(client, stmt.columns(), &mut out).map_err(|e| fail(req, e))?;
    Ok(Value::Array(out))
}

/// The model's SQL: one statement typed, a script through the simple protocol.
fn execute(req: &ToolRequest, client: &Client, sql: &str) -> Result<Value, ToolError> {
    match client.prepare(sql) {
        Ok(stmt) => rows(req, client, &stmt, &[]),
        // 42601 "cannot insert multiple commands into a prepared statement".
        Err(e)
            if e.code() == Some(&tokio_postgres::error::SqlState::SYNTAX_ERROR)
                && e.as_db_error().is_some_and(|d| d.message().contains("multiple commands")) =>
        {
            script(req, client, sql)
        }
        Err(e) => Err(fail(req, e)),
    }
}

/// A script's messages as they arrive: the last statement's rows (or count), each
/// result counted against the limit while it is read.
fn script(req: &ToolRequest, client: &Client, sql: &str) -> Result<Value, ToolError> {
    let mut messages = client.simple(sql).map_err(|e| fail(req, e))?;
    let mut current: Vec<Value> = Vec::new();
    let mut described = false;
    let mut last: Value = json!({"rows_affected": 0});
    let mut budget = ResultBudget::of(req);
    while let Some(m) = messages.fetch().map_err(|e| fail(req, e))? {
        match m {
            postgres::SimpleQueryMessage::Row(row) => {
                budget.row()?;
                let row = codec::text_row(&row);
                budget.charge_json(&row)?;
                current.push(row);
            }
            postgres::SimpleQueryMessage::RowDescription(_) => {
                described = true;
                current.clear();
                // The result before is replaced by this one (which counts from 0).
                last = Value::Null;
                budget.reset();
            }
            postgres::SimpleQueryMessage::CommandComplete(n) => {
                last = if std::mem::take(&mut described) {
                    Value::Array(std::mem::take(&mut current))
                } else {
                    json!({"rows_affected": n})
                };
            }
            _ => {}
        }
    }
    Ok(last)
}
