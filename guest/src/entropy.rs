//! The component's only source of "random" bytes: getrandom's custom backend (the
//! build selects it with `--cfg getrandom_backend="custom"`, component/build.rs).
//!
//! Why: the component must import no `wasi:random` (tests/integration/isolation.rs),
//! but boon's hash maps (ahash) ask getrandom for seeds, and the shell (bashkit) for
//! `$RANDOM`, `mktemp` names and temporary-file suffixes. getrandom 0.4 (bashkit's)
//! calls the same symbol as 0.3 with an error type of the same layout, so this one
//! function serves both. Nothing here needs
//! secrecy: the bytes come from a fixed splitmix64 sequence, so hash seeds are
//! predictable. The maps they seed hold keys of one schema or one call's arguments,
//! both bounded (tools/schema.rs), which bounds what a crafted collision can cost.

use std::sync::atomic::{AtomicU64, Ordering};

static STATE: AtomicU64 = AtomicU64::new(0x9E37_79B9_7F4A_7C15);

fn next() -> u64 {
    let mut z = STATE.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// getrandom 0.3's custom backend: fills `len` bytes at `dest`.
///
/// # Safety
/// getrandom calls it with a valid, writable `dest` of `len` bytes.
#[unsafe(no_mangle)]
unsafe extern "Rust" fn __getrandom_v03_custom(
    dest: *mut u8,
    len: usize,
) -> Result<(), getrandom::Error> {
    // SAFETY: the caller (getrandom) passes a valid buffer of `len` bytes.
    let out = unsafe { std::slice::from_raw_parts_mut(dest, len) };
    for chunk in out.chunks_mut(8) {
        let bytes = next().to_le_bytes();
        chunk.copy_from_slice(&bytes[..chunk.len()]);
    }
    Ok(())
}
