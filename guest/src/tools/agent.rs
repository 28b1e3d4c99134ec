//! Agent configurations (docs/agents.md): one YAML (or JSON) document
//! naming the upstream MCP servers an agent may use and the tools it is offered.
//!
//! ```yaml
//! name: researcher                       # optional
//! description: Reads the docs, searches the web.
//! servers:                               # provider `mcp`: integration name -> server
//!   docs:                                # a command the host starts (stdio)
//!     command: filestore
//!     args: [serve, --mount, /docs=./docs:ro]
//!     env: {LOG: quiet}
//!   search:                              # a streamable-HTTP server
//!     url: http://127.0.0.1:8931/mcp
//!     headers: {Authorization: "Bearer ${SEARCH_TOKEN}"}
//!     timeout: 20s                       # per call (default: the host's)
//!     connections:                       # credential sets; `default` is the server's own
//!       team: {headers: {Authorization: "Bearer ${TEAM_TOKEN}"}}
//! tools:                                 # offered from the start, in this order
//!   - filestore_read                     # a built-in tool (or `filestore_*`)
//!   - find_hotels                        # a configured tool (--config)
//!   - tools.mcp.docs.filestore_grep.default
//!   - {type: mcp, integration: search, action: web_search, connection: team, name: search}
//!   - {type: mcp, integration: docs, action: "*", connection: default, prefix: docs_, optional: true}
//! available:                             # checked at start; offered once a skill names them
//!   - tools.mcp.search.*.default
//! ```
//!
//! Parsing happens here, in the sandbox, like `tools.yaml`: every structural error is
//! collected and located (file, document, line, column, field). A provider entry of
//! type `mcp` must name a declared server and one of its connections (`default`
//! always exists), so a typo is caught before anything connects. Server fields that
//! hold credentials (`env`, `headers`, and everything else) keep their `${VAR}`
//! references: the host resolves them from its own environment.
//!
//! ```
//! use filestore_guest::tools::agent::parse;
//! let a = parse("agent.yaml", "servers:\n  docs: {command: filestore, args: [serve]}\n\
//!     tools:\n  - filestore_read\n  - tools.mcp.docs.filestore_ls.default\n").unwrap();
//! assert_eq!(a.servers[0].name, "docs");
//! assert_eq!(a.entries[1].label(), "tools[1]");
//! let e = parse("agent.yaml", "tools:\n  - tools.mcp.nope.x.default\n").unwrap_err();
//! assert_eq!(e[0].to_string(), "agent.yaml: document 1, line 2, column 5: field 'tools[0]': \
//!     integration 'nope' is not a server of this configuration (declared: none)");
//! ```

use serde_json::{Map, Value, json};

use crate::tools::config::yaml::{self, Entry, Mark, Node, Value as Y};
use crate::tools::config::{ConfigError, ConfigErrorKind as K, Location, is_valid_name};
use crate::tools::toolrefs::{ToolRef, is_valid_segment};
use crate::vfs::limits::MAX_CONFIG_BYTES;

/// The provider whose integrations are this configuration's `servers`.
pub const MCP_PROVIDER: &str = "mcp";

/// The connection every server has: its own `env` or `headers`.
pub const DEFAULT_CONNECTION: &str = "default";

/// Most servers one agent configuration declares. Each may start a process or open a
/// connection per credential set; bounds what one file makes the host do at start.
pub const MAX_SERVERS: usize = 64;

/// Most entries in `tools` and `available` together.
pub const MAX_ENTRIES: usize = 1000;

/// Longest per-call timeout a server may set. Bounds how long a call can hold a
/// session (and a worker thread).
pub const MAX_TIMEOUT_MS: u64 = 60 * 60 * 1000;

/// How an upstream server is reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// A command the host starts, speaking MCP on its stdin and stdout.
    Stdio,
    /// A streamable-HTTP endpoint.
    Http,
}

impl Transport {
    /// `stdio` or `http`.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
        }
    }
}

/// One declared upstream server.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerDecl {
    /// Its name, the `integration` of refs to it.
    pub name: String,
    /// How it is reached.
    pub transport: Transport,
    /// Its fields, normalised: `command`, `args` (strings), `env` and `headers`
    /// (string maps), `cwd`, `url`, `timeoutMs`, and `connections` (each `{env?,
    /// headers?, disabled?}`); `${VAR}` references unresolved.
    pub fields: Map<String, Value>,
    /// Its connections, `default` first.
    pub connections: Vec<String>,
    /// Where it is declared.
    pub location: Location,
}

