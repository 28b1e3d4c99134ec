//! Precompiles the component (built by `filestore-component`'s build script, which
//! hands over its path as `DEP_FILESTORE_COMPONENT_WASM`) for the host this crate is
//! built on, so a start deserialises machine code instead of running Cranelift
//! (milliseconds, not seconds). The artifact is embedded compressed: the engine
//! decompresses it once into its cache directory and maps it from there on later starts.
//! The component itself is embedded compressed too, with its digest for
//! `filestore --version` (done here, not in the component's build script, which has
//! no dependencies so that it starts first).

#[path = "../component/build_support.rs"]
mod build_support;
#[path = "compat_key.rs"]
mod compat_key;

use std::env;
use std::path::Path;

fn main() {
    let out_dir = env::var("OUT_DIR").expect("OUT_DIR");
    let wasm = env::var("DEP_FILESTORE_COMPONENT_WASM")
        .expect("filestore-component's build script names the component (links metadata)");
    println!("cargo:rerun-if-changed={wasm}");
    let wit_package = env::var("DEP_FILESTORE_COMPONENT_WIT_PACKAGE")
        .expect("filestore-component's build script names the WIT package (links metadata)");
    println!("cargo:rustc-env=FILESTORE_WIT_PACKAGE={wit_package}");
    println!("cargo:rerun-if-env-changed=FILESTORE_NO_PRECOMPILE");
    let component = std::fs::read(&wasm).expect("reading the component");
    // Compressed beside the precompilation, which takes longer.
    let out = Path::new(&out_dir);
    std::thread::scope(|s| {
        s.spawn(|| embed_component(&component, &out.join("filestore.wasm.br")));
        let (artifact, compat) = precompile(&component);
        write_embedded(&artifact, &out.join("filestore.cwasm.br"));
        println!("cargo:rustc-env=FILESTORE_PRECOMPILED_COMPAT={compat}");
    });
}

/// The component compressed into `dest`, as the binary embeds it: a start deserialises
/// the precompiled artifact and never needs the component itself (only a fallback
/// compilation and `filestore component` do), so it costs a quarter of its size. With
/// its length and, for `filestore --version`, the first 12 hex digits of the SHA-256
/// of its exact bytes, so two binaries of one version but different components are
/// told apart.
fn embed_component(bytes: &[u8], dest: &Path) {
    use sha2::{Digest, Sha256};
    write_brotli(bytes, dest);
    let digest: String = Sha256::digest(bytes)[..6].iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=FILESTORE_COMPONENT_LEN={}", bytes.len());
    println!("cargo:rustc-env=FILESTORE_COMPONENT_SHA256={digest}");
}

/// Compiles the component for this host with the engine settings of
/// `Engine::with_config`'s default (component model, epoch interruption, no fuel,
/// copy-on-write memory images). Empty when cross-compiling, when
/// `FILESTORE_NO_PRECOMPILE` is set or when compilation fails: the engine then falls
/// back to its cache. With the key of the engine's compatibility hash, which the
/// runtime compares with its own engine's before decompressing the artifact.
fn precompile(component: &[u8]) -> (Vec<u8>, String) {
    let cross = env::var("TARGET").ok() != env::var("HOST").ok();
    if cross || env::var_os("FILESTORE_NO_PRECOMPILE").is_some() {
        return (Vec::new(), String::new());
    }
    let mut c = wasmtime::Config::new();
    c.wasm_component_model(true);
    c.epoch_interruption(true);
    c.consume_fuel(false);
    c.memory_init_cow(true);
    let mut progress = build_support::Progress::open();
    progress.say("filestore: precompiling the component for this host (Cranelift)");
    let started = std::time::Instant::now();
    let compiled = wasmtime::Engine::new(&c).and_then(|e| {
        let key = format!("{:016x}", compat_key::compatibility_key(&e));
        Ok((e.precompile_component(component)?, key))
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
    write_brotli(bytes, dest);
    let digest: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=FILESTORE_PRECOMPILED_LEN={}", bytes.len());
    println!("cargo:rustc-env=FILESTORE_PRECOMPILED_SHA256={digest}");
}

/// `bytes` compressed with Brotli into `dest`, which the sandbox embeds (`include_bytes!`)
/// and decompresses with `filestore_component::decompress` when it needs them.
///
/// Brotli rather than deflate: on the precompiled component (59 MB of machine code)
/// quality 5 gives 19 MB where deflate gave 29 MB at its fast level and 22 MB at its
/// best (ten times slower), and it decodes at ~150 MB/s; the crate is in the binary
/// already (the PDF reader's fonts). Quality 5 takes ~3 s on that artifact; 9 saves a
/// further 8% for nine times the time.
fn write_brotli(bytes: &[u8], dest: &Path) {
    use std::io::Write;
    let mut packed = Vec::with_capacity(bytes.len() / 3);
    {
        let mut w =
            brotli::CompressorWriter::new(&mut packed, 1 << 16, BROTLI_QUALITY, BROTLI_WINDOW);
        w.write_all(bytes).expect("compressing in memory");
    }
    std::fs::write(dest, packed).unwrap_or_else(|e| panic!("writing {}: {e}", dest.display()));
}

/// Brotli's quality (0–11) for the embedded artifacts; see [`write_brotli`].
const BROTLI_QUALITY: u32 = 5;
/// Brotli's window, log2 bytes: its largest (16 MiB), which the decoder allocates once.
const BROTLI_WINDOW: u32 = 24;
