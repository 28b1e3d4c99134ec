//! The skills a session has read, most recent last: what each activated, capped at
//! [`MAX_TOOLS_PER_SKILL`] tools per skill and [`MAX_ACTIVE_SKILLS`] skills (least
//! recently read evicted first), and the note telling the model what changed.

use serde::Serialize;

use super::descriptor::SkillTool;
use super::skill::{MAX_ACTIVE_SKILLS, MAX_TOOLS_PER_SKILL, Skill};

/// What activating a skill did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Activation {
    /// The skill read.
    pub skill: String,
    /// Tools newly added to the session's list.
    pub added: Vec<String>,
    /// Listed tools the session does not know (reported, not fatal).
    pub unknown: Vec<String>,
    /// Listed tools beyond [`MAX_TOOLS_PER_SKILL`], not activated.
    pub dropped: Vec<String>,
    /// A skill whose tools were evicted to make room (LRU).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evicted: Option<String>,
    /// Tools that left the list with the eviction.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// The tool name under which the skill itself can now be called (descriptor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callable: Option<String>,
    /// Why the skill's descriptor could not be bound (the skill is not callable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_callable: Option<String>,
}

/// A note appended to the read of a `SKILL.md`, telling the model what changed.
pub fn render_activation(a: &Activation) -> String {
    let mut out = String::new();
    if !a.added.is_empty() {
        out.push_str(&format!("\n[Skill '{}' enabled tools: {}.]\n", a.skill, a.added.join(", ")));
    }
    if let Some(t) = &a.callable {
        out.push_str(&format!(
            "[Skill '{}' can be called as tool '{t}' with the inputs its descriptor declares.]\n",
            a.skill
        ));
    }
    if let Some(why) = &a.not_callable {
        out.push_str(&format!("[Skill '{}' cannot be called: {why}.]\n", a.skill));
    }
    if !a.unknown.is_empty() {
        out.push_str(&format!(
            "[Skill '{}' lists tools this session does not have: {}.]\n",
            a.skill,
            a.unknown.join(", ")
        ));
    }
    if !a.dropped.is_empty() {
        out.push_str(&format!(
            "[Skill '{}' lists more than {MAX_TOOLS_PER_SKILL} tools; not enabled: {}.]\n",
            a.skill,
            a.dropped.join(", ")
        ));
    }
    if let Some(e) = &a.evicted {
        out.push_str(&format!("[Tools of skill '{e}' were disabled to make room (at most {MAX_ACTIVE_SKILLS} skills).]\n"));
    }
    out
}

/// One recently read skill: the tools it activated and, when it has a descriptor
/// that binds, the skill itself as a tool.
#[derive(Debug, Clone)]
struct ActiveSkill {
    name: String,
    /// Its `SKILL.md` (what restores it in another session).
    path: String,
    tools: Vec<String>,
    callable: Option<SkillTool>,
}

/// The dynamic tools of a session: per recently read skill, the tools it activated.
#[derive(Debug, Clone, Default)]
pub struct ActiveSkills {
    /// Most recently read last.
    order: Vec<ActiveSkill>,
    version: u64,
}

impl ActiveSkills {
    /// No active skill.
    pub fn new() -> ActiveSkills {
        ActiveSkills::default()
    }

    /// Activates `skill`'s tools. `known` says whether a tool exists (configured or
    /// built in); `is_static` whether it is already in the static list (not
    /// duplicated). `callable` is the skill itself as a tool (a bound descriptor),
    /// offered for as long as the skill stays active.
    pub fn activate(
        &mut self,
        skill: &Skill,
        known: impl Fn(&str) -> bool,
        is_static: impl Fn(&str) -> bool,
        callable: Option<SkillTool>,
    ) -> Activation {
        let before = self.tools();
        let mut act = Activation { skill: skill.name.clone(), ..Default::default() };
        let mut tools = Vec::new();
        for (i, t) in skill.allowed_tools.iter().enumerate() {
            if i >= MAX_TOOLS_PER_SKILL {
                act.dropped.push(t.clone());
            } else if !known(t) {
                act.unknown.push(t.clone());
            } else if !is_static(t) {
                tools.push(t.clone());
            }
        }
        if let Some(c) = &callable {
            act.callable = Some(c.spec.name.clone());
        }
        self.order.retain(|a| a.name != skill.name);
        self.order.push(ActiveSkill {
            name: skill.name.clone(),
            path: skill.path.clone(),
            tools,
            callable,
        });
        if self.order.len() > MAX_ACTIVE_SKILLS {
            act.evicted = Some(self.order.remove(0).name);
        }
        let after = self.tools();
        act.added = after.iter().filter(|t| !before.contains(t)).cloned().collect();
        act.removed = before.iter().filter(|t| !after.contains(t)).cloned().collect();
        if !act.added.is_empty() || !act.removed.is_empty() {
            self.version += 1;
        }
        act
    }

    /// The active dynamic tools, without duplicates, in activation order: each
    /// skill's callable self (if any) and then its `allowed-tools`.
    pub fn tools(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for a in &self.order {
            for t in a.callable.iter().map(|c| &c.spec.name).chain(&a.tools) {
                if !out.contains(t) {
                    out.push(t.clone());
                }
            }
        }
        out
    }

    /// The active skill callable as tool `name`, if any.
    pub fn callable(&self, name: &str) -> Option<&SkillTool> {
        self.order.iter().filter_map(|a| a.callable.as_ref()).find(|c| c.spec.name == name)
    }

    /// The skills whose tools are active, least recently read first.
    pub fn skills(&self) -> Vec<&str> {
        self.order.iter().map(|a| a.name.as_str()).collect()
    }

    /// The `SKILL.md` paths of the active skills, least recently read first: reading
    /// them again in this order, in a new session over the same skills, restores
    /// these activations (what a conversation's state keeps).
    pub fn paths(&self) -> Vec<&str> {
        self.order.iter().map(|a| a.path.as_str()).collect()
    }

    /// Increases whenever the tool list changes.
    pub fn version(&self) -> u64 {
        self.version
    }
}
