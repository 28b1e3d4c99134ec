//! Read-ahead on host threads: the files grep is about to read, read before it asks.
//!
//! The component is one thread: it walks, then reads and searches one file at a time,
//! and while it searches, the host's disk and its other cores are idle. Before such a
//! loop the component names the files in order (`volume.prefetch`); this module then
//! keeps up to [`AHEAD_FILES`] of them (at most [`AHEAD_BYTES`] in all) read ahead on
//! [`AHEAD_THREADS`] threads of its own, so the `read` that follows takes bytes that
//! are already in memory, and the opens, `fstat`s and copies out of the page cache
//! overlap the search. Files the component skips are dropped and the window moves on.
//!
//! # What it does not change
//!
//! - **Confinement.** A reader thread opens a file only through the kernel-confined
//!   one-call path of `read` (`openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
//!   RESOLVE_NO_MAGICLINKS)`, `O_NOFOLLOW`, see `resolve::open_beneath`), checks that it
//!   is a regular file on the opened handle, and reads through that handle. Anything
//!   else — a link, a missing file, a FIFO, a path `openat2` refuses for any reason —
//!   is not read ahead: the component's own `read` of that file then takes the usual
//!   path and fails (or succeeds) exactly as without a read-ahead. Nothing outside the
//!   root is ever opened, and no error is ever produced by this module.
//! - **Results.** The handle a file was read through is kept with its bytes. When the
//!   component asks for the file, the handle is `fstat`ed again: if the size, the
//!   modification or the change time moved since the bytes were read, they are not
//!   served and the component's read opens the path again, so a file changed in
//!   place, replaced (renamed over: every write of this volume, from any session,
//!   and most editors' saves) or removed is never served stale (the old inode's
//!   change time moves when its name goes). Changes that move no time stamp (writes
//!   through a shared `mmap` to a page already dirty) are not seen. Any change made
//!   through this volume (write, delete, rename, mkdir) drops the read-ahead.
//! - **Memory.** At most [`AHEAD_BYTES`] of file content and [`AHEAD_FILES`] open
//!   handles claimed per read-ahead (a file the component skips while a thread reads
//!   it is freed when that read ends), and at most [`MAX_ACTIVE_READ_AHEADS`]
//!   read-aheads in the process at once (a `prefetch` beyond that is ignored: it is
//!   a hint; a read-ahead counts until its reader threads have exited). A read-ahead nobody takes a file from for [`AHEAD_IDLE`] (an
//!   interrupted grep) stops and frees all.

use std::fs::File;
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use cap_std::fs::Dir;
use filestore_guest::vfs::volume::PrefetchFile;

use super::resolve::{components, open_beneath};

/// Most files read (or being read) ahead of the component's reads, each with its
/// open handle: bounds the descriptors one read-ahead holds.
pub const AHEAD_FILES: usize = 32;
/// Most bytes of file content held ahead of the component's reads. A larger file is
/// not read ahead (the component reads it as usual): bounds the memory one
/// read-ahead holds, whatever the tree.
pub const AHEAD_BYTES: u64 = 16 * 1024 * 1024;
/// Reader threads of one read-ahead. The component searches on one thread; the
/// readers take (at least) one more core, so the reads overlap the search.
pub const AHEAD_THREADS: usize = 2;
/// Read-aheads running in the process at once: a host serving many sessions that
/// grep together must not multiply threads, descriptors and memory without bound.
pub const MAX_ACTIVE_READ_AHEADS: usize = 8;
/// A read-ahead whose files nobody has asked for in this long stops (its threads
/// exit, its handles and bytes are freed): the grep that asked for it was interrupted
/// or gave up.
pub const AHEAD_IDLE: Duration = Duration::from_secs(5);

static ACTIVE: AtomicUsize = AtomicUsize::new(0);

/// A file read ahead: its bytes, the handle they were read through, and what `fstat`
/// said of it right after.
struct Fetched {
    file: File,
    data: Vec<u8>,
    /// How many bytes were asked for (the listed size + 1): fewer in `data` means the
    /// read reached the end of the file.
    want: u64,
    stamp: Stamp,
}

/// What a change to a file moves: its size, modification and change times.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Stamp {
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

