//! Volume backends: where mounted files actually live.
//!
//! Every backend implements the guest crate's [`Volume`] trait, the same trait the
//! component's logic is written against, so a backend can be tested directly (without
//! a component) and then served to the guest through the WIT `volume` resource.
//!
//! - [`MemoryVolume`]: in-memory (the embedded default; `/scratch`, tool results).
//! - [`dir::DirVolume`]: a local directory, confined beneath its root.

use std::sync::Arc;

pub use filestore_guest::volume::{MemoryVolume, Volume, Walk, WriteOptions};

pub mod dir;

/// A backend shared between the host and any number of sessions.
pub type SharedVolume = Arc<dyn Volume + Send + Sync>;
