//! `${VAR}` in configured tools: resolved in the host (the component never holds the
//! values), located when unset, substituted in names and descriptions, and resolved
//! only for the tools that run here.

use super::*;

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
