//! Connections to a `redis` or `valkey` source: the first of its `address` list
//! (`host:port`; Toolbox's clients use the first too unless `clusterEnabled`, which
//! `families::source_support` refuses), TLS when `tlsEnabled` (the server's
//! certificate checked against the system's trusted roots, as Go's client does:
//! `SSL_CERT_FILE` and `SSL_CERT_DIR` are honoured), signed in with `username` and
//! `password` and switched to `database` by `HELLO 3` (RESP3, as Toolbox's clients
//! speak; `AUTH` and RESP2 for a server older than Redis 6).
//!
//! Every read and write is bounded by the call's deadline and stops soon after the
//! caller cancels ([`Guarded`]): the socket's timeout is a short slice, after which
//! the deadline and the cancel flag are looked at again.

use std::io::{self, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use filestore_runtime::tools::{Cancel, Source};

use super::resp::{self, Limits, Reply};
use crate::handlers::pool;

/// How often a blocked read looks at the deadline and the cancel flag.
const SLICE: Duration = Duration::from_millis(100);

/// What the handshake's replies may hold (`HELLO` answers a short map).
const HANDSHAKE_BYTES: u64 = 64 * 1024;

/// The longest a new connection's handshake (TLS, `HELLO`, `SELECT`) may take: a
/// server that never answers it (a plain server asked for TLS) fails the call with
/// that said, instead of holding it to its timeout.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Where and how to connect, from a source's resolved fields.
#[derive(Clone, Debug)]
pub struct Target {
    host: String,
    port: u16,
    username: Option<String>,
    password: Option<String>,
    database: i64,
    tls: bool,
}

impl Target {
    /// The target of `source`, or what is wrong with its fields.
    pub fn of(source: &Source) -> Result<Target, String> {
        let name = &source.name;
        let f = &source.fields;
        // A whole `${VAR}` arrives as a string: one address.
        let first = match f.get("address") {
            Some(Value::Array(items)) => items.first().and_then(Value::as_str),
            Some(Value::String(s)) => Some(s.as_str()),
            _ => None,
        }
        .ok_or_else(|| format!("source '{name}' has no address (a list of host:port)"))?;
        let (host, port) = first
            .rsplit_once(':')
            .and_then(|(h, p)| {
                Some((h.trim_start_matches('[').trim_end_matches(']'), p.parse().ok()?))
            })
            .ok_or_else(|| format!("source '{name}': address '{first}' is not host:port"))?;
        let text = |k: &str| match f.get(k) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            _ => None,
        };
        let database = match f.get("database") {
            None | Some(Value::Null) => 0,
            Some(Value::Number(n)) => n.as_i64().unwrap_or(-1),
            Some(Value::String(s)) => s.trim().parse().unwrap_or(-1),
            Some(_) => -1,
        };
        if database < 0 {
            return Err(format!("source '{name}': database must be a number of 0 or more"));
        }
        let tls = match f.get("tlsEnabled") {
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) => s == "true",
            _ => false,
        };
        Ok(Target {
            host: host.to_string(),
            port,
            username: text("username"),
            password: text("password"),
            database,
            tls,
        })
    }
}

/// Opens and checks connections to one target (a pool's [`pool::Connector`]).
pub struct RedisConnector {
    target: Target,
    tls: Option<Arc<rustls::ClientConfig>>,
}

impl RedisConnector {
    /// The connector of `source`.
    pub fn of(source: &Source) -> Result<RedisConnector, String> {
        let target = Target::of(source)?;
        let tls = if target.tls { Some(Arc::new(tls_config(&source.name)?)) } else { None };
        Ok(RedisConnector { target, tls })
    }
}

/// The client configuration of a TLS source: the system's trusted roots.
fn tls_config(name: &str) -> Result<rustls::ClientConfig, String> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = rustls::RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        return Err(format!(
            "source '{name}' has tlsEnabled, and no trusted root certificate was found (set SSL_CERT_FILE to a PEM bundle){}",
            found.errors.first().map(|e| format!(": {e}")).unwrap_or_default()
        ));
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("source '{name}': TLS: {e}"))
        .map(|b| b.with_root_certificates(roots).with_no_client_auth())
}

/// The byte stream under a connection.
enum Stream {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Stream {
    fn tcp(&self) -> &TcpStream {
        match self {
            Stream::Plain(s) => s,
            Stream::Tls(s) => s.get_ref(),
        }
    }
}

/// Why a guarded read stopped early (carried inside an `io::Error`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Stopped {
    /// The call's deadline passed.
    #[error("the call's timeout passed")]
    Deadline,
    /// The caller cancelled the call.
    #[error("the call was cancelled")]
    Cancelled,
}

impl Stopped {
    /// The reason `e` carries, when a guard stopped it.
    pub fn of(e: &io::Error) -> Option<Stopped> {
        e.get_ref().and_then(|inner| inner.downcast_ref::<Stopped>()).copied()
    }
}

/// A stream whose reads and writes give up at the deadline or on a cancel.
pub struct Guarded {
    stream: Stream,
    deadline: Instant,
    cancel: Cancel,
}

impl Guarded {
    fn left(&self) -> io::Result<Duration> {
        if self.cancel.is_cancelled() {
            return Err(io::Error::other(Stopped::Cancelled));
        }
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() { Err(io::Error::other(Stopped::Deadline)) } else { Ok(left) }
    }
}

impl Read for Guarded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let left = self.left()?;
            self.stream.tcp().set_read_timeout(Some(left.min(SLICE)))?;
            let got = match &mut self.stream {
                Stream::Plain(s) => s.read(buf),
                Stream::Tls(s) => s.read(buf),
            };
            match got {
                Err(e)
                    if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {}
                other => return other,
            }
        }
    }
}

