//! Toolbox's prebuilt MySQL catalog types (`mysql-list-tables`,
//! `mysql-get-query-plan`, ... : the 8 of its prebuilt `mysql` configuration), as
//! Toolbox 1.12 runs them: Toolbox's own statement (from the component's table,
//! [`filestore_guest::tools::config::prebuilt::mysql`]) with its `?` bound to the
//! parameters in the order Toolbox's `Invoke` passes them, after the checks it makes
//! first:
//!
//! - `mysql-list-tables`: `output_format` is `simple` or `detailed`;
//! - `mysql-list-table-stats`, `mysql-list-all-locks`, `mysql-show-query-stats`: a
//!   `table_schema` that is not the connected database (`connected_schema`, else the
//!   source's `database`) is refused, as Toolbox refuses it;
//! - `mysql-list-all-locks`, `mysql-show-query-stats`: the server's
//!   `performance_schema` must be on ("enable performance_schema to run this tool");
//!   on a MySQL 5.7 server the locks come from `information_schema.innodb_locks`
//!   (Toolbox's other statement);
//! - `mysql-get-query-plan`: `EXPLAIN FORMAT=JSON` followed by the model's
//!   `sql_statement`, prepared (so it is one statement, as Toolbox's driver without
//!   `multiStatements` allows only one), answering with the plan's JSON object. It
//!   runs the model's SQL, so its connection is closed after the call.

use filestore_guest::tools::config::prebuilt::mysql::{LIST_ALL_LOCKS_57, MysqlTool, TOOLS};
use mysql::prelude::Queryable;
use serde_json::Value;

use super::connect::MyConn;
use super::fail;
use filestore_runtime::tools::{ToolError, ToolRequest};

/// The type whose statement is the model's.
const QUERY_PLAN: &str = "mysql-get-query-plan";

/// Whether a call of `tool_type` runs the model's SQL (its connection must not be
/// reused).
pub fn runs_model_sql(tool_type: &str) -> bool {
    tool_type == QUERY_PLAN
}

/// Runs one call of a catalog type.
pub fn run(req: &ToolRequest, c: &mut MyConn, stop: super::Stop<'_>) -> Result<Value, ToolError> {
    let tool = TOOLS.iter().find(|t| t.tool.tool_type == req.tool_type).ok_or_else(|| {
        ToolError::unsupported(format!(
            "tool '{}': '{}' is not a MySQL catalog type",
            req.tool_name, req.tool_type
        ))
    })?;
    let arg = |name: &str| argument(req, tool, name);
    let mut statement = tool.tool.statement;
    match req.tool_type.as_str() {
        QUERY_PLAN => return query_plan(req, &mut c.conn, &arg("sql_statement")),
        "mysql-list-tables" => {
            let format = arg("output_format");
            if !matches!(format.as_str(), Some("simple" | "detailed")) {
                return Err(ToolError::invalid_argument(format!(
                    "tool '{}': invalid value for output_format: must be 'simple' or 'detailed', but got {format}",
                    req.tool_name
                )));
            }
        }
        "mysql-list-table-stats" => same_schema(req, &arg)?,
        "mysql-list-all-locks" | "mysql-show-query-stats" => {
            performance_schema_on(req, &mut c.conn)?;
            same_schema(req, &arg)?;
            if req.tool_type == "mysql-list-all-locks" {
                let version: Option<String> =
                    c.conn.query_first("SELECT VERSION()").map_err(|e| fail(req, e))?;
                if version.is_some_and(|v| v.starts_with("5.7")) {
                    statement = LIST_ALL_LOCKS_57;
                }
            }
        }
        _ => {}
    }
    let values: Vec<Value> = tool.binds.iter().map(|&b| arg(b)).collect();
    let names: Vec<String> = tool.binds.iter().map(|b| b.to_string()).collect();
    super::run_with(req, &mut c.conn, statement, &values, &names, stop)
}

/// The value of parameter `name`: the call's, else Toolbox's default, else `null`.
fn argument(req: &ToolRequest, tool: &MysqlTool, name: &str) -> Value {
    if let Some(v) = req.arguments.get(name).filter(|v| !v.is_null()) {
        return v.clone();
    }
    tool.tool
        .parameters
        .iter()
        .find(|p| p.name == name)
        .and_then(|p| p.default)
        .and_then(|d| serde_json::from_str(d).ok())
        .unwrap_or(Value::Null)
}

/// Refuses a `table_schema` other than the connected database, as Toolbox does:
/// `connected_schema` when given, else the source's `database`; either empty passes.
fn same_schema(req: &ToolRequest, arg: &dyn Fn(&str) -> Value) -> Result<(), ToolError> {
    let text = |v: Value| v.as_str().unwrap_or_default().to_string();
    let table_schema = text(arg("table_schema"));
    let mut connected = text(arg("connected_schema"));
    if connected.is_empty() {
        connected = req
            .source
            .as_ref()
            .and_then(|s| s.fields.get("database"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
    }
    if !table_schema.is_empty() && !connected.is_empty() && table_schema != connected {
        return Err(ToolError::invalid_argument(format!(
            "tool '{}': connected schema '{connected}' does not match queried schema '{table_schema}'",
            req.tool_name
        )));
    }
    Ok(())
}

/// Refuses the call when the server's `performance_schema` is off (MariaDB's
/// default), in Toolbox's words.
fn performance_schema_on(req: &ToolRequest, conn: &mut mysql::Conn) -> Result<(), ToolError> {
    let on: Option<i64> =
        conn.query_first("SELECT @@performance_schema + 0").map_err(|e| fail(req, e))?;
    if on == Some(1) {
        Ok(())
    } else {
        Err(ToolError::unsupported(format!(
            "tool '{}': enable performance_schema to run this tool (the server has it off)",
            req.tool_name
        )))
    }
}

/// `EXPLAIN FORMAT=JSON` of the model's statement: the plan's JSON object.
fn query_plan(req: &ToolRequest, conn: &mut mysql::Conn, sql: &Value) -> Result<Value, ToolError> {
    let Some(sql) = sql.as_str() else {
        return Err(ToolError::invalid_argument(format!(
            "tool '{}': 'sql_statement' must be a string",
            req.tool_name
        )));
    };
    // Prepared, never sent as text: one statement only, whatever `sql` holds.
    let stmt = conn.prep(format!("EXPLAIN FORMAT=JSON {sql}")).map_err(|e| fail(req, e))?;
    let row: Option<mysql::Row> = conn.exec_first(&stmt, ()).map_err(|e| fail(req, e))?;
    let plan = row.and_then(|r| r.as_ref(0).cloned());
    let text = match plan {
        Some(mysql::Value::Bytes(b)) => String::from_utf8_lossy(&b).into_owned(),
        _ => {
            return Err(ToolError::backend(format!(
                "tool '{}': no query plan returned",
                req.tool_name
            )));
        }
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        _ => Err(ToolError::backend(format!(
            "tool '{}': the server's query plan is not a JSON object: {text}",
            req.tool_name
        ))),
    }
}
