//! The tool handlers the `filestore` binary ships, one module per tool type, so a
//! Toolbox `tools.yaml` runs out of the box: [`sqlite`] (`sqlite-sql` tools on
//! `sqlite` sources, embedded SQLite), [`postgres`] (`postgres-sql` and
//! `postgres-execute-sql` tools on `postgres` sources, pooled, TLS per `sslmode`) and
//! [`http`] (`http` tools on `http` sources, restricted to an allow-list of hosts). Register them with
//! [`ShippedHandlers::with_builtin_handlers`].

pub mod http;
pub mod mysql;
pub mod pool;
pub mod postgres;
pub mod sqlite;
mod watchdog;

use std::sync::Arc;

use crate::tools::ToolRegistry;

/// The registry of the handlers this crate ships (a trait, since the registry is the
/// sandbox crate's, which builds no SQL driver or HTTP client): bring it in scope and
/// call `ToolRegistry::with_builtin_handlers()`.
pub trait ShippedHandlers {
    /// A registry with the handlers the `filestore` binary ships.
    fn with_builtin_handlers() -> ToolRegistry;
}

impl ShippedHandlers for ToolRegistry {
    /// A registry with the handlers the `filestore` binary ships: `sqlite-sql`,
    /// `sqlite-execute-sql`, `postgres-sql`, `postgres-execute-sql`, Toolbox's prebuilt
    /// `postgres-*` types, `mysql-sql`, `mysql-execute-sql`, Toolbox's prebuilt
    /// `mysql-*` catalog types and `http`.
    fn with_builtin_handlers() -> ToolRegistry {
        let mut r = ToolRegistry::new();
        r.register("sqlite-sql", Arc::new(sqlite::SqliteHandler));
        r.register("sqlite-execute-sql", Arc::new(sqlite::SqliteExecuteHandler));
        r.register("http", Arc::new(http::HttpHandler));
        let pg = postgres::PostgresHandler::sql();
        r.register("postgres-execute-sql", Arc::new(pg.execute_sql()));
        // Toolbox's prebuilt postgres-* types: statement tools whose statement and
        // parameters the component supplies.
        for t in filestore_guest::tools::config::prebuilt::postgres::TOOLS {
            r.register(t.tool_type, Arc::new(pg.same_pools()));
        }
        r.register("postgres-sql", Arc::new(pg));
        let my = mysql::MysqlHandler::sql();
        r.register("mysql-execute-sql", Arc::new(my.execute_sql()));
        // Toolbox's prebuilt mysql-* catalog types (`handlers::mysql::catalog`).
        for t in filestore_guest::tools::config::prebuilt::mysql::TOOLS {
            r.register(t.tool.tool_type, Arc::new(my.catalog()));
        }
        r.register("mysql-sql", Arc::new(my));
        r
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use filestore_guest::tools::config::{RUNNABLE_TOOL_TYPES, prebuilt, runnable_type};

    use super::ShippedHandlers;
    use crate::tools::ToolRegistry;

    /// The component's one list of what this host runs (`RUNNABLE_TOOL_TYPES` and the
    /// prebuilt types, which decide what `check` reports as runnable) and the handlers
    /// the binary registers are the same set: a type added to one and not the other
    /// would load as runnable and fail at its first call, or never be offered.
    #[test]
    fn the_registered_handlers_are_the_types_the_component_calls_runnable() {
        let registered: BTreeSet<String> =
            ToolRegistry::with_builtin_handlers().tool_types().into_iter().collect();
        let runnable: BTreeSet<String> = RUNNABLE_TOOL_TYPES
            .iter()
            .map(|r| r.tool_type)
            .chain(prebuilt::postgres::TOOLS.iter().map(|t| t.tool_type))
            .chain(prebuilt::mysql::TOOLS.iter().map(|t| t.tool.tool_type))
            .map(str::to_string)
            .collect();
        assert_eq!(registered, runnable);
        for t in &registered {
            assert!(runnable_type(t).is_some(), "the component does not call `{t}` runnable");
        }
    }
}
