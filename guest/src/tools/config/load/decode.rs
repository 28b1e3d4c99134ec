//! Decoding one resource document: per-kind and per-tool-type field checks, with
//! every unknown or mistyped field reported at its line.
//!
//! It stays above 800 lines because it is the table of every resource kind's and tool
//! type's fields, each checked where it is written; the tables read best as one list.

use super::*;

/// Decodes one resource's fields. `None` when an error makes it unusable (the errors
/// are recorded either way).
pub(super) fn decode_resource(
    ctx: &mut Ctx<'_>,
    raw: &Raw,
    refs: &mut Vec<Ref>,
) -> Option<Resource> {
    let display_name =
        raw.name.as_ref().map_or_else(|| "<unnamed>".to_string(), |(n, _)| n.clone());
    let before = ctx.errors.len();
    let mut f = Fields::new(&raw.body, raw.mark, "");
    let location = ctx.loc(raw.name.as_ref().map_or(raw.mark, |(_, m)| *m));
    let resource = match raw.kind {
        ResourceKind::Source => decode_source(ctx, &mut f, raw, &display_name, location),
        ResourceKind::AuthService => decode_auth_service(ctx, &mut f, raw, &display_name, location),
        ResourceKind::Toolset => {
            Some(decode_toolset(ctx, &mut f, raw, &display_name, location, refs))
        }
        ResourceKind::Tool => decode_tool(ctx, &mut f, raw.mark, &display_name, location, refs)
            .map(|t| Resource::Tool(Box::new(t))),
        ResourceKind::Prompt => decode_prompt(ctx, &mut f, &display_name, location, refs)
            .map(|p| Resource::Prompt(Box::new(p))),
        ResourceKind::EmbeddingModel => {
            let user = format!("embedding model '{display_name}'");
            let model_type = f.required_string(ctx, "type", &user);
            // The rest (model, apiKey, dimension...) is the host's business, as a
            // source's fields are; kept in the v2 document.
            model_type.map(|(model_type, _)| {
                Resource::EmbeddingModel(EmbeddingModelConfig {
                    name: String::new(),
                    model_type,
                    location,
                })
            })
        }
    };
    // A resource with errors is not registered as usable, but its name still counts
    // (so duplicates and references to it are not reported twice).
    if ctx.errors.len() > before { None } else { resource }
}

/// Every field of a resource but its `type`, as JSON: what the host reads.
fn fields_but_type(raw: &Raw) -> serde_json::Map<String, Value> {
    raw.body
        .iter()
        .filter(|e| e.key != "type")
        .map(|e| (e.key.clone(), e.value.to_json()))
        .collect()
}

/// A `source`: its `type`, and the fields of the types this guest knows checked.
fn decode_source(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    raw: &Raw,
    display_name: &str,
    location: Location,
) -> Option<Resource> {
    let source_type = f.required_string(ctx, "type", &format!("source '{display_name}'"));
    let strict = match source_type.as_ref().map(|(t, _)| t.as_str()) {
        Some(t) => check_source_fields(ctx, f, t, display_name),
        None => false,
    };
    if strict {
        f.report_unknown(ctx, &format!("source '{display_name}'"));
    }
    let fields = fields_but_type(raw);
    let field_locations = raw
        .body
        .iter()
        .filter(|e| e.key != "type")
        .map(|e| (e.key.clone(), ctx.loc(e.value.mark)))
        .collect();
    source_type.map(|(source_type, _)| {
        Resource::Source(SourceConfig {
            name: String::new(),
            source_type,
            fields,
            location,
            field_locations,
        })
    })
}

