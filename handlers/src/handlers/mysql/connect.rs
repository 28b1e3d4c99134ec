//! A MySQL-family source's fields (Toolbox's: `host`, `port`, `user`, `password`,
//! `database`, `queryTimeout`, `queryParams`; the same of `mariadb`, of `tidb` (whose
//! `ssl: true` is `tls=true`), and of `cloud-sql-mysql` given a direct `host`) as
//! connection options.
//!
//! `queryParams` are the Go driver's DSN parameters Toolbox passes on; filestore
//! knows these and refuses any other name (a misspelt `tls` must not silently
//! connect in clear):
//! - `tls`: `false` (the default, as in the Go driver): plain TCP; `true`: TLS, the
//!   server's certificate verified against the bundled Mozilla roots
//!   (`webpki-roots`) and its name checked; `skip-verify`: TLS without verification;
//!   `preferred`: TLS without verification when the server offers it, else plain.
//! - `timeout`: how long connecting may take (a Go duration, `5s`).
//! - `parseTime`: `true` only (Toolbox always sets it; dates come back as RFC 3339).
//!
//! `queryTimeout` (a Go duration, `30s`) bounds each statement: the server stops it
//! after the smaller of that and the time left before the call's deadline.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::handlers::pool::Connector;
use crate::handlers::query_params::checked_query_params;
use filestore_guest::tools::config::CONNECTOR_SOURCES;
use filestore_runtime::tools::{Source, ToolError};

/// How long connecting may take when the source sets no `timeout`.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The query parameters a source may set (see the module docs).
pub const QUERY_PARAMS: &[&str] = &["tls", "timeout", "parseTime"];

/// TLS per `queryParams.tls`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tls {
    Off,
    Verify,
    SkipVerify,
    Preferred,
}

/// A source's connection options and statement bound.
pub struct Connection {
    opts: mysql::OptsBuilder,
    tls: Tls,
    connect_timeout: Duration,
    /// The source's `queryTimeout`.
    pub query_timeout: Option<Duration>,
}

/// An open connection and what the server is.
pub struct MyConn {
    /// The driver's connection.
    pub conn: mysql::Conn,
    /// MariaDB (`max_statement_time`, seconds) rather than MySQL
    /// (`max_execution_time`, milliseconds, SELECT only).
    pub mariadb: bool,
}

impl Connection {
    /// A new connection for a cancel request (`KILL QUERY`), plain options: it
    /// must not wait on the pool the statement holds.
    pub fn open(&self, deadline: Instant) -> Result<mysql::Conn, mysql::Error> {
        let left = deadline.saturating_duration_since(Instant::now());
        let timeout = self.connect_timeout.min(left).max(Duration::from_millis(1));
        let opts = self.opts.clone().tcp_connect_timeout(Some(timeout));
        let ssl = |skip: bool| {
            mysql::SslOpts::default()
                .with_danger_accept_invalid_certs(skip)
                .with_danger_skip_domain_validation(skip)
        };
        match self.tls {
            Tls::Off => mysql::Conn::new(opts),
            Tls::Verify => mysql::Conn::new(opts.ssl_opts(ssl(false))),
            Tls::SkipVerify => mysql::Conn::new(opts.ssl_opts(ssl(true))),
            Tls::Preferred => match mysql::Conn::new(opts.clone().ssl_opts(ssl(true))) {
                Err(mysql::Error::DriverError(mysql::DriverError::TlsNotSupported)) => {
                    mysql::Conn::new(opts)
                }
                other => other,
            },
        }
    }
}

impl Connection {
    /// The same connection, its driver refusing any packet (a row) past `bytes` as
    /// it arrives.
    pub fn max_packet(mut self, bytes: u64) -> Connection {
        let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        self.opts = self.opts.max_allowed_packet(Some(bytes));
        self
    }
}

impl Connector for Connection {
    type Conn = MyConn;
    type Error = mysql::Error;

    fn connect(&self, deadline: Instant) -> Result<MyConn, mysql::Error> {
        use mysql::prelude::Queryable;
        let mut conn = self.open(deadline)?;
        let version: Option<String> = conn.query_first("SELECT VERSION()")?;
        let mariadb = version.is_some_and(|v| v.contains("MariaDB"));
        Ok(MyConn { conn, mariadb })
    }

    fn check(&self, conn: &mut MyConn) -> bool {
        conn.conn.ping().is_ok()
    }

    fn is_closed(&self, _: &MyConn) -> bool {
        // The driver does not track it; `check` finds out on checkout.
        false
    }
}

/// The connection `source` describes, or an `invalid-argument` error naming the
/// field that is wrong.
pub fn connection(source: &Source) -> Result<Connection, ToolError> {
    checked(source).map_err(ToolError::invalid_argument)
}

