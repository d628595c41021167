//! Recovery: restarting an endpoint's failed and unattempted messages
//! ([`recover`], a chunk at a time: [`recover_chunk`]) and creating
//! messages for the events it missed ([`replay`], [`replay_chunk`]). Both
//! are recovery traffic (priority 1), below live traffic, and both work in
//! bounded chunks, a transaction each ([`recover`] and [`replay`] run the
//! chunks one after the other, each as one `write` of the executor): a
//! large recover or replay never holds SQLite's single writer, or
//! PostgreSQL's row locks, for longer than one chunk at a time.

use relay_core::model::MessageState;
use relay_core::time::Timestamp;

use crate::exec::{Commit, Exec, scoped_row};
use crate::rows::{self, RowExt};
use crate::sql::{Bind, SqlBuilder};
use crate::{AuditEntry, Executor, ExecutorExt as _, Result, Scope, StoreError, audit};

const ENDPOINT: &str = "SELECT * FROM endpoints WHERE tenant_id = $1 AND environment = $2 AND id = $3 \
     AND deleted_at IS NULL";

/// Messages of an endpoint one recover transaction looks at (whatever
/// their state), at most and at least: the bound on the work of one chunk.
/// Within it the chunks of a recover are sized by [`next_recover_chunk`].
pub const RECOVER_CHUNK: u32 = 1024;
pub const RECOVER_CHUNK_MIN: u32 = 16;
/// The size of a recover's first chunk.
pub const RECOVER_CHUNK_FIRST: u32 = 64;

/// How long one chunk of a recover should take: well under what a
/// publish's own transaction and flush take, so another tenant's publish
/// that waits behind a chunk waits less than as long again.
pub const RECOVER_CHUNK_TARGET: std::time::Duration = std::time::Duration::from_micros(500);

/// The size of a recover's next chunk, from the last one's size and how
/// long its statements took: halved above twice the target, doubled below
/// half of it, within [`RECOVER_CHUNK_MIN`]..=[`RECOVER_CHUNK`]. (The
/// machine decides how many rows a millisecond is: a slow or busy one gets
/// small chunks, a fast one large.)
pub fn next_recover_chunk(limit: u32, took: std::time::Duration) -> u32 {
    let next = if took > RECOVER_CHUNK_TARGET * 2 {
        limit / 2
    } else if took < RECOVER_CHUNK_TARGET / 2 {
        limit.saturating_mul(2)
    } else {
        limit
    };
    next.clamp(RECOVER_CHUNK_MIN, RECOVER_CHUNK)
}

/// What a recover (or one chunk of it) did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Messages whose schedule restarted.
    pub requeued: u64,
    /// Messages it would have restarted but left as they were: a manual
    /// attempt (resend) held their lease, and at most one attempt runs for
    /// a message at a time. Recover again once it has ended.
    pub in_flight: u64,
}

/// One chunk of a recover ([`recover_chunk`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecoverChunk {
    pub done: Recovered,
    /// The last message id the chunk looked at, where the next one starts;
    /// `None` when no message of the endpoint is left after it.
    pub next: Option<String>,
    /// The last message id it looked at (`None`: none was left).
    pub last: Option<String>,
    /// How long its statements took.
    pub took: std::time::Duration,
}

/// The states a recover restarts: failed (terminal, not delivered, not
/// expired) and unattempted (held), as SQL.
fn recoverable_sql() -> String {
    let states: Vec<String> = relay_core::transition::RESTARTABLE
        .iter()
        .map(|s| format!("'{}'", s.as_str()))
        .chain(std::iter::once("'held'".to_string()))
        .collect();
    format!("({})", states.join(", "))
}

