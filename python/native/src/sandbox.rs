//! The in-process session: what `filestore serve` gives one stdio client (its mounts
//! with serve's defaults, configured tools, skills, the shell when asked, a sandbox
//! replaced after a trap over the same volumes), without the process or MCP.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;

use filestore::handlers::ShippedHandlers as _;
use filestore::volumes::{MountArg, MountSource};
use filestore::{Engine, MountSpec, Session, SessionOptions};
use serde_json::{Value, json};

/// What a sandbox is made of: `serve`'s `--mount`, `--shell`, `--config`,
/// `--toolset` and `--skills`, and the directory relative specs (and the default
/// `/workspace`, `.`) are taken from.
pub struct Plan {
    pub mounts: Vec<String>,
    pub cwd: Option<PathBuf>,
    pub shell: bool,
    pub config: Option<PathBuf>,
    pub toolset: Option<String>,
    pub skills: Option<PathBuf>,
}

/// A failure for Python: the kind (`not-found`, `invalid-argument`, `trap`,
/// `session-start`, `session-closed`...) and the message, as `error[KIND]: message`.
#[derive(Debug)]
pub struct Failure {
    pub kind: String,
    pub message: String,
}

impl Failure {
    fn of(e: &filestore::Error) -> Failure {
        Failure { kind: e.kind_name().to_string(), message: e.to_string() }
    }

    /// The sandbox could not be made (kind `session-start`, as when `serve` does not
    /// start); `what` names the part that failed.
    fn start(what: &str, e: impl std::fmt::Display) -> Failure {
        Failure { kind: "session-start".into(), message: format!("{what}: {e}") }
    }

    /// A call on a closed session (kind `session-closed`).
    pub fn closed() -> Failure {
        Failure { kind: "session-closed".into(), message: "the session was closed".into() }
    }
}

/// The process's one engine: the component deserialised (or compiled) once, shared
/// by every sandbox, as `serve` shares one between its sessions.
fn engine() -> Result<Engine, Failure> {
    static ENGINE: OnceLock<Result<Engine, String>> = OnceLock::new();
    ENGINE
        .get_or_init(|| {
            filestore::new_engine().map_err(|e| format!("error[{}]: {e}", e.kind_name()))
        })
        .clone()
        .map_err(|e| Failure::start("starting the engine", e))
}

/// `--config`'s files as `(name, text)` and the `--toolset` chosen from them.
struct Config {
    files: Vec<(String, String)>,
    toolset: Option<String>,
}

/// One session and what rebuilding it takes.
pub struct Sandbox {
    engine: Engine,
    mounts: Vec<MountSpec>,
    options: SessionOptions,
    config: Option<Config>,
    /// `None` after a replacement failed; the next call tries again.
    session: Option<Session>,
}

