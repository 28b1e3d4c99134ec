//! `filestore call`: one tool call in a fresh sandbox mounted as `serve` would
//! mount it, with its approval asked for when the tool requires one, and its
//! result printed whole (an offloaded one read back).

use std::process::ExitCode;

use filestore::handlers::ShippedHandlers as _;
use filestore::volumes::MountArg;
use filestore::{EngineConfig, MountSpec};
use filestore_guest::error::ErrorKind;

use super::output::{FailKind, emit, fail, fail_with, warn_uncached};
use super::serve::args::{ObjectArgs, QuotaArgs, TimeoutArgs};
use super::tools::{self, agent_failure, service_specs};

/// Options of `filestore call`.
#[derive(clap::Args)]
pub(super) struct CallArgs {
    /// Tool name, e.g. filestore_read.
    tool: String,
    /// Arguments as a JSON object.
    #[arg(default_value = "{}")]
    args: String,
    /// Mount a volume: /point=./dir, /point=./dir:ro, /point=mem:,
    /// /point=s3://bucket/prefix[:ro] (also gs://, az://, file:///dir). A trailing
    /// :ro or :rw is the mode; a directory named so is written ./x:rw/.
    /// /point=./dir:cow is copy-on-write: the directory is only read, changes
    /// stay in memory (./dir:cow=./upper keeps them in ./upper for `filestore
    /// diff` and `filestore apply`; docs/cow.md). As with
    /// serve, the current directory (read-only at /workspace), /scratch,
    /// /tool_calls and /tmp are mounted where no --mount takes their place.
    #[arg(long = "mount", value_name = "/POINT=SPEC")]
    mounts: Vec<MountArg>,
    /// Print the rendered text instead of the JSON result. A result large enough
    /// to be offloaded for a model is printed whole either way.
    #[arg(long)]
    text: bool,
    /// Tool configuration (MCP Toolbox tools.yaml, v1 or v2; repeatable): its
    /// tools become callable by name. The tool-results volume is mounted at
    /// /tool_calls (read-only for agents) unless --mount gives one.
    #[arg(long = "config", value_name = "FILE")]
    configs: Vec<std::path::PathBuf>,
    /// A token for an auth service of --config (`NAME=TOKEN`, repeatable), as a
    /// client would send it in the `NAME_token` header: verified here against the
    /// service's provider, its claims reach `authRequired` and auth-bound
    /// parameters. The component never sees the token.
    #[arg(long = "token", value_name = "NAME=TOKEN")]
    tokens: Vec<String>,
    /// Agent configuration (docs/agents.md): its tool refs are
    /// resolved first (upstream MCP servers connected, their tools listed), and
    /// exactly its tools are callable.
    #[arg(long = "agent", value_name = "FILE")]
    agent: Option<std::path::PathBuf>,
    /// Append the call's audit record (docs/audit.md) to this store: DIR (which
    /// must exist), s3://bucket/prefix (also gs://, az://) or mem: (the default:
    /// gone with the process). It is mounted read-only at /audit for the call.
    #[arg(long, value_name = "SPEC")]
    audit: Option<String>,
    #[command(flatten)]
    decision: ApprovalArgs,
    #[command(flatten)]
    timeouts: TimeoutArgs,
    #[command(flatten)]
    quotas: QuotaArgs,
    #[command(flatten)]
    objects: ObjectArgs,
}

/// What `filestore call` does with a call that waits for approval (a configured
/// tool with `requiresApproval`).
#[derive(clap::Args, Clone, Copy)]
struct ApprovalArgs {
    /// Run the call if it waits for approval (you are the approver).
    #[arg(long, conflicts_with = "reject")]
    approve: bool,
    /// Drop the call if it waits for approval: nothing runs (exit 1).
    #[arg(long)]
    reject: bool,
}

/// `filestore call`: the quotas and object-store flags applied, `--audit` opened as
/// its mount, then the call run. `process_ends`: the process exits once this returns
/// (the `filestore` binary; not a library caller, which may call again).
pub(super) fn run(command: CallArgs, process_ends: bool) -> ExitCode {
    let CallArgs {
        tool,
        args,
        mut mounts,
        text,
        configs,
        tokens,
        agent,
        audit,
        decision,
        timeouts,
        quotas,
        objects,
    } = command;
    quotas.apply();
    objects.apply(&mut mounts);
    let audit = match audit.map(|spec| audit_mount(&spec)).transpose() {
        Ok(mut m) => {
            objects.apply(m.as_mut_slice());
            m
        }
        Err(e) => return fail_with(&e),
    };
    let request =
        CallRequest { tool: &tool, args: &args, text, decision, timeouts, audit, process_ends };
    call(&request, &mounts, &configs, &tokens, agent.as_deref())
}

