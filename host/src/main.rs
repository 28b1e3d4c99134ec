//! The `filestore` command: one-shot tool calls, config checks, and the MCP server.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use filestore::volumes::MountArg;
use filestore::{Engine, MountSpec};

/// A sandboxed virtual filesystem and tool engine for AI agents.
#[derive(Parser)]
#[command(name = "filestore", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one tool call in a fresh sandbox; print the JSON result on stdout.
    Call {
        /// Tool name, e.g. filestore_read.
        tool: String,
        /// Arguments as a JSON object.
        #[arg(default_value = "{}")]
        args: String,
        /// Mount a volume: /point=./dir, /point=./dir:ro, /point=mem:.
        #[arg(long = "mount", value_name = "/POINT=SPEC")]
        mounts: Vec<MountArg>,
        /// Print the rendered text instead of the JSON result.
        #[arg(long)]
        text: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Call { tool, args, mounts, text } => call(&tool, &args, &mounts, text),
    }
}

fn fail(kind: &str, message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error[{kind}]: {message}");
    ExitCode::FAILURE
}

fn call(tool: &str, args: &str, mounts: &[MountArg], text: bool) -> ExitCode {
    let args: serde_json::Value = match serde_json::from_str(args) {
        Ok(v) => v,
        Err(e) => return fail("invalid-argument", format!("arguments are not valid JSON: {e}")),
    };
    let mut specs: Vec<MountSpec> = Vec::new();
    for m in mounts {
        match m.open() {
            Ok(s) => specs.push(s),
            Err(e) => return fail(e.kind_name(), e),
        }
    }
    let engine = match Engine::new() {
        Ok(e) => e,
        Err(e) => return fail(e.kind_name(), e),
    };
    let mut session = match engine.session(specs) {
        Ok(s) => s,
        Err(e) => return fail(e.kind_name(), e),
    };
    match session.call(tool, &args) {
        Ok(out) => {
            if text {
                print!("{}", out.text);
            } else {
                println!("{}", serde_json::to_string_pretty(&out.json).unwrap_or_default());
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e.kind_name(), e),
    }
}
