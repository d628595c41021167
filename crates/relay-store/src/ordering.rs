//! Ordered delivery per key (migration 0021; the rules are
//! `relay_core::ordering`, the whole story `docs/delivery.md`, "Ordered
//! delivery"). A message of a `per_key` endpoint carries its ordering key
//! and its place in that key's line; at most one message of a key is live
//! outside `blocked` (its head: `scheduled`, `in_flight` or `held`), and
//! only the head can be claimed, since every claim takes `scheduled`
//! messages only. So the claims, leasing ahead and the unordered
//! endpoints' paths are unchanged; what this module adds runs only for
//! keyed messages:
//!
//! - [`place`] (publish, replay, operational events): each new keyed
//!   message takes the next position of its key, and starts `blocked` when
//!   anything of its key is live;
//! - [`promote`] (in the transaction that ended a head: a completion, a
//!   cancel, the expiry sweep, the window rule): the first blocked message
//!   of a key with no head is promoted, due at once (held while its
//!   endpoint is paused or disabled);
//! - [`requeue`] (recover, bulk retry): a message restarted from a
//!   terminal state re-enters at the tail of its key.
//!
//! **Across nodes** (PostgreSQL): each of these takes the key's row in
//! `ordering_keys` first (a row lock held to commit; [`place`] by its
//! upsert), and a transaction that ends messages of a key
//! ([`lock_keys_of`]) takes it before it changes them, in key order, so
//! whoever decides a key's head sees what the others committed, and no two
//! of them wait for each other in a cycle. On SQLite one writer does it
//! all in turn.

use std::collections::{BTreeMap, BTreeSet};

use relay_core::model::MessageState;
use relay_core::time::Timestamp;

use crate::Result;
use crate::exec::Exec;
use crate::lifecycle::SETTLED_STATE_SQL;
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};

/// A key's line: (endpoint id, ordering key).
pub type Key = (String, String);

/// The states of a key's live messages.
const KEY_LIVE_SQL: &str = "('scheduled', 'in_flight', 'held', 'blocked')";

/// Whether the backend has other writers to serialize against.
fn concurrent<X: Exec>(x: &X) -> bool {
    x.dialect().backend == "postgres"
}

/// Takes `n` positions at the tail of `key`'s line (creating it); returns
/// the first. On PostgreSQL the upsert also locks the key's row.
async fn take_positions<X: Exec>(x: &mut X, key: &Key, n: i64) -> Result<i64> {
    let row = crate::exec::fetch_one(
        x,
        &SqlBuilder::of(
            "INSERT INTO ordering_keys (endpoint_id, ordering_key, tail) VALUES ($1, $2, $3) \
             ON CONFLICT (endpoint_id, ordering_key) DO UPDATE SET tail = ordering_keys.tail + $3 \
             RETURNING tail",
            [
                Bind::Text(key.0.clone()),
                Bind::Text(key.1.clone()),
                Bind::Int(n),
            ],
        ),
    )
    .await?;
    Ok(row.int("tail")? - n + 1)
}

/// Locks the rows of `keys` (PostgreSQL; in key order). A key without a
/// row has no message yet to order against.
async fn lock_keys<X: Exec>(x: &mut X, keys: &BTreeSet<Key>) -> Result<()> {
    if !concurrent(x) || keys.is_empty() {
        return Ok(());
    }
    for (endpoint, key) in keys {
        let mut q = SqlBuilder::new("SELECT tail FROM ordering_keys WHERE endpoint_id = ");
        q.bind(Bind::Text(endpoint.clone()))
            .push(" AND ordering_key = ")
            .bind(Bind::Text(key.clone()))
            .push(x.dialect().for_update);
        x.fetch(&q).await?;
    }
    Ok(())
}

/// The keys of the keyed messages among `ids`.
pub async fn keys_of<X: Exec>(x: &mut X, ids: &[String]) -> Result<BTreeSet<Key>> {
    let mut keys = BTreeSet::new();
    for chunk in ids.chunks(500) {
        let mut q = SqlBuilder::new(
            "SELECT DISTINCT endpoint_id, ordering_key FROM messages WHERE ordering_key IS NOT NULL \
             AND id IN (",
        );
        q.bind_list_padded(chunk.iter().map(|id| Bind::Text(id.clone())))
            .push(")");
        for r in x.fetch(&q).await? {
            keys.insert((r.text("endpoint_id")?, r.text("ordering_key")?));
        }
    }
    Ok(keys)
}

