//! The exported `tools` interface: configuration, listing, invocation, prompts.

use serde_json::{Value, json};

use super::Component;
use super::exports::filestore::component::tools as wt;
use super::filestore::component::types::Error;
use super::session::SessionResource;
use super::tool_host::WitToolHost;
use super::types::to_wit_error;
use crate::error::{Error as DomError, ErrorKind};
use crate::invoke::{self, InvokeOutcome, InvokeStatus};
use crate::tools::config::{CheckReport, ConfigError};

fn wit_variables(vars: Vec<wt::ConfigVariable>) -> crate::tools::config::variables::Variables {
    vars.into_iter().map(|v| (v.name, v.value)).collect()
}

fn wit_files(files: &[wt::ConfigFile]) -> Vec<(&str, &str)> {
    files.iter().map(|f| (f.name.as_str(), f.text.as_str())).collect()
}

fn config_kind(e: &ConfigError) -> String {
    // `Debug` of the kind is its CamelCase name; the WIT uses kebab-case.
    let mut out = String::new();
    for (i, c) in format!("{:?}", e.kind).chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn wit_config_errors(errors: Vec<ConfigError>) -> Vec<wt::ConfigError> {
    errors
        .into_iter()
        .map(|e| wt::ConfigError {
            file: e.location.file.clone(),
            document: e.location.document as u32,
            line: e.location.line as u32,
            column: e.location.column as u32,
            field: e.field.clone(),
            kind: config_kind(&e),
            message: e.message.clone(),
            rendered: e.to_string(),
        })
        .collect()
}

fn wit_report(config: &crate::tools::config::Config, report: &CheckReport) -> wt::ConfigReport {
    wt::ConfigReport {
        sources: config
            .sources()
            .iter()
            .map(|s| wt::SourceConfig {
                name: s.name.clone(),
                source_type: s.source_type.clone(),
                fields: Value::Object(s.fields.clone()).to_string(),
            })
            .collect(),
        auth_services: config.auth_services().len() as u32,
        toolsets: config.toolsets().iter().map(|t| t.name.clone()).collect(),
        tools: report
            .tools
            .iter()
            .map(|t| wt::ToolStatus {
                name: t.name.clone(),
                tool_type: t.tool_type.clone(),
                source: t.source.clone(),
                runnable: t.runnable,
                file: t.location.file.clone(),
                document: t.location.document as u32,
                line: t.location.line as u32,
                column: t.location.column as u32,
            })
            .collect(),
        rendered: report.to_string(),
        v2_yaml: config.to_v2_yaml(),
    }
}

fn wit_agent_report(r: &invoke::AgentReport) -> wt::AgentReport {
    wt::AgentReport {
        name: r.config.name.clone(),
        description: r.config.description.clone(),
        servers: r
            .servers()
            .iter()
            .map(|s| wt::AgentServer {
                name: s.name.clone(),
                transport: s.transport.as_str().to_string(),
                fields: Value::Object(s.fields.clone()).to_string(),
                line: s.location.line as u32,
                column: s.location.column as u32,
            })
            .collect(),
        entries: r
            .config
            .entries
            .iter()
            .map(|e| wt::AgentEntry {
                section: e.section.as_str().to_string(),
                index: e.index as u32,
                text: e.text.clone(),
                call_ref: match &e.tool_ref {
                    crate::tools::toolrefs::ToolRef::Provider(p) => Some(p.call_ref.to_string()),
                    crate::tools::toolrefs::ToolRef::Named(_) => None,
                },
                optional: e.optional(),
                line: e.location.line as u32,
                column: e.location.column as u32,
            })
            .collect(),
        offered: r.offered.clone(),
        available: r.available.clone(),
        warnings: r.warnings.clone(),
        rendered: r.rendered(),
    }
}

fn wit_outcome(o: InvokeOutcome) -> wt::InvokeOutcome {
    wt::InvokeOutcome {
        status: match o.status {
            InvokeStatus::Completed => wt::InvokeStatus::Completed,
            InvokeStatus::Failed => wt::InvokeStatus::Failed,
            InvokeStatus::Pending => wt::InvokeStatus::Pending,
        },
        envelope: o.envelope.to_string(),
        text: o.text,
        error: o.error.map(to_wit_error),
        approval_id: o.approval_id,
        result_path: o.result_path,
        offloaded: o.offloaded,
    }
}

fn parse_json(what: &str, text: &str) -> Result<Value, Error> {
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(text).map_err(|e| {
        to_wit_error(DomError::new(
            ErrorKind::InvalidArgument,
            format!("{what} is not valid JSON: {e}"),
        ))
    })
}

impl wt::Guest for Component {
    fn load_config(
        s: wt::SessionBorrow<'_>,
        files: Vec<wt::ConfigFile>,
        variables: Vec<wt::ConfigVariable>,
    ) -> Result<wt::ConfigReport, Vec<wt::ConfigError>> {
        let session = &s.get::<SessionResource>().0;
        invoke::load_config(session, &wit_files(&files), &wit_variables(variables))
            .map_err(wit_config_errors)?;
        let st = session.tool_state().borrow();
        let config = st.config().expect("just loaded");
        Ok(wit_report(config, &config.check_report()))
    }

    fn check_config(
        files: Vec<wt::ConfigFile>,
        variables: Vec<wt::ConfigVariable>,
    ) -> Result<wt::ConfigReport, Vec<wt::ConfigError>> {
        let config = crate::tools::config::Config::load_with_variables(
            &wit_files(&files),
            &wit_variables(variables),
        )
        .map_err(wit_config_errors)?;
        Ok(wit_report(&config, &config.check_report()))
    }

    fn select_toolset(s: wt::SessionBorrow<'_>, toolset: Option<String>) -> Result<(), Error> {
        invoke::select_toolset(&s.get::<SessionResource>().0, toolset.as_deref())
            .map_err(to_wit_error)
    }

    fn list_tools(s: wt::SessionBorrow<'_>, toolset: Option<String>) -> Result<String, Error> {
        let specs = invoke::list_tools(&s.get::<SessionResource>().0, toolset.as_deref())
            .map_err(to_wit_error)?;
        Ok(Value::Array(specs).to_string())
    }

    fn check_agent(file: wt::ConfigFile) -> Result<wt::AgentReport, Vec<wt::ConfigError>> {
        let report = invoke::check_agent(&file.name, &file.text).map_err(wit_config_errors)?;
        Ok(wit_agent_report(&report))
    }

    fn load_agent(
        s: wt::SessionBorrow<'_>,
        file: wt::ConfigFile,
        lenient: bool,
    ) -> Result<wt::AgentReport, Vec<wt::ConfigError>> {
        let session = &s.get::<SessionResource>().0;
        let report = invoke::load_agent(session, &file.name, &file.text, &WitToolHost, lenient)
            .map_err(wit_config_errors)?;
        Ok(wit_agent_report(&report))
    }

    fn resolve_refs(s: wt::SessionBorrow<'_>, refs: String) -> Result<String, Error> {
        let refs = parse_json("refs", &refs)?;
        let resolved = invoke::resolve(&s.get::<SessionResource>().0, &refs, &WitToolHost)
            .map_err(to_wit_error)?;
        let out: Vec<Value> = resolved
            .iter()
            .map(|r| {
                json!({"name": r.name, "spec": r.spec.to_json(),
                       "call_ref": r.call_ref.as_ref().map(|c| c.to_string())})
            })
            .collect();
        Ok(Value::Array(out).to_string())
    }

    fn invoke(
        s: wt::SessionBorrow<'_>,
        name: String,
        arguments: String,
        context: wt::InvokeContext,
    ) -> Result<wt::InvokeOutcome, Error> {
        let args = parse_json(&format!("arguments of '{name}'"), &arguments)?;
        let claims = parse_json("claims", &context.claims)?;
        let ctx = invoke::InvokeContext { tool_call_id: context.tool_call_id, claims };
        Ok(wit_outcome(invoke::invoke(
            &s.get::<SessionResource>().0,
            &name,
            &args,
            &ctx,
            &WitToolHost,
        )))
    }

    fn approve(s: wt::SessionBorrow<'_>, approval_id: String) -> Result<wt::InvokeOutcome, Error> {
        invoke::approve(&s.get::<SessionResource>().0, &approval_id, &WitToolHost)
            .map(wit_outcome)
            .map_err(to_wit_error)
    }

    fn reject(s: wt::SessionBorrow<'_>, approval_id: String) -> Result<(), Error> {
        invoke::reject(&s.get::<SessionResource>().0, &approval_id).map_err(to_wit_error)
    }

    fn list_prompts(s: wt::SessionBorrow<'_>) -> Vec<wt::PromptSpec> {
        invoke::list_prompts(&s.get::<SessionResource>().0)
            .into_iter()
            .map(|p| wt::PromptSpec {
                name: p.name,
                description: p.description,
                arguments: p
                    .arguments
                    .into_iter()
                    .map(|(name, description, required)| wt::PromptArgument {
                        name,
                        description,
                        required,
                    })
                    .collect(),
            })
            .collect()
    }

    fn get_prompt(
        s: wt::SessionBorrow<'_>,
        name: String,
        arguments: String,
    ) -> Result<Vec<wt::PromptMessage>, Error> {
        let arguments = parse_json("arguments", &arguments)?;
        let messages = invoke::get_prompt(&s.get::<SessionResource>().0, &name, &arguments)
            .map_err(to_wit_error)?;
        Ok(messages
            .into_iter()
            .map(|(role, content)| wt::PromptMessage { role, content })
            .collect())
    }

    fn tools_version(s: wt::SessionBorrow<'_>) -> u64 {
        invoke::tools_version(&s.get::<SessionResource>().0)
    }

    fn active_skills(s: wt::SessionBorrow<'_>) -> Vec<String> {
        invoke::active_skills(&s.get::<SessionResource>().0)
    }

    fn restore_skills(s: wt::SessionBorrow<'_>, paths: Vec<String>) -> Vec<Error> {
        invoke::restore_skills(&s.get::<SessionResource>().0, &paths)
            .into_iter()
            .map(to_wit_error)
            .collect()
    }

    fn skill_orphans(s: wt::SessionBorrow<'_>) -> Vec<wt::SkillOrphan> {
        // Reading /skills can fail only as a whole (the walk); that is an orphan too,
        // so a host that refuses to start on orphans refuses on it.
        match invoke::skill_orphans(&s.get::<SessionResource>().0) {
            Ok(list) => list
                .into_iter()
                .map(|o| wt::SkillOrphan {
                    skill: o.skill,
                    tool: o.tool,
                    named_at: o.named_at,
                    reason: o.reason,
                })
                .collect(),
            Err(e) => vec![wt::SkillOrphan {
                skill: String::new(),
                tool: String::new(),
                named_at: "/skills".into(),
                reason: e.to_string(),
            }],
        }
    }

    fn approval_gates(s: wt::SessionBorrow<'_>) -> Vec<wt::ApprovalGate> {
        invoke::approval_gates(&s.get::<SessionResource>().0)
            .into_iter()
            .map(|g| wt::ApprovalGate { tool: g.tool, reason: g.reason })
            .collect()
    }

    fn restore_approval_gates(s: wt::SessionBorrow<'_>, gates: Vec<wt::ApprovalGate>) {
        let gates = gates
            .into_iter()
            .map(|g| invoke::ApprovalGate { tool: g.tool, reason: g.reason })
            .collect();
        invoke::restore_approval_gates(&s.get::<SessionResource>().0, gates)
    }

    fn shell_modes(s: wt::SessionBorrow<'_>) -> Vec<(String, u32)> {
        s.get::<SessionResource>().0.shell_modes()
    }

    fn restore_shell_modes(s: wt::SessionBorrow<'_>, modes: Vec<(String, u32)>) {
        s.get::<SessionResource>().0.restore_shell_modes(modes)
    }

    fn system_prompt(
        s: wt::SessionBorrow<'_>,
        max_depth: Option<u32>,
        max_files_per_folder: Option<u32>,
        skills: Option<wt::SkillFilter>,
    ) -> Result<String, Error> {
        let filter = skills
            .map(|f| crate::skills::prompt::SkillFilter { category: f.category, tag: f.tag })
            .unwrap_or_default();
        s.get::<SessionResource>()
            .0
            .system_prompt(max_depth.unwrap_or(3), max_files_per_folder.unwrap_or(3), &filter)
            .map_err(to_wit_error)
    }

    fn set_offload_tokens(s: wt::SessionBorrow<'_>, tokens: u32) {
        s.get::<SessionResource>().0.tool_state().borrow_mut().set_offload_tokens(tokens as usize);
    }

    fn enable_shell(s: wt::SessionBorrow<'_>, enabled: bool) {
        s.get::<SessionResource>().0.enable_shell(enabled);
    }
}
