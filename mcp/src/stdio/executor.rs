//! The fast path's executor: a thread that runs the calls the reader hands it
//! ([`super::fast`]), one at a time, and writes their answers.
//!
//! Through rmcp a call passes from the reader to a runtime worker (rmcp's serve
//! loop), to the task rmcp spawns for it, to `block_in_place` (which wakes a
//! blocking-pool thread to carry the worker's other tasks), and back to the serve
//! loop to be written: most of a trivial command's time on a 2-CPU machine
//! (BENCHMARKS.md, "The shell"). Here the reader hands the call to this thread
//! (one wake-up), which runs the same handler ([`rmcp::Service::handle_request`] of
//! the same [`FilestoreServer`]) on the server's runtime with the thread's own
//! `block_on`, the sandbox work in place, and writes the answer itself.
//!
//! The reader goes on reading meanwhile, so what a running call needs from the
//! client still reaches it: a `notifications/cancelled` naming it
//! ([`Executor::cancel`], which rmcp would never see: the request is not rmcp's),
//! and the answers to the requests its handler sends through rmcp (an approval
//! asked by elicitation, the roots). A cancelled call's answer is not written, as
//! rmcp writes none for a cancelled request; one given up at the end of input is
//! answered by the reader instead ([`super::fast::FastPath::input_ended`]).

use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::{ClientRequest, JsonRpcMessage, RequestId};
use rmcp::service::{RequestContext, Service, TxJsonRpcMessage};

use super::in_flight::InFlight;
use super::writer::Writer;
use crate::fast_call::Cancellation;
use crate::server::FilestoreServer;

/// A call for the executor: the request and its context, as rmcp would make them,
/// and the server to run it with (held only while it runs, so that the session's
/// sandbox, its upstream servers with it, ends with the session, not with this
/// thread).
pub(super) struct Job {
    pub server: FilestoreServer,
    pub id: RequestId,
    pub request: ClientRequest,
    pub context: RequestContext<RoleServer>,
}

/// The executor thread's end (see the module docs).
pub(super) struct Executor {
    jobs: std_mpsc::Sender<Job>,
    running: Arc<Running>,
}

/// The call the executor runs now, if any (its id and cancellation); `over` is
/// told when it ends, and so is the count of answers the end of input waits on.
struct Running {
    call: Mutex<Option<(RequestId, Arc<Cancellation>)>>,
    over: Condvar,
    in_flight: Arc<InFlight>,
}

impl Running {
    fn call(&self) -> MutexGuard<'_, Option<(RequestId, Arc<Cancellation>)>> {
        self.call.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The call is over: `answer` is written unless it was cancelled. From now on
    /// a cancellation naming it finds nothing to cancel, as in rmcp once a request
    /// is answered. The answer is queued before anyone waiting is told, so the end
    /// of input never lets the process end ahead of it.
    fn finish(&self, answer: impl FnOnce()) {
        let mut call = self.call();
        if !call.take().is_some_and(|(_, c)| c.is_cancelled()) {
            answer();
        }
        drop(call);
        self.over.notify_all();
        self.in_flight.call_ended();
    }
}

impl Executor {
    /// Starts the executor thread, running calls on `runtime` and writing their
    /// answers to `writer`; each call's end is counted in `in_flight`.
    pub fn start(
        runtime: tokio::runtime::Handle,
        writer: Writer,
        in_flight: Arc<InFlight>,
    ) -> std::io::Result<Executor> {
        let (jobs, rx) = std_mpsc::channel();
        let running = Arc::new(Running { call: Mutex::new(None), over: Condvar::new(), in_flight });
        let thread_running = running.clone();
        std::thread::Builder::new().name("filestore-calls".into()).spawn(move || {
            for job in rx {
                let line = answer(&runtime, job);
                // A closed stdout ends the session: the reader sees its input end.
                thread_running.finish(|| drop(writer.line(line)));
            }
        })?;
        Ok(Executor { jobs, running })
    }

    /// Whether a call is running (the fast path then hands everything to rmcp: a
    /// call run meanwhile would wait for the sandbox, on the reader thread).
    pub fn is_busy(&self) -> bool {
        self.running.call().is_some()
    }

    /// Runs `job` on the executor thread; the job back if the thread is gone (it
    /// never ends while this end is held, and a panic in a call is answered).
    pub fn run(&self, mut job: Job) -> Result<(), Box<Job>> {
        let cancellation = Arc::new(Cancellation::new(job.context.ct.clone()));
        job.context.extensions.insert(cancellation.clone());
        *self.running.call() = Some((job.id.clone(), cancellation));
        self.jobs.send(job).map_err(|e| {
            self.running.call().take();
            Box::new(e.0)
        })
    }

    /// A `notifications/cancelled` naming `id`: cancels the running call if it is
    /// that request.
    pub fn cancel(&self, id: &RequestId) {
        if let Some((running, cancellation)) = &*self.running.call()
            && running == id
        {
            cancellation.cancel();
        }
    }

    /// Gives up on the running call at the end of input: cancels it (its answer is
    /// then not written) and returns its id, for the caller to answer; none if the
    /// client cancelled it already (it gets no answer).
    pub fn abandon(&self) -> Option<RequestId> {
        let call = self.running.call();
        let (id, cancellation) = call.as_ref()?;
        if cancellation.is_cancelled() {
            return None;
        }
        cancellation.cancel();
        Some(id.clone())
    }

    /// Waits at most `limit` for no call to be running: whether none is.
    pub fn wait(&self, limit: Duration) -> bool {
        let end = Instant::now() + limit;
        let mut call = self.running.call();
        while call.is_some() {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            call = self.running.over.wait_timeout(call, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        true
    }
}

/// Runs `job` with its server's handler and gives its answer line. A panic in the
/// handler is answered as an internal error (the thread goes on to the next call).
fn answer(runtime: &tokio::runtime::Handle, job: Job) -> Vec<u8> {
    let Job { server, id, request, context } = job;
    let (result, passed) = crate::fast_call::run_on_executor(|| {
        let run = std::panic::AssertUnwindSafe(|| {
            runtime.block_on(server.handle_request(request, context))
        });
        std::panic::catch_unwind(run)
    });
    let reply: TxJsonRpcMessage<RoleServer> = match result {
        Ok(Ok(result)) => JsonRpcMessage::response(result, id),
        Ok(Err(error)) => JsonRpcMessage::error(error, Some(id)),
        Err(panic) => {
            let why = crate::server::panic_message(panic.as_ref());
            let error = rmcp::ErrorData::internal_error(format!("the call failed: {why}"), None);
            JsonRpcMessage::error(error, Some(id))
        }
    };
    super::answer::answer_line(reply, passed)
}
