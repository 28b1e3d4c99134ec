//! Snapshots of volumes under a name (docs/snapshots.md):
//! create, list, restore, and the records a fork copies.
//!
//! Content-addressed, as git is: a file's content is a *blob* and a directory a
//! *tree*, each named by its SHA-256, under `/snapshots/` of the store's root
//! ([`tree`]); a snapshot is a small *record* naming the root tree of each volume it
//! holds. An unchanged file or directory is the same object in every snapshot, so a
//! snapshot writes only what changed since the one before it (and the trees on the
//! way to it), and a file whose size and modified time are unchanged is not even
//! read ([`capture`]). Objects are written create-only and never changed, so
//! snapshots of any number of conversations share them safely.
//!
//! Records live in a *scope* (a directory of the store: a conversation's
//! `conversations/<key>/snapshots/`), one file per name, written create-only.

pub mod capture;
pub mod gc;
pub mod restore;
pub mod tree;

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use capture::CaptureStats;
pub use restore::RestoreStats;

use filestore_volumes::{Error, ErrorKind, Volume, WriteOptions};
use tree::Objects;

/// The layout version of [`SnapshotRecord`] this build writes.
pub const FORMAT: u32 = 1;
/// Longest snapshot name, bytes.
pub const MAX_NAME_BYTES: usize = 128;
/// Largest record read back, bytes.
pub(crate) const MAX_RECORD_BYTES: u64 = 4 * 1024 * 1024;
/// How long an unreachable object, and a deleted record, is kept by default before
/// [`gc`] removes it; an object older than half of it is rewritten when a snapshot
/// reuses it ([`tree::Objects`]), so a collection running meanwhile keeps it.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(3600);

/// A snapshot: when it was taken, and the root tree of each volume it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SnapshotRecord {
    /// The layout version ([`FORMAT`]).
    pub format: u32,
    /// Its name.
    pub name: String,
    /// A ULID: unique, sorting by creation time.
    pub id: String,
    /// When it was taken, Unix milliseconds.
    pub created_ms: u64,
    /// Each volume's root tree, by the volume's name (`scratch`, `tool_calls`...).
    pub volumes: BTreeMap<String, String>,
    /// What else the owner keeps with it (a conversation's activated skills and
    /// approval gates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<serde_json::Value>,
    /// What taking it read and wrote.
    pub stats: CaptureStats,
}

/// Checks a snapshot name: 1 to [`MAX_NAME_BYTES`] bytes of ASCII letters, digits and
/// `. _ -`, not starting with `.`. The error names the rule, not the name.
pub fn check_name(name: &str) -> Result<(), Error> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && !name.starts_with('.')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    if ok {
        return Ok(());
    }
    let why =
        match name.chars().find(|c| !c.is_ascii_alphanumeric() && !matches!(c, '.' | '_' | '-')) {
            _ if name.is_empty() => "it is empty".to_string(),
            _ if name.len() > MAX_NAME_BYTES => format!("it has {} bytes", name.len()),
            Some(c) => format!("it holds U+{:04X}", u32::from(c)),
            None => "it starts with '.'".to_string(),
        };
    Err(Error::new(
        ErrorKind::InvalidArgument,
        format!(
            "a snapshot name is 1 to {MAX_NAME_BYTES} ASCII letters, digits and . _ - (not starting with .); {why}"
        ),
    ))
}

/// The snapshots of one scope of a store.
pub struct Snapshots<'a> {
    store: &'a dyn Volume,
    scope: String,
}

impl<'a> Snapshots<'a> {
    /// The snapshots recorded under `scope` (a directory of `store`, e.g.
    /// `/conversations/<key>/snapshots`), whose objects are in `store`.
    pub fn new(store: &'a dyn Volume, scope: impl Into<String>) -> Snapshots<'a> {
        Snapshots { store, scope: scope.into() }
    }

    fn record_path(&self, name: &str) -> Result<String, Error> {
        check_name(name)?;
        Ok(format!("{}/{name}.json", self.scope))
    }

    /// Takes a snapshot `name` of `volumes` (each under its name) with `state`.
    /// `already-exists` when the scope has a snapshot of that name (delete it
    /// first). Compared with the newest snapshot of the scope, unchanged files are
    /// not read and unchanged objects not written.
    pub fn create(
        &self,
        name: &str,
        volumes: &[(&str, &dyn Volume)],
        state: Option<serde_json::Value>,
    ) -> Result<SnapshotRecord, Error> {
        let path = self.record_path(name)?;
        if self.store.stat(&path).is_ok() {
            // Not the record's path: the store's layout is not the caller's business.
            return Err(Error::new(
                ErrorKind::AlreadyExists,
                format!("snapshot '{name}' exists (delete it first to take another so named)"),
            ));
        }
        let mut objects = Objects::new(self.store);
        let earlier = self.list()?.pop();
        let mut stats = CaptureStats::default();
        let mut roots = BTreeMap::new();
        for (vname, volume) in volumes {
            let (index, since) =
                match earlier.as_ref().and_then(|r| r.volumes.get(*vname).map(|t| (r, t))) {
                    Some((r, root)) => match capture::index(&mut objects, root) {
                        Ok(index) => (index, r.created_ms),
                        // The earlier snapshot's objects are gone (collected with too
                        // short a grace, or damaged): this one is taken whole, and
                        // nothing the earlier one named is trusted to be there.
                        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::Backend) => {
                            objects.forget();
                            (Default::default(), 0)
                        }
                        Err(e) => return Err(e),
                    },
                    None => (Default::default(), 0),
                };
            let root = capture::capture(&mut objects, *volume, &index, since, &mut stats)?;
            roots.insert(vname.to_string(), root);
        }
        stats.objects_written = objects.written;
        stats.bytes_written = objects.written_bytes;
        let record = SnapshotRecord {
            format: FORMAT,
            name: name.to_string(),
            id: filestore_runtime::ids::new_ulid(),
            created_ms: filestore_runtime::clocks::now_ms(),
            volumes: roots,
            state,
            stats,
        };
        self.put_record(&record)?;
        Ok(record)
    }

