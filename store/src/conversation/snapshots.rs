//! Snapshots of a whole conversation (docs/snapshots.md): its `/scratch`, its stored
//! tool results, the upper layers of its copy-on-write mounts (files, whiteouts and
//! bases; [`super::cow`]) and the skills and approval gates its document holds, under a name
//! in `conversations/<key>/snapshots/`; restored in place, or forked into a new
//! conversation. The objects ([`crate::snapshot::tree`]) are the store's, shared.
//! The audit timeline is not part of a snapshot: a restore does not take back what
//! was done. Nor are approval gates the agent's to take back: they are the operator's
//! pending decisions, so a restore keeps every gate the conversation has, and a fork
//! starts with the gates of its snapshot and of its source as it is now.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{ConversationKey, StateError, StateErrorKind, StateStore};
use crate::snapshot::capture::Index;
use crate::snapshot::tree::Objects;
use crate::snapshot::{RestoreStats, SnapshotRecord, Snapshots, restore_record};
use filestore_volumes::{SharedVolume, Volume};

/// The names a conversation's volumes have in its snapshots.
const SCRATCH: &str = "scratch";
const TOOL_CALLS: &str = "tool_calls";
/// Most snapshots one conversation keeps: an agent may take them (`filestore_snapshot`)
/// but not delete them, and each may hold up to a volume quota of new content.
pub const MAX_SNAPSHOTS: usize = 100;

/// A copy-on-write upper layer's name is this followed by its mount point.
const COW: &str = "cow:";

