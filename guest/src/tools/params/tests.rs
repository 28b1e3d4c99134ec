//! Unit tests of parameter validation and templates (table-driven where the rules are).

use super::*;
use crate::error::ErrorKind;
use serde_json::json;

fn p(name: &str, t: ParamType) -> Parameter {
    Parameter::new(name, t)
}

/// Validates `{name: value}` against one parameter; Ok(final value) or Err(message).
fn one(param: Parameter, value: Value) -> std::result::Result<Value, String> {
    let name = param.name.clone();
    let args = json!({ name.clone(): value });
    validate_args(&[param], &args, &VerifiedClaims::new())
        .map(|a| a.get(&name).cloned().unwrap_or(Value::Null))
        .map_err(|e| e.message().to_string())
}

macro_rules! conformance {
    ($($case:ident: $param:expr, $value:expr => $expect:expr;)*) => {$(
        #[test]
        fn $case() {
            let got = one($param, $value);
            match ($expect, &got) {
                (Ok::<Value, &str>(want), Ok(v)) => assert_eq!(v, &want),
                (Err(fragment), Err(msg)) => {
                    assert!(msg.contains(fragment), "error {msg:?} lacks {fragment:?}");
                    assert!(msg.starts_with("parameter '"), "error {msg:?} does not name the parameter");
                }
                (want, got) => panic!("want {want:?}, got {got:?}"),
            }
        }
    )*};
}

