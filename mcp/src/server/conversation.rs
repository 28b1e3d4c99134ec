//! Which conversation a request names (`Filestore-Conversation` header or
//! `_meta["filestore/conversation"]`), checked against the one the session serves,
//! or bound when the session was made for none yet (docs/state.md#serving).

use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::Value;

use super::FilestoreServer;
use crate::conversations::no_conversations;
use crate::reply::protocol_error;

impl FilestoreServer {
    /// Refuses a request naming a conversation (header or `_meta`) other than the
    /// session's, or any conversation when none are kept.
    pub(super) async fn check_conversation(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // Every value: a second header must not hide behind the first.
        let headers: Vec<&str> = context
            .extensions
            .get::<axum::http::request::Parts>()
            .map(|p| {
                p.headers
                    .get_all(crate::conversations::HEADER)
                    .iter()
                    .map(|v| v.to_str().unwrap_or("(not text)"))
                    .collect()
            })
            .unwrap_or_default();
        let meta = context.meta.get(crate::conversations::META_KEY);
        if let Some(v) = meta
            && !v.is_string()
        {
            return Err(McpError::invalid_params(
                format!(
                    "_meta[\"{}\"] must be a string (a conversation key)",
                    crate::conversations::META_KEY
                ),
                None,
            ));
        }
        let serving = self.conversation();
        if self.per_request
            && let Some(named) = meta.and_then(Value::as_str)
            && serving.is_none()
            && headers.is_empty()
        {
            // This server exists for this request alone: it serves what it names.
            return self.bind_named(context, named.to_string()).await;
        }
        for named in headers.into_iter().chain(meta.and_then(Value::as_str)) {
            match &serving {
                None => return Err(protocol_error(&no_conversations())),
                Some(s) if s != named && self.per_request => {
                    return Err(McpError::invalid_params(
                        format!(
                            "the request names two conversations ('{s}' and another) in its Filestore-Conversation header and _meta[\"{}\"]: name one",
                            crate::conversations::META_KEY
                        ),
                        None,
                    ));
                }
                Some(s) if s != named => {
                    return Err(McpError::invalid_params(
                        format!(
                            "this MCP session serves conversation '{s}'; a request naming another conversation needs a session of its own (initialize with the Filestore-Conversation header or _meta[\"{}\"])",
                            crate::conversations::META_KEY
                        ),
                        None,
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Binds the session to the conversation its `initialize` names in `_meta`, when
    /// the request creating it named none.
    pub(super) async fn bind_initialize(
        &self,
        context: &RequestContext<RoleServer>,
        in_params: Option<&str>,
    ) -> Result<(), McpError> {
        let named = context.meta.get(crate::conversations::META_KEY).and_then(Value::as_str);
        let Some(named) = named.or(in_params) else {
            return self.check_conversation(context).await;
        };
        let parts = context.extensions.get::<axum::http::request::Parts>();
        let header = parts.and_then(|p| p.headers.get(crate::conversations::HEADER));
        if header.is_some() || self.conversation().as_deref() == Some(named) {
            return self.check_conversation(context).await;
        }
        // Refused there too when the server keeps no conversations.
        self.bind_named(context, named.to_string()).await
    }

    /// Serves the conversation `named` (for the request's caller) from now on.
    async fn bind_named(
        &self,
        context: &RequestContext<RoleServer>,
        named: String,
    ) -> Result<(), McpError> {
        let Some(conversations) = self.conversations.clone() else {
            return Err(protocol_error(&no_conversations()));
        };
        let caller = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|p| p.extensions.get::<crate::http::identity::Identity>())
            .map(|i| i.segment.clone());
        let name = named.clone();
        self.on_sandbox(move |s| -> filestore_runtime::Result<()> {
            let bound = conversations.bind(caller.as_deref(), Some(&named))?;
            s.rebind(bound)
        })
        .await?
        .map_err(|e| protocol_error(&e))?;
        *self.conversation.lock().unwrap_or_else(|p| p.into_inner()) = Some(name);
        Ok(())
    }
}
