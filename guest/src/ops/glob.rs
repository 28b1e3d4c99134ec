//! `filestore_glob`: find files by name pattern (docs/architecture.md#filestore_glob).
//!
//! Syntax is [`globset`]'s: `*` and `?` (never crossing `/`), `[abc]`, `[!abc]`,
//! `{a,b}`, `**` as a whole path component, `\` to escape. Resolution follows ripgrep
//! and `.gitignore`:
//!
//! - a pattern without `/` matches the file *name* at any depth below `path`
//!   (`*.json` finds every JSON file);
//! - a pattern with `/` is anchored at `path` (`src/*.rs` is `path/src/*.rs` only;
//!   `src/**/*.rs` is every Rust file below `path/src`);
//! - a pattern starting with `/` is an absolute virtual path and ignores `path`.
//!
//! Only files are returned, sorted by path. The walk starts at the longest literal
//! directory prefix of the pattern, so `/w/src/**/*.rs` never visits `/w/docs`.
//!
//! [`GlobMatcher`] is the compiled form, shared with grep's `glob` filter.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::Entry;
use crate::vfs::limits::{Limits, MAX_LIST_LIMIT, MAX_PATTERN_BYTES};
use crate::vfs::mounts::{MountTable, WalkedEntry};
use crate::vfs::paths;

/// Default number of files one glob call returns.
pub const DEFAULT_GLOB_LIMIT: usize = 1000;

fn default_limit() -> usize {
    DEFAULT_GLOB_LIMIT
}

/// Arguments of `filestore_glob`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlobRequest {
    /// The glob, relative to `path` unless it starts with `/`; without `/` it matches
    /// file names at any depth.
    pub pattern: String,
    /// The directory a relative pattern is resolved against (default `/`).
    #[serde(default = "crate::ops::request::default_root")]
    pub path: String,
    /// Most files returned (default 1000, at most [`MAX_LIST_LIMIT`]).
    #[serde(default = "default_limit")]
    pub limit: usize,
    /// Globs of files to leave out (see [`Excludes`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// Include hidden files and directories (see [`is_hidden_below`]) even when the
    /// pattern does not name them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

/// Whether `path` has a hidden component (a name starting with `.`) beneath `base`:
/// what `*` and `**` do not match, as in a shell and ripgrep. `base` itself may be
/// hidden (a search started there on purpose).
pub fn is_hidden_below(path: &str, base: &str) -> bool {
    let rest = match base {
        "/" => path.strip_prefix('/'),
        _ => path.strip_prefix(base).and_then(|r| r.strip_prefix('/')),
    };
    rest.is_some_and(|r| r.split('/').any(|c| c.starts_with('.')))
}

/// Whether a path below a directory (`a/b.txt`, no leading `/`) has a hidden
/// component: what [`is_hidden_below`] says of it, without splitting it.
fn is_hidden_rest(rest: &str) -> bool {
    let b = rest.as_bytes();
    // A component starts at 0 or after a `/`; dots are few (an extension's).
    memchr::memchr_iter(b'.', b).any(|i| i == 0 || b[i - 1] == b'/')
}

/// Whether a glob names hidden entries itself: a segment that starts with `.`
/// (`.github/**`, `**/.env`, `.*`). Such a pattern matches hidden paths as written.
pub fn names_hidden(pattern: &str) -> bool {
    // An alternative of a `{a,b}` group counts too: `{.env,*.txt}`, `{a,.git}/**`.
    pattern.split('/').any(|seg| {
        (seg.starts_with('.') && seg != "." && seg != "..")
            || seg.contains("{.")
            || (seg.contains(",.") && seg.contains('{'))
    })
}

/// One matching file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GlobFile {
    /// Virtual path.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Last modification (ms since the Unix epoch), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified_ms: Option<u64>,
    /// Estimated tokens of the content (`ceil(size / 4)`).
    pub tokens: u64,
    /// `symlink` or `special` for what a directory volume lists without following or
    /// opening it (not a file to read); absent for files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

impl From<&Entry> for GlobFile {
    fn from(e: &Entry) -> GlobFile {
        GlobFile::new(e.path.clone(), e.size, e.modified_ms, &e.entry_type)
    }
}

impl From<&WalkedEntry<'_>> for GlobFile {
    fn from(e: &WalkedEntry<'_>) -> GlobFile {
        GlobFile::new(e.path(), e.size(), e.modified_ms(), e.entry_type())
    }
}

impl GlobFile {
    fn new(path: String, size: u64, modified_ms: Option<u64>, entry_type: &str) -> GlobFile {
        use crate::vfs::mounts::{TYPE_SPECIAL, TYPE_SYMLINK};
        let kind =
            [TYPE_SYMLINK, TYPE_SPECIAL].into_iter().find(|t| entry_type == *t).map(str::to_string);
        GlobFile {
            path,
            size,
            modified_ms,
            tokens: if kind.is_some() { 0 } else { crate::vfs::entry::estimate_tokens_bytes(size) },
            kind,
        }
    }
}