    /// Writes `record` into this scope (create-only): a fork copies its source's.
    pub fn put_record(&self, record: &SnapshotRecord) -> Result<(), Error> {
        let path = self.record_path(&record.name)?;
        let bytes = serde_json::to_vec_pretty(record).expect("a record serialises");
        let options = WriteOptions { create_only: true, ..WriteOptions::default() };
        self.store.write(&path, &bytes, &options).map(|_| ()).map_err(|e| {
            if e.kind() == ErrorKind::AlreadyExists {
                Error::new(ErrorKind::AlreadyExists, format!("snapshot '{}' exists", record.name))
            } else {
                e
            }
        })
    }

    /// Every snapshot of the scope, oldest first.
    pub fn list(&self) -> Result<Vec<SnapshotRecord>, Error> {
        let entries = match self.store.list(&self.scope) {
            Ok(e) => e,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut out = Vec::new();
        for e in entries.iter().filter(|e| e.path.ends_with(".json")) {
            out.push(self.read(&e.path)?);
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    fn read(&self, path: &str) -> Result<SnapshotRecord, Error> {
        let bytes = self.store.read(path, 0, MAX_RECORD_BYTES)?;
        serde_json::from_slice(&bytes)
            .map_err(|e| Error::at(ErrorKind::Backend, path, format!("not a snapshot record: {e}")))
    }

    /// The snapshot `name`; `not-found` naming it when the scope has none.
    pub fn get(&self, name: &str) -> Result<SnapshotRecord, Error> {
        let path = self.record_path(name)?;
        match self.read(&path) {
            Err(e) if e.kind() == ErrorKind::NotFound => Err(Error::new(
                ErrorKind::NotFound,
                format!("no snapshot named '{name}' (list them to see which there are)"),
            )),
            other => other,
        }
    }

    /// Removes the record `name`. Its objects stay (others may share them) until a
    /// collection ([`gc::collect`]) finds them unreachable; the record goes to the
    /// scope's [`gc::TRASH`] first, where it still counts as a root for the grace
    /// period (a snapshot being taken from it meanwhile keeps its objects).
    pub fn delete(&self, name: &str) -> Result<(), Error> {
        let record = self.get(name)?;
        let path = self.record_path(name)?;
        let trash = format!(
            "{}/{}/{:013}-{}.json",
            self.scope,
            gc::TRASH,
            filestore_runtime::clocks::now_ms(),
            filestore_runtime::ids::new_ulid()
        );
        let bytes = serde_json::to_vec_pretty(&record).expect("a record serialises");
        let options = WriteOptions { create_only: true, ..WriteOptions::default() };
        self.store.write(&trash, &bytes, &options)?;
        self.store.delete(&path, false)
    }

    /// Puts each of `volumes` (by name) back to what the snapshot `name` holds of
    /// it; a volume the snapshot does not hold is `invalid-argument`, naming it.
    /// Returns the record and what changed in each volume.
    pub fn restore(
        &self,
        name: &str,
        volumes: &[(&str, &dyn Volume)],
    ) -> Result<(SnapshotRecord, BTreeMap<String, RestoreStats>), Error> {
        let record = self.get(name)?;
        let stats = restore_record(self.store, &record, volumes)?;
        Ok((record, stats))
    }
}

/// Restores `volumes` from `record`, whose objects are in `store` (any scope's).
pub fn restore_record(
    store: &dyn Volume,
    record: &SnapshotRecord,
    volumes: &[(&str, &dyn Volume)],
) -> Result<BTreeMap<String, RestoreStats>, Error> {
    let mut objects = Objects::new(store);
    let mut indexes = Vec::new();
    for (vname, _) in volumes {
        let Some(root) = record.volumes.get(*vname) else {
            return Err(Error::new(
                ErrorKind::InvalidArgument,
                format!("snapshot '{}' holds no volume '{vname}'", record.name),
            ));
        };
        indexes.push(capture::index(&mut objects, root)?);
    }
    let mut out = BTreeMap::new();
    for ((vname, volume), index) in volumes.iter().zip(&indexes) {
        out.insert(vname.to_string(), restore::restore(&objects, *volume, index)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
