//! Object-store failures as the WIT error kinds, each naming the volume path.
//!
//! | object store says                     | error            |
//! |---------------------------------------|------------------|
//! | no such key (404, `NoSuchKey`)        | `not-found`      |
//! | precondition failed (412: the key exists for a create) | `already-exists` |
//! | access denied (403), bad credentials (401) | `backend`, with the status, the store's error code and where credentials come from |
//! | no credentials found (the instance metadata service, asked when no key is set, refused or did not answer) | `backend`, saying so |
//! | operation not supported by this store | `unsupported`    |
//! | throttled (503 `SlowDown`), a 5xx, a dropped connection | retried with backoff by the client; `backend` once retries are spent |
//! | no answer within the bounds (see `wait`) | `backend` (timeout) or `limit-exceeded` (call deadline) |
//!
//! **What an agent is told** ([`reason`]) is built from facts, never copied from the
//! store's text: the HTTP status, the store's error code (`AccessDenied`,
//! `NoSuchBucket`), what failed on the way (could not connect, timed out) and the
//! retries. The client's own messages name the request's URL (the endpoint, the
//! bucket and the key) and carry the response body (the bucket again, request ids,
//! sometimes an account): none of that reaches a component, which the README
//! promises never sees them. The host's operator gets a little more when a mount
//! fails at start ([`startup_reason`]: the store's own `<Message>`), beside the
//! spec they wrote, and, when credentials were refused or missing, what to set
//! ([`credentials_hint`]).

use filestore_guest::error::{Error, ErrorKind};

use super::spec::StoreKind;
use super::wait::{OP_TIMEOUT, Unanswered};

/// `e` as a volume error about `path`, where `what` says what the volume was doing
/// (`reading`, `listing`...). The message says what happened without the store's
/// text (see the module docs).
pub(super) fn store_error(e: object_store::Error, path: &str, what: &str) -> Error {
    use object_store::Error as E;
    match &e {
        E::NotFound { .. } => Error::not_found(path),
        E::AlreadyExists { .. } | E::Precondition { .. } => {
            Error::at(ErrorKind::AlreadyExists, path, "already exists")
        }
        E::NotSupported { .. } | E::NotImplemented { .. } => Error::at(
            ErrorKind::Unsupported,
            path,
            format!("{what}: this object store does not support it ({})", reason(&e)),
        ),
        // The S3 client reports a refused HEAD or LIST, and a failed credential
        // lookup, as generic errors.
        _ if is_credentials(&e) => refused(&e, path, what),
        _ => Error::at(
            ErrorKind::Backend,
            path,
            format!("{what}: object store error ({})", reason(&e)),
        ),
    }
}

fn refused(e: &object_store::Error, path: &str, what: &str) -> Error {
    Error::at(
        ErrorKind::Backend,
        path,
        format!(
            "{what}: the object store refused access ({}): the credentials the server was started with were refused or are missing; its operator sets them in the server's environment",
            reason(e)
        ),
    )
}

/// Whether `e` says the store refused the request's credentials (401, 403), or that
/// no credentials could be found: what [`credentials_hint`] is for.
pub(super) fn is_credentials(e: &object_store::Error) -> bool {
    matches!(
        e,
        object_store::Error::PermissionDenied { .. } | object_store::Error::Unauthenticated { .. }
    ) || is_credential_lookup(e)
        || status_of(&e.to_string()).is_some_and(|s| s.starts_with("401") || s.starts_with("403"))
}

/// Whether `e` is the failure of looking credentials up from a cloud's instance
/// metadata service, which the clients ask when no key is configured (AWS's IMDS,
/// Google's and Azure's metadata endpoints): no credentials were found at all.
fn is_credential_lookup(e: &object_store::Error) -> bool {
    let text = e.to_string();
    ["/latest/api/token", "/latest/meta-data/iam/", "/computeMetadata/", "/metadata/identity/"]
        .iter()
        .any(|p| text.contains(p))
}

/// What to set when a store of `kind` refused the credentials or found none: the
/// environment variables its client reads (a mount spec takes no credentials). An
/// MCP client that starts the server passes it only some of its own environment.
pub(super) fn credentials_hint(kind: StoreKind) -> &'static str {
    match kind {
        StoreKind::S3 => {
            "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials) in the environment filestore runs in; an MCP client that starts it passes few of its own variables (the Python SDK's stdio client drops AWS_*) unless they are in the server's `env`"
        }
        StoreKind::Gcs => {
            "set GOOGLE_SERVICE_ACCOUNT (a service account key file) or GOOGLE_APPLICATION_CREDENTIALS in the environment filestore runs in; an MCP client that starts it passes few of its own variables unless they are in the server's `env`"
        }
        StoreKind::Azure => {
            "set AZURE_STORAGE_ACCOUNT_NAME and AZURE_STORAGE_ACCOUNT_KEY (or AZURE_STORAGE_SAS_KEY) in the environment filestore runs in; an MCP client that starts it passes few of its own variables unless they are in the server's `env`"
        }
        StoreKind::File => "check the directory's permissions",
    }
}

