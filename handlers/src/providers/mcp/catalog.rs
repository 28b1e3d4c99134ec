//! An upstream server's tools as the component sees them: each under an action name
//! that is a valid call-ref segment, with its upstream description, input schema and
//! annotations.
//!
//! MCP tool names may use `.`, `/`, a leading `_` or `__`, which a call-ref segment
//! (letters, digits and `-`, joined by single `_`) cannot; such a tool is listed
//! under a derived action name (`a.b` → `a-b`) and called by its own name. Two tools
//! that derive the same action keep the first; the second is left out with a
//! warning rather than renamed unpredictably.
//!
//! What an upstream sends is bounded here, where it comes in ([`MAX_TOOL_NAME_CHARS`],
//! [`MAX_TOOL_TITLE_CHARS`], [`MAX_TOOL_DESCRIPTION_BYTES`]), and redacted of the
//! connection's secrets (descriptions, titles, the strings of input schemas). Fields
//! the component is not given (output schema, icons, `_meta`) are not kept.

use std::collections::HashMap;

use rmcp::model::Tool;
use serde_json::Value;

use filestore_runtime::tools::ProviderAction;
use filestore_runtime::tools::{Secret, redact};

/// The longest upstream tool name taken, in characters: MCP's guidance for tool
/// names (1 to 128 characters). A longer name is refused, the tool left out with a
/// warning: it cannot be cut (the tool is called by its name, and two cut names
/// could collide). The threat: a name of any length is repeated in every
/// `tools/list`, and in warnings and errors (a 20,000-character name made a 40 KB
/// warning line).
pub const MAX_TOOL_NAME_CHARS: usize = 128;

/// The longest upstream tool title kept, in characters; a longer one is cut (ending
/// in `…`). Titles are display names of a few words; the bound keeps one from
/// weighing on every `tools/list`.
pub const MAX_TOOL_TITLE_CHARS: usize = 256;

/// The longest upstream tool description kept, in bytes (16 KiB); a longer one is
/// cut, ending with a note of its size, and a warning says so. Real servers'
/// descriptions run from a sentence to a few KB. The threat: the description is
/// sent in every `tools/list` of every session, so an upstream's 12 MB description
/// made each `tools/list` 12 MB, and twelve sessions took a server from 93 MB to
/// 972 MB.
pub const MAX_TOOL_DESCRIPTION_BYTES: usize = 16 * 1024;

/// One server's tools, by action name.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// Actions in the server's order: `(action, tool)`.
    actions: Vec<(String, Tool)>,
    /// Action → index.
    by_action: HashMap<String, usize>,
    /// Warnings: tools left out and why, descriptions cut.
    pub warnings: Vec<String>,
}

