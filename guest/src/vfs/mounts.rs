//! Mount table: routes virtual paths to volumes (docs/architecture.md#mount-table).
//!
//! A path routes to the mount point that is its longest (component-wise) prefix.
//! Several volumes may share one mount point as an *overlay*: layers are ordered by
//! priority (lower first), ties by mount order. Reads take the first layer that has the
//! path; listings and walks merge by path, first layer wins, and a file shadows a
//! directory of the same path. New files go to the first writable layer; a file that
//! resolves to a read-only layer (or is a read-only entry) refuses mutation, naming it.
//!
//! Deleting and moving act on the layers that hold the entry ([`MountTable::holders`]),
//! so what the agent saw is what changes: a delete removes the entry from every layer
//! that holds it (a copy in a lower layer must not reappear in its place) and is
//! refused, changing nothing, when any of those layers is read-only; a move takes the
//! entry out of the one layer that holds it, and is refused when several do (a copy
//! would stay in view) or when that layer is read-only. There are no whiteouts: a
//! read-only layer's entries cannot be hidden, only shadowed by writing over them.
//!
//! Mount points and their ancestors appear as directories in listings of their
//! parents even when no volume holds them.
//!
//! It stays above 800 lines because the routing, overlay and copy-on-write rules are
//! methods of one type that must apply them in the same order on every path; the unit
//! tests are `mounts/tests.rs`.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::cow::CowVolume;
use crate::vfs::entry::{Entry, EntryKind};
use crate::vfs::paths;
use crate::vfs::volume::{PackedWalk, PrefetchFile, Volume, Walk, WriteOptions};

/// One volume mounted at a point.
pub struct Mount {
    /// Normalised mount point.
    pub point: String,
    /// The storage.
    pub volume: Box<dyn Volume>,
    /// Overlay order at the same point: lower wins.
    pub priority: i32,
    /// Whether every mutation through this mount is refused.
    pub read_only: bool,
    order: usize,
}

impl Mount {
    /// The position this mount was added in (0 first), across all points.
    pub fn order(&self) -> usize {
        self.order
    }
}

impl std::fmt::Debug for Mount {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mount")
            .field("point", &self.point)
            .field("priority", &self.priority)
            .field("read_only", &self.read_only)
            .finish()
    }
}

/// The set of mounts of one session.
#[derive(Debug, Default)]
pub struct MountTable {
    /// Sorted by (point, priority, order).
    mounts: Vec<Mount>,
    /// The copy-on-write mounts among them, by point (for `filestore_diff`).
    cows: Vec<(String, Arc<CowVolume>)>,
}

/// The answer of [`MountTable::walk_packed`]: a walk's entries in path order, each
/// with its path as its volume gave it plus the prefix (the mount point) that makes it
/// virtual.
#[derive(Debug)]
pub struct VirtualWalk {
    /// Prepended to a packed path to make it virtual: the mount point, or nothing
    /// (a mount at `/`, or paths that are virtual already).
    prefix: String,
    /// A read-only mount: every entry is read-only.
    read_only: bool,
    /// Bytes of a packed path that name the walked directory (0 for `/`): what
    /// follows them, after a `/`, is the path below it.
    base: usize,
    walk: PackedWalk,
    /// Where each packed path starts, and the end ([`PackedWalk::path_offsets`]).
    offsets: Vec<u32>,
    /// The entries in path order, without duplicates, at most the cap.
    order: Vec<u32>,
    /// Whether the walk stopped at the entry cap.
    pub truncated: bool,
}

impl VirtualWalk {
    fn volume_path(&self, i: u32) -> &str {
        let i = i as usize;
        &self.walk.paths[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether the walk found nothing.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The entries in path order.
    pub fn iter(&self) -> impl Iterator<Item = WalkedEntry<'_>> + '_ {
        self.order.iter().map(move |&i| WalkedEntry { walk: self, i })
    }
}

/// One entry of a [`VirtualWalk`].
#[derive(Clone, Copy)]
pub struct WalkedEntry<'a> {
    walk: &'a VirtualWalk,
    i: u32,
}

impl<'a> WalkedEntry<'a> {
    fn i(&self) -> usize {
        self.i as usize
    }

    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        self.walk.walk.is_dir(self.i())
    }

