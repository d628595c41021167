//! Lease at publish: the dispatcher as the store's [`relay_store::Intake`].
//!
//! A publish in this process asks, for each new live message, whether its
//! endpoint's lane has room ([`DispatcherIntake::reserve`]). If so the
//! message is inserted already leased to this process and, once the publish
//! has committed, queued with the messages leased ahead
//! ([`DispatcherIntake::take`]); the loop starts it at once when the lane
//! has a free slot, else the endpoint's next finishing attempt does. It
//! skips the claim: the claim's update and reads, and a writer transaction.
//!
//! Room is what a claim would lease ahead, counted the same way: for an
//! endpoint limited by concurrency alone (no rate limit, circuit closed), in
//! flight plus queued plus reserved stay under `max_concurrency` ×
//! (1 + [`crate::AHEAD_DEPTH`]), and everything queued or reserved under a
//! quarter of `max_in_flight`; each reservation holds an in-flight permit.
//! A publish that schedules a live message instead (no room) marks the
//! endpoint: its later messages are not leased at publish ahead of that
//! backlog. While it lasts, a publish that finds room leases the
//! endpoint's oldest due messages instead of its new ones (the reservation
//! is `behind`), so the backlog drains in order at the pace of the
//! publishes, with no claim; a claim that finds none of it left clears the
//! mark (see `AheadState`).

use std::sync::{Arc, Mutex, Weak};

use relay_core::circuit::Circuit;
use relay_core::time::Timestamp;
use relay_store::{Claimed, IntakeEndpoint, Reserved};
use tokio::sync::OwnedSemaphorePermit;

use crate::{AHEAD_DEPTH, AheadState, Dispatcher};

/// The store's view of a [`Dispatcher`] (weak: the store must not keep the
/// dispatcher alive, nor the dispatcher the store through it).
pub struct DispatcherIntake {
    dispatcher: Weak<Dispatcher>,
    owner: String,
    lease_millis: i64,
}

impl Dispatcher {
    /// This dispatcher as an intake for [`relay_store::Store::set_intake`].
    pub fn intake(self: &Arc<Self>) -> Arc<dyn relay_store::Intake> {
        Arc::new(DispatcherIntake {
            dispatcher: Arc::downgrade(self),
            owner: self.config().owner.clone(),
            lease_millis: self.config().lease.as_millis() as i64,
        })
    }

    /// Room for one more message of `endpoint`, and whether it is behind
    /// the endpoint's backlog (then the publish leases the oldest due
    /// message instead of the new one).
    fn reserve(
        &self,
        endpoint: &IntakeEndpoint<'_>,
        now: Timestamp,
    ) -> Option<(Reservation, bool)> {
        if self.stopping.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        let mut s = self.ahead.lock().ok()?;
        let id = endpoint.id;
        let behind = s.backlog.contains_key(id);
        // On PostgreSQL the lane's slots are this node's share of them
        // (`crate::shares`): none yet, nothing is leased at publish.
        let room = !endpoint.rate_limited
            && matches!(self.lanes.circuit(id, now), Circuit::Closed { .. })
            && self
                .lanes
                .shares
                .limits(id, endpoint.max_concurrency.max(1), None)
                .is_some_and(|(slots, _)| {
                    self.lanes.in_flight(id) + s.held(id) < slots * (1 + AHEAD_DEPTH)
                })
            && s.queued + s.reserved_total < self.ahead_budget();
        let permit = room
            .then(|| self.permits.clone().try_acquire_owned().ok())
            .flatten();
        let Some(permit) = permit else {
            // The mark stays where the backlog began: re-marked at every
            // publish, it would move ahead of every claim under a steady
            // stream of publishes, and leasing at publish would not resume
            // until the publishes paused.
            if !behind {
                s.marks += 1;
                let mark = s.marks;
                s.backlog.insert(id.to_string(), mark);
            }
            return None;
        };
        *s.reserved.entry(id.to_string()).or_default() += 1;
        s.reserved_total += 1;
        Some((
            Reservation {
                state: self.ahead.clone(),
                endpoint_id: id.to_string(),
                permit: Some(permit),
            },
            behind,
        ))
    }

    /// Queues messages leased at publish, now committed, and wakes the loop
    /// to start what can start.
    fn take(&self, leased: Vec<(Claimed, OwnedSemaphorePermit)>) {
        if leased.is_empty() || self.stopping.load(std::sync::atomic::Ordering::Relaxed) {
            // Stopping: their leases are released with the rest, or expire.
            return;
        }
        self.attempter
            .metrics
            .leased_at_publish
            .fetch_add(leased.len() as u64, std::sync::atomic::Ordering::Relaxed);
        self.queue_ahead(leased);
        self.intake_ready.notify_one();
    }
}

/// Room held for one message until its publish commits (then taken) or
/// fails (then dropped, which gives the room and the permit back).
struct Reservation {
    state: Arc<Mutex<AheadState>>,
    endpoint_id: String,
    permit: Option<OwnedSemaphorePermit>,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        if let Some(n) = s.reserved.get_mut(&self.endpoint_id) {
            *n -= 1;
            if *n == 0 {
                s.reserved.remove(&self.endpoint_id);
            }
        }
        s.reserved_total = s.reserved_total.saturating_sub(1);
    }
}

impl relay_store::Intake for DispatcherIntake {
    fn owner(&self) -> &str {
        &self.owner
    }

    fn lease_millis(&self) -> i64 {
        self.lease_millis
    }

    fn reserve(&self, endpoint: &IntakeEndpoint<'_>, now: Timestamp) -> Option<Reserved> {
        let d = self.dispatcher.upgrade()?;
        d.reserve(endpoint, now).map(|(r, behind)| Reserved {
            behind,
            hold: Box::new(r),
        })
    }

    fn take(&self, leased: Vec<(Reserved, Claimed)>) {
        let Some(d) = self.dispatcher.upgrade() else {
            return;
        };
        let leased = leased
            .into_iter()
            .filter_map(|(r, c)| {
                let mut r = r.hold.downcast::<Reservation>().ok()?;
                r.permit.take().map(|p| (c, p))
            })
            .collect();
        d.take(leased);
    }
}
