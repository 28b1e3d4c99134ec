//! `filestore_ls`: directory listings with metadata
//! (docs/architecture.md#filestore_ls).

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::Entry;
use crate::vfs::limits::MAX_LIST_LIMIT;
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;

/// Parameters of `filestore_ls`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LsRequest {
    /// Directory to list.
    #[serde(default = "crate::ops::request::default_root")]
    pub path: String,
    /// Levels to descend (1: direct children).
    #[serde(default = "one")]
    pub depth: u32,
    /// Most entries in total, all levels together.
    #[serde(default = "thousand")]
    pub limit: usize,
    /// Order within each directory (directories always come first).
    #[serde(default)]
    pub sort_by: SortBy,
    /// Whether each entry carries its details (size, modified time, token estimate,
    /// type, read-only flag). Off by default: an agent mostly wants names, and the lean
    /// answer is a fraction of the size (see [`lean`]).
    #[serde(default)]
    pub details: bool,
}

/// How `filestore_ls` orders the entries of a directory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SortBy {
    /// By name (the default).
    #[default]
    Name,
    /// Largest first, then by name.
    Size,
    /// Most recently modified first (unknown times last), then by name.
    Modified,
}

fn one() -> u32 {
    1
}
fn thousand() -> usize {
    1000
}

/// One listed entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LsNode {
    /// The entry's metadata.
    #[serde(flatten)]
    pub entry: Entry,
    /// The last path component.
    pub name: String,
    /// Estimated tokens of the content.
    pub tokens: u64,
    /// Children, when `depth` reached into this directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<LsNode>>,
}

/// Result of `filestore_ls`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LsResult {
    /// The listed directory.
    pub path: String,
    /// Its children: directories first, then files, each sorted by name.
    pub entries: Vec<LsNode>,
    /// Whether `limit` cut the listing.
    pub truncated: bool,
}

/// Lists a directory.
pub fn ls(mounts: &MountTable, req: &LsRequest) -> Result<LsResult> {
    let path = paths::normalize(&req.path)?;
    if req.depth == 0 {
        return Err(Error::invalid_argument("depth", "must be at least 1"));
    }
    if req.limit == 0 || req.limit > MAX_LIST_LIMIT {
        return Err(Error::invalid_argument(
            "limit",
            format!("must be between 1 and {MAX_LIST_LIMIT}; got {}", req.limit),
        ));
    }
    let me = mounts.stat(&path)?;
    crate::vfs::mounts::refuse_contentless(&me, &path)?;
    if !me.is_dir() {
        return Err(Error::at(
            ErrorKind::NotADirectory,
            &path,
            "not a directory; use filestore_read for files",
        ));
    }
    let mut budget = req.limit;
    let mut truncated = false;
    let entries = list_level(mounts, &path, req.depth, req.sort_by, &mut budget, &mut truncated)?;
    Ok(LsResult { path, entries, truncated })
}

fn list_level(
    mounts: &MountTable,
    dir: &str,
    depth: u32,
    sort_by: SortBy,
    budget: &mut usize,
    truncated: &mut bool,
) -> Result<Vec<LsNode>> {
    // `dir` is a directory: `ls` stat'ed it, or it is an entry of the level above.
    let mut children = mounts.list_stated_dir(dir)?;
    sort_entries_by(&mut children, sort_by);
    let mut out = Vec::with_capacity(children.len().min(*budget));
    for e in children {
        if *budget == 0 {
            *truncated = true;
            break;
        }
        *budget -= 1;
        out.push(LsNode {
            name: e.name().to_string(),
            tokens: if e.is_dir() { 0 } else { e.tokens() },
            entry: e,
            children: None,
        });
    }
    if depth > 1 {
        for node in out.iter_mut().filter(|n| n.entry.is_dir()) {
            if *budget == 0 {
                *truncated = true;
                break;
            }
            node.children =
                Some(list_level(mounts, &node.entry.path, depth - 1, sort_by, budget, truncated)?);
        }
    }
    Ok(out)
}

/// Directories first, then files; each group by name.
pub fn sort_entries(entries: &mut [Entry]) {
    sort_entries_by(entries, SortBy::Name);
}