impl Sandbox {
    /// Opens `plan`'s mounts and configuration and starts the first session.
    pub fn open(plan: Plan) -> Result<Sandbox, Failure> {
        let mounts = mount_args(&plan)?;
        let mut specs = Vec::with_capacity(mounts.len() + 1);
        for m in &mounts {
            specs.push(m.open().map_err(|e| Failure::start(&format!("--mount {}", m.point), e))?);
        }
        if let Some(dir) = &plan.skills {
            let sv = filestore::volumes::skills::SkillsVolume::load_dir(dir)
                .map_err(|e| Failure::start(&format!("--skills {}", dir.display()), e))?;
            specs.push(MountSpec::new("/skills", Arc::new(sv.volume())).read_only());
        }
        let config = match &plan.config {
            None => None,
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| Failure::start(&format!("--config {}", path.display()), e))?;
                Some(Config {
                    files: vec![(path.display().to_string(), text)],
                    toolset: plan.toolset.clone(),
                })
            }
        };
        if plan.toolset.is_some() && config.is_none() {
            return Err(Failure::start(
                "--toolset",
                "it selects a toolset of --config; give --config too",
            ));
        }
        let options = SessionOptions {
            tools: Arc::new(filestore::tools::ToolRegistry::with_builtin_handlers()),
            shell: plan.shell,
            cancel: Some(Arc::new(AtomicBool::new(false))),
            ..Default::default()
        };
        let mut sandbox =
            Sandbox { engine: engine()?, mounts: specs, options, config, session: None };
        sandbox.session =
            Some(sandbox.start().map_err(|f| Failure::start("starting the session", f.message))?);
        Ok(sandbox)
    }

    /// The flag that cancels the running call.
    pub fn cancel_handle(&self) -> Arc<AtomicBool> {
        self.options.cancel.clone().expect("set in open")
    }

    /// A new session over the mounts (in-memory content is kept), configured.
    fn start(&self) -> Result<Session, Failure> {
        let mut session = self
            .engine
            .session_with(self.mounts.clone(), self.options.clone())
            .map_err(|e| Failure::of(&e))?;
        if let Some(Config { files, toolset }) = &self.config {
            match session.load_config(files).map_err(|e| Failure::of(&e))? {
                Ok(_) => {}
                Err(issues) => {
                    let all: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
                    return Err(Failure {
                        kind: "config".into(),
                        message: format!("--config: {}", all.join("; ")),
                    });
                }
            }
            session.select_toolset(toolset.as_deref()).map_err(|e| Failure::of(&e))?;
        }
        Ok(session)
    }

    /// The live session, replaced first when a trap or limit ended the last one.
    fn session(&mut self) -> Result<&mut Session, Failure> {
        if self.session.as_ref().is_none_or(Session::is_poisoned) {
            self.session = None;
            self.session = Some(self.start()?);
        }
        Ok(self.session.as_mut().expect("just set"))
    }

    /// One call: its structured result as MCP's `structuredContent` (an object; any
    /// other value wrapped in `{"result": ...}`), or its failure as `serve` words it.
    pub fn call(&mut self, tool: &str, args: &Value) -> Result<Value, Failure> {
        let session = self.session()?;
        match session.call_with_claims(tool, args, &Value::Null) {
            Ok(out) => Ok(match out.json {
                Value::Object(_) => out.json,
                other => json!({ "result": other }),
            }),
            Err(e) => {
                let mut f = Failure::of(&e);
                if session.is_poisoned() {
                    f.message.push_str("; the sandbox is replaced by a fresh one for the next call (volumes are kept)");
                }
                Err(f)
            }
        }
    }

    /// The tool specs the session offers now.
    pub fn tools(&mut self) -> Result<Value, Failure> {
        self.session()?.tool_specs().map(Value::Array).map_err(|e| Failure::of(&e))
    }
}

/// `plan`'s mounts as `serve` makes them: parsed, relative directories taken from
/// `cwd`, serve's defaults added (`/workspace` = `cwd` read-only, `/scratch`,
/// `/tool_calls`, `/tmp`; none beside a mount at `/`, except a `/tool_calls` for configured
/// tools' results).
fn mount_args(plan: &Plan) -> Result<Vec<MountArg>, Failure> {
    let mut user = Vec::with_capacity(plan.mounts.len());
    for spec in &plan.mounts {
        let m: MountArg =
            spec.parse().map_err(|e| Failure::start(&format!("--mount {spec}"), e))?;
        user.push(m);
    }
    let single = filestore::mcp::is_single_workspace(&user);
    let refused = plan.cwd.is_none() && filestore::mcp::check_default_workspace(&user).is_err();
    let mut mounts = filestore::mcp::default_mounts(user);
    if refused {
        // Started in / or a home directory: serve leaves /workspace out too.
        mounts.retain(|m| m.point != filestore::mcp::DEFAULT_WORKSPACE);
    }
    if single
        && plan.config.is_some()
        && !mounts.iter().any(|m| m.point == filestore::mcp::DEFAULT_TOOL_CALLS)
    {
        mounts.push(MountArg {
            point: filestore::mcp::DEFAULT_TOOL_CALLS.into(),
            source: MountSource::Memory,
            read_only: true,
            cow: None,
        });
    }
    if let Some(cwd) = &plan.cwd {
        for m in &mut mounts {
            if let MountSource::Dir(p) = &mut m.source
                && p.is_relative()
            {
                *p = cwd.join(&*p);
            }
            if let Some(filestore::volumes::CowUpper::Dir(p)) = &mut m.cow
                && p.is_relative()
            {
                *p = cwd.join(&*p);
            }
        }
    }
    Ok(mounts)
}
