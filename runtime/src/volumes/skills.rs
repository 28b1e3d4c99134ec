//! The skills volume (docs/architecture.md#skills): skills loaded from a host directory
//! (or added through the API) and served read-only at `/skills`.
//!
//! Loading validates every `SKILL.md` with the same code the component uses
//! ([`filestore_guest::skills::skill::parse`]), and its descriptor if it has one
//! ([`filestore_guest::skills::descriptor`]: metadata or `descriptor.yaml`); an invalid skill
//! is reported with all its reasons and left out, the others load. Each loaded file is stored read-only in a
//! [`MemoryVolume`] with entry type `skill` (the `SKILL.md`) or `skill_reference`
//! (everything else in the folder) and the attributes `skill_name` and
//! `skill_description`, so `ls`/`glob`/`grep`/`read` show what they are.
//!
//! [`SkillsVolume::replace_with`] swaps a freshly loaded set into the volume every
//! session mounts, at once; [`watch`] polls a directory for changes to load
//! (docs/skills.md#reloading).

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::Path;

use filestore_guest::skills::descriptor::{self, DESCRIPTOR_FILE};
use filestore_guest::skills::skill::{
    self, SKILL_FILE, SKILL_FILE_NAMES, Skill, SkillProblem, TYPE_SKILL, TYPE_SKILL_REFERENCE,
};
use filestore_guest::vfs::memory::MemoryVolume;
use filestore_guest::vfs::volume::{Volume, WriteOptions};
use filestore_guest::{Error, ErrorKind};

use super::dir::DirVolume;

/// Largest file copied from a skill folder: references are documents, not datasets.
pub const MAX_SKILL_REFERENCE_BYTES: u64 = 16 * 1024 * 1024;
/// Most entries walked in a skills directory.
pub const MAX_SKILL_ENTRIES: usize = 100_000;

/// A set of validated skills in a read-only memory volume.
#[derive(Debug, Clone, Default)]
pub struct SkillsVolume {
    volume: MemoryVolume,
    skills: Vec<Skill>,
    problems: Vec<SkillProblem>,
    /// Each loaded skill's name and a digest of its files (paths and bytes): what
    /// tells a changed skill from an unchanged one on reload.
    digests: BTreeMap<String, u64>,
}

pub mod watch;

/// What a reload changed: skill names, each list sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillChanges {
    /// Skills that were not loaded before.
    pub added: Vec<String>,
    /// Skills whose files differ.
    pub changed: Vec<String>,
    /// Skills no longer loaded.
    pub removed: Vec<String>,
}

impl SkillChanges {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

impl std::fmt::Display for SkillChanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_empty() {
            return f.write_str("no skill added, changed or removed");
        }
        let mut parts = Vec::new();
        for (what, names) in
            [("added", &self.added), ("changed", &self.changed), ("removed", &self.removed)]
        {
            if !names.is_empty() {
                parts.push(format!("{what} {}", names.join(", ")));
            }
        }
        f.write_str(&parts.join("; "))
    }
}

impl SkillsVolume {
    /// An empty skills volume.
    pub fn new() -> SkillsVolume {
        SkillsVolume::default()
    }

