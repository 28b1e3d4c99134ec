//! The key of an engine's compatibility hash (wasmtime's version and the settings that
//! shape compiled code), shared by the build script, which stamps it on the
//! precompiled artifact, and the engine, which compares it with its own and keys its
//! cache of compiled components by it (`#[path]`-included by both, so the two
//! computations cannot drift apart; same compiler, same wasmtime).

/// `engine`'s compatibility hash, as one number.
pub fn compatibility_key(engine: &wasmtime::Engine) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut s = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut s);
    s.finish()
}
