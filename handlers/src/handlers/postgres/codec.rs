//! JSON values to and from PostgreSQL's binary wire format, for every parameter and
//! column type, driven by the type the server reports.
//!
//! Why by hand rather than through `postgres-types`' Rust types: a tool's parameters
//! and result columns are only known at run time, as JSON on one side and whatever
//! type the server infers or returns on the other (`name`, `regclass`, `oid[]`,
//! `numeric`, `interval`, domains, enums, pgvector ...). The typed `ToSql`/`FromSql`
//! impls need one Rust type per column chosen at compile time and reject the rest; a
//! catalog query (Toolbox's `postgres-list-*` tools) returns a dozen such types. So
//! [`Param`] accepts every type and encodes the JSON value for the one the server
//! asks for, and [`Raw`] takes any column's bytes for [`decode`] to turn into JSON.
//! Each format follows the type's `*send`/`*recv` functions in PostgreSQL's source.
//!
//! Result shapes follow Toolbox (pgx) where it gives JSON a reader can use: integers
//! and floats as numbers, `numeric` as a number (as a string when a double would not
//! hold it exactly: pgx writes the digits, which JSON readers then round), json/jsonb
//! decoded, timestamps and dates as RFC 3339 (`2024-01-02T00:00:00Z` for a date, as
//! pgx's `time.Time`), bytea as base64. Deliberately different: `uuid` as its text
//! (pgx gives an array of 16 bytes), `interval` as ISO 8601 (pgx gives a struct), inet
//! as its text. A type with no decoding here yields an error naming the column and
//! the cast that works (`col::text`), never garbage.
//!
//! It stays above 800 lines because it is one table of PostgreSQL types, each with its
//! encoder and decoder side by side, as the server's `*send`/`*recv` functions are.

use std::error::Error;
use std::fmt::Write as _;

use base64::Engine as _;
use chrono::{DateTime, Duration, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use postgres::types::{FromSql, IsNull, Kind, ToSql, Type, to_sql_checked};
use serde_json::{Map, Number, Value};

type BoxError = Box<dyn Error + Sync + Send>;

/// Microseconds in a day.
const DAY_US: i64 = 86_400_000_000;

/// PostgreSQL's epoch for dates and timestamps.
fn pg_epoch() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2000, 1, 1).expect("valid date").and_hms_opt(0, 0, 0).expect("valid")
}

/// A column value as the server sent it (binary format), or SQL NULL.
#[derive(Debug)]
pub struct Raw<'a>(pub Option<&'a [u8]>);

impl<'a> FromSql<'a> for Raw<'a> {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Raw<'a>, BoxError> {
        Ok(Raw(Some(raw)))
    }
    fn from_sql_null(_: &Type) -> Result<Raw<'a>, BoxError> {
        Ok(Raw(None))
    }
    fn accepts(_: &Type) -> bool {
        true
    }
}

/// The JSON value of a column of type `ty`, or why it has none: a `backend` error
/// whose message names the type (the caller adds the column).
pub fn decode(ty: &Type, raw: Option<&[u8]>) -> Result<Value, filestore_runtime::tools::ToolError> {
    decode_column(ty, raw).map_err(filestore_runtime::tools::ToolError::backend)
}

/// [`decode`]'s reason as text (a nested value's is wrapped in its array's).
fn decode_column(ty: &Type, raw: Option<&[u8]>) -> Result<Value, String> {
    let Some(raw) = raw else { return Ok(Value::Null) };
    decode_bytes(ty, raw).map_err(|e| match e {
        Undecodable::Type => format!(
            "has type {}, which filestore cannot turn into JSON; cast it in the statement (for example `::text`)",
            ty.name()
        ),
        Undecodable::Bytes(why) => format!("has a {} value filestore could not read: {why}", ty.name()),
    })
}

enum Undecodable {
    /// No decoding for this type.
    Type,
    /// The bytes are not what the type's format says.
    Bytes(String),
}

fn short(raw: &[u8], n: usize) -> Result<(), Undecodable> {
    if raw.len() == n {
        Ok(())
    } else {
        Err(Undecodable::Bytes(format!("{} bytes where {n} were expected", raw.len())))
    }
}

fn be_i16(b: &[u8]) -> i16 {
    i16::from_be_bytes([b[0], b[1]])
}
fn be_i32(b: &[u8]) -> i32 {
    i32::from_be_bytes([b[0], b[1], b[2], b[3]])
}
fn be_i64(b: &[u8]) -> i64 {
    i64::from_be_bytes(b[..8].try_into().expect("8 bytes"))
}

fn text(raw: &[u8]) -> Result<Value, Undecodable> {
    std::str::from_utf8(raw)
        .map(|s| Value::String(s.to_string()))
        .map_err(|_| Undecodable::Bytes("text that is not UTF-8".into()))
}

fn float(f: f64) -> Value {
    // JSON has no NaN or infinity: those come back as the strings PostgreSQL prints.
    Number::from_f64(f).map(Value::Number).unwrap_or_else(|| {
        Value::String(
            if f.is_nan() {
                "NaN"
            } else if f > 0.0 {
                "Infinity"
            } else {
                "-Infinity"
            }
            .into(),
        )
    })
}

