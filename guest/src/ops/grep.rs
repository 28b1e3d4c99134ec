//! `filestore_grep`: search file contents with a regular expression (DESIGN §5).
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

use std::ops::ControlFlow;

use memchr::{memchr, memchr_iter, memrchr};
use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind,
};
use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::ops::filetypes::TypeMatcher;
use crate::ops::glob::GlobMatcher;
use crate::vfs::entry::Entry;
use crate::vfs::limits::{Limits, MAX_LINE_CHARS, MAX_PATTERN_BYTES};
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
    /// Records per page (default 250; 0 means as many as the session allows).
    #[serde(default = "default_head_limit")]
    pub head_limit: usize,
    /// Records to skip before the page starts.
    #[serde(default)]
    pub offset: usize,
}

impl GrepRequest {
    /// A request with every optional parameter at its default.
    pub fn new(pattern: impl Into<String>, path: impl Into<String>) -> GrepRequest {
        GrepRequest {
            pattern: pattern.into(),
            path: path.into(),
            glob: None,
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
    /// after [`MAX_LINE_CHARS`] characters with a marker.
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

/// Compiles the request's pattern as grep runs it.
///
/// Errors: `invalid-pattern` over [`MAX_PATTERN_BYTES`], for a syntax error (the
/// parser's reason) or a literal line break without `multiline`; `limit-exceeded` for
/// a compiled program over `limits.regex_bytes`.
pub fn compile(req: &GrepRequest, limits: &Limits) -> Result<Regex> {
    if req.pattern.len() > MAX_PATTERN_BYTES {
        return Err(Error::new(
            ErrorKind::InvalidPattern,
            format!("the pattern is {} bytes; the limit is {MAX_PATTERN_BYTES}", req.pattern.len()),
        ));
    }
    let source = if req.fixed { regex::escape(&req.pattern) } else { req.pattern.clone() };
    let hir = regex_syntax::ParserBuilder::new()
        .utf8(false)
        .unicode(true)
        .case_insensitive(req.case_insensitive)
        .multi_line(true)
        .dot_matches_new_line(req.multiline)
        .build()
        .parse(&source)
        .map_err(|e| Error::new(ErrorKind::InvalidPattern, format!("invalid regex:\n{e}")))?;
    let hir = if req.multiline {
        hir
    } else {
        strip_newline(hir).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidPattern,
                format!(
                    "the pattern '{}' contains a literal line break ('\\n'), but lines are searched \
                     one at a time; set multiline=true to match across lines",
                    req.pattern.escape_debug()
                ),
            )
        })?
    };
    RegexBuilder::new(&hir.to_string())
        .size_limit(limits.regex_bytes)
        .dfa_size_limit(limits.regex_bytes)
        .nest_limit(COMPILED_NEST_LIMIT)
        .build()
        .map_err(|e| match e {
            // A resource limit, not a syntax error: typed as such, naming the limit.
            regex::Error::CompiledTooBig(limit) => Error::new(
                ErrorKind::LimitExceeded,
                format!(
                    "the regex is too large: its compiled form exceeds the regex_bytes limit of \
                     {limit} bytes; use fewer or smaller repetitions and classes (or fixed=true \
                     for a literal)"
                ),
            ),
            other => Error::new(ErrorKind::InvalidPattern, format!("invalid regex:\n{other}")),
        })
}

/// Removes `\n` from every class, as ripgrep does for line-oriented search, so a match
/// can never span lines. `None` when a literal contains `\n`.
fn strip_newline(hir: Hir) -> Option<Hir> {
    Some(match hir.into_kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(lit) => {
            if lit.0.contains(&b'\n') {
                return None;
            }
            Hir::literal(lit.0)
        }
        HirKind::Class(Class::Unicode(mut c)) => {
            c.difference(&ClassUnicode::new([ClassUnicodeRange::new('\n', '\n')]));
            Hir::class(Class::Unicode(c))
        }
        HirKind::Class(Class::Bytes(mut c)) => {
            c.difference(&ClassBytes::new([ClassBytesRange::new(b'\n', b'\n')]));
            Hir::class(Class::Bytes(c))
        }
        HirKind::Look(look) => Hir::look(look),
        HirKind::Repetition(mut rep) => {
            rep.sub = Box::new(strip_newline(*rep.sub)?);
            Hir::repetition(rep)
        }
        HirKind::Capture(mut cap) => {
            cap.sub = Box::new(strip_newline(*cap.sub)?);
            Hir::capture(cap)
        }
        HirKind::Concat(subs) => {
            Hir::concat(subs.into_iter().map(strip_newline).collect::<Option<_>>()?)
        }
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(strip_newline).collect::<Option<_>>()?)
        }
    })
}

/// Whether a match starting (or, line mode, ending) at `pos` is past the last line:
/// the empty "line" after a final `\n`, or anywhere in an empty file.
fn past_last_line(buf: &[u8], pos: usize) -> bool {
    pos == buf.len() && buf.last().is_none_or(|&b| b == b'\n')
}

/// End of the line starting at `start` (the index of its `\n`, or the buffer's end).
fn line_end(buf: &[u8], start: usize) -> usize {
    memchr(b'\n', &buf[start..]).map_or(buf.len(), |i| start + i)
}

fn count_newlines(bytes: &[u8]) -> u64 {
    memchr_iter(b'\n', bytes).count() as u64
}

/// Whether any line of `buf` matches.
fn has_match(re: &Regex, buf: &[u8], multiline: bool) -> bool {
    if multiline {
        re.find(buf).is_some_and(|m| !past_last_line(buf, m.start()))
    } else {
        // Matches cannot contain '\n', so the earliest end of any match lies on the
        // first matching line; only an empty match after a final '\n' is not a line.
        re.shortest_match(buf).is_some_and(|end| !past_last_line(buf, end))
    }
}

