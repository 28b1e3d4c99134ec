//! filestore against the real MCP Toolbox 1.12.0 binary (installed from npm
//! by `support::toolbox`). Each case of the corpora (`sqlite.cases`,
//! `postgres.cases`, `mysql.cases`, `redis.cases` here) runs through `toolbox invoke` and `filestore call
//! --config`, each config through both loaders; they must agree (equal JSON
//! results, or both refused) unless the difference is one recorded, with its
//! reason, in docs/configured-tools.md's table (which this suite reads); a recorded
//! difference that no longer occurs fails too.
//!
//! Modules: `corpus` (the files and the table), `outcome` (an answer and agreement),
//! `run` (both sides over one corpus), `schemas` (`tools/list` of both servers).

mod corpus;
pub(crate) mod outcome;
mod run;
mod schemas;

use std::process::Output;

use corpus::Corpus;
use run::Side;

/// stdout and stderr of `out`, joined.
fn text(out: &Output) -> String {
    crate::support::toolbox::text(out)
}

/// A `sqlite` source document named `db` for the file `path`.
fn sqlite_source(path: &std::path::Path) -> String {
    format!("kind: source\nname: db\ntype: sqlite\ndatabase: {}\n", path.display())
}

/// A side for SQLite: its own directory and database, set up with `setup`.
fn sqlite_side(root: &std::path::Path, name: &str, setup: &str) -> Side {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("diff.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(setup).unwrap_or_else(|e| panic!("sqlite.cases setup: {e}"));
    Side { source: sqlite_source(&db), dir, env: Vec::new() }
}

/// Every SQLite case and `tools/list` entry agrees with Toolbox 1.12, or differs as
/// recorded.
#[test]
fn sqlite_cases_agree_with_toolbox() {
    let corpus = Corpus::read("sqlite.cases");
    let root = tempfile::tempdir().unwrap();
    let toolbox = sqlite_side(root.path(), "toolbox", &corpus.setup);
    let filestore = sqlite_side(root.path(), "filestore", &corpus.setup);
    let mut report = run::corpus(&corpus, &toolbox, &filestore);
    schemas::compare(&corpus, &toolbox, &filestore, &mut report);
    report.assert_clean("sqlite");
}

/// A side for PostgreSQL: its own database on the tests' server, set up with
/// `setup`, the password in `${PG_PASSWORD}`.
fn postgres_side(root: &std::path::Path, name: &str, setup: &str) -> Side {
    let server = crate::support::pg_server::server();
    let database = format!("toolbox_diff_{name}");
    let mut client = server.database(&database);
    client.batch_execute(setup).unwrap_or_else(|e| panic!("postgres.cases setup: {e}"));
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let password = crate::support::pg_server::PASSWORD.to_string();
    Side {
        source: server.source_yaml("db", &database, "PG_PASSWORD", ""),
        dir,
        env: vec![("PG_PASSWORD".into(), password)],
    }
}

/// Every PostgreSQL case and `tools/list` entry agrees with Toolbox 1.12, or differs
/// as recorded.
#[test]
fn postgres_cases_agree_with_toolbox() {
    let corpus = Corpus::read("postgres.cases");
    let root = tempfile::tempdir().unwrap();
    let toolbox = postgres_side(root.path(), "toolbox", &corpus.setup);
    let filestore = postgres_side(root.path(), "filestore", &corpus.setup);
    let mut report = run::corpus(&corpus, &toolbox, &filestore);
    schemas::compare(&corpus, &toolbox, &filestore, &mut report);
    report.assert_clean("postgres");
}

/// A side for MySQL: its own database on the tests' MariaDB server, set up with
/// `setup`, the password in `${MY_PASSWORD}`.
fn mysql_side(root: &std::path::Path, name: &str, setup: &str) -> Side {
    use mysql::prelude::Queryable;
    let server = crate::support::mariadb_server::server();
    let database = format!("toolbox_diff_{name}");
    let mut client = server.database(&database);
    client.query_drop(setup).unwrap_or_else(|e| panic!("mysql.cases setup: {e}"));
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let password = crate::support::mariadb_server::PASSWORD.to_string();
    // The connection's parts too, for configs with a source of their own.
    let env = [
        ("MY_PASSWORD", password),
        ("MY_PORT", server.port.to_string()),
        ("MY_USER", crate::support::mariadb_server::USER.to_string()),
    ];
    Side {
        source: server.source_yaml("db", &database, "MY_PASSWORD", ""),
        dir,
        env: env.map(|(k, v)| (k.to_string(), v)).into(),
    }
}

/// Every MySQL case (on MariaDB) and `tools/list` entry agrees with Toolbox 1.12, or
/// differs as recorded.
#[test]
fn mysql_cases_agree_with_toolbox() {
    let corpus = Corpus::read("mysql.cases");
    let root = tempfile::tempdir().unwrap();
    let toolbox = mysql_side(root.path(), "toolbox", &corpus.setup);
    let filestore = mysql_side(root.path(), "filestore", &corpus.setup);
    let mut report = run::corpus(&corpus, &toolbox, &filestore);
    schemas::compare(&corpus, &toolbox, &filestore, &mut report);
    report.assert_clean("mysql");
}

/// A side for Redis: its own database `db` on the tests' server, emptied and set up
/// with `setup` (one `redis-cli` command per line, words split at spaces), the
/// password in `${REDIS_PASSWORD}`.
fn redis_side(root: &std::path::Path, name: &str, source_type: &str, db: u32, setup: &str) -> Side {
    let server = crate::support::redis_server::server();
    server.cli(db, &["FLUSHDB"]);
    for line in setup.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        server.cli(db, &line.split(' ').collect::<Vec<_>>());
    }
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let password = crate::support::redis_server::PASSWORD.to_string();
    Side {
        source: server.source_yaml(source_type, "db", db, "REDIS_PASSWORD"),
        dir,
        env: vec![("REDIS_PASSWORD".into(), password)],
    }
}

