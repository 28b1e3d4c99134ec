//! The options of `filestore serve`, as clap parses them: the server's own flags
//! ([`ServeArgs`]) and their groups (authentication, memory quotas, time limits,
//! the sandboxes' memory budget, object-store endpoints), of which `call` and
//! `snapshot` take some too.

use filestore::volumes::MountArg;

/// Options of `filestore serve`.
#[derive(clap::Args)]
pub(in crate::cli) struct ServeArgs {
    /// Serve streamable HTTP at ADDR (`PORT`, `HOST:PORT`; default 127.0.0.1:8765)
    /// at the path /mcp, instead of stdio.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8765")]
    pub(super) http: Option<String>,
    /// Mount a volume: /point=./dir (read-write), /point=./dir:ro, /point=mem:,
    /// /point=s3://bucket/prefix[:ro] (also gs://, az://, file:///dir; credentials
    /// from the environment, e.g. AWS_ACCESS_KEY_ID). A trailing :ro or :rw is the
    /// mode; a directory named so is written ./x:rw/. /point=./dir:cow is
    /// copy-on-write: the directory is only read, changes stay in memory
    /// (./dir:cow=./upper keeps them in ./upper for `filestore diff` and `filestore
    /// apply`; docs/cow.md). A /workspace mount replaces
    /// the default read-only current directory. A mount at / is a single workspace
    /// as the whole file system: no /workspace, /scratch or /tmp are added (nor
    /// /tool_calls, unless --config gives tools whose results it holds).
    #[arg(long = "mount", value_name = "/POINT=SPEC")]
    pub(super) mounts: Vec<MountArg>,
    /// Tool configuration file (tools.yaml, MCP Toolbox format).
    #[arg(long, value_name = "FILE")]
    pub(super) config: Option<std::path::PathBuf>,
    /// The toolset exposed at start (from --config).
    #[arg(long, value_name = "NAME")]
    pub(super) toolset: Option<String>,
    /// Agent configuration (docs/agents.md): the tools this server
    /// offers, including other MCP servers' tools by ref. Its refs are resolved at
    /// start (each upstream server connected, initialized and listed); a failing one
    /// stops the start, naming the ref and the reason, unless marked optional.
    #[arg(long, value_name = "FILE")]
    pub(super) agent: Option<std::path::PathBuf>,
    /// A directory of skills, mounted at /skills. It is watched while the server
    /// runs: skills added, changed or removed there reach every session at its next
    /// call (docs/skills.md#reloading).
    #[arg(long, value_name = "DIR")]
    pub(super) skills: Option<std::path::PathBuf>,
    /// Seconds between two looks at --skills for changes; a change is loaded once
    /// two looks in a row saw the same (0: load --skills once, at start).
    #[arg(long, value_name = "SECS", default_value_t = filestore::volumes::skills::watch::DEFAULT_POLL.as_secs(), requires = "skills")]
    pub(super) skills_poll_secs: u64,
    /// Offer filestore_execute: a bash-like shell over the mounts, run inside the
    /// sandbox (docs/shell.md). Off by default: with a writable mount it can change
    /// many files in one call.
    #[arg(long)]
    pub(super) shell: bool,
    /// Keep conversations in a state store (docs/state.md): DIR (which must exist),
    /// s3://bucket/prefix (also gs://, az://), or mem: (this process only). Each
    /// conversation's /scratch, /tool_calls and activated skills live there, so
    /// replicas sharing the store serve any conversation and a restart loses none.
    /// Clients name a conversation with the Filestore-Conversation header or
    /// _meta["filestore/conversation"]. Without it, each session's state is its own,
    /// in memory.
    #[arg(long, value_name = "SPEC")]
    pub(super) state: Option<String>,
    /// Seconds a conversation may go unused before --state removes it.
    #[arg(long, value_name = "SECS", default_value_t = filestore::mcp::conversations::DEFAULT_IDLE.as_secs(), requires = "state")]
    pub(super) conversation_idle_timeout: u64,
    /// The conversation of a session that names none (with --state), e.g. for the
    /// one session of stdio: a restarted server continues it.
    #[arg(long, value_name = "KEY", requires = "state")]
    pub(super) conversation: Option<String>,
    /// Sandboxes kept for the next MCP 2026-07-28 request of their conversation
    /// (with --state; 0: none), so a request does not load the configuration and
    /// restore the skills again. Each is checked against the conversation's state
    /// before use: one another replica changed since is made anew.
    #[arg(long, value_name = "N", default_value_t = filestore::mcp::sandbox_cache::DEFAULT_CAPACITY)]
    pub(super) conversation_cache: usize,
    /// Most conversations one authenticated identity may have in --state (0: no
    /// cap). A request naming a new conversation past it is refused (429) before
    /// anything of it is made. Without authentication there is no identity to cap.
    #[arg(long, value_name = "N", default_value_t = filestore::mcp::conversations::DEFAULT_MAX_PER_IDENTITY)]
    pub(super) max_conversations_per_identity: usize,
    #[command(flatten)]
    pub(super) timeouts: TimeoutArgs,
    #[command(flatten)]
    pub(super) quotas: QuotaArgs,
    #[command(flatten)]
    pub(super) sandbox_memory: SandboxMemoryArgs,
    #[command(flatten)]
    pub(super) objects: ObjectArgs,
    /// Most live HTTP sessions (each holds a sandbox). When full, the least recently
    /// used idle session is closed for a new one; if none is idle, 503 + Retry-After.
    #[arg(long, value_name = "N", default_value_t = 512)]
    pub(super) max_sessions: usize,
    /// Most live HTTP sessions of one client address (past it: that client's own
    /// least recently used idle session is closed, or 429 + Retry-After).
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub(super) max_sessions_per_client: usize,
    /// Seconds after which an unused HTTP session is closed.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub(super) session_idle_timeout: u64,
    /// Seconds an HTTP session must be unused before it may be closed to make room.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub(super) evict_idle_after: u64,
    /// Most open HTTP connections (each holds a file descriptor; at most half the
    /// process's limit). Past it, the oldest connection not answering a request is
    /// closed for a new one (one that never completed a request first), else the new
    /// one is.
    #[arg(long, value_name = "N", default_value_t = filestore::mcp::http_conn::MAX_CONNECTIONS)]
    pub(super) max_connections: usize,
    /// Most open HTTP connections of one client address (IPv6: of one /64), and of one
    /// authenticated identity, with the same eviction. Behind a reverse proxy every
    /// user shares its address: raise it.
    #[arg(long, value_name = "N", default_value_t = filestore::mcp::http_conn::MAX_CONNECTIONS_PER_CLIENT)]
    pub(super) max_connections_per_client: usize,
    /// Seconds a client may take to send a request's headers (from connecting, or
    /// from the previous response) before its connection is closed.
    #[arg(long, value_name = "SECS", default_value_t = filestore::mcp::http_conn::HEADER_TIMEOUT.as_secs())]
    pub(super) header_timeout: u64,
    /// Seconds a request body may take beyond one second per 16 KiB received (a body
    /// slower than that is answered 408 and its connection closed).
    #[arg(long, value_name = "SECS", default_value_t = filestore::mcp::http_conn::BODY_TIMEOUT.as_secs())]
    pub(super) body_timeout: u64,
    /// Over HTTP, a client's MCP roots may become /workspace only when they resolve
    /// (`..` and symbolic links resolved) to DIR or beneath it (repeatable; `{sub}`:
    /// the caller's own directory). Without it, HTTP clients' roots are ignored; over
    /// stdio roots are the local user's and always apply.
    #[arg(long = "http-roots-within", value_name = "DIR")]
    pub(super) http_roots_within: Vec<std::path::PathBuf>,
    /// An `Origin` allowed to use the HTTP server besides loopback ones (repeatable),
    /// e.g. https://app.example.com. Other origins get 403.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", value_parser = crate::mcp::http_origin::parse_allowed_origin)]
    pub(super) allowed_origins: Vec<String>,
    /// A `Host` header value the HTTP server answers besides loopback names and the
    /// address it is bound to (repeatable): the public name a proxy or a load balancer
    /// forwards, e.g. agents.example.com (any port) or agents.example.com:8443. Other
    /// names get 403 (DNS-rebinding protection).
    #[arg(long = "allowed-host", value_name = "HOST[:PORT]", value_parser = parse_allowed_host)]
    pub(super) allowed_hosts: Vec<String>,
    #[command(flatten)]
    pub(super) auth: AuthArgs,
}