/// Checks the fields of a source of type `t`; whether its fields are all known (so
/// any other is reported), false for a type this guest has no schema of.
fn check_source_fields(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, t: &str, display_name: &str) -> bool {
    match t {
        "sqlite" => {
            f.required_string(ctx, "database", &format!("sqlite source '{display_name}'"));
            // Toolbox appends a SQL comment naming the caller when set; read
            // and type-checked here, not acted on (nothing to correlate).
            f.boolean(ctx, "sqlCommenter");
            true
        }
        "http" => {
            f.required_string(ctx, "baseUrl", &format!("http source '{display_name}'"));
            f.string(ctx, "timeout");
            f.string_map(ctx, "headers");
            f.string_map(ctx, "queryParams");
            f.boolean(ctx, "disableSslVerification");
            // filestore's addition: the hosts calls may reach (default: the
            // baseUrl's host). The host's http handler enforces it.
            if let Some(e) = f.get("allowedHosts") {
                let ok = matches!(&e.value.value, Y::Seq(items)
                    if items.iter().all(|i| i.scalar_string().is_some()));
                if !ok {
                    ctx.err(
                        K::InvalidValue,
                        e.value.mark,
                        Some(&f.path("allowedHosts")),
                        "expected a list of host names",
                    );
                }
            }
            true
        }
        "redis" | "valkey" => {
            let schema = schemas::source_schema(t).expect("redis and valkey have schemas");
            schemas::check_fields(ctx, f, schema, &format!("{t} source '{display_name}'"));
            check_addresses(ctx, f);
            true
        }
        t => match schemas::source_schema(t) {
            Some(schema) => {
                let what = format!("{t} source '{display_name}'");
                schemas::check_fields(ctx, f, schema, &what);
                true
            }
            None => false,
        },
    }
}

/// A Redis or Valkey source's `address`: at least one server, each `host:port` (a
/// `${VAR}` is checked once the host substitutes it).
fn check_addresses(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) {
    let Some(e) = f.get("address") else { return };
    let Y::Seq(items) = &e.value.value else { return };
    if items.is_empty() {
        ctx.err(K::InvalidValue, e.value.mark, Some(&f.path("address")), "address lists no server");
    }
    for (i, item) in items.iter().enumerate() {
        let Some(a) = item.scalar_string() else { continue };
        let ok = a.contains("${")
            || a.rsplit_once(':').is_some_and(|(host, port)| {
                !host.is_empty()
                    && !host.contains("://")
                    && port.parse::<u16>().is_ok_and(|p| p > 0)
            });
        if !ok {
            ctx.err(
                K::InvalidValue,
                item.mark,
                Some(&format!("{}[{i}]", f.path("address"))),
                format!("'{}' is not host:port (a port of 1 to 65535, no scheme)", short(&a)),
            );
        }
    }
}

/// An `authService`: its `type`; the rest is the host's.
fn decode_auth_service(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    raw: &Raw,
    display_name: &str,
    location: Location,
) -> Option<Resource> {
    let service_type = f.required_string(ctx, "type", &format!("auth service '{display_name}'"));
    let fields = fields_but_type(raw);
    service_type.map(|(service_type, _)| {
        Resource::AuthService(AuthServiceConfig {
            name: String::new(),
            service_type,
            fields,
            location,
        })
    })
}

/// A `toolset`: its `tools`, each a reference to a tool. A tool listed twice is
/// served once (Toolbox 1.12 accepts the repetition too).
fn decode_toolset(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    raw: &Raw,
    display_name: &str,
    location: Location,
    refs: &mut Vec<Ref>,
) -> Resource {
    let mark = raw.mark;
    let user = format!("{} '{display_name}'", if raw.group { GROUP } else { "toolset" });
    let description = f.string(ctx, "description").map(|(d, _)| d);
    refuse_group_members(ctx, f, &user);
    let mut tools = Vec::new();
    match f.get("tools") {
        None => {
            ctx.err(K::MissingField, mark, Some("tools"), format!("{user} has no 'tools' list"))
        }
        Some(e) => {
            if let Some(items) = list_of(ctx, &e.value, "tools", "tool names") {
                for (i, item) in items.iter().enumerate() {
                    let field = format!("tools[{i}]");
                    let Some(name) = item.scalar_string() else {
                        ctx.err(
                            K::InvalidValue,
                            item.mark,
                            Some(&field),
                            format!("expected a tool name, got a {}", item.type_name()),
                        );
                        continue;
                    };
                    if tools.contains(&name) {
                        continue;
                    }
                    refs.push(Ref {
                        target: ResourceKind::Tool,
                        name: name.clone(),
                        user: user.clone(),
                        field,
                        location: ctx.loc(item.mark),
                        tool_type: None,
                    });
                    tools.push(name);
                }
            }
        }
    }
    f.report_unknown(ctx, &user);
    Resource::Toolset(ToolsetConfig {
        name: String::new(),
        tools,
        description,
        group: raw.group,
        location,
    })
}