/// The answer of `filestore_glob`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GlobResult {
    /// The pattern as given.
    pub pattern: String,
    /// The normalised `path` the pattern was resolved against.
    pub path: String,
    /// Matching files, sorted by path, at most `limit`.
    pub files: Vec<GlobFile>,
    /// How many files matched in all (more than `files.len()` when `limit` cut). For
    /// a pattern matching every file (`**`) the walk stops past `limit` files, so
    /// this counts those seen and `truncated` says that more exist.
    pub total_matches: usize,
    /// Whether the listing is incomplete: `limit` cut it or the walk hit its limit.
    pub truncated: bool,
    /// Whether the directory walk stopped at the session's entry limit, so matches
    /// beyond it were never seen.
    pub walk_truncated: bool,
    /// Files the pattern matched but left out as hidden (see [`GlobRequest::hidden`]),
    /// so an empty answer can say where to look.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hidden_skipped: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A glob compiled against a base directory: decides whether a virtual path matches.
///
/// ```
/// use filestore_guest::ops::glob::GlobMatcher;
/// let m = GlobMatcher::new("src/**/*.rs", "/w").unwrap();
/// assert_eq!(m.walk_root(), "/w/src");
/// assert!(m.is_match("/w/src/a/b.rs") && m.is_match("/w/src/b.rs") && !m.is_match("/w/b.rs"));
/// let n = GlobMatcher::new("*.json", "/w").unwrap();
/// assert!(n.is_match("/w/deep/er/x.json") && !n.is_match("/other/x.json"));
/// ```
#[derive(Clone, Debug)]
pub struct GlobMatcher {
    /// Directory every match lies beneath (where a walk starts).
    root: String,
    /// Match the file name only (pattern without `/`).
    name_only: bool,
    /// The pattern as a one-glob set: a set picks a match strategy for the glob
    /// (`**/*.rs` is an extension lookup, `*.json` too, a literal name a comparison)
    /// and keeps the regex for the rest, where a lone `globset::GlobMatcher` always
    /// runs the regex (that regex was most of a glob over 100,000 paths).
    matcher: globset::GlobSet,
    /// The commonest patterns, answered without globset (see [`Shortcut`]).
    shortcut: Option<Shortcut>,
}

/// What a pattern of the commonest shapes means, answered without globset, which
/// for each path first scans it to make a candidate (file name, extension) and then
/// hashes its extension (per path, that was most of a large glob's time): `*SUFFIX`
/// matching names, `**/*SUFFIX` matching paths below the root, with a literal
/// `SUFFIX` (no glob syntax, no `/`), match the names ending with `SUFFIX` (`*`
/// matches any run of characters but `/`, the empty one included); `**`, `*` (names)
/// and `**/*` match everything. Equal to globset's
/// answer by construction, and tested against it.
#[derive(Clone, Debug)]
enum Shortcut {
    /// Every path.
    Any,
    /// The paths ending with this (which holds no `/`).
    Suffix(String),
}

impl Shortcut {
    /// The shortcut for `glob` (matched against names when `name_only`, else against
    /// paths below the root), when it has one.
    fn of(glob: &str, name_only: bool) -> Option<Shortcut> {
        if glob == "**" {
            return Some(Shortcut::Any);
        }
        let tail = if name_only { glob } else { glob.strip_prefix("**/")? };
        let suffix = tail.strip_prefix('*')?;
        if suffix.is_empty() {
            return Some(Shortcut::Any);
        }
        if has_meta(suffix) || suffix.contains('/') {
            return None;
        }
        Some(Shortcut::Suffix(suffix.to_string()))
    }
}

impl GlobMatcher {
    /// Compiles `pattern` resolved against the normalised directory `base`.
    ///
    /// Errors: `invalid-pattern` for an empty pattern, one over [`MAX_PATTERN_BYTES`],
    /// one ending in `/`, or one the glob parser rejects (its reason and the pattern
    /// are in the message); `invalid-path` when the pattern's literal directory prefix
    /// climbs above `/`.
    pub fn new(pattern: &str, base: &str) -> Result<GlobMatcher> {
        check_pattern(pattern)?;
        if !pattern.contains('/') {
            let matcher = compile(pattern, pattern)?;
            let shortcut = Shortcut::of(pattern, true);
            return Ok(GlobMatcher { root: base.to_string(), name_only: true, matcher, shortcut });
        }
        if pattern.ends_with('/') {
            return Err(Error::new(
                ErrorKind::InvalidPattern,
                format!(
                    "invalid glob '{pattern}': a pattern ending in '/' names directories, and glob \
                     returns files; to match the files below it use '{pattern}**'"
                ),
            ));
        }
        // Split off the longest prefix of literal directory components: the walk starts
        // there and the rest of the pattern matches paths relative to it.
        let components: Vec<&str> = pattern.split('/').collect();
        let last = components.len() - 1;
        let literal = components[..last].iter().take_while(|c| !has_meta(c)).count();
        let prefix = components[..literal].join("/");
        let rest: Vec<&str> =
            components[literal..].iter().copied().filter(|c| !c.is_empty()).collect();
        let rest = rest.join("/");
        let root = if pattern.starts_with('/') {
            paths::normalize(if prefix.is_empty() { "/" } else { &prefix })?
        } else {
            paths::join(base, if prefix.is_empty() { "." } else { &prefix })?
        };
        let matcher = compile(&rest, pattern)?;
        let shortcut = Shortcut::of(&rest, false);
        Ok(GlobMatcher { root, name_only: false, matcher, shortcut })
    }

