//! `filestore_write`, `filestore_delete`, `filestore_move` (DESIGN §5).
//!
//! Every mutation goes through [`MountTable::writable`], which refuses read-only
//! mounts and paths outside any mount, and each checks read-only entries first, so
//! the error names the path the agent gave.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::Entry;
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;
use crate::vfs::volume::WriteOptions;

/// Parameters of `filestore_write`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WriteRequest {
    /// The file to create or replace.
    pub path: String,
    /// The whole new content.
    pub content: String,
    /// Fail with `already-exists` when the file exists.
    #[serde(default)]
    pub create_only: bool,
}

/// Parameters of `filestore_delete`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteRequest {
    /// File or directory to delete.
    pub path: String,
    /// Required to delete a non-empty directory.
    #[serde(default)]
    pub recursive: bool,
}

/// Parameters of `filestore_move`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRequest {
    /// What to move.
    pub source: String,
    /// Where to.
    pub destination: String,
    /// Replace an existing destination file.
    #[serde(default)]
    pub overwrite: bool,
}

/// Result of a mutation: the entry concerned and what happened.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MutationResult {
    /// The entry written or moved to; for delete, the entry as it was.
    pub entry: Entry,
    /// A one-line summary.
    pub message: String,
}

/// Creates or replaces a file.
pub fn write(mounts: &MountTable, limits: &Limits, req: &WriteRequest) -> Result<MutationResult> {
    let path = paths::normalize(&req.path)?;
    if req.content.len() as u64 > limits.write_bytes {
        return Err(Error::at(
            ErrorKind::TooLarge,
            &path,
            format!(
                "content is {} bytes; the write limit is {} bytes",
                req.content.len(),
                limits.write_bytes
            ),
        ));
    }
    let existed = match mounts.stat(&path) {
        Ok(_) => true,
        Err(e) if crate::vfs::mounts::is_absent(&e) => false,
        Err(e) => return Err(e),
    };
    let opts = WriteOptions { create_only: req.create_only, ..Default::default() };
    let entry = mounts.write(&path, req.content.as_bytes(), &opts)?;
    let message = format!(
        "{} {} ({} bytes).",
        if existed { "Replaced" } else { "Created" },
        entry.path,
        entry.size
    );
    Ok(MutationResult { entry, message })
}

/// Deletes a file or directory.
pub fn delete(mounts: &MountTable, req: &DeleteRequest) -> Result<MutationResult> {
    let path = paths::normalize(&req.path)?;
    let entry = mounts.stat(&path)?;
    if entry.read_only && !entry.is_dir() {
        return Err(Error::at(ErrorKind::ReadOnly, &path, "entry is read-only"));
    }
    let (m, rel) = mounts.writable(&path)?;
    m.volume.delete(&rel, req.recursive).map_err(|e| e.with_path(&path))?;
    let message = format!("Deleted {}{}.", path, if entry.is_dir() { " (directory)" } else { "" });
    Ok(MutationResult { entry, message })
}

