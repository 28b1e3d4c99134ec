//! `walk` on more than one core: the directories beneath the walked one are listed on
//! a few scoped threads first, then the walk is assembled from those listings in
//! exactly the order (and with exactly the cut at `max_entries`) of a walk on one
//! thread.
//!
//! Why: a walk lists every directory (`getdents`) and `lstat`s every entry for its
//! size and time, and grep waits for all of it before its first read (~100 ms for
//! 26,000 entries, a third of `rg -j1`'s whole search). The component is blocked in
//! the call meanwhile, so the other cores are idle.
//!
//! What does not change: each directory is opened by the same confined
//! [`DirVolume::descend`] (kernel `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, else one
//! `O_NOFOLLOW` component at a time) and listed by the same `children` (an `lstat`
//! per entry, links reported and never followed); nothing is read. Memory: the
//! listings held are at most the entries the walk returns (the threads stop once
//! they hold more than `max_entries`) plus one directory per thread. A directory the
//! threads did not reach (a cut walk) is listed when the assembly gets to it, as on
//! one thread.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use super::*;

/// Most helper threads one walk starts (besides the calling thread); fewer on a
/// machine with fewer cores (none on one core).
pub const WALK_HELPERS: usize = 3;
/// Most walk helper threads running in the process at once: many sessions walking
/// together must not multiply threads without bound (a walk without a helper runs
/// on its calling thread alone).
pub const MAX_WALK_HELPERS: usize = 8;

/// Directories the calling thread lists alone before it starts helpers: a walk of a
/// few directories is over before a thread would have started.
const WALK_ALONE_FIRST: usize = 8;

/// Tests: a directory of this name panics when listed (see `listing`).
#[cfg(test)]
pub(super) const PANIC_WHEN_LISTED: &str = "/panics-when-listed";

static HELPERS: AtomicUsize = AtomicUsize::new(0);

/// Helper threads taken from [`MAX_WALK_HELPERS`] until dropped.
struct Helpers(usize);

impl Helpers {
    /// Up to `want` helpers, as many as are free.
    fn acquire(want: usize) -> Helpers {
        let mut got = 0;
        let _ = HELPERS.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            got = want.min(MAX_WALK_HELPERS.saturating_sub(n));
            Some(n + got)
        });
        Helpers(got)
    }
}

impl Drop for Helpers {
    fn drop(&mut self) {
        HELPERS.fetch_sub(self.0, Ordering::AcqRel);
    }
}

/// A directory's listing, or `None` when it could not be opened or listed (swapped
/// for a link, removed, unreadable since its parent was listed): the walk skips it.
type Listing = Option<Vec<Entry>>;

struct State {
    /// Directories still to list; popped from the end, so in the walk's own order.
    todo: Vec<String>,
    /// Threads listing a directory right now.
    busy: usize,
    /// Entries held in `done`, with the walked directory's own.
    held: usize,
    done: HashMap<String, Listing>,
}

/// A directory claimed by a thread of `prelist`; dropped only by a panic while it
/// is listed (the thread forgets it otherwise).
struct Claim<'a> {
    state: &'a Mutex<State>,
    changed: &'a Condvar,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.busy -= 1;
        st.held = usize::MAX;
        drop(st);
        self.changed.notify_all();
    }
}

/// Whether the walk descends into `e`: a directory, not a link or special file.
fn descends(e: &Entry) -> bool {
    e.kind == EntryKind::Directory && e.entry_type == TYPE_DIRECTORY
}

impl DirVolume {
    /// The listing of the directory at `dir_path` (beneath the root), or `None` when
    /// it cannot be opened or listed now.
    fn listing(&self, dir_path: &str) -> Listing {
        #[cfg(test)]
        if dir_path.ends_with(PANIC_WHEN_LISTED) {
            panic!("test: listing {dir_path}");
        }
        let c = components(dir_path).ok()?;
        let dir = self.open_listable(dir_path, &c).ok()?;
        self.children(&dir, dir_path).ok()
    }

