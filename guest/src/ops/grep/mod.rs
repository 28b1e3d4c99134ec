//! `filestore_grep`: search file contents with a regular expression
//! (docs/architecture.md#filestore_grep).
//!
//! The regex is the Rust `regex` crate's (linear time, no catastrophic backtracking),
//! with a compiled-size limit. Semantics follow `rg -n -uu PATTERN`:
//!
//! - **Lines.** Without `multiline` a match never spans lines: as in ripgrep, `\n` is
//!   removed from every class of the pattern (`\s`, `[^"]`, ...) and a literal `\n` is
//!   an error. `^` and `$` match at line boundaries; a `\r` before `\n` is an ordinary
//!   character for matching and is dropped from the text shown.
//! - **Multiline.** `.` also matches `\n` and a match may span lines; every line a match
//!   touches is reported as a matching line.
//! - **Files.** Every file below `path` (or `path` itself when it names a file), in
//!   path order, optionally filtered by `glob` (see [`crate::ops::glob`]) and `type` (see
//!   [`crate::ops::filetypes`]). A file with a NUL byte is binary and skipped; other
//!   invalid UTF-8 is searched and shown lossily. Files over the session's size limit
//!   are skipped and counted.
//!
//! The search runs over each file's whole buffer (no splitting into lines), counting
//! newlines only between matches; `files_with_matches` stops at a file's first match
//! and the whole search stops once the requested page is full (except in `count` mode,
//! whose totals cover every file).
//!
//! "No file passed the filters" and "no line matched" are different, non-error
//! answers: the counters of [`GrepResult`] say which, and [`render`] says it in words.

mod matcher;
mod printer;
mod render;
#[cfg(test)]
mod tests;

use matcher::has_match;

// The shell's `grep` (crate::shell::grep) runs the same line search.
pub(crate) use matcher::for_each_match_line;
use printer::ContentPrinter;

pub use matcher::compile;
pub use render::render;

use std::ops::ControlFlow;

use memchr::memchr;
use regex::bytes::Regex;
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::ops::filetypes::TypeMatcher;
use crate::ops::glob::GlobMatcher;
use crate::vfs::entry::{TYPE_SPECIAL, TYPE_SYMLINK};
use crate::vfs::limits::Limits;
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;

/// Default number of records (files, lines or counts) one grep call returns.
pub const DEFAULT_HEAD_LIMIT: usize = 250;

/// Nesting accepted when compiling the normalised pattern. The agent's pattern is
/// held to the parser's default (250); printing it back adds a group per level.
const COMPILED_NEST_LIMIT: u32 = 1000;

fn default_head_limit() -> usize {
    DEFAULT_HEAD_LIMIT
}

/// What grep returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// The paths of files with at least one matching line, sorted.
    #[default]
    FilesWithMatches,
    /// Matching lines (and context lines) with their line numbers.
    Content,
    /// Per file, the number of matching lines, plus totals.
    Count,
}

impl OutputMode {
    /// The parameter value (`files_with_matches`, `content`, `count`).
    pub fn as_str(self) -> &'static str {
        match self {
            OutputMode::FilesWithMatches => "files_with_matches",
            OutputMode::Content => "content",
            OutputMode::Count => "count",
        }
    }
}

