//! The claim: leasing due messages to a dispatcher (live traffic first,
//! then recovery traffic shared fairly across tenants), and reading what
//! each leased message needs for its attempt.

use std::collections::HashMap;

use relay_core::time::Timestamp;

use crate::exec::Exec;
use crate::lifecycle::SETTLED_STATE_SQL;
use crate::live_claim::Room;
use crate::publish::events_by_key;
use crate::rows::{self, RowExt};
use crate::sql::{Bind, SqlBuilder};
use crate::{ClaimBatch, ClaimRequest, Claimed, Result, StoreError};

/// The claimed messages `ids` with their events, endpoints and sources, read
/// in the transaction that leased them.
pub async fn load_claimed<X: Exec>(x: &mut X, ids: &[String]) -> Result<Vec<Claimed>> {
    let in_list = |q: &mut SqlBuilder, values: &mut dyn Iterator<Item = String>| {
        q.push(" IN (")
            .bind_list_padded(values.map(Bind::Text))
            .push(")");
    };
    let mut q = SqlBuilder::new("SELECT * FROM messages WHERE id");
    in_list(&mut q, &mut ids.iter().cloned());
    q.push(" ORDER BY next_attempt_at, id");
    let message_rows = x.fetch(&q).await?;
    let mut claimed_rows = Vec::with_capacity(message_rows.len());
    for r in &message_rows {
        let message = rows::message(r)?;
        let lease_version = r.int("lease_version")?;
        claimed_rows.push((
            message,
            r.text("tenant_id")?,
            lease_version,
            r.int("priority")? != 0,
            r.int("answer_withheld")? != 0,
        ));
    }
    let mut endpoint_ids: Vec<String> = claimed_rows
        .iter()
        .map(|c| c.0.endpoint_id.clone())
        .collect();
    endpoint_ids.sort();
    endpoint_ids.dedup();
    let mut q = SqlBuilder::new("SELECT * FROM endpoints WHERE id");
    in_list(&mut q, &mut endpoint_ids.into_iter());
    let mut endpoints = HashMap::new();
    for r in x.fetch(&q).await? {
        let e = rows::endpoint(&r)?;
        endpoints.insert(e.id.clone(), e);
    }
    let mut consumer_ids: Vec<String> = endpoints.values().map(|e| e.consumer_id.clone()).collect();
    consumer_ids.sort();
    consumer_ids.dedup();
    let mut q = SqlBuilder::new("SELECT id, source FROM consumers WHERE id");
    in_list(&mut q, &mut consumer_ids.into_iter());
    let mut sources = HashMap::new();
    for r in x.fetch(&q).await? {
        sources.insert(r.text("id")?, r.text("source")?);
    }
    let keys: Vec<(String, &'static str, String)> = claimed_rows
        .iter()
        .map(|c| (c.1.clone(), c.0.environment.as_str(), c.0.event_id.clone()))
        .collect();
    let events = events_by_key(x, &keys).await?;
    let mut out = Vec::with_capacity(claimed_rows.len());
    for (message, tenant_id, lease_version, recovery, withhold_answer) in claimed_rows {
        let event = events
            .get(&(
                tenant_id.clone(),
                message.environment.as_str(),
                message.event_id.clone(),
            ))
            .cloned()
            .ok_or_else(|| StoreError::Corrupt(format!("event {} missing", message.event_id)))?;
        let endpoint = endpoints
            .get(&message.endpoint_id)
            .cloned()
            .ok_or_else(|| {
                StoreError::Corrupt(format!("endpoint {} missing", message.endpoint_id))
            })?;
        let source = sources.get(&endpoint.consumer_id).cloned().ok_or_else(|| {
            StoreError::Corrupt(format!("consumer {} missing", endpoint.consumer_id))
        })?;
        out.push(Claimed {
            message,
            tenant_id,
            lease_version,
            event,
            endpoint,
            source,
            recovery,
            withhold_answer,
        });
    }
    Ok(out)
}

/// The claim: leases due `scheduled` messages to `owner` until
/// `lease_until`, in the caller's transaction, and of each endpoint at most
/// its room: the number `room` gives for it (0 skips it: its lane is full),
/// else its `max_concurrency`. Concurrent claimers never get the same
/// message (PostgreSQL: `FOR UPDATE SKIP LOCKED`; SQLite: one writer). The
/// dispatcher runs it alone in a write committed as
/// [`Commit::Lease`](crate::Commit::Lease): a claim lost in a power cut is
/// a lease that expires.
///
/// Live traffic (priority 0) first: up to `limit` of it, oldest due first.
/// The room left, at most `recovery_limit`, goes to recovery traffic
/// (priority 1) shared equally among the tenants that have some due, each
/// tenant's oldest due first: a tenant with a huge backlog gets no more of a
/// claim than a tenant with a small one. A tenant with less than its share
/// leaves the rest to the others; the odd slots go round the tenants in
/// turn (`recovery_after`).
///
/// Then it reads what the leased messages need for their attempts. On
/// SQLite the reads cost no more inside the writer's transaction than after
/// it, and save the read pool's thread hops.
pub async fn claim<X: Exec>(x: &mut X, req: &ClaimRequest<'_>) -> Result<ClaimBatch> {
    let mut lanes: HashMap<String, Room> = req
        .room
        .iter()
        .map(|(e, n)| (e.clone(), Room::Left(*n)))
        .collect();
    let live = claim_live(x, req, &lanes, req.limit).await?;
    narrow_room(&mut lanes, &live);
    let mut ids: Vec<(String, String, i64)> = live;
    let mut room = req
        .limit
        .saturating_sub(ids.len() as u32)
        .min(req.recovery_limit);
    let mut recovery_first = None;
    if room > 0 {
        let mut open = recovery_tenants(x, req.now).await?;
        // Start after the tenant served first last time.
        if let Some(after) = req.recovery_after {
            let start = open.partition_point(|t| t.as_str() <= after);
            open.rotate_left(start);
        }
        // Water-filling: each pass offers every open tenant an equal share
        // of the room left (the odd slots to the first ones); a tenant that
        // takes less than offered has nothing more due and closes. Each pass
        // either fills the room or closes a tenant.
        while room > 0 && !open.is_empty() {
            let mut still_open = Vec::with_capacity(open.len());
            let n = open.len() as u32;
            for (i, tenant) in open.into_iter().enumerate() {
                let share = room.div_ceil(n - i as u32);
                if share == 0 {
                    still_open.push(tenant);
                    continue;
                }
                let got = claim_recovery(x, req, &lanes, &tenant, share).await?;
                narrow_room(&mut lanes, &got);
                room -= got.len() as u32;
                if !got.is_empty() && recovery_first.is_none() {
                    recovery_first = Some(tenant.clone());
                }
                if got.len() as u32 == share {
                    still_open.push(tenant);
                }
                ids.extend(got);
            }
            open = still_open;
        }
    }
    let next_due = next_due(x).await?;
    if ids.is_empty() {
        return Ok(ClaimBatch {
            next_due,
            ..ClaimBatch::default()
        });
    }
    let ids: Vec<String> = ids.into_iter().map(|(id, _, _)| id).collect();
    let claimed = load_claimed(x, &ids).await?;
    Ok(ClaimBatch {
        claimed,
        recovery_first,
        next_due,
    })
}

/// When the earliest scheduled message is due. One MIN per priority, each
/// the first entry of `messages_due` under its prefix: a MIN over both
/// would read every entry.
pub async fn next_due<X: Exec>(x: &mut X) -> Result<Option<Timestamp>> {
    let rows = x
        .fetch(&SqlBuilder::new(
            "SELECT MIN(d) AS due FROM ( \
               SELECT MIN(next_attempt_at) AS d FROM messages WHERE state = 'scheduled' AND priority = 0 \
               UNION ALL \
               SELECT MIN(next_attempt_at) AS d FROM messages WHERE state = 'scheduled' AND priority = 1) AS p",
        ))
        .await?;
    Ok(match rows.first() {
        Some(r) => r.opt_ts("due")?,
        None => None,
    })
}

/// How many messages wait for delivery (`scheduled` or `in_flight`; `held`
/// ones wait for their endpoint, not for Relay) and when the oldest of them
/// was made (`/metrics`). One count per state, each over its partial index.
pub async fn backlog_summary<X: Exec>(x: &mut X) -> Result<(u64, Option<Timestamp>)> {
    let rows = x
        .fetch(&SqlBuilder::new(
            "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM messages WHERE state = 'scheduled' \
             UNION ALL \
             SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM messages WHERE state = 'in_flight'",
        ))
        .await?;
    let mut n = 0u64;
    let mut oldest: Option<Timestamp> = None;
    for r in &rows {
        n += u64::try_from(r.int("n")?).unwrap_or(0);
        if let Some(t) = r.opt_ts("oldest")? {
            oldest = Some(oldest.map_or(t, |o| o.min(t)));
        }
    }
    Ok((n, oldest))
}

/// Leases up to `limit` due live messages, oldest due first, of each
/// endpoint at most its `room`, looking past the backlogs of endpoints that
/// are full or capped (see [`crate::live_claim::live_claim`]). Returns the ids
/// with their endpoints and lease versions.
async fn claim_live<X: Exec>(
    x: &mut X,
    req: &ClaimRequest<'_>,
    room: &HashMap<String, Room>,
    limit: u32,
) -> Result<Vec<(String, String, i64)>> {
    let q = crate::live_claim::live_claim(req, room, limit, &x.dialect().live_claim);
    leased(x.fetch(&q).await?)
}

/// The (id, endpoint, lease version) a claim statement returned.
fn leased<R: RowExt>(rows: Vec<R>) -> Result<Vec<(String, String, i64)>> {
    rows.iter()
        .map(|r| {
            Ok((
                r.text("id")?,
                r.text("endpoint_id")?,
                r.int("lease_version")?,
            ))
        })
        .collect()
}

/// Leases up to `limit` of one tenant's due recovery messages, oldest due
/// first, of each endpoint at most its `room` (see [`claim`]). Returns
/// the ids with their endpoints and lease versions.
async fn claim_recovery<X: Exec>(
    x: &mut X,
    req: &ClaimRequest<'_>,
    room: &HashMap<String, Room>,
    tenant: &str,
    limit: u32,
) -> Result<Vec<(String, String, i64)>> {
    let now = req.now.millis();
    let mut q = crate::live_claim::lease_update(req.owner, req.lease_until);
    q.bind(Bind::Int(now))
        // Candidates: the next due messages in order (a bounded index scan),
        // then at most each endpoint's room of them.
        .push(
            " WHERE id IN (SELECT r.id FROM (SELECT c.id, c.next_attempt_at, \
             ROW_NUMBER() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.id) AS rn, ",
        );
    let caps = crate::live_claim::Caps::bind(&mut q, room);
    q.push(&caps.of("c.endpoint_id"));
    q.push(
        " AS cap FROM (SELECT id, endpoint_id, next_attempt_at FROM messages WHERE state = 'scheduled'",
    );
    // A literal priority, so the partial index `messages_recovery_due`
    // (per tenant) applies.
    q.push(" AND priority = 1 AND tenant_id = ")
        .bind(Bind::Text(tenant.into()));
    q.push(" AND next_attempt_at <= ")
        .bind(Bind::Int(now))
        .push(" AND (lease_until IS NULL OR lease_until < ")
        .bind(Bind::Int(now))
        .push(")");
    let full = crate::live_claim::full_lanes(room);
    if !full.is_empty() {
        q.push(" AND endpoint_id NOT IN (")
            .bind_list(full.into_iter().map(|e| Bind::Text(e.clone())))
            .push(")");
    }
    // Limits as `CAST($n AS BIGINT)`: SQLite re-prepares a statement whose
    // `LIMIT $n` is rebound, every time.
    q.push(" ORDER BY next_attempt_at LIMIT CAST(")
        .bind(Bind::Int(i64::from(limit) * x.dialect().claim_candidates))
        .push(" AS BIGINT)")
        .push(x.dialect().skip_locked)
        .push(
            ") c JOIN endpoints e ON e.id = c.endpoint_id) r WHERE r.rn <= r.cap \
             ORDER BY r.next_attempt_at LIMIT CAST(",
        )
        .bind(Bind::Int(i64::from(limit)))
        .push(" AS BIGINT)) RETURNING id, endpoint_id, lease_version");
    leased(x.fetch(&q).await?)
}

/// What is left of each endpoint's room after `got` was claimed.
fn narrow_room(room: &mut HashMap<String, Room>, got: &[(String, String, i64)]) {
    for (_, endpoint, _) in got {
        let r = room.entry(endpoint.clone()).or_insert(Room::Used(0));
        *r = match *r {
            Room::Left(n) => Room::Left(n.saturating_sub(1)),
            Room::Used(n) => Room::Used(n + 1),
        };
    }
}

/// The tenants with recovery traffic due at `now`, in id order. A skip scan
/// over `messages_recovery_due` (one index probe per tenant with scheduled
/// recovery messages, whatever their number), then one probe each for
/// whether its oldest is due.
async fn recovery_tenants<X: Exec>(x: &mut X, now: Timestamp) -> Result<Vec<String>> {
    let idx = x.dialect().recovery_index;
    let sql = format!(
        "WITH RECURSIVE t(tenant_id) AS ( \
           SELECT (SELECT tenant_id FROM messages{idx} WHERE state = 'scheduled' AND priority = 1 \
                   ORDER BY tenant_id LIMIT 1) \
           UNION ALL \
           SELECT (SELECT m.tenant_id FROM messages m{idx} WHERE m.state = 'scheduled' \
                   AND m.priority = 1 AND m.tenant_id > t.tenant_id ORDER BY m.tenant_id LIMIT 1) \
           FROM t WHERE t.tenant_id IS NOT NULL) \
         SELECT t.tenant_id FROM t WHERE t.tenant_id IS NOT NULL AND EXISTS ( \
           SELECT 1 FROM messages d{idx} WHERE d.state = 'scheduled' AND d.priority = 1 \
           AND d.tenant_id = t.tenant_id AND d.next_attempt_at <= $1) \
         ORDER BY t.tenant_id"
    );
    x.fetch(&SqlBuilder::numbered(&sql, [Bind::Int(now.millis())]))
        .await?
        .iter()
        .map(|r| r.text("tenant_id"))
        .collect()
}

/// Gives claimed messages back unattempted (due as before, nothing used
/// up). The reverse of a claim, committed as a claim is
/// ([`Commit::Lease`](crate::Commit::Lease)): lost in a power cut, the
/// lease expires.
pub async fn release_claims<X: Exec>(
    x: &mut X,
    owner: &str,
    ids: &[String],
    now: Timestamp,
) -> Result<u64> {
    if ids.is_empty() {
        return Ok(0);
    }
    let mut q = SqlBuilder::new(&format!(
        "UPDATE messages SET state = {SETTLED_STATE_SQL}, lease_owner = NULL, lease_until = NULL, \
         lease_version = lease_version + 1, updated_at = "
    ));
    q.bind(now.into())
        .push(" WHERE state = 'in_flight' AND lease_owner = ")
        .bind(owner.into())
        .push(" AND id IN ('-'");
    for id in ids {
        q.push(", ").bind(id.into());
    }
    q.push(")");
    x.execute(&q).await
}

/// Returns expired leases to `scheduled`, due now; returns how many.
pub async fn rescue_expired_leases<X: Exec>(x: &mut X, now: Timestamp) -> Result<u64> {
    x.execute(&SqlBuilder::of(
        &format!(
            "UPDATE messages SET state = {SETTLED_STATE_SQL}, lease_owner = NULL, lease_until = NULL, \
             lease_version = lease_version + 1, next_attempt_at = $1, updated_at = $1 \
             WHERE state = 'in_flight' AND lease_until < $1"
        ),
        [now.into()],
    ))
    .await
}

/// Returns `owner`'s leases to `scheduled` (graceful shutdown); returns how
/// many.
pub async fn release_leases<X: Exec>(x: &mut X, owner: &str, now: Timestamp) -> Result<u64> {
    x.execute(&SqlBuilder::of(
        &format!(
            "UPDATE messages SET state = {SETTLED_STATE_SQL}, lease_owner = NULL, lease_until = NULL, \
             lease_version = lease_version + 1, updated_at = $2 \
             WHERE state = 'in_flight' AND lease_owner = $1"
        ),
        [owner.into(), now.into()],
    ))
    .await
}

/// Counted by [`recovery_due`] at most: its caller only asks whether a
/// backlog is over a pace of a thousand or two, and a count over a
/// tenant's whole backlog (a bulk retry of millions) would read it all,
/// ten times a second.
pub const RECOVERY_DUE_CAP: u64 = 10_000;

/// How many of the tenant's recovery messages are due at `now` and not yet
/// claimed (a bulk retry restarts more only as these drain), up to
/// [`RECOVERY_DUE_CAP`].
pub async fn recovery_due<X: Exec>(x: &mut X, tenant_id: &str, now: Timestamp) -> Result<u64> {
    let n = crate::exec::fetch_one(
        x,
        &SqlBuilder::of(
            "SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM messages WHERE state = 'scheduled' \
             AND priority = 1 AND tenant_id = $1 AND next_attempt_at <= $2 LIMIT $3) due",
            [
                tenant_id.into(),
                now.into(),
                Bind::Int(RECOVERY_DUE_CAP as i64),
            ],
        ),
    )
    .await?
    .int("n")?;
    Ok(n.max(0) as u64)
}
