//! A session's configured tools and everything the WIT `tools` interface carries:
//! configurations checked and loaded, toolsets, skills, approval gates, prompts, agent
//! configurations, invocations and their audit records.

use std::sync::Arc;

use serde_json::Value;

use super::{CallOutput, Session, tw};
use crate::error::{Error, Result};
use crate::glue::tools::{
    from_wit_agent_report, from_wit_config_error, from_wit_outcome, from_wit_report,
};
use crate::glue::types::from_wit_error;
use crate::tools::{
    ConfigIssue, ConfigReport, InvokeContext, InvokeOutcome, InvokeStatus, resolve_sources_located,
};

/// The values, from `env`, of the variables referenced in the names, descriptions
/// and toolset members of `files` (what the component substitutes there; see
/// `filestore_guest::tools::config::variables`). Unset ones are left out: the
/// component then reports each use without a default, located.
pub fn shaping_variables(
    files: &[(String, String)],
    env: &dyn Fn(&str) -> Option<String>,
) -> filestore_guest::tools::config::variables::Variables {
    filestore_guest::tools::config::variables::references(files)
        .into_iter()
        .filter_map(|name| env(&name).map(|v| (name, v)))
        .collect()
}

/// Tool configuration and invocation (the WIT `tools` interface;
/// docs/architecture.md#configured-tools, docs/architecture.md#tool-results).
impl Session {
    fn check_or_load(
        &mut self,
        files: &[(String, String)],
        variables: &filestore_guest::tools::config::variables::Variables,
        load: bool,
    ) -> Result<std::result::Result<ConfigReport, Vec<ConfigIssue>>> {
        let files: Vec<tw::ConfigFile> = files
            .iter()
            .map(|(name, text)| tw::ConfigFile { name: name.clone(), text: text.clone() })
            .collect();
        let variables: Vec<tw::ConfigVariable> = variables
            .iter()
            .map(|(name, value)| tw::ConfigVariable { name: name.clone(), value: value.clone() })
            .collect();
        let r = self.guarded(|store, b, h| {
            let t = b.filestore_component_tools(store)?;
            if load {
                t.call_load_config(store, h, &files, &variables)
            } else {
                t.call_check_config(store, &files, &variables)
            }
            .map(Ok)
        })?;
        Ok(r.map(from_wit_report)
            .map_err(|errs| errs.into_iter().map(from_wit_config_error).collect()))
    }

    /// Parses and checks `(file name, text)` configuration files inside the sandbox
    /// without changing the session (`filestore check`). The outer error is a
    /// sandbox failure; the inner one every configuration error, located.
    pub fn check_config(
        &mut self,
        files: &[(String, String)],
    ) -> Result<std::result::Result<ConfigReport, Vec<ConfigIssue>>> {
        self.check_config_with_env(files, &|k| std::env::var(k).ok())
    }

