//! `filestore_tree`: the directory tree as text for a system prompt (DESIGN §5).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::Entry;
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

#[derive(Default)]
struct Node {
    dirs: BTreeMap<String, Node>,
    files: Vec<String>,
}

/// Renders the tree under `path`.
pub fn tree(mounts: &MountTable, limits: &Limits, req: &TreeRequest) -> Result<TreeResult> {
    let path = paths::normalize(&req.path)?;
    if req.max_depth == 0 {
        return Err(Error::invalid_argument("max_depth", "must be at least 1"));
    }
    let me = mounts.stat(&path)?;
    if !me.is_dir() {
        return Err(Error::at(ErrorKind::NotADirectory, &path, "not a directory"));
    }
    let excludes = crate::ops::glob::Excludes::new(&req.exclude, &path)?;
    let walk = mounts.walk(&path, limits.walk_entries)?;
    let mut root = Node::default();
    for e in walk.entries.iter().filter(|e| !excludes.excludes(&e.path)) {
        insert(&mut root, &path, e, req.max_depth as usize);
    }
    let mut out = format!("{}\n", if path == "/" { "/".to_string() } else { format!("{path}/") });
    render_node(&root, "", req.max_files_per_folder as usize, &mut out);
    if walk.truncated {
        out.push_str("[tree truncated: too many entries]\n");
    }
    Ok(TreeResult { path, tree: out, truncated: walk.truncated })
}

fn insert(root: &mut Node, base: &str, e: &Entry, max_depth: usize) {
    let rel = paths::strip_dir(&e.path, base);
    let comps: Vec<&str> = rel.split('/').filter(|c| !c.is_empty()).collect();
    if comps.is_empty() || comps.len() > max_depth {
        return;
    }
    let mut node = root;
    for c in &comps[..comps.len() - 1] {
        node = node.dirs.entry((*c).to_string()).or_default();
    }
    let last = comps[comps.len() - 1].to_string();
    if e.is_dir() {
        node.dirs.entry(last).or_default();
    } else {
        node.files.push(last);
    }
}

fn render_node(node: &Node, prefix: &str, max_files: usize, out: &mut String) {
    let mut files = node.files.clone();
    files.sort();
    let hidden = files.len().saturating_sub(max_files);
    files.truncate(max_files);
    let total = node.dirs.len() + files.len() + usize::from(hidden > 0);
    let mut i = 0;
    for (name, child) in &node.dirs {
        i += 1;
        let last = i == total;
        out.push_str(&format!("{prefix}{}{name}/\n", if last { "└── " } else { "├── " }));
        let next = format!("{prefix}{}", if last { "    " } else { "│   " });
        render_node(child, &next, max_files, out);
    }
    for f in &files {
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
mod tests {
    use super::*;
    use crate::vfs::memory::MemoryVolume;

    #[test]
    fn renders_exact_tree() {
        let v = MemoryVolume::new();
        for f in [
            "/README.md",
            "/src/main.rs",
            "/src/a.rs",
            "/src/b.rs",
            "/src/c.rs",
            "/src/util/x.rs",
            "/docs/deep/er/file.md",
        ] {
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
