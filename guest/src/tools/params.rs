//! Tool parameters: the model of the MCP Toolbox parameter reference and the per-call
//! validation of arguments against it (DESIGN §6).
//!
//! Validation of one call runs in this order, and the first error wins:
//!
//! 1. `authRequired`: passes when any listed auth service verified the caller
//!    ([`check_auth_required`]).
//! 2. Undeclared arguments are rejected (`invalid-argument`); the Toolbox drops them,
//!    but a misspelt optional parameter silently ignored runs the wrong query.
//! 3. Each declared parameter, in declared order:
//!    - an auth parameter takes its value from the verified claims of its auth services
//!      only (the caller's value, if any, is ignored);
//!    - otherwise a missing value or JSON `null` takes the default, if there is one,
//!      else is an error when the parameter is required, else stays absent;
//!    - the value (defaults included) is checked: type, array items / map values,
//!      allowed values, excluded values, minimum, maximum — then escaped.
//! 4. Template parameters are substituted into the statement, after escaping
//!    ([`Template`]); plain parameters stay positional ([`ValidatedArgs::positional`]).
//!
//! Type rules: `integer` accepts JSON integers in the signed 64-bit range only (`14.5`
//! and `3.0` are refused); `float` accepts any number (`3` becomes `3.0`); `boolean`
//! accepts `true`/`false` only. Nothing is coerced from strings.
//!
//! **Allowed and excluded values match the whole value.** A string entry is a regular
//! expression that must match all of the value's text (`^(?:...)$` is implied), or a
//! literal equal to it; a non-string entry compares by JSON equality; arrays and maps
//! compare as whole values. The Toolbox matches regular expressions against
//! substrings, so there `excludedValues: [admin]` also blocks `administrator` and
//! `allowedValues: [foo]` admits `xfooy`; here neither happens, so an allow-list of
//! plain words means exactly those words. As in the Toolbox, a string entry that is not
//! a valid regular expression (`C++`) is compared literally.
//!
//! Every error names the parameter and the offending value.
//!
//! ```
//! use filestore_guest::tools::params::{validate_args, ParamType, Parameter, VerifiedClaims};
//! use serde_json::json;
//! let params = vec![
//!     Parameter::new("airline", ParamType::String).allowed([json!("^[A-Z]{2}$")]),
//!     Parameter::new("limit", ParamType::Integer).default_value(json!(10)).max(100),
//! ];
//! let args = validate_args(&params, &json!({"airline": "DL"}), &VerifiedClaims::new()).unwrap();
//! assert_eq!(args.positional(), vec![json!("DL"), json!(10)]);
//! let err = validate_args(&params, &json!({"airline": "DLX"}), &VerifiedClaims::new()).unwrap_err();
//! assert_eq!(err.message(), "parameter 'airline': value \"DLX\" is not one of the allowed values (^[A-Z]{2}$)");
//! ```

use std::collections::BTreeMap;
use std::fmt;

use regex::Regex;
use serde_json::{Map, Number, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::tools::config::ToolConfig;
use crate::vfs::limits::MAX_REGEX_BYTES;

/// Characters of a value quoted in an error message, at most.
const MAX_VALUE_IN_MESSAGE: usize = 80;

/// The type of a parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// A JSON string.
    String,
    /// A JSON integer in the signed 64-bit range.
    Integer,
    /// Any JSON number (kept as a float).
    Float,
    /// `true` or `false`.
    Boolean,
    /// A JSON array whose items are described by [`Parameter::items`].
    Array,
    /// A JSON object; its values are typed by [`Parameter::value_type`] when set.
    Map,
}

impl ParamType {
    /// Every type, in the order of the reference.
    pub const ALL: [ParamType; 6] = [
        ParamType::String,
        ParamType::Integer,
        ParamType::Float,
        ParamType::Boolean,
        ParamType::Array,
        ParamType::Map,
    ];