/// The members of a Toolbox 1.12 group other than tools, which this host cannot
/// serve per group: refused by name rather than ignored (its MCP endpoint would
/// offer every prompt, or none of the resources, where Toolbox offers the group's).
fn refuse_group_members(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, user: &str) {
    for (key, what) in [
        ("prompts", "prompts"),
        ("resources", "resources"),
        ("resourceTemplates", "resource templates"),
    ] {
        if let Some(e) = f.get(key) {
            ctx.err(
                K::Unsupported,
                e.key_mark,
                Some(key),
                format!(
                    "{user}: a group's {what} ('{key}', Toolbox 1.12) are not supported by filestore; list only tools"
                ),
            );
        }
    }
}

/// Decodes a `prompt`: Toolbox's `custom` type (the default), `description`,
/// `messages` (each `{role: user|assistant, content}`; role defaults to user) and
/// `arguments` (parameters whose `type` defaults to string), every `{{.name}}` in a
/// message checked against the arguments.
pub(super) fn decode_prompt(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    name: &str,
    location: Location,
    refs: &mut Vec<Ref>,
) -> Option<PromptConfig> {
    let user = format!("prompt '{name}'");
    if let Some((t, m)) = f.string(ctx, "type")
        && t != "custom"
    {
        ctx.err(
            K::InvalidValue,
            m,
            Some("type"),
            format!("unknown prompt type '{}' (expected custom)", short(&t)),
        );
    }
    let description = f.string(ctx, "description").map(|(d, _)| d).unwrap_or_default();
    let arguments = decode_prompt_arguments(ctx, f, refs, &user);
    let messages = decode_prompt_messages(ctx, f, &arguments, &user);
    f.report_unknown(ctx, &user);
    Some(PromptConfig { name: String::new(), description, messages, arguments, location })
}

/// A prompt's `arguments`: template parameters whose `type` defaults to string, none
/// declared twice.
fn decode_prompt_arguments(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    refs: &mut Vec<Ref>,
    user: &str,
) -> Vec<Parameter> {
    let mut arguments = Vec::new();
    let Some(items) = f.list(ctx, "arguments", "arguments") else { return arguments };
    for (i, item) in items.iter().enumerate() {
        let path = format!("arguments[{i}]");
        // Toolbox defaults an argument's type to string.
        let mut item = item.clone();
        if let Y::Map(entries) = &mut item.value
            && !entries.iter().any(|e| e.key == "type")
        {
            entries.push(Entry {
                key: "type".into(),
                key_mark: item.mark,
                value: Node { mark: item.mark, value: Y::Str("string".into()) },
            });
        }
        if let Some(p) = decode_param(ctx, &item, &path, ParamRole::Template, false, refs, user) {
            if arguments.iter().any(|a: &Parameter| a.name == p.name) {
                ctx.err(
                    K::DuplicateName,
                    item.mark,
                    Some(&path),
                    format!("argument '{}' is declared twice", p.name),
                );
            } else {
                arguments.push(p);
            }
        }
    }
    arguments
}

/// A prompt's `messages` (at least one), as (role, content); each content's template
/// checked against `arguments`.
fn decode_prompt_messages(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    arguments: &[Parameter],
    user: &str,
) -> Vec<(String, String)> {
    let mut messages = Vec::new();
    let Some(e) = f.get("messages") else {
        ctx.err(K::MissingField, f.mark, Some("messages"), format!("{user} has no 'messages'"));
        return messages;
    };
    let Some(items) = list_of(ctx, &e.value, "messages", "messages") else { return messages };
    if items.is_empty() {
        ctx.err(K::InvalidValue, e.value.mark, Some("messages"), format!("{user} has no messages"));
        return messages;
    }
    for (i, item) in items.iter().enumerate() {
        let path = format!("messages[{i}]");
        let Y::Map(entries) = &item.value else {
            ctx.err(
                K::InvalidValue,
                item.mark,
                Some(&path),
                format!("expected {{role, content}}, got a {}", item.type_name()),
            );
            continue;
        };
        let mut mf = Fields::new(entries, item.mark, &path);
        let role = match mf.string(ctx, "role") {
            None => "user".to_string(),
            Some((r, _)) if r == "user" || r == "assistant" => r,
            Some((r, m)) => {
                ctx.err(
                    K::InvalidValue,
                    m,
                    Some(&mf.path("role")),
                    format!("invalid role '{}': must be 'user' or 'assistant'", short(&r)),
                );
                continue;
            }
        };
        let content = mf.required_string(ctx, "content", &format!("{path} of {user}"));
        mf.report_unknown(ctx, &format!("{path} of {user}"));
        if let Some((content, m)) = content {
            check_template(ctx, &content, m, &mf.path("content"), arguments, ParamRole::Template);
            messages.push((role, content));
        }
    }
    messages
}