/// What went wrong, as facts an agent may see: the transport failure, the HTTP
/// status, the store's error code and the retries, each when known; otherwise the
/// kind of error. Never a URL, a key, a bucket or a response body.
pub(super) fn reason(e: &object_store::Error) -> String {
    let text = e.to_string();
    let mut facts: Vec<String> = Vec::new();
    let lookup = is_credential_lookup(e);
    if lookup {
        facts.push("no credentials: none is configured, and the instance metadata service asked for them did not give any".into());
    }
    if let Some(k) = transport_failure(e) {
        facts.push(if lookup { k.replace(" the store", " it") } else { k.to_string() });
    }
    if let Some(s) = status_of(&text) {
        facts.push(format!("HTTP {s}"));
    }
    if let Some(c) = tag_of(&text, "Code").filter(|c| is_code(c)) {
        facts.push(c);
    }
    if let Some(n) = retries_of(&text) {
        facts.push(format!("after {n} retries"));
    }
    if facts.is_empty() {
        facts.push(kind_of(e).to_string());
    }
    facts.join(", ")
}

/// [`reason`], and the store's own `<Message>` when it sent one: for the host's
/// operator when a mount fails at start (the message may name the bucket or the
/// account, which is theirs; a component never sees this).
pub(super) fn startup_reason(e: &object_store::Error) -> String {
    let facts = reason(e);
    match tag_of(&e.to_string(), "Message") {
        Some(m) => format!("{facts}: {m}"),
        None => facts,
    }
}

/// Whether `e`, the answer to listing a volume's root, says its bucket (or Azure
/// container) does not exist: the store's code, or a 404 (listing a prefix that
/// holds nothing is an empty list, not a 404).
pub(super) fn is_missing_bucket(e: &object_store::Error) -> bool {
    let text = e.to_string();
    matches!(e, object_store::Error::NotFound { .. })
        || status_of(&text).is_some_and(|s| s.starts_with("404"))
        || tag_of(&text, "Code").is_some_and(|c| c == "NoSuchBucket" || c == "ContainerNotFound")
}

/// What failed on the way, when the request never got an answer.
fn transport_failure(e: &object_store::Error) -> Option<&'static str> {
    use object_store::client::{HttpError, HttpErrorKind};
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if let Some(h) = s.downcast_ref::<HttpError>() {
            return Some(match h.kind() {
                HttpErrorKind::Connect => "could not connect to the store",
                HttpErrorKind::Timeout => "the request timed out",
                HttpErrorKind::Interrupted => "the connection was interrupted",
                HttpErrorKind::Decode => "the answer could not be decoded",
                HttpErrorKind::Request => "the request failed",
                _ => "the request failed",
            });
        }
        source = s.source();
    }
    None
}

/// `403 Forbidden` from the client's "status code: 403 Forbidden: ..." (digits,
/// then the reason's words).
fn status_of(text: &str) -> Option<String> {
    let rest = &text[text.find("status code: ")? + "status code: ".len()..];
    let digits = rest.get(..3).filter(|d| d.bytes().all(|b| b.is_ascii_digit()))?;
    let words: String = rest[3..]
        .chars()
        .take_while(|c| c.is_ascii_alphabetic() || *c == ' ' || *c == '-')
        .take(40)
        .collect();
    Some(format!("{digits}{}", words.trim_end()))
}

/// The text of the first `<tag>...</tag>` in `text` (S3 and Azure error bodies),
/// trimmed, at most 300 characters.
fn tag_of(text: &str, tag: &str) -> Option<String> {
    let open = format!("<{tag}>");
    let start = text.find(&open)? + open.len();
    let len = text[start..].find(&format!("</{tag}>"))?;
    let inner = text[start..start + len].trim();
    (!inner.is_empty()).then(|| inner.chars().take(300).collect())
}

/// Whether `c` looks like an error code (`AccessDenied`), not free text.
fn is_code(c: &str) -> bool {
    c.len() <= 64 && c.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
}

/// The retries the client made, from its ", after N retries" note.
fn retries_of(text: &str) -> Option<usize> {
    let rest = &text[text.find("after ")? + "after ".len()..];
    let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
    rest[n.len()..].starts_with(" retries").then(|| n.parse().ok()).flatten()
}

/// The kind of a failure that carries no status or transport error.
fn kind_of(e: &object_store::Error) -> &'static str {
    use object_store::Error as E;
    match e {
        E::NotFound { .. } => "not found",
        E::AlreadyExists { .. } => "already exists",
        E::Precondition { .. } => "precondition failed",
        E::NotModified { .. } => "not modified",
        E::NotSupported { .. } | E::NotImplemented { .. } => "not supported",
        E::PermissionDenied { .. } => "permission denied",
        E::Unauthenticated { .. } => "not authenticated",
        E::InvalidPath { .. } => "invalid key",
        E::JoinError { .. } => "internal error",
        E::UnknownConfigurationKey { .. } => "unknown configuration key",
        _ => "unexpected answer",
    }
}

