//! `filestore_read`: line-oriented paging through a file
//! (docs/architecture.md#filestore_read).
//!
//! The file is fetched from its volume in chunks ([`CHUNK_BYTES`]), never whole, so a
//! 1 GiB file costs one page of memory. Reaching line `offset` means scanning the bytes
//! before it; the line count of files up to [`COUNT_LINES_MAX_BYTES`] is completed on
//! every page so the agent knows how far it is, while larger files report the total
//! only once a page reaches their end.
//!
//! It stays above 800 lines because line pages, tails, byte pages, PDF text and raw
//! reads answer one request with one result shape over one chunked fetch; the unit
//! tests are `read/tests.rs`.

use serde::{Deserialize, Serialize};

use crate::error::{Error, ErrorKind, Result};
use crate::vfs::entry::Entry;
use crate::vfs::limits::{DEFAULT_READ_LINES, Limits, MAX_LINE_CHARS};
use crate::vfs::mounts::{MountTable, Resolved};
use crate::vfs::paths;

/// Bytes fetched from the volume per boundary crossing.
pub const CHUNK_BYTES: u64 = 256 * 1024;
/// Files up to this size have their lines counted on every page.
pub const COUNT_LINES_MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Bytes inspected for a NUL when deciding whether a file is binary.
pub const BINARY_SNIFF_BYTES: u64 = 8 * 1024;

/// Most files one `filestore_read` with `paths` reads (the session runs each as
/// its own read).
pub const MAX_READ_PATHS: usize = 32;

/// Parameters of `filestore_read`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadRequest {
    /// The file to read.
    pub path: String,
    /// First line to return, 1-based.
    #[serde(default = "one")]
    pub offset: u64,
    /// Number of lines to return.
    #[serde(default = "default_limit")]
    pub limit: u64,
    /// Return the stored content untouched (no numbering, cutting or paging).
    #[serde(default)]
    pub raw: bool,
    /// Return the last `tail` lines (a log's end) instead of paging from `offset`.
    #[serde(default)]
    pub tail: Option<u64>,
    /// How the content is returned: numbered text lines (the default) or `base64`
    /// bytes, paged by `byte_offset`/`max_bytes` (downloads, binary files).
    #[serde(default)]
    pub encoding: Encoding,
    /// First byte of a `base64` page.
    #[serde(default)]
    pub byte_offset: u64,
    /// Most bytes in a `base64` page (default [`DEFAULT_BYTE_PAGE`], at most the
    /// session's page limit).
    #[serde(default)]
    pub max_bytes: Option<u64>,
    /// The pages of a PDF to read as text (`"3"`, `"2-5"`, `"1,4-6"`, `"7-"`); a PDF
    /// read without it starts at page 1 (see [`super::pdf`]).
    #[serde(default)]
    pub pages: Option<String>,
    /// Which pages of a PDF are drawn as PNG images: `auto` (those without text, the
    /// default), `all`, `none` (see [`super::pdf_render`]).
    #[serde(default)]
    pub render: Option<super::pdf_render::RenderMode>,
}

/// How file content travels in a JSON argument or result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Encoding {
    /// Text: the content is the file's UTF-8.
    #[default]
    #[serde(rename = "utf-8", alias = "utf8")]
    Utf8,
    /// Bytes: the content is their standard base64 (RFC 4648, with padding).
    #[serde(rename = "base64")]
    Base64,
}

/// Bytes in a `base64` read page unless `max_bytes` says otherwise: big enough that a
/// download takes few calls, small enough for one JSON message.
pub const DEFAULT_BYTE_PAGE: u64 = 1024 * 1024;

fn one() -> u64 {
    1
}
fn default_limit() -> u64 {
    DEFAULT_READ_LINES as u64
}

