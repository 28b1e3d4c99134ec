//! [`MemoryVolume`]: the in-memory [`Volume`]: `/scratch`, tool results, skills, and
//! every native test and benchmark.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::{Entry, EntryKind, TYPE_DIRECTORY, TYPE_FILE};
use crate::vfs::paths;
use crate::vfs::volume::{PackedWalk, Volume, VolumeIdentity, Walk, WriteOptions, rename_is_noop};

#[derive(Clone, Debug)]
struct MemFile {
    /// Shared by clones of the map (`replace_with`); an append extends it in place
    /// when it is not ([`Arc::make_mut`]).
    content: Arc<Vec<u8>>,
    modified_ms: Option<u64>,
    read_only: bool,
    entry_type: Option<String>,
    attributes: Option<serde_json::Value>,
}

/// A byte budget for memory volumes: content bytes stored, at most `limit`. One
/// budget per volume bounds what a session can put in its `/scratch`; one shared by
/// every volume of a process bounds the host's memory, since otherwise one session
/// writing without end would grow the host until every session is killed.
#[derive(Debug)]
pub struct ByteBudget {
    what: String,
    limit: u64,
    used: AtomicU64,
}

impl ByteBudget {
    /// A budget of `limit` bytes, named in errors by `what` (e.g. `the per-volume
    /// memory quota`).
    pub fn new(what: impl Into<String>, limit: u64) -> Arc<ByteBudget> {
        Arc::new(ByteBudget { what: what.into(), limit, used: AtomicU64::new(0) })
    }
    /// Bytes charged now.
    pub fn used(&self) -> u64 {
        self.used.load(Ordering::SeqCst)
    }
    /// The limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }
}

/// What one volume (and its clones) holds against its budgets; returned to them
/// when the last clone is dropped.
#[derive(Debug)]
struct Charge {
    budgets: Vec<Arc<ByteBudget>>,
    held: AtomicU64,
}

impl Charge {
    /// Takes `bytes` from every budget, or from none (`limit-exceeded` naming the
    /// first budget that has no room).
    fn reserve(&self, bytes: u64, path: &str) -> Result<()> {
        for (i, b) in self.budgets.iter().enumerate() {
            let before = b.used.fetch_add(bytes, Ordering::SeqCst);
            if before.saturating_add(bytes) > b.limit {
                for taken in &self.budgets[..=i] {
                    taken.used.fetch_sub(bytes, Ordering::SeqCst);
                }
                return Err(Error::at(
                    ErrorKind::LimitExceeded,
                    path,
                    format!(
                        "{} of {} bytes is used up ({before} used; this write needs {bytes} more); delete files to make room",
                        b.what, b.limit
                    ),
                ));
            }
        }
        self.held.fetch_add(bytes, Ordering::SeqCst);
        Ok(())
    }

    fn release(&self, bytes: u64) {
        for b in &self.budgets {
            b.used.fetch_sub(bytes, Ordering::SeqCst);
        }
        self.held.fetch_sub(bytes, Ordering::SeqCst);
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        let held = *self.held.get_mut();
        for b in &self.budgets {
            b.used.fetch_sub(held, Ordering::SeqCst);
        }
    }
}

/// An in-memory volume: files in a sorted map, directories implied by file paths,
/// and empty directories ([`Volume::create_dir`]) kept as a marker key `dir/` (no
/// content; a path is never stored with a trailing `/`, so a marker cannot collide
/// with a file). A marker makes the directory exist like a file beneath it would,
/// and goes with it on delete and rename.
///
/// Used for `/scratch`, the tool-results and skills volumes, and every native test.
/// Cloning shares the storage. With [`MemoryVolume::with_budgets`], every write is
/// charged against byte budgets (a write that does not fit is `limit-exceeded` and
/// changes nothing); deletes and smaller overwrites give bytes back, and so does
/// dropping the volume.
#[derive(Clone, Default)]
pub struct MemoryVolume {
    files: Arc<RwLock<BTreeMap<String, MemFile>>>,
    charge: Option<Arc<Charge>>,
}

impl std::fmt::Debug for MemoryVolume {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.files.read().map(|m| m.len()).unwrap_or(0);
        f.debug_struct("MemoryVolume").field("files", &n).finish()
    }
}

