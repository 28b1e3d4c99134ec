//! The memory budget of live sandboxes: how much linear memory all the sandboxes of
//! an engine may hold together, and all those of one identity (docs/security.md#memory).
//!
//! Each sandbox is capped on its own ([`crate::engine::DEFAULT_MEMORY_BYTES`]), but
//! a server holds hundreds of them; without a budget their caps add up to more than
//! the machine has. Every session's store charges its linear memory here as it grows
//! ([`crate::HostState`]'s `ResourceLimiter`, the one place memory growth is decided)
//! and is credited back when the store is dropped: a growth past the budget is
//! refused like a growth past the sandbox's own cap, and the call ends with
//! `limit-exceeded` naming the budget.
//!
//! Linear memory never shrinks, so what a sandbox grew to stays charged until it is
//! dropped: a server replaces a sandbox that grew past [`RECLAIM_ABOVE_BYTES`] once
//! its call is over (`mcp::server`), so an idle sandbox holds little.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The flag of `serve` setting the budget of all sandboxes together.
pub const TOTAL_FLAG: &str = "--sandbox-memory-mib";
/// The flag of `serve` setting the budget of one identity's sandboxes.
pub const PER_IDENTITY_FLAG: &str = "--sandbox-memory-per-identity-mib";

/// A server replaces a sandbox whose linear memory grew past this once its call is
/// over (a fresh instance with the same state), so an idle sandbox keeps at most this
/// much. A sandbox starts at a few MiB, and calls over ordinary files stay well
/// within it; one that read tens of MB (a large file, a large command output) grew
/// past it, and the replacement (microseconds for the instance, plus restoring its
/// skills) is small beside what that call did.
pub const RECLAIM_ABOVE_BYTES: usize = 32 << 20;

/// How large a budget is: bytes of all sandboxes together, and of one identity's.
/// `None`: no bound (each sandbox still has its own cap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryBudgetConfig {
    /// All live sandboxes of the engine together.
    pub total_bytes: Option<usize>,
    /// All live sandboxes of one identity ([`crate::SessionOptions::memory_identity`]);
    /// sandboxes without an identity count against the total only.
    pub per_identity_bytes: Option<usize>,
}

impl MemoryBudgetConfig {
    /// The default of a server (`serve`): the total is half the memory the process may
    /// use ([`machine_memory_bytes`]), the other half left to what the budget does not
    /// cover (the host's own buffers, in-memory volumes, the page cache, other
    /// processes); one identity gets a quarter of the total, so at least four callers
    /// can use their whole share at once. Neither is below one sandbox's cap
    /// (`sandbox_cap`): a single call can always grow to its own limit when the
    /// server is otherwise idle.
    pub fn server_default(sandbox_cap: usize) -> MemoryBudgetConfig {
        let total = (machine_memory_bytes() / 2).max(sandbox_cap);
        MemoryBudgetConfig {
            total_bytes: Some(total),
            per_identity_bytes: Some((total / 4).max(sandbox_cap)),
        }
    }
}

/// The memory this process may use: the cgroup's limit (`memory.max`, cgroup v2)
/// when there is one below the machine's memory (`MemTotal`), else that. On a system
/// without `/proc` (not Linux), 8 GiB.
pub fn machine_memory_bytes() -> usize {
    const FALLBACK: usize = 8 << 30;
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib.saturating_mul(1024))
    });
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok());
    match (total, cgroup) {
        (Some(t), Some(c)) => t.min(c),
        (Some(t), None) => t,
        (None, Some(c)) => c,
        (None, None) => FALLBACK,
    }
}

/// Why a growth was refused: which budget, its size and what was in use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// All sandboxes together.
    Total {
        /// The budget, bytes.
        budget: usize,
        /// In use by all sandboxes when the growth was asked for, bytes.
        in_use: usize,
    },
    /// One identity's sandboxes.
    Identity {
        /// The budget, bytes.
        budget: usize,
        /// In use by that identity's sandboxes, bytes.
        in_use: usize,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |b: usize| b >> 20;
        match self {
            Refusal::Total { budget, in_use } => write!(
                f,
                "the sandboxes of this server hold {} MiB of their memory budget of {} MiB ({TOTAL_FLAG}); try again when other calls are over",
                mib(*in_use),
                mib(*budget)
            ),
            Refusal::Identity { budget, in_use } => write!(
                f,
                "your sandboxes hold {} MiB of the memory budget of {} MiB per identity ({PER_IDENTITY_FLAG}); try again when your other calls are over",
                mib(*in_use),
                mib(*budget)
            ),
        }
    }
}

/// What is charged now.
#[derive(Default)]
struct Usage {
    total: usize,
    by_identity: HashMap<Arc<str>, usize>,
}

/// The budget all sessions of an engine charge (see the module docs).
pub struct MemoryBudget {
    config: MemoryBudgetConfig,
    usage: Mutex<Usage>,
}

impl MemoryBudget {
    /// A budget of `config`'s size, nothing charged.
    pub fn new(config: MemoryBudgetConfig) -> Arc<MemoryBudget> {
        Arc::new(MemoryBudget { config, usage: Mutex::default() })
    }

    /// Its size.
    pub fn config(&self) -> MemoryBudgetConfig {
        self.config
    }

    /// Bytes charged by all live sandboxes.
    pub fn in_use(&self) -> usize {
        self.lock().total
    }

    /// Bytes charged by the live sandboxes of `identity`.
    pub fn in_use_by(&self, identity: &str) -> usize {
        self.lock().by_identity.get(identity).copied().unwrap_or(0)
    }

