//! Putting a volume back to a captured tree.

use filestore_guest::vfs::entry::EntryKind;
use filestore_guest::vfs::paths::parent;

use super::capture::{Index, MAX_ENTRIES};
use super::tree::{Objects, sha256_hex};
use filestore_volumes::{Error, ErrorKind, Volume, WriteOptions};

/// What a restore changed in one volume.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RestoreStats {
    /// Files written back (missing or different).
    pub written: u64,
    /// Files and directories removed (not in the snapshot).
    pub removed: u64,
    /// Files already as captured, left alone.
    pub unchanged: u64,
    /// Read-only entries the snapshot does not hold (tool results stored after
    /// it), left as they are: volumes refuse to delete them, and a stored result is
    /// a record of what a tool returned, as the audit timeline is.
    pub kept: u64,
}

/// Makes `volume` hold exactly the files and directories of `snapshot` (an
/// [`super::capture::index`]): what is not in it is removed, what is missing or
/// differs is written from its blob with its entry type, attributes and read-only
/// flag. A file whose size matches is read and hashed to know whether it differs.
/// Not atomic: a failure midway leaves some files restored and some not (run it
/// again).
pub fn restore(
    objects: &Objects<'_>,
    volume: &dyn Volume,
    snapshot: &Index,
) -> Result<RestoreStats, Error> {
    let mut stats = RestoreStats::default();
    let walk = match volume.walk("/", MAX_ENTRIES) {
        Ok(w) => w,
        Err(e) if e.kind() == ErrorKind::NotFound => Default::default(),
        Err(e) => return Err(e),
    };
    // Sorted by path: a directory comes before what it holds, so once it is removed
    // its contents are skipped.
    let mut current = walk.entries;
    current.sort_by(|a, b| a.path.cmp(&b.path));
    let mut removed = std::collections::HashSet::new();
    let mut same = std::collections::HashSet::new();
    for e in &current {
        if std::iter::successors(parent(&e.path), |p| parent(p)).any(|p| removed.contains(p)) {
            continue;
        }
        let is_dir = e.kind == EntryKind::Directory;
        let keep = match snapshot.get(&e.path) {
            Some(s) if is_dir => s.kind == "dir",
            Some(s) if s.kind == "file" => {
                let unchanged = s.size == e.size
                    && s.read_only == e.read_only
                    && s.entry_type.as_deref().unwrap_or("file") == e.entry_type
                    && sha256_hex(&volume.read(&e.path, 0, e.size)?) == s.sha256;
                if unchanged {
                    same.insert(e.path.clone());
                }
                // A different file is replaced below (deleted first: a read-only
                // entry is not overwritten by every volume).
                unchanged
            }
            _ => false,
        };
        if !keep {
            match volume.delete(&e.path, is_dir) {
                Ok(()) => {}
                Err(err) if err.kind() == ErrorKind::NotFound => {}
                Err(err) if err.kind() == ErrorKind::ReadOnly => {
                    stats.kept += u64::from(!is_dir);
                    // Its directory stays, and it is not written over below.
                    same.insert(e.path.clone());
                    continue;
                }
                Err(err) => return Err(err),
            }
            stats.removed += u64::from(!snapshot.contains_key(&e.path));
            removed.insert(e.path.clone());
        }
    }
    let mut wanted: Vec<(&String, &super::tree::TreeEntry)> = snapshot.iter().collect();
    wanted.sort_by(|a, b| a.0.cmp(b.0));
    for (path, s) in wanted {
        if s.kind == "dir" {
            match volume.create_dir(path) {
                Ok(_) => {}
                // Object stores imply directories from the files beneath them (and
                // refuse to make one that holds files already).
                Err(e) if matches!(e.kind(), ErrorKind::AlreadyExists | ErrorKind::Unsupported) => {
                }
                Err(e) => return Err(e),
            }
            continue;
        }
        if same.contains(path) {
            stats.unchanged += 1;
            continue;
        }
        let bytes = objects.blob(&s.sha256, s.size)?;
        let options = WriteOptions {
            create_only: false,
            read_only: s.read_only,
            entry_type: s.entry_type.clone(),
            attributes: s.attributes.clone(),
        };
        volume.write(path, &bytes, &options)?;
        stats.written += 1;
    }
    Ok(stats)
}
