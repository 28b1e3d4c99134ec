//! Admission of HTTP sessions: a bounded pool that a flood cannot lock up.
//!
//! Every MCP session over HTTP holds a sandbox instance. Without a policy, a client
//! that sends a thousand `initialize` requests fills every slot, and everyone else
//! gets errors until the idle sessions time out minutes later. [`SessionPool`] is an
//! axum middleware in front of rmcp's session manager that, for each new session:
//!
//! 1. forgets sessions rmcp already closed (idle timeout, `DELETE`);
//! 2. holds each client address to [`PoolConfig::max_per_client`] sessions: past it,
//!    that client's own least recently used session is closed if it has been idle
//!    for [`PoolConfig::evict_idle_after`], else the request gets `429` with
//!    `Retry-After`;
//! 3. holds the pool to [`PoolConfig::max_sessions`]: when full, the least recently
//!    used session idle for [`PoolConfig::evict_idle_after`] is closed to make room,
//!    else the request gets `503` with `Retry-After` (never `500`).
//!
//! Sessions idle for [`PoolConfig::idle_timeout`] are closed by rmcp itself.
//!
//! With authentication ([`super::http_auth`]), each session is bound to the identity
//! that created it: a request naming the session with any other identity (a leaked or
//! guessed `Mcp-Session-Id` with another user's valid token) is answered `404`, as for
//! a session that does not exist, and never reaches it. One identity holds at most
//! [`PoolConfig::max_per_identity`] sessions, like a client address.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// The header carrying the MCP session id.
const SESSION_HEADER: &str = "mcp-session-id";

/// Limits of the HTTP session pool (`filestore serve --http`).
#[derive(Clone, Debug)]
pub struct PoolConfig {
    /// Most live sessions; keep below the engine's instance slots.
    pub max_sessions: usize,
    /// Most live sessions of one client address.
    pub max_per_client: usize,
    /// Most live sessions of one authenticated identity.
    pub max_per_identity: usize,
    /// A session unused this long is closed by the server.
    pub idle_timeout: Duration,
    /// A session unused this long may be closed to make room for a new one.
    pub evict_idle_after: Duration,
}

impl Default for PoolConfig {
    fn default() -> PoolConfig {
        PoolConfig {
            max_sessions: 512,
            max_per_client: 64,
            max_per_identity: 16,
            idle_timeout: Duration::from_secs(300),
            evict_idle_after: Duration::from_secs(30),
        }
    }
}

#[derive(Debug)]
struct Tracked {
    client: IpAddr,
    /// The subject of the identity that created it (with authentication).
    owner: Option<String>,
    last_used: Instant,
}

/// The pool's state: the sessions it admitted, by id.
#[derive(Debug)]
pub struct SessionPool {
    config: PoolConfig,
    manager: Arc<LocalSessionManager>,
    sessions: Mutex<HashMap<String, Tracked>>,
}

/// Why a new session was not admitted.
enum Refusal {
    Client,
    Identity,
    Full,
}

