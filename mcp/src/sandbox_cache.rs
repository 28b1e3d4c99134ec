//! Sandboxes kept between MCP 2026-07-28 requests of one conversation
//! (docs/state.md#mcp-2026-07-28).
//!
//! A 2026-07-28 HTTP request has no session: without a cache, each one gets a
//! sandbox made for it (a component instance, the tool configuration loaded, the
//! conversation's skills restored by reading their `SKILL.md`s). With one, a request
//! takes the sandbox an earlier request of its conversation left here, when that
//! sandbox is still current: each entry carries the [`Stamp`] of the state document
//! it was brought up to, and a taker compares it with the document it reads anyway
//! (the one read of the document every request makes). Any change by another
//! request, on this replica or another (a skill activated or dropped, an approval
//! gate set or lifted, the conversation removed and made again), moves the
//! document's version, so a stale sandbox is dropped and a fresh one made: a cached
//! sandbox never serves skills or approvals its conversation no longer has.
//!
//! A request takes its conversation's entry out (two requests of one conversation
//! at once: the second makes its own) and gives it back when its server is
//! dropped; of two given back, the one brought up to the newer document stays. The
//! cache holds at most its capacity of sandboxes, least recently used out first.

use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex};

use super::conversations::Stamp;
use super::sandbox::Sandbox;
use filestore_store::conversation::ConversationKey;

/// The default of `--conversation-cache`: sandboxes kept (each a component
/// instance: a few MB of memory).
pub const DEFAULT_CAPACITY: usize = 64;

/// A bounded map of entries by conversation, least recently used out first; of two
/// entries given back for one conversation, the newer stays.
struct Entries<T> {
    lru: lru::LruCache<ConversationKey, (Stamp, T)>,
}

impl<T> Entries<T> {
    fn new(capacity: NonZeroUsize) -> Entries<T> {
        Entries { lru: lru::LruCache::new(capacity) }
    }

    fn take(&mut self, key: &ConversationKey) -> Option<(Stamp, T)> {
        self.lru.pop(key)
    }

    /// Keeps `item` for `key` unless an entry brought up to a newer document is
    /// there (the other request changed the conversation after this one read it).
    /// What is no longer kept (`item`, the entry it replaced, or the one it
    /// evicted), for the caller to drop outside its lock.
    fn give_back(&mut self, key: ConversationKey, stamp: Stamp, item: T) -> Option<T> {
        if let Some((kept, _)) = self.lru.peek(&key)
            && kept.created_ms == stamp.created_ms
            && kept.version > stamp.version
        {
            return Some(item);
        }
        self.lru.push(key, (stamp, item)).map(|(_, (_, dropped))| dropped)
    }
}

/// The sandboxes of `serve --state --conversation-cache N` (see the module docs).
pub struct SandboxCache {
    entries: Mutex<Entries<Arc<Mutex<Sandbox>>>>,
}

impl SandboxCache {
    /// A cache of at most `capacity` sandboxes; `None` for 0 (no cache).
    pub fn new(capacity: usize) -> Option<SandboxCache> {
        let capacity = NonZeroUsize::new(capacity)?;
        Some(SandboxCache { entries: Mutex::new(Entries::new(capacity)) })
    }

    /// How many sandboxes are kept now.
    pub fn len(&self) -> usize {
        self.lock().lru.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sandbox kept for `key` if it was brought up to `current` (the
    /// conversation's document as just read); a stale one is dropped.
    pub(crate) fn take(
        &self,
        key: &ConversationKey,
        current: Stamp,
    ) -> Option<Arc<Mutex<Sandbox>>> {
        let (stamp, sandbox) = self.lock().take(key)?;
        (stamp == current).then_some(sandbox)
    }

    /// Keeps `sandbox`, brought up to `stamp`, for the next request of `key`.
    pub(crate) fn give_back(
        &self,
        key: ConversationKey,
        stamp: Stamp,
        sandbox: Arc<Mutex<Sandbox>>,
    ) {
        // A sandbox no longer kept is dropped after the lock is released.
        let dropped = self.lock().give_back(key, stamp, sandbox);
        drop(dropped);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries<Arc<Mutex<Sandbox>>>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> ConversationKey {
        ConversationKey::scoped("", name).unwrap()
    }

    fn stamp(version: u64) -> Stamp {
        Stamp { version, created_ms: 1 }
    }

    #[test]
    fn the_least_recently_used_goes_first() {
        let mut e = Entries::new(NonZeroUsize::new(2).unwrap());
        e.give_back(key("a"), stamp(1), 'a');
        e.give_back(key("b"), stamp(1), 'b');
        assert!(e.lru.get(&key("a")).is_some());
        e.give_back(key("c"), stamp(1), 'c');
        assert_eq!(e.lru.len(), 2);
        assert!(e.take(&key("b")).is_none(), "b was the least recently used");
        assert_eq!(e.take(&key("a")).map(|(_, v)| v), Some('a'));
        assert!(e.take(&key("a")).is_none(), "taken entries are gone");
    }

    #[test]
    fn of_two_given_back_the_newer_stays() {
        let mut e = Entries::new(NonZeroUsize::new(4).unwrap());
        e.give_back(key("a"), stamp(5), "newer");
        e.give_back(key("a"), stamp(4), "older");
        assert_eq!(e.take(&key("a")), Some((stamp(5), "newer")));
        // A conversation made again starts over: its entry replaces the old one.
        e.give_back(key("a"), stamp(9), "old conversation");
        e.give_back(key("a"), Stamp { version: 1, created_ms: 2 }, "new conversation");
        assert_eq!(e.take(&key("a")).map(|(_, v)| v), Some("new conversation"));
    }
}
