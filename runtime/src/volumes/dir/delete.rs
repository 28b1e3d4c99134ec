//! Recursive deletes in time linear in the tree: depth first over a bounded window
//! of open directory handles, never following a link, stopping at the call's
//! host-side deadline with a report of what was removed.

use super::*;

/// Most directory handles one recursive delete keeps open (see
/// [`DirVolume::remove_contents`]): bounds descriptors for deep trees, while keeping
/// the reopening work small (one confined walk from the root per this many levels).
pub const MAX_DELETE_HANDLES: usize = 64;

/// One directory being emptied by a recursive delete.
struct DeleteFrame {
    /// Its name in its parent (`None` for the directory being emptied).
    name: Option<OsString>,
    /// Its handle, while inside the window of open handles.
    dir: Option<Dir>,
    /// Subdirectories still to empty and remove.
    subdirs: Vec<OsString>,
}

impl DirVolume {
    /// Removes everything beneath the directory `comps` (not the directory itself),
    /// never following a link, in time linear in the number of entries.
    ///
    /// Depth first, with a stack of open directory handles: each directory is opened
    /// once, from its parent's handle, with `O_NOFOLLOW`. At most
    /// [`MAX_DELETE_HANDLES`] handles stay open (a 10,000-level tree must not use
    /// 10,000 descriptors); when the walk climbs back past the open window, the next
    /// [`MAX_DELETE_HANDLES`] ancestors are reopened from the root (confined, as every
    /// open) in one batch. The call's host-side deadline ([`crate::volumes::work_deadline_passed`])
    /// is checked as it goes: past it, the delete stops and says how much it removed.
    pub(super) fn remove_contents(&self, path: &str, comps: Vec<OsString>) -> Result<()> {
        let mut removed = 0u64;
        // Unlinks the non-directories of `dir`; returns its subdirectories.
        let clear = |dir: &Dir, removed: &mut u64| -> Result<Vec<OsString>> {
            let mut subdirs = Vec::new();
            for ent in dir.entries().map_err(|e| io_error(path, e))? {
                let ent = ent.map_err(|e| io_error(path, e))?;
                // The type from the directory entry itself: a link is a link.
                if ent.file_type().map_err(|e| io_error(path, e))?.is_dir() {
                    subdirs.push(ent.file_name());
                    continue;
                }
                match dir.remove_file(ent.file_name()) {
                    Ok(()) => *removed += 1,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(io_error(path, e)),
                }
            }
            Ok(subdirs)
        };
        let out_of_time = |removed: u64| {
            Error::at(
                ErrorKind::LimitExceeded,
                path,
                format!(
                    "the call's time ran out while deleting: {removed} entries were removed, the rest is still there; delete it again to continue"
                ),
            )
        };
        let base = self.descend(path, &comps, false, true)?;
        let subdirs = clear(&base, &mut removed)?;
        let mut frames = vec![DeleteFrame { name: None, dir: Some(base), subdirs }];
        loop {
            if crate::volumes::work_deadline_passed() {
                return Err(out_of_time(removed));
            }
            let top = frames.len() - 1;
            if let Some(child) = frames[top].subdirs.pop() {
                let parent = self.frame_dir(path, &comps, &mut frames, top)?;
                let dir = match parent.open_dir_nofollow(&child) {
                    Ok(d) => d,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(io_error(path, e)),
                };
                let subdirs = clear(&dir, &mut removed)?;
                frames.push(DeleteFrame { name: Some(child), dir: Some(dir), subdirs });
                // Keep at most MAX_DELETE_HANDLES open: close the oldest beyond it.
                let open = frames.len();
                if open > MAX_DELETE_HANDLES {
                    frames[open - MAX_DELETE_HANDLES - 1].dir = None;
                }
                continue;
            }
            let done = frames.pop().expect("a frame");
            let Some(name) = done.name else { return Ok(()) };
            drop(done.dir);
            let top = frames.len() - 1;
            let parent = self.frame_dir(path, &comps, &mut frames, top)?;
            match parent.remove_dir(&name) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error(path, e)),
            }
        }
    }

    /// The open handle of frame `i` of [`DirVolume::remove_contents`], reopening it
    /// and up to [`MAX_DELETE_HANDLES`] - 1 of its ancestors' descendants when the
    /// window had closed it: the lowest of them from the root, the rest each from
    /// its parent.
    fn frame_dir<'f>(
        &self,
        path: &str,
        base: &[OsString],
        frames: &'f mut [DeleteFrame],
        i: usize,
    ) -> Result<&'f Dir> {
        if frames[i].dir.is_none() {
            let start = (0..=i)
                .rev()
                .take(MAX_DELETE_HANDLES)
                .take_while(|&k| frames[k].dir.is_none())
                .last()
                .expect("frame i has no handle");
            let mut comps: Vec<OsString> = base.to_vec();
            comps.extend(frames[1..=start].iter().filter_map(|f| f.name.clone()));
            let mut dir = self.descend(path, &comps, false, true)?;
            for k in start + 1..=i {
                let name = frames[k].name.clone().expect("only the base frame has no name");
                let next = dir.open_dir_nofollow(&name).map_err(|e| io_error(path, e))?;
                frames[k - 1].dir = Some(dir);
                dir = next;
            }
            frames[i].dir = Some(dir);
        }
        Ok(frames[i].dir.as_ref().expect("opened above"))
    }
}
