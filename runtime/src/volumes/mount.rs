//! Mounts: which volume a session sees where ([`MountSpec`]), and the combinations
//! of mounts refused because they would break a promise ([`check_mounts`]).

use super::SharedVolume;
use crate::error::{Error, Result};

/// One volume to mount into a session.
#[derive(Clone)]
pub struct MountSpec {
    /// Mount point (virtual path).
    pub point: String,
    /// The backend.
    pub volume: SharedVolume,
    /// Overlay order at the same point: lower wins.
    pub priority: i32,
    /// Refuse every mutation through this mount.
    pub read_only: bool,
    /// A copy-on-write mount's upper layer (docs/cow.md): `volume` is then the lower
    /// layer, only ever read, and every change lands here.
    pub upper: Option<SharedVolume>,
    /// `upper` is the session's own in-memory layer (`:cow`): a server keeping
    /// conversations (`serve --state`) mounts the conversation's upper layer in its
    /// place, kept in the state store (docs/cow.md#under-serve---state).
    pub upper_from_conversation: bool,
}

impl MountSpec {
    /// A writable mount at priority 0.
    pub fn new(point: impl Into<String>, volume: SharedVolume) -> MountSpec {
        MountSpec {
            point: point.into(),
            volume,
            priority: 0,
            read_only: false,
            upper: None,
            upper_from_conversation: false,
        }
    }

    /// A copy-on-write mount (docs/cow.md): reads fall through to `lower`, every
    /// change lands in `upper` (a fresh [`crate::volumes::MemoryVolume`], or a
    /// writable directory volume to keep the changes for `filestore apply`). Open
    /// `lower` read-only: then nothing through this mount can write it.
    pub fn cow(point: impl Into<String>, lower: SharedVolume, upper: SharedVolume) -> MountSpec {
        MountSpec { upper: Some(upper), ..MountSpec::new(point, lower) }
    }

    /// The same copy-on-write mount, its upper layer the conversation's when a
    /// server keeps conversations (see [`MountSpec::upper_from_conversation`](MountSpec#structfield.upper_from_conversation)).
    pub fn with_conversation_upper(mut self) -> MountSpec {
        self.upper_from_conversation = true;
        self
    }

    /// The same mount, read-only.
    pub fn read_only(mut self) -> MountSpec {
        self.read_only = true;
        self
    }

    /// The same mount with an overlay priority.
    pub fn priority(mut self, priority: i32) -> MountSpec {
        self.priority = priority;
        self
    }
}

/// Mount combinations that would break a promise, refused when a session is created:
///
/// - the tool-results volume (`/tool_calls`) on a volume that cannot keep entry
///   metadata (a directory): stored results would lose their read-only flag and
///   attributes, so agents could edit them;
/// - a read-only mount whose storage lies inside a writable mount's (`--mount /w=.
///   --mount /docs=./docs:ro`): its files could be changed through the writable one,
///   so the read-only promise would be false; a copy-on-write mount's lower
///   directory counts as read-only, its upper layer as its writable storage;
/// - a copy-on-write mount whose upper directory and lower directory lie inside one
///   another.
pub fn check_mounts(mounts: &[MountSpec]) -> Result<()> {
    let results = filestore_guest::invoke::results::RESULTS_MOUNT;
    if let Some(m) = mounts.iter().find(|m| m.point == results && !m.volume.keeps_entry_metadata())
    {
        return Err(Error::mount(format!(
            "the mount at '{}' holds tool results, which must stay read-only with their attributes; this volume cannot keep entry metadata (a directory cannot; an object volume only with `ObjectVolume::with_trusted_entry_types`), so agents could edit stored results. Use an in-memory volume there (the default; `mem:` on the command line)",
            m.point
        )));
    }
    // The upper layer of a copy-on-write mount inside its lower directory (or the
    // other way round) would write the lower one.
    for m in mounts {
        let Some(upper) = &m.upper else { continue };
        if let (Some(u), Some(l)) = (upper.identity(), m.volume.identity())
            && u.overlaps(&l)
        {
            return Err(Error::mount(format!(
                "the copy-on-write mount at '{}' has its upper layer and its lower directory inside one another, so changes would reach the lower directory; keep the upper directory outside it",
                m.point
            )));
        }
    }
    // A copy-on-write mount's lower layer is read-only storage like a read-only
    // mount's; what it writes is its upper layer.
    for ro in mounts.iter().filter(|m| m.read_only || m.upper.is_some()) {
        let Some(ro_id) = ro.volume.identity() else { continue };
        for rw in mounts.iter().filter(|m| !m.read_only) {
            let Some(rw_id) = rw.upper.as_ref().unwrap_or(&rw.volume).identity() else {
                continue;
            };
            if ro_id.storage == rw_id.storage && ro_id.root.starts_with(&rw_id.root) {
                return Err(Error::mount(format!(
                    "the read-only mount at '{}' lies inside the storage of the writable mount at '{}', through which its files could be changed; mount '{}' read-only too, or choose roots that do not contain each other",
                    ro.point, rw.point, rw.point
                )));
            }
        }
    }
    Ok(())
}
