//! Connections: bounded, so slow or greedy clients cannot starve others.
//!
//! A connection holds a file descriptor and a task from `accept` until it closes,
//! whether or not it ever completes a request. Under `axum::serve`, a client that
//! opened a few hundred connections and sent half a request line on each kept them
//! open forever (there was no header-read timeout), and once the process ran out of
//! descriptors nobody else's connection was accepted. [`serve`] accepts connections
//! itself (HTTP/1.1, hyper) and bounds them:
//!
//! - **a header-read timeout**: a request head must be complete within
//!   [`ConnLimits::header_timeout`] of the connection's start or of the previous
//!   response, or the connection is closed;
//! - **a body-read deadline**: a request body must arrive within
//!   [`ConnLimits::body_timeout`] of its head, plus one second per [`MIN_BODY_RATE`]
//!   bytes received (a large body on a slow link still arrives; a body trickled a
//!   byte at a time does not hold its connection), or the request is answered `408`
//!   and the connection closed;
//! - **per client**: at most [`ConnLimits::max_per_client`] connections of one address
//!   (an IPv6 address counts by its /64 prefix, which one host usually holds whole),
//!   and, with authentication, of one identity (one token opening connections from
//!   many addresses);
//! - **in total**: at most [`ConnLimits::max_connections`], kept below half the
//!   descriptors the process may open ([`fit_to_fd_limit`]).
//!
//! A connection is protected from eviction only while it answers a complete request:
//! its whole body arrived and, with authentication, its token verified. A connection
//! past a cap closes, under that cap, the oldest connection that never had such a
//! request (a half-open one, one trickling a body, one whose token did not verify),
//! else the oldest one idle between requests; when every one is answering a request,
//! the new connection is closed at once (an identity past its cap is answered `429`).
//! A flood of half-open connections or of slow bodies, from however many addresses
//! and with or without a valid token, so evicts itself, and a request being answered
//! is never cut to make room for a newcomer.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, header};
use filestore_guest::error::{Error as FsError, ErrorKind};
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;
use tower::ServiceExt;

use super::identity::IdentityKey;

/// Most connections open at once: each holds a descriptor and a task, and past the
/// process's descriptor limit `accept` fails for everyone.
pub const MAX_CONNECTIONS: usize = 1024;

/// Most connections of one client address, and of one authenticated identity: one
/// client cannot take the whole [`MAX_CONNECTIONS`]. Behind a reverse proxy every user
/// shares the proxy's address: raise it there (`--max-connections-per-client`).
pub const MAX_CONNECTIONS_PER_CLIENT: usize = 128;

/// How long a request head may take to arrive (from the connection's start, or from
/// the previous response on a kept-alive connection): a client sending a request
/// line a byte at a time holds its connection no longer.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a request body may take beyond what its size needs at [`MIN_BODY_RATE`].
pub const BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// Bytes per second a request body must arrive at, after [`BODY_TIMEOUT`]: a 16 MiB
/// message may take 17 minutes, a body trickled a byte a second is cut.
pub const MIN_BODY_RATE: u64 = 16 * 1024;

/// How long a stopping server lets open connections finish.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Limits of the connections of `filestore serve --http`.
#[derive(Clone, Debug)]
pub struct ConnLimits {
    /// Most open connections.
    pub max_connections: usize,
    /// Most open connections of one client address (IPv6: of one /64), and of one
    /// authenticated identity.
    pub max_per_client: usize,
    /// How long a request head may take to arrive.
    pub header_timeout: Duration,
    /// How long a request body may take beyond its size at [`MIN_BODY_RATE`].
    pub body_timeout: Duration,
}

impl Default for ConnLimits {
    fn default() -> ConnLimits {
        ConnLimits {
            max_connections: MAX_CONNECTIONS,
            max_per_client: MAX_CONNECTIONS_PER_CLIENT,
            header_timeout: HEADER_TIMEOUT,
            body_timeout: BODY_TIMEOUT,
        }
    }
}

