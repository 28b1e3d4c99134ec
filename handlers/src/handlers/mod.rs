//! The tool handlers the `filestore` binary ships, one module per tool type, so a
//! Toolbox `tools.yaml` runs out of the box: [`sqlite`] (`sqlite-sql` tools on
//! `sqlite` sources, embedded SQLite), [`postgres`] (`postgres-sql` and
//! `postgres-execute-sql` tools on `postgres` sources and the other PostgreSQL-wire
//! sources, pooled, TLS per `sslmode`), [`mysql`] (the same for the MySQL family),
//! [`redis`] (`redis` and `valkey` tools: their commands over RESP, pooled) and
//! [`http`] (`http` tools on `http` sources, restricted to an allow-list of hosts).
//! Register them with [`ShippedHandlers::with_builtin_handlers`].
//!
//! Each is a cargo feature of this crate (`sqlite`, `postgres`, `mysql`, `redis`, `http`; all
//! on by default, as the `filestore` binary has them): a platform that runs only some
//! source kinds builds only their drivers. A type whose handler is not built is
//! registered by none, so `check` and `serve` report it as one this host does not run
//! and a call of it answers `unsupported`, as for any type without a handler.

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "mysql")]
pub mod mysql;
#[cfg(any(feature = "postgres", feature = "mysql", feature = "redis"))]
pub mod pool;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(any(feature = "postgres", feature = "mysql"))]
mod query_params;
#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "sqlite")]
pub mod sqlite;
#[cfg(any(feature = "postgres", feature = "mysql"))]
mod watchdog;

use std::sync::Arc;

#[cfg(any(feature = "postgres", feature = "mysql", feature = "redis"))]
use filestore_guest::tools::config::{protocol_of, source_support};
#[cfg(any(feature = "postgres", feature = "mysql", feature = "redis"))]
use filestore_runtime::tools::{Source, ToolError, ToolRequest};

use filestore_guest::tools::config::RUNNABLE_TOOL_TYPES;
#[cfg(any(feature = "postgres", feature = "mysql"))]
use filestore_guest::tools::config::prebuilt;
use filestore_runtime::tools::{ToolHandler, ToolRegistry};

/// The registry of the handlers this crate ships (a trait, since the registry is the
/// sandbox crate's, which builds no SQL driver or HTTP client): bring it in scope and
/// call `ToolRegistry::with_builtin_handlers()`.
pub trait ShippedHandlers {
    /// A registry with the handlers the `filestore` binary ships.
    fn with_builtin_handlers() -> ToolRegistry;
}

impl ShippedHandlers for ToolRegistry {
    /// A registry with the handlers this build ships: one per entry of the
    /// component's [`RUNNABLE_TOOL_TYPES`] whose source kind's feature is on (by the
    /// protocol it speaks and whether the model writes the SQL), and Toolbox's
    /// prebuilt `postgres-*` and `mysql-*` types.
    fn with_builtin_handlers() -> ToolRegistry {
        let mut r = ToolRegistry::new();
        #[cfg(feature = "postgres")]
        let pg = postgres::PostgresHandler::sql();
        #[cfg(feature = "mysql")]
        let my = mysql::MysqlHandler::sql();
        #[cfg(feature = "redis")]
        let redis = redis::RedisHandler::default();
        for t in RUNNABLE_TOOL_TYPES {
            let handler: Option<Arc<dyn ToolHandler>> = match (t.source_type, t.executes) {
                #[cfg(feature = "sqlite")]
                ("sqlite", false) => Some(Arc::new(sqlite::SqliteHandler)),
                #[cfg(feature = "sqlite")]
                ("sqlite", true) => Some(Arc::new(sqlite::SqliteExecuteHandler)),
                #[cfg(feature = "postgres")]
                ("postgres", false) => Some(Arc::new(pg.same_pools())),
                #[cfg(feature = "postgres")]
                ("postgres", true) => Some(Arc::new(pg.execute_sql())),
                #[cfg(feature = "mysql")]
                ("mysql", false) => Some(Arc::new(my.same_pools())),
                #[cfg(feature = "mysql")]
                ("mysql", true) => Some(Arc::new(my.execute_sql())),
                #[cfg(feature = "redis")]
                ("redis", _) => Some(Arc::new(redis.same_pools())),
                #[cfg(feature = "http")]
                ("http", _) => Some(Arc::new(http::HttpHandler)),
                // A source kind this build leaves out. With every feature on, the unit
                // test below fails first: every entry has a handler.
                _ => None,
            };
            if let Some(handler) = handler {
                r.register(t.tool_type, handler);
            }
        }
        // Toolbox's prebuilt postgres-* types: statement tools whose statement and
        // parameters the component supplies.
        #[cfg(feature = "postgres")]
        for t in prebuilt::postgres::TOOLS {
            r.register(t.tool_type, Arc::new(pg.same_pools()));
        }
        // Toolbox's prebuilt mysql-* catalog types (`handlers::mysql::catalog`).
        #[cfg(feature = "mysql")]
        for t in prebuilt::mysql::TOOLS {
            r.register(t.tool.tool_type, Arc::new(my.catalog()));
        }
        r
    }
}

/// The source of `req`, which must speak `protocol` (`postgres`, `mysql`, `redis`) and be one
/// this host reaches: another family is a configuration fault (`invalid-argument`);
/// a connector source without a direct `host` is `unsupported`, naming its type.
#[cfg(any(feature = "postgres", feature = "mysql", feature = "redis"))]
pub(crate) fn source_speaking<'r>(
    req: &'r ToolRequest,
    protocol: &str,
) -> Result<&'r Source, ToolError> {
    let source = req.require_source()?;
    if protocol_of(&source.source_type) != Some(protocol) {
        return Err(ToolError::invalid_argument(format!(
            "tool '{}' needs a {protocol} source; '{}' is a {} source",
            req.tool_name, source.name, source.source_type
        )));
    }
    source_support(&source.name, &source.source_type, &source.fields).map_err(|why| {
        ToolError::unsupported(format!("tool '{}' cannot run here: {why}", req.tool_name))
    })?;
    Ok(source)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use filestore_guest::tools::config::{RUNNABLE_TOOL_TYPES, prebuilt, runnable_type};

    use super::ShippedHandlers;
    use filestore_runtime::tools::ToolRegistry;

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
        // A build without some source kinds registers fewer: never one the component
        // does not call runnable.
        assert!(registered.is_subset(&runnable), "{registered:?} ⊄ {runnable:?}");
        let every_kind = cfg!(all(
            feature = "sqlite",
            feature = "postgres",
            feature = "mysql",
            feature = "redis",
            feature = "http"
        ));
        if every_kind {
            assert_eq!(registered, runnable);
        }
        for t in &registered {
            assert!(runnable_type(t).is_some(), "the component does not call `{t}` runnable");
        }
    }
}
