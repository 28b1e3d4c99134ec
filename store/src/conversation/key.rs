//! Conversation keys: what a platform names a conversation, scoped to the caller.

use sha2::{Digest, Sha256};

use super::{StateError, StateErrorKind};

/// Longest conversation key a caller may give, bytes.
pub const MAX_KEY_BYTES: usize = 128;
/// Longest identity a key is scoped to, bytes (a subject claim, a session owner).
pub const MAX_IDENTITY_BYTES: usize = 1024;

/// A conversation as the store knows it: the SHA-256 of the caller's identity and
/// the key the caller gave, in hex. The store never sees the key itself, so one
/// identity cannot name another's conversation (the digests differ), and no
/// character of a key can reach a path (the digest is 64 hex digits).
///
/// The key as the caller gave it is kept beside the digest for messages only
/// ([`ConversationKey::described`]): an operator or a client knows a conversation by
/// its name, not by a hash. It takes no part in equality, order or paths.
#[derive(Clone, Debug)]
pub struct ConversationKey {
    digest: String,
    name: Option<String>,
}

impl PartialEq for ConversationKey {
    fn eq(&self, other: &Self) -> bool {
        self.digest == other.digest
    }
}

impl Eq for ConversationKey {}

impl std::hash::Hash for ConversationKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.digest.hash(state)
    }
}

impl PartialOrd for ConversationKey {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ConversationKey {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.digest.cmp(&other.digest)
    }
}

impl ConversationKey {
    /// The conversation `key` of the caller `identity` (the authenticated subject;
    /// `""` for an unauthenticated deployment, where every caller is one identity).
    /// The key is 1 to [`MAX_KEY_BYTES`] bytes of ASCII letters, digits and
    /// `. _ : -` (so a session id, a ULID or a platform's `conv:123` fit, and a path
    /// does not); anything else is `invalid-key`, naming the rule, never echoing the
    /// key.
    pub fn scoped(identity: &str, key: &str) -> Result<ConversationKey, StateError> {
        let bad = |why: String| Err(StateError::new(StateErrorKind::InvalidKey, why));
        if key.is_empty() {
            return bad("the conversation key is empty".into());
        }
        if key.len() > MAX_KEY_BYTES {
            return bad(format!(
                "the conversation key is {} bytes; the limit is {MAX_KEY_BYTES}",
                key.len()
            ));
        }
        if key.chars().all(|c| c == '.') {
            return bad("the conversation key is only dots; give letters or digits too".into());
        }
        if let Some(c) = key.chars().find(|c| !allowed(*c)) {
            return bad(format!(
                "the conversation key holds {c:?}; allowed are ASCII letters, digits and . _ : -"
            ));
        }
        if identity.len() > MAX_IDENTITY_BYTES {
            return bad(format!(
                "the identity is {} bytes; the limit is {MAX_IDENTITY_BYTES}",
                identity.len()
            ));
        }
        // Length-prefixed fields under a domain tag: no (identity, key) pair shares
        // its input with another (`a` + `b:c` vs `a:b` + `c`).
        let mut h = Sha256::new();
        h.update(b"filestore-conversation\0");
        h.update((identity.len() as u64).to_be_bytes());
        h.update(identity.as_bytes());
        h.update((key.len() as u64).to_be_bytes());
        h.update(key.as_bytes());
        let digest = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok(ConversationKey { digest, name: Some(key.to_string()) })
    }

    /// A key read back from the store's layout (a directory name under
    /// `conversations/`); `None` unless it is 64 lowercase hex digits.
    pub(super) fn from_stored(name: &str) -> Option<ConversationKey> {
        (name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| ConversationKey { digest: name.to_string(), name: None })
    }

    /// The digest: the conversation's directory name in the store.
    pub fn as_str(&self) -> &str {
        &self.digest
    }

    /// How a message names the conversation: `'alice'`, the key its client gave,
    /// or the digest of one read back from the store (whose name is not kept).
    pub fn described(&self) -> String {
        match &self.name {
            Some(n) => format!("'{n}'"),
            None => self.digest.clone(),
        }
    }
}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-')
}

impl std::fmt::Display for ConversationKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.digest)
    }
}
