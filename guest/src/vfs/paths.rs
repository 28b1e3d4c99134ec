//! Virtual path normalisation (docs/architecture.md#virtual-paths).
//!
//! Every path an agent sends goes through [`normalize`] before anything else sees it.
//! The result is absolute, `/`-separated, without `.`/`..`, repeated or trailing
//! slashes. Unlike the peers (which clamp `..` at the root silently), a `..` that
//! would climb above `/` is an error: an agent that writes `/../etc` has a bug or is
//! probing, and either way it should be told.
//!
//! This is lexical normalisation of *virtual* paths. It is not what confines a
//! directory volume: the host resolves the normalised path beneath the volume's root
//! one component at a time (see the host's `dir` backend).

use crate::error::{Error, ErrorKind, Result};

/// Longest accepted path in bytes. Bounds memory and the cost of every path operation
/// against an agent sending megabyte paths.
pub const MAX_PATH_BYTES: usize = 4096;
/// Longest accepted path component in bytes (the common filesystem limit).
pub const MAX_COMPONENT_BYTES: usize = 255;

/// Whether `path` is already what [`normalize`] returns for it (absolute, no `.`,
/// `..` or empty components, no control characters or backslash, within the
/// limits), without allocating: the check the component makes on every entry a host
/// volume returns (`vfs::checked`), so it must stay cheap.
pub fn is_normalized(path: &str) -> bool {
    if path == "/" {
        return true;
    }
    let b = path.as_bytes();
    if b.len() > MAX_PATH_BYTES || b.first() != Some(&b'/') {
        return false;
    }
    if plainly_normalized(b) {
        return true;
    }
    // One pass over the bytes (a walk checks 100,000 of these). A control
    // character is C0 (< 0x20), DEL, or C1 (U+0080..=U+009F: 0xC2 0x80..=0x9F in UTF-8,
    // the only encodings that start with 0xC2 and continue below 0xA0).
    let mut start = 1;
    for i in 1..=b.len() {
        let c = b.get(i).copied().unwrap_or(b'/');
        match c {
            b'/' => {
                let comp = &b[start..i];
                if comp.is_empty()
                    || comp == b"."
                    || comp == b".."
                    || comp.len() > MAX_COMPONENT_BYTES
                {
                    return false;
                }
                start = i + 1;
            }
            b'\\' | 0x00..=0x1f | 0x7f => return false,
            0xc2 if matches!(b.get(i + 1), Some(0x80..=0x9f)) => return false,
            _ => {}
        }
    }
    true
}

/// `0x80` in each byte of `v` that is zero, `0` in the others (exact: no borrow
/// between bytes).
pub(crate) fn zero_bytes(v: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    !(((v & LOW7).wrapping_add(LOW7)) | v | LOW7)
}

/// `0x80` in each byte of `v` equal to `c`.
pub(crate) fn bytes_equal(v: u64, c: u8) -> u64 {
    zero_bytes(v ^ (u64::from(c) * 0x0101_0101_0101_0101))
}

/// Whether `b` (starting with `/`, at most [`MAX_PATH_BYTES`]) is plainly normalised,
/// eight bytes at a time: no byte below 0x20, DEL, backslash or 0xC2 (a C1 control
/// starts with it), no `/` followed by `/` or `.`, no trailing `/`, and short enough
/// that no component can be over [`MAX_COMPONENT_BYTES`]. `false` means "look
/// closer" (a hidden name `/.git` is normalised but not plainly so), never "invalid".
fn plainly_normalized(b: &[u8]) -> bool {
    if b.len() > MAX_COMPONENT_BYTES + 1 || b.last() == Some(&b'/') {
        return false;
    }
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
    let mut i = 0;
    // Word `i..i+8` and the word one byte later, for the pairs starting in the first.
    while i + 9 <= b.len() {
        let (x, y) = (word(i), word(i + 1));
        let bad = zero_bytes(x & 0xe0e0_e0e0_e0e0_e0e0)
            | bytes_equal(x, 0x7f)
            | bytes_equal(x, b'\\')
            | bytes_equal(x, 0xc2)
            | (bytes_equal(x, b'/') & (bytes_equal(y, b'/') | bytes_equal(y, b'.')));
        if bad != 0 {
            return false;
        }
        i += 8;
    }
    // The last few bytes, one at a time (a final `/` was refused above).
    b[i..].iter().enumerate().all(|(k, &c)| match c {
        0x00..=0x1f | 0x7f | b'\\' | 0xc2 => false,
        b'/' => !matches!(b.get(i + k + 1), Some(b'/' | b'.')),
        _ => true,
    })
}

