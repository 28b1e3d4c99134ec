//! Conformance tests of configuration loading: the Toolbox examples, v1 conversion,
//! mixed inputs, every kind of error with its location, manifests and calls of loaded
//! tools.
//!
//! It stays above 800 lines because each case is a configuration document with the
//! exact error it must give, located; split by kind they would share one fixture table
//! and a reader compares them side by side.

use serde_json::json;

use super::*;
use crate::tools::manifest;
use crate::tools::params::{ParamType, VerifiedClaims};

/// The examples verbatim from Toolbox's documentation. Some declare parameters their
/// statements never bind (which Toolbox's drivers refuse when the tool is called):
/// [`upstream_examples_declare_parameters_their_statements_never_bind`] shows them
/// refused at load; the other tests use them with the statements made to match.
const V2_VERBATIM: &str = include_str!("../../../tests-data/toolbox-v2-example.yaml");
const V1_VERBATIM: &str = include_str!("../../../tests-data/toolbox-v1-example.yaml");
const PARAMS_VERBATIM: &str = include_str!("../../../tests-data/toolbox-parameters-example.yaml");
const UNBOUND_STATEMENT: &str = "SELECT * FROM SQL_STATEMENT;";
const BOUND_STATEMENT: &str = "SELECT * FROM t WHERE country = $1;";
const UNBOUND_AIRLINES: &str = "ANY($1);";
const BOUND_AIRLINES: &str = "ANY($1) AND $2::jsonb IS NOT NULL AND $3::jsonb IS NOT NULL;";

static V2_EXAMPLE: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| V2_VERBATIM.replace(UNBOUND_STATEMENT, BOUND_STATEMENT));
static V1_EXAMPLE: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| V1_VERBATIM.replace(UNBOUND_STATEMENT, BOUND_STATEMENT));
static PARAMS_EXAMPLE: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| PARAMS_VERBATIM.replace(UNBOUND_AIRLINES, BOUND_AIRLINES));

#[test]
fn upstream_examples_declare_parameters_their_statements_never_bind() {
    for (text, tool, param) in [
        (V2_VERBATIM, "example_tool", "country"),
        (V1_VERBATIM, "example_tool", "country"),
        (PARAMS_VERBATIM, "search_preferred_airlines", "execution_context"),
    ] {
        let errs = errors(&[("tools.yaml", text)]);
        assert_eq!(errs.len(), 1, "{errs:?}");
        let e = &errs[0];
        assert_eq!(
            (e.kind, e.field.as_deref()),
            (ConfigErrorKind::InvalidTemplate, Some("statement"))
        );
        assert!(e.message.contains(&format!("tool '{tool}': parameter '{param}'")), "{e}");
    }
}
const RUNNABLE: &str = include_str!("../../../tests-data/runnable.yaml");

fn load1(text: &str) -> std::result::Result<Config, Vec<ConfigError>> {
    Config::load(&[("tools.yaml", text)])
}

fn errors(files: &[(&str, &str)]) -> Vec<ConfigError> {
    match Config::load(files) {
        Ok(_) => panic!("configuration loaded without errors"),
        Err(e) => e,
    }
}

#[test]
fn seed_v2_example_loads_and_postgres_is_not_runnable() {
    let cfg = load1(&V2_EXAMPLE).unwrap();
    assert_eq!(cfg.sources().len(), 1);
    assert_eq!(cfg.sources()[0].source_type, "cloud-sql-postgres");
    assert_eq!(cfg.sources()[0].fields["password"], "my_pass");
    assert_eq!(cfg.auth_services()[0].fields["clientId"], "testing-id");
    let names: Vec<&str> = cfg.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["example_tool", "example_tool_2"]);
    let t = cfg.tool("example_tool").unwrap();
    assert_eq!(t.tool_type, "postgres-sql");
    assert_eq!(t.statement.as_deref(), Some(BOUND_STATEMENT));
    assert_eq!(t.parameters[0].name, "country");
    assert_eq!(
        t.location,
        Location { file: "tools.yaml".into(), document: 3, line: 18, column: 7 }
    );
    let set: Vec<&str> =
        cfg.toolset("example_toolset").unwrap().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(set, ["example_tool"]);

    let report = cfg.check_report();
    assert_eq!(report.not_runnable().count(), 2);
    let text = report.to_string();
    assert!(text.starts_with("ok: 1 source, 1 auth service, 2 tools, 1 toolset\n"), "{text}");
    assert!(
        text.contains("tool 'example_tool' (postgres-sql): valid, but not runnable by this host: its source 'my-pg-instance' is a cloud-sql-postgres source, which this host reaches only at a direct `host` (and `port`): it has no Cloud SQL or AlloyDB connector for project/region/instance [tools.yaml: document 3,"),
        "{text}"
    );
    // The types this host runs are pointed to once, not repeated per tool.
    assert_eq!(text.matches("docs/configured-tools.md").count(), 1, "{text}");
    assert!(!text.contains("sqlite-sql on sqlite"), "{text}");
}

/// The other sources of the PostgreSQL and MySQL wire families run their Toolbox
/// tool types; a Cloud SQL source runs once it names a direct host; a prebuilt type
/// without `description` gets Toolbox's text.
#[test]
fn wire_family_sources_run_and_prebuilt_types_get_toolbox_descriptions() {
    let src = |name: &str, ty: &str, extra: &str| {
        format!(
            "---\nkind: source\nname: {name}\ntype: {ty}\nhost: h\nport: '1'\nuser: u\npassword: p\ndatabase: d\n{extra}"
        )
    };
    let tool = |name: &str, ty: &str, source: &str, rest: &str| {
        format!("---\nkind: tool\nname: {name}\ntype: {ty}\nsource: {source}\n{rest}")
    };
    let sql = "description: d\nstatement: SELECT 1\n";
    let yaml = [
        src("crdb", "cockroachdb", "enableWriteMode: true\nmaxRowLimit: 10\n"),
        src("yb", "yugabytedb", "loadBalance: 'true'\ntopologyKeys: cloud.region.zone1\n"),
        src("maria", "mariadb", ""),
        src("ti", "tidb", "ssl: true\n"),
        "---\nkind: source\nname: cs\ntype: cloud-sql-postgres\nproject: p\nregion: r\ninstance: i\ndatabase: d\nhost: 127.0.0.1\n".to_string(),
        tool("a", "cockroachdb-sql", "crdb", sql),
        tool("b", "cockroachdb-execute-sql", "crdb", "description: d\n"),
        tool("c", "yugabytedb-sql", "yb", sql),
        tool("d", "mysql-sql", "maria", "description: d\nstatement: SELECT ?\nparameters:\n  - {name: x, type: string, description: x}\n"),
        tool("e", "tidb-sql", "ti", sql),
        tool("f", "tidb-execute-sql", "ti", "description: d\n"),
        tool("g", "postgres-sql", "cs", sql),
        tool("h", "postgres-list-tables", "cs", ""),
        tool("i", "mysql-list-tables", "maria", ""),
    ]
    .concat();
    let cfg = Config::load(&[("t.yaml", yaml.trim_start_matches("---\n"))]).unwrap();
    for t in cfg.tools() {
        assert!(cfg.is_runnable(t), "{}: {:?}", t.name, cfg.check_report());
    }
    assert!(cfg.tool("h").unwrap().description.starts_with("Lists detailed schema information"));
    assert!(cfg.tool("i").unwrap().description.starts_with("Lists detailed schema information"));
    // MySQL's `?` in a tidb-sql statement is checked as MySQL's.
    let errs = Config::load(&[(
        "t.yaml",
        [
            src("ti", "tidb", ""),
            tool("e", "tidb-sql", "ti", "description: d\nstatement: SELECT ?\n"),
        ]
        .concat()
        .trim_start_matches("---\n"),
    )])
    .unwrap_err();
    assert!(errs[0].to_string().contains("statement"), "{errs:?}");
    // A tool type of one family on a source of another is refused at load.
    let errs = Config::load(&[(
        "t.yaml",
        [src("ti", "tidb", ""), tool("a", "cockroachdb-sql", "ti", sql)]
            .concat()
            .trim_start_matches("---\n"),
    )])
    .unwrap_err();
    assert!(
        errs[0].to_string().contains(
            "tool 'a' of type cockroachdb-sql needs a source of type cockroachdb; 'ti' is tidb"
        ),
        "{errs:?}"
    );
    // Toolbox's field names: YugabyteDB has no queryParams, TiDB's TLS switch is `ssl`.
    let errs = Config::load(&[(
        "t.yaml",
        src("yb", "yugabytedb", "queryParams: {sslmode: require}\n").trim_start_matches("---\n"),
    )])
    .unwrap_err();
    assert!(errs[0].to_string().contains("queryParams"), "{errs:?}");
}

