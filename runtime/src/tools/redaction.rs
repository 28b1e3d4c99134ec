//! Where host text becomes agent text: the values configured tools took from the
//! environment (`${VAR}`, see [`super::sources`] and [`super::env`]) are replaced by
//! their references in everything a call gives back, and only then is an error
//! message cut to its bound.
//!
//! [`super::ToolRegistry::run`] is the one place this happens, for handler tools and
//! provider tools alike: every string of a successful result (object keys too, and a
//! number whose digits hold a secret) and every error message. The component stores
//! what `run` returns under `/tool_calls` and the session answers with it, so stored
//! results, envelopes and the text an agent reads all carry the redacted text; the
//! audit timeline never holds a result or a message at all.
//!
//! Order matters: a cut can leave the start of a secret that no longer matches any
//! form of it (19 of its 20 characters). So no handler cuts what it quotes; a handler
//! bounds only how much it *reads* (for memory), far beyond [`MAX_ERROR_CHARS`].
//! Text that must be cut before it reaches `run` (a provider's stderr tail, kept as
//! it is read) is redacted where it is cut, with [`redact_prefix`].

use std::borrow::Cow;

use serde_json::Value;

use super::ToolError;

/// One value substituted from the environment (into a source, a tool's handler
/// fields or a provider's connection), with the variable it came from: what is
/// redacted.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    /// The variable's name (`BOT_TOKEN`).
    pub variable: String,
    /// Its value.
    pub value: String,
}

impl std::fmt::Debug for Secret {
    // The value is the point of this type: never print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secret(${{{}}})", self.variable)
    }
}

/// Shortest substituted value that [`redact`] removes. Shorter values (a one- or
/// two-character flag) would turn every occurrence of common text in a message into
/// a placeholder, and are no secret worth the name. The same bound applies to each
/// line of a value of several lines.
pub const MIN_REDACTED_LEN: usize = 3;

/// Longest error message of a tool call, in characters, after redaction: longer
/// ones are cut (an upstream's error page, a quoted response body) and say how long
/// they were.
pub const MAX_ERROR_CHARS: usize = 4000;

/// The forms of a set of secrets, ready to replace: built once per call, applied to
/// every string of its result.
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    /// (form, placeholder), longest form first, so a value containing another is
    /// replaced whole.
    forms: Vec<(String, String)>,
}

impl Redactor {
    /// The redactor of `secrets`.
    pub fn new(secrets: &[Secret]) -> Redactor {
        let mut forms: Vec<(String, String)> = Vec::new();
        for s in secrets {
            let placeholder = format!("${{{}}}", s.variable);
            for form in secret_forms(&s.value) {
                if !forms.iter().any(|(f, _)| *f == form) {
                    forms.push((form, placeholder.clone()));
                }
            }
        }
        forms.sort_by_key(|(f, _)| std::cmp::Reverse(f.len()));
        Redactor { forms }
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// `text` with every form of every secret replaced by its reference.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for (form, placeholder) in &self.forms {
            if out.contains(form.as_str()) {
                out = Cow::Owned(out.replace(form.as_str(), placeholder));
            }
        }
        out
    }

    /// `value` with every string redacted, at any depth, object keys included. A
    /// number that is a secret (a secret may be all digits, and an upstream may echo
    /// it as a number) becomes its reference; digits merely holding one stay, data
    /// is not rewritten by a short value that happens to match (a port in a count).
    pub fn value(&self, mut value: Value) -> Value {
        if !self.is_empty() {
            self.in_place(&mut value);
        }
        value
    }

    fn in_place(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                if let Some(r) = self.changed(s) {
                    *s = r;
                }
            }
            Value::Number(n) => {
                let digits = n.to_string();
                if let Some((_, placeholder)) = self.forms.iter().find(|(f, _)| *f == digits) {
                    *v = Value::String(placeholder.clone());
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|x| self.in_place(x)),
            Value::Object(m) => {
                if m.keys().any(|k| self.changed(k).is_some()) {
                    for (k, mut x) in std::mem::take(m) {
                        self.in_place(&mut x);
                        m.insert(self.changed(&k).unwrap_or(k), x);
                    }
                } else {
                    m.values_mut().for_each(|x| self.in_place(x));
                }
            }
            _ => {}
        }
    }

    /// `text` redacted, when that changes it.
    fn changed(&self, text: &str) -> Option<String> {
        match self.text(text) {
            Cow::Owned(r) => Some(r),
            Cow::Borrowed(_) => None,
        }
    }

    /// `e` with its message redacted, then cut to [`MAX_ERROR_CHARS`].
    pub fn error(&self, e: ToolError) -> ToolError {
        e.map_message(|m| cut_message(&self.text(&m)))
    }
}

