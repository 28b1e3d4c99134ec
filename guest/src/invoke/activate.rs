//! Skill activation: reading a skill's `SKILL.md` makes its `allowed-tools` (and,
//! with a descriptor, the skill itself) callable in the session
//! (docs/architecture.md#skills).

use super::{Sandbox, builtins};
use crate::error::{Error, ErrorKind, Result};

/// Activates the `allowed-tools` of the skill whose `SKILL.md` is at `path` (an entry
/// of type `skill`, i.e. validated when the skills volume was loaded). Called when
/// the agent reads a skill with `filestore_read`. Unknown tools are reported in the
/// activation, not fatal; tools already offered are not duplicated.
pub fn activate_skill(
    session: &dyn Sandbox,
    path: &str,
) -> Result<crate::skills::active::Activation> {
    let skill = read_skill(session, path)?;
    let descriptor = read_descriptor(session, &skill.path, &skill)?;
    let mut st = session.tool_state().borrow_mut();
    let names = ToolNames::of(&st);
    let known = |t: &str| names.known(t);
    let is_static = |t: &str| names.is_static(t);
    // The skill as a tool: bound to the configuration now (it may have changed since
    // the skills were loaded), and never shadowing a tool the session already has.
    let mut not_callable = None;
    let callable = match descriptor {
        None => None,
        Some(d) => {
            let taken = known(&skill.name) && st.skills.callable(&skill.name).is_none();
            match crate::skills::descriptor::bind(&skill, &d, st.config.as_ref()) {
                Ok(_) if taken => {
                    not_callable = Some(format!("a tool named '{}' already exists", skill.name));
                    None
                }
                Ok(t) => Some(t),
                Err(why) => {
                    not_callable = Some(why);
                    None
                }
            }
        }
    };
    let mut active = std::mem::take(&mut st.skills);
    let mut act = active.activate(&skill, known, is_static, callable);
    act.not_callable = not_callable;
    st.skills = active;
    if !act.added.is_empty() || !act.removed.is_empty() {
        st.version += 1;
    }
    Ok(act)
}

/// The tool names a session knows, for deciding what a skill's names refer to.
struct ToolNames {
    exposed: Vec<String>,
    dynamic: Vec<String>,
    configured: Vec<String>,
    /// With an agent loaded: its offered tools are static, its `available` provider
    /// tools are known (a skill offers them), and so are the built-ins it leaves out.
    agent_offered: Vec<String>,
    agent_available: Vec<String>,
    has_agent: bool,
}

impl ToolNames {
    fn of(st: &super::state::ToolState) -> ToolNames {
        let agent_offered: Vec<String> = st
            .agent
            .as_ref()
            .map(|a| a.offered().map(|(n, _)| n.clone()).collect())
            .unwrap_or_default();
        let agent_available = st
            .agent
            .as_ref()
            .map(|a| {
                a.provider_names()
                    .filter(|n| !agent_offered.iter().any(|o| o == n))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        ToolNames {
            exposed: st.exposed().into_iter().map(|t| t.name.clone()).collect(),
            dynamic: st.dynamic.iter().map(|(n, _)| n.clone()).collect(),
            configured: st
                .config
                .as_ref()
                .map(|c| c.tools().iter().map(|t| t.name.clone()).collect())
                .unwrap_or_default(),
            agent_offered,
            agent_available,
            has_agent: st.agent.is_some(),
        }
    }

    /// Whether `t` is a tool of the session (offered now or activatable).
    fn known(&self, t: &str) -> bool {
        let has = |list: &[String]| list.iter().any(|n| n == t);
        builtins::is_builtin(t)
            || has(&self.configured)
            || has(&self.dynamic)
            || has(&self.agent_offered)
            || has(&self.agent_available)
    }

    /// Whether `t` is already in the static list (activating it adds nothing).
    fn is_static(&self, t: &str) -> bool {
        let has = |list: &[String]| list.iter().any(|n| n == t);
        (builtins::is_builtin(t) && !self.has_agent)
            || has(&self.exposed)
            || has(&self.dynamic)
            || has(&self.agent_offered)
    }
}

/// A name in a skill that no tool of the session answers to: an `allowed-tools`
/// entry, or a descriptor whose tool is missing or does not take its inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillOrphan {
    /// The skill's `SKILL.md`.
    pub skill: String,
    /// The tool named.
    pub tool: String,
    /// Where it is named: file, line and field (`/skills/x/SKILL.md: line 4
    /// (allowed-tools)`).
    pub named_at: String,
    /// Why it does not resolve.
    pub reason: String,
}

impl std::fmt::Display for SkillOrphan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: tool '{}': {}", self.named_at, self.tool, self.reason)
    }
}

