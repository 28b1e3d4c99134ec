//! Skill descriptors: a skill that is also a tool
//! (docs/skills.md#skill-descriptors-a-skill-that-is-also-a-tool).
//!
//! A plain skill is instructions plus the tools it lists in `allowed-tools`. A skill
//! with a *descriptor* can also be called: once its `SKILL.md` has been read, the
//! session offers a tool named after the skill, with the skill's description, typed
//! inputs and approval rule, which runs a configured tool. This is the filestore form
//! of the skill executor descriptors of agent platforms (`inputs`,
//! `requires_approval`): the descriptor is the contract, and invocation goes through
//! the same validation, approval and result storage as a configured tool.
//!
//! A descriptor is declared in one of two places, never both:
//!
//! - the sidecar `descriptor.yaml` beside `SKILL.md`:
//!
//!   ```yaml
//!   tool: delete_orders          # the configured tool that runs the skill (required)
//!   requiresApproval: true       # optional, default false
//!   inputs:                      # optional; the `parameters` format of a tool
//!     - {name: customer, type: string, description: Whose orders}
//!     - {name: limit, type: integer, default: 10, maxValue: 100}
//!   arguments: {status: open}    # optional fixed arguments the model cannot change
//!   ```
//!
//! - or the `metadata` of the frontmatter, whose values are strings per the Agent
//!   Skills spec, under keys prefixed `filestore.`: `filestore.tool`,
//!   `filestore.requiresApproval` (`"true"`/`"false"`), `filestore.inputs` and
//!   `filestore.arguments` (YAML or JSON text of the list / mapping).
//!
//! Rules, checked when the skill is loaded (an invalid descriptor makes the skill
//! invalid, with every reason): `tool` names a tool; `inputs` follow the tool
//! `parameters` rules (types, defaults, allowed values, bounds, unique names) without
//! `authServices`; `arguments` is a mapping whose keys are not inputs. When the skill
//! is read, the session also checks what needs the configuration: the tool exists,
//! every input and fixed argument is one of its non-auth parameters, and the skill's
//! name is not already a tool. A failed check is reported in the activation and the
//! skill is not callable; its `allowed-tools` still activate.
//!
//! Calling the skill validates the arguments against `inputs` (so the model sees the
//! skill's schema, not the tool's), adds the fixed `arguments`, and validates the
//! result against the tool's own parameters. The call needs approval when the
//! descriptor or the tool says so.

use serde_json::{Map, Value};

use crate::skills::skill::Skill;
use crate::tools::config::yaml::{self, Node, Value as Y};
use crate::tools::config::{Config, ConfigError, ToolConfig};
use crate::tools::manifest::ToolAnnotations;
use crate::tools::params::{ParamRole, Parameter};

/// The sidecar file beside `SKILL.md` that holds a descriptor.
pub const DESCRIPTOR_FILE: &str = "descriptor.yaml";
/// Prefix of the `metadata` keys that hold a descriptor.
pub const METADATA_PREFIX: &str = "filestore.";
/// Largest sidecar accepted (bytes).
pub const MAX_DESCRIPTOR_BYTES: usize = 64 * 1024;

/// The fields a descriptor may have (sidecar keys; metadata keys add the prefix).
const FIELDS: [&str; 9] = [
    "tool",
    "requiresApproval",
    "inputs",
    "arguments",
    "outputs",
    "category",
    "tags",
    "invocationMode",
    "followUp",
];

/// The values of `invocationMode`: a skill called on its own, or one step of a
/// workflow that an orchestrator drives (the skill-executor guide's two modes).
pub const INVOCATION_MODES: [&str; 2] = ["one_shot", "workflow_step"];

/// Most `tags` of one skill, and longest tag or category, in characters.
pub const MAX_TAGS: usize = 16;
/// Longest tag or category, in characters.
pub const MAX_TAG_CHARS: usize = 64;

