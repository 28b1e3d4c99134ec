//! The streamable HTTP transport's layers, outermost first as a request meets them:
//! [`conn`] (connections bounded before authentication, read timeouts), [`origin`]
//! (`Origin` checks), [`auth`] (bearer tokens), [`service_tokens`] (auth services'
//! `{name}_token` headers), [`pool`] (session admission), [`body`] (malformed and
//! oversized bodies answered) and [`capture`] (the conversation the request names).
//! [`identity`] is who a verified caller is, as the layers after authentication tell
//! callers apart. The router that stacks them is [`crate::serve_http_with`].

pub mod auth;
pub mod body;
pub mod capture;
pub mod conn;
pub mod identity;
pub mod origin;
pub mod pool;
pub mod service_tokens;
