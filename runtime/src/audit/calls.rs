//! Which calls the timeline records, and the paths a call names.

use serde_json::Value;

use filestore_guest::invoke::builtins::{self, Kind};

/// Whether a call of `tool` with `args` is recorded: every built-in that can
/// change a file (`filestore_write`, `_edit` unless a dry run, `_mkdir`, `_delete`,
/// `_move`), the shell (`filestore_execute`: any command may write), and every
/// configured or dynamic tool (it may change what it reaches: a database, an API,
/// and it stores its result under `/tool_calls`). Reads and diffs are not.
pub fn is_audited(tool: &str, args: &Value) -> bool {
    let kind = builtins::kind(tool);
    if matches!(kind, Some(Kind::Read | Kind::Diff)) {
        return false;
    }
    if tool == "filestore_edit" && args.get("dry_run") == Some(&Value::Bool(true)) {
        return false;
    }
    matches!(kind, Some(Kind::Write | Kind::Shell)) || !tool.starts_with("filestore_")
}

/// The virtual paths a built-in mutation names in its arguments (`path`, `source`,
/// `destination`), normalised as the component does; for a call that failed before
/// touching anything, they are what it tried to change. A name that does not
/// normalise (the call failed on it) is kept as given, cut to 256 bytes. Other
/// tools name none (their arguments are not paths, and are never recorded).
pub fn named_paths(tool: &str, args: &Value) -> Vec<String> {
    if builtins::kind(tool) != Some(Kind::Write) {
        return Vec::new();
    }
    ["path", "source", "destination"]
        .iter()
        .filter_map(|k| args.get(*k).and_then(Value::as_str))
        .map(|p| match filestore_guest::vfs::paths::normalize(p) {
            Ok(n) => n,
            Err(_) => cut(p, 256),
        })
        .collect()
}

fn cut(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// Where a volume handle's changes show in the session's virtual tree: its mount
/// point, and whether it is a copy-on-write upper layer (whose files live under
/// `/files/`, beside its state file).
#[derive(Clone, Debug)]
pub struct TouchPoint {
    /// The mount point.
    pub point: String,
    /// The handle is a copy-on-write mount's upper layer.
    pub cow_upper: bool,
}

impl TouchPoint {
    /// The virtual path of `rel` (a path in the volume), or `None` for the upper
    /// layer's bookkeeping (its whiteouts and bases file).
    pub fn virtual_path(&self, rel: &str) -> Option<String> {
        use filestore_guest::vfs::cow::state::FILES_DIR;
        use filestore_guest::vfs::paths::{is_within, strip_dir, under};
        let rel = if self.cow_upper {
            if !is_within(rel, FILES_DIR) {
                return None;
            }
            strip_dir(rel, FILES_DIR)
        } else {
            rel
        };
        Some(under(&self.point, rel))
    }
}

impl TouchPoint {
    /// The virtual paths a copy-on-write upper layer's new state file deletes: the
    /// whiteouts in `written` (the file's new bytes) that `before` did not have. A
    /// delete of a lower file writes nothing under `/files/`, only this file, so
    /// without these the record of a shell `rm` would name no path.
    pub fn new_whiteouts(
        &self,
        before: &filestore_guest::vfs::cow::state::CowState,
        written: &[u8],
    ) -> Vec<String> {
        let Ok(after) =
            serde_json::from_slice::<filestore_guest::vfs::cow::state::CowState>(written)
        else {
            return Vec::new();
        };
        after
            .whiteouts
            .iter()
            .filter(|w| !before.whiteouts.contains(*w))
            .map(|w| filestore_guest::vfs::paths::under(&self.point, w))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mutations_are_audited_and_reads_are_not() {
        for t in ["filestore_write", "filestore_delete", "filestore_move", "filestore_execute"] {
            assert!(is_audited(t, &json!({})), "{t}");
        }
        assert!(is_audited("query_orders", &json!({})));
        assert!(is_audited("filestore_edit", &json!({"dry_run": false})));
        assert!(!is_audited("filestore_edit", &json!({"dry_run": true})));
        for t in ["filestore_read", "filestore_grep", "filestore_diff", "filestore_ls"] {
            assert!(!is_audited(t, &json!({})), "{t}");
        }
    }

    #[test]
    fn named_paths_are_normalised() {
        let args =
            json!({"source": "scratch//a/../b.txt", "destination": "/scratch/c", "content": "x"});
        assert_eq!(named_paths("filestore_move", &args), ["/scratch/b.txt", "/scratch/c"]);
        assert_eq!(named_paths("filestore_write", &json!({"path": "/../x"})), ["/../x"]);
        assert!(named_paths("query", &json!({"path": "/x"})).is_empty());
    }

    #[test]
    fn upper_layer_paths_map_to_the_mount() {
        let upper = TouchPoint { point: "/workspace".into(), cow_upper: true };
        assert_eq!(upper.virtual_path("/files/src/a.rs").as_deref(), Some("/workspace/src/a.rs"));
        assert_eq!(upper.virtual_path("/cow-state.json"), None);
        let plain = TouchPoint { point: "/scratch".into(), cow_upper: false };
        assert_eq!(plain.virtual_path("/a").as_deref(), Some("/scratch/a"));
        assert_eq!(plain.virtual_path("/").as_deref(), Some("/scratch"));
    }

    #[test]
    fn new_whiteouts_are_the_deleted_paths() {
        use filestore_guest::vfs::cow::state::CowState;
        let upper = TouchPoint { point: "/workspace".into(), cow_upper: true };
        let mut before = CowState::default();
        before.add_whiteout("/old");
        let mut after = before.clone();
        after.add_whiteout("/src/lib.rs");
        let bytes = serde_json::to_vec(&after).unwrap();
        assert_eq!(upper.new_whiteouts(&before, &bytes), ["/workspace/src/lib.rs"]);
        assert!(upper.new_whiteouts(&after, &bytes).is_empty());
        assert!(upper.new_whiteouts(&before, b"not json").is_empty());
    }
}
