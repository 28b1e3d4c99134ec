//! A PostgreSQL-family source's fields (Toolbox's: `host`, `port`, `user`, `password`,
//! `database`, `queryParams`, `queryExecMode`; the same of `cockroachdb`,
//! `yugabytedb`, and of `cloud-sql-postgres` / `alloydb-postgres` given a direct
//! `host`) as a connection configuration and a TLS connector with libpq's `sslmode`
//! semantics. A `cockroachdb` source is read-only unless `enableWriteMode: true`, as
//! in Toolbox; YugabyteDB's load-balancing fields are not used (filestore connects
//! to the `host` given).
//!
//! `sslmode` (in `queryParams`, as Toolbox passes it to pgx):
//! - `disable`: plain TCP.
//! - `allow`/`prefer` (the default, as in libpq and pgx): TLS when the server offers
//!   it, else plain; the certificate is not verified (libpq does not either).
//! - `require`: TLS or no connection; the certificate is verified only when
//!   `sslrootcert` is given (libpq's rule), else not.
//! - `verify-ca`: TLS, the chain verified against `sslrootcert`; the name is not checked.
//! - `verify-full`: TLS, chain and host name verified.
//!
//! `sslrootcert` is a PEM file, or `system` for the bundled Mozilla roots
//! (`webpki-roots`); verify modes without it use `~/.postgresql/root.crt` as libpq
//! does, and fail clearly when that is missing. `sslcert` + `sslkey` (PEM) present a
//! client certificate. Other parameters the driver supports: `application_name`,
//! `connect_timeout` (seconds), `options`, `sslnegotiation` (`postgres`/`direct`),
//! `target_session_attrs`, `channel_binding`. Any other name is an error naming it:
//! a misspelt `sslmode` must not silently connect without TLS.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};
use serde_json::Value;
use tokio_postgres::config::{ChannelBinding, SslMode, SslNegotiation, TargetSessionAttrs};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::client::{Client, ConnectError};
use crate::handlers::query_params::checked_query_params;
use filestore_guest::tools::config::CONNECTOR_SOURCES;
use filestore_runtime::tools::{Source, ToolError};

/// How long connecting may take when the source sets no `connect_timeout`.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The query parameters a source may set (see the module docs).
pub const QUERY_PARAMS: &[&str] = &[
    "sslmode",
    "sslrootcert",
    "sslcert",
    "sslkey",
    "sslnegotiation",
    "application_name",
    "connect_timeout",
    "options",
    "target_session_attrs",
    "channel_binding",
];

/// A source's connection: the driver configuration and its TLS connector.
pub struct Connection {
    /// Host, port, credentials, database, options.
    pub config: tokio_postgres::Config,
    /// TLS per `sslmode`.
    pub tls: MakeRustlsConnect,
}

impl super::super::pool::Connector for Connection {
    type Conn = Client;
    type Error = ConnectError;

    fn connect(&self, deadline: std::time::Instant) -> Result<Client, ConnectError> {
        Client::connect(&self.config, &self.tls, deadline)
    }

    fn check(&self, conn: &mut Client) -> bool {
        conn.simple_query("").is_ok()
    }

    fn is_closed(&self, conn: &Client) -> bool {
        conn.is_closed()
    }
}

/// How strictly the server certificate is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verify {
    None,
    Chain,
    Full,
}

/// The connection `source` describes, or an `invalid-argument` error naming the
/// field that is wrong.
pub fn connection(source: &Source) -> Result<Connection, ToolError> {
    checked_connection(source).map_err(ToolError::invalid_argument)
}

