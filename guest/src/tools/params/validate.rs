//! Per-call validation of arguments against declared parameters, in the order the
//! [module docs](super) give: `authRequired`, undeclared arguments, then each parameter
//! (claims, defaults, type, items, allowed/excluded values, bounds, escape).

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};

use super::{Escape, ParamRole, ParamType, Parameter, ValueMatcher, compare, describe, short};
use crate::error::{Error, ErrorKind, Result};
use crate::tools::placeholders::Dialect;

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

impl From<Vec<ValidatedArg>> for ValidatedArgs {
    /// Arguments already validated, in declared order.
    fn from(args: Vec<ValidatedArg>) -> ValidatedArgs {
        ValidatedArgs { args }
    }
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

/// Checks `scopesRequired` as Toolbox 1.12 does: every scope listed must be in the
/// space-separated `scope` claim of the bearer token, whose claims are those of the
/// auth services in `services` (the configuration's `generic` services with
/// `mcpEnabled: true`). Passes when `required` is empty; fails `unauthorized`,
/// naming the scopes, without such a token or when one is missing from it.
pub fn check_scopes_required(
    tool: &str,
    required: &[String],
    services: &[String],
    claims: &VerifiedClaims,
) -> Result<()> {
    if required.is_empty() {
        return Ok(());
    }
    let list = |v: &[&str]| v.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", ");
    let wanted: Vec<&str> = required.iter().map(String::as_str).collect();
    let Some(token) = services.iter().find_map(|s| claims.claims(s)) else {
        return Err(Error::new(
            ErrorKind::Unauthorized,
            format!(
                "tool '{tool}' requires the scopes {} (scopesRequired): no verified bearer token (missing claims for MCP authorization)",
                list(&wanted)
            ),
        ));
    };
    let granted: Vec<&str> =
        token.get("scope").and_then(Value::as_str).unwrap_or("").split_whitespace().collect();
    let missing: Vec<&str> = wanted.iter().copied().filter(|s| !granted.contains(s)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::new(
        ErrorKind::Unauthorized,
        format!(
            "insufficient scopes for tool '{tool}': it requires {} (scopesRequired); the token's scope claim lacks {}",
            list(&wanted),
            list(&missing)
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
    // Parameters filled from claims or from another parameter are not the model's to
    // give: an argument naming one is unknown to it, like any undeclared name.
    let hidden = |p: &Parameter| p.value_from_param.is_some();
    if let Some(unknown) =
        given.keys().find(|k| !params.iter().any(|p| p.name == **k && !hidden(p)))
    {
        let declared: Vec<&str> =
            params.iter().filter(|p| !p.is_auth() && !hidden(p)).map(|p| p.name.as_str()).collect();
        let declared = if declared.is_empty() { "none".to_string() } else { declared.join(", ") };
        return Err(Error::new(
            ErrorKind::InvalidArgument,
            format!("unknown parameter '{unknown}' (declared: {declared})"),
        ));
    }
    let mut out = Vec::with_capacity(params.len());
    for p in params {
        let raw = if let Some(from) = &p.value_from_param {
            // Toolbox takes the other parameter's argument as given (before its own
            // default applies), then validates it as this parameter.
            given.get(from).filter(|v| !v.is_null()).cloned().or_else(|| p.default.clone())
        } else if p.is_auth() {
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

/// Validates one value (given or default) against `param`: type, items or map values,
/// allowed, excluded, minimum, maximum; then applies the escape. Returns the final value.
pub fn validate_value(param: &Parameter, value: &Value) -> Result<Value> {
    let checked = check(param, value, &param.name, "")?;
    apply_escape(param, checked)
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

/// Quotes the string value, or each string item of an array, with the escape of `p`
/// (an array's own escape applies to items without one) in `p`'s dialect. A value
/// no quoting of that dialect can hold is `invalid-argument`, naming the parameter,
/// the item, and why.
fn apply_escape(p: &Parameter, value: Value) -> Result<Value> {
    match value {
        Value::String(s) => match p.escape {
            Some(e) => quote(p, e, p.dialect, &s, "").map(Value::String),
            None => Ok(Value::String(s)),
        },
        Value::Array(items) => {
            let Some(ip) = &p.items else { return Ok(Value::Array(items)) };
            let (escape, dialect) = match ip.escape {
                Some(e) => (Some(e), ip.dialect),
                None => (p.escape, p.dialect),
            };
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                out.push(match (escape, item) {
                    (Some(e), Value::String(s)) => {
                        Value::String(quote(p, e, dialect, &s, &format!("item {i}: "))?)
                    }
                    (_, item) => apply_escape(ip, item)?,
                });
            }
            Ok(Value::Array(out))
        }
        other => Ok(other),
    }
}

fn quote(p: &Parameter, e: Escape, dialect: Option<Dialect>, s: &str, at: &str) -> Result<String> {
    e.quote(dialect, s).map_err(|why| {
        let value = short(&Value::String(s.to_string()).to_string());
        Error::invalid_argument(&p.name, format!("{at}value {value} {}", why.reason(e, dialect)))
    })
}

fn entry_text(m: &ValueMatcher) -> String {
    match m {
        ValueMatcher::Pattern { source, .. } | ValueMatcher::Text { source, .. } => source.clone(),
        ValueMatcher::Literal(v) => v.to_string(),
    }
}