/// Raises the process's soft limit of open descriptors to its hard limit (as Go's
/// runtime does at start) and returns `max` connections lowered, when needed, to half
/// of it: the other half is for sandboxes, volumes and upstream connections. Also the
/// note to print when it was lowered.
pub fn fit_to_fd_limit(max: usize) -> (usize, Option<String>) {
    let Some(limit) = raise_fd_limit() else { return (max, None) };
    let fit = usize::try_from(limit / 2).unwrap_or(usize::MAX).max(1);
    if fit >= max {
        return (max, None);
    }
    let note = format!(
        "at most {fit} connections are served at once, not {max}: the process may open only {limit} files (raise `ulimit -n`)"
    );
    (fit, Some(note))
}

/// The soft limit of open descriptors after raising it to the hard one; `None` when
/// unlimited or unknown.
#[cfg(target_os = "linux")]
fn raise_fd_limit() -> Option<u64> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if let (Some(soft), Some(hard)) = (limit.current, limit.maximum)
        && hard > soft
    {
        limit.current = Some(hard);
        if setrlimit(Resource::Nofile, limit).is_err() {
            limit.current = Some(soft);
        }
    }
    limit.current
}

#[cfg(not(target_os = "linux"))]
fn raise_fd_limit() -> Option<u64> {
    None
}

/// The address a client's connections are counted under: IPv4 as it is (an
/// IPv4-mapped IPv6 address too), IPv6 by its /64 prefix.
fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

#[derive(Debug)]
struct Open {
    client: IpAddr,
    /// The identity its last verified request carried (with authentication).
    identity: Option<IdentityKey>,
    /// A complete request (whole body; with authentication, a verified token) was
    /// answered on it: it is evicted only after every connection that never had one.
    proven: bool,
    /// Complete requests being answered on it now: while any is, it is not evicted.
    answering: u32,
    /// The task serving it (set once spawned): aborting it closes the connection.
    task: Option<AbortHandle>,
}

/// The open connections, oldest first (ids grow).
#[derive(Debug, Default)]
struct Table {
    open: BTreeMap<u64, Open>,
    per_client: HashMap<IpAddr, usize>,
    next_id: u64,
}

impl Table {
    fn remove(&mut self, id: u64) -> Option<Open> {
        let gone = self.open.remove(&id)?;
        if let Some(n) = self.per_client.get_mut(&gone.client) {
            *n -= 1;
            if *n == 0 {
                self.per_client.remove(&gone.client);
            }
        }
        Some(gone)
    }

    /// The connection to close for a newcomer among those `within` admits: the
    /// oldest that never answered a complete request, else the oldest idle one; never
    /// one answering a request now.
    fn victim(&self, within: impl Fn(u64, &Open) -> bool) -> Option<u64> {
        let idle: Vec<(u64, bool)> = self
            .open
            .iter()
            .filter(|(id, c)| c.answering == 0 && within(**id, c))
            .map(|(id, c)| (*id, c.proven))
            .collect();
        idle.iter().find(|(_, proven)| !proven).or(idle.first()).map(|(id, _)| *id)
    }

    /// Removes connection `id`, returning its task to abort.
    fn evict(&mut self, id: u64) -> Option<(u64, Option<AbortHandle>)> {
        self.remove(id).map(|c| (id, c.task))
    }
}

/// The connections a server holds, and its [`ConnLimits`].
#[derive(Debug)]
pub struct Connections {
    limits: ConnLimits,
    table: Mutex<Table>,
}

/// One open connection.
#[derive(Clone, Debug)]
struct Connection {
    connections: Arc<Connections>,
    id: u64,
}

/// Removes its connection from the table when the task serving it ends (or is
/// aborted).
struct Slot(Connection);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.connections.lock().remove(self.0.id);
    }
}

/// A connection admitted, and the one closed to make room for it.
struct Admitted {
    connection: Connection,
    evicted: Option<(u64, Option<AbortHandle>)>,
}

