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
/// filestore answers each with a result unless `(tool, args)` is in `refused`.
fn agree(
    dir: &Path,
    env: &[(String, String)],
    config: &Path,
    cases: &[(&str, &str)],
    refused: &[(&str, &str)],
) {
    let mut problems = Vec::new();
    for (tool, args) in cases {
        let (tb, fs) = both(dir, env, config, tool, args);
        let expect_refusal = refused.contains(&(*tool, *args));
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
    let refused = [("execute_sql", r#"{"sql": "SELECT * FROM missing_table"}"#)];
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

/// Calls every tool of `config` through `filestore call --config` with `args(tool)`:
/// each must answer with a result, but those of `refused` (with the fragment each
/// refusal must hold). Returns how many tools there are.
fn every_tool_answers(
    dir: &Path,
    env: &[(String, String)],
    config: &Path,
    refused: &[(&str, &str)],
    args: fn(&str) -> &'static str,
) -> usize {
    let text = std::fs::read_to_string(config).unwrap();
    let tools: Vec<&str> = text
        .split("\n---\n")
        .filter(|d| d.contains("kind: tool\n"))
        .filter_map(|d| d.lines().find_map(|l| l.strip_prefix("name: ")))
        .collect();
    let mut failed = Vec::new();
    for tool in &tools {
        let out = filestore_call(dir, env, config, tool, args(tool));
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
    assert_eq!(every_tool_answers(dir.path(), &env, &config, &refused, pg_args), 31);
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
    assert_eq!(every_tool_answers(dir.path(), &env, &config, &[], pg_args), 29);
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
    let refused = [("execute_sql", r#"{"sql": "SELECT * FROM no_such_table"}"#)];
    agree(dir.path(), &env, &config, &cases, &refused);
}

/// The arguments each tool of the prebuilt `mysql` configuration is called with by
/// [`every_tool_answers`].
fn my_args(tool: &str) -> &'static str {
    match tool {
        "execute_sql" => r#"{"sql": "SELECT COUNT(*) AS n FROM tbp_hotels"}"#,
        "get_query_plan" => r#"{"sql_statement": "SELECT * FROM tbp_hotels WHERE id = 1"}"#,
        _ => "{}",
    }
}

/// `mysql.yaml` of Toolbox 1.12 (9 tools) on the tests' MariaDB server: every tool
/// answers through `filestore call --config` but the two that need
/// `performance_schema`, which MariaDB leaves off by default: those are refused in
/// Toolbox's words ("enable performance_schema to run this tool"), as Toolbox refuses
/// them. The answers that do not depend on the moment or on the other tests sharing
/// the server (their tables are filtered out by name or schema) agree with
/// `toolbox invoke`.
#[test]
fn prebuilt_mysql_runs_like_toolbox() {
    use mysql::prelude::Queryable;
    const DB: &str = "toolbox_prebuilt_my";
    let server = crate::support::mariadb_server::server();
    server
        .database(DB)
        .query_drop(
            "CREATE TABLE tbp_hotels (id INT PRIMARY KEY, name VARCHAR(50) UNIQUE COMMENT 'the name') COMMENT 'hotels';
             CREATE TABLE tbp_nokey (a INT, b TEXT, KEY by_a (a));
             CREATE TABLE tbp_rooms (id INT PRIMARY KEY, hotel INT NOT NULL DEFAULT 1,
               CONSTRAINT tbp_room_hotel FOREIGN KEY (hotel) REFERENCES tbp_hotels (id));
             CREATE TRIGGER tbp_no_empty BEFORE INSERT ON tbp_nokey FOR EACH ROW SET NEW.b = IFNULL(NEW.b, '');
             INSERT INTO tbp_hotels VALUES (1, 'Hilton Basel'), (2, 'Marriott Zurich');
             INSERT INTO tbp_rooms VALUES (10, 1), (11, 2)",
        )
        .unwrap();
    let env = my_env(server, DB);
    let dir = tempfile::tempdir().unwrap();
    let config = config_path("mysql");
    let off = "enable performance_schema to run this tool";
    let refused = [("list_all_locks", off), ("show_query_stats", off)];
    assert_eq!(every_tool_answers(dir.path(), &env, &config, &refused, my_args), 9);
    let tables = r#"{"table_names": "tbp_hotels,tbp_nokey,tbp_rooms"}"#;
    let schema = r#"{"table_schema": "toolbox_prebuilt_my"}"#;
    let elsewhere = r#"{"table_schema": "another_db"}"#;
    let cases = [
        ("execute_sql", r#"{"sql": "SELECT id, name FROM tbp_hotels ORDER BY id"}"#),
        ("execute_sql", r#"{"sql": "SELECT COUNT(*) AS n, 1.5 AS x, NULL AS z FROM tbp_hotels"}"#),
        ("execute_sql", r#"{"sql": "SELECT * FROM no_such_table"}"#),
        ("list_tables", tables),
        ("list_tables", r#"{"table_names": "tbp_rooms", "output_format": "simple"}"#),
        ("list_tables", r#"{"table_names": "tbp_no_such_table"}"#),
        ("list_tables", r#"{"table_names": "tbp_hotels", "output_format": "wide"}"#),
        ("get_query_plan", my_args("get_query_plan")),
        (
            "get_query_plan",
            r#"{"sql_statement": "SELECT h.name FROM tbp_hotels h JOIN tbp_rooms r ON r.hotel = h.id"}"#,
        ),
        ("get_query_plan", r#"{"sql_statement": "SELECT * FROM no_such_table"}"#),
        ("get_query_plan", r#"{"sql_statement": "SELECT 1; DROP TABLE tbp_rooms"}"#),
        ("list_tables_missing_unique_indexes", schema),
        (
            "list_tables_missing_unique_indexes",
            r#"{"table_schema": "toolbox_prebuilt_my", "limit": 0}"#,
        ),
        (
            "list_table_fragmentation",
            r#"{"table_schema": "toolbox_prebuilt_my", "data_free_threshold_bytes": 0}"#,
        ),
        ("list_table_fragmentation", schema),
        ("list_table_stats", schema),
        ("list_table_stats", elsewhere),
        ("list_active_queries", r#"{"min_duration_secs": 1000000}"#),
        ("list_all_locks", "{}"),
        ("show_query_stats", schema),
    ];
    let refused = [
        ("execute_sql", r#"{"sql": "SELECT * FROM no_such_table"}"#),
        ("list_tables", r#"{"table_names": "tbp_hotels", "output_format": "wide"}"#),
        ("get_query_plan", r#"{"sql_statement": "SELECT * FROM no_such_table"}"#),
        ("get_query_plan", r#"{"sql_statement": "SELECT 1; DROP TABLE tbp_rooms"}"#),
        ("list_table_stats", elsewhere),
        ("list_all_locks", "{}"),
        ("show_query_stats", schema),
    ];
    agree(dir.path(), &env, &config, &cases, &refused);
    // The second statement of a query plan never ran, in either.
    let n: Option<i64> = server.client(DB).query_first("SELECT COUNT(*) FROM tbp_rooms").unwrap();
    assert_eq!(n, Some(2));
}

/// The environment the prebuilt `mysql` configuration needs to reach `database` on
/// `server`.
fn my_env(
    server: &crate::support::mariadb_server::MariaDb,
    database: &str,
) -> Vec<(String, String)> {
    [
        ("MYSQL_HOST", "127.0.0.1".to_string()),
        ("MYSQL_PORT", server.port.to_string()),
        ("MYSQL_DATABASE", database.to_string()),
        ("MYSQL_USER", crate::support::mariadb_server::USER.to_string()),
        ("MYSQL_PASSWORD", crate::support::mariadb_server::PASSWORD.to_string()),
    ]
    .map(|(k, v)| (k.to_string(), v))
    .into()
}

/// The two tools of the prebuilt `mysql` configuration that read `performance_schema`,
/// on a MariaDB server that has it on: `show_query_stats` answers in both with the
/// same columns (its latencies and counts change from call to call, so the rows
/// themselves are compared only where they cannot: none, and a refused schema);
/// `list_all_locks` reads MySQL 8's `performance_schema.data_locks`, which MariaDB
/// does not have: both fail on it.
#[test]
fn prebuilt_mysql_performance_schema_tools_run_like_toolbox() {
    use mysql::prelude::Queryable;
    const DB: &str = "toolbox_prebuilt_ps";
    let server = crate::support::mariadb_server::server_with_performance_schema();
    let mut db = server.database(DB);
    db.query_drop("CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1); SELECT * FROM t")
        .unwrap();
    let env = my_env(server, DB);
    let dir = tempfile::tempdir().unwrap();
    let config = config_path("mysql");
    let (tb, fs) = both(dir.path(), &env, &config, "show_query_stats", "{}");
    let columns = |o: &Outcome| match o {
        Outcome::Result(serde_json::Value::Array(rows)) if !rows.is_empty() => {
            Some(rows[0].as_object().unwrap().keys().cloned().collect::<Vec<_>>())
        }
        _ => None,
    };
    assert!(
        columns(&fs).is_some() && columns(&fs) == columns(&tb),
        "toolbox:   {}\nfilestore: {}",
        tb.show(),
        fs.show()
    );
    let cases = [
        ("show_query_stats", r#"{"limit": 0}"#),
        ("show_query_stats", r#"{"table_schema": "another_db"}"#),
        ("list_all_locks", "{}"),
    ];
    let refused =
        [("show_query_stats", r#"{"table_schema": "another_db"}"#), ("list_all_locks", "{}")];
    agree(dir.path(), &env, &config, &cases, &refused);
    let locks =
        Outcome::of_filestore(&filestore_call(dir.path(), &env, &config, "list_all_locks", "{}"));
    assert!(locks.show().contains("performance_schema.data_locks"), "{}", locks.show());
}
