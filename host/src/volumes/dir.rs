//! The `dir` volume: a local directory mounted as a volume, confined beneath its root.
//!
//! [`DirVolume`] implements the guest's [`Volume`] trait over a real directory, for
//! reads and writes, with the guarantee that no volume path reaches anything outside
//! the directory it was opened on.
//!
//! # Security model
//!
//! A `DirVolume` holds one capability: a directory handle (`cap_std::fs::Dir`) opened
//! once, in [`DirVolume::open`], with the host's ambient authority. That is the only
//! place this module uses ambient authority. Every later operation resolves its path
//! relative to that handle, **one component at a time**: each directory component is
//! opened relative to the handle of its parent with `O_NOFOLLOW | O_DIRECTORY`
//! (`cap_fs_ext::DirExt::open_dir_nofollow`), and the last component is acted on with
//! a call that never follows a link (`lstat`, `open(O_NOFOLLOW)`, `mkdirat`, `unlinkat`,
//! `renameat`, `linkat` without `AT_SYMLINK_FOLLOW`). Paths are never joined onto the
//! root as strings and confinement is never a lexical check: each directory is
//! resolved and opened in one step, and the operation then works on that handle, so a
//! directory swapped for a link between two calls (or between two steps of one call)
//! is refused, not followed. Where an operation looks at its last component before
//! acting on it (e.g. `write` refusing a link), the action itself cannot follow a link
//! either, so a swap in between changes at most which entry is replaced, never where.
//!
//! On Linux ≥ 5.6, opens for reading (files, and directories to list or walk) first
//! try a single `openat2` relative to the root handle with `RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS` and `O_NOFOLLOW`: the kernel applies
//! the same rule (no link anywhere on the path, no escape) atomically. Only its
//! success is used; any failure falls back to the component-wise walk, which stays
//! authoritative and explains the refusal.
//!
//! ## What is confined
//!
//! Every operation of the [`Volume`] trait, read and write alike: `stat`, `list`,
//! `walk`, `read`, `write` (including the directories it creates and its temporary
//! file), `delete` (including recursive deletes) and `rename` (source and
//! destination). Error messages name volume-relative paths only, never the host path
//! of the root.
//!
//! ## Symbolic links are never followed
//!
//! Not at the last component, not in a parent directory, whatever the target: outside
//! the root (absolute or `../` relative, a sibling such as `root_evil`), inside it,
//! dangling, a loop, a chain, a magic link such as `/proc/self/root`. The policy is the
//! same for every link, so it does not depend on where a target lies at the moment of
//! a check (which another process can change at any time), and it is easy to audit.
//! Agents cannot create links through this API; links are placed by whoever owns the
//! directory, and are shown to the agent but not traversed:
//!
//! - `list`/`walk`/`stat` report a link as a file entry of type [`TYPE_SYMLINK`], size 0;
//!   its target is not disclosed. `walk` never descends through a linked directory, so
//!   `ls`, `glob` and `grep` never report a file beyond a link.
//! - `read`, `list` or `walk` of a link, and any path *through* a linked directory
//!   (`/link/secret.txt`), fail with `invalid-path` "is a symbolic link".
//! - `write` onto a link, dangling or not, fails with `invalid-path`: the link is
//!   neither followed nor replaced, so a write can never create or change a file
//!   outside. Delete the link first to replace it with a file.
//! - `delete` of a link removes the link, never its target; a recursive delete removes
//!   the links it meets and never descends through them.
//! - `rename` of a link moves the link. Renaming onto an existing link with
//!   `overwrite=true` fails with `invalid-path`, like `write`.
//!
//! ## What is denied, with examples
//!
//! | request (volume-relative)                 | result                                     |
//! |-------------------------------------------|--------------------------------------------|
//! | `/../root_evil/x`, `/d/../../outside/x`   | `invalid-path`: `..` components            |
//! | `_evil/secret.txt` (no leading `/`)       | `invalid-path`: paths must be absolute     |
//! | `/a\0b`, `/a\nb`, `/a\\..\\b`             | `invalid-path`: NUL, control, backslash    |
//! | a 5,000-byte path, a 300-byte component   | `invalid-path`: over the length limits     |
//! | `/link` where `link -> /outside/secret`   | `invalid-path`: symbolic link              |
//! | `/linkdir/x` where `linkdir -> ../outside`| `invalid-path`: symbolic link in a parent  |
//! | write `/dangling` (`-> /outside/new`)     | `invalid-path`; nothing is created         |
//! | a FIFO, socket or device                  | listed as [`TYPE_SPECIAL`]; read: `unsupported` |
//!
//! The guest's path normaliser already rejects the malformed paths above; the volume
//! rejects them again (defence in depth), because a host may call it directly. For
//! the same reason, listings leave out names an agent could not address (not UTF-8,
//! control characters, a backslash) and paths longer than the path limit.
//!
//! ## Writes are atomic
//!
//! `write` creates a uniquely named temporary file next to the destination
//! (`.{name}.filestore-tmp-{16 hex}`, created with `O_EXCL`, which never follows a
//! link), writes and `fsync`s it, then renames it over the destination (or hard-links
//! it into place for `create_only`, which fails atomically when the name exists) and
//! `fsync`s the directory. A crash or a failed write leaves either the old content or
//! the new one, never a half-written file; on failure the temporary file is removed
//! (a crash can leave one behind, hidden from listings like the temporary files of
//! in-flight writes). An overwritten file keeps its permission bits (not its owner).
//! Permission bits are not read-only flags: as with `mv`, the directory's permissions
//! decide whether a file can be replaced, and only a read-only mount refuses. Entry
//! types, attributes and per-entry read-only flags of [`WriteOptions`] cannot be
//! stored in a plain directory and are ignored, as the trait allows.
//!
//! ## What this does not protect against
//!
//! - **Other access by the host process or other local users.** Confinement applies to
//!   paths given to this volume. Anything else with access to the directory can read
//!   or change it, and the volume acts with the host process' own credentials.
//! - **Hard links and mounts placed beneath the root.** A hard link inside the root to
//!   a file outside (created by someone with access to both) is an ordinary file here:
//!   it can be read. A `write` replaces the directory entry, so it never changes the
//!   outside inode, but a read returns its content. File systems mounted (or
//!   bind-mounted) beneath the root are traversed like any directory.
//! - **Races with other local processes beyond what the kernel guarantees.** A
//!   concurrent swap of entries can make an operation fail, or act on whatever entry
//!   is there at that moment, but never through a link and never outside the root.
//!   `rename` with `overwrite=false` uses `renameat2(RENAME_NOREPLACE)` on Linux, so a
//!   destination created by another process in between is never replaced; where the
//!   file system lacks the flag (and on other systems) it checks and then renames, and
//!   such a destination may be replaced.
//! - **Resource exhaustion.** File sizes, disk space, the number of entries and the
//!   depth of trees are bounded by the caller's limits (the guest's `limits` module
//!   and the host's resource caps), not here.
//! - **A replaced root.** The root handle refers to the directory opened by
//!   [`DirVolume::open`]; if that directory is renamed or replaced later, the volume
//!   keeps using the original directory, wherever it now is.
//!
//! Windows is not supported: the guarantees above rest on Linux/Unix `openat`
//! semantics (through cap-std).

use std::ffi::{OsStr, OsString};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_fs_ext::{
    DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsMaybeDirExt, OpenOptionsSyncExt,
};
use cap_std::fs::{Dir, File, Metadata, OpenOptions};
use filestore_guest::error::{Error, ErrorKind, Result};
use filestore_guest::vfs::entry::{Entry, EntryKind, TYPE_DIRECTORY};
use filestore_guest::vfs::paths::{self, MAX_COMPONENT_BYTES, MAX_PATH_BYTES};
use filestore_guest::vfs::volume::{Volume, Walk, WriteOptions};

/// Entry type of a symbolic link in listings: reported, never followed, not readable.
pub const TYPE_SYMLINK: &str = "symlink";

/// Entry type of a FIFO, socket or device in listings: reported, never opened for
/// reading (opening a FIFO could block a worker forever, a device could be anything).
pub const TYPE_SPECIAL: &str = "special";

/// Marker in the names of temporary files of in-flight writes:
/// `.{name}.filestore-tmp-{16 hex digits}`. Names of that shape are hidden from
/// listings.
pub const TEMP_MARKER: &str = ".filestore-tmp-";

/// Hex digits of random suffix in a temporary file name.
const TEMP_SUFFIX_LEN: usize = 16;

/// Bytes of the destination name kept in a temporary file name, so that the temporary
/// name (`.` + prefix + marker + suffix) stays within [`MAX_COMPONENT_BYTES`].
const TEMP_NAME_PREFIX_BYTES: usize = 200;

