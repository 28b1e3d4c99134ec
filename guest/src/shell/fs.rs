//! [`MountFs`]: the session's mount table as the interpreter's filesystem.
//!
//! The shell sees exactly what the file tools see, because every operation goes
//! through the same [`MountTable`] and the same operations (`crate::ops::mutate` for
//! deletes and moves, so a `mv` across mounts is the tools' nothing-lost move):
//!
//! - paths are virtual and normalised by [`paths::normalize`] (`..` above `/` is
//!   refused, control characters and backslashes too);
//! - links are never followed: a directory volume lists a link as type `symlink`,
//!   reading it is refused, and the shell cannot create one;
//! - read-only mounts and read-only entries (`/tool_calls`, skills) refuse writes;
//! - every write is one whole-file volume write, atomic as the volume makes it; an
//!   append is the volume's append (only the new bytes), all or nothing;
//! - whole-file reads are bounded by the session's file limit (`file_bytes`): the
//!   interpreter reads files whole, and a 1 GiB log must not be pulled into guest
//!   memory;
//! - three devices, in no mount: `/dev/null` reads empty; `/dev/zero` reads zeros and
//!   `/dev/urandom` (and `/dev/random`) the component's getrandom bytes, a read of
//!   them [`ZERO_READ_BYTES`] and [`RANDOM_READ_BYTES`] at most (a read is whole, so
//!   an endless device is cut, as bashkit's own filesystem cuts it); all three
//!   swallow writes. Other `/dev` paths do not exist.
//!
//! Errors reach the interpreter as `std::io::Error`s carrying bash's wording (`No
//! such file or directory`, `Read-only file system`...), so commands print what bash
//! prints. A write refused by the per-command write budget trips it
//! ([`WriteBudget`]), and the command then ends with `limit-exceeded`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::ErrorKind as IoKind;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use bashkit::{DirEntry, FileSystem, FileSystemExt, FileType, Metadata, async_trait};

use super::limits::WriteBudget;
use crate::error::{Error, ErrorKind, Result};
use crate::ops::mutate;
use crate::vfs::entry::{Entry, TYPE_SYMLINK};
use crate::vfs::limits::Limits;
use crate::vfs::mounts::{MountTable, is_absent};
use crate::vfs::paths;
use crate::vfs::volume::WriteOptions;

/// The device that reads empty.
const DEV_NULL: &str = "/dev/null";

/// Bytes one read of `/dev/zero` yields (less when the session's file limit is
/// smaller). The interpreter reads a file whole into memory, so an endless device is
/// cut: 1 MiB, bashkit's own bound for `/dev/zero`, keeps `head -c 1M /dev/zero`
/// exact, and `cat /dev/zero` ends.
pub(crate) const ZERO_READ_BYTES: u64 = 1024 * 1024;

/// Bytes one read of `/dev/urandom` (or `/dev/random`) yields: enough for keys,
/// tokens and `tr -dc A-Za-z0-9 </dev/urandom | head -c 32`, small enough that these
/// cost milliseconds (bashkit's `tr` takes about a second over a MiB).
pub(crate) const RANDOM_READ_BYTES: u64 = 64 * 1024;

/// The devices: what a read of each yields.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Device {
    /// `/dev/null`: nothing.
    Null,
    /// `/dev/zero`: zeros.
    Zero,
    /// `/dev/urandom`, `/dev/random`: the component's getrandom bytes.
    Random,
}

impl Device {
    fn at(path: &str) -> Option<Device> {
        match path {
            DEV_NULL => Some(Device::Null),
            "/dev/zero" => Some(Device::Zero),
            "/dev/urandom" | "/dev/random" => Some(Device::Random),
            _ => None,
        }
    }

    /// One read, at most `limit` bytes.
    fn read(self, limit: u64) -> Result<Vec<u8>> {
        let len = match self {
            Device::Null => 0,
            Device::Zero => ZERO_READ_BYTES.min(limit),
            Device::Random => RANDOM_READ_BYTES.min(limit),
        };
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        match self {
            Device::Null => Ok(Vec::new()),
            Device::Zero => Ok(vec![0; len]),
            Device::Random => {
                let mut bytes = vec![0; len];
                fill_random(&mut bytes)?;
                Ok(bytes)
            }
        }
    }
}

