//! The tool handlers the `filestore` binary ships, one module per tool type, so a
//! Toolbox `tools.yaml` runs out of the box: [`sqlite`] (`sqlite-sql` tools on
//! `sqlite` sources, embedded SQLite), [`postgres`] (`postgres-sql` and
//! `postgres-execute-sql` tools on `postgres` sources, pooled, TLS per `sslmode`) and
//! [`http`] (`http` tools on `http` sources, restricted to an allow-list of hosts). Register them with
//! [`ToolRegistry::with_builtin_handlers`](crate::tools::ToolRegistry::with_builtin_handlers).

pub mod http;
pub mod mysql;
pub mod pool;
pub mod postgres;
pub mod sqlite;
mod watchdog;
