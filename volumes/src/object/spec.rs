//! Mount specs of object stores and the clients behind them.
//!
//! `s3://bucket/prefix` (also `s3a://`), `gs://bucket/prefix`, `az://container/prefix`
//! (also `azure://`) and `file:///absolute/dir`. Endpoint, region and credentials are
//! read from the environment as `object_store` reads it (`AWS_ACCESS_KEY_ID`,
//! `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ENDPOINT_URL`,
//! `AWS_ALLOW_HTTP`, `AWS_COPY_IF_NOT_EXISTS`...; `GOOGLE_SERVICE_ACCOUNT`...;
//! `AZURE_STORAGE_ACCOUNT_NAME`, `AZURE_STORAGE_ACCOUNT_KEY`...), plus an explicit
//! endpoint and region per spec ([`ObjectSpec::endpoint`], the CLI's
//! `--s3-endpoint` and `--s3-region`) for S3-compatible servers. Credentials stay in
//! the host: the component never sees the spec, the client or its configuration.
//!
//! Clients are built once per distinct spec and shared ([`open_store`]): `filestore
//! serve` opens its mounts for every session, and every session's volume then uses
//! the same connection pool and request counters.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};
use object_store::local::LocalFileSystem;
use object_store::{BackoffConfig, ClientConfigKey, ObjectStore, RetryConfig};

use filestore_guest::error::Result;

use super::counts::{CountingConnector, RequestCounts};
use super::mount_error;

/// Timeout of one HTTP request (headers and body).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// Timeout of connecting to the store.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Retries of a failed request (throttling, 5xx, dropped connections), with
/// exponential backoff from [`RETRY_BACKOFF_START`]; after them the error is returned.
pub const MAX_RETRIES: usize = 3;
/// The first backoff between retries (doubling, at most 2 s).
pub const RETRY_BACKOFF_START: Duration = Duration::from_millis(100);
/// Retries stop once this much time has passed since the first attempt.
pub const RETRY_TIMEOUT: Duration = Duration::from_secs(15);

/// Which kind of store a spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoreKind {
    /// Amazon S3 or an S3-compatible server.
    S3,
    /// Google Cloud Storage.
    Gcs,
    /// Azure Blob Storage.
    Azure,
    /// A local directory through `object_store`'s file system store.
    File,
}

/// A parsed object-store mount spec.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ObjectSpec {
    /// The kind of store.
    pub kind: StoreKind,
    /// Bucket or container (for `file://`, the directory).
    pub bucket: String,
    /// Key prefix beneath which the volume lives (no leading or trailing `/`).
    pub prefix: String,
    /// An explicit endpoint (S3-compatible servers, Azurite...); `http://` endpoints
    /// are allowed without TLS.
    pub endpoint: Option<String>,
    /// An explicit region (S3).
    pub region: Option<String>,
}

impl ObjectSpec {
    /// Parses `s3://bucket/prefix`, `gs://…`, `az://…` or `file:///dir`; `None` when
    /// `spec` is not an object-store URL at all, `Some(Err)` naming what is wrong.
    pub fn parse(spec: &str) -> Option<Result<ObjectSpec>> {
        let (scheme, rest) = spec.split_once("://")?;
        let kind = match scheme {
            "s3" | "s3a" => StoreKind::S3,
            "gs" => StoreKind::Gcs,
            "az" | "azure" => StoreKind::Azure,
            "file" => StoreKind::File,
            _ => return None,
        };
        Some(Self::parse_rest(kind, scheme, rest))
    }

