//! Who is calling: authentication of `filestore serve --http`.
//!
//! Following the MCP authorization specification, the HTTP server is an OAuth 2.1
//! *resource server*: it never issues tokens, it checks the bearer token each request
//! carries (`Authorization: Bearer …`) and serves the caller's identity.
//!
//! - **JWTs** ([`JwtVerifier`]): the signature against a JWKS (a file, a URL, or the
//!   `jwks_uri` of the issuer's OpenID configuration), `iss` equal to the configured
//!   issuer, `aud` containing this server's resource URL (RFC 8707: a token minted for
//!   another server is refused), `exp`/`nbf` with [`LEEWAY_SECS`] of leeway, a `sub`;
//!   only asymmetric algorithms, and only the one each key declares: `alg: none`,
//!   HMAC and a token whose algorithm does not match its key's type (the "HS256 signed
//!   with the public key" confusion) are refused before any signature is checked.
//! - **Static tokens** ([`StaticTokens`]): a file mapping long random tokens to an
//!   identity and its claims, for small deployments without an authorization server.
//!   Tokens are kept as SHA-256 digests; a lookup compares digests, not secrets.
//!
//! Every refusal is `401` with `WWW-Authenticate: Bearer resource_metadata="…"`
//! naming this server's Protected Resource Metadata (RFC 9728, served at
//! [`PRM_PATH`]), and `error="invalid_token"` with the reason when a token was given
//! (RFC 6750 §3). The reason names what was wrong, never the token.
//!
//! What a verified request carries on: an [`Identity`] in the request's extensions
//! (the session pool binds each MCP session to the identity that created it, so a
//! session id is useless to anyone else) and in [`IDENTITY`] while rmcp creates the
//! session, so mounts can depend on it (`--mount /workspace=./tenants/{sub}`, see
//! [`path_segment`](super::identity::path_segment)). The component never sees a token: only the claims of tokens
//! the host verified reach it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::identity::{IDENTITY, Identity, IdentityKey, STATIC_TOKEN_SEGMENT_PREFIX, Source};

/// Why a token, a key source or a call was refused: the message says what was wrong
/// (it is what the client or the operator reads); the I/O, HTTP or parse error behind
/// it, when there is one, is its source.
#[derive(Clone, Debug)]
pub struct AuthError {
    message: String,
    /// Shared so the error stays `Clone`.
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The source is the cause itself, not the `Arc` holding it, so it downcasts.
impl std::error::Error for AuthError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl AuthError {
    /// An error saying `message`, caused by `source` (whose text the message already
    /// carries where the reader needs it).
    fn caused_by(
        message: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> AuthError {
        AuthError { message: message.into(), source: Some(Arc::new(source)) }
    }
}

/// Errors are equal when they say the same thing (sources are not comparable).
impl PartialEq for AuthError {
    fn eq(&self, other: &AuthError) -> bool {
        self.message == other.message
    }
}

impl Eq for AuthError {}

impl From<String> for AuthError {
    fn from(message: String) -> AuthError {
        AuthError { message, source: None }
    }
}

impl From<AuthError> for String {
    fn from(e: AuthError) -> String {
        e.message
    }
}

impl From<&str> for AuthError {
    fn from(message: &str) -> AuthError {
        AuthError::from(message.to_string())
    }
}

/// Where the Protected Resource Metadata of the `/mcp` endpoint is served (RFC 9728
/// §3.1: the well-known prefix, then the resource's path).
pub const PRM_PATH: &str = "/.well-known/oauth-protected-resource/mcp";

/// Clock skew tolerated on `exp` and `nbf`.
pub const LEEWAY_SECS: u64 = 30;

/// A JWKS fetched from a URL is fetched again for an unknown `kid` at most this often
/// (keys rotate; a flood of made-up `kid`s must not become a flood of fetches).
pub const JWKS_REFRESH_INTERVAL: Duration = Duration::from_secs(60);

/// Shortest static token accepted: a guessable token is no authentication.
pub const MIN_STATIC_TOKEN_CHARS: usize = 24;

/// The algorithms a JWT may use: asymmetric only (a shared HMAC secret would let
/// anyone holding it mint tokens for anyone, and invites key confusion).
pub const ALLOWED_ALGORITHMS: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Calls running per identity, held to a maximum: one user's burst of slow calls
/// cannot take every worker thread of a shared server.
#[derive(Debug)]
pub struct CallLimits {
    max: usize,
    running: Mutex<HashMap<IdentityKey, usize>>,
}

/// A running call's place in [`CallLimits`]; released when dropped.
#[derive(Debug)]
pub struct CallSlot {
    limits: Arc<CallLimits>,
    who: IdentityKey,
}

impl CallLimits {
    /// At most `max` concurrent calls per identity.
    pub fn new(max: usize) -> Arc<CallLimits> {
        Arc::new(CallLimits { max: max.max(1), running: Mutex::new(HashMap::new()) })
    }

