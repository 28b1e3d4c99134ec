//! The imported `tool-host` interface as the guest's tool executor and connection
//! checker.

use serde_json::Value;

use super::filestore::component::tool_host as th;
use super::types::from_wit_error;
use crate::error::{Error as DomError, ErrorKind, Result as DomResult};
use crate::invoke::{self, ExternalCall};
use crate::tools::toolrefs::{ActionInfo, CallRef, ConnectionStatus};

/// The imported `tool-host` as the guest's executor and connection checker.
pub(super) struct WitToolHost;

impl invoke::ToolExecutor for WitToolHost {
    fn call(&self, c: &ExternalCall) -> DomResult<String> {
        let call = th::ToolCall {
            tool_name: c.tool_name.clone(),
            tool_type: c.tool_type.clone(),
            source: c.source.clone(),
            call_ref: c.call_ref.clone(),
            config: c.config.to_string(),
            arguments: c.arguments.to_string(),
            positional: Value::Array(c.positional.clone()).to_string(),
            statement: c.statement.clone(),
            path: c.path.clone(),
            context: th::CallContext {
                session_id: String::new(),
                tool_call_id: Some(c.tool_call_id.clone()),
                claims: c.claims.to_string(),
            },
        };
        th::call(&call).map_err(|e| {
            let d = from_wit_error(e, "");
            DomError::new(d.kind(), d.message().to_string())
        })
    }
}

impl crate::tools::toolrefs::ConnectionChecker for WitToolHost {
    fn check(&self, call_ref: &CallRef) -> DomResult<ConnectionStatus> {
        match th::check_connection(&call_ref.to_string()) {
            Ok(th::ConnectionStatus::Active(actions)) => actions
                .into_iter()
                .map(|a| action_info(call_ref, a))
                .collect::<DomResult<Vec<_>>>()
                .map(ConnectionStatus::Active),
            Ok(th::ConnectionStatus::Inactive(reason)) => Ok(ConnectionStatus::Inactive { reason }),
            Ok(th::ConnectionStatus::Missing) => Ok(ConnectionStatus::Missing),
            Err(e) => {
                let d = from_wit_error(e, "");
                Err(DomError::new(d.kind(), d.message().to_string()))
            }
        }
    }
}

/// One catalog entry from the host, checked: its action is a valid segment and its
/// schema and hints are JSON objects (a host's mistake is a `backend` error naming it).
fn action_info(call_ref: &CallRef, a: th::ProviderAction) -> DomResult<ActionInfo> {
    let bad = |what: String| {
        DomError::new(
            ErrorKind::Backend,
            format!("the host's catalog entry for {call_ref}: {what}"),
        )
    };
    if !crate::tools::toolrefs::is_valid_segment(&a.action) {
        return Err(bad(format!("action '{}' is not a valid call-ref segment", a.action)));
    }
    let object = |what: &str, text: &str| match serde_json::from_str::<Value>(text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        _ => Err(bad(format!("{what} of action '{}' is not a JSON object", a.action))),
    };
    let input_schema = object("the input schema", &a.input_schema)?;
    let annotations = match &a.annotations {
        None => None,
        Some(text) => Some(
            serde_json::from_value(object("the annotations", text)?)
                .map_err(|e| bad(format!("the annotations of action '{}': {e}", a.action)))?,
        ),
    };
    Ok(ActionInfo {
        action: a.action,
        title: a.title,
        description: Some(a.description),
        input_schema: Some(input_schema),
        annotations,
    })
}
