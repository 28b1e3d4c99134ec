//! Argument validation against a JSON Schema: the input schema a provider describes
//! its action with (for provider `mcp`, the upstream tool's `inputSchema`), checked
//! inside the component before any call reaches the host, as configured tools'
//! parameters are.
//!
//! Validation is the `boon` crate's (drafts 4 to 2020-12; the schema's `$schema` picks
//! the draft, 2020-12 when absent; the schema itself is checked against its draft's
//! meta-schema), with choices made for the sandbox:
//! - `pattern` and `patternProperties` run on the `regex` crate (linear time), not a
//!   backtracking engine: a provider's schema and a model's argument together must not
//!   be able to spin the guest (ReDoS). A pattern that needs look-around or
//!   back-references (common: zod's `email`, `hostname`, `emoji` formats) is not
//!   checked here — it is left out of the compiled schema and said in
//!   [`ArgsSchema::relaxed`] — so the tool stays usable and the provider, which has the
//!   engine its pattern was written for, checks it.
//! - nothing is fetched: a `$ref` to another document is a compile error naming it
//!   (the component has no network, and a schema must describe itself).
//! - no clocks, threads or locks: `boon` was chosen over `jsonschema`, whose
//!   `referencing` → `parking_lot` reads the monotonic clock and so made the component
//!   import `wasi:clocks` (the isolation test forbids it).
//!
//! A schema is bounded before it is compiled ([`MAX_SCHEMA_BYTES`],
//! [`MAX_SCHEMA_DEPTH`]): it comes from outside the sandbox, and compiling recurses.
//!
//! ```
//! use filestore_guest::tools::schema::ArgsSchema;
//! use serde_json::json;
//! let s = ArgsSchema::compile(&json!({"type": "object",
//!     "properties": {"path": {"type": "string"}}, "required": ["path"]})).unwrap();
//! assert!(s.validate("read", &json!({"path": "/a"})).is_ok());
//! let e = s.validate("read", &json!({"path": 5})).unwrap_err();
//! assert_eq!(e.message(),
//!     "arguments of 'read' do not match its input schema: at /path: want string, but got number");
//! ```

use serde_json::Value;

use crate::error::{Error, ErrorKind, Result};

/// Largest input schema compiled, in bytes of its JSON text. Bounds the work a
/// provider's catalog can make every session do at resolution.
pub const MAX_SCHEMA_BYTES: usize = 256 * 1024;

/// Deepest nesting of objects and arrays in an input schema. Compiling and validating
/// recurse over the schema; a hostile `{"items": {"items": ...}}` must not exhaust the
/// guest's stack.
pub const MAX_SCHEMA_DEPTH: usize = 48;

/// Validation errors named in one message; more are counted, not listed.
pub const MAX_REPORTED_ERRORS: usize = 3;

/// Where the schema being compiled is said to live. Only a base for its own
/// `#...` references: a `$ref` elsewhere is refused by [`NoFetch`].
const SCHEMA_URL: &str = "urn:filestore:input-schema";

/// A compiled input schema.
pub struct ArgsSchema {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
    /// What the compiled schema leaves unchecked, one note per pattern, with where it
    /// is (`/properties/email/pattern`).
    pub relaxed: Vec<String>,
}

/// The URL loader of every compile: refuses each document a schema refers to (the
/// default loader would read `file:` URLs natively).
struct NoFetch;

impl boon::UrlLoader for NoFetch {
    fn load(&self, url: &str) -> std::result::Result<Value, Box<dyn std::error::Error>> {
        Err(format!("{url} is another document; an input schema must not refer outside itself")
            .into())
    }
}

impl std::fmt::Debug for ArgsSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ArgsSchema")
    }
}

impl ArgsSchema {
    /// Compiles `schema`. The error says why it cannot be used (too large, too deep,
    /// not an object, or what the compiler refused).
    pub fn compile(schema: &Value) -> std::result::Result<ArgsSchema, String> {
        if !schema.is_object() {
            return Err(format!("an input schema must be a JSON object, got {}", kind(schema)));
        }
        let depth = depth(schema);
        if depth > MAX_SCHEMA_DEPTH {
            return Err(format!("it nests {depth} levels deep; the limit is {MAX_SCHEMA_DEPTH}"));
        }
        let size = schema.to_string().len();
        if size > MAX_SCHEMA_BYTES {
            return Err(format!("it is {size} bytes; the limit is {MAX_SCHEMA_BYTES}"));
        }
        let mut schema = schema.clone();
        let mut relaxed = Vec::new();
        relax_patterns(&mut schema, &mut String::new(), &mut relaxed);
        let (schemas, index) = compile(schema)?;
        Ok(ArgsSchema { schemas, index, relaxed })
    }

