//! The `filestore` command: one-shot tool calls, config checks, and the MCP server.
//!
//! In the library (not only the binary) so that other executables run the same
//! command: the `filestore` the Python wheel installs calls [`run`] from its native
//! extension.
//!
//! This module holds the command line clap parses ([`Cli`], one [`Command`] per
//! subcommand) and hands each subcommand to its module: `call`, `serve` (options,
//! their checked plan, the run), `tools` (`check`, `migrate`), `cow` (`diff`,
//! `apply`), `component` and `snapshot`. What they all print through (a result on
//! stdout, the `error[KIND]: message` of a failure) is `output`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use filestore::volumes::MountArg;

use output::fail_with;

mod call;
mod component;
mod cow;
mod output;
mod serve;
mod snapshot;
mod tools;

/// A sandboxed virtual filesystem and tool engine for AI agents.
#[derive(Parser)]
#[command(name = "filestore", version = filestore::VERSION, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one tool call in a fresh sandbox; print the JSON result on stdout.
    Call(call::CallArgs),
    /// Validate tool configuration files (tools.yaml, v1 or v2) and print the resolved
    /// tools, with the ones this host cannot run marked as such. Every error is printed
    /// with file, document, line and column. Exit status: 0 valid, 1 errors,
    /// 2 valid but (with --strict) some tools are not runnable here.
    Check {
        /// Configuration files, checked together (names unique across them).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<std::path::PathBuf>,
        /// Treat tools this host cannot run as a failure (exit 2).
        #[arg(long)]
        strict: bool,
    },
    /// Convert a tool configuration to the v2 format (one YAML document per resource),
    /// on stdout or into a file. Invalid input is reported as by `check` (exit 1).
    Migrate {
        /// The configuration file (v1, v2 or mixed).
        #[arg(value_name = "FILE")]
        file: std::path::PathBuf,
        /// Write here instead of stdout (atomically: a temporary file renamed). An
        /// existing file is refused unless --force is given.
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<std::path::PathBuf>,
        /// Replace the --output file when it exists.
        #[arg(long, requires = "output")]
        force: bool,
    },
    /// Write the WebAssembly component this binary runs (the exact bytes), for hosts
    /// in other languages (jco, wasmtime-py, wasmtime CLI...), and optionally the WIT
    /// package it implements.
    Component {
        /// Where to write the component (`.wasm`).
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: std::path::PathBuf,
        /// Also write the WIT package (filestore.wit, tools.wit, diagnostics.wit)
        /// into this directory (created if missing).
        #[arg(long, value_name = "DIR")]
        wit: Option<std::path::PathBuf>,
    },
    /// Print the changes of a copy-on-write mount kept in a directory (the mount of
    /// a session, /POINT=DIR:cow=UPPER), or in a conversation (/POINT=DIR:cow with
    /// --state and --conversation), as a patch `git apply` accepts in DIR, with
    /// the changed files named first; binary files are named, not patched
    /// (docs/cow.md#diff). Nothing is written.
    Diff {
        /// The mount as the session had it: /POINT=DIR:cow=UPPER.
        #[arg(value_name = "/POINT=DIR:cow=UPPER")]
        mount: MountArg,
        /// Print the structured result (files and patch) as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        conversation: cow::ConversationArgs,
    },
    /// Write the changes of a copy-on-write mount kept in a directory (or in a
    /// conversation, with --state and --conversation) onto its lower directory, each file atomically, and empty the upper directory. Refused,
    /// writing nothing, when a changed file's lower version is not the one the
    /// session saw (each such path named, exit 1) (docs/cow.md#apply). The host's
    /// step: agents cannot run it.
    Apply {
        /// The mount as the session had it: /POINT=DIR:cow=UPPER.
        #[arg(value_name = "/POINT=DIR:cow=UPPER")]
        mount: MountArg,
        /// Only check: print the conflicts and the paths an apply refuses (inside
        /// .git), as JSON; write nothing (exit 1 when there are any).
        #[arg(long)]
        check: bool,
        /// Append a record of the apply (tool `host:apply`, the paths written and
        /// deleted, or the conflict) to this audit store, the one the sessions of
        /// the mount recorded into: DIR (which must exist), s3://bucket/prefix or
        /// mem: (docs/audit.md). A `--check` writes nothing and records nothing.
        #[arg(long, value_name = "SPEC")]
        audit: Option<String>,
        #[command(flatten)]
        conversation: cow::ConversationArgs,
    },
    /// A conversation's snapshots in a state store (docs/snapshots.md): create, list,
    /// restore, delete, or fork one into a new conversation.
    Snapshot(Box<snapshot::SnapshotArgs>),
    /// Serve the filestore tools, prompt and resources as an MCP server (stdio by
    /// default). Defaults: the current directory read-only at /workspace, an
    /// in-memory /scratch and /tmp, and the read-only tool-results volume at /tool_calls.
    Serve(Box<serve::args::ServeArgs>),
}

