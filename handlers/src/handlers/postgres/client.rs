//! A blocking PostgreSQL connection (tokio-postgres driven by a runtime of its own, as
//! the `postgres` crate does) whose socket counts what it reads: [`Meter`].
//!
//! Why not the `postgres` crate's client: PostgreSQL sends a row as one message, and
//! the driver holds a message whole before it hands it over, so one row of
//! `repeat('x', 900000000)` would sit in the host's memory before any count of rows
//! could refuse it. Here the socket is the handler's own: while a statement runs, a
//! [`Meter`] counts the bytes that arrive ahead of the next row and fails the read
//! (and so the connection) once they pass a bound, and the call answers
//! `limit-exceeded`. Opening the socket ourselves (for [`tokio_postgres::Config::connect_raw`])
//! means doing what the driver's own connect does: the source's one host and port
//! (TCP, or a Unix socket directory), `connect_timeout`, TLS per `sslmode`, and
//! `target_session_attrs`.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::StreamExt;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_postgres::config::{Host, TargetSessionAttrs};
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Row, RowStream, SimpleQueryMessage, SimpleQueryStream, Statement};
use tokio_postgres_rustls::MakeRustlsConnect;

/// How long dropping a connection waits for it to say goodbye to the server.
const CLOSE_WAIT: Duration = Duration::from_secs(1);

/// Counts the bytes a connection reads ahead of the rows taken from it; past an armed
/// bound the next read fails, which ends the connection.
#[derive(Debug)]
pub struct Meter {
    ahead: AtomicU64,
    bound: AtomicU64,
    tripped: AtomicBool,
}

impl Default for Meter {
    fn default() -> Meter {
        Meter { ahead: AtomicU64::new(0), bound: AtomicU64::new(u64::MAX), tripped: false.into() }
    }
}

impl Meter {
    /// Starts counting, with `bound` bytes allowed ahead of each row.
    pub fn arm(&self, bound: u64) {
        self.ahead.store(0, Ordering::SeqCst);
        self.tripped.store(false, Ordering::SeqCst);
        self.bound.store(bound, Ordering::SeqCst);
    }

    /// Stops counting.
    pub fn disarm(&self) {
        self.bound.store(u64::MAX, Ordering::SeqCst);
    }

    /// A row (or message) was taken: what arrived before it is no longer ahead.
    pub fn taken(&self) {
        self.ahead.store(0, Ordering::SeqCst);
    }

    /// Whether the bound was passed since [`Meter::arm`] (the connection is gone).
    pub fn tripped(&self) -> bool {
        self.tripped.load(Ordering::SeqCst)
    }

    /// Counts `n` bytes read; `false` once past the bound.
    fn count(&self, n: u64) -> bool {
        let ahead = self.ahead.fetch_add(n, Ordering::SeqCst) + n;
        if ahead > self.bound.load(Ordering::SeqCst) {
            self.tripped.store(true, Ordering::SeqCst);
            return false;
        }
        true
    }
}

/// A socket of either kind.
trait Io: AsyncRead + AsyncWrite + Unpin + Send + 'static {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + 'static> Io for T {}

/// The connection's socket, read through its [`Meter`].
struct Metered {
    inner: Box<dyn Io>,
    meter: Arc<Meter>,
}

impl AsyncRead for Metered {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let n = (buf.filled().len() - before) as u64;
            if !self.meter.count(n) {
                return Poll::Ready(Err(io::Error::other(
                    "a row is larger than the tool result limit",
                )));
            }
        }
        polled
    }
}

impl AsyncWrite for Metered {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Why a connection could not be made.
#[derive(Debug)]
pub enum ConnectError {
    /// The driver's error (the server refused, TLS failed...).
    Driver(tokio_postgres::Error),
    /// Reaching the server failed, or it was not what the source asks for.
    Other(String),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::Driver(e) => write!(f, "{e}"),
            ConnectError::Other(m) => f.write_str(m),
        }
    }
}

/// Where a source's server is, and how to reach it again (for a cancel request).
#[derive(Clone, Debug)]
struct Address {
    host: Host,
    port: u16,
}

impl Address {
    fn of(config: &tokio_postgres::Config) -> Result<Address, ConnectError> {
        let host = config
            .get_hosts()
            .first()
            .cloned()
            .ok_or_else(|| ConnectError::Other("the source names no host".into()))?;
        Ok(Address { host, port: config.get_ports().first().copied().unwrap_or(5432) })
    }

