//! The clocks the guest sees: coarse, so a command cannot time the host finely.
//!
//! The component imports `wasi:clocks` for the shell's timeouts (the interpreter's
//! deadline and its runtime's timers). What it reads is deliberately
//! blunt: the monotonic clock moves in steps of [`MONOTONIC_STEP`] (the epoch tick,
//! the granularity of call deadlines anyway) and starts at 0 for each session; the
//! wall clock moves in whole seconds. A fine clock is a measuring instrument for
//! timing side channels (cache probes, the duration of host operations); these
//! clocks tell a shell the date and how long a command ran, and no more.
//!
//! [`now_ms`] is the host's own clock, for the times its records keep.

use std::time::{Duration, Instant, SystemTime};

use wasmtime_wasi::{HostMonotonicClock, HostWallClock};

/// Epoch tick period: the granularity of call deadlines (the engine's ticker advances
/// the epoch once per tick).
pub const EPOCH_TICK: Duration = Duration::from_millis(10);
/// Resolution of the guest's monotonic clock.
pub const MONOTONIC_STEP: Duration = EPOCH_TICK;
/// Resolution of the guest's wall clock.
pub const WALL_STEP: Duration = Duration::from_secs(1);

/// The host's own wall clock, as its records keep it (conversation state documents,
/// audit records, snapshots): Unix milliseconds (0 before 1970).
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Whole seconds of Unix time.
pub struct CoarseWallClock;

impl HostWallClock for CoarseWallClock {
    fn resolution(&self) -> Duration {
        WALL_STEP
    }
    fn now(&self) -> Duration {
        let t = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
        Duration::from_secs(t.as_secs())
    }
}

/// Nanoseconds since the session began, in steps of [`MONOTONIC_STEP`].
pub struct CoarseMonotonicClock {
    start: Instant,
}

impl CoarseMonotonicClock {
    /// A clock at 0 now.
    pub fn new() -> CoarseMonotonicClock {
        CoarseMonotonicClock { start: Instant::now() }
    }
}

impl Default for CoarseMonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl HostMonotonicClock for CoarseMonotonicClock {
    fn resolution(&self) -> u64 {
        MONOTONIC_STEP.as_nanos() as u64
    }
    fn now(&self) -> u64 {
        let step = MONOTONIC_STEP.as_nanos();
        let n = self.start.elapsed().as_nanos();
        u64::try_from(n - n % step).unwrap_or(u64::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clocks_are_coarse() {
        let m = CoarseMonotonicClock::new();
        let step = MONOTONIC_STEP.as_nanos() as u64;
        for _ in 0..100 {
            assert_eq!(m.now() % step, 0);
        }
        assert_eq!(m.resolution(), step);
        assert_eq!(CoarseWallClock.now().subsec_nanos(), 0);
        assert!(CoarseWallClock.now().as_secs() > 1_700_000_000);
    }
}
