//! The tokens of a tool configuration's auth services (`authServices`), as Toolbox
//! reads them: each in its own `{name}_token` header, verified against that
//! service's provider with the JWT verification of [`super::auth`], and the claims
//! map a tool call carries (the bearer token's for `mcpEnabled` services, the
//! headers' for the others).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use super::auth::{AuthError, JwtVerifier, KeySource};
use super::identity::Identity;

/// The claims map a tool call carries for a caller verified as `identity`: its
/// token's claims under each auth service in `services`.
pub fn claims_for(
    identity: Option<&Identity>,
    services: &[String],
    headers: Option<&ServiceClaims>,
) -> Value {
    let mut out = Map::new();
    if let Some(identity) = identity {
        for s in services {
            out.insert(s.clone(), Value::Object(identity.claims.clone()));
        }
    }
    if let Some(ServiceClaims(claims)) = headers {
        for (k, v) in claims {
            out.insert(k.clone(), v.clone());
        }
    }
    if out.is_empty() { Value::Null } else { Value::Object(out) }
}

/// Google's signing keys for ID tokens (`google` auth services).
pub const GOOGLE_JWKS_URL: &str = "https://www.googleapis.com/oauth2/v3/certs";

/// The tokens of a tool configuration's auth services (`authServices`), as Toolbox
/// reads them: each in its own header `{name}_token`, verified against that
/// service's provider. `google`: Google's keys (from [`GOOGLE_JWKS_URL`], or
/// `$FILESTORE_GOOGLE_JWKS_URL` for an air-gapped mirror), `iss` Google's, `aud` the
/// `clientId`. `generic`: the keys of the `authorizationServer`'s OpenID discovery,
/// `iss` that server, `aud` the `audience` (a `mcpEnabled` one is verified by the
/// bearer token instead, see [`crate::ServerConfig::bearer_services`]). Keys are
/// fetched when a first token arrives.
#[derive(Default)]
pub struct ServiceTokens {
    services: Vec<(String, JwtVerifier)>,
}

impl std::fmt::Debug for ServiceTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.services.iter().map(|(n, _)| n)).finish()
    }
}

/// What an auth service of a configuration is, with its fields resolved.
pub struct ServiceSpec {
    /// Its name.
    pub name: String,
    /// Its `type`.
    pub service_type: String,
    /// Its fields (`clientId`, `audience`, `authorizationServer`, `mcpEnabled`...).
    pub fields: Map<String, Value>,
}

impl ServiceTokens {
    /// Verifiers for the services of `specs` whose header tokens this host reads;
    /// the others are returned with why (a `generic` service with `mcpEnabled` is
    /// not among them: the bearer token speaks for it).
    pub fn from_specs(specs: &[ServiceSpec]) -> (ServiceTokens, Vec<String>) {
        let mut services = Vec::new();
        let mut skipped = Vec::new();
        let text = |s: &ServiceSpec, f: &str| -> Option<String> {
            s.fields.get(f).and_then(Value::as_str).map(str::to_string).filter(|v| !v.is_empty())
        };
        for s in specs {
            match s.service_type.as_str() {
                "google" => match text(s, "clientId") {
                    Some(client) => {
                        let url = std::env::var("FILESTORE_GOOGLE_JWKS_URL")
                            .unwrap_or_else(|_| GOOGLE_JWKS_URL.to_string());
                        let issuers =
                            vec!["https://accounts.google.com".into(), "accounts.google.com".into()];
                        services.push((s.name.clone(), JwtVerifier::lazy(KeySource::Url(url), issuers, &client)));
                    }
                    None => skipped.push(format!("auth service '{}' (google) has no clientId", s.name)),
                },
                "generic" if s.fields.get("mcpEnabled") == Some(&Value::Bool(true)) => {}
                "generic" => match (text(s, "authorizationServer"), text(s, "audience")) {
                    (Some(server), Some(aud)) => {
                        let base = server.trim_end_matches('/').to_string();
                        let issuers = vec![base.clone(), format!("{base}/")];
                        services.push((s.name.clone(), JwtVerifier::lazy(KeySource::Discover(base), issuers, &aud)));
                    }
                    _ => skipped.push(format!(
                        "auth service '{}' (generic) needs authorizationServer and audience",
                        s.name
                    )),
                },
                other => skipped.push(format!(
                    "auth service '{}' has type '{other}', whose tokens this host cannot verify; its tools' authRequired fails",
                    s.name
                )),
            }
        }
        (ServiceTokens { services }, skipped)
    }

    /// Whether no service's tokens are read.
    pub fn is_empty(&self) -> bool {
        self.services.is_empty()
    }

    /// Verifies `token` for service `name` (`filestore call --token NAME=TOKEN`).
    pub fn verify_one(&self, name: &str, token: &str) -> Result<Value, AuthError> {
        let (_, v) =
            self.services.iter().find(|(n, _)| n == name).ok_or_else(|| {
                format!("no auth service '{name}' whose tokens this host verifies")
            })?;
        v.verify(token)
            .map(|i| Value::Object(i.claims))
            .map_err(|e| format!("the token for auth service '{name}': {e}").into())
    }

    /// The claims, by service, of the `{name}_token` headers present; an invalid one
    /// is an error naming its service (blocking: keys may be fetched).
    pub fn verify_headers(&self, headers: &HeaderMap) -> Result<Map<String, Value>, AuthError> {
        let mut out = Map::new();
        for (name, v) in &self.services {
            let Some(value) = headers.get(format!("{name}_token").as_str()) else { continue };
            let token =
                value.to_str().map_err(|_| format!("the {name}_token header is not text"))?;
            let claims =
                v.verify(token.trim()).map_err(|e| format!("the {name}_token header: {e}"))?;
            out.insert(name.clone(), Value::Object(claims.claims));
        }
        Ok(out)
    }
}

/// The claims, by auth service, of the tokens a request carried in `{name}_token`
/// headers (request extension).
#[derive(Clone, Debug, Default)]
pub struct ServiceClaims(pub Map<String, Value>);

/// The middleware reading auth services' header tokens: verified claims go into the
/// request's extensions as [`ServiceClaims`]; an invalid token is `401` naming its
/// service, as in Toolbox. No header: nothing verified (tools needing the service
/// fail `unauthorized`).
pub async fn service_claims(
    State(services): State<Arc<ServiceTokens>>,
    mut request: Request,
    next: Next,
) -> Response {
    let present = services
        .services
        .iter()
        .any(|(n, _)| request.headers().contains_key(format!("{n}_token").as_str()));
    if present {
        let headers = request.headers().clone();
        let checker = services.clone();
        match tokio::task::spawn_blocking(move || checker.verify_headers(&headers)).await {
            Ok(Ok(claims)) => {
                request.extensions_mut().insert(ServiceClaims(claims));
            }
            Ok(Err(why)) => {
                return (StatusCode::UNAUTHORIZED, format!("unauthorized: {why}")).into_response();
            }
            Err(_) => {
                return (StatusCode::UNAUTHORIZED, "unauthorized: the token could not be checked")
                    .into_response();
            }
        }
    }
    next.run(request).await
}
