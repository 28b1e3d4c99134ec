//! Who a verified caller is, as everything after authentication ([`super::auth`])
//! tells callers apart: the [`Identity`] a request carries (its source, subject,
//! claims and the path segment `{sub}` becomes in a mount), the [`IdentityKey`]
//! sessions, connections and call slots are counted by, and [`current_identity`]
//! while the request is handled.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// How a caller was verified. Callers with one subject but different sources are
/// different callers: a user of the identity provider whose `sub` happens to be a
/// static token's `sub` gets neither that token's sessions nor its call slots nor,
/// on a server that accepts both, its workspace (see [`Identity::segment`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// A JWT verified against the issuer's keys.
    Jwt,
    /// A token of the static tokens file (`--auth-tokens`).
    StaticToken,
}

/// What tells callers apart: the source and the subject (sessions are bound to it,
/// call limits are counted by it).
pub type IdentityKey = (Source, String);

/// Put before a static token's segment on a server that accepts JWTs too, so no JWT
/// subject can name that workspace: `~` never appears in a [`path_segment`] except in
/// its hashed form, which starts with [`HASHED_SEGMENT_PREFIX`].
pub const STATIC_TOKEN_SEGMENT_PREFIX: &str = "token~";

/// The start of a long subject's segment: `h~` and 32 hex digits of its SHA-256. A
/// subject's own `~` is always escaped (`%7E`), so no kept subject can equal it.
pub const HASHED_SEGMENT_PREFIX: &str = "h~";

/// A verified caller.
#[derive(Clone, Debug, PartialEq)]
pub struct Identity {
    /// The token's subject (`sub`), or the static token's identity.
    pub subject: String,
    /// Every claim of the verified token (a static token's configured claims, with
    /// `sub`).
    pub claims: Map<String, Value>,
    /// How the caller was verified.
    pub source: Source,
    /// What `{sub}` in a mount becomes for this caller: [`path_segment`] of the
    /// subject, after [`STATIC_TOKEN_SEGMENT_PREFIX`] for a static token on a server
    /// that accepts JWTs too. Distinct callers get distinct segments.
    pub segment: String,
}

impl Identity {
    /// A caller of `source` with `subject` and its claims.
    pub fn new(source: Source, subject: String, claims: Map<String, Value>) -> Identity {
        let segment = path_segment(&subject);
        Identity { subject, claims, source, segment }
    }

    /// What tells this caller apart from others.
    pub fn key(&self) -> IdentityKey {
        (self.source, self.subject.clone())
    }
}

tokio::task_local! {
    /// The identity of the HTTP request being handled (set by
    /// [`super::auth::check`] around the rest of the request): what a new session's
    /// mounts are made for.
    pub static IDENTITY: Identity;
}

/// The identity of the request being handled, if it was authenticated.
pub fn current_identity() -> Option<Identity> {
    IDENTITY.try_with(Identity::clone).ok()
}

/// `subject` as one safe path segment, for mounts such as `./tenants/{sub}`: ASCII
/// lowercase letters, digits and `-_.@+` are kept, every other byte (capital letters,
/// `/`, `\`, `%`, `~`, control characters, non-ASCII) becomes `%XX`, a segment of only
/// dots has them encoded (never `.` or `..`), and one longer than 128 bytes becomes
/// [`HASHED_SEGMENT_PREFIX`] and 32 hex digits of its SHA-256. Distinct subjects give
/// distinct segments: the encoding is injective, a kept segment never holds the `~`
/// that every hashed one does, and distinct hashed ones differ but for a SHA-256
/// collision.
///
/// Distinct segments also differ other than by case, so they stay distinct
/// directories on a case-insensitive file system (macOS, Windows): `Alice` is `%41lice`,
/// never a spelling of `alice`. Outside an escape every letter is lowercase, and inside
/// one every hex digit is a capital, so two segments equal but for case are equal.
pub fn path_segment(subject: &str) -> String {
    let mut out = String::with_capacity(subject.len());
    for b in subject.bytes() {
        if b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.@+".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.bytes().all(|b| b == b'.') {
        out = out.replace('.', "%2E");
    }
    if out.len() > 128 {
        let h = Sha256::digest(subject.as_bytes());
        let hex: String = h[..16].iter().map(|b| format!("{b:02x}")).collect();
        out = format!("{HASHED_SEGMENT_PREFIX}{hex}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn subjects_become_one_safe_segment() {
        assert_eq!(path_segment("alice"), "alice");
        assert_eq!(path_segment("a.b@example.com"), "a.b@example.com");
        assert_eq!(path_segment("../etc"), "..%2Fetc");
        assert_eq!(path_segment(".."), "%2E%2E");
        assert_eq!(path_segment("."), "%2E");
        assert_eq!(path_segment("a/b\\c\n%"), "a%2Fb%5Cc%0A%25");
        assert_eq!(path_segment("ü"), "%C3%BC");
        assert_eq!(path_segment("Alice"), "%41lice");
        assert_ne!(path_segment("a/b"), path_segment("a%2Fb"));
        let long = path_segment(&"x".repeat(300));
        assert!(long.starts_with("h~") && long.len() == 34, "{long}");
        for s in ["..", ".", "a/../b", "/", "\0"] {
            let seg = path_segment(s);
            assert!(!seg.contains('/') && seg != "." && seg != ".." && !seg.is_empty(), "{s:?}");
        }
    }

    /// A short subject shaped like a long one's hashed segment
    /// (`h-` then 32 hex digits was kept as is) must not share its workspace.
    #[test]
    fn distinct_subjects_never_share_a_segment() {
        let long = "x".repeat(300);
        let hashed = path_segment(&long);
        let subjects = [
            long.clone(),
            hashed.clone(),
            hashed.replacen(HASHED_SEGMENT_PREFIX, "h-", 1),
            hashed.replacen(HASHED_SEGMENT_PREFIX, "h%7E", 1),
            "y".repeat(128),
            "y".repeat(129),
            "..".into(),
            "%2E%2E".into(),
            ".".into(),
            "%2E".into(),
            "a/b".into(),
            "a%2Fb".into(),
            "~".into(),
            "%7E".into(),
            "carol".into(),
            format!("{STATIC_TOKEN_SEGMENT_PREFIX}carol"),
        ];
        let mut seen = HashMap::new();
        for s in &subjects {
            if let Some(other) = seen.insert(path_segment(s), s) {
                panic!("{s:?} and {other:?} share the segment {}", path_segment(s));
            }
        }
        // On a case-insensitive file system `Alice` and `alice` would name one
        // directory. Segments must differ other than by case.
        let cased = [
            "alice", "Alice", "ALICE", "aLiCe", "%41lice", "%61lice", "a%2fb", "a%2Fb", "a/b",
            "A/B", "\u{e9}", "\u{c9}", "x-Y_z.@+", "X-y_Z.@+",
        ];
        let long_upper = "A".repeat(200);
        let long_lower = "a".repeat(200);
        let mut folded = HashMap::new();
        for s in cased.iter().copied().chain([long_upper.as_str(), long_lower.as_str()]) {
            let seg = path_segment(s);
            if let Some(other) = folded.insert(seg.to_lowercase(), s) {
                panic!("{s:?} and {other:?} differ only by case: {seg}");
            }
        }
        assert_eq!(path_segment(&"y".repeat(128)), "y".repeat(128), "ordinary names are kept");
        assert!(!path_segment(&hashed).contains('~'), "a kept subject's ~ is escaped");
    }
}