impl SessionPool {
    /// A pool over `manager` (which must be the one the rmcp service uses).
    pub fn new(config: PoolConfig, manager: Arc<LocalSessionManager>) -> Arc<SessionPool> {
        Arc::new(SessionPool { config, manager, sessions: Mutex::new(HashMap::new()) })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Tracked>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes room for a session of `client`, closing what the policy allows.
    async fn admit(&self, client: IpAddr, owner: Option<&str>) -> Result<(), Refusal> {
        let live: std::collections::HashSet<String> =
            self.manager.sessions.read().await.keys().map(|k| k.to_string()).collect();
        let now = Instant::now();
        let victim = {
            let mut map = self.lock();
            map.retain(|id, _| live.contains(id));
            let idle =
                |t: &Tracked| now.duration_since(t.last_used) >= self.config.evict_idle_after;
            let lru = |filter: &dyn Fn(&Tracked) -> bool| {
                map.iter()
                    .filter(|(_, t)| filter(t))
                    .min_by_key(|(_, t)| t.last_used)
                    .map(|(id, t)| (id.clone(), idle(t)))
            };
            let own = map.values().filter(|t| t.client == client).count();
            let owned =
                owner.map_or(0, |o| map.values().filter(|t| t.owner.as_deref() == Some(o)).count());
            if owner.is_some() && owned >= self.config.max_per_identity {
                match lru(&|t| t.owner.as_deref() == owner) {
                    Some((id, true)) => Some(id),
                    _ => return Err(Refusal::Identity),
                }
            } else if own >= self.config.max_per_client {
                match lru(&|t| t.client == client) {
                    Some((id, true)) => Some(id),
                    _ => return Err(Refusal::Client),
                }
            } else if map.len() >= self.config.max_sessions {
                match lru(&|_| true) {
                    Some((id, true)) => Some(id),
                    _ => return Err(Refusal::Full),
                }
            } else {
                None
            }
        };
        if let Some(id) = victim {
            self.lock().remove(&id);
            let _ = self.manager.close_session(&id.into()).await;
        }
        Ok(())
    }

    fn record(&self, id: &str, client: IpAddr, owner: Option<String>) {
        self.lock().insert(id.to_string(), Tracked { client, owner, last_used: Instant::now() });
    }

    /// Notes a use of session `id` by `owner`; `false` when the session belongs to
    /// another identity (the request must not reach it).
    fn touch(&self, id: &str, owner: Option<&str>) -> bool {
        match self.lock().get_mut(id) {
            Some(t) if t.owner.as_deref() == owner => {
                t.last_used = Instant::now();
                true
            }
            Some(_) => false,
            // Not admitted here (closed already): rmcp answers for it.
            None => true,
        }
    }

    fn refusal(&self, why: Refusal) -> Response {
        let retry = self.config.evict_idle_after.as_secs().max(1);
        let (status, text) = match why {
            Refusal::Client => (
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "this client address already has {} sessions, all in use; close one (DELETE with its Mcp-Session-Id) or retry later",
                    self.config.max_per_client
                ),
            ),
            Refusal::Identity => (
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "this identity already has {} sessions, all in use; close one (DELETE with its Mcp-Session-Id) or retry later",
                    self.config.max_per_identity
                ),
            ),
            Refusal::Full => (
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the server holds its maximum of {} sessions, all in use; retry later",
                    self.config.max_sessions
                ),
            ),
        };
        let mut resp = (status, text).into_response();
        resp.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry));
        resp
    }
}

/// The middleware: admits new sessions (a `POST` without `Mcp-Session-Id`), records
/// the id the server gives them, and notes every use of an existing session.
pub async fn guard(
    State(pool): State<Arc<SessionPool>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let session =
        request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
    let owner = request.extensions().get::<super::http_auth::Identity>().map(|i| i.subject.clone());
    match session {
        Some(id) => {
            if !pool.touch(&id, owner.as_deref()) {
                // Another identity's session: answered as if it did not exist.
                return (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response();
            }
            next.run(request).await
        }
        None if request.method() == Method::POST => {
            if let Err(why) = pool.admit(peer.ip(), owner.as_deref()).await {
                return pool.refusal(why);
            }
            let response = next.run(request).await;
            if let Some(id) = response.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
                pool.record(id, peer.ip(), owner);
            } else if response.status() == StatusCode::INTERNAL_SERVER_ERROR {
                // A sandbox could not be created. Every instance slot taken by sessions
                // this pool does not know of is capacity, not a fault; anything else
                // (a setup that fails) is passed on as it is, with its reason.
                let (parts, body) = response.into_parts();
                let text = axum::body::to_bytes(body, 64 * 1024).await.unwrap_or_default();
                if String::from_utf8_lossy(&text).contains(super::INSTANTIATION_FAILED) {
                    return pool.refusal(Refusal::Full);
                }
                return Response::from_parts(parts, axum::body::Body::from(text));
            }
            response
        }
        None => next.run(request).await,
    }
}
