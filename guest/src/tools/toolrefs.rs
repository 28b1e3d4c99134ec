//! Agent tool references (docs/architecture.md#agent-tool-refs): an agent configuration
//! lists its tools as names (`"filestore_read"`, a configured tool, or a name prefix
//! `"filestore_*"`) or provider refs `{type, integration, action, connection, name?}`;
//! resolution turns the list into tool specs the agent can call.
//!
//! A provider ref resolves to a spec whose [`CallRef`] is
//! `tools.{provider}.{integration}.{action}.{connection}`, the slug the host's
//! `tool-host` executes. Each segment matches `^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$`: no
//! `.`, no leading, trailing or doubled `_`, so a model-facing function name that spells
//! the slug with `__` for `.` ([`CallRef::to_function_name`]) splits back unambiguously.
//! A ref's `action` may also be `*`: every action the connection offers, each under
//! `{prefix}{action}` (the prefix defaults to `{integration}__`). A string of the form
//! `tools.{provider}.{integration}.{action}.{connection}` in the list is the same as the
//! object form, and so is its function-name form with `__` for each `.`
//! (`tools__composio__github__GET_THE_AUTHENTICATED_USER__github-tvn`).
//!
//! Resolution fails fast, before the agent runs, in this order: malformed refs, then
//! unknown names, then names two refs would share (two connections of one action need
//! distinct `name`s; the error names both refs instead of letting one silently shadow
//! the other, and a provider tool may not take the name of a built-in or configured
//! tool either), then each provider connection, checked through the host
//! ([`ConnectionChecker`]): a missing or inactive connection fails resolution with a
//! message naming it, instead of failing mid-run at the first call. The host answers
//! with its catalog entry of each action (description, input schema, annotations),
//! which becomes the spec the agent sees. Names that only `*` expansions produce are
//! checked for clashes once the catalogs are in. A ref marked `optional` whose
//! connection cannot be used is left out with a warning instead.
//!
//! ```
//! use filestore_guest::tools::toolrefs::{parse_refs, resolve_refs, ActionInfo, CallRef, ConnectionStatus, Names};
//! use serde_json::json;
//! let refs = parse_refs(&json!([
//!     {"type": "composio", "integration": "github", "action": "GET_THE_AUTHENTICATED_USER",
//!      "connection": "github-tvn", "name": "github_whoami"}
//! ])).unwrap();
//! let checker = |_: &CallRef| Ok(ConnectionStatus::Active(vec![]));
//! let out = resolve_refs(&refs, &Names::default(), &checker).unwrap();
//! assert_eq!(out.tools[0].name, "github_whoami");
//! assert_eq!(out.tools[0].call_ref.as_ref().unwrap().to_string(),
//!            "tools.composio.github.GET_THE_AUTHENTICATED_USER.github-tvn");
//! ```
//!
//! It stays above 800 lines because a ref's grammar, its expansion (`*` actions,
//! prefixes) and its resolution against a provider's catalog are one pipeline with one
//! error vocabulary; its tests are `toolrefs/tests.rs`.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value, json};

use crate::error::{Error, ErrorKind, Result};
use crate::tools::config::is_valid_name;
use crate::tools::manifest::{ToolAnnotations, ToolSpec};
use crate::tools::params::describe;
use crate::tools::schema::ArgsSchema;

/// The `action` of a ref that selects every action of its connection.
pub const ALL_ACTIONS: &str = "*";

/// Whether `s` is a valid call-ref segment: `^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$`.
pub fn is_valid_segment(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('_')
        && !s.ends_with('_')
        && !s.contains("__")
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `tools.{provider}.{integration}.{action}.{connection}`: which provider action to run
/// through which connection. In a ref (not in a call), `action` may be [`ALL_ACTIONS`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallRef {
    /// The provider (`composio`, `mcp`, ...), the ref's `type`.
    pub provider: String,
    /// The integration (`github`; for `mcp`, the upstream server's name).
    pub integration: String,
    /// The action (`GET_THE_AUTHENTICATED_USER`; for `mcp`, the upstream tool).
    pub action: String,
    /// The connection (an account or credential set linked to the integration).
    pub connection: String,
}

