//! The corpus files of the differential suite (`*.cases` beside this module) and the
//! table of recorded differences they refer to (in docs/configured-tools.md).
//!
//! A corpus file is sections, each opened by a line starting with `===`:
//!
//! - `=== setup`: SQL run on both databases before any case (one script).
//! - `=== config NAME [~ DIFF]`: the YAML documents of one tools.yaml (the harness
//!   puts the source `db` before them), then its cases, one per line:
//!   `case ID TOOL ARGS-JSON [~ DIFF]`.
//!
//! `~ DIFF` says the config (for the loaders) or the case is expected to differ, as
//! the row `DIFF` of the table records (`~ A,B`: a case showing two of them). `#` starts a comment line outside YAML.

use std::collections::BTreeSet;
use std::path::PathBuf;

/// The directory of the corpus files.
pub fn dir() -> PathBuf {
    crate::common::repo_root().join("tests/integration/toolbox_diff")
}

/// One (tool, arguments) case.
#[derive(Debug, Clone)]
pub struct Case {
    /// Unique in its file: `CONFIG/ID`.
    pub id: String,
    pub tool: String,
    /// The arguments as written (JSON), given to both sides verbatim.
    pub args: String,
    /// The recorded difference this case shows, if any.
    pub differs: Option<String>,
}

/// One tools.yaml and its cases.
#[derive(Debug, Clone)]
pub struct Config {
    pub name: String,
    /// The documents after the source's.
    pub yaml: String,
    /// The recorded difference of the two loaders on it, if any.
    pub differs: Option<String>,
    pub cases: Vec<Case>,
}

/// A parsed corpus file.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub setup: String,
    pub configs: Vec<Config>,
}

impl Corpus {
    /// Reads `dir()/NAME`.
    pub fn read(name: &str) -> Corpus {
        let path = dir().join(name);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        Corpus::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The same corpus with each config's `type: FROM` lines made `type: TO`: one
    /// corpus for two tool kinds of one protocol (`redis` and `valkey`).
    pub fn with_tool_type(mut self, from: &str, to: &str) -> Corpus {
        let (from, to) = (format!("type: {from}"), format!("type: {to}"));
        for config in &mut self.configs {
            let lines = config.yaml.lines().map(|l| if l == from { to.as_str() } else { l });
            config.yaml = lines.map(|l| format!("{l}\n")).collect();
        }
        self
    }

    fn parse(text: &str) -> Result<Corpus, String> {
        let mut corpus = Corpus::default();
        let mut in_setup = false;
        let mut ids = BTreeSet::new();
        for (n, line) in text.lines().enumerate() {
            let at = |e: String| format!("line {}: {e}", n + 1);
            if let Some(head) = line.strip_prefix("===") {
                let (head, differs) = split_differs(head.trim());
                in_setup = head == "setup";
                if in_setup {
                    continue;
                }
                let name = head
                    .strip_prefix("config ")
                    .ok_or_else(|| at(format!("unknown section '{head}'")))?;
                let yaml = String::new();
                let name = name.trim().to_string();
                corpus.configs.push(Config { name, yaml, differs, cases: Vec::new() });
            } else if in_setup {
                corpus.setup.push_str(line);
                corpus.setup.push('\n');
            } else if let Some(rest) = line.strip_prefix("case ") {
                let config =
                    corpus.configs.last_mut().ok_or_else(|| at("case before config".into()))?;
                let case = parse_case(&config.name, rest).map_err(at)?;
                if !ids.insert(case.id.clone()) {
                    return Err(at(format!("case {} twice", case.id)));
                }
                config.cases.push(case);
            } else if let Some(config) = corpus.configs.last_mut() {
                if !config.cases.is_empty() && !line.trim().is_empty() && !line.starts_with('#') {
                    return Err(at("YAML after the cases of a config".into()));
                }
                config.yaml.push_str(line);
                config.yaml.push('\n');
            } else if !line.trim().is_empty() && !line.starts_with('#') {
                return Err(at("text before the first section".into()));
            }
        }
        Ok(corpus)
    }

    /// Every case, in order, with its config.
    pub fn cases(&self) -> impl Iterator<Item = (&Config, &Case)> {
        self.configs.iter().flat_map(|c| c.cases.iter().map(move |case| (c, case)))
    }

    /// Every difference named by a config or case.
    pub fn differences(&self) -> BTreeSet<String> {
        let configs = self.configs.iter().filter_map(|c| c.differs.clone());
        let named = configs.chain(self.cases().filter_map(|(_, c)| c.differs.clone()));
        named.flat_map(|ids| ids.split(',').map(str::to_string).collect::<Vec<_>>()).collect()
    }
}

/// `TEXT ~ DIFF` into (`TEXT`, `Some(DIFF)`).
fn split_differs(s: &str) -> (&str, Option<String>) {
    match s.rsplit_once(" ~ ") {
        Some((head, id)) if !id.trim().is_empty() && !id.trim().contains(' ') => {
            (head.trim_end(), Some(id.trim().to_string()))
        }
        _ => (s, None),
    }
}

/// `ID TOOL ARGS [~ DIFF]` of config `config`.
fn parse_case(config: &str, rest: &str) -> Result<Case, String> {
    let (rest, differs) = split_differs(rest.trim());
    let mut parts = rest.splitn(3, ' ');
    let (Some(id), Some(tool), Some(args)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(format!("case '{rest}' is not `case ID TOOL ARGS`"));
    };
    // Arguments that are not JSON are a case too (both must refuse them), but then
    // it is said with the ID `...-not-json`, so a typo in the corpus is caught.
    let is_json = serde_json::from_str::<serde_json::Value>(args).is_ok();
    if !is_json && !id.ends_with("not-json") {
        return Err(format!("case {id}: arguments are not JSON: {args}"));
    }
    Ok(Case {
        id: format!("{config}/{id}"),
        tool: tool.to_string(),
        args: args.to_string(),
        differs,
    })
}

/// The recorded differences: the first column of the table under the heading
/// [`TABLE_HEADING`] in docs/configured-tools.md (each row `` | `ID` | ... ``).
pub fn recorded() -> BTreeSet<String> {
    let path = crate::common::repo_root().join("docs/configured-tools.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let section = doc
        .split_once(TABLE_HEADING)
        .unwrap_or_else(|| panic!("{} has no heading '{TABLE_HEADING}'", path.display()))
        .1;
    let section = section.split("\n#").next().unwrap_or("");
    section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .map(|l| l.split('`').next().unwrap_or("").to_string())
        .collect()
}

/// The heading of the table [`recorded`] reads.
pub const TABLE_HEADING: &str = "## Differences from Toolbox 1.12";
