//! Object-store failures as the WIT error kinds, each naming the volume path.
//!
//! | object store says                     | error            |
//! |---------------------------------------|------------------|
//! | no such key (404, `NoSuchKey`)        | `not-found`      |
//! | precondition failed (412: the key exists for a create) | `already-exists` |
//! | access denied (403), bad credentials (401) | `backend`, with the store's reason |
//! | operation not supported by this store | `unsupported`    |
//! | throttled (503 `SlowDown`), a 5xx, a dropped connection | retried with backoff by the client; `backend` once retries are spent |
//! | no answer within the bounds (see `wait`) | `backend` (timeout) or `limit-exceeded` (call deadline) |
//!
//! Messages keep the store's own words (status, code, the request it was) with any
//! URL query string cut off: signed or SAS query parameters never reach an agent.

use filestore_guest::error::{Error, ErrorKind};

use super::wait::{OP_TIMEOUT, Unanswered};

/// `e` as a volume error about `path`, where `what` says what the volume was doing
/// (`reading`, `listing`...).
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
            format!("{what}: this object store does not support it: {}", clean(&e.to_string())),
        ),
        E::PermissionDenied { .. } | E::Unauthenticated { .. } => Error::at(
            ErrorKind::Backend,
            path,
            format!("{what}: the object store refused access: {}", clean(&e.to_string())),
        ),
        _ => Error::at(
            ErrorKind::Backend,
            path,
            format!("{what}: object store error: {}", clean(&e.to_string())),
        ),
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
        let denied = object_store::Error::PermissionDenied {
            path: "k".into(),
            source: "403 AccessDenied".into(),
        };
        let e = store_error(denied, "/a", "reading");
        assert_eq!(e.kind(), ErrorKind::Backend);
        assert!(e.message().contains("403 AccessDenied"), "{e}");
        let ns = object_store::Error::NotSupported { source: "no".into() };
        assert_eq!(store_error(ns, "/a", "copying").kind(), ErrorKind::Unsupported);
    }
}
