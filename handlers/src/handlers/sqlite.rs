//! `sqlite-sql` and `sqlite-execute-sql` tools on `sqlite` sources, through an
//! embedded SQLite (`rusqlite` with the bundled library: no system SQLite needed).
//!
//! Source fields: `database` — the path of the database file, relative to the
//! working directory. A missing file is created only by a statement that creates
//! something (`CREATE ...`); Toolbox creates it on any (see [`open`]). Tool: `statement` with bind placeholders:
//! `$N` and `?NNN` bind the N-th declared parameter, `:name`/`@name`/`$name` the one of
//! that name, `?` the next by position (see `filestore_guest::tools::placeholders`). The statement arrives with template parameters already substituted by
//! the component (after validation and escaping); plain parameters are **bound**, never spliced into the SQL, so a value like `1 OR 1=1` stays data.
//!
//! Results: a statement that returns columns yields a JSON array of row objects
//! (column name → value: integers, reals, text, `null`; blobs in base64, as Toolbox and
//! the postgres handler give them, an empty blob as `""` where Toolbox gives `null`; text
//! holding a JSON object or array decoded, as Toolbox does); any other statement
//! yields `{"rows_affected": n}` — a deliberate extension: Toolbox returns `[]`,
//! which cannot tell an UPDATE that changed nothing from one that changed rows. The connection is interrupted
//! at the request's deadline, so a runaway query stops with the timeout, and when the call is
//! cancelled.
//!
//! Size: rows are counted against the tool result limit ([`ToolRequest::max_result_bytes`])
//! as they are stepped, and the first one past it ends the call (`limit-exceeded`).
//! SQLite's own `SQLITE_LIMIT_LENGTH` is set from the same limit, so no single value
//! (`randomblob(900000000)`) is built larger than it in the first place, nor a row of
//! many columns larger than a few times it ([`value_limit`]).
//!
//! Refused in every tool's statement (SQLite's authorizer, [`confine`]): `PRAGMA
//! temp_store_directory` and `data_store_directory` (SQLite would write its files
//! wherever they say) and `PRAGMA journal_mode = WAL` (it leaves `-wal` and `-shm`
//! files beside the database, and the mode sticks to the file); in a model's SQL,
//! `ATTACH` of a file and `VACUUM INTO` a file too.

use base64::Engine as _;
use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, params_from_iter};
use serde_json::{Map, Value, json};

use filestore_guest::tools::placeholders;

use filestore_runtime::tools::{ResultBudget, ToolError, ToolHandler, ToolRequest, budget};

/// SQLite progress-handler period (virtual-machine instructions between deadline
/// checks).
const PROGRESS_STEPS: i32 = 10_000;

/// The `sqlite-sql` handler.
#[derive(Debug, Default, Clone, Copy)]
pub struct SqliteHandler;

