//! Snapshots of a whole conversation (docs/snapshots.md): its `/scratch`, its stored
//! tool results and the skills and approval gates its document holds, under a name
//! in `conversations/<key>/snapshots/`; restored in place, or forked into a new
//! conversation. The objects ([`crate::snapshot::tree`]) are the store's, shared.
//! The audit timeline is not part of a snapshot: a restore does not take back what
//! was done.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{ConversationKey, StateError, StateErrorKind, StateStore};
use crate::snapshot::{RestoreStats, SnapshotRecord, Snapshots, restore_record};
use crate::volumes::Volume;

/// The names a conversation's volumes have in its snapshots.
const SCRATCH: &str = "scratch";
const TOOL_CALLS: &str = "tool_calls";

impl StateStore {
    fn snapshot_scope(&self, key: &ConversationKey) -> Snapshots<'_> {
        Snapshots::new(self.docs.root(), format!("/conversations/{key}/snapshots"))
    }

    /// Snapshots the conversation under `name`: its volumes and the skills and
    /// approval gates of its document. `already-exists` when it has one so named.
    pub fn snapshot(
        &self,
        key: &ConversationKey,
        name: &str,
    ) -> Result<SnapshotRecord, StateError> {
        let v = self.volumes(key)?;
        let doc = self.load(key)?.unwrap_or_default();
        let state = json!({
            "activated_skills": doc.activated_skills,
            "approval_gates": doc.approval_gates,
        });
        let volumes: [(&str, &dyn Volume); 2] =
            [(SCRATCH, v.scratch.as_ref()), (TOOL_CALLS, v.tool_calls.as_ref())];
        self.snapshot_scope(key).create(name, &volumes, Some(state)).map_err(|e| named(key, e))
    }

    /// The conversation's snapshots, oldest first.
    pub fn snapshots(&self, key: &ConversationKey) -> Result<Vec<SnapshotRecord>, StateError> {
        self.snapshot_scope(key).list().map_err(|e| named(key, e))
    }

    /// Removes the snapshot `name` of the conversation.
    pub fn delete_snapshot(&self, key: &ConversationKey, name: &str) -> Result<(), StateError> {
        self.snapshot_scope(key).delete(name).map_err(|e| named(key, e))
    }

    /// Puts the conversation back to its snapshot `name`: `/scratch` and
    /// `/tool_calls` hold exactly what they held, and its document the skills and
    /// approval gates it had (the tool catalog's version moves on, so clients list
    /// again). What changed in each volume.
    pub fn restore_snapshot(
        &self,
        key: &ConversationKey,
        name: &str,
    ) -> Result<BTreeMap<String, RestoreStats>, StateError> {
        let record = self.snapshot_scope(key).get(name).map_err(|e| named(key, e))?;
        let stats = self.restore_into(key, &record)?;
        Ok(stats)
    }

    /// Makes the new conversation `into` from the snapshot `name` of `key`: its
    /// files, results, skills and gates, and a copy of the snapshot's record (so
    /// it can be restored to the fork point). `already-exists` when `into` has a
    /// document or files already. The two conversations share no volume after.
    pub fn fork(
        &self,
        key: &ConversationKey,
        name: &str,
        into: &ConversationKey,
    ) -> Result<SnapshotRecord, StateError> {
        let record = self.snapshot_scope(key).get(name).map_err(|e| named(key, e))?;
        let target = self.volumes(into)?;
        let empty = |v: &dyn Volume| v.walk("/", 1).map_or(true, |w| w.entries.is_empty());
        if self.load(into)?.is_some()
            || !empty(target.scratch.as_ref())
            || !empty(target.tool_calls.as_ref())
        {
            return Err(StateError::new(
                StateErrorKind::Storage(crate::volumes::ErrorKind::AlreadyExists),
                format!("conversation {into} exists; fork into a new conversation"),
            ));
        }
        self.restore_into(into, &record)?;
        self.snapshot_scope(into).put_record(&record).map_err(|e| named(into, e))?;
        Ok(record)
    }

    fn restore_into(
        &self,
        key: &ConversationKey,
        record: &SnapshotRecord,
    ) -> Result<BTreeMap<String, RestoreStats>, StateError> {
        let v = self.volumes(key)?;
        let volumes: [(&str, &dyn Volume); 2] =
            [(SCRATCH, v.scratch.as_ref()), (TOOL_CALLS, v.tool_calls.as_ref())];
        let stats =
            restore_record(self.docs.root(), record, &volumes).map_err(|e| named(key, e))?;
        let state = record.state.clone().unwrap_or(Value::Null);
        let skills: Vec<String> =
            serde_json::from_value(state["activated_skills"].clone()).unwrap_or_default();
        let gates: Vec<filestore_guest::invoke::ApprovalGate> =
            serde_json::from_value(state["approval_gates"].clone()).unwrap_or_default();
        self.update(key, |doc| {
            if doc.activated_skills != skills {
                doc.activated_skills = skills.clone();
                doc.catalog_version += 1;
            }
            doc.approval_gates = gates.clone();
        })?;
        Ok(stats)
    }
}

/// A snapshot error of conversation `key` as a state error of the same kind.
fn named(key: &ConversationKey, e: crate::volumes::Error) -> StateError {
    StateError::new(StateErrorKind::Storage(e.kind()), format!("conversation {key}: {e}"))
}
