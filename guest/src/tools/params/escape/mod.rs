//! Quoting a template value for the SQL its tool runs in (`escape` of a template
//! parameter), or refusing the value where no quoting is right.
//!
//! The dialect is the tool's (`tools::config::dialect_of`: `sqlite-sql`,
//! `postgres-sql`, `mysql-sql`), set on the parameter when the configuration loads;
//! an escape mode that is not a quoting of that dialect is refused there. Per
//! dialect and mode:
//!
//! | dialect | mode | written | refused |
//! |---|---|---|---|
//! | SQLite | `single-quotes` | `'…'`, `'` doubled | NUL |
//! | SQLite | `double-quotes`, `backticks` | `"…"`, `` `…` ``, the quote doubled | NUL |
//! | SQLite | `square-brackets` | `[…]` | NUL, `]` (nothing escapes it there) |
//! | PostgreSQL | `single-quotes` | `E'…'`, `\` → `\\`, `'` → `''` | NUL |
//! | PostgreSQL | `double-quotes` | `"…"`, `"` doubled | NUL, empty |
//! | MySQL/MariaDB | `single-quotes`, `double-quotes` | `'…'`, `"…"`, the quote doubled | NUL, `\` |
//! | MySQL/MariaDB | `backticks` | `` `…` ``, `` ` `` doubled | NUL, beyond U+FFFF |
//!
//! Why: SQLite ends a statement at a NUL, and PostgreSQL and MySQL identifiers
//! cannot hold one (nor can MySQL's hold a character beyond the Basic Multilingual
//! Plane, nor PostgreSQL's be empty: `""` does not parse). PostgreSQL reads a backslash in `'…'` as an escape when
//! `standard_conforming_strings` is off, but always in `E'…'`, so `E'…'` with every
//! backslash doubled means the value in both settings. MySQL and MariaDB read a
//! backslash as an escape unless `sql_mode` has `NO_BACKSLASH_ESCAPES` (and `"…"` is
//! an identifier under `ANSI_QUOTES`): no literal holding a backslash is right in
//! every mode, while a doubled quote is, so such a value is refused and a bound
//! parameter suggested. A connection's character set must not let a multibyte
//! character swallow a quote or backslash: the PostgreSQL handler's client encoding
//! is UTF8 and the MySQL handler's connection is utf8mb4, where every byte of a
//! multibyte character is ≥ 0x80.
//!
//! Without a dialect (prompt arguments; SQL tool types this host does not run),
//! every mode wraps the value and doubles the closing delimiter, as MCP Toolbox does.

use std::fmt;

use crate::tools::placeholders::Dialect;

/// How a string value is delimited for a template; see the [module docs](self) for
/// what each mode writes in each dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Escape {
    /// `'value'`: a string literal.
    SingleQuotes,
    /// `"value"`: an identifier (a string literal in MySQL without `ANSI_QUOTES`).
    DoubleQuotes,
    /// `` `value` ``: an identifier (SQLite, MySQL).
    Backticks,
    /// `[value]`: an identifier (SQLite, SQL Server).
    SquareBrackets,
}

/// Why a value cannot be quoted by an escape mode in a dialect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unquotable {
    /// The mode is not a quoting of the dialect (refused when a configuration loads;
    /// this guards a parameter built otherwise).
    NotAQuoting,
    /// The value holds a NUL character.
    Nul,
    /// A MySQL/MariaDB string literal would hold a backslash.
    Backslash,
    /// A PostgreSQL identifier would be empty.
    EmptyIdentifier,
    /// A MySQL/MariaDB identifier would hold a character beyond U+FFFF.
    Supplementary,
    /// SQLite's `[…]` would hold a `]`.
    ClosingBracket,
}

impl Escape {
    /// Every escape, in the order of the reference.
    pub const ALL: [Escape; 4] =
        [Escape::SingleQuotes, Escape::DoubleQuotes, Escape::Backticks, Escape::SquareBrackets];

