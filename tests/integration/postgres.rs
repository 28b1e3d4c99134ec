//! `postgres-sql` and `postgres-execute-sql` tools through the real component against
//! a real PostgreSQL 18 server on loopback (`pg_server`): Toolbox's hotels quickstart,
//! `$N` binding by number with the server's inferred types, result shapes of every
//! common type, errors (the server's words, the parameter at fault, a cast to use),
//! timeouts the server itself enforces, scripts, bad credentials without leaking
//! them, and TLS per `sslmode` through a real TLS endpoint.

use filestore::handlers::ShippedHandlers as _;
use std::time::Duration;

use filestore::Session;
use filestore::tools::{InvokeContext, InvokeStatus, ToolRegistry};
use serde_json::json;

use crate::sql_tools::{data, failure, invoke, load_with_secret, session};
use crate::support::pg_server::{PASSWORD, TlsFront, server};

fn load(s: &mut Session, yaml: &str) {
    load_with_secret(s, yaml, "PG_PASSWORD", PASSWORD);
}

/// Toolbox's PostgreSQL quickstart schema and data (docs/en/getting-started/introduction).
const HOTELS_SQL: &str = "CREATE TABLE hotels(
  id            INTEGER NOT NULL PRIMARY KEY,
  name          VARCHAR NOT NULL,
  location      VARCHAR NOT NULL,
  price_tier    VARCHAR NOT NULL,
  checkin_date  DATE    NOT NULL,
  checkout_date DATE    NOT NULL,
  booked        BIT     NOT NULL
);
INSERT INTO hotels(id, name, location, price_tier, checkin_date, checkout_date, booked)
VALUES
  (1, 'Hilton Basel', 'Basel', 'Luxury', '2024-04-22', '2024-04-20', B'0'),
  (2, 'Marriott Zurich', 'Zurich', 'Upscale', '2024-04-14', '2024-04-21', B'0'),
  (3, 'Hyatt Regency Basel', 'Basel', 'Upper Upscale', '2024-04-02', '2024-04-20', B'0'),
  (4, 'Radisson Blu Lucerne', 'Lucerne', 'Midscale', '2024-04-24', '2024-04-05', B'0'),
  (5, 'Best Western Bern', 'Bern', 'Upper Midscale', '2024-04-23', '2024-04-01', B'0'),
  (6, 'InterContinental Geneva', 'Geneva', 'Luxury', '2024-04-23', '2024-04-28', B'0'),
  (7, 'Sheraton Zurich', 'Zurich', 'Upper Upscale', '2024-04-27', '2024-04-02', B'0'),
  (8, 'Holiday Inn Basel', 'Basel', 'Upper Midscale', '2024-04-24', '2024-04-09', B'0'),
  (9, 'Courtyard Zurich', 'Zurich', 'Upscale', '2024-04-03', '2024-04-13', B'0'),
  (10, 'Comfort Inn Bern', 'Bern', 'Midscale', '2024-04-04', '2024-04-16', B'0');";

