//! MySQL values to JSON and JSON arguments to MySQL values.
//!
//! Results follow what Toolbox's Go driver (go-sql-driver/mysql with `parseTime=true`,
//! `loc=UTC`) gives: integers as numbers (unsigned 64-bit too), `FLOAT`/`DOUBLE` as
//! numbers (a `FLOAT` by its shortest single-precision text, `1.1` not
//! `1.100000023841858`), `DATE`/`DATETIME`/`TIMESTAMP` in RFC 3339 at UTC
//! (`2024-04-22T00:00:00Z`), a MySQL `JSON` column decoded, and every other type
//! (`DECIMAL`, `TIME`, text, `ENUM`, `SET`) as its text. Deliberately different:
//! binary strings (`BLOB`, `VARBINARY`, `BIT`: the binary character set) come back in
//! base64, as `bytea` and SQLite BLOBs do, where Toolbox gives the raw bytes as a
//! string (invalid UTF-8 replaced). The same column reads alike through the binary
//! protocol (prepared statements) and the text protocol (`mysql-execute-sql`).
//!
//! Arguments are bound by their JSON type, as the Go driver binds Go values: a
//! string as a string, an integer as a 64-bit integer, a float as a double, a boolean
//! as `1`/`0`, `null` as NULL. An array or a map cannot be bound to one placeholder
//! (the Go driver refuses them too): the error names the parameter.

use base64::Engine;
use mysql::consts::{ColumnFlags, ColumnType};
use serde_json::Value;

/// The character set number of binary strings.
const BINARY_CHARSET: u16 = 63;

/// `value` of column `col` as JSON; the error says why (the caller names the column).
pub fn decode(col: &mysql::Column, value: &mysql::Value) -> Result<Value, String> {
    use mysql::Value as V;
    Ok(match value {
        V::NULL => Value::Null,
        V::Int(i) => Value::from(*i),
        V::UInt(u) => Value::from(*u),
        V::Float(f) => float(format!("{f}").parse().unwrap_or(f64::from(*f))),
        V::Double(d) => float(*d),
        V::Date(y, mo, d, h, mi, s, us) => Value::String(rfc3339(*y, *mo, *d, *h, *mi, *s, *us)),
        V::Time(neg, days, h, mi, s, us) => {
            let hours = u64::from(*days) * 24 + u64::from(*h);
            let sign = if *neg { "-" } else { "" };
            let frac = fraction(*us, col.decimals());
            Value::String(format!("{sign}{hours:02}:{mi:02}:{s:02}{frac}"))
        }
        V::Bytes(b) => bytes(col, b)?,
    })
}

/// A finite double as a JSON number (MySQL has no NaN or infinity).
fn float(f: f64) -> Value {
    serde_json::Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null)
}

/// `.ffffff` cut to the column's `decimals` (none for 0; all six when unknown).
fn fraction(us: u32, decimals: u8) -> String {
    let digits = match decimals {
        0 => return String::new(),
        1..=6 => usize::from(decimals),
        _ if us == 0 => return String::new(),
        _ => 6,
    };
    format!(".{:06}", us)[..=digits].to_string()
}

