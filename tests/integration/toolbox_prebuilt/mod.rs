//! Toolbox 1.12.0's prebuilt configurations (`configs/`, the 39
//! files `toolbox --prebuilt` accepts, vendored verbatim: see `configs/NOTICE.md`).
//! Each passes `filestore check` with its environment variables set, as a user of
//! `toolbox --prebuilt NAME` sets them; what runs here and what does not (and why)
//! is the table in docs/configured-tools.md, which this module reads. The SQLite,
//! PostgreSQL and MySQL ones run against a real database (MariaDB for MySQL) and agree
//! with `toolbox invoke` (`run`).

mod run;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_filestore");
/// The heading of the table of docs/configured-tools.md this module checks.
const TABLE_HEADING: &str = "## Toolbox 1.12's prebuilt configurations";

/// The vendored configuration `name` (`sqlite`, `postgres`...).
fn config_path(name: &str) -> PathBuf {
    crate::common::repo_root()
        .join("tests/integration/toolbox_prebuilt/configs")
        .join(format!("{name}.yaml"))
}

/// The names of the vendored configurations, sorted.
fn vendored() -> Vec<String> {
    let dir = config_path("x").parent().unwrap().to_path_buf();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().to_str()?.strip_suffix(".yaml").map(String::from))
        .collect();
    names.sort();
    names
}

/// The variables `text` references without a default (`${VAR}`): the ones Toolbox
/// 1.12 refuses to start without.
fn required_variables(text: &str) -> BTreeSet<String> {
    let mut vars = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        rest = &rest[i + 2..];
        let end = rest.find('}').unwrap_or(rest.len());
        let inner = &rest[..end];
        if !inner.contains(':') && inner.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            vars.insert(inner.to_string());
        }
    }
    vars
}

/// What `filestore check` said of one configuration: tools in all, how many run
/// here, and the reasons given for the others (deduplicated).
#[derive(Debug, PartialEq, Eq)]
struct Checked {
    tools: usize,
    runnable: usize,
    reasons: BTreeSet<String>,
}

/// Runs `filestore check` on configuration `name` with each required variable set
/// to a placeholder; panics (with the output) unless it passes.
fn check(name: &str) -> Checked {
    let path = config_path(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut cmd = Command::new(BIN);
    cmd.arg("check").arg(&path).stdin(Stdio::null());
    for var in required_variables(&text) {
        cmd.env(var, "placeholder");
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "filestore check {name}.yaml failed:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tool_lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("tool '")).collect();
    let runnable = tool_lines.iter().filter(|l| l.ends_with("): runnable")).count();
    let reasons = tool_lines
        .iter()
        .filter_map(|l| {
            let (_, why) = l.split_once("valid, but not runnable by this host: ")?;
            let why = why.split(" [").next().unwrap();
            // "its source 'x' is a bigquery source, ..." -> "bigquery source"
            Some(match why.split_once(" is a ") {
                Some((_, rest)) => rest.split(',').next().unwrap().to_string(),
                None => why.to_string(),
            })
        })
        .collect();
    Checked { tools: tool_lines.len(), runnable, reasons }
}

/// The table of docs/configured-tools.md: configuration name to its row.
fn documented() -> BTreeMap<String, Checked> {
    let page = std::fs::read_to_string(crate::common::repo_root().join("docs/configured-tools.md"))
        .unwrap();
    let start = page.find(TABLE_HEADING).expect("docs/configured-tools.md has the prebuilt table");
    let mut rows = BTreeMap::new();
    for line in page[start..].lines().skip(1).take_while(|l| !l.starts_with("## ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | `name` | runnable of tools | not runnable here because |
        let [_, name, counts, why, _] = cells[..] else { continue };
        let Some(name) = name.strip_prefix('`').and_then(|n| n.strip_suffix('`')) else {
            continue;
        };
        let (runnable, tools) = counts.split_once(" of ").expect(counts);
        let reasons = why
            .split(';')
            .map(str::trim)
            .filter(|r| !r.is_empty() && *r != "—")
            .map(|r| r.trim_matches('`').replace("` source", " source"))
            .collect();
        let checked =
            Checked { tools: tools.parse().unwrap(), runnable: runnable.parse().unwrap(), reasons };
        rows.insert(name.to_string(), checked);
    }
    rows
}

/// The vendored files are the 39 configurations Toolbox 1.12.0 itself names.
#[test]
fn vendored_configs_are_the_ones_toolbox_names() {
    let out = crate::support::toolbox::command(Path::new("/")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let line = help.lines().find(|l| l.contains("--prebuilt")).expect("--prebuilt in help");
    let allowed = line.split("Allowed: ").nth(1).expect(line).split(". Can be").next().unwrap();
    let mut names: Vec<String> =
        allowed.split(", ").map(|n| n.trim_matches('\'').to_string()).collect();
    names.sort();
    assert_eq!(names.len(), 39, "{names:?}");
    assert_eq!(vendored(), names);
}

/// Every prebuilt configuration passes `filestore check`, and what it says runs here
/// and what does not (naming the unsupported source type) is what the docs' table says.
#[test]
fn every_prebuilt_config_checks_as_documented() {
    let names = vendored();
    assert_eq!(names.len(), 39);
    let found: BTreeMap<String, Checked> = names.iter().map(|n| (n.clone(), check(n))).collect();
    let documented = documented();
    let mut problems = Vec::new();
    for (name, got) in &found {
        match documented.get(name) {
            Some(row) if row == got => {}
            Some(row) => problems.push(format!("{name}: check says {got:?}, the table {row:?}")),
            None => problems.push(format!("{name}: no row (check says {got:?})")),
        }
    }
    for name in documented.keys().filter(|n| !found.contains_key(*n)) {
        problems.push(format!("{name}: a row for a configuration that is not vendored"));
    }
    assert!(
        problems.is_empty(),
        "docs/configured-tools.md `{TABLE_HEADING}`:\n{}",
        problems.join("\n")
    );
}

/// The MySQL catalog types' statements and parameter descriptions
/// (`guest/src/tools/config/prebuilt/mysql.rs`) are Toolbox 1.12's own: each occurs,
/// byte for byte, in the release binary (Go keeps string constants verbatim).
#[test]
fn mysql_catalog_is_toolboxs() {
    use filestore_guest::tools::config::prebuilt::mysql::{LIST_ALL_LOCKS_57, TOOLS};
    let bytes = std::fs::read(crate::support::toolbox::binary()).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let mut missing = Vec::new();
    let query_plan = "EXPLAIN FORMAT=JSON %s";
    for t in TOOLS {
        let mut wanted = vec![t.tool.statement, t.tool.tool_type];
        wanted.extend(t.tool.parameters.iter().flat_map(|p| [p.name, p.description]));
        for w in wanted {
            if !text.contains(w) {
                missing.push(format!("{}: {w:?}", t.tool.tool_type));
            }
        }
    }
    for w in [LIST_ALL_LOCKS_57, query_plan] {
        if !text.contains(w) {
            missing.push(format!("{w:?}"));
        }
    }
    assert!(missing.is_empty(), "not in Toolbox 1.12's binary:\n{}", missing.join("\n"));
    assert_eq!(TOOLS.len(), 8);
}