pub(super) fn decode_tool(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    mark: Mark,
    name: &str,
    location: Location,
    refs: &mut Vec<Ref>,
) -> Option<ToolConfig> {
    let user = format!("tool '{name}'");
    let tool_type = f.required_string(ctx, "type", &user).map(|(t, _)| t);
    let family = tool_family(tool_type.as_deref());
    // Toolbox's prebuilt tool types (`postgres-list-tables`...) get Toolbox's
    // description when none is written; the types this host only checks get a
    // neutral one.
    let description = tool_description(ctx, f, family, tool_type.as_deref(), &user);
    let source = if family == Family::Other {
        f.string(ctx, "source")
    } else {
        f.required_string(ctx, "source", &user)
    };
    if let Some((s, m)) = &source {
        refs.push(Ref {
            target: ResourceKind::Source,
            name: s.clone(),
            user: user.clone(),
            field: "source".into(),
            location: ctx.loc(*m),
            tool_type: tool_type.clone(),
        });
    }
    let statement = match family {
        Family::Sql => f.required_string(ctx, "statement", &user),
        // The model writes the statement: a configured one is an unknown field.
        Family::Execute | Family::Commands => None,
        // Toolbox's own statement (a configured one is an unknown field, as there).
        Family::Prebuilt(p) => Some((p.statement.to_string(), mark)),
        _ => f.string(ctx, "statement"),
    };

    let errors_before_parameters = ctx.errors.len();
    // Template parameters' escapes quote for the tool's SQL dialect.
    ctx.dialect = tool_type.as_deref().and_then(crate::tools::config::dialect_of);
    let (mut parameters, declared_at) = decode_tool_parameters(ctx, f, family, refs, &user);
    ctx.dialect = None;

    check_values_from_params(ctx, f, &parameters, &declared_at, &user);

    if let Family::Prebuilt(p) = family {
        parameters.extend(p.parameters.iter().map(|p| p.to_parameter()));
    }
    if family == Family::Execute {
        // Toolbox's execute-sql tools take one argument: the statement to run.
        parameters.push(Parameter {
            description: "The sql to execute.".to_string(),
            ..Parameter::new("sql", ParamType::String)
        });
    }

    let auth_required = decode_auth_required(ctx, f, refs, &user);
    let scopes_required = decode_scopes_required(ctx, f);

    let annotations = decode_annotations(ctx, f, &user);
    let output_schema = decode_output_schema(ctx, f);

    let mut fields = Map::new();
    if family == Family::Http {
        decode_http_fields(ctx, f, &user, &parameters, &mut fields);
    }
    if family == Family::Commands
        && let Some(commands) = decode_commands(ctx, f, &user)
    {
        fields.insert("commands".into(), commands);
    }
    if let Some(t) = tool_type.as_deref() {
        let extra = match family {
            Family::Sql => schemas::statement_tool_fields(t),
            Family::Execute => schemas::execute_sql_schema(t).unwrap_or(&[]),
            _ => &[],
        };
        schemas::check_fields(ctx, f, extra, &user);
        for (key, ..) in extra {
            if let Some(e) = f.get(key) {
                fields.insert((*key).to_string(), e.value.to_json());
            }
        }
    }
    if family == Family::Other {
        for e in f.rest() {
            fields.insert(e.key.clone(), e.value.to_json());
        }
    } else {
        f.report_unknown(ctx, &user);
    }

    // A parameter refused above is missing from the list: matching placeholders
    // against the rest would only report the same mistake again.
    let parameters_ok = ctx.errors.len() == errors_before_parameters;
    check_statement(
        ctx,
        statement.as_ref(),
        tool_type.as_deref(),
        &parameters,
        parameters_ok,
        mark,
        &user,
    );

    Some(ToolConfig {
        name: String::new(),
        tool_type: tool_type?,
        source: source.map(|(s, _)| s),
        description,
        statement: statement.map(|(s, _)| s),
        parameters,
        auth_required,
        scopes_required,
        scope_services: Vec::new(),
        annotations,
        output_schema,
        fields,
        document: Map::new(),
        location,
    })
}

