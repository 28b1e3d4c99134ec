//! Names on disk: how an entry's name becomes a volume path component (as it is, or
//! escaped when it is not one an agent could type: see [`volume_name`]) and back
//! ([`os_name`]), the shape of temporary files of in-flight writes (hidden from
//! listings), and joining.

use std::borrow::Cow;

use super::*;

/// What starts the escaped form of a name that is not a plain volume path component
/// (see [`volume_name`]).
pub const ESCAPE_MARKER: &str = "~x~";

/// The name as a volume path component, or `None` when it stays hidden (a temporary
/// file of an in-flight write, `.`/`..`, too long even escaped).
///
/// A name an agent could not type as it is — not UTF-8 (`caf\xe9.txt` in Latin-1),
/// with a control character or a backslash — is shown escaped rather than hidden:
/// [`ESCAPE_MARKER`] then the bytes, each byte outside printable ASCII (and `%`,
/// `/`, `\`) as `%XX` (`~x~caf%E9.txt`). The form is reversible ([`os_name`]), so
/// read, write, move and delete reach the file; a real name that starts with the
/// marker is escaped too, so no two files share a shown name.
pub(super) fn volume_name(name: &OsStr) -> Option<Cow<'_, str>> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes == b"." || bytes == b".." {
        return None;
    }
    if let Some(s) = name.to_str() {
        if is_temp_name(s) {
            return None;
        }
        let plain = !s.contains(['/', '\\'])
            && !s.chars().any(char::is_control)
            && !s.starts_with(ESCAPE_MARKER);
        if plain {
            return (s.len() <= MAX_COMPONENT_BYTES).then_some(Cow::Borrowed(s));
        }
    }
    let mut out = String::from(ESCAPE_MARKER);
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && !matches!(b, b'%' | b'/' | b'\\') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    (out.len() <= MAX_COMPONENT_BYTES).then_some(Cow::Owned(out))
}

/// The on-disk name of a volume path component: the component itself, or the bytes
/// an escaped form ([`volume_name`]) stands for. `Err` says why an escaped form is
/// malformed.
pub(super) fn os_name(component: &str) -> std::result::Result<Cow<'_, OsStr>, String> {
    use std::os::unix::ffi::OsStringExt;
    let Some(escaped) = component.strip_prefix(ESCAPE_MARKER) else {
        return Ok(Cow::Borrowed(OsStr::new(component)));
    };
    let b = escaped.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex =
                escaped.get(i + 1..i + 3).filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()));
            let Some(hex) = hex else {
                return Err(format!(
                    "'{component}' starts with '{ESCAPE_MARKER}', the escaped form of a file name, but '%' at byte {} is not followed by two hex digits",
                    ESCAPE_MARKER.len() + i
                ));
            };
            out.push(u8::from_str_radix(hex, 16).unwrap_or(0));
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let temp = std::str::from_utf8(&out).is_ok_and(is_temp_name);
    if out.is_empty()
        || out.contains(&b'/')
        || out.contains(&0)
        || out == b"."
        || out == b".."
        || temp
    {
        return Err(format!("'{component}' does not stand for a valid file name"));
    }
    Ok(Cow::Owned(std::ffi::OsString::from_vec(out)))
}

/// Whether `name` has the shape of a temporary file made by [`DirVolume`]'s writes.
pub(super) fn is_temp_name(name: &str) -> bool {
    name.starts_with('.')
        && name.rsplit_once(TEMP_MARKER).is_some_and(|(_, suffix)| {
            suffix.len() == TEMP_SUFFIX_LEN && suffix.bytes().all(|b| b.is_ascii_hexdigit())
        })
}

/// `.{name prefix}.filestore-tmp-{16 hex}`: unique enough to make collisions rare,
/// and `O_EXCL` makes them harmless.
pub(super) fn temp_name(name: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    let mut cut = name.len().min(TEMP_NAME_PREFIX_BYTES);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(".{}{TEMP_MARKER}{:016x}", &name[..cut], h.finish())
}

/// `dir/name` for volume paths.
pub(super) fn join(dir: &str, name: &str) -> String {
    if dir == "/" { format!("/{name}") } else { format!("{dir}/{name}") }
}
