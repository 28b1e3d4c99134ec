//! What each session of `serve` is set up with: the tools of `--config` and
//! `--agent` (the agent's refs resolved by a first session, which stops the start
//! when one cannot be used), and the auth services that verify bearer tokens.

use std::process::ExitCode;

use filestore::handlers::ShippedHandlers as _;
use filestore_guest::error::ErrorKind;

use super::plan::ServePlan;
use crate::cli::output::{fail, fail_with};
use crate::cli::tools::{self, agent_failure, service_specs};

impl ServePlan {
    /// Which auth services the bearer token verifies: named ones, and Toolbox's
    /// `generic` services with `mcpEnabled: true` (which also turn authentication on
    /// when no --auth-issuer is given: their authorizationServer and audience). Sets
    /// them in `config`; returns the services' own token verifiers.
    pub(super) fn auth_services(
        &mut self,
        config_files: Option<&[(String, String)]>,
        config: &mut filestore::mcp::ServerConfig,
    ) -> Result<Option<std::sync::Arc<filestore::mcp::http_auth::ServiceTokens>>, ExitCode> {
        let mut bearer_services = self.args.auth.auth_services.clone();
        let mut service_tokens = None;
        if let Some(files) = config_files {
            let known = match filestore_guest::tools::config::Config::load(files) {
                Ok(c) => c.auth_services().to_vec(),
                Err(_) => Vec::new(), // reported, located, when the sessions load it
            };
            for name in &bearer_services {
                if !known.iter().any(|a| &a.name == name) {
                    return Err(fail(
                        ErrorKind::InvalidArgument,
                        format!(
                            "--auth-service {name}: --config defines no auth service of that name"
                        ),
                    ));
                }
            }
            // Tools this host cannot run are listed all the same (the configuration may be
            // meant for Toolbox too): said now, not first at a call.
            if let Ok(c) = filestore_guest::tools::config::Config::load(files) {
                let (errors, warnings) = tools::unrunnable(&c.check_report().tools);
                let warnings: Vec<String> = errors.into_iter().chain(warnings).collect();
                tools::print_unsupported("filestore serve", &warnings);
                config.startup_warnings.extend(warnings);
            }
            let env: std::collections::BTreeMap<String, String> = std::env::vars().collect();
            let field = |a: &filestore_guest::tools::config::AuthServiceConfig, f: &str| {
                a.fields.get(f).map(|v| match v {
                    serde_json::Value::String(s) => filestore::tools::env::substitute(s, &env),
                    other => other.to_string(),
                })
            };
            let specs = service_specs(&known, &env);
            let (tokens, skipped) = filestore::mcp::http_auth::ServiceTokens::from_specs(&specs);
            for why in skipped {
                eprintln!("filestore serve: {why}");
                config.startup_warnings.push(why);
            }
            service_tokens = Some(std::sync::Arc::new(tokens));
            for a in &known {
                if a.service_type == "generic" && field(a, "mcpEnabled").as_deref() == Some("true")
                {
                    if !bearer_services.contains(&a.name) {
                        bearer_services.push(a.name.clone());
                    }
                    if self.args.auth.auth_issuer.is_none() {
                        self.args.auth.auth_issuer = field(a, "authorizationServer");
                        self.args.auth.auth_audience = field(a, "audience");
                    }
                }
            }
        }
        let authenticated_http = self.args.http.is_some() && self.args.auth.enabled();
        if !bearer_services.is_empty() && !authenticated_http {
            return Err(fail(
                ErrorKind::InvalidArgument,
                format!(
                    "auth service(s) {} take the HTTP bearer token's claims: give --http with authentication",
                    bearer_services.join(", ")
                ),
            ));
        }
        config.bearer_services = bearer_services;
        Ok(service_tokens)
    }

