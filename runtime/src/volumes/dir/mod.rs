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
//! file), `append`, `delete` (including recursive deletes) and `rename` (source and
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
//! in-flight writes). An overwritten file keeps its permission bits (not its owner), except
//! setuid, setgid and sticky, which are cleared as `write(2)` clears them: the new
//! inode belongs to the host's user, and must not run the agent's content as that user.
//! No write creates those bits.
//! Permission bits are not read-only flags: as with `mv`, the directory's permissions
//! decide whether a file can be replaced, and only a read-only mount refuses. Entry
//! types, attributes and per-entry read-only flags of [`WriteOptions`] cannot be
//! stored in a plain directory and are ignored, as the trait allows.
//!
//! ## Appends
//!
//! `append` adds bytes in place: the parents are resolved (and created) as for a
//! write, the last component is checked as a write checks it (a link, a directory, a
//! special file refused with the same errors), then opened `O_WRONLY | O_APPEND |
//! O_CREAT | O_NOFOLLOW | O_NONBLOCK` relative to the parent's handle, so a link
//! swapped in after the check is refused (`ELOOP`), never followed. Only the new
//! bytes are written: an append loop costs its bytes, not the file's size per
//! append. A failed write (a full disk, a quota, an I/O error, a short write) is
//! undone by truncating the file back to the length it had when opened, so the old
//! content stays byte for byte (a file the append created is removed again).
//! Concurrent appenders to one file are ordered by the kernel per `write(2)`; one
//! that fails truncates to the length it saw, which can cut bytes another appended
//! meanwhile. A file with more than one hard link is not changed in place: the append
//! is made as a whole write (a new inode; see the hard links below).
//!
//! Appends are not `fsync`ed, as bash's `>>` is not: measured on this machine's
//! disk, 200 appends of a short line take 0.4 ms without and 50 ms with an
//! `fdatasync` each (250 µs per append: the whole cost of an append loop). The old
//! content is never rewritten, so a crash can lose only the bytes of appends the
//! kernel had not yet written back (seconds' worth), never what the file held before;
//! a whole write, which replaces the file by a rename, stays `fsync`ed, since an
//! unsynced rename can leave an empty file after a crash. A caller that needs
//! appended bytes durable writes the file whole.
//!
//! ## What this does not protect against
//!
//! - **Other access by the host process or other local users.** Confinement applies to
//!   paths given to this volume. Anything else with access to the directory can read
//!   or change it, and the volume acts with the host process' own credentials.
//! - **Hard links and mounts placed beneath the root.** A hard link inside the root to
//!   a file outside (created by someone with access to both) is an ordinary file here:
//!   it can be read. A `write` replaces the directory entry, so it never changes the
//!   outside inode (nor does an `append`, made as a write for a file with several
//!   links), but a read returns its content. File systems mounted (or
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

mod ahead;
mod delete;
mod errors;
mod lock;
mod names;
mod read;
mod resolve;
#[cfg(test)]
mod tests;
mod walk;
mod write;

pub use ahead::{AHEAD_BYTES, AHEAD_FILES, AHEAD_IDLE, AHEAD_THREADS, MAX_ACTIVE_READ_AHEADS};
pub use delete::MAX_DELETE_HANDLES;
use errors::{explain_component, io_error};
pub use lock::DirLock;
use names::{join, volume_name};
use resolve::{components, open_beneath, rename_noreplace, sync_dir};
pub use walk::{MAX_WALK_HELPERS, WALK_HELPERS};

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsMaybeDirExt};
use cap_std::fs::{Dir, Metadata, OpenOptions};
use filestore_guest::error::{Error, ErrorKind, Result};
use filestore_guest::vfs::entry::{Entry, EntryKind, TYPE_DIRECTORY};
use filestore_guest::vfs::paths::{MAX_COMPONENT_BYTES, MAX_PATH_BYTES};
use filestore_guest::vfs::volume::{
    PrefetchFile, Volume, VolumeIdentity, Walk, WriteOptions, rename_is_noop,
};

/// Entry type of a symbolic link in listings: reported, never followed, not readable.
pub const TYPE_SYMLINK: &str = "symlink";