    /// Size in bytes (0 for a directory).
    pub fn size(&self) -> u64 {
        self.walk.walk.sizes[self.i()]
    }

    /// Last modification (ms since the Unix epoch), when known.
    pub fn modified_ms(&self) -> Option<u64> {
        self.walk.walk.modified(self.i())
    }

    /// The path below the walked directory, without a leading `/` (`a/b.txt`).
    pub fn below(&self) -> &'a str {
        let w = self.walk;
        let i = self.i as usize;
        &w.walk.paths[w.offsets[i] as usize + w.base + 1..w.offsets[i + 1] as usize]
    }

    /// The virtual path.
    pub fn path(&self) -> String {
        paths::under_prefix(&self.walk.prefix, self.walk.volume_path(self.i))
    }

    /// The entry type (`file`, `directory`, `symlink`...).
    pub fn entry_type(&self) -> &'a str {
        self.walk.walk.entry_type(self.i())
    }

    /// The whole entry, at its virtual path.
    pub fn entry(&self) -> Entry {
        let mut e = self.walk.walk.entry(self.i(), self.path());
        e.read_only |= self.walk.read_only;
        e
    }
}

/// Where a file path resolved: the layer holding it and the volume-relative path.
pub struct Resolved<'a> {
    /// The mount whose volume holds the path.
    pub mount: &'a Mount,
    /// The path relative to that volume.
    pub rel: String,
    /// The entry with its virtual path.
    pub entry: Entry,
}

impl MountTable {
    /// An empty table.
    pub fn new() -> MountTable {
        MountTable::default()
    }

    /// Mounts `volume` at `point` (normalised here).
    pub fn add(
        &mut self,
        point: &str,
        volume: Box<dyn Volume>,
        priority: i32,
        read_only: bool,
    ) -> Result<()> {
        let point = paths::normalize(point)?;
        let order = self.mounts.len();
        self.mounts.push(Mount { point, volume, priority, read_only, order });
        self.mounts.sort_by(|a, b| {
            (a.point.as_str(), a.priority, a.order).cmp(&(b.point.as_str(), b.priority, b.order))
        });
        Ok(())
    }

    /// Mounts a copy-on-write volume at `point` (writable; see [`crate::vfs::cow`]).
    pub fn add_cow(&mut self, point: &str, cow: Arc<CowVolume>, priority: i32) -> Result<()> {
        let normalised = paths::normalize(point)?;
        self.add(&normalised, Box::new(Arc::clone(&cow)), priority, false)?;
        self.cows.push((normalised, cow));
        Ok(())
    }

    /// The copy-on-write mounts, by point, in the order they were added.
    pub fn cows(&self) -> &[(String, Arc<CowVolume>)] {
        &self.cows
    }

    /// Whether any mount is copy-on-write (decides whether `filestore_diff` is
    /// offered).
    pub fn has_cow(&self) -> bool {
        !self.cows.is_empty()
    }

    /// All mounts, sorted by point then overlay order ([`Mount::order`] is the order
    /// they were added in).
    pub fn mounts(&self) -> &[Mount] {
        &self.mounts
    }

    /// The distinct mount points, sorted.
    pub fn points(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.mounts.iter().map(|m| m.point.as_str()).collect();
        v.dedup();
        v
    }

    /// The layers of the longest mount point containing `path`, in overlay order.
    fn layers(&self, path: &str) -> Option<(&str, Vec<&Mount>)> {
        let point = self
            .mounts
            .iter()
            .filter(|m| paths::is_within(path, &m.point))
            .map(|m| m.point.as_str())
            .max_by_key(|p| if *p == "/" { 0 } else { p.len() })?;
        let layers = self.mounts.iter().filter(|m| m.point == point).collect();
        Some((point, layers))
    }