impl Connections {
    /// No connections yet, under `limits`.
    pub fn new(limits: ConnLimits) -> Arc<Connections> {
        Arc::new(Connections { limits, table: Mutex::new(Table::default()) })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Admits a connection from `peer`, evicting as the [module documentation](self)
    /// says; `None`: refused (close it).
    fn admit(self: &Arc<Self>, peer: IpAddr) -> Option<Admitted> {
        let client = client_key(peer);
        let mut table = self.lock();
        let of_client = table.per_client.get(&client).copied().unwrap_or(0);
        let victim = if of_client >= self.limits.max_per_client {
            Some(table.victim(|_, c| c.client == client)?)
        } else if table.open.len() >= self.limits.max_connections {
            Some(table.victim(|_, _| true)?)
        } else {
            None
        };
        let evicted = victim.and_then(|id| table.evict(id));
        let id = table.next_id;
        table.next_id += 1;
        let open = Open { client, identity: None, proven: false, answering: 0, task: None };
        table.open.insert(id, open);
        *table.per_client.entry(client).or_insert(0) += 1;
        Some(Admitted { connection: Connection { connections: self.clone(), id }, evicted })
    }

    /// Records the task serving connection `id`, unless it already ended.
    fn started(&self, id: u64, task: AbortHandle) {
        if let Some(c) = self.lock().open.get_mut(&id) {
            c.task = Some(task);
        }
    }

    /// Notes that connection `id` carries a request of `who`: past the identity's cap,
    /// its oldest connection not answering a request is closed; `Err` when every one
    /// is (the request is refused).
    fn carry(&self, id: u64, who: &IdentityKey) -> Result<(), FsError> {
        let evicted = {
            let mut table = self.lock();
            let Some(c) = table.open.get_mut(&id) else { return Ok(()) };
            if c.identity.as_ref() == Some(who) {
                return Ok(());
            }
            c.identity = Some(who.clone());
            let mine = |other: u64, c: &Open| other != id && c.identity.as_ref() == Some(who);
            let held = table.open.iter().filter(|(other, c)| mine(**other, c)).count();
            if held < self.limits.max_per_client {
                return Ok(());
            }
            match table.victim(mine) {
                Some(victim) => table.evict(victim),
                None => {
                    if let Some(c) = table.open.get_mut(&id) {
                        c.identity = None;
                    }
                    return Err(FsError::new(
                        ErrorKind::LimitExceeded,
                        format!(
                            "this identity already has {} connections open, each answering a request (--max-connections-per-client); retry when one ends",
                            self.limits.max_per_client
                        ),
                    ));
                }
            }
        };
        if let Some((_, Some(task))) = evicted {
            task.abort();
        }
        Ok(())
    }

    /// A complete request on connection `id` is being answered (`true`) or was
    /// (`false`).
    fn answering(&self, id: u64, now: bool) {
        if let Some(c) = self.lock().open.get_mut(&id) {
            if now {
                c.answering += 1;
                c.proven = true;
            } else {
                c.answering = c.answering.saturating_sub(1);
            }
        }
    }
}

/// Where one request stands: a connection is protected while a complete request on
/// it (body arrived, token verified) is answered.
#[derive(Debug, Default)]
struct Progress {
    verified: bool,
    body_done: bool,
    /// Counted in the connection's `answering`.
    answering: bool,
    /// Its response ended: it no longer protects the connection.
    finished: bool,
}

/// One request on a connection (a request extension, see [`RequestMark`]).
#[derive(Debug)]
struct RequestState {
    connection: Connection,
    progress: Mutex<Progress>,
}

impl RequestState {
    fn update(&self, f: impl FnOnce(&mut Progress)) {
        let mut p = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut p);
        let complete = p.verified && p.body_done && !p.finished;
        if complete && !p.answering {
            p.answering = true;
            self.connection.connections.answering(self.connection.id, true);
        } else if p.finished && p.answering {
            p.answering = false;
            self.connection.connections.answering(self.connection.id, false);
        }
    }

    fn body_done(&self) -> bool {
        self.progress.lock().unwrap_or_else(|e| e.into_inner()).body_done
    }
}

