//! Model-based property test of the mutations: random sequences of
//! write/edit/delete/move/read, over a small alphabet of nested paths so that files and
//! directories collide, run against
//!
//! 1. a `memory` volume through a real component session,
//! 2. a `dir` volume over a fresh temporary directory through another real session,
//! 3. an object volume over a fresh prefix of a real S3 server (`s3_server`) through
//!    a third session,
//! 4. a plain in-test model (a `BTreeMap` of files, directories implied by file paths),
//!
//! which must agree at every step: the same success or error kind, the same content
//! read, and afterwards the same files with the same content and the same `ls` listing.
//!
//! The model is written from docs/architecture.md#operations and the documented error
//! kinds, independently of the guest code; where it states an order of checks (e.g.
//! `move` onto itself before `move` onto an existing entry), that order is the
//! component's documented behaviour.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use filestore::volumes::{MemoryVolume, Volume};
use filestore::{MountSpec, Session};
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Value, json};

use crate::common::*;

/// Mount point of both backends.
const MP: &str = "/w";
/// Volume-relative paths ("" is the mount root); nested so that a file at `/a` and
/// files under `/a/...` compete for the same name.
const PATHS: [&str; 8] = ["", "/a", "/b", "/a/a", "/a/b", "/b/a", "/a/a/b", "/b/a/a"];
const CONTENTS: [&str; 5] = ["x", "x y x", "y\nx\n", "", "zz"];
/// `""` is an invalid `old_string`: the error must be the same everywhere.
const OLDS: [&str; 5] = ["x", "y", "x y", "zz", ""];
const NEWS: [&str; 4] = ["y", "x", "q", ""];

#[derive(Debug, Clone)]
enum Op {
    Write { path: usize, content: usize, create_only: bool },
    Edit { path: usize, edits: Vec<(usize, usize, bool)>, list_form: bool },
    Delete { path: usize, recursive: bool },
    Move { from: usize, to: usize, overwrite: bool },
    Read { path: usize },
}

fn op() -> impl Strategy<Value = Op> {
    let path = 0..PATHS.len();
    let one_edit = (0..OLDS.len(), 0..NEWS.len(), any::<bool>());
    prop_oneof![
        4 => (path.clone(), 0..CONTENTS.len(), prop::bool::weighted(0.2))
            .prop_map(|(path, content, create_only)| Op::Write { path, content, create_only }),
        2 => (path.clone(), prop::collection::vec(one_edit, 1..=3), any::<bool>())
            .prop_map(|(path, edits, list)| Op::Edit {
                path,
                // The single-edit form carries exactly one edit.
                list_form: list || edits.len() > 1,
                edits,
            }),
        1 => (path.clone(), any::<bool>())
            .prop_map(|(path, recursive)| Op::Delete { path, recursive }),
        3 => (path.clone(), path.clone(), any::<bool>())
            .prop_map(|(from, to, overwrite)| Op::Move { from, to, overwrite }),
        1 => path.prop_map(|path| Op::Read { path }),
    ]
}

fn vpath(i: usize) -> String {
    format!("{MP}{}", PATHS[i])
}

/// A step's result: `Ok(Some(content))` for a read, `Ok(None)` for a mutation, or the
/// error kind name.
type Outcome = Result<Option<String>, String>;

/// Files by volume-relative path; directories are implied by the files beneath them.
#[derive(Default, Debug)]
struct Model {
    files: BTreeMap<String, String>,
}

fn under(p: &str, dir: &str) -> bool {
    dir.is_empty() || p.starts_with(&format!("{dir}/"))
}

fn ancestors(p: &str) -> impl Iterator<Item = &str> {
    p.match_indices('/').filter(|(i, _)| *i > 0).map(move |(i, _)| &p[..i])
}

