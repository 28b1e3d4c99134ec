//! The agent-facing file operations (docs/architecture.md#operations): one module per
//! tool, each with its request type (the tool's parameters), its structured result and
//! the text rendered for a model.
//!
//! - [`ls`], [`read`], [`glob`], [`grep`], [`tree`]: the read side ([`tree_nodes`]:
//!   the tree as data, for the typed API; [`pdf`]: a PDF's text, page by page,
//!   [`pdf_render`] its pages drawn as PNG images);
//! - [`mutate`] (write, delete, move) and [`edit`]: the write side; [`diff`]: the
//!   changes of a copy-on-write mount;
//! - [`filetypes`]: grep's ripgrep-like `type` table;
//! - [`request`]: decoding JSON arguments into request types with errors that name the
//!   parameter; [`path_hint`]: what a relative path that was not found was read as;
//! - [`builtin`]: the shape of a tool spec and the schema pieces the built-in
//!   `filestore_*` tools share (the tools themselves are one list in
//!   `crate::invoke::builtins`).
//!
//! May use: [`crate::vfs`] and [`crate::error`]. Operations take a
//! [`crate::vfs::mounts::MountTable`] and [`crate::vfs::limits::Limits`], not a
//! session, so they know nothing of configured tools or skills.

use serde_json::Value;

pub mod builtin;
pub mod diff;
pub mod edit;
pub mod filetypes;
pub mod glob;
pub mod grep;
pub mod ls;
pub mod ls_json;
pub mod mutate;
pub mod path_hint;
pub mod pdf;
pub mod pdf_render;
pub mod read;
pub mod request;
pub mod tree;
pub mod tree_nodes;

/// The output of a tool call: the structured result and its text for an LLM.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// Structured result.
    pub json: Value,
    /// Rendered text.
    pub text: String,
}
