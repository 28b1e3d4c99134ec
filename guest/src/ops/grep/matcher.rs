//! The pattern and the buffer: compiling the agent's pattern with ripgrep's line
//! semantics, and finding matching lines in a whole file buffer without splitting it.

use std::ops::ControlFlow;

use memchr::{memchr, memchr_iter, memrchr};
use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind,
};

use super::{COMPILED_NEST_LIMIT, GrepRequest};
use crate::error::{Error, ErrorKind, Result};
use crate::vfs::limits::{Limits, MAX_PATTERN_BYTES};

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
pub(super) fn strip_newline(hir: Hir) -> Option<Hir> {
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
pub(super) fn past_last_line(buf: &[u8], pos: usize) -> bool {
    pos == buf.len() && buf.last().is_none_or(|&b| b == b'\n')
}

/// End of the line starting at `start` (the index of its `\n`, or the buffer's end).
pub(super) fn line_end(buf: &[u8], start: usize) -> usize {
    memchr(b'\n', &buf[start..]).map_or(buf.len(), |i| start + i)
}

pub(super) fn count_newlines(bytes: &[u8]) -> u64 {
    memchr_iter(b'\n', bytes).count() as u64
}

/// Whether any line of `buf` matches.
pub(super) fn has_match(re: &Regex, buf: &[u8], multiline: bool) -> bool {
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
pub(crate) fn for_each_match_line(
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
