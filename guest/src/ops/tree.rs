//! `filestore_tree`: the directory tree as text for a system prompt
//! (docs/architecture.md#filestore_tree).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;

/// Parameters of `filestore_tree`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeRequest {
    /// Root of the tree.
    #[serde(default = "crate::ops::request::default_root")]
    pub path: String,
    /// Deepest level shown (1: direct children only).
    #[serde(default = "five")]
    pub max_depth: u32,
    /// Files shown per folder before `[N more files]`.
    #[serde(default = "three")]
    pub max_files_per_folder: u32,
    /// Globs of entries to leave out with what lies beneath them (see
    /// [`crate::ops::glob::Excludes`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

fn five() -> u32 {
    5
}
fn three() -> u32 {
    3
}

impl Default for TreeRequest {
    fn default() -> Self {
        TreeRequest { path: "/".into(), max_depth: 5, max_files_per_folder: 3, exclude: Vec::new() }
    }
}

/// Result of `filestore_tree`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TreeResult {
    /// The root.
    pub path: String,
    /// The rendered tree.
    pub tree: String,
    /// Whether the walk hit its entry cap (the tree is partial).
    pub truncated: bool,
}

/// Most directories one tree shows: past it the tree is cut and says so. With the
/// per-folder file cap this bounds the answer (and the memory that builds it),
/// however large the tree.
pub const MAX_TREE_DIRS: usize = 10_000;

/// One directory as the tree shows it (also the source of
/// [`crate::ops::tree_nodes`]).
#[derive(Default)]
pub(crate) struct Node {
    /// Subdirectories by name.
    pub(crate) dirs: BTreeMap<String, Node>,
    /// The first files by name (at most the per-folder cap).
    pub(crate) files: Vec<String>,
    /// How many more files the folder holds.
    pub(crate) hidden: usize,
}

/// A tree as walked: its normalised root, the root's node, and whether a cap cut it.
pub(crate) struct Walked {
    pub(crate) path: String,
    pub(crate) root: Node,
    pub(crate) truncated: bool,
}

/// Where the walk stands: entries listed so far and directories shown.
struct Budget {
    entries_left: usize,
    dirs_left: usize,
    truncated: bool,
}

/// Renders the tree under `path`. Each directory is listed on its own, down to
/// `max_depth` and never deeper, so a shallow tree of a huge directory costs only
/// the levels shown; only the files shown per folder are kept.
pub fn tree(mounts: &MountTable, limits: &Limits, req: &TreeRequest) -> Result<TreeResult> {
    let walked = walk(mounts, limits, req)?;
    let tree = render(&walked);
    Ok(TreeResult { path: walked.path, tree, truncated: walked.truncated })
}

/// Walks the tree `req` asks for (see [`tree`]).
pub(crate) fn walk(mounts: &MountTable, limits: &Limits, req: &TreeRequest) -> Result<Walked> {
    let path = paths::normalize(&req.path)?;
    if req.max_depth == 0 {
        return Err(Error::invalid_argument("max_depth", "must be at least 1"));
    }
    let me = mounts.stat(&path)?;
    crate::vfs::mounts::refuse_contentless(&me, &path)?;
    if !me.is_dir() {
        return Err(Error::at(ErrorKind::NotADirectory, &path, "not a directory"));
    }
    let excludes = crate::ops::glob::Excludes::new(&req.exclude, &path)?;
    let mut budget =
        Budget { entries_left: limits.walk_entries, dirs_left: MAX_TREE_DIRS, truncated: false };
    let max_files = req.max_files_per_folder as usize;
    let root = build(mounts, &path, req.max_depth as usize, max_files, &excludes, &mut budget)?;
    Ok(Walked { path, root, truncated: budget.truncated })
}

/// The text of a walked tree.
pub(crate) fn render(walked: &Walked) -> String {
    let path = &walked.path;
    let mut out = format!("{}\n", if path == "/" { "/".to_string() } else { format!("{path}/") });
    render_node(&walked.root, "", &mut out);
    if walked.truncated {
        out.push_str("[tree truncated: too many entries]\n");
    }
    out
}

/// The node of `dir` with `depth` levels beneath it. A subdirectory that cannot be
/// listed (gone, unreadable) shows as empty rather than failing the whole tree.
fn build(
    mounts: &MountTable,
    dir: &str,
    depth: usize,
    max_files: usize,
    excludes: &crate::ops::glob::Excludes,
    budget: &mut Budget,
) -> Result<Node> {
    let mut node = Node::default();
    let entries = mounts.list(dir)?;
    for e in entries.iter().filter(|e| !excludes.excludes(&e.path)) {
        if budget.entries_left == 0 {
            budget.truncated = true;
            break;
        }
        budget.entries_left -= 1;
        let name = paths::file_name(&e.path).to_string();
        if e.is_dir() {
            if budget.dirs_left == 0 {
                budget.truncated = true;
                break;
            }
            budget.dirs_left -= 1;
            let child = if depth > 1 {
                build(mounts, &e.path, depth - 1, max_files, excludes, budget).unwrap_or_default()
            } else {
                Node::default()
            };
            node.dirs.insert(name, child);
        } else if node.files.len() < max_files {
            node.files.push(name);
        } else {
            node.hidden += 1;
        }
    }
    node.files.sort();
    Ok(node)
}