/// How well this host knows the tool type `tool_type`.
fn tool_family(tool_type: Option<&str>) -> Family {
    match tool_type {
        Some("http") => Family::Http,
        Some("redis" | "valkey") => Family::Commands,
        Some(t) if STRICT_SQL_TYPES.contains(&t) => Family::Sql,
        Some(t) if schemas::execute_sql_schema(t).is_some() => Family::Execute,
        Some(t) if super::super::prebuilt::find(t).is_some() => {
            Family::Prebuilt(super::super::prebuilt::find(t).expect("found"))
        }
        _ => Family::Other,
    }
}

/// The tool's description: required, except for the types whose description Toolbox
/// supplies (prebuilt ones, and the types this host only checks).
fn tool_description(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    family: Family,
    tool_type: Option<&str>,
    user: &str,
) -> String {
    if let Family::Prebuilt(p) = family
        && let Some(default) = super::super::prebuilt::default_description(p.tool_type)
    {
        f.string(ctx, "description").map(|(d, _)| d).unwrap_or_else(|| default.to_string())
    } else if family == Family::Other && tool_type.is_some() {
        f.string(ctx, "description").map(|(d, _)| d).unwrap_or_else(|| {
            format!("{} tool (Toolbox supplies its description)", tool_type.unwrap_or("?"))
        })
    } else {
        f.required_string(ctx, "description", user).map(|(d, _)| d).unwrap_or_default()
    }
}

/// The parameters the tool declares (in the lists of its family), each name once, with
/// where each was declared.
fn decode_tool_parameters(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    family: Family,
    refs: &mut Vec<Ref>,
    user: &str,
) -> (Vec<Parameter>, HashMap<String, String>) {
    let mut parameters: Vec<Parameter> = Vec::new();
    let mut declared_at: HashMap<String, String> = HashMap::new();
    for role in ParamRole::ALL {
        let http_role = !matches!(role, ParamRole::Parameter | ParamRole::Template);
        // http tools take the http lists only; other tools `parameters` and
        // `templateParameters`. The rest is reported unknown (or kept in `fields`).
        // Redis commands take `$name` words, never templates (as Toolbox's).
        if http_role != (family == Family::Http)
            || matches!(family, Family::Execute | Family::Prebuilt(_))
            || (family == Family::Commands && role == ParamRole::Template)
        {
            continue;
        }
        for (path, p) in decode_param_list(ctx, f, role, refs, user) {
            if let Some(first) = declared_at.get(&p.name) {
                ctx.err(
                    K::DuplicateName,
                    p_mark(f, &path),
                    Some(&path),
                    format!("parameter '{}' is already declared at {first}", p.name),
                );
                continue;
            }
            declared_at.insert(p.name.clone(), path);
            parameters.push(p);
        }
    }
    (parameters, declared_at)
}

/// Each `valueFromParam` names another declared parameter, one that takes its own
/// value from the call.
fn check_values_from_params(
    ctx: &mut Ctx<'_>,
    f: &Fields<'_>,
    parameters: &[Parameter],
    declared_at: &HashMap<String, String>,
    user: &str,
) {
    for p in parameters {
        let Some(from) = &p.value_from_param else { continue };
        let path = declared_at.get(&p.name).cloned().unwrap_or_default();
        let problem = if *from == p.name {
            Some(format!("parameter '{}' takes its value from itself", p.name))
        } else {
            match parameters.iter().find(|q| q.name == *from) {
                None => Some(format!(
                    "parameter '{}' takes its value from '{from}', which {user} does not declare",
                    p.name
                )),
                Some(q) if q.value_from_param.is_some() => Some(format!(
                    "parameter '{}' takes its value from '{from}', which takes its own from another parameter",
                    p.name
                )),
                Some(_) => None,
            }
        };
        if let Some(problem) = problem {
            ctx.err(
                K::InvalidValue,
                p_mark(f, &path),
                Some(&format!("{path}.valueFromParam")),
                problem,
            );
        }
    }
}

/// `authRequired`: the auth services a caller must have a token of (each a ref).
fn decode_auth_required(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    refs: &mut Vec<Ref>,
    user: &str,
) -> Vec<String> {
    let mut auth_required = Vec::new();
    let Some(items) = f.list(ctx, "authRequired", "auth service names") else {
        return auth_required;
    };
    for (i, item) in items.iter().enumerate() {
        let field = format!("authRequired[{i}]");
        match item.scalar_string() {
            Some(s) => {
                refs.push(Ref {
                    target: ResourceKind::AuthService,
                    name: s.clone(),
                    user: user.to_string(),
                    field,
                    location: ctx.loc(item.mark),
                    tool_type: None,
                });
                auth_required.push(s);
            }
            None => ctx.err(
                K::InvalidValue,
                item.mark,
                Some(&field),
                format!("expected an auth service name, got a {}", item.type_name()),
            ),
        }
    }
    auth_required
}