impl Model {
    fn is_dir(&self, p: &str) -> bool {
        p.is_empty() || self.files.keys().any(|k| under(k, p))
    }
    fn exists(&self, p: &str) -> bool {
        self.files.contains_key(p) || self.is_dir(p)
    }
    fn file_ancestor(&self, p: &str) -> bool {
        ancestors(p).any(|a| self.files.contains_key(a))
    }

    fn apply(&mut self, op: &Op) -> Outcome {
        let err = |k: &str| Err(k.to_string());
        match op {
            Op::Read { path } => {
                let p = PATHS[*path];
                match self.files.get(p) {
                    Some(c) => Ok(Some(c.clone())),
                    None if self.is_dir(p) => err("not-a-file"),
                    None => err("not-found"),
                }
            }
            Op::Write { path, content, create_only } => {
                let p = PATHS[*path];
                if p.is_empty() {
                    // A mount point itself cannot be replaced.
                    return err("invalid-path");
                }
                if self.files.contains_key(p) {
                    if *create_only {
                        return err("already-exists");
                    }
                } else if self.is_dir(p) {
                    return err("not-a-file");
                } else if self.file_ancestor(p) {
                    return err("not-a-directory");
                }
                self.files.insert(p.to_string(), CONTENTS[*content].to_string());
                Ok(None)
            }
            Op::Edit { path, edits, .. } => {
                let p = PATHS[*path];
                let Some(text) = self.files.get(p) else {
                    return err(if self.is_dir(p) { "not-a-file" } else { "not-found" });
                };
                let mut cur = text.clone();
                for &(o, n, all) in edits {
                    let (old, new) = (OLDS[o], NEWS[n]);
                    if old.is_empty() || old == new {
                        return err("invalid-argument");
                    }
                    match cur.matches(old).count() {
                        // Not in the file: a conflict with its content (not-found is
                        // for a missing file).
                        0 => return err("conflict"),
                        c if c > 1 && !all => return err("conflict"),
                        _ => {}
                    }
                    cur = if all { cur.replace(old, new) } else { cur.replacen(old, new, 1) };
                }
                self.files.insert(p.to_string(), cur);
                Ok(None)
            }
            Op::Delete { path, recursive } => {
                let p = PATHS[*path];
                if !self.exists(p) {
                    return err("not-found");
                }
                if p.is_empty() {
                    return err("invalid-path");
                }
                if self.files.remove(p).is_some() {
                    return Ok(None);
                }
                if !recursive {
                    // Directories of a model are never empty.
                    return err("conflict");
                }
                self.files.retain(|k, _| !under(k, p));
                Ok(None)
            }
            Op::Move { from, to, overwrite } => {
                let (s, d) = (PATHS[*from], PATHS[*to]);
                if !self.exists(s) {
                    return err("not-found");
                }
                if s == d || under(d, s) {
                    return err("invalid-argument");
                }
                let src_is_dir = !self.files.contains_key(s);
                if self.exists(d) && (self.is_dir(d) || src_is_dir || !overwrite) {
                    return err("already-exists");
                }
                if self.file_ancestor(d) {
                    return err("not-a-directory");
                }
                if src_is_dir {
                    let moved: Vec<(String, String)> = self
                        .files
                        .iter()
                        .filter(|(k, _)| under(k, s))
                        .map(|(k, v)| (format!("{d}{}", &k[s.len()..]), v.clone()))
                        .collect();
                    self.files.retain(|k, _| !under(k, s));
                    self.files.extend(moved);
                } else {
                    let c = self.files.remove(s).expect("file");
                    self.files.insert(d.to_string(), c);
                }
                Ok(None)
            }
        }
    }

    /// `(virtual path, is_dir, size)` of every entry, directories implied.
    fn listing(&self) -> BTreeSet<(String, bool, u64)> {
        let mut out = BTreeSet::new();
        for (k, v) in &self.files {
            out.insert((format!("{MP}{k}"), false, v.len() as u64));
            for a in ancestors(k) {
                out.insert((format!("{MP}{a}"), true, 0));
            }
        }
        out
    }
}

