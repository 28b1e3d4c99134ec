//! CPython 3.14 compiled to `wasm32-wasip1`, pre-initialized with Wizer and
//! precompiled to Wasmtime's Pulley bytecode at build time.
//!
//! This crate only ships bytes and the matching engine configuration. The
//! WASI host that maps the guest onto a virtual filesystem lives in
//! `bashkit` (`cpython` feature). See `knowledge/runtimes/cpython-wasm.md`.
//!
//! # Guest contract
//!
//! - Export `bashkit_run() -> i32` runs one `python3` invocation and returns
//!   its exit status. Argv, environment (including `PWD`) and stdio come from
//!   WASI preview1 imports. `proc_exit` may also end the call.
//! - The snapshot was taken with exactly one preopened directory, `/`, at
//!   file descriptor 3. Hosts must present the same preopen.
//! - The stdlib must be readable at [`STDLIB_ZIP_PATH`] with exactly the
//!   bytes of [`STDLIB_ZIP`]; the snapshot caches its zip directory.
//! - Each instance must serve a single call; state is never reused.

include!("config.rs");

/// CPython version inside the guest.
pub const PYTHON_VERSION: &str = "3.14.8";

/// Guest path the stdlib zip must be served at.
pub const STDLIB_ZIP_PATH: &str = "/usr/local/lib/python314.zip";

/// Guest directory that holds the stdlib (read-only to the guest).
pub const STDLIB_PREFIX: &str = "/usr/local/lib";

/// Stdlib sources, deflate-compressed zip read by CPython's `zipimport`.
pub static STDLIB_ZIP: &[u8] = include_bytes!("../artifacts/python314.zip");

/// filestore: the precompiled module, deflated by the build script.
static CWASM_DEFLATED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/python.cwasm.deflate"));

/// Precompiled module bytes (Pulley, or native with the `native` feature),
/// inflated anew by each call (filestore: nothing keeps the 47 MB once loaded).
pub fn cwasm_bytes() -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(CWASM_DEFLATED)
        .read_to_end(&mut out)
        .expect("the embedded python.cwasm.deflate inflates");
    out
}

/// Create an engine compatible with the embedded module.
pub fn engine() -> wasmtime::Result<wasmtime::Engine> {
    wasmtime::Engine::new(&engine_config())
}

/// Load the embedded CPython module into `engine`.
///
/// `engine` must come from [`engine`] or use [`engine_config`] unchanged
/// (plus runtime-only settings). filestore: every load inflates the bytes
/// (about 0.1 s) and copies them into the module (the published crate maps
/// them in place for Pulley; native code is copied there too). Hosts should
/// load once and share the module.
pub fn load_module(engine: &wasmtime::Engine) -> wasmtime::Result<wasmtime::Module> {
    // SAFETY: the bytes were produced by `Engine::precompile_module` in this
    // crate's build script with the same wasmtime version and `engine_config`;
    // `deserialize` copies them.
    unsafe { wasmtime::Module::deserialize(engine, &cwasm_bytes()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_loads_and_exports_entrypoint() {
        let engine = engine().unwrap();
        let module = load_module(&engine).unwrap();
        assert!(module.get_export("bashkit_run").is_some());
        assert!(module.get_export("memory").is_some());
    }

    #[test]
    fn stdlib_zip_is_a_zip() {
        assert_eq!(&STDLIB_ZIP[..4], b"PK\x03\x04");
    }
}