impl CallRef {
    /// A call ref; every segment must be valid (`invalid-argument` naming it).
    pub fn new(
        provider: &str,
        integration: &str,
        action: &str,
        connection: &str,
    ) -> Result<CallRef> {
        for (field, value) in [
            ("type", provider),
            ("integration", integration),
            ("action", action),
            ("connection", connection),
        ] {
            check_segment(field, value)?;
        }
        Ok(CallRef {
            provider: provider.into(),
            integration: integration.into(),
            action: action.into(),
            connection: connection.into(),
        })
    }

    /// Like [`CallRef::new`], but `action` may be [`ALL_ACTIONS`] (a ref, not a call).
    pub fn selector(
        provider: &str,
        integration: &str,
        action: &str,
        connection: &str,
    ) -> Result<CallRef> {
        if action == ALL_ACTIONS {
            let mut c = CallRef::new(provider, integration, "x", connection)?;
            c.action = ALL_ACTIONS.into();
            return Ok(c);
        }
        CallRef::new(provider, integration, action, connection)
    }

    /// Whether the action is [`ALL_ACTIONS`].
    pub fn is_wildcard(&self) -> bool {
        self.action == ALL_ACTIONS
    }

    /// The same connection with another action.
    pub fn with_action(&self, action: &str) -> CallRef {
        CallRef { action: action.into(), ..self.clone() }
    }

    /// Parses `tools.{provider}.{integration}.{action}.{connection}`.
    pub fn parse(slug: &str) -> Result<CallRef> {
        Self::parse_with(slug, CallRef::new)
    }

    /// Parses a ref's call ref, whose action may be [`ALL_ACTIONS`].
    pub fn parse_selector(slug: &str) -> Result<CallRef> {
        Self::parse_with(slug, CallRef::selector)
    }

    fn parse_with(
        slug: &str,
        make: fn(&str, &str, &str, &str) -> Result<CallRef>,
    ) -> Result<CallRef> {
        let parts: Vec<&str> = slug.split('.').collect();
        match parts.as_slice() {
            ["tools", p, i, a, c] => make(p, i, a, c).map_err(|e| {
                Error::new(
                    ErrorKind::InvalidArgument,
                    format!("call ref '{slug}': {}", e.message()),
                )
            }),
            _ => Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "call ref '{slug}' is not of the form tools.provider.integration.action.connection"
                ),
            )),
        }
    }

    /// The slug with `__` for every `.` (`tools__composio__github__...`), a valid
    /// function name for model APIs that forbid dots.
    pub fn to_function_name(&self) -> String {
        self.to_string().replace('.', "__")
    }

    /// Parses a name made by [`CallRef::to_function_name`].
    pub fn from_function_name(name: &str) -> Result<CallRef> {
        CallRef::parse(&name.replace("__", "."))
    }
}

impl fmt::Display for CallRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tools.{}.{}.{}.{}",
            self.provider, self.integration, self.action, self.connection
        )
    }
}

/// A provider ref as configured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderRef {
    /// Which action (or, with [`ALL_ACTIONS`], which actions) through which connection.
    pub call_ref: CallRef,
    /// The tool name the model sees (one action only); default `{integration}__{action}`.
    pub name: Option<String>,
    /// With [`ALL_ACTIONS`]: what each action's name is prefixed with; default
    /// `{integration}__`.
    pub prefix: Option<String>,
    /// Leave the ref out (with a warning) when its connection cannot be used, instead
    /// of failing resolution.
    pub optional: bool,
    /// Every call of its tools waits for the host's approval.
    pub requires_approval: bool,
}

impl ProviderRef {
    /// A ref to one action with the defaults (no name, prefix, optional or approval).
    pub fn new(call_ref: CallRef) -> ProviderRef {
        ProviderRef {
            call_ref,
            name: None,
            prefix: None,
            optional: false,
            requires_approval: false,
        }
    }

    /// The name of the tool for `action`: `name` (one action), else the prefix (default
    /// `{integration}__`) and the action.
    pub fn tool_name_for(&self, action: &str) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        match &self.prefix {
            Some(p) => format!("{p}{action}"),
            None => format!("{}__{action}", self.call_ref.integration),
        }
    }

    /// The resolved tool name of a one-action ref (`None` for [`ALL_ACTIONS`]).
    pub fn tool_name(&self) -> Option<String> {
        (!self.call_ref.is_wildcard()).then(|| self.tool_name_for(&self.call_ref.action))
    }
}