/// The component's getrandom source (`crate::entropy`), the one the interpreter's
/// `$RANDOM` and `mktemp` draw from.
#[cfg(target_arch = "wasm32")]
fn fill_random(bytes: &mut [u8]) -> Result<()> {
    getrandom::fill(bytes)
        .map_err(|e| Error::new(ErrorKind::Backend, format!("/dev/urandom: no random bytes: {e}")))
}

/// Native builds (the unit tests) have no component source: std's hasher keys.
#[cfg(not(target_arch = "wasm32"))]
fn fill_random(bytes: &mut [u8]) -> Result<()> {
    use std::hash::{BuildHasher, RandomState};
    let state = RandomState::new();
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        let word = state.hash_one(i).to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
    Ok(())
}

/// Permission bits `chmod` set during a session, by virtual path.
///
/// Volumes keep no permission bits (a directory volume's files, an object, a memory
/// file all report `0644`), so without this `chmod +x run.sh && ./run.sh` would be
/// refused with "Permission denied". The session remembers what `chmod` set, for
/// its lifetime and never on the volume: a path keeps its bits through writes (as a
/// file does in bash), follows a shell `mv`, and loses them with a shell `rm`.
#[derive(Debug, Default)]
pub struct Modes(Mutex<BTreeMap<String, u32>>);

impl Modes {
    fn map(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, u32>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn get(&self, path: &str) -> Option<u32> {
        self.map().get(path).copied()
    }

    fn set(&self, path: &str, mode: u32) {
        self.map().insert(path.to_string(), mode & 0o7777);
    }

    /// Every path's bits.
    pub fn entries(&self) -> Vec<(String, u32)> {
        self.map().iter().map(|(p, m)| (p.clone(), *m)).collect()
    }

    /// Replaces every path's bits with `entries`.
    pub fn replace(&self, entries: Vec<(String, u32)>) {
        *self.map() = entries.into_iter().map(|(p, m)| (p, m & 0o7777)).collect();
    }

    /// Forgets `path` and everything beneath it.
    pub(crate) fn forget(&self, path: &str) {
        let beneath = format!("{path}/");
        self.map().retain(|p, _| p != path && !p.starts_with(&beneath));
    }

    /// Moves what is known of `from` (and beneath it) to `to`.
    pub(crate) fn rename(&self, from: &str, to: &str) {
        let beneath = format!("{from}/");
        let mut map = self.map();
        let moved: Vec<(String, u32)> = map
            .iter()
            .filter(|(p, _)| *p == from || p.starts_with(&beneath))
            .map(|(p, m)| (format!("{to}{}", &p[from.len()..]), *m))
            .collect();
        map.retain(|p, _| p != from && !p.starts_with(&beneath));
        let prefix = format!("{to}/");
        map.retain(|p, _| p != to && !p.starts_with(&prefix));
        map.extend(moved);
    }
}

/// The mount table as a bashkit filesystem (see the module docs).
pub(crate) struct MountFs {
    mounts: Arc<MountTable>,
    limits: Limits,
    budget: Arc<WriteBudget>,
    /// `SKILL.md` files read whole by the command (their skills get activated).
    skills_read: Mutex<Vec<String>>,
    /// Directories `mkdir` made on volumes without empty directories (object
    /// storage): they exist for the rest of the command line, so `mkdir -p d && echo
    /// x > d/f` works as in bash, and remain afterwards only if a file was written in.
    pending_dirs: Mutex<BTreeSet<String>>,
    /// The session's `chmod` bits ([`Modes`]).
    modes: Arc<Modes>,
}

impl MountFs {
    pub(crate) fn new(
        mounts: Arc<MountTable>,
        limits: Limits,
        budget: Arc<WriteBudget>,
        modes: Arc<Modes>,
    ) -> Self {
        MountFs {
            mounts,
            limits,
            budget,
            skills_read: Mutex::new(Vec::new()),
            pending_dirs: Mutex::new(BTreeSet::new()),
            modes,
        }
    }

