//! Skills through the real component (docs/architecture.md#skills): a skills volume
//! loaded from a real directory, reference files, tools activated by reading a SKILL.md
//! (tool list and change counter), LRU eviction, the per-skill cap, and the exact
//! prompt block.

use filestore::handlers::ShippedHandlers as _;
use std::sync::Arc;

use filestore::MountSpec;
use filestore::volumes::skills::SkillsVolume;
use serde_json::json;

use crate::common::*;

fn skill_md(name: &str, tools: &str) -> String {
    let tools = if tools.is_empty() { String::new() } else { format!("allowed-tools: {tools}\n") };
    format!(
        "---\nname: {name}\ndescription: Use {name} for {name} work.\n{tools}---\n# {name}\nSteps.\n"
    )
}

/// A config with eleven sqlite tools: `t0` in the toolset `base`, the rest outside it.
fn config(db: &std::path::Path) -> Vec<(String, String)> {
    std::fs::write(db, "").unwrap(); // an empty database: the tools query it
    let mut y = format!("kind: source\nname: db\ntype: sqlite\ndatabase: {}\n", db.display());
    for i in 0..32 {
        y.push_str(&format!(
            "---\nkind: tool\nname: t{i}\ntype: sqlite-sql\nsource: db\ndescription: Tool {i}.\nstatement: SELECT {i} AS n;\n"
        ));
    }
    y.push_str("---\nkind: toolset\nname: base\ntools: [t0]\n");
    vec![("tools.yaml".to_string(), y)]
}

fn names(specs: &[serde_json::Value]) -> Vec<String> {
    specs.iter().map(|s| s["name"].as_str().unwrap().to_string()).collect()
}

fn session_with_skills(
    dir: &std::path::Path,
    db: &std::path::Path,
) -> (filestore::Session, SkillsVolume) {
    let sv = SkillsVolume::load_dir(dir).unwrap();
    (skills_session(&sv, config(db)), sv)
}

/// A session with the built-in tool handlers, `sv` at `/skills`, the results volume,
/// `config` loaded and the toolset `base` selected.
fn skills_session(sv: &SkillsVolume, config: Vec<(String, String)>) -> filestore::Session {
    let options = filestore::SessionOptions {
        tools: Arc::new(filestore::tools::ToolRegistry::with_builtin_handlers()),
        ..Default::default()
    };
    let mut s = engine()
        .session_with(
            vec![
                MountSpec::new("/skills", Arc::new(sv.volume())).read_only(),
                filestore::tools::results_mount(),
            ],
            options,
        )
        .unwrap();
    s.load_config(&config).unwrap().unwrap();
    s.select_toolset(Some("base")).unwrap();
    s
}