conformance! {
    string_rejects_integer: p("name", ParamType::String), json!(4) => Err("'name': expected string, got integer 4");
    string_accepts_string: p("name", ParamType::String), json!("x") => Ok(json!("x"));
    allowed_regex_accepts_whole_match: p("s", ParamType::String).allowed([json!("^f.*")]), json!("foo") => Ok(json!("foo"));
    allowed_regex_rejects: p("s", ParamType::String).allowed([json!("^f.*")]), json!("bar") => Err("value \"bar\" is not one of the allowed values (^f.*)");
    allowed_is_whole_value_not_substring: p("s", ParamType::String).allowed([json!("foo")]), json!("xfooy") => Err("\"xfooy\" is not one of the allowed");
    allowed_invalid_regex_is_literal: p("s", ParamType::String).allowed([json!("C++")]), json!("C++") => Ok(json!("C++"));
    excluded_regex_rejects: p("s", ParamType::String).excluded([json!("^f.*")]), json!("foo") => Err("value \"foo\" is excluded (matches ^f.*)");
    excluded_regex_accepts: p("s", ParamType::String).excluded([json!("^f.*")]), json!("bar") => Ok(json!("bar"));
    excluded_matches_anywhere: p("s", ParamType::String).excluded([json!("admin")]), json!("administrator") => Err("\"administrator\" is excluded (matches admin)");
    excluded_deny_list_blocks_injection: p("s", ParamType::String).excluded([json!("'"), json!(";"), json!("--")]), json!("x' UNION SELECT secret FROM users --") => Err("is excluded (matches ')");
    excluded_deny_list_blocks_comment: p("s", ParamType::String).excluded([json!("'"), json!(";"), json!("--")]), json!("1 -- drop") => Err("is excluded (matches --)");
    excluded_deny_list_passes_clean_value: p("s", ParamType::String).excluded([json!("'"), json!(";"), json!("--")]), json!("O Brien") => Ok(json!("O Brien"));
    excluded_dot_matches_newline: p("s", ParamType::String).excluded([json!(".*'.*")]), json!("first line\nx' OR 1=1") => Err("is excluded (matches .*'.*)");
    excluded_invalid_regex_is_contained_literal: p("s", ParamType::String).excluded([json!("C++")]), json!("use C++ here") => Err("is excluded (matches C++)");
    excluded_number_compares_whole: p("n", ParamType::Integer).excluded([json!(1)]), json!(10) => Ok(json!(10));
    allowed_dot_matches_newline: p("s", ParamType::String).allowed([json!("a.b")]), json!("a\nb") => Ok(json!("a\nb"));
    excluded_exact: p("s", ParamType::String).excluded([json!("admin")]), json!("admin") => Err("\"admin\" is excluded");
    escape_backticks: p("t", ParamType::String).escape(Escape::Backticks), json!("users` OR 1=1--") => Ok(json!("`users`` OR 1=1--`"));
    escape_square_brackets: p("t", ParamType::String).escape(Escape::SquareBrackets), json!("col] OR 1=1--") => Ok(json!("[col]] OR 1=1--]"));
    escape_single_quotes: p("t", ParamType::String).escape(Escape::SingleQuotes), json!("O'Brien") => Ok(json!("'O''Brien'"));
    escape_double_quotes: p("t", ParamType::String).escape(Escape::DoubleQuotes), json!("a\"b") => Ok(json!("\"a\"\"b\""));
    integer_accepts_100: p("n", ParamType::Integer), json!(100) => Ok(json!(100));
    integer_rejects_fraction: p("n", ParamType::Integer), json!(14.5) => Err("expected integer, got number 14.5");
    integer_rejects_3_0: p("n", ParamType::Integer), json!(3.0) => Err("expected integer, got number 3.0");
    integer_accepts_max_int64: p("n", ParamType::Integer), json!(i64::MAX) => Ok(json!(i64::MAX));
    integer_accepts_min_int64: p("n", ParamType::Integer), json!(i64::MIN) => Ok(json!(i64::MIN));
    integer_rejects_beyond_int64: p("n", ParamType::Integer), json!(u64::MAX) => Err("out of the signed 64-bit range");
    integer_rejects_string: p("n", ParamType::Integer), json!("5") => Err("expected integer, got string \"5\"");
    integer_regex_accepts_10: p("n", ParamType::Integer).allowed([json!(r"^\d{2}$")]), json!(10) => Ok(json!(10));
    integer_regex_rejects_100: p("n", ParamType::Integer).allowed([json!(r"^\d{2}$")]), json!(100) => Err("value 100 is not one of the allowed values");
    integer_literal_allowed: p("n", ParamType::Integer).allowed([json!(1), json!(2)]), json!(2) => Ok(json!(2));
    min_rejects_1: p("n", ParamType::Integer).min(2), json!(1) => Err("value 1 is less than the minimum 2");
    min_accepts_2: p("n", ParamType::Integer).min(2), json!(2) => Ok(json!(2));
    max_rejects_3: p("n", ParamType::Integer).max(2), json!(3) => Err("value 3 is greater than the maximum 2");
    float_max_fraction: p("f", ParamType::Float).max(Number::from_f64(2.5).unwrap()), json!(2.6) => Err("greater than the maximum 2.5");
    float_rejects_true: p("f", ParamType::Float), json!(true) => Err("expected float, got boolean true");
    float_accepts_3: p("f", ParamType::Float), json!(3) => Ok(json!(3.0));
    float_accepts_fraction: p("f", ParamType::Float), json!(2.5) => Ok(json!(2.5));
    boolean_rejects_1_5: p("b", ParamType::Boolean), json!(1.5) => Err("expected boolean, got number 1.5");
    boolean_rejects_1: p("b", ParamType::Boolean), json!(1) => Err("expected boolean, got integer 1");
    boolean_accepts_false: p("b", ParamType::Boolean), json!(false) => Ok(json!(false));
    array_of_backtick_strings:
        p("cols", ParamType::Array).items(p("col", ParamType::String).escape(Escape::Backticks)),
        json!(["a", "b`c"]) => Ok(json!(["`a`", "`b``c`"]));
    array_escape_on_array_applies_to_items:
        p("cols", ParamType::Array).items(p("col", ParamType::String)).escape(Escape::DoubleQuotes),
        json!(["id", "name"]) => Ok(json!(["\"id\"", "\"name\""]));
    array_item_error_names_index:
        p("cols", ParamType::Array).items(p("col", ParamType::String)), json!(["a", 5]) => Err("'cols': item 1: expected string, got integer 5");
    array_item_allowed:
        p("cols", ParamType::Array).items(p("col", ParamType::String).allowed([json!("id"), json!("name")])),
        json!(["id", "secret"]) => Err("item 1: value \"secret\" is not one of the allowed values (id, name)");
    array_rejects_object: p("cols", ParamType::Array).items(p("c", ParamType::String)), json!({"a": 1}) => Err("expected array, got object");
    array_allowed_whole_value:
        p("pair", ParamType::Array).items(p("c", ParamType::Integer)).allowed([json!([1, 2])]), json!([1, 2]) => Ok(json!([1, 2]));
    array_allowed_whole_value_rejects:
        p("pair", ParamType::Array).items(p("c", ParamType::Integer)).allowed([json!([1, 2])]), json!([2, 1]) => Err("is not one of the allowed values");
    typed_map_rejects_number: p("m", ParamType::Map).value_type(ParamType::String), json!({"key1": 123}) => Err("'m': key 'key1': expected string, got integer 123");
    typed_map_accepts: p("m", ParamType::Map).value_type(ParamType::Integer), json!({"a": 1, "b": 2}) => Ok(json!({"a": 1, "b": 2}));
    generic_map_keeps_numbers: p("m", ParamType::Map), json!({"a": 1, "b": "x", "c": 2.5, "d": true}) => Ok(json!({"a": 1, "b": "x", "c": 2.5, "d": true}));
    map_rejects_array: p("m", ParamType::Map), json!([1]) => Err("expected map, got array [1]");
    long_values_are_cut: p("s", ParamType::Integer), json!("x".repeat(500)) => Err("…");
}

