//! Per-endpoint lanes: each endpoint has at most `max_concurrency` attempts in
//! flight in this process, so a slow or hanging endpoint holds at most that
//! many of the dispatcher's slots and never delays the others.
//!
//! An endpoint with a `rate_limit_per_second` also has a token bucket (one
//! second of burst): an attempt takes a token, and tokens come back at that
//! rate.
//!
//! Claims skip endpoints whose lane is full or whose bucket is empty; a claim
//! that still lands on one (several of one endpoint's messages in one batch)
//! is given back unattempted, nothing used up, unless it was leased ahead
//! for an endpoint limited by concurrency alone ([`Lanes::look_ahead`]; the
//! dispatcher queues those and starts them as slots free). With several nodes on
//! PostgreSQL the limits a lane and a bucket use are this node's **share** of
//! the endpoint's (`crate::shares`): the lane holds the share's slots, the
//! bucket one second of the share's rate (a share that grows adds empty
//! capacity; one that shrinks clamps the tokens), so the whole cluster holds
//! `max_concurrency` and the rate between its nodes. An endpoint this node
//! holds no share of yet is refused as by a full lane (its demand wakes the
//! share keeper), and has room 0 once known.
//!
//! Manual attempts (resend, the test send; `crate::resend`) take the same
//! slots, tokens and probes ([`Lanes::try_admit`]), waiting for them
//! ([`Lanes::manual_freed`]); at most a configured number of them per
//! endpoint is pending (waiting or in flight) at once in this process
//! ([`Lanes::reserve_manual`]).

use std::collections::HashMap;
use std::sync::Mutex;

use relay_core::circuit::{BreakerConfig, Circuit, Signal};
use relay_core::time::Timestamp;

/// A token bucket: `tokens` at `at`, refilled at the endpoint's rate.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Timestamp,
}

impl Bucket {
    fn refilled(self, rate: u32, now: Timestamp) -> Bucket {
        let elapsed = (now.millis() - self.at.millis()).max(0) as f64 / 1000.0;
        Bucket {
            tokens: (self.tokens + elapsed * f64::from(rate)).min(f64::from(rate)),
            at: now.max(self.at),
        }
    }
}

/// Why an attempt cannot start now ([`Lanes::try_admit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Every slot of the endpoint's lane is taken.
    Full,
    /// Its bucket is empty; the next token comes at `next`.
    RateLimited { next: Timestamp },
    /// Its circuit is open until `until`, or half open with its probe
    /// already in flight (`None`).
    CircuitOpen { until: Option<Timestamp> },
}

#[derive(Default)]
pub struct Lanes {
    /// Endpoint id → (attempts in flight, its limit).
    lanes: Mutex<HashMap<String, (u32, u32)>>,
    /// Signalled when a full lane gets a free slot (the dispatcher waits on
    /// it instead of polling while due messages sit behind full lanes).
    pub freed: tokio::sync::Notify,
    /// Endpoint id → (its rate, its bucket), for rate-limited endpoints.
    buckets: Mutex<HashMap<String, (u32, Bucket)>>,
    /// The endpoints' circuit breakers: this process's, or its part of the
    /// cluster's ([`crate::breakers`]).
    pub circuits: crate::breakers::Breakers,
    pub breaker: BreakerConfig,
    /// Endpoint id → manual attempts pending (waiting for a slot, or in
    /// flight) in this process.
    manual: Mutex<HashMap<String, u32>>,
    /// Signalled to every waiter whenever a slot frees: the manual attempts
    /// waiting for their lane look again.
    pub manual_freed: tokio::sync::Notify,
    /// This node's shares of the endpoints' limits (`crate::shares`; local
    /// on SQLite: the limits are the endpoints' own).
    pub shares: crate::shares::Shares,
}

impl Lanes {
    /// Lanes whose circuits open and close by `breaker`.
    pub fn new(breaker: BreakerConfig) -> Lanes {
        Lanes {
            breaker,
            circuits: crate::breakers::Breakers::new(breaker),
            ..Default::default()
        }
    }

    /// These lanes with limits from `shares` (see `crate::shares`).
    pub fn with_shares(mut self, shares: crate::shares::Shares) -> Lanes {
        self.shares = shares;
        self
    }

