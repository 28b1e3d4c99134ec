//! The MCP server: `filestore serve` (docs/mcp-server.md; docs/architecture.md#cli).
//!
//! [`FilestoreServer`] is an [`rmcp::ServerHandler`] over one sandboxed [`Session`]:
//! each MCP session (a stdio connection, or one HTTP session) gets its own instance
//! of the component from the shared [`Engine`], over its own mounts. Nothing in this
//! module knows the tool list: `tools/list` is whatever [`Session::tool_specs`]
//! returns, `tools/call` goes through [`Session::call`], and when the set of specs
//! changes after a call (a skill read with `filestore_read` activating tools, a
//! configured toolset growing) the server sends `notifications/tools/list_changed`.
//!
//! What a client sees:
//! - **tools**: every `filestore_*` tool the session offers, with its JSON Schema and
//!   annotations; results carry `structuredContent` (the JSON) and the rendered text;
//!   failures are `isError: true` results whose text is `error[KIND]: message`, the
//!   kind and message under `_meta["filestore/error"]`, without `structuredContent`
//!   (see `reply::failure`); a tool the session does not offer is a JSON-RPC error.
//! - **prompts**: `filestore_instructions`, the system-prompt block: the mounts, what
//!   each tool is for, and the `filestore_tree` of the mounts.
//! - **resources**: the files of the mounts as `filestore:///workspace/src/main.rs`
//!   URIs, paged by cursor; `resources/read` returns text, or a base64 blob for a
//!   binary file.
//!
//! Transports: [`serve_stdio`] (stdout is the transport; this module never prints
//! to it) and [`serve_http`] (streamable HTTP, stateful sessions, loopback `Host`
//! validation, connections bounded before authentication: [`http::conn`]).
//!
//! Each file imports only files below it (host/tests/architecture.rs allows no
//! circle here). At the bottom: `reply.rs` (how results and errors reach a client),
//! `approval.rs`, `logging.rs`, `roots.rs`, `stdio/guard.rs`, `stdio/fast_call.rs`
//! and `http/identity.rs`; then `conversations.rs` and the host's own tools
//! (`host_tool.rs`, `snapshot_tool.rs`); then `sandbox.rs`, one session's sandbox,
//! which the prompt, resources, media and sandbox cache read through; then
//! `server/`, the handler over it; the transports' upper layers (`stdio/`, `http/`)
//! and this file compose them.
//!
//! [`Session`]: crate::Session
//! [`Session::tool_specs`]: crate::Session::tool_specs
//! [`Session::call`]: crate::Session::call

mod approval;
pub mod conversations;
mod host_tool;
pub mod http;
pub mod logging;
pub mod media;
mod prompt;
mod reply;
mod resources;
pub mod roots;
mod sandbox;
pub mod sandbox_cache;
mod server;
pub mod snapshot_tool;
pub mod stdio;
pub mod stored_sessions;

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::volumes::{MountArg, MountSource};
use crate::{Engine, MountSpec, SessionOptions};

// The HTTP layers under the names the CLI and embedders use.
pub use http::{body as http_body, conn as http_conn, origin as http_origin, pool as http_pool};

/// Authentication under the one name the CLI and embedders use: [`http::auth`] with
/// what it builds on, [`http::identity`] and [`http::service_tokens`].
pub mod http_auth {
    pub use super::http::auth::*;
    pub use super::http::identity::*;
    pub use super::http::service_tokens::*;
}
pub use prompt::INSTRUCTIONS_PROMPT;
pub use reply::ERROR_META;
pub use resources::{RESOURCE_MAX_BYTES, RESOURCE_PAGE_SIZE, RESOURCE_WALK_LIMIT, URI_SCHEME};
pub use server::FilestoreServer;

/// Where the streamable HTTP endpoint is mounted.
pub const HTTP_PATH: &str = "/mcp";

/// The mount points `filestore serve` provides when the user does not: the current
/// directory read-only, a scratch volume, and the tool-results volume.
pub const DEFAULT_WORKSPACE: &str = "/workspace";
/// In-memory scratch space, writable, one per MCP session.
pub const DEFAULT_SCRATCH: &str = "/scratch";
/// The tool-results volume (docs/architecture.md#tool-results), read-only for agents.
pub const DEFAULT_TOOL_CALLS: &str = "/tool_calls";
/// In-memory temporary files, writable, one per sandbox: where `mktemp` and the
/// `> /tmp/x` agents write by habit land. Never a host directory, and bounded as
/// every in-memory volume is (`--volume-quota-mib`, `--process-quota-mib`).
pub const DEFAULT_TMP: &str = "/tmp";

