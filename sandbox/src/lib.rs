//! # filestore-sandbox
//!
//! The sandbox of the filestore component, for embedders: a sandboxed virtual
//! filesystem for AI agents. The component (built from `guest/` by this crate's build
//! script) holds all the logic; this crate supplies storage ([`volumes`]: memory,
//! directories, skills, quotas), runs the component in cheap isolated sessions
//! ([`Engine`], [`Session`]), and takes tools through [`tools::ToolRegistry`]. The
//! MCP server, the SQL and HTTP tool handlers, object-store volumes, conversation
//! stores and the CLI are the `filestore` crate's, built on this one.
//!
//! ```no_run
//! use std::sync::Arc;
//! use filestore_sandbox::{Engine, MountSpec, volumes::{MemoryVolume, dir::DirVolume}};
//!
//! let engine = Engine::new()?;                       // compile once (cached on disk)
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

pub mod audit;
#[allow(missing_docs)]
mod bindings;
pub mod clocks;
pub mod cow;
pub mod engine;
pub mod error;
mod glue;
pub mod ids;
pub mod memory_budget;
pub mod python;
pub mod session;
pub mod shell_output;
mod state;
pub mod tools;
pub mod volumes;

/// The embedding guide's example (`examples/embed.rs`, shown in `docs/embedding.md`),
/// run as a doctest so the guide cannot drift from what compiles and runs.
#[cfg(doctest)]
#[doc = concat!("```\n", include_str!("../examples/embed.rs"), "\n```")]
pub struct EmbeddingGuideExample;

pub use engine::{Engine, EngineConfig};
pub use error::{Error, Result, SandboxLimit};
pub use session::{CallOutput, Session, SessionOptions, UnparsedCallOutput};
pub use state::{HostState, MemoryDenial};
pub use volumes::MountSpec;

/// The generated WIT bindings, for embedders using the typed interface.
pub mod wit {
    pub use crate::bindings::*;
}
