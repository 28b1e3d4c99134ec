//! [`Checked`]: the volume contract, enforced on every answer a volume gives.
//!
//! Volumes come from the host, and a host may be written in any language by anyone:
//! the Rust host's backends, a Node.js or Python embedder's own classes. A backend
//! that mis-implements the WIT `volume` interface — a listing that names files outside
//! the directory asked about, a read that returns more bytes than asked for, an entry
//! for another path — must not make the component act on a lie (show a file where the
//! agent cannot read it, grow a read without end, place an entry outside its mount).
//! Every mounted volume is therefore wrapped in [`Checked`], which compares each answer
//! with what the contract allows and turns a broken one into a `backend` error that
//! names the operation, the path asked about and what was wrong. The call fails; the
//! session and its other mounts go on.
//!
//! What is checked (everything cheap to check, per answer):
//!
//! - every entry's path is absolute and normalised (no `.`, `..`, `//`, control
//!   characters, backslash; within the path limits);
//! - `stat(p)` and `write(p)` answer with an entry for `p`; `write` reports the size
//!   it was given; `append(p)` answers with a file entry for `p` at least as large
//!   as the bytes appended;
//! - `list-dir(p)` answers with direct children of `p` only, each at most once;
//! - `walk(p, max)` answers with at most `max` entries, each strictly beneath `p`;
//!   so does `walk-packed(p, max)`, whose path lengths must also cut its path string
//!   into whole characters, all of it, and whose type and attribute indices must each
//!   name one of its types and attribute objects;
//! - `read(p, offset, len)` answers with at most `len` bytes;
//! - `stat-read(p, offset, len)` answers with an entry for `p` and at most `len`
//!   bytes, none past the entry's size, none for a directory or a file without
//!   content (a link, a special file);
//! - a directory entry has size 0.
//!
//! Errors of an unexpected kind (a `stat` answering `already-exists`) are passed on as
//! they are: they are typed, and the caller reports them. Exceptions thrown by a
//! host's volume object never reach the component as such: the host's bindings turn
//! them into errors or traps (the Node host turns them into `backend` errors).

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::Entry;
use crate::vfs::paths;
use crate::vfs::volume::{
    PACKED_DIRECTORY, PACKED_MODIFIED, PACKED_READ_ONLY, PackedWalk, PrefetchFile, Volume,
    VolumeIdentity, Walk, WriteOptions, has_content,
};

/// A volume whose every answer is checked against the volume contract (see the
/// [module documentation](self)).
pub struct Checked<V> {
    inner: V,
}

impl<V: Volume> Checked<V> {
    /// Wraps `inner`.
    pub fn new(inner: V) -> Checked<V> {
        Checked { inner }
    }
}

/// The `backend` error of a broken answer to `op` about `path`.
fn broken(op: &str, path: &str, what: impl std::fmt::Display) -> Error {
    Error::at(
        ErrorKind::Backend,
        path,
        format!("the volume broke its contract: {op} {what}; the answer was refused"),
    )
}

/// Checks the shape of one entry: a normalised absolute path and, for a directory,
/// size 0.
fn check_entry(op: &str, path: &str, e: &Entry) -> Result<()> {
    check_shape(op, path, &e.path, e.is_dir(), e.size)
}

/// [`check_entry`] of an entry given by its parts (a [`PackedWalk`]'s).
fn check_shape(op: &str, path: &str, entry_path: &str, is_dir: bool, size: u64) -> Result<()> {
    if !paths::is_normalized(entry_path) {
        return Err(broken(
            op,
            path,
            format_args!(
                "returned an entry whose path {entry_path:?} is not absolute and normalised"
            ),
        ));
    }
    if is_dir && size != 0 {
        return Err(broken(
            op,
            path,
            format_args!(
                "returned the directory '{entry_path}' with size {size} (directories have size 0)"
            ),
        ));
    }
    Ok(())
}

/// The refusal of a walk that returned more than `max_entries` entries.
fn too_many(path: &str, n: usize, max_entries: usize) -> Error {
    broken(
        "walk",
        path,
        format_args!("returned {n} entries when at most {max_entries} were asked for"),
    )
}

