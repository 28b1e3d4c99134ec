//! YAML with source positions: a document stream parsed into [`Node`] trees that keep
//! the line and column of every value and mapping key, and JSON values emitted back as
//! YAML (for `filestore migrate`).
//!
//! Parsing goes through `saphyr` (YAML 1.2, core schema) with an event filter in front
//! of its loader that counts documents (so a syntax error names the document it is in)
//! and refuses nesting deeper than [`super::MAX_CONFIG_DEPTH`] before any tree is built:
//! every later pass over a [`Node`] recurses, and a hostile `[[[[...` must not overflow
//! the guest's stack. Anchor expansion is bounded by the loader's alias budget.

use std::borrow::Cow;

use saphyr::{MarkedYaml, Scalar, Yaml, YamlData, YamlEmitter, YamlLoader};
use saphyr_parser::{Event, Parser, Span, SpannedEventReceiver};

use super::MAX_CONFIG_DEPTH;

/// Nodes that anchor aliases may produce in one file, at most (a "billion laughs"
/// document expands a few lines into gigabytes).
const MAX_ALIAS_NODES: usize = 100_000;

/// A position in a file: 1-based line and column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    pub line: usize,
    pub column: usize,
}

impl Mark {
    fn from_marker(m: &saphyr_parser::Marker) -> Mark {
        Mark { line: m.line().max(1), column: m.col() + 1 }
    }
}

/// One YAML value with the position where it starts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub mark: Mark,
    pub value: Value,
}

/// The value of a [`Node`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<Entry>),
}

/// One `key: value` pair of a mapping, in document order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub key: String,
    pub key_mark: Mark,
    pub value: Node,
}

/// One document of a stream: its 1-based index and its root (`None` when empty).
#[derive(Debug)]
pub(crate) struct Document {
    pub index: usize,
    pub root: Option<Node>,
}

/// A parse or conversion failure, located in a document.
#[derive(Debug, PartialEq)]
pub(crate) struct YamlError {
    pub document: usize,
    pub mark: Mark,
    pub message: String,
}

impl Node {
    /// A scalar as text (YAML `name: 123` is the string "123"); `None` for null, a
    /// sequence or a mapping.
    pub fn scalar_string(&self) -> Option<String> {
        match &self.value {
            Value::Str(s) => Some(s.clone()),
            Value::Int(i) => Some(i.to_string()),
            Value::Float(f) => Some(f.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// The node's value as a JSON value (mapping order preserved).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            // Non-finite floats were refused when the node was built.
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => {
                J::Object(entries.iter().map(|e| (e.key.clone(), e.value.to_json())).collect())
            }
        }
    }

    /// The YAML type name of the value, for messages.
    pub fn type_name(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::Seq(_) => "sequence",
            Value::Map(_) => "mapping",
        }
    }
}

/// Event filter in front of the saphyr loader: counts documents, bounds nesting.
struct Receiver<'input> {
    loader: YamlLoader<'input, MarkedYaml<'input>>,
    documents: usize,
    depth: usize,
    too_deep: Option<(usize, Mark)>,
}

impl<'input> SpannedEventReceiver<'input> for Receiver<'input> {
    fn on_event(&mut self, ev: Event<'input>, span: Span) {
        if self.too_deep.is_some() {
            return;
        }
        match ev {
            Event::DocumentStart(_) => self.documents += 1,
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                self.depth += 1;
                if self.depth > MAX_CONFIG_DEPTH {
                    self.too_deep = Some((self.documents, Mark::from_marker(&span.start)));
                    return;
                }
            }
            Event::SequenceEnd | Event::MappingEnd => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        self.loader.on_event(ev, span);
    }
}

