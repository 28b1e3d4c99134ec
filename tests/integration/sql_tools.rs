//! What the tests of the database tool handlers (`postgres`, `mysql`) share: a
//! session with a tool registry and the results mount, a configuration loaded with
//! one secret variable, and the outcome of an invocation read as data or failure.

use filestore::handlers::ShippedHandlers as _;
use std::sync::Arc;

use filestore::tools::{InvokeContext, InvokeOutcome, InvokeStatus, ToolRegistry, results_mount};
use filestore::{Session, SessionOptions};
use serde_json::Value;

use crate::common::engine;

/// A session with `registry`'s handlers and `/tool_calls`.
pub fn session(registry: ToolRegistry) -> Session {
    let options = SessionOptions { tools: Arc::new(registry), ..Default::default() };
    engine().session_with(vec![results_mount()], options).expect("session")
}

/// Loads `yaml` as `tools.yaml`, with the variable `secret_var` set to `secret`
/// (the database password) and no other.
pub fn load_with_secret(s: &mut Session, yaml: &str, secret_var: &str, secret: &str) {
    let files = vec![("tools.yaml".to_string(), yaml.to_string())];
    match s.load_config_with_env(&files, &|k| (k == secret_var).then(|| secret.to_string())) {
        Ok(Ok(_)) => {}
        Ok(Err(issues)) => panic!("config: {issues:?}"),
        Err(e) => panic!("load: {e}"),
    }
}

/// Invokes `tool` with `args` and no claims.
pub fn invoke(s: &mut Session, tool: &str, args: Value) -> InvokeOutcome {
    s.invoke(tool, &args, &InvokeContext::default()).expect("invoke")
}

/// The data of a completed invocation.
pub fn data(out: &InvokeOutcome) -> Value {
    assert_eq!(out.status, InvokeStatus::Completed, "{}", out.text);
    out.envelope["data"].clone()
}

/// The text of an invocation that did not complete.
pub fn failure(out: &InvokeOutcome) -> String {
    assert_ne!(out.status, InvokeStatus::Completed, "expected a failure: {}", out.text);
    out.text.clone()
}

/// What an attacker gives a template parameter quoted by `escape`: every quote and
/// bracket, backslash forms (which MySQL and MariaDB read as escapes unless
/// `NO_BACKSLASH_ESCAPES`, and PostgreSQL with `standard_conforming_strings` off),
/// comment sequences, multibyte characters (`縗` is GBK's 0xbf5c, whose second byte
/// is a backslash; read as GBK, the last byte of `中` in UTF-8 takes the backtick
/// after it as its second), NUL, the empty string, and the two attacks first seen
/// to read every row and another table on MariaDB.
pub const HOSTILE_VALUES: &[&str] = &[
    "",
    "plain",
    "O'Brien",
    "'",
    "''",
    "\"",
    "`",
    "]",
    "[x]",
    "\\",
    "trailing\\",
    "\\'",
    "\\\\'",
    "\\\"",
    "\\`",
    "\\\\",
    "' OR 1=1 -- ",
    "\\' OR 1=1 -- ",
    "\\' UNION SELECT secret FROM secrets -- ",
    "\\\\' OR 1=1 -- ",
    "\" OR 1=1 -- ",
    "\\\" OR 1=1 -- ",
    "` OR 1=1 -- ",
    "] OR 1=1 -- ",
    "x'; DELETE FROM people; --",
    "-- ",
    "#",
    "# x' OR 1=1",
    "/*",
    "*/",
    "/*! OR 1=1 */",
    "縗'",
    "縗\\' OR 1=1 -- ",
    "中` UNION SELECT secret FROM secrets -- ",
    "é'",
    "🦀'",
    "\u{0}",
    "a\u{0}' OR 1=1 -- ",
    "\n' OR 1=1\n",
    "$$",
    "$1",
    "?",
    "{{.v}}",
    "E'\\'' OR 1=1 -- ",
];

