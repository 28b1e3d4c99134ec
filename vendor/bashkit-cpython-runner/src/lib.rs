//! bashkit's CPython runner without the shell: real CPython 3.14, compiled to
//! WebAssembly (`bashkit-cpython-wasm`), run over a filesystem the embedder serves.
//!
//! filestore: this is bashkit 0.20.2's `cpython` builtin (`src/builtins/cpython/`)
//! without the `Builtin` around it, so a host that runs one `python3` invocation
//! compiles these 3,000 lines and not the 240,000 of bashkit's interpreter; the
//! filesystem trait and error are the few items of bashkit's it used
//! ([`fs`]).
//!
//! Decisions (bashkit's `knowledge/runtimes/cpython-wasm.md`):
//! - Isolation comes from the wasm boundary, not from CPython. The guest can
//!   only reach what [`wasi`] hands it: the filesystem, captured stdio, a host
//!   RNG and clocks. No host filesystem, socket, process or thread API exists,
//!   and HTTP requests are refused ([`http`]).
//! - One process-wide engine and pre-linked module, created on first use (or
//!   by [`CPython::warm_up`]). Every call gets a fresh store and instance,
//!   mapped copy-on-write from the pre-initialized snapshot; nothing survives
//!   between calls or tenants.
//! - Guest work is metered with fuel and yields to the async runtime at a fixed
//!   interval; each poll re-checks the call deadline and the cancellation flag,
//!   so a busy loop cannot hold a worker thread past its deadline.
//! - Instances come from wasmtime's pooling allocator (512 slots per
//!   process): slots keep their memory mapped and are reset by discarding only
//!   the pages a call dirtied, instead of mmap/munmap per call. Calls beyond
//!   512 wait for a slot within their own deadline. If the pool cannot reserve
//!   its address space, instances are allocated on demand instead.
//! - Memory is capped by a store limiter; `memory.grow` past the cap fails and
//!   surfaces as `MemoryError` inside Python, not as a host error.

pub mod fs;
mod http;
mod wasi;

use std::future::Future;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;
use std::time::{Duration, Instant};

use wasmtime::{Engine, InstancePre, Linker, Store};

pub use async_trait::async_trait;
pub use fs::{DirEntry, Error, FileSystem, FileType, Metadata, Result};

use wasi::{GuestConfig, GuestState, ProcExit};

/// Default wall-clock budget of one call.
const DEFAULT_MAX_DURATION: Duration = Duration::from_secs(30);
/// Default memory cap for one call. The snapshot itself starts at ~40 MB of
/// linear memory (mostly untouched, mapped copy-on-write).
const DEFAULT_MAX_MEMORY: usize = 256 * 1024 * 1024;
/// CPython's own default recursion limit.
const DEFAULT_MAX_RECURSION: usize = 1000;
/// Default cap on captured stdout + stderr.
const DEFAULT_MAX_OUTPUT: usize = 16 * 1024 * 1024;
/// Default cap on HTTP requests per call.
const DEFAULT_MAX_HTTP_REQUESTS: usize = 100;
/// Guest instructions between cooperative yields (~1 ms on Pulley).
const YIELD_INTERVAL_FUEL: u64 = 100_000;
/// Wasm call-stack budget. CPython recurses in C for nested containers,
/// `repr`, the compiler and the parser; 512 KiB (wasmtime's default) overflows
/// before Python's own recursion limit triggers.
const MAX_WASM_STACK: usize = 4 * 1024 * 1024;

/// The limits every runtime of bashkit's shares (bashkit's `RuntimeLimits`).
#[derive(Debug, Clone)]
pub struct RuntimeLimits {
    /// Maximum execution time for one invocation.
    pub max_duration: Duration,
    /// Maximum guest memory in bytes.
    pub max_memory: usize,
    /// Python's recursion limit.
    pub max_call_depth: usize,
}

/// Resource limits for the CPython builtin.
///
/// Defaults: 30 s per call, 256 MB guest memory, recursion limit 1000, 16 MB
/// of captured output. A tighter request deadline always wins over
/// `max_duration`.
#[derive(Debug, Clone)]
pub struct CPythonLimits {
    /// Wall clock, guest memory, Python recursion limit.
    pub common: RuntimeLimits,
    /// Maximum captured stdout + stderr bytes; output past this is dropped
    /// and the result is marked truncated.
    pub max_output: usize,
    /// Maximum HTTP requests one call may make (each redirect hop counts).
    pub max_http_requests: usize,
}

