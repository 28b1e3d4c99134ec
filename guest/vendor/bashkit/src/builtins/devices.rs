//! filestore: the endless devices (`/dev/zero`, `/dev/urandom`, `/dev/random`)
//! for a reader that asks for a bounded number of bytes (`head -c N`, `cmp -n N`,
//! `dd count=N`).
//!
//! A filesystem read is whole, so the filesystem serves an endless device as one
//! bounded read (1 MiB of `/dev/zero`, a few KiB of `/dev/urandom`), and `head -c
//! 2M /dev/zero` would silently get that much. These readers make the bytes here
//! at the size they ask for instead, up to [`DEVICE_MAX_BYTES`]; past it they say
//! so (stderr, status 1), never silently short.

use std::path::Path;

use super::limits::DD_MAX_BYTES;

/// Bytes one bounded read of a device may ask for (dd's own bound,
/// THREAT[TM-DOS-003]).
pub(crate) const DEVICE_MAX_BYTES: usize = DD_MAX_BYTES;

/// The first `len` bytes of the endless device at `path` (an absolute,
/// normalized path); `None` when `path` is no endless device. `Err` is the
/// reason, for `cmd: FILE: reason` (a request over [`DEVICE_MAX_BYTES`], no
/// random bytes).
pub(crate) fn device_prefix(
    path: &Path,
    len: usize,
) -> Option<std::result::Result<Vec<u8>, String>> {
    let random = match path.to_str()? {
        "/dev/zero" => false,
        "/dev/urandom" | "/dev/random" => true,
        _ => return None,
    };
    if len > DEVICE_MAX_BYTES {
        return Some(Err(format!(
            "a read of a device is bounded to {DEVICE_MAX_BYTES} bytes ({len} asked for)"
        )));
    }
    let mut bytes = vec![0; len];
    if random && let Err(e) = getrandom::fill(&mut bytes) {
        return Some(Err(format!("no random bytes: {e}")));
    }
    Some(Ok(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_give_the_length_asked_for() {
        let zero = device_prefix(Path::new("/dev/zero"), 2 << 20).unwrap().unwrap();
        assert_eq!(zero.len(), 2 << 20);
        assert!(zero.iter().all(|&b| b == 0));
        let random = device_prefix(Path::new("/dev/urandom"), 100_000).unwrap().unwrap();
        assert_eq!(random.len(), 100_000);
        assert!(random.iter().any(|&b| b != 0));
        assert!(device_prefix(Path::new("/dev/null"), 10).is_none());
        assert!(device_prefix(Path::new("/tmp/zero"), 10).is_none());
    }

    #[test]
    fn a_request_past_the_bound_is_an_error() {
        let err = device_prefix(Path::new("/dev/zero"), DEVICE_MAX_BYTES + 1)
            .unwrap()
            .unwrap_err();
        assert!(err.contains("bounded"), "{err}");
    }
}
