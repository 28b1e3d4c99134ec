//! `${VAR}` / `${VAR:default}` in the fields that shape what agents see: resource
//! names, `description`s and `title`s at any depth (tools, parameters, prompts,
//! arguments), the tool lists of toolsets, and v1 section keys (names). Toolbox
//! substitutes the whole file's text before parsing; filestore substitutes these
//! fields only, with values the host passes in ([`Variables`]), so nothing else the
//! component parses can take a value from the host's environment: sources and
//! handler fields (`statement`, `headers`, ...) are resolved by the host, outside the
//! sandbox (their secrets never enter it).
//!
//! A value substituted here is visible to agents (it is a name or a description):
//! configuration authors decide what goes there, as with Toolbox.

use std::collections::BTreeMap;

use super::yaml::{Node, Value as Y};

/// The values of the variables [`references`] found, as the host resolved them.
pub type Variables = BTreeMap<String, String>;

/// The keys whose string values are substituted, at any depth.
const SHAPING_KEYS: &[&str] = &["name", "description", "title"];

/// v1 sections whose mapping keys are resource names.
const V1_SECTIONS: &[&str] =
    &["sources", "authServices", "authSources", "tools", "toolsets", "prompts", "embeddingModels"];

/// One `${NAME}` or `${NAME:default}` in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The variable's name.
    pub name: String,
    /// Its default, when written.
    pub default: Option<String>,
}

/// Every reference in `text`, in order: the one scanner of `${NAME}` /
/// `${NAME:default}` for the component and the host (the host resolves handler
/// fields and sources with it), so a configuration means the same on both sides.
///
/// The grammar is Toolbox's (`\$\{(\w+)(?::([^}]*))?\}`, in Go's `\w`: ASCII
/// letters, digits and `_`, a leading digit included); anything else, `${}` or
/// `${a-b}`, is left as written.
pub fn parse(text: &str) -> Vec<(std::ops::Range<usize>, Reference)> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = text[at..].find("${") {
        let start = at + i;
        let Some(len) = text[start + 2..].find('}') else { break };
        let inner = &text[start + 2..start + 2 + len];
        let (name, default) = match inner.split_once(':') {
            Some((n, d)) => (n, Some(d.to_string())),
            None => (inner, None),
        };
        let end = start + 2 + len + 1;
        if is_name(name) {
            out.push((start..end, Reference { name: name.to_string(), default }));
            at = end;
        } else {
            at = start + 2;
        }
    }
    out
}

/// Whether `name` is a variable name: one or more of `[A-Za-z0-9_]`.
fn is_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Whether `text` is exactly one reference (`${NAME}` or `${NAME:default}`).
pub fn is_whole_reference(text: &str) -> bool {
    parse(text).first().is_some_and(|(range, _)| *range == (0..text.len()))
}