impl Default for CPythonLimits {
    fn default() -> Self {
        Self {
            common: RuntimeLimits {
                max_duration: DEFAULT_MAX_DURATION,
                max_memory: DEFAULT_MAX_MEMORY,
                max_call_depth: DEFAULT_MAX_RECURSION,
            },
            max_output: DEFAULT_MAX_OUTPUT,
            max_http_requests: DEFAULT_MAX_HTTP_REQUESTS,
        }
    }
}

impl CPythonLimits {
    /// Set max wall-clock duration per call.
    #[must_use]
    pub fn max_duration(mut self, d: Duration) -> Self {
        self.common.max_duration = d;
        self
    }

    /// Set max guest memory in bytes (at most 1 GiB is honored). Values below
    /// the snapshot's initial memory (~40 MB) make every call fail to start.
    #[must_use]
    pub fn max_memory(mut self, bytes: usize) -> Self {
        self.common.max_memory = bytes;
        self
    }

    /// Set Python's recursion limit (`sys.setrecursionlimit`).
    #[must_use]
    pub fn max_recursion(mut self, depth: usize) -> Self {
        self.common.max_call_depth = depth;
        self
    }

    /// Set the captured output cap in bytes.
    #[must_use]
    pub fn max_output(mut self, bytes: usize) -> Self {
        self.max_output = bytes;
        self
    }

    /// Set the maximum number of HTTP requests per call.
    #[must_use]
    pub fn max_http_requests(mut self, n: usize) -> Self {
        self.max_http_requests = n;
        self
    }
}

/// Concurrent guest instances per process (pooled allocator slots). Calls
/// beyond this wait for a free slot, bounded by their own deadline.
const POOL_SLOTS: u32 = 512;
/// Largest guest memory a pooled slot can hold; `max_memory` above this is
/// clamped. Must not exceed the engine's `memory_reservation` (1 GiB).
const POOL_MAX_MEMORY: usize = 1 << 30;
/// Snapshot pages kept mapped in a released slot. Reset cost then scales with
/// what a call dirtied, not with the snapshot size.
const POOL_KEEP_RESIDENT: usize = 64 << 20;

/// Process-wide compiled guest, shared by every `Bash` instance.
struct Runtime {
    engine: Engine,
    pre: InstancePre<GuestState>,
    /// Pooled slots; `None` when the pool could not be created and every
    /// instance is allocated on demand.
    slots: Option<tokio::sync::Semaphore>,
}

static RUNTIME: OnceLock<std::result::Result<Runtime, String>> = OnceLock::new();

