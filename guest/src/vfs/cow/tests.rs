//! The copy-on-write volume over memory volumes: the merged view, whiteouts, moves,
//! the lower layer untouched, changes, and apply with its conflicts.

use std::sync::Arc;

use super::CowVolume;
use super::apply::apply;
use super::changes::ChangeStatus;
use crate::error::ErrorKind;
use crate::vfs::memory::MemoryVolume;
use crate::vfs::mounts::MountTable;
use crate::vfs::volume::Volume;

fn lower() -> Arc<MemoryVolume> {
    let v = MemoryVolume::new();
    v.insert("/a.txt", "lower a\n")
        .insert("/keep.txt", "keep\n")
        .insert("/dir/x.txt", "x\n")
        .insert("/dir/sub/y.txt", "y\n")
        .insert("/other/z.txt", "z\n");
    Arc::new(v)
}

/// A cow volume over `lower` with a fresh memory upper layer, and that upper.
fn cow(lower: &Arc<MemoryVolume>) -> (CowVolume, Arc<MemoryVolume>) {
    let upper = Arc::new(MemoryVolume::new());
    let c = CowVolume::new(Box::new(Arc::clone(lower)), Box::new(Arc::clone(&upper))).unwrap();
    (c, upper)
}

fn snapshot(v: &MemoryVolume) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = v
        .walk("/", usize::MAX)
        .unwrap()
        .entries
        .into_iter()
        .map(|e| {
            let data = if e.is_dir() { Vec::new() } else { v.read(&e.path, 0, u64::MAX).unwrap() };
            (e.path, data)
        })
        .collect();
    out.sort();
    out
}

fn names(c: &dyn Volume, dir: &str) -> Vec<String> {
    let mut v: Vec<String> = c.list(dir).unwrap().into_iter().map(|e| e.path).collect();
    v.sort();
    v
}

fn walked(c: &dyn Volume) -> Vec<String> {
    let mut v: Vec<String> =
        c.walk("/", usize::MAX).unwrap().entries.into_iter().map(|e| e.path).collect();
    v.sort();
    v
}

#[test]
fn reads_fall_through_and_writes_land_above() {
    let l = lower();
    let before = snapshot(&l);
    let (c, _) = cow(&l);
    assert_eq!(c.read("/a.txt", 0, 100).unwrap(), b"lower a\n");
    c.write("/a.txt", b"upper a\n", &Default::default()).unwrap();
    c.write("/new/n.txt", b"n\n", &Default::default()).unwrap();
    assert_eq!(c.read("/a.txt", 0, 100).unwrap(), b"upper a\n");
    assert_eq!(c.stat("/a.txt").unwrap().size, 8);
    assert_eq!(c.stat_read("/a.txt", 0, 100).unwrap().1, b"upper a\n");
    assert_eq!(names(&c, "/"), ["/a.txt", "/dir", "/keep.txt", "/new", "/other"]);
    assert_eq!(snapshot(&l), before, "the lower layer is never written");
}

/// An append to a file only the lower layer holds copies it up with the new bytes
/// (the lower file unchanged); one to an upper file appends there, without saving
/// the state again (its base is known); a new file is created above.
#[test]
fn appends_copy_up_then_append_above() {
    let l = lower();
    let (c, upper) = cow(&l);
    let before = snapshot(&l);
    assert_eq!(c.append("/a.txt", b"more\n").unwrap().size, 13);
    assert_eq!(c.read("/a.txt", 0, 100).unwrap(), b"lower a\nmore\n");
    assert_eq!(upper.read("/files/a.txt", 0, 100).unwrap(), b"lower a\nmore\n");
    let state = upper.stat(super::state::STATE_PATH).unwrap();
    assert_eq!(c.append("/a.txt", b"again\n").unwrap().size, 19);
    assert_eq!(c.read("/a.txt", 0, 100).unwrap(), b"lower a\nmore\nagain\n");
    assert_eq!(
        upper.stat(super::state::STATE_PATH).unwrap(),
        state,
        "the state is not written again"
    );
    c.append("/dir/new.txt", b"n").unwrap();
    assert_eq!(c.read("/dir/new.txt", 0, 10).unwrap(), b"n");
    assert_eq!(c.append("/dir", b"x").unwrap_err().kind(), ErrorKind::NotAFile);
    assert_eq!(snapshot(&l), before, "the lower layer is never written");
    let changed: Vec<String> = c.changes("/").unwrap().into_iter().map(|ch| ch.path).collect();
    assert!(changed.contains(&"/a.txt".to_string()), "{changed:?}");
}

