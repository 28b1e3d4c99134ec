//! Tool parameters: the model of the MCP Toolbox parameter reference and the per-call
//! validation of arguments against it (docs/architecture.md#parameters).
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
//!      allowed values, excluded values, minimum, maximum — then escaped for the
//!      tool's SQL dialect, or refused where no quoting is right ([`Escape::quote`]).
//! 4. Template parameters are substituted into the statement, after escaping
//!    ([`Template`]); plain parameters stay positional ([`ValidatedArgs::positional`]).
//!
//! Type rules: `integer` accepts JSON integers in the signed 64-bit range only (`14.5`
//! and `3.0` are refused); `float` accepts any number (`3` becomes `3.0`); `boolean`
//! accepts `true`/`false` only. Nothing is coerced from strings.
//!
//! **Allowed values match the whole value; excluded values match anywhere in it.**
//! A string entry is a regular expression in which `.` also matches a newline:
//!
//! - in `allowedValues` it must match all of the value's text (`^(?:...)$` is
//!   implied), or be a literal equal to it. The Toolbox matches substrings, so there
//!   `allowedValues: [foo]` admits `xfooy`; here an allow-list of plain words means
//!   exactly those words.
//! - in `excludedValues` a match anywhere in the text refuses the value, as in the
//!   Toolbox: a deny-list matched only against whole values is useless, since
//!   `["'", ";", "--"]` would refuse those exact strings and let
//!   `x' UNION SELECT secret FROM users --` through, and `.*'.*` would be bypassed
//!   by a newline.
//!
//! A non-string entry compares by JSON equality; arrays and maps compare as whole
//! values. As in the Toolbox, a string entry that is not a valid regular expression
//! (`C++`) is compared literally: equal to the whole value when allowed, contained in
//! it when excluded.
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

use std::fmt;

mod escape;
mod template;
#[cfg(test)]
mod tests;
mod validate;

pub use escape::{Escape, Unquotable};
pub use template::{Template, TemplatePart, percent_encode};
pub use validate::{
    ValidatedArg, ValidatedArgs, ValidatedCall, VerifiedClaims, check_auth_required,
    check_scopes_required, validate_args, validate_value,
};

use regex::Regex;
use serde_json::{Number, Value};

use crate::tools::placeholders::Dialect;
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

/// One entry of `allowedValues` (whole-value match) or `excludedValues` (a match
/// anywhere in the value refuses it); see the [module docs](self).
#[derive(Clone, Debug)]
pub enum ValueMatcher {
    /// A string entry: matches a scalar whose text equals it (allowed) or contains it
    /// (excluded), or that the regular expression matches.
    Pattern {
        /// The entry as written.
        source: String,
        /// `(?s)^(?:source)$` for an allowed entry, `(?s)(?:source)` for an excluded one.
        regex: Regex,
        /// Whether a match anywhere counts (excluded entries).
        anywhere: bool,
    },
    /// A non-string entry: matches by equality.
    Literal(Value),
    /// A string entry that is not a valid regular expression: equal to the whole text
    /// (allowed) or contained in it (excluded).
    Text {
        /// The entry as written.
        source: String,
        /// Whether a match anywhere counts (excluded entries).
        anywhere: bool,
    },
}

impl ValueMatcher {
    /// The matcher for one `allowedValues` entry: the whole value must match.
    pub fn allowed(entry: Value) -> ValueMatcher {
        ValueMatcher::build(entry, false)
    }

    /// The matcher for one `excludedValues` entry: a match anywhere refuses.
    pub fn excluded(entry: Value) -> ValueMatcher {
        ValueMatcher::build(entry, true)
    }

    fn build(entry: Value, anywhere: bool) -> ValueMatcher {
        match entry {
            Value::String(source) => {
                let pattern = if anywhere {
                    format!("(?s)(?:{source})")
                } else {
                    format!("(?s)^(?:{source})$")
                };
                match regex::RegexBuilder::new(&pattern).size_limit(MAX_REGEX_BYTES).build() {
                    Ok(regex) => ValueMatcher::Pattern { source, regex, anywhere },
                    Err(_) => ValueMatcher::Text { source, anywhere },
                }
            }
            other => ValueMatcher::Literal(other),
        }
    }

    /// Whether `value` matches this entry.
    pub fn matches(&self, value: &Value) -> bool {
        match self {
            ValueMatcher::Literal(l) => json_equal(l, value),
            ValueMatcher::Pattern { source, regex, anywhere } => match scalar_text(value) {
                Some(text) => {
                    (if *anywhere { text.contains(source.as_str()) } else { text == *source })
                        || regex.is_match(&text)
                }
                None => false,
            },
            ValueMatcher::Text { source, anywhere } => match scalar_text(value) {
                Some(text) if *anywhere => text.contains(source.as_str()),
                Some(text) => text == *source,
                None => false,
            },
        }
    }

    /// The entry as configured.
    pub fn to_json(&self) -> Value {
        match self {
            ValueMatcher::Pattern { source, .. } | ValueMatcher::Text { source, .. } => {
                Value::String(source.clone())
            }
            ValueMatcher::Literal(v) => v.clone(),
        }
    }

    /// The single value this entry admits, when it admits exactly one: a literal, or a
    /// string without regular-expression metacharacters. Used for JSON Schema `enum`.
    pub fn literal(&self) -> Option<Value> {
        match self {
            ValueMatcher::Literal(v) => Some(v.clone()),
            ValueMatcher::Text { source, .. } => Some(Value::String(source.clone())),
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
    /// The SQL dialect `escape` quotes for: its tool's, when that is one this host
    /// runs; `None` wraps and doubles whatever the dialect ([`Escape::quote`]).
    pub dialect: Option<Dialect>,
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
    /// Toolbox's `valueFromParam`: the value is that of the named parameter of the
    /// same tool; hidden from the schema, so the model never supplies it.
    pub value_from_param: Option<String>,
    /// Toolbox's `embeddedBy`: the (string) value is turned into a vector by the named
    /// embedding model before it is bound. No handler here embeds, so a tool with
    /// such a parameter is reported as not runnable on this host.
    pub embedded_by: Option<String>,
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
            dialect: None,
            min_value: None,
            max_value: None,
            items: None,
            value_type: None,
            auth_services: Vec::new(),
            value_from_param: None,
            embedded_by: None,
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
        self.allowed_values = entries.into_iter().map(ValueMatcher::allowed).collect();
        self
    }

    /// Sets the excluded values.
    pub fn excluded(mut self, entries: impl IntoIterator<Item = Value>) -> Parameter {
        self.excluded_values = entries.into_iter().map(ValueMatcher::excluded).collect();
        self
    }

    /// Sets the escape.
    pub fn escape(mut self, escape: Escape) -> Parameter {
        self.escape = Some(escape);
        self
    }

    /// Sets the SQL dialect the escape quotes for.
    pub fn dialect(mut self, dialect: Dialect) -> Parameter {
        self.dialect = Some(dialect);
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