/// Named volumes as [`Snapshots::create`] and [`restore_record`] take them.
fn named_refs(owned: &[(String, SharedVolume)]) -> Vec<(&str, &dyn Volume)> {
    owned.iter().map(|(n, v)| (n.as_str(), v.as_ref() as &dyn Volume)).collect()
}

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
        let taken = self.snapshots(key)?.len();
        if taken >= MAX_SNAPSHOTS {
            return Err(StateError::new(
                StateErrorKind::Storage(filestore_volumes::ErrorKind::LimitExceeded),
                format!(
                    "conversation {} keeps {taken} snapshots, the most it may (each holds what changed since the one before, so they bound the store's growth); delete some from the host (filestore snapshot delete)",
                    key.described()
                ),
            ));
        }
        // A snapshot adds what changed since the last to the shared objects, charged
        // to the conversation's quota once taken: none is taken past the quota, and
        // they take turns, so that several at once do not each take the room left.
        let quota = self.quota(key);
        let taken = quota
            .after_the_fact(|| {
                let volumes = self.snapshot_volumes(key).map_err(as_volume_error)?;
                let doc = self.load(key).map_err(as_volume_error)?.unwrap_or_default();
                let state = json!({
                    "activated_skills": doc.activated_skills,
                    "approval_gates": doc.approval_gates,
                    "cow": doc.cow,
                });
                let record =
                    self.snapshot_scope(key).create(name, &named_refs(&volumes), Some(state))?;
                let added = record.stats.bytes_written;
                Ok((record, added))
            })
            .map_err(|e| named(key, e))?;
        taken.ok_or_else(|| {
            StateError::new(
                StateErrorKind::Storage(filestore_volumes::ErrorKind::LimitExceeded),
                format!(
                    "conversation {} keeps {} bytes, at or past its quota of {} (--conversation-quota-mib; snapshots count what they add): delete files to take another",
                    key.described(),
                    quota.used().unwrap_or(u64::MAX),
                    quota.limit()
                ),
            )
        })
    }

    /// The conversation's volumes under their snapshot names: `/scratch`,
    /// `/tool_calls`, and the files of each copy-on-write upper layer it keeps.
    fn snapshot_volumes(
        &self,
        key: &ConversationKey,
    ) -> Result<Vec<(String, SharedVolume)>, StateError> {
        let v = self.volumes(key)?;
        let mut out =
            vec![(SCRATCH.to_string(), v.scratch), (TOOL_CALLS.to_string(), v.tool_calls)];
        for point in self.cow_points(key)? {
            out.push((format!("{COW}{point}"), self.cow_files(key, &point)?));
        }
        Ok(out)
    }

    /// The conversation's snapshots, oldest first.
    pub fn snapshots(&self, key: &ConversationKey) -> Result<Vec<SnapshotRecord>, StateError> {
        self.snapshot_scope(key).list().map_err(|e| named(key, e))
    }

    /// Removes the snapshot objects no snapshot of any conversation in the store
    /// needs (see [`crate::snapshot::gc`]): unreachable and older than `grace`.
    /// Run it from one process or from several: removing twice is harmless.
    pub fn collect_snapshot_objects(
        &self,
        grace: std::time::Duration,
    ) -> Result<crate::snapshot::gc::GcStats, StateError> {
        let root = self.docs.root();
        let scopes: Vec<String> = match root.list("/conversations") {
            Ok(entries) => entries
                .iter()
                .filter(|e| e.is_dir())
                .map(|e| format!("/conversations/{}/snapshots", e.name()))
                .collect(),
            Err(e) if e.kind() == filestore_volumes::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(StateError::storage(e)),
        };
        crate::snapshot::gc::collect(root, &scopes, grace, super::now_ms())
            .map_err(StateError::storage)
    }

    /// Removes the snapshot `name` of the conversation.
    pub fn delete_snapshot(&self, key: &ConversationKey, name: &str) -> Result<(), StateError> {
        self.snapshot_scope(key).delete(name).map_err(|e| named(key, e))
    }

    /// Puts the conversation back to its snapshot `name`: `/scratch`,
    /// `/tool_calls` and its copy-on-write upper layers hold exactly what they held
    /// (an upper layer made since is emptied), and its document the skills it had
    /// (the tool catalog's version moves on, so clients list again). Its approval
    /// gates stay as they are: the agent may restore its snapshots, and a gate set
    /// since is a decision only the operator may lift. What changed in each volume.
    pub fn restore_snapshot(
        &self,
        key: &ConversationKey,
        name: &str,
    ) -> Result<BTreeMap<String, RestoreStats>, StateError> {
        let record = self.snapshot_scope(key).get(name).map_err(|e| named(key, e))?;
        self.restore_into(key, &record, Gates::Keep)
    }

    /// Makes the new conversation `into` from the snapshot `name` of `key`: its
    /// files, results and skills, the approval gates of the snapshot and those `key`
    /// has now (a fork is no way round a pending approval), and a copy of the
    /// snapshot's record (so
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
            || !self.cow_points(into)?.is_empty()
        {
            return Err(StateError::new(
                StateErrorKind::Storage(filestore_volumes::ErrorKind::AlreadyExists),
                format!("conversation {into} exists; fork into a new conversation"),
            ));
        }
        let mut gates = recorded_gates(&record);
        for g in self.load(key)?.map(|d| d.approval_gates).unwrap_or_default() {
            if !gates.contains(&g) {
                gates.push(g);
            }
        }
        self.restore_into(into, &record, Gates::Set(gates))?;
        self.snapshot_scope(into).put_record(&record).map_err(|e| named(into, e))?;
        Ok(record)
    }

    fn restore_into(
        &self,
        key: &ConversationKey,
        record: &SnapshotRecord,
        gates: Gates,
    ) -> Result<BTreeMap<String, RestoreStats>, StateError> {
        let v = self.volumes(key)?;
        let mut held: Vec<(String, SharedVolume)> =
            vec![(SCRATCH.to_string(), v.scratch), (TOOL_CALLS.to_string(), v.tool_calls)];
        let mut dropped = Vec::new();
        let points: Vec<String> =
            record.volumes.keys().filter_map(|n| n.strip_prefix(COW).map(str::to_string)).collect();
        for point in self.cow_points(key)? {
            if !points.contains(&point) {
                dropped.push((format!("{COW}{point}"), self.cow_files(key, &point)?));
            }
        }
        for point in &points {
            held.push((format!("{COW}{point}"), self.cow_files(key, point)?));
        }
        let mut stats = restore_record(self.docs.root(), record, &named_refs(&held))
            .map_err(|e| named(key, e))?;
        // Upper layers made after the snapshot: emptied, as a volume it did not hold.
        let objects = Objects::new(self.docs.root());
        for (vname, volume) in &dropped {
            let s = crate::snapshot::restore::restore(&objects, volume.as_ref(), &Index::default())
                .map_err(|e| named(key, e))?;
            stats.insert(vname.clone(), s);
        }
        let state = record.state.clone().unwrap_or(Value::Null);
        let skills: Vec<String> =
            serde_json::from_value(state["activated_skills"].clone()).unwrap_or_default();
        let cow: BTreeMap<String, filestore_guest::vfs::cow::state::CowState> =
            serde_json::from_value(state["cow"].clone()).unwrap_or_default();
        self.update(key, |doc| {
            if doc.activated_skills != skills {
                doc.activated_skills = skills.clone();
                doc.catalog_version += 1;
            }
            if let Gates::Set(gates) = &gates {
                doc.approval_gates = gates.clone();
            }
            // Sessions holding another state of a mount are made again before their
            // next call (see `super::cow::HeldCow`).
            doc.cow = cow.clone();
        })?;
        Ok(stats)
    }
}

/// What a restore does with the conversation's approval gates.
enum Gates {
    /// Leaves them as they are (a restore in place).
    Keep,
    /// Sets them (a new conversation's, made by a fork).
    Set(Vec<filestore_guest::invoke::ApprovalGate>),
}

/// The approval gates `record`'s conversation had when it was taken.
fn recorded_gates(record: &SnapshotRecord) -> Vec<filestore_guest::invoke::ApprovalGate> {
    record
        .state
        .as_ref()
        .and_then(|s| serde_json::from_value(s["approval_gates"].clone()).ok())
        .unwrap_or_default()
}

/// A state error as a volume error of the same kind (inside a quota's charge).
fn as_volume_error(e: StateError) -> filestore_volumes::Error {
    filestore_volumes::Error::new(e.kind.error_kind(), e.context)
}

/// A snapshot error of conversation `key` as a state error of the same kind.
/// `e` about the conversation `key`, named as its client names it.
fn named(key: &ConversationKey, e: filestore_volumes::Error) -> StateError {
    StateError::new(
        StateErrorKind::Storage(e.kind()),
        format!("conversation {}: {e}", key.described()),
    )
}
