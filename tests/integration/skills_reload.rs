//! `serve --skills DIR` while it runs (docs/skills.md#reloading), through the real
//! `filestore serve --http` binary and one live MCP session: a skill folder renamed
//! into the directory (as an operator ships one) is listed, readable and activates
//! its tool at the session's next call; a changed `SKILL.md` reads changed; a
//! deleted skill is not found (its activated tool stays for the session); a skill
//! naming no tool of the server is left out with a line on stderr while the server
//! keeps serving. The server polls at its default interval: each wait below is a
//! bounded loop on what the session or stderr shows, never a fixed sleep.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::mcp_http::{McpHttp, Replica};

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

/// The longest a change may take to reach a session (the default poll is 2 s, and
/// a change loads once two polls saw it the same).
const PATIENCE: Duration = Duration::from_secs(30);

/// A `SKILL.md` naming `tools` (none when empty).
fn skill_md(name: &str, description: &str, tools: &str) -> String {
    let tools = if tools.is_empty() { String::new() } else { format!("allowed-tools: {tools}\n") };
    format!("---\nname: {name}\ndescription: {description}\n{tools}---\n# {name}\nSteps.\n")
}

/// A root holding `tools.yaml` (`count_rows` in the toolset `base`, `hidden_report`
/// left to skills), `skills/` with the skill `intro`, and `staging/`, where skills
/// are written before they are renamed in.
fn fixture(root: &Path) -> (PathBuf, PathBuf) {
    std::fs::write(
        root.join("tools.yaml"),
        "kind: source\nname: db\ntype: sqlite\ndatabase: ':memory:'\n\
         ---\nkind: tool\nname: count_rows\ntype: sqlite-sql\nsource: db\n\
         description: Count something.\nstatement: SELECT 42 AS n;\n\
         ---\nkind: tool\nname: hidden_report\ntype: sqlite-sql\nsource: db\n\
         description: A report only a skill enables.\nstatement: SELECT 7 AS n;\n\
         ---\nkind: toolset\nname: base\ntools: [count_rows]\n",
    )
    .unwrap();
    let skills = root.join("skills");
    std::fs::create_dir_all(skills.join("intro")).unwrap();
    std::fs::write(skills.join("intro/SKILL.md"), skill_md("intro", "Start here.", "")).unwrap();
    std::fs::create_dir_all(root.join("staging")).unwrap();
    (root.join("tools.yaml"), skills)
}

/// `serve --http` over the fixture, with the default poll interval.
fn serve(root: &Path, config: &Path, skills: &Path) -> Replica {
    let (config, skills) = (config.display().to_string(), skills.display().to_string());
    let args = [
        "--config",
        &config,
        "--toolset",
        "base",
        "--skills",
        &skills,
        "--mount",
        "/workspace=mem:",
    ];
    Replica::start(BIN, root, &args)
}

