//! Copy-on-write mounts on the host's side (docs/cow.md): what `filestore diff` and
//! `filestore apply` do with a directory upper layer after a session, and the same
//! for an embedder that kept its upper volume (a memory one, say).
//!
//! The logic is the component's own ([`filestore_guest::vfs::cow`], compiled
//! natively): the changes an agent sees with `filestore_diff` are the ones applied.
//! Only [`apply`] writes the lower directory, through a dir volume opened writable
//! for it (each file written to a temporary file and renamed over the old one), and
//! only when no changed file's lower version differs from the one the session saw.

use std::path::Path;
use std::sync::Arc;

pub use filestore_guest::ops::diff::{DiffRequest, DiffResult, FileChange};
pub use filestore_guest::vfs::cow::CowVolume;
pub use filestore_guest::vfs::cow::apply::{ApplyReport, Conflict};
pub use filestore_guest::vfs::cow::changes::ChangeStatus;

use crate::error::{Error, Result};
use crate::volumes::SharedVolume;
use crate::volumes::dir::DirVolume;

/// The copy-on-write view of `lower` (opened read-only) through `upper`, the
/// volume a session's copy-on-write mount wrote to.
pub fn open(lower: &Path, upper: SharedVolume) -> Result<CowVolume> {
    let lower = DirVolume::open(lower, true)
        .map_err(|e| Error::mount_with(format!("the lower directory {}", lower.display()), e))?;
    CowVolume::new(Box::new(lower), Box::new(upper)).map_err(Error::Filestore)
}

/// [`open`] with a directory upper layer (`--mount /w=LOWER:cow=UPPER`), which must
/// exist.
pub fn open_dirs(lower: &Path, upper: &Path) -> Result<CowVolume> {
    if !upper.is_dir() {
        return Err(Error::mount(format!(
            "the upper directory {} does not exist (a session with --mount /point={}:cow={} makes it)",
            upper.display(),
            lower.display(),
            upper.display()
        )));
    }
    let upper = DirVolume::open(upper, false)
        .map_err(|e| Error::mount_with(format!("the upper directory {}", upper.display()), e))?;
    open(lower, Arc::new(upper))
}

/// The changes of `cow` as `filestore_diff` shows them for a mount at `point`.
pub fn diff(cow: CowVolume, point: &str) -> Result<DiffResult> {
    let cows = vec![(point.to_string(), Arc::new(cow))];
    filestore_guest::ops::diff::diff(&cows, &DiffRequest::default()).map_err(Error::Filestore)
}

/// The changed files of `cow` whose lower version is not the one the session saw.
pub fn conflicts(cow: &CowVolume) -> Result<Vec<Conflict>> {
    let changes = cow.changes("/").map_err(Error::Filestore)?;
    filestore_guest::vfs::cow::apply::conflicts(cow, &changes).map_err(Error::Filestore)
}

/// Takes the directory upper layer `upper` for an apply: refused while a session
/// writes it (it holds the layer's lock, see [`crate::volumes::lock_upper`]), so an
/// apply never reads a half-written state. Hold the lock until the apply is done.
pub fn lock_for_apply(point: &str, upper: &Path) -> Result<std::fs::File> {
    crate::volumes::lock_upper(point, upper)
}

/// Writes the changes of `cow` onto its lower directory `lower` (see the module
/// docs) and empties the upper layer. A conflict is an error of kind `conflict`
/// naming every such path; then nothing is written.
pub fn apply(cow: &CowVolume, lower: &Path) -> Result<ApplyReport> {
    let target = DirVolume::open(lower, false)
        .map_err(|e| Error::mount_with(format!("the lower directory {}", lower.display()), e))?;
    filestore_guest::vfs::cow::apply::apply(cow, &target).map_err(Error::Filestore)
}