fn render_node(node: &Node, prefix: &str, out: &mut String) {
    let hidden = node.hidden;
    let files = &node.files;
    let total = node.dirs.len() + files.len() + usize::from(hidden > 0);
    let mut i = 0;
    for (name, child) in &node.dirs {
        i += 1;
        let last = i == total;
        out.push_str(&format!("{prefix}{}{name}/\n", if last { "└── " } else { "├── " }));
        let next = format!("{prefix}{}", if last { "    " } else { "│   " });
        render_node(child, &next, out);
    }
    for f in files {
        i += 1;
        out.push_str(&format!("{prefix}{}{f}\n", if i == total { "└── " } else { "├── " }));
    }
    if hidden > 0 {
        out.push_str(&format!(
            "{prefix}└── [{hidden} more file{}]\n",
            if hidden == 1 { "" } else { "s" }
        ));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::vfs::entry::Entry;
    use crate::vfs::memory::MemoryVolume;

    /// The files of the tree whose exact rendering `renders_exact_tree` checks (and
    /// `tree_nodes` checks as data).
    pub(crate) const SAMPLE_FILES: &[&str] = &[
        "/README.md",
        "/src/main.rs",
        "/src/a.rs",
        "/src/b.rs",
        "/src/c.rs",
        "/src/util/x.rs",
        "/docs/deep/er/file.md",
    ];

    #[test]
    fn renders_exact_tree() {
        let v = MemoryVolume::new();
        for f in SAMPLE_FILES {
            v.insert(f, "x");
        }
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        let r = tree(
            &t,
            &Limits::default(),
            &TreeRequest { path: "/w".into(), max_depth: 3, ..Default::default() },
        )
        .unwrap();
        let want = "\
/w/
├── docs/
│   └── deep/
│       └── er/
├── src/
│   ├── util/
│   │   └── x.rs
│   ├── a.rs
│   ├── b.rs
│   ├── c.rs
│   └── [1 more file]
└── README.md
";
        assert_eq!(r.tree, want);
    }

    /// A memory volume that counts the listings and walks asked of it.
    struct Counting(MemoryVolume, std::sync::Arc<std::sync::Mutex<(usize, usize)>>);

    impl crate::vfs::volume::Volume for Counting {
        fn stat(&self, p: &str) -> Result<Entry> {
            self.0.stat(p)
        }
        fn list(&self, p: &str) -> Result<Vec<Entry>> {
            self.1.lock().unwrap().0 += 1;
            self.0.list(p)
        }
        fn walk(&self, p: &str, max: usize) -> Result<crate::vfs::volume::Walk> {
            self.1.lock().unwrap().1 += 1;
            self.0.walk(p, max)
        }
        fn read(&self, p: &str, o: u64, l: u64) -> Result<Vec<u8>> {
            self.0.read(p, o, l)
        }
        fn write(&self, p: &str, c: &[u8], o: &crate::vfs::volume::WriteOptions) -> Result<Entry> {
            self.0.write(p, c, o)
        }
        fn delete(&self, p: &str, r: bool) -> Result<()> {
            self.0.delete(p, r)
        }
        fn rename(&self, a: &str, b: &str, o: bool) -> Result<()> {
            self.0.rename(a, b, o)
        }
    }

    /// A depth-limited tree lists only the levels it shows (one listing per
    /// directory shown, never a walk of everything beneath), and keeps only the
    /// files it shows: a shallow tree of a huge workspace stays cheap.
    #[test]
    fn shallow_tree_never_walks_deeper() {
        let v = MemoryVolume::new();
        for d in 0..20 {
            for f in 0..50 {
                v.insert(&format!("/d{d:02}/deep/er/f{f}.txt"), "x");
            }
        }
        let counts = std::sync::Arc::new(std::sync::Mutex::new((0, 0)));
        let mut t = MountTable::new();
        t.add("/w", Box::new(Counting(v, counts.clone())), 0, false).unwrap();
        let req = TreeRequest { path: "/w".into(), max_depth: 1, ..Default::default() };
        let r = tree(&t, &Limits::default(), &req).unwrap();
        assert_eq!(r.tree.lines().count(), 21, "{}", r.tree);
        assert_eq!(*counts.lock().unwrap(), (1, 0), "one listing of /w, no walk");
        let req = TreeRequest { path: "/w".into(), max_depth: 2, ..Default::default() };
        tree(&t, &Limits::default(), &req).unwrap();
        assert_eq!(*counts.lock().unwrap(), (1 + 21, 0));
        // A cap on entries cuts the tree and says so.
        let limits = Limits { walk_entries: 5, ..Limits::default() };
        let r =
            tree(&t, &limits, &TreeRequest { path: "/w".into(), ..Default::default() }).unwrap();
        assert!(
            r.truncated && r.tree.ends_with("[tree truncated: too many entries]\n"),
            "{}",
            r.tree
        );
    }

    #[test]
    fn root_and_errors() {
        let v = MemoryVolume::new();
        v.insert("/f", "x");
        let mut t = MountTable::new();
        t.add("/m", Box::new(v), 0, false).unwrap();
        let r = tree(&t, &Limits::default(), &TreeRequest::default()).unwrap();
        assert_eq!(r.tree, "/\n└── m/\n    └── f\n");
        assert_eq!(
            tree(
                &t,
                &Limits::default(),
                &TreeRequest { path: "/m/f".into(), ..Default::default() }
            )
            .unwrap_err()
            .kind(),
            ErrorKind::NotADirectory
        );
    }
}
