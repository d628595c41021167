//! Manual attempts: resend a message, send a test event. Each goes through
//! its endpoint's lane like an automatic attempt (`crate::lanes`): it takes
//! a slot of the endpoint's `max_concurrency` and a token of its rate
//! limit, waiting for them, and is refused while the endpoint's circuit is
//! open. At most `manual_pending_per_endpoint` manual attempts per endpoint
//! wait or run at once in this process; one more is refused at once
//! ([`ManualError::Limited`]), before anything is written, so a flood of
//! test sends neither opens a connection per request nor fills the store.

use super::*;
use crate::lanes::Refusal;
use relay_store::{Commit, ExecutorExt as _, manual_audit};

/// Why a manual attempt could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ManualError {
    #[error("message not found")]
    NotFound,
    /// Another attempt is in flight (or leased): at most one at a time.
    #[error("an attempt for this message is in flight")]
    Busy,
    /// The message's event's time to live has passed: no attempt is made.
    #[error("the event has expired")]
    EventExpired,
    /// The message's endpoint was deleted: no attempt is made.
    #[error("the endpoint was deleted")]
    EndpointDeleted,
    /// The endpoint has as many manual attempts pending as it may, or none
    /// of its lane's slots freed within `manual_wait`: try again after
    /// `retry_after_secs`.
    #[error("too many manual attempts are pending for this endpoint")]
    Limited { retry_after_secs: u64 },
    /// The endpoint's circuit is open: no attempt goes to it before its
    /// cool-down ends, in `retry_after_secs`.
    #[error("the endpoint's circuit is open")]
    CircuitOpen { retry_after_secs: u64 },
    /// The endpoint's receiver has not proven that it wants the traffic:
    /// nothing is sent to it, by hand or otherwise (`docs/security.md`).
    #[error("the endpoint's receiver has not proven ownership")]
    Unverified,
    #[error(transparent)]
    Store(relay_store::StoreError),
}

/// The result of a manual attempt.
#[derive(Debug, Clone)]
pub struct ManualOutcome {
    /// The attempt made (`None` when the message ended without one, e.g. its TTL passed).
    pub attempt: Option<relay_core::model::Attempt>,
    /// Whether the message changed (it may have been cancelled meanwhile).
    pub applied: bool,
}

/// A manual attempt's place: counted as pending for its endpoint and
/// holding a slot of its lane (and, when rate-limited, a token). Dropped,
/// it gives both back, telling the breaker how the attempt went.
pub(crate) struct ManualSlot {
    lanes: Arc<crate::lanes::Lanes>,
    clock: Arc<dyn relay_core::time::Clock>,
    endpoint_id: String,
    signal: relay_core::circuit::Signal,
}

impl Drop for ManualSlot {
    fn drop(&mut self) {
        self.lanes
            .done(&self.endpoint_id, self.signal, self.clock.now());
        self.lanes.release_manual(&self.endpoint_id);
    }
}

/// The audit action of a resend.
pub const RESENT: &str = "message.resent";
/// The audit action of an endpoint's test send.
pub const TEST_SENT: &str = "endpoint.test_sent";

/// The audit entry of a manual attempt by `actor` at `at`; the store adds
/// its target and what it attempts (`relay_store::manual_audit`).
fn manual_entry(
    actor: &str,
    action: &str,
    at: relay_core::time::Timestamp,
) -> relay_store::AuditEntry {
    relay_store::AuditEntry {
        id: relay_store::new_id(relay_core::id::IdKind::Audit, at),
        actor: actor.to_string(),
        action: action.to_string(),
        target: String::new(),
        parameters: serde_json::json!({}),
        at,
    }
}

/// Whole seconds from `now` to `at`, at least one (a `Retry-After`).
fn seconds_until(at: relay_core::time::Timestamp, now: relay_core::time::Timestamp) -> u64 {
    let millis = (at.millis() - now.millis()).max(0) as u64;
    millis.div_ceil(1000).max(1)
}