/// The quickstart's tools.yaml (its tools verbatim), on this server's database.
pub fn hotels_yaml(database: &str) -> String {
    format!(
        "{}\n---\n{}",
        server().source_yaml("my-pg-source", database, "PG_PASSWORD", ""),
        r#"kind: tool
name: search-hotels-by-name
type: postgres-sql
source: my-pg-source
description: Search for hotels based on name.
parameters:
  - name: name
    type: string
    description: The name of the hotel.
statement: SELECT * FROM hotels WHERE name ILIKE '%' || $1 || '%';
---
kind: tool
name: search-hotels-by-location
type: postgres-sql
source: my-pg-source
description: Search for hotels based on location.
parameters:
  - name: location
    type: string
    description: The location of the hotel.
statement: SELECT * FROM hotels WHERE location ILIKE '%' || $1 || '%';
---
kind: tool
name: book-hotel
type: postgres-sql
source: my-pg-source
description: >-
   Book a hotel by its ID. If the hotel is successfully booked, returns a NULL, raises an error if not.
parameters:
  - name: hotel_id
    type: string
    description: The ID of the hotel to book.
statement: UPDATE hotels SET booked = B'1' WHERE id = $1;
---
kind: tool
name: update-hotel
type: postgres-sql
source: my-pg-source
description: >-
  Update a hotel's check-in and check-out dates by its ID. Returns a message
  indicating  whether the hotel was successfully updated or not.
parameters:
  - name: hotel_id
    type: string
    description: The ID of the hotel to update.
  - name: checkin_date
    type: string
    description: The new check-in date of the hotel.
  - name: checkout_date
    type: string
    description: The new check-out date of the hotel.
statement: >-
  UPDATE hotels SET checkin_date = CAST($2 as date), checkout_date = CAST($3
  as date) WHERE id = $1;
---
kind: tool
name: cancel-hotel
type: postgres-sql
source: my-pg-source
description: Cancel a hotel by its ID.
parameters:
  - name: hotel_id
    type: string
    description: The ID of the hotel to cancel.
statement: UPDATE hotels SET booked = B'0' WHERE id = $1;
---
kind: toolset
name: my-toolset
tools:
  - search-hotels-by-name
  - search-hotels-by-location
  - book-hotel
  - update-hotel
  - cancel-hotel
"#
    )
}

/// A fresh database named `name` holding the quickstart's hotels.
pub fn hotels_database(name: &str) {
    server().database(name).batch_execute(HOTELS_SQL).unwrap();
}

#[test]
fn toolbox_hotels_quickstart_runs_on_postgres() {
    hotels_database("hotels_quickstart");
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &hotels_yaml("hotels_quickstart"));
    let rows = data(&invoke(&mut s, "search-hotels-by-location", json!({"location": "Basel"})));
    let names: Vec<&str> =
        rows.as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Hilton Basel", "Hyatt Regency Basel", "Holiday Inn Basel"]);
    assert_eq!(
        rows[0],
        json!({"id": 1, "name": "Hilton Basel", "location": "Basel", "price_tier": "Luxury",
               "checkin_date": "2024-04-22T00:00:00Z", "checkout_date": "2024-04-20T00:00:00Z",
               "booked": "0"})
    );
    // A string id bound to an integer column: the server's type decides the encoding.
    assert_eq!(
        data(&invoke(&mut s, "book-hotel", json!({"hotel_id": "3"}))),
        json!({"rows_affected": 1})
    );
    // $2 and $3 are the 2nd and 3rd declared parameters, whatever their order of use.
    let out = invoke(
        &mut s,
        "update-hotel",
        json!({"hotel_id": "3", "checkin_date": "2024-05-01", "checkout_date": "2024-05-09"}),
    );
    assert_eq!(data(&out), json!({"rows_affected": 1}));
    let rows = data(&invoke(&mut s, "search-hotels-by-name", json!({"name": "hyatt"})));
    assert_eq!(rows[0]["booked"], "1");
    assert_eq!(rows[0]["checkin_date"], "2024-05-01T00:00:00Z");
    assert_eq!(rows[0]["checkout_date"], "2024-05-09T00:00:00Z");
    // Only hotel 3 changed (binding `$N` by first appearance would change another).
    let mut db = server().client("hotels_quickstart").unwrap();
    let booked: Vec<i32> = db
        .query("SELECT id FROM hotels WHERE booked = B'1'", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(booked, [3]);
    assert_eq!(
        data(&invoke(&mut s, "cancel-hotel", json!({"hotel_id": "3"}))),
        json!({"rows_affected": 1})
    );
    // A value is data, never SQL.
    let rows = data(&invoke(&mut s, "search-hotels-by-name", json!({"name": "' OR 1=1 --"})));
    assert_eq!(rows, json!([]));
    // The id is checked against the column's type, naming the parameter.
    let e = failure(&invoke(&mut s, "book-hotel", json!({"hotel_id": "three"})));
    assert!(e.contains("hotel_id") && e.contains("int4"), "{e}");
}