#[test]
fn parameter_reference_examples_load() {
    let cfg = load1(&PARAMS_EXAMPLE).unwrap();
    assert_eq!(cfg.tools().len(), 5);
    // Every tool is postgres-sql on a `postgres` source: runnable here.
    assert!(cfg.tools().iter().all(|t| cfg.is_runnable(t)));
    let t = cfg.tool("search_preferred_airlines").unwrap();
    assert_eq!(t.parameters[0].items.as_ref().unwrap().param_type, ParamType::String);
    assert_eq!(t.parameters[2].value_type, Some(ParamType::Integer));
    let t = cfg.tool("search_flights_by_user_id").unwrap();
    assert_eq!(t.parameters[0].auth_services[0].service, "my-google-auth");
    assert_eq!(
        cfg.tool("search_all_flight").unwrap().auth_required,
        ["my-google-auth", "other-auth-service"]
    );
    // Source secrets stay unresolved and out of manifests.
    assert_eq!(cfg.source("my-pg-instance").unwrap().fields["password"], "${DB_PASSWORD}");
    let specs = manifest::specs(&cfg, None).unwrap();
    assert!(
        !serde_json::to_string(&specs.iter().map(|s| s.to_json()).collect::<Vec<_>>())
            .unwrap()
            .contains("DB_PASSWORD")
    );
}

#[test]
fn calls_of_loaded_tools() {
    let cfg = load1(&PARAMS_EXAMPLE).unwrap();
    let none = VerifiedClaims::new();
    let t = cfg.tool("select_columns_from_table").unwrap();
    let call = t
        .validate_call(&json!({"tableName": "flights", "columnNames": ["id", "na\"me"]}), &none)
        .unwrap();
    assert_eq!(call.statement.as_deref(), Some("SELECT \"id\", \"na\"\"me\" FROM flights\n"));
    let e = t
        .validate_call(&json!({"tableName": "flights; DROP TABLE x", "columnNames": []}), &none)
        .unwrap_err();
    assert!(e.message().starts_with("parameter 'tableName': value"), "{}", e.message());

    let t = cfg.tool("search_flights_by_user_id").unwrap();
    let claims = VerifiedClaims::new().with("my-google-auth", json!({"sub": "u-42"}));
    let call = t.validate_call(&json!({"user_id": "someone-else"}), &claims).unwrap();
    assert_eq!(call.args.positional(), vec![json!("u-42")]);

    let t = cfg.tool("search_all_flight").unwrap();
    let e = t.validate_call(&json!({}), &none).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unauthorized);
    let ok = VerifiedClaims::new().with("other-auth-service", json!({}));
    assert_eq!(
        t.validate_call(&json!({}), &ok).unwrap().statement.as_deref(),
        Some("SELECT * FROM flights\n")
    );

    let t = cfg.tool("search_preferred_airlines").unwrap();
    let call = t
        .validate_call(&json!({"preferred_airlines": ["DL"], "execution_context": {"a": 1}}), &none)
        .unwrap();
    assert_eq!(call.args.positional(), vec![json!(["DL"]), json!({"a": 1}), json!(null)]);
    let e = t
        .validate_call(&json!({"preferred_airlines": [], "user_scores": {"bob": "high"}}), &none)
        .unwrap_err();
    assert_eq!(
        e.message(),
        "parameter 'user_scores': key 'bob': expected integer, got string \"high\""
    );
}

#[test]
fn runnable_tools_and_manifests() {
    let cfg = load1(RUNNABLE).unwrap();
    assert!(cfg.tools().iter().all(|t| cfg.is_runnable(t)));
    assert_eq!(cfg.check_report().not_runnable().count(), 0);
    let http = cfg.tool("search_api").unwrap();
    assert_eq!(http.fields["method"], "GET");
    assert_eq!(http.fields["path"], "/{{.section}}/search");
    let spec = manifest::spec(http);
    assert_eq!(
        spec.input_schema,
        json!({"type": "object", "properties": {
            "q": {"type": "string", "description": "What to search for."},
            "limit": {"type": "integer", "description": "How many results.", "default": 10, "maximum": 100},
            "X-Trace": {"type": "string", "description": "A trace id."},
            "section": {"type": "string", "description": "Where to search.", "enum": ["docs", "blog"]},
        }, "required": ["q", "section"], "additionalProperties": false})
    );
    let del = manifest::spec(cfg.tool("delete_user").unwrap());
    assert!(del.annotations.requires_approval && del.annotations.is_destructive());
    assert_eq!(manifest::spec(cfg.tool("find_user").unwrap()).annotations.read_only, Some(true));

    let readers: Vec<String> =
        manifest::specs(&cfg, Some("readers")).unwrap().into_iter().map(|s| s.name).collect();
    assert_eq!(readers, ["find_user", "search_api"]);
    assert_eq!(manifest::specs(&cfg, None).unwrap().len(), 3);
    let e = cfg.toolset("writers").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert_eq!(e.message(), "unknown toolset 'writers' (defined: readers)");
    assert!(manifest::specs(&cfg, Some("writers")).is_err());

    let call =
        http.validate_call(&json!({"section": "docs", "q": "x"}), &VerifiedClaims::new()).unwrap();
    assert_eq!(
        call.args.with_role(crate::tools::params::ParamRole::Query),
        json!({"q": "x", "limit": 10}).as_object().unwrap().clone()
    );
    assert_eq!(call.statement, None);
    assert_eq!(call.path.as_deref(), Some("/docs/search"));
    assert_eq!(http.document["kind"], "tool");
    assert_eq!(http.document["method"], "get");
    let keys: Vec<&String> = http.document.keys().take(4).collect();
    assert_eq!(keys, ["kind", "name", "type", "source"]);
    let sqlite = cfg.tool("find_user").unwrap();
    let call = sqlite.validate_call(&json!({"id": 7}), &VerifiedClaims::new()).unwrap();
    assert_eq!(call.path, None);
    assert_eq!(call.statement.as_deref(), Some("SELECT * FROM users WHERE id = ?;"));
    assert_eq!(call.args.positional(), vec![json!(7)]);
    let e = sqlite.validate_call(&json!({"id": 0}), &VerifiedClaims::new()).unwrap_err();
    assert_eq!(e.message(), "parameter 'id': value 0 is less than the minimum 1");
}

