//! # filestore-sandbox
//!
//! The sandbox of the filestore component, for embedders: a sandboxed virtual
//! filesystem for AI agents. The component (built from `guest/` by
//! `filestore-component`'s build script, precompiled for this host by this crate's)
//! holds all the logic; `filestore-runtime`, re-exported here whole, supplies storage
//! ([`volumes`]: memory, directories, skills, quotas), runs the component in cheap
//! isolated sessions ([`Engine`], [`Session`]), and takes tools through
//! [`tools::ToolRegistry`]. The MCP server, the SQL and HTTP tool handlers,
//! object-store volumes, conversation stores and the CLI are the `filestore` crate's,
//! built on this one.
//!
//! ```no_run
//! use std::sync::Arc;
//! use filestore_sandbox::{MountSpec, volumes::{MemoryVolume, dir::DirVolume}};
//!
//! let engine = filestore_sandbox::new_engine()?;     // precompiled by the build
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
//!
//! ## Why two crates
//!
//! The component takes minutes to build. This crate embeds it, so it and what depends
//! on it wait for that build; `filestore-runtime` does not, so the crates the
//! `filestore` binary adds on top of the runtime compile meanwhile.

pub use filestore_component::{VERSION, WIT_PACKAGE_VERSION, component};
pub use filestore_runtime::*;

/// The precompiled artifact, compressed (empty when the build made none: cross-compiled,
/// `FILESTORE_NO_PRECOMPILE`, or Cranelift failed). Compressed, it costs the binary a
/// third of its size.
static PRECOMPILED_COMPRESSED: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/filestore.cwasm.br"));

/// The precompiled artifact's length, decompressed (0: the build made none).
const PRECOMPILED_LEN: &str = env!("FILESTORE_PRECOMPILED_LEN");

/// The SHA-256 of the precompiled artifact, decompressed: its cache file's name.
const PRECOMPILED_SHA256: &str = env!("FILESTORE_PRECOMPILED_SHA256");

/// The build engine's compatibility key, in hex (`runtime/compat_key.rs`).
const PRECOMPILED_COMPAT: &str = env!("FILESTORE_PRECOMPILED_COMPAT");

/// The filestore component and its artifact precompiled for the host this crate was
/// built on: what [`new_engine`] loads.
pub fn embedded() -> Embedded {
    let len = precompiled_len();
    Embedded {
        component,
        precompiled: (len != 0).then_some(Precompiled {
            bytes: precompiled_bytes,
            len,
            sha256: PRECOMPILED_SHA256,
            compat: PRECOMPILED_COMPAT,
        }),
    }
}

/// Whether the build precompiled the component for this host.
pub fn has_precompiled() -> bool {
    precompiled_len() != 0
}

/// An engine for the embedded component with the default configuration: the
/// precompiled artifact mapped from the cache directory (decompressed there on the
/// first start), else the disk cache of compiled components, else a compilation.
pub fn new_engine() -> Result<Engine> {
    new_engine_with(EngineConfig::default())
}

/// An engine with `config`, for `config.component` or else the embedded component.
pub fn new_engine_with(config: EngineConfig) -> Result<Engine> {
    Engine::load(config, &embedded())
}

fn precompiled_len() -> u64 {
    PRECOMPILED_LEN.parse().expect("the build script writes the length in decimal")
}

fn precompiled_bytes() -> std::io::Result<Vec<u8>> {
    filestore_component::decompress(PRECOMPILED_COMPRESSED, precompiled_len() as usize)
}

/// The embedding guide's example (`examples/embed.rs`, shown in `docs/embedding.md`),
/// run as a doctest so the guide cannot drift from what compiles and runs.
#[cfg(doctest)]
#[doc = concat!("```\n", include_str!("../examples/embed.rs"), "\n```")]
pub struct EmbeddingGuideExample;