    /// The name used in `tools.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            Escape::SingleQuotes => "single-quotes",
            Escape::DoubleQuotes => "double-quotes",
            Escape::Backticks => "backticks",
            Escape::SquareBrackets => "square-brackets",
        }
    }

    /// Parses a `tools.yaml` escape name.
    pub fn parse(name: &str) -> Option<Escape> {
        Escape::ALL.into_iter().find(|e| e.as_str() == name)
    }

    /// The modes that are quotings of `dialect` (all of them without one).
    ///
    /// ```
    /// use filestore_guest::tools::params::Escape;
    /// use filestore_guest::tools::placeholders::Dialect;
    /// assert_eq!(Escape::of_dialect(Some(Dialect::Postgres)), [Escape::SingleQuotes, Escape::DoubleQuotes]);
    /// ```
    pub fn of_dialect(dialect: Option<Dialect>) -> &'static [Escape] {
        match dialect {
            Some(Dialect::Postgres) => &[Escape::SingleQuotes, Escape::DoubleQuotes],
            // No double-quotes: a string in MySQL's default mode, an identifier under
            // ANSI_QUOTES, so a value naming a column (`owner = "owner"`) would match
            // every row there. Values take single-quotes, identifiers backticks.
            Some(Dialect::Mysql) => &[Escape::SingleQuotes, Escape::Backticks],
            Some(Dialect::Sqlite) | None => &Escape::ALL,
        }
    }

    /// Whether this mode is a quoting in `dialect`; if not, says so, listing the
    /// dialect's modes (the error a configuration gets when it loads).
    ///
    /// ```
    /// use filestore_guest::tools::params::Escape;
    /// use filestore_guest::tools::placeholders::Dialect;
    /// assert_eq!(Escape::Backticks.check_dialect(Some(Dialect::Postgres)).unwrap_err(),
    ///     "escape 'backticks' is not a quoting in PostgreSQL, the SQL of this tool (its escapes: single-quotes, double-quotes)");
    /// ```
    pub fn check_dialect(self, dialect: Option<Dialect>) -> Result<(), String> {
        if Escape::of_dialect(dialect).contains(&self) {
            return Ok(());
        }
        Err(format!(
            "escape '{self}' is not a quoting in {}, the SQL of this tool (its escapes: {})",
            dialect_name(dialect),
            Escape::of_dialect(dialect).iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", ")
        ))
    }

    /// Quotes `value` for `dialect` (see the [module docs](self)), or says why it
    /// cannot be.
    ///
    /// ```
    /// use filestore_guest::tools::params::{Escape, Unquotable};
    /// use filestore_guest::tools::placeholders::Dialect::{Mysql, Postgres, Sqlite};
    /// assert_eq!(Escape::Backticks.quote(Some(Mysql), "users` OR 1=1--"), Ok("`users`` OR 1=1--`".into()));
    /// assert_eq!(Escape::SingleQuotes.quote(Some(Mysql), r"\' OR 1=1 -- "), Err(Unquotable::Backslash));
    /// assert_eq!(Escape::SingleQuotes.quote(Some(Postgres), r"\' OR 1=1"), Ok(r"E'\\'' OR 1=1'".into()));
    /// assert_eq!(Escape::SquareBrackets.quote(Some(Sqlite), "col] OR 1=1--"), Err(Unquotable::ClosingBracket));
    /// assert_eq!(Escape::SquareBrackets.quote(None, "col] OR 1=1--"), Ok("[col]] OR 1=1--]".into()));
    /// ```
    pub fn quote(self, dialect: Option<Dialect>, value: &str) -> Result<String, Unquotable> {
        use Dialect::{Mysql, Postgres, Sqlite};
        if self.check_dialect(dialect).is_err() {
            return Err(Unquotable::NotAQuoting);
        }
        let Some(dialect) = dialect else { return Ok(self.doubled(value)) };
        if value.contains('\0') {
            return Err(Unquotable::Nul);
        }
        match (dialect, self) {
            (Mysql, Escape::SingleQuotes) if value.contains('\\') => Err(Unquotable::Backslash),
            (Postgres, Escape::DoubleQuotes) if value.is_empty() => {
                Err(Unquotable::EmptyIdentifier)
            }
            (Mysql, Escape::Backticks) if value.chars().any(|c| c > '\u{FFFF}') => {
                Err(Unquotable::Supplementary)
            }
            (Sqlite, Escape::SquareBrackets) if value.contains(']') => {
                Err(Unquotable::ClosingBracket)
            }
            (Sqlite, Escape::SquareBrackets) => Ok(format!("[{value}]")),
            (Postgres, Escape::SingleQuotes) => {
                let mut out = String::with_capacity(value.len() + 3);
                out.push_str("E'");
                for c in value.chars() {
                    match c {
                        '\\' => out.push_str("\\\\"),
                        '\'' => out.push_str("''"),
                        c => out.push(c),
                    }
                }
                out.push('\'');
                Ok(out)
            }
            _ => Ok(self.doubled(value)),
        }
    }

    /// The value wrapped in the delimiters, every closing delimiter inside doubled.
    fn doubled(self, value: &str) -> String {
        let (open, close) = match self {
            Escape::SingleQuotes => ('\'', '\''),
            Escape::DoubleQuotes => ('"', '"'),
            Escape::Backticks => ('`', '`'),
            Escape::SquareBrackets => ('[', ']'),
        };
        let mut out = String::with_capacity(value.len() + 2);
        out.push(open);
        for c in value.chars() {
            if c == close {
                out.push(close);
            }
            out.push(c);
        }
        out.push(close);
        out
    }
}

