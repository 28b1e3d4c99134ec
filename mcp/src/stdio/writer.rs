//! The stdout writer of `filestore serve`'s stdio transport: lines go out whole, in
//! the order sent, from rmcp, the guard and the fast path alike.

use std::io::Write;
use std::sync::mpsc as std_mpsc;

use tokio::sync::oneshot;

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
    pub(super) fn line(&self, mut line: Vec<u8>) -> std::io::Result<()> {
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
