//! The `filestore` command: one-shot tool calls, config checks, and the MCP server.
//!
//! In the library (not only the binary) so that other executables run the same
//! command: the `filestore` the Python wheel installs calls [`run`] from its native
//! extension.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use filestore::handlers::ShippedHandlers as _;
use filestore::volumes::MountArg;
use filestore::{Engine, MountSpec};
use filestore_guest::error::{Error as FsError, ErrorKind};

use output::{FailKind, fail, fail_with, warn_uncached};
use tools::{agent_failure, service_specs};

mod call;
mod component;
mod cow;
mod output;
mod skills_reload;
mod snapshot;
mod tools;

/// A sandboxed virtual filesystem and tool engine for AI agents.
#[derive(Parser)]
#[command(name = "filestore", version = filestore::engine::VERSION, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one tool call in a fresh sandbox; print the JSON result on stdout.
    Call(call::CallArgs),
    /// Validate tool configuration files (tools.yaml, v1 or v2) and print the resolved
    /// tools, with the ones this host cannot run marked as such. Every error is printed
    /// with file, document, line and column. Exit status: 0 valid, 1 errors,
    /// 2 valid but (with --strict) some tools are not runnable here.
    Check {
        /// Configuration files, checked together (names unique across them).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<std::path::PathBuf>,
        /// Treat tools this host cannot run as a failure (exit 2).
        #[arg(long)]
        strict: bool,
    },
    /// Convert a tool configuration to the v2 format (one YAML document per resource),
    /// on stdout or into a file. Invalid input is reported as by `check` (exit 1).
    Migrate {
        /// The configuration file (v1, v2 or mixed).
        #[arg(value_name = "FILE")]
        file: std::path::PathBuf,
        /// Write here instead of stdout (atomically: a temporary file renamed).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<std::path::PathBuf>,
    },
    /// Write the WebAssembly component this binary runs (the exact bytes), for hosts
    /// in other languages (jco, wasmtime-py, wasmtime CLI...), and optionally the WIT
    /// package it implements.
    Component {
        /// Where to write the component (`.wasm`).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: std::path::PathBuf,
        /// Also write the WIT package (filestore.wit, tools.wit, diagnostics.wit)
        /// into this directory (created if missing).
        #[arg(long, value_name = "DIR")]
        wit: Option<std::path::PathBuf>,
    },
    /// Print the changes of a copy-on-write mount kept in a directory (the mount of
    /// a session, /POINT=DIR:cow=UPPER), or in a conversation (/POINT=DIR:cow with
    /// --state and --conversation), as a patch `git apply` accepts in DIR, with
    /// the changed files named first; binary files are named, not patched
    /// (docs/cow.md#diff). Nothing is written.
    Diff {
        /// The mount as the session had it: /POINT=DIR:cow=UPPER.
        #[arg(value_name = "/POINT=DIR:cow=UPPER")]
        mount: MountArg,
        /// Print the structured result (files and patch) as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        conversation: cow::ConversationArgs,
    },
    /// Write the changes of a copy-on-write mount kept in a directory (or in a
    /// conversation, with --state and --conversation) onto its lower directory, each file atomically, and empty the upper directory. Refused,
    /// writing nothing, when a changed file's lower version is not the one the
    /// session saw (each such path named, exit 1) (docs/cow.md#apply). The host's
    /// step: agents cannot run it.
    Apply {
        /// The mount as the session had it: /POINT=DIR:cow=UPPER.
        #[arg(value_name = "/POINT=DIR:cow=UPPER")]
        mount: MountArg,
        /// Only check: print the conflicts and the paths an apply refuses (inside
        /// .git), as JSON; write nothing (exit 1 when there are any).
        #[arg(long)]
        check: bool,
        /// Append a record of the apply (tool `host:apply`, the paths written and
        /// deleted, or the conflict) to this audit store, the one the sessions of
        /// the mount recorded into: DIR (which must exist), s3://bucket/prefix or
        /// mem: (docs/audit.md). A `--check` writes nothing and records nothing.
        #[arg(long, value_name = "SPEC")]
        audit: Option<String>,
        #[command(flatten)]
        conversation: cow::ConversationArgs,
    },
    /// A conversation's snapshots in a state store (docs/snapshots.md): create, list,
    /// restore, delete, or fork one into a new conversation.
    Snapshot(Box<snapshot::SnapshotArgs>),
    /// Serve the filestore tools, prompt and resources as an MCP server (stdio by
    /// default). Defaults: the current directory read-only at /workspace, an
    /// in-memory /scratch and /tmp, and the read-only tool-results volume at /tool_calls.
    Serve(Box<ServeArgs>),
}

