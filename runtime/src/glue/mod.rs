//! Host implementations of the imported WIT interfaces, one file per interface
//! (as in wasmtime's `wasi` crate): each method looks up the resource, calls the
//! domain code, converts the result.

pub mod python;
pub mod shell_output;
pub mod tool_host;
pub mod tools;
pub mod types;
pub mod volume;
