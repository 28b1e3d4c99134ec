//! `mysql-sql` and `mysql-execute-sql` tools through the real component against a
//! real MariaDB server on loopback (`mariadb_server`): the hotels quickstart with
//! `?` binding, result shapes of every common type, parameters that stay data,
//! errors in the server's words, the statement timeout the server itself enforces,
//! a cancel that reaches the server, no reuse of a connection that ran a model's SQL,
//! and bad credentials without leaking them. The same hostile tests PostgreSQL passes
//! (`postgres.rs`).

use filestore::handlers::ShippedHandlers as _;
use std::time::Duration;

use filestore::Session;
use filestore::tools::{InvokeContext, InvokeStatus, ToolRegistry};
use mysql::prelude::Queryable;
use serde_json::{Value, json};

use crate::sql_tools::{data, failure, invoke, load_with_secret, session};
use crate::support::mariadb_server::{PASSWORD, USER, server};

fn load(s: &mut Session, yaml: &str) {
    load_with_secret(s, yaml, "MY_PASSWORD", PASSWORD);
}

/// `tool` documents (`name`, `type`, then the rest) after the source `my`.
fn config(database: &str, extra: &str, tools: &[(&str, &str, &str)]) -> String {
    let mut yaml = server().source_yaml("my", database, "MY_PASSWORD", extra);
    for (name, ty, rest) in tools {
        yaml.push_str(&format!(
            "---\nkind: tool\nname: {name}\ntype: {ty}\nsource: my\ndescription: d\n{rest}\n"
        ));
    }
    yaml
}

/// How many statements matching `pattern` run on the server (other connections').
fn running(admin: &mut mysql::Conn, pattern: &str) -> i64 {
    admin
        .exec_first(
            "SELECT count(*) FROM information_schema.processlist WHERE info LIKE ? AND id <> CONNECTION_ID()",
            (pattern,),
        )
        .unwrap()
        .unwrap()
}

/// Waits until no statement matching `pattern` runs; `why` names what should have
/// stopped it. Not a timing assertion: a bound so a regression fails, not hangs.
fn gone(admin: &mut mysql::Conn, pattern: &str, why: &str) {
    let waited = std::time::Instant::now();
    while running(admin, pattern) != 0 {
        assert!(waited.elapsed() < Duration::from_secs(20), "{why}: the statement still runs");
        std::thread::sleep(Duration::from_millis(100));
    }
}

const HOTELS_SQL: &str = "CREATE TABLE hotels(
  id            INTEGER NOT NULL PRIMARY KEY,
  name          VARCHAR(255) NOT NULL,
  location      VARCHAR(255) NOT NULL,
  price_tier    VARCHAR(255) NOT NULL,
  checkin_date  DATE NOT NULL,
  checkout_date DATE NOT NULL,
  booked        BIT NOT NULL
);
INSERT INTO hotels VALUES
  (1, 'Hilton Basel', 'Basel', 'Luxury', '2024-04-22', '2024-04-20', 0),
  (2, 'Marriott Zurich', 'Zurich', 'Upscale', '2024-04-14', '2024-04-21', 0),
  (3, 'Hyatt Regency Basel', 'Basel', 'Upper Upscale', '2024-04-02', '2024-04-20', 0);";

