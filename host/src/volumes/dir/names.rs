//! Names on disk: which entries are addressable as UTF-8 volume paths, the shape of
//! temporary files of in-flight writes (hidden from listings), and joining.

use super::*;

/// The name as a volume path component, or `None` when an agent could not address
/// it (not UTF-8, control characters, backslash, too long) or it is a temporary file
/// of an in-flight write.
pub(super) fn addressable_name(name: &OsStr) -> Option<&str> {
    let s = name.to_str()?;
    let ok = !s.is_empty()
        && s != "."
        && s != ".."
        && s.len() <= MAX_COMPONENT_BYTES
        && !s.contains(['/', '\\'])
        && !s.chars().any(char::is_control)
        && !is_temp_name(s);
    ok.then_some(s)
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
