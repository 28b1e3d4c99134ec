//! The calls the stdio fast path ([`crate::stdio::fast`]) runs, as the server's
//! sandbox work sees them: where the current thread runs one ([`on_reader`]: the
//! thread reading stdin, its own to block, where nothing can be cancelled and
//! nothing may wait for input; [`on_executor`]: the fast path's executor thread,
//! also its own to block, while the reader goes on reading), how an executor call
//! is cancelled ([`Cancellation`]; [`RequestCancellation`] for every call), and a
//! listing's JSON passed through to the answer unparsed ([`pass_json_through`]).
//! Below the server, which asks; the fast path above it sets them.

use std::cell::{Cell, RefCell};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Which of the fast path's threads the current thread is, while it runs a call.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Elsewhere,
    Reader,
    Executor,
}

thread_local! {
    /// Set while the fast path's reader or executor thread runs a call: the sandbox
    /// work runs in place there (it is the thread's own to block), see
    /// [`FilestoreServer::on_sandbox`](crate::server).
    static PLACE: Cell<Place> = const { Cell::new(Place::Elsewhere) };
}

/// Whether the current thread is the fast path's reader, running a call: nothing
/// can cancel the call (the thread that would read the cancellation is running
/// it), and it must not wait for anything the client sends.
pub(crate) fn on_reader() -> bool {
    PLACE.with(Cell::get) == Place::Reader
}

/// Whether the current thread is the fast path's executor, running a call: its
/// cancellation is the [`Cancellation`] in the request's extensions.
pub(crate) fn on_executor() -> bool {
    PLACE.with(Cell::get) == Place::Executor
}

thread_local! {
    /// The structured content of the fast path's call, as JSON text, when the call
    /// passed it through ([`pass_json_through`]); taken when the answer is written.
    static PASSED_JSON: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `call` as the fast path's reader on this thread ([`on_reader`] holds
/// meanwhile): its result, and the JSON it passed through ([`pass_json_through`]),
/// if any.
pub(crate) fn run_on_reader<T>(call: impl FnOnce() -> T) -> (T, Option<String>) {
    run_at(Place::Reader, call)
}

/// [`run_on_reader`] for the fast path's executor ([`on_executor`] holds meanwhile).
pub(crate) fn run_on_executor<T>(call: impl FnOnce() -> T) -> (T, Option<String>) {
    run_at(Place::Executor, call)
}

fn run_at<T>(place: Place, call: impl FnOnce() -> T) -> (T, Option<String>) {
    /// Puts the thread back as it was, also when the call panics.
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            PLACE.with(|p| p.set(Place::Elsewhere));
        }
    }
    take_passed_json();
    PLACE.with(|p| p.set(place));
    let leave = Leave;
    let result = call();
    drop(leave);
    (result, take_passed_json())
}

fn take_passed_json() -> Option<String> {
    PASSED_JSON.with(|p| p.borrow_mut().take())
}

/// Whether a successful call of `tool` should hand its JSON over unparsed: on the
/// fast path, whose answer is written by [`crate::stdio::fast`], for a listing (the
/// largest JSON it answers; a read's result is looked into for media, and is small).
pub(crate) fn passes_json_through(tool: &str) -> bool {
    PLACE.with(Cell::get) != Place::Elsewhere && tool == "filestore_ls"
}

/// Keeps `out`'s JSON object for the answer (the fast path writes it as the result's
/// `structuredContent`), and gives the call's result on with an empty object in its
/// place: nothing between here and the answer looks into a listing's JSON
/// (approvals and media concern other tools). JSON that is not an object (a
/// built-in's always is) is given on parsed, for `reply::success` to wrap as it
/// wraps any other.
pub(crate) fn pass_json_through(
    out: filestore_runtime::UnparsedCallOutput,
) -> filestore_runtime::CallOutput {
    let filestore_runtime::UnparsedCallOutput { json, text } = out;
    if !json.trim_start().starts_with('{') {
        let json = serde_json::from_str(&json).unwrap_or(serde_json::Value::Null);
        return filestore_runtime::CallOutput { json, text };
    }
    PASSED_JSON.with(|p| *p.borrow_mut() = Some(json));
    filestore_runtime::CallOutput { json: serde_json::Value::Object(Default::default()), text }
}