fn decode_bytes(ty: &Type, raw: &[u8]) -> Result<Value, Undecodable> {
    match ty.kind() {
        Kind::Enum(_) => return text(raw),
        Kind::Domain(base) => return decode_bytes(base, raw),
        Kind::Array(member) => return decode_array(member, raw),
        _ => {}
    }
    match *ty {
        Type::BOOL => {
            short(raw, 1)?;
            Ok(Value::Bool(raw[0] != 0))
        }
        Type::CHAR => {
            short(raw, 1)?;
            Ok(Value::String(char::from(raw[0]).to_string()))
        }
        Type::INT2 => {
            short(raw, 2)?;
            Ok(be_i16(raw).into())
        }
        Type::INT4 => {
            short(raw, 4)?;
            Ok(be_i32(raw).into())
        }
        Type::INT8 => {
            short(raw, 8)?;
            Ok(be_i64(raw).into())
        }
        Type::OID
        | Type::XID
        | Type::CID
        | Type::REGPROC
        | Type::REGPROCEDURE
        | Type::REGOPER
        | Type::REGOPERATOR
        | Type::REGCLASS
        | Type::REGTYPE
        | Type::REGCONFIG
        | Type::REGDICTIONARY
        | Type::REGNAMESPACE
        | Type::REGROLE
        | Type::REGCOLLATION => {
            short(raw, 4)?;
            Ok((be_i32(raw) as u32).into())
        }
        Type::XID8 => {
            short(raw, 8)?;
            Ok((be_i64(raw) as u64).into())
        }
        Type::FLOAT4 => {
            short(raw, 4)?;
            // The f32's shortest decimal form (`-1e30`, as Toolbox gives it), not the
            // widened double's (`-1.0000000150474662e30`).
            let f = f32::from_be_bytes(raw.try_into().expect("4 bytes"));
            Ok(float(f.to_string().parse().unwrap_or(f64::from(f))))
        }
        Type::FLOAT8 => {
            short(raw, 8)?;
            Ok(float(f64::from_be_bytes(raw.try_into().expect("8 bytes"))))
        }
        Type::NUMERIC => numeric(raw),
        Type::TEXT
        | Type::VARCHAR
        | Type::BPCHAR
        | Type::NAME
        | Type::UNKNOWN
        | Type::XML
        | Type::PG_NODE_TREE
        | Type::REFCURSOR => text(raw),
        Type::JSON => json(raw),
        Type::JSONB => jsonb(raw),
        Type::BYTEA => Ok(Value::String(base64::engine::general_purpose::STANDARD.encode(raw))),
        Type::UUID => uuid(raw),
        Type::DATE => date(raw),
        Type::TIMESTAMP | Type::TIMESTAMPTZ => timestamp(raw),
        Type::TIME => {
            short(raw, 8)?;
            Ok(Value::String(time_of_day(be_i64(raw))))
        }
        Type::TIMETZ => time_with_zone(raw),
        Type::INTERVAL => {
            short(raw, 16)?;
            Ok(Value::String(interval(be_i64(raw), be_i32(&raw[8..]), be_i32(&raw[12..]))))
        }
        Type::INET | Type::CIDR => inet(raw),
        Type::PG_LSN => lsn(raw),
        Type::VOID => Ok(Value::Null),
        Type::BIT | Type::VARBIT => bit_string(raw),
        // int2vector / oidvector are sent in the array format.
        Type::INT2_VECTOR => decode_array(&Type::INT2, raw),
        Type::OID_VECTOR => decode_array(&Type::OID, raw),
        _ if ty.name() == "vector" && matches!(ty.kind(), Kind::Simple) => vector(raw),
        // Extension types whose binary form is their text (citext, ...).
        _ if matches!(ty.kind(), Kind::Simple) && ["citext"].contains(&ty.name()) => text(raw),
        _ => Err(Undecodable::Type),
    }
}

/// A `jsonb` value: a format version byte (1), then JSON text.
fn jsonb(raw: &[u8]) -> Result<Value, Undecodable> {
    match raw.split_first() {
        Some((1, rest)) => json(rest),
        _ => Err(Undecodable::Bytes("a jsonb value of an unknown format version".into())),
    }
}

/// A `uuid`: 16 bytes, as the hyphenated lowercase text.
fn uuid(raw: &[u8]) -> Result<Value, Undecodable> {
    short(raw, 16)?;
    let h: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    Ok(Value::String(format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )))
}

/// A `date`: days since 2000-01-01 (or ±infinity).
fn date(raw: &[u8]) -> Result<Value, Undecodable> {
    short(raw, 4)?;
    Ok(Value::String(match be_i32(raw) {
        i32::MAX => "infinity".into(),
        i32::MIN => "-infinity".into(),
        days => {
            let d = pg_epoch() + Duration::days(i64::from(days));
            // As pgx's time.Time: midnight UTC in RFC 3339.
            format!("{}T00:00:00Z", d.date().format("%Y-%m-%d"))
        }
    }))
}

/// A `timestamp` or `timestamptz`: microseconds since 2000-01-01 UTC (or ±infinity),
/// as RFC 3339.
fn timestamp(raw: &[u8]) -> Result<Value, Undecodable> {
    short(raw, 8)?;
    Ok(Value::String(match be_i64(raw) {
        i64::MAX => "infinity".into(),
        i64::MIN => "-infinity".into(),
        us => {
            let t = pg_epoch()
                .checked_add_signed(Duration::microseconds(us))
                .ok_or_else(|| Undecodable::Bytes("a timestamp out of range".into()))?;
            DateTime::<Utc>::from_naive_utc_and_offset(t, Utc)
                .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
        }
    }))
}

/// A `timetz`: microseconds since midnight, then the zone.
fn time_with_zone(raw: &[u8]) -> Result<Value, Undecodable> {
    short(raw, 12)?;
    // The zone is stored as seconds west of UTC.
    let west = be_i32(&raw[8..]);
    let east = -west;
    let sign = if east < 0 { '-' } else { '+' };
    let (h, m, sec) = (east.abs() / 3600, east.abs() / 60 % 60, east.abs() % 60);
    // As PostgreSQL prints it (and Toolbox passes on): `+02`, `+05:30`, `-03:30:15`.
    let zone = match (m, sec) {
        (0, 0) => format!("{sign}{h:02}"),
        (_, 0) => format!("{sign}{h:02}:{m:02}"),
        _ => format!("{sign}{h:02}:{m:02}:{sec:02}"),
    };
    Ok(Value::String(format!("{}{zone}", time_of_day(be_i64(raw)))))
}

/// A `pg_lsn`, as PostgreSQL prints it (`16/B374D848`).
fn lsn(raw: &[u8]) -> Result<Value, Undecodable> {
    short(raw, 8)?;
    let lsn = be_i64(raw) as u64;
    Ok(Value::String(format!("{:X}/{:X}", lsn >> 32, lsn & 0xffff_ffff)))
}

