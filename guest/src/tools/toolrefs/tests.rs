use super::*;
use std::cell::RefCell;

fn spec(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: "d".into(),
        input_schema: json!({"type": "object"}),
        annotations: Default::default(),
        output_schema: None,
    }
}

fn names(offerable: &[&str], taken: &[&str]) -> Names {
    Names {
        offerable: offerable.iter().map(|n| spec(n)).collect(),
        taken: taken.iter().map(|n| (n.to_string(), "built-in")).collect(),
    }
}

fn github(connection: &str, name: Option<&str>) -> Value {
    let mut v = json!({"type": "composio", "integration": "github", "action": "GET_USER", "connection": connection});
    if let Some(n) = name {
        v["name"] = json!(n);
    }
    v
}

fn info(action: &str) -> ActionInfo {
    ActionInfo {
        action: action.into(),
        title: Some(format!("{action} title")),
        description: Some(format!("Does {action}")),
        input_schema: Some(json!({"type": "object", "properties": {"q": {"type": "string"}}})),
        annotations: Some(ToolAnnotations { read_only: Some(true), ..Default::default() }),
    }
}

fn active(c: &CallRef) -> Result<ConnectionStatus> {
    if c.is_wildcard() {
        return Ok(ConnectionStatus::Active(vec![info("search"), info("fetch")]));
    }
    Ok(ConnectionStatus::Active(vec![info(&c.action)]))
}

#[test]
fn segment_grammar() {
    for ok in ["a", "github", "GET_THE_USER", "github-tvn", "a_b-c_d", "0"] {
        assert!(is_valid_segment(ok), "{ok}");
    }
    for bad in ["", "_a", "a_", "a__b", "a.b", "a b", "é", "a/b", "*"] {
        assert!(!is_valid_segment(bad), "{bad}");
    }
}

#[test]
fn call_ref_round_trips() {
    let c = CallRef::parse("tools.composio.github.GET_USER.github-tvn").unwrap();
    assert_eq!(c.connection, "github-tvn");
    assert_eq!(c.to_function_name(), "tools__composio__github__GET_USER__github-tvn");
    assert_eq!(CallRef::from_function_name(&c.to_function_name()).unwrap(), c);
    assert!(CallRef::parse("tools.composio.github.GET_USER").is_err());
    assert!(CallRef::parse("x.composio.github.GET_USER.c").is_err());
    let e = CallRef::parse("tools.composio.git__hub.A.c").unwrap_err();
    assert!(e.message().contains("'git__hub'"), "{}", e.message());
    // `*` is for refs, never for a call.
    assert!(CallRef::parse("tools.mcp.docs.*.default").is_err());
    let w = CallRef::parse_selector("tools.mcp.docs.*.default").unwrap();
    assert!(w.is_wildcard());
    assert_eq!(w.with_action("read").to_string(), "tools.mcp.docs.read.default");
    assert!(CallRef::parse_selector("tools.mcp.*.x.default").is_err());
}

#[test]
fn resolves_named_and_providers() {
    let refs = parse_refs(&json!(["filestore_read", github("github-tvn", Some("github_whoami"))]))
        .unwrap();
    let checked = RefCell::new(Vec::new());
    let checker = |c: &CallRef| {
        checked.borrow_mut().push(c.to_string());
        active(c)
    };
    let out = resolve_refs(&refs, &names(&["filestore_read"], &[]), &checker).unwrap();
    let tools = out.tools;
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0].call_ref, None);
    assert_eq!(tools[0].spec.name, "filestore_read");
    assert_eq!(tools[1].name, "github_whoami");
    assert_eq!(tools[1].spec.description, "Does GET_USER");
    assert_eq!(tools[1].spec.annotations.title.as_deref(), Some("GET_USER title"));
    assert_eq!(tools[1].spec.annotations.read_only, Some(true));
    assert_eq!(tools[1].spec.input_schema["properties"]["q"]["type"], "string");
    assert_eq!(
        tools[1].call_ref.as_ref().unwrap().to_string(),
        "tools.composio.github.GET_USER.github-tvn"
    );
    assert_eq!(*checked.borrow(), vec!["tools.composio.github.GET_USER.github-tvn"]);
    assert_eq!(refs[1].to_json(), github("github-tvn", Some("github_whoami")));
}

#[test]
fn default_name_and_defaults_without_a_catalog() {
    let refs = parse_refs(&json!([github("a", None)])).unwrap();
    let checker = |_: &CallRef| Ok(ConnectionStatus::Active(vec![]));
    let tools = resolve_refs(&refs, &Names::default(), &checker).unwrap().tools;
    assert_eq!(tools[0].name, "github__GET_USER");
    assert_eq!(tools[0].spec.input_schema, json!({"type": "object"}));
    assert!(tools[0].spec.description.contains("GET_USER"));
}