/// RFC 3339 at UTC, fractional seconds without trailing zeros (Go's `time.Time`
/// JSON); the zero date `0000-00-00` is Go's zero time, as the Go driver reads it.
fn rfc3339(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> String {
    if y == 0 && mo == 0 && d == 0 {
        return "0001-01-01T00:00:00Z".to_string();
    }
    let mut frac = if us == 0 { String::new() } else { format!(".{us:06}") };
    while frac.ends_with('0') {
        frac.pop();
    }
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{frac}Z")
}

/// A value the server sent as bytes: all of the text protocol's, and the binary
/// protocol's strings, decimals and JSON.
fn bytes(col: &mysql::Column, b: &[u8]) -> Result<Value, String> {
    use ColumnType::*;
    let text = || std::str::from_utf8(b).map_err(|_| "is not valid UTF-8".to_string());
    let unsigned = col.flags().contains(ColumnFlags::UNSIGNED_FLAG);
    Ok(match col.column_type() {
        MYSQL_TYPE_TINY | MYSQL_TYPE_SHORT | MYSQL_TYPE_INT24 | MYSQL_TYPE_LONG
        | MYSQL_TYPE_LONGLONG | MYSQL_TYPE_YEAR => {
            let t = text()?;
            let n = if unsigned {
                t.parse::<u64>().map(Value::from).ok()
            } else {
                t.parse::<i64>().map(Value::from).ok()
            };
            n.ok_or_else(|| format!("holds '{t}', not an integer"))?
        }
        MYSQL_TYPE_FLOAT | MYSQL_TYPE_DOUBLE => {
            let t = text()?;
            float(t.parse::<f64>().map_err(|_| format!("holds '{t}', not a number"))?)
        }
        MYSQL_TYPE_DATE
        | MYSQL_TYPE_DATETIME
        | MYSQL_TYPE_TIMESTAMP
        | MYSQL_TYPE_NEWDATE
        | MYSQL_TYPE_DATETIME2
        | MYSQL_TYPE_TIMESTAMP2 => {
            let t = text()?;
            Value::String(datetime_text(t).ok_or_else(|| format!("holds '{t}', not a date"))?)
        }
        MYSQL_TYPE_JSON => {
            serde_json::from_slice(b).map_err(|e| format!("holds JSON that does not parse: {e}"))?
        }
        MYSQL_TYPE_BIT | MYSQL_TYPE_GEOMETRY => base64(b),
        // Strings in the binary character set are bytes; a DECIMAL or TIME is
        // labelled binary too, but is text.
        MYSQL_TYPE_TINY_BLOB
        | MYSQL_TYPE_MEDIUM_BLOB
        | MYSQL_TYPE_LONG_BLOB
        | MYSQL_TYPE_BLOB
        | MYSQL_TYPE_VAR_STRING
        | MYSQL_TYPE_STRING
        | MYSQL_TYPE_VARCHAR
            if col.character_set() == BINARY_CHARSET =>
        {
            base64(b)
        }
        _ => Value::String(String::from_utf8_lossy(b).into_owned()),
    })
}

fn base64(b: &[u8]) -> Value {
    Value::String(base64::engine::general_purpose::STANDARD.encode(b))
}

/// `YYYY-MM-DD[ HH:MM:SS[.f...]]` (the text protocol's dates) in RFC 3339.
fn datetime_text(t: &str) -> Option<String> {
    let (date, time) = t.split_once(' ').unwrap_or((t, "00:00:00"));
    let mut d = date.split('-').map(|p| p.parse::<u16>().ok());
    let (y, mo, dd) = (d.next()??, d.next()??, d.next()??);
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut h = hms.split(':').map(|p| p.parse::<u8>().ok());
    let (hh, mi, s) = (h.next()??, h.next()??, h.next()??);
    let us: u32 = if frac.is_empty() { 0 } else { format!("{frac:0<6}")[..6].parse().ok()? };
    Some(rfc3339(y, u8::try_from(mo).ok()?, u8::try_from(dd).ok()?, hh, mi, s, us))
}

/// The MySQL value `v` binds as; the error says why not (the caller names the
/// parameter).
pub fn encode(v: &Value) -> Result<mysql::Value, String> {
    use mysql::Value as V;
    Ok(match v {
        Value::Null => V::NULL,
        Value::Bool(b) => V::Int(i64::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => V::Int(i),
            (None, Some(u)) => V::UInt(u),
            _ => V::Double(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => V::Bytes(s.as_bytes().to_vec()),
        Value::Array(_) => return Err("an array cannot be bound to a MySQL placeholder".into()),
        Value::Object(_) => return Err("a map cannot be bound to a MySQL placeholder".into()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_go_gives_them() {
        assert_eq!(rfc3339(2024, 4, 22, 0, 0, 0, 0), "2024-04-22T00:00:00Z");
        assert_eq!(rfc3339(2024, 4, 22, 1, 2, 3, 450000), "2024-04-22T01:02:03.45Z");
        assert_eq!(rfc3339(0, 0, 0, 0, 0, 0, 0), "0001-01-01T00:00:00Z");
        assert_eq!(datetime_text("2024-04-22").as_deref(), Some("2024-04-22T00:00:00Z"));
        assert_eq!(
            datetime_text("2024-04-22 10:30:00.120").as_deref(),
            Some("2024-04-22T10:30:00.12Z")
        );
        assert_eq!(datetime_text("nope"), None);
        assert_eq!(fraction(120000, 3), ".120");
        assert_eq!(fraction(5, 0), "");
    }

    #[test]
    fn arguments_bind_by_json_type() {
        use serde_json::json;
        assert_eq!(encode(&json!(true)).unwrap(), mysql::Value::Int(1));
        assert_eq!(encode(&json!(u64::MAX)).unwrap(), mysql::Value::UInt(u64::MAX));
        assert_eq!(encode(&json!(1.5)).unwrap(), mysql::Value::Double(1.5));
        assert_eq!(encode(&json!("x")).unwrap(), mysql::Value::Bytes(b"x".to_vec()));
        assert!(encode(&json!([1])).unwrap_err().contains("array"));
    }
}