/// Runs `op` through a real session.
fn run(s: &mut Session, op: &Op) -> Outcome {
    let (tool, args) = match op {
        Op::Read { path } => ("filestore_read", json!({"path": vpath(*path), "raw": true})),
        Op::Write { path, content, create_only } => (
            "filestore_write",
            json!({"path": vpath(*path), "content": CONTENTS[*content], "create_only": create_only}),
        ),
        Op::Edit { path, edits, list_form } => {
            let one = |&(o, n, all): &(usize, usize, bool)| json!({"old_string": OLDS[o], "new_string": NEWS[n], "replace_all": all});
            let args = if *list_form {
                json!({"path": vpath(*path), "edits": edits.iter().map(one).collect::<Vec<_>>()})
            } else {
                let mut a = one(&edits[0]);
                a["path"] = json!(vpath(*path));
                a
            };
            ("filestore_edit", args)
        }
        Op::Delete { path, recursive } => {
            ("filestore_delete", json!({"path": vpath(*path), "recursive": recursive}))
        }
        Op::Move { from, to, overwrite } => (
            "filestore_move",
            json!({"source": vpath(*from), "destination": vpath(*to), "overwrite": overwrite}),
        ),
    };
    match s.call(tool, &args) {
        Ok(out) if tool == "filestore_read" => {
            Ok(Some(out.json["text"].as_str().expect("raw read text").to_string()))
        }
        Ok(_) => Ok(None),
        Err(e) => Err(e.kind_name().to_string()),
    }
}

/// The session's `ls` of the mount, flattened like [`Model::listing`].
fn ls_listing(s: &mut Session) -> BTreeSet<(String, bool, u64)> {
    fn walk(v: &Value, out: &mut BTreeSet<(String, bool, u64)>) {
        for e in v.as_array().into_iter().flatten() {
            let is_dir = e["kind"] == "directory";
            let size = if is_dir { 0 } else { e["size"].as_u64().unwrap() };
            out.insert((e["path"].as_str().unwrap().to_string(), is_dir, size));
            walk(&e["children"], out);
        }
    }
    let j = ok(s, "filestore_ls", json!({"details": true, "path": MP, "depth": 10}));
    assert_eq!(j["truncated"], false);
    let mut out = BTreeSet::new();
    walk(&j["entries"], &mut out);
    out
}

/// Every file of a memory volume with its content, read host-side.
fn memory_files(v: &MemoryVolume) -> BTreeMap<String, String> {
    let w = v.walk("/", 10_000).unwrap();
    w.entries
        .iter()
        .filter(|e| !e.is_dir())
        .map(|e| (e.path.clone(), String::from_utf8(v.read(&e.path, 0, 1 << 20).unwrap()).unwrap()))
        .collect()
}

/// Every file of an object volume with its content, read host-side.
fn object_files(v: &filestore::volumes::object::ObjectVolume) -> BTreeMap<String, String> {
    let w = v.walk("/", 10_000).unwrap();
    w.entries
        .iter()
        .filter(|e| !e.is_dir())
        .map(|e| (e.path.clone(), String::from_utf8(v.read(&e.path, 0, 1 << 20).unwrap()).unwrap()))
        .collect()
}

/// Every file beneath `root` with its content, and every empty directory, read
/// host-side with std (links never appear: the agent cannot create them).
fn dir_files(root: &Path) -> (BTreeMap<String, String>, Vec<String>) {
    let mut files = BTreeMap::new();
    let mut empty = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let mut n = 0;
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            n += 1;
            let rel = format!("/{}", e.path().strip_prefix(root).unwrap().display());
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                files.insert(rel, std::fs::read_to_string(e.path()).unwrap());
            }
        }
        if n == 0 && d != root {
            empty.push(format!("/{}", d.strip_prefix(root).unwrap().display()));
        }
    }
    (files, empty)
}

