//! The JSON of a listing with details, written directly.
//!
//! Byte for byte what `serde_json::to_writer` makes of an [`LsResult`] (the tests
//! compare the two), written without serde's data model: serialising was two fifths
//! of the component's share of a 40-entry listing with details over MCP (profile of
//! 2026-11-28), half of it serde_json's string escaper, which every key of every
//! entry passes through. Keys are constants here; only paths, names and types are
//! checked for characters to escape, and a string needing it (rare) goes through
//! serde_json, as do attributes (arbitrary JSON).

use crate::ops::ls::{LsNode, LsResult};
use crate::vfs::entry::{Entry, EntryKind};

/// The JSON of `r`, as `serde_json::to_string(r)` writes it.
pub fn details_json(r: &LsResult) -> String {
    let mut out = Vec::with_capacity(64 + r.entries.len() * 160);
    out.extend_from_slice(b"{\"path\":");
    string(&mut out, &r.path);
    out.extend_from_slice(b",\"entries\":");
    nodes(&mut out, &r.entries);
    out.extend_from_slice(if r.truncated {
        b",\"truncated\":true}"
    } else {
        b",\"truncated\":false}"
    });
    // Only whole `str`s and ASCII were written: this cannot fail.
    String::from_utf8(out).unwrap_or_default()
}

fn nodes(out: &mut Vec<u8>, nodes: &[LsNode]) {
    out.push(b'[');
    for (i, n) in nodes.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        node(out, n);
    }
    out.push(b']');
}

/// An [`LsNode`]: its entry's fields (flattened), then `name`, `tokens`, `children`.
fn node(out: &mut Vec<u8>, n: &LsNode) {
    let mut number = itoa::Buffer::new();
    entry_fields(out, &n.entry);
    out.extend_from_slice(b",\"name\":");
    string(out, &n.name);
    out.extend_from_slice(b",\"tokens\":");
    out.extend_from_slice(number.format(n.tokens).as_bytes());
    if let Some(children) = &n.children {
        out.extend_from_slice(b",\"children\":");
        nodes(out, children);
    }
    out.push(b'}');
}

/// An [`Entry`]'s fields in declaration order, after an opening `{`, without the
/// closing one (the node's own fields follow).
fn entry_fields(out: &mut Vec<u8>, e: &Entry) {
    let mut number = itoa::Buffer::new();
    out.extend_from_slice(b"{\"path\":");
    string(out, &e.path);
    out.extend_from_slice(match e.kind {
        EntryKind::File => b",\"kind\":\"file\",\"size\":",
        EntryKind::Directory => b",\"kind\":\"directory\",\"size\":",
    });
    out.extend_from_slice(number.format(e.size).as_bytes());
    if let Some(ms) = e.modified_ms {
        out.extend_from_slice(b",\"modified_ms\":");
        out.extend_from_slice(number.format(ms).as_bytes());
    }
    out.extend_from_slice(if e.read_only {
        b",\"read_only\":true"
    } else {
        b",\"read_only\":false"
    });
    out.extend_from_slice(b",\"entry_type\":");
    string(out, &e.entry_type);
    if let Some(attributes) = &e.attributes {
        out.extend_from_slice(b",\"attributes\":");
        // Writing into a `Vec` cannot fail; a `Value` always serialises.
        let _ = serde_json::to_writer(&mut *out, attributes);
    }
}

/// A JSON string: as is when nothing in it needs escaping, else through serde_json.
fn string(out: &mut Vec<u8>, s: &str) {
    if s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        let _ = serde_json::to_writer(&mut *out, s);
    } else {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(path: &str, dir: bool) -> Entry {
        if dir {
            Entry::directory(path, Some(1_700_000_000_123))
        } else {
            Entry::file(path, 42, None)
        }
    }

    /// Every shape an entry can take (files, directories, unknown times, read-only,
    /// other types, attributes, names to escape, non-ASCII, nested children,
    /// truncation, an empty listing): the same bytes as serde_json's.
    #[test]
    fn is_serde_json_byte_for_byte() {
        let mut odd = entry("/w/a \"quoted\"\\ \u{1}\n\tname", false);
        odd.read_only = true;
        odd.entry_type = "tool_result".into();
        odd.attributes = Some(json!({"tool_id": "x", "n": 1, "nested": {"b": [1, 2.5, null]}}));
        let mut sym = entry("/w/ünïcødé → 😀", false);
        sym.entry_type = "symlink".into();
        sym.size = u64::MAX;
        sym.modified_ms = Some(0);
        let leaf = LsNode {
            entry: entry("/w/d/x.rs", false),
            name: "x.rs".into(),
            tokens: 11,
            children: None,
        };
        let dir = LsNode {
            entry: entry("/w/d", true),
            name: "d".into(),
            tokens: 0,
            children: Some(vec![leaf.clone(), LsNode { children: Some(vec![]), ..leaf.clone() }]),
        };
        let node = |e: Entry| LsNode {
            name: crate::vfs::paths::file_name(&e.path).into(),
            tokens: 3,
            entry: e,
            children: None,
        };
        for (entries, truncated) in [
            (vec![], false),
            (vec![dir.clone(), node(odd.clone()), node(sym.clone())], true),
            (vec![node(entry("/w/plain.txt", false))], false),
        ] {
            let r = LsResult { path: "/w \"x\"".into(), entries, truncated };
            assert_eq!(details_json(&r), serde_json::to_string(&r).unwrap());
        }
    }
}