/// Options of `filestore serve`.
#[derive(clap::Args)]
struct ServeArgs {
    /// Serve streamable HTTP at ADDR (`PORT`, `HOST:PORT`; default 127.0.0.1:8765)
    /// at the path /mcp, instead of stdio.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8765")]
    http: Option<String>,
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
    mounts: Vec<MountArg>,
    /// Tool configuration file (tools.yaml, MCP Toolbox format).
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    /// The toolset exposed at start (from --config).
    #[arg(long, value_name = "NAME")]
    toolset: Option<String>,
    /// Agent configuration (docs/agents.md): the tools this server
    /// offers, including other MCP servers' tools by ref. Its refs are resolved at
    /// start (each upstream server connected, initialized and listed); a failing one
    /// stops the start, naming the ref and the reason, unless marked optional.
    #[arg(long, value_name = "FILE")]
    agent: Option<std::path::PathBuf>,
    /// A directory of skills, mounted at /skills. It is watched while the server
    /// runs: skills added, changed or removed there reach every session at its next
    /// call (docs/skills.md#reloading).
    #[arg(long, value_name = "DIR")]
    skills: Option<std::path::PathBuf>,
    /// Seconds between two looks at --skills for changes; a change is loaded once
    /// two looks in a row saw the same (0: load --skills once, at start).
    #[arg(long, value_name = "SECS", default_value_t = filestore::volumes::skills::watch::DEFAULT_POLL.as_secs(), requires = "skills")]
    skills_poll_secs: u64,
    /// Offer filestore_execute: a bash-like shell over the mounts, run inside the
    /// sandbox (docs/shell.md). Off by default: with a writable mount it can change
    /// many files in one call.
    #[arg(long)]
    shell: bool,
    /// Keep conversations in a state store (docs/state.md): DIR (which must exist),
    /// s3://bucket/prefix (also gs://, az://), or mem: (this process only). Each
    /// conversation's /scratch, /tool_calls and activated skills live there, so
    /// replicas sharing the store serve any conversation and a restart loses none.
    /// Clients name a conversation with the Filestore-Conversation header or
    /// _meta["filestore/conversation"]. Without it, each session's state is its own,
    /// in memory.
    #[arg(long, value_name = "SPEC")]
    state: Option<String>,
    /// Seconds a conversation may go unused before --state removes it.
    #[arg(long, value_name = "SECS", default_value_t = filestore::mcp::conversations::DEFAULT_IDLE.as_secs(), requires = "state")]
    conversation_idle_timeout: u64,
    /// The conversation of a session that names none (with --state), e.g. for the
    /// one session of stdio: a restarted server continues it.
    #[arg(long, value_name = "KEY", requires = "state")]
    conversation: Option<String>,
    /// Sandboxes kept for the next MCP 2026-07-28 request of their conversation
    /// (with --state; 0: none), so a request does not load the configuration and
    /// restore the skills again. Each is checked against the conversation's state
    /// before use: one another replica changed since is made anew.
    #[arg(long, value_name = "N", default_value_t = filestore::mcp::sandbox_cache::DEFAULT_CAPACITY)]
    conversation_cache: usize,
    /// Most conversations one authenticated identity may have in --state (0: no
    /// cap). A request naming a new conversation past it is refused (429) before
    /// anything of it is made. Without authentication there is no identity to cap.
    #[arg(long, value_name = "N", default_value_t = filestore::mcp::conversations::DEFAULT_MAX_PER_IDENTITY)]
    max_conversations_per_identity: usize,
    #[command(flatten)]
    timeouts: TimeoutArgs,
    #[command(flatten)]
    quotas: QuotaArgs,
    #[command(flatten)]
    sandbox_memory: SandboxMemoryArgs,
    #[command(flatten)]
    objects: ObjectArgs,
    /// Most live HTTP sessions (each holds a sandbox). When full, the least recently
    /// used idle session is closed for a new one; if none is idle, 503 + Retry-After.
    #[arg(long, value_name = "N", default_value_t = 512)]
    max_sessions: usize,
    /// Most live HTTP sessions of one client address (past it: that client's own
    /// least recently used idle session is closed, or 429 + Retry-After).
    #[arg(long, value_name = "N", default_value_t = 64)]
    max_sessions_per_client: usize,
    /// Seconds after which an unused HTTP session is closed.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    session_idle_timeout: u64,
    /// Seconds an HTTP session must be unused before it may be closed to make room.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    evict_idle_after: u64,
    /// Most open HTTP connections (each holds a file descriptor; at most half the
    /// process's limit). Past it, the oldest connection not answering a request is
    /// closed for a new one (one that never completed a request first), else the new
    /// one is.
    #[arg(long, value_name = "N", default_value_t = filestore::mcp::http_conn::MAX_CONNECTIONS)]
    max_connections: usize,
    /// Most open HTTP connections of one client address (IPv6: of one /64), and of one
    /// authenticated identity, with the same eviction. Behind a reverse proxy every
    /// user shares its address: raise it.
    #[arg(long, value_name = "N", default_value_t = filestore::mcp::http_conn::MAX_CONNECTIONS_PER_CLIENT)]
    max_connections_per_client: usize,
    /// Seconds a client may take to send a request's headers (from connecting, or
    /// from the previous response) before its connection is closed.
    #[arg(long, value_name = "SECS", default_value_t = filestore::mcp::http_conn::HEADER_TIMEOUT.as_secs())]
    header_timeout: u64,
    /// Seconds a request body may take beyond one second per 16 KiB received (a body
    /// slower than that is answered 408 and its connection closed).
    #[arg(long, value_name = "SECS", default_value_t = filestore::mcp::http_conn::BODY_TIMEOUT.as_secs())]
    body_timeout: u64,
    /// Over HTTP, a client's MCP roots may become /workspace only when they resolve
    /// (`..` and symbolic links resolved) to DIR or beneath it (repeatable; `{sub}`:
    /// the caller's own directory). Without it, HTTP clients' roots are ignored; over
    /// stdio roots are the local user's and always apply.
    #[arg(long = "http-roots-within", value_name = "DIR")]
    http_roots_within: Vec<std::path::PathBuf>,
    /// An `Origin` allowed to use the HTTP server besides loopback ones (repeatable),
    /// e.g. https://app.example.com. Other origins get 403.
    #[arg(long = "allowed-origin", value_name = "ORIGIN", value_parser = crate::mcp::http_origin::parse_allowed_origin)]
    allowed_origins: Vec<String>,
    /// A `Host` header value the HTTP server answers besides loopback names and the
    /// address it is bound to (repeatable): the public name a proxy or a load balancer
    /// forwards, e.g. agents.example.com (any port) or agents.example.com:8443. Other
    /// names get 403 (DNS-rebinding protection).
    #[arg(long = "allowed-host", value_name = "HOST[:PORT]", value_parser = parse_allowed_host)]
    allowed_hosts: Vec<String>,
    #[command(flatten)]
    auth: AuthArgs,
}