#[test]
fn toolbox_hotels_quickstart_runs_on_mysql() {
    server().database("my_hotels").query_drop(HOTELS_SQL).unwrap();
    let yaml = config(
        "my_hotels",
        "queryTimeout: 30s\n",
        &[
            (
                "search-hotels-by-name",
                "mysql-sql",
                "parameters:\n  - {name: name, type: string, description: n}\nstatement: SELECT id, name, checkin_date FROM hotels WHERE name LIKE CONCAT('%', ?, '%') ORDER BY id",
            ),
            (
                "update-hotel",
                "mysql-sql",
                "parameters:\n  - {name: hotel_id, type: integer, description: i}\n  - {name: checkin_date, type: string, description: c}\nstatement: UPDATE hotels SET checkin_date = CAST(? AS date) WHERE id = ?",
            ),
        ],
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml);
    let out = invoke(&mut s, "search-hotels-by-name", json!({"name": "Basel"}));
    assert_eq!(
        data(&out),
        json!([
            {"id": 1, "name": "Hilton Basel", "checkin_date": "2024-04-22T00:00:00Z"},
            {"id": 3, "name": "Hyatt Regency Basel", "checkin_date": "2024-04-02T00:00:00Z"}
        ])
    );
    // `?` takes the declared parameters in order: checkin_date is the first `?`.
    let out = invoke(&mut s, "update-hotel", json!({"hotel_id": "2024-05-01", "checkin_date": 2}));
    assert!(failure(&out).contains("hotel_id"), "{}", out.text);
    let out = invoke(&mut s, "update-hotel", json!({"hotel_id": 2, "checkin_date": "2024-05-01"}));
    // The first `?` (the date) got hotel_id = 2, the second (id) the date string:
    // the binding is positional, as in Toolbox; no row has id '2024-05-01'.
    assert_eq!(data(&out), json!({"rows_affected": 0}));
}

#[test]
fn mysql_types_come_back_as_json() {
    let mut db = server().database("my_types");
    db.query_drop(
        "CREATE TABLE t (
           i INT, big BIGINT, ubig BIGINT UNSIGNED, f FLOAT, d DOUBLE, dec_ DECIMAL(30,9),
           dt DATE, dtm DATETIME(3), ts TIMESTAMP NULL, tm TIME, y YEAR,
           s VARCHAR(50), txt TEXT, js JSON, bl BLOB, vb VARBINARY(8), e ENUM('a','b'), b BIT(3),
           n INT NULL
         );
         INSERT INTO t VALUES (-7, 9223372036854775807, 18446744073709551615, 1.1, 2.5,
           12345678901234567890.123456789, '2024-04-22', '2024-04-22 10:30:00.120',
           '2024-04-22 10:30:00', '-10:30:00', 2024, 'héllo 🦀', '', '{\"a\": [1, 2]}',
           x'00ff10', x'', 'b', b'101', NULL)",
    )
    .unwrap();
    let want = json!([{
        "i": -7, "big": 9223372036854775807i64, "ubig": 18446744073709551615u64,
        "f": 1.1, "d": 2.5, "dec_": "12345678901234567890.123456789",
        "dt": "2024-04-22T00:00:00Z", "dtm": "2024-04-22T10:30:00.12Z",
        "ts": "2024-04-22T10:30:00Z", "tm": "-10:30:00", "y": 2024,
        "s": "héllo 🦀", "txt": "", "js": "{\"a\": [1, 2]}", "bl": "AP8Q", "vb": "",
        "e": "b", "b": "BQ==", "n": null
    }]);
    let yaml = config(
        "my_types",
        "",
        &[("all", "mysql-sql", "statement: SELECT * FROM t"), ("run", "mysql-execute-sql", "")],
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml);
    // The binary protocol (prepared) and the text protocol (execute-sql) agree.
    assert_eq!(data(&invoke(&mut s, "all", json!({}))), want);
    assert_eq!(data(&invoke(&mut s, "run", json!({"sql": "SELECT * FROM t"}))), want);
}

