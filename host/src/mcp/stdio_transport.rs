//! The stdio transport of `filestore serve`: stdin read and stdout written on
//! threads of their own, messages handed to and from rmcp whole.
//!
//! rmcp's own stdio transport reads and writes through tokio's `Stdin`/`Stdout`,
//! which run every `read` and `write` on the blocking pool: each request cost a
//! hand-off to a pool thread and back for the read, another pair for the write, and
//! (with the guard in front, [`super::stdio`]) two more copies of the line through
//! in-memory pipes, each parsed again. Here one thread blocks in `read` and parses
//! each line once ([`super::stdio::read_messages`]), handing rmcp the message, or
//! answering it itself when it is a call the fast path takes
//! ([`super::stdio_fast`]); every sender writes its whole lines to stdout in place
//! ([`Writer`]).
//!
//! The reader thread does not belong to the runtime, so it cannot hold up its
//! shutdown: it may stay blocked in `read` until the process ends.

use std::io::Write;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;

use super::stdio::Incoming;

/// Messages read ahead of the server: a few, so a burst of requests does not wait
/// on the reader, and little memory when each may be 16 MiB.
const READ_AHEAD: usize = 4;

/// Where every line goes: stdout, written in place by whoever sends (the reader
/// thread's guard answers, rmcp's messages, the fast path's answers), one whole
/// line per lock, so lines never interleave.
///
/// In place, not on a thread of its own: a hand-off to a writer thread was one more
/// wake-up and context switch per call (issue 36's stdio target). A write to a pipe
/// the client reads returns at once; one the client stopped reading blocks the
/// sender, as a full pipe must (nothing more can reach the client anyway).
#[derive(Clone)]
pub struct Writer(std::sync::Arc<std::sync::Mutex<Box<dyn Write + Send>>>);

impl Writer {
    /// Writes to `out`.
    pub fn start(out: impl Write + Send + 'static) -> std::io::Result<Writer> {
        Ok(Writer(std::sync::Arc::new(std::sync::Mutex::new(Box::new(out)))))
    }

    /// Writes `line` and a newline, and flushes.
    fn line(&self, mut line: Vec<u8>) -> std::io::Result<()> {
        line.push(b'\n');
        let mut out = self.0.lock().unwrap_or_else(|p| p.into_inner());
        out.write_all(&line)?;
        out.flush()
    }

    /// Everything sent so far is written (each line is flushed as it goes); kept
    /// for the callers that end a session with it.
    pub async fn flush(&self) {
        let _ = self.0.lock().unwrap_or_else(|p| p.into_inner()).flush();
    }
}

/// rmcp's transport over the reader and writer threads.
pub struct StdioTransport {
    incoming: mpsc::Receiver<Box<RxJsonRpcMessage<RoleServer>>>,
    writer: Writer,
    /// Counts the requests rmcp has not answered yet (see [`super::stdio_fast`]).
    pending: std::sync::Arc<super::stdio_fast::FastPath>,
}

impl StdioTransport {
    /// Starts reading `input` on a thread of its own: its messages go to the
    /// server, the guard's answers straight to `writer`.
    pub fn start(
        input: impl std::io::Read + Send + 'static,
        writer: Writer,
    ) -> std::io::Result<StdioTransport> {
        Self::start_with(input, writer, std::sync::Arc::default())
    }

    /// [`StdioTransport::start`] with `fast`: once it is ready, the reader thread
    /// answers the calls it takes itself ([`super::stdio_fast`]).
    pub fn start_with(
        input: impl std::io::Read + Send + 'static,
        writer: Writer,
        fast: std::sync::Arc<super::stdio_fast::FastPath>,
    ) -> std::io::Result<StdioTransport> {
        let (tx, incoming) = mpsc::channel(READ_AHEAD);
        let replies = writer.clone();
        let pending = fast.clone();
        std::thread::Builder::new().name("filestore-stdin".into()).spawn(move || {
            // A read error ends the input, as the end of input does.
            let input = std::io::BufReader::with_capacity(64 * 1024, input);
            let _ = super::stdio::read_messages(input, |item| match item {
                Incoming::Message(m) => match fast.answer(m) {
                    Ok(line) => replies.line(line).is_ok(),
                    Err(m) => {
                        fast.delivered(&m);
                        tx.blocking_send(m).is_ok()
                    }
                },
                Incoming::Reply(r) => replies.line(r.into_bytes()).is_ok(),
            });
        })?;
        Ok(StdioTransport { incoming, writer, pending })
    }
}

impl Transport<RoleServer> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.pending.answered(&item);
        // Serialized and written here, in order.
        let sent = serde_json::to_vec(&item)
            .map_err(std::io::Error::other)
            .and_then(|line| self.writer.line(line));
        std::future::ready(sent)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        self.incoming.recv().await.map(|m| *m)
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        self.writer.flush().await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::{Arc, Mutex};

    /// A `Write` whose bytes the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Messages reach the server parsed; the guard's answers and the server's go out
    /// whole, one per line, and a flush returns once they are written.
    #[tokio::test]
    async fn messages_in_replies_out_in_order() {
        let out = Shared::default();
        let writer = Writer::start(out.clone()).unwrap();
        let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n";
        let mut transport = StdioTransport::start(input.as_bytes(), writer.clone()).unwrap();
        let first = transport.receive().await.expect("the ping");
        assert!(matches!(first, rmcp::model::JsonRpcMessage::Request(_)), "{first:?}");
        assert!(transport.receive().await.is_none(), "the input has ended");
        let pong = TxJsonRpcMessage::<RoleServer>::response(
            rmcp::model::ServerResult::empty(()),
            rmcp::model::NumberOrString::Number(1),
        );
        transport.send(pong).await.unwrap();
        transport.close().await.unwrap();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<serde_json::Value> =
            text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2, "{text}");
        assert_eq!(lines[0]["error"]["code"], -32700, "{text}");
        assert_eq!((lines[1]["id"].clone(), lines[1]["result"].clone()), (1.into(), json!({})));
    }
}