impl fmt::Display for Escape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Unquotable {
    /// Why `escape` cannot quote a value in `dialect`, and what to do instead: the
    /// rest of a sentence that starts with the value.
    pub fn reason(self, escape: Escape, dialect: Option<Dialect>) -> String {
        let name = dialect_name(dialect);
        let bound = match dialect {
            Some(Dialect::Postgres) => "$1",
            _ => "?",
        };
        let bind = format!(
            "pass it as a bound parameter instead (declared in 'parameters', written {bound} in the statement)"
        );
        match self {
            Unquotable::NotAQuoting => format!(
                "cannot be quoted: {}",
                escape.check_dialect(dialect).err().unwrap_or_default()
            ),
            Unquotable::Nul => match dialect {
                Some(Dialect::Sqlite) => format!(
                    "contains a NUL character, where SQLite ends a statement, so {escape} cannot quote it; {bind}"
                ),
                Some(Dialect::Postgres) => format!(
                    "contains a NUL character, which PostgreSQL text cannot hold, so {escape} cannot quote it"
                ),
                _ => format!(
                    "contains a NUL character, which {name} cannot take quoted by {escape}; {bind}"
                ),
            },
            Unquotable::Backslash => format!(
                "contains a backslash, which {name} reads as an escape in its default sql_mode and as itself with NO_BACKSLASH_ESCAPES, so no {escape} literal means the same in both; {bind}"
            ),
            Unquotable::EmptyIdentifier => {
                format!("is empty, and {name} has no empty identifier to quote with {escape}")
            }
            Unquotable::Supplementary => format!(
                "contains a character beyond U+FFFF, which {name} identifiers cannot hold, so {escape} cannot quote it"
            ),
            Unquotable::ClosingBracket => format!(
                "contains ']', which nothing escapes inside SQLite's {escape}; quote it with double-quotes or backticks, which double it"
            ),
        }
    }
}

/// The name of `dialect` in messages.
fn dialect_name(dialect: Option<Dialect>) -> &'static str {
    match dialect {
        Some(Dialect::Sqlite) => "SQLite",
        Some(Dialect::Postgres) => "PostgreSQL",
        Some(Dialect::Mysql) => "MySQL/MariaDB",
        None => "this tool",
    }
}

#[cfg(test)]
mod tests;
