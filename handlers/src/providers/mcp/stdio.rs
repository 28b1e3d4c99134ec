//! The transport of a stdio upstream: rmcp's line-delimited JSON-RPC over the
//! child's stdin and stdout, with stdout watched for lines that are not messages.
//!
//! Why: rmcp ignores a stdout line it cannot parse (as the other official SDKs do: a
//! reply to garbage could start an error storm), and drops a line longer than its
//! 16 MiB limit. A server that prints a log line on stdout, or answers with broken
//! JSON, then looks exactly like one that never answers: the call waits out its
//! timeout and says so. The watch records what was skipped, so the timeout (and a
//! failed start) can name the line instead of guessing.
//!
//! The bytes pass through unchanged: the watch only looks at them. A line is checked
//! exactly (parsed as a server message) when it is at most [`EXACT_CHECK_BYTES`]
//! long; a longer one only by its start (a JSON object begins with `{`), so a large
//! reply is not held twice. A quoted line is redacted of the connection's secrets
//! before it is cut ([`super::upstream_text`]).

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH};
use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{Child, ChildStdin, ChildStdout};

use filestore_runtime::tools::{Secret, redact};

/// Lines up to this long are parsed to check them; longer ones are checked by shape.
pub const EXACT_CHECK_BYTES: usize = 64 * 1024;
/// Characters of a skipped line kept to quote it.
const QUOTED_CHARS: usize = 200;
/// How long `close` waits for the server to exit after its stdin is closed.
const EXIT_WAIT: Duration = Duration::from_secs(1);

/// What a stdio server wrote on stdout that the client skipped.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Lines skipped so far.
    pub lines: u64,
    /// The last one, quoted (cut to 200 characters), with why it was skipped.
    pub last: Option<String>,
}

impl Skipped {
    /// A clause for an error message (`; its stdout had …`), or nothing when no line
    /// was skipped.
    pub fn note(&self) -> String {
        match &self.last {
            None => String::new(),
            Some(last) => format!(
                "; its stdout had {} line{} that {} not a JSON-RPC message and {} ignored, the last: {last}",
                self.lines,
                if self.lines == 1 { "" } else { "s" },
                if self.lines == 1 { "is" } else { "are" },
                if self.lines == 1 { "was" } else { "were" },
            ),
        }
    }
}

/// Why a complete stdout line is not a message the client takes, or `None`; `line`
/// is its first bytes (all of it up to [`EXACT_CHECK_BYTES`]), `len` its length.
/// `quote` quotes the line for the reason.
fn skip_reason(line: &[u8], len: usize, quote: impl Fn(&[u8], &str) -> String) -> Option<String> {
    // rmcp counts the newline: a line of the limit's length is already over it.
    if len >= DEFAULT_MAX_LINE_LENGTH {
        return Some(format!(
            "a line of {len} bytes, over the client's limit of {DEFAULT_MAX_LINE_LENGTH}"
        ));
    }
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None; // blank lines are skipped silently by design
    }
    // A log line or a stray print: not even JSON.
    let start = line.iter().find(|b| !b.is_ascii_whitespace());
    if !matches!(start, Some(b'{' | b'[')) {
        return Some(quote(line, "not JSON"));
    }
    if len > EXACT_CHECK_BYTES {
        // Only the start was kept: judge the shape of what was.
        return (start != Some(&b'{')).then(|| quote(line, "not a JSON object"));
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(line) {
        Ok(_) => None,
        Err(e) => {
            // rmcp also ignores, on purpose, notifications outside MCP's method set:
            // not worth a mention.
            if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line)
                && let Some(method) = v.get("method").and_then(serde_json::Value::as_str)
                && rmcp_ignores(v.get("id").is_none(), method)
            {
                return None;
            }
            Some(quote(line, &e.to_string()))
        }
    }
}

