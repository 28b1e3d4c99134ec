//! The hostile directory tree both confinement suites attack: the end-to-end suite
//! (`tests/integration/confinement.rs`) and the `dir` volume's unit table
//! (`runtime/src/volumes/dir/tests.rs`, which includes this file with `#[path]`), so both
//! run against the same links and check the aftermath the same way.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};

/// Content of files outside the root: must never appear in any result.
pub const SECRET: &str = "TOP-SECRET-OUTSIDE";
/// Content of the file in the sibling `root_evil/` that shares the root's prefix.
pub const EVIL_SECRET: &str = "EVIL-SIBLING-SECRET";
/// Content of `outside/x.txt`, the same relative name as `root/d/x.txt`: what a `/d`
/// swapped for a link would reach.
pub const SECRET_X: &str = "TOP-SECRET-SWAPPED";

/// Builds under `top`: `root/` (the volume: `a.txt`, `d/x.txt`, `sub/inner.txt`,
/// `linkdir/out`), the sibling `root_evil/`, and `outside/`, plus links from the root
/// to all of them (absolute and relative, to files and directories, dangling, loops,
/// chains, `.`, `..`, `/proc/self/root`). Returns `(root, outside)`.
pub fn build(top: &Path) -> (PathBuf, PathBuf) {
    let root = top.join("root");
    let outside = top.join("outside");
    let evil = top.join("root_evil");
    for d in [&root, &outside, &evil, &outside.join("dir"), &root.join("d"), &root.join("sub")] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::create_dir_all(outside.join("outside_only")).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(outside.join("x.txt"), SECRET_X).unwrap();
    std::fs::write(outside.join("dir/deep.txt"), SECRET).unwrap();
    std::fs::write(outside.join("outside_only/n.txt"), SECRET).unwrap();
    std::fs::write(evil.join("evil_secret.txt"), EVIL_SECRET).unwrap();
    std::fs::write(root.join("a.txt"), "hello").unwrap();
    std::fs::write(root.join("d/x.txt"), "inside-x").unwrap();
    std::fs::write(root.join("sub/inner.txt"), "inner").unwrap();
    let l = |target: &Path, name: &str| symlink(target, root.join(name)).unwrap();
    l(&outside, "link_out_abs");
    l(Path::new("../outside"), "link_out_rel");
    l(&outside.join("secret.txt"), "link_file_abs");
    l(Path::new("../outside/secret.txt"), "link_file_rel");
    l(&evil, "link_evil");
    l(Path::new("../root_evil/evil_secret.txt"), "link_evil_rel");
    l(&outside.join("new.txt"), "dangling");
    l(Path::new("../outside/created.txt"), "dangling_rel");
    l(&outside.join("newdir"), "dangling_dir");
    l(Path::new("loop_b"), "loop_a");
    l(Path::new("loop_a"), "loop_b");
    l(Path::new("chain2"), "chain1");
    l(Path::new("chain3"), "chain2");
    l(&outside.join("secret.txt"), "chain3");
    l(Path::new("chain_dir2"), "chain_dir1");
    l(&outside, "chain_dir2");
    l(Path::new("a.txt"), "link_in");
    l(Path::new("d"), "link_in_dir");
    l(Path::new("."), "link_self");
    l(Path::new(".."), "link_parent");
    l(Path::new("/proc/self/root"), "magic");
    std::fs::create_dir(root.join("linkdir")).unwrap();
    symlink(&outside, root.join("linkdir/out")).unwrap();
    (root, outside)
}

/// Everything under `top` except the `skip` subtree, links not followed: mode, size,
/// inode, mtime, content and link target of each entry.
pub type Snapshot = BTreeMap<PathBuf, (u32, u64, u64, i64, i64, Option<Vec<u8>>, Option<PathBuf>)>;

/// Takes a [`Snapshot`]: compare one before and one after an attack.
pub fn snapshot(top: &Path, skip: &Path) -> Snapshot {
    let mut out = BTreeMap::new();
    let mut stack = vec![top.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p == skip {
            continue;
        }
        let m = std::fs::symlink_metadata(&p).unwrap();
        let content = m.is_file().then(|| std::fs::read(&p).unwrap());
        let link = m.file_type().is_symlink().then(|| std::fs::read_link(&p).unwrap());
        if m.is_dir() {
            for e in std::fs::read_dir(&p).unwrap() {
                stack.push(e.unwrap().path());
            }
        }
        let key = p.strip_prefix(top).unwrap().to_path_buf();
        out.insert(key, (m.mode(), m.size(), m.ino(), m.mtime(), m.mtime_nsec(), content, link));
    }
    out
}

/// Temporary files of atomic writes (names containing `marker`, the dir volume's
/// `TEMP_MARKER`) left anywhere beneath `dir`, links not followed.
pub fn temp_files(dir: &Path, marker: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        for e in std::fs::read_dir(&p).unwrap() {
            let e = e.unwrap();
            if e.file_name().to_string_lossy().contains(marker) {
                out.push(e.path());
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out
}