/// One entry of an agent's `tools` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolRef {
    /// A built-in or configured tool by name, or every one whose name starts with a
    /// prefix (`"filestore_*"`; `"*"` alone is every one).
    Named(String),
    /// A provider action (or every action) through a connection.
    Provider(ProviderRef),
}

impl ToolRef {
    /// Parses one entry: a name, a name prefix ending in `*`, a call ref string
    /// `tools.{provider}.{integration}.{action}.{connection}`, or an object
    /// `{type, integration, action, connection, name?, prefix?, optional?,
    /// requiresApproval?}` (no other fields). Errors are `invalid-argument` and name
    /// the field.
    pub fn from_json(value: &Value) -> Result<ToolRef> {
        let bad = |msg: String| Error::new(ErrorKind::InvalidArgument, msg);
        match value {
            Value::String(s) if s.starts_with("tools.") && s.split('.').count() == 5 => {
                Ok(ToolRef::Provider(ProviderRef::new(CallRef::parse_selector(s)?)))
            }
            // The same in its function-name form (`tools__composio__github__ACTION__conn`,
            // what `CallRef::to_function_name` writes): segments never hold `__` or a
            // leading or trailing `_`, so the split is unambiguous.
            Value::String(s) if s.starts_with("tools__") && s.split("__").count() == 5 => {
                let call_ref = CallRef::parse_selector(&s.replace("__", "."))
                    .map_err(|e| Error::new(e.kind(), format!("'{s}' (as {})", e.message())))?;
                Ok(ToolRef::Provider(ProviderRef::new(call_ref)))
            }
            Value::String(name) => {
                let stem = name.strip_suffix('*').unwrap_or(name);
                if !(is_valid_name(stem) || stem.is_empty() && name == "*") {
                    return Err(bad(format!(
                        "invalid tool name '{name}': use 1 to 128 of the characters A-Z a-z 0-9 _ . -, optionally ending in * (every tool whose name starts so)"
                    )));
                }
                Ok(ToolRef::Named(name.clone()))
            }
            Value::Object(map) => {
                const FIELDS: [&str; 8] = [
                    "type",
                    "integration",
                    "action",
                    "connection",
                    "name",
                    "prefix",
                    "optional",
                    "requiresApproval",
                ];
                if let Some(k) = map.keys().find(|k| !FIELDS.contains(&k.as_str())) {
                    return Err(bad(format!(
                        "unknown field '{k}' (a provider ref has type, integration, action, connection, and optionally name, prefix, optional, requiresApproval)"
                    )));
                }
                let field = |k: &str| -> Result<String> {
                    match map.get(k) {
                        Some(Value::String(s)) => Ok(s.clone()),
                        None | Some(Value::Null) => Err(bad(format!("missing field '{k}'"))),
                        Some(other) => Err(bad(format!(
                            "field '{k}': expected a string, got {}",
                            describe(other)
                        ))),
                    }
                };
                let flag = |k: &str| -> Result<bool> {
                    match map.get(k) {
                        None | Some(Value::Null) => Ok(false),
                        Some(Value::Bool(b)) => Ok(*b),
                        Some(other) => Err(bad(format!(
                            "field '{k}': expected a boolean, got {}",
                            describe(other)
                        ))),
                    }
                };
                let call_ref = CallRef::selector(
                    &field("type")?,
                    &field("integration")?,
                    &field("action")?,
                    &field("connection")?,
                )?;
                let name = optional_name(map, "name", is_valid_name)?;
                let prefix = optional_name(map, "prefix", |p| {
                    is_valid_name(&format!("{p}x")) && p.len() < 128
                })?;
                if call_ref.is_wildcard() && name.is_some() {
                    return Err(bad(
                        "field 'name': a ref to every action ('*') names its tools with 'prefix', not 'name'"
                            .into(),
                    ));
                }
                if !call_ref.is_wildcard() && prefix.is_some() {
                    return Err(bad(
                        "field 'prefix': only a ref to every action ('*') takes a prefix; name one action's tool with 'name'"
                            .into(),
                    ));
                }
                Ok(ToolRef::Provider(ProviderRef {
                    call_ref,
                    name,
                    prefix,
                    optional: flag("optional")?,
                    requires_approval: flag("requiresApproval")?,
                }))
            }
            other => Err(bad(format!(
                "expected a tool name or a provider ref object, got {}",
                describe(other)
            ))),
        }
    }