/// Builds the mounts of one new MCP session.
///
/// Called once per MCP session, so in-memory volumes are fresh for each session
/// while directory volumes see the same directory.
pub type MountFactory = Arc<dyn Fn() -> crate::Result<Vec<MountSpec>> + Send + Sync>;

/// Prepares each new session after it is created (and each replacement of a
/// poisoned one): loads the tool configuration, selects the toolset.
pub type SessionSetup = Arc<dyn Fn(&mut crate::Session) -> crate::Result<()> + Send + Sync>;

/// Re-resolution of an agent when an upstream server's tool list changed (see
/// [`crate::agent::Agent::changes`]): each session re-runs `reapply` before it next
/// lists or calls, and each initialized client is sent `notifications/tools/list_changed`.
#[derive(Clone)]
pub struct CatalogRefresh {
    /// Changes whenever an upstream catalog did.
    pub changes: tokio::sync::watch::Receiver<u64>,
    /// Re-resolves the session's agent (`Session::load_agent`).
    pub reapply: SessionSetup,
}

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
        factory: impl Fn() -> crate::Result<Vec<MountSpec>> + Send + Sync + 'static,
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
}

/// Refuses the default workspace (the directory the server was started in) when that
/// is `/` or the user's home directory: some desktop clients start servers in `/`,
/// which would expose the whole host, and a home directory holds every personal
/// file and key. An explicit `--mount /workspace=...` is the user's choice and is
/// not checked.
pub fn check_default_workspace(user: &[MountArg]) -> Result<(), crate::Error> {
    if user.iter().any(|m| m.point == DEFAULT_WORKSPACE || m.point == "/") {
        return Ok(());
    }
    let cwd = std::env::current_dir().and_then(|d| d.canonicalize()).map_err(|e| {
        crate::Error::mount_with("cannot resolve the current directory for /workspace", e)
    })?;
    let home = std::env::var_os("HOME").and_then(|h| std::path::Path::new(&h).canonicalize().ok());
    let what = if cwd == std::path::Path::new("/") {
        "the root of the file system"
    } else if home.as_ref() == Some(&cwd) {
        "your home directory"
    } else {
        return Ok(());
    };
    Err(crate::Error::mount(format!(
        "refusing to serve {} as /workspace: it is {what} (the directory the server was started in). Pass --mount /workspace=DIR[:ro] with the directory the agent should see (an explicit --mount /workspace={}:ro serves it anyway)",
        cwd.display(),
        cwd.display()
    )))
}

/// The mounts of `filestore serve`: the user's `--mount`s, plus each default whose
/// mount point the user did not take — `/workspace` (the current directory,
/// read-only), `/scratch` (memory), `/tool_calls` (memory, read-only) and `/tmp`
/// (memory; last, so a command's default directory stays `/scratch`).
///
/// The default `/workspace` is left out when a writable `--mount` directory contains
/// the current directory or lies inside it (`--mount /w=.`): the session would refuse
/// a read-only view of files a writable mount can change, and the user has said which
/// directory the agent works in.
///
/// A mount at `/` is a single workspace as the whole file system, for embedders that
/// map their own root (`..` above it is refused at `/`): then nothing is added, and
/// the user's other `--mount`s (a `/tool_calls` for stored tool results, say) are
/// all there is.
pub fn default_mounts(user: Vec<MountArg>) -> Vec<MountArg> {
    if is_single_workspace(&user) {
        return user;
    }
    let taken = |p: &str| user.iter().any(|m| m.point == p);
    let mut out = Vec::new();
    if !taken(DEFAULT_WORKSPACE) && !writable_dir_overlaps_cwd(&user) {
        out.push(MountArg {
            point: DEFAULT_WORKSPACE.into(),
            source: MountSource::Dir(".".into()),
            read_only: true,
            cow: None,
        });
    }
    if !taken(DEFAULT_SCRATCH) {
        out.push(MountArg {
            point: DEFAULT_SCRATCH.into(),
            source: MountSource::Memory,
            read_only: false,
            cow: None,
        });
    }
    if !taken(DEFAULT_TOOL_CALLS) {
        out.push(MountArg {
            point: DEFAULT_TOOL_CALLS.into(),
            source: MountSource::Memory,
            read_only: true,
            cow: None,
        });
    }
    if !taken(DEFAULT_TMP) {
        out.push(MountArg {
            point: DEFAULT_TMP.into(),
            source: MountSource::Memory,
            read_only: false,
            cow: None,
        });
    }
    let mut all = user;
    all.extend(out);
    all
}

