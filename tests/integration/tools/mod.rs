//! Configured tools through the real component (docs/architecture.md#configured-tools,
//! docs/architecture.md#tool-results): `tools.yaml` loaded
//! in the sandbox, `sqlite-sql` against a real database file, `http` against a
//! server on 127.0.0.1, results stored in `/tool_calls` and searched, offloading and
//! paging, host timeouts, panicking and failing handlers, unknown tools, approval;
//! and the `check` / `migrate` / `call --config` commands.

use filestore::handlers::ShippedHandlers as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use filestore::tools::{
    InvokeContext, InvokeStatus, ToolError, ToolRegistry, ToolRequest, results_mount,
};
use filestore::{MountSpec, Session, SessionOptions};
use serde_json::{Value, json};

use crate::common::{engine, ok};

fn session_with(registry: ToolRegistry) -> Session {
    let options = SessionOptions { tools: Arc::new(registry), ..Default::default() };
    engine()
        .session_with(
            vec![results_mount(), MountSpec::new("/scratch", crate::common::mem(&[]))],
            options,
        )
        .expect("session")
}

fn load(s: &mut Session, yaml: &str) {
    let files = vec![("tools.yaml".to_string(), yaml.to_string())];
    match s.load_config_with_env(&files, &|k| (k == "API_KEY").then(|| "k-123".to_string())) {
        Ok(Ok(_)) => {}
        Ok(Err(issues)) => panic!("config: {issues:?}"),
        Err(e) => panic!("load: {e}"),
    }
}

fn invoke(s: &mut Session, tool: &str, args: Value) -> filestore::tools::InvokeOutcome {
    s.invoke(tool, &args, &InvokeContext::default()).expect("invoke")
}

fn sqlite_yaml(db: &Path) -> String {
    format!(
        r#"kind: source
name: app-db
type: sqlite
database: {db}
---
kind: tool
name: setup
type: sqlite-sql
source: app-db
description: Create the table.
statement: CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)
---
kind: tool
name: add_user
type: sqlite-sql
source: app-db
description: Add a user.
statement: INSERT INTO users (name) VALUES (?)
parameters:
  - name: name
    type: string
    description: The name.
---
kind: tool
name: find_user
type: sqlite-sql
source: app-db
description: Find users by exact name.
statement: SELECT id, name FROM users WHERE name = ? ORDER BY id
parameters:
  - name: name
    type: string
    description: The name.
---
kind: tool
name: from_table
type: sqlite-sql
source: app-db
description: Count rows of a table.
statement: SELECT count(*) AS n FROM {{{{.table}}}}
templateParameters:
  - name: table
    type: string
    escape: double-quotes
    description: The table.
---
kind: tool
name: delete_all
type: sqlite-sql
source: app-db
description: Delete every user.
statement: DELETE FROM users
requiresApproval: true
---
kind: tool
name: numbers
type: sqlite-sql
source: app-db
description: A large result.
statement: WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5000) SELECT i, printf('%090d', i) AS pad FROM c
"#,
        db = db.display()
    )
}

/// An empty SQLite database in `dir` (an empty file is one): a query on a missing
/// file is refused, not run on a new database.
fn empty_database(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("empty.db");
    std::fs::write(&db, "").unwrap();
    db
}

fn sqlite_session(dir: &Path) -> Session {
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    load(&mut s, &sqlite_yaml(&dir.join("app.db")));
    assert_eq!(invoke(&mut s, "setup", json!({})).status, InvokeStatus::Completed);
    s
}

