//! `filestore check` and `filestore migrate`, and the reading and reporting of
//! tool configurations that `call` and `serve` share. A configuration is parsed
//! inside the sandbox (a session with no mounts), like every other untrusted input.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use filestore::handlers::ShippedHandlers as _;
use filestore::tools::{ConfigIssue, ConfigReport, ToolStatus};
use filestore_guest::error::ErrorKind;

use super::output::{emit, fail, fail_with, warn_uncached};

/// Reads each file as `(display name, text)`; prints the error and returns the
/// exit code on failure.
pub(super) fn read_files(paths: &[PathBuf]) -> Result<Vec<(String, String)>, ExitCode> {
    paths
        .iter()
        .map(|p| match std::fs::read_to_string(p) {
            Ok(t) => Ok((p.display().to_string(), t)),
            Err(e) => Err(fail(ErrorKind::NotFound, format!("{}: {e}", p.display()))),
        })
        .collect()
}

/// Prints every configuration error on stderr; exit 1.
pub(super) fn print_issues(issues: &[ConfigIssue]) -> ExitCode {
    print_errors(&issues.iter().map(ToString::to_string).collect::<Vec<_>>())
}

/// The configured tools this binary cannot run, located: a type that looks like a
/// misspelling of a known one is an error per tool (naming the one it is nearest);
/// anything else is one `unsupported` warning per distinct reason (a tool type it has
/// no handler for, a source it does not reach), naming the type and the tools it
/// concerns, at the first of them.
pub(super) fn unrunnable(tools: &[ToolStatus]) -> (Vec<String>, Vec<String>) {
    let registry = filestore::tools::ToolRegistry::with_builtin_handlers();
    let handled = registry.tool_types();
    let mut errors = Vec::new();
    // (reason, where it is first met, the tools it concerns), in load order.
    let mut reasons: Vec<(String, String, Vec<&str>)> = Vec::new();
    for t in tools {
        if t.runnable && handled.contains(&t.tool_type) {
            continue;
        }
        if !handled.contains(&t.tool_type) && registry.misspelling_of(&t.tool_type).is_some() {
            errors.push(format!("{}: {}", t.location, registry.unsupported(&t.name, &t.tool_type)));
            continue;
        }
        // The component's reason when it gives one (the source's type first, as
        // `check` prints it), else what the registry knows.
        let reason = t.why_not.clone().unwrap_or_else(|| {
            match (&t.source, handled.contains(&t.tool_type)) {
                (Some(source), true) => {
                    format!("its source '{source}' is not one this host reaches")
                }
                _ => format!("type {} is not one this host runs", t.tool_type),
            }
        });
        match reasons.iter_mut().find(|(r, ..)| *r == reason) {
            Some((.., names)) => names.push(&t.name),
            None => reasons.push((reason, t.location.to_string(), vec![&t.name])),
        }
    }
    let warnings = reasons
        .into_iter()
        .map(|(reason, at, names)| {
            let names: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
            let tools = if names.len() == 1 { "tool" } else { "tools" };
            format!("{at}: unsupported: {reason} ({tools} {})", names.join(", "))
        })
        .collect();
    (errors, warnings)
}

/// The `unsupported` warnings of [`unrunnable`] on stderr, each once, `who` first
/// (`filestore call`...), then where the types this host runs are listed.
pub(super) fn print_unsupported(who: &str, warnings: &[String]) {
    for w in warnings {
        eprintln!("{who}: warning: {w}");
    }
    if !warnings.is_empty() {
        eprintln!(
            "{who}: the tool and source types this host runs: docs/configured-tools.md#tool-types-this-binary-runs"
        );
    }
}

/// Prints configuration errors, one a line; exit 1.
pub(super) fn print_errors(errors: &[String]) -> ExitCode {
    for e in errors {
        eprintln!("error[config]: {e}");
    }
    eprintln!(
        "{} error{} found; nothing was loaded",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    );
    ExitCode::FAILURE
}

fn checked(paths: &[PathBuf]) -> Result<ConfigReport, ExitCode> {
    checked_with_env(paths, &|k| std::env::var(k).ok())
}

/// [`checked`] with `${VAR}` in names and descriptions taken from `env`.
fn checked_with_env(
    paths: &[PathBuf],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ConfigReport, ExitCode> {
    let files = read_files(paths)?;
    let engine = filestore::new_engine().map(warn_uncached).map_err(|e| fail_with(&e))?;
    let mut session = engine.session(Vec::new()).map_err(|e| fail_with(&e))?;
    match session.check_config_with_env(&files, env) {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(issues)) => Err(print_issues(&issues)),
        Err(e) => Err(fail_with(&e)),
    }
}

/// Every `${VAR}` the configuration references (in sources, and in tools'
/// handler fields) that this process's environment does not set and that has no
/// default: one message per variable, naming where it is used. Split as `serve` and
/// `call --config` treat them (`filestore::Session::load_config`): those of the tools
/// this host runs and their sources stop a start, so they fail the check; those of
/// the rest are never resolved (nothing here runs them), so they are only noted.
struct MissingVariables {
    /// Used by a tool this host runs (or its source).
    needed: Vec<String>,
    /// Used only by tools this host cannot run (or their sources).
    unused: Vec<String>,
}

