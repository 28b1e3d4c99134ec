//! The isolation promise, checked on the built component itself: it imports nothing
//! beyond an explicit allow-list (no `wasi:filesystem`, `wasi:sockets`, `wasi:http`;
//! clocks only as the host's coarse ones), and at run time it sees no environment
//! variables and no arguments even when the host process has them.

use std::collections::BTreeSet;

use wasmparser::{Parser, Payload};

use crate::common::*;

/// Everything the component may import, without versions. The project's own
/// interfaces, and what Rust's standard library for `wasm32-wasip2` links: the
/// environment and arguments (empty, see below), exit, stdio streams and terminals
/// (not connected: the host gives none), the streams they use, and the random seed
/// of `HashMap`; and the clocks, which the shell of `filestore_execute` needs for its
/// timeouts and which the host makes coarse (`filestore::clocks`: 10 ms
/// steps, whole seconds; tested in shell.rs). `filestore:component/shell-output` is a
/// one-way sink for a running command's output (the host receives bytes the command
/// printed, bounded by the component; it gives nothing back), added with streaming
/// (docs/shell.md#streaming-progress-and-cancellation). `filestore:component/python`
/// starts the shell's `python3` in the host and hands its file requests to the
/// component to answer (docs/shell.md#python3): the interpreter gets nothing the
/// shell's filesystem does not give, and the component nothing back but the run's
/// requests and output. Anything else — above all
/// `wasi:filesystem/*` (preopens), `wasi:sockets/*`, `wasi:http/*` — is a new way out
/// of the sandbox and must be a deliberate change of this list.
const ALLOWED: &[&str] = &[
    "filestore:component/python",
    "filestore:component/shell-output",
    "filestore:component/tool-host",
    "filestore:component/types",
    "filestore:component/volume",
    "wasi:cli/environment",
    "wasi:cli/exit",
    "wasi:cli/stderr",
    "wasi:cli/stdin",
    "wasi:cli/stdout",
    "wasi:cli/terminal-input",
    "wasi:cli/terminal-output",
    "wasi:cli/terminal-stderr",
    "wasi:cli/terminal-stdin",
    "wasi:cli/terminal-stdout",
    "wasi:clocks/monotonic-clock",
    "wasi:clocks/wall-clock",
    "wasi:io/error",
    "wasi:io/poll",
    "wasi:io/streams",
    "wasi:random/insecure-seed",
];

/// The names the component's top level imports (`wasi:io/error@0.2.6`...).
fn component_imports(bytes: &[u8]) -> BTreeSet<String> {
    let mut depth = 0usize;
    let mut out = BTreeSet::new();
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.expect("the embedded component parses") {
            Payload::Version { .. } => depth += 1,
            Payload::End(_) => depth -= 1,
            Payload::ComponentImportSection(reader) if depth == 1 => {
                for import in reader {
                    out.insert(import.expect("import").name.name.to_string());
                }
            }
            _ => {}
        }
    }
    out
}

#[test]
fn the_component_imports_only_the_allowed_interfaces() {
    let imports = component_imports(filestore::component());
    let unversioned: BTreeSet<&str> =
        imports.iter().map(|i| i.split('@').next().unwrap_or(i)).collect();
    // The parse must have found the real import section, or it proves nothing.
    for own in [
        "filestore:component/volume",
        "filestore:component/tool-host",
        "filestore:component/shell-output",
    ] {
        assert!(unversioned.contains(own), "{own} missing from {imports:?}");
    }
    let forbidden: Vec<&&str> = unversioned
        .iter()
        .filter(|i| {
            ["wasi:filesystem/", "wasi:sockets/", "wasi:http/"].iter().any(|p| i.starts_with(p))
        })
        .collect();
    assert!(forbidden.is_empty(), "the component imports {forbidden:?}: a way out of the sandbox");
    let unexpected: Vec<&&str> = unversioned.iter().filter(|i| !ALLOWED.contains(i)).collect();
    assert!(
        unexpected.is_empty(),
        "the component imports {unexpected:?}, which is not on the allow-list in {}",
        file!()
    );
}

#[test]
fn the_allow_list_check_catches_a_filesystem_import() {
    // A tiny component importing `wasi:filesystem/preopens` (built with the encoder
    // wasmtime's toolchain uses) is seen by the same decoding the test above relies on.
    use wasm_encoder::{
        Component, ComponentImportSection, ComponentTypeRef, ComponentTypeSection, InstanceType,
    };
    let mut c = Component::new();
    let mut types = ComponentTypeSection::new();
    types.instance(&InstanceType::new());
    c.section(&types);
    let mut imports = ComponentImportSection::new();
    imports.import("wasi:filesystem/preopens@0.2.6", ComponentTypeRef::Instance(0));
    c.section(&imports);
    let bytes = c.finish();
    assert!(component_imports(&bytes).contains("wasi:filesystem/preopens@0.2.6"));
}

#[test]
fn the_guest_sees_no_environment_and_no_arguments() {
    // The host process has an environment (cargo sets CARGO_* for every test run) and
    // arguments; none of it may reach the guest. The test does not set a variable of
    // its own: `std::env::set_var` is `unsafe` in edition 2024 (other test threads
    // read the environment) and the workspace denies unsafe code; any variable the
    // process already has proves the same. Preopened directories are not observable
    // from inside at all: the component imports no `wasi:filesystem` interface, which
    // the import-list test above guarantees.
    assert!(std::env::vars_os().count() > 0, "the test needs a host environment");
    assert!(std::env::args_os().count() > 0);
    let mut s = session_with("/w", mem(&[]));
    let (env, args) = s.diagnostics_ambient().expect("observe");
    assert!(env.is_empty(), "the guest sees environment variables: {env:?}");
    assert!(args.is_empty(), "the guest sees arguments: {args:?}");
}
