//! The rmcp `ServerHandler` of [`FilestoreServer`]: each MCP request (initialize,
//! tools, prompts, resources, logging, roots notifications, `subscriptions/listen`)
//! checked against the session's conversation and answered from its sandbox.

use std::borrow::Cow;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResponse,
    Implementation, ListPromptsResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig as McpServerInfo, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::{FilestoreServer, is_modern};
use crate::reply::protocol_error;
use crate::sandbox::{Sandbox, lock};

/// A short version of the instructions, sent in the `initialize` result.
const SERVER_INSTRUCTIONS: &str = "A sandboxed virtual filesystem. Use the filestore_* tools with \
absolute virtual paths (e.g. /workspace/src/main.rs); start with filestore_tree or filestore_ls \
on / to see the mounts. The prompt `filestore_instructions` has the full guide and the tree.";

/// How often a `subscriptions/listen` stream reads its conversation's state for
/// tool-list changes made by other requests (other replicas included).
pub const LISTEN_POLL: Duration = Duration::from_secs(2);

/// The `_meta` key that marks a tool as requiring the user's approval (MCP tool
/// annotations have no such hint; a client reading `_meta` can tell before calling).
pub const REQUIRES_APPROVAL_META: &str = "filestore/requiresApproval";

/// A tool spec from the session as an MCP tool.
fn to_tool(mut spec: Value) -> Result<Tool, McpError> {
    // A configured tool's `annotations.title` is also its MCP `title`.
    if spec.get("title").is_none()
        && let Some(t) = spec["annotations"]["title"].as_str().map(str::to_string)
    {
        spec["title"] = Value::String(t);
    }
    // `requiresApproval` is filestore's own annotation: MCP's would drop it, so it
    // travels in `_meta` and, for clients that show only text, in the description.
    if spec["annotations"]["requiresApproval"] == Value::Bool(true) {
        spec["_meta"] = json!({ REQUIRES_APPROVAL_META: true });
        let described = spec["description"].as_str().unwrap_or_default().trim_end().to_string();
        spec["description"] = Value::String(format!(
            "{described} Requires the user's approval: the server asks before it runs."
        ));
    }
    serde_json::from_value::<Tool>(spec.clone()).map_err(|e| {
        McpError::internal_error(format!("tool spec is not a valid MCP tool ({e}): {spec}"), None)
    })
}

#[allow(deprecated)] // logging and roots: see crate::logging, crate::roots
impl ServerHandler for FilestoreServer {
    /// Notes whether the client's roots will be read: if so, requests that reach
    /// the sandbox wait until `initialized` applied them.
    async fn initialize(
        &self,
        request: rmcp::model::InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::InitializeResult, McpError> {
        context.peer.set_peer_info(request.clone());
        // A session another replica created, taken over here (rmcp replays its
        // `initialize` from the store, stored_sessions.rs): its conversation is in the
        // parameters' `_meta`, not in a request's.
        let restored = request.meta.as_ref().and_then(|m| m.0.get(crate::conversations::META_KEY));
        self.bind_initialize(&context, restored.and_then(Value::as_str)).await?;
        if request.capabilities.roots.is_some() && self.roots.reads_roots() {
            self.roots_gate.expect_first();
        }
        let mut result = self.negotiate_initialize(&request)?;
        // The conversation served, so a client that named none can name it again
        // (after a reconnect, on another replica).
        if let Some(name) = self.conversation() {
            let mut meta = result.meta.take().unwrap_or_default();
            meta.insert(crate::conversations::META_KEY.into(), Value::String(name));
            result.meta = Some(meta);
        }
        Ok(result)
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        // Released once the roots are applied (or found unusable).
        let _first = self.roots_gate.take_first();
        let warnings = lock(&self.sandbox).startup_warnings.clone();
        for w in warnings {
            self.warn(&context.peer, w).await;
        }
        if let Some(mut changes) = self.catalog_changes.clone() {
            // An upstream tool list changed: the client re-lists, and the listing
            // re-resolves the agent (Sandbox::session). Ends with the connection.
            changes.mark_unchanged();
            let peer = context.peer.clone();
            tokio::spawn(async move {
                while changes.changed().await.is_ok() {
                    if peer.notify_tool_list_changed().await.is_err() {
                        break;
                    }
                }
            });
        }
        self.apply_roots(&context.peer).await;
    }

    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        self.log_level.set(request.level);
        Ok(())
    }