fn to_sql(v: &Value) -> SqlValue {
    match v {
        Value::Null => SqlValue::Null,
        Value::Bool(b) => SqlValue::Integer(i64::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => SqlValue::Integer(i),
            None => SqlValue::Real(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => SqlValue::Text(s.clone()),
        // Arrays and maps are bound as their JSON text (usable with SQLite's json1).
        other => SqlValue::Text(other.to_string()),
    }
}

fn to_json(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => json!(i),
        ValueRef::Real(f) => json!(f),
        ValueRef::Text(t) => {
            let text = String::from_utf8_lossy(t);
            // JSON kept in a text column (json1's `json_object`, a `json` column)
            // comes back decoded, as Toolbox's SQLite source does. Only objects and
            // arrays: Toolbox also turns the text "123" or "null" into a number or
            // null, which loses what the column holds.
            let trimmed = text.trim_start();
            if (trimmed.starts_with('{') || trimmed.starts_with('['))
                && let Ok(v) = serde_json::from_str::<Value>(&text)
            {
                return v;
            }
            Value::String(text.into_owned())
        }
        // Base64 as Toolbox (Go's JSON of []byte). An empty blob stays `""`: Toolbox's
        // driver gives a nil slice, written `null`, which a SQL NULL also gives.
        ValueRef::Blob(b) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
    }
}

/// The least length `"name":value,` can have as JSON text: what a row's value is
/// counted as against the result limit before it is converted.
fn json_len_at_least(name: &str, v: ValueRef<'_>) -> u64 {
    let value = match v {
        ValueRef::Null => 4,
        ValueRef::Integer(_) | ValueRef::Real(_) => 1,
        ValueRef::Text(t) => t.len() + 2,
        ValueRef::Blob(b) => b.len().div_ceil(3) * 4 + 2,
    };
    (name.len() + 4 + value) as u64
}

/// The `sqlite-execute-sql` handler: runs the statement the model gives in the `sql`
/// argument (Toolbox's execute-sql tools), with nothing bound. As in Toolbox, such a
/// tool can do anything the database file allows; configure it only where that is
/// meant (or with `requiresApproval: true`).
#[derive(Debug, Default, Clone, Copy)]
pub struct SqliteExecuteHandler;

impl ToolHandler for SqliteExecuteHandler {
    fn call(&self, req: &ToolRequest) -> Result<Value, ToolError> {
        let sql = req.arguments.get("sql").and_then(Value::as_str).ok_or_else(|| {
            ToolError::invalid_argument(format!("tool '{}': no 'sql' to execute", req.tool_name))
        })?;
        // As Toolbox's sqlite-execute-sql: empty SQL is a mistake, not a no-op.
        if sql.trim().is_empty() {
            return Err(ToolError::invalid_argument(format!(
                "tool '{}': 'sql' is empty",
                req.tool_name
            )));
        }
        run(req, sql, false)
    }
}

impl ToolHandler for SqliteHandler {
    fn call(&self, req: &ToolRequest) -> Result<Value, ToolError> {
        let statement = req.statement.as_deref().ok_or_else(|| {
            ToolError::invalid_argument(format!("tool '{}' has no statement", req.tool_name))
        })?;
        run(req, statement, true)
    }
}

/// Opens source `source`'s database file `db` (a path resolved against the working
/// directory, as Toolbox's SQLite source does). Unlike Toolbox, a missing file is
/// created only for a statement that creates something (`CREATE ...`): a query on a
/// mistyped path would otherwise run on a new empty database and fail with "no such
/// table", far from the cause, and leave that empty file behind.
fn open(source: &str, db: &str, statement: &str) -> Result<Connection, ToolError> {
    use rusqlite::OpenFlags;
    let in_memory = db == ":memory:" || db.starts_with("file:");
    let mut flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    if in_memory || creates(statement) {
        flags |= OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_URI;
    }
    Connection::open_with_flags(db, flags).map_err(|e| {
        if !in_memory && !std::path::Path::new(db).exists() {
            let path = std::path::Path::new(db);
            let place = match std::env::current_dir() {
                Ok(cwd) if path.is_relative() => format!(" ({})", cwd.join(path).display()),
                _ => String::new(),
            };
            return ToolError::not_found(format!(
                "source '{source}': database file {db}{place} does not exist; it is created only by a statement that creates something (CREATE TABLE ...)"
            ));
        }
        ToolError::backend(format!("source '{source}': cannot open database {db}: {e}"))
    })
}

/// Refuses what would make SQLite write files other than the database's own
/// (SQLite asks the authorizer while it prepares each statement, so a refused one
/// never runs):
/// - in every statement, `PRAGMA temp_store_directory` / `data_store_directory`
///   (SQLite's files wherever they say) and `PRAGMA journal_mode = WAL` (`-wal` and
///   `-shm` files beside the database, and the mode stays with the file); reading
///   the journal mode, or setting another, stays allowed;
/// - when `model_sql`, `ATTACH` of any file and `VACUUM INTO` a file, which would
///   read, create or overwrite SQLite files anywhere the host process may write
///   (Toolbox allows both). A temporary or in-memory database (`ATTACH ''`,
///   `ATTACH ':memory:'`) stays allowed, and so does plain `VACUUM`, whose copy is
///   one. A file name that is not a literal arrives as none and is refused too.
fn confine(conn: &Connection, model_sql: bool) {
    use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
    conn.authorizer(Some(move |ctx: AuthContext<'_>| match ctx.action {
        AuthAction::Pragma { pragma_name, pragma_value }
            if writes_files(pragma_name, pragma_value) =>
        {
            Authorization::Deny
        }
        AuthAction::Attach { filename: "" | ":memory:" } => Authorization::Allow,
        AuthAction::Attach { .. } if model_sql => Authorization::Deny,
        AuthAction::Unknown { code: rusqlite::ffi::SQLITE_ATTACH, .. } if model_sql => {
            Authorization::Deny
        }
        _ => Authorization::Allow,
    }));
}