/// Parameters are bound, never spliced: SQL in a value stays a value, of every type.
#[test]
fn mysql_parameters_are_always_bound() {
    let mut db = server().database("my_bound");
    db.query_drop("CREATE TABLE users (name VARCHAR(100), secret VARCHAR(100)); INSERT INTO users VALUES ('ann', 's3cret')").unwrap();
    let yaml = config(
        "my_bound",
        "",
        &[
            (
                "find",
                "mysql-sql",
                "parameters:\n  - {name: name, type: string, description: n}\nstatement: SELECT name FROM users WHERE name = ?",
            ),
            (
                "echo",
                "mysql-sql",
                "parameters:\n  - {name: s, type: string, description: s}\n  - {name: i, type: integer, description: i}\n  - {name: f, type: float, description: f}\n  - {name: b, type: boolean, description: b}\n  - {name: o, type: string, description: o, required: false}\nstatement: SELECT ? AS s, ? AS i, ? AS f, ? AS b, ? AS o",
            ),
            (
                "tags",
                "mysql-sql",
                "parameters:\n  - {name: t, type: array, description: t, items: {name: x, type: string, description: x}}\nstatement: SELECT ? AS t",
            ),
        ],
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml);
    for hostile in
        ["' OR '1'='1", "ann' UNION SELECT secret FROM users -- ", "ann'; DROP TABLE users; --"]
    {
        assert_eq!(data(&invoke(&mut s, "find", json!({"name": hostile}))), json!([]), "{hostile}");
    }
    assert_eq!(data(&invoke(&mut s, "find", json!({"name": "ann"}))), json!([{"name": "ann"}]));
    let out = invoke(
        &mut s,
        "echo",
        json!({"s": "x' -- 🦀", "i": 9007199254740993i64, "f": 0.5, "b": true}),
    );
    assert_eq!(
        data(&out),
        json!([{"s": "x' -- 🦀", "i": 9007199254740993i64, "f": 0.5, "b": 1, "o": null}])
    );
    let e = failure(&invoke(&mut s, "tags", json!({"t": ["a"]})));
    assert!(e.contains("parameter 't'") && e.contains("array cannot be bound"), "{e}");
    let n: i64 = db.query_first("SELECT count(*) FROM users").unwrap().unwrap();
    assert_eq!(n, 1, "the table is intact");
}

#[test]
fn mysql_errors_timeouts_and_scripts() {
    let mut db = server().database("my_errors");
    db.query_drop("CREATE TABLE k (id INT PRIMARY KEY)").unwrap();
    let yaml = config(
        "my_errors",
        "",
        &[
            ("bad", "mysql-sql", "statement: SELEC 1"),
            ("slow", "mysql-sql", "statement: SELECT SLEEP(10) AS slept"),
            ("one", "mysql-sql", "statement: SELECT 1 AS one"),
            ("dup", "mysql-sql", "statement: INSERT INTO k VALUES (1)"),
            ("run", "mysql-execute-sql", ""),
        ],
    );
    let mut registry = ToolRegistry::with_builtin_handlers();
    registry.set_timeout(Duration::from_secs(2));
    let mut s = session(registry);
    load(&mut s, &yaml);
    let e = failure(&invoke(&mut s, "bad", json!({})));
    assert!(e.contains("'bad'") && e.contains("You have an error in your SQL syntax"), "{e}");
    assert!(e.contains("error 1064"), "{e}");
    assert_eq!(data(&invoke(&mut s, "dup", json!({}))), json!({"rows_affected": 1}));
    let e = failure(&invoke(&mut s, "dup", json!({})));
    assert!(e.contains("Duplicate entry '1' for key 'PRIMARY'"), "{e}");
    // The server stops the statement at the call's deadline (max_statement_time):
    // a clear error, nothing left running, the pooled connection usable. On a busy
    // machine the host's watchdog may answer first (it kills the query too): either
    // way the call ends with the deadline named and the server runs nothing after.
    let out = invoke(&mut s, "slow", json!({}));
    assert_eq!(out.status, InvokeStatus::Failed, "{}", out.text);
    assert!(
        out.text.contains("max_statement_time exceeded")
            || out.text.contains("timed out")
            || out.text.contains("did not finish within its timeout of 2s"),
        "{}",
        out.text
    );
    let mut admin = server().client("my_errors");
    gone(&mut admin, "SELECT SLEEP(10)%", "max_statement_time");
    for _ in 0..6 {
        assert_eq!(data(&invoke(&mut s, "one", json!({}))), json!([{"one": 1}]));
    }
    // execute-sql: a script answers with its last statement's result.
    assert_eq!(
        data(&invoke(&mut s, "run", json!({"sql": "SELECT 2 AS two"}))),
        json!([{"two": 2}])
    );
    let out = invoke(
        &mut s,
        "run",
        json!({"sql": "CREATE TABLE z (a INT); INSERT INTO z VALUES (5); SELECT a FROM z"}),
    );
    assert_eq!(data(&out), json!([{"a": 5}]));
    let out = invoke(&mut s, "run", json!({"sql": "DELETE FROM z; DELETE FROM k"}));
    assert_eq!(data(&out), json!({"rows_affected": 1}));
    let e = failure(&invoke(&mut s, "run", json!({"sql": "SELECT * FROM nowhere"})));
    assert!(e.contains("Table 'my_errors.nowhere' doesn't exist"), "{e}");
}

