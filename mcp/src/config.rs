//! What every session of a server is made from: the mount points `filestore serve`
//! provides and the mounts it adds ([`default_mounts`]), how a session is set up and
//! its catalog refreshed, what a new sandbox reads of the server's configuration
//! ([`SandboxSource`]). Below every other module: the sandbox, the conversations,
//! the server and the transports read it.

use std::sync::Arc;

use filestore_runtime::{Engine, MountSpec, SessionOptions};
use filestore_volumes::{MountArg, MountSource};

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
pub type MountFactory = Arc<dyn Fn() -> filestore_runtime::Result<Vec<MountSpec>> + Send + Sync>;

/// Prepares each new session after it is created (and each replacement of a
/// poisoned one): loads the tool configuration, selects the toolset.
pub type SessionSetup =
    Arc<dyn Fn(&mut filestore_runtime::Session) -> filestore_runtime::Result<()> + Send + Sync>;

/// Re-resolution of an agent when an upstream server's tool list changed (see
/// [`filestore_handlers::agent::Agent::changes`]): each session re-runs `reapply` before it next
/// lists or calls, and each initialized client is sent `notifications/tools/list_changed`.
#[derive(Clone)]
pub struct CatalogRefresh {
    /// Changes whenever an upstream catalog did.
    pub changes: tokio::sync::watch::Receiver<u64>,
    /// Re-resolves the session's agent (`Session::load_agent`).
    pub reapply: SessionSetup,
}

/// The part of a [`ServerConfig`](crate::ServerConfig) each new sandbox is made
/// from: below the sandbox, which the server configuration (it holds the sandbox
/// cache) is not.
pub(crate) struct SandboxSource<'a> {
    pub engine: &'a Engine,
    pub mounts: &'a MountFactory,
    pub options: &'a SessionOptions,
    pub setup: Option<&'a SessionSetup>,
    pub catalog_refresh: Option<&'a CatalogRefresh>,
    pub startup_warnings: &'a [String],
}

/// Refuses the default workspace (the directory the server was started in) when that
/// is `/` or the user's home directory: some desktop clients start servers in `/`,
/// which would expose the whole host, and a home directory holds every personal
/// file and key. An explicit `--mount /workspace=...` is the user's choice and is
/// not checked.
pub fn check_default_workspace(user: &[MountArg]) -> Result<(), filestore_runtime::Error> {
    if user.iter().any(|m| m.point == DEFAULT_WORKSPACE || m.point == "/") {
        return Ok(());
    }
    let cwd = std::env::current_dir().and_then(|d| d.canonicalize()).map_err(|e| {
        filestore_runtime::Error::mount_with(
            "cannot resolve the current directory for /workspace",
            e,
        )
    })?;
    let home = std::env::var_os("HOME").and_then(|h| std::path::Path::new(&h).canonicalize().ok());
    let what = if cwd == std::path::Path::new("/") {
        "the root of the file system"
    } else if home.as_ref() == Some(&cwd) {
        "your home directory"
    } else {
        return Ok(());
    };
    Err(filestore_runtime::Error::mount(format!(
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
                (Some(filestore_volumes::CowUpper::Memory), _) => "cow".to_string(),
                (Some(filestore_volumes::CowUpper::Dir(u)), _) => format!("cow={}", u.display()),
                (None, true) => "ro".to_string(),
                (None, false) => "rw".to_string(),
            };
            format!("{}={} ({mode})", m.point, src)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a failed instantiation (no instance slot left) reads in a setup error: the
/// HTTP pool answers it as capacity (503), other setup failures as they are.
pub(crate) const INSTANTIATION_FAILED: &str = "instantiating the component";
