//! The approval fixture several suites share: a `plan` tool whose result asks for
//! approval of its follow-up (`requires_approval` is true when the `threshold` is
//! below 3), a `decommission` follow-up (the one tool of the `base` toolset), and a
//! `fleet-plan` skill whose descriptor runs `plan` with `decommission` as its
//! follow-up. A session that runs `fleet-plan` with threshold 1 holds `decommission`
//! for approval.

use std::path::Path;

/// The configuration's documents (YAML, `---`-separated).
const TOOLS: &str = "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n\
     ---\nkind: tool\nname: plan\ntype: sqlite-sql\nsource: db\ndescription: Plan.\n\
     statement: SELECT 3 AS hosts, 3 > ? AS requires_approval\n\
     parameters:\n  - {name: threshold, type: integer, description: x}\n\
     ---\nkind: tool\nname: decommission\ntype: sqlite-sql\nsource: db\n\
     description: Decommission.\nstatement: SELECT 'done' AS decommissioned\n\
     ---\nkind: toolset\nname: base\ntools: [decommission]\n";

/// Writes `root/tools.yaml` (the fixture's tools, then `extra_tools`: more YAML
/// documents, each starting with `---`) and `root/skills/fleet-plan`; returns the
/// `serve` arguments that load them (`--config`, `--toolset base`, `--skills`).
pub fn write(root: &Path, extra_tools: &str) -> Vec<String> {
    std::fs::write(root.join("tools.yaml"), format!("{TOOLS}{extra_tools}")).unwrap();
    let skill = root.join("skills/fleet-plan");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(skill.join("SKILL.md"), "---\nname: fleet-plan\ndescription: Plan.\n---\nx\n")
        .unwrap();
    std::fs::write(
        skill.join("descriptor.yaml"),
        "tool: plan\ninputs: [{name: threshold, type: integer}]\nfollowUp: decommission\n",
    )
    .unwrap();
    let path = |p: &str| root.join(p).display().to_string();
    vec![
        "--config".into(),
        path("tools.yaml"),
        "--toolset".into(),
        "base".into(),
        "--skills".into(),
        path("skills"),
    ]
}