fn checked(source: &Source) -> Result<Connection, String> {
    let name = &source.name;
    let field = |key: &str| -> Result<Option<String>, String> {
        match source.fields.get(key) {
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(_)) => Ok(None),
            Some(_) => Err(format!("source '{name}': '{key}' must be a string")),
        }
    };
    let ty = source.source_type.as_str();
    let host = field("host")?
        .ok_or_else(|| format!("source '{name}': 'host' is required for a {ty} source"))?;
    // A connector source given a direct host (filestore's extension) may leave the
    // port at MySQL's.
    let port = match field("port")? {
        None if CONNECTOR_SOURCES.contains(&ty) => "3306".to_string(),
        p => p.ok_or_else(|| format!("source '{name}': 'port' is required for a {ty} source"))?,
    };
    let port: u16 =
        port.parse().map_err(|_| format!("source '{name}': port '{port}' is not a port number"))?;
    let query_timeout = match field("queryTimeout")? {
        Some(t) => Some(go_duration(&t).ok_or_else(|| {
            format!("source '{name}': queryTimeout '{t}' is not a duration (like 30s, 1m, 500ms)")
        })?),
        None => None,
    };
    let params = query_params(source)?;
    let get = |k: &str| params.iter().find(|(p, _)| p == k).map(|(_, v)| v.as_str());
    // Toolbox's `tidb` source has no queryParams: `ssl: true` is its `tls=true`, and a
    // TiDB Cloud host always gets it.
    let tidb_ssl = ty == "tidb"
        && (matches!(source.fields.get("ssl"), Some(Value::Bool(true)))
            || matches!(source.fields.get("ssl"), Some(Value::String(s)) if s == "true")
            || is_tidb_cloud_host(&host));
    let tls = match get("tls").unwrap_or(if tidb_ssl { "true" } else { "false" }) {
        "false" | "" => Tls::Off,
        "true" => Tls::Verify,
        "skip-verify" => Tls::SkipVerify,
        "preferred" => Tls::Preferred,
        other => {
            return Err(format!(
                "source '{name}': queryParams.tls '{other}' is not one of false, true, skip-verify, preferred"
            ));
        }
    };
    if let Some(v) = get("parseTime").filter(|v| !v.is_empty() && *v != "true") {
        return Err(format!(
            "source '{name}': queryParams.parseTime '{v}' is not supported: dates always come back as RFC 3339 (parseTime=true)"
        ));
    }
    let connect_timeout = match get("timeout").filter(|v| !v.is_empty()) {
        Some(t) => go_duration(t).ok_or_else(|| {
            format!("source '{name}': queryParams.timeout '{t}' is not a duration (like 5s)")
        })?,
        None => DEFAULT_CONNECT_TIMEOUT,
    };
    let opts = mysql::OptsBuilder::new()
        .ip_or_hostname(Some(host))
        .tcp_port(port)
        .user(field("user")?)
        .pass(field("password")?)
        .db_name(field("database")?)
        // The configured host and port, never a local socket found through them.
        .prefer_socket(false)
        // utf8mb4 whatever the server's default (a server may ignore the handshake's):
        // in GBK, Big5 or SJIS a multibyte character can swallow the quote that a
        // template value's escaping doubles (filestore_guest::tools::params::Escape).
        .init(vec!["SET NAMES utf8mb4"])
        .connect_attrs(Some(std::collections::HashMap::from([("program_name", "filestore")])));
    Ok(Connection { opts, tls, connect_timeout, query_timeout })
}

/// Whether `host` is a TiDB Cloud gateway (`gatewayNN.<region>.<prod|dev|staging>.<x>
/// .tidbcloud.com`, Toolbox's pattern), to which Toolbox always connects over TLS.
fn is_tidb_cloud_host(host: &str) -> bool {
    let labels: Vec<&str> = host.split('.').collect();
    let gateway = labels
        .first()
        .and_then(|l| l.strip_prefix("gateway"))
        .is_some_and(|n| n.len() == 2 && n.bytes().all(|b| b.is_ascii_digit()));
    gateway
        && host.ends_with(".tidbcloud.com")
        && labels.iter().any(|l| matches!(*l, "prod" | "dev" | "staging"))
}

/// The source's `queryParams` (a mapping, or one string as `${VAR}` resolves to),
/// each a parameter filestore knows; empty values are skipped, as Toolbox does.
fn query_params(source: &Source) -> Result<Vec<(String, String)>, String> {
    checked_query_params(source, QUERY_PARAMS, true)
}

/// A Go duration (`30s`, `1m30s`, `1.5h`, `500ms`, `0`); `None` when it is not one.
pub fn go_duration(text: &str) -> Option<Duration> {
    let t = text.trim();
    if t == "0" {
        return Some(Duration::ZERO);
    }
    let mut rest = t;
    let mut total = 0f64;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let n = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let num: f64 = rest[..n].parse().ok()?;
        rest = &rest[n..];
        let u = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let scale = match &rest[..u] {
            "ns" => 1e-9,
            "us" | "µs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        rest = &rest[u..];
        total += num * scale;
    }
    Duration::try_from_secs_f64(total).ok()
}

#[cfg(test)]
mod tests {
    use super::go_duration;
    use std::time::Duration;

    #[test]
    fn tidb_cloud_hosts_are_recognised_as_toolbox_does() {
        assert!(super::is_tidb_cloud_host("gateway01.us-west-2.prod.aws.tidbcloud.com"));
        assert!(!super::is_tidb_cloud_host("127.0.0.1"));
        assert!(!super::is_tidb_cloud_host("gateway1.us-west-2.prod.aws.tidbcloud.com"));
        assert!(!super::is_tidb_cloud_host("gateway01.example.com"));
    }

    #[test]
    fn go_durations() {
        assert_eq!(go_duration("30s"), Some(Duration::from_secs(30)));
        assert_eq!(go_duration("1m30s"), Some(Duration::from_secs(90)));
        assert_eq!(go_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(go_duration("0"), Some(Duration::ZERO));
        assert_eq!(go_duration("30"), None);
        assert_eq!(go_duration("soon"), None);
        assert_eq!(go_duration(""), None);
    }
}