/// A skill's descriptor: how calling the skill runs a configured tool.
#[derive(Clone, Debug)]
pub struct Descriptor {
    /// The configured tool that runs the skill.
    pub tool: String,
    /// Every call waits for the host's approval.
    pub requires_approval: bool,
    /// The typed inputs the model passes (a tool's `parameters` format).
    pub inputs: Vec<Parameter>,
    /// Fixed arguments added to every call; the model cannot set them.
    pub arguments: Map<String, Value>,
    /// Where it was declared (the sidecar path, or `SKILL.md metadata`), for messages.
    pub origin: String,
    /// Where `tool` is written (`descriptor.yaml: line 1`, or the metadata key), so
    /// a tool that does not exist is reported where it is named.
    pub tool_at: String,
    /// JSON Schema of the result's data (`outputs`): every result is checked against
    /// it, and it is the skill's MCP `outputSchema` (around the result envelope).
    pub outputs: Option<Value>,
    /// Catalog metadata: the skill's subdomain (`category`), free `tags`, and
    /// `invocationMode` ([`INVOCATION_MODES`]); shown in the skills prompt block and
    /// used to filter it.
    pub catalog: Catalog,
    /// The tool whose next call waits for approval when a result of this skill says
    /// `requires_approval: true` (`followUp`), and where it is named.
    pub follow_up: Option<(String, String)>,
}

/// A skill's catalog metadata (descriptor `category`, `tags`, `invocationMode`).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Catalog {
    /// The skill's subdomain (`fleet`, `security`...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Free-form tags.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// `one_shot` or `workflow_step`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invocation_mode: Option<String>,
}

impl Descriptor {
    /// A descriptor with no fields set yet, declared at `origin`.
    fn empty(origin: &str) -> Descriptor {
        Descriptor {
            tool: String::new(),
            requires_approval: false,
            inputs: Vec::new(),
            arguments: Map::new(),
            origin: origin.to_string(),
            tool_at: origin.to_string(),
            outputs: None,
            catalog: Catalog::default(),
            follow_up: None,
        }
    }
}

/// A skill the session can call: its descriptor, and the tool spec the model sees.
#[derive(Clone, Debug)]
pub struct SkillTool {
    /// The descriptor.
    pub descriptor: Descriptor,
    /// The tool as listed and validated: the skill's name and description, the
    /// descriptor's inputs and approval rule (type and source are the target's).
    pub spec: ToolConfig,
}

/// Reads the descriptor of `skill`, if it declares one, from its metadata or from the
/// sidecar (`(path, text)` of `descriptor.yaml`, when the folder has one). Errors list
/// every reason, each located.
pub fn load(
    skill: &Skill,
    sidecar: Option<(&str, &str)>,
) -> Result<Option<Descriptor>, Vec<String>> {
    let in_metadata = skill.metadata.keys().any(|k| k.starts_with(METADATA_PREFIX));
    match sidecar {
        Some((path, _)) if in_metadata => Err(vec![format!(
            "a descriptor is declared both in {path} and in the metadata ({METADATA_PREFIX}*); keep one"
        )]),
        Some((path, text)) => from_sidecar(path, text).map(Some),
        None if in_metadata => from_metadata(skill).map(Some),
        None => Ok(None),
    }
}