#[test]
fn http_path_values_are_percent_encoded() {
    let text = "kind: source\nname: api\ntype: http\nbaseUrl: https://x\n---\n\
        kind: tool\nname: t\ntype: http\nsource: api\ndescription: d\nmethod: GET\n\
        path: /users/{{.id}}/posts\npathParams:\n  - {name: id, type: string, description: x}\n";
    let cfg = load1(text).unwrap();
    let call = cfg
        .tool("t")
        .unwrap()
        .validate_call(&json!({"id": "../admin"}), &VerifiedClaims::new())
        .unwrap();
    assert_eq!(call.path.as_deref(), Some("/users/%2E%2E%2Fadmin/posts"));
}

#[test]
fn v1_converts_to_the_same_v2_preserving_order() {
    let v1 = load1(&V1_EXAMPLE).unwrap();
    let v2 = load1(&V2_EXAMPLE).unwrap();
    let migrated = v1.to_v2_yaml();
    assert_eq!(migrated, v2.to_v2_yaml());
    let expected = "\
kind: source
name: my-pg-instance
type: cloud-sql-postgres
project: my-project
region: my-region
instance: my-instance
database: my_db
user: my_user
password: my_pass
---
kind: authService
name: my-google-auth
type: google
clientId: testing-id
---
kind: tool
name: example_tool
type: postgres-sql
source: my-pg-instance
description: some description
statement: SELECT * FROM t WHERE country = $1;
parameters:
  - name: country
    type: string
    description: some description
---
kind: tool
name: example_tool_2
type: postgres-sql
source: my-pg-instance
description: returning the number one
statement: SELECT 1;
---
kind: toolset
name: example_toolset
tools:
  - example_tool
";
    assert_eq!(migrated, expected);
    // The migrated file loads to the same resources.
    let again = load1(&migrated).unwrap();
    assert_eq!(again.to_v2_yaml(), migrated);
    assert_eq!(
        again.sources(),
        v1.sources()
            .iter()
            .map(|s| SourceConfig {
                location: again.sources()[0].location.clone(),
                field_locations: again.sources()[0].field_locations.clone(),
                ..s.clone()
            })
            .collect::<Vec<_>>()
    );
    // v1 locations point into the v1 file.
    assert_eq!(
        v1.tool("example_tool_2").unwrap().location,
        Location { file: "tools.yaml".into(), document: 1, line: 25, column: 3 }
    );
}

#[test]
fn migrate_keeps_multiline_statements_and_order() {
    let cfg = load1(&PARAMS_EXAMPLE).unwrap();
    let text = cfg.to_v2_yaml();
    let again = load1(&text).unwrap();
    assert_eq!(again.to_v2_yaml(), text);
    assert_eq!(
        again.tool("search_flights_by_number").unwrap().statement,
        cfg.tool("search_flights_by_number").unwrap().statement
    );
    let names: Vec<&str> = again.tools().iter().map(|t| t.name.as_str()).collect();
    let before: Vec<&str> = cfg.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, before);
}

#[test]
fn mixed_v1_and_v2_inputs() {
    // Across files: v1 sources, v2 tools referring to them.
    let v1 = "sources:\n  db:\n    kind: sqlite\n    database: a.db\n";
    let v2 =
        "kind: tool\nname: q\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT 1\n";
    let cfg = Config::load(&[("a.yaml", v1), ("b.yaml", v2)]).unwrap();
    assert!(cfg.is_runnable(cfg.tool("q").unwrap()));
    // Within one stream.
    let cfg = load1(&format!("{v1}---\n{v2}---\nkind: toolset\nname: all\ntools: [q]\n")).unwrap();
    assert_eq!(cfg.toolset("all").unwrap().len(), 1);
    assert_eq!(cfg.tool("q").unwrap().location.document, 2);
    // JSON, too.
    let json = r#"{"kind": "source", "name": "db", "type": "sqlite", "database": "a.db"}"#;
    let cfg = Config::load(&[("db.json", json), ("b.yaml", v2)]).unwrap();
    assert_eq!(cfg.sources()[0].name, "db");
    let json_v1 =
        r#"{"sources": {"db": {"kind": "sqlite", "database": "a.db"}}, "toolsets": {"s": ["q"]}}"#;
    assert!(Config::load(&[("db.json", json_v1), ("b.yaml", v2)]).is_ok());
    // A v1 toolset written as a mapping (Toolbox accepts it), and its errors checked
    // as a v2 toolset's.
    let mapped = format!("{v1}toolsets:\n  s:\n    tools: [q]\n");
    let cfg = Config::load(&[("a.yaml", mapped.as_str()), ("b.yaml", v2)]).unwrap();
    assert_eq!(cfg.toolset("s").unwrap().len(), 1);
    let bad = format!("{v1}toolsets:\n  s:\n    tool: [q]\n");
    let e = Config::load(&[("a.yaml", bad.as_str()), ("b.yaml", v2)]).unwrap_err();
    assert!(e.iter().any(|e| e.message.contains("no 'tools' list")), "{e:?}");
    // Empty documents and files are fine.
    assert_eq!(load1("").unwrap().tools().len(), 0);
    assert_eq!(load1("---\n---\n").unwrap().tools().len(), 0);
}

