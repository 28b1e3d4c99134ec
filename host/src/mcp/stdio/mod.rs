//! The stdio transport: [`guard`] (every line answered, even one too large to read
//! or not a JSON-RPC message), [`transport`] (stdin and stdout on threads of their
//! own) and [`fast`] (the reader thread answering a quick call itself, and
//! [`fast_call`], what the server's sandbox work sees of such a call). The session
//! over them is [`crate::mcp::serve_stdio`].

pub mod fast;
pub(crate) mod fast_call;
pub mod guard;
pub mod transport;
