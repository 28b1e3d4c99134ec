//! What a completed call's result must be and may ask for
//! (docs/skills.md#outputs-catalog-metadata-and-per-call-approval):
//!
//! - **outputs.** A configured tool's `outputSchema`, or a skill descriptor's
//!   `outputs`, is the JSON Schema of the result's data. A result that breaks it is a
//!   `backend` error naming where (the tool broke its contract, not the caller); the
//!   result is still stored, since the tool ran.
//! - **per-call approval.** A skill descriptor's `followUp` names a tool; when one of
//!   the skill's results says `requires_approval: true`, the next call of that tool
//!   waits for the host's approval, whatever the tool's own rule (the skill-executor
//!   guide's runtime flag: "approve only if the blast radius is large" belongs to the
//!   result, not to the static descriptor). The hold lasts until a call of the tool
//!   is approved (a rejected one leaves it: retrying does not get round it), or a
//!   new result of the skill says `false` (or nothing). The hold is an *approval gate* in the session's tool state, and a
//!   conversation keeps it in its state document (`approval-gates` /
//!   `restore-approval-gates`), so a follow-up reaching another replica still waits.
//!
//! The flag is read from the result's data: an object's `requires_approval` (or
//! `requiresApproval`), or, for a SQL tool's rows, that column of a single row;
//! `true` or `1` (SQL's booleans are integers) ask, anything else does not.

use serde_json::Value;

use super::Sandbox;
use crate::error::Result;

/// Most approval gates a session holds (one per follow-up tool; a skill re-asking for
/// the same tool replaces its gate).
pub const MAX_APPROVAL_GATES: usize = 100;

/// The rules a call's result is checked against, fixed when the call is prepared
/// (and kept with it while it waits for approval).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResultRules {
    /// JSON Schema the result's data must match.
    pub output_schema: Option<Value>,
    /// The tool whose next call a result's `requires_approval: true` holds.
    pub follow_up: Option<String>,
}

/// A held follow-up: the next call of `tool` waits for approval.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ApprovalGate {
    /// The tool held.
    pub tool: String,
    /// Which result asked for it (`the result of 'plan' (call c1)`).
    pub reason: String,
}

/// What applying the rules adds to a completed call's answer.
#[derive(Debug, Default)]
pub struct Applied {
    /// The follow-up now held, if the result asked for approval.
    pub held: Option<String>,
}

/// Checks `data`, the result of `tool`'s call `call_id`, against `rules`, and
/// holds or releases the follow-up. An output that breaks its schema is the error.
pub fn apply(
    session: &dyn Sandbox,
    rules: &ResultRules,
    tool: &str,
    call_id: &str,
    data: &Value,
) -> Result<Applied> {
    if let Some(schema) = &rules.output_schema {
        // Checked when the tool or descriptor was loaded, so this cannot fail on a
        // schema that loaded; said as the tool's fault if it somehow does. Compiled
        // once per tool and schema (the session's tool state keeps it).
        let compiled = session.tool_state().borrow_mut().output_schema(tool, schema);
        let compiled = compiled.map_err(|why| {
            crate::error::Error::new(
                crate::error::ErrorKind::Backend,
                format!("the output schema of '{tool}' cannot be used: {why}"),
            )
        })?;
        compiled.validate_output(tool, data)?;
    }
    let mut applied = Applied::default();
    let Some(follow_up) = &rules.follow_up else { return Ok(applied) };
    let mut st = session.tool_state().borrow_mut();
    st.gates.retain(|g| &g.tool != follow_up);
    if asks_for_approval(data) {
        if st.gates.len() >= MAX_APPROVAL_GATES {
            st.gates.remove(0);
        }
        st.gates.push(ApprovalGate {
            tool: follow_up.clone(),
            reason: format!("the result of '{tool}' (call {call_id})"),
        });
        applied.held = Some(follow_up.clone());
    }
    Ok(applied)
}

/// Whether a result's data says `requires_approval: true` (see the module docs).
pub fn asks_for_approval(data: &Value) -> bool {
    // `1` too: SQLite and MySQL have no boolean type, a comparison's column is 0 or 1.
    let flag = |o: &serde_json::Map<String, Value>| match o
        .get("requires_approval")
        .or_else(|| o.get("requiresApproval"))
    {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_u64() == Some(1),
        _ => false,
    };
    match data {
        Value::Object(o) => flag(o),
        Value::Array(rows) if rows.len() == 1 => rows[0].as_object().is_some_and(flag),
        _ => false,
    }
}

/// The gate holding `tool`, if any: its calls wait for approval until one is
/// approved ([`release_gate`]) or a new result of the skill lifts it. A rejected or
/// unanswered call leaves it: retrying must not get round the approval.
pub fn gate_for(session: &dyn Sandbox, tool: &str) -> Option<ApprovalGate> {
    session.tool_state().borrow().gates.iter().find(|g| g.tool == tool).cloned()
}

/// Spends the gate holding `tool`: an approved call of it is running.
pub fn release_gate(session: &dyn Sandbox, tool: &str) {
    session.tool_state().borrow_mut().gates.retain(|g| g.tool != tool);
}

/// The session's approval gates, oldest first: what a conversation's state keeps.
pub fn approval_gates(session: &dyn Sandbox) -> Vec<ApprovalGate> {
    session.tool_state().borrow().gates.clone()
}

/// Replaces the session's approval gates with `gates` (a conversation's recorded
/// ones), at most [`MAX_APPROVAL_GATES`] of the newest.
pub fn restore_approval_gates(session: &dyn Sandbox, gates: Vec<ApprovalGate>) {
    let over = gates.len().saturating_sub(MAX_APPROVAL_GATES);
    session.tool_state().borrow_mut().gates = gates.into_iter().skip(over).collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_flag_is_read_from_an_object_or_a_single_row() {
        assert!(asks_for_approval(&json!({"requires_approval": true, "plan": []})));
        assert!(asks_for_approval(&json!({"requiresApproval": true})));
        assert!(asks_for_approval(&json!([{"requires_approval": true, "n": 5}])));
        assert!(asks_for_approval(&json!([{"requires_approval": 1}])));
        for no in [
            json!({"requires_approval": false}),
            json!({"requires_approval": "true"}),
            json!({"requires_approval": 2}),
            json!({"requires_approval": 0}),
            json!([{"requires_approval": true}, {"requires_approval": true}]),
            json!([]),
            json!("requires_approval: true"),
            json!({"data": {"requires_approval": true}}),
        ] {
            assert!(!asks_for_approval(&no), "{no}");
        }
    }
}