/// How a dialect reads the span an escape mode writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quoted {
    /// A string literal: `SELECT {{.v}} AS v` returns the value, and
    /// `WHERE name = {{.v}}` matches only a row of that name.
    Literal,
    /// An identifier: `SELECT 1 AS {{.v}}` returns a column named the value.
    Identifier,
}

/// One escape mode of a dialect under test.
pub struct EscapeCase {
    /// The `escape` value (`single-quotes`...).
    pub escape: &'static str,
    /// How the dialect reads what it writes.
    pub quoted: Quoted,
    /// For a value the component must refuse, a fragment of the reason; `None` for a
    /// value that must come back exactly.
    pub refuses: fn(&str) -> Option<&'static str>,
    /// The name the server gives a column aliased as the value (an identifier mode):
    /// the value itself, but MariaDB drops an alias's leading white space.
    pub column: fn(&str) -> String,
}

/// The tools of `cases` on `source` (of `tool_type`): `rt-<escape>` returns the value
/// (or a column named the value), and for literal modes `where-<escape>` selects the
/// rows of `people` whose name is the value.
pub fn escape_tools_yaml(tool_type: &str, source: &str, cases: &[EscapeCase]) -> String {
    let mut yaml = String::new();
    for c in cases {
        let template = format!(
            "templateParameters:\n  - {{name: v, type: string, escape: {}, description: v}}\n",
            c.escape
        );
        let mut tool = |name: &str, statement: &str| {
            yaml.push_str(&format!(
                "---\nkind: tool\nname: {name}-{}\ntype: {tool_type}\nsource: {source}\ndescription: d\nstatement: \"{statement}\"\n{template}",
                c.escape
            ));
        };
        match c.quoted {
            Quoted::Literal => {
                tool("rt", "SELECT {{.v}} AS v");
                tool("where", "SELECT name FROM people WHERE name = {{.v}} ORDER BY name");
            }
            Quoted::Identifier => tool("rt", "SELECT 1 AS {{.v}}"),
        }
    }
    yaml
}

