//! Admission of HTTP sessions: a bounded pool that a flood cannot lock up.
//!
//! Every MCP session over HTTP holds a sandbox instance. Without a policy, a client
//! that sends a thousand `initialize` requests fills every slot, and everyone else
//! gets errors until the idle sessions time out minutes later. [`SessionPool`] is an
//! axum middleware in front of rmcp's session manager that, for each new session:
//!
//! 1. forgets sessions rmcp already closed (idle timeout, `DELETE`);
//! 2. holds each client address to [`PoolConfig::max_per_client`] sessions and the
//!    pool to [`PoolConfig::max_sessions`];
//! 3. past a limit, closes the newcomer's *own* least recently used session that has
//!    been idle for [`PoolConfig::evict_idle_after`] and counts toward that limit,
//!    else answers `429` (a client's or an identity's limit) or `503` (the pool's),
//!    with `Retry-After` (never `500`).
//!
//! Who "own" is: with authentication ([`super::auth`]), the identity. One
//! identity holds at most [`PoolConfig::max_per_identity`] sessions, and a newcomer
//! never closes another identity's session, which is within its own limit by
//! construction: behind a TLS proxy every user shares one client address, and bob's
//! new sessions must not close alice's (and her `/scratch` with them). Without
//! authentication there is nobody to tell apart but addresses: a client past its
//! limit closes its own sessions, and a full pool closes anyone's least recently used
//! idle one.
//!
//! Sessions idle for [`PoolConfig::idle_timeout`] are closed by rmcp itself.
//!
//! A `subscriptions/listen` stream (MCP 2026-07-28) holds a sandbox for as long as
//! it is open, as a session does: it is admitted and counted like one, under the
//! same limits, until its response ends (the client closed it). A stream is in
//! use while open, so it is never closed to make room.
//!
//! With authentication, each session is bound to the identity that created it: a
//! request naming the session with any other identity (a leaked or guessed
//! `Mcp-Session-Id` with another user's valid token) is answered `404`, as for a
//! session that does not exist, and never reaches it.

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

use super::identity::IdentityKey;

/// The header carrying the MCP session id.
/// The header naming a 2025-11-25 session.
pub const SESSION_HEADER: &str = "mcp-session-id";

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
    /// The identity that created it (with authentication).
    owner: Option<IdentityKey>,
    last_used: Instant,
    /// A `subscriptions/listen` stream (not an rmcp session): counted until it ends,
    /// never closed to make room.
    stream: bool,
}

/// The pool's state: the sessions it admitted, by id.
#[derive(Debug)]
pub struct SessionPool {
    config: PoolConfig,
    manager: Arc<LocalSessionManager>,
    sessions: Mutex<HashMap<String, Tracked>>,
    /// Sessions other replicas recorded, which this one may take over.
    stored: Option<Arc<crate::stored_sessions::StoredSessions>>,
}

/// Why a new session was not admitted.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Refusal {
    Client,
    Identity,
    Full,
}

/// Which session, if any, to close so that a session of `owner` from `client` fits
/// the limits (see the [module documentation](self)); or why it cannot.
fn choose_victim(
    map: &HashMap<String, Tracked>,
    config: &PoolConfig,
    client: IpAddr,
    owner: Option<&IdentityKey>,
    now: Instant,
) -> Result<Option<String>, Refusal> {
    let at_client = |t: &Tracked| t.client == client;
    let mine = |t: &Tracked| t.owner.as_ref() == owner;
    let clients = map.values().filter(|t| at_client(t)).count();
    let owned = map.values().filter(|t| mine(t)).count();
    let identity_full = owner.is_some() && owned >= config.max_per_identity;
    let client_full = clients >= config.max_per_client;
    let pool_full = map.len() >= config.max_sessions;
    let why = match (identity_full, client_full, pool_full) {
        (false, false, false) => return Ok(None),
        (true, _, _) => Refusal::Identity,
        (false, true, _) => Refusal::Client,
        (false, false, true) => Refusal::Full,
    };
    // Only the newcomer's own sessions: another identity's is never the price of a
    // newcomer's (without authentication every session is "own", the address being
    // all there is). Past the client's limit, only one at its address makes room.
    let counts = |t: &Tracked| mine(t) && (!client_full || at_client(t));
    let idle =
        |t: &Tracked| !t.stream && now.duration_since(t.last_used) >= config.evict_idle_after;
    map.iter()
        .filter(|(_, t)| counts(t) && idle(t))
        .min_by_key(|(_, t)| t.last_used)
        .map(|(id, _)| Some(id.clone()))
        .ok_or(why)
}