/// Moves a file or directory. Within one volume it is the volume's rename; across
/// volumes it copies every file, then deletes the source (a failure while copying
/// leaves the source intact).
pub fn move_entry(
    mounts: &MountTable,
    limits: &Limits,
    req: &MoveRequest,
) -> Result<MutationResult> {
    let src = paths::normalize(&req.source)?;
    let dst = paths::normalize(&req.destination)?;
    let entry = mounts.stat(&src)?;
    if entry.read_only && !entry.is_dir() {
        return Err(Error::at(ErrorKind::ReadOnly, &src, "entry is read-only"));
    }
    if src == dst {
        return Err(Error::invalid_argument(
            "destination",
            format!("'{dst}' is the source itself"),
        ));
    }
    if paths::is_within(&dst, &src) {
        return Err(Error::invalid_argument(
            "destination",
            format!("cannot move '{src}' into itself ('{dst}')"),
        ));
    }
    let existing = match mounts.stat(&dst) {
        Ok(e) => Some(e),
        Err(e) if crate::vfs::mounts::is_absent(&e) => None,
        Err(e) => return Err(e),
    };
    if let Some(existing) = existing {
        if existing.is_dir() || entry.is_dir() || !req.overwrite {
            return Err(Error::at(
                ErrorKind::AlreadyExists,
                &dst,
                if existing.is_dir() || entry.is_dir() {
                    "destination exists"
                } else {
                    "destination exists; pass overwrite=true to replace it"
                },
            ));
        }
        if existing.read_only {
            return Err(Error::at(ErrorKind::ReadOnly, &dst, "entry is read-only"));
        }
    }
    let (sm, srel) = mounts.writable(&src)?;
    let (dm, drel) = mounts.writable(&dst)?;
    if std::ptr::eq(sm, dm) {
        sm.volume.rename(&srel, &drel, req.overwrite).map_err(|e| {
            let p = if e.path() == Some(drel.as_str()) { dst.clone() } else { src.clone() };
            e.with_path(p)
        })?;
    } else {
        let files: Vec<Entry> = if entry.is_dir() {
            let w = mounts.walk(&src, limits.walk_entries)?;
            if w.truncated {
                return Err(Error::at(
                    ErrorKind::LimitExceeded,
                    &src,
                    "too many entries to move across volumes",
                ));
            }
            w.entries.into_iter().filter(|e| !e.is_dir()).collect()
        } else {
            vec![entry.clone()]
        };
        for f in &files {
            let (_, data) = mounts.read_all(&f.path, limits.file_bytes)?;
            let target = paths::under(&dst, paths::strip_dir(&f.path, &src));
            let opts = WriteOptions { create_only: !req.overwrite, ..Default::default() };
            mounts.write(&target, &data, &opts)?;
        }
        sm.volume.delete(&srel, true).map_err(|e| e.with_path(&src))?;
    }
    // The move is done: a failure to describe the result must not report it as failed
    // (an agent would retry a completed move). Fall back to the source's metadata.
    let moved = mounts.stat(&dst).unwrap_or_else(|_| Entry { path: dst.clone(), ..entry });
    let message = format!("Moved {src} to {dst}.");
    Ok(MutationResult { entry: moved, message })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::memory::MemoryVolume;

    fn table() -> (MountTable, MemoryVolume, MemoryVolume) {
        let a = MemoryVolume::new();
        a.insert("/f.txt", "F").insert("/d/x", "X").insert("/d/y/z", "Z");
        let b = MemoryVolume::new();
        let ro = MemoryVolume::new();
        ro.insert("/locked", "L");
        let mut t = MountTable::new();
        t.add("/a", Box::new(a.clone()), 0, false).unwrap();
        t.add("/b", Box::new(b.clone()), 0, false).unwrap();
        t.add("/ro", Box::new(ro), 0, true).unwrap();
        (t, a, b)
    }

    #[test]
    fn write_create_only_and_read_only() {
        let (t, _, _) = table();
        let l = Limits::default();
        let r = write(
            &t,
            &l,
            &WriteRequest {
                path: "/a/new/deep.txt".into(),
                content: "hi".into(),
                create_only: true,
            },
        )
        .unwrap();
        assert!(r.message.starts_with("Created"));
        let e = write(
            &t,
            &l,
            &WriteRequest {
                path: "/a/new/deep.txt".into(),
                content: "x".into(),
                create_only: true,
            },
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::AlreadyExists);
        assert!(e.to_string().contains("/a/new/deep.txt"));
        let e = write(
            &t,
            &l,
            &WriteRequest { path: "/ro/locked".into(), content: "x".into(), create_only: false },
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ReadOnly);
        assert!(e.to_string().starts_with("/ro/locked"), "{e}");
        let e = write(
            &t,
            &l,
            &WriteRequest { path: "/ro/other".into(), content: "x".into(), create_only: false },
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ReadOnly);
        let e = write(
            &t,
            &l,
            &WriteRequest { path: "/nowhere".into(), content: "x".into(), create_only: false },
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ReadOnly);
    }

    #[test]
    fn delete_rules() {
        let (t, a, _) = table();
        assert_eq!(
            delete(&t, &DeleteRequest { path: "/a/d".into(), recursive: false })
                .unwrap_err()
                .kind(),
            ErrorKind::Conflict
        );
        delete(&t, &DeleteRequest { path: "/a/d".into(), recursive: true }).unwrap();
        assert_eq!(a.len(), 1);
        assert_eq!(
            delete(&t, &DeleteRequest { path: "/ro/locked".into(), recursive: false })
                .unwrap_err()
                .kind(),
            ErrorKind::ReadOnly
        );
        assert_eq!(
            delete(&t, &DeleteRequest { path: "/a/zz".into(), recursive: false })
                .unwrap_err()
                .kind(),
            ErrorKind::NotFound
        );
        assert_eq!(
            delete(&t, &DeleteRequest { path: "/a".into(), recursive: true }).unwrap_err().kind(),
            ErrorKind::InvalidPath
        );
    }

    #[test]
    fn move_within_and_across() {
        let (t, a, b) = table();
        let l = Limits::default();
        move_entry(
            &t,
            &l,
            &MoveRequest {
                source: "/a/f.txt".into(),
                destination: "/a/g.txt".into(),
                overwrite: false,
            },
        )
        .unwrap();
        assert_eq!(t.read("/a/g.txt", 0, 9).unwrap(), b"F");
        move_entry(
            &t,
            &l,
            &MoveRequest {
                source: "/a/d".into(),
                destination: "/b/moved".into(),
                overwrite: false,
            },
        )
        .unwrap();
        assert_eq!(t.read("/b/moved/y/z", 0, 9).unwrap(), b"Z");
        assert_eq!(a.len(), 1);
        assert_eq!(b.len(), 2);
        let e = move_entry(
            &t,
            &l,
            &MoveRequest {
                source: "/a/g.txt".into(),
                destination: "/b/moved/x".into(),
                overwrite: false,
            },
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::AlreadyExists);
        move_entry(
            &t,
            &l,
            &MoveRequest {
                source: "/a/g.txt".into(),
                destination: "/b/moved/x".into(),
                overwrite: true,
            },
        )
        .unwrap();
        assert_eq!(t.read("/b/moved/x", 0, 9).unwrap(), b"F");
        let e = move_entry(
            &t,
            &l,
            &MoveRequest {
                source: "/ro/locked".into(),
                destination: "/a/l".into(),
                overwrite: false,
            },
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ReadOnly);
        let e = move_entry(
            &t,
            &l,
            &MoveRequest {
                source: "/b/moved".into(),
                destination: "/b/moved/in".into(),
                overwrite: false,
            },
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    }
}