    /// An account for one sandbox of `identity` (`None`: counted in the total only),
    /// nothing charged yet.
    pub fn account(self: &Arc<MemoryBudget>, identity: Option<&str>) -> MemoryAccount {
        MemoryAccount { budget: Some(self.clone()), identity: identity.map(Arc::from), charged: 0 }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Usage> {
        // The counts are updated in one step each: a panic elsewhere leaves them whole.
        self.usage.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn charge(&self, identity: Option<&Arc<str>>, bytes: usize) -> Result<(), Refusal> {
        let mut usage = self.lock();
        if let Some(budget) = self.config.total_bytes
            && usage.total.saturating_add(bytes) > budget
        {
            return Err(Refusal::Total { budget, in_use: usage.total });
        }
        if let Some(id) = identity {
            let mine = usage.by_identity.get(id).copied().unwrap_or(0);
            if let Some(budget) = self.config.per_identity_bytes
                && mine.saturating_add(bytes) > budget
            {
                return Err(Refusal::Identity { budget, in_use: mine });
            }
            usage.by_identity.insert(id.clone(), mine + bytes);
        }
        usage.total += bytes;
        Ok(())
    }

    fn credit(&self, identity: Option<&Arc<str>>, bytes: usize) {
        let mut usage = self.lock();
        usage.total = usage.total.saturating_sub(bytes);
        if let Some(id) = identity
            && let Some(mine) = usage.by_identity.get_mut(id)
        {
            *mine = mine.saturating_sub(bytes);
            if *mine == 0 {
                usage.by_identity.remove(id);
            }
        }
    }
}

/// One sandbox's share of a [`MemoryBudget`]: what it charged, credited back when it
/// is dropped (with the sandbox's store).
pub struct MemoryAccount {
    budget: Option<Arc<MemoryBudget>>,
    identity: Option<Arc<str>>,
    charged: usize,
}

impl MemoryAccount {
    /// An account charging no budget.
    pub fn unbudgeted() -> MemoryAccount {
        MemoryAccount { budget: None, identity: None, charged: 0 }
    }

    /// Charges `bytes` more, or refuses them (nothing charged) when a budget would be
    /// passed.
    pub fn grow(&mut self, bytes: usize) -> Result<(), Refusal> {
        if let Some(budget) = &self.budget {
            budget.charge(self.identity.as_ref(), bytes)?;
        }
        self.charged += bytes;
        Ok(())
    }

    /// Bytes charged by this account.
    pub fn charged(&self) -> usize {
        self.charged
    }
}

impl Drop for MemoryAccount {
    fn drop(&mut self) {
        if let Some(budget) = &self.budget {
            budget.credit(self.identity.as_ref(), self.charged);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: usize = 1 << 20;

    #[test]
    fn growth_past_the_total_is_refused_and_a_drop_gives_it_back() {
        let budget = MemoryBudget::new(MemoryBudgetConfig {
            total_bytes: Some(100 * MIB),
            per_identity_bytes: None,
        });
        let mut a = budget.account(None);
        let mut b = budget.account(Some("bob"));
        a.grow(60 * MIB).unwrap();
        assert_eq!(b.grow(50 * MIB), Err(Refusal::Total { budget: 100 * MIB, in_use: 60 * MIB }));
        assert_eq!((b.charged(), budget.in_use()), (0, 60 * MIB), "a refusal charges nothing");
        b.grow(40 * MIB).unwrap();
        drop(a);
        assert_eq!(budget.in_use(), 40 * MIB);
        b.grow(50 * MIB).unwrap();
        drop(b);
        assert_eq!((budget.in_use(), budget.in_use_by("bob")), (0, 0));
    }

    #[test]
    fn one_identity_is_held_to_its_share_others_are_not() {
        let budget = MemoryBudget::new(MemoryBudgetConfig {
            total_bytes: Some(1000 * MIB),
            per_identity_bytes: Some(100 * MIB),
        });
        let mut alice1 = budget.account(Some("alice"));
        let mut alice2 = budget.account(Some("alice"));
        let mut bob = budget.account(Some("bob"));
        let mut anonymous = budget.account(None);
        alice1.grow(70 * MIB).unwrap();
        let refused = alice2.grow(40 * MIB).unwrap_err();
        assert_eq!(refused, Refusal::Identity { budget: 100 * MIB, in_use: 70 * MIB });
        assert!(refused.to_string().contains(PER_IDENTITY_FLAG), "{refused}");
        bob.grow(90 * MIB).unwrap();
        anonymous.grow(500 * MIB).unwrap();
        assert_eq!(budget.in_use_by("alice"), 70 * MIB);
        drop(alice1);
        alice2.grow(100 * MIB).unwrap();
        assert_eq!(budget.in_use(), 690 * MIB);
    }

    #[test]
    fn refusals_name_their_flag_and_figures() {
        let total = Refusal::Total { budget: 512 * MIB, in_use: 500 * MIB };
        assert!(total.to_string().contains("500 MiB of their memory budget of 512 MiB"));
        assert!(total.to_string().contains(TOTAL_FLAG));
    }

    #[test]
    fn the_server_default_is_half_the_machine_and_a_quarter_of_that_per_identity() {
        let cap = 256 * MIB;
        let d = MemoryBudgetConfig::server_default(cap);
        let half = (machine_memory_bytes() / 2).max(cap);
        assert_eq!(d.total_bytes, Some(half));
        assert_eq!(d.per_identity_bytes, Some((half / 4).max(cap)));
        // Never below one sandbox's own cap.
        let huge = MemoryBudgetConfig::server_default(usize::MAX / 2);
        assert_eq!(huge.per_identity_bytes, Some(usize::MAX / 2));
    }
}
