//! The virtual filesystem core: what a path is, what an entry is, what a volume must
//! provide, and how mounted volumes combine into one tree.
//!
//! - [`paths`]: normalising and checking virtual paths
//!   (docs/architecture.md#virtual-paths);
//! - [`entry`]: the metadata every file and directory carries
//!   (docs/architecture.md#entries);
//! - [`volume`]: the [`volume::Volume`] trait the host implements through the WIT
//!   `volume` resource;
//! - [`memory`]: [`memory::MemoryVolume`], the in-memory implementation;
//! - [`checked`]: [`checked::Checked`], the volume contract enforced on every answer
//!   of a host's volume;
//! - [`cow`]: [`cow::CowVolume`], a copy-on-write view of a lower volume
//!   (docs/cow.md);
//! - [`mounts`]: the mount table — longest-prefix routing, overlays, read-only mounts;
//! - [`limits`]: the per-session caps and the named constants behind them.
//!
//! May use: [`crate::error`] only. Everything else in the crate builds on this folder.

#[cfg(test)]
pub(crate) mod bare;
pub mod checked;
pub mod cow;
pub mod entry;
pub mod limits;
pub mod memory;
pub mod mounts;
pub mod paths;
pub mod volume;