/// Attempts at finding an unused temporary name before giving up. Bounds the loop
/// against a directory pre-filled with colliding names.
const TEMP_ATTEMPTS: usize = 16;

/// Largest buffer reserved up front by a ranged read. A caller asking for `u64::MAX`
/// bytes of a small file must not make the host allocate them.
const MAX_READ_PREALLOC: u64 = 8 * 1024 * 1024;

/// `ELOOP`: the kernel's answer to `O_NOFOLLOW` on a link, mapped to `invalid-path`
/// when a link appears between a check and a use. Its number comes from rustix, which
/// knows each architecture's numbering; elsewhere the case is not recognised.
#[cfg(target_os = "linux")]
const ELOOP: Option<i32> = Some(rustix::io::Errno::LOOP.raw_os_error());
#[cfg(not(target_os = "linux"))]
const ELOOP: Option<i32> = None;

/// The message of every refusal caused by a symbolic link.
const NO_FOLLOW: &str = "this volume never follows symbolic links";

/// A local directory mounted as a volume, confined beneath its root.
///
/// See the [module documentation](self) for the security model and the symlink
/// policy. `DirVolume` is `Send + Sync`: share it as
/// [`SharedVolume`](crate::volumes::SharedVolume).
///
/// ```no_run
/// use filestore::volumes::dir::DirVolume;
/// use filestore::volumes::Volume;
/// let vol = DirVolume::open("./project", true).unwrap();
/// let entries = vol.list("/").unwrap();
/// ```
#[derive(Debug)]
pub struct DirVolume {
    root: PathBuf,
    dir: Dir,
    read_only: bool,
}

// The host shares volumes between sessions and threads.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<DirVolume>();
};