    /// The name used in `tools.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Float => "float",
            ParamType::Boolean => "boolean",
            ParamType::Array => "array",
            ParamType::Map => "map",
        }
    }

    /// Parses a `tools.yaml` type name.
    pub fn parse(name: &str) -> Option<ParamType> {
        ParamType::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// The JSON Schema `type` of values of this type (`float` → `number`, `map` → `object`).
    pub fn json_schema_type(self) -> &'static str {
        match self {
            ParamType::String => "string",
            ParamType::Integer => "integer",
            ParamType::Float => "number",
            ParamType::Boolean => "boolean",
            ParamType::Array => "array",
            ParamType::Map => "object",
        }
    }

    /// Whether this is one of the scalar types (`string integer float boolean`).
    pub fn is_scalar(self) -> bool {
        !matches!(self, ParamType::Array | ParamType::Map)
    }
}

impl fmt::Display for ParamType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which list of a tool a parameter was declared in, and so how the host uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamRole {
    /// `parameters`: bound positionally (`$1`, `?`) by the tool's handler.
    Parameter,
    /// `templateParameters`: substituted into the statement text.
    Template,
    /// `queryParams` of an http tool.
    Query,
    /// `bodyParams` of an http tool.
    Body,
    /// `headerParams` of an http tool.
    Header,
    /// `pathParams` of an http tool: substituted into its `path`.
    Path,
}

impl ParamRole {
    /// Every role, in the order tool fields are read.
    pub const ALL: [ParamRole; 6] = [
        ParamRole::Parameter,
        ParamRole::Template,
        ParamRole::Query,
        ParamRole::Body,
        ParamRole::Header,
        ParamRole::Path,
    ];

    /// The tool field that declares parameters of this role.
    pub fn field(self) -> &'static str {
        match self {
            ParamRole::Parameter => "parameters",
            ParamRole::Template => "templateParameters",
            ParamRole::Query => "queryParams",
            ParamRole::Body => "bodyParams",
            ParamRole::Header => "headerParams",
            ParamRole::Path => "pathParams",
        }
    }
}

/// How a string value is delimited for a template: the value is wrapped in the
/// delimiters and every closing delimiter inside it is doubled (SQL identifier/literal
/// quoting), so the value cannot end the quoted span early.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Escape {
    /// `'value'`, `'` doubled.
    SingleQuotes,
    /// `"value"`, `"` doubled.
    DoubleQuotes,
    /// `` `value` ``, `` ` `` doubled.
    Backticks,
    /// `[value]`, `]` doubled.
    SquareBrackets,
}

impl Escape {
    /// Every escape, in the order of the reference.
    pub const ALL: [Escape; 4] =
        [Escape::SingleQuotes, Escape::DoubleQuotes, Escape::Backticks, Escape::SquareBrackets];

    /// The name used in `tools.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Escape::SingleQuotes => "single-quotes",
            Escape::DoubleQuotes => "double-quotes",
            Escape::Backticks => "backticks",
            Escape::SquareBrackets => "square-brackets",
        }
    }

    /// Parses a `tools.yaml` escape name.
    pub fn parse(name: &str) -> Option<Escape> {
        Escape::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// Wraps `value` in the delimiters, doubling the closing delimiter inside it.
    ///
    /// ```
    /// use filestore_guest::tools::params::Escape;
    /// assert_eq!(Escape::Backticks.apply("users` OR 1=1--"), "`users`` OR 1=1--`");
    /// assert_eq!(Escape::SquareBrackets.apply("col] OR 1=1--"), "[col]] OR 1=1--]");
    /// ```
    pub fn apply(self, value: &str) -> String {
        let (open, close) = match self {
            Escape::SingleQuotes => ('\'', '\''),
            Escape::DoubleQuotes => ('"', '"'),
            Escape::Backticks => ('`', '`'),
            Escape::SquareBrackets => ('[', ']'),
        };
        let mut out = String::with_capacity(value.len() + 2);
        out.push(open);
        for c in value.chars() {
            if c == close {
                out.push(close);
            }
            out.push(c);
        }
        out.push(close);
        out
    }
}

/// One entry of `allowedValues` / `excludedValues`.
#[derive(Clone, Debug)]
pub enum ValueMatcher {
    /// A string entry: matches a scalar whose text equals it or that the regular
    /// expression matches as a whole.
    Pattern {
        /// The entry as written.
        source: String,
        /// `^(?:source)$`.
        regex: Regex,
    },
    /// A non-string entry (or a string that is not a valid regular expression):
    /// matches by equality.
    Literal(Value),
}

