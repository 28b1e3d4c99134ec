//! Sources: a configuration's `source` documents as the host holds them, with
//! `${VAR}` references resolved from its environment (secrets never enter the
//! component), and the redaction that keeps resolved values out of every error.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::ToolError;

/// A configured source with its `${VAR}` references resolved. Held by the host only.
#[derive(Clone, PartialEq)]
pub struct Source {
    /// Source name.
    pub name: String,
    /// Source `type` (`sqlite`, `http`...).
    pub source_type: String,
    /// Every other field, resolved.
    pub fields: Map<String, Value>,
    /// The values substituted from the environment, with the variable each came from:
    /// what [`Source::redact`] removes from messages.
    pub secrets: Vec<Secret>,
}

/// One value substituted from the environment into a source.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    /// The variable's name (`BOT_TOKEN`).
    pub variable: String,
    /// Its value.
    pub value: String,
}

/// Shortest substituted value that [`Source::redact`] removes. Shorter values (a
/// one- or two-character flag) would turn every occurrence of common text in a
/// message into a placeholder, and are no secret worth the name. The same bound
/// applies to each line of a value of several lines.
pub const MIN_REDACTED_LEN: usize = 3;

impl Source {
    /// `message` with every value this source took from the environment replaced by
    /// the configured reference (`${BOT_TOKEN}`), in each form [`redact`] knows.
    /// Every handler error passes through this before it leaves the registry, so no
    /// error path can leak a resolved secret, including ones added later.
    pub fn redact(&self, message: &str) -> String {
        redact(&self.secrets, message)
    }
}

/// `message` with each of `secrets` replaced by its reference (`${VAR}`), wherever
/// it appears as written, percent-encoded (as in a URL an HTTP client prints),
/// escaped inside a JSON or Rust-quoted string (`\"`, `\\`, `\n`), or, for a
/// value of several lines (a PEM key), line by line. Values shorter than
/// [`MIN_REDACTED_LEN`] are left alone.
///
/// The one redaction of host messages: sources' errors, and everything an upstream
/// MCP server's text reaches the agent through (see `providers::mcp`). Redact a
/// text before cutting it: a cut can leave a prefix of a secret that no longer
/// matches.
pub fn redact(secrets: &[Secret], message: &str) -> String {
    let mut forms: Vec<(String, String)> = Vec::new();
    for s in secrets {
        let placeholder = format!("${{{}}}", s.variable);
        for form in secret_forms(&s.value) {
            if !forms.iter().any(|(f, _)| *f == form) {
                forms.push((form, placeholder.clone()));
            }
        }
    }
    // Longest first, so a value containing another is replaced whole.
    forms.sort_by_key(|(f, _)| std::cmp::Reverse(f.len()));
    let mut out = message.to_string();
    for (form, placeholder) in forms {
        if out.contains(&form) {
            out = out.replace(&form, &placeholder);
        }
    }
    out
}

/// The forms `value` may take in a message (see [`redact`]), each at least
/// [`MIN_REDACTED_LEN`] characters.
fn secret_forms(value: &str) -> Vec<String> {
    let quoted = |q: String| q[1..q.len() - 1].to_string();
    let mut forms = vec![
        value.to_string(),
        percent_encode_all(value),
        quoted(serde_json::Value::from(value).to_string()),
        quoted(format!("{value:?}")),
    ];
    if value.contains('\n') {
        forms.extend(value.lines().map(|l| l.trim().to_string()));
    }
    forms.retain(|f| f.chars().count() >= MIN_REDACTED_LEN);
    forms
}

/// [`redact`] for `text` that is the start of a longer text, cut by the caller (a
/// line kept up to a bound): any end of it that begins a form of a secret (the cut
/// split the secret) is removed too. What remains may lose a few innocent
/// characters at its end; it never holds a piece of a secret.
pub fn redact_prefix(secrets: &[Secret], text: &str) -> String {
    let mut out = redact(secrets, text);
    let split = secrets
        .iter()
        .flat_map(|s| secret_forms(&s.value))
        .filter_map(|f| {
            (1..f.len()).rev().filter(|&k| f.is_char_boundary(k)).find(|&k| out.ends_with(&f[..k]))
        })
        .max();
    if let Some(k) = split {
        out.truncate(out.len() - k);
    }
    out
}

/// Every byte outside `A-Z a-z 0-9 - . _ ~` percent-encoded (the form a URL shows).
fn percent_encode_all(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC)
        .to_string()
        .replace("%2D", "-")
        .replace("%2E", ".")
        .replace("%5F", "_")
        .replace("%7E", "~")
}

