//! # filestore-runtime
//!
//! The filestore sandbox without its component: the engine that loads the component
//! ([`Engine::load`]), its cheap isolated sessions ([`Session`]), storage
//! ([`volumes`]: memory, directories, skills, quotas) and the tools a host adds
//! ([`tools::ToolRegistry`]). Embedders take `filestore-sandbox`, which re-exports
//! this crate and adds the filestore component, built and precompiled for the host.
//! The split is for the build: the component takes minutes to build, and the crates
//! above this one (object-store volumes, stores, tool handlers, the MCP server)
//! compile meanwhile, since only `filestore-sandbox` and what depends on it wait for
//! the component.
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
mod trap_log;
pub mod volumes;

pub use engine::{Embedded, Engine, EngineConfig, Precompiled};
pub use error::{Error, Result, SandboxLimit};
pub use session::{CallOutput, Session, SessionOptions, UnparsedCallOutput};
pub use state::{HostState, MemoryDenial};
pub use volumes::MountSpec;

/// The generated WIT bindings, for embedders using the typed interface.
pub mod wit {
    pub use crate::bindings::*;
}
