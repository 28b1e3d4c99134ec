//! Volume paths and object keys: which keys a path names, and which listed keys an
//! agent can address.
//!
//! A volume path `/a/b.txt` is the key `{prefix}/a/b.txt`, byte for byte: no
//! percent-encoding, so a name such as `a%2Fb` is the key `a%2Fb` (never a
//! directory `a/b`), and objects written by other tools keep their names. Every path
//! is checked here again (the component has normalised it already; a host may call
//! the volume directly): an empty component (`a//b`), `.` or `..`, a control
//! character or a backslash is `invalid-path`, as are paths over the component
//! limits and keys over [`MAX_KEY_BYTES`]. Listings leave out the keys an agent could
//! not address (the same rules), so nothing listed names a key outside the prefix.

use filestore_guest::error::{Error, ErrorKind, Result};
use filestore_guest::vfs::paths::{MAX_COMPONENT_BYTES, MAX_PATH_BYTES};
use object_store::path::Path as Key;

/// Most bytes of an object key: the limit of S3 and Google Cloud Storage (Azure
/// allows 1,024 characters). A longer path is refused before any request.
pub const MAX_KEY_BYTES: usize = 1024;

/// The name, at the volume root, of the objects filestore keeps for itself (entry
/// metadata, see `meta`): reserved at every depth (a volume over a parent prefix
/// holds the sidecars of volumes beneath it), hidden from listings, refused as a path.
pub const RESERVED_NAME: &str = ".filestore";

/// Where entry metadata lives beneath the prefix.
const META_DIR: &str = ".filestore/meta";

/// Whether `c` can be one component of a volume path.
pub(super) fn component_ok(c: &str) -> bool {
    !c.is_empty()
        && c != "."
        && c != ".."
        && c.len() <= MAX_COMPONENT_BYTES
        && !c.contains('\\')
        && !c.chars().any(char::is_control)
}

/// The key layout of one volume: everything lives beneath `prefix`.
#[derive(Clone, Debug)]
pub(super) struct Keys {
    /// The key prefix without a leading or trailing `/`; empty for a whole bucket.
    prefix: String,
}

impl Keys {
    /// The layout beneath `prefix` (`a/b`, or empty); `Err` names a bad component.
    pub(super) fn new(prefix: &str) -> Result<Keys> {
        let prefix = prefix.trim_matches('/');
        if !prefix.is_empty() {
            if let Some(bad) = prefix.split('/').find(|c| !component_ok(c)) {
                return Err(super::mount_error(format!(
                    "prefix '{prefix}': the component {bad:?} is not a valid name (empty, '.', '..', a control character or a backslash)"
                )));
            }
            if prefix.len() + 1 > MAX_KEY_BYTES {
                return Err(super::mount_error(format!(
                    "prefix '{prefix}' is longer than {MAX_KEY_BYTES} bytes"
                )));
            }
        }
        Ok(Keys { prefix: prefix.to_string() })
    }

    /// The prefix (no leading or trailing `/`).
    #[cfg(test)]
    pub(super) fn prefix(&self) -> &str {
        &self.prefix
    }

    fn join(&self, rest: &str) -> String {
        if self.prefix.is_empty() { rest.to_string() } else { format!("{}/{rest}", self.prefix) }
    }

