//! The connections a broker endpoint keeps across attempts, and the
//! retry-once rule, written once for every broker kind.
//!
//! Two ways to keep them, one type:
//!
//! - **shared** ([`Kept::shared`]; NATS and MQTT): at most one connection,
//!   which the endpoint's concurrent attempts share (the kind multiplexes
//!   it: replies by inbox, `PUBACK`s by packet identifier). It stays kept
//!   while it [`Link::is_live`]; a missing or dead one is replaced under
//!   the lock, so concurrent first attempts wait for one connection rather
//!   than each opening its own;
//! - **exclusive** ([`Kept::exclusive`]; Redis and AMQP): up to `max_idle`
//!   idle connections; an attempt takes one (or opens one) and holds it
//!   alone, and puts it back after a result that
//!   [`Outcome::keeps_connection`].
//!
//! Either way, [`Kept::with`] runs the attempt's [`Exchange`] on a kept
//! connection, or a fresh one when none is kept; when the connection was
//! reused and the result is a failure a fresh connection may fix
//! ([`Outcome::fresh_may_fix`]: the server closed the kept one since), the
//! old one is retired ([`Link::retire`]) and the exchange runs once more, on
//! a fresh one. A publish the broker took after all before the failure then
//! arrives twice; consumers deduplicate on `webhook-id` (NATS does it
//! itself, on `Nats-Msg-Id`).

use std::future::Future;

use relay_net::ErrorKind;
use tokio::sync::Mutex;
use tokio::time::{Instant, timeout_at};

use super::{Outcome, failed};

/// A kind's connection, as [`Kept`] holds it.
pub trait Link: Send + Sized {
    /// Another handle on this connection when attempts share it (an
    /// `Arc` of a multiplexed connection); `None` when an attempt holds it
    /// alone.
    fn share(&self) -> Option<Self>;

    /// Whether it can still carry an exchange (a shared connection's reader
    /// saw it close: no).
    fn is_live(&self) -> bool {
        true
    }

    /// Marks a reused connection replaced after a failure (a shared one:
    /// closed, its waiting exchanges failed).
    fn retire(&self) {}
}

/// One attempt's exchange with the broker, as [`Kept::with`] runs it.
pub trait Exchange: Sync {
    type Conn: Link;
    type Result: Outcome + Send;

    /// Opens a fresh connection through the guard, handshake included.
    fn open(&self) -> impl Future<Output = Result<Self::Conn, Self::Result>> + Send;

    /// The attempt's exchange on `conn`.
    fn run(&self, conn: &mut Self::Conn) -> impl Future<Output = Self::Result> + Send;
}

/// An endpoint's kept connections. See the module documentation.
pub struct Kept<C> {
    idle: Mutex<Vec<C>>,
    /// `None`: shared (one connection); `Some(n)`: exclusive, up to `n`
    /// idle.
    max_idle: Option<usize>,
}

impl<C: Link> Kept<C> {
    /// One connection, shared by the endpoint's attempts.
    pub fn shared() -> Kept<C> {
        Kept {
            idle: Mutex::new(Vec::new()),
            max_idle: None,
        }
    }

    /// Connections each attempt holds alone; up to `max_idle` kept idle.
    pub fn exclusive(max_idle: usize) -> Kept<C> {
        Kept {
            idle: Mutex::new(Vec::new()),
            max_idle: Some(max_idle),
        }
    }

    /// Runs `exchange` on a kept connection or a fresh one, and once more on
    /// a fresh one after a failure of a reused one that a fresh one may fix.
    /// Waiting for the kept connection ends at `deadline`.
    pub async fn with<E>(&self, deadline: Instant, exchange: &E) -> E::Result
    where
        E: Exchange<Conn = C>,
    {
        let (mut conn, reused) = match self.take(deadline, exchange).await {
            Ok(c) => c,
            Err(r) => return r,
        };
        let mut result = exchange.run(&mut conn).await;
        if reused && result.fresh_may_fix() {
            conn.retire();
            conn = match self.fresh(deadline, exchange).await {
                Ok(c) => c,
                Err(r) => return r,
            };
            result = exchange.run(&mut conn).await;
        }
        self.give_back(conn, &result).await;
        result
    }

    /// The kept connection (`true`: reused) or a fresh one.
    async fn take<E>(&self, deadline: Instant, exchange: &E) -> Result<(C, bool), E::Result>
    where
        E: Exchange<Conn = C>,
    {
        let Ok(mut idle) = timeout_at(deadline, self.idle.lock()).await else {
            return Err(failed(
                ErrorKind::Timeout,
                "waited for the endpoint's connection until the timeout",
                None,
            ));
        };
        idle.retain(Link::is_live);
        if self.max_idle.is_none() {
            if let Some(c) = idle.last().and_then(Link::share) {
                return Ok((c, true));
            }
            let c = exchange.open().await?;
            idle.clear();
            idle.extend(c.share());
            return Ok((c, false));
        }
        if let Some(c) = idle.pop() {
            return Ok((c, true));
        }
        drop(idle);
        exchange.open().await.map(|c| (c, false))
    }

    /// A connection other than the retired one: shared, the one kept since
    /// (another attempt may have replaced it already) or a new one;
    /// exclusive, a new one.
    async fn fresh<E>(&self, deadline: Instant, exchange: &E) -> Result<C, E::Result>
    where
        E: Exchange<Conn = C>,
    {
        match self.max_idle {
            None => self.take(deadline, exchange).await.map(|(c, _)| c),
            Some(_) => exchange.open().await,
        }
    }

    async fn give_back<R: Outcome>(&self, conn: C, result: &R) {
        let Some(max_idle) = self.max_idle else {
            return;
        };
        if result.keeps_connection() {
            let mut idle = self.idle.lock().await;
            if idle.len() < max_idle {
                idle.push(conn);
            }
        }
    }

    /// How many connections are kept now.
    #[cfg(test)]
    async fn kept(&self) -> usize {
        self.idle.lock().await.len()
    }
}

#[cfg(test)]
mod tests;