/// Whether rmcp ignores on purpose a message with this method that it could not
/// parse (its `should_ignore_notification`): a notification outside MCP's methods, or
/// a `notifications/` method outside MCP's. A standard method with malformed params
/// is not ignored: rmcp drops it as invalid.
fn rmcp_ignores(is_notification: bool, method: &str) -> bool {
    const NOTIFICATIONS: &[&str] = &[
        "notifications/cancelled",
        "notifications/initialized",
        "notifications/message",
        "notifications/progress",
        "notifications/prompts/list_changed",
        "notifications/resources/list_changed",
        "notifications/resources/updated",
        "notifications/roots/list_changed",
        "notifications/subscriptions/acknowledged",
        "notifications/tools/list_changed",
    ];
    const METHODS: &[&str] = &[
        "initialize",
        "ping",
        "server/discover",
        "prompts/get",
        "prompts/list",
        "resources/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "resources/templates/list",
        "subscriptions/listen",
        "tools/call",
        "tools/list",
        "completion/complete",
        "elicitation/create",
        "logging/setLevel",
        "roots/list",
        "sampling/createMessage",
    ];
    let notification = NOTIFICATIONS.contains(&method);
    (is_notification && !notification && !METHODS.contains(&method))
        || (method.starts_with("notifications/") && !notification)
}

/// `line` quoted for a message, redacted of `secrets`, with `why` it was skipped;
/// `cut`: it is the start of a longer line.
fn quote(secrets: &[Secret], line: &[u8], cut: bool, why: &str) -> String {
    // Enough bytes for the characters quoted: the rest need not be decoded.
    let shown = &line[..line.len().min(4 * QUOTED_CHARS)];
    let cut = cut || shown.len() < line.len();
    let text = super::upstream_text(secrets, shown, cut);
    let text = text.trim();
    let mut q: String = text.chars().take(QUOTED_CHARS).collect();
    if cut || text.chars().nth(QUOTED_CHARS).is_some() {
        q.push('…');
    }
    // The parser's reason may quote the line too.
    format!("{q:?} ({})", redact(secrets, why))
}

/// A reader that passes everything through and records the skipped lines.
pub struct LineWatch<R> {
    inner: R,
    /// The current line's first bytes (up to [`EXACT_CHECK_BYTES`] + 1).
    line: Vec<u8>,
    /// The current line's whole length so far.
    len: usize,
    skipped: Arc<Mutex<Skipped>>,
    /// Removed from the lines quoted.
    secrets: Arc<[Secret]>,
}

impl<R> LineWatch<R> {
    /// Watches `inner`, recording into `skipped` with `secrets` redacted.
    pub fn new(inner: R, skipped: Arc<Mutex<Skipped>>, secrets: Arc<[Secret]>) -> LineWatch<R> {
        LineWatch { inner, line: Vec::new(), len: 0, skipped, secrets }
    }

    fn observe(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let (part, done) = match memchr::memchr(b'\n', bytes) {
                Some(i) => (&bytes[..i], Some(i + 1)),
                None => (bytes, None),
            };
            let room = (EXACT_CHECK_BYTES + 1).saturating_sub(self.line.len());
            self.line.extend_from_slice(&part[..part.len().min(room)]);
            self.len += part.len();
            let Some(next) = done else { return };
            let cut = self.len > self.line.len();
            let quote = |line: &[u8], why: &str| quote(&self.secrets, line, cut, why);
            if let Some(why) = skip_reason(&self.line, self.len, quote) {
                self.record(why);
            }
            self.line.clear();
            self.len = 0;
            bytes = &bytes[next..];
        }
    }

    /// Counts one skipped line, `why` it was skipped being the last.
    fn record(&self, why: String) {
        let mut s = self.skipped.lock().unwrap_or_else(|e| e.into_inner());
        s.lines += 1;
        s.last = Some(why);
    }

    /// The end of the output: rmcp drops a last line without a newline, whatever
    /// it holds (a crash message, a reply cut off by an exit).
    fn end(&mut self) {
        if !self.line.iter().all(u8::is_ascii_whitespace) {
            let why = "no newline before the end of the output";
            let cut = self.len > self.line.len();
            self.record(quote(&self.secrets, &self.line, cut, why));
        }
        self.line.clear();
        self.len = 0;
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineWatch<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            if buf.filled().len() == before && buf.remaining() > 0 {
                this.end();
            } else {
                this.observe(&buf.filled()[before..]);
            }
        }
        polled
    }
}

