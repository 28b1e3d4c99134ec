//! RESP, Redis's protocol, as a client speaks it: a command goes out as an array of
//! bulk strings; a reply (RESP2 or RESP3) comes back as JSON, the way Toolbox's Go
//! clients turn it into values (a map's keys as text, a verbatim string without its
//! format, a double as a number).
//!
//! Hand-rolled rather than the `redis` crate: that client reads a reply whole before
//! its caller sees any of it, so one `GET` of a 512 MB value, or `KEYS *` over a large
//! database, would be in the host's memory before the tool result limit could refuse
//! it. Here every length is charged to the call's [`Limits`] before its bytes are
//! read, and so is every value (a million one-byte integers cost the host far more
//! than their text).

use std::io::{self, BufRead, Write};

use serde_json::{Map, Number, Value};

/// Most values (counted at every depth) one call's replies may hold together.
pub const MAX_REPLY_VALUES: u64 = 250_000;

/// Deepest nesting of a reply (a script can nest arrays at will; the reader recurses
/// once per level, attributes included). Below the 128 levels a JSON parser of the
/// result allows (serde_json's), so whatever is read also reaches the model whole.
pub const MAX_DEPTH: usize = 64;

/// Longest line of a reply (a simple string, an error, a header), bytes.
const MAX_LINE: usize = 1024 * 1024;

/// Writes `words` as one command: an array of bulk strings, so a word is sent as
/// written, whatever it holds (spaces, quotes, CRLF).
pub fn write_command<W: Write>(w: &mut W, words: &[String]) -> io::Result<()> {
    write!(w, "*{}\r\n", words.len())?;
    for word in words {
        write!(w, "${}\r\n", word.len())?;
        w.write_all(word.as_bytes())?;
        w.write_all(b"\r\n")?;
    }
    Ok(())
}

/// One reply, at its top level: a value, the server's error, or nil (which Toolbox's
/// clients report as an error of their own).
#[derive(Debug, PartialEq)]
pub enum Reply {
    /// Any value (nested errors as their text, nested nils as `null`).
    Value(Value),
    /// An error reply (`-ERR ...`, or a blob error), its text.
    Error(String),
    /// A null reply (RESP2's `$-1` and `*-1`, RESP3's `_`).
    Nil,
}

/// Why a reply could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The connection failed (or the call's time ran out: [`super::connect`]).
    Io(io::Error),
    /// The server sent something that is not RESP.
    Protocol(String),
    /// The replies hold more bytes than the call may take in.
    TooLarge,
    /// The replies hold more than [`MAX_REPLY_VALUES`] values.
    TooMany,
    /// A reply nests deeper than [`MAX_DEPTH`] levels.
    TooDeep,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Protocol(p) => {
                write!(f, "it did not answer as a Redis server does (RESP): {p}")
            }
            ReadError::TooLarge => write!(f, "its reply is larger than allowed"),
            ReadError::TooMany => write!(f, "its reply holds more than {MAX_REPLY_VALUES} values"),
            ReadError::TooDeep => write!(f, "its reply nests deeper than {MAX_DEPTH} levels"),
        }
    }
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> ReadError {
        ReadError::Io(e)
    }
}

/// What the replies of one call may still take in.
#[derive(Debug)]
pub struct Limits {
    bytes_left: u64,
    values_left: u64,
}

impl Limits {
    /// At most `bytes` of reply (the tool result limit) and [`MAX_REPLY_VALUES`] values.
    pub fn new(bytes: u64) -> Limits {
        Limits { bytes_left: bytes, values_left: MAX_REPLY_VALUES }
    }

    fn bytes(&mut self, n: u64) -> Result<(), ReadError> {
        self.bytes_left = self.bytes_left.checked_sub(n).ok_or(ReadError::TooLarge)?;
        Ok(())
    }

    fn value(&mut self) -> Result<(), ReadError> {
        self.values_left = self.values_left.checked_sub(1).ok_or(ReadError::TooMany)?;
        Ok(())
    }
}

/// Reads one reply.
pub fn read_reply<R: BufRead>(r: &mut R, limits: &mut Limits) -> Result<Reply, ReadError> {
    read(r, limits, 0)
}