/// Authentication of `serve --http` (docs/deploying.md#serving-many-users).
#[derive(clap::Args)]
struct AuthArgs {
    /// Accept JWTs from this issuer (`iss`); their keys come from --auth-jwks, else
    /// from the issuer's OpenID configuration (`{ISSUER}/.well-known/openid-configuration`).
    #[arg(long, value_name = "URL")]
    auth_issuer: Option<String>,
    /// The issuer's keys: a JWKS file or an http(s) URL.
    #[arg(long, value_name = "FILE|URL", requires = "auth_issuer")]
    auth_jwks: Option<String>,
    /// This server's resource URL, the audience (`aud`) tokens must name and what the
    /// Protected Resource Metadata announces. Default: http://ADDR/mcp as bound.
    #[arg(long, value_name = "URL")]
    auth_resource: Option<String>,
    /// The audience tokens must name, when not the resource URL (e.g. a Toolbox
    /// `generic` auth service's `audience`).
    #[arg(long, value_name = "AUD")]
    auth_audience: Option<String>,
    /// Static bearer tokens: a JSON file {"tokens": [{"token", "sub", "claims"}]}.
    #[arg(long, value_name = "FILE")]
    auth_tokens: Option<std::path::PathBuf>,
    /// Serve without authentication on an address other than loopback (anyone who
    /// can reach it gets every mount).
    #[arg(long)]
    allow_unauthenticated: bool,
    /// An auth service of --config (`authServices`) that the bearer token verifies
    /// too: its tools' `authRequired` and auth-bound parameters take the token's
    /// claims (repeatable). Services of type `generic` with `mcpEnabled: true` do so
    /// without it, as in Toolbox.
    #[arg(long = "auth-service", value_name = "NAME")]
    auth_services: Vec<String>,
    /// Most tool calls of one authenticated identity running at once (past it, a call
    /// fails with limit-exceeded at once).
    #[arg(long, value_name = "N", default_value_t = 8)]
    max_calls_per_identity: usize,
    /// Most live HTTP sessions of one authenticated identity.
    #[arg(long, value_name = "N", default_value_t = 16)]
    max_sessions_per_identity: usize,
}