#[test]
fn strings_of_call_ref_form_are_provider_refs() {
    let refs =
        parse_refs(&json!(["tools.mcp.docs.read.default", "tools.mcp.docs.*.team"])).unwrap();
    let ToolRef::Provider(p) = &refs[0] else { panic!("{refs:?}") };
    assert_eq!(p.tool_name().as_deref(), Some("docs__read"));
    let ToolRef::Provider(w) = &refs[1] else { panic!("{refs:?}") };
    assert!(w.call_ref.is_wildcard() && w.tool_name().is_none());
}

/// The `__` form of a ref (what `to_function_name` writes) is the same ref as the
/// dotted form, both ways round; a malformed one is refused naming what was written.
#[test]
fn refs_in_the_function_name_form_round_trip() {
    let dotted = "tools.composio.github.GET_THE_AUTHENTICATED_USER.github-tvn";
    let c = CallRef::parse(dotted).unwrap();
    let refs =
        parse_refs(&json!([c.to_function_name(), dotted, "tools__mcp__docs__*__team"])).unwrap();
    let (ToolRef::Provider(a), ToolRef::Provider(b)) = (&refs[0], &refs[1]) else {
        panic!("{refs:?}")
    };
    assert_eq!(a, b);
    assert_eq!(a.call_ref.to_function_name(), c.to_function_name());
    let out = resolve_refs(&refs[..1], &Names::default(), &active).unwrap();
    assert_eq!(out.tools[0].call_ref.as_ref().unwrap().to_string(), dotted);
    let ToolRef::Provider(w) = &refs[2] else { panic!("{refs:?}") };
    assert!(w.call_ref.is_wildcard());
    assert_eq!(w.call_ref.to_string(), "tools.mcp.docs.*.team");

    let e = parse_refs(&json!(["tools__composio__git_hub___x__c"])).unwrap_err();
    assert!(e.message().contains("tools__composio__git_hub___x__c"), "{}", e.message());
    // Four segments is a tool name (a configured tool may be called so), not a ref.
    let refs = parse_refs(&json!(["tools__a__b__c"])).unwrap();
    assert!(matches!(&refs[0], ToolRef::Named(n) if n == "tools__a__b__c"), "{refs:?}");
}

#[test]
fn wildcard_expands_the_catalog_with_a_prefix() {
    let refs = parse_refs(&json!([
        {"type": "mcp", "integration": "docs", "action": "*", "connection": "default"},
        {"type": "mcp", "integration": "docs", "action": "*", "connection": "team", "prefix": "team_", "requiresApproval": true}
    ]))
    .unwrap();
    let out = resolve_refs(&refs, &Names::default(), &active).unwrap();
    let names: Vec<&str> = out.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["docs__search", "docs__fetch", "team_search", "team_fetch"]);
    assert_eq!(out.tools[3].call_ref.as_ref().unwrap().to_string(), "tools.mcp.docs.fetch.team");
    assert!(!out.tools[0].spec.annotations.requires_approval);
    assert!(out.tools[2].spec.annotations.requires_approval);
}

#[test]
fn named_prefixes_select_offerable_tools() {
    let n = names(&["filestore_ls", "filestore_read", "find_hotel"], &[]);
    let refs = parse_refs(&json!(["filestore_*", "filestore_read", "find_hotel"])).unwrap();
    let out = resolve_refs(&refs, &n, &active).unwrap();
    let names: Vec<&str> = out.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["filestore_ls", "filestore_read", "find_hotel"]);
    let e = resolve_refs(&parse_refs(&json!(["nope_*"])).unwrap(), &n, &active).unwrap_err();
    assert_eq!(e.cause, ResolveCause::UnknownTool);
    assert!(e.error.message().contains("'nope_*' matches no tool"), "{}", e.error.message());
    let all = resolve_refs(&parse_refs(&json!(["*"])).unwrap(), &n, &active).unwrap();
    assert_eq!(all.tools.len(), 3);
}

