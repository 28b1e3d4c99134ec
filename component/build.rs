//! Builds the guest crate for `wasm32-wasip2` and hands the component to the host.
//!
//! Like wasmtime's `test-programs/artifacts`, this runs a nested `cargo build` of the
//! guest. It uses its own target directory (beside the outer one, so the build cache
//! survives) because the outer cargo holds the lock on the outer target directory.
//! A missing `wasm32-wasip2` target is installed with rustup, so `cargo run` and
//! `cargo test` work on a fresh checkout.
//!
//! This crate has no runtime dependency, so this script runs beside the host's
//! dependencies (cargo starts it once the crates most units depend on are built, since
//! it ranks ready units by their dependents: after about six minutes of a clean release
//! build); the sandbox's build script, which needs wasmtime, precompiles the result
//! (`DEP_FILESTORE_COMPONENT_WASM`).
//!
//! The nested build takes minutes and cargo shows a build script's output only when
//! it fails, so its progress goes to the terminal (`/dev/tty`) when there is one;
//! `FILESTORE_BUILD_QUIET=1` keeps it silent.

#[path = "build_support.rs"]
mod build_support;

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const TARGET: &str = "wasm32-wasip2";

fn main() {
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let root = manifest_dir.parent().expect("workspace root").to_path_buf();
    // `guest/vendor`: the patched crates the guest builds (the shell's interpreter),
    // whose changes alone left a stale component embedded.
    for p in ["guest/src", "guest/vendor", "guest/Cargo.toml", "wit", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=FILESTORE_GUEST_RUSTFLAGS");
    // Set per checkout by .cargo/config.toml: checkouts sharing a target directory
    // share this script's OUT_DIR, and the paths above name whichever checkout ran it
    // last. A different checkout changes this value, so the guest is rebuilt from its
    // own sources instead of a stale component being embedded.
    println!("cargo:rerun-if-env-changed=FILESTORE_WORKSPACE_ROOT");

    ensure_target();
    let target_dir = guest_target_dir(&out_dir, &root);
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        // The component is the guest built as a cdylib for wasm; natively the guest is
        // an rlib only (its Cargo.toml), so its native builds carry a hash in their
        // file names and two builds with different flags (the tests', the Python
        // wheel's in the same target directory) never overwrite each other's.
        .args(["rustc", "--release", "--lib", "-p", "filestore-guest", "--target", TARGET])
        .args(["--crate-type", "cdylib"])
        .arg("--target-dir")
        .arg(&target_dir);
    // The outer build's flags are for the host target, not for wasm.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_RUSTFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
    ] {
        cmd.env_remove(var);
    }
    // The workspace's release build-override (optimised build-script dependencies,
    // for the sandbox's precompilation) is not for the guest: its proc macros keep
    // cargo's defaults, which build faster.
    cmd.env("CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_OPT_LEVEL", "0")
        .env("CARGO_PROFILE_RELEASE_BUILD_OVERRIDE_CODEGEN_UNITS", "256");
    // DWARF would make the component five times larger (13 MB instead of under 3 MB)
    // and its compilation slower; the name section stays: the runtime names a trap's
    // frames from it (the compiled component goes without, runtime/function_names.rs).
    cmd.env("CARGO_PROFILE_RELEASE_DEBUG", "false").env("CARGO_PROFILE_RELEASE_STRIP", "debuginfo");
    // One link-time-optimised unit: the guest's dependencies are compiled to bitcode
    // only and machine code is generated once, for what the component reaches (10.9
    // CPU-minutes instead of 12.6, though its last step runs on one core), and inlining
    // across crates leaves 13,300 functions instead of 20,600 (before the inlining
    // threshold below). A start deserialises wasmtime's metadata for each function:
    // 1.2 ms instead of 1.7 ms of a one-shot `filestore call` (BENCHMARKS.md, the clean
    // release build and the shell).
    cmd.env("CARGO_PROFILE_RELEASE_LTO", "fat").env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1");
    // The component imports no randomness: getrandom (through jsonschema's ahash)
    // takes the guest's own deterministic source (guest/src/entropy.rs).
    //
    // LLVM inlines up to about twice its default size threshold (500 against 225 at
    // opt-level 3): 12,018 functions instead of 13,307, for 19.3 MB of code instead of
    // 16.3 MB. A one-shot `filestore call` (wasmtime's metadata per function, the
    // guest's cold first command) then takes 0.82–0.87 of the time (BENCHMARKS.md, the
    // shell); at 1,000 the component grows to 30 MB for no more.
    let mut flags =
        String::from("--cfg getrandom_backend=\"custom\" -C llvm-args=-inline-threshold=500");
    if let Ok(extra) = env::var("FILESTORE_GUEST_RUSTFLAGS") {
        flags = format!("{flags} {extra}");
    }
    cmd.env("RUSTFLAGS", flags);
    let mut progress = build_support::Progress::open();
    progress.say(&format!(
        "filestore: building the component (guest/ for {TARGET}); the first build takes \
         several minutes, later ones seconds"
    ));
    if let Some(tty) = progress.stderr() {
        cmd.stderr(tty).env("CARGO_TERM_PROGRESS_WHEN", "never");
    }
    let started = std::time::Instant::now();
    let status = cmd.status().expect("failed to run cargo for the guest");
    if !status.success() {
        panic!("building the filestore guest for {TARGET} failed (see the errors above)");
    }
    let wasm = target_dir.join(TARGET).join("release").join("filestore_guest.wasm");
    let bytes = std::fs::read(&wasm)
        .unwrap_or_else(|e| panic!("reading the component {}: {e}", wasm.display()));
    progress.say(&format!(
        "filestore: component built ({:.1} MB) in {:.0} s",
        bytes.len() as f64 / 1e6,
        started.elapsed().as_secs_f64()
    ));
    // The sandbox's build script precompiles it (DEP_FILESTORE_COMPONENT_WASM).
    let dest = out_dir.join("filestore.wasm");
    std::fs::write(&dest, &bytes).unwrap_or_else(|e| panic!("writing {}: {e}", dest.display()));
    println!("cargo:wasm={}", dest.display());
    // Compressed, as the binary embeds it: a start deserialises the precompiled
    // artifact and never needs the component itself (only a fallback compilation and
    // `filestore component` do), so it costs a quarter of its size.
    build_support::write_brotli(&bytes, &out_dir.join("filestore.wasm.br"));
    println!("cargo:rustc-env=FILESTORE_COMPONENT_LEN={}", bytes.len());
    version_env(&bytes, &root);
}

