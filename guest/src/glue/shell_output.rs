//! A running shell command's output, to the imported `shell-output` interface.

use super::filestore::component::shell_output as so;

/// A running shell command's output, to the imported `shell-output`.
pub(super) fn emit_shell_output(stream: crate::shell::stream::Stream, chunk: &[u8]) {
    let stream = match stream {
        crate::shell::stream::Stream::Stdout => so::OutputStream::Stdout,
        crate::shell::stream::Stream::Stderr => so::OutputStream::Stderr,
    };
    so::emit(stream, chunk);
}