    /// Loads every skill under `dir` (any depth: `dir/.../{name}/SKILL.md`, or a
    /// lowercase `skill.md` as the reference validator accepts; see
    /// [`SKILL_FILE_NAMES`]).
    ///
    /// Fails only when `dir` itself cannot be opened; invalid skills are collected in
    /// [`SkillsVolume::problems`].
    pub fn load_dir(dir: impl AsRef<Path>) -> Result<SkillsVolume, Error> {
        let src = DirVolume::open(dir.as_ref(), true)?;
        let walk = src.walk("/", MAX_SKILL_ENTRIES)?;
        if walk.truncated {
            return Err(Error::new(
                ErrorKind::LimitExceeded,
                format!("{}: more than {MAX_SKILL_ENTRIES} entries", dir.as_ref().display()),
            ));
        }
        let mut me = SkillsVolume::new();
        // Each skill folder with the name of its instructions file, preferring
        // `SKILL.md` when a folder has both.
        let mut skill_dirs: std::collections::BTreeMap<String, &str> = Default::default();
        for e in &walk.entries {
            let Some(rank) = SKILL_FILE_NAMES.iter().position(|n| *n == e.name()) else {
                continue;
            };
            if e.is_dir() || e.entry_type != "file" {
                continue;
            }
            let Some(dir) = filestore_guest::vfs::paths::parent(&e.path) else { continue };
            let best = skill_dirs.entry(dir.to_string()).or_insert(SKILL_FILE_NAMES[rank]);
            if rank < SKILL_FILE_NAMES.iter().position(|n| n == best).unwrap_or(usize::MAX) {
                *best = SKILL_FILE_NAMES[rank];
            }
        }
        for (skill_dir, md_name) in skill_dirs {
            let files: Vec<(String, u64)> = walk
                .entries
                .iter()
                .filter(|e| {
                    !e.is_dir()
                        && e.entry_type == "file"
                        && filestore_guest::vfs::paths::is_within(&e.path, &skill_dir)
                })
                .map(|e| (e.path.clone(), e.size))
                .collect();
            let mut loaded = Vec::new();
            let mut reasons = Vec::new();
            for (path, size) in files {
                if size > MAX_SKILL_REFERENCE_BYTES {
                    reasons.push(format!(
                        "{path}: {size} bytes; the limit is {MAX_SKILL_REFERENCE_BYTES}"
                    ));
                    continue;
                }
                match src.read(&path, 0, size) {
                    Ok(data) => loaded.push((path, data)),
                    Err(e) => reasons.push(e.to_string()),
                }
            }
            let skill_md = format!("{skill_dir}/{md_name}");
            if !reasons.is_empty() {
                me.problems.push(SkillProblem { path: format!("/skills{skill_md}"), reasons });
                continue;
            }
            let rel: Vec<(String, Vec<u8>)> = loaded;
            me.add_files(&skill_dir, &skill_md, rel);
        }
        Ok(me)
    }

    /// Adds one skill from in-memory files (`(path inside the skill folder, bytes)`,
    /// e.g. `("SKILL.md", ...)`, `("refs/guide.md", ...)`) under `/skills/{folder}`.
    pub fn add(
        &mut self,
        folder: &str,
        files: Vec<(String, Vec<u8>)>,
    ) -> Result<&Skill, SkillProblem> {
        let base = filestore_guest::vfs::paths::normalize(folder).map_err(|e| SkillProblem {
            path: format!("/skills/{folder}"),
            reasons: vec![e.to_string()],
        })?;
        let mut abs = Vec::new();
        for (p, data) in files {
            match filestore_guest::vfs::paths::join(&base, &p) {
                Ok(full) if filestore_guest::vfs::paths::is_within(&full, &base) => {
                    abs.push((full, data))
                }
                _ => {
                    return Err(SkillProblem {
                        path: format!("/skills{base}"),
                        reasons: vec![format!("file '{p}' lies outside the skill folder")],
                    });
                }
            }
        }
        let md_name = SKILL_FILE_NAMES
            .iter()
            .find(|n| abs.iter().any(|(p, _)| *p == format!("{base}/{n}")))
            .unwrap_or(&SKILL_FILE);
        let skill_md = format!("{base}/{md_name}");
        let before = self.skills.len();
        self.add_files(&base, &skill_md, abs);
        match self.skills.get(before) {
            Some(s) => Ok(s),
            None => Err(self.problems.last().cloned().unwrap_or(SkillProblem {
                path: format!("/skills{skill_md}"),
                reasons: vec!["SKILL.md is missing".into()],
            })),
        }
    }

