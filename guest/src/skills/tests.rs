//! Unit tests of skills: validation reasons, activation caps and LRU, rendering.

use std::collections::BTreeMap;

use super::active::*;
use super::prompt::*;
use super::skill::*;

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
    let e =
        parse("/s", "x", &skill_md(&format!("name: x\ndescription: {long_desc}\n"))).unwrap_err();
    assert!(e.reasons[0].contains("1025 characters"), "{:?}", e.reasons);
    let comp = "c".repeat(501);
    let e =
        parse("/s", "x", &skill_md(&format!("name: x\ndescription: d\ncompatibility: {comp}\n")))
            .unwrap_err();
    assert!(e.reasons[0].contains("compatibility"));
    // Several problems at once are all reported, with lines.
    let e = parse("/s", "x", &skill_md("name: X\ncolor: red\n")).unwrap_err();
    assert_eq!(e.reasons.len(), 3, "{:?}", e.reasons);
    assert!(e.reasons[0].starts_with("line 2:"), "{:?}", e.reasons);
    assert!(e.reasons[1].starts_with("line 3:"), "{:?}", e.reasons);
    assert!(parse("/s", "x", "no frontmatter").unwrap_err().reasons[0].contains("must start with"));
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
        allowed_tools_line: 0,
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
            catalog: crate::skills::descriptor::Catalog {
                category: Some("fleet".into()),
                tags: vec!["ops".into(), "a&b".into()],
                invocation_mode: Some("workflow_step".into()),
            },
        },
        SkillSummary {
            name: "a".into(),
            description: "First.".into(),
            path: "/skills/a/SKILL.md".into(),
            catalog: Default::default(),
        },
    ];
    use crate::skills::prompt::SkillFilter;
    let only = |category: Option<&str>, tag: Option<&str>| -> Vec<String> {
        let f = SkillFilter { category: category.map(Into::into), tag: tag.map(Into::into) };
        skills.iter().filter(|s| f.admits(s)).map(|s| s.name.clone()).collect()
    };
    assert_eq!(only(None, None), ["b", "a"]);
    assert_eq!(only(Some("fleet"), None), ["b"]);
    assert_eq!(only(None, Some("a&b")), ["b"]);
    assert!(only(Some("fleet"), Some("nope")).is_empty() && only(Some("x"), None).is_empty());
    let tools = vec![("filestore_read".to_string(), "Read a file. More.".to_string())];
    let p = render_prompt(&tools, "/\n└── skills/\n", &skills);
    assert_eq!(
        p,
        "You have a sandboxed virtual filesystem. Paths are absolute and '/'-separated; read files before editing them. Tools:\n\
         - filestore_read: Read a file.\n\
         \nFiles:\n/\n└── skills/\n\
         \nSkills: each is a folder with a SKILL.md holding instructions. When a task matches a skill's description, read its SKILL.md with filestore_read first; reading it also enables the tools the skill needs.\n\
         <available_skills>\n  <skill>\n    <name>a</name>\n    <description>First.</description>\n    <location>/skills/a/SKILL.md</location>\n  </skill>\n  <skill>\n    <name>b</name>\n    <description>Second &lt;one&gt;.</description>\n    <location>/skills/b/SKILL.md</location>\n    <category>fleet</category>\n    <tags>ops, a&amp;b</tags>\n    <invocation_mode>workflow_step</invocation_mode>\n  </skill>\n</available_skills>\n"
    );
}
