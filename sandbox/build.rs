//! Precompiles the component (built by `filestore-component`'s build script, which
//! hands over its path as `DEP_FILESTORE_COMPONENT_WASM`) for the host this crate is
//! built on, so a start deserialises machine code instead of running Cranelift
//! (milliseconds, not seconds). The artifact is embedded compressed: the engine
//! decompresses it once into its cache directory and maps it from there on later starts.

#[path = "../component/build_support.rs"]
mod build_support;
#[path = "../runtime/compat_key.rs"]
mod compat_key;
#[path = "../runtime/function_names.rs"]
mod function_names;

use std::env;
use std::path::Path;

fn main() {
    let out_dir = env::var("OUT_DIR").expect("OUT_DIR");
    let wasm = env::var("DEP_FILESTORE_COMPONENT_WASM")
        .expect("filestore-component's build script names the component (links metadata)");
    println!("cargo:rerun-if-changed={wasm}");
    println!("cargo:rerun-if-env-changed=FILESTORE_NO_PRECOMPILE");
    let (artifact, compat) = precompile(Path::new(&wasm));
    write_embedded(&artifact, &Path::new(&out_dir).join("filestore.cwasm.br"));
    println!("cargo:rustc-env=FILESTORE_PRECOMPILED_COMPAT={compat}");
}

/// Compiles the component for this host with the engine settings of
/// `filestore_sandbox::new_engine` (component model, epoch interruption, no fuel,
/// copy-on-write memory images), from the component without its function names
/// (`runtime/function_names.rs` says why). Empty when cross-compiling, when
/// `FILESTORE_NO_PRECOMPILE` is set or when compilation fails: the engine then falls
/// back to its cache. With the key of the engine's compatibility hash, which the
/// runtime compares with its own engine's before decompressing the artifact.
fn precompile(wasm: &Path) -> (Vec<u8>, String) {
    let cross = env::var("TARGET").ok() != env::var("HOST").ok();
    if cross || env::var_os("FILESTORE_NO_PRECOMPILE").is_some() {
        return (Vec::new(), String::new());
    }
    let mut c = wasmtime::Config::new();
    c.wasm_component_model(true);
    c.epoch_interruption(true);
    c.consume_fuel(false);
    c.memory_init_cow(true);
    let component = std::fs::read(wasm).expect("reading the component");
    // Without function names: a start would deserialise one per function only for a
    // trap's backtrace, which the runtime names from the embedded component instead.
    let component = function_names::strip_function_names(&component)
        .expect("the component's sections are well-formed (wit-component wrote them)");
    let mut progress = build_support::Progress::open();
    progress.say("filestore: precompiling the component for this host (Cranelift)");
    let started = std::time::Instant::now();
    let compiled = wasmtime::Engine::new(&c).and_then(|e| {
        let key = format!("{:016x}", compat_key::compatibility_key(&e));
        Ok((e.precompile_component(&component)?, key))
    });
    match compiled {
        Ok(done) => {
            progress.say(&format!(
                "filestore: precompiled in {:.0} s",
                started.elapsed().as_secs_f64()
            ));
            done
        }
        Err(e) => {
            println!(
                "cargo:warning=precompiling the component failed ({e:#}); starts will compile it"
            );
            (Vec::new(), String::new())
        }
    }
}

/// `bytes` compressed into `dest`, with their length and SHA-256 for the engine
/// (`FILESTORE_PRECOMPILED_LEN`, `FILESTORE_PRECOMPILED_SHA256`): the cache file's
/// name and the check of its size.
fn write_embedded(bytes: &[u8], dest: &Path) {
    use sha2::{Digest, Sha256};
    build_support::write_brotli(bytes, dest);
    let digest: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=FILESTORE_PRECOMPILED_LEN={}", bytes.len());
    println!("cargo:rustc-env=FILESTORE_PRECOMPILED_SHA256={digest}");
}
