//! Statement and path templates: `{{.name}}` and `{{array .name}}` actions filled
//! with validated (and escaped) values, and any other Go `text/template` action
//! (`{{if}}`, `{{range}}`, `{{with}}`, pipelines, Go's built-in functions and
//! Toolbox's `array`), as MCP Toolbox renders statements.
//!
//! The two common actions are substituted directly (fast, and checked against each
//! parameter's type when the configuration loads). A template with any other action
//! is rendered by `gotmpl`, a Rust port of Go's `text/template` (no threads, no
//! `unsafe`, no panics: it runs inside the component), rather than a partial one of
//! our own; its `{{range}}` iterations are capped ([`MAX_RANGE_ITERATIONS`]). It sees only the parameters it names (so
//! `{{range $k, $v := .}}` cannot reach bound values), each already validated and
//! escaped. `define`, `template` and `block` are refused: they allow recursion, and
//! no Toolbox statement needs them.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{ValidatedArgs, describe, short};
use crate::error::{Error, ErrorKind, Result};

/// A statement or path with template actions: `{{.name}}` inserts a value,
/// `{{array .name}}` inserts the items of an array joined by `, `; other Go template
/// actions are rendered by a Go template engine (see the module docs).
///
/// Values are inserted as text, after escaping: strings as they are (so an escape's
/// delimiters are what quote them), numbers and booleans as JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    parts: Vec<TemplatePart>,
    /// The source, when it needs the Go engine.
    go: Option<String>,
    /// Parameters a Go `range` iterates: absent, they range over nothing, as Go
    /// ranges over a nil value (the engine would refuse `Nil`).
    ranged: Vec<String>,
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
    /// A parameter named inside another Go template action (`{{if .name}}`): it must
    /// be declared; its use is checked when the template runs.
    Field(String),
}

/// Why a template cannot be parsed, and where in its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError {
    /// What is wrong.
    pub message: String,
    /// Byte offset in the text of the offending action or line.
    pub offset: usize,
}

/// Most `{{range}}` iterations one rendering may run (across nested ranges): bounds
/// what a template over an agent's array can cost.
pub const MAX_RANGE_ITERATIONS: u64 = 100_000;

/// Keywords whose actions are refused (see the module docs).
const REFUSED_ACTIONS: [&str; 3] = ["define", "template", "block"];

impl Template {
    /// Parses `text`. The error says which action is malformed.
    pub(crate) fn parse(text: &str) -> std::result::Result<Template, String> {
        Template::parse_located(text).map_err(|e| e.message)
    }

    /// Like [`Template::parse`], with where the error is.
    pub fn parse_located(text: &str) -> std::result::Result<Template, TemplateError> {
        match parse_simple(text) {
            Ok(parts) => Ok(Template { parts, go: None, ranged: Vec::new() }),
            Err(e) if e.unsupported => parse_go(text),
            Err(e) => Err(TemplateError { message: e.message, offset: e.offset }),
        }
    }

    /// The pieces, in order (for a Go template: the parameters it names).
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
        if let Some(source) = &self.go {
            return self.render_go(source, args, &encode);
        }
        let mut out = String::new();
        for part in &self.parts {
            match part {
                TemplatePart::Text(t) => out.push_str(t),
                TemplatePart::Field(_) => {}
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

    fn render_go(
        &self,
        source: &str,
        args: &ValidatedArgs,
        encode: &impl Fn(&str) -> String,
    ) -> Result<String> {
        let mut dot = BTreeMap::new();
        for part in &self.parts {
            if let TemplatePart::Field(name)
            | TemplatePart::Value(name)
            | TemplatePart::Array(name) = part
            {
                let v = match args.get(name) {
                    Some(v) if !v.is_null() => to_go(v, encode),
                    _ if self.ranged.contains(name) => gotmpl::Value::from(Vec::new()),
                    _ => gotmpl::Value::Nil,
                };
                dot.insert(name.clone(), v);
            }
        }
        let t =
            go_template(source).map_err(|e| Error::new(ErrorKind::InvalidArgument, e.message))?;
        t.execute_to_string(&gotmpl::Value::from(dot)).map_err(|e| {
            Error::new(ErrorKind::InvalidArgument, format!("the template failed: {e}"))
        })
    }
}

struct SimpleError {
    message: String,
    offset: usize,
    /// An action other than the two simple ones (may still be a Go template).
    unsupported: bool,
}

fn parse_simple(text: &str) -> std::result::Result<Vec<TemplatePart>, SimpleError> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let offset = text.len() - rest.len() + start;
        if start > 0 {
            parts.push(TemplatePart::Text(rest[..start].to_string()));
        }
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or_else(|| SimpleError {
            message: format!("unclosed template action '{}'", short(&rest[start..])),
            offset,
            unsupported: false,
        })?;
        let inner = after[..end].trim();
        let words: Vec<&str> = inner.split_whitespace().collect();
        let field = |w: &str| -> Option<String> {
            let name = w.strip_prefix('.')?;
            (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
                .then(|| name.to_string())
        };
        let part = match words.as_slice() {
            [w] => field(w).map(TemplatePart::Value),
            ["array", w] => field(w).map(TemplatePart::Array),
            _ => None,
        };
        let part = part.ok_or_else(|| SimpleError {
            message: format!("unsupported template action '{{{{{inner}}}}}'"),
            offset,
            unsupported: true,
        })?;
        parts.push(part);
        rest = &after[end + 2..];
    }
    if !rest.is_empty() {
        parts.push(TemplatePart::Text(rest.to_string()));
    }
    Ok(parts)
}

/// Parses a Go template, refusing recursion-capable actions, and lists the
/// parameters its actions name. A syntax error points at the action to blame.
fn parse_go(text: &str) -> std::result::Result<Template, TemplateError> {
    let mut fields: Vec<TemplatePart> = Vec::new();
    let mut ranged = Vec::new();
    for (offset, inner) in actions(text) {
        let first = inner.split_whitespace().next().unwrap_or("");
        if REFUSED_ACTIONS.contains(&first) {
            return Err(TemplateError {
                message: format!(
                    "template action '{{{{{first} ...}}}}' is not supported (define, template and block allow recursion)"
                ),
                offset,
            });
        }
        // The two simple actions keep their meaning (and their load-time type
        // checks) inside a Go template.
        let simple = parse_simple(&format!("{{{{{inner}}}}}")).ok();
        if let Some([part @ (TemplatePart::Value(_) | TemplatePart::Array(_))]) = simple.as_deref()
        {
            if !fields.contains(part) {
                fields.push(part.clone());
            }
            continue;
        }
        for name in field_names(inner) {
            if first == "range" && !ranged.contains(&name) {
                ranged.push(name.clone());
            }
            if !fields.iter().any(|f| *f == TemplatePart::Field(name.clone())) {
                fields.push(TemplatePart::Field(name));
            }
        }
    }
    balanced(text)?;
    go_template(text)?;
    Ok(Template { parts: fields, go: Some(text.to_string()), ranged })
}

/// Each action's offset and its text between the delimiters (trim markers removed).
fn actions(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let offset = text.len() - rest.len() + start;
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        out.push((offset, after[..end].trim_matches(|c: char| c == '-' || c.is_whitespace())));
        rest = &after[end + 2..];
    }
    out
}

