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
//! Each module uses only the modules of the layers below its own
//! (docs/architecture.md#layout; host/tests/architecture.rs checks it and allows no
//! circle between files): at the bottom `config.rs` (what sessions are made from),
//! `reply.rs` (how results and errors reach a client), `approval.rs`, `logging.rs`,
//! `roots.rs`, `guard.rs` (the transports' message guard) and `fast_call.rs`; then
//! `conversations.rs`; stored sessions and the host's own tools; the HTTP layers;
//! `sandbox.rs`, one session's sandbox, which the prompt, resources, media and
//! sandbox cache read through; `server_config.rs`; `server/`, the handler over it;
//! `stdio/`; and this file composes them.
//!
//! [`Session`]: filestore_runtime::Session
//! [`Session::tool_specs`]: filestore_runtime::Session::tool_specs
//! [`Session::call`]: filestore_runtime::Session::call

mod approval;
mod config;
pub mod conversations;
pub(crate) mod fast_call;
pub mod guard;
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
mod server_config;
pub mod snapshot_tool;
pub mod stdio;
pub mod stored_sessions;

use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

// The HTTP layers under the names the CLI and embedders use.
pub use http::{body as http_body, conn as http_conn, origin as http_origin, pool as http_pool};

/// Authentication under the one name the CLI and embedders use: [`http::auth`] with
/// what it builds on, [`http::identity`] and [`http::service_tokens`].
pub mod http_auth {
    pub use super::http::auth::*;
    pub use super::http::identity::*;
    pub use super::http::service_tokens::*;
}
use config::INSTANTIATION_FAILED;
pub use config::{
    CatalogRefresh, DEFAULT_SCRATCH, DEFAULT_TMP, DEFAULT_TOOL_CALLS, DEFAULT_WORKSPACE, HTTP_PATH,
    MountFactory, SessionSetup, check_default_workspace, default_mounts, describe_mounts,
    is_single_workspace,
};
pub use prompt::INSTRUCTIONS_PROMPT;
pub use reply::ERROR_META;
pub use resources::{RESOURCE_MAX_BYTES, RESOURCE_PAGE_SIZE, RESOURCE_WALK_LIMIT, URI_SCHEME};
pub use server::FilestoreServer;
pub use server_config::ServerConfig;

/// Serves one MCP session over stdin/stdout until the client disconnects.
///
/// Stdin and stdout are read and written on threads of their own
/// ([`stdio::transport`]); a message too large to read, or a line that is not a
/// JSON-RPC message, still gets its answer ([`stdio::guard`]; rmcp drops both).
pub async fn serve_stdio(config: ServerConfig) -> anyhow::Result<()> {
    let server = FilestoreServer::new(&config)?;
    let writer = stdio::writer::Writer::stdout()?;
    let fast = Arc::new(stdio::fast::FastPath::default());
    let transport = stdio::transport::StdioTransport::start_with(
        std::io::stdin(),
        writer.clone(),
        fast.clone(),
    )?;
    let running = match rmcp::serve_server(server.clone(), transport).await {
        Ok(r) => {
            fast.ready(server, r.peer().clone(), writer.clone())?;
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
