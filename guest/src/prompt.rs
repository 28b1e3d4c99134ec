//! The system-prompt block of a session (DESIGN §8): what each offered tool is for,
//! the tree of the mounts (`filestore_tree` rules) and the available skills in the
//! compact, progressive-disclosure form. Deterministic for a given filestore.

use crate::error::Result;
use crate::ops::tree::{self, TreeRequest};
use crate::session::Session;
use crate::skills::skill::{self, SkillSummary, TYPE_SKILL};

/// Where skills are discovered.
pub const SKILLS_ROOT: &str = "/skills";

/// The skills under [`SKILLS_ROOT`]: entries of type `skill` (validated when loaded),
/// sorted by path.
pub fn discover_skills(session: &Session) -> Result<Vec<SkillSummary>> {
    let Ok(root) = session.mounts().stat(SKILLS_ROOT) else { return Ok(Vec::new()) };
    if !root.is_dir() {
        return Ok(Vec::new());
    }
    let walk = session.mounts().walk(SKILLS_ROOT, session.limits().walk_entries)?;
    let mut out: Vec<SkillSummary> = walk
        .entries
        .into_iter()
        .filter(|e| e.entry_type == TYPE_SKILL)
        .filter_map(|e| {
            let a = e.attributes.as_ref()?;
            Some(SkillSummary {
                name: a.get("skill_name")?.as_str()?.to_string(),
                description: a.get("skill_description")?.as_str()?.to_string(),
                path: e.path.clone(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Renders the block: tools (name and first sentence), the tree from `/`, skills.
pub fn system_prompt(
    session: &Session,
    max_depth: u32,
    max_files_per_folder: u32,
) -> Result<String> {
    let specs = crate::invoke::list_tools(session, None)?;
    let tools: Vec<(String, String)> = specs
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or_default().to_string(),
                s["description"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let t = tree::tree(
        session.mounts(),
        session.limits(),
        &TreeRequest { path: "/".into(), max_depth, max_files_per_folder },
    )?;
    Ok(skill::render_prompt(&tools, &t.tree, &discover_skills(session)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::volume::{MemoryVolume, Volume, WriteOptions};

    #[test]
    fn renders_tools_tree_and_skills() {
        let skills = MemoryVolume::new();
        let opts = WriteOptions {
            read_only: true,
            entry_type: Some("skill".into()),
            attributes: Some(
                serde_json::json!({"skill_name": "pdf", "skill_description": "Fill PDF forms."}),
            ),
            ..Default::default()
        };
        skills
            .write("/pdf/SKILL.md", b"---\nname: pdf\ndescription: Fill PDF forms.\n---\n", &opts)
            .unwrap();
        let mut s = Session::new(Default::default());
        s.mount("/skills", Box::new(skills), 0, true).unwrap();
        let p = system_prompt(&s, 3, 3).unwrap();
        assert!(p.starts_with("You have a sandboxed virtual filesystem."), "{p}");
        assert!(
            p.contains("- filestore_read: Read a text file by lines, numbered like `cat -n`.\n"),
            "{p}"
        );
        assert!(!p.contains("filestore_write"), "read-only session offers no mutating tools");
        assert!(
            p.contains("\nFiles:\n/\n└── skills/\n    └── pdf/\n        └── SKILL.md\n"),
            "{p}"
        );
        assert!(p.ends_with(
            "<available_skills>\n  <skill>\n    <name>pdf</name>\n    <description>Fill PDF forms.</description>\n    <location>/skills/pdf/SKILL.md</location>\n  </skill>\n</available_skills>\n"
        ), "{p}");
    }
}