/// Authentication of `serve --http` (docs/deploying.md#serving-many-users).
#[derive(clap::Args)]
pub(super) struct AuthArgs {
    /// Accept JWTs from this issuer (`iss`); their keys come from --auth-jwks, else
    /// from the issuer's OpenID configuration (`{ISSUER}/.well-known/openid-configuration`).
    #[arg(long, value_name = "URL")]
    pub(super) auth_issuer: Option<String>,
    /// The issuer's keys: a JWKS file or an http(s) URL.
    #[arg(long, value_name = "FILE|URL", requires = "auth_issuer")]
    pub(super) auth_jwks: Option<String>,
    /// This server's resource URL, the audience (`aud`) tokens must name and what the
    /// Protected Resource Metadata announces. Default: http://ADDR/mcp as bound.
    #[arg(long, value_name = "URL")]
    pub(super) auth_resource: Option<String>,
    /// The audience tokens must name, when not the resource URL (e.g. a Toolbox
    /// `generic` auth service's `audience`).
    #[arg(long, value_name = "AUD")]
    pub(super) auth_audience: Option<String>,
    /// Static bearer tokens: a JSON file {"tokens": [{"token", "sub", "claims"}]}.
    #[arg(long, value_name = "FILE")]
    pub(super) auth_tokens: Option<std::path::PathBuf>,
    /// Serve without authentication on an address other than loopback (anyone who
    /// can reach it gets every mount).
    #[arg(long)]
    pub(super) allow_unauthenticated: bool,
    /// An auth service of --config (`authServices`) that the bearer token verifies
    /// too: its tools' `authRequired` and auth-bound parameters take the token's
    /// claims (repeatable). Services of type `generic` with `mcpEnabled: true` do so
    /// without it, as in Toolbox.
    #[arg(long = "auth-service", value_name = "NAME")]
    pub(super) auth_services: Vec<String>,
    /// Most tool calls of one authenticated identity running at once (past it, a call
    /// fails with limit-exceeded at once).
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub(super) max_calls_per_identity: usize,
    /// Most live HTTP sessions of one authenticated identity.
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub(super) max_sessions_per_identity: usize,
}

