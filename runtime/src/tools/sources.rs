//! Sources: a configuration's `source` documents as the host holds them, with
//! `${VAR}` references resolved from its environment (secrets never enter the
//! component). What keeps the resolved values out of what agents see is
//! [`super::redaction`].

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::ToolError;
use super::redaction::{Secret, redact};

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
    /// what [`super::redaction`] removes from what agents see.
    pub secrets: Vec<Secret>,
}

/// The fields of a source that say where a backend is and who the source is on it.
/// The backend reports these values itself in ordinary results (a catalog's owner
/// and schema columns, `current_user`, `PRAGMA database_list`), so results keep
/// them: hiding them there protects nothing. Errors still redact them.
pub const IDENTITY_FIELDS: [&str; 4] = ["host", "port", "user", "database"];

impl Source {
    /// `message` with every value this source took from the environment replaced by
    /// the configured reference (`${BOT_TOKEN}`), in each form [`redact`] knows.
    pub fn redact(&self, message: &str) -> String {
        redact(&self.secrets, message)
    }

    /// The values redacted from results: every one this source took from the
    /// environment but those that went only into its [`IDENTITY_FIELDS`].
    pub fn result_secrets(&self) -> Vec<Secret> {
        fn holds(v: &Value, value: &str) -> bool {
            match v {
                Value::String(s) => s.contains(value),
                Value::Array(a) => a.iter().any(|x| holds(x, value)),
                Value::Object(m) => m.values().any(|x| holds(x, value)),
                _ => false,
            }
        }
        self.secrets
            .iter()
            .filter(|s| {
                self.fields
                    .iter()
                    .any(|(k, v)| !IDENTITY_FIELDS.contains(&k.as_str()) && holds(v, &s.value))
            })
            .cloned()
            .collect()
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
    resolve_sources_located(sources, &[], needed, env)
}

/// [`resolve_sources`], a missing variable also located (file, document, line and
/// column of the field that references it) from `located`, the same sources as
/// the configuration files parsed natively (the component's report carries no
/// locations of sources); a source not among them is named without one.
pub fn resolve_sources_located(
    sources: &[UnresolvedSource],
    located: &[filestore_guest::tools::config::SourceConfig],
    needed: &dyn Fn(&str) -> bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<SourceSet, ToolError> {
    let mut set = SourceSet::default();
    let mut missing = Vec::new();
    for s in sources {
        if !needed(&s.name) {
            continue;
        }
        let native = located.iter().find(|n| n.name == s.name);
        let mut fields = Map::new();
        let mut secrets = Vec::new();
        for (k, v) in &s.fields {
            let at = format!("{}.{k}", s.name);
            let before = missing.len();
            fields.insert(k.clone(), resolve_value(v, &at, env, &mut missing, &mut secrets));
            if let Some(native) = native {
                let loc = native.field_location(k);
                for m in &mut missing[before..] {
                    *m = format!("{loc}: {m}");
                }
            }
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
                    "source field '{at}' references environment variable '{0}', which is not set (and has no ${{{0}:default}})",
                    r.name
                )),
            }
            last = range.end;
        }
        out.push_str(&part[last..]);
    }
    out
}
