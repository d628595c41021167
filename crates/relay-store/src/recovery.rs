//! Recovery: restarting an endpoint's failed and unattempted messages
//! ([`recover`]) and creating messages for the events it missed
//! ([`replay`]). Both are recovery traffic (priority 1), below live traffic.

use relay_core::model::MessageState;
use relay_core::time::Timestamp;

use crate::exec::{Exec, scoped_row};
use crate::rows::{self, RowExt};
use crate::sql::SqlBuilder;
use crate::{AuditEntry, Result, Scope, StoreError, audit};

const ENDPOINT: &str = "SELECT * FROM endpoints WHERE tenant_id = $1 AND environment = $2 AND id = $3 \
     AND deleted_at IS NULL";

/// Requeues an endpoint's failed and unattempted messages created in
/// `[since, until)`: their schedule restarts now. Returns how many.
pub async fn recover<X: Exec>(
    x: &mut X,
    scope: &Scope,
    endpoint_id: &str,
    since: Timestamp,
    until: Timestamp,
    audit: &AuditEntry,
) -> Result<u64> {
    let Some(endpoint) = scoped_row(x, ENDPOINT, scope, endpoint_id).await? else {
        return Err(StoreError::NotFound);
    };
    if endpoint.text("state")? != "active" {
        return Err(StoreError::Conflict("endpoint_not_active"));
    }
    // Failed (terminal, not delivered, not expired) and unattempted (held)
    // messages restart their schedule now.
    let states: Vec<String> = relay_core::transition::RESTARTABLE
        .iter()
        .map(|s| format!("'{}'", s.as_str()))
        .chain(std::iter::once("'held'".to_string()))
        .collect();
    let done = x
        .execute(&SqlBuilder::of(
            &format!(
                "UPDATE messages SET state = 'scheduled', attempts_used = 0, deferrals_used = 0, priority = 1, \
                 next_attempt_at = $4, terminal_reason = NULL, lease_owner = NULL, lease_until = NULL, \
                 lease_version = lease_version + 1, updated_at = $4 \
                 WHERE endpoint_id = $1 AND created_at >= $2 AND created_at < $3 AND state IN ({})",
                states.join(", ")
            ),
            [
                endpoint_id.into(),
                since.into(),
                until.into(),
                audit.at.into(),
            ],
        ))
        .await?;
    audit::insert(x, scope, audit).await?;
    Ok(done)
}

/// Creates messages for this endpoint for the events created in
/// `[since, until)` that it subscribes to (narrowed to `event_types` when
/// given), keeping each event's id; events it already has a message for are
/// skipped (`(endpoint_id, event_id)` is unique). Returns how many.
pub async fn replay<X: Exec>(
    x: &mut X,
    scope: &Scope,
    endpoint_id: &str,
    since: Timestamp,
    until: Timestamp,
    event_types: Option<&[String]>,
    audit: &AuditEntry,
) -> Result<u64> {
    let env = scope.environment.as_str();
    let Some(row) = scoped_row(x, ENDPOINT, scope, endpoint_id).await? else {
        return Err(StoreError::NotFound);
    };
    let endpoint = rows::endpoint(&row)?;
    let kind = crate::exec::fetch_one(
        x,
        &SqlBuilder::of(
            "SELECT kind FROM consumers WHERE id = $1",
            [endpoint.consumer_id.as_str().into()],
        ),
    )
    .await?
    .text("kind")?;
    let kind = crate::audience::consumer_kind(&kind)?;
    // The events the endpoint subscribes to and the audience rule gives its
    // consumer (`crate::audience`), as publish would have fanned them out.
    let mut q = SqlBuilder::new("SELECT e.id, e.event_type, e.expires_at, e.consumer_id");
    q.push(crate::audience::EVENT_TYPE_AUDIENCE_COLUMN)
        .push(" FROM events e WHERE e.tenant_id = ")
        .bind(scope.tenant_id.as_str().into())
        .push(" AND e.environment = ")
        .bind(env.into())
        .push(" AND e.created_at >= ")
        .bind(since.into())
        .push(" AND e.created_at < ")
        .bind(until.into())
        .push(" AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.endpoint_id = ")
        .bind(endpoint_id.into())
        .push(" AND m.event_id = e.id)");
    crate::audience::event_conditions(&mut q, &endpoint, kind, event_types);
    q.push(" ORDER BY e.created_at, e.id");
    let events = x.fetch(&q).await?;
    let initial = endpoint.state.initial_message_state();
    let now = audit.at;
    let next = (initial == MessageState::Scheduled).then_some(now.millis());
    let mut created = 0u64;
    for e in &events {
        if !crate::audience::allowed_event(e, &endpoint, kind, event_types)? {
            continue;
        }
        created += x
            .execute(&SqlBuilder::of(
                "INSERT INTO messages (id, tenant_id, environment, event_id, endpoint_id, event_type, state, \
                 next_attempt_at, priority, created_at, updated_at, expires_at, endpoint_version) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $9, $10, $11) \
                 ON CONFLICT (endpoint_id, event_id) DO NOTHING",
                [
                    crate::new_id(relay_core::id::IdKind::Message, now).into(),
                    scope.tenant_id.as_str().into(),
                    env.into(),
                    e.text("id")?.into(),
                    endpoint_id.into(),
                    e.text("event_type")?.into(),
                    initial.as_str().into(),
                    next.into(),
                    now.into(),
                    e.opt_ts("expires_at")?.into(),
                    endpoint.version.into(),
                ],
            ))
            .await?;
    }
    audit::insert(x, scope, audit).await?;
    if created > 0
        && let Some(notify) = x.dialect().wake_notify
    {
        x.execute(&SqlBuilder::new(notify)).await?;
    }
    Ok(created)
}