#[test]
fn postgres_types_come_back_as_json() {
    let mut db = server().database("pg_types");
    db.batch_execute(
        "CREATE TYPE mood AS ENUM ('sad', 'happy');
         CREATE DOMAIN positive AS integer CHECK (VALUE > 0);
         CREATE TABLE t (
           i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision, n numeric(30,4),
           big numeric, b boolean, t text, v varchar(10), c char(3), j json, jb jsonb,
           d date, ts timestamp, tz timestamptz, tm time, iv interval, u uuid, ba bytea,
           ip inet, net cidr, arr integer[], tarr text[], m mood, p positive, nul text,
           fnan double precision
         );
         INSERT INTO t VALUES (
           -2, 40000, 9000000000, 1.5, 2.25, 12345.6789, 123456789012345678901234567890.5,
           true, 'héllo', 'v', 'ab', '{\"a\": [1, 2]}', '{\"b\": null}',
           '2024-02-29', '2024-02-29 10:11:12.5', '2024-02-29 10:11:12+02', '23:59:59',
           '1 year 2 mons 3 days 04:05:06', '123e4567-e89b-12d3-a456-426614174000', '\\xdeadbeef',
           '10.1.2.3', '10.0.0.0/8', '{1,NULL,3}', '{x,y}', 'happy', 7, NULL, 'NaN'
         );",
    )
    .unwrap();
    let yaml = format!(
        "{}\n---\nkind: tool\nname: all\ntype: postgres-sql\nsource: pg\ndescription: d\nstatement: SELECT * FROM t\n",
        server().source_yaml("pg", "pg_types", "PG_PASSWORD", "")
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml);
    let rows = data(&invoke(&mut s, "all", json!({})));
    assert_eq!(
        rows,
        json!([{
            "i2": -2, "i4": 40000, "i8": 9_000_000_000i64, "f4": 1.5, "f8": 2.25, "n": 12345.6789,
            "big": "123456789012345678901234567890.5", "b": true, "t": "héllo", "v": "v", "c": "ab ",
            "j": {"a": [1, 2]}, "jb": {"b": null}, "d": "2024-02-29T00:00:00Z",
            "ts": "2024-02-29T10:11:12.500Z", "tz": "2024-02-29T08:11:12Z", "tm": "23:59:59",
            "iv": "P1Y2M3DT4H5M6S", "u": "123e4567-e89b-12d3-a456-426614174000", "ba": "3q2+7w==",
            "ip": "10.1.2.3", "net": "10.0.0.0/8", "arr": [1, null, 3], "tarr": ["x", "y"],
            "m": "happy", "p": 7, "nul": null, "fnan": "NaN"
        }])
    );
}

#[test]
fn postgres_parameters_follow_the_inferred_types() {
    let mut db = server().database("pg_params");
    db.batch_execute(
        "CREATE TABLE ev (id serial PRIMARY KEY, at timestamptz, tags text[], meta jsonb, amount numeric, ok boolean, day date)",
    )
    .unwrap();
    let yaml = format!(
        r#"{}
---
kind: tool
name: add
type: postgres-sql
source: pg
description: d
parameters:
  - {{name: at, type: string, description: x}}
  - {{name: tags, type: array, description: x, items: {{name: t, type: string, description: x}}}}
  - {{name: meta, type: map, description: x}}
  - {{name: amount, type: float, description: x}}
  - {{name: ok, type: boolean, description: x}}
  - {{name: day, type: string, description: x}}
statement: INSERT INTO ev (at, tags, meta, amount, ok, day) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id
---
kind: tool
name: get
type: postgres-sql
source: pg
description: d
parameters:
  - {{name: tag, type: string, description: x}}
statement: SELECT at, tags, meta, amount, ok, day FROM ev WHERE $1 = ANY(tags)
---
kind: tool
name: vector
type: postgres-sql
source: pg
description: d
statement: SELECT to_tsvector('english', 'a fat cat') AS v
"#,
        server().source_yaml("pg", "pg_params", "PG_PASSWORD", "")
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml);
    let out = invoke(
        &mut s,
        "add",
        json!({"at": "2024-01-02T03:04:05Z", "tags": ["a", "b"], "meta": {"k": [1]},
               "amount": 10.25, "ok": true, "day": "2024-01-02"}),
    );
    assert_eq!(data(&out), json!([{"id": 1}]));
    let rows = data(&invoke(&mut s, "get", json!({"tag": "b"})));
    assert_eq!(
        rows,
        json!([{"at": "2024-01-02T03:04:05Z", "tags": ["a", "b"], "meta": {"k": [1]},
                "amount": 10.25, "ok": true, "day": "2024-01-02T00:00:00Z"}])
    );
    // A value the column's type cannot take names the parameter and the type.
    let e = failure(&invoke(
        &mut s,
        "add",
        json!({"at": "yesterday", "tags": [], "meta": {}, "amount": 1, "ok": false, "day": "2024-01-02"}),
    ));
    assert!(e.contains("'at'") && e.contains("timestamptz"), "{e}");
    // A column type with no JSON form says which cast works.
    let e = failure(&invoke(&mut s, "vector", json!({})));
    assert!(e.contains("column 'v'") && e.contains("tsvector") && e.contains("::text"), "{e}");
}

