//! The directory tree as data (the typed `session.tree-nodes`): the same walk as
//! [`tree`](crate::ops::tree::tree), flattened into a list of nodes with child
//! ranges, so an embedder gets paths, kinds and the per-folder cut without parsing
//! the rendered text.

use crate::error::Result;
use crate::ops::tree::{self, Node, TreeRequest};
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;

/// One directory or file shown by the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeNode {
    /// Virtual path.
    pub path: String,
    /// A directory (else a file).
    pub is_dir: bool,
    /// Index of the first child in [`TreeNodes::nodes`] (0 without children).
    pub children_first: u32,
    /// Children shown: subdirectories, then the files shown, each by name.
    pub children_count: u32,
    /// Files of this directory not shown (past the per-folder cap); 0 for a file.
    pub more_files: u64,
}

/// A structured tree: every node shown, each directory's children contiguous.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeNodes {
    /// The normalised root.
    pub path: String,
    /// The nodes; the root's children are the first `top_count`.
    pub nodes: Vec<TreeNode>,
    /// Direct children of the root shown.
    pub top_count: u32,
    /// Files directly in the root not shown.
    pub more_files: u64,
    /// Whether a cap cut the tree.
    pub truncated: bool,
    /// The text [`tree::tree`] answers for the same request.
    pub rendered: String,
}

/// The tree `req` asks for, as nodes (errors as [`tree::tree`]'s).
pub fn tree_nodes(mounts: &MountTable, limits: &Limits, req: &TreeRequest) -> Result<TreeNodes> {
    let walked = tree::walk(mounts, limits, req)?;
    let rendered = tree::render(&walked);
    let mut nodes = Vec::new();
    let top_count = flatten(&walked.root, &walked.path, &mut nodes);
    Ok(TreeNodes {
        more_files: walked.root.hidden as u64,
        path: walked.path,
        nodes,
        top_count,
        truncated: walked.truncated,
        rendered,
    })
}

/// Appends `node`'s children (in rendered order) contiguously, then each
/// subdirectory's own children, pointing each at its range; returns how many
/// children `node` has.
fn flatten(node: &Node, dir: &str, out: &mut Vec<TreeNode>) -> u32 {
    let start = out.len();
    let child = |name: &str| paths::under(dir, &format!("/{name}"));
    for (name, sub) in &node.dirs {
        out.push(TreeNode {
            path: child(name),
            is_dir: true,
            children_first: 0,
            children_count: 0,
            more_files: sub.hidden as u64,
        });
    }
    for name in &node.files {
        out.push(TreeNode {
            path: child(name),
            is_dir: false,
            children_first: 0,
            children_count: 0,
            more_files: 0,
        });
    }
    for (i, (name, sub)) in node.dirs.iter().enumerate() {
        let first = out.len() as u32;
        let count = flatten(sub, &child(name), out);
        if count > 0 {
            out[start + i].children_first = first;
            out[start + i].children_count = count;
        }
    }
    (node.dirs.len() + node.files.len()) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::vfs::memory::MemoryVolume;

    fn table(files: &[&str]) -> MountTable {
        let v = MemoryVolume::new();
        for f in files {
            v.insert(f, "x");
        }
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        t
    }

    /// (path, is_dir, children_first, children_count, more_files) of every node.
    fn shape(t: &TreeNodes) -> Vec<(&str, bool, u32, u32, u64)> {
        t.nodes
            .iter()
            .map(|n| (n.path.as_str(), n.is_dir, n.children_first, n.children_count, n.more_files))
            .collect()
    }

    #[test]
    fn nodes_are_the_rendered_tree() {
        let t = table(tree::tests::SAMPLE_FILES);
        let req = TreeRequest { path: "/w".into(), max_depth: 3, ..Default::default() };
        let r = tree_nodes(&t, &Limits::default(), &req).unwrap();
        assert_eq!(r.rendered, tree::tree(&t, &Limits::default(), &req).unwrap().tree);
        assert_eq!((r.path.as_str(), r.top_count, r.more_files, r.truncated), ("/w", 3, 0, false));
        assert_eq!(
            shape(&r),
            vec![
                ("/w/docs", true, 3, 1, 0),
                ("/w/src", true, 5, 4, 1),
                ("/w/README.md", false, 0, 0, 0),
                ("/w/docs/deep", true, 4, 1, 0),
                // At max_depth: shown, not opened.
                ("/w/docs/deep/er", true, 0, 0, 0),
                ("/w/src/util", true, 9, 1, 0),
                ("/w/src/a.rs", false, 0, 0, 0),
                ("/w/src/b.rs", false, 0, 0, 0),
                ("/w/src/c.rs", false, 0, 0, 0),
                ("/w/src/util/x.rs", false, 0, 0, 0),
            ]
        );
    }

    #[test]
    fn root_cut_and_errors() {
        let t = table(&["/a", "/b", "/c"]);
        let req = TreeRequest { path: "/w".into(), max_files_per_folder: 1, ..Default::default() };
        let r = tree_nodes(&t, &Limits::default(), &req).unwrap();
        assert_eq!((r.top_count, r.more_files), (1, 2));
        assert_eq!(shape(&r), vec![("/w/a", false, 0, 0, 0)]);
        // From `/`: paths without a doubled slash.
        let r = tree_nodes(&t, &Limits::default(), &TreeRequest::default()).unwrap();
        assert_eq!(r.nodes[0].path, "/w");
        assert_eq!(r.nodes[r.nodes[0].children_first as usize].path, "/w/a");
        let limits = Limits { walk_entries: 2, ..Limits::default() };
        let r = tree_nodes(&t, &limits, &req).unwrap();
        assert!(r.truncated && r.rendered.ends_with("[tree truncated: too many entries]\n"));
        let bad = TreeRequest { path: "/w/a".into(), ..Default::default() };
        let e = tree_nodes(&t, &Limits::default(), &bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotADirectory);
    }
}
