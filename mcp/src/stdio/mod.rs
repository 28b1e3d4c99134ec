//! The stdio transport: [`transport`] (stdin read on a thread of its own, every
//! line answered through [`crate::guard`], even one too large to read or not a
//! JSON-RPC message), [`writer`] (stdout written on another), and [`fast`] (which
//! thread runs a call: the reader itself, the executor thread of `executor.rs`, or
//! rmcp; each answers with the line of `answer.rs`; `in_flight.rs` counts rmcp's
//! unanswered requests, which the end of input waits for; what the server's sandbox work
//! sees of it is [`crate::fast_call`], below the server). The session over them is
//! [`crate::serve_stdio`].

mod answer;
mod executor;
pub mod fast;
mod in_flight;
pub mod transport;
pub mod writer;
