//! Advisory locks on files beneath the root (`flock`), for writers that must take
//! turns: the state store's compare-and-swap, a copy-on-write upper layer held by
//! one session at a time.

use std::io;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{File, OpenOptions};
use filestore_guest::error::{Error, ErrorKind, Result};

use super::DirVolume;
use super::errors::io_error;
use super::resolve::components;

/// An exclusive lock taken by [`DirVolume::lock`], released on drop (closing the
/// file releases its `flock`).
#[derive(Debug)]
pub struct DirLock {
    _file: File,
}

/// `flock(LOCK_EX | LOCK_NB)`: `Ok(false)` while another open file holds it.
#[cfg(target_os = "linux")]
fn try_flock(file: &File) -> io::Result<bool> {
    use rustix::fs::{FlockOperation, flock};
    match flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
        Err(rustix::io::Errno::INTR) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Without `flock` (not Linux) no lock is taken: refused rather than unsafe.
#[cfg(not(target_os = "linux"))]
fn try_flock(_: &File) -> io::Result<bool> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "advisory locks need Linux"))
}

impl DirVolume {
    /// Takes an exclusive advisory lock (`flock`) on the file at `path`, created
    /// empty when missing (never through a link, confined like every other path),
    /// polling for at most `wait`; `limit-exceeded` when it stays held. The lock is
    /// released when the guard drops, and by the kernel when the process dies
    /// however it dies, so a killed holder never leaves it stuck. Advisory: it only
    /// orders the writers that take it (the state store's compare-and-swap,
    /// crate::conversation), not other access to the directory.
    pub fn lock(&self, path: &str, wait: std::time::Duration) -> Result<DirLock> {
        let comps = components(path)?;
        self.check_writable(path)?;
        if comps.is_empty() {
            return Err(Error::at(ErrorKind::NotAFile, path, "cannot lock the volume root"));
        }
        let (parent, name) = self.parent_of(path, &comps, true)?;
        let mut opts = OpenOptions::new();
        opts.read(true).write(true).create(true).follow(FollowSymlinks::No);
        let file = parent.open_with(name, &opts).map_err(|e| io_error(path, e))?;
        let give_up = std::time::Instant::now() + wait;
        let mut pause = std::time::Duration::from_micros(200);
        loop {
            match try_flock(&file) {
                Ok(true) => return Ok(DirLock { _file: file }),
                Ok(false) if std::time::Instant::now() < give_up => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(std::time::Duration::from_millis(20));
                }
                Ok(false) => {
                    return Err(Error::at(
                        ErrorKind::LimitExceeded,
                        path,
                        format!("the lock stayed held for {} ms", wait.as_millis()),
                    ));
                }
                Err(e) => return Err(io_error(path, e)),
            }
        }
    }
}
