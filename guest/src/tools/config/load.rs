//! Decoding YAML documents into resources: v1 conversion, per-kind field checks,
//! parameters, templates, then cross-references. Every error is collected.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use super::yaml::{self, Entry, Mark, Node, Value as Y};
use super::{
    AuthServiceConfig, Config, ConfigError, ConfigErrorKind as K, Location, MAX_NAME_LEN,
    RUNNABLE_TOOL_TYPES, ResourceKind, SourceConfig, ToolAnnotations, ToolConfig, ToolsetConfig,
    is_valid_name,
};
use crate::tools::params::{
    self, AuthField, Escape, ParamRole, ParamType, Parameter, Template, TemplatePart, ValueMatcher,
};
use crate::vfs::limits::MAX_CONFIG_BYTES;

/// Statement tool types whose fields are known exactly.
const STRICT_SQL_TYPES: &[&str] = &["sqlite-sql", "postgres-sql", "mysql-sql", "mssql-sql"];
/// HTTP methods an http tool may use.
const HTTP_METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// The tool field families, by how well this host knows the type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Sql,
    Http,
    Other,
}

/// A name used by one resource to point at another, checked once everything is loaded.
struct Ref {
    target: ResourceKind,
    name: String,
    /// The resource that uses it (noun and name), for messages.
    user: String,
    field: String,
    location: Location,
    /// For a tool's source: the tool type (to check the source's type).
    tool_type: Option<String>,
}

#[derive(Default)]
struct State {
    config: Config,
    errors: Vec<ConfigError>,
    /// First definition of each name, per kind.
    defined: HashMap<(ResourceKind, String), Location>,
    refs: Vec<Ref>,
}

/// Where errors go: the file and document being decoded.
struct Ctx<'a> {
    file: &'a str,
    document: usize,
    errors: &'a mut Vec<ConfigError>,
}

impl Ctx<'_> {
    fn loc(&self, mark: Mark) -> Location {
        Location {
            file: self.file.to_string(),
            document: self.document,
            line: mark.line,
            column: mark.column,
        }
    }

    fn err(&mut self, kind: K, mark: Mark, field: Option<&str>, message: impl Into<String>) {
        let location = self.loc(mark);
        self.errors.push(ConfigError {
            kind,
            location,
            field: field.map(str::to_string),
            message: message.into(),
        });
    }
}

pub(super) fn load<'a>(
    files: impl Iterator<Item = (&'a str, &'a str)>,
) -> Result<Config, Vec<ConfigError>> {
    let mut state = State::default();
    let mut order: Vec<String> = Vec::new();
    for (file, text) in files {
        order.push(file.to_string());
        load_file(&mut state, file, text);
    }
    check_refs(&mut state);
    if state.errors.is_empty() {
        return Ok(state.config);
    }
    let rank = |e: &ConfigError| {
        let f = order.iter().position(|n| *n == e.location.file).unwrap_or(usize::MAX);
        (f, e.location.document, e.location.line, e.location.column)
    };
    state.errors.sort_by_key(rank);
    Err(state.errors)
}

fn load_file(state: &mut State, file: &str, text: &str) {
    let mut ctx = Ctx { file, document: 1, errors: &mut state.errors };
    if text.len() > MAX_CONFIG_BYTES {
        ctx.err(
            K::TooLarge,
            Mark { line: 1, column: 1 },
            None,
            format!("file is {} bytes; the limit is {MAX_CONFIG_BYTES}", text.len()),
        );
        return;
    }
    let docs = match yaml::parse_stream(text) {
        Ok(docs) => docs,
        Err(errors) => {
            for e in errors {
                ctx.document = e.document;
                ctx.err(K::Syntax, e.mark, None, e.message);
            }
            return;
        }
    };
    for doc in docs {
        let Some(root) = doc.root else { continue };
        let mut decoded = Vec::new();
        {
            let mut ctx = Ctx { file, document: doc.index, errors: &mut state.errors };
            split_document(&mut ctx, &root, &mut decoded);
        }
        for raw in decoded {
            let mut ctx = Ctx { file, document: doc.index, errors: &mut state.errors };
            let mut refs = Vec::new();
            let resource = decode_resource(&mut ctx, &raw, &mut refs);
            register(state, file, doc.index, raw, resource, refs);
        }
    }
}