impl ValueMatcher {
    /// The matcher for one configured entry.
    pub fn new(entry: Value) -> ValueMatcher {
        match entry {
            Value::String(source) => {
                let whole = format!("^(?:{source})$");
                match regex::RegexBuilder::new(&whole).size_limit(MAX_REGEX_BYTES).build() {
                    Ok(regex) => ValueMatcher::Pattern { source, regex },
                    Err(_) => ValueMatcher::Literal(Value::String(source)),
                }
            }
            other => ValueMatcher::Literal(other),
        }
    }

    /// Whether `value` matches this entry.
    pub fn matches(&self, value: &Value) -> bool {
        match self {
            ValueMatcher::Literal(l) => json_equal(l, value),
            ValueMatcher::Pattern { source, regex } => match scalar_text(value) {
                Some(text) => text == *source || regex.is_match(&text),
                None => false,
            },
        }
    }

    /// The entry as configured.
    pub fn to_json(&self) -> Value {
        match self {
            ValueMatcher::Pattern { source, .. } => Value::String(source.clone()),
            ValueMatcher::Literal(v) => v.clone(),
        }
    }

    /// The single value this entry admits, when it admits exactly one: a literal, or a
    /// string without regular-expression metacharacters. Used for JSON Schema `enum`.
    pub fn literal(&self) -> Option<Value> {
        match self {
            ValueMatcher::Literal(v) => Some(v.clone()),
            ValueMatcher::Pattern { source, .. } => {
                if source.chars().any(regex_syntax::is_meta_character) {
                    None
                } else {
                    Some(Value::String(source.clone()))
                }
            }
        }
    }
}

/// An auth parameter's source: a claim of one auth service's verified token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthField {
    /// The `authServices` entry (by name).
    pub service: String,
    /// The claim of its token, e.g. `sub` or `email`.
    pub field: String,
}

/// One declared parameter of a tool.
#[derive(Clone, Debug)]
pub struct Parameter {
    /// Name, the key of the argument object.
    pub name: String,
    /// Type.
    pub param_type: ParamType,
    /// Natural-language description for the model.
    pub description: String,
    /// Whether a value is needed (default `true`; a default makes it optional).
    pub required: bool,
    /// Used when the argument is missing or `null`; validated like an input.
    pub default: Option<Value>,
    /// The value must match one of these (when any).
    pub allowed_values: Vec<ValueMatcher>,
    /// The value must match none of these.
    pub excluded_values: Vec<ValueMatcher>,
    /// Delimiters for string values (on an array: for each string item).
    pub escape: Option<Escape>,
    /// Smallest number allowed (integer and float).
    pub min_value: Option<Number>,
    /// Largest number allowed (integer and float).
    pub max_value: Option<Number>,
    /// The item description of an array.
    pub items: Option<Box<Parameter>>,
    /// The type of every value of a map (`None`: any values).
    pub value_type: Option<ParamType>,
    /// When not empty, the value comes from these verified claims only.
    pub auth_services: Vec<AuthField>,
    /// Which list of the tool declared it.
    pub role: ParamRole,
}

impl Parameter {
    /// A required parameter of `param_type` with nothing else set (role: positional).
    pub fn new(name: impl Into<String>, param_type: ParamType) -> Parameter {
        Parameter {
            name: name.into(),
            param_type,
            description: String::new(),
            required: true,
            default: None,
            allowed_values: Vec::new(),
            excluded_values: Vec::new(),
            escape: None,
            min_value: None,
            max_value: None,
            items: None,
            value_type: None,
            auth_services: Vec::new(),
            role: ParamRole::Parameter,
        }
    }

    /// Sets the description.
    pub fn description(mut self, text: impl Into<String>) -> Parameter {
        self.description = text.into();
        self
    }

    /// Makes the parameter optional.
    pub fn optional(mut self) -> Parameter {
        self.required = false;
        self
    }

    /// Sets the default.
    pub fn default_value(mut self, value: Value) -> Parameter {
        self.default = Some(value);
        self
    }

    /// Sets the allowed values.
    pub fn allowed(mut self, entries: impl IntoIterator<Item = Value>) -> Parameter {
        self.allowed_values = entries.into_iter().map(ValueMatcher::new).collect();
        self
    }

    /// Sets the excluded values.
    pub fn excluded(mut self, entries: impl IntoIterator<Item = Value>) -> Parameter {
        self.excluded_values = entries.into_iter().map(ValueMatcher::new).collect();
        self
    }

