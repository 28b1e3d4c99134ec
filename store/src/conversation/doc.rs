//! The state document of one conversation.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The layout version of [`StateDoc`] this build writes.
pub const FORMAT: u32 = 1;
/// Largest state document read back, bytes: a document is small (skills, pending
/// approvals), and a bigger object is someone else's, not read into memory.
pub const MAX_DOC_BYTES: u64 = 4 * 1024 * 1024;

/// What a conversation is besides its files: everything a later request, on any
/// replica, needs to continue it. Stored as JSON; fields a newer build adds are
/// read as their defaults by this one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StateDoc {
    /// The layout version ([`FORMAT`]).
    pub format: u32,
    /// Bumped by one on every update: a writer that read version N only replaces
    /// N (see [`super::StateStore::update`]), so no update is lost.
    pub version: u64,
    /// When the conversation was created, Unix milliseconds.
    pub created_ms: u64,
    /// When it was last updated, Unix milliseconds (what expiry looks at).
    pub last_used_ms: u64,
    /// The skills activated so far, oldest first, each once.
    pub activated_skills: Vec<String>,
    /// The version of the conversation's tool catalog: bumped by one each time the
    /// skills it activated change (each such change alters the tools it is offered),
    /// so a client holding a tool list of an older version knows it is stale.
    pub catalog_version: u64,
    /// Calls parked for the user's approval, by call id.
    pub pending_approvals: BTreeMap<String, PendingApproval>,
    /// Follow-ups held for approval by a result's `requires_approval`, oldest first
    /// (see `filestore_guest::invoke::result_rules`).
    pub approval_gates: Vec<filestore_guest::invoke::ApprovalGate>,
    /// The whiteouts and bases of each copy-on-write mount whose upper layer the
    /// conversation keeps (`:cow` under `serve --state`), by mount point: here, not
    /// beside the upper layer's files, so that sessions on several replicas change
    /// them by compare-and-swap and merge (see [`super::cow`]).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cow: BTreeMap<String, filestore_guest::vfs::cow::state::CowState>,
}

/// A tool call waiting for an approval: enough to run it when the answer arrives,
/// on whichever replica it arrives.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PendingApproval {
    /// The tool called.
    pub tool: String,
    /// Its arguments, as the agent gave them.
    pub arguments: serde_json::Value,
    /// What the user is asked.
    pub message: String,
    /// When it was parked, Unix milliseconds.
    pub asked_ms: u64,
}

impl StateDoc {
    /// A new conversation's document at `now_ms` (version 0: its first write is 1).
    pub fn new(now_ms: u64) -> StateDoc {
        StateDoc { format: FORMAT, created_ms: now_ms, last_used_ms: now_ms, ..StateDoc::default() }
    }

    /// Applies one session's change of its approval gates: `removed` (spent or
    /// lifted there) go, `added` replace any gate of the same tool. A delta, not the
    /// session's whole list, so that two sessions changing gates at once lose
    /// neither's change.
    pub fn apply_gates(
        &mut self,
        added: &[filestore_guest::invoke::ApprovalGate],
        removed: &[filestore_guest::invoke::ApprovalGate],
    ) {
        self.approval_gates
            .retain(|g| !removed.contains(g) && !added.iter().any(|a| a.tool == g.tool));
        self.approval_gates.extend(added.iter().cloned());
    }

    /// Adds `skill` to the activated skills unless it is there; whether it was added
    /// (the catalog version moves with it).
    pub fn activate_skill(&mut self, skill: &str) -> bool {
        if self.activated_skills.iter().any(|s| s == skill) {
            return false;
        }
        self.activated_skills.push(skill.to_string());
        self.catalog_version += 1;
        true
    }

    /// Records the skills a session holds active, most recently read last: each moves
    /// to the end (skills only another session activated stay, before them), and the
    /// oldest beyond `cap` are dropped, as a session drops them. Bumps the catalog
    /// version when the list changed; whether it did.
    pub fn record_active(&mut self, active: &[String], cap: usize) -> bool {
        let before = self.activated_skills.clone();
        for path in active {
            self.activated_skills.retain(|p| p != path);
            self.activated_skills.push(path.clone());
        }
        let over = self.activated_skills.len().saturating_sub(cap);
        self.activated_skills.drain(..over);
        let changed = self.activated_skills != before;
        if changed {
            self.catalog_version += 1;
        }
        changed
    }
}
