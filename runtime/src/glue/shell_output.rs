//! Host side of the WIT `shell-output` interface: a running command's chunks go to
//! the session's sink, if any (see [`crate::shell_output`]).

use crate::bindings::filestore::component::shell_output::{self as wit, OutputStream};
use crate::shell_output::{self as domain, OutputChunk};
use crate::state::HostState;

impl wit::Host for HostState {
    fn emit(&mut self, stream: OutputStream, chunk: Vec<u8>) -> wasmtime::Result<()> {
        let Some(sink) = self.output.as_mut() else { return Ok(()) };
        // The component bounds chunks; a host does not trust that.
        let bytes = &chunk[..chunk.len().min(MAX_CHUNK_BYTES)];
        let stream = match stream {
            OutputStream::Stdout => domain::OutputStream::Stdout,
            OutputStream::Stderr => domain::OutputStream::Stderr,
        };
        sink(OutputChunk { stream, bytes });
        Ok(())
    }
}

/// Most bytes of a chunk passed on (the WIT's bound).
const MAX_CHUNK_BYTES: usize = 4096;
