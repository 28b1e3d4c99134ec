//! The shared sandbox engine: one wasmtime `Engine`, the filestore component compiled
//! once (and cached on disk), and one `InstancePre` from which every session is
//! instantiated.
//!
//! Sessions come from a pooling allocator with copy-on-write memory images, so a new
//! session costs microseconds. An epoch ticker thread drives per-call deadlines.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};
use wasmtime::component::{Component, Linker};
use wasmtime::{Config, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::bindings::FilestoreComponentPre;
use crate::bindings::exports::filestore::component as exported;
use crate::error::{Error, Result};
use crate::state::HostState;

#[path = "../compat_key.rs"]
mod compat_key;

/// What a build embeds for an engine to load: the component and, when the build
/// could make one, the component precompiled for the build's host. The
/// `filestore-sandbox` crate embeds the filestore component's
/// (`filestore_sandbox::embedded()`); this crate depends on no component, so what builds
/// on it compiles while the component is built.
#[derive(Debug, Clone, Copy)]
pub struct Embedded {
    /// The component's bytes (decompressed on first use by the embedding crate).
    pub component: fn() -> &'static [u8],
    /// The component compiled for the build's host.
    pub precompiled: Option<Precompiled>,
}

/// A component compiled by the build for the host it was built on, with the default
/// engine settings (embedded compressed). An engine decompresses it once into its cache
/// directory and maps that file on later starts (a cold start in milliseconds, not
/// the seconds Cranelift takes) when its settings and this CPU match; otherwise the
/// disk cache of compiled components, then Cranelift. `FILESTORE_NO_PRECOMPILED` set
/// in the environment skips it.
#[derive(Debug, Clone, Copy)]
pub struct Precompiled {
    /// The artifact's bytes, decompressed from the binary (called only when its cache
    /// file is missing).
    pub bytes: fn() -> std::io::Result<Vec<u8>>,
    /// Its length.
    pub len: u64,
    /// The SHA-256 of the decompressed artifact, in hex: its cache file's name.
    pub sha256: &'static str,
    /// The build engine's compatibility key in hex (`compat_key.rs`, which the
    /// build script includes too): an engine whose key differs cannot load the
    /// artifact.
    pub compat: &'static str,
}

/// The WIT package the component implements (`filestore:component`, versioned in
/// each file's `package` line), as `(file name, text)`: what a host in any language
/// generates its bindings from. `filestore component --wit DIR` writes it.
pub static WIT_PACKAGE: &[(&str, &str)] = &[
    ("filestore.wit", include_str!("../../wit/filestore.wit")),
    ("tools.wit", include_str!("../../wit/tools.wit")),
    ("diagnostics.wit", include_str!("../../wit/diagnostics.wit")),
];

/// Epoch tick period: the granularity of call deadlines (defined with the clocks, whose
/// monotonic clock moves in the same steps).
pub use crate::clocks::EPOCH_TICK;
/// Default linear-memory cap per session. Bounds what one hostile or buggy call can
/// make the host allocate.
pub const DEFAULT_MEMORY_BYTES: usize = 256 * 1024 * 1024;
// The component must hold a tool result several times over (its text, its parse,
// the stored copy): the default result bound leaves it room.
const _: () = assert!(crate::tools::DEFAULT_MAX_RESULT_BYTES * 4 <= DEFAULT_MEMORY_BYTES as u64);
/// Default wall-clock deadline of one call: a pathological request is stopped
/// instead of holding a thread forever.
pub const DEFAULT_CALL_DEADLINE: Duration = Duration::from_secs(30);
/// Bytes of a freed session's dirty linear memory the pool resets in place rather
/// than returns to the kernel (when the kernel can list the dirty pages): what a
/// session's creation and a few calls touch (stack top, allocator, tables), with
/// room. An idle slot keeps at most this much resident.
pub const KEEP_RESIDENT_MEMORY_BYTES: usize = 256 * 1024;
/// The same for a freed session's tables (the component's function tables).
pub const KEEP_RESIDENT_TABLE_BYTES: usize = 64 * 1024;
/// Default cap of concurrently live sessions in the pooling allocator.
pub const DEFAULT_MAX_SESSIONS: u32 = 1000;

/// How to build an [`Engine`].
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Use the pooling allocator (fast instantiation). Off: on-demand allocation.
    pub pooling: bool,
    /// Most live sessions (pooling slots).
    pub max_sessions: u32,
    /// Linear-memory cap per session.
    pub memory_bytes: usize,
    /// Enable fuel metering (sessions may then set a fuel budget).
    pub fuel: bool,
    /// Where compiled components are cached; `None` disables the disk cache.
    pub cache_dir: Option<PathBuf>,
    /// The component bytes (default: the [`Embedded`] one the engine is loaded with).
    pub component: Option<Vec<u8>>,
    /// How much linear memory all live sessions may hold together, and all those of
    /// one identity ([`crate::memory_budget`]). Default: no bound beyond each
    /// session's `memory_bytes`; `serve` sets
    /// [`MemoryBudgetConfig::server_default`](crate::memory_budget::MemoryBudgetConfig::server_default).
    pub memory_budget: crate::memory_budget::MemoryBudgetConfig,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            pooling: true,
            max_sessions: DEFAULT_MAX_SESSIONS,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            fuel: false,
            cache_dir: default_cache_dir(),
            component: None,
            memory_budget: Default::default(),
        }
    }
}