/// A `bit` or `varbit`: the bit count (i32), then the bits, most significant first;
/// as text ("101").
fn bit_string(raw: &[u8]) -> Result<Value, Undecodable> {
    if raw.len() < 4 {
        return Err(Undecodable::Bytes("a truncated bit string".into()));
    }
    let n = usize::try_from(be_i32(raw))
        .map_err(|_| Undecodable::Bytes("a negative bit count".into()))?;
    short(&raw[4..], n.div_ceil(8))?;
    Ok(Value::String(
        (0..n).map(|i| if raw[4 + i / 8] & (0x80 >> (i % 8)) != 0 { '1' } else { '0' }).collect(),
    ))
}

fn json(raw: &[u8]) -> Result<Value, Undecodable> {
    serde_json::from_slice(raw)
        .map_err(|e| Undecodable::Bytes(format!("JSON the server sent: {e}")))
}

/// `HH:MM:SS[.ffffff]` of microseconds since midnight.
fn time_of_day(us: i64) -> String {
    let secs = us.div_euclid(1_000_000);
    let frac = us.rem_euclid(1_000_000);
    let mut s = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    if frac != 0 {
        let f = format!("{frac:06}");
        s.push('.');
        s.push_str(f.trim_end_matches('0'));
    }
    s
}

/// ISO 8601 duration (`P1Y2M3DT4H5M6.5S`) of an interval's three fields.
fn interval(us: i64, days: i32, months: i32) -> String {
    let mut s = String::from("P");
    let (y, m) = (months / 12, months % 12);
    if y != 0 {
        let _ = write!(s, "{y}Y");
    }
    if m != 0 {
        let _ = write!(s, "{m}M");
    }
    if days != 0 {
        let _ = write!(s, "{days}D");
    }
    if us != 0 {
        s.push('T');
        let neg = us < 0;
        let a = us.unsigned_abs();
        let (h, mi, sec, frac) =
            (a / 3_600_000_000, a / 60_000_000 % 60, a / 1_000_000 % 60, a % 1_000_000);
        let sign = if neg { "-" } else { "" };
        if h != 0 {
            let _ = write!(s, "{sign}{h}H");
        }
        if mi != 0 {
            let _ = write!(s, "{sign}{mi}M");
        }
        if sec != 0 || frac != 0 {
            let _ = write!(s, "{sign}{sec}");
            if frac != 0 {
                let f = format!("{frac:06}");
                let _ = write!(s, ".{}", f.trim_end_matches('0'));
            }
            s.push('S');
        }
    }
    if s == "P" {
        s.push_str("T0S");
    }
    s
}

fn inet(raw: &[u8]) -> Result<Value, Undecodable> {
    if raw.len() < 4 {
        return Err(Undecodable::Bytes("a truncated address".into()));
    }
    let (family, bits, is_cidr, n) = (raw[0], raw[1], raw[2], raw[3] as usize);
    let addr = &raw[4..];
    if addr.len() != n {
        return Err(Undecodable::Bytes("an address of the wrong length".into()));
    }
    let (text, full) = match (family, n) {
        (2, 4) => (std::net::Ipv4Addr::new(addr[0], addr[1], addr[2], addr[3]).to_string(), 32),
        (3, 16) => {
            let a: [u8; 16] = addr.try_into().expect("16 bytes");
            (std::net::Ipv6Addr::from(a).to_string(), 128)
        }
        _ => return Err(Undecodable::Bytes("an unknown address family".into())),
    };
    // As PostgreSQL prints: a host address of an inet without its full-length mask.
    Ok(Value::String(if is_cidr == 0 && bits == full { text } else { format!("{text}/{bits}") }))
}

fn vector(raw: &[u8]) -> Result<Value, Undecodable> {
    // pgvector: dimensions (u16), unused (u16), then that many float4.
    if raw.len() < 4 {
        return Err(Undecodable::Bytes("a truncated vector".into()));
    }
    let dim = u16::from_be_bytes([raw[0], raw[1]]) as usize;
    short(&raw[4..], dim * 4)?;
    Ok(Value::Array(
        raw[4..]
            .chunks_exact(4)
            .map(|c| float(f64::from(f32::from_be_bytes(c.try_into().expect("4 bytes")))))
            .collect(),
    ))
}

/// Arrays: ndim, has-null flag, member oid, (length, lower bound) per dimension, then
/// each member as length + bytes (-1 for NULL). Several dimensions nest.
fn decode_array(member: &Type, raw: &[u8]) -> Result<Value, Undecodable> {
    let bad = || Undecodable::Bytes("a truncated array".into());
    if raw.len() < 12 {
        return Err(bad());
    }
    let ndim = be_i32(raw);
    if ndim == 0 {
        return Ok(Value::Array(Vec::new()));
    }
    if !(1..=6).contains(&ndim) {
        return Err(Undecodable::Bytes(format!("an array of {ndim} dimensions")));
    }
    let ndim = ndim as usize;
    let mut at = 12;
    let mut dims = Vec::with_capacity(ndim);
    for _ in 0..ndim {
        let d = raw.get(at..at + 8).ok_or_else(bad)?;
        dims.push(usize::try_from(be_i32(d)).map_err(|_| bad())?);
        at += 8;
    }
    let mut members = Vec::new();
    let total: usize = dims.iter().product();
    for _ in 0..total {
        let len = be_i32(raw.get(at..at + 4).ok_or_else(bad)?);
        at += 4;
        if len < 0 {
            members.push(Value::Null);
            continue;
        }
        let bytes = raw.get(at..at + len as usize).ok_or_else(bad)?;
        at += len as usize;
        members.push(decode_bytes(member, bytes)?);
    }
    // Fold the flat members into nested arrays, innermost dimension first.
    for &d in dims[1..].iter().rev() {
        let mut grouped = Vec::with_capacity(members.len() / d.max(1));
        let mut it = members.into_iter();
        loop {
            let chunk: Vec<Value> = it.by_ref().take(d).collect();
            if chunk.is_empty() {
                break;
            }
            grouped.push(Value::Array(chunk));
        }
        members = grouped;
    }
    Ok(Value::Array(members))
}

