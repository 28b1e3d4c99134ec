//! The stdio transport's input guard: every request gets an answer, even one too
//! large to read.
//!
//! rmcp reads one JSON-RPC message per line and drops a line longer than its cap
//! (16 MiB) with only a log line, so a client that sent a 17 MiB write would wait
//! forever. [`guard_stdin`] sits between stdin and rmcp: lines within
//! [`MAX_STDIO_MESSAGE_BYTES`] pass through unchanged; a longer line is discarded as it
//! streams by (never buffered whole) and replaced by a small request for
//! [`TOO_LARGE_METHOD`] carrying the original id, which the server answers with a
//! JSON-RPC error saying how large the message was and what the limit is.
//!
//! rmcp also drops a line that is not JSON, or not a JSON-RPC message, without a
//! word. The guard answers those itself, as JSON-RPC asks: `-32700` (parse error,
//! id `null`) for text that is not JSON, `-32600` (invalid request, with the id when
//! one can be found) for JSON that is not a message. Its answers reach stdout
//! through [`merge_stdout`], the one writer of stdout, so they never interleave with
//! rmcp's within a line.

use memchr::memchr;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

/// Largest message (one line, without its newline) read over stdio: just under
/// rmcp's own cap, so rmcp never drops a line silently.
pub const MAX_STDIO_MESSAGE_BYTES: usize =
    rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH - 1024;

/// How much of an oversized line is kept to find its `"id"` (it comes first in
/// every client we know of; a message whose id is later cannot be answered).
const ID_SEARCH_BYTES: usize = 64 * 1024;

/// The method of the request that stands in for an oversized one.
pub const TOO_LARGE_METHOD: &str = "filestore/request-too-large";

/// Copies `input` to `output` line by line, replacing every line longer than
/// [`MAX_STDIO_MESSAGE_BYTES`] by a [`TOO_LARGE_METHOD`] request with the same id
/// (a line without a findable id — a notification — is dropped, and said so on
/// stderr). A line that is not a JSON-RPC message is answered on `replies` (see
/// the module docs) instead of passed on. Ends at end of input or when `output` is
/// closed.
pub async fn guard_stdin<R, W>(
    input: R,
    mut output: W,
    replies: UnboundedSender<String>,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut line: Vec<u8> = Vec::new();
    // Bytes of the current line seen so far when it is oversized (`line` then
    // keeps only its head).
    let mut oversized: Option<usize> = None;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            if oversized.is_none() && !line.is_empty() {
                output.write_all(&line).await?;
            }
            output.shutdown().await?;
            return Ok(());
        }
        let (chunk, ends_line) = match memchr(b'\n', buf) {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        let taken = chunk.len() + usize::from(ends_line);
        match oversized.as_mut() {
            Some(seen) => {
                *seen += chunk.len();
                let room = ID_SEARCH_BYTES.saturating_sub(line.len());
                line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            None if line.len() + chunk.len() > MAX_STDIO_MESSAGE_BYTES => {
                let seen = line.len() + chunk.len();
                line.truncate(ID_SEARCH_BYTES);
                let room = ID_SEARCH_BYTES.saturating_sub(line.len());
                line.extend_from_slice(&chunk[..chunk.len().min(room)]);
                oversized = Some(seen);
            }
            None => line.extend_from_slice(chunk),
        }
        reader.consume(taken);
        if ends_line {
            match oversized.take() {
                None => match malformed(&line) {
                    None => {
                        line.push(b'\n');
                        output.write_all(&line).await?;
                    }
                    Some(reply) => {
                        // The receiver is gone only when stdout is: nothing to tell.
                        let _ = replies.send(reply);
                    }
                },
                Some(bytes) => match request_id(&line) {
                    Some(id) => {
                        let stand_in = serde_json::json!({
                            "jsonrpc": "2.0",
                            "id": id,
                            "method": TOO_LARGE_METHOD,
                            "params": {"bytes": bytes, "limit": MAX_STDIO_MESSAGE_BYTES},
                        });
                        output.write_all(format!("{stand_in}\n").as_bytes()).await?;
                    }
                    None => eprintln!(
                        "filestore serve: dropped a {bytes}-byte message without an id (the limit is {MAX_STDIO_MESSAGE_BYTES} bytes)"
                    ),
                },
            }
            output.flush().await?;
            line.clear();
        }
    }
}