    fn parse_rest(kind: StoreKind, scheme: &str, rest: &str) -> Result<ObjectSpec> {
        if rest.contains(['?', '#']) {
            return Err(mount_error(format!(
                "{scheme}://{rest}: query strings and fragments are not part of a mount spec; credentials and options come from the environment"
            )));
        }
        if kind == StoreKind::File {
            if !rest.starts_with('/') {
                return Err(mount_error(format!(
                    "{scheme}://{rest}: give an absolute directory (file:///abs/dir)"
                )));
            }
            return Ok(ObjectSpec {
                kind,
                bucket: rest.to_string(),
                prefix: String::new(),
                endpoint: None,
                region: None,
            });
        }
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(mount_error(format!(
                "{scheme}://{rest}: no bucket; expected {scheme}://BUCKET/PREFIX"
            )));
        }
        if bucket.contains('@') {
            return Err(mount_error(format!(
                "{scheme}://{rest}: credentials do not belong in the URL; use the environment (e.g. AWS_ACCESS_KEY_ID)"
            )));
        }
        super::keys::Keys::new(prefix)
            .map_err(|e| mount_error(format!("{scheme}://{rest}: {e}")))?;
        Ok(ObjectSpec {
            kind,
            bucket: bucket.to_string(),
            prefix: prefix.trim_matches('/').to_string(),
            endpoint: None,
            region: None,
        })
    }

    /// The spec as written, without endpoint or region (for logs and messages).
    pub fn url(&self) -> String {
        let scheme = match self.kind {
            StoreKind::S3 => "s3",
            StoreKind::Gcs => "gs",
            StoreKind::Azure => "az",
            StoreKind::File => return format!("file://{}", self.bucket),
        };
        if self.prefix.is_empty() {
            format!("{scheme}://{}", self.bucket)
        } else {
            format!("{scheme}://{}/{}", self.bucket, self.prefix)
        }
    }

    /// Which storage this is, opaquely: the store's location and bucket (two specs
    /// of one bucket with overlapping prefixes reach the same objects).
    pub(super) fn storage_id(&self) -> String {
        let endpoint = self.endpoint.clone().unwrap_or_else(|| match self.kind {
            StoreKind::S3 => std::env::var("AWS_ENDPOINT_URL")
                .or_else(|_| std::env::var("AWS_ENDPOINT"))
                .unwrap_or_default(),
            _ => String::new(),
        });
        format!("{:?}|{endpoint}|{}", self.kind, self.bucket)
    }
}

/// One opened store: the client and its request counters.
#[derive(Clone, Debug)]
pub(super) struct Opened {
    pub(super) store: Arc<dyn ObjectStore>,
    pub(super) counts: Arc<RequestCounts>,
}

fn retry() -> RetryConfig {
    RetryConfig {
        backoff: BackoffConfig {
            init_backoff: RETRY_BACKOFF_START,
            max_backoff: Duration::from_secs(2),
            base: 2.0,
        },
        max_retries: MAX_RETRIES,
        retry_timeout: RETRY_TIMEOUT,
    }
}

/// filestore's request and connect timeouts, as every store builder takes them.
fn client_timeouts() -> [(ClientConfigKey, String); 2] {
    [
        (ClientConfigKey::Timeout, secs(REQUEST_TIMEOUT)),
        (ClientConfigKey::ConnectTimeout, secs(CONNECT_TIMEOUT)),
    ]
}

fn secs(d: Duration) -> String {
    format!("{}s", d.as_secs())
}

/// Installs the TLS crypto provider the HTTP client needs (ring, as for `ureq`), once.
fn tls_provider() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        // Another part of the process may have installed one already: either is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Builds a new S3 client for `spec` with filestore's timeouts, retries and
/// request counting, letting `configure` change the builder last (credentials from
/// an embedder's own vault, a custom signer...).
pub(super) fn build_s3(
    spec: &ObjectSpec,
    configure: impl FnOnce(AmazonS3Builder) -> AmazonS3Builder,
) -> Result<Opened> {
    tls_provider();
    let counts = Arc::new(RequestCounts::default());
    let mut b = AmazonS3Builder::from_env()
        .with_bucket_name(&spec.bucket)
        .with_retry(retry())
        .with_http_connector(CountingConnector(counts.clone()));
    for (k, v) in client_timeouts() {
        b = b.with_config(AmazonS3ConfigKey::Client(k), v);
    }
    if let Some(e) = &spec.endpoint {
        b = b.with_endpoint(e).with_allow_http(e.starts_with("http://"));
    }
    if let Some(r) = &spec.region {
        b = b.with_region(r);
    }
    let b = configure(b);
    refuse_plain_http(spec, &b)?;
    let store = b.build().map_err(|e| build_error(spec, &e))?;
    Ok(Opened { store: Arc::new(store), counts })
}

/// A store client that cannot be built for `spec` (a bad option from the
/// environment...): the store's reason, cleaned of credentials.
fn build_error(spec: &ObjectSpec, e: &object_store::Error) -> filestore_guest::error::Error {
    mount_error(format!("{}: {}", spec.url(), super::errors::clean(&e.to_string())))
}

