//! `${VAR}` references in the fields of configured tools that only handlers consume
//! (`headers`, `path`, `requestBody`, `statement`), resolved by the host so their
//! values never enter the component, and every reference a configuration makes
//! checked up front ([`missing_variables`]) so `filestore check` and
//! `serve --config` fail at start instead of at the first call.
//!
//! The syntax is MCP Toolbox's: `${NAME}` or `${NAME:default}`, `NAME` being word
//! characters (`[A-Za-z0-9_]+`), scanned by the component's own parser
//! ([`references`]). Toolbox substitutes an unset variable without a
//! default by the empty string; filestore refuses the configuration instead, naming
//! the variable and where it is used.
//!
//! Security: the values resolved here are substituted into text the component
//! produced, which may hold agents' argument values (a statement's template
//! parameters). An argument holding `${API_KEY}` must not be expanded, or an agent
//! could make the host send a secret wherever the tool sends its text. So:
//! - `headers` and `requestBody` are substituted in the configured text itself
//!   (the tool's document), before any argument is inserted (the http handler
//!   renders `requestBody` after);
//! - `path` comes back with argument values percent-encoded (`$` and `{` become
//!   `%24` and `%7B`), so every `${` left in it was configured;
//! - `statement`: when the configured statement references variables, a call whose
//!   arguments contain `${` anywhere is refused (no escape can tell them apart).

use std::collections::BTreeMap;

use serde_json::Value;

use filestore_guest::tools::config::ToolConfig;

use super::ToolError;
use super::redaction::Secret;

/// The handler-only fields of a tool document where references are resolved.
pub const HANDLER_FIELDS: [&str; 4] = ["headers", "path", "requestBody", "statement"];

/// One `${NAME}` / `${NAME:default}` reference, and the scanner that finds them:
/// the component's own (one grammar, Toolbox's, on both sides of the sandbox).
pub use filestore_guest::tools::config::variables::{Reference, parse as references};

/// `text` with every reference replaced by its value from `values` (variable →
/// value), or by its default. References to variables not in `values` without a
/// default stay as written (they were reported when the configuration loaded).
pub fn substitute(text: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (range, r) in references(text) {
        out.push_str(&text[last..range.start]);
        match (values.get(&r.name), &r.default) {
            (Some(v), _) => out.push_str(v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => out.push_str(&text[range.clone()]),
        }
        last = range.end;
    }
    out.push_str(&text[last..]);
    out
}

/// Every string under `field` of a tool document, with its field path.
fn strings<'a>(field: &str, v: &'a Value, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::String(s) => out.push((field.to_string(), s)),
        Value::Object(m) => {
            for (k, x) in m {
                strings(&format!("{field}.{k}"), x, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                strings(&format!("{field}[{i}]"), x, out);
            }
        }
        _ => {}
    }
}

/// The references of a tool's handler fields, with the field each is in.
pub fn tool_references(tool: &ToolConfig) -> Vec<(String, Reference)> {
    let mut texts = Vec::new();
    for f in HANDLER_FIELDS {
        if let Some(v) = tool.document.get(f) {
            strings(f, v, &mut texts);
        }
    }
    texts
        .into_iter()
        .flat_map(|(field, text)| {
            references(text).into_iter().map(move |(_, r)| (field.clone(), r))
        })
        .collect()
}

/// The values of the variables each tool's handler fields reference, by tool name:
/// what the registry substitutes when the tool runs (and redacts from its errors).
#[derive(Clone, Debug, Default)]
pub struct ToolEnv {
    tools: BTreeMap<String, BTreeMap<String, String>>,
}