    /// Sets the escape.
    pub fn escape(mut self, escape: Escape) -> Parameter {
        self.escape = Some(escape);
        self
    }

    /// Sets the minimum.
    pub fn min(mut self, n: impl Into<Number>) -> Parameter {
        self.min_value = Some(n.into());
        self
    }

    /// Sets the maximum.
    pub fn max(mut self, n: impl Into<Number>) -> Parameter {
        self.max_value = Some(n.into());
        self
    }

    /// Sets the item description (arrays).
    pub fn items(mut self, items: Parameter) -> Parameter {
        self.items = Some(Box::new(items));
        self
    }

    /// Sets the value type (maps).
    pub fn value_type(mut self, t: ParamType) -> Parameter {
        self.value_type = Some(t);
        self
    }

    /// Adds an auth source: the claim `field` of `service`'s verified token.
    pub fn auth(mut self, service: impl Into<String>, field: impl Into<String>) -> Parameter {
        self.auth_services.push(AuthField { service: service.into(), field: field.into() });
        self
    }

    /// Sets the role.
    pub fn role(mut self, role: ParamRole) -> Parameter {
        self.role = role;
        self
    }

    /// Whether the value comes from verified claims rather than from the caller.
    pub fn is_auth(&self) -> bool {
        !self.auth_services.is_empty()
    }

    /// Whether the caller must give a value: required and without a default.
    pub fn is_required(&self) -> bool {
        self.required && self.default.is_none()
    }
}

/// The claims of the auth services that verified the caller's tokens, by service name.
///
/// The host verifies tokens (signatures, audiences, expiry) outside the sandbox and
/// hands the guest only the decoded claims of the valid ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerifiedClaims {
    services: BTreeMap<String, Map<String, Value>>,
}

impl VerifiedClaims {
    /// No verified service.
    pub fn new() -> VerifiedClaims {
        VerifiedClaims::default()
    }

    /// Adds the claims of a verified service (a non-object `claims` counts as empty).
    pub fn with(mut self, service: impl Into<String>, claims: Value) -> VerifiedClaims {
        self.insert(service, claims);
        self
    }

    /// Parses `{"service": {"claim": value, ...}, ...}` (the WIT `call-context.claims`
    /// form); `null` is no verified service.
    pub fn from_json(value: &Value) -> Result<VerifiedClaims> {
        let mut claims = VerifiedClaims::new();
        match value {
            Value::Null => {}
            Value::Object(services) => {
                for (service, c) in services {
                    if !c.is_object() {
                        return Err(Error::new(
                            ErrorKind::InvalidArgument,
                            format!(
                                "claims of auth service '{service}' must be an object, got {}",
                                describe(c)
                            ),
                        ));
                    }
                    claims.insert(service.clone(), c.clone());
                }
            }
            other => {
                return Err(Error::new(
                    ErrorKind::InvalidArgument,
                    format!("claims must be an object of auth services, got {}", describe(other)),
                ));
            }
        }
        Ok(claims)
    }

    /// Adds the claims of a verified service.
    pub fn insert(&mut self, service: impl Into<String>, claims: Value) {
        let claims = match claims {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        self.services.insert(service.into(), claims);
    }

    /// Whether `service` verified the caller.
    pub fn is_verified(&self, service: &str) -> bool {
        self.services.contains_key(service)
    }

    /// The claims of `service`, when it verified the caller.
    pub fn claims(&self, service: &str) -> Option<&Map<String, Value>> {
        self.services.get(service)
    }
}

/// One validated argument: its parameter's name and role, and the value (escaped,
/// defaulted), or `None` for an optional parameter that was not given.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidatedArg {
    /// Parameter name.
    pub name: String,
    /// Parameter role.
    pub role: ParamRole,
    /// Final value; `None` when absent.
    pub value: Option<Value>,
}

/// The validated arguments of one call, in declared order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValidatedArgs {
    args: Vec<ValidatedArg>,
}

impl ValidatedArgs {
    /// Every declared parameter in order (absent ones included, with `value: None`).
    pub fn iter(&self) -> impl Iterator<Item = &ValidatedArg> {
        self.args.iter()
    }

