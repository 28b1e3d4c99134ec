//! MCP 2025-11-25 sessions any replica can take over (`serve --http --state`).
//!
//! A 2025-11-25 session lives in the process that answered its `initialize` (rmcp's
//! session manager): a load balancer sending its next request elsewhere, or that
//! process dying, used to end it (`404 Session not found`). With `--state`, each
//! session this server creates is recorded in the state store (rmcp's
//! [`SessionStore`]: the client's `initialize` parameters), with the conversation the
//! session serves and a digest of the identity that created it. A replica that gets a
//! request for a session it does not hold finds the record, checks the caller is that
//! identity ([`crate::http::pool`]: anyone else gets the 404 an unknown session gets),
//! makes a sandbox for it, bound to the recorded conversation, and replays the
//! `initialize` (rmcp's restore) with that conversation named in its `_meta`, so the
//! session continues on the same files, stored results and skills; no other
//! conversation is made for it (nothing counts against
//! `--max-conversations-per-identity`).
//!
//! Records are `sessions/<SHA-256 of the session id>.json` in the store (the id is a
//! credential of sorts: it is not written down). A `DELETE` removes the record;
//! records of sessions that simply stopped are swept with idle conversations, by
//! the time they were written.

use std::sync::{Arc, Mutex};

use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use filestore_store::conversation::StateStore;

/// Session ids asked for and found in no record, remembered (at most this many,
/// for [`ABSENT_FOR`]) so that a client repeating an id that does not exist (a
/// session deleted or expired, or made up) is answered without a store read each
/// time. Ids are random: one asked for before it exists is not a real client's.
const ABSENT_IDS: usize = 4096;
/// How long an id found in no record is answered as unknown without a read.
const ABSENT_FOR: std::time::Duration = std::time::Duration::from_secs(60);

/// The store's sessions (see the module docs).
pub struct StoredSessions {
    store: Arc<StateStore>,
    /// Record names found absent, and when (see [`ABSENT_IDS`]).
    absent: Mutex<lru::LruCache<String, std::time::Instant>>,
}

impl std::fmt::Debug for StoredSessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoredSessions")
    }
}

/// What a replica recorded of a session: who created it and the conversation it
/// serves. A request taking the session over carries it (a request extension, set
/// by [`crate::http::pool`]) so that the server made for it serves that conversation
/// from the start ([`crate::http::capture`]): no other is made for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The digest of the identity that created it
    /// ([`owner_digest`](crate::conversations::owner_digest)).
    pub owner: String,
    /// Its conversation, when the server keeps one.
    pub conversation: Option<String>,
}