/// One resource as a v2 document, before decoding.
struct Raw {
    kind: ResourceKind,
    name: Option<(String, Mark)>,
    mark: Mark,
    body: Vec<Entry>,
}

/// Splits a document into v2 resources: itself (v2) or one per v1 entry.
fn split_document(ctx: &mut Ctx<'_>, root: &Node, out: &mut Vec<Raw>) {
    let Y::Map(entries) = &root.value else {
        ctx.err(
            K::InvalidDocument,
            root.mark,
            None,
            format!("a document must be a mapping, got a {}", root.type_name()),
        );
        return;
    };
    if let Some(kind) = entries.iter().find(|e| e.key == "kind") {
        let kind = match &kind.value.value {
            Y::Str(s) => match ResourceKind::parse(s) {
                Some(k) => k,
                None => {
                    ctx.err(
                        K::UnknownKind,
                        kind.value.mark,
                        Some("kind"),
                        format!(
                            "unknown kind '{s}' (expected source, authService, tool or toolset, or their plurals)"
                        ),
                    );
                    return;
                }
            },
            _ => {
                ctx.err(
                    K::InvalidValue,
                    kind.value.mark,
                    Some("kind"),
                    format!("expected a string, got a {}", kind.value.type_name()),
                );
                return;
            }
        };
        let name = match entries.iter().find(|e| e.key == "name") {
            Some(e) => match e.value.scalar_string() {
                Some(s) => Some((s, e.value.mark)),
                None => {
                    ctx.err(
                        K::InvalidValue,
                        e.value.mark,
                        Some("name"),
                        format!("expected a string, got a {}", e.value.type_name()),
                    );
                    return;
                }
            },
            None => None,
        };
        let body = entries.iter().filter(|e| e.key != "kind" && e.key != "name").cloned().collect();
        out.push(Raw { kind, name, mark: root.mark, body });
        return;
    }
    let is_v1 = entries.iter().any(|e| v1_section(&e.key).is_some());
    if !is_v1 {
        ctx.err(
            K::InvalidDocument,
            root.mark,
            None,
            "document has no 'kind' (v2) and none of the v1 sections sources, authServices, tools, toolsets",
        );
        return;
    }
    for section in entries {
        let Some(kind) = v1_section(&section.key) else {
            ctx.err(
                K::UnknownField,
                section.key_mark,
                Some(&section.key),
                format!(
                    "unknown v1 section '{}' (expected sources, authServices, tools or toolsets)",
                    section.key
                ),
            );
            continue;
        };
        let items = match &section.value.value {
            Y::Map(items) => items.as_slice(),
            Y::Null => &[],
            _ => {
                ctx.err(
                    K::InvalidValue,
                    section.value.mark,
                    Some(&section.key),
                    format!(
                        "a v1 section maps names to {}, got a {}",
                        kind.plural(),
                        section.value.type_name()
                    ),
                );
                continue;
            }
        };
        for item in items {
            let path = format!("{}.{}", section.key, item.key);
            let body = match (&item.value.value, kind) {
                (Y::Seq(_), ResourceKind::Toolset) => {
                    vec![Entry {
                        key: "tools".into(),
                        key_mark: item.value.mark,
                        value: item.value.clone(),
                    }]
                }
                (Y::Map(fields), k) if k != ResourceKind::Toolset => {
                    if fields.iter().any(|f| f.key == "kind")
                        && fields.iter().any(|f| f.key == "type")
                    {
                        ctx.err(
                            K::InvalidValue,
                            item.value.mark,
                            Some(&path),
                            "a v1 entry has 'kind' (its type), not both 'kind' and 'type'",
                        );
                        continue;
                    }
                    if let Some(f) = fields.iter().find(|f| f.key == "name") {
                        ctx.err(
                            K::UnknownField,
                            f.key_mark,
                            Some(&format!("{path}.name")),
                            "a v1 entry is named by its key; remove 'name'",
                        );
                        continue;
                    }
                    fields
                        .iter()
                        .map(|f| {
                            let mut f = f.clone();
                            if f.key == "kind" {
                                f.key = "type".into();
                            }
                            f
                        })
                        .collect()
                }
                (value, k) => {
                    let want = if k == ResourceKind::Toolset {
                        "a list of tool names"
                    } else {
                        "a mapping"
                    };
                    ctx.err(
                        K::InvalidValue,
                        item.value.mark,
                        Some(&path),
                        format!("expected {want}, got a {}", node_type(value)),
                    );
                    continue;
                }
            };
            out.push(Raw {
                kind,
                name: Some((item.key.clone(), item.key_mark)),
                mark: item.value.mark,
                body,
            });
        }
    }
}