    /// The entry as JSON (the form [`ToolRef::from_json`] reads).
    pub fn to_json(&self) -> Value {
        match self {
            ToolRef::Named(name) => Value::String(name.clone()),
            ToolRef::Provider(p) => {
                let mut m = Map::new();
                m.insert("type".into(), json!(p.call_ref.provider));
                m.insert("integration".into(), json!(p.call_ref.integration));
                m.insert("action".into(), json!(p.call_ref.action));
                m.insert("connection".into(), json!(p.call_ref.connection));
                if let Some(n) = &p.name {
                    m.insert("name".into(), json!(n));
                }
                if let Some(n) = &p.prefix {
                    m.insert("prefix".into(), json!(n));
                }
                if p.optional {
                    m.insert("optional".into(), json!(true));
                }
                if p.requires_approval {
                    m.insert("requiresApproval".into(), json!(true));
                }
                Value::Object(m)
            }
        }
    }
}

fn optional_name(
    map: &Map<String, Value>,
    field: &str,
    valid: impl Fn(&str) -> bool,
) -> Result<Option<String>> {
    match map.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(n)) if valid(n) => Ok(Some(n.clone())),
        Some(Value::String(n)) => Err(Error::new(
            ErrorKind::InvalidArgument,
            format!(
                "field '{field}': invalid tool name '{n}': use 1 to 128 of the characters A-Z a-z 0-9 _ . -"
            ),
        )),
        Some(other) => Err(Error::new(
            ErrorKind::InvalidArgument,
            format!("field '{field}': expected a string, got {}", describe(other)),
        )),
    }
}

impl fmt::Display for ToolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolRef::Named(n) => write!(f, "'{n}'"),
            ToolRef::Provider(p) => write!(f, "'{}'", p.call_ref),
        }
    }
}

/// Parses an agent's `tools` list (a JSON array; `null` is empty). Errors name the
/// index: `tools[2]: missing field 'connection'`.
pub fn parse_refs(value: &Value) -> Result<Vec<ToolRef>> {
    let items = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        other => {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("tools must be a list, got {}", describe(other)),
            ));
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            ToolRef::from_json(v)
                .map_err(|e| Error::new(e.kind(), format!("tools[{i}]: {}", e.message())))
        })
        .collect()
}

/// What the host knows of a provider action (its catalog entry), for the spec.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActionInfo {
    /// The action segment (for a `*` ref, which action this is).
    pub action: String,
    /// A human title.
    pub title: Option<String>,
    /// The action's description; default: one naming the action and connection.
    pub description: Option<String>,
    /// JSON Schema of its arguments; default: any object.
    pub input_schema: Option<Value>,
    /// Behaviour hints.
    pub annotations: Option<ToolAnnotations>,
}

/// The state of a connection, as the host reports it.
#[derive(Clone, Debug, PartialEq)]
pub enum ConnectionStatus {
    /// Usable; with the catalog entries of the actions the ref selects (empty for a
    /// named action when the host has no catalog).
    Active(Vec<ActionInfo>),
    /// Exists but cannot be used (revoked, expired, disabled).
    Inactive {
        /// Why, when the host knows.
        reason: Option<String>,
    },
    /// No such connection.
    Missing,
}

/// Checks a provider connection before use. The component glue implements it over the
/// `tool-host` import; tests and native hosts implement it directly (any
/// `Fn(&CallRef) -> Result<ConnectionStatus>` is one).
pub trait ConnectionChecker {
    /// The status of `call_ref`'s connection, and the catalog entries of the actions
    /// it selects (its action may be [`ALL_ACTIONS`]).
    fn check(&self, call_ref: &CallRef) -> Result<ConnectionStatus>;
}

impl<F: Fn(&CallRef) -> Result<ConnectionStatus>> ConnectionChecker for F {
    fn check(&self, call_ref: &CallRef) -> Result<ConnectionStatus> {
        self(call_ref)
    }
}

