//! Tool manifests: what a client sees of a tool — name, description, a JSON Schema of
//! its input and behaviour annotations (docs/architecture.md#manifests).
//!
//! The input schema is derived from the declared parameters of every role: `float`
//! becomes `number`, `map` an `object` with `additionalProperties` (the value type's
//! schema, or `true`), `array` carries `items`, literal `allowedValues` become an
//! `enum`, defaults and `minValue`/`maxValue` are included. Auth parameters are left
//! out: their values come from verified tokens, never from the caller. Parameters that
//! are required and have no default are listed in `required`; undeclared properties
//! are refused (`additionalProperties: false`), as validation refuses them.
//!
//! ```
//! use filestore_guest::tools::config::Config;
//! use filestore_guest::tools::manifest;
//! let cfg = Config::load(&[("t.yaml", "kind: tool\nname: t\ntype: http\nsource: s\nmethod: GET\npath: /\n\
//!     description: d\nqueryParams:\n  - {name: ratio, type: float, default: 0.5, description: r}\n---\n\
//!     kind: source\nname: s\ntype: http\nbaseUrl: https://example.com\n")]).unwrap();
//! let spec = manifest::spec(cfg.tool("t").unwrap());
//! assert_eq!(spec.input_schema["properties"]["ratio"]["type"], "number");
//! assert_eq!(spec.input_schema["properties"]["ratio"]["default"], 0.5);
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::Result;
use crate::tools::config::{Config, ToolConfig};
use crate::tools::params::{ParamType, Parameter};

pub use crate::tools::config::ToolAnnotations;

/// A tool as a client sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    /// The tool's name (what the model calls).
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the argument object.
    pub input_schema: Value,
    /// Behaviour hints.
    #[serde(default)]
    pub annotations: ToolAnnotations,
    /// JSON Schema of a successful call's structured result (MCP `outputSchema`):
    /// the result envelope, its `data` as the tool's `outputSchema` or the skill's
    /// `outputs` declare (see [`envelope_schema`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

impl ToolSpec {
    /// Reads a spec from its JSON form (`{name, description, inputSchema,
    /// annotations?}`, the MCP `tools/list` shape; e.g. a built-in tool's spec).
    pub fn from_json(value: &Value) -> Result<ToolSpec> {
        serde_json::from_value(value.clone()).map_err(|e| {
            crate::error::Error::new(
                crate::error::ErrorKind::InvalidArgument,
                format!("invalid tool spec: {e}"),
            )
        })
    }

