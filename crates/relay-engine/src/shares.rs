//! Cluster shares: with several nodes on one PostgreSQL, an endpoint's
//! `max_concurrency` and `rate_limit_per_second` (and recovery traffic's
//! `max_recovery_in_flight` and `recovery_per_second`, under the reserved
//! key [`relay_store::shares::RECOVERY`]) hold for the whole cluster. Each
//! node's lanes (`crate::lanes`) stay local and cheap; what changes is the
//! limit they use: this node's **share**, leased from the database by the
//! [`ShareKeeper`] (`relay_store::shares`, the split rule in
//! `relay_core::share`). On SQLite one process owns the database: there are
//! no shares ([`Shares::local`]), the limits are the endpoint's own, and no
//! keeper runs.
//!
//! - **Interest.** The keeper renews every key this node is interested in:
//!   an attempt was admitted or refused for it since the last renewal (its
//!   demand), or it has attempts in flight, or it holds a row. A key with
//!   neither demand nor attempts in flight for [`idle_patience`] renewals
//!   (at least [`IDLE_TICKS`], and enough to cover two of the claimer's
//!   polls; [`WAITING_TICKS`] while its share is 0) is given back and
//!   forgotten.
//!   Recovery is always wanted: every node claims from the same recovery
//!   traffic, so it is split evenly across the running nodes.
//! - **First touch.** An endpoint this node has never seen keeps today's
//!   behaviour (claimable, so demand is found); its first admission is
//!   refused as by a full lane (claimed messages go back unattempted), its
//!   demand recorded and the keeper woken at once: the endpoint's first
//!   message waits one renewal, not a tick. Until a share is granted the
//!   endpoint has room 0.
//! - **Order.** A lower share is applied before the renewal commits (while
//!   the keys are locked, so the row says what the node really keeps: at
//!   least what is in flight at that moment), a higher one only after.
//! - **Fencing.** A node whose last committed renewal began more than the
//!   ttl ago (its monotonic clock) holds nothing: cut off from the
//!   database, it stops starting attempts before the others can take its
//!   slots (their rows of it expire by the database's clock, a ttl after
//!   that renewal's writes).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use relay_store::shares::{Grant, RECOVERY, Want};

/// Renewals without demand nor attempts in flight after which a key with a
/// share is given back, at least (see [`idle_patience`]).
pub const IDLE_TICKS: u32 = 2;
/// The same for a key whose share is still 0: it stays in the wanting set
/// longer, so the other nodes give it its part.
pub const WAITING_TICKS: u32 = 8;

/// Renewals without demand nor attempts in flight after which a key with a
/// share is given back: [`IDLE_TICKS`], and never fewer than cover two of
/// the claimer's polls. A share granted to a first touch must outlive the
/// wait until the next claim (a claim that found the endpoint without a
/// share gave its messages back, and the claimer comes back for them at
/// its next poll at the latest): given back sooner, the next claim meets
/// the endpoint anew, is refused again, and the endpoint's messages wait
/// for ever in a loop of grants and give-backs.
pub fn idle_patience(poll_interval: Duration, tick: Duration) -> u32 {
    let tick = tick.as_millis().max(1);
    let polls = (2 * poll_interval.as_millis()).div_ceil(tick);
    u32::try_from(polls).unwrap_or(u32::MAX).max(IDLE_TICKS)
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    /// The key's limits as last seen: slots, and rate (0 = not limited).
    limit: (u32, u32),
    /// What this node holds (slots, rate); `None` before the first grant.
    share: Option<(u32, u32)>,
    /// Admitted or refused since the last renewal.
    demand: bool,
    /// Renewals in a row with neither demand nor attempts in flight.
    idle: u32,
}

/// This node's shares (see the module's documentation).
pub struct Shares {
    /// `None`: one process owns the database (the limits are its own).
    ttl: Option<Duration>,
    entries: Mutex<HashMap<String, Entry>>,
    /// When the last committed renewal began.
    renewed: Mutex<Option<Instant>>,
    /// Wakes the keeper: an endpoint met for the first time.
    pub(crate) wake: Notify,
}

impl Default for Shares {
    fn default() -> Self {
        Shares::local()
    }
}