#[test]
fn postgres_errors_timeouts_and_scripts() {
    let mut db = server().database("pg_errors");
    db.batch_execute("CREATE TABLE k (id integer PRIMARY KEY)").unwrap();
    let yaml = format!(
        r#"{}
---
kind: tool
name: bad
type: postgres-sql
source: pg
description: d
statement: SELEC 1
---
kind: tool
name: slow
type: postgres-sql
source: pg
description: d
statement: SELECT pg_sleep(30)
---
kind: tool
name: one
type: postgres-sql
source: pg
description: d
statement: SELECT 1 AS one
---
kind: tool
name: dup
type: postgres-sql
source: pg
description: d
statement: INSERT INTO k VALUES (1)
---
kind: tool
name: run
type: postgres-execute-sql
source: pg
description: d
"#,
        server().source_yaml("pg", "pg_errors", "PG_PASSWORD", "")
    );
    let mut registry = ToolRegistry::with_builtin_handlers();
    registry.set_timeout(Duration::from_secs(2));
    let mut s = session(registry);
    load(&mut s, &yaml);
    let e = failure(&invoke(&mut s, "bad", json!({})));
    assert!(e.contains("syntax error at or near \"SELEC\""), "{e}");
    assert_eq!(data(&invoke(&mut s, "dup", json!({}))), json!({"rows_affected": 1}));
    let e = failure(&invoke(&mut s, "dup", json!({})));
    assert!(e.contains("duplicate key") && e.contains("Key (id)=(1) already exists"), "{e}");
    // The server cancels the statement at the call's deadline (statement_timeout);
    // the pooled connection stays usable.
    let out = invoke(&mut s, "slow", json!({}));
    assert_eq!(out.status, InvokeStatus::Failed, "{}", out.text);
    assert!(out.text.contains("timeout"), "{}", out.text);
    let mut admin = server().client("pg_errors").unwrap();
    let waited = std::time::Instant::now();
    loop {
        let n: i64 = admin
            .query_one("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%' AND state = 'active'", &[])
            .unwrap()
            .get(0);
        if n == 0 {
            break;
        }
        // Not a timing assertion: the server's own statement_timeout ends it.
        assert!(waited.elapsed() < Duration::from_secs(20), "the sleeping query still runs");
        std::thread::sleep(Duration::from_millis(100));
    }
    for _ in 0..6 {
        assert_eq!(data(&invoke(&mut s, "one", json!({}))), json!([{"one": 1}]));
    }
    // execute-sql: one statement typed; a script through the simple protocol (text).
    assert_eq!(
        data(&invoke(&mut s, "run", json!({"sql": "SELECT 2 AS two"}))),
        json!([{"two": 2}])
    );
    let out = invoke(
        &mut s,
        "run",
        json!({"sql": "CREATE TABLE z (a int); INSERT INTO z VALUES (5); SELECT a FROM z"}),
    );
    assert_eq!(data(&out), json!([{"a": "5"}]));
    let out = invoke(&mut s, "run", json!({"sql": "DELETE FROM z; DELETE FROM k"}));
    assert_eq!(data(&out), json!({"rows_affected": 1}));
    let out = invoke(&mut s, "run", json!({"sql": "SELECT a FROM z; SELECT 1 WHERE false"}));
    assert_eq!(data(&out), json!([]));
}