impl AuthArgs {
    pub(super) fn enabled(&self) -> bool {
        self.auth_issuer.is_some() || self.auth_tokens.is_some()
    }

    /// The authenticator for a server bound at `local` (blocking: may fetch keys).
    pub(super) fn build(
        &self,
        local: std::net::SocketAddr,
    ) -> Result<Option<filestore::mcp::http_auth::Authenticator>, String> {
        use filestore::mcp::http_auth::{Authenticator, JwtVerifier, KeySource, StaticTokens};
        if !self.enabled() {
            return Ok(None);
        }
        let resource = self
            .auth_resource
            .clone()
            .unwrap_or_else(|| format!("http://{local}{}", filestore::mcp::HTTP_PATH));
        let tokens = match &self.auth_tokens {
            Some(p) => Some(StaticTokens::load(p).map_err(|e| format!("--auth-tokens: {e}"))?),
            None => None,
        };
        let jwt = match &self.auth_issuer {
            None => None,
            Some(issuer) => {
                let source = match &self.auth_jwks {
                    Some(j) if j.starts_with("http://") || j.starts_with("https://") => {
                        KeySource::Url(j.clone())
                    }
                    Some(j) => KeySource::File(j.into()),
                    None => KeySource::Url(
                        filestore::mcp::http_auth::discover_jwks_uri(issuer)
                            .map_err(|e| format!("--auth-issuer: {e}"))?,
                    ),
                };
                let audience = self.auth_audience.as_deref().unwrap_or(&resource);
                Some(
                    JwtVerifier::new(source, issuer, audience)
                        .map_err(|e| format!("--auth-jwks: {e}"))?,
                )
            }
        };
        Ok(Some(Authenticator { jwt, tokens, resource }))
    }
}