impl Shares {
    /// No shares: every limit is the endpoint's own (SQLite).
    pub fn local() -> Shares {
        Shares {
            ttl: None,
            entries: Mutex::default(),
            renewed: Mutex::default(),
            wake: Notify::new(),
        }
    }

    /// Shares leased for `ttl`, recovery's limits being `recovery` (slots,
    /// rate; 0 = not limited).
    pub fn cluster(ttl: Duration, recovery: (u32, u32)) -> Shares {
        let shares = Shares {
            ttl: Some(ttl),
            ..Shares::local()
        };
        if let Ok(mut m) = shares.entries.lock() {
            m.insert(
                RECOVERY.to_string(),
                Entry {
                    limit: recovery,
                    share: None,
                    demand: true,
                    idle: 0,
                },
            );
        }
        shares
    }

    /// This node takes no recovery traffic (an API-only node never
    /// claims): it stops wanting a share of recovery's limits, which the
    /// nodes that claim split between them.
    pub(crate) fn claims_no_recovery(&self) {
        if let Ok(mut m) = self.entries.lock() {
            m.remove(RECOVERY);
        }
    }

    /// Whether limits are shared with other nodes.
    pub fn is_cluster(&self) -> bool {
        self.ttl.is_some()
    }

    /// Whether this node holds nothing for now: no renewal committed within
    /// the ttl.
    pub fn fenced(&self) -> bool {
        let Some(ttl) = self.ttl else {
            return false;
        };
        self.renewed
            .lock()
            .ok()
            .and_then(|r| *r)
            .is_none_or(|at| at.elapsed() > ttl)
    }

    /// The limits an attempt of `key` (whose own limits are `slots` and
    /// `rate`) is admitted under now, its demand recorded; `None` while
    /// this node holds no share of it (the keeper is woken when the key is
    /// new). Local: the key's own limits.
    pub fn limits(&self, key: &str, slots: u32, rate: Option<u32>) -> Option<(u32, Option<u32>)> {
        if !self.is_cluster() {
            return Some((slots, rate));
        }
        let fenced = self.fenced();
        let mut m = self.entries.lock().ok()?;
        let limit = (slots, rate.unwrap_or(0));
        let entry = match m.get_mut(key) {
            Some(e) => e,
            None => {
                m.insert(
                    key.to_string(),
                    Entry {
                        limit,
                        share: None,
                        demand: true,
                        idle: 0,
                    },
                );
                self.wake.notify_one();
                return None;
            }
        };
        entry.limit = limit;
        entry.demand = true;
        let (s, r) = entry.share?;
        if fenced {
            return None;
        }
        Some((s, rate.map(|_| r)))
    }

