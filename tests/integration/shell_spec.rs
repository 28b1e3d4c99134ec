//! bashkit's own spec corpus through `filestore_execute`: the shell crate's own
//! behaviour tests, run through the component's filesystem and limits.
//!
//! bashkit ships its behaviour tests as `tests/spec_cases/<group>/*.test.sh` files in
//! its crate: each case is a script, its expected stdout and sometimes an exit code,
//! checked by bashkit's runner against its in-memory filesystem. Here every case of
//! the groups for the commands filestore's shell offers (bash, awk, grep, sed, jq)
//! runs through the real component, over a session whose `/tmp` and `/home/user` are
//! writable memory mounts (the two directories bashkit's own filesystem provides),
//! and must give bashkit's expected stdout and exit code — except the cases of
//! [`KNOWN`], which must still differ (each a difference of filestore's shell from
//! bashkit on its own filesystem, with its reason). Cases of [`TIMED`] (wall-time bounds) and cases bashkit itself marks
//! `### skip` are not run, and are counted in the summary.
//!
//! The corpus is read from the bashkit crate cargo downloaded for the guest (found
//! with `cargo metadata`), so it always matches the version the component embeds.
//! Each case runs through the component once ([`answers`]); [`against_bash`]
//! compares the same answers with `/bin/bash`'s.

use std::path::{Path, PathBuf};
use std::process::Command;

use filestore::{MountSpec, Session};
use serde_json::json;

use crate::common::*;

mod against_bash;

/// The spec groups run: the commands filestore's shell offers (bashkit's `python`,
/// `typescript` and `yq` builtins are not compiled into the component).
const GROUPS: &[&str] = &["bash", "awk", "grep", "sed", "jq"];

// Why a case differs (each a row of docs/shell.md's "Differences from bash").
const LINKS: &str = "volumes never create or follow links (ln -s, link fail)";
const ROOTFS: &str = "the mount table is the whole world: no /proc, /etc or /bin/sh (of /dev, only null, zero, random and urandom)";
const OUTSIDE_MOUNTS: &str =
    "nothing outside the mounts is writable (the case writes under / or /usr/local/bin)";
const TIMES: &str = "volumes set a file's time when they write it, never to a given time";
const BUILTINS: &str = "every command is a builtin: type/which/command -v name no /usr/bin path";
const ENV: &str = "the shell starts with HOME, PWD, PATH, SHELL and LANG set";
const USER: &str = "the user is `agent`, not bashkit's `sandbox`";
const BACKSLASH: &str = "a name with a backslash is refused (the tools' path rule)";
const EXEC_REDIRECT: &str = "after `exec >FILE`, the output of grep, find and wc inside `$( )` goes to FILE (bashkit routes its registered commands' output past the substitution)";
const NOUNSET_127: &str = "a `set -u` or `${x?}` error exits the shell with 127, as `bash -c` does (bashkit expects a script file's 1)";
const DEBUG_TRAP: &str = "a DEBUG trap's output is streamed but left out of the answer (bashkit drops streamed trap output from its result)";

