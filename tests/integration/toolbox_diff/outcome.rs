//! What one side answered to a case, and when two answers agree: equal JSON results
//! (numbers by value: Go writes the REAL `0.0` as `0`), or both refused.

use std::process::Output;

use serde_json::Value;

/// A side's answer.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The result's JSON (filestore's `data`, Toolbox's printed result).
    Result(Value),
    /// A refusal (non-zero exit), with what was printed.
    Refused(String),
}

impl Outcome {
    /// `toolbox invoke`'s output: the result on stdout when it exits 0.
    pub fn of_toolbox(out: &Output) -> Outcome {
        if !out.status.success() {
            return Outcome::Refused(super::text(out));
        }
        match serde_json::from_slice(&out.stdout) {
            Ok(v) => Outcome::Result(v),
            Err(e) => Outcome::Refused(format!("output is not JSON ({e}): {}", super::text(out))),
        }
    }

    /// `filestore call`'s output: the envelope's `data` when it exits 0.
    pub fn of_filestore(out: &Output) -> Outcome {
        if !out.status.success() {
            return Outcome::Refused(super::text(out));
        }
        match serde_json::from_slice::<Value>(&out.stdout) {
            Ok(Value::Object(mut envelope)) if envelope.get("success") == Some(&true.into()) => {
                Outcome::Result(envelope.remove("data").unwrap_or(Value::Null))
            }
            _ => Outcome::Refused(format!("not a success envelope: {}", super::text(out))),
        }
    }

    /// Whether `self` and `other` agree.
    pub fn agrees(&self, other: &Outcome) -> bool {
        match (self, other) {
            (Outcome::Result(a), Outcome::Result(b)) => same(a, b),
            (Outcome::Refused(_), Outcome::Refused(_)) => true,
            _ => false,
        }
    }

    /// One line for a report.
    pub fn show(&self) -> String {
        let s = match self {
            Outcome::Result(v) => format!("result {v}"),
            Outcome::Refused(why) => format!("refused: {}", why.trim()),
        };
        if s.len() > 600 { format!("{}...", &s[..s.floor_char_boundary(600)]) } else { s }
    }
}

/// JSON equality with numbers compared by value (integers exactly).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(i), Some(j), _, _) => i == j,
                (_, _, Some(i), Some(j)) => i == j,
                _ => x.as_f64() == y.as_f64() && (x.is_f64() || y.is_f64()),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}