/// A cancelled call stops its statement on the server (`KILL QUERY` over another
/// connection): with a two-minute timeout only the cancel can end `SLEEP(100)` early.
#[test]
fn a_cancelled_call_cancels_its_mysql_statement() {
    server().database("my_cancel");
    let yaml = config("my_cancel", "", &[("nap", "mysql-sql", "statement: SELECT SLEEP(100)")]);
    let mut registry = ToolRegistry::with_builtin_handlers();
    registry.set_timeout(Duration::from_secs(120));
    let mut s = session(registry);
    load(&mut s, &yaml);
    let flag = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        let mut admin = server().client("my_cancel");
        let waited = std::time::Instant::now();
        while running(&mut admin, "SELECT SLEEP(100)%") == 0
            && waited.elapsed() < Duration::from_secs(30)
        {
            std::thread::sleep(Duration::from_millis(50));
        }
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let started = std::time::Instant::now();
    let out = s.invoke("nap", &json!({}), &InvokeContext::default());
    canceller.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(60), "the cancel did not reach the tool");
    match out {
        Err(e) => assert_eq!(e.kind_name(), "cancelled", "{e}"),
        Ok(out) => assert!(out.text.contains("cancelled"), "{}", out.text),
    }
    gone(&mut server().client("my_cancel"), "SELECT SLEEP(100)%", "the cancel");
}

#[test]
fn mysql_bad_credentials_and_sources_are_clear_and_leak_nothing() {
    server().database("my_auth");
    let port = server().port;
    let yaml = format!(
        "kind: source\nname: my\ntype: mysql\nhost: 127.0.0.1\nport: {port}\nuser: {USER}\npassword: ${{MY_WRONG}}\ndatabase: my_auth\n---\nkind: tool\nname: one\ntype: mysql-sql\nsource: my\ndescription: d\nstatement: SELECT 1\n"
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load_with_secret(&mut s, &yaml, "MY_WRONG", "wrong-Secret-123");
    let e = failure(&invoke(&mut s, "one", json!({})));
    assert!(e.contains("cannot connect to source 'my'") && e.contains("Access denied"), "{e}");
    assert!(!e.contains("wrong-Secret-123"), "{e}");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let yaml = format!(
        "kind: source\nname: gone\ntype: mysql\nhost: 127.0.0.1\nport: {closed}\nuser: u\npassword: p\ndatabase: d\n---\nkind: tool\nname: one\ntype: mysql-sql\nsource: gone\ndescription: d\nstatement: SELECT 1\n---\nkind: source\nname: typo\ntype: mysql\nhost: 127.0.0.1\nport: {closed}\nuser: u\npassword: p\ndatabase: d\nqueryParams:\n  tsl: 'true'\n---\nkind: tool\nname: two\ntype: mysql-sql\nsource: typo\ndescription: d\nstatement: SELECT 1\n---\nkind: source\nname: slow\ntype: mysql\nhost: 127.0.0.1\nport: {closed}\nuser: u\npassword: p\ndatabase: d\nqueryTimeout: soon\n---\nkind: tool\nname: three\ntype: mysql-sql\nsource: slow\ndescription: d\nstatement: SELECT 1\n"
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml);
    let e = failure(&invoke(&mut s, "one", json!({})));
    assert!(e.contains("cannot connect to source 'gone'"), "{e}");
    // A misspelt parameter is refused, never ignored (it might have been tls).
    let e = failure(&invoke(&mut s, "two", json!({})));
    assert!(e.contains("queryParams.tsl is not a connection parameter"), "{e}");
    let e = failure(&invoke(&mut s, "three", json!({})));
    assert!(e.contains("source 'slow': queryTimeout 'soon' is not a duration"), "{e}");
    // The tests' server has no certificate: `tls: true` fails rather than falling
    // back to plain TCP; `preferred` falls back, as in the Go driver.
    let tls = |mode: &str| {
        config(
            "my_auth",
            &format!("queryParams: {{tls: '{mode}'}}\n"),
            &[("one", "mysql-sql", "statement: SELECT 1 AS one")],
        )
    };
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &tls("true"));
    let e = failure(&invoke(&mut s, "one", json!({})));
    assert!(
        e.contains("cannot connect to source 'my'") && e.contains("requires secure connection"),
        "{e}"
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &tls("preferred"));
    assert_eq!(data(&invoke(&mut s, "one", json!({}))), json!([{"one": 1}]));
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &tls("maybe"));
    let e = failure(&invoke(&mut s, "one", json!({})));
    assert!(
        e.contains("queryParams.tls 'maybe' is not one of false, true, skip-verify, preferred"),
        "{e}"
    );
}