/// Which list an entry is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// `tools`: offered from the start.
    Tools,
    /// `available`: offered once a skill names it.
    Available,
}

impl Section {
    /// `tools` or `available`.
    pub fn as_str(self) -> &'static str {
        match self {
            Section::Tools => "tools",
            Section::Available => "available",
        }
    }
}

/// One entry of `tools` or `available`.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentEntry {
    /// Its list.
    pub section: Section,
    /// Its 0-based index in the list.
    pub index: usize,
    /// The entry as written (a name, or a provider ref's call ref).
    pub text: String,
    /// What it refers to.
    pub tool_ref: ToolRef,
    /// Where it is.
    pub location: Location,
}

impl AgentEntry {
    /// `tools[3]`, as messages name it.
    pub fn label(&self) -> String {
        format!("{}[{}]", self.section.as_str(), self.index)
    }

    /// Whether resolution may leave it out when its connection cannot be used.
    pub fn optional(&self) -> bool {
        matches!(&self.tool_ref, ToolRef::Provider(p) if p.optional)
    }
}

/// A parsed agent configuration.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AgentConfig {
    /// The file name it was parsed under.
    pub file: String,
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `servers`, in order.
    pub servers: Vec<ServerDecl>,
    /// `tools`, then `available`.
    pub entries: Vec<AgentEntry>,
}

impl AgentConfig {
    /// The declared server `name`.
    pub fn server(&self, name: &str) -> Option<&ServerDecl> {
        self.servers.iter().find(|s| s.name == name)
    }
}

/// Where errors go while one file is parsed.
struct Ctx<'a> {
    file: &'a str,
    document: usize,
    errors: Vec<ConfigError>,
    /// Servers declared with errors: refs to them are not checked again (their error
    /// is already reported, and "not a server" would be wrong).
    broken_servers: Vec<String>,
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

/// Parses an agent configuration. Every error is returned, located.
pub fn parse(file: &str, text: &str) -> Result<AgentConfig, Vec<ConfigError>> {
    let mut ctx = Ctx { file, document: 1, errors: Vec::new(), broken_servers: Vec::new() };
    let start = Mark { line: 1, column: 1 };
    if text.len() > MAX_CONFIG_BYTES {
        ctx.err(
            K::TooLarge,
            start,
            None,
            format!("file is {} bytes; the limit is {MAX_CONFIG_BYTES}", text.len()),
        );
        return Err(ctx.errors);
    }
    let docs = match yaml::parse_stream(text) {
        Ok(docs) => docs,
        Err(errors) => {
            for e in errors {
                ctx.document = e.document;
                ctx.err(K::Syntax, e.mark, None, e.message);
            }
            return Err(ctx.errors);
        }
    };
    let mut roots = docs.into_iter().filter_map(|d| d.root.map(|r| (d.index, r)));
    let Some((index, root)) = roots.next() else {
        ctx.err(K::InvalidDocument, start, None, "the file is empty: an agent configuration is one mapping (servers, tools, available, name, description)");
        return Err(ctx.errors);
    };
    if let Some((i, extra)) = roots.next() {
        ctx.document = i;
        ctx.err(
            K::InvalidDocument,
            extra.mark,
            None,
            "an agent configuration is one document; this is a second one",
        );
    }
    ctx.document = index;
    let mut config = AgentConfig { file: file.to_string(), ..Default::default() };
    let Y::Map(top) = &root.value else {
        ctx.err(
            K::InvalidDocument,
            root.mark,
            None,
            format!("an agent configuration must be a mapping, got a {}", root.type_name()),
        );
        return Err(ctx.errors);
    };
    let mut lists: Vec<(Section, &Node)> = Vec::new();
    for e in top {
        match e.key.as_str() {
            "name" => match e.value.scalar_string() {
                Some(n) if is_valid_name(&n) => config.name = Some(n),
                _ => ctx.err(
                    K::InvalidName,
                    e.value.mark,
                    Some("name"),
                    "an agent name is 1 to 128 of the characters A-Z a-z 0-9 _ . -",
                ),
            },
            "description" => match &e.value.value {
                Y::Str(s) => config.description = Some(s.clone()),
                _ => ctx.err(
                    K::InvalidValue,
                    e.value.mark,
                    Some("description"),
                    format!("expected a string, got a {}", e.value.type_name()),
                ),
            },
            "servers" => servers(&mut ctx, &e.value, &mut config.servers),
            "tools" => lists.push((Section::Tools, &e.value)),
            "available" => lists.push((Section::Available, &e.value)),
            other => ctx.err(
                K::UnknownField,
                e.key_mark,
                Some(other),
                format!(
                    "unknown field '{other}' (an agent configuration has name, description, servers, tools and available)"
                ),
            ),
        }
    }
    for (section, node) in lists {
        entries(&mut ctx, section, node, &config.servers, &mut config.entries);
    }
    if config.entries.len() > MAX_ENTRIES {
        ctx.err(
            K::TooLarge,
            root.mark,
            None,
            format!(
                "{} entries in tools and available; the limit is {MAX_ENTRIES}",
                config.entries.len()
            ),
        );
    }
    if ctx.errors.is_empty() { Ok(config) } else { Err(ctx.errors) }
}

