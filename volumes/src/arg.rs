//! `--mount /point=SPEC` arguments: parsed, then opened as session mounts.

use std::sync::Arc;

use crate::object;
use filestore_runtime::MountSpec;
use filestore_runtime::volumes::{SharedVolume, UPPER_LOCK, dir, lock_upper, quota_memory_volume};

/// A parsed `--mount /point=SPEC` argument (docs/architecture.md#cli).
///
/// SPEC is `./dir` or `/abs/dir` (read-write), `DIR:ro` (read-only), `mem:` (a
/// fresh in-memory volume), or an object store: `s3://bucket/prefix`,
/// `gs://bucket/prefix`, `az://container/prefix`, `file:///dir` (see
/// [`object::spec`]), each with `:ro` for read-only (`:rw`, the default, may be
/// written too).
///
/// **One reading only.** A trailing `:ro` or `:rw` is always the mode, taken off
/// once. A source whose own name ends in `:ro` or `:rw` is written with a `/`
/// after it (`/data/x:rw/`, `/data/x:rw/:ro`, `s3://b/p:ro/`), and a source that
/// still ends in a mode once the mode is taken off (`/data/x:rw:ro`) is refused.
/// So is a spec whose whole text names an existing directory while it ends in a
/// mode (`/data/x:rw` when the directory `/data/x:rw` exists, and `file:///data/x:rw`
/// alike): it reads as `/data/x`, read-write, which is not what a user naming
/// `/data/x:rw` meant, so the refusal says how to write either. Another store's
/// prefix (`s3://b/p:rw`) cannot be looked at: there the trailing mode is the mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountArg {
    /// The mount point.
    pub point: String,
    /// What to mount.
    pub source: MountSource,
    /// `:ro` was given.
    pub read_only: bool,
    /// `:cow` or `:cow=UPPER` was given (docs/cow.md): a copy-on-write mount of the
    /// directory, with this upper layer.
    pub cow: Option<CowUpper>,
}

/// Where a copy-on-write mount keeps its changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CowUpper {
    /// In memory, for the session (`:cow`).
    Memory,
    /// In this directory, created when missing, kept after the session for
    /// `filestore diff` and `filestore apply` (`:cow=DIR`).
    Dir(std::path::PathBuf),
}

/// The copy-on-write part of a spec: the spec without it, and the upper layer when
/// the spec ends in `:cow` or has `:cow=UPPER` (the last one: `UPPER` is the rest).
fn split_cow(spec: &str) -> (&str, Option<CowUpper>) {
    if let Some((lower, upper)) = spec.rsplit_once(":cow=") {
        return (lower, Some(CowUpper::Dir(std::path::PathBuf::from(upper))));
    }
    match spec.strip_suffix(":cow") {
        Some(lower) => (lower, Some(CowUpper::Memory)),
        None => (spec, None),
    }
}

/// The storage named by a mount spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MountSource {
    /// A local directory.
    Dir(std::path::PathBuf),
    /// A new in-memory volume.
    Memory,
    /// A prefix of an object store.
    Object(object::ObjectSpec),
}

impl std::str::FromStr for MountArg {
    type Err = filestore_runtime::error::Error;