    /// Lists the directories beneath one whose `children` are given, on the calling
    /// thread and up to `want` others (as many as [`MAX_WALK_HELPERS`] leaves free),
    /// until all are listed or more than `max_entries` entries are held. An empty map
    /// when no helper is free or there is too little to share (the assembly then
    /// lists as it goes).
    fn prelist(
        &self,
        children: &[Entry],
        max_entries: usize,
        want: usize,
    ) -> HashMap<String, Listing> {
        let todo: Vec<String> =
            children.iter().rev().filter(|e| descends(e)).map(|e| e.path.clone()).collect();
        if todo.len() < 2 || children.len() >= max_entries || want == 0 {
            return HashMap::new();
        }
        let state = Mutex::new(State { todo, busy: 0, held: children.len(), done: HashMap::new() });
        let changed = Condvar::new();
        let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
        // Lists directories until there are none left, or `budget` were listed.
        let work = |budget: usize| {
            for _ in 0..budget {
                let dir_path = {
                    let mut st = lock();
                    loop {
                        if st.held > max_entries {
                            // Enough for the walk's cut: the rest is never needed.
                            changed.notify_all();
                            return;
                        }
                        if let Some(d) = st.todo.pop() {
                            st.busy += 1;
                            break d;
                        }
                        if st.busy == 0 {
                            changed.notify_all();
                            return;
                        }
                        st = changed.wait(st).unwrap_or_else(|e| e.into_inner());
                    }
                };
                // A panic while listing gives the claim back and stops the others,
                // which would otherwise wait for this directory forever (the scope
                // then re-raises the panic in the caller).
                let claim = Claim { state: &state, changed: &changed };
                let listing = self.listing(&dir_path);
                std::mem::forget(claim);
                let mut st = lock();
                st.busy -= 1;
                if let Some(l) = &listing {
                    st.held = st.held.saturating_add(l.len()); // MAX after a panic
                    st.todo.extend(l.iter().rev().filter(|e| descends(e)).map(|e| e.path.clone()));
                }
                st.done.insert(dir_path, listing);
                drop(st);
                changed.notify_all();
            }
        };
        // A small tree is listed before a thread would have started: helpers only
        // for what is left after the first few directories.
        work(WALK_ALONE_FIRST);
        let left = {
            let st = lock();
            st.todo.len() >= 2 && st.held <= max_entries
        };
        let helpers = if left { Helpers::acquire(want) } else { Helpers(0) };
        std::thread::scope(|s| {
            for _ in 0..helpers.0 {
                // A helper that cannot start leaves its share to the others.
                let _ = std::thread::Builder::new()
                    .name("filestore-walk".into())
                    .spawn_scoped(s, || work(usize::MAX));
            }
            work(usize::MAX);
        });
        state.into_inner().unwrap_or_else(|e| e.into_inner()).done
    }

    /// The walk of the directory `top` (open, at `path`): its entries and those of
    /// every directory beneath it that is not a link, in the order of a depth-first
    /// walk by name that lists each directory whole before descending, cut at
    /// `max_entries`. Up to `helpers` other threads list directories meanwhile (see
    /// the module documentation); the answer is the same with any number.
    pub(super) fn walk_from(
        &self,
        top: Dir,
        path: &str,
        max_entries: usize,
        helpers: usize,
    ) -> Result<Walk> {
        let first = self.children(&top, path)?;
        drop(top);
        let mut listed = self.prelist(&first, max_entries, helpers);
        let mut walk = Walk::default();
        let mut stack: Vec<(String, Listing)> = vec![(path.to_string(), Some(first))];
        while let Some((dir_path, listing)) = stack.pop() {
            let listing = match listing {
                Some(l) => Some(l),
                None => listed.remove(&dir_path).unwrap_or_else(|| self.listing(&dir_path)),
            };
            let Some(children) = listing else { continue };
            let mut subdirs = Vec::new();
            for e in children {
                if walk.entries.len() >= max_entries {
                    walk.truncated = true;
                    return Ok(walk);
                }
                if descends(&e) {
                    subdirs.push(e.path.clone());
                }
                walk.entries.push(e);
            }
            // Reversed so directories are visited in name order.
            stack.extend(subdirs.into_iter().rev().map(|d| (d, None)));
        }
        Ok(walk)
    }
}

/// Helper threads a walk asks for on this machine: [`WALK_HELPERS`], at most one
/// fewer than the cores.
pub(super) fn helpers_wanted() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    WALK_HELPERS.min(cores.saturating_sub(1))
}