fn now_ms() -> Option<u64> {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_millis() as u64)
}

/// What [`MemoryVolume::walk_keys`] visits.
enum Walked<'a> {
    /// An implied directory (its path).
    Dir(&'a str),
    /// A file: its key and record.
    File(&'a str, &'a MemFile),
}

/// The length of the longest run of whole leading components `a` and `b` (relative
/// directory paths such as `x/y`) share: `x/y` and `x/yz` share 1 (`x`), `x` and
/// `x/y` share 1, `x` and `z` 0.
fn common_dirs(a: &str, b: &str) -> usize {
    let n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let boundary = |s: &str| n == s.len() || s.as_bytes()[n] == b'/';
    if boundary(a) && boundary(b) { n } else { b[..n].rfind('/').unwrap_or(0) }
}

/// What one entry costs the host beside its content: the map's node and key
/// header, the record's fields. Charged per file and per empty-directory marker,
/// with the key's bytes, so that names and entries count against the budgets as
/// content does: without it a session could hold unbounded memory in empty files
/// with long names (480,000 of them took 115 MB under a 1 MiB quota).
pub const ENTRY_BYTES: u64 = 128;

/// What the entry `key` holding `f` is charged (see [`ENTRY_BYTES`]).
fn footprint(key: &str, f: &MemFile) -> u64 {
    let entry_type = f.entry_type.as_ref().map_or(0, String::len) as u64;
    MemoryVolume::charge_of(key, f.content.len() as u64) + entry_type
}

/// The footprints of every entry of `map`.
fn footprints(map: &BTreeMap<String, MemFile>) -> u64 {
    map.iter().map(|(k, f)| footprint(k, f)).sum()
}

/// Whether `key` is an empty-directory marker (`/a/b/` for `/a/b`).
fn is_marker(key: &str) -> bool {
    key.len() > 1 && key.ends_with('/')
}

/// The smallest key greater than every key beneath `dir/` (`/` + 1 is `0`).
fn prefix_of(dir: &str) -> String {
    if dir == "/" { "/".to_string() } else { format!("{dir}/") }
}

impl MemoryVolume {
    /// An empty volume.
    pub fn new() -> MemoryVolume {
        MemoryVolume::default()
    }

    /// An empty volume whose content bytes are charged against every one of
    /// `budgets` (e.g. its own quota and a process-wide one).
    pub fn with_budgets(budgets: Vec<Arc<ByteBudget>>) -> MemoryVolume {
        MemoryVolume {
            files: Default::default(),
            charge: Some(Arc::new(Charge { budgets, held: AtomicU64::new(0) })),
        }
    }

    /// What a file of `bytes` bytes at `path` is charged: its content, its name and
    /// [`ENTRY_BYTES`].
    pub fn charge_of(path: &str, bytes: u64) -> u64 {
        ENTRY_BYTES + path.len() as u64 + bytes
    }

    /// Bytes this volume holds against its budgets: content, names and per-entry
    /// costs ([`ENTRY_BYTES`]); 0 without budgets.
    pub fn charged_bytes(&self) -> u64 {
        self.charge.as_ref().map_or(0, |c| c.held.load(Ordering::SeqCst))
    }

    fn grow(&self, old: u64, new: u64, path: &str) -> Result<()> {
        match &self.charge {
            Some(c) if new > old => c.reserve(new - old, path),
            _ => Ok(()),
        }
    }

    fn shrink(&self, old: u64, new: u64) {
        if let Some(c) = &self.charge
            && old > new
        {
            c.release(old - new);
        }
    }

    /// Adds a file (test and set-up helper); panics on an invalid path.
    pub fn insert(&self, path: &str, content: impl AsRef<[u8]>) -> &MemoryVolume {
        let path = paths::normalize(path).expect("valid path");
        self.write(&path, content.as_ref(), &WriteOptions::default()).expect("insert");
        self
    }

    /// Number of files stored (empty-directory markers are not files).
    pub fn len(&self) -> usize {
        self.files.read().expect("lock").keys().filter(|k| !is_marker(k)).count()
    }