/// `numeric`: ndigits, weight, sign, dscale, then base-10000 digits. The decimal text,
/// then a JSON number when a double holds that text exactly, else the string.
fn numeric(raw: &[u8]) -> Result<Value, Undecodable> {
    let text = numeric_text(raw)?;
    if let Ok(f) = text.parse::<f64>()
        && f.is_finite()
        && (numeric_eq(&format_f64(f), &text))
    {
        if let Ok(i) = text.parse::<i64>() {
            return Ok(i.into());
        }
        return Ok(float(f));
    }
    Ok(Value::String(text))
}

fn format_f64(f: f64) -> String {
    format!("{f}")
}

/// Whether two decimal texts denote the same value (ignoring trailing zeros).
fn numeric_eq(a: &str, b: &str) -> bool {
    fn norm(s: &str) -> String {
        let s = s.strip_prefix('+').unwrap_or(s);
        let (neg, s) = match s.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, s),
        };
        let (int, frac) = s.split_once('.').unwrap_or((s, ""));
        let int = int.trim_start_matches('0');
        let frac = frac.trim_end_matches('0');
        let body = format!("{}.{}", if int.is_empty() { "0" } else { int }, frac);
        if neg && body != "0." { format!("-{body}") } else { body }
    }
    norm(a) == norm(b)
}

fn numeric_text(raw: &[u8]) -> Result<String, Undecodable> {
    if raw.len() < 8 {
        return Err(Undecodable::Bytes("a truncated numeric".into()));
    }
    let ndigits = be_i16(raw) as usize;
    let weight = i32::from(be_i16(&raw[2..]));
    let sign = u16::from_be_bytes([raw[4], raw[5]]);
    let dscale = u16::from_be_bytes([raw[6], raw[7]]) as usize;
    match sign {
        0xC000 => return Ok("NaN".into()),
        0xD000 => return Ok("Infinity".into()),
        0xF000 => return Ok("-Infinity".into()),
        0x0000 | 0x4000 => {}
        _ => return Err(Undecodable::Bytes("a numeric with an unknown sign".into())),
    }
    short(&raw[8..], ndigits * 2)?;
    let digits: Vec<i16> = raw[8..].chunks_exact(2).map(be_i16).collect();
    let mut int = String::new();
    if weight < 0 {
        int.push('0');
    } else {
        for i in 0..=weight as usize {
            let d = digits.get(i).copied().unwrap_or(0);
            if int.is_empty() {
                let _ = write!(int, "{d}");
            } else {
                let _ = write!(int, "{d:04}");
            }
        }
    }
    let mut frac = String::new();
    let mut i = weight + 1;
    while frac.len() < dscale {
        let d = if i < 0 { 0 } else { digits.get(i as usize).copied().unwrap_or(0) };
        let _ = write!(frac, "{d:04}");
        i += 1;
    }
    frac.truncate(dscale);
    let mut s = if sign == 0x4000 { "-".to_string() } else { String::new() };
    s.push_str(&int);
    if dscale > 0 {
        s.push('.');
        s.push_str(&frac);
    }
    Ok(s)
}

/// A JSON argument bound to one statement parameter, encoded for whatever type the
/// server inferred for that parameter.
#[derive(Debug)]
pub struct Param<'a> {
    /// The value.
    pub value: &'a Value,
    /// Its declared name, for messages.
    pub name: &'a str,
}

impl ToSql for Param<'_> {
    fn to_sql(&self, ty: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, BoxError> {
        if self.value.is_null() {
            return Ok(IsNull::Yes);
        }
        encode(ty, self.value, out).map_err(|why| -> BoxError {
            format!("parameter '{}' cannot be sent as {}: {why}", self.name, ty.name()).into()
        })?;
        Ok(IsNull::No)
    }
    fn accepts(_: &Type) -> bool {
        true
    }
    to_sql_checked!();
}

fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18).map(|f| f as i64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Why a JSON value cannot be sent as a parameter's type: the kind of problem, with
/// the value or item it concerns. `Param` names the parameter and the type.
#[derive(Debug)]
enum EncodeError {
    /// The value is not of a shape the type takes (`what` says which).
    Expected { what: &'static str, got: String },
    /// An integer outside the type's range.
    OutOfRange(i64),
    /// A numeric's text that is not a number.
    NotANumber(String),
    /// A network mask longer than its address.
    MaskTooLong { bits: u8, full: u8 },
    /// A value, size or type the encoder does not take, said in full.
    Unsupported(String),
    /// An array item that cannot be sent.
    Item { index: usize, source: Box<EncodeError> },
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncodeError::Expected { what, got } => write!(f, "expected {what}, got {got}"),
            EncodeError::OutOfRange(i) => write!(f, "{i} is out of range"),
            EncodeError::NotANumber(text) => write!(f, "'{text}' is not a number"),
            EncodeError::MaskTooLong { bits, full } => {
                write!(f, "a /{bits} mask on a {full}-bit address")
            }
            EncodeError::Unsupported(why) => f.write_str(why),
            EncodeError::Item { index, source } => write!(f, "item {index}: {source}"),
        }
    }
}

impl std::error::Error for EncodeError {}

/// `v` is not `what` the type takes.
fn want(what: &'static str, v: &Value) -> EncodeError {
    EncodeError::Expected { what, got: v.to_string() }
}

