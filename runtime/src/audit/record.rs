//! One audit record: what it holds, how it is named, and the digest of arguments.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The layout version of [`AuditRecord`] this build writes.
pub const FORMAT: u32 = 1;

/// Most paths one record lists (a shell `rm -r` may touch many); the rest are
/// counted in [`AuditRecord::paths_omitted`].
pub const MAX_PATHS: usize = 256;

/// Largest record read back, bytes (a record is small: paths and digests).
pub const MAX_RECORD_BYTES: u64 = 256 * 1024;

/// How a mutating call ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// It ran and succeeded.
    Ok,
    /// It was refused or failed; [`AuditRecord::error`] says how.
    Error,
}

impl Status {
    /// The status as the record's file name and JSON say it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
        }
    }
}

/// One mutating call, as the audit timeline keeps it. Never the arguments
/// themselves (they may hold secrets or whole files): their digest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// The layout version ([`FORMAT`]).
    pub format: u32,
    /// The record's ULID: unique across replicas, sorting by time.
    pub id: String,
    /// When the call ended, Unix milliseconds.
    pub time_ms: u64,
    /// The same time as RFC 3339 (UTC), for people and `grep`.
    pub time: String,
    /// The verified principal (a token's subject) when the server authenticates its
    /// callers; `None` otherwise.
    pub identity: Option<String>,
    /// The tool called (`filestore_write`, `filestore_execute`, a configured tool).
    pub tool: String,
    /// Virtual paths the call named or changed, sorted, each once.
    pub paths: Vec<String>,
    /// Paths beyond [`MAX_PATHS`], left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub paths_omitted: usize,
    /// SHA-256 (hex) of the arguments as canonical JSON ([`args_digest`]).
    pub args_sha256: String,
    /// `ok` or `error`.
    pub status: Status,
    /// The error's kind (`not-found`, `read-only`, `limit-exceeded`...) when
    /// `status` is `error`. Never its message, which may quote an argument.
    pub error: Option<String>,
    /// The tool call's id, when the call had one (its result under `/tool_calls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl AuditRecord {
    /// The record's path in the audit volume: `/<YYYY-MM-DD>/<id>.<tool>.<status>.json`
    /// (UTC day), so a glob filters by day, tool or status without reading a file
    /// (`/audit/**/*.filestore_write.*`, `/audit/**/*.error.json`).
    pub fn path(&self) -> String {
        let day = &self.time[..10.min(self.time.len())];
        format!("/{day}/{}.{}.{}.json", self.id, file_safe(&self.tool), self.status.as_str())
    }

    /// The record as stored: one line of JSON, so that `grep` shows a whole record
    /// per match and `cat /audit/*/*` is JSON Lines.
    pub fn to_line(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).expect("an audit record serialises");
        bytes.push(b'\n');
        bytes
    }
}

/// A tool name as it appears in a file name: letters, digits, `_` and `-` kept,
/// anything else `_` (tool names are that already; a dot would split the name).
fn file_safe(tool: &str) -> String {
    tool.chars()
        .take(64)
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .collect()
}

/// SHA-256 (hex) of `args` as canonical JSON: object keys sorted at every level,
/// no whitespace. The same arguments give the same digest whatever order a client
/// sent them in, so a host can match a record to a call it knows. A digest of
/// short or guessable arguments can be confirmed by guessing them: the records are
/// for the conversation's own agent and its operators, who had the arguments.
pub fn args_digest(args: &Value) -> String {
    let mut canonical = Vec::new();
    write_canonical(args, &mut canonical);
    let digest = Sha256::digest(&canonical);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn write_canonical(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend(serde_json::to_vec(k).unwrap_or_default());
                out.push(b':');
                write_canonical(&map[k], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => out.extend(serde_json::to_vec(scalar).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_digest_ignores_key_order_and_hides_the_arguments() {
        let a = json!({"path": "/scratch/a", "content": "hunter2", "n": {"y": 1, "x": [1, 2]}});
        let b = json!({"n": {"x": [1, 2], "y": 1}, "content": "hunter2", "path": "/scratch/a"});
        assert_eq!(args_digest(&a), args_digest(&b));
        assert_ne!(args_digest(&a), args_digest(&json!({"path": "/scratch/a"})));
        assert_eq!(args_digest(&a).len(), 64);
        assert!(!args_digest(&a).contains("hunter2"));
    }

    #[test]
    fn records_are_named_by_day_id_tool_and_status() {
        let r = AuditRecord {
            format: FORMAT,
            id: "01JABCDEFGHJKMNPQRSTVWXYZ0".into(),
            time_ms: 0,
            time: "2026-11-28T07:45:35.123Z".into(),
            identity: None,
            tool: "my.tool/x".into(),
            paths: vec![],
            paths_omitted: 0,
            args_sha256: String::new(),
            status: Status::Error,
            error: Some("not-found".into()),
            call_id: None,
        };
        assert_eq!(r.path(), "/2026-11-28/01JABCDEFGHJKMNPQRSTVWXYZ0.my_tool_x.error.json");
        let line = r.to_line();
        assert_eq!(line.iter().filter(|b| **b == b'\n').count(), 1);
        assert_eq!(serde_json::from_slice::<AuditRecord>(&line).unwrap(), r);
    }
}