    /// The directory all matches lie beneath; walking it finds every match.
    pub fn walk_root(&self) -> &str {
        &self.root
    }

    /// Whether the pattern matches file names at any depth (it has no `/`).
    pub fn is_name_only(&self) -> bool {
        self.name_only
    }

    /// Whether the normalised virtual `path` matches.
    pub fn is_match(&self, path: &str) -> bool {
        if path == self.root || !paths::is_within(path, &self.root) {
            return false;
        }
        let rel = paths::strip_dir(path, &self.root);
        self.is_match_below(&rel[1..])
    }

    /// Whether the path `rest`, relative to [`GlobMatcher::walk_root`] (no leading
    /// `/`, not empty), matches.
    pub fn is_match_below(&self, rest: &str) -> bool {
        match &self.shortcut {
            Some(Shortcut::Any) => return true,
            // The suffix holds no `/`: a path ends with it when its name does.
            Some(Shortcut::Suffix(s)) => return rest.ends_with(s.as_str()),
            None => {}
        }
        self.globset_match_below(rest)
    }

    /// [`GlobMatcher::is_match_below`] through globset, without the shortcut.
    fn globset_match_below(&self, rest: &str) -> bool {
        let subject = if self.name_only { paths::file_name(rest) } else { rest };
        // From bytes: `Candidate::new` takes a `Path`, which on wasm (not a Unix
        // target) is converted through a lossy UTF-8 pass first.
        self.matcher.is_match_candidate(&globset::Candidate::from_bytes(subject))
    }
}

/// Most `exclude` patterns one call takes: each is checked against every path.
pub const MAX_EXCLUDES: usize = 64;

/// The `exclude` patterns of glob, grep and tree: a path is left out when a pattern
/// matches it or any directory it lies in below the base, so `node_modules` (any
/// directory of that name, at any depth) or `target/**` leave out whole trees, as
/// `rg --glob '!node_modules'` does. Patterns follow [`GlobMatcher`]'s rules.
#[derive(Debug, Default)]
pub struct Excludes {
    base: String,
    matchers: Vec<GlobMatcher>,
}

