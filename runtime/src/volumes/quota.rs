//! Byte quotas over volumes: a conversation's `/scratch` in a directory or a bucket
//! (`serve --state`, docs/state.md#serving), bounded by `--volume-quota-mib` as an
//! in-memory `/scratch` is, and everything a conversation keeps in its store (its
//! files, stored results, copy-on-write upper layers, audit timeline, snapshots),
//! bounded together by `--conversation-quota-mib`.
//!
//! A [`Quota`] is a limit and a count of the bytes it covers; any number of
//! [`QuotaVolume`]s charge one quota (the volumes of one conversation share one), and a
//! volume may be under several (nested wrappers, the inner quota taken last). What a
//! quota covers is counted once, at its first change (reads cost nothing), by a walk
//! ([`Counter`]), then kept up to date by every change made through its volumes: a
//! write counts its size less the size of the file it replaces, an append the bytes
//! it adds, a delete gives back what it removed, a rename onto a file gives back the
//! file replaced. A change that would pass the quota is refused with `limit-exceeded`
//! before it is made, so the old content stays. A quota shared with other processes
//! (a conversation, whose other replicas write the same store: [`Counter::With`]) is
//! counted again at a change once its count is [`RECOUNT_AFTER`] old, so what other
//! processes wrote is seen within that time: together, writers on several replicas
//! can pass the quota by what they write within it.
//!
//! Charges made after the fact ([`Quota::after_the_fact`]: a snapshot, whose cost is
//! known once it is taken) take turns, so that several at once cannot each pass the
//! check and then add up to several times the room left.

use std::sync::{Arc, Mutex};

use filestore_guest::vfs::volume::{PackedWalk, VolumeIdentity};

use super::{Entry, EntryKind, Error, ErrorKind, PrefetchFile, Volume, Walk, WriteOptions};

/// Entries a count walks at most: a volume with more is counted as full.
pub const MAX_COUNTED_ENTRIES: usize = 1_000_000;

/// Age after which a shared quota's count is made again at its next change, so that
/// what other processes wrote is seen: a walk of what it covers at most this often
/// per process while it changes.
pub const RECOUNT_AFTER: std::time::Duration = std::time::Duration::from_secs(2);

/// How a quota learns what it covers when it is first charged.
pub enum Counter {
    /// The one volume it is charged through (a per-volume quota).
    Member,
    /// A function of the quota's owner: the bytes of a whole conversation, say,
    /// which other processes may change too (counted again when [`RECOUNT_AFTER`]
    /// old).
    With(Box<dyn Fn() -> Result<u64, Error> + Send + Sync>),
    /// The same for what only this process changes (a memory store's): counted once.
    Once(Box<dyn Fn() -> Result<u64, Error> + Send + Sync>),
}

/// A byte limit and the count of what it covers, charged by [`QuotaVolume`]s.
pub struct Quota {
    /// What the quota is, as its errors say it: `the volume quota of N bytes
    /// (--volume-quota-mib)`.
    name: String,
    limit: u64,
    counter: Counter,
    /// Bytes covered, once counted, and when they were counted.
    used: Mutex<Option<Count>>,
    /// Held by charges made after the fact ([`Quota::after_the_fact`]).
    turns: Mutex<()>,
}

/// A quota's count: bytes covered, and when they were counted.
#[derive(Clone, Copy)]
struct Count {
    bytes: u64,
    at: std::time::Instant,
}

impl Quota {
    /// A quota of `limit` bytes called `what` (`volume quota`) set by `flag`
    /// (`--volume-quota-mib`), counted by `counter`.
    pub fn new(what: &str, flag: &str, limit: u64, counter: Counter) -> Arc<Quota> {
        Arc::new(Quota {
            name: format!("the {what} of {limit} bytes ({flag})"),
            limit,
            counter,
            used: Mutex::new(None),
            turns: Mutex::new(()),
        })
    }

    /// The limit, bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes covered now (counted first if they have not been).
    pub fn used(&self) -> Result<u64, Error> {
        let mut used = self.lock();
        self.counted(&mut used, None)
    }

    /// Whether `bytes` more fit within the limit and `headroom` beyond it.
    pub fn has_room(&self, bytes: u64, headroom: u64) -> Result<bool, Error> {
        let used = self.used()?;
        Ok(used.saturating_add(bytes) <= self.limit.saturating_add(headroom))
    }