/// Memory quotas of in-memory volumes (`/scratch`, `/tool_calls`, `mem:` mounts).
#[derive(clap::Args)]
pub(in crate::cli) struct QuotaArgs {
    /// Most MiB of content in each in-memory volume of a session, and in each
    /// conversation's /scratch in a --state store (default 256). A write past it
    /// fails with limit-exceeded and changes nothing; the session goes on.
    #[arg(long, value_name = "MIB", default_value_t = filestore::volumes::DEFAULT_VOLUME_QUOTA >> 20)]
    volume_quota_mib: u64,
    /// Most MiB of content in all in-memory volumes of this process together
    /// (default 4096).
    #[arg(long, value_name = "MIB", default_value_t = filestore::volumes::DEFAULT_PROCESS_QUOTA >> 20)]
    process_quota_mib: u64,
    /// Most MiB one conversation keeps in its state store, everything together: its
    /// /scratch, stored tool results, copy-on-write upper layers, audit timeline and
    /// what its snapshots add (default 1024). Past it a write fails with
    /// limit-exceeded and changes nothing; the audit timeline alone may pass it by
    /// 16 MiB, then calls that change files are refused until room is made.
    #[arg(long, value_name = "MIB", default_value_t = filestore::volumes::DEFAULT_CONVERSATION_QUOTA >> 20)]
    conversation_quota_mib: u64,
}

/// How long a call may run (docs/mcp-server.md#time-limits).
#[derive(clap::Args, Clone, Copy)]
pub(in crate::cli) struct TimeoutArgs {
    /// Most seconds one tool call may run in the sandbox (the wall-clock deadline of
    /// every call, `filestore_*` and configured tools alike; default 30). Past it the
    /// call fails with limit-exceeded and the session goes on.
    #[arg(long, value_name = "SECS", default_value_t = filestore::engine::DEFAULT_CALL_DEADLINE.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
    call_timeout: u64,
    /// Most seconds a configured tool's handler (a SQL statement, an HTTP request) may
    /// run (default 30): it is cancelled past it, the statement stopped on the
    /// database. Also the deadline of a call that waits on a handler, when longer
    /// than --call-timeout.
    #[arg(long, value_name = "SECS", default_value_t = filestore::tools::DEFAULT_TOOL_TIMEOUT.as_secs(), value_parser = clap::value_parser!(u64).range(1..=86_400))]
    tool_timeout: u64,
    /// Most MiB of one configured tool's result (default 16, at most 64: the
    /// sandbox must hold it several times over). Rows and response bodies are
    /// counted as they arrive; past it the call fails with limit-exceeded.
    #[arg(long, value_name = "MIB", default_value_t = filestore::tools::DEFAULT_MAX_RESULT_BYTES >> 20, value_parser = clap::value_parser!(u64).range(1..=64))]
    tool_result_mib: u64,
}

impl TimeoutArgs {
    /// Sets the call deadline of `options` and the handler timeout of `registry`.
    pub(in crate::cli) fn apply(
        self,
        options: &mut filestore::SessionOptions,
        registry: &mut filestore::tools::ToolRegistry,
    ) {
        options.deadline = std::time::Duration::from_secs(self.call_timeout);
        registry.set_timeout(std::time::Duration::from_secs(self.tool_timeout));
        registry.set_max_result_bytes(self.tool_result_mib << 20);
    }
}