/// A cancelled call cancels its statement on the server: with a two-minute timeout,
/// only the session's cancel (what the MCP server sets on `notifications/cancelled`)
/// can end `pg_sleep(100)` early, and the server shows it stopped.
#[test]
fn a_cancelled_call_cancels_its_postgres_statement() {
    server().database("pg_cancel");
    let yaml = format!(
        "{}\n---\nkind: tool\nname: nap\ntype: postgres-sql\nsource: pg\ndescription: d\nstatement: SELECT pg_sleep(100)\n",
        server().source_yaml("pg", "pg_cancel", "PG_PASSWORD", "")
    );
    let mut registry = ToolRegistry::with_builtin_handlers();
    registry.set_timeout(Duration::from_secs(120));
    let mut s = session(registry);
    load(&mut s, &yaml);
    let mut admin = server().client("pg_cancel").unwrap();
    let sleeping = |admin: &mut postgres::Client| -> i64 {
        admin
            .query_one("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(100)%' AND state = 'active'", &[])
            .unwrap()
            .get(0)
    };
    let flag = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        // Cancel once the statement runs on the server.
        let mut admin = server().client("pg_cancel").unwrap();
        let waited = std::time::Instant::now();
        while sleeping(&mut admin) == 0 && waited.elapsed() < Duration::from_secs(30) {
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
    let waited = std::time::Instant::now();
    while sleeping(&mut admin) != 0 {
        // Not a timing assertion: without the cancel it would run for 100 s.
        assert!(waited.elapsed() < Duration::from_secs(30), "the statement still runs");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn postgres_bad_credentials_and_sources_are_clear_and_leak_nothing() {
    server().database("pg_auth");
    let pg = server();
    let yaml = format!(
        "kind: source\nname: pg\ntype: postgres\nhost: 127.0.0.1\nport: {}\nuser: hotel_admin\npassword: ${{PG_WRONG}}\ndatabase: pg_auth\n---\nkind: tool\nname: one\ntype: postgres-sql\nsource: pg\ndescription: d\nstatement: SELECT 1\n",
        pg.port
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load_with_secret(&mut s, &yaml, "PG_WRONG", "wrong-Secret-123");
    let e = failure(&invoke(&mut s, "one", json!({})));
    assert!(e.contains("source 'pg'") && e.contains("password authentication failed"), "{e}");
    assert!(!e.contains("wrong-Secret-123"), "{e}");
    // Nothing listens: the call fails naming the source, within its timeout.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let yaml = format!(
        "kind: source\nname: gone\ntype: postgres\nhost: 127.0.0.1\nport: {closed}\nuser: u\npassword: p\ndatabase: d\n---\nkind: tool\nname: one\ntype: postgres-sql\nsource: gone\ndescription: d\nstatement: SELECT 1\n---\nkind: source\nname: typo\ntype: postgres\nhost: 127.0.0.1\nport: {closed}\nuser: u\npassword: p\ndatabase: d\nqueryParams:\n  sslmod: disable\n---\nkind: tool\nname: two\ntype: postgres-sql\nsource: typo\ndescription: d\nstatement: SELECT 1\n"
    );
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml);
    let e = failure(&invoke(&mut s, "one", json!({})));
    assert!(e.contains("cannot connect to source 'gone'"), "{e}");
    // A misspelt parameter is refused, never ignored (it might have been sslmode).
    let e = failure(&invoke(&mut s, "two", json!({})));
    assert!(e.contains("queryParams.sslmod is not a connection parameter"), "{e}");
}

#[test]
fn postgres_tls_follows_sslmode() {
    server().database("pg_tls");
    let front = TlsFront::start(server().port, &["127.0.0.1"]);
    let other = TlsFront::start(server().port, &["db.example.com"]);
    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &front.ca_pem).unwrap();
    let other_ca = dir.path().join("other-ca.pem");
    std::fs::write(&other_ca, &other.ca_pem).unwrap();
    let source = |name: &str, port: u16, params: &str| {
        format!(
            "kind: source\nname: {name}\ntype: postgres\nhost: 127.0.0.1\nport: {port}\nuser: hotel_admin\npassword: ${{PG_PASSWORD}}\ndatabase: pg_tls\nqueryParams:\n{params}\n---\nkind: tool\nname: q-{name}\ntype: postgres-sql\nsource: {name}\ndescription: d\nstatement: SELECT 1 AS one\n---\n"
        )
    };
    let yaml = [
        source(
            "full",
            front.port,
            &format!("  sslmode: verify-full\n  sslrootcert: {}", ca.display()),
        ),
        source(
            "wrongca",
            front.port,
            &format!("  sslmode: verify-full\n  sslrootcert: {}", other_ca.display()),
        ),
        source("noroot", front.port, "  sslmode: verify-full"),
        source(
            "name",
            other.port,
            &format!("  sslmode: verify-full\n  sslrootcert: {}", other_ca.display()),
        ),
        source(
            "ca",
            other.port,
            &format!("  sslmode: verify-ca\n  sslrootcert: {}", other_ca.display()),
        ),
        source("require", front.port, "  sslmode: require"),
        source("plain", front.port, "  sslmode: disable"),
    ]
    .concat();
    let yaml = yaml.trim_end_matches("---\n").to_string();
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml);
    let ok = json!([{"one": 1}]);
    assert_eq!(data(&invoke(&mut s, "q-full", json!({}))), ok);
    assert_eq!(data(&invoke(&mut s, "q-ca", json!({}))), ok, "verify-ca ignores the name");
    assert_eq!(
        data(&invoke(&mut s, "q-require", json!({}))),
        ok,
        "require without a root does not verify"
    );
    let e = failure(&invoke(&mut s, "q-wrongca", json!({})));
    assert!(e.contains("cannot connect") && e.to_lowercase().contains("certificate"), "{e}");
    let e = failure(&invoke(&mut s, "q-name", json!({})));
    assert!(e.to_lowercase().contains("certificate") && e.contains("name"), "{e}");
    let e = failure(&invoke(&mut s, "q-noroot", json!({})));
    assert!(e.contains("needs queryParams.sslrootcert"), "{e}");
    // The front requires TLS, as a hostssl-only server does.
    let e = failure(&invoke(&mut s, "q-plain", json!({})));
    assert!(e.contains("cannot connect to source 'plain'"), "{e}");
}

