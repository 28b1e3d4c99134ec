//! Decoding YAML documents into resources: v1 conversion, per-kind field checks,
//! parameters, templates, then cross-references. Every error is collected.

mod decode;
mod parameters;
mod schemas;

use decode::{Fields, decode_resource, list_of, mistyped};
use parameters::{check_template, decode_param, decode_param_list, p_mark};

pub(crate) use parameters::decode_parameters;
pub(super) use schemas::execute_sql_types;

use std::collections::HashMap;

use serde_json::{Map, Number, Value};

use super::yaml::{self, Entry, Mark, Node, Value as Y};
use super::{
    AuthServiceConfig, Config, ConfigError, ConfigErrorKind as K, EmbeddingModelConfig, Location,
    MAX_NAME_LEN, PromptConfig, ResourceKind, SourceConfig, ToolAnnotations, ToolConfig,
    ToolsetConfig, is_valid_name,
};
use crate::tools::params::{
    self, AuthField, Escape, ParamRole, ParamType, Parameter, Template, TemplatePart, ValueMatcher,
};
use crate::tools::placeholders;
use crate::vfs::limits::MAX_CONFIG_BYTES;

/// Statement tool types whose fields are known exactly.
pub(super) const STRICT_SQL_TYPES: &[&str] = &[
    "sqlite-sql",
    "postgres-sql",
    "cockroachdb-sql",
    "yugabytedb-sql",
    "mysql-sql",
    "tidb-sql",
    "mssql-sql",
    "bigquery-sql",
    "spanner-sql",
];
/// The `kind` of Toolbox 1.12's groups.
const GROUP: &str = "group";
/// HTTP methods an http tool may use.
const HTTP_METHODS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// The tool field families, by how well this host knows the type.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Family {
    Sql,
    /// `*-execute-sql`: the model supplies the statement (see `schemas`).
    Execute,
    Http,
    /// `redis` and `valkey`: `commands`, lists of command words, instead of a
    /// statement.
    Commands,
    /// A Toolbox prebuilt type with a fixed statement and parameters (`prebuilt`).
    Prebuilt(&'static super::prebuilt::PrebuiltTool),
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
    /// The file's text, to point inside multi-line scalars (see `decode::line_of`).
    text: &'a str,
    document: usize,
    errors: &'a mut Vec<ConfigError>,
    /// Parameters may omit `description` (a skill descriptor's `inputs`); Toolbox
    /// requires one of every parameter, item and prompt argument of a tools file.
    descriptions_optional: bool,
    /// The SQL dialect of the tool whose parameters are being decoded: what their
    /// `escape` quotes for (`params::Escape`); `None` outside SQL this host runs.
    dialect: Option<placeholders::Dialect>,
}

impl Ctx<'_> {
    fn loc(&self, mark: Mark) -> Location {
        Location::at(self.file, self.document, mark)
    }

    fn err(&mut self, kind: K, mark: Mark, field: Option<&str>, message: impl Into<String>) {
        let location = self.loc(mark);
        self.errors.push(ConfigError::at(kind, location, field, message));
    }
}

