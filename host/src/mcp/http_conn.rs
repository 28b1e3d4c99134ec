//! Connections before authentication: bounded, so slow clients cannot starve others.
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
//! - **per client**: at most [`ConnLimits::max_per_client`] connections of one address
//!   (an IPv6 address counts by its /64 prefix, which one host usually holds whole);
//! - **in total**: at most [`ConnLimits::max_connections`], kept below half the
//!   descriptors the process may open ([`fit_to_fd_limit`]).
//!
//! A connection past a cap closes the oldest connection under that cap that is not
//! authenticated yet (no request on it carried a valid token; on a server without
//! authentication, no request on it arrived); when every one is, the new connection is
//! closed at once. A flood of half-open connections, from however many addresses,
//! so evicts itself, and an authenticated user's connection is never closed to make
//! room for a newcomer.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;
use tower::ServiceExt;

/// Most connections open at once: each holds a descriptor and a task, and past the
/// process's descriptor limit `accept` fails for everyone.
pub const MAX_CONNECTIONS: usize = 1024;

/// Most connections of one client address: one client cannot take the whole
/// [`MAX_CONNECTIONS`]. Behind a reverse proxy every user shares the proxy's address:
/// raise it there (`--max-connections-per-client`).
pub const MAX_CONNECTIONS_PER_CLIENT: usize = 128;

/// How long a request head may take to arrive (from the connection's start, or from
/// the previous response on a kept-alive connection): a client sending a request
/// line a byte at a time holds its connection no longer.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a stopping server lets open connections finish.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Limits of the connections of `filestore serve --http`.
#[derive(Clone, Debug)]
pub struct ConnLimits {
    /// Most open connections.
    pub max_connections: usize,
    /// Most open connections of one client address (IPv6: of one /64).
    pub max_per_client: usize,
    /// How long a request head may take to arrive.
    pub header_timeout: Duration,
}

impl Default for ConnLimits {
    fn default() -> ConnLimits {
        ConnLimits {
            max_connections: MAX_CONNECTIONS,
            max_per_client: MAX_CONNECTIONS_PER_CLIENT,
            header_timeout: HEADER_TIMEOUT,
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
    authenticated: bool,
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

    /// The oldest connection not authenticated yet (of `client`, when given).
    fn oldest_pending(&self, client: Option<IpAddr>) -> Option<u64> {
        self.open
            .iter()
            .find(|(_, c)| !c.authenticated && client.is_none_or(|k| c.client == k))
            .map(|(id, _)| *id)
    }
}

/// The connections a server holds, and its [`ConnLimits`].
#[derive(Debug)]
pub struct Connections {
    limits: ConnLimits,
    table: Mutex<Table>,
}

/// One open connection, as its requests carry it (a request extension): lets the
/// authentication mark it authenticated. Marking a closed one does nothing.
#[derive(Clone, Debug)]
pub struct Connection {
    connections: Arc<Connections>,
    id: u64,
}

impl Connection {
    /// Notes that a request on this connection was authenticated: it is no longer
    /// closed to make room for newcomers.
    pub fn authenticated(&self) {
        if let Some(c) = self.connections.lock().open.get_mut(&self.id) {
            c.authenticated = true;
        }
    }
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
            Some(table.oldest_pending(Some(client))?)
        } else if table.open.len() >= self.limits.max_connections {
            Some(table.oldest_pending(None)?)
        } else {
            None
        };
        let evicted = victim.and_then(|id| table.remove(id).map(|c| (id, c.task)));
        let id = table.next_id;
        table.next_id += 1;
        table.open.insert(id, Open { client, authenticated: false, task: None });
        *table.per_client.entry(client).or_insert(0) += 1;
        Some(Admitted { connection: Connection { connections: self.clone(), id }, evicted })
    }

    /// Records the task serving connection `id`, unless it already ended.
    fn started(&self, id: u64, task: AbortHandle) {
        if let Some(c) = self.lock().open.get_mut(&id) {
            c.task = Some(task);
        }
    }
}

