//! The spec of `filestore_execute` as an agent sees it, and the built-in specs of a
//! session that may offer it.

use serde_json::json;

use crate::ops::builtin::{self, SHELL_TOOL, ToolSpec};

/// The built-in tools' specs (see [`builtin::specs`]), `filestore_diff`'s when `cow`
/// (a copy-on-write mount is there) and, when `shell`, this tool's.
pub fn builtin_specs(writable: bool, shell: bool, cow: bool) -> Vec<ToolSpec> {
    let mut out = builtin::specs(writable);
    if cow {
        out.extend(builtin::spec(builtin::DIFF_TOOL));
    }
    if shell {
        out.push(spec(writable));
    }
    out
}

/// The spec of `filestore_execute`. Its annotations are honest about the session:
/// with a writable mount a command can delete and overwrite (`destructiveHint`);
/// without one it only reads.
pub fn spec(writable: bool) -> ToolSpec {
    use super::limits::{DEFAULT_TIMEOUT_MS, MAX_INLINE_BYTES, MAX_TIMEOUT_MS};
    let description = format!(
        "Run a bash command line over the mounted files, inside the sandbox: no process is spawned, the commands are built in (cat head tail wc grep rg find ls tree sed awk sort uniq cut tr xargs diff jq echo printf mkdir rm mv cp touch tee basename dirname realpath stat du test seq env and more). Pipes, redirections, heredocs, && || ;, subshells, $( ), variables, globs, if/for/while/case and functions work. Paths are the virtual paths of the other tools; each call is a fresh shell starting in cwd (default: the first writable mount), so cd and variables do not carry over. Output over {MAX_INLINE_BYTES} bytes per stream is cut, the whole of it stored under /tool_calls. timeout_ms defaults to {DEFAULT_TIMEOUT_MS} (at most {MAX_TIMEOUT_MS}); a runaway loop or a huge write ends with error limit-exceeded naming the limit."
    );
    let schema = json!({"type": "object", "properties": {
        "command": {"type": "string", "description": "The command line (bash syntax; several lines allowed)."},
        "cwd": {"type": "string", "description": "Directory to start in, a virtual path such as /workspace/src (default: the first writable mount)."},
        "timeout_ms": {"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_MS, "default": DEFAULT_TIMEOUT_MS, "description": "Wall-time limit of the command in milliseconds."},
        "stdin": {"type": "string", "description": "Text the command reads on standard input."},
        "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Environment variables for this command."}
    }, "required": ["command"], "additionalProperties": false});
    let mut ann = builtin::annotations(!writable, writable, false);
    ann["title"] = json!(builtin::title(SHELL_TOOL));
    ToolSpec {
        name: SHELL_TOOL.to_string(),
        description,
        input_schema: schema,
        annotations: ann,
        title: builtin::title(SHELL_TOOL).to_string(),
        output_schema: builtin::output_schema(SHELL_TOOL),
    }
}