/// `scopesRequired`: the OAuth scopes a caller's bearer token must carry.
fn decode_scopes_required(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Vec<String> {
    let mut scopes = Vec::new();
    let Some(items) = f.list(ctx, "scopesRequired", "scope names") else {
        return scopes;
    };
    for (i, item) in items.iter().enumerate() {
        match item.scalar_string() {
            Some(s) => scopes.push(s),
            None => ctx.err(
                K::InvalidValue,
                item.mark,
                Some(&format!("scopesRequired[{i}]")),
                format!("expected a scope name, got a {}", item.type_name()),
            ),
        }
    }
    scopes
}

/// `annotations` (MCP's hints) and `requiresApproval`.
fn decode_annotations(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, user: &str) -> ToolAnnotations {
    let mut annotations = ToolAnnotations::default();
    if let Some(e) = f.get("annotations") {
        match &e.value.value {
            Y::Map(entries) => {
                let mut a = Fields::new(entries, e.value.mark, "annotations");
                annotations.title = a.string(ctx, "title").map(|(s, _)| s);
                annotations.read_only = a.boolean(ctx, "readOnlyHint");
                annotations.destructive = a.boolean(ctx, "destructiveHint");
                annotations.idempotent = a.boolean(ctx, "idempotentHint");
                annotations.open_world = a.boolean(ctx, "openWorldHint");
                a.report_unknown(ctx, &format!("the annotations of {user}"));
            }
            _ => ctx.err(
                K::InvalidValue,
                e.value.mark,
                Some("annotations"),
                format!("expected a mapping, got a {}", e.value.type_name()),
            ),
        }
    }
    annotations.requires_approval = f.boolean(ctx, "requiresApproval").unwrap_or(false);
    annotations
}

/// `outputSchema` (filestore's): a JSON Schema object of a result's data, compiled
/// now so that a schema the validator cannot use is refused where it is written.
fn decode_output_schema(ctx: &mut Ctx<'_>, f: &mut Fields<'_>) -> Option<Value> {
    let e = f.get("outputSchema")?;
    let schema = e.value.to_json();
    match crate::tools::schema::ArgsSchema::compile(&schema) {
        Ok(_) => Some(schema),
        Err(why) => {
            ctx.err(
                K::InvalidValue,
                e.value.mark,
                Some("outputSchema"),
                format!("not a usable JSON Schema: {why}"),
            );
            None
        }
    }
}

/// An http tool's `method`, `path` (its placeholders checked against the path
/// parameters), `headers` and `requestBody`, into `fields`.
fn decode_http_fields(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    user: &str,
    parameters: &[Parameter],
    fields: &mut Map<String, Value>,
) {
    if let Some((method, m)) = f.required_string(ctx, "method", user) {
        if !HTTP_METHODS.contains(&method.to_ascii_uppercase().as_str()) {
            ctx.err(
                K::InvalidValue,
                m,
                Some("method"),
                format!(
                    "unknown http method '{}' (expected one of {})",
                    short(&method),
                    HTTP_METHODS.join(", ")
                ),
            );
        }
        fields.insert("method".into(), Value::String(method.to_ascii_uppercase()));
    }
    let path = f.required_string(ctx, "path", user);
    if let Some((path, m)) = &path {
        fields.insert("path".into(), Value::String(path.clone()));
        check_template(ctx, path, *m, "path", parameters, ParamRole::Path);
    }
    if let Some(h) = f.string_map(ctx, "headers") {
        fields.insert("headers".into(), Value::Object(h));
    }
    if let Some((body, _)) = f.string(ctx, "requestBody") {
        fields.insert("requestBody".into(), Value::String(body));
    }
}

/// A `redis` or `valkey` tool's `commands`: a non-empty list of commands, each a
/// non-empty list of words (scalars, read as strings, as Toolbox's `[][]string`). A
/// word that is a whole `$name` takes parameter `name`'s value when the tool is
/// called; any other word is sent as written.
fn decode_commands(ctx: &mut Ctx<'_>, f: &mut Fields<'_>, user: &str) -> Option<Value> {
    let Some(entry) = f.get("commands") else {
        ctx.err(
            K::MissingField,
            f.mark,
            Some(&f.path("commands")),
            format!("{user} has no 'commands'"),
        );
        return None;
    };
    let Y::Seq(commands) = &entry.value.value else {
        mistyped(ctx, &entry.value, &f.path("commands"), "a list of commands");
        return None;
    };
    if commands.is_empty() {
        ctx.err(
            K::InvalidValue,
            entry.value.mark,
            Some(&f.path("commands")),
            format!("{user} has no commands to run"),
        );
        return None;
    }
    let mut out = Vec::with_capacity(commands.len());
    for (i, command) in commands.iter().enumerate() {
        let path = format!("{}[{i}]", f.path("commands"));
        let words = match &command.value {
            Y::Seq(words) if !words.is_empty() => words,
            Y::Seq(_) => {
                ctx.err(K::InvalidValue, command.mark, Some(&path), "a command needs a name");
                return None;
            }
            _ => {
                mistyped(ctx, command, &path, "a list of command words");
                return None;
            }
        };
        let mut strings = Vec::with_capacity(words.len());
        for (j, word) in words.iter().enumerate() {
            let Some(s) = word.scalar_string() else {
                mistyped(ctx, word, &format!("{path}[{j}]"), "a string");
                return None;
            };
            strings.push(Value::String(s));
        }
        out.push(Value::Array(strings));
    }
    Some(Value::Array(out))
}

/// The statement's template placeholders and its dialect's parameter placeholders
/// match the declared parameters (when every parameter was accepted:
/// `parameters_ok`); template parameters need a statement.
fn check_statement(
    ctx: &mut Ctx<'_>,
    statement: Option<&(String, Mark)>,
    tool_type: Option<&str>,
    parameters: &[Parameter],
    parameters_ok: bool,
    mark: Mark,
    user: &str,
) {
    if let Some((statement, m)) = statement {
        if parameters.iter().any(|p| p.role == ParamRole::Template) {
            check_template(ctx, statement, *m, "statement", parameters, ParamRole::Template);
        }
        if let Some(dialect) = tool_type.and_then(crate::tools::config::dialect_of)
            && parameters_ok
        {
            let declared: Vec<&str> = parameters
                .iter()
                .filter(|p| p.role == ParamRole::Parameter)
                .map(|p| p.name.as_str())
                .collect();
            if let Err(e) = placeholders::check(statement, dialect, &declared) {
                let at = e.offset.map_or(*m, |o| line_of(ctx, *m, statement, o));
                ctx.err(
                    K::InvalidTemplate,
                    at,
                    Some("statement"),
                    format!("{user}: {}", e.message),
                );
            }
        }
    } else if let Some(p) = parameters.iter().find(|p| p.role == ParamRole::Template) {
        ctx.err(
            K::InvalidTemplate,
            mark,
            Some("templateParameters"),
            format!("{user} declares template parameter '{}' but has no statement", p.name),
        );
    }
}

/// `node`'s items, or `None` with "expected a list of {what}, got a ..." reported at
/// `field`: the one wording every list field of a configuration uses.
pub(super) fn list_of<'a>(
    ctx: &mut Ctx<'_>,
    node: &'a Node,
    field: &str,
    what: &str,
) -> Option<&'a [Node]> {
    if let Y::Seq(items) = &node.value {
        return Some(items);
    }
    mistyped(ctx, node, field, &format!("a list of {what}"));
    None
}