#[test]
fn whiteouts_hide_files_and_whole_directories() {
    let l = lower();
    let before = snapshot(&l);
    let (c, _) = cow(&l);
    c.delete("/a.txt", false).unwrap();
    assert_eq!(c.stat("/a.txt").unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(c.read("/a.txt", 0, 10).unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(c.delete("/dir", false).unwrap_err().kind(), ErrorKind::Conflict);
    c.delete("/dir", true).unwrap();
    assert_eq!(c.stat("/dir/sub/y.txt").unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(walked(&c), ["/keep.txt", "/other", "/other/z.txt"]);
    // Created again: the new content, and nothing of the old directory.
    c.write("/a.txt", b"again\n", &Default::default()).unwrap();
    c.write("/dir/fresh.txt", b"f\n", &Default::default()).unwrap();
    assert_eq!(c.read("/a.txt", 0, 10).unwrap(), b"again\n");
    assert_eq!(names(&c, "/dir"), ["/dir/fresh.txt"]);
    assert_eq!(c.stat("/dir/x.txt").unwrap_err().kind(), ErrorKind::NotFound);
    assert_eq!(snapshot(&l), before);
}

#[test]
fn moves_copy_up_and_white_out() {
    let l = lower();
    let before = snapshot(&l);
    let (c, _) = cow(&l);
    c.rename("/a.txt", "/moved/a.txt", false).unwrap();
    assert_eq!(c.read("/moved/a.txt", 0, 100).unwrap(), b"lower a\n");
    assert!(c.stat("/a.txt").is_err());
    c.rename("/dir", "/dir2", false).unwrap();
    assert_eq!(c.read("/dir2/sub/y.txt", 0, 10).unwrap(), b"y\n");
    assert!(c.stat("/dir").is_err());
    assert_eq!(
        c.rename("/keep.txt", "/other/z.txt", false).unwrap_err().kind(),
        ErrorKind::AlreadyExists
    );
    c.rename("/keep.txt", "/other/z.txt", true).unwrap();
    assert_eq!(c.read("/other/z.txt", 0, 10).unwrap(), b"keep\n");
    assert_eq!(
        c.rename("/other", "/other/in", false).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    assert_eq!(snapshot(&l), before);
}

#[test]
fn refuses_what_a_directory_volume_refuses() {
    let l = lower();
    let (c, _) = cow(&l);
    assert_eq!(c.write("/dir", b"x", &Default::default()).unwrap_err().kind(), ErrorKind::NotAFile);
    assert_eq!(
        c.write("/a.txt/x", b"x", &Default::default()).unwrap_err().kind(),
        ErrorKind::NotADirectory
    );
    let create_only = crate::vfs::volume::WriteOptions { create_only: true, ..Default::default() };
    assert_eq!(c.write("/a.txt", b"x", &create_only).unwrap_err().kind(), ErrorKind::AlreadyExists);
    assert_eq!(c.create_dir("/a.txt").unwrap_err().kind(), ErrorKind::AlreadyExists);
    c.create_dir("/empty/deep").unwrap();
    assert!(c.stat("/empty/deep").unwrap().is_dir());
    assert_eq!(c.delete("/nope", true).unwrap_err().kind(), ErrorKind::NotFound);
}

#[test]
fn through_a_mount_table_with_moves_across_mounts() {
    let l = lower();
    let before = snapshot(&l);
    let (c, _) = cow(&l);
    let scratch = Arc::new(MemoryVolume::new());
    scratch.insert("/s.txt", "s\n");
    let mut t = MountTable::new();
    t.add("/w", Box::new(c), 0, false).unwrap();
    t.add("/scratch", Box::new(Arc::clone(&scratch)), 0, false).unwrap();
    crate::ops::mutate::move_entry(&t, &Default::default(), &req("/w/a.txt", "/scratch/a.txt"))
        .unwrap();
    crate::ops::mutate::move_entry(&t, &Default::default(), &req("/scratch/s.txt", "/w/s.txt"))
        .unwrap();
    assert_eq!(scratch.read("/a.txt", 0, 100).unwrap(), b"lower a\n");
    assert_eq!(t.read("/w/s.txt", 0, 100).unwrap(), b"s\n");
    assert!(t.stat("/w/a.txt").is_err());
    assert_eq!(snapshot(&l), before);
}

fn req(from: &str, to: &str) -> crate::ops::mutate::MoveRequest {
    serde_json::from_value(serde_json::json!({"source": from, "destination": to})).unwrap()
}

#[test]
fn changes_name_added_modified_deleted() {
    let l = lower();
    let (c, _) = cow(&l);
    c.write("/a.txt", b"changed\n", &Default::default()).unwrap();
    c.write("/keep.txt", b"keep\n", &Default::default()).unwrap(); // same bytes
    c.write("/n.txt", b"n\n", &Default::default()).unwrap();
    c.delete("/dir", true).unwrap();
    let got: Vec<(String, ChangeStatus)> =
        c.changes("/").unwrap().into_iter().map(|c| (c.path, c.status)).collect();
    assert_eq!(
        got,
        [
            ("/a.txt".to_string(), ChangeStatus::Modified),
            ("/dir/sub/y.txt".to_string(), ChangeStatus::Deleted),
            ("/dir/x.txt".to_string(), ChangeStatus::Deleted),
            ("/n.txt".to_string(), ChangeStatus::Added),
        ]
    );
    assert_eq!(c.changes("/dir").unwrap().len(), 2);
}

#[test]
fn the_state_survives_in_the_upper_layer() {
    let l = lower();
    let (c, upper) = cow(&l);
    c.delete("/dir", true).unwrap();
    c.write("/a.txt", b"up\n", &Default::default()).unwrap();
    drop(c);
    let again = CowVolume::new(Box::new(Arc::clone(&l)), Box::new(upper)).unwrap();
    assert!(again.stat("/dir").is_err());
    assert_eq!(again.read("/a.txt", 0, 10).unwrap(), b"up\n");
}

#[test]
fn apply_writes_the_merged_tree_onto_the_lower() {
    let l = lower();
    let (c, _) = cow(&l);
    c.write("/a.txt", b"changed\n", &Default::default()).unwrap();
    c.delete("/dir", true).unwrap();
    c.write("/dir/fresh.txt", b"f\n", &Default::default()).unwrap();
    c.rename("/other/z.txt", "/z.txt", false).unwrap();
    c.create_dir("/made").unwrap();
    // Files only: a memory volume drops a directory whose last file goes (`/other`).
    let merged = files_of(&c);
    let report = apply(&c, l.as_ref()).unwrap();
    assert_eq!(report.written, ["/a.txt", "/dir/fresh.txt", "/z.txt"]);
    assert_eq!(files_of(l.as_ref()), merged);
    assert!(l.stat("/made").unwrap().is_dir(), "an empty directory made is applied too");
    assert_eq!(l.read("/a.txt", 0, 100).unwrap(), b"changed\n");
    assert!(c.changes("/").unwrap().is_empty(), "the upper layer starts over");
}

#[test]
fn apply_refuses_a_lower_file_changed_since() {
    let l = lower();
    let (c, _) = cow(&l);
    c.write("/a.txt", b"mine\n", &Default::default()).unwrap();
    c.write("/keep.txt", b"mine too\n", &Default::default()).unwrap();
    c.delete("/dir", true).unwrap();
    l.insert("/a.txt", "theirs\n");
    l.insert("/dir/late.txt", "appeared\n");
    let before = snapshot(&l);
    let e = apply(&c, l.as_ref()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict);
    assert!(e.message().contains("/a.txt") && e.message().contains("/dir/late.txt"), "{e}");
    assert!(!e.message().contains("/keep.txt"), "{e}");
    assert_eq!(snapshot(&l), before, "nothing written");
}

/// A lower volume whose entries are all read-only, as a dir volume opened read-only
/// answers.
struct ReadOnlyEntries(Arc<MemoryVolume>);

impl Volume for ReadOnlyEntries {
    fn stat(&self, path: &str) -> crate::error::Result<crate::vfs::entry::Entry> {
        self.0.stat(path).map(|mut e| {
            e.read_only = true;
            e
        })
    }
    fn list(&self, path: &str) -> crate::error::Result<Vec<crate::vfs::entry::Entry>> {
        self.0.list(path).map(|v| {
            v.into_iter()
                .map(|mut e| {
                    e.read_only = true;
                    e
                })
                .collect()
        })
    }
    fn walk(&self, path: &str, max: usize) -> crate::error::Result<crate::vfs::volume::Walk> {
        self.0.walk(path, max).map(|mut w| {
            w.entries.iter_mut().for_each(|e| e.read_only = true);
            w
        })
    }
    fn read(&self, path: &str, offset: u64, len: u64) -> crate::error::Result<Vec<u8>> {
        self.0.read(path, offset, len)
    }
    fn write(
        &self,
        path: &str,
        _: &[u8],
        _: &crate::vfs::volume::WriteOptions,
    ) -> crate::error::Result<crate::vfs::entry::Entry> {
        Err(crate::error::Error::at(ErrorKind::ReadOnly, path, "read-only"))
    }
    fn delete(&self, path: &str, _: bool) -> crate::error::Result<()> {
        Err(crate::error::Error::at(ErrorKind::ReadOnly, path, "read-only"))
    }
    fn rename(&self, from: &str, _: &str, _: bool) -> crate::error::Result<()> {
        Err(crate::error::Error::at(ErrorKind::ReadOnly, from, "read-only"))
    }
}

#[test]
fn a_read_only_lower_shows_writable_and_is_edited_through_the_table() {
    let l = lower();
    let before = snapshot(&l);
    let c =
        CowVolume::new(Box::new(ReadOnlyEntries(Arc::clone(&l))), Box::new(MemoryVolume::new()))
            .unwrap();
    assert!(!c.stat("/a.txt").unwrap().read_only);
    assert!(c.walk("/", 100).unwrap().entries.iter().all(|e| !e.read_only));
    assert!(
        c.walk_packed("/", 100)
            .unwrap()
            .entry_flags
            .iter()
            .all(|f| f & crate::vfs::volume::PACKED_READ_ONLY == 0)
    );
    let mut t = MountTable::new();
    t.add("/w", Box::new(c), 0, false).unwrap();
    let req: crate::ops::edit::EditRequest = serde_json::from_value(
        serde_json::json!({"path": "/w/a.txt", "old_string": "lower", "new_string": "upper"}),
    )
    .unwrap();
    crate::ops::edit::edit(&t, &Default::default(), &req).unwrap();
    assert_eq!(t.read("/w/a.txt", 0, 100).unwrap(), b"upper a\n");
    t.write("/w/keep.txt", b"k", &Default::default()).unwrap();
    assert_eq!(snapshot(&l), before);
}

/// One operation of [`a_cow_volume_behaves_as_a_copy`].
#[derive(Clone, Debug)]
enum Op {
    Write(&'static str, u8),
    Delete(&'static str, bool),
    Rename(&'static str, &'static str, bool),
    Mkdir(&'static str),
}

/// The files of a volume with their content.
fn files_of(v: &dyn Volume) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = v
        .walk("/", usize::MAX)
        .unwrap()
        .entries
        .into_iter()
        .filter(|e| !e.is_dir())
        .map(|e| (e.path.clone(), v.read(&e.path, 0, u64::MAX).unwrap()))
        .collect();
    out.sort();
    out
}

fn run(v: &dyn Volume, op: &Op) -> bool {
    match op {
        Op::Write(p, b) => v.write(p, &[*b, b'\n'], &Default::default()).is_ok(),
        Op::Delete(p, r) => v.delete(p, *r).is_ok(),
        Op::Rename(a, b, o) => v.rename(a, b, *o).is_ok(),
        Op::Mkdir(p) => v.create_dir(p).is_ok(),
    }
}

/// Any sequence of changes through a cow volume leaves the lower volume as it was,
/// shows the files a plain copy of the lower volume shows after the same changes
/// (each change succeeding or failing alike), and applies onto the lower volume as
/// exactly those files.
#[test]
fn a_cow_volume_behaves_as_a_copy() {
    use proptest::prelude::*;
    // Files are written and moved only to file paths, directories made and moved
    // only to directory paths: a memory volume (the model) keeps no directory that
    // only a moved or deleted file implied, where a directory (and the cow volume)
    // keeps it. Where a file replaces a directory, the unit tests above look.
    const FILES: [&str; 5] = ["/a.txt", "/keep.txt", "/dir/x.txt", "/dir/sub/y.txt", "/new/n.txt"];
    const DIRS: [&str; 4] = ["/dir", "/dir/sub", "/new", "/other"];
    let file = || proptest::sample::select(FILES.to_vec());
    let dir = || proptest::sample::select(DIRS.to_vec());
    let any_path = prop_oneof![file(), dir()];
    let op = prop_oneof![
        (file(), any::<u8>()).prop_map(|(p, b)| Op::Write(p, b)),
        (any_path, any::<bool>()).prop_map(|(p, r)| Op::Delete(p, r)),
        (file(), file(), any::<bool>()).prop_map(|(a, b, o)| Op::Rename(a, b, o)),
        (dir(), dir()).prop_map(|(a, b)| Op::Rename(a, b, false)),
        dir().prop_map(Op::Mkdir),
    ];
    // Directories made explicitly, as a real directory has them: a memory volume
    // drops a directory only implied by its files when the last one goes.
    let explicit = || {
        let l = MemoryVolume::new();
        for d in ["/dir/sub", "/other"] {
            l.create_dir(d).unwrap();
        }
        for (path, content) in snapshot(&lower()) {
            if !content.is_empty() {
                l.insert(&path, content);
            }
        }
        Arc::new(l)
    };
    proptest!(ProptestConfig::with_cases(500), |(ops in proptest::collection::vec(op, 0..12))| {
        let l = explicit();
        let before = snapshot(&l);
        let copy = explicit();
        let (c, _) = cow(&l);
        for op in &ops {
            let (a, b) = (run(&c, op), run(copy.as_ref(), op));
            prop_assert_eq!(a, b, "{:?} after {:?}", op, ops);
            prop_assert_eq!(files_of(&c), files_of(copy.as_ref()), "after {:?} in {:?}", op, ops);
        }
        prop_assert_eq!(snapshot(&l), before);
        apply(&c, l.as_ref()).unwrap();
        prop_assert_eq!(files_of(l.as_ref()), files_of(copy.as_ref()));
    });
}

/// A lower directory deleted and a file written where it (or a directory in it) was:
/// the session saw a directory there, so apply finds no conflict, and replaces it.
#[test]
fn a_file_where_a_lower_directory_was_applies() {
    for (deleted, written) in [("/dir/sub", "/dir/sub"), ("/dir", "/dir/sub")] {
        let l = lower();
        let (c, _) = cow(&l);
        c.delete(deleted, true).unwrap();
        c.write(written, b"now a file\n", &Default::default()).unwrap();
        apply(&c, l.as_ref()).unwrap_or_else(|e| panic!("{deleted} then {written}: {e}"));
        assert_eq!(l.read(written, 0, 100).unwrap(), b"now a file\n");
        assert!(l.stat("/dir/sub/y.txt").is_err());
    }
}

#[test]
fn merged_states_keep_both_sides_changes() {
    use super::state::{Base, CowState};
    let mut a = CowState::default();
    a.add_whiteout("/src/old.rs");
    a.bases.insert("/src/old.rs".into(), Base::Absent);
    a.bases.insert("/both".into(), Base::Other { entry_type: "directory".into() });
    let mut b = CowState { touched: true, ..CowState::default() };
    b.add_whiteout("/src");
    b.add_whiteout("/docs/a.md");
    b.bases.insert("/both".into(), Base::Absent);
    b.bases.insert("/new".into(), Base::Absent);
    let mut merged = a.clone();
    merged.merge(&b);
    // `/src` covers `/src/old.rs`; the base recorded first stays.
    assert_eq!(merged.whiteouts.iter().collect::<Vec<_>>(), ["/docs/a.md", "/src"]);
    assert_eq!(merged.bases["/both"], Base::Other { entry_type: "directory".into() });
    assert_eq!(merged.bases["/new"], Base::Absent);
    assert!(merged.touched);
    // A whiteout beneath one already there adds nothing; merging is idempotent.
    let mut again = merged.clone();
    again.merge(&a);
    again.merge(&merged);
    assert_eq!(again, merged);
}

#[test]
fn changes_inside_a_git_directory_are_never_applied() {
    let l = lower();
    let (c, _) = cow(&l);
    c.write("/.git/config", b"[core]\n\tfsmonitor = touch pwned\n", &Default::default()).unwrap();
    c.write("/sub/.GIT./hooks/pre-commit", b"x", &Default::default()).unwrap();
    c.write("/ok.txt", b"fine", &Default::default()).unwrap();
    let target = MemoryVolume::new();
    let e = apply(&c, &target).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidPath, "{e}");
    assert!(e.to_string().contains("/.git/config") && e.to_string().contains("pre-commit"), "{e}");
    assert!(target.stat("/ok.txt").is_err(), "nothing was applied");
    // `.github` and `x.git` are ordinary names.
    let (c2, _) = cow(&l);
    c2.write("/.github/workflows/ci.yml", b"on: push", &Default::default()).unwrap();
    c2.write("/x.git", b"y", &Default::default()).unwrap();
    apply(&c2, &target).unwrap();
}

/// A volume over a memory volume whose `hook` runs before each change (write,
/// delete, rename, create_dir) with the path it changes (a rename's source): an
/// error from it refuses the change, so one forwarding wrapper serves every test
/// that needs a volume failing or changed underneath at a given step.
struct Hooked<F: Fn(&str) -> crate::error::Result<()> + Send + Sync>(Arc<MemoryVolume>, F);

impl<F: Fn(&str) -> crate::error::Result<()> + Send + Sync> Volume for Hooked<F> {
    fn stat(&self, p: &str) -> crate::error::Result<crate::vfs::entry::Entry> {
        self.0.stat(p)
    }
    fn list(&self, p: &str) -> crate::error::Result<Vec<crate::vfs::entry::Entry>> {
        self.0.list(p)
    }
    fn walk(&self, p: &str, m: usize) -> crate::error::Result<crate::vfs::volume::Walk> {
        self.0.walk(p, m)
    }
    fn read(&self, p: &str, o: u64, l: u64) -> crate::error::Result<Vec<u8>> {
        self.0.read(p, o, l)
    }
    fn write(
        &self,
        p: &str,
        c: &[u8],
        o: &crate::vfs::volume::WriteOptions,
    ) -> crate::error::Result<crate::vfs::entry::Entry> {
        (self.1)(p)?;
        self.0.write(p, c, o)
    }
    fn delete(&self, p: &str, r: bool) -> crate::error::Result<()> {
        (self.1)(p)?;
        self.0.delete(p, r)
    }
    fn rename(&self, f: &str, t: &str, o: bool) -> crate::error::Result<()> {
        (self.1)(f)?;
        self.0.rename(f, t, o)
    }
    fn create_dir(&self, p: &str) -> crate::error::Result<crate::vfs::entry::Entry> {
        (self.1)(p)?;
        self.0.create_dir(p)
    }
}

/// An upper volume whose state file cannot be written (a store refusing it).
fn refusing_state() -> impl Volume {
    Hooked(Arc::new(MemoryVolume::new()), |p: &str| {
        if p == super::state::STATE_PATH {
            return Err(crate::error::Error::new(ErrorKind::TooLarge, "the state is too large"));
        }
        Ok(())
    })
}

/// A target whose writes of `failing` fail (a file made immutable, a full disk):
/// the failure an apply meets after every check passed.
fn failing_write(target: &Arc<MemoryVolume>, failing: &'static str) -> impl Volume {
    Hooked(Arc::clone(target), move |p: &str| {
        if p == failing {
            return Err(crate::error::Error::at(ErrorKind::Backend, p, "operation not permitted"));
        }
        Ok(())
    })
}

#[test]
fn a_change_whose_state_is_not_stored_is_not_shown() {
    let l = lower();
    let c = CowVolume::new(Box::new(Arc::clone(&l)), Box::new(refusing_state())).unwrap();
    let e = c.delete("/dir", true).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooLarge);
    // The refused delete does not show: the directory and its files are there.
    assert!(c.stat("/dir/x.txt").is_ok());
    assert_eq!(names(&c, "/"), names(l.as_ref(), "/"));
    assert!(c.state().whiteouts.is_empty());
}

/// A step that fails after earlier ones changed the lower directory (a directory
/// removed, files written and replaced) puts them all back: the lower directory is
/// as it was, no undo directory is left, the upper layer still holds every change
/// (the apply can be run again once the cause is gone), and the error says so.
#[test]
fn an_apply_that_fails_midway_puts_back_what_it_changed() {
    let l = lower();
    let (c, _) = cow(&l);
    c.delete("/dir", true).unwrap();
    c.delete("/keep.txt", false).unwrap();
    c.write("/a.txt", b"changed\n", &Default::default()).unwrap();
    c.write("/new/fresh.txt", b"f\n", &Default::default()).unwrap();
    c.write("/zz.txt", b"refused\n", &Default::default()).unwrap();
    let before = snapshot(&l);
    let changes = c.changes("/").unwrap().len();
    let e = apply(&c, &failing_write(&l, "/zz.txt")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Backend, "{e}");
    assert_eq!(e.path(), Some("/zz.txt"), "{e}");
    assert!(e.message().contains("nothing was applied"), "{e}");
    assert_eq!(snapshot(&l), before, "the lower directory is as it was");
    assert_eq!(c.changes("/").unwrap().len(), changes, "the upper layer keeps every change");
    // Once the cause is gone, the same apply goes through.
    apply(&c, l.as_ref()).unwrap();
    assert_eq!(l.read("/zz.txt", 0, 100).unwrap(), b"refused\n");
    assert!(l.stat("/dir").is_err() && l.stat("/keep.txt").is_err());
    assert!(names(l.as_ref(), "/").iter().all(|n| !n.contains(super::apply::UNDO_DIR)));
}

/// The undo directory never takes a name the lower directory or a change uses.
#[test]
fn the_undo_directory_takes_a_free_name() {
    let l = lower();
    l.insert(&format!("/{}/mine.txt", super::apply::UNDO_DIR), "the user's\n");
    let (c, _) = cow(&l);
    c.write(&format!("/{}-2/also.txt", super::apply::UNDO_DIR), b"x\n", &Default::default())
        .unwrap();
    c.write("/a.txt", b"changed\n", &Default::default()).unwrap();
    apply(&c, l.as_ref()).unwrap();
    let undo = format!("/{}/mine.txt", super::apply::UNDO_DIR);
    assert_eq!(l.read(&undo, 0, 100).unwrap(), b"the user's\n");
    assert_eq!(l.read(&format!("/{}-2/also.txt", super::apply::UNDO_DIR), 0, 100).unwrap(), b"x\n");
    assert!(l.stat(&format!("/{}-3", super::apply::UNDO_DIR)).is_err(), "removed when done");
}

/// A target on which someone else writes `content` at `path` at the apply's first
/// change: an edit made in the lower directory after the conflict check.
fn edits_meanwhile(
    target: &Arc<MemoryVolume>,
    path: &'static str,
    content: &'static str,
) -> impl Volume {
    let edit = std::sync::Mutex::new(Some((Arc::clone(target), path, content)));
    Hooked(Arc::clone(target), move |_: &str| {
        if let Some((v, path, content)) = edit.lock().unwrap().take() {
            v.insert(path, content);
        }
        Ok(())
    })
}

/// An edit made in the lower directory while the apply runs (after its conflict
/// check) is never written over: a changed file or a file that appeared where the
/// session added one stops the apply as a conflict, everything is put back, and the
/// edit is kept.
#[test]
fn an_edit_made_while_the_apply_runs_is_never_written_over() {
    for (edit, content) in [("/z.txt", "their z\n"), ("/added.txt", "theirs too\n")] {
        let l = lower();
        l.insert("/z.txt", "lower z\n");
        let (c, _) = cow(&l);
        c.delete("/dir", true).unwrap();
        c.write("/z.txt", b"mine\n", &Default::default()).unwrap();
        c.write("/added.txt", b"mine\n", &Default::default()).unwrap();
        let target = edits_meanwhile(&l, edit, content);
        let bases = format!("{:?}", c.state().bases);
        let e = match apply(&c, &target) {
            Ok(r) => panic!("{edit}: applied {r:?}; bases {bases}"),
            Err(e) => e,
        };
        assert_eq!(e.kind(), ErrorKind::Conflict, "{edit}: {e}");
        assert!(e.message().contains("nothing was applied"), "{e}");
        assert_eq!(l.read(edit, 0, 100).unwrap(), content.as_bytes(), "{edit}: the edit is kept");
        assert!(l.stat("/dir/x.txt").is_ok(), "{edit}: put back");
    }
}