impl Dispatcher {
    /// Waits for a slot of `endpoint`'s lane for a manual attempt (see the
    /// module's documentation): refused at once when the endpoint has
    /// `manual_pending_per_endpoint` manual attempts pending or its circuit
    /// is open, and after `manual_wait` without a free slot.
    pub(crate) async fn manual_slot(
        &self,
        endpoint: &relay_core::model::Endpoint,
    ) -> Result<ManualSlot, ManualError> {
        let a = &self.attempter;
        let id = endpoint.id.as_str();
        if endpoint.state == relay_core::model::EndpointState::Unverified {
            return Err(ManualError::Unverified);
        }
        if !self
            .lanes
            .reserve_manual(id, a.config.manual_pending_per_endpoint)
        {
            return Err(ManualError::Limited {
                retry_after_secs: 1,
            });
        }
        // From here on the reservation is given back on every path.
        struct Reserved<'a>(&'a crate::lanes::Lanes, &'a str, bool);
        impl Drop for Reserved<'_> {
            fn drop(&mut self) {
                if self.2 {
                    self.0.release_manual(self.1);
                }
            }
        }
        let mut reserved = Reserved(&self.lanes, id, true);
        let deadline = tokio::time::Instant::now() + a.config.manual_wait;
        // On PostgreSQL, an endpoint this node holds no share of yet gets
        // one renewal at once, not at the keeper's next tick.
        let mut renewed = false;
        loop {
            let freed = self.lanes.manual_freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            let now = a.clock.now();
            let wait = match self.lanes.try_admit(
                id,
                endpoint.max_concurrency,
                endpoint.rate_limit_per_second,
                now,
            ) {
                Ok(()) => {
                    reserved.2 = false;
                    return Ok(ManualSlot {
                        lanes: self.lanes.clone(),
                        clock: a.clock.clone(),
                        endpoint_id: endpoint.id.clone(),
                        signal: relay_core::circuit::Signal::Neutral,
                    });
                }
                Err(Refusal::CircuitOpen { until }) => {
                    return Err(ManualError::CircuitOpen {
                        retry_after_secs: until.map_or(1, |u| seconds_until(u, now)),
                    });
                }
                Err(Refusal::RateLimited { next }) => Some(std::time::Duration::from_millis(
                    (next.millis() - now.millis()).max(1) as u64,
                )),
                Err(Refusal::Full) if !renewed && !self.lanes.shares.has_share(id) => {
                    renewed = true;
                    self.renew_shares(false).await.map_err(ManualError::Store)?;
                    continue;
                }
                Err(Refusal::Full) => None,
            };
            let timeout = tokio::time::sleep_until(deadline);
            tokio::select! {
                _ = &mut freed => {}
                _ = tokio::time::sleep(wait.unwrap_or(a.config.manual_wait)), if wait.is_some() => {}
                _ = timeout => return Err(ManualError::Limited { retry_after_secs: 1 }),
            }
        }
    }

    /// One immediate attempt at a message, under a lease so it never runs
    /// beside an automatic one (reference "Recovery"), and through the
    /// endpoint's lane: a success ends the message `delivered` and cancels
    /// pending attempts; a failure leaves the schedule (or the terminal
    /// state) as it was and does not count.
    ///
    /// Audited as `message.resent` by `actor` (an API key's id, a portal
    /// session's `portal:<consumer>:<token>`) in the lease's transaction,
    /// its outcome written when the attempt ends (`relay_store::manual_audit`).
    pub async fn resend(
        &self,
        scope: &relay_store::Scope,
        message_id: &str,
        actor: &str,
    ) -> Result<ManualOutcome, ManualError> {
        let a = &self.attempter;
        let message = a
            .store
            .read({
                let (sc, id) = (scope.clone(), message_id.to_string());
                move |mut x| {
                    Box::pin(async move { relay_store::messages::get(&mut x, &sc, &id).await })
                }
            })
            .await
            .map_err(ManualError::Store)?
            .ok_or(ManualError::NotFound)?;
        let endpoint = endpoint(a, scope, &message.endpoint_id)
            .await
            .map_err(ManualError::Store)?
            .ok_or(ManualError::EndpointDeleted)?;
        let slot = self.manual_slot(&endpoint).await?;
        // From the lease on, the attempt runs to its end ([`run_to_end`]).
        let a = self.attempter.clone();
        let (scope, message_id) = (scope.clone(), message_id.to_string());
        let audit = manual_entry(actor, RESENT, a.clock.now());
        run_to_end(async move {
            let now = a.clock.now();
            let lease_until = now.plus_millis(a.config.lease.as_millis() as i64);
            let (at, owner, entry) = (scope.clone(), a.config.owner.clone(), audit.clone());
            let claimed = a
                .store
                .write(Commit::Durable, move |mut x| {
                    Box::pin(async move {
                        manual_audit::lease_for_manual_attempt(
                            &mut x,
                            &at,
                            &message_id,
                            &owner,
                            now,
                            lease_until,
                            &entry,
                        )
                        .await
                    })
                })
                .await
                .map_err(|e| match e {
                    relay_store::StoreError::NotFound => ManualError::NotFound,
                    relay_store::StoreError::Conflict("event_expired") => ManualError::EventExpired,
                    relay_store::StoreError::Conflict("endpoint_deleted") => {
                        ManualError::EndpointDeleted
                    }
                    other => ManualError::Store(other),
                })?
                .ok_or(ManualError::Busy)?;
            manual_attempt(&a, &claimed, slot, &scope, &audit.id).await
        })
        .await
    }

    /// The endpoint's test action: `event` (a sample of a type it subscribes
    /// to) is written with one message for this endpoint only, and attempted
    /// at once through the normal signing and guard path, and the
    /// endpoint's lane (the event is written only once a slot is had).
    /// Audited as `endpoint.test_sent` by `actor`, in the transaction that
    /// writes the event, its outcome written when the attempt ends.
    pub async fn send_test(
        &self,
        scope: &relay_store::Scope,
        endpoint_id: &str,
        event: relay_store::NewEvent,
        actor: &str,
    ) -> Result<(String, ManualOutcome), ManualError> {
        let a = &self.attempter;
        let endpoint = endpoint(a, scope, endpoint_id)
            .await
            .map_err(ManualError::Store)?
            .ok_or(ManualError::NotFound)?;
        let slot = self.manual_slot(&endpoint).await?;
        // From the write on, the attempt runs to its end ([`run_to_end`]).
        let a = self.attempter.clone();
        let (scope, endpoint_id) = (scope.clone(), endpoint_id.to_string());
        let audit = manual_entry(actor, TEST_SENT, a.clock.now().max(event.now));
        run_to_end(async move {
            // The lease counts from now: the wait for a slot is not the attempt's.
            let lease_until = a
                .clock
                .now()
                .max(event.now)
                .plus_millis(a.config.lease.as_millis() as i64);
            let (at, owner, entry) = (scope.clone(), a.config.owner.clone(), audit.clone());
            let claimed = a
                .store
                .write(Commit::Durable, move |mut x| {
                    Box::pin(async move {
                        manual_audit::publish_to_endpoint(
                            &mut x,
                            &at,
                            &endpoint_id,
                            &event,
                            &owner,
                            lease_until,
                            &entry,
                        )
                        .await
                    })
                })
                .await
                .map_err(|e| match e {
                    relay_store::StoreError::NotFound => ManualError::NotFound,
                    other => ManualError::Store(other),
                })?;
            let message_id = claimed.message.id.clone();
            Ok((
                message_id,
                manual_attempt(&a, &claimed, slot, &scope, &audit.id).await?,
            ))
        })
        .await
    }
}