    /// Mount points strictly beneath `dir`.
    fn points_below<'a>(&'a self, dir: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.points().into_iter().filter(move |p| *p != dir && paths::is_within(p, dir))
    }

    /// Whether `path` is a mount point or an ancestor of one (a synthetic directory).
    fn is_mount_dir(&self, path: &str) -> bool {
        self.mounts.iter().any(|m| paths::is_within(&m.point, path))
    }

    fn virtual_entry(mount: &Mount, mut e: Entry) -> Entry {
        e.path = paths::under(&mount.point, &e.path);
        e.read_only |= mount.read_only;
        e
    }

    fn rename_err(e: Error, point: &str) -> Error {
        match e.path().map(|p| paths::under(point, p)) {
            Some(vp) => e.with_path(vp),
            None => e,
        }
    }

    /// Metadata of a virtual path.
    pub fn stat(&self, path: &str) -> Result<Entry> {
        self.stat_with_layer(path).map(|(e, _)| e)
    }

    /// [`MountTable::stat`], and for a file the layer holding it.
    fn stat_with_layer(&self, path: &str) -> Result<(Entry, Option<&Mount>)> {
        if let Some((point, layers)) = self.layers(path) {
            let rel = paths::strip_dir(path, point);
            let mut dir: Option<Entry> = None;
            for m in &layers {
                match m.volume.stat(rel) {
                    Ok(e) if e.kind == EntryKind::File => {
                        return Ok((Self::virtual_entry(m, e), Some(*m)));
                    }
                    Ok(e) => {
                        if dir.is_none() {
                            dir = Some(Self::virtual_entry(m, e));
                        }
                    }
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => return Err(Self::rename_err(e, point)),
                }
            }
            if let Some(d) = dir {
                return Ok((d, None));
            }
        }
        if self.is_mount_dir(path) {
            let mut e = Entry::directory(path, None);
            e.read_only = true;
            return Ok((e, None));
        }
        Err(Error::not_found(path))
    }

    /// Resolves a path that must be a file: the first layer holding it.
    ///
    /// One volume `stat` per layer tried (the common case: one call in all); only when
    /// no layer holds a file does [`MountTable::stat`] run to tell a directory
    /// (`not-a-file`) from a missing path.
    pub fn resolve_file(&self, path: &str) -> Result<Resolved<'_>> {
        if let Some((point, layers)) = self.layers(path) {
            let rel = paths::strip_dir(path, point).to_string();
            for m in layers {
                match m.volume.stat(&rel) {
                    Ok(v) if v.kind == EntryKind::File => {
                        refuse_contentless(&v, path)?;
                        return Ok(Resolved { mount: m, rel, entry: Self::virtual_entry(m, v) });
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => return Err(Self::rename_err(e, point)),
                }
            }
        }
        Err(self.no_file_at(path))
    }

    /// [`MountTable::resolve_file`] and the file's first `len` bytes, with one
    /// volume call per layer tried ([`Volume::stat_read`]) instead of a `stat` and a
    /// `read`: what makes a small read cross the component boundary once. Errors are
    /// those of `resolve_file`, or of the read.
    pub fn resolve_file_head(&self, path: &str, len: u64) -> Result<(Resolved<'_>, Vec<u8>)> {
        if let Some((point, layers)) = self.layers(path) {
            let rel = paths::strip_dir(path, point).to_string();
            for m in layers {
                match m.volume.stat_read(&rel, 0, len) {
                    Ok((v, data)) if v.kind == EntryKind::File => {
                        refuse_contentless(&v, path)?;
                        let entry = Self::virtual_entry(m, v);
                        return Ok((Resolved { mount: m, rel, entry }, data));
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => return Err(Self::rename_err(e, point)),
                }
            }
        }
        Err(self.no_file_at(path))
    }

    /// Why no layer of `path` has a file there: a directory (`not-a-file`), nothing
    /// (`not-found`), or the error of looking (the merged `stat`'s).
    fn no_file_at(&self, path: &str) -> Error {
        match self.stat(path) {
            Ok(e) if e.is_dir() => Error::at(ErrorKind::NotAFile, path, "is a directory"),
            Ok(_) => Error::not_found(path),
            Err(e) => e,
        }
    }

    /// Reads a byte range of a file.
    pub fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        let r = self.resolve_file(path)?;
        r.mount.volume.read(&r.rel, offset, len).map_err(|e| Self::rename_err(e, &r.mount.point))
    }

    /// Reads a whole file, refusing files over `max_bytes` with `too-large`.
    pub fn read_all(&self, path: &str, max_bytes: u64) -> Result<(Entry, Vec<u8>)> {
        let r = self.resolve_file(path)?;
        if r.entry.size > max_bytes {
            return Err(Error::at(
                ErrorKind::TooLarge,
                path,
                format!(
                    "file is {} bytes; the limit for this operation is {max_bytes}",
                    r.entry.size
                ),
            ));
        }
        let data = read_to_end(r.mount.volume.as_ref(), &r.rel, r.entry.size, max_bytes)
            .map_err(|e| Self::rename_err(e, &r.mount.point))?;
        if data.len() as u64 > max_bytes {
            return Err(grew_past(path, max_bytes));
        }
        Ok((r.entry, data))
    }

    /// Reads a whole file that a walk has just listed, without stat-ing it again (the
    /// walk already gave its size): the first layer of its mount that reads it as a
    /// file wins, as in [`MountTable::resolve_file`]. One volume call per file instead
    /// of three — what makes `grep` over a large tree cost its reads, not its stats.
    /// Over `max_bytes` (the file grew since the walk) is `too-large`.
    pub fn read_listed(&self, path: &str, size: u64, max_bytes: u64) -> Result<Vec<u8>> {
        let (point, layers) = self.layers(path).ok_or_else(|| Error::not_found(path))?;
        let rel = paths::strip_dir(path, point);
        for m in layers {
            match read_to_end(m.volume.as_ref(), rel, size, max_bytes) {
                Ok(data) if data.len() as u64 > max_bytes => {
                    return Err(grew_past(path, max_bytes));
                }
                Ok(data) => return Ok(data),
                Err(e)
                    if matches!(
                        e.kind(),
                        ErrorKind::NotFound | ErrorKind::NotAFile | ErrorKind::NotADirectory
                    ) => {}
                Err(e) => return Err(Self::rename_err(e, point)),
            }
        }
        Err(Error::not_found(path))
    }

    /// Tells the volumes that the files of `files` (virtual paths with their listed
    /// sizes) are about to be read whole with [`MountTable::read_listed`], in this
    /// order (see [`Volume::prefetch`]); each volume gets its own files, in order.
    /// Files under an overlay are left out: which layer answers is only known when
    /// reading.
    pub fn prefetch(&self, files: &[(&str, u64)]) {
        let mut per_mount: Vec<(usize, Vec<PrefetchFile>)> = Vec::new();
        for &(path, size) in files {
            let Some((point, layers)) = self.layers(path) else { continue };
            let [m] = layers.as_slice() else { continue };
            let Some(idx) = self.mounts.iter().position(|x| std::ptr::eq(x, *m)) else {
                continue;
            };
            let file = PrefetchFile { path: paths::strip_dir(path, point).to_string(), size };
            match per_mount.iter_mut().find(|(i, _)| *i == idx) {
                Some((_, v)) => v.push(file),
                None => per_mount.push((idx, vec![file])),
            }
        }
        for (idx, files) in per_mount {
            self.mounts[idx].volume.prefetch(&files);
        }
    }

    /// Direct children of a directory, merged across layers and mount points.
    pub fn list(&self, path: &str) -> Result<Vec<Entry>> {
        let me = self.stat(path)?;
        if !me.is_dir() {
            return Err(Error::at(ErrorKind::NotADirectory, path, "not a directory"));
        }
        self.list_stated_dir(path)
    }

    /// [`MountTable::list`] of a path the caller has just found to be a directory
    /// (with [`MountTable::stat`], or as an entry of a listing): the same answer
    /// without a second `stat` (a volume call each). A directory removed since lists
    /// as empty, as one emptied would.
    pub fn list_stated_dir(&self, path: &str) -> Result<Vec<Entry>> {
        let mut merged: BTreeMap<String, Entry> = BTreeMap::new();
        if let Some((point, layers)) = self.layers(path) {
            let rel = paths::strip_dir(path, point);
            // One volume and no mount beneath: nothing to merge (a volume lists each
            // name once), only to order as the merge would, by path.
            if let [m] = layers[..]
                && self.points_below(path).next().is_none()
            {
                let mut entries: Vec<Entry> = match m.volume.list(rel) {
                    Ok(v) => v.into_iter().map(|e| Self::virtual_entry(m, e)).collect(),
                    Err(e)
                        if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) =>
                    {
                        Vec::new()
                    }
                    Err(e) => return Err(Self::rename_err(e, point)),
                };
                entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
                entries.dedup_by(|a, b| a.path == b.path);
                return Ok(entries);
            }
            for m in layers {
                let entries = match m.volume.list(rel) {
                    Ok(v) => v,
                    Err(e)
                        if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) =>
                    {
                        continue;
                    }
                    Err(e) => return Err(Self::rename_err(e, point)),
                };
                for e in entries {
                    merge(&mut merged, Self::virtual_entry(m, e));
                }
            }
        }
        // Mount points beneath `path` show as directories at their first component.
        for p in self.points_below(path) {
            let rest = paths::strip_dir(p, path);
            let first = rest[1..].split('/').next().unwrap_or_default();
            let child = paths::under(path, &format!("/{first}"));
            let mut d = Entry::directory(child.clone(), None);
            d.read_only = true;
            merged.insert(child, d);
        }
        Ok(merged.into_values().collect())
    }

    /// [`MountTable::walk`] over [`Volume::walk_packed`]: the same entries in the same
    /// order, but as the volume packed them, so a walk of 100,000 entries makes no
    /// `Entry` (glob matches paths and builds entries only for what it returns).
    pub fn walk_packed(&self, path: &str, max_entries: usize) -> Result<VirtualWalk> {
        let me = self.stat(path)?;
        if !me.is_dir() {
            return Err(Error::at(ErrorKind::NotADirectory, path, "not a directory"));
        }
        // One volume, nothing mounted beneath (as in `walk`): that volume's walk, sorted.
        if self.points_below(path).next().is_none()
            && let Some((point, layers)) = self.layers(path)
            && let [m] = layers.as_slice()
        {
            let rel = paths::strip_dir(path, point);
            let walk = match m.volume.walk_packed(rel, max_entries) {
                Ok(w) => w,
                Err(e) if is_absent(&e) => PackedWalk::default(),
                Err(e) => return Err(Self::rename_err(e, point)),
            };
            // `Checked` refuses lengths that do not add up; only an unchecked volume
            // (native code) gets here with them.
            let offsets = walk.path_offsets().ok_or_else(|| {
                Error::at(ErrorKind::Backend, path, "the volume's packed walk is malformed")
            })?;
            let mut v = VirtualWalk {
                prefix: if point == "/" { String::new() } else { point.to_string() },
                read_only: m.read_only,
                base: if rel == "/" { 0 } else { rel.len() },
                order: (0..walk.len() as u32).collect(),
                truncated: walk.truncated,
                walk,
                offsets,
            };
            // Volumes list in their own order. A memory volume's is sorted already:
            // one pass says so (sorted, no duplicates), and sorting is skipped.
            let mut order = std::mem::take(&mut v.order);
            let (bytes, at) = (v.walk.paths.as_bytes(), &v.offsets);
            let path = |i: u32| &bytes[at[i as usize] as usize..at[i as usize + 1] as usize];
            if !(1..order.len() as u32).all(|i| paths::cmp_bytes(path(i - 1), path(i)).is_lt()) {
                order.sort_unstable_by(|&a, &b| paths::cmp_bytes(path(a), path(b)));
                order.dedup_by(|a, b| path(*a) == path(*b));
            }
            v.truncated |= order.len() > max_entries;
            order.truncate(max_entries);
            v.order = order;
            return Ok(v);
        }
        // Overlays and nested mounts: the merged walk, packed (already virtual, sorted).
        let w = self.walk(path, max_entries)?;
        let truncated = w.truncated;
        let walk = PackedWalk::from(w);
        let offsets = walk.path_offsets().expect("a packed walk of valid entries");
        Ok(VirtualWalk {
            prefix: String::new(),
            read_only: false,
            base: if path == "/" { 0 } else { path.len() },
            order: (0..walk.len() as u32).collect(),
            truncated,
            walk,
            offsets,
        })
    }

    /// Every entry beneath `path` (not `path` itself), merged across layers and nested
    /// mounts, sorted by path, at most `max_entries`.
    pub fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        let me = self.stat(path)?;
        if !me.is_dir() {
            return Err(Error::at(ErrorKind::NotADirectory, path, "not a directory"));
        }
        let below: Vec<&str> = self.points_below(path).collect();
        // Fast path — one volume, nothing mounted beneath: no overlay to merge and no
        // shadowing possible (a volume never holds a file and a directory at one
        // path), so the walk is that volume's entries, sorted. Skips a map insert and
        // an ancestor scan per entry on trees of 100,000 files.
        if below.is_empty()
            && let Some((point, layers)) = self.layers(path)
            && let [m] = layers.as_slice()
        {
            let rel = paths::strip_dir(path, point);
            let w = match m.volume.walk(rel, max_entries) {
                Ok(w) => w,
                Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                    Walk { entries: Vec::new(), truncated: false }
                }
                Err(e) => return Err(Self::rename_err(e, point)),
            };
            let mut entries: Vec<Entry> =
                w.entries.into_iter().map(|e| Self::virtual_entry(m, e)).collect();
            entries.sort_unstable_by(|a, b| a.path.cmp(&b.path));
            entries.dedup_by(|a, b| a.path == b.path);
            let truncated = w.truncated || entries.len() > max_entries;
            entries.truncate(max_entries);
            return Ok(Walk { entries, truncated });
        }
        let mut merged: BTreeMap<String, Entry> = BTreeMap::new();
        let mut truncated = false;
        let mut roots: Vec<&str> = vec![path];
        roots.extend(below.iter().copied());
        for root in roots {
            let Some((point, layers)) = self.layers(root) else { continue };
            if point != root && root != path {
                continue;
            }
            let rel = paths::strip_dir(root, point);
            for m in layers {
                let w = match m.volume.walk(rel, max_entries) {
                    Ok(w) => w,
                    Err(e)
                        if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) =>
                    {
                        continue;
                    }
                    Err(e) => return Err(Self::rename_err(e, point)),
                };
                truncated |= w.truncated;
                for e in w.entries {
                    let e = Self::virtual_entry(m, e);
                    // Entries hidden by a deeper mount belong to that mount.
                    if below.iter().any(|p| {
                        *p != point && paths::is_within(&e.path, p) && !paths::is_within(point, p)
                    }) {
                        continue;
                    }
                    merge(&mut merged, e);
                }
            }
            // Synthetic directories from `path` down to each nested mount point.
            if root != path {
                let mut d = Some(root);
                while let Some(dir) = d {
                    if dir == path || !paths::is_within(dir, path) {
                        break;
                    }
                    merged.entry(dir.to_string()).or_insert_with(|| {
                        let mut e = Entry::directory(dir, None);
                        e.read_only = true;
                        e
                    });
                    d = paths::parent(dir);
                }
            }
        }
        drop_shadowed_children(&mut merged);
        if merged.len() > max_entries {
            truncated = true;
        }
        let entries = merged.into_values().take(max_entries).collect();
        Ok(Walk { entries, truncated })
    }

    /// The layers of `path`'s mount point that hold an entry at `path`, in overlay
    /// order, each with the path relative to it. Deleting or moving acts on these:
    /// acting only on the first writable layer would leave (or uncover) a copy in
    /// another.
    pub fn holders(&self, path: &str) -> Result<Vec<(&Mount, String)>> {
        let Some((point, layers)) = self.layers(path) else { return Ok(Vec::new()) };
        let rel = paths::strip_dir(path, point).to_string();
        let mut out = Vec::new();
        for m in layers {
            match m.volume.stat(&rel) {
                Ok(_) => out.push((m, rel.clone())),
                Err(e) if is_absent(&e) => {}
                Err(e) => return Err(Self::rename_err(e, point)),
            }
        }
        Ok(out)
    }

    /// Whether any mount accepts writes (decides whether mutating tools are offered).
    pub fn any_writable(&self) -> bool {
        self.mounts.iter().any(|m| !m.read_only)
    }

    /// The layer a mutation of `path` goes to: the first writable layer of its mount
    /// point. A path in a read-only mount (or only beneath mount directories) is
    /// refused with `read-only` naming the path.
    pub fn writable(&self, path: &str) -> Result<(&Mount, String)> {
        let Some((point, layers)) = self.layers(path) else {
            return Err(self.read_only_error(path));
        };
        let rel = paths::strip_dir(path, point).to_string();
        let Some(m) = layers.into_iter().find(|m| !m.read_only) else {
            return Err(self.read_only_error(path));
        };
        if rel == "/" {
            return Err(Error::at(
                ErrorKind::InvalidPath,
                path,
                "a mount point itself cannot be replaced, deleted or moved",
            ));
        }
        if self.points_below(path).next().is_some() {
            return Err(Error::at(
                ErrorKind::Conflict,
                path,
                "a volume is mounted beneath this path",
            ));
        }
        Ok((m, rel))
    }

    /// The `read-only` error of a change to `path`, worded once for every tool
    /// (write, edit, delete, move): a read-only mount is named as such, with the
    /// writable mount points; otherwise the entry itself is read-only.
    pub fn read_only_error(&self, path: &str) -> Error {
        let Some((point, layers)) = self.layers(path) else {
            return Error::at(
                ErrorKind::ReadOnly,
                path,
                "not inside any mount; only mounted volumes can be written",
            );
        };
        if layers.iter().any(|m| !m.read_only) {
            return Error::at(ErrorKind::ReadOnly, path, "entry is read-only");
        }
        let mut writable: Vec<&str> =
            self.mounts.iter().filter(|m| !m.read_only).map(|m| m.point.as_str()).collect();
        writable.dedup();
        let elsewhere = if writable.is_empty() {
            String::new()
        } else {
            format!(" (writable: {})", writable.join(", "))
        };
        Error::at(
            ErrorKind::ReadOnly,
            path,
            format!("the mount at '{point}' is read-only{elsewhere}"),
        )
    }

    /// `Ok` unless `entry` (at `path`) refuses changes: a read-only file, or any entry
    /// of a read-only mount; the error is [`MountTable::read_only_error`]'s.
    pub fn refuse_read_only(&self, path: &str, entry: &Entry) -> Result<()> {
        if entry.read_only && !entry.is_dir() { Err(self.read_only_error(path)) } else { Ok(()) }
    }

    /// Writes through [`MountTable::writable`], refusing read-only entries first.
    pub fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        // Only a missing entry may skip the read-only check: a volume that fails to
        // answer (an I/O error, a refused link) fails the write, naming the cause.
        match self.stat(path) {
            Ok(existing) => self.refuse_read_only(path, &existing)?,
            Err(e) if is_absent(&e) => {}
            Err(e) => return Err(e),
        }
        let (m, rel) = self.writable(path)?;
        m.volume
            .write(&rel, content, options)
            .map(|e| Self::virtual_entry(m, e))
            .map_err(|e| Self::rename_err(e, &m.point))
    }
}