#[test]
fn reading_a_skill_activates_its_tools() {
    let tmp = tempfile::tempdir().unwrap();
    let skills = tmp.path().join("skills");
    std::fs::create_dir_all(skills.join("ops/admin/refs")).unwrap();
    std::fs::write(
        skills.join("ops/admin/SKILL.md"),
        skill_md("admin", "t1 t2 filestore_read t0 ghost"),
    )
    .unwrap();
    std::fs::write(skills.join("ops/admin/refs/runbook.md"), "restart the thing\n").unwrap();
    std::fs::create_dir_all(skills.join("bad")).unwrap();
    std::fs::write(skills.join("bad/SKILL.md"), skill_md("Not-Valid", "")).unwrap();
    let (mut s, sv) = session_with_skills(&skills, &tmp.path().join("db.sqlite"));
    assert_eq!(sv.problems().len(), 1, "the invalid skill is reported");
    assert!(sv.problems()[0].reasons.iter().any(|r| r.contains("Not-Valid")));

    let before = names(&s.tool_specs().unwrap());
    assert!(before.contains(&"t0".to_string()) && !before.contains(&"t1".to_string()));
    let v0 = s.tools_version().unwrap();
    // Not activated yet: calling t1 says a skill can activate it.
    let (kind, msg) = err(&mut s, "t1", json!({}));
    assert_eq!(kind, "not-found");
    assert!(msg.contains("skill"), "{msg}");

    // Reference files are readable, read-only, typed.
    let j = ok(&mut s, "filestore_read", json!({"path": "/skills/ops/admin/refs/runbook.md"}));
    assert_eq!(j["entry"]["entry_type"], "skill_reference");
    assert_eq!(j["entry"]["attributes"]["skill_name"], "admin");
    assert_eq!(s.tools_version().unwrap(), v0, "reading a reference activates nothing");

    let out = s.call("filestore_read", &json!({"path": "/skills/ops/admin/SKILL.md"})).unwrap();
    assert_eq!(out.json["entry"]["entry_type"], "skill");
    assert_eq!(out.json["activation"]["added"], json!(["t1", "t2"]));
    assert_eq!(out.json["activation"]["unknown"], json!(["ghost"]));
    assert!(out.text.contains("[Skill 'admin' enabled tools: t1, t2.]"), "{}", out.text);
    let after = names(&s.tool_specs().unwrap());
    assert_eq!(after.iter().filter(|n| *n == "t0").count(), 1, "a static tool is not duplicated");
    assert!(after.contains(&"t1".to_string()) && after.contains(&"t2".to_string()));
    assert!(s.tools_version().unwrap() > v0);
    // The activated tool now runs.
    let j = ok(&mut s, "t1", json!({}));
    assert_eq!(j["success"], true, "{j}");
}

/// A folder whose instructions are a lowercase `skill.md` (accepted by the reference
/// validator) loads under its real name, and reading it activates its tools; a folder
/// holding both names uses `SKILL.md` and serves `skill.md` as a reference.
#[test]
fn lowercase_skill_md_loads_and_activates() {
    let tmp = tempfile::tempdir().unwrap();
    let skills = tmp.path().join("skills");
    std::fs::create_dir_all(skills.join("lower")).unwrap();
    std::fs::write(skills.join("lower/skill.md"), skill_md("lower", "t3")).unwrap();
    std::fs::create_dir_all(skills.join("both")).unwrap();
    std::fs::write(skills.join("both/SKILL.md"), skill_md("both", "t4")).unwrap();
    std::fs::write(skills.join("both/skill.md"), "an older copy\n").unwrap();
    let (mut s, sv) = session_with_skills(&skills, &tmp.path().join("db.sqlite"));
    assert!(sv.problems().is_empty(), "{:?}", sv.problems());
    let paths: Vec<&str> = sv.skills().iter().map(|k| k.path.as_str()).collect();
    assert_eq!(paths, ["/skills/both/SKILL.md", "/skills/lower/skill.md"]);
    let out = s.call("filestore_read", &json!({"path": "/skills/lower/skill.md"})).unwrap();
    assert_eq!(out.json["entry"]["entry_type"], "skill");
    assert_eq!(out.json["activation"]["added"], json!(["t3"]));
    let j = ok(&mut s, "filestore_read", json!({"path": "/skills/both/skill.md"}));
    assert_eq!(j["entry"]["entry_type"], "skill_reference");
}

#[test]
fn lru_of_ten_skills_and_per_skill_cap() {
    let tmp = tempfile::tempdir().unwrap();
    let skills = tmp.path().join("skills");
    for i in 1..=11 {
        std::fs::create_dir_all(skills.join(format!("s{i}"))).unwrap();
        std::fs::write(
            skills.join(format!("s{i}/SKILL.md")),
            skill_md(&format!("s{i}"), &format!("t{i}")),
        )
        .unwrap();
    }
    let thirty: Vec<String> = (1..=30).map(|i| format!("t{i}")).collect();
    std::fs::create_dir_all(skills.join("wide")).unwrap();
    std::fs::write(skills.join("wide/SKILL.md"), skill_md("wide", &thirty.join(" "))).unwrap();
    let (mut s, _) = session_with_skills(&skills, &tmp.path().join("db.sqlite"));
    for i in 1..=11 {
        ok(&mut s, "filestore_read", json!({"path": format!("/skills/s{i}/SKILL.md")}));
    }
    let tools = names(&s.tool_specs().unwrap());
    assert!(
        !tools.contains(&"t1".to_string()),
        "s1 was read least recently: evicted at the 11th skill"
    );
    for i in 2..=11 {
        assert!(tools.contains(&format!("t{i}")), "t{i}");
    }
    let out = s.call("filestore_read", &json!({"path": "/skills/wide/SKILL.md"})).unwrap();
    assert_eq!(out.json["activation"]["dropped"].as_array().unwrap().len(), 5);
    assert_eq!(out.json["activation"]["evicted"], "s2");
    assert!(out.text.contains("more than 25 tools"), "{}", out.text);
    let tools = names(&s.tool_specs().unwrap());
    assert!(tools.contains(&"t25".to_string()) && !tools.contains(&"t26".to_string()));
}

