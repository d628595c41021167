//! The completion batch: the end of each leased attempt, applied only
//! while its lease holds, with its attempt record, the endpoint's health
//! and latency, and what follows for the endpoint (a `410`, the failure
//! clock).

use std::collections::{BTreeMap, HashSet};

use relay_core::model::MessageState;
use relay_core::time::Timestamp;

use crate::exec::Exec;
use crate::health::{insert_warning, observe_health};
use crate::operational::emit_operational;
use crate::rows::RowExt;
use crate::sql::{Bind, COMPLETION_CHUNK, HOUR_MILLIS, SqlBuilder, applied_and};
use crate::{Completion, Result, StoreError};

/// Applies a batch of completions, each only while its lease holds, in the
/// caller's transaction; returns, per completion, whether its lease still
/// held (a late completion changes nothing but its attempt record), and
/// which were skipped because their message is gone (see
/// [`Completed`](crate::Completed)). Every message's update is one statement per
/// chunk, every attempt record one insert per chunk; then the per-message
/// consequences (disabling, exhaustion events, the failure clock, warnings)
/// and the latency histogram. A completion whose message is gone is skipped
/// (its attempt record could not reference it): one such row must not fail,
/// and so stall and redeliver, the whole batch.
pub async fn complete<X: Exec>(x: &mut X, batch: &[Completion]) -> Result<crate::Completed> {
    let mut applied = Vec::with_capacity(batch.len());
    // Endpoints of this batch whose failure clock is clear (no
    // endpoint_health row), read once: their successes need no
    // per-completion read.
    let mut clear = HashSet::new();
    let mut ids: Vec<&str> = batch
        .iter()
        .filter_map(|c| c.attempt.as_ref().map(|a| a.endpoint_id.as_str()))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    if !ids.is_empty() {
        let mut q =
            SqlBuilder::new("SELECT endpoint_id FROM endpoint_health WHERE endpoint_id IN (");
        q.bind_list_padded(ids.iter().map(|id| Bind::Text((*id).to_string())))
            .push(")");
        let mut rows_found = HashSet::new();
        for r in x.fetch(&q).await? {
            rows_found.insert(r.text("endpoint_id")?);
        }
        clear.extend(
            ids.iter()
                .filter(|id| !rows_found.contains(**id))
                .map(|id| id.to_string()),
        );
    }
    // The endpoints' states decide where a retry lands (held while paused
    // or disabled): on PostgreSQL a pause committing meanwhile waits for
    // this transaction, or this one for it (SQLite has one writer).
    if !ids.is_empty() && !x.dialect().for_share.is_empty() {
        let mut q = SqlBuilder::new("SELECT id FROM endpoints WHERE id IN (");
        q.bind_list_padded(ids.iter().map(|id| Bind::Text((*id).to_string())))
            .push(") ORDER BY id")
            .push(x.dialect().for_share);
        x.fetch(&q).await?;
    }
    // Ordered messages: their keys' rows first (PostgreSQL), so the
    // promotion below decides each key's head after every publish of it.
    let ordered: Vec<String> = batch
        .iter()
        .filter(|c| c.ordered)
        .map(|c| c.message_id.clone())
        .collect();
    crate::ordering::lock_keys_of(x, &ordered).await?;
    let mut ended = std::collections::BTreeSet::new();
    let mut updated = HashSet::new();
    for chunk in batch.chunks(COMPLETION_CHUNK) {
        let mut q = SqlBuilder::new(
            "WITH v (id, state, attempts_used, deferrals_used, next_attempt_at, last_error_code, \
             terminal_reason, updated_at, lease_owner, lease_version, manual, \
             event_type_version) AS (",
        );
        let rows = chunk
            .iter()
            .map(|c| {
                let p = &c.progress;
                vec![
                    Bind::Text(c.message_id.clone()),
                    Bind::Text(p.state.as_str().into()),
                    Bind::Int(i64::from(p.attempts_used)),
                    Bind::Int(i64::from(p.deferrals_used)),
                    Bind::OptInt(p.next_attempt_at.map(Timestamp::millis)),
                    Bind::OptText(p.last_error_code.clone()),
                    Bind::OptText(p.terminal_reason.clone()),
                    Bind::Int(c.now.millis()),
                    Bind::Text(c.lease_owner.clone()),
                    Bind::Int(c.lease_version),
                    Bind::Int(i64::from(c.manual)),
                    Bind::OptInt(c.event_type_version),
                ]
            })
            .collect();
        // The padding's NULL ids match no message.
        // A retry due again is held while the endpoint is paused or
        // disabled (`relay_core::lifecycle::settle`). A failed manual
        // attempt (manual, and the message left waiting) changes nothing
        // but the lease: the message waits as the endpoint's state at its
        // end says (a pause or resume may have moved it meanwhile, under
        // the lease), due when it was, or at once if it was held from the
        // start and the endpoint is active now.
        let waiting_manual = "v.manual = 1 AND v.state IN ('scheduled', 'held')";
        // A failed manual attempt at a blocked message leaves it where it
        // is now: promoted meanwhile, it stays promoted.
        let blocked_manual = "v.manual = 1 AND v.state = 'blocked'";
        q.rows(rows, COMPLETION_CHUNK, x.dialect().arrays)
            .push(&format!(
                ") UPDATE messages SET state = CASE WHEN {blocked_manual} THEN messages.state \
             WHEN v.state = 'scheduled' OR ({waiting_manual}) \
             THEN {settled} ELSE v.state END, attempts_used = v.attempts_used, \
             deferrals_used = v.deferrals_used, next_attempt_at = CASE \
             WHEN {blocked_manual} THEN messages.next_attempt_at WHEN {waiting_manual} \
             THEN CASE WHEN {settled} = 'scheduled' \
             THEN COALESCE(messages.next_attempt_at, v.updated_at) ELSE messages.next_attempt_at END \
             ELSE v.next_attempt_at END, \
             last_error_code = v.last_error_code, terminal_reason = v.terminal_reason, \
             lease_owner = NULL, lease_until = NULL, updated_at = v.updated_at, \
             event_type_version = COALESCE(messages.event_type_version, v.event_type_version) FROM v \
             WHERE messages.id = v.id AND messages.lease_owner = v.lease_owner \
             AND messages.lease_version = v.lease_version \
             AND (messages.state = 'in_flight' OR v.manual = 1) \
             RETURNING messages.id, messages.endpoint_id, messages.ordering_key, messages.state",
                settled = crate::lifecycle::SETTLED_STATE_SQL
            ));
        let rows = x.fetch(&q).await?;
        for r in &rows {
            updated.insert(r.text("id")?);
        }
        if !ordered.is_empty() {
            ended.extend(crate::ordering::ended_keys(&rows)?);
        }
    }
    let promoted = match batch.iter().map(|c| c.now).max() {
        Some(now) => crate::ordering::promote(x, &ended, now).await?,
        None => 0,
    };
    let gone = gone_messages(x, batch, &updated).await?;
    if !gone.is_empty() {
        tracing::warn!(
            skipped = gone.len(),
            first = %gone[0],
            "completions whose message is gone (purged) were skipped; the rest of the batch is written"
        );
    }
    let attempts: Vec<(&Completion, &relay_core::model::Attempt)> = batch
        .iter()
        .filter(|c| !gone.contains(&c.message_id))
        .filter_map(|c| c.attempt.as_ref().map(|a| (c, a)))
        .collect();
    // Each attempt's number follows the message's earlier attempts: one
    // correlated count for the statement (one per row made PostgreSQL plan
    // a subquery per row).
    for chunk in attempts.chunks(COMPLETION_CHUNK) {
        let mut q = SqlBuilder::new(
            "WITH v (id, message_id, tenant_id, environment, endpoint_id, trigger, started_at, \
             duration_ms, destination_ip, error_kind, error_code, body_sha256, signature, \
             detail, outcome) AS (",
        );
        let rows = chunk
            .iter()
            .map(|(c, a)| {
                vec![
                    Bind::Text(a.id.clone()),
                    Bind::Text(c.message_id.clone()),
                    Bind::Text(c.tenant_id.clone()),
                    Bind::Text(c.environment.as_str().into()),
                    Bind::Text(a.endpoint_id.clone()),
                    Bind::Text(a.trigger.as_str().into()),
                    Bind::Int(a.started_at.millis()),
                    Bind::Int(a.duration_ms),
                    Bind::OptText(a.destination_ip.clone()),
                    Bind::OptText(a.error_kind.as_ref().map(|k| k.as_str().to_owned())),
                    Bind::OptText(a.error_code.map(|c| c.to_string())),
                    Bind::Text(a.body_sha256.clone()),
                    Bind::Text(a.signature.clone()),
                    Bind::Text(a.detail.to_string()),
                    Bind::Text(a.outcome.as_str().into()),
                ]
            })
            .collect();
        q.rows(rows, COMPLETION_CHUNK, x.dialect().arrays).push(
            ") INSERT INTO attempts (id, message_id, tenant_id, environment, endpoint_id, number, \
             trigger, started_at, duration_ms, destination_ip, error_kind, error_code, body_sha256, \
             signature, detail, outcome) \
             SELECT v.id, v.message_id, v.tenant_id, v.environment, v.endpoint_id, \
             (SELECT COUNT(*) + 1 FROM attempts p WHERE p.message_id = v.message_id), \
             v.trigger, v.started_at, v.duration_ms, v.destination_ip, v.error_kind, v.error_code, \
             v.body_sha256, v.signature, v.detail, v.outcome FROM v \
             WHERE v.id IS NOT NULL",
        );
        x.execute(&q).await?;
    }
    for c in batch {
        let p = &c.progress;
        let done = updated.contains(&c.message_id);
        if done
            && c.disable_endpoint
            && let Some(a) = &c.attempt
        {
            crate::lifecycle::apply_automatic(
                x,
                &a.endpoint_id,
                relay_core::lifecycle::EndpointAction::Gone,
                c.now,
            )
            .await?;
        }
        if done && p.state == MessageState::Exhausted {
            let found = x
                .fetch(&SqlBuilder::numbered(
                    "SELECT endpoint_id, event_id, event_type, last_error_code FROM messages WHERE id = $1",
                    [Bind::Text(c.message_id.clone())],
                ))
                .await?;
            let m = found.first().ok_or(StoreError::NotFound)?;
            let event_type = m.text("event_type")?;
            // Bounded cascade: an operational message that exhausts produces
            // no further operational event.
            if !relay_core::operational::is_operational(&event_type) {
                let endpoint_id = m.text("endpoint_id")?;
                let data = serde_json::json!({
                    "endpoint_id": endpoint_id,
                    "message_id": c.message_id,
                    "event_id": m.text("event_id")?,
                    "event_type": event_type,
                    "last_error_code": m.opt_text("last_error_code")?,
                });
                emit_operational(
                    x,
                    &endpoint_id,
                    relay_core::operational::ATTEMPT_EXHAUSTED,
                    data,
                    c.now,
                )
                .await?;
            }
        }
        if c.health != relay_core::circuit::Signal::Neutral
            && let Some(a) = &c.attempt
        {
            // A success on an endpoint whose clock is clear changes nothing.
            let skip = c.health == relay_core::circuit::Signal::Success
                && clear.contains(a.endpoint_id.as_str());
            if !skip {
                if observe_health(x, &a.endpoint_id, c.health, c.now).await? {
                    clear.insert(a.endpoint_id.clone());
                } else {
                    clear.remove(a.endpoint_id.as_str());
                }
            }
        }
        if let Some(w) = applied_and(done, &c.warning) {
            insert_warning(x, &w.endpoint_id, &w.kind, &w.detail, w.at).await?;
        }
        applied.push(done);
    }
    // The health view's latency histogram, one row per endpoint, hour and
    // bucket touched by this batch.
    let mut latency: BTreeMap<(&str, i64, i64), (i64, i64)> = BTreeMap::new();
    for a in batch.iter().filter_map(|c| c.attempt.as_ref()) {
        let key = (
            a.endpoint_id.as_str(),
            a.started_at.millis().div_euclid(HOUR_MILLIS),
            relay_core::histogram::bucket_of(a.duration_ms) as i64,
        );
        let entry = latency.entry(key).or_insert((0, 0));
        entry.0 += 1;
        entry.1 = entry.1.max(a.duration_ms);
    }
    // One upsert per chunk of rows (each key once: they are aggregated
    // above, so no row is touched twice by one statement).
    let latency: Vec<_> = latency.into_iter().collect();
    for chunk in latency.chunks(COMPLETION_CHUNK) {
        let mut q = SqlBuilder::new(
            "INSERT INTO endpoint_latency (endpoint_id, hour, bucket, count, max_ms) VALUES ",
        );
        for (i, ((endpoint_id, hour, bucket), (count, max_ms))) in chunk.iter().enumerate() {
            q.push(if i == 0 { "(" } else { ", (" })
                .bind_list([
                    Bind::Text((*endpoint_id).into()),
                    Bind::Int(*hour),
                    Bind::Int(*bucket),
                    Bind::Int(*count),
                    Bind::Int(*max_ms),
                ])
                .push(")");
        }
        q.push(
            " ON CONFLICT (endpoint_id, hour, bucket) DO UPDATE SET \
             count = endpoint_latency.count + excluded.count, \
             max_ms = CASE WHEN excluded.max_ms > endpoint_latency.max_ms \
             THEN excluded.max_ms ELSE endpoint_latency.max_ms END",
        );
        x.execute(&q).await?;
    }
    Ok(crate::Completed {
        applied,
        gone,
        promoted,
    })
}

/// The messages of `batch` that were not updated and no longer exist. Only
/// the completions that were not applied are looked up, so a batch whose
/// leases all held costs no read.
async fn gone_messages<X: Exec>(
    x: &mut X,
    batch: &[Completion],
    updated: &HashSet<String>,
) -> Result<Vec<String>> {
    let mut missing: Vec<&str> = batch
        .iter()
        .map(|c| c.message_id.as_str())
        .filter(|id| !updated.contains(*id))
        .collect();
    missing.sort_unstable();
    missing.dedup();
    let mut gone = Vec::new();
    for chunk in missing.chunks(COMPLETION_CHUNK) {
        let mut q = SqlBuilder::new("SELECT id FROM messages WHERE id IN (");
        q.bind_list_padded(chunk.iter().map(|id| Bind::Text((*id).to_string())))
            .push(")");
        let mut present = HashSet::new();
        for r in x.fetch(&q).await? {
            present.insert(r.text("id")?);
        }
        gone.extend(
            chunk
                .iter()
                .filter(|id| !present.contains(**id))
                .map(|id| id.to_string()),
        );
    }
    Ok(gone)
}
