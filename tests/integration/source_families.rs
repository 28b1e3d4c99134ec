//! Toolbox's other sources of the PostgreSQL and MySQL wire families
//! (docs/configured-tools.md#tool-types-this-binary-runs) against the suite's real
//! servers: `cockroachdb`, `yugabytedb` and a `cloud-sql-postgres` source given a
//! direct host on the PostgreSQL server, `mariadb` and `tidb` on the MariaDB server,
//! each through its own Toolbox tool types; a CockroachDB source refusing writes
//! unless `enableWriteMode`, as Toolbox's does. Then what this host does not run:
//! `unsupported`, named, once per type at `check` / `call` start, and on a call.

use filestore::handlers::ShippedHandlers as _;
use std::process::Command;

use filestore::tools::ToolRegistry;
use mysql::prelude::Queryable;
use serde_json::json;

use crate::sql_tools::{data, failure, invoke, load_with_secret, session};
use crate::support::{mariadb_server, pg_server};

/// A source document of `ty` for the PostgreSQL server's `database`, password from
/// `${PG_PASSWORD}`, with `extra` lines.
fn pg_source(name: &str, ty: &str, database: &str, extra: &str) -> String {
    pg_server::server()
        .source_yaml(name, database, "PG_PASSWORD", extra)
        .replace("type: postgres\n", &format!("type: {ty}\n"))
}

/// A source document of `ty` for the MariaDB server's `database`.
fn my_source(name: &str, ty: &str, database: &str, extra: &str) -> String {
    mariadb_server::server()
        .source_yaml(name, database, "MY_PASSWORD", extra)
        .replace("type: mysql\n", &format!("type: {ty}\n"))
}

fn tool(name: &str, ty: &str, source: &str, rest: &str) -> String {
    format!("---\nkind: tool\nname: {name}\ntype: {ty}\nsource: {source}\ndescription: d\n{rest}\n")
}

#[test]
fn postgres_family_sources_run_their_toolbox_tools_on_the_real_server() {
    pg_server::server()
        .database("pg_families")
        .batch_execute("CREATE TABLE hotels(id INT PRIMARY KEY, name TEXT); INSERT INTO hotels VALUES (1, 'Hilton Basel'), (2, 'Marriott Zurich');")
        .unwrap();
    let by_id = "parameters:\n  - {name: id, type: integer, description: i}\nstatement: SELECT name FROM hotels WHERE id = $1";
    let yaml = [
        pg_source("crdb", "cockroachdb", "pg_families", "maxRetries: 3\nclusterID: c1\n"),
        format!(
            "---\n{}",
            pg_source("crdb-rw", "cockroachdb", "pg_families", "enableWriteMode: true\n")
        ),
        format!(
            "---\n{}",
            pg_source("yb", "yugabytedb", "pg_families", "loadBalance: \"false\"\n")
        ),
        // Toolbox's Cloud SQL fields, and the direct endpoint filestore connects to.
        format!(
            "---\n{}",
            pg_source(
                "cs",
                "cloud-sql-postgres",
                "pg_families",
                "project: p\nregion: r\ninstance: i\n"
            )
        ),
        tool("crdb_by_id", "cockroachdb-sql", "crdb", by_id),
        tool("crdb_exec", "cockroachdb-execute-sql", "crdb", ""),
        tool("crdb_rw_exec", "cockroachdb-execute-sql", "crdb-rw", ""),
        tool("yb_by_id", "yugabytedb-sql", "yb", by_id),
        tool("cs_by_id", "postgres-sql", "cs", by_id),
        // A prebuilt type without `description`: Toolbox's text.
        "---\nkind: tool\nname: tables\ntype: postgres-list-tables\nsource: cs\n".to_string(),
    ]
    .concat();
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load_with_secret(&mut s, &yaml, "PG_PASSWORD", pg_server::PASSWORD);
    for t in ["crdb_by_id", "yb_by_id", "cs_by_id"] {
        assert_eq!(
            data(&invoke(&mut s, t, json!({"id": 2}))),
            json!([{"name": "Marriott Zurich"}]),
            "{t}"
        );
    }
    let read =
        data(&invoke(&mut s, "crdb_exec", json!({"sql": "SELECT count(*) AS n FROM hotels"})));
    assert_eq!(read, json!([{"n": 2}]));
    // Read-only by default, as Toolbox's CockroachDB source: the server refuses.
    let insert = json!({"sql": "INSERT INTO hotels VALUES (3, 'Hyatt')"});
    let e = failure(&invoke(&mut s, "crdb_exec", insert.clone()));
    assert!(e.contains("read-only transaction"), "{e}");
    data(&invoke(&mut s, "crdb_rw_exec", insert));
    let rows = pg_server::server()
        .client("pg_families")
        .unwrap()
        .query("SELECT id FROM hotels", &[])
        .unwrap();
    assert_eq!(rows.len(), 3, "enableWriteMode: true writes");

    let specs = s.tool_specs().unwrap();
    let tables = specs.iter().find(|t| t["name"] == "tables").expect("tables listed");
    assert!(
        tables["description"].as_str().unwrap().starts_with("Lists detailed schema information"),
        "{tables}"
    );
    let listed = data(&invoke(&mut s, "tables", json!({"table_names": "hotels"})));
    assert_eq!(listed[0]["object_name"], "hotels", "{listed}");
}