impl std::fmt::Debug for Secret {
    // The value is the point of this type: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secret(${{{}}})", self.variable)
    }
}

impl std::fmt::Debug for Source {
    // Field values may be secrets: never print them.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("name", &self.name)
            .field("source_type", &self.source_type)
            .field("fields", &self.fields.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// The sources of one configuration, by name, and the values of the variables its
/// tools' handler fields reference (see [`super::env`]).
#[derive(Clone, Debug, Default)]
pub struct SourceSet {
    sources: BTreeMap<String, Source>,
    tool_env: super::env::ToolEnv,
}

impl SourceSet {
    /// The source called `name`.
    pub fn get(&self, name: &str) -> Option<&Source> {
        self.sources.get(name)
    }
    /// Adds or replaces a source.
    pub fn insert(&mut self, source: Source) {
        self.sources.insert(source.name.clone(), source);
    }
    /// The resolved references of the tools' handler fields.
    pub fn tool_env(&self) -> &super::env::ToolEnv {
        &self.tool_env
    }
    /// Sets the resolved references of the tools' handler fields.
    pub fn set_tool_env(&mut self, env: super::env::ToolEnv) {
        self.tool_env = env;
    }
    /// Source names.
    pub fn names(&self) -> Vec<&str> {
        self.sources.keys().map(String::as_str).collect()
    }
}

/// A source as the component returned it: fields unresolved.
#[derive(Clone, Debug)]
pub struct UnresolvedSource {
    /// Source name.
    pub name: String,
    /// Source `type`.
    pub source_type: String,
    /// Fields with `${VAR}` references intact.
    pub fields: Map<String, Value>,
}

/// Resolves `${VAR}` and `${VAR:default}` in every string of every source in `sources`
/// whose name is in `needed` (the sources of tools this host can run; others are
/// kept unresolved and never used). `env` looks variables up (the CLI passes
/// `std::env::var`). A missing variable without default is an error naming the
/// variable, the source and the field — never a value. `$$` is a literal `$`.
pub fn resolve_sources(
    sources: &[UnresolvedSource],
    needed: &dyn Fn(&str) -> bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<SourceSet, ToolError> {
    let mut set = SourceSet::default();
    let mut missing = Vec::new();
    for s in sources {
        if !needed(&s.name) {
            continue;
        }
        let mut fields = Map::new();
        let mut secrets = Vec::new();
        for (k, v) in &s.fields {
            let at = format!("{}.{k}", s.name);
            fields.insert(k.clone(), resolve_value(v, &at, env, &mut missing, &mut secrets));
        }
        set.insert(Source {
            name: s.name.clone(),
            source_type: s.source_type.clone(),
            fields,
            secrets,
        });
    }
    if missing.is_empty() { Ok(set) } else { Err(ToolError::invalid_argument(missing.join("; "))) }
}

fn resolve_value(
    v: &Value,
    at: &str,
    env: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
    secrets: &mut Vec<Secret>,
) -> Value {
    match v {
        Value::String(s) => Value::String(substitute(s, at, env, missing, secrets)),
        Value::Array(a) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| resolve_value(x, &format!("{at}[{i}]"), env, missing, secrets))
                .collect(),
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    (k.clone(), resolve_value(x, &format!("{at}.{k}"), env, missing, secrets))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Substitutes `${NAME}` / `${NAME:default}` in one string (found by the scanner the
/// component uses, [`super::env::references`]); `$$` is a literal `$`, and what is no
/// reference is kept as written.
fn substitute(
    s: &str,
    at: &str,
    env: &dyn Fn(&str) -> Option<String>,
    missing: &mut Vec<String>,
    secrets: &mut Vec<Secret>,
) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, part) in s.split("$$").enumerate() {
        if i > 0 {
            out.push('$');
        }
        let mut last = 0;
        for (range, r) in super::env::references(part) {
            out.push_str(&part[last..range.start]);
            match (env(&r.name), r.default) {
                (Some(v), _) => {
                    out.push_str(&v);
                    if !secrets.iter().any(|s| s.value == v) {
                        secrets.push(Secret { variable: r.name, value: v });
                    }
                }
                (None, Some(d)) => out.push_str(&d),
                (None, None) => missing.push(format!(
                    "source field '{at}' references environment variable '{}', which is not set",
                    r.name
                )),
            }
            last = range.end;
        }
        out.push_str(&part[last..]);
    }
    out
}