/// One chunk of a recover: of the endpoint's next `limit` (at most
/// [`RECOVER_CHUNK`]) messages by id after `after` (`""`: from the start),
/// requeues the failed
/// and unattempted ones created in `[since, until)`: their schedule
/// restarts at `now`, as recovery traffic. A message under a live lease (a
/// manual attempt on the wire) is left as it is and counted `in_flight`.
/// `audit` (the first chunk's) is written in the same transaction.
///
/// The chunks of one recover walk the endpoint's messages by id, each
/// looked at once: a message restarted by one chunk (even one that fails
/// again at once) is never restarted again by a later chunk of the same
/// recover. A recover interrupted between chunks keeps what its chunks
/// committed; run again, it restarts what is still failed or held.
#[allow(clippy::too_many_arguments)]
pub async fn recover_chunk<X: Exec>(
    x: &mut X,
    scope: &Scope,
    endpoint_id: &str,
    since: Timestamp,
    until: Timestamp,
    after: &str,
    limit: u32,
    now: Timestamp,
    audit: Option<&AuditEntry>,
) -> Result<RecoverChunk> {
    let started = std::time::Instant::now();
    let limit = limit.clamp(1, RECOVER_CHUNK);
    let check = format!("{ENDPOINT}{}", x.dialect().for_share);
    let Some(endpoint) = scoped_row(x, &check, scope, endpoint_id).await? else {
        return Err(StoreError::NotFound);
    };
    if endpoint.text("state")? != "active" {
        return Err(StoreError::Conflict("endpoint_not_active"));
    }
    let window = x
        .fetch(&SqlBuilder::numbered(
            "SELECT id FROM messages WHERE endpoint_id = $1 AND id > $2 ORDER BY id LIMIT $3",
            [
                Bind::Text(endpoint_id.into()),
                Bind::Text(after.into()),
                Bind::Int(i64::from(limit)),
            ],
        ))
        .await?;
    let mut done = Recovered::default();
    let last = window.last().map(|r| r.text("id")).transpose()?;
    if let Some(last) = &last {
        let range = format!(
            "WHERE endpoint_id = $1 AND id > $2 AND id <= $3 AND created_at >= $4 AND created_at < $5 \
             AND state IN {}",
            recoverable_sql()
        );
        let binds = || {
            [
                Bind::Text(endpoint_id.into()),
                Bind::Text(after.into()),
                Bind::Text(last.clone()),
                Bind::Int(since.millis()),
                Bind::Int(until.millis()),
                Bind::Int(now.millis()),
            ]
        };
        // The ordered messages it restarts from a terminal state re-enter
        // at the tail of their keys (`crate::ordering::requeue`); a held
        // one (the head of its key) keeps its place.
        let tail: Vec<String> = x
            .fetch(&SqlBuilder::numbered(
                &format!(
                    "SELECT id FROM messages {range} AND ordering_key IS NOT NULL \
                     AND state <> 'held' AND (lease_until IS NULL OR lease_until < $6)"
                ),
                binds(),
            ))
            .await?
            .iter()
            .map(|r| r.text("id"))
            .collect::<Result<_>>()?;
        done.requeued = x
            .execute(&SqlBuilder::numbered(
                &format!(
                    "UPDATE messages SET state = 'scheduled', attempts_used = 0, deferrals_used = 0, \
                     priority = 1, next_attempt_at = $6, terminal_reason = NULL, lease_owner = NULL, \
                     lease_until = NULL, lease_version = lease_version + 1, updated_at = $6 \
                     {range} AND (lease_until IS NULL OR lease_until < $6)"
                ),
                binds(),
            ))
            .await?;
        crate::ordering::requeue(x, &tail).await?;
        let busy = crate::exec::fetch_one(
            x,
            &SqlBuilder::numbered(
                &format!("SELECT COUNT(*) AS n FROM messages {range} AND lease_until >= $6"),
                binds(),
            ),
        )
        .await?
        .int("n")?;
        done.in_flight = busy.max(0) as u64;
    }
    audit::insert_opt(x, scope, audit).await?;
    if done.requeued > 0
        && let Some(notify) = x.dialect().wake_notify
    {
        x.execute(&SqlBuilder::new(notify)).await?;
    }
    let full = window.len() as u32 == limit;
    Ok(RecoverChunk {
        done,
        next: last.clone().filter(|_| full),
        last,
        took: started.elapsed(),
    })
}

