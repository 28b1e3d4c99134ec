//! One MCP session's sandbox: its [`Session`], replaced when a trap poisons it or
//! its mounts change (the client's roots, a conversation bound at `initialize`),
//! kept current with its conversation's state (`serve --state`), and what it has
//! told the client (the tool specs last listed, for `list_changed`). It offers the
//! host's own tools beside the session's ([`HostTool`]). Everything the MCP layer
//! does with a sandbox goes through here: the server ([`crate::server`]) runs
//! each request's work on it, and the prompt, resources and media layers read
//! through it.

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;

use super::approval::APPROVAL_TIMEOUT;
use super::host_tool::{HostContext, HostTool};
use crate::config::SandboxSource;
use filestore_guest::error::ErrorKind;
use filestore_runtime::tools::InvokeStatus;
use filestore_runtime::{CallOutput, Engine, Error, MountSpec, Session, SessionOptions};

/// The tools the host answers itself, offered beside the session's (see
/// [`HostTool`]).
const HOST_TOOLS: &[&dyn HostTool] = &[&super::snapshot_tool::SnapshotTool];

/// One MCP session's sandbox and what the client has been told about it.
pub(crate) struct Sandbox {
    engine: Engine,
    /// Start-up warnings to log to the client once initialized.
    pub(crate) startup_warnings: Vec<String>,
    options: SessionOptions,
    setup: Option<crate::config::SessionSetup>,
    /// Re-resolves the agent when an upstream catalog changed.
    catalog_refresh: Option<crate::config::CatalogRefresh>,
    /// The catalog generation the session last resolved against.
    catalog_seen: u64,
    /// The session's mounts, kept so a poisoned session can be replaced over the
    /// same volumes (in-memory content survives a trap).
    pub(crate) mounts: Vec<MountSpec>,
    session: Session,
    /// `session` was made over other mounts than `mounts` (the roots changed): it is
    /// replaced before any use, even when that failed the first time.
    stale: bool,
    /// The tool specs as last listed or checked: the reference for list_changed.
    /// Taken on first need, not when the sandbox is made: a 2026-07-28 request's
    /// sandbox lives for one call, and most calls change no tool.
    specs: Option<Vec<Value>>,
    /// The session's tools version when `specs` was taken; `None` forces a re-read.
    version: Option<u64>,
    /// The conversation whose state the session follows (`serve --state`).
    pub(crate) conversation: Option<super::conversations::Bound>,
    /// Still over the server's own mounts (no client's roots replaced
    /// `/workspace`): another request of its conversation may take it.
    own_mounts: bool,
    /// Serves more than one request: its session is replaced when a call left it
    /// large ([`Sandbox::reclaim`]). Not for a 2026-07-28 request's own sandbox,
    /// dropped with its request.
    pub(crate) lasting: bool,
    /// What the session's instance held after its last call, which a replacement
    /// gets ([`Held`]).
    held: Held,
}

/// What a session's instance holds that its replacement must get, read after every
/// call: an instance a trap poisoned can no longer be asked, so what it held is
/// known only from before. Without this an agent could drop an approval gate by
/// making a call trap on purpose. The rest of what an agent relies on is the
/// host's and stays (the mounts and their content, a copy-on-write mount's
/// changes, the configuration and agent loaded again by the setup, the audit
/// timeline); each shell command starts afresh anyway.
#[derive(Default)]
struct Held {
    /// The active skills and approval gates of a session without a conversation
    /// (a conversation's document keeps them, and its replacement gets them
    /// through [`super::conversations::Bound::pull`]).
    skills: Vec<String>,
    gates: Vec<filestore_guest::invoke::ApprovalGate>,
    /// The shell's `chmod` bits (no document keeps them).
    modes: Vec<(String, u32)>,
}