/// Cases whose answer differs from bashkit on its own filesystem: `(group/file/case,
/// why)`. Each must still differ (a case that starts to agree fails the test, so the
/// list stays true).
const KNOWN: &[(&str, &str)] = &[
    ("bash/bash-flags/bash_u_nounset", NOUNSET_127),
    ("bash/bash-flags/bash_o_nounset", NOUNSET_127),
    ("bash/nounset/nounset_unset_var_error", NOUNSET_127),
    ("bash/nounset/nounset_error_in_function_exits_script", NOUNSET_127),
    ("bash/nounset/nounset_unbound_in_function_exits_script", NOUNSET_127),
    ("bash/string-ops/string_error_message", NOUNSET_127),
    ("bash/var-op-test/vop_error_when_empty", NOUNSET_127),
    ("bash/var-op-test/vop_error_when_unset", NOUNSET_127),
    ("bash/oils-arrays-traps/debug_trap_lineno_loops_and_case", DEBUG_TRAP),
    ("bash/oils-arrays-traps/debug_trap_scopes_and_functrace", DEBUG_TRAP),
    ("bash/oils-arrays-traps/debug_trap_pipeline_runs_in_parent", DEBUG_TRAP),
    ("bash/exec-redirect-shell-output/exec_redirect_spares_command_substitution", EXEC_REDIRECT),
    ("bash/awk-aliases/awk_aliases_resolve", BUILTINS),
    ("bash/bashbox-interpreter-core/bashbox_interpreter_core_type_t", BUILTINS),
    ("bash/bashbox-interpreter-core/bashbox_interpreter_core_type_describes_each_name", BUILTINS),
    ("bash/bashbox-interpreter-core/bashbox_interpreter_core_command_v", BUILTINS),
    ("bash/bashbox-interpreter-core/bashbox_interpreter_core_builtin", BUILTINS),
    (
        "bash/bashbox-interpreter-core/bashbox_interpreter_core_redirections_report_why_a_file_can_t_be_opened",
        LINKS,
    ),
    ("bash/cd-builtin/cd_physical_and_pwd_p", LINKS),
    ("bash/compgen-path/compgen_c_finds_path_executables", OUTSIDE_MOUNTS),
    ("bash/env/env_no_args_empty", ENV),
    ("bash/env/env_set_vars", ENV),
    ("bash/fileops/touch_t_sets_file_mtime", TIMES),
    ("bash/fileops/touch_date_reference_nocreate", TIMES),
    ("bash/fileops/cp_recursive_tree", LINKS),
    ("bash/fileops/stat_format_mtime_epoch", TIMES),
    ("bash/find/find_symlink_types", LINKS),
    ("bash/find/find_time_tests", TIMES),
    ("bash/find/find_follow_detects_loops", LINKS),
    ("bash/globs/glob_star", OUTSIDE_MOUNTS),
    ("bash/globs/glob_question", OUTSIDE_MOUNTS),
    ("bash/globs/glob_bracket", OUTSIDE_MOUNTS),
    ("bash/globs/glob_recursive", OUTSIDE_MOUNTS),
    ("bash/globs/glob_in_for_loop", OUTSIDE_MOUNTS),
    ("bash/globs/glob_intermediate_component", OUTSIDE_MOUNTS),
    ("bash/globs/glob_intermediate_component_dirs_only", OUTSIDE_MOUNTS),
    ("bash/globs/glob_trailing_slash_directories_only", LINKS),
    ("bash/ln/ln_force_dir_dest_links_inside", LINKS),
    ("bash/ln/ln_sfn_replaces_dir_symlink", LINKS),
    ("bash/ln/ln_sf_follows_dir_symlink", LINKS),
    ("bash/ln/ln_into_directory", LINKS),
    ("bash/ln/ln_multiple_targets_into_directory", LINKS),
    ("bash/ln/ln_sfT_no_target_directory", LINKS),
    ("bash/ln/ln_verbose_and_long_options", LINKS),
    ("bash/ls/ls_escape_nongraphic", BACKSLASH),
    ("bash/printenv/printenv_no_args_empty", ENV),
    ("bash/proc-self/proc_self_status_identity", ROOTFS),
    ("bash/proc-self/proc_self_comm_and_cmdline", ROOTFS),
    ("bash/proc-self/proc_pid_matches_self", ROOTFS),
    ("bash/proc-self/proc_self_exe_and_cgroup", ROOTFS),
    ("bash/proc-self/proc_mounts_and_uptime", ROOTFS),
    ("bash/proc-self/proc_ls_lists_self", ROOTFS),
    ("bash/script-exec/script_exec_path_search", OUTSIDE_MOUNTS),
    ("bash/script-exec/script_exec_pipe_stdin_path_search", OUTSIDE_MOUNTS),
    ("bash/stat/stat_quoted_name_and_link", LINKS),
    ("bash/subprocess-isolation/subprocess_path_search_isolated", OUTSIDE_MOUNTS),
    ("bash/symlink/symlink_read_through_file_link", LINKS),
    ("bash/symlink/symlink_write_through_link", LINKS),
    ("bash/symlink/symlink_directory_link", LINKS),
    ("bash/symlink/symlink_dangling", LINKS),
    ("bash/symlink/symlink_loop_message", LINKS),
    ("bash/symlink/symlink_rm_and_mv_act_on_link", LINKS),
    ("bash/symlink/symlink_ls_long_shows_target", LINKS),
    ("bash/symlink/symlink_relative_chain", LINKS),
    ("bash/symlink/symlink_parent_dir_mkdir_and_ln_land_in_target", LINKS),
    ("bash/system-commands/link_unlink", LINKS),
    ("bash/system-commands/shells_have_bin_paths", ROOTFS),
    ("bash/system-commands/groups_logname_virtual_user", USER),
    ("bash/type/type_a_builtin", BUILTINS),
    ("bash/type/which_builtin", BUILTINS),
    ("bash/type/which_multiple", BUILTINS),
    ("bash/type/type_external_command", BUILTINS),
    ("bash/type/rootfs_layout", ROOTFS),
    ("bash/type/rootfs_proc_random_uuid", ROOTFS),
    ("grep/grep/grep_recursive_directory_cycle", LINKS),
    ("grep/grep/grep_recursive_sibling_aliases", LINKS),
];

