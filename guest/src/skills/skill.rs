//! `SKILL.md` parsing and validation per the Agent Skills spec
//! (docs/architecture.md#skills).
//!
//! A skill is a folder `/skills/.../{name}/` with a `SKILL.md` whose YAML frontmatter
//! declares `name` and `description` (plus optional `license`, `compatibility`,
//! `metadata`, `allowed-tools`) and whose body holds the instructions; other files in
//! the folder are its references. Validation collects *every* reason a skill is
//! invalid, so an author fixes all of them at once; an invalid skill is not loaded,
//! the others still are.
//!
//! Reading a `SKILL.md` activates its `allowed-tools` for the session: at most
//! [`MAX_TOOLS_PER_SKILL`] per skill, and the dynamic tools of at most
//! [`MAX_ACTIVE_SKILLS`] skills, least recently read evicted first. Both caps bound
//! how far a hostile or careless skill can grow an agent's tool list.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::tools::config::yaml::{self, Node, Value};

/// Most tools one skill can activate.
pub const MAX_TOOLS_PER_SKILL: usize = 25;
/// Most skills whose tools are active at once (LRU).
pub const MAX_ACTIVE_SKILLS: usize = 10;
/// Longest `name`.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest `description`.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Longest `compatibility`.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;
/// Largest `SKILL.md` accepted (bytes): a skill is instructions, not a data dump.
pub const MAX_SKILL_FILE_BYTES: usize = 1024 * 1024;
/// The file name that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// The file names a skill folder's instructions may have, preferred first: the Agent
/// Skills reference validator (`skills-ref`) accepts a lowercase `skill.md` as well,
/// so a skill written for it loads here too. A folder with both uses `SKILL.md`.
pub const SKILL_FILE_NAMES: [&str; 2] = [SKILL_FILE, "skill.md"];
/// Entry type of a `SKILL.md`.
pub const TYPE_SKILL: &str = "skill";
/// Entry type of a skill's other files.
pub const TYPE_SKILL_REFERENCE: &str = "skill_reference";

/// A validated skill.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Skill {
    /// The skill's name (equal to its folder name).
    pub name: String,
    /// What the skill does and when to use it.
    pub description: String,
    /// License, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Environment requirements, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<String>,
    /// Free-form string metadata.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub metadata: BTreeMap<String, String>,
    /// Tools the skill uses, in declared order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_tools: Vec<String>,
    /// Line of `allowed-tools` in the `SKILL.md` (0 when absent): where an unknown
    /// tool is named, for the orphan check.
    #[serde(skip)]
    pub allowed_tools_line: usize,
    /// Path of the `SKILL.md` (virtual, or volume-relative while loading).
    pub path: String,
    /// The instructions after the frontmatter.
    #[serde(skip)]
    pub body: String,
}

/// Why a skill could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillProblem {
    /// Path of the offending `SKILL.md` (or folder).
    pub path: String,
    /// Every reason, each naming the field and, where known, the line.
    pub reasons: Vec<String>,
}

impl std::fmt::Display for SkillProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: invalid skill: {}", self.path, self.reasons.join("; "))
    }
}

/// Splits `---\nYAML\n---\nbody`; returns (yaml, body, line where the YAML starts).
pub(crate) fn split_frontmatter(text: &str) -> Result<(&str, &str, usize), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest =
        text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")).ok_or_else(|| {
            "line 1: SKILL.md must start with a '---' line opening the YAML frontmatter".to_string()
        })?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            let yaml = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return Ok((yaml, body, 2));
        }
        offset += line.len();
    }
    Err("the frontmatter is not closed: no '---' line after it".to_string())
}

/// Whether `name` follows the spec: 1–64 of `[a-z0-9-]`, no leading, trailing or
/// doubled hyphen.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// The frontmatter's `metadata`: a mapping of strings (`first_line` is the
/// frontmatter's first line in the file).
fn metadata(
    node: &Node,
    first_line: usize,
    out: &mut BTreeMap<String, String>,
    reasons: &mut Vec<String>,
) {
    let Value::Map(m) = &node.value else {
        let line = node.mark.line + first_line - 1;
        reasons.push(format!("line {line}: metadata must be a mapping of strings"));
        return;
    };
    for kv in m {
        // Strings only: `version: 1.0` would silently become "1".
        match &kv.value.value {
            Value::Str(v) => {
                out.insert(kv.key.clone(), v.clone());
            }
            _ => reasons.push(format!(
                "line {}: metadata.{} must be a string (quote it)",
                kv.value.mark.line + first_line - 1,
                kv.key
            )),
        }
    }
}