    fn add_files(&mut self, dir: &str, skill_md: &str, files: Vec<(String, Vec<u8>)>) {
        let folder = filestore_guest::vfs::paths::file_name(dir);
        let shown = format!("/skills{skill_md}");
        let Some((_, md)) = files.iter().find(|(p, _)| p == skill_md) else {
            self.problems
                .push(SkillProblem { path: shown, reasons: vec!["SKILL.md is missing".into()] });
            return;
        };
        let text = match std::str::from_utf8(md) {
            Ok(t) => t,
            Err(_) => {
                self.problems.push(SkillProblem {
                    path: shown,
                    reasons: vec!["SKILL.md is not UTF-8 text".into()],
                });
                return;
            }
        };
        let mut skill = match skill::parse(&shown, folder, text) {
            Ok(s) => s,
            Err(p) => {
                self.problems.push(p);
                return;
            }
        };
        // A descriptor (metadata or sidecar) is part of the skill: an invalid one makes
        // the skill invalid, with every reason.
        let sidecar_path = format!("{dir}/{DESCRIPTOR_FILE}");
        let sidecar_shown = format!("/skills{sidecar_path}");
        let sidecar = match files.iter().find(|(p, _)| *p == sidecar_path) {
            None => None,
            Some((_, bytes)) => match std::str::from_utf8(bytes) {
                Ok(t) => Some((sidecar_shown.as_str(), t)),
                Err(_) => {
                    self.problems.push(SkillProblem {
                        path: shown,
                        reasons: vec![format!("{sidecar_shown} is not UTF-8 text")],
                    });
                    return;
                }
            },
        };
        let catalog = match descriptor::load(&skill, sidecar) {
            Ok(d) => d.map(|d| d.catalog).unwrap_or_default(),
            Err(reasons) => {
                self.problems.push(SkillProblem { path: shown, reasons });
                return;
            }
        };
        if self.skills.iter().any(|s| s.name == skill.name) {
            self.problems.push(SkillProblem {
                path: shown,
                reasons: vec![format!("another skill is already named '{}'", skill.name)],
            });
            return;
        }
        let mut digest = std::hash::DefaultHasher::new();
        files.hash(&mut digest);
        self.digests.insert(skill.name.clone(), digest.finish());
        let mut attributes =
            serde_json::json!({"skill_name": skill.name, "skill_description": skill.description});
        // The descriptor's catalog metadata, for listings and the prompt block's filter.
        if let Some(c) = &catalog.category {
            attributes["skill_category"] = c.clone().into();
        }
        if !catalog.tags.is_empty() {
            attributes["skill_tags"] = catalog.tags.clone().into();
        }
        if let Some(m) = &catalog.invocation_mode {
            attributes["skill_invocation_mode"] = m.clone().into();
        }
        for (path, data) in &files {
            let entry_type = if path == skill_md { TYPE_SKILL } else { TYPE_SKILL_REFERENCE };
            let opts = WriteOptions {
                create_only: false,
                read_only: true,
                entry_type: Some(entry_type.to_string()),
                attributes: Some(attributes.clone()),
            };
            // The volume is private to this loader and paths were validated.
            let _ = self.volume.write(path, data, &opts);
        }
        skill.path = shown;
        self.skills.push(skill);
    }

    /// The loaded skills, by load order.
    pub fn skills(&self) -> &[Skill] {
        &self.skills
    }

    /// Skills that could not be loaded, with every reason.
    pub fn problems(&self) -> &[SkillProblem] {
        &self.problems
    }

    /// The volume to mount at `/skills` (read-only).
    pub fn volume(&self) -> MemoryVolume {
        self.volume.clone()
    }

    /// This set without the skills whose `SKILL.md` (as shown, `/skills/x/SKILL.md`)
    /// is in `left_out`: their files are gone (a file belongs to the innermost skill
    /// folder holding it), the others are kept as they are.
    pub fn without(&self, left_out: &[String]) -> SkillsVolume {
        let folder = |s: &Skill| {
            let md = s.path.strip_prefix("/skills").unwrap_or(&s.path);
            filestore_guest::vfs::paths::parent(md).unwrap_or("/").to_string()
        };
        let folders: Vec<(String, bool)> =
            self.skills.iter().map(|s| (folder(s), !left_out.contains(&s.path))).collect();
        let mut out = SkillsVolume { problems: self.problems.clone(), ..SkillsVolume::new() };
        for s in self.skills.iter().filter(|s| !left_out.contains(&s.path)) {
            out.skills.push(s.clone());
            if let Some(d) = self.digests.get(&s.name) {
                out.digests.insert(s.name.clone(), *d);
            }
        }
        // The volume is private to this set: every entry of it reads and copies.
        let Ok(walk) = self.volume.walk("/", MAX_SKILL_ENTRIES) else { return out };
        for e in walk.entries.iter().filter(|e| !e.is_dir()) {
            let owner = folders
                .iter()
                .filter(|(f, _)| filestore_guest::vfs::paths::is_within(&e.path, f))
                .max_by_key(|(f, _)| f.len());
            if !owner.is_some_and(|(_, kept)| *kept) {
                continue;
            }
            let Ok(data) = self.volume.read(&e.path, 0, e.size) else { continue };
            let opts = WriteOptions {
                create_only: false,
                read_only: e.read_only,
                entry_type: Some(e.entry_type.clone()),
                attributes: e.attributes.clone(),
            };
            let _ = out.volume.write(&e.path, &data, &opts);
        }
        out
    }

