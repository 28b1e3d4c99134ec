//! Host side of the WIT `tool-host` interface: external tool calls from the guest are
//! dispatched to the session's [`ToolHost`](crate::tools::ToolHost).

use crate::bindings::filestore::component::tool_host::{self as wit, ConnectionStatus, ToolCall};
use crate::bindings::filestore::component::types::Error;
use crate::state::HostState;

impl wit::Host for HostState {
    fn call(&mut self, mut call: ToolCall) -> wasmtime::Result<Result<String, Error>> {
        // The session id is the host's to state: whatever the component sent is
        // replaced, so a guest cannot act as another session towards a handler.
        call.context.session_id = self.session_id.clone();
        // The session's cancel flag reaches the call: a cancelled MCP request stops
        // waiting for its tool instead of holding the session until the timeout.
        let cancel = crate::tools::Cancel::new(self.cancel.clone());
        Ok(self.tools.call_cancellable(call, &cancel))
    }

    fn check_connection(
        &mut self,
        call_ref: String,
    ) -> wasmtime::Result<Result<ConnectionStatus, Error>> {
        Ok(self.tools.check_connection(&call_ref))
    }
}