/// The stdio reader's cancellation of a request it hands to rmcp, in the request's
/// extensions: cancelled as soon as the reader reads a `notifications/cancelled`
/// naming the request ([`crate::stdio::fast`]).
///
/// rmcp cancels the request's own token only once its serve loop takes the
/// notification up, on another thread, while the reader cancels a call on the
/// executor the moment it reads one. Without this, a client cancelling a call that
/// waits for the sandbox (rmcp's) and then the call that holds it (the executor's)
/// could free the sandbox before rmcp had marked the first cancelled, and the
/// first would run.
#[derive(Clone, Default)]
pub(crate) struct ReadCancellation(pub(crate) tokio_util::sync::CancellationToken);

/// Every way a call can be cancelled before it ends: its request's token (rmcp's,
/// or the executor's) and, for a request the stdio reader handed to rmcp, the
/// reader's ([`ReadCancellation`]).
#[derive(Clone)]
pub(crate) struct RequestCancellation {
    token: tokio_util::sync::CancellationToken,
    read: Option<tokio_util::sync::CancellationToken>,
}

impl RequestCancellation {
    /// The cancellation of the request of `context`.
    pub(crate) fn of(context: &rmcp::service::RequestContext<rmcp::RoleServer>) -> Self {
        Self::from_parts(&context.ct, &context.extensions)
    }

    fn from_parts(
        token: &tokio_util::sync::CancellationToken,
        extensions: &rmcp::model::Extensions,
    ) -> Self {
        let read = extensions.get::<ReadCancellation>().map(|r| r.0.clone());
        RequestCancellation { token: token.clone(), read }
    }

    /// Whether the call is cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.token.is_cancelled() || self.read.as_ref().is_some_and(|r| r.is_cancelled())
    }

    /// Returns once the call is cancelled.
    pub(crate) async fn cancelled(&self) {
        match &self.read {
            Some(read) => tokio::select! {
                _ = self.token.cancelled() => {}
                _ = read.cancelled() => {}
            },
            None => self.token.cancelled().await,
        }
    }
}

/// What interrupts a running call once it is cancelled: started on cancellation.
pub(crate) type StartInterrupt = Box<dyn FnOnce() -> tokio::task::JoinHandle<()> + Send>;

/// The cancellation of a call the fast path's executor runs, in its request's
/// extensions. The reader thread, which reads the client's `notifications/cancelled`
/// while the executor runs the call, cancels it ([`Cancellation::cancel`]); the
/// server's watch of the call arms it ([`Cancellation::arm`]) with what interrupts
/// the call, the same watch an rmcp request gets, but started only once the call is
/// cancelled: a call nobody cancels (nearly every call) costs no task and no other
/// thread's wake-up.
pub(crate) struct Cancellation {
    cancelled: AtomicBool,
    /// The request's cancellation token, cancelled with it (as rmcp cancels a
    /// request's).
    token: tokio_util::sync::CancellationToken,
    watch: Mutex<Watch>,
}

/// Where a [`Cancellation`]'s watch stands.
enum Watch {
    /// Not armed yet (the call has not reached the sandbox).
    Unarmed,
    Armed(StartInterrupt),
    /// Cancelled: interrupting the call.
    Started(tokio::task::JoinHandle<()>),
    /// The call is over ([`Cancellation::disarm`]).
    Over,
}

impl Cancellation {
    /// The cancellation of a request whose token is `token`.
    pub(crate) fn new(token: tokio_util::sync::CancellationToken) -> Cancellation {
        Cancellation { cancelled: AtomicBool::new(false), token, watch: Mutex::new(Watch::Unarmed) }
    }

