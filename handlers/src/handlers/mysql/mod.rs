//! `mysql-sql` and `mysql-execute-sql` tools on `mysql` sources, through the
//! synchronous rust-mysql-simple client (`mysql` crate) with a pool per source (the
//! pool the postgres handler uses, [`super::pool`]).
//!
//! Binding: the statement is prepared on the server and `?` receives the declared
//! parameters in order, as Toolbox's `database/sql` does with its positional slice;
//! each JSON value binds by its JSON type ([`codec`]). Values are always bound, never
//! spliced into the SQL. Template parameters arrive already substituted (validated
//! and escaped) by the component.
//!
//! Results: rows as JSON objects in column order ([`codec`] says how each type
//! reads); a statement without result columns yields `{"rows_affected": n}` (Toolbox
//! returns `null`: the deliberate `rows-affected` difference, as for SQLite and
//! PostgreSQL). Rows are counted against the tool result limit
//! ([`ToolRequest::max_result_bytes`]) as they arrive; past it the statement is killed
//! and the call fails `limit-exceeded`. The driver's own `max_allowed_packet` is set
//! to the limit (and a little more), so no single row larger than that is taken in.
//!
//! `mysql-execute-sql` runs the model's `sql` unbound through the text protocol; a
//! script of several statements runs whole and answers with the last statement's
//! result. Toolbox's prebuilt `mysql-list-tables`... types run Toolbox's own
//! statements through [`catalog`].
//!
//! Connections: a connection that ran a model's SQL is closed after the call instead
//! of pooled: whatever that SQL left (an open transaction and its locks, session
//! variables, temporary tables, `SET ROLE`) never reaches another call. Each call sets
//! the server's statement timeout (MariaDB `max_statement_time`, MySQL
//! `max_execution_time`) to the time left before its deadline (or the source's
//! `queryTimeout`, whichever is less), so the server itself stops a runaway query; a
//! watchdog also sends `KILL QUERY` over a connection of its own a moment after the
//! deadline, or as soon as the caller cancels the call, whatever the SQL did to that
//! setting.

pub mod catalog;
pub(crate) mod codec;
pub mod connect;

use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql::prelude::Queryable;
use serde_json::{Map, Value, json};

use super::pool::{Pool, Pools, Unavailable};
use connect::{Connection, MyConn};

use filestore_guest::error::ErrorKind;
use filestore_runtime::tools::{ResultBudget, ToolError, ToolHandler, ToolRequest, budget};

/// Bytes one packet (a row) may have beyond the result limit: its framing, and room
/// for a statement's own text and parameters, which travel in packets too.
pub const PACKET_SLACK: u64 = 1024 * 1024;

/// Connections per source pool.
pub const POOL_SIZE: usize = 4;

/// How long after a call's deadline the watchdog kills a statement still running.
pub const CANCEL_GRACE: Duration = Duration::from_millis(250);

/// An idle connection older than this is closed instead of reused.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// MariaDB's error when `max_statement_time` stopped a statement.
const ER_STATEMENT_TIMEOUT: u16 = 1969;
/// MySQL's error when `max_execution_time` stopped a statement.
const ER_QUERY_TIMEOUT: u16 = 3024;
/// A statement stopped by `KILL QUERY`.
const ER_QUERY_INTERRUPTED: u16 = 1317;

/// What a handler runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Mode {
    /// The configured statement (`mysql-sql`).
    #[default]
    Sql,
    /// The model's `sql` (`mysql-execute-sql`).
    Execute,
    /// Toolbox's prebuilt catalog types ([`catalog`]).
    Catalog,
}

/// The `mysql-sql`, `mysql-execute-sql` and catalog handlers, sharing the pools.
#[derive(Default)]
pub struct MysqlHandler {
    mode: Mode,
    pools: Arc<Pools<Connection>>,
}

impl std::fmt::Debug for MysqlHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlHandler").field("mode", &self.mode).finish()
    }
}

impl MysqlHandler {
    /// The `mysql-sql` handler.
    pub fn sql() -> MysqlHandler {
        MysqlHandler::default()
    }

    /// Another `mysql-sql` handler sharing this one's pools (`tidb-sql`...).
    pub fn same_pools(&self) -> MysqlHandler {
        MysqlHandler { mode: Mode::Sql, pools: self.pools.clone() }
    }

    /// The `mysql-execute-sql` handler, sharing this one's pools.
    pub fn execute_sql(&self) -> MysqlHandler {
        MysqlHandler { mode: Mode::Execute, pools: self.pools.clone() }
    }

    /// The handler of Toolbox's prebuilt catalog types ([`catalog`]), sharing this
    /// one's pools.
    pub fn catalog(&self) -> MysqlHandler {
        MysqlHandler { mode: Mode::Catalog, pools: self.pools.clone() }
    }