/// `$FILESTORE_CACHE_DIR`, else `$XDG_CACHE_HOME/filestore`, else `~/.cache/filestore`.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("FILESTORE_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("filestore"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("filestore"))
}

/// Where each exported interface's functions are in the component, found once per
/// engine (see [`Engine::export_indices`]); each session loads its interfaces from it.
#[derive(Clone)]
pub(crate) struct ExportIndices {
    pub(crate) filestore: exported::filestore::GuestIndices,
    pub(crate) tools: exported::tools::GuestIndices,
    pub(crate) diagnostics: exported::diagnostics::GuestIndices,
}

/// The shared engine. Cheap to clone; share it across threads.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

struct Inner {
    engine: wasmtime::Engine,
    pre: FilestoreComponentPre<HostState>,
    exports: Arc<ExportIndices>,
    config: EngineConfig,
    /// Charged by every session's memory ([`crate::memory_budget`]).
    budget: Arc<crate::memory_budget::MemoryBudget>,
    stop: Arc<AtomicBool>,
    cache_hit: bool,
    precompiled: bool,
    cache_warning: Option<String>,
    /// Names for a trap's frames (the precompiled artifact has none of its own).
    frame_names: Arc<crate::trap_log::FrameNames>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Engine {
    /// An engine with `config`, for `config.component` or else `embedded`'s component
    /// (`filestore_sandbox::new_engine_with` passes the filestore component).
    pub fn load(config: EngineConfig, embedded: &Embedded) -> Result<Engine> {
        let mut wc = Config::new();
        // `FILESTORE_PERF_MAP=1`: the component's compiled functions are named in
        // /tmp/perf-<pid>.map, so `perf report` shows the guest's own symbols
        // (for profiling a call's share inside the component); off by default (a
        // file per process).
        if std::env::var_os("FILESTORE_PERF_MAP").is_some_and(|v| v == "1") {
            wc.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        wc.wasm_component_model(true);
        wc.epoch_interruption(true);
        wc.consume_fuel(config.fuel);
        wc.memory_init_cow(true);
        if config.pooling {
            let mut pool = PoolingAllocationConfig::new();
            let n = config.max_sessions.max(1);
            pool.total_component_instances(n);
            pool.total_core_instances(n.saturating_mul(8));
            pool.total_memories(n.saturating_mul(2));
            pool.total_tables(n.saturating_mul(4));
            pool.max_memory_size(config.memory_bytes);
            // A freed slot's dirty pages are reset in place (found with the
            // PAGEMAP_SCAN ioctl, Linux 6.7+) instead of dropped with `madvise`, so
            // the next session does not fault them in again: the whole session
            // went from ~34 to ~17 µs. Without the ioctl the
            // first bytes would be reset blindly, which was slower: keep the default.
            if PoolingAllocationConfig::is_pagemap_scan_available() {
                pool.pagemap_scan(wasmtime::Enabled::Yes);
                pool.linear_memory_keep_resident(KEEP_RESIDENT_MEMORY_BYTES);
                pool.table_keep_resident(KEEP_RESIDENT_TABLE_BYTES);
            }
            wc.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        }
        let engine = wasmtime::Engine::new(&wc).map_err(|e| Error::setup("engine", e))?;
        let precompiled = match &embedded.precompiled {
            Some(artifact)
                if config.component.is_none()
                    && std::env::var_os("FILESTORE_NO_PRECOMPILED").is_none() =>
            {
                load_precompiled(&engine, artifact, config.cache_dir.as_deref())
            }
            _ => None,
        };
        let from_build = precompiled.is_some();
        let (component, cache_hit, cache_warning) = match precompiled {
            Some((c, warning)) => (c, true, warning),
            None => {
                // The embedded component is compiled without its function names, as
                // the build's artifact is (crate::trap_log says why); an embedder's
                // own component keeps its names.
                let (bytes, names) = match &config.component {
                    Some(own) => (&own[..], Names::Keep),
                    None => ((embedded.component)(), Names::Strip),
                };
                load_component(&engine, bytes, names, config.cache_dir.as_deref())?
            }
        };
        let mut linker: Linker<HostState> = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker)
            .map_err(|e| Error::setup("linking WASI", e))?;
        crate::bindings::FilestoreComponent::add_to_linker::<
            HostState,
            wasmtime::component::HasSelf<HostState>,
        >(&mut linker, |s| s)
        .map_err(|e| Error::setup("linking filestore imports", e))?;
        let instance_pre = linker
            .instantiate_pre(&component)
            .map_err(|e| Error::setup("pre-instantiating the component", e))?;
        let exports = (|| -> wasmtime::Result<ExportIndices> {
            Ok(ExportIndices {
                filestore: exported::filestore::GuestIndices::new(&instance_pre)?,
                tools: exported::tools::GuestIndices::new(&instance_pre)?,
                diagnostics: exported::diagnostics::GuestIndices::new(&instance_pre)?,
            })
        })()
        .map_err(|e| Error::setup("component exports", e))?;
        let pre = FilestoreComponentPre::new(instance_pre)
            .map_err(|e| Error::setup("component exports", e))?;
        let stop = Arc::new(AtomicBool::new(false));
        spawn_ticker(engine.weak(), stop.clone());
        let budget = crate::memory_budget::MemoryBudget::new(config.memory_budget);
        let frame_names = Arc::new(crate::trap_log::FrameNames::new(
            config.component.is_none().then_some(embedded.component),
        ));
        Ok(Engine {
            inner: Arc::new(Inner {
                engine,
                pre,
                exports: Arc::new(exports),
                config,
                budget,
                stop,
                cache_hit,
                precompiled: from_build,
                cache_warning,
                frame_names,
            }),
        })
    }

    /// The wasmtime engine.
    pub fn wasmtime(&self) -> &wasmtime::Engine {
        &self.inner.engine
    }

    /// The pre-instantiated component.
    pub fn instance_pre(&self) -> &FilestoreComponentPre<HostState> {
        &self.inner.pre
    }

    /// Where each exported interface's functions are (sessions load them from it).
    pub(crate) fn export_indices(&self) -> &Arc<ExportIndices> {
        &self.inner.exports
    }

    /// Names for the frames of a trap's backtrace ([`crate::trap_log`]).
    pub(crate) fn frame_names(&self) -> &Arc<crate::trap_log::FrameNames> {
        &self.inner.frame_names
    }

    /// The configuration the engine was built with.
    pub fn config(&self) -> &EngineConfig {
        &self.inner.config
    }

    /// The memory budget every session of this engine charges: what is in use now,
    /// in all and per identity.
    pub fn memory_budget(&self) -> &Arc<crate::memory_budget::MemoryBudget> {
        &self.inner.budget
    }

    /// Whether the component was loaded without compiling it: from the build's
    /// precompiled artifact or from the disk cache.
    pub fn cache_hit(&self) -> bool {
        self.inner.cache_hit
    }

    /// Whether the component is the build's precompiled artifact (see
    /// [`Embedded::precompiled`]): no compilation at this start; the artifact was mapped
    /// from its cache file, or decompressed and written there.
    pub fn precompiled(&self) -> bool {
        self.inner.precompiled
    }

    /// Why the compiled component could not be stored in the cache directory, when it
    /// could not: every new engine then compiles it again (seconds), so a command-line
    /// front end should say so once. A library prints nothing itself.
    pub fn cache_warning(&self) -> Option<&str> {
        self.inner.cache_warning.as_deref()
    }
}

fn spawn_ticker(engine: wasmtime::EngineWeak, stop: Arc<AtomicBool>) {
    std::thread::Builder::new()
        .name("filestore-epoch".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(EPOCH_TICK);
                match engine.upgrade() {
                    Some(e) => e.increment_epoch(),
                    None => break,
                }
            }
        })
        .expect("spawning the epoch ticker");
}

