//! # filestore
//!
//! The wasmtime host of the filestore component: a sandboxed virtual filesystem for
//! AI agents, and the `filestore` command line ([`cli`]). Each layer below the CLI is
//! a crate of its own, re-exported here under one name: the sandbox itself (the
//! component, sessions, memory and directory volumes, the tool registry:
//! `filestore-sandbox`, module by module), object-store volumes and mount arguments
//! ([`volumes`]: `filestore-volumes`), snapshots and conversation stores
//! ([`snapshot`], [`conversation`]: `filestore-store`), the SQL and HTTP tool
//! handlers, upstream MCP providers and agent configurations ([`handlers`],
//! [`providers`], [`agent`]: `filestore-handlers`) and the MCP server ([`mcp`]:
//! `filestore-mcp`). An embedder that wants only the sandbox depends on
//! `filestore-sandbox`.
//!
//! ```no_run
//! use std::sync::Arc;
//! use filestore::{MountSpec, volumes::{MemoryVolume, dir::DirVolume}};
//!
//! let engine = filestore::new_engine()?;             // precompiled by the build
//! let src = Arc::new(DirVolume::open("./src", true)?);
//! let mut session = engine.session(vec![
//!     MountSpec::new("/workspace", src).read_only(),
//!     MountSpec::new("/scratch", Arc::new(MemoryVolume::new())),
//! ])?;
//! let out = session.call("filestore_grep", &serde_json::json!({
//!     "pattern": "fn main", "path": "/workspace", "output_mode": "content"
//! }))?;
//! println!("{}", out.text);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## Security model
//!
//! The guest gets no WASI preopens, environment, arguments, sockets or stdio: its only
//! way to touch data is the `volume` resources the host mounted and the `tool-host`
//! import. Every call runs under a wall-clock deadline (epoch interruption), a
//! linear-memory cap and optionally a fuel budget; a trap poisons that session only.
//! Directory volumes confine every path beneath their root by resolution, not by
//! string comparison (see [`volumes::dir`]).

// The CLI module (moved here from the binary) names this crate `filestore::`, as
// the binary did.
extern crate self as filestore;

pub mod cli;

// The layers below the CLI, each its own crate, under the paths they have always had.
pub use filestore_handlers::{agent, handlers, providers};
pub use filestore_mcp as mcp;
pub use filestore_store::{conversation, snapshot};
pub use filestore_volumes as volumes;

// The sandbox's modules, under the paths they have always had here.
pub use filestore_sandbox::{
    audit, clocks, cow, engine, error, ids, memory_budget, session, shell_output, tools, wit,
};

pub use filestore_sandbox::{
    CallOutput, Engine, EngineConfig, Error, HostState, MemoryDenial, MountSpec, Result,
    SandboxLimit, Session, SessionOptions, UnparsedCallOutput,
};

// The embedded component and the engines that load it.
pub use filestore_sandbox::{
    VERSION, WIT_PACKAGE_VERSION, component, embedded, has_precompiled, new_engine, new_engine_with,
};
