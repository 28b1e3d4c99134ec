//! The lock that gives a copy-on-write upper directory to one session at a time.

/// The lock file in a copy-on-write upper directory.
pub const UPPER_LOCK: &str = "cow.lock";

/// Takes the upper directory `upper` for one session: an exclusive OS lock on its
/// [`UPPER_LOCK`], held by the opened volume until the session ends. Two sessions
/// over one upper directory would overwrite each other's whiteouts, so the second is
/// refused, naming the directory, and so is `filestore apply` while a session
/// writes it.
pub fn lock_upper(
    point: &str,
    upper: &std::path::Path,
) -> Result<std::fs::File, crate::error::Error> {
    let path = upper.join(UPPER_LOCK);
    let file =
        std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(
            |e| {
                crate::error::Error::mount_with(
                    format!("mount {point}: cannot open {}", path.display()),
                    e,
                )
            },
        )?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(crate::error::Error::mount(format!(
            "mount {point}: the upper directory {} is in use by another session (it holds {UPPER_LOCK}); a directory upper layer serves one session at a time: give each session its own (`{{sub}}` in the path makes one per caller) or use :cow for an upper layer in memory",
            upper.display()
        ))),
        Err(std::fs::TryLockError::Error(e)) => Err(crate::error::Error::mount_with(
            format!("mount {point}: cannot lock {}", path.display()),
            e,
        )),
    }
}