    /// A slot for a call of `who`, or why not (the limit, named).
    pub fn acquire(self: &Arc<Self>, who: &Identity) -> Result<CallSlot, AuthError> {
        let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let n = running.entry(who.key()).or_insert(0);
        if *n >= self.max {
            return Err(format!(
                "this identity already has {} calls running (--max-calls-per-identity); retry when one ends",
                self.max
            ).into());
        }
        *n += 1;
        Ok(CallSlot { limits: self.clone(), who: who.key() })
    }
}

impl Drop for CallSlot {
    fn drop(&mut self) {
        let mut running = self.limits.running.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = running.get_mut(&self.who) {
            *n -= 1;
            if *n == 0 {
                running.remove(&self.who);
            }
        }
    }
}

/// Where a JWKS comes from.
#[derive(Clone, Debug)]
pub enum KeySource {
    /// A JWKS file, read at start.
    File(PathBuf),
    /// A JWKS URL, fetched at start and again for an unknown `kid`.
    Url(String),
    /// The `jwks_uri` of an OpenID issuer's discovery document, then as [`KeySource::Url`].
    Discover(String),
}

/// Checks JWTs against one issuer's keys (see the [module documentation](self)).
pub struct JwtVerifier {
    source: KeySource,
    /// `None` until first fetched (a lazy verifier, see [`JwtVerifier::lazy`]).
    keys: RwLock<Option<JwkSet>>,
    last_fetch: Mutex<Option<Instant>>,
    /// Accepted `iss` values (the first is the one announced).
    issuers: Vec<String>,
    audience: String,
}

/// The JSON document at `url` (an issuer's discovery document or a JWKS).
fn fetch_json(url: &str) -> Result<Value, AuthError> {
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        return Err(format!("'{url}' is not an http(s) URL").into());
    }
    let agent: ureq::Agent =
        ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs(10))).build().into();
    let mut resp = agent
        .get(url)
        .call()
        .map_err(|e| AuthError::caused_by(format!("fetching {url}: {e}"), e))?;
    let text = resp
        .body_mut()
        .with_config()
        .limit(1 << 20)
        .read_to_string()
        .map_err(|e| AuthError::caused_by(format!("reading {url}: {e}"), e))?;
    serde_json::from_str(&text)
        .map_err(|e| AuthError::caused_by(format!("{url} did not answer with JSON: {e}"), e))
}

/// The key set in `value` (read `from` a file or URL), which must hold a key.
fn parse_jwks(value: Value, from: &str) -> Result<JwkSet, AuthError> {
    let set: JwkSet = serde_json::from_value(value)
        .map_err(|e| AuthError::caused_by(format!("{from} is not a JWKS: {e}"), e))?;
    if set.keys.is_empty() {
        return Err(format!("{from} holds no keys").into());
    }
    Ok(set)
}

/// Why a JWKS or its issuer could not be used (at start, or at a lazy verifier's
/// first token).
fn load_keys(source: &KeySource) -> Result<JwkSet, AuthError> {
    match source {
        KeySource::File(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                AuthError::caused_by(format!("cannot read the JWKS file {}: {e}", p.display()), e)
            })?;
            let value = serde_json::from_str(&text).map_err(|e| {
                AuthError::caused_by(format!("the JWKS file {} is not JSON: {e}", p.display()), e)
            })?;
            parse_jwks(value, &format!("the JWKS file {}", p.display()))
        }
        KeySource::Url(u) => parse_jwks(fetch_json(u)?, u),
        KeySource::Discover(issuer) => {
            let u = discover_jwks_uri(issuer)?;
            parse_jwks(fetch_json(&u)?, &u)
        }
    }
}