    /// Makes `fresh` this set: its files replace this volume's at once for every
    /// session that mounts it (a reader sees the old set or the new one, never a
    /// mix), and its skills and problems replace these. Returns what changed.
    pub fn replace_with(&mut self, fresh: SkillsVolume) -> Result<SkillChanges, Error> {
        self.volume.replace_with(&fresh.volume)?;
        let mut changes = SkillChanges::default();
        for (name, digest) in &fresh.digests {
            match self.digests.get(name) {
                None => changes.added.push(name.clone()),
                Some(d) if d != digest => changes.changed.push(name.clone()),
                Some(_) => {}
            }
        }
        changes.removed =
            self.digests.keys().filter(|n| !fresh.digests.contains_key(*n)).cloned().collect();
        self.skills = fresh.skills;
        self.problems = fresh.problems;
        self.digests = fresh.digests;
        Ok(changes)
    }

    /// Loads `dir` afresh (validated as [`SkillsVolume::load_dir`] does: invalid
    /// skills are in [`SkillsVolume::problems`] and left out) and makes it this set
    /// ([`SkillsVolume::replace_with`]). When `dir` cannot be opened, the set is kept.
    pub fn reload(&mut self, dir: impl AsRef<Path>) -> Result<SkillChanges, Error> {
        let fresh = SkillsVolume::load_dir(dir)?;
        self.replace_with(fresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(name: &str, extra: &str) -> String {
        format!(
            "---\nname: {name}\ndescription: Does {name} things.\n{extra}---\nBody of {name}.\n"
        )
    }

    #[test]
    fn loads_valid_and_reports_invalid() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("team/pdf/refs")).unwrap();
        std::fs::write(
            root.join("team/pdf/SKILL.md"),
            md("pdf", "allowed-tools: filestore_read\n"),
        )
        .unwrap();
        std::fs::write(root.join("team/pdf/refs/forms.md"), "how to fill forms").unwrap();
        std::fs::create_dir_all(root.join("broken")).unwrap();
        std::fs::write(root.join("broken/SKILL.md"), md("Wrong_Name", "color: red\n")).unwrap();
        std::fs::create_dir_all(root.join("notes")).unwrap();
        std::fs::write(root.join("notes/README.md"), "not a skill").unwrap();
        let sv = SkillsVolume::load_dir(root).unwrap();
        assert_eq!(sv.skills().len(), 1);
        assert_eq!(sv.skills()[0].path, "/skills/team/pdf/SKILL.md");
        assert_eq!(sv.problems().len(), 1);
        let p = &sv.problems()[0];
        assert_eq!(p.path, "/skills/broken/SKILL.md");
        assert!(p.reasons.len() >= 2, "{p}");
        let v = sv.volume();
        let e = v.stat("/team/pdf/SKILL.md").unwrap();
        assert_eq!(e.entry_type, "skill");
        assert!(e.read_only);
        assert_eq!(e.attributes.as_ref().unwrap()["skill_name"], "pdf");
        assert_eq!(v.stat("/team/pdf/refs/forms.md").unwrap().entry_type, "skill_reference");
        assert!(v.stat("/broken/SKILL.md").is_err(), "invalid skills are not loaded");
        assert!(v.stat("/notes/README.md").is_err(), "files outside skills are not loaded");
    }