    /// `Err` is [`Error::Mount`](filestore_runtime::error::Error::Mount), naming the argument.
    fn from_str(s: &str) -> Result<MountArg, filestore_runtime::error::Error> {
        let bad = |e: &dyn std::fmt::Display| {
            filestore_runtime::error::Error::mount(format!("mount '{s}': {e}"))
        };
        let (point, spec) = s.split_once('=').ok_or_else(|| {
            bad(&"expected /point=SPEC (e.g. /workspace=./src:ro or /scratch=mem:)")
        })?;
        let point = filestore_guest::vfs::paths::normalize(point)
            .map_err(|e| bad(&format!("mount point: {e}")))?;
        let (spec, cow) = split_cow(spec);
        if let Some(upper) = &cow {
            let lower_ok = !spec.is_empty()
                && spec != "mem:"
                && spec != "mem"
                && object::ObjectSpec::parse(spec).is_none()
                && !spec.ends_with(":ro")
                && !spec.ends_with(":rw");
            if !lower_ok {
                return Err(bad(
                    &"a copy-on-write mount is a local directory with no mode: /point=./dir:cow or /point=./dir:cow=./upper-dir",
                ));
            }
            if *upper == CowUpper::Dir(Default::default()) {
                return Err(bad(&"':cow=' needs the upper directory after it"));
            }
            let source = MountSource::Dir(std::path::PathBuf::from(spec));
            return Ok(MountArg { point, source, read_only: false, cow });
        }
        let (spec, read_only) = split_mode(spec).map_err(|e| bad(&e))?;
        let source = if spec == "mem:" || spec == "mem" {
            MountSource::Memory
        } else if let Some(parsed) = object::ObjectSpec::parse(spec) {
            MountSource::Object(parsed.map_err(|e| bad(&e))?)
        } else if spec.is_empty() {
            return Err(bad(&"empty SPEC; give a directory or mem:"));
        } else {
            MountSource::Dir(std::path::PathBuf::from(spec))
        };
        Ok(MountArg { point, source, read_only, cow: None })
    }
}

/// `SPEC` without its mode, and whether the mode is `:ro` (see [`MountArg`]):
/// refused when the source still ends in a mode, or when the whole spec names an
/// existing directory that the mode would cut short. (Its `Err` is the reason only:
/// [`MountArg::from_str`] names the argument.)
fn split_mode(spec: &str) -> Result<(&str, bool), String> {
    let (source, read_only) = match (spec.strip_suffix(":ro"), spec.strip_suffix(":rw")) {
        (Some(rest), _) => (rest, true),
        (None, Some(rest)) => (rest, false),
        (None, None) => return Ok((spec, false)),
    };
    let mode = &spec[source.len()..];
    if source.ends_with(":ro") || source.ends_with(":rw") {
        return Err(format!(
            "'{source}' ends in a mode too; a source named so is written with a '/' after it ('{source}/{mode}')"
        ));
    }
    let whole_is_dir = !source.ends_with('/')
        && local_dir_of(spec).is_some_and(|d| std::fs::metadata(d).is_ok_and(|m| m.is_dir()));
    if whole_is_dir {
        return Err(format!(
            "'{spec}' is a directory, but a trailing '{mode}' is the mount mode, so this reads as '{source}' mounted {}; write '{spec}/' to mount the directory '{spec}', or '{source}/{mode}' for '{source}'",
            if read_only { "read-only" } else { "read-write" }
        ));
    }
    Ok((source, read_only))
}

/// The local directory a spec names, when it names one: the spec itself, or the path
/// of a `file://` URL (an object store over a local directory, which can be looked at
/// like one). `None` for another store's URL (`s3://`...), whose keys cannot be.
fn local_dir_of(spec: &str) -> Option<&str> {
    match spec.split_once("://") {
        None => Some(spec),
        Some(("file", path)) => Some(path),
        Some(_) => None,
    }
}

/// The placeholder of a mount spec replaced by the caller's identity (one path
/// segment, made by the MCP server's `http::auth::path_segment`): `./tenants/{sub}`.
pub const IDENTITY_PLACEHOLDER: &str = "{sub}";

impl MountArg {
    /// Whether the spec depends on the caller's identity (`{sub}`).
    pub fn per_identity(&self) -> bool {
        if let Some(CowUpper::Dir(p)) = &self.cow
            && p.to_string_lossy().contains(IDENTITY_PLACEHOLDER)
        {
            return true;
        }
        match &self.source {
            MountSource::Dir(p) => p.to_string_lossy().contains(IDENTITY_PLACEHOLDER),
            MountSource::Object(o) => {
                o.prefix.contains(IDENTITY_PLACEHOLDER) || o.bucket.contains(IDENTITY_PLACEHOLDER)
            }
            MountSource::Memory => false,
        }
    }