/// Whether a compilation keeps the component's function names.
#[derive(Clone, Copy, PartialEq)]
enum Names {
    Keep,
    /// Stripped before compiling ([`crate::trap_log::without_function_names`]): only
    /// on a cache miss, so a start from the cache does not copy the component.
    Strip,
}

/// Compiles the component (`names` says with or without its function names), or
/// loads it from the disk cache.
///
/// The cache key is the SHA-256 of the component bytes, of `names` and of the
/// engine's compatibility hash (wasmtime version and configuration), so a new
/// component or a different configuration never loads a stale artifact. The artifact's own SHA-256
/// is stored beside it and checked before deserialising: a truncated or corrupt file
/// is recompiled and rewritten, never trusted.
fn load_component(
    engine: &wasmtime::Engine,
    bytes: &[u8],
    names: Names,
    cache: Option<&Path>,
) -> Result<(Component, bool, Option<String>)> {
    let compile = || {
        let source = match names {
            Names::Keep => bytes.into(),
            Names::Strip => crate::trap_log::without_function_names(bytes),
        };
        Component::new(engine, &source).map_err(|e| Error::setup("compiling the component", e))
    };
    let Some(dir) = cache else { return Ok((compile()?, false, None)) };
    let CacheFiles { artifact: art, checksum: sum } = CacheFiles::new(dir, engine, bytes, names);
    if let (Ok(data), Ok(want)) = (std::fs::read(&art), std::fs::read_to_string(&sum))
        && hex(&Sha256::digest(&data)) == want.trim()
        && let Ok(c) = deserialize(engine, &data)
    {
        return Ok((c, true, None));
    }
    let started = std::time::Instant::now();
    let component = compile()?;
    let took = started.elapsed();
    let mut warning = None;
    if let Ok(data) = component.serialize() {
        // A cache that cannot be written is not an error (the component works), but
        // it costs this compilation on every start: say so.
        let stored = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(&sum, hex(&Sha256::digest(&data))))
            .and_then(|_| store(dir, &art, &data));
        if let Err(e) = stored {
            warning = Some(format!(
                "cannot cache the compiled component in {} ({e}): every start compiles it again ({:.1} s here); set FILESTORE_CACHE_DIR to a writable directory",
                dir.display(),
                took.as_secs_f64()
            ));
        }
        prune_cache(dir, &art, KEEP_OTHER_ARTIFACTS);
    }
    Ok((component, false, warning))
}

