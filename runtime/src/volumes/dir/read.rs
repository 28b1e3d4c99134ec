//! Reads: one confined open per file (the kernel's `openat2` beneath the root when it
//! can, else the component-wise walk), a regular file only, bytes bounded by the
//! caller's length.

use std::io::{Read, Seek, SeekFrom};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Metadata, OpenOptions};
use filestore_guest::error::{Error, ErrorKind, Result};
use filestore_guest::vfs::entry::{Entry, EntryKind};
use filestore_guest::vfs::volume::{Volume, has_content};

use super::errors::{explain_leaf, io_error};
use super::resolve::{components, open_beneath};
use super::{DirVolume, MAX_READ_PREALLOC};

impl DirVolume {
    /// [`Volume::read`]: a confined open (the kernel's `openat2` when it can), a
    /// regular file only, at most `len` bytes from `offset`.
    pub(super) fn read_file(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        let comps = components(path)?;
        if comps.is_empty() {
            return Err(Error::at(ErrorKind::NotAFile, path, "is a directory"));
        }
        if offset == 0
            && let Some(data) = self.ahead.take(path, len)
        {
            return Ok(data);
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

    /// One confined open for both (a small read's common case): the entry from the
    /// `fstat` of the handle the bytes are then read through, so they belong to it.
    /// A path the kernel-confined open refuses (a link, anything through one, a
    /// directory, a special file) is answered as `stat` then `read`.
    pub(super) fn stat_read_file(
        &self,
        path: &str,
        offset: u64,
        len: u64,
    ) -> Result<(Entry, Vec<u8>)> {
        let comps = components(path)?;
        if !comps.is_empty()
            && let Some(mut file) = open_beneath(&self.dir, &comps, false)
        {
            let m = Metadata::from_file(&file).map_err(|e| io_error(path, e))?;
            if m.is_file() {
                let e = self.entry(path.to_string(), &m);
                let want = len.min(m.len().saturating_sub(offset));
                if want == 0 {
                    return Ok((e, Vec::new()));
                }
                if offset > 0 {
                    file.seek(SeekFrom::Start(offset)).map_err(|e| io_error(path, e))?;
                }
                let mut buf =
                    Vec::with_capacity(usize::try_from(want.min(MAX_READ_PREALLOC)).unwrap_or(0));
                file.take(want).read_to_end(&mut buf).map_err(|e| io_error(path, e))?;
                return Ok((e, buf));
            }
        }
        let e = self.stat(path)?;
        let want = len.min(e.size.saturating_sub(offset));
        if e.kind != EntryKind::File || !has_content(&e) || want == 0 {
            return Ok((e, Vec::new()));
        }
        let data = self.read_file(path, offset, want)?;
        Ok((e, data))
    }
}