/// Whether `PRAGMA name = value` makes SQLite write files of its choosing (see
/// [`confine`]). SQLite hands the authorizer the name without its schema and the
/// value unquoted.
fn writes_files(name: &str, value: Option<&str>) -> bool {
    let is = |n: &str| name.eq_ignore_ascii_case(n);
    is("temp_store_directory")
        || is("data_store_directory")
        || (is("journal_mode") && value.is_some_and(|v| v.trim().eq_ignore_ascii_case("wal")))
}

/// Whether `statement` starts with `CREATE` (after white space and `--` comments).
fn creates(statement: &str) -> bool {
    let mut rest = statement.trim_start();
    while let Some(comment) = rest.strip_prefix("--") {
        rest = comment.split_once('\n').map_or("", |(_, after)| after).trim_start();
    }
    rest.get(..6).is_some_and(|w| w.eq_ignore_ascii_case("create"))
}

/// Runs `statement` on the request's source, binding the declared parameters when
/// `bind` (a configured statement) and nothing otherwise (a model's statement).
fn run(req: &ToolRequest, statement: &str, bind: bool) -> Result<Value, ToolError> {
    let source = req.require_source()?;
    let db = source.fields.get("database").and_then(Value::as_str).ok_or_else(|| {
        ToolError::invalid_argument(format!(
            "source '{}' has no 'database' path (sqlite sources need one)",
            source.name
        ))
    })?;
    let conn = open(&source.name, db, statement)?;
    confine(&conn, !bind);
    let (deadline, cancel) = (req.deadline, req.cancel.clone());
    conn.progress_handler(
        PROGRESS_STEPS,
        Some(move || std::time::Instant::now() > deadline || cancel.is_cancelled()),
    );
    let refused = |e: rusqlite::Error| {
        ToolError::backend(format!(
            "tool '{}': database {db} refused the statement: {e}",
            req.tool_name
        ))
    };
    let fail = |e: rusqlite::Error| match e {
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::TooBig => {
            budget::limit_exceeded(&req.tool_name, req.max_result_bytes).map_message(|m| {
                format!(
                    "{m}; SQLite builds no value past it, nor past {ROW_LIMITS} times it over \
                     the columns of a row"
                )
            })
        }
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            ToolError::limit_exceeded(if req.cancel.is_cancelled() {
                format!("tool '{}': interrupted: the call was cancelled", req.tool_name)
            } else {
                format!("tool '{}': interrupted at its timeout", req.tool_name)
            })
        }
        e => ToolError::backend(format!("tool '{}': database {db}: {e}", req.tool_name)),
    };
    if !bind {
        // A model's SQL may be a script: each statement runs in turn (prepared only
        // after the one before ran, so `CREATE TABLE t ...; INSERT INTO t ...` works)
        // and the last one's result is the answer, as Toolbox's driver gives it. A
        // text of comments only runs nothing.
        use rusqlite::fallible_iterator::FallibleIterator as _;
        let mut batch = rusqlite::Batch::new(&conn, statement);
        let mut last = json!({"rows_affected": 0});
        while let Some(mut stmt) = batch.next().map_err(refused)? {
            last = collect(req, &conn, &mut stmt, &[], &fail)?;
        }
        return Ok(last);
    }
    let mut stmt = conn.prepare(statement).map_err(refused)?;
    // Which declared parameter each of SQLite's indexes binds: `$2` by its number
    // (SQLite would number it by appearance), `:name` by name, `?` by position.
    let names: Vec<Option<String>> =
        (1..=stmt.parameter_count()).map(|i| stmt.parameter_name(i).map(str::to_string)).collect();
    let mut names_declared = req.positional_names();
    // A document without names (a host-built request) binds by position.
    names_declared.resize(req.positional.len(), String::new());
    let declared: Vec<&str> = names_declared.iter().map(String::as_str).collect();
    let order = placeholders::bind_sqlite(&names, &declared).map_err(|e| {
        ToolError::invalid_argument(format!("tool '{}': {}", req.tool_name, e.message))
    })?;
    let values: Vec<SqlValue> = order.iter().map(|&p| to_sql(&req.positional[p])).collect();
    collect(req, &conn, &mut stmt, &values, &fail)
}

