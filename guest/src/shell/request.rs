//! The parameters and the result of `filestore_execute`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Parameters of `filestore_execute`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecuteRequest {
    /// The bash command line (a script: several lines, pipes, loops...).
    pub command: String,
    /// The working directory, a virtual path (default: the first writable mount, else
    /// `/`).
    #[serde(default)]
    pub cwd: Option<String>,
    /// Wall-time limit of the command in milliseconds (default
    /// [`super::limits::DEFAULT_TIMEOUT_MS`], at most [`super::limits::MAX_TIMEOUT_MS`]).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// What the command reads on its standard input.
    #[serde(default)]
    pub stdin: Option<String>,
    /// Environment variables added for this command.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// Result of `filestore_execute`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExecuteResult {
    /// Standard output (non-UTF-8 bytes shown as U+FFFD), cut with a marker line
    /// when `truncated`.
    pub stdout: String,
    /// Standard error, likewise.
    pub stderr: String,
    /// The exit status, as bash reports it in `$?`.
    pub exit_code: i32,
    /// Whether stdout or stderr was cut: the answer shows the beginning, and the whole
    /// captured output is stored at `output_path` when the session has a results
    /// volume.
    pub truncated: bool,
    /// How long the command ran, milliseconds (at the host clock's granularity).
    pub duration_ms: u64,
    /// Where the whole output is stored when it was cut (`/tool_calls/...`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_path: Option<String>,
    /// What reading a skill's `SKILL.md` in the command activated, by skill (as
    /// `filestore_read` of it does).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub activations: Vec<crate::skills::active::Activation>,
}