    /// Checks a volume path: absolute, every component addressable, within the
    /// limits, not under the reserved name. Returns it without the leading `/`.
    fn checked<'p>(&self, path: &'p str) -> Result<&'p str> {
        let bad = |why: String| {
            Err(Error::at(ErrorKind::InvalidPath, path.escape_debug().to_string(), why))
        };
        let Some(rest) = path.strip_prefix('/') else {
            return bad("volume paths are absolute (start with '/')".into());
        };
        if path.len() > MAX_PATH_BYTES {
            return bad(format!(
                "path is {} bytes long; the limit is {MAX_PATH_BYTES}",
                path.len()
            ));
        }
        if rest.is_empty() {
            return Ok(rest);
        }
        for c in rest.split('/') {
            if c.is_empty() {
                return bad("empty path component ('//' or a trailing '/')".into());
            }
            if c == "." || c == ".." {
                return bad(format!("'{c}' components are not allowed"));
            }
            if c.chars().any(char::is_control) {
                return bad("path contains a control character".into());
            }
            if c.contains('\\') {
                return bad("path contains a backslash".into());
            }
            if c.len() > MAX_COMPONENT_BYTES {
                return bad(format!(
                    "a path component is {} bytes long; the limit is {MAX_COMPONENT_BYTES}",
                    c.len()
                ));
            }
        }
        if rest.split('/').any(|c| c == RESERVED_NAME) {
            return bad(format!(
                "'{RESERVED_NAME}' is reserved: an object volume keeps its entry metadata there (at any depth: a prefix mounted elsewhere keeps its own)"
            ));
        }
        let key_len = self.join(rest).len();
        if key_len > MAX_KEY_BYTES {
            return bad(format!(
                "its object key would be {key_len} bytes; object stores allow {MAX_KEY_BYTES}"
            ));
        }
        Ok(rest)
    }

    fn parse(&self, path: &str, key: String) -> Result<Key> {
        Key::parse(&key).map_err(|e| {
            Error::at(
                ErrorKind::InvalidPath,
                path.escape_debug().to_string(),
                format!("not a valid object key: {e}"),
            )
        })
    }

    /// The key of the object at `path` (a file; the root is not one).
    pub(super) fn key(&self, path: &str) -> Result<Key> {
        let rest = self.checked(path)?;
        if rest.is_empty() {
            return Err(Error::at(ErrorKind::NotAFile, path, "the volume root is a directory"));
        }
        self.parse(path, self.join(rest))
    }

    /// The prefix holding everything beneath the directory `path`; `None` for the
    /// root of a whole bucket.
    pub(super) fn dir(&self, path: &str) -> Result<Option<Key>> {
        let rest = self.checked(path)?;
        let k = self.join(rest);
        let k = k.trim_end_matches('/');
        if k.is_empty() { Ok(None) } else { self.parse(path, k.to_string()).map(Some) }
    }

    /// The key of the metadata of the file at `path`.
    pub(super) fn meta_key(&self, path: &str) -> Result<Key> {
        let rest = self.checked(path)?;
        self.parse(path, self.join(&format!("{META_DIR}/{rest}")))
    }

    /// The prefix of the metadata of everything beneath the directory `path`.
    pub(super) fn meta_dir(&self, path: &str) -> Result<Key> {
        let rest = self.checked(path)?;
        let k = if rest.is_empty() { META_DIR.to_string() } else { format!("{META_DIR}/{rest}") };
        self.parse(path, self.join(&k))
    }

    /// The volume path of a listed key, or `None` when it lies outside the prefix, is
    /// filestore's own, or names something an agent could not address.
    pub(super) fn rel(&self, key: &Key) -> Option<String> {
        let k: &str = key.as_ref();
        let rest = if self.prefix.is_empty() {
            k
        } else {
            k.strip_prefix(self.prefix.as_str())?.strip_prefix('/')?
        };
        self.addressable(rest)
    }

    /// The volume path whose metadata a listed key holds.
    pub(super) fn rel_of_meta(&self, key: &Key) -> Option<String> {
        let k: &str = key.as_ref();
        let meta = self.join(META_DIR);
        let rest = k.strip_prefix(meta.as_str())?.strip_prefix('/')?;
        let p = format!("/{rest}");
        (rest.split('/').all(component_ok) && p.len() <= MAX_PATH_BYTES).then_some(p)
    }

    fn addressable(&self, rest: &str) -> Option<String> {
        // `.filestore` at any depth: a volume over a whole bucket (or a parent
        // prefix) must not show the sidecars of a volume mounted beneath it.
        if rest.is_empty() || rest.split('/').any(|c| c == RESERVED_NAME) {
            return None;
        }
        let p = format!("/{rest}");
        (rest.split('/').all(component_ok) && p.len() <= MAX_PATH_BYTES).then_some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_path_beneath_the_prefix_byte_for_byte() {
        let k = Keys::new("/team/ws/").unwrap();
        assert_eq!(k.prefix(), "team/ws");
        assert_eq!(k.key("/a/b.txt").unwrap().as_ref(), "team/ws/a/b.txt");
        assert_eq!(k.key("/a%2Fb").unwrap().as_ref(), "team/ws/a%2Fb");
        assert_eq!(k.key("/ünï/名前.txt").unwrap().as_ref(), "team/ws/ünï/名前.txt");
        assert_eq!(k.dir("/").unwrap().unwrap().as_ref(), "team/ws");
        assert!(Keys::new("").unwrap().dir("/").unwrap().is_none());
        assert_eq!(k.meta_key("/a/b.txt").unwrap().as_ref(), "team/ws/.filestore/meta/a/b.txt");
    }

    #[test]
    fn hostile_paths_are_invalid() {
        let k = Keys::new("p").unwrap();
        for bad in [
            "x",
            "/../x",
            "/a/../x",
            "/a//b",
            "/a/",
            "/./a",
            "/a\u{0}b",
            "/a\nb",
            "/a\\b",
            "/.filestore",
            "/.filestore/meta/x",
            "/team/.filestore/meta/x",
        ] {
            assert_eq!(k.key(bad).unwrap_err().kind(), ErrorKind::InvalidPath, "{bad:?}");
        }
        let long = format!("/{}", "x".repeat(256));
        assert_eq!(k.key(&long).unwrap_err().kind(), ErrorKind::InvalidPath);
        let deep = format!("/{}", vec!["y".repeat(200); 6].join("/"));
        let e = k.key(&deep).unwrap_err();
        assert!(e.message().contains("1024"), "{e}");
        assert!(Keys::new("a/../b").is_err());
        assert!(Keys::new("a//b").is_err());
    }

    #[test]
    fn listed_keys_outside_or_unaddressable_are_left_out() {
        let k = Keys::new("p").unwrap();
        let key = |s: &str| Key::parse(s).unwrap();
        assert_eq!(k.rel(&key("p/a/b")).as_deref(), Some("/a/b"));
        assert_eq!(k.rel(&key("p/a%2Fb")).as_deref(), Some("/a%2Fb"));
        assert_eq!(k.rel(&key("px/a")), None, "a sibling sharing the prefix");
        assert_eq!(k.rel(&key("p")), None, "the prefix itself");
        assert_eq!(k.rel(&key("p/.filestore/meta/a")), None);
        // Another volume's sidecars, mounted at a prefix beneath this one's.
        assert_eq!(k.rel(&key("p/results/.filestore/meta/a")), None);
        assert_eq!(k.rel(&key("p/a\\b")), None);
        assert_eq!(k.rel(&key(&format!("p/{}", "z".repeat(300)))), None);
        assert_eq!(k.rel_of_meta(&key("p/.filestore/meta/a/b")).as_deref(), Some("/a/b"));
        assert_eq!(k.rel_of_meta(&key("p/a/b")), None);
    }
}