fn v1_section(key: &str) -> Option<ResourceKind> {
    match key {
        "sources" => Some(ResourceKind::Source),
        "authServices" | "authSources" => Some(ResourceKind::AuthService),
        "tools" => Some(ResourceKind::Tool),
        "toolsets" => Some(ResourceKind::Toolset),
        _ => None,
    }
}

fn node_type(v: &Y) -> &'static str {
    Node { mark: Mark::default(), value: v.clone() }.type_name()
}

enum Resource {
    Source(SourceConfig),
    AuthService(AuthServiceConfig),
    Tool(Box<ToolConfig>),
    Toolset(ToolsetConfig),
}

/// Registers a decoded resource: name rule, duplicates, the v2 document.
fn register(
    state: &mut State,
    file: &str,
    document: usize,
    raw: Raw,
    resource: Option<Resource>,
    refs: Vec<Ref>,
) {
    let mut ctx = Ctx { file, document, errors: &mut state.errors };
    let Some((name, name_mark)) = raw.name else {
        ctx.err(
            K::MissingField,
            raw.mark,
            Some("name"),
            format!("{} has no 'name'", raw.kind.noun()),
        );
        return;
    };
    if !is_valid_name(&name) {
        ctx.err(
            K::InvalidName,
            name_mark,
            Some("name"),
            format!(
                "invalid {} name '{}': use 1 to {MAX_NAME_LEN} of the characters A-Z a-z 0-9 _ . -",
                raw.kind.noun(),
                short(&name)
            ),
        );
        return;
    }
    let here = ctx.loc(name_mark);
    if let Some(first) = state.defined.get(&(raw.kind, name.clone())) {
        let message =
            format!("duplicate {} name '{name}' (first defined at {first})", raw.kind.noun());
        ctx.err(K::DuplicateName, name_mark, Some("name"), message);
        return;
    }
    state.defined.insert((raw.kind, name.clone()), here);
    state.refs.extend(refs);
    let Some(resource) = resource else { return };
    let mut doc = Map::new();
    doc.insert("kind".into(), Value::String(raw.kind.plural().into()));
    doc.insert("name".into(), Value::String(name.clone()));
    for e in &raw.body {
        doc.insert(e.key.clone(), e.value.to_json());
    }
    state.config.documents.push(Value::Object(doc));
    let c = &mut state.config;
    match resource {
        Resource::Source(mut s) => {
            s.name = name;
            c.sources.push(s);
        }
        Resource::AuthService(mut s) => {
            s.name = name;
            c.auth_services.push(s);
        }
        Resource::Tool(mut t) => {
            t.name = name;
            if let Some(Value::Object(doc)) = c.documents.last() {
                t.document = doc.clone();
            }
            c.tools.push(*t);
        }
        Resource::Toolset(mut t) => {
            t.name = name;
            c.toolsets.push(t);
        }
    }
}