/// `$N` binds the N-th declared parameter. SQLite numbers `$2` by its first
/// appearance, so binding in declared order would update the wrong row.
#[test]
fn sqlite_dollar_n_binds_by_number_and_names_by_name() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("hotels.db");
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    load(
        &mut s,
        &format!(
            r#"kind: source
name: db
type: sqlite
database: {db}
---
kind: tool
name: setup
type: sqlite-sql
source: db
description: d
statement: CREATE TABLE hotels (id INTEGER PRIMARY KEY, name TEXT, booked INTEGER)
---
kind: tool
name: book
type: sqlite-sql
source: db
description: Book a hotel.
statement: UPDATE hotels SET booked = $2 WHERE id = $1
parameters:
  - {{name: hotel_id, type: integer, description: id}}
  - {{name: booked, type: integer, description: n}}
---
kind: tool
name: rename
type: sqlite-sql
source: db
description: Rename a hotel.
statement: UPDATE hotels SET name = :name WHERE id = :id
parameters:
  - {{name: id, type: integer, description: id}}
  - {{name: name, type: string, description: n}}
---
kind: tool
name: list
type: sqlite-sql
source: db
description: Hotel ids, optionally only booked ones (a Go template action).
statement: SELECT id FROM hotels {{{{if .booked_only}}}}WHERE booked > 0 {{{{end}}}}ORDER BY id
templateParameters:
  - {{name: booked_only, type: boolean, description: b, default: false}}
---
kind: tool
name: as_json
type: sqlite-sql
source: db
description: JSON text.
statement: SELECT json_object('id', 1, 'tags', json_array('x')) AS o, '[1, 2]' AS a, '123' AS n, '{{not json' AS t
---
kind: tool
name: all
type: sqlite-sql
source: db
description: Every hotel.
statement: SELECT id, name, booked FROM hotels ORDER BY id
"#,
            db = db.display()
        ),
    );
    assert_eq!(invoke(&mut s, "setup", json!({})).status, InvokeStatus::Completed);
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("INSERT INTO hotels VALUES (1, 'A', 0), (2, 'B', 0), (3, 'C', 0)").unwrap();
    let out = invoke(&mut s, "book", json!({"hotel_id": 1, "booked": 3}));
    assert_eq!(out.envelope["data"]["rows_affected"], 1, "{}", out.text);
    let out = invoke(&mut s, "rename", json!({"id": 2, "name": "Bee"}));
    assert_eq!(out.envelope["data"]["rows_affected"], 1, "{}", out.text);
    let out = invoke(&mut s, "list", json!({"booked_only": true}));
    assert_eq!(out.envelope["data"], json!([{"id": 1}]), "{}", out.text);
    let out = invoke(&mut s, "list", json!({}));
    assert_eq!(out.envelope["data"], json!([{"id": 1}, {"id": 2}, {"id": 3}]), "{}", out.text);
    let out = invoke(&mut s, "as_json", json!({}));
    // Text holding a JSON object or array comes back decoded (Toolbox's shape);
    // other text stays text, even when it would parse as a number.
    assert_eq!(
        out.envelope["data"],
        json!([{"o": {"id": 1, "tags": ["x"]}, "a": [1, 2], "n": "123", "t": "{not json"}]),
        "{}",
        out.text
    );
    let out = invoke(&mut s, "all", json!({}));
    assert_eq!(
        out.envelope["data"],
        json!([
            {"id": 1, "name": "A", "booked": 3},
            {"id": 2, "name": "Bee", "booked": 0},
            {"id": 3, "name": "C", "booked": 0}
        ]),
        "{}",
        out.text
    );
}

#[test]
fn sqlite_binds_positionally_and_escapes_templates() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = sqlite_session(tmp.path());
    for name in ["Ada", "x' OR '1'='1", "Bob'); DROP TABLE users;--"] {
        let out = invoke(&mut s, "add_user", json!({"name": name}));
        assert_eq!(out.envelope["data"]["rows_affected"], 1, "{}", out.text);
    }
    // An injection attempt through a normal parameter is bound as data: it matches
    // only the row holding exactly that text, and the table survives.
    let out = invoke(&mut s, "find_user", json!({"name": "x' OR '1'='1"}));
    assert_eq!(out.envelope["data"], json!([{"id": 2, "name": "x' OR '1'='1"}]));
    let out = invoke(&mut s, "from_table", json!({"table": "users"}));
    assert_eq!(out.envelope["data"], json!([{"n": 3}]), "{}", out.text);
    // A template parameter is escaped (double quotes doubled): the hostile value stays
    // one identifier, so SQLite looks for a table of that odd name.
    let out = invoke(&mut s, "from_table", json!({"table": "users\" WHERE 0 UNION SELECT 42 --"}));
    assert_eq!(out.status, InvokeStatus::Failed);
    assert_eq!(out.envelope["error"]["code"], "backend");
    assert!(out.text.contains("no such table"), "{}", out.text);
    // Validation happens in the component before anything reaches the host.
    let out = invoke(&mut s, "find_user", json!({"name": 5}));
    assert_eq!(out.envelope["error"]["code"], "invalid-argument");
    assert!(out.text.contains("'name'"), "{}", out.text);
}