/// What Toolbox's prebuilt postgres tools list, beside a `hotels` table: the
/// statistics extension, a view, an index, a sequence, a function with its trigger, a
/// procedure, and fresh statistics.
pub const PREBUILT_CATALOG_SQL: &str = "CREATE EXTENSION pg_stat_statements;
     CREATE VIEW basel AS SELECT * FROM hotels WHERE location = 'Basel';
     CREATE INDEX hotels_location ON hotels (location);
     CREATE SEQUENCE ticket_seq;
     CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
     CREATE TRIGGER hotels_touch BEFORE UPDATE ON hotels FOR EACH ROW EXECUTE FUNCTION touch();
     CREATE PROCEDURE noop() LANGUAGE sql AS $$ SELECT 1 $$;
     ANALYZE hotels;";

/// Toolbox's own prebuilt PostgreSQL configuration, verbatim (29 tools, among them
/// 21 `postgres-list-*`-style types whose SQL comes from Toolbox's sources), loads
/// with Toolbox's environment variables and every tool runs on a real server.
#[test]
fn toolbox_prebuilt_postgres_config_runs_every_tool() {
    hotels_database("pg_prebuilt");
    let mut db = server().client("pg_prebuilt").unwrap();
    db.batch_execute(PREBUILT_CATALOG_SQL).unwrap();
    let yaml = std::fs::read_to_string(
        crate::common::repo_root().join("guest/tests-data/toolbox-prebuilt-postgres.yaml"),
    )
    .unwrap();
    let port = server().port.to_string();
    let env = move |k: &str| -> Option<String> {
        match k {
            "POSTGRES_HOST" => Some("127.0.0.1".into()),
            "POSTGRES_PORT" => Some(port.clone()),
            "POSTGRES_DATABASE" => Some("pg_prebuilt".into()),
            "POSTGRES_USER" => Some(crate::support::pg_server::USER.into()),
            "POSTGRES_PASSWORD" => Some(PASSWORD.into()),
            _ => None,
        }
    };
    let mut s = session(ToolRegistry::with_builtin_handlers());
    let files = vec![("postgres.yaml".to_string(), yaml)];
    s.load_config_with_env(&files, &env).unwrap().unwrap();
    let tools = s.list_tools(None).unwrap();
    let names: Vec<String> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .filter(|n| !n.starts_with("filestore_"))
        .collect();
    assert_eq!(names.len(), 29, "{names:?}");
    let args = |tool: &str| match tool {
        "execute_sql" => json!({"sql": "SELECT count(*) AS n FROM hotels"}),
        "get_query_plan" => json!({"query": "SELECT * FROM hotels WHERE id = 1"}),
        "get_column_cardinality" => json!({"table_name": "hotels"}),
        _ => json!({}),
    };
    let mut failed = Vec::new();
    for name in &names {
        let out = invoke(&mut s, name, args(name));
        if out.status != InvokeStatus::Completed {
            failed.push(format!("{name}: {}", out.text));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // Spot checks of what the catalog tools return.
    assert_eq!(data(&invoke(&mut s, "execute_sql", args("execute_sql"))), json!([{"n": 10}]));
    let views = data(&invoke(&mut s, "list_views", json!({})));
    assert_eq!(views[0]["view_name"], "basel", "{views}");
    let tables = data(&invoke(&mut s, "list_tables", json!({"table_names": "hotels"})));
    assert_eq!(tables.as_array().unwrap().len(), 1, "{tables}");
    let card = data(&invoke(
        &mut s,
        "get_column_cardinality",
        json!({"table_name": "hotels", "column_name": "location"}),
    ));
    assert_eq!(card, json!([{"column_name": "location", "estimated_cardinality": 5.0}]));
    let plan = data(&invoke(&mut s, "get_query_plan", args("get_query_plan")));
    assert!(plan[0]["QUERY PLAN"][0]["Plan"]["Node Type"].is_string(), "{plan}");
}

/// A model's SQL cannot leave anything behind for the next call (the next call may
/// be another user's): an open transaction, a role, a disabled timeout; and a statement
/// that turned its timeout off is still cancelled at the call's deadline.
#[test]
fn execute_sql_leaves_nothing_for_the_next_call() {
    let mut db = server().database("pg_hygiene");
    db.batch_execute("CREATE TABLE t (id int PRIMARY KEY); INSERT INTO t VALUES (1); CREATE ROLE nobody_here NOLOGIN")
        .unwrap();
    let yaml = format!(
        "{}\n---\nkind: tool\nname: run\ntype: postgres-execute-sql\nsource: pg\ndescription: d\n",
        server().source_yaml("pg", "pg_hygiene", "PG_PASSWORD", "")
    );
    let mut registry = ToolRegistry::with_builtin_handlers();
    registry.set_timeout(Duration::from_secs(2));
    let mut s = session(registry);
    load(&mut s, &yaml);
    // Leaves a transaction open holding a row lock, and a role set.
    let out = invoke(
        &mut s,
        "run",
        json!({"sql": "BEGIN; SELECT * FROM t FOR UPDATE; SET ROLE nobody_here"}),
    );
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    let who = |s: &mut _| {
        data(&invoke(s, "run", json!({"sql": "SELECT current_user AS u, pg_backend_pid() AS pid"})))
    };
    let first = who(&mut s);
    assert_eq!(
        first[0]["u"],
        json!(crate::support::pg_server::USER),
        "the role did not carry over: {first}"
    );
    // Each call of a model's SQL gets a connection of its own.
    let second = who(&mut s);
    assert_ne!(first[0]["pid"], second[0]["pid"], "a connection was reused: {first} {second}");
    // The lock is gone: another client can update the row at once.
    let mut other = server().client("pg_hygiene").unwrap();
    other.batch_execute("SET lock_timeout = '2s'; UPDATE t SET id = 2 WHERE id = 1").unwrap();
    // Turning the timeout off does not let a statement outlive the call.
    let out =
        invoke(&mut s, "run", json!({"sql": "SET statement_timeout = 0; SELECT pg_sleep(30)"}));
    assert_eq!(out.status, InvokeStatus::Failed, "{}", out.text);
    let waited = std::time::Instant::now();
    loop {
        let n: i64 = other
            .query_one("SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(30)%' AND state = 'active' AND pid <> pg_backend_pid()", &[])
            .unwrap()
            .get(0);
        if n == 0 {
            break;
        }
        // Not a timing assertion: a bound so a regression fails instead of hanging.
        assert!(waited.elapsed() < Duration::from_secs(20), "the statement still runs");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Template values quoted by `escape` stay one literal or identifier whether
/// `standard_conforming_strings` is on or off (off, `'\'` is an escaped quote):
/// `single-quotes` writes `E'…'` with every backslash doubled, which reads the same
/// in both; `double-quotes` doubles the quote and refuses an empty identifier. Every
/// hostile value comes back exactly or is refused clearly, never another row or a
/// syntax error.
#[test]
fn postgres_template_escapes_hold_whatever_standard_conforming_strings() {
    use crate::sql_tools::{EscapeCase, Quoted, check_escapes, escape_tools_yaml, same};
    fn literal_refuses(v: &str) -> Option<&'static str> {
        v.contains('\0').then_some("NUL")
    }
    fn identifier_refuses(v: &str) -> Option<&'static str> {
        if v.contains('\0') { Some("NUL") } else { v.is_empty().then_some("is empty") }
    }
    let cases = [
        EscapeCase {
            escape: "single-quotes",
            quoted: Quoted::Literal,
            refuses: literal_refuses,
            column: same,
        },
        EscapeCase {
            escape: "double-quotes",
            quoted: Quoted::Identifier,
            refuses: identifier_refuses,
            column: same,
        },
    ];
    for (database, conforming) in [("pg_escapes", "on"), ("pg_escapes_off", "off")] {
        let mut db = server().database(database);
        db.batch_execute(&format!(
            "ALTER DATABASE \"{database}\" SET standard_conforming_strings = {conforming};
             CREATE TABLE people (name text); INSERT INTO people VALUES ('ann'), ('bob');
             CREATE TABLE secrets (secret text); INSERT INTO secrets VALUES ('s3cret')"
        ))
        .unwrap();
        let mut yaml = server().source_yaml("pg", database, "PG_PASSWORD", "");
        yaml.push_str(&escape_tools_yaml("postgres-sql", "pg", &cases));
        yaml.push_str("---\nkind: tool\nname: setting\ntype: postgres-sql\nsource: pg\ndescription: d\nstatement: SELECT current_setting('standard_conforming_strings') AS scs, current_setting('client_encoding') AS enc\n");
        let mut s = session(ToolRegistry::with_builtin_handlers());
        load(&mut s, &yaml);
        assert_eq!(
            data(&invoke(&mut s, "setting", json!({}))),
            json!([{"scs": conforming, "enc": "UTF8"}])
        );
        check_escapes(&mut s, &format!("standard_conforming_strings {conforming}"), &cases);
    }
}