/// Entry type of a FIFO, socket or device in listings: reported, never opened for
/// reading (opening a FIFO could block a worker forever, a device could be anything).
pub const TYPE_SPECIAL: &str = "special";

/// Marker in the names of temporary files of in-flight writes:
/// `.{name}.filestore-tmp-{16 hex digits}`. Names of that shape are hidden from
/// listings.
pub const TEMP_MARKER: &str = ".filestore-tmp-";

/// Age after which a temporary file is taken for the leftover of a writer that died
/// (a crash, `kill -9`) and removed when its directory is listed. In-flight writes
/// are far younger: a write is at most the write limit (64 MiB by default), written
/// in one go.
pub const STALE_TEMP_SECS: u64 = 600;

/// The buffer a listing reads directory entries into: a few hundred names per
/// `getdents64` (rustix's own `Dir` starts at a few dozen and grows).
#[cfg(target_os = "linux")]
const LIST_BUFFER_BYTES: usize = 32 * 1024;

/// What an `lstat` says an entry is, as the volume reports it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum StatKind {
    Directory,
    File,
    Symlink,
    /// A FIFO, socket or device.
    Special,
}

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

/// A directory's storage identity: its file system's device, and its real path as
/// one SHA-256-derived token per component, so the component can tell when one
/// volume's root lies at or beneath another's without learning any host path.
///
/// Both come from the open handle `dir` (its device, and on Linux the path the kernel
/// reports for it), not from resolving `shown` again: a directory swapped for a link
/// after it was opened cannot make the identity name another place than the one
/// served. Where the kernel cannot say, `shown` resolved is used.
fn identity_of(dir: &Dir, shown: &Path) -> Option<VolumeIdentity> {
    use sha2::{Digest, Sha256};
    #[cfg(unix)]
    let device = {
        use cap_std::fs::MetadataExt;
        dir.dir_metadata().ok()?.dev()
    };
    #[cfg(not(unix))]
    let device = 0u64;
    let real = match real_path(dir) {
        Some(p) => p,
        None => std::fs::canonicalize(shown).ok()?,
    };
    let root = real
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(n) => {
                let digest = Sha256::digest(n.as_encoded_bytes());
                Some(digest[..8].iter().map(|b| format!("{b:02x}")).collect())
            }
            _ => None,
        })
        .collect();
    Some(VolumeIdentity { storage: format!("dir:{device:x}"), root })
}

/// The path the kernel reports for the open directory `dir` (Linux:
/// `/proc/self/fd/N`); `None` where it cannot say, or when the directory was removed.
pub fn real_path(dir: &Dir) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let link = std::fs::read_link(format!("/proc/self/fd/{}", dir.as_raw_fd())).ok()?;
        let shown = link.to_string_lossy();
        (shown.starts_with('/') && !shown.ends_with(" (deleted)")).then_some(link)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dir;
        None
    }
}

