//! Watching a skills directory for changes (docs/skills.md#reloading): a thread reads
//! the directory's [`DirSignature`] every few seconds and asks for a reload once a
//! changed signature held still across two polls ([`Settle`]), so a skill being
//! copied in is loaded when the copy is done, not half-way.
//!
//! Polling rather than file-system notifications (the `notify` crate): it works the
//! same on every platform and file system (network and container mounts included,
//! where inotify events may never come), adds no dependency, and a skills directory
//! is small (bounded by [`super::MAX_SKILL_ENTRIES`]), so one walk every two seconds
//! costs next to nothing.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::MAX_SKILL_ENTRIES;

/// How often `filestore serve` polls its `--skills` directory by default.
pub const DEFAULT_POLL: Duration = Duration::from_secs(2);

/// What a directory holds, as far as telling a change goes: each entry's path
/// relative to the directory, whether it is a directory, its size and modification
/// time, sorted by path. Links are described, not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirSignature {
    entries: Vec<(PathBuf, bool, u64, Option<SystemTime>)>,
}

impl DirSignature {
    /// Walks `dir`. Fails when `dir` (or a directory beneath it) cannot be read, or
    /// holds more than [`MAX_SKILL_ENTRIES`] entries.
    pub fn read(dir: &Path) -> std::io::Result<DirSignature> {
        let mut entries = Vec::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(d) = pending.pop() {
            for e in std::fs::read_dir(&d)? {
                let e = e?;
                let meta = e.path().symlink_metadata()?;
                let path = e.path();
                let rel = path.strip_prefix(dir).unwrap_or(&path).to_path_buf();
                if meta.is_dir() {
                    pending.push(path);
                }
                entries.push((rel, meta.is_dir(), meta.len(), meta.modified().ok()));
                if entries.len() > MAX_SKILL_ENTRIES {
                    return Err(std::io::Error::other(format!(
                        "more than {MAX_SKILL_ENTRIES} entries"
                    )));
                }
            }
        }
        entries.sort();
        Ok(DirSignature { entries })
    }
}

/// Decides when a changed directory is ready to load: when the signature differs
/// from the loaded one and the previous poll saw the same signature.
#[derive(Debug, Default)]
pub struct Settle {
    loaded: Option<DirSignature>,
    seen: Option<DirSignature>,
}

impl Settle {
    /// Starting from what was loaded (`None`: unknown, so the first settled
    /// signature loads).
    pub fn new(loaded: Option<DirSignature>) -> Settle {
        Settle { loaded, seen: None }
    }

    /// One poll saw `now`: whether to reload now (`now` then counts as loaded).
    pub fn observe(&mut self, now: DirSignature) -> bool {
        if self.loaded.as_ref() == Some(&now) {
            self.seen = None;
            return false;
        }
        if self.seen.as_ref() == Some(&now) {
            self.loaded = self.seen.take();
            return true;
        }
        self.seen = Some(now);
        false
    }
}

/// Polls `dir` every `every` on a thread of its own, for the life of the process:
/// `reload` runs each time a change has settled ([`Settle`]), and `unreadable` once
/// each time the directory becomes unreadable, with why (the skills loaded before
/// stay loaded meanwhile). `loaded` is the signature read before the skills in use
/// were loaded.
pub fn spawn(
    dir: PathBuf,
    every: Duration,
    loaded: Option<DirSignature>,
    mut reload: impl FnMut() + Send + 'static,
    mut unreadable: impl FnMut(&std::io::Error) + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new().name("skills-watch".into()).spawn(move || {
        let mut settle = Settle::new(loaded);
        let mut failing = false;
        loop {
            std::thread::sleep(every);
            match DirSignature::read(&dir) {
                Ok(now) => {
                    failing = false;
                    if settle.observe(now) {
                        reload();
                    }
                }
                Err(e) => {
                    if !failing {
                        unreadable(&e);
                    }
                    failing = true;
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_loads_once_it_held_still_for_two_polls() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::create_dir(dir.join("a")).unwrap();
        std::fs::write(dir.join("a/SKILL.md"), "one").unwrap();
        let start = DirSignature::read(dir).unwrap();
        let mut settle = Settle::new(Some(start.clone()));
        assert!(!settle.observe(start.clone()), "nothing changed");
        // A copy in progress: each poll sees it grow, so nothing loads yet.
        std::fs::write(dir.join("a/SKILL.md"), "one two").unwrap();
        assert!(!settle.observe(DirSignature::read(dir).unwrap()));
        std::fs::write(dir.join("a/SKILL.md"), "one two three").unwrap();
        assert!(!settle.observe(DirSignature::read(dir).unwrap()));
        // The same on the next poll: load, once.
        assert!(settle.observe(DirSignature::read(dir).unwrap()));
        assert!(!settle.observe(DirSignature::read(dir).unwrap()));
        // A new folder and a removed one both change the signature.
        std::fs::create_dir(dir.join("b")).unwrap();
        let with_b = DirSignature::read(dir).unwrap();
        std::fs::remove_dir_all(dir.join("a")).unwrap();
        let without_a = DirSignature::read(dir).unwrap();
        assert_ne!(with_b, without_a);
        assert!(!settle.observe(without_a.clone()));
        assert!(settle.observe(without_a));
        // A change undone before it settled loads nothing.
        std::fs::write(dir.join("b/x"), "x").unwrap();
        assert!(!settle.observe(DirSignature::read(dir).unwrap()));
        std::fs::remove_file(dir.join("b/x")).unwrap();
        assert!(!settle.observe(DirSignature::read(dir).unwrap()));
        assert!(DirSignature::read(&dir.join("missing")).is_err());
    }
}