#[test]
fn results_are_stored_read_only_and_searchable() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = sqlite_session(tmp.path());
    invoke(&mut s, "add_user", json!({"name": "Grace Hopper"}));
    let ctx = InvokeContext { tool_call_id: Some("toolu_01/../x".into()), ..Default::default() };
    let out = s.invoke("find_user", &json!({"name": "Grace Hopper"}), &ctx).unwrap();
    let path = out.result_path.clone().unwrap();
    assert!(path.starts_with("/tool_calls/find_user/toolu_01____x-"), "{path}");
    assert!(path.ends_with("/result-1.json"));
    let found = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": "Grace", "path": "/tool_calls", "output_mode": "content"}),
    );
    assert_eq!(found["lines"][0]["path"], path.as_str());
    let entry = s.stat(&path).unwrap();
    assert!(entry.read_only);
    assert_eq!(entry.entry_type, "tool_result");
    let attrs = entry.attributes.unwrap();
    assert_eq!(attrs["tool_id"], "find_user");
    assert_eq!(attrs["tool_call_id"], "toolu_01/../x");
    assert_eq!(attrs["result_type"], "json");
    let (kind, _) =
        crate::common::err(&mut s, "filestore_write", json!({"path": path, "content": "x"}));
    assert_eq!(kind, "read-only");
    // Generated call ids are distinct.
    let a = invoke(&mut s, "find_user", json!({"name": "a"})).result_path.unwrap();
    let b = invoke(&mut s, "find_user", json!({"name": "a"})).result_path.unwrap();
    assert_ne!(a, b);
}

#[test]
fn large_results_are_offloaded_and_paged_back() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = sqlite_session(tmp.path());
    let out = invoke(&mut s, "numbers", json!({}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    assert!(out.offloaded);
    let path = out.result_path.clone().unwrap();
    assert!(out.text.contains(&path) && out.text.len() < 8_000, "{}", out.text.len());
    assert!(out.envelope.get("data").is_none());
    let size = s.stat(&path).unwrap().size;
    assert!(size > 500_000, "{size}");
    // Page through with filestore_read and rebuild the JSON.
    let mut offset = 1u64;
    let mut text = String::new();
    let mut pages = 0;
    loop {
        let page = ok(&mut s, "filestore_read", json!({"path": path, "offset": offset}));
        for line in page["text"].as_str().unwrap().lines() {
            text.push_str(line.split_once('\t').unwrap().1);
            text.push('\n');
        }
        pages += 1;
        match page["next_offset"].as_u64() {
            Some(n) => offset = n,
            None => break,
        }
    }
    assert!(pages > 1);
    let rows: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 5000);
    assert_eq!(rows[4999]["i"], 5000);
    // The filestore's own results are never offloaded, however large.
    let read = s
        .invoke("filestore_read", &json!({"path": path, "raw": true}), &InvokeContext::default())
        .unwrap();
    assert!(!read.offloaded && read.result_path.is_none());
}

#[test]
fn approval_runs_on_approve_and_stores_nothing_on_reject() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = sqlite_session(tmp.path());
    invoke(&mut s, "add_user", json!({"name": "Ada"}));
    let pending = invoke(&mut s, "delete_all", json!({}));
    assert_eq!(pending.status, InvokeStatus::Pending);
    assert_eq!(pending.envelope["pending"], true);
    let id = pending.approval_id.unwrap();
    s.reject(&id).unwrap();
    assert!(s.stat("/tool_calls/delete_all").is_err(), "a rejected call stores nothing");
    assert_eq!(invoke(&mut s, "find_user", json!({"name": "Ada"})).envelope["data"][0]["id"], 1);
    assert_eq!(s.approve(&id).unwrap_err().kind_name(), "not-found");
    let id = invoke(&mut s, "delete_all", json!({})).approval_id.unwrap();
    let done = s.approve(&id).unwrap();
    assert_eq!(done.status, InvokeStatus::Completed);
    assert_eq!(done.envelope["data"]["rows_affected"], 1);
    assert!(done.result_path.is_some());
    assert_eq!(invoke(&mut s, "find_user", json!({"name": "Ada"})).envelope["data"], json!([]));
}