fn claims() -> VerifiedClaims {
    VerifiedClaims::new().with("google", json!({"sub": "user-1", "email": "a@b.c"}))
}

#[test]
fn defaults_applied_and_validated() {
    let params = vec![
        p("limit", ParamType::Integer).default_value(json!(10)),
        p("ratio", ParamType::Float).default_value(json!(1)),
        p("col", ParamType::String).default_value(json!("id")).escape(Escape::DoubleQuotes),
    ];
    let args = validate_args(&params, &json!({"limit": null}), &VerifiedClaims::new()).unwrap();
    assert_eq!(args.positional(), vec![json!(10), json!(1.0), json!("\"id\"")]);
    let bad = vec![p("limit", ParamType::Integer).default_value(json!(10)).max(5)];
    let err = validate_args(&bad, &json!({}), &VerifiedClaims::new()).unwrap_err();
    assert_eq!(err.message(), "parameter 'limit': value 10 is greater than the maximum 5");
}

#[test]
fn optional_missing_is_absent_but_keeps_its_position() {
    let params = vec![p("a", ParamType::String).optional(), p("b", ParamType::Integer)];
    let args = validate_args(&params, &json!({"b": 1}), &VerifiedClaims::new()).unwrap();
    assert_eq!(args.get("a"), None);
    assert_eq!(args.iter().next().unwrap().value, None);
    assert_eq!(args.to_object(), json!({"b": 1}).as_object().unwrap().clone());
    assert_eq!(args.positional(), vec![Value::Null, json!(1)]);
    // Explicit null on an optional parameter is the same as missing.
    let args = validate_args(&params, &json!({"a": null, "b": 1}), &VerifiedClaims::new()).unwrap();
    assert_eq!(args.get("a"), None);
}