/// Before a transaction ends (or may end) the messages `ids`: on
/// PostgreSQL, locks their keys' rows, so the promotion that follows sees
/// every publish and promotion of those keys committed before it, and
/// waits for none that waits for it. Returns the keys (empty on SQLite,
/// where nothing needs locking; [`promote`] then takes the keys the ended
/// messages name).
pub async fn lock_keys_of<X: Exec>(x: &mut X, ids: &[String]) -> Result<BTreeSet<Key>> {
    if !concurrent(x) || ids.is_empty() {
        return Ok(BTreeSet::new());
    }
    let keys = keys_of(x, ids).await?;
    lock_keys(x, &keys).await?;
    Ok(keys)
}

/// Whether anything of `key` is live (its head, or a message waiting).
async fn key_live<X: Exec>(x: &mut X, key: &Key) -> Result<bool> {
    let found = x
        .fetch(&SqlBuilder::of(
            &format!(
                "SELECT 1 AS one FROM messages WHERE endpoint_id = $1 AND ordering_key = $2 \
                 AND state IN {KEY_LIVE_SQL} LIMIT 1"
            ),
            [Bind::Text(key.0.clone()), Bind::Text(key.1.clone())],
        ))
        .await?;
    Ok(!found.is_empty())
}

/// A new keyed message: its key and the state its endpoint gives it.
pub struct Entry<'a> {
    pub endpoint_id: &'a str,
    pub key: &'a str,
    pub initial: MessageState,
}

/// Where each of `entries` goes in its key's line, in order: its position
/// and its state (`relay_core::ordering::entry_state`: `blocked` behind a
/// live message of its key, the ones before it in `entries` included).
/// Keys are taken in key order (their rows locked to commit on PostgreSQL).
pub async fn place<X: Exec>(x: &mut X, entries: &[Entry<'_>]) -> Result<Vec<(i64, MessageState)>> {
    let mut groups: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        groups
            .entry((e.endpoint_id.to_string(), e.key.to_string()))
            .or_default()
            .push(i);
    }
    let mut out = vec![(0, MessageState::Blocked); entries.len()];
    for (key, members) in groups {
        let first = take_positions(x, &key, members.len() as i64).await?;
        let busy = key_live(x, &key).await?;
        for (j, i) in members.into_iter().enumerate() {
            let state = relay_core::ordering::entry_state(entries[i].initial, true, busy || j > 0);
            out[i] = (first + j as i64, state);
        }
    }
    Ok(out)
}

/// Promotes, for each of `keys` that has no head, its first blocked
/// message: `scheduled`, due at `now`, or `held` while its endpoint is
/// paused or disabled (`relay_core::ordering::promoted_state`). Run in the
/// transaction that ended a head, after [`lock_keys_of`]. Returns how many
/// it promoted; on PostgreSQL it also wakes the other nodes' dispatchers.
pub async fn promote<X: Exec>(x: &mut X, keys: &BTreeSet<Key>, now: Timestamp) -> Result<u64> {
    if keys.is_empty() {
        return Ok(0);
    }
    lock_keys(x, keys).await?;
    let mut promoted = 0;
    for (endpoint, key) in keys {
        // A blocked message ended meanwhile by a transaction that did not
        // lock the key (a cancel of it, committed while this one waited
        // for its row) is not promoted: look again, from a new snapshot.
        for _ in 0..3 {
            let n = x
                .execute(&SqlBuilder::of(
                    &format!(
                        "UPDATE messages SET state = {SETTLED_STATE_SQL}, next_attempt_at = $3, \
                         updated_at = $3 WHERE id = (SELECT b.id FROM messages b \
                         WHERE b.endpoint_id = $1 AND b.ordering_key = $2 AND b.state = 'blocked' \
                         ORDER BY b.ordering_pos LIMIT 1) AND state = 'blocked' \
                         AND NOT EXISTS (SELECT 1 FROM messages h WHERE h.endpoint_id = $1 \
                         AND h.ordering_key = $2 AND h.state IN ('scheduled', 'in_flight', 'held'))"
                    ),
                    [
                        Bind::Text(endpoint.clone()),
                        Bind::Text(key.clone()),
                        Bind::Int(now.millis()),
                    ],
                ))
                .await?;
            promoted += n;
            if n > 0 || !concurrent(x) || !stalled(x, endpoint, key).await? {
                break;
            }
        }
    }
    if promoted > 0
        && let Some(notify) = x.dialect().wake_notify
    {
        x.execute(&SqlBuilder::new(notify)).await?;
    }
    Ok(promoted)
}

