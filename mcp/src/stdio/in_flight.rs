//! The requests the reader handed to rmcp and rmcp has not answered yet, and the
//! answers written since the session began: what the fast path waits for before it
//! runs a call ([`super::fast`]), and what the end of input waits for before rmcp
//! hears it ([`super::fast::FastPath::input_ended`]).
//!
//! A request counts from the moment it is read until rmcp answers it, or until a
//! `notifications/cancelled` names it; rmcp's answer to a request the client
//! cancelled, should it still send one, is dropped, as the executor drops its own.
//! One given up at the end of input ([`InFlight::abandon_all`]) is answered by the
//! reader with an error, so rmcp's own answer to it, should one still come, is
//! dropped ([`InFlight::answered`]): every request is answered once.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rmcp::model::RequestId;
use tokio_util::sync::CancellationToken;

/// How many cancelled ids are remembered: rmcp itself drops the answer of nearly
/// every cancelled request, so most are never looked up again.
const MAX_CANCELLED: usize = 10_000;

/// See the module docs.
#[derive(Default)]
pub(super) struct InFlight {
    state: Mutex<State>,
    /// Told whenever an answer is written or a call ends.
    answer: Condvar,
}

#[derive(Default)]
struct State {
    /// By id, each with the cancellation the reader gave it; a client may reuse an
    /// id, so there may be several.
    open: HashMap<RequestId, Vec<CancellationToken>>,
    /// Given up at the end of input, by id: how many of rmcp's answers to drop.
    abandoned: HashMap<RequestId, usize>,
    /// Cancelled by the client, by id: how many of rmcp's answers to drop, should
    /// it send one (it answers a request whose handler ended before its own loop
    /// took up the cancellation, which the reader applied at once).
    cancelled: HashMap<RequestId, usize>,
    /// Answers written and calls ended since the start.
    answers: u64,
}

impl InFlight {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A request handed to rmcp, cancelled through `cancellation`.
    pub fn add(&self, id: RequestId, cancellation: CancellationToken) {
        let mut state = self.state();
        // The client is done with any earlier request of this id.
        state.cancelled.remove(&id);
        state.open.entry(id).or_default().push(cancellation);
    }

    /// A `notifications/cancelled` naming `id`: its requests are cancelled, no
    /// longer waited for, and not answered.
    pub fn cancel(&self, id: &RequestId) {
        let mut state = self.state();
        let cancellations = state.open.remove(id).unwrap_or_default();
        if cancellations.is_empty() {
            return;
        }
        if state.cancelled.len() >= MAX_CANCELLED {
            // rmcp drops nearly every such answer itself: a bound, not a loss.
            state.cancelled.clear();
        }
        *state.cancelled.entry(id.clone()).or_default() += cancellations.len();
        for cancellation in cancellations {
            cancellation.cancel();
        }
    }

    /// rmcp answers `id`: whether its answer is to be written (not when the
    /// request was given up and answered already, or cancelled by the client). Of
    /// two requests of one id, the first is taken to be answered first.
    pub fn answered(&self, id: &RequestId) -> bool {
        let mut state = self.state();
        state.answers += 1;
        self.answer.notify_all();
        let state = &mut *state;
        for dropping in [&mut state.abandoned, &mut state.cancelled] {
            if let Some(dropped) = dropping.get_mut(id) {
                *dropped -= 1;
                if *dropped == 0 {
                    dropping.remove(id);
                }
                return false;
            }
        }
        if let Some(open) = state.open.get_mut(id) {
            open.remove(0);
            if open.is_empty() {
                state.open.remove(id);
            }
        }
        true
    }

    /// A call that is not rmcp's ended (answered or cancelled).
    pub fn call_ended(&self) {
        self.state().answers += 1;
        self.answer.notify_all();
    }

    /// Whether rmcp has every request answered.
    pub fn is_empty(&self) -> bool {
        self.state().open.is_empty()
    }

    /// The answers written and calls ended so far.
    pub fn answers(&self) -> u64 {
        self.state().answers
    }

    /// Waits at most `limit` for more than `seen` answers: how many there are then,
    /// or `None` if there were no more.
    pub fn wait_past(&self, seen: u64, limit: Duration) -> Option<u64> {
        let end = Instant::now() + limit;
        let mut state = self.state();
        while state.answers <= seen {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            state = self.answer.wait_timeout(state, left).unwrap_or_else(|p| p.into_inner()).0;
        }
        Some(state.answers)
    }

