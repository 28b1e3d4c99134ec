//! Applying a copy-on-write mount's changes to its lower directory (the host's step,
//! never the agent's: `filestore apply`, docs/cow.md#apply).
//!
//! Every changed file is checked first: the lower directory must still hold what the
//! session saw when it first changed the path (its [`Base`]: absent, or a file with
//! a SHA-256). Any difference is a conflict, named by path, and then nothing is
//! written. Otherwise each file is written through `target` (the dir volume writes a
//! temporary file and renames it over the old one, so each file changes at once),
//! deleted files are deleted, whiteouts of directories remove what is left of them,
//! and the upper layer is emptied.
//!
//! An apply is all or nothing: a step can still fail after every check passed (a
//! file made immutable, a full disk, a permission), so each step is journalled
//! ([`Journal`]) and a failure puts every earlier step back before the error is
//! returned. What a step deletes or replaces is moved aside into an undo directory
//! at the lower root (`.filestore-apply-undo…`, a rename: cheap, and exact, inode and
//! mode included) rather than deleted, and removed once the whole apply succeeded.
//! A file moved aside is checked again there against what the session saw, and a
//! new file is created only where nothing appeared meanwhile, so an edit made in the
//! lower directory while the apply runs is never written over: it is a conflict.

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::cow::CowVolume;
use crate::vfs::cow::changes::{Change, ChangeStatus};
use crate::vfs::cow::state::{Base, CowState, FILES_DIR, lower_state, upper_path};
use crate::vfs::paths;
use crate::vfs::volume::{Volume, WriteOptions, is_absent};

/// A file whose lower version changed since the session first changed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Conflict {
    /// Volume-relative path.
    pub path: String,
    /// What the session saw (`None`: it never looked, the file appeared under a
    /// deleted directory since).
    pub expected: Option<Base>,
    /// What the lower directory holds now.
    pub found: Base,
}

/// What an apply did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ApplyReport {
    /// Files written (added or modified), volume-relative.
    pub written: Vec<String>,
    /// Files deleted.
    pub deleted: Vec<String>,
    /// Directories removed or created besides files.
    pub directories: Vec<String>,
}

/// The conflicts `changes` would meet in the lower directory now.
pub fn conflicts(cow: &CowVolume, changes: &[Change]) -> Result<Vec<Conflict>> {
    let st = cow.state();
    let mut out = Vec::new();
    for c in changes {
        let found = lower_state(cow.lower(), &c.path)?;
        let expected = st.bases.get(&c.path).cloned();
        if expected.as_ref() != Some(&found) {
            out.push(Conflict { path: c.path.clone(), expected, found });
        }
    }
    Ok(out)
}

/// The error of an apply refused for `conflicts`, naming every path.
pub fn conflict_error(conflicts: &[Conflict]) -> Error {
    let names: Vec<&str> = conflicts.iter().map(|c| c.path.as_str()).collect();
    Error::at(
        ErrorKind::Conflict,
        names[0],
        format!(
            "the lower directory changed since the session read {}: {}; nothing was applied",
            if names.len() == 1 { "this file" } else { "these files" },
            names.join(", ")
        ),
    )
}

/// Whether `path` has a component git keeps for itself: `.git`, in any case and
/// with the trailing dots or spaces some file systems drop (git's own
/// `verify_path` rule).
fn in_git_dir(path: &str) -> bool {
    path.split('/').any(|c| c.trim_end_matches(['.', ' ']).eq_ignore_ascii_case(".git"))
}

