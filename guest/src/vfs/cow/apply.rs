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

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::cow::CowVolume;
use crate::vfs::cow::changes::{Change, ChangeStatus};
use crate::vfs::cow::state::{Base, CowState, FILES_DIR, lower_state, upper_path};
use crate::vfs::paths;
use crate::vfs::volume::Volume;
use crate::vfs::volume::is_absent;

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
    let mut report = ApplyReport::default();
    for c in changes.iter().filter(|c| c.status == ChangeStatus::Deleted) {
        target.delete(&c.path, false)?;
        report.deleted.push(c.path.clone());
    }
    let st = cow.state();
    remove_whited_out(cow, target, &st, &mut report)?;
    create_dirs(cow, target, &mut report)?;
    for c in changes.iter().filter(|c| c.status != ChangeStatus::Deleted) {
        let data = c.new.as_deref().unwrap_or_default();
        target.write(&c.path, data, &Default::default())?;
        report.written.push(c.path.clone());
    }
    // Applied: the upper layer starts over.
    if cow.upper().stat(FILES_DIR).is_ok() {
        cow.upper().delete(FILES_DIR, true)?;
    }
    *cow.lock() = CowState::default();
    CowState::default().save(cow.upper())?;
    Ok(report)
}

/// What is left in the lower directory under a whiteout once its files are deleted
/// (directories, links): removed unless the merged view has it again.
fn remove_whited_out(
    cow: &CowVolume,
    target: &dyn Volume,
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
            None => {
                target.delete(w, true)?;
                report.directories.push(w.clone());
            }
            Some(m) if !m.is_dir() && lower.is_dir() => {
                target.delete(w, true)?;
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
                        target.delete(&p, true)?;
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
fn create_dirs(cow: &CowVolume, target: &dyn Volume, report: &mut ApplyReport) -> Result<()> {
    let root = upper_path("/");
    if cow.upper().stat(&root).is_err() {
        return Ok(());
    }
    for e in cow.upper().walk(&root, usize::MAX)?.entries {
        let rel = super::state::from_upper(&e.path);
        if e.is_dir() && cow.lower().stat(&rel).is_err() {
            target.create_dir(&rel)?;
            report.directories.push(rel);
        }
    }
    Ok(())
}
