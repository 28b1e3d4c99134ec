//! The `filestore_instructions` prompt: the filestore block of an agent's system
//! prompt — the mounts, what each offered tool is for, and the tree of the mounts;
//! and the configured prompts (Toolbox `kind: prompt`) as MCP prompts.

use rmcp::ErrorData as McpError;
use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::Value;

use super::sandbox::Sandbox;

/// The prompt's name.
pub const INSTRUCTIONS_PROMPT: &str = "filestore_instructions";

/// Deepest `max_depth` a client may ask the prompt's tree for: the tree is meant to
/// orient a model, and a deep one over a large directory would flood its context.
const MAX_TREE_DEPTH: u32 = 20;

/// The prompt as `prompts/list` shows it.
pub(crate) fn prompt() -> Prompt {
    Prompt::new(
        INSTRUCTIONS_PROMPT,
        Some(
            "The filestore block for a system prompt: the mounts, what each filestore tool is \
             for, and the directory tree of the mounts.",
        ),
        Some(vec![
            PromptArgument::new("max_depth")
                .with_description("Deepest level of the tree (default 3).")
                .with_required(false),
            PromptArgument::new("max_files_per_folder")
                .with_description("Files shown per folder before [N more files] (default 3).")
                .with_required(false),
            PromptArgument::new("skill_category")
                .with_description("List only the skills of this category.")
                .with_required(false),
            PromptArgument::new("skill_tag")
                .with_description("List only the skills carrying this tag.")
                .with_required(false),
        ]),
    )
}

/// A configured prompt as `prompts/list` shows it.
pub(crate) fn configured(p: filestore_runtime::tools::PromptSpec) -> Prompt {
    let arguments: Vec<PromptArgument> = p
        .arguments
        .into_iter()
        .map(|a| {
            let arg = PromptArgument::new(a.name).with_required(a.required);
            if a.description.is_empty() { arg } else { arg.with_description(a.description) }
        })
        .collect();
    let description = (!p.description.is_empty()).then_some(p.description);
    Prompt::new(p.name, description, (!arguments.is_empty()).then_some(arguments))
}

/// The messages of a configured prompt, rendered by the component.
pub(crate) fn configured_result(messages: Vec<(String, String)>) -> GetPromptResult {
    GetPromptResult::new(
        messages
            .into_iter()
            .map(|(role, text)| {
                let role = if role == "assistant" { Role::Assistant } else { Role::User };
                PromptMessage::new_text(role, text)
            })
            .collect(),
    )
}

/// Validated prompt arguments.
#[derive(Debug, Clone)]
pub(crate) struct PromptArgs {
    max_depth: u32,
    max_files_per_folder: u32,
    skills: filestore_guest::skills::prompt::SkillFilter,
}

impl PromptArgs {
    /// Parses the string arguments MCP prompts take; bad values name the argument.
    pub(crate) fn parse(
        args: Option<&serde_json::Map<String, Value>>,
    ) -> Result<PromptArgs, McpError> {
        let mut out =
            PromptArgs { max_depth: 3, max_files_per_folder: 3, skills: Default::default() };
        let Some(args) = args else { return Ok(out) };
        for (k, v) in args {
            let n = match v {
                Value::String(s) => s.trim().parse::<u32>().ok(),
                Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
                _ => None,
            };
            let bad = |why: &str| {
                McpError::invalid_params(format!("prompt argument '{k}': {why}, got {v}"), None)
            };
            match k.as_str() {
                "max_depth" => match n {
                    Some(d @ 1..=MAX_TREE_DEPTH) => out.max_depth = d,
                    _ => return Err(bad(&format!("expected an integer 1..={MAX_TREE_DEPTH}"))),
                },
                "max_files_per_folder" => match n {
                    Some(f) => out.max_files_per_folder = f,
                    None => return Err(bad("expected a non-negative integer")),
                },
                "skill_category" | "skill_tag" => {
                    let Some(text) = v.as_str().map(str::trim).filter(|t| !t.is_empty()) else {
                        return Err(bad("expected a non-empty string"));
                    };
                    let slot = if k == "skill_category" {
                        &mut out.skills.category
                    } else {
                        &mut out.skills.tag
                    };
                    *slot = Some(text.to_string());
                }
                _ => {
                    return Err(McpError::invalid_params(
                        format!(
                            "unknown prompt argument '{k}'; expected max_depth, max_files_per_folder, skill_category or skill_tag"
                        ),
                        None,
                    ));
                }
            }
        }
        Ok(out)
    }
}

/// Renders the prompt for the sandbox as it is now: the mounts, then the component's
/// own system-prompt block (tools, tree, available skills; see the WIT
/// `tools.system-prompt`).
pub(crate) fn render(
    s: &mut Sandbox,
    args: &PromptArgs,
) -> filestore_runtime::Result<GetPromptResult> {
    let mounts: Vec<(String, bool)> =
        s.mounts.iter().map(|m| (m.point.clone(), m.read_only)).collect();
    let session = s.session()?;
    let block = session.system_prompt_for(
        Some(args.max_depth),
        Some(args.max_files_per_folder),
        &args.skills,
    )?;
    let mut text = String::from(
        "## Files\n\nYou reach these files only through the filestore_* tools; `..` cannot \
         climb above /.\n\nMounts:\n",
    );
    for (point, ro) in &mounts {
        text.push_str(&format!("- {point} ({})\n", if *ro { "read-only" } else { "writable" }));
    }
    text.push('\n');
    text.push_str(&block);
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
        .with_description("filestore: mounts, tools, tree and skills"))
}