/// One expected error: kind, file, document, line, column, field, message fragment.
type Want =
    (ConfigErrorKind, &'static str, usize, usize, usize, Option<&'static str>, &'static str);

macro_rules! config_errors {
    ($($case:ident: [$($file:expr => $text:expr),+] => [$($want:expr),+ $(,)?];)*) => {$(
        #[test]
        fn $case() {
            let got = errors(&[$(($file, $text)),+]);
            let want: Vec<Want> = vec![$($want),+];
            // `DUMP=1 cargo test ...` prints the errors, to write the expectations.
            if std::env::var("DUMP").is_ok() { for g in &got { eprintln!("{g}"); } }
            assert_eq!(got.len(), want.len(), "errors: {got:#?}");
            for (g, w) in got.iter().zip(&want) {
                let (kind, file, document, line, column, field, fragment) = *w;
                assert_eq!(g.kind, kind, "{g}");
                assert_eq!(
                    (g.location.file.as_str(), g.location.document, g.location.line, g.location.column),
                    (file, document, line, column),
                    "{g}"
                );
                assert_eq!(g.field.as_deref(), field, "{g}");
                assert!(g.message.contains(fragment), "{g:?} lacks {fragment:?}");
            }
        }
    )*};
}

const SRC: &str = "kind: source\nname: db\ntype: sqlite\ndatabase: a.db\n";
const PG_SRC: &str = "kind: source\nname: db\ntype: postgres\nhost: h\nport: 5432\nuser: u\npassword: p\ndatabase: d\n";
const MY_SRC: &str =
    "kind: source\nname: db\ntype: mysql\nhost: h\nport: 3306\nuser: u\npassword: p\ndatabase: d\n";
const HTTP_SRC: &str = "kind: source\nname: api\ntype: http\nbaseUrl: https://x\n";

use ConfigErrorKind as E;

config_errors! {
    unknown_kind: ["t.yaml" => "kind: widget\nname: x\n"] =>
        [(E::UnknownKind, "t.yaml", 1, 1, 7, Some("kind"), "unknown kind 'widget' (expected source, authService, tool, toolset, prompt or embeddingModel")];
    missing_name: ["t.yaml" => "kind: sources\ntype: sqlite\ndatabase: a\n"] =>
        [(E::MissingField, "t.yaml", 1, 1, 1, Some("name"), "source has no 'name'")];
    missing_type: ["t.yaml" => "a: 1\n---\nkind: sources\nname: db\n"] =>
        [(E::InvalidDocument, "t.yaml", 1, 1, 1, None, "no 'kind' (v2) and none of the v1 sections"),
         (E::MissingField, "t.yaml", 2, 3, 1, Some("type"), "source 'db' has no 'type'")];
    duplicate_in_file: ["t.yaml" => &format!("{SRC}---\n{SRC}")] =>
        [(E::DuplicateName, "t.yaml", 2, 7, 7, Some("name"), "duplicate source name 'db' (first defined at t.yaml: document 1, line 2, column 7)")];
    duplicate_across_files: ["a.yaml" => SRC, "b.yaml" => "sources:\n  db:\n    kind: sqlite\n    database: b.db\n"] =>
        [(E::DuplicateName, "b.yaml", 1, 2, 3, Some("name"), "duplicate source name 'db' (first defined at a.yaml")];
    same_name_in_different_kinds_is_fine_but_tools_clash: ["t.yaml" => &format!("{SRC}---\nkind: toolset\nname: db\ntools: []\n---\nkind: toolset\nname: db\ntools: []\n")] =>
        [(E::DuplicateName, "t.yaml", 3, 11, 7, Some("name"), "duplicate toolset name 'db'")];
    placeholder_beyond_declared_names_its_line: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nparameters:\n  - {{name: a, type: string, description: x}}\nstatement: |\n  SELECT *\n  FROM t WHERE a = $1\n    AND b = $2\n")] =>
        [(E::InvalidTemplate, "t.yaml", 2, 16, 13, Some("statement"), "tool 't': placeholder $2 binds parameter 2 but the tool declares 1 parameter(s)")];
    placeholder_gap_is_refused: ["t.yaml" => &format!("{PG_SRC}---\nkind: tool\nname: t\ntype: postgres-sql\nsource: db\ndescription: d\nparameters:\n  - {{name: a, type: string, description: x}}\n  - {{name: b, type: string, description: x}}\nstatement: SELECT $2, $2\n")] =>
        [(E::InvalidTemplate, "t.yaml", 2, 18, 12, Some("statement"), "parameter 'a' (number 1 in declared order) is bound by no placeholder")];
    tool_names_missing_source: ["t.yaml" => "kind: tool\nname: t\ntype: sqlite-sql\nsource: nope\ndescription: d\nstatement: S\n"] =>
        [(E::MissingSource, "t.yaml", 1, 4, 9, Some("source"), "tool 't' names source 'nope', which is not defined")];
    toolset_names_missing_tool: ["t.yaml" => "kind: toolset\nname: s\ntools:\n  - a\n  - b\n---\nkind: tool\nname: a\ntype: custom\ndescription: d\n"] =>
        [(E::MissingTool, "t.yaml", 1, 5, 5, Some("tools[1]"), "toolset 's' names tool 'b', which is not defined")];
    group_names_missing_tool: ["t.yaml" => "kind: group\nname: g\ndescription: d\ntools: [nope]\n"] =>
        [(E::MissingTool, "t.yaml", 1, 4, 9, Some("tools[0]"), "group 'g' names tool 'nope', which is not defined")];
    groups_and_toolsets_share_names: ["t.yaml" => "kind: tool\nname: a\ntype: custom\ndescription: d\n---\nkind: toolset\nname: s\ntools: [a]\n---\nkind: group\nname: s\ntools: [a]\n"] =>
        [(E::DuplicateName, "t.yaml", 3, 11, 7, Some("name"), "duplicate group name 's' (first defined at t.yaml: document 2, line 7, column 7) (toolsets and groups share names, as in Toolbox)")];
    group_members_other_than_tools_refused: ["t.yaml" => "kind: group\nname: g\nprompts: [p]\nresources: [r]\nresourceTemplates: [t]\ntools: []\nskills: x\n"] =>
        [(E::Unsupported, "t.yaml", 1, 3, 1, Some("prompts"), "group 'g': a group's prompts ('prompts', Toolbox 1.12) are not supported by filestore"),
         (E::Unsupported, "t.yaml", 1, 4, 1, Some("resources"), "a group's resources"),
         (E::Unsupported, "t.yaml", 1, 5, 1, Some("resourceTemplates"), "a group's resource templates"),
         (E::UnknownField, "t.yaml", 1, 7, 1, Some("skills"), "unknown field 'skills' of group 'g'")];
    nameless_group_refused: ["t.yaml" => "kind: group\ndescription: every tool\n"] =>
        [(E::MissingField, "t.yaml", 1, 1, 1, Some("tools"), "group '<unnamed>' has no 'tools' list"),
         (E::MissingField, "t.yaml", 1, 1, 1, Some("name"), "group has no 'name' (a nameless group, Toolbox's description of the default group, is not supported)")];
    postgres_source_has_no_auto_discover: ["t.yaml" => &format!("{PG_SRC}autoDiscover: {{}}\n")] =>
        [(E::UnknownField, "t.yaml", 1, 9, 1, Some("autoDiscover"), "unknown field 'autoDiscover' of source 'db'")];
    groups_have_no_plural: ["t.yaml" => "kind: groups\nname: g\ntools: []\n"] =>
        [(E::UnknownKind, "t.yaml", 1, 1, 7, Some("kind"), "unknown kind 'groups'")];
    invalid_tool_names: ["t.yaml" => &format!("kind: tool\nname: bad name\ntype: x\ndescription: d\n---\nkind: tool\nname: {}\ntype: x\ndescription: d\n---\nkind: tool\nname: ''\ntype: x\ndescription: d\n", "a".repeat(129))] =>
        [(E::InvalidName, "t.yaml", 1, 2, 7, Some("name"), "invalid tool name 'bad name': use 1 to 128 of the characters"),
         (E::InvalidName, "t.yaml", 2, 7, 7, Some("name"), "invalid tool name"),
         (E::InvalidName, "t.yaml", 3, 12, 7, Some("name"), "invalid tool name ''")];
    name_of_128_is_fine: ["t.yaml" => &format!("kind: tool\nname: {}\ntype: x\ndescription: d\n---\nkind: tool\nname: x\n", "a".repeat(128))] =>
        [(E::MissingField, "t.yaml", 2, 6, 1, Some("type"), "tool 'x' has no 'type'"),
         (E::MissingField, "t.yaml", 2, 6, 1, Some("description"), "tool 'x' has no 'description'")];
    unknown_tool_field: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescripton: d\nstatement: S\n")] =>
        [(E::MissingField, "t.yaml", 2, 6, 1, Some("description"), "tool 't' has no 'description'"),
         (E::UnknownField, "t.yaml", 2, 10, 1, Some("descripton"), "unknown field 'descripton' of tool 't'")];
    unknown_parameter_field: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: S\nparameters:\n  - name: a\n    type: string\n    requird: false\n    description: x\n")] =>
        [(E::UnknownField, "t.yaml", 2, 15, 5, Some("parameters[0].requird"), "unknown field 'requird' of parameter 'a'")];
    unknown_toolset_and_source_fields: ["t.yaml" => "kind: toolset\nname: s\ntype: x\ntools: []\n---\nkind: source\nname: db\ntype: sqlite\ndatabase: a\npath: b\n"] =>
        [(E::UnknownField, "t.yaml", 1, 3, 1, Some("type"), "unknown field 'type' of toolset 's'"),
         (E::UnknownField, "t.yaml", 2, 10, 1, Some("path"), "unknown field 'path' of source 'db'")];
    unknown_types_keep_their_fields: ["t.yaml" => "kind: tool\nname: t\ntype: bigquery-list-datasets\ndescription: d\nsource: bq\nprojectId: p\n"] =>
        [(E::MissingSource, "t.yaml", 1, 5, 9, Some("source"), "names source 'bq'")];
    syntax_error_names_document: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: [a\n")] =>
        [(E::Syntax, "t.yaml", 2, 8, 1, None, "invalid yaml")];
    yaml_duplicate_key: ["t.yaml" => "kind: tool\nname: a\nname: b\n"] =>
        [(E::Syntax, "t.yaml", 1, 3, 1, None, "duplicated key")];
    document_not_a_mapping: ["t.yaml" => "- a\n- b\n"] =>
        [(E::InvalidDocument, "t.yaml", 1, 1, 1, None, "a document must be a mapping, got a sequence")];
    v1_unknown_section_and_bad_entries: ["t.yaml" => "sources:\n  db:\n    kind: sqlite\n    type: sqlite\nwidgets: {}\ntoolsets:\n  s: a\ntools:\n  t:\n    name: t\n"] =>
        [(E::InvalidValue, "t.yaml", 1, 3, 5, Some("sources.db"), "not both 'kind' and 'type'"),
         (E::UnknownField, "t.yaml", 1, 5, 1, Some("widgets"), "unknown v1 section 'widgets'"),
         (E::InvalidValue, "t.yaml", 1, 7, 6, Some("toolsets.s"), "expected a list of tool names (or a mapping with 'tools'), got a string"),
         (E::UnknownField, "t.yaml", 1, 10, 5, Some("tools.t.name"), "a v1 entry is named by its key")];
    bad_parameters: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: S\nparameters:
  - {{name: a, type: strng, description: x}}
  - {{name: b, type: array, description: x}}
  - {{name: c, type: integer, escape: backticks, description: x}}
  - {{name: d, type: string, minValue: 1, description: x}}
  - {{name: e, type: integer, default: 1.5, description: x}}
  - {{name: 'f g', type: string, description: x}}
  - {{name: h, type: string, valueType: integer, description: x}}
  - {{name: i, type: map, valueType: array, description: x}}
  - {{name: j, type: string, escape: quotes, description: x}}
  - {{name: k, type: integer, minValue: 5, maxValue: 1, description: x}}
  - {{type: string, description: x}}
  - {{name: l, type: string, items: {{type: string, description: y}}, description: x}}
  - {{name: m, type: integer, default: 7, allowedValues: [1, 2], description: x}}
  - just-a-string
")] =>
        [(E::InvalidValue, "t.yaml", 2, 13, 21, Some("parameters[0].type"), "unknown parameter type 'strng'"),
         (E::MissingField, "t.yaml", 2, 14, 5, Some("parameters[1].items"), "array parameter 'b' needs 'items'"),
         (E::InvalidValue, "t.yaml", 2, 15, 38, Some("parameters[2].escape"), "'escape' applies to template parameters (templateParameters)"),
         (E::InvalidValue, "t.yaml", 2, 16, 29, Some("parameters[3].minValue"), "'minValue' applies to integer and float parameters"),
         (E::InvalidValue, "t.yaml", 2, 17, 39, Some("parameters[4].default"), "default of 'e' is invalid: expected integer, got number 1.5"),
         (E::InvalidName, "t.yaml", 2, 18, 12, Some("parameters[5].name"), "invalid parameter name 'f g'"),
         (E::InvalidValue, "t.yaml", 2, 19, 40, Some("parameters[6].valueType"), "'valueType' applies to map parameters"),
         (E::InvalidValue, "t.yaml", 2, 20, 37, Some("parameters[7].valueType"), "unknown value type 'array'"),
         (E::InvalidValue, "t.yaml", 2, 21, 37, Some("parameters[8].escape"), "unknown escape 'quotes'"),
         (E::InvalidValue, "t.yaml", 2, 22, 5, Some("parameters[9].minValue"), "minValue 5 is greater than maxValue 1"),
         (E::MissingField, "t.yaml", 2, 23, 5, Some("parameters[10].name"), "has no 'name'"),
         (E::InvalidValue, "t.yaml", 2, 24, 29, Some("parameters[11].items"), "'items' applies to array parameters"),
         (E::InvalidValue, "t.yaml", 2, 25, 39, Some("parameters[12].default"), "default of 'm' is invalid: value 7 is not one of the allowed values (1, 2)"),
         (E::InvalidValue, "t.yaml", 2, 26, 5, Some("parameters[13]"), "a parameter must be a mapping, got a string")];
    escape_on_a_bound_parameter_is_refused: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: INSERT INTO t VALUES (?)\nparameters:\n  - {{name: a, type: string, description: x, escape: single-quotes}}\n")] =>
        [(E::InvalidValue, "t.yaml", 2, 13, 53, Some("parameters[0].escape"), "'a' is declared in parameters, so its value is bound as data and never needs escaping")];
    escape_modes_must_quote_in_the_tool_dialect: ["t.yaml" => &format!("{PG_SRC}---\nkind: tool\nname: t\ntype: postgres-sql\nsource: db\ndescription: d\nstatement: SELECT {{{{.v}}}}, {{{{array .w}}}}\ntemplateParameters:\n  - {{name: v, type: string, description: x, escape: backticks}}\n  - {{name: w, type: array, description: x, items: {{type: string, description: y, escape: square-brackets}}}}\n")] =>
        [(E::InvalidValue, "t.yaml", 2, 17, 53, Some("templateParameters[0].escape"), "escape 'backticks' is not a quoting in PostgreSQL, the SQL of this tool (its escapes: single-quotes, double-quotes)"),
         (E::InvalidValue, "t.yaml", 2, 18, 90, Some("templateParameters[1].items.escape"), "escape 'square-brackets' is not a quoting in PostgreSQL")];
    mysql_escapes_and_defaults_are_checked_for_mysql: ["t.yaml" => &format!("{MY_SRC}---\nkind: tool\nname: t\ntype: mysql-sql\nsource: db\ndescription: d\nstatement: SELECT {{{{.v}}}}, {{{{.w}}}}\ntemplateParameters:\n  - {{name: v, type: string, description: x, escape: square-brackets}}\n  - {{name: w, type: string, description: x, escape: single-quotes, default: 'a\\b'}}\n")] =>
        [(E::InvalidValue, "t.yaml", 2, 17, 53, Some("templateParameters[0].escape"), "escape 'square-brackets' is not a quoting in MySQL/MariaDB, the SQL of this tool (its escapes: single-quotes, backticks)"),
         (E::InvalidValue, "t.yaml", 2, 18, 77, Some("templateParameters[1].default"), "default of 'w' is invalid: value \"a\\\\b\" contains a backslash")];
    duplicate_parameter_names: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT ? {{{{.a}}}}\nparameters:\n  - {{name: a, type: string, description: x}}\ntemplateParameters:\n  - {{name: a, type: string, description: x}}\n")] =>
        [(E::DuplicateName, "t.yaml", 2, 15, 5, Some("templateParameters[0]"), "parameter 'a' is already declared at parameters[0]")];
    missing_auth_services: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: S\nauthRequired: [g]\nparameters:\n  - name: u\n    type: string\n    authServices:\n      - {{name: h, field: sub}}\n      - {{name: g}}\n    description: x\n")] =>
        [(E::MissingAuthService, "t.yaml", 2, 12, 16, Some("authRequired[0]"), "tool 't' names auth service 'g', which is not defined"),
         (E::MissingAuthService, "t.yaml", 2, 17, 16, Some("parameters[0].authServices[0].name"), "parameter 'u' of tool 't' names auth service 'h'"),
         (E::MissingField, "t.yaml", 2, 18, 9, Some("parameters[0].authServices[1].field"), "has no 'field'")];
    source_type_mismatch: ["t.yaml" => &format!("{HTTP_SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: api\ndescription: d\nstatement: S\n")] =>
        [(E::SourceMismatch, "t.yaml", 2, 9, 9, Some("source"), "tool 't' of type sqlite-sql needs a source of type sqlite; 'api' is http")];
    bad_templates: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT {{{{.cols}}}} FROM {{{{array .table}}}} {{{{.nope}}}} {{{{if .x}}}}\ntemplateParameters:\n  - {{name: cols, type: array, items: {{type: string, description: y}}, description: x}}\n  - {{name: table, type: string, description: x}}\n")] =>
        [(E::InvalidTemplate, "t.yaml", 2, 11, 12, Some("statement"), "'{{if .x}}' has no {{end}}")];
    go_template_error_at_its_line: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: |\n  SELECT *\n  FROM {{{{.table}}}}\n  {{{{if .desc}}}}ORDER BY id DESC\ntemplateParameters:\n  - {{name: table, type: string, description: x}}\n  - {{name: desc, type: boolean, description: x}}\n")] =>
        [(E::InvalidTemplate, "t.yaml", 2, 14, 3, Some("statement"), "'{{if .desc}}' has no {{end}}")];
    postgres_source_fields_checked_as_toolbox_does: ["t.yaml" => "kind: source\nname: pg\ntype: postgres\nhost: localhost\nport: 5432\nuser: u\ndatabase: d\nqueryParams: {sslmode: [a]}\nqueryExecMode: fast\npasword: p\n"] =>
        [(E::MissingField, "t.yaml", 1, 1, 1, Some("password"), "postgres source 'pg' has no 'password'"),
         (E::InvalidValue, "t.yaml", 1, 8, 14, Some("queryParams"), "expected a mapping of strings, got a mapping"),
         (E::InvalidValue, "t.yaml", 1, 9, 16, Some("queryExecMode"), "'fast' is not one of cache_statement"),
         (E::UnknownField, "t.yaml", 1, 10, 1, Some("pasword"), "unknown field 'pasword' of source 'pg'")];
    cloud_and_warehouse_sources_checked: ["t.yaml" => "kind: source\nname: bq\ntype: bigquery\nproject: p\nwriteMode: maybe\nuseClientOAuth: 'yes'\n---\nkind: source\nname: sp\ntype: spanner\nproject: p\ninstance: i\n---\nkind: source\nname: csql\ntype: cloud-sql-mysql\nproject: p\nregion: r\ninstance: i\ndatabase: d\nipType: internet\n"] =>
        [(E::InvalidValue, "t.yaml", 1, 5, 12, Some("writeMode"), "'maybe' is not one of allowed, blocked, protected"),
         (E::InvalidValue, "t.yaml", 1, 6, 17, Some("useClientOAuth"), "expected true or false, got a string"),
         (E::MissingField, "t.yaml", 2, 8, 1, Some("database"), "spanner source 'sp' has no 'database'"),
         (E::InvalidValue, "t.yaml", 3, 21, 9, Some("ipType"), "'internet' is not one of public")];
    execute_sql_tools_take_no_statement: ["t.yaml" => "kind: source\nname: pg\ntype: postgres\nhost: h\nport: 1\nuser: u\npassword: p\ndatabase: d\n---\nkind: tool\nname: run\ntype: postgres-execute-sql\nsource: pg\ndescription: Run SQL.\nstatement: SELECT 1\n---\nkind: tool\nname: q\ntype: spanner-sql\nsource: pg\ndescription: d\nstatement: SELECT 1\nreadOnly: 'true'\n"] =>
        [(E::UnknownField, "t.yaml", 2, 15, 1, Some("statement"), "unknown field 'statement' of tool 'run'"),
         (E::InvalidValue, "t.yaml", 3, 23, 11, Some("readOnly"), "expected true or false, got a string")];
    bad_template_references: ["t.yaml" => &format!("{SRC}---\nkind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT {{{{.cols}}}} FROM {{{{array .table}}}} {{{{.nope}}}} {{{{.m}}}}\ntemplateParameters:\n  - {{name: cols, type: array, items: {{type: string, description: y}}, description: x}}\n  - {{name: table, type: string, description: x}}\n  - {{name: m, type: map, description: x}}\n")] =>
        [(E::InvalidTemplate, "t.yaml", 2, 11, 12, Some("statement"), "'cols' is an array; insert it with {{array .cols}}"),
         (E::InvalidTemplate, "t.yaml", 2, 11, 12, Some("statement"), "{{array .table}} needs an array parameter; 'table' is string"),
         (E::InvalidTemplate, "t.yaml", 2, 11, 12, Some("statement"), "template names 'nope', which is not declared in templateParameters"),
         (E::InvalidTemplate, "t.yaml", 2, 11, 12, Some("statement"), "'m' is a map")];
    http_tool_fields: ["t.yaml" => &format!("{HTTP_SRC}---\nkind: tool\nname: t\ntype: http\nsource: api\ndescription: d\nmethod: FETCH\npath: /{{{{.id}}}}\nparameters: []\n")] =>
        [(E::InvalidValue, "t.yaml", 2, 11, 9, Some("method"), "unknown http method 'FETCH'"),
         (E::InvalidTemplate, "t.yaml", 2, 12, 7, Some("path"), "template names 'id', which is not declared in pathParams"),
         (E::UnknownField, "t.yaml", 2, 13, 1, Some("parameters"), "unknown field 'parameters' of tool 't'")];
    wrong_value_types: ["t.yaml" => "kind: tool\nname: t\ntype: custom\ndescription: [a]\nrequiresApproval: yes\nannotations: {readOnlyHint: 1, color: red}\nauthRequired: g\n"] =>
        [(E::InvalidValue, "t.yaml", 1, 4, 14, Some("description"), "expected a string, got a sequence"),
         (E::InvalidValue, "t.yaml", 1, 5, 19, Some("requiresApproval"), "expected true or false, got a string"),
         (E::InvalidValue, "t.yaml", 1, 6, 29, Some("annotations.readOnlyHint"), "expected true or false, got a integer"),
         (E::UnknownField, "t.yaml", 1, 6, 32, Some("annotations.color"), "unknown field 'color'"),
         (E::InvalidValue, "t.yaml", 1, 7, 15, Some("authRequired"), "expected a list of auth service names")];
    too_large: ["t.yaml" => &"#".repeat(crate::vfs::limits::MAX_CONFIG_BYTES + 1)] =>
        [(E::TooLarge, "t.yaml", 1, 1, 1, None, "the limit is")];
    errors_sorted_by_file_then_position: ["a.yaml" => "kind: tool\nname: t\ntype: x\ndescription: d\nsource: s1\n", "b.yaml" => "kind: nope\n"] =>
        [(E::MissingSource, "a.yaml", 1, 5, 9, Some("source"), "'s1'"),
         (E::UnknownKind, "b.yaml", 1, 1, 7, Some("kind"), "'nope'")];
}

#[test]
fn errors_render_with_location_and_field() {
    let errs = errors(&[("tools.yaml", "kind: tools\nname: x\ntype: sqlite-sql\n")]);
    let text: Vec<String> = errs.iter().map(ToString::to_string).collect();
    assert_eq!(
        text,
        [
            "tools.yaml: document 1, line 1, column 1: field 'description': tool 'x' has no 'description'",
            "tools.yaml: document 1, line 1, column 1: field 'source': tool 'x' has no 'source'",
            "tools.yaml: document 1, line 1, column 1: field 'statement': tool 'x' has no 'statement'",
        ]
    );
    let e = errors_to_error(&errs);
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert!(
        e.message().starts_with("invalid configuration (3 errors):\ntools.yaml: document 1"),
        "{}",
        e.message()
    );
}

#[test]
fn hostile_documents_do_not_crash() {
    let deep = format!("kind: tool\nname: t\nx: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let e = errors(&[("t.yaml", &deep)]);
    assert_eq!(e[0].kind, E::Syntax);
    assert!(
        e[0].message.contains("nesting") || e[0].message.contains("recursion limit"),
        "{}",
        e[0]
    );
    // Below the parser's own limit, ours applies.
    let deep = format!("kind: tool\nname: t\nx: {}{}\n", "[".repeat(100), "]".repeat(100));
    let e = errors(&[("t.yaml", &deep)]);
    assert_eq!(
        e[0].to_string(),
        "t.yaml: document 1, line 3, column 67: nesting is deeper than 64 levels"
    );
    for text in [
        "kind: [a]\n",
        "kind: 5\n",
        "kind: tool\nname: {a: b}\n",
        "? [a]\n: b\n",
        "!!int x: 1\n",
        "kind: tool\nname: t\ntype: x\ndescription: .nan\nextra: .inf\n",
    ] {
        let _ = load1(text);
    }
}

/// A configured deny-list refuses a value that contains an entry anywhere (across
/// lines too), while the configured allow-list still wants whole values.
#[test]
fn configured_excluded_values_match_anywhere() {
    let yaml = "kind: source\nname: db\ntype: sqlite\ndatabase: /tmp/x.db\n---\n\
kind: tool\nname: find\ntype: sqlite-sql\nsource: db\ndescription: d\n\
statement: SELECT * FROM t WHERE name = '{{.name}}' AND kind = ?\n\
templateParameters:\n  - {name: name, type: string, description: n, excludedValues: [\"'\", \";\", \"--\"]}\n\
parameters:\n  - {name: kind, type: string, description: k, allowedValues: [a, b]}\n";
    let cfg = load1(yaml).unwrap();
    let t = cfg.tool("find").unwrap();
    let none = VerifiedClaims::new();
    let e = t.validate_call(&json!({"name": "x' UNION SELECT 1 --", "kind": "a"}), &none);
    assert!(e.unwrap_err().to_string().contains("is excluded"));
    let e = t.validate_call(&json!({"name": "ok\n;", "kind": "a"}), &none);
    assert!(e.unwrap_err().to_string().contains("is excluded (matches ;)"));
    let e = t.validate_call(&json!({"name": "ok", "kind": "ab"}), &none);
    assert!(e.unwrap_err().to_string().contains("not one of the allowed values"));
    let call = t.validate_call(&json!({"name": "ok", "kind": "b"}), &none).unwrap();
    assert_eq!(call.statement.as_deref(), Some("SELECT * FROM t WHERE name = 'ok' AND kind = ?"));
}

/// Toolbox's prompts (v2 `kind: prompt(s)` and the v1 `prompts:` section) load,
/// check their templates against their arguments, and render, so a Toolbox
/// configuration with prompts loads unchanged.
#[test]
fn prompts_load_check_and_render() {
    let v2 = "kind: prompts\nname: review\ndescription: Review code.\nmessages:\n  - content: Review this {{.language}} code.\n  - role: assistant\n    content: Sure.\narguments:\n  - name: language\n    description: The language.\n";
    let cfg = load1(v2).unwrap();
    let p = cfg.prompt("review").unwrap();
    assert_eq!(p.description, "Review code.");
    assert_eq!(p.arguments[0].param_type, ParamType::String);
    let out = p.render(&json!({"language": "Rust"})).unwrap();
    assert_eq!(
        out,
        [
            ("user".to_string(), "Review this Rust code.".to_string()),
            ("assistant".to_string(), "Sure.".to_string())
        ]
    );
    let e = p.render(&json!({})).unwrap_err();
    assert!(e.message().contains("prompt 'review'") && e.message().contains("language"), "{e}");
    assert!(cfg.to_v2_yaml().starts_with("kind: prompt\nname: review\n"), "{}", cfg.to_v2_yaml());

    let v1 = "prompts:\n  greet:\n    messages:\n      - content: Hello {{.who}}\n    arguments:\n      - {name: who, description: w}\n";
    let cfg = load1(v1).unwrap();
    assert_eq!(
        cfg.prompt("greet").unwrap().render(&json!({"who": "Ada"})).unwrap()[0].1,
        "Hello Ada"
    );

    let errs = errors(&[(
        "p.yaml",
        "kind: prompt\nname: bad\nmessages:\n  - role: system\n    content: x\n  - content: '{{.nope}}'\n",
    )]);
    let text: Vec<String> = errs.iter().map(ToString::to_string).collect();
    assert_eq!(errs.len(), 2, "{text:?}");
    assert!(text[0].contains("line 4") && text[0].contains("invalid role 'system'"), "{text:?}");
    assert!(text[1].contains("line 6") && text[1].contains("'nope'"), "{text:?}");
    let errs = errors(&[("p.yaml", "kind: prompt\nname: empty\n")]);
    assert!(errs[0].message.contains("has no 'messages'"), "{errs:?}");
}

/// Embedding models (a Toolbox configuration may declare them) load and are
/// referenced by `embeddedBy`
/// (string parameters only; a tool using one is not runnable here); `valueFromParam`
/// fills a hidden parameter from another.
#[test]
fn embedding_models_and_value_from_param() {
    let text = "kind: embeddingModel\nname: gem\ntype: gemini\nmodel: gemini-embedding-001\ndimension: 768\n---\nkind: source\nname: db\ntype: sqlite\ndatabase: a.db\n---\nkind: tool\nname: insert_doc\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: INSERT INTO docs (content, embedding) VALUES ($1, $2)\nparameters:\n  - {name: content, type: string, description: c}\n  - {name: vector, type: string, description: v, embeddedBy: gem, valueFromParam: content}\n";
    let cfg = load1(text).unwrap();
    assert_eq!(cfg.embedding_models()[0].model_type, "gemini");
    let t = cfg.tool("insert_doc").unwrap();
    assert!(!cfg.is_runnable(t), "no handler embeds here");
    let schema = manifest::spec(t).input_schema;
    assert!(schema["properties"].get("vector").is_none(), "{schema}");
    let call = t.validate_call(&json!({"content": "hi"}), &VerifiedClaims::new()).unwrap();
    assert_eq!(call.args.positional(), vec![json!("hi"), json!("hi")]);
    let e = t.validate_call(&json!({"content": "hi", "vector": "x"}), &VerifiedClaims::new());
    assert!(e.unwrap_err().message().contains("unknown parameter 'vector'"));

    let bad = text
        .replace("embeddedBy: gem,", "embeddedBy: nope,")
        .replace("valueFromParam: content", "valueFromParam: ghost");
    let errs = errors(&[("t.yaml", &bad)]);
    let text: Vec<String> = errs.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|e| e.contains("names embedding model 'nope', which is not defined")),
        "{text:?}"
    );
    assert!(text.iter().any(|e| e.contains("takes its value from 'ghost'")), "{text:?}");
    let int = text_with_int_embedding();
    let errs = errors(&[("t.yaml", &int)]);
    assert!(errs[0].message.contains("'embeddedBy' applies to string parameters"), "{errs:?}");
}

fn text_with_int_embedding() -> String {
    "kind: embeddingModel\nname: gem\ntype: gemini\n---\nkind: tool\nname: t\ntype: x-sql\ndescription: d\nparameters:\n  - {name: n, type: integer, description: n, embeddedBy: gem}\n".to_string()
}

/// Toolbox 1.12's `kind: group` (its prebuilt configurations define several): a
/// toolset with a description, served like one, written back as a group.
#[test]
fn groups_are_toolsets_with_a_description() {
    let text = format!(
        "{SRC}---\nkind: tool\nname: q\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT 1\n---\nkind: group\nname: data\ndescription: Use these to read.\ntools: [q]\n---\nkind: toolset\nname: plain\ndescription: A toolset may have one too.\ntools: [q]\n"
    );
    let cfg = load1(&text).unwrap();
    let names: Vec<&str> = cfg.toolset("data").unwrap().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["q"]);
    let group = &cfg.toolsets()[0];
    assert_eq!((group.group, group.description.as_deref()), (true, Some("Use these to read.")));
    let plain = &cfg.toolsets()[1];
    assert_eq!(
        (plain.group, plain.description.as_deref()),
        (false, Some("A toolset may have one too."))
    );
    let v2 = cfg.to_v2_yaml();
    assert!(v2.contains("kind: group\nname: data\ndescription: Use these to read.\n"), "{v2}");
    assert!(v2.contains("kind: toolset\nname: plain\n"), "{v2}");
}

