//! Statement and path templates: `{{.name}}` and `{{array .name}}` actions filled
//! with validated (and escaped) values.

use serde_json::Value;

use super::{ValidatedArgs, describe, short};
use crate::error::{Error, Result};

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