    /// The name TLS checks the certificate against (none for a Unix socket).
    fn hostname(&self) -> Option<&str> {
        match &self.host {
            Host::Tcp(h) => Some(h),
            #[cfg(unix)]
            Host::Unix(_) => None,
        }
    }

    async fn open(&self) -> io::Result<Box<dyn Io>> {
        match &self.host {
            Host::Tcp(h) => {
                let s = tokio::net::TcpStream::connect((h.as_str(), self.port)).await?;
                s.set_nodelay(true)?;
                Ok(Box::new(s))
            }
            #[cfg(unix)]
            Host::Unix(dir) => {
                let path = dir.join(format!(".s.PGSQL.{}", self.port));
                Ok(Box::new(tokio::net::UnixStream::connect(path).await?))
            }
        }
    }
}

/// One open connection.
pub struct Client {
    runtime: tokio::runtime::Runtime,
    client: Option<tokio_postgres::Client>,
    connection: Option<tokio::task::JoinHandle<Result<(), tokio_postgres::Error>>>,
    meter: Arc<Meter>,
    address: Address,
}

impl Client {
    /// Connects per `config` (TLS by `tls`), giving up by `deadline` or the
    /// source's `connect_timeout`, whichever comes first.
    pub fn connect(
        config: &tokio_postgres::Config,
        tls: &MakeRustlsConnect,
        deadline: Instant,
    ) -> Result<Client, ConnectError> {
        let address = Address::of(config)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ConnectError::Other(format!("cannot start a runtime: {e}")))?;
        let meter = Arc::new(Meter::default());
        let mut limit = deadline.saturating_duration_since(Instant::now());
        if let Some(t) = config.get_connect_timeout() {
            limit = limit.min(*t);
        }
        let connecting = connect(config, tls, &address, meter.clone());
        let (client, connection) =
            runtime.block_on(async { tokio::time::timeout(limit, connecting).await }).map_err(
                |_| ConnectError::Other(format!("connecting took longer than {}", seconds(limit))),
            )??;
        let connection = Some(runtime.spawn(connection));
        let client = Client { runtime, client: Some(client), connection, meter, address };
        client.check_session_attrs(config.get_target_session_attrs())?;
        Ok(client)
    }

    /// Refuses a server whose session is not what `target_session_attrs` asks for.
    fn check_session_attrs(&self, wanted: TargetSessionAttrs) -> Result<(), ConnectError> {
        if wanted == TargetSessionAttrs::Any {
            return Ok(());
        }
        let rows = self.simple_query("SHOW transaction_read_only").map_err(ConnectError::Driver)?;
        let read_only = rows.iter().any(|m| match m {
            SimpleQueryMessage::Row(r) => r.get(0) == Some("on"),
            _ => false,
        });
        match wanted {
            TargetSessionAttrs::ReadWrite if read_only => Err(ConnectError::Other(
                "the server's session is read-only, and target_session_attrs is read-write".into(),
            )),
            TargetSessionAttrs::ReadOnly if !read_only => Err(ConnectError::Other(
                "the server's session is read-write, and target_session_attrs is read-only".into(),
            )),
            _ => Ok(()),
        }
    }

    fn inner(&self) -> &tokio_postgres::Client {
        self.client.as_ref().expect("present until drop")
    }

    fn block_on<T>(&self, f: impl Future<Output = T>) -> T {
        self.runtime.block_on(f)
    }

    /// The connection's [`Meter`].
    pub fn meter(&self) -> &Meter {
        &self.meter
    }

    /// Runs `sql` (statements without results).
    pub fn batch_execute(&self, sql: &str) -> Result<(), tokio_postgres::Error> {
        self.block_on(self.inner().batch_execute(sql))
    }

    /// Prepares `sql`.
    pub fn prepare(&self, sql: &str) -> Result<Statement, tokio_postgres::Error> {
        self.block_on(self.inner().prepare(sql))
    }

    /// Runs `stmt`; the number of rows it affected.
    pub fn execute(
        &self,
        stmt: &Statement,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<u64, tokio_postgres::Error> {
        self.block_on(self.inner().execute(stmt, params))
    }

    /// Runs `sql` and collects its rows (small results of the handler's own queries).
    pub fn query(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, tokio_postgres::Error> {
        self.block_on(self.inner().query(sql, params))
    }

    /// Runs `sql` through the simple protocol and collects what it answers (small
    /// answers of the handler's own queries).
    pub fn simple_query(
        &self,
        sql: &str,
    ) -> Result<Vec<SimpleQueryMessage>, tokio_postgres::Error> {
        self.block_on(self.inner().simple_query(sql))
    }

    /// Runs `stmt`; its rows one at a time, as they arrive.
    pub fn rows(
        &self,
        stmt: &Statement,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Rows<'_, RowStream>, tokio_postgres::Error> {
        let stream = self.block_on(self.inner().query_raw(stmt, params.iter().copied()))?;
        Ok(Rows { client: self, stream: Box::pin(stream) })
    }

    /// Runs `sql` (a script) through the simple protocol; its messages one at a
    /// time, as they arrive.
    pub fn simple(&self, sql: &str) -> Result<Rows<'_, SimpleQueryStream>, tokio_postgres::Error> {
        let stream = self.block_on(self.inner().simple_query_raw(sql))?;
        Ok(Rows { client: self, stream: Box::pin(stream) })
    }

    /// Whether the connection is closed.
    pub fn is_closed(&self) -> bool {
        self.inner().is_closed()
    }

    /// What cancels the statement running on this connection, from another thread.
    pub fn canceller(&self, tls: MakeRustlsConnect) -> Canceller {
        Canceller { token: self.inner().cancel_token(), address: self.address.clone(), tls }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // Without its client the connection says goodbye (Terminate) and ends; it
        // runs only while this runtime is driven.
        drop(self.client.take());
        if let Some(c) = self.connection.take() {
            let _ = self.runtime.block_on(async { tokio::time::timeout(CLOSE_WAIT, c).await });
        }
    }
}