/// A resolved tool: its spec, the ref it came from and, for provider tools, the call ref
/// the host executes.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedTool {
    /// The tool name (unique in the resolved list).
    pub name: String,
    /// The spec the model sees.
    pub spec: ToolSpec,
    /// `None` for named (built-in or configured) tools: they run as they are.
    pub call_ref: Option<CallRef>,
    /// Index of the ref it came from.
    pub index: usize,
}

/// The tools a session has apart from provider refs: what named entries select from,
/// and the names no provider tool may take.
#[derive(Clone, Debug, Default)]
pub struct Names {
    /// Tools a named entry may select, in listing order (built-ins, then configured).
    pub offerable: Vec<ToolSpec>,
    /// Every name already in use (built-in and configured tools, whether offered or
    /// not): a provider tool of the same name would shadow one of them.
    pub taken: Vec<(String, &'static str)>,
}

/// Why resolution failed: the error, and which ref (index) it concerns, so an agent
/// configuration can point at the line.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolveError {
    /// The ref's index (none for a failure no single ref causes).
    pub index: Option<usize>,
    /// What category of failure (for located errors).
    pub cause: ResolveCause,
    /// The error (`invalid-argument`, `not-found`, `unauthorized`, or the checker's).
    pub error: Error,
}

/// The category of a [`ResolveError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResolveCause {
    /// A named entry names no tool.
    UnknownTool,
    /// Two tools would share a name.
    DuplicateName,
    /// The connection does not exist.
    MissingConnection,
    /// The connection exists but cannot be used.
    InactiveConnection,
    /// The host could not check the connection (or the action is not offered).
    ConnectionFailed,
    /// An action's input schema cannot be compiled.
    InvalidSchema,
    /// A resolved name is not a valid tool name.
    InvalidName,
}

impl From<ResolveError> for Error {
    fn from(e: ResolveError) -> Error {
        e.error
    }
}

/// What resolution produced: the tools in ref order, and what was left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resolution {
    /// Every resolved tool, in ref order (a `*` ref's actions in catalog order).
    pub tools: Vec<ResolvedTool>,
    /// What was left out and why: optional refs whose connection cannot be used, and
    /// actions of `*` refs whose name or schema cannot be used.
    pub warnings: Vec<String>,
}

/// Resolves refs labelled `tools[i]` (see [`resolve_labelled`]).
pub fn resolve_refs(
    refs: &[ToolRef],
    names: &Names,
    checker: &dyn ConnectionChecker,
) -> std::result::Result<Resolution, ResolveError> {
    resolve_labelled(refs, &|i| format!("tools[{i}]"), names, checker)
}

/// Resolves an agent's refs: named ones from `names.offerable`, provider refs through
/// `checker`. See the module docs for the order of checks; the first failure is
/// returned, naming the ref by `label(index)` (`invalid-argument` for bad or clashing
/// refs, `not-found` for an unknown name or a missing connection, `unauthorized` for
/// an inactive connection, the checker's own error otherwise).
pub fn resolve_labelled(
    refs: &[ToolRef],
    label: &dyn Fn(usize) -> String,
    names: &Names,
    checker: &dyn ConnectionChecker,
) -> std::result::Result<Resolution, ResolveError> {
    resolve_labelled_with(refs, label, names, checker, false)
}

/// [`resolve_labelled`], or with `lenient`, the rules of a re-resolution after start:
/// a provider ref that fails for any reason once its connection is checked (the
/// connection, an action gone from the catalog, an unusable schema) is left out with a
/// warning as if optional, and a `*` ref's tool whose name clashes is left out alone.
/// The refs' own names (checked before any connection) still fail it.
pub fn resolve_labelled_with(
    refs: &[ToolRef],
    label: &dyn Fn(usize) -> String,
    names: &Names,
    checker: &dyn ConnectionChecker,
    lenient: bool,
) -> std::result::Result<Resolution, ResolveError> {
    let mut out = Resolution::default();
    let mut holders = session_holders(names);
    // Named entries first: they only read what the session has.
    select_named(refs, label, names, &mut out, &mut holders)?;
    // Names of one-action refs clash before any connection is checked.
    claim_provider_names(refs, label, &mut holders)?;
    // Then the connections, in order.
    for (i, r) in refs.iter().enumerate() {
        let ToolRef::Provider(p) = r else { continue };
        let lbl = label(i);
        if let Err(e) = resolve_provider(i, p, &lbl, checker, lenient, &mut out, &mut holders) {
            // A failure of ref `i` after its connection is checked: the error, or with
            // `lenient` a warning and the next ref.
            if !lenient {
                return Err(e);
            }
            out.warnings.push(format!(
                "{lbl} was left out when the agent was resolved again: {}",
                e.error.message().strip_prefix(&format!("{lbl}: ")).unwrap_or(e.error.message())
            ));
        }
    }
    Ok(out)
}