    /// Sets this node's share of `endpoint_id`'s limits (slots, rate) at
    /// `now`: its lane holds that many slots; its bucket, refilled at the
    /// old rate up to `now`, holds at most one second of the new one (what
    /// a grown share adds starts empty).
    pub(crate) fn set_share(&self, endpoint_id: &str, share: (u32, u32), now: Timestamp) {
        self.shares.set(endpoint_id, share);
        if let Ok(mut m) = self.lanes.lock()
            && let Some(lane) = m.get_mut(endpoint_id)
        {
            lane.1 = share.0;
        }
        if let Ok(mut b) = self.buckets.lock() {
            match b.get_mut(endpoint_id) {
                Some((rate, bucket)) => {
                    let refilled = bucket.refilled(*rate, now);
                    *rate = share.1;
                    *bucket = Bucket {
                        tokens: refilled.tokens.min(f64::from(share.1)),
                        at: refilled.at,
                    };
                }
                // A first share of a rate grows from none: it starts empty,
                // so the nodes' buckets never hold more than one second of
                // the endpoint's rate between them; unless it is the whole
                // rate (no other node wants the endpoint), which starts
                // full as a lone node's bucket does.
                None if share.1 > 0 => {
                    let whole = self.shares.rate_limit(endpoint_id) == Some(share.1);
                    let tokens = if whole { f64::from(share.1) } else { 0.0 };
                    b.insert(
                        endpoint_id.to_string(),
                        (share.1, Bucket { tokens, at: now }),
                    );
                }
                None => {}
            }
        }
    }

    /// Applies what a committed renewal granted (after
    /// `crate::shares::settle` applied the lower ones before the commit):
    /// raised shares, keys given back forgotten. Wakes the claimer and the
    /// manual attempts when a share grew.
    pub(crate) fn granted(&self, grants: &[relay_store::shares::Grant], now: Timestamp) {
        let mut grew = false;
        for g in grants {
            let before = self.shares.held(&g.key);
            if g.released {
                self.set_share(&g.key, (0, 0), now);
                self.shares.forget(&g.key);
                // Forgotten: claimable again (its demand is found anew).
                if let Ok(mut b) = self.buckets.lock() {
                    b.remove(&g.key);
                }
            } else {
                grew |= g.allowed > before.0 || g.rate > before.1;
                self.set_share(&g.key, (g.allowed, g.rate), now);
            }
        }
        if grew {
            self.freed.notify_one();
            self.manual_freed.notify_waiters();
        }
    }

    /// The endpoints whose lane is full, or whose bucket is empty, or whose
    /// circuit lets nothing through, at `now`.
    pub fn full(&self, now: Timestamp) -> Vec<String> {
        self.room(now)
            .into_iter()
            .filter(|(_, n)| *n == 0)
            .map(|(id, _)| id)
            .collect()
    }

    /// How many more attempts each endpoint this process knows of can start
    /// at `now` (free lane slots, whole tokens in its bucket; 0 while its
    /// circuit is open). Endpoints not listed have their whole lane free. A
    /// claim takes at most this many of an endpoint's messages, so a freed
    /// slot does not claim a batch only to give most of it back.
    pub fn room(&self, now: Timestamp) -> Vec<(String, u32)> {
        let mut room: HashMap<String, u32> = self
            .lanes
            .lock()
            .map(|m| {
                m.iter()
                    .map(|(id, (n, max))| (id.clone(), max.saturating_sub(*n)))
                    .collect()
            })
            .unwrap_or_default();
        let mut narrow = |id: &String, n: u32| {
            room.entry(id.clone())
                .and_modify(|r| *r = (*r).min(n))
                .or_insert(n);
        };
        for (id, slots) in self.shares.known() {
            let in_flight = self.in_flight(&id);
            narrow(&id, slots.saturating_sub(in_flight));
        }
        if let Ok(b) = self.buckets.lock() {
            for (id, (rate, bucket)) in b.iter() {
                let tokens = bucket.refilled(*rate, now).tokens.floor().max(0.0);
                // A rate of 0: a share of none of the endpoint's rate.
                if *rate == 0 || tokens < f64::from(*rate) {
                    narrow(id, tokens as u32);
                }
            }
        }
        for (id, probes) in self.circuits.room(now) {
            narrow(&id, probes);
        }
        room.into_iter().collect()
    }