fn runtime() -> std::result::Result<&'static Runtime, &'static str> {
    RUNTIME
        .get_or_init(|| init_runtime().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(String::as_str)
}

fn init_runtime() -> wasmtime::Result<Runtime> {
    // Pooled slots first: instances reuse pre-mapped memory and stacks, and a
    // released slot is reset by discarding only the pages a call dirtied. On
    // demand allocation (mmap + munmap per call) serializes many concurrent
    // calls on the kernel's address-space lock. Fall back to it when the pool
    // cannot reserve its address space (e.g. a tight RLIMIT_AS).
    match Engine::new(&runtime_config(true)) {
        Ok(engine) => link(engine, Some(tokio::sync::Semaphore::new(POOL_SLOTS as usize))),
        Err(_) => link(Engine::new(&runtime_config(false))?, None),
    }
}

fn runtime_config(pooled: bool) -> wasmtime::Config {
    let mut config = bashkit_cpython_wasm::engine_config();
    // Runtime-only settings; they do not affect module compatibility.
    config.max_wasm_stack(MAX_WASM_STACK);
    config.async_stack_size(MAX_WASM_STACK + (1 << 20));
    if pooled {
        let mut pool = wasmtime::PoolingAllocationConfig::new();
        pool.total_core_instances(POOL_SLOTS)
            .total_memories(POOL_SLOTS)
            .total_tables(POOL_SLOTS)
            .total_stacks(POOL_SLOTS)
            .max_memory_size(POOL_MAX_MEMORY)
            .table_elements(1 << 16)
            .max_core_instance_size(1 << 20)
            .linear_memory_keep_resident(POOL_KEEP_RESIDENT)
            .pagemap_scan(wasmtime::Enabled::Auto);
        config.allocation_strategy(wasmtime::InstanceAllocationStrategy::Pooling(pool));
    }
    config
}

fn link(engine: Engine, slots: Option<tokio::sync::Semaphore>) -> wasmtime::Result<Runtime> {
    let module = bashkit_cpython_wasm::load_module(&engine)?;
    let mut linker = Linker::new(&engine);
    wasi::add_to_linker(&mut linker)?;
    http::add_to_linker(&mut linker)?;
    let pre = linker.instantiate_pre(&module)?;
    Ok(Runtime { engine, pre, slots })
}

/// CPython `python`/`python3` builtin.
pub struct CPython {
    limits: CPythonLimits,
}

impl CPython {
    /// Create the builtin with custom limits.
    pub fn with_limits(limits: CPythonLimits) -> Self {
        Self { limits }
    }

    /// Load the embedded interpreter now instead of on the first `python3`
    /// call. Idempotent and process-wide; returns the error text if the
    /// embedded module cannot be loaded.
    pub fn warm_up() -> std::result::Result<(), String> {
        runtime().map(|_| ()).map_err(str::to_string)
    }
}

impl Default for CPython {
    fn default() -> Self {
        Self::with_limits(CPythonLimits::default())
    }
}

/// Why a guest call stopped without returning.
enum Stop {
    Timeout,
    Cancelled,
}

/// What a run printed and how it ended.
#[derive(Debug, Clone, Default)]
pub struct Output {
    /// Bytes written to stdout (up to the output cap).
    pub stdout: Vec<u8>,
    /// Bytes written to stderr, and the runner's own messages (a timeout, a trap,
    /// truncated output).
    pub stderr: Vec<u8>,
    /// The exit status: the script's, 124 after the deadline, 1 after a trap.
    pub exit_code: i32,
}

/// filestore: one `python3` invocation run outside an interpreter, by a host
/// that serves the filesystem itself (argv without `argv[0]`, the exported
/// environment, the working directory, stdin and the wall-time budget).
#[derive(Debug, Clone)]
pub struct CPythonInvocation {
    /// Arguments after `python3`.
    pub args: Vec<String>,
    /// Exported variables (`PWD` and `__BASHKIT_*` are replaced).
    pub env: Vec<(String, String)>,
    /// Working directory (becomes `PWD`).
    pub cwd: String,
    /// Bytes on stdin.
    pub stdin: Vec<u8>,
    /// Wall time for the call (capped by the limits' `max_duration`).
    pub timeout: Duration,
}

impl CPython {
    /// filestore: runs one invocation over `fs` without a shell: a host that
    /// answers the filesystem for a shell elsewhere (another WebAssembly
    /// instance) uses this. `cancelled` ends the run early with
    /// [`Error::Cancelled`].
    pub async fn run(
        &self,
        fs: Arc<dyn FileSystem>,
        invocation: CPythonInvocation,
        cancelled: Arc<AtomicBool>,
    ) -> Result<Output> {
        let rt = match runtime() {
            Ok(rt) => rt,
            Err(e) => {
                return Ok(Output {
                    stderr: format!("python3: embedded interpreter unavailable: {e}\n")
                        .into_bytes(),
                    exit_code: 1,
                    ..Output::default()
                });
            }
        };
        let limits = &self.limits.common;
        let timeout = limits.max_duration.min(invocation.timeout);
        let stdin = invocation.stdin;
        let mut env: Vec<(String, String)> = invocation
            .env
            .into_iter()
            .filter(|(k, _)| k.as_str() != "PWD" && !k.starts_with("__BASHKIT_"))
            .collect();
        env.sort();
        env.push(("PWD".to_string(), invocation.cwd));
        env.push(("__BASHKIT_RECURSION_LIMIT".to_string(), limits.max_call_depth.to_string()));

        let mut args = Vec::with_capacity(invocation.args.len() + 1);
        args.push("python3".to_string());
        args.extend(invocation.args);

        let deadline = Instant::now() + timeout;
        let state = GuestState::new(
            fs,
            GuestConfig {
                args,
                env,
                stdin,
                output_cap: self.limits.max_output,
                max_memory: if rt.slots.is_some() {
                    limits.max_memory.min(POOL_MAX_MEMORY)
                } else {
                    limits.max_memory
                },
                stdlib_path: bashkit_cpython_wasm::STDLIB_ZIP_PATH,
                stdlib: bashkit_cpython_wasm::STDLIB_ZIP,
                deadline,
                http: http::HttpState::new(self.limits.max_http_requests),
            },
        );

        // Hold a pooled slot until the store (and its instance) is dropped;
        // waiting for one counts against the deadline.
        let _slot = match &rt.slots {
            Some(slots) => match guarded(slots.acquire(), deadline, &cancelled).await {
                Ok(Ok(permit)) => Some(permit),
                // The semaphore is never closed.
                Ok(Err(_)) => None,
                Err(Stop::Timeout) => {
                    return Ok(Output {
                        stderr: timeout_message(timeout).into_bytes(),
                        exit_code: 124,
                        ..Output::default()
                    });
                }
                Err(Stop::Cancelled) => return Err(Error::Cancelled),
            },
            None => None,
        };
        let mut store = Store::new(&rt.engine, state);
        store.limiter(|s| &mut s.limits);
        let setup = store
            .set_fuel(u64::MAX)
            .and_then(|()| store.fuel_async_yield_interval(Some(YIELD_INTERVAL_FUEL)));
        if let Err(e) = setup {
            return Ok(Output {
                stderr: format!("python3: {e}\n").into_bytes(),
                exit_code: 1,
                ..Output::default()
            });
        }

        let outcome = guarded(
            async {
                let instance = rt.pre.instantiate_async(&mut store).await?;
                let run = instance.get_typed_func::<(), i32>(&mut store, "bashkit_run")?;
                run.call_async(&mut store, ()).await
            },
            deadline,
            &cancelled,
        )
        .await;

        // Files a script wrote but never closed persist, as they would after a
        // real process exits or is killed.
        store.data_mut().flush_all().await;
        let state = store.into_data();

        let mut stderr = state.output.stderr;
        let exit_code = match outcome {
            Ok(Ok(code)) => code,
            Ok(Err(e)) => {
                if let Some(exit) = e.downcast_ref::<ProcExit>() {
                    exit.0
                } else {
                    stderr.extend_from_slice(trap_message(&e).as_bytes());
                    1
                }
            }
            Err(Stop::Timeout) => {
                stderr.extend_from_slice(timeout_message(timeout).as_bytes());
                124
            }
            Err(Stop::Cancelled) => return Err(Error::Cancelled),
        };
        let exit_code = if state.flush_error.is_some() {
            stderr.extend_from_slice(b"python3: failed to write back open files\n");
            if exit_code == 0 { 1 } else { exit_code }
        } else {
            exit_code
        };

        if state.output.truncated {
            stderr.extend_from_slice(
                format!("python3: output truncated at {} bytes\n", self.limits.max_output)
                    .as_bytes(),
            );
        }
        Ok(Output { stdout: state.output.stdout, stderr, exit_code })
    }
}

fn timeout_message(timeout: Duration) -> String {
    format!("python3: execution timed out after {:.1}s\n", timeout.as_secs_f64())
}

/// Poll `fut`, stopping at the deadline or when `cancelled` is set.
/// Fuel yields guarantee the guest returns to this poll regularly.
async fn guarded<F: Future>(
    fut: F,
    deadline: Instant,
    cancelled: &AtomicBool,
) -> std::result::Result<F::Output, Stop> {
    let mut fut = std::pin::pin!(fut);
    std::future::poll_fn(|cx| {
        if Instant::now() >= deadline {
            return Poll::Ready(Err(Stop::Timeout));
        }
        if cancelled.load(Ordering::Relaxed) {
            return Poll::Ready(Err(Stop::Cancelled));
        }
        fut.as_mut().poll(cx).map(Ok)
    })
    .await
}

/// Describe a guest trap without leaking internal shapes (TM-INF-022).
fn trap_message(e: &wasmtime::Error) -> String {
    match e.downcast_ref::<wasmtime::Trap>() {
        Some(wasmtime::Trap::StackOverflow) => {
            "python3: fatal error: stack overflow in the interpreter\n".to_string()
        }
        Some(wasmtime::Trap::OutOfFuel) => "python3: fatal error: out of fuel\n".to_string(),
        Some(wasmtime::Trap::UnreachableCodeReached) => {
            "python3: fatal error: interpreter aborted\n".to_string()
        }
        Some(trap) => format!("python3: fatal error: {trap}\n"),
        None => {
            let mut msg = e.to_string();
            msg.truncate(msg.floor_char_boundary(512));
            format!("python3: fatal error: {msg}\n")
        }
    }
}

#[cfg(test)]
mod tests;