/// Serves `router` on `listener` under `limits` until `shutdown` resolves, then lets
/// open connections finish for a few seconds. `authenticates`: whether requests are
/// authenticated (then a connection counts as such once [`Connection::authenticated`]
/// is called; otherwise once a request arrives). Each request carries the peer's
/// [`ConnectInfo`] and its [`Connection`].
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnLimits,
    authenticates: bool,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) {
    // Dropped at shutdown: every connection then finishes its request and closes.
    let (stop, stopped) = tokio::sync::watch::channel(());
    let shared = Shared { router, authenticates, header_timeout: limits.header_timeout, stopped };
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
    /// Changes or closes when the server stops.
    stopped: tokio::sync::watch::Receiver<()>,
}

/// Serves one connection's requests until it closes, its header timeout passes or the
/// server stops.
async fn serve_one(stream: TcpStream, peer: SocketAddr, connection: Connection, shared: Shared) {
    let Shared { router, authenticates, header_timeout, mut stopped } = shared;
    let _slot = Slot(connection.clone());
    // TCP_NODELAY: a response is small and written at once; with Nagle's algorithm
    // and the client's delayed ACK each request waited ~40 ms on a reused connection.
    let _ = stream.set_nodelay(true);
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        if !authenticates {
            connection.authenticated();
        }
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(connection.clone());
        router.clone().oneshot(request.map(axum::body::Body::new))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_connections: usize, max_per_client: usize) -> ConnLimits {
        ConnLimits { max_connections, max_per_client, header_timeout: HEADER_TIMEOUT }
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// Past a client's cap its oldest unauthenticated connection makes room; when all
    /// of them are authenticated, the newcomer is refused.
    #[test]
    fn a_client_past_its_cap_evicts_its_own_oldest_pending_connection() {
        let c = Connections::new(limits(10, 2));
        let a0 = c.admit(ip("10.0.0.1")).unwrap();
        let a1 = c.admit(ip("10.0.0.1")).unwrap();
        let other = c.admit(ip("10.0.0.2")).unwrap();
        let a2 = c.admit(ip("10.0.0.1")).unwrap();
        assert_eq!(a2.evicted.map(|e| e.0), Some(a0.connection.id));
        a1.connection.authenticated();
        a2.connection.authenticated();
        assert!(c.admit(ip("10.0.0.1")).is_none(), "every connection of the client is in use");
        assert!(c.admit(ip("10.0.0.2")).unwrap().evicted.is_none());
        drop(Slot(a1.connection));
        assert!(c.admit(ip("10.0.0.1")).unwrap().evicted.is_none(), "a closed one frees its place");
        drop(other);
    }

    /// A full server evicts the oldest unauthenticated connection of anyone: a flood
    /// from many addresses evicts itself, authenticated users' connections stay.
    #[test]
    fn a_full_server_evicts_the_oldest_pending_connection() {
        let c = Connections::new(limits(3, 3));
        let user = c.admit(ip("10.0.0.1")).unwrap();
        user.connection.authenticated();
        let f1 = c.admit(ip("10.0.0.2")).unwrap();
        let _f2 = c.admit(ip("10.0.0.3")).unwrap();
        let f3 = c.admit(ip("10.0.0.4")).unwrap();
        assert_eq!(f3.evicted.map(|e| e.0), Some(f1.connection.id));
        f3.connection.authenticated();
        let f4 = c.admit(ip("10.0.0.5")).unwrap();
        assert!(f4.evicted.is_some_and(|e| e.0 != user.connection.id));
        f4.connection.authenticated();
        assert!(c.admit(ip("10.0.0.6")).is_none(), "nothing left to evict");
    }

    #[test]
    fn ipv6_clients_count_by_their_slash_64() {
        let c = Connections::new(limits(10, 1));
        let first = c.admit(ip("2001:db8:1:2::1")).unwrap();
        first.connection.authenticated();
        assert!(c.admit(ip("2001:db8:1:2:ffff::9")).is_none(), "same /64");
        assert!(c.admit(ip("2001:db8:1:3::1")).is_some(), "another /64");
        assert_eq!(client_key(ip("::ffff:10.0.0.1")), ip("10.0.0.1"));
    }
}