/// What a read found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReadContent {
    /// UTF-8 text: `text` holds numbered lines.
    Text,
    /// The file has no bytes.
    Empty,
    /// NUL byte or invalid UTF-8: content not returned.
    Binary,
    /// `raw=true`: `text` is the stored content.
    Raw,
    /// `encoding=base64`: `text` is the base64 of the bytes from `byte_offset`.
    Base64,
    /// A PDF: `text` holds its pages' text, page by page, and `pdf` says which.
    Pdf,
}

/// Result of `filestore_read`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReadResult {
    /// The file.
    pub entry: Entry,
    /// Content kind.
    pub content: ReadContent,
    /// Numbered lines (`%6d\t` + line + `\n`), or the raw content.
    pub text: String,
    /// Lines in the file when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_lines: Option<u64>,
    /// First line returned (1-based; 0 when none).
    pub start_line: u64,
    /// Last line returned (0 when none).
    pub end_line: u64,
    /// Where the next page starts; absent at the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
    /// Whether the page stopped before the end of the file.
    pub truncated: bool,
    /// Why the page stopped early (`limit`, `tokens`, `bytes`), when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated_by: Option<String>,
    /// Lines cut at [`MAX_LINE_CHARS`] on this page.
    pub cut_lines: u32,
    /// Lines on this page with bytes that are not valid UTF-8 (a Latin-1 source file,
    /// say), shown with U+FFFD in their place.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub lossy_lines: u32,
    /// Whether the file's last byte is a newline: present when the read went through
    /// to the end of the file (every page of a file under the line-count limit, the
    /// last page otherwise, a raw read), so an edit of the last line can be written
    /// exactly; absent for empty and binary files, which have no last line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_with_newline: Option<bool>,
    /// First byte of a `base64` page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_offset: Option<u64>,
    /// Bytes in a `base64` page (before encoding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Where the next `base64` page starts; absent at the end of the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_byte_offset: Option<u64>,
    /// A PDF's pages read (`content: pdf`): the page count, each page's text, and
    /// where to go on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdf: Option<super::pdf::PdfPages>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Streams a file's bytes from its volume in chunks.
struct Chunks<'a> {
    file: &'a Resolved<'a>,
    /// Bytes already fetched from offset 0 (with the entry, see
    /// [`MountTable::resolve_file_head`]), handed out as the first chunk.
    first: Option<Vec<u8>>,
    pos: u64,
    size: u64,
    path: &'a str,
}

impl Chunks<'_> {
    fn next_chunk(&mut self) -> Result<Option<Vec<u8>>> {
        if let Some(first) = self.first.take() {
            if first.is_empty() {
                // The file shrank under us: treat as its end.
                self.size = 0;
                return Ok(None);
            }
            self.pos = first.len() as u64;
            return Ok(Some(first));
        }
        if self.pos >= self.size {
            return Ok(None);
        }
        let data = self
            .file
            .mount
            .volume
            .read(&self.file.rel, self.pos, CHUNK_BYTES)
            .map_err(|e| e.with_path(self.path))?;
        if data.is_empty() {
            // The file shrank under us: treat as its end.
            self.size = self.pos;
            return Ok(None);
        }
        self.pos += data.len() as u64;
        Ok(Some(data))
    }
}

