//! An upstream server's tools as the component sees them: each under an action name
//! that is a valid call-ref segment, with its upstream description, input schema and
//! annotations.
//!
//! MCP tool names may use `.`, `/`, a leading `_` or `__`, which a call-ref segment
//! (letters, digits and `-`, joined by single `_`) cannot; such a tool is listed
//! under a derived action name (`a.b` → `a-b`) and called by its own name. Two tools
//! that derive the same action keep the first; the second is left out with a
//! warning rather than renamed unpredictably.

use std::collections::HashMap;

use rmcp::model::Tool;

use crate::bindings::filestore::component::tool_host::ProviderAction;

/// One server's tools, by action name.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// Actions in the server's order: `(action, tool)`.
    actions: Vec<(String, Tool)>,
    /// Action → index.
    by_action: HashMap<String, usize>,
    /// Tools left out, and why.
    pub skipped: Vec<String>,
}

impl Catalog {
    /// The catalog of `tools` as `tools/list` returned them. A tool whose name is
    /// already a valid action keeps it whatever the order: a derived name never takes
    /// a real one (`fs.stat` listed before `fs-stat` is the one left out).
    pub fn new(tools: Vec<Tool>) -> Catalog {
        let mut c = Catalog::default();
        let derived: Vec<String> = tools.iter().map(|t| action_name(&t.name)).collect();
        let mut kept: Vec<(usize, String, Tool)> = Vec::new();
        let mut taken: HashMap<String, usize> = HashMap::new();
        let mut order: Vec<usize> = (0..tools.len()).collect();
        // Exact names first, then derived ones, each in the server's order.
        order.sort_by_key(|&i| derived[i] != tools[i].name);
        let mut slots: Vec<Option<Tool>> = tools.into_iter().map(Some).collect();
        for i in order {
            let Some(tool) = slots[i].take() else { continue };
            let action = derived[i].clone();
            if action.is_empty() {
                c.skipped.push(format!("tool '{}' has no usable name", shown(&tool.name)));
                continue;
            }
            if let Some(&k) = taken.get(&action) {
                let other = kept.iter().find(|(j, ..)| *j == k).map(|(.., t)| t.name.to_string());
                c.skipped.push(format!(
                    "tool '{}' would be action '{}', which tool '{}' already is",
                    shown(&tool.name),
                    shown(&action),
                    shown(&other.unwrap_or_default())
                ));
                continue;
            }
            taken.insert(action.clone(), i);
            kept.push((i, action, tool));
        }
        kept.sort_by_key(|(i, ..)| *i);
        for (_, action, tool) in kept {
            c.by_action.insert(action.clone(), c.actions.len());
            c.actions.push((action, tool));
        }
        c
    }

    /// The upstream tool behind `action`.
    pub fn tool(&self, action: &str) -> Option<&Tool> {
        self.by_action.get(action).map(|&i| &self.actions[i].1)
    }

    /// Every action, in order, as the `tool-host` interface reports them.
    pub fn provider_actions(&self) -> Vec<ProviderAction> {
        self.actions
            .iter()
            .map(|(action, t)| ProviderAction {
                action: action.clone(),
                title: t
                    .title
                    .clone()
                    .or_else(|| t.annotations.as_ref().and_then(|a| a.title.clone())),
                description: t.description.as_deref().unwrap_or_default().to_string(),
                input_schema: serde_json::Value::Object((*t.input_schema).clone()).to_string(),
                annotations: t
                    .annotations
                    .as_ref()
                    .and_then(|a| serde_json::to_value(a).ok())
                    .filter(|v| v.is_object())
                    .map(|v| v.to_string()),
            })
            .collect()
    }

    /// The number of actions.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// Whether the server offers no tools.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }
}

/// The call-ref segment for an MCP tool name: itself when valid; otherwise every
/// character outside `[A-Za-z0-9_-]` becomes `-`, runs of `_` become one, and `_`
/// at either end is dropped.
pub fn action_name(tool: &str) -> String {
    if filestore_guest::tools::toolrefs::is_valid_segment(tool) {
        return tool.to_string();
    }
    let mut out = String::with_capacity(tool.len());
    for ch in tool.chars() {
        let c = if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' { ch } else { '-' };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// A name as shown in a warning: an upstream may send one of any length.
fn shown(name: &str) -> String {
    const MAX: usize = 80;
    match name.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}... ({} bytes)", &name[..cut], name.len()),
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_names_are_segments() {
        for (name, want) in [
            ("read_file", "read_file"),
            ("fs.read", "fs-read"),
            ("__private", "private"),
            ("a__b", "a_b"),
            ("a/b c", "a-b-c"),
            ("x_", "x"),
            ("___", ""),
        ] {
            let got = action_name(name);
            assert_eq!(got, want, "{name}");
            assert!(
                got.is_empty() || filestore_guest::tools::toolrefs::is_valid_segment(&got),
                "{got}"
            );
        }
    }

    #[test]
    fn clashing_and_unusable_names_are_skipped_with_a_reason() {
        let tool =
            |n: &str| Tool::new(n.to_string(), "d", std::sync::Arc::new(serde_json::Map::new()));
        // The exact name wins whatever the order; the derived one is left out.
        for tools in [vec!["a.b", "a-b", "__", "ok"], vec!["a-b", "a.b", "__", "ok"]] {
            let c = Catalog::new(tools.iter().map(|n| tool(n)).collect());
            assert_eq!(c.len(), 2);
            assert_eq!(c.tool("a-b").unwrap().name, "a-b");
            assert!(
                c.skipped.iter().any(|s| s.starts_with("tool 'a.b' would be action 'a-b'"))
                    && c.skipped.iter().any(|s| s.contains("'__'")),
                "{:?}",
                c.skipped
            );
            let actions: Vec<String> = c.provider_actions().into_iter().map(|a| a.action).collect();
            assert_eq!(actions, ["a-b", "ok"]);
        }
        let long = "x".repeat(5000);
        let c = Catalog::new(vec![tool(&format!("{long}.")), tool(&format!("{long}-"))]);
        assert!(
            c.skipped[0].len() < 400 && c.skipped[0].contains("(5001 bytes)"),
            "{:?}",
            c.skipped
        );
    }
}
