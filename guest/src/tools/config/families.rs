//! What this host runs, in one place: the tool types it has handlers for
//! ([`RUNNABLE_TOOL_TYPES`], plus the [`super::prebuilt`] types), and the Toolbox source
//! types that reach a wire protocol it speaks ([`POSTGRES_SOURCES`],
//! [`MYSQL_SOURCES`], [`REDIS_SOURCES`]). `check`, the loader's source checks, the host's handler
//! registration (whose unit test holds it to this list) and its connection code all
//! read these tables; a type is added here and nowhere else.

use serde_json::{Map, Value};

use super::prebuilt;
use crate::tools::placeholders::Dialect;

/// Toolbox source types that speak PostgreSQL's wire protocol: this host runs them
/// all on its `postgres` handler (CockroachDB and YugabyteDB are PostgreSQL to a
/// client; AlloyDB and Cloud SQL when given a direct host, see [`CONNECTOR_SOURCES`]).
pub const POSTGRES_SOURCES: &[&str] =
    &["postgres", "cockroachdb", "yugabytedb", "alloydb-postgres", "cloud-sql-postgres"];

/// Toolbox source types that speak MySQL's wire protocol, run on the `mysql` handler.
pub const MYSQL_SOURCES: &[&str] = &["mysql", "mariadb", "tidb", "cloud-sql-mysql"];

/// Toolbox source types that speak Redis's protocol (RESP), run on the `redis`
/// handler: Valkey is a fork of Redis 7.2 and the same server to a client.
pub const REDIS_SOURCES: &[&str] = &["redis", "valkey"];

/// Source types Toolbox reaches through Google's connectors (`project`, `region`,
/// `instance`), which this host does not have: it runs them only when the source
/// also names a direct `host` (and `port`), such as a Cloud SQL Auth Proxy's.
pub const CONNECTOR_SOURCES: &[&str] =
    &["alloydb-postgres", "cloud-sql-postgres", "cloud-sql-mysql"];

/// The source types Toolbox's `postgres-*` tools accept.
const POSTGRES_TOOL_SOURCES: &[&str] = &["postgres", "cloud-sql-postgres", "alloydb-postgres"];

/// The source types Toolbox's `mysql-*` tools accept (its `mariadb` source is a MySQL
/// pool to them).
const MYSQL_TOOL_SOURCES: &[&str] = &["mysql", "cloud-sql-mysql", "mariadb"];

/// A tool type this host ships a handler for, and the sources it runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunnableType {
    /// The tool `type`.
    pub tool_type: &'static str,
    /// The protocol its handler speaks, named by its base source type (`sqlite`,
    /// `postgres`, `mysql`, `redis`, `http`): the handler the host registers it with.
    pub source_type: &'static str,
    /// Whether the model writes the statement (`*-execute-sql`).
    pub executes: bool,
    /// The source types Toolbox accepts for this tool type; each speaks
    /// `source_type`'s protocol ([`protocol_of`]).
    pub sources: &'static [&'static str],
}

const fn statement(t: &'static str, p: &'static str, s: &'static [&'static str]) -> RunnableType {
    RunnableType { tool_type: t, source_type: p, executes: false, sources: s }
}

const fn execute(t: &'static str, p: &'static str, s: &'static [&'static str]) -> RunnableType {
    RunnableType { tool_type: t, source_type: p, executes: true, sources: s }
}

/// The tool types the filestore host runs besides the [`prebuilt`] ones (see
/// [`runnable_type`]). Anything else (`mssql-sql`, ...) loads but is reported as
/// `unsupported` here.
pub const RUNNABLE_TOOL_TYPES: &[RunnableType] = &[
    statement("sqlite-sql", "sqlite", &["sqlite"]),
    execute("sqlite-execute-sql", "sqlite", &["sqlite"]),
    statement("postgres-sql", "postgres", POSTGRES_TOOL_SOURCES),
    execute("postgres-execute-sql", "postgres", POSTGRES_TOOL_SOURCES),
    statement("cockroachdb-sql", "postgres", &["cockroachdb"]),
    execute("cockroachdb-execute-sql", "postgres", &["cockroachdb"]),
    statement("yugabytedb-sql", "postgres", &["yugabytedb"]),
    statement("mysql-sql", "mysql", MYSQL_TOOL_SOURCES),
    execute("mysql-execute-sql", "mysql", MYSQL_TOOL_SOURCES),
    statement("tidb-sql", "mysql", &["tidb"]),
    execute("tidb-execute-sql", "mysql", &["tidb"]),
    statement("http", "http", &["http"]),
    // `commands` instead of a statement: lists of command words (see
    // docs/configured-tools.md#redis-and-valkey).
    statement("redis", "redis", &["redis"]),
    statement("valkey", "redis", &["valkey"]),
];

/// The handler this host runs `tool_type` with: one of [`RUNNABLE_TOOL_TYPES`], or a
/// Toolbox prebuilt type ([`prebuilt`]), which runs as a statement tool on the
/// sources of Toolbox's `postgres-*` or `mysql-*` tools.
pub fn runnable_type(tool_type: &str) -> Option<RunnableType> {
    RUNNABLE_TOOL_TYPES.iter().find(|r| r.tool_type == tool_type).copied().or_else(|| {
        prebuilt::find_with_source(tool_type).map(|(t, protocol)| {
            let sources =
                if protocol == "mysql" { MYSQL_TOOL_SOURCES } else { POSTGRES_TOOL_SOURCES };
            statement(t.tool_type, protocol, sources)
        })
    })
}