#[test]
fn duplicate_names_name_both_refs() {
    let refs = parse_refs(&json!([github("a", None), github("b", None)])).unwrap();
    let e = resolve_refs(&refs, &Names::default(), &active).unwrap_err();
    assert_eq!(e.error.kind(), ErrorKind::InvalidArgument);
    assert_eq!((e.index, e.cause), (Some(1), ResolveCause::DuplicateName));
    assert_eq!(
        e.error.message(),
        "tools[0] ('tools.composio.github.GET_USER.a') and tools[1] ('tools.composio.github.GET_USER.b') both resolve to the tool name 'github__GET_USER'; give one of them a distinct 'name' (or 'prefix')"
    );
    // Distinct names fix it.
    let refs = parse_refs(&json!([github("a", Some("gh_a")), github("b", Some("gh_b"))])).unwrap();
    assert_eq!(resolve_refs(&refs, &Names::default(), &active).unwrap().tools.len(), 2);
    // A named tool clashing with a provider name.
    let refs = parse_refs(&json!(["gh", github("a", Some("gh"))])).unwrap();
    let e = resolve_refs(&refs, &names(&["gh"], &[]), &active).unwrap_err();
    assert!(
        e.error.message().contains("tools[0] ('gh')") && e.error.message().contains("GET_USER.a"),
        "{}",
        e.error.message()
    );
    // A provider tool may not take the name of a tool the agent does not even list.
    let refs = parse_refs(&json!([github("a", Some("filestore_write"))])).unwrap();
    let e = resolve_refs(&refs, &names(&[], &["filestore_write"]), &active).unwrap_err();
    assert!(
        e.error.message().starts_with("the built-in tool 'filestore_write' and tools[0]"),
        "{}",
        e.error.message()
    );
}

#[test]
fn wildcard_clashes_are_errors_too() {
    let refs = parse_refs(&json!([
        {"type": "mcp", "integration": "docs", "action": "search", "connection": "a", "name": "docs__fetch"},
        {"type": "mcp", "integration": "docs", "action": "*", "connection": "b"}
    ]))
    .unwrap();
    let e = resolve_refs(&refs, &Names::default(), &active).unwrap_err();
    assert_eq!((e.index, e.cause), (Some(1), ResolveCause::DuplicateName));
    assert!(e.error.message().contains("action 'fetch'"), "{}", e.error.message());
}

#[test]
fn duplicates_fail_before_any_connection_check() {
    let refs = parse_refs(&json!([github("a", None), github("b", None)])).unwrap();
    let checker = |_: &CallRef| -> Result<ConnectionStatus> { panic!("checked a connection") };
    assert!(resolve_refs(&refs, &Names::default(), &checker).is_err());
}

#[test]
fn missing_and_inactive_connections_fail_with_their_name() {
    let refs = parse_refs(&json!([github("github-old", None)])).unwrap();
    let e = resolve_refs(&refs, &Names::default(), &|_: &CallRef| Ok(ConnectionStatus::Missing))
        .unwrap_err();
    assert_eq!((e.error.kind(), e.cause), (ErrorKind::NotFound, ResolveCause::MissingConnection));
    assert!(e.error.message().contains("connection 'github-old'"), "{}", e.error.message());
    let inactive =
        |_: &CallRef| Ok(ConnectionStatus::Inactive { reason: Some("token revoked".into()) });
    let e = resolve_refs(&refs, &Names::default(), &inactive).unwrap_err();
    assert_eq!(e.error.kind(), ErrorKind::Unauthorized);
    assert!(
        e.error.message().contains("connection 'github-old'")
            && e.error.message().contains("token revoked"),
        "{}",
        e.error.message()
    );
    let failing = |_: &CallRef| Err(Error::new(ErrorKind::Backend, "host down"));
    let e = resolve_refs(&refs, &Names::default(), &failing).unwrap_err();
    assert_eq!((e.error.kind(), e.cause), (ErrorKind::Backend, ResolveCause::ConnectionFailed));
    assert!(
        e.error.message().contains("'github-old'") && e.error.message().contains("host down"),
        "{}",
        e.error.message()
    );
}

#[test]
fn optional_refs_are_left_out_with_a_warning() {
    let mut r = github("a", None);
    r["optional"] = json!(true);
    let refs = parse_refs(&json!([r, "x"])).unwrap();
    let failing = |_: &CallRef| Err(Error::new(ErrorKind::Backend, "connection refused"));
    let out = resolve_refs(&refs, &names(&["x"], &[]), &failing).unwrap();
    assert_eq!(out.tools.len(), 1);
    assert_eq!(out.warnings.len(), 1);
    assert!(
        out.warnings[0].contains("tools[0]") && out.warnings[0].contains("connection refused"),
        "{:?}",
        out.warnings
    );
}

#[test]
fn unusable_actions_of_a_wildcard_are_warned_explicit_ones_fail() {
    let bad_schema = |c: &CallRef| {
        let mut a = info("good");
        let mut b = info("bad");
        b.input_schema = Some(json!({"type": 7}));
        a.action = if c.is_wildcard() { "good".into() } else { c.action.clone() };
        Ok(ConnectionStatus::Active(if c.is_wildcard() { vec![a, b] } else { vec![b] }))
    };
    let refs = parse_refs(&json!(["tools.mcp.docs.*.default"])).unwrap();
    let out = resolve_refs(&refs, &Names::default(), &bad_schema).unwrap();
    assert_eq!(out.tools.len(), 1);
    assert!(out.warnings[0].contains("action 'bad'") && out.warnings[0].contains("input schema"));
    let refs = parse_refs(&json!(["tools.mcp.docs.bad.default"])).unwrap();
    let e = resolve_refs(&refs, &Names::default(), &bad_schema).unwrap_err();
    assert_eq!(e.cause, ResolveCause::InvalidSchema);
}

