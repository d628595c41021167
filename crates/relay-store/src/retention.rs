//! Retention: what the dispatcher's purge and expiry sweeps remove or end.
//! Each call is one short transaction over a bounded batch.

use relay_core::model::MessageState;
use relay_core::time::Timestamp;

use crate::Result;
use crate::exec::Exec;
use crate::rows::RowExt;
use crate::sql::{Bind, HOUR_MILLIS, LIVE_STATES_SQL, SqlBuilder, WAITING_STATES_SQL};

/// Deletes up to `batch` events created before `cutoff`, with their
/// messages and attempts. An event with a message still live (scheduled,
/// held or in flight) or leased is kept, however old, until that message
/// ends; except that a disabled endpoint's `held` messages are kept for the
/// retention period only (the reference: they "stay for the retention
/// period"), not for ever. Returns how many events went: run it as one
/// short transaction, again until it returns less than `batch`.
pub async fn purge_before<X: Exec>(x: &mut X, cutoff: Timestamp, batch: u32) -> Result<u64> {
    // Only events none of whose messages is still live: a scheduled, held
    // or in-flight message (or one under a lease, such as a manual
    // resend's) keeps its event, however old, until it ends. A message
    // held because its endpoint is disabled does not: nothing will attempt
    // it unless the tenant recovers it, which retention bounds.
    let old = x
        .fetch(&SqlBuilder::of(
            &format!(
                "SELECT tenant_id, environment, id FROM events ev WHERE created_at < $1 \
                 AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.tenant_id = ev.tenant_id \
                 AND m.environment = ev.environment AND m.event_id = ev.id \
                 AND (m.lease_owner IS NOT NULL OR (m.state IN {LIVE_STATES_SQL} \
                 AND NOT (m.state = 'held' AND EXISTS (SELECT 1 FROM endpoints en \
                 WHERE en.id = m.endpoint_id AND en.state = 'disabled'))))) \
                 ORDER BY created_at LIMIT $2"
            ),
            [cutoff.into(), i64::from(batch).into()],
        ))
        .await?;
    let for_update = x.dialect().for_update;
    let mut purged = 0u64;
    for e in &old {
        let key: [crate::sql::Bind; 3] = [
            e.text("tenant_id")?.into(),
            e.text("environment")?.into(),
            e.text("id")?.into(),
        ];
        // Lock the event's messages and look again: on PostgreSQL a claim,
        // recover or bulk retry may have made one live since the read above
        // (SQLite has one writer). Whatever changes them now waits for this
        // transaction, and then finds them gone.
        let messages = x
            .fetch(&SqlBuilder::of(
                &format!(
                    "SELECT state, lease_owner, (SELECT en.state FROM endpoints en \
                     WHERE en.id = m.endpoint_id) AS endpoint_state FROM messages m \
                     WHERE tenant_id = $1 AND environment = $2 AND event_id = $3{for_update}"
                ),
                key.clone(),
            ))
            .await?;
        let mut live = false;
        for m in &messages {
            let state = MessageState::parse(&m.text("state")?);
            let held_by_disabled = state == Some(MessageState::Held)
                && m.opt_text("endpoint_state")?.as_deref() == Some("disabled");
            live |= m.opt_text("lease_owner")?.is_some()
                || (state.is_none_or(|s| !s.is_terminal()) && !held_by_disabled);
        }
        if live {
            continue;
        }
        crate::object_batches::purge_for_event(x, &key).await?;
        crate::workflow_steps::purge_for_event(x, &key).await?;
        for delete in [
            "DELETE FROM attempts WHERE message_id IN (SELECT id FROM messages \
             WHERE tenant_id = $1 AND environment = $2 AND event_id = $3)",
            "DELETE FROM messages WHERE tenant_id = $1 AND environment = $2 AND event_id = $3",
            "DELETE FROM events WHERE tenant_id = $1 AND environment = $2 AND id = $3",
        ] {
            x.execute(&SqlBuilder::of(delete, key.clone())).await?;
        }
        purged += 1;
    }
    Ok(purged)
}

/// Ends up to `batch` waiting messages (`scheduled` or `held`, no live
/// lease) whose event's time-to-live has passed by `now`: `expired` with
/// reason `ttl_expired`, oldest expiry first (an index holds only the
/// waiting messages of events with a TTL). Returns how many: run it as one
/// short transaction, again until it returns less than `batch`.
pub async fn expire_due<X: Exec>(x: &mut X, now: Timestamp, batch: u32) -> Result<u64> {
    // The terminal state and reason are relay-core's (`transition::apply`
    // of `ttl_expired` to a waiting message).
    let set = format!(
        "UPDATE messages SET state = '{expired}', terminal_reason = '{reason}', next_attempt_at = NULL, \
         lease_owner = NULL, lease_until = NULL, lease_version = lease_version + 1, updated_at = $1",
        expired = MessageState::Expired.as_str(),
        reason = relay_core::transition::REASON_EXPIRED,
    );
    let due = format!(
        "SELECT id FROM messages WHERE expires_at <= $1 AND expires_at IS NOT NULL \
         AND state IN {WAITING_STATES_SQL} AND (lease_until IS NULL OR lease_until < $1) \
         ORDER BY expires_at LIMIT $2"
    );
    let returning = "RETURNING endpoint_id, ordering_key, state";
    let rows = if x.dialect().backend == "postgres" {
        // The ordered messages' keys are locked before their rows
        // (`crate::ordering`), so the candidates are read without a lock.
        let ids: Vec<String> = x
            .fetch(&SqlBuilder::of(&due, [now.into(), i64::from(batch).into()]))
            .await?
            .iter()
            .map(|r| r.text("id"))
            .collect::<Result<_>>()?;
        if ids.is_empty() {
            return Ok(0);
        }
        crate::ordering::lock_keys_of(x, &ids).await?;
        let mut q = SqlBuilder::new(&set);
        let at = q.param(now.into());
        q.push(&format!(
            " WHERE state IN {WAITING_STATES_SQL} AND (lease_until IS NULL OR lease_until < {at}) \
             AND id IN ("
        ));
        q.bind_list(ids.into_iter().map(Bind::Text))
            .push(") ")
            .push(returning);
        x.fetch(&q).await?
    } else {
        let sql =
            format!("{set} WHERE id IN ({due}) AND state IN {WAITING_STATES_SQL} {returning}");
        x.fetch(&SqlBuilder::of(&sql, [now.into(), i64::from(batch).into()]))
            .await?
    };
    crate::ordering::promote(x, &crate::ordering::ended_keys(&rows)?, now).await?;
    Ok(rows.len() as u64)
}

/// Deletes the latency histogram's hours that started before `cutoff`.
pub async fn purge_latency_before<X: Exec>(x: &mut X, cutoff: Timestamp) -> Result<u64> {
    x.execute(&SqlBuilder::of(
        "DELETE FROM endpoint_latency WHERE hour < $1",
        [cutoff.millis().div_euclid(HOUR_MILLIS).into()],
    ))
    .await
}
