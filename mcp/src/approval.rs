//! The user's approval of a call of a tool that requires it (`requiresApproval`):
//! the form the user is asked (through the client's elicitation), how an answer
//! reads, and how long the user has to give it. Asked by the server
//! ([`crate::server`]) before a call parked in the sandbox runs.

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{ElicitationMode, Peer};
use serde_json::Value;

/// How long the user has to answer an approval request.
pub const APPROVAL_TIMEOUT: Duration = Duration::from_secs(600);

/// The approval id of a pending call's envelope (`{"pending": true, "approval_id"}`).
pub(crate) fn pending_approval(envelope: &Value) -> Option<String> {
    match (&envelope["pending"], &envelope["approval_id"]) {
        (Value::Bool(true), Value::String(id)) => Some(id.clone()),
        _ => None,
    }
}

/// What the user is asked about a call of `tool` with `args`.
fn approval_message(tool: &str, args: &Value) -> String {
    format!(
        "The agent wants to run '{tool}', which requires approval, with arguments:\n{}\nApprove?",
        serde_json::to_string_pretty(args).unwrap_or_else(|_| args.to_string())
    )
}

/// The form asking whether `tool` may run with `args`: one required boolean,
/// `approve`.
pub(crate) fn approval_form(tool: &str, args: &Value) -> Result<ElicitRequestParams, String> {
    let schema = ElicitationSchema::builder()
        .required_bool_with("approve", |b| b.description("Run this tool call now"))
        .build()
        .map_err(|e| format!("building the approval form: {e}"))?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: approval_message(tool, args),
        requested_schema: schema,
    })
}

/// The key of the approval form among an `input_required` result's requests.
pub(crate) const APPROVAL_INPUT: &str = "approve";

/// Whether the client's answer to the approval form (an `ElicitResult` under
/// [`APPROVAL_INPUT`]) approves; else why not.
pub(crate) fn approved(responses: Option<&rmcp::model::InputResponses>) -> Result<(), String> {
    let Some(answer) = responses.and_then(|r| r.get(APPROVAL_INPUT)) else {
        return Err(format!(
            "the retry carries no answer under inputResponses[\"{APPROVAL_INPUT}\"]"
        ));
    };
    match answer["action"].as_str() {
        Some("accept") if answer["content"]["approve"] == Value::Bool(true) => Ok(()),
        Some("accept") => Err("the user answered no".into()),
        Some("decline") => Err("the user declined".into()),
        Some("cancel") => Err("the user cancelled".into()),
        _ => Err(format!("the answer is not an elicitation result: {answer}")),
    }
}

/// Asks the user, through the client's form elicitation, whether `tool` may run
/// with `args`. `Ok` only for an accepted form with `approve: true`; otherwise why
/// not (declined, cancelled, timed out, or the client cannot ask).
pub(crate) async fn ask_approval(
    peer: &Peer<RoleServer>,
    tool: &str,
    args: &Value,
) -> Result<(), String> {
    if !peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
        return Err(
            "this MCP client cannot ask the user (it does not declare the elicitation capability)"
                .into(),
        );
    }
    let params = approval_form(tool, args)?;
    match peer.create_elicitation_with_timeout(params, Some(APPROVAL_TIMEOUT)).await {
        Ok(r) => match r.action {
            ElicitationAction::Accept
                if r.content.as_ref().and_then(|c| c.get("approve"))
                    == Some(&Value::Bool(true)) =>
            {
                Ok(())
            }
            ElicitationAction::Accept => Err("the user answered no".into()),
            ElicitationAction::Decline => Err("the user declined".into()),
            ElicitationAction::Cancel => Err("the user cancelled".into()),
            other => Err(format!("the client answered {other:?}")),
        },
        Err(e) => Err(format!("asking the user failed: {e}")),
    }
}