/// Where the compiled-component cache in a directory keeps one compilation.
struct CacheFiles {
    /// The serialised compilation.
    artifact: PathBuf,
    /// The artifact's SHA-256, in hex.
    checksum: PathBuf,
}

impl CacheFiles {
    /// The files for `bytes` compiled by `engine` (see [`load_component`] on the key).
    fn new(dir: &Path, engine: &wasmtime::Engine, bytes: &[u8], names: Names) -> CacheFiles {
        let mut h = Sha256::new();
        h.update(bytes);
        if names == Names::Strip {
            h.update(b"without function names");
        }
        h.update(compat_key::compatibility_key(engine).to_le_bytes());
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        let key = hex(&h.finalize()[..16]);
        CacheFiles {
            artifact: dir.join(format!("filestore-{key}.cwasm")),
            checksum: dir.join(format!("filestore-{key}.sha256")),
        }
    }
}

/// The build's precompiled artifact for `engine`, with a warning when it could not be
/// kept in the cache directory: mapped from the cache file an earlier start wrote
/// (milliseconds), else decompressed and deserialised (a fraction of a second) and
/// written there for the next start. `None` when `engine`'s settings are not the
/// build's (fuel, say): the caller compiles.
///
/// The cache file is trusted as the compiled-component cache is (the user's own
/// directory, written by an atomic rename, so never seen half-written); its size is
/// checked and wasmtime checks its header, but it is not hashed on each start, which
/// would cost more than the mapping saves.
fn load_precompiled(
    engine: &wasmtime::Engine,
    artifact: &Precompiled,
    cache: Option<&Path>,
) -> Option<(Component, Option<String>)> {
    if format!("{:016x}", compat_key::compatibility_key(engine)) != artifact.compat {
        return None;
    }
    let len = artifact.len;
    let name = artifact.sha256.get(..32)?;
    let file = cache.map(|d| d.join(format!("filestore-{name}.cwasm")));
    if let Some(f) = &file
        && std::fs::metadata(f).is_ok_and(|m| m.len() == len)
        && let Ok(c) = deserialize_file(engine, f)
    {
        return Some((c, None));
    }
    let bytes = (artifact.bytes)().ok().filter(|b| b.len() as u64 == len)?;
    let component = deserialize(engine, &bytes).ok()?;
    let (Some(dir), Some(file)) = (cache, file) else { return Some((component, None)) };
    let warning = match std::fs::create_dir_all(dir).and_then(|_| store(dir, &file, &bytes)) {
        Ok(()) => {
            prune_cache(dir, &file, KEEP_OTHER_ARTIFACTS);
            None
        }
        Err(e) => Some(format!(
            "cannot keep the precompiled component in {} ({e}): every start decompresses it again; set FILESTORE_CACHE_DIR to a writable directory",
            dir.display()
        )),
    };
    Some((component, warning))
}