/// Whether a writable directory among `user` contains the current directory or lies
/// inside it (resolved paths; a path that does not resolve overlaps nothing).
fn writable_dir_overlaps_cwd(user: &[MountArg]) -> bool {
    let Ok(cwd) = std::env::current_dir().and_then(|d| d.canonicalize()) else {
        return false;
    };
    user.iter().any(|m| match &m.source {
        MountSource::Dir(p) if !m.read_only && m.cow.is_none() => {
            p.canonicalize().is_ok_and(|p| cwd.starts_with(&p) || p.starts_with(&cwd))
        }
        _ => false,
    })
}

/// Whether the user mounted a workspace at `/` (see [`default_mounts`]): then the
/// client's MCP roots do not replace `/workspace` either.
pub fn is_single_workspace(user: &[MountArg]) -> bool {
    user.iter().any(|m| m.point == "/")
}

/// A one-line description of mounts for logs: `/workspace=. (ro), /scratch=mem: (rw)`.
pub fn describe_mounts(mounts: &[MountArg]) -> String {
    mounts
        .iter()
        .map(|m| {
            let src = match &m.source {
                MountSource::Dir(p) => p.display().to_string(),
                MountSource::Memory => "mem:".to_string(),
                MountSource::Object(o) => o.url(),
            };
            let mode = match (&m.cow, m.read_only) {
                (Some(crate::volumes::CowUpper::Memory), _) => "cow".to_string(),
                (Some(crate::volumes::CowUpper::Dir(u)), _) => format!("cow={}", u.display()),
                (None, true) => "ro".to_string(),
                (None, false) => "rw".to_string(),
            };
            format!("{}={} ({mode})", m.point, src)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Serves one MCP session over stdin/stdout until the client disconnects.
///
/// Stdin and stdout are read and written on threads of their own
/// ([`stdio::transport`]); a message too large to read, or a line that is not a
/// JSON-RPC message, still gets its answer ([`stdio::guard`]; rmcp drops both).
pub async fn serve_stdio(config: ServerConfig) -> anyhow::Result<()> {
    let server = FilestoreServer::new(&config)?;
    let writer = stdio::transport::Writer::stdout()?;
    let fast = Arc::new(stdio::fast::FastPath::default());
    let transport = stdio::transport::StdioTransport::start_with(
        std::io::stdin(),
        writer.clone(),
        fast.clone(),
    )?;
    let running = match rmcp::serve_server(server.clone(), transport).await {
        Ok(r) => {
            fast.ready(server, r.peer().clone());
            r
        }
        // Input ended before `initialize` (a client that gave up, `< /dev/null`):
        // nothing was asked, so nothing failed; the process ends quietly, status 0.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            writer.flush().await;
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    running.waiting().await?;
    // What rmcp wrote last reaches stdout before the process ends.
    writer.flush().await;
    Ok(())
}

/// The streamable HTTP service: one [`FilestoreServer`] (and sandbox) per HTTP
/// session. `Host` headers are checked against loopback names plus `extra_hosts`
/// (DNS-rebinding protection). A remote client's roots choose no host directory
/// beyond those `config.roots` allows by name ([`roots::RootsPolicy::for_remote`]).
pub fn http_service(
    config: ServerConfig,
    extra_hosts: Vec<String>,
) -> StreamableHttpService<FilestoreServer, LocalSessionManager> {
    http_service_with(config, extra_hosts, Arc::new(LocalSessionManager::default()), None)
}

/// How a failed instantiation (no instance slot left) reads in a setup error: the
/// HTTP pool answers it as capacity (503), other setup failures as they are.
pub(crate) const INSTANTIATION_FAILED: &str = "instantiating the component";

/// [`http_service`] over a given session manager (shared with a [`http::pool::SessionPool`]),
/// its sessions recorded in `stored` for other replicas to take over
/// ([`stored_sessions`]).
pub fn http_service_with(
    config: ServerConfig,
    extra_hosts: Vec<String>,
    manager: Arc<LocalSessionManager>,
    stored: Option<Arc<stored_sessions::StoredSessions>>,
) -> StreamableHttpService<FilestoreServer, LocalSessionManager> {
    let mut config = config;
    config.roots = std::mem::take(&mut config.roots).for_remote();
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    hosts.extend(extra_hosts);
    // rmcp's own cap is 4 MiB; a message may be as large over HTTP as over stdio
    // (http::body answers a larger one with 413 before rmcp reads it).
    let mut http_config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_max_request_body_bytes(http::body::MAX_HTTP_BODY_BYTES);
    http_config.session_store = stored
        .map(|s| s as Arc<dyn rmcp::transport::streamable_http_server::session::SessionStore>);
    StreamableHttpService::new(
        move || {
            FilestoreServer::new(&config).map_err(|e| {
                // Said where the operator looks too: the client only sees a 500.
                if !e.to_string().contains(INSTANTIATION_FAILED) {
                    eprintln!("filestore serve: a new client's session could not be set up: {e}");
                }
                std::io::Error::other(e)
            })
        },
        manager,
        http_config,
    )
}

/// Serves MCP over streamable HTTP at `http://ADDR/mcp` on an already bound
/// listener until `shutdown` resolves.
pub async fn serve_http(
    config: ServerConfig,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    serve_http_with(config, HttpOptions::default(), listener, shutdown).await
}

/// Options of the streamable HTTP transport.
#[derive(Clone, Debug, Default)]
pub struct HttpOptions {
    /// The session pool's limits.
    pub pool: http::pool::PoolConfig,
    /// The limits of connections before authentication (see [`http::conn`]).
    pub connections: http::conn::ConnLimits,
    /// Origins allowed besides loopback ones.
    pub allowed_origins: Vec<String>,
    /// `Host` header values answered besides loopback names and the bound address
    /// (`HOST` for any port, `HOST:PORT`): the names a proxy forwards.
    pub allowed_hosts: Vec<String>,
    /// Bearer-token authentication (see [`http::auth`]); `None`: none.
    pub auth: Option<Arc<http::auth::Authenticator>>,
    /// The tool configuration's auth services whose `{name}_token` headers are read.
    pub service_tokens: Option<Arc<http::service_tokens::ServiceTokens>>,
}

/// [`serve_http`] with options: the session pool's limits (see [`http::pool`]), the
/// limits of connections (see [`http::conn`]) and the allowed origins (see
/// [`http::origin`]).
pub async fn serve_http_with(
    config: ServerConfig,
    options: HttpOptions,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let addr: SocketAddr = listener.local_addr()?;
    let mut extra_hosts =
        if addr.ip().is_loopback() { vec![] } else { vec![addr.ip().to_string()] };
    extra_hosts.extend(options.allowed_hosts);
    let pool = options.pool;
    let origins = Arc::new(http::origin::AllowedOrigins(options.allowed_origins));
    let mut manager = LocalSessionManager::default();
    manager.session_config.keep_alive = Some(pool.idle_timeout);
    let manager = Arc::new(manager);
    let stored = config
        .conversations
        .as_ref()
        .map(|c| Arc::new(stored_sessions::StoredSessions::new(c.store())));
    let pool = http::pool::SessionPool::with_stored(pool, manager.clone(), stored.clone());
    let capture = http::capture::CaptureState {
        keeps: config.conversations.is_some(),
        stored: stored.clone(),
    };
    let service = http_service_with(config, extra_hosts, manager, stored);
    let mut router = axum::Router::new()
        .nest_service(HTTP_PATH, service)
        .layer(axum::middleware::from_fn_with_state(capture, http::capture::capture))
        .layer(axum::middleware::from_fn(http::body::check))
        .layer(axum::middleware::from_fn_with_state(pool, http::pool::guard));
    if let Some(services) = options.service_tokens.filter(|s| !s.is_empty()) {
        router = router.layer(axum::middleware::from_fn_with_state(
            services,
            http::service_tokens::service_claims,
        ));
    }
    // Authentication before the pool, which binds each session to its identity.
    let authenticates = options.auth.is_some();
    if let Some(auth) = options.auth {
        router = router
            .route(
                http::auth::PRM_PATH,
                axum::routing::get(http::auth::metadata).with_state(auth.clone()),
            )
            .route(
                "/.well-known/oauth-protected-resource",
                axum::routing::get(http::auth::metadata).with_state(auth.clone()),
            )
            .layer(axum::middleware::from_fn_with_state(auth, http::auth::check));
    }
    let router = router.layer(axum::middleware::from_fn_with_state(origins, http::origin::check));
    http::conn::serve(listener, router, options.connections, authenticates, shutdown).await;
    Ok(())
}