/// A connection that ran a model's SQL is never reused: what the SQL left (an open
/// transaction and its locks, session variables) dies with it, and turning the
/// server's timeout off does not let a statement outlive the call.
#[test]
fn mysql_execute_sql_leaves_nothing_for_the_next_call() {
    let mut db = server().database("my_hygiene");
    db.query_drop("CREATE TABLE t (id INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO t VALUES (1)")
        .unwrap();
    let yaml = config("my_hygiene", "", &[("run", "mysql-execute-sql", "")]);
    let mut registry = ToolRegistry::with_builtin_handlers();
    registry.set_timeout(Duration::from_secs(2));
    let mut s = session(registry);
    load(&mut s, &yaml);
    let out = invoke(
        &mut s,
        "run",
        json!({"sql": "SET @leftover = 'x'; START TRANSACTION; SELECT * FROM t FOR UPDATE"}),
    );
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    let who = |s: &mut _| {
        data(&invoke(s, "run", json!({"sql": "SELECT @leftover AS v, CONNECTION_ID() AS id"})))
    };
    let first = who(&mut s);
    assert_eq!(first[0]["v"], Value::Null, "a session variable carried over: {first}");
    let second = who(&mut s);
    assert_ne!(first[0]["id"], second[0]["id"], "a connection was reused: {first} {second}");
    // The lock is gone: another client can update the row at once.
    let mut other = server().client("my_hygiene");
    other
        .query_drop("SET SESSION innodb_lock_wait_timeout = 2; UPDATE t SET id = 2 WHERE id = 1")
        .unwrap();
    let out = invoke(
        &mut s,
        "run",
        json!({"sql": "SET SESSION max_statement_time = 0; SELECT SLEEP(30)"}),
    );
    assert_eq!(out.status, InvokeStatus::Failed, "{}", out.text);
    gone(&mut other, "%SLEEP(30)%", "the watchdog's KILL QUERY");
}

/// The source's `queryTimeout` is enforced by the server itself
/// (`max_statement_time`), well before the call's own deadline: the error is the
/// server's, and the server shows nothing left running.
#[test]
fn mysql_query_timeout_is_enforced_on_the_server() {
    server().database("my_qtimeout");
    let yaml = config(
        "my_qtimeout",
        "queryTimeout: 1s\n",
        &[
            ("slow", "mysql-sql", "statement: SELECT SLEEP(10) AS slept"),
            ("run", "mysql-execute-sql", ""),
        ],
    );
    let mut registry = ToolRegistry::with_builtin_handlers();
    registry.set_timeout(Duration::from_secs(30));
    let mut s = session(registry);
    load(&mut s, &yaml);
    for (tool, args) in [("slow", json!({})), ("run", json!({"sql": "SELECT SLEEP(10)"}))] {
        let started = std::time::Instant::now();
        let out = invoke(&mut s, tool, args);
        assert_eq!(out.status, InvokeStatus::Failed, "{}", out.text);
        assert!(
            out.text.contains("max_statement_time exceeded") && out.text.contains("error 1969"),
            "{}",
            out.text
        );
        assert!(out.text.contains(&format!("tool '{tool}'")), "{}", out.text);
        // Not a timing assertion on the server: only that it was not the call's 30 s.
        assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
        gone(&mut server().client("my_qtimeout"), "%SLEEP(10)%", "max_statement_time");
    }
}