/// Calls `f(line_number, line_start)` for every matching line, in order, until `f`
/// breaks.
fn for_each_match_line(
    re: &Regex,
    buf: &[u8],
    multiline: bool,
    mut f: impl FnMut(u64, usize) -> ControlFlow<()>,
) -> ControlFlow<()> {
    // Newlines are counted lazily: `line_no` is the number of the line starting at
    // `counted`.
    let mut line_no = 1u64;
    let mut counted = 0usize;
    if !multiline {
        let mut pos = 0usize;
        while pos <= buf.len() {
            let Some(end) = re.shortest_match_at(buf, pos) else {
                break;
            };
            if past_last_line(buf, end) {
                break;
            }
            // `pos` starts a line and the match lies within one line, so its line
            // starts after the last '\n' between `pos` and `end`.
            let start = memrchr(b'\n', &buf[pos..end]).map_or(pos, |i| pos + i + 1);
            line_no += count_newlines(&buf[counted..start]);
            counted = start;
            f(line_no, start)?;
            match memchr(b'\n', &buf[end..]) {
                Some(i) => pos = end + i + 1,
                None => break,
            }
        }
        return ControlFlow::Continue(());
    }
    let mut last_reported = 0u64;
    for m in re.find_iter(buf) {
        if past_last_line(buf, m.start()) {
            break;
        }
        let mut start =
            memrchr(b'\n', &buf[counted..m.start()]).map_or(counted, |i| counted + i + 1);
        line_no += count_newlines(&buf[counted..start]);
        counted = start;
        let last_byte = if m.end() > m.start() { m.end() - 1 } else { m.start() };
        loop {
            if line_no > last_reported {
                f(line_no, start)?;
                last_reported = line_no;
            }
            match memchr(b'\n', &buf[start..]) {
                Some(i) if start + i < last_byte => {
                    start += i + 1;
                    line_no += 1;
                    counted = start;
                }
                _ => break,
            }
        }
    }
    ControlFlow::Continue(())
}

/// The text of the line starting at `start`: terminator and a trailing `\r` removed,
/// decoded lossily, cut after [`MAX_LINE_CHARS`] characters.
fn line_text(buf: &[u8], start: usize) -> String {
    let mut line = &buf[start..line_end(buf, start)];
    if let Some(rest) = line.strip_suffix(b"\r") {
        line = rest;
    }
    let text = String::from_utf8_lossy(line);
    if line.len() <= MAX_LINE_CHARS {
        return text.into_owned();
    }
    let total = text.chars().count();
    if total <= MAX_LINE_CHARS {
        return text.into_owned();
    }
    let mut cut: String = text.chars().take(MAX_LINE_CHARS).collect();
    cut.push_str(&format!(" … [line cut: {total} characters]"));
    cut
}

/// What a page does with the next record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Admit {
    /// Before `offset`: count it, keep nothing.
    Skip,
    /// On the page: keep it.
    Take,
    /// After the page: there is more.
    Overflow,
}

/// Offset/limit paging over a stream of records.
struct Pager {
    skip: usize,
    cap: usize,
    seen: usize,
    taken: usize,
    more: bool,
}

impl Pager {
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

/// Emits content-mode records for one file: matching lines with their context,
/// context clipped at the file's edges and never repeated.
struct ContentPrinter<'a> {
    buf: &'a [u8],
    path: &'a str,
    before: usize,
    after: usize,
    /// The first line not yet emitted and where it starts.
    next_line: u64,
    next_start: usize,
    /// After-context lines still owed to the last match.
    after_left: usize,
}

impl<'a> ContentPrinter<'a> {
    fn new(buf: &'a [u8], path: &'a str, before: usize, after: usize) -> ContentPrinter<'a> {
        ContentPrinter { buf, path, before, after, next_line: 1, next_start: 0, after_left: 0 }
    }

    fn emit(
        &mut self,
        line: u64,
        start: usize,
        is_context: bool,
        pager: &mut Pager,
        out: &mut Vec<GrepLine>,
    ) -> ControlFlow<()> {
        match pager.admit() {
            Admit::Skip => {}
            Admit::Take => out.push(GrepLine {
                path: self.path.to_string(),
                line,
                text: line_text(self.buf, start),
                is_context,
            }),
            Admit::Overflow => return ControlFlow::Break(()),
        }
        self.next_line = line + 1;
        self.next_start = line_end(self.buf, start) + 1;
        ControlFlow::Continue(())
    }

    /// Emits owed after-context lines before line `limit` (exclusive).
    fn flush_after(
        &mut self,
        limit: u64,
        pager: &mut Pager,
        out: &mut Vec<GrepLine>,
    ) -> ControlFlow<()> {
        while self.after_left > 0 && self.next_line < limit && self.next_start < self.buf.len() {
            self.after_left -= 1;
            self.emit(self.next_line, self.next_start, true, pager, out)?;
        }
        ControlFlow::Continue(())
    }

    fn on_match(
        &mut self,
        line: u64,
        start: usize,
        pager: &mut Pager,
        out: &mut Vec<GrepLine>,
    ) -> ControlFlow<()> {
        self.flush_after(line, pager, out)?;
        let first = line.saturating_sub(self.before as u64).max(self.next_line);
        if first < line {
            // Walk back from the match to the first before-context line.
            let mut starts = Vec::with_capacity((line - first) as usize);
            let mut s = start;
            for _ in first..line {
                s = memrchr(b'\n', &self.buf[..s - 1]).map_or(0, |i| i + 1);
                starts.push(s);
            }
            for (n, s) in (first..line).zip(starts.into_iter().rev()) {
                self.emit(n, s, true, pager, out)?;
            }
        }
        self.emit(line, start, false, pager, out)?;
        self.after_left = self.after;
        ControlFlow::Continue(())
    }

    fn finish(&mut self, pager: &mut Pager, out: &mut Vec<GrepLine>) -> ControlFlow<()> {
        self.flush_after(u64::MAX, pager, out)
    }
}