/// `message` cut to [`MAX_ERROR_CHARS`] characters, saying how long it was.
fn cut_message(message: &str) -> String {
    match message.char_indices().nth(MAX_ERROR_CHARS) {
        Some((at, _)) => {
            format!("{}… ({} characters in all)", &message[..at], message.chars().count())
        }
        None => message.to_string(),
    }
}

/// `message` with each of `secrets` replaced by its reference (`${VAR}`), wherever
/// it appears as written, percent-encoded (as in a URL an HTTP client prints),
/// escaped inside a JSON or Rust-quoted string (`\"`, `\\`, `\n`), or, for a
/// value of several lines (a PEM key), line by line. Values shorter than
/// [`MIN_REDACTED_LEN`] are left alone.
///
/// Redact a text before cutting it: a cut can leave a prefix of a secret that no
/// longer matches (see [`redact_prefix`] for text cut before it can be redacted).
pub fn redact(secrets: &[Secret], message: &str) -> String {
    Redactor::new(secrets).text(message).into_owned()
}

/// The forms `value` may take in a message (see [`redact`]), each at least
/// [`MIN_REDACTED_LEN`] characters.
fn secret_forms(value: &str) -> Vec<String> {
    let quoted = |q: String| q[1..q.len() - 1].to_string();
    let encoded = percent_encode_all(value);
    let mut forms = vec![
        value.to_string(),
        // As URLs show it, with either case of hex digits, and as a form (`+` for
        // a space): an upstream echoing a query re-encodes it its own way.
        lower_hex(&encoded),
        encoded.replace("%20", "+"),
        encoded,
        quoted(serde_json::Value::from(value).to_string()),
        quoted(format!("{value:?}")),
    ];
    forms.dedup();
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

/// `encoded` (percent-encoded) with the hex digits of its escapes in lower case.
fn lower_hex(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut escape = 0;
    for c in encoded.chars() {
        if c == '%' {
            escape = 2;
            out.push(c);
        } else if escape > 0 {
            escape -= 1;
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn secret(variable: &str, value: &str) -> Secret {
        Secret { variable: variable.into(), value: value.into() }
    }

    /// Results are redacted at any depth, keys and numbers too; errors are redacted
    /// before they are cut, so a secret that straddles the cut leaves nothing.
    #[test]
    fn results_and_errors_are_redacted_before_any_cut() {
        let r = Redactor::new(&[secret("KEY", "qk-0123456789abcdef"), secret("PIN", "918273")]);
        let spaced = Redactor::new(&[secret("PW", "Pa ss/Wörd")]);
        for echoed in ["Pa%20ss%2FW%C3%B6rd", "Pa%20ss%2fW%c3%b6rd", "Pa+ss%2FW%C3%B6rd"] {
            assert_eq!(spaced.text(&format!("q={echoed}&")), "q=${PW}&", "{echoed}");
        }
        let v = r.value(json!({
            "url": "http://h/x?key=qk-0123456789abcdef",
            "qk-0123456789abcdef": [1, {"pin": 918273, "n": 5, "count": 19182730}]
        }));
        assert_eq!(
            v,
            json!({"url": "http://h/x?key=${KEY}",
                   "${KEY}": [1, {"pin": "${PIN}", "n": 5, "count": 19182730}]})
        );
        // The secret ends one character after the cut: nothing of it is left.
        let pad = "x".repeat(MAX_ERROR_CHARS - 5);
        let e = r.error(ToolError::backend(format!("{pad}qk-0123456789abcdef and more")));
        assert!(!e.message().contains("qk-0"), "{}", e.message());
        assert!(e.message().starts_with(&format!("{pad}${{KEY")), "{}", e.message());
        assert!(e.message().ends_with(&format!("({} characters in all)", MAX_ERROR_CHARS + 10)));
        assert_eq!(r.error(ToolError::backend("short")).message(), "short");
    }
}