/// The `jwks_uri` of an OpenID Connect issuer (`{issuer}/.well-known/openid-configuration`).
pub fn discover_jwks_uri(issuer: &str) -> Result<String, AuthError> {
    let url = format!("{}/.well-known/openid-configuration", issuer.trim_end_matches('/'));
    let doc = fetch_json(&url)?;
    doc.get("jwks_uri")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("{url} has no jwks_uri").into())
}

impl JwtVerifier {
    /// A verifier of tokens from `issuer` for `audience`, with the keys of `source`
    /// (loaded now: a bad file or an unreachable URL fails the start, named).
    pub fn new(source: KeySource, issuer: &str, audience: &str) -> Result<JwtVerifier, AuthError> {
        let keys = load_keys(&source)?;
        Ok(JwtVerifier {
            source,
            keys: RwLock::new(Some(keys)),
            last_fetch: Mutex::new(Some(Instant::now())),
            issuers: vec![issuer.to_string()],
            audience: audience.to_string(),
        })
    }

    /// A verifier whose keys are fetched when the first token arrives (an auth
    /// service of a tool configuration: the server starts without reaching its
    /// provider, as Toolbox does); `issuers` lists the accepted `iss` values.
    pub fn lazy(source: KeySource, issuers: Vec<String>, audience: &str) -> JwtVerifier {
        JwtVerifier {
            source,
            keys: RwLock::new(None),
            last_fetch: Mutex::new(None),
            issuers,
            audience: audience.to_string(),
        }
    }

    /// The issuer tokens must name.
    pub fn issuer(&self) -> &str {
        self.issuers.first().map(String::as_str).unwrap_or_default()
    }

    /// Fetches the keys the first time (a lazy verifier), naming what failed.
    fn ensure_keys(&self) -> Result<(), AuthError> {
        if self.keys.read().unwrap_or_else(|e| e.into_inner()).is_some() {
            return Ok(());
        }
        {
            let mut last = self.last_fetch.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|t| t.elapsed() < JWKS_REFRESH_INTERVAL) {
                return Err("the issuer's keys could not be fetched; retry later".into());
            }
            *last = Some(Instant::now());
        }
        let keys = load_keys(&self.source)
            .map_err(|e| AuthError::caused_by(format!("cannot get the issuer's keys: {e}"), e))?;
        *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Some(keys);
        Ok(())
    }

    fn find_key(&self, kid: Option<&str>) -> Option<Jwk> {
        let keys = self.keys.read().unwrap_or_else(|e| e.into_inner());
        let keys = keys.as_ref()?;
        match kid {
            Some(kid) => keys.find(kid).cloned(),
            // No `kid`: only unambiguous with a single key.
            None if keys.keys.len() == 1 => keys.keys.first().cloned(),
            None => None,
        }
    }

    /// Re-fetches a URL's keys, at most every [`JWKS_REFRESH_INTERVAL`].
    fn refresh(&self) {
        if matches!(self.source, KeySource::File(_)) {
            return;
        }
        {
            let mut last = self.last_fetch.lock().unwrap_or_else(|e| e.into_inner());
            if last.is_some_and(|t| t.elapsed() < JWKS_REFRESH_INTERVAL) {
                return;
            }
            *last = Some(Instant::now());
        }
        if let Ok(keys) = load_keys(&self.source) {
            *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Some(keys);
        }
    }

    /// Verifies `token`; the error says what was wrong with it. May fetch the JWKS
    /// again (blocking): call it off the async runtime.
    pub fn verify(&self, token: &str) -> Result<Identity, AuthError> {
        let header =
            jsonwebtoken::decode_header(token).map_err(|e| format!("malformed token: {e}"))?;
        refuse_critical_extensions(token)?;
        if !ALLOWED_ALGORITHMS.contains(&header.alg) {
            return Err(format!(
                "algorithm {:?} is not accepted (only asymmetric signatures are)",
                header.alg
            )
            .into());
        }
        self.ensure_keys()?;
        let kid = header.kid.as_deref();
        let jwk = match self.find_key(kid) {
            Some(k) => k,
            None => {
                self.refresh();
                self.find_key(kid).ok_or_else(|| match kid {
                    Some(kid) => format!("no key with kid '{kid}' in the issuer's JWKS"),
                    None => "the token has no kid and the JWKS holds several keys".to_string(),
                })?
            }
        };
        // The key decides the algorithm, not the token: a token claiming another
        // algorithm than its key's (or than the key's family) is refused.
        if let Some(key_alg) = jwk.common.key_algorithm
            && format!("{key_alg:?}") != format!("{:?}", header.alg)
        {
            return Err(format!(
                "the token's algorithm {:?} is not its key's ({key_alg:?})",
                header.alg
            )
            .into());
        }
        let key =
            DecodingKey::from_jwk(&jwk).map_err(|e| format!("unusable key in the JWKS: {e}"))?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&self.issuers);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = LEEWAY_SECS;
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|e| describe_jwt_error(&e, self.issuer(), &self.audience))?;
        let claims = data.claims;
        let subject = claims
            .get("sub")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .ok_or("the token's sub is not a non-empty string")?
            .to_string();
        Ok(Identity::new(Source::Jwt, subject, claims))
    }
}

