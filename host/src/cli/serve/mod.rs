//! `filestore serve`: its options ([`args`]) checked into a plan ([`plan`]), then
//! run: the mounts opened ([`mounts`]), the sessions' tools set up ([`setup`]) and
//! the server listening on stdio or HTTP until the transport ends.

use std::process::ExitCode;

use crate::cli::output::{FailKind, fail, fail_with, warn_uncached};
use crate::cli::tools;

use args::ServeArgs;
use mounts::{load_skills, session_mounts};
use plan::ServePlan;

pub(super) mod args;
mod mounts;
mod plan;
mod setup;
mod signals;
mod skills_reload;

/// `filestore serve`: the memory quotas and object-store flags applied, its
/// arguments checked ([`ServePlan::check`]), then run.
pub(super) fn run(mut args: ServeArgs) -> ExitCode {
    args.quotas.apply();
    args.objects.apply(&mut args.mounts);
    match ServePlan::check(args) {
        Ok(plan) => plan.run(),
        Err(e) => fail(e.kind(), e),
    }
}

impl ServePlan {
    /// Opens what the plan names (mounts, skills, configuration, agent), then serves
    /// until the transport ends.
    fn run(mut self) -> ExitCode {
        if let Err(e) = signals::end_on_signals(self.args.http.is_none()) {
            return fail(FailKind::Setup, format!("watching for signals: {e}"));
        }
        let (mounts, roots_only) = self.mounts();
        // Open every mount once up front so a bad directory fails now, not per session
        // (a per-caller one is opened for each caller).
        for m in mounts.iter().filter(|m| !m.per_identity()) {
            if let Err(e) = m.open() {
                return fail_with(&e);
            }
        }
        let mut summary = filestore::mcp::describe_mounts(&mounts);
        let mut startup_warnings = Vec::new();
        // Read before the skills load, so a change made meanwhile is seen by the watch.
        let skills_signature = self
            .args
            .skills
            .as_deref()
            .and_then(|d| filestore::volumes::skills::watch::DirSignature::read(d).ok());
        let skills =
            match load_skills(self.args.skills.as_deref(), &mut summary, &mut startup_warnings) {
                Ok(s) => s,
                Err(code) => return code,
            };
        let config_files = match &self.args.config {
            None => None,
            Some(path) => match tools::read_files(std::slice::from_ref(path)) {
                Ok(f) => Some(f),
                Err(code) => return code,
            },
        };
        let budget = self.args.sandbox_memory.budget();
        let engine = filestore::EngineConfig { memory_budget: budget, ..Default::default() };
        let engine = match filestore::new_engine_with(engine) {
            Ok(e) => warn_uncached(e),
            Err(e) => return fail_with(&e),
        };
        let cache_warning = engine.cache_warning().map(str::to_string);
        let (mounts, conversations) = match self.conversations(mounts) {
            Ok(c) => c,
            Err(e) => return fail(e.kind(), e),
        };
        if let Some(c) = &conversations {
            // The store's volumes replace the in-memory ones the summary named: still
            // mounts a client sees, each conversation's own.
            let points = c.points();
            summary = summary
                .split(", ")
                .filter(|m| !m.is_empty())
                .map(|m| match points.iter().find(|p| m.starts_with(&format!("{p}="))) {
                    Some(p) => {
                        let mode = m.rsplit_once(' ').map_or("", |(_, mode)| mode);
                        format!("{p}=per conversation {mode}")
                    }
                    None => m.to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ");
            summary.push_str(&format!(
                "; conversations in {}",
                self.args.state.as_deref().unwrap_or_default()
            ));
        }
        let skills_volume = skills.as_ref().map(|s| s.volume());
        let mut config =
            filestore::mcp::ServerConfig::new(engine, session_mounts(mounts, skills_volume));
        if conversations.is_some() {
            config.sandbox_cache =
                filestore::mcp::sandbox_cache::SandboxCache::new(self.args.conversation_cache)
                    .map(std::sync::Arc::new);
        }
        config.conversations = conversations;
        let service_tokens = match self.auth_services(config_files.as_deref(), &mut config) {
            Ok(t) => t,
            Err(code) => return code,
        };
        if self.args.auth.enabled() {
            config.call_limits = Some(filestore::mcp::http_auth::CallLimits::new(
                self.args.auth.max_calls_per_identity,
            ));
        }
        config.roots = self.roots.clone();
        config.startup_warnings.extend(startup_warnings);
        config.startup_warnings.extend(cache_warning);
        config.no_workspace_reason = self.no_workspace_reason.take().or_else(|| {
            roots_only.then(|| {
                "over HTTP with --http-roots-within, /workspace is only ever the client's MCP roots"
                    .to_string()
            })
        });
        let tools = match self.install_tools(&mut config, config_files) {
            Ok(n) => n,
            Err(code) => return code,
        };
        if let (Some(dir), Some(live)) = (&self.args.skills, skills)
            && self.args.skills_poll_secs > 0
        {
            let every = std::time::Duration::from_secs(self.args.skills_poll_secs);
            skills_reload::start(dir.clone(), every, skills_signature, live, &config);
        }
        self.listen(config, summary, tools, service_tokens)
    }

    /// Serves `config` over stdio or HTTP until the transport ends.
    fn listen(
        self,
        config: filestore::mcp::ServerConfig,
        summary: String,
        tools: usize,
        service_tokens: Option<std::sync::Arc<filestore::mcp::http_auth::ServiceTokens>>,
    ) -> ExitCode {
        let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
            Ok(r) => r,
            Err(e) => return fail(FailKind::Setup, format!("starting the async runtime: {e}")),
        };
        let (pool, connections, allowed_origins, allowed_hosts) = (
            self.pool,
            self.connections,
            self.args.allowed_origins.clone(),
            self.args.allowed_hosts.clone(),
        );
        let result = runtime.block_on(async move {
            if let Some(c) = &config.conversations {
                c.sweep_every(c.sweep_interval());
            }
            match self.args.http {
                None => {
                    eprintln!("filestore serve: MCP over stdio; mounts: {summary}; {tools} tools");
                    filestore::mcp::serve_stdio(config).await
                }
                Some(addr) => {
                    let addr = if addr.chars().all(|c| c.is_ascii_digit()) {
                        format!("127.0.0.1:{addr}")
                    } else {
                        addr
                    };
                    let listener = tokio::net::TcpListener::bind(&addr)
                        .await
                        .map_err(|e| anyhow::anyhow!("binding {addr}: {e}"))?;
                    let local = listener.local_addr()?;
                    let auth = tokio::task::block_in_place(|| self.args.auth.build(local))
                        .map_err(|e| anyhow::anyhow!(e))?;
                    if auth.is_none() && !local.ip().is_loopback() && !self.args.auth.allow_unauthenticated
                    {
                        anyhow::bail!(
                            "refusing to serve {local} without authentication: anyone who can reach it would get every mount. Give --auth-issuer or --auth-tokens (docs/deploying.md, Serving many users), or --allow-unauthenticated if the network is yours alone"
                        );
                    }
                    let auth_note = match &auth {
                        Some(a) => format!("; bearer tokens required (resource {})", a.resource),
                        None => String::new(),
                    };
                    eprintln!(
                        "filestore serve: MCP over streamable HTTP at http://{local}{}; mounts: {summary}; {tools} tools{auth_note}",
                        filestore::mcp::HTTP_PATH
                    );
                    let shutdown = async {
                        let _ = tokio::signal::ctrl_c().await;
                    };
                    let (max_connections, note) =
                        filestore::mcp::http_conn::fit_to_fd_limit(connections.max_connections);
                    if let Some(note) = note {
                        eprintln!("filestore serve: {note}");
                    }
                    let connections =
                        filestore::mcp::http_conn::ConnLimits { max_connections, ..connections };
                    let options = filestore::mcp::HttpOptions {
                        pool,
                        connections,
                        allowed_origins,
                        allowed_hosts,
                        auth: auth.map(std::sync::Arc::new),
                        service_tokens,
                    };
                    filestore::mcp::serve_http_with(config, options, listener, shutdown).await
                }
            }
        });
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(FailKind::Serve, format!("{e:#}")),
        }
    }
}