/// Runs `filestore_grep`.
///
/// Errors: `not-found` for a missing `path`; `invalid-pattern` for a bad `pattern`
/// (see [`compile`]) or `glob`; `invalid-argument` for an unknown `type`. Finding
/// nothing is not an error.
pub fn grep(mounts: &MountTable, limits: &Limits, req: &GrepRequest) -> Result<GrepResult> {
    let path = paths::normalize(&req.path)?;
    let re = compile(req, limits)?;
    let glob = req.glob.as_deref().map(|g| GlobMatcher::new(g, &path)).transpose()?;
    let types = req.file_type.as_deref().map(TypeMatcher::new).transpose()?;
    let me = mounts.stat(&path)?;

    let mode = req.output_mode;
    let (before, after) =
        if mode == OutputMode::Content { (req.before_lines(), req.after_lines()) } else { (0, 0) };
    let mut result = GrepResult {
        pattern: req.pattern.clone(),
        path: path.clone(),
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
    };

    // The candidates: `path` itself when it is a file (searched whatever the filters,
    // as ripgrep does with a file named on its command line), else the files below it.
    let single = !me.is_dir();
    let candidates = if single {
        vec![me]
    } else {
        // A glob with a literal directory inside `path` narrows the walk.
        let root = match &glob {
            Some(g) if paths::is_within(g.walk_root(), &path) => g.walk_root(),
            _ => path.as_str(),
        };
        match mounts.walk(root, limits.walk_entries) {
            Ok(w) => {
                result.walk_truncated = w.truncated;
                w.entries
            }
            Err(e)
                if root != path
                    && matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) =>
            {
                Vec::new()
            }
            Err(e) => return Err(e),
        }
    };

    let cap = if req.head_limit == 0 {
        limits.grep_records
    } else {
        req.head_limit.min(limits.grep_records)
    };
    let mut pager = Pager { skip: req.offset, cap, seen: 0, taken: 0, more: false };
    let mut total_matches = 0u64;

    // Links and special files listed by a directory volume have no content to search
    // (the volume refuses to follow or read them).
    let searchable =
        |e: &&Entry| !e.is_dir() && !matches!(e.entry_type.as_str(), "symlink" | "special");
    for entry in candidates.iter().filter(searchable) {
        if !single {
            if glob.as_ref().is_some_and(|g| !g.is_match(&entry.path)) {
                continue;
            }
            if types.as_ref().is_some_and(|t| !t.is_match(entry.name())) {
                continue;
            }
        }
        result.files_considered += 1;
        if entry.size > limits.file_bytes {
            result.files_skipped_too_large += 1;
            continue;
        }
        let read = if single {
            mounts.read_all(&entry.path, limits.file_bytes).map(|(_, buf)| buf)
        } else {
            mounts.read_listed(&entry.path, entry.size, limits.file_bytes)
        };
        let buf = match read {
            Ok(buf) => buf,
            Err(e) if e.kind() == ErrorKind::TooLarge => {
                result.files_skipped_too_large += 1;
                continue;
            }
            // Deleted between the walk and the read.
            Err(e) if e.kind() == ErrorKind::NotFound && !single => continue,
            Err(e) => return Err(e),
        };
        if memchr(0, &buf).is_some() {
            result.files_skipped_binary += 1;
            continue;
        }
        result.files_searched += 1;
        let flow = match mode {
            OutputMode::FilesWithMatches => {
                if !has_match(&re, &buf, req.multiline) {
                    continue;
                }
                result.files_matched += 1;
                match pager.admit() {
                    Admit::Skip => ControlFlow::Continue(()),
                    Admit::Take => {
                        result.files.get_or_insert_default().push(entry.path.clone());
                        ControlFlow::Continue(())
                    }
                    Admit::Overflow => ControlFlow::Break(()),
                }
            }
            OutputMode::Count => {
                let mut n = 0u64;
                let _ = for_each_match_line(&re, &buf, req.multiline, |_, _| {
                    n += 1;
                    ControlFlow::Continue(())
                });
                if n == 0 {
                    continue;
                }
                result.files_matched += 1;
                total_matches += n;
                if pager.admit() == Admit::Take {
                    result
                        .counts
                        .get_or_insert_default()
                        .push(GrepCount { path: entry.path.clone(), count: n });
                }
                ControlFlow::Continue(())
            }
            OutputMode::Content => {
                let out = result.lines.get_or_insert_default();
                let mut printer = ContentPrinter::new(&buf, &entry.path, before, after);
                let mut matched = false;
                let flow = for_each_match_line(&re, &buf, req.multiline, |line, start| {
                    matched = true;
                    printer.on_match(line, start, &mut pager, out)
                });
                let flow = if flow.is_continue() { printer.finish(&mut pager, out) } else { flow };
                if matched {
                    result.files_matched += 1;
                }
                flow
            }
        };
        if flow.is_break() {
            result.complete = false;
            break;
        }
    }

    if mode == OutputMode::Count {
        result.total_matches = Some(total_matches);
    }
    result.truncated = pager.more;
    if pager.more {
        result.next_offset = Some(req.offset + pager.taken);
    }
    if result.complete {
        result.total_records = Some(pager.seen);
    }
    Ok(result)
}

/// The text an LLM sees.
///
/// `files_with_matches`: one path per line. `content`: `path:line:text` for matching
/// lines, `path-line-text` for context lines, `--` between non-adjacent groups (when
/// context was asked for), as ripgrep prints them. `count`: `path:count` lines and a
/// total. Notes in brackets follow: more pages, files too large to search, an
/// incomplete walk. Nothing found is a sentence that says why: no file passed the
/// filters, every file was skipped, or no line matched.
pub fn render(result: &GrepResult) -> String {
    let mut out = String::new();
    let records = match result.output_mode {
        OutputMode::FilesWithMatches => {
            let files = result.files.as_deref().unwrap_or_default();
            for f in files {
                out.push_str(f);
                out.push('\n');
            }
            files.len()
        }
        OutputMode::Content => {
            let lines = result.lines.as_deref().unwrap_or_default();
            let grouped = result.before > 0 || result.after > 0;
            let mut prev: Option<&GrepLine> = None;
            for l in lines {
                if let Some(p) = prev
                    && grouped
                    && (p.path != l.path || p.line + 1 != l.line)
                {
                    out.push_str("--\n");
                }
                let sep = if l.is_context { '-' } else { ':' };
                out.push_str(&format!("{}{sep}{}{sep}{}\n", l.path, l.line, l.text));
                prev = Some(l);
            }
            lines.len()
        }
        OutputMode::Count => {
            let counts = result.counts.as_deref().unwrap_or_default();
            for c in counts {
                out.push_str(&format!("{}:{}\n", c.path, c.count));
            }
            counts.len()
        }
    };

    if records == 0 {
        out.push_str(&nothing_found(result));
        out.push('\n');
    } else if result.output_mode == OutputMode::Count {
        out.push_str(&format!(
            "[total: {} matching {} in {} {}]\n",
            result.total_matches.unwrap_or_default(),
            plural(result.total_matches.unwrap_or_default() as usize, "line", "lines"),
            result.files_matched,
            plural(result.files_matched, "file", "files"),
        ));
    }
    if result.truncated {
        let unit = match result.output_mode {
            OutputMode::FilesWithMatches => "files",
            OutputMode::Content => "lines",
            OutputMode::Count => "file counts",
        };
        let next = result.next_offset.unwrap_or(result.offset + records);
        out.push_str(&format!(
            "[more results: showing {records} {unit} from offset {}; call again with offset={next} for the next page]\n",
            result.offset
        ));
    }
    if result.files_skipped_too_large > 0 && records > 0 {
        out.push_str(&format!(
            "[{} too large to search]\n",
            plural_count(result.files_skipped_too_large, "file was", "files were")
        ));
    }
    if result.walk_truncated {
        out.push_str("[incomplete: the directory walk stopped at its entry limit; narrow 'path' or add a 'glob']\n");
    }
    out
}

fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

fn plural_count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The sentence for an empty page.
fn nothing_found(r: &GrepResult) -> String {
    let filter = match (&r.glob, &r.file_type) {
        (Some(g), Some(t)) => Some(format!("the glob '{g}' and type '{t}'")),
        (Some(g), None) => Some(format!("the glob '{g}'")),
        (None, Some(t)) => Some(format!("the type '{t}'")),
        (None, None) => None,
    };
    if r.files_considered == 0 {
        return match filter {
            Some(f) => format!("No files matched {f} under {}", r.path),
            None => format!("No files to search under {}", r.path),
        };
    }
    let skipped = skipped_note(r);
    if r.files_searched == 0 {
        return format!("No files searched under {}: {skipped}", r.path);
    }
    if r.files_matched == 0 {
        let scope = match filter {
            Some(f) => format!("{} matching {f}", plural_count(r.files_searched, "file", "files")),
            None => plural_count(r.files_searched, "file", "files"),
        };
        let mut s = format!("No matches for pattern '{}' in {scope} under {}", r.pattern, r.path);
        if !skipped.is_empty() {
            s.push_str(&format!(" ({skipped})"));
        }
        return s;
    }
    let total = r.total_records.map_or_else(|| "more".to_string(), |n| n.to_string());
    format!(
        "No results at offset {}: there are {total} results in all; use a smaller offset",
        r.offset
    )
}