/// `text` with each reference replaced by its value from `vars`, else its default,
/// and the variables that had neither (each replaced by its bare name, so that one
/// missing variable is reported once, not again as an invalid name).
pub fn substitute(text: &str, vars: &Variables) -> (String, Vec<String>) {
    let mut out = String::with_capacity(text.len());
    let mut missing = Vec::new();
    let mut last = 0;
    for (range, r) in parse(text) {
        out.push_str(&text[last..range.start]);
        match (vars.get(&r.name), &r.default) {
            (Some(v), _) => out.push_str(v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => {
                out.push_str(&r.name);
                missing.push(r.name);
            }
        }
        last = range.end;
    }
    out.push_str(&text[last..]);
    (out, missing)
}

/// Calls `f` on each shaping string of a document (see the module docs), mutably.
pub(super) fn visit_shaping(root: &mut Node, f: &mut dyn FnMut(&mut String, super::yaml::Mark)) {
    // A v1 document: its section keys under the top level are names.
    if let Y::Map(entries) = &mut root.value {
        for e in entries.iter_mut() {
            let section = e.key.clone();
            if V1_SECTIONS.contains(&section.as_str())
                && let Y::Map(resources) = &mut e.value.value
            {
                for r in resources.iter_mut() {
                    let mark = r.key_mark;
                    f(&mut r.key, mark);
                    // v1 toolsets as lists: `my_set: [a, b]`.
                    if section == "toolsets"
                        && let Y::Seq(items) = &mut r.value.value
                    {
                        for item in items.iter_mut() {
                            let m = item.mark;
                            if let Y::Str(s) = &mut item.value {
                                f(s, m);
                            }
                        }
                    }
                }
            }
        }
    }
    walk(root, None, f);
}

fn walk(node: &mut Node, key: Option<&str>, f: &mut dyn FnMut(&mut String, super::yaml::Mark)) {
    let mark = node.mark;
    match &mut node.value {
        Y::Str(s) if key.is_some_and(|k| SHAPING_KEYS.contains(&k)) => f(s, mark),
        // A toolset's members (v2 `tools: [...]`, v1 `name: [...]` / `{tools: [...]}`).
        Y::Seq(items) if key == Some("tools") => {
            for item in items.iter_mut() {
                let m = item.mark;
                if let Y::Str(s) = &mut item.value {
                    f(s, m);
                }
            }
        }
        Y::Seq(items) => {
            for item in items.iter_mut() {
                walk(item, None, f);
            }
        }
        Y::Map(entries) => {
            for e in entries.iter_mut() {
                walk(&mut e.value, Some(e.key.as_str()), f);
            }
        }
        _ => {}
    }
}

/// The names of the variables referenced in shaping fields of `files` (what the host
/// must resolve and pass to the load), sorted, each once. Files that do not parse
/// contribute none (the load reports them).
pub fn references<N: AsRef<str>, T: AsRef<str>>(files: &[(N, T)]) -> Vec<String> {
    let mut names = std::collections::BTreeSet::new();
    for (_, text) in files {
        let Ok(docs) = super::yaml::parse_stream(text.as_ref()) else { continue };
        for doc in docs {
            let Some(mut root) = doc.root else { continue };
            visit_shaping(&mut root, &mut |s, _| {
                names.extend(parse(s).into_iter().map(|(_, r)| r.name));
            });
        }
    }
    names.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse_with_defaults_and_skip_non_names() {
        let refs: Vec<Reference> = parse("a ${X} b ${Y:dflt} ${9LIVES} ${bad-name} ${} ${Z:}")
            .into_iter()
            .map(|(_, r)| r)
            .collect();
        assert_eq!(
            refs,
            [
                Reference { name: "X".into(), default: None },
                Reference { name: "Y".into(), default: Some("dflt".into()) },
                Reference { name: "9LIVES".into(), default: None },
                Reference { name: "Z".into(), default: Some(String::new()) },
            ]
        );
        assert!(is_whole_reference("${A:b}") && is_whole_reference("${1}"));
        assert!(
            !is_whole_reference("x${A}")
                && !is_whole_reference("${A}x")
                && !is_whole_reference("${a-b}")
        );
        let vars: Variables = [("X".to_string(), "x".to_string())].into();
        assert_eq!(substitute("a ${X} ${Y:d}", &vars), ("a x d".to_string(), vec![]));
        assert_eq!(substitute("n_${Q}", &vars), ("n_Q".to_string(), vec!["Q".to_string()]));
    }

    #[test]
    fn only_shaping_fields_are_referenced() {
        let text = "kind: tool\nname: search_${ENV}\ntype: http\nsource: s\ndescription: Search ${DOMAIN:docs}.\npath: /x?key=${SECRET}\nparameters:\n  - name: q\n    type: string\n    description: Query for ${DOMAIN:docs}.\n---\nkind: source\nname: s\ntype: http\nbaseUrl: ${URL}\n---\ntools:\n  v1_${ENV}_tool:\n    kind: http\n";
        assert_eq!(references(&[("t.yaml", text)]), ["DOMAIN", "ENV"]);
    }
}