/// Parses a sidecar `descriptor.yaml` at `path`.
pub fn from_sidecar(path: &str, text: &str) -> Result<Descriptor, Vec<String>> {
    if text.len() > MAX_DESCRIPTOR_BYTES {
        return Err(vec![format!(
            "{path}: {} bytes; the limit is {MAX_DESCRIPTOR_BYTES}",
            text.len()
        )]);
    }
    let docs = yaml::parse_stream(text).map_err(|errs| {
        errs.into_iter()
            .map(|e| format!("{path}: line {}: {}", e.mark.line, e.message))
            .collect::<Vec<_>>()
    })?;
    if docs.len() > 1 {
        return Err(vec![format!(
            "{path}: holds {} YAML documents; a descriptor is one",
            docs.len()
        )]);
    }
    let Some(Node { value: Y::Map(entries), .. }) = docs.into_iter().next().and_then(|d| d.root)
    else {
        return Err(vec![format!(
            "{path}: a descriptor must be a YAML mapping with at least `tool`"
        )]);
    };
    let mut reasons = Vec::new();
    let mut d = Descriptor::empty(path);
    let mut tool_seen = false;
    for e in &entries {
        let at = format!("{path}: line {}", e.value.mark.line);
        match e.key.as_str() {
            "tool" => {
                tool_seen = true;
                d.tool_at = at.clone();
                match &e.value.value {
                    Y::Str(s) => d.tool = s.clone(),
                    _ => reasons.push(format!("{at}: tool must be a tool name")),
                }
            }
            "requiresApproval" => match e.value.value {
                Y::Bool(b) => d.requires_approval = b,
                _ => reasons.push(format!("{at}: requiresApproval must be true or false")),
            },
            "inputs" => match Config::parse_parameters(path, &e.value, "inputs") {
                Ok(p) => d.inputs = p,
                Err(errs) => reasons.extend(errs.iter().map(|c| located(path, c))),
            },
            "arguments" => match e.value.to_json() {
                Value::Object(m) => d.arguments = m,
                _ => reasons
                    .push(format!("{at}: arguments must be a mapping of argument names to values")),
            },
            field @ ("outputs" | "category" | "tags" | "invocationMode" | "followUp") => {
                if let Err(why) = set_extra(&mut d, field, e.value.to_json(), &at) {
                    reasons.push(format!("{at}: {why}"));
                }
            }
            other => reasons.push(format!(
                "{path}: line {}: unknown field '{other}'; allowed: {}",
                e.key_mark.line,
                FIELDS.join(", ")
            )),
        }
    }
    if !tool_seen {
        reasons
            .push(format!("{path}: `tool` is required (the configured tool that runs the skill)"));
    }
    check(&mut d, &mut reasons, path);
    if reasons.is_empty() { Ok(d) } else { Err(reasons) }
}

/// Parses a descriptor from `skill.metadata` (`filestore.*` keys).
pub fn from_metadata(skill: &Skill) -> Result<Descriptor, Vec<String>> {
    let origin = format!("{} metadata", skill.path);
    let mut reasons = Vec::new();
    let mut d = Descriptor::empty(&origin);
    let mut tool_seen = false;
    for (key, value) in &skill.metadata {
        let Some(field) = key.strip_prefix(METADATA_PREFIX) else { continue };
        let at = format!("{origin} '{key}'");
        match field {
            "tool" => {
                tool_seen = true;
                d.tool = value.clone();
                d.tool_at = at.clone();
            }
            "requiresApproval" => match value.as_str() {
                "true" => d.requires_approval = true,
                "false" => d.requires_approval = false,
                v => reasons.push(format!("{at}: must be \"true\" or \"false\", not \"{v}\"")),
            },
            "category" | "invocationMode" | "followUp" => {
                if let Err(why) = set_extra(&mut d, field, Value::String(value.clone()), &at) {
                    reasons.push(format!("{at}: {why}"));
                }
            }
            "inputs" | "arguments" | "outputs" | "tags" => {
                let file = format!("{origin} '{key}' (value)");
                let node = match yaml::parse_stream(value) {
                    Err(errs) => {
                        reasons.extend(
                            errs.iter()
                                .map(|e| format!("{file}: line {}: {}", e.mark.line, e.message)),
                        );
                        continue;
                    }
                    Ok(docs) => docs.into_iter().next().and_then(|d| d.root),
                };
                let Some(node) = node else {
                    reasons.push(format!("{at}: is empty"));
                    continue;
                };
                if field == "outputs" || field == "tags" {
                    if let Err(why) = set_extra(&mut d, field, node.to_json(), &at) {
                        reasons.push(format!("{at}: {why}"));
                    }
                } else if field == "inputs" {
                    match Config::parse_parameters(&file, &node, "inputs") {
                        Ok(p) => d.inputs = p,
                        Err(errs) => reasons.extend(errs.iter().map(|c| located(&file, c))),
                    }
                } else {
                    match node.to_json() {
                        Value::Object(m) => d.arguments = m,
                        _ => reasons
                            .push(format!("{at}: must be a mapping of argument names to values")),
                    }
                }
            }
            other => reasons.push(format!(
                "{at}: unknown descriptor field '{other}'; allowed: {}",
                FIELDS.map(|f| format!("{METADATA_PREFIX}{f}")).join(", ")
            )),
        }
    }
    if !tool_seen {
        reasons.push(format!(
            "{origin}: '{METADATA_PREFIX}tool' is required when any {METADATA_PREFIX}* key is set"
        ));
    }
    check(&mut d, &mut reasons, &origin);
    if reasons.is_empty() { Ok(d) } else { Err(reasons) }
}

