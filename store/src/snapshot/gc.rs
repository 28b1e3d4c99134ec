//! Garbage collection of snapshot objects (docs/snapshots.md#garbage-collection):
//! the blobs and trees no snapshot needs any more are removed, as `git gc` prunes
//! unreachable loose objects.
//!
//! Mark and sweep over the whole store: every record of every scope is a root, and
//! so is every record deleted less than the *grace* period ago (a delete moves the
//! record into its scope's [`TRASH`] directory, see [`super::Snapshots::delete`]).
//! Everything reachable from a root is kept; an object reachable from none is removed
//! once it is older than the grace period too.
//!
//! Why the grace period, twice: objects are shared, written create-only and never
//! locked, so a snapshot being taken while the collector runs may be about to name
//! an object that no record names yet — one it just wrote (young, so kept), one of
//! the snapshot it started from (whose record, even if deleted meanwhile, is in the
//! trash for the grace period, so kept), or an old unreachable one it found in the
//! store (rewritten with the same bytes when found older than half the grace
//! period, see [`super::tree::Objects`], so young again). A snapshot taken over
//! longer than the grace period, with its predecessor deleted and a collection run
//! meanwhile, is the case this does not cover; a restore of it then fails on the
//! missing object, naming it, and changes nothing it has not read.

use std::collections::HashSet;
use std::time::Duration;

use filestore_guest::vfs::entry::EntryKind;

use super::SnapshotRecord;
use super::tree::{OBJECTS, Objects};
use filestore_volumes::{Error, ErrorKind, Volume};

/// The directory of a scope holding its deleted records until the grace period
/// is over.
pub const TRASH: &str = ".deleted";

/// How long an unreachable object, and a deleted record, is kept by default: defined
/// for the whole snapshot store, since the object writer ([`super::tree`]) obeys it too.
pub use super::DEFAULT_GRACE;

/// What a collection did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct GcStats {
    /// Snapshot records taken as roots (deleted ones within the grace period too).
    pub roots: u64,
    /// Objects reachable from them (kept).
    pub reachable: u64,
    /// Unreachable objects removed.
    pub removed: u64,
    /// Their bytes.
    pub removed_bytes: u64,
    /// Unreachable objects kept because they are younger than the grace period.
    pub young: u64,
    /// Deleted records removed from the trash (older than the grace period).
    pub trash_removed: u64,
}

/// Collects the objects of `store` that no record in `scopes` (directories of
/// snapshot records) needs, at `now_ms` with `grace`.
pub fn collect(
    store: &dyn Volume,
    scopes: &[String],
    grace: Duration,
    now_ms: u64,
) -> Result<GcStats, Error> {
    let cutoff = now_ms.saturating_sub(grace.as_millis() as u64);
    let old = |modified: Option<u64>| modified.is_some_and(|m| m < cutoff);
    let mut stats = GcStats::default();
    let mut roots: Vec<String> = Vec::new();
    for scope in scopes {
        for e in list(store, scope)?.iter().filter(|e| e.path.ends_with(".json")) {
            roots.extend(record(store, &e.path)?.volumes.into_values());
            stats.roots += 1;
        }
        for e in list(store, &format!("{scope}/{TRASH}"))? {
            if old(e.modified_ms) {
                delete(store, &e.path)?;
                stats.trash_removed += 1;
            } else {
                roots.extend(record(store, &e.path)?.volumes.into_values());
                stats.roots += 1;
            }
        }
    }
    let mut objects = Objects::new(store);
    let mut marked: HashSet<String> = HashSet::new();
    while let Some(tree) = roots.pop() {
        if !marked.insert(tree.clone()) {
            continue;
        }
        for e in objects.tree(&tree)?.entries {
            if e.kind == "dir" {
                roots.push(e.sha256);
            } else {
                marked.insert(e.sha256);
            }
        }
    }
    stats.reachable = marked.len() as u64;
    for kind in ["trees", "blobs"] {
        let walk = match store.walk(&format!("{OBJECTS}/{kind}"), usize::MAX) {
            Ok(w) => w,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for e in walk.entries.iter().filter(|e| e.kind == EntryKind::File) {
            if marked.contains(e.name()) {
                continue;
            }
            // Looked at again right before: a snapshot may have rewritten it since
            // the walk (found old and reused).
            match store.stat(&e.path) {
                Ok(now) if old(now.modified_ms) => {
                    delete(store, &e.path)?;
                    stats.removed += 1;
                    stats.removed_bytes += now.size;
                }
                Ok(_) => stats.young += 1,
                Err(err) if err.kind() == ErrorKind::NotFound => {}
                Err(err) => return Err(err),
            }
        }
    }
    Ok(stats)
}

fn list(store: &dyn Volume, dir: &str) -> Result<Vec<filestore_guest::vfs::entry::Entry>, Error> {
    match store.list(dir) {
        Ok(entries) => Ok(entries.into_iter().filter(|e| e.kind == EntryKind::File).collect()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

fn record(store: &dyn Volume, path: &str) -> Result<SnapshotRecord, Error> {
    let bytes = store.read(path, 0, super::MAX_RECORD_BYTES)?;
    serde_json::from_slice(&bytes)
        .map_err(|e| Error::at(ErrorKind::Backend, path, format!("not a snapshot record: {e}")))
}

fn delete(store: &dyn Volume, path: &str) -> Result<(), Error> {
    match store.delete(path, false) {
        Err(e) if e.kind() != ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