/// A toolset or group listing a tool twice loads, with the tool once (Toolbox 1.12
/// accepts the repetition too).
#[test]
fn toolset_listing_a_tool_twice_serves_it_once() {
    let text = "kind: toolset\nname: s\ntools: [a, a]\n---\nkind: group\nname: g\ndescription: d\ntools: [a, a]\n---\nkind: tool\nname: a\ntype: custom\ndescription: d\n";
    let cfg = Config::load(&[("t.yaml", text)]).unwrap();
    for name in ["s", "g"] {
        let names: Vec<&str> = cfg.toolset(name).unwrap().iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["a"], "{name}");
    }
}

/// `scopesRequired` needs an auth service that verifies bearer tokens (`generic`,
/// `mcpEnabled: true`): with one the tool checks its scopes against that service's
/// claims; without one the file is refused (Toolbox would ignore the scopes).
#[test]
fn scopes_required_need_an_mcp_enabled_auth_service() {
    let tool = "kind: tool\nname: t\ntype: custom\ndescription: d\nscopesRequired: [a, b]\n";
    let oauth = "kind: authService\nname: o\ntype: generic\nmcpEnabled: true\naudience: x\nauthorizationServer: https://i\n---\n";
    let cfg = Config::load(&[("t.yaml", format!("{oauth}{tool}"))]).unwrap();
    let t = cfg.tool("t").unwrap();
    assert_eq!(
        (t.scopes_required.as_slice(), t.scope_services.as_slice()),
        (&["a".to_string(), "b".to_string()][..], &["o".to_string()][..])
    );
    let token = VerifiedClaims::new().with("o", json!({"scope": "b a"}));
    assert!(t.validate_call(&json!({}), &token).is_ok());
    let e = t
        .validate_call(&json!({}), &VerifiedClaims::new().with("o", json!({"scope": "a"})))
        .unwrap_err();
    assert!(e.message().contains("lacks 'b'"), "{}", e.message());
    let errors = Config::load(&[("t.yaml", tool)]).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].field.as_deref(), Some("scopesRequired"));
    assert!(
        errors[0].message.contains("needs an auth service of type generic with mcpEnabled: true")
    );
    let not_a_list =
        Config::load(&[("t.yaml", format!("{oauth}{}", tool.replace("[a, b]", "a")))]).unwrap_err();
    assert_eq!(not_a_list[0].field.as_deref(), Some("scopesRequired"), "{not_a_list:?}");
}