fn servers(ctx: &mut Ctx<'_>, node: &Node, out: &mut Vec<ServerDecl>) {
    let Y::Map(entries) = &node.value else {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some("servers"),
            format!("expected a mapping of server names to servers, got a {}", node.type_name()),
        );
        return;
    };
    if entries.len() > MAX_SERVERS {
        ctx.err(
            K::TooLarge,
            node.mark,
            Some("servers"),
            format!("{} servers; the limit is {MAX_SERVERS}", entries.len()),
        );
        return;
    }
    for e in entries {
        let field = format!("servers.{}", e.key);
        if !valid_segment(ctx, e, &field, "server") {
            ctx.broken_servers.push(e.key.clone());
            continue;
        }
        match server(ctx, e, &field) {
            Some(s) => out.push(s),
            None => ctx.broken_servers.push(e.key.clone()),
        }
    }
}

/// Whether `e`'s key (a `what` name, at `field`) is a call-ref segment; if not, says so.
fn valid_segment(ctx: &mut Ctx<'_>, e: &Entry, field: &str, what: &str) -> bool {
    if is_valid_segment(&e.key) {
        return true;
    }
    ctx.err(
        K::InvalidName,
        e.key_mark,
        Some(field),
        format!(
            "{what} name '{}' is not a valid call-ref segment (letters, digits and '-', joined by single '_')",
            e.key
        ),
    );
    false
}

fn server(ctx: &mut Ctx<'_>, e: &Entry, field: &str) -> Option<ServerDecl> {
    let node = &e.value;
    let Y::Map(body) = &node.value else {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some(field),
            format!("expected a mapping (command or url, ...), got a {}", node.type_name()),
        );
        return None;
    };
    let errors_before = ctx.errors.len();
    let transport = transport(ctx, e, body, field)?;
    let mut fields = Map::new();
    let mut connections = vec![DEFAULT_CONNECTION.to_string()];
    let allowed: &[&str] = match transport {
        Transport::Stdio => &["command", "args", "env", "cwd", "timeout", "connections"],
        Transport::Http => &["url", "headers", "timeout", "connections"],
    };
    for b in body {
        let f = format!("{field}.{}", b.key);
        if !allowed.contains(&b.key.as_str()) {
            ctx.err(
                K::UnknownField,
                b.key_mark,
                Some(&f),
                format!(
                    "unknown field '{}' for a {} server (it has {})",
                    b.key,
                    transport.as_str(),
                    allowed.join(", ")
                ),
            );
            continue;
        }
        let value = match b.key.as_str() {
            "command" | "cwd" => string(ctx, &b.value, &f).map(Value::String),
            "url" => url(ctx, &b.value, &f).map(Value::String),
            "args" => strings(ctx, &b.value, &f).map(|args| json!(args)),
            "env" | "headers" => string_map(ctx, &b.value, &f, b.key == "env").map(Value::Object),
            "timeout" => timeout(ctx, &b.value, &f).map(|ms| json!(ms)),
            "connections" => server_connections(ctx, &b.value, &f, transport, &mut connections)
                .map(Value::Object),
            _ => unreachable!("checked against the allowed fields"),
        };
        if let Some(value) = value {
            let key = if b.key == "timeout" { "timeoutMs" } else { b.key.as_str() };
            fields.insert(key.into(), value);
        }
    }
    if ctx.errors.len() > errors_before {
        return None;
    }
    Some(ServerDecl {
        name: e.key.clone(),
        transport,
        fields,
        connections,
        location: ctx.loc(e.key_mark),
    })
}