/// Writes `bytes` to `dest` in `dir` through a temporary file and a rename, so a reader
/// sees the whole file or none (several processes may start at once).
fn store(dir: &Path, dest: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = dest.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, dest));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Compiled artifacts of other builds kept beside the current one (a few binaries of
/// different versions may share a machine; each artifact is ~10 MB, and without
/// pruning every upgrade would leave one behind for good).
pub const KEEP_OTHER_ARTIFACTS: usize = 3;

/// Removes all but the `keep` most recently modified artifacts other than `current`
/// (with their checksums), and temporary files of writers that died over an hour
/// ago. Best effort: an artifact removed under another process only costs it a
/// recompile.
fn prune_cache(dir: &Path, current: &Path, keep: usize) {
    let Ok(read) = std::fs::read_dir(dir) else { return };
    let mut artifacts = Vec::new();
    for e in read.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let modified = e.metadata().and_then(|m| m.modified()).ok();
        if name.starts_with(".filestore-") && name.ends_with(".tmp") {
            if modified.and_then(|m| m.elapsed().ok()).is_some_and(|a| a.as_secs() > 3600) {
                let _ = std::fs::remove_file(&path);
            }
        } else if name.starts_with("filestore-") && name.ends_with(".cwasm") && path != current {
            artifacts.push((modified, path));
        }
    }
    artifacts.sort_by_key(|a| std::cmp::Reverse(a.0));
    for (_, path) in artifacts.into_iter().skip(keep) {
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(path.with_extension("sha256"));
    }
}

