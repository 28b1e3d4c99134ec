//! A small blocking connection pool for one source, shared by the SQL handlers
//! (`postgres`, `mysql`): each gives a [`Connector`] that opens and checks its
//! driver's connections.
//!
//! Why not `r2d2` (or the drivers' own pools): when the server refuses a connection,
//! r2d2 keeps retrying in the background until the checkout times out and then
//! reports only "timed out waiting for connection" with the cause's text flattened; a
//! tool call must fail at once with the server's reason (wrong password, unknown
//! certificate issuer). Here a checkout reuses an idle connection that is still open,
//! or opens one on the calling thread (its error is the call's error), or waits for
//! one to come back while [`Pool::new`]'s `max` are out.

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// How a pool opens and checks the connections of one driver.
pub trait Connector: Send + Sync {
    /// An open connection.
    type Conn: Send;
    /// Why a connection could not be opened.
    type Error;
    /// Opens a connection, giving up by `deadline`.
    fn connect(&self, deadline: Instant) -> Result<Self::Conn, Self::Error>;
    /// Whether an idle connection still works (a quick round trip).
    fn check(&self, conn: &mut Self::Conn) -> bool;
    /// Whether the driver already knows the connection is closed (not pooled then).
    fn is_closed(&self, conn: &Self::Conn) -> bool;
}

/// Why no connection could be had.
#[derive(Debug)]
pub enum Unavailable<E> {
    /// Opening a connection failed (the driver's error, with its cause).
    Connect(E),
    /// Every connection stayed in use until the deadline.
    Busy,
}

/// Idle connections of one source and how many are out.
pub struct Pool<C: Connector> {
    connector: C,
    max: usize,
    idle_timeout: Duration,
    state: Mutex<State<C::Conn>>,
    returned: Condvar,
}

struct State<T> {
    idle: Vec<(T, Instant)>,
    out: usize,
}

/// A checked-out connection; back to the pool when dropped (unless it broke).
pub struct Pooled<'a, C: Connector> {
    pool: &'a Pool<C>,
    client: Option<C::Conn>,
}

impl<C: Connector> std::ops::Deref for Pooled<'_, C> {
    type Target = C::Conn;
    fn deref(&self) -> &C::Conn {
        self.client.as_ref().expect("present until drop")
    }
}

impl<C: Connector> std::ops::DerefMut for Pooled<'_, C> {
    fn deref_mut(&mut self) -> &mut C::Conn {
        self.client.as_mut().expect("present until drop")
    }
}

impl<C: Connector> Drop for Pooled<'_, C> {
    fn drop(&mut self) {
        let mut st = self.pool.state.lock().unwrap_or_else(|e| e.into_inner());
        st.out -= 1;
        if let Some(c) = self.client.take()
            && !self.pool.connector.is_closed(&c)
        {
            st.idle.push((c, Instant::now()));
        }
        self.pool.returned.notify_one();
    }
}

impl<C: Connector> Pooled<'_, C> {
    /// Closes this connection instead of returning it (its state is unknown).
    pub fn discard(mut self) {
        drop(self.client.take());
    }
}

impl<C: Connector> Pool<C> {
    /// A pool of at most `max` connections opened by `connector`.
    pub fn new(connector: C, max: usize, idle_timeout: Duration) -> Pool<C> {
        Pool {
            connector,
            max: max.max(1),
            idle_timeout,
            state: Mutex::new(State { idle: Vec::new(), out: 0 }),
            returned: Condvar::new(),
        }
    }

    /// The connector (what a cancel request opens its own connection with).
    pub fn connector(&self) -> &C {
        &self.connector
    }

    /// A connection, waiting at most until `deadline` for one to be free.
    pub fn get(&self, deadline: Instant) -> Result<Pooled<'_, C>, Unavailable<C::Error>> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some((mut c, since)) = st.idle.pop() {
                // Counted as out while checked, outside the lock (a round trip to a
                // hung server must not hold up every other checkout).
                st.out += 1;
                drop(st);
                // A connection the server closed, or idle too long, is dropped; a
                // quick round trip catches one that died without our noticing.
                if !self.connector.is_closed(&c)
                    && since.elapsed() <= self.idle_timeout
                    && self.connector.check(&mut c)
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
                return match self.connector.connect(deadline) {
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

/// The pools of a handler, one per source: keyed by the source's resolved fields, so
/// an edited configuration gets a new pool (and the old one of that name goes).
pub struct Pools<C: Connector> {
    map: Mutex<std::collections::HashMap<String, std::sync::Arc<Pool<C>>>>,
}

impl<C: Connector> Default for Pools<C> {
    fn default() -> Pools<C> {
        Pools { map: Mutex::new(std::collections::HashMap::new()) }
    }
}

impl<C: Connector> Pools<C> {
    /// The pool of `source` and `variant` (what else shapes its connections), made
    /// with `make` (its connector) on first use.
    pub fn of<E>(
        &self,
        source: &filestore_runtime::tools::Source,
        variant: &str,
        max: usize,
        idle_timeout: Duration,
        make: impl FnOnce() -> Result<C, E>,
    ) -> Result<std::sync::Arc<Pool<C>>, E> {
        // The key holds resolved secrets; it never leaves this map.
        let key = format!(
            "{}\0{variant}\0{}",
            source.name,
            serde_json::Value::Object(source.fields.clone())
        );
        let mut pools = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = pools.get(&key) {
            return Ok(p.clone());
        }
        let pool = std::sync::Arc::new(Pool::new(make()?, max, idle_timeout));
        pools.retain(|k, _| !k.starts_with(&format!("{}\0", source.name)));
        pools.insert(key, pool.clone());
        Ok(pool)
    }
}
