//! What a model sees: `tools/list` of Toolbox serving MCP over stdio (`toolbox
//! --stdio --config`) against `filestore serve --config`, per configured tool: its
//! description and input schema. filestore also lists its own file tools; only the
//! configured ones are compared.
//!
//! Schemas are compared after the normalisations below, each the row of the table
//! of recorded differences it names; a normalisation that never changed anything is
//! reported as a recorded difference that no longer occurs.

use std::process::Command;

use serde_json::{Map, Value, json};

use super::corpus::Corpus;
use super::run::{Report, Side};
use crate::support::mcp_stdio::McpStdio;
use crate::support::toolbox;

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

/// `additionalProperties: false` at the top of filestore's schemas: it refuses
/// undeclared arguments where Toolbox drops them.
const NO_EXTRA: &str = "schema-additional-properties";
/// `enum`, `minimum`, `maximum` of a parameter in filestore's schemas: its
/// `allowedValues`, `minValue`, `maxValue`, which Toolbox does not show.
const CONSTRAINTS: &str = "schema-value-constraints";
/// A parameter bound to an auth service (`authServices`): filestore leaves it out of
/// the schema (its value comes from the token), Toolbox lists it.
const AUTH_HIDDEN: &str = "schema-auth-parameters-hidden";

/// Compares `tools/list` for every config of `corpus` both loaders accept.
pub fn compare(corpus: &Corpus, tb_side: &Side, fs_side: &Side, report: &mut Report) {
    for config in corpus.configs.iter().filter(|c| c.differs.is_none()) {
        let tb_config = tb_side.write(config);
        let fs_config = fs_side.write(config);
        if toolbox::loads(&tb_side.dir, &tb_side.env, &tb_config).is_err() {
            continue;
        }
        let mut cmd = toolbox::command(&tb_side.dir);
        cmd.arg("--stdio").arg("--config").arg(&tb_config);
        let tb = list(cmd, tb_side);
        let mut cmd = Command::new(BIN);
        cmd.arg("serve").arg("--config").arg(&fs_config).current_dir(&fs_side.dir);
        let fs = list(cmd, fs_side);
        for (name, tb_tool) in &tb {
            let what = format!("tools/list of config {}: tool {name}", config.name);
            let Some(fs_tool) = fs.get(name) else {
                report.problems.push(format!("{what}: not listed by filestore"));
                continue;
            };
            let fs_tool = normalise(fs_tool, report);
            let tb_tool = without_hidden(tb_tool, &fs_tool, &config.yaml, report);
            let (tb_view, fs_view) = (view(&tb_tool), view(&fs_tool));
            if tb_view != fs_view {
                report.problems.push(format!(
                    "{what}: differs (not recorded)\n  toolbox:   {tb_view}\n  filestore: {fs_view}"
                ));
            }
        }
        report.schemas += tb.len();
    }
    // Parameters bound to auth services exist only where a config declares them.
    let binds_auth = corpus.configs.iter().any(|c| c.yaml.contains("authServices:"));
    for id in NORMALISATIONS.into_iter().filter(|id| *id != AUTH_HIDDEN || binds_auth) {
        if report.schemas > 0 && !report.seen.contains(id) {
            report
                .problems
                .push(format!("tools/list: recorded difference `{id}` no longer occurs"));
        }
    }
}

/// What the model sees of a tool: description and input schema, with `required: []`
/// and no `required` counted alike (JSON Schema reads them alike).
fn view(tool: &Value) -> Value {
    let mut schema = tool["inputSchema"].clone();
    if schema.get("required") == Some(&json!([])) {
        schema.as_object_mut().unwrap().remove("required");
    }
    json!({"description": tool["description"], "inputSchema": schema})
}

/// filestore's tool with the recorded differences taken out (noting each seen).
fn normalise(tool: &Value, report: &mut Report) -> Value {
    let mut tool = tool.clone();
    if let Some(schema) = tool["inputSchema"].as_object_mut()
        && schema.get("additionalProperties") == Some(&Value::Bool(false))
    {
        schema.remove("additionalProperties");
        report.seen.insert(NO_EXTRA.to_string());
    }
    let properties = tool["inputSchema"]["properties"].as_object_mut();
    for property in properties.into_iter().flat_map(|p| p.values_mut()) {
        let Some(property) = property.as_object_mut() else { continue };
        for key in ["enum", "minimum", "maximum"] {
            if property.remove(key).is_some() {
                report.seen.insert(CONSTRAINTS.to_string());
            }
        }
    }
    tool
}

/// Toolbox's `tool` without the properties filestore hides as auth-bound: only in a
/// config that binds parameters to auth services (`config_yaml` says so).
fn without_hidden(tool: &Value, fs_tool: &Value, config_yaml: &str, report: &mut Report) -> Value {
    let mut tool = tool.clone();
    if !config_yaml.contains("authServices:") {
        return tool;
    }
    let listed = |name: &str| fs_tool["inputSchema"]["properties"].get(name).is_some();
    let schema = &mut tool["inputSchema"];
    let hidden: Vec<String> = schema["properties"]
        .as_object()
        .map(|p| p.keys().filter(|k| !listed(k.as_str())).cloned().collect())
        .unwrap_or_default();
    for name in &hidden {
        schema["properties"].as_object_mut().unwrap().remove(name);
        if let Some(required) = schema["required"].as_array_mut() {
            required.retain(|r| r != name.as_str());
        }
        report.seen.insert(AUTH_HIDDEN.to_string());
    }
    tool
}

/// The tools a server started by `cmd` lists, by name.
fn list(mut cmd: Command, side: &Side) -> Map<String, Value> {
    cmd.envs(side.env.iter().map(|(k, v)| (k, v)));
    let (mut server, _) = McpStdio::start(cmd);
    let answer = server.request("tools/list", json!({}));
    let _ = server.close();
    let tools = answer["result"]["tools"].as_array().cloned().unwrap_or_else(|| {
        panic!("tools/list answered {answer}");
    });
    tools.into_iter().map(|t| (t["name"].as_str().unwrap_or("").to_string(), t)).collect()
}

/// The recorded differences this module's normalisations stand for.
pub const NORMALISATIONS: [&str; 3] = [NO_EXTRA, CONSTRAINTS, AUTH_HIDDEN];
