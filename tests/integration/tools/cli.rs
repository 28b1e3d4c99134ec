//! The `check`, `migrate` and `call --config` commands on configured tools: located
//! errors, unrunnable tools, outputs, approvals, timeouts and unset variables.

use super::*;

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