impl Catalog {
    /// The catalog of `tools` as `tools/list` returned them, bounded and redacted of
    /// `secrets` (see the module docs). A tool whose name is already a valid action
    /// keeps it whatever the order: a derived name never takes a real one (`fs.stat`
    /// listed before `fs-stat` is the one left out).
    pub fn new(tools: Vec<Tool>, secrets: &[Secret]) -> Catalog {
        let mut c = Catalog::default();
        let tools: Vec<Tool> =
            tools.into_iter().filter_map(|t| bounded(t, secrets, &mut c.warnings)).collect();
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
                c.warnings.push(format!(
                    "tool '{}' has no usable name; it is left out",
                    shown(&tool.name)
                ));
                continue;
            }
            if let Some(&k) = taken.get(&action) {
                let other = kept.iter().find(|(j, ..)| *j == k).map(|(.., t)| t.name.to_string());
                c.warnings.push(format!(
                    "tool '{}' would be action '{}', which tool '{}' already is; it is left out",
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

/// `tool` bounded and redacted (see the module docs), or `None` when it is left out.
/// Why it is left out, or that its description is cut, is a warning in `warnings`
/// (what the catalog's reader is told; there is no error to return).
fn bounded(mut tool: Tool, secrets: &[Secret], warnings: &mut Vec<String>) -> Option<Tool> {
    let chars = tool.name.chars().count();
    if chars > MAX_TOOL_NAME_CHARS {
        warnings.push(format!(
            "tool '{}' has a name of {chars} characters, over the limit of {MAX_TOOL_NAME_CHARS}; it is left out",
            shown(&tool.name)
        ));
        return None;
    }
    if redact(secrets, &tool.name) != tool.name {
        warnings.push(format!(
            "tool '{}' has a name holding a credential of its connection; it is left out",
            shown(&redact(secrets, &tool.name))
        ));
        return None;
    }
    if let Some(d) = &tool.description {
        let d = redact(secrets, d);
        if d.len() > MAX_TOOL_DESCRIPTION_BYTES {
            warnings.push(format!(
                "tool '{}' has a description of {} bytes; it is cut to {MAX_TOOL_DESCRIPTION_BYTES}",
                tool.name,
                d.len()
            ));
        }
        tool.description = Some(cut_description(&d).into());
    }
    let title = |t: &str| cut_chars(&redact(secrets, t), MAX_TOOL_TITLE_CHARS);
    tool.title = tool.title.as_deref().map(title);
    if let Some(a) = tool.annotations.as_mut() {
        a.title = a.title.as_deref().map(title);
    }
    let mut schema = Value::Object((*tool.input_schema).clone());
    redact_strings(&mut schema, secrets);
    if let Value::Object(schema) = schema {
        tool.input_schema = std::sync::Arc::new(schema);
    }
    tool.output_schema = None;
    tool.icons = None;
    tool.meta = None;
    Some(tool)
}

/// `d` cut to [`MAX_TOOL_DESCRIPTION_BYTES`] (at a character), saying so at its end.
fn cut_description(d: &str) -> String {
    if d.len() <= MAX_TOOL_DESCRIPTION_BYTES {
        return d.to_string();
    }
    let mut cut = MAX_TOOL_DESCRIPTION_BYTES;
    while !d.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… (the description is cut here: it has {} bytes)", &d[..cut], d.len())
}

/// `t` cut to `max` characters, ending in `…` when cut.
fn cut_chars(t: &str, max: usize) -> String {
    match t.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &t[..cut]),
        None => t.to_string(),
    }
}

/// Redacts every string of `v` (not the keys: they name the arguments).
fn redact_strings(v: &mut Value, secrets: &[Secret]) {
    match v {
        Value::String(s) => {
            let r = redact(secrets, s);
            if r != *s {
                *s = r;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| redact_strings(x, secrets)),
        Value::Object(m) => m.values_mut().for_each(|x| redact_strings(x, secrets)),
        _ => {}
    }
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

    fn tool(name: &str) -> Tool {
        Tool::new(name.to_string(), "d", std::sync::Arc::new(serde_json::Map::new()))
    }

    #[test]
    fn clashing_and_unusable_names_are_skipped_with_a_reason() {
        // The exact name wins whatever the order; the derived one is left out.
        for tools in [vec!["a.b", "a-b", "__", "ok"], vec!["a-b", "a.b", "__", "ok"]] {
            let c = Catalog::new(tools.iter().map(|n| tool(n)).collect(), &[]);
            assert_eq!(c.len(), 2);
            assert_eq!(c.tool("a-b").unwrap().name, "a-b");
            assert!(
                c.warnings.iter().any(|s| s.starts_with("tool 'a.b' would be action 'a-b'"))
                    && c.warnings.iter().any(|s| s.contains("'__'")),
                "{:?}",
                c.warnings
            );
            let actions: Vec<String> = c.provider_actions().into_iter().map(|a| a.action).collect();
            assert_eq!(actions, ["a-b", "ok"]);
        }
        let long = "x".repeat(MAX_TOOL_NAME_CHARS - 1);
        let c = Catalog::new(vec![tool(&format!("{long}.")), tool(&format!("{long}-"))], &[]);
        assert!(
            c.warnings[0].len() < 400 && c.warnings[0].contains("(128 bytes)"),
            "{:?}",
            c.warnings
        );
    }

    /// A name over the limit is refused with a short warning; a long description or
    /// title is cut, saying so; nothing else of the tool is lost.
    #[test]
    fn names_titles_and_descriptions_are_bounded() {
        let mut huge = tool("huge");
        huge.description = Some("é".repeat(MAX_TOOL_DESCRIPTION_BYTES).into());
        huge.title = Some("t".repeat(10_000));
        let c = Catalog::new(vec![tool(&"n".repeat(20_000)), huge, tool(&"m".repeat(128))], &[]);
        let actions = c.provider_actions();
        assert_eq!(actions.len(), 2);
        let d = &actions[0].description;
        assert!(d.len() < MAX_TOOL_DESCRIPTION_BYTES + 100, "{}", d.len());
        assert!(
            d.ends_with("… (the description is cut here: it has 32768 bytes)"),
            "{}",
            &d[d.len() - 80..]
        );
        assert_eq!(actions[0].title.as_ref().unwrap().chars().count(), MAX_TOOL_TITLE_CHARS + 1);
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(c.warnings.iter().all(|w| w.len() < 300), "{:?}", c.warnings);
        assert!(c.warnings[0].contains("a name of 20000 characters, over the limit of 128"));
        assert!(c.warnings[1].contains("a description of 32768 bytes; it is cut to 16384"));
    }

    /// The connection's secrets are removed from descriptions, titles and schema
    /// strings (not schema keys); a name holding one is refused.
    #[test]
    fn catalogs_are_redacted() {
        let secrets = [Secret { variable: "DB_PASSWORD".into(), value: "hunter2-x\"y".into() }];
        let mut t = tool("query");
        t.description = Some("Queries postgres://me:hunter2-x\"y@db/app".into());
        t.title = Some("query as hunter2-x\"y".into());
        let schema = serde_json::json!({"type": "object", "properties": {"hunter2-x\"y": {"default": "hunter2-x\"y"}}});
        t.input_schema = std::sync::Arc::new(schema.as_object().unwrap().clone());
        let c = Catalog::new(vec![t, tool("as-hunter2-x\"y")], &secrets);
        let a = &c.provider_actions()[0];
        assert_eq!(a.description, "Queries postgres://me:${DB_PASSWORD}@db/app");
        assert_eq!(a.title.as_deref(), Some("query as ${DB_PASSWORD}"));
        let redacted: Value = serde_json::from_str(&a.input_schema).unwrap();
        let want = serde_json::json!({"type": "object", "properties": {"hunter2-x\"y": {"default": "${DB_PASSWORD}"}}});
        assert_eq!(redacted, want);
        assert_eq!(c.len(), 1);
        assert!(c.warnings[0].contains("'as-${DB_PASSWORD}' has a name holding a credential"));
    }
}