impl MountTable {
    /// Appends `content` to the file at `path` (created when missing) with every rule
    /// of [`MountTable::write`]: the first writable layer takes it, and a read-only
    /// mount or entry refuses it with the same error. In an overlay whose first
    /// writable layer does not hold the file, the file is copied up: its bytes (at
    /// most `max_copy_bytes`, the reader's whole-file limit: they pass through guest
    /// memory) and `content` are written there as one write, which then shadows the
    /// file of the other layer, unchanged.
    pub fn append(&self, path: &str, content: &[u8], max_copy_bytes: u64) -> Result<Entry> {
        let holder = match self.stat_with_layer(path) {
            Ok((existing, holder)) => {
                self.refuse_read_only(path, &existing)?;
                holder.map(|h| (h, existing))
            }
            Err(e) if is_absent(&e) => None,
            Err(e) => return Err(e),
        };
        let (m, rel) = self.writable(path)?;
        let done = match holder {
            Some((h, existing)) if !std::ptr::eq(h, m) => {
                refuse_contentless(&existing, path)?;
                if existing.size > max_copy_bytes {
                    return Err(Error::at(
                        ErrorKind::TooLarge,
                        path,
                        format!(
                            "file is {} bytes; the limit for copying it up to append is {max_copy_bytes}",
                            existing.size
                        ),
                    ));
                }
                let mut whole = read_to_end(h.volume.as_ref(), &rel, existing.size, max_copy_bytes)
                    .map_err(|e| Self::rename_err(e, &h.point))?;
                if whole.len() as u64 > max_copy_bytes {
                    return Err(grew_past(path, max_copy_bytes));
                }
                whole.extend_from_slice(content);
                m.volume.write(&rel, &whole, &WriteOptions::default())
            }
            _ => m.volume.append(&rel, content),
        };
        done.map(|e| Self::virtual_entry(m, e)).map_err(|e| Self::rename_err(e, &m.point))
    }