/// A server's transport: stdio for a `command`, streamable HTTP for a `url`.
fn transport(ctx: &mut Ctx<'_>, e: &Entry, body: &[Entry], field: &str) -> Option<Transport> {
    let get = |k: &str| body.iter().find(|b| b.key == k);
    match (get("command"), get("url")) {
        (Some(_), None) => Some(Transport::Stdio),
        (None, Some(_)) => Some(Transport::Http),
        (Some(_), Some(u)) => {
            ctx.err(
                K::InvalidValue,
                u.key_mark,
                Some(&format!("{field}.url")),
                "a server has either a command (stdio) or a url (streamable HTTP), not both",
            );
            None
        }
        (None, None) => {
            ctx.err(
                K::MissingField,
                e.value.mark,
                Some(field),
                format!(
                    "server '{}' needs a command (a program speaking MCP on stdio) or a url (a streamable-HTTP endpoint)",
                    e.key
                ),
            );
            None
        }
    }
}

/// A server's `url`: http:// or https://, or a `${VAR}` the host resolves.
fn url(ctx: &mut Ctx<'_>, node: &Node, field: &str) -> Option<String> {
    let s = string(ctx, node, field)?;
    let lower = s.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") || s.starts_with("${") {
        return Some(s);
    }
    ctx.err(
        K::InvalidValue,
        node.mark,
        Some(field),
        format!("'{s}' is not an http:// or https:// URL"),
    );
    None
}

/// A server's named `connections` (credentials each), their names added to
/// `names`. A connection with an error is left out (the error reported).
fn server_connections(
    ctx: &mut Ctx<'_>,
    node: &Node,
    field: &str,
    transport: Transport,
    names: &mut Vec<String>,
) -> Option<Map<String, Value>> {
    let Y::Map(conns) = &node.value else {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some(field),
            format!(
                "expected a mapping of connection names to credentials, got a {}",
                node.type_name()
            ),
        );
        return None;
    };
    let mut all = Map::new();
    for c in conns {
        let cf = format!("{field}.{}", c.key);
        if !valid_segment(ctx, c, &cf, "connection") {
            continue;
        }
        if let Some(v) = connection(ctx, &c.value, &cf, transport) {
            if !names.contains(&c.key) {
                names.push(c.key.clone());
            }
            all.insert(c.key.clone(), v);
        }
    }
    Some(all)
}

fn connection(ctx: &mut Ctx<'_>, node: &Node, field: &str, transport: Transport) -> Option<Value> {
    let Y::Map(body) = &node.value else {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some(field),
            format!("expected a mapping (env, headers, disabled), got a {}", node.type_name()),
        );
        return None;
    };
    let credentials = match transport {
        Transport::Stdio => "env",
        Transport::Http => "headers",
    };
    let mut out = Map::new();
    for b in body {
        let f = format!("{field}.{}", b.key);
        match b.key.as_str() {
            k if k == credentials => {
                out.insert(k.into(), Value::Object(string_map(ctx, &b.value, &f, k == "env")?));
            }
            "disabled" => match b.value.value {
                Y::Bool(d) => {
                    out.insert("disabled".into(), Value::Bool(d));
                }
                _ => {
                    ctx.err(
                        K::InvalidValue,
                        b.value.mark,
                        Some(&f),
                        format!("expected a boolean, got a {}", b.value.type_name()),
                    );
                    return None;
                }
            },
            other => {
                ctx.err(
                    K::UnknownField,
                    b.key_mark,
                    Some(&f),
                    format!(
                        "unknown field '{other}' for a connection of a {} server (it has {credentials} and disabled)",
                        transport.as_str()
                    ),
                );
                return None;
            }
        }
    }
    Some(Value::Object(out))
}

fn string(ctx: &mut Ctx<'_>, node: &Node, field: &str) -> Option<String> {
    match &node.value {
        Y::Str(s) if !s.is_empty() => Some(s.clone()),
        _ => {
            ctx.err(
                K::InvalidValue,
                node.mark,
                Some(field),
                format!("expected a non-empty string, got a {}", node.type_name()),
            );
            None
        }
    }
}

fn strings(ctx: &mut Ctx<'_>, node: &Node, field: &str) -> Option<Vec<String>> {
    let Y::Seq(items) = &node.value else {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some(field),
            format!("expected a list of strings, got a {}", node.type_name()),
        );
        return None;
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.scalar_string() {
            Some(s) => out.push(s),
            None => {
                ctx.err(
                    K::InvalidValue,
                    item.mark,
                    Some(&format!("{field}[{i}]")),
                    format!("expected a string, got a {}", item.type_name()),
                );
                return None;
            }
        }
    }
    Some(out)
}