/// The protocol (base source type) a source of `source_type` speaks, when this host
/// speaks it.
pub fn protocol_of(source_type: &str) -> Option<&'static str> {
    match source_type {
        "sqlite" => Some("sqlite"),
        "http" => Some("http"),
        t if POSTGRES_SOURCES.contains(&t) => Some("postgres"),
        t if MYSQL_SOURCES.contains(&t) => Some("mysql"),
        t if REDIS_SOURCES.contains(&t) => Some("redis"),
        _ => None,
    }
}

/// Whether source `name` of `source_type` with `fields` can run here; `Err` says why
/// not, naming its type: `its source 'x' is a T source, ...` (the form `check`
/// prints and the host's `unsupported` errors carry).
pub fn source_support(
    name: &str,
    source_type: &str,
    fields: &Map<String, Value>,
) -> Result<(), String> {
    if protocol_of(source_type).is_none() {
        return Err(format!(
            "its source '{name}' is a {source_type} source, which this host does not run"
        ));
    }
    let has_host = matches!(fields.get("host"), Some(Value::String(h)) if !h.is_empty());
    if CONNECTOR_SOURCES.contains(&source_type) && !has_host {
        return Err(format!(
            "its source '{name}' is a {source_type} source, which this host reaches only at a direct `host` (and `port`): it has no Cloud SQL or AlloyDB connector for project/region/instance"
        ));
    }
    if REDIS_SOURCES.contains(&source_type) {
        let on = |field: &str| matches!(fields.get(field), Some(Value::Bool(true)));
        if on("useGCPIAM") {
            return Err(format!(
                "its source '{name}' is a {source_type} source with useGCPIAM, and this host has no Google Cloud credentials to sign in with (give it a username and password)"
            ));
        }
        if on("clusterEnabled") {
            return Err(format!(
                "its source '{name}' is a {source_type} source with clusterEnabled, and this host talks to one standalone server, not a Redis Cluster"
            ));
        }
    }
    Ok(())
}

/// The placeholder dialect of a statement tool type, when its placeholders are
/// checked: the statement tools of [`RUNNABLE_TOOL_TYPES`] (`cockroachdb-sql` is
/// PostgreSQL's), not the prebuilt ones, whose statements are Toolbox's own. Here, not
/// in `placeholders`, which the configuration imports.
pub fn dialect_of(tool_type: &str) -> Option<Dialect> {
    let r = RUNNABLE_TOOL_TYPES.iter().find(|r| r.tool_type == tool_type && !r.executes)?;
    match r.source_type {
        "sqlite" => Some(Dialect::Sqlite),
        "postgres" => Some(Dialect::Postgres),
        "mysql" => Some(Dialect::Mysql),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runnable_type_accepts_only_sources_of_its_protocol() {
        for r in RUNNABLE_TOOL_TYPES.iter().copied().chain(
            prebuilt::all_types().map(|t| runnable_type(t).expect("prebuilt types are runnable")),
        ) {
            assert!(!r.sources.is_empty(), "{}", r.tool_type);
            for s in r.sources {
                assert_eq!(protocol_of(s), Some(r.source_type), "{} on {s}", r.tool_type);
            }
        }
        for s in CONNECTOR_SOURCES {
            assert!(protocol_of(s).is_some(), "{s}");
        }
    }

    #[test]
    fn connector_sources_run_only_with_a_direct_host() {
        let mut fields = Map::new();
        fields.insert("project".into(), "p".into());
        let why = source_support("cs", "cloud-sql-postgres", &fields).unwrap_err();
        assert!(why.contains("its source 'cs' is a cloud-sql-postgres source,"), "{why}");
        assert!(why.contains("direct `host`"), "{why}");
        fields.insert("host".into(), "127.0.0.1".into());
        assert!(source_support("cs", "cloud-sql-postgres", &fields).is_ok());
        assert!(source_support("c", "cockroachdb", &Map::new()).is_ok());
        let mut redis = Map::new();
        redis.insert("address".into(), Value::Array(vec!["127.0.0.1:6379".into()]));
        assert!(source_support("r", "redis", &redis).is_ok());
        redis.insert("clusterEnabled".into(), Value::Bool(true));
        let why = source_support("r", "redis", &redis).unwrap_err();
        assert!(why.contains("its source 'r' is a redis source with clusterEnabled"), "{why}");
        redis.remove("clusterEnabled");
        redis.insert("useGCPIAM".into(), Value::Bool(true));
        let why = source_support("r", "valkey", &redis).unwrap_err();
        assert!(why.contains("its source 'r' is a valkey source with useGCPIAM"), "{why}");
        let why = source_support("b", "bigquery", &Map::new()).unwrap_err();
        assert_eq!(why, "its source 'b' is a bigquery source, which this host does not run");
    }
}
