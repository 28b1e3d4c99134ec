//! The MCP `logging` capability: `logging/setLevel` and `notifications/message`
//! for what a user should know but no request answers — skills skipped at start,
//! roots that could not be mounted, storage failures behind a failed call.
//!
//! The threshold starts at `warning`; a client lowers or raises it with
//! `logging/setLevel`. (The capability is deprecated by SEP-2577 for a future
//! protocol version; the versions this server negotiates have it.)
#![allow(deprecated)]

use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::{Peer, RoleServer};

/// The name messages are sent under.
pub const LOGGER: &str = "filestore";

/// The level below which messages are not sent.
#[derive(Debug)]
pub struct LogThreshold(AtomicU8);

impl Default for LogThreshold {
    fn default() -> Self {
        LogThreshold(AtomicU8::new(rank(LoggingLevel::Warning)))
    }
}

impl LogThreshold {
    /// Sets the threshold (`logging/setLevel`).
    pub fn set(&self, level: LoggingLevel) {
        self.0.store(rank(level), Ordering::Relaxed);
    }

    /// Whether a message at `level` is sent.
    pub fn allows(&self, level: LoggingLevel) -> bool {
        rank(level) >= self.0.load(Ordering::Relaxed)
    }
}

fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// Sends `message` at `level` when the threshold allows it; a closed connection
/// drops it.
pub async fn log(
    peer: &Peer<RoleServer>,
    threshold: &LogThreshold,
    level: LoggingLevel,
    message: String,
) {
    if !threshold.allows(level) {
        return;
    }
    let mut note = LoggingMessageNotificationParam::new(level, serde_json::Value::String(message));
    note.logger = Some(LOGGER.to_string());
    let _ = peer.notify_logging_message(note).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_orders_levels() {
        let t = LogThreshold::default();
        assert!(t.allows(LoggingLevel::Error) && t.allows(LoggingLevel::Warning));
        assert!(!t.allows(LoggingLevel::Info));
        t.set(LoggingLevel::Debug);
        assert!(t.allows(LoggingLevel::Debug));
        t.set(LoggingLevel::Critical);
        assert!(!t.allows(LoggingLevel::Error));
    }
}