/// A local directory mounted as a volume, confined beneath its root.
///
/// See the [module documentation](self) for the security model and the symlink
/// policy. `DirVolume` is `Send + Sync`: share it as
/// [`SharedVolume`](crate::volumes::SharedVolume).
///
/// ```no_run
/// use filestore_runtime::volumes::dir::DirVolume;
/// use filestore_runtime::volumes::Volume;
/// let vol = DirVolume::open("./project", true).unwrap();
/// let entries = vol.list("/").unwrap();
/// ```
#[derive(Debug)]
pub struct DirVolume {
    root: PathBuf,
    dir: Dir,
    read_only: bool,
    /// The root's device and canonical path, hashed per component (see
    /// [`Volume::identity`]); `None` where the platform cannot tell.
    identity: Option<VolumeIdentity>,
    /// Files grep is about to read, read ahead on host threads (see `ahead`).
    ahead: ahead::ReadAhead,
    /// Whether `prefetch` starts a read-ahead (see [`DirVolume::with_read_ahead`]).
    read_ahead: bool,
    /// A lock this volume holds for as long as it lives (see [`DirVolume::holding`]).
    _held: Option<std::fs::File>,
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
        Ok(DirVolume::from_dir(dir, root, read_only))
    }

    /// A volume over a directory already open: `dir` is the root, whatever `shown`
    /// (the host path it was opened at, for [`DirVolume::root`]) names now. For a
    /// caller that checked where a directory lies and opened it in the same step (MCP
    /// roots within allowed directories, opened beneath them without following
    /// links): nothing is resolved by path again, so a swap after the check cannot
    /// change what is served, nor the identity (see [`Volume::identity`]), which is
    /// taken from the handle.
    pub fn from_dir(dir: Dir, shown: impl AsRef<Path>, read_only: bool) -> DirVolume {
        let root = shown.as_ref();
        let identity = identity_of(&dir, root);
        DirVolume {
            root: root.to_path_buf(),
            dir,
            read_only,
            identity,
            ahead: ahead::ReadAhead::default(),
            read_ahead: true,
            _held: None,
        }
    }

    /// This volume, holding `lock` (an open file with an OS lock on it) until it is
    /// dropped: a copy-on-write upper layer is one session's at a time.
    pub fn holding(mut self, lock: std::fs::File) -> DirVolume {
        self._held = Some(lock);
        self
    }

    /// Turns the read-ahead of the files grep names (`volume.prefetch`, on host
    /// threads) on or off; on by default. Off, every read opens and reads its file
    /// when the component asks, on the calling thread (a host that must not start
    /// threads, or the benchmark's baseline).
    pub fn with_read_ahead(mut self, on: bool) -> DirVolume {
        self.read_ahead = on;
        self
    }

    /// The directory at `path` beneath this volume's root as a volume of its own,
    /// resolved with the same confinement as every other operation (one component at
    /// a time, never through a link); `create` makes missing directories. The state
    /// store (crate::conversation) roots each conversation's volumes this way.
    pub fn sub_volume(&self, path: &str, create: bool, read_only: bool) -> Result<DirVolume> {
        let comps = components(path)?;
        if create {
            self.check_writable(path)?;
        }
        let dir = self.descend(path, &comps, create, true)?;
        let shown = self.root.join(path.trim_start_matches('/'));
        Ok(DirVolume::from_dir(dir, shown, read_only))
    }

    /// Where the kernel says the root directory is now (see [`real_path`]).
    pub fn real_root(&self) -> Option<PathBuf> {
        real_path(&self.dir)
    }

    /// The host path the volume was opened on (as given to [`DirVolume::open`]).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether every mutation is refused with `read-only`.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Refuses a mutation of a read-only volume; otherwise drops the read-ahead, so
    /// no read after this change is served bytes read before it.
    fn check_writable(&self, path: &str) -> Result<()> {
        if self.read_only {
            return Err(Error::at(ErrorKind::ReadOnly, path, "the volume is mounted read-only"));
        }
        self.ahead.clear();
        Ok(())
    }

    fn entry(&self, path: String, m: &Metadata) -> Entry {
        let modified_ms = m
            .modified()
            .ok()
            .and_then(|t| t.into_std().duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let ft = m.file_type();
        let kind = if ft.is_dir() {
            StatKind::Directory
        } else if ft.is_file() {
            StatKind::File
        } else if ft.is_symlink() {
            StatKind::Symlink
        } else {
            StatKind::Special
        };
        self.entry_of(path, kind, m.len(), modified_ms)
    }

    /// The entry of an `lstat` made through rustix (a listing's), as [`Self::entry`]
    /// makes it of cap-std's metadata.
    #[cfg(target_os = "linux")]
    fn entry_of_stat(&self, path: String, st: &rustix::fs::Stat) -> Entry {
        use rustix::fs::FileType;
        let kind = match FileType::from_raw_mode(st.st_mode) {
            FileType::Directory => StatKind::Directory,
            FileType::RegularFile => StatKind::File,
            FileType::Symlink => StatKind::Symlink,
            _ => StatKind::Special,
        };
        // Before 1970 is unknown, as `SystemTime::duration_since(UNIX_EPOCH)` says.
        let modified_ms = u64::try_from(st.st_mtime).ok().map(|secs| {
            // The field is `u64` on some targets, `i64` on others.
            #[allow(clippy::useless_conversion)]
            let nanos = u64::try_from(st.st_mtime_nsec).unwrap_or(0);
            secs.saturating_mul(1000).saturating_add(nanos / 1_000_000)
        });
        self.entry_of(path, kind, u64::try_from(st.st_size).unwrap_or(0), modified_ms)
    }

    fn entry_of(&self, path: String, kind: StatKind, len: u64, modified_ms: Option<u64>) -> Entry {
        let mut e = match kind {
            StatKind::Directory => Entry::directory(path, modified_ms),
            StatKind::File => Entry::file(path, len, modified_ms),
            StatKind::Symlink | StatKind::Special => {
                let mut e = Entry::file(path, 0, modified_ms);
                e.entry_type =
                    if kind == StatKind::Symlink { TYPE_SYMLINK } else { TYPE_SPECIAL }.to_string();
                e
            }
        };
        e.read_only = self.read_only;
        e
    }

    /// A handle of the directory at `path` to list, readable and of its own (its own
    /// open file description), since [`Self::children`] reads its directory stream
    /// from where it stands.
    ///
    /// The `openat2` fast path opens it so (for reading, afresh). Otherwise, on
    /// Linux, the component-wise walk's handle is reopened for reading: cap-std opens
    /// the directories it traverses `O_PATH`, which cannot be read, and the root's
    /// handle is shared (a duplicate would share the stream's position). Reopening
    /// needs the permissions a listing needs, read and search: without them the
    /// listing is refused, "permission denied". Elsewhere cap-std's `entries` reopens
    /// the directory itself.
    fn open_listable(&self, path: &str, comps: &[std::borrow::Cow<'_, OsStr>]) -> Result<Dir> {
        if !comps.is_empty()
            && let Some(f) = open_beneath(&self.dir, comps, true)
        {
            return Ok(Dir::from_std_file(f));
        }
        let walked = if comps.is_empty() {
            None
        } else {
            Some(self.descend_stepwise(path, comps, false, true)?)
        };
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags};
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW;
            rustix::fs::openat(walked.as_ref().unwrap_or(&self.dir), c".", flags, Mode::empty())
                .map(|fd| Dir::from_std_file(std::fs::File::from(fd)))
                .map_err(|e| io_error(path, e.into()))
        }
        #[cfg(not(target_os = "linux"))]
        match walked {
            Some(dir) => Ok(dir),
            None => self.dir.try_clone().map_err(|e| io_error(path, e)),
        }
    }

    /// The addressable children of a directory opened by [`Self::open_listable`],
    /// sorted by name. Entries that vanish meanwhile, or cannot be stat'ed alone,
    /// are skipped; a directory that cannot be searched is refused.
    ///
    /// On Linux the handle's own stream is read (`getdents64` into one buffer) and
    /// each entry `lstat`ed relative to it: cap-std's `entries` reopens the directory
    /// twice (two `openat`s, an `fcntl` and two `close`s per listing, a tenth of a
    /// 40-entry listing's system calls).
    fn children(&self, dir: &Dir, dir_path: &str) -> Result<Vec<Entry>> {
        let mut out = Vec::new();
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{AtFlags, RawDir, statat};
            let mut buf = vec![std::mem::MaybeUninit::<u8>::uninit(); LIST_BUFFER_BYTES];
            let mut raw = RawDir::new(dir, &mut buf);
            while let Some(ent) = raw.next() {
                let ent = ent.map_err(|e| io_error(dir_path, e.into()))?;
                let c_name = ent.file_name();
                let bytes = c_name.to_bytes();
                if bytes == b"." || bytes == b".." {
                    continue;
                }
                let os_name = std::os::unix::ffi::OsStrExt::from_bytes(bytes);
                // `AT_SYMLINK_NOFOLLOW`: a link is reported, not followed.
                let stat = || statat(dir, c_name, AtFlags::SYMLINK_NOFOLLOW);
                let Some(child) = self.child_path(dir, dir_path, os_name, &|| {
                    stat().ok().map(|st| self.entry_of_stat(String::new(), &st))
                }) else {
                    continue;
                };
                match stat() {
                    Ok(st) => out.push(self.entry_of_stat(child, &st)),
                    // A directory that can be read but not searched (no `x`): every
                    // `lstat` in it is refused. Refused as a whole, as opening it for
                    // listing is elsewhere, rather than listed as empty.
                    Err(e @ rustix::io::Errno::ACCESS) => {
                        return Err(io_error(dir_path, e.into()));
                    }
                    // Gone since it was read, or this one entry cannot be stat'ed (a
                    // dead mount point under it, a stale handle): not listed.
                    Err(_) => {}
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        for ent in dir.entries().map_err(|e| io_error(dir_path, e))? {
            let Ok(ent) = ent else { continue };
            let os_name = ent.file_name();
            if let Some(child) = self.child_path(dir, dir_path, &os_name, &|| {
                ent.metadata().ok().map(|m| self.entry(String::new(), &m))
            }) && let Ok(m) = ent.metadata()
            {
                out.push(self.entry(child, &m));
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// The volume path of the entry `os_name` of `dir` when it is one to list: not a
    /// writer's temporary file (removed here once it is old enough: see
    /// [`STALE_TEMP_SECS`]; `stat` gives its entry), a name the volume can show, and a
    /// path within [`MAX_PATH_BYTES`].
    fn child_path(
        &self,
        dir: &Dir,
        dir_path: &str,
        os_name: &OsStr,
        stat: &dyn Fn() -> Option<Entry>,
    ) -> Option<String> {
        if !self.read_only && os_name.to_str().is_some_and(names::is_temp_name) {
            let now_ms = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
            if let Some(e) = stat()
                && e.kind == EntryKind::File
                && e.entry_type == filestore_guest::vfs::entry::TYPE_FILE
                && e.modified_ms.is_some_and(|m| now_ms.saturating_sub(m) >= STALE_TEMP_SECS * 1000)
            {
                let _ = dir.remove_file(os_name);
            }
            return None;
        }
        let name = volume_name(os_name)?;
        let child = join(dir_path, &name);
        (child.len() <= MAX_PATH_BYTES).then_some(child)
    }
}

impl Volume for DirVolume {
    fn identity(&self) -> Option<VolumeIdentity> {
        self.identity.clone()
    }

    fn stat(&self, path: &str) -> Result<Entry> {
        let comps = components(path)?;
        if comps.is_empty() {
            let m = self.dir.dir_metadata().map_err(|e| io_error(path, e))?;
            return Ok(self.entry("/".to_string(), &m));
        }
        let m = if let [name] = &comps[..] {
            // A name in the root: stat'ed through the root's own handle, not a
            // duplicate of it (a `dup` and a `close` saved).
            self.dir.symlink_metadata(name)
        } else {
            let (parent, name) = self.parent_of(path, &comps, false)?;
            parent.symlink_metadata(name)
        };
        Ok(self.entry(path.to_string(), &m.map_err(|e| io_error(path, e))?))
    }

    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        let comps = components(path)?;
        let dir = self.open_listable(path, &comps)?;
        self.children(&dir, path)
    }

    /// Every directory is listed through its own confined open (see `walk`: the
    /// ones beneath the top are listed on a few threads first, then assembled in
    /// the order of a one-thread walk).
    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        let comps = components(path)?;
        let top = self.open_listable(path, &comps)?;
        self.walk_from(top, path, max_entries, walk::helpers_wanted())
    }

    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        self.read_file(path, offset, len)
    }

    /// One confined open for both (see `read.rs`).
    fn stat_read(&self, path: &str, offset: u64, len: u64) -> Result<(Entry, Vec<u8>)> {
        self.stat_read_file(path, offset, len)
    }

    /// Starts reading `files` ahead on host threads (see `ahead`): grep's reads of
    /// them then take bytes already read, through handles opened confined.
    fn prefetch(&self, files: &[PrefetchFile]) {
        if self.read_ahead {
            self.ahead.start(&self.dir, files);
        }
    }

    fn create_dir(&self, path: &str) -> Result<Entry> {
        self.create_dir_at(path)
    }

    /// Atomic: a temporary file renamed into place (see `write.rs`).
    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        self.write_file(path, content, options)
    }

    /// In place, through a handle opened `O_APPEND | O_NOFOLLOW` beneath the
    /// confined parent (see the module docs, "Appends").
    fn append(&self, path: &str, content: &[u8]) -> Result<Entry> {
        self.append_file(path, content)
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
        if rename_is_noop(from, to)? {
            return Ok(());
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