#[test]
fn prompt_block_exact_text() {
    let tmp = tempfile::tempdir().unwrap();
    let skills = tmp.path().join("skills");
    std::fs::create_dir_all(skills.join("pdf")).unwrap();
    std::fs::write(skills.join("pdf/SKILL.md"), skill_md("pdf", "")).unwrap();
    let sv = SkillsVolume::load_dir(&skills).unwrap();
    let mut s = engine()
        .session(vec![MountSpec::new("/skills", Arc::new(sv.volume())).read_only()])
        .unwrap();
    let p = s.system_prompt(None, None).unwrap();
    let want = "You have a sandboxed virtual filesystem. Paths are absolute and '/'-separated; read files before editing them. Tools:\n\
- filestore_ls: List a directory: names, `name/` for directories; directories first, then files, by name.\n\
- filestore_read: Read a text file by lines, numbered like `cat -n`.\n\
- filestore_glob: Find files by glob pattern (*, ?, [abc], {a,b}, **), sorted by path.\n\
- filestore_grep: Search file contents with a regular expression (Rust regex syntax, linear time) or a fixed string.\n\
- filestore_tree: Render the directory tree (directories first, ├── └── connectors), capped per folder with [N more files].\n\
\nFiles:\n/\n└── skills/\n    └── pdf/\n        └── SKILL.md\n\
\nSkills: each is a folder with a SKILL.md holding instructions. When a task matches a skill's description, read its SKILL.md with filestore_read first; reading it also enables the tools the skill needs.\n\
<available_skills>\n  <skill>\n    <name>pdf</name>\n    <description>Use pdf for pdf work.</description>\n    <location>/skills/pdf/SKILL.md</location>\n  </skill>\n</available_skills>\n";
    assert_eq!(p, want);
}