/// Normalises a virtual path: leading `/` added, `//` collapsed, trailing `/` dropped,
/// `.` and `..` resolved.
///
/// Errors (`invalid-path`, naming the path): `..` above the root, NUL or another
/// control character, a backslash, more than [`MAX_PATH_BYTES`] bytes, a component
/// over [`MAX_COMPONENT_BYTES`] bytes.
///
/// ```
/// use filestore_guest::vfs::paths::normalize;
/// assert_eq!(normalize("foo/bar").unwrap(), "/foo/bar");
/// assert_eq!(normalize("/foo//bar///baz/").unwrap(), "/foo/bar/baz");
/// assert_eq!(normalize("/foo/./bar/../baz").unwrap(), "/foo/baz");
/// assert!(normalize("/..").is_err());
/// ```
pub fn normalize(path: &str) -> Result<String> {
    if path.len() > MAX_PATH_BYTES {
        return Err(Error::new(
            ErrorKind::InvalidPath,
            format!(
                "path is {} bytes long; the limit is {MAX_PATH_BYTES} bytes (starts with {:?})",
                path.len(),
                truncate_chars(path, 60)
            ),
        ));
    }
    if let Some(c) = path.chars().find(|c| c.is_control()) {
        return Err(Error::at(
            ErrorKind::InvalidPath,
            path.escape_debug().to_string(),
            format!("path contains the control character {:?}", c),
        ));
    }
    if path.contains('\\') {
        return Err(Error::at(
            ErrorKind::InvalidPath,
            path,
            "path contains a backslash; use '/' as the separator",
        ));
    }
    let mut parts: Vec<&str> = Vec::new();
    for comp in path.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(Error::at(
                        ErrorKind::InvalidPath,
                        path,
                        "'..' climbs above the root '/'",
                    ));
                }
            }
            c => {
                if c.len() > MAX_COMPONENT_BYTES {
                    return Err(Error::at(
                        ErrorKind::InvalidPath,
                        truncate_chars(path, 80),
                        format!(
                            "a path component is {} bytes long; the limit is {MAX_COMPONENT_BYTES}",
                            c.len()
                        ),
                    ));
                }
                parts.push(c);
            }
        }
    }
    if parts.is_empty() {
        return Ok("/".to_string());
    }
    let mut out = String::with_capacity(path.len() + 1);
    for p in parts {
        out.push('/');
        out.push_str(p);
    }
    Ok(out)
}

/// Joins a normalised absolute `base` with a relative or absolute `rel` and normalises.
pub fn join(base: &str, rel: &str) -> Result<String> {
    if rel.starts_with('/') {
        normalize(rel)
    } else if base == "/" {
        normalize(&format!("/{rel}"))
    } else {
        normalize(&format!("{base}/{rel}"))
    }
}

/// The last component of a normalised path (`""` for `/`).
pub fn file_name(path: &str) -> &str {
    // A byte search: `rfind('/')`'s char searcher cost more than the search on
    // short paths (every name comparison of a listing's sort makes two).
    match memchr::memrchr(b'/', path.as_bytes()) {
        Some(i) => &path[i + 1..],
        None => path,
    }
}

/// The parent of a normalised path (`None` for `/`).
pub fn parent(path: &str) -> Option<&str> {
    if path == "/" {
        return None;
    }
    match memchr::memrchr(b'/', path.as_bytes()) {
        Some(0) => Some("/"),
        Some(i) => Some(&path[..i]),
        None => None,
    }
}

/// Whether `path` is `dir` or lies beneath it (both normalised). Component-wise, so
/// `/root_evil` is not beneath `/root`.
pub fn is_within(path: &str, dir: &str) -> bool {
    if dir == "/" {
        return true;
    }
    path == dir || (path.starts_with(dir) && path.as_bytes().get(dir.len()) == Some(&b'/'))
}

/// `path` relative to `dir` as an absolute path (`/` when equal). Requires
/// `is_within(path, dir)`.
pub fn strip_dir<'a>(path: &'a str, dir: &str) -> &'a str {
    if dir == "/" {
        return path;
    }
    let rest = &path[dir.len()..];
    if rest.is_empty() { "/" } else { rest }
}