    /// Whether the volume holds no file.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Replaces every file of this volume (and of its clones) with `other`'s in one
    /// step under the write lock: a reader sees the old set or the new one, never a
    /// mix (how a reloaded skills directory reaches live sessions). Content is shared,
    /// not copied. With budgets, the new content is charged as a write of it would
    /// be (`limit-exceeded` changes nothing).
    pub fn replace_with(&self, other: &MemoryVolume) -> Result<()> {
        if Arc::ptr_eq(&self.files, &other.files) {
            return Ok(());
        }
        // One lock at a time: `other`'s is released before this one is taken.
        let fresh = other.files.read().expect("lock").clone();
        let new = footprints(&fresh);
        let mut map = self.files.write().expect("lock");
        let old = footprints(&map);
        self.grow(old, new, "/")?;
        *map = fresh;
        self.shrink(old, new);
        Ok(())
    }

    fn entry(path: &str, f: &MemFile) -> Entry {
        Entry {
            path: path.to_string(),
            kind: EntryKind::File,
            size: f.content.len() as u64,
            modified_ms: f.modified_ms,
            read_only: f.read_only,
            entry_type: f.entry_type.clone().unwrap_or_else(|| crate::vfs::entry::TYPE_FILE.into()),
            attributes: f.attributes.clone(),
        }
    }

    fn dir_exists(map: &BTreeMap<String, MemFile>, dir: &str) -> bool {
        if dir == "/" {
            return true;
        }
        let prefix = prefix_of(dir);
        map.range(prefix.clone()..).next().is_some_and(|(k, _)| k.starts_with(&prefix))
    }

    /// Fails with `not-a-directory` when an ancestor of `path` is a file: no path
    /// may be both a file and a directory.
    fn check_no_file_parent(map: &BTreeMap<String, MemFile>, path: &str) -> Result<()> {
        let mut p = paths::parent(path);
        while let Some(dir) = p {
            if map.contains_key(dir) {
                return Err(Error::at(
                    ErrorKind::NotADirectory,
                    path,
                    format!("parent '{dir}' is a file"),
                ));
            }
            p = paths::parent(dir);
        }
        Ok(())
    }

    /// Visits what a walk of `dir` returns, in key order: each implied directory once,
    /// just before the first entry beneath it, and each file; stops after
    /// `max_entries` items when more follow, answering `true` (truncated).
    ///
    /// The keys beneath a directory are contiguous in the sorted map, so a directory
    /// was already visited exactly when the previous key lies beneath it too: comparing
    /// with the previous key's directories replaces a set of every directory seen (and
    /// a `String` per file), and each directory's path is a slice of its first key.
    fn walk_keys<'a>(
        map: &'a BTreeMap<String, MemFile>,
        dir: &str,
        max_entries: usize,
        mut visit: impl FnMut(Walked<'a>),
    ) -> Result<bool> {
        if map.contains_key(dir) {
            return Err(Error::at(ErrorKind::NotADirectory, dir, "not a directory"));
        }
        if !Self::dir_exists(map, dir) {
            return Err(Error::not_found(dir));
        }
        let skip = prefix_of(dir).len();
        let mut n = 0;
        // The directories (below `dir`) of the previous key: `a/b` for `a/b/c.txt`.
        let mut open: &str = "";
        for (k, f) in Self::under(map, dir) {
            let rest = &k[skip..];
            if rest.is_empty() {
                // The walked directory's own marker.
                continue;
            }
            let dirs = rest.rfind('/').map_or("", |i| &rest[..i]);
            let common = common_dirs(open, dirs);
            if common < dirs.len() {
                let mut from = if common == 0 { 0 } else { common + 1 };
                loop {
                    let end = dirs[from..].find('/').map_or(dirs.len(), |i| from + i);
                    if n >= max_entries {
                        return Ok(true);
                    }
                    visit(Walked::Dir(&k[..skip + end]));
                    n += 1;
                    if end == dirs.len() {
                        break;
                    }
                    from = end + 1;
                }
            }
            open = dirs;
            // A marker stands for its directory, visited above.
            if is_marker(k) {
                continue;
            }
            if n >= max_entries {
                return Ok(true);
            }
            visit(Walked::File(k, f));
            n += 1;
        }
        Ok(false)
    }