fn skipped_note(r: &GrepResult) -> String {
    let mut parts = Vec::new();
    if r.files_skipped_binary > 0 {
        parts.push(format!(
            "{} skipped as binary",
            plural_count(r.files_skipped_binary, "file", "files")
        ));
    }
    if r.files_skipped_too_large > 0 {
        parts.push(format!(
            "{} skipped as too large",
            plural_count(r.files_skipped_too_large, "file", "files")
        ));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::volume::MemoryVolume;

    const MAIN_RS: &str = "fn main() {\n    let foo = bar();\n    println!(\"foo.*bar\");\n}\n";

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("l{i}\n")).collect()
    }

    fn table() -> MountTable {
        let v = MemoryVolume::new();
        v.insert("/src/main.rs", MAIN_RS)
            .insert("/src/lib.rs", "pub fn foo() {}\n// FOO in caps\n")
            .insert("/src/nested/deep.rs", "const FOO: u8 = 1;\n")
            .insert("/docs/readme.md", "# Foo\nfoo and bar\n")
            .insert("/docs/notes.txt", "nothing here\n")
            .insert("/ctx.txt", numbered(20))
            .insert("/bin.dat", b"foo\0bar\n".as_slice())
            .insert("/latin1.txt", b"caf\xe9 foo\nplain\n".as_slice())
            .insert("/crlf.txt", "foo\r\nbar\r\nfoo$\r\n")
            .insert("/empty.txt", "")
            .insert("/no-newline.txt", "a\nfoo");
        let mut t = MountTable::new();
        t.add("/w", Box::new(v), 0, false).unwrap();
        t
    }

    fn req(pattern: &str, path: &str) -> GrepRequest {
        GrepRequest::new(pattern, path)
    }

    fn content(pattern: &str, path: &str) -> GrepRequest {
        GrepRequest { output_mode: OutputMode::Content, ..req(pattern, path) }
    }

    fn run(r: &GrepRequest) -> GrepResult {
        grep(&table(), &Limits::default(), r).unwrap()
    }

    fn run_err(r: &GrepRequest) -> Error {
        grep(&table(), &Limits::default(), r).unwrap_err()
    }

    fn files(r: &GrepRequest) -> Vec<String> {
        run(r).files.unwrap()
    }

    /// `(line, is_context)` of a content result.
    fn lines(r: &GrepRequest) -> Vec<(u64, bool)> {
        run(r).lines.unwrap().iter().map(|l| (l.line, l.is_context)).collect()
    }

    #[test]
    fn files_with_matches_table() {
        let cases: &[(GrepRequest, &[&str])] = &[
            (req("foo", "/w/src"), &["/w/src/lib.rs", "/w/src/main.rs"]),
            (req("foo.*bar", "/w"), &["/w/docs/readme.md", "/w/src/main.rs"]),
            (GrepRequest { fixed: true, ..req("foo.*bar", "/w") }, &["/w/src/main.rs"]),
            (
                GrepRequest { case_insensitive: true, ..req("foo", "/w/src") },
                &["/w/src/lib.rs", "/w/src/main.rs", "/w/src/nested/deep.rs"],
            ),
            (req("(?i)^# foo$", "/w"), &["/w/docs/readme.md"]),
            (req(r"\bfn\b", "/w"), &["/w/src/lib.rs", "/w/src/main.rs"]),
            (req("zzz", "/w"), &[]),
            // Invalid UTF-8 (not binary) is searched; the NUL file is not.
            (req("caf", "/w"), &["/w/latin1.txt"]),
            // As in ripgrep, `.` matches a UTF-8 character, never an invalid byte.
            (req("caf.", "/w"), &[]),
            (req("bar", "/w"), &["/w/crlf.txt", "/w/docs/readme.md", "/w/src/main.rs"]),
            // A file path searches that file only.
            (req("foo", "/w/src/lib.rs"), &["/w/src/lib.rs"]),
            (req("nope", "/w/src/lib.rs"), &[]),
            // Last line without a newline; empty files never match, even `^`.
            (req("^foo$", "/w/no-newline.txt"), &["/w/no-newline.txt"]),
            (req("", "/w/empty.txt"), &[]),
            (req("^", "/w/empty.txt"), &[]),
        ];
        for (r, want) in cases {
            assert_eq!(files(r), *want, "{r:?}");
        }
    }

    #[test]
    fn regex_versus_fixed_in_content() {
        let regex = run(&content("foo.*bar", "/w/src/main.rs")).lines.unwrap();
        let fixed = run(&GrepRequest { fixed: true, ..content("foo.*bar", "/w/src/main.rs") })
            .lines
            .unwrap();
        assert_eq!(regex.iter().map(|l| l.line).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(fixed.iter().map(|l| l.line).collect::<Vec<_>>(), vec![3]);
        assert_eq!(fixed[0].text, "    println!(\"foo.*bar\");");
        assert!(!fixed[0].is_context);
    }

    #[test]
    fn line_semantics_like_ripgrep() {
        // `\s` and negated classes do not cross lines; `$` before "\r\n" does not match.
        let cases: &[(&str, &str, &[u64])] = &[
            (r"and\s*bar", "/w/docs/readme.md", &[2]),
            (r"foo\s*bar", "/w/docs/readme.md", &[]),
            (r"[^x]+", "/w/docs/readme.md", &[1, 2]),
            (r"let.*\s*println", "/w/src/main.rs", &[]),
            ("foo$", "/w/crlf.txt", &[]),
            (r"foo\$", "/w/crlf.txt", &[3]),
            ("foo\r$", "/w/crlf.txt", &[1]),
            ("^bar", "/w/crlf.txt", &[2]),
            ("", "/w/ctx.txt", &(1..=20).collect::<Vec<_>>()),
            ("x*", "/w/no-newline.txt", &[1, 2]),
            ("^", "/w/no-newline.txt", &[1, 2]),
            ("$", "/w/docs/readme.md", &[1, 2]),
            ("^$", "/w/docs/readme.md", &[]),
            (r"l1\d", "/w/ctx.txt", &(10..=19).collect::<Vec<_>>()),
        ];
        for (pattern, path, want) in cases {
            let got: Vec<u64> =
                lines(&content(pattern, path)).into_iter().map(|(n, _)| n).collect();
            assert_eq!(got, *want, "{pattern:?} in {path}");
        }
        // Text drops the "\r".
        let r = run(&content("^foo", "/w/crlf.txt")).lines.unwrap();
        assert_eq!(r.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(), vec!["foo", "foo$"]);
    }

    #[test]
    fn literal_newline_needs_multiline() {
        let e = run_err(&req("bar\\nfoo", "/w"));
        assert_eq!(e.kind(), ErrorKind::InvalidPattern);
        assert!(e.message().contains("multiline=true"), "{e}");
        let e = run_err(&GrepRequest { fixed: true, ..req("a\nb", "/w") });
        assert_eq!(e.kind(), ErrorKind::InvalidPattern);
    }

    #[test]
    fn multiline_reports_every_touched_line() {
        let m = |p: &str, path: &str| lines(&GrepRequest { multiline: true, ..content(p, path) });
        assert_eq!(m(r"let foo.*\n.*println", "/w/src/main.rs"), vec![(2, false), (3, false)]);
        // `.` crosses lines too: greedy up to the last "bar" of the file.
        assert_eq!(m(r"main.*bar", "/w/src/main.rs"), vec![(1, false), (2, false), (3, false)]);
        assert_eq!(m(r"l3\nl4\nl5", "/w/ctx.txt"), vec![(3, false), (4, false), (5, false)]);
        // A match ending with the '\n' of its line touches that line only.
        assert_eq!(m(r"^l7\n", "/w/ctx.txt"), vec![(7, false)]);
        // A match starting at a line's '\n' touches that line and the next.
        assert_eq!(m(r"\nl9", "/w/ctx.txt"), vec![(8, false), (9, false)]);
        // Two matches on one line report it once; per-line anchors still work.
        assert_eq!(m(r"o", "/w/docs/readme.md"), vec![(1, false), (2, false)]);
        assert_eq!(m(r"^l2$", "/w/ctx.txt"), vec![(2, false)]);
        assert_eq!(m(r"", "/w/empty.txt"), vec![]);
        // Multiline context and counting.
        let r =
            run(&GrepRequest { multiline: true, context: 1, ..content(r"^l3\nl4", "/w/ctx.txt") });
        assert_eq!(
            render(&r),
            "/w/ctx.txt-2-l2\n/w/ctx.txt:3:l3\n/w/ctx.txt:4:l4\n/w/ctx.txt-5-l5\n"
        );
        let c = run(&GrepRequest {
            multiline: true,
            output_mode: OutputMode::Count,
            ..req(r"\d\nl1", "/w/ctx.txt")
        });
        // "l9\nl10", "l10\nl11", ... "l18\nl19": lines 9 to 19.
        assert_eq!(c.total_matches, Some(11));
        assert!(
            run(&GrepRequest { multiline: true, ..req("foo\\n\\}", "/w/src") })
                .files
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            run(&GrepRequest { multiline: true, ..req("\\);\\n\\}", "/w/src") }).files.unwrap(),
            vec!["/w/src/main.rs"]
        );
    }

    #[test]
    fn context_clipping_and_merging() {
        let ctx = |p: &str, before: usize, after: usize, context: usize| {
            run(&GrepRequest { before, after, context, ..content(p, "/w/ctx.txt") })
        };
        // Clipped at the start and the end of the file.
        let r = ctx("^l(1|20)$", 2, 2, 0);
        assert_eq!(
            render(&r),
            "/w/ctx.txt:1:l1\n/w/ctx.txt-2-l2\n/w/ctx.txt-3-l3\n--\n\
             /w/ctx.txt-18-l18\n/w/ctx.txt-19-l19\n/w/ctx.txt:20:l20\n"
        );
        // Overlapping groups merge; distant ones get a separator.
        let r = ctx("^l(5|7|15)$", 0, 0, 2);
        assert_eq!(
            render(&r),
            "/w/ctx.txt-3-l3\n/w/ctx.txt-4-l4\n/w/ctx.txt:5:l5\n/w/ctx.txt-6-l6\n/w/ctx.txt:7:l7\n\
             /w/ctx.txt-8-l8\n/w/ctx.txt-9-l9\n--\n\
             /w/ctx.txt-13-l13\n/w/ctx.txt-14-l14\n/w/ctx.txt:15:l15\n/w/ctx.txt-16-l16\n/w/ctx.txt-17-l17\n"
        );
        // Adjacent (touching) groups merge without a separator.
        let r = ctx("^l(2|5)$", 0, 2, 0);
        assert_eq!(
            render(&r),
            "/w/ctx.txt:2:l2\n/w/ctx.txt-3-l3\n/w/ctx.txt-4-l4\n/w/ctx.txt:5:l5\n/w/ctx.txt-6-l6\n/w/ctx.txt-7-l7\n"
        );
        // before only / after only; explicit values win over `context`.
        assert_eq!(
            lines(&GrepRequest { before: 1, ..content("^l10$", "/w/ctx.txt") }),
            vec![(9, true), (10, false)]
        );
        assert_eq!(
            lines(&GrepRequest { after: 1, ..content("^l10$", "/w/ctx.txt") }),
            vec![(10, false), (11, true)]
        );
        assert_eq!(
            lines(&GrepRequest { before: 1, context: 3, ..content("^l10$", "/w/ctx.txt") }),
            vec![(9, true), (10, false), (11, true), (12, true), (13, true)]
        );
        // Consecutive matches are all match lines; huge context is clipped.
        let all = lines(&GrepRequest { context: usize::MAX, ..content("^l[23]$", "/w/ctx.txt") });
        assert_eq!(all.len(), 20);
        assert_eq!(&all[..4], &[(1, true), (2, false), (3, false), (4, true)]);
        assert_eq!(
            lines(&GrepRequest { context: 1000, ..content("^foo$", "/w/no-newline.txt") }),
            vec![(1, true), (2, false)]
        );
        // Context does not produce an extra empty line after a final newline.
        assert_eq!(
            lines(&GrepRequest { after: 5, ..content("^l20$", "/w/ctx.txt") }),
            vec![(20, false)]
        );
        // No context: no separators even between distant lines.
        assert_eq!(render(&ctx("^l(1|9)$", 0, 0, 0)), "/w/ctx.txt:1:l1\n/w/ctx.txt:9:l9\n");
    }

    #[test]
    fn separators_between_files_with_context() {
        let r = run(&GrepRequest { context: 1, ..content("^fn|^# Foo", "/w") });
        assert_eq!(
            render(&r),
            "/w/docs/readme.md:1:# Foo\n/w/docs/readme.md-2-foo and bar\n--\n\
             /w/src/main.rs:1:fn main() {\n/w/src/main.rs-2-    let foo = bar();\n"
        );
    }

    #[test]
    fn count_mode() {
        let r = run(&GrepRequest {
            output_mode: OutputMode::Count,
            case_insensitive: true,
            ..req("foo", "/w")
        });
        let counts: Vec<(String, u64)> =
            r.counts.clone().unwrap().into_iter().map(|c| (c.path, c.count)).collect();
        assert_eq!(
            counts,
            vec![
                ("/w/crlf.txt".to_string(), 2),
                ("/w/docs/readme.md".to_string(), 2),
                ("/w/latin1.txt".to_string(), 1),
                ("/w/no-newline.txt".to_string(), 1),
                ("/w/src/lib.rs".to_string(), 2),
                ("/w/src/main.rs".to_string(), 2),
                ("/w/src/nested/deep.rs".to_string(), 1),
            ]
        );
        assert_eq!(r.total_matches, Some(11));
        assert_eq!(r.files_matched, 7);
        assert_eq!(r.files_skipped_binary, 1);
        assert_eq!(r.total_records, Some(7));
        assert!(r.files.is_none() && r.lines.is_none());
        let text = render(&r);
        assert!(text.starts_with("/w/crlf.txt:2\n/w/docs/readme.md:2\n"), "{text}");
        assert!(text.ends_with("[total: 11 matching lines in 7 files]\n"), "{text}");
        // Counting lines, not matches: four matches on two lines count 2.
        let r =
            run(&GrepRequest { output_mode: OutputMode::Count, ..req("o", "/w/docs/readme.md") });
        assert_eq!(r.counts.unwrap()[0].count, 2);
        // Totals cover every file even when the page is cut.
        let r = run(&GrepRequest {
            output_mode: OutputMode::Count,
            case_insensitive: true,
            head_limit: 2,
            offset: 1,
            ..req("foo", "/w")
        });
        assert_eq!(r.counts.as_ref().unwrap().len(), 2);
        assert_eq!(r.counts.as_ref().unwrap()[0].path, "/w/docs/readme.md");
        assert_eq!(
            (r.total_matches, r.truncated, r.next_offset, r.complete),
            (Some(11), true, Some(3), true)
        );
    }

    #[test]
    fn paging_files_and_lines() {
        // Files: 7 match "(?i)foo"; pages of 3.
        let all = files(&GrepRequest { case_insensitive: true, ..req("foo", "/w") });
        assert_eq!(all.len(), 7);
        let mut got = Vec::new();
        let mut offset = 0;
        loop {
            let r = run(&GrepRequest {
                case_insensitive: true,
                head_limit: 3,
                offset,
                ..req("foo", "/w")
            });
            got.extend(r.files.clone().unwrap());
            if !r.truncated {
                assert_eq!(r.next_offset, None);
                assert!(r.complete);
                break;
            }
            assert!(!r.complete);
            assert_eq!(r.next_offset, Some(offset + 3));
            assert!(render(&r).contains(&format!("offset={}", offset + 3)), "{}", render(&r));
            offset = r.next_offset.unwrap();
        }
        assert_eq!(got, all);

        // Lines: paging cuts through context groups, records are lines.
        let base = GrepRequest { context: 1, ..content("^l(5|15)$", "/w/ctx.txt") };
        let r = run(&GrepRequest { head_limit: 4, ..base.clone() });
        assert_eq!(
            r.lines.as_ref().unwrap().iter().map(|l| l.line).collect::<Vec<_>>(),
            vec![4, 5, 6, 14]
        );
        assert_eq!((r.truncated, r.next_offset), (true, Some(4)));
        assert_eq!(
            render(&r),
            "/w/ctx.txt-4-l4\n/w/ctx.txt:5:l5\n/w/ctx.txt-6-l6\n--\n/w/ctx.txt-14-l14\n\
             [more results: showing 4 lines from offset 0; call again with offset=4 for the next page]\n"
        );
        let r = run(&GrepRequest { head_limit: 4, offset: 4, ..base.clone() });
        assert_eq!(
            r.lines.as_ref().unwrap().iter().map(|l| l.line).collect::<Vec<_>>(),
            vec![15, 16]
        );
        assert_eq!((r.truncated, r.next_offset, r.total_records), (false, None, Some(6)));
        // Past the end.
        let r = run(&GrepRequest { offset: 50, ..base.clone() });
        assert!(r.lines.as_ref().unwrap().is_empty());
        assert_eq!(
            render(&r),
            "No results at offset 50: there are 6 results in all; use a smaller offset\n"
        );
        // head_limit 0 means "as many as the session allows".
        let r = run(&GrepRequest { head_limit: 0, ..content("", "/w/ctx.txt") });
        assert_eq!(r.lines.unwrap().len(), 20);
        // The session's record cap bounds every page.
        let limits = Limits { grep_records: 5, ..Limits::default() };
        let r =
            grep(&table(), &limits, &GrepRequest { head_limit: 0, ..content("", "/w/ctx.txt") })
                .unwrap();
        assert_eq!((r.lines.unwrap().len(), r.truncated, r.next_offset), (5, true, Some(5)));
    }

    #[test]
    fn glob_and_type_filters() {
        let cases: &[(Option<&str>, Option<&str>, &[&str])] = &[
            (Some("*.rs"), None, &["/w/src/lib.rs", "/w/src/main.rs", "/w/src/nested/deep.rs"]),
            (Some("src/*.rs"), None, &["/w/src/lib.rs", "/w/src/main.rs"]),
            (
                Some("*.{md,txt}"),
                None,
                &["/w/crlf.txt", "/w/docs/readme.md", "/w/latin1.txt", "/w/no-newline.txt"],
            ),
            (Some("/w/docs/*"), None, &["/w/docs/readme.md"]),
            (None, Some("rust"), &["/w/src/lib.rs", "/w/src/main.rs", "/w/src/nested/deep.rs"]),
            (None, Some("md"), &["/w/docs/readme.md"]),
            (
                None,
                Some("rust,md"),
                &["/w/docs/readme.md", "/w/src/lib.rs", "/w/src/main.rs", "/w/src/nested/deep.rs"],
            ),
            (Some("nested/**"), Some("rust"), &[]),
            (Some("src/nested/**"), Some("rust"), &["/w/src/nested/deep.rs"]),
        ];
        for (glob, ty, want) in cases {
            let r = GrepRequest {
                glob: glob.map(String::from),
                file_type: ty.map(String::from),
                case_insensitive: true,
                ..req("foo", "/w")
            };
            assert_eq!(files(&r), *want, "glob {glob:?} type {ty:?}");
        }
        let e = run_err(&GrepRequest { file_type: Some("klingon".into()), ..req("foo", "/w") });
        assert_eq!(e.kind(), ErrorKind::InvalidArgument);
        assert!(e.message().contains("known types:") && e.message().contains("rust"), "{e}");
        let e = run_err(&GrepRequest { glob: Some("{a".into()), ..req("foo", "/w") });
        assert_eq!(e.kind(), ErrorKind::InvalidPattern);
        assert!(e.message().contains("'{a'"), "{e}");
    }

    #[test]
    fn no_files_versus_no_lines() {
        // Nothing passes the glob.
        let r = run(&GrepRequest { glob: Some("*.zig".into()), ..req("foo", "/w") });
        assert_eq!((r.files_considered, r.files_searched, r.files_matched), (0, 0, 0));
        assert_eq!(render(&r), "No files matched the glob '*.zig' under /w\n");
        let r = run(&GrepRequest { file_type: Some("py".into()), ..req("foo", "/w") });
        assert_eq!(render(&r), "No files matched the type 'py' under /w\n");
        let r = run(&GrepRequest {
            glob: Some("nope/**".into()),
            file_type: Some("py".into()),
            ..req("foo", "/w")
        });
        assert_eq!(render(&r), "No files matched the glob 'nope/**' and type 'py' under /w\n");
        // Files searched, no line matched.
        let r = run(&GrepRequest { glob: Some("*.rs".into()), ..req("zzz", "/w") });
        assert_eq!((r.files_considered, r.files_searched, r.files_matched), (3, 3, 0));
        assert_eq!(
            render(&r),
            "No matches for pattern 'zzz' in 3 files matching the glob '*.rs' under /w\n"
        );
        let r = run(&req("zzz", "/w/docs"));
        assert_eq!(render(&r), "No matches for pattern 'zzz' in 2 files under /w/docs\n");
        let r = run(&req("zzz", "/w"));
        assert_eq!(r.files_skipped_binary, 1);
        assert_eq!(
            render(&r),
            "No matches for pattern 'zzz' in 10 files under /w (1 file skipped as binary)\n"
        );
        // Only a binary file.
        let r = run(&req("foo", "/w/bin.dat"));
        assert_eq!((r.files_considered, r.files_searched, r.files_skipped_binary), (1, 0, 1));
        assert_eq!(render(&r), "No files searched under /w/bin.dat: 1 file skipped as binary\n");
        // Same in JSON.
        let j = serde_json::to_value(run(&GrepRequest {
            glob: Some("*.zig".into()),
            ..req("foo", "/w")
        }))
        .unwrap();
        assert_eq!(j["files_considered"], 0);
        assert_eq!(j["files"], serde_json::json!([]));
    }

    #[test]
    fn binary_and_invalid_utf8() {
        let r = run(&content("foo", "/w"));
        let paths: Vec<&str> = r.lines.as_ref().unwrap().iter().map(|l| l.path.as_str()).collect();
        assert!(!paths.contains(&"/w/bin.dat"));
        let latin = r.lines.as_ref().unwrap().iter().find(|l| l.path == "/w/latin1.txt").unwrap();
        assert_eq!(latin.text, "caf\u{FFFD} foo");
        assert_eq!(latin.line, 1);
        // A byte pattern can match the invalid byte itself.
        assert_eq!(files(&req(r"(?-u:\xE9)", "/w")), vec!["/w/latin1.txt"]);
    }

    #[test]
    fn too_large_files_are_skipped_and_counted() {
        let limits = Limits { file_bytes: 40, ..Limits::default() };
        let r = grep(
            &table(),
            &limits,
            &GrepRequest { case_insensitive: true, ..req("foo", "/w/src") },
        )
        .unwrap();
        assert_eq!(r.files.as_deref().unwrap(), &["/w/src/lib.rs", "/w/src/nested/deep.rs"]);
        assert_eq!(r.files_skipped_too_large, 1);
        assert!(render(&r).ends_with("[1 file was too large to search]\n"), "{}", render(&r));
        let r = grep(&table(), &limits, &req("zzz", "/w/src")).unwrap();
        assert_eq!(
            render(&r),
            "No matches for pattern 'zzz' in 2 files under /w/src (1 file skipped as too large)\n"
        );
    }

    #[test]
    fn long_lines_are_cut() {
        let v = MemoryVolume::new();
        v.insert("/long.txt", format!("{}needle{}\n", "a".repeat(3000), "é".repeat(10)));
        let mut t = MountTable::new();
        t.add("/", Box::new(v), 0, false).unwrap();
        let r = grep(&t, &Limits::default(), &content("needle", "/")).unwrap();
        let text = &r.lines.unwrap()[0].text;
        assert!(text.starts_with(&"a".repeat(MAX_LINE_CHARS)));
        assert!(text.ends_with(" … [line cut: 3016 characters]"), "{}", &text[text.len() - 40..]);
    }

    #[test]
    fn pattern_errors() {
        let e = run_err(&req("foo(", "/w"));
        assert_eq!(e.kind(), ErrorKind::InvalidPattern);
        assert!(e.message().contains("unclosed group"), "{e}");
        let e = run_err(&req("a{2,1}", "/w"));
        assert_eq!(e.kind(), ErrorKind::InvalidPattern);
        // Too large for the compiled-size limit, at the default and at a small limit.
        let e = run_err(&req(r"\w{10000}", "/w"));
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        assert!(
            e.message().contains("too large")
                && e.message().contains(&crate::vfs::limits::MAX_REGEX_BYTES.to_string()),
            "{e}"
        );
        let small = Limits { regex_bytes: 1000, ..Limits::default() };
        let e = grep(&table(), &small, &req(r"\w{50}", "/w")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        assert!(e.message().contains("regex_bytes limit of 1000 bytes"), "{e}");
        // Over the pattern length limit.
        let e = run_err(&req(&"a".repeat(MAX_PATTERN_BYTES + 1), "/w"));
        assert_eq!(e.kind(), ErrorKind::InvalidPattern);
        // `fixed` makes any text valid.
        assert!(files(&GrepRequest { fixed: true, ..req("foo((", "/w") }).is_empty());
    }

    #[test]
    fn path_handling() {
        assert_eq!(run_err(&req("foo", "/w/nope")).kind(), ErrorKind::NotFound);
        assert_eq!(run_err(&req("foo", "/nowhere")).kind(), ErrorKind::NotFound);
        assert_eq!(run_err(&req("foo", "/..")).kind(), ErrorKind::InvalidPath);
        assert_eq!(run(&req("foo", "w/src/")).path, "/w/src");
        // A single file ignores the filters, as ripgrep does for named files.
        let r = run(&GrepRequest { glob: Some("*.md".into()), ..req("foo", "/w/src/lib.rs") });
        assert_eq!(r.files.unwrap(), vec!["/w/src/lib.rs"]);
        // A glob directory that does not exist: nothing to search, not an error.
        let r = run(&GrepRequest { glob: Some("missing/*.rs".into()), ..req("foo", "/w") });
        assert_eq!(r.files_considered, 0);
    }

    #[test]
    fn request_json_contract() {
        let r: GrepRequest =
            crate::ops::request::decode("filestore_grep", &serde_json::json!({"pattern": "x"}))
                .unwrap();
        assert_eq!(r.path, "/");
        assert_eq!(r.output_mode, OutputMode::FilesWithMatches);
        assert_eq!((r.head_limit, r.offset, r.before, r.after, r.context), (250, 0, 0, 0, 0));
        assert!(
            !r.fixed
                && !r.case_insensitive
                && !r.multiline
                && r.glob.is_none()
                && r.file_type.is_none()
        );
        let r: GrepRequest = crate::ops::request::decode(
            "filestore_grep",
            &serde_json::json!({
                "pattern": "x", "path": "/w", "glob": "*.rs", "type": "rust", "fixed": true,
                "case_insensitive": true, "multiline": true, "before": 1, "after": 2, "context": 3,
                "output_mode": "count", "head_limit": 5, "offset": 6
            }),
        )
        .unwrap();
        assert_eq!(r.file_type.as_deref(), Some("rust"));
        assert_eq!(r.output_mode, OutputMode::Count);
        for bad in [
            serde_json::json!({"pattern": "x", "output_mode": "lines"}),
            serde_json::json!({"pattern": "x", "file_type": "rust"}),
            serde_json::json!({"pattern": "x", "-A": 1}),
        ] {
            let e = crate::ops::request::decode::<GrepRequest>("filestore_grep", &bad).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::InvalidArgument, "{bad}");
        }
        let j = serde_json::to_value(run(&content("^fn", "/w/src"))).unwrap();
        assert_eq!(j["output_mode"], "content");
        assert_eq!(
            j["lines"][0],
            serde_json::json!({"path": "/w/src/main.rs", "line": 1, "text": "fn main() {", "is_context": false})
        );
        assert!(j.get("files").is_none() && j.get("counts").is_none());
        let j = serde_json::to_value(run(&req("fn main", "/w"))).unwrap();
        assert_eq!(j["files"][0], "/w/src/main.rs");
        assert_eq!(OutputMode::Count.as_str(), "count");
    }
}