/// The refusal of a walk entry that is not strictly beneath the walked `path`.
fn not_beneath(path: &str, entry_path: &str) -> Error {
    broken("walk", path, format_args!("returned '{entry_path}', which is not beneath '{path}'"))
}

/// [`check_entry`] for an answer about `path` itself: the entry must name it.
fn check_entry_of(op: &str, path: &str, e: &Entry) -> Result<()> {
    check_entry(op, path, e)?;
    if e.path != path {
        return Err(broken(op, path, format_args!("returned an entry for '{}'", e.path)));
    }
    Ok(())
}

/// A read answer holds at most the `len` bytes asked for.
fn check_read_len(op: &str, path: &str, offset: u64, len: u64, data: &[u8]) -> Result<()> {
    if data.len() as u64 > len {
        return Err(broken(
            op,
            path,
            format_args!(
                "returned {} bytes from offset {offset} when at most {len} were asked for",
                data.len()
            ),
        ));
    }
    Ok(())
}

impl<V: Volume> Volume for Checked<V> {
    fn stat(&self, path: &str) -> Result<Entry> {
        let e = self.inner.stat(path)?;
        check_entry_of("stat", path, &e)?;
        Ok(e)
    }

    fn list(&self, path: &str) -> Result<Vec<Entry>> {
        let entries = self.inner.list(path)?;
        for e in &entries {
            check_entry("list-dir", path, e)?;
            if paths::parent(&e.path) != Some(path) {
                return Err(broken(
                    "list-dir",
                    path,
                    format_args!("returned '{}', which is not a direct child of '{path}'", e.path),
                ));
            }
        }
        // Volumes list in path order (the directory volume does): strictly rising
        // paths have no duplicate, without hashing each.
        if entries.windows(2).any(|w| w[0].path >= w[1].path) {
            let mut seen = std::collections::HashSet::with_capacity(entries.len());
            for e in &entries {
                if !seen.insert(e.path.as_str()) {
                    return Err(broken(
                        "list-dir",
                        path,
                        format_args!("returned '{}' twice", e.path),
                    ));
                }
            }
        }
        Ok(entries)
    }

    fn walk(&self, path: &str, max_entries: usize) -> Result<Walk> {
        let walk = self.inner.walk(path, max_entries)?;
        if walk.entries.len() > max_entries {
            return Err(too_many(path, walk.entries.len(), max_entries));
        }
        for e in &walk.entries {
            check_entry("walk", path, e)?;
            if e.path == path || !paths::is_within(&e.path, path) {
                return Err(not_beneath(path, &e.path));
            }
        }
        Ok(walk)
    }

    fn walk_packed(&self, path: &str, max_entries: usize) -> Result<PackedWalk> {
        // The contract of `walk` (reported as `walk`: the same answer, packed), and
        // the packing's own: columns of one length, path lengths that cut the path
        // string into whole characters and use all of it, known flags only, and
        // types and attributes of existing entries, in order.
        let walk = self.inner.walk_packed(path, max_entries)?;
        let n = walk.len();
        if n > max_entries {
            return Err(too_many(path, n, max_entries));
        }
        let malformed = || {
            broken(
                "walk",
                path,
                format_args!(
                    "returned columns that do not describe {n} entries with {} bytes of paths \
                     (columns of {}, {}, {} and {} elements)",
                    walk.paths.len(),
                    walk.path_lens.len(),
                    walk.sizes.len(),
                    walk.modified_ms.len(),
                    walk.entry_flags.len()
                ),
            )
        };
        let total: u64 = walk.path_lens.iter().map(|&l| u64::from(l)).sum();
        if walk.sizes.len() != n
            || walk.modified_ms.len() != n
            || walk.entry_flags.len() != n
            || total != walk.paths.len() as u64
        {
            return Err(malformed());
        }
        const KNOWN: u8 = PACKED_DIRECTORY | PACKED_READ_ONLY | PACKED_MODIFIED;
        let mut at = 0;
        for (i, (&len, &flags)) in walk.path_lens.iter().zip(&walk.entry_flags).enumerate() {
            let end = at + len as usize;
            // A length that ends inside a character.
            let Some(p) = walk.paths.get(at..end) else { return Err(malformed()) };
            at = end;
            if flags & !KNOWN != 0 {
                return Err(broken(
                    "walk",
                    path,
                    format_args!("returned '{p}' with unknown flag bits {:#04x}", flags & !KNOWN),
                ));
            }
            check_shape("walk", path, p, flags & PACKED_DIRECTORY != 0, walk.sizes[i])?;
            if p == path || !paths::is_within(p, path) {
                return Err(not_beneath(path, p));
            }
        }
        let in_order = |ix: Vec<u32>| {
            ix.windows(2).all(|w| w[0] < w[1])
                && ix.last().is_none_or(|&i| (i as usize) < walk.len())
        };
        if !in_order(walk.entry_types.iter().map(|(i, _)| *i).collect())
            || !in_order(walk.attributes.iter().map(|(i, _)| *i).collect())
        {
            return Err(broken(
                "walk",
                path,
                format_args!(
                    "returned entry types or attributes for entries that are not among its {} \
                     or not in increasing order",
                    walk.len()
                ),
            ));
        }
        Ok(walk)
    }

    fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
        let data = self.inner.read(path, offset, len)?;
        check_read_len("read", path, offset, len, &data)?;
        Ok(data)
    }

    fn stat_read(&self, path: &str, offset: u64, len: u64) -> Result<(Entry, Vec<u8>)> {
        let (e, data) = self.inner.stat_read(path, offset, len)?;
        check_entry_of("stat-read", path, &e)?;
        check_read_len("stat-read", path, offset, len, &data)?;
        if data.len() as u64 > e.size.saturating_sub(offset) {
            return Err(broken(
                "stat-read",
                path,
                format_args!(
                    "returned {} bytes from offset {offset} of an entry of {} bytes",
                    data.len(),
                    e.size
                ),
            ));
        }
        if !data.is_empty() && (e.is_dir() || !has_content(&e)) {
            return Err(broken(
                "stat-read",
                path,
                format_args!(
                    "returned {} bytes for a {} entry, which has no content",
                    data.len(),
                    if e.is_dir() { "directory" } else { e.entry_type.as_str() }
                ),
            ));
        }
        Ok((e, data))
    }

    fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
        let e = self.inner.write(path, content, options)?;
        check_entry_of("write", path, &e)?;
        if e.size != content.len() as u64 {
            return Err(broken(
                "write",
                path,
                format_args!(
                    "reported a size of {} bytes after writing {} bytes",
                    e.size,
                    content.len()
                ),
            ));
        }
        Ok(e)
    }

    fn append(&self, path: &str, content: &[u8]) -> Result<Entry> {
        let e = self.inner.append(path, content)?;
        check_entry_of("append", path, &e)?;
        if e.is_dir() || e.size < content.len() as u64 {
            return Err(broken(
                "append",
                path,
                format_args!(
                    "reported a {} of {} bytes after appending {} bytes",
                    if e.is_dir() { "directory" } else { "file" },
                    e.size,
                    content.len()
                ),
            ));
        }
        Ok(e)
    }

    fn delete(&self, path: &str, recursive: bool) -> Result<()> {
        self.inner.delete(path, recursive)
    }

    fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
        self.inner.rename(from, to, overwrite)
    }

    fn create_dir(&self, path: &str) -> Result<Entry> {
        let e = self.inner.create_dir(path)?;
        check_entry("create-dir", path, &e)?;
        if e.path != path || !e.is_dir() {
            return Err(broken(
                "create-dir",
                path,
                format_args!("returned a {:?} entry for '{}'", e.kind, e.path),
            ));
        }
        Ok(e)
    }

    fn identity(&self) -> Option<VolumeIdentity> {
        self.inner.identity()
    }

    fn prefetch(&self, files: &[PrefetchFile]) {
        self.inner.prefetch(files)
    }

    fn keeps_entry_metadata(&self) -> bool {
        self.inner.keeps_entry_metadata()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::entry::EntryKind;
    use crate::vfs::memory::MemoryVolume;

    /// How a [`Liar`] breaks the contract.
    #[derive(Clone, Copy, Debug)]
    enum Lie {
        StatOtherPath,
        StatUnnormalised,
        ListOutside,
        ListGrandchild,
        ListTwice,
        WalkOutside,
        WalkItself,
        WalkTooMany,
        ReadTooMuch,
        WriteWrongSize,
        WriteOtherPath,
        AppendShrinks,
        AppendOtherPath,
        DirectoryWithSize,
        PackedLengthsShort,
        PackedCutsACharacter,
        PackedColumnShort,
        PackedUnknownFlag,
        PackedTypeIndex,
        PackedAttributesOrder,
    }

    /// A memory volume that lies in one way.
    struct Liar(MemoryVolume, Lie);

    impl Volume for Liar {
        fn stat(&self, path: &str) -> Result<Entry> {
            let mut e = self.0.stat(path)?;
            match self.1 {
                Lie::StatOtherPath => e.path = "/elsewhere".into(),
                Lie::StatUnnormalised => e.path = format!("{path}/../x"),
                Lie::DirectoryWithSize if e.is_dir() => e.size = 7,
                _ => {}
            }
            Ok(e)
        }
        fn list(&self, path: &str) -> Result<Vec<Entry>> {
            let mut v = self.0.list(path)?;
            match self.1 {
                Lie::ListOutside => v.push(Entry::file("/etc/passwd", 1, None)),
                Lie::ListGrandchild => v.push(Entry::file(format!("{path}/a/b/c"), 1, None)),
                Lie::ListTwice => v.push(v[0].clone()),
                _ => {}
            }
            Ok(v)
        }
        fn walk(&self, path: &str, max: usize) -> Result<Walk> {
            let mut w = self.0.walk(path, max)?;
            match self.1 {
                Lie::WalkOutside => w.entries.push(Entry::file("/outside/secret", 1, None)),
                Lie::WalkItself => w.entries.push(Entry::directory(path, None)),
                Lie::WalkTooMany => {
                    let extra: Vec<Entry> = (0..=max.min(10_000))
                        .map(|i| Entry::file(format!("{path}/f{i}"), 1, None))
                        .collect();
                    w.entries.extend(extra);
                }
                _ => {}
            }
            Ok(w)
        }
        fn walk_packed(&self, path: &str, max: usize) -> Result<PackedWalk> {
            let mut w = PackedWalk::from(self.walk(path, max)?);
            match self.1 {
                Lie::PackedLengthsShort => w.path_lens[0] -= 1,
                Lie::PackedCutsACharacter => {
                    // `/d/é` is 5 bytes; cutting it after 4 splits the `é`.
                    w = PackedWalk::default();
                    w.push(&format!("{path}/é"), EntryKind::File, 1, None, false, "file", None);
                    w.push(&format!("{path}/x"), EntryKind::File, 1, None, false, "file", None);
                    w.path_lens[0] -= 1;
                    w.path_lens[1] += 1;
                }
                Lie::PackedColumnShort => {
                    w.sizes.pop();
                }
                Lie::PackedUnknownFlag => w.entry_flags[0] |= 0x80,
                Lie::PackedTypeIndex => w.entry_types.push((9, "skill".into())),
                Lie::PackedAttributesOrder => {
                    w.attributes.push((1, serde_json::json!({})));
                    w.attributes.push((0, serde_json::json!({})));
                }
                _ => {}
            }
            Ok(w)
        }
        fn read(&self, path: &str, offset: u64, len: u64) -> Result<Vec<u8>> {
            let mut d = self.0.read(path, offset, len)?;
            if let Lie::ReadTooMuch = self.1 {
                d.extend(std::iter::repeat_n(b'x', 1024));
            }
            Ok(d)
        }
        fn write(&self, path: &str, content: &[u8], options: &WriteOptions) -> Result<Entry> {
            let mut e = self.0.write(path, content, options)?;
            match self.1 {
                Lie::WriteWrongSize => e.size += 1,
                Lie::WriteOtherPath => e.path = "/other".into(),
                _ => {}
            }
            Ok(e)
        }
        fn append(&self, path: &str, content: &[u8]) -> Result<Entry> {
            let mut e = self.0.append(path, content)?;
            match self.1 {
                Lie::AppendShrinks => e.size = 1,
                Lie::AppendOtherPath => e.path = "/other".into(),
                _ => {}
            }
            Ok(e)
        }
        fn delete(&self, path: &str, recursive: bool) -> Result<()> {
            self.0.delete(path, recursive)
        }
        fn rename(&self, from: &str, to: &str, overwrite: bool) -> Result<()> {
            self.0.rename(from, to, overwrite)
        }
    }

    fn liar(lie: Lie) -> Checked<Liar> {
        let m = MemoryVolume::new();
        m.insert("/d/a.txt", "alpha\n").insert("/d/sub/b.txt", "beta\n");
        Checked::new(Liar(m, lie))
    }

    /// Each lie, the call that meets it, and what the refusal must say.
    #[test]
    fn every_broken_answer_is_a_backend_error_naming_it() {
        type Call = fn(&Checked<Liar>) -> Result<()>;
        let cases: &[(Lie, Call, &str)] = &[
            (
                Lie::StatOtherPath,
                |v| v.stat("/d/a.txt").map(drop),
                "returned an entry for '/elsewhere'",
            ),
            (
                Lie::StatUnnormalised,
                |v| v.stat("/d").map(drop),
                "\"/d/../x\" is not absolute and normalised",
            ),
            (
                Lie::ListOutside,
                |v| v.list("/d").map(drop),
                "'/etc/passwd', which is not a direct child of '/d'",
            ),
            (
                Lie::ListGrandchild,
                |v| v.list("/d").map(drop),
                "'/d/a/b/c', which is not a direct child",
            ),
            (Lie::ListTwice, |v| v.list("/d").map(drop), "returned '/d/a.txt' twice"),
            (
                Lie::WalkOutside,
                |v| v.walk("/d", 100).map(drop),
                "'/outside/secret', which is not beneath '/d'",
            ),
            (Lie::WalkItself, |v| v.walk("/d", 100).map(drop), "'/d', which is not beneath '/d'"),
            (Lie::WalkTooMany, |v| v.walk("/d", 3).map(drop), "when at most 3 were asked for"),
            (
                Lie::ReadTooMuch,
                |v| v.read("/d/a.txt", 0, 4).map(drop),
                "returned 1028 bytes from offset 0 when at most 4",
            ),
            (
                Lie::WriteWrongSize,
                |v| v.write("/n.txt", b"abc", &WriteOptions::default()).map(drop),
                "a size of 4 bytes after writing 3 bytes",
            ),
            (
                Lie::WriteOtherPath,
                |v| v.write("/n.txt", b"abc", &WriteOptions::default()).map(drop),
                "returned an entry for '/other'",
            ),
            (
                Lie::AppendShrinks,
                |v| v.append("/d/a.txt", b"abc").map(drop),
                "reported a file of 1 bytes after appending 3 bytes",
            ),
            (
                Lie::AppendOtherPath,
                |v| v.append("/d/a.txt", b"abc").map(drop),
                "append returned an entry for '/other'",
            ),
            (Lie::DirectoryWithSize, |v| v.stat("/d").map(drop), "the directory '/d' with size 7"),
            // The packed walk: the contract of `walk`, and the packing's own.
            (
                Lie::WalkOutside,
                |v| v.walk_packed("/d", 100).map(drop),
                "walk returned '/outside/secret', which is not beneath '/d'",
            ),
            (
                Lie::WalkItself,
                |v| v.walk_packed("/d", 100).map(drop),
                "'/d', which is not beneath '/d'",
            ),
            (
                Lie::WalkTooMany,
                |v| v.walk_packed("/d", 3).map(drop),
                "when at most 3 were asked for",
            ),
            (
                Lie::PackedLengthsShort,
                |v| v.walk_packed("/d", 100).map(drop),
                "do not describe 3 entries with 26 bytes of paths",
            ),
            (
                Lie::PackedCutsACharacter,
                |v| v.walk_packed("/d", 100).map(drop),
                "do not describe 2 entries with 9 bytes of paths",
            ),
            (
                Lie::PackedColumnShort,
                |v| v.walk_packed("/d", 100).map(drop),
                "(columns of 3, 2, 3 and 3 elements)",
            ),
            (
                Lie::PackedUnknownFlag,
                |v| v.walk_packed("/d", 100).map(drop),
                "returned '/d/a.txt' with unknown flag bits 0x80",
            ),
            (
                Lie::PackedTypeIndex,
                |v| v.walk_packed("/d", 100).map(drop),
                "entry types or attributes for entries that are not among its 3",
            ),
            (
                Lie::PackedAttributesOrder,
                |v| v.walk_packed("/d", 100).map(drop),
                "or not in increasing order",
            ),
        ];
        for (lie, call, says) in cases {
            let e = call(&liar(*lie)).expect_err(&format!("{lie:?} must be refused"));
            assert_eq!(e.kind(), ErrorKind::Backend, "{lie:?}: {e}");
            let m = e.to_string();
            assert!(m.contains("the volume broke its contract"), "{lie:?}: {m}");
            assert!(m.contains(says), "{lie:?}: {m}");
        }
    }

    /// An honest volume passes every check unchanged.
    #[test]
    fn honest_answers_pass() {
        let m = MemoryVolume::new();
        m.insert("/d/a.txt", "alpha\n").insert("/d/sub/b.txt", "beta\n");
        let v = Checked::new(m.clone());
        assert_eq!(v.stat("/d/a.txt").unwrap(), m.stat("/d/a.txt").unwrap());
        assert_eq!(v.list("/d").unwrap(), m.list("/d").unwrap());
        assert_eq!(v.list("/").unwrap(), m.list("/").unwrap());
        assert_eq!(v.walk("/", 100).unwrap(), m.walk("/", 100).unwrap());
        assert_eq!(v.walk("/d", 1).unwrap(), m.walk("/d", 1).unwrap());
        assert_eq!(v.walk_packed("/", 100).unwrap(), m.walk_packed("/", 100).unwrap());
        assert_eq!(v.walk_packed("/d", 1).unwrap(), m.walk_packed("/d", 1).unwrap());
        assert_eq!(v.read("/d/a.txt", 2, 100).unwrap(), b"pha\n");
        assert_eq!(v.write("/n.txt", b"abc", &WriteOptions::default()).unwrap().size, 3);
    }

    /// Through a whole session: each tool meeting a lie fails with a typed error and
    /// the session keeps serving its honest mount.
    #[test]
    fn a_lying_mount_fails_its_calls_and_the_session_goes_on() {
        use serde_json::json;
        for lie in [Lie::ListOutside, Lie::WalkOutside, Lie::ReadTooMuch, Lie::WriteWrongSize] {
            let mut s = crate::session::Session::new(Default::default());
            s.mount("/bad", Box::new(liar(lie)), 0, false).unwrap();
            let good = MemoryVolume::new();
            good.insert("/ok.txt", "fine\n");
            s.mount("/good", Box::new(good), 0, false).unwrap();
            let call = match lie {
                Lie::ListOutside => ("filestore_ls", json!({"path": "/bad/d"})),
                Lie::WalkOutside => ("filestore_glob", json!({"pattern": "**", "path": "/bad/d"})),
                Lie::ReadTooMuch => ("filestore_read", json!({"path": "/bad/d/a.txt"})),
                _ => ("filestore_write", json!({"path": "/bad/n.txt", "content": "abc"})),
            };
            let e = s.call(call.0, &call.1).expect_err(&format!("{lie:?}"));
            assert_eq!(e.kind(), ErrorKind::Backend, "{lie:?}: {e}");
            assert!(e.to_string().starts_with("/bad/"), "{lie:?}: names the virtual path: {e}");
            let out = s.call("filestore_read", &json!({"path": "/good/ok.txt"})).unwrap();
            assert!(out.text.contains("fine"), "{lie:?}");
        }
    }
}