/// Refuses a token whose header has `crit`: it names extensions the recipient must
/// understand to use the token (RFC 7515 §4.1.11), and this server understands none.
fn refuse_critical_extensions(token: &str) -> Result<(), AuthError> {
    use base64::Engine as _;
    let encoded = token.split('.').next().unwrap_or_default();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(encoded.trim_end_matches('='))
        .map_err(|e| {
            AuthError::caused_by(format!("malformed token: the header is not base64url: {e}"), e)
        })?;
    let header: Map<String, Value> = serde_json::from_slice(&bytes).map_err(|e| {
        AuthError::caused_by(format!("malformed token: the header is not a JSON object: {e}"), e)
    })?;
    match header.get("crit") {
        None => Ok(()),
        Some(names) => Err(format!(
            "the token's header marks extensions as critical (crit: {names}), which this server does not understand"
        )
        .into()),
    }
}

fn describe_jwt_error(e: &jsonwebtoken::errors::Error, issuer: &str, audience: &str) -> String {
    use jsonwebtoken::errors::ErrorKind as K;
    match e.kind() {
        K::ExpiredSignature => "the token has expired".into(),
        K::ImmatureSignature => "the token is not valid yet (nbf)".into(),
        K::InvalidAudience => {
            format!("the token is not for this server (aud must include {audience})")
        }
        K::InvalidIssuer => format!("the token's issuer is not {issuer}"),
        K::InvalidSignature => "the token's signature does not verify".into(),
        K::InvalidAlgorithm => "the token's algorithm does not match its key".into(),
        K::MissingRequiredClaim(c) => format!("the token has no '{c}' claim"),
        other => format!("invalid token: {other:?}"),
    }
}

/// Long random tokens mapped to identities (`--auth-tokens FILE`).
///
/// The file is JSON: `{"tokens": [{"token": "…", "sub": "alice", "claims": {…}}]}`.
pub struct StaticTokens {
    by_digest: HashMap<[u8; 32], Identity>,
}