/// A template parameter's escape quotes for its tool's dialect: every mode loads on
/// SQLite and in a prompt (no dialect), and calls of loaded tools quote or refuse
/// as that dialect needs.
#[test]
fn template_escapes_quote_for_the_tool_dialect() {
    let tool = |src: &str, ty: &str, escapes: &[&str]| {
        let mut yaml = format!(
            "{src}---\nkind: tool\nname: t\ntype: {ty}\nsource: db\ndescription: d\nstatement: SELECT "
        );
        yaml.push_str(
            &(0..escapes.len()).map(|i| format!("{{{{.v{i}}}}}")).collect::<Vec<_>>().join(", "),
        );
        yaml.push_str("\ntemplateParameters:\n");
        for (i, e) in escapes.iter().enumerate() {
            yaml.push_str(&format!(
                "  - {{name: v{i}, type: string, description: x, escape: {e}}}\n"
            ));
        }
        yaml
    };
    let all = ["single-quotes", "double-quotes", "backticks", "square-brackets"];
    let cfg = load1(&tool(SRC, "sqlite-sql", &all)).unwrap();
    let args = json!({"v0": "a'b", "v1": "a\"b", "v2": "a`b", "v3": "a[b"});
    let call = cfg.tool("t").unwrap().validate_call(&args, &VerifiedClaims::new()).unwrap();
    assert_eq!(call.statement.as_deref(), Some("SELECT 'a''b', \"a\"\"b\", `a``b`, [a[b]"));
    let prompt = "kind: prompt\nname: p\nmessages:\n  - content: 'x {{.a}}'\narguments:\n  - {name: a, description: x, escape: square-brackets}\n";
    let cfg = load1(prompt).unwrap();
    assert_eq!(cfg.prompt("p").unwrap().render(&json!({"a": "b]"})).unwrap()[0].1, "x [b]]]");

    let cfg = load1(&tool(MY_SRC, "mysql-sql", &["single-quotes", "backticks"])).unwrap();
    let t = cfg.tool("t").unwrap();
    let e = t
        .validate_call(&json!({"v0": "\\' OR 1=1 -- ", "v1": "y"}), &VerifiedClaims::new())
        .unwrap_err();
    assert_eq!(e.kind(), crate::error::ErrorKind::InvalidArgument);
    assert!(
        e.message().starts_with("parameter 'v0': value \"\\\\' OR 1=1 -- \" contains a backslash"),
        "{}",
        e.message()
    );
    let call = t.validate_call(&json!({"v0": "it's", "v1": "a\\`"}), &VerifiedClaims::new());
    assert_eq!(call.unwrap().statement.as_deref(), Some(r"SELECT 'it''s', `a\```"));

    let cfg = load1(&tool(PG_SRC, "postgres-sql", &all[..2])).unwrap();
    let call = cfg
        .tool("t")
        .unwrap()
        .validate_call(&json!({"v0": "\\' OR 1=1 -- ", "v1": "a\"b"}), &VerifiedClaims::new())
        .unwrap();
    assert_eq!(call.statement.as_deref(), Some("SELECT E'\\\\'' OR 1=1 -- ', \"a\"\"b\""));
}