#[test]
fn configured_tools_join_the_session_tool_list() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    let before = s.tools_version().unwrap();
    let names = |s: &mut Session| -> Vec<String> {
        s.tool_specs().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
    };
    assert!(!names(&mut s).contains(&"find_user".to_string()));
    load(&mut s, &sqlite_yaml(&tmp.path().join("app.db")));
    assert!(s.tools_version().unwrap() > before);
    let listed = names(&mut s);
    assert!(
        listed.contains(&"filestore_read".to_string()) && listed.contains(&"find_user".to_string())
    );
    let spec = s.tool_specs().unwrap().into_iter().find(|t| t["name"] == "delete_all").unwrap();
    assert_eq!(spec["annotations"]["requiresApproval"], true);
    // Session::call reaches configured tools too (what the MCP server uses).
    ok(&mut s, "setup", json!({}));
    let out = ok(&mut s, "add_user", json!({"name": "Ada"}));
    assert_eq!(out["success"], true);
    let (kind, msg) = crate::common::err(&mut s, "nope", json!({}));
    assert_eq!(kind, "not-found");
    assert!(msg.contains("unknown tool 'nope'"), "{msg}");
}

/// A one-connection-at-a-time HTTP server on 127.0.0.1 recording each request head.
pub(crate) fn http_server(
    status: &'static str,
    body: &'static str,
) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                head.push_str(&line);
            }
            let mut body_in = vec![0u8; len];
            let _ = reader.read_exact(&mut body_in);
            head.push_str(&String::from_utf8_lossy(&body_in));
            log.lock().unwrap().push(head);
            let resp = format!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(resp.as_bytes());
        }
    });
    (port, seen)
}

fn http_yaml(port: u16, allowed: &str) -> String {
    format!(
        r#"kind: source
name: api
type: http
baseUrl: http://127.0.0.1:{port}
headers:
  Authorization: Bearer ${{API_KEY}}
{allowed}---
kind: tool
name: get_item
type: http
source: api
method: POST
path: /items/{{{{.id}}}}
description: Fetch an item.
pathParams:
  - name: id
    type: string
    description: The item.
queryParams:
  - name: q
    type: string
    description: The query.
bodyParams:
  - name: note
    type: string
    description: A note.
"#
    )
}