/// `rel` (absolute, volume-relative) placed under the mount point `point`.
pub fn under(point: &str, rel: &str) -> String {
    match (point, rel) {
        ("/", r) => r.to_string(),
        (p, "/") => p.to_string(),
        (p, r) => {
            let mut s = String::with_capacity(p.len() + r.len());
            s.push_str(p);
            s.push_str(r);
            s
        }
    }
}

/// `a.cmp(b)`, eight bytes at a time: sorted paths share long prefixes, and in the
/// component a slice comparison is a byte-at-a-time `memcmp`.
pub fn cmp_bytes(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().expect("8 bytes"));
        let y = u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if x != y {
            // The first differing byte is the lowest differing one (little-endian).
            let k = i + ((x ^ y).trailing_zeros() / 8) as usize;
            return a[k].cmp(&b[k]);
        }
        i += 8;
    }
    while i < n {
        if a[i] != b[i] {
            return a[i].cmp(&b[i]);
        }
        i += 1;
    }
    a.len().cmp(&b.len())
}

/// `a.cmp(b)` component by component (`/` sorts before every other byte): the
/// order of a depth-first walk whose directories list their children by name, as
/// `find` visits them (`a`, `a/x`, `a.txt`), where [`cmp_bytes`] puts `a.txt`
/// before `a/x`.
pub fn cmp_components(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let key = |c: u8| if c == b'/' { 0 } else { c };
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(k) => key(a[k]).cmp(&key(b[k])),
        None => a.len().cmp(&b.len()),
    }
}

/// `path` (absolute) with `prefix` (a mount point, or empty) in front.
pub fn under_prefix(prefix: &str, path: &str) -> String {
    let mut s = String::with_capacity(prefix.len() + path.len());
    s.push_str(prefix);
    s.push_str(path);
    s
}

/// Path depth: number of components (`/` is 0).
pub fn depth(path: &str) -> usize {
    if path == "/" { 0 } else { path.matches('/').count() }
}