/// Sets one of the fields beyond the tool call (`outputs`, catalog metadata,
/// `followUp`) from its JSON value; `at` is where it is written. The error says what
/// the field must be.
fn set_extra(d: &mut Descriptor, field: &str, value: Value, at: &str) -> Result<(), String> {
    let text = |v: &Value, what: &str| -> Result<String, String> {
        match v.as_str().map(str::trim) {
            Some(s) if !s.is_empty() && s.chars().count() <= MAX_TAG_CHARS => Ok(s.to_string()),
            _ => Err(format!(
                "{what} must be a non-empty string of at most {MAX_TAG_CHARS} characters, not {v}"
            )),
        }
    };
    match field {
        "outputs" => {
            crate::tools::schema::ArgsSchema::compile(&value)
                .map_err(|why| format!("outputs must be a usable JSON Schema: {why}"))?;
            d.outputs = Some(value);
        }
        "category" => d.catalog.category = Some(text(&value, "category")?),
        "tags" => {
            let Value::Array(items) = &value else {
                return Err(format!("tags must be a list of strings, not {value}"));
            };
            if items.len() > MAX_TAGS {
                return Err(format!("{} tags; the limit is {MAX_TAGS}", items.len()));
            }
            let mut tags = Vec::new();
            for t in items {
                let t = text(t, "each tag")?;
                if !tags.contains(&t) {
                    tags.push(t);
                }
            }
            d.catalog.tags = tags;
        }
        "invocationMode" => match value.as_str() {
            Some(m) if INVOCATION_MODES.contains(&m) => {
                d.catalog.invocation_mode = Some(m.to_string())
            }
            _ => {
                return Err(format!(
                    "invocationMode must be one of {}, not {value}",
                    INVOCATION_MODES.join(", ")
                ));
            }
        },
        "followUp" => match value.as_str() {
            Some(t) if crate::tools::config::is_valid_name(t) => {
                d.follow_up = Some((t.to_string(), at.to_string()))
            }
            _ => return Err(format!("followUp must be a tool name, not {value}")),
        },
        other => return Err(format!("unknown descriptor field '{other}'")),
    }
    Ok(())
}

/// Checks that hold without the configuration.
fn check(d: &mut Descriptor, reasons: &mut Vec<String>, origin: &str) {
    if !d.tool.is_empty() && !crate::tools::config::is_valid_name(&d.tool) {
        reasons.push(format!("{origin}: tool '{}' is not a valid tool name", d.tool));
    }
    if d.tool.is_empty() && reasons.is_empty() {
        reasons.push(format!("{origin}: tool is empty"));
    }
    for key in d.arguments.keys() {
        if d.inputs.iter().any(|p| &p.name == key) {
            reasons.push(format!(
                "{origin}: '{key}' is both an input and a fixed argument; the model could not change it"
            ));
        }
    }
}

