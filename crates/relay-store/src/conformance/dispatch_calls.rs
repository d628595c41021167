//! The cases' calls of what the dispatcher runs through the executor
//! (`crate::executor`): claims, completions, leases and manual attempts,
//! one operation each, committed as the dispatcher commits it. Test
//! fixtures: the product composes the operations where it runs them.
//! [`claim`] and [`release_leases`] are the engine's tests' too.

use relay_core::time::Timestamp;

use crate::{
    AuditEntry, ClaimBatch, ClaimRequest, Claimed, Commit, Completed, Completion, ExecutorExt as _,
    NewEvent, Result, Scope, Store, claims, completions, manual, manual_audit,
};

/// [`claims::claim`], in a write of its own committed as a lease.
pub async fn claim(s: &dyn Store, req: &ClaimRequest<'_>) -> Result<ClaimBatch> {
    let owner = req.owner.to_string();
    let room = req.room.to_vec();
    let after = req.recovery_after.map(str::to_string);
    let (now, lease_until) = (req.now, req.lease_until);
    let (limit, recovery_limit) = (req.limit, req.recovery_limit);
    s.write(Commit::Lease, move |mut x| {
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
            claims::claim(&mut x, &req).await
        })
    })
    .await
}

/// [`claim`] with no cap on recovery traffic and the rotation starting at
/// the first tenant: up to `limit` messages, live first.
pub(crate) async fn claim_due(
    s: &dyn Store,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
    limit: u32,
    room: &[(String, u32)],
) -> Result<Vec<Claimed>> {
    let req = ClaimRequest {
        owner,
        now,
        lease_until,
        limit,
        recovery_limit: limit,
        room,
        recovery_after: None,
    };
    Ok(claim(s, &req).await?.claimed)
}

pub(crate) async fn release_claims(
    s: &dyn Store,
    owner: &str,
    ids: &[String],
    now: Timestamp,
) -> Result<u64> {
    let (owner, ids) = (owner.to_string(), ids.to_vec());
    s.write(Commit::Lease, move |mut x| {
        Box::pin(async move { claims::release_claims(&mut x, &owner, &ids, now).await })
    })
    .await
}

pub(crate) async fn complete(s: &dyn Store, batch: &[Completion]) -> Result<Completed> {
    let batch = batch.to_vec();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { completions::complete(&mut x, &batch).await })
    })
    .await
}

pub(crate) async fn rescue_expired_leases(s: &dyn Store, now: Timestamp) -> Result<u64> {
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { claims::rescue_expired_leases(&mut x, now).await })
    })
    .await
}

/// [`claims::release_leases`], in a write of its own.
pub async fn release_leases(s: &dyn Store, owner: &str, now: Timestamp) -> Result<u64> {
    let owner = owner.to_string();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { claims::release_leases(&mut x, &owner, now).await })
    })
    .await
}

pub(crate) async fn next_due_at(s: &dyn Store) -> Result<Option<Timestamp>> {
    s.read(|mut x| Box::pin(async move { claims::next_due(&mut x).await }))
        .await
}

pub(crate) async fn backlog_summary(s: &dyn Store) -> Result<(u64, Option<Timestamp>)> {
    s.read(|mut x| Box::pin(async move { claims::backlog_summary(&mut x).await }))
        .await
}

pub(crate) async fn recovery_due(s: &dyn Store, tenant_id: &str, now: Timestamp) -> Result<u64> {
    let tenant_id = tenant_id.to_string();
    s.read(move |mut x| {
        Box::pin(async move { claims::recovery_due(&mut x, &tenant_id, now).await })
    })
    .await
}

pub(crate) async fn publish_to_endpoint(
    s: &dyn Store,
    scope: &Scope,
    endpoint_id: &str,
    event: NewEvent,
    owner: &str,
    lease_until: Timestamp,
) -> Result<Claimed> {
    let (scope, endpoint_id, owner) = (scope.clone(), endpoint_id.to_string(), owner.to_string());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move {
            manual::publish_to_endpoint(&mut x, &scope, &endpoint_id, &event, &owner, lease_until)
                .await
        })
    })
    .await
}

pub(crate) async fn lease_for_manual_attempt(
    s: &dyn Store,
    scope: &Scope,
    message_id: &str,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
) -> Result<Option<Claimed>> {
    let (scope, message_id, owner) = (scope.clone(), message_id.to_string(), owner.to_string());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move {
            manual::lease_for_manual_attempt(&mut x, &scope, &message_id, &owner, now, lease_until)
                .await
        })
    })
    .await
}

pub(crate) async fn publish_to_endpoint_audited(
    s: &dyn Store,
    scope: &Scope,
    endpoint_id: &str,
    event: NewEvent,
    owner: &str,
    lease_until: Timestamp,
    audit: &AuditEntry,
) -> Result<Claimed> {
    let (scope, endpoint_id, owner) = (scope.clone(), endpoint_id.to_string(), owner.to_string());
    let audit = audit.clone();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move {
            manual_audit::publish_to_endpoint(
                &mut x,
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

pub(crate) async fn lease_for_manual_attempt_audited(
    s: &dyn Store,
    scope: &Scope,
    message_id: &str,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
    audit: &AuditEntry,
) -> Result<Option<Claimed>> {
    let (scope, message_id, owner) = (scope.clone(), message_id.to_string(), owner.to_string());
    let audit = audit.clone();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move {
            manual_audit::lease_for_manual_attempt(
                &mut x,
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

pub(crate) async fn complete_manual_audited(
    s: &dyn Store,
    scope: &Scope,
    audit_id: &str,
    completion: &Completion,
) -> Result<Completed> {
    let (scope, audit_id, completion) = (scope.clone(), audit_id.to_string(), completion.clone());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(
            async move { manual_audit::complete(&mut x, &scope, &audit_id, &completion).await },
        )
    })
    .await
}