/// A skill with a descriptor is a tool of its own once read: typed inputs validated
/// by the component, approval before anything runs, the configured tool run for real
/// (sqlite) with the fixed arguments added; an invalid descriptor keeps the skill out.
#[test]
fn descriptor_makes_a_skill_callable_with_approval() {
    let tmp = tempfile::tempdir().unwrap();
    let skills = tmp.path().join("skills");
    std::fs::create_dir_all(skills.join("db/purge")).unwrap();
    std::fs::write(skills.join("db/purge/SKILL.md"), skill_md("purge", "")).unwrap();
    std::fs::write(
        skills.join("db/purge/descriptor.yaml"),
        "tool: delete_rows\nrequiresApproval: true\ninputs:\n  - {name: min, type: integer, minValue: 2, description: Smallest n to delete}\narguments: {kind: test}\n",
    )
    .unwrap();
    std::fs::create_dir_all(skills.join("broken")).unwrap();
    std::fs::write(skills.join("broken/SKILL.md"), skill_md("broken", "")).unwrap();
    std::fs::write(skills.join("broken/descriptor.yaml"), "tool: delete_rows\ninputs: {min: 1}\n")
        .unwrap();
    let sv = SkillsVolume::load_dir(&skills).unwrap();
    assert_eq!(sv.problems().len(), 1);
    assert!(
        sv.problems()[0].reasons[0].contains("/skills/broken/descriptor.yaml: line 2"),
        "{}",
        sv.problems()[0]
    );

    let db = tmp.path().join("db.sqlite");
    let yaml = format!(
        "kind: source\nname: db\ntype: sqlite\ndatabase: {}\n---\n\
kind: tool\nname: setup\ntype: sqlite-sql\nsource: db\ndescription: d\n\
statement: CREATE TABLE items AS SELECT 1 AS n, 'test' AS kind UNION ALL SELECT 2, 'test' UNION ALL SELECT 3, 'test' UNION ALL SELECT 3, 'prod'\n---\n\
kind: tool\nname: count\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT count(*) AS c FROM items\n---\n\
kind: tool\nname: delete_rows\ntype: sqlite-sql\nsource: db\ndescription: d\n\
statement: DELETE FROM items WHERE n >= ? AND kind = ?\n\
parameters:\n  - {{name: min, type: integer, description: m}}\n  - {{name: kind, type: string, description: k}}\n---\n\
kind: toolset\nname: base\ntools: [setup, count]\n",
        db.display()
    );
    let mut s = skills_session(&sv, vec![("tools.yaml".to_string(), yaml)]);
    assert_eq!(ok(&mut s, "setup", json!({}))["success"], true);
    let (kind, _) = err(&mut s, "purge", json!({"min": 2}));
    assert_eq!(kind, "not-found", "not callable before the skill is read");

    let v0 = s.tools_version().unwrap();
    let out = s.call("filestore_read", &json!({"path": "/skills/db/purge/SKILL.md"})).unwrap();
    assert_eq!(out.json["activation"]["callable"], "purge");
    assert!(s.tools_version().unwrap() > v0);
    let specs = s.tool_specs().unwrap();
    let spec = specs.iter().find(|t| t["name"] == "purge").expect("the skill is listed");
    assert_eq!(spec["description"], "Use purge for purge work.");
    assert_eq!(spec["inputSchema"]["properties"]["min"]["minimum"], 2);
    assert!(spec["inputSchema"]["properties"].get("kind").is_none(), "fixed arguments are hidden");

    // Typed inputs are checked before approval is even asked for.
    let (kind, msg) = err(&mut s, "purge", json!({"min": 1}));
    assert_eq!(kind, "invalid-argument");
    assert!(msg.contains("min"), "{msg}");
    let (kind, _) = err(&mut s, "purge", json!({"min": 2, "kind": "prod"}));
    assert_eq!(kind, "invalid-argument", "the model cannot set a fixed argument");

    let ctx = filestore::tools::InvokeContext::default();
    let pending = s.invoke("purge", &json!({"min": 2}), &ctx).unwrap();
    assert_eq!(pending.status, filestore::tools::InvokeStatus::Pending);
    assert_eq!(ok(&mut s, "count", json!({}))["data"][0]["c"], 4, "nothing ran before approval");
    let done = s.approve(&pending.approval_id.unwrap()).unwrap();
    assert_eq!(done.status, filestore::tools::InvokeStatus::Completed, "{:?}", done.error);
    assert_eq!(done.envelope["data"]["rows_affected"], 2, "{}", done.envelope);
    assert!(done.result_path.unwrap().starts_with("/tool_calls/purge/"));
    assert_eq!(ok(&mut s, "count", json!({}))["data"][0]["c"], 2, "the prod row is kept");
}