/// Directories first, then files; each group in `order`, ties by name.
pub fn sort_entries_by(entries: &mut [Entry], order: SortBy) {
    entries.sort_by(|a, b| {
        let key = match order {
            SortBy::Name => std::cmp::Ordering::Equal,
            SortBy::Size => b.size.cmp(&a.size),
            // `None` (unknown) sorts before `Some` reversed, so put it last explicitly.
            SortBy::Modified => match (a.modified_ms, b.modified_ms) {
                (Some(x), Some(y)) => y.cmp(&x),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            },
        };
        b.is_dir().cmp(&a.is_dir()).then(key).then_with(|| a.name().cmp(b.name()))
    });
}

/// What an entry is in a lean listing: `directory`, `file`, or, for what a directory
/// volume lists without following or opening it, `symlink` or `special` (not a
/// 0-byte file an agent would try to read).
fn lean_kind(e: &Entry) -> &'static str {
    if e.is_dir() {
        return "directory";
    }
    match e.entry_type.as_str() {
        crate::vfs::mounts::TYPE_SYMLINK => "symlink",
        crate::vfs::mounts::TYPE_SPECIAL => "special",
        _ => "file",
    }
}

/// One entry of the lean answer's JSON: its name and kind (and children).
#[derive(Serialize)]
struct LeanNode<'a> {
    name: &'a str,
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    children: Option<Vec<LeanNode<'a>>>,
}

/// The lean answer's JSON (see [`lean`]).
#[derive(Serialize)]
pub struct LeanResult<'a> {
    path: &'a str,
    entries: Vec<LeanNode<'a>>,
    truncated: bool,
}

impl<'a> LeanResult<'a> {
    /// The lean JSON of `r`, to serialise (straight into text: building a
    /// `serde_json::Value` first was most of a listing's time in the component).
    pub fn of(r: &'a LsResult) -> LeanResult<'a> {
        fn nodes(ns: &[LsNode]) -> Vec<LeanNode<'_>> {
            ns.iter()
                .map(|n| LeanNode {
                    name: &n.name,
                    kind: lean_kind(&n.entry),
                    children: n.children.as_deref().map(nodes),
                })
                .collect()
        }
        LeanResult { path: &r.path, entries: nodes(&r.entries), truncated: r.truncated }
    }
}

/// The lean answer (`details: false`): the JSON keeps each entry's name and kind
/// (and children), the text one name per line (`name/` for a directory, `name@` for a link), as the
/// official filesystem server's `list_directory` does.
pub fn lean(r: &LsResult) -> (serde_json::Value, String) {
    let json = serde_json::to_value(LeanResult::of(r)).unwrap_or_default();
    (json, lean_text(r))
}

/// The lean answer's text (see [`lean`]).
pub fn lean_text(r: &LsResult) -> String {
    fn text(ns: &[LsNode], indent: usize, out: &mut String) {
        for n in ns {
            for _ in 0..indent {
                out.push_str("  ");
            }
            out.push_str(&n.name);
            // `ls -F`: `/` a directory, `@` a link (listed, never followed).
            out.push_str(match lean_kind(&n.entry) {
                "directory" => "/\n",
                "symlink" => "@\n",
                _ => "\n",
            });
            if let Some(c) = &n.children {
                text(c, indent + 1, out);
            }
        }
    }
    let mut out = String::new();
    if r.entries.is_empty() {
        out.push_str(&format!("{} is an empty directory.\n", r.path));
    }
    text(&r.entries, 0, &mut out);
    if r.truncated {
        out.push_str("[Listing truncated at the limit; list a subdirectory or raise limit.]\n");
    }
    out
}

/// Text form with details: one entry per line, indented by depth, directories with a
/// trailing `/`, files with size, token estimate and type.
pub fn render(r: &LsResult) -> String {
    let mut out = String::with_capacity(r.entries.len() * 40);
    if r.entries.is_empty() {
        out.push_str(&format!("{} is an empty directory.\n", r.path));
    }
    render_nodes(&r.entries, 0, &mut out);
    if r.truncated {
        out.push_str("[Listing truncated at the limit; list a subdirectory or raise limit.]\n");
    }
    out
}