/// Cases not run: they assert an upper bound on wall time, which a loaded machine
/// misses (this suite asserts no durations). Counted in the summary.
const TIMED: &[(&str, &str)] = &[(
    "bash/jobs/jobs_run_concurrently",
    "two background `sleep 1` must end within 1.9 s of wall time",
)];

/// One case of a `.test.sh` file (the format of bashkit's `spec_runner.rs`).
#[derive(Debug, Default)]
struct Case {
    name: String,
    script: String,
    stdout: String,
    exit_code: Option<i64>,
    skip: bool,
}

/// Parses a spec file exactly as bashkit's runner does: `### name` opens a case, the
/// first `# ` line is its description, `### expect` starts the expected stdout,
/// `### end` closes it; `### exit_code: N`, `### skip[: why]`, `### bash_diff[: why]`
/// and `### paused_time` are directives.
fn parse(content: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    let (mut script, mut expect) = (Vec::<&str>::new(), Vec::<&str>::new());
    let (mut in_script, mut in_expect, mut described) = (false, false, false);
    let finish = |c: Option<Case>, script: &[&str], expect: &[&str], out: &mut Vec<Case>| {
        if let Some(mut c) = c {
            c.script = script.join("\n");
            c.stdout = expect.join("\n");
            if !c.stdout.is_empty() {
                c.stdout.push('\n');
            }
            out.push(c);
        }
    };
    for line in content.lines() {
        if let Some(directive) = line.strip_prefix("### ") {
            let d = directive.trim();
            if d == "expect" {
                (in_script, in_expect) = (false, true);
            } else if d == "end" {
                finish(current.take(), &script, &expect, &mut cases);
                (script, expect) = (Vec::new(), Vec::new());
                (in_script, in_expect) = (false, false);
            } else if let Some(code) = d.strip_prefix("exit_code:") {
                if let (Some(c), Ok(code)) = (current.as_mut(), code.trim().parse()) {
                    c.exit_code = Some(code);
                }
            } else if d == "skip" || d.starts_with("skip:") {
                if let Some(c) = current.as_mut() {
                    c.skip = true;
                }
            } else if d == "paused_time" || d == "bash_diff" || d.starts_with("bash_diff:") {
                // bash_diff: bashkit differs from bash; its expectation is bashkit's.
                // paused_time: bashkit runs it on a paused clock; sleeps here are real
                // but short.
            } else {
                finish(current.take(), &script, &expect, &mut cases);
                (script, expect) = (Vec::new(), Vec::new());
                current = Some(Case { name: d.to_string(), ..Case::default() });
                (in_script, in_expect, described) = (true, false, false);
            }
        } else if line.starts_with("# ") && in_script && script.is_empty() && !described {
            described = true;
        } else if in_script {
            script.push(line);
        } else if in_expect {
            expect.push(line);
        }
    }
    finish(current.take(), &script, &expect, &mut cases);
    cases
}

/// The `tests/spec_cases` directory of the bashkit crate in cargo's registry.
fn spec_dir() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = crate::common::repo_root();
    let out = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| panic!("{cargo} metadata: {e}"));
    assert!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let manifest = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "bashkit")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("bashkit is not a dependency of this workspace");
    let dir = Path::new(manifest).parent().unwrap().join("tests/spec_cases");
    assert!(
        dir.is_dir(),
        "{} is missing: the bashkit crate source has no spec cases",
        dir.display()
    );
    dir
}

fn session() -> Session {
    let mut s = engine()
        .session(vec![
            MountSpec::new("/home/user", mem(&[])),
            MountSpec::new("/tmp", mem(&[])),
            filestore::tools::results_mount(),
        ])
        .expect("session");
    s.enable_shell(true).expect("enable the shell");
    s
}

/// What one case gave through the component.
struct Answer {
    stdout: String,
    stderr: String,
    exit_code: i64,
    /// The call's typed error (`kind: message`), when it ended in one.
    error: Option<String>,
}