fn encode(ty: &Type, v: &Value, out: &mut bytes::BytesMut) -> Result<(), EncodeError> {
    use bytes::BufMut;
    match ty.kind() {
        Kind::Enum(_) => {
            out.put_slice(as_text(v).as_bytes());
            return Ok(());
        }
        Kind::Domain(base) => return encode(base, v, out),
        Kind::Array(member) => return encode_array(member, v, out),
        _ => {}
    }
    let int = |lo: i64, hi: i64| -> Result<i64, EncodeError> {
        let i = as_i64(v).ok_or_else(|| want("an integer", v))?;
        if (lo..=hi).contains(&i) { Ok(i) } else { Err(EncodeError::OutOfRange(i)) }
    };
    match *ty {
        Type::BOOL => match v {
            Value::Bool(b) => out.put_u8(u8::from(*b)),
            Value::String(s) if s == "true" || s == "false" => out.put_u8(u8::from(s == "true")),
            _ => return Err(want("a boolean", v)),
        },
        Type::INT2 => out.put_i16(int(i64::from(i16::MIN), i64::from(i16::MAX))? as i16),
        Type::INT4 => out.put_i32(int(i64::from(i32::MIN), i64::from(i32::MAX))? as i32),
        Type::INT8 => out.put_i64(int(i64::MIN, i64::MAX)?),
        Type::OID
        | Type::REGCLASS
        | Type::REGTYPE
        | Type::REGPROC
        | Type::REGNAMESPACE
        | Type::REGROLE => out.put_u32(int(0, i64::from(u32::MAX))? as u32),
        Type::FLOAT4 => out.put_f32(as_f64(v).ok_or_else(|| want("a number", v))? as f32),
        Type::FLOAT8 => out.put_f64(as_f64(v).ok_or_else(|| want("a number", v))?),
        Type::NUMERIC => {
            let text = match v {
                Value::Number(n) => n.to_string(),
                Value::String(s) => s.trim().to_string(),
                _ => return Err(want("a number", v)),
            };
            encode_numeric(&text, out)?;
        }
        Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN | Type::XML => {
            out.put_slice(as_text(v).as_bytes())
        }
        Type::CHAR => {
            let s = as_text(v);
            match s.as_bytes() {
                [b] => out.put_u8(*b),
                _ => return Err(want("one ASCII character", v)),
            }
        }
        Type::JSON | Type::JSONB => encode_json(*ty == Type::JSONB, v, out)?,
        Type::BYTEA => out.put_slice(as_text(v).as_bytes()),
        Type::UUID => encode_uuid(v, out)?,
        Type::DATE => encode_date(v, out)?,
        Type::TIMESTAMP | Type::TIMESTAMPTZ => encode_timestamp(*ty == Type::TIMESTAMPTZ, v, out)?,
        Type::TIME => encode_time(v, out)?,
        Type::INTERVAL => {
            let (us, days, months) = parse_interval(&as_text(v))
                .ok_or_else(|| want("an interval ('5 minutes', '1 day 02:00:00', 'PT5M')", v))?;
            out.put_i64(us);
            out.put_i32(days);
            out.put_i32(months);
        }
        Type::INET | Type::CIDR => encode_inet(*ty == Type::CIDR, v, out)?,
        Type::BIT | Type::VARBIT => encode_bits(v, out)?,
        _ if ty.name() == "vector" => encode_vector(v, out)?,
        _ if ty.name() == "citext" => out.put_slice(as_text(v).as_bytes()),
        _ => {
            return Err(EncodeError::Unsupported(format!(
                "filestore has no encoding for this type; cast the parameter in the statement (for example `$1::text::{}`)",
                ty.name()
            )));
        }
    }
    Ok(())
}

/// JSON text (`jsonb`: after its format version byte). A string is JSON text, as pgx
/// sends a Go string (Toolbox): one that is not JSON is refused, naming the parameter,
/// rather than stored as a JSON string (`"{"` a string, `"{}"` an object).
fn encode_json(jsonb: bool, v: &Value, out: &mut bytes::BytesMut) -> Result<(), EncodeError> {
    use bytes::BufMut;
    let text = match v {
        Value::String(s) if serde_json::from_str::<Value>(s).is_ok() => s.clone(),
        Value::String(_) => return Err(want("JSON text", v)),
        other => other.to_string(),
    };
    if jsonb {
        out.put_u8(1);
    }
    out.put_slice(text.as_bytes());
    Ok(())
}

/// A UUID's 16 bytes, from its text with or without hyphens.
fn encode_uuid(v: &Value, out: &mut bytes::BytesMut) -> Result<(), EncodeError> {
    use bytes::BufMut;
    let s = as_text(v);
    let hex: String = s.chars().filter(|c| *c != '-').collect();
    if hex.len() != 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(want("a UUID", v));
    }
    for i in 0..16 {
        out.put_u8(u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex digits"));
    }
    Ok(())
}

/// A date as days since 2000-01-01 (or ±infinity).
fn encode_date(v: &Value, out: &mut bytes::BytesMut) -> Result<(), EncodeError> {
    use bytes::BufMut;
    let s = as_text(v);
    let days = match s.as_str() {
        "infinity" => i32::MAX,
        "-infinity" => i32::MIN,
        _ => {
            let d = parse_date(&s).ok_or_else(|| want("a date (YYYY-MM-DD)", v))?;
            (d - pg_epoch().date()).num_days() as i32
        }
    };
    out.put_i32(days);
    Ok(())
}

/// A timestamp as microseconds since 2000-01-01 (or ±infinity); `with_zone` for
/// `timestamptz`.
fn encode_timestamp(
    with_zone: bool,
    v: &Value,
    out: &mut bytes::BytesMut,
) -> Result<(), EncodeError> {
    use bytes::BufMut;
    let s = as_text(v);
    let us = match s.as_str() {
        "infinity" => i64::MAX,
        "-infinity" => i64::MIN,
        _ => {
            let t = parse_timestamp(&s, with_zone)
                .ok_or_else(|| want("a timestamp (RFC 3339 or YYYY-MM-DD HH:MM:SS)", v))?;
            (t - pg_epoch())
                .num_microseconds()
                .ok_or_else(|| EncodeError::Unsupported("the timestamp is out of range".into()))?
        }
    };
    out.put_i64(us);
    Ok(())
}

/// A time of day as microseconds since midnight.
fn encode_time(v: &Value, out: &mut bytes::BytesMut) -> Result<(), EncodeError> {
    use bytes::BufMut;
    let s = as_text(v);
    let t = NaiveTime::parse_from_str(&s, "%H:%M:%S%.f")
        .or_else(|_| NaiveTime::parse_from_str(&s, "%H:%M"))
        .map_err(|_| want("a time (HH:MM:SS)", v))?;
    let us = (t - NaiveTime::MIN).num_microseconds().unwrap_or(0);
    out.put_i64(us.min(DAY_US));
    Ok(())
}