    /// [`Volume::write`] of a path other than the root, under the map's lock.
    fn write_locked(
        &self,
        map: &mut BTreeMap<String, MemFile>,
        path: &str,
        content: &[u8],
        options: &WriteOptions,
    ) -> Result<Entry> {
        if Self::dir_exists(map, path) {
            return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
        }
        // A parent that is a file blocks the write (no file may also be a directory).
        Self::check_no_file_parent(map, path)?;
        if let Some(existing) = map.get(path) {
            if options.create_only {
                return Err(Error::at(ErrorKind::AlreadyExists, path, "file already exists"));
            }
            if existing.read_only {
                return Err(Error::at(ErrorKind::ReadOnly, path, "entry is read-only"));
            }
        }
        let f = MemFile {
            content: Arc::new(content.to_vec()),
            modified_ms: now_ms(),
            read_only: options.read_only,
            entry_type: options.entry_type.clone(),
            attributes: options.attributes.clone(),
        };
        let old = map.get(path).map_or(0, |f| footprint(path, f));
        let new = footprint(path, &f);
        self.grow(old, new, path)?;
        self.shrink(old, new);
        let e = Self::entry(path, &f);
        map.insert(path.to_string(), f);
        Ok(e)
    }

    fn under<'a>(
        map: &'a BTreeMap<String, MemFile>,
        dir: &str,
    ) -> impl Iterator<Item = (&'a String, &'a MemFile)> {
        let prefix = prefix_of(dir);
        map.range(prefix.clone()..).take_while(move |(k, _)| k.starts_with(&prefix))
    }
}