    /// A reload replaces the set every clone of the volume serves, and says which
    /// skills came, changed and went; `without` leaves a skill's files out.
    #[test]
    fn reload_replaces_the_set_and_names_the_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let put = |dir: &str, text: String| {
            std::fs::create_dir_all(root.join(dir)).unwrap();
            std::fs::write(root.join(dir).join("SKILL.md"), text).unwrap();
        };
        put("keep", md("keep", ""));
        put("edit", md("edit", ""));
        put("gone", md("gone", ""));
        let mut live = SkillsVolume::load_dir(root).unwrap();
        let mounted = live.volume();
        put("edit", md("edit", "license: MIT\n"));
        put("fresh", md("fresh", ""));
        std::fs::write(root.join("fresh/guide.md"), "guide").unwrap();
        std::fs::remove_dir_all(root.join("gone")).unwrap();
        let changes = live.reload(root).unwrap();
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            changes,
            SkillChanges {
                added: names(&["fresh"]),
                changed: names(&["edit"]),
                removed: names(&["gone"])
            }
        );
        assert_eq!(changes.to_string(), "added fresh; changed edit; removed gone");
        assert!(mounted.stat("/gone/SKILL.md").is_err(), "the mounted clone sees the new set");
        assert_eq!(mounted.stat("/fresh/guide.md").unwrap().entry_type, TYPE_SKILL_REFERENCE);
        let fresh = SkillsVolume::load_dir(root).unwrap();
        let fewer = fresh.without(&["/skills/fresh/SKILL.md".to_string()]);
        assert_eq!(fewer.skills().len(), 2);
        assert!(fewer.volume().stat("/fresh/guide.md").is_err());
        let kept = fewer.volume().stat("/keep/SKILL.md").unwrap();
        assert!(kept.read_only && kept.entry_type == TYPE_SKILL);
        let changes = live.replace_with(fewer).unwrap();
        assert_eq!(changes.removed, names(&["fresh"]));
        assert!(changes.added.is_empty() && changes.changed.is_empty());
        assert!(mounted.stat("/fresh/SKILL.md").is_err());
        assert!(live.reload(root.join("missing")).is_err());
        assert_eq!(live.skills().len(), 2, "a directory that cannot be read keeps the set");
    }

    #[test]
    fn api_add_validates() {
        let mut sv = SkillsVolume::new();
        sv.add("csv", vec![("SKILL.md".into(), md("csv", "").into_bytes())]).unwrap();
        let e = sv.add("x", vec![("../escape.md".into(), b"x".to_vec())]).unwrap_err();
        assert!(e.reasons[0].contains("outside"), "{e}");
        let e = sv.add("dup", vec![("SKILL.md".into(), md("csv", "").into_bytes())]).unwrap_err();
        assert!(e.reasons.iter().any(|r| r.contains("folder name")), "{e}");
        assert_eq!(sv.skills().len(), 1);
        // A lowercase `skill.md` is the skill's instructions, under its real name.
        let s = sv.add("lower", vec![("skill.md".into(), md("lower", "").into_bytes())]).unwrap();
        assert_eq!(s.path, "/skills/lower/skill.md");
        assert_eq!(sv.volume().stat("/lower/skill.md").unwrap().entry_type, TYPE_SKILL);
        let e = sv.add("badlow", vec![("skill.md".into(), md("Bad", "").into_bytes())]);
        assert_eq!(e.unwrap_err().path, "/skills/badlow/skill.md");
        let e = sv.add("none", vec![("Skill.md".into(), md("none", "").into_bytes())]);
        assert!(e.unwrap_err().reasons[0].contains("missing"));
    }

    #[test]
    fn descriptors_are_validated_at_load() {
        let mut sv = SkillsVolume::new();
        let good = "tool: orders\nrequiresApproval: true\ninputs: [{name: id, type: integer}]\n";
        sv.add(
            "ok",
            vec![
                ("SKILL.md".into(), md("ok", "").into_bytes()),
                ("descriptor.yaml".into(), good.as_bytes().to_vec()),
            ],
        )
        .unwrap();
        let e = sv
            .add(
                "bad",
                vec![
                    ("SKILL.md".into(), md("bad", "").into_bytes()),
                    ("descriptor.yaml".into(), b"inputs: [{name: id, type: nope}]\n".to_vec()),
                ],
            )
            .unwrap_err();
        assert_eq!(e.path, "/skills/bad/SKILL.md");
        let all = e.reasons.join("\n");
        assert!(all.contains("/skills/bad/descriptor.yaml: line 1"), "{all}");
        assert!(all.contains("unknown parameter type 'nope'"), "{all}");
        assert!(all.contains("`tool` is required"), "{all}");
        let e = sv
            .add(
                "meta",
                vec![(
                    "SKILL.md".into(),
                    md("meta", "metadata:\n  filestore.tool: \"\"\n").into_bytes(),
                )],
            )
            .unwrap_err();
        assert!(e.reasons[0].contains("tool is empty"), "{e}");
        assert_eq!(sv.skills().len(), 1);
        assert!(sv.volume().stat("/ok/descriptor.yaml").is_ok());
        assert!(sv.volume().stat("/bad/SKILL.md").is_err());
    }
}