/// The request being handled, as its extensions carry it: lets the authentication
/// say whose it is ([`RequestMark::verified`]).
#[derive(Clone, Debug)]
pub struct RequestMark(Arc<RequestState>);

impl RequestMark {
    /// The request's token verified as `who`. Past the identity's connection cap its
    /// oldest connection not answering a request is closed; `Err` (`limit-exceeded`:
    /// answer `429`) when every one is.
    pub fn verified(&self, who: &IdentityKey) -> Result<(), FsError> {
        let c = &self.0.connection;
        c.connections.carry(c.id, who)?;
        self.0.update(|p| p.verified = true);
        Ok(())
    }
}

/// Serves `router` on `listener` under `limits` until `shutdown` resolves, then lets
/// open connections finish for a few seconds. `authenticates`: whether requests are
/// authenticated (then a request counts as complete once its token verified, through
/// [`RequestMark::verified`], and its body arrived; otherwise once its body arrived).
/// Each request carries the peer's [`ConnectInfo`] and its [`RequestMark`].
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnLimits,
    authenticates: bool,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    // Dropped at shutdown: every connection then finishes its request and closes.
    let (stop, stopped) = tokio::sync::watch::channel(());
    let shared = Shared {
        router,
        authenticates,
        header_timeout: limits.header_timeout,
        body_timeout: limits.body_timeout,
        stopped,
    };
    let connections = Connections::new(limits);
    let mut tasks = tokio::task::JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    accept_failed(e).await;
                    continue;
                }
            },
            Some(_) = tasks.join_next(), if !tasks.is_empty() => continue,
            () = &mut shutdown => break,
        };
        let Some(admitted) = connections.admit(peer.ip()) else {
            drop(stream);
            continue;
        };
        if let Some((_, Some(task))) = admitted.evicted {
            task.abort();
        }
        let id = admitted.connection.id;
        let task = tasks.spawn(serve_one(stream, peer, admitted.connection, shared.clone()));
        connections.started(id, task);
    }
    drop(stop);
    let _ =
        tokio::time::timeout(SHUTDOWN_GRACE, async { while tasks.join_next().await.is_some() {} })
            .await;
    tasks.shutdown().await;
}

/// After a failed `accept`: a connection that went away is nothing; anything else
/// (out of descriptors or memory) leaves the connection in the backlog, so wait a
/// moment instead of spinning, and say it once.
async fn accept_failed(e: std::io::Error) {
    use std::io::ErrorKind as K;
    if matches!(e.kind(), K::ConnectionAborted | K::ConnectionReset | K::ConnectionRefused) {
        return;
    }
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!("filestore serve: accepting a connection failed ({e}); retrying (said once)")
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
}

/// What every connection of a server is served with.
#[derive(Clone)]
struct Shared {
    router: axum::Router,
    /// Whether requests are authenticated (see [`serve`]).
    authenticates: bool,
    header_timeout: Duration,
    body_timeout: Duration,
    /// Changes or closes when the server stops.
    stopped: tokio::sync::watch::Receiver<()>,
}

/// Serves one connection's requests until it closes, its header timeout passes or the
/// server stops.
async fn serve_one(stream: TcpStream, peer: SocketAddr, connection: Connection, shared: Shared) {
    let Shared { router, authenticates, header_timeout, body_timeout, mut stopped } = shared;
    let _slot = Slot(connection.clone());
    // TCP_NODELAY: a response is small and written at once; with Nagle's algorithm
    // and the client's delayed ACK each request waited ~40 ms on a reused connection.
    let _ = stream.set_nodelay(true);
    let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
        let state = Arc::new(RequestState {
            connection: connection.clone(),
            progress: Mutex::new(Progress { verified: !authenticates, ..Progress::default() }),
        });
        let (mut parts, body) = request.into_parts();
        if body.is_end_stream() {
            state.update(|p| p.body_done = true);
        }
        parts.extensions.insert(ConnectInfo(peer));
        parts.extensions.insert(RequestMark(state.clone()));
        let body = TimedBody::new(body, state.clone(), body_timeout);
        let request = hyper::Request::from_parts(parts, axum::body::Body::new(body));
        let answered = router.clone().oneshot(request);
        async move {
            let mut response = answered.await?;
            // A body not read to its end (refused before it was, or cut at its
            // deadline) is not drained: the connection closes after the answer.
            if !state.body_done() {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            Ok::<_, std::convert::Infallible>(response.map(|inner| AnsweredBody { inner, state }))
        }
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(header_timeout);
    let served = http.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(served);
    tokio::select! {
        _ = served.as_mut() => {}
        _ = stopped.changed() => {
            served.as_mut().graceful_shutdown();
            let _ = served.await;
        }
    }
}

/// Why a request body was cut: it did not arrive by its deadline (see the [module
/// documentation](self)).
#[derive(Debug)]
pub struct BodyTimeout {
    /// The deadline's allowance beyond the body's size.
    pub timeout: Duration,
}

impl std::fmt::Display for BodyTimeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the request body did not arrive in time (it may take {} s plus one second per {} KiB; --body-timeout)",
            self.timeout.as_secs(),
            MIN_BODY_RATE / 1024
        )
    }
}