/// One value at `depth`.
fn read<R: BufRead>(r: &mut R, limits: &mut Limits, depth: usize) -> Result<Reply, ReadError> {
    if depth > MAX_DEPTH {
        return Err(ReadError::TooDeep);
    }
    limits.value()?;
    let line = read_line(r, limits)?;
    let (&tag, rest) =
        line.split_first().ok_or_else(|| ReadError::Protocol("an empty reply line".into()))?;
    let text = || String::from_utf8_lossy(rest).into_owned();
    Ok(match tag {
        b'+' => Reply::Value(Value::String(text())),
        b'-' => Reply::Error(text()),
        b':' => Reply::Value(Value::Number(parse::<i64>(rest)?.into())),
        b'$' | b'=' | b'!' => match length(rest)? {
            None => Reply::Nil,
            Some(n) => {
                let bytes = read_bulk(r, limits, n)?;
                match tag {
                    b'!' => Reply::Error(String::from_utf8_lossy(&bytes).into_owned()),
                    // A verbatim string starts with its format (`txt:`), which
                    // Toolbox's clients leave out.
                    b'=' => Reply::Value(lossy(bytes.get(4..).unwrap_or_default().to_vec())),
                    _ => Reply::Value(lossy(bytes)),
                }
            }
        },
        b'*' | b'~' | b'>' => match length(rest)? {
            None => Reply::Nil,
            Some(n) => {
                let mut items = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    items.push(nested(read(r, limits, depth + 1)?));
                }
                Reply::Value(Value::Array(items))
            }
        },
        b'%' | b'|' => {
            let n = length(rest)?.unwrap_or(0);
            let mut map = Map::new();
            for _ in 0..n {
                let key = match nested(read(r, limits, depth + 1)?) {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                map.insert(key, nested(read(r, limits, depth + 1)?));
            }
            if tag == b'|' {
                // Attributes describe the value that follows; the value is the reply.
                // One level deeper, so a chain of attributes is bounded as nesting is.
                return read(r, limits, depth + 1);
            }
            Reply::Value(Value::Object(map))
        }
        b'_' => Reply::Nil,
        b'#' => Reply::Value(Value::Bool(rest == b"t")),
        b',' => {
            let t = text();
            Reply::Value(match t.parse::<f64>() {
                // A whole double is written as an integer (`1`, not `1.0`), as Go's
                // JSON encoder writes a float64.
                Ok(f) if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 => {
                    Value::Number((f as i64).into())
                }
                Ok(f) => Number::from_f64(f).map_or(Value::String(t), Value::Number),
                // inf, -inf and nan have no JSON number.
                Err(_) => Value::String(t),
            })
        }
        b'(' => {
            let t = text();
            Reply::Value(match (t.parse::<i64>(), t.parse::<u64>()) {
                (Ok(i), _) => Value::Number(i.into()),
                (_, Ok(u)) => Value::Number(u.into()),
                _ => Value::String(t),
            })
        }
        other => {
            return Err(ReadError::Protocol(format!(
                "an unknown reply type {:?}",
                char::from(other)
            )));
        }
    })
}

/// A nested reply as a value: an error as its text, nil as `null`.
fn nested(reply: Reply) -> Value {
    match reply {
        Reply::Value(v) => v,
        Reply::Error(e) => Value::String(e),
        Reply::Nil => Value::Null,
    }
}

/// Bytes as a string, invalid UTF-8 replaced (as Go's JSON encoder does).
fn lossy(bytes: Vec<u8>) -> Value {
    Value::String(match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

fn parse<T: std::str::FromStr>(digits: &[u8]) -> Result<T, ReadError> {
    std::str::from_utf8(digits).ok().and_then(|s| s.parse().ok()).ok_or_else(|| {
        ReadError::Protocol(format!("'{}' is not a number", String::from_utf8_lossy(digits)))
    })
}

/// A length header: `None` for RESP2's `-1` (nil).
fn length(digits: &[u8]) -> Result<Option<usize>, ReadError> {
    let n = parse::<i64>(digits)?;
    if n < 0 { Ok(None) } else { Ok(Some(usize::try_from(n).map_err(|_| ReadError::TooLarge)?)) }
}

/// One line without its CRLF, charged as it is read.
fn read_line<R: BufRead>(r: &mut R, limits: &mut Limits) -> Result<Vec<u8>, ReadError> {
    let mut line = Vec::new();
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Err(ReadError::Io(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the server closed the connection",
            )));
        }
        let (take, done) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        limits.bytes(take as u64)?;
        line.extend_from_slice(&buf[..take]);
        r.consume(take);
        if line.len() > MAX_LINE {
            return Err(ReadError::Protocol(format!("a reply line longer than {MAX_LINE} bytes")));
        }
        if done {
            break;
        }
    }
    if !line.ends_with(b"\r\n") {
        return Err(ReadError::Protocol("a reply line without CRLF".into()));
    }
    line.truncate(line.len() - 2);
    Ok(line)
}

