//! The tool-results volume (docs/architecture.md#tool-results): every external tool
//! call's result is stored read-only at `/tool_calls/{tool}/{call_id}/result-{n}.json`,
//! pretty-printed, with the attributes `tool_id`, `tool_call_id` and `result_type`, so
//! `ls`, `read`, `grep` and `glob` work on it like on any file; and results too large
//! for a model are *offloaded*: the model sees a preview and the path.
//!
//! **Ids in paths.** Tool names and call ids come from configuration and from the
//! model. Each is reduced to `[A-Za-z0-9_-]` (anything else becomes `_`) and bounded to
//! [`MAX_ID_LEN`] bytes. When that changes the id at all — a character replaced or the
//! tail cut — a short hash of the original id is appended (`-` + 8 hex digits of its
//! SHA-256), so two different ids (`a.b` and `a_b`, or two long ids sharing a prefix)
//! never land in the same directory. SHA-256 (the `sha2` crate, pure Rust) rather than
//! a hand-rolled FNV: the ids are caller-chosen, and a cryptographic hash makes a
//! deliberate collision that would mix two calls' results impractical.
//!
//! **Privileged write.** The results mount is read-only for agents (the host mounts
//! it so); the component itself writes through the mount's volume directly, with
//! `create_only` so nothing is ever replaced, and marks each entry read-only.
//!
//! ```
//! use filestore_guest::invoke::results::sanitize_id;
//! assert_eq!(sanitize_id("find_user"), "find_user");
//! assert!(sanitize_id("call/../x").starts_with("call____x-"));
//! assert!(sanitize_id(&"a".repeat(300)).len() <= filestore_guest::invoke::results::MAX_ID_LEN);
//! ```

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;
use crate::vfs::volume::WriteOptions;

/// Where the tool-results volume is mounted.
pub const RESULTS_MOUNT: &str = "/tool_calls";

/// Entry type of a stored result.
pub const TYPE_TOOL_RESULT: &str = "tool_result";

/// Longest tool or call id segment in a result path, bytes. Bounds path length (a
/// model-chosen call id of megabytes must not become a path) well under the 255-byte
/// component limit.
pub const MAX_ID_LEN: usize = 64;

/// Most results stored under one call id. Bounds the probe for a free `result-{n}`
/// when a model reuses one call id over and over.
pub const MAX_RESULTS_PER_CALL: u32 = 1000;

/// Default offloading threshold in estimated tokens (`ceil(chars / 4)`): larger
/// results reach the model as a preview. Protects the model's context window.
pub const DEFAULT_OFFLOAD_TOKENS: usize = 20_000;

/// Lines of a result shown in an offload preview.
pub const PREVIEW_LINES: usize = 20;

/// Characters kept of each preview line (longer lines are cut with a marker), so a
/// preview stays small even when the result is one enormous line.
pub const PREVIEW_LINE_CHARS: usize = 200;

/// Hex digits of the hash appended to an altered id.
const HASH_HEX: usize = 8;

/// Reduces an id to `[A-Za-z0-9_-]`, at most [`MAX_ID_LEN`] bytes; an id that had to
/// change gets `-` and a short hash of the original (see the module docs). An empty id
/// becomes `_` plus the hash.
pub fn sanitize_id(id: &str) -> String {
    let mut out: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .collect();
    if out == id && !id.is_empty() && id.len() <= MAX_ID_LEN {
        return out;
    }
    let digest = Sha256::digest(id.as_bytes());
    let hash: String = digest.iter().take(HASH_HEX / 2).map(|b| format!("{b:02x}")).collect();
    // Chars are ASCII after the map, so byte truncation is safe.
    out.truncate(MAX_ID_LEN - HASH_HEX - 1);
    if out.is_empty() {
        out.push('_');
    }
    format!("{out}-{hash}")
}

/// Estimated tokens of a text (`ceil(chars / 4)`, as for entries).
pub fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// The text form of a result: a string as is, anything else pretty-printed JSON.
pub fn result_text(data: &Value) -> String {
    match data {
        Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_else(|_| other.to_string()),
    }
}

/// A result written to the volume.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredResult {
    /// Virtual path of the file.
    pub path: String,
    /// The sanitised call id used in the path.
    pub call_id: String,
}

/// Whether the session has a volume at [`RESULTS_MOUNT`].
pub fn has_results_volume(mounts: &MountTable) -> bool {
    mounts.mounts().iter().any(|m| m.point == RESULTS_MOUNT)
}

/// Whether any result exists under `/tool_calls/{tool}/{call_id}` (sanitised ids).
pub fn call_dir_exists(mounts: &MountTable, tool: &str, call_id: &str) -> bool {
    mounts.stat(&format!("{RESULTS_MOUNT}/{}/{}", sanitize_id(tool), sanitize_id(call_id))).is_ok()
}