/// A statement's rows (or a script's messages), taken one at a time.
pub struct Rows<'a, S> {
    client: &'a Client,
    stream: Pin<Box<S>>,
}

impl<S, T> Rows<'_, S>
where
    S: futures::Stream<Item = Result<T, tokio_postgres::Error>>,
{
    /// The next row, or `None` after the last.
    pub fn fetch(&mut self) -> Result<Option<T>, tokio_postgres::Error> {
        let next = self.client.block_on(self.stream.next()).transpose();
        self.client.meter.taken();
        next
    }
}

/// Cancels the statement of one connection (PostgreSQL's cancel request, over a
/// connection of its own).
pub struct Canceller {
    token: tokio_postgres::CancelToken,
    address: Address,
    tls: MakeRustlsConnect,
}

impl Canceller {
    /// Sends the cancel request (best effort: the statement may have ended).
    pub fn cancel(mut self) {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
            return;
        };
        let tls = MakeTlsConnect::<Box<dyn Io>>::make_tls_connect(
            &mut self.tls,
            self.address.hostname().unwrap_or(""),
        );
        let Ok(tls) = tls;
        runtime.block_on(async {
            if let Ok(stream) = self.address.open().await {
                let _ = self.token.cancel_query_raw(stream, tls).await;
            }
        });
    }
}

/// Opens the socket, then TLS and the startup handshake over it.
async fn connect(
    config: &tokio_postgres::Config,
    tls: &MakeRustlsConnect,
    address: &Address,
    meter: Arc<Meter>,
) -> Result<
    (
        tokio_postgres::Client,
        tokio_postgres::Connection<Metered, <MakeRustlsConnect as MakeTlsConnect<Metered>>::Stream>,
    ),
    ConnectError,
> {
    let inner = address
        .open()
        .await
        .map_err(|e| ConnectError::Other(format!("cannot reach {}: {e}", shown(address))))?;
    let stream = Metered { inner, meter };
    let mut make = tls.clone();
    let Ok(tls) =
        MakeTlsConnect::<Metered>::make_tls_connect(&mut make, address.hostname().unwrap_or(""));
    config.connect_raw(stream, tls).await.map_err(ConnectError::Driver)
}

/// `host:port`, or the Unix socket's path, for a message.
fn shown(a: &Address) -> String {
    match &a.host {
        Host::Tcp(h) => format!("{h}:{}", a.port),
        #[cfg(unix)]
        Host::Unix(dir) => dir.join(format!(".s.PGSQL.{}", a.port)).display().to_string(),
    }
}

/// A duration for a message (`10 s`, `250 ms`).
fn seconds(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{} s", d.as_secs())
    }
}