/// Decodes one resource's fields. `None` when an error makes it unusable (the errors
/// are recorded either way).
fn decode_resource(ctx: &mut Ctx<'_>, raw: &Raw, refs: &mut Vec<Ref>) -> Option<Resource> {
    let display_name =
        raw.name.as_ref().map_or_else(|| "<unnamed>".to_string(), |(n, _)| n.clone());
    let before = ctx.errors.len();
    let mut f = Fields::new(&raw.body, raw.mark, "");
    let location = ctx.loc(raw.name.as_ref().map_or(raw.mark, |(_, m)| *m));
    let resource = match raw.kind {
        ResourceKind::Source => {
            let source_type = f.required_string(ctx, "type", &format!("source '{display_name}'"));
            let strict = match source_type.as_ref().map(|(t, _)| t.as_str()) {
                Some("sqlite") => {
                    f.required_string(ctx, "database", &format!("sqlite source '{display_name}'"));
                    true
                }
                Some("http") => {
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
                _ => false,
            };
            if strict {
                f.report_unknown(ctx, &format!("source '{display_name}'"));
            }
            let fields = raw
                .body
                .iter()
                .filter(|e| e.key != "type")
                .map(|e| (e.key.clone(), e.value.to_json()))
                .collect();
            source_type.map(|(source_type, _)| {
                Resource::Source(SourceConfig {
                    name: String::new(),
                    source_type,
                    fields,
                    location,
                })
            })
        }
        ResourceKind::AuthService => {
            let service_type =
                f.required_string(ctx, "type", &format!("auth service '{display_name}'"));
            let fields = raw
                .body
                .iter()
                .filter(|e| e.key != "type")
                .map(|e| (e.key.clone(), e.value.to_json()))
                .collect();
            service_type.map(|(service_type, _)| {
                Resource::AuthService(AuthServiceConfig {
                    name: String::new(),
                    service_type,
                    fields,
                    location,
                })
            })
        }
        ResourceKind::Toolset => {
            let user = format!("toolset '{display_name}'");
            let mut tools = Vec::new();
            match f.get("tools") {
                None => ctx.err(
                    K::MissingField,
                    raw.mark,
                    Some("tools"),
                    format!("{user} has no 'tools' list"),
                ),
                Some(e) => match &e.value.value {
                    Y::Seq(items) => {
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
                                ctx.err(
                                    K::DuplicateName,
                                    item.mark,
                                    Some(&field),
                                    format!("{user} lists tool '{name}' twice"),
                                );
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
                    _ => ctx.err(
                        K::InvalidValue,
                        e.value.mark,
                        Some("tools"),
                        format!("expected a list of tool names, got a {}", e.value.type_name()),
                    ),
                },
            }
            f.report_unknown(ctx, &user);
            Some(Resource::Toolset(ToolsetConfig { name: String::new(), tools, location }))
        }
        ResourceKind::Tool => decode_tool(ctx, &mut f, raw.mark, &display_name, location, refs)
            .map(|t| Resource::Tool(Box::new(t))),
    };
    // A resource with errors is not registered as usable, but its name still counts
    // (so duplicates and references to it are not reported twice).
    if ctx.errors.len() > before { None } else { resource }
}

fn decode_tool(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    mark: Mark,
    name: &str,
    location: Location,
    refs: &mut Vec<Ref>,
) -> Option<ToolConfig> {
    let user = format!("tool '{name}'");
    let tool_type = f.required_string(ctx, "type", &user).map(|(t, _)| t);
    let family = match tool_type.as_deref() {
        Some("http") => Family::Http,
        Some(t) if STRICT_SQL_TYPES.contains(&t) => Family::Sql,
        _ => Family::Other,
    };
    let description =
        f.required_string(ctx, "description", &user).map(|(d, _)| d).unwrap_or_default();
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
    let statement = if family == Family::Sql {
        f.required_string(ctx, "statement", &user)
    } else {
        f.string(ctx, "statement")
    };

    let mut parameters: Vec<Parameter> = Vec::new();
    let mut declared_at: HashMap<String, String> = HashMap::new();
    for role in ParamRole::ALL {
        let http_role = !matches!(role, ParamRole::Parameter | ParamRole::Template);
        // http tools take the http lists only; other tools `parameters` and
        // `templateParameters`. The rest is reported unknown (or kept in `fields`).
        if http_role != (family == Family::Http) {
            continue;
        }
        for (path, p) in decode_param_list(ctx, f, role, refs, &user) {
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

    let mut auth_required = Vec::new();
    if let Some(e) = f.get("authRequired") {
        match &e.value.value {
            Y::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let field = format!("authRequired[{i}]");
                    match item.scalar_string() {
                        Some(s) => {
                            refs.push(Ref {
                                target: ResourceKind::AuthService,
                                name: s.clone(),
                                user: user.clone(),
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
            }
            _ => ctx.err(
                K::InvalidValue,
                e.value.mark,
                Some("authRequired"),
                format!("expected a list of auth service names, got a {}", e.value.type_name()),
            ),
        }
    }

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

    let mut fields = Map::new();
    if family == Family::Http {
        if let Some((method, m)) = f.required_string(ctx, "method", &user) {
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
        let path = f.required_string(ctx, "path", &user);
        if let Some((path, m)) = &path {
            fields.insert("path".into(), Value::String(path.clone()));
            check_template(ctx, path, *m, "path", &parameters, ParamRole::Path);
        }
        if let Some(h) = f.string_map(ctx, "headers") {
            fields.insert("headers".into(), Value::Object(h));
        }
        if let Some((body, _)) = f.string(ctx, "requestBody") {
            fields.insert("requestBody".into(), Value::String(body));
        }
    }
    if family == Family::Other {
        for e in f.rest() {
            fields.insert(e.key.clone(), e.value.to_json());
        }
    } else {
        f.report_unknown(ctx, &user);
    }

    if let Some((statement, m)) = &statement {
        if parameters.iter().any(|p| p.role == ParamRole::Template) {
            check_template(ctx, statement, *m, "statement", &parameters, ParamRole::Template);
        }
    } else if let Some(p) = parameters.iter().find(|p| p.role == ParamRole::Template) {
        ctx.err(
            K::InvalidTemplate,
            mark,
            Some("templateParameters"),
            format!("{user} declares template parameter '{}' but has no statement", p.name),
        );
    }

    Some(ToolConfig {
        name: String::new(),
        tool_type: tool_type?,
        source: source.map(|(s, _)| s),
        description,
        statement: statement.map(|(s, _)| s),
        parameters,
        auth_required,
        annotations,
        fields,
        document: Map::new(),
        location,
    })
}

/// The mark of a parameter's entry, for a duplicate-name error.
fn p_mark(f: &Fields<'_>, path: &str) -> Mark {
    let (list, index) = path.split_once('[').unwrap_or((path, "0]"));
    let index: usize = index.trim_end_matches(']').parse().unwrap_or(0);
    f.entries
        .iter()
        .find(|e| e.key == list)
        .and_then(|e| match &e.value.value {
            Y::Seq(items) => items.get(index).map(|n| n.mark),
            _ => None,
        })
        .unwrap_or(f.mark)
}

/// Checks the template actions of `text` against the parameters of `role`.
fn check_template(
    ctx: &mut Ctx<'_>,
    text: &str,
    mark: Mark,
    field: &str,
    params: &[Parameter],
    role: ParamRole,
) {
    let template = match Template::parse(text) {
        Ok(t) => t,
        Err(e) => {
            ctx.err(K::InvalidTemplate, mark, Some(field), e);
            return;
        }
    };
    for part in template.parts() {
        let (name, array) = match part {
            TemplatePart::Text(_) => continue,
            TemplatePart::Value(n) => (n, false),
            TemplatePart::Array(n) => (n, true),
        };
        let Some(p) = params.iter().find(|p| p.name == *name && p.role == role) else {
            ctx.err(
                K::InvalidTemplate,
                mark,
                Some(field),
                format!("template names '{name}', which is not declared in {}", role.field()),
            );
            continue;
        };
        let problem = match (array, p.param_type) {
            (true, ParamType::Array) => None,
            (true, t) => {
                Some(format!("{{{{array .{name}}}}} needs an array parameter; '{name}' is {t}"))
            }
            (false, ParamType::Array) => {
                Some(format!("'{name}' is an array; insert it with {{{{array .{name}}}}}"))
            }
            (false, ParamType::Map) => {
                Some(format!("'{name}' is a map, which cannot be inserted into a template"))
            }
            (false, _) => None,
        };
        if let Some(problem) = problem {
            ctx.err(K::InvalidTemplate, mark, Some(field), problem);
        }
    }
}

/// Decodes the parameter list of `role`, returning each parameter with its field path.
fn decode_param_list(
    ctx: &mut Ctx<'_>,
    f: &mut Fields<'_>,
    role: ParamRole,
    refs: &mut Vec<Ref>,
    user: &str,
) -> Vec<(String, Parameter)> {
    let key = role.field();
    let Some(e) = f.get(key) else { return Vec::new() };
    let Y::Seq(items) = &e.value.value else {
        ctx.err(
            K::InvalidValue,
            e.value.mark,
            Some(key),
            format!("expected a list of parameters, got a {}", e.value.type_name()),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("{key}[{i}]");
        if let Some(p) = decode_param(ctx, item, &path, role, false, refs, user) {
            out.push((path, p));
        }
    }
    out
}

fn decode_param(
    ctx: &mut Ctx<'_>,
    node: &Node,
    path: &str,
    role: ParamRole,
    item: bool,
    refs: &mut Vec<Ref>,
    user: &str,
) -> Option<Parameter> {
    let Y::Map(entries) = &node.value else {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some(path),
            format!("a parameter must be a mapping, got a {}", node.type_name()),
        );
        return None;
    };
    let before = ctx.errors.len();
    let mut f = Fields::new(entries, node.mark, path);
    let what = format!("parameter {path} of {user}");
    let name = if item { f.string(ctx, "name") } else { f.required_string(ctx, "name", &what) };
    if let Some((n, m)) = &name
        && !is_valid_name(n)
    {
        let message = format!(
            "invalid parameter name '{}': use 1 to {MAX_NAME_LEN} of the characters A-Z a-z 0-9 _ . -",
            short(n)
        );
        ctx.err(K::InvalidName, *m, Some(&f.path("name")), message);
    }
    let name =
        name.map_or_else(|| if item { "item".to_string() } else { String::new() }, |(n, _)| n);
    let param_type = match f.required_string(ctx, "type", &what) {
        Some((t, m)) => match ParamType::parse(&t) {
            Some(t) => Some(t),
            None => {
                ctx.err(K::InvalidValue, m, Some(&f.path("type")), format!("unknown parameter type '{}' (expected string, integer, float, boolean, array or map)", short(&t)));
                None
            }
        },
        None => None,
    };
    let mut p = Parameter::new(name, param_type.unwrap_or(ParamType::String)).role(role);
    p.description = f.string(ctx, "description").map(|(s, _)| s).unwrap_or_default();
    let required = f.boolean(ctx, "required");
    let default = f.get("default").map(|e| (e.value.to_json(), e.value.mark));
    if !item {
        // Items "should not have a default or required value; if provided, it is ignored".
        p.required = required.unwrap_or(true);
    }
    for (key, target) in
        [("allowedValues", &mut p.allowed_values), ("excludedValues", &mut p.excluded_values)]
    {
        if let Some(e) = f.get(key) {
            match &e.value.value {
                Y::Seq(entries) => {
                    *target = entries.iter().map(|n| ValueMatcher::new(n.to_json())).collect()
                }
                _ => ctx.err(
                    K::InvalidValue,
                    e.value.mark,
                    Some(&f.path(key)),
                    format!("expected a list of values, got a {}", e.value.type_name()),
                ),
            }
        }
    }
    let t = p.param_type;
    if let Some(e) = f.get("items") {
        if t == ParamType::Array {
            let items_path = f.path("items");
            p.items =
                decode_param(ctx, &e.value, &items_path, role, true, refs, user).map(Box::new);
        } else {
            ctx.err(
                K::InvalidValue,
                e.key_mark,
                Some(&f.path("items")),
                format!("'items' applies to array parameters; '{}' is {t}", p.name),
            );
        }
    } else if t == ParamType::Array && param_type.is_some() {
        ctx.err(
            K::MissingField,
            node.mark,
            Some(&f.path("items")),
            format!("array parameter '{}' needs 'items'", p.name),
        );
    }
    if let Some((v, m)) = f.string(ctx, "valueType") {
        match ParamType::parse(&v).filter(|v| v.is_scalar()) {
            Some(vt) if t == ParamType::Map => p.value_type = Some(vt),
            Some(_) => ctx.err(
                K::InvalidValue,
                m,
                Some(&f.path("valueType")),
                format!("'valueType' applies to map parameters; '{}' is {t}", p.name),
            ),
            None => ctx.err(
                K::InvalidValue,
                m,
                Some(&f.path("valueType")),
                format!(
                    "unknown value type '{}' (expected string, integer, float or boolean)",
                    short(&v)
                ),
            ),
        }
    }
    if let Some((v, m)) = f.string(ctx, "escape") {
        let string_items = p.items.as_ref().is_some_and(|i| i.param_type == ParamType::String);
        match Escape::parse(&v) {
            Some(e) if t == ParamType::String || string_items => p.escape = Some(e),
            Some(_) => ctx.err(K::InvalidValue, m, Some(&f.path("escape")), format!("'escape' applies to string parameters and arrays of strings; '{}' is {t}", p.name)),
            None => ctx.err(K::InvalidValue, m, Some(&f.path("escape")), format!("unknown escape '{}' (expected single-quotes, double-quotes, backticks or square-brackets)", short(&v))),
        }
    }
    for key in ["minValue", "maxValue"] {
        let Some(e) = f.get(key) else { continue };
        let n = match e.value.value {
            Y::Int(i) => Some(Number::from(i)),
            Y::Float(x) => Number::from_f64(x),
            _ => None,
        };
        let Some(n) = n else {
            ctx.err(
                K::InvalidValue,
                e.value.mark,
                Some(&f.path(key)),
                format!("expected a number, got a {}", e.value.type_name()),
            );
            continue;
        };
        if !matches!(t, ParamType::Integer | ParamType::Float) {
            ctx.err(
                K::InvalidValue,
                e.key_mark,
                Some(&f.path(key)),
                format!("'{key}' applies to integer and float parameters; '{}' is {t}", p.name),
            );
            continue;
        }
        if key == "minValue" { p.min_value = Some(n) } else { p.max_value = Some(n) }
    }
    if let (Some(min), Some(max)) = (&p.min_value, &p.max_value)
        && min.as_f64() > max.as_f64()
    {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some(&f.path("minValue")),
            format!("minValue {min} is greater than maxValue {max}"),
        );
    }
    for key in ["authServices", "authSources"] {
        let Some(e) = f.get(key) else { continue };
        let Y::Seq(items) = &e.value.value else {
            ctx.err(
                K::InvalidValue,
                e.value.mark,
                Some(&f.path(key)),
                format!("expected a list of {{name, field}}, got a {}", e.value.type_name()),
            );
            continue;
        };
        for (i, a) in items.iter().enumerate() {
            let apath = format!("{}[{i}]", f.path(key));
            let Y::Map(entries) = &a.value else {
                ctx.err(
                    K::InvalidValue,
                    a.mark,
                    Some(&apath),
                    format!("expected {{name, field}}, got a {}", a.type_name()),
                );
                continue;
            };
            let mut af = Fields::new(entries, a.mark, &apath);
            let service =
                af.required_string(ctx, "name", &format!("auth source {apath} of {user}"));
            let field = af.required_string(ctx, "field", &format!("auth source {apath} of {user}"));
            af.report_unknown(ctx, &format!("auth source {apath}"));
            if let (Some((service, sm)), Some((field, _))) = (service, field) {
                refs.push(Ref {
                    target: ResourceKind::AuthService,
                    name: service.clone(),
                    user: format!("parameter '{}' of {user}", p.name),
                    field: format!("{apath}.name"),
                    location: ctx.loc(sm),
                    tool_type: None,
                });
                p.auth_services.push(AuthField { service, field });
            }
        }
    }
    f.report_unknown(ctx, &format!("parameter '{}'", p.name));
    if ctx.errors.len() > before || param_type.is_none() {
        return None;
    }
    if let (false, Some((d, m))) = (item, default) {
        match params::validate_value(&p, &d) {
            Ok(_) => p.default = Some(d),
            Err(e) => {
                let reason = e
                    .message()
                    .strip_prefix(&format!("parameter '{}': ", p.name))
                    .unwrap_or(e.message());
                ctx.err(
                    K::InvalidValue,
                    m,
                    Some(&f.path("default")),
                    format!("default of '{}' is invalid: {reason}", p.name),
                );
                return None;
            }
        }
    }
    Some(p)
}

/// Decodes a standalone parameter list (a skill descriptor's `inputs`) with the
/// same rules as a tool's `parameters`, located in `file`. `authServices` is refused:
/// a descriptor has no configuration to resolve it against, and a skill's inputs
/// come from the model.
pub(super) fn decode_parameters(
    file: &str,
    node: &Node,
    field: &str,
) -> Result<Vec<Parameter>, Vec<ConfigError>> {
    let mut errors = Vec::new();
    let mut ctx = Ctx { file, document: 1, errors: &mut errors };
    let mut out: Vec<Parameter> = Vec::new();
    let Y::Seq(items) = &node.value else {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some(field),
            format!("expected a list of parameters, got a {}", node.type_name()),
        );
        return Err(errors);
    };
    let mut refs = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("{field}[{i}]");
        let Some(p) =
            decode_param(&mut ctx, item, &path, ParamRole::Parameter, false, &mut refs, field)
        else {
            continue;
        };
        if out.iter().any(|q| q.name == p.name) {
            ctx.err(
                K::DuplicateName,
                item.mark,
                Some(&path),
                format!("parameter '{}' is declared twice", p.name),
            );
        }
        out.push(p);
    }
    for r in refs {
        errors.push(ConfigError {
            kind: K::InvalidValue,
            location: r.location,
            field: Some(r.field),
            message: format!(
                "names auth service '{}': authServices are not allowed here (these values come from the model)",
                r.name
            ),
        });
    }
    if errors.is_empty() { Ok(out) } else { Err(errors) }
}

/// Checks every reference once all files are loaded, and the source type of tools
/// this host runs.
fn check_refs(state: &mut State) {
    let refs = std::mem::take(&mut state.refs);
    for r in refs {
        if !state.defined.contains_key(&(r.target, r.name.clone())) {
            let kind = match r.target {
                ResourceKind::Source => K::MissingSource,
                ResourceKind::Tool => K::MissingTool,
                _ => K::MissingAuthService,
            };
            state.errors.push(ConfigError {
                kind,
                location: r.location,
                field: Some(r.field),
                message: format!(
                    "{} names {} '{}', which is not defined",
                    r.user,
                    r.target.noun(),
                    r.name
                ),
            });
            continue;
        }
        let (Some(tool_type), ResourceKind::Source) = (&r.tool_type, r.target) else { continue };
        let Some(runnable) = RUNNABLE_TOOL_TYPES.iter().find(|t| t.tool_type == tool_type) else {
            continue;
        };
        let Some(source) = state.config.source(&r.name) else { continue };
        if source.source_type != runnable.source_type {
            state.errors.push(ConfigError {
                kind: K::SourceMismatch,
                location: r.location,
                field: Some(r.field),
                message: format!(
                    "{} of type {tool_type} needs a source of type {}; '{}' is {}",
                    r.user, runnable.source_type, r.name, source.source_type
                ),
            });
        }
    }
}

fn short(text: &str) -> String {
    if text.chars().count() <= 60 {
        return text.to_string();
    }
    format!("{}…", text.chars().take(60).collect::<String>())
}

/// Reads the fields of one mapping, remembering which were read so the rest can be
/// reported as unknown. A field whose value is `null` counts as absent.
struct Fields<'n> {
    entries: &'n [Entry],
    used: Vec<bool>,
    mark: Mark,
    prefix: String,
}

impl<'n> Fields<'n> {
    fn new(entries: &'n [Entry], mark: Mark, prefix: &str) -> Fields<'n> {
        Fields { entries, used: vec![false; entries.len()], mark, prefix: prefix.to_string() }
    }

    fn path(&self, key: &str) -> String {
        if self.prefix.is_empty() { key.to_string() } else { format!("{}.{key}", self.prefix) }
    }

    fn get(&mut self, key: &str) -> Option<&'n Entry> {
        let i = self.entries.iter().position(|e| e.key == key)?;
        self.used[i] = true;
        let e = &self.entries[i];
        (e.value.value != Y::Null).then_some(e)
    }

    fn string(&mut self, ctx: &mut Ctx<'_>, key: &str) -> Option<(String, Mark)> {
        let e = self.get(key)?;
        match e.value.scalar_string() {
            Some(s) => Some((s, e.value.mark)),
            None => {
                ctx.err(
                    K::InvalidValue,
                    e.value.mark,
                    Some(&self.path(key)),
                    format!("expected a string, got a {}", e.value.type_name()),
                );
                None
            }
        }
    }

    fn required_string(
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

    fn boolean(&mut self, ctx: &mut Ctx<'_>, key: &str) -> Option<bool> {
        let e = self.get(key)?;
        match e.value.value {
            Y::Bool(b) => Some(b),
            _ => {
                ctx.err(
                    K::InvalidValue,
                    e.value.mark,
                    Some(&self.path(key)),
                    format!("expected true or false, got a {}", e.value.type_name()),
                );
                None
            }
        }
    }

    fn string_map(&mut self, ctx: &mut Ctx<'_>, key: &str) -> Option<Map<String, Value>> {
        let e = self.get(key)?;
        let Y::Map(entries) = &e.value.value else {
            ctx.err(
                K::InvalidValue,
                e.value.mark,
                Some(&self.path(key)),
                format!("expected a mapping of strings, got a {}", e.value.type_name()),
            );
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
    fn rest(&mut self) -> Vec<&'n Entry> {
        let out =
            self.entries.iter().zip(&self.used).filter(|(_, u)| !**u).map(|(e, _)| e).collect();
        self.used.iter_mut().for_each(|u| *u = true);
        out
    }

    fn report_unknown(&mut self, ctx: &mut Ctx<'_>, what: &str) {
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