    /// The value of `name`, when present.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.args.iter().find(|a| a.name == name).and_then(|a| a.value.as_ref())
    }

    /// The values of the positional parameters (`parameters`), in declared order, with
    /// `null` for an absent optional one so later positions do not shift.
    pub fn positional(&self) -> Vec<Value> {
        self.args
            .iter()
            .filter(|a| a.role == ParamRole::Parameter)
            .map(|a| a.value.clone().unwrap_or(Value::Null))
            .collect()
    }

    /// The present values of one role, by name, in declared order.
    pub fn with_role(&self, role: ParamRole) -> Map<String, Value> {
        self.args
            .iter()
            .filter(|a| a.role == role)
            .filter_map(|a| a.value.clone().map(|v| (a.name.clone(), v)))
            .collect()
    }

    /// Every present value by name, in declared order.
    pub fn to_object(&self) -> Map<String, Value> {
        self.args.iter().filter_map(|a| a.value.clone().map(|v| (a.name.clone(), v))).collect()
    }

    /// Number of declared parameters.
    pub fn len(&self) -> usize {
        self.args.len()
    }

    /// Whether no parameter is declared.
    pub fn is_empty(&self) -> bool {
        self.args.is_empty()
    }
}

/// A validated call of a configured tool: its arguments and, for tools with a
/// statement, the statement with template parameters substituted.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidatedCall {
    /// The tool's name.
    pub tool: String,
    /// Validated arguments of every role.
    pub args: ValidatedArgs,
    /// The statement after template substitution (as configured when the tool has no
    /// template parameters); `None` when the tool has no statement.
    pub statement: Option<String>,
    /// For http tools: the `path` with `pathParams` substituted, each value
    /// percent-encoded (everything but `A-Z a-z 0-9 - _ ~`, so a value cannot add
    /// segments, `..`, a query or a fragment).
    pub path: Option<String>,
}

/// Checks `authRequired`: passes when it is empty or when any listed service verified
/// the caller. Failure is `unauthorized`, naming the services.
pub fn check_auth_required(tool: &str, required: &[String], claims: &VerifiedClaims) -> Result<()> {
    if required.is_empty() || required.iter().any(|s| claims.is_verified(s)) {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::Unauthorized,
        format!(
            "tool '{tool}' requires a verified token from {}",
            required.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(" or ")
        ),
    ))
}

/// Validates the arguments of one call against `params` (see the module docs for the
/// order). `args` must be a JSON object; `null` means no arguments.
pub fn validate_args(
    params: &[Parameter],
    args: &Value,
    claims: &VerifiedClaims,
) -> Result<ValidatedArgs> {
    let empty = Map::new();
    let given = match args {
        Value::Null => &empty,
        Value::Object(m) => m,
        other => {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("arguments must be a JSON object, got {}", describe(other)),
            ));
        }
    };
    if let Some(unknown) = given.keys().find(|k| !params.iter().any(|p| p.name == **k)) {
        let declared: Vec<&str> =
            params.iter().filter(|p| !p.is_auth()).map(|p| p.name.as_str()).collect();
        let declared = if declared.is_empty() { "none".to_string() } else { declared.join(", ") };
        return Err(Error::new(
            ErrorKind::InvalidArgument,
            format!("unknown parameter '{unknown}' (declared: {declared})"),
        ));
    }
    let mut out = Vec::with_capacity(params.len());
    for p in params {
        let raw = if p.is_auth() {
            Some(from_claims(p, claims)?)
        } else {
            match given.get(&p.name) {
                None | Some(Value::Null) => match &p.default {
                    Some(d) => Some(d.clone()),
                    None if p.required => {
                        let got = if given.contains_key(&p.name) { " (got null)" } else { "" };
                        return Err(Error::invalid_argument(
                            &p.name,
                            format!("a value is required{got}"),
                        ));
                    }
                    None => None,
                },
                Some(v) => Some(v.clone()),
            }
        };
        let value = match raw {
            Some(v) => Some(validate_value(p, &v)?),
            None => None,
        };
        out.push(ValidatedArg { name: p.name.clone(), role: p.role, value });
    }
    Ok(ValidatedArgs { args: out })
}

