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

/// A model's SQL (`sqlite-execute-sql`) cannot reach other files through SQLite:
/// `ATTACH` of a file and `VACUUM INTO` a file are refused, whatever spells the name
/// (a literal, an expression, a `file:` URI); a temporary or in-memory database and
/// plain `VACUUM` still work, and nothing is created outside the database.
#[test]
fn model_sql_cannot_attach_or_vacuum_into_other_files() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("shop.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO items VALUES (1, 'pen');")
        .unwrap();
    let mut s = prebuilt_sqlite_session(&db);
    let db_path = db.display().to_string();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let o = outside.display();
    for sql in [
        format!("ATTACH DATABASE '{o}/a.db' AS a"),
        format!("ATTACH ('{o}/' || 'b.db') AS b"),
        format!("ATTACH 'file:{o}/c.db' AS c"),
        format!("VACUUM INTO '{o}/d.db'"),
        format!("SELECT 1; VACUUM INTO '{o}/e.db'"),
        format!("ATTACH DATABASE '{db_path}' AS again"),
    ] {
        let out = invoke(&mut s, "execute_sql", json!({"sql": sql}));
        assert_eq!(out.status, InvokeStatus::Failed, "{sql}: {}", out.text);
        assert!(
            out.text.contains("not authorized") || out.text.contains("authorization denied"),
            "{sql}: {}",
            out.text
        );
    }
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "a file was created outside");
    for sql in ["ATTACH ':memory:' AS m", "ATTACH '' AS t", "VACUUM"] {
        let out = invoke(&mut s, "execute_sql", json!({"sql": sql}));
        assert_eq!(out.status, InvokeStatus::Completed, "{sql}: {}", out.text);
    }
    let out = invoke(&mut s, "execute_sql", json!({"sql": "SELECT name FROM items"}));
    assert_eq!(out.envelope["data"], json!([{"name": "pen"}]), "{}", out.text);
}

