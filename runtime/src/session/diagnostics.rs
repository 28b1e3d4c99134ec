//! Diagnostics: the component driven into its limits on purpose (tests, benchmarks).

use super::Session;
use crate::error::Result;

/// Diagnostics: drive the component into its limits on purpose (tests, benchmarks).
/// Each runs under the same deadline, fuel and memory cap as every call, and a limit
/// hit poisons the session like any other trap.
impl Session {
    /// Busy-loops `iterations` steps in the guest (`u64::MAX`: until the deadline).
    pub fn diagnostics_spin(&mut self, iterations: u64) -> Result<u64> {
        self.guarded(|store, b, _| {
            b.filestore_component_diagnostics(store)?.call_spin(store, iterations).map(Ok)
        })
    }

    /// Makes the guest allocate and keep `bytes` more; returns the bytes it holds.
    pub fn diagnostics_allocate(&mut self, bytes: u64) -> Result<u64> {
        self.guarded(|store, b, _| {
            b.filestore_component_diagnostics(store)?.call_allocate(store, bytes).map(Ok)
        })
    }

    /// The environment variable names and arguments the component observes from
    /// inside (both empty: the host hands it no ambient authority).
    pub fn diagnostics_ambient(&mut self) -> Result<(Vec<String>, Vec<String>)> {
        self.guarded(|store, b, _| {
            b.filestore_component_diagnostics(store)?
                .call_observe_ambient(store)
                .map(|a| Ok((a.env_names, a.args)))
        })
    }

    /// Frees what [`Session::diagnostics_allocate`] kept.
    pub fn diagnostics_release(&mut self) -> Result<()> {
        self.guarded(|store, b, _| {
            b.filestore_component_diagnostics(store)?.call_release(store).map(Ok)
        })
    }
}
