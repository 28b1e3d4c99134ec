//! Configured tools (docs/architecture.md#configured-tools): MCP Toolbox `tools.yaml`
//! configurations and what a tool declares, independent of any session.
//!
//! - [`agent`]: agent configurations (upstream servers, the tools an agent is
//!   offered), parsed with located errors;
//! - [`commands`]: a `redis` or `valkey` tool's commands with a call's values in
//!   place;
//! - [`config`]: loading v1/v2 YAML or JSON into a [`config::Config`] with located
//!   errors (its `yaml` module keeps source positions), and `migrate`;
//! - [`params`]: parameter declarations, per-call validation, escaping and statement
//!   templates;
//! - [`placeholders`]: which declared parameter each SQL bind placeholder binds;
//! - [`manifest`]: a tool's advertised spec (JSON Schema, annotations);
//! - [`schema`]: provider tools' arguments checked against their JSON Schema;
//! - [`toolrefs`]: agent tool references (`tools.{provider}.{integration}.{action}.{connection}`)
//!   and their resolution.
//!
//! May use: [`crate::vfs`] (limits) and [`crate::error`]. Calling a tool is
//! [`crate::invoke`]'s job; this folder only describes and checks tools.

pub mod agent;
pub mod commands;
pub mod config;
pub mod manifest;
pub mod params;
pub mod placeholders;
pub mod schema;
pub mod toolrefs;