/// `${VAR}` in a tool's handler fields (headers, path, requestBody, statement) is
/// resolved by the host when the call runs, never inside the component (secrets stay
/// out of the sandbox and out of what agents see); an unset variable without default
/// fails the load naming it and the tool; an argument cannot smuggle a reference into
/// a statement that has them.
#[test]
fn tool_field_variables_resolve_in_the_host() {
    let (port, seen) = http_server("200 OK", r#"{"ok": true}"#);
    let yaml = format!(
        r#"kind: source
name: api
type: http
baseUrl: http://127.0.0.1:{port}
---
kind: tool
name: search
type: http
source: api
method: POST
path: /search?pet=${{PET:cat}}&v=${{API_VERSION}}
headers:
  Authorization: Bearer ${{TOOL_KEY}}
requestBody: |
  {{"who": "${{WHO:nobody}}", "q": "{{{{.q}}}}"}}
description: Search pets.
bodyParams:
  - name: q
    type: string
    description: The query.
---
kind: source
name: db
type: sqlite
database: {db}
---
kind: tool
name: greet
type: sqlite-sql
source: db
description: Greets.
statement: SELECT '${{GREETING}}' || ' ' || {{{{.who}}}} AS g, length('${{GREETING}}') AS n
templateParameters:
  - name: who
    type: string
    escape: single-quotes
    description: Whom.
"#,
        db = empty_database(&tempfile::tempdir().unwrap().keep()).display()
    );
    let env = |k: &str| match k {
        "TOOL_KEY" => Some("tk-secret-987".to_string()),
        "API_VERSION" => Some("2".to_string()),
        "GREETING" => Some("hello".to_string()),
        _ => None,
    };
    let files = vec![("tools.yaml".to_string(), yaml.clone())];
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    s.load_config_with_env(&files, &env).unwrap().unwrap();
    let out = invoke(&mut s, "search", json!({"q": "${TOOL_KEY}"}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    let head = seen.lock().unwrap()[0].clone();
    assert!(head.starts_with("POST /search?pet=cat&v=2 HTTP/1.1"), "{head}");
    assert!(head.to_ascii_lowercase().contains("authorization: bearer tk-secret-987"), "{head}");
    // The configured reference resolved; the argument's `${TOOL_KEY}` stayed text.
    assert!(head.ends_with("{\"who\": \"nobody\", \"q\": \"${TOOL_KEY}\"}\n"), "{head}");
    let specs = serde_json::to_string(&s.tool_specs().unwrap()).unwrap();
    assert!(!specs.contains("tk-secret") && !out.envelope.to_string().contains("tk-secret"));

    // `hello` was substituted (5 characters), and comes back as its reference: a
    // value taken from the environment is redacted from results as from errors.
    let out = invoke(&mut s, "greet", json!({"who": "Ada"}));
    assert_eq!(out.envelope["data"], json!([{"g": "${GREETING} Ada", "n": 5}]), "{}", out.text);
    let out = invoke(&mut s, "greet", json!({"who": "${GREETING}"}));
    assert_eq!(out.envelope["error"]["code"], "invalid-argument", "{}", out.text);
    assert!(out.text.contains("argument who contains '${'"), "{}", out.text);

    // Unset without default: the load fails naming the variable and the tool.
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    let e = s
        .load_config_with_env(&files, &|k| (k != "API_VERSION").then(|| env(k)).flatten())
        .unwrap_err()
        .to_string();
    assert!(e.contains("environment variable 'API_VERSION' is not set"), "{e}");
    assert!(e.contains("tool 'search' field 'path' (tools.yaml: document 2"), "{e}");

    // `filestore check` fails the same way, and passes once it is set.
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("tools.yaml");
    std::fs::write(&path, &yaml).unwrap();
    let out = filestore()
        .args(["check", path.to_str().unwrap()])
        .env_remove("API_VERSION")
        .env("TOOL_KEY", "x")
        .env("GREETING", "x")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("'API_VERSION' is not set") && err.contains("tool 'search'"), "{err}");
    assert!(!err.contains("PET") && !err.contains("WHO"), "defaults are not missing: {err}");
    let out = filestore()
        .args(["check", path.to_str().unwrap()])
        .env("API_VERSION", "2")
        .env("TOOL_KEY", "x")
        .env("GREETING", "x")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn http_errors_and_missing_variables_are_clear() {
    let (port, _) = http_server("500 Internal Server Error", r#"{"error": "db down"}"#);
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    load(&mut s, &http_yaml(port, ""));
    let out = invoke(&mut s, "get_item", json!({"id": "1", "q": "", "note": ""}));
    assert_eq!(out.envelope["error"]["code"], "backend");
    assert!(out.text.contains("500") && out.text.contains("db down"), "{}", out.text);
    // Loading without the variable names it, and leaves nothing half-loaded.
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    let files = vec![("tools.yaml".to_string(), http_yaml(port, ""))];
    let e = s.load_config_with_env(&files, &|_| None).unwrap_err().to_string();
    assert!(e.contains("'API_KEY'"), "{e}");
    assert!(!s.tool_specs().unwrap().iter().any(|t| t["name"] == "get_item"));
}

/// Values resolved from `${VAR}` never appear in an error: the server's 404 for a URL
/// holding the token, a connection refused to such a URL, and sqlite's "cannot open"
/// for a path holding a password all name `${VAR}` instead, in the error text, the
/// envelope, and what the results volume holds.
#[test]
fn resolved_secrets_never_appear_in_errors() {
    const TOKEN: &str = "tok-SECRET-7f3a9";
    const PASSWORD: &str = "pw SECRET/9";
    let env = |k: &str| match k {
        "BOT_TOKEN" => Some(TOKEN.to_string()),
        "DB_PASSWORD" => Some(PASSWORD.to_string()),
        _ => None,
    };
    let (port, _) = http_server("404 Not Found", r#"{"error": "no such bot"}"#);
    let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let tmp = tempfile::tempdir().unwrap();
    let yaml = format!(
        r#"kind: source
name: bot
type: http
baseUrl: http://127.0.0.1:{port}/bot${{BOT_TOKEN}}
---
kind: source
name: gone
type: http
baseUrl: http://127.0.0.1:{closed}/bot${{BOT_TOKEN}}
---
kind: source
name: db
type: sqlite
database: {}/missing-${{DB_PASSWORD}}/db.sqlite
---
kind: tool
name: ping
type: http
source: bot
method: GET
path: /ping
description: Ping.
---
kind: tool
name: ping_gone
type: http
source: gone
method: GET
path: /ping
description: Ping a closed port.
---
kind: tool
name: query
type: sqlite-sql
source: db
statement: SELECT 1
description: Query.
"#,
        tmp.path().display()
    );
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    let files = vec![("tools.yaml".to_string(), yaml)];
    s.load_config_with_env(&files, &env).unwrap().unwrap();
    for tool in ["ping", "ping_gone", "query"] {
        let out = invoke(&mut s, tool, json!({}));
        assert_eq!(out.envelope["success"], false, "{tool}: {}", out.envelope);
        let everything = format!("{} {}", out.text, out.envelope);
        for secret in [TOKEN, PASSWORD, "pw%20SECRET%2F9", "SECRET"] {
            assert!(!everything.contains(secret), "{tool} leaks {secret:?}: {everything}");
        }
        let wanted = if tool == "query" { "${DB_PASSWORD}" } else { "${BOT_TOKEN}" };
        assert!(everything.contains(wanted), "{tool}: {everything}");
    }
    let stored = crate::common::ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": "SECRET", "path": "/tool_calls", "output_mode": "count"}),
    );
    assert_eq!(stored["total_matches"], 0, "{stored}");
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

// ---- CLI ---------------------------------------------------------------------

fn filestore() -> Command {
    Command::new(env!("CARGO_BIN_EXE_filestore"))
}

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../guest/tests-data")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn cli_check_reports_unrunnable_tools_and_located_errors() {
    let out = filestore().args(["check", &data("toolbox-v2-example-bound.yaml")]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("2 tools"), "{stdout}");
    assert!(stdout.contains("'example_tool' (postgres-sql): valid, but not runnable"), "{stdout}");
    let strict = filestore()
        .args(["check", "--strict", &data("toolbox-v2-example-bound.yaml")])
        .output()
        .unwrap();
    assert_eq!(strict.status.code(), Some(2));
    let ok = filestore()
        .args(["check", "--strict", &data("runnable.yaml")])
        .env("API_KEY", "k")
        .output()
        .unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stdout));

    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.yaml");
    std::fs::write(&bad, "kind: tool\nname: t\ntype: sqlite-sql\nsource: nope\ndescription: d\nstatement: SELECT 1\n---\nkind: widget\nname: w\n").unwrap();
    let out = filestore().args(["check", bad.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("document 1, line 4, column 9: field 'source'"), "{err}");
    assert!(err.contains("document 2, line 8"), "{err}");
}

/// A misspelt tool type (`sqlite-sq`) is refused by `check` and by `call` (naming it
/// and the type it is nearest, located) instead of passing as "not runnable here"; a
/// real Toolbox type this host does not run (`mssql-sql`) is an `unsupported` warning
/// at `serve`'s start, once, and, on call, "type not supported by this host", not a
/// fault of its source.
#[test]
fn cli_refuses_misspelt_tool_types_and_names_unsupported_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let source = format!(
        "kind: source\nname: my-db\ntype: sqlite\ndatabase: {}\n",
        tmp.path().join("h.db").display()
    );
    let tool = |name: &str, ty: &str| {
        format!(
            "---\nkind: tool\nname: {name}\ntype: {ty}\nsource: my-db\ndescription: d\nstatement: SELECT 1 AS one\n"
        )
    };
    let config = |file: &str, name: &str, ty: &str| {
        let path = tmp.path().join(file);
        std::fs::write(&path, format!("{source}{}{}", tool("ok", "sqlite-sql"), tool(name, ty)))
            .unwrap();
        path.to_str().unwrap().to_string()
    };
    let typo = &config("typo.yaml", "q", "sqlite-sq");
    let expected = "document 3, line 14, column 7: tool 'q' has type 'sqlite-sq', which is not a known tool type: did you mean 'sqlite-sql'?";
    let out = filestore().args(["check", typo]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(expected), "{err}");
    // Any call on that configuration, not only the misspelt tool's.
    let out = filestore().args(["call", "ok", "{}", "--config", typo]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(expected), "{err}");

    let other = &config("other.yaml", "m", "mssql-sql");
    let out = filestore().args(["check", other]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = filestore().args(["call", "m", "{}", "--config", other]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "error[unsupported]: tool 'm' has type 'mssql-sql': type not supported by this host"
        ),
        "{err}"
    );
    assert!(!err.contains("my-db"), "the source is not at fault: {err}");
    let out = filestore()
        .args(["serve", "--mount", "/w=mem:", "--config", other])
        .current_dir(tmp.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: ")
            && err.contains(": unsupported: type mssql-sql is not one this host runs (tool 'm')"),
        "serve must warn at start: {err}"
    );
    assert_eq!(err.matches("mssql-sql").count(), 1, "once, without every handled type: {err}");
    assert!(!err.contains("sqlite-execute-sql"), "{err}");
}

#[test]
fn cli_migrate_writes_v2() {
    let tmp = tempfile::tempdir().unwrap();
    let v1 = data("toolbox-v1-example-bound.yaml");
    let v1 = v1.as_str();
    let out = filestore().args(["migrate", v1]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v2 = String::from_utf8_lossy(&out.stdout).to_string();
    // Singular kinds: Toolbox >= v0.31 refuses the plural ones.
    assert!(v2.starts_with("kind: source\n"), "{v2}");
    assert!(v2.contains("kind: tool\nname: example_tool\ntype: postgres-sql"), "{v2}");
    assert!(!v2.contains("kind: tools\n") && !v2.contains("kind: sources\n"), "{v2}");
    assert!(v2.contains("\n---\n"));
    let dest = tmp.path().join("v2.yaml");
    let out = filestore().args(["migrate", v1, "-o", dest.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&dest).unwrap(), v2);
    // The v2 output checks clean.
    let out = filestore().args(["check", dest.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success());
}

/// `migrate -o FILE` does not replace a file that exists (the configuration an earlier
/// step wrote) unless `--force` says to, and leaves it as it was.
#[test]
fn cli_migrate_refuses_an_existing_output_without_force() {
    let tmp = tempfile::tempdir().unwrap();
    let v1 = data("toolbox-v1-example-bound.yaml");
    let dest = tmp.path().join("tools.yaml");
    std::fs::write(&dest, "kind: tool\nname: mine\n").unwrap();
    let out = filestore().args(["migrate", &v1, "-o", dest.to_str().unwrap()]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "an existing output was replaced");
    assert!(stderr.contains("already-exists") && stderr.contains("--force"), "{stderr}");
    assert!(stderr.contains("tools.yaml"), "the error names the file: {stderr}");
    assert_eq!(std::fs::read_to_string(&dest).unwrap(), "kind: tool\nname: mine\n");
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left behind");
    let out = filestore()
        .args(["migrate", &v1, "-o", dest.to_str().unwrap(), "--force"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(&dest).unwrap().contains("name: example_tool"));
}

/// `filestore migrate` keeps `${VAR}` as written in names, descriptions and toolset
/// members (and everywhere else), whether the variable is set here or not: the output
/// is the input's, not this environment's (a migrated file must not carry secrets).
#[test]
fn cli_migrate_keeps_variables_as_written() {
    let tmp = tempfile::tempdir().unwrap();
    let v1 = tmp.path().join("v1.yaml");
    std::fs::write(
        &v1,
        "sources:\n  db:\n    kind: sqlite\n    database: ${FS_MIGRATE_DB:./a.db}\n\
         tools:\n  ${FS_MIGRATE_UNSET_PREFIX}_search:\n    kind: sqlite-sql\n    source: db\n\
         \x20   description: Search ${FS_MIGRATE_SET} in ${FS_MIGRATE_UNSET_CITY:Basel}.\n\
         \x20   statement: SELECT ? AS a\n    parameters:\n\
         \x20     - {name: q, type: string, description: 'Query for ${FS_MIGRATE_UNSET_PREFIX}.'}\n\
         toolsets:\n  ${FS_MIGRATE_SET}_set:\n    - ${FS_MIGRATE_UNSET_PREFIX}_search\n",
    )
    .unwrap();
    let out = filestore()
        .args(["migrate", v1.to_str().unwrap()])
        .env("FS_MIGRATE_SET", "resolved-here")
        .env_remove("FS_MIGRATE_UNSET_PREFIX")
        .env_remove("FS_MIGRATE_UNSET_CITY")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v2 = String::from_utf8_lossy(&out.stdout).to_string();
    for kept in [
        // YAML quotes a value that starts with `$`; the quotes do not reach the value.
        "database: \"${FS_MIGRATE_DB:./a.db}\"",
        "name: \"${FS_MIGRATE_UNSET_PREFIX}_search\"",
        "Search ${FS_MIGRATE_SET} in ${FS_MIGRATE_UNSET_CITY:Basel}.",
        "Query for ${FS_MIGRATE_UNSET_PREFIX}.",
        "name: \"${FS_MIGRATE_SET}_set\"",
        "  - \"${FS_MIGRATE_UNSET_PREFIX}_search\"",
    ] {
        assert!(v2.contains(kept), "{kept} missing from:\n{v2}");
    }
    assert!(!v2.contains("resolved-here"), "{v2}");
    // The output loads as the input did, once its variables are set.
    let dest = tmp.path().join("v2.yaml");
    std::fs::write(&dest, &v2).unwrap();
    let out = filestore()
        .args(["check", dest.to_str().unwrap()])
        .env("FS_MIGRATE_SET", "here")
        .env("FS_MIGRATE_UNSET_PREFIX", "hotel")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{said}{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("tool 'hotel_search'"), "{said}");
}

#[test]
fn cli_call_runs_configured_sqlite_tools() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("tools.yaml");
    std::fs::write(&cfg, sqlite_yaml(&tmp.path().join("app.db"))).unwrap();
    let cfg = cfg.to_str().unwrap();
    let run = |tool: &str, args: &str| {
        filestore().args(["call", tool, args, "--config", cfg]).output().unwrap()
    };
    assert!(run("setup", "{}").status.success());
    assert!(run("add_user", r#"{"name":"Ada"}"#).status.success());
    let out = run("find_user", r#"{"name":"Ada"}"#);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["data"], json!([{"id": 1, "name": "Ada"}]));
    assert_eq!(j["result_path"], "/tool_calls/find_user/call_1/result-1.json");
    let out = run("find_user", r#"{"name":1}"#);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[invalid-argument]"));
}

/// `filestore call` checks a configured tool's `outputSchema`, as `serve` does: a
/// conforming result is printed; one that breaks it fails (exit 1) with
/// `error[backend]` naming the place in the result and where it is stored.
#[test]
fn cli_call_checks_a_declared_output_schema() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("tools.yaml");
    std::fs::write(
        &cfg,
        "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n---\n\
kind: tool\nname: label\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT ? AS label\n\
parameters: [{name: label, type: string, description: l}]\n\
outputSchema: {type: array, items: {type: object, properties: {label: {maxLength: 5}}}}\n",
    )
    .unwrap();
    let run = |args: &str| {
        filestore()
            .args(["call", "label", args, "--config", cfg.to_str().unwrap()])
            .output()
            .unwrap()
    };
    let out = run(r#"{"label":"ok"}"#);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["data"], json!([{"label": "ok"}]));
    let out = run(r#"{"label":"far too long"}"#);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error[backend]")
            && err.contains("does not match its output schema: at /0/label")
            && err.contains("/tool_calls/label/"),
        "{err}"
    );
}

/// `filestore call` and a call that waits for approval: without a decision (and no
/// terminal) it prints the pending envelope and exits 3, running nothing; `--reject`
/// drops it (exit 1, `error[rejected]`); `--approve` runs it and prints its result.
#[test]
fn cli_call_approves_or_rejects_a_call_that_waits() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("tools.yaml");
    std::fs::write(&cfg, sqlite_yaml(&tmp.path().join("app.db"))).unwrap();
    let cfg = cfg.to_str().unwrap();
    let run = |extra: &[&str], tool: &str, args: &str| {
        filestore()
            .args(["call", tool, args, "--config", cfg])
            .args(extra)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    assert!(run(&[], "setup", "{}").status.success());
    assert!(run(&[], "add_user", r#"{"name":"Ada"}"#).status.success());
    let users = || {
        let out = run(&[], "find_user", r#"{"name":"Ada"}"#);
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["data"].as_array().unwrap().len()
    };

    let out = run(&[], "delete_all", "{}");
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let pending: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(pending["pending"], true, "{pending}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--approve"));
    assert_eq!(users(), 1, "a waiting call ran");

    let out = run(&["--reject"], "delete_all", "{}");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[rejected]: tool 'delete_all'"), "{stderr}");
    assert_eq!(users(), 1, "a rejected call ran");

    let out = run(&["--approve"], "delete_all", "{}");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let done: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(done["data"], json!({"rows_affected": 1}), "{done}");
    assert_eq!(users(), 0, "the approved call did not run");

    // A decision for a call that needs none changes nothing, and says so.
    let out = run(&["--approve"], "find_user", r#"{"name":"Ada"}"#);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("did not wait for approval"));
    let both = run(&["--approve", "--reject"], "delete_all", "{}");
    assert_eq!(both.status.code(), Some(2), "clap refuses both decisions");
}

/// `--tool-timeout` bounds a configured tool's handler (the statement is interrupted
/// at it), `--call-timeout` the whole call in the sandbox; both are named in the
/// error, and zero is refused.
#[test]
fn cli_call_timeouts_are_configurable() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("tools.yaml");
    let yaml = format!(
        "{}---\nkind: tool\nname: forever\ntype: sqlite-sql\nsource: app-db\ndescription: Never ends.\n\
         statement: WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT count(*) FROM c\n",
        sqlite_yaml(&tmp.path().join("app.db"))
    );
    std::fs::write(&cfg, yaml).unwrap();
    let cfg = cfg.to_str().unwrap();
    assert!(filestore().args(["call", "setup", "{}", "--config", cfg]).status().unwrap().success());
    let started = std::time::Instant::now();
    let out = filestore()
        .args(["call", "forever", "{}", "--config", cfg, "--tool-timeout", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The statement interrupted, or the host's watch on the handler first.
    assert!(stderr.contains("error[limit-exceeded]: tool 'forever'"), "{stderr}");
    assert!(stderr.contains("timeout"), "{stderr}");
    // A bound on a hang, not a timing check: the default is 30 s.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(25),
        "--tool-timeout 1 was not applied"
    );

    let out = filestore()
        .args(["call", "--call-timeout", "1", "filestore_execute"])
        .arg(r#"{"command": "while true; do :; done"}"#)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the call ran past its deadline of 1s"), "{stderr}");

    let out = filestore().args(["call", "--call-timeout", "0", "filestore_ls"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--call-timeout"));
}

/// A query on a missing SQLite file fails `not-found` naming the file (relative to the
/// working directory) and creates nothing; a CREATE statement creates it; errors
/// from the database name the file (docs/configured-tools.md#sqlite-database).
#[test]
fn sqlite_creates_a_missing_database_only_for_a_create_statement() {
    let tmp = tempfile::tempdir().unwrap();
    let yaml = "kind: source\nname: my-db\ntype: sqlite\ndatabase: ./hotels.db\n---\n\
        kind: tool\nname: find\ntype: sqlite-sql\nsource: my-db\ndescription: d\n\
        statement: SELECT * FROM hotels\n---\n\
        kind: tool\nname: setup\ntype: sqlite-sql\nsource: my-db\ndescription: d\n\
        statement: '-- the schema\n\n  create table other (id INTEGER)'\n";
    std::fs::write(tmp.path().join("tools.yaml"), yaml).unwrap();
    let run = |tool: &str| {
        filestore()
            .args(["call", tool, "{}", "--config", "tools.yaml"])
            .current_dir(tmp.path())
            .output()
            .unwrap()
    };
    let out = run("find");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error[not-found]: "), "{err}");
    assert!(err.contains("database file ./hotels.db"), "{err}");
    let full = tmp.path().canonicalize().unwrap().join("./hotels.db");
    assert!(err.contains(&full.display().to_string()), "{err}");
    assert!(!tmp.path().join("hotels.db").exists(), "a query must not create the database");
    let out = run("setup");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(tmp.path().join("hotels.db").exists());
    let out = run("find");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("database ./hotels.db refused the statement: no such table: hotels"),
        "{err}"
    );
}

/// The component (names, descriptions) and the host (sources, handler fields) read
/// `${VAR}` with one scanner, Toolbox's grammar: a name with a leading digit
/// (`9LIVES`) is a reference on both sides, `${a-b}` on neither. Before, the
/// component left `${9LIVES}` as written while the host substituted it.
#[test]
fn component_and_host_read_the_same_variable_names() {
    let yaml = "kind: source\nname: db\ntype: sqlite\ndatabase: ${DB:x}\n---\nkind: tool\nname: t\n\
        type: sqlite-sql\nsource: db\ndescription: Lives ${9LIVES} ${a-b}.\n\
        statement: SELECT length('${9LIVES}') AS n, '${a-b}' AS v\n";
    let files = vec![("tools.yaml".to_string(), yaml.to_string())];
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    let env = |k: &str| match k {
        "9LIVES" => Some("cat".to_string()),
        "DB" => Some(":memory:".to_string()),
        _ => None,
    };
    s.load_config_with_env(&files, &env).unwrap().unwrap();
    let specs = s.list_tools(None).unwrap();
    let tool = specs.iter().find(|t| t["name"] == "t").expect("tool t");
    assert_eq!(tool["description"], "Lives cat ${a-b}.", "the component's reading");
    let out = invoke(&mut s, "t", json!({}));
    // `cat` (3 characters) was substituted; `${a-b}` stayed text.
    assert_eq!(
        out.envelope["data"],
        json!([{"n": 3, "v": "${a-b}"}]),
        "the host's reading: {}",
        out.text
    );
}

/// `${VAR}` in names, descriptions and toolset members is substituted from the host's
/// environment before agents see them (as Toolbox does); a reference without a value or
/// default is a located load error, and `filestore check` says the same.
#[test]
fn variables_in_names_and_descriptions_are_substituted() {
    let tmp = tempfile::tempdir().unwrap();
    let db = empty_database(tmp.path());
    let yaml = format!(
        "kind: source\nname: db\ntype: sqlite\ndatabase: {}\n---\nkind: tool\nname: count_${{ENV_NAME}}\ntype: sqlite-sql\nsource: db\ndescription: Count rows in ${{DOMAIN:the docs}} for ${{ENV_NAME}}.\nstatement: SELECT 1 AS one\nparameters: []\n---\nkind: toolset\nname: set_${{ENV_NAME}}\ntools:\n  - count_${{ENV_NAME}}\n",
        db.display()
    );
    let files = vec![("tools.yaml".to_string(), yaml.clone())];
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    let env = |k: &str| (k == "ENV_NAME").then(|| "staging".to_string());
    s.load_config_with_env(&files, &env).unwrap().unwrap();
    let specs = s.list_tools(Some("set_staging")).unwrap();
    let tool = specs.iter().find(|t| t["name"] == "count_staging").expect("substituted name");
    assert_eq!(tool["description"], "Count rows in the docs for staging.");
    let out = invoke(&mut s, "count_staging", json!({}));
    assert_eq!(out.envelope["data"], json!([{"one": 1}]), "{}", out.text);
    // Unset without a default: the load fails at the place of use.
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    let issues = s.load_config_with_env(&files, &|_| None).unwrap().unwrap_err();
    let text: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
    assert!(
        text.iter().any(|t| t.contains("tools.yaml: document 2, line 7, column 7")
            && t.contains("environment variable 'ENV_NAME'")),
        "{text:?}"
    );
    // `filestore check` reads the process environment the same way.
    let path = tmp.path().join("tools.yaml");
    std::fs::write(&path, &yaml).unwrap();
    let out = filestore().arg("check").arg(&path).env_remove("ENV_NAME").output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("environment variable 'ENV_NAME'"), "{err}");
    let out = filestore().arg("check").arg(&path).env("ENV_NAME", "prod").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("tool 'count_prod'"));
}

/// A tool's compiled `outputSchema` is kept between calls (result_rules: compiled
/// once per tool and schema, not per result), and a reloaded configuration whose
/// schema changed checks results against the new one, in the same session.
#[test]
fn a_reloaded_output_schema_takes_effect() {
    let yaml = |max: u32| {
        format!(
            "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n---\n\
kind: tool\nname: label\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT ? AS label\n\
parameters: [{{name: label, type: string, description: l}}]\n\
outputSchema: {{type: array, items: {{type: object, properties: {{label: {{maxLength: {max}}}}}}}}}\n"
        )
    };
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    load(&mut s, &yaml(5));
    for _ in 0..2 {
        let out = invoke(&mut s, "label", json!({"label": "abcd"}));
        assert_eq!(out.status, InvokeStatus::Completed, "{:?}", out.error);
    }
    let out = invoke(&mut s, "label", json!({"label": "abcdefg"}));
    assert_eq!(out.status, InvokeStatus::Failed);
    // The same tool reloaded with a stricter schema: "abcd" now breaks it.
    load(&mut s, &yaml(2));
    let out = invoke(&mut s, "label", json!({"label": "abcd"}));
    assert_eq!(out.status, InvokeStatus::Failed, "the new schema holds");
    let e = out.error.expect("the schema's error").to_string();
    assert!(e.contains("does not match its output schema: at /0/label"), "{e}");
    let out = invoke(&mut s, "label", json!({"label": "ab"}));
    assert_eq!(out.status, InvokeStatus::Completed, "{:?}", out.error);
    // And back: the looser schema is compiled again, not the stricter one kept.
    load(&mut s, &yaml(5));
    let out = invoke(&mut s, "label", json!({"label": "abcd"}));
    assert_eq!(out.status, InvokeStatus::Completed, "{:?}", out.error);
}

// ---- redaction at the one place where host text becomes agent text ------------

/// The `queryParams` key of the echoing source (20 characters).
const ECHO_KEY: &str = "qk7Z3pX9vR2mW8tL4nB6";
/// The bearer token of its `Authorization` header (26 characters).
const ECHO_TOKEN: &str = "tA1b2C3d4E5f6G7h8I9j0K1L2m";

/// A loopback upstream that echoes what it is sent. `X-Status: 200` answers JSON
/// holding the request target and `Authorization` header (the target also as a key);
/// any other status answers an error body of `X-Pad` characters of padding, then the
/// target (or, for `/auth...`, the `Authorization` header), then more text.
fn echo_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            let target = first.split(' ').nth(1).unwrap_or("").to_string();
            let mut headers = std::collections::HashMap::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some((k, v)) = line.split_once(':') {
                    headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                }
            }
            let header = |k: &str| headers.get(k).cloned().unwrap_or_default();
            let auth = header("authorization");
            let (status, body) = match header("x-status").as_str() {
                "200" => (
                    "200 OK".to_string(),
                    json!({"target": target, "authorization": auth, target.clone(): "asked"})
                        .to_string(),
                ),
                code => {
                    let pad = "p".repeat(header("x-pad").parse().unwrap_or(0));
                    let echoed = if target.starts_with("/auth") { auth } else { target };
                    (format!("{code} Failed"), format!("{pad}{echoed} and more text after it"))
                }
            };
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                )
                .as_bytes(),
            );
        }
    });
    port
}

/// An `http` source on the echo server sending both secrets, and three tools: two
/// whose error bodies put a secret across the old 300-character cut (19 of the
/// key's 20 characters, 32 of the 33 of `Bearer <token>` before it), one that
/// answers with both echoed.
fn echo_yaml(port: u16) -> String {
    let url_pad = 300 - 19 - "/url?key=".len();
    let auth_pad = 300 - 32;
    let tool = |name: &str, path: &str, status: &str, pad: usize| {
        format!(
            "---\nkind: tool\nname: {name}\ntype: http\nsource: echo\nmethod: GET\npath: {path}\n\
             description: Echoes.\nheaders:\n  X-Status: \"{status}\"\n  X-Pad: \"{pad}\"\n"
        )
    };
    format!(
        "kind: source\nname: echo\ntype: http\nbaseUrl: http://127.0.0.1:{port}\n\
         headers:\n  Authorization: Bearer ${{ECHO_TOKEN}}\nqueryParams:\n  key: ${{ECHO_KEY}}\n{}{}{}",
        tool("url_fails", "/url", "500", url_pad),
        tool("auth_fails", "/auth", "502", auth_pad),
        tool("echoes", "/ok", "200", 0),
    )
}

/// Every 6 characters of `secret` in a row, as a regex alternation (the secrets are
/// alphanumeric).
fn pieces(secret: &str) -> Vec<String> {
    let chars: Vec<char> = secret.chars().collect();
    chars.windows(6).map(|w| w.iter().collect()).collect()
}

/// Secrets are redacted before anything is cut, and in results as in errors: an
/// upstream's error body that puts the `queryParams` key or the `Authorization`
/// token across the old 300-character cut, and a successful answer echoing both
/// (as values and as a key), show no piece of either in the answer, the stored
/// result under `/tool_calls` or the audit timeline; each shows `${VAR}` instead.
#[test]
fn secrets_are_redacted_before_any_cut_in_errors_and_results() {
    let port = echo_server();
    let options = SessionOptions {
        tools: Arc::new(ToolRegistry::with_builtin_handlers()),
        audit: Some(Arc::new(filestore::audit::AuditLog::memory(None))),
        ..Default::default()
    };
    let mut s = engine().session_with(vec![results_mount()], options).expect("session");
    let files = vec![("tools.yaml".to_string(), echo_yaml(port))];
    let env = |k: &str| match k {
        "ECHO_KEY" => Some(ECHO_KEY.to_string()),
        "ECHO_TOKEN" => Some(ECHO_TOKEN.to_string()),
        _ => None,
    };
    s.load_config_with_env(&files, &env).unwrap().unwrap();
    let all: Vec<String> = [pieces(ECHO_KEY), pieces(ECHO_TOKEN)].concat();
    let leaks =
        |text: &str| all.iter().filter(|p| text.contains(p.as_str())).cloned().collect::<Vec<_>>();

    let out = invoke(&mut s, "url_fails", json!({}));
    let seen = format!("{} {}", out.text, out.envelope);
    assert_eq!(out.envelope["error"]["code"], "backend", "{seen}");
    assert!(seen.contains("/url?key=${ECHO_KEY} and more text"), "{seen}");
    assert_eq!(leaks(&seen), Vec::<String>::new(), "{seen}");

    let out = invoke(&mut s, "auth_fails", json!({}));
    let seen = format!("{} {}", out.text, out.envelope);
    assert!(seen.contains("502") && seen.contains("Bearer ${ECHO_TOKEN} and more"), "{seen}");
    assert_eq!(leaks(&seen), Vec::<String>::new(), "{seen}");

    let out = invoke(&mut s, "echoes", json!({}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    assert_eq!(
        out.envelope["data"],
        json!({"target": "/ok?key=${ECHO_KEY}", "authorization": "Bearer ${ECHO_TOKEN}",
               "/ok?key=${ECHO_KEY}": "asked"})
    );
    assert_eq!(leaks(&format!("{} {}", out.text, out.envelope)), Vec::<String>::new());
    let stored = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": r"Bearer \$\{ECHO_TOKEN\}", "path": out.result_path, "output_mode": "count"}),
    );
    assert_eq!(stored["total_matches"], 1, "{stored}");

    // Nothing anywhere in the stored results or the audit timeline, which has
    // recorded the three calls.
    let pattern = all.join("|");
    for place in ["/tool_calls", "/audit"] {
        let found = ok(
            &mut s,
            "filestore_grep",
            json!({"pattern": pattern, "path": place, "output_mode": "count"}),
        );
        assert_eq!(found["total_matches"], 0, "{place}: {found}");
    }
    let audited = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": "url_fails|auth_fails|echoes", "path": "/audit", "output_mode": "files_with_matches"}),
    );
    assert_eq!(audited["files"].as_array().map(Vec::len), Some(3), "{audited}");
}

/// A successful result of an upstream MCP server (a provider tool) is redacted at
/// the same place: its `echo` answers with a greeting the connection took from the
/// environment.
#[test]
fn provider_results_are_redacted_too() {
    const GREETING: &str = "greet-8d7c6b5a4f3e2d1c";
    let tmp = tempfile::tempdir().unwrap();
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/mcp_python/upstream_server.py");
    let text = format!(
        "name: helper\nservers:\n  py:\n    command: {py:?}\n    args: [{script:?}]\n    timeout: 10s\n    env: {{UPSTREAM_GREETING: \"${{GREETING_VAR}}\"}}\n\
         tools:\n  - filestore_grep\n  - {{type: mcp, integration: py, action: echo, connection: default, name: say}}\n",
        py = crate::mcp::python().display().to_string(),
        script = script.display().to_string(),
    );
    let env: filestore::providers::mcp::EnvLookup =
        Arc::new(|k: &str| (k == "GREETING_VAR").then(|| GREETING.to_string()));
    let agent =
        filestore::agent::Agent::from_text_with_env(engine(), "agent.yaml", text, tmp.path(), env)
            .unwrap();
    let mut registry = ToolRegistry::with_builtin_handlers();
    agent.install(&mut registry);
    let mut s = session_with(registry);
    agent.load_into(&mut s).unwrap();
    let out = invoke(&mut s, "say", json!({"text": " and hello"}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    assert_eq!(out.envelope["data"], "${GREETING_VAR} and hello", "{}", out.envelope);
    let found = ok(
        &mut s,
        "filestore_grep",
        json!({"pattern": "greet-8d7c", "path": "/tool_calls", "output_mode": "count"}),
    );
    assert_eq!(found["total_matches"], 0, "{found}");
}

// ---- the result limit, counted where rows and bodies are read -------------------

/// A registry with the shipped handlers and a result limit of 1 MiB.
fn limited_registry() -> ToolRegistry {
    let mut r = ToolRegistry::with_builtin_handlers();
    r.set_max_result_bytes(1 << 20);
    r
}

/// `out` failed at the result limit of 1 MiB, naming it.
#[track_caller]
fn assert_at_limit(out: &filestore::tools::InvokeOutcome, what: &str) {
    assert_eq!(out.envelope["error"]["code"], "limit-exceeded", "{what}: {}", out.text);
    assert!(
        out.text.contains("the tool result limit of 1 MiB (1048576 bytes) (--tool-result-mib)"),
        "{what}: {}",
        out.text
    );
}

/// SQLite: one value past the limit is never built (SQLite's own length limit),
/// and rows stop at the first past it, whether the statement is configured or the
/// model's; what fits still comes back whole.
#[test]
fn sqlite_result_bombs_stop_at_the_result_limit() {
    let tmp = tempfile::tempdir().unwrap();
    let yaml = format!(
        "kind: source\nname: db\ntype: sqlite\ndatabase: {}\n---\n\
         kind: tool\nname: blob\ntype: sqlite-sql\nsource: db\ndescription: A blob.\n\
         statement: SELECT randomblob(?) AS b\nparameters: [{{name: n, type: integer, description: Bytes.}}]\n---\n\
         kind: tool\nname: rows\ntype: sqlite-sql\nsource: db\ndescription: Rows of blobs.\n\
         statement: WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ?) SELECT i, hex(randomblob(50000)) AS b FROM c\n\
         parameters: [{{name: n, type: integer, description: Rows.}}]\n---\n\
         kind: tool\nname: run\ntype: sqlite-execute-sql\nsource: db\ndescription: Runs SQL.\n",
        empty_database(tmp.path()).display()
    );
    let mut s = session_with(limited_registry());
    load(&mut s, &yaml);
    assert_at_limit(&invoke(&mut s, "blob", json!({"n": 900_000_000})), "randomblob(900000000)");
    assert_at_limit(&invoke(&mut s, "rows", json!({"n": 100_000})), "100000 rows of 100 kB");
    // A row of 400 values under the limit each is 360 MB: SQLite is not let build it.
    let out = invoke(&mut s, "run", json!({"sql": wide_row(400, 900_000)}));
    assert_at_limit(&out, "a row of 400 values of 900 kB");
    assert!(out.text.contains("over the columns of a row"), "{}", out.text);
    for sql in [
        "SELECT zeroblob(500000000) AS z",
        "SELECT 1; SELECT randomblob(300000000) AS b",
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT i, 'padding' AS p FROM c",
    ] {
        assert_at_limit(&invoke(&mut s, "run", json!({"sql": sql})), sql);
    }
    // Under the limit, whole.
    let out = invoke(&mut s, "rows", json!({"n": 5}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    let out = invoke(&mut s, "blob", json!({"n": 500_000}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
}

/// A statement whose one row has `columns` random blobs of `bytes` each.
fn wide_row(columns: usize, bytes: usize) -> String {
    let values: Vec<String> =
        (0..columns).map(|i| format!("randomblob({bytes}) AS c{i}")).collect();
    format!("SELECT {}", values.join(", "))
}

/// A loopback upstream answering every request with `bytes` bytes of `x`.
fn big_body_server(bytes: usize) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {bytes}\r\nConnection: close\r\n\r\n"
            );
            let _ = stream.write_all(head.as_bytes());
            let chunk = vec![b'x'; 64 * 1024];
            let mut left = bytes;
            while left > 0 {
                let n = left.min(chunk.len());
                if stream.write_all(&chunk[..n]).is_err() {
                    break;
                }
                left -= n;
            }
        }
    });
    port
}

/// HTTP: a body past the limit is read no further than it.
#[test]
fn http_bodies_stop_at_the_result_limit() {
    let yaml = |port: u16| {
        format!(
            "kind: source\nname: big\ntype: http\nbaseUrl: http://127.0.0.1:{port}\n---\n\
             kind: tool\nname: fetch\ntype: http\nsource: big\nmethod: GET\npath: /\ndescription: Fetches.\n"
        )
    };
    let mut s = session_with(limited_registry());
    load(&mut s, &yaml(big_body_server(300 << 20)));
    assert_at_limit(&invoke(&mut s, "fetch", json!({})), "a 300 MiB body");
    let mut s = session_with(limited_registry());
    load(&mut s, &yaml(big_body_server(500_000)));
    let out = invoke(&mut s, "fetch", json!({}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
}

/// PostgreSQL: rows stop at the first past the limit, and a single row much larger
/// than it is refused as it arrives (the socket stops taking it in), for
/// configured statements, the model's SQL and scripts; the source keeps working.
#[test]
fn postgres_result_bombs_stop_at_the_result_limit() {
    use crate::support::pg_server::{PASSWORD, server};
    server().database("result_bombs");
    let yaml = format!(
        "{}---\nkind: tool\nname: run\ntype: postgres-execute-sql\nsource: pg\ndescription: Runs SQL.\n---\n\
         kind: tool\nname: text\ntype: postgres-sql\nsource: pg\ndescription: Text.\n\
         statement: SELECT repeat('x', $1::int) AS s\nparameters: [{{name: n, type: integer, description: Length.}}]\n",
        server().source_yaml("pg", "result_bombs", "PG_PASSWORD", "")
    );
    let mut s = crate::sql_tools::session(limited_registry());
    crate::sql_tools::load_with_secret(&mut s, &yaml, "PG_PASSWORD", PASSWORD);
    let small = |s: &mut Session| {
        let out = invoke(s, "text", json!({"n": 3}));
        assert_eq!(out.envelope["data"], json!([{"s": "xxx"}]), "{}", out.text);
    };
    small(&mut s);
    assert_at_limit(&invoke(&mut s, "text", json!({"n": 200_000_000})), "one 200 MB row");
    small(&mut s);
    for sql in [
        "SELECT repeat('x', 100000) AS s FROM generate_series(1, 1000)",
        "SELECT decode(repeat('ab', 50000000), 'hex') AS b",
        "SELECT 1; SELECT repeat('x', 100000) AS s FROM generate_series(1, 1000)",
        "SELECT 1; SELECT repeat('x', 200000000) AS s",
    ] {
        assert_at_limit(&invoke(&mut s, "run", json!({"sql": sql})), sql);
        small(&mut s);
    }
}

/// MySQL (MariaDB): rows stop at the first past the limit (the statement is killed,
/// not read to its end), and a row larger than it is refused by its packet's size
/// as it arrives; the source keeps working.
#[test]
fn mysql_result_bombs_stop_at_the_result_limit() {
    use crate::support::mariadb_server::{PASSWORD, server};
    server().database("result_bombs");
    let yaml = format!(
        "{}---\nkind: tool\nname: run\ntype: mysql-execute-sql\nsource: my\ndescription: Runs SQL.\n---\n\
         kind: tool\nname: text\ntype: mysql-sql\nsource: my\ndescription: Text.\n\
         statement: SELECT REPEAT('x', ?) AS s\nparameters: [{{name: n, type: integer, description: Length.}}]\n",
        server().source_yaml("my", "result_bombs", "MY_PASSWORD", "")
    );
    let mut s = crate::sql_tools::session(limited_registry());
    crate::sql_tools::load_with_secret(&mut s, &yaml, "MY_PASSWORD", PASSWORD);
    let small = |s: &mut Session| {
        let out = invoke(s, "text", json!({"n": 3}));
        assert_eq!(out.envelope["data"], json!([{"s": "xxx"}]), "{}", out.text);
    };
    small(&mut s);
    assert_at_limit(&invoke(&mut s, "text", json!({"n": 8_000_000})), "one 8 MB row");
    small(&mut s);
    for sql in [
        "SELECT REPEAT('x', 100000) AS s FROM seq_1_to_100000",
        "SELECT REPEAT('x', 8000000) AS s",
        "SELECT 1; SELECT REPEAT('x', 100000) AS s FROM seq_1_to_100000",
    ] {
        assert_at_limit(&invoke(&mut s, "run", json!({"sql": sql})), sql);
        small(&mut s);
    }
}

/// What the kernel says `pid` has held resident at most (VmHWM), bytes.
fn peak_resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc status");
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

/// The server's memory stays near the limit whatever a statement returns: result
/// bombs of 400 MB through `filestore serve --tool-result-mib 1` (SQLite one value
/// and one row of 400 values, PostgreSQL, MariaDB) raise its peak resident memory
/// by a small fraction of that.
#[test]
fn result_bombs_leave_the_server_memory_near_the_limit() {
    use crate::support::{mariadb_server, pg_server};
    pg_server::server().database("memory_bombs");
    mariadb_server::server().database("memory_bombs");
    let tmp = tempfile::tempdir().unwrap();
    let run = |name: &str, source: &str, ty: &str| {
        format!(
            "---\nkind: tool\nname: {name}\ntype: {ty}\nsource: {source}\ndescription: Runs SQL.\n"
        )
    };
    let yaml = format!(
        "kind: source\nname: lite\ntype: sqlite\ndatabase: {}\n---\n{}---\n{}{}{}{}",
        empty_database(tmp.path()).display(),
        pg_server::server().source_yaml("pg", "memory_bombs", "PG_PASSWORD", ""),
        mariadb_server::server().source_yaml("my", "memory_bombs", "MY_PASSWORD", ""),
        run("lite_run", "lite", "sqlite-execute-sql"),
        run("pg_run", "pg", "postgres-execute-sql"),
        run("my_run", "my", "mysql-execute-sql"),
    );
    std::fs::write(tmp.path().join("tools.yaml"), yaml).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_filestore"));
    command
        .args(["serve", "--config", "tools.yaml", "--tool-result-mib", "1"])
        .args(["--mount", "/workspace=mem:"])
        .env("PG_PASSWORD", pg_server::PASSWORD)
        .env("MY_PASSWORD", mariadb_server::PASSWORD)
        .current_dir(tmp.path());
    let (mut client, _) = crate::support::mcp_stdio::McpStdio::start(command);
    // Each handler set up (pools, runtimes) before the peak is taken.
    for tool in ["lite_run", "pg_run", "my_run"] {
        let answer = client.call_tool(tool, json!({"sql": "SELECT 1 AS one"}));
        assert_ne!(answer["isError"], true, "{tool}: {answer}");
    }
    let before = peak_resident(client.pid());
    for (tool, sql) in [
        ("lite_run", "SELECT randomblob(400000000) AS b".to_string()),
        ("lite_run", wide_row(400, 1_000_000)),
        ("pg_run", "SELECT repeat('x', 400000000) AS s".to_string()),
        ("my_run", "SELECT REPEAT('x', 1000000) AS s FROM seq_1_to_400".to_string()),
    ] {
        let answer = client.call_tool(tool, json!({"sql": sql}));
        let text = answer.to_string();
        assert_eq!(answer["isError"], true, "{tool}: {text}");
        assert!(text.contains("tool result limit of 1 MiB"), "{tool}: {text}");
    }
    let grown = peak_resident(client.pid()).saturating_sub(before);
    eprintln!("400 MB result bombs: the server's peak resident memory grew by {} KiB", grown >> 10);
    assert!(grown < 64 << 20, "the peak grew by {} MiB for 400 MB bombs", grown >> 20);
    let (status, stderr) = client.close();
    assert!(status.success(), "{stderr}");
}

/// SQLite sources refuse the pragmas that make SQLite write files of its choosing
/// (a temp directory anywhere, a WAL journal beside the database, sticking to the
/// file), from the model's SQL and from configured statements; reading the journal
/// mode, or setting another, still works.
#[test]
fn sqlite_pragmas_that_write_files_elsewhere_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("shop.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch("CREATE TABLE items (id INTEGER)")
        .unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let mut s = prebuilt_sqlite_session(&db);
    for sql in [
        "PRAGMA journal_mode=WAL".to_string(),
        "PRAGMA main.journal_mode = 'wal'".to_string(),
        "SELECT 1; pragma JOURNAL_MODE = Wal".to_string(),
        format!("PRAGMA temp_store_directory = '{}'", outside.display()),
    ] {
        let out = invoke(&mut s, "execute_sql", json!({"sql": sql}));
        assert_eq!(out.status, InvokeStatus::Failed, "{sql}: {}", out.text);
        assert!(out.text.contains("not authorized"), "{sql}: {}", out.text);
    }
    let mode = |s: &mut Session| {
        let out = invoke(s, "execute_sql", json!({"sql": "PRAGMA journal_mode"}));
        out.envelope["data"][0]["journal_mode"].clone()
    };
    assert_eq!(mode(&mut s), "delete");
    let out = invoke(&mut s, "execute_sql", json!({"sql": "PRAGMA journal_mode = TRUNCATE"}));
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    let out = invoke(
        &mut s,
        "execute_sql",
        json!({"sql": "PRAGMA journal_mode = DELETE; INSERT INTO items VALUES (1)"}),
    );
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    assert_eq!(mode(&mut s), "delete");
    let beside: Vec<String> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("shop.db-"))
        .collect();
    assert!(beside.is_empty(), "files beside the database: {beside:?}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    // A configured statement is refused the same.
    let mut s = session_with(ToolRegistry::with_builtin_handlers());
    load(
        &mut s,
        &format!(
            "kind: source\nname: db\ntype: sqlite\ndatabase: {}\n---\nkind: tool\nname: wal\ntype: sqlite-sql\n\
             source: db\ndescription: Turns WAL on.\nstatement: PRAGMA journal_mode = WAL\n",
            db.display()
        ),
    );
    let out = invoke(&mut s, "wal", json!({}));
    assert!(out.text.contains("not authorized"), "{}", out.text);
}

/// A source field's `${VAR}` that is not set is reported with the file, document,
/// line and column where the field is written, by `check` and by `call --config`.
#[test]
fn unset_source_variables_are_located() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("tools.yaml");
    std::fs::write(
        &path,
        "kind: source\nname: db\ntype: sqlite\ndatabase: ${FILESTORE_TEST_UNSET_DIR}/app.db\n---\nkind: tool\nname: q\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT 1\n",
    )
    .unwrap();
    let file = path.to_str().unwrap();
    let want = format!(
        "{file}: document 1, line 4, column 11: source field 'db.database' references environment variable 'FILESTORE_TEST_UNSET_DIR', which is not set"
    );
    for args in [vec!["check", file], vec!["call", "q", "{}", "--config", file]] {
        let out = filestore().args(&args).env_remove("FILESTORE_TEST_UNSET_DIR").output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {err}");
        assert!(err.contains(&want), "{args:?}: {err}");
    }
}

/// An unset `${VAR}` that only a tool this host cannot run uses (through its source
/// of an unsupported type) is treated alike by `check` and by `call --config` (and
/// `serve`, which loads as `call` does): nothing runs it, so it stops neither; `check`
/// notes it, located. One a runnable tool uses stops all of them
/// (`unset_source_variables_are_located`).
#[test]
fn unset_variables_only_unrunnable_tools_use_stop_neither_check_nor_call() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("tools.yaml");
    std::fs::write(
        &path,
        "kind: source\nname: bq\ntype: bigquery\nproject: ${FILESTORE_TEST_UNSET_PROJECT}\n---\nkind: tool\nname: q\ntype: bigquery-sql\nsource: bq\ndescription: d\nstatement: SELECT 1\n",
    )
    .unwrap();
    let file = path.to_str().unwrap();
    let run = |args: &[&str]| {
        let out =
            filestore().args(args).env_remove("FILESTORE_TEST_UNSET_PROJECT").output().unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (ok, err) = run(&["check", file]);
    assert!(ok, "check refused what serve and call load: {err}");
    let note = format!(
        "warning: {file}: document 1, line 4, column 10: source field 'bq.project' references environment variable 'FILESTORE_TEST_UNSET_PROJECT', which is not set"
    );
    assert!(err.contains(&note) && err.contains("not needed here"), "{err}");
    let (ok, err) = run(&["call", "filestore_ls", r#"{"path":"/"}"#, "--config", file]);
    assert!(ok, "{err}");
}
