//! The one error type of the filestore: a kind an agent or host can branch on, the
//! path it concerns (when there is one) and a human message.
//!
//! The kinds mirror the WIT `types.error` variant one to one, so an error crosses the
//! component boundary without losing information.

use std::fmt;

/// The one table of error kinds: each kind once, with its kebab-case name (the WIT
/// `types.error` case and the JSON envelope's `kind`). Everything that maps kinds
/// expands from it: [`ErrorKind`] with its names here, and the conversions to and from
/// the WIT-generated `error` variant in the guest's bindings and the host's glue
/// ([`wit_error_conversions!`](crate::wit_error_conversions)). A new kind is one line
/// here and one case in `wit/filestore.wit` (a test compares the two lists).
#[macro_export]
#[doc(hidden)]
macro_rules! __error_kind_table {
    ($($mode:tt)*) => {
        $crate::__error_kind_expand! { [$($mode)*]
            /// The path (or tool, or call) does not exist.
            NotFound = "not-found",
            /// A file was required but the path is a directory.
            NotAFile = "not-a-file",
            /// A directory was required but the path is a file.
            NotADirectory = "not-a-directory",
            /// The destination exists and the operation may not replace it.
            AlreadyExists = "already-exists",
            /// The mount or the entry is read-only.
            ReadOnly = "read-only",
            /// The path is malformed, escapes its root, or contains forbidden characters.
            InvalidPath = "invalid-path",
            /// A glob or regular expression did not parse.
            InvalidPattern = "invalid-pattern",
            /// A parameter is missing, of the wrong type or out of range.
            InvalidArgument = "invalid-argument",
            /// A file or result is larger than the operation allows.
            TooLarge = "too-large",
            /// The operation conflicts with the current state (e.g. an ambiguous edit).
            Conflict = "conflict",
            /// The volume or the host does not support the operation.
            Unsupported = "unsupported",
            /// A configured resource limit was reached; the message names the limit.
            LimitExceeded = "limit-exceeded",
            /// The caller is not authorised to run the tool.
            Unauthorized = "unauthorized",
            /// The storage backend or the host failed; the message carries its reason.
            Backend = "backend",
        }
    };
}

/// Expands [`__error_kind_table!`] in one of its modes (not for direct use).
#[macro_export]
#[doc(hidden)]
macro_rules! __error_kind_expand {
    ([define] $($(#[$doc:meta])* $kind:ident = $name:literal,)*) => {
        /// What went wrong, as a closed set of categories shared with the WIT contract.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorKind {
            $($(#[$doc])* $kind,)*
        }

        impl ErrorKind {
            /// Every kind, in the WIT's order.
            pub const ALL: &'static [ErrorKind] = &[$(ErrorKind::$kind,)*];

            /// The stable, kebab-case name used in JSON envelopes and the WIT variant.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorKind::$kind => $name,)*
                }
            }
        }
    };
    ([wit $wit:ident] $($(#[$doc:meta])* $kind:ident = $name:literal,)*) => {
        /// The WIT `error` case of `kind`, carrying `message`.
        #[allow(dead_code)]
        fn kind_to_wit(kind: $crate::error::ErrorKind, message: String) -> $wit {
            #[allow(unreachable_patterns)] // exhaustive in the guest, not in the host
            match kind {
                $($crate::error::ErrorKind::$kind => $wit::$kind(message),)*
                _ => $wit::Backend(message),
            }
        }

        /// The kind and the message of a WIT `error`.
        #[allow(dead_code)]
        fn kind_from_wit(e: $wit) -> ($crate::error::ErrorKind, String) {
            match e {
                $($wit::$kind(m) => ($crate::error::ErrorKind::$kind, m),)*
            }
        }
    };
}

/// Defines `kind_to_wit(ErrorKind, String) -> E` and `kind_from_wit(E) -> (ErrorKind,
/// String)` in the calling module for `E`, the WIT `types.error` variant as a bindings
/// generator named it (`wit_bindgen` in the guest, `wasmtime` in the host): the
/// mapping comes from the one table of kinds, so neither side spells it out.
#[macro_export]
macro_rules! wit_error_conversions {
    ($wit:ident) => {
        $crate::__error_kind_table! { wit $wit }
    };
}

__error_kind_table! { define }

impl ErrorKind {
    /// Parses the kebab-case name produced by [`ErrorKind::as_str`].
    pub fn parse(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.iter().copied().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every kind, for round-trip tests and parsing (the same list as [`ErrorKind::ALL`]).
pub const ALL_KINDS: &[ErrorKind] = ErrorKind::ALL;

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
        for &k in ErrorKind::ALL {
            assert_eq!(ErrorKind::parse(k.as_str()), Some(k));
            assert_eq!(k.to_string(), k.as_str());
        }
        assert_eq!(ErrorKind::parse("nope"), None);
    }

    /// The table is the WIT's `types.error` variant, case for case and in order: the
    /// generated conversions rely on it, and a kind added on one side only fails here.
    #[test]
    fn kinds_are_the_wits_error_cases() {
        let wit = include_str!("../../wit/filestore.wit");
        let body =
            wit.split("variant error {").nth(1).expect("wit/filestore.wit has `variant error`");
        let body = &body[..body.find('}').expect("the variant closes")];
        let cases: Vec<&str> = body
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("//"))
            .map(|l| {
                l.strip_suffix("(string),").unwrap_or_else(|| panic!("unexpected case line {l:?}"))
            })
            .collect();
        let ours: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(ours, cases);
    }

    /// The generated conversions send each kind to its own case and back.
    #[test]
    fn wit_conversions_round_trip() {
        #[derive(Debug, PartialEq)]
        enum WitError {
            NotFound(String),
            NotAFile(String),
            NotADirectory(String),
            AlreadyExists(String),
            ReadOnly(String),
            InvalidPath(String),
            InvalidPattern(String),
            InvalidArgument(String),
            TooLarge(String),
            Conflict(String),
            Unsupported(String),
            LimitExceeded(String),
            Unauthorized(String),
            Backend(String),
        }
        crate::wit_error_conversions!(WitError);
        for &k in ErrorKind::ALL {
            let wit = kind_to_wit(k, format!("m {k}"));
            assert_eq!(kind_from_wit(wit), (k, format!("m {k}")));
        }
        assert_eq!(kind_to_wit(ErrorKind::Conflict, "x".into()), WitError::Conflict("x".into()));
    }

    #[test]
    fn display_names_path() {
        let e = Error::not_found("/w/a.txt");
        assert_eq!(e.to_string(), "/w/a.txt: no such file or directory");
        assert_eq!(e.with_path("/x").to_string(), "/x: no such file or directory");
    }
}
