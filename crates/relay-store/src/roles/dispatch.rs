//! [`Dispatch`]: what the dispatcher needs to deliver: new messages handed
//! over at publish, claims and their completions, lease rescue and
//! release, manual attempts, a rate-limited endpoint's window, and the
//! wake-ups other nodes send.

use std::sync::Arc;

use async_trait::async_trait;
use relay_core::time::Timestamp;

use crate::backend::Backend;
use crate::exec::Commit;
use crate::{
    AuditEntry, Backlog, ClaimBatch, ClaimRequest, Claimed, Completed, Completion, EndpointNotice,
    Intake, NewEvent, Result, Scope, claims, completions, manual, manual_audit, window,
};

#[async_trait]
pub trait Dispatch: Send + Sync {
    /// Hands this process's new messages to `intake` from now on (see
    /// [`Intake`]); `None` stops it.
    fn set_intake(&self, intake: Option<Arc<dyn Intake>>);

    /// Leases due `scheduled` messages to `owner` until `lease_until`, in one
    /// transaction, and of each endpoint at most its room: the number `room`
    /// gives for it (0 skips it: its lane is full), else its
    /// `max_concurrency`. Concurrent claimers never get the same message
    /// (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: one writer).
    ///
    /// Live traffic (priority 0) first: up to `limit` of it, oldest due
    /// first. The room left, at most `recovery_limit`, goes to recovery
    /// traffic (priority 1) shared equally among the tenants that have some
    /// due, each tenant's oldest due first: a tenant with a huge backlog gets
    /// no more of a claim than a tenant with a small one. A tenant with less
    /// than its share leaves the rest to the others; the odd slots go round
    /// the tenants in turn (`recovery_after`).
    async fn claim(&self, request: &ClaimRequest<'_>) -> Result<ClaimBatch>;
    /// [`Dispatch::claim`] with no cap on recovery traffic and the rotation
    /// starting at the first tenant: up to `limit` messages, live first.
    async fn claim_due(
        &self,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
        limit: u32,
        room: &[(String, u32)],
    ) -> Result<Vec<Claimed>> {
        let batch = self
            .claim(&ClaimRequest {
                owner,
                now,
                lease_until,
                limit,
                recovery_limit: limit,
                room,
                recovery_after: None,
            })
            .await?;
        Ok(batch.claimed)
    }
    /// Gives claimed messages back unattempted (due as before, nothing used up).
    async fn release_claims(&self, owner: &str, ids: &[String], now: Timestamp) -> Result<u64>;
    /// Applies completions in one transaction; returns, per completion,
    /// whether its lease still held (a late completion changes nothing but
    /// its attempt record), and which were skipped because their message is
    /// gone (see [`Completed`]).
    async fn complete(&self, batch: &[Completion]) -> Result<Completed>;
    /// Returns expired leases to `scheduled`, due now; returns how many.
    async fn rescue_expired_leases(&self, now: Timestamp) -> Result<u64>;
    /// Returns `owner`'s leases to `scheduled` (graceful shutdown); returns how many.
    async fn release_leases(&self, owner: &str, now: Timestamp) -> Result<u64>;
    /// When the earliest `scheduled` message is due.
    async fn next_due_at(&self) -> Result<Option<Timestamp>>;
    /// How many messages wait for delivery (`scheduled` or `in_flight`),
    /// and when the oldest of them was made (`/metrics`).
    async fn backlog_summary(&self) -> Result<(u64, Option<Timestamp>)>;
    /// How many of the tenant's recovery messages are due at `now` and not
    /// yet claimed (a bulk retry restarts more only as these drain), up to
    /// `claims::RECOVERY_DUE_CAP`.
    async fn recovery_due(&self, tenant_id: &str, now: Timestamp) -> Result<u64>;

    /// Writes `event` with one message, for `endpoint_id` only, leased at once
    /// to `owner` for a manual attempt (the endpoint's test action). The
    /// message is a real one: if the attempt fails, its schedule goes on.
    async fn publish_to_endpoint(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        event: NewEvent,
        owner: &str,
        lease_until: Timestamp,
    ) -> Result<Claimed>;
    /// Leases one message for a manual attempt, whatever its state, unless an
    /// attempt is already in flight or leased. `None` when it is busy.
    /// `Conflict("endpoint_deleted")` when its endpoint was deleted and
    /// `Conflict("event_expired")` when its event's TTL has passed: nothing
    /// to attempt, and no lease is taken.
    async fn lease_for_manual_attempt(
        &self,
        scope: &Scope,
        message_id: &str,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<Claimed>>;
    /// [`Dispatch::publish_to_endpoint`] with its audit entry (target: the
    /// endpoint) in the same transaction ([`manual_audit`]): what the
    /// dispatcher's test send uses.
    async fn publish_to_endpoint_audited(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        event: NewEvent,
        owner: &str,
        lease_until: Timestamp,
        audit: &AuditEntry,
    ) -> Result<Claimed>;
    /// [`Dispatch::lease_for_manual_attempt`] with its audit entry (target:
    /// the message), written in the same transaction when the message was
    /// leased ([`manual_audit`]): what the dispatcher's resend uses.
    async fn lease_for_manual_attempt_audited(
        &self,
        scope: &Scope,
        message_id: &str,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
        audit: &AuditEntry,
    ) -> Result<Option<Claimed>>;
    /// [`Dispatch::complete`] of one manual attempt, and its outcome written
    /// into the audit entry `audit_id` its lease wrote, in one transaction.
    async fn complete_manual_audited(
        &self,
        scope: &Scope,
        audit_id: &str,
        completion: &Completion,
    ) -> Result<Completed>;

    /// The endpoint (not deleted) with its live messages due by `now` and not
    /// leased, in the order claims take them (oldest due first, then by
    /// id), after `after` (a message's `(next_attempt_at, id)`), at most
    /// `limit`: what the window rule reads of a rate-limited endpoint's
    /// backlog. `None` when the endpoint is gone.
    async fn due_backlog(
        &self,
        endpoint_id: &str,
        now: Timestamp,
        after: Option<(Timestamp, String)>,
        limit: u32,
    ) -> Result<Option<Backlog>>;
    /// Ends the listed messages `window_exceeded` (reason
    /// `window_exceeded`) if they are still `scheduled` and not leased at
    /// `now`. Returns how many.
    async fn end_window_exceeded(&self, ids: &[String], now: Timestamp) -> Result<u64>;

    /// Wakes `notify` whenever another process publishes (PostgreSQL
    /// `LISTEN/NOTIFY`), and sends on `endpoints` each endpoint state change
    /// committed by any process (see [`EndpointNotice`]), until `stop` turns
    /// true or its sender is dropped (then `endpoints` is dropped). Returns
    /// the listening task, which the caller joins once it has stopped it;
    /// `None` for SQLite, which has one process (`endpoints` is dropped at
    /// once).
    async fn listen_for_wakeups(
        &self,
        notify: Arc<tokio::sync::Notify>,
        endpoints: tokio::sync::mpsc::UnboundedSender<EndpointNotice>,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<Option<tokio::task::JoinHandle<()>>>;
}

#[async_trait]
impl<B: Backend> Dispatch for B {
    fn set_intake(&self, intake: Option<Arc<dyn Intake>>) {
        if let Ok(mut slot) = self.intake().write() {
            *slot = intake;
        }
    }

    async fn claim(&self, req: &ClaimRequest<'_>) -> Result<ClaimBatch> {
        let owner = req.owner.to_string();
        let room = req.room.to_vec();
        let after = req.recovery_after.map(str::to_string);
        let (now, lease_until) = (req.now, req.lease_until);
        let (limit, recovery_limit) = (req.limit, req.recovery_limit);
        self.write(Commit::Lease, move |x| {
            Box::pin(async move {
                let req = ClaimRequest {
                    owner: &owner,
                    now,
                    lease_until,
                    limit,
                    recovery_limit,
                    room: &room,
                    recovery_after: after.as_deref(),
                };
                claims::claim(x, &req).await
            })
        })
        .await
    }

    async fn release_claims(&self, owner: &str, ids: &[String], now: Timestamp) -> Result<u64> {
        if ids.is_empty() {
            return Ok(0);
        }
        let (owner, ids) = (owner.to_string(), ids.to_vec());
        // The reverse of a claim: lost in a power cut, the lease expires.
        self.write(Commit::Lease, move |x| {
            Box::pin(async move { claims::release_claims(x, &owner, &ids, now).await })
        })
        .await
    }

    async fn complete(&self, batch: &[Completion]) -> Result<Completed> {
        let batch = batch.to_vec();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { completions::complete(x, &batch).await })
        })
        .await
    }

