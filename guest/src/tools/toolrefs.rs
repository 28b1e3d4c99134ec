//! Agent tool references (DESIGN §6, seed 004): an agent configuration lists its tools
//! as built-in names (`"filestore_read"`) or provider refs
//! `{type, integration, action, connection, name?}`; resolution turns the list into
//! tool specs the agent can call.
//!
//! A provider ref resolves to a spec whose [`CallRef`] is
//! `tools.{provider}.{integration}.{action}.{connection}`, the slug the host's
//! `tool-host` executes. Each segment matches `^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$`: no
//! `.`, no leading, trailing or doubled `_`, so a model-facing function name that spells
//! the slug with `__` for `.` ([`CallRef::to_function_name`]) splits back unambiguously.
//!
//! Resolution fails fast, before the agent runs, in this order: malformed refs, then
//! duplicate resolved names (two connections of one action need distinct `name`s; the
//! error names both refs instead of letting one silently shadow the other), then
//! unknown built-ins, then each provider connection, checked through the host
//! ([`ConnectionChecker`]): a missing or inactive connection fails resolution with a
//! message naming it, instead of failing mid-run at the first call.
//!
//! ```
//! use filestore_guest::tools::toolrefs::{parse_refs, resolve_refs, ActionInfo, CallRef, ConnectionStatus};
//! use serde_json::json;
//! let refs = parse_refs(&json!([
//!     {"type": "composio", "integration": "github", "action": "GET_THE_AUTHENTICATED_USER",
//!      "connection": "github-tvn", "name": "github_whoami"}
//! ])).unwrap();
//! let checker = |_: &CallRef| Ok(ConnectionStatus::Active(ActionInfo::default()));
//! let tools = resolve_refs(&refs, &[], &checker).unwrap();
//! assert_eq!(tools[0].name, "github_whoami");
//! assert_eq!(tools[0].call_ref.as_ref().unwrap().to_string(),
//!            "tools.composio.github.GET_THE_AUTHENTICATED_USER.github-tvn");
//! ```

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value, json};

use crate::error::{Error, ErrorKind, Result};
use crate::tools::config::is_valid_name;
use crate::tools::manifest::{ToolAnnotations, ToolSpec};
use crate::tools::params::describe;

/// Whether `s` is a valid call-ref segment: `^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$`.
pub fn is_valid_segment(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('_')
        && !s.ends_with('_')
        && !s.contains("__")
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `tools.{provider}.{integration}.{action}.{connection}`: which provider action to run
/// through which connection.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CallRef {
    /// The provider (`composio`, ...), the ref's `type`.
    pub provider: String,
    /// The integration (`github`).
    pub integration: String,
    /// The action (`GET_THE_AUTHENTICATED_USER`).
    pub action: String,
    /// The connection (an account linked to the integration).
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

    /// Parses `tools.{provider}.{integration}.{action}.{connection}`.
    pub fn parse(slug: &str) -> Result<CallRef> {
        let bad = || {
            Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "call ref '{slug}' is not of the form tools.provider.integration.action.connection"
                ),
            )
        };
        let parts: Vec<&str> = slug.split('.').collect();
        match parts.as_slice() {
            ["tools", p, i, a, c] => CallRef::new(p, i, a, c).map_err(|e| {
                Error::new(
                    ErrorKind::InvalidArgument,
                    format!("call ref '{slug}': {}", e.message()),
                )
            }),
            _ => Err(bad()),
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
    /// Which action through which connection.
    pub call_ref: CallRef,
    /// The tool name the model sees; default `{integration}__{action}`.
    pub name: Option<String>,
}

impl ProviderRef {
    /// The resolved tool name: `name`, or `{integration}__{action}`.
    pub fn tool_name(&self) -> String {
        self.name
            .clone()
            .unwrap_or_else(|| format!("{}__{}", self.call_ref.integration, self.call_ref.action))
    }
}

/// One entry of an agent's `tools` list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolRef {
    /// A built-in tool by name (`filestore_read`).
    Builtin(String),
    /// A provider action through a connection.
    Provider(ProviderRef),
}

