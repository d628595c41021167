//! The one store operation that changes an endpoint's state: it applies a
//! [`relay_core::lifecycle::Change`] with a conditional update (only while
//! the endpoint is still in the state the change was decided from), moves
//! the endpoint's messages as the change says and emits its operational
//! event, all in the caller's transaction. The tenant's actions
//! (`crate::endpoints::change_state`), the `410` disable and the automatic
//! disable (both in the completion transaction, `crate::completions::complete`) go
//! through it.
//!
//! While the endpoint is not active, what would make one of its messages
//! deliverable again lands `held` instead ([`relay_core::lifecycle::settle`],
//! written as [`SETTLED_STATE_SQL`] for the statements that move many rows).

use relay_core::lifecycle::{Change, EndpointAction, Messages};
use relay_core::model::EndpointState;
use relay_core::time::Timestamp;

use crate::Result;
use crate::StoreError;
use crate::exec::Exec;
use crate::operational::emit_operational;
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};

/// `relay_core::lifecycle::settle` of `scheduled` for a row of `messages`:
/// `held` while the message's endpoint is paused or disabled.
pub const SETTLED_STATE_SQL: &str = "CASE WHEN EXISTS (SELECT 1 FROM endpoints se \
     WHERE se.id = messages.endpoint_id AND se.state <> 'active') THEN 'held' ELSE 'scheduled' END";

/// Applies `change` to the endpoint, only if it is still in `change.from`
/// (and not deleted); returns the change applied, `None` when it did not
/// (then nothing is written). A change that would make the endpoint active
/// while its receiver owes the ownership proof applies as
/// [`relay_core::lifecycle::without_proof`] says: `unverified`, releasing
/// nothing.
pub async fn apply<X: Exec>(
    x: &mut X,
    endpoint_id: &str,
    change: &Change,
    now: Timestamp,
) -> Result<Option<Change>> {
    let change = &if change.to == EndpointState::Active
        && crate::ownership::owes_proof(x, endpoint_id).await?
    {
        relay_core::lifecycle::without_proof(*change)
    } else {
        *change
    };
    let done = x
        .execute(&SqlBuilder::numbered(
            "UPDATE endpoints SET state = $2, disabled_reason = $3, updated_at = $4, \
             revision = revision + 1 WHERE id = $1 AND deleted_at IS NULL AND state = $5",
            [
                Bind::Text(endpoint_id.into()),
                Bind::Text(change.to.as_str().into()),
                Bind::OptText(change.disabled_reason.map(str::to_string)),
                Bind::Int(now.millis()),
                Bind::Text(change.from.as_str().into()),
            ],
        ))
        .await?;
    if done == 0 {
        return Ok(None);
    }
    match change.messages {
        Messages::Hold => {
            x.execute(&SqlBuilder::numbered(
                "UPDATE messages SET state = 'held', updated_at = $2 \
                 WHERE endpoint_id = $1 AND state = 'scheduled'",
                [Bind::Text(endpoint_id.into()), Bind::Int(now.millis())],
            ))
            .await?;
        }
        Messages::Release => {
            // In their order: what was due keeps its time, what was held
            // from the start (published while paused) is due now, by id.
            x.execute(&SqlBuilder::numbered(
                "UPDATE messages SET state = 'scheduled', next_attempt_at = COALESCE(next_attempt_at, $2), \
                 updated_at = $2 WHERE endpoint_id = $1 AND state = 'held'",
                [Bind::Text(endpoint_id.into()), Bind::Int(now.millis())],
            ))
            .await?;
        }
        Messages::None => {}
    }
    if let Some(event) = change.event {
        let data = match change.disabled_reason {
            Some(reason) => serde_json::json!({ "endpoint_id": endpoint_id, "reason": reason }),
            None => serde_json::json!({ "endpoint_id": endpoint_id }),
        };
        emit_operational(x, endpoint_id, event, data, now).await?;
    }
    if let Some(notify) = x.dialect().endpoint_notify {
        // Delivered on commit: other nodes give back what they leased ahead.
        x.execute(&SqlBuilder::numbered(
            notify,
            [Bind::Text(format!("{}:{endpoint_id}", change.to.as_str()))],
        ))
        .await?;
    }
    Ok(Some(*change))
}

/// An automatic action (a `410`, the five-day disable) on the endpoint,
/// from whatever state it is in now: applied if the rule allows it, else
/// nothing (an endpoint disabled already stays as it is). Returns the change
/// applied. The five-day disable applies only to endpoints that keep
/// automatic disabling on. An applied change is audited (actor
/// [`SYSTEM_ACTOR`], action `endpoint.disabled`, parameters `from`, `to`,
/// `reason`) in the caller's transaction.
pub async fn apply_automatic<X: Exec>(
    x: &mut X,
    endpoint_id: &str,
    action: EndpointAction,
    now: Timestamp,
) -> Result<Option<Change>> {
    let found = x
        .fetch(&SqlBuilder::numbered(
            "SELECT state, auto_disable, tenant_id, environment FROM endpoints \
             WHERE id = $1 AND deleted_at IS NULL",
            [Bind::Text(endpoint_id.into())],
        ))
        .await?;
    let Some(row) = found.first() else {
        return Ok(None);
    };
    if action == EndpointAction::FailingForFiveDays && row.int("auto_disable")? == 0 {
        return Ok(None);
    }
    let state = row.text("state")?;
    let from = EndpointState::parse(&state)
        .ok_or_else(|| StoreError::Corrupt(format!("endpoint state `{state}`")))?;
    let Ok(change) = relay_core::lifecycle::decide(from, action) else {
        return Ok(None);
    };
    let Some(change) = apply(x, endpoint_id, &change, now).await? else {
        return Ok(None);
    };
    // Audited as the tenant's own actions are, with Relay as the actor.
    let scope = crate::Scope {
        tenant_id: row.text("tenant_id")?,
        environment: row.environment("environment")?,
    };
    let entry = crate::AuditEntry {
        id: crate::new_id(relay_core::id::IdKind::Audit, now),
        actor: SYSTEM_ACTOR.into(),
        action: format!("endpoint.{}", change.to.as_str()),
        target: endpoint_id.into(),
        parameters: serde_json::json!({
            "from": change.from.as_str(),
            "to": change.to.as_str(),
            "reason": change.disabled_reason,
        }),
        at: now,
    };
    crate::audit::insert(x, &scope, &entry).await?;
    Ok(Some(change))
}

/// The actor of the audit entries of Relay's own state changes (the `410`
/// disable, the five-day disable).
pub const SYSTEM_ACTOR: &str = "system";