/// Reads one page of a file.
pub fn read(mounts: &MountTable, limits: &Limits, req: &ReadRequest) -> Result<ReadResult> {
    // `render: "none"` and `"auto"` (the default, which clients that fill in
    // schema defaults send with every read) ask nothing of a file without pages, so
    // only `"all"` is PDF-only.
    let pdf_option = match (&req.pages, &req.render) {
        (Some(_), _) => Some("pages"),
        (None, Some(super::pdf_render::RenderMode::All)) => Some("render"),
        (None, _) => None,
    };
    if let Some(name) = pdf_option
        && (req.encoding == Encoding::Base64 || req.raw || req.tail.is_some())
    {
        return Err(Error::invalid_argument(
            name,
            format!("{name} reads a PDF's pages; it does not combine with encoding, raw or tail"),
        ));
    }
    if req.encoding == Encoding::Base64 {
        return read_bytes(mounts, limits, req);
    }
    if req.byte_offset != 0 || req.max_bytes.is_some() {
        return Err(Error::invalid_argument(
            "byte_offset",
            "byte_offset and max_bytes page a base64 read; pass encoding: \"base64\" (text reads page by offset/limit in lines)",
        ));
    }
    if let Some(n) = req.tail {
        return read_tail(mounts, limits, req, n);
    }
    let path = paths::normalize(&req.path)?;
    check_line_window(req)?;
    // The entry and the first chunk in one volume call (a small file is then read
    // whole); a raw read takes the whole file in its own call.
    let (file, first) = if req.raw {
        (mounts.resolve_file(&path)?, Vec::new())
    } else {
        mounts.resolve_file_head(&path, CHUNK_BYTES)?
    };
    let result = text_result(file.entry.clone());
    if req.raw {
        return read_raw(&file, &path, limits, result);
    }
    if super::pdf::is_pdf(&first) {
        return read_pdf(&file, &path, limits, req, result);
    }
    if let Some(name) = pdf_option {
        return Err(Error::invalid_argument(
            name,
            format!(
                "{path} is not a PDF (it does not start with %PDF-); {name} applies to PDFs only"
            ),
        ));
    }
    read_lines(&file, &path, first, limits, req, result)
}

/// A text read's `offset` (1-based) and `limit` (at least 1).
fn check_line_window(req: &ReadRequest) -> Result<()> {
    if req.offset == 0 {
        return Err(Error::invalid_argument("offset", "lines are numbered from 1; got 0"));
    }
    if req.limit == 0 {
        return Err(Error::invalid_argument("limit", "must be at least 1"));
    }
    Ok(())
}

/// A text result of `entry` with nothing on its page yet.
fn text_result(entry: Entry) -> ReadResult {
    ReadResult {
        entry,
        content: ReadContent::Text,
        text: String::new(),
        total_lines: None,
        start_line: 0,
        end_line: 0,
        next_offset: None,
        truncated: false,
        truncated_by: None,
        cut_lines: 0,
        lossy_lines: 0,
        ends_with_newline: None,
        byte_offset: None,
        bytes: None,
        next_byte_offset: None,
        pdf: None,
    }
}

/// The page of lines `req` asks for, `first` being the file's first chunk: none for an
/// empty or binary file; otherwise from `offset`, at most `limit` lines within the
/// session's token and byte budgets.
fn read_lines(
    file: &Resolved<'_>,
    path: &str,
    first: Vec<u8>,
    limits: &Limits,
    req: &ReadRequest,
    mut result: ReadResult,
) -> Result<ReadResult> {
    let size = file.entry.size;
    if size == 0 {
        // No last byte to be a newline: `ends_with_newline` stays absent (the WIT's
        // `ends-with-newline`: none for empty and binary files).
        result.content = ReadContent::Empty;
        result.total_lines = Some(0);
        return Ok(result);
    }
    let head = &first[..first.len().min(BINARY_SNIFF_BYTES as usize)];
    if is_binary_prefix(head, size <= BINARY_SNIFF_BYTES) {
        result.content = ReadContent::Binary;
        return Ok(result);
    }
    let mut chunks = Chunks { file, first: Some(first), pos: 0, size, path };
    let mut page = TextPage {
        result,
        budget_chars: limits.read_tokens.saturating_mul(4),
        page_bytes: limits.read_page_bytes,
        chars_out: 0,
        bytes_out: 0,
    };
    let mut scan = LineScan::new(req);
    scan.run(&mut chunks, &mut page, size)?;
    let reached_end = chunks.pos >= chunks.size;
    let total = scan.finish(reached_end, &mut page);
    let mut result = page.result;
    result.total_lines = total;
    if reached_end {
        result.ends_with_newline = Some(scan.ended_with_newline);
    }
    if let Some(t) = total {
        if req.offset > t {
            return Err(Error::invalid_argument(
                "offset",
                format!("{path} has {t} lines; offset {} is past the end", req.offset),
            ));
        }
        if result.next_offset.is_some_and(|n| n > t) {
            result.next_offset = None;
            result.truncated_by = None;
        }
    }
    result.truncated = result.next_offset.is_some();
    if result.truncated && result.truncated_by.is_none() {
        result.truncated_by = Some("tokens".into());
    }
    Ok(result)
}