/// Requeues an endpoint's failed and unattempted messages created in
/// `[since, until)`: their schedule restarts at `audit.at`. Returns how
/// many, and how many it left because a manual attempt held their lease.
/// In chunks of at most [`RECOVER_CHUNK`] messages (sized to take about
/// [`RECOVER_CHUNK_TARGET`] each), one `write` of `store` each
/// ([`recover_chunk`]; the first writes `audit`), with a pause twice as
/// long as each chunk took between them, so other tenants' writes take
/// turns with it. Refused (`Conflict("endpoint_not_active")`) unless the
/// endpoint is active; a state change between chunks stops it there
/// (`Conflict("endpoint_state_changed")`), what it restarted staying
/// restarted.
pub async fn recover(
    store: &dyn Executor,
    scope: &Scope,
    endpoint_id: &str,
    since: Timestamp,
    until: Timestamp,
    audit: &AuditEntry,
) -> Result<Recovered> {
    let mut total = Recovered::default();
    let mut after = String::new();
    let mut limit = RECOVER_CHUNK_FIRST;
    let mut first = Some(audit.clone());
    // The first chunk (with the audit entry) and the last are durable;
    // those between are `Commit::Lease`, made durable by the last (the
    // log is written in order): a publish that shares the writer with
    // them waits for one flush, its own, not for theirs as well.
    let mut durable = true;
    loop {
        let (scope, endpoint_id) = (scope.clone(), endpoint_id.to_string());
        let (audit, now, from) = (first.take(), audit.at, after.clone());
        let started = audit.is_some();
        let commit = if durable {
            Commit::Durable
        } else {
            Commit::Lease
        };
        let sent = std::time::Instant::now();
        let chunk = store
            .write(commit, move |mut x| {
                Box::pin(async move {
                    recover_chunk(
                        &mut x,
                        &scope,
                        &endpoint_id,
                        since,
                        until,
                        &from,
                        limit,
                        now,
                        audit.as_ref(),
                    )
                    .await
                })
            })
            .await
            .map_err(|e| match e {
                // Paused or disabled since the first chunk.
                StoreError::Conflict("endpoint_not_active") if !started => {
                    StoreError::Conflict("endpoint_state_changed")
                }
                other => other,
            })?;
        total.requeued += chunk.done.requeued;
        total.in_flight += chunk.done.in_flight;
        limit = next_recover_chunk(limit, chunk.took);
        match (chunk.next, durable) {
            (Some(next), _) => {
                after = next;
                durable = false;
            }
            (None, true) => return Ok(total),
            // The end, not yet durable: one more chunk, durable, after the
            // last message looked at (it finds nothing, or what came
            // since).
            (None, false) => {
                if let Some(last) = chunk.last {
                    after = last;
                }
                durable = true;
            }
        }
        // At most about a third of the writer's time (and of a core):
        // twice as long as the chunk took, for the others' transactions.
        tokio::time::sleep(sent.elapsed() * 2).await;
    }
}

/// Events one replay transaction creates messages for, at most.
pub const REPLAY_CHUNK: u32 = 128;

/// Where the next chunk of a replay starts: after this event (its
/// creation time and id, the order a replay walks events in).
pub type ReplayCursor = (Timestamp, String);