/// Runs one case through the component.
fn run(case: &Case) -> Answer {
    let mut s = session();
    match s.call("filestore_execute", &json!({"command": case.script, "cwd": "/home/user"})) {
        Ok(o) => Answer {
            stdout: o.json["stdout"].as_str().unwrap_or_default().to_string(),
            stderr: o.json["stderr"].as_str().unwrap_or_default().to_string(),
            exit_code: o.json["exit_code"].as_i64().unwrap_or(-1),
            error: None,
        },
        Err(e) => Answer {
            stdout: String::new(),
            stderr: String::new(),
            exit_code: -1,
            error: Some(format!("{}: {e}", e.kind_name())),
        },
    }
}

/// `None` when `got` is bashkit's expected answer, else what it gave.
fn against_expectation(case: &Case, got: &Answer) -> Option<String> {
    if let Some(e) = &got.error {
        return Some(format!("error[{e}]"));
    }
    let code_ok = case.exit_code.is_none_or(|want| want == got.exit_code);
    if got.stdout == case.stdout && code_ok {
        None
    } else {
        Some(format!(
            "exit {} (want {:?}), stdout {:?} (want {:?}), stderr {:?}",
            got.exit_code, case.exit_code, got.stdout, case.stdout, got.stderr
        ))
    }
}

/// The corpus's cases that run: `(group/file/case, case)`, with the counts of
/// those left out (bashkit's `### skip`, [`TIMED`]).
struct Corpus {
    dir: PathBuf,
    cases: Vec<(String, Case)>,
    skipped: usize,
    timed: usize,
}

fn read_corpus() -> Corpus {
    let dir = spec_dir();
    let (mut cases, mut skipped, mut timed) = (Vec::new(), 0, 0);
    for group in GROUPS {
        let mut files: Vec<_> = std::fs::read_dir(dir.join(group))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.join(group).display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".test.sh"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let stem = file.file_name().unwrap().to_string_lossy().replace(".test.sh", "");
            for case in parse(&text) {
                if case.skip {
                    skipped += 1;
                    continue;
                }
                let id = format!("{group}/{stem}/{}", case.name);
                if TIMED.iter().any(|(t, _)| *t == id) {
                    timed += 1;
                    continue;
                }
                cases.push((id, case));
            }
        }
    }
    Corpus { dir, cases, skipped, timed }
}

/// The corpus and each case's answer through the component, run once for both
/// tests below (the second compares the same answers with bash's).
fn answers() -> &'static (Corpus, Vec<Answer>) {
    static ANSWERS: std::sync::OnceLock<(Corpus, Vec<Answer>)> = std::sync::OnceLock::new();
    ANSWERS.get_or_init(|| {
        let corpus = read_corpus();
        let answers = corpus.cases.iter().map(|(_, case)| run(case)).collect();
        (corpus, answers)
    })
}

#[test]
fn bashkits_spec_corpus_passes_through_the_component() {
    let (corpus, answers) = answers();
    let (mut unexpected, mut still_known) = (Vec::new(), Vec::new());
    let mut known_seen = Vec::new();
    for ((id, case), got) in corpus.cases.iter().zip(answers) {
        let known = KNOWN.iter().any(|(k, _)| k == id);
        match (against_expectation(case, got), known) {
            (None, false) => {}
            (None, true) => still_known.push(id.clone()),
            (Some(_), true) => known_seen.push(id.clone()),
            (Some(why), false) => unexpected.push(format!("{id}: {why}")),
        }
    }
    let ran = corpus.cases.len();
    eprintln!(
        "bashkit spec corpus: {ran} cases run, {} marked skip by bashkit, {} timed (not run), {} known differences",
        corpus.skipped,
        corpus.timed,
        known_seen.len()
    );
    assert_eq!(corpus.timed, TIMED.len(), "a TIMED case is no longer in the corpus");
    assert!(
        unexpected.is_empty(),
        "{} cases differ from bashkit's expectation:\n{}",
        unexpected.len(),
        unexpected.join("\n")
    );
    assert!(still_known.is_empty(), "listed in KNOWN but now agree: {still_known:?}");
    crate::support::suite::Tally::counted(ran, unexpected.len()).check(
        "bashkit's spec corpus",
        BASHKIT_SPEC_CASES,
        &format!("cases read from {}", corpus.dir.display()),
    );
}

/// The cases of [`GROUPS`] in the corpus of the bashkit crate Cargo.lock pins, less
/// those bashkit marks `### skip` and those of [`TIMED`].
const BASHKIT_SPEC_CASES: usize = 4451;