impl Volume for MemoryVolume {
    fn stat(&self, path: &str) -> Result<Entry> {
        let map = self.files.read().expect("lock");
        if let Some(f) = map.get(path) {
            return Ok(Self::entry(path, f));
        }
        if Self::dir_exists(&map, path) {
            return Ok(Entry::directory(path, None));
        }
        Err(Error::not_found(path))
    }

    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        let map = self.files.read().expect("lock");
        if map.contains_key(path) {
            return Err(Error::at(ErrorKind::NotADirectory, path, "not a directory"));
        }
        if !Self::dir_exists(&map, path) {
            return Err(Error::not_found(path));
        }
        let prefix = prefix_of(path);
        let mut out: Vec<Entry> = Vec::new();
        let mut last_dir: Option<String> = None;
        let mut seen: std::collections::HashSet<String> = Default::default();
        for (k, f) in Self::under(&map, path) {
            let rest = &k[prefix.len()..];
            match rest.find('/') {
                // The listed directory's own marker.
                _ if rest.is_empty() => {}
                None => out.push(Self::entry(k, f)),
                Some(i) => {
                    let d = format!("{}{}", prefix, &rest[..i]);
                    // `a/x` and `a.txt` sort between `a/` (a marker) and `a/y`: the
                    // last directory alone cannot tell what was already listed.
                    if last_dir.as_deref() != Some(d.as_str()) && seen.insert(d.clone()) {
                        out.push(Entry::directory(d.clone(), None));
                    }
                    last_dir = Some(d);
                }
            }
        }
        Ok(out)
    }

    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        let map = self.files.read().expect("lock");
        let mut walk = Walk::default();
        walk.truncated = Self::walk_keys(&map, path, max_entries, |item| match item {
            Walked::Dir(d) => walk.entries.push(Entry::directory(d, None)),
            Walked::File(k, f) => walk.entries.push(Self::entry(k, f)),
        })?;
        Ok(walk)
    }

    fn walk_packed(&self, path: &str, max_entries: usize) -> Result<PackedWalk> {
        // Straight from the map: no `Entry` (and its two strings) per entry.
        let map = self.files.read().expect("lock");
        let mut walk = PackedWalk::default();
        walk.truncated = Self::walk_keys(&map, path, max_entries, |item| match item {
            Walked::Dir(d) => {
                walk.push(d, EntryKind::Directory, 0, None, false, TYPE_DIRECTORY, None)
            }
            Walked::File(k, f) => walk.push(
                k,
                EntryKind::File,
                f.content.len() as u64,
                f.modified_ms,
                f.read_only,
                f.entry_type.as_deref().unwrap_or(TYPE_FILE),
                f.attributes.as_ref(),
            ),
        })?;
        Ok(walk)
    }

    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        let map = self.files.read().expect("lock");
        match map.get(path) {
            Some(f) => {
                let start = (offset as usize).min(f.content.len());
                let end =
                    start.saturating_add(len.min(usize::MAX as u64) as usize).min(f.content.len());
                Ok(f.content[start..end].to_vec())
            }
            None if Self::dir_exists(&map, path) => {
                Err(Error::at(ErrorKind::NotAFile, path, "is a directory"))
            }
            None => Err(Error::not_found(path)),
        }
    }

    fn stat_read(&self, path: &str, offset: u64, len: u64) -> Result<(Entry, Vec<u8>)> {
        // One lock for both: the bytes are those of the entry returned.
        let map = self.files.read().expect("lock");
        if let Some(f) = map.get(path) {
            let start = (offset as usize).min(f.content.len());
            let end =
                start.saturating_add(len.min(usize::MAX as u64) as usize).min(f.content.len());
            return Ok((Self::entry(path, f), f.content[start..end].to_vec()));
        }
        if Self::dir_exists(&map, path) {
            return Ok((Entry::directory(path, None), Vec::new()));
        }
        Err(Error::not_found(path))
    }

    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        if path == "/" {
            return Err(Error::at(ErrorKind::NotAFile, path, "cannot write the volume root"));
        }
        let mut map = self.files.write().expect("lock");
        self.write_locked(&mut map, path, content, options)
    }

    /// Extends the file in place: the added bytes are charged, the file keeps its
    /// entry type and attributes. Its buffer grows by an eighth beyond what it needs
    /// when it must grow, so that an append loop copies the file a bounded number of
    /// times in all, not once per append (the slack is not charged: at most an
    /// eighth of the content).
    fn append(&self, path: &str, content: &[u8]) -> Result<Entry> {
        if path == "/" {
            return Err(Error::at(ErrorKind::NotAFile, path, "cannot write the volume root"));
        }
        let mut map = self.files.write().expect("lock");
        let Some(f) = map.get_mut(path) else {
            return self.write_locked(&mut map, path, content, &WriteOptions::default());
        };
        if f.read_only {
            return Err(Error::at(ErrorKind::ReadOnly, path, "entry is read-only"));
        }
        self.grow(0, content.len() as u64, path)?;
        let bytes = Arc::make_mut(&mut f.content);
        if bytes.capacity() - bytes.len() < content.len() {
            bytes.reserve_exact(content.len() + bytes.len() / 8);
        }
        bytes.extend_from_slice(content);
        f.modified_ms = now_ms();
        Ok(Self::entry(path, f))
    }

    fn delete(&self, path: &str, recursive: bool) -> Result<()> {
        let mut map = self.files.write().expect("lock");
        if let Some(f) = map.get(path) {
            if f.read_only {
                return Err(Error::at(ErrorKind::ReadOnly, path, "entry is read-only"));
            }
            let freed = footprint(path, f);
            map.remove(path);
            self.shrink(freed, 0);
            return Ok(());
        }
        if path == "/" && !recursive {
            return Err(Error::at(
                ErrorKind::Conflict,
                path,
                "directory is not empty; pass recursive=true",
            ));
        }
        if !Self::dir_exists(&map, path) {
            return Err(Error::not_found(path));
        }
        let marker = format!("{path}/");
        if Self::under(&map, path).all(|(k, _)| *k == marker) {
            // An empty directory: only its marker.
            if let Some(f) = map.remove(&marker) {
                self.shrink(footprint(&marker, &f), 0);
            }
            return Ok(());
        }
        if !recursive {
            return Err(Error::at(
                ErrorKind::Conflict,
                path,
                "directory is not empty; pass recursive=true to delete it",
            ));
        }
        let keys: Vec<String> = Self::under(&map, path).map(|(k, _)| k.clone()).collect();
        if let Some((k, _)) = Self::under(&map, path).find(|(_, f)| f.read_only) {
            return Err(Error::at(ErrorKind::ReadOnly, k.clone(), "entry is read-only"));
        }
        for k in keys {
            if let Some(f) = map.remove(&k) {
                self.shrink(footprint(&k, &f), 0);
            }
        }
        Ok(())
    }

    fn keeps_entry_metadata(&self) -> bool {
        true
    }

    /// Clones share storage, so they share an identity: the address of that storage.
    fn identity(&self) -> Option<VolumeIdentity> {
        Some(VolumeIdentity {
            storage: format!("mem:{:x}", Arc::as_ptr(&self.files) as *const () as usize),
            root: Vec::new(),
        })
    }

    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        let mut map = self.files.write().expect("lock");
        if rename_is_noop(from, to)? {
            return Ok(());
        }
        let to_is_dir = Self::dir_exists(&map, to);
        if let Some(f) = map.get(from).cloned() {
            if f.read_only {
                return Err(Error::at(ErrorKind::ReadOnly, from, "entry is read-only"));
            }
            if to_is_dir {
                return Err(Error::at(ErrorKind::AlreadyExists, to, "destination is a directory"));
            }
            if let Some(existing) = map.get(to) {
                if !overwrite {
                    return Err(Error::at(
                        ErrorKind::AlreadyExists,
                        to,
                        "destination exists; pass overwrite=true",
                    ));
                }
                if existing.read_only {
                    return Err(Error::at(ErrorKind::ReadOnly, to, "entry is read-only"));
                }
            }
            Self::check_no_file_parent(&map, to)?;
            // The name is charged too: a longer one costs more.
            let (old, new) = (footprint(from, &f), footprint(to, &f));
            self.grow(old, new, to)?;
            self.shrink(old, new);
            map.remove(from);
            if let Some(replaced) = map.insert(to.to_string(), f) {
                self.shrink(footprint(to, &replaced), 0);
            }
            return Ok(());
        }
        if !Self::dir_exists(&map, from) || from == "/" {
            return Err(Error::not_found(from));
        }
        if map.contains_key(to) || to_is_dir {
            return Err(Error::at(ErrorKind::AlreadyExists, to, "destination exists"));
        }
        // As for files: a directory moved beneath a file would make that file a
        // directory too.
        Self::check_no_file_parent(&map, to)?;
        let moved: Vec<(String, MemFile)> =
            Self::under(&map, from).map(|(k, f)| (k.clone(), f.clone())).collect();
        if let Some((k, _)) = moved.iter().find(|(_, f)| f.read_only) {
            return Err(Error::at(ErrorKind::ReadOnly, k.clone(), "entry is read-only"));
        }
        // Every key beneath changes its prefix: charged by how its length changes.
        let renamed = |k: &str| format!("{to}{}", &k[from.len()..]);
        let old: u64 = moved.iter().map(|(k, f)| footprint(k, f)).sum();
        let new: u64 = moved.iter().map(|(k, f)| footprint(&renamed(k), f)).sum();
        self.grow(old, new, to)?;
        self.shrink(old, new);
        for (k, f) in moved {
            map.remove(&k);
            map.insert(renamed(&k), f);
        }
        Ok(())
    }

    fn create_dir(&self, path: &str) -> Result<Entry> {
        if path == "/" {
            return Ok(Entry::directory("/", None));
        }
        let mut map = self.files.write().expect("lock");
        if map.contains_key(path) {
            return Err(Error::at(ErrorKind::AlreadyExists, path, "a file exists at this path"));
        }
        Self::check_no_file_parent(&map, path)?;
        // Like `mkdir -p` on a file system, every missing ancestor becomes a
        // directory of its own too (a marker), so it outlives what is later moved or
        // deleted beneath it, as a directory volume's would.
        // (All found before any is added: a marker makes its ancestors exist.)
        let mut missing = Vec::new();
        let mut dir = Some(path);
        while let Some(d) = dir.filter(|d| *d != "/" && !Self::dir_exists(&map, d)) {
            missing.push(d);
            dir = paths::parent(d);
        }
        let marker = || MemFile {
            content: Arc::new(Vec::new()),
            modified_ms: now_ms(),
            read_only: false,
            entry_type: None,
            attributes: None,
        };
        let cost: u64 = missing.iter().map(|d| Self::charge_of(&format!("{d}/"), 0)).sum();
        self.grow(0, cost, path)?;
        for d in missing {
            map.insert(format!("{d}/"), marker());
        }
        Ok(Entry::directory(path, None))
    }
}

#[cfg(test)]
mod tests;