    /// An entry's metadata with the bits `chmod` gave it this session.
    fn metadata(&self, e: &Entry) -> Metadata {
        let mut m = metadata_of(e);
        if let Some(mode) = self.modes.get(&e.path) {
            // A read-only mount stays read-only whatever chmod said.
            m.mode = if e.read_only { mode & !0o222 } else { mode };
        }
        m
    }

    /// The `SKILL.md` paths read, in order, each once.
    pub(crate) fn skills_read(&self) -> Vec<String> {
        self.skills_read.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn note_read(&self, e: &Entry) {
        self.note_read_of(&e.path, &e.entry_type);
    }

    /// Notes a whole read of `path` (of type `entry_type`) made around the
    /// interpreter's filesystem (the shell's `grep` reads the mount table directly).
    pub(crate) fn note_read_of(&self, path: &str, entry_type: &str) {
        if entry_type == crate::skills::skill::TYPE_SKILL {
            let mut v = self.skills_read.lock().unwrap_or_else(|e| e.into_inner());
            if !v.iter().any(|p| p == path) {
                v.push(path.to_string());
            }
        }
    }

    fn read(&self, path: &str) -> Result<Vec<u8>> {
        if let Some(device) = Device::at(path) {
            return device.read(self.limits.file_bytes);
        }
        let (entry, data) = self.mounts.read_all(path, self.limits.file_bytes)?;
        self.note_read(&entry);
        Ok(data)
    }

    /// Whether `path` exists; only "absent" answers are `false`, other failures are
    /// errors.
    fn present(&self, path: &str) -> Result<Option<Entry>> {
        match self.mounts.stat(path) {
            Ok(e) => Ok(Some(e)),
            Err(_) if self.is_pending(path) => Ok(Some(Entry::directory(path, None))),
            Err(e) if is_absent(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.pending_dirs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `mkdir` made a directory the volume does not hold (the shell's
    /// `find` then leaves the walk to bashkit's, which lists them).
    pub(crate) fn has_pending_dirs(&self) -> bool {
        !self.pending().is_empty()
    }

    fn is_pending(&self, path: &str) -> bool {
        self.pending().contains(path)
    }

    /// Records `path` (and, for `-p`, its missing ancestors) as made by this command
    /// on a volume that cannot hold empty directories.
    fn make_pending(&self, path: &str) -> Result<()> {
        let mut missing = vec![path.to_string()];
        let mut at = paths::parent(path);
        while let Some(dir) = at {
            if self.present(dir)?.is_some() {
                break;
            }
            missing.push(dir.to_string());
            at = paths::parent(dir);
        }
        self.pending().extend(missing);
        Ok(())
    }

    /// Refuses a file write whose parent is not a directory, as bash does (`echo x >
    /// nodir/f`); the volumes would create it.
    fn parent_must_exist(&self, path: &str) -> Result<()> {
        let parent = paths::parent(path).unwrap_or("/");
        match self.present(parent)? {
            Some(p) if p.is_dir() => Ok(()),
            Some(_) => Err(Error::at(ErrorKind::NotADirectory, path, "not a directory")),
            None => Err(Error::not_found(path)),
        }
    }

    fn write(&self, path: &str, content: &[u8], charged: u64) -> Result<()> {
        if Device::at(path).is_some() {
            return Ok(());
        }
        if let Some(e) = self.present(path)?
            && e.is_dir()
        {
            return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
        }
        self.parent_must_exist(path)?;
        self.write_checked(path, content, charged)
    }

    /// A write whose path is known to be a file or absent, with an existing parent.
    fn write_checked(&self, path: &str, content: &[u8], charged: u64) -> Result<()> {
        self.check_write_size(path, content.len())?;
        self.budget.charge(path, charged)?;
        self.mounts.write(path, content, &WriteOptions::default()).map(|_| ())
    }

    /// Refuses bytes beyond the session's largest write (`write_bytes`), the bytes one
    /// write or one append hands the volume.
    fn check_write_size(&self, path: &str, bytes: usize) -> Result<()> {
        if bytes as u64 > self.limits.write_bytes {
            return Err(Error::at(
                ErrorKind::TooLarge,
                path,
                format!(
                    "File too large: {bytes} bytes; the write limit is {} bytes",
                    self.limits.write_bytes
                ),
            ));
        }
        Ok(())
    }

    /// An append (`>>`, `tee -a`): the volume's own ([`MountTable::append`]), so only
    /// the new bytes reach it, and the limits count them: the largest write and the
    /// command's written-bytes budget. As for a write, a directory is refused and a
    /// new file needs an existing parent, as in bash.
    fn append(&self, path: &str, content: &[u8]) -> Result<()> {
        if Device::at(path).is_some() {
            return Ok(());
        }
        match self.present(path)? {
            Some(e) if e.is_dir() => {
                return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
            }
            Some(_) => {}
            None => self.parent_must_exist(path)?,
        }
        self.check_write_size(path, content.len())?;
        self.budget.charge(path, content.len() as u64)?;
        self.mounts.append(path, content, self.limits.file_bytes).map(|_| ())
    }

    fn mkdir(&self, path: &str, recursive: bool) -> Result<()> {
        match self.present(path)? {
            Some(e) if e.is_dir() && recursive => return Ok(()),
            Some(_) => return Err(Error::at(ErrorKind::AlreadyExists, path, "File exists")),
            None => {}
        }
        if !recursive {
            self.parent_must_exist(path)?;
        }
        match self.mounts.create_dir(path) {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == ErrorKind::Unsupported => self.make_pending(path),
            Err(e) => Err(e),
        }
    }

    fn remove(&self, path: &str, recursive: bool) -> Result<()> {
        let req = mutate::DeleteRequest { path: path.to_string(), recursive };
        match mutate::delete(&self.mounts, &req) {
            Err(e) if is_absent(&e) && self.is_pending(path) => {
                let beneath = format!("{path}/");
                let mut pending = self.pending();
                if !recursive && pending.iter().any(|d| d.starts_with(&beneath)) {
                    return Err(Error::at(
                        ErrorKind::Conflict,
                        path,
                        "directory is not empty; pass recursive=true",
                    ));
                }
                pending.retain(|d| d != path && !d.starts_with(&beneath));
                self.modes.forget(path);
                Ok(())
            }
            Ok(_) => {
                self.modes.forget(path);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    fn rename(&self, from: &str, to: &str) -> Result<()> {
        if from == to {
            return Ok(());
        }
        let req =
            mutate::MoveRequest { source: from.into(), destination: to.into(), overwrite: true };
        mutate::move_entry(&self.mounts, &self.limits, &req)?;
        self.modes.rename(from, to);
        Ok(())
    }

    fn copy(&self, from: &str, to: &str) -> Result<()> {
        let data = self.read(from)?;
        self.write(to, &data, data.len() as u64)
    }

    fn stat(&self, path: &str) -> Result<Metadata> {
        if Device::at(path).is_some() {
            return Ok(metadata_of(&Entry::file(path, 0, None)));
        }
        match self.mounts.stat(path) {
            Err(e) if is_absent(&e) && self.is_pending(path) => {
                Ok(metadata_of(&Entry::directory(path, None)))
            }
            found => found.map(|e| self.metadata(&e)),
        }
    }

    fn read_dir(&self, path: &str) -> Result<Vec<DirEntry>> {
        let mut entries = match self.mounts.list(path) {
            Ok(entries) => entries,
            Err(e) if is_absent(&e) && self.is_pending(path) => Vec::new(),
            Err(e) => return Err(e),
        };
        // Directories mkdir made beneath it that hold no file yet.
        let before = entries.len();
        for dir in self.pending().iter() {
            if paths::parent(dir) == Some(path) && !entries.iter().any(|e| &e.path == dir) {
                entries.push(Entry::directory(dir.clone(), None));
            }
        }
        if entries.len() > before {
            entries.sort_by(|a, b| a.path.cmp(&b.path));
        }
        Ok(entries
            .iter()
            .map(|e| DirEntry {
                name: paths::file_name(&e.path).to_string(),
                metadata: self.metadata(e),
            })
            .collect())
    }
}

/// An entry as bashkit metadata: the type (a listed link is a link), the size, a mode
/// from the read-only flag (volumes keep no permission bits), the modification time
/// (the Unix epoch when unknown).
fn metadata_of(e: &Entry) -> Metadata {
    let file_type = if e.is_dir() {
        FileType::Directory
    } else if e.entry_type == TYPE_SYMLINK {
        FileType::Symlink
    } else {
        FileType::File
    };
    let mode = match (e.is_dir(), e.read_only) {
        (true, false) => 0o755,
        (true, true) => 0o555,
        (false, false) => 0o644,
        (false, true) => 0o444,
    };
    let modified = std::time::UNIX_EPOCH + Duration::from_millis(e.modified_ms.unwrap_or(0));
    Metadata { file_type, size: e.size, mode, modified, created: modified }
}

/// A virtual path from the interpreter's path (always absolute there), normalised.
fn virtual_path(p: &Path) -> Result<String> {
    let s = p.to_str().ok_or_else(|| {
        Error::new(ErrorKind::InvalidPath, format!("{} is not UTF-8", p.to_string_lossy()))
    })?;
    paths::normalize(s)
}

/// Our error as the interpreter's: an I/O error whose text is what bash prints after
/// `cmd: path: ` (the path is the caller's to print).
pub(crate) fn io_error(e: Error) -> bashkit::Error {
    let (kind, text) = match e.kind() {
        ErrorKind::NotFound => (IoKind::NotFound, "No such file or directory".to_string()),
        ErrorKind::NotAFile => (IoKind::IsADirectory, "Is a directory".to_string()),
        ErrorKind::NotADirectory => (IoKind::NotADirectory, "Not a directory".to_string()),
        ErrorKind::AlreadyExists => (IoKind::AlreadyExists, "File exists".to_string()),
        ErrorKind::ReadOnly => (IoKind::ReadOnlyFilesystem, "Read-only file system".to_string()),
        ErrorKind::Unsupported => {
            (IoKind::Unsupported, format!("Operation not supported ({})", e.message()))
        }
        ErrorKind::LimitExceeded => {
            (IoKind::QuotaExceeded, format!("Disk quota exceeded ({})", e.message()))
        }
        ErrorKind::TooLarge => (IoKind::FileTooLarge, e.message().to_string()),
        ErrorKind::InvalidPath => (IoKind::InvalidInput, e.message().to_string()),
        _ => (IoKind::Other, format!("Input/output error ({})", e.message())),
    };
    std::io::Error::new(kind, text).into()
}

/// Runs one operation on a normalised path, converting errors.
fn on<T>(p: &Path, op: impl FnOnce(&str) -> Result<T>) -> bashkit::Result<T> {
    virtual_path(p).and_then(|p| op(&p)).map_err(io_error)
}

#[async_trait]
impl FileSystemExt for MountFs {
    fn backend_kind(&self) -> &'static str {
        "filestore-mounts"
    }
}

#[async_trait]
impl FileSystem for MountFs {
    async fn read_file(&self, path: &Path) -> bashkit::Result<Vec<u8>> {
        on(path, |p| self.read(p))
    }
    async fn write_file(&self, path: &Path, content: &[u8]) -> bashkit::Result<()> {
        on(path, |p| self.write(p, content, content.len() as u64))
    }
    async fn append_file(&self, path: &Path, content: &[u8]) -> bashkit::Result<()> {
        on(path, |p| self.append(p, content))
    }
    async fn mkdir(&self, path: &Path, recursive: bool) -> bashkit::Result<()> {
        on(path, |p| self.mkdir(p, recursive))
    }
    async fn remove(&self, path: &Path, recursive: bool) -> bashkit::Result<()> {
        on(path, |p| self.remove(p, recursive))
    }
    async fn stat(&self, path: &Path) -> bashkit::Result<Metadata> {
        on(path, |p| self.stat(p))
    }
    async fn read_dir(&self, path: &Path) -> bashkit::Result<Vec<DirEntry>> {
        on(path, |p| self.read_dir(p))
    }
    async fn exists(&self, path: &Path) -> bashkit::Result<bool> {
        Ok(on(path, |p| Ok(Device::at(p).is_some() || self.present(p)?.is_some())).unwrap_or(false))
    }
    async fn rename(&self, from: &Path, to: &Path) -> bashkit::Result<()> {
        let to = virtual_path(to).map_err(io_error)?;
        on(from, |f| self.rename(f, &to))
    }
    async fn copy(&self, from: &Path, to: &Path) -> bashkit::Result<()> {
        let to = virtual_path(to).map_err(io_error)?;
        on(from, |f| self.copy(f, &to))
    }
    async fn symlink(&self, _target: &Path, link: &Path) -> bashkit::Result<()> {
        on(link, |p| {
            Err(Error::at(
                ErrorKind::Unsupported,
                p,
                "links cannot be created: volumes never follow them",
            ))
        })
    }
    async fn read_link(&self, path: &Path) -> bashkit::Result<PathBuf> {
        // A link's target is never read: it may name a host path.
        on(path, |p| {
            Err(Error::at(ErrorKind::InvalidPath, p, "Invalid argument (links are not followed)"))
        })
    }
    async fn set_modified_time(&self, path: &Path, _time: SystemTime) -> bashkit::Result<()> {
        // Volumes set a file's time when they write it and take no other: `touch` of
        // a new file creates it (with the current time); of an existing one it leaves
        // the time as it is (a documented difference from bash).
        on(path, |p| self.stat(p).map(|_| ()))
    }
    async fn chmod(&self, path: &Path, mode: u32) -> bashkit::Result<()> {
        // Volumes keep no permission bits: the session remembers them ([`Modes`]);
        // a read-only mount keeps its read-only flag.
        on(path, |p| {
            self.stat(p)?;
            self.modes.set(p, mode);
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::memory::MemoryVolume;

    fn fs_with(read_only: bool) -> MountFs {
        let v = MemoryVolume::new();
        v.insert("/a.txt", "alpha\n");
        v.insert("/d/b.txt", "beta\n");
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, read_only).unwrap();
        MountFs::new(
            Arc::new(t),
            Limits::default(),
            Arc::new(WriteBudget::new(1 << 20)),
            Arc::default(),
        )
    }

    fn io_text(e: bashkit::Error) -> String {
        match e {
            bashkit::Error::Io(io) => io.to_string(),
            other => panic!("not an I/O error: {other}"),
        }
    }

    #[test]
    fn errors_carry_the_words_bash_prints() {
        let fs = fs_with(true);
        assert_eq!(
            io_text(on(Path::new("/w/nope"), |p| fs.read(p)).unwrap_err()),
            "No such file or directory"
        );
        assert_eq!(io_text(on(Path::new("/w/d"), |p| fs.read(p)).unwrap_err()), "Is a directory");
        let e = on(Path::new("/w/new"), |p| fs.write(p, b"x", 1)).unwrap_err();
        assert_eq!(io_text(e), "Read-only file system");
    }

    #[test]
    fn writes_need_an_existing_parent_and_appends_keep_what_was_there() {
        let fs = fs_with(false);
        assert_eq!(
            io_text(on(Path::new("/w/nodir/f"), |p| fs.write(p, b"x", 1)).unwrap_err()),
            "No such file or directory"
        );
        fs.append("/w/a.txt", b"more\n").unwrap();
        assert_eq!(fs.read("/w/a.txt").unwrap(), b"alpha\nmore\n");
        fs.write("/w/dev-null-is-not-here", b"", 0).unwrap();
        fs.write(DEV_NULL, b"gone", 4).unwrap();
        assert!(fs.read(DEV_NULL).unwrap().is_empty());
    }

    #[test]
    fn devices_read_bounded_and_swallow_writes() {
        let fs = fs_with(true);
        let zero = fs.read("/dev/zero").unwrap();
        assert_eq!(zero.len() as u64, ZERO_READ_BYTES);
        assert!(zero.iter().all(|b| *b == 0));
        let a = fs.read("/dev/urandom").unwrap();
        let b = fs.read("/dev/random").unwrap();
        assert_eq!(a.len() as u64, RANDOM_READ_BYTES);
        assert_ne!(a, b, "each read draws new bytes");
        assert!(a.iter().any(|b| *b != 0));
        // On a read-only table too: a device is in no mount.
        for dev in ["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"] {
            fs.write(dev, b"x", 1).unwrap();
            fs.append(dev, b"x").unwrap();
            assert!(fs.stat(dev).unwrap().file_type.is_file(), "{dev}");
        }
        assert!(fs.read("/dev/full").is_err(), "no other device");
        // A smaller file limit cuts a read further.
        let mut small = fs_with(false);
        small.limits.file_bytes = 100;
        assert_eq!(small.read("/dev/zero").unwrap().len(), 100);
    }

    #[test]
    fn appends_create_extend_and_refuse_directories() {
        let fs = fs_with(false);
        fs.append("/w/new.txt", b"one\n").unwrap();
        fs.append("/w/new.txt", b"two\n").unwrap();
        assert_eq!(fs.read("/w/new.txt").unwrap(), b"one\ntwo\n");
        assert_eq!(
            io_text(on(Path::new("/w/d"), |p| fs.append(p, b"x")).unwrap_err()),
            "Is a directory"
        );
        assert_eq!(
            io_text(on(Path::new("/w/nodir/f"), |p| fs.append(p, b"x")).unwrap_err()),
            "No such file or directory"
        );
    }

    /// The limits count an append's new bytes, not the file's: the largest write
    /// (`write_bytes`) and the command's written-bytes budget. A refused append
    /// changes nothing.
    #[test]
    fn appends_are_limited_by_their_own_bytes() {
        let mut fs = fs_with(false);
        fs.limits.write_bytes = 100;
        fs.budget = Arc::new(WriteBudget::new(160));
        fs.mounts.write("/w/log", &[b'a'; 900], &WriteOptions::default()).unwrap();
        fs.append("/w/log", &[b'b'; 80]).unwrap();
        let e = fs.append("/w/log", &[b'c'; 101]).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::TooLarge, "{e}");
        assert!(e.message().contains("101 bytes; the write limit is 100 bytes"), "{e}");
        fs.append("/w/log", &[b'd'; 80]).unwrap();
        let e = fs.append("/w/log", b"e").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
        assert!(e.message().contains("160 file bytes written per command"), "{e}");
        let data = fs.read("/w/log").unwrap();
        assert_eq!(data.len(), 1060);
        assert!(data.ends_with(&[b'd'; 80]));
    }

    #[test]
    fn mkdir_follows_bash() {
        let fs = fs_with(false);
        fs.mkdir("/w/d", true).unwrap();
        assert!(fs.mkdir("/w/d", false).is_err(), "an existing directory without -p");
        assert!(fs.mkdir("/w/x/y", false).is_err(), "a missing parent without -p");
        fs.mkdir("/w/x/y", true).unwrap();
        assert!(fs.stat("/w/x/y").unwrap().file_type.is_dir());
    }

    #[test]
    fn mkdir_on_a_volume_without_empty_directories_lasts_for_the_command() {
        let v = MemoryVolume::new();
        v.insert("/a.txt", "alpha\n");
        let mut t = MountTable::new();
        t.add("/s3", Box::new(crate::vfs::bare::BareVolume::new(v)), 0, false).unwrap();
        let fs = MountFs::new(
            Arc::new(t),
            Limits::default(),
            Arc::new(WriteBudget::new(1 << 20)),
            Arc::default(),
        );
        fs.mkdir("/s3/d/e", true).unwrap();
        assert!(fs.mounts.stat("/s3/d/e").is_err(), "the volume itself has no such directory");
        assert!(fs.stat("/s3/d/e").unwrap().file_type.is_dir());
        let names = |p: &str| -> Vec<String> {
            fs.read_dir(p).unwrap().into_iter().map(|e| e.name).collect()
        };
        assert_eq!(names("/s3"), ["a.txt", "d"]);
        assert_eq!(names("/s3/d"), ["e"]);
        assert!(names("/s3/d/e").is_empty());
        assert!(fs.mkdir("/s3/d/e", false).is_err(), "exists now");
        fs.write("/s3/d/e/f.txt", b"x", 1).unwrap();
        assert_eq!(fs.read("/s3/d/e/f.txt").unwrap(), b"x");
        assert!(fs.write("/s3/nodir/f", b"x", 1).is_err(), "a parent nobody made");
        fs.mkdir("/s3/g", false).unwrap();
        fs.mkdir("/s3/g/h", false).unwrap();
        assert!(fs.remove("/s3/g", false).is_err(), "not empty");
        fs.remove("/s3/g", true).unwrap();
        assert!(fs.present("/s3/g/h").unwrap().is_none());
        assert_eq!(names("/s3"), ["a.txt", "d"]);
    }
}