/// The changed paths (files, and deleted paths) an apply refuses: those inside a
/// `.git` directory. Writing there can make git run a command (`core.fsmonitor`,
/// hooks) the next time someone runs git in the directory, so, as `git apply`
/// does, an agent's change never reaches it.
pub fn refused_paths(cow: &CowVolume, changes: &[Change]) -> Vec<String> {
    let st = cow.state();
    let mut out: Vec<String> = changes
        .iter()
        .map(|c| c.path.clone())
        .chain(st.whiteouts.iter().cloned())
        .filter(|p| in_git_dir(p))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The error of an apply refused for `paths` ([`refused_paths`]).
pub fn refused_error(paths: &[String]) -> Error {
    Error::at(
        ErrorKind::InvalidPath,
        &paths[0],
        format!(
            "changes inside a .git directory are never applied (git could run what they hold, as `git apply` refuses them too): {}; nothing was applied",
            paths.join(", ")
        ),
    )
}

/// Applies the changes of `cow` to `target`, a writable view of its lower directory
/// (see the module docs). Refuses with `conflict`, writing nothing, when any changed
/// file's lower version is not the one the session saw, and with `invalid-path` when
/// any change is inside a `.git` directory ([`refused_paths`]).
pub fn apply(cow: &CowVolume, target: &dyn Volume) -> Result<ApplyReport> {
    let changes = cow.changes("/")?;
    let refused = refused_paths(cow, &changes);
    if !refused.is_empty() {
        return Err(refused_error(&refused));
    }
    let found = conflicts(cow, &changes)?;
    if !found.is_empty() {
        return Err(conflict_error(&found));
    }
    let mut journal = Journal::new(cow, target, &changes)?;
    let mut report = ApplyReport::default();
    if let Err(e) = apply_steps(cow, &changes, &mut journal, &mut report) {
        return Err(journal.roll_back(e));
    }
    journal.finish()?;
    // Applied: the upper layer starts over.
    if cow.upper().stat(FILES_DIR).is_ok() {
        cow.upper().delete(FILES_DIR, true)?;
    }
    *cow.lock() = CowState::default();
    CowState::default().save(cow.upper())?;
    Ok(report)
}

/// The steps of an apply, in order, each through `journal`.
fn apply_steps(
    cow: &CowVolume,
    changes: &[Change],
    journal: &mut Journal<'_>,
    report: &mut ApplyReport,
) -> Result<()> {
    let st = cow.state();
    for c in changes.iter().filter(|c| c.status == ChangeStatus::Deleted) {
        journal.delete_file(&c.path, st.bases.get(&c.path))?;
        report.deleted.push(c.path.clone());
    }
    remove_whited_out(cow, journal, &st, report)?;
    create_dirs(cow, journal, report)?;
    for c in changes.iter().filter(|c| c.status != ChangeStatus::Deleted) {
        journal.write(&c.path, c.new.as_deref().unwrap_or_default(), st.bases.get(&c.path))?;
        report.written.push(c.path.clone());
    }
    Ok(())
}

/// Name of the undo directory at the lower root (a number follows it when a
/// directory of that name is there already).
pub const UNDO_DIR: &str = ".filestore-apply-undo";

/// One step of an apply, as it is undone.
enum Undo {
    /// A file or directory the step created: deleted.
    Created(String),
    /// An entry the step moved aside into the undo directory (to replace or delete
    /// it): moved back over whatever is there.
    MovedAside { path: String, aside: String },
}

/// The steps of one apply on `target`, so that a failure can put them back (see the
/// module docs).
struct Journal<'a> {
    target: &'a dyn Volume,
    /// The undo directory, made at the first step that moves something aside.
    undo_dir: String,
    made_undo_dir: bool,
    /// Names given out in the undo directory.
    taken: usize,
    steps: Vec<Undo>,
}