fn string_map(
    ctx: &mut Ctx<'_>,
    node: &Node,
    field: &str,
    env: bool,
) -> Option<Map<String, Value>> {
    let Y::Map(entries) = &node.value else {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some(field),
            format!("expected a mapping of names to strings, got a {}", node.type_name()),
        );
        return None;
    };
    let mut out = Map::new();
    for e in entries {
        let f = format!("{field}.{}", e.key);
        let bad_key = if env {
            e.key.is_empty() || e.key.contains('=') || e.key.contains('\0')
        } else {
            e.key.is_empty()
                || !e
                    .key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        };
        if bad_key {
            ctx.err(
                K::InvalidName,
                e.key_mark,
                Some(&f),
                if env {
                    format!("'{}' cannot be an environment variable name", e.key)
                } else {
                    format!("'{}' is not an HTTP header name", e.key)
                },
            );
            return None;
        }
        match e.value.scalar_string() {
            Some(s) if !s.contains('\0') && (env || !s.contains(['\r', '\n'])) => {
                out.insert(e.key.clone(), Value::String(s));
            }
            _ => {
                ctx.err(
                    K::InvalidValue,
                    e.value.mark,
                    Some(&f),
                    format!("expected a single-line string, got a {}", e.value.type_name()),
                );
                return None;
            }
        }
    }
    Some(out)
}

/// A timeout: seconds as a number, or a duration `500ms`, `30s`, `2m`.
fn timeout(ctx: &mut Ctx<'_>, node: &Node, field: &str) -> Option<u64> {
    let ms = match &node.value {
        Y::Int(i) if *i > 0 => Some((*i as u64).saturating_mul(1000)),
        Y::Float(f) if *f > 0.0 && f.is_finite() => Some((f * 1000.0).ceil() as u64),
        Y::Str(s) => parse_duration_ms(s),
        _ => None,
    };
    match ms {
        Some(ms) if ms > 0 && ms <= MAX_TIMEOUT_MS => Some(ms),
        _ => {
            ctx.err(
                K::InvalidValue,
                node.mark,
                Some(field),
                format!(
                    "expected a positive duration of at most {} s (seconds, or 500ms, 30s, 2m)",
                    MAX_TIMEOUT_MS / 1000
                ),
            );
            None
        }
    }
}

fn parse_duration_ms(s: &str) -> Option<u64> {
    let s = s.trim();
    let (number, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        (s, 1000.0)
    };
    let v: f64 = number.trim().parse().ok()?;
    (v.is_finite() && v > 0.0).then(|| (v * scale).ceil() as u64)
}

fn entries(
    ctx: &mut Ctx<'_>,
    section: Section,
    node: &Node,
    servers: &[ServerDecl],
    out: &mut Vec<AgentEntry>,
) {
    let name = section.as_str();
    let Y::Seq(items) = &node.value else {
        ctx.err(
            K::InvalidValue,
            node.mark,
            Some(name),
            format!("expected a list of tool names and provider refs, got a {}", node.type_name()),
        );
        return;
    };
    for (index, item) in items.iter().enumerate() {
        let field = format!("{name}[{index}]");
        let tool_ref = match ToolRef::from_json(&item.to_json()) {
            Ok(r) => r,
            Err(e) => {
                ctx.err(K::InvalidValue, item.mark, Some(&field), e.message());
                continue;
            }
        };
        if let ToolRef::Provider(p) = &tool_ref
            && p.call_ref.provider == MCP_PROVIDER
            && !ctx.broken_servers.contains(&p.call_ref.integration)
        {
            let c = &p.call_ref;
            let declared: Vec<&str> = servers
                .iter()
                .map(|s| s.name.as_str())
                .chain(ctx.broken_servers.iter().map(String::as_str))
                .collect();
            match servers.iter().find(|s| s.name == c.integration) {
                None => {
                    ctx.err(
                        K::MissingServer,
                        item.mark,
                        Some(&field),
                        format!(
                            "integration '{}' is not a server of this configuration (declared: {})",
                            c.integration,
                            if declared.is_empty() { "none".into() } else { declared.join(", ") }
                        ),
                    );
                    continue;
                }
                Some(s) if !s.connections.contains(&c.connection) => {
                    ctx.err(
                        K::MissingConnection,
                        item.mark,
                        Some(&field),
                        format!(
                            "server '{}' has no connection '{}' (it has: {})",
                            s.name,
                            c.connection,
                            s.connections.join(", ")
                        ),
                    );
                    continue;
                }
                Some(_) => {}
            }
        }
        let text = match &tool_ref {
            ToolRef::Named(n) => n.clone(),
            ToolRef::Provider(p) => p.call_ref.to_string(),
        };
        out.push(AgentEntry { section, index, text, tool_ref, location: ctx.loc(item.mark) });
    }
}

#[cfg(test)]
mod tests;