impl Excludes {
    /// Compiles `patterns` against the normalised directory `base`; an invalid one is
    /// `invalid-pattern` naming the `exclude` parameter.
    pub fn new(patterns: &[String], base: &str) -> Result<Excludes> {
        if patterns.len() > MAX_EXCLUDES {
            return Err(Error::invalid_argument(
                "exclude",
                format!("at most {MAX_EXCLUDES} patterns, got {}", patterns.len()),
            ));
        }
        let matchers = patterns
            .iter()
            .map(|p| {
                GlobMatcher::new(p, base).map_err(|e| {
                    Error::new(e.kind(), format!("parameter 'exclude': {}", e.message()))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Excludes { base: base.to_string(), matchers })
    }

    /// Whether there are no patterns (nothing is left out).
    pub fn is_empty(&self) -> bool {
        self.matchers.is_empty()
    }

    /// Whether `path` (normalised, virtual) is left out.
    pub fn excludes(&self, path: &str) -> bool {
        if self.matchers.is_empty() {
            return false;
        }
        let mut cur = path;
        loop {
            if self.matchers.iter().any(|m| m.is_match(cur)) {
                return true;
            }
            match paths::parent(cur) {
                Some(p) if p != cur && paths::is_within(p, &self.base) && p != self.base => cur = p,
                _ => return false,
            }
        }
    }
}

/// Rejects empty and oversized patterns.
fn check_pattern(pattern: &str) -> Result<()> {
    if pattern.is_empty() {
        return Err(Error::new(ErrorKind::InvalidPattern, "invalid glob: the pattern is empty"));
    }
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(Error::new(
            ErrorKind::InvalidPattern,
            format!(
                "invalid glob: the pattern is {} bytes; the limit is {MAX_PATTERN_BYTES}",
                pattern.len()
            ),
        ));
    }
    Ok(())
}

/// Whether a path component holds glob syntax (and so ends the literal prefix).
fn has_meta(component: &str) -> bool {
    component.contains(['*', '?', '[', ']', '{', '}', '\\'])
}

fn compile(glob: &str, original: &str) -> Result<globset::GlobSet> {
    let invalid = |e: globset::Error| {
        Error::new(ErrorKind::InvalidPattern, format!("invalid glob '{original}': {}", e.kind()))
    };
    let g = globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(invalid)?;
    globset::GlobSetBuilder::new().add(g).build().map_err(invalid)
}

/// Runs `filestore_glob`.
///
/// Errors: `not-found` when `path` does not exist, `not-a-directory` when it is a
/// file, `invalid-pattern` (see [`GlobMatcher::new`]), `invalid-argument` for a
/// `limit` of 0 or over [`MAX_LIST_LIMIT`]. A pattern whose literal directory does not
/// exist is not an error: it matches nothing.
pub fn glob(mounts: &MountTable, limits: &Limits, req: &GlobRequest) -> Result<GlobResult> {
    if req.limit == 0 || req.limit > MAX_LIST_LIMIT {
        return Err(Error::invalid_argument(
            "limit",
            format!("must be between 1 and {MAX_LIST_LIMIT}, got {}", req.limit),
        ));
    }
    let path = paths::normalize(&req.path)?;
    let matcher = GlobMatcher::new(&req.pattern, &path)?;
    let excludes = Excludes::new(&req.exclude, &path)?;
    if !req.pattern.starts_with('/') {
        let me = mounts.stat(&path)?;
        crate::vfs::mounts::refuse_contentless(&me, &path)?;
        if !me.is_dir() {
            return Err(Error::at(
                ErrorKind::NotADirectory,
                &path,
                "glob searches a directory and this path is a file; give its directory as 'path'",
            ));
        }
    }
    let mut result = GlobResult {
        pattern: req.pattern.clone(),
        path,
        files: Vec::new(),
        total_matches: 0,
        truncated: false,
        walk_truncated: false,
        hidden_skipped: 0,
    };
    let root = matcher.walk_root();
    match mounts.stat(root) {
        Ok(e) if e.is_dir() => {}
        Ok(_) => return Ok(result),
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return Ok(result);
        }
        Err(e) => return Err(e),
    }
    // A pattern that matches every file (`**`, as resources/list asks) needs only the
    // first `limit` files by path, not a walk of the whole tree: walk a window, and
    // widen it only while it holds too few files. Other patterns may match anywhere.
    let match_all = matches!(req.pattern.as_str(), "**" | "**/*") && req.exclude.is_empty();
    let mut cap = if match_all {
        req.limit.saturating_mul(2).max(1024).min(limits.walk_entries)
    } else {
        limits.walk_entries
    };
    // Hidden files (a `.` name beneath the walk's root) only when asked for, or
    // when the pattern names them.
    let show_hidden = req.hidden || names_hidden(&req.pattern);
    // Matched on the path below the walk's root, as the volume packed it: a virtual
    // path (a `String`) is made only for the files returned, and for `exclude`.
    let matched = |e: &WalkedEntry<'_>| {
        !e.is_dir()
            && matcher.is_match_below(e.below())
            && (excludes.is_empty() || !excludes.excludes(&e.path()))
    };
    let hidden = |e: &WalkedEntry<'_>| is_hidden_rest(e.below());
    let wanted = |e: &WalkedEntry<'_>| matched(e) && (show_hidden || !hidden(e));
    let walk = loop {
        let walk = mounts.walk_packed(root, cap)?;
        // Only a window cut short (`**` with a limit) is worth counting before the
        // pass below: is there enough in it?
        if !walk.truncated
            || cap >= limits.walk_entries
            || walk.iter().filter(wanted).nth(req.limit).is_some()
        {
            break walk;
        }
        cap = cap.saturating_mul(4).min(limits.walk_entries);
    };
    // Cut by our own window (not the session's limit): more files exist.
    let cut_short = walk.truncated && cap < limits.walk_entries;
    result.walk_truncated = walk.truncated && !cut_short;
    // One pass: each entry is matched once, then counted as hidden or as a match.
    for e in walk.iter().filter(matched) {
        if !show_hidden && hidden(&e) {
            result.hidden_skipped += 1;
            continue;
        }
        result.total_matches += 1;
        if result.files.len() < req.limit {
            result.files.push(GlobFile::from(&e));
        }
    }
    result.truncated = result.total_matches > result.files.len() || walk.truncated;
    Ok(result)
}