fn missing_variables(paths: &[PathBuf], report: &ConfigReport) -> MissingVariables {
    let env = |k: &str| std::env::var(k).ok();
    let registry = filestore::tools::ToolRegistry::with_builtin_handlers();
    let types = registry.tool_types();
    // The rule load_config applies: runnable in the component, or a type the host handles.
    let runs_here = |t: &&ToolStatus| t.runnable || types.contains(&t.tool_type);
    let running: std::collections::HashSet<&str> =
        report.tools.iter().filter(runs_here).map(|t| t.name.as_str()).collect();
    let used_sources: std::collections::HashSet<&str> =
        report.tools.iter().filter(runs_here).filter_map(|t| t.source.as_deref()).collect();
    let files = read_files(paths).unwrap_or_default();
    let native: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let vars = filestore::session::shaping_variables(&files, &env);
    let parsed = filestore_guest::tools::config::Config::load_with_variables(&native, &vars);
    let located = parsed.as_ref().map(|c| c.sources()).unwrap_or_default();
    let mut out = MissingVariables { needed: Vec::new(), unused: Vec::new() };
    for needed in [true, false] {
        let list = if needed { &mut out.needed } else { &mut out.unused };
        let wanted = |name: &str| used_sources.contains(name) == needed;
        if let Err(e) =
            filestore::tools::resolve_sources_located(&report.sources, located, &wanted, &env)
        {
            list.extend(e.to_string().split("; ").map(String::from));
        }
        if let Ok(c) = &parsed {
            let tools: Vec<_> = c
                .tools()
                .iter()
                .filter(|t| running.contains(t.name.as_str()) == needed)
                .cloned()
                .collect();
            list.extend(filestore::tools::env::missing_variables(&tools, &env));
        }
    }
    out
}

/// `filestore check FILE...`.
pub(super) fn check(paths: &[PathBuf], strict: bool) -> ExitCode {
    let report = match checked(paths) {
        Ok(r) => r,
        Err(code) => return code,
    };
    // A variable the first call would miss fails the check, not that call.
    let MissingVariables { needed: missing, unused } = missing_variables(paths, &report);
    for m in &unused {
        eprintln!(
            "filestore check: warning: {m} (not needed here: only tools this host cannot run use it, which serve and call leave unresolved)"
        );
    }
    if !missing.is_empty() {
        for m in &missing {
            eprintln!("error[config]: {m}");
        }
        eprintln!(
            "{} unset environment variable{}: set {}, or give a ${{VAR:default}}",
            missing.len(),
            if missing.len() == 1 { "" } else { "s" },
            if missing.len() == 1 { "it" } else { "them" }
        );
        return ExitCode::FAILURE;
    }
    let (errors, warnings) = unrunnable(&report.tools);
    if !errors.is_empty() {
        return print_errors(&errors);
    }
    emit(&report.rendered);
    print_unsupported("filestore check", &warnings);
    let not_runnable = report.tools.iter().filter(|t| !t.runnable).count();
    if not_runnable > 0 {
        emit(&format!(
            "{not_runnable} tool{} valid but not runnable by this host\n",
            if not_runnable == 1 { " is" } else { "s are" }
        ));
        if strict {
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}

/// `filestore migrate FILE [-o OUT]`. The output keeps every `${VAR}` as written
/// (it is the component's `v2_yaml`), so this environment does not matter: each
/// variable is checked as if set to its own name (distinct variables stay distinct
/// names; an unset one is no error).
pub(super) fn migrate(path: &Path, output: Option<&Path>, force: bool) -> ExitCode {
    let report = match checked_with_env(&[path.to_path_buf()], &|k| Some(k.to_string())) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let Some(out) = output else {
        emit(&report.v2_yaml);
        return ExitCode::SUCCESS;
    };
    // A failed write leaves any existing output intact: temp file, then rename, or
    // without --force a hard link, which refuses an existing file atomically (a
    // configuration written earlier is not replaced by a migration's output unasked).
    let mut tmp = out.as_os_str().to_owned();
    tmp.push(format!(".tmp-{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let written = std::fs::write(&tmp, report.v2_yaml.as_bytes()).and_then(|()| {
        if force { std::fs::rename(&tmp, out) } else { std::fs::hard_link(&tmp, out) }
    });
    let _ = std::fs::remove_file(&tmp);
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => fail(
            ErrorKind::AlreadyExists,
            format!(
                "{} exists; migrate writes a new file (another -o FILE), or replaces it with --force",
                out.display()
            ),
        ),
        Err(e) => fail(ErrorKind::Backend, format!("writing {}: {e}", out.display())),
    }
}

/// Prints why an agent configuration cannot be used: each located error on its own
/// line, like `filestore check`.
pub(super) fn agent_failure(e: filestore::agent::AgentError) -> ExitCode {
    match e {
        filestore::agent::AgentError::Config(issues) => print_issues(&issues),
        filestore::agent::AgentError::Read(m) => fail(ErrorKind::InvalidArgument, m),
        filestore::agent::AgentError::Setup(e) => fail_with(&e),
    }
}

/// The auth services of a configuration with `${VAR}` in their fields resolved from
/// `env` (host side: their values never enter the component).
pub(super) fn service_specs(
    known: &[filestore_guest::tools::config::AuthServiceConfig],
    env: &std::collections::BTreeMap<String, String>,
) -> Vec<filestore::mcp::http_auth::ServiceSpec> {
    known
        .iter()
        .map(|a| filestore::mcp::http_auth::ServiceSpec {
            name: a.name.clone(),
            service_type: a.service_type.clone(),
            fields: a
                .fields
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        serde_json::Value::String(s) => {
                            serde_json::Value::String(filestore::tools::env::substitute(s, env))
                        }
                        other => other.clone(),
                    };
                    (k.clone(), v)
                })
                .collect(),
        })
        .collect()
}