/// [`connection`], its reason as text (this file's helpers build the message).
fn checked_connection(source: &Source) -> Result<Connection, String> {
    let name = &source.name;
    let ty = source.source_type.as_str();
    let optional = |key: &str| -> Result<Option<String>, String> {
        match source.fields.get(key) {
            Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(_) => Err(format!("source '{name}': '{key}' must be a non-empty string")),
            None => Ok(None),
        }
    };
    let field = |key: &str| -> Result<String, String> {
        optional(key)?
            .ok_or_else(|| format!("source '{name}': '{key}' is required for a {ty} source"))
    };
    let mut config = tokio_postgres::Config::new();
    let host = field("host")?;
    // A connector source given a direct host (filestore's extension) may leave the
    // port at PostgreSQL's.
    let port = match optional("port")? {
        None if CONNECTOR_SOURCES.contains(&ty) => "5432".to_string(),
        p => p.ok_or_else(|| format!("source '{name}': 'port' is required for a {ty} source"))?,
    };
    let port: u16 =
        port.parse().map_err(|_| format!("source '{name}': port '{port}' is not a port number"))?;
    config.host(&host).port(port).user(&field("user")?).dbname(&field("database")?);
    // Toolbox requires a password of `postgres` and `yugabytedb` sources only
    // (CockroachDB may use certificates; Cloud SQL and AlloyDB IAM logins).
    match ty {
        "postgres" | "yugabytedb" => config.password(field("password")?),
        _ => match optional("password")? {
            Some(p) => config.password(p),
            None => &mut config,
        },
    };
    config.connect_timeout(DEFAULT_CONNECT_TIMEOUT);
    config.application_name("filestore");
    if let Some(mode) = source.fields.get("queryExecMode").and_then(Value::as_str) {
        // pgx's statement-cache choices; every mode here prepares (binary, typed), which
        // is what `cache_statement`, the default, does. The value is still checked.
        const MODES: [&str; 5] =
            ["cache_statement", "cache_describe", "describe_exec", "exec", "simple_protocol"];
        if !MODES.contains(&mode) {
            return Err(format!(
                "source '{name}': queryExecMode '{mode}' is not one of {}",
                MODES.join(", ")
            ));
        }
    }
    let params = query_params(source)?;
    let get = |k: &str| params.iter().find(|(p, _)| p == k).map(|(_, v)| v.as_str());
    let root = get("sslrootcert");
    let (mode, verify) = ssl_mode(name, get("sslmode").unwrap_or("prefer"), root.is_some())?;
    config.ssl_mode(mode);
    connection_options(name, &mut config, get)?;
    if cockroachdb_read_only(source) {
        // Toolbox's CockroachDB source refuses writes unless `enableWriteMode`; here
        // the server refuses them, whatever the statement looks like.
        let mut options = config.get_options().map(|o| format!("{o} ")).unwrap_or_default();
        options.push_str("-c default_transaction_read_only=on");
        config.options(&options);
    }
    let tls = tls(name, verify, root, get("sslcert"), get("sslkey"))?;
    Ok(Connection { config, tls })
}

/// Whether `source` is a `cockroachdb` source in Toolbox's default read-only mode:
/// `readOnlyMode` (default true) unless `enableWriteMode: true`.
fn cockroachdb_read_only(source: &Source) -> bool {
    let flag = |key: &str| match source.fields.get(key) {
        Some(Value::Bool(b)) => Some(*b),
        Some(Value::String(s)) => s.parse().ok(),
        _ => None,
    };
    source.source_type == "cockroachdb"
        && flag("enableWriteMode") != Some(true)
        && flag("readOnlyMode") != Some(false)
}

/// The source's `queryParams` (a mapping, or one string: see [`crate::handlers::query_params::parse_query_params`]),
/// each a connection parameter filestore knows.
fn query_params(source: &Source) -> Result<Vec<(String, String)>, String> {
    checked_query_params(source, QUERY_PARAMS, false)
}

/// libpq's `sslmode` as the driver's mode and the certificate check (see the module
/// docs); `has_root`: whether `sslrootcert` is given.
fn ssl_mode(name: &str, sslmode: &str, has_root: bool) -> Result<(SslMode, Verify), String> {
    Ok(match sslmode {
        "disable" => (SslMode::Disable, Verify::None),
        "allow" | "prefer" => (SslMode::Prefer, Verify::None),
        "require" if has_root => (SslMode::Require, Verify::Chain),
        "require" => (SslMode::Require, Verify::None),
        "verify-ca" => (SslMode::Require, Verify::Chain),
        "verify-full" => (SslMode::Require, Verify::Full),
        other => {
            return Err(not_one_of(
                name,
                "sslmode",
                other,
                "disable, allow, prefer, require, verify-ca, verify-full",
            ));
        }
    })
}

/// The other connection parameters of `queryParams` (`get` reads one), set on `config`.
fn connection_options<'p>(
    name: &str,
    config: &mut tokio_postgres::Config,
    get: impl Fn(&str) -> Option<&'p str>,
) -> Result<(), String> {
    if let Some(v) = get("application_name") {
        config.application_name(v);
    }
    if let Some(v) = get("options") {
        config.options(v);
    }
    if let Some(v) = get("connect_timeout") {
        let secs: u64 =
            v.parse().map_err(|_| not_one_of(name, "connect_timeout", v, "whole seconds"))?;
        if secs > 0 {
            config.connect_timeout(Duration::from_secs(secs));
        }
    }
    if let Some(v) = get("sslnegotiation") {
        let choices = [("postgres", SslNegotiation::Postgres), ("direct", SslNegotiation::Direct)];
        config.ssl_negotiation(choice(name, "sslnegotiation", v, &choices)?);
    }
    if let Some(v) = get("target_session_attrs") {
        let choices = [
            ("any", TargetSessionAttrs::Any),
            ("read-write", TargetSessionAttrs::ReadWrite),
            ("read-only", TargetSessionAttrs::ReadOnly),
        ];
        config.target_session_attrs(choice(name, "target_session_attrs", v, &choices)?);
    }
    if let Some(v) = get("channel_binding") {
        let choices = [
            ("disable", ChannelBinding::Disable),
            ("prefer", ChannelBinding::Prefer),
            ("require", ChannelBinding::Require),
        ];
        config.channel_binding(choice(name, "channel_binding", v, &choices)?);
    }
    Ok(())
}