/// An `inet` or (with `cidr`) `cidr` address: family, mask bits, the cidr flag, then the
/// address bytes.
fn encode_inet(cidr: bool, v: &Value, out: &mut bytes::BytesMut) -> Result<(), EncodeError> {
    use bytes::BufMut;
    let s = as_text(v);
    let (addr, bits) = match s.split_once('/') {
        Some((a, b)) => (a, Some(b.parse::<u8>().map_err(|_| want("an address/bits", v))?)),
        None => (s.as_str(), None),
    };
    let ip: std::net::IpAddr = addr.parse().map_err(|_| want("an IP address", v))?;
    let (family, full, bytes) = match ip {
        std::net::IpAddr::V4(a) => (2u8, 32u8, a.octets().to_vec()),
        std::net::IpAddr::V6(a) => (3u8, 128u8, a.octets().to_vec()),
    };
    let bits = bits.unwrap_or(full);
    if bits > full {
        return Err(EncodeError::MaskTooLong { bits, full });
    }
    out.put_u8(family);
    out.put_u8(bits);
    out.put_u8(u8::from(cidr));
    out.put_u8(bytes.len() as u8);
    out.put_slice(&bytes);
    Ok(())
}

/// A bit string (from "101", a boolean, or 0/1): its length, then the bits, most
/// significant first.
fn encode_bits(v: &Value, out: &mut bytes::BytesMut) -> Result<(), EncodeError> {
    use bytes::BufMut;
    let bits = match v {
        Value::Bool(b) => {
            if *b {
                "1".to_string()
            } else {
                "0".to_string()
            }
        }
        Value::Number(n) if n.as_u64().is_some_and(|n| n <= 1) => n.to_string(),
        other => as_text(other),
    };
    if !bits.bytes().all(|b| b == b'0' || b == b'1') {
        return Err(want("a bit string of 0s and 1s", v));
    }
    out.put_i32(
        i32::try_from(bits.len()).map_err(|_| EncodeError::Unsupported("too many bits".into()))?,
    );
    let mut bytes = vec![0u8; bits.len().div_ceil(8)];
    for (i, b) in bits.bytes().enumerate() {
        if b == b'1' {
            bytes[i / 8] |= 0x80 >> (i % 8);
        }
    }
    out.put_slice(&bytes);
    Ok(())
}

/// A pgvector `vector`: dimensions (u16), a reserved u16, then each value as f32.
fn encode_vector(v: &Value, out: &mut bytes::BytesMut) -> Result<(), EncodeError> {
    use bytes::BufMut;
    let Value::Array(items) = v else { return Err(want("an array of numbers", v)) };
    let dim = u16::try_from(items.len())
        .map_err(|_| EncodeError::Unsupported("too many dimensions".into()))?;
    out.put_u16(dim);
    out.put_u16(0);
    for x in items {
        out.put_f32(as_f64(x).ok_or_else(|| want("a number", x))? as f32);
    }
    Ok(())
}

/// An interval as PostgreSQL's input reads it, for the forms people write:
/// `<number> <unit>` pairs (`1 year 2 mons 3 days`, `5 minutes`, `90 s`), an
/// `[-]HH:MM[:SS[.f]]` time part, a trailing `ago`, or ISO 8601 (`P1DT2H`).
/// Returns (microseconds, days, months).
fn parse_interval(text: &str) -> Option<(i64, i32, i32)> {
    let text = text.trim().to_ascii_lowercase();
    if let Some(iso) = text.strip_prefix('p') {
        return parse_iso_interval(iso);
    }
    let (text, ago) = match text.strip_suffix("ago") {
        Some(t) => (t.trim().to_string(), true),
        None => (text, false),
    };
    let (mut us, mut days, mut months) = (0f64, 0f64, 0f64);
    let mut tokens = text.split_whitespace().peekable();
    let mut any = false;
    while let Some(tok) = tokens.next() {
        if tok.contains(':') {
            let (neg, t) = match tok.strip_prefix('-') {
                Some(t) => (true, t),
                None => (false, tok.strip_prefix('+').unwrap_or(tok)),
            };
            let parts: Vec<f64> = t.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
            let secs = match parts.as_slice() {
                [h, m] => h * 3600.0 + m * 60.0,
                [h, m, s] => h * 3600.0 + m * 60.0 + s,
                _ => return None,
            };
            us += if neg { -secs } else { secs } * 1e6;
            any = true;
            continue;
        }
        // A number, with its unit glued on (`5min`) or as the next token.
        let split = tok.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(tok.len());
        let n: f64 = tok[..split].parse().ok()?;
        let unit =
            if split < tok.len() { tok[split..].to_string() } else { tokens.next()?.to_string() };
        let unit = unit.trim_end_matches(',');
        match unit {
            "microsecond" | "microseconds" | "us" | "usec" | "usecs" => us += n,
            "millisecond" | "milliseconds" | "ms" | "msec" | "msecs" => us += n * 1e3,
            "second" | "seconds" | "s" | "sec" | "secs" => us += n * 1e6,
            "minute" | "minutes" | "m" | "min" | "mins" => us += n * 60e6,
            "hour" | "hours" | "h" | "hr" | "hrs" => us += n * 3600e6,
            "day" | "days" | "d" => days += n,
            "week" | "weeks" | "w" => days += n * 7.0,
            "month" | "months" | "mon" | "mons" => months += n,
            "year" | "years" | "y" | "yr" | "yrs" => months += n * 12.0,
            _ => return None,
        }
        any = true;
    }
    if !any {
        return None;
    }
    let sign = if ago { -1.0 } else { 1.0 };
    // Fractions of months and days spill into the smaller unit, as PostgreSQL does.
    let whole_months = months.trunc();
    days += (months - whole_months) * 30.0;
    let whole_days = days.trunc();
    us += (days - whole_days) * DAY_US as f64;
    Some(((us * sign).round() as i64, (whole_days * sign) as i32, (whole_months * sign) as i32))
}

