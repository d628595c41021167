//! The live claim's statement and the rooms it honours: built here, run by
//! `crate::claims` (see [`live_claim`]).

use crate::sql::{Bind, SqlBuilder};

/// Endpoints whose room a claim spells out at most (see `live_claim`).
pub const ROOM_LISTED: usize = 64;

/// An endpoint's room within one claim: what its lane has left, or (for
/// an endpoint the lanes have nothing in flight for) its `max_concurrency`
/// less what this claim already took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Room {
    Left(u32),
    Used(u32),
}

/// What the live claim's SQL does differently on each backend (each backend's
/// `dialect::LIVE_CLAIM`; see [`live_claim`]).
#[derive(Debug)]
pub struct LiveClaimDialect {
    /// How `WHERE id` takes the chosen ids: `IN (…)` on SQLite; on PostgreSQL
    /// `= ANY(ARRAY(…))`, so each is looked up by primary key (its planner
    /// may hash-join a `LIMIT`ed `IN (…)` against a scan of the whole table).
    pub id_in: (&'static str, &'static str),
    /// Index hints for the window scan and the per-endpoint probes (SQLite,
    /// which has no statistics: `INDEXED BY …`).
    pub due_index: &'static str,
    pub endpoint_index: &'static str,
    /// Appended to the window scan (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
    pub skip_locked: &'static str,
    /// The window, in multiples of the limit, when more than [`ROOM_LISTED`]
    /// endpoints have attempts in flight (else one limit).
    pub candidates: i64,
    /// CTEs that turn `capped(endpoint_id, cap, due_by, now_ms)` into
    /// `each(id, next_attempt_at)`: each endpoint's oldest due messages, none
    /// due after `due_by`, at most `cap` of them, locked on PostgreSQL.
    pub take_each: &'static str,
}