/// Calls every tool of [`escape_tools_yaml`] with every [`HOSTILE_VALUES`] entry (and
/// `ann`, a name `people` has): each value comes back exactly and matches no other
/// row, or is refused as `invalid-argument` naming the parameter and saying why,
/// never a server error. `people` must hold the rows `ann` and `bob`. Panics listing
/// every case that went wrong, under `label`.
pub fn check_escapes(s: &mut Session, label: &str, cases: &[EscapeCase]) {
    let mut wrong = Vec::new();
    for c in cases {
        for &value in HOSTILE_VALUES.iter().chain(&["ann"]) {
            let refusal = (c.refuses)(value);
            let mut calls = vec![("rt", round_trip(c, value))];
            if c.quoted == Quoted::Literal {
                let rows = if value == "ann" {
                    serde_json::json!([{"name": "ann"}])
                } else {
                    serde_json::json!([])
                };
                calls.push(("where", rows));
            }
            for (tool, want) in calls {
                let name = format!("{tool}-{}", c.escape);
                let out = invoke(s, &name, serde_json::json!({ "v": value }));
                let problem = match (refusal, out.status == InvokeStatus::Completed) {
                    (None, true) if out.envelope["data"] == want => None,
                    (None, true) => {
                        Some(format!("returned {} instead of {want}", out.envelope["data"]))
                    }
                    (None, false) => Some(format!("failed: {}", out.text)),
                    (Some(_), true) => {
                        Some(format!("was not refused: returned {}", out.envelope["data"]))
                    }
                    (Some(why), false) => {
                        let clear = out.envelope["error"]["code"] == "invalid-argument"
                            && out.text.contains("parameter 'v'")
                            && out.text.contains(why)
                            && out.text.contains(c.escape);
                        (!clear)
                            .then(|| format!("was refused unclearly (want {why:?}): {}", out.text))
                    }
                };
                if let Some(problem) = problem {
                    wrong.push(format!("{label}: {name} with {value:?} {problem}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{} escape failures:\n{}", wrong.len(), wrong.join("\n"));
}

/// What `rt-<escape>` returns for `value`.
fn round_trip(c: &EscapeCase, value: &str) -> Value {
    match c.quoted {
        Quoted::Literal => serde_json::json!([{ "v": value }]),
        Quoted::Identifier => serde_json::json!([{ (c.column)(value): 1 }]),
    }
}

/// The column name of an alias that is `value` (see [`EscapeCase::column`]).
pub fn same(value: &str) -> String {
    value.to_string()
}

/// Template values quoted by each of SQLite's four escapes stay one literal or
/// identifier: the quote doubled in `'…'`, `"…"` and `` `…` ``; `[…]`, which nothing
/// escapes in SQLite, refuses a `]`; a NUL (where SQLite ends a statement) is
/// refused. Every hostile value comes back exactly or is refused clearly, never
/// another row or a syntax error.
#[test]
fn sqlite_template_escapes_hold() {
    fn nul(v: &str) -> Option<&'static str> {
        v.contains('\0').then_some("NUL")
    }
    fn brackets(v: &str) -> Option<&'static str> {
        nul(v).or(v.contains(']').then_some("contains ']'"))
    }
    let case = |escape, quoted, refuses: fn(&str) -> Option<&'static str>| EscapeCase {
        escape,
        quoted,
        refuses,
        column: same,
    };
    let cases = [
        case("single-quotes", Quoted::Literal, nul),
        case("double-quotes", Quoted::Identifier, nul),
        case("backticks", Quoted::Identifier, nul),
        case("square-brackets", Quoted::Identifier, brackets),
    ];
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("escapes.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "CREATE TABLE people (name TEXT); INSERT INTO people VALUES ('ann'), ('bob');
             CREATE TABLE secrets (secret TEXT); INSERT INTO secrets VALUES ('s3cret');",
        )
        .unwrap();
    let mut yaml = format!("kind: source\nname: lite\ntype: sqlite\ndatabase: {}\n", db.display());
    yaml.push_str(&escape_tools_yaml("sqlite-sql", "lite", &cases));
    let mut s = session(ToolRegistry::with_builtin_handlers());
    load_with_secret(&mut s, &yaml, "UNUSED", "");
    check_escapes(&mut s, "SQLite", &cases);
}

/// `filestore check` refuses an escape mode that is no quoting of the tool's SQL,
/// naming the file, the line and the modes that dialect has, as the server does at
/// start (both load the configuration the same way).
#[test]
fn check_refuses_an_escape_mode_the_dialect_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tools.yaml");
    std::fs::write(
        &file,
        "kind: source\nname: my\ntype: mysql\nhost: 127.0.0.1\nport: 3306\nuser: u\npassword: p\ndatabase: d\n\
         ---\nkind: source\nname: pg\ntype: postgres\nhost: 127.0.0.1\nport: 5432\nuser: u\npassword: p\ndatabase: d\n\
         ---\nkind: tool\nname: by_column\ntype: mysql-sql\nsource: my\ndescription: d\nstatement: SELECT {{.c}} FROM t\n\
         templateParameters:\n  - {name: c, type: string, description: c, escape: square-brackets}\n\
         ---\nkind: tool\nname: pg_column\ntype: postgres-sql\nsource: pg\ndescription: d\nstatement: SELECT {{.c}} FROM t\n\
         templateParameters:\n  - {name: c, type: string, description: c, escape: backticks}\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{text}");
    for want in [
        "tools.yaml: document 3, line 26, column 53: field 'templateParameters[0].escape': escape 'square-brackets' is not a quoting in MySQL/MariaDB, the SQL of this tool (its escapes: single-quotes, backticks)",
        "tools.yaml: document 4, line 35, column 53: field 'templateParameters[0].escape': escape 'backticks' is not a quoting in PostgreSQL, the SQL of this tool (its escapes: single-quotes, double-quotes)",
    ] {
        assert!(text.contains(want), "lacks {want:?}:\n{text}");
    }
}