/// What `filestore --version` names besides the crate version: the
/// WIT package the component implements (the `package` line of wit/filestore.wit) and
/// the component itself (its crate version and the first 12 hex digits of the SHA-256
/// of the exact bytes embedded), so two binaries of one version but different
/// components are told apart.
fn version_env(component: &[u8], root: &Path) {
    use sha2::{Digest, Sha256};
    let wit = std::fs::read_to_string(root.join("wit/filestore.wit")).expect("wit/filestore.wit");
    let package = wit
        .lines()
        .find_map(|l| l.trim().strip_prefix("package ")?.strip_suffix(';'))
        .expect("wit/filestore.wit has a `package name@version;` line");
    let digest: String =
        Sha256::digest(component)[..6].iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=FILESTORE_WIT_PACKAGE={package}");
    println!("cargo:rustc-env=FILESTORE_COMPONENT_SHA256={digest}");
}

/// The outer target directory is the ancestor holding cargo's `CACHEDIR.TAG`; the guest
/// builds beside its profiles in `guest-wasm-{hash of the workspace path}`, so two
/// checkouts sharing one target directory never embed each other's component.
fn guest_target_dir(out_dir: &Path, root: &Path) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    root.hash(&mut h);
    let name = format!("guest-wasm-{:016x}", h.finish());
    out_dir
        .ancestors()
        .find(|a| a.join("CACHEDIR.TAG").exists())
        .map(|t| t.join(&name))
        .unwrap_or_else(|| out_dir.join(&name))
}

/// Installs the wasm target with rustup when the toolchain lacks it.
fn ensure_target() {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let sysroot = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let have =
        sysroot.map(|s| Path::new(&s).join("lib/rustlib").join(TARGET).exists()).unwrap_or(false);
    if !have {
        let ok = Command::new("rustup")
            .args(["target", "add", TARGET])
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            panic!("the {TARGET} target is missing; install it with `rustup target add {TARGET}`");
        }
    }
}