/// Who holds each tool name: the holding ref's index (none for a session tool) and how
/// a clash names it.
type Holders = HashMap<String, (Option<usize>, String)>;

/// A resolution failure of ref `index`.
fn fail(index: usize, cause: ResolveCause, kind: ErrorKind, message: String) -> ResolveError {
    ResolveError { index: Some(index), cause, error: Error::new(kind, message) }
}

/// The names the session's own tools hold, which no ref may take.
fn session_holders(names: &Names) -> Holders {
    let mut holders = Holders::new();
    for (name, what) in &names.taken {
        holders.insert(name.clone(), (None, format!("the {what} tool '{name}'")));
    }
    holders
}

/// Resolves the named entries (a name or a `prefix*`) to the session's offerable tools;
/// a tool selected twice is listed once.
fn select_named(
    refs: &[ToolRef],
    label: &dyn Fn(usize) -> String,
    names: &Names,
    out: &mut Resolution,
    holders: &mut Holders,
) -> std::result::Result<(), ResolveError> {
    for (i, r) in refs.iter().enumerate() {
        let ToolRef::Named(pattern) = r else { continue };
        let matched: Vec<&ToolSpec> = match pattern.strip_suffix('*') {
            Some(stem) => names.offerable.iter().filter(|s| s.name.starts_with(stem)).collect(),
            None => names.offerable.iter().filter(|s| s.name == *pattern).collect(),
        };
        if matched.is_empty() {
            let known: Vec<&str> = names.offerable.iter().map(|s| s.name.as_str()).collect();
            let what = if pattern.ends_with('*') { "matches no tool" } else { "is not a tool" };
            return Err(fail(
                i,
                ResolveCause::UnknownTool,
                ErrorKind::NotFound,
                format!(
                    "{}: '{pattern}' {what} of this session (its tools: {})",
                    label(i),
                    if known.is_empty() { "none".into() } else { known.join(", ") }
                ),
            ));
        }
        for spec in matched {
            if out.tools.iter().any(|t| t.name == spec.name) {
                continue; // the same tool selected twice (`filestore_*` and `filestore_read`)
            }
            holders.insert(spec.name.clone(), (Some(i), format!("{} ('{pattern}')", label(i))));
            out.tools.push(ResolvedTool {
                name: spec.name.clone(),
                spec: spec.clone(),
                call_ref: None,
                index: i,
            });
        }
    }
    Ok(())
}

/// Claims the tool names that provider refs fix before their catalogs are read (a
/// one-action ref's `name` or default name).
fn claim_provider_names(
    refs: &[ToolRef],
    label: &dyn Fn(usize) -> String,
    holders: &mut Holders,
) -> std::result::Result<(), ResolveError> {
    for (i, r) in refs.iter().enumerate() {
        if let ToolRef::Provider(p) = r
            && let Some(name) = p.tool_name()
        {
            claim(holders, i, &name, format!("{} ('{}')", label(i), p.call_ref))?;
        }
    }
    Ok(())
}

/// Gives `name` to ref `i` (described as `who`): it must be a valid tool name no one
/// holds yet.
fn claim(
    holders: &mut Holders,
    i: usize,
    name: &str,
    who: String,
) -> std::result::Result<(), ResolveError> {
    if !is_valid_name(name) {
        return Err(fail(
            i,
            ResolveCause::InvalidName,
            ErrorKind::InvalidArgument,
            format!("{who}: resolved name '{name}' is not a valid tool name; set 'name'"),
        ));
    }
    if let Some((_, other)) = holders.get(name) {
        return Err(fail(
            i,
            ResolveCause::DuplicateName,
            ErrorKind::InvalidArgument,
            format!(
                "{other} and {who} both resolve to the tool name '{name}'; give one of them a distinct 'name' (or 'prefix')"
            ),
        ));
    }
    holders.insert(name.to_string(), (Some(i), who));
    Ok(())
}