    /// The endpoints with attempts in flight that may have messages leased
    /// ahead of a free slot (see `Dispatcher`'s look-ahead), with their
    /// `max_concurrency`: those limited by concurrency alone, with no rate
    /// limit and a closed circuit.
    pub fn look_ahead(&self, now: Timestamp) -> HashMap<String, u32> {
        let mut eligible: HashMap<String, u32> = self
            .lanes
            .lock()
            .map(|m| m.iter().map(|(id, (_, max))| (id.clone(), *max)).collect())
            .unwrap_or_default();
        if let Ok(b) = self.buckets.lock() {
            eligible.retain(|id, _| !b.contains_key(id));
        }
        eligible.retain(|id, _| matches!(self.circuits.get(id, now), Circuit::Closed { .. }));
        eligible
    }

    /// The rate-limited endpoints this process has attempted, each with its
    /// rate (the endpoint's: with several nodes, the whole cluster's, not
    /// this node's share) and the tokens its bucket holds at `now`
    /// (fractional).
    pub fn rate_limited(&self, now: Timestamp) -> Vec<(String, u32, f64)> {
        self.buckets
            .lock()
            .map(|b| {
                b.iter()
                    .map(|(id, (rate, bucket))| {
                        let limit = self.shares.rate_limit(id).unwrap_or(*rate);
                        (id.clone(), limit, bucket.refilled(*rate, now).tokens)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// How long until the soonest of the empty buckets holds a whole token
    /// again (at least 5 ms), if one is empty: the claimer waits no longer
    /// than that while due messages sit behind full lanes, so a
    /// rate-limited backlog is claimed as its tokens come in rather than
    /// at the next poll, with a bucket filled past its one second of burst
    /// meanwhile (tokens lost).
    pub fn next_token_in(&self, now: Timestamp) -> Option<std::time::Duration> {
        let buckets = self.buckets.lock().ok()?;
        buckets
            .values()
            .filter(|(rate, _)| *rate > 0)
            .filter_map(|(rate, bucket)| {
                let tokens = bucket.refilled(*rate, now).tokens;
                (tokens < 1.0).then(|| {
                    let millis = ((1.0 - tokens) * 1000.0 / f64::from(*rate)).ceil();
                    std::time::Duration::from_millis(millis.max(5.0) as u64)
                })
            })
            .min()
    }

    /// The endpoint's circuit as it stands at `now`.
    pub fn circuit(&self, endpoint_id: &str, now: Timestamp) -> Circuit {
        self.circuits.get(endpoint_id, now)
    }

    /// Takes a slot in the endpoint's lane and, when it is rate-limited, a
    /// token from its bucket; or says it cannot go now (nothing taken).
    pub fn admit(
        &self,
        endpoint_id: &str,
        max_concurrency: u32,
        rate_limit_per_second: Option<u32>,
        now: Timestamp,
    ) -> bool {
        self.try_admit(endpoint_id, max_concurrency, rate_limit_per_second, now)
            .is_ok()
    }

    /// [`Lanes::admit`], saying why not: the lane is full, the bucket empty
    /// (until when), or the circuit open.
    pub fn try_admit(
        &self,
        endpoint_id: &str,
        max_concurrency: u32,
        rate_limit_per_second: Option<u32>,
        now: Timestamp,
    ) -> Result<(), Refusal> {
        // This node's share of the limits (the limits themselves on
        // SQLite); none yet: refused as by a full lane, the keeper woken.
        let Some((max_concurrency, rate_limit_per_second)) = self.shares.limits(
            endpoint_id,
            max_concurrency.max(1),
            rate_limit_per_second.filter(|r| *r > 0),
        ) else {
            return Err(Refusal::Full);
        };
        if rate_limit_per_second == Some(0) {
            // A rate-limited endpoint whose share of the rate is 0 now.
            return Err(Refusal::Full);
        }
        let Ok(mut m) = self.lanes.lock() else {
            return Ok(());
        };
        let lane = m
            .entry(endpoint_id.to_string())
            .or_insert((0, max_concurrency));
        lane.1 = max_concurrency;
        if lane.0 >= lane.1 {
            return Err(Refusal::Full);
        }
        self.circuits.try_start(endpoint_id, now, || {
            self.take_token(endpoint_id, rate_limit_per_second, now)
        })?;
        lane.0 += 1;
        Ok(())
    }

    /// Takes a token from the endpoint's bucket when it is rate-limited, or
    /// says when the next one comes (nothing taken).
    fn take_token(
        &self,
        endpoint_id: &str,
        rate_limit_per_second: Option<u32>,
        now: Timestamp,
    ) -> Result<(), Refusal> {
        if let Some(rate) = rate_limit_per_second.filter(|r| *r > 0) {
            let Ok(mut buckets) = self.buckets.lock() else {
                return Err(Refusal::Full);
            };
            let entry = buckets.entry(endpoint_id.to_string()).or_insert((
                rate,
                Bucket {
                    tokens: f64::from(rate),
                    at: now,
                },
            ));
            entry.0 = rate;
            let bucket = entry.1.refilled(rate, now);
            if bucket.tokens < 1.0 {
                entry.1 = bucket;
                let wait = ((1.0 - bucket.tokens) * 1000.0 / f64::from(rate)).ceil() as i64;
                return Err(Refusal::RateLimited {
                    next: bucket.at.plus_millis(wait.max(1)),
                });
            }
            entry.1 = Bucket {
                tokens: bucket.tokens - 1.0,
                at: bucket.at,
            };
        }
        Ok(())
    }

    /// Counts a manual attempt as pending for the endpoint, unless `cap`
    /// are pending already; give it back with [`Lanes::release_manual`].
    pub fn reserve_manual(&self, endpoint_id: &str, cap: u32) -> bool {
        let Ok(mut m) = self.manual.lock() else {
            return false;
        };
        let pending = m.entry(endpoint_id.to_string()).or_insert(0);
        if *pending >= cap {
            return false;
        }
        *pending += 1;
        true
    }

    /// A manual attempt [`Lanes::reserve_manual`] counted has ended.
    pub fn release_manual(&self, endpoint_id: &str) {
        if let Ok(mut m) = self.manual.lock()
            && let Some(pending) = m.get_mut(endpoint_id)
        {
            *pending = pending.saturating_sub(1);
            if *pending == 0 {
                m.remove(endpoint_id);
            }
        }
    }

    /// Frees the slot an attempt held and tells the breaker how it went.
    pub fn done(&self, endpoint_id: &str, signal: Signal, now: Timestamp) {
        self.done_without_slot(endpoint_id, signal, now);
        let mut was_full = false;
        if let Ok(mut m) = self.lanes.lock()
            && let Some(lane) = m.get_mut(endpoint_id)
        {
            was_full = lane.0 >= lane.1;
            lane.0 = lane.0.saturating_sub(1);
            if lane.0 == 0 {
                m.remove(endpoint_id);
            }
        }
        if was_full {
            self.freed.notify_one();
        }
        self.manual_freed.notify_waiters();
    }

    /// Tells the endpoint's breaker how an attempt that held no lane slot
    /// went (an object storage batch closed by time).
    pub fn done_without_slot(&self, endpoint_id: &str, signal: Signal, now: Timestamp) {
        self.circuits.record(endpoint_id, signal, now);
    }

    pub fn in_flight(&self, endpoint_id: &str) -> u32 {
        self.lanes
            .lock()
            .ok()
            .and_then(|m| m.get(endpoint_id).map(|l| l.0))
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Timestamp = Timestamp(1_000_000);

    #[test]
    fn a_lane_holds_at_most_its_limit_and_frees_slots() {
        let lanes = Lanes::default();
        assert!(lanes.admit("ep_a", 2, None, T));
        assert!(lanes.admit("ep_a", 2, None, T));
        assert!(!lanes.admit("ep_a", 2, None, T));
        assert!(
            lanes.admit("ep_b", 2, None, T),
            "another endpoint is not affected"
        );
        assert_eq!(lanes.full(T), vec!["ep_a".to_string()]);
        lanes.done("ep_a", Signal::Neutral, T);
        assert!(lanes.full(T).is_empty());
        assert!(lanes.admit("ep_a", 2, None, T));
        assert_eq!(lanes.in_flight("ep_a"), 2);
        lanes.done("ep_b", Signal::Neutral, T);
        assert_eq!(lanes.in_flight("ep_b"), 0);
    }

    #[test]
    fn only_endpoints_limited_by_concurrency_alone_look_ahead() {
        let lanes = Lanes::new(BreakerConfig {
            failure_threshold: 1,
            cool_down_millis: 1000,
            half_open_probes: 1,
        });
        assert!(lanes.look_ahead(T).is_empty(), "nothing in flight");
        assert!(lanes.admit("ep_plain", 3, None, T));
        assert!(lanes.admit("ep_rated", 3, Some(5), T));
        // Two in flight; one fails and opens the circuit.
        assert!(lanes.admit("ep_failing", 3, None, T));
        assert!(lanes.admit("ep_failing", 3, None, T));
        lanes.done("ep_failing", Signal::Failure, T);
        let ahead = lanes.look_ahead(T);
        assert_eq!(ahead.get("ep_plain"), Some(&3));
        assert!(!ahead.contains_key("ep_rated"), "rate-limited");
        assert!(!ahead.contains_key("ep_failing"), "circuit open");
    }

    #[test]
    fn an_open_circuit_stops_attempts_until_a_probe_succeeds() {
        let lanes = Lanes::new(BreakerConfig {
            failure_threshold: 2,
            cool_down_millis: 1000,
            half_open_probes: 1,
        });
        for _ in 0..2 {
            assert!(lanes.admit("ep_c", 10, None, T));
            lanes.done("ep_c", Signal::Failure, T);
        }
        assert_eq!(lanes.circuit("ep_c", T).name(), "open");
        assert!(!lanes.admit("ep_c", 10, None, T));
        assert_eq!(lanes.full(T), vec!["ep_c".to_string()]);
        let later = Timestamp(T.0 + 1000);
        assert!(
            lanes.admit("ep_c", 10, None, later),
            "one probe after the cool-down"
        );
        assert!(!lanes.admit("ep_c", 10, None, later), "only one");
        lanes.done("ep_c", Signal::Success, later);
        assert_eq!(lanes.circuit("ep_c", later).name(), "closed");
        assert!(lanes.admit("ep_c", 10, None, later));
    }

    #[test]
    fn a_refusal_says_why_and_manual_attempts_are_capped_per_endpoint() {
        let lanes = Lanes::new(BreakerConfig {
            failure_threshold: 1,
            cool_down_millis: 1000,
            half_open_probes: 1,
        });
        assert_eq!(lanes.try_admit("ep_a", 1, None, T), Ok(()));
        assert_eq!(lanes.try_admit("ep_a", 1, None, T), Err(Refusal::Full));
        lanes.done("ep_a", Signal::Failure, T);
        assert_eq!(
            lanes.try_admit("ep_a", 1, None, T),
            Err(Refusal::CircuitOpen {
                until: Some(Timestamp(T.0 + 1000))
            })
        );
        assert_eq!(lanes.try_admit("ep_r", 5, Some(2), T), Ok(()));
        assert_eq!(lanes.try_admit("ep_r", 5, Some(2), T), Ok(()));
        assert_eq!(
            lanes.try_admit("ep_r", 5, Some(2), T),
            Err(Refusal::RateLimited {
                next: Timestamp(T.0 + 500)
            }),
            "a token every 500 ms"
        );
        assert!(lanes.reserve_manual("ep_m", 2));
        assert!(lanes.reserve_manual("ep_m", 2));
        assert!(!lanes.reserve_manual("ep_m", 2), "the cap");
        assert!(lanes.reserve_manual("ep_other", 2), "per endpoint");
        lanes.release_manual("ep_m");
        assert!(lanes.reserve_manual("ep_m", 2));
    }

    #[test]
    fn a_rate_limit_allows_a_second_of_burst_then_refills_at_its_rate() {
        let lanes = Lanes::default();
        let admit = |at: i64| {
            let ok = lanes.admit("ep_r", 100, Some(4), Timestamp(T.0 + at));
            if ok {
                lanes.done("ep_r", Signal::Success, T);
            }
            ok
        };
        for _ in 0..4 {
            assert!(admit(0));
        }
        assert!(!admit(0), "the burst is one second of the rate");
        assert_eq!(lanes.full(T), vec!["ep_r".to_string()]);
        assert!(!admit(200), "0.8 of a token after 200 ms");
        assert!(admit(250), "one token after 250 ms");
        assert!(!admit(250));
        assert!(lanes.full(Timestamp(T.0 + 10_000)).is_empty(), "refilled");
        for _ in 0..4 {
            assert!(admit(10_000));
        }
        assert!(!admit(10_000), "never more than the burst");
        // The claimer's wait: the next whole token of the empty bucket.
        assert_eq!(
            lanes.next_token_in(Timestamp(T.0 + 10_000)),
            Some(std::time::Duration::from_millis(250))
        );
        assert_eq!(
            lanes.next_token_in(Timestamp(T.0 + 10_100)),
            Some(std::time::Duration::from_millis(150))
        );
        assert_eq!(lanes.next_token_in(Timestamp(T.0 + 10_250)), None);
    }
}