fn render_nodes(nodes: &[LsNode], indent: usize, out: &mut String) {
    // Pieces pushed in place, numbers through `itoa`: a `format!` per line (and per
    // type) allocated and copied each line once more, through `core::fmt`.
    let mut number = itoa::Buffer::new();
    for n in nodes {
        for _ in 0..indent {
            out.push_str("  ");
        }
        out.push_str(&n.name);
        if n.entry.is_dir() {
            out.push_str("/\n");
        } else {
            out.push_str(" (");
            out.push_str(number.format(n.entry.size));
            out.push_str(" bytes, ~");
            out.push_str(number.format(n.tokens));
            out.push_str(" tokens");
            if n.entry.read_only {
                out.push_str(", read-only");
            }
            if n.entry.entry_type != crate::vfs::entry::TYPE_FILE {
                out.push_str(", ");
                out.push_str(&n.entry.entry_type);
            }
            out.push_str(")\n");
        }
        if let Some(c) = &n.children {
            render_nodes(c, indent + 1, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::memory::MemoryVolume;

    /// A link as a directory volume lists it (type `symlink`, size 0) is no
    /// directory or file to start from: every listing and search tool says
    /// `invalid-path` (not an empty, complete answer), and a lean listing shows it as
    /// a link (`name@`, kind `symlink`), not a 0-byte file to read.
    #[test]
    fn links_are_not_starting_points_and_list_as_links() {
        use crate::vfs::volume::{Volume, WriteOptions};
        let v = MemoryVolume::new();
        v.insert("/real/a.txt", "alpha\n");
        let link = WriteOptions { entry_type: Some("symlink".into()), ..Default::default() };
        v.write("/loop", b"", &link).unwrap();
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        let limits = crate::vfs::limits::Limits::default();
        let req = |v: serde_json::Value| v;
        let errs = [
            ls(&t, &serde_json::from_value(req(serde_json::json!({"path": "/w/loop"}))).unwrap())
                .unwrap_err(),
            crate::ops::glob::glob(
                &t,
                &limits,
                &serde_json::from_value(serde_json::json!({"pattern": "*", "path": "/w/loop"}))
                    .unwrap(),
            )
            .unwrap_err(),
            crate::ops::grep::grep(
                &t,
                &limits,
                &serde_json::from_value(serde_json::json!({"pattern": "a", "path": "/w/loop"}))
                    .unwrap(),
            )
            .unwrap_err(),
            crate::ops::tree::tree(
                &t,
                &limits,
                &serde_json::from_value(serde_json::json!({"path": "/w/loop"})).unwrap(),
            )
            .unwrap_err(),
        ];
        for e in errs {
            assert_eq!(e.kind(), ErrorKind::InvalidPath, "{e}");
            assert!(e.to_string().contains("symbolic link"), "{e}");
        }
        let r =
            ls(&t, &serde_json::from_value(serde_json::json!({"path": "/w"})).unwrap()).unwrap();
        let (json, text) = lean(&r);
        assert!(text.contains("loop@\n") && text.contains("real/\n"), "{text}");
        assert!(
            json["entries"].as_array().unwrap().iter().any(|e| e["kind"] == "symlink"),
            "{json}"
        );
    }

    fn table() -> MountTable {
        let v = MemoryVolume::new();
        v.insert("/b.txt", "bb")
            .insert("/a.txt", "a")
            .insert("/z/1/deep.txt", "d")
            .insert("/z/top.txt", "t")
            .insert("/c/x", "x");
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        t
    }

    fn names(nodes: &[LsNode]) -> Vec<&str> {
        nodes.iter().map(|n| n.name.as_str()).collect()
    }

    #[test]
    fn depth_one_orders_dirs_first() {
        let r = ls(
            &table(),
            &LsRequest {
                path: "/w".into(),
                depth: 1,
                limit: 1000,
                sort_by: SortBy::Name,
                details: true,
            },
        )
        .unwrap();
        assert_eq!(names(&r.entries), vec!["c", "z", "a.txt", "b.txt"]);
        assert!(r.entries.iter().all(|n| n.children.is_none()));
    }

    #[test]
    fn depth_two_and_three_nest() {
        let t = table();
        let r = ls(
            &t,
            &LsRequest {
                path: "/w".into(),
                depth: 2,
                limit: 1000,
                sort_by: SortBy::Name,
                details: true,
            },
        )
        .unwrap();
        let z = &r.entries[1];
        assert_eq!(names(z.children.as_ref().unwrap()), vec!["1", "top.txt"]);
        assert!(z.children.as_ref().unwrap()[0].children.is_none());
        let r = ls(
            &t,
            &LsRequest {
                path: "/w".into(),
                depth: 3,
                limit: 1000,
                sort_by: SortBy::Name,
                details: true,
            },
        )
        .unwrap();
        let one = &r.entries[1].children.as_ref().unwrap()[0];
        assert_eq!(names(one.children.as_ref().unwrap()), vec!["deep.txt"]);
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["entries"][1]["children"][0]["children"][0]["path"], "/w/z/1/deep.txt");
    }

    #[test]
    fn missing_path_and_limit() {
        let t = table();
        let e = ls(
            &t,
            &LsRequest {
                path: "/w/nope".into(),
                depth: 1,
                limit: 10,
                sort_by: SortBy::Name,
                details: true,
            },
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert!(e.to_string().contains("/w/nope"));
        let r = ls(
            &t,
            &LsRequest {
                path: "/w".into(),
                depth: 1,
                limit: 2,
                sort_by: SortBy::Name,
                details: true,
            },
        )
        .unwrap();
        assert!(r.truncated);
        assert_eq!(r.entries.len(), 2);
        let e = ls(
            &t,
            &LsRequest {
                path: "/w/a.txt".into(),
                depth: 1,
                limit: 2,
                sort_by: SortBy::Name,
                details: true,
            },
        )
        .unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotADirectory);
    }

    #[test]
    fn root_shows_mount_points() {
        let r = ls(
            &table(),
            &LsRequest {
                path: "/".into(),
                depth: 1,
                limit: 10,
                sort_by: SortBy::Name,
                details: true,
            },
        )
        .unwrap();
        assert_eq!(names(&r.entries), vec!["w"]);
    }

    #[test]
    fn lean_answer_is_names_and_kinds() {
        let t = table();
        let r = ls(
            &t,
            &LsRequest {
                path: "/w".into(),
                depth: 2,
                limit: 1000,
                sort_by: SortBy::Name,
                details: false,
            },
        )
        .unwrap();
        let (json, text) = lean(&r);
        let first = &json["entries"][0];
        assert_eq!(first["kind"], "directory");
        assert!(first.get("size").is_none() && first.get("path").is_none(), "{json}");
        assert!(first["children"].is_array(), "{json}");
        assert!(text.lines().all(|l| !l.contains("bytes")), "{text}");
        assert!(text.lines().any(|l| l.ends_with('/')), "{text}");
        let detailed = render(&r);
        assert!(detailed.contains("bytes") && detailed.len() > text.len(), "{detailed}");
    }

    #[test]
    fn sort_by_size_and_modified_keeps_directories_first() {
        use crate::vfs::memory::MemoryVolume;
        let v = MemoryVolume::new();
        v.insert("/small.txt", "a").insert("/big.txt", "bbbbbbbbbb").insert("/mid.txt", "ccccc");
        v.insert("/d/x", "x");
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        let names = |s: SortBy| -> Vec<String> {
            let r = ls(
                &t,
                &LsRequest { path: "/w".into(), depth: 1, limit: 100, sort_by: s, details: true },
            )
            .unwrap();
            r.entries.into_iter().map(|n| n.name).collect()
        };
        assert_eq!(names(SortBy::Name), ["d", "big.txt", "mid.txt", "small.txt"]);
        assert_eq!(names(SortBy::Size), ["d", "big.txt", "mid.txt", "small.txt"]);
        let mut e = vec![
            Entry { modified_ms: Some(1), ..Entry::file("/a", 1, None) },
            Entry { modified_ms: None, ..Entry::file("/b", 1, None) },
            Entry { modified_ms: Some(3), ..Entry::file("/c", 1, None) },
        ];
        sort_entries_by(&mut e, SortBy::Modified);
        let order: Vec<&str> = e.iter().map(|x| x.path.as_str()).collect();
        assert_eq!(order, ["/c", "/a", "/b"], "newest first, unknown last");
        let bad: std::result::Result<LsRequest, _> =
            serde_json::from_value(serde_json::json!({"sort_by": "color"}));
        assert!(bad.is_err());
    }
}