/// The record name of session `id`.
fn record_name(id: &str) -> String {
    hex(&Sha256::digest(id.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl StoredSessions {
    /// Sessions recorded in `store`.
    pub fn new(store: Arc<StateStore>) -> StoredSessions {
        let absent = std::num::NonZeroUsize::new(ABSENT_IDS).expect("not zero");
        StoredSessions { store, absent: Mutex::new(lru::LruCache::new(absent)) }
    }

    /// Records which conversation session `id` serves and who created it, beside
    /// the `initialize` parameters rmcp stored (a record without them restores
    /// nothing).
    pub async fn bind(&self, id: &str, conversation: Option<String>, owner: String) {
        let fields = [
            ("conversation", conversation.map_or(Value::Null, Value::String)),
            ("owner", Value::String(owner)),
        ];
        if let Err(e) = self.merge(id, fields).await {
            eprintln!("filestore serve: recording a session for other replicas: {e}");
        }
    }

    /// Sets `fields` in session `id`'s record (a new one when it has none), keeping
    /// the others: rmcp writes the parameters, [`StoredSessions::bind`] the rest.
    async fn merge<const N: usize>(
        &self,
        id: &str,
        fields: [(&'static str, Value); N],
    ) -> Result<(), SessionStoreError> {
        let (store, name) = (self.store.clone(), record_name(id));
        tokio::task::spawn_blocking(move || {
            let mut record = store.record(&name)?.unwrap_or_else(|| json!({}));
            for (k, v) in fields {
                record[k] = v;
            }
            store.put_record(&name, &record)
        })
        .await??;
        Ok(())
    }

    /// The owner digest recorded for session `id`, when a replica recorded it whole.
    /// An id found in no record in the last [`ABSENT_FOR`] is not read again.
    pub async fn owner(&self, id: &str) -> Option<String> {
        self.recorded(id).await.map(|r| r.owner)
    }

    /// What a replica recorded of session `id` (see [`StoredSessions::owner`]).
    pub async fn recorded(&self, id: &str) -> Option<Recorded> {
        let name = record_name(id);
        {
            let mut absent = self.absent.lock().unwrap_or_else(|p| p.into_inner());
            match absent.get(&name).map(|t| t.elapsed() < ABSENT_FOR) {
                Some(true) => return None,
                Some(false) => {
                    absent.pop(&name);
                }
                None => {}
            }
        }
        let found = self.load_record(id).await.ok()?;
        let Some(record) = found else {
            let mut absent = self.absent.lock().unwrap_or_else(|p| p.into_inner());
            absent.put(name, std::time::Instant::now());
            return None;
        };
        record.get("initialize_params")?;
        let owner = record.get("owner")?.as_str()?.to_string();
        let conversation = record.get("conversation").and_then(Value::as_str).map(str::to_string);
        Some(Recorded { owner, conversation })
    }

    async fn load_record(&self, id: &str) -> Result<Option<Value>, SessionStoreError> {
        let (store, name) = (self.store.clone(), record_name(id));
        let read = tokio::task::spawn_blocking(move || store.record(&name)).await;
        Ok(read.map_err(|e| Box::new(e) as SessionStoreError)??)
    }
}

#[async_trait::async_trait]
impl SessionStore for StoredSessions {
    /// The session's `initialize` parameters, with its conversation in `_meta`
    /// (`filestore/conversation`), which the replayed `initialize` binds.
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let Some(record) = self.load_record(id).await? else { return Ok(None) };
        let Some(mut params) = record.get("initialize_params").cloned() else { return Ok(None) };
        if let Some(name) = record.get("conversation").and_then(Value::as_str) {
            if !params.get("_meta").is_some_and(Value::is_object) {
                params["_meta"] = json!({});
            }
            params["_meta"][super::conversations::META_KEY] = Value::String(name.to_string());
        }
        let state: SessionState = serde_json::from_value(json!({"initialize_params": params}))?;
        Ok(Some(state))
    }

    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let params = serde_json::to_value(&state.initialize_params)?;
        self.merge(id, [("initialize_params", params)]).await
    }

    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        let (store, name) = (self.store.clone(), record_name(id));
        tokio::task::spawn_blocking(move || store.remove_record(&name)).await??;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversations::owner_digest;

    #[tokio::test(flavor = "multi_thread")]
    async fn a_session_record_round_trips_with_its_conversation_and_owner() {
        let stored = StoredSessions::new(Arc::new(StateStore::memory()));
        assert!(stored.load("sid-1").await.unwrap().is_none());
        let params: rmcp::model::InitializeRequestParams = serde_json::from_value(json!({
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"}}))
        .unwrap();
        stored.store("sid-1", &SessionState::new(params)).await.unwrap();
        assert_eq!(stored.owner("sid-1").await, None, "no owner recorded yet");
        stored.bind("sid-1", Some("session-x".into()), owner_digest(Some("alice"))).await;
        assert_eq!(stored.owner("sid-1").await, Some(owner_digest(Some("alice"))));
        assert_ne!(owner_digest(Some("alice")), owner_digest(None));
        let back = stored.load("sid-1").await.unwrap().unwrap();
        let v = serde_json::to_value(&back.initialize_params).unwrap();
        assert_eq!(v["_meta"]["filestore/conversation"], "session-x", "{v}");
        assert_eq!(v["clientInfo"]["name"], "c");
        stored.delete("sid-1").await.unwrap();
        assert!(stored.load("sid-1").await.unwrap().is_none());
        assert_eq!(stored.owner("sid-1").await, None);
    }

    /// An id found in no record is answered as unknown without reading the store
    /// again for a while: a record written for it meanwhile (no real client names an
    /// id before it exists) is not looked for.
    #[tokio::test(flavor = "multi_thread")]
    async fn an_unknown_session_id_is_read_once() {
        let store = Arc::new(StateStore::memory());
        let stored = StoredSessions::new(store.clone());
        assert_eq!(stored.owner("made-up").await, None);
        let planted = json!({"initialize_params": {}, "owner": owner_digest(None)});
        store.put_record(&record_name("made-up"), &planted).unwrap();
        assert_eq!(stored.owner("made-up").await, None, "the store was read again");
        assert_eq!(StoredSessions::new(store).owner("made-up").await, Some(owner_digest(None)));
    }
}
