//! Confined resolution: splitting a volume path into checked components, the
//! component-wise walk from the root that is authoritative
//! (`DirVolume::descend`), the one-call `openat2(RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS)` fast path it tries first, the no-replace rename, and
//! directory syncs.

use super::*;

impl DirVolume {
    /// Opens the directory named by `comps`, one component at a time from the root,
    /// never following a link. `create` makes missing directories; `is_target` says
    /// the last component is the directory the operation is about (rather than the
    /// parent of its target), which only changes the error reported for a file.
    pub(super) fn descend<C: AsRef<OsStr>>(
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
        self.descend_stepwise(path, comps, create, is_target)
    }

    /// [`Self::descend`] without the `openat2` fast path: one component at a time.
    /// Its handles are cap-std's (`O_PATH` on Linux: they can be walked from, not
    /// read), and the root's is a duplicate of the volume's own.
    pub(super) fn descend_stepwise<C: AsRef<OsStr>>(
        &self,
        path: &str,
        comps: &[C],
        create: bool,
        is_target: bool,
    ) -> Result<Dir> {
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
    pub(super) fn parent_of<'c>(
        &self,
        path: &str,
        comps: &'c [std::borrow::Cow<'_, OsStr>],
        create: bool,
    ) -> Result<(Dir, &'c OsStr)> {
        let (name, parents) = comps.split_last().expect("non-root path");
        Ok((self.descend(path, parents, create, false)?, name.as_ref()))
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
pub(super) fn open_beneath<C: AsRef<OsStr>>(
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
    #[cfg(test)]
    if WITHOUT_OPENAT2.with(std::cell::Cell::get) {
        return None;
    }
    openat2(root, rel.as_os_str(), flags, Mode::empty(), resolve).ok().map(std::fs::File::from)
}

#[cfg(all(test, target_os = "linux"))]
thread_local! {
    /// Tests of the component-wise walk: `open_beneath` fails on this thread, as on
    /// a kernel without `openat2`, under a seccomp filter, or in a race.
    pub(super) static WITHOUT_OPENAT2: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `renameat2(RENAME_NOREPLACE)`: the kernel refuses an existing destination, so a file
/// created at `to` after `rename` checked it is never replaced. `Ok(false)` when the
/// file system or kernel lacks the flag (the caller then renames plainly, keeping the
/// check-then-rename behaviour).
#[cfg(target_os = "linux")]
pub(super) fn rename_noreplace(
    from_parent: &Dir,
    from_name: &OsStr,
    to_parent: &Dir,
    to_name: &OsStr,
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
pub(super) fn rename_noreplace(_: &Dir, _: &OsStr, _: &Dir, _: &OsStr, _: &str) -> Result<bool> {
    Ok(false)
}

/// Elsewhere only the component-wise path exists.
#[cfg(not(target_os = "linux"))]
pub(super) fn open_beneath<C: AsRef<OsStr>>(_: &Dir, _: &[C], _: bool) -> Option<std::fs::File> {
    None
}

/// Splits a volume path into its components, refusing anything that is not an
/// absolute, normalised, addressable path (defence in depth: the guest normalises
/// first, but a host may call the volume directly).
pub(super) fn components(path: &str) -> Result<Vec<std::borrow::Cow<'_, OsStr>>> {
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
            c if super::names::is_temp_name(c) => {
                return Err(invalid(format!(
                    "'{c}' has the shape of this volume's temporary files (`.NAME{TEMP_MARKER}` and 16 hex digits), which listings hide; choose another name"
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
    // Escaped names (`~x~caf%E9.txt`, see names::volume_name) become their bytes.
    comps.into_iter().map(|c| super::names::os_name(c).map_err(&invalid)).collect()
}

/// Best-effort `fsync` of a directory, so a rename survives a crash.
pub(super) fn sync_dir(dir: &Dir) {
    let mut opts = OpenOptions::new();
    opts.read(true).maybe_dir(true).follow(FollowSymlinks::No);
    if let Ok(d) = dir.open_with(".", &opts) {
        let _ = d.sync_all();
    }
}