/// What `filestore call` was asked to run, and how.
struct CallRequest<'a> {
    tool: &'a str,
    args: &'a str,
    text: bool,
    decision: ApprovalArgs,
    timeouts: TimeoutArgs,
    /// `--audit`: where the call's record goes (`None`: memory).
    audit: Option<MountArg>,
    /// The process exits once the call is done (see [`run`]).
    process_ends: bool,
}

/// `call --audit SPEC` as a writable mount at `/audit` (the store's spec, checked
/// as a mount source: no `:ro`, no `:cow`).
pub(super) fn audit_mount(spec: &str) -> filestore::Result<MountArg> {
    let m: MountArg = format!("{}={spec}", filestore::audit::AUDIT_MOUNT).parse()?;
    if m.read_only || m.cow.is_some() {
        return Err(filestore::Error::mount(format!(
            "--audit {spec}: the audit store is written; give DIR, s3://bucket/prefix or mem: without a mode"
        )));
    }
    Ok(m)
}

fn call(
    request: &CallRequest<'_>,
    mounts: &[MountArg],
    configs: &[std::path::PathBuf],
    tokens: &[String],
    agent: Option<&std::path::Path>,
) -> ExitCode {
    let (tool, args, text) = (request.tool, request.args, request.text);
    if !tokens.is_empty() && configs.is_empty() {
        return fail(
            ErrorKind::InvalidArgument,
            "--token is for an auth service of --config; give --config too",
        );
    }
    let args: serde_json::Value = match serde_json::from_str(args) {
        Ok(v) => v,
        Err(e) => {
            return fail(ErrorKind::InvalidArgument, format!("arguments are not valid JSON: {e}"));
        }
    };
    let mut specs: Vec<MountSpec> = Vec::new();
    for m in &call_mounts(mounts) {
        match m.open() {
            Ok(s) => specs.push(s),
            Err(e) => return fail_with(&e),
        }
    }
    // One process, one session: on-demand instances. The pooling allocator's
    // reservation for 1,000 sessions (its stacks' guard pages, set up and torn down)
    // was a fifth of a one-shot call's time.
    let engine =
        match filestore::new_engine_with(EngineConfig { pooling: false, ..Default::default() }) {
            Ok(e) => warn_uncached(e),
            Err(e) => return fail_with(&e),
        };
    let results = filestore_guest::invoke::results::RESULTS_MOUNT;
    if !specs.iter().any(|m| m.point == results) {
        specs.push(filestore::tools::results_mount());
    }
    let results_volume = specs.iter().find(|m| m.point == results).map(|m| m.volume.clone());
    let mut registry = filestore::tools::ToolRegistry::with_builtin_handlers();
    let agent = match agent.map(|path| filestore::agent::Agent::read(&engine, path)) {
        None => None,
        Some(Ok(a)) => {
            a.install(&mut registry);
            Some(a)
        }
        Some(Err(e)) => return agent_failure(e),
    };
    // Naming the shell is the choice to use it: no flag here (serve has --shell).
    let mut options = filestore::SessionOptions {
        shell: tool == filestore_guest::invoke::builtins::SHELL_TOOL,
        ..Default::default()
    };
    request.timeouts.apply(&mut options, &mut registry);
    options.tools = std::sync::Arc::new(registry);
    let audit = match request.audit.as_ref().map(MountArg::open).transpose() {
        Ok(Some(m)) => filestore::audit::AuditLog::new(m.volume, None),
        Ok(None) => filestore::audit::AuditLog::memory(None),
        Err(e) => return fail_with(&e),
    };
    options.audit = Some(std::sync::Arc::new(audit));
    let mut session = match engine.session_with(specs, options) {
        Ok(s) => s,
        Err(e) => return fail_with(&e),
    };
    let claims = match load_call_configs(&mut session, configs, tokens) {
        Ok(claims) => claims,
        Err(code) => return code,
    };
    if let Some(agent) = &agent {
        match agent.load_into(&mut session) {
            Ok(report) => {
                for w in report.warnings.iter().chain(&agent.provider_warnings()) {
                    eprintln!("warning: {w}");
                }
            }
            Err(e) => return agent_failure(e),
        }
    }
    let out = match session.call_with_claims(tool, &args, &claims) {
        Ok(out) => out,
        Err(e) => return fail_with(&e),
    };
    let out = match decide_approval(&mut session, out, request.decision) {
        Ok(Decided::Ran(out)) => out,
        Ok(Decided::Waiting(out)) => {
            print_call_result(out, results_volume.as_deref(), text);
            eprintln!(
                "the call waits for approval: run it again with --approve to run it, or --reject"
            );
            return ExitCode::from(3);
        }
        Ok(Decided::Rejected) => {
            return fail(
                FailKind::Rejected,
                format!("tool '{tool}': the call was rejected; nothing ran"),
            );
        }
        Err(e) => return fail_with(&e),
    };
    let code = print_call_result(out, results_volume.as_deref(), text);
    // The session goes as usual (its volumes and audit log are what the call wrote
    // through); when the process exits next, the engine is left to the exit: taking
    // it apart (unmapping the compiled code, unregistering its types and unwind
    // tables) took 0.2-0.3 ms of a 5 ms process, for memory the exit frees anyway.
    drop(session);
    if request.process_ends {
        std::mem::forget(engine);
    }
    code
}