    /// Cancels every request rmcp has not answered, one id per request, and drops
    /// rmcp's answers to them from now on: the caller answers them.
    pub fn abandon_all(&self) -> Vec<RequestId> {
        let mut state = self.state();
        let mut given_up = Vec::new();
        for (id, cancellations) in std::mem::take(&mut state.open) {
            for cancellation in cancellations {
                cancellation.cancel();
                *state.abandoned.entry(id.clone()).or_default() += 1;
                given_up.push(id.clone());
            }
        }
        given_up
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::NumberOrString;

    fn id(n: i64) -> RequestId {
        NumberOrString::Number(n)
    }

    /// A request rmcp never answers (cancelled) or answers once for two of one id
    /// does not stay open.
    #[test]
    fn requests_are_tracked_by_id() {
        let in_flight = InFlight::default();
        in_flight.add(id(3), CancellationToken::new());
        assert!(!in_flight.is_empty());
        in_flight.cancel(&id(3));
        assert!(in_flight.is_empty(), "a cancelled request is not waited for");
        in_flight.add(id(7), CancellationToken::new());
        in_flight.add(id(7), CancellationToken::new());
        assert!(in_flight.answered(&id(7)));
        assert!(!in_flight.is_empty(), "one of the two is answered");
        assert!(in_flight.answered(&id(7)));
        assert!(in_flight.is_empty());
    }

    /// A request the client cancelled is not answered, should rmcp still answer
    /// it; a later request of its id is.
    #[test]
    fn a_request_the_client_cancelled_is_not_answered() {
        let in_flight = InFlight::default();
        let token = CancellationToken::new();
        in_flight.add(id(4), token.clone());
        in_flight.cancel(&id(4));
        assert!(token.is_cancelled());
        assert!(!in_flight.answered(&id(4)), "rmcp's late answer is dropped");
        assert!(in_flight.answered(&id(4)), "only one answer per cancelled request");
        in_flight.cancel(&id(5));
        assert!(in_flight.answered(&id(5)), "a cancellation naming no request drops nothing");
        in_flight.add(id(6), CancellationToken::new());
        in_flight.cancel(&id(6));
        in_flight.add(id(6), CancellationToken::new());
        assert!(in_flight.answered(&id(6)), "a new request of a cancelled id");
    }

    /// Requests given up are cancelled and answered once: rmcp's later answers to
    /// them are dropped, one per request, and a request of the same id read later
    /// is answered as usual.
    #[test]
    fn a_request_given_up_is_answered_once() {
        let in_flight = InFlight::default();
        let (a, b, c) =
            (CancellationToken::new(), CancellationToken::new(), CancellationToken::new());
        in_flight.add(id(1), a.clone());
        in_flight.add(id(1), b.clone());
        in_flight.add(id(2), c.clone());
        let mut given_up = in_flight.abandon_all();
        given_up.sort_by_key(|i| i.to_string());
        assert_eq!(given_up, [id(1), id(1), id(2)]);
        assert!(a.is_cancelled() && b.is_cancelled() && c.is_cancelled());
        assert!(in_flight.is_empty());
        assert!(!in_flight.answered(&id(1)) && !in_flight.answered(&id(1)));
        assert!(!in_flight.answered(&id(2)));
        in_flight.add(id(1), CancellationToken::new());
        assert!(in_flight.answered(&id(1)), "a later request of a given-up id");
        assert!(in_flight.is_empty());
    }

    /// The end of input waits for the next answer or call end, not longer; with
    /// none, for the limit.
    #[test]
    fn waits_for_the_next_answer() {
        let in_flight = std::sync::Arc::new(InFlight::default());
        let seen = in_flight.answers();
        assert_eq!(in_flight.wait_past(seen, Duration::from_millis(20)), None);
        let other = in_flight.clone();
        let ender = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            other.call_ended();
        });
        assert_eq!(in_flight.wait_past(seen, Duration::from_secs(60)), Some(seen + 1));
        ender.join().unwrap();
        assert!(in_flight.answered(&id(9)), "an answer to no request read is written");
        assert_eq!(in_flight.wait_past(seen + 1, Duration::ZERO), Some(seen + 2));
    }
}
