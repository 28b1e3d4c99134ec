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
    /// The catalog of `tools` as `tools/list` returned them.
    pub fn new(tools: Vec<Tool>) -> Catalog {
        let mut c = Catalog::default();
        for tool in tools {
            let action = action_name(&tool.name);
            if action.is_empty() {
                c.skipped.push(format!("tool '{}' has no usable name", tool.name));
                continue;
            }
            if let Some(&i) = c.by_action.get(&action) {
                c.skipped.push(format!(
                    "tool '{}' would be action '{action}', which tool '{}' already is",
                    tool.name, c.actions[i].1.name
                ));
                continue;
            }
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
        let c = Catalog::new(vec![tool("a.b"), tool("a-b"), tool("__"), tool("ok")]);
        assert_eq!(c.len(), 2);
        assert_eq!(c.tool("a-b").unwrap().name, "a.b");
        assert!(c.skipped[0].contains("'a-b'") && c.skipped[1].contains("'__'"), "{:?}", c.skipped);
        assert_eq!(c.provider_actions()[1].action, "ok");
    }
}
