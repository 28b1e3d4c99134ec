//! Skills in the filestore (DESIGN §8): `SKILL.md` parsing and validation per the
//! Agent Skills spec, tool activation by reading a skill, and the system-prompt block.
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

use crate::skills::descriptor::SkillTool;
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
pub fn split_frontmatter(text: &str) -> Result<(&str, &str, usize), String> {
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
            "metadata" => match &e.value.value {
                Value::Map(m) => {
                    for kv in m {
                        // Strings only: `version: 1.0` would silently become "1".
                        match &kv.value.value {
                            Value::Str(v) => {
                                skill.metadata.insert(kv.key.clone(), v.clone());
                            }
                            _ => reasons.push(format!(
                                "line {}: metadata.{} must be a string (quote it)",
                                at(&kv.value),
                                kv.key
                            )),
                        }
                    }
                }
                _ => reasons.push(format!("line {line}: metadata must be a mapping of strings")),
            },
            "allowed-tools" => match &e.value.value {
                Value::Str(s) => {
                    let mut seen = std::collections::HashSet::new();
                    for t in s.split_whitespace() {
                        if !crate::tools::config::is_valid_name(t) {
                            reasons.push(format!("line {line}: allowed-tools: '{t}' is not a valid tool name"));
                        } else if seen.insert(t.to_string()) {
                            skill.allowed_tools.push(t.to_string());
                        }
                    }
                }
                _ => reasons.push(format!("line {line}: allowed-tools must be a space-separated string")),
            },
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
        self.order.push(ActiveSkill { name: skill.name.clone(), tools, callable });
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

    /// Increases whenever the tool list changes.
    pub fn version(&self) -> u64 {
        self.version
    }
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
            "  <skill>\n    <name>{}</name>\n    <description>{}</description>\n    <location>{}</location>\n  </skill>\n",
            xml_escape(&s.name),
            xml_escape(&s.description),
            xml_escape(&s.path)
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn skill_md(front: &str) -> String {
        format!("---\n{front}---\n# Body\nDo the thing.\n")
    }

    #[test]
    fn valid_skill() {
        let s = parse(
            "/skills/pdf/SKILL.md",
            "pdf",
            &skill_md(
                "name: pdf\ndescription: Fill PDF forms.\nlicense: MIT\ncompatibility: needs poppler\nmetadata:\n  author: me\n  version: \"1.0\"\nallowed-tools: filestore_read pdf_fill pdf_fill\n",
            ),
        )
        .unwrap();
        assert_eq!(s.name, "pdf");
        assert_eq!(s.allowed_tools, ["filestore_read", "pdf_fill"]);
        assert_eq!(s.metadata["version"], "1.0");
        assert_eq!(s.body, "# Body\nDo the thing.\n");
    }

    #[test]
    fn each_rule_is_reported() {
        let cases: &[(&str, &str, &str)] = &[
            ("x", "description: d\n", "name is required"),
            ("x", "name: x\n", "description is required"),
            ("Bad", "name: Bad\ndescription: d\n", "name 'Bad' must be 1-64"),
            ("-x", "name: -x\ndescription: d\n", "not starting or ending"),
            ("x-", "name: x-\ndescription: d\n", "not starting or ending"),
            ("a--b", "name: a--b\ndescription: d\n", "'--'"),
            ("other", "name: x\ndescription: d\n", "must equal its folder name 'other'"),
            ("x", "name: x\ndescription: ''\n", "description is empty"),
            ("x", "name: x\ndescription: d\ncolor: red\n", "unknown field 'color'"),
            ("x", "name: x\ndescription: d\nmetadata: [1]\n", "metadata must be a mapping"),
            ("x", "name: x\ndescription: d\nmetadata:\n  v: 1.0\n", "metadata.v must be a string"),
            ("x", "name: x\ndescription: d\nallowed-tools: [a]\n", "space-separated string"),
            (
                "x",
                "name: x\ndescription: d\nallowed-tools: 'ok b@d'\n",
                "'b@d' is not a valid tool name",
            ),
        ];
        for (folder, front, want) in cases {
            let e = parse("/skills/x/SKILL.md", folder, &skill_md(front)).unwrap_err();
            assert!(e.reasons.iter().any(|r| r.contains(want)), "{front:?}: {:?}", e.reasons);
        }
        let long_name = "a".repeat(65);
        let e = parse("/s", &long_name, &skill_md(&format!("name: {long_name}\ndescription: d\n")))
            .unwrap_err();
        assert!(e.reasons[0].contains("1-64"));
        let long_desc = "d".repeat(1025);
        let e = parse("/s", "x", &skill_md(&format!("name: x\ndescription: {long_desc}\n")))
            .unwrap_err();
        assert!(e.reasons[0].contains("1025 characters"), "{:?}", e.reasons);
        let comp = "c".repeat(501);
        let e = parse(
            "/s",
            "x",
            &skill_md(&format!("name: x\ndescription: d\ncompatibility: {comp}\n")),
        )
        .unwrap_err();
        assert!(e.reasons[0].contains("compatibility"));
        // Several problems at once are all reported, with lines.
        let e = parse("/s", "x", &skill_md("name: X\ncolor: red\n")).unwrap_err();
        assert_eq!(e.reasons.len(), 3, "{:?}", e.reasons);
        assert!(e.reasons[0].starts_with("line 2:"), "{:?}", e.reasons);
        assert!(e.reasons[1].starts_with("line 3:"), "{:?}", e.reasons);
        assert!(
            parse("/s", "x", "no frontmatter").unwrap_err().reasons[0].contains("must start with")
        );
        assert!(parse("/s", "x", "---\nname: x\n").unwrap_err().reasons[0].contains("not closed"));
        assert!(parse("/s", "x", &skill_md("name: [x\n")).unwrap_err().reasons[0].contains("YAML"));
    }

    fn skill(name: &str, tools: &[String]) -> Skill {
        Skill {
            name: name.into(),
            description: "d".into(),
            license: None,
            compatibility: None,
            metadata: BTreeMap::new(),
            allowed_tools: tools.to_vec(),
            path: format!("/skills/{name}/SKILL.md"),
            body: String::new(),
        }
    }

    #[test]
    fn activation_caps_dedups_and_evicts() {
        let mut a = ActiveSkills::new();
        let known = |t: &str| t != "ghost";
        let is_static = |t: &str| t == "filestore_read";
        let tools: Vec<String> = (0..30).map(|i| format!("t{i}")).collect();
        let act = a.activate(&skill("big", &tools), known, is_static, None);
        assert_eq!(act.added.len(), 25);
        assert_eq!(act.dropped.len(), 5);
        assert_eq!(a.version(), 1);
        let act = a.activate(
            &skill("s", &["filestore_read".into(), "ghost".into(), "t0".into(), "x".into()]),
            known,
            is_static,
            None,
        );
        assert_eq!(act.unknown, ["ghost"]);
        assert_eq!(act.added, ["x"], "t0 already active, filestore_read static");
        assert_eq!(a.tools().len(), 26);
        for i in 0..9 {
            a.activate(&skill(&format!("k{i}"), &[format!("k{i}tool")]), known, is_static, None);
        }
        // 11 skills read: the least recently read ("big") is evicted with its tools.
        assert_eq!(a.skills().len(), 10);
        assert!(!a.skills().contains(&"big"));
        assert!(!a.tools().contains(&"t5".to_string()));
        assert!(a.tools().contains(&"t0".to_string()), "t0 is still active through skill 's'");
        // Re-reading an active skill refreshes it without changing the list.
        let v = a.version();
        let act = a.activate(&skill("s", &["x".into()]), known, is_static, None);
        assert!(act.added.is_empty());
        assert_eq!(a.skills().last(), Some(&"s"));
        assert!(a.version() >= v);
    }

    #[test]
    fn prompt_is_exact() {
        let skills = vec![
            SkillSummary {
                name: "b".into(),
                description: "Second <one>.".into(),
                path: "/skills/b/SKILL.md".into(),
            },
            SkillSummary {
                name: "a".into(),
                description: "First.".into(),
                path: "/skills/a/SKILL.md".into(),
            },
        ];
        let tools = vec![("filestore_read".to_string(), "Read a file. More.".to_string())];
        let p = render_prompt(&tools, "/\n└── skills/\n", &skills);
        assert_eq!(
            p,
            "You have a sandboxed virtual filesystem. Paths are absolute and '/'-separated; read files before editing them. Tools:\n\
             - filestore_read: Read a file.\n\
             \nFiles:\n/\n└── skills/\n\
             \nSkills: each is a folder with a SKILL.md holding instructions. When a task matches a skill's description, read its SKILL.md with filestore_read first; reading it also enables the tools the skill needs.\n\
             <available_skills>\n  <skill>\n    <name>a</name>\n    <description>First.</description>\n    <location>/skills/a/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>b</name>\n    <description>Second &lt;one&gt;.</description>\n    <location>/skills/b/SKILL.md</location>\n  </skill>\n</available_skills>\n"
        );
    }
}