/// The text an LLM sees: one path per line, then a note when the listing is
/// incomplete; an explicit sentence when nothing matched.
pub fn render(result: &GlobResult) -> String {
    let mut out = String::new();
    if result.files.is_empty() {
        out.push_str(&format!(
            "No files matched the pattern '{}' under {}",
            result.pattern, result.path
        ));
        if result.walk_truncated {
            out.push_str(" (the directory walk stopped at its entry limit; narrow 'path')");
        }
        if result.hidden_skipped > 0 {
            out.push_str(&format!(
                " ({} hidden file(s) matched and were left out: pass hidden: true to include them)",
                result.hidden_skipped
            ));
        }
        out.push('\n');
        return out;
    }
    for f in &result.files {
        out.push_str(&f.path);
        // A link is listed (it matched) but is not a file the other tools open.
        match f.kind.as_deref() {
            Some(kind) => out.push_str(&format!(" ({kind}, not followed)\n")),
            None => out.push('\n'),
        }
    }
    if result.total_matches > result.files.len() {
        out.push_str(&format!(
            "[truncated: showing the first {} of {} matching files; narrow the pattern or path, or raise 'limit']\n",
            result.files.len(),
            result.total_matches
        ));
    }
    if result.walk_truncated {
        out.push_str("[incomplete: the directory walk stopped at its entry limit; narrow 'path' to see every match]\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::memory::MemoryVolume;

    fn table() -> MountTable {
        let v = MemoryVolume::new();
        for p in [
            "/package.json",
            "/a.txt",
            "/b.txt",
            "/ab.txt",
            "/c.md",
            "/src/main.rs",
            "/src/lib.rs",
            "/src/util/mod.rs",
            "/src/util/data.json",
            "/src/util/deep/x.json",
            "/docs/readme.md",
            "/docs/api.txt",
            "/tests/a.rs",
            "/json.d/not-a-json-file",
            "/.hidden.json",
        ] {
            v.insert(p, "content");
        }
        let other = MemoryVolume::new();
        other.insert("/o.json", "{}");
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        t.add("/other", Box::new(other), 0, false).unwrap();
        t
    }

    fn run(pattern: &str, path: &str, limit: usize) -> Result<GlobResult> {
        glob(
            &table(),
            &Limits::default(),
            &GlobRequest {
                pattern: pattern.into(),
                path: path.into(),
                limit,
                exclude: Vec::new(),
                hidden: false,
            },
        )
    }

    fn paths_of(pattern: &str, path: &str) -> Vec<String> {
        run(pattern, path, 1000).unwrap().files.into_iter().map(|f| f.path).collect()
    }

    #[test]
    fn pattern_table() {
        let cases: &[(&str, &str, &[&str])] = &[
            // A pattern without '/' matches names at every depth (hidden names only
            // when the pattern names them: `*` does not match a leading `.`).
            (
                "*.json",
                "/w",
                &["/w/package.json", "/w/src/util/data.json", "/w/src/util/deep/x.json"],
            ),
            (".*", "/w", &["/w/.hidden.json"]),
            ("**/.hidden.json", "/w", &["/w/.hidden.json"]),
            ("*.json", "/w/src", &["/w/src/util/data.json", "/w/src/util/deep/x.json"]),
            ("main.rs", "/w", &["/w/src/main.rs"]),
            // Alternation.
            ("*.{md,txt}", "/w/docs", &["/w/docs/api.txt", "/w/docs/readme.md"]),
            ("{a,b}.txt", "/w", &["/w/a.txt", "/w/b.txt"]),
            // `?` is exactly one character, classes one of a set.
            ("?.txt", "/w", &["/w/a.txt", "/w/b.txt"]),
            ("[ab].txt", "/w", &["/w/a.txt", "/w/b.txt"]),
            ("[!a].txt", "/w", &["/w/b.txt"]),
            ("??.txt", "/w", &["/w/ab.txt"]),
            // Anchored: `*` does not cross '/'.
            ("src/*.rs", "/w", &["/w/src/lib.rs", "/w/src/main.rs"]),
            ("*/*.rs", "/w", &["/w/src/lib.rs", "/w/src/main.rs", "/w/tests/a.rs"]),
            // `**` crosses directories, including none.
            ("src/**/*.rs", "/w", &["/w/src/lib.rs", "/w/src/main.rs", "/w/src/util/mod.rs"]),
            (
                "**/*.rs",
                "/w",
                &["/w/src/lib.rs", "/w/src/main.rs", "/w/src/util/mod.rs", "/w/tests/a.rs"],
            ),
            ("**/util/*", "/w", &["/w/src/util/data.json", "/w/src/util/mod.rs"]),
            ("{src,tests}/*.rs", "/w", &["/w/src/lib.rs", "/w/src/main.rs", "/w/tests/a.rs"]),
            (
                "src/util/**",
                "/w",
                &["/w/src/util/data.json", "/w/src/util/deep/x.json", "/w/src/util/mod.rs"],
            ),
            // Relative to `path`, with `./` and `..` in the literal prefix.
            ("util/*.rs", "/w/src", &["/w/src/util/mod.rs"]),
            ("./util/*.rs", "/w/src", &["/w/src/util/mod.rs"]),
            ("../docs/*.md", "/w/src", &["/w/docs/readme.md"]),
            ("src/main.rs", "/w", &["/w/src/main.rs"]),
            // Absolute patterns ignore `path`.
            ("/w/src/*.rs", "/other", &["/w/src/lib.rs", "/w/src/main.rs"]),
            ("/*/*.json", "/w", &["/other/o.json", "/w/package.json"]),
            // Every mount below the root.
            (
                "*.json",
                "/",
                &[
                    "/other/o.json",
                    "/w/package.json",
                    "/w/src/util/data.json",
                    "/w/src/util/deep/x.json",
                ],
            ),
            // Directories never match, even when their name does.
            ("json.d", "/w", &[]),
            ("util", "/w", &[]),
            ("src", "/w", &[]),
            // Missing literal directory: no matches, no error.
            ("nope/**/*.rs", "/w", &[]),
            ("/nowhere/*.rs", "/w", &[]),
            ("src/main.rs/*", "/w", &[]),
            ("*.zig", "/w", &[]),
        ];
        for (pattern, path, want) in cases {
            assert_eq!(paths_of(pattern, path), *want, "pattern {pattern} under {path}");
        }
    }

    /// Hidden files and directories (a `.` name beneath the search root) are left
    /// out unless the pattern names them or `hidden` is set, as in a shell and
    /// ripgrep; a search rooted in a hidden directory searches it.
    #[test]
    fn hidden_entries_only_when_asked_for() {
        let v = MemoryVolume::new();
        for p in [
            "/a.txt",
            "/.env",
            "/.git/config",
            "/.github/ci.yml",
            "/src/.cache/x.txt",
            "/src/b.txt",
        ] {
            v.insert(p, "x");
        }
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        let go = |pattern: &str, path: &str, hidden: bool| -> Vec<String> {
            let req = GlobRequest {
                pattern: pattern.into(),
                path: path.into(),
                limit: 100,
                exclude: vec![],
                hidden,
            };
            glob(&t, &Limits::default(), &req).unwrap().files.into_iter().map(|f| f.path).collect()
        };
        assert_eq!(go("**", "/w", false), ["/w/a.txt", "/w/src/b.txt"]);
        assert_eq!(go("*.txt", "/w", false), ["/w/a.txt", "/w/src/b.txt"]);
        assert_eq!(go("**", "/w", true).len(), 6);
        assert_eq!(go(".github/**", "/w", false), ["/w/.github/ci.yml"]);
        assert_eq!(go("**/.env", "/w", false), ["/w/.env"]);
        assert_eq!(go("*", "/w/.git", false), ["/w/.git/config"]);
        assert!(is_hidden_below("/w/src/.cache/x.txt", "/w"));
        assert!(!is_hidden_below("/w/.git/config", "/w/.git"));
        assert!(names_hidden(".*") && names_hidden("a/.b/**") && !names_hidden("../x/*.rs"));
        assert_eq!(go("{.env,a.txt}", "/w", false), ["/w/.env", "/w/a.txt"]);
        assert_eq!(go("{src,.github}/**", "/w", false).len(), 3);
        // An empty answer says hidden files matched.
        let req = GlobRequest {
            pattern: "**/*.yml".into(),
            path: "/w".into(),
            limit: 100,
            exclude: vec![],
            hidden: false,
        };
        let r = glob(&t, &Limits::default(), &req).unwrap();
        assert_eq!(r.hidden_skipped, 1);
        assert!(
            render(&r).contains("1 hidden file(s) matched and were left out"),
            "{}",
            render(&r)
        );
    }

    /// A link a directory volume lists is marked as one, not shown as an empty file.
    #[test]
    fn links_are_marked_not_listed_as_empty_files() {
        use crate::vfs::volume::{Volume, WriteOptions};
        let v = MemoryVolume::new();
        v.insert("/a.txt", "text");
        let link = WriteOptions { entry_type: Some("symlink".into()), ..Default::default() };
        v.write("/l.txt", b"", &link).unwrap();
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        let req = GlobRequest {
            pattern: "*.txt".into(),
            path: "/w".into(),
            limit: 10,
            exclude: vec![],
            hidden: false,
        };
        let r = glob(&t, &Limits::default(), &req).unwrap();
        let kinds: Vec<_> = r.files.iter().map(|f| f.kind.as_deref()).collect();
        assert_eq!(kinds, [None, Some("symlink")]);
        assert_eq!(render(&r), "/w/a.txt\n/w/l.txt (symlink, not followed)\n");
    }

    /// The shortcut answers what globset answers, for the shapes it takes and for
    /// near misses it must leave to globset.
    #[test]
    fn shortcuts_agree_with_globset() {
        let patterns = [
            "*.rs",
            "**/*.rs",
            "*",
            "**",
            "**/*",
            "*.tar.gz",
            "*rs",
            "**/*.RS",
            "*.",
            "*.é",
            "src/**/*.rs",
            "*/*.rs",
            "**/*.r?",
            "**/*.{rs,md}",
            "**/x*.rs",
            "*.rs/x",
            "**/**",
            "a*",
            "**/a",
            ".*",
            "**/.*",
        ];
        let subjects = [
            "a.rs",
            "src/a.rs",
            "src/deep/er/a.rs",
            ".rs",
            "a.rsx",
            "a.RS",
            "x.tar.gz",
            "tar.gz",
            "a.r",
            "rs",
            "d.rs/x",
            "é",
            "a.é",
            "b/.hidden",
            ".git/config",
            "a",
            "xrs",
            "src/.rs",
        ];
        let mut shortcuts = 0;
        for p in patterns {
            let m = GlobMatcher::new(p, "/w").unwrap();
            shortcuts += usize::from(m.shortcut.is_some());
            for s in subjects {
                assert_eq!(m.is_match_below(s), m.globset_match_below(s), "{p} on {s}");
            }
        }
        assert_eq!(shortcuts, 11, "the shortcut is taken where it applies");
    }

    #[test]
    fn walk_starts_at_literal_prefix() {
        let cases = [
            ("src/**/*.rs", "/w", "/w/src"),
            ("/w/src/**/*.rs", "/", "/w/src"),
            ("src/util/*.rs", "/w", "/w/src/util"),
            ("src/u*/x/*.rs", "/w", "/w/src"),
            ("**/*.rs", "/w", "/w"),
            ("*.rs", "/w", "/w"),
            ("{a,b}/c", "/w", "/w"),
            ("/*.rs", "/w", "/"),
            ("../x/*", "/w/src", "/w/x"),
        ];
        for (pattern, base, root) in cases {
            assert_eq!(GlobMatcher::new(pattern, base).unwrap().walk_root(), root, "{pattern}");
        }
        assert!(GlobMatcher::new("*.rs", "/").unwrap().is_name_only());
        assert!(!GlobMatcher::new("a/*.rs", "/").unwrap().is_name_only());
    }

    #[test]
    fn results_sorted_with_metadata() {
        let r = run("*", "/w", 1000).unwrap();
        let p: Vec<&str> = r.files.iter().map(|f| f.path.as_str()).collect();
        let mut sorted = p.clone();
        sorted.sort();
        assert_eq!(p, sorted);
        assert_eq!(r.files.len(), 14, "every file but the hidden one");
        assert_eq!(r.total_matches, 14);
        assert!(!r.truncated);
        let f = &r.files[0];
        assert_eq!((f.size, f.tokens), (7, 2));
    }

    #[test]
    fn limit_truncates() {
        let r = run("*.json", "/w", 2).unwrap();
        assert_eq!(r.files.len(), 2);
        assert_eq!(r.total_matches, 3);
        assert!(r.truncated && !r.walk_truncated);
        assert_eq!(r.files[0].path, "/w/package.json");
        let text = render(&r);
        assert_eq!(
            text,
            "/w/package.json\n/w/src/util/data.json\n[truncated: showing the first 2 of 3 matching files; \
             narrow the pattern or path, or raise 'limit']\n"
        );
        let exact = run("*.json", "/w", 3).unwrap();
        assert!(!exact.truncated);
        assert_eq!(run("*", "/w", 0).unwrap_err().kind(), ErrorKind::InvalidArgument);
        assert_eq!(
            run("*", "/w", MAX_LIST_LIMIT + 1).unwrap_err().kind(),
            ErrorKind::InvalidArgument
        );
    }

    #[test]
    fn walk_limit_marks_truncated() {
        let limits = Limits { walk_entries: 3, ..Limits::default() };
        let req = GlobRequest {
            pattern: "*".into(),
            path: "/w".into(),
            limit: 1000,
            exclude: Vec::new(),
            hidden: false,
        };
        let r = glob(&table(), &limits, &req).unwrap();
        assert!(r.walk_truncated && r.truncated);
        assert!(render(&r).contains("entry limit"));
    }

    #[test]
    fn invalid_patterns() {
        let cases = [
            ("{a,b", "unclosed alternate group"),
            ("[ab", "unclosed character class"),
            ("a/[z-a]", "invalid range"),
            ("x\\", "dangling"),
            ("", "empty"),
            ("src/", "ending in '/'"),
        ];
        for (pattern, reason) in cases {
            let e = run(pattern, "/w", 10).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidPattern, "{pattern}");
            assert!(e.message().contains(reason), "{pattern}: {e}");
            if !pattern.is_empty() {
                assert!(e.message().contains(&format!("'{pattern}")), "{pattern}: {e}");
            }
        }
        let long = "a".repeat(MAX_PATTERN_BYTES + 1);
        let e = run(&long, "/w", 10).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::InvalidPattern);
        assert!(e.message().contains("limit"), "{e}");
        assert_eq!(run("../../../*.rs", "/w", 10).unwrap_err().kind(), ErrorKind::InvalidPath);
    }

    #[test]
    fn path_errors() {
        let e = run("*.rs", "/w/nope", 10).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert_eq!(e.path(), Some("/w/nope"));
        assert_eq!(run("*.rs", "/nowhere", 10).unwrap_err().kind(), ErrorKind::NotFound);
        assert_eq!(run("*.rs", "/w/src/main.rs", 10).unwrap_err().kind(), ErrorKind::NotADirectory);
        assert_eq!(run("*.rs", "/w/../..", 10).unwrap_err().kind(), ErrorKind::InvalidPath);
        // A path with a trailing slash or `.` is normalised.
        assert_eq!(run("*.rs", "w/src/./", 10).unwrap().path, "/w/src");
    }

    #[test]
    fn render_empty_and_listing() {
        let r = run("*.zig", "/w", 10).unwrap();
        assert_eq!(render(&r), "No files matched the pattern '*.zig' under /w\n");
        let r = run("src/*.rs", "/w", 10).unwrap();
        assert_eq!(render(&r), "/w/src/lib.rs\n/w/src/main.rs\n");
    }

    #[test]
    fn request_json_contract() {
        let r: GlobRequest =
            crate::ops::request::decode("filestore_glob", &serde_json::json!({"pattern": "*.rs"}))
                .unwrap();
        assert_eq!((r.path.as_str(), r.limit), ("/", 1000));
        let e = crate::ops::request::decode::<GlobRequest>(
            "filestore_glob",
            &serde_json::json!({"pattern": "*", "limt": 3}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("limt"), "{e}");
        let res = run("src/*.rs", "/w", 1).unwrap();
        let j = serde_json::to_value(&res).unwrap();
        assert_eq!(j["files"][0]["path"], "/w/src/lib.rs");
        assert_eq!(j["truncated"], true);
        assert_eq!(j["total_matches"], 2);
    }

    /// `**` with a limit (what resources/list asks) walks a window, not the
    /// whole tree: the first files come back, `truncated` says more exist, and a
    /// window too full of directories is widened until it holds enough files.
    #[test]
    fn match_all_stops_past_its_limit() {
        use crate::vfs::memory::MemoryVolume;
        let v = MemoryVolume::new();
        for d in 0..3000 {
            v.insert(&format!("/empty{d:04}/.keep/x/y"), "");
        }
        for f in 0..5000 {
            v.insert(&format!("/z/f{f:04}"), "x");
        }
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        let l = Limits { walk_entries: 200_000, ..Limits::default() };
        let req = GlobRequest {
            pattern: "**".into(),
            path: "/w".into(),
            limit: 10,
            exclude: vec![],
            hidden: false,
        };
        let r = glob(&t, &l, &req).unwrap();
        assert_eq!(r.files.len(), 10);
        assert!(r.truncated && !r.walk_truncated);
        assert!(r.total_matches < 8000, "stopped early: {}", r.total_matches);
        // Any other pattern still counts every match.
        let req = GlobRequest { pattern: "**/f*".into(), ..req };
        let r = glob(&t, &l, &req).unwrap();
        assert_eq!((r.files.len(), r.total_matches), (10, 5000));
    }

    /// `exclude` leaves out matching files and whole directories (a name pattern
    /// matches a directory at any depth), in glob, grep and tree alike; a bad pattern
    /// names the parameter.
    #[test]
    fn excludes_leave_out_files_and_trees() {
        use crate::vfs::memory::MemoryVolume;
        let v = MemoryVolume::new();
        v.insert("/src/a.rs", "fn a() {}\n")
            .insert("/src/gen/b.rs", "fn b() {}\n")
            .insert("/node_modules/x/c.js", "fn c\n")
            .insert("/web/node_modules/d.js", "fn d\n")
            .insert("/web/app.min.js", "fn e\n")
            .insert("/web/app.js", "fn f\n");
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        let l = Limits::default();
        let ex = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let req = GlobRequest {
            pattern: "*".into(),
            path: "/w".into(),
            limit: 1000,
            exclude: ex(&["node_modules", "*.min.js", "src/gen/**"]),
            hidden: false,
        };
        let files: Vec<String> =
            glob(&t, &l, &req).unwrap().files.into_iter().map(|f| f.path).collect();
        assert_eq!(files, ["/w/src/a.rs", "/w/web/app.js"]);
        let g = crate::ops::grep::GrepRequest {
            exclude: ex(&["node_modules", "gen"]),
            ..crate::ops::grep::GrepRequest::new("fn", "/w")
        };
        let found = crate::ops::grep::grep(&t, &l, &g).unwrap().files.unwrap();
        assert_eq!(found, ["/w/src/a.rs", "/w/web/app.js", "/w/web/app.min.js"]);
        let tr = crate::ops::tree::TreeRequest {
            path: "/w".into(),
            exclude: ex(&["node_modules", "web"]),
            ..Default::default()
        };
        let shown = crate::ops::tree::tree(&t, &l, &tr).unwrap().tree;
        assert!(!shown.contains("node_modules") && !shown.contains("web"), "{shown}");
        assert!(shown.contains("a.rs"), "{shown}");
        let bad = GlobRequest { exclude: ex(&["[unclosed"]), ..req };
        let e = glob(&t, &l, &bad).unwrap_err();
        assert!(e.to_string().contains("parameter 'exclude'"), "{e}");
    }
}