/// Validates one call of a configured tool: `authRequired`, every parameter of every
/// role, then template substitution into the statement.
pub fn validate_call(
    tool: &ToolConfig,
    args: &Value,
    claims: &VerifiedClaims,
) -> Result<ValidatedCall> {
    check_auth_required(&tool.name, &tool.auth_required, claims)?;
    let args = validate_args(&tool.parameters, args, claims)?;
    let statement = match &tool.statement {
        Some(s) if tool.parameters.iter().any(|p| p.role == ParamRole::Template) => {
            let template = Template::parse(s).map_err(|e| {
                Error::new(
                    ErrorKind::InvalidArgument,
                    format!("tool '{}': statement: {e}", tool.name),
                )
            })?;
            Some(template.render(&args)?)
        }
        Some(s) => Some(s.clone()),
        None => None,
    };
    let path = match tool.fields.get("path") {
        Some(Value::String(p)) if tool.tool_type == "http" => {
            let template = Template::parse(p).map_err(|e| {
                Error::new(ErrorKind::InvalidArgument, format!("tool '{}': path: {e}", tool.name))
            })?;
            Some(template.render_with(&args, percent_encode)?)
        }
        _ => None,
    };
    Ok(ValidatedCall { tool: tool.name.clone(), args, statement, path })
}

/// Validates one value (given or default) against `param`: type, items or map values,
/// allowed, excluded, minimum, maximum; then applies the escape. Returns the final value.
pub fn validate_value(param: &Parameter, value: &Value) -> Result<Value> {
    let checked = check(param, value, &param.name, "")?;
    Ok(apply_escape(param, checked))
}

fn from_claims(p: &Parameter, claims: &VerifiedClaims) -> Result<Value> {
    for auth in &p.auth_services {
        if let Some(c) = claims.claims(&auth.service) {
            return c.get(&auth.field).cloned().ok_or_else(|| {
                Error::new(
                    ErrorKind::Unauthorized,
                    format!(
                        "parameter '{}': claim '{}' is missing from the verified token of auth service '{}'",
                        p.name, auth.field, auth.service
                    ),
                )
            });
        }
    }
    let services: Vec<String> =
        p.auth_services.iter().map(|a| format!("'{}'", a.service)).collect();
    Err(Error::new(
        ErrorKind::Unauthorized,
        format!(
            "parameter '{}' is filled from a verified token of auth service {}, and none was verified",
            p.name,
            services.join(" or ")
        ),
    ))
}

/// Checks `value` against `p` and returns it normalised (floats as floats), unescaped.
/// `name` is the top-level parameter, `at` the position inside it (`item 2`, `key 'k'`).
fn check(p: &Parameter, value: &Value, name: &str, at: &str) -> Result<Value> {
    let fail = |msg: String| Error::invalid_argument(name, format!("{at}{msg}"));
    let normalised = match (p.param_type, value) {
        (ParamType::String, Value::String(_)) | (ParamType::Boolean, Value::Bool(_)) => {
            value.clone()
        }
        (ParamType::Integer, Value::Number(n)) if n.is_i64() => value.clone(),
        (ParamType::Integer, Value::Number(n)) if n.is_u64() => {
            return Err(fail(format!("integer {n} is out of the signed 64-bit range")));
        }
        (ParamType::Float, Value::Number(n)) => match n.as_f64().and_then(Number::from_f64) {
            Some(f) => Value::Number(f),
            None => return Err(fail(format!("number {n} is not a finite float"))),
        },
        (ParamType::Array, Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(match &p.items {
                    Some(ip) => check(ip, item, name, &format!("{at}item {i}: "))?,
                    None => item.clone(),
                });
            }
            Value::Array(out)
        }
        (ParamType::Map, Value::Object(map)) => {
            let mut out = Map::with_capacity(map.len());
            for (k, v) in map {
                let v = match p.value_type {
                    Some(t) => {
                        check(&Parameter::new(k.as_str(), t), v, name, &format!("{at}key '{k}': "))?
                    }
                    None => v.clone(),
                };
                out.insert(k.clone(), v);
            }
            Value::Object(out)
        }
        _ => return Err(fail(format!("expected {}, got {}", p.param_type, describe(value)))),
    };
    if !p.allowed_values.is_empty() && !p.allowed_values.iter().any(|m| m.matches(&normalised)) {
        let list: Vec<String> = p.allowed_values.iter().map(|m| short(&entry_text(m))).collect();
        return Err(fail(format!(
            "value {} is not one of the allowed values ({})",
            short(&normalised.to_string()),
            list.join(", ")
        )));
    }
    if let Some(m) = p.excluded_values.iter().find(|m| m.matches(&normalised)) {
        return Err(fail(format!(
            "value {} is excluded (matches {})",
            short(&normalised.to_string()),
            short(&entry_text(m))
        )));
    }
    if let Value::Number(n) = &normalised {
        if let Some(min) = &p.min_value
            && compare(n, min).is_lt()
        {
            return Err(fail(format!("value {n} is less than the minimum {min}")));
        }
        if let Some(max) = &p.max_value
            && compare(n, max).is_gt()
        {
            return Err(fail(format!("value {n} is greater than the maximum {max}")));
        }
    }
    Ok(normalised)
}

