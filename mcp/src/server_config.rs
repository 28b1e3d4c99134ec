//! [`ServerConfig`]: what every MCP session of a server is made of, its limits and
//! policies, and the shared state its sessions use (conversations, the sandbox cache).

use std::sync::Arc;

use filestore_runtime::{Engine, MountSpec, SessionOptions};
use filestore_volumes::MountArg;

use crate::config::{CatalogRefresh, MountFactory, SandboxSource, SessionSetup};
use crate::{conversations, http, roots, sandbox_cache};

/// What every MCP session of a server is made of.
#[derive(Clone)]
pub struct ServerConfig {
    /// The shared engine (one compiled component for all sessions).
    pub engine: Engine,
    /// The mounts of each new session.
    pub mounts: MountFactory,
    /// Limits and the tool host of each session.
    pub options: SessionOptions,
    /// Run on every new session before it serves.
    pub setup: Option<SessionSetup>,
    /// Re-resolves sessions' agents when upstream catalogs change.
    pub catalog_refresh: Option<CatalogRefresh>,
    /// Which of a client's MCP roots become `/workspace` (see [`roots`]): none
    /// when the user gave a `--mount /workspace`. Over HTTP, `Any` is taken as
    /// `Within([])` ([`roots::RootsPolicy::for_remote`]).
    pub roots: roots::RootsPolicy,
    /// Why there is no default `/workspace` (the server was started in `/` or a
    /// home directory): said on stderr when the client offers no roots either.
    pub no_workspace_reason: Option<String>,
    /// Warnings from the server's start (skills skipped...), sent to each client as
    /// log messages once it is initialized (see [`logging`]).
    pub startup_warnings: Vec<String>,
    /// The configured auth services (`authServices`) that verified a caller when the
    /// HTTP request's bearer token did (Toolbox's `mcpEnabled`): each gets that
    /// token's claims for `authRequired` and auth-bound parameters.
    pub bearer_services: Vec<String>,
    /// Concurrent tool calls per authenticated identity (HTTP with authentication).
    pub call_limits: Option<Arc<http::auth::CallLimits>>,
    /// The conversation store (`serve --state`, see [`conversations`]): sessions'
    /// `/scratch`, `/tool_calls` and activated skills live there. `None`: each
    /// session's are its own, in memory.
    pub conversations: Option<Arc<conversations::Conversations>>,
    /// Sandboxes kept between MCP 2026-07-28 requests of a conversation (see
    /// [`sandbox_cache`]; with `conversations`). `None`: each request makes its own.
    pub sandbox_cache: Option<Arc<sandbox_cache::SandboxCache>>,
}

impl ServerConfig {
    /// Sessions over the mounts `factory` builds, with default options.
    pub fn new(
        engine: Engine,
        factory: impl Fn() -> filestore_runtime::Result<Vec<MountSpec>> + Send + Sync + 'static,
    ) -> ServerConfig {
        ServerConfig {
            engine,
            mounts: Arc::new(factory),
            options: SessionOptions::default(),
            setup: None,
            catalog_refresh: None,
            roots: roots::RootsPolicy::Off,
            no_workspace_reason: None,
            startup_warnings: Vec::new(),
            bearer_services: Vec::new(),
            call_limits: None,
            conversations: None,
            sandbox_cache: None,
        }
    }

    /// Sessions over parsed `--mount` arguments (each session opens them anew).
    pub fn from_mount_args(engine: Engine, args: Vec<MountArg>) -> ServerConfig {
        ServerConfig::new(engine, move || args.iter().map(MountArg::open).collect())
    }

    /// The configuration of a session that serves no one (the checks `serve` makes
    /// at start and when its skills are reloaded): no conversation, so nothing is
    /// made in the store, and in place of a conversation's volumes the empty ones of
    /// a request naming none, since a writable `/scratch` decides whether the
    /// writing tools are offered: the probe lists what a client would.
    pub fn probe(&self) -> ServerConfig {
        let mounts = match &self.conversations {
            None => self.mounts.clone(),
            Some(c) => {
                let (base, c) = (self.mounts.clone(), c.clone());
                Arc::new(move || {
                    let mut specs = base()?;
                    specs.extend(c.ephemeral_mounts());
                    Ok(specs)
                }) as MountFactory
            }
        };
        ServerConfig { conversations: None, sandbox_cache: None, mounts, ..self.clone() }
    }

    /// What each new sandbox is made from.
    pub(crate) fn sandbox_source(&self) -> SandboxSource<'_> {
        SandboxSource {
            engine: &self.engine,
            mounts: &self.mounts,
            options: &self.options,
            setup: self.setup.as_ref(),
            catalog_refresh: self.catalog_refresh.as_ref(),
            startup_warnings: &self.startup_warnings,
        }
    }
}