/// A bulk string's `n` bytes and its CRLF, charged before they are read.
fn read_bulk<R: BufRead>(r: &mut R, limits: &mut Limits, n: usize) -> Result<Vec<u8>, ReadError> {
    limits.bytes(n as u64 + 2)?;
    let mut bytes = vec![0; n + 2];
    r.read_exact(&mut bytes)?;
    if !bytes.ends_with(b"\r\n") {
        return Err(ReadError::Protocol("a bulk string without CRLF".into()));
    }
    bytes.truncate(n);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn one(wire: &str) -> Result<Reply, ReadError> {
        read_reply(&mut wire.as_bytes(), &mut Limits::new(1 << 20))
    }

    #[test]
    fn resp2_and_resp3_replies_read_as_toolbox_clients_show_them() {
        assert_eq!(one("+OK\r\n").unwrap(), Reply::Value(json!("OK")));
        assert_eq!(one(":-5\r\n").unwrap(), Reply::Value(json!(-5)));
        assert_eq!(one("$5\r\nh\r\nlo\r\n").unwrap(), Reply::Value(json!("h\r\nlo")));
        assert_eq!(one("$-1\r\n").unwrap(), Reply::Nil);
        assert_eq!(one("_\r\n").unwrap(), Reply::Nil);
        assert_eq!(one("-WRONGTYPE no\r\n").unwrap(), Reply::Error("WRONGTYPE no".into()));
        assert_eq!(one("!3\r\nERR\r\n").unwrap(), Reply::Error("ERR".into()));
        assert_eq!(one("*3\r\n:1\r\n$-1\r\n-E\r\n").unwrap(), Reply::Value(json!([1, null, "E"])));
        assert_eq!(
            one("%3\r\n+a\r\n,1.5\r\n:7\r\n#t\r\n+b\r\n,2\r\n").unwrap(),
            Reply::Value(json!({"a": 1.5, "7": true, "b": 2}))
        );
        assert_eq!(one("=8\r\ntxt:abcd\r\n").unwrap(), Reply::Value(json!("abcd")));
        assert_eq!(one(",inf\r\n").unwrap(), Reply::Value(json!("inf")));
        assert_eq!(one("(18446744073709551615\r\n").unwrap(), Reply::Value(json!(u64::MAX)));
        assert_eq!(one("|1\r\n+k\r\n+v\r\n:3\r\n").unwrap(), Reply::Value(json!(3)));
        assert_eq!(one("~1\r\n+x\r\n").unwrap(), Reply::Value(json!(["x"])));
    }

    #[test]
    fn lengths_are_charged_before_their_bytes_are_read() {
        // A 512 MB bulk string announced on a short stream: refused at its header.
        let mut limits = Limits::new(1000);
        let e = read_reply(&mut "$536870912\r\nxx".as_bytes(), &mut limits).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge), "{e:?}");
        // Values are counted too.
        let mut many = format!("*{}\r\n", MAX_REPLY_VALUES + 1);
        for _ in 0..=MAX_REPLY_VALUES {
            many.push_str(":1\r\n");
        }
        let e = read_reply(&mut many.as_bytes(), &mut Limits::new(u64::MAX)).unwrap_err();
        assert!(matches!(e, ReadError::TooMany), "{e:?}");
        let deep = "*1\r\n".repeat(MAX_DEPTH + 2);
        assert!(matches!(one(&deep), Err(ReadError::TooDeep)));
        // A chain of attributes is nesting too (it recursed without bound).
        let attributes = "|0\r\n".repeat(10_000) + ":1\r\n";
        assert!(matches!(one(&attributes), Err(ReadError::TooDeep)));
        assert!(matches!(one("?x\r\n"), Err(ReadError::Protocol(_))));
        assert!(matches!(one("+OK"), Err(ReadError::Io(_))));
    }

    #[test]
    fn commands_are_arrays_of_bulk_strings() {
        let mut out = Vec::new();
        write_command(&mut out, &["SET".into(), "k".into(), "a b\r\n".into()]).unwrap();
        assert_eq!(out, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\na b\r\n\r\n");
    }
}