/// A config error as one line naming the file, line and field.
fn located(file: &str, e: &ConfigError) -> String {
    match &e.field {
        Some(f) => format!("{file}: line {}: field '{f}': {}", e.location.line, e.message),
        None => format!("{file}: line {}: {}", e.location.line, e.message),
    }
}

/// Binds a descriptor to the session's configuration: the target tool exists and
/// accepts every input and fixed argument. Returns the callable skill, or why not.
pub(crate) fn bind(
    skill: &Skill,
    d: &Descriptor,
    config: Option<&Config>,
) -> Result<SkillTool, String> {
    let Some(target) = config.and_then(|c| c.tool(&d.tool)) else {
        return Err(format!(
            "skill '{}' runs tool '{}' ({}), which is not configured",
            skill.name, d.tool, d.origin
        ));
    };
    let accepts = |name: &str| target.parameter(name).is_some_and(|p| !p.is_auth());
    let mut unknown: Vec<&str> =
        d.inputs.iter().map(|p| p.name.as_str()).filter(|n| !accepts(n)).collect();
    unknown.extend(d.arguments.keys().map(String::as_str).filter(|n| !accepts(n)));
    if !unknown.is_empty() {
        return Err(format!(
            "skill '{}' passes {} to tool '{}', which has no such parameter",
            skill.name,
            unknown.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", "),
            d.tool
        ));
    }
    let mut spec = target.clone();
    spec.name = skill.name.clone();
    spec.description = skill.description.clone();
    spec.parameters = d.inputs.clone();
    // The skill's `outputs` describe what its callers get; without them, the tool's.
    spec.output_schema = d.outputs.clone().or_else(|| target.output_schema.clone());
    spec.annotations = ToolAnnotations {
        requires_approval: d.requires_approval || target.annotations.requires_approval,
        ..target.annotations.clone()
    };
    debug_assert!(spec.parameters.iter().all(|p| p.role == ParamRole::Parameter));
    Ok(SkillTool { descriptor: d.clone(), spec })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::skill;

    fn skill(metadata: &str) -> Skill {
        let text = format!("---\nname: orders\ndescription: Order work\n{metadata}---\nBody\n");
        skill::parse("/skills/orders/SKILL.md", "orders", &text).unwrap()
    }

    const CONFIG: &str = "kind: source\nname: db\ntype: sqlite\ndatabase: /tmp/x.db\n---\n\
kind: tool\nname: delete_orders\ntype: sqlite-sql\nsource: db\ndescription: d\n\
statement: DELETE FROM orders WHERE customer = ? AND status = ? LIMIT ?\n\
parameters:\n  - {name: customer, type: string, description: c}\n\
\x20 - {name: status, type: string, description: s}\n\
\x20 - {name: limit, type: integer, description: l}\n";

    #[test]
    fn sidecar_descriptor() {
        let text = "tool: delete_orders\nrequiresApproval: true\ninputs:\n  - {name: customer, type: string, description: Whose}\n  - {name: limit, type: integer, default: 10, maxValue: 100}\narguments: {status: open}\n";
        let d = load(&skill(""), Some(("/skills/orders/descriptor.yaml", text))).unwrap().unwrap();
        assert_eq!(d.tool, "delete_orders");
        assert!(d.requires_approval);
        assert_eq!(d.inputs.len(), 2);
        assert_eq!(d.inputs[1].default, Some(serde_json::json!(10)));
        assert_eq!(d.arguments["status"], "open");
        let config = Config::load_str("tools.yaml", CONFIG).unwrap();
        let t = bind(&skill(""), &d, Some(&config)).unwrap();
        assert_eq!(t.spec.name, "orders");
        assert_eq!(t.spec.description, "Order work");
        assert!(t.spec.annotations.requires_approval);
        assert_eq!(t.spec.parameters.len(), 2);
    }

    #[test]
    fn metadata_descriptor() {
        let s = skill(
            "metadata:\n  author: me\n  filestore.tool: delete_orders\n  filestore.requiresApproval: \"false\"\n  filestore.inputs: '[{name: customer, type: string}]'\n  filestore.arguments: '{status: open, limit: 5}'\n",
        );
        let d = load(&s, None).unwrap().unwrap();
        assert_eq!(d.tool, "delete_orders");
        assert!(!d.requires_approval);
        assert_eq!(d.inputs[0].name, "customer");
        assert_eq!(d.arguments["limit"], 5);
        assert_eq!(d.origin, "/skills/orders/SKILL.md metadata");
        // No descriptor at all.
        assert!(load(&skill("metadata:\n  author: me\n"), None).unwrap().is_none());
    }

    #[test]
    fn every_problem_is_reported_with_its_place() {
        let text = "requiresApproval: maybe\ninputs:\n  - {name: a, type: strng}\n  - {name: b, type: string, authServices: [{name: g, field: email}]}\n  - {name: c, type: integer}\n  - {name: c, type: integer}\narguments: [1]\ncolour: red\n";
        let errs = from_sidecar("/skills/x/descriptor.yaml", text).unwrap_err();
        let all = errs.join("\n");
        for want in [
            "/skills/x/descriptor.yaml: line 1: requiresApproval must be true or false",
            "line 3: field 'inputs[0].type': unknown parameter type 'strng'",
            "authServices are not allowed here",
            "parameter 'c' is declared twice",
            "line 7: arguments must be a mapping",
            "line 8: unknown field 'colour'",
            "`tool` is required",
        ] {
            assert!(all.contains(want), "missing {want:?} in:\n{all}");
        }
        let errs = from_sidecar("/d.yaml", "tool: [x]\n").unwrap_err();
        assert!(errs[0].contains("tool must be a tool name"), "{errs:?}");
        let errs = from_sidecar(
            "/d.yaml",
            "tool: t\ninputs: [{name: a, type: string}]\narguments: {a: 1}\n",
        )
        .unwrap_err();
        assert!(errs[0].contains("'a' is both an input and a fixed argument"), "{errs:?}");
        let errs = from_sidecar("/d.yaml", "tool: t\n: :\n  - x").unwrap_err();
        assert!(errs[0].starts_with("/d.yaml: line "), "{errs:?}");
    }

    #[test]
    fn metadata_problems_name_the_key() {
        let s = skill(
            "metadata:\n  filestore.requiresApproval: \"yes\"\n  filestore.inputs: '[{name: a}]'\n  filestore.colour: red\n",
        );
        let all = load(&s, None).unwrap_err().join("\n");
        for want in [
            "'filestore.requiresApproval': must be \"true\" or \"false\", not \"yes\"",
            "'filestore.inputs' (value): line 1",
            "unknown descriptor field 'colour'",
            "'filestore.tool' is required",
        ] {
            assert!(all.contains(want), "missing {want:?} in:\n{all}");
        }
        let both = skill("metadata:\n  filestore.tool: t\n");
        let err = load(&both, Some(("/skills/orders/descriptor.yaml", "tool: t\n"))).unwrap_err();
        assert!(err[0].contains("declared both"), "{err:?}");
    }

    #[test]
    fn binding_needs_the_tool_and_its_parameters() {
        let config = Config::load_str("tools.yaml", CONFIG).unwrap();
        let d = from_sidecar("/d.yaml", "tool: nope\n").unwrap();
        let e = bind(&skill(""), &d, Some(&config)).unwrap_err();
        assert!(e.contains("runs tool 'nope' (/d.yaml), which is not configured"), "{e}");
        assert!(bind(&skill(""), &d, None).is_err());
        let d = from_sidecar(
            "/d.yaml",
            "tool: delete_orders\ninputs: [{name: who, type: string}]\narguments: {color: red}\n",
        )
        .unwrap();
        let e = bind(&skill(""), &d, Some(&config)).unwrap_err();
        assert!(e.contains("passes 'who', 'color' to tool 'delete_orders'"), "{e}");
    }
}