impl Sandbox {
    pub(crate) fn new(
        config: SandboxSource<'_>,
        cancel: Arc<std::sync::atomic::AtomicBool>,
        conversation: Option<super::conversations::Bound>,
        extra_mounts: Vec<MountSpec>,
    ) -> filestore_runtime::Result<Sandbox> {
        let mut mounts = (config.mounts)()?;
        mounts.extend(extra_mounts);
        let mut options = SessionOptions { cancel: Some(cancel), ..config.options.clone() };
        audit_options(&mut options, conversation.as_ref());
        if options.memory_identity.is_none() {
            // The memory budget per identity counts the authenticated caller's.
            options.memory_identity = super::http::identity::current_identity().map(|i| i.segment);
        }
        if let Some(bound) = &conversation {
            mounts.extend(bound.mounts());
            bound.bind_cow_uppers(&mut mounts)?;
            conversation_options(&mut options, bound);
        }
        // Read before the setup resolves the agent: a change after it is then seen.
        let catalog_seen = config.catalog_refresh.map_or(0, |r| *r.changes.borrow());
        let mut session = config.engine.session_with(mounts.clone(), options.clone())?;
        if let Some(setup) = config.setup {
            setup(&mut session)?;
        }
        // The conversation's skills are restored by the first listing or call
        // (`synced`): one read of its state per request, not two.
        let version = session.tools_version().ok();
        Ok(Sandbox {
            engine: config.engine.clone(),
            startup_warnings: config.startup_warnings.to_vec(),
            options,
            setup: config.setup.cloned(),
            catalog_refresh: config.catalog_refresh.cloned(),
            catalog_seen,
            mounts,
            session,
            stale: false,
            specs: None,
            version,
            conversation,
            own_mounts: true,
            lasting: true,
            held: Held::default(),
        })
    }

    /// The state document the sandbox is current with, when another request of its
    /// conversation may take it ([`super::sandbox_cache`]): its session live and
    /// over the server's own mounts, and brought up to the document once.
    pub(crate) fn stamp(&self) -> Option<super::conversations::Stamp> {
        if self.stale || !self.own_mounts || self.session.is_poisoned() {
            return None;
        }
        // Not cached large (its replacement failed, or it holds a parked call).
        if self.session.memory_bytes() > filestore_runtime::memory_budget::RECLAIM_ABOVE_BYTES {
            return None;
        }
        self.conversation.as_ref()?.stamp()
    }

    /// The flag cancelling the sandbox's running call.
    pub(crate) fn cancel_flag(&self) -> Arc<std::sync::atomic::AtomicBool> {
        self.options.cancel.clone().unwrap_or_default()
    }

    /// Serves the conversation `bound` from now on (a client named it at
    /// `initialize`): its volumes replace the ones of the conversation made for the
    /// session, and the session is rebuilt over them.
    pub(crate) fn rebind(
        &mut self,
        bound: super::conversations::Bound,
    ) -> filestore_runtime::Result<()> {
        let points = bound.points();
        self.mounts.retain(|m| !points.contains(&m.point.as_str()));
        self.mounts.extend(bound.mounts());
        bound.bind_cow_uppers(&mut self.mounts)?;
        conversation_options(&mut self.options, &bound);
        audit_options(&mut self.options, Some(&bound));
        self.conversation = Some(bound);
        self.stale = true;
        self.session()?;
        self.refresh_specs();
        Ok(())
    }

    /// The session, brought up to its conversation's state (skills activated by
    /// another session of it): before a listing or a call.
    pub(crate) fn synced(&mut self) -> filestore_runtime::Result<&mut Session> {
        self.session()?;
        if let Some(bound) = &mut self.conversation
            && bound.pull(&mut self.session)?
        {
            self.version = None;
        }
        if self.conversation.as_mut().is_some_and(|b| b.take_cow_behind()) {
            // A copy-on-write mount changed in another session: its component reads
            // the state anew (in-memory state of the session goes with it, skills
            // are restored from the document).
            self.stale = true;
            self.session()?;
        }
        Ok(&mut self.session)
    }

    /// Records in the conversation's state what the last call changed. A failure
    /// is the operator's to see; the call's own answer stands (its files are
    /// written), only its skills would be missing in another session.
    fn record(&mut self) {
        if self.session.is_poisoned() {
            return;
        }
        if let Err(e) = self.hold() {
            // Not expected of a live instance; the replacement then has what the
            // last call before this one left.
            eprintln!("filestore serve: reading what the sandbox holds failed: {e}");
        }
        if let Some(bound) = &mut self.conversation
            && let Err(e) = bound.push(&mut self.session)
        {
            eprintln!(
                "filestore serve: conversation {}: recording its state failed: {e}",
                bound.name()
            );
        }
    }