/// Arguments of `filestore_grep`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GrepRequest {
    /// A Rust `regex` pattern (or a literal string with `fixed`).
    pub pattern: String,
    /// The directory to search, or a single file (default `/`).
    #[serde(default = "crate::ops::request::default_root")]
    pub path: String,
    /// Only files matching this glob: a pattern without `/` matches file names at any
    /// depth, one with `/` is relative to `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    /// Globs of files to leave out (see [`crate::ops::glob::Excludes`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// Only files of this type (`rust`, `py`, `ts`, ...; several separated by commas).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub file_type: Option<String>,
    /// Match `pattern` as a literal string.
    #[serde(default)]
    pub fixed: bool,
    /// Ignore case.
    #[serde(default)]
    pub case_insensitive: bool,
    /// Let `.` match newlines and matches span lines.
    #[serde(default)]
    pub multiline: bool,
    /// Context lines before each match (content mode).
    #[serde(default)]
    pub before: usize,
    /// Context lines after each match (content mode).
    #[serde(default)]
    pub after: usize,
    /// Context lines before and after, where `before`/`after` are 0 (content mode).
    #[serde(default)]
    pub context: usize,
    /// `files_with_matches` (default), `content` or `count`.
    #[serde(default)]
    pub output_mode: OutputMode,
    /// Records per page (default 250; at least 1, at most the session's record
    /// limit).
    #[serde(default = "default_head_limit")]
    pub head_limit: usize,
    /// Records to skip before the page starts; past the last record of a search
    /// that found some it is an error, as a read's `offset` past the last line.
    #[serde(default)]
    pub offset: usize,
    /// Search hidden files and directories too (a `.` name beneath `path`), which
    /// are skipped otherwise unless `glob` names them, as ripgrep does.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

impl GrepRequest {
    /// A request with every optional parameter at its default.
    pub fn new(pattern: impl Into<String>, path: impl Into<String>) -> GrepRequest {
        GrepRequest {
            pattern: pattern.into(),
            path: path.into(),
            glob: None,
            exclude: Vec::new(),
            file_type: None,
            fixed: false,
            case_insensitive: false,
            multiline: false,
            before: 0,
            after: 0,
            context: 0,
            output_mode: OutputMode::default(),
            head_limit: DEFAULT_HEAD_LIMIT,
            offset: 0,
            hidden: false,
        }
    }

    /// Context lines before a match: `before`, or `context` when `before` is 0.
    pub fn before_lines(&self) -> usize {
        if self.before == 0 { self.context } else { self.before }
    }

    /// Context lines after a match: `after`, or `context` when `after` is 0.
    pub fn after_lines(&self) -> usize {
        if self.after == 0 { self.context } else { self.after }
    }
}

/// One line of content-mode output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepLine {
    /// Virtual path of the file.
    pub path: String,
    /// Line number, 1-based.
    pub line: u64,
    /// The line without its terminator (`\n`, `\r\n`), invalid UTF-8 replaced, cut
    /// after [`MAX_LINE_CHARS`](crate::vfs::limits::MAX_LINE_CHARS) characters with a marker.
    pub text: String,
    /// Whether this is a context line rather than a matching line.
    pub is_context: bool,
}

/// One file of count-mode output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepCount {
    /// Virtual path of the file.
    pub path: String,
    /// Number of matching lines.
    pub count: u64,
}

/// The answer of `filestore_grep`.
///
/// Exactly one of `files`, `lines`, `counts` is present, as chosen by `output_mode`;
/// it holds one page of records. The `files_*` counters cover the files examined: all
/// of them when `complete`, else those up to the point the page filled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GrepResult {
    /// The pattern as given.
    pub pattern: String,
    /// The normalised path searched.
    pub path: String,
    /// The glob filter, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    /// The type filter, if any.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub file_type: Option<String>,
    /// The mode that selected the records.
    pub output_mode: OutputMode,
    /// Context lines before each match in effect (content mode).
    #[serde(skip_serializing_if = "is_zero")]
    pub before: usize,
    /// Context lines after each match in effect (content mode).
    #[serde(skip_serializing_if = "is_zero")]
    pub after: usize,
    /// `files_with_matches`: paths of matching files, sorted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<String>>,
    /// `content`: match and context lines, in file then line order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<GrepLine>>,
    /// `count`: files with at least one matching line and how many.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<Vec<GrepCount>>,
    /// `count`: matching lines over every file searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_matches: Option<u64>,
    /// Records skipped before this page.
    pub offset: usize,
    /// Whether more records follow this page.
    pub truncated: bool,
    /// The `offset` of the next page, when `truncated`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// Records of the mode in all, when the search ran to the end (`complete`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_records: Option<usize>,
    /// Files that passed the `glob` and `type` filters.
    pub files_considered: usize,
    /// Files whose content was searched.
    pub files_searched: usize,
    /// Files with at least one matching line.
    pub files_matched: usize,
    /// Files skipped because they contain a NUL byte.
    pub files_skipped_binary: usize,
    /// Files skipped because they exceed the session's file size limit.
    pub files_skipped_too_large: usize,
    /// Whether every candidate file was examined (false when the search stopped
    /// because the page was full).
    pub complete: bool,
    /// Whether the directory walk stopped at the session's entry limit.
    pub walk_truncated: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What a page does with the next record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Admit {
    /// Before `offset`: count it, keep nothing.
    Skip,
    /// On the page: keep it.
    Take,
    /// After the page: there is more.
    Overflow,
}