/// Parses a YAML (or JSON) stream into documents. A syntax error stops the parse and is
/// the only error returned; conversion problems (non-scalar keys, unresolvable values)
/// are all collected.
pub(crate) fn parse_stream(text: &str) -> Result<Vec<Document>, Vec<YamlError>> {
    let mut loader = YamlLoader::default();
    loader.alias_limit(MAX_ALIAS_NODES);
    let mut recv = Receiver { loader, documents: 0, depth: 0, too_deep: None };
    let mut parser = Parser::new_from_str(text);
    let parsed = parser.load(&mut recv, true);
    if let Some((document, mark)) = recv.too_deep {
        return Err(vec![YamlError {
            document: document.max(1),
            mark,
            message: format!("nesting is deeper than {MAX_CONFIG_DEPTH} levels"),
        }]);
    }
    let scan_error = parsed.err().or_else(|| recv.loader.error().cloned());
    if let Some(e) = scan_error {
        return Err(vec![YamlError {
            document: recv.documents.max(1),
            mark: Mark::from_marker(e.marker()),
            message: format!("invalid yaml: {}", e.info()),
        }]);
    }
    let mut errors = Vec::new();
    let mut documents = Vec::new();
    for (i, doc) in recv.loader.into_documents().into_iter().enumerate() {
        let index = i + 1;
        let root = match doc.data {
            // An empty document (`---` alone, or only comments), or an explicit null.
            YamlData::BadValue | YamlData::Value(Scalar::Null) => None,
            _ => convert(&doc, index, 0, &mut errors),
        };
        documents.push(Document { index, root });
    }
    if errors.is_empty() { Ok(documents) } else { Err(errors) }
}

fn convert(
    y: &MarkedYaml<'_>,
    document: usize,
    depth: usize,
    errors: &mut Vec<YamlError>,
) -> Option<Node> {
    let mark = Mark::from_marker(&y.span.start);
    let mut fail = |message: String| {
        errors.push(YamlError { document, mark, message });
        None
    };
    // Aliases may nest an anchor inside itself several times over; bound it again.
    if depth > 2 * MAX_CONFIG_DEPTH {
        return fail(format!("nesting is deeper than {MAX_CONFIG_DEPTH} levels"));
    }
    let value = match &y.data {
        YamlData::Value(s) => match scalar(s) {
            Ok(v) => v,
            Err(m) => return fail(m),
        },
        YamlData::Representation(text, ..) => Value::Str(text.to_string()),
        YamlData::Tagged(_, inner) => return convert(inner, document, depth, errors),
        YamlData::Sequence(items) => {
            let mut out = Vec::with_capacity(items.len());
            for item in items {
                out.extend(convert(item, document, depth + 1, errors));
            }
            Value::Seq(out)
        }
        YamlData::Mapping(map) => {
            let mut out = Vec::with_capacity(map.len());
            for (k, v) in map {
                let key_mark = Mark::from_marker(&k.span.start);
                let key = match key_text(k) {
                    Some(key) => key,
                    None => {
                        errors.push(YamlError {
                            document,
                            mark: key_mark,
                            message: "mapping keys must be strings".into(),
                        });
                        continue;
                    }
                };
                if let Some(value) = convert(v, document, depth + 1, errors) {
                    out.push(Entry { key, key_mark, value });
                }
            }
            Value::Map(out)
        }
        YamlData::Alias(_) => {
            return fail("unresolved alias (its anchor is not defined before it)".into());
        }
        YamlData::BadValue => {
            return fail("invalid value (a tag that does not fit the scalar?)".into());
        }
    };
    Some(Node { mark, value })
}

fn scalar(s: &Scalar<'_>) -> Result<Value, String> {
    Ok(match s {
        Scalar::Null => Value::Null,
        Scalar::Boolean(b) => Value::Bool(*b),
        Scalar::Integer(i) => Value::Int(*i),
        Scalar::FloatingPoint(f) => {
            let f = f.into_inner();
            if !f.is_finite() {
                return Err(format!("non-finite number {f} cannot be used"));
            }
            Value::Float(f)
        }
        Scalar::String(s) => Value::Str(s.to_string()),
    })
}

fn key_text(k: &MarkedYaml<'_>) -> Option<String> {
    match &k.data {
        YamlData::Value(Scalar::String(s)) => Some(s.to_string()),
        YamlData::Value(Scalar::Integer(i)) => Some(i.to_string()),
        YamlData::Value(Scalar::Boolean(b)) => Some(b.to_string()),
        YamlData::Value(Scalar::FloatingPoint(f)) => Some(f.into_inner().to_string()),
        YamlData::Representation(text, ..) => Some(text.to_string()),
        YamlData::Tagged(_, inner) => key_text(inner),
        _ => None,
    }
}