impl DirVolume {
    /// Opens `root` (which must exist and be a directory) as a volume; every mutation
    /// fails with `read-only` when `read_only` is set.
    ///
    /// This is the only use of ambient authority: `root` itself is resolved like any
    /// host path (a symlink *as* the root is followed once, here, by the host's own
    /// choice of root). Errors name `root`.
    pub fn open(root: impl AsRef<Path>, read_only: bool) -> Result<DirVolume> {
        let root = root.as_ref();
        let shown = root.display().to_string();
        match std::fs::metadata(root) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(Error::at(
                    ErrorKind::NotADirectory,
                    shown,
                    "the volume root is not a directory",
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Error::at(
                    ErrorKind::NotFound,
                    shown,
                    "the volume root does not exist",
                ));
            }
            Err(e) => {
                return Err(Error::at(
                    ErrorKind::Backend,
                    shown,
                    format!("cannot open the volume root: {e}"),
                ));
            }
        }
        let dir = Dir::open_ambient_dir(root, cap_std::ambient_authority()).map_err(|e| {
            Error::at(
                ErrorKind::Backend,
                shown.clone(),
                format!("cannot open the volume root: {e}"),
            )
        })?;
        Ok(DirVolume { root: root.to_path_buf(), dir, read_only })
    }

    /// The host path the volume was opened on (as given to [`DirVolume::open`]).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether every mutation is refused with `read-only`.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    fn check_writable(&self, path: &str) -> Result<()> {
        if self.read_only {
            return Err(Error::at(ErrorKind::ReadOnly, path, "the volume is mounted read-only"));
        }
        Ok(())
    }

    /// Opens the directory named by `comps`, one component at a time from the root,
    /// never following a link. `create` makes missing directories; `is_target` says
    /// the last component is the directory the operation is about (rather than the
    /// parent of its target), which only changes the error reported for a file.
    fn descend<C: AsRef<OsStr>>(
        &self,
        path: &str,
        comps: &[C],
        create: bool,
        is_target: bool,
    ) -> Result<Dir> {
        if !create
            && !comps.is_empty()
            && let Some(f) = open_beneath(&self.dir, comps, true)
        {
            return Ok(Dir::from_std_file(f));
        }
        let mut cur: Option<Dir> = None;
        let mut shown = String::new();
        for (i, c) in comps.iter().enumerate() {
            let name = c.as_ref();
            shown.push('/');
            shown.push_str(&name.to_string_lossy());
            let target = is_target && i + 1 == comps.len();
            let base = cur.as_ref().unwrap_or(&self.dir);
            let explain =
                |e: io::Error| explain_component(base, name, &shown, path, e, create, target);
            let next = match base.open_dir_nofollow(name) {
                Ok(d) => d,
                Err(e) if create && e.kind() == io::ErrorKind::NotFound => {
                    match base.create_dir(name) {
                        Ok(()) => {}
                        // Created concurrently (or a link appeared: opening will say).
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                        Err(e) => return Err(explain(e)),
                    }
                    base.open_dir_nofollow(name).map_err(explain)?
                }
                Err(e) => return Err(explain(e)),
            };
            // Defence in depth: whatever was opened must be a directory.
            match next.dir_metadata() {
                Ok(m) if m.is_dir() => {}
                Ok(_) => return Err(explain(io::Error::from(io::ErrorKind::NotADirectory))),
                Err(e) => return Err(io_error(path, e)),
            }
            cur = Some(next);
        }
        match cur {
            Some(d) => Ok(d),
            None => self.dir.try_clone().map_err(|e| io_error(path, e)),
        }
    }

    /// The directory holding the last component of `comps` (non-empty), and that
    /// component.
    fn parent_of<'c>(&self, path: &str, comps: &[&'c str], create: bool) -> Result<(Dir, &'c str)> {
        let (name, parents) = comps.split_last().expect("non-root path");
        Ok((self.descend(path, parents, create, false)?, name))
    }

    fn entry(&self, path: String, m: &Metadata) -> Entry {
        let modified_ms = m
            .modified()
            .ok()
            .and_then(|t| t.into_std().duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let ft = m.file_type();
        let mut e = if ft.is_dir() {
            Entry::directory(path, modified_ms)
        } else if ft.is_file() {
            Entry::file(path, m.len(), modified_ms)
        } else {
            let mut e = Entry::file(path, 0, modified_ms);
            e.entry_type = if ft.is_symlink() { TYPE_SYMLINK } else { TYPE_SPECIAL }.to_string();
            e
        };
        e.read_only = self.read_only;
        e
    }

    /// The addressable children of an open directory, sorted by name. Entries that
    /// vanish or cannot be stat'ed (permission) are skipped.
    fn children(&self, dir: &Dir, dir_path: &str) -> Result<Vec<Entry>> {
        let mut out = Vec::new();
        for ent in dir.entries().map_err(|e| io_error(dir_path, e))? {
            let Ok(ent) = ent else { continue };
            let os_name = ent.file_name();
            let Some(name) = addressable_name(&os_name) else {
                continue;
            };
            let child = join(dir_path, name);
            if child.len() > MAX_PATH_BYTES {
                continue;
            }
            // `DirEntry::metadata` is an `lstat`: a link is reported, not followed.
            let Ok(m) = ent.metadata() else { continue };
            out.push(self.entry(child, &m));
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// Removes everything beneath the directory `comps` (not the directory itself),
    /// iteratively, never following a link: links are unlinked, directories are
    /// reopened from the root with `O_NOFOLLOW` before being emptied.
    fn remove_contents(&self, path: &str, comps: Vec<OsString>) -> Result<()> {
        let base_len = comps.len();
        // (directory, whether its children have been removed already)
        let mut stack: Vec<(Vec<OsString>, bool)> = vec![(comps, false)];
        while let Some((dir_comps, emptied)) = stack.pop() {
            if emptied {
                if dir_comps.len() > base_len {
                    let (name, parents) = dir_comps.split_last().expect("non-empty");
                    let parent = self.descend(path, parents, false, false)?;
                    parent.remove_dir(name).map_err(|e| io_error(path, e))?;
                }
                continue;
            }
            let dir = self.descend(path, &dir_comps, false, true)?;
            stack.push((dir_comps.clone(), true));
            for ent in dir.entries().map_err(|e| io_error(path, e))? {
                let ent = ent.map_err(|e| io_error(path, e))?;
                let name = ent.file_name();
                // The type from the directory entry itself: a link is a link.
                let is_dir = ent.file_type().map_err(|e| io_error(path, e))?.is_dir();
                if is_dir {
                    let mut sub = dir_comps.clone();
                    sub.push(name);
                    stack.push((sub, false));
                } else {
                    match dir.remove_file(&name) {
                        Ok(()) => {}
                        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                        Err(e) => return Err(io_error(path, e)),
                    }
                }
            }
        }
        Ok(())
    }

    /// Creates a fresh temporary file next to `name` in `parent`.
    fn create_temp(&self, parent: &Dir, name: &str, path: &str) -> Result<(String, File)> {
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true).follow(FollowSymlinks::No);
        let mut last = None;
        for _ in 0..TEMP_ATTEMPTS {
            let tmp = temp_name(name);
            match parent.open_with(&tmp, &opts) {
                Ok(f) => return Ok((tmp, f)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(io_error(path, e)),
            }
        }
        Err(Error::at(
            ErrorKind::Backend,
            path,
            format!(
                "cannot create a temporary file after {TEMP_ATTEMPTS} attempts: {}",
                last.map(|e| e.to_string()).unwrap_or_default()
            ),
        ))
    }
}

impl Volume for DirVolume {
    fn stat(&self, path: &str) -> Result<Entry> {
        let comps = components(path)?;
        if comps.is_empty() {
            let m = self.dir.dir_metadata().map_err(|e| io_error(path, e))?;
            return Ok(self.entry("/".to_string(), &m));
        }
        let (parent, name) = self.parent_of(path, &comps, false)?;
        let m = parent.symlink_metadata(name).map_err(|e| io_error(path, e))?;
        Ok(self.entry(path.to_string(), &m))
    }

    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        let comps = components(path)?;
        let dir = self.descend(path, &comps, false, true)?;
        self.children(&dir, path)
    }

    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        let comps = components(path)?;
        let top = self.descend(path, &comps, false, true)?;
        let mut walk = Walk::default();
        // Directories still to list; the top one is already open. Others are reopened
        // from the root when their turn comes, so at most one directory handle is held
        // however wide the tree is, and every level is re-resolved without following.
        let mut stack: Vec<(String, Option<Dir>)> = vec![(path.to_string(), Some(top))];
        while let Some((dir_path, handle)) = stack.pop() {
            let is_top = handle.is_some();
            let dir = match handle {
                Some(d) => d,
                None => {
                    // Swapped for a link, removed, or unreadable since it was listed:
                    // skip it rather than fail the whole walk.
                    let Ok(c) = components(&dir_path) else {
                        continue;
                    };
                    match self.descend(&dir_path, &c, false, true) {
                        Ok(d) => d,
                        Err(_) => continue,
                    }
                }
            };
            let children = match self.children(&dir, &dir_path) {
                Ok(c) => c,
                Err(e) if is_top => return Err(e),
                Err(_) => continue,
            };
            let mut subdirs = Vec::new();
            for e in children {
                if walk.entries.len() >= max_entries {
                    walk.truncated = true;
                    return Ok(walk);
                }
                if e.kind == EntryKind::Directory && e.entry_type == TYPE_DIRECTORY {
                    subdirs.push(e.path.clone());
                }
                walk.entries.push(e);
            }
            // Reversed so directories are visited in name order.
            stack.extend(subdirs.into_iter().rev().map(|d| (d, None)));
        }
        Ok(walk)
    }

    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        let comps = components(path)?;
        if comps.is_empty() {
            return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
        }
        let mut file = match open_beneath(&self.dir, &comps, false) {
            Some(f) => f,
            None => {
                let (parent, name) = self.parent_of(path, &comps, false)?;
                let mut opts = OpenOptions::new();
                // O_NONBLOCK: a FIFO swapped in after a check must not block the host.
                opts.read(true).follow(FollowSymlinks::No).nonblock(true);
                parent
                    .open_with(name, &opts)
                    .map_err(|e| explain_leaf(&parent, name, path, e))?
                    .into_std()
            }
        };
        let m = file.metadata().map_err(|e| io_error(path, e))?;
        if m.is_dir() {
            return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
        }
        if !m.is_file() {
            return Err(Error::at(ErrorKind::Unsupported, path, "not a regular file"));
        }
        let size = m.len();
        if offset >= size || len == 0 {
            return Ok(Vec::new());
        }
        if offset > 0 {
            file.seek(SeekFrom::Start(offset)).map_err(|e| io_error(path, e))?;
        }
        let want = len.min(size - offset).min(MAX_READ_PREALLOC);
        let mut buf = Vec::with_capacity(usize::try_from(want).unwrap_or(0));
        file.take(len).read_to_end(&mut buf).map_err(|e| io_error(path, e))?;
        Ok(buf)
    }

    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        let comps = components(path)?;
        self.check_writable(path)?;
        if comps.is_empty() {
            return Err(Error::at(ErrorKind::NotAFile, path, "cannot write the volume root"));
        }
        let (parent, name) = self.parent_of(path, &comps, true)?;
        let existing = match parent.symlink_metadata(name) {
            Ok(m) => Some(m),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_error(path, e)),
        };
        if let Some(m) = &existing {
            let ft = m.file_type();
            if ft.is_symlink() {
                return Err(Error::at(
                    ErrorKind::InvalidPath,
                    path,
                    format!(
                        "is a symbolic link; {NO_FOLLOW} and does not write through or replace them"
                    ),
                ));
            }
            if ft.is_dir() {
                return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
            }
            if options.create_only {
                return Err(Error::at(ErrorKind::AlreadyExists, path, "file already exists"));
            }
            if !ft.is_file() {
                return Err(Error::at(ErrorKind::Unsupported, path, "not a regular file"));
            }
        }

        let (tmp, mut file) = self.create_temp(&parent, name, path)?;
        let discard = |e: Error| {
            let _ = parent.remove_file(&tmp);
            e
        };
        let written = (|| -> io::Result<Metadata> {
            if let Some(m) = &existing {
                file.set_permissions(m.permissions())?;
            }
            file.write_all(content)?;
            file.sync_all()?;
            file.metadata()
        })();
        drop(file);
        let meta = written.map_err(|e| discard(io_error(path, e)))?;

        if options.create_only {
            // `linkat` fails with EEXIST when the name exists: no window in which a
            // file created concurrently could be replaced.
            match parent.hard_link(&tmp, &parent, name) {
                Ok(()) => {
                    let _ = parent.remove_file(&tmp);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    return Err(discard(Error::at(
                        ErrorKind::AlreadyExists,
                        path,
                        "file already exists",
                    )));
                }
                Err(_) => {
                    // A file system without hard links: check, then rename.
                    if parent.symlink_metadata(name).is_ok() {
                        return Err(discard(Error::at(
                            ErrorKind::AlreadyExists,
                            path,
                            "file already exists",
                        )));
                    }
                    parent.rename(&tmp, &parent, name).map_err(|e| discard(io_error(path, e)))?;
                }
            }
        } else {
            // `renameat` replaces the directory entry: if a link appeared at `name`
            // since the check, the link itself is replaced, never its target.
            parent.rename(&tmp, &parent, name).map_err(|e| discard(io_error(path, e)))?;
        }
        sync_dir(&parent);
        Ok(self.entry(path.to_string(), &meta))
    }

    fn delete(&self, path: &str, recursive: bool) -> Result<()> {
        let comps = components(path)?;
        self.check_writable(path)?;
        if comps.is_empty() {
            if !recursive {
                return Err(Error::at(
                    ErrorKind::Conflict,
                    path,
                    "directory is not empty; pass recursive=true to delete it",
                ));
            }
            // The root itself stays: it is the mount.
            return self.remove_contents(path, Vec::new());
        }
        let (parent, name) = self.parent_of(path, &comps, false)?;
        let m = parent.symlink_metadata(name).map_err(|e| io_error(path, e))?;
        if !m.file_type().is_dir() {
            // Files, links (the link, not its target) and special files.
            return parent.remove_file(name).map_err(|e| io_error(path, e));
        }
        if recursive {
            let all: Vec<OsString> = comps.iter().map(OsString::from).collect();
            self.remove_contents(path, all)?;
        }
        parent.remove_dir(name).map_err(|e| match e.kind() {
            io::ErrorKind::DirectoryNotEmpty => Error::at(
                ErrorKind::Conflict,
                path,
                "directory is not empty; pass recursive=true to delete it",
            ),
            _ => io_error(path, e),
        })
    }

    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        let from_comps = components(from)?;
        let to_comps = components(to)?;
        self.check_writable(from)?;
        if from_comps.is_empty() {
            return Err(Error::at(ErrorKind::InvalidArgument, from, "cannot move the volume root"));
        }
        if to_comps.is_empty() {
            return Err(Error::at(ErrorKind::AlreadyExists, to, "destination is the volume root"));
        }
        let (from_parent, from_name) = self.parent_of(from, &from_comps, false)?;
        let from_meta = from_parent.symlink_metadata(from_name).map_err(|e| io_error(from, e))?;
        if from == to {
            return Ok(());
        }
        if paths::is_within(to, from) {
            return Err(Error::at(
                ErrorKind::InvalidArgument,
                to,
                format!("cannot move '{from}' into itself"),
            ));
        }
        let (to_parent, to_name) = self.parent_of(to, &to_comps, true)?;
        match to_parent.symlink_metadata(to_name) {
            Ok(m) => {
                if !overwrite {
                    return Err(Error::at(
                        ErrorKind::AlreadyExists,
                        to,
                        "destination exists; pass overwrite=true",
                    ));
                }
                if m.file_type().is_symlink() {
                    return Err(Error::at(
                        ErrorKind::InvalidPath,
                        to,
                        format!(
                            "destination is a symbolic link; {NO_FOLLOW} and does not replace them"
                        ),
                    ));
                }
                if m.file_type().is_dir() {
                    return Err(Error::at(
                        ErrorKind::AlreadyExists,
                        to,
                        "destination is a directory",
                    ));
                }
                if from_meta.file_type().is_dir() {
                    return Err(Error::at(ErrorKind::AlreadyExists, to, "destination exists"));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(to, e)),
        }
        if !overwrite && rename_noreplace(&from_parent, from_name, &to_parent, to_name, to)? {
            sync_dir(&to_parent);
            return Ok(());
        }
        from_parent.rename(from_name, &to_parent, to_name).map_err(|e| io_error(to, e))?;
        sync_dir(&to_parent);
        Ok(())
    }
}

