//! The stdio transport of `filestore serve`: stdin read and stdout written on
//! threads of their own, messages handed to and from rmcp whole.
//!
//! rmcp's own stdio transport reads and writes through tokio's `Stdin`/`Stdout`,
//! which run every `read` and `write` on the blocking pool: each request cost a
//! hand-off to a pool thread and back for the read, another pair for the write, and
//! (with the guard in front, [`crate::guard`]) two more copies of the line through
//! in-memory pipes, each parsed again. Here one thread blocks in `read` and parses
//! each line once ([`crate::guard::read_messages`]), handing rmcp the message, or
//! answering it itself when it is a call the fast path takes
//! ([`super::fast`]); one thread writes what rmcp, the fast path and the guard
//! send, in order, whole lines. A writer of its own, not writes in place: a client
//! may send a large batch before it reads any answer, and a reader thread blocked
//! on a full stdout would stop reading its input (both sides would wait forever).
//!
//! Neither thread belongs to the runtime, so neither can hold up its shutdown.

use std::io::Write;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use std::sync::mpsc as std_mpsc;

use tokio::sync::{mpsc, oneshot};

use crate::guard::Incoming;

/// Messages read ahead of the server: a few, so a burst of requests does not wait
/// on the reader, and little memory when each may be 16 MiB.
const READ_AHEAD: usize = 4;

/// What the writer thread is asked to do.
enum Out {
    /// One line, its newline included.
    Line(Vec<u8>),
    /// Answer once everything sent before is written and flushed.
    Flush(oneshot::Sender<()>),
}

/// The shared output: what the writer thread and in-place writes both write to.
type Output = std::sync::Arc<std::sync::Mutex<Box<dyn Write + Send>>>;

/// Free bytes in the pipe the output is (`None`: not a pipe, or not known).
type Room = std::sync::Arc<dyn Fn() -> Option<usize> + Send + Sync>;

/// The writer's end: lines go out in the order sent. A line is written in place by
/// its sender when nothing is queued before it and the pipe has room for it whole
/// (so the write cannot block: only this process writes to it, and the reader only
/// frees room), which spares the writer thread's wake-up (a third of a small read's
/// time over stdio); otherwise it is queued for the writer thread, which may block
/// on a full pipe without holding up its sender.
#[derive(Clone)]
pub struct Writer {
    tx: std_mpsc::Sender<Out>,
    out: Output,
    /// Lines queued for the thread and not written yet.
    queued: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    room: Option<Room>,
}

impl Writer {
    /// Starts the writer thread over `out` (every line is queued for it). It ends
    /// when every [`Writer`] is dropped, or at the first failed write (stdout
    /// closed): later sends fail.
    pub fn start(out: impl Write + Send + 'static) -> std::io::Result<Writer> {
        Self::start_with(Box::new(out), None)
    }

    /// [`Writer::start`] over this process's stdout, writing in place when it is a
    /// pipe with room for the line.
    pub fn stdout() -> std::io::Result<Writer> {
        let room: Room = std::sync::Arc::new(|| {
            let fd = std::io::stdout();
            let size = rustix::pipe::fcntl_getpipe_size(&fd).ok()?;
            let unread = usize::try_from(rustix::io::ioctl_fionread(&fd).ok()?).ok()?;
            Some(size.saturating_sub(unread))
        });
        let room = room().is_some().then_some(room);
        Self::start_with(Box::new(std::io::stdout()), room)
    }

    fn start_with(out: Box<dyn Write + Send>, room: Option<Room>) -> std::io::Result<Writer> {
        let (tx, rx) = std_mpsc::channel();
        let out: Output = std::sync::Arc::new(std::sync::Mutex::new(out));
        let queued = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (thread_out, thread_queued) = (out.clone(), queued.clone());
        std::thread::Builder::new()
            .name("filestore-stdout".into())
            .spawn(move || write_lines(rx, thread_out, thread_queued))?;
        Ok(Writer { tx, out, queued, room })
    }

    /// Writes `line` (a newline is added), in place or through the thread.
    fn line(&self, mut line: Vec<u8>) -> std::io::Result<()> {
        use std::sync::atomic::Ordering::SeqCst;
        line.push(b'\n');
        if let Some(room) = &self.room
            && self.queued.load(SeqCst) == 0
        {
            let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
            if self.queued.load(SeqCst) == 0 && room().is_some_and(|free| free >= line.len()) {
                out.write_all(&line)?;
                return out.flush();
            }
        }
        self.queued.fetch_add(1, SeqCst);
        self.tx.send(Out::Line(line)).map_err(|_| closed())
    }

    /// Waits until everything queued so far is written (or cannot be).
    pub async fn flush(&self) {
        let (done, written) = oneshot::channel();
        if self.tx.send(Out::Flush(done)).is_ok() {
            let _ = written.await;
        }
    }
}

/// The writer thread: writes each queued line, flushing once the queue is empty
/// (a burst of notifications goes out in one write where it can).
fn write_lines(
    rx: std_mpsc::Receiver<Out>,
    out: Output,
    queued: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) {
    let lock = || out.lock().unwrap_or_else(|p| p.into_inner());
    let mut flushed = Vec::new();
    while let Ok(first) = rx.recv() {
        let mut next = Some(first);
        while let Some(item) = next.take() {
            match item {
                Out::Line(line) => {
                    let written = lock().write_all(&line);
                    queued.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                    if written.is_err() {
                        return;
                    }
                }
                Out::Flush(done) => flushed.push(done),
            }
            next = rx.try_recv().ok();
        }
        if lock().flush().is_err() {
            return;
        }
        for done in flushed.drain(..) {
            let _ = done.send(());
        }
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed")
}

/// rmcp's transport over the reader and writer threads.
pub struct StdioTransport {
    incoming: mpsc::Receiver<Box<RxJsonRpcMessage<RoleServer>>>,
    writer: Writer,
    /// Counts the requests rmcp has not answered yet (see [`super::fast`]).
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