    fn pool(&self, req: &ToolRequest) -> Result<Arc<Pool<Connection>>, ToolError> {
        let source = super::source_speaking(req, "mysql")?;
        // The driver refuses a packet past this as it arrives (its header tells the
        // size): a row larger than the result limit is never taken in whole.
        let packet = req.max_result_bytes.saturating_add(PACKET_SLACK);
        self.pools.of(source, &packet.to_string(), POOL_SIZE, IDLE_TIMEOUT, || {
            connect::connection(source).map(|c| c.max_packet(packet))
        })
    }
}

impl ToolHandler for MysqlHandler {
    fn call(&self, req: &ToolRequest) -> Result<Value, ToolError> {
        let pool = self.pool(req)?;
        let source = req.require_source()?.name.clone();
        if req.time_left().is_zero() {
            return Err(ToolError::limit_exceeded(format!(
                "tool '{}': no time left",
                req.tool_name
            )));
        }
        let mut client = pool.get(req.deadline).map_err(|e| match e {
            Unavailable::Connect(e) => ToolError::backend(format!(
                "tool '{}': cannot connect to source '{source}': {}",
                req.tool_name,
                describe(&e)
            )),
            Unavailable::Busy => ToolError::limit_exceeded(format!(
                "tool '{}': all {POOL_SIZE} connections of source '{source}' stayed busy until the call's timeout",
                req.tool_name
            )),
        })?;
        let bound = match pool.connector().query_timeout {
            Some(t) if !t.is_zero() => req.time_left().min(t),
            _ => req.time_left(),
        };
        set_statement_timeout(&mut client, bound).map_err(|e| fail(req, e))?;
        let id = client.conn.connection_id();
        // A connection of its own: the statement's is busy.
        let kill = move |pool: &Pool<Connection>| {
            let give_up = Instant::now() + Duration::from_secs(5);
            if let Ok(mut c) = pool.connector().open(give_up) {
                let _ = c.query_drop(format!("KILL QUERY {id}"));
            }
        };
        let killer = pool.clone();
        let watchdog = super::watchdog::watch(req, CANCEL_GRACE, move || kill(killer.as_ref()))?;
        // A result past its limit stops being read at once; the driver would read
        // (and drop) every row still coming: the statement is killed first.
        let stop = || kill(pool.as_ref());
        let result = match self.mode {
            Mode::Execute => match req.arguments.get("sql").and_then(Value::as_str) {
                Some(sql) => execute(req, &mut client.conn, sql, &stop),
                None => Err(ToolError::invalid_argument(format!(
                    "tool '{}': no 'sql' to execute",
                    req.tool_name
                ))),
            },
            Mode::Sql => match req.statement.as_deref() {
                Some(s) => run(req, &mut client.conn, s, &stop),
                None => Err(ToolError::invalid_argument(format!(
                    "tool '{}' has no statement",
                    req.tool_name
                ))),
            },
            Mode::Catalog => catalog::run(req, &mut client, &stop),
        };
        let fired = watchdog.finish();
        // What a model's SQL leaves on its connection must not reach the next call,
        // which may be another session's: that connection is closed, never pooled;
        // so is one whose statement the watchdog killed (see `Watchdog::finish`).
        let model_sql = match self.mode {
            Mode::Execute => true,
            Mode::Catalog => catalog::runs_model_sql(&req.tool_type),
            Mode::Sql => false,
        };
        // A result stopped at its limit leaves its connection mid-result.
        let stopped = result.as_ref().is_err_and(|e| e.kind() == ErrorKind::LimitExceeded);
        if model_sql || fired || stopped {
            client.discard();
        }
        result
    }
}

/// Sets the server's own statement timeout to `left` (at least 1 ms: 0 means none).
fn set_statement_timeout(c: &mut MyConn, left: Duration) -> Result<(), mysql::Error> {
    let ms = left.as_millis().clamp(1, u128::from(u32::MAX));
    if c.mariadb {
        c.conn.query_drop(format!("SET SESSION max_statement_time = {}", ms as f64 / 1000.0))
    } else {
        c.conn.query_drop(format!("SET SESSION max_execution_time = {ms}"))
    }
}

/// A driver error's text: the server's code and message, or the driver's reason.
fn describe(e: &mysql::Error) -> String {
    match e {
        mysql::Error::MySqlError(m) => {
            format!("{} (error {}, SQLSTATE {})", m.message, m.code, m.state)
        }
        // The crate's Display of these wraps its Debug (`DriverError { ... }`).
        mysql::Error::DriverError(d) => d.to_string(),
        mysql::Error::IoError(io) => format!("I/O error: {io}"),
        other => other.to_string(),
    }
}

/// A driver error as a tool error: a statement stopped at the deadline or by a
/// cancel is a limit, so is a packet past `max_allowed_packet` (set from the result
/// limit), anything else the server's words.
fn fail(req: &ToolRequest, e: mysql::Error) -> ToolError {
    let m = format!("tool '{}': {}", req.tool_name, describe(&e));
    match &e {
        // `mysql_common`'s PacketCodecError::PacketTooLarge (that crate is not ours to
        // name).
        mysql::Error::CodecError(c) if format!("{c:?}") == "PacketTooLarge" => {
            budget::limit_exceeded(&req.tool_name, req.max_result_bytes)
        }
        mysql::Error::MySqlError(s)
            if matches!(s.code, ER_STATEMENT_TIMEOUT | ER_QUERY_TIMEOUT | ER_QUERY_INTERRUPTED) =>
        {
            ToolError::limit_exceeded(format!("{m}: stopped at the call's timeout"))
        }
        _ => ToolError::backend(m),
    }
}

