//! Per-session store data: the resource table holding volume handles, an empty WASI
//! context, memory limits and the tool host.

use std::sync::Arc;

use wasmtime::component::ResourceTable;
use wasmtime::{ResourceLimiter, StoreLimits};
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use crate::tools::ToolHost;

/// What a session's `Store` holds.
pub struct HostState {
    /// Guest-visible resources (volume handles).
    pub table: ResourceTable,
    /// WASI with no preopens, no environment, no arguments, no network and no
    /// stdio: the Rust standard library links against WASI, but the guest is granted
    /// nothing through it except coarse clocks (crate::clocks) and randomness.
    pub wasi: WasiCtx,
    /// Memory and instance caps.
    pub limits: StoreLimits,
    /// Executes external tool calls.
    pub tools: Arc<dyn ToolHost>,
    /// The session's id, put in the context of every external tool call.
    pub session_id: String,
    /// Set (by another thread) to interrupt the running call; checked at every epoch
    /// tick. See [`crate::Session::cancel_handle`].
    pub cancel: Arc<std::sync::atomic::AtomicBool>,
    /// When the running call's deadline passes (checked at every epoch tick the
    /// guest runs through; a guest waiting in `sleep` wakes to be checked, see the
    /// guest's `shell::stream::HEARTBEAT`).
    pub deadline_at: std::time::Instant,
    /// Where a running shell command's output goes (see [`crate::shell_output`]).
    pub output: Option<crate::shell_output::OutputSink>,
    /// Whether the last interruption was a cancellation (not the deadline).
    pub cancelled: bool,
    /// Virtual paths the running call changed through its volumes, collected for
    /// its audit record (`None`: the session keeps no audit, nothing is collected).
    pub touched: Option<Vec<String>>,
    /// Why the limiter refused a memory growth, if it did (explains the trap that
    /// follows).
    denied: Option<MemoryDenial>,
    /// Linear memory currently allocated.
    memory: usize,
    /// The session's share of its engine's memory budget, charged as memory grows and
    /// credited back when the store (and with it this state) is dropped.
    account: crate::memory_budget::MemoryAccount,
}

/// Why a memory growth was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryDenial {
    /// The session's own cap.
    Cap,
    /// A budget shared with other sessions ([`crate::memory_budget`]).
    Budget(crate::memory_budget::Refusal),
}

impl HostState {
    /// A state with an empty WASI context.
    pub fn new(limits: StoreLimits, tools: Arc<dyn ToolHost>, session_id: String) -> HostState {
        // Deliberately nothing inherited or preopened: isolation is the product. The
        // clocks are coarse (see crate::clocks).
        let wasi = WasiCtx::builder()
            .wall_clock(crate::clocks::CoarseWallClock)
            .monotonic_clock(crate::clocks::CoarseMonotonicClock::new())
            .build();
        HostState {
            table: ResourceTable::new(),
            wasi,
            limits,
            tools,
            session_id,
            cancel: Default::default(),
            deadline_at: std::time::Instant::now(),
            output: None,
            cancelled: false,
            touched: None,
            denied: None,
            memory: 0,
            account: crate::memory_budget::MemoryAccount::unbudgeted(),
        }
    }
}

impl HostState {
    /// Notes that the running call changed `rel` through the volume `handle`'s
    /// mount (see [`crate::audit::TouchPoint`]); at most a few more paths than a
    /// record lists are kept.
    pub(crate) fn touch(&mut self, point: Option<&crate::audit::TouchPoint>, rel: &str) {
        if let (Some(point), Some(list)) = (point, self.touched.as_mut())
            && list.len() <= crate::audit::MAX_PATHS
            && let Some(p) = point.virtual_path(rel)
        {
            list.push(p);
        }
    }

    /// Whether a memory growth was refused, by the cap or a budget.
    pub fn limits_hit(&self) -> bool {
        self.denied.is_some()
    }

    /// Why a memory growth was refused, if one was.
    pub fn memory_denial(&self) -> Option<&MemoryDenial> {
        self.denied.as_ref()
    }

    /// Charges the session's memory to `account` from now on (before the instance
    /// exists: its first memory is charged too).
    pub(crate) fn charge_to(&mut self, account: crate::memory_budget::MemoryAccount) {
        self.account = account;
    }

    /// Linear memory in use, bytes (as reported to the limiter).
    pub fn memory_in_use(&self) -> usize {
        self.memory
    }
}

impl WasiView for HostState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

impl ResourceLimiter for HostState {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if !self.limits.memory_growing(current, desired, maximum)? {
            self.denied = Some(MemoryDenial::Cap);
            return Ok(false);
        }
        // Then the budget shared with other sessions: refused the same way, so the
        // guest's allocation fails and the call ends with `limit-exceeded`.
        if let Err(refusal) = self.account.grow(desired.saturating_sub(current)) {
            self.denied = Some(MemoryDenial::Budget(refusal));
            return Ok(false);
        }
        self.memory = self.memory - self.memory.min(current) + desired;
        Ok(true)
    }
    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }
}