    /// The slots this node holds of each key it knows (0 before a grant,
    /// while fenced, and while it holds none of a rate-limited key's rate).
    pub fn known(&self) -> Vec<(String, u32)> {
        if !self.is_cluster() {
            return Vec::new();
        }
        let fenced = self.fenced();
        self.entries
            .lock()
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| k.as_str() != RECOVERY)
                    .map(|(k, e)| {
                        let slots = match e.share {
                            Some((s, r)) if !fenced && (r > 0 || e.limit.1 == 0) => s,
                            _ => 0,
                        };
                        (k.clone(), slots)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Recovery's limits now: slots, and rate (`None`: not limited).
    pub fn recovery(&self, slots: usize, rate: u32) -> (usize, Option<u32>) {
        let own = (slots, (rate > 0).then_some(rate));
        if !self.is_cluster() {
            return own;
        }
        let held = self
            .entries
            .lock()
            .ok()
            .and_then(|m| m.get(RECOVERY).and_then(|e| e.share));
        match held {
            Some((s, r)) if !self.fenced() => (s as usize, own.1.map(|_| r)),
            _ => (0, own.1.map(|_| 0)),
        }
    }

    /// The rate limit of `key` as last seen, when it is shared (`None`
    /// locally, or when it is not rate-limited).
    pub fn rate_limit(&self, key: &str) -> Option<u32> {
        if !self.is_cluster() {
            return None;
        }
        self.entries
            .lock()
            .ok()
            .and_then(|m| m.get(key).map(|e| e.limit.1))
            .filter(|r| *r > 0)
    }

    /// Whether this node holds a share of `key` (always, locally).
    pub fn has_share(&self, key: &str) -> bool {
        !self.is_cluster()
            || self
                .entries
                .lock()
                .is_ok_and(|m| m.get(key).is_some_and(|e| e.share.is_some()))
    }

    /// Whether a key waits for its first grant.
    pub fn ungranted(&self) -> bool {
        self.entries
            .lock()
            .is_ok_and(|m| m.values().any(|e| e.share.is_none()))
    }

    /// What the next renewal asks for, given each key's attempts in flight;
    /// `leaving`: nothing is wanted any more (shutdown). Counts the idle
    /// renewals: a key with a share is given back after `patience` of them
    /// ([`idle_patience`]), one whose share is 0 after at least
    /// [`WAITING_TICKS`].
    pub(crate) fn wants(
        &self,
        in_flight: impl Fn(&str) -> u32,
        leaving: bool,
        patience: u32,
    ) -> Vec<Want> {
        let Ok(mut m) = self.entries.lock() else {
            return Vec::new();
        };
        m.iter_mut()
            .map(|(key, e)| {
                let in_flight = in_flight(key);
                if e.demand || in_flight > 0 || key == RECOVERY {
                    e.idle = 0;
                } else {
                    e.idle += 1;
                }
                let patience = match e.share {
                    Some((s, _)) if s > 0 => patience,
                    _ => WAITING_TICKS.max(patience),
                };
                e.demand = false;
                Want {
                    key: key.clone(),
                    slots: e.limit.0,
                    rate: e.limit.1,
                    in_flight,
                    wants: !leaving && e.idle < patience,
                }
            })
            .collect()
    }

    /// What this node holds of `key` now ((0, 0) before a grant).
    pub(crate) fn held(&self, key: &str) -> (u32, u32) {
        self.entries
            .lock()
            .ok()
            .and_then(|m| m.get(key).and_then(|e| e.share))
            .unwrap_or((0, 0))
    }

    /// Sets what this node holds of `key`.
    pub(crate) fn set(&self, key: &str, share: (u32, u32)) {
        if let Ok(mut m) = self.entries.lock()
            && let Some(e) = m.get_mut(key)
        {
            e.share = Some(share);
        }
    }

    /// Forgets a key given back, unless it had demand meanwhile (then it
    /// waits for a grant again).
    pub(crate) fn forget(&self, key: &str) {
        if let Ok(mut m) = self.entries.lock()
            && let Some(e) = m.get_mut(key)
        {
            if e.demand && key != RECOVERY {
                e.share = None;
            } else {
                m.remove(key);
            }
        }
    }

    /// A renewal that began at `at` committed.
    pub(crate) fn renewed(&self, at: Instant) {
        if let Ok(mut r) = self.renewed.lock() {
            *r = Some(r.map_or(at, |prev| prev.max(at)));
        }
    }
}

/// The keeper's slice of [`crate::EngineConfig`].
#[derive(Debug, Clone)]
pub struct ShareConfig {
    /// How often shares are renewed (`share_tick`).
    pub tick: Duration,
    /// How long a renewal holds (`share_ttl`).
    pub ttl: Duration,
}

impl From<&crate::EngineConfig> for ShareConfig {
    fn from(c: &crate::EngineConfig) -> Self {
        ShareConfig {
            tick: c.share_tick,
            ttl: c.share_ttl,
        }
    }
}

/// Applies `grants` lowered before their commit (see the module's
/// documentation): an allowance lower than this node's is applied now;
/// each row is raised to cover what is in flight at this moment (admitted
/// since the renewal read it, under the allowance before); a release with
/// attempts in flight keeps a row of those.
pub(crate) fn settle(
    lanes: &crate::lanes::Lanes,
    in_flight: impl Fn(&str) -> u32,
    grants: &mut [Grant],
    now: relay_core::time::Timestamp,
) {
    for g in grants.iter_mut() {
        let (s0, r0) = lanes.shares.held(&g.key);
        let in_flight = in_flight(&g.key);
        if g.released && in_flight > 0 {
            g.released = false;
        }
        g.slots = g.slots.max(in_flight);
        let lower = (g.allowed.min(s0), g.rate.min(r0));
        if lower != (s0, r0) {
            lanes.set_share(&g.key, lower, now);
        }
    }
}

impl crate::Dispatcher {
    /// One renewal of this node's shares (see the module's documentation):
    /// one write transaction for every key it is interested in, lower
    /// shares applied before the commit, higher ones after; `leaving`
    /// gives back everything not in flight (shutdown). How many keys it
    /// renewed; nothing on SQLite.
    pub async fn renew_shares(&self, leaving: bool) -> Result<u64, relay_store::StoreError> {
        use relay_store::ExecutorExt as _;
        if !self.lanes.shares.is_cluster() {
            return Ok(0);
        }
        // One renewal at a time in this process (the keeper's, a claim
        // round's, a manual attempt's).
        let _one = self.renewal.lock().await;
        let begun = Instant::now();
        let recovery_in_flight = self
            .recovery_in_flight
            .load(std::sync::atomic::Ordering::Relaxed) as u32;
        let lanes = self.lanes.clone();
        let in_flight = move |l: &crate::lanes::Lanes, key: &str| {
            if key == RECOVERY {
                recovery_in_flight
            } else {
                l.in_flight(key)
            }
        };
        let patience = idle_patience(self.config().poll_interval, self.config().share_tick);
        let wants = lanes
            .shares
            .wants(|k| in_flight(&lanes, k), leaving, patience);
        if wants.is_empty() {
            lanes.shares.renewed(begun);
            return Ok(0);
        }
        let (node, ttl) = (
            self.config().owner.clone(),
            self.config().share_ttl.as_millis() as i64,
        );
        let clock = self.attempter.clock.clone();
        let grants = {
            let (lanes, clock) = (lanes.clone(), clock.clone());
            self.attempter
                .store
                .write(relay_store::Commit::Lease, move |mut x| {
                    Box::pin(async move {
                        relay_store::shares::renew(&mut x, &node, &wants, ttl, |g| {
                            settle(&lanes, |k| in_flight(&lanes, k), g, clock.now())
                        })
                        .await
                    })
                })
                .await?
        };
        let was_fenced = lanes.shares.fenced();
        lanes.shares.renewed(begun);
        lanes.granted(&grants, clock.now());
        if was_fenced {
            // Its shares hold again: what waited for them may start.
            lanes.freed.notify_one();
            lanes.manual_freed.notify_waiters();
        }
        Ok(grants.len() as u64)
    }
}

/// The share keeper: renews this node's shares every `tick`, and at once
/// when an endpoint is met for the first time; on its stop signal (sent by
/// the engine once the attempts in flight drained) gives them all back.
/// Runs on PostgreSQL only.
pub struct ShareKeeper {
    dispatcher: std::sync::Arc<crate::Dispatcher>,
    config: ShareConfig,
}

impl ShareKeeper {
    pub(crate) fn new(dispatcher: std::sync::Arc<crate::Dispatcher>) -> Self {
        let config = ShareConfig::from(dispatcher.config());
        ShareKeeper { dispatcher, config }
    }
}

impl crate::Service for ShareKeeper {
    const NAME: &'static str = "share keeper";
    type Config = ShareConfig;

    fn config(&self) -> &ShareConfig {
        &self.config
    }

    async fn run_once(&self) -> Result<u64, relay_store::StoreError> {
        self.dispatcher.renew_shares(false).await
    }

    async fn run(self, mut stop: tokio::sync::watch::Receiver<bool>) {
        let shares = &self.dispatcher.lanes.shares;
        loop {
            if *stop.borrow() {
                break;
            }
            if let Err(e) = self.dispatcher.renew_shares(false).await {
                tracing::warn!(error = %e, "renewing this node's shares of the endpoints' limits failed; retrying");
            }
            tokio::select! {
                _ = tokio::time::sleep(self.config.tick) => {}
                _ = shares.wake.notified() => {}
                _ = crate::service::stopped(&mut stop) => {}
            }
        }
        match self.dispatcher.renew_shares(true).await {
            Ok(_) => tracing::info!("shares of the endpoints' limits given back"),
            Err(e) => tracing::warn!(error = %e, "giving back shares failed; they expire"),
        }
    }
}

#[cfg(test)]
mod tests;
