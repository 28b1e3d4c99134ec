//! The immutable attribute (`chattr +i`) on a file for a guard's lifetime: the one
//! way to make a rename over a file fail even for root while its directory stays
//! writable, which the fault tests use to make a step fail after every check passed.

use std::path::Path;
use std::process::Command;

/// A file made immutable; made mutable again when dropped.
pub struct Immutable<'a>(&'a Path);

impl<'a> Immutable<'a> {
    /// Makes `path` immutable, or panics saying what the test needs: without chattr,
    /// `CAP_LINUX_IMMUTABLE` or a file system with the attribute there is no way to
    /// make only the rename fail, and a test must not pass on something weaker.
    pub fn set(path: &'a Path) -> Immutable<'a> {
        let out = Command::new("chattr").arg("+i").arg(path).output();
        let why = match out {
            Ok(o) if o.status.success() => return Immutable(path),
            Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
            Err(e) => format!("cannot run chattr: {e}"),
        };
        panic!(
            "chattr +i {}: {why}\nthis test needs chattr (e2fsprogs), run as root (or with \
             CAP_LINUX_IMMUTABLE), on a file system with the immutable attribute (ext4, xfs, btrfs)",
            path.display()
        )
    }
}

impl Drop for Immutable<'_> {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(self.0).status();
    }
}
