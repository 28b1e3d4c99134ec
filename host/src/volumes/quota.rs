//! A byte quota over any volume: a conversation's `/scratch` in a directory or a
//! bucket (`serve --state`, docs/state.md#serving), bounded by `--volume-quota-mib`
//! as an in-memory `/scratch` is.
//!
//! What the volume holds is counted once, by a walk, at its first change (reads
//! cost nothing), then kept up to date by every change made through this volume: a
//! write counts its size less the size of the file it replaces, a delete gives
//! back what it removed, a rename onto a file gives back the file replaced. A
//! change that would pass the quota is refused with `limit-exceeded` before it is
//! made, so the old content stays. Changes made elsewhere meanwhile (another
//! replica or request of the same conversation) are not seen until the next
//! count: together, writers on several replicas can pass the quota by what they
//! write at once.

use std::sync::Mutex;

use filestore_guest::vfs::volume::{PackedWalk, VolumeIdentity};

use super::{Entry, EntryKind, Error, ErrorKind, PrefetchFile, Volume, Walk, WriteOptions};

/// Entries a count walks at most: a volume with more is counted as full.
const MAX_COUNTED_ENTRIES: usize = 1_000_000;

/// `inner`, holding at most `limit` bytes of file content.
pub struct QuotaVolume<V> {
    inner: V,
    limit: u64,
    /// Bytes held, once counted.
    used: Mutex<Option<u64>>,
}

impl<V: Volume> QuotaVolume<V> {
    /// `inner` with a quota of `limit` bytes.
    pub fn new(inner: V, limit: u64) -> QuotaVolume<V> {
        QuotaVolume { inner, limit, used: Mutex::new(None) }
    }

    /// Runs `change`, which adds `grows` bytes and frees `frees`, if the quota has
    /// room for it; counts the result when it succeeded. The lock is held across the
    /// change, so two changes through this volume cannot both take the last room.
    fn charged<T>(
        &self,
        path: &str,
        grows: u64,
        frees: u64,
        change: impl FnOnce() -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        let now = match *used {
            Some(n) => n,
            None => self.count()?,
        };
        let after = now.saturating_sub(frees).saturating_add(grows);
        if grows > frees && after > self.limit {
            return Err(Error::at(
                ErrorKind::LimitExceeded,
                path,
                format!(
                    "the volume quota of {} bytes (--volume-quota-mib) is used up ({now} used; this change needs {} more); nothing was changed: delete files to make room",
                    self.limit,
                    grows - frees
                ),
            ));
        }
        let out = change();
        // On a failure nothing is known of what changed: counted again next time.
        *used = out.is_ok().then_some(after);
        out
    }

    /// Bytes of file content the volume holds now.
    fn count(&self) -> Result<u64, Error> {
        let walk = match self.inner.walk("/", MAX_COUNTED_ENTRIES) {
            Ok(w) => w,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        if walk.truncated {
            return Ok(u64::MAX);
        }
        Ok(walk.entries.iter().filter(|e| e.kind == EntryKind::File).map(|e| e.size).sum())
    }

    /// Bytes of file content at and beneath `path` (0 when nothing is there).
    fn size_at(&self, path: &str) -> Result<u64, Error> {
        let entry = match self.inner.stat(path) {
            Ok(e) => e,
            Err(e) if filestore_guest::vfs::volume::is_absent(&e) => return Ok(0),
            Err(e) => return Err(e),
        };
        if entry.kind == EntryKind::File {
            return Ok(entry.size);
        }
        let walk = self.inner.walk(path, MAX_COUNTED_ENTRIES)?;
        Ok(walk.entries.iter().filter(|e| e.kind == EntryKind::File).map(|e| e.size).sum())
    }
}

impl<V: Volume> Volume for QuotaVolume<V> {
    fn stat(&self, path: &str) -> Result<Entry, Error> {
        self.inner.stat(path)
    }
    fn list(&self, path: &str) -> Result<Vec<Entry>, Error> {
        self.inner.list(path)
    }
    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk, Error> {
        self.inner.walk(path, max_entries)
    }
    fn walk_packed(&self, path: &str, max_entries: usize) -> Result<PackedWalk, Error> {
        self.inner.walk_packed(path, max_entries)
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>, Error> {
        self.inner.read(path, offset, len)
    }
    fn stat_read(&self, path: &str, offset: u64, len: u64) -> Result<(Entry, Vec<u8>), Error> {
        self.inner.stat_read(path, offset, len)
    }
    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry, Error> {
        let replaced = self.size_at(path)?;
        self.charged(path, content.len() as u64, replaced, || {
            self.inner.write(path, content, options)
        })
    }
    fn delete(&self, path: &str, recursive: bool) -> Result<(), Error> {
        let freed = self.size_at(path)?;
        self.charged(path, 0, freed, || self.inner.delete(path, recursive))
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<(), Error> {
        let replaced = if overwrite { self.size_at(to)? } else { 0 };
        self.charged(to, 0, replaced, || self.inner.rename(from, to, overwrite))
    }
    fn create_dir(&self, path: &str) -> Result<Entry, Error> {
        self.inner.create_dir(path)
    }
    fn identity(&self) -> Option<VolumeIdentity> {
        self.inner.identity()
    }
    fn prefetch(&self, files: &[PrefetchFile]) {
        self.inner.prefetch(files)
    }
    fn keeps_entry_metadata(&self) -> bool {
        self.inner.keeps_entry_metadata()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::volumes::MemoryVolume;

    fn write(v: &dyn Volume, path: &str, bytes: usize) -> Result<Entry, Error> {
        v.write(path, &vec![b'x'; bytes], &WriteOptions::default())
    }

    #[test]
    fn a_change_past_the_quota_is_refused_and_the_old_content_stays() {
        let inner = MemoryVolume::new();
        write(&inner, "/before.txt", 300).unwrap();
        let v = QuotaVolume::new(inner, 1000);
        write(&v, "/a.txt", 500).unwrap();
        let e = write(&v, "/b.txt", 201).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
        assert!(e.to_string().contains("--volume-quota-mib"), "{e}");
        assert!(v.stat("/b.txt").is_err(), "nothing written");
        // Replacing a file counts only the difference; a refused one keeps its bytes.
        write(&v, "/a.txt", 700).unwrap();
        assert!(write(&v, "/a.txt", 701).is_err());
        assert_eq!(v.read("/a.txt", 0, 10_000).unwrap().len(), 700);
        // Deleting makes room, a rename onto a file gives back the one replaced.
        v.delete("/before.txt", false).unwrap();
        write(&v, "/c.txt", 300).unwrap();
        v.rename("/c.txt", "/a.txt", true).unwrap();
        write(&v, "/d.txt", 700).unwrap();
        assert!(write(&v, "/e.txt", 1).is_err());
    }

    #[test]
    fn a_volume_already_over_the_quota_takes_only_shrinking_changes() {
        let inner = MemoryVolume::new();
        write(&inner, "/big.txt", 2000).unwrap();
        let v = QuotaVolume::new(inner, 1000);
        assert!(write(&v, "/one.txt", 1).is_err());
        write(&v, "/big.txt", 10).unwrap();
        write(&v, "/one.txt", 1).unwrap();
    }
}