/// How many times the result limit the values of one row may take in SQLite: it
/// computes a row whole before the row can be counted, so each value of a row of
/// `n` columns is held to this many limits over `n` (and never past one limit).
const ROW_LIMITS: u64 = 4;

/// SQLite's `SQLITE_LIMIT_LENGTH` for a statement of `columns` result columns
/// under a result limit of `limit` bytes (see [`ROW_LIMITS`]).
fn value_limit(limit: u64, columns: usize) -> i32 {
    let per_value = (limit.saturating_mul(ROW_LIMITS) / columns.max(1) as u64).min(limit);
    per_value.clamp(1, i32::MAX as u64) as i32
}

/// Runs the prepared `stmt` (of `conn`) with `values` bound: its rows, or
/// `{"rows_affected": n}` for a statement without result columns.
fn collect(
    req: &ToolRequest,
    conn: &Connection,
    stmt: &mut rusqlite::Statement<'_>,
    values: &[SqlValue],
    fail: &dyn Fn(rusqlite::Error) -> ToolError,
) -> Result<Value, ToolError> {
    // No value is built past what this statement's rows may hold.
    let length = value_limit(req.max_result_bytes, stmt.column_count());
    conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH, length).map_err(|e| {
        ToolError::backend(format!("tool '{}': cannot limit SQLite's lengths: {e}", req.tool_name))
    })?;
    let params = params_from_iter(values.iter());
    if stmt.column_count() == 0 {
        let n = stmt.execute(params).map_err(fail)?;
        return Ok(json!({"rows_affected": n}));
    }
    let names: Vec<String> = stmt.column_names().into_iter().map(String::from).collect();
    let mut rows = stmt.query(params).map_err(fail)?;
    let mut out = Vec::new();
    let mut budget = ResultBudget::of(req);
    budget.charge(2)?;
    while let Some(row) = rows.next().map_err(fail)? {
        budget.row()?;
        let mut obj = Map::new();
        for (i, name) in names.iter().enumerate() {
            let value = row.get_ref(i).map_err(fail)?;
            // Counted before it is copied out of SQLite: a value past the limit is
            // never turned into JSON.
            budget.charge(json_len_at_least(name, value))?;
            obj.insert(name.clone(), to_json(value));
        }
        out.push(Value::Object(obj));
    }
    Ok(Value::Array(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One value may take the whole limit; a row of many columns a few limits.
    #[test]
    fn a_row_is_held_to_a_few_limits() {
        assert_eq!(value_limit(1 << 20, 0), 1 << 20);
        assert_eq!(value_limit(1 << 20, 4), 1 << 20);
        assert_eq!(value_limit(1 << 20, 400), (4 << 20) / 400);
        assert_eq!(value_limit(u64::MAX, 1), i32::MAX);
    }
}
