//! A small blocking connection pool for one source.
//!
//! Why not `r2d2`: when the server refuses a connection, r2d2 keeps retrying in the
//! background until the checkout times out and then reports only "timed out waiting
//! for connection" with the cause's text flattened; a tool call must fail at once
//! with the server's reason (wrong password, unknown certificate issuer). Here a
//! checkout reuses an idle connection that is still open, or opens one on the
//! calling thread (its error is the call's error), or waits for one to come back
//! while [`Pool::max`] are out.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use super::connect::Connection;

/// Why no connection could be had.
#[derive(Debug)]
pub enum Unavailable {
    /// Opening a connection failed (the driver's error, with its cause).
    Connect(postgres::Error),
    /// Every connection stayed in use until the deadline.
    Busy,
}

/// Idle connections of one source and how many are out.
pub struct Pool {
    connection: Connection,
    max: usize,
    idle_timeout: Duration,
    state: Mutex<State>,
    returned: Condvar,
}

struct State {
    idle: Vec<(postgres::Client, Instant)>,
    out: usize,
}

/// A checked-out connection; back to the pool when dropped (unless it broke).
pub struct Pooled<'a> {
    pool: &'a Pool,
    client: Option<postgres::Client>,
}

impl std::ops::Deref for Pooled<'_> {
    type Target = postgres::Client;
    fn deref(&self) -> &postgres::Client {
        self.client.as_ref().expect("present until drop")
    }
}

impl std::ops::DerefMut for Pooled<'_> {
    fn deref_mut(&mut self) -> &mut postgres::Client {
        self.client.as_mut().expect("present until drop")
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        let mut st = self.pool.state.lock().unwrap_or_else(|e| e.into_inner());
        st.out -= 1;
        if let Some(c) = self.client.take()
            && !c.is_closed()
        {
            st.idle.push((c, Instant::now()));
        }
        self.pool.returned.notify_one();
    }
}

impl Pooled<'_> {
    /// Closes this connection instead of returning it (its state is unknown).
    pub fn discard(mut self) {
        drop(self.client.take());
    }
}

impl Pool {
    /// The TLS connector (for cancel requests, which open their own connection).
    pub fn tls(&self) -> tokio_postgres_rustls::MakeRustlsConnect {
        self.connection.tls.clone()
    }

    /// A pool of at most `max` connections to `connection`'s server.
    pub fn new(connection: Connection, max: usize, idle_timeout: Duration) -> Pool {
        Pool {
            connection,
            max: max.max(1),
            idle_timeout,
            state: Mutex::new(State { idle: Vec::new(), out: 0 }),
            returned: Condvar::new(),
        }
    }

    /// A connection, waiting at most until `deadline` for one to be free.
    pub fn get(&self, deadline: Instant) -> Result<Pooled<'_>, Unavailable> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some((mut c, since)) = st.idle.pop() {
                // Counted as out while checked, outside the lock (a round trip to a
                // hung server must not hold up every other checkout).
                st.out += 1;
                drop(st);
                // A connection the server closed, or idle too long, is dropped; a
                // quick round trip catches one that died without our noticing.
                if !c.is_closed()
                    && since.elapsed() <= self.idle_timeout
                    && c.simple_query("").is_ok()
                {
                    return Ok(Pooled { pool: self, client: Some(c) });
                }
                st = self.state.lock().unwrap_or_else(|e| e.into_inner());
                st.out -= 1;
                continue;
            }
            if st.out < self.max {
                st.out += 1;
                drop(st);
                let mut config = self.connection.config.clone();
                let left = deadline.saturating_duration_since(Instant::now());
                if let Some(t) = config.get_connect_timeout().copied() {
                    config.connect_timeout(t.min(left).max(Duration::from_millis(1)));
                }
                return match config.connect(self.connection.tls.clone()) {
                    Ok(c) => Ok(Pooled { pool: self, client: Some(c) }),
                    Err(e) => {
                        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
                        st.out -= 1;
                        self.returned.notify_one();
                        Err(Unavailable::Connect(e))
                    }
                };
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Unavailable::Busy);
            }
            st = self.returned.wait_timeout(st, left).unwrap_or_else(|e| e.into_inner()).0;
        }
    }
}