fn apply_escape(p: &Parameter, value: Value) -> Value {
    match value {
        Value::String(s) => match p.escape {
            Some(e) => Value::String(e.apply(&s)),
            None => Value::String(s),
        },
        Value::Array(items) => {
            let Some(ip) = &p.items else { return Value::Array(items) };
            // An escape on the array itself applies to string items without their own.
            let outer = if ip.escape.is_none() { p.escape } else { None };
            Value::Array(
                items
                    .into_iter()
                    .map(|item| match (outer, item) {
                        (Some(e), Value::String(s)) => Value::String(e.apply(&s)),
                        (_, item) => apply_escape(ip, item),
                    })
                    .collect(),
            )
        }
        other => other,
    }
}

/// Orders two JSON numbers exactly when both are integers, as floats otherwise.
fn compare(a: &Number, b: &Number) -> std::cmp::Ordering {
    match (a.as_i64(), b.as_i64()) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => {
            let (x, y) = (a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(f64::NAN));
            x.partial_cmp(&y).unwrap_or(std::cmp::Ordering::Equal)
        }
    }
}

/// JSON equality where numbers compare by value (`3` equals `3.0`).
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => compare(x, y).is_eq(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

/// The text a pattern is matched against: strings as they are, numbers and booleans as
/// JSON text. `None` for null, arrays and maps (patterns never match those).
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn entry_text(m: &ValueMatcher) -> String {
    match m {
        ValueMatcher::Pattern { source, .. } => source.clone(),
        ValueMatcher::Literal(v) => v.to_string(),
    }
}

/// "integer 4", "string \"x\"", "null": a value for an error message.
pub(crate) fn describe(v: &Value) -> String {
    let kind = match v {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    format!("{kind} {}", short(&v.to_string()))
}

/// Cuts a text for a message.
fn short(text: &str) -> String {
    if text.chars().count() <= MAX_VALUE_IN_MESSAGE {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_VALUE_IN_MESSAGE).collect();
    format!("{cut}…")
}

/// A statement or path with template actions: `{{.name}}` inserts a value,
/// `{{array .name}}` inserts the items of an array joined by `, `.
///
/// Values are inserted as text, after escaping: strings as they are (so an escape's
/// delimiters are what quote them), numbers and booleans as JSON text. Only these two
/// actions exist; anything else between `{{` and `}}` is an error when the config loads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    parts: Vec<TemplatePart>,
}

/// One piece of a [`Template`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplatePart {
    /// Literal text.
    Text(String),
    /// `{{.name}}`.
    Value(String),
    /// `{{array .name}}`.
    Array(String),
}

impl Template {
    /// Parses `text`. The error says which action is malformed.
    pub fn parse(text: &str) -> std::result::Result<Template, String> {
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find("{{") {
            if start > 0 {
                parts.push(TemplatePart::Text(rest[..start].to_string()));
            }
            let after = &rest[start + 2..];
            let end = after
                .find("}}")
                .ok_or_else(|| format!("unclosed template action '{}'", short(&rest[start..])))?;
            let inner = after[..end].trim();
            let words: Vec<&str> = inner.split_whitespace().collect();
            let field = |w: &str| -> Option<String> {
                let name = w.strip_prefix('.')?;
                (!name.is_empty()).then(|| name.to_string())
            };
            let part = match words.as_slice() {
                [w] => field(w).map(TemplatePart::Value),
                ["array", w] => field(w).map(TemplatePart::Array),
                _ => None,
            };
            let part = part.ok_or_else(|| {
                format!("unsupported template action '{{{{{inner}}}}}'; use {{{{.name}}}} or {{{{array .name}}}}")
            })?;
            parts.push(part);
            rest = &after[end + 2..];
        }
        if !rest.is_empty() {
            parts.push(TemplatePart::Text(rest.to_string()));
        }
        Ok(Template { parts })
    }