    /// Installs the agent's providers (when `--agent`) and the per-session setup
    /// (configuration, toolset, agent), and builds the first session: a ref that
    /// cannot be used stops the start here, located. Returns the tool count.
    pub(super) fn install_tools(
        &self,
        config: &mut filestore::mcp::ServerConfig,
        config_files: Option<Vec<(String, String)>>,
    ) -> Result<usize, ExitCode> {
        let mut registry = filestore::tools::ToolRegistry::with_builtin_handlers();
        let agent = match self
            .args
            .agent
            .as_deref()
            .map(|p| filestore::agent::Agent::read(&config.engine, p))
        {
            None => None,
            Some(Ok(a)) => {
                a.install(&mut registry);
                Some(std::sync::Arc::new(a))
            }
            Some(Err(e)) => return Err(agent_failure(e)),
        };
        self.args.timeouts.apply(&mut config.options, &mut registry);
        config.options.tools = std::sync::Arc::new(registry);
        config.options.shell = self.args.shell;
        // What resolution left out (optional refs, unusable upstream tools), as of the
        // latest load: said at start.
        let resolution_warnings = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        // The first load (the first session, before any client) applies the start rules:
        // a ref that cannot be used stops the start. Every later one (a refreshed
        // upstream catalog, a later client's session) is lenient: what cannot be resolved
        // then is left out and said on stderr, so one upstream's change never leaves
        // clients without tools (or new clients without a session).
        let started = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let load_agent = agent.clone().map(|agent| {
            let warnings = resolution_warnings.clone();
            let started = started.clone();
            move |session: &mut filestore::Session| -> filestore::Result<()> {
                let after_start = started.load(std::sync::atomic::Ordering::Acquire);
                let loaded =
                    if after_start { agent.reload_into(session) } else { agent.load_into(session) };
                let report = loaded.map_err(|e| match e {
                    filestore::agent::AgentError::Setup(e) => e,
                    other => filestore::Error::setup("--agent", other),
                })?;
                let mut seen = warnings.lock().unwrap_or_else(|p| p.into_inner());
                if after_start {
                    for w in report.warnings.iter().filter(|w| !seen.contains(w)) {
                        eprintln!("filestore serve: {w}");
                    }
                }
                *seen = report.warnings;
                Ok(())
            }
        });
        if config_files.is_some() || load_agent.is_some() {
            let toolset = self.args.toolset.clone();
            let load_agent = load_agent.clone();
            config.setup = Some(std::sync::Arc::new(move |session: &mut filestore::Session| {
                if let Some(files) = &config_files {
                    match session.load_config(files)? {
                        Ok(_) => {}
                        Err(issues) => {
                            let all: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
                            return Err(filestore::Error::setup_message(format!(
                                "--config: {}",
                                all.join("; ")
                            )));
                        }
                    }
                    session.select_toolset(toolset.as_deref())?;
                }
                match &load_agent {
                    Some(load) => load(session),
                    None => Ok(()),
                }
            }));
        }
        if let (Some(agent), Some(load)) = (&agent, load_agent) {
            // An upstream tool list changed: each session re-resolves the agent before
            // it next lists or calls, and its client is told to re-list.
            if let Some(changes) = agent.changes() {
                config.catalog_refresh = Some(filestore::mcp::CatalogRefresh {
                    changes,
                    reapply: std::sync::Arc::new(load),
                });
            }
        }
        // The first session resolves the agent: a ref that cannot be used stops the
        // start here, located, before any client connects. It serves no one, so it
        // makes no conversation in the store.
        let probe = config.probe();
        let tools = match filestore::mcp::FilestoreServer::new(&probe) {
            Ok(s) => {
                started.store(true, std::sync::atomic::Ordering::Release);
                refuse_skill_orphans(&s)?;
                // The probe has no conversation, so not the `filestore_snapshot`
                // every conversation's session lists with a state store.
                s.tool_count() + usize::from(config.conversations.is_some())
            }
            Err(filestore::Error::Setup { source: Some(source), .. })
                if agent.is_some() && source.is::<filestore::agent::AgentError>() =>
            {
                for line in source.to_string().lines() {
                    eprintln!("error[config]: {line}");
                }
                return Err(ExitCode::FAILURE);
            }
            Err(e) => return Err(fail_with(&e)),
        };
        if let Some(agent) = &agent {
            let resolved = resolution_warnings.lock().unwrap_or_else(|p| p.into_inner()).clone();
            for w in resolved.into_iter().chain(agent.provider_warnings()) {
                eprintln!("filestore serve: {w}");
                config.startup_warnings.push(w);
            }
        }
        Ok(tools)
    }
}

/// Stops the start when a skill names a tool the server does not have
/// (docs/skills.md#orphans-stop-the-start): listed, each where it is named, as a
/// configuration error is, rather than found by an agent reading the skill.
fn refuse_skill_orphans(server: &filestore::mcp::FilestoreServer) -> Result<(), ExitCode> {
    let orphans = server.skill_orphans().map_err(|e| fail_with(&e))?;
    if orphans.is_empty() {
        return Ok(());
    }
    eprintln!(
        "filestore serve: {} name(s) in --skills are no tool of this server (check --config, --toolset and --agent, or the skill):",
        orphans.len()
    );
    for o in &orphans {
        eprintln!("error[config]: {o}");
    }
    Err(ExitCode::FAILURE)
}
