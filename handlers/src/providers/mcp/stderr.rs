//! A stdio server's stderr: read to its end, whatever it holds, and kept as a short
//! tail for error messages (a server that fails says why there).
//!
//! Read as bytes, not lines of text: a line is kept up to [`LINE_BYTES`] (the rest
//! is counted, not held, so a server writing without newlines costs no memory), and
//! bytes that are not UTF-8 are shown as `�`. Reading never stops before the end of
//! the output: a reader that stopped would leave the server's writes blocked on a
//! full pipe, or failing once the pipe closed. Each line is redacted
//! ([`super::upstream_text`]) before it is kept, so the tail never holds a secret.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};

use filestore_runtime::tools::Secret;

/// How much of the stderr is kept (its end).
pub const TAIL_BYTES: usize = 2048;
/// How much of one line is kept (its start).
pub const LINE_BYTES: usize = 1024;

/// The kept end of a server's stderr.
#[derive(Default)]
pub struct StderrTail {
    /// Whole lines, redacted, at most about [`TAIL_BYTES`].
    tail: String,
    /// The current line's first bytes (up to [`LINE_BYTES`]).
    line: Vec<u8>,
    /// The current line's whole length so far.
    len: usize,
    secrets: Arc<[Secret]>,
}

impl StderrTail {
    /// An empty tail whose lines are redacted of `secrets`.
    pub fn new(secrets: Arc<[Secret]>) -> StderrTail {
        StderrTail { secrets, ..StderrTail::default() }
    }

    /// The kept text.
    pub fn text(&self) -> &str {
        &self.tail
    }

    /// The bytes held for the line being read (at most [`LINE_BYTES`]).
    pub fn pending(&self) -> usize {
        self.line.len()
    }

    /// Takes in the next bytes read.
    pub fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let (part, next) = match memchr::memchr(b'\n', bytes) {
                Some(i) => (&bytes[..i], Some(i + 1)),
                None => (bytes, None),
            };
            let room = LINE_BYTES.saturating_sub(self.line.len());
            self.line.extend_from_slice(&part[..part.len().min(room)]);
            self.len += part.len();
            let Some(next) = next else { return };
            self.end_line();
            bytes = &bytes[next..];
        }
    }

    /// The end of the output: keeps a last line without a newline.
    pub fn end(&mut self) {
        if self.len > 0 {
            self.end_line();
        }
    }

    fn end_line(&mut self) {
        let cut = self.len > self.line.len();
        let mut text = super::upstream_text(&self.secrets, &self.line, cut);
        if cut {
            text.push_str(&format!("… (a line of {} bytes)", self.len));
        }
        self.tail.push_str(text.trim_end_matches('\r'));
        self.tail.push('\n');
        if self.tail.len() > TAIL_BYTES {
            let from = self.tail.len() - TAIL_BYTES;
            let from = (from..self.tail.len()).find(|&i| self.tail.is_char_boundary(i));
            self.tail.drain(..from.unwrap_or(0));
        }
        self.line.clear();
        self.len = 0;
    }
}

/// Reads `stderr` to its end (or a read error) into `tail`.
pub async fn drain(mut stderr: impl AsyncRead + Unpin, tail: Arc<Mutex<StderrTail>>) {
    let mut buf = vec![0u8; 8192];
    loop {
        match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => super::lock(&tail).push(&buf[..n]),
        }
    }
    super::lock(&tail).end();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> Arc<[Secret]> {
        Arc::from(vec![Secret { variable: "KEY".into(), value: "sk-0123456789abcdef".into() }])
    }

    /// A server writing megabytes without a newline: the line held stays bounded,
    /// its start is kept and marked, and what follows is kept as usual.
    #[test]
    fn a_line_without_end_is_held_bounded_and_marked() {
        let mut t = StderrTail::new(secrets());
        let chunk = vec![b'x'; 64 * 1024];
        for _ in 0..256 {
            t.push(&chunk);
            assert!(t.pending() <= LINE_BYTES, "{} bytes held", t.pending());
        }
        t.push(b"\nafter\n");
        assert!(t.text().contains("… (a line of 16777216 bytes)\nafter\n"), "{}", t.text());
        assert!(t.text().len() <= TAIL_BYTES);
    }

    /// Bytes that are not UTF-8 are shown as such, and the lines after them kept.
    #[test]
    fn bytes_that_are_not_utf8_do_not_stop_the_tail() {
        let mut t = StderrTail::new(secrets());
        t.push(b"caf\xe9 \xff\xfe\nnext line\r\nlast, no newline");
        t.end();
        assert_eq!(t.text(), "caf\u{FFFD} \u{FFFD}\u{FFFD}\nnext line\nlast, no newline\n");
    }

    /// A secret is redacted in a kept line, and one the line's cut splits leaves no
    /// piece of itself.
    #[test]
    fn secrets_are_redacted_even_when_a_cut_splits_them() {
        let mut t = StderrTail::new(secrets());
        t.push(b"key=sk-0123456789abcdef\n");
        let mut long = vec![b'.'; LINE_BYTES - 8];
        long.extend_from_slice(b"sk-0123456789abcdef and more\n");
        t.push(&long);
        let text = t.text();
        assert!(text.starts_with("key=${KEY}\n"), "{text}");
        assert!(!text.contains("sk-01"), "{text}");
        assert!(text.contains(".… (a line of"), "{text}");
    }
}