fn parse_iso_interval(iso: &str) -> Option<(i64, i32, i32)> {
    let (date, time) = iso.split_once('t').unwrap_or((iso, ""));
    let (mut us, mut days, mut months) = (0f64, 0i32, 0i32);
    let mut num = String::new();
    for c in date.chars() {
        if c.is_ascii_digit() || c == '.' || c == '-' {
            num.push(c);
            continue;
        }
        let n: f64 = std::mem::take(&mut num).parse().ok()?;
        match c {
            'y' => months += (n * 12.0) as i32,
            'm' => months += n as i32,
            'w' => days += (n * 7.0) as i32,
            'd' => days += n as i32,
            _ => return None,
        }
    }
    for c in time.chars() {
        if c.is_ascii_digit() || c == '.' || c == '-' {
            num.push(c);
            continue;
        }
        let n: f64 = std::mem::take(&mut num).parse().ok()?;
        us += match c {
            'h' => n * 3600e6,
            'm' => n * 60e6,
            's' => n * 1e6,
            _ => return None,
        };
    }
    num.is_empty().then_some((us.round() as i64, days, months))
}

fn parse_date(s: &str) -> Option<NaiveDate> {
    let s = s.trim();
    NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .ok()
        .or_else(|| DateTime::parse_from_rfc3339(s).ok().map(|t| t.date_naive()))
}

fn parse_timestamp(s: &str, with_zone: bool) -> Option<NaiveDateTime> {
    let s = s.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        // timestamptz: the instant; timestamp: the wall time as written.
        return Some(if with_zone { t.naive_utc() } else { t.naive_local() });
    }
    for f in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, f) {
            return Some(t);
        }
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0))
}

fn encode_array(member: &Type, v: &Value, out: &mut bytes::BytesMut) -> Result<(), EncodeError> {
    use bytes::BufMut;
    let Value::Array(items) = v else { return Err(want("an array", v)) };
    if items.iter().any(Value::is_array) && !matches!(member.name(), "vector") {
        return Err(EncodeError::Unsupported(
            "arrays of more than one dimension are not supported as parameters".into(),
        ));
    }
    let n = i32::try_from(items.len())
        .map_err(|_| EncodeError::Unsupported("too many items".into()))?;
    out.put_i32(1);
    out.put_i32(i32::from(items.iter().any(Value::is_null)));
    out.put_u32(member.oid());
    out.put_i32(n);
    out.put_i32(1);
    for (i, item) in items.iter().enumerate() {
        if item.is_null() {
            out.put_i32(-1);
            continue;
        }
        let at = out.len();
        out.put_i32(0);
        encode(member, item, out)
            .map_err(|e| EncodeError::Item { index: i, source: Box::new(e) })?;
        let len = i32::try_from(out.len() - at - 4)
            .map_err(|_| EncodeError::Unsupported("an item too large".into()))?;
        out[at..at + 4].copy_from_slice(&len.to_be_bytes());
    }
    Ok(())
}

/// Encodes a decimal text (`-12.5`, `1e3`, `NaN`) in the numeric wire format.
fn encode_numeric(text: &str, out: &mut bytes::BytesMut) -> Result<(), EncodeError> {
    use bytes::BufMut;
    let bad = || EncodeError::NotANumber(text.to_string());
    let special = match text {
        "NaN" => Some(0xC000u16),
        "Infinity" | "inf" => Some(0xD000),
        "-Infinity" | "-inf" => Some(0xF000),
        _ => None,
    };
    if let Some(sign) = special {
        out.put_i16(0);
        out.put_i16(0);
        out.put_u16(sign);
        out.put_u16(0);
        return Ok(());
    }
    let (neg, body) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mant, exp) = match body.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().map_err(|_| bad())?),
        None => (body, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        || exp.abs() > 1000
    {
        return Err(bad());
    }
    // All digits and where the decimal point falls among them.
    let digits: String = format!("{int}{frac}");
    let point = int.len() as i32 + exp;
    let scale = (frac.len() as i32 - exp).max(0) as u16;
    // Pad so the point sits on a base-10000 group boundary.
    let lead = (4 - point.rem_euclid(4)) % 4;
    let mut padded = "0".repeat(lead as usize);
    padded.push_str(&digits);
    while !padded.len().is_multiple_of(4) {
        padded.push('0');
    }
    let groups: Vec<i16> = padded
        .as_bytes()
        .chunks(4)
        .map(|c| std::str::from_utf8(c).expect("ascii").parse().expect("digits"))
        .collect();
    let weight0 = (point + lead) / 4 - 1;
    // Strip leading and trailing zero groups.
    let first = groups.iter().position(|g| *g != 0);
    let (groups, weight) = match first {
        None => (Vec::new(), 0),
        Some(f) => {
            let last = groups.iter().rposition(|g| *g != 0).expect("a nonzero group");
            (groups[f..=last].to_vec(), weight0 - f as i32)
        }
    };
    out.put_i16(i16::try_from(groups.len()).map_err(|_| bad())?);
    out.put_i16(i16::try_from(weight).map_err(|_| bad())?);
    out.put_u16(if neg && !groups.is_empty() { 0x4000 } else { 0 });
    out.put_u16(scale);
    for g in groups {
        out.put_i16(g);
    }
    Ok(())
}

