//! The component glue: the only modules that name generated WIT types, one file per
//! WIT interface (as the host's `glue/`).
//!
//! It implements the guest [`Volume`](crate::vfs::volume::Volume) trait over the imported
//! `volume` resource and exports the `filestore` interface over
//! [`Session`](crate::session::Session). Requests arrive as WIT records and are turned
//! into the JSON argument objects the operation modules decode, so defaults and
//! validation live in one place (the request types).
//!
//! - `types`: errors and entries, both ways.
//! - `volume`: the imported `volume` resource as a guest volume.
//! - `session`: the exported `filestore` interface (the session resource);
//!   `read_side`: its read, grep and tree results as WIT records.
//! - `shell_output`: a running shell command's output, to the imported `shell-output`.
//! - `python`: the imported `python` runs, for the shell's `python3`.
//! - `tool_host`: the imported `tool-host` as the executor and connection checker.
//! - `tools`: the exported `tools` interface (configuration, listing, invocation).
//! - `diagnostics`: the exported test and benchmark hooks.

mod diagnostics;
mod python;
mod read_side;
mod session;
mod shell_output;
mod tool_host;
mod tools;
mod types;
mod volume;

wit_bindgen::generate!({
    path: "../wit",
    world: "filestore-component",
});

struct Component;
export!(Component);