/// Runs the command with `argv` (`argv[0]` is the program name): parses it as the
/// `filestore` binary does (printing help, the version or a usage error and exiting
/// as clap does) and returns the exit status.
pub fn run<I, T>(argv: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let code = main_with(parse(argv), false);
    // ExitCode is opaque but comparable: find the status it was made from.
    (0..=u8::MAX).find(|&n| ExitCode::from(n) == code).map_or(1, i32::from)
}

/// The `filestore` binary's `main`: [`run`] with this process's arguments.
pub fn main() -> ExitCode {
    main_with(parse(std::env::args_os()), true)
}

/// `argv` parsed as the `filestore` command line (help, the version or a usage error
/// printed and the process ended, as clap does). A `filestore call`, a process per
/// call whose start-up is most of its time, is parsed by a parser of that subcommand
/// alone ([`call_command`]): building the whole command line first (`serve`'s many
/// options included) took 0.2 ms, twice as long.
fn parse<I, T>(argv: I) -> Cli
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    use clap::FromArgMatches;
    let argv: Vec<std::ffi::OsString> = argv.into_iter().map(Into::into).collect();
    if argv.get(1).is_none_or(|a| a != "call") {
        return Cli::parse_from(argv);
    }
    call_command()
        .try_get_matches_from(argv)
        .and_then(|m| Cli::from_arg_matches(&m))
        .unwrap_or_else(|e| e.exit())
}

/// The `filestore` command with only its `call` subcommand, which parses and
/// describes `call`'s arguments exactly as [`Cli`] does (a test compares the two).
fn call_command() -> clap::Command {
    use clap::Args as _;
    // After `augment_args`, which describes the command by `CallArgs`'s own doc
    // comment: `Cli` describes it by its variant's.
    let call = call::CallArgs::augment_args(clap::Command::new("call"))
        .about("Run one tool call in a fresh sandbox; print the JSON result on stdout")
        .long_about(None);
    clap::Command::new("filestore").version(filestore::VERSION).subcommand(call)
}

/// Runs `cli`'s command; `process_ends` when the process exits right after (the
/// `filestore` binary's [`main`]), so that it may leave its teardown to the exit.
fn main_with(cli: Cli, process_ends: bool) -> ExitCode {
    match cli.command {
        Command::Call(args) => call::run(args, process_ends),
        Command::Check { files, strict } => tools::check(&files, strict),
        Command::Diff { mount, json, conversation } => cow::diff(&mount, json, &conversation),
        Command::Apply { mount, check, audit, conversation } => {
            let audit = match audit.map(|spec| call::audit_mount(&spec)).transpose() {
                Ok(a) => a,
                Err(e) => return fail_with(&e),
            };
            cow::apply(&mount, check, audit.as_ref(), &conversation)
        }
        Command::Component { output, wit } => component::write_component(&output, wit.as_deref()),
        Command::Snapshot(args) => snapshot::run(*args),
        Command::Migrate { file, output, force } => tools::migrate(&file, output.as_deref(), force),
        Command::Serve(args) => serve::run(*args),
    }
}

#[cfg(test)]
mod tests {
    use super::{Cli, call_command};
    use clap::CommandFactory;

    /// The `call`-only parser answers as the whole command line does: the same help,
    /// the same usage errors, and the same values for the same arguments.
    #[test]
    fn the_call_parser_is_the_whole_parsers_call() {
        let run = |mut cmd: clap::Command, argv: &[&str]| {
            cmd.try_get_matches_from_mut(argv.iter().copied())
        };
        for argv in [
            &["filestore", "call", "--help"][..],
            &["filestore", "call", "-h"],
            &["filestore", "call"],
            &["filestore", "call", "t", "{}", "extra"],
            &["filestore", "call", "t", "--bogus"],
            &["filestore", "call", "t", "--approve", "--reject"],
        ] {
            let whole = run(Cli::command(), argv).expect_err("an error or help");
            let alone = run(call_command(), argv).expect_err("an error or help");
            assert_eq!(alone.kind(), whole.kind(), "{argv:?}");
            assert_eq!(alone.to_string(), whole.to_string(), "{argv:?}");
        }
        let argv = [
            "filestore",
            "call",
            "filestore_read",
            r#"{"path":"/w/a"}"#,
            "--mount",
            "/w=mem:",
            "--mount",
            "/x=mem::ro",
            "--text",
            "--approve",
        ];
        let whole = run(Cli::command(), &argv).unwrap();
        let alone = run(call_command(), &argv).unwrap();
        let (whole, alone) = (whole.subcommand().unwrap(), alone.subcommand().unwrap());
        assert_eq!(alone.0, whole.0);
        let values = |m: &clap::ArgMatches| -> Vec<(String, Option<Vec<std::ffi::OsString>>)> {
            let mut v: Vec<_> = m
                .ids()
                .map(|id| {
                    let raw = m.get_raw(id.as_str()).map(|r| r.map(ToOwned::to_owned).collect());
                    (id.to_string(), raw)
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(values(alone.1), values(whole.1));
        assert!(
            values(whole.1).iter().any(|(id, v)| id == "mounts" && v.as_ref().unwrap().len() == 2)
        );
    }
}