/// A row of `simple_query` text values as a JSON object (multi-statement scripts of
/// execute-sql tools, where the server sends text without types).
pub fn text_row(row: &postgres::SimpleQueryRow) -> Value {
    let mut obj = Map::new();
    for (i, c) in row.columns().iter().enumerate() {
        obj.insert(
            c.name().to_string(),
            row.get(i).map_or(Value::Null, |s| Value::String(s.to_string())),
        );
    }
    Value::Object(obj)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(ty: &Type, v: Value) -> Vec<u8> {
        let mut b = bytes::BytesMut::new();
        encode(ty, &v, &mut b).unwrap();
        b.to_vec()
    }

    #[test]
    fn numeric_round_trips_through_the_wire_format() {
        for (input, text) in [
            ("0", "0"),
            ("12.50", "12.50"),
            ("-12.5", "-12.5"),
            ("10000", "10000"),
            ("123456789.000123", "123456789.000123"),
            ("0.0001", "0.0001"),
            ("0.00001", "0.00001"),
            ("1e3", "1000"),
            ("1.5e-2", "0.015"),
            ("99999999999999999999.99", "99999999999999999999.99"),
        ] {
            let b = enc(&Type::NUMERIC, Value::String(input.into()));
            assert_eq!(numeric_text(&b).ok().unwrap(), text, "{input}");
        }
        assert!(
            encode(&Type::NUMERIC, &Value::String("1.2.3".into()), &mut bytes::BytesMut::new())
                .is_err()
        );
    }

    #[test]
    fn numeric_is_a_number_only_when_a_double_holds_it() {
        let b = enc(&Type::NUMERIC, Value::String("12.5".into()));
        assert_eq!(numeric(&b).ok().unwrap(), serde_json::json!(12.5));
        let b = enc(&Type::NUMERIC, Value::String("42".into()));
        assert_eq!(numeric(&b).ok().unwrap(), serde_json::json!(42));
        let b = enc(&Type::NUMERIC, Value::String("99999999999999999999.99".into()));
        assert_eq!(numeric(&b).ok().unwrap(), serde_json::json!("99999999999999999999.99"));
    }

    #[test]
    fn dates_and_timestamps_round_trip() {
        let b = enc(&Type::DATE, Value::String("2024-02-29".into()));
        assert_eq!(decode(&Type::DATE, Some(&b)).unwrap(), "2024-02-29T00:00:00Z");
        let b = enc(&Type::TIMESTAMPTZ, Value::String("2024-02-29T10:11:12.5+02:00".into()));
        assert_eq!(decode(&Type::TIMESTAMPTZ, Some(&b)).unwrap(), "2024-02-29T08:11:12.500Z");
        let b = enc(&Type::TIMESTAMP, Value::String("1999-12-31 23:59:59".into()));
        assert_eq!(decode(&Type::TIMESTAMP, Some(&b)).unwrap(), "1999-12-31T23:59:59Z");
        assert!(
            encode(&Type::DATE, &Value::String("tomorrow".into()), &mut bytes::BytesMut::new())
                .is_err()
        );
    }

    #[test]
    fn integers_are_range_checked() {
        assert_eq!(enc(&Type::INT2, serde_json::json!(7)), vec![0, 7]);
        let err = encode(&Type::INT2, &serde_json::json!(70000), &mut bytes::BytesMut::new())
            .unwrap_err();
        assert!(err.to_string().contains("out of range"), "{err}");
        assert!(encode(&Type::INT4, &serde_json::json!("x"), &mut bytes::BytesMut::new()).is_err());
    }

    #[test]
    fn arrays_nest_by_dimension() {
        let b = enc(&Type::INT4_ARRAY, serde_json::json!([1, null, 3]));
        assert_eq!(decode(&Type::INT4_ARRAY, Some(&b)).unwrap(), serde_json::json!([1, null, 3]));
        // A 2x2 array built by hand.
        let mut raw = Vec::new();
        for x in [2i32, 0, 23, 2, 1, 2, 1] {
            raw.extend_from_slice(&x.to_be_bytes());
        }
        for x in [1i32, 2, 3, 4] {
            raw.extend_from_slice(&4i32.to_be_bytes());
            raw.extend_from_slice(&x.to_be_bytes());
        }
        assert_eq!(
            decode(&Type::INT4_ARRAY, Some(&raw)).unwrap(),
            serde_json::json!([[1, 2], [3, 4]])
        );
    }

    #[test]
    fn intervals_parse_as_postgres_reads_them() {
        assert_eq!(parse_interval("1 minute"), Some((60_000_000, 0, 0)));
        assert_eq!(parse_interval("5 minutes"), Some((300_000_000, 0, 0)));
        assert_eq!(parse_interval("2 seconds"), Some((2_000_000, 0, 0)));
        assert_eq!(parse_interval("1 year 2 mons 3 days 04:05:06"), Some((14_706_000_000, 3, 14)));
        assert_eq!(parse_interval("1.5 days"), Some((DAY_US / 2, 1, 0)));
        assert_eq!(parse_interval("10min"), Some((600_000_000, 0, 0)));
        assert_eq!(parse_interval("3 hours ago"), Some((-10_800_000_000, 0, 0)));
        assert_eq!(parse_interval("P1Y2M3DT4H5M6S"), Some((14_706_000_000, 3, 14)));
        assert_eq!(parse_interval("PT5M"), Some((300_000_000, 0, 0)));
        assert_eq!(parse_interval("soon"), None);
        assert_eq!(parse_interval(""), None);
        assert_eq!(parse_interval("5 fortnights"), None);
    }

    #[test]
    fn intervals_print_as_iso_8601() {
        assert_eq!(interval(0, 0, 0), "PT0S");
        assert_eq!(interval(3_723_500_000, 3, 14), "P1Y2M3DT1H2M3.5S");
        assert_eq!(interval(-60_000_000, 0, 0), "PT-1M");
    }

    #[test]
    fn unknown_types_say_which_cast_works() {
        let err = decode(&Type::TS_VECTOR, Some(b"x")).unwrap_err().to_string();
        assert!(err.contains("tsvector") && err.contains("::text"), "{err}");
        let err = encode(&Type::TS_VECTOR, &Value::String("x".into()), &mut bytes::BytesMut::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("::text::tsvector"), "{err}");
    }

    #[test]
    fn uuids_and_addresses_are_text() {
        let b = enc(&Type::UUID, Value::String("123e4567-e89b-12d3-a456-426614174000".into()));
        assert_eq!(decode(&Type::UUID, Some(&b)).unwrap(), "123e4567-e89b-12d3-a456-426614174000");
        let b = enc(&Type::INET, Value::String("10.0.0.1".into()));
        assert_eq!(decode(&Type::INET, Some(&b)).unwrap(), "10.0.0.1");
        let b = enc(&Type::CIDR, Value::String("10.0.0.0/8".into()));
        assert_eq!(decode(&Type::CIDR, Some(&b)).unwrap(), "10.0.0.0/8");
    }
}