    /// Requests arriving meanwhile wait for the new roots; a call already running
    /// ends on the previous ones (also the client's choice).
    /// A flood of these rebuilds the session at most once per
    /// [`crate::roots::ROOTS_MIN_INTERVAL`]: one application waits behind the one under
    /// way, and notifications meanwhile are taken together with it. Where roots are
    /// not read (over HTTP without `--http-roots-within`), nothing changes: the client
    /// was told at `initialized`.
    async fn on_roots_list_changed(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        // Taken up: the gate below (or the application already waiting) now stands
        // for it (see `roots_notice_sent`).
        let taken = || {
            let _ = self.roots_notices.fetch_update(
                std::sync::atomic::Ordering::SeqCst,
                std::sync::atomic::Ordering::SeqCst,
                |n| n.checked_sub(1),
            );
        };
        if !self.roots.reads_roots() || !self.roots_gate.queue() {
            taken();
            return;
        }
        let _applying = self.roots_gate.hold();
        taken();
        self.apply_roots(&context.peer).await;
    }

    /// The stand-in for a stdio message too large to read ([`crate::guard`]) is
    /// answered with an error saying so; any other unknown method is not found.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, McpError> {
        if request.method == crate::guard::TOO_LARGE_METHOD {
            let params = request.params.unwrap_or_default();
            return Err(McpError::new(
                rmcp::model::ErrorCode::INVALID_REQUEST,
                format!(
                    "error[too-large]: the message was {} bytes; one message over stdio may be at most {} bytes. Nothing was done. Write large content in parts (e.g. several files), or mount the directory that holds it",
                    params["bytes"], params["limit"]
                ),
                Some(params),
            ));
        }
        // rmcp hands a request it could not parse as its known method here: for an
        // MCP method that is invalid params (-32602, with the reason), not "not found".
        let params = request.params.clone().unwrap_or(Value::Null);
        let reason = match request.method.as_str() {
            "tools/call" => {
                Some(serde_json::from_value::<rmcp::model::CallToolRequestParams>(params).err())
            }
            "resources/read" => {
                Some(serde_json::from_value::<rmcp::model::ReadResourceRequestParams>(params).err())
            }
            "prompts/get" => {
                Some(serde_json::from_value::<rmcp::model::GetPromptRequestParams>(params).err())
            }
            "resources/list" | "tools/list" | "prompts/list" => Some(
                serde_json::from_value::<Option<rmcp::model::PaginatedRequestParams>>(params).err(),
            ),
            _ => None,
        };
        match reason {
            Some(why) => Err(McpError::invalid_params(
                format!(
                    "invalid params for '{}': {}",
                    request.method,
                    why.map_or_else(|| "not a valid request".to_string(), |e| e.to_string())
                ),
                None,
            )),
            None => Err(McpError::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                format!("method '{}' not found", request.method),
                None,
            )),
        }
    }

    /// `subscriptions/listen` (MCP 2026-07-28): tool-list changes only, the one
    /// list that changes here (skills, upstream catalogs).
    fn accepted_subscription_filter(
        &self,
        _requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(rmcp::model::SubscriptionFilter::builder().tools_list_changed().build())
    }

    /// Tells the listener each time the tool list of the conversation the listen
    /// request names changes: a skill activated by any request of it, on any
    /// replica (its state is read every [`LISTEN_POLL`]), or an upstream catalog.
    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), McpError> {
        self.check_conversation(context.request_context()).await?;
        let mut catalog = self.catalog_changes.clone();
        let names = |s: &mut Sandbox| -> filestore_runtime::Result<Vec<Value>> { s.tools() };
        let mut seen = self.with_sandbox(names).await?.map_err(|e| protocol_error(&e))?;
        loop {
            tokio::select! {
                _ = context.cancelled() => return Ok(()),
                _ = tokio::time::sleep(LISTEN_POLL) => {}
                _ = async {
                    match &mut catalog {
                        Some(c) => { let _ = c.changed().await; }
                        None => std::future::pending::<()>().await,
                    }
                } => {}
            }
            let now = self.with_sandbox(names).await?.map_err(|e| protocol_error(&e))?;
            if now != seen {
                seen = now;
                if context.sink().notify_tool_list_changed().await.is_err() {
                    return Ok(());
                }
            }
        }
    }

    fn get_info(&self) -> McpServerInfo {
        McpServerInfo::new(
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_resources()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_logging()
                .build(),
        )
        .with_server_info(Implementation::new("filestore", env!("CARGO_PKG_VERSION")))
        .with_instructions(SERVER_INSTRUCTIONS)
    }

    /// Protocol revisions up to 2026-07-28. Under 2026-07-28 there are no sessions:
    /// over HTTP each request gets a server (and sandbox) of its own, and what
    /// persists between requests is the conversation the request names in the
    /// store of `serve --state` (see [`crate::conversations`]).
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2026_07_28))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        self.check_conversation(&context).await?;
        let specs = self.with_sandbox(|s| s.tools()).await?.map_err(|e| protocol_error(&e))?;
        let tools = specs.into_iter().map(to_tool).collect::<Result<Vec<_>, _>>()?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    /// A tool call, step by step: [`FilestoreServer::run_call`].
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        self.run_call(request, context).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.check_conversation(&context).await?;
        // The configured prompts (Toolbox `kind: prompt`) follow the built-in one.
        let configured = self
            .with_sandbox(|s| -> filestore_runtime::Result<_> { s.session()?.prompts() })
            .await?
            .map_err(|e| protocol_error(&e))?;
        let mut all = vec![crate::prompt::prompt()];
        all.extend(configured.into_iter().map(crate::prompt::configured));
        Ok(ListPromptsResult::with_all_items(all))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        self.check_conversation(&context).await?;
        if request.name != crate::INSTRUCTIONS_PROMPT {
            let name = request.name.clone();
            let args = serde_json::Value::Object(request.arguments.unwrap_or_default());
            let rendered = self
                .with_sandbox(move |s| -> filestore_runtime::Result<_> {
                    s.session()?.get_prompt(&name, &args)
                })
                .await?;
            return match rendered {
                Ok(messages) => Ok(crate::prompt::configured_result(messages).into()),
                // An unknown name or a bad argument is the client's mistake.
                Err(filestore_runtime::Error::Filestore(e))
                    if matches!(
                        e.kind(),
                        filestore_guest::error::ErrorKind::NotFound
                            | filestore_guest::error::ErrorKind::InvalidArgument
                    ) =>
                {
                    Err(McpError::invalid_params(
                        format!(
                            "{} (and the built-in '{}')",
                            e.message(),
                            crate::INSTRUCTIONS_PROMPT
                        ),
                        None,
                    ))
                }
                Err(e) => Err(protocol_error(&e)),
            };
        }
        let args = crate::prompt::PromptArgs::parse(request.arguments.as_ref())?;
        let result = self
            .with_sandbox(move |s| crate::prompt::render(s, &args))
            .await?
            .map_err(|e| protocol_error(&e))?;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.check_conversation(&context).await?;
        let cursor = request.and_then(|r| r.cursor);
        self.with_sandbox(move |s| crate::resources::list(s, cursor.as_deref())).await?
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.check_conversation(&context).await?;
        let (uri, modern) = (request.uri, is_modern(&context));
        let result = self.with_sandbox(move |s| crate::resources::read(s, &uri, modern)).await??;
        Ok(result.into())
    }
}