    /// Creates a directory (and its missing parents) in the first writable layer of
    /// the mount holding `path`; succeeds when a directory is already there (in any
    /// layer). A mount point is a directory already; a read-only mount refuses.
    pub fn create_dir(&self, path: &str) -> Result<Entry> {
        match self.stat(path) {
            Ok(e) if e.is_dir() => return Ok(e),
            Ok(_) => {
                return Err(Error::at(
                    ErrorKind::AlreadyExists,
                    path,
                    "a file exists at this path",
                ));
            }
            Err(e) if is_absent(&e) => {}
            Err(e) => return Err(e),
        }
        let (m, rel) = self.writable(path)?;
        m.volume
            .create_dir(&rel)
            .map(|e| Self::virtual_entry(m, e))
            .map_err(|e| Self::rename_err(e, &m.point))
    }
}

pub use crate::vfs::entry::{TYPE_SPECIAL, TYPE_SYMLINK};

/// Refuses to resolve as a file (or, for `ls`, `glob`, `grep` and `tree`, as the
/// directory or file they start from) an entry that has no content: a link or a
/// special file reports size 0, and without this a `read` would call it an empty
/// file and a `grep` an empty, complete search (the volume refuses reading it the
/// same way, with the same kinds).
pub fn refuse_contentless(e: &Entry, path: &str) -> Result<()> {
    match e.entry_type.as_str() {
        TYPE_SYMLINK => Err(Error::at(
            ErrorKind::InvalidPath,
            path,
            "is a symbolic link; directory volumes list links but never follow them",
        )),
        TYPE_SPECIAL => Err(Error::at(ErrorKind::Unsupported, path, "not a regular file")),
        _ => Ok(()),
    }
}