impl ToolRef {
    /// Parses one entry: a string, or `{type, integration, action, connection, name?}`
    /// (no other fields). Errors are `invalid-argument` and name the field.
    pub fn from_json(value: &Value) -> Result<ToolRef> {
        let bad = |msg: String| Error::new(ErrorKind::InvalidArgument, msg);
        match value {
            Value::String(name) => {
                if !is_valid_name(name) {
                    return Err(bad(format!(
                        "invalid built-in tool name '{name}': use 1 to 128 of the characters A-Z a-z 0-9 _ . -"
                    )));
                }
                Ok(ToolRef::Builtin(name.clone()))
            }
            Value::Object(map) => {
                const FIELDS: [&str; 5] = ["type", "integration", "action", "connection", "name"];
                if let Some(k) = map.keys().find(|k| !FIELDS.contains(&k.as_str())) {
                    return Err(bad(format!(
                        "unknown field '{k}' (a provider ref has type, integration, action, connection and name)"
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
                let call_ref = CallRef::new(
                    &field("type")?,
                    &field("integration")?,
                    &field("action")?,
                    &field("connection")?,
                )?;
                let name = match map.get("name") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(n)) if is_valid_name(n) => Some(n.clone()),
                    Some(Value::String(n)) => {
                        return Err(bad(format!(
                            "field 'name': invalid tool name '{n}': use 1 to 128 of the characters A-Z a-z 0-9 _ . -"
                        )));
                    }
                    Some(other) => {
                        return Err(bad(format!(
                            "field 'name': expected a string, got {}",
                            describe(other)
                        )));
                    }
                };
                Ok(ToolRef::Provider(ProviderRef { call_ref, name }))
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
            ToolRef::Builtin(name) => Value::String(name.clone()),
            ToolRef::Provider(p) => {
                let mut m = Map::new();
                m.insert("type".into(), json!(p.call_ref.provider));
                m.insert("integration".into(), json!(p.call_ref.integration));
                m.insert("action".into(), json!(p.call_ref.action));
                m.insert("connection".into(), json!(p.call_ref.connection));
                if let Some(n) = &p.name {
                    m.insert("name".into(), json!(n));
                }
                Value::Object(m)
            }
        }
    }

    /// The resolved tool name.
    pub fn tool_name(&self) -> String {
        match self {
            ToolRef::Builtin(n) => n.clone(),
            ToolRef::Provider(p) => p.tool_name(),
        }
    }
}

impl fmt::Display for ToolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolRef::Builtin(n) => write!(f, "built-in '{n}'"),
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

/// What the host knows of a provider action (from its catalog), for the spec.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActionInfo {
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
    /// Usable; with what the catalog says of the action.
    Active(ActionInfo),
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
    /// The status of `call_ref`'s connection, and the action's catalog entry.
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
    /// `None` for built-ins (they run in the guest).
    pub call_ref: Option<CallRef>,
    /// The ref as configured.
    pub origin: ToolRef,
}

/// Resolves an agent's refs: built-ins by name from `builtins`, provider refs through
/// `checker`. See the module docs for the order of checks; the first failure is
/// returned (`invalid-argument` for bad or clashing refs, `not-found` for an unknown
/// built-in or a missing connection, `unauthorized` for an inactive connection, the
/// checker's own error otherwise), naming the ref.
pub fn resolve_refs(
    refs: &[ToolRef],
    builtins: &[ToolSpec],
    checker: &dyn ConnectionChecker,
) -> Result<Vec<ResolvedTool>> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, r) in refs.iter().enumerate() {
        let name = r.tool_name();
        if !is_valid_name(&name) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "tools[{i}] ({r}): resolved name '{name}' is not a valid tool name; set 'name'"
                ),
            ));
        }
        if let Some(&first) = seen.get(&name) {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!(
                    "tools[{first}] ({}) and tools[{i}] ({r}) both resolve to the tool name '{name}'; give one of them a distinct 'name'",
                    refs[first]
                ),
            ));
        }
        seen.insert(name, i);
    }
    for (i, r) in refs.iter().enumerate() {
        if let ToolRef::Builtin(n) = r
            && !builtins.iter().any(|b| b.name == *n)
        {
            let known: Vec<&str> = builtins.iter().map(|b| b.name.as_str()).collect();
            return Err(Error::new(
                ErrorKind::NotFound,
                format!(
                    "tools[{i}]: unknown built-in tool '{n}' (available: {})",
                    if known.is_empty() { "none".into() } else { known.join(", ") }
                ),
            ));
        }
    }
    let mut out = Vec::with_capacity(refs.len());
    for (i, r) in refs.iter().enumerate() {
        match r {
            ToolRef::Builtin(n) => {
                let spec = builtins.iter().find(|b| b.name == *n).cloned().expect("checked above");
                out.push(ResolvedTool { name: n.clone(), spec, call_ref: None, origin: r.clone() });
            }
            ToolRef::Provider(p) => {
                let c = &p.call_ref;
                let status = checker.check(c).map_err(|e| {
                    Error::new(
                        e.kind(),
                        format!(
                            "tools[{i}]: checking connection '{}' of {}: {}",
                            c.connection,
                            c,
                            e.message()
                        ),
                    )
                })?;
                let info = match status {
                    ConnectionStatus::Active(info) => info,
                    ConnectionStatus::Missing => {
                        return Err(Error::new(
                            ErrorKind::NotFound,
                            format!(
                                "tools[{i}]: connection '{}' of {}/{} does not exist (call ref {c})",
                                c.connection, c.provider, c.integration
                            ),
                        ));
                    }
                    ConnectionStatus::Inactive { reason } => {
                        let why = reason.map(|r| format!(": {r}")).unwrap_or_default();
                        return Err(Error::new(
                            ErrorKind::Unauthorized,
                            format!(
                                "tools[{i}]: connection '{}' of {}/{} is not active{why} (call ref {c})",
                                c.connection, c.provider, c.integration
                            ),
                        ));
                    }
                };
                let name = p.tool_name();
                let spec = ToolSpec {
                    name: name.clone(),
                    description: info.description.unwrap_or_else(|| {
                        format!(
                            "Runs the {} action {} through connection {}.",
                            c.integration, c.action, c.connection
                        )
                    }),
                    input_schema: info.input_schema.unwrap_or_else(|| json!({"type": "object"})),
                    annotations: info.annotations.unwrap_or_default(),
                };
                out.push(ResolvedTool { name, spec, call_ref: Some(c.clone()), origin: r.clone() });
            }
        }
    }
    Ok(out)
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
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn builtin(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: "d".into(),
            input_schema: json!({"type": "object"}),
            annotations: Default::default(),
        }
    }

    fn github(connection: &str, name: Option<&str>) -> Value {
        let mut v = json!({"type": "composio", "integration": "github", "action": "GET_USER", "connection": connection});
        if let Some(n) = name {
            v["name"] = json!(n);
        }
        v
    }

    fn active(_: &CallRef) -> Result<ConnectionStatus> {
        Ok(ConnectionStatus::Active(ActionInfo {
            description: Some("Who am I".into()),
            input_schema: Some(json!({"type": "object", "properties": {}})),
            annotations: None,
        }))
    }

    #[test]
    fn segment_grammar() {
        for ok in ["a", "github", "GET_THE_USER", "github-tvn", "a_b-c_d", "0"] {
            assert!(is_valid_segment(ok), "{ok}");
        }
        for bad in ["", "_a", "a_", "a__b", "a.b", "a b", "é", "a/b"] {
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
    }

    #[test]
    fn resolves_builtins_and_providers() {
        let refs =
            parse_refs(&json!(["filestore_read", github("github-tvn", Some("github_whoami"))]))
                .unwrap();
        let checked = RefCell::new(Vec::new());
        let checker = |c: &CallRef| {
            checked.borrow_mut().push(c.to_string());
            active(c)
        };
        let tools = resolve_refs(&refs, &[builtin("filestore_read")], &checker).unwrap();
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].call_ref, None);
        assert_eq!(tools[0].spec.name, "filestore_read");
        assert_eq!(tools[1].name, "github_whoami");
        assert_eq!(tools[1].spec.description, "Who am I");
        assert_eq!(
            tools[1].call_ref.as_ref().unwrap().to_string(),
            "tools.composio.github.GET_USER.github-tvn"
        );
        assert_eq!(*checked.borrow(), vec!["tools.composio.github.GET_USER.github-tvn"]);
        assert_eq!(refs[1].to_json(), github("github-tvn", Some("github_whoami")));
    }

    #[test]
    fn default_name_and_defaults() {
        let refs = parse_refs(&json!([github("a", None)])).unwrap();
        let checker = |_: &CallRef| Ok(ConnectionStatus::Active(ActionInfo::default()));
        let tools = resolve_refs(&refs, &[], &checker).unwrap();
        assert_eq!(tools[0].name, "github__GET_USER");
        assert_eq!(tools[0].spec.input_schema, json!({"type": "object"}));
        assert!(tools[0].spec.description.contains("GET_USER"));
    }

    #[test]
    fn duplicate_names_name_both_refs() {
        let refs = parse_refs(&json!([github("a", None), github("b", None)])).unwrap();
        let e = resolve_refs(&refs, &[], &active).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert_eq!(
            e.message(),
            "tools[0] ('tools.composio.github.GET_USER.a') and tools[1] ('tools.composio.github.GET_USER.b') both resolve to the tool name 'github__GET_USER'; give one of them a distinct 'name'"
        );
        // Distinct names fix it.
        let refs =
            parse_refs(&json!([github("a", Some("gh_a")), github("b", Some("gh_b"))])).unwrap();
        assert_eq!(resolve_refs(&refs, &[], &active).unwrap().len(), 2);
        // A built-in clashing with a provider name.
        let refs = parse_refs(&json!(["gh", github("a", Some("gh"))])).unwrap();
        let e = resolve_refs(&refs, &[builtin("gh")], &active).unwrap_err();
        assert!(
            e.message().contains("built-in 'gh'") && e.message().contains("GET_USER.a"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn duplicates_fail_before_any_connection_check() {
        let refs = parse_refs(&json!([github("a", None), github("b", None)])).unwrap();
        let checker = |_: &CallRef| -> Result<ConnectionStatus> { panic!("checked a connection") };
        assert!(resolve_refs(&refs, &[], &checker).is_err());
    }

    #[test]
    fn missing_and_inactive_connections_fail_with_their_name() {
        let refs = parse_refs(&json!([github("github-old", None)])).unwrap();
        let e = resolve_refs(&refs, &[], &|_: &CallRef| Ok(ConnectionStatus::Missing)).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert!(e.message().contains("connection 'github-old'"), "{}", e.message());
        let inactive =
            |_: &CallRef| Ok(ConnectionStatus::Inactive { reason: Some("token revoked".into()) });
        let e = resolve_refs(&refs, &[], &inactive).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unauthorized);
        assert!(
            e.message().contains("connection 'github-old'")
                && e.message().contains("token revoked"),
            "{}",
            e.message()
        );
        let failing = |_: &CallRef| Err(Error::new(ErrorKind::Backend, "host down"));
        let e = resolve_refs(&refs, &[], &failing).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Backend);
        assert!(
            e.message().contains("'github-old'") && e.message().contains("host down"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn unknown_builtin_is_not_found() {
        let refs = parse_refs(&json!(["filestore_nope"])).unwrap();
        let e = resolve_refs(&refs, &[builtin("filestore_read")], &active).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert_eq!(
            e.message(),
            "tools[0]: unknown built-in tool 'filestore_nope' (available: filestore_read)"
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
            (json!(["ok", 5]), "tools[1]: expected a tool name or a provider ref object"),
            (json!(["bad name"]), "invalid built-in tool name"),
            (json!({"a": 1}), "tools must be a list"),
        ] {
            let e = parse_refs(&value).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidArgument);
            assert!(e.message().contains(fragment), "{value}: {}", e.message());
        }
        assert_eq!(parse_refs(&Value::Null).unwrap(), vec![]);
    }
}