/// Template values quoted by `escape` stay one literal or identifier on MariaDB in
/// its default mode (a backslash escapes) and with `NO_BACKSLASH_ESCAPES` (it does
/// not): no literal is right in both for a backslash, so `single-quotes` refuses
/// one; `backticks` double the backtick (`double-quotes` is no quoting of MySQL's:
/// a string or an identifier by `ANSI_QUOTES`, refused when the tools load). Every hostile value
/// comes back exactly or is refused clearly, never another row or a syntax error;
/// the attack that read every row and another table is refused. The connection's
/// character set is utf8mb4, so no multibyte character can hide a quote.
#[test]
fn mysql_template_escapes_hold_with_and_without_backslash_escapes() {
    use crate::sql_tools::{EscapeCase, Quoted, check_escapes, escape_tools_yaml, same};
    use crate::support::mariadb_server::{MariaDb, server_without_backslash_escapes};
    fn quote_refuses(v: &str) -> Option<&'static str> {
        if v.contains('\0') {
            Some("NUL")
        } else if v.contains('\\') {
            Some("backslash")
        } else {
            None
        }
    }
    fn backtick_refuses(v: &str) -> Option<&'static str> {
        if v.contains('\0') {
            Some("NUL")
        } else {
            v.chars().any(|c| c > '\u{FFFF}').then_some("beyond U+FFFF")
        }
    }
    // MariaDB drops an alias's leading white space (warning 1466).
    fn alias(v: &str) -> String {
        v.trim_start_matches(|c: char| c.is_ascii_whitespace()).to_string()
    }
    let literal = |escape| EscapeCase {
        escape,
        quoted: Quoted::Literal,
        refuses: quote_refuses,
        column: same,
    };
    let cases = [
        literal("single-quotes"),
        EscapeCase {
            escape: "backticks",
            quoted: Quoted::Identifier,
            refuses: backtick_refuses,
            column: alias,
        },
    ];
    let servers: [(&MariaDb, &str, bool); 2] = [
        (server(), "my_escapes", false),
        (server_without_backslash_escapes(), "my_escapes_nbe", true),
    ];
    for (server, database, no_backslash_escapes) in servers {
        server
            .database(database)
            .query_drop(
                "CREATE TABLE people (name VARCHAR(100)); INSERT INTO people VALUES ('ann'), ('bob');
                 CREATE TABLE secrets (secret VARCHAR(100)); INSERT INTO secrets VALUES ('s3cret')",
            )
            .unwrap();
        let mut yaml = server.source_yaml("my", database, "MY_PASSWORD", "");
        yaml.push_str(&escape_tools_yaml("mysql-sql", "my", &cases));
        yaml.push_str(
            "---\nkind: tool\nname: session\ntype: mysql-sql\nsource: my\ndescription: d\nstatement: SELECT @@SESSION.sql_mode AS mode, @@character_set_client AS client, @@character_set_connection AS conn\n",
        );
        let mut s = session(ToolRegistry::with_builtin_handlers());
        load(&mut s, &yaml);
        let got = data(&invoke(&mut s, "session", json!({})));
        let mode = got[0]["mode"].as_str().unwrap();
        assert_eq!(mode.contains("NO_BACKSLASH_ESCAPES"), no_backslash_escapes, "{got}");
        assert_eq!((&got[0]["client"], &got[0]["conn"]), (&json!("utf8mb4"), &json!("utf8mb4")));
        let label = if no_backslash_escapes { "NO_BACKSLASH_ESCAPES" } else { "default mode" };
        check_escapes(&mut s, label, &cases);
    }
}
