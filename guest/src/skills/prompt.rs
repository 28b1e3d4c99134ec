//! The system-prompt block (docs/architecture.md#skills): the available skills in the
//! compact, progressive-disclosure form, with the tools and the tree. Deterministic for
//! a given filestore.

use serde::Serialize;

use super::descriptor::Catalog;
use super::skill::TYPE_SKILL;
use crate::error::Result;
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;

/// Where skills are discovered.
pub const SKILLS_ROOT: &str = "/skills";

/// The skills under [`SKILLS_ROOT`]: entries of type `skill` (validated when loaded),
/// sorted by path.
pub fn discover(mounts: &MountTable, limits: &Limits) -> Result<Vec<SkillSummary>> {
    let Ok(root) = mounts.stat(SKILLS_ROOT) else { return Ok(Vec::new()) };
    if !root.is_dir() {
        return Ok(Vec::new());
    }
    let walk = mounts.walk(SKILLS_ROOT, limits.walk_entries)?;
    let mut out: Vec<SkillSummary> = walk
        .entries
        .into_iter()
        .filter(|e| e.entry_type == TYPE_SKILL)
        .filter_map(|e| {
            let a = e.attributes.as_ref()?;
            let text = |k: &str| a.get(k).and_then(|v| v.as_str()).map(str::to_string);
            Some(SkillSummary {
                name: text("skill_name")?,
                description: text("skill_description")?,
                path: e.path.clone(),
                catalog: Catalog {
                    category: text("skill_category"),
                    tags: a
                        .get("skill_tags")
                        .and_then(|t| t.as_array())
                        .map(|t| t.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
                        .unwrap_or_default(),
                    invocation_mode: text("skill_invocation_mode"),
                },
            })
        })
        .collect();
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// A skill as listed in the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillSummary {
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Path of its `SKILL.md`.
    pub path: String,
    /// Its descriptor's catalog metadata (category, tags, invocation mode).
    #[serde(flatten)]
    pub catalog: Catalog,
}

/// Which skills the prompt block lists: those of a `category`, and/or carrying a
/// `tag` (both when both are given); all when neither is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillFilter {
    /// Only skills of this category.
    pub category: Option<String>,
    /// Only skills with this tag.
    pub tag: Option<String>,
}

impl SkillFilter {
    /// Whether `s` passes.
    pub fn admits(&self, s: &SkillSummary) -> bool {
        self.category.as_ref().is_none_or(|c| s.catalog.category.as_ref() == Some(c))
            && self.tag.as_ref().is_none_or(|t| s.catalog.tags.contains(t))
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The skills block of the system prompt: the compact, progressive-disclosure form
/// (name, description, where to read the rest). Sorted by path; deterministic.
pub fn render_skills(skills: &[SkillSummary]) -> String {
    let mut sorted: Vec<&SkillSummary> = skills.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut out = String::from("<available_skills>\n");
    for s in sorted {
        out.push_str(&format!(
            "  <skill>\n    <name>{}</name>\n    <description>{}</description>\n    <location>{}</location>\n",
            xml_escape(&s.name),
            xml_escape(&s.description),
            xml_escape(&s.path)
        ));
        // Catalog metadata only where a descriptor declares it: the block of plain
        // skills stays the compact form of the Agent Skills spec.
        if let Some(c) = &s.catalog.category {
            out.push_str(&format!("    <category>{}</category>\n", xml_escape(c)));
        }
        if !s.catalog.tags.is_empty() {
            out.push_str(&format!("    <tags>{}</tags>\n", xml_escape(&s.catalog.tags.join(", "))));
        }
        if let Some(m) = &s.catalog.invocation_mode {
            out.push_str(&format!("    <invocation_mode>{}</invocation_mode>\n", xml_escape(m)));
        }
        out.push_str("  </skill>\n");
    }
    out.push_str("</available_skills>\n");
    out
}

/// The whole filestore block of a system prompt: what each tool is for, the tree, and
/// the available skills.
pub fn render_prompt(tools: &[(String, String)], tree: &str, skills: &[SkillSummary]) -> String {
    let mut out = String::from(
        "You have a sandboxed virtual filesystem. Paths are absolute and '/'-separated; \
         read files before editing them. Tools:\n",
    );
    for (name, description) in tools {
        let first = description.split(". ").next().unwrap_or(description).trim_end_matches('.');
        out.push_str(&format!("- {name}: {first}.\n"));
    }
    out.push_str("\nFiles:\n");
    out.push_str(tree);
    if !skills.is_empty() {
        out.push_str(
            "\nSkills: each is a folder with a SKILL.md holding instructions. When a task matches a \
             skill's description, read its SKILL.md with filestore_read first; reading it also \
             enables the tools the skill needs.\n",
        );
        out.push_str(&render_skills(skills));
    }
    out
}
