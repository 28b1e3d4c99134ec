//! What `serve` mounts: the user's mounts and the defaults, the volumes a `--state`
//! store supplies per conversation in place of in-memory ones, and the skills.

use std::process::ExitCode;

use filestore::MountSpec;
use filestore::volumes::MountArg;
use filestore_guest::error::{Error as FsError, ErrorKind};

use super::plan::ServePlan;
use crate::cli::output::fail;

impl ServePlan {
    /// The mounts to serve: the user's and the defaults (see
    /// `filestore::mcp::default_mounts`), without a `/workspace` that must not be the
    /// current directory; and whether `/workspace` is only ever the client's roots.
    pub(super) fn mounts(&mut self) -> (Vec<MountArg>, bool) {
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
    pub(super) fn conversations(
        &self,
        mut mounts: Vec<MountArg>,
    ) -> Result<
        (Vec<MountArg>, Option<std::sync::Arc<filestore::mcp::conversations::Conversations>>),
        FsError,
    > {
        use filestore::conversation::{StateSpec, StateStore};
        use filestore::mcp::conversations::Conversations;
        let Some(spec) = &self.args.state else { return Ok((mounts, None)) };
        let spec_text = spec;
        let invalid = |m: String| FsError::new(ErrorKind::InvalidArgument, m);
        let mut spec: StateSpec = spec.parse().map_err(|e| invalid(format!("--state: {e}")))?;
        if let StateSpec::Object(o) = &mut spec
            && o.kind == filestore::volumes::object::StoreKind::S3
        {
            // --s3-endpoint and --s3-region apply to the state store as to s3:// mounts.
            o.endpoint = self.args.objects.s3_endpoint.clone().or(o.endpoint.take());
            o.region = self.args.objects.s3_region.clone().or(o.region.take());
        }
        match spec.create_missing_dir() {
            Ok(true) => {
                eprintln!("filestore serve: created the --state directory {spec_text} (mode 700)")
            }
            Ok(false) => {}
            Err(e) => {
                return Err(FsError::new(
                    ErrorKind::Backend,
                    format!("--state: creating {spec_text}: {e}"),
                ));
            }
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
}

/// Loads `--skills DIR` at start: invalid skills are reported and left out.
pub(super) fn load_skills(
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

/// The mounts of each new session: `mounts` opened for its caller, and the skills.
pub(super) fn session_mounts(
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
