//! Resource limits of a session. Each is a named constant documenting the threat it
//! bounds; [`Limits`] carries the values a host chose (defaults: the constants).

use serde::{Deserialize, Serialize};

/// Default lines per `read` page when the caller gives no `limit`.
pub const DEFAULT_READ_LINES: usize = 2000;
/// Lines longer than this many characters are cut in `read` output: one minified
/// line must not flood a context window.
pub const MAX_LINE_CHARS: usize = 2000;
/// Largest diff an edit returns, in bytes. A `replace_all` over a large file changes
/// every line; its whole diff (tens of megabytes) would flood the caller's context and
/// the transport. Longer diffs are cut at a line and say how much was left out.
pub const MAX_DIFF_BYTES: usize = 64 * 1024;
/// Largest changed region (bytes before + after, common leading and trailing lines
/// excluded) an edit computes a diff for; above this (or [`MAX_DIFF_REGION_LINES`])
/// the edit still happens and says the diff was skipped.
pub const MAX_DIFF_INPUT_BYTES: usize = 2 * 1024 * 1024;
/// Most lines (before + after) in the changed region of a diff. The line diff costs
/// up to (lines × differing lines): a `replace_all` that changes every line of a
/// 20,000-line file would take seconds, this bound keeps it to milliseconds.
pub const MAX_DIFF_REGION_LINES: usize = 4_000;
/// Default token safeguard of one `read` page (tokens ≈ chars / 4).
pub const DEFAULT_READ_TOKENS: usize = 10_000;
/// Bytes fetched from a volume per `read` page at most. A page never needs more than
/// lines × line cut, and a 1 GiB file must never be pulled into guest memory whole.
pub const MAX_READ_PAGE_BYTES: u64 = 4 * 1024 * 1024;
/// Files larger than this are skipped by `grep` and refused by `edit`: both need the
/// whole file in guest memory.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Compiled-size limit of a regular expression (bytes of the compiled program). The
/// `regex` crate runs in linear time, so this bounds memory, not backtracking.
pub const MAX_REGEX_BYTES: usize = 8 * 1024 * 1024;
/// Longest pattern text accepted by grep/glob.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// Most entries one walk (glob, grep, tree, recursive ls) visits. Bounds the memory a
/// hostile tree of millions of files can make a single call use.
pub const MAX_WALK_ENTRIES: usize = 1_000_000;
/// Most result records one grep call accumulates before paging, whatever `head_limit`.
pub const MAX_GREP_RECORDS: usize = 100_000;
/// Largest `limit` accepted by ls/glob.
pub const MAX_LIST_LIMIT: usize = 100_000;
/// Largest content accepted by `write` (bytes).
pub const MAX_WRITE_BYTES: u64 = 64 * 1024 * 1024;
/// Largest configuration file accepted (bytes).
pub const MAX_CONFIG_BYTES: usize = 4 * 1024 * 1024;

/// The limits one session runs with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Token safeguard per read page.
    pub read_tokens: usize,
    /// Bytes fetched per read page.
    pub read_page_bytes: u64,
    /// Largest file grep searches / edit loads.
    pub file_bytes: u64,
    /// Compiled regex size.
    pub regex_bytes: usize,
    /// Entries per walk.
    pub walk_entries: usize,
    /// Grep records per call.
    pub grep_records: usize,
    /// Bytes per write.
    pub write_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            read_tokens: DEFAULT_READ_TOKENS,
            read_page_bytes: MAX_READ_PAGE_BYTES,
            file_bytes: MAX_FILE_BYTES,
            regex_bytes: MAX_REGEX_BYTES,
            walk_entries: MAX_WALK_ENTRIES,
            grep_records: MAX_GREP_RECORDS,
            write_bytes: MAX_WRITE_BYTES,
        }
    }
}