/// What became of a call after its approval, if it needed one.
enum Decided {
    /// It ran (it needed no approval, or it was approved): its result.
    Ran(filestore::CallOutput),
    /// It still waits (no decision given, no terminal to ask on): the pending envelope.
    Waiting(filestore::CallOutput),
    /// It was rejected: nothing ran.
    Rejected,
}

/// Approves or rejects `out` when it waits for approval: as `--approve`/`--reject`
/// say, else by asking on the terminal (stdin and stderr both one); without a
/// terminal it stays waiting.
fn decide_approval(
    session: &mut filestore::Session,
    out: filestore::CallOutput,
    decision: ApprovalArgs,
) -> filestore::Result<Decided> {
    let pending = out.json["pending"] == true;
    let Some(id) = out.json["approval_id"].as_str().filter(|_| pending).map(str::to_string) else {
        if decision.approve || decision.reject {
            eprintln!("note: the call did not wait for approval; --approve/--reject had no effect");
        }
        return Ok(Decided::Ran(out));
    };
    let approve = if decision.approve {
        true
    } else if decision.reject {
        false
    } else {
        use std::io::IsTerminal as _;
        if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
            return Ok(Decided::Waiting(out));
        }
        ask_approval(&out.text)
    };
    if !approve {
        session.reject(&id)?;
        return Ok(Decided::Rejected);
    }
    let outcome = session.approve(&id)?;
    Ok(Decided::Ran(filestore::CallOutput { json: outcome.envelope, text: outcome.text }))
}