/// Offset/limit paging over a stream of records.
pub(super) struct Pager {
    skip: usize,
    cap: usize,
    seen: usize,
    taken: usize,
    more: bool,
}

impl Pager {
    /// The pager of `req`: `offset`, and `head_limit` held to the session's record
    /// limit. A `head_limit` of 0 is refused, naming the parameter: the schema's
    /// minimum is 1, and a page of nothing is no page.
    fn for_request(req: &GrepRequest, limits: &Limits) -> Result<Pager> {
        if req.head_limit == 0 {
            return Err(Error::invalid_argument(
                "head_limit",
                format!(
                    "must be at least 1, got 0 (the default is {DEFAULT_HEAD_LIMIT} records a page; page on with offset)"
                ),
            ));
        }
        let cap = req.head_limit.min(limits.grep_records);
        Ok(Pager { skip: req.offset, cap, seen: 0, taken: 0, more: false })
    }

    fn admit(&mut self) -> Admit {
        self.seen += 1;
        if self.skip > 0 {
            self.skip -= 1;
            Admit::Skip
        } else if self.taken < self.cap {
            self.taken += 1;
            Admit::Take
        } else {
            self.more = true;
            Admit::Overflow
        }
    }
}

/// Runs `filestore_grep`.
///
/// Errors: `not-found` for a missing `path`; `invalid-pattern` for a bad `pattern`
/// (see [`compile`]) or `glob`; `invalid-argument` for an unknown `type`. Finding
/// nothing is not an error.
pub fn grep(mounts: &MountTable, limits: &Limits, req: &GrepRequest) -> Result<GrepResult> {
    let path = paths::normalize(&req.path)?;
    let mut pager = Pager::for_request(req, limits)?;
    let re = compile(req, limits)?;
    let filters = FileFilters::new(req, &path)?;
    let me = mounts.stat(&path)?;
    crate::vfs::mounts::refuse_contentless(&me, &path)?;

    let mut result = empty_result(req, &path);
    // The candidates: `path` itself when it is a file (searched whatever the filters,
    // as ripgrep does with a file named on its command line), else the files below it.
    let single = !me.is_dir();
    let candidates: Vec<(String, u64)> = if single {
        vec![(me.path.clone(), me.size)]
    } else {
        let candidates = walk_candidates(mounts, limits, &filters, &path, &mut result)?;
        prefetch_candidates(mounts, limits, &filters, &candidates);
        candidates
    };

    for (entry_path, size) in &candidates {
        let (entry_path, size) = (entry_path.as_str(), *size);
        if !single && !filters.admits(entry_path) {
            continue;
        }
        result.files_considered += 1;
        let Some(buf) = read_candidate(mounts, limits, entry_path, size, single, &mut result)?
        else {
            continue;
        };
        result.files_searched += 1;
        if search_file(&re, req, &buf, entry_path, &mut result, &mut pager).is_break() {
            result.complete = false;
            break;
        }
    }

    result.truncated = pager.more;
    if pager.more {
        result.next_offset = Some(req.offset + pager.taken);
    }
    if result.complete {
        result.total_records = Some(pager.seen);
    }
    // An empty page after records were found: the offset went past them (the read
    // tool's rule for its `offset`). A search that found nothing is an answer.
    if req.offset > 0 && pager.taken == 0 && pager.seen > 0 {
        let (one, many) = match req.output_mode {
            OutputMode::FilesWithMatches => ("file", "files"),
            OutputMode::Content => ("line", "lines"),
            OutputMode::Count => ("file count", "file counts"),
        };
        let unit = if pager.seen == 1 { one } else { many };
        return Err(Error::invalid_argument(
            "offset",
            format!(
                "the search under {path} has {} {unit} in all; offset {} is past the end",
                pager.seen, req.offset
            ),
        ));
    }
    Ok(result)
}