    /// Checks `args` (the call's arguments) against the schema: `invalid-argument`
    /// naming the tool and, for each violation (at most [`MAX_REPORTED_ERRORS`]), where
    /// in the arguments it is and what is wrong.
    pub fn validate(&self, tool: &str, args: &Value) -> Result<()> {
        match self.violations(args) {
            None => Ok(()),
            Some(v) => Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("arguments of '{tool}' do not match its input schema: {v}"),
            )),
        }
    }

    /// Checks a tool's result `data` against the schema as an *output* schema (a
    /// configured tool's `outputSchema`, a skill descriptor's `outputs`): `backend`
    /// (the tool broke its declared contract, not the caller), naming the tool and
    /// where in the result each violation is.
    pub fn validate_output(&self, tool: &str, data: &Value) -> Result<()> {
        match self.violations(data) {
            None => Ok(()),
            Some(v) => Err(Error::new(
                ErrorKind::Backend,
                format!("the result of '{tool}' does not match its output schema: {v}"),
            )),
        }
    }

    /// The violations of `value`, at most [`MAX_REPORTED_ERRORS`] named, each with
    /// its place; `None` when it conforms.
    fn violations(&self, value: &Value) -> Option<String> {
        let error = self.schemas.validate(value, self.index).err()?;
        // The error is a tree (`allOf`, `properties`, references...); its leaves are
        // the violations a caller can act on. Depth-first, in the schema's order.
        let mut shown = Vec::new();
        let mut more = 0usize;
        let mut stack = vec![&error];
        while let Some(e) = stack.pop() {
            if !e.causes.is_empty() {
                stack.extend(e.causes.iter().rev());
                continue;
            }
            if shown.len() < MAX_REPORTED_ERRORS {
                let at = e.instance_location.to_string();
                let at = if at.is_empty() { "the top level".to_string() } else { at };
                shown.push(format!("at {at}: {}", e.kind));
            } else {
                more += 1;
            }
        }
        let mut message = shown.join("; ");
        if more > 0 {
            message.push_str(&format!(" (and {more} more)"));
        }
        Some(message)
    }
}

fn compile(schema: Value) -> std::result::Result<(boon::Schemas, boon::SchemaIndex), String> {
    let mut compiler = boon::Compiler::new();
    compiler.use_loader(Box::new(NoFetch));
    compiler.set_default_draft(boon::Draft::V2020_12);
    let mut schemas = boon::Schemas::new();
    compiler.add_resource(SCHEMA_URL, schema).map_err(|e| compile_error(&e))?;
    let index = compiler.compile(SCHEMA_URL, &mut schemas).map_err(|e| compile_error(&e))?;
    Ok((schemas, index))
}

/// Whether the validator can run `pattern` (its ECMA-to-`regex` translation, then
/// `regex`): compiled alone, exactly as it would be in the schema.
fn pattern_runs(pattern: &str) -> bool {
    compile(serde_json::json!({"pattern": pattern})).is_ok()
}

/// Removes, from the schema positions of `schema`, every `pattern` and
/// `patternProperties` entry the validator cannot run, noting each with its JSON
/// pointer. Data keywords (`const`, `enum`, `default`, `examples`) are not entered:
/// what looks like a pattern there is a value.
fn relax_patterns(schema: &mut Value, at: &mut String, notes: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(p)) = map.get("pattern")
                && !pattern_runs(p)
            {
                notes.push(format!(
                    "{at}/pattern '{}' is not checked here (it needs look-around or back-references); the provider checks it",
                    clip(p)
                ));
                map.remove("pattern");
            }
            if let Some(Value::Object(props)) = map.get_mut("patternProperties") {
                let bad: Vec<String> = props.keys().filter(|k| !pattern_runs(k)).cloned().collect();
                for k in bad {
                    notes.push(format!(
                        "{at}/patternProperties '{}' is not checked here (it needs look-around or back-references); the provider checks it",
                        clip(&k)
                    ));
                    props.remove(&k);
                }
            }
            for (k, v) in map.iter_mut() {
                if matches!(k.as_str(), "const" | "enum" | "default" | "examples") {
                    continue;
                }
                let len = at.len();
                at.push('/');
                at.push_str(&k.replace('~', "~0").replace('/', "~1"));
                relax_patterns(v, at, notes);
                at.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter_mut().enumerate() {
                let len = at.len();
                at.push_str(&format!("/{i}"));
                relax_patterns(v, at, notes);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

fn clip(p: &str) -> String {
    match p.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &p[..cut]),
        None => p.to_string(),
    }
}

/// The compile error on one line (it becomes part of a located message), without
/// the internal URL the schema was given.
fn compile_error(e: &boon::CompileError) -> String {
    let text = format!("{e:#}");
    let text = text.replace(&format!("{SCHEMA_URL}#"), "#").replace(SCHEMA_URL, "the schema");
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.trim().trim_start_matches("- ").trim())
        .filter(|l| !l.is_empty() && !l.starts_with('^'))
        .collect();
    lines.join("; ")
}

