//! Ending on a signal. `SIGTERM` (what a client sends a server it wants gone, as the
//! MCP specification's shutdown sequence does once the server has not exited soon
//! after its input closed), `SIGHUP` and, over stdio, `SIGINT` end the process at
//! once, as their default action does, with the status a shell reports for them
//! (128 + the signal's number); first they stop the upstream servers' process groups.
//! Each is a group of its own, so that stopping it stops what it started, and
//! neither the signal nor this process's end reaches it: a busy upstream lived on.

/// Ends the process on those signals, from a thread of its own, watching from now
/// on (before any upstream starts); `SIGINT` only when `interrupt` (over HTTP it
/// shuts the server down gracefully instead).
#[cfg(unix)]
pub(super) fn end_on_signals(interrupt: bool) -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build()?;
    let (mut terminate, mut hangup, mut int) = runtime.block_on(async {
        std::io::Result::Ok((
            signal(SignalKind::terminate())?,
            signal(SignalKind::hangup())?,
            interrupt.then(|| signal(SignalKind::interrupt())).transpose()?,
        ))
    })?;
    std::thread::Builder::new().name("filestore-signals".into()).spawn(move || {
        let number = runtime.block_on(async move {
            let interrupted = async {
                match &mut int {
                    Some(int) => int.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = terminate.recv() => 15,
                _ = hangup.recv() => 1,
                _ = interrupted => 2,
            }
        });
        crate::providers::mcp::kill_every_process_group();
        std::process::exit(128 + number);
    })?;
    Ok(())
}

#[cfg(not(unix))]
pub(super) fn end_on_signals(_interrupt: bool) -> std::io::Result<()> {
    Ok(())
}