#[test]
fn mysql_family_sources_run_their_toolbox_tools_on_the_real_server() {
    mariadb_server::server()
        .database("my_families")
        .query_drop("CREATE TABLE hotels(id INT PRIMARY KEY, name TEXT); INSERT INTO hotels VALUES (1, 'Hilton Basel'), (2, 'Marriott Zurich');")
        .unwrap();
    let by_id = "parameters:\n  - {name: id, type: integer, description: i}\nstatement: SELECT name FROM hotels WHERE id = ?";
    let yaml = [
        my_source("maria", "mariadb", "my_families", ""),
        // `ssl: false`, Toolbox's default: the test server speaks plain TCP.
        format!("---\n{}", my_source("ti", "tidb", "my_families", "ssl: false\n")),
        tool("maria_by_id", "mysql-sql", "maria", by_id),
        tool("maria_exec", "mysql-execute-sql", "maria", ""),
        tool("ti_by_id", "tidb-sql", "ti", by_id),
        tool("ti_exec", "tidb-execute-sql", "ti", ""),
    ]
    .concat();
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load_with_secret(&mut s, &yaml, "MY_PASSWORD", mariadb_server::PASSWORD);
    for t in ["maria_by_id", "ti_by_id"] {
        assert_eq!(
            data(&invoke(&mut s, t, json!({"id": 1}))),
            json!([{"name": "Hilton Basel"}]),
            "{t}"
        );
    }
    for t in ["maria_exec", "ti_exec"] {
        let n = data(&invoke(&mut s, t, json!({"sql": "SELECT count(*) AS n FROM hotels"})));
        assert_eq!(n, json!([{"n": 2}]), "{t}");
    }
    // `ssl: true` is TLS with a verified certificate, which this plain server cannot give.
    let yaml = format!(
        "{}{}",
        my_source("ti", "tidb", "my_families", "ssl: true\n"),
        tool("ti_by_id", "tidb-sql", "ti", by_id)
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load_with_secret(&mut s, &yaml, "MY_PASSWORD", mariadb_server::PASSWORD);
    let e = failure(&invoke(&mut s, "ti_by_id", json!({"id": 1})));
    assert!(e.contains("cannot connect to source 'ti'") && e.contains("secure connection"), "{e}");
}

/// Types this host does not run: `check` and `call` say so once per type, as
/// `unsupported`, without the list of every handled type; a call answers
/// `unsupported` naming the type (not `not-found` about its never-loaded source), and
/// a Cloud SQL source without a direct host is `unsupported` saying so.
#[test]
fn unsupported_types_are_named_once_and_calls_answer_unsupported() {
    let tmp = tempfile::tempdir().unwrap();
    let bq = "kind: source\nname: bq\ntype: bigquery\nproject: p\n";
    let cs = "---\nkind: source\nname: cs\ntype: cloud-sql-postgres\nproject: p\nregion: r\ninstance: i\ndatabase: d\nuser: u\npassword: pw\n";
    let parts: [&str; 6] = [
        bq,
        cs,
        &tool("q1", "bigquery-sql", "bq", "statement: SELECT 1"),
        &tool("q2", "bigquery-sql", "bq", "statement: SELECT 2"),
        &tool("c1", "postgres-sql", "cs", "statement: SELECT 1"),
        &tool("c2", "postgres-execute-sql", "cs", ""),
    ];
    let yaml = parts.concat();
    let path = tmp.path().join("tools.yaml");
    std::fs::write(&path, yaml).unwrap();
    let path = path.to_str().unwrap();
    let bin = || Command::new(env!("CARGO_BIN_EXE_filestore"));

    let out = bin().args(["check", path]).output().unwrap();
    let (stdout, stderr) =
        (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stdout}{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("unsupported: ")).collect();
    assert_eq!(warnings.len(), 2, "one per distinct type: {stderr}");
    assert!(
        warnings[0].contains("bigquery-sql") && warnings[0].contains("(tools 'q1', 'q2')"),
        "{stderr}"
    );
    assert!(
        warnings[1].contains("its source 'cs'") && warnings[1].contains("(tools 'c1', 'c2')"),
        "{stderr}"
    );
    // check's report gives each tool's reason in full.
    assert!(
        stdout.contains("its source 'cs' is a cloud-sql-postgres source")
            && stdout.contains("direct `host`"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("it runs") && !stderr.contains("sqlite-sql"),
        "no list of handled types: {stdout}{stderr}"
    );

    let out = bin().args(["call", "q1", "{}", "--config", path]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "error[unsupported]: tool 'q1' has type 'bigquery-sql': type not supported by this host"
        ),
        "{stderr}"
    );
    // The call's own answer names what this host runs (one answer, unlike the
    // start-up warnings, which name no list).
    assert!(
        !stderr.contains("not-found") && stderr.contains("it handles: cockroachdb-execute-sql"),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("warning: ").count(),
        2,
        "call warns once per type at start: {stderr}"
    );

    let out = bin().args(["call", "c1", "{}", "--config", path]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error[unsupported]: tool 'c1' cannot run here: its source 'cs' is a cloud-sql-postgres source")
            && stderr.contains("direct `host`"),
        "{stderr}"
    );
}