/// The memory budget of the live sandboxes (docs/security.md#memory).
#[derive(clap::Args, Clone, Copy)]
pub(super) struct SandboxMemoryArgs {
    /// Most MiB of linear memory all sandboxes may hold together (0: no bound).
    /// Default: half the memory of the machine (or of the cgroup, when lower). A call
    /// whose sandbox would grow past it fails with limit-exceeded naming this flag;
    /// the host and the other sessions go on.
    #[arg(long, value_name = "MIB")]
    sandbox_memory_mib: Option<u64>,
    /// Most MiB of linear memory the sandboxes of one authenticated identity may hold
    /// together (0: no bound). Default: a quarter of --sandbox-memory-mib. Without
    /// authentication there is no identity: the total applies alone.
    #[arg(long, value_name = "MIB")]
    sandbox_memory_per_identity_mib: Option<u64>,
}

impl SandboxMemoryArgs {
    /// The budget the flags give (their defaults from
    /// `MemoryBudgetConfig::server_default`).
    pub(super) fn budget(self) -> filestore::memory_budget::MemoryBudgetConfig {
        let cap = filestore::engine::DEFAULT_MEMORY_BYTES;
        let default = filestore::memory_budget::MemoryBudgetConfig::server_default(cap);
        let bytes = |mib: u64| (mib > 0).then(|| usize::try_from(mib << 20).unwrap_or(usize::MAX));
        let total = self.sandbox_memory_mib.map_or(default.total_bytes, bytes);
        let per_identity = match self.sandbox_memory_per_identity_mib {
            Some(mib) => bytes(mib),
            None => total.map(|t| (t / 4).max(cap)).or(default.per_identity_bytes),
        };
        filestore::memory_budget::MemoryBudgetConfig {
            total_bytes: total,
            per_identity_bytes: per_identity,
        }
    }
}

/// Where object-store mounts (`s3://...`) connect, besides what the environment says.
#[derive(clap::Args)]
pub(in crate::cli) struct ObjectArgs {
    /// Endpoint of an S3-compatible server for s3:// mounts (e.g.
    /// http://127.0.0.1:9000; an http:// endpoint is allowed without TLS). Default:
    /// AWS_ENDPOINT_URL, else AWS itself.
    #[arg(long, value_name = "URL")]
    pub(in crate::cli) s3_endpoint: Option<String>,
    /// Region of s3:// mounts. Default: AWS_REGION / AWS_DEFAULT_REGION, else us-east-1.
    #[arg(long, value_name = "REGION")]
    pub(in crate::cli) s3_region: Option<String>,
}

impl ObjectArgs {
    /// Gives every s3:// mount the endpoint and region of the command line.
    pub(in crate::cli) fn apply(&self, mounts: &mut [MountArg]) {
        for m in mounts {
            if let filestore::volumes::MountSource::Object(o) = &mut m.source
                && o.kind == filestore::volumes::object::StoreKind::S3
            {
                if self.s3_endpoint.is_some() {
                    o.endpoint = self.s3_endpoint.clone();
                }
                if self.s3_region.is_some() {
                    o.region = self.s3_region.clone();
                }
            }
        }
    }
}

impl QuotaArgs {
    pub(in crate::cli) fn apply(&self) {
        // Called once at start, before any volume exists.
        let _ = filestore::volumes::set_memory_quotas(
            self.volume_quota_mib << 20,
            self.process_quota_mib << 20,
        );
        filestore::volumes::set_conversation_quota(self.conversation_quota_mib << 20);
    }
}

/// `--allowed-host`: a host name or address with an optional port, as a `Host`
/// header carries it (no scheme, path or user).
fn parse_allowed_host(s: &str) -> Result<String, String> {
    let why = "expected HOST or HOST:PORT as a Host header carries it, e.g. agents.example.com or agents.example.com:8443";
    let authority: axum::http::uri::Authority =
        s.parse().map_err(|_| format!("'{s}' is not a host: {why}"))?;
    if s.contains(['@', '/']) || authority.host().is_empty() {
        return Err(format!("'{s}' is not a host: {why}"));
    }
    Ok(authority.as_str().to_ascii_lowercase())
}