/// One chunk of a replay: creates messages for this endpoint for the next
/// [`REPLAY_CHUNK`] events after `after` (by creation time, then id)
/// created in `[since, until)` that it subscribes to (narrowed to
/// `event_types` when given), keeping each event's id; events it already
/// has a message for are skipped (`(endpoint_id, event_id)` is unique).
/// `audit` (the first chunk's) is written in the same transaction. Returns
/// how many messages it created, and where the next chunk starts (`None`:
/// no event is left). A replay interrupted between chunks is resumed by
/// replaying again: what its chunks created is skipped.
#[allow(clippy::too_many_arguments)]
pub async fn replay_chunk<X: Exec>(
    x: &mut X,
    scope: &Scope,
    endpoint_id: &str,
    since: Timestamp,
    until: Timestamp,
    event_types: Option<&[String]>,
    after: Option<&ReplayCursor>,
    now: Timestamp,
    audit: Option<&AuditEntry>,
) -> Result<(u64, Option<ReplayCursor>)> {
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
    let mut q = SqlBuilder::new(
        "SELECT e.id, e.event_type, e.expires_at, e.created_at, e.consumer_id, \
            e.subject, e.ordering_key",
    );
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
        .push(" AND m.event_id = e.id)")
        // A workflow step's event goes to its step's endpoint alone
        // (`crate::workflow_steps`): replay never gives it to another.
        .push(
            " AND NOT EXISTS (SELECT 1 FROM workflow_steps w WHERE w.tenant_id = e.tenant_id \
             AND w.environment = e.environment AND w.event_id = e.id)",
        );
    crate::audience::event_conditions(&mut q, &endpoint, kind, event_types);
    if let Some((at, id)) = after {
        q.push(" AND (e.created_at > ")
            .bind((*at).into())
            .push(" OR (e.created_at = ")
            .bind((*at).into())
            .push(" AND e.id > ")
            .bind(id.into())
            .push("))");
    }
    q.push(" ORDER BY e.created_at, e.id LIMIT ")
        .bind(Bind::Int(i64::from(REPLAY_CHUNK)));
    let events = x.fetch(&q).await?;
    let initial = endpoint.state.initial_message_state();
    let mut created = 0u64;
    for e in &events {
        if !crate::audience::allowed_event(e, &endpoint, kind, event_types)? {
            continue;
        }
        // An ordered endpoint's replayed messages join their keys' lines at
        // the tail, in the order the replay walks the events.
        let (event_key, subject) = (e.opt_text("ordering_key")?, e.opt_text("subject")?);
        let key =
            relay_core::ordering::key(endpoint.ordering, event_key.as_deref(), subject.as_deref());
        let (state, pos) = match key {
            Some(key) => {
                let placed = crate::ordering::place(
                    x,
                    &[crate::ordering::Entry {
                        endpoint_id,
                        key,
                        initial,
                    }],
                )
                .await?;
                let (pos, state) = placed.first().copied().unwrap_or((0, initial));
                (state, Some(pos))
            }
            None => (initial, None),
        };
        let next = (state == MessageState::Scheduled).then_some(now.millis());
        created += x
            .execute(&SqlBuilder::of(
                "INSERT INTO messages (id, tenant_id, environment, event_id, endpoint_id, event_type, state, \
                 next_attempt_at, priority, created_at, updated_at, expires_at, endpoint_version, \
                 ordering_key, ordering_pos) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $9, $10, $11, $12, $13) \
                 ON CONFLICT (endpoint_id, event_id) DO NOTHING",
                [
                    crate::new_id(relay_core::id::IdKind::Message, now).into(),
                    scope.tenant_id.as_str().into(),
                    env.into(),
                    e.text("id")?.into(),
                    endpoint_id.into(),
                    e.text("event_type")?.into(),
                    state.as_str().into(),
                    next.into(),
                    now.into(),
                    e.opt_ts("expires_at")?.into(),
                    endpoint.version.into(),
                    key.into(),
                    pos.into(),
                ],
            ))
            .await?;
    }
    audit::insert_opt(x, scope, audit).await?;
    if created > 0
        && let Some(notify) = x.dialect().wake_notify
    {
        x.execute(&SqlBuilder::new(notify)).await?;
    }
    let next = match events.last() {
        Some(e) if events.len() as u32 == REPLAY_CHUNK => {
            Some((e.ts("created_at")?, e.text("id")?))
        }
        _ => None,
    };
    Ok((created, next))
}

/// Creates messages for this endpoint for the events created in
/// `[since, until)` that it subscribes to (narrowed to `event_types` when
/// given), keeping each event's id; events it already has a message for
/// are skipped (`(endpoint_id, event_id)` is unique). Returns how many. In
/// chunks of [`REPLAY_CHUNK`] events, one durable `write` of `store` each
/// ([`replay_chunk`]; the first writes `audit`).
pub async fn replay(
    store: &dyn Executor,
    scope: &Scope,
    endpoint_id: &str,
    since: Timestamp,
    until: Timestamp,
    event_types: Option<&[String]>,
    audit: &AuditEntry,
) -> Result<u64> {
    let mut created = 0;
    let mut after: Option<ReplayCursor> = None;
    let mut first = Some(audit.clone());
    let event_types = event_types.map(<[String]>::to_vec);
    loop {
        let (scope, endpoint_id) = (scope.clone(), endpoint_id.to_string());
        let (audit, now, from) = (first.take(), audit.at, after.take());
        let event_types = event_types.clone();
        let (n, next) = store
            .write(Commit::Durable, move |mut x| {
                Box::pin(async move {
                    replay_chunk(
                        &mut x,
                        &scope,
                        &endpoint_id,
                        since,
                        until,
                        event_types.as_deref(),
                        from.as_ref(),
                        now,
                        audit.as_ref(),
                    )
                    .await
                })
            })
            .await?;
        created += n;
        match next {
            Some(next) => after = Some(next),
            None => return Ok(created),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_recovers_chunks_follow_how_long_the_last_one_took() {
        let ms = Duration::from_millis;
        assert_eq!(next_recover_chunk(64, ms(5)), 32, "slow: halved");
        assert_eq!(next_recover_chunk(64, Duration::ZERO), 128, "fast: doubled");
        assert_eq!(
            next_recover_chunk(64, RECOVER_CHUNK_TARGET),
            64,
            "on target: kept"
        );
        assert_eq!(
            next_recover_chunk(RECOVER_CHUNK_MIN, ms(100)),
            RECOVER_CHUNK_MIN
        );
        assert_eq!(
            next_recover_chunk(RECOVER_CHUNK, Duration::ZERO),
            RECOVER_CHUNK
        );
    }
}