/// The live claim (priority 0) as one statement: leases to `req.owner` up to
/// `limit` due live messages, oldest due first across endpoints and of each
/// endpoint at most its room (`room`; endpoints not in it: their
/// `max_concurrency`; only the [`ROOM_LISTED`] most constrained are spelled
/// out, as in `crate::claims`); returns `id, endpoint_id, lease_version`.
///
/// Its cost does not grow with the backlog of endpoints whose lanes are full
/// or capped. `win` is the next `window` due live messages in due order, a
/// bounded scan of `messages_due`: the rows of full endpoints are dropped
/// after the bound (excluding them in the scan walked a hanging endpoint's
/// whole backlog on every claim), and `picked` takes of the window at most
/// each endpoint's room. Only when the window was full and still gave fewer
/// than `limit` — full or capped endpoints ate it — does the claim go by
/// endpoint instead: `ep` finds the endpoints with scheduled live messages
/// by a skip scan over `messages_live_due` (one probe each, whatever their
/// backlogs), `open` reads each one's oldest, `top` keeps the `limit` oldest
/// of those not full, and `each` takes each one's oldest due messages, at
/// most its room, none due after `due_by` (when `limit` endpoints are open,
/// the `limit` oldest messages are due by the last one's oldest). Either way
/// the claim takes the `limit` oldest due messages the rooms allow; the
/// fallback (read only when `short`: its `LIMIT` is 0 otherwise) costs a
/// probe per endpoint with scheduled live messages.
///
/// The window is `limit` messages, or `d.candidates` times that when more
/// than [`ROOM_LISTED`] endpoints have attempts in flight: with few endpoints
/// the walk over them costs less than ranking a longer window, with many a
/// longer window saves walking them all.
///
/// Limits are `CAST($n AS BIGINT)`: SQLite re-prepares a statement whose
/// `LIMIT $n` is rebound, which for this one costs more than running it.
pub fn live_claim(
    req: &crate::ClaimRequest<'_>,
    room: &std::collections::HashMap<String, Room>,
    limit: u32,
    d: &LiveClaimDialect,
) -> SqlBuilder {
    let window = i64::from(limit)
        * if room.len() > ROOM_LISTED {
            d.candidates
        } else {
            1
        };
    let mut q = lease_update(req.owner, req.lease_until);
    let now = q.param(Bind::Int(req.now.millis()));
    let window_p = q.param(Bind::Int(window));
    let lim = q.param(Bind::Int(i64::from(limit)));
    let full: Vec<String> = full_lanes(room)
        .into_iter()
        .map(|e| q.param(Bind::Text(e.clone())))
        .collect();
    let not_full = |column: &str| {
        if full.is_empty() {
            "1 = 1".to_string()
        } else {
            format!("{column} NOT IN ({})", full.join(", "))
        }
    };
    let caps = Caps::bind(&mut q, room);
    let (due_ix, ep_ix) = (d.due_index, d.endpoint_index);
    let live = "m.state = 'scheduled' AND m.priority = 0";
    q.push(&format!(
        "{now} WHERE id{id_in}WITH RECURSIVE \
         win AS (SELECT id, endpoint_id, next_attempt_at FROM messages{due_ix} \
           WHERE state = 'scheduled' AND priority = 0 AND next_attempt_at <= {now} \
           AND (lease_until IS NULL OR lease_until < {now}) \
           ORDER BY next_attempt_at LIMIT CAST({window_p} AS BIGINT){skip}), \
         picked AS (SELECT id, next_attempt_at FROM (SELECT w.id, w.next_attempt_at, \
             ROW_NUMBER() OVER (PARTITION BY w.endpoint_id ORDER BY w.next_attempt_at, w.id) AS rn, \
             {cap_w} AS cap \
           FROM win w JOIN endpoints e ON e.id = w.endpoint_id WHERE {not_full_w}) c \
           WHERE c.rn <= c.cap ORDER BY c.next_attempt_at LIMIT CAST({lim} AS BIGINT)), \
         short(yes) AS (SELECT (SELECT count(*) FROM win) = {window_p} \
           AND (SELECT count(*) FROM picked) < {lim}), \
         ep(endpoint_id) AS (\
           SELECT (SELECT m.endpoint_id FROM messages m{ep_ix} WHERE {live} \
             ORDER BY m.endpoint_id LIMIT 1) WHERE (SELECT yes FROM short) \
           UNION ALL \
           SELECT (SELECT m.endpoint_id FROM messages m{ep_ix} WHERE {live} \
             AND m.endpoint_id > ep.endpoint_id ORDER BY m.endpoint_id LIMIT 1) \
           FROM ep WHERE ep.endpoint_id IS NOT NULL), \
         open AS MATERIALIZED (SELECT ep.endpoint_id, (SELECT min(m.next_attempt_at) \
             FROM messages m{ep_ix} WHERE m.endpoint_id = ep.endpoint_id AND {live}) AS oldest \
           FROM ep WHERE ep.endpoint_id IS NOT NULL AND {not_full_ep}), \
         top AS MATERIALIZED (SELECT endpoint_id, oldest FROM open WHERE oldest <= {now} \
           ORDER BY oldest LIMIT CAST({lim} AS BIGINT)), \
         capped AS MATERIALIZED (SELECT endpoint_id, \
             CASE WHEN cap < {lim} THEN cap ELSE {lim} END AS cap, due_by, now_ms \
           FROM (SELECT t.endpoint_id, {cap_t} AS cap, \
             (SELECT CASE WHEN count(*) = {lim} THEN max(oldest) ELSE {now} END FROM top) AS due_by, \
             CAST({now} AS BIGINT) AS now_ms \
           FROM top t JOIN endpoints e ON e.id = t.endpoint_id) r), \
         {take_each} \
         SELECT id FROM picked WHERE NOT (SELECT yes FROM short) \
         UNION ALL SELECT id FROM (SELECT id FROM each ORDER BY next_attempt_at \
           LIMIT CAST(CASE WHEN (SELECT yes FROM short) THEN {lim} ELSE 0 END AS BIGINT)) f\
         {id_in_end} RETURNING id, endpoint_id, lease_version",
        id_in = d.id_in.0,
        id_in_end = d.id_in.1,
        skip = d.skip_locked,
        cap_w = caps.of("w.endpoint_id"),
        cap_t = caps.of("t.endpoint_id"),
        not_full_w = not_full("w.endpoint_id"),
        not_full_ep = not_full("ep.endpoint_id"),
        take_each = d.take_each,
    ));
    q
}