fn stamp(file: &File) -> Option<Stamp> {
    use std::os::unix::fs::MetadataExt;
    let m = file.metadata().ok()?;
    m.is_file().then(|| Stamp {
        size: m.len(),
        mtime: (m.mtime(), m.mtime_nsec()),
        ctime: (m.ctime(), m.ctime_nsec()),
    })
}

enum Slot {
    /// Not claimed by a reader yet.
    Waiting,
    /// A reader is reading it.
    Reading,
    /// Read: waiting for the component.
    Ready(Fetched),
    /// Not read ahead (refused, too large, skipped, taken): the component reads it
    /// itself.
    Gone,
}

struct State {
    files: Vec<PrefetchFile>,
    slots: Vec<Slot>,
    /// The next file a reader claims.
    next: usize,
    /// The component's position: files before it were read or skipped.
    cursor: usize,
    /// Files and bytes claimed by readers and not yet taken or dropped.
    held_files: usize,
    held_bytes: u64,
    stopped: bool,
    /// The component is waiting for a slot a reader is reading.
    consumer_waiting: bool,
    /// Readers waiting for room in the window.
    readers_waiting: usize,
    /// Files taken so far: tells a reader that timed out waiting for room whether
    /// the component is still taking files (the window was not yet worth a wake-up).
    takes: u64,
}

impl State {
    /// Nothing read yet: every file waiting.
    fn new(files: Vec<PrefetchFile>) -> State {
        State {
            slots: files.iter().map(|_| Slot::Waiting).collect(),
            files,
            next: 0,
            cursor: 0,
            held_files: 0,
            held_bytes: 0,
            stopped: false,
            consumer_waiting: false,
            readers_waiting: 0,
            takes: 0,
        }
    }
}

struct Shared {
    root: Dir,
    state: Mutex<State>,
    /// A slot became `Ready` or `Gone`.
    ready: Condvar,
    /// The window has room, or the read-ahead stopped.
    room: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stop(&self) {
        let mut st = self.lock();
        if !st.stopped {
            st.stopped = true;
            st.slots.clear();
            st.files.clear();
            st.held_bytes = 0;
            st.held_files = 0;
        }
        drop(st);
        self.room.notify_all();
        self.ready.notify_all();
    }
}

/// Reader threads inside their reading loop, process-wide: each holds its
/// read-ahead's place while counted, so this never passes
/// `AHEAD_THREADS * MAX_ACTIVE_READ_AHEADS` (what the tests check, without counting
/// threads that have finished and are still exiting).
static READING: AtomicUsize = AtomicUsize::new(0);

/// See [`READING`].
#[cfg(test)]
pub(super) fn readers_reading() -> usize {
    READING.load(Ordering::Acquire)
}

/// Counts a reader thread in [`READING`] until dropped.
struct Reading;

impl Reading {
    fn enter() -> Reading {
        READING.fetch_add(1, Ordering::AcqRel);
        Reading
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        READING.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Counts a running read-ahead against [`MAX_ACTIVE_READ_AHEADS`] until dropped.
struct ActiveSlot;

impl ActiveSlot {
    fn acquire() -> Option<ActiveSlot> {
        ACTIVE
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_ACTIVE_READ_AHEADS).then_some(n + 1)
            })
            .ok()
            .map(|_| ActiveSlot)
    }
}

impl Drop for ActiveSlot {
    fn drop(&mut self) {
        ACTIVE.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The read-ahead of one directory volume (at most one list at a time).
#[derive(Default)]
pub(super) struct ReadAhead {
    current: Mutex<Option<Running>>,
}

impl std::fmt::Debug for ReadAhead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadAhead").finish_non_exhaustive()
    }
}

/// A running read-ahead; stopping it (drop) makes its threads exit.
struct Running {
    shared: Arc<Shared>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shared.stop();
    }
}

impl ReadAhead {
    fn current(&self) -> MutexGuard<'_, Option<Running>> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Drops the current read-ahead (its threads exit; handles and bytes are freed).
    pub(super) fn clear(&self) {
        let old = self.current().take();
        drop(old);
    }