/// A skill naming a tool the session does not have is found before any agent reads
/// it (an agent would otherwise follow instructions for a tool it cannot call). `Session::skill_orphans` lists each name with where it is
/// written (the `allowed-tools` line, the descriptor's `tool` line or metadata key, a
/// descriptor input the tool lacks), and `filestore serve` refuses to start on them,
/// each on its own line; without orphans it starts.
#[test]
fn orphans_are_found_at_start_with_where_they_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let skills = tmp.path().join("skills");
    for d in ["ops/admin", "purge", "meta", "fine", "wrongarg"] {
        std::fs::create_dir_all(skills.join(d)).unwrap();
    }
    std::fs::write(skills.join("ops/admin/SKILL.md"), skill_md("admin", "t1 ghost filestore_read"))
        .unwrap();
    std::fs::write(skills.join("purge/SKILL.md"), skill_md("purge", "")).unwrap();
    std::fs::write(skills.join("purge/descriptor.yaml"), "# runs\ntool: delete_everything\n")
        .unwrap();
    std::fs::write(
        skills.join("meta/SKILL.md"),
        "---\nname: meta\ndescription: Meta.\nmetadata:\n  filestore.tool: vanished\n---\nx\n",
    )
    .unwrap();
    std::fs::write(skills.join("fine/SKILL.md"), skill_md("fine", "t2 t3")).unwrap();
    std::fs::write(skills.join("wrongarg/SKILL.md"), skill_md("wrongarg", "")).unwrap();
    std::fs::write(
        skills.join("wrongarg/descriptor.yaml"),
        "tool: t4\ninputs: [{name: color, type: string}]\n",
    )
    .unwrap();
    let (mut s, _sv) = session_with_skills(&skills, &tmp.path().join("db.sqlite"));
    let found: Vec<String> = s.skill_orphans().unwrap().iter().map(|o| o.to_string()).collect();
    assert_eq!(
        found,
        [
            "/skills/meta/SKILL.md metadata 'filestore.tool': tool 'vanished': skill 'meta' runs tool 'vanished' (/skills/meta/SKILL.md metadata), which is not configured",
            "/skills/ops/admin/SKILL.md: line 4 (allowed-tools): tool 'ghost': no tool of this name is configured or built in",
            "/skills/purge/descriptor.yaml: line 2: tool 'delete_everything': skill 'purge' runs tool 'delete_everything' (/skills/purge/descriptor.yaml), which is not configured",
            "/skills/wrongarg/descriptor.yaml: line 1: tool 't4': skill 'wrongarg' passes 'color' to tool 't4', which has no such parameter",
        ],
        "{found:#?}"
    );

    // `serve` stops before any client: every orphan named, exit status 1.
    let db = tmp.path().join("db.sqlite");
    let config_file = tmp.path().join("tools.yaml");
    std::fs::write(&config_file, &config(&db)[0].1).unwrap();
    let serve = |skills: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_filestore"))
            .args(["serve", "--mount", "/workspace=mem:", "--config"])
            .arg(&config_file)
            .arg("--skills")
            .arg(skills)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = serve(&skills);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for o in &found {
        assert!(stderr.contains(&format!("error[config]: {o}")), "missing {o:?} in:\n{stderr}");
    }
    // With only the skill whose tools all exist, the same server starts (and ends
    // when stdin does).
    let good = tmp.path().join("good");
    std::fs::create_dir_all(good.join("fine")).unwrap();
    std::fs::copy(skills.join("fine/SKILL.md"), good.join("fine/SKILL.md")).unwrap();
    let out = serve(&good);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `filestore_read` with `paths` activates each skill it reads, as a read of that