#[test]
fn unknown_name_is_not_found() {
    let refs = parse_refs(&json!(["filestore_nope"])).unwrap();
    let e = resolve_refs(&refs, &names(&["filestore_read"], &[]), &active).unwrap_err();
    assert_eq!(e.error.kind(), ErrorKind::NotFound);
    assert_eq!(
        e.error.message(),
        "tools[0]: 'filestore_nope' is not a tool of this session (its tools: filestore_read)"
    );
}

#[test]
fn malformed_refs() {
    for (value, fragment) in [
        (
            json!([{"type": "composio", "integration": "github", "action": "A"}]),
            "tools[0]: missing field 'connection'",
        ),
        (
            json!([{"type": "composio", "integration": "git__hub", "action": "A", "connection": "c"}]),
            "field 'integration': 'git__hub' is not a valid call-ref segment",
        ),
        (
            json!([{"type": "composio", "integration": "g", "action": "A.B", "connection": "c"}]),
            "field 'action'",
        ),
        (
            json!([{"type": "composio", "integration": "g", "action": "A", "connection": "c", "extra": 1}]),
            "unknown field 'extra'",
        ),
        (
            json!([{"type": "composio", "integration": "g", "action": "A", "connection": 5}]),
            "field 'connection': expected a string, got integer 5",
        ),
        (
            json!([{"type": "composio", "integration": "g", "action": "A", "connection": "c", "name": "a b"}]),
            "invalid tool name 'a b'",
        ),
        (
            json!([{"type": "mcp", "integration": "g", "action": "*", "connection": "c", "name": "x"}]),
            "names its tools with 'prefix'",
        ),
        (
            json!([{"type": "mcp", "integration": "g", "action": "a", "connection": "c", "prefix": "x_"}]),
            "only a ref to every action",
        ),
        (
            json!([{"type": "mcp", "integration": "g", "action": "a", "connection": "c", "optional": "yes"}]),
            "field 'optional': expected a boolean",
        ),
        (json!(["ok", 5]), "tools[1]: expected a tool name or a provider ref object"),
        (json!(["bad name"]), "invalid tool name"),
        (json!(["a*b"]), "invalid tool name"),
        (json!(["tools.mcp.a__b.c.d"]), "'a__b' is not a valid call-ref segment"),
        (json!({"a": 1}), "tools must be a list"),
    ] {
        let e = parse_refs(&value).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.message().contains(fragment), "{value}: {}", e.message());
    }
    assert_eq!(parse_refs(&Value::Null).unwrap(), vec![]);
}

#[test]
fn lenient_resolution_leaves_out_what_fails_after_start() {
    // The upstream dropped `gone` and now offers `x`, which a built-in holds.
    let changed = |_: &CallRef| Ok(ConnectionStatus::Active(vec![info("kept"), info("x")]));
    let refs = parse_refs(&json!([
        "tools.mcp.docs.*.default",
        {"type": "mcp", "integration": "docs", "action": "gone", "connection": "default", "name": "g"},
        {"type": "mcp", "integration": "docs", "action": "kept", "connection": "default", "name": "k"},
    ]))
    .unwrap();
    let n = names(&[], &["docs__x"]);
    let label = |i: usize| format!("tools[{i}]");
    // At start: the first failure is the error.
    let e = resolve_labelled_with(&refs, &label, &n, &changed, false).unwrap_err();
    assert_eq!(e.cause, ResolveCause::DuplicateName);
    // After start: each failing tool or ref is left out, the rest resolve.
    let out = resolve_labelled_with(&refs, &label, &n, &changed, true).unwrap();
    let got: Vec<&str> = out.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(got, ["docs__kept", "k"]);
    assert_eq!(out.warnings.len(), 2, "{:?}", out.warnings);
    assert!(out.warnings[0].contains("'docs__x'") && out.warnings[0].ends_with("left out"));
    assert!(
        out.warnings[1].starts_with("tools[1] was left out when the agent was resolved again: ")
            && out.warnings[1].contains("no action 'gone'"),
        "{:?}",
        out.warnings
    );
    // A connection that now fails is left out too, never the whole agent.
    let failing = |_: &CallRef| Err(Error::new(ErrorKind::Backend, "connection refused"));
    let out = resolve_labelled_with(&refs, &label, &n, &failing, true).unwrap();
    assert!(out.tools.is_empty());
    assert_eq!(out.warnings.len(), 3);
}
