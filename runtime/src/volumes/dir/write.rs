//! Writes, appends and new directories: the parents resolved (and made) one component
//! at a time, the last component checked and then acted on with calls that never
//! follow a link (see the module docs, "Writes are atomic" and "Appends").

use std::ffi::OsStr;
use std::io::{self, Write};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, File, Metadata, OpenOptions};
use filestore_guest::error::{Error, ErrorKind, Result};
use filestore_guest::vfs::entry::Entry;
use filestore_guest::vfs::volume::{Volume, WriteOptions};

use super::errors::{explain_leaf, io_error};
use super::names::temp_name;
use super::resolve::{components, sync_dir};
use super::{DirVolume, ELOOP, NO_FOLLOW, TEMP_ATTEMPTS};

impl DirVolume {
    /// [`Volume::create_dir`]: the parents and then the last component, one at a
    /// time, never through a link.
    pub(super) fn create_dir_at(&self, path: &str) -> Result<Entry> {
        let comps = components(path)?;
        self.check_writable(path)?;
        if comps.is_empty() {
            return self.stat(path);
        }
        // The parents are created (or opened) one component at a time, never through
        // a link (`descend`); then the last one, likewise.
        let (parent, name) = self.parent_of(path, &comps, true)?;
        match parent.symlink_metadata(name) {
            Ok(m) if m.is_dir() => {}
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Error::at(
                    ErrorKind::InvalidPath,
                    path,
                    format!("is a symbolic link; {NO_FOLLOW} and does not create through them"),
                ));
            }
            Ok(_) => {
                return Err(Error::at(
                    ErrorKind::AlreadyExists,
                    path,
                    "a file exists at this path",
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => match parent.create_dir(name) {
                Ok(()) => {}
                // Created concurrently: fine if it is a directory (checked below).
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io_error(path, e)),
            },
            Err(e) => return Err(io_error(path, e)),
        }
        let m = parent.symlink_metadata(name).map_err(|e| io_error(path, e))?;
        if !m.is_dir() {
            return Err(Error::at(ErrorKind::AlreadyExists, path, "a file exists at this path"));
        }
        Ok(self.entry(path.to_string(), &m))
    }

    /// [`Volume::write`] (see the module docs, "Writes are atomic").
    pub(super) fn write_file(
        &self,
        path: &str,
        content: &[u8],
        options: &WriteOptions,
    ) -> Result<Entry> {
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
            refuse_to_write_over(path, m, options.create_only)?;
        }

        let (tmp, mut file) = self.create_temp(&parent, name, path)?;
        let discard = |e: Error| {
            let _ = parent.remove_file(&tmp);
            e
        };
        let written = (|| -> io::Result<Metadata> {
            if let Some(m) = &existing {
                file.set_permissions(kept_permissions(m))?;
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

    /// [`Volume::append`] (see the module docs, "Appends").
    pub(super) fn append_file(&self, path: &str, content: &[u8]) -> Result<Entry> {
        let comps = components(path)?;
        self.check_writable(path)?;
        if comps.is_empty() {
            return Err(Error::at(ErrorKind::NotAFile, path, "cannot write the volume root"));
        }
        // The parents as a write makes them: one component at a time, never through
        // a link; then the last one is refused as a write refuses it.
        let (parent, name) = self.parent_of(path, &comps, true)?;
        let existed = match parent.symlink_metadata(name) {
            Ok(m) => {
                refuse_to_write_over(path, &m, false)?;
                true
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(io_error(path, e)),
        };
        let mut opts = OpenOptions::new();
        // O_NOFOLLOW: a link swapped in since the check is refused (ELOOP), never
        // followed; O_NONBLOCK: a FIFO swapped in must not block the host.
        opts.append(true).create(true).follow(FollowSymlinks::No).nonblock(true);
        let mut file = parent.open_with(name, &opts).map_err(|e| {
            if ELOOP.is_some() && e.raw_os_error() == ELOOP {
                return Error::at(
                    ErrorKind::InvalidPath,
                    path,
                    format!(
                        "is a symbolic link; {NO_FOLLOW} and does not write through or replace them"
                    ),
                );
            }
            explain_leaf(&parent, name, path, e)
        })?;
        let before = file.metadata().map_err(|e| io_error(path, e))?;
        if !before.is_file() {
            return Err(Error::at(ErrorKind::Unsupported, path, "not a regular file"));
        }
        // A file with another hard link may be one placed beneath the root for a file
        // outside it: it is replaced whole (a new inode), as a write replaces it,
        // never changed in place.
        if link_count(&before) > 1 {
            drop(file);
            return filestore_guest::vfs::volume::append_by_rewrite(self, path, content);
        }
        let old_len = before.len();
        // Not `fsync`ed, as bash's `>>` is not (see the module docs, "Appends").
        if let Err(e) = file.write_all(content) {
            // All or nothing: the bytes that made it are cut off again, so the file
            // holds its old content (a full disk, a quota, an I/O error).
            let _ = file.set_len(old_len);
            if !existed && old_len == 0 {
                // It did not exist before: it does not after.
                drop(file);
                let _ = parent.remove_file(name);
            }
            return Err(io_error(path, e));
        }
        let after = file.metadata().map_err(|e| io_error(path, e))?;
        Ok(self.entry(path.to_string(), &after))
    }

    /// Creates a fresh temporary file next to `name` in `parent`.
    fn create_temp(&self, parent: &Dir, name: &OsStr, path: &str) -> Result<(String, File)> {
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true).follow(FollowSymlinks::No);
        let mut last = None;
        // The temporary name only borrows a readable prefix of the real one.
        let name = name.to_string_lossy();
        for _ in 0..TEMP_ATTEMPTS {
            let tmp = temp_name(&name);
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

/// The permission bits an overwrite keeps: the old file's, less setuid, setgid and
/// sticky. The replacement is a new inode owned by the host's user, so keeping a
/// setuid bit would make the agent's content run as that user (`write(2)` clears these
/// bits for the same reason).
fn kept_permissions(old: &Metadata) -> cap_std::fs::Permissions {
    #[cfg(unix)]
    {
        use cap_std::fs::PermissionsExt;
        cap_std::fs::Permissions::from_mode(old.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        old.permissions()
    }
}

/// How many directory entries name the file of `m` (1 where the platform cannot
/// tell).
fn link_count(m: &Metadata) -> u64 {
    #[cfg(unix)]
    {
        use cap_std::fs::MetadataExt;
        m.nlink()
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        1
    }
}

/// Refuses to write or append to the existing entry `m` at `path` unless it is a
/// regular file: a link is neither followed nor replaced, a directory is not a file,
/// and neither is a special file; `create_only` refuses any entry.
fn refuse_to_write_over(path: &str, m: &Metadata, create_only: bool) -> Result<()> {
    let ft = m.file_type();
    if ft.is_symlink() {
        return Err(Error::at(
            ErrorKind::InvalidPath,
            path,
            format!("is a symbolic link; {NO_FOLLOW} and does not write through or replace them"),
        ));
    }
    if ft.is_dir() {
        return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
    }
    if create_only {
        return Err(Error::at(ErrorKind::AlreadyExists, path, "file already exists"));
    }
    if !ft.is_file() {
        return Err(Error::at(ErrorKind::Unsupported, path, "not a regular file"));
    }
    Ok(())
}