/// `SKILL.md` alone does (an agent batching its reads must not lose the tools); a
/// file that is no skill, or missing, changes nothing for the others.
#[test]
fn reading_skills_with_paths_activates_each() {
    let tmp = tempfile::tempdir().unwrap();
    let skills = tmp.path().join("skills");
    for (name, tools) in [("alpha", "t1"), ("beta", "t2 t3")] {
        std::fs::create_dir_all(skills.join(name)).unwrap();
        std::fs::write(skills.join(name).join("SKILL.md"), skill_md(name, tools)).unwrap();
    }
    std::fs::write(skills.join("beta/notes.md"), "notes\n").unwrap();
    let (mut s, _sv) = session_with_skills(&skills, &tmp.path().join("db.sqlite"));
    let out = s
        .call(
            "filestore_read",
            &json!({"paths": ["/skills/alpha/SKILL.md", "/skills/beta/notes.md", "/skills/nope/SKILL.md", "/skills/beta/SKILL.md"]}),
        )
        .unwrap();
    let files = out.json["files"].as_array().unwrap();
    assert_eq!(files[0]["activation"]["added"], json!(["t1"]), "{}", out.json);
    assert!(files[1].get("activation").is_none() && files[2].get("error").is_some());
    assert_eq!(files[3]["activation"]["added"], json!(["t2", "t3"]), "{}", out.json);
    assert!(out.text.contains("[Skill 'alpha' enabled tools: t1.]"), "{}", out.text);
    assert!(out.text.contains("[Skill 'beta' enabled tools: t2, t3.]"), "{}", out.text);
    let listed = names(&s.tool_specs().unwrap());
    for t in ["t1", "t2", "t3"] {
        assert!(listed.contains(&t.to_string()), "{t} in {listed:?}");
    }
    assert_eq!(ok(&mut s, "t3", json!({}))["data"][0]["n"], 3);
}

/// A SQLite database with one `hosts` table, and a configuration over it: `plan`
/// returns its rows' verdict (one row carrying `requires_approval`), `decommission`
/// deletes, `count`, and `typed` declares an `outputSchema` its result breaks when
/// asked to.
fn executor_config(db: &std::path::Path) -> Vec<(String, String)> {
    let yaml = format!(
        "kind: source\nname: db\ntype: sqlite\ndatabase: {}\n---\n\
kind: tool\nname: setup\ntype: sqlite-execute-sql\nsource: db\ndescription: d\n---\n\
kind: tool\nname: plan\ntype: sqlite-sql\nsource: db\ndescription: d\n\
statement: SELECT count(*) AS hosts, count(*) > ? AS requires_approval FROM hosts\n\
parameters:\n  - {{name: threshold, type: integer, description: t}}\n---\n\
kind: tool\nname: decommission\ntype: sqlite-sql\nsource: db\ndescription: d\n\
statement: DELETE FROM hosts\n---\n\
kind: tool\nname: count\ntype: sqlite-sql\nsource: db\ndescription: d\n\
statement: SELECT count(*) AS c FROM hosts\n---\n\
kind: tool\nname: typed\ntype: sqlite-sql\nsource: db\ndescription: d\n\
statement: SELECT ? AS label\nparameters:\n  - {{name: label, type: string, description: l}}\n\
outputSchema:\n  type: array\n  items:\n    type: object\n    required: [label]\n    properties:\n      label: {{type: string, maxLength: 5}}\n---\n\
kind: toolset\nname: base\ntools: [setup, decommission, count, typed]\n",
        db.display()
    );
    vec![("tools.yaml".to_string(), yaml)]
}

