//! The fields of the common Toolbox source types (the PostgreSQL and MySQL families,
//! Cloud SQL, AlloyDB, BigQuery, Spanner, Redis, Valkey) and of their `*-execute-sql` tools,
//! checked as Toolbox checks them (its decoder is strict: an unknown field or a
//! mistyped one is an error), so `filestore check` is useful before deploying a
//! configuration to Toolbox itself. Other types stay lenient: their fields are kept
//! and not judged, since this table cannot follow every Toolbox release.
//!
//! The table follows Toolbox's `internal/sources/*` Config structs (v0.2x–v1.x); the
//! fields Toolbox 1.12's prebuilt configurations set were checked against its binary.

use super::*;

/// What a field holds.
#[derive(Clone, Copy)]
pub(super) enum FieldType {
    /// A string (YAML scalars are read as strings, as Toolbox's `string` fields do).
    Str,
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// `true` or `false`.
    Bool,
    /// An integer.
    Int,
    /// A mapping of strings.
    StrMap,
    /// A list of strings.
    StrList,
}

/// One field: name, type, required.
pub(super) type FieldSpec = (&'static str, FieldType, bool);

use FieldType::*;

const IP_TYPES: &[&str] = &["public", "private", "psc", "PUBLIC", "PRIVATE", "PSC"];

/// The known source types and their fields (besides `type`).
pub(super) const SOURCE_SCHEMAS: &[(&str, &[FieldSpec])] = &[
    (
        "postgres",
        &[
            ("host", Str, true),
            ("port", Str, true),
            ("user", Str, true),
            ("password", Str, true),
            ("database", Str, true),
            ("queryParams", StrMap, false),
            (
                "queryExecMode",
                OneOf(&[
                    "cache_statement",
                    "cache_describe",
                    "describe_exec",
                    "exec",
                    "simple_protocol",
                ]),
                false,
            ),
        ],
    ),
    (
        "mysql",
        &[
            // Toolbox 1.12 requires only these two (a login without a user or
            // default database is the server's to accept or refuse).
            ("host", Str, true),
            ("port", Str, true),
            ("user", Str, false),
            ("password", Str, false),
            ("database", Str, false),
            ("queryTimeout", Str, false),
            ("queryParams", StrMap, false),
        ],
    ),
    (
        // Toolbox's CockroachDB source; its MCP safety fields are honoured as the
        // host can (docs/configured-tools.md#postgresql).
        "cockroachdb",
        &[
            ("host", Str, true),
            ("port", Str, true),
            ("user", Str, true),
            ("password", Str, false),
            ("database", Str, true),
            ("queryParams", StrMap, false),
            ("maxRetries", Int, false),
            ("retryBaseDelay", Str, false),
            ("readOnlyMode", Bool, false),
            ("enableWriteMode", Bool, false),
            ("maxRowLimit", Int, false),
            ("queryTimeoutSec", Int, false),
            ("enableTelemetry", Bool, false),
            ("telemetryVerbose", Bool, false),
            ("clusterID", Str, false),
        ],
    ),
    (
        // Toolbox's YugabyteDB source: the smart driver's load-balancing fields are
        // strings there.
        "yugabytedb",
        &[
            ("host", Str, true),
            ("port", Str, true),
            ("user", Str, true),
            ("password", Str, true),
            ("database", Str, true),
            ("loadBalance", Str, false),
            ("topologyKeys", Str, false),
            ("ybServersRefreshInterval", Str, false),
            ("fallbackToTopologyKeysOnly", Str, false),
            ("failedHostReconnectDelaySecs", Str, false),
        ],
    ),
    (
        "mariadb",
        &[
            ("host", Str, true),
            ("port", Str, true),
            ("user", Str, true),
            ("password", Str, true),
            ("database", Str, true),
            ("queryParams", StrMap, false),
        ],
    ),
    (
        // Toolbox's TiDB source: `ssl` turns TLS on (forced for TiDB Cloud hosts).
        "tidb",
        &[
            ("host", Str, true),
            ("port", Str, true),
            ("user", Str, true),
            ("password", Str, true),
            ("database", Str, true),
            ("ssl", Bool, false),
        ],
    ),
    (
        "cloud-sql-postgres",
        &[
            ("project", Str, true),
            ("region", Str, true),
            ("instance", Str, true),
            ("database", Str, true),
            ("user", Str, false),
            ("password", Str, false),
            ("ipType", OneOf(IP_TYPES), false),
            // Toolbox 1.12: its execute-sql tools refuse writes.
            ("readOnly", Bool, false),
            // filestore's: a direct endpoint (a Cloud SQL Auth Proxy's, say), since
            // this host has no connector. Toolbox itself does not read these.
            ("host", Str, false),
            ("port", Str, false),
        ],
    ),
    (
        "cloud-sql-mysql",
        &[
            ("project", Str, true),
            ("region", Str, true),
            ("instance", Str, true),
            ("database", Str, true),
            ("user", Str, false),
            ("password", Str, false),
            ("ipType", OneOf(IP_TYPES), false),
            // Toolbox 1.12: its execute-sql tools refuse writes.
            ("readOnly", Bool, false),
            // filestore's: a direct endpoint (a Cloud SQL Auth Proxy's, say), since
            // this host has no connector. Toolbox itself does not read these.
            ("host", Str, false),
            ("port", Str, false),
        ],
    ),
    (
        "alloydb-postgres",
        &[
            ("project", Str, true),
            ("region", Str, true),
            ("cluster", Str, true),
            ("instance", Str, true),
            ("database", Str, true),
            ("user", Str, false),
            ("password", Str, false),
            ("ipType", OneOf(IP_TYPES), false),
            // Toolbox 1.12: its execute-sql tools refuse writes.
            ("readOnly", Bool, false),
            // filestore's: a direct endpoint (a Cloud SQL Auth Proxy's, say), since
            // this host has no connector. Toolbox itself does not read these.
            ("host", Str, false),
            ("port", Str, false),
        ],
    ),
    (
        "bigquery",
        &[
            ("project", Str, true),
            ("location", Str, false),
            ("writeMode", OneOf(&["allowed", "blocked", "protected"]), false),
            ("allowedDatasets", StrList, false),
            ("useClientOAuth", Bool, false),
            ("scopes", StrList, false),
            ("impersonateServiceAccount", Str, false),
            ("maxQueryResultRows", Int, false),
            // Toolbox 1.12 (its prebuilt bigquery configuration sets all three).
            ("readOnly", Bool, false),
            ("maximumBytesBilled", Int, false),
            ("apiEndpoint", Str, false),
        ],
    ),
    (
        "spanner",
        &[
            ("project", Str, true),
            ("instance", Str, true),
            ("database", Str, true),
            ("dialect", OneOf(&["googlesql", "postgresql"]), false),
        ],
    ),
    (
        // Toolbox's Redis source: `address` is a list (the first is the server
        // unless clusterEnabled); the host refuses useGCPIAM and clusterEnabled
        // (families::source_support).
        "redis",
        &[
            ("address", StrList, true),
            ("username", Str, false),
            ("password", Str, false),
            ("database", Int, false),
            ("useGCPIAM", Bool, false),
            ("clusterEnabled", Bool, false),
            ("tlsEnabled", Bool, false),
        ],
    ),
    (
        "valkey",
        &[
            ("address", StrList, true),
            ("username", Str, false),
            ("password", Str, false),
            ("database", Int, false),
            ("useGCPIAM", Bool, false),
            ("disableCache", Bool, false),
            ("tlsEnabled", Bool, false),
        ],
    ),
];

/// Tool types that run a statement the model writes: `source`, `description`,
/// `authRequired`, `annotations` and these fields; no `statement`, no parameters.
pub(super) const EXECUTE_SQL_SCHEMAS: &[(&str, &[FieldSpec])] = &[
    ("postgres-execute-sql", &[]),
    ("cockroachdb-execute-sql", &[]),
    ("mysql-execute-sql", &[]),
    ("tidb-execute-sql", &[]),
    ("mssql-execute-sql", &[]),
    ("sqlite-execute-sql", &[]),
    ("bigquery-execute-sql", &[]),
    ("spanner-execute-sql", &[("readOnly", Bool, false)]),
];

/// Extra fields of statement tool types beyond the common ones.
pub(super) fn statement_tool_fields(tool_type: &str) -> &'static [FieldSpec] {
    match tool_type {
        "spanner-sql" => &[("readOnly", Bool, false)],
        _ => &[],
    }
}