/// The fast path of path resolution (Linux ≥ 5.6): opens `comps` beneath `root` in
/// one `openat2` call with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
/// RESOLVE_NO_MAGICLINKS` and `O_NOFOLLOW`, so the kernel refuses any link on the way,
/// the last component included, and any escape from `root`: the same rule as the
/// component-wise walk in `descend`, applied atomically by the kernel.
///
/// Only success is used. Any failure (an old kernel's `ENOSYS`, a seccomp `EPERM`, a
/// link, a missing entry, `EAGAIN` from a concurrent rename) returns `None` and the
/// caller takes the component-wise path, which is authoritative and produces the
/// detailed error; so this path can make a resolution faster, never looser. It turns
/// the `2 × depth + 1` system calls of a read into one, which is what a grep over a
/// deep tree pays per file.
#[cfg(target_os = "linux")]
fn open_beneath<C: AsRef<OsStr>>(
    root: &Dir,
    comps: &[C],
    directory: bool,
) -> Option<std::fs::File> {
    use rustix::fs::{Mode, OFlags, ResolveFlags, openat2};
    let mut rel = OsString::new();
    for (i, c) in comps.iter().enumerate() {
        if i > 0 {
            rel.push("/");
        }
        rel.push(c.as_ref());
    }
    let mut flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    // O_NONBLOCK: a FIFO must not block the host (it is then refused as not a file).
    flags |= if directory { OFlags::DIRECTORY } else { OFlags::NONBLOCK };
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
    openat2(root, rel.as_os_str(), flags, Mode::empty(), resolve).ok().map(std::fs::File::from)
}

/// `renameat2(RENAME_NOREPLACE)`: the kernel refuses an existing destination, so a file
/// created at `to` after `rename` checked it is never replaced. `Ok(false)` when the
/// file system or kernel lacks the flag (the caller then renames plainly, keeping the
/// check-then-rename behaviour).
#[cfg(target_os = "linux")]
fn rename_noreplace(
    from_parent: &Dir,
    from_name: &str,
    to_parent: &Dir,
    to_name: &str,
    to: &str,
) -> Result<bool> {
    use rustix::fs::{RenameFlags, renameat_with};
    use rustix::io::Errno;
    match renameat_with(from_parent, from_name, to_parent, to_name, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(true),
        Err(Errno::EXIST) => Err(Error::at(
            ErrorKind::AlreadyExists,
            to,
            "destination appeared while moving; pass overwrite=true",
        )),
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => Ok(false),
        Err(e) => Err(io_error(to, e.into())),
    }
}

/// Elsewhere the check before the rename is all there is.
#[cfg(not(target_os = "linux"))]
fn rename_noreplace(_: &Dir, _: &str, _: &Dir, _: &str, _: &str) -> Result<bool> {
    Ok(false)
}

/// Elsewhere only the component-wise path exists.
#[cfg(not(target_os = "linux"))]
fn open_beneath<C: AsRef<OsStr>>(_: &Dir, _: &[C], _: bool) -> Option<std::fs::File> {
    None
}

/// Splits a volume path into its components, refusing anything that is not an
/// absolute, normalised, addressable path (defence in depth: the guest normalises
/// first, but a host may call the volume directly).
fn components(path: &str) -> Result<Vec<&str>> {
    let invalid =
        |msg: String| Error::at(ErrorKind::InvalidPath, path.escape_debug().to_string(), msg);
    if path.len() > MAX_PATH_BYTES {
        let head: String = path.chars().take(60).collect();
        return Err(Error::new(
            ErrorKind::InvalidPath,
            format!(
                "path is {} bytes long; the limit is {MAX_PATH_BYTES} bytes (starts with {head:?})",
                path.len()
            ),
        ));
    }
    if let Some(c) = path.chars().find(|c| c.is_control()) {
        return Err(invalid(format!("path contains the control character {c:?}")));
    }
    if path.contains('\\') {
        return Err(invalid("path contains a backslash".into()));
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err(invalid("volume paths must be absolute (start with '/')".into()));
    };
    if rest.is_empty() {
        return Ok(Vec::new());
    }
    let comps: Vec<&str> = rest.split('/').collect();
    for c in &comps {
        match *c {
            "" => {
                return Err(invalid("empty path component (repeated or trailing '/')".into()));
            }
            "." | ".." => {
                return Err(invalid(format!(
                    "'{c}' components are not allowed; paths must be normalised"
                )));
            }
            c if c.len() > MAX_COMPONENT_BYTES => {
                return Err(invalid(format!(
                    "a component is {} bytes long; the limit is {MAX_COMPONENT_BYTES} bytes",
                    c.len()
                )));
            }
            _ => {}
        }
    }
    Ok(comps)
}

/// The name as a volume path component, or `None` when an agent could not address
/// it (not UTF-8, control characters, backslash, too long) or it is a temporary file
/// of an in-flight write.
fn addressable_name(name: &OsStr) -> Option<&str> {
    let s = name.to_str()?;
    let ok = !s.is_empty()
        && s != "."
        && s != ".."
        && s.len() <= MAX_COMPONENT_BYTES
        && !s.contains(['/', '\\'])
        && !s.chars().any(char::is_control)
        && !is_temp_name(s);
    ok.then_some(s)
}

/// Whether `name` has the shape of a temporary file made by [`DirVolume`]'s writes.
fn is_temp_name(name: &str) -> bool {
    name.starts_with('.')
        && name.rsplit_once(TEMP_MARKER).is_some_and(|(_, suffix)| {
            suffix.len() == TEMP_SUFFIX_LEN && suffix.bytes().all(|b| b.is_ascii_hexdigit())
        })
}

/// `.{name prefix}.filestore-tmp-{16 hex}`: unique enough to make collisions rare,
/// and `O_EXCL` makes them harmless.
fn temp_name(name: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    let mut cut = name.len().min(TEMP_NAME_PREFIX_BYTES);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(".{}{TEMP_MARKER}{:016x}", &name[..cut], h.finish())
}

/// `dir/name` for volume paths.
fn join(dir: &str, name: &str) -> String {
    if dir == "/" { format!("/{name}") } else { format!("{dir}/{name}") }
}

/// Best-effort `fsync` of a directory, so a rename survives a crash.
fn sync_dir(dir: &Dir) {
    let mut opts = OpenOptions::new();
    opts.read(true).maybe_dir(true).follow(FollowSymlinks::No);
    if let Ok(d) = dir.open_with(".", &opts) {
        let _ = d.sync_all();
    }
}

