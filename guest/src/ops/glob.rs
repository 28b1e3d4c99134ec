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
mod tests;
