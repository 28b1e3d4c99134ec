//! A running shell command's output as it is produced (docs/shell.md#streaming-progress-and-cancellation): the
//! plain-Rust side of the WIT `shell-output` import. A session holds at most one
//! sink; the component's chunks go to it while a call runs, and are dropped when
//! nobody listens. The call's final result is unchanged by any of this.

/// Which stream of the command a chunk comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// One chunk of output: at most 4096 bytes, possibly ending inside a UTF-8
/// character (the next chunk of the same stream continues it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputChunk<'a> {
    /// Where it was printed.
    pub stream: OutputStream,
    /// The bytes, in the order printed.
    pub bytes: &'a [u8],
}

/// Receives chunks while a command runs (on the thread running the call: it should
/// return quickly, e.g. by sending to a channel).
pub type OutputSink = Box<dyn FnMut(OutputChunk<'_>) + Send>;

/// The last bytes of a command's output, for a progress message: what arrived since
/// it was last taken, at most [`Tail::MAX_BYTES`] of it (the end), whole lines where
/// it can, valid UTF-8.
#[derive(Debug, Default)]
pub struct Tail {
    bytes: Vec<u8>,
    /// Bytes of a stream's last chunk that end inside a character, kept for the next.
    carry: Vec<(OutputStream, Vec<u8>)>,
    /// The stream of the last chunk, to mark a change to stderr.
    last: Option<OutputStream>,
}

impl Tail {
    /// Most bytes a taken tail holds.
    pub const MAX_BYTES: usize = 1024;

    /// Adds a chunk (keeping only the end that a message can show).
    pub fn push(&mut self, chunk: OutputChunk<'_>) {
        let mut bytes = match self.carry.iter().position(|(s, _)| *s == chunk.stream) {
            Some(i) => self.carry.swap_remove(i).1,
            None => Vec::new(),
        };
        bytes.extend_from_slice(chunk.bytes);
        let complete = complete_utf8(&bytes);
        let rest = bytes.split_off(complete);
        if !rest.is_empty() {
            self.carry.push((chunk.stream, rest));
        }
        if chunk.stream == OutputStream::Stderr && self.last != Some(OutputStream::Stderr) {
            self.bytes.extend_from_slice(b"[stderr] ");
        }
        self.last = Some(chunk.stream);
        self.bytes.extend_from_slice(&bytes);
        // Keep a bounded window: twice the limit leaves room to cut at a line start.
        if self.bytes.len() > 2 * Self::MAX_BYTES {
            let cut = self.bytes.len() - 2 * Self::MAX_BYTES;
            self.bytes.drain(..cut);
        }
    }

    /// What arrived since the last call, at most [`Tail::MAX_BYTES`] (the end,
    /// from a line start when one is within it); `None` when nothing did.
    pub fn take(&mut self) -> Option<String> {
        if self.bytes.is_empty() {
            return None;
        }
        let bytes = std::mem::take(&mut self.bytes);
        let mut start = bytes.len().saturating_sub(Self::MAX_BYTES);
        if start > 0
            && let Some(nl) = bytes[start..].iter().position(|&b| b == b'\n')
            && start + nl + 1 < bytes.len()
        {
            start += nl + 1;
        }
        // The window may begin inside a character: lossy turns that into U+FFFD,
        // which is skipped.
        let text = String::from_utf8_lossy(&bytes[start..]);
        Some(text.trim_start_matches('\u{fffd}').to_string())
    }
}

/// Length of the prefix of `b` that does not end inside a UTF-8 character.
fn complete_utf8(b: &[u8]) -> usize {
    // A character is at most 4 bytes: look back at most 3 for its first byte.
    for back in 1..=b.len().min(3) {
        let c = b[b.len() - back];
        if c & 0xC0 == 0x80 {
            continue; // a continuation byte
        }
        let need = if c >= 0xF0 {
            4
        } else if c >= 0xE0 {
            3
        } else if c >= 0xC0 {
            2
        } else {
            1
        };
        return if need > back { b.len() - back } else { b.len() };
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(b: &[u8]) -> OutputChunk<'_> {
        OutputChunk { stream: OutputStream::Stdout, bytes: b }
    }

    #[test]
    fn a_tail_is_what_arrived_since_last_taken() {
        let mut t = Tail::default();
        assert_eq!(t.take(), None);
        t.push(out(b"1\n"));
        t.push(out(b"2\n"));
        assert_eq!(t.take().as_deref(), Some("1\n2\n"));
        assert_eq!(t.take(), None);
        t.push(OutputChunk { stream: OutputStream::Stderr, bytes: b"oops\n" });
        assert_eq!(t.take().as_deref(), Some("[stderr] oops\n"));
    }

    #[test]
    fn a_tail_is_bounded_and_never_splits_a_character() {
        let mut t = Tail::default();
        let line = "é".repeat(30) + "\n";
        for _ in 0..1000 {
            t.push(out(line.as_bytes()));
        }
        let got = t.take().unwrap();
        assert!(got.len() <= Tail::MAX_BYTES, "{}", got.len());
        assert!(got.starts_with('é') && got.ends_with('\n'));
        // A character split across chunks comes whole with the second.
        let e = "é".as_bytes();
        t.push(out(&e[..1]));
        assert_eq!(t.take(), None);
        t.push(out(&e[1..]));
        assert_eq!(t.take().as_deref(), Some("é"));
    }
}
