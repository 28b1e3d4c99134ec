//! Request counts of an object store, taken on the wire: every HTTP request the
//! client sends (list pages, retries and batch deletes included), by kind. They
//! back the request figures of BENCHMARKS.md and the tests that hold the volume to
//! its request budget (a walk is one paginated LIST; grep reads ahead).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use object_store::ClientOptions;
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpRequest, HttpResponse, HttpService, ReqwestConnector,
};

/// Live counters of one store (shared by every volume over it).
#[derive(Debug, Default)]
pub struct RequestCounts {
    list: AtomicU64,
    get: AtomicU64,
    head: AtomicU64,
    put: AtomicU64,
    copy: AtomicU64,
    delete: AtomicU64,
    other: AtomicU64,
    gets_in_flight: AtomicU64,
    peak_gets_in_flight: AtomicU64,
    read_ahead_hits: AtomicU64,
}

/// A snapshot of [`RequestCounts`]; `a - b` is what happened in between.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestStats {
    /// LIST requests (one per page of up to 1,000 keys on S3).
    pub list: u64,
    /// GET requests of object content (ranged or whole).
    pub get: u64,
    /// HEAD requests (metadata of one object).
    pub head: u64,
    /// PUT requests that upload content.
    pub put: u64,
    /// Server-side copies (a PUT with a copy source).
    pub copy: u64,
    /// DELETE requests and batch deletes (one per up to 1,000 keys on S3).
    pub delete: u64,
    /// Anything else (multipart steps, credential requests).
    pub other: u64,
    /// Most GETs of content in flight at once since the store was opened.
    pub peak_gets_in_flight: u64,
    /// Reads answered from the read-ahead instead of a request of their own.
    pub read_ahead_hits: u64,
}

impl RequestStats {
    /// Every request.
    pub fn total(&self) -> u64 {
        self.list + self.get + self.head + self.put + self.copy + self.delete + self.other
    }
}

impl std::ops::Sub for RequestStats {
    type Output = RequestStats;
    fn sub(self, b: RequestStats) -> RequestStats {
        RequestStats {
            list: self.list - b.list,
            get: self.get - b.get,
            head: self.head - b.head,
            put: self.put - b.put,
            copy: self.copy - b.copy,
            delete: self.delete - b.delete,
            other: self.other - b.other,
            peak_gets_in_flight: self.peak_gets_in_flight,
            read_ahead_hits: self.read_ahead_hits - b.read_ahead_hits,
        }
    }
}

impl RequestCounts {
    /// The counts now.
    pub fn snapshot(&self) -> RequestStats {
        let l = |a: &AtomicU64| a.load(Ordering::SeqCst);
        RequestStats {
            list: l(&self.list),
            get: l(&self.get),
            head: l(&self.head),
            put: l(&self.put),
            copy: l(&self.copy),
            delete: l(&self.delete),
            other: l(&self.other),
            peak_gets_in_flight: l(&self.peak_gets_in_flight),
            read_ahead_hits: l(&self.read_ahead_hits),
        }
    }

    pub(super) fn read_ahead_hit(&self) {
        self.read_ahead_hits.fetch_add(1, Ordering::SeqCst);
    }
}

/// Builds the store's HTTP client (reqwest, as object_store would) and counts what
/// passes through it.
#[derive(Debug)]
pub(super) struct CountingConnector(pub(super) Arc<RequestCounts>);

impl HttpConnector for CountingConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let inner = ReqwestConnector::default().connect(options)?;
        Ok(HttpClient::new(Counting { inner, counts: self.0.clone() }))
    }
}

#[derive(Debug)]
struct Counting {
    inner: HttpClient,
    counts: Arc<RequestCounts>,
}

/// Decrements the in-flight gauge when a GET ends, however it ends.
struct InFlight<'a>(&'a RequestCounts);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.gets_in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

#[async_trait::async_trait]
impl HttpService for Counting {
    async fn call(&self, req: HttpRequest) -> Result<HttpResponse, HttpError> {
        let c = &*self.counts;
        let query = req.uri().query().unwrap_or("");
        let listing = query.contains("list-type=")
            || query.contains("prefix=") && !query.contains("uploadId");
        let mut guard = None;
        let counter = match req.method().as_str() {
            "GET" if listing || query.contains("restype=container") => &c.list,
            "GET" => {
                let now = c.gets_in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                c.peak_gets_in_flight.fetch_max(now, Ordering::SeqCst);
                guard = Some(InFlight(c));
                &c.get
            }
            "HEAD" => &c.head,
            "PUT"
                if req.headers().contains_key("x-amz-copy-source")
                    || req.headers().contains_key("x-ms-copy-source") =>
            {
                &c.copy
            }
            "PUT" if query.contains("uploadId") => &c.other,
            "PUT" => &c.put,
            "DELETE" => &c.delete,
            "POST" if query.starts_with("delete") || query.contains("&delete") => &c.delete,
            _ => &c.other,
        };
        counter.fetch_add(1, Ordering::SeqCst);
        let out = self.inner.execute(req).await;
        drop(guard);
        out
    }
}
