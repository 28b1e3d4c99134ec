//! The harness every integration test shares: running a command and reporting its
//! failure with the command line, directory and output (as ripgrep's
//! `tests/util.rs` does), and an MCP client over a server's stdio.
//!
//! Modules:
//! - `cmd`: [`cmd::run`] and [`cmd::Ran`]: a finished command that can say, on
//!   failure, what ran where and what it printed.
//! - `mcp_stdio`: [`mcp_stdio::McpStdio`], a JSON-RPC/MCP client of a
//!   `filestore serve` (or any stdio MCP server) child process.

pub mod cmd;
pub mod mcp_stdio;