fn truncate_chars(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn components_order_a_directory_before_its_longer_siblings() {
        let mut v = vec!["a.txt", "a/x", "a", "a-b/c", "a/x/y", "b", "a-b"];
        v.sort_by(|x, y| cmp_components(x.as_bytes(), y.as_bytes()));
        assert_eq!(v, ["a", "a/x", "a/x/y", "a-b", "a-b/c", "a.txt", "b"]);
    }

    #[test]
    fn is_normalized_agrees_with_normalize() {
        let long = format!("/{}", "a".repeat(MAX_COMPONENT_BYTES + 1));
        for p in [
            "/",
            "/a",
            "/a/b.txt",
            "a",
            "/a/",
            "//a",
            "/a//b",
            "/./a",
            "/a/..",
            "/a/.b",
            "/a\\b",
            "/a\nb",
            "/..",
            "/...",
            "",
            long.as_str(),
        ] {
            let want = normalize(p).is_ok_and(|n| n == p);
            assert_eq!(is_normalized(p), want, "{p:?}");
        }
    }

    #[test]
    fn cmp_bytes_is_ord() {
        use proptest::prelude::*;
        let bytes = proptest::collection::vec(
            prop_oneof![Just(b'a'), Just(b'b'), Just(b'/'), Just(0xff)],
            0..20,
        );
        proptest!(ProptestConfig::with_cases(3000), |(a in bytes.clone(), b in bytes)| {
            prop_assert_eq!(cmp_bytes(&a, &b), a.cmp(&b));
            prop_assert_eq!(cmp_bytes(&a, &a), std::cmp::Ordering::Equal);
        });
    }

    /// The one-pass byte scan of `is_normalized` answers what the straightforward
    /// definition (each rule checked in turn with `str` methods) answers, on paths
    /// built from the characters that matter: separators, dots, backslash,
    /// C0/DEL/C1 controls, multi-byte letters (including ones whose UTF-8 starts with
    /// 0xC2), long names.
    #[test]
    fn is_normalized_matches_its_definition() {
        fn reference(path: &str) -> bool {
            if path == "/" {
                return true;
            }
            path.len() <= MAX_PATH_BYTES
                && path.starts_with('/')
                && !path.contains('\\')
                && !path.chars().any(char::is_control)
                && path[1..].split('/').all(|c| {
                    !c.is_empty() && c != "." && c != ".." && c.len() <= MAX_COMPONENT_BYTES
                })
        }
        use proptest::prelude::*;
        let long = "x".repeat(MAX_COMPONENT_BYTES);
        let piece = prop_oneof![
            Just("/".to_string()),
            Just(".".to_string()),
            Just("..".to_string()),
            Just("a".to_string()),
            Just("\\".to_string()),
            Just("\u{1}".to_string()),
            Just("\u{7f}".to_string()),
            Just("\u{85}".to_string()),
            Just("\u{9f}".to_string()),
            Just("\u{a0}".to_string()),
            Just("é".to_string()),
            Just("\u{a9}".to_string()),
            Just(long.clone()),
            Just("y".to_string()),
        ];
        proptest!(ProptestConfig::with_cases(4000), |(parts in proptest::collection::vec(piece, 0..12))| {
            let p: String = parts.concat();
            prop_assert_eq!(is_normalized(&p), reference(&p), "{:?}", p);
            // The word-at-a-time scan only ever says yes to a normalised path.
            if p.starts_with('/') && plainly_normalized(p.as_bytes()) {
                prop_assert!(reference(&p), "{:?}", p);
            }
        });
        // ... and says yes to ordinary ones, so it is what runs.
        for p in ["/d12/s3/file1234.rs", "/a", "/ab/cd/ef/gh/ij/kl/mn", "/x/é/ü/y.txt"] {
            assert!(plainly_normalized(p.as_bytes()), "{p}");
        }
        for p in [
            "/d12/s3/.file1234.rs",
            "/d12/s3//file1234.rs",
            "/d12/s3/file1234\\rs",
            "/d12/s3/file1234/",
        ] {
            assert!(!plainly_normalized(p.as_bytes()), "{p}");
        }
        for p in [
            format!("/{}", "a".repeat(MAX_PATH_BYTES - 1)),
            format!("/{}", "a".repeat(MAX_PATH_BYTES)),
        ] {
            assert_eq!(is_normalized(&p), reference(&p));
        }
    }

    use super::*;

    #[test]
    fn normalisation_table() {
        let ok = [
            ("foo/bar", "/foo/bar"),
            ("/foo//bar///baz", "/foo/bar/baz"),
            ("/foo/./bar", "/foo/bar"),
            ("/foo/bar/../baz", "/foo/baz"),
            ("/foo/bar/", "/foo/bar"),
            ("", "/"),
            ("/", "/"),
            ("//", "/"),
            (".", "/"),
            ("/a/..", "/"),
            ("a/b/../../c", "/c"),
            ("/héllo wörld/ü.txt", "/héllo wörld/ü.txt"),
            ("/...", "/..."),
            ("/a..b", "/a..b"),
        ];
        for (input, want) in ok {
            assert_eq!(normalize(input).unwrap(), want, "input {input:?}");
        }
    }

    #[test]
    fn invalid_paths() {
        let long = format!("/{}", "a".repeat(5000));
        let long_comp = format!("/{}", "b".repeat(256));
        let bad = [
            "/..",
            "..",
            "/a/../..",
            "/foo/../../etc/passwd",
            "/a\0b",
            "/a\nb",
            "/a\x1bb",
            "/a\\b",
            long.as_str(),
            long_comp.as_str(),
        ];
        for input in bad {
            let err = normalize(input).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::InvalidPath, "input {input:?}");
        }
        assert!(normalize("/..").unwrap_err().to_string().contains("above the root"));
        assert!(normalize(&format!("/{}", "c".repeat(255))).is_ok());
    }

    #[test]
    fn helpers() {
        assert_eq!(file_name("/a/b.txt"), "b.txt");
        assert_eq!(file_name("/"), "");
        assert_eq!(parent("/a/b"), Some("/a"));
        assert_eq!(parent("/a"), Some("/"));
        assert_eq!(parent("/"), None);
        assert!(is_within("/root/x", "/root"));
        assert!(is_within("/root", "/root"));
        assert!(!is_within("/root_evil", "/root"));
        assert!(is_within("/anything", "/"));
        assert_eq!(strip_dir("/w/a/b", "/w"), "/a/b");
        assert_eq!(strip_dir("/w", "/w"), "/");
        assert_eq!(under("/w", "/a"), "/w/a");
        assert_eq!(under("/", "/a"), "/a");
        assert_eq!(under("/w", "/"), "/w");
        assert_eq!(join("/w", "a/b").unwrap(), "/w/a/b");
        assert_eq!(join("/w", "/x").unwrap(), "/x");
        assert_eq!(join("/", "x").unwrap(), "/x");
        assert_eq!(depth("/"), 0);
        assert_eq!(depth("/a/b"), 2);
    }
}
