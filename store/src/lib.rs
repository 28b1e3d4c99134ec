//! What filestore keeps between sessions, in volumes: snapshots of volumes
//! ([`snapshot`]: content-addressed blobs and trees, capture, restore, named records)
//! and the state store of conversations ([`conversation`]: their `/scratch`, stored
//! tool results and state document; snapshots, restores and forks of whole
//! conversations). Built on the volumes of `filestore-volumes`; knows nothing of MCP.

pub mod conversation;
pub mod snapshot;