    /// Reads into [`Held`] what a replacement of the session must get.
    fn hold(&mut self) -> filestore_runtime::Result<()> {
        let modes = self.session.shell_modes()?;
        let (skills, gates) = match &self.conversation {
            Some(_) => Default::default(),
            None => (self.session.active_skills()?, self.session.approval_gates()?),
        };
        self.held = Held { skills, gates, modes };
        Ok(())
    }

    /// Replaces what is mounted at and beneath `/workspace` by `workspace` (the
    /// client's roots) and rebuilds the session over the new mounts; the other
    /// volumes (in-memory `/scratch` and `/tool_calls` included) are kept as they are.
    /// When the new session cannot be made, the old one is not used again either:
    /// each later request tries again, and fails saying why until it succeeds.
    pub(crate) fn replace_workspace(
        &mut self,
        workspace: Vec<MountSpec>,
    ) -> filestore_runtime::Result<()> {
        let under = |p: &str| p == crate::config::DEFAULT_WORKSPACE || p.starts_with("/workspace/");
        let mut mounts: Vec<MountSpec> =
            self.mounts.iter().filter(|m| !under(&m.point)).cloned().collect();
        mounts.splice(0..0, workspace);
        self.mounts = mounts;
        self.own_mounts = false;
        self.stale = true;
        self.session()?;
        self.refresh_specs();
        Ok(())
    }

    /// The live session, replacing one an earlier trap poisoned (or one over mounts
    /// since replaced).
    pub(crate) fn session(&mut self) -> filestore_runtime::Result<&mut Session> {
        if self.stale || self.session.is_poisoned() {
            // The old instance goes first: its memory is back in the budget before
            // the new one asks for any (it is not used again in any case).
            self.session.release();
            let mut fresh = self.engine.session_with(self.mounts.clone(), self.options.clone())?;
            if let Some(setup) = &self.setup {
                setup(&mut fresh)?;
            }
            if let Some(bound) = &mut self.conversation {
                bound.new_session();
                bound.pull(&mut fresh)?;
            } else {
                // Gates first: held follow-ups are approvals owed (as `pull` does).
                fresh.restore_approval_gates(&self.held.gates)?;
                for e in fresh.restore_skills(&self.held.skills)? {
                    eprintln!("filestore serve: skill not restored in a new sandbox: {e}");
                }
            }
            fresh.restore_shell_modes(&self.held.modes)?;
            self.session = fresh;
            self.stale = false;
            // A new session counts versions from its own start: compare specs next time.
            self.version = None;
        }
        if let Some(refresh) = &self.catalog_refresh {
            let now = *refresh.changes.borrow();
            if now != self.catalog_seen {
                self.catalog_seen = now;
                // On an error (an explicitly listed upstream tool is gone) the
                // session keeps its tools; a call of the gone one says so.
                let _ = (refresh.reapply)(&mut self.session);
                self.version = None;
            }
        }
        Ok(&mut self.session)
    }

    /// Replaces the session by a fresh one with the same state once a request is
    /// over, when its linear memory grew past
    /// [`RECLAIM_ABOVE_BYTES`](filestore_runtime::memory_budget::RECLAIM_ABOVE_BYTES) or a
    /// trap left it unusable: linear memory never shrinks, so an idle sandbox would
    /// otherwise keep (and keep charged to the memory budget) what its largest call
    /// needed. Done now rather than when the budget runs short: an idle sandbox's
    /// memory is resident until then, and the replacement costs little beside the
    /// call that grew it. Not while a call waits for approval in the instance. A
    /// replacement that cannot be made now is made by the next request, which
    /// then says why it could not.
    pub(crate) fn reclaim(&mut self) {
        let poisoned = self.session.is_poisoned();
        let large =
            self.session.memory_bytes() > filestore_runtime::memory_budget::RECLAIM_ABOVE_BYTES;
        if !self.lasting || self.stale || !(poisoned || large) || self.session.has_parked_calls() {
            return;
        }
        // `held` is current: every call and decision ends with `record`.
        self.stale = true;
        let _ = self.session();
    }