/// The error reply for a line that is not a JSON-RPC message, or `None` for one
/// that is (or a blank line, which rmcp skips). A batch (array) is passed on: which
/// batches to accept is the protocol version's business, rmcp's.
pub(crate) fn malformed(line: &[u8]) -> Option<String> {
    use serde_json::Value;
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let error = |id: Value, code: i64, message: String| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            .to_string()
    };
    /// Only what tells a message apart; `params`/`result` are skipped, not built.
    #[derive(serde::Deserialize)]
    struct Probe {
        jsonrpc: Option<String>,
        method: Option<serde::de::IgnoredAny>,
        result: Option<serde::de::IgnoredAny>,
        error: Option<serde::de::IgnoredAny>,
    }
    match serde_json::from_slice::<serde::de::IgnoredAny>(line) {
        Err(e) => {
            return Some(error(
                Value::Null,
                -32700,
                format!("parse error: the message is not JSON: {e}"),
            ));
        }
        Ok(_) if line.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') => return None,
        Ok(_) => {}
    }
    let id = request_id(line).unwrap_or(Value::Null);
    match serde_json::from_slice::<Probe>(line) {
        Err(_) => Some(error(
            id,
            -32600,
            "invalid request: a JSON-RPC message is a JSON object".to_string(),
        )),
        Ok(p) if p.jsonrpc.as_deref() != Some("2.0") => Some(error(
            id,
            -32600,
            "invalid request: \"jsonrpc\" must be \"2.0\"".to_string(),
        )),
        Ok(p) if p.method.is_none() && p.result.is_none() && p.error.is_none() => Some(error(
            id,
            -32600,
            "invalid request: a message has a \"method\" (or is a response with \"result\" or \"error\")"
                .to_string(),
        )),
        Ok(_) => None,
    }
}

/// The one writer of stdout: copies rmcp's output (whole lines) and the guard's
/// replies, so neither can land inside a line of the other. Ends when rmcp's output
/// ends.
pub async fn merge_stdout<R, W>(
    from_rmcp: R,
    mut replies: UnboundedReceiver<String>,
    mut stdout: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::with_capacity(64 * 1024, from_rmcp);
    let mut line = Vec::new();
    loop {
        tokio::select! {
            n = reader.read_until(b'\n', &mut line) => {
                if n? == 0 {
                    // Replies already made still go out.
                    while let Ok(reply) = replies.try_recv() {
                        stdout.write_all(format!("{reply}\n").as_bytes()).await?;
                    }
                    stdout.flush().await?;
                    return Ok(());
                }
                if line.ends_with(b"\n") {
                    stdout.write_all(&line).await?;
                    stdout.flush().await?;
                    line.clear();
                }
            }
            Some(reply) = replies.recv(), if line.is_empty() => {
                stdout.write_all(format!("{reply}\n").as_bytes()).await?;
                stdout.flush().await?;
            }
        }
    }
}