/// The skill-executor guide's descriptor, whole. `outputs` checks
/// every result (a mismatch is a `backend` error naming where, the result still
/// stored) and is the tool's MCP `outputSchema` around the envelope; `category`,
/// `tags` and `invocationMode` show in the prompt block, which filters on them; a
/// result saying `requires_approval: true` holds the `followUp` tool's next call for
/// approval (a rejection keeps the hold, an approval spends it, a result saying
/// `false` lifts it). A configured tool's own `outputSchema` works the same way.
#[test]
fn a_complete_skill_executor_descriptor() {
    let tmp = tempfile::tempdir().unwrap();
    let skills = tmp.path().join("skills");
    std::fs::create_dir_all(skills.join("fleet-plan")).unwrap();
    std::fs::create_dir_all(skills.join("notes")).unwrap();
    std::fs::write(skills.join("fleet-plan/SKILL.md"), skill_md("fleet-plan", "")).unwrap();
    std::fs::write(
        skills.join("fleet-plan/descriptor.yaml"),
        "tool: plan\ninputs:\n  - {name: threshold, type: integer, default: 2}\n\
outputs:\n  type: array\n  items:\n    type: object\n    required: [hosts, requires_approval]\n    properties:\n      hosts: {type: integer}\n      requires_approval: {type: integer, enum: [0, 1]}\n\
category: fleet\ntags: [decommission, ops]\ninvocationMode: workflow_step\nfollowUp: decommission\n",
    )
    .unwrap();
    std::fs::write(skills.join("notes/SKILL.md"), skill_md("notes", "count")).unwrap();
    let sv = SkillsVolume::load_dir(&skills).unwrap();
    assert!(sv.problems().is_empty(), "{:?}", sv.problems());
    let mut s = skills_session(&sv, executor_config(&tmp.path().join("db.sqlite")));
    let setup = "CREATE TABLE hosts(name TEXT); INSERT INTO hosts VALUES ('a'), ('b'), ('c');";
    assert_eq!(ok(&mut s, "setup", json!({"sql": setup}))["success"], true);
    assert!(s.skill_orphans().unwrap().is_empty());

    // The prompt block: catalog metadata where declared, and the filter.
    let all = s.system_prompt(Some(1), Some(1)).unwrap();
    assert!(
        all.contains("<location>/skills/fleet-plan/SKILL.md</location>\n    <category>fleet</category>\n    <tags>decommission, ops</tags>\n    <invocation_mode>workflow_step</invocation_mode>\n  </skill>"),
        "{all}"
    );
    assert!(all.contains("<name>notes</name>"), "{all}");
    let mut filter = |category: Option<&str>, tag: Option<&str>| {
        let f = filestore_guest::skills::prompt::SkillFilter {
            category: category.map(Into::into),
            tag: tag.map(Into::into),
        };
        s.system_prompt_for(Some(1), Some(1), &f).unwrap()
    };
    let fleet = filter(Some("fleet"), None);
    assert!(fleet.contains("<name>fleet-plan</name>") && !fleet.contains("<name>notes</name>"));
    assert!(filter(None, Some("ops")).contains("<name>fleet-plan</name>"));
    assert!(!filter(Some("fleet"), Some("billing")).contains("<skill>"));

    // The skill's MCP outputSchema: the envelope, its data as `outputs` declare.
    s.call("filestore_read", &json!({"path": "/skills/fleet-plan/SKILL.md"})).unwrap();
    let specs = s.tool_specs().unwrap();
    let spec = specs.iter().find(|t| t["name"] == "fleet-plan").unwrap();
    assert_eq!(spec["outputSchema"]["required"], json!(["success"]), "{spec}");
    assert_eq!(spec["outputSchema"]["properties"]["data"]["items"]["required"][0], "hosts");
    let typed = specs.iter().find(|t| t["name"] == "typed").unwrap();
    assert_eq!(typed["outputSchema"]["properties"]["data"]["type"], "array", "{typed}");
    let count = specs.iter().find(|t| t["name"] == "count").unwrap();
    assert!(count.get("outputSchema").is_none(), "no schema declared, none invented");

    // Without the plan asking, the follow-up runs straight away...
    let ctx = filestore::tools::InvokeContext::default();
    let calm = s.invoke("fleet-plan", &json!({"threshold": 10}), &ctx).unwrap();
    assert_eq!(calm.status, filestore::tools::InvokeStatus::Completed, "{:?}", calm.error);
    assert!(calm.envelope.get("requires_approval").is_none(), "{}", calm.envelope);
    assert!(s.approval_gates().unwrap().is_empty());
    // ... once it asks (3 hosts > 2), the next call of `decommission` waits.
    let asks = s.invoke("fleet-plan", &json!({}), &ctx).unwrap();
    assert_eq!(asks.envelope["requires_approval"], true, "{}", asks.envelope);
    assert_eq!(asks.envelope["follow_up"], "decommission");
    assert_eq!(asks.envelope["data"][0]["hosts"], 3);
    assert!(asks.text.contains("the next call of 'decommission' waits"), "{}", asks.text);
    let gates = s.approval_gates().unwrap();
    assert_eq!(gates.len(), 1);
    assert_eq!(gates[0].tool, "decommission");
    let held = s.invoke("decommission", &json!({}), &ctx).unwrap();
    assert_eq!(held.status, filestore::tools::InvokeStatus::Pending);
    assert!(held.text.contains("the result of 'fleet-plan'"), "{}", held.text);
    assert_eq!(ok(&mut s, "count", json!({}))["data"][0]["c"], 3, "nothing ran");
    // Rejected: the hold stays, a retry waits again.
    s.reject(&held.approval_id.unwrap()).unwrap();
    let again = s.invoke("decommission", &json!({}), &ctx).unwrap();
    assert_eq!(again.status, filestore::tools::InvokeStatus::Pending, "a retry is held too");
    // Approved: it runs, and the hold is spent.
    let done = s.approve(&again.approval_id.unwrap()).unwrap();
    assert_eq!(done.status, filestore::tools::InvokeStatus::Completed, "{:?}", done.error);
    assert_eq!(ok(&mut s, "count", json!({}))["data"][0]["c"], 0);
    assert!(s.approval_gates().unwrap().is_empty());
    let free = s.invoke("decommission", &json!({}), &ctx).unwrap();
    assert_eq!(free.status, filestore::tools::InvokeStatus::Completed);
    // A plan that asks, then one that does not: the second lifts the hold.
    s.invoke("fleet-plan", &json!({"threshold": -1}), &ctx).unwrap();
    assert_eq!(s.approval_gates().unwrap().len(), 1);
    s.invoke("fleet-plan", &json!({"threshold": 5}), &ctx).unwrap();
    assert!(s.approval_gates().unwrap().is_empty());

    // A configured tool's outputSchema: a conforming result passes; one that breaks it
    // is a backend error naming where, and the result is still stored.
    assert_eq!(ok(&mut s, "typed", json!({"label": "ok"}))["data"][0]["label"], "ok");
    let bad = s.invoke("typed", &json!({"label": "far too long"}), &ctx).unwrap();
    assert_eq!(bad.status, filestore::tools::InvokeStatus::Failed);
    let e = bad.error.unwrap();
    assert_eq!(e.kind(), filestore_guest::ErrorKind::Backend);
    assert!(
        e.message().contains("the result of 'typed' does not match its output schema: at /0/label"),
        "{e}"
    );
    let stored = bad.result_path.expect("the result is stored");
    assert!(e.message().contains(&stored), "{e}");
    let text = ok(&mut s, "filestore_read", json!({"path": stored}));
    assert!(text["text"].as_str().unwrap().contains("far too long"), "{text}");
}