impl Write for Guarded {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let left = self.left()?;
        self.stream.tcp().set_write_timeout(Some(left))?;
        // A TLS write may read first (the handshake, or the peer's pending records).
        self.stream.tcp().set_read_timeout(Some(left))?;
        match &mut self.stream {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.stream {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

/// One open connection.
pub struct Conn {
    io: BufReader<Guarded>,
}

impl Conn {
    /// Bounds what follows by `deadline` and `cancel` (a call's).
    pub fn arm(&mut self, deadline: Instant, cancel: Cancel) {
        let g = self.io.get_mut();
        g.deadline = deadline;
        g.cancel = cancel;
    }

    /// Sends `commands` at once (pipelined: their replies come back in order).
    pub fn send(&mut self, commands: &[Vec<String>]) -> io::Result<()> {
        let mut out = Vec::new();
        for c in commands {
            resp::write_command(&mut out, c)?;
        }
        let w = self.io.get_mut();
        w.write_all(&out)?;
        w.flush()
    }

    /// The next reply.
    pub fn reply(&mut self, limits: &mut Limits) -> Result<Reply, resp::ReadError> {
        resp::read_reply(&mut self.io, limits)
    }

    /// Sends one command and reads its reply (the handshake's).
    fn ask(&mut self, words: &[&str]) -> Result<Reply, String> {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        self.send(std::slice::from_ref(&words)).map_err(|e| e.to_string())?;
        self.reply(&mut Limits::new(HANDSHAKE_BYTES)).map_err(|e| e.to_string())
    }
}

impl pool::Connector for RedisConnector {
    type Conn = Conn;
    type Error = String;

    fn connect(&self, deadline: Instant) -> Result<Conn, String> {
        let t = &self.target;
        // An IPv6 literal in brackets, as an address is written.
        let at = if t.host.contains(':') {
            format!("[{}]:{}", t.host, t.port)
        } else {
            format!("{}:{}", t.host, t.port)
        };
        let left =
            || deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(1));
        let addrs: Vec<_> = (t.host.as_str(), t.port)
            .to_socket_addrs()
            .map_err(|e| format!("{at}: {e}"))?
            .collect();
        let mut last = format!("{at}: no address");
        let mut tcp = None;
        for a in addrs {
            match TcpStream::connect_timeout(&a, left()) {
                Ok(s) => {
                    tcp = Some(s);
                    break;
                }
                Err(e) => last = format!("{at}: {e}"),
            }
        }
        let tcp = tcp.ok_or(last)?;
        tcp.set_nodelay(true).map_err(|e| e.to_string())?;
        let stream = match &self.tls {
            None => Stream::Plain(tcp),
            Some(config) => {
                let server = rustls::pki_types::ServerName::try_from(t.host.clone())
                    .map_err(|e| format!("{at}: TLS server name: {e}"))?;
                let conn = rustls::ClientConnection::new(config.clone(), server)
                    .map_err(|e| format!("{at}: TLS: {e}"))?;
                Stream::Tls(Box::new(rustls::StreamOwned::new(conn, tcp)))
            }
        };
        let handshake_ends = deadline.min(Instant::now() + HANDSHAKE_TIMEOUT);
        let guarded = Guarded { stream, deadline: handshake_ends, cancel: Cancel::never() };
        let mut conn = Conn { io: BufReader::new(guarded) };
        handshake(&mut conn, t).map_err(|e| {
            let tls =
                if self.tls.is_some() { " (does it speak TLS? tlsEnabled is set)" } else { "" };
            if e.contains(&Stopped::Deadline.to_string()) && handshake_ends < deadline {
                format!(
                    "{at}: no answer to the handshake within {}s{tls}",
                    HANDSHAKE_TIMEOUT.as_secs()
                )
            } else {
                format!("{at}: {e}")
            }
        })?;
        conn.arm(deadline, Cancel::never());
        Ok(conn)
    }

    fn check(&self, conn: &mut Conn) -> bool {
        conn.arm(Instant::now() + Duration::from_secs(2), Cancel::never());
        matches!(conn.ask(&["PING"]), Ok(Reply::Value(Value::String(s))) if s == "PONG")
    }

    fn is_closed(&self, _conn: &Conn) -> bool {
        false
    }
}

/// `HELLO 3` with the credentials (or `AUTH` and RESP2 on a server without
/// `HELLO`), then `SELECT` of the database.
fn handshake(conn: &mut Conn, t: &Target) -> Result<(), String> {
    let user = t.username.as_deref().unwrap_or("default");
    let mut hello = vec!["HELLO", "3"];
    if let Some(p) = &t.password {
        hello.extend(["AUTH", user, p]);
    }
    match conn.ask(&hello)? {
        Reply::Value(_) => {}
        Reply::Error(e) if e.starts_with("ERR unknown command") || e.starts_with("NOPROTO") => {
            if let Some(p) = &t.password {
                let auth = match &t.username {
                    Some(u) => vec!["AUTH", u, p],
                    None => vec!["AUTH", p],
                };
                refused(conn.ask(&auth)?, "the server refused the login")?;
            }
        }
        Reply::Error(e) => return Err(format!("the server refused the login: {e}")),
        Reply::Nil => return Err("the server answered HELLO with nil".into()),
    }
    if t.database != 0 {
        refused(conn.ask(&["SELECT", &t.database.to_string()])?, "SELECT of the database")?;
    }
    Ok(())
}

fn refused(reply: Reply, what: &str) -> Result<(), String> {
    match reply {
        Reply::Error(e) => Err(format!("{what}: {e}")),
        _ => Ok(()),
    }
}