    async fn rescue_expired_leases(&self, now: Timestamp) -> Result<u64> {
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { claims::rescue_expired_leases(x, now).await })
        })
        .await
    }

    async fn release_leases(&self, owner: &str, now: Timestamp) -> Result<u64> {
        let owner = owner.to_string();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { claims::release_leases(x, &owner, now).await })
        })
        .await
    }

    async fn next_due_at(&self) -> Result<Option<Timestamp>> {
        claims::next_due(&mut *self.reader().await?).await
    }

    async fn backlog_summary(&self) -> Result<(u64, Option<Timestamp>)> {
        claims::backlog_summary(&mut *self.reader().await?).await
    }

    async fn recovery_due(&self, tenant_id: &str, now: Timestamp) -> Result<u64> {
        claims::recovery_due(&mut *self.reader().await?, tenant_id, now).await
    }

    async fn publish_to_endpoint(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        event: NewEvent,
        owner: &str,
        lease_until: Timestamp,
    ) -> Result<Claimed> {
        let (scope, endpoint_id, owner) =
            (scope.clone(), endpoint_id.to_string(), owner.to_string());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move {
                manual::publish_to_endpoint(x, &scope, &endpoint_id, &event, &owner, lease_until)
                    .await
            })
        })
        .await
    }

    async fn lease_for_manual_attempt(
        &self,
        scope: &Scope,
        message_id: &str,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
    ) -> Result<Option<Claimed>> {
        let (scope, message_id, owner) = (scope.clone(), message_id.to_string(), owner.to_string());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move {
                manual::lease_for_manual_attempt(x, &scope, &message_id, &owner, now, lease_until)
                    .await
            })
        })
        .await
    }

    async fn publish_to_endpoint_audited(
        &self,
        scope: &Scope,
        endpoint_id: &str,
        event: NewEvent,
        owner: &str,
        lease_until: Timestamp,
        audit: &AuditEntry,
    ) -> Result<Claimed> {
        let (scope, endpoint_id, owner) =
            (scope.clone(), endpoint_id.to_string(), owner.to_string());
        let audit = audit.clone();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move {
                manual_audit::publish_to_endpoint(
                    x,
                    &scope,
                    &endpoint_id,
                    &event,
                    &owner,
                    lease_until,
                    &audit,
                )
                .await
            })
        })
        .await
    }

    async fn lease_for_manual_attempt_audited(
        &self,
        scope: &Scope,
        message_id: &str,
        owner: &str,
        now: Timestamp,
        lease_until: Timestamp,
        audit: &AuditEntry,
    ) -> Result<Option<Claimed>> {
        let (scope, message_id, owner) = (scope.clone(), message_id.to_string(), owner.to_string());
        let audit = audit.clone();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move {
                manual_audit::lease_for_manual_attempt(
                    x,
                    &scope,
                    &message_id,
                    &owner,
                    now,
                    lease_until,
                    &audit,
                )
                .await
            })
        })
        .await
    }

    async fn complete_manual_audited(
        &self,
        scope: &Scope,
        audit_id: &str,
        completion: &Completion,
    ) -> Result<Completed> {
        let (scope, audit_id, completion) =
            (scope.clone(), audit_id.to_string(), completion.clone());
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { manual_audit::complete(x, &scope, &audit_id, &completion).await })
        })
        .await
    }

    async fn due_backlog(
        &self,
        endpoint_id: &str,
        now: Timestamp,
        after: Option<(Timestamp, String)>,
        limit: u32,
    ) -> Result<Option<Backlog>> {
        window::due_backlog(&mut *self.reader().await?, endpoint_id, now, after, limit).await
    }

    async fn end_window_exceeded(&self, ids: &[String], now: Timestamp) -> Result<u64> {
        let ids = ids.to_vec();
        self.write(Commit::Durable, move |x| {
            Box::pin(async move { window::end_window_exceeded(x, &ids, now).await })
        })
        .await
    }

    async fn listen_for_wakeups(
        &self,
        notify: Arc<tokio::sync::Notify>,
        endpoints: tokio::sync::mpsc::UnboundedSender<EndpointNotice>,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<Option<tokio::task::JoinHandle<()>>> {
        self.listen(notify, endpoints, stop).await
    }
}