impl ToolEnv {
    /// Resolves the references of every tool in `tools` through `env`; a variable
    /// that is unset and has no default is an error naming it and every place it is
    /// used (see [`missing_variables`]).
    pub fn resolve(
        tools: &[ToolConfig],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<ToolEnv, ToolError> {
        let missing = missing_variables(tools, env);
        if !missing.is_empty() {
            return Err(ToolError::invalid_argument(missing.join("; ")));
        }
        let mut out = ToolEnv::default();
        for t in tools {
            let mut values = BTreeMap::new();
            for (_, r) in tool_references(t) {
                if let Some(v) = env(&r.name) {
                    values.insert(r.name, v);
                }
            }
            if !values.is_empty() {
                out.tools.insert(t.name.clone(), values);
            }
        }
        Ok(out)
    }

    /// The resolved values of `tool`'s references, as secrets to redact.
    pub fn secrets(&self, tool: &str) -> Vec<Secret> {
        self.tools
            .get(tool)
            .into_iter()
            .flatten()
            .map(|(k, v)| Secret { variable: k.clone(), value: v.clone() })
            .collect()
    }

    /// Substitutes `tool`'s references in a request's handler fields (see the
    /// module's security notes for why each field is safe), or refuses a call whose
    /// arguments could smuggle a reference into a statement that has them.
    pub fn apply(&self, request: &mut super::ToolRequest) -> Result<(), ToolError> {
        let empty = BTreeMap::new();
        let values = self.tools.get(&request.tool_name).unwrap_or(&empty);
        let configured = |f: &str| {
            request.config.get(f).and_then(Value::as_str).is_some_and(|s| !references(s).is_empty())
        };
        if configured("statement") && request.statement.is_some() {
            let arguments = Value::Object(request.arguments.clone());
            let mut texts = Vec::new();
            strings("arguments", &arguments, &mut texts);
            if let Some((field, _)) = texts.iter().find(|(_, s)| s.contains("${")) {
                return Err(ToolError::invalid_argument(format!(
                    "tool '{}': argument {} contains '${{', which this tool's statement \
                     cannot take (its configured statement references environment variables)",
                    request.tool_name,
                    field.trim_start_matches("arguments.")
                )));
            }
            request.statement = request.statement.as_deref().map(|s| substitute(s, values));
        }
        request.path = request.path.as_deref().map(|p| substitute(p, values));
        for f in ["headers", "requestBody"] {
            if let Some(v) = request.config.get_mut(f) {
                substitute_all(v, values);
            }
        }
        if let Some(Value::String(p)) = request.config.get_mut("path") {
            *p = substitute(p, values);
        }
        Ok(())
    }
}

fn substitute_all(v: &mut Value, values: &BTreeMap<String, String>) {
    match v {
        Value::String(s) => *s = substitute(s, values),
        Value::Object(m) => m.values_mut().for_each(|x| substitute_all(x, values)),
        Value::Array(a) => a.iter_mut().for_each(|x| substitute_all(x, values)),
        _ => {}
    }
}

/// Every reference in `tools`' handler fields to a variable that `env` does not set
/// and that has no default, as one message per variable naming it and each place it
/// is used (file, document, line of the tool, and the field).
pub fn missing_variables(
    tools: &[ToolConfig],
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut uses: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in tools {
        for (field, r) in tool_references(t) {
            if r.default.is_none() && env(&r.name).is_none() {
                let place = format!("tool '{}' field '{field}' ({})", t.name, t.location);
                let list = uses.entry(r.name).or_default();
                if !list.contains(&place) {
                    list.push(place);
                }
            }
        }
    }
    uses.into_iter()
        .map(|(name, places)| {
            format!(
                "environment variable '{name}' is not set (and has no ${{{name}:default}}); used by {}",
                places.join(", ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_follow_toolbox_syntax() {
        let refs: Vec<Reference> =
            references("a ${X} b ${Y_2:cat} ${} ${bad-name} ${Z:} $${W} ${open")
                .into_iter()
                .map(|(_, r)| r)
                .collect();
        let names: Vec<(&str, Option<&str>)> =
            refs.iter().map(|r| (r.name.as_str(), r.default.as_deref())).collect();
        assert_eq!(names, [("X", None), ("Y_2", Some("cat")), ("Z", Some("")), ("W", None)]);
        let values = BTreeMap::from([("X".to_string(), "1".to_string())]);
        assert_eq!(substitute("/p?x=${X}&y=${Y:cat}&z=${Q}", &values), "/p?x=1&y=cat&z=${Q}");
    }
}
