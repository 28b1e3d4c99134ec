//! The prebuilt SQLite, PostgreSQL and MySQL configurations, verbatim, against real
//! databases: every tool through `filestore call --config`, and where the answer does
//! not depend on the moment (catalog listings, settings, a query) the same call
//! through `toolbox invoke`, the two compared as the differential suite compares them.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use super::{BIN, config_path};
use crate::support::toolbox;
use crate::toolbox_diff::outcome::Outcome;

/// Runs `tool` with `args` through both, with `env`, in `dir`.
fn both(
    dir: &Path,
    env: &[(String, String)],
    config: &Path,
    tool: &str,
    args: &str,
) -> (Outcome, Outcome) {
    let tb = toolbox::invoke(dir, env, config, tool, args);
    let fs = filestore_call(dir, env, config, tool, args);
    (Outcome::of_toolbox(&tb.wait_with_output().unwrap()), Outcome::of_filestore(&fs))
}

fn filestore_call(
    dir: &Path,
    env: &[(String, String)],
    config: &Path,
    tool: &str,
    args: &str,
) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.arg("call").arg(tool).arg(args).arg("--config").arg(config);
    cmd.current_dir(dir).stdin(Stdio::null());
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    cmd.output().unwrap()
}

/// Each `(tool, args)` of `cases` agrees between Toolbox and filestore, and
/// filestore answers each with a result unless `args` is in `refused`.
fn agree(
    dir: &Path,
    env: &[(String, String)],
    config: &Path,
    cases: &[(&str, &str)],
    refused: &[&str],
) {
    let mut problems = Vec::new();
    for (tool, args) in cases {
        let (tb, fs) = both(dir, env, config, tool, args);
        let expect_refusal = refused.contains(args);
        if matches!(fs, Outcome::Refused(_)) != expect_refusal || !tb.agrees(&fs) {
            problems.push(format!(
                "{tool} {args}\n  toolbox:   {}\n  filestore: {}",
                tb.show(),
                fs.show()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// `sqlite.yaml` of Toolbox 1.12 (v2, `{{if}}` templates, a toolset) on a real file.
#[test]
fn prebuilt_sqlite_runs_like_toolbox() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shop.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
             CREATE TABLE orders (id INTEGER PRIMARY KEY, item INTEGER REFERENCES items(id));
             CREATE INDEX orders_item ON orders (item);
             CREATE TRIGGER no_empty BEFORE INSERT ON items BEGIN SELECT 1; END;
             INSERT INTO items VALUES (1, 'pen'), (2, 'ink');",
        )
        .unwrap();
    let env = vec![("SQLITE_DATABASE".to_string(), db.display().to_string())];
    let cases = [
        ("list_tables", "{}"),
        ("list_tables", r#"{"output_format": "simple"}"#),
        ("list_tables", r#"{"table_names": "orders,items"}"#),
        ("list_tables", r#"{"table_names": "nope"}"#),
        ("execute_sql", r#"{"sql": "SELECT name FROM items ORDER BY id"}"#),
        ("execute_sql", r#"{"sql": "SELECT * FROM missing_table"}"#),
    ];
    let refused = [r#"{"sql": "SELECT * FROM missing_table"}"#];
    agree(dir.path(), &env, &config_path("sqlite"), &cases, &refused);
}

/// The tests' PostgreSQL database `database`, set up with something for each catalog
/// tool to list, and the environment a prebuilt configuration whose variables start
/// with `prefix` (`POSTGRES`, `ALLOYDB_OMNI`) needs to reach it.
fn pg_database(database: &str, prefix: &str) -> Vec<(String, String)> {
    let server = crate::support::pg_server::server();
    server
        .database(database)
        .batch_execute(&format!(
            "CREATE TABLE hotels (id serial PRIMARY KEY, name text NOT NULL, location text);
             INSERT INTO hotels (name, location) VALUES ('Hilton', 'Basel'), ('Hyatt', 'Zurich');
             {}",
            crate::postgres::PREBUILT_CATALOG_SQL
        ))
        .unwrap();
    // ..._QUERY_PARAMS stays unset: Toolbox 1.12 refuses any value of it but the
    // empty default (its decoder wants a mapping there, and gets a string).
    [
        ("HOST", "127.0.0.1".to_string()),
        ("PORT", server.port.to_string()),
        ("DATABASE", database.to_string()),
        ("USER", crate::support::pg_server::USER.to_string()),
        ("PASSWORD", crate::support::pg_server::PASSWORD.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (format!("{prefix}_{k}"), v))
    .collect()
}

/// The arguments each catalog tool is called with (the others take none).
fn pg_args(tool: &str) -> &'static str {
    match tool {
        "execute_sql" => r#"{"sql": "SELECT count(*) AS n FROM hotels"}"#,
        "get_query_plan" => r#"{"query": "SELECT * FROM hotels WHERE id = 1"}"#,
        "get_column_cardinality" => r#"{"table_name": "hotels"}"#,
        _ => "{}",
    }
}

/// Calls every tool of `config` through `filestore call --config`: each must answer
/// with a result, but those of `refused` (with the fragment each refusal must hold).
/// Returns how many tools there are.
fn every_tool_answers(
    dir: &Path,
    env: &[(String, String)],
    config: &Path,
    refused: &[(&str, &str)],
) -> usize {
    let text = std::fs::read_to_string(config).unwrap();
    let tools: Vec<&str> = text
        .split("\n---\n")
        .filter(|d| d.contains("kind: tool\n"))
        .filter_map(|d| d.lines().find_map(|l| l.strip_prefix("name: ")))
        .collect();
    let mut failed = Vec::new();
    for tool in &tools {
        let out = filestore_call(dir, env, config, tool, pg_args(tool));
        let expected = refused.iter().find(|(t, _)| t == tool).map(|(_, why)| *why);
        match (Outcome::of_filestore(&out), expected) {
            (Outcome::Result(_), None) => {}
            (Outcome::Refused(why), Some(fragment)) if why.contains(fragment) => {}
            (got, _) => failed.push(format!("{tool}: {} (expected {expected:?})", got.show())),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    tools.len()
}

/// `alloydb-omni.yaml` of Toolbox 1.12 (31 tools on a `postgres` source) on the tests'
/// PostgreSQL: every tool answers but the one reading AlloyDB Omni's columnar engine,
/// which a plain PostgreSQL does not have.
#[test]
fn prebuilt_alloydb_omni_runs_on_postgres() {
    let env = pg_database("toolbox_prebuilt_omni", "ALLOYDB_OMNI");
    let dir = tempfile::tempdir().unwrap();
    let config = config_path("alloydb-omni");
    let refused = [(
        "list_columnar_recommended_columns",
        "relation \"g_columnar_recommended_columns\" does not exist",
    )];
    assert_eq!(every_tool_answers(dir.path(), &env, &config, &refused), 31);
    let cases = [("execute_sql", pg_args("execute_sql")), ("list_columnar_configurations", "{}")];
    agree(dir.path(), &env, &config, &cases, &[]);
}

/// `postgres.yaml` of Toolbox 1.12 (29 tools) on the tests' PostgreSQL server: every
/// tool answers through `filestore call --config`; those whose answer does not depend
/// on the moment agree with `toolbox invoke`.
#[test]
fn prebuilt_postgres_runs_like_toolbox() {
    let env = pg_database("toolbox_prebuilt_pg", "POSTGRES");
    let dir = tempfile::tempdir().unwrap();
    let config = config_path("postgres");
    assert_eq!(every_tool_answers(dir.path(), &env, &config, &[]), 29);
    let args = pg_args;
    // The answers that do not change between two calls agree with Toolbox's.
    let cases = [
        ("execute_sql", args("execute_sql")),
        ("execute_sql", r#"{"sql": "SELECT name, location FROM hotels ORDER BY id"}"#),
        ("execute_sql", r#"{"sql": "SELECT * FROM no_such_table"}"#),
        ("list_tables", r#"{"table_names": "hotels"}"#),
        ("list_views", "{}"),
        ("list_indexes", "{}"),
        ("list_sequences", "{}"),
        ("list_triggers", "{}"),
        ("list_schemas", "{}"),
        ("list_stored_procedure", "{}"),
        ("list_installed_extensions", "{}"),
        ("list_available_extensions", "{}"),
        ("list_autovacuum_configurations", "{}"),
        ("list_memory_configurations", "{}"),
        ("get_column_cardinality", r#"{"table_name": "hotels", "column_name": "location"}"#),
    ];
    let refused = [r#"{"sql": "SELECT * FROM no_such_table"}"#];
    agree(dir.path(), &env, &config, &cases, &refused);
}

/// `mysql.yaml` of Toolbox 1.12 (9 tools) on the tests' MariaDB server. Its
/// `execute_sql` runs here and agrees with `toolbox invoke`; the 8 catalog types
/// (`mysql-list-tables`...) are not run by this host yet: each call fails
/// `unsupported` naming its type. On MariaDB Toolbox itself answers 6 of those 8;
/// `list_all_locks` and `show_query_stats` need `performance_schema`, which MariaDB
/// leaves off by default (Toolbox: "enable performance_schema to run this tool").
#[test]
fn prebuilt_mysql_runs_its_execute_sql_like_toolbox() {
    use mysql::prelude::Queryable;
    let server = crate::support::mariadb_server::server();
    server
        .database("toolbox_prebuilt_my")
        .query_drop("CREATE TABLE hotels (id INT PRIMARY KEY, name VARCHAR(50)); CREATE TABLE nokey (a INT); INSERT INTO hotels VALUES (1, 'Hilton Basel'), (2, 'Marriott Zurich')")
        .unwrap();
    let env: Vec<(String, String)> = [
        ("MYSQL_HOST", "127.0.0.1".to_string()),
        ("MYSQL_PORT", server.port.to_string()),
        ("MYSQL_DATABASE", "toolbox_prebuilt_my".to_string()),
        ("MYSQL_USER", crate::support::mariadb_server::USER.to_string()),
        ("MYSQL_PASSWORD", crate::support::mariadb_server::PASSWORD.to_string()),
    ]
    .map(|(k, v)| (k.to_string(), v))
    .into();
    let dir = tempfile::tempdir().unwrap();
    let config = config_path("mysql");
    let cases = [
        ("execute_sql", r#"{"sql": "SELECT id, name FROM hotels ORDER BY id"}"#),
        ("execute_sql", r#"{"sql": "SELECT COUNT(*) AS n, 1.5 AS x, NULL AS z FROM hotels"}"#),
        ("execute_sql", r#"{"sql": "SELECT * FROM no_such_table"}"#),
    ];
    agree(dir.path(), &env, &config, &cases, &[r#"{"sql": "SELECT * FROM no_such_table"}"#]);
    let catalog = [
        ("list_active_queries", "mysql-list-active-queries", "{}", true),
        (
            "get_query_plan",
            "mysql-get-query-plan",
            r#"{"sql_statement": "SELECT * FROM hotels"}"#,
            true,
        ),
        ("list_tables", "mysql-list-tables", "{}", true),
        ("list_table_stats", "mysql-list-table-stats", "{}", true),
        (
            "list_tables_missing_unique_indexes",
            "mysql-list-tables-missing-unique-indexes",
            "{}",
            true,
        ),
        ("list_table_fragmentation", "mysql-list-table-fragmentation", "{}", true),
        ("list_all_locks", "mysql-list-all-locks", "{}", false),
        ("show_query_stats", "mysql-show-query-stats", "{}", false),
    ];
    let mut problems = Vec::new();
    for (tool, ty, args, mariadb_answers) in catalog {
        let tb = toolbox::invoke(dir.path(), &env, &config, tool, args);
        let tb = Outcome::of_toolbox(&tb.wait_with_output().unwrap());
        // Without arguments: the type's parameters are Toolbox's, unknown here.
        let fs = Outcome::of_filestore(&filestore_call(dir.path(), &env, &config, tool, "{}"));
        let unsupported = format!("tool '{tool}' has type '{ty}': type not supported by this host");
        if !matches!(&fs, Outcome::Refused(why) if why.contains(&unsupported)) {
            problems.push(format!("{tool}: filestore {}", fs.show()));
        }
        let answered = matches!(tb, Outcome::Result(_));
        if answered != mariadb_answers
            || (!answered && !tb.show().contains("enable performance_schema"))
        {
            problems.push(format!("{tool}: toolbox on MariaDB {}", tb.show()));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