impl SessionPool {
    /// A pool over `manager` (which must be the one the rmcp service uses).
    pub fn new(config: PoolConfig, manager: Arc<LocalSessionManager>) -> Arc<SessionPool> {
        SessionPool::with_stored(config, manager, None)
    }

    /// A pool that also admits sessions recorded in `stored` by another replica (or
    /// by this process before a restart): see [`crate::stored_sessions`].
    pub fn with_stored(
        config: PoolConfig,
        manager: Arc<LocalSessionManager>,
        stored: Option<Arc<crate::stored_sessions::StoredSessions>>,
    ) -> Arc<SessionPool> {
        Arc::new(SessionPool { config, manager, sessions: Mutex::new(HashMap::new()), stored })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Tracked>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes room for a session of `owner` from `client`, closing what the policy
    /// allows.
    async fn admit(&self, client: IpAddr, owner: Option<&IdentityKey>) -> Result<(), Refusal> {
        let live: std::collections::HashSet<String> =
            self.manager.sessions.read().await.keys().map(|k| k.to_string()).collect();
        let victim = {
            let mut map = self.lock();
            map.retain(|id, t| t.stream || live.contains(id));
            let victim = choose_victim(&map, &self.config, client, owner, Instant::now())?;
            if let Some(id) = &victim {
                map.remove(id);
            }
            victim
        };
        if let Some(id) = victim {
            let _ = self.manager.close_session(&id.into()).await;
        }
        Ok(())
    }

    fn record(&self, id: &str, client: IpAddr, owner: Option<IdentityKey>) {
        let tracked = Tracked { client, owner, last_used: Instant::now(), stream: false };
        self.lock().insert(id.to_string(), tracked);
    }

    /// A `subscriptions/listen` request: admitted as a new session would be, and
    /// counted as one until its response (the stream) ends.
    async fn hold_stream(
        self: &Arc<SessionPool>,
        client: IpAddr,
        owner: Option<IdentityKey>,
        request: Request,
        next: Next,
    ) -> Response {
        if let Err(why) = self.admit(client, owner.as_ref()).await {
            return self.refusal(why);
        }
        // Not an rmcp session id: no client can name it.
        let id = format!("listen stream {}", filestore_store::conversation::new_call_id());
        let tracked = Tracked { client, owner, last_used: Instant::now(), stream: true };
        self.lock().insert(id.clone(), tracked);
        let slot = StreamSlot { pool: self.clone(), id };
        let (parts, body) = next.run(request).await.into_parts();
        // The slot goes with the body: when the stream ends or its client goes.
        let body = futures::StreamExt::map(body.into_data_stream(), move |chunk| {
            let _held = &slot;
            chunk
        });
        Response::from_parts(parts, axum::body::Body::from_stream(body))
    }

    /// Notes a use of session `id` by `owner`: `Some(false)` when the session
    /// belongs to another identity (the request must not reach it), `None` when
    /// this pool does not hold it.
    fn touch(&self, id: &str, owner: Option<&IdentityKey>) -> Option<bool> {
        match self.lock().get_mut(id) {
            Some(t) if t.owner.as_ref() == owner => {
                t.last_used = Instant::now();
                Some(true)
            }
            Some(_) => Some(false),
            None => None,
        }
    }

    /// A request for session `id`, which this pool does not hold: when the store has
    /// it, recorded by the same identity, it is admitted as a new session (rmcp
    /// restores it); another identity's is answered as unknown. Without a record,
    /// rmcp answers (404, or a session it holds but this pool closed already).
    async fn take_over(
        &self,
        id: &str,
        peer: IpAddr,
        owner: Option<IdentityKey>,
        mut request: Request,
        next: Next,
    ) -> Response {
        let Some(stored) = &self.stored else { return next.run(request).await };
        let Some(recorded) = stored.recorded(id).await else { return next.run(request).await };
        let caller = super::identity::current_identity().map(|i| i.segment);
        if recorded.owner != crate::conversations::owner_digest(caller.as_deref()) {
            return (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response();
        }
        if let Err(why) = self.admit(peer, owner.as_ref()).await {
            return self.refusal(why);
        }
        // The server made for it serves the recorded conversation.
        request.extensions_mut().insert(recorded);
        let response = self.not_a_fault(next.run(request).await).await;
        // Held here only once restored: a refused takeover is tried again whole.
        if response.status().is_success() {
            self.record(id, peer, owner);
        }
        response
    }

    /// A `500` of a request that makes a sandbox, when it is not a fault: every
    /// instance slot taken by sessions this pool does not know of is capacity
    /// (`503`), the caller's `--max-conversations-per-identity` its own limit
    /// (`429`). Anything else (a setup that fails) is passed on as it is.
    async fn not_a_fault(&self, response: Response) -> Response {
        if response.status() != StatusCode::INTERNAL_SERVER_ERROR {
            return response;
        }
        let (parts, body) = response.into_parts();
        let text = axum::body::to_bytes(body, 64 * 1024).await.unwrap_or_default();
        let said = String::from_utf8_lossy(&text);
        if said.contains(crate::config::INSTANTIATION_FAILED) {
            return self.refusal(Refusal::Full);
        }
        if said.contains(crate::conversations::CAP_FLAG) {
            return (StatusCode::TOO_MANY_REQUESTS, said.into_owned()).into_response();
        }
        // The sandboxes' memory budget (filestore_runtime::memory_budget): the server's is
        // capacity, an identity's its own limit; both pass when calls end.
        let budget = [
            (filestore_runtime::memory_budget::TOTAL_FLAG, StatusCode::SERVICE_UNAVAILABLE),
            (filestore_runtime::memory_budget::PER_IDENTITY_FLAG, StatusCode::TOO_MANY_REQUESTS),
        ];
        if let Some((_, status)) =
            budget.iter().find(|(flag, _)| said.contains(&format!("({flag})")))
        {
            let retry = self.config.evict_idle_after.as_secs().max(1);
            let mut resp = (*status, said.into_owned()).into_response();
            resp.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry));
            return resp;
        }
        Response::from_parts(parts, axum::body::Body::from(text))
    }