/// How many messages a claim may take of each endpoint, as SQL over the
/// endpoint joined as `e`: its room where it is spelled out (the
/// [`most_constrained`]), else its `max_concurrency`. The values are bound
/// once, so the SQL may appear in several places of one statement.
pub struct Caps(Vec<(String, String)>);

impl Caps {
    /// Binds the spelled-out rooms of `room` in `q`.
    pub fn bind(q: &mut SqlBuilder, room: &std::collections::HashMap<String, Room>) -> Caps {
        Caps(
            most_constrained(room)
                .into_iter()
                .map(|(e, r)| {
                    let e = q.param(Bind::Text(e.clone()));
                    let then = match r {
                        Room::Left(n) => q.param(Bind::Int(i64::from(*n))),
                        Room::Used(n) => {
                            format!("e.max_concurrency - {}", q.param(Bind::Int(i64::from(*n))))
                        }
                    };
                    (e, then)
                })
                .collect(),
        )
    }

    /// The cap of the endpoint whose id is `column`.
    pub fn of(&self, column: &str) -> String {
        if self.0.is_empty() {
            return "e.max_concurrency".to_string();
        }
        let mut case = String::from("CASE");
        for (e, then) in &self.0 {
            case.push_str(&format!(" WHEN {column} = {e} THEN {then}"));
        }
        case.push_str(" ELSE e.max_concurrency END");
        case
    }
}

/// The start of a lease's statement (a claim's, or a publish's behind a
/// backlog): lease to `owner` until `lease_until`, a new lease version, then
/// `updated_at = ` for the caller to finish with the lease's time.
pub fn lease_update(owner: &str, lease_until: relay_core::time::Timestamp) -> SqlBuilder {
    let mut q = SqlBuilder::new("UPDATE messages SET state = 'in_flight', lease_owner = ");
    q.bind(Bind::Text(owner.into()))
        .push(", lease_until = ")
        .bind(Bind::Int(lease_until.millis()))
        .push(", lease_version = lease_version + 1, updated_at = ");
    q
}

/// The endpoints whose lanes are full (`Left(0)`), in id order: a claim
/// takes none of their messages.
pub fn full_lanes(room: &std::collections::HashMap<String, Room>) -> Vec<&String> {
    let mut full: Vec<&String> = room
        .iter()
        .filter(|(_, r)| **r == Room::Left(0))
        .map(|(e, _)| e)
        .collect();
    full.sort();
    full
}

/// The endpoints a claim spells out the room of: the most constrained (least
/// room left first, then most already taken), at most [`ROOM_LISTED`] of
/// them, since each costs a comparison per candidate row. The others are
/// capped at their `max_concurrency`, and whatever their lanes cannot take
/// the dispatcher gives back. Full ones (`Left(0)`) are excluded apart.
pub fn most_constrained(room: &std::collections::HashMap<String, Room>) -> Vec<(&String, &Room)> {
    let mut known: Vec<(&String, &Room)> =
        room.iter().filter(|(_, r)| **r != Room::Left(0)).collect();
    known.sort_by_key(|(e, r)| match r {
        Room::Left(n) => (0, *n, (*e).clone()),
        Room::Used(n) => (1, u32::MAX - n, (*e).clone()),
    });
    known.truncate(ROOM_LISTED);
    known
}
