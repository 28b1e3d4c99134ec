//! `serve --skills DIR` while it runs (docs/skills.md#reloading): the directory is
//! polled, and a settled change is loaded, checked and swapped into the `/skills`
//! volume every session mounts, so operators ship skills without a restart.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use filestore::MountSpec;
use filestore::mcp::{FilestoreServer, ServerConfig};
use filestore::volumes::MemoryVolume;
use filestore::volumes::skills::SkillsVolume;
use filestore::volumes::skills::watch::{self, DirSignature};

/// Starts watching `dir` every `every`: each settled change loads the directory
/// afresh (invalid skills skipped, said on stderr as at start), leaves out the
/// skills that would be orphans for the tools `config`'s sessions have (one line
/// each), and makes the rest `live`'s set, with one line naming what was added,
/// changed and removed. Nothing of it stops the server: a directory that cannot be
/// read, or a check that fails, keeps the set in use. `loaded` is the directory's
/// signature from before `live` was loaded.
pub(super) fn start(
    dir: PathBuf,
    every: Duration,
    loaded: Option<DirSignature>,
    mut live: SkillsVolume,
    config: &ServerConfig,
) {
    // The check runs on a session as the start's did: it serves no one.
    let probe = config.probe();
    let shown = dir.display().to_string();
    let watched = dir.clone();
    let reload = move || {
        let fresh = match SkillsVolume::load_dir(&dir) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("filestore serve: --skills {shown}: {e}; the skills loaded before stay");
                return;
            }
        };
        for p in fresh.problems() {
            eprintln!("filestore serve: skipped {p}");
        }
        let orphans = match orphans_of(&probe, fresh.volume()) {
            Ok(o) => o,
            Err(e) => {
                eprintln!(
                    "filestore serve: --skills {shown}: checking the skills' tools failed: {e}; the skills loaded before stay"
                );
                return;
            }
        };
        for o in &orphans {
            eprintln!("filestore serve: skipped a skill naming no tool of this server: {o}");
        }
        let left_out: Vec<String> = orphans.into_iter().map(|o| o.skill).collect();
        let fresh = if left_out.is_empty() { fresh } else { fresh.without(&left_out) };
        match live.replace_with(fresh) {
            Ok(changes) => eprintln!(
                "filestore serve: --skills {shown} reloaded: {changes} ({} skills)",
                live.skills().len()
            ),
            Err(e) => {
                eprintln!("filestore serve: --skills {shown}: {e}; the skills loaded before stay")
            }
        }
    };
    let gone = watched.display().to_string();
    let unreadable = move |e: &std::io::Error| {
        eprintln!("filestore serve: --skills {gone}: {e}; the skills loaded before stay");
    };
    if let Err(e) = watch::spawn(watched, every, loaded, reload, unreadable) {
        eprintln!("filestore serve: --skills: cannot watch for changes: {e}");
    }
}

/// The orphans (`allowed-tools` names or descriptors that no tool of the server
/// answers to) among the skills of `candidate`, found by a session of `probe`
/// ([`ServerConfig::probe`]) that mounts it at `/skills`: the check `serve` makes
/// at start.
fn orphans_of(
    probe: &ServerConfig,
    candidate: MemoryVolume,
) -> filestore::Result<Vec<filestore_guest::invoke::SkillOrphan>> {
    let mounts = probe.mounts.clone();
    let factory = move || -> filestore::Result<Vec<MountSpec>> {
        let mut specs = mounts()?;
        specs.retain(|m| m.point != "/skills");
        specs.push(MountSpec::new("/skills", Arc::new(candidate.clone())).read_only());
        Ok(specs)
    };
    let config = ServerConfig { mounts: Arc::new(factory), ..probe.clone() };
    FilestoreServer::new(&config)?.skill_orphans()
}