/// Checks `f` against `schema`: required fields present, every one of its type.
/// Fields outside the schema are left for the caller to report or keep.
pub(super) fn check_fields(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    schema: &[FieldSpec],
    what: &str,
) {
    for &(key, ty, required) in schema {
        if required && f.get(key).is_none() {
            ctx.err(K::MissingField, f.mark, Some(&f.path(key)), format!("{what} has no '{key}'"));
            continue;
        }
        let Some(e) = f.get(key) else { continue };
        // A whole-value `${VAR}` / `${VAR:default}`: its type is known only once the
        // host substitutes it (Toolbox substitutes before parsing), so any is accepted
        // here and the host checks the value (`queryParams: ${POSTGRES_QUERY_PARAMS:}`
        // in Toolbox's own prebuilt configuration).
        if let Y::Str(text) = &e.value.value
            && super::super::variables::is_whole_reference(text)
        {
            continue;
        }
        let problem = match (ty, &e.value.value) {
            (Str, v) if !matches!(v, Y::Seq(_) | Y::Map(_)) => None,
            (OneOf(allowed), _) => match e.value.scalar_string() {
                Some(s) if allowed.contains(&s.as_str()) => None,
                Some(s) => Some(format!("'{}' is not one of {}", short(&s), allowed.join(", "))),
                None => Some(format!("expected a string, got a {}", e.value.type_name())),
            },
            (Bool, Y::Bool(_)) | (Int, Y::Int(_)) => None,
            (StrMap, Y::Map(entries))
                if entries.iter().all(|x| !matches!(x.value.value, Y::Seq(_) | Y::Map(_))) =>
            {
                None
            }
            (StrList, Y::Seq(items)) if items.iter().all(|i| i.scalar_string().is_some()) => None,
            (ty, _) => Some(format!(
                "expected {}, got a {}",
                match ty {
                    Str | OneOf(_) => "a string",
                    Bool => "true or false",
                    Int => "an integer",
                    StrMap => "a mapping of strings",
                    StrList => "a list of strings",
                },
                e.value.type_name()
            )),
        };
        if let Some(problem) = problem {
            ctx.err(K::InvalidValue, e.value.mark, Some(&f.path(key)), problem);
        }
    }
}

/// The schema of a source type, when it is one of the known ones.
pub(super) fn source_schema(source_type: &str) -> Option<&'static [FieldSpec]> {
    SOURCE_SCHEMAS.iter().find(|(t, _)| *t == source_type).map(|(_, s)| *s)
}

/// The `*-execute-sql` tool types whose fields are known.
pub(in crate::tools::config) fn execute_sql_types() -> impl Iterator<Item = &'static str> {
    EXECUTE_SQL_SCHEMAS.iter().map(|(t, _)| *t)
}

/// The extra fields of an `*-execute-sql` tool type, when it is one.
pub(super) fn execute_sql_schema(tool_type: &str) -> Option<&'static [FieldSpec]> {
    EXECUTE_SQL_SCHEMAS.iter().find(|(t, _)| *t == tool_type).map(|(_, s)| *s)
}