pub(super) fn load<'a>(
    files: impl Iterator<Item = (&'a str, &'a str)>,
    vars: Option<&super::variables::Variables>,
) -> Result<Config, Vec<ConfigError>> {
    let mut state = State::default();
    let mut order: Vec<String> = Vec::new();
    for (file, text) in files {
        order.push(file.to_string());
        load_file(&mut state, file, text, vars);
    }
    check_refs(&mut state);
    check_scopes(&mut state);
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

fn load_file(
    state: &mut State,
    file: &str,
    text: &str,
    vars: Option<&super::variables::Variables>,
) {
    let mut ctx = Ctx {
        file,
        text,
        document: 1,
        errors: &mut state.errors,
        descriptions_optional: false,
        dialect: None,
    };
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
        let Some(mut root) = doc.root else { continue };
        let mut decoded = Vec::new();
        // The document as written, when substitution may change it: what a migration
        // writes back (see `Config::to_v2_yaml`).
        let mut written: Option<Vec<Raw>> = None;
        if vars.is_some() && text.contains("${") {
            let mut ignored = Vec::new();
            let mut ctx = Ctx {
                file,
                text,
                document: doc.index,
                errors: &mut ignored,
                descriptions_optional: false,
                dialect: None,
            };
            let mut raws = Vec::new();
            split_document(&mut ctx, &root, &mut raws);
            written = Some(raws);
        }
        {
            let mut ctx = Ctx {
                file,
                text,
                document: doc.index,
                errors: &mut state.errors,
                descriptions_optional: false,
                dialect: None,
            };
            if let Some(vars) = vars {
                super::variables::visit_shaping(&mut root, &mut |s, mark| {
                    if !s.contains("${") {
                        return;
                    }
                    let (value, missing) = super::variables::substitute(s, vars);
                    for name in missing {
                        ctx.err(
                            K::InvalidValue,
                            mark,
                            None,
                            format!(
                                "environment variable '{name}' (in '{}') is not set and has no default (write ${{{name}:default}})",
                                short(s)
                            ),
                        );
                    }
                    *s = value;
                });
            }
            split_document(&mut ctx, &root, &mut decoded);
        }
        let mut written = written.map(Vec::into_iter);
        for raw in decoded {
            let mut ctx = Ctx {
                file,
                text,
                document: doc.index,
                errors: &mut state.errors,
                descriptions_optional: false,
                dialect: None,
            };
            let mut refs = Vec::new();
            let resource = decode_resource(&mut ctx, &raw, &mut refs);
            let as_written = written.as_mut().and_then(Iterator::next);
            register(state, file, doc.index, raw, as_written, resource, refs);
        }
    }
}

/// One resource as a v2 document, before decoding.
struct Raw {
    kind: ResourceKind,
    /// Written `kind: group` (a toolset by another name, see [`ToolsetConfig`]).
    group: bool,
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
        out.extend(split_v2(ctx, root, entries, kind));
        return;
    }
    let is_v1 = entries.iter().any(|e| v1_section(&e.key).is_some());
    if !is_v1 {
        ctx.err(
            K::InvalidDocument,
            root.mark,
            None,
            "document has no 'kind' (v2) and none of the v1 sections sources, authServices, tools, toolsets, prompts, embeddingModels",
        );
        return;
    }
    for section in entries {
        split_v1_section(ctx, section, out);
    }
}

/// A v2 document (one with a `kind` entry): one resource, named by its `name`.
fn split_v2(ctx: &mut Ctx<'_>, root: &Node, entries: &[Entry], kind: &Entry) -> Option<Raw> {
    let group = matches!(&kind.value.value, Y::Str(s) if s == GROUP);
    let kind = match &kind.value.value {
        // Toolbox 1.12 decodes `kind: group` and `kind: toolset` alike (one resource,
        // one namespace); it has no plural spelling.
        Y::Str(_) if group => ResourceKind::Toolset,
        Y::Str(s) => match ResourceKind::parse(s) {
            Some(k) => k,
            None => {
                ctx.err(
                    K::UnknownKind,
                    kind.value.mark,
                    Some("kind"),
                    format!(
                        "unknown kind '{s}' (expected source, authService, tool, toolset, prompt or embeddingModel, or their plurals; or group)"
                    ),
                );
                return None;
            }
        },
        _ => {
            mistyped(ctx, &kind.value, "kind", "a string");
            return None;
        }
    };
    let name = match entries.iter().find(|e| e.key == "name") {
        Some(e) => match e.value.scalar_string() {
            Some(s) => Some((s, e.value.mark)),
            None => {
                mistyped(ctx, &e.value, "name", "a string");
                return None;
            }
        },
        None => None,
    };
    let body = entries.iter().filter(|e| e.key != "kind" && e.key != "name").cloned().collect();
    Some(Raw { kind, group, name, mark: root.mark, body })
}