/// Explains why the directory component `name` (shown as `shown`) of `path` could
/// not be opened, by looking at it without following it.
fn explain_component(
    base: &Dir,
    name: &OsStr,
    shown: &str,
    path: &str,
    err: io::Error,
    create: bool,
    target: bool,
) -> Error {
    match base.symlink_metadata(name) {
        Ok(m) if m.file_type().is_symlink() => {
            let what = if shown == path {
                "is a symbolic link".to_string()
            } else {
                format!("'{shown}' is a symbolic link")
            };
            Error::at(ErrorKind::InvalidPath, path, format!("{what}; {NO_FOLLOW}"))
        }
        Ok(m) if !m.is_dir() => {
            if target {
                Error::at(ErrorKind::NotADirectory, path, "not a directory")
            } else if create {
                Error::at(
                    ErrorKind::NotADirectory,
                    path,
                    format!("parent '{shown}' is not a directory"),
                )
            } else {
                Error::at(
                    ErrorKind::NotFound,
                    path,
                    format!("no such file or directory ('{shown}' is not a directory)"),
                )
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Error::not_found(path),
        _ => io_error(path, err),
    }
}

/// Explains why the last component `name` of `path` could not be opened as a file.
fn explain_leaf(parent: &Dir, name: &str, path: &str, err: io::Error) -> Error {
    match parent.symlink_metadata(name) {
        Ok(m) if m.file_type().is_symlink() => {
            Error::at(ErrorKind::InvalidPath, path, format!("is a symbolic link; {NO_FOLLOW}"))
        }
        Ok(m) if m.is_dir() => Error::at(ErrorKind::NotAFile, path, "is a directory"),
        Ok(m) if !m.is_file() => Error::at(ErrorKind::Unsupported, path, "not a regular file"),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Error::not_found(path),
        _ => io_error(path, err),
    }
}

/// Maps an I/O error to a filestore error about `path`. Messages never carry host
/// paths (std and cap-std errors do not).
fn io_error(path: &str, e: io::Error) -> Error {
    use io::ErrorKind as K;
    if ELOOP.is_some() && e.raw_os_error() == ELOOP {
        return Error::at(
            ErrorKind::InvalidPath,
            path,
            format!("a symbolic link is in the way; {NO_FOLLOW}"),
        );
    }
    let (kind, message) = match e.kind() {
        K::NotFound => return Error::not_found(path),
        K::AlreadyExists => (ErrorKind::AlreadyExists, "already exists".to_string()),
        K::NotADirectory => (ErrorKind::NotADirectory, "not a directory".to_string()),
        K::IsADirectory => (ErrorKind::NotAFile, "is a directory".to_string()),
        K::DirectoryNotEmpty => (
            ErrorKind::Conflict,
            "directory is not empty; pass recursive=true to delete it".to_string(),
        ),
        K::ReadOnlyFilesystem => {
            (ErrorKind::ReadOnly, "the underlying file system is read-only".to_string())
        }
        K::InvalidFilename => {
            (ErrorKind::InvalidPath, "file name is invalid or too long".to_string())
        }
        K::CrossesDevices => {
            (ErrorKind::Unsupported, "cannot move across file systems".to_string())
        }
        K::PermissionDenied => (ErrorKind::Backend, "permission denied".to_string()),
        K::StorageFull | K::QuotaExceeded => {
            (ErrorKind::Backend, "no space left on the device".to_string())
        }
        _ => (ErrorKind::Backend, e.to_string()),
    };
    Error::at(kind, path, message)
}

#[cfg(test)]
mod tests {
    //! Hostile cases (a table run against a real directory, each asserting the error
    //! kind and that nothing outside the root was read, created or changed) and
    //! functional tests of every operation.

    use super::*;
    use std::os::unix::fs::symlink;
    use std::sync::Arc;
    use tempfile::TempDir;

    use super::super::hostile_tree::{EVIL_SECRET, SECRET, SECRET_X, snapshot};

    fn temp_files(dir: &Path) -> Vec<PathBuf> {
        super::super::hostile_tree::temp_files(dir, TEMP_MARKER)
    }
    /// Names that exist only outside the root: no listing may ever report them.
    const OUTSIDE_NAMES: [&str; 4] = ["secret.txt", "deep.txt", "evil_secret.txt", "hostname"];

    /// A temp dir holding `root/` (the volume), a `root_evil/` sibling sharing the
    /// root's prefix, and `outside/`, with links from the root to all of them.
    struct Fx {
        _tmp: TempDir,
        top: PathBuf,
        root: PathBuf,
        outside: PathBuf,
        vol: DirVolume,
    }

    fn fixture() -> Fx {
        fixture_with(false)
    }

    fn fixture_with(read_only: bool) -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().to_path_buf();
        let (root, outside) = super::super::hostile_tree::build(&top);
        let vol = DirVolume::open(&root, read_only).unwrap();
        Fx { _tmp: tmp, top, root, outside, vol }
    }

    #[derive(Debug)]
    enum Out {
        Unit,
        Bytes(Vec<u8>),
        Entry(Entry),
        Entries(Vec<Entry>),
    }

    impl Out {
        fn entries(&self) -> Vec<&Entry> {
            match self {
                Out::Entry(e) => vec![e],
                Out::Entries(v) => v.iter().collect(),
                _ => Vec::new(),
            }
        }
    }

    type Run = Box<dyn Fn(&Fx) -> Result<Out>>;
    type Post = Box<dyn Fn(&Fx, &Out)>;

    struct Case {
        name: &'static str,
        run: Run,
        /// `None`: must succeed.
        expect: Option<ErrorKind>,
        post: Option<Post>,
    }

    fn stat(p: impl Into<String>) -> Run {
        let p = p.into();
        Box::new(move |fx| fx.vol.stat(&p).map(Out::Entry))
    }
    fn list(p: impl Into<String>) -> Run {
        let p = p.into();
        Box::new(move |fx| fx.vol.list(&p).map(Out::Entries))
    }
    fn walk(p: impl Into<String>) -> Run {
        let p = p.into();
        Box::new(move |fx| fx.vol.walk(&p, 10_000).map(|w| Out::Entries(w.entries)))
    }
    fn read(p: impl Into<String>) -> Run {
        let p = p.into();
        Box::new(move |fx| fx.vol.read(&p, 0, 1 << 20).map(Out::Bytes))
    }
    fn write(p: impl Into<String>) -> Run {
        let p = p.into();
        Box::new(move |fx| fx.vol.write(&p, b"PWNED", &WriteOptions::default()).map(Out::Entry))
    }
    fn create(p: impl Into<String>) -> Run {
        let p = p.into();
        let o = WriteOptions { create_only: true, ..Default::default() };
        Box::new(move |fx| fx.vol.write(&p, b"PWNED", &o).map(Out::Entry))
    }
    fn delete(p: impl Into<String>, recursive: bool) -> Run {
        let p = p.into();
        Box::new(move |fx| fx.vol.delete(&p, recursive).map(|()| Out::Unit))
    }
    fn rename(from: impl Into<String>, to: impl Into<String>, overwrite: bool) -> Run {
        let (from, to) = (from.into(), to.into());
        Box::new(move |fx| fx.vol.rename(&from, &to, overwrite).map(|()| Out::Unit))
    }

    /// Replaces `root/d` by a link to `outside/` (which holds `x.txt`), after `first`
    /// succeeded on `/d`: the "directory swapped between two calls" attack.
    fn swapped(first: Run, then: Run) -> Run {
        Box::new(move |fx| {
            first(fx).expect("first call, before the swap");
            std::fs::remove_dir_all(fx.root.join("d")).unwrap();
            symlink(&fx.outside, fx.root.join("d")).unwrap();
            then(fx)
        })
    }

    fn ok(name: &'static str, run: Run) -> Case {
        Case { name, run, expect: None, post: None }
    }
    fn with_post(mut c: Case, post: impl Fn(&Fx, &Out) + 'static) -> Case {
        c.post = Some(Box::new(post));
        c
    }

    fn is_link(fx: &Fx, name: &str) -> bool {
        std::fs::symlink_metadata(fx.root.join(name)).is_ok_and(|m| m.file_type().is_symlink())
    }

    /// One row per case: `"name" => ExpectedErrorKind (or Ok): operation`.
    macro_rules! hostile {
        ($($name:literal => $kind:ident : $run:expr),* $(,)?) => {
            vec![$(Case { name: $name, run: $run, expect: hostile!(@kind $kind), post: None }),*]
        };
        (@kind Ok) => { None };
        (@kind $k:ident) => { Some(ErrorKind::$k) };
    }

    fn hostile_table() -> Vec<Case> {
        let long_path = format!("/{}", "a/".repeat(2500));
        let long_comp = format!("/{}", "x".repeat(300));
        let mut cases = hostile! {
            // 2025 advisory 1: a sibling directory sharing the root's prefix.
            "prefix sibling via .." => InvalidPath: read("/../root_evil/evil_secret.txt"),
            "prefix sibling by concatenation" => InvalidPath: read("_evil/evil_secret.txt"),
            "prefix sibling write by concatenation" => InvalidPath: write("_evil/new.txt"),
            "prefix sibling list by concatenation" => InvalidPath: list("_evil"),
            "prefix sibling via link" => InvalidPath: read("/link_evil/evil_secret.txt"),
            "prefix sibling file link" => InvalidPath: read("/link_evil_rel"),
            // 2025 advisory 2: a symlink pointing outside.
            "absolute file link" => InvalidPath: read("/link_file_abs"),
            "relative file link" => InvalidPath: read("/link_file_rel"),
            "absolute dir link as parent" => InvalidPath: read("/link_out_abs/secret.txt"),
            "relative dir link as parent" => InvalidPath: read("/link_out_rel/secret.txt"),
            "stat through dir link" => InvalidPath: stat("/link_out_abs/secret.txt"),
            "list dir link" => InvalidPath: list("/link_out_abs"),
            "list through dir link" => InvalidPath: list("/link_out_rel/dir"),
            "walk dir link" => InvalidPath: walk("/link_out_abs"),
            "link loop leaf" => InvalidPath: read("/loop_a"),
            "link loop parent" => InvalidPath: read("/loop_a/x"),
            "link chain to outside file" => InvalidPath: read("/chain1"),
            "link chain to outside dir" => InvalidPath: read("/chain_dir1/secret.txt"),
            "link inside the root (never followed)" => InvalidPath: read("/link_in"),
            "dir link inside the root" => InvalidPath: read("/link_in_dir/x.txt"),
            "link to the parent of the root" => InvalidPath: read("/link_parent/outside/secret.txt"),
            "link to the root itself" => InvalidPath: read("/link_self/a.txt"),
            "magic link /proc/self/root" => InvalidPath: read("/magic/etc/hostname"),
            // Writes through links: never followed, never replaced.
            "write dangling absolute leaf" => InvalidPath: write("/dangling"),
            "write dangling relative leaf" => InvalidPath: write("/dangling_rel"),
            "create_only dangling leaf" => InvalidPath: create("/dangling"),
            "write onto file link" => InvalidPath: write("/link_file_abs"),
            "write into dir link" => InvalidPath: write("/link_out_abs/new.txt"),
            "write into relative dir link" => InvalidPath: write("/link_out_rel/dir/new.txt"),
            "write into sibling link" => InvalidPath: write("/link_evil/evil_secret.txt"),
            "write into dangling dir link" => InvalidPath: write("/dangling_dir/x.txt"),
            "write into link loop" => InvalidPath: write("/loop_a/x"),
            "write into self link" => InvalidPath: write("/link_self/new.txt"),
            // Deletes act on links, never on targets.
            "delete dangling link" => Ok: delete("/dangling", false),
            "delete through dir link" => InvalidPath: delete("/link_out_abs/secret.txt", false),
            "delete dir through link" => InvalidPath: delete("/link_out_rel/dir", true),
            // Moves onto and through links.
            "move into dir link" => InvalidPath: rename("/a.txt", "/link_out_abs/a.txt", false),
            "move into inside dir link" => InvalidPath: rename("/a.txt", "/link_in_dir/a.txt", false),
            "move out of dir link" => InvalidPath: rename("/link_out_abs/secret.txt", "/s.txt", false),
            "move onto file link" => InvalidPath: rename("/a.txt", "/link_file_abs", true),
            "move onto dangling link" => InvalidPath: rename("/a.txt", "/dangling", true),
            "move onto link without overwrite" => AlreadyExists: rename("/a.txt", "/dangling", false),
            "move outside via .." => InvalidPath: rename("/a.txt", "/../outside/a.txt", false),
            "move outside via nested .." => InvalidPath: rename("/a.txt", "/d/../../outside/a", false),
            "move to relative-looking name" => InvalidPath: rename("/a.txt", "../outside/a.txt", false),
            "move from relative-looking name" => InvalidPath: rename("../outside/secret.txt", "/s", false),
            // Malformed paths (defence in depth behind the guest normaliser).
            ".. climbing" => InvalidPath: read("/.."),
            "nested .. climbing" => InvalidPath: read("/d/../../outside/secret.txt"),
            "dot component" => InvalidPath: read("/./a.txt"),
            "NUL byte" => InvalidPath: read("/a.txt\0/../../outside/secret.txt"),
            "control character" => InvalidPath: read("/a\u{1}b"),
            "newline on write" => InvalidPath: write("/new\nline"),
            "backslash separators" => InvalidPath: read("/d\\..\\..\\outside\\secret.txt"),
            "5000-byte path read" => InvalidPath: read(long_path.clone()),
            "5000-byte path write" => InvalidPath: write(long_path),
            "300-byte component" => InvalidPath: write(long_comp),
            "no leading slash" => InvalidPath: read("a.txt"),
            "empty path" => InvalidPath: read(""),
            "repeated slash" => InvalidPath: read("//a.txt"),
            "trailing slash on link" => InvalidPath: list("/link_out_abs/"),
            "percent-encoded .. is a plain name" => NotFound: read("/%2e%2e/outside/secret.txt"),
            "lookalike slash is a plain name" => NotFound: read("/link_out_abs\u{2215}secret.txt"),
            // A directory swapped for a link between two calls.
            "swap: stat then read" => InvalidPath: swapped(stat("/d"), read("/d/x.txt")),
            "swap: read then write" => InvalidPath: swapped(read("/d/x.txt"), write("/d/x.txt")),
            "swap: list then list" => InvalidPath: swapped(list("/d"), list("/d")),
            "swap: walk then walk" => InvalidPath: swapped(walk("/d"), walk("/d")),
            "swap: stat then delete" => InvalidPath: swapped(stat("/d/x.txt"), delete("/d/x.txt", false)),
            "swap: stat then move out" => InvalidPath: swapped(stat("/d/x.txt"), rename("/d/x.txt", "/x", false)),
            // Listings never report what lies beyond a link.
            "list never crosses a link" => Ok: list("/"),
            "walk a directory holding a link" => Ok: walk("/linkdir"),
            "walk through a link" => InvalidPath: walk("/link_in_dir"),
        };
        // Cases with a check of their own after the common ones.
        cases.extend([
            with_post(ok("stat a link reports the link", stat("/link_file_abs")), |_, out| {
                let e = out.entries()[0];
                assert_eq!((e.entry_type.as_str(), e.size), (TYPE_SYMLINK, 0));
            }),
            with_post(ok("delete file link", delete("/link_file_abs", false)), |fx, _| {
                assert!(!is_link(fx, "link_file_abs"));
            }),
            with_post(ok("delete dir link recursively", delete("/link_out_abs", true)), |fx, _| {
                assert!(!is_link(fx, "link_out_abs"));
            }),
            with_post(
                ok("recursive delete containing links", delete("/linkdir", true)),
                |fx, _| {
                    assert!(!fx.root.join("linkdir").exists());
                },
            ),
            with_post(ok("recursive delete of the root", delete("/", true)), |fx, _| {
                assert_eq!(std::fs::read_dir(&fx.root).unwrap().count(), 0);
            }),
            with_post(ok("move a file link", rename("/link_file_abs", "/d/l", false)), |fx, _| {
                assert!(is_link(fx, "d/l"));
                let e = fx.vol.read("/d/l", 0, 100).unwrap_err();
                assert_eq!(e.kind(), ErrorKind::InvalidPath);
            }),
            with_post(ok("move a dir link", rename("/link_out_rel", "/d/out", false)), |fx, _| {
                assert!(is_link(fx, "d/out"));
            }),
            with_post(
                ok("swap: delete removes the link", swapped(stat("/d"), delete("/d", true))),
                |fx, _| {
                    assert!(std::fs::symlink_metadata(fx.root.join("d")).is_err());
                },
            ),
            with_post(ok("walk never crosses a link", walk("/")), |_, out| {
                let links: Vec<&str> = out
                    .entries()
                    .into_iter()
                    .filter(|e| e.entry_type == TYPE_SYMLINK)
                    .map(|e| e.path.as_str())
                    .collect();
                for l in ["/link_out_abs", "/linkdir/out", "/link_self", "/loop_a", "/magic"] {
                    assert!(links.contains(&l), "{l} not reported as a link");
                }
            }),
        ]);
        cases
    }

    #[test]
    fn hostile_cases() {
        let cases = hostile_table();
        assert!(cases.len() >= 40, "only {} hostile cases", cases.len());
        for c in cases {
            let fx = fixture();
            let before = snapshot(&fx.top, &fx.root);
            let got = (c.run)(&fx);
            let after = snapshot(&fx.top, &fx.root);
            assert_eq!(before, after, "{}: something outside the root changed", c.name);
            match (&got, c.expect) {
                (Ok(_), None) => {}
                (Err(e), Some(k)) => {
                    assert_eq!(e.kind(), k, "{}: wrong error {e}", c.name);
                    let text = e.to_string();
                    assert!(
                        !text.contains(fx.top.to_str().unwrap()),
                        "{}: host path in {text}",
                        c.name
                    );
                }
                (got, want) => panic!("{}: expected {want:?}, got {got:?}", c.name),
            }
            if let Ok(out) = &got {
                if let Out::Bytes(b) = out {
                    let s = String::from_utf8_lossy(b);
                    assert!(
                        !s.contains(SECRET) && !s.contains(EVIL_SECRET) && !s.contains(SECRET_X),
                        "{}: read outside data",
                        c.name
                    );
                }
                for e in out.entries() {
                    assert!(
                        !e.path.split('/').any(|n| OUTSIDE_NAMES.contains(&n)),
                        "{}: reported {} beyond a link",
                        c.name,
                        e.path
                    );
                    if e.entry_type == TYPE_SYMLINK {
                        assert_eq!(e.size, 0, "{}: link size leaks its target", c.name);
                    }
                }
                if let Some(post) = &c.post {
                    post(&fx, out);
                }
            }
            assert!(temp_files(&fx.root).is_empty(), "{}: temporary file left", c.name);
        }
    }

    fn opts() -> WriteOptions {
        WriteOptions::default()
    }

    fn names(v: &[Entry]) -> Vec<&str> {
        v.iter().map(|e| e.path.as_str()).collect()
    }

    fn plain() -> (TempDir, DirVolume) {
        let tmp = tempfile::tempdir().unwrap();
        let vol = DirVolume::open(tmp.path(), false).unwrap();
        (tmp, vol)
    }

    #[test]
    fn open_checks_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("missing");
        let e = DirVolume::open(&missing, false).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert!(e.to_string().contains("missing"));
        std::fs::write(tmp.path().join("f"), "x").unwrap();
        let e = DirVolume::open(tmp.path().join("f"), false).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotADirectory);
        let v = DirVolume::open(tmp.path(), true).unwrap();
        assert_eq!(v.root(), tmp.path());
        assert!(v.is_read_only());
        // Shareable as the host shares volumes.
        let _shared: crate::volumes::SharedVolume = Arc::new(v);
    }

    #[test]
    fn write_read_stat() {
        let (tmp, v) = plain();
        let e = v.write("/a/b/c.txt", b"hello world", &opts()).unwrap();
        assert_eq!((e.path.as_str(), e.size, e.kind), ("/a/b/c.txt", 11, EntryKind::File));
        assert!(e.modified_ms.is_some_and(|ms| ms > 1_600_000_000_000));
        assert_eq!(std::fs::read(tmp.path().join("a/b/c.txt")).unwrap(), b"hello world");
        assert_eq!(v.read("/a/b/c.txt", 0, 100).unwrap(), b"hello world");
        assert!(v.stat("/a/b").unwrap().is_dir());
        assert!(v.stat("/").unwrap().is_dir());
        assert_eq!(v.stat("/a/b/c.txt").unwrap().size, 11);
        assert_eq!(v.stat("/nope").unwrap_err().kind(), ErrorKind::NotFound);
        assert_eq!(v.stat("/a/b/c.txt/x").unwrap_err().kind(), ErrorKind::NotFound);
        // Overwrite replaces the whole content.
        v.write("/a/b/c.txt", b"hi", &opts()).unwrap();
        assert_eq!(v.read("/a/b/c.txt", 0, 100).unwrap(), b"hi");
        assert_eq!(v.write("/", b"x", &opts()).unwrap_err().kind(), ErrorKind::NotAFile);
        assert_eq!(v.write("/a", b"x", &opts()).unwrap_err().kind(), ErrorKind::NotAFile);
        assert!(temp_files(tmp.path()).is_empty());
    }

    #[test]
    fn read_ranges() {
        let (_tmp, v) = plain();
        v.write("/f", b"0123456789", &opts()).unwrap();
        assert_eq!(v.read("/f", 2, 3).unwrap(), b"234");
        assert_eq!(v.read("/f", 8, 100).unwrap(), b"89");
        assert_eq!(v.read("/f", 10, 5).unwrap(), b"");
        assert_eq!(v.read("/f", u64::MAX, u64::MAX).unwrap(), b"");
        assert_eq!(v.read("/f", 0, 0).unwrap(), b"");
        assert_eq!(v.read("/f", 0, u64::MAX).unwrap(), b"0123456789");
        // A range deep inside a larger file.
        let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        v.write("/big", &big, &opts()).unwrap();
        assert_eq!(v.read("/big", 2_000_000, 7).unwrap(), &big[2_000_000..2_000_007]);
        assert_eq!(v.read("/", 0, 1).unwrap_err().kind(), ErrorKind::NotAFile);
        v.write("/d/x", b"x", &opts()).unwrap();
        assert_eq!(v.read("/d", 0, 1).unwrap_err().kind(), ErrorKind::NotAFile);
        assert_eq!(v.read("/missing", 0, 1).unwrap_err().kind(), ErrorKind::NotFound);
    }

    #[test]
    fn create_only_and_atomic_failures() {
        let (tmp, v) = plain();
        let co = WriteOptions { create_only: true, ..Default::default() };
        v.write("/f.txt", b"old", &co).unwrap();
        let e = v.write("/f.txt", b"new", &co).unwrap_err();
        assert_eq!((e.kind(), e.path()), (ErrorKind::AlreadyExists, Some("/f.txt")));
        assert_eq!(v.read("/f.txt", 0, 10).unwrap(), b"old");
        // A write whose parent is a file fails and changes nothing.
        let e = v.write("/f.txt/child", b"x", &opts()).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotADirectory);
        assert_eq!(v.read("/f.txt", 0, 10).unwrap(), b"old");
        assert!(temp_files(tmp.path()).is_empty());
        // Permission bits survive an overwrite.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path().join("f.txt"), std::fs::Permissions::from_mode(0o640))
            .unwrap();
        v.write("/f.txt", b"newer", &opts()).unwrap();
        let mode = std::fs::metadata(tmp.path().join("f.txt")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        assert_eq!(v.read("/f.txt", 0, 10).unwrap(), b"newer");
    }

    #[test]
    fn concurrent_writers_never_expose_partial_files() {
        let (tmp, v) = plain();
        let v = Arc::new(v);
        v.write("/f", &[b'a'; 100_000], &opts()).unwrap();
        let writers: Vec<_> = (0..4u8)
            .map(|i| {
                let v = Arc::clone(&v);
                std::thread::spawn(move || {
                    for _ in 0..10 {
                        v.write("/f", &vec![b'b' + i; 100_000], &opts()).unwrap();
                    }
                })
            })
            .collect();
        for _ in 0..50 {
            let got = v.read("/f", 0, u64::MAX).unwrap();
            assert_eq!(got.len(), 100_000);
            assert!(got.iter().all(|&b| b == got[0]), "a read saw a mixed file");
        }
        for w in writers {
            w.join().unwrap();
        }
        assert!(temp_files(tmp.path()).is_empty());
    }

    #[test]
    fn list_and_walk() {
        let (tmp, v) = plain();
        for p in ["/b.txt", "/a/1.txt", "/a/2.txt", "/a/z/deep.txt", "/c/e.txt"] {
            v.write(p, b"x", &opts()).unwrap();
        }
        std::fs::create_dir(tmp.path().join("empty")).unwrap();
        // Not addressable or in-flight: hidden.
        std::fs::write(tmp.path().join(".b.txt.filestore-tmp-0123456789abcdef"), "tmp").unwrap();
        std::fs::write(tmp.path().join("bad\nname"), "x").unwrap();
        std::fs::write(tmp.path().join("back\\slash"), "x").unwrap();
        let l = v.list("/").unwrap();
        assert_eq!(names(&l), vec!["/a", "/b.txt", "/c", "/empty"]);
        assert!(l[0].is_dir() && !l[1].is_dir());
        assert_eq!(l[1].size, 1);
        assert_eq!(names(&v.list("/a").unwrap()), vec!["/a/1.txt", "/a/2.txt", "/a/z"]);
        assert_eq!(v.list("/b.txt").unwrap_err().kind(), ErrorKind::NotADirectory);
        assert_eq!(v.list("/nope").unwrap_err().kind(), ErrorKind::NotFound);
        let w = v.walk("/", 100).unwrap();
        assert!(!w.truncated);
        assert_eq!(
            names(&w.entries),
            vec![
                "/a",
                "/b.txt",
                "/c",
                "/empty",
                "/a/1.txt",
                "/a/2.txt",
                "/a/z",
                "/a/z/deep.txt",
                "/c/e.txt"
            ]
        );
        let w = v.walk("/a", 100).unwrap();
        assert_eq!(names(&w.entries), vec!["/a/1.txt", "/a/2.txt", "/a/z", "/a/z/deep.txt"]);
        let w = v.walk("/", 3).unwrap();
        assert!(w.truncated);
        assert_eq!(w.entries.len(), 3);
        assert!(!v.walk("/", 9).unwrap().truncated);
        assert!(v.walk("/", 8).unwrap().truncated);
        assert_eq!(v.walk("/b.txt", 10).unwrap_err().kind(), ErrorKind::NotADirectory);
        assert_eq!(v.walk("/nope", 10).unwrap_err().kind(), ErrorKind::NotFound);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn openat2_fast_path_opens_only_link_free_paths_beneath_the_root() {
        let (tmp, v) = plain();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/f.txt"), "inside").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "outside").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("a/out")).unwrap();
        std::os::unix::fs::symlink("b", root.join("a/in")).unwrap();
        std::os::unix::fs::symlink("b/f.txt", root.join("a/leaf")).unwrap();
        std::os::unix::fs::symlink("/proc/self/root", root.join("magic")).unwrap();
        let Some(mut f) = open_beneath(&v.dir, &["a", "b", "f.txt"], false) else {
            eprintln!("openat2 is not available here: only the component-wise path runs");
            return;
        };
        let mut text = String::new();
        f.read_to_string(&mut text).unwrap();
        assert_eq!(text, "inside");
        assert!(open_beneath(&v.dir, &["a", "b"], true).is_some());
        // Every link, wherever it points, makes the fast path give up (the slow path
        // then refuses with its detailed error).
        for comps in [
            &["a", "out", "secret"][..],
            &["a", "in", "f.txt"],
            &["a", "leaf"],
            &["magic", "etc", "passwd"],
            &["a", "out"],
        ] {
            assert!(open_beneath(&v.dir, comps, false).is_none(), "{comps:?}");
            assert!(open_beneath(&v.dir, comps, true).is_none(), "{comps:?}");
        }
        assert!(open_beneath(&v.dir, &["a", "b", "f.txt"], true).is_none(), "not a directory");
        assert!(open_beneath(&v.dir, &["a", "nope"], false).is_none());
        assert_eq!(v.read("/a/out/secret", 0, 100).unwrap_err().kind(), ErrorKind::InvalidPath);
        assert_eq!(v.read("/a/b/f.txt", 2, 3).unwrap(), b"sid");
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn rename_without_overwrite_never_replaces_a_late_destination() {
        let (tmp, v) = plain();
        std::fs::write(tmp.path().join("a"), "a").unwrap();
        std::fs::write(tmp.path().join("b"), "b").unwrap();
        let dir = &v.dir;
        // As if `b` appeared after `rename` checked it: the kernel refuses.
        let e = rename_noreplace(dir, "a", dir, "b", "/b").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::AlreadyExists);
        assert!(e.to_string().contains("overwrite=true"), "{e}");
        assert_eq!(std::fs::read_to_string(tmp.path().join("b")).unwrap(), "b");
        assert_eq!(std::fs::read_to_string(tmp.path().join("a")).unwrap(), "a");
        // Where the destination is free it moves (or reports no support, never fails).
        if rename_noreplace(dir, "a", dir, "c", "/c").unwrap() {
            assert_eq!(std::fs::read_to_string(tmp.path().join("c")).unwrap(), "a");
        }
    }

    #[test]
    fn special_files_are_listed_not_opened() {
        let (tmp, v) = plain();
        let _sock = std::os::unix::net::UnixListener::bind(tmp.path().join("sock")).unwrap();
        let e = v.stat("/sock").unwrap();
        assert_eq!((e.entry_type.as_str(), e.size), (TYPE_SPECIAL, 0));
        assert_eq!(v.read("/sock", 0, 10).unwrap_err().kind(), ErrorKind::Unsupported);
        assert_eq!(v.write("/sock", b"x", &opts()).unwrap_err().kind(), ErrorKind::Unsupported);
        v.delete("/sock", false).unwrap();
    }

    #[test]
    fn delete_rules() {
        let (tmp, v) = plain();
        v.write("/f", b"x", &opts()).unwrap();
        v.write("/d/e/g", b"x", &opts()).unwrap();
        std::fs::create_dir(tmp.path().join("empty")).unwrap();
        v.delete("/f", false).unwrap();
        assert_eq!(v.stat("/f").unwrap_err().kind(), ErrorKind::NotFound);
        v.delete("/empty", false).unwrap();
        let e = v.delete("/d", false).unwrap_err();
        assert_eq!((e.kind(), e.path()), (ErrorKind::Conflict, Some("/d")));
        assert_eq!(v.delete("/", false).unwrap_err().kind(), ErrorKind::Conflict);
        v.delete("/d", true).unwrap();
        assert_eq!(v.stat("/d").unwrap_err().kind(), ErrorKind::NotFound);
        assert_eq!(v.delete("/d", true).unwrap_err().kind(), ErrorKind::NotFound);
        v.write("/x/y", b"x", &opts()).unwrap();
        v.delete("/", true).unwrap();
        assert!(v.list("/").unwrap().is_empty());
        assert!(tmp.path().is_dir());
    }

    #[test]
    fn rename_rules() {
        let (_tmp, v) = plain();
        v.write("/a.txt", b"A", &opts()).unwrap();
        v.write("/d/b.txt", b"B", &opts()).unwrap();
        v.write("/d/e/c.txt", b"C", &opts()).unwrap();
        v.rename("/d", "/z", false).unwrap();
        assert_eq!(v.read("/z/e/c.txt", 0, 9).unwrap(), b"C");
        let e = v.rename("/a.txt", "/z/b.txt", false).unwrap_err();
        assert_eq!((e.kind(), e.path()), (ErrorKind::AlreadyExists, Some("/z/b.txt")));
        v.rename("/a.txt", "/z/b.txt", true).unwrap();
        assert_eq!(v.read("/z/b.txt", 0, 9).unwrap(), b"A");
        assert_eq!(v.stat("/a.txt").unwrap_err().kind(), ErrorKind::NotFound);
        assert_eq!(v.rename("/z", "/z/q", false).unwrap_err().kind(), ErrorKind::InvalidArgument);
        assert_eq!(v.rename("/missing", "/q", false).unwrap_err().kind(), ErrorKind::NotFound);
        assert_eq!(
            v.rename("/z/b.txt", "/z/e", true).unwrap_err().kind(),
            ErrorKind::AlreadyExists
        );
        v.write("/y", b"Y", &opts()).unwrap();
        assert_eq!(v.rename("/z", "/y", true).unwrap_err().kind(), ErrorKind::AlreadyExists);
        assert_eq!(v.rename("/", "/q", false).unwrap_err().kind(), ErrorKind::InvalidArgument);
        // Destination parents are created; renaming onto itself is a no-op.
        v.rename("/y", "/new/dir/y", false).unwrap();
        assert_eq!(v.read("/new/dir/y", 0, 9).unwrap(), b"Y");
        v.rename("/new/dir/y", "/new/dir/y", false).unwrap();
        assert_eq!(
            v.rename("/new/dir/y", "/z/b.txt/y", false).unwrap_err().kind(),
            ErrorKind::NotADirectory
        );
    }

    #[test]
    fn read_only_volume_refuses_every_mutation() {
        let fx = fixture_with(true);
        let before = snapshot(&fx.top, &fx.top.join("nothing"));
        let v = &fx.vol;
        let cases: Vec<(&str, Result<()>)> = vec![
            ("/a.txt", v.write("/a.txt", b"x", &opts()).map(drop)),
            ("/new.txt", v.write("/new.txt", b"x", &opts()).map(drop)),
            ("/a.txt", v.delete("/a.txt", false)),
            ("/", v.delete("/", true)),
            ("/link_file_abs", v.delete("/link_file_abs", false)),
            ("/a.txt", v.rename("/a.txt", "/b.txt", false)),
        ];
        for (path, r) in cases {
            let e = r.unwrap_err();
            assert_eq!((e.kind(), e.path()), (ErrorKind::ReadOnly, Some(path)));
        }
        assert_eq!(v.read("/a.txt", 0, 10).unwrap(), b"hello");
        assert!(v.list("/").unwrap().iter().all(|e| e.read_only));
        assert_eq!(before, snapshot(&fx.top, &fx.top.join("nothing")));
    }

    #[test]
    fn temp_names_are_recognised_and_bounded() {
        let t = temp_name("file.txt");
        assert!(is_temp_name(&t), "{t}");
        assert!(!is_temp_name("file.txt") && !is_temp_name(".filestore-tmp-xyz"));
        let long = "é".repeat(127); // 254 bytes
        let t = temp_name(&long);
        assert!(t.len() <= MAX_COMPONENT_BYTES && is_temp_name(&t));
        let (_tmp, v) = plain();
        let e = v.write(&format!("/{long}"), b"x", &opts()).unwrap();
        assert_eq!(e.size, 1);
    }
}
