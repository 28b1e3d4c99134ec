//! Every escape mode in every dialect against hostile values: each value is refused
//! for the reason the table gives, or quoted so that every way the dialect's servers
//! can read the span (MySQL with and without `NO_BACKSLASH_ESCAPES` and with
//! `ANSI_QUOTES`; PostgreSQL's `E'…'` whatever `standard_conforming_strings`) gives
//! back exactly the value and ends where the quoted text ends.

use serde_json::json;

use super::super::{ParamType, Parameter, VerifiedClaims, validate_args};
use super::*;
use Dialect::{Mysql, Postgres, Sqlite};

/// How a server reads a quoted span.
#[derive(Clone, Copy, Debug)]
enum Reading {
    /// `q…q`, `qq` inside is one `q`, a backslash is itself (standard SQL; MySQL with
    /// `NO_BACKSLASH_ESCAPES`, and `"…"` under `ANSI_QUOTES`; every identifier).
    Doubled(char),
    /// MySQL/MariaDB's default: as [`Reading::Doubled`], and `\c` is an escape.
    Backslash(char),
    /// PostgreSQL's `E'…'`: `''` and `\c` escapes, whatever the server's settings.
    PostgresE,
    /// SQLite's `[…]`: up to the first `]`, nothing escaped.
    Brackets,
    /// SQL Server's `[…]`: `]]` inside is one `]` (the generic quoting).
    DoubledBracket,
}

/// What `text` denotes when read as one span from its start, and the bytes read;
/// `None` when it is not one.
fn read(reading: Reading, text: &str) -> Option<(String, usize)> {
    let (text, skipped) = match reading {
        Reading::PostgresE => (text.strip_prefix('E')?, 1),
        _ => (text, 0),
    };
    let (open, close, backslash, doubling) = match reading {
        Reading::Doubled(q) => (q, q, false, true),
        Reading::Backslash(q) => (q, q, true, true),
        Reading::PostgresE => ('\'', '\'', true, true),
        Reading::Brackets => ('[', ']', false, false),
        Reading::DoubledBracket => ('[', ']', false, true),
    };
    let mut chars = text.char_indices().peekable();
    if chars.next()?.1 != open {
        return None;
    }
    let mut out = String::new();
    while let Some((i, c)) = chars.next() {
        if backslash && c == '\\' {
            let (_, e) = chars.next()?;
            match (reading, e) {
                (_, 'n') => out.push('\n'),
                (_, 't') => out.push('\t'),
                (_, 'r') => out.push('\r'),
                (_, 'b') => out.push('\u{8}'),
                (Reading::Backslash(_), '0') => out.push('\0'),
                (Reading::Backslash(_), 'Z') => out.push('\u{1a}'),
                (Reading::Backslash(_), '%' | '_') => {
                    out.push('\\');
                    out.push(e);
                }
                (_, e) => out.push(e),
            }
        } else if c == close {
            if doubling && chars.peek().is_some_and(|&(_, n)| n == close) {
                chars.next();
                out.push(close);
            } else {
                return Some((out, skipped + i + c.len_utf8()));
            }
        } else {
            out.push(c);
        }
    }
    None
}

/// Values an attacker would try: backslash forms, comment sequences, every quote
/// and bracket, multibyte text (`縗` is GBK's 0xbf5c), NUL, the empty string.
const HOSTILE: &[&str] = &[
    r"\'",
    r"\\'",
    "trailing\\",
    "\\",
    r"\\",
    "-- ",
    "x' -- ",
    "#",
    "/*",
    "*/",
    "'",
    "''",
    "\"",
    "`",
    "]",
    "]]",
    "[",
    "縗'",
    "縗\\",
    "é'",
    "\0",
    "a\0b",
    "",
    "' OR 1=1 -- ",
    r"\' OR 1=1 -- ",
    r#"\" OR 1=1 -- "#,
    "` OR 1=1 -- ",
    "] OR 1=1 -- ",
    "O'Brien",
    "🦀",
    "\n' OR 1=1\n",
    "$$",
    "E'x'",
];