/// Shows what waits for approval on stderr and reads y/N from stdin.
fn ask_approval(pending: &str) -> bool {
    use std::io::Write as _;
    eprint!("{}\nRun it? [y/N] ", pending.trim_end());
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin().read_line(&mut line).is_ok()
        && matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// Loads `call`'s `--config` files into `session` and returns the claims of its
/// `--token`s (`null` without configuration). `Err` is the failed command's code,
/// its reason printed.
fn load_call_configs(
    session: &mut filestore::Session,
    configs: &[std::path::PathBuf],
    tokens: &[String],
) -> Result<serde_json::Value, ExitCode> {
    if configs.is_empty() {
        return Ok(serde_json::Value::Null);
    }
    let files = tools::read_files(configs)?;
    match session.load_config(&files) {
        Ok(Ok(report)) => {
            let (errors, warnings) = tools::unrunnable(&report.tools);
            if !errors.is_empty() {
                return Err(tools::print_errors(&errors));
            }
            tools::print_unsupported("filestore call", &warnings);
        }
        Ok(Err(issues)) => return Err(tools::print_issues(&issues)),
        Err(e) => return Err(fail_with(&e)),
    }
    if tokens.is_empty() {
        return Ok(serde_json::Value::Null);
    }
    verified_tokens(&files, tokens).map(serde_json::Value::Object)
}

/// `--token NAME=TOKEN`s verified by the auth services `files` declare, as the claims
/// of each service.
fn verified_tokens(
    files: &[(String, String)],
    tokens: &[String],
) -> Result<serde_json::Map<String, serde_json::Value>, ExitCode> {
    let known = match filestore_guest::tools::config::Config::load(files) {
        Ok(c) => c.auth_services().to_vec(),
        Err(_) => Vec::new(),
    };
    let env: std::collections::BTreeMap<String, String> = std::env::vars().collect();
    let (services, _) =
        filestore::mcp::http_auth::ServiceTokens::from_specs(&service_specs(&known, &env));
    let mut verified = serde_json::Map::new();
    for t in tokens {
        let Some((name, token)) = t.split_once('=') else {
            return Err(fail(
                ErrorKind::InvalidArgument,
                format!(
                    "--token: expected NAME=TOKEN, got '{}...'",
                    t.chars().take(12).collect::<String>()
                ),
            ));
        };
        match services.verify_one(name, token) {
            Ok(c) => {
                verified.insert(name.to_string(), c);
            }
            Err(e) => {
                return Err(fail(ErrorKind::Unauthorized, format!("--token {name}: {e}")));
            }
        }
    }
    Ok(verified)
}

/// Prints a call's result (its text with `--text`, else its JSON envelope), whole.
fn print_call_result(
    mut out: filestore::CallOutput,
    results_volume: Option<&(dyn filestore::volumes::Volume + Send + Sync)>,
    text: bool,
) -> ExitCode {
    // A result too large for a model was offloaded into /tool_calls, which ends
    // with this process: its reader here gets it whole instead of the preview.
    match stored_result(&out.json, results_volume) {
        Ok(None) => {}
        Ok(Some(whole)) => {
            // The file holds the result as JSON (a text result as a JSON string):
            // its text form is the one an inline result has, a text as it is.
            let data = serde_json::from_str(&whole)
                .unwrap_or_else(|_| serde_json::Value::String(whole.clone()));
            out.text = filestore_guest::invoke::results::result_text(&data);
            if let Some(envelope) = out.json.as_object_mut() {
                envelope.remove("preview");
                envelope.insert("data".into(), data);
            }
        }
        Err(e) => {
            return fail(e.kind(), format!("reading the offloaded result: {e}"));
        }
    }
    if text {
        emit(&out.text);
        if has_page_images(&out.json) {
            // A terminal cannot show the PNGs the text names: say where they are.
            emit(
                "[the page images are base64 PNGs in the JSON result (pdf.pages[].image.data): run without --text to get them]\n",
            );
        }
    } else {
        emit(&format!("{}\n", serde_json::to_string_pretty(&out.json).unwrap_or_default()));
    }
    ExitCode::SUCCESS
}

/// Whether a read result holds PDF pages drawn as images.
fn has_page_images(json: &serde_json::Value) -> bool {
    json.pointer("/pdf/pages")
        .and_then(serde_json::Value::as_array)
        .is_some_and(|pages| pages.iter().any(|p| p.get("image").is_some()))
}

/// The mounts of `filestore call`: those of `filestore serve` (the user's, plus the
/// current directory read-only at /workspace, /scratch, /tool_calls and /tmp where the user
/// took no such point), so a call answers as the server would. A current directory
/// that serve would refuse (/ or a home) is left out, saying so on stderr.
fn call_mounts(user: &[MountArg]) -> Vec<MountArg> {
    let refused = filestore::mcp::check_default_workspace(user).err();
    let mut mounts = filestore::mcp::default_mounts(user.to_vec());
    if let Some(why) = refused {
        eprintln!("filestore call: {why}; there is no /workspace");
        mounts.retain(|m| m.point != filestore::mcp::DEFAULT_WORKSPACE);
    }
    mounts
}

/// The whole of an offloaded result (`json` is the call's envelope), read back from
/// the results volume; `None` when the result was not offloaded.
fn stored_result(
    json: &serde_json::Value,
    volume: Option<&(dyn filestore::volumes::Volume + Send + Sync)>,
) -> Result<Option<String>, filestore_guest::error::Error> {
    use filestore_guest::error::Error;
    let path = json["result_path"].as_str().unwrap_or_default();
    let rel = path.strip_prefix(filestore_guest::invoke::results::RESULTS_MOUNT);
    let (true, Some(rel), Some(volume)) = (json["offloaded"] == true, rel, volume) else {
        return Ok(None);
    };
    let rel = if rel.is_empty() { "/" } else { rel };
    let size = volume.stat(rel)?.size;
    let bytes = volume.read(rel, 0, size)?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| Error::at(ErrorKind::Backend, path, "the stored result is not UTF-8"))
}
