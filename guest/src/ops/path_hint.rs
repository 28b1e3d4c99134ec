//! What a relative tool path was read as, said when it is not found.
//!
//! Tool paths are virtual and absolute: a relative one is taken from `/` (see
//! [`paths::normalize`]), not from a working directory. An agent used to a shell asks
//! for `README.md` meaning `/workspace/README.md`, and a bare `not-found: /README.md`
//! leaves it guessing. Every built-in tool's error leaves the session through
//! [`crate::session::Session::call`] (or its JSON twin), which passes it here with
//! the paths the call named, so every path-taking tool says it the same way.

use crate::error::{Error, ErrorKind};
use crate::vfs::mounts::MountTable;
use crate::vfs::paths;

/// Most existing paths named in one hint.
const MAX_NAMED: usize = 3;

/// `e`, with a hint when it is `not-found` about the path a relative `raw` was read
/// as: that it was read from `/`, and the paths beneath mount points that do hold
/// that name (`/workspace/README.md`), else the mount points. Any other error, or one
/// about another path, is returned as it is.
pub fn explain(mounts: &MountTable, raw: &str, e: Error) -> Error {
    if e.kind() != ErrorKind::NotFound || raw.starts_with('/') {
        return e;
    }
    let Ok(read_as) = paths::normalize(raw) else { return e };
    if read_as == "/" || e.path() != Some(read_as.as_str()) {
        return e;
    }
    let points: Vec<&str> = mounts.points().into_iter().filter(|p| *p != "/").collect();
    let existing: Vec<String> = points
        .iter()
        .map(|p| paths::under(p, &read_as))
        .filter(|candidate| mounts.stat(candidate).is_ok())
        .take(MAX_NAMED)
        .collect();
    let where_ = match existing.as_slice() {
        [] if points.is_empty() => String::new(),
        [] => format!("; the mounts are {}", points.join(", ")),
        [one] => format!("; {one} exists"),
        many => format!("; {} exist", many.join(" and ")),
    };
    let message = format!(
        "{}: '{raw}' was read as {read_as} (relative paths start at '/'; there is no working directory){where_}",
        e.message()
    );
    Error::at(e.kind(), read_as, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::memory::MemoryVolume;

    fn table() -> MountTable {
        let mut t = MountTable::new();
        let w = MemoryVolume::new();
        w.insert("/README.md", "hi");
        w.insert("/src/main.rs", "fn main() {}");
        t.add("/workspace", Box::new(w), 0, true).unwrap();
        t.add("/scratch", Box::new(MemoryVolume::new()), 0, false).unwrap();
        t
    }

    #[test]
    fn a_relative_path_names_where_the_name_exists() {
        let t = table();
        let e = explain(&t, "README.md", Error::not_found("/README.md"));
        assert_eq!(e.kind(), ErrorKind::NotFound);
        assert_eq!(
            e.to_string(),
            "/README.md: no such file or directory: 'README.md' was read as /README.md (relative paths start at '/'; there is no working directory); /workspace/README.md exists"
        );
        let e = explain(&t, "./src/main.rs", Error::not_found("/src/main.rs"));
        assert!(e.message().ends_with("; /workspace/src/main.rs exists"), "{e}");
        let e = explain(&t, "nope.txt", Error::not_found("/nope.txt"));
        assert!(e.message().ends_with("; the mounts are /scratch, /workspace"), "{e}");
    }

    #[test]
    fn other_errors_pass_unchanged() {
        let t = table();
        let absolute = Error::not_found("/README.md");
        assert_eq!(explain(&t, "/README.md", absolute.clone()), absolute);
        // The error is about another path (a missing parent, a destination).
        let other = Error::not_found("/elsewhere");
        assert_eq!(explain(&t, "README.md", other.clone()), other);
        let kind = Error::at(ErrorKind::ReadOnly, "/README.md", "entry is read-only");
        assert_eq!(explain(&t, "README.md", kind.clone()), kind);
    }
}