impl AuthArgs {
    fn enabled(&self) -> bool {
        self.auth_issuer.is_some() || self.auth_tokens.is_some()
    }

    /// The authenticator for a server bound at `local` (blocking: may fetch keys).
    fn build(
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
struct QuotaArgs {
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
struct TimeoutArgs {
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
    fn apply(
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
struct SandboxMemoryArgs {
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
    fn budget(self) -> filestore::memory_budget::MemoryBudgetConfig {
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
struct ObjectArgs {
    /// Endpoint of an S3-compatible server for s3:// mounts (e.g.
    /// http://127.0.0.1:9000; an http:// endpoint is allowed without TLS). Default:
    /// AWS_ENDPOINT_URL, else AWS itself.
    #[arg(long, value_name = "URL")]
    s3_endpoint: Option<String>,
    /// Region of s3:// mounts. Default: AWS_REGION / AWS_DEFAULT_REGION, else us-east-1.
    #[arg(long, value_name = "REGION")]
    s3_region: Option<String>,
}

impl ObjectArgs {
    /// Gives every s3:// mount the endpoint and region of the command line.
    fn apply(&self, mounts: &mut [MountArg]) {
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
    fn apply(&self) {
        // Called once at start, before any volume exists.
        let _ = filestore::volumes::set_memory_quotas(
            self.volume_quota_mib << 20,
            self.process_quota_mib << 20,
        );
        filestore::volumes::set_conversation_quota(self.conversation_quota_mib << 20);
    }
}

/// Runs the command with `argv` (`argv[0]` is the program name): parses it as the
/// `filestore` binary does (printing help, the version or a usage error and exiting
/// as clap does) and returns the exit status.
pub fn run<I, T>(argv: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let code = main_with(Cli::parse_from(argv));
    // ExitCode is opaque but comparable: find the status it was made from.
    (0..=u8::MAX).find(|&n| ExitCode::from(n) == code).map_or(1, i32::from)
}

/// The `filestore` binary's `main`: [`run`] with this process's arguments.
pub fn main() -> ExitCode {
    main_with(Cli::parse())
}

fn main_with(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Call(args) => call::run(args),
        Command::Check { files, strict } => tools::check(&files, strict),
        Command::Diff { mount, json, conversation } => cow::diff(&mount, json, &conversation),
        Command::Apply { mount, check, audit, conversation } => {
            let audit = match audit.map(|spec| call::audit_mount(&spec)).transpose() {
                Ok(a) => a,
                Err(e) => return fail_with(&e),
            };
            cow::apply(&mount, check, audit.as_ref(), &conversation)
        }
        Command::Component { output, wit } => component::write_component(&output, wit.as_deref()),
        Command::Snapshot(args) => snapshot::run(*args),
        Command::Migrate { file, output } => tools::migrate(&file, output.as_deref()),
        Command::Serve(mut args) => {
            args.quotas.apply();
            args.objects.apply(&mut args.mounts);
            serve(*args)
        }
    }
}

/// Which MCP roots may become `/workspace` (see `filestore::mcp::roots`): over stdio
/// any (the client is the local user's), over HTTP only those within
/// `--http-roots-within`, and none when the user mounted `/workspace` (or `/`).
fn roots_policy(
    args: &ServeArgs,
    workspace_from_roots: bool,
) -> Result<filestore::mcp::roots::RootsPolicy, FsError> {
    use filestore::mcp::roots::RootsPolicy;
    let invalid = |m: String| FsError::new(ErrorKind::InvalidArgument, m);
    let within = &args.http_roots_within;
    if within.is_empty() {
        return Ok(match (workspace_from_roots, args.http.is_some()) {
            (false, _) => RootsPolicy::Off,
            (true, false) => RootsPolicy::Any,
            (true, true) => RootsPolicy::Within(Vec::new()),
        });
    }
    if args.http.is_none() {
        return Err(invalid("--http-roots-within is for --http: over stdio the client's MCP roots are the local user's and apply as they are".into()));
    }
    if !workspace_from_roots {
        return Err(invalid("--http-roots-within: a --mount at /workspace (or /) is given, so MCP roots choose nothing; drop one of them".into()));
    }
    for dir in within {
        let shown = dir.display();
        if dir.to_string_lossy().contains(filestore::volumes::IDENTITY_PLACEHOLDER) {
            if !args.auth.enabled() {
                return Err(invalid(format!(
                    "--http-roots-within {shown}: {{sub}} is the caller's identity: it needs authentication (--auth-issuer or --auth-tokens)"
                )));
            }
        } else if !std::fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
            return Err(invalid(format!("--http-roots-within {shown}: not a directory")));
        }
    }
    Ok(RootsPolicy::Within(within.clone()))
}

/// `filestore serve`: its arguments checked ([`ServePlan::check`]), then run.
fn serve(args: ServeArgs) -> ExitCode {
    match ServePlan::check(args) {
        Ok(plan) => plan.run(),
        Err(e) => fail(e.kind(), e),
    }
}

/// `serve`'s arguments, checked: the limits they set, which MCP roots may become
/// `/workspace`, and every contradiction between flags refused (`invalid-argument`)
/// in one place, before anything is opened.
struct ServePlan {
    args: ServeArgs,
    pool: filestore::mcp::http_pool::PoolConfig,
    connections: filestore::mcp::http_conn::ConnLimits,
    roots: filestore::mcp::roots::RootsPolicy,
    /// Why the current directory is not the default `/workspace` (it is / or a home).
    no_workspace_reason: Option<String>,
}

impl ServePlan {
    fn check(args: ServeArgs) -> Result<ServePlan, FsError> {
        let invalid = |m: &str| Err(FsError::new(ErrorKind::InvalidArgument, m));
        let pool = filestore::mcp::http_pool::PoolConfig {
            max_sessions: args.max_sessions.max(1),
            max_per_client: args.max_sessions_per_client.max(1),
            max_per_identity: args.auth.max_sessions_per_identity.max(1),
            idle_timeout: std::time::Duration::from_secs(args.session_idle_timeout.max(1)),
            evict_idle_after: std::time::Duration::from_secs(args.evict_idle_after),
        };
        let connections = filestore::mcp::http_conn::ConnLimits {
            max_connections: args.max_connections.max(1),
            max_per_client: args.max_connections_per_client.max(1),
            header_timeout: std::time::Duration::from_secs(args.header_timeout.max(1)),
            body_timeout: std::time::Duration::from_secs(args.body_timeout.max(1)),
        };
        // Without --mount /workspace, the client's MCP roots decide it (mcp::roots); the
        // current directory is the default only when it is neither / nor a home.
        let workspace_from_roots =
            !args.mounts.iter().any(|m| m.point == filestore::mcp::DEFAULT_WORKSPACE)
                && !filestore::mcp::is_single_workspace(&args.mounts);
        let store = state_dir(args.state.as_deref());
        if let Some((m, dir)) = store.as_ref().and_then(|s| mount_over_store(&args.mounts, s)) {
            return Err(FsError::new(
                ErrorKind::InvalidArgument,
                format!(
                    "--state {}: the store and the directory mounted at {} ({}) lie inside one another, so every conversation's files, results and audit would be reachable through the mount; keep the store outside every mounted directory",
                    args.state.as_deref().unwrap_or_default(),
                    m.point,
                    dir.display()
                ),
            ));
        }
        let mut no_workspace_reason =
            filestore::mcp::check_default_workspace(&args.mounts).err().map(|e| e.to_string());
        let default_workspace =
            !args.mounts.iter().any(|m| m.point == filestore::mcp::DEFAULT_WORKSPACE);
        if let (Some(store), true, Ok(cwd)) =
            (&store, default_workspace, std::env::current_dir().and_then(|d| d.canonicalize()))
            && (store.starts_with(&cwd) || cwd.starts_with(store))
        {
            // The default /workspace is the current directory, not asked for: left out
            // (said at start, as for a home directory) rather than refusing to start.
            no_workspace_reason.get_or_insert_with(|| {
                "the current directory holds the --state store (every conversation's files would be readable through it), so it is not the default /workspace".to_string()
            });
        }
        let roots = roots_policy(&args, workspace_from_roots)?;
        let per_identity = args.mounts.iter().any(MountArg::per_identity);
        if per_identity && !(args.http.is_some() && args.auth.enabled()) {
            return invalid(
                "a --mount with {sub} is made per caller: it needs --http with authentication (--auth-issuer or --auth-tokens)",
            );
        }
        if args.auth.enabled() && args.http.is_none() {
            return invalid(
                "--auth-* protects the HTTP server: give --http too (stdio is one local user)",
            );
        }
        if args.toolset.is_some() && args.config.is_none() {
            return invalid("--toolset selects a toolset of --config; give --config too");
        }
        if args.toolset.is_some() && args.agent.is_some() {
            return invalid(
                "--toolset and --agent both choose the tools offered: an agent configuration lists its tools itself (configured ones by name)",
            );
        }
        Ok(ServePlan { args, pool, connections, roots, no_workspace_reason })
    }

    /// Opens what the plan names (mounts, skills, configuration, agent), then serves
    /// until the transport ends.
    fn run(mut self) -> ExitCode {
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
        let engine = match Engine::with_config(engine) {
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

    /// The mounts to serve: the user's and the defaults (see
    /// `filestore::mcp::default_mounts`), without a `/workspace` that must not be the
    /// current directory; and whether `/workspace` is only ever the client's roots.
    fn mounts(&mut self) -> (Vec<MountArg>, bool) {
        let args = &mut self.args;
        let single_workspace = filestore::mcp::is_single_workspace(&args.mounts);
        let mut mounts = filestore::mcp::default_mounts(std::mem::take(&mut args.mounts));
        // Configured tools store (and offload) their results in /tool_calls: without it a
        // large result would reach the model whole.
        if single_workspace
            && (args.config.is_some() || args.agent.is_some())
            && !mounts.iter().any(|m| m.point == filestore::mcp::DEFAULT_TOOL_CALLS)
        {
            mounts.push(MountArg {
                point: filestore::mcp::DEFAULT_TOOL_CALLS.into(),
                source: filestore::volumes::MountSource::Memory,
                read_only: true,
                cow: None,
            });
        }
        if let Some(why) = &self.no_workspace_reason {
            mounts.retain(|m| m.point != filestore::mcp::DEFAULT_WORKSPACE);
            let then = if self.roots.reads_roots() {
                "/workspace will be the client's MCP roots, if it offers any"
            } else {
                "there is no /workspace (over HTTP, clients' MCP roots apply only within --http-roots-within)"
            };
            eprintln!("filestore serve: {why}; {then}");
        }
        // Over HTTP with --http-roots-within, /workspace is the client's roots or nothing:
        // a client offering none must not get the directory the server was started in.
        let roots_only = args.http.is_some() && self.roots.reads_roots();
        if roots_only {
            mounts.retain(|m| m.point != filestore::mcp::DEFAULT_WORKSPACE);
        }
        (mounts, roots_only)
    }

    /// With `--state`: the store opened, and the mounts it supplies (an in-memory
    /// `/scratch` or `/tool_calls` among `mounts`) taken out of `mounts`, since each
    /// session gets its conversation's instead.
    #[allow(clippy::type_complexity)]
    fn conversations(
        &self,
        mut mounts: Vec<MountArg>,
    ) -> Result<
        (Vec<MountArg>, Option<std::sync::Arc<filestore::mcp::conversations::Conversations>>),
        FsError,
    > {
        use filestore::conversation::{StateSpec, StateStore};
        use filestore::mcp::conversations::Conversations;
        let Some(spec) = &self.args.state else { return Ok((mounts, None)) };
        let invalid = |m: String| FsError::new(ErrorKind::InvalidArgument, m);
        let mut spec: StateSpec = spec.parse().map_err(|e| invalid(format!("--state: {e}")))?;
        if let StateSpec::Object(o) = &mut spec
            && o.kind == filestore::volumes::object::StoreKind::S3
        {
            // --s3-endpoint and --s3-region apply to the state store as to s3:// mounts.
            o.endpoint = self.args.objects.s3_endpoint.clone().or(o.endpoint.take());
            o.region = self.args.objects.s3_region.clone().or(o.region.take());
        }
        if let Some(why) = spec.exposure() {
            eprintln!("filestore serve: warning: --state {why}");
        }
        let store = StateStore::open(&spec).map_err(|e| {
            let kind = match e.kind {
                filestore::conversation::StateErrorKind::Storage(k) => k,
                _ => ErrorKind::InvalidArgument,
            };
            FsError::new(kind, format!("--state: {e}"))
        })?;
        if let Some(key) = &self.args.conversation {
            filestore::conversation::ConversationKey::scoped("", key)
                .map_err(|e| invalid(format!("--conversation: {e}")))?;
        }
        let mut supplied = |point: &str| {
            let before = mounts.len();
            mounts.retain(|m| {
                !(m.point == point && matches!(m.source, filestore::volumes::MountSource::Memory))
            });
            mounts.len() != before
        };
        let scratch = supplied(filestore::mcp::DEFAULT_SCRATCH);
        let tool_calls = supplied(filestore::mcp::DEFAULT_TOOL_CALLS);
        let idle = std::time::Duration::from_secs(self.args.conversation_idle_timeout.max(1));
        let c = Conversations::new(store, idle, scratch, tool_calls)
            .with_default_key(self.args.conversation.clone())
            .with_max_per_identity(self.args.max_conversations_per_identity);
        Ok((mounts, Some(std::sync::Arc::new(c))))
    }

    /// Which auth services the bearer token verifies: named ones, and Toolbox's
    /// `generic` services with `mcpEnabled: true` (which also turn authentication on
    /// when no --auth-issuer is given: their authorizationServer and audience). Sets
    /// them in `config`; returns the services' own token verifiers.
    fn auth_services(
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
                for w in errors.into_iter().chain(warnings) {
                    eprintln!("filestore serve: warning: {w}");
                    config.startup_warnings.push(w);
                }
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
    fn install_tools(
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

/// Loads `--skills DIR` at start: invalid skills are reported and left out.
fn load_skills(
    dir: Option<&std::path::Path>,
    summary: &mut String,
    startup_warnings: &mut Vec<String>,
) -> Result<Option<filestore::volumes::skills::SkillsVolume>, ExitCode> {
    Ok(match dir {
        None => None,
        Some(dir) => match filestore::volumes::skills::SkillsVolume::load_dir(dir) {
            Ok(sv) => {
                for p in sv.problems() {
                    eprintln!("filestore serve: skipped {p}");
                    startup_warnings.push(format!("skipped {p}"));
                }
                summary.push_str(&format!(
                    ", /skills={} (ro, {} skills)",
                    dir.display(),
                    sv.skills().len()
                ));
                Some(sv)
            }
            Err(e) => return Err(fail(e.kind(), format!("--skills {}: {e}", dir.display()))),
        },
    })
}

/// The local directory of a `--state` spec, resolved, when it is one that exists.
fn state_dir(spec: Option<&str>) -> Option<std::path::PathBuf> {
    match spec?.parse().ok()? {
        filestore::conversation::StateSpec::Dir(p) => p.canonicalize().ok(),
        _ => None,
    }
}

/// The first mount whose local directory (a directory mount, a copy-on-write mount's
/// lower or upper directory) and the state store `store` lie inside one another,
/// with that directory.
fn mount_over_store<'m>(
    mounts: &'m [MountArg],
    store: &std::path::Path,
) -> Option<(&'m MountArg, std::path::PathBuf)> {
    use filestore::volumes::{CowUpper, MountSource};
    mounts.iter().find_map(|m| {
        let mut dirs = Vec::new();
        if let MountSource::Dir(p) = &m.source {
            dirs.push(p.clone());
        }
        if let Some(CowUpper::Dir(p)) = &m.cow {
            dirs.push(p.clone());
        }
        dirs.into_iter().find_map(|d| {
            let d = d.canonicalize().ok()?;
            (store.starts_with(&d) || d.starts_with(store)).then_some((m, d))
        })
    })
}

/// The mounts of each new session: `mounts` opened for its caller, and the skills.
fn session_mounts(
    mounts: Vec<MountArg>,
    skills: Option<filestore::volumes::MemoryVolume>,
) -> impl Fn() -> filestore::Result<Vec<MountSpec>> + Send + Sync + 'static {
    move || {
        // The caller of the HTTP request creating this session, when authenticated:
        // its mounts are made for it. Without one (the tool count at start; every
        // HTTP request is authenticated when a mount needs it), those are left out.
        let segment = filestore::mcp::http_auth::current_identity().map(|i| i.segment);
        let mut specs: Vec<MountSpec> = mounts
            .iter()
            .filter(|m| segment.is_some() || !m.per_identity())
            .map(|m| m.open_for(segment.as_deref()))
            .collect::<Result<_, _>>()?;
        if let Some(v) = &skills {
            specs.push(MountSpec::new("/skills", std::sync::Arc::new(v.clone())).read_only());
        }
        Ok(specs)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `serve ARGS`, checked.
    fn check(args: &[&str]) -> Result<ServePlan, FsError> {
        let argv = ["filestore", "serve"].into_iter().chain(args.iter().copied());
        match Cli::try_parse_from(argv).expect("clap accepts the arguments").command {
            Command::Serve(args) => ServePlan::check(*args),
            _ => unreachable!("a serve command"),
        }
    }

    /// The refusal of `args`: an `invalid-argument` error's message.
    fn refusal(args: &[&str]) -> String {
        match check(args) {
            Ok(_) => panic!("{args:?} was accepted"),
            Err(e) => {
                assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{e}");
                e.to_string()
            }
        }
    }

    #[test]
    fn contradicting_flags_are_refused_before_anything_opens() {
        let mount = "/workspace=mem:";
        let cases: [(&[&str], &str); 6] = [
            (&["--mount", mount, "--toolset", "t"], "--toolset selects a toolset of --config"),
            (
                &["--mount", mount, "--toolset", "t", "--config", "c.yaml", "--agent", "a.yaml"],
                "--toolset and --agent both choose",
            ),
            (&["--mount", mount, "--auth-tokens", "t.json"], "--auth-* protects the HTTP server"),
            (&["--mount", "/workspace=./{sub}"], "a --mount with {sub} is made per caller"),
            (&["--http-roots-within", "/"], "--http-roots-within is for --http"),
            (
                &["--http", "--mount", mount, "--http-roots-within", "/"],
                "a --mount at /workspace (or /) is given",
            ),
        ];
        for (args, said) in cases {
            let why = refusal(args);
            assert!(why.contains(said), "{args:?}: {why}");
        }
    }

    #[test]
    fn limits_are_at_least_one_and_roots_follow_the_transport() {
        use filestore::mcp::roots::RootsPolicy;
        let plan = check(&[
            "--http",
            "--max-sessions",
            "0",
            "--max-connections",
            "0",
            "--body-timeout",
            "0",
        ])
        .unwrap();
        assert_eq!(plan.pool.max_sessions, 1);
        assert_eq!(plan.connections.max_connections, 1);
        assert_eq!(plan.connections.body_timeout, std::time::Duration::from_secs(1));
        assert!(matches!(plan.roots, RootsPolicy::Within(ref dirs) if dirs.is_empty()));
        assert!(matches!(check(&[]).unwrap().roots, RootsPolicy::Any));
        assert!(matches!(check(&["--mount", "/workspace=mem:"]).unwrap().roots, RootsPolicy::Off));
    }
}