/// The option `choices` names `value`, or the error listing them.
fn choice<T: Clone>(
    name: &str,
    key: &str,
    value: &str,
    choices: &[(&str, T)],
) -> Result<T, String> {
    match choices.iter().find(|(n, _)| *n == value) {
        Some((_, t)) => Ok(t.clone()),
        None => {
            let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
            Err(not_one_of(name, key, value, &names.join(", ")))
        }
    }
}

/// `queryParams.{key}` of source `name` is `value`, which is not one of `allowed`.
fn not_one_of(name: &str, key: &str, value: &str, allowed: &str) -> String {
    format!("source '{name}': queryParams.{key} '{value}' is not one of {allowed}")
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn tls(
    name: &str,
    verify: Verify,
    root: Option<&str>,
    cert: Option<&str>,
    key: Option<&str>,
) -> Result<MakeRustlsConnect, String> {
    let builder = rustls::ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("source '{name}': TLS setup: {e}"))?;
    let builder = match verify {
        Verify::None => builder.dangerous().with_custom_certificate_verifier(Arc::new(NoVerify)),
        Verify::Chain | Verify::Full => {
            let roots = Arc::new(roots(name, root)?);
            let webpki =
                rustls::client::WebPkiServerVerifier::builder_with_provider(roots, provider())
                    .build()
                    .map_err(|e| format!("source '{name}': TLS roots: {e}"))?;
            if verify == Verify::Full {
                builder.with_webpki_verifier(webpki)
            } else {
                builder.dangerous().with_custom_certificate_verifier(Arc::new(ChainOnly(webpki)))
            }
        }
    };
    let config = match (cert, key) {
        (None, None) => builder.with_no_client_auth(),
        (Some(c), Some(k)) => {
            let chain = CertificateDer::pem_file_iter(c)
                .and_then(|it| it.collect::<Result<Vec<_>, _>>())
                .map_err(|e| format!("source '{name}': sslcert {c}: {e}"))?;
            let key = PrivateKeyDer::from_pem_file(k)
                .map_err(|e| format!("source '{name}': sslkey {k}: {e}"))?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| format!("source '{name}': sslcert/sslkey: {e}"))?
        }
        _ => return Err(format!("source '{name}': sslcert and sslkey go together")),
    };
    Ok(MakeRustlsConnect::new(config))
}

fn roots(name: &str, root: Option<&str>) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    if root == Some("system") {
        store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        return Ok(store);
    }
    let path: PathBuf = match root {
        Some(p) => PathBuf::from(p),
        None => {
            let default =
                std::env::var_os("HOME").map(|h| Path::new(&h).join(".postgresql/root.crt"));
            match default {
                Some(p) if p.exists() => p,
                _ => {
                    return Err(format!(
                        "source '{name}': sslmode verify-ca/verify-full needs queryParams.sslrootcert (a PEM file, or 'system' for the bundled public roots); ~/.postgresql/root.crt does not exist"
                    ));
                }
            }
        }
    };
    let certs = CertificateDer::pem_file_iter(&path)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("source '{name}': sslrootcert {}: {e}", path.display()))?;
    let (added, _) = store.add_parsable_certificates(certs);
    if added == 0 {
        return Err(format!(
            "source '{name}': sslrootcert {} holds no usable certificate",
            path.display()
        ));
    }
    Ok(store)
}

/// libpq's `prefer`/`require` without a root: encrypt, do not authenticate the server.
#[derive(Debug)]
struct NoVerify;

impl ServerCertVerifier for NoVerify {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &provider().signature_verification_algorithms,
        )
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &provider().signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        provider().signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain must lead to a trusted root; the name may differ.
#[derive(Debug)]
struct ChainOnly(Arc<rustls::client::WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.0.verify_server_cert(end_entity, intermediates, server_name, ocsp, now) {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName))
            | Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}