/// An `http://` endpoint from the environment (`AWS_ENDPOINT_URL`...) without
/// `AWS_ALLOW_HTTP=true`: the client would build and then fail every request with
/// "HTTP error: builder error". Said now, with the two ways to allow it.
fn refuse_plain_http(spec: &ObjectSpec, b: &AmazonS3Builder) -> Result<()> {
    let endpoint = [AmazonS3ConfigKey::S3Endpoint, AmazonS3ConfigKey::Endpoint]
        .iter()
        .find_map(|k| b.get_config_value(k))
        .filter(|e| e.starts_with("http://"));
    let allowed = b
        .get_config_value(&AmazonS3ConfigKey::Client(ClientConfigKey::AllowHttp))
        .is_some_and(|v| v.eq_ignore_ascii_case("true"));
    match endpoint {
        Some(e) if !allowed => Err(mount_error(format!(
            "{}: the S3 endpoint {e} (from AWS_ENDPOINT_URL or AWS_ENDPOINT) is plain http://, which is refused unless AWS_ALLOW_HTTP=true is set; or give it as --s3-endpoint {e}, which allows http://",
            spec.url()
        ))),
        _ => Ok(()),
    }
}

/// Builds a new client for `spec` (not shared; see [`open_store`]).
pub(super) fn build_store(spec: &ObjectSpec) -> Result<Opened> {
    tls_provider();
    let counts = Arc::new(RequestCounts::default());
    let connector = CountingConnector(counts.clone());
    let store: Arc<dyn ObjectStore> = match spec.kind {
        StoreKind::S3 => return build_s3(spec, |b| b),
        StoreKind::Gcs => {
            let mut b = GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(&spec.bucket)
                .with_retry(retry())
                .with_http_connector(connector);
            for (k, v) in client_timeouts() {
                b = b.with_config(GoogleConfigKey::Client(k), v);
            }
            Arc::new(b.build().map_err(|e| build_error(spec, &e))?)
        }
        StoreKind::Azure => {
            let mut b = MicrosoftAzureBuilder::from_env()
                .with_container_name(&spec.bucket)
                .with_retry(retry())
                .with_http_connector(connector);
            for (k, v) in client_timeouts() {
                b = b.with_config(AzureConfigKey::Client(k), v);
            }
            if let Some(e) = &spec.endpoint {
                b = b.with_endpoint(e.clone()).with_allow_http(e.starts_with("http://"));
            }
            Arc::new(b.build().map_err(|e| build_error(spec, &e))?)
        }
        StoreKind::File => {
            let dir = std::path::Path::new(&spec.bucket);
            if !dir.is_dir() {
                return Err(mount_error(format!("{}: not a directory", spec.url())));
            }
            let fs = LocalFileSystem::new_with_prefix(dir)
                .map_err(|e| mount_error(format!("{}: {e}", spec.url())))?
                .with_automatic_cleanup(true);
            Arc::new(fs)
        }
    };
    Ok(Opened { store, counts })
}

fn stores() -> &'static Mutex<HashMap<ObjectSpec, Opened>> {
    static STORES: OnceLock<Mutex<HashMap<ObjectSpec, Opened>>> = OnceLock::new();
    STORES.get_or_init(Default::default)
}

/// The shared client for `spec`, built on first use; `true` when it was built now.
pub(super) fn open_store(spec: &ObjectSpec) -> Result<(Opened, bool)> {
    let mut map = stores().lock().unwrap_or_else(|p| p.into_inner());
    if let Some(o) = map.get(spec) {
        return Ok((o.clone(), false));
    }
    let opened = build_store(spec)?;
    map.insert(spec.clone(), opened.clone());
    Ok((opened, true))
}

/// Forgets the shared client of `spec` (its first use failed: the next open builds
/// and checks a new one).
pub(super) fn forget_store(spec: &ObjectSpec) {
    stores().lock().unwrap_or_else(|p| p.into_inner()).remove(spec);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        let s = ObjectSpec::parse("s3://bkt/team/ws/").unwrap().unwrap();
        assert_eq!(
            (s.kind, s.bucket.as_str(), s.prefix.as_str()),
            (StoreKind::S3, "bkt", "team/ws")
        );
        assert_eq!(s.url(), "s3://bkt/team/ws");
        let s = ObjectSpec::parse("gs://b").unwrap().unwrap();
        assert_eq!((s.kind, s.prefix.as_str()), (StoreKind::Gcs, ""));
        assert_eq!(ObjectSpec::parse("az://c/p").unwrap().unwrap().kind, StoreKind::Azure);
        assert_eq!(ObjectSpec::parse("file:///tmp/x").unwrap().unwrap().bucket, "/tmp/x");
        assert!(ObjectSpec::parse("./dir").is_none());
        assert!(ObjectSpec::parse("http://x").is_none());
        for bad in [
            "s3://",
            "s3:///p",
            "s3://b/a/../c",
            "s3://b/a//c",
            "s3://key:secret@b/p",
            "s3://b/p?x=1",
            "file://rel",
        ] {
            assert!(ObjectSpec::parse(bad).unwrap().is_err(), "{bad}");
        }
    }
}
