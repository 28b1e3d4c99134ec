//! Test volumes: a memory volume reduced to the required methods of [`Volume`], as a
//! backend with fewer abilities is (no empty directories, like object storage), and
//! optionally answering at most some bytes per read (the host caps one boundary
//! crossing at 16 MiB), counting its reads.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::Result;
use crate::vfs::entry::Entry;
use crate::vfs::memory::MemoryVolume;
use crate::vfs::volume::{Volume, Walk, WriteOptions};

/// See the module docs.
pub(crate) struct BareVolume {
    pub(crate) inner: MemoryVolume,
    /// The most bytes one read answers.
    pub(crate) read_cap: u64,
    reads: AtomicUsize,
}

impl BareVolume {
    /// `inner` with only the required methods (reads uncapped).
    pub(crate) fn new(inner: MemoryVolume) -> BareVolume {
        BareVolume { inner, read_cap: u64::MAX, reads: AtomicUsize::new(0) }
    }

    /// Reads answer at most `cap` bytes each.
    pub(crate) fn capped(inner: MemoryVolume, cap: u64) -> BareVolume {
        BareVolume { read_cap: cap, ..BareVolume::new(inner) }
    }

    /// How many reads were made.
    pub(crate) fn reads(&self) -> usize {
        self.reads.load(Ordering::Relaxed)
    }
}

impl Volume for BareVolume {
    fn stat(&self, path: &str) -> Result<Entry> {
        self.inner.stat(path)
    }
    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        self.inner.list(path)
    }
    fn walk(&self, path: &str, max: usize) -> Result<Walk> {
        self.inner.walk(path, max)
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.inner.read(path, offset, len.min(self.read_cap))
    }
    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        self.inner.write(path, content, options)
    }
    fn delete(&self, path: &str, recursive: bool) -> Result<()> {
        self.inner.delete(path, recursive)
    }
    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        self.inner.rename(from, to, overwrite)
    }
}