/// One mode of one dialect: how its servers may read what it writes, and which
/// values it refuses (and why).
struct Mode {
    dialect: Option<Dialect>,
    escape: Escape,
    readings: &'static [Reading],
    refuses: fn(&str) -> Option<Unquotable>,
}

fn nul(v: &str) -> Option<Unquotable> {
    v.contains('\0').then_some(Unquotable::Nul)
}

fn never(_: &str) -> Option<Unquotable> {
    None
}

fn nul_or_closing_bracket(v: &str) -> Option<Unquotable> {
    nul(v).or(v.contains(']').then_some(Unquotable::ClosingBracket))
}

fn nul_or_empty(v: &str) -> Option<Unquotable> {
    nul(v).or(v.is_empty().then_some(Unquotable::EmptyIdentifier))
}

fn nul_or_backslash(v: &str) -> Option<Unquotable> {
    nul(v).or(v.contains('\\').then_some(Unquotable::Backslash))
}

fn nul_or_beyond_the_bmp(v: &str) -> Option<Unquotable> {
    nul(v).or(v.chars().any(|c| c > '\u{FFFF}').then_some(Unquotable::Supplementary))
}

const MODES: &[Mode] = &[
    Mode {
        dialect: Some(Sqlite),
        escape: Escape::SingleQuotes,
        readings: &[Reading::Doubled('\'')],
        refuses: nul,
    },
    Mode {
        dialect: Some(Sqlite),
        escape: Escape::DoubleQuotes,
        readings: &[Reading::Doubled('"')],
        refuses: nul,
    },
    Mode {
        dialect: Some(Sqlite),
        escape: Escape::Backticks,
        readings: &[Reading::Doubled('`')],
        refuses: nul,
    },
    Mode {
        dialect: Some(Sqlite),
        escape: Escape::SquareBrackets,
        readings: &[Reading::Brackets],
        refuses: nul_or_closing_bracket,
    },
    Mode {
        dialect: Some(Postgres),
        escape: Escape::SingleQuotes,
        readings: &[Reading::PostgresE],
        refuses: nul,
    },
    Mode {
        dialect: Some(Postgres),
        escape: Escape::DoubleQuotes,
        readings: &[Reading::Doubled('"')],
        refuses: nul_or_empty,
    },
    Mode {
        dialect: Some(Mysql),
        escape: Escape::SingleQuotes,
        readings: &[Reading::Doubled('\''), Reading::Backslash('\'')],
        refuses: nul_or_backslash,
    },
    Mode {
        dialect: Some(Mysql),
        escape: Escape::Backticks,
        readings: &[Reading::Doubled('`')],
        refuses: nul_or_beyond_the_bmp,
    },
    Mode {
        dialect: None,
        escape: Escape::SingleQuotes,
        readings: &[Reading::Doubled('\'')],
        refuses: never,
    },
    Mode {
        dialect: None,
        escape: Escape::DoubleQuotes,
        readings: &[Reading::Doubled('"')],
        refuses: never,
    },
    Mode {
        dialect: None,
        escape: Escape::Backticks,
        readings: &[Reading::Doubled('`')],
        refuses: never,
    },
    Mode {
        dialect: None,
        escape: Escape::SquareBrackets,
        readings: &[Reading::DoubledBracket],
        refuses: never,
    },
];