/// The JSON-RPC id of a message, from the head of its text: the value after the
/// first top-level `"id":` key (a number or a string).
fn request_id(head: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(head);
    let mut depth = 0i32;
    let mut in_string = false;
    let mut escaped = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            b'"' if depth == 1 && text[i..].starts_with("\"id\"") => {
                let rest = text[i + 4..].trim_start().strip_prefix(':')?.trim_start();
                let mut stream =
                    serde_json::Deserializer::from_str(rest).into_iter::<serde_json::Value>();
                return match stream.next()? {
                    Ok(v @ (serde_json::Value::Number(_) | serde_json::Value::String(_))) => {
                        Some(v)
                    }
                    _ => None,
                };
            }
            b'"' => in_string = true,
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn guarded(input: Vec<u8>) -> Vec<String> {
        let (mut rx, tx) = tokio::io::duplex(1 << 16);
        let (replies, _) = tokio::sync::mpsc::unbounded_channel();
        let task = tokio::spawn(guard_stdin(std::io::Cursor::new(input), tx, replies));
        let mut out = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut rx, &mut out).await.unwrap();
        task.await.unwrap().unwrap();
        String::from_utf8(out).unwrap().lines().map(str::to_string).collect()
    }

    #[tokio::test]
    async fn small_lines_pass_and_oversized_ones_are_replaced() {
        let big = format!(
            r#"{{"jsonrpc":"2.0","id":"w-7","method":"tools/call","params":{{"name":"filestore_write","arguments":{{"path":"/s/x","content":"{}"}}}}}}"#,
            "x".repeat(MAX_STDIO_MESSAGE_BYTES)
        );
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}\n{big}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}}\n"
        );
        let lines = guarded(input.into_bytes()).await;
        assert_eq!(lines.len(), 3, "{:?}", lines.iter().map(|l| l.len()).collect::<Vec<_>>());
        assert_eq!(lines[0], r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        let stand_in: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
        assert_eq!(stand_in["id"], "w-7");
        assert_eq!(stand_in["method"], TOO_LARGE_METHOD);
        assert_eq!(stand_in["params"]["bytes"], big.len());
        assert_eq!(lines[2], r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    }

    /// Text that is not JSON gets -32700 with id null; JSON that is not a message
    /// gets -32600 with its id; messages, batches and blank lines pass on.
    #[tokio::test]
    async fn malformed_lines_are_answered_not_dropped() {
        let (rx_in, tx_in) = tokio::io::duplex(1 << 16);
        let (replies_tx, replies_rx) = tokio::sync::mpsc::unbounded_channel();
        let input = "not json\n{\"id\":4,\"method\":\"ping\"}\n[1, 2]\n{\"jsonrpc\":\"2.0\",\"id\":5}\n\n{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}\n";
        let guard = tokio::spawn(guard_stdin(
            std::io::Cursor::new(input.as_bytes().to_vec()),
            tx_in,
            replies_tx,
        ));
        let (mut out_rx, out_tx) = tokio::io::duplex(1 << 16);
        let merged = tokio::spawn(merge_stdout(rx_in, replies_rx, out_tx));
        guard.await.unwrap().unwrap();
        merged.await.unwrap().unwrap();
        let mut out = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut out_rx, &mut out).await.unwrap();
        let lines: Vec<serde_json::Value> = out
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let errors: Vec<(serde_json::Value, i64)> = lines
            .iter()
            .filter(|l| l.get("error").is_some())
            .map(|l| (l["id"].clone(), l["error"]["code"].as_i64().unwrap()))
            .collect();
        assert_eq!(
            errors,
            [(serde_json::Value::Null, -32700), (4.into(), -32600), (5.into(), -32600)],
            "{out}"
        );
        let passed: Vec<&serde_json::Value> =
            lines.iter().filter(|l| l.get("error").is_none()).collect();
        assert_eq!(
            passed,
            [
                &serde_json::json!([1, 2]),
                &serde_json::json!({"jsonrpc": "2.0", "id": 6, "method": "ping"})
            ],
            "{out}"
        );
    }

    #[test]
    fn ids_are_found_at_the_top_level_only() {
        assert_eq!(request_id(br#"{"jsonrpc":"2.0","id":5,"method":"x"}"#), Some(5.into()));
        assert_eq!(
            request_id(br#"{"params":{"id":9,"s":"\"id\":3"},"id":"a b"}"#),
            Some("a b".into())
        );
        assert_eq!(request_id(br#"{"method":"notifications/x","params":{"id":1}}"#), None);
    }
}