/// Resolves provider ref `i` (labelled `lbl`): checks its connection, then turns the
/// catalog entries into tools. An optional ref whose connection cannot be used is left
/// out with a warning; any other failure is returned.
fn resolve_provider(
    i: usize,
    p: &ProviderRef,
    lbl: &str,
    checker: &dyn ConnectionChecker,
    lenient: bool,
    out: &mut Resolution,
    holders: &mut Holders,
) -> std::result::Result<(), ResolveError> {
    let Some(infos) = check_connection(i, p, lbl, checker, out)? else {
        return Ok(());
    };
    if p.call_ref.is_wildcard() {
        resolve_every_action(i, p, lbl, infos, lenient, out, holders)
    } else {
        resolve_one_action(i, p, lbl, infos, out)
    }
}

/// The catalog entries of a usable connection, or none when an optional ref's
/// connection cannot be used (a warning says why).
fn check_connection(
    i: usize,
    p: &ProviderRef,
    lbl: &str,
    checker: &dyn ConnectionChecker,
    out: &mut Resolution,
) -> std::result::Result<Option<Vec<ActionInfo>>, ResolveError> {
    let c = &p.call_ref;
    let skip = |out: &mut Resolution, why: String| {
        out.warnings.push(format!("{lbl} ('{c}') is optional and was left out: {why}"));
    };
    let status = match checker.check(c) {
        Ok(s) => s,
        Err(e) if p.optional => {
            skip(out, e.message().to_string());
            return Ok(None);
        }
        Err(e) => {
            return Err(fail(
                i,
                ResolveCause::ConnectionFailed,
                e.kind(),
                format!("{lbl}: checking connection '{}' of {c}: {}", c.connection, e.message()),
            ));
        }
    };
    let (why, cause, kind) = match status {
        ConnectionStatus::Active(infos) => return Ok(Some(infos)),
        ConnectionStatus::Missing => (
            format!(
                "connection '{}' of {}/{} does not exist (call ref {c})",
                c.connection, c.provider, c.integration
            ),
            ResolveCause::MissingConnection,
            ErrorKind::NotFound,
        ),
        ConnectionStatus::Inactive { reason } => (
            format!(
                "connection '{}' of {}/{} is not active{} (call ref {c})",
                c.connection,
                c.provider,
                c.integration,
                reason.map(|r| format!(": {r}")).unwrap_or_default()
            ),
            ResolveCause::InactiveConnection,
            ErrorKind::Unauthorized,
        ),
    };
    if p.optional {
        skip(out, why);
        return Ok(None);
    }
    Err(fail(i, cause, kind, format!("{lbl}: {why}")))
}

/// The tool of a one-action ref: its catalog entry made a spec.
fn resolve_one_action(
    i: usize,
    p: &ProviderRef,
    lbl: &str,
    infos: Vec<ActionInfo>,
    out: &mut Resolution,
) -> std::result::Result<(), ResolveError> {
    let c = &p.call_ref;
    let info = catalog_entry(i, c, lbl, infos)?;
    let spec = match provider_spec(p, &c.action, info) {
        Ok((spec, relaxed)) => {
            out.warnings
                .extend(relaxed.into_iter().map(|n| format!("{lbl} ('{c}'), input schema: {n}")));
            spec
        }
        Err(why) => {
            return Err(fail(
                i,
                ResolveCause::InvalidSchema,
                ErrorKind::InvalidArgument,
                format!("{lbl} ('{c}'): {why}"),
            ));
        }
    };
    out.tools.push(ResolvedTool {
        name: spec.name.clone(),
        spec,
        call_ref: Some(c.clone()),
        index: i,
    });
    Ok(())
}

