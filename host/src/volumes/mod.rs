//! Volume backends: where mounted files actually live.
//!
//! Every backend implements the guest crate's [`Volume`] trait, the same trait the
//! component's logic is written against, so a backend can be tested directly (without
//! a component) and then served to the guest through the WIT `volume` resource.
//!
//! - [`MemoryVolume`]: in-memory (the embedded default; `/scratch`, tool results).
//! - [`dir::DirVolume`]: a local directory, confined beneath its root.

use std::sync::Arc;

pub use filestore_guest::vfs::memory::MemoryVolume;
pub use filestore_guest::vfs::volume::{Volume, Walk, WriteOptions};

pub mod dir;
#[cfg(test)]
mod hostile_tree;
pub mod skills;

/// A backend shared between the host and any number of sessions.
pub type SharedVolume = Arc<dyn Volume + Send + Sync>;

/// A parsed `--mount /point=SPEC` argument (DESIGN §10).
///
/// SPEC is `./dir` or `/abs/dir` (read-write), `DIR:ro` (read-only), or `mem:`
/// (a fresh in-memory volume). `s3://` specs are recognised and refused with a
/// clear message until the object-store backend exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountArg {
    /// The mount point.
    pub point: String,
    /// What to mount.
    pub source: MountSource,
    /// `:ro` was given.
    pub read_only: bool,
}

/// The storage named by a mount spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountSource {
    /// A local directory.
    Dir(std::path::PathBuf),
    /// A new in-memory volume.
    Memory,
}

impl std::str::FromStr for MountArg {
    type Err = String;

    fn from_str(s: &str) -> Result<MountArg, String> {
        let (point, spec) = s.split_once('=').ok_or_else(|| {
            format!("mount '{s}': expected /point=SPEC (e.g. /workspace=./src:ro or /scratch=mem:)")
        })?;
        let point = filestore_guest::vfs::paths::normalize(point)
            .map_err(|e| format!("mount '{s}': mount point: {e}"))?;
        let (spec, read_only) = match spec.strip_suffix(":ro") {
            Some(rest) => (rest, true),
            None => (spec.strip_suffix(":rw").unwrap_or(spec), false),
        };
        let source = if spec == "mem:" || spec == "mem" {
            MountSource::Memory
        } else if spec.starts_with("s3://") {
            return Err(format!("mount '{s}': the S3 backend is not available in this build"));
        } else if spec.is_empty() {
            return Err(format!("mount '{s}': empty SPEC; give a directory or mem:"));
        } else {
            MountSource::Dir(std::path::PathBuf::from(spec))
        };
        Ok(MountArg { point, source, read_only })
    }
}

impl MountArg {
    /// Opens the backend and returns the session mount.
    pub fn open(&self) -> Result<crate::session::MountSpec, crate::error::Error> {
        let volume: SharedVolume = match &self.source {
            MountSource::Memory => Arc::new(MemoryVolume::new()),
            MountSource::Dir(p) => {
                Arc::new(dir::DirVolume::open(p, self.read_only).map_err(|e| {
                    crate::error::Error::Mount(format!("mount {}: {e}", self.point))
                })?)
            }
        };
        let spec = crate::session::MountSpec::new(self.point.clone(), volume);
        Ok(if self.read_only { spec.read_only() } else { spec })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mount_specs() {
        let m: MountArg = "/w=./src:ro".parse().unwrap();
        assert_eq!(
            m,
            MountArg {
                point: "/w".into(),
                source: MountSource::Dir("./src".into()),
                read_only: true
            }
        );
        let m: MountArg = "scratch=mem:".parse().unwrap();
        assert_eq!(m.point, "/scratch");
        assert_eq!(m.source, MountSource::Memory);
        assert!("/w".parse::<MountArg>().unwrap_err().contains("/point=SPEC"));
        assert!("/w=s3://b/p".parse::<MountArg>().unwrap_err().contains("S3"));
        assert!("/../x=.".parse::<MountArg>().is_err());
    }
}