#[test]
fn required_missing_or_null_is_an_error() {
    let params = vec![p("a", ParamType::String)];
    let e = validate_args(&params, &json!({"a": null}), &VerifiedClaims::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(e.message(), "parameter 'a': a value is required (got null)");
    let e = validate_args(&params, &json!({}), &VerifiedClaims::new()).unwrap_err();
    assert_eq!(e.message(), "parameter 'a': a value is required");
    let e = validate_args(&params, &Value::Null, &VerifiedClaims::new()).unwrap_err();
    assert_eq!(e.message(), "parameter 'a': a value is required");
}

#[test]
fn first_error_in_declared_order_wins() {
    let params = vec![p("a", ParamType::Integer), p("b", ParamType::Integer)];
    let e =
        validate_args(&params, &json!({"b": "x", "a": "y"}), &VerifiedClaims::new()).unwrap_err();
    assert!(e.message().starts_with("parameter 'a'"), "{}", e.message());
}

#[test]
fn undeclared_arguments_are_rejected() {
    let params = vec![p("country", ParamType::String)];
    let e = validate_args(&params, &json!({"countr": "x"}), &VerifiedClaims::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    assert_eq!(e.message(), "unknown parameter 'countr' (declared: country)");
    let e = validate_args(&[], &json!({"x": 1}), &VerifiedClaims::new()).unwrap_err();
    assert_eq!(e.message(), "unknown parameter 'x' (declared: none)");
    let e = validate_args(&[], &json!([1]), &VerifiedClaims::new()).unwrap_err();
    assert_eq!(e.message(), "arguments must be a JSON object, got array [1]");
}

#[test]
fn auth_params_take_claims_over_input() {
    let params =
        vec![p("user_id", ParamType::String).auth("google", "sub"), p("q", ParamType::String)];
    let args =
        validate_args(&params, &json!({"user_id": "attacker", "q": "x"}), &claims()).unwrap();
    assert_eq!(args.get("user_id"), Some(&json!("user-1")));
    // Without input too.
    let args = validate_args(&params, &json!({"q": "x"}), &claims()).unwrap();
    assert_eq!(args.positional(), vec![json!("user-1"), json!("x")]);
}

#[test]
fn auth_params_use_the_first_verified_service() {
    let params = vec![p("who", ParamType::String).auth("github", "login").auth("google", "email")];
    let args = validate_args(&params, &json!({}), &claims()).unwrap();
    assert_eq!(args.get("who"), Some(&json!("a@b.c")));
}

#[test]
fn missing_claim_field_errors() {
    let params = vec![p("user_id", ParamType::String).auth("google", "tenant")];
    let e = validate_args(&params, &json!({}), &claims()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unauthorized);
    assert_eq!(
        e.message(),
        "parameter 'user_id': claim 'tenant' is missing from the verified token of auth service 'google'"
    );
}

#[test]
fn auth_params_without_verified_service_error() {
    let params = vec![p("user_id", ParamType::String).auth("google", "sub")];
    let e = validate_args(&params, &json!({"user_id": "me"}), &VerifiedClaims::new()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unauthorized);
    assert!(
        e.message().contains("'user_id'") && e.message().contains("'google'"),
        "{}",
        e.message()
    );
}

#[test]
fn auth_claims_are_type_checked() {
    let params = vec![p("uid", ParamType::Integer).auth("google", "sub")];
    let e = validate_args(&params, &json!({}), &claims()).unwrap_err();
    assert_eq!(e.message(), "parameter 'uid': expected integer, got string \"user-1\"");
}

#[test]
fn auth_required_is_any_of() {
    let req = vec!["a".to_string(), "b".to_string()];
    assert!(check_auth_required("t", &[], &VerifiedClaims::new()).is_ok());
    assert!(check_auth_required("t", &req, &VerifiedClaims::new().with("b", json!({}))).is_ok());
    let e =
        check_auth_required("t", &req, &VerifiedClaims::new().with("c", json!({}))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unauthorized);
    assert_eq!(e.message(), "tool 't' requires a verified token from 'a' or 'b'");
}

#[test]
fn scopes_required_are_all_of_the_mcp_tokens_scope_claim() {
    let req = vec!["r".to_string(), "w".to_string()];
    let mcp = vec!["oauth".to_string()];
    let token = |scope: &str| VerifiedClaims::new().with("oauth", json!({"scope": scope}));
    assert!(check_scopes_required("t", &[], &mcp, &VerifiedClaims::new()).is_ok());
    assert!(check_scopes_required("t", &req, &mcp, &token("x w  r")).is_ok());
    let e = check_scopes_required("t", &req, &mcp, &token("r x")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unauthorized);
    assert_eq!(
        e.message(),
        "insufficient scopes for tool 't': it requires 'r', 'w' (scopesRequired); the token's scope claim lacks 'w'"
    );
    // A scope is a whole word of the claim, not a part of one.
    assert!(check_scopes_required("t", &req, &mcp, &token("rw")).is_err());
    // Another service's token does not carry the MCP token's scopes.
    let other = VerifiedClaims::new().with("google", json!({"scope": "r w"}));
    let e = check_scopes_required("t", &req, &mcp, &other).unwrap_err();
    assert!(e.message().contains("no verified bearer token"), "{}", e.message());
}

#[test]
fn templates_substitute_after_escaping() {
    let params = vec![
        p("tableName", ParamType::String).role(ParamRole::Template).escape(Escape::Backticks),
        p("columnNames", ParamType::Array)
            .role(ParamRole::Template)
            .items(p("column", ParamType::String).escape(Escape::DoubleQuotes)),
        p("limit", ParamType::Integer).role(ParamRole::Template).default_value(json!(5)),
        p("id", ParamType::Integer),
    ];
    let args = validate_args(
        &params,
        &json!({"tableName": "users` OR 1=1--", "columnNames": ["id", "na\"me"], "id": 3}),
        &VerifiedClaims::new(),
    )
    .unwrap();
    let t = Template::parse(
        "SELECT {{array .columnNames}} FROM {{ .tableName }} WHERE id = $1 LIMIT {{.limit}}",
    )
    .unwrap();
    assert_eq!(
        t.render(&args).unwrap(),
        "SELECT \"id\", \"na\"\"me\" FROM `users`` OR 1=1--` WHERE id = $1 LIMIT 5"
    );
    assert_eq!(args.positional(), vec![json!(3)]);
    assert_eq!(args.with_role(ParamRole::Template).len(), 3);
}

#[test]
fn template_parse_errors() {
    for (text, fragment) in [
        ("SELECT {{.a", "unclosed template action"),
        ("SELECT {{range .a}}", "'{{range .a}}' has no {{end}}"),
        ("SELECT 1\n{{if .a}}\n{{else}}", "'{{if .a}}' has no {{end}}"),
        ("SELECT {{.a}} {{end}}", "{{end}} closes nothing"),
        ("SELECT {{.a |}}", "invalid template: "),
        ("SELECT {{if}}{{end}}", "invalid template: "),
        ("{{define \"x\"}}{{template \"x\"}}{{end}}", "allow recursion"),
        ("{{block \"b\" .}}x{{end}}", "allow recursion"),
    ] {
        let e = Template::parse(text).unwrap_err();
        assert!(e.contains(fragment), "{text}: {e}");
    }
    assert_eq!(Template::parse_located("a\nb {{if .x}}").unwrap_err().offset, 4);
    assert_eq!(
        Template::parse("no actions").unwrap().parts(),
        &[TemplatePart::Text("no actions".into())]
    );
}

/// Go template actions beyond `{{.x}}` (Toolbox configurations use them), rendered by
/// a Go template engine with only the parameters the template names, escaped first.
#[test]
fn go_template_actions_render() {
    let params = vec![
        p("table", ParamType::String).role(ParamRole::Template).escape(Escape::DoubleQuotes),
        p("columns", ParamType::Array)
            .role(ParamRole::Template)
            .items(p("c", ParamType::String).escape(Escape::DoubleQuotes))
            .optional(),
        p("desc", ParamType::Boolean).role(ParamRole::Template).default_value(json!(false)),
        p("limit", ParamType::Integer).role(ParamRole::Template).default_value(json!(10)),
        p("secret", ParamType::String),
    ];
    let t = Template::parse(
        "SELECT {{if .columns}}{{array .columns}}{{else}}*{{end}} FROM {{.table}}\n\
         {{with .desc}}ORDER BY id DESC{{end}} LIMIT {{.limit | printf \"%d\"}}\n\
         {{range $i, $c := .columns}}{{if $i}},{{end}}{{$c}}{{end}}{{range $k, $v := .}}[{{$k}}]{{end}}",
    )
    .unwrap();
    let names: Vec<&TemplatePart> = t.parts().iter().collect();
    assert_eq!(names.len(), 5, "{names:?}");
    let args = validate_args(
        &params,
        &json!({"table": "t\"x", "columns": ["a", "b"], "desc": true, "secret": "s3"}),
        &VerifiedClaims::new(),
    )
    .unwrap();
    let out = t.render(&args).unwrap();
    assert!(
        out.starts_with(
            "SELECT \"a\", \"b\" FROM \"t\"\"x\"\nORDER BY id DESC LIMIT 10\n\"a\",\"b\""
        ),
        "{out}"
    );
    // The engine saw the four named parameters, never the bound `secret`.
    assert!(
        out.contains("[columns]") && out.contains("[table]") && !out.contains("secret"),
        "{out}"
    );
    let args =
        validate_args(&params, &json!({"table": "t", "secret": "s"}), &VerifiedClaims::new())
            .unwrap();
    let out = t.render(&args).unwrap();
    assert!(out.starts_with("SELECT * FROM \"t\"\n LIMIT 10"), "{out}");
    // A failure while rendering is a clear error, not a panic.
    let bad = Template::parse("{{index .columns 5}}").unwrap();
    let e = bad.render(
        &validate_args(
            &params,
            &json!({"table": "t", "columns": ["a"], "secret": "s"}),
            &VerifiedClaims::new(),
        )
        .unwrap(),
    );
    assert!(e.unwrap_err().message().contains("the template failed"));
}

#[test]
fn template_missing_value_errors() {
    let params = vec![p("t", ParamType::String).role(ParamRole::Template).optional()];
    let args = validate_args(&params, &json!({}), &VerifiedClaims::new()).unwrap();
    let e = Template::parse("SELECT * FROM {{.t}}").unwrap().render(&args).unwrap_err();
    assert!(e.message().starts_with("parameter 't': has no value"), "{}", e.message());
}

#[test]
fn claims_from_json() {
    let c = VerifiedClaims::from_json(&json!({"google": {"sub": "u"}})).unwrap();
    assert_eq!(c, VerifiedClaims::new().with("google", json!({"sub": "u"})));
    assert_eq!(VerifiedClaims::from_json(&Value::Null).unwrap(), VerifiedClaims::new());
    assert!(VerifiedClaims::from_json(&json!({"google": "token"})).is_err());
    assert!(VerifiedClaims::from_json(&json!([1])).is_err());
}

#[test]
fn percent_encoding_keeps_values_in_their_segment() {
    assert_eq!(percent_encode("docs"), "docs");
    assert_eq!(percent_encode("../admin?x=1#f"), "%2E%2E%2Fadmin%3Fx%3D1%23f");
    assert_eq!(percent_encode("é a"), "%C3%A9%20a");
}

#[test]
fn matcher_literals() {
    assert_eq!(ValueMatcher::allowed(json!("abc")).literal(), Some(json!("abc")));
    assert_eq!(ValueMatcher::allowed(json!("^a.*")).literal(), None);
    assert_eq!(ValueMatcher::allowed(json!(3)).literal(), Some(json!(3)));
    assert!(ValueMatcher::allowed(json!(3)).matches(&json!(3.0)));
    assert!(!ValueMatcher::allowed(json!("a")).matches(&json!(["a"])));
}