/// A request's file filters: `glob`, `type`, `exclude`, and hidden names.
struct FileFilters<'p> {
    glob: Option<GlobMatcher>,
    types: Option<TypeMatcher>,
    excludes: crate::ops::glob::Excludes,
    show_hidden: bool,
    /// The searched directory, below which hidden names count.
    path: &'p str,
}

impl<'p> FileFilters<'p> {
    /// The filters of `req` below `path`; a bad `glob`, `type` or `exclude` is an error.
    fn new(req: &GrepRequest, path: &'p str) -> Result<FileFilters<'p>> {
        let glob = req.glob.as_deref().map(|g| GlobMatcher::new(g, path)).transpose()?;
        let types = req.file_type.as_deref().map(TypeMatcher::new).transpose()?;
        let excludes = crate::ops::glob::Excludes::new(&req.exclude, path)?;
        let show_hidden =
            req.hidden || req.glob.as_deref().is_some_and(crate::ops::glob::names_hidden);
        Ok(FileFilters { glob, types, excludes, show_hidden, path })
    }

    /// Hidden files (a `.` name beneath `path`) only when asked for, as in ripgrep.
    fn visible(&self, p: &str) -> bool {
        self.show_hidden || !crate::ops::glob::is_hidden_below(p, self.path)
    }

    /// Whether `p` passes the glob and the type.
    fn matches(&self, p: &str) -> bool {
        self.glob.as_ref().is_none_or(|g| g.is_match(p))
            && self.types.as_ref().is_none_or(|t| t.is_match(paths::file_name(p)))
    }

    /// Whether a walked file `p` is a candidate: visible, matching, not excluded.
    fn admits(&self, p: &str) -> bool {
        self.visible(p) && self.matches(p) && !self.excludes.excludes(p)
    }
}

/// A result with nothing found yet: the request echoed, the mode's lists empty.
fn empty_result(req: &GrepRequest, path: &str) -> GrepResult {
    let mode = req.output_mode;
    let (before, after) =
        if mode == OutputMode::Content { (req.before_lines(), req.after_lines()) } else { (0, 0) };
    GrepResult {
        pattern: req.pattern.clone(),
        path: path.to_string(),
        glob: req.glob.clone(),
        file_type: req.file_type.clone(),
        output_mode: mode,
        before,
        after,
        files: (mode == OutputMode::FilesWithMatches).then(Vec::new),
        lines: (mode == OutputMode::Content).then(Vec::new),
        counts: (mode == OutputMode::Count).then(Vec::new),
        total_matches: (mode == OutputMode::Count).then_some(0),
        offset: req.offset,
        truncated: false,
        next_offset: None,
        total_records: None,
        files_considered: 0,
        files_searched: 0,
        files_matched: 0,
        files_skipped_binary: 0,
        files_skipped_too_large: 0,
        complete: true,
        walk_truncated: false,
    }
}

/// The files below directory `path` with their sizes, in path order. Links and special
/// files listed by a directory volume have no content to search (the volume refuses to
/// follow or read them). The walk is the packed one: a tree of 20,000 files crosses
/// the boundary as a few columns, not 20,000 records of two or three strings each
/// (per-record crossings were what kept a directory grep far behind ripgrep).
fn walk_candidates(
    mounts: &MountTable,
    limits: &Limits,
    filters: &FileFilters<'_>,
    path: &str,
    result: &mut GrepResult,
) -> Result<Vec<(String, u64)>> {
    // A glob with a literal directory inside `path` narrows the walk.
    let root = match &filters.glob {
        Some(g) if paths::is_within(g.walk_root(), path) => g.walk_root(),
        _ => path,
    };
    match mounts.walk_packed(root, limits.walk_entries) {
        Ok(w) => {
            result.walk_truncated = w.truncated;
            Ok(w.iter()
                .filter(|e| !e.is_dir() && !matches!(e.entry_type(), TYPE_SYMLINK | TYPE_SPECIAL))
                .map(|e| (e.path(), e.size()))
                .collect())
        }
        Err(e)
            if root != path
                && matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) =>
        {
            Ok(Vec::new())
        }
        Err(e) => Err(e),
    }
}