impl std::error::Error for BodyTimeout {}

/// Whether `e` (or what caused it) is a [`BodyTimeout`].
pub fn is_body_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut at = Some(e);
    while let Some(e) = at {
        if e.is::<BodyTimeout>() {
            return true;
        }
        at = e.source();
    }
    false
}

/// A request body that fails with [`BodyTimeout`] past its deadline, and marks its
/// request's body complete at its end.
struct TimedBody {
    inner: Incoming,
    state: Arc<RequestState>,
    timeout: Duration,
    start: tokio::time::Instant,
    received: u64,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl TimedBody {
    fn new(inner: Incoming, state: Arc<RequestState>, timeout: Duration) -> TimedBody {
        let start = tokio::time::Instant::now();
        let deadline = Box::pin(tokio::time::sleep_until(start + timeout));
        TimedBody { inner, state, timeout, start, received: 0, deadline }
    }
}

impl Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.received += data.len() as u64;
                    let allowance = Duration::from_secs(this.received / MIN_BODY_RATE);
                    this.deadline.as_mut().reset(this.start + this.timeout + allowance);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(None) => {
                this.state.update(|p| p.body_done = true);
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(Box::new(e)))),
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    Poll::Ready(Some(Err(Box::new(BodyTimeout { timeout: this.timeout }))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// A response body: while it is sent, its complete request protects the connection;
/// once it ends (or the connection closes), no longer.
struct AnsweredBody {
    inner: axum::body::Body,
    state: Arc<RequestState>,
}

impl Body for AnsweredBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for AnsweredBody {
    fn drop(&mut self) {
        self.state.update(|p| p.finished = true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::identity::Source;

    fn limits(max_connections: usize, max_per_client: usize) -> ConnLimits {
        ConnLimits { max_connections, max_per_client, ..ConnLimits::default() }
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn who(s: &str) -> IdentityKey {
        (Source::StaticToken, s.into())
    }

    impl Admitted {
        fn id(&self) -> u64 {
            self.connection.id
        }
        fn evicted(&self) -> Option<u64> {
            self.evicted.as_ref().map(|e| e.0)
        }
    }

    /// Past a client's cap its oldest connection that never completed a request makes
    /// room, then its oldest idle one; while every one answers a request, the
    /// newcomer is refused.
    #[test]
    fn a_client_past_its_cap_evicts_its_own_idle_connections_oldest_unproven_first() {
        let c = Connections::new(limits(10, 3));
        let a0 = c.admit(ip("10.0.0.1")).unwrap();
        let a1 = c.admit(ip("10.0.0.1")).unwrap();
        let a2 = c.admit(ip("10.0.0.1")).unwrap();
        let other = c.admit(ip("10.0.0.2")).unwrap();
        // a0 answered a request and is idle again; a1 never completed one.
        c.answering(a0.id(), true);
        c.answering(a0.id(), false);
        let a3 = c.admit(ip("10.0.0.1")).unwrap();
        assert_eq!(a3.evicted(), Some(a1.id()), "the unproven one before the older idle one");
        let a4 = c.admit(ip("10.0.0.1")).unwrap();
        assert_eq!(a4.evicted(), Some(a2.id()));
        let a5 = c.admit(ip("10.0.0.1")).unwrap();
        assert_eq!(a5.evicted(), Some(a3.id()));
        for a in [&a4, &a5] {
            c.answering(a.id(), true);
        }
        let a6 = c.admit(ip("10.0.0.1")).unwrap();
        assert_eq!(a6.evicted(), Some(a0.id()), "an idle proven one, when no other is left");
        c.answering(a6.id(), true);
        assert!(c.admit(ip("10.0.0.1")).is_none(), "every connection answers a request");
        assert!(c.admit(ip("10.0.0.2")).unwrap().evicted.is_none());
        c.answering(a6.id(), false);
        assert_eq!(c.admit(ip("10.0.0.1")).unwrap().evicted(), Some(a6.id()));
        drop(other);
    }

    /// A full server evicts the oldest connection of anyone that is not answering a
    /// request, unproven ones first: a flood from many addresses evicts itself.
    #[test]
    fn a_full_server_evicts_the_oldest_unproven_connection() {
        let c = Connections::new(limits(3, 3));
        let user = c.admit(ip("10.0.0.1")).unwrap();
        c.answering(user.id(), true);
        let f1 = c.admit(ip("10.0.0.2")).unwrap();
        let f2 = c.admit(ip("10.0.0.3")).unwrap();
        let f3 = c.admit(ip("10.0.0.4")).unwrap();
        assert_eq!(f3.evicted(), Some(f1.id()));
        c.answering(f3.id(), true);
        let f4 = c.admit(ip("10.0.0.5")).unwrap();
        assert_eq!(f4.evicted(), Some(f2.id()));
        c.answering(f4.id(), true);
        assert!(c.admit(ip("10.0.0.6")).is_none(), "nothing left to evict");
        c.answering(user.id(), false);
        assert_eq!(c.admit(ip("10.0.0.6")).unwrap().evicted(), Some(user.id()));
    }

    /// One identity holds at most the per-client cap of
    /// connections, from however many addresses; past it, its own oldest connection
    /// not answering a request is closed, and while every one is, its request is
    /// refused. Another identity's connections are never touched.
    #[test]
    fn an_identity_past_its_cap_closes_its_own_connections() {
        let c = Connections::new(limits(10, 2));
        let bob = c.admit(ip("10.0.0.9")).unwrap();
        c.carry(bob.id(), &who("bob")).unwrap();
        let a: Vec<Admitted> =
            (1..=4).map(|i| c.admit(ip(&format!("10.0.0.{i}"))).unwrap()).collect();
        c.carry(a[0].id(), &who("alice")).unwrap();
        c.carry(a[1].id(), &who("alice")).unwrap();
        c.carry(a[2].id(), &who("alice")).unwrap();
        assert!(!c.lock().open.contains_key(&a[0].id()), "her oldest was closed");
        c.answering(a[1].id(), true);
        c.answering(a[2].id(), true);
        let e = c.carry(a[3].id(), &who("alice")).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::LimitExceeded);
        assert!(e.message().contains("2 connections"), "{e}");
        assert!(c.lock().open.contains_key(&bob.id()));
        c.carry(a[3].id(), &who("carol")).unwrap();
        c.answering(a[2].id(), false);
        c.carry(a[3].id(), &who("alice")).unwrap();
        assert!(!c.lock().open.contains_key(&a[2].id()));
    }

    #[test]
    fn ipv6_clients_count_by_their_slash_64() {
        let c = Connections::new(limits(10, 1));
        let first = c.admit(ip("2001:db8:1:2::1")).unwrap();
        c.answering(first.id(), true);
        assert!(c.admit(ip("2001:db8:1:2:ffff::9")).is_none(), "same /64");
        assert!(c.admit(ip("2001:db8:1:3::1")).is_some(), "another /64");
        assert_eq!(client_key(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
    }
}
