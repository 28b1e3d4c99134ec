//! The one error type of the filestore: a kind an agent or host can branch on, the
//! path it concerns (when there is one) and a human message.
//!
//! The kinds mirror the WIT `types.error` variant one to one, so an error crosses the
//! component boundary without losing information.

use std::fmt;

/// What went wrong, as a closed set of categories shared with the WIT contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The path (or tool, or call) does not exist.
    NotFound,
    /// A file was required but the path is a directory.
    NotAFile,
    /// A directory was required but the path is a file.
    NotADirectory,
    /// The destination exists and the operation may not replace it.
    AlreadyExists,
    /// The mount or the entry is read-only.
    ReadOnly,
    /// The path is malformed, escapes its root, or contains forbidden characters.
    InvalidPath,
    /// A glob or regular expression did not parse.
    InvalidPattern,
    /// A parameter is missing, of the wrong type or out of range.
    InvalidArgument,
    /// A file or result is larger than the operation allows.
    TooLarge,
    /// The operation conflicts with the current state (e.g. an ambiguous edit).
    Conflict,
    /// The volume or the host does not support the operation.
    Unsupported,
    /// A configured resource limit was reached; the message names the limit.
    LimitExceeded,
    /// The caller is not authorised to run the tool.
    Unauthorized,
    /// The storage backend or the host failed; the message carries its reason.
    Backend,
}

impl ErrorKind {
    /// The stable, kebab-case name used in JSON envelopes and the WIT variant.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not-found",
            ErrorKind::NotAFile => "not-a-file",
            ErrorKind::NotADirectory => "not-a-directory",
            ErrorKind::AlreadyExists => "already-exists",
            ErrorKind::ReadOnly => "read-only",
            ErrorKind::InvalidPath => "invalid-path",
            ErrorKind::InvalidPattern => "invalid-pattern",
            ErrorKind::InvalidArgument => "invalid-argument",
            ErrorKind::TooLarge => "too-large",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::LimitExceeded => "limit-exceeded",
            ErrorKind::Unauthorized => "unauthorized",
            ErrorKind::Backend => "backend",
        }
    }

    /// Parses the kebab-case name produced by [`ErrorKind::as_str`].
    pub fn parse(name: &str) -> Option<ErrorKind> {
        ALL_KINDS.iter().copied().find(|k| k.as_str() == name)
    }
}

/// Every kind, for round-trip tests and parsing.
pub const ALL_KINDS: [ErrorKind; 14] = [
    ErrorKind::NotFound,
    ErrorKind::NotAFile,
    ErrorKind::NotADirectory,
    ErrorKind::AlreadyExists,
    ErrorKind::ReadOnly,
    ErrorKind::InvalidPath,
    ErrorKind::InvalidPattern,
    ErrorKind::InvalidArgument,
    ErrorKind::TooLarge,
    ErrorKind::Conflict,
    ErrorKind::Unsupported,
    ErrorKind::LimitExceeded,
    ErrorKind::Unauthorized,
    ErrorKind::Backend,
];

/// A filestore error: kind, optional path, message.
///
/// The path is kept apart from the message so the mount layer can replace a
/// volume-relative path with the virtual path the agent used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    path: Option<String>,
    message: String,
}

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of `kind` with a message and no path.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, path: None, message: message.into() }
    }

    /// An error of `kind` about `path`.
    pub fn at(kind: ErrorKind, path: impl Into<String>, message: impl Into<String>) -> Error {
        Error { kind, path: Some(path.into()), message: message.into() }
    }

    /// The error's category.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The path the error is about, if any.
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// The message without the path.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Replaces the path the error names (used to turn volume paths into virtual ones).
    pub fn with_path(mut self, path: impl Into<String>) -> Error {
        self.path = Some(path.into());
        self
    }

    /// Shorthand for a `not-found` error about `path`.
    pub fn not_found(path: &str) -> Error {
        Error::at(ErrorKind::NotFound, path, "no such file or directory")
    }

    /// Shorthand for an `invalid-argument` error naming a parameter.
    pub fn invalid_argument(param: &str, message: impl fmt::Display) -> Error {
        Error::new(ErrorKind::InvalidArgument, format!("parameter '{param}': {message}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_round_trip() {
        for k in ALL_KINDS {
            assert_eq!(ErrorKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(ErrorKind::parse("nope"), None);
    }

    #[test]
    fn display_names_path() {
        let e = Error::not_found("/w/a.txt");
        assert_eq!(e.to_string(), "/w/a.txt: no such file or directory");
        assert_eq!(e.with_path("/x").to_string(), "/x: no such file or directory");
    }
}