/// A started stdio server as an rmcp transport: its stdout watched, the child
/// killed when the transport is dropped (and its process group by the provider).
pub struct StdioTransport {
    child: Child,
    rw: AsyncRwTransport<RoleClient, LineWatch<ChildStdout>, ChildStdin>,
}

impl StdioTransport {
    /// Takes the pipes of `child` (spawned with piped stdin and stdout and
    /// `kill_on_drop`); what stdout skips is recorded in `skipped`, `secrets`
    /// redacted.
    pub fn new(
        mut child: Child,
        skipped: Arc<Mutex<Skipped>>,
        secrets: Arc<[Secret]>,
    ) -> io::Result<StdioTransport> {
        let stdin = child.stdin.take().ok_or_else(|| io::Error::other("stdin is not piped"))?;
        let stdout = child.stdout.take().ok_or_else(|| io::Error::other("stdout is not piped"))?;
        let rw = AsyncRwTransport::new_client(LineWatch::new(stdout, skipped, secrets), stdin);
        Ok(StdioTransport { child, rw })
    }
}

impl Transport<RoleClient> for StdioTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.rw.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.rw.receive()
    }

    /// Closes stdin (a well-behaved server exits on it), waits a moment, then kills.
    async fn close(&mut self) -> Result<(), Self::Error> {
        self.rw.close().await?;
        if tokio::time::timeout(EXIT_WAIT, self.child.wait()).await.is_err() {
            self.child.start_kill()?;
            self.child.wait().await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch(chunks: &[&[u8]]) -> Skipped {
        let skipped = Arc::new(Mutex::new(Skipped::default()));
        let mut w = LineWatch::new(tokio::io::empty(), skipped.clone(), Arc::from([]));
        for c in chunks {
            w.observe(c);
        }
        skipped.lock().unwrap().clone()
    }

    #[test]
    fn messages_and_blank_lines_are_not_recorded() {
        let reply = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        let s = watch(&[reply, b"\n\r\n\n", b"\xEF\xBB\xBF", reply, b"\r\n"]);
        assert_eq!(s, Skipped::default());
        // A notification outside MCP's methods is ignored by rmcp on purpose.
        let s = watch(&[br#"{"jsonrpc":"2.0","method":"$/lsp-thing","params":{}}"#, b"\n"]);
        assert_eq!(s, Skipped::default());
    }

    #[test]
    fn a_log_line_split_across_reads_is_recorded_and_quoted() {
        let s = watch(&[
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\nDEBUG: conn",
            b"ecting to db\n",
        ]);
        assert_eq!(s.lines, 1);
        let last = s.last.unwrap();
        assert_eq!(last, "\"DEBUG: connecting to db\" (not JSON)");
        let note = watch(&[b"a\nb\n"]).note();
        assert!(
            note.contains(
                "had 2 lines that are not a JSON-RPC message and were ignored, the last: \"b\""
            ),
            "{note}"
        );
    }

    #[test]
    fn broken_json_is_recorded_with_the_parser_error() {
        let s = watch(&[b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"x\":\"unterminated}\n"]);
        assert_eq!(s.lines, 1);
        assert!(s.last.unwrap().contains("EOF while parsing"));
        // Well-formed JSON that is no message.
        let s = watch(&[b"[1,2,3]\n"]);
        assert_eq!(s.lines, 1);
    }

    #[test]
    fn long_lines_are_judged_by_shape_and_quoted_short() {
        let mut big = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"text\":\"".to_vec();
        big.extend(std::iter::repeat_n(b'x', EXACT_CHECK_BYTES * 2));
        big.extend_from_slice(b"\"}}\n");
        assert_eq!(watch(&[&big]), Skipped::default());
        let text = vec![b'y'; EXACT_CHECK_BYTES * 2];
        let s = watch(&[&text, b"\n"]);
        assert_eq!(s.lines, 1);
        let last = s.last.unwrap();
        assert!(last.ends_with("…\" (not JSON)"), "{}", &last[..50]);
        let mut array = b"[".to_vec();
        array.extend(std::iter::repeat_n(b'1', EXACT_CHECK_BYTES * 2));
        let s = watch(&[&array, b"]\n"]);
        assert!(s.last.unwrap().ends_with("(not a JSON object)"));
        assert!(last.chars().count() < QUOTED_CHARS + 40);
    }

    /// rmcp itself, over the watch: whether it skips `line` (the first message it
    /// delivers is the one after it), and what the watch recorded meanwhile.
    async fn rmcp_verdict(line: &[u8]) -> (bool, Skipped) {
        let skipped = Arc::new(Mutex::new(Skipped::default()));
        let mut input = line.to_vec();
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":424242,\"result\":{}}\n");
        let mut t = AsyncRwTransport::<RoleClient, _, _>::new_client(
            LineWatch::new(&input[..], skipped.clone(), Arc::from([])),
            tokio::io::sink(),
        );
        let first = t.receive().await.expect("the sentinel at least");
        let first = serde_json::to_value(&first).unwrap();
        let s = skipped.lock().unwrap().clone();
        (first["id"] == 424242, s)
    }

    /// "Recorded as rmcp skips them": each line rmcp skips without meaning to (not
    /// a blank line, not a notification it ignores on purpose) is recorded, and
    /// no line it delivers is.
    #[tokio::test]
    async fn the_watch_records_exactly_the_lines_rmcp_skips() {
        let mut at_limit = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"".to_vec();
        at_limit.resize(DEFAULT_MAX_LINE_LENGTH - 3, b'x');
        at_limit.extend_from_slice(b"\"}}");
        let lines: Vec<(&str, Vec<u8>)> = vec![
            ("log line", b"DEBUG: hello".to_vec()),
            ("reply", br#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_vec()),
            (
                "reply with BOM and CR",
                b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r".to_vec(),
            ),
            ("broken JSON", br#"{"jsonrpc":"2.0","id":1,"result":{"#.to_vec()),
            ("array", b"[1,2,3]".to_vec()),
            ("LSP notification", br#"{"jsonrpc":"2.0","method":"$/lsp","params":{}}"#.to_vec()),
            (
                "standard notification with bad params",
                br#"{"jsonrpc":"2.0","method":"notifications/progress","params":5}"#.to_vec(),
            ),
            ("method that is not a string", br#"{"jsonrpc":"2.0","method":5}"#.to_vec()),
            ("line of exactly rmcp's limit", at_limit),
        ];
        let mut wrong = Vec::new();
        for (what, line) in &lines {
            let (rmcp_skips, s) = rmcp_verdict(line).await;
            let recorded = s.lines > 0;
            if rmcp_skips != recorded {
                wrong.push(format!("{what}: rmcp skips: {rmcp_skips}, recorded: {s:?}"));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    /// A server that writes a last line without a newline (a crash message) and
    /// exits: rmcp drops it at end of file; the watch should record it too.
    #[tokio::test]
    async fn an_unterminated_last_line_is_recorded_at_end_of_file() {
        use tokio::io::AsyncReadExt;
        let skipped = Arc::new(Mutex::new(Skipped::default()));
        let mut w =
            LineWatch::new(&b"fatal: cannot bind port 80"[..], skipped.clone(), Arc::from([]));
        let mut out = Vec::new();
        w.read_to_end(&mut out).await.unwrap();
        assert_eq!(skipped.lock().unwrap().lines, 1);
    }

    /// A reader that hands out one byte per read.
    struct Trickle<'a>(&'a [u8]);

    impl AsyncRead for Trickle<'_> {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            if let Some((b, rest)) = self.0.split_first() {
                buf.put_slice(&[*b]);
                self.0 = rest;
            }
            Poll::Ready(Ok(()))
        }
    }

    /// Bytes pass through unchanged however the reads split them (CRLF and a BOM
    /// cut in the middle), and the lines are judged as when read whole.
    #[tokio::test]
    async fn bytes_pass_through_unchanged_one_byte_at_a_time() {
        use tokio::io::AsyncReadExt;
        let input =
            b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\nnot json\r\n\r\n[1]\n";
        let skipped = Arc::new(Mutex::new(Skipped::default()));
        let mut out = Vec::new();
        LineWatch::new(Trickle(input), skipped.clone(), Arc::from([]))
            .read_to_end(&mut out)
            .await
            .unwrap();
        assert_eq!(out, input);
        let s = skipped.lock().unwrap().clone();
        assert_eq!(s, watch(&[input]));
        assert_eq!(s.lines, 2);
    }
}