/// One section of a v1 document (`tools:`, `sources:`...): a resource per entry, named
/// by its key.
fn split_v1_section(ctx: &mut Ctx<'_>, section: &Entry, out: &mut Vec<Raw>) {
    let Some(kind) = v1_section(&section.key) else {
        ctx.err(
            K::UnknownField,
            section.key_mark,
            Some(&section.key),
            format!(
                "unknown v1 section '{}' (expected sources, authServices, tools, toolsets, prompts or embeddingModels)",
                section.key
            ),
        );
        return;
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
            return;
        }
    };
    for item in items {
        let path = format!("{}.{}", section.key, item.key);
        let Some(body) = v1_entry_body(ctx, item, kind, &path) else { continue };
        out.push(Raw {
            kind,
            group: false,
            name: Some((item.key.clone(), item.key_mark)),
            mark: item.value.mark,
            body,
        });
    }
}

/// The v2 fields of v1 entry `item` (at `path`) of a section of `kind`: a toolset's
/// list becomes its `tools`, an entry's `kind` its `type`.
fn v1_entry_body(
    ctx: &mut Ctx<'_>,
    item: &Entry,
    kind: ResourceKind,
    path: &str,
) -> Option<Vec<Entry>> {
    match (&item.value.value, kind) {
        (Y::Seq(_), ResourceKind::Toolset) => Some(vec![Entry {
            key: "tools".into(),
            key_mark: item.value.mark,
            value: item.value.clone(),
        }]),
        // The mapping form Toolbox also reads: `name: {tools: [a, b]}` (the
        // fields are those of a v2 toolset, checked as such).
        (Y::Map(fields), ResourceKind::Toolset) => Some(fields.clone()),
        (Y::Map(fields), k) if k != ResourceKind::Toolset => {
            if fields.iter().any(|f| f.key == "kind") && fields.iter().any(|f| f.key == "type") {
                ctx.err(
                    K::InvalidValue,
                    item.value.mark,
                    Some(path),
                    "a v1 entry has 'kind' (its type), not both 'kind' and 'type'",
                );
                return None;
            }
            if let Some(f) = fields.iter().find(|f| f.key == "name") {
                ctx.err(
                    K::UnknownField,
                    f.key_mark,
                    Some(&format!("{path}.name")),
                    "a v1 entry is named by its key; remove 'name'",
                );
                return None;
            }
            Some(
                fields
                    .iter()
                    .map(|f| {
                        let mut f = f.clone();
                        if f.key == "kind" {
                            f.key = "type".into();
                        }
                        f
                    })
                    .collect(),
            )
        }
        (value, k) => {
            let want = if k == ResourceKind::Toolset {
                "a list of tool names (or a mapping with 'tools')"
            } else {
                "a mapping"
            };
            ctx.err(
                K::InvalidValue,
                item.value.mark,
                Some(path),
                format!("expected {want}, got a {}", node_type(value)),
            );
            None
        }
    }
}

fn v1_section(key: &str) -> Option<ResourceKind> {
    match key {
        "sources" => Some(ResourceKind::Source),
        "authServices" | "authSources" => Some(ResourceKind::AuthService),
        "tools" => Some(ResourceKind::Tool),
        "toolsets" => Some(ResourceKind::Toolset),
        "prompts" => Some(ResourceKind::Prompt),
        "embeddingModels" => Some(ResourceKind::EmbeddingModel),
        _ => None,
    }
}

fn node_type(v: &Y) -> &'static str {
    Node { mark: Mark::default(), value: v.clone() }.type_name()
}