/// Whether `key` has blocked messages and no head.
async fn stalled<X: Exec>(x: &mut X, endpoint: &str, key: &str) -> Result<bool> {
    let rows = x
        .fetch(&SqlBuilder::of(
            "SELECT (SELECT COUNT(*) FROM messages WHERE endpoint_id = $1 AND ordering_key = $2 \
             AND state = 'blocked') AS blocked, (SELECT COUNT(*) FROM messages WHERE endpoint_id = $1 \
             AND ordering_key = $2 AND state IN ('scheduled', 'in_flight', 'held')) AS heads",
            [Bind::Text(endpoint.into()), Bind::Text(key.into())],
        ))
        .await?;
    Ok(match rows.first() {
        Some(r) => r.int("blocked")? > 0 && r.int("heads")? == 0,
        None => false,
    })
}

/// The keys of the terminal messages a statement ended, from rows with
/// `endpoint_id`, `ordering_key` and `state` (its `RETURNING`).
pub fn ended_keys<R: RowExt>(rows: &[R]) -> Result<BTreeSet<Key>> {
    let mut keys = BTreeSet::new();
    for r in rows {
        let Some(key) = r.opt_text("ordering_key")? else {
            continue;
        };
        let state = r.text("state")?;
        if MessageState::parse(&state).is_some_and(relay_core::ordering::releases_next) {
            keys.insert((r.text("endpoint_id")?, key));
        }
    }
    Ok(keys)
}

/// Messages `ids`, just restarted (`scheduled`) from a terminal state by
/// recover or bulk retry, re-enter at the tail of their keys: each takes
/// the key's next position and waits (`blocked`, the `queue` event) when
/// anything else of its key is live (`relay_core::ordering::restarted_state`).
/// Messages without a key are left as they are.
pub async fn requeue<X: Exec>(x: &mut X, ids: &[String]) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let mut groups: BTreeMap<Key, Vec<String>> = BTreeMap::new();
    for chunk in ids.chunks(500) {
        let mut q = SqlBuilder::new(
            "SELECT id, endpoint_id, ordering_key FROM messages WHERE ordering_key IS NOT NULL \
             AND state = 'scheduled' AND id IN (",
        );
        q.bind_list_padded(chunk.iter().map(|id| Bind::Text(id.clone())))
            .push(") ORDER BY id");
        for r in x.fetch(&q).await? {
            groups
                .entry((r.text("endpoint_id")?, r.text("ordering_key")?))
                .or_default()
                .push(r.text("id")?);
        }
    }
    for (key, members) in groups {
        let first = take_positions(x, &key, members.len() as i64).await?;
        // Live besides the restarted ones (which are `scheduled` now).
        let others = crate::exec::fetch_one(
            x,
            &SqlBuilder::numbered(
                &format!(
                    "SELECT COUNT(*) AS n FROM messages WHERE endpoint_id = $1 AND ordering_key = $2 \
                     AND state IN {KEY_LIVE_SQL}"
                ),
                [Bind::Text(key.0.clone()), Bind::Text(key.1.clone())],
            ),
        )
        .await?
        .int("n")?
            - members.len() as i64;
        for (j, id) in members.iter().enumerate() {
            let state = relay_core::ordering::restarted_state(
                MessageState::Scheduled,
                true,
                others > 0 || j > 0,
            );
            x.execute(&SqlBuilder::of(
                "UPDATE messages SET ordering_pos = $2, state = $3 WHERE id = $1",
                [
                    Bind::Text(id.clone()),
                    Bind::Int(first + j as i64),
                    Bind::Text(state.as_str().into()),
                ],
            ))
            .await?;
        }
    }
    Ok(())
}