/// Waits (at most [`PATIENCE`]) until `done` holds; panics naming `what` and the
/// server's stderr otherwise.
fn wait_until(server: &Replica, what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < PATIENCE,
            "{what}: not seen within {PATIENCE:?}; the server said:\n{}",
            server.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Writes a skill folder under `staging` and renames it to `dest`, so the skills
/// directory never holds half of it.
fn ship(root: &Path, dest: &Path, files: &[(&str, String)]) {
    let staged = root.join("staging").join(dest.file_name().unwrap());
    for (path, text) in files {
        let p = staged.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::rename(&staged, dest).unwrap();
}

/// The text of `filestore_ls /skills`.
fn listing(s: &mut McpHttp) -> String {
    s.call_ok("filestore_ls", json!({"path": "/skills"}))
}

/// `filestore_read` of `path`: the whole result.
fn read(s: &mut McpHttp, path: &str) -> Value {
    s.call("filestore_read", json!({"path": path}))
}

fn text(r: &Value) -> String {
    r["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_skill_added_changed_and_deleted_reaches_a_live_session() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let (config, skills) = fixture(root);
    let server = serve(root, &config, &skills);
    let mut s = server.session(None, None).unwrap();
    let before = listing(&mut s);
    assert!(before.contains("intro") && !before.contains("weekly"), "{before}");
    assert!(!s.tool_names().contains(&"hidden_report".to_string()));

    // Added: listed, its reference readable, its SKILL.md activates its tool.
    let weekly = skills.join("weekly");
    ship(
        root,
        &weekly,
        &[
            ("SKILL.md", skill_md("weekly", "Build the weekly report.", "hidden_report")),
            ("refs/guide.md", "Sum per team.\n".into()),
        ],
    );
    wait_until(&server, "the added skill in ls /skills", || listing(&mut s).contains("weekly"));
    wait_until(&server, "the reload line", || {
        server.stderr().contains("reloaded: added weekly (2 skills)")
    });
    let guide = s.call_ok("filestore_read", json!({"path": "/skills/weekly/refs/guide.md"}));
    assert!(guide.contains("Sum per team."), "{guide}");
    let r = read(&mut s, "/skills/weekly/SKILL.md");
    assert_ne!(r["isError"], true, "{r}");
    assert!(text(&r).contains("Build the weekly report."), "{r}");
    assert!(text(&r).contains("enabled tools: hidden_report"), "{r}");
    assert!(s.tool_names().contains(&"hidden_report".to_string()));
    assert!(s.call_ok("hidden_report", json!({})).contains('7'));

    // Changed: the new SKILL.md replaces the old one in place (renamed over it).
    let changed = root.join("staging/SKILL.md");
    std::fs::write(
        &changed,
        skill_md("weekly", "Build the weekly report, by team.", "hidden_report"),
    )
    .unwrap();
    std::fs::rename(&changed, weekly.join("SKILL.md")).unwrap();
    wait_until(&server, "the changed description", || {
        text(&read(&mut s, "/skills/weekly/SKILL.md")).contains("by team.")
    });
    wait_until(&server, "the reload line", || {
        server.stderr().contains("reloaded: changed weekly (2 skills)")
    });

    // Deleted: not found, not listed; the tool it activated stays for this session.
    std::fs::remove_dir_all(&weekly).unwrap();
    wait_until(&server, "the deleted skill gone from ls /skills", || {
        !listing(&mut s).contains("weekly")
    });
    wait_until(&server, "the reload line", || {
        server.stderr().contains("reloaded: removed weekly (1 skills)")
    });
    let r = read(&mut s, "/skills/weekly/SKILL.md");
    assert_eq!(r["isError"], true, "{r}");
    assert!(text(&r).contains("not found") || text(&r).contains("not-found"), "{r}");
    assert!(s.call_ok("hidden_report", json!({})).contains('7'), "activated before the delete");
    let mut fresh = server.session(None, None).unwrap();
    assert!(!fresh.tool_names().contains(&"hidden_report".to_string()));
    assert_eq!(read(&mut fresh, "/skills/weekly/SKILL.md")["isError"], true);
}

#[test]
fn an_orphan_skill_shipped_at_run_time_is_left_out_and_the_server_keeps_serving() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let (config, skills) = fixture(root);
    let server = serve(root, &config, &skills);
    let mut s = server.session(None, None).unwrap();

    // One rename ships three skills: one fine, one naming a tool the server does not
    // have, one invalid.
    ship(
        root,
        &skills.join("team"),
        &[
            ("fine/SKILL.md", skill_md("fine", "A fine skill.", "hidden_report")),
            ("ghostly/SKILL.md", skill_md("ghostly", "Names a ghost.", "hidden_report ghost_tool")),
            ("broken/SKILL.md", skill_md("Broken_Name", "Invalid.", "")),
        ],
    );
    wait_until(&server, "the reload line", || {
        server.stderr().contains("reloaded: added fine (2 skills)")
    });
    let said = server.stderr();
    let orphan = "filestore serve: skipped a skill naming no tool of this server: /skills/team/ghostly/SKILL.md: line 4 (allowed-tools): tool 'ghost_tool': no tool of this name is configured or built in";
    assert_eq!(said.matches(orphan).count(), 1, "{said}");
    assert!(said.contains("filestore serve: skipped /skills/team/broken/SKILL.md"), "{said}");

    let ls = s.call_ok("filestore_ls", json!({"path": "/skills/team"}));
    assert!(ls.contains("fine") && !ls.contains("ghostly") && !ls.contains("broken"), "{ls}");
    assert_eq!(read(&mut s, "/skills/team/ghostly/SKILL.md")["isError"], true);
    let r = read(&mut s, "/skills/team/fine/SKILL.md");
    assert!(text(&r).contains("enabled tools: hidden_report"), "{r}");
    // The server serves on: this session, and a new one.
    assert!(s.call_ok("count_rows", json!({})).contains("42"));
    let mut fresh = server.session(None, None).unwrap();
    assert!(fresh.call_ok("count_rows", json!({})).contains("42"));
}