/// Checks that block actions are closed, pointing at the unclosed opener or the
/// stray `{{end}}` (the engine would report the end of the text instead).
fn balanced(text: &str) -> std::result::Result<(), TemplateError> {
    let mut open: Vec<(usize, &str)> = Vec::new();
    for (offset, inner) in actions(text) {
        match inner.split_whitespace().next().unwrap_or("") {
            "if" | "range" | "with" => open.push((offset, inner)),
            "end" if open.pop().is_none() => {
                return Err(TemplateError {
                    message: "invalid template: {{end}} closes nothing".to_string(),
                    offset,
                });
            }
            _ => {}
        }
    }
    match open.pop() {
        Some((offset, inner)) => Err(TemplateError {
            message: format!("invalid template: '{{{{{}}}}}' has no {{{{end}}}}", short(inner)),
            offset,
        }),
        None => Ok(()),
    }
}

/// The parameters an action names: each `.name` that starts a field chain (not a
/// variable's `$v.name`, not `.a.b`'s `b`), outside string literals.
fn field_names(action: &str) -> Vec<String> {
    let b = action.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'`' | b'\'' => {
                let q = b[i];
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'.' => {
                let prev = if i == 0 { b' ' } else { b[i - 1] };
                let chained =
                    prev.is_ascii_alphanumeric() || matches!(prev, b'_' | b')' | b'$' | b'.');
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                if !chained && j > i + 1 && !b[i + 1].is_ascii_digit() {
                    out.push(action[i + 1..j].to_string());
                }
                i = j.max(i + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// A Go template for `text` with Toolbox's `array` function; a syntax error is
/// located at the engine's line and column in `text`.
fn go_template(text: &str) -> std::result::Result<gotmpl::Template, TemplateError> {
    gotmpl::Template::new("statement")
        .max_range_iters(MAX_RANGE_ITERATIONS)
        .func("array", go_array)
        .parse(text)
        .map_err(|e| {
            let (line, col, message) = match &e {
                gotmpl::TemplateError::Parse { line, col, message, .. }
                | gotmpl::TemplateError::Lex { line, col, message, .. } => {
                    (*line, *col, message.clone())
                }
                other => (1, 1, other.to_string()),
            };
            let start: usize =
                text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
            let offset = (start + col.saturating_sub(1)).min(text.len());
            TemplateError { message: format!("invalid template: {message}"), offset }
        })
}

/// Toolbox's `array`: the items of an array joined by `, `.
fn go_array(args: &[gotmpl::Value]) -> gotmpl::Result<gotmpl::Value> {
    match args {
        [gotmpl::Value::List(items)] => Ok(gotmpl::Value::from(
            items.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "),
        )),
        [other] => Err(gotmpl::TemplateError::Exec(format!(
            "array needs an array, got {}",
            other.type_name()
        ))),
        _ => Err(gotmpl::TemplateError::Exec("array takes exactly 1 argument".into())),
    }
}

/// A validated value as the Go engine sees it: strings (and array items' text)
/// through `encode`; numbers and booleans as themselves.
fn to_go(v: &Value, encode: &impl Fn(&str) -> String) -> gotmpl::Value {
    match v {
        Value::Null => gotmpl::Value::Nil,
        Value::Bool(b) => gotmpl::Value::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => gotmpl::Value::Int(i),
            (None, Some(f)) => gotmpl::Value::Float(f),
            _ => gotmpl::Value::from(encode(&n.to_string())),
        },
        Value::String(s) => gotmpl::Value::from(encode(s)),
        Value::Array(items) => {
            gotmpl::Value::from(items.iter().map(|x| to_go(x, encode)).collect::<Vec<_>>())
        }
        Value::Object(m) => gotmpl::Value::from(
            m.iter().map(|(k, x)| (k.clone(), to_go(x, encode))).collect::<BTreeMap<_, _>>(),
        ),
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