    /// Runs one tool for a caller with `claims` (verified; `null`: none), a shell
    /// command's output going to `output` while it runs.
    pub(crate) fn call(
        &mut self,
        tool: &str,
        args: &Value,
        claims: &Value,
        output: Option<filestore_runtime::shell_output::OutputSink>,
    ) -> Called {
        if let Some(host) = self.host_tool(tool) {
            return self.call_host(host, args);
        }
        let out = match (self.synced(), output) {
            (Ok(s), Some(sink)) => s.with_output(sink, |s| s.call_with_claims(tool, args, claims)),
            (Ok(s), None) if crate::fast_call::passes_json_through(tool) => {
                s.call_unparsed(tool, args, claims).map(crate::fast_call::pass_json_through)
            }
            (Ok(s), None) => s.call_with_claims(tool, args, claims),
            (Err(e), _) => return Called { out: Err(e), specs_changed: false, poisoned: false },
        };
        let poisoned = self.session.is_poisoned();
        self.record();
        Called { out, specs_changed: self.refresh_specs(), poisoned }
    }

    /// The host tool named `tool` that the sandbox offers, if any ([`HOST_TOOLS`]).
    fn host_tool(&self, tool: &str) -> Option<&'static dyn HostTool> {
        let conversation = self.conversation.as_ref();
        HOST_TOOLS.iter().copied().find(|t| t.name() == tool && t.offered(conversation))
    }

    /// Runs a call of a host tool. When it changed the session's state under it (a
    /// snapshot restored: the conversation's files, skills and gates), a new
    /// session is made over that state.
    fn call_host(&mut self, tool: &dyn HostTool, args: &Value) -> Called {
        let context = HostContext {
            conversation: self.conversation.as_ref(),
            audit: self.options.audit.as_deref(),
        };
        let ran = tool.call(context, args);
        let mut specs_changed = false;
        if ran.state_changed {
            self.stale = true;
            if self.synced().is_ok() {
                specs_changed = self.refresh_specs();
            }
        }
        Called { out: ran.out, specs_changed, poisoned: false }
    }

    /// Approves (runs) or rejects a call parked for approval.
    pub(crate) fn decide(&mut self, approval_id: &str, approve: bool) -> Called {
        let session = match self.session() {
            Ok(s) => s,
            Err(e) => return Called { out: Err(e), specs_changed: false, poisoned: false },
        };
        let out = if approve {
            session.approve(approval_id).and_then(|o| match (o.status, o.error) {
                (InvokeStatus::Failed, Some(e)) => Err(Error::Filestore(e)),
                _ => Ok(CallOutput { json: o.envelope, text: o.text }),
            })
        } else {
            session
                .reject(approval_id)
                .map(|()| CallOutput { json: Value::Null, text: String::new() })
        };
        let poisoned = self.session.is_poisoned();
        self.record();
        Called { out, specs_changed: self.refresh_specs(), poisoned }
    }

    /// Moves the call the guest parked as `approval_id` into the conversation's
    /// state (MCP 2026-07-28: the answer comes in a later request, maybe to another
    /// replica); the id the answer must name.
    pub(crate) fn park(
        &mut self,
        approval_id: &str,
        tool: &str,
        args: &Value,
    ) -> filestore_runtime::Result<String> {
        // The guest's parked call dies with this request's sandbox: dropped now.
        let _ = self.session()?.reject(approval_id);
        let Some(bound) = &mut self.conversation else {
            return Err(Error::Filestore(filestore_guest::Error::new(
                ErrorKind::Unauthorized,
                format!(
                    "tool '{tool}' requires approval, and under MCP 2026-07-28 the pending call is kept in the request's conversation: start the server with --state and name a conversation (Filestore-Conversation header or _meta[\"{}\"]); nothing ran",
                    super::conversations::META_KEY
                ),
            )));
        };
        bound.park_approval(tool, args, APPROVAL_TIMEOUT)
    }

    /// Takes the parked call `id` from the conversation's state.
    pub(crate) fn take_parked(
        &mut self,
        id: &str,
    ) -> filestore_runtime::Result<Option<filestore_store::conversation::PendingApproval>> {
        match &mut self.conversation {
            Some(bound) => bound.take_approval(id, APPROVAL_TIMEOUT),
            None => Ok(None),
        }
    }

    /// Re-reads the tool specs when the session's tools version moved (or is
    /// unknown); true when they differ from the last ones seen.
    ///
    /// The version check is one small typed call, where the specs are a few KB of
    /// JSON: most calls (reads, listings) change nothing and pay only the check. The
    /// comparison covers names, schemas, descriptions and annotations, so any change
    /// a client would want to re-list for is noticed, whatever caused it.
    fn refresh_specs(&mut self) -> bool {
        // First: a replaced (poisoned) session resets `self.version`.
        if self.session().is_err() {
            return false;
        }
        let known = self.version;
        let session = &mut self.session;
        let version = session.tools_version().ok();
        if version.is_some() && version == known {
            return false;
        }
        match session.tool_specs() {
            Ok(specs) => {
                self.version = version;
                if self.specs.as_ref() != Some(&specs) {
                    self.specs = Some(specs);
                    return true;
                }
                false
            }
            Err(_) => false,
        }
    }

    /// Whether a call of `tool` that ended in `out` was of a tool the session does
    /// not offer: `not-found` from the component for a name missing from the specs
    /// (a name of a configured tool not yet activated included). A `not-found` of a
    /// listed tool is about its arguments (a missing file).
    ///
    /// The specs are read here when no listing or change read them yet (a client
    /// may call without listing).
    pub(crate) fn unknown_tool(
        &mut self,
        tool: &str,
        out: &filestore_runtime::Result<CallOutput>,
    ) -> bool {
        let not_found = matches!(out, Err(e) if e.kind() == Some(ErrorKind::NotFound));
        if !not_found || self.host_tool(tool).is_some() {
            return false;
        }
        if self.specs.is_none() {
            self.specs = self.session.tool_specs().ok();
        }
        self.specs.as_ref().is_some_and(|specs| !specs.iter().any(|s| s["name"] == tool))
    }

    pub(crate) fn tools(&mut self) -> filestore_runtime::Result<Vec<Value>> {
        let session = self.synced()?;
        let version = session.tools_version().ok();
        let mut specs = session.tool_specs()?;
        self.specs = Some(specs.clone());
        self.version = version;
        let conversation = self.conversation.as_ref();
        specs.extend(HOST_TOOLS.iter().filter(|t| t.offered(conversation)).map(|t| t.spec()));
        Ok(specs)
    }
}