/// The catalog entry of `c`'s action. A host that lists the connection's catalog must
/// list the action; one that lists nothing vouches for the connection only (generic
/// spec).
fn catalog_entry(
    i: usize,
    c: &CallRef,
    lbl: &str,
    mut infos: Vec<ActionInfo>,
) -> std::result::Result<ActionInfo, ResolveError> {
    match infos.iter().position(|a| a.action == c.action || a.action.is_empty()) {
        Some(k) => Ok(infos.swap_remove(k)),
        None if infos.is_empty() => {
            Ok(ActionInfo { action: c.action.clone(), ..Default::default() })
        }
        None => {
            let mut offered: Vec<&str> = infos.iter().map(|a| a.action.as_str()).collect();
            offered.sort_unstable();
            let shown = offered.len().min(20);
            let more = offered.len() - shown;
            Err(fail(
                i,
                ResolveCause::UnknownTool,
                ErrorKind::NotFound,
                format!(
                    "{lbl}: {}/{} has no action '{}' (it offers: {}{})",
                    c.provider,
                    c.integration,
                    c.action,
                    offered[..shown].join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                ),
            ))
        }
    }
}

/// The tools of a `*` ref, one per catalog action. An action whose name or schema
/// cannot be used is left out with a warning; so is one whose name clashes, when
/// `lenient` (otherwise the clash fails resolution).
fn resolve_every_action(
    i: usize,
    p: &ProviderRef,
    lbl: &str,
    infos: Vec<ActionInfo>,
    lenient: bool,
    out: &mut Resolution,
    holders: &mut Holders,
) -> std::result::Result<(), ResolveError> {
    let c = &p.call_ref;
    for info in infos {
        let action = info.action.clone();
        let concrete = c.with_action(&action);
        let name = p.tool_name_for(&action);
        let who = format!("{lbl} ('{c}', action '{action}')");
        if !is_valid_segment(&action) || !is_valid_name(&name) {
            out.warnings.push(format!(
                "{who} was left out: its name '{name}' is not a valid tool name (1 to 128 of A-Z a-z 0-9 _ . -); name it with a ref of its own"
            ));
            continue;
        }
        let spec = match provider_spec(p, &action, info) {
            Ok((spec, relaxed)) => {
                out.warnings
                    .extend(relaxed.into_iter().map(|n| format!("{who}, input schema: {n}")));
                spec
            }
            Err(why) => {
                out.warnings.push(format!("{who} was left out: {why}"));
                continue;
            }
        };
        if let Err(e) = claim(holders, i, &name, who) {
            if !lenient {
                return Err(e);
            }
            out.warnings.push(format!("{}; it was left out", e.error.message()));
            continue;
        }
        out.tools.push(ResolvedTool { name, spec, call_ref: Some(concrete), index: i });
    }
    Ok(())
}

/// The spec of one provider action: the catalog's description, schema and hints, the
/// ref's approval; the schema must compile (it is what calls are checked against).
fn provider_spec(
    p: &ProviderRef,
    action: &str,
    info: ActionInfo,
) -> std::result::Result<(ToolSpec, Vec<String>), String> {
    let c = &p.call_ref;
    let input_schema = info.input_schema.unwrap_or_else(|| json!({"type": "object"}));
    let compiled = ArgsSchema::compile(&input_schema)
        .map_err(|why| format!("its input schema cannot be used: {why}"))?;
    let mut annotations = info.annotations.unwrap_or_default();
    if annotations.title.is_none() {
        annotations.title = info.title;
    }
    // Approval is the agent configuration's to require, never the catalog's to waive.
    annotations.requires_approval = p.requires_approval;
    let description = info.description.filter(|d| !d.trim().is_empty()).unwrap_or_else(|| {
        format!("Runs the {} action {action} through connection {}.", c.integration, c.connection)
    });
    let spec = ToolSpec {
        name: p.tool_name_for(action),
        description,
        input_schema,
        annotations,
        output_schema: None,
    };
    Ok((spec, compiled.relaxed))
}

fn check_segment(field: &str, value: &str) -> Result<()> {
    if is_valid_segment(value) {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::InvalidArgument,
        format!(
            "field '{field}': '{value}' is not a valid call-ref segment (letters, digits and '-', joined by single '_')"
        ),
    ))
}

#[cfg(test)]
mod tests;