    /// Runs `charge`, a change made outside the quota's volumes whose bytes are
    /// known only once it is made (a snapshot's new objects), if the quota has room
    /// left, and adds what it returns; `Ok(None)` when there is no room (nothing
    /// ran). One such change at a time: each sees what the one before added.
    pub fn after_the_fact<T>(
        &self,
        charge: impl FnOnce() -> Result<(T, u64), Error>,
    ) -> Result<Option<T>, Error> {
        let _turn = self.turns.lock().unwrap_or_else(|p| p.into_inner());
        if !self.has_room(0, 0)? {
            return Ok(None);
        }
        let (out, bytes) = charge()?;
        if let Some(c) = self.lock().as_mut() {
            c.bytes = c.bytes.saturating_add(bytes);
        }
        Ok(Some(out))
    }

    /// Forgets the count: changes made around its volumes are counted at the next
    /// change.
    pub fn forget(&self) {
        *self.lock() = None;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Count>> {
        self.used.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn counted(&self, used: &mut Option<Count>, member: Option<&dyn Volume>) -> Result<u64, Error> {
        let fresh = |c: &Count| match self.counter {
            Counter::With(_) => c.at.elapsed() < RECOUNT_AFTER,
            Counter::Once(_) | Counter::Member => true,
        };
        if let Some(c) = used.as_ref().filter(|c| fresh(c)) {
            return Ok(c.bytes);
        }
        let bytes = match (&self.counter, member) {
            (Counter::With(count) | Counter::Once(count), _) => count()?,
            (Counter::Member, Some(v)) => content_bytes(v, "/")?,
            (Counter::Member, None) => 0,
        };
        *used = Some(Count { bytes, at: std::time::Instant::now() });
        Ok(bytes)
    }

    /// The refusal of a change at `path` that needs `more` bytes beyond `now`.
    fn refusal(&self, path: &str, now: u64, more: u64) -> Error {
        Error::at(
            ErrorKind::LimitExceeded,
            path,
            format!(
                "{} is used up ({now} used; this change needs {more} more); nothing was changed: delete files to make room",
                self.name
            ),
        )
    }
}

/// Bytes of file content at and beneath `path` of `v` (0 when nothing is there; a
/// tree of more than [`MAX_COUNTED_ENTRIES`] counts as full).
pub fn content_bytes(v: &dyn Volume, path: &str) -> Result<u64, Error> {
    let entry = match v.stat(path) {
        Ok(e) => e,
        Err(e) if filestore_guest::vfs::volume::is_absent(&e) => return Ok(0),
        Err(e) => return Err(e),
    };
    if entry.kind == EntryKind::File {
        return Ok(entry.size);
    }
    let walk = match v.walk(path, MAX_COUNTED_ENTRIES) {
        Ok(w) => w,
        Err(e) if filestore_guest::vfs::volume::is_absent(&e) => return Ok(0),
        Err(e) => return Err(e),
    };
    if walk.truncated {
        return Ok(u64::MAX);
    }
    Ok(walk.entries.iter().filter(|e| e.kind == EntryKind::File).map(|e| e.size).sum())
}

/// `inner`, its changes charged to a [`Quota`].
pub struct QuotaVolume<V> {
    inner: V,
    quota: Arc<Quota>,
    /// Bytes this volume may write beyond the quota's limit (the audit timeline's,
    /// so that an agent filling its quota cannot keep its calls off the record).
    headroom: u64,
}

impl<V: Volume> QuotaVolume<V> {
    /// `inner` with a quota of its own of `limit` bytes (`--volume-quota-mib`).
    pub fn new(inner: V, limit: u64) -> QuotaVolume<V> {
        let quota = Quota::new("volume quota", "--volume-quota-mib", limit, Counter::Member);
        QuotaVolume::shared(inner, quota)
    }

    /// `inner` charging `quota`, which other volumes may charge too.
    pub fn shared(inner: V, quota: Arc<Quota>) -> QuotaVolume<V> {
        QuotaVolume { inner, quota, headroom: 0 }
    }

    /// The same, allowed `headroom` bytes past the limit.
    pub fn with_headroom(mut self, headroom: u64) -> QuotaVolume<V> {
        self.headroom = headroom;
        self
    }

    /// Runs `change`, which adds `grows` bytes and frees `frees`, if the quota has
    /// room for it; counts the result when it succeeded. The quota's lock is held
    /// across the change, so two changes through its volumes cannot both take the
    /// last room.
    fn charged<T>(
        &self,
        path: &str,
        grows: u64,
        frees: u64,
        change: impl FnOnce() -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut used = self.quota.lock();
        let now = self.quota.counted(&mut used, Some(&self.inner))?;
        let after = now.saturating_sub(frees).saturating_add(grows);
        if grows > frees && after > self.quota.limit.saturating_add(self.headroom) {
            return Err(self.quota.refusal(path, now, grows - frees));
        }
        let out = change();
        // On a failure nothing is known of what changed: counted again next time.
        *used = match (out.is_ok(), *used) {
            (true, Some(c)) => Some(Count { bytes: after, at: c.at }),
            _ => None,
        };
        out
    }

    /// Bytes of file content at and beneath `path` (0 when nothing is there).
    fn size_at(&self, path: &str) -> Result<u64, Error> {
        content_bytes(&self.inner, path)
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
    /// Charges the bytes added, nothing for what the file held: an append past the
    /// quota is refused before it is made, so the old content stays.
    fn append(&self, path: &str, content: &[u8]) -> Result<Entry, Error> {
        self.charged(path, content.len() as u64, 0, || self.inner.append(path, content))
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

    /// An append is charged the bytes it adds; one past the quota is refused and
    /// the file keeps its content.
    #[test]
    fn appends_are_charged_their_bytes() {
        let v = QuotaVolume::new(MemoryVolume::new(), 1000);
        write(&v, "/log", 900).unwrap();
        v.append("/log", &[b'y'; 100]).unwrap();
        let e = v.append("/log", b"z").unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded, "{e}");
        assert!(e.to_string().contains("this change needs 1 more"), "{e}");
        assert_eq!(v.stat("/log").unwrap().size, 1000);
        v.delete("/log", false).unwrap();
        v.append("/new", &[b'n'; 1000]).unwrap();
    }

    /// Volumes sharing a quota take its room together; one with headroom may go
    /// past the limit by it, the others not.
    #[test]
    fn volumes_sharing_a_quota_take_its_room_together() {
        let quota = Quota::new(
            "conversation quota",
            "--conversation-quota-mib",
            1000,
            Counter::With(Box::new(|| Ok(100))),
        );
        let a = QuotaVolume::shared(MemoryVolume::new(), quota.clone());
        let b = QuotaVolume::shared(MemoryVolume::new(), quota.clone());
        let log = QuotaVolume::shared(MemoryVolume::new(), quota.clone()).with_headroom(300);
        write(&a, "/a", 500).unwrap();
        let e = write(&b, "/b", 401).unwrap_err();
        assert!(
            e.to_string()
                .contains("the conversation quota of 1000 bytes (--conversation-quota-mib)"),
            "{e}"
        );
        write(&b, "/b", 400).unwrap();
        assert_eq!(quota.used().unwrap(), 1000);
        assert!(!quota.has_room(1, 0).unwrap() && quota.has_room(300, 300).unwrap());
        write(&log, "/r1", 300).unwrap();
        assert!(write(&log, "/r2", 1).is_err());
        a.delete("/a", false).unwrap();
        write(&b, "/c", 200).unwrap();
        assert_eq!(quota.after_the_fact(|| Ok(((), 50))).unwrap(), Some(()));
        assert_eq!(quota.used().unwrap(), 1050);
        assert_eq!(quota.after_the_fact(|| Ok(((), 1))).unwrap(), None, "no room: it does not run");
        quota.forget();
        assert_eq!(quota.used().unwrap(), 100, "counted again by its counter");
    }

    /// A quota other processes change too is counted again once its count is old:
    /// what another replica wrote is seen.
    #[test]
    fn a_shared_count_is_made_again_when_old() {
        let elsewhere = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let seen = elsewhere.clone();
        let quota = Quota::new(
            "conversation quota",
            "--conversation-quota-mib",
            1000,
            Counter::With(Box::new(move || Ok(seen.load(std::sync::atomic::Ordering::SeqCst)))),
        );
        let v = QuotaVolume::shared(MemoryVolume::new(), quota.clone());
        write(&v, "/a", 100).unwrap();
        elsewhere.store(950, std::sync::atomic::Ordering::SeqCst);
        write(&v, "/b", 100).unwrap();
        std::thread::sleep(RECOUNT_AFTER);
        assert!(write(&v, "/c", 100).is_err(), "another replica's 950 bytes are seen");
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