impl StaticTokens {
    /// Reads a tokens file; every problem is named with its entry.
    pub fn load(path: &std::path::Path) -> Result<StaticTokens, AuthError> {
        let at = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {at}: {e}"))?;
        let doc: Value =
            serde_json::from_str(&text).map_err(|e| format!("{at} is not JSON: {e}"))?;
        let entries = doc.get("tokens").and_then(Value::as_array).ok_or_else(|| {
            format!("{at}: expected {{\"tokens\": [{{\"token\", \"sub\", \"claims\"}}...]}}")
        })?;
        let mut by_digest = HashMap::new();
        for (i, e) in entries.iter().enumerate() {
            let token = e.get("token").and_then(Value::as_str).unwrap_or_default();
            if token.chars().count() < MIN_STATIC_TOKEN_CHARS {
                return Err(format!(
                    "{at}: tokens[{i}]: a token must have at least {MIN_STATIC_TOKEN_CHARS} characters (use a long random one, e.g. `openssl rand -hex 32`)"
                ).into());
            }
            let sub =
                e.get("sub").and_then(Value::as_str).filter(|s| !s.is_empty()).ok_or_else(
                    || format!("{at}: tokens[{i}]: 'sub' must be a non-empty string"),
                )?;
            let mut claims = match e.get("claims") {
                None => Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => {
                    return Err(format!("{at}: tokens[{i}]: 'claims' must be an object").into());
                }
            };
            claims.insert("sub".into(), json!(sub));
            let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
            let identity = Identity::new(Source::StaticToken, sub.into(), claims);
            if by_digest.insert(digest, identity).is_some() {
                return Err(format!("{at}: tokens[{i}]: the same token is listed twice").into());
            }
        }
        if by_digest.is_empty() {
            return Err(format!("{at}: no tokens").into());
        }
        Ok(StaticTokens { by_digest })
    }

    /// The identity of `token`, if it is one of the file's.
    pub fn verify(&self, token: &str) -> Option<Identity> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        self.by_digest.get(&digest).cloned()
    }
}

impl std::fmt::Debug for Authenticator {
    // No keys or token digests in logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("jwt_issuer", &self.jwt.as_ref().map(JwtVerifier::issuer))
            .field("static_tokens", &self.tokens.as_ref().map(|t| t.by_digest.len()))
            .field("resource", &self.resource)
            .finish()
    }
}

/// The HTTP server's authentication: what it accepts and how it describes itself.
pub struct Authenticator {
    /// JWT verification, when configured.
    pub jwt: Option<JwtVerifier>,
    /// Static tokens, when configured.
    pub tokens: Option<StaticTokens>,
    /// This server's resource URL (`http://HOST:PORT/mcp`): the audience JWTs must name.
    pub resource: String,
}

impl Authenticator {
    /// The URL of the Protected Resource Metadata, from the resource URL.
    pub fn metadata_url(&self) -> String {
        match self
            .resource
            .find("://")
            .and_then(|i| self.resource[i + 3..].find('/').map(|j| i + 3 + j))
        {
            Some(path_start) => format!("{}{PRM_PATH}", &self.resource[..path_start]),
            None => format!("{}{PRM_PATH}", self.resource.trim_end_matches('/')),
        }
    }

    /// The Protected Resource Metadata document (RFC 9728 §2).
    pub fn metadata(&self) -> Value {
        let servers: Vec<&str> = self.jwt.iter().map(|j| j.issuer()).collect();
        json!({
            "resource": self.resource,
            "authorization_servers": servers,
            "bearer_methods_supported": ["header"],
            "resource_name": "filestore",
        })
    }

    /// Verifies a bearer token (blocking: a JWKS may be fetched again).
    pub fn verify(&self, token: &str) -> Result<Identity, AuthError> {
        if let Some(mut identity) = self.tokens.as_ref().and_then(|t| t.verify(token)) {
            if self.jwt.is_some() {
                // The issuer names its users, the tokens file names its own: a JWT
                // subject must never reach a token user's workspace.
                identity.segment = format!("{STATIC_TOKEN_SEGMENT_PREFIX}{}", identity.segment);
            }
            return Ok(identity);
        }
        match &self.jwt {
            Some(jwt) if token.split('.').count() == 3 => jwt.verify(token),
            _ => Err("the token is not valid here".into()),
        }
    }