fn depth(v: &Value) -> usize {
    // Iterative: the value itself may be deep (serde_json allows 128 levels).
    let mut max = 0;
    let mut stack = vec![(v, 1usize)];
    while let Some((v, d)) = stack.pop() {
        max = max.max(d);
        match v {
            Value::Object(m) => stack.extend(m.values().map(|c| (c, d + 1))),
            Value::Array(a) => stack.extend(a.iter().map(|c| (c, d + 1))),
            _ => {}
        }
    }
    max
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reports_where_and_what() {
        let s = ArgsSchema::compile(&json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer", "minimum": 1},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["a"],
            "additionalProperties": false,
        }))
        .unwrap();
        assert!(s.validate("t", &json!({"a": 2, "tags": ["x"]})).is_ok());
        let m = s.validate("t", &json!({"tags": ["x", 3]})).unwrap_err();
        assert_eq!(m.kind(), ErrorKind::InvalidArgument);
        assert!(m.message().contains("at /tags/1: want string, but got number"), "{}", m.message());
        assert!(
            m.message().contains("at the top level: missing properties 'a'"),
            "{}",
            m.message()
        );
        let m = s.validate("t", &json!({"a": 0, "b": 1})).unwrap_err();
        assert!(m.message().contains("at /a: must be >=1, but got 0"), "{}", m.message());
        assert!(m.message().contains("at the top level"), "{}", m.message());
    }

    #[test]
    fn counts_what_it_does_not_list() {
        let s = ArgsSchema::compile(
            &json!({"type": "object", "additionalProperties": {"type": "string"}}),
        )
        .unwrap();
        let m = s.validate("t", &json!({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5})).unwrap_err();
        assert!(m.message().ends_with("(and 2 more)"), "{}", m.message());
    }

    #[test]
    fn refuses_unusable_schemas() {
        assert!(ArgsSchema::compile(&json!("x")).unwrap_err().contains("must be a JSON object"));
        let mut deep = json!({"type": "string"});
        for _ in 0..MAX_SCHEMA_DEPTH {
            deep = json!({"items": deep});
        }
        assert!(ArgsSchema::compile(&deep).unwrap_err().contains("levels deep"));
        let big = json!({"description": "x".repeat(MAX_SCHEMA_BYTES)});
        assert!(ArgsSchema::compile(&big).unwrap_err().contains("bytes"));
        // A reference to another document is not fetched, whatever its scheme.
        for url in ["https://example.com/s.json", "file:///etc/passwd"] {
            let e = ArgsSchema::compile(&json!({"properties": {"a": {"$ref": url}}})).unwrap_err();
            assert!(e.contains(url) && e.contains("must not refer outside itself"), "{e}");
        }
        // A compile error is one line.
        let e = ArgsSchema::compile(&json!({"type": "string", "minLength": "x"})).unwrap_err();
        assert!(e.contains("minLength") && !e.contains('\n'), "{e}");
        // The schema is checked against its meta-schema, and the error says where.
        let e = ArgsSchema::compile(&json!({"type": 5})).unwrap_err();
        assert!(e.contains("at '/type'") && !e.contains("urn:"), "{e}");
    }

    #[test]
    fn patterns_the_linear_engine_cannot_run_are_left_to_the_provider() {
        // zod's hostname pattern (look-ahead), a back-reference, and a pattern-like
        // value inside `const`, which is data and stays.
        let s = ArgsSchema::compile(&json!({"type": "object",
            "properties": {
                "host": {"type": "string", "pattern": "^(?=.{1,253}\\.?$)[a-z0-9.-]+$", "maxLength": 5},
                "twice": {"type": "string", "pattern": "(a)\\1"},
                "digits": {"type": "string", "pattern": "^\\d+$"},
                "c": {"const": {"pattern": "(?=x)"}},
            },
            "patternProperties": {"^(?!x)": {"type": "integer"}}}))
        .unwrap();
        assert_eq!(s.relaxed.len(), 3, "{:?}", s.relaxed);
        assert!(s.relaxed[0].starts_with("/patternProperties '^(?!x)' is not checked here"));
        assert!(s.relaxed.iter().any(|n| n.starts_with("/properties/host/pattern '^(?=")));
        assert!(s.relaxed.iter().any(|n| n.starts_with("/properties/twice/pattern")));
        // What the engine can run is still checked, and so is the rest of the schema.
        assert!(s.validate("t", &json!({"digits": "12", "host": "a.io"})).is_ok());
        assert!(s.validate("t", &json!({"digits": "1x"})).is_err());
        assert!(s.validate("t", &json!({"host": "toolong"})).is_err());
        assert!(s.validate("t", &json!({"c": {"pattern": "(?=x)"}})).is_ok());
        assert!(s.validate("t", &json!({"c": {"pattern": "other"}})).is_err());
    }

    #[test]
    fn patterns_run_in_linear_time() {
        // (a+)+$ against a long run of a's and a final b is the classic ReDoS.
        let s = ArgsSchema::compile(&json!({"type": "object",
            "properties": {"x": {"type": "string", "pattern": "^(a+)+$"}}}))
        .unwrap();
        let hostile = format!("{}b", "a".repeat(50_000));
        assert!(s.validate("t", &json!({"x": hostile})).is_err());
    }
}