/// Stores `data` as the next `result-{n}.json` of the call (pretty-printed JSON), with
/// the attributes `tool_id`, `tool_call_id` (the ids as given) and `result_type`.
/// Returns `None` when no volume is mounted at [`RESULTS_MOUNT`].
pub fn store(
    mounts: &MountTable,
    tool: &str,
    call_id: &str,
    result_type: &str,
    data: &Value,
) -> Result<Option<StoredResult>> {
    // The first layer at the results mount point takes the write, whether or not the
    // mount is read-only for agents: this is the component's own privileged path.
    let Some(mount) = mounts.mounts().iter().find(|m| m.point == RESULTS_MOUNT) else {
        return Ok(None);
    };
    let tool_seg = sanitize_id(tool);
    let call_seg = sanitize_id(call_id);
    let content = serde_json::to_string_pretty(data).map_err(|e| {
        Error::new(ErrorKind::Backend, format!("serialising the result of '{tool}': {e}"))
    })?;
    let options = WriteOptions {
        create_only: true,
        read_only: true,
        entry_type: Some(TYPE_TOOL_RESULT.to_string()),
        attributes: Some(json!({
            "tool_id": tool,
            "tool_call_id": call_id,
            "result_type": result_type,
        })),
    };
    for n in 1..=MAX_RESULTS_PER_CALL {
        let rel = format!("/{tool_seg}/{call_seg}/result-{n}.json");
        match mount.volume.write(&rel, content.as_bytes(), &options) {
            Ok(_) => {
                return Ok(Some(StoredResult {
                    path: paths::under(RESULTS_MOUNT, &rel),
                    call_id: call_seg,
                }));
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(Error::new(
                    e.kind(),
                    format!(
                        "storing the result of '{tool}' at {}: {}",
                        paths::under(RESULTS_MOUNT, &rel),
                        e.message()
                    ),
                ));
            }
        }
    }
    Err(Error::new(
        ErrorKind::LimitExceeded,
        format!(
            "call id '{call_id}' of tool '{tool}' already has {MAX_RESULTS_PER_CALL} results; use a new call id"
        ),
    ))
}

/// The preview of an offloaded result: its first [`PREVIEW_LINES`] lines, each cut at
/// [`PREVIEW_LINE_CHARS`] characters.
pub fn preview(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().take(PREVIEW_LINES) {
        let count = line.chars().count();
        if count > PREVIEW_LINE_CHARS {
            out.extend(line.chars().take(PREVIEW_LINE_CHARS));
            out.push_str(&format!(" [... {} more characters]", count - PREVIEW_LINE_CHARS));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// What the model sees of an offloaded result: size, preview, and how to read the rest.
pub fn offload_message(tool: &str, path: &str, text: &str, tokens: usize) -> String {
    let total_lines = text.lines().count();
    let shown = total_lines.min(PREVIEW_LINES);
    format!(
        "The result of '{tool}' is large (about {tokens} tokens, {total_lines} lines) and was stored at {path}.\n\
         Preview (first {shown} lines, long lines cut):\n{}\
         Read the rest with filestore_read {{\"path\": \"{path}\", \"offset\": {}}}, or search it with filestore_grep.\n",
        preview(text),
        shown + 1
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::memory::MemoryVolume;

    #[test]
    fn ids_are_sanitised_bounded_and_distinct() {
        assert_eq!(sanitize_id("call_1-A"), "call_1-A");
        let a = sanitize_id("a.b");
        let b = sanitize_id("a_b");
        assert_ne!(a, b);
        assert!(a.starts_with("a_b-"));
        let long1 = sanitize_id(&format!("{}1", "x".repeat(100)));
        let long2 = sanitize_id(&format!("{}2", "x".repeat(100)));
        assert_ne!(long1, long2);
        assert!(long1.len() <= MAX_ID_LEN && long2.len() <= MAX_ID_LEN);
        assert_eq!(sanitize_id(&"y".repeat(MAX_ID_LEN)), "y".repeat(MAX_ID_LEN));
        assert!(sanitize_id("").starts_with("_-"));
        for id in ["../..", "a/b", "\u{0}", "日本", "x y"] {
            let s = sanitize_id(id);
            assert!(s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'), "{s}");
        }
    }

    #[test]
    fn store_writes_read_only_numbered_results() {
        let mut t = MountTable::new();
        t.add(RESULTS_MOUNT, Box::new(MemoryVolume::new()), 0, true).unwrap();
        let r1 = store(&t, "find.user", "c1", "json", &json!({"a": 1})).unwrap().unwrap();
        let r2 = store(&t, "find.user", "c1", "json", &json!({"a": 2})).unwrap().unwrap();
        assert!(r1.path.ends_with("/c1/result-1.json"), "{}", r1.path);
        assert!(r2.path.ends_with("/c1/result-2.json"));
        let e = t.stat(&r1.path).unwrap();
        assert!(e.read_only);
        assert_eq!(e.entry_type, TYPE_TOOL_RESULT);
        assert_eq!(e.attributes.unwrap()["tool_id"], "find.user");
        // Agents cannot write there.
        assert_eq!(
            t.write(&r1.path, b"x", &WriteOptions::default()).unwrap_err().kind(),
            ErrorKind::ReadOnly
        );
        let none = MountTable::new();
        assert_eq!(store(&none, "t", "c", "json", &json!(1)).unwrap(), None);
    }

    #[test]
    fn preview_cuts_lines() {
        let text = format!("{}\nshort\n", "z".repeat(500));
        let p = preview(&text);
        assert!(p.contains("[... 300 more characters]"));
        assert!(p.ends_with("short\n"));
        let many: String = (0..100).map(|i| format!("line {i}\n")).collect();
        assert_eq!(preview(&many).lines().count(), PREVIEW_LINES);
    }
}