    /// Opens the backend and returns the session mount.
    pub fn open(&self) -> Result<MountSpec, filestore_runtime::error::Error> {
        self.open_for(None)
    }

    /// Opens the backend for the caller whose identity's path segment is `segment`:
    /// `{sub}` in the spec becomes it (a directory is created when missing). A spec
    /// with `{sub}` and no identity is refused.
    pub fn open_for(
        &self,
        segment: Option<&str>,
    ) -> Result<MountSpec, filestore_runtime::error::Error> {
        let mount_err = |e: String| {
            filestore_runtime::error::Error::mount(format!("mount {}: {e}", self.point))
        };
        if self.per_identity() && segment.is_none() {
            return Err(mount_err(format!(
                "the spec uses {IDENTITY_PLACEHOLDER}, which needs an authenticated caller"
            )));
        }
        let fill = |s: &str| match segment {
            Some(seg) => s.replace(IDENTITY_PLACEHOLDER, seg),
            None => s.to_string(),
        };
        if let (Some(upper), MountSource::Dir(lower)) = (&self.cow, &self.source) {
            let lower = std::path::PathBuf::from(fill(&lower.to_string_lossy()));
            let upper = match upper {
                CowUpper::Dir(p) => CowUpper::Dir(fill(&p.to_string_lossy()).into()),
                CowUpper::Memory => CowUpper::Memory,
            };
            return self.open_cow(&lower, &upper);
        }
        let volume: SharedVolume = match &self.source {
            MountSource::Memory => Arc::new(quota_memory_volume()),
            MountSource::Dir(p) => {
                let path = std::path::PathBuf::from(fill(&p.to_string_lossy()));
                if segment.is_some() && self.per_identity() && !self.read_only {
                    // A caller's own directory is made on first use.
                    std::fs::create_dir_all(&path).map_err(|e| {
                        filestore_runtime::error::Error::mount_with(
                            format!("mount {}: cannot create the caller's directory", self.point),
                            e,
                        )
                    })?;
                }
                Arc::new(dir::DirVolume::open(&path, self.read_only).map_err(|e| {
                    filestore_runtime::error::Error::mount_with(format!("mount {}", self.point), e)
                })?)
            }
            MountSource::Object(spec) => {
                let spec = &object::ObjectSpec {
                    prefix: fill(&spec.prefix),
                    bucket: fill(&spec.bucket),
                    ..spec.clone()
                };
                // The tool-results volume is read-only for agents, but the component
                // stores results in it: there the mount refuses, not the volume.
                let volume_ro =
                    self.read_only && self.point != filestore_guest::invoke::results::RESULTS_MOUNT;
                let v = object::ObjectVolume::open(spec, volume_ro).map_err(|e| {
                    let message = format!("mount {}: {}", self.point, e.message());
                    match e.kind() {
                        // A missing bucket: what is wrong is named, the kind says so.
                        filestore_guest::error::ErrorKind::NotFound => {
                            filestore_runtime::error::Error::Filestore(
                                filestore_guest::error::Error::new(e.kind(), message),
                            )
                        }
                        _ => filestore_runtime::error::Error::mount(message),
                    }
                })?;
                // Only the results mount's role trusts a type from the store's
                // sidecars (see `object::meta`): elsewhere a sidecar a bucket writer
                // made cannot turn an object into a tool result or a skill.
                if self.point == filestore_guest::invoke::results::RESULTS_MOUNT {
                    Arc::new(v.with_trusted_entry_types(&[
                        filestore_guest::invoke::results::TYPE_TOOL_RESULT,
                    ]))
                } else {
                    Arc::new(v)
                }
            }
        };
        let spec = MountSpec::new(self.point.clone(), volume);
        Ok(if self.read_only { spec.read_only() } else { spec })
    }
}

