//! A rate-limited endpoint's delivery window: its due backlog as the
//! window rule (`relay_core::window`) reads it, and the messages the rule
//! ends `window_exceeded`.

use relay_core::model::MessageState;
use relay_core::time::Timestamp;

use crate::exec::{Exec, fetch_optional};
use crate::rows::{self, RowExt};
use crate::sql::{Bind, SqlBuilder};
use crate::{Backlog, Result, Waiting};

/// The endpoint (not deleted) with its live messages due by `now` and not
/// leased, in the order claims take them (oldest due first, then by id),
/// after `after` (a message's `(next_attempt_at, id)`), at most `limit`:
/// what the window rule reads of a rate-limited endpoint's backlog. `None`
/// when the endpoint is gone.
pub async fn due_backlog<X: Exec>(
    x: &mut X,
    endpoint_id: &str,
    now: Timestamp,
    after: Option<(Timestamp, String)>,
    limit: u32,
) -> Result<Option<Backlog>> {
    let Some(row) = fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT * FROM endpoints WHERE id = $1 AND deleted_at IS NULL",
            [endpoint_id.into()],
        ),
    )
    .await?
    else {
        return Ok(None);
    };
    let endpoint = rows::endpoint(&row)?;
    let (after_due, after_id) = after
        .map(|(t, id)| (t.millis(), id))
        .unwrap_or((i64::MIN, String::new()));
    // `messages_live_due` (endpoint_id, next_attempt_at).
    let found = x
        .fetch(&SqlBuilder::of(
            "SELECT id, created_at, expires_at, attempts_used, next_attempt_at FROM messages \
             WHERE endpoint_id = $1 AND state = 'scheduled' AND priority = 0 AND next_attempt_at <= $2 \
             AND (lease_until IS NULL OR lease_until < $2) \
             AND (next_attempt_at > $3 OR (next_attempt_at = $3 AND id > $4)) \
             ORDER BY next_attempt_at, id LIMIT $5",
            [
                endpoint_id.into(),
                now.into(),
                after_due.into(),
                after_id.into(),
                i64::from(limit).into(),
            ],
        ))
        .await?;
    let messages = found
        .iter()
        .map(|r| {
            Ok(Waiting {
                id: r.text("id")?,
                created_at: r.ts("created_at")?,
                expires_at: r.opt_ts("expires_at")?,
                attempts_used: r.int("attempts_used")?,
                next_attempt_at: r.ts("next_attempt_at")?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(Backlog { endpoint, messages }))
}

/// Ends the listed messages `window_exceeded` (reason `window_exceeded`)
/// if they are still `scheduled` and not leased at `now`. Returns how many.
pub async fn end_window_exceeded<X: Exec>(
    x: &mut X,
    ids: &[String],
    now: Timestamp,
) -> Result<u64> {
    crate::ordering::lock_keys_of(x, ids).await?;
    let mut keys = std::collections::BTreeSet::new();
    let mut ended = 0;
    for chunk in ids.chunks(500) {
        // The terminal state and reason are relay-core's
        // (`transition::apply` of `window_exceeded`).
        let mut q = SqlBuilder::new(&format!(
            "UPDATE messages SET state = '{}', terminal_reason = '{}', next_attempt_at = NULL, \
             lease_owner = NULL, lease_until = NULL, lease_version = lease_version + 1, updated_at = ",
            MessageState::WindowExceeded.as_str(),
            relay_core::transition::REASON_WINDOW_EXCEEDED,
        ));
        let now = q.param(Bind::Int(now.millis()));
        q.push(&format!(
            "{now} WHERE state = 'scheduled' AND (lease_until IS NULL OR lease_until < {now}) AND id IN ('-'"
        ));
        for id in chunk {
            q.push(", ").bind(id.into());
        }
        q.push(") RETURNING endpoint_id, ordering_key, state");
        let rows = x.fetch(&q).await?;
        ended += rows.len() as u64;
        keys.extend(crate::ordering::ended_keys(&rows)?);
    }
    crate::ordering::promote(x, &keys, now).await?;
    Ok(ended)
}
