//! What runs the tools a filestore session's registry names: the tool handlers the
//! `filestore` binary ships, one module per source kind ([`handlers`]: SQLite,
//! PostgreSQL and MySQL families, HTTP), the providers of agent tool refs
//! ([`providers`]: upstream MCP servers) and agent configurations ([`agent`]: read,
//! checked by the component, their providers built and loaded into sessions). The
//! traits they implement and the registry they join are the sandbox's
//! (`filestore_runtime::tools`); nothing here serves MCP.

pub mod agent;
pub mod handlers;
pub mod providers;
