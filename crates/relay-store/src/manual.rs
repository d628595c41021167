//! Manual attempts, outside the schedule: the endpoint's test action
//! ([`publish_to_endpoint`]) and a message's resend
//! ([`lease_for_manual_attempt`]). Each leases its message at once to the
//! dispatcher that makes the attempt.

use relay_core::time::Timestamp;

use crate::claims::load_claimed;
use crate::exec::{Exec, fetch_optional};
use crate::rows::RowExt;
use crate::sql::SqlBuilder;
use crate::{Claimed, NewEvent, Result, Scope, StoreError};

/// Writes `ev` with one message, for `endpoint_id` only, leased at once to
/// `owner` for a manual attempt. The message is a real one: if the attempt
/// fails, its schedule goes on.
pub async fn publish_to_endpoint<X: Exec>(
    x: &mut X,
    scope: &Scope,
    endpoint_id: &str,
    ev: &NewEvent,
    owner: &str,
    lease_until: Timestamp,
) -> Result<Claimed> {
    let env = scope.environment.as_str();
    let mut q = SqlBuilder::new("SELECT e.*, c.kind AS consumer_kind");
    crate::audience::endpoint_type_audience_column(&mut q, &ev.event_type);
    q.push(" FROM endpoints e JOIN consumers c ON c.id = e.consumer_id WHERE e.tenant_id = ")
        .bind(scope.tenant_id.as_str().into())
        .push(" AND e.environment = ")
        .bind(env.into())
        .push(" AND e.id = ")
        .bind(endpoint_id.into())
        .push(" AND e.deleted_at IS NULL");
    let Some(endpoint) = fetch_optional(x, &q).await? else {
        return Err(StoreError::NotFound);
    };
    // A test event is one like any other: the endpoint must be one publish
    // would give it to (`crate::audience`).
    if !crate::audience::allowed_endpoint(&endpoint, &ev.event_type, ev.consumer_id.as_deref())? {
        return Err(StoreError::Conflict("not_addressed"));
    }
    x.execute(&SqlBuilder::of(
        "INSERT INTO events (tenant_id, environment, id, event_type, type_version, subject, data, \
         consumer_id, ordering_key, seq, traceparent, expires_at, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, $10, $11, $12)",
        [
            scope.tenant_id.as_str().into(),
            env.into(),
            (&ev.id).into(),
            (&ev.event_type).into(),
            ev.type_version.into(),
            (&ev.subject).into(),
            ev.data.get().into(),
            (&ev.consumer_id).into(),
            (&ev.ordering_key).into(),
            (&ev.traceparent).into(),
            ev.expires_at.into(),
            ev.now.into(),
        ],
    ))
    .await
    .map_err(|e| e.unique_as("event_id"))?;
    let message_id = crate::new_id(relay_core::id::IdKind::Message, ev.now);
    x.execute(&SqlBuilder::of(
        "INSERT INTO messages (id, tenant_id, environment, event_id, endpoint_id, event_type, state, \
         next_attempt_at, lease_owner, lease_until, lease_version, created_at, updated_at, expires_at, \
         endpoint_version) \
         VALUES ($1, $2, $3, $4, $5, $6, 'scheduled', $7, $8, $9, 1, $7, $7, $10, \
         (SELECT version FROM endpoints WHERE id = $5))",
        [
            message_id.as_str().into(),
            scope.tenant_id.as_str().into(),
            env.into(),
            (&ev.id).into(),
            endpoint_id.into(),
            (&ev.event_type).into(),
            ev.now.into(),
            owner.into(),
            lease_until.into(),
            ev.expires_at.into(),
        ],
    ))
    .await?;
    load_claimed(x, &[message_id])
        .await?
        .pop()
        .ok_or(StoreError::NotFound)
}

/// Leases one message for a manual attempt, whatever its state, unless an
/// attempt is already in flight or leased. `None` when it is busy.
/// `Conflict("endpoint_deleted")` when its endpoint was deleted and
/// `Conflict("event_expired")` when its event's TTL has passed: nothing to
/// attempt, and no lease is taken.
pub async fn lease_for_manual_attempt<X: Exec>(
    x: &mut X,
    scope: &Scope,
    message_id: &str,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
) -> Result<Option<Claimed>> {
    let found = fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT e.deleted_at AS endpoint_deleted_at, v.expires_at FROM messages m \
             JOIN endpoints e ON e.id = m.endpoint_id \
             JOIN events v ON v.tenant_id = m.tenant_id AND v.environment = m.environment \
             AND v.id = m.event_id \
             WHERE m.tenant_id = $1 AND m.environment = $2 AND m.id = $3",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                message_id.into(),
            ],
        ),
    )
    .await?;
    let Some(found) = found else {
        return Err(StoreError::NotFound);
    };
    // Nothing to attempt, and no lease taken: the endpoint is gone, or the
    // event's time to live has passed.
    if found.opt_int("endpoint_deleted_at")?.is_some() {
        return Err(StoreError::Conflict("endpoint_deleted"));
    }
    if found.opt_ts("expires_at")?.is_some_and(|t| t <= now) {
        return Err(StoreError::Conflict("event_expired"));
    }
    // At most one attempt at a time: not while one is in flight or leased.
    let leased = x
        .execute(&SqlBuilder::of(
            "UPDATE messages SET lease_owner = $2, lease_until = $3, lease_version = lease_version + 1 \
             WHERE id = $1 AND state <> 'in_flight' AND (lease_until IS NULL OR lease_until < $4)",
            [
                message_id.into(),
                owner.into(),
                lease_until.into(),
                now.into(),
            ],
        ))
        .await?;
    if leased == 0 {
        return Ok(None);
    }
    Ok(load_claimed(x, &[message_id.to_string()]).await?.pop())
}
