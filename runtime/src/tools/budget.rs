//! The bound on one tool call's result: the one limit every handler reads rows or
//! a body against, counted as they arrive, so the host never holds much more than
//! the bound whatever a statement or an upstream produces.
//!
//! The limit is the registry's ([`super::ToolRegistry::set_max_result_bytes`],
//! `--tool-result-mib`), handed to each call as [`super::ToolRequest::max_result_bytes`];
//! a handler counts with a [`ResultBudget`] and stops at the first row or byte past
//! it with `limit-exceeded` naming the limit ([`limit_exceeded`]). What is counted is
//! the result's JSON text (values, column names, punctuation), which is what the
//! component receives. Rows are bounded too ([`MAX_RESULT_ROWS`]): a row costs the
//! host far more than its text, so a million tiny rows must not pass either.
//!
//! The default ([`DEFAULT_MAX_RESULT_BYTES`]) stays well under the component's own
//! cap: a session's linear memory ([`crate::engine::DEFAULT_MEMORY_BYTES`]), which
//! must hold the result's text, its parse and the copy it stores under
//! `/tool_calls` at once (engine.rs asserts that the default leaves that room).

use serde_json::Value;

use super::{ToolError, ToolRequest};

/// Default limit of one tool call's result, bytes of JSON text.
pub const DEFAULT_MAX_RESULT_BYTES: u64 = 16 * 1024 * 1024;

/// Most rows of one tool call's result.
pub const MAX_RESULT_ROWS: u64 = 100_000;

/// The command-line flag that sets the limit (named in its errors).
pub const RESULT_LIMIT_FLAG: &str = "--tool-result-mib";

/// The error of a result past `limit` bytes, for tool `tool`.
pub fn limit_exceeded(tool: &str, limit: u64) -> ToolError {
    ToolError::limit_exceeded(format!(
        "tool '{tool}': the result is larger than the tool result limit of {} ({RESULT_LIMIT_FLAG}); \
         ask for less (fewer rows or columns, a filter, a page)",
        shown(limit)
    ))
}

/// `bytes` as people read it: `16 MiB (16777216 bytes)`, or `1000 bytes`.
fn shown(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB ({bytes} bytes)", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// What one result has used of its limit so far.
#[derive(Debug, Clone)]
pub struct ResultBudget {
    tool: String,
    limit: u64,
    used: u64,
    rows: u64,
}

impl ResultBudget {
    /// A budget of `limit` bytes for tool `tool`'s result.
    pub fn new(tool: &str, limit: u64) -> ResultBudget {
        ResultBudget { tool: tool.to_string(), limit, used: 0, rows: 0 }
    }

    /// The budget of `req`'s result.
    pub fn of(req: &ToolRequest) -> ResultBudget {
        ResultBudget::new(&req.tool_name, req.max_result_bytes)
    }

    /// The limit, bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes left before the limit.
    pub fn left(&self) -> u64 {
        self.limit.saturating_sub(self.used)
    }

    /// Counts `bytes` more; past the limit, the error naming it.
    pub fn charge(&mut self, bytes: u64) -> Result<(), ToolError> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit { Err(self.exceeded()) } else { Ok(()) }
    }

    /// Counts the JSON text of `v`.
    pub fn charge_json(&mut self, v: &Value) -> Result<(), ToolError> {
        self.charge(json_len(v))
    }

    /// Counts one row more (and the comma before it); past [`MAX_RESULT_ROWS`], the
    /// error naming that bound.
    pub fn row(&mut self) -> Result<(), ToolError> {
        self.rows += 1;
        if self.rows > MAX_RESULT_ROWS {
            return Err(ToolError::limit_exceeded(format!(
                "tool '{}': the result has more than {MAX_RESULT_ROWS} rows, the tool result limit of rows; add a LIMIT",
                self.tool
            )));
        }
        self.charge(1)
    }

    /// Starts over (a script's next statement replaces the result so far).
    pub fn reset(&mut self) {
        self.used = 0;
        self.rows = 0;
    }

    /// The error of this result past its limit.
    pub fn exceeded(&self) -> ToolError {
        limit_exceeded(&self.tool, self.limit)
    }
}

/// The length of `v`'s JSON text, without writing it anywhere.
pub fn json_len(v: &Value) -> u64 {
    struct Count(u64);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len() as u64;
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    // Writing into a counter cannot fail.
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn budgets_count_json_text_and_rows_and_name_the_limit() {
        let v = json!({"a": "x\"y", "b": [1, null]});
        assert_eq!(json_len(&v), v.to_string().len() as u64);
        let mut b = ResultBudget::new("q", 10);
        assert!(b.charge(10).is_ok());
        let e = b.charge(1).unwrap_err();
        assert_eq!(e.kind(), filestore_guest::error::ErrorKind::LimitExceeded);
        assert!(e.message().contains("tool result limit of 10 bytes (--tool-result-mib)"), "{e}");
        let e = limit_exceeded("q", DEFAULT_MAX_RESULT_BYTES);
        assert!(e.message().contains("16 MiB (16777216 bytes)"), "{e}");
        let mut b = ResultBudget::new("q", u64::MAX);
        for _ in 0..MAX_RESULT_ROWS {
            b.row().unwrap();
        }
        assert!(b.row().unwrap_err().message().contains("more than 100000 rows"));
    }
}