#[test]
fn every_mode_of_every_dialect_quotes_exactly_or_refuses() {
    let mut wrong = Vec::new();
    for m in MODES {
        for &value in HOSTILE {
            let what = format!("{:?} {} {value:?}", m.dialect, m.escape);
            match ((m.refuses)(value), m.escape.quote(m.dialect, value)) {
                (Some(want), Err(got)) if want == got => {}
                (Some(want), got) => wrong.push(format!("{what}: want {want:?}, got {got:?}")),
                (None, Err(got)) => wrong.push(format!("{what}: refused ({got:?})")),
                (None, Ok(quoted)) => {
                    for &r in m.readings {
                        let got = read(r, &quoted);
                        if got != Some((value.to_string(), quoted.len())) {
                            wrong.push(format!("{what}: {quoted:?} read as {r:?} is {got:?}"));
                        }
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn modes_that_are_not_quotings_of_a_dialect_are_refused() {
    for (dialect, escape) in [
        (Postgres, Escape::Backticks),
        (Postgres, Escape::SquareBrackets),
        (Mysql, Escape::SquareBrackets),
        (Mysql, Escape::DoubleQuotes),
    ] {
        assert_eq!(escape.quote(Some(dialect), "x"), Err(Unquotable::NotAQuoting));
        assert!(escape.check_dialect(Some(dialect)).is_err());
    }
    assert_eq!(
        Escape::SquareBrackets.check_dialect(Some(Mysql)).unwrap_err(),
        "escape 'square-brackets' is not a quoting in MySQL/MariaDB, the SQL of this tool (its escapes: single-quotes, backticks)"
    );
    for m in MODES {
        assert_eq!(m.escape.check_dialect(m.dialect), Ok(()), "{:?} {}", m.dialect, m.escape);
    }
}

macro_rules! quoted {
    ($($case:ident: $dialect:expr, $escape:ident, $value:expr => $want:expr;)*) => {$(
        #[test]
        fn $case() {
            assert_eq!(Escape::$escape.quote($dialect, $value), $want.map(str::to_string));
        }
    )*};
}

quoted! {
    sqlite_single_doubles_the_quote: Some(Sqlite), SingleQuotes, r"O'Brien \' -- " => Ok(r"'O''Brien \'' -- '");
    sqlite_double_doubles_the_quote: Some(Sqlite), DoubleQuotes, "a\"b" => Ok("\"a\"\"b\"");
    sqlite_backticks_double_the_backtick: Some(Sqlite), Backticks, "a`b" => Ok("`a``b`");
    sqlite_brackets_wrap: Some(Sqlite), SquareBrackets, "a [b` \"c" => Ok("[a [b` \"c]");
    sqlite_brackets_refuse_a_closing_bracket: Some(Sqlite), SquareBrackets, "a]b" => Err::<&str, _>(Unquotable::ClosingBracket);
    sqlite_refuses_nul: Some(Sqlite), SingleQuotes, "a\0b" => Err::<&str, _>(Unquotable::Nul);
    sqlite_keeps_the_empty_string: Some(Sqlite), DoubleQuotes, "" => Ok("\"\"");
    postgres_single_is_an_escape_string: Some(Postgres), SingleQuotes, r"\' OR 1=1 -- " => Ok(r"E'\\'' OR 1=1 -- '");
    postgres_single_doubles_a_trailing_backslash: Some(Postgres), SingleQuotes, "trailing\\" => Ok(r"E'trailing\\'");
    postgres_single_keeps_multibyte: Some(Postgres), SingleQuotes, "縗'é" => Ok("E'縗''é'");
    postgres_single_keeps_the_empty_string: Some(Postgres), SingleQuotes, "" => Ok("E''");
    postgres_double_doubles_the_quote: Some(Postgres), DoubleQuotes, r#"a\"b"# => Ok(r#""a\""b""#);
    postgres_double_refuses_empty: Some(Postgres), DoubleQuotes, "" => Err::<&str, _>(Unquotable::EmptyIdentifier);
    postgres_refuses_nul: Some(Postgres), SingleQuotes, "\0" => Err::<&str, _>(Unquotable::Nul);
    mysql_single_doubles_the_quote: Some(Mysql), SingleQuotes, "O'Brien -- #" => Ok("'O''Brien -- #'");
    mysql_single_refuses_a_backslash: Some(Mysql), SingleQuotes, r"\' OR 1=1 -- " => Err::<&str, _>(Unquotable::Backslash);
    mysql_has_no_double_quotes: Some(Mysql), DoubleQuotes, "owner" => Err::<&str, _>(Unquotable::NotAQuoting);
    mysql_backticks_keep_a_backslash: Some(Mysql), Backticks, r"a\`b" => Ok(r"`a\``b`");
    mysql_backticks_refuse_beyond_the_bmp: Some(Mysql), Backticks, "a🦀" => Err::<&str, _>(Unquotable::Supplementary);
    mysql_single_keeps_beyond_the_bmp: Some(Mysql), SingleQuotes, "a🦀" => Ok("'a🦀'");
    mysql_refuses_nul_in_an_identifier: Some(Mysql), Backticks, "a\0" => Err::<&str, _>(Unquotable::Nul);
    generic_brackets_double_the_bracket: None, SquareBrackets, "col] OR 1=1--" => Ok("[col]] OR 1=1--]");
    generic_keeps_nul_and_backslash: None, SingleQuotes, "a\0\\'" => Ok("'a\0\\'''");
}

fn one(param: Parameter, value: serde_json::Value) -> Result<serde_json::Value, String> {
    let name = param.name.clone();
    validate_args(&[param], &json!({ name.clone(): value }), &VerifiedClaims::new())
        .map(|a| a.get(&name).cloned().unwrap_or_default())
        .map_err(|e| format!("{:?}: {}", e.kind(), e.message()))
}

#[test]
fn a_refused_value_is_an_invalid_argument_naming_the_parameter_and_why() {
    let p = |e| Parameter::new("name", ParamType::String).escape(e).dialect(Mysql);
    let e = one(p(Escape::SingleQuotes), json!(r"\' OR 1=1 -- ")).unwrap_err();
    assert_eq!(
        e,
        r#"InvalidArgument: parameter 'name': value "\\' OR 1=1 -- " contains a backslash, which MySQL/MariaDB reads as an escape in its default sql_mode and as itself with NO_BACKSLASH_ESCAPES, so no single-quotes literal means the same in both; pass it as a bound parameter instead (declared in 'parameters', written ? in the statement)"#
    );
    let e = one(p(Escape::Backticks), json!("a\u{0}")).unwrap_err();
    assert!(e.contains(r#"parameter 'name': value "a\u0000" contains a NUL character"#), "{e}");
    assert!(e.contains("backticks"), "{e}");

    let pg = Parameter::new("id", ParamType::String).escape(Escape::DoubleQuotes).dialect(Postgres);
    let e = one(pg, json!("")).unwrap_err();
    assert!(e.contains("parameter 'id': value \"\" is empty, and PostgreSQL has no empty identifier to quote with double-quotes"), "{e}");
    let pg = Parameter::new("s", ParamType::String).escape(Escape::SingleQuotes).dialect(Postgres);
    assert_eq!(one(pg, json!(r"it's \n")), Ok(json!(r"E'it''s \\n'")));

    let lite =
        Parameter::new("t", ParamType::String).escape(Escape::SquareBrackets).dialect(Sqlite);
    let e = one(lite, json!("a]")).unwrap_err();
    assert!(e.contains("contains ']', which nothing escapes inside SQLite's square-brackets; quote it with double-quotes or backticks"), "{e}");
}

#[test]
fn array_items_are_quoted_in_the_dialect_and_a_refusal_names_the_item() {
    let on_array = Parameter::new("cols", ParamType::Array)
        .items(Parameter::new("col", ParamType::String))
        .escape(Escape::SingleQuotes)
        .dialect(Postgres);
    assert_eq!(one(on_array.clone(), json!(["a'", r"b\"])), Ok(json!(["E'a'''", r"E'b\\'"])));
    let e = one(on_array, json!(["ok", "x\u{0}"])).unwrap_err();
    assert!(
        e.contains("parameter 'cols': item 1: value \"x\\u0000\" contains a NUL character"),
        "{e}"
    );

    let on_items = Parameter::new("cols", ParamType::Array).items(
        Parameter::new("col", ParamType::String).escape(Escape::SingleQuotes).dialect(Mysql),
    );
    let e = one(on_items, json!(["ok", r"\'"])).unwrap_err();
    assert!(e.contains("parameter 'cols': item 1: value \"\\\\'\" contains a backslash"), "{e}");
}