/// A scan of a file's lines, one chunk at a time, putting the wanted ones on a page.
struct LineScan {
    /// The line the cursor is in (1-based).
    line_no: u64,
    /// Kept bytes of the current line (enough to show it cut).
    line_buf: Vec<u8>,
    /// Full length of the current line.
    line_bytes: u64,
    /// Whether the cursor has reached the first wanted line.
    collecting: bool,
    /// Whether the page is full (by `limit` or a budget).
    done_page: bool,
    saw_any: bool,
    ended_with_newline: bool,
    /// The first wanted line and the last.
    offset: u64,
    last_wanted: u64,
}

impl LineScan {
    fn new(req: &ReadRequest) -> LineScan {
        LineScan {
            line_no: 1,
            line_buf: Vec::new(),
            line_bytes: 0,
            collecting: req.offset == 1,
            done_page: false,
            saw_any: false,
            ended_with_newline: false,
            offset: req.offset,
            last_wanted: req.offset.saturating_add(req.limit - 1),
        }
    }

    /// Feeds the file's chunks through until its end, or until the page is done in a
    /// file too large to count all its lines.
    fn run(&mut self, chunks: &mut Chunks<'_>, page: &mut TextPage, size: u64) -> Result<()> {
        let keep = (MAX_LINE_CHARS * 4 + 4) as u64;
        while let Some(chunk) = chunks.next_chunk()? {
            self.saw_any = true;
            let mut rest: &[u8] = &chunk;
            while !rest.is_empty() {
                // memchr: a word at a time (a byte loop in wasm, which has no SIMD here).
                let nl = memchr::memchr(b'\n', rest);
                let (part, complete) = match nl {
                    Some(i) => (&rest[..i], true),
                    None => (rest, false),
                };
                if self.collecting && !self.done_page {
                    let room = keep.saturating_sub(self.line_bytes) as usize;
                    self.line_buf.extend_from_slice(&part[..part.len().min(room)]);
                }
                self.line_bytes += part.len() as u64;
                rest = if complete { &rest[part.len() + 1..] } else { &[] };
                self.ended_with_newline = complete && rest.is_empty();
                if !complete {
                    continue;
                }
                self.end_line(page);
                if self.done_page && size > COUNT_LINES_MAX_BYTES {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// A complete line `line_no` ends here: on the page if wanted and it fits.
    fn end_line(&mut self, page: &mut TextPage) {
        if self.collecting && !self.done_page {
            if !page.emit_line(self.line_no, &self.line_buf, self.line_bytes) {
                self.done_page = true;
                page.result.next_offset = Some(self.line_no);
            } else if self.line_no >= self.last_wanted {
                self.done_page = true;
                page.result.next_offset = Some(self.line_no + 1);
                page.result.truncated_by = Some("limit".into());
            }
        }
        self.line_buf.clear();
        self.line_bytes = 0;
        self.line_no += 1;
        if self.line_no == self.offset {
            self.collecting = true;
        }
    }

    /// The file's line count when the scan reached its end (none otherwise), a last
    /// line without a trailing newline put on the page if wanted.
    fn finish(&mut self, reached_end: bool, page: &mut TextPage) -> Option<u64> {
        if !reached_end {
            return None;
        }
        if self.line_bytes > 0 || (!self.ended_with_newline && self.saw_any && self.line_no == 1) {
            if self.collecting
                && !self.done_page
                && !page.emit_line(self.line_no, &self.line_buf, self.line_bytes)
            {
                self.done_page = true;
                page.result.next_offset = Some(self.line_no);
            }
            Some(self.line_no)
        } else {
            Some(self.line_no - 1)
        }
    }
}

/// A text page being filled, and how much of its token and byte budgets it has spent.
struct TextPage {
    result: ReadResult,
    budget_chars: usize,
    page_bytes: u64,
    chars_out: usize,
    bytes_out: u64,
}

impl TextPage {
    /// Appends one line to the page. Returns `false` (without appending) when the
    /// token or byte budget is spent and at least one line is already on the page.
    fn emit_line(&mut self, line_no: u64, kept: &[u8], full_len: u64) -> bool {
        let result = &mut self.result;
        let mut bytes = kept;
        if bytes.last() == Some(&b'\r') && full_len as usize == kept.len() {
            bytes = &bytes[..bytes.len() - 1];
        }
        let text: std::borrow::Cow<'_, str> = match std::str::from_utf8(bytes) {
            Ok(t) => t.into(),
            // A cut in the middle of a multi-byte character is not invalid UTF-8.
            Err(e) if e.error_len().is_none() && (full_len as usize) > kept.len() => {
                std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("valid prefix").into()
            }
            // Text in another encoding: shown lossily, and the result says so (binary is
            // decided by content, as ripgrep and git do, not by encoding).
            Err(_) => {
                result.lossy_lines += 1;
                String::from_utf8_lossy(bytes)
            }
        };
        let text = text.as_ref();
        let (shown, cut) = cut_line(text, full_len);
        let rendered_len = 7 + shown.chars().count() + 1;
        if result.start_line != 0
            && (self.chars_out + rendered_len > self.budget_chars
                || self.bytes_out + shown.len() as u64 > self.page_bytes)
        {
            result.truncated_by = Some(
                if self.chars_out + rendered_len > self.budget_chars { "tokens" } else { "bytes" }
                    .into(),
            );
            return false;
        }
        if cut {
            result.cut_lines += 1;
        }
        push_numbered(&mut result.text, line_no, &shown);
        self.chars_out += rendered_len;
        self.bytes_out += shown.len() as u64;
        if result.start_line == 0 {
            result.start_line = line_no;
        }
        result.end_line = line_no;
        true
    }
}

/// Appends `{line_no:>6}\t{line}\n` without the formatting machinery (a third of
/// a small read's page in wasm went to `write!`).
fn push_numbered(out: &mut String, line_no: u64, line: &str) {
    let mut digits = [0u8; 20];
    let (mut i, mut n) = (digits.len(), line_no);
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let digits = std::str::from_utf8(&digits[i..]).expect("ASCII digits");
    out.reserve(6 + 1 + line.len() + 1);
    for _ in digits.len()..6 {
        out.push(' ');
    }
    out.push_str(digits);
    out.push('\t');
    out.push_str(line);
    out.push('\n');
}

/// Cuts a line at [`MAX_LINE_CHARS`] characters with a marker saying so.
fn cut_line(text: &str, full_len: u64) -> (std::borrow::Cow<'_, str>, bool) {
    // Fewer bytes than the limit: fewer characters too, no need to count them.
    let at =
        if text.len() <= MAX_LINE_CHARS { None } else { text.char_indices().nth(MAX_LINE_CHARS) };
    match at {
        None if full_len as usize <= text.len() + 1 => (text.into(), false),
        None => (
            format!("{text}… [line cut at {MAX_LINE_CHARS} characters; {full_len} bytes in full]")
                .into(),
            true,
        ),
        Some((i, _)) => (
            format!(
                "{}… [line cut at {MAX_LINE_CHARS} characters; {full_len} bytes in full]",
                &text[..i]
            )
            .into(),
            true,
        ),
    }
}

/// Share of control bytes (other than tab, newline, carriage return, form feed and
/// escape) in a file's first bytes above which it is binary, even without a NUL.
const MAX_CONTROL_SHARE: f64 = 0.3;

/// `tail = n`: the last `n` lines, numbered as in the whole file. The lines are
/// counted in one streaming pass (chunk by chunk, never the whole file in memory),
/// then the page is read as with `offset`.
fn read_tail(
    mounts: &MountTable,
    limits: &Limits,
    req: &ReadRequest,
    n: u64,
) -> Result<ReadResult> {
    if n == 0 {
        return Err(Error::invalid_argument("tail", "must be at least 1"));
    }
    if req.offset != 1 {
        return Err(Error::invalid_argument("tail", "give offset or tail, not both"));
    }
    if req.raw {
        return Err(Error::invalid_argument(
            "tail",
            "raw returns the whole stored content; tail pages by lines",
        ));
    }
    let path = paths::normalize(&req.path)?;
    let file = mounts.resolve_file(&path)?;
    let mut chunks =
        Chunks { file: &file, first: None, pos: 0, size: file.entry.size, path: &path };
    let (mut lines, mut last) = (0u64, b'\n');
    while let Some(chunk) = chunks.next_chunk()? {
        lines += memchr::memchr_iter(b'\n', &chunk).count() as u64;
        if let Some(&b) = chunk.last() {
            last = b;
        }
    }
    if last != b'\n' {
        lines += 1;
    }
    let page = ReadRequest {
        path: req.path.clone(),
        offset: lines.saturating_sub(n) + 1,
        limit: n,
        raw: false,
        tail: None,
        encoding: Encoding::Utf8,
        byte_offset: 0,
        max_bytes: None,
        pages: None,
        render: None,
    };
    read(mounts, limits, &page)
}

/// Whether a file's first bytes say it is binary, by content as ripgrep and git
/// decide it: a NUL byte, or mostly control bytes. Text in another encoding
/// (Latin-1, say) is not binary: it is shown lossily. `whole` says `head` is the whole
/// file (kept for callers; the decision no longer depends on it).
pub fn is_binary_prefix(head: &[u8], whole: bool) -> bool {
    let _ = whole;
    let (nul, control) = control_bytes(head);
    nul || (!head.is_empty() && control as f64 / head.len() as f64 > MAX_CONTROL_SHARE)
}

/// Whether `b` holds a NUL, and how many of its bytes are ASCII controls (below 0x20,
/// or DEL) other than tab, newline, carriage return, form feed and escape. Eight
/// bytes at a time (a byte loop was a tenth of a small read in wasm, which has no
/// SIMD here); proptested against the byte-wise definition.
fn control_bytes(b: &[u8]) -> (bool, usize) {
    let (mut nul, mut count) = (0u64, 0usize);
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let x = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        let low = paths::zero_bytes(x & 0xe0e0_e0e0_e0e0_e0e0);
        let del = paths::bytes_equal(x, 0x7f);
        // Text: no control bytes but newlines (the common word), nothing to count.
        let nl = paths::bytes_equal(x, b'\n');
        if low == nl && del == 0 {
            continue;
        }
        nul |= paths::zero_bytes(x);
        let allowed = nl
            | paths::bytes_equal(x, b'\t')
            | paths::bytes_equal(x, b'\r')
            | paths::bytes_equal(x, 0x0c)
            | paths::bytes_equal(x, 0x1b);
        count += ((low & !allowed) | del).count_ones() as usize;
    }
    for &c in words.remainder() {
        nul |= u64::from(c == 0);
        count +=
            usize::from(c.is_ascii_control() && !matches!(c, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b));
    }
    (nul != 0, count)
}

/// One page of a file's bytes (see [`read_byte_page`]).
#[derive(Debug, Clone)]
pub struct BytePage {
    /// The file.
    pub entry: Entry,
    /// The bytes from `offset`.
    pub data: Vec<u8>,
    /// The first byte's offset.
    pub offset: u64,
    /// Where the next page starts; `None` at the end of the file.
    pub next_offset: Option<u64>,
}

/// Reads up to `max_bytes` (default [`DEFAULT_BYTE_PAGE`], at most the session's
/// page size) of a file's bytes from `offset`: any content (binary, text in any
/// encoding), paged by byte so a file of any size can be downloaded. The typed
/// `read-bytes` answers it as bytes, `encoding: "base64"` as base64; errors name
/// `offset` as the caller's parameter `offset_param`.
pub fn read_byte_page(
    mounts: &MountTable,
    limits: &Limits,
    path: &str,
    (offset, offset_param): (u64, &str),
    max_bytes: Option<u64>,
) -> Result<BytePage> {
    let path = paths::normalize(path)?;
    let page_max = limits.read_page_bytes;
    let max = max_bytes.unwrap_or(DEFAULT_BYTE_PAGE.min(page_max));
    if max == 0 || max > page_max {
        return Err(Error::invalid_argument(
            "max_bytes",
            format!("must be between 1 and {page_max}; got {max}"),
        ));
    }
    let file = mounts.resolve_file(&path)?;
    let size = file.entry.size;
    if offset > size {
        return Err(Error::invalid_argument(
            offset_param,
            format!("{path} has {size} bytes; {offset_param} {offset} is past the end"),
        ));
    }
    let want = max.min(size - offset);
    let data = if want == 0 {
        Vec::new()
    } else {
        file.mount.volume.read(&file.rel, offset, want).map_err(|e| e.with_path(&path))?
    };
    let end = offset + data.len() as u64;
    // A file that shrank under us ends where its bytes ended.
    let more = end < size && !data.is_empty();
    Ok(BytePage { entry: file.entry.clone(), data, offset, next_offset: more.then_some(end) })
}

/// Reads one page of a file's bytes as base64 (see [`read_byte_page`]).
fn read_bytes(mounts: &MountTable, limits: &Limits, req: &ReadRequest) -> Result<ReadResult> {
    use base64::Engine as _;
    paths::normalize(&req.path)?;
    if req.raw || req.tail.is_some() || req.offset != 1 || req.limit != default_limit() {
        return Err(Error::invalid_argument(
            "encoding",
            "a base64 read pages by byte_offset/max_bytes; offset, limit, tail and raw apply to text reads",
        ));
    }
    let offset = (req.byte_offset, "byte_offset");
    let page = read_byte_page(mounts, limits, &req.path, offset, req.max_bytes)?;
    let more = page.next_offset.is_some();
    Ok(ReadResult {
        entry: page.entry,
        content: ReadContent::Base64,
        text: base64::engine::general_purpose::STANDARD.encode(&page.data),
        total_lines: None,
        start_line: 0,
        end_line: 0,
        next_offset: None,
        truncated: more,
        truncated_by: more.then(|| "bytes".into()),
        cut_lines: 0,
        lossy_lines: 0,
        ends_with_newline: None,
        byte_offset: Some(page.offset),
        bytes: Some(page.data.len() as u64),
        next_byte_offset: page.next_offset,
        pdf: None,
    })
}

/// A PDF's pages as text (see [`super::pdf`]): the whole file (at most
/// [`super::pdf::MAX_PDF_BYTES`]) parsed in the sandbox, the pages `req.pages`
/// selects within the session's read budget.
fn read_pdf(
    file: &Resolved<'_>,
    path: &str,
    limits: &Limits,
    req: &ReadRequest,
    mut result: ReadResult,
) -> Result<ReadResult> {
    use super::pdf;
    if req.offset != 1 {
        return Err(Error::invalid_argument(
            "offset",
            format!("{path} is a PDF: read it by pages (pages: \"2-4\"), not by line offset"),
        ));
    }
    let size = file.entry.size;
    if size > pdf::MAX_PDF_BYTES {
        return Err(Error::at(
            ErrorKind::TooLarge,
            path,
            format!(
                "a PDF of {size} bytes; the limit for reading its text is {} (encoding: \"base64\" returns its bytes)",
                pdf::MAX_PDF_BYTES
            ),
        ));
    }
    let bytes = file.mount.volume.read(&file.rel, 0, size).map_err(|e| e.with_path(path))?;
    let budget = limits.read_tokens.saturating_mul(4);
    let render = req.render.unwrap_or_default();
    let pages =
        pdf::extract(path, std::sync::Arc::new(bytes), req.pages.as_deref(), budget, render)?;
    result.content = ReadContent::Pdf;
    result.text = pdf::render(path, &pages);
    result.truncated = pages.next_page.is_some();
    result.truncated_by = result.truncated.then(|| "pages".into());
    result.pdf = Some(pages);
    Ok(result)
}

fn read_raw(
    file: &Resolved<'_>,
    path: &str,
    limits: &Limits,
    mut result: ReadResult,
) -> Result<ReadResult> {
    let size = file.entry.size;
    if size > limits.read_page_bytes {
        return Err(Error::at(
            ErrorKind::TooLarge,
            path,
            format!(
                "file is {size} bytes; raw reads are limited to {} bytes — read it without raw to page by lines",
                limits.read_page_bytes
            ),
        ));
    }
    let data = file.mount.volume.read(&file.rel, 0, size).map_err(|e| e.with_path(path))?;
    match String::from_utf8(data) {
        Ok(t) => {
            result.content = if t.is_empty() { ReadContent::Empty } else { ReadContent::Raw };
            result.total_lines = Some(count_lines(t.as_bytes()));
            // A raw read is the whole file: whether it ends with a newline is known.
            result.ends_with_newline = (!t.is_empty()).then(|| t.ends_with('\n'));
            result.text = t;
            Ok(result)
        }
        Err(_) => {
            result.content = ReadContent::Binary;
            Ok(result)
        }
    }
}

/// Lines in a text: newlines, plus one for a last line without a newline.
pub fn count_lines(bytes: &[u8]) -> u64 {
    let n = bytes.iter().filter(|b| **b == b'\n').count() as u64;
    if bytes.last().is_some_and(|b| *b != b'\n') { n + 1 } else { n }
}

/// The text an LLM sees for a read result.
pub fn render(r: &ReadResult) -> String {
    match r.content {
        ReadContent::Empty => format!("{} is empty (0 bytes).", r.entry.path),
        ReadContent::Binary => format!(
            "{} is a binary file ({} bytes); its content is not shown (encoding: \"base64\" returns its bytes).",
            r.entry.path, r.entry.size
        ),
        ReadContent::Raw | ReadContent::Pdf => r.text.clone(),
        ReadContent::Base64 => {
            let from = r.byte_offset.unwrap_or(0);
            let to = from + r.bytes.unwrap_or(0);
            let mut out = format!(
                "[base64 of bytes {from}..{to} of {} ({} bytes)",
                r.entry.path, r.entry.size
            );
            match r.next_byte_offset {
                Some(next) => out.push_str(&format!("; continue with byte_offset={next}]\n")),
                None => out.push_str("]\n"),
            }
            out.push_str(&r.text);
            out
        }
        ReadContent::Text => {
            let mut out = r.text.clone();
            if let Some(next) = r.next_offset {
                let total = r.total_lines.map(|t| format!(" of {t}")).unwrap_or_default();
                let why = match r.truncated_by.as_deref() {
                    Some("tokens") => " (token safeguard)",
                    Some("bytes") => " (page size limit)",
                    _ => "",
                };
                out.push_str(&format!(
                    "\n[Showing lines {}-{}{total}{why}. Continue with offset={next}.]\n",
                    r.start_line, r.end_line
                ));
            }
            if r.cut_lines > 0 {
                out.push_str(&format!(
                    "[{} line(s) longer than {MAX_LINE_CHARS} characters were cut.]\n",
                    r.cut_lines
                ));
            }
            if r.lossy_lines > 0 {
                out.push_str(&format!(
                    "[{} line(s) hold bytes that are not UTF-8 (another encoding?); they are shown as U+FFFD.]\n",
                    r.lossy_lines
                ));
            }
            out
        }
    }
}

#[cfg(test)]
mod tests;