    /// The pieces, in order.
    pub fn parts(&self) -> &[TemplatePart] {
        &self.parts
    }

    /// Substitutes validated (escaped) values. An absent value is an
    /// `invalid-argument` error naming the parameter.
    pub fn render(&self, args: &ValidatedArgs) -> Result<String> {
        self.render_with(args, |s| s.to_string())
    }

    /// Like [`Template::render`], passing each inserted text (each item, for arrays)
    /// through `encode` (e.g. percent-encoding for URL paths).
    pub fn render_with(
        &self,
        args: &ValidatedArgs,
        encode: impl Fn(&str) -> String,
    ) -> Result<String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                TemplatePart::Text(t) => out.push_str(t),
                TemplatePart::Value(name) | TemplatePart::Array(name) => {
                    let value = args.get(name).ok_or_else(|| {
                        Error::invalid_argument(name, "has no value to substitute into the template (give one or configure a default)")
                    })?;
                    match (part, value) {
                        (TemplatePart::Array(_), Value::Array(items)) => {
                            let texts: Vec<String> =
                                items.iter().map(|v| encode(&template_text(v))).collect();
                            out.push_str(&texts.join(", "));
                        }
                        (TemplatePart::Array(_), other) => {
                            return Err(Error::invalid_argument(
                                name,
                                format!(
                                    "{{{{array .{name}}}}} needs an array, got {}",
                                    describe(other)
                                ),
                            ));
                        }
                        (_, v) => out.push_str(&encode(&template_text(v))),
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Percent-encodes every byte but `A-Z a-z 0-9 - _ ~` (RFC 3986 unreserved, less `.`
/// so a value cannot be a `..` segment).
pub fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn template_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        excluded_is_whole_value_not_substring: p("s", ParamType::String).excluded([json!("admin")]), json!("administrator") => Ok(json!("administrator"));
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
        let args =
            validate_args(&params, &json!({"a": null, "b": 1}), &VerifiedClaims::new()).unwrap();
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
        let e = validate_args(&params, &json!({"b": "x", "a": "y"}), &VerifiedClaims::new())
            .unwrap_err();
        assert!(e.message().starts_with("parameter 'a'"), "{}", e.message());
    }

    #[test]
    fn undeclared_arguments_are_rejected() {
        let params = vec![p("country", ParamType::String)];
        let e =
            validate_args(&params, &json!({"countr": "x"}), &VerifiedClaims::new()).unwrap_err();
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
        let params =
            vec![p("who", ParamType::String).auth("github", "login").auth("google", "email")];
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
        let e =
            validate_args(&params, &json!({"user_id": "me"}), &VerifiedClaims::new()).unwrap_err();
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
        assert!(
            check_auth_required("t", &req, &VerifiedClaims::new().with("b", json!({}))).is_ok()
        );
        let e = check_auth_required("t", &req, &VerifiedClaims::new().with("c", json!({})))
            .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Unauthorized);
        assert_eq!(e.message(), "tool 't' requires a verified token from 'a' or 'b'");
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
            ("SELECT {{range .a}}", "unsupported template action '{{range .a}}'"),
            ("SELECT {{a}}", "unsupported"),
            ("SELECT {{.}}", "unsupported"),
        ] {
            let e = Template::parse(text).unwrap_err();
            assert!(e.contains(fragment), "{text}: {e}");
        }
        assert_eq!(
            Template::parse("no actions").unwrap().parts(),
            &[TemplatePart::Text("no actions".into())]
        );
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
        assert_eq!(ValueMatcher::new(json!("abc")).literal(), Some(json!("abc")));
        assert_eq!(ValueMatcher::new(json!("^a.*")).literal(), None);
        assert_eq!(ValueMatcher::new(json!(3)).literal(), Some(json!(3)));
        assert!(ValueMatcher::new(json!(3)).matches(&json!(3.0)));
        assert!(!ValueMatcher::new(json!("a")).matches(&json!(["a"])));
    }
}
