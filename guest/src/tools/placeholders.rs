//! SQL bind placeholders: which declared parameter each placeholder of a statement
//! binds, checked when a configuration loads and again (authoritatively, from the
//! database's own parse) when a statement runs.
//!
//! Why this exists: SQLite numbers a `$2` by its first appearance, not by its digits,
//! so binding the declared parameters in order to SQLite's indexes made
//! `SET booked = $2 WHERE id = $1` write to the wrong row. The rules here are the ones
//! MCP Toolbox's drivers give (its users' statements are written for them):
//!
//! | dialect | placeholder | binds |
//! |---|---|---|
//! | all that use it | `$N` (digits) | the N-th declared parameter (as pgx does for Postgres) |
//! | SQLite, MySQL | `?` | positional: SQLite's index (one more than the largest so far) |
//! | SQLite | `?NNN` | the NNN-th declared parameter |
//! | SQLite | `:name`, `@name`, `$name` | the declared parameter of that name; else SQLite's index (first appearance) |
//!
//! A statement is refused when placeholders and parameters cannot match: a
//! placeholder beyond the declared count, or a declared parameter no placeholder
//! binds (a gap in `$1, $3`, or one `?` too few). Template actions (`{{...}}`) are
//! skipped: their values are spliced in by the component, not bound.
//!
//! The scanner skips what is not code: string literals (`'...'` with `''`), quoted
//! identifiers (`"..."`, `` `...` ``, `[...]` for SQLite), comments (`--`, `/* */`)
//! and, for Postgres, dollar-quoted strings (`$$...$$`, `$tag$...$tag$`). It follows
//! SQLite's tokenizer closely enough for load-time checks; at run time the SQLite
//! handler binds from SQLite's own parameter names ([`bind_sqlite`]), so a statement
//! the scanner misreads still binds correctly or fails, never binds the wrong value.

/// The SQL dialects whose placeholders are understood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite (`sqlite-sql`): `?`, `?NNN`, `:name`, `@name`, `$name`, `$N`.
    Sqlite,
    /// PostgreSQL (`postgres-sql`): `$N` only; `?` is an operator there.
    Postgres,
    /// MySQL (`mysql-sql`): `?` only.
    Mysql,
}

/// One placeholder as written in a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placeholder {
    /// Its text (`?`, `?3`, `$2`, `:id`).
    pub text: String,
    /// Byte offset in the statement.
    pub offset: usize,
}