impl MountArg {
    /// A copy-on-write mount of `lower` (opened read-only: nothing through the
    /// mount can write it) with `upper` taking the changes.
    fn open_cow(
        &self,
        lower: &std::path::Path,
        upper: &CowUpper,
    ) -> Result<MountSpec, filestore_runtime::error::Error> {
        let fail = |what: &str, e: filestore_guest::error::Error| {
            filestore_runtime::error::Error::mount_with(format!("mount {}: {what}", self.point), e)
        };
        let lower_volume =
            dir::DirVolume::open(lower, true).map_err(|e| fail("the lower directory", e))?;
        let upper_volume: SharedVolume = match upper {
            CowUpper::Memory => Arc::new(quota_memory_volume()),
            CowUpper::Dir(p) => {
                // Before anything is created: an upper directory made inside the lower
                // one would be a write to it. (The session checks the opened volumes
                // again, by identity.)
                check_cow_dirs(&self.point, lower, p)?;
                check_upper_is_ours(&self.point, p)?;
                std::fs::create_dir_all(p).map_err(|e| {
                    filestore_runtime::error::Error::mount_with(
                        format!("mount {}: cannot create the upper directory", self.point),
                        e,
                    )
                })?;
                let lock = lock_upper(&self.point, p)?;
                Arc::new(
                    dir::DirVolume::open(p, false)
                        .map_err(|e| fail("the upper directory", e))?
                        .holding(lock),
                )
            }
        };
        let spec = MountSpec::cow(self.point.clone(), Arc::new(lower_volume), upper_volume);
        Ok(match upper {
            CowUpper::Memory => spec.with_conversation_upper(),
            CowUpper::Dir(_) => spec,
        })
    }
}

/// Refuses an existing upper directory that holds anything but an upper layer's
/// files and state: a mistyped path must not have `files/` and a state file written
/// into some other directory.
fn check_upper_is_ours(
    point: &str,
    upper: &std::path::Path,
) -> Result<(), filestore_runtime::error::Error> {
    let Ok(entries) = std::fs::read_dir(upper) else { return Ok(()) };
    let ours = |name: &std::ffi::OsStr| {
        let state = filestore_guest::vfs::cow::state::STATE_PATH.trim_start_matches('/');
        let files = filestore_guest::vfs::cow::state::FILES_DIR.trim_start_matches('/');
        name == state
            || name == files
            || name == UPPER_LOCK
            || name.to_string_lossy().contains(dir::TEMP_MARKER)
    };
    for e in entries.flatten() {
        if !ours(&e.file_name()) {
            return Err(filestore_runtime::error::Error::mount(format!(
                "mount {point}: the upper directory {} holds '{}', so it is not a copy-on-write upper layer; give an empty or new directory",
                upper.display(),
                e.file_name().to_string_lossy()
            )));
        }
    }
    Ok(())
}