/// Every skill under `/skills` checked against the session's tools, as reading it
/// would: each `allowed-tools` name that is not a tool of the session, and each
/// descriptor that cannot bind (its tool missing, or lacking an input or fixed
/// argument). A host calls it once its configuration and agent are loaded, and
/// refuses to start on any (`filestore serve` does): otherwise the mistake shows only
/// when an agent reads the skill. A skill that cannot be read or parsed at all is an
/// orphan of its own (`tool` empty), though the skills volume already left invalid
/// skills out.
pub fn skill_orphans(session: &dyn Sandbox) -> Result<Vec<SkillOrphan>> {
    let limits = crate::vfs::limits::Limits::default();
    let skills = crate::skills::prompt::discover(session.mounts(), &limits)?;
    let st = session.tool_state().borrow();
    let names = ToolNames::of(&st);
    let mut out = Vec::new();
    for summary in skills {
        let orphan = |tool: &str, named_at: String, reason: String| SkillOrphan {
            skill: summary.path.clone(),
            tool: tool.to_string(),
            named_at,
            reason,
        };
        let parsed = read_skill(session, &summary.path)
            .and_then(|s| Ok((read_descriptor(session, &summary.path, &s)?, s)));
        let (descriptor, skill) = match parsed {
            Ok(p) => p,
            Err(e) => {
                out.push(orphan("", summary.path.clone(), e.message().to_string()));
                continue;
            }
        };
        for t in skill.allowed_tools.iter().filter(|t| !names.known(t)) {
            let at = format!("{}: line {} (allowed-tools)", skill.path, skill.allowed_tools_line);
            out.push(orphan(t, at, "no tool of this name is configured or built in".into()));
        }
        let Some(d) = descriptor else { continue };
        if let Err(why) = crate::skills::descriptor::bind(&skill, &d, st.config.as_ref()) {
            out.push(orphan(&d.tool, d.tool_at.clone(), why));
        }
        if let Some((follow_up, at)) = &d.follow_up
            && !names.known(follow_up)
        {
            let why = "the follow-up that a result's requires_approval would hold is no tool of this session";
            out.push(orphan(follow_up, at.clone(), why.into()));
        }
    }
    Ok(out)
}

/// Reads and parses the `SKILL.md` at `path`.
fn read_skill(session: &dyn Sandbox, path: &str) -> Result<crate::skills::skill::Skill> {
    use crate::skills::skill;
    let (entry, bytes) = session.mounts().read_all(path, skill::MAX_SKILL_FILE_BYTES as u64)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::at(ErrorKind::InvalidArgument, path, "SKILL.md is not UTF-8 text"))?;
    let folder = crate::vfs::paths::parent(&entry.path)
        .map(crate::vfs::paths::file_name)
        .unwrap_or_default();
    skill::parse(&entry.path, folder, &text)
        .map_err(|p| Error::at(ErrorKind::InvalidArgument, path, p.reasons.join("; ")))
}

/// The `SKILL.md` paths of the session's active skills, least recently read first
/// (see [`ActiveSkills::paths`](crate::skills::active::ActiveSkills::paths)).
pub fn active_skills(session: &dyn Sandbox) -> Vec<String> {
    session.tool_state().borrow().skills.paths().into_iter().map(str::to_string).collect()
}

/// Activates the skills at `paths` in order, as reading each `SKILL.md` from the
/// skills mount would: how a conversation's activations carry over to a new session
/// (another request, another replica). A path that is not a skill served by that
/// mount (the skill is gone, or the path is not one) is skipped and its error
/// returned; the others still activate.
pub fn restore_skills(session: &dyn Sandbox, paths: &[String]) -> Vec<Error> {
    let root = crate::skills::prompt::SKILLS_ROOT;
    let mut failed = Vec::new();
    for path in paths {
        let served = crate::vfs::paths::normalize(path).ok().filter(|p| {
            crate::vfs::paths::is_within(p, root)
                && session.mounts().resolve_file(p).is_ok_and(|r| {
                    crate::vfs::paths::is_within(&r.mount.point, root)
                        && r.entry.entry_type == crate::skills::skill::TYPE_SKILL
                })
        });
        let result = match served {
            Some(p) => activate_skill(session, &p).map(drop),
            None => Err(Error::at(
                ErrorKind::NotFound,
                path,
                format!("not a skill's SKILL.md under {root}"),
            )),
        };
        if let Err(e) = result {
            failed.push(e);
        }
    }
    failed
}

/// Reads and checks the descriptor of the skill whose `SKILL.md` is at `skill_md`
/// (metadata, or the sidecar beside it). An invalid descriptor is an error naming
/// every reason, as at load time. A `descriptor.yaml` counts only when it was
/// loaded with the skill (entry type `skill_reference`): a plain file beside it
/// (another overlay layer, written by whoever can write that layer) is not the
/// skill's and is ignored, so it cannot make the skill call another tool.
fn read_descriptor(
    session: &dyn Sandbox,
    skill_md: &str,
    skill: &crate::skills::skill::Skill,
) -> Result<Option<crate::skills::descriptor::Descriptor>> {
    use crate::skills::descriptor::{self, DESCRIPTOR_FILE, MAX_DESCRIPTOR_BYTES};
    let dir = crate::vfs::paths::parent(skill_md).unwrap_or("/");
    let sidecar_path = crate::vfs::paths::join(dir, DESCRIPTOR_FILE)?;
    let sidecar = match session.mounts().stat(&sidecar_path) {
        Ok(e) if e.entry_type == crate::skills::skill::TYPE_SKILL_REFERENCE => {
            let (_, bytes) =
                session.mounts().read_all(&sidecar_path, MAX_DESCRIPTOR_BYTES as u64)?;
            Some(String::from_utf8(bytes).map_err(|_| {
                Error::at(ErrorKind::InvalidArgument, &sidecar_path, "descriptor is not UTF-8 text")
            })?)
        }
        Ok(_) => None,
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    descriptor::load(skill, sidecar.as_deref().map(|t| (sidecar_path.as_str(), t))).map_err(
        |reasons| {
            Error::at(
                ErrorKind::InvalidArgument,
                skill_md,
                format!("invalid skill descriptor: {}", reasons.join("; ")),
            )
        },
    )
}