/// The frontmatter's `allowed-tools` (at `line`): space-separated tool names, each
/// kept once.
fn allowed_tools(node: &Node, line: usize, out: &mut Vec<String>, reasons: &mut Vec<String>) {
    let Value::Str(s) = &node.value else {
        reasons.push(format!("line {line}: allowed-tools must be a space-separated string"));
        return;
    };
    let mut seen = std::collections::HashSet::new();
    for t in s.split_whitespace() {
        if !crate::tools::config::is_valid_name(t) {
            reasons.push(format!("line {line}: allowed-tools: '{t}' is not a valid tool name"));
        } else if seen.insert(t.to_string()) {
            out.push(t.to_string());
        }
    }
}

/// Parses and validates a `SKILL.md` at `path` inside a folder named `folder`.
pub fn parse(path: &str, folder: &str, text: &str) -> Result<Skill, SkillProblem> {
    let problem = |reasons: Vec<String>| SkillProblem { path: path.to_string(), reasons };
    if text.len() > MAX_SKILL_FILE_BYTES {
        return Err(problem(vec![format!(
            "SKILL.md is {} bytes; the limit is {MAX_SKILL_FILE_BYTES}",
            text.len()
        )]));
    }
    let (front, body, first_line) = split_frontmatter(text).map_err(|r| problem(vec![r]))?;
    let docs = yaml::parse_stream(front).map_err(|errs| {
        problem(
            errs.into_iter()
                .map(|e| format!("line {}: YAML: {}", e.mark.line + first_line - 1, e.message))
                .collect(),
        )
    })?;
    let root = docs.into_iter().next().and_then(|d| d.root);
    let Some(Node { value: Value::Map(entries), .. }) = root else {
        return Err(problem(vec![
            "the frontmatter must be a YAML mapping with name and description".into(),
        ]));
    };
    let mut reasons = Vec::new();
    let at = |n: &Node| n.mark.line + first_line - 1;
    let (mut name, mut description) = (None, None);
    let (mut name_seen, mut description_seen) = (false, false);
    let mut skill = Skill {
        name: String::new(),
        description: String::new(),
        license: None,
        compatibility: None,
        metadata: BTreeMap::new(),
        allowed_tools: Vec::new(),
        allowed_tools_line: 0,
        path: path.to_string(),
        body: body.to_string(),
    };
    for e in &entries {
        let line = at(&e.value);
        name_seen |= e.key == "name";
        description_seen |= e.key == "description";
        match e.key.as_str() {
            "name" => match e.value.scalar_string() {
                Some(n) if is_valid_name(&n) => name = Some(n),
                Some(n) => reasons.push(format!(
                    "line {line}: name '{n}' must be 1-{MAX_NAME_CHARS} characters of a-z, 0-9 and '-', not starting or ending with '-' nor containing '--'"
                )),
                None => reasons.push(format!("line {line}: name must be a string")),
            },
            "description" => match e.value.scalar_string() {
                Some(d) if d.trim().is_empty() => reasons.push(format!("line {line}: description is empty")),
                Some(d) if d.chars().count() > MAX_DESCRIPTION_CHARS => reasons.push(format!(
                    "line {line}: description is {} characters; the limit is {MAX_DESCRIPTION_CHARS}",
                    d.chars().count()
                )),
                Some(d) => description = Some(d),
                None => reasons.push(format!("line {line}: description must be a string")),
            },
            "license" => match e.value.scalar_string() {
                Some(l) => skill.license = Some(l),
                None => reasons.push(format!("line {line}: license must be a string")),
            },
            "compatibility" => match e.value.scalar_string() {
                Some(c) if c.chars().count() > MAX_COMPATIBILITY_CHARS => reasons.push(format!(
                    "line {line}: compatibility is {} characters; the limit is {MAX_COMPATIBILITY_CHARS}",
                    c.chars().count()
                )),
                Some(c) => skill.compatibility = Some(c),
                None => reasons.push(format!("line {line}: compatibility must be a string")),
            },
            "metadata" => metadata(&e.value, first_line, &mut skill.metadata, &mut reasons),
            "allowed-tools" => {
                skill.allowed_tools_line = line;
                allowed_tools(&e.value, line, &mut skill.allowed_tools, &mut reasons)
            }
            other => reasons.push(format!(
                "line {}: unknown field '{other}'; allowed: name, description, license, compatibility, metadata, allowed-tools",
                e.key_mark.line + first_line - 1
            )),
        }
    }
    match &name {
        None if !name_seen => reasons.push("name is required".into()),
        Some(n) if n != folder => {
            reasons.push(format!("name '{n}' must equal its folder name '{folder}'"))
        }
        _ => {}
    }
    if !description_seen {
        reasons.push("description is required".into());
    }
    if !reasons.is_empty() {
        return Err(problem(reasons));
    }
    skill.name = name.unwrap_or_default();
    skill.description = description.unwrap_or_default();
    Ok(skill)
}
