//! Runs a corpus through both sides: each config through Toolbox's loader and
//! `filestore check`, each case through `toolbox invoke` and `filestore call
//! --config`, every difference checked against the recorded ones.
//!
//! Each side has its own database, set up alike; cases run in corpus order on both,
//! so DML leaves both databases in the same state as long as the sides agree.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::corpus::{Case, Config, Corpus};
use super::outcome::Outcome;
use crate::support::toolbox;

const BIN: &str = env!("CARGO_BIN_EXE_filestore");

/// One side's working directory, its source document and its environment.
pub struct Side {
    pub dir: PathBuf,
    /// The `kind: source` document named `db` the configs use.
    pub source: String,
    pub env: Vec<(String, String)>,
}

impl Side {
    /// Writes `config` after the source into `DIR/tools.yaml`.
    pub fn write(&self, config: &Config) -> PathBuf {
        let path = self.dir.join("tools.yaml");
        std::fs::write(&path, format!("{}---\n{}", self.source, config.yaml)).unwrap();
        path
    }
}

/// What a run found: the problems (unrecorded differences, recorded ones that did
/// not occur) and which recorded differences did occur.
#[derive(Default)]
pub struct Report {
    pub problems: Vec<String>,
    pub seen: BTreeSet<String>,
    pub cases: usize,
    /// Tools whose `tools/list` entries were compared.
    pub schemas: usize,
}

impl Report {
    /// Records that `what` differs (or not) with `expected` the recorded difference.
    fn check(&mut self, what: &str, differs: bool, expected: &Option<String>, detail: String) {
        match (differs, expected) {
            (true, Some(ids)) => {
                self.seen.extend(ids.split(',').map(str::to_string));
            }
            (true, None) => self.problems.push(format!("{what}: differs (not recorded)\n{detail}")),
            (false, Some(id)) => self
                .problems
                .push(format!("{what}: recorded difference `{id}` no longer occurs\n{detail}")),
            (false, None) => {}
        }
    }

    /// Panics listing every problem.
    pub fn assert_clean(&self, backend: &str) {
        assert!(
            self.problems.is_empty(),
            "{backend}: {} problem(s) in {} cases and {} tools/list entries (recorded differences: docs/configured-tools.md, `{}`):\n\n{}",
            self.problems.len(),
            self.cases,
            self.schemas,
            super::corpus::TABLE_HEADING,
            self.problems.join("\n\n")
        );
    }
}

/// Runs `corpus` with Toolbox on `tb_side` and filestore on `fs_side`.
pub fn corpus(corpus: &Corpus, tb_side: &Side, fs_side: &Side) -> Report {
    let mut report = Report::default();
    for config in &corpus.configs {
        let tb_config = tb_side.write(config);
        let fs_config = fs_side.write(config);
        let tb = toolbox::loads(&tb_side.dir, &tb_side.env, &tb_config);
        let fs = filestore_loads(fs_side, &fs_config);
        let detail = format!("  toolbox:   {tb:?}\n  filestore: {fs:?}");
        let what = format!("config {}", config.name);
        report.check(&what, tb.is_ok() != fs.is_ok(), &config.differs, detail);
        if tb.is_err() || fs.is_err() {
            continue;
        }
        for case in &config.cases {
            report.cases += 1;
            // Both at once: they touch different databases.
            let tb = run_case(tb_side, &tb_config, case, true);
            let fs = run_case(fs_side, &fs_config, case, false);
            let (tb, fs) = (tb.wait(), fs.wait());
            let detail = format!(
                "  {} {}\n  toolbox:   {}\n  filestore: {}",
                case.tool,
                case.args,
                tb.show(),
                fs.show()
            );
            report.check(&format!("case {}", case.id), !tb.agrees(&fs), &case.differs, detail);
        }
    }
    report
}

/// A case running on one side.
struct Running {
    child: std::process::Child,
    toolbox: bool,
}

impl Running {
    fn wait(self) -> Outcome {
        let out = self.child.wait_with_output().unwrap();
        if self.toolbox { Outcome::of_toolbox(&out) } else { Outcome::of_filestore(&out) }
    }
}

/// Starts `case` on `side` (Toolbox when `is_toolbox`).
fn run_case(side: &Side, config: &Path, case: &Case, is_toolbox: bool) -> Running {
    let child = if is_toolbox {
        toolbox::invoke(&side.dir, &side.env, config, &case.tool, &case.args)
    } else {
        let mut cmd = Command::new(BIN);
        cmd.arg("call").arg(&case.tool).arg(&case.args).arg("--config").arg(config);
        cmd.current_dir(&side.dir).stdin(Stdio::null());
        spawn(cmd, side)
    };
    Running { child, toolbox: is_toolbox }
}

fn spawn(mut cmd: Command, side: &Side) -> std::process::Child {
    cmd.envs(side.env.iter().map(|(k, v)| (k, v)));
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

/// Whether `filestore check` accepts `config` (`Err`: what it printed).
fn filestore_loads(side: &Side, config: &Path) -> Result<(), String> {
    let mut cmd = Command::new(BIN);
    cmd.arg("check").arg(config).current_dir(&side.dir).stdin(Stdio::null());
    let out = spawn(cmd, side).wait_with_output().unwrap();
    if out.status.success() { Ok(()) } else { Err(super::text(&out)) }
}