    /// The spec as JSON (`{name, description, inputSchema, annotations}`).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The spec of a configured tool.
pub fn spec(tool: &ToolConfig) -> ToolSpec {
    ToolSpec {
        name: tool.name.clone(),
        description: tool.description.clone(),
        input_schema: input_schema(&tool.parameters),
        annotations: tool.annotations.clone(),
        output_schema: tool.output_schema.as_ref().map(envelope_schema),
    }
}

/// The structured result of a configured tool or skill whose result data follows
/// `data`: the envelope a completed call answers with (`success`, `data`,
/// `result_path`; or, when the result was too large for the model, `offloaded`,
/// `result_path`, `tokens` and `preview` without `data`; `requires_approval` and
/// `follow_up` when the result asked for approval of a follow-up). MCP needs an
/// object at the top, and a large result is offloaded, so `data` cannot be the
/// whole answer nor required.
pub fn envelope_schema(data: &Value) -> Value {
    json!({
        "type": "object",
        "properties": {
            "success": {"type": "boolean"},
            "data": data,
            "result_path": {"type": "string"},
            "offloaded": {"type": "boolean"},
            "tokens": {"type": "integer"},
            "preview": {"type": "string"},
            "storage_error": {"type": "string"},
            "requires_approval": {"type": "boolean"},
            "follow_up": {"type": "string"}
        },
        "required": ["success"]
    })
}

/// The specs of a toolset's tools, in the toolset's order; `None` or `""` selects every
/// tool in configuration order. An unknown toolset is `not-found`.
pub fn specs(config: &Config, toolset: Option<&str>) -> Result<Vec<ToolSpec>> {
    Ok(config.toolset(toolset.unwrap_or(""))?.into_iter().map(spec).collect())
}

/// The JSON Schema of an argument object with these parameters.
pub fn input_schema(params: &[Parameter]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for p in params.iter().filter(|p| !p.is_auth() && p.value_from_param.is_none()) {
        properties.insert(p.name.clone(), parameter_schema(p));
        if p.is_required() {
            required.push(Value::String(p.name.clone()));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    Value::Object(schema)
}

/// The JSON Schema of one parameter's values.
pub fn parameter_schema(p: &Parameter) -> Value {
    let mut s = Map::new();
    s.insert("type".into(), json!(p.param_type.json_schema_type()));
    if !p.description.is_empty() {
        s.insert("description".into(), json!(p.description));
    }
    match p.param_type {
        ParamType::Array => {
            let items = p.items.as_deref().map_or_else(|| json!({}), parameter_schema);
            s.insert("items".into(), items);
        }
        ParamType::Map => {
            let values =
                p.value_type.map_or(json!(true), |t| json!({"type": t.json_schema_type()}));
            s.insert("additionalProperties".into(), values);
        }
        _ => {}
    }
    if let Some(values) = literal_enum(p) {
        s.insert("enum".into(), Value::Array(values));
    }
    if let Some(d) = &p.default {
        s.insert("default".into(), d.clone());
    }
    if let Some(n) = &p.min_value {
        s.insert("minimum".into(), Value::Number(n.clone()));
    }
    if let Some(n) = &p.max_value {
        s.insert("maximum".into(), Value::Number(n.clone()));
    }
    Value::Object(s)
}

/// The allowed values as an `enum`, when every entry is a literal of the parameter's type.
fn literal_enum(p: &Parameter) -> Option<Vec<Value>> {
    if p.allowed_values.is_empty() {
        return None;
    }
    let values: Option<Vec<Value>> = p.allowed_values.iter().map(|m| m.literal()).collect();
    let values = values?;
    let fits = |v: &Value| match (p.param_type, v) {
        (ParamType::String, Value::String(_)) | (ParamType::Boolean, Value::Bool(_)) => true,
        (ParamType::Integer, Value::Number(n)) => n.is_i64(),
        (ParamType::Float, Value::Number(_)) => true,
        (ParamType::Array, Value::Array(_)) | (ParamType::Map, Value::Object(_)) => true,
        _ => false,
    };
    values.iter().all(fits).then_some(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::params::{Escape, ParamRole};
    use serde_json::json;

    fn p(name: &str, t: ParamType) -> Parameter {
        Parameter::new(name, t)
    }

    #[test]
    fn schema_of_every_type() {
        let params = vec![
            p("s", ParamType::String).description("a string").allowed([json!("a"), json!("b")]),
            p("re", ParamType::String).allowed([json!("^a.*$")]),
            p("i", ParamType::Integer).min(1).max(10).default_value(json!(5)),
            p("f", ParamType::Float).optional(),
            p("b", ParamType::Boolean).allowed([json!(true)]),
            p("arr", ParamType::Array).items(p("x", ParamType::String).escape(Escape::Backticks)),
            p("m", ParamType::Map).value_type(ParamType::Integer),
            p("g", ParamType::Map).role(ParamRole::Template),
            p("user", ParamType::String).auth("google", "sub"),
        ];
        let schema = input_schema(&params);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "s": {"type": "string", "description": "a string", "enum": ["a", "b"]},
                    "re": {"type": "string"},
                    "i": {"type": "integer", "default": 5, "minimum": 1, "maximum": 10},
                    "f": {"type": "number"},
                    "b": {"type": "boolean", "enum": [true]},
                    "arr": {"type": "array", "items": {"type": "string"}},
                    "m": {"type": "object", "additionalProperties": {"type": "integer"}},
                    "g": {"type": "object", "additionalProperties": true},
                },
                "required": ["s", "re", "b", "arr", "m", "g"],
                "additionalProperties": false,
            })
        );
        // Property order follows declaration order.
        let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["s", "re", "i", "f", "b", "arr", "m", "g"]);
    }

    #[test]
    fn specs_read_back_from_json() {
        let v = json!({"name": "filestore_read", "description": "Read a file.",
            "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true, "openWorldHint": false}});
        let spec = ToolSpec::from_json(&v).unwrap();
        assert_eq!(spec.annotations.read_only, Some(true));
        assert_eq!(spec.annotations.open_world, Some(false));
        assert_eq!(spec.to_json(), v);
        assert!(ToolSpec::from_json(&json!({"name": "x"})).is_err());
    }

    #[test]
    fn enum_only_when_literals_fit_the_type() {
        // A string pattern on an integer parameter is not an enum.
        let s = parameter_schema(&p("n", ParamType::Integer).allowed([json!("10")]));
        assert!(s.get("enum").is_none());
        let s = parameter_schema(&p("n", ParamType::Integer).allowed([json!(1), json!(2)]));
        assert_eq!(s["enum"], json!([1, 2]));
    }

    #[test]
    fn annotations_serialise_as_mcp_hints() {
        let a = ToolAnnotations {
            read_only: Some(true),
            requires_approval: true,
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            json!({"readOnlyHint": true, "requiresApproval": true})
        );
        assert!(!a.is_destructive());
        assert!(ToolAnnotations::default().is_destructive());
        let spec = ToolSpec {
            name: "t".into(),
            description: "d".into(),
            input_schema: input_schema(&[]),
            annotations: ToolAnnotations::default(),
            output_schema: None,
        };
        assert_eq!(
            spec.to_json(),
            json!({"name": "t", "description": "d",
                "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
                "annotations": {}})
        );
    }
}
