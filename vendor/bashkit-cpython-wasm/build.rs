//! Compile the committed CPython snapshot ahead of time: to Pulley bytecode,
//! or to native code for the target with the `native` feature.
//!
//! Decision: compile at build time, never at run time (python3 startup is a
//! product feature). Set `BASHKIT_CPYTHON_CWASM=/path/python.cwasm` to reuse a
//! module precompiled by the same wasmtime version and configuration.

use std::path::PathBuf;

include!("src/config.rs");

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap());
    // filestore: the module is stored deflated (`python.cwasm.deflate`) and inflated
    // on its first load: 47 MB of native code and memory image take 14.0 MB.
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap()).join("python.cwasm");
    let snapshot = manifest.join("artifacts/python.wasm.xz");
    println!("cargo:rerun-if-changed={}", snapshot.display());
    println!("cargo:rerun-if-changed=src/config.rs");
    println!("cargo:rerun-if-env-changed=BASHKIT_CPYTHON_CWASM");

    if let Some(prebuilt) = std::env::var_os("BASHKIT_CPYTHON_CWASM") {
        let cwasm = std::fs::read(&prebuilt).expect("read BASHKIT_CPYTHON_CWASM");
        write_deflated(&out, &cwasm);
        return;
    }

    // xz, not gzip: ~30% smaller, which keeps the crate under crates.io's
    // 10 MiB cap with more modules preloaded. Decoded here only.
    let mut wasm = Vec::new();
    let file = std::fs::File::open(&snapshot).expect("open snapshot");
    lzma_rs::xz_decompress(&mut std::io::BufReader::new(file), &mut wasm)
        .expect("decompress snapshot");
    // The build script's own cfg is the host's; read the crate feature and
    // the cross-compilation target from Cargo instead.
    let native = std::env::var_os("CARGO_FEATURE_NATIVE").is_some();
    let target = std::env::var("TARGET").expect("TARGET");
    let engine = wasmtime::Engine::new(&engine_config_for(native, Some(&target))).expect("engine");
    let cwasm = engine
        .precompile_module(&wasm)
        .expect("precompile CPython snapshot");
    write_deflated(&out, &cwasm);
}

/// filestore: writes `bytes` deflated. Deflate, not the Brotli the sandbox embeds its
/// component with: this module is inflated in every process that runs python3, and
/// inflating is twice as fast (0.13 s against 0.3 s). The default level: a quarter
/// smaller than the fast one (14.0 MB against 18.5 MB), inflated as fast, 0.8 s here.
fn write_deflated(out: &std::path::Path, bytes: &[u8]) {
    use std::io::Write;
    let file = std::fs::File::create(out.with_extension("cwasm.deflate")).expect("create");
    let mut z = flate2::write::DeflateEncoder::new(file, flate2::Compression::default());
    z.write_all(bytes).expect("write python.cwasm.deflate");
    z.finish().expect("finish python.cwasm.deflate");
}
