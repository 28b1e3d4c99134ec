//! The stdio transport: [`transport`] (stdin and stdout on threads of their own,
//! every line answered through [`crate::guard`], even one too large to read or not a
//! JSON-RPC message) and [`fast`] (the reader thread answering a quick call itself;
//! what the server's sandbox work sees of such a call is [`crate::fast_call`], below
//! the server). The session over them is [`crate::serve_stdio`].

pub mod fast;
pub mod transport;