    /// Replaces the list with `files` (beneath `root`) and starts reading them.
    pub(super) fn start(&self, root: &Dir, files: &[PrefetchFile]) {
        self.clear();
        if files.is_empty() {
            return;
        }
        let Some(active) = ActiveSlot::acquire() else { return };
        let Ok(root) = root.try_clone() else { return };
        let shared = Arc::new(Shared {
            root,
            state: Mutex::new(State::new(files.to_vec())),
            ready: Condvar::new(),
            room: Condvar::new(),
        });
        // This read-ahead's place among MAX_ACTIVE_READ_AHEADS is held by its reader
        // threads and given back when the last one exits, not when it stops: a
        // stopped reader may still be reading a file of up to AHEAD_BYTES.
        let active = Arc::new(active);
        for i in 0..AHEAD_THREADS {
            let shared = shared.clone();
            let active = active.clone();
            let spawned =
                std::thread::Builder::new().name(format!("filestore-ahead-{i}")).spawn(move || {
                    let _active = active;
                    // Dropped first (locals drop in reverse): counted only while
                    // the place is held.
                    let _reading = Reading::enter();
                    reader(&shared)
                });
            if spawned.is_err() {
                break;
            }
        }
        *self.current() = Some(Running { shared });
    }

    /// The first `len` bytes of `path` if it was read ahead and has not changed since
    /// (see the module documentation); `None`: read it as usual. Files listed before
    /// `path` that were not asked for are dropped.
    pub(super) fn take(&self, path: &str, len: u64) -> Option<Vec<u8>> {
        let shared = self.current().as_ref()?.shared.clone();
        let fetched = {
            let mut st = shared.lock();
            if st.stopped {
                return None;
            }
            let cursor = st.cursor;
            let j = cursor + st.files[cursor..].iter().position(|f| f.path == path)?;
            for i in cursor..j {
                release(&mut st, i);
            }
            st.cursor = j + 1;
            if st.next <= j {
                // The readers have not reached it: the component reads it itself.
                st.next = j + 1;
            }
            // `stopped` first: a stop (another session's grep replacing this
            // read-ahead) empties the slots while this waits.
            while !st.stopped && matches!(st.slots[j], Slot::Reading) {
                st.consumer_waiting = true;
                st = shared.ready.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            st.consumer_waiting = false;
            let slot = if st.stopped {
                Slot::Gone
            } else {
                std::mem::replace(&mut st.slots[j], Slot::Gone)
            };
            if let Slot::Ready(f) = &slot {
                st.held_files -= 1;
                st.held_bytes -= f.want;
            }
            st.takes += 1;
            // Readers are woken when half the window is free, not at every file: a
            // wake-up per file (two threads, 20,000 files) cost more than it saved
            // when the cores were busy.
            let wake = st.readers_waiting > 0
                && st.held_files <= AHEAD_FILES / 2
                && st.held_bytes <= AHEAD_BYTES / 2;
            drop(st);
            if wake {
                shared.room.notify_all();
            }
            match slot {
                Slot::Ready(f) => f,
                _ => return None,
            }
        };
        serve(fetched, len)
    }
}

/// Drops slot `i` (skipped by the component), giving its room back.
fn release(st: &mut State, i: usize) {
    match std::mem::replace(&mut st.slots[i], Slot::Gone) {
        Slot::Ready(f) => {
            st.held_files -= 1;
            st.held_bytes -= f.want;
        }
        Slot::Reading => {
            // Its reader sees `Gone` when done and drops the bytes; the room is given
            // back now.
            st.held_files -= 1;
            st.held_bytes -= st.files[i].size.saturating_add(1);
        }
        Slot::Waiting | Slot::Gone => {}
    }
}

/// The bytes the component asked for (`len` from offset 0), from a file read ahead:
/// checked against the handle it was read through, read again through it if the file
/// changed since.
fn serve(f: Fetched, len: u64) -> Option<Vec<u8>> {
    let whole = (f.data.len() as u64) < f.want;
    if !whole && len > f.data.len() as u64 {
        // More is asked for than was read, and the file may have it.
        return None;
    }
    if stamp(&f.file)? != f.stamp {
        // Changed since it was read: in place, or replaced or removed (renaming over
        // a file or unlinking it moves the old inode's change time). The handle
        // still reaches the old inode, so the component's own read resolves the
        // path again and sees what is there now.
        return None;
    }
    let mut data = f.data;
    data.truncate(usize::try_from(len).unwrap_or(usize::MAX));
    Some(data)
}

/// A reader thread: claims the next file while the window has room, reads it, and
/// hands it over; exits at the end of the list, when stopped, or when idle.
fn reader(shared: &Shared) {
    loop {
        let (i, path, want) = {
            let mut st = shared.lock();
            loop {
                if st.stopped {
                    return;
                }
                if st.next < st.cursor {
                    st.next = st.cursor;
                }
                if st.next >= st.files.len() && st.held_files == 0 {
                    // Every file was read and taken (or dropped): done.
                    drop(st);
                    shared.stop();
                    return;
                }
                if st.next < st.files.len() {
                    let i = st.next;
                    let want = st.files[i].size.saturating_add(1);
                    if want > AHEAD_BYTES || !matches!(st.slots[i], Slot::Waiting) {
                        // Too large to hold: the component reads it itself.
                        st.slots[i] = Slot::Gone;
                        st.next += 1;
                        continue;
                    }
                    if st.held_files < AHEAD_FILES && st.held_bytes + want <= AHEAD_BYTES {
                        st.next += 1;
                        st.slots[i] = Slot::Reading;
                        st.held_files += 1;
                        st.held_bytes += want;
                        break (i, st.files[i].path.clone(), want);
                    }
                }
                // No room, or read to the end: wait for the component to take what
                // is held.
                let takes = st.takes;
                st.readers_waiting += 1;
                let (next, timeout) =
                    shared.room.wait_timeout(st, AHEAD_IDLE).unwrap_or_else(|e| e.into_inner());
                st = next;
                st.readers_waiting -= 1;
                if timeout.timed_out() && !st.stopped && st.takes == takes {
                    // Nobody took a file for AHEAD_IDLE: the grep is gone.
                    drop(st);
                    shared.stop();
                    return;
                }
            }
        };
        let fetched = fetch(&shared.root, &path, want);
        let mut st = shared.lock();
        if st.stopped {
            return;
        }
        if matches!(st.slots[i], Slot::Reading) {
            st.slots[i] = match fetched {
                Some(f) => Slot::Ready(f),
                None => {
                    st.held_files -= 1;
                    st.held_bytes -= want;
                    Slot::Gone
                }
            };
        }
        let wake = st.consumer_waiting;
        drop(st);
        if wake {
            shared.ready.notify_all();
        }
    }
}

/// Opens `path` beneath `root` through the kernel-confined path only, and reads up to
/// `want` bytes of it if it is a regular file; `None` for anything else.
fn fetch(root: &Dir, path: &str, want: u64) -> Option<Fetched> {
    let comps = components(path).ok()?;
    if comps.is_empty() {
        return None;
    }
    let file = open_beneath(root, &comps, false)?;
    // One `fstat`, before the read (a FIFO or device is never read): a change during
    // or after the read moves the stamp, and the component's take reads it again.
    let stamp = stamp(&file)?;
    let mut data = Vec::with_capacity(usize::try_from(want.min(stamp.size + 1)).ok()?);
    (&file).take(want).read_to_end(&mut data).ok()?;
    Some(Fetched { file, data, want, stamp })
}

#[cfg(test)]
pub(super) fn active_read_aheads() -> usize {
    ACTIVE.load(Ordering::Acquire)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A read-ahead stopped (replaced by another grep's, on another thread) while
    /// the component waits for a file a reader is reading: the component reads the
    /// file itself (`None`), it does not index the emptied slots (a panic, found
    /// racing two sessions' greps on one volume).
    #[test]
    fn a_stop_while_waiting_for_a_file_is_a_miss() {
        let tmp = tempfile::tempdir().unwrap();
        let root = Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        // A reader has claimed the one file and is reading it.
        let mut state = State::new(vec![PrefetchFile { path: "/a.txt".into(), size: 3 }]);
        (state.slots[0], state.next, state.held_files, state.held_bytes) = (Slot::Reading, 1, 1, 4);
        let shared = Arc::new(Shared {
            root,
            state: Mutex::new(state),
            ready: Condvar::new(),
            room: Condvar::new(),
        });
        let ahead = ReadAhead { current: Mutex::new(Some(Running { shared: shared.clone() })) };
        let stopper = std::thread::spawn(move || {
            while !shared.lock().consumer_waiting {
                std::thread::yield_now();
            }
            shared.stop();
        });
        assert_eq!(ahead.take("/a.txt", 3), None);
        stopper.join().unwrap();
    }
}