#[test]
fn http_tool_reaches_a_loopback_server_within_its_allow_list() {
    let (port, seen) = http_server("200 OK", r#"{"ok": true, "items": [1, 2]}"#);
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    load(&mut s, &http_yaml(port, ""));
    let out = invoke(&mut s, "get_item", json!({"id": "a/../b c", "q": "x&y=1", "note": "hi"}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    assert_eq!(out.envelope["data"]["items"], json!([1, 2]));
    let head = seen.lock().unwrap()[0].clone();
    assert!(head.starts_with("POST /items/a%2F%2E%2E%2Fb%20c?q=x%26y%3D1 HTTP/1.1"), "{head}");
    assert!(
        head.contains("authorization: Bearer k-123")
            || head.contains("Authorization: Bearer k-123"),
        "{head}"
    );
    assert!(head.ends_with(r#"{"note":"hi"}"#), "{head}");
    // The resolved secret never entered the component: not in the stored result, the
    // tool list or the envelope.
    let specs = serde_json::to_string(&s.tool_specs().unwrap()).unwrap();
    assert!(!specs.contains("k-123") && !out.envelope.to_string().contains("k-123"));

    // A source whose allow-list excludes the base URL's host refuses the call.
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    load(&mut s, &http_yaml(port, "allowedHosts: [api.example.com]\n"));
    let out = invoke(&mut s, "get_item", json!({"id": "1", "q": "", "note": ""}));
    assert_eq!(out.envelope["error"]["code"], "unsupported");
    assert!(out.text.contains("allow-list"), "{}", out.text);
    assert_eq!(seen.lock().unwrap().len(), 1, "nothing was sent");
}

/// Toolbox's own prebuilt SQLite configuration (verbatim, v1 format with a Go
/// `{{if}}` template and an execute-sql tool) loads and runs against a real database.
#[test]
fn toolbox_prebuilt_sqlite_config_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("shop.db");
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n\
         CREATE TABLE orders (id INTEGER PRIMARY KEY, item INTEGER REFERENCES items(id));\n\
         INSERT INTO items VALUES (1, 'pen'), (2, 'ink');",
    )
    .unwrap();
    let mut s = prebuilt_sqlite_session(&db);
    let names: Vec<String> =
        s.tool_specs().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect();
    assert!(
        names.contains(&"execute_sql".to_string()) && names.contains(&"list_tables".to_string())
    );

    let out = invoke(&mut s, "list_tables", json!({"output_format": "simple"}));
    assert_eq!(
        out.envelope["data"],
        json!([{"object_details": {"name": "items"}}, {"object_details": {"name": "orders"}}]),
        "{}",
        out.text
    );
    let out = invoke(&mut s, "list_tables", json!({"table_names": "orders"}));
    let rows = out.envelope["data"].as_array().unwrap_or_else(|| panic!("{}", out.text));
    assert_eq!(rows.len(), 1, "{}", out.text);
    let details = &rows[0]["object_details"];
    assert_eq!(details["object_name"], "orders");
    assert_eq!(details["constraints"][1]["foreign_key_referenced_table"], "items", "{details}");

    let out = invoke(&mut s, "execute_sql", json!({"sql": "SELECT name FROM items ORDER BY id"}));
    assert_eq!(out.envelope["data"], json!([{"name": "pen"}, {"name": "ink"}]), "{}", out.text);
    let out = invoke(&mut s, "execute_sql", json!({}));
    assert_eq!(out.envelope["error"]["code"], "invalid-argument", "{}", out.text);
}

/// A session with Toolbox's prebuilt SQLite configuration over the database `db`.
fn prebuilt_sqlite_session(db: &Path) -> Session {
    let yaml = std::fs::read_to_string(data("toolbox-prebuilt-sqlite.yaml")).unwrap();
    let files = vec![("sqlite.yaml".to_string(), yaml)];
    let db_path = db.display().to_string();
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    s.load_config_with_env(&files, &|k| (k == "SQLITE_DATABASE").then(|| db_path.clone()))
        .unwrap()
        .unwrap();
    s
}

const CUSTOM_YAML: &str = r#"kind: source
name: svc
type: custom
---
kind: tool
name: sleepy
type: sleeps
source: svc
description: Never answers.
---
kind: tool
name: crashy
type: panics
source: svc
description: Panics.
---
kind: tool
name: refusing
type: refuses
source: svc
description: Fails.
---
kind: tool
name: pg
type: mssql-sql
source: svc
description: No handler here.
statement: SELECT 1
"#;

#[test]
fn host_timeouts_panics_and_failures_are_typed_and_survivable() {
    let mut r = ToolRegistry::new();
    r.register(
        "sleeps",
        Arc::new(|_: &ToolRequest| -> Result<Value, ToolError> {
            loop {
                std::thread::park();
            }
        }),
    );
    r.register(
        "panics",
        Arc::new(|_: &ToolRequest| -> Result<Value, ToolError> { panic!("handler bug") }),
    );
    r.register(
        "refuses",
        Arc::new(|_: &ToolRequest| -> Result<Value, ToolError> {
            Err(ToolError::unauthorized("token expired"))
        }),
    );
    // The default (30 s) timeout for the handlers that end on their own, so a slow
    // panic unwind (backtrace capture) never races the timeout; a short one for the
    // handler that never returns.
    let mut quick = r.clone();
    quick.set_timeout(Duration::from_millis(300));
    let mut q = session_with(quick);
    load(&mut q, CUSTOM_YAML);
    let out = invoke(&mut q, "sleepy", json!({}));
    assert_eq!(out.envelope["error"]["code"], "limit-exceeded");
    assert!(out.text.contains("'sleepy'") && out.text.contains("300ms"), "{}", out.text);
    assert!(q.stat("/tool_calls/sleepy").is_err());
    assert!(!q.is_poisoned());
    ok(&mut q, "filestore_ls", json!({"path": "/"}));
    let mut s = session_with(r);
    load(&mut s, CUSTOM_YAML);
    let out = invoke(&mut s, "crashy", json!({}));
    assert_eq!(out.envelope["error"]["code"], "backend");
    assert!(out.text.contains("panicked") && out.text.contains("handler bug"), "{}", out.text);
    let out = invoke(&mut s, "refusing", json!({}));
    assert_eq!(out.envelope["error"]["code"], "unauthorized");
    assert!(out.text.contains("token expired"), "{}", out.text);
    let out = invoke(&mut s, "pg", json!({}));
    assert_eq!(out.envelope["error"]["code"], "unsupported");
    assert!(out.text.contains("'mssql-sql'"), "{}", out.text);
    let out = invoke(&mut s, "no_such_tool", json!({}));
    assert_eq!(out.envelope["error"]["code"], "not-found");
    // Failed calls store nothing, and the session goes on.
    assert!(s.stat("/tool_calls/crashy").is_err());
    assert!(!s.is_poisoned());
    ok(&mut s, "filestore_ls", json!({"path": "/"}));
}

/// A cancelled call stops its tool: the session's cancel flag (what the MCP server
/// sets on `notifications/cancelled`) reaches the tool call, SQLite interrupts the
/// runaway statement, and the call ends long before the tool's timeout (60 s here)
/// instead of holding the session until then. The handler saw the cancel (its
/// statement was interrupted, not abandoned): the database is free again for the
/// next session at once.
#[test]
fn a_cancelled_call_stops_its_sqlite_statement() {
    let dir = tempfile::tempdir().unwrap();
    let db = empty_database(dir.path());
    let mut registry = ToolRegistry::with_builtin_handlers();
    registry.set_timeout(Duration::from_secs(60));
    let mut s = session_with(registry.clone());
    let yaml = format!(
        "{}---\nkind: tool\nname: spin\ntype: sqlite-sql\nsource: app-db\ndescription: Never ends.\nstatement: WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(*) FROM c\n",
        sqlite_yaml(&db)
    );
    load(&mut s, &yaml);
    let flag = s.cancel_handle();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let started = std::time::Instant::now();
    let out = s.invoke("spin", &json!({}), &InvokeContext::default());
    canceller.join().unwrap();
    assert!(started.elapsed() < Duration::from_secs(30), "the cancel did not reach the tool");
    match out {
        // Interrupted after the tool returned (the flag stays set for the call)...
        Err(e) => assert_eq!(e.kind_name(), "cancelled", "{e}"),
        // ...or the guest returned the tool's error before the next epoch tick.
        Ok(out) => assert!(out.text.contains("cancelled"), "{}", out.text),
    }
    // The statement was stopped, not left running on an abandoned worker until its
    // 60 s deadline: another session writes to the same database (a statement still
    // reading would hold its lock past rusqlite's 5 s busy wait and fail this).
    let mut t = session_with(registry);
    load(&mut t, &yaml);
    assert_eq!(invoke(&mut t, "setup", json!({})).status, InvokeStatus::Completed);
}

/// Handlers see the session's id: the embedder's when given, otherwise a generated
/// one distinct per session (even from cloned options), set by the host so the
/// component cannot claim another session's.
#[test]
fn handlers_receive_the_host_session_id() {
    let mut r = ToolRegistry::new();
    r.register(
        "echo_session",
        Arc::new(|req: &ToolRequest| -> Result<Value, ToolError> {
            Ok(json!({"session": req.session_id, "call": req.tool_call_id}))
        }),
    );
    let yaml = "kind: source\nname: svc\ntype: custom\n---\nkind: tool\nname: who\ntype: echo_session\nsource: svc\ndescription: d\n";
    let named = SessionOptions {
        tools: Arc::new(r.clone()),
        session_id: Some("conversation-42".into()),
        ..Default::default()
    };
    let mut s = engine().session_with(vec![results_mount()], named).unwrap();
    assert_eq!(s.id(), "conversation-42");
    load(&mut s, yaml);
    assert_eq!(invoke(&mut s, "who", json!({})).envelope["data"]["session"], "conversation-42");
    let (mut a, mut b) = (session_with(r.clone()), session_with(r));
    assert_ne!(a.id(), b.id());
    for s in [&mut a, &mut b] {
        load(s, yaml);
        let id = s.id().to_string();
        assert!(id.starts_with("session-"), "{id}");
        assert_eq!(invoke(s, "who", json!({})).envelope["data"]["session"], id.as_str());
    }
}

/// The `filestore` binary cargo built for these tests.
fn filestore() -> Command {
    Command::new(env!("CARGO_BIN_EXE_filestore"))
}

/// A file of the guest's test data, by name.
fn data(name: &str) -> String {
    crate::common::repo_root().join("guest/tests-data").join(name).display().to_string()
}

mod cli;
mod redaction;
mod result_limit;
mod sqlite_files;
mod variables;