/// What reading a result calls when it stops at its limit (kills the statement).
type Stop<'a> = &'a dyn Fn();

/// A configured statement, its `?` bound to the declared parameters in order.
fn run(
    req: &ToolRequest,
    conn: &mut mysql::Conn,
    statement: &str,
    stop: Stop<'_>,
) -> Result<Value, ToolError> {
    run_with(req, conn, statement, &req.positional, &req.positional_names(), stop)
}

/// `statement` with its `?` bound to `values` in order (`names[i]` names the
/// parameter of `values[i]` in errors); the last result set.
fn run_with(
    req: &ToolRequest,
    conn: &mut mysql::Conn,
    statement: &str,
    values: &[Value],
    names: &[String],
    stop: Stop<'_>,
) -> Result<Value, ToolError> {
    let stmt = conn.prep(statement).map_err(|e| fail(req, e))?;
    let wanted = usize::from(stmt.num_params());
    if wanted > values.len() {
        return Err(ToolError::invalid_argument(format!(
            "tool '{}': the statement has {wanted} placeholders but the tool declares {} parameters",
            req.tool_name,
            values.len()
        )));
    }
    let params = values[..wanted]
        .iter()
        .enumerate()
        .map(|(i, v)| {
            codec::encode(v).map_err(|why| {
                let name = names.get(i).filter(|n| !n.is_empty()).cloned();
                let name = name.unwrap_or_else(|| format!("#{}", i + 1));
                ToolError::invalid_argument(format!(
                    "tool '{}': parameter '{name}': {why}",
                    req.tool_name
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let params =
        if params.is_empty() { mysql::Params::Empty } else { mysql::Params::Positional(params) };
    let mut result = conn.exec_iter(&stmt, params).map_err(|e| fail(req, e))?;
    let mut last = json!({"rows_affected": 0});
    while let Some(set) = result.iter() {
        last = read_set(req, set, stop)?;
    }
    Ok(last)
}

/// The model's SQL through the text protocol: the last statement's result.
fn execute(
    req: &ToolRequest,
    conn: &mut mysql::Conn,
    sql: &str,
    stop: Stop<'_>,
) -> Result<Value, ToolError> {
    let mut result = conn.query_iter(sql).map_err(|e| fail(req, e))?;
    let mut last = json!({"rows_affected": 0});
    while let Some(set) = result.iter() {
        last = read_set(req, set, stop)?;
    }
    Ok(last)
}

/// One result set: its rows, or `{"rows_affected": n}` when it has no columns;
/// counted against the result limit as they arrive (past it, `stop` and the error).
///
/// The driver reads a dropped set to its end: `set` stays alive here until `stop`
/// has killed the statement, so that read ends at the server's error instead of
/// taking in every row still to come.
fn read_set<T: mysql::prelude::Protocol>(
    req: &ToolRequest,
    mut set: mysql::ResultSet<'_, '_, '_, '_, T>,
    stop: Stop<'_>,
) -> Result<Value, ToolError> {
    let mut budget = ResultBudget::of(req);
    let read = read_rows(req, &mut set, &mut budget);
    if read.as_ref().is_err_and(|e| e.kind() == ErrorKind::LimitExceeded) {
        stop();
    }
    drop(set);
    read
}

fn read_rows<T: mysql::prelude::Protocol>(
    req: &ToolRequest,
    set: &mut mysql::ResultSet<'_, '_, '_, '_, T>,
    budget: &mut ResultBudget,
) -> Result<Value, ToolError> {
    let columns = set.columns();
    let columns: Vec<mysql::Column> = columns.as_ref().to_vec();
    if columns.is_empty() {
        let n = set.affected_rows();
        // Drain (nothing) so the next set can be read.
        for row in set.by_ref() {
            row.map_err(|e| fail(req, e))?;
        }
        return Ok(json!({"rows_affected": n}));
    }
    let mut out = Vec::new();
    budget.charge(2)?;
    for row in set.by_ref() {
        let row = row.map_err(|e| fail(req, e))?;
        budget.row()?;
        let mut obj = Map::new();
        for (i, col) in columns.iter().enumerate() {
            let v = row.as_ref(i).unwrap_or(&mysql::Value::NULL);
            let v = codec::decode(col, v).map_err(|why| {
                ToolError::backend(format!(
                    "tool '{}': column '{}' {why}",
                    req.tool_name,
                    col.name_str()
                ))
            })?;
            budget.charge(budget::json_len(&v) + col.name_ref().len() as u64 + 4)?;
            obj.insert(col.name_str().into_owned(), v);
        }
        out.push(Value::Object(obj));
    }
    Ok(Value::Array(out))
}
