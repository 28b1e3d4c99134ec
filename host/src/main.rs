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
    /// Serve the filestore tools, prompt and resources as an MCP server (stdio by
    /// default). Defaults: the current directory read-only at /workspace, an
    /// in-memory /scratch, and the read-only tool-results volume at /tool_calls.
    Serve(ServeArgs),
}

/// Options of `filestore serve`.
#[derive(clap::Args)]
struct ServeArgs {
    /// Serve streamable HTTP at ADDR (`PORT`, `HOST:PORT`; default 127.0.0.1:8765)
    /// at the path /mcp, instead of stdio.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8765")]
    http: Option<String>,
    /// Mount a volume: /point=./dir (read-write), /point=./dir:ro, /point=mem:.
    /// A /workspace mount replaces the default read-only current directory.
    #[arg(long = "mount", value_name = "/POINT=SPEC")]
    mounts: Vec<MountArg>,
    /// Tool configuration file (tools.yaml, MCP Toolbox format).
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
    /// The toolset exposed at start (from --config).
    #[arg(long, value_name = "NAME")]
    toolset: Option<String>,
    /// A directory of skills, mounted at /skills.
    #[arg(long, value_name = "DIR")]
    skills: Option<std::path::PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Call { tool, args, mounts, text } => call(&tool, &args, &mounts, text),
        Command::Serve(args) => serve(args),
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

fn serve(args: ServeArgs) -> ExitCode {
    for (flag, given) in [
        ("--config", args.config.is_some()),
        ("--toolset", args.toolset.is_some()),
        ("--skills", args.skills.is_some()),
    ] {
        if given {
            return fail(
                "unsupported",
                format!(
                    "{flag} is not available in this build: the host library does not load tool configurations or skills yet"
                ),
            );
        }
    }
    let mounts = filestore::mcp::default_mounts(args.mounts);
    // Open every mount once up front so a bad directory fails now, not per session.
    for m in &mounts {
        if let Err(e) = m.open() {
            return fail(e.kind_name(), e);
        }
    }
    let engine = match Engine::new() {
        Ok(e) => e,
        Err(e) => return fail(e.kind_name(), e),
    };
    let summary = filestore::mcp::describe_mounts(&mounts);
    let config = filestore::mcp::ServerConfig::from_mount_args(engine, mounts);
    let tools = match filestore::mcp::FilestoreServer::new(&config) {
        Ok(s) => s.tool_count(),
        Err(e) => return fail(e.kind_name(), e),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return fail("setup", format!("starting the async runtime: {e}")),
    };
    let result = runtime.block_on(async move {
        match args.http {
            None => {
                eprintln!("filestore serve: MCP over stdio; mounts: {summary}; {tools} tools");
                filestore::mcp::serve_stdio(config).await
            }
            Some(addr) => {
                let addr = if addr.chars().all(|c| c.is_ascii_digit()) {
                    format!("127.0.0.1:{addr}")
                } else {
                    addr
                };
                let listener = tokio::net::TcpListener::bind(&addr)
                    .await
                    .map_err(|e| anyhow::anyhow!("binding {addr}: {e}"))?;
                let local = listener.local_addr()?;
                eprintln!(
                    "filestore serve: MCP over streamable HTTP at http://{local}{}; mounts: {summary}; {tools} tools",
                    filestore::mcp::HTTP_PATH
                );
                let shutdown = async {
                    let _ = tokio::signal::ctrl_c().await;
                };
                filestore::mcp::serve_http(config, listener, shutdown).await
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail("serve", format!("{e:#}")),
    }
}
