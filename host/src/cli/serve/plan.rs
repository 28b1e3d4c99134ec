//! `serve`'s arguments checked into a [`ServePlan`]: the limits they set, which MCP
//! roots may become `/workspace`, and every contradiction between flags refused
//! before anything is opened.

use filestore::volumes::MountArg;
use filestore_guest::error::{Error as FsError, ErrorKind};

use super::args::ServeArgs;

/// `serve`'s arguments, checked: the limits they set, which MCP roots may become
/// `/workspace`, and every contradiction between flags refused (`invalid-argument`)
/// in one place, before anything is opened.
pub(super) struct ServePlan {
    pub(super) args: ServeArgs,
    pub(super) pool: filestore::mcp::http_pool::PoolConfig,
    pub(super) connections: filestore::mcp::http_conn::ConnLimits,
    pub(super) roots: filestore::mcp::roots::RootsPolicy,
    /// Why the current directory is not the default `/workspace` (it is / or a home).
    pub(super) no_workspace_reason: Option<String>,
}

impl ServePlan {
    pub(super) fn check(args: ServeArgs) -> Result<ServePlan, FsError> {
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

#[cfg(test)]
mod tests {
    use clap::Parser as _;

    use super::*;
    use crate::cli::{Cli, Command};

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