    /// [`Session::check_config`] with `${VAR}` in names and descriptions taken from
    /// `env` (see [`shaping_variables`]).
    pub fn check_config_with_env(
        &mut self,
        files: &[(String, String)],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<std::result::Result<ConfigReport, Vec<ConfigIssue>>> {
        self.check_or_load(files, &shaping_variables(files, env), false)
    }

    /// Loads configuration files as the session's tools, resolving `${VAR}` in the
    /// sources from the process environment. See [`Session::load_config_with_env`].
    pub fn load_config(
        &mut self,
        files: &[(String, String)],
    ) -> Result<std::result::Result<ConfigReport, Vec<ConfigIssue>>> {
        self.load_config_with_env(files, &|k| std::env::var(k).ok())
    }

    /// Loads configuration files: the component parses and checks them; the host
    /// resolves `${VAR}`/`${VAR:default}` in the sources of the tools it can run
    /// (shipped types, or types the session's tool host handles) through `env`, and
    /// keeps them (the resolved values never enter the component). A missing variable
    /// is an `invalid-argument` error naming it; on any error nothing changes. The
    /// configured tools then appear in [`Session::tool_specs`] and run through
    /// [`Session::call`] / [`Session::invoke`].
    pub fn load_config_with_env(
        &mut self,
        files: &[(String, String)],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<std::result::Result<ConfigReport, Vec<ConfigIssue>>> {
        let variables = shaping_variables(files, env);
        let report = match self.check_or_load(files, &variables, false)? {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        let host = self.store.data().tools.clone();
        let needed: std::collections::HashSet<String> = report
            .tools
            .iter()
            .filter(|t| t.runnable || host.handles(&t.tool_type))
            .filter_map(|t| t.source.clone())
            .collect();
        let invalid = |m: String| {
            Error::Filestore(filestore_guest::error::Error::new(
                filestore_guest::error::ErrorKind::InvalidArgument,
                m,
            ))
        };
        // The handler fields' `${VAR}` references of the tools this host runs, from
        // the same files parsed natively (the component keeps no secrets to give).
        let runnable: std::collections::HashSet<&str> = report
            .tools
            .iter()
            .filter(|t| t.runnable || host.handles(&t.tool_type))
            .map(|t| t.name.as_str())
            .collect();
        let native: Vec<(&str, &str)> =
            files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
        let parsed =
            filestore_guest::tools::config::Config::load_with_variables(&native, &variables).ok();
        let tools: Vec<filestore_guest::tools::config::ToolConfig> = parsed
            .iter()
            .flat_map(|c| c.tools())
            .filter(|t| runnable.contains(t.name.as_str()))
            .cloned()
            .collect();
        // The sources as parsed here too: they say where a missing variable is written.
        let located = parsed.as_ref().map(|c| c.sources()).unwrap_or_default();
        let mut problems = Vec::new();
        let sources =
            resolve_sources_located(&report.sources, located, &|n| needed.contains(n), env)
                .map_err(|e| problems.push(e.to_string()))
                .ok();
        let tool_env = crate::tools::env::ToolEnv::resolve(&tools, env)
            .map_err(|e| problems.push(e.to_string()))
            .ok();
        let (Some(mut sources), Some(tool_env)) = (sources, tool_env) else {
            return Err(invalid(problems.join("; ")));
        };
        sources.set_tool_env(tool_env);
        let report = match self.check_or_load(files, &variables, true)? {
            Ok(r) => r,
            Err(e) => return Ok(Err(e)),
        };
        if let Some(new) = host.with_sources(Arc::new(sources)) {
            self.store.data_mut().tools = new;
        }
        Ok(Ok(report))
    }

    /// Selects the exposed toolset (`None`: every configured tool); unknown: `not-found`.
    pub fn select_toolset(&mut self, toolset: Option<&str>) -> Result<()> {
        let toolset = toolset.map(String::from);
        self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_select_toolset(store, h, toolset.as_deref())
        })
    }

    /// The tools the session offers (MCP specs): filestore tools, configured tools of
    /// `toolset` (`None`: the selected one), dynamic tools.
    pub fn list_tools(&mut self, toolset: Option<&str>) -> Result<Vec<Value>> {
        let toolset = toolset.map(String::from);
        let text = self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_list_tools(store, h, toolset.as_deref())
        })?;
        serde_json::from_str(&text).map_err(|e| Error::setup("guest returned invalid JSON", e))
    }

    /// A counter that grows whenever [`Session::tool_specs`] changes (for MCP
    /// `notifications/tools/list_changed`).
    pub fn tools_version(&mut self) -> Result<u64> {
        self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_tools_version(store, h).map(Ok)
        })
    }

    /// The `SKILL.md` paths of the session's active skills, least recently read first
    /// (the WIT `tools.active-skills`): what a conversation's state keeps.
    pub fn active_skills(&mut self) -> Result<Vec<String>> {
        self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_active_skills(store, h).map(Ok)
        })
    }

    /// Activates the skills at `paths` in order, as reading each `SKILL.md` would (the
    /// WIT `tools.restore-skills`); the errors of those that could not be (removed
    /// since, say), each naming its path.
    pub fn restore_skills(&mut self, paths: &[String]) -> Result<Vec<filestore_guest::Error>> {
        let failed = self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_restore_skills(store, h, paths).map(Ok)
        })?;
        Ok(failed.into_iter().map(from_wit_error).collect())
    }

    /// The names in the skills under `/skills` that no tool of the session answers to
    /// (the WIT `tools.skill-orphans`), each with where it is named. Call it once the
    /// configuration and agent are loaded; `filestore serve` refuses to start on any.
    pub fn skill_orphans(&mut self) -> Result<Vec<filestore_guest::invoke::SkillOrphan>> {
        let found = self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_skill_orphans(store, h).map(Ok)
        })?;
        Ok(found
            .into_iter()
            .map(|o| filestore_guest::invoke::SkillOrphan {
                skill: o.skill,
                tool: o.tool,
                named_at: o.named_at,
                reason: o.reason,
            })
            .collect())
    }

    /// The follow-ups a result's `requires_approval` holds, oldest first (the WIT
    /// `tools.approval-gates`): what a conversation's state keeps.
    pub fn approval_gates(&mut self) -> Result<Vec<filestore_guest::invoke::ApprovalGate>> {
        let gates = self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_approval_gates(store, h).map(Ok)
        })?;
        Ok(gates
            .into_iter()
            .map(|g| filestore_guest::invoke::ApprovalGate { tool: g.tool, reason: g.reason })
            .collect())
    }

    /// Replaces the session's approval gates with recorded ones (the WIT
    /// `tools.restore-approval-gates`).
    pub fn restore_approval_gates(
        &mut self,
        gates: &[filestore_guest::invoke::ApprovalGate],
    ) -> Result<()> {
        use crate::bindings::exports::filestore::component::tools::ApprovalGate;
        let gates: Vec<ApprovalGate> = gates
            .iter()
            .map(|g| ApprovalGate { tool: g.tool.clone(), reason: g.reason.clone() })
            .collect();
        self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?
                .call_restore_approval_gates(store, h, &gates)
                .map(Ok)
        })
    }

    /// The permission bits the shell's `chmod` set, by virtual path (the WIT
    /// `tools.shell-modes`): what a session replacing this one is given.
    pub fn shell_modes(&mut self) -> Result<Vec<(String, u32)>> {
        self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_shell_modes(store, h).map(Ok)
        })
    }

    /// Replaces the shell's permission bits with recorded ones (the WIT
    /// `tools.restore-shell-modes`).
    pub fn restore_shell_modes(&mut self, modes: &[(String, u32)]) -> Result<()> {
        self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_restore_shell_modes(store, h, modes).map(Ok)
        })
    }

    /// The configured prompts (Toolbox `kind: prompt`), in load order (see the WIT
    /// `tools.list-prompts`).
    pub fn prompts(&mut self) -> Result<Vec<crate::tools::PromptSpec>> {
        let specs = self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_list_prompts(store, h).map(Ok)
        })?;
        Ok(specs.into_iter().map(crate::glue::tools::from_wit_prompt).collect())
    }

    /// The configured prompt `name` rendered with `arguments` (a JSON object):
    /// `(role, text)` per message (see the WIT `tools.get-prompt`).
    pub fn get_prompt(
        &mut self,
        name: &str,
        arguments: &serde_json::Value,
    ) -> Result<Vec<(String, String)>> {
        let arguments = arguments.to_string();
        let messages = self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_get_prompt(store, h, name, &arguments)
        })?;
        Ok(messages.into_iter().map(|m| (m.role, m.content)).collect())
    }

    /// The filestore block of a system prompt: tools, tree and skills (see the WIT
    /// `tools.system-prompt`).
    pub fn system_prompt(
        &mut self,
        max_depth: Option<u32>,
        max_files_per_folder: Option<u32>,
    ) -> Result<String> {
        self.system_prompt_for(max_depth, max_files_per_folder, &Default::default())
    }

    /// [`Session::system_prompt`] listing only the skills `skills` admits (a category,
    /// a tag: the descriptors' catalog metadata).
    pub fn system_prompt_for(
        &mut self,
        max_depth: Option<u32>,
        max_files_per_folder: Option<u32>,
        skills: &filestore_guest::skills::prompt::SkillFilter,
    ) -> Result<String> {
        use crate::bindings::exports::filestore::component::tools::SkillFilter;
        let filter = (skills.category.is_some() || skills.tag.is_some())
            .then(|| SkillFilter { category: skills.category.clone(), tag: skills.tag.clone() });
        self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_system_prompt(
                store,
                h,
                max_depth,
                max_files_per_folder,
                filter.as_ref(),
            )
        })
    }

    /// Resolves agent tool refs (JSON array) and registers provider tools; returns
    /// `[{name, spec, call_ref}]`.
    pub fn resolve_refs(&mut self, refs: &Value) -> Result<Vec<Value>> {
        let refs = refs.to_string();
        let text = self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_resolve_refs(store, h, &refs)
        })?;
        serde_json::from_str(&text).map_err(|e| Error::setup("guest returned invalid JSON", e))
    }

    /// Parses and checks an agent configuration (docs/agents.md)
    /// inside the sandbox without changing the session or connecting anything. The
    /// outer error is a sandbox failure; the inner one every configuration error,
    /// located.
    pub fn check_agent(
        &mut self,
        file: &str,
        text: &str,
    ) -> Result<std::result::Result<crate::tools::AgentReport, Vec<ConfigIssue>>> {
        let file = tw::ConfigFile { name: file.to_string(), text: text.to_string() };
        let r = self.guarded(|store, b, _| {
            b.filestore_component_tools(store)?.call_check_agent(store, &file).map(Ok)
        })?;
        Ok(r.map(from_wit_agent_report)
            .map_err(|errs| errs.into_iter().map(from_wit_config_error).collect()))
    }

    /// Loads an agent configuration into the session: its refs are resolved through
    /// the tool host's providers (each connection checked, each upstream catalog
    /// read), names checked for clashes, and from then on the session offers exactly
    /// the agent's tools. Any error (located at the entry) leaves the session as it
    /// was. Calling it again re-resolves with the same rules; see
    /// [`Session::reload_agent`] for loads after start.
    pub fn load_agent(
        &mut self,
        file: &str,
        text: &str,
    ) -> Result<std::result::Result<crate::tools::AgentReport, Vec<ConfigIssue>>> {
        self.load_agent_with(file, text, false, None)
    }

    /// [`Session::load_agent`] with the rules of a load after start (an upstream
    /// catalog changed, a later client's session): a provider entry or upstream tool
    /// that cannot be resolved now is left out with a warning in the report instead of
    /// failing the load, so one upstream's change never takes every tool away.
    pub fn reload_agent(
        &mut self,
        file: &str,
        text: &str,
    ) -> Result<std::result::Result<crate::tools::AgentReport, Vec<ConfigIssue>>> {
        self.load_agent_with(file, text, true, None)
    }

    /// Loads the agent; `servers` is the number of servers it declares when the caller
    /// already checked it (the `filestore` crate's agents have), else it is checked
    /// here first.
    pub fn load_agent_with(
        &mut self,
        file: &str,
        text: &str,
        lenient: bool,
        servers: Option<usize>,
    ) -> Result<std::result::Result<crate::tools::AgentReport, Vec<ConfigIssue>>> {
        // Resolution may connect to every server in turn, each within the tool
        // host's timeout: the guest deadline allows for all of them.
        let servers = match servers {
            Some(n) => n,
            None => match self.check_agent(file, text)? {
                Ok(r) => r.servers.len(),
                Err(e) => return Ok(Err(e)),
            },
        };
        let servers = servers.max(1) as u32;
        let file = tw::ConfigFile { name: file.to_string(), text: text.to_string() };
        let extra = self.store.data().tools.timeout().unwrap_or_default() * servers;
        let saved = self.deadline;
        self.deadline = saved + extra;
        let r = self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_load_agent(store, h, &file, lenient).map(Ok)
        });
        self.deadline = saved;
        let r = r?;
        self.agent_loaded |= r.is_ok();
        Ok(r.map(from_wit_agent_report)
            .map_err(|errs| errs.into_iter().map(from_wit_config_error).collect()))
    }

    /// Sets the offloading threshold (estimated tokens; default 20,000).
    pub fn set_offload_tokens(&mut self, tokens: u32) -> Result<()> {
        self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_set_offload_tokens(store, h, tokens).map(Ok)
        })
    }

    /// Offers (or withdraws) `filestore_execute`, the shell over the mounts (off by
    /// default; `serve --shell` and `filestore call filestore_execute` enable it).
    pub fn enable_shell(&mut self, enabled: bool) -> Result<()> {
        self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_enable_shell(store, h, enabled).map(Ok)
        })
    }

    /// Runs `filestore_execute` with `args` (as [`Session::call`]), passing its output
    /// to `on_output` while it runs, in order, stdout and stderr apart (bounded
    /// chunks, see [`crate::shell_output`]); then returns the result, which is exactly
    /// what [`Session::call`] returns. A cancellation ([`Session::cancel_handle`]) or
    /// the call's deadline ends even a command that waits (`sleep 100`) within about
    /// 50 ms.
    pub fn execute_streaming(
        &mut self,
        args: &Value,
        on_output: impl FnMut(crate::shell_output::OutputChunk<'_>) + Send + 'static,
    ) -> Result<CallOutput> {
        self.with_output(Box::new(on_output), |s| s.call(filestore_guest::shell::TOOL, args))
    }

    /// Runs `f` with `sink` receiving the output of the shell commands it runs
    /// (through any tool name or [`Session::invoke`]); the earlier sink, if any, is
    /// restored after.
    pub fn with_output<T>(
        &mut self,
        sink: crate::shell_output::OutputSink,
        f: impl FnOnce(&mut Session) -> T,
    ) -> T {
        let saved = self.store.data_mut().output.replace(sink);
        let r = f(self);
        self.store.data_mut().output = saved;
        r
    }

    /// Runs `f` with the guest deadline extended by the tool host's timeout, so a
    /// tool that uses its whole timeout does not trip the sandbox deadline.
    fn with_tool_deadline<T>(&mut self, f: impl FnOnce(&mut Session) -> Result<T>) -> Result<T> {
        let extra = self.store.data().tools.timeout().unwrap_or_default();
        let saved = self.deadline;
        self.deadline = saved + extra;
        let r = f(self);
        self.deadline = saved;
        r
    }

    /// Invokes any tool (filestore, configured, dynamic) with a call id and verified
    /// claims; see the WIT `tools.invoke`. Tool failures are a `Failed` outcome, not
    /// an `Err` (which is kept for sandbox failures and non-JSON input).
    pub fn invoke(
        &mut self,
        name: &str,
        args: &Value,
        ctx: &InvokeContext,
    ) -> Result<InvokeOutcome> {
        let attempt = self.audit_attempt(name, args, ctx.tool_call_id.clone());
        self.audit_room(&attempt)?;
        let args = args.to_string();
        let wctx = tw::InvokeContext {
            tool_call_id: ctx.tool_call_id.clone(),
            claims: if ctx.claims.is_null() { "{}".to_string() } else { ctx.claims.to_string() },
        };
        let out = self
            .with_tool_deadline(|s| {
                s.guarded(|store, b, h| {
                    b.filestore_component_tools(store)?.call_invoke(store, h, name, &args, &wctx)
                })
            })
            .map(from_wit_outcome);
        if let Ok(o) = &out
            && o.status == InvokeStatus::Pending
            && let Some(id) = &o.approval_id
        {
            self.parked.insert(id.clone());
        }
        self.audit_outcome(attempt, &out);
        out
    }

    /// Runs a call waiting for approval; `not-found` for an unknown id.
    pub fn approve(&mut self, approval_id: &str) -> Result<InvokeOutcome> {
        self.parked.remove(approval_id);
        let attempt = self.awaiting.remove(approval_id);
        if attempt.is_some() {
            self.start_touching();
        }
        let out = self
            .with_tool_deadline(|s| {
                s.guarded(|store, b, h| {
                    b.filestore_component_tools(store)?.call_approve(store, h, approval_id)
                })
            })
            .map(from_wit_outcome);
        self.audit_outcome(attempt, &out);
        out
    }

    /// Drops a call waiting for approval (nothing runs, nothing is stored, nothing
    /// is audited).
    pub fn reject(&mut self, approval_id: &str) -> Result<()> {
        self.parked.remove(approval_id);
        self.awaiting.remove(approval_id);
        self.guarded(|store, b, h| {
            b.filestore_component_tools(store)?.call_reject(store, h, approval_id)
        })
    }

    /// The audit timeline's attempt for a call of `tool`, when the session keeps
    /// one and the call is audited; starts collecting the paths it changes.
    pub(super) fn audit_attempt(
        &mut self,
        tool: &str,
        args: &Value,
        call_id: Option<String>,
    ) -> Option<crate::audit::Attempt> {
        self.audit.as_ref()?;
        if !crate::audit::is_audited(tool, args) {
            return None;
        }
        self.start_touching();
        Some(crate::audit::Attempt::new(tool, args, call_id))
    }

    /// Refuses a call the audit timeline has no room to record (see
    /// [`crate::audit::AuditLog::check_room`]): it does not run.
    pub(super) fn audit_room(&self, attempt: &Option<crate::audit::Attempt>) -> Result<()> {
        match (attempt, &self.audit) {
            (Some(_), Some(audit)) => audit.check_room().map_err(Error::Filestore),
            _ => Ok(()),
        }
    }

    /// Empties the list of paths changed through the volumes, so that what the
    /// next audited call changes is all it holds.
    pub(super) fn start_touching(&mut self) {
        if let Some(t) = self.store.data_mut().touched.as_mut() {
            t.clear();
        }
    }

    /// Records an invocation's outcome: a pending call is kept until its approval
    /// (a rejected one never ran, and is not recorded).
    pub(super) fn audit_outcome(
        &mut self,
        attempt: Option<crate::audit::Attempt>,
        out: &Result<InvokeOutcome>,
    ) {
        let Some(attempt) = attempt else { return };
        match out {
            Ok(o) if o.status == InvokeStatus::Pending => {
                if let Some(id) = &o.approval_id {
                    self.awaiting.insert(id.clone(), attempt);
                }
            }
            Ok(o) => {
                let kind = o.error.as_ref().map(|e| e.kind().as_str());
                let kind = (o.status == InvokeStatus::Failed).then(|| kind.unwrap_or("backend"));
                self.audit_end(Some(attempt), kind);
            }
            Err(e) => self.audit_end(Some(attempt), Some(e.kind_name())),
        }
    }

    /// Writes the record of `attempt`, which failed with the error kind `error`
    /// (`None`: it succeeded). A record that cannot be written does not undo the
    /// call (its changes are made): it is said on stderr, with the tool's name.
    pub(super) fn audit_end(
        &mut self,
        attempt: Option<crate::audit::Attempt>,
        error: Option<&str>,
    ) {
        let (Some(attempt), Some(audit)) = (attempt, self.audit.clone()) else { return };
        let touched =
            self.store.data_mut().touched.as_mut().map(std::mem::take).unwrap_or_default();
        if let Err(e) = audit.record(&attempt, error, touched) {
            eprintln!("filestore: audit: recording a call of '{}' failed: {e}", attempt.tool);
        }
    }

    pub(super) fn call_tool(
        &mut self,
        tool: &str,
        args: &Value,
        claims: &Value,
    ) -> Result<CallOutput> {
        let tool_call_id = self.unique_call_ids.then(crate::ids::new_call_id);
        let ctx = InvokeContext { claims: claims.clone(), tool_call_id };
        let out = self.invoke(tool, args, &ctx)?;
        match (out.status, out.error) {
            (InvokeStatus::Failed, Some(e)) => Err(Error::Filestore(e)),
            _ => Ok(CallOutput { json: out.envelope, text: out.text }),
        }
    }
}
