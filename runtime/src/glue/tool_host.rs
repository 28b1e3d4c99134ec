//! Host side of the WIT `tool-host` interface: external tool calls from the guest are
//! dispatched to the session's [`ToolHost`](crate::tools::ToolHost), in the host's own
//! types ([`crate::tools::ToolCall`], [`crate::tools::ConnectionStatus`]): the
//! generated records are converted here and go no further.

use crate::bindings::filestore::component::tool_host as wit;
use crate::bindings::filestore::component::types::Error;
use crate::state::HostState;
use crate::tools::{CallContext, ConnectionStatus, ProviderAction, ToolCall};

impl wit::Host for HostState {
    fn call(&mut self, call: wit::ToolCall) -> wasmtime::Result<Result<String, Error>> {
        let mut call = from_wit_call(call);
        // The session id is the host's to state: whatever the component sent is
        // replaced, so a guest cannot act as another session towards a handler.
        call.context.session_id = self.session_id.clone();
        // The session's cancel flag reaches the call: a cancelled MCP request stops
        // waiting for its tool instead of holding the session until the timeout.
        let cancel = crate::tools::Cancel::new(self.cancel.clone());
        Ok(self.tools.call_cancellable(call, &cancel).map_err(Error::from))
    }

    fn check_connection(
        &mut self,
        call_ref: String,
    ) -> wasmtime::Result<Result<wit::ConnectionStatus, Error>> {
        Ok(self.tools.check_connection(&call_ref).map(to_wit_status).map_err(Error::from))
    }
}

fn from_wit_call(c: wit::ToolCall) -> ToolCall {
    ToolCall {
        tool_name: c.tool_name,
        tool_type: c.tool_type,
        source: c.source,
        call_ref: c.call_ref,
        config: c.config,
        arguments: c.arguments,
        positional: c.positional,
        statement: c.statement,
        path: c.path,
        context: CallContext {
            session_id: c.context.session_id,
            tool_call_id: c.context.tool_call_id,
            claims: c.context.claims,
        },
    }
}

fn to_wit_status(s: ConnectionStatus) -> wit::ConnectionStatus {
    match s {
        ConnectionStatus::Active(actions) => {
            wit::ConnectionStatus::Active(actions.into_iter().map(to_wit_action).collect())
        }
        ConnectionStatus::Inactive(why) => wit::ConnectionStatus::Inactive(why),
        ConnectionStatus::Missing => wit::ConnectionStatus::Missing,
    }
}

fn to_wit_action(a: ProviderAction) -> wit::ProviderAction {
    wit::ProviderAction {
        action: a.action,
        title: a.title,
        description: a.description,
        input_schema: a.input_schema,
        annotations: a.annotations,
    }
}
