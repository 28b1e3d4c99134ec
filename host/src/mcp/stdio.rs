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

use memchr::memchr;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

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
/// stderr). Ends at end of input or when `output` is closed.
pub async fn guard_stdin<R, W>(input: R, mut output: W) -> std::io::Result<()>
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
                None => {
                    line.push(b'\n');
                    output.write_all(&line).await?;
                }
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
        let task = tokio::spawn(guard_stdin(std::io::Cursor::new(input), tx));
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
