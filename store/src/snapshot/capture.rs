//! Capturing a volume as a tree of objects, and reading a tree back as an index.

use std::collections::{BTreeMap, HashMap};

use filestore_guest::vfs::entry::EntryKind;
use filestore_guest::vfs::paths::{file_name, parent};

use super::tree::{Objects, Tree, TreeEntry};
use filestore_volumes::{Error, ErrorKind, Volume};

/// Most entries a snapshotted volume may have.
pub const MAX_ENTRIES: usize = 1_000_000;

/// A modified time this close to the earlier snapshot (or later) is not trusted to
/// say "unchanged": a file rewritten within the clock's granularity after that
/// snapshot read it keeps its time (git's "racy" entries). Object stores report
/// seconds.
const RACY_MS: u64 = 2_000;

/// What a capture did: how much it read and wrote (the benchmark's measure).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CaptureStats {
    /// Files in the captured volumes.
    pub files: u64,
    /// Files read and hashed (new, changed, or not trusted unchanged).
    pub files_read: u64,
    /// Objects (blobs and trees) written to the store.
    pub objects_written: u64,
    /// Their bytes.
    pub bytes_written: u64,
}

/// Every file of a captured tree by path: what the next capture compares against.
pub type Index = HashMap<String, TreeEntry>;

/// Reads the tree `root` whole: every file by path, and every directory (as an
/// entry of kind `dir`).
pub fn index(objects: &mut Objects<'_>, root: &str) -> Result<Index, Error> {
    let mut out = Index::new();
    let mut stack = vec![("/".to_string(), root.to_string())];
    while let Some((dir, hash)) = stack.pop() {
        for e in objects.tree(&hash)?.entries {
            let path = filestore_guest::vfs::paths::under(&dir, &format!("/{}", e.name));
            if e.kind == "dir" {
                stack.push((path.clone(), e.sha256.clone()));
            } else {
                objects.know(&e.sha256);
            }
            out.insert(path, e);
        }
    }
    Ok(out)
}

/// Captures `volume` into `objects`: a tree per directory, a blob per file content.
/// A file whose size and modified time are those `earlier` recorded (and whose
/// time is older than `earlier_ms` by more than the clock's granularity) is taken
/// as unchanged without reading it. Links and special files are left out. Returns
/// the root tree's hash.
pub fn capture(
    objects: &mut Objects<'_>,
    volume: &dyn Volume,
    earlier: &Index,
    earlier_ms: u64,
    stats: &mut CaptureStats,
) -> Result<String, Error> {
    let walk = match volume.walk("/", MAX_ENTRIES) {
        Ok(w) => w,
        Err(e) if e.kind() == ErrorKind::NotFound => Default::default(),
        Err(e) => return Err(e),
    };
    if walk.truncated {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("a snapshot holds at most {MAX_ENTRIES} entries per volume"),
        ));
    }
    // Each directory's entries, filled deepest first.
    let mut dirs: BTreeMap<String, Vec<TreeEntry>> = BTreeMap::new();
    dirs.insert("/".into(), Vec::new());
    for e in &walk.entries {
        if e.kind == EntryKind::Directory {
            dirs.entry(e.path.clone()).or_default();
            continue;
        }
        if matches!(e.entry_type.as_str(), "symlink" | "special") {
            continue;
        }
        stats.files += 1;
        let trusted = earlier.get(&e.path).filter(|old| {
            old.kind == "file"
                && old.size == e.size
                && old.modified_ms.is_some()
                && old.modified_ms == e.modified_ms
                && e.modified_ms.is_some_and(|t| t.saturating_add(RACY_MS) < earlier_ms)
        });
        let sha256 = match trusted {
            Some(old) => old.sha256.clone(),
            None => {
                stats.files_read += 1;
                let bytes = volume.read(&e.path, 0, e.size)?;
                objects.put_blob(&bytes)?
            }
        };
        let typed = !matches!(e.entry_type.as_str(), "file" | "");
        let entry = TreeEntry {
            name: file_name(&e.path).to_string(),
            kind: "file".into(),
            sha256,
            size: e.size,
            modified_ms: e.modified_ms,
            read_only: e.read_only,
            entry_type: typed.then(|| e.entry_type.clone()),
            attributes: e.attributes.clone(),
        };
        dirs.entry(parent(&e.path).unwrap_or("/").to_string()).or_default().push(entry);
    }
    // Every ancestor has a tree (a volume's walk lists them; this does not rely on it).
    let listed: Vec<String> = dirs.keys().cloned().collect();
    for mut p in listed.iter().map(String::as_str) {
        while let Some(up) = parent(p) {
            dirs.entry(up.to_string()).or_default();
            p = up;
        }
    }
    // Deepest first: a directory's tree is made before its parent's.
    let mut order: Vec<String> = dirs.keys().cloned().collect();
    order.sort_by_key(|p| std::cmp::Reverse(p.matches('/').count() + usize::from(p != "/")));
    let mut root = String::new();
    for path in order {
        let mut entries = dirs.remove(&path).unwrap_or_default();
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        let hash = objects.put_tree(&Tree { entries })?;
        if path == "/" {
            root = hash;
            continue;
        }
        let entry = TreeEntry {
            name: file_name(&path).to_string(),
            kind: "dir".into(),
            sha256: hash,
            size: 0,
            modified_ms: None,
            read_only: false,
            entry_type: None,
            attributes: None,
        };
        dirs.entry(parent(&path).unwrap_or("/").to_string()).or_default().push(entry);
    }
    Ok(root)
}