/// What one call did.
pub(crate) struct Called {
    pub(crate) out: filestore_runtime::Result<CallOutput>,
    /// The set of tool specs changed: tell the client.
    pub(crate) specs_changed: bool,
    /// The call poisoned the session (a trap or limit); the next call gets a new one.
    pub(crate) poisoned: bool,
}

/// Locks the sandbox. A panic while it was held cannot leave the sandbox half
/// updated in a way later calls could observe (the guest state lives in the store,
/// whose calls either complete or poison the session), so a poisoned lock is reused.
pub(crate) fn lock(sandbox: &Mutex<Sandbox>) -> MutexGuard<'_, Sandbox> {
    sandbox.lock().unwrap_or_else(|p| p.into_inner())
}

/// Session options for a conversation's sessions: result ids unique across the
/// replicas writing its `/tool_calls`, and the conversation as the session id tool
/// handlers see (the same on every replica).
fn conversation_options(options: &mut SessionOptions, bound: &super::conversations::Bound) {
    options.unique_call_ids = true;
    options.session_id = Some(format!("conversation-{}", bound.key()));
}

/// The session's audit timeline (docs/audit.md): the conversation's, else one in
/// memory for the sandbox (kept across the sessions replacing a poisoned one); the
/// caller is the verified principal of an authenticated HTTP request. An embedder's
/// own timeline in the server's options is kept as it is.
fn audit_options(options: &mut SessionOptions, bound: Option<&super::conversations::Bound>) {
    let identity = match &options.audit {
        Some(_) if bound.is_none() => return,
        Some(a) => a.identity().map(str::to_string),
        None => super::http::identity::current_identity().map(|i| i.subject),
    };
    let log = match bound {
        Some(b) => b.audit_log(identity),
        None => filestore_runtime::audit::AuditLog::memory(identity),
    };
    options.audit = Some(Arc::new(log));
}