    /// A `401` naming the metadata, and the reason when a token was given.
    pub fn challenge(&self, reason: Option<&str>) -> Response {
        let mut value = format!("Bearer resource_metadata=\"{}\"", self.metadata_url());
        let text = match reason {
            Some(r) => {
                // Quoted-string content: no quotes or backslashes, no control characters.
                let r: String = r
                    .chars()
                    .map(|c| if c == '"' || c == '\\' || c.is_control() { '\'' } else { c })
                    .collect();
                value.push_str(&format!(", error=\"invalid_token\", error_description=\"{r}\""));
                format!("unauthorized: {r}")
            }
            None => {
                "unauthorized: this server needs a bearer token (Authorization: Bearer ...)".into()
            }
        };
        let mut resp = (StatusCode::UNAUTHORIZED, text).into_response();
        if let Ok(v) = HeaderValue::from_str(&value) {
            resp.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
        resp
    }
}

/// The bearer token of a request: `None` without an `Authorization` header,
/// `Some(Err)` for one that is not `Bearer TOKEN`.
fn bearer(headers: &HeaderMap) -> Option<Result<&str, &'static str>> {
    let v = headers.get(header::AUTHORIZATION)?;
    let Ok(v) = v.to_str() else { return Some(Err("the Authorization header is not text")) };
    let mut parts = v.splitn(2, ' ');
    match (parts.next(), parts.next()) {
        (Some(scheme), Some(token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Some(Ok(token.trim()))
        }
        _ => Some(Err("the Authorization header must be 'Bearer TOKEN'")),
    }
}

/// Serves the Protected Resource Metadata (no token needed: clients read it to find
/// where to get one).
pub async fn metadata(State(auth): State<Arc<Authenticator>>) -> Response {
    axum::Json(auth.metadata()).into_response()
}

/// The middleware: every request but the metadata needs a valid bearer token; the
/// verified [`Identity`] goes into the request's extensions and [`IDENTITY`].
pub async fn check(
    State(auth): State<Arc<Authenticator>>,
    mut request: Request,
    next: Next,
) -> Response {
    if request.uri().path().starts_with("/.well-known/") {
        return next.run(request).await;
    }
    let token = match bearer(request.headers()) {
        None => return auth.challenge(None),
        Some(Err(why)) => return auth.challenge(Some(why)),
        Some(Ok(t)) => t.to_string(),
    };
    let verifier = auth.clone();
    let verified = tokio::task::spawn_blocking(move || verifier.verify(&token)).await;
    let identity = match verified {
        Ok(Ok(identity)) => identity,
        Ok(Err(why)) => return auth.challenge(Some(&why.to_string())),
        Err(_) => return auth.challenge(Some("the token could not be checked")),
    };
    // The connection counts toward the identity's cap, and is protected from
    // eviction once this request is complete (its body arrived).
    if let Some(mark) = request.extensions().get::<super::conn::RequestMark>()
        && let Err(why) = mark.verified(&identity.key())
    {
        let mut resp = (StatusCode::TOO_MANY_REQUESTS, why.to_string()).into_response();
        resp.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return resp;
    }
    request.extensions_mut().insert(identity.clone());
    IDENTITY.scope(identity, next.run(request)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A static token's caller and a JWT's caller with the same
    /// subject are two callers (sessions and call slots by [`Identity::key`]); on a
    /// server accepting both, their workspaces differ too, and no JWT subject can
    /// name the token's.
    #[test]
    fn static_and_jwt_callers_with_one_subject_are_apart() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.json");
        std::fs::write(
            &p,
            r#"{"tokens": [{"token": "0123456789abcdef01234567", "sub": "carol"}]}"#,
        )
        .unwrap();
        let alone = Authenticator {
            jwt: None,
            tokens: Some(StaticTokens::load(&p).unwrap()),
            resource: "http://127.0.0.1:1/mcp".into(),
        };
        assert_eq!(alone.verify("0123456789abcdef01234567").unwrap().segment, "carol");
        let issuer = KeySource::File(dir.path().join("never-read.json"));
        let both = Authenticator {
            jwt: Some(JwtVerifier::lazy(issuer, vec!["https://issuer.test".into()], "aud")),
            ..alone
        };
        let token_carol = both.verify("0123456789abcdef01234567").unwrap();
        let jwt_carol = Identity::new(Source::Jwt, "carol".into(), Map::new());
        assert_ne!(token_carol.key(), jwt_carol.key());
        assert_eq!(token_carol.segment, "token~carol");
        for sub in ["carol", "token~carol", "token%7Ecarol"] {
            assert_ne!(Identity::new(Source::Jwt, sub.into(), Map::new()).segment, "token~carol");
        }
        let limits = CallLimits::new(1);
        let _held = limits.acquire(&token_carol).unwrap();
        assert!(limits.acquire(&jwt_carol).is_ok(), "call slots are counted per caller");
    }

    /// A token whose header has `crit` is refused (RFC 7515
    /// §4.1.11: this server understands no extension), before any key is fetched.
    #[test]
    fn critical_header_extensions_are_refused() {
        use base64::Engine as _;
        let b64 = |v: Value| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string().as_bytes())
        };
        let header = b64(json!({"alg": "RS256", "kid": "k", "crit": ["urn:example:must-check"],
            "urn:example:must-check": true}));
        let token = format!("{header}.{}.c2ln", b64(json!({"sub": "alice"})));
        let dir = tempfile::tempdir().unwrap();
        let jwt =
            JwtVerifier::lazy(KeySource::File(dir.path().join("none.json")), vec!["i".into()], "a");
        let why = jwt.verify(&token).unwrap_err().to_string();
        assert!(why.contains("crit") && why.contains("urn:example:must-check"), "{why}");
    }

    /// A key source that cannot be read says so, and keeps the I/O error as its
    /// source, so an operator sees why (the message is the one operators have always
    /// read).
    #[test]
    fn unreadable_keys_keep_their_cause() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.json");
        let e = load_keys(&KeySource::File(missing.clone())).unwrap_err();
        assert!(
            e.to_string()
                .starts_with(&format!("cannot read the JWKS file {}: ", missing.display())),
            "{e}"
        );
        let cause = std::error::Error::source(&e).expect("the I/O error");
        assert_eq!(
            cause.downcast_ref::<std::io::Error>().map(std::io::Error::kind),
            Some(std::io::ErrorKind::NotFound)
        );
        // A lazy verifier wraps it, and the chain still reaches it.
        let jwt = JwtVerifier::lazy(KeySource::File(missing), vec!["i".into()], "a");
        let e = jwt.ensure_keys().unwrap_err();
        assert!(e.to_string().starts_with("cannot get the issuer's keys: cannot read"), "{e}");
        let inner = std::error::Error::source(&e).expect("the load error");
        assert!(std::error::Error::source(inner).is_some_and(|c| c.is::<std::io::Error>()));
    }

    #[test]
    fn calls_per_identity_are_limited_and_released() {
        let who = |s: &str| Identity::new(Source::Jwt, s.into(), Map::new());
        let limits = CallLimits::new(2);
        let a1 = limits.acquire(&who("a")).unwrap();
        let _a2 = limits.acquire(&who("a")).unwrap();
        assert!(limits.acquire(&who("a")).unwrap_err().to_string().contains("2 calls running"));
        let _b = limits.acquire(&who("b")).unwrap();
        drop(a1);
        assert!(limits.acquire(&who("a")).is_ok());
    }

    #[test]
    fn metadata_url_follows_the_resource() {
        let a =
            Authenticator { jwt: None, tokens: None, resource: "http://127.0.0.1:8080/mcp".into() };
        assert_eq!(
            a.metadata_url(),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
        );
    }

    #[test]
    fn weak_or_malformed_token_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.json");
        std::fs::write(&p, r#"{"tokens": [{"token": "short", "sub": "a"}]}"#).unwrap();
        assert!(StaticTokens::load(&p).err().unwrap().to_string().contains("at least 24"));
        std::fs::write(&p, r#"{"tokens": [{"token": "0123456789abcdef01234567", "sub": ""}]}"#)
            .unwrap();
        assert!(StaticTokens::load(&p).err().unwrap().to_string().contains("'sub'"));
        std::fs::write(&p, r#"{"tokens": [{"token": "0123456789abcdef01234567", "sub": "a", "claims": {"email": "a@x"}}]}"#).unwrap();
        let t = StaticTokens::load(&p).unwrap();
        let id = t.verify("0123456789abcdef01234567").unwrap();
        assert_eq!((id.subject.as_str(), &id.claims["email"]), ("a", &json!("a@x")));
        assert!(t.verify("0123456789abcdef0123456").is_none());
    }
}
