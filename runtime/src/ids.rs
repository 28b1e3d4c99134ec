//! Ids unique across processes and replicas, without coordination: tool-call ids
//! ([`new_call_id`]) and the ULIDs that name audit records and snapshots
//! ([`new_ulid`]).

/// Crockford's base32 alphabet (no I, L, O, U): ids read unambiguously.
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// A new tool-call id: `call_` and 26 characters of a ULID (48 bits of Unix time in
/// milliseconds, then 80 random bits from the operating system). No counter lives
/// in any process, so replicas need not coordinate: two ids collide only if they
/// are made in the same millisecond and draw the same 80 bits (for a million ids in
/// one millisecond, a chance of about 4 × 10⁻¹³). Ids sort by creation time to the
/// millisecond, which keeps `/tool_calls` listings in call order.
pub fn new_call_id() -> String {
    format!("call_{}", new_ulid())
}

/// A new ULID (26 characters of Crockford's base32: 48 bits of Unix milliseconds,
/// 80 random bits), unique across processes without coordination and sorting by
/// creation time to the millisecond (and by creation order within one process):
/// the names of audit records and snapshots.
pub fn new_ulid() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
        & ((1 << 48) - 1);
    let mut random = [0u8; 10];
    // The OS generator does not fail on supported systems; if it ever did, an id
    // that might repeat must not be handed out.
    getrandom::fill(&mut random).expect("the operating system's random generator answers");
    let mut value: u128 = (ms as u128) << 80;
    for (i, b) in random.iter().enumerate() {
        value |= (*b as u128) << (8 * (9 - i));
    }
    // Monotonic within the process (as the ULID spec's monotonic variant): an id
    // made in the same millisecond as the last one follows it, so records written
    // one after the other sort in that order. Across processes, ids of one
    // millisecond sort at random.
    static LAST: std::sync::Mutex<u128> = std::sync::Mutex::new(0);
    let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
    if *last >> 80 == value >> 80 && value <= *last {
        value = *last + 1;
    }
    *last = value;
    drop(last);
    let mut out = String::with_capacity(26);
    for i in (0..26).rev() {
        out.push(ALPHABET[((value >> (5 * i)) & 31) as usize] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::time::Duration;

    use super::*;

    #[test]
    fn call_ids_are_ulids_and_do_not_repeat() {
        let ids: Vec<String> = (0..10_000).map(|_| new_call_id()).collect();
        let distinct: BTreeSet<&String> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
        for id in &ids[..10] {
            let rest = id.strip_prefix("call_").unwrap();
            assert_eq!(rest.len(), 26, "{id}");
            assert!(rest.bytes().all(|b| b"0123456789ABCDEFGHJKMNPQRSTVWXYZ".contains(&b)), "{id}");
        }
        // The time comes first: an id made later never sorts before (to the millisecond).
        let a = new_call_id();
        std::thread::sleep(Duration::from_millis(2));
        let b = new_call_id();
        assert!(a[5..15] < b[5..15], "{a} {b}");
    }
}