/// An `outputSchema` or `outputs` that is no usable JSON Schema is refused where it is
/// written; so are catalog values of the wrong shape.
#[test]
fn unusable_output_schemas_and_catalog_values_are_refused_where_written() {
    let yaml = "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n---\n\
kind: tool\nname: t\ntype: sqlite-sql\nsource: db\ndescription: d\nstatement: SELECT 1\n\
outputSchema: {type: 7}\n";
    let mut s = engine().session(vec![]).unwrap();
    let issues =
        s.load_config(&[("tools.yaml".to_string(), yaml.to_string())]).unwrap().unwrap_err();
    let all: Vec<String> = issues.iter().map(|i| i.to_string()).collect();
    assert!(
        all.iter().any(|i| i.contains("tools.yaml")
            && i.contains("outputSchema")
            && i.contains("line 12")),
        "{all:?}"
    );
    let errs = filestore_guest::skills::descriptor::from_sidecar(
        "/skills/x/descriptor.yaml",
        "tool: t\noutputs: [1]\ncategory: ''\ntags: [a, [b]]\ninvocationMode: sometimes\nfollowUp: 'no such'\n",
    )
    .unwrap_err()
    .join("\n");
    for want in [
        "line 2: outputs must be a usable JSON Schema",
        "line 3: category must be a non-empty string",
        "line 4: each tag must be a non-empty string",
        "line 5: invocationMode must be one of one_shot, workflow_step",
        "line 6: followUp must be a tool name",
    ] {
        assert!(errs.contains(want), "missing {want:?} in:\n{errs}");
    }
}
