//! # filestore-guest
//!
//! The logic of the filestore component: a virtual filesystem of mounted volumes with
//! the agent-facing operations (`ls`, `read`, `glob`, `grep`, `tree`, `write`, `edit`,
//! `delete`, `move`), plus tool configuration and resolution.
//!
//! Everything here is plain Rust written against the [`vfs::volume::Volume`] trait. Built
//! for `wasm32-wasip2`, the crate becomes the component: `glue/` (the only modules
//! that name generated WIT types, one per WIT interface) implements `Volume` over the
//! imported WIT resource and exports the session. Built natively, the same code is unit-tested and
//! benchmarked against [`vfs::memory::MemoryVolume`], and the host reuses `MemoryVolume` as
//! its in-memory backend.
//!
//! ```
//! use filestore_guest::{session::Session, vfs::memory::MemoryVolume};
//! let vol = MemoryVolume::new();
//! vol.insert("/src/main.rs", "fn main() {}\n");
//! let mut s = Session::new(Default::default());
//! s.mount("/w", Box::new(vol), 0, false).unwrap();
//! let out = s.call("filestore_grep", &serde_json::json!({"pattern": "fn main", "path": "/w"})).unwrap();
//! assert_eq!(out.json["files"][0], "/w/src/main.rs");
//! ```
// Without the runtime, helpers only the session, the shell and the PDF reader call
// are unused; they stay compiled so the shared types keep one definition.
#![cfg_attr(not(feature = "runtime"), allow(dead_code))]

pub mod error;
pub mod invoke;
pub mod ops;
#[cfg(feature = "runtime")]
pub mod session;
pub mod shell;
pub mod skills;
pub mod tools;
pub mod vfs;

// Generated canonical-ABI glue is necessarily `unsafe`; the only hand-written unsafe
// code is getrandom's backend hook (entropy.rs).
#[cfg(all(target_arch = "wasm32", feature = "runtime"))]
#[allow(unsafe_code, missing_docs)]
mod glue;

// getrandom's custom backend (an `extern` symbol, so `unsafe` by definition).
#[cfg(target_arch = "wasm32")]
#[allow(unsafe_code)]
mod entropy;

pub use error::{Error, ErrorKind, Result};