/// Normalisation of the one legitimate difference between the backends: a directory
/// volume has real directories, which stay when their last file is deleted or moved
/// away, while memory volumes (and the model) only imply directories from file paths.
/// Such an empty directory must be an ancestor of what this step removed (anything
/// else is a bug and fails the test); it is then removed so that the next step starts
/// from the same state everywhere.
fn prune_empty_dirs(root: &Path, removed: &[&str], step: &str) {
    loop {
        let (_, empty) = dir_files(root);
        if empty.is_empty() {
            return;
        }
        for d in empty {
            assert!(
                removed.iter().any(|r| under(r, &d)),
                "{step}: unexpected empty directory {d} left in the dir volume"
            );
            std::fs::remove_dir(root.join(&d[1..])).unwrap();
        }
    }
}

fn check_sequence(ops: &[Op]) {
    let mem_vol = Arc::new(MemoryVolume::new());
    let tmp = tempfile::tempdir().unwrap();
    let mut mem_s = engine().session(vec![MountSpec::new(MP, mem_vol.clone())]).unwrap();
    let mut dir_s = session_with(MP, dir(tmp.path(), false));
    let server = crate::support::s3_server::shared();
    let s3_vol = Arc::new(server.volume(&crate::support::s3_server::prefix("model")));
    let mut s3_s = session_with(MP, s3_vol.clone());
    let mut model = Model::default();
    for (i, op) in ops.iter().enumerate() {
        let step = format!("step {i} {op:?} (after {:?})", &ops[..i]);
        let want = model.apply(op);
        let got_mem = run(&mut mem_s, op);
        let got_dir = run(&mut dir_s, op);
        assert_eq!(got_mem, want, "{step}: memory volume disagrees with the model");
        assert_eq!(got_dir, want, "{step}: dir volume disagrees with the model");
        let got_s3 = run(&mut s3_s, op);
        assert_eq!(got_s3, want, "{step}: S3 volume disagrees with the model");
        let removed: Vec<&str> = match (op, &want) {
            (Op::Delete { path, .. }, Ok(_)) => vec![PATHS[*path]],
            (Op::Move { from, .. }, Ok(_)) => vec![PATHS[*from]],
            _ => vec![],
        };
        prune_empty_dirs(tmp.path(), &removed, &step);
        assert_eq!(memory_files(&mem_vol), model.files, "{step}: memory volume content");
        assert_eq!(dir_files(tmp.path()).0, model.files, "{step}: dir volume content");
        assert_eq!(object_files(&s3_vol), model.files, "{step}: S3 volume content");
        let listing = model.listing();
        assert_eq!(ls_listing(&mut mem_s), listing, "{step}: memory volume ls");
        assert_eq!(ls_listing(&mut dir_s), listing, "{step}: dir volume ls");
        assert_eq!(ls_listing(&mut s3_s), listing, "{step}: S3 volume ls");
    }
}

proptest! {
    #![proptest_config(Config {
        cases: 32,
        // Shrunk failures become explicit regression tests below, not files written
        // into the shared source tree by a test run.
        failure_persistence: None,
        ..Config::default()
    })]

    // At least 10 steps, so that files and directories have time to collide.
    #[test]
    fn backends_and_model_agree(ops in prop::collection::vec(op(), 10..=25)) {
        check_sequence(&ops);
    }
}

/// Regression: a directory moved beneath a file succeeded on memory volumes (the file
/// became a directory too); directory volumes and the model refuse it.
#[test]
fn regression_directory_moved_beneath_a_file() {
    let write = |path, content| Op::Write { path, content, create_only: false };
    check_sequence(&[
        write(3, 0),                                   // /a/a
        write(2, 1),                                   // /b (a file)
        Op::Move { from: 1, to: 5, overwrite: false }, // /a -> /b/a: not-a-directory
        Op::Move { from: 1, to: 5, overwrite: true },  // same with overwrite
        Op::Move { from: 3, to: 7, overwrite: false }, // /a/a -> /b/a/a (file)
        Op::Read { path: 3 },
    ]);
}