/// The error of a wait that ended unanswered.
pub(super) fn unanswered(why: Unanswered, path: &str, what: &str) -> Error {
    match why {
        Unanswered::Timeout => Error::at(
            ErrorKind::Backend,
            path,
            format!("{what}: the object store did not answer within {} s", OP_TIMEOUT.as_secs()),
        ),
        Unanswered::Deadline => Error::at(
            ErrorKind::LimitExceeded,
            path,
            format!("{what}: the object store did not answer before the call's deadline"),
        ),
    }
}

/// `text` with the query string of every URL in it removed (signatures, SAS tokens).
pub(super) fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("http") {
        let (before, url) = rest.split_at(i);
        out.push_str(before);
        let end = url
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == ',')
            .unwrap_or(url.len());
        let (u, after) = url.split_at(end);
        out.push_str(u.split('?').next().unwrap_or(u));
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_strings_are_cut_from_urls() {
        assert_eq!(
            clean("Error performing GET https://a.blob/x/y?sig=SECRET&se=1 in 2s, retried"),
            "Error performing GET https://a.blob/x/y in 2s, retried"
        );
        assert_eq!(clean("no url here"), "no url here");
    }

    #[test]
    fn kinds_are_mapped() {
        let nf = object_store::Error::NotFound { path: "k".into(), source: "gone".into() };
        assert_eq!(store_error(nf, "/a", "reading").kind(), ErrorKind::NotFound);
        let pre = object_store::Error::Precondition { path: "k".into(), source: "412".into() };
        assert_eq!(store_error(pre, "/a", "writing").kind(), ErrorKind::AlreadyExists);
        let ns = object_store::Error::NotSupported { source: "no".into() };
        assert_eq!(store_error(ns, "/a", "copying").kind(), ErrorKind::Unsupported);
    }

    /// The client's text as object_store 0.14 writes it for a refused S3 request.
    const DENIED: &str = "Error performing GET http://127.0.0.1:46003/bkt9/ws/x.txt?X-Amz-Signature=SECRET in 2ms, after 3 retries, max_retries: 3, retry_timeout: 15s  - Server returned non-2xx status code: 403 Forbidden: <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied to bkt9 for arn:aws:iam::123:user/x</Message><Resource>/bkt9/ws/x.txt</Resource><RequestId>17A0</RequestId></Error>";

    /// The client's text when the instance metadata service refuses the token
    /// request it makes for credentials.
    const IMDS_REFUSED: &str = "Error performing PUT http://169.254.169.254/latest/api/token in 1ms - Server returned non-2xx status code: 403 Forbidden: ";

    /// What reaches an agent names the status, the store's code and the retries,
    /// never the endpoint, the bucket, the key or the body (the store's own text
    /// carries signatures and account names).
    #[test]
    fn agents_are_told_facts_not_the_stores_text() {
        let denied = object_store::Error::PermissionDenied {
            path: "ws/x.txt".into(),
            source: DENIED.into(),
        };
        let e = store_error(denied, "/x.txt", "reading");
        assert_eq!(e.kind(), ErrorKind::Backend);
        assert_eq!(
            e.message(),
            "reading: the object store refused access (HTTP 403 Forbidden, AccessDenied, after 3 retries): the credentials the server was started with were refused or are missing; its operator sets them in the server's environment"
        );
        let generic = object_store::Error::Generic { store: "S3", source: DENIED.into() };
        let e = store_error(generic, "/x.txt", "reading");
        assert!(
            e.message().starts_with("reading: the object store refused access (HTTP 403"),
            "{e}"
        );
        for leak in ["127.0.0.1", "46003", "bkt9", "ws/x", "<", "SECRET", "arn:", "17A0"] {
            assert!(!e.message().contains(leak), "{leak}: {e}");
        }
        let odd = object_store::Error::Generic { store: "S3", source: "ws/x.txt: bad".into() };
        assert_eq!(
            store_error(odd, "/x", "listing").message(),
            "listing: object store error (unexpected answer)"
        );
        // No key configured, and the instance metadata service (asked instead)
        // refused: said as missing credentials, not as the store's refusal of a key.
        let lookup = object_store::Error::Generic { store: "S3", source: IMDS_REFUSED.into() };
        assert!(is_credentials(&lookup));
        let e = store_error(lookup, "/x.txt", "reading");
        assert!(e.message().contains("no credentials: none is configured"), "{e}");
        assert!(!e.message().contains("169.254"), "{e}");
        // The operator, at start, also gets the store's own message.
        let at_start = object_store::Error::Generic { store: "S3", source: DENIED.into() };
        assert_eq!(
            startup_reason(&at_start),
            "HTTP 403 Forbidden, AccessDenied, after 3 retries: Access Denied to bkt9 for arn:aws:iam::123:user/x"
        );
    }
}