pub use crate::vfs::volume::is_absent;

/// Inserts `e` unless an earlier layer has the path; a file replaces a directory.
fn merge(merged: &mut BTreeMap<String, Entry>, e: Entry) {
    match merged.get(&e.path) {
        None => {
            merged.insert(e.path.clone(), e);
        }
        Some(old) if old.is_dir() && !e.is_dir() => {
            merged.insert(e.path.clone(), e);
        }
        Some(_) => {}
    }
}

/// After a file shadowed a directory, the directory's children from other layers
/// must not show through.
fn drop_shadowed_children(merged: &mut BTreeMap<String, Entry>) {
    let files: HashSet<String> =
        merged.values().filter(|e| !e.is_dir()).map(|e| e.path.clone()).collect();
    merged.retain(|p, _| {
        let mut d = paths::parent(p);
        while let Some(dir) = d {
            if files.contains(dir) {
                return false;
            }
            d = paths::parent(dir);
        }
        true
    });
}

/// The bytes of a whole file expected to hold `expected` bytes, read until its end
/// or until more than `max_bytes` (the caller refuses that). A volume may answer a
/// read with fewer bytes than asked before the end (the host caps one boundary
/// crossing at 16 MiB), so a short answer ends the file only once `expected` bytes
/// are in; a file that grew since it was listed is read on until an empty answer. A
/// small file costs one call: it asks for one byte more than expected, and a
/// shorter answer is the end.
fn read_to_end(volume: &dyn Volume, rel: &str, expected: u64, max_bytes: u64) -> Result<Vec<u8>> {
    /// What to ask for past the expected end (a file that grew).
    const MORE: u64 = 1 << 20;
    let limit = max_bytes.saturating_add(1);
    // Sized for the expected bytes: whoever holds the answer (the shell counts its
    // live bytes by capacity) holds what the file has, not a doubled buffer.
    let mut data: Vec<u8> = Vec::with_capacity(expected.saturating_add(1).min(limit) as usize);
    loop {
        let at = data.len() as u64;
        let want = if at < expected { expected - at + 1 } else { MORE };
        let ask = want.min(limit.saturating_sub(at));
        if ask == 0 {
            return Ok(data);
        }
        let chunk = volume.read(rel, at, ask)?;
        let got = chunk.len() as u64;
        data.extend_from_slice(&chunk);
        // A short answer to the read that reached the expected end is the end; past
        // it (the file grew), only an empty answer is.
        if got == 0 || (got < ask && at < expected && data.len() as u64 >= expected) {
            data.shrink_to_fit();
            return Ok(data);
        }
    }
}

fn grew_past(path: &str, max_bytes: u64) -> Error {
    Error::at(ErrorKind::TooLarge, path, format!("file grew past the limit of {max_bytes} bytes"))
}

#[cfg(test)]
mod tests;