/// Every Redis and Valkey case (both on the tests' Redis server) and `tools/list`
/// entry agrees with Toolbox 1.12, or differs as recorded.
#[test]
fn redis_cases_agree_with_toolbox() {
    let root = tempfile::tempdir().unwrap();
    // Valkey's tools take Redis's corpus with their own type.
    for (source_type, dbs) in [("redis", (8, 9)), ("valkey", (10, 11))] {
        let corpus = Corpus::read("redis.cases").with_tool_type("redis", source_type);
        let toolbox = redis_side(
            root.path(),
            &format!("toolbox-{source_type}"),
            source_type,
            dbs.0,
            &corpus.setup,
        );
        let filestore = redis_side(
            root.path(),
            &format!("filestore-{source_type}"),
            source_type,
            dbs.1,
            &corpus.setup,
        );
        let mut report = run::corpus(&corpus, &toolbox, &filestore);
        schemas::compare(&corpus, &toolbox, &filestore, &mut report);
        report.assert_clean(source_type);
    }
}

/// The table of recorded differences and the corpora hold together: every recorded
/// difference is claimed by some case or config, every claim names a recorded one,
/// and the corpora keep at least 150 cases, so every tool kind and parameter shape
/// is compared more than once.
#[test]
fn recorded_differences_are_exercised() {
    let recorded = corpus::recorded();
    let corpora =
        ["sqlite.cases", "postgres.cases", "mysql.cases", "redis.cases"].map(Corpus::read);
    let normalised = schemas::NORMALISATIONS.map(String::from);
    let claimed: std::collections::BTreeSet<String> =
        corpora.iter().flat_map(Corpus::differences).chain(normalised).collect();
    let unknown: Vec<_> = claimed.difference(&recorded).collect();
    assert!(unknown.is_empty(), "cases claim differences the table does not record: {unknown:?}");
    let unused: Vec<_> = recorded.difference(&claimed).collect();
    assert!(unused.is_empty(), "recorded differences no case shows: {unused:?}");
    let cases: usize = corpora.iter().map(|c| c.cases().count()).sum();
    assert!(cases >= 150, "the corpora have {cases} cases; the suite keeps 150 or more");
}
