//! The stdio transport of `filestore serve`: stdin read and stdout written on
//! threads of their own, messages handed to and from rmcp whole.
//!
//! rmcp's own stdio transport reads and writes through tokio's `Stdin`/`Stdout`,
//! which run every `read` and `write` on the blocking pool: each request cost a
//! hand-off to a pool thread and back for the read, another pair for the write, and
//! (with the guard in front, [`crate::guard`]) two more copies of the line through
//! in-memory pipes, each parsed again. Here one thread blocks in `read` and parses
//! each line once ([`crate::guard::read_messages`]), handing rmcp the message, or
//! answering it itself or handing it to the executor thread when it is a call the
//! fast path takes ([`super::fast`]); one thread writes what rmcp, the fast path
//! and the guard send, in order, whole lines ([`super::writer`]). A writer of its
//! own, not writes in place: a client
//! may send a large batch before it reads any answer, and a reader thread blocked
//! on a full stdout would stop reading its input (both sides would wait forever).
//!
//! Neither thread belongs to the runtime, so neither can hold up its shutdown.

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use tokio::sync::mpsc;

use super::fast::Route;
use super::writer::Writer;
use crate::guard::Incoming;

/// Messages read ahead of the server: a few, so a burst of requests does not wait
/// on the reader, and little memory when each may be 16 MiB.
const READ_AHEAD: usize = 4;

/// rmcp's transport over the reader and writer threads.
pub struct StdioTransport {
    incoming: mpsc::Receiver<Box<RxJsonRpcMessage<RoleServer>>>,
    writer: Writer,
    /// Counts the requests rmcp has not answered yet, and drops its answers to
    /// those given up at the end of input (see [`super::in_flight`]).
    pending: std::sync::Arc<super::fast::FastPath>,
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
    /// answers the calls it takes itself ([`super::fast`]).
    pub fn start_with(
        input: impl std::io::Read + Send + 'static,
        writer: Writer,
        fast: std::sync::Arc<super::fast::FastPath>,
    ) -> std::io::Result<StdioTransport> {
        let (tx, incoming) = mpsc::channel(READ_AHEAD);
        let replies = writer.clone();
        let pending = fast.clone();
        std::thread::Builder::new().name("filestore-stdin".into()).spawn(move || {
            // A read error ends the input, as the end of input does.
            let input = std::io::BufReader::with_capacity(64 * 1024, input);
            let _ = crate::guard::read_messages(input, |item| match item {
                Incoming::Message(m) => match fast.route(m) {
                    Route::Answered(line) => replies.line(line).is_ok(),
                    Route::Running => true,
                    Route::Rmcp(mut m) => {
                        fast.delivered(&mut m);
                        tx.blocking_send(m).is_ok()
                    }
                },
                Incoming::Reply(r) => replies.line(r.into_bytes()).is_ok(),
            });
            // rmcp hears the input end (`tx` dropped) once every request read is
            // answered, the executor's call among them, which may still need rmcp
            // (a notification, an approval); and after this thread's hold on the
            // fast path (its server) is let go, so the session ends (its sandbox
            // dropped, upstream servers waited for) before the process does.
            fast.input_ended(&replies);
            drop(fast);
            drop(tx);
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
        if !self.pending.answered(&item) {
            return std::future::ready(Ok(()));
        }
        // Serialized here, queued in order; the write itself is the writer's.
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
    use std::io::Write;
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
    /// whole, one per line, and a flush returns once they are written. The server
    /// hears the input end once it has answered what it was given.
    #[tokio::test]
    async fn messages_in_replies_out_in_order() {
        let out = Shared::default();
        let writer = Writer::start(out.clone()).unwrap();
        let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n";
        let mut transport = StdioTransport::start(input.as_bytes(), writer.clone()).unwrap();
        let first = transport.receive().await.expect("the ping");
        assert!(matches!(first, rmcp::model::JsonRpcMessage::Request(_)), "{first:?}");
        let pong = TxJsonRpcMessage::<RoleServer>::response(
            rmcp::model::ServerResult::empty(()),
            rmcp::model::NumberOrString::Number(1),
        );
        transport.send(pong).await.unwrap();
        assert!(transport.receive().await.is_none(), "the input has ended");
        transport.close().await.unwrap();
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<serde_json::Value> =
            text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        // The two are written by different threads, in either order.
        assert_eq!(lines.len(), 2, "{text}");
        assert!(lines.iter().any(|l| l["error"]["code"] == -32700), "{text}");
        assert!(lines.iter().any(|l| l["id"] == 1 && l["result"] == json!({})), "{text}");
    }
}