/// Emits JSON values as a YAML stream, one document each, separated by `---`.
/// Multi-line strings become literal blocks.
pub(crate) fn emit_documents(docs: &[serde_json::Value]) -> String {
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        let mut text = String::new();
        let mut emitter = YamlEmitter::new(&mut text);
        emitter.multiline(true);
        // Writing into a String cannot fail.
        let _ = emitter.dump(&to_yaml(doc));
        // The emitter opens every document with `---`; the first one does not need it.
        let body = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---")).unwrap_or(&text);
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(body.trim_start_matches(' '));
        out.push('\n');
    }
    out
}

fn to_yaml(v: &serde_json::Value) -> Yaml<'static> {
    use serde_json::Value as J;
    match v {
        J::Null => Yaml::Value(Scalar::Null),
        J::Bool(b) => Yaml::Value(Scalar::Boolean(*b)),
        J::Number(n) => match n.as_i64() {
            Some(i) => Yaml::Value(Scalar::Integer(i)),
            None => Yaml::Value(Scalar::FloatingPoint(n.as_f64().unwrap_or(0.0).into())),
        },
        J::String(s) => Yaml::Value(Scalar::String(Cow::Owned(s.clone()))),
        J::Array(items) => Yaml::Sequence(items.iter().map(to_yaml).collect()),
        J::Object(map) => {
            let mut m = saphyr::Mapping::new();
            for (k, v) in map {
                m.insert(Yaml::Value(Scalar::String(Cow::Owned(k.clone()))), to_yaml(v));
            }
            Yaml::Mapping(m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_documents_counted() {
        let docs =
            parse_stream("kind: tools\nname: a\n---\nkind: tools\n  # c\nname: b\n").unwrap();
        assert_eq!(docs.len(), 2);
        let Value::Map(entries) = &docs[1].root.as_ref().unwrap().value else { panic!() };
        assert_eq!(entries[1].key, "name");
        assert_eq!(entries[1].key_mark, Mark { line: 6, column: 1 });
        assert_eq!(entries[1].value.mark, Mark { line: 6, column: 7 });
    }

    #[test]
    fn syntax_error_names_document() {
        let err = parse_stream("a: 1\n---\nb: 2\n---\nc: [1,\n").unwrap_err();
        assert_eq!(err[0].document, 3);
        assert!(err[0].message.starts_with("invalid yaml"), "{}", err[0].message);
    }

    #[test]
    fn duplicate_keys_and_deep_nesting_are_errors() {
        let err = parse_stream("a: 1\na: 2\n").unwrap_err();
        assert!(err[0].message.contains("duplicated key"), "{}", err[0].message);
        assert_eq!(err[0].mark.line, 2);
        let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
        let err = parse_stream(&deep).unwrap_err();
        assert!(err[0].message.contains("nesting"), "{}", err[0].message);
        // Far deeper, the parser's own recursion limit answers first.
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse_stream(&deep).is_err());
    }

    #[test]
    fn alias_bomb_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let prev = format!("*a{}", i - 1);
            text.push_str(&format!("a{i}: &a{i} [{}]\n", [prev.as_str(); 10].join(", ")));
        }
        assert!(parse_stream(&text).is_err());
    }

    #[test]
    fn json_is_yaml() {
        let docs = parse_stream("{\"kind\": \"tools\", \"n\": [1, 2.5, true, null]}").unwrap();
        assert_eq!(
            docs[0].root.as_ref().unwrap().to_json(),
            serde_json::json!({"kind": "tools", "n": [1, 2.5, true, null]})
        );
    }

    #[test]
    fn emitted_yaml_reparses_to_the_same_values() {
        let docs = vec![
            serde_json::json!({"kind": "tools", "statement": "SELECT 1\nFROM t;\n", "n": "123",
                "b": "true", "list": [{"name": "a", "x": 1.5}], "empty": [], "e": {}, "q": "a: b"}),
            serde_json::json!({"kind": "toolsets", "tools": ["a", "b"]}),
        ];
        let text = emit_documents(&docs);
        let back: Vec<_> =
            parse_stream(&text).unwrap().into_iter().map(|d| d.root.unwrap().to_json()).collect();
        assert_eq!(back, docs, "{text}");
        assert!(!text.starts_with("---"), "{text}");
    }
}