/// Runs `work` (a manual attempt, from its lease or its test event's
/// write to its completion) in a task of its own and waits for it. The
/// caller that stops waiting (an HTTP client that disconnects, whose
/// request's future is dropped) does not cut it short: the attempt ends,
/// its record is written and its lease given back, as if the caller had
/// waited.
async fn run_to_end<T: Send + 'static>(
    work: impl std::future::Future<Output = Result<T, ManualError>> + Send + 'static,
) -> Result<T, ManualError> {
    match tokio::spawn(work).await {
        Ok(outcome) => outcome,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        // The runtime is shutting down: a lease taken lapses on its own.
        Err(_) => Err(ManualError::Store(relay_store::StoreError::Unavailable(
            "the runtime stopped during a manual attempt",
        ))),
    }
}

/// One manual attempt at `claimed`, leased by this process, and its
/// completion, in the lane slot `slot` holds (given back when it ends); the
/// completion writes its outcome into the audit entry `audit_id` of `scope`
/// that the lease wrote.
async fn manual_attempt(
    a: &Attempter,
    claimed: &relay_store::Claimed,
    mut slot: ManualSlot,
    scope: &relay_store::Scope,
    audit_id: &str,
) -> Result<ManualOutcome, ManualError> {
    let Some(completion) = a.attempt(claimed, AttemptTrigger::Manual).await else {
        // The lease lapses on its own; nothing changed.
        return Ok(ManualOutcome {
            attempt: None,
            applied: false,
        });
    };
    slot.signal = completer::breaker_signal(Some(&completion));
    drop(slot);
    let (at, audit_id, done) = (scope.clone(), audit_id.to_string(), completion.clone());
    let applied = a
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { manual_audit::complete(&mut x, &at, &audit_id, &done).await })
        })
        .await
        .map_err(ManualError::Store)?;
    Ok(ManualOutcome {
        attempt: completion.attempt,
        applied: applied.applied.first().copied().unwrap_or(false),
    })
}

/// The scope's endpoint `id`, if any: one read through the executor.
async fn endpoint(
    a: &Attempter,
    scope: &relay_store::Scope,
    id: &str,
) -> Result<Option<relay_core::model::Endpoint>, relay_store::StoreError> {
    let (scope, id) = (scope.clone(), id.to_string());
    a.store
        .read(move |mut x| {
            Box::pin(async move { relay_store::endpoints::get(&mut x, &scope, &id).await })
        })
        .await
}