/// Deserialises a compiled component.
///
/// `unsafe` because wasmtime runs the machine code in the artifact as is. It is
/// sound here because the artifact is either the build's precompiled one (written by
/// this crate's build script and embedded in the binary: as trusted as the binary's
/// own code) or a cache file written by `load_component` with this engine
/// configuration whose SHA-256 has just been verified; wasmtime itself also checks the
/// engine compatibility header (version, settings, CPU features).
#[allow(unsafe_code)]
fn deserialize(engine: &wasmtime::Engine, data: &[u8]) -> wasmtime::Result<Component> {
    // SAFETY: see the function documentation.
    unsafe { Component::deserialize(engine, data) }
}

/// Deserialises the build's precompiled artifact from the file `load_precompiled`
/// wrote, mapped rather than read.
///
/// `unsafe` as [`deserialize`]; sound for the same reason (the file holds the bytes
/// the binary embeds, written whole by a rename, its size checked), and because the
/// file is never written in place while mapped: a new artifact replaces it by rename.
#[allow(unsafe_code)]
fn deserialize_file(engine: &wasmtime::Engine, path: &Path) -> wasmtime::Result<Component> {
    // SAFETY: see the function documentation.
    unsafe { Component::deserialize_file(engine, path) }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod cache_tests {
    use super::{CacheFiles, Names, load_component, prune_cache};
    use std::path::Path;
    use std::time::{Duration, SystemTime};

    // The cache's handling of its files does not depend on the component: these tests
    // run it on a small real component (one core module with one function), compiled by
    // a real engine in milliseconds. The embedded component goes through the same
    // function in tests/integration/limits.rs (a compilation of it takes a minute of
    // CPU in the test build, so it is done there once).

    /// A component holding one core module with one function.
    fn small_component() -> Vec<u8> {
        use wasm_encoder::{CodeSection, Function, FunctionSection, Module, ModuleSection};
        use wasm_encoder::{TypeSection, ValType};
        let mut types = TypeSection::new();
        types.ty().function([ValType::I32], [ValType::I32]);
        let mut functions = FunctionSection::new();
        functions.function(0);
        let mut body = Function::new([]);
        body.instructions().local_get(0).i32_const(1).i32_add().end();
        let mut code = CodeSection::new();
        code.function(&body);
        let mut module = Module::new();
        module.section(&types).section(&functions).section(&code);
        let mut component = wasm_encoder::Component::new();
        component.section(&ModuleSection(&module));
        component.finish()
    }

    fn engine(fuel: bool) -> wasmtime::Engine {
        let mut config = wasmtime::Config::new();
        config.wasm_component_model(true).consume_fuel(fuel);
        wasmtime::Engine::new(&config).unwrap()
    }

    /// Loads the small component through the cache in `dir`: whether it was a hit,
    /// and the warning.
    fn load(engine: &wasmtime::Engine, dir: &Path) -> (bool, Option<String>) {
        let (_, hit, warning) = load_component(engine, &small_component(), Names::Keep, Some(dir))
            .expect("a cache problem is never an error");
        (hit, warning)
    }

    /// The small component's files in `dir`, compiled by `engine`.
    fn files(engine: &wasmtime::Engine, dir: &Path) -> CacheFiles {
        CacheFiles::new(dir, engine, &small_component(), Names::Keep)
    }

    #[test]
    fn a_truncated_corrupt_or_unsummed_artifact_is_recompiled_and_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let (dir, e) = (dir.path(), engine(false));
        assert_eq!(load(&e, dir), (false, None), "an empty cache cannot hit");
        let CacheFiles { artifact: art, checksum } = files(&e, dir);
        let good = std::fs::read(&art).unwrap();
        assert_eq!(load(&e, dir), (true, None), "a sound artifact is reused");

        std::fs::write(&art, &good[..good.len() / 2]).unwrap();
        assert!(!load(&e, dir).0, "a truncated artifact must be recompiled");
        assert_eq!(std::fs::read(&art).unwrap(), good, "and rewritten");

        let mut flipped = good.clone();
        flipped[good.len() / 2] ^= 0x40;
        std::fs::write(&art, &flipped).unwrap();
        assert!(!load(&e, dir).0, "a corrupted artifact must be recompiled");
        assert_eq!(std::fs::read(&art).unwrap(), good, "and rewritten");
        assert!(load(&e, dir).0, "the rewritten artifact is sound");

        std::fs::remove_file(checksum).unwrap();
        assert!(!load(&e, dir).0, "an artifact without its checksum is not trusted");
        assert!(load(&e, dir).0, "and the checksum is written again");
    }

    /// A well-formed artifact with a matching checksum, but compiled for another engine
    /// configuration (fuel metering) and planted under this configuration's key, is
    /// recompiled: wasmtime's compatibility check refuses it.
    #[test]
    fn an_artifact_of_another_configuration_is_recompiled() {
        let (dir, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (dir, other, e, fuel) = (dir.path(), other.path(), engine(false), engine(true));
        load(&e, dir);
        let here = files(&e, dir);
        let good = std::fs::read(&here.artifact).unwrap();
        load(&fuel, other);
        let planted = files(&fuel, other);
        assert_ne!(std::fs::read(&planted.artifact).unwrap(), good, "fuel compiles other code");
        std::fs::copy(&planted.artifact, &here.artifact).unwrap();
        std::fs::copy(&planted.checksum, &here.checksum).unwrap();
        assert!(!load(&e, dir).0, "an artifact for another configuration must not load");
        assert_eq!(std::fs::read(&here.artifact).unwrap(), good, "and is replaced");
        assert!(load(&e, dir).0);
    }

    /// A cache directory that cannot be written still gives the component, with a
    /// warning naming the directory and the cost; a writable one gives none.
    #[test]
    fn an_unwritable_cache_is_a_warning_not_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("a-file");
        std::fs::write(&file, "not a directory").unwrap();
        let blocked = file.join("cache");
        let (hit, warning) = load(&engine(false), &blocked);
        let why = warning.expect("a warning for an unwritable cache");
        assert!(!hit);
        assert!(why.contains(&blocked.display().to_string()), "{why}");
        assert!(why.contains("FILESTORE_CACHE_DIR") && why.contains("compiles it again"), "{why}");
        assert_eq!(load(&engine(false), tmp.path()), (false, None));
        assert_eq!(load(&engine(false), tmp.path()), (true, None), "a cache hit warns of nothing");
    }

    #[test]
    fn old_artifacts_and_dead_temp_files_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str, age_secs: u64| {
            let p = dir.path().join(name);
            std::fs::write(&p, "x").unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            f.set_modified(SystemTime::now() - Duration::from_secs(age_secs)).unwrap();
            p
        };
        let current = at("filestore-cur.cwasm", 100_000);
        at("filestore-cur.sha256", 100_000);
        for (i, age) in [10u64, 20, 30, 40, 50].iter().enumerate() {
            at(&format!("filestore-old{i}.cwasm"), *age);
            at(&format!("filestore-old{i}.sha256"), *age);
        }
        at(".filestore-x.1.tmp", 7200);
        at(".filestore-y.2.tmp", 10);
        at("unrelated.txt", 1_000_000);
        prune_cache(dir.path(), &current, 3);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                ".filestore-y.2.tmp",
                "filestore-cur.cwasm",
                "filestore-cur.sha256",
                "filestore-old0.cwasm",
                "filestore-old0.sha256",
                "filestore-old1.cwasm",
                "filestore-old1.sha256",
                "filestore-old2.cwasm",
                "filestore-old2.sha256",
                "unrelated.txt",
            ]
        );
    }
}