/// The placeholders of `statement` in order of appearance.
pub fn scan(statement: &str, dialect: Dialect) -> Vec<Placeholder> {
    let b = statement.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
    let skip_to = |from: usize, end: &[u8]| -> usize {
        let mut j = from;
        while j < b.len() {
            if b[j..].starts_with(end) {
                return j + end.len();
            }
            j += 1;
        }
        b.len()
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b'{' if b[i..].starts_with(b"{{") => i = skip_to(i + 2, b"}}"),
            b'-' if b[i..].starts_with(b"--") => i = skip_to(i + 2, b"\n"),
            b'/' if b[i..].starts_with(b"/*") => i = skip_to(i + 2, b"*/"),
            b'\'' | b'"' | b'`' => {
                // A doubled quote inside is an escaped quote: skipping to the next
                // quote and going on reads it as two adjacent literals, same tokens.
                i = skip_to(i + 1, &[c]);
            }
            b'[' if dialect == Dialect::Sqlite => i = skip_to(i + 1, b"]"),
            b'?' if dialect != Dialect::Postgres => {
                let mut j = i + 1;
                if dialect == Dialect::Sqlite {
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                }
                out.push(Placeholder { text: statement[i..j].to_string(), offset: i });
                i = j;
            }
            // `$` inside a name (`a$1`) is part of the name in both dialects.
            b'$' if dialect != Dialect::Mysql && i > 0 && word(b[i - 1]) => i += 1,
            b'$' if dialect != Dialect::Mysql => {
                let mut j = i + 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let digits = j > i + 1;
                if digits && (j == b.len() || !word(b[j])) {
                    out.push(Placeholder { text: statement[i..j].to_string(), offset: i });
                    i = j;
                    continue;
                }
                let mut k = i + 1;
                while k < b.len() && word(b[k]) {
                    k += 1;
                }
                if dialect == Dialect::Postgres {
                    // `$tag$ ... $tag$` (or `$$`) quotes a string; an identifier
                    // character before `$` makes it part of a name instead.
                    if k < b.len()
                        && b[k] == b'$'
                        && !b[i + 1..k].first().is_some_and(u8::is_ascii_digit)
                    {
                        let tag = &b[i..=k];
                        i = skip_to(k + 1, tag);
                        continue;
                    }
                    i = k.max(i + 1);
                } else if dialect == Dialect::Sqlite && k > i + 1 {
                    out.push(Placeholder { text: statement[i..k].to_string(), offset: i });
                    i = k;
                } else {
                    i = k.max(i + 1);
                }
            }
            b':' | b'@' if dialect == Dialect::Sqlite => {
                let mut k = i + 1;
                while k < b.len() && word(b[k]) {
                    k += 1;
                }
                // `::` (a Postgres-style cast) or a lone `:`/`@` is no placeholder.
                if k > i + 1 && !(c == b':' && i > 0 && b[i - 1] == b':') {
                    out.push(Placeholder { text: statement[i..k].to_string(), offset: i });
                }
                i = k.max(i + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// Which declared parameter a placeholder binds, given SQLite's index for it
/// (1-based; `None` when the placeholder names an index that cannot exist).
fn bind_one(text: &str, sqlite_index: usize, declared: &[&str]) -> Option<usize> {
    if let Some(digits) = text.strip_prefix('$').filter(|d| d.bytes().all(|c| c.is_ascii_digit())) {
        return digits.parse::<usize>().ok().filter(|n| *n >= 1).map(|n| n - 1);
    }
    if let Some(digits) = text.strip_prefix('?').filter(|d| !d.is_empty()) {
        return digits.parse::<usize>().ok().filter(|n| *n >= 1).map(|n| n - 1);
    }
    if let Some(name) = text.strip_prefix([':', '@', '$'])
        && let Some(p) = declared.iter().position(|d| *d == name)
    {
        return Some(p);
    }
    sqlite_index.checked_sub(1)
}

/// Why a statement's placeholders and its declared parameters cannot match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// What is wrong, naming the placeholder or the parameter.
    pub message: String,
    /// The offending placeholder's byte offset in the statement, when one is to blame.
    pub offset: Option<usize>,
}

/// For each of SQLite's parameter indexes (1..=`names.len()`, where `names[i]` is
/// SQLite's name for index i+1, `None` for an anonymous `?`), the declared parameter
/// it binds. Fails when an index binds no declared parameter or a declared parameter
/// is bound by no index.
pub fn bind_sqlite(names: &[Option<String>], declared: &[&str]) -> Result<Vec<usize>, Mismatch> {
    let mut out = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let text = name.as_deref().unwrap_or("?");
        out.push(resolve(text, i + 1, declared, None)?);
    }
    unused(&out, declared)?;
    Ok(out)
}

fn resolve(
    text: &str,
    sqlite_index: usize,
    declared: &[&str],
    offset: Option<usize>,
) -> Result<usize, Mismatch> {
    match bind_one(text, sqlite_index, declared) {
        Some(p) if p < declared.len() => Ok(p),
        _ => Err(Mismatch {
            message: format!(
                "placeholder {text} binds parameter {} but the tool declares {} parameter(s){}",
                bind_one(text, sqlite_index, declared).map_or(0, |p| p + 1),
                declared.len(),
                if text.starts_with([':', '@'])
                    || (text.starts_with('$')
                        && text.len() > 1
                        && !text[1..].bytes().all(|c| c.is_ascii_digit()))
                {
                    format!(" (and none named '{}')", &text[1..])
                } else {
                    String::new()
                }
            ),
            offset,
        }),
    }
}

fn unused(bound: &[usize], declared: &[&str]) -> Result<(), Mismatch> {
    if let Some(p) = (0..declared.len()).find(|p| !bound.contains(p)) {
        return Err(Mismatch {
            message: format!(
                "parameter '{}' (number {} in declared order) is bound by no placeholder; \
                 the statement's placeholders and the declared parameters must match",
                declared[p],
                p + 1
            ),
            offset: None,
        });
    }
    Ok(())
}

/// Checks that `statement`'s placeholders and the `declared` (plain, bound)
/// parameters match under `dialect`'s rules, as a configuration loads.
pub fn check(statement: &str, dialect: Dialect, declared: &[&str]) -> Result<(), Mismatch> {
    let found = scan(statement, dialect);
    let mut bound = Vec::new();
    // SQLite's indexes: a named placeholder keeps the index of its first appearance;
    // `?NNN` takes NNN; `?` and a new name the largest so far plus one.
    let mut named: Vec<(String, usize)> = Vec::new();
    let mut largest = 0;
    for p in &found {
        let index = if p.text == "?" {
            largest += 1;
            largest
        } else if let Some(n) = p.text.strip_prefix('?').and_then(|d| d.parse::<usize>().ok()) {
            largest = largest.max(n);
            n
        } else if let Some((_, at)) = named.iter().find(|(n, _)| *n == p.text) {
            *at
        } else {
            largest += 1;
            named.push((p.text.clone(), largest));
            largest
        };
        bound.push(resolve(&p.text, index, declared, Some(p.offset))?);
    }
    unused(&bound, declared)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str, d: Dialect) -> Vec<String> {
        scan(s, d).into_iter().map(|p| p.text).collect()
    }

    #[test]
    fn scanning_skips_literals_comments_and_templates() {
        let s = "SELECT '?', \"$1\", [x?] -- ?\n/* :a */ FROM t WHERE a = ? AND b = :b \
                 AND c = {{.t}} AND d = $2 AND e::text = @e";
        assert_eq!(texts(s, Dialect::Sqlite), ["?", ":b", "$2", "@e"]);
        assert_eq!(texts(s, Dialect::Postgres), ["$2"]);
        assert_eq!(
            texts("SELECT '?', `?`, \"?\" FROM t WHERE a = ? AND b = $2", Dialect::Mysql),
            ["?"]
        );
        let pg = "SELECT $$ $1 $$, $tag$ $2 $tag$, a$3 FROM t WHERE x = $1 AND j ? 'k'";
        assert_eq!(texts(pg, Dialect::Postgres), ["$1"]);
        assert_eq!(texts("a = ?12 and b = $name", Dialect::Sqlite), ["?12", "$name"]);
    }

    #[test]
    fn dollar_n_binds_by_number_not_appearance() {
        let declared = ["hotel_id", "booked"];
        // SQLite numbers `$2` first: index 1 is "$2", index 2 is "$1".
        let names = [Some("$2".to_string()), Some("$1".to_string())];
        assert_eq!(bind_sqlite(&names, &declared).unwrap(), [1, 0]);
        check("UPDATE hotels SET booked = $2 WHERE id = $1", Dialect::Sqlite, &declared).unwrap();
        check("UPDATE hotels SET booked = $2 WHERE id = $1", Dialect::Postgres, &declared).unwrap();
    }

    #[test]
    fn named_placeholders_bind_by_name_else_by_appearance() {
        let declared = ["name", "id"];
        let names = [Some(":id".to_string()), Some(":name".to_string())];
        assert_eq!(bind_sqlite(&names, &declared).unwrap(), [1, 0]);
        let names = [Some(":x".to_string()), Some(":y".to_string())];
        assert_eq!(bind_sqlite(&names, &declared).unwrap(), [0, 1]);
        check("SELECT * FROM t WHERE id = :id AND name = @name", Dialect::Sqlite, &declared)
            .unwrap();
        // A reused name is one index.
        check("SELECT :a, :a, :b", Dialect::Sqlite, &["a", "b"]).unwrap();
        check("SELECT ?2, ?1", Dialect::Sqlite, &["a", "b"]).unwrap();
    }

    #[test]
    fn mismatches_are_refused_naming_what() {
        let e = check("SELECT $1, $3", Dialect::Postgres, &["a", "b", "c"]).unwrap_err();
        assert!(e.message.contains("parameter 'b' (number 2"), "{}", e.message);
        let e = check("SELECT $1, $3", Dialect::Postgres, &["a", "b"]).unwrap_err();
        assert!(e.message.contains("placeholder $3 binds parameter 3"), "{}", e.message);
        assert_eq!(e.offset, Some(11));
        let e = check("SELECT ?", Dialect::Mysql, &["a", "b"]).unwrap_err();
        assert!(e.message.contains("'b'"), "{}", e.message);
        let e = check("SELECT ?, ?", Dialect::Sqlite, &["a"]).unwrap_err();
        assert!(e.message.contains("placeholder ? binds parameter 2"), "{}", e.message);
        let e = check("SELECT :zz, :yy", Dialect::Sqlite, &["a"]).unwrap_err();
        assert!(e.message.contains("none named 'yy'"), "{}", e.message);
        let names = [None, None];
        assert!(bind_sqlite(&names, &["a"]).is_err());
        assert!(bind_sqlite(&[None], &["a", "b"]).is_err());
        check("SELECT 1", Dialect::Sqlite, &[]).unwrap();
    }
}