/// Reports `node` at `field` as not what was `expected`: "expected {expected}, got a
/// {its type}".
pub(super) fn mistyped(ctx: &mut Ctx<'_>, node: &Node, field: &str, expected: &str) {
    ctx.err(
        K::InvalidValue,
        node.mark,
        Some(field),
        format!("expected {expected}, got a {}", node.type_name()),
    );
}

/// Reads the fields of one mapping, remembering which were read so the rest can be
/// reported as unknown. A field whose value is `null` counts as absent.
pub(super) struct Fields<'n> {
    pub(super) entries: &'n [Entry],
    used: Vec<bool>,
    pub(super) mark: Mark,
    prefix: String,
}

impl<'n> Fields<'n> {
    pub(super) fn new(entries: &'n [Entry], mark: Mark, prefix: &str) -> Fields<'n> {
        Fields { entries, used: vec![false; entries.len()], mark, prefix: prefix.to_string() }
    }

    pub(super) fn path(&self, key: &str) -> String {
        if self.prefix.is_empty() { key.to_string() } else { format!("{}.{key}", self.prefix) }
    }

    pub(super) fn get(&mut self, key: &str) -> Option<&'n Entry> {
        let i = self.entries.iter().position(|e| e.key == key)?;
        self.used[i] = true;
        let e = &self.entries[i];
        (e.value.value != Y::Null).then_some(e)
    }

