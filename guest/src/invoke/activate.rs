//! Skill activation: reading a skill's `SKILL.md` makes its `allowed-tools` (and,
//! with a descriptor, the skill itself) callable in the session
//! (docs/architecture.md#skills).

use super::Sandbox;
use crate::error::{Error, ErrorKind, Result};
use crate::ops::builtin;

/// Activates the `allowed-tools` of the skill whose `SKILL.md` is at `path` (an entry
/// of type `skill`, i.e. validated when the skills volume was loaded). Called when
/// the agent reads a skill with `filestore_read`. Unknown tools are reported in the
/// activation, not fatal; tools already offered are not duplicated.
pub fn activate_skill(
    session: &dyn Sandbox,
    path: &str,
) -> Result<crate::skills::active::Activation> {
    use crate::skills::skill;
    let (entry, bytes) = session.mounts().read_all(path, skill::MAX_SKILL_FILE_BYTES as u64)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::at(ErrorKind::InvalidArgument, path, "SKILL.md is not UTF-8 text"))?;
    let folder = crate::vfs::paths::parent(&entry.path)
        .map(crate::vfs::paths::file_name)
        .unwrap_or_default();
    let skill = skill::parse(&entry.path, folder, &text)
        .map_err(|p| Error::at(ErrorKind::InvalidArgument, path, p.reasons.join("; ")))?;
    let descriptor = read_descriptor(session, &entry.path, &skill)?;
    let mut st = session.tool_state().borrow_mut();
    let exposed: Vec<String> = st.exposed().into_iter().map(|t| t.name.clone()).collect();
    let dynamic: Vec<String> = st.dynamic.iter().map(|(n, _)| n.clone()).collect();
    let configured: Vec<String> = st
        .config
        .as_ref()
        .map(|c| c.tools().iter().map(|t| t.name.clone()).collect())
        .unwrap_or_default();
    // With an agent loaded: its offered tools are static, its `available` provider
    // tools are known (a skill offers them), and so are the built-ins it leaves out.
    let agent_offered: Vec<String> = st
        .agent
        .as_ref()
        .map(|a| a.offered().map(|(n, _)| n.clone()).collect())
        .unwrap_or_default();
    let agent_available: Vec<String> = st
        .agent
        .as_ref()
        .map(|a| {
            a.provider_names()
                .filter(|n| !agent_offered.iter().any(|o| o == n))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let has_agent = st.agent.is_some();
    let known = |t: &str| {
        builtin::is_builtin(t)
            || configured.iter().any(|c| c == t)
            || dynamic.iter().any(|d| d == t)
            || agent_offered.iter().any(|d| d == t)
            || agent_available.iter().any(|d| d == t)
    };
    let is_static = |t: &str| {
        (builtin::is_builtin(t) && !has_agent)
            || exposed.iter().any(|e| e == t)
            || dynamic.iter().any(|d| d == t)
            || agent_offered.iter().any(|d| d == t)
    };
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