/// Lets a remote volume fetch the files the search will read, in its order, ahead of
/// the reads (a bounded number at a time).
fn prefetch_candidates(
    mounts: &MountTable,
    limits: &Limits,
    filters: &FileFilters<'_>,
    candidates: &[(String, u64)],
) {
    let ahead: Vec<(&str, u64)> = candidates
        .iter()
        .filter(|(p, size)| filters.visible(p) && filters.matches(p) && *size <= limits.file_bytes)
        .map(|(p, size)| (p.as_str(), *size))
        .collect();
    mounts.prefetch(&ahead);
}

/// The content of a candidate, or none when it is skipped (too large, binary, or
/// deleted since the walk), counted in `result`.
fn read_candidate(
    mounts: &MountTable,
    limits: &Limits,
    entry_path: &str,
    size: u64,
    single: bool,
    result: &mut GrepResult,
) -> Result<Option<Vec<u8>>> {
    if size > limits.file_bytes {
        result.files_skipped_too_large += 1;
        return Ok(None);
    }
    let read = if single {
        mounts.read_all(entry_path, limits.file_bytes).map(|(_, buf)| buf)
    } else {
        mounts.read_listed(entry_path, size, limits.file_bytes)
    };
    let buf = match read {
        Ok(buf) => buf,
        Err(e) if e.kind() == ErrorKind::TooLarge => {
            result.files_skipped_too_large += 1;
            return Ok(None);
        }
        // Deleted between the walk and the read.
        Err(e) if e.kind() == ErrorKind::NotFound && !single => return Ok(None),
        Err(e) => return Err(e),
    };
    if memchr(0, &buf).is_some() {
        result.files_skipped_binary += 1;
        return Ok(None);
    }
    Ok(Some(buf))
}

/// Searches one file's content in the request's output mode, adding its records to
/// `result` through `pager`; breaks when the page is full.
fn search_file(
    re: &Regex,
    req: &GrepRequest,
    buf: &[u8],
    entry_path: &str,
    result: &mut GrepResult,
    pager: &mut Pager,
) -> ControlFlow<()> {
    match req.output_mode {
        OutputMode::FilesWithMatches => {
            if !has_match(re, buf, req.multiline) {
                return ControlFlow::Continue(());
            }
            result.files_matched += 1;
            match pager.admit() {
                Admit::Skip => ControlFlow::Continue(()),
                Admit::Take => {
                    result.files.get_or_insert_default().push(entry_path.to_string());
                    ControlFlow::Continue(())
                }
                Admit::Overflow => ControlFlow::Break(()),
            }
        }
        OutputMode::Count => {
            let mut n = 0u64;
            let _ = for_each_match_line(re, buf, req.multiline, |_, _| {
                n += 1;
                ControlFlow::Continue(())
            });
            if n == 0 {
                return ControlFlow::Continue(());
            }
            result.files_matched += 1;
            // Totals cover every file, whatever the page.
            *result.total_matches.get_or_insert(0) += n;
            if pager.admit() == Admit::Take {
                result
                    .counts
                    .get_or_insert_default()
                    .push(GrepCount { path: entry_path.to_string(), count: n });
            }
            ControlFlow::Continue(())
        }
        OutputMode::Content => {
            let out = result.lines.get_or_insert_default();
            let mut printer = ContentPrinter::new(buf, entry_path, result.before, result.after);
            let mut matched = false;
            let flow = for_each_match_line(re, buf, req.multiline, |line, start| {
                matched = true;
                printer.on_match(line, start, pager, out)
            });
            let flow = if flow.is_continue() { printer.finish(pager, out) } else { flow };
            if matched {
                result.files_matched += 1;
            }
            flow
        }
    }
}
