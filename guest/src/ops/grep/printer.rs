//! Content-mode records of one file: matching lines with their before/after context,
//! clipped at the file's edges, never repeated, long lines cut.

use std::ops::ControlFlow;

use memchr::memrchr;

use super::matcher::line_end;
use super::{Admit, GrepLine, Pager};
use crate::vfs::limits::MAX_LINE_CHARS;

/// The text of the line starting at `start`: terminator and a trailing `\r` removed,
/// decoded lossily, cut after [`MAX_LINE_CHARS`] characters.
pub(super) fn line_text(buf: &[u8], start: usize) -> String {
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

/// Emits content-mode records for one file: matching lines with their context,
/// context clipped at the file's edges and never repeated.
pub(super) struct ContentPrinter<'a> {
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
    pub(super) fn new(
        buf: &'a [u8],
        path: &'a str,
        before: usize,
        after: usize,
    ) -> ContentPrinter<'a> {
        ContentPrinter { buf, path, before, after, next_line: 1, next_start: 0, after_left: 0 }
    }

    pub(super) fn emit(
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

    pub(super) fn on_match(
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

    pub(super) fn finish(&mut self, pager: &mut Pager, out: &mut Vec<GrepLine>) -> ControlFlow<()> {
        self.flush_after(u64::MAX, pager, out)
    }
}
