//! `filestore_snapshot`: the agent's snapshots of its own conversation
//! (docs/snapshots.md#what-an-agent-may-do), offered by `serve --state`.
//!
//! An agent may take a snapshot, list them and restore one: all of it within its
//! own conversation, undoing its own work. Deleting a snapshot and forking are the
//! host's (`filestore snapshot`): a deleted snapshot may be the restore point a
//! person counts on, and a fork makes a conversation the agent cannot name.

use serde_json::{Value, json};

use filestore_guest::error::{Error as FsError, ErrorKind};

use super::conversations::{Bound, no_conversations, state_error};
use super::host_tool::{HostCall, HostContext, HostTool};
use filestore_runtime::CallOutput;

/// The tool's name.
pub const TOOL: &str = "filestore_snapshot";

/// The tool's spec, as the session's are.
pub fn spec() -> Value {
    json!({
        "name": TOOL,
        "title": "Snapshot",
        "description": "Snapshots of this conversation's files (/scratch) and stored tool results (/tool_calls). action=create takes one under a name; action=list lists them; action=restore puts /scratch and /tool_calls back exactly as they were in the named snapshot (later changes are lost unless snapshotted first). Cheap: only what changed since the last snapshot is stored.",
        "inputSchema": {"type": "object", "properties": {
            "action": {"type": "string", "enum": ["create", "list", "restore"]},
            "name": {"type": "string", "description": "The snapshot's name (ASCII letters, digits, . _ -); for create and restore."}
        }, "required": ["action"], "additionalProperties": false},
        "annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": false, "openWorldHint": false, "title": "Snapshot"}
    })
}

fn invalid(message: String) -> filestore_runtime::Error {
    filestore_runtime::Error::Filestore(FsError::new(ErrorKind::InvalidArgument, message))
}

/// The tool, offered to a session that serves a conversation (`serve --state`).
pub struct SnapshotTool;

impl HostTool for SnapshotTool {
    fn name(&self) -> &'static str {
        TOOL
    }

    fn spec(&self) -> Value {
        spec()
    }

    fn offered(&self, conversation: Option<&Bound>) -> bool {
        conversation.is_some()
    }

    /// Runs one call for the session's conversation, recording it in its audit
    /// timeline. A restore changes the conversation's files, skills and gates under
    /// the session.
    fn call(&self, context: HostContext<'_>, args: &Value) -> HostCall {
        let Some(bound) = context.conversation else {
            return HostCall { out: Err(no_conversations()), state_changed: false };
        };
        let action = args["action"].as_str().unwrap_or_default().to_string();
        let out = act(bound, &action, args);
        let restored = action == "restore" && out.is_ok();
        if let Some(audit) = context.audit.filter(|_| action != "list") {
            let attempt = filestore_runtime::audit::Attempt::new(TOOL, args, None);
            let error = out.as_ref().err().map(filestore_runtime::Error::kind_name);
            let paths =
                if restored { vec!["/scratch".into(), "/tool_calls".into()] } else { vec![] };
            if let Err(e) = audit.record(&attempt, error, paths) {
                eprintln!("filestore: audit: recording a call of '{TOOL}' failed: {e}");
            }
        }
        HostCall { out, state_changed: restored }
    }
}

fn act(bound: &Bound, action: &str, args: &Value) -> filestore_runtime::Result<CallOutput> {
    if let Some(extra) =
        args.as_object().and_then(|o| o.keys().find(|k| *k != "action" && *k != "name"))
    {
        return Err(invalid(format!("{TOOL}: unknown parameter '{extra}'")));
    }
    let name = || {
        args["name"]
            .as_str()
            .ok_or_else(|| invalid(format!("{TOOL}: action '{action}' needs a name")))
    };
    let (store, key) = (bound.store(), bound.key());
    match action {
        "create" => {
            let r = store.snapshot(key, name()?).map_err(state_error)?;
            let text = format!(
                "snapshot '{}' taken: {} files ({} read, {} objects and {} bytes stored)",
                r.name,
                r.stats.files,
                r.stats.files_read,
                r.stats.objects_written,
                r.stats.bytes_written
            );
            Ok(CallOutput {
                json: json!({"name": r.name, "created_ms": r.created_ms, "stats": r.stats}),
                text,
            })
        }
        "list" => {
            let list = store.snapshots(key).map_err(state_error)?;
            let items: Vec<Value> = list
                .iter()
                .map(
                    |r| json!({"name": r.name, "created_ms": r.created_ms, "files": r.stats.files}),
                )
                .collect();
            let text = if list.is_empty() {
                "no snapshots".to_string()
            } else {
                list.iter().map(|r| format!("{} ({} files)\n", r.name, r.stats.files)).collect()
            };
            Ok(CallOutput { json: json!({"snapshots": items}), text })
        }
        "restore" => {
            let name = name()?;
            let stats = store.restore_snapshot(key, name).map_err(state_error)?;
            let text = stats
                .iter()
                .map(|(v, s)| {
                    format!(
                        "/{v}: {} written, {} removed, {} unchanged\n",
                        s.written, s.removed, s.unchanged
                    )
                })
                .collect::<String>();
            Ok(CallOutput {
                json: json!({"name": name, "volumes": stats}),
                text: format!("restored '{name}'\n{text}"),
            })
        }
        other => Err(invalid(format!(
            "{TOOL}: action must be create, list or restore, got '{}'",
            other.chars().take(32).collect::<String>()
        ))),
    }
}