/// Refuses an upper directory inside the lower one or around it: both resolved
/// (the upper's nearest existing ancestor, when it does not exist yet, with the rest
/// of its path, which may not contain `.` or `..`).
fn check_cow_dirs(
    point: &str,
    lower: &std::path::Path,
    upper: &std::path::Path,
) -> Result<(), filestore_runtime::error::Error> {
    let bad = |m: String| filestore_runtime::error::Error::mount(format!("mount {point}: {m}"));
    let lower_real = lower
        .canonicalize()
        .map_err(|e| bad(format!("the lower directory {}: {e}", lower.display())))?;
    let mut existing = upper.to_path_buf();
    let mut rest = Vec::new();
    while existing.symlink_metadata().is_err() {
        let Some(name) = existing.file_name() else { break };
        rest.push(name.to_os_string());
        if !existing.pop() {
            break;
        }
    }
    if upper.components().any(|c| matches!(c, std::path::Component::ParentDir)) && !rest.is_empty()
    {
        return Err(bad(format!(
            "the upper directory {} does not exist and names '..'; create it first or name it without '..'",
            upper.display()
        )));
    }
    let base =
        if existing.as_os_str().is_empty() { std::path::PathBuf::from(".") } else { existing };
    let mut upper_real = base
        .canonicalize()
        .map_err(|e| bad(format!("the upper directory {}: {e}", upper.display())))?;
    upper_real.extend(rest.iter().rev());
    if upper_real.starts_with(&lower_real) || lower_real.starts_with(&upper_real) {
        return Err(bad(format!(
            "the upper directory {} and the lower directory {} lie inside one another, so changes would reach the lower directory; keep the upper directory outside it",
            upper.display(),
            lower.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cow_upper_directory_inside_or_around_the_lower_is_refused_before_it_is_made() {
        let t = tempfile::tempdir().unwrap();
        let lower = t.path().join("repo");
        std::fs::create_dir_all(lower.join("src")).unwrap();
        for upper in [lower.join("changes"), lower.join("src/../up"), t.path().to_path_buf()] {
            let spec = format!("/w={}:cow={}", lower.display(), upper.display());
            let m: MountArg = spec.parse().unwrap();
            let e = m.open().err().unwrap_or_else(|| panic!("{spec} was accepted")).to_string();
            assert!(e.contains("/w"), "{e}");
        }
        let names: Vec<_> =
            std::fs::read_dir(&lower).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["src"], "nothing made in the lower directory");
        let beside = t.path().join("changes");
        let m: MountArg =
            format!("/w={}:cow={}", lower.display(), beside.display()).parse().unwrap();
        assert!(m.open().unwrap().upper.is_some());
        assert!(beside.is_dir());
        // Some other directory is not taken for an upper layer.
        let other = t.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("notes.txt"), "mine").unwrap();
        let m: MountArg =
            format!("/w={}:cow={}", lower.display(), other.display()).parse().unwrap();
        let e = m.open().err().expect("refused").to_string();
        assert!(e.contains("notes.txt"), "{e}");
        assert!(!other.join("files").exists(), "nothing made there");
    }

    #[test]
    fn a_cow_spec_with_sub_is_per_caller() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("repos/alice")).unwrap();
        let spec = format!(
            "/w={}/repos/{{sub}}:cow={}/uppers/{{sub}}",
            t.path().display(),
            t.path().display()
        );
        let m: MountArg = spec.parse().unwrap();
        assert!(m.per_identity());
        assert!(m.open().is_err(), "no caller");
        assert!(m.open_for(Some("alice")).unwrap().upper.is_some());
        assert!(t.path().join("uppers/alice").is_dir());
        assert!(!t.path().join("uppers/{sub}").exists());
        assert!(m.open_for(Some("bob")).is_err(), "bob has no lower directory");
    }

    #[test]
    fn parses_cow_specs() {
        let m: MountArg = "/w=./repo:cow".parse().unwrap();
        assert_eq!(
            (m.source, m.cow, m.read_only),
            (MountSource::Dir("./repo".into()), Some(CowUpper::Memory), false)
        );
        let m: MountArg = "/w=./repo:cow=/tmp/up".parse().unwrap();
        assert_eq!(m.cow, Some(CowUpper::Dir("/tmp/up".into())));
        assert_eq!(m.source, MountSource::Dir("./repo".into()));
        for bad in ["/w=mem::cow", "/w=./repo:ro:cow", "/w=s3://b/p:cow", "/w=:cow", "/w=./r:cow="]
        {
            let e = bad.parse::<MountArg>().unwrap_err().to_string();
            assert!(e.contains(bad.split_once('=').unwrap().1), "{bad}: {e}");
        }
    }

    #[test]
    fn parses_mount_specs() {
        let m: MountArg = "/w=./src:ro".parse().unwrap();
        assert_eq!(
            m,
            MountArg {
                point: "/w".into(),
                source: MountSource::Dir("./src".into()),
                read_only: true,
                cow: None,
            }
        );
        let m: MountArg = "scratch=mem:".parse().unwrap();
        assert_eq!(m.point, "/scratch");
        assert_eq!(m.source, MountSource::Memory);
        assert!("/w".parse::<MountArg>().unwrap_err().to_string().contains("/point=SPEC"));
        let m: MountArg = "/w=s3://b/team/ws:ro".parse().unwrap();
        assert!(m.read_only);
        match m.source {
            MountSource::Object(o) => {
                assert_eq!((o.bucket.as_str(), o.prefix.as_str()), ("b", "team/ws"))
            }
            other => panic!("{other:?}"),
        }
        assert!("/w=s3://b/a/../c".parse::<MountArg>().unwrap_err().to_string().contains("'..'"));
        assert!("/../x=.".parse::<MountArg>().is_err());
    }

    /// A directory whose name ends in `:rw` or `:ro` is never silently read as
    /// another directory with a mode (which would mount what the user did not name).
    #[test]
    fn a_mode_suffix_has_one_reading() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("root3");
        std::fs::create_dir_all(&root).unwrap();
        let root = root.display().to_string();
        let dir = |m: &MountArg| match &m.source {
            MountSource::Dir(p) => (p.display().to_string(), m.read_only),
            other => panic!("{other:?}"),
        };
        // Only `root3` exists: the suffix is the mode.
        let m: MountArg = format!("/x={root}:rw").parse().unwrap();
        assert_eq!(dir(&m), (root.clone(), false));
        assert_eq!(dir(&format!("/x={root}:ro").parse().unwrap()), (root.clone(), true));
        // Now `root3:rw` and `root3:ro` exist too: refused, saying how to write each.
        for mode in [":rw", ":ro"] {
            std::fs::create_dir_all(format!("{root}{mode}")).unwrap();
            let e = format!("/x={root}{mode}").parse::<MountArg>().unwrap_err().to_string();
            assert!(e.contains(&format!("'{root}{mode}/'")), "{e}");
            assert!(e.contains(&format!("'{root}/{mode}'")), "{e}");
        }
        // The escapes: a '/' ends the path.
        let m: MountArg = format!("/x={root}:rw/").parse().unwrap();
        assert_eq!(dir(&m), (format!("{root}:rw/"), false));
        let m: MountArg = format!("/x={root}:rw/:ro").parse().unwrap();
        assert_eq!(dir(&m), (format!("{root}:rw/"), true));
        let m: MountArg = format!("/x={root}/:rw").parse().unwrap();
        assert_eq!(dir(&m), (format!("{root}/"), false));
        // Two modes: refused, whatever exists.
        let e = format!("/x={root}:rw:ro").parse::<MountArg>().unwrap_err().to_string();
        assert!(e.contains(&format!("'{root}:rw/:ro'")), "{e}");
        assert!("/x=./nothing:ro:ro".parse::<MountArg>().is_err());
        // Object stores: the same grammar (no directory to look at).
        match "/x=s3://b/p:ro/".parse::<MountArg>().unwrap() {
            MountArg { source: MountSource::Object(o), read_only: false, .. } => {
                assert_eq!(o.prefix, "p:ro")
            }
            other => panic!("{other:?}"),
        }
        assert!("/x=s3://b/p:rw:ro".parse::<MountArg>().is_err());
        // A file:// store is a local directory: the same refusal as for a path.
        for mode in [":rw", ":ro"] {
            let e = format!("/x=file://{root}{mode}").parse::<MountArg>().unwrap_err().to_string();
            assert!(e.contains(&format!("'file://{root}{mode}/'")), "{e}");
            assert!(e.contains(&format!("'file://{root}/{mode}'")), "{e}");
            let m: MountArg = format!("/x=file://{root}{mode}/").parse().unwrap();
            match m.source {
                MountSource::Object(o) => assert_eq!(o.bucket, format!("{root}{mode}/")),
                other => panic!("{other:?}"),
            }
        }
        let m: MountArg = format!("/x=file://{root}/:ro").parse().unwrap();
        assert!(m.read_only);
    }
}