    fn refusal(&self, why: Refusal) -> Response {
        let retry = self.config.evict_idle_after.as_secs().max(1);
        let (status, text) = match why {
            Refusal::Client => (
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "this client address already has {} sessions (listen streams included), all in use; close one (DELETE with its Mcp-Session-Id, or end a stream) or retry later",
                    self.config.max_per_client
                ),
            ),
            Refusal::Identity => (
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "this identity already has {} sessions (listen streams included), all in use; close one (DELETE with its Mcp-Session-Id, or end a stream) or retry later",
                    self.config.max_per_identity
                ),
            ),
            Refusal::Full => (
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the server holds its maximum of {} sessions (listen streams included), all in use; retry later",
                    self.config.max_sessions
                ),
            ),
        };
        let mut resp = (status, text).into_response();
        resp.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry));
        resp
    }
}

/// A `subscriptions/listen` stream's place in the pool, given up when dropped.
struct StreamSlot {
    pool: Arc<SessionPool>,
    id: String,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        self.pool.lock().remove(&self.id);
    }
}

/// Whether the request opens a `subscriptions/listen` stream (MCP 2026-07-28, whose
/// `Mcp-Method` header rmcp checks against the body).
fn opens_stream(request: &Request) -> bool {
    request.method() == Method::POST
        && request.headers().get("mcp-method").is_some_and(|m| m == "subscriptions/listen")
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
    let owner = request.extensions().get::<super::identity::Identity>().map(|i| i.key());
    match session {
        Some(id) => match pool.touch(&id, owner.as_ref()) {
            Some(true) => next.run(request).await,
            // Another identity's session: answered as if it did not exist.
            Some(false) => (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response(),
            None => pool.take_over(&id, peer.ip(), owner, request, next).await,
        },
        None if opens_stream(&request) => pool.hold_stream(peer.ip(), owner, request, next).await,
        None if request.method() == Method::POST => {
            if let Err(why) = pool.admit(peer.ip(), owner.as_ref()).await {
                return pool.refusal(why);
            }
            let response = next.run(request).await;
            if let Some(id) = response.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
                pool.record(id, peer.ip(), owner);
                return response;
            }
            // A sandbox that could not be created, maybe for a reason not a fault.
            pool.not_a_fault(response).await
        }
        None => next.run(request).await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::identity::Source;

    /// A session: its id, client address, owner (`"tok:carol"` is a static token's
    /// carol, another name a JWT's) and seconds since its last use.
    type Row = (&'static str, &'static str, Option<&'static str>, u64);

    /// What is asked and what the answer must be: a name, the pool, the newcomer's
    /// address and owner, and the session it closes (or why it is refused).
    type Case = (
        &'static str,
        &'static [Row],
        &'static str,
        Option<&'static str>,
        Result<Option<&'static str>, Refusal>,
    );

    fn key(owner: &str) -> IdentityKey {
        match owner.strip_prefix("tok:") {
            Some(sub) => (Source::StaticToken, sub.into()),
            None => (Source::Jwt, owner.into()),
        }
    }

    fn pool(now: Instant, rows: &[Row]) -> HashMap<String, Tracked> {
        rows.iter()
            .map(|&(id, client, owner, idle)| {
                let last_used = now.checked_sub(Duration::from_secs(idle)).unwrap();
                (
                    id.to_string(),
                    Tracked {
                        client: client.parse().unwrap(),
                        owner: owner.map(key),
                        last_used,
                        stream: false,
                    },
                )
            })
            .collect()
    }

    /// Past a limit a newcomer closes only its own idle session; behind a proxy
    /// (every session from `P`), bob's newcomer never closes alice's.
    #[test]
    fn newcomers_close_only_their_own_idle_sessions() {
        use Refusal::*;
        const P: &str = "10.0.0.1";
        let config = PoolConfig {
            max_sessions: 4,
            max_per_client: 3,
            max_per_identity: 2,
            idle_timeout: Duration::from_secs(300),
            evict_idle_after: Duration::from_secs(30),
        };
        #[rustfmt::skip]
        let cases: &[Case] = &[
            ("room left", &[("a1", P, Some("alice"), 99), ("a2", P, Some("alice"), 99)],
                P, Some("bob"), Ok(None)),
            ("a full proxy address: never alice's or carol's",
                &[("a1", P, Some("alice"), 99), ("a2", P, Some("alice"), 99), ("c1", P, Some("carol"), 999)],
                P, Some("bob"), Err(Client)),
            ("a full proxy address: bob's own idle one",
                &[("a1", P, Some("alice"), 999), ("b1", P, Some("bob"), 99), ("c1", P, Some("carol"), 999)],
                P, Some("bob"), Ok(Some("b1"))),
            ("a full address: only an own session at that address makes room",
                &[("a1", P, Some("alice"), 99), ("c1", P, Some("carol"), 99), ("c2", P, Some("carol"), 99),
                  ("b1", "10.0.0.9", Some("bob"), 999)],
                P, Some("bob"), Err(Client)),
            ("an identity at its limit: its least recently used idle one",
                &[("a1", "10.0.0.2", Some("alice"), 99), ("a2", "10.0.0.3", Some("alice"), 999)],
                P, Some("alice"), Ok(Some("a2"))),
            ("an identity at its limit, none idle",
                &[("a1", "10.0.0.2", Some("alice"), 5), ("a2", "10.0.0.3", Some("alice"), 5)],
                P, Some("alice"), Err(Identity)),
            ("a full pool: never another identity's",
                &[("a1", "10.0.0.2", Some("alice"), 999), ("a2", "10.0.0.2", Some("alice"), 999),
                  ("c1", "10.0.0.3", Some("carol"), 999), ("c2", "10.0.0.3", Some("carol"), 999)],
                "10.0.0.4", Some("bob"), Err(Full)),
            ("a full pool: the newcomer's own idle one",
                &[("a1", "10.0.0.2", Some("alice"), 999), ("b1", "10.0.0.5", Some("bob"), 99),
                  ("c1", "10.0.0.3", Some("carol"), 999), ("c2", "10.0.0.3", Some("carol"), 999)],
                "10.0.0.4", Some("bob"), Ok(Some("b1"))),
            ("a static token's carol is not a JWT's carol",
                &[("c1", "10.0.0.2", Some("carol"), 99), ("c2", "10.0.0.2", Some("carol"), 99)],
                P, Some("tok:carol"), Ok(None)),
            ("without authentication a full address closes its own",
                &[("x1", P, None, 99), ("x2", P, None, 999), ("x3", P, None, 99), ("y1", "10.0.0.2", None, 9999)],
                P, None, Ok(Some("x2"))),
            ("without authentication a full pool closes anyone's",
                &[("x1", P, None, 99), ("x2", P, None, 999), ("y1", "10.0.0.2", None, 9999), ("y2", "10.0.0.2", None, 99)],
                "10.0.0.3", None, Ok(Some("y1"))),
            ("without authentication, nothing idle",
                &[("x1", P, None, 5), ("x2", P, None, 5), ("x3", P, None, 5)],
                P, None, Err(Client)),
        ];
        let now = Instant::now();
        for (what, rows, from, owner, want) in cases {
            let got = choose_victim(
                &pool(now, rows),
                &config,
                from.parse().unwrap(),
                owner.map(key).as_ref(),
                now,
            );
            assert_eq!(got, want.map(|v| v.map(str::to_string)), "{what}");
        }
    }
}