enum Resource {
    Prompt(Box<PromptConfig>),
    EmbeddingModel(EmbeddingModelConfig),
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
    as_written: Option<Raw>,
    resource: Option<Resource>,
    refs: Vec<Ref>,
) {
    let mut ctx = Ctx {
        file,
        text: "",
        document,
        errors: &mut state.errors,
        descriptions_optional: false,
        dialect: None,
    };
    let noun = if raw.group { GROUP } else { raw.kind.noun() };
    let Some((name, name_mark)) = raw.name else {
        let message = if raw.kind == ResourceKind::Toolset {
            // Toolbox reads a nameless group as the description of its default
            // group (every tool); filestore has no such description to set.
            format!(
                "{noun} has no 'name' (a nameless group, Toolbox's description of the default group, is not supported)"
            )
        } else {
            format!("{noun} has no 'name'")
        };
        ctx.err(K::MissingField, raw.mark, Some("name"), message);
        return;
    };
    if !is_valid_name(&name) {
        ctx.err(
            K::InvalidName,
            name_mark,
            Some("name"),
            format!(
                "invalid {noun} name '{}': use 1 to {MAX_NAME_LEN} of the characters A-Z a-z 0-9 _ . -",
                short(&name)
            ),
        );
        return;
    }
    let here = ctx.loc(name_mark);
    if let Some(first) = state.defined.get(&(raw.kind, name.clone())) {
        let shared = match raw.kind {
            ResourceKind::Toolset => " (toolsets and groups share names, as in Toolbox)",
            _ => "",
        };
        let message = format!("duplicate {noun} name '{name}' (first defined at {first}){shared}");
        ctx.err(K::DuplicateName, name_mark, Some("name"), message);
        return;
    }
    state.defined.insert((raw.kind, name.clone()), here);
    state.refs.extend(refs);
    let Some(resource) = resource else { return };
    let kind = if raw.group { GROUP } else { raw.kind.as_str() };
    let document_of = |name: &str, body: &[Entry]| {
        let mut doc = Map::new();
        doc.insert("kind".into(), Value::String(kind.into()));
        doc.insert("name".into(), Value::String(name.to_string()));
        for e in body {
            doc.insert(e.key.clone(), e.value.to_json());
        }
        Value::Object(doc)
    };
    let written = match &as_written {
        Some(w) => document_of(w.name.as_ref().map_or(name.as_str(), |(n, _)| n.as_str()), &w.body),
        None => document_of(&name, &raw.body),
    };
    state.config.written.push(written);
    state.config.documents.push(document_of(&name, &raw.body));
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
        Resource::Prompt(mut p) => {
            p.name = name;
            c.prompts.push(*p);
        }
        Resource::EmbeddingModel(mut m) => {
            m.name = name;
            c.embedding_models.push(m);
        }
    }
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
                ResourceKind::EmbeddingModel => K::MissingEmbeddingModel,
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
        let Some(runnable) = super::runnable_type(tool_type) else {
            continue;
        };
        let Some(source) = state.config.source(&r.name) else { continue };
        if !runnable.sources.contains(&source.source_type.as_str()) {
            state.errors.push(ConfigError {
                kind: K::SourceMismatch,
                location: r.location,
                field: Some(r.field),
                message: format!(
                    "{} of type {tool_type} needs a source of type {}; '{}' is {}",
                    r.user,
                    runnable.sources.join(" or "),
                    r.name,
                    source.source_type
                ),
            });
        }
    }
}

/// Gives each tool with `scopesRequired` the auth services whose claims are the
/// bearer token's (`generic` with `mcpEnabled: true`, as Toolbox checks scopes only
/// against the token of such a service). Without one the scopes could never be
/// checked: Toolbox then ignores them and runs the tool for anyone; filestore refuses
/// the file instead.
fn check_scopes(state: &mut State) {
    let services: Vec<String> = state
        .config
        .auth_services
        .iter()
        .filter(|a| {
            let on = match a.fields.get("mcpEnabled") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) => s == "true",
                _ => false,
            };
            a.service_type == "generic" && on
        })
        .map(|a| a.name.clone())
        .collect();
    for t in state.config.tools.iter_mut().filter(|t| !t.scopes_required.is_empty()) {
        if services.is_empty() {
            state.errors.push(ConfigError {
                kind: K::MissingAuthService,
                location: t.location.clone(),
                field: Some("scopesRequired".into()),
                message: format!(
                    "tool '{}' has scopesRequired, which needs an auth service of type generic with mcpEnabled: true (the bearer token whose scope claim is checked); none is defined",
                    t.name
                ),
            });
        }
        t.scope_services = services.clone();
    }
}

fn short(text: &str) -> String {
    if text.chars().count() <= 60 {
        return text.to_string();
    }
    format!("{}…", text.chars().take(60).collect::<String>())
}