    /// The list under `key`: `None` when absent, and `None` with the error reported
    /// when it is not a list (see [`list_of`]).
    pub(super) fn list(&mut self, ctx: &mut Ctx<'_>, key: &str, what: &str) -> Option<&'n [Node]> {
        let e = self.get(key)?;
        list_of(ctx, &e.value, &self.path(key), what)
    }

    pub(super) fn string(&mut self, ctx: &mut Ctx<'_>, key: &str) -> Option<(String, Mark)> {
        let e = self.get(key)?;
        let s = e.value.scalar_string();
        if s.is_none() {
            mistyped(ctx, &e.value, &self.path(key), "a string");
        }
        Some((s?, e.value.mark))
    }

    pub(super) fn required_string(
        &mut self,
        ctx: &mut Ctx<'_>,
        key: &str,
        what: &str,
    ) -> Option<(String, Mark)> {
        let present = self.entries.iter().any(|e| e.key == key && e.value.value != Y::Null);
        if !present {
            self.get(key);
            ctx.err(
                K::MissingField,
                self.mark,
                Some(&self.path(key)),
                format!("{what} has no '{key}'"),
            );
            return None;
        }
        self.string(ctx, key)
    }

    pub(super) fn boolean(&mut self, ctx: &mut Ctx<'_>, key: &str) -> Option<bool> {
        let e = self.get(key)?;
        if let Y::Bool(b) = e.value.value {
            return Some(b);
        }
        mistyped(ctx, &e.value, &self.path(key), "true or false");
        None
    }

    pub(super) fn string_map(
        &mut self,
        ctx: &mut Ctx<'_>,
        key: &str,
    ) -> Option<Map<String, Value>> {
        let e = self.get(key)?;
        let Y::Map(entries) = &e.value.value else {
            mistyped(ctx, &e.value, &self.path(key), "a mapping of strings");
            return None;
        };
        let mut out = Map::new();
        for entry in entries {
            match entry.value.scalar_string() {
                Some(s) => {
                    out.insert(entry.key.clone(), Value::String(s));
                }
                None => ctx.err(
                    K::InvalidValue,
                    entry.value.mark,
                    Some(&format!("{}.{}", self.path(key), entry.key)),
                    format!("expected a string, got a {}", entry.value.type_name()),
                ),
            }
        }
        Some(out)
    }

    /// The fields not read yet (marking them read).
    pub(super) fn rest(&mut self) -> Vec<&'n Entry> {
        let out =
            self.entries.iter().zip(&self.used).filter(|(_, u)| !**u).map(|(e, _)| e).collect();
        self.used.iter_mut().for_each(|u| *u = true);
        out
    }

    pub(super) fn report_unknown(&mut self, ctx: &mut Ctx<'_>, what: &str) {
        for e in self.rest() {
            ctx.err(
                K::UnknownField,
                e.key_mark,
                Some(&self.path(&e.key)),
                format!("unknown field '{}' of {what}", short(&e.key)),
            );
        }
    }
}

/// The position of byte `offset` of a scalar's `text` whose value starts at `mark`.
/// Only a literal block scalar (`|`) keeps its lines as written: its content starts
/// on the line below the indicator, each line indented alike, so line k of the text
/// is found exactly. Other styles fold lines, so they point at the scalar's start.
pub(super) fn line_of(ctx: &Ctx<'_>, mark: Mark, text: &str, offset: usize) -> Mark {
    let source: Vec<&str> = ctx.text.lines().collect();
    // The scalar's mark is its first content line; the line above ends in the
    // indicator (`|`, `|-`, `|+`, `|2`..., maybe a comment after it).
    let above = mark.line.checked_sub(2).and_then(|i| source.get(i)).copied().unwrap_or("");
    let above = above.split(" #").next().unwrap_or("").trim_end();
    let literal = above.rsplit([' ', ':']).next().is_some_and(|t| t.starts_with('|'));
    if !literal {
        return mark;
    }
    let before = &text[..offset.min(text.len())];
    let k = before.matches('\n').count();
    let column = before.rfind('\n').map_or(before.len(), |n| before.len() - n - 1);
    let line = mark.line + k;
    let indent = mark.column.saturating_sub(1);
    Mark { line, column: indent + column + 1 }
}