impl<'a> Journal<'a> {
    /// A journal whose undo directory's name is neither in the lower directory nor
    /// among the `changes`.
    fn new(cow: &CowVolume, target: &'a dyn Volume, changes: &[Change]) -> Result<Journal<'a>> {
        let taken = |name: &str| {
            let changed = changes.iter().any(|c| paths::is_within(&c.path, name));
            Ok::<bool, Error>(changed || !is_absent_or(cow.lower().stat(name))?)
        };
        let mut undo_dir = format!("/{UNDO_DIR}");
        let mut n = 1;
        while taken(&undo_dir)? {
            n += 1;
            undo_dir = format!("/{UNDO_DIR}-{n}");
        }
        Ok(Journal { target, undo_dir, made_undo_dir: false, taken: 0, steps: Vec::new() })
    }

    /// Moves `path` (a file, a link or a whole directory) aside: a delete that can
    /// be put back.
    fn remove(&mut self, path: &str) -> Result<String> {
        let aside = self.aside()?;
        // Said of the path being changed: the undo directory is the apply's own.
        self.target
            .rename(path, &aside, false)
            .map_err(|e| Error::at(e.kind(), path, format!("{} (moving it aside)", e.message())))?;
        self.steps.push(Undo::MovedAside { path: path.to_string(), aside: aside.clone() });
        Ok(aside)
    }

    /// Deletes the file `path`, which must still be `expected` (what the session saw):
    /// it is moved aside first and checked there, where no one else changes it, so an
    /// edit made after the conflict check is never lost (it is put back, and the apply
    /// fails as a conflict).
    fn delete_file(&mut self, path: &str, expected: Option<&Base>) -> Result<()> {
        let aside = self.remove(path)?;
        self.check_aside(path, &aside, expected)
    }

    /// Writes `data` at `path`, where the lower directory must still hold `expected`:
    /// what is there is moved aside and checked (as [`Journal::delete_file`]), then
    /// the new file is created only if nothing was created there meanwhile. (Between
    /// the two, a reader finds no file at `path`: that is the price of never writing
    /// over an edit.)
    fn write(&mut self, path: &str, data: &[u8], expected: Option<&Base>) -> Result<()> {
        match self.target.stat(path) {
            Ok(_) => {
                let aside = self.remove(path)?;
                self.check_aside(path, &aside, expected)?;
            }
            Err(e) if is_absent(&e) => {}
            Err(e) => return Err(e),
        }
        let create_only = WriteOptions { create_only: true, ..WriteOptions::default() };
        self.target.write(path, data, &create_only).map_err(|e| {
            if e.kind() == ErrorKind::AlreadyExists { changed_meanwhile(path) } else { e }
        })?;
        self.steps.push(Undo::Created(path.to_string()));
        Ok(())
    }

    /// Checks that `aside`, what was at `path`, is the file the session saw there.
    fn check_aside(&self, path: &str, aside: &str, expected: Option<&Base>) -> Result<()> {
        // A directory or a link has no content to compare (the session replaced it).
        let Some(expected) = expected.filter(|b| !matches!(b, Base::Other { .. })) else {
            return Ok(());
        };
        if lower_state(self.target, aside)? != *expected {
            return Err(changed_meanwhile(path));
        }
        Ok(())
    }

    /// A fresh name in the undo directory (made at its first use).
    fn aside(&mut self) -> Result<String> {
        if !self.made_undo_dir {
            match self.target.create_dir(&self.undo_dir) {
                // A volume without empty directories makes it with what goes in.
                Err(e) if e.kind() != ErrorKind::Unsupported => return Err(e),
                _ => self.made_undo_dir = true,
            }
        }
        self.taken += 1;
        Ok(format!("{}/{}", self.undo_dir, self.taken))
    }

    /// Creates the directory `path`.
    fn create_dir(&mut self, path: &str) -> Result<()> {
        self.target.create_dir(path)?;
        self.steps.push(Undo::Created(path.to_string()));
        Ok(())
    }

    /// The whole apply succeeded: what was moved aside goes.
    fn finish(self) -> Result<()> {
        if self.made_undo_dir {
            match self.target.delete(&self.undo_dir, true) {
                Err(e) if !is_absent(&e) => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }

    /// Puts every step back, last first, and returns `failure` saying so; if a step
    /// cannot be put back, the error says which and where the rest is kept.
    fn roll_back(self, failure: Error) -> Error {
        for step in self.steps.iter().rev() {
            let undone = match step {
                Undo::Created(p) => match self.target.delete(p, true) {
                    Err(e) if !is_absent(&e) => Err((p, e)),
                    _ => Ok(()),
                },
                Undo::MovedAside { path, aside } => {
                    self.target.rename(aside, path, true).map_err(|e| (path, e))
                }
            };
            if let Err((path, e)) = undone {
                return Error::at(
                    failure.kind(),
                    failure.path().unwrap_or(path),
                    format!(
                        "{}; the apply stopped, and putting back what it had changed failed at {path} ({e}): what it replaced or deleted is kept in {}",
                        failure.message(),
                        self.undo_dir
                    ),
                );
            }
        }
        if self.made_undo_dir {
            let _ = self.target.delete(&self.undo_dir, true);
        }
        let path = failure.path().unwrap_or("/").to_string();
        Error::at(
            failure.kind(),
            &path,
            format!(
                "{}; nothing was applied (every change made before it was put back)",
                failure.message()
            ),
        )
    }
}

/// The conflict of a file changed in the lower directory while the apply ran.
fn changed_meanwhile(path: &str) -> Error {
    Error::at(
        ErrorKind::Conflict,
        path,
        "the lower directory changed this file while the apply ran (after its check); the change is kept",
    )
}

/// Whether a stat found nothing (`Ok(true)`), found something (`Ok(false)`), or failed.
fn is_absent_or<T>(r: Result<T>) -> Result<bool> {
    match r {
        Ok(_) => Ok(false),
        Err(e) if is_absent(&e) => Ok(true),
        Err(e) => Err(e),
    }
}

/// What is left in the lower directory under a whiteout once its files are deleted
/// (directories, links): removed unless the merged view has it again.
fn remove_whited_out(
    cow: &CowVolume,
    journal: &mut Journal<'_>,
    st: &CowState,
    report: &mut ApplyReport,
) -> Result<()> {
    for w in &st.whiteouts {
        let lower = match cow.lower().stat(w) {
            Ok(e) => e,
            Err(e) if is_absent(&e) => continue,
            Err(e) => return Err(e),
        };
        let merged = cow.upper_stat(w)?;
        match merged {
            // Gone, or of another kind now (a directory where a link or special
            // file was, a file where a directory was): what the lower has goes
            // first, so that what replaces it can be made.
            None => {
                journal.remove(w)?;
                report.directories.push(w.clone());
            }
            Some(m) if m.is_dir() != lower.is_dir() => {
                journal.remove(w)?;
                report.directories.push(w.clone());
            }
            Some(m) if m.is_dir() && lower.is_dir() => {
                // Recreated: drop what the lower tree has that the merged one lacks
                // or has as the other kind (a directory that is a file now), deepest
                // first.
                let mut gone = Vec::new();
                for e in cow.lower().walk(w, usize::MAX)?.entries {
                    let kept = cow.upper_stat(&e.path)?.is_some_and(|u| u.is_dir() == e.is_dir());
                    if !kept {
                        gone.push(e.path);
                    }
                }
                gone.sort_by_key(|p| std::cmp::Reverse(paths::depth(p)));
                for p in gone {
                    if cow.lower().stat(&p).is_ok() {
                        journal.remove(&p)?;
                        report.directories.push(p);
                    }
                }
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Directories of the upper layer the lower one lacks (made empty by the session).
fn create_dirs(cow: &CowVolume, journal: &mut Journal<'_>, report: &mut ApplyReport) -> Result<()> {
    let root = upper_path("/");
    if cow.upper().stat(&root).is_err() {
        return Ok(());
    }
    let mut dirs: Vec<String> = cow
        .upper()
        .walk(&root, usize::MAX)?
        .entries
        .into_iter()
        .filter(|e| e.is_dir())
        .map(|e| super::state::from_upper(&e.path))
        .collect();
    // Parents first: a link replaced by a directory goes before what is made in it.
    dirs.sort_by_key(|p| paths::depth(p));
    for rel in dirs {
        match cow.lower().stat(&rel) {
            Ok(e) if e.is_dir() => continue,
            // A link or a file where the session made a directory (it deleted the
            // entry first: the merged view shows the directory).
            Ok(_) => {
                journal.remove(&rel)?;
            }
            Err(_) => {}
        }
        journal.create_dir(&rel)?;
        report.directories.push(rel);
    }
    Ok(())
}
