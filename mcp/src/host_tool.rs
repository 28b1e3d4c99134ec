//! Tools the host answers itself, beside the component's (`filestore_snapshot`: the
//! conversation's snapshots are the store's, not the component's). A [`HostTool`]
//! has a name, a spec as the session's tools have (description, input schema,
//! annotations) and a call; the sandbox ([`crate::sandbox`]) lists, dispatches
//! and tells apart every one through this trait, so no layer above it names one.

use serde_json::Value;

use super::conversations::Bound;
use filestore_runtime::CallOutput;

/// What a host tool's call sees of its sandbox.
pub(crate) struct HostContext<'a> {
    /// The conversation the session serves (`serve --state`), if it keeps one.
    pub(crate) conversation: Option<&'a Bound>,
    /// The session's audit timeline (docs/audit.md).
    pub(crate) audit: Option<&'a filestore_runtime::audit::AuditLog>,
}

/// What a host tool's call did.
pub(crate) struct HostCall {
    /// Its result, as a session's call gives one.
    pub(crate) out: filestore_runtime::Result<CallOutput>,
    /// The session's state changed under it (a restore): the sandbox makes a new
    /// session over it.
    pub(crate) state_changed: bool,
}

/// A tool the host answers itself (see the module docs).
pub(crate) trait HostTool {
    /// Its name, as a client calls it.
    fn name(&self) -> &'static str;

    /// Its spec, listed after the session's own.
    fn spec(&self) -> Value;

    /// Whether a session serving `conversation` offers it.
    fn offered(&self, conversation: Option<&Bound>) -> bool;

    /// Runs one call with `args`.
    fn call(&self, context: HostContext<'_>, args: &Value) -> HostCall;
}