    fn watch(&self) -> std::sync::MutexGuard<'_, Watch> {
        self.watch.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether the call was cancelled (its answer is then not sent, as rmcp sends
    /// none for a cancelled request).
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::SeqCst)
    }

    /// The client cancelled the call: what interrupts it starts now if it is armed,
    /// else when it is.
    pub(crate) fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.token.cancel();
        let mut watch = self.watch();
        if let Watch::Armed(_) = &*watch
            && let Watch::Armed(start) = std::mem::replace(&mut *watch, Watch::Over)
        {
            *watch = Watch::Started(start());
        }
    }

    /// The call reached the sandbox: `start` interrupts it once it is cancelled (at
    /// once if it already is).
    pub(crate) fn arm(&self, start: StartInterrupt) {
        let mut watch = self.watch();
        match &*watch {
            Watch::Unarmed | Watch::Armed(_) if self.is_cancelled() => {
                *watch = Watch::Started(start());
            }
            Watch::Unarmed | Watch::Armed(_) => *watch = Watch::Armed(start),
            Watch::Started(_) | Watch::Over => {}
        }
    }

    /// The call is over: what interrupts it, if it started, stops.
    pub(crate) fn disarm(&self) {
        if let Watch::Started(task) = std::mem::replace(&mut *self.watch(), Watch::Over) {
            task.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A call is cancelled by its request's token or, when the stdio reader put one
    /// in its extensions, by the reader's, whichever comes first.
    #[test]
    fn a_call_is_cancelled_by_either_token() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let token = tokio_util::sync::CancellationToken::new();
        let plain = RequestCancellation::from_parts(&token, &Default::default());
        let read = ReadCancellation::default();
        let mut extensions = rmcp::model::Extensions::new();
        extensions.insert(read.clone());
        let either = RequestCancellation::from_parts(&token, &extensions);
        assert!(!plain.is_cancelled() && !either.is_cancelled());
        read.0.cancel();
        assert!(either.is_cancelled() && !plain.is_cancelled(), "the reader's token");
        runtime.block_on(either.cancelled());
        let waited = runtime.block_on(async {
            tokio::time::timeout(std::time::Duration::from_millis(50), plain.cancelled()).await
        });
        assert!(waited.is_err(), "the reader's token is not this request's");
        token.cancel();
        assert!(plain.is_cancelled());
        runtime.block_on(plain.cancelled());
    }

    /// What interrupts a call starts once the call is both armed and cancelled,
    /// whichever comes first, and only once; a call over (disarmed) starts nothing,
    /// and the request's token is cancelled with it.
    #[test]
    fn the_interrupt_starts_once_armed_and_cancelled() {
        use std::sync::Arc;
        use std::sync::atomic::AtomicUsize;
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let starts = Arc::new(AtomicUsize::new(0));
        let start = || -> StartInterrupt {
            let (starts, handle) = (starts.clone(), runtime.handle().clone());
            Box::new(move || {
                starts.fetch_add(1, Ordering::SeqCst);
                handle.spawn(std::future::pending())
            })
        };
        let started = || starts.load(Ordering::SeqCst);

        let token = tokio_util::sync::CancellationToken::new();
        let armed_first = Cancellation::new(token.clone());
        armed_first.arm(start());
        assert_eq!((started(), armed_first.is_cancelled()), (0, false));
        armed_first.cancel();
        armed_first.cancel();
        assert_eq!(started(), 1);
        assert!(armed_first.is_cancelled() && token.is_cancelled());
        armed_first.disarm();

        let cancelled_first = Cancellation::new(Default::default());
        cancelled_first.cancel();
        assert_eq!(started(), 1, "nothing to interrupt before the call reaches the sandbox");
        cancelled_first.arm(start());
        assert_eq!(started(), 2);
        cancelled_first.disarm();

        let never = Cancellation::new(Default::default());
        never.arm(start());
        never.disarm();
        never.cancel();
        assert_eq!(started(), 2, "a call over is not interrupted");
        assert!(never.is_cancelled());
    }

    /// JSON that is not an object is not kept but wrapped as `reply::success` wraps
    /// any other; an object is kept for the answer, an empty object in its place.
    #[test]
    fn only_an_object_passes_through() {
        let out = pass_json_through(filestore_runtime::UnparsedCallOutput {
            json: "[1,2]".into(),
            text: String::new(),
        });
        assert_eq!(take_passed_json(), None);
        let written = serde_json::to_value(crate::reply::success(out)).unwrap();
        assert_eq!(written["structuredContent"], json!({"result": [1, 2]}));

        let listing = r#"{"path":"/w","entries":[]}"#;
        let ((), passed) = run_on_reader(|| {
            let out = pass_json_through(filestore_runtime::UnparsedCallOutput {
                json: listing.into(),
                text: String::new(),
            });
            assert_eq!(out.json, json!({}));
            assert!(on_reader() && !on_executor());
        });
        assert_eq!(passed.as_deref(), Some(listing));
        assert!(!on_reader());
    }
}
