//! The [`Store`](crate::Store) implementation, written once for both backends.
//!
//! `impl_store!` expands the same method bodies for `SqliteStore` and `PgStore`
//! with their concrete sqlx types; generic code over `sqlx::Database` would
//! need a wall of higher-ranked bounds for no gain. SQL uses `$N` placeholders,
//! which both drivers bind by number. Where the dialects differ, the body uses
//! a constant from the backend's `dialect` module (`FOR_UPDATE`,
//! `MIGRATION_LOCK`), so the differences stay visible side by side.
//!
//! Each backend has a `write` pool and a `read` pool. For SQLite the write pool
//! has exactly one connection: SQLite allows one writer at a time, and queueing
//! writers in-process avoids `SQLITE_BUSY` on lock upgrades. For PostgreSQL both
//! are the same pool.

/// A value bound to a dynamically built query.
#[derive(Debug, Clone)]
pub enum Bind {
    Text(String),
    Int(i64),
    OptInt(Option<i64>),
    OptText(Option<String>),
    /// A column of values, bound as one array (`text[]` on PostgreSQL; see
    /// [`SqlBuilder::rows`]).
    Texts(Vec<Option<String>>),
    /// A column of values, bound as one array (`bigint[]` on PostgreSQL).
    Ints(Vec<Option<i64>>),
}

impl Bind {
    /// A NULL of the same SQL type.
    fn null_like(&self) -> Bind {
        match self {
            Bind::Text(_) | Bind::OptText(_) => Bind::OptText(None),
            Bind::Int(_) | Bind::OptInt(_) => Bind::OptInt(None),
            Bind::Texts(_) => Bind::Texts(Vec::new()),
            Bind::Ints(_) => Bind::Ints(Vec::new()),
        }
    }

    /// An array of values as JSON text, for a backend without arrays: SQLite
    /// is never handed one (its transactions use `VALUES` lists), but every
    /// value has a meaning there.
    pub fn json_array(&self) -> Option<String> {
        match self {
            Bind::Texts(v) => serde_json::to_string(v).ok(),
            Bind::Ints(v) => serde_json::to_string(v).ok(),
            _ => None,
        }
    }
}

/// Messages inserted per statement when a publish fans out (13 values a row,
/// well under both backends' limits on bound parameters).
pub const FANOUT_CHUNK: usize = 200;

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
/// out, as in `txn::claim_recovery`); returns `id, endpoint_id, lease_version`.
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

/// A message to insert for an event (see `insert_messages`).
pub struct NewMessage<'a> {
    pub tenant_id: &'a str,
    pub environment: &'a str,
    pub event_id: &'a str,
    pub event_type: &'a str,
    pub endpoint_id: &'a str,
    pub state: relay_core::model::MessageState,
    /// Created (and, when scheduled, due) at.
    pub at: relay_core::time::Timestamp,
    /// Leased at once (`in_flight`) to this owner until then (see
    /// [`crate::Intake`]).
    pub lease: Option<(&'a str, relay_core::time::Timestamp)>,
    /// The event's time-to-live end (see `expire_due`).
    pub expires_at: Option<relay_core::time::Timestamp>,
}

/// Events inserted per statement (13 values a row).
pub const EVENT_CHUNK: usize = 100;

/// Completions (and attempt records) written per statement.
pub const COMPLETION_CHUNK: usize = 100;

/// The latency histogram's time unit.
pub const HOUR_MILLIS: i64 = 3_600_000;

/// Builds SQL with numbered placeholders; values are always bound, never
/// interpolated.
#[derive(Debug, Default)]
pub struct SqlBuilder {
    pub sql: String,
    pub binds: Vec<Bind>,
}

impl SqlBuilder {
    pub fn new(sql: &str) -> Self {
        SqlBuilder {
            sql: sql.to_string(),
            binds: Vec::new(),
        }
    }
    pub fn push(&mut self, sql: &str) -> &mut Self {
        self.sql.push_str(sql);
        self
    }
    /// Hand-written SQL whose placeholders `$1`, `$2`, … take `binds` in
    /// order (a placeholder may appear more than once).
    pub fn numbered(sql: &str, binds: impl IntoIterator<Item = Bind>) -> Self {
        SqlBuilder {
            sql: sql.to_string(),
            binds: binds.into_iter().collect(),
        }
    }
    /// Appends a placeholder for `value`.
    pub fn bind(&mut self, value: Bind) -> &mut Self {
        self.binds.push(value);
        // Written in place: a VALUES list has hundreds of placeholders.
        self.sql.push('$');
        self.sql
            .push_str(itoa::Buffer::new().format(self.binds.len()));
        self
    }
    /// Binds `value` without appending its placeholder; returns the
    /// placeholder, for SQL that uses one value in several places.
    pub fn param(&mut self, value: Bind) -> String {
        self.binds.push(value);
        format!("${}", self.binds.len())
    }
    /// Appends placeholders for `values`, separated by commas (a VALUES
    /// row's contents, an `IN (…)` list).
    pub fn bind_list(&mut self, values: impl IntoIterator<Item = Bind>) -> &mut Self {
        for (i, v) in values.into_iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.bind(v);
        }
        self
    }
    /// Appends an `IN (…)` list's placeholders for `values`, padded to the
    /// next power of two by repeating the last value: the statement then
    /// has one text per power of two instead of one per list length (see
    /// [`SqlBuilder::values_padded`]).
    pub fn bind_list_padded(&mut self, values: impl IntoIterator<Item = Bind>) -> &mut Self {
        let mut values: Vec<Bind> = values.into_iter().collect();
        if let Some(last) = values.last().cloned() {
            values.resize(values.len().next_power_of_two(), last);
        }
        self.bind_list(values)
    }
    /// Appends `rows` as a `VALUES` list's rows, padded with rows of typed
    /// NULLs to the next power of two (at most `max`). A statement then has
    /// one text per power of two instead of one per batch size, so it is
    /// prepared once and stays in the statement caches (SQLite's writer,
    /// each PostgreSQL connection), and PostgreSQL may settle on a generic
    /// plan. The statement must ignore the padding, whose every column is
    /// NULL (`WHERE v.id IS NOT NULL`, or a join on `v.id`).
    pub fn values_padded(&mut self, rows: Vec<Vec<Bind>>, max: usize) -> &mut Self {
        let n = rows.len();
        let to = if n == 0 {
            0
        } else {
            n.next_power_of_two().min(max).max(n)
        };
        let nulls: Vec<Bind> = rows
            .first()
            .map(|r| r.iter().map(Bind::null_like).collect())
            .unwrap_or_default();
        let columns = nulls.len();
        // `, ($1234` and `, $1234` for each value: one allocation, not a
        // doubling per few rows.
        self.sql.reserve(to * (columns * 7 + 4));
        self.binds.reserve(to * columns);
        let padding = std::iter::repeat_n(nulls, to - n);
        for (i, row) in rows.into_iter().chain(padding).enumerate() {
            self.push(if i == 0 { "(" } else { ", (" })
                .bind_list(row)
                .push(")");
        }
        self
    }
    /// Appends `rows` as the body of a `WITH v (…) AS (…)` relation: a
    /// padded `VALUES` list (see [`SqlBuilder::values_padded`]), or, when
    /// `arrays` (PostgreSQL), `SELECT * FROM UNNEST($1::text[], …)` with
    /// one array per column. The arrays make one statement text for every
    /// batch size, with a dozen parameters instead of a thousand to bind
    /// and plan. Every row must have the same columns of the same types (a
    /// column's type is its first row's); the statement must ignore rows
    /// whose every column is NULL, as for the padding.
    pub fn rows(&mut self, rows: Vec<Vec<Bind>>, max: usize, arrays: bool) -> &mut Self {
        if !arrays || rows.is_empty() {
            return self.push("VALUES ").values_padded(rows, max);
        }
        let mut columns: Vec<Bind> = rows[0]
            .iter()
            .map(|b| match b {
                Bind::Text(_) | Bind::OptText(_) => Bind::Texts(Vec::with_capacity(rows.len())),
                Bind::Int(_) | Bind::OptInt(_) => Bind::Ints(Vec::with_capacity(rows.len())),
                Bind::Texts(_) | Bind::Ints(_) => b.null_like(),
            })
            .collect();
        for row in rows {
            for (column, value) in columns.iter_mut().zip(row) {
                match (column, value) {
                    (Bind::Texts(c), Bind::Text(v)) => c.push(Some(v)),
                    (Bind::Texts(c), Bind::OptText(v)) => c.push(v),
                    (Bind::Ints(c), Bind::Int(v)) => c.push(Some(v)),
                    (Bind::Ints(c), Bind::OptInt(v)) => c.push(v),
                    // A value of another type than its column's first row
                    // is the caller's bug: tests (debug builds) stop on it;
                    // a release build binds NULL, which a NOT NULL column
                    // rejects.
                    (Bind::Texts(c), _) => {
                        debug_assert!(false, "a value of another type in a text column");
                        c.push(None)
                    }
                    (Bind::Ints(c), _) => {
                        debug_assert!(false, "a value of another type in an integer column");
                        c.push(None)
                    }
                    _ => {}
                }
            }
        }
        self.push("SELECT * FROM UNNEST(");
        for (i, column) in columns.into_iter().enumerate() {
            let cast = match column {
                Bind::Ints(_) => "::bigint[]",
                _ => "::text[]",
            };
            self.push(if i == 0 { "" } else { ", " })
                .bind(column)
                .push(cast);
        }
        self.push(")")
    }
    /// Appends `AND id > $n` when paginating, then the order and the limit
    /// (one more than asked, to learn whether another page exists).
    pub fn paginate(&mut self, id_column: &str, page: &crate::PageRequest) -> &mut Self {
        if let Some(after) = &page.after {
            self.push(&format!(" AND {id_column} > "))
                .bind(Bind::Text(after.clone()));
        }
        self.push(&format!(" ORDER BY {id_column} LIMIT "))
            .bind(Bind::Int(i64::from(page.limit) + 1))
    }
}

/// Trims a fetched `limit + 1` rows to a page and its continuation id.
pub fn to_page<T>(
    mut items: Vec<T>,
    limit: u32,
    id_of: impl Fn(&T) -> &str,
) -> relay_core::model::Page<T> {
    let has_more = items.len() > limit as usize;
    items.truncate(limit as usize);
    let next_after = if has_more {
        items.last().map(|i| id_of(i).to_string())
    } else {
        None
    };
    relay_core::model::Page {
        data: items,
        next_after,
    }
}

/// Maps a database error to `Conflict(what)` when it is a uniqueness violation.
pub fn unique_as_conflict(e: sqlx::Error, what: &'static str) -> crate::StoreError {
    match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => crate::StoreError::Conflict(what),
        _ => crate::StoreError::Database(e),
    }
}

/// Appends the conditions of a message filter (column names of `messages`).
pub fn push_message_filter(q: &mut SqlBuilder, f: &crate::MessageFilter) {
    let text_filters = [
        ("endpoint_id", &f.endpoint_id),
        ("event_id", &f.event_id),
        ("event_type", &f.event_type),
        ("last_error_code", &f.error_code),
    ];
    for (col, value) in text_filters {
        if let Some(v) = value {
            q.push(&format!(" AND {col} = "))
                .bind(Bind::Text(v.clone()));
        }
    }
    if let Some(s) = f.state {
        q.push(" AND state = ").bind(Bind::Text(s.as_str().into()));
    }
    if let Some(states) = &f.states {
        q.push(" AND state IN ('-'");
        for s in states {
            q.push(", ").bind(Bind::Text(s.as_str().into()));
        }
        q.push(")");
    }
    if let Some(t) = f.since {
        q.push(" AND created_at >= ").bind(Bind::Int(t.millis()));
    }
    if let Some(t) = f.until {
        q.push(" AND created_at < ").bind(Bind::Int(t.millis()));
    }
    if let Some(t) = f.events_since {
        q.push(
            " AND EXISTS (SELECT 1 FROM events ev WHERE ev.tenant_id = messages.tenant_id \
             AND ev.environment = messages.environment AND ev.id = messages.event_id \
             AND ev.created_at >= ",
        )
        .bind(Bind::Int(t.millis()))
        .push(")");
    }
}

/// `v` as JSON text for a column.
pub fn json_text<T: serde::Serialize>(v: &T) -> String {
    // Serializing our own plain data types cannot fail.
    serde_json::to_string(v).unwrap_or_else(|_| "null".to_string())
}

/// `Some(value)` when the lease held and there is a value.
pub fn applied_and<T>(applied: bool, value: &Option<T>) -> Option<&T> {
    if applied { value.as_ref() } else { None }
}

/// Message states from which a removed endpoint's messages are dead-lettered.
pub const LIVE_STATES_SQL: &str = "('scheduled', 'in_flight', 'held')";

/// The live states of a message that is not in flight: waiting for its next
/// attempt or held. The text of the `messages_ttl` index's condition
/// (migration 0005), which SQLite's planner matches by its terms.
pub const WAITING_STATES_SQL: &str = "('scheduled', 'held')";

macro_rules! impl_store {
    ($store:ty, $db:ty, $dialect:path) => {
        use $dialect as dialect;

        use async_trait::async_trait;
        use relay_core::model::{
            ApiKey, Attempt, Consumer, Endpoint, Event, EventType,
            EventTypeVersion, Message, MessageState, Page, Tenant,
        };
        use relay_core::time::Timestamp;
        use sqlx::AssertSqlSafe;

        use $crate::backend::{Bind, SqlBuilder, json_text, push_message_filter, to_page, unique_as_conflict};
        use $crate::rows::{self, RowExt};
        use $crate::{
            AuditEntry, ClaimBatch, ClaimRequest, Claimed, Completion, HealthFacts, ConsumerPatch, EndpointKeyRecord, EndpointLimits,
            EndpointWarning, Job, LeasedJob,
            MessageFilter, NewApiKey, NewEvent, PageRequest, PublishOutcome, PutEventType,
            PutEventTypeOutcome, Result, Scope, Store, StoreError,
        };

        type Row = <$db as sqlx::Database>::Row;

        impl $store {
            /// The one row `sql` selects by `(tenant_id, environment, id)` as
            /// `$1, $2, $3`: how every scoped get-by-id reads.
            async fn scoped_row(
                &self,
                sql: &'static str,
                scope: &Scope,
                id: &str,
            ) -> Result<Option<Row>> {
                Ok(sqlx::query::<$db>(sql)
                    .bind(&scope.tenant_id)
                    .bind(scope.environment.as_str())
                    .bind(id)
                    .fetch_optional(&self.read)
                    .await?)
            }

            async fn fetch_built(&self, q: &SqlBuilder) -> Result<Vec<Row>> {
                Ok($crate::txn::built::<$db>(q).fetch_all(&self.read).await?)
            }

            /// One page (by id) of `table`'s rows in `scope`, narrowed
            /// further by `narrow`.
            async fn list_scoped<T>(
                &self,
                table: &'static str,
                scope: &Scope,
                page: &PageRequest,
                narrow: impl FnOnce(&mut SqlBuilder),
                row: fn(&Row) -> Result<T>,
                id_of: impl Fn(&T) -> &str,
            ) -> Result<Page<T>> {
                let mut q = SqlBuilder::new(&format!("SELECT * FROM {table} WHERE tenant_id = "));
                q.bind(Bind::Text(scope.tenant_id.clone()))
                    .push(" AND environment = ")
                    .bind(Bind::Text(scope.environment.as_str().into()));
                narrow(&mut q);
                q.paginate("id", page);
                let items = self
                    .fetch_built(&q)
                    .await?
                    .iter()
                    .map(row)
                    .collect::<Result<Vec<_>>>()?;
                Ok(to_page(items, page.limit, id_of))
            }

            async fn load_event_type<'e, E>(
                exec: E,
                scope: &Scope,
                name: &str,
            ) -> Result<Option<EventType>>
            where
                E: sqlx::Executor<'e, Database = $db> + Copy,
            {
                let Some(row) = sqlx::query::<$db>(
                    "SELECT * FROM event_types WHERE tenant_id = $1 AND environment = $2 AND name = $3",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(name)
                .fetch_optional(exec)
                .await?
                else {
                    return Ok(None);
                };
                let versions = sqlx::query::<$db>(
                    "SELECT * FROM event_type_versions WHERE tenant_id = $1 AND environment = $2 \
                     AND name = $3 ORDER BY version",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(name)
                .fetch_all(exec)
                .await?;
                let versions = versions
                    .iter()
                    .map(Self::event_type_version)
                    .collect::<Result<Vec<_>>>()?;
                Ok(Some(Self::event_type(&row, versions)?))
            }

            fn event_type(row: &Row, versions: Vec<EventTypeVersion>) -> Result<EventType> {
                Ok(EventType {
                    name: row.text("name")?,
                    description: row.text("description")?,
                    environment: row.environment("environment")?,
                    current_version: row.int("current_version")?,
                    versions,
                    created_at: row.ts("created_at")?,
                    updated_at: row.ts("updated_at")?,
                })
            }

            fn event_type_version(row: &Row) -> Result<EventTypeVersion> {
                Ok(EventTypeVersion {
                    version: row.int("version")?,
                    schema: row.json("schema_json")?,
                    sample: row.opt_json("sample_json")?,
                    personal_data_fields: row.json("personal_data_fields")?,
                    created_at: row.ts("created_at")?,
                })
            }

            /// One publish in its own transaction. Another node that stored
            /// the same id first (a uniqueness violation) makes it a duplicate.
            async fn publish_alone(
                txns: &dialect::Txns,
                item: (Scope, NewEvent),
                intake: Option<std::sync::Arc<dyn $crate::Intake>>,
            ) -> Result<PublishOutcome> {
                let key = (item.0.clone(), item.1.id.clone());
                let items = vec![item];
                let handover = intake.clone();
                let result = txns.run($crate::txn::Commit::Durable, move |x| {
                    Box::pin(async move {
                        $crate::txn::publish_batch(x, &items, intake.as_deref()).await
                    })
                })
                .await;
                match result {
                    Err(e) if e.is_unique_violation() => {
                        let (scope, id) = key;
                        let row = sqlx::query::<$db>(
                            "SELECT * FROM events WHERE tenant_id = $1 AND environment = $2 AND id = $3",
                        )
                        .bind(&scope.tenant_id)
                        .bind(scope.environment.as_str())
                        .bind(&id)
                        .fetch_optional(txns.pool())
                        .await?
                        .ok_or(StoreError::NotFound)?;
                        Ok(PublishOutcome {
                            event: rows::event(&row)?,
                            messages_created: 0,
                            duplicate: true,
                            messages_leased: 0,
                        })
                    }
                    Err(e) => Err(e),
                    Ok(mut published) => {
                        if let Some(intake) = handover {
                            intake.take(std::mem::take(&mut published.leased));
                        }
                        Ok(published.outcomes.remove(0))
                    }
                }
            }

            /// The publish queue and the intake slot, with their committer
            /// started on the current runtime.
            pub(crate) fn start_committer(
                txns: &dialect::Txns,
            ) -> (std::sync::Arc<$crate::group::Pending>, $crate::group::IntakeSlot) {
                let publishes = std::sync::Arc::new($crate::group::Pending::default());
                let intake = $crate::group::IntakeSlot::default();
                tokio::spawn(Self::run_publishes(
                    txns.clone(),
                    std::sync::Arc::downgrade(&publishes),
                    publishes.ready.clone(),
                    intake.clone(),
                ));
                (publishes, intake)
            }

            /// The group committer (see [`crate::group`]): runs until the
            /// store, the queue's only owner, is dropped. Hands a batch to
            /// the backend whenever publishes wait and fewer than
            /// `dialect::PUBLISH_BATCHES` are in hand.
            pub(crate) async fn run_publishes(
                txns: dialect::Txns,
                pending: std::sync::Weak<$crate::group::Pending>,
                ready: std::sync::Arc<tokio::sync::Notify>,
                intake: $crate::group::IntakeSlot,
            ) {
                let batches = std::sync::Arc::new(tokio::sync::Semaphore::new(dialect::PUBLISH_BATCHES));
                loop {
                    let Ok(permit) = batches.clone().acquire_owned().await else {
                        return;
                    };
                    loop {
                        match pending.upgrade() {
                            None => return,
                            Some(p) if !p.is_empty() => break,
                            Some(_) => {}
                        }
                        ready.notified().await;
                    }
                    let (txns, pending, intake) = (txns.clone(), pending.clone(), intake.clone());
                    tokio::spawn(async move {
                        Self::commit_publishes(&txns, pending, intake).await;
                        drop(permit);
                    });
                }
            }

            /// One batch: takes what waits when its transaction starts,
            /// writes it, and answers each publisher after the commit (or
            /// retries each alone if the batch failed).
            async fn commit_publishes(
                txns: &dialect::Txns,
                pending: std::sync::Weak<$crate::group::Pending>,
                slot: $crate::group::IntakeSlot,
            ) {
                let taken = $crate::group::Taken::default();
                let (into, queue, slot_again) = (taken.clone(), pending.clone(), slot.clone());
                // The intake too is read when the transaction starts.
                let result = txns
                    .run($crate::txn::Commit::Durable, move |x| {
                        Box::pin(async move {
                            let Some(queue) = queue.upgrade() else {
                                return Ok(None);
                            };
                            let items = $crate::group::take_into(&queue, &into);
                            drop(queue);
                            if items.is_empty() {
                                return Ok(None);
                            }
                            let intake = $crate::group::intake_of(&slot);
                            $crate::txn::publish_batch(x, &items, intake.as_deref())
                                .await
                                .map(|published| Some((published, intake)))
                        })
                    })
                    .await;
                // A transaction that failed before it started took nothing:
                // its publishes are answered one by one (with the error, if
                // the store is down).
                let took = taken.lock().ok().and_then(|mut t| t.take());
                let took = match (took, &result) {
                    (Some(t), _) => t,
                    (None, Ok(_)) => return,
                    (None, Err(_)) => {
                        let Some(queue) = pending.upgrade() else {
                            return;
                        };
                        $crate::group::take_into(&queue, &taken);
                        match taken.lock().ok().and_then(|mut t| t.take()) {
                            Some(t) => t,
                            None => return,
                        }
                    }
                };
                let (items, replies) = took;
                // Counted before the answers: the count is the store's
                // once a publisher has its answer.
                match result {
                    Ok(Some((published, intake))) => {
                        let outcomes = published.outcomes;
                        txns.wrote(outcomes.iter().map(|o| o.messages_created).sum());
                        if let Some(intake) = &intake {
                            intake.take(published.leased);
                        }
                        for (reply, outcome) in replies.into_iter().zip(outcomes) {
                            let _ = reply.send(Ok(outcome));
                        }
                    }
                    _ => {
                        for (item, reply) in items.iter().zip(replies) {
                            let intake = $crate::group::intake_of(&slot_again);
                            let result = Self::publish_alone(txns, item.clone(), intake).await;
                            if let Ok(outcome) = &result {
                                txns.wrote(outcome.messages_created);
                            }
                            let _ = reply.send(result);
                        }
                    }
                }
            }

            /// Binds the endpoint's changeable columns in the order both the
            /// insert (`$5`..`$17`) and the update (`$4`..`$16`) expect them.
            fn bind_endpoint_fields<'q>(
                q: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments>,
                e: &'q Endpoint,
            ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments> {
                q.bind(&e.description)
                    .bind(e.destination.kind())
                    .bind(json_text(&e.destination))
                    .bind(json_text(&e.event_types))
                    .bind(e.signature_scheme.as_str())
                    .bind(e.retry_schedule_seconds.as_ref().map(json_text))
                    .bind(i64::from(e.max_concurrency))
                    .bind(e.rate_limit_per_second.map(i64::from))
                    .bind(json_text(&e.snapshot_fields))
                    .bind(e.version)
                    .bind(e.state.as_str())
                    .bind(&e.disabled_reason)
                    .bind(i64::from(e.auto_disable))
            }

            async fn insert_audit(
                tx: &mut sqlx::Transaction<'_, $db>,
                scope: &Scope,
                a: &AuditEntry,
            ) -> Result<()> {
                sqlx::query::<$db>(
                    "INSERT INTO audit_log (id, tenant_id, environment, actor, action, target, parameters, at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(&a.id)
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(&a.actor)
                .bind(&a.action)
                .bind(&a.target)
                .bind(json_text(&a.parameters))
                .bind(a.at.millis())
                .execute(&mut **tx)
                .await?;
                Ok(())
            }

            async fn insert_subscriptions(
                tx: &mut sqlx::Transaction<'_, $db>,
                scope: &Scope,
                endpoint: &Endpoint,
            ) -> Result<()> {
                let mut seen = std::collections::BTreeSet::new();
                for t in &endpoint.event_types {
                    if !seen.insert(t.as_str()) {
                        continue;
                    }
                    sqlx::query::<$db>(
                        "INSERT INTO endpoint_subscriptions (endpoint_id, tenant_id, environment, event_type) \
                         VALUES ($1, $2, $3, $4)",
                    )
                    .bind(&endpoint.id)
                    .bind(&scope.tenant_id)
                    .bind(scope.environment.as_str())
                    .bind(t)
                    .execute(&mut **tx)
                    .await?;
                }
                Ok(())
            }
        }


        #[async_trait]
        impl Store for $store {
            fn backend(&self) -> &'static str {
                dialect::BACKEND
            }

            async fn migrate(&self) -> Result<()> {
                let mut tx = self.write.begin().await?;
                if let Some(lock) = dialect::MIGRATION_LOCK {
                    sqlx::query::<$db>(lock).execute(&mut *tx).await?;
                }
                sqlx::raw_sql($crate::migrate::CREATE_MIGRATIONS_TABLE)
                    .execute(&mut *tx)
                    .await?;
                let applied: Vec<i64> = sqlx::query_scalar::<$db, i64>("SELECT version FROM relay_migrations")
                    .fetch_all(&mut *tx)
                    .await?;
                for m in $crate::migrate::MIGRATIONS {
                    if applied.contains(&m.version) {
                        continue;
                    }
                    let sql = dialect::migration_sql(m);
                    sqlx::raw_sql(sql).execute(&mut *tx).await?;
                    sqlx::query::<$db>(
                        "INSERT INTO relay_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                    )
                    .bind(m.version)
                    .bind(m.name)
                    .bind(0i64)
                    .execute(&mut *tx)
                    .await?;
                    tracing::info!(version = m.version, name = m.name, backend = dialect::BACKEND, "applied migration");
                }
                tx.commit().await?;
                Ok(())
            }

            async fn get_setting(&self, key: &str) -> Result<Option<String>> {
                Ok(sqlx::query_scalar::<$db, String>("SELECT value FROM relay_settings WHERE key = $1")
                    .bind(key)
                    .fetch_optional(&self.read)
                    .await?)
            }

            async fn put_setting_if_absent(&self, key: &str, value: &str) -> Result<String> {
                sqlx::query::<$db>(
                    "INSERT INTO relay_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
                )
                .bind(key)
                .bind(value)
                .execute(&self.write)
                .await?;
                Ok(sqlx::query_scalar::<$db, String>("SELECT value FROM relay_settings WHERE key = $1")
                    .bind(key)
                    .fetch_one(&self.write)
                    .await?)
            }

            async fn create_tenant(&self, t: &Tenant) -> Result<()> {
                let mut tx = self.write.begin().await?;
                if let Some(parent) = &t.parent_id {
                    let found = sqlx::query::<$db>("SELECT id FROM tenants WHERE id = $1")
                        .bind(parent)
                        .fetch_optional(&mut *tx)
                        .await?;
                    if found.is_none() {
                        return Err(StoreError::MissingReference("parent_id"));
                    }
                }
                sqlx::query::<$db>(
                    "INSERT INTO tenants (id, name, parent_id, created_at) VALUES ($1, $2, $3, $4)",
                )
                .bind(&t.id)
                .bind(&t.name)
                .bind(&t.parent_id)
                .bind(t.created_at.millis())
                .execute(&mut *tx)
                .await
                .map_err(|e| unique_as_conflict(e, "tenant_id"))?;
                tx.commit().await?;
                Ok(())
            }

            async fn get_tenant(&self, id: &str) -> Result<Option<Tenant>> {
                sqlx::query::<$db>("SELECT * FROM tenants WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&self.read)
                    .await?
                    .map(|r| rows::tenant(&r))
                    .transpose()
            }

            async fn list_tenants(&self, page: &PageRequest) -> Result<Page<Tenant>> {
                let mut q = SqlBuilder::new("SELECT * FROM tenants WHERE 1 = 1");
                q.paginate("id", page);
                let items = self
                    .fetch_built(&q)
                    .await?
                    .iter()
                    .map(rows::tenant)
                    .collect::<Result<Vec<_>>>()?;
                Ok(to_page(items, page.limit, |t| &t.id))
            }

            async fn create_api_key(&self, k: &NewApiKey) -> Result<ApiKey> {
                sqlx::query::<$db>(
                    "INSERT INTO api_keys (id, tenant_id, environment, name, prefix, key_hash, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(&k.id)
                .bind(&k.tenant_id)
                .bind(k.environment.as_str())
                .bind(&k.name)
                .bind(&k.prefix)
                .bind(&k.key_hash)
                .bind(k.created_at.millis())
                .execute(&self.write)
                .await
                .map_err(|e| match &e {
                    sqlx::Error::Database(db) if db.is_foreign_key_violation() => {
                        StoreError::MissingReference("tenant")
                    }
                    _ => unique_as_conflict(e, "api_key"),
                })?;
                Ok(ApiKey {
                    id: k.id.clone(),
                    tenant_id: k.tenant_id.clone(),
                    environment: k.environment,
                    name: k.name.clone(),
                    prefix: k.prefix.clone(),
                    created_at: k.created_at,
                    revoked_at: None,
                })
            }

            async fn list_api_keys(&self, tenant_id: &str) -> Result<Vec<ApiKey>> {
                sqlx::query::<$db>("SELECT * FROM api_keys WHERE tenant_id = $1 ORDER BY id")
                    .bind(tenant_id)
                    .fetch_all(&self.read)
                    .await?
                    .iter()
                    .map(rows::api_key)
                    .collect()
            }

            async fn revoke_api_key(&self, tenant_id: &str, key_id: &str, now: Timestamp) -> Result<bool> {
                let done = sqlx::query::<$db>(
                    "UPDATE api_keys SET revoked_at = $3 WHERE tenant_id = $1 AND id = $2 AND revoked_at IS NULL",
                )
                .bind(tenant_id)
                .bind(key_id)
                .bind(now.millis())
                .execute(&self.write)
                .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn find_api_key(&self, key_hash: &str) -> Result<Option<ApiKey>> {
                sqlx::query::<$db>("SELECT * FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL")
                    .bind(key_hash)
                    .fetch_optional(&self.read)
                    .await?
                    .map(|r| rows::api_key(&r))
                    .transpose()
            }

            async fn put_event_type(
                &self,
                scope: &Scope,
                put: &PutEventType,
            ) -> Result<(EventType, PutEventTypeOutcome)> {
                let env = scope.environment.as_str();
                let now = put.now.millis();
                let schema = json_text(&put.schema);
                let sample = put.sample.as_ref().map(json_text);
                let pd_fields = json_text(&put.personal_data_fields);
                let mut tx = self.write.begin().await?;
                let current = sqlx::query::<$db>(AssertSqlSafe(format!(
                    "SELECT current_version FROM event_types WHERE tenant_id = $1 AND environment = $2 AND name = $3{}",
                    dialect::FOR_UPDATE
                )))
                .bind(&scope.tenant_id)
                .bind(env)
                .bind(&put.name)
                .fetch_optional(&mut *tx)
                .await?
                .map(|r| r.int("current_version"))
                .transpose()?;
                let insert_version = "INSERT INTO event_type_versions (tenant_id, environment, name, version, \
                     schema_json, sample_json, personal_data_fields, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
                let outcome = match current {
                    None => {
                        sqlx::query::<$db>(
                            "INSERT INTO event_types (tenant_id, environment, name, description, current_version, \
                             created_at, updated_at) VALUES ($1, $2, $3, $4, 1, $5, $5)",
                        )
                        .bind(&scope.tenant_id)
                        .bind(env)
                        .bind(&put.name)
                        .bind(&put.description)
                        .bind(now)
                        .execute(&mut *tx)
                        .await
                        .map_err(|e| unique_as_conflict(e, "event_type_concurrent_update"))?;
                        sqlx::query::<$db>(insert_version)
                            .bind(&scope.tenant_id)
                            .bind(env)
                            .bind(&put.name)
                            .bind(1i64)
                            .bind(&schema)
                            .bind(&sample)
                            .bind(&pd_fields)
                            .bind(now)
                            .execute(&mut *tx)
                            .await?;
                        PutEventTypeOutcome::Created
                    }
                    Some(version) => {
                        let stored: serde_json::Value = sqlx::query::<$db>(
                            "SELECT schema_json FROM event_type_versions WHERE tenant_id = $1 AND environment = $2 \
                             AND name = $3 AND version = $4",
                        )
                        .bind(&scope.tenant_id)
                        .bind(env)
                        .bind(&put.name)
                        .bind(version)
                        .fetch_one(&mut *tx)
                        .await?
                        .json("schema_json")?;
                        let outcome = if stored != put.schema {
                            sqlx::query::<$db>(insert_version)
                                .bind(&scope.tenant_id)
                                .bind(env)
                                .bind(&put.name)
                                .bind(version + 1)
                                .bind(&schema)
                                .bind(&sample)
                                .bind(&pd_fields)
                                .bind(now)
                                .execute(&mut *tx)
                                .await
                                .map_err(|e| unique_as_conflict(e, "event_type_concurrent_update"))?;
                            PutEventTypeOutcome::NewVersion
                        } else {
                            sqlx::query::<$db>(
                                "UPDATE event_type_versions SET sample_json = $5, personal_data_fields = $6 \
                                 WHERE tenant_id = $1 AND environment = $2 AND name = $3 AND version = $4",
                            )
                            .bind(&scope.tenant_id)
                            .bind(env)
                            .bind(&put.name)
                            .bind(version)
                            .bind(&sample)
                            .bind(&pd_fields)
                            .execute(&mut *tx)
                            .await?;
                            PutEventTypeOutcome::Updated
                        };
                        let new_current = if outcome == PutEventTypeOutcome::NewVersion { version + 1 } else { version };
                        sqlx::query::<$db>(
                            "UPDATE event_types SET description = $4, current_version = $5, updated_at = $6 \
                             WHERE tenant_id = $1 AND environment = $2 AND name = $3",
                        )
                        .bind(&scope.tenant_id)
                        .bind(env)
                        .bind(&put.name)
                        .bind(&put.description)
                        .bind(new_current)
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                        outcome
                    }
                };
                tx.commit().await?;
                let et = Self::load_event_type(&self.write, scope, &put.name)
                    .await?
                    .ok_or(StoreError::NotFound)?;
                Ok((et, outcome))
            }

            async fn get_event_type(&self, scope: &Scope, name: &str) -> Result<Option<EventType>> {
                Self::load_event_type(&self.read, scope, name).await
            }

            async fn list_event_types(&self, scope: &Scope) -> Result<Vec<EventType>> {
                let types = sqlx::query::<$db>(
                    "SELECT * FROM event_types WHERE tenant_id = $1 AND environment = $2 ORDER BY name",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .fetch_all(&self.read)
                .await?;
                let versions = sqlx::query::<$db>(
                    "SELECT * FROM event_type_versions WHERE tenant_id = $1 AND environment = $2 \
                     ORDER BY name, version",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .fetch_all(&self.read)
                .await?;
                let mut by_name: std::collections::HashMap<String, Vec<EventTypeVersion>> =
                    std::collections::HashMap::new();
                for v in &versions {
                    by_name
                        .entry(v.text("name")?)
                        .or_default()
                        .push(Self::event_type_version(v)?);
                }
                types
                    .iter()
                    .map(|t| {
                        let name = t.text("name")?;
                        Self::event_type(t, by_name.remove(&name).unwrap_or_default())
                    })
                    .collect()
            }

            async fn create_consumer(&self, scope: &Scope, c: &Consumer) -> Result<()> {
                let mut tx = self.write.begin().await?;
                if c.kind == relay_core::model::ConsumerKind::Tenant {
                    let existing = sqlx::query::<$db>(
                        "SELECT id FROM consumers WHERE tenant_id = $1 AND environment = $2 AND kind = 'tenant'",
                    )
                    .bind(&scope.tenant_id)
                    .bind(scope.environment.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
                    if existing.is_some() {
                        return Err(StoreError::Conflict("tenant_consumer_exists"));
                    }
                }
                sqlx::query::<$db>(
                    "INSERT INTO consumers (id, tenant_id, environment, external_id, name, source, kind, \
                     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                )
                .bind(&c.id)
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(&c.external_id)
                .bind(&c.name)
                .bind(&c.source)
                .bind(c.kind.as_str())
                .bind(c.created_at.millis())
                .bind(c.updated_at.millis())
                .execute(&mut *tx)
                .await
                .map_err(|e| unique_as_conflict(e, "external_id"))?;
                tx.commit().await?;
                Ok(())
            }

            async fn get_consumer(&self, scope: &Scope, id: &str) -> Result<Option<Consumer>> {
                self.scoped_row(
                    "SELECT * FROM consumers WHERE tenant_id = $1 AND environment = $2 AND id = $3",
                    scope,
                    id,
                )
                .await?
                .map(|r| rows::consumer(&r))
                .transpose()
            }

            async fn list_consumers(&self, scope: &Scope, page: &PageRequest) -> Result<Page<Consumer>> {
                self.list_scoped("consumers", scope, page, |_| {}, rows::consumer, |c| &c.id)
                    .await
            }

            async fn update_consumer(
                &self,
                scope: &Scope,
                id: &str,
                patch: &ConsumerPatch,
                now: Timestamp,
            ) -> Result<Consumer> {
                let mut tx = self.write.begin().await?;
                let Some(mut c) = sqlx::query::<$db>(
                    "SELECT * FROM consumers WHERE tenant_id = $1 AND environment = $2 AND id = $3",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?
                .map(|r| rows::consumer(&r))
                .transpose()?
                else {
                    return Err(StoreError::NotFound);
                };
                if let Some(name) = &patch.name {
                    c.name = name.clone();
                }
                if let Some(source) = &patch.source {
                    c.source = source.clone();
                }
                c.updated_at = now;
                sqlx::query::<$db>(
                    "UPDATE consumers SET name = $2, source = $3, updated_at = $4 WHERE id = $1",
                )
                .bind(&c.id)
                .bind(&c.name)
                .bind(&c.source)
                .bind(now.millis())
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(c)
            }

            async fn delete_consumer(&self, scope: &Scope, id: &str) -> Result<()> {
                let mut tx = self.write.begin().await?;
                let live: i64 = sqlx::query_scalar::<$db, i64>(
                    "SELECT COUNT(*) FROM endpoints WHERE tenant_id = $1 AND environment = $2 \
                     AND consumer_id = $3 AND deleted_at IS NULL",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(id)
                .fetch_one(&mut *tx)
                .await?;
                if live > 0 {
                    return Err(StoreError::Conflict("consumer_has_endpoints"));
                }
                let done = sqlx::query::<$db>(
                    "DELETE FROM consumers WHERE tenant_id = $1 AND environment = $2 AND id = $3",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(id)
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::NotFound);
                }
                tx.commit().await?;
                Ok(())
            }

            async fn create_endpoint(
                &self,
                scope: &Scope,
                e: &Endpoint,
                keys: &[EndpointKeyRecord],
                limits: EndpointLimits,
                audit: Option<&AuditEntry>,
            ) -> Result<()> {
                let mut tx = self.write.begin().await?;
                // Serialises endpoint creation per tenant so the limits hold
                // under concurrency (SQLite already has a single writer).
                sqlx::query::<$db>(AssertSqlSafe(format!(
                    "SELECT id FROM tenants WHERE id = $1{}",
                    dialect::FOR_UPDATE
                )))
                .bind(&scope.tenant_id)
                .fetch_optional(&mut *tx)
                .await?;
                let consumer = sqlx::query::<$db>(
                    "SELECT id FROM consumers WHERE tenant_id = $1 AND environment = $2 AND id = $3",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(&e.consumer_id)
                .fetch_optional(&mut *tx)
                .await?;
                if consumer.is_none() {
                    return Err(StoreError::MissingReference("consumer_id"));
                }
                let per_tenant: i64 = sqlx::query_scalar::<$db, i64>(
                    "SELECT COUNT(*) FROM endpoints WHERE tenant_id = $1 AND deleted_at IS NULL",
                )
                .bind(&scope.tenant_id)
                .fetch_one(&mut *tx)
                .await?;
                if per_tenant >= i64::from(limits.per_tenant) {
                    return Err(StoreError::LimitReached("endpoints_per_tenant"));
                }
                let per_consumer: i64 = sqlx::query_scalar::<$db, i64>(
                    "SELECT COUNT(*) FROM endpoints WHERE consumer_id = $1 AND deleted_at IS NULL",
                )
                .bind(&e.consumer_id)
                .fetch_one(&mut *tx)
                .await?;
                if per_consumer >= i64::from(limits.per_consumer) {
                    return Err(StoreError::LimitReached("endpoints_per_consumer"));
                }
                let insert = sqlx::query::<$db>(
                    "INSERT INTO endpoints (id, tenant_id, environment, consumer_id, description, kind, \
                     destination_json, event_types_json, signature_scheme, retry_schedule_json, max_concurrency, \
                     rate_limit_per_second, snapshot_fields_json, version, state, disabled_reason, auto_disable, \
                     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, \
                     $15, $16, $17, $18, $19)",
                )
                .bind(&e.id)
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(&e.consumer_id);
                let insert = Self::bind_endpoint_fields(insert, e);
                insert
                .bind(e.created_at.millis())
                .bind(e.updated_at.millis())
                .execute(&mut *tx)
                .await
                .map_err(|err| unique_as_conflict(err, "endpoint_id"))?;
                Self::insert_subscriptions(&mut tx, scope, e).await?;
                for k in keys {
                    sqlx::query::<$db>(
                        "INSERT INTO endpoint_keys (id, endpoint_id, scheme, public_key, sealed_secret, created_at, \
                         retires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    )
                    .bind(&k.id)
                    .bind(&e.id)
                    .bind(k.scheme.as_str())
                    .bind(&k.public_key)
                    .bind(&k.sealed_secret)
                    .bind(k.created_at.millis())
                    .bind(k.retires_at.map(Timestamp::millis))
                    .execute(&mut *tx)
                    .await?;
                }
                if let Some(audit) = audit {
                    Self::insert_audit(&mut tx, scope, audit).await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn endpoint_keys(&self, endpoint_id: &str) -> Result<Vec<EndpointKeyRecord>> {
                sqlx::query::<$db>(
                    "SELECT * FROM endpoint_keys WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC",
                )
                .bind(endpoint_id)
                .fetch_all(&self.read)
                .await?
                .iter()
                .map(rows::endpoint_key)
                .collect()
            }

            async fn rotate_endpoint_key(
                &self,
                scope: &Scope,
                endpoint_id: &str,
                key: &EndpointKeyRecord,
                retire_at: Timestamp,
                audit: &AuditEntry,
            ) -> Result<Vec<EndpointKeyRecord>> {
                let mut tx = self.write.begin().await?;
                let now = key.created_at.millis();
                let done = sqlx::query::<$db>(
                    "UPDATE endpoints SET signature_scheme = $4, updated_at = $5 \
                     WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND deleted_at IS NULL",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(endpoint_id)
                .bind(key.scheme.as_str())
                .bind(now)
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::NotFound);
                }
                sqlx::query::<$db>(
                    "UPDATE endpoint_keys SET retires_at = $2 \
                     WHERE endpoint_id = $1 AND (retires_at IS NULL OR retires_at > $2)",
                )
                .bind(endpoint_id)
                .bind(retire_at.millis())
                .execute(&mut *tx)
                .await?;
                sqlx::query::<$db>(
                    "INSERT INTO endpoint_keys (id, endpoint_id, scheme, public_key, sealed_secret, created_at, \
                     retires_at) VALUES ($1, $2, $3, $4, $5, $6, NULL)",
                )
                .bind(&key.id)
                .bind(endpoint_id)
                .bind(key.scheme.as_str())
                .bind(&key.public_key)
                .bind(&key.sealed_secret)
                .bind(now)
                .execute(&mut *tx)
                .await?;
                Self::insert_audit(&mut tx, scope, audit).await?;
                tx.commit().await?;
                self.endpoint_keys(endpoint_id).await
            }

            async fn change_endpoint_state(
                &self,
                scope: &Scope,
                endpoint_id: &str,
                change: &relay_core::lifecycle::Change,
                audit: &AuditEntry,
            ) -> Result<Endpoint> {
                let mut tx = self.write.begin().await?;
                let found: Option<String> = sqlx::query_scalar::<$db, String>(
                    "SELECT id FROM endpoints WHERE tenant_id = $1 AND environment = $2 AND id = $3 \
                     AND deleted_at IS NULL",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(endpoint_id)
                .fetch_optional(&mut *tx)
                .await?;
                if found.is_none() {
                    return Err(StoreError::NotFound);
                }
                // Conditional: only while the endpoint is still in the state
                // the change was decided from.
                if !$crate::lifecycle::apply(&mut *tx, endpoint_id, change, audit.at).await? {
                    return Err(StoreError::Conflict("endpoint_state_changed"));
                }
                let mut audit = audit.clone();
                if let Some(p) = audit.parameters.as_object_mut() {
                    p.insert("from".into(), change.from.as_str().into());
                    p.insert("to".into(), change.to.as_str().into());
                }
                Self::insert_audit(&mut tx, scope, &audit).await?;
                let row = sqlx::query::<$db>("SELECT * FROM endpoints WHERE id = $1")
                    .bind(endpoint_id)
                    .fetch_one(&mut *tx)
                    .await?;
                let endpoint = rows::endpoint(&row)?;
                tx.commit().await?;
                Ok(endpoint)
            }

            async fn cancel_message(
                &self,
                scope: &Scope,
                message_id: &str,
                now: Timestamp,
                audit: Option<&AuditEntry>,
            ) -> Result<Message> {
                let mut tx = self.write.begin().await?;
                let done = sqlx::query::<$db>(AssertSqlSafe(format!(
                    "UPDATE messages SET state = 'cancelled', terminal_reason = '{}', next_attempt_at = NULL, \
                     lease_owner = NULL, lease_until = NULL, lease_version = lease_version + 1, updated_at = $4 \
                     WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND state IN {}",
                    relay_core::transition::REASON_CANCELLED,
                    $crate::backend::LIVE_STATES_SQL
                )))
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(message_id)
                .bind(now.millis())
                .execute(&mut *tx)
                .await?;
                let row = sqlx::query::<$db>(
                    "SELECT * FROM messages WHERE tenant_id = $1 AND environment = $2 AND id = $3",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(message_id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(row) = row else {
                    return Err(StoreError::NotFound);
                };
                if done.rows_affected() == 0 {
                    return Err(StoreError::Conflict("message_not_pending"));
                }
                if let Some(audit) = audit {
                    Self::insert_audit(&mut tx, scope, audit).await?;
                }
                tx.commit().await?;
                rows::message(&row)
            }

            async fn recover(
                &self,
                scope: &Scope,
                endpoint_id: &str,
                since: Timestamp,
                until: Timestamp,
                audit: &AuditEntry,
            ) -> Result<u64> {
                let now = audit.at.millis();
                let mut tx = self.write.begin().await?;
                let state: Option<String> = sqlx::query_scalar::<$db, String>(
                    "SELECT state FROM endpoints WHERE tenant_id = $1 AND environment = $2 AND id = $3 \
                     AND deleted_at IS NULL",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(endpoint_id)
                .fetch_optional(&mut *tx)
                .await?;
                match state.as_deref() {
                    None => return Err(StoreError::NotFound),
                    Some("active") => {}
                    Some(_) => return Err(StoreError::Conflict("endpoint_not_active")),
                }
                // Failed (terminal, not delivered, not expired) and unattempted
                // (held) messages restart their schedule now.
                let states: Vec<String> = relay_core::transition::RESTARTABLE
                    .iter()
                    .map(|s| format!("'{}'", s.as_str()))
                    .chain(std::iter::once("'held'".to_string()))
                    .collect();
                let done = sqlx::query::<$db>(AssertSqlSafe(format!(
                    "UPDATE messages SET state = 'scheduled', attempts_used = 0, deferrals_used = 0, priority = 1, \
                     next_attempt_at = $4, terminal_reason = NULL, lease_owner = NULL, lease_until = NULL, \
                     lease_version = lease_version + 1, updated_at = $4 \
                     WHERE endpoint_id = $1 AND created_at >= $2 AND created_at < $3 AND state IN ({})",
                    states.join(", ")
                )))
                .bind(endpoint_id)
                .bind(since.millis())
                .bind(until.millis())
                .bind(now)
                .execute(&mut *tx)
                .await?;
                Self::insert_audit(&mut tx, scope, audit).await?;
                tx.commit().await?;
                Ok(done.rows_affected())
            }

            async fn replay(
                &self,
                scope: &Scope,
                endpoint_id: &str,
                since: Timestamp,
                until: Timestamp,
                event_types: Option<&[String]>,
                audit: &AuditEntry,
            ) -> Result<u64> {
                let env = scope.environment.as_str();
                let mut tx = self.write.begin().await?;
                let Some(row) = sqlx::query::<$db>(
                    "SELECT * FROM endpoints WHERE tenant_id = $1 AND environment = $2 AND id = $3 \
                     AND deleted_at IS NULL",
                )
                .bind(&scope.tenant_id)
                .bind(env)
                .bind(endpoint_id)
                .fetch_optional(&mut *tx)
                .await?
                else {
                    return Err(StoreError::NotFound);
                };
                let endpoint = rows::endpoint(&row)?;
                let all_types = endpoint.event_types.iter().any(|t| t == "*");
                let wanted: Vec<String> = match event_types {
                    Some(types) => types
                        .iter()
                        .filter(|t| all_types || endpoint.event_types.contains(t))
                        .cloned()
                        .collect(),
                    None if all_types => Vec::new(),
                    None => endpoint.event_types.clone(),
                };
                if wanted.is_empty() && !(all_types && event_types.is_none()) {
                    Self::insert_audit(&mut tx, scope, audit).await?;
                    tx.commit().await?;
                    return Ok(0);
                }
                let mut q = SqlBuilder::new(
                    "SELECT e.id, e.event_type, e.expires_at FROM events e WHERE e.tenant_id = ",
                );
                q.bind(Bind::Text(scope.tenant_id.clone()))
                    .push(" AND e.environment = ")
                    .bind(Bind::Text(env.into()))
                    .push(" AND e.created_at >= ")
                    .bind(Bind::Int(since.millis()))
                    .push(" AND e.created_at < ")
                    .bind(Bind::Int(until.millis()))
                    .push(" AND (e.consumer_id IS NULL OR e.consumer_id = ")
                    .bind(Bind::Text(endpoint.consumer_id.clone()))
                    .push(") AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.endpoint_id = ")
                    .bind(Bind::Text(endpoint_id.into()))
                    .push(" AND m.event_id = e.id)");
                if !wanted.is_empty() {
                    q.push(" AND e.event_type IN ('-'");
                    for t in &wanted {
                        q.push(", ").bind(Bind::Text(t.clone()));
                    }
                    q.push(")");
                }
                q.push(" ORDER BY e.created_at, e.id");
                let events = $crate::txn::built::<$db>(&q).fetch_all(&mut *tx).await?;
                let initial = endpoint.state.initial_message_state();
                let now = audit.at;
                let next = (initial == MessageState::Scheduled).then_some(now.millis());
                let mut created = 0u64;
                for e in &events {
                    let done = sqlx::query::<$db>(
                        "INSERT INTO messages (id, tenant_id, environment, event_id, endpoint_id, event_type, state, \
                         next_attempt_at, priority, created_at, updated_at, expires_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, $9, $9, $10) \
                         ON CONFLICT (endpoint_id, event_id) DO NOTHING",
                    )
                    .bind($crate::new_id(relay_core::id::IdKind::Message, now))
                    .bind(&scope.tenant_id)
                    .bind(env)
                    .bind(e.text("id")?)
                    .bind(endpoint_id)
                    .bind(e.text("event_type")?)
                    .bind(initial.as_str())
                    .bind(next)
                    .bind(now.millis())
                    .bind(e.opt_ts("expires_at")?.map(Timestamp::millis))
                    .execute(&mut *tx)
                    .await?;
                    created += done.rows_affected();
                }
                Self::insert_audit(&mut tx, scope, audit).await?;
                if created > 0
                    && let Some(notify) = dialect::WAKE_NOTIFY
                {
                    sqlx::query::<$db>(notify).execute(&mut *tx).await?;
                }
                tx.commit().await?;
                Ok(created)
            }

            async fn purge_latency_before(&self, cutoff: Timestamp) -> Result<u64> {
                Ok(sqlx::query::<$db>("DELETE FROM endpoint_latency WHERE hour < $1")
                    .bind(cutoff.millis().div_euclid($crate::backend::HOUR_MILLIS))
                    .execute(&self.write)
                    .await?
                    .rows_affected())
            }

            async fn purge_before(&self, cutoff: Timestamp, batch: u32) -> Result<u64> {
                let mut tx = self.write.begin().await?;
                // Only events none of whose messages is still live: a
                // scheduled, held or in-flight message (or one under a
                // lease, such as a manual resend's) keeps its event, however
                // old, until it ends.
                let old = sqlx::query::<$db>(AssertSqlSafe(format!(
                    "SELECT tenant_id, environment, id FROM events ev WHERE created_at < $1 \
                     AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.tenant_id = ev.tenant_id \
                     AND m.environment = ev.environment AND m.event_id = ev.id \
                     AND (m.state IN {live} OR m.lease_owner IS NOT NULL)) \
                     ORDER BY created_at LIMIT $2",
                    live = $crate::backend::LIVE_STATES_SQL
                )))
                .bind(cutoff.millis())
                .bind(i64::from(batch))
                .fetch_all(&mut *tx)
                .await?;
                let mut purged = 0u64;
                for e in &old {
                    let (tenant, env, id) = (e.text("tenant_id")?, e.text("environment")?, e.text("id")?);
                    // Lock the event's messages and look again: on PostgreSQL a
                    // claim, recover or bulk retry may have made one live since
                    // the read above (SQLite has one writer). Whatever changes
                    // them now waits for this transaction, and then finds them gone.
                    let messages = sqlx::query::<$db>(AssertSqlSafe(format!(
                        "SELECT state, lease_owner FROM messages \
                         WHERE tenant_id = $1 AND environment = $2 AND event_id = $3{}",
                        dialect::FOR_UPDATE
                    )))
                    .bind(&tenant)
                    .bind(&env)
                    .bind(&id)
                    .fetch_all(&mut *tx)
                    .await?;
                    let mut live = false;
                    for m in &messages {
                        let state = MessageState::parse(&m.text("state")?);
                        live |= m.opt_text("lease_owner")?.is_some()
                            || state.is_none_or(|s| !s.is_terminal());
                    }
                    if live {
                        continue;
                    }
                    sqlx::query::<$db>(
                        "DELETE FROM attempts WHERE message_id IN (SELECT id FROM messages \
                         WHERE tenant_id = $1 AND environment = $2 AND event_id = $3)",
                    )
                    .bind(&tenant)
                    .bind(&env)
                    .bind(&id)
                    .execute(&mut *tx)
                    .await?;
                    sqlx::query::<$db>(
                        "DELETE FROM messages WHERE tenant_id = $1 AND environment = $2 AND event_id = $3",
                    )
                    .bind(&tenant)
                    .bind(&env)
                    .bind(&id)
                    .execute(&mut *tx)
                    .await?;
                    sqlx::query::<$db>("DELETE FROM events WHERE tenant_id = $1 AND environment = $2 AND id = $3")
                        .bind(&tenant)
                        .bind(&env)
                        .bind(&id)
                        .execute(&mut *tx)
                        .await?;
                    purged += 1;
                }
                tx.commit().await?;
                Ok(purged)
            }

            async fn expire_due(&self, now: Timestamp, batch: u32) -> Result<u64> {
                // The terminal state and reason are relay-core's
                // (`transition::apply` of `ttl_expired` to a waiting message).
                let done = sqlx::query::<$db>(AssertSqlSafe(format!(
                    "UPDATE messages SET state = '{expired}', terminal_reason = '{reason}', next_attempt_at = NULL, \
                     lease_owner = NULL, lease_until = NULL, lease_version = lease_version + 1, updated_at = $1 \
                     WHERE id IN (SELECT id FROM messages WHERE expires_at <= $1 AND expires_at IS NOT NULL \
                       AND state IN {waiting} AND (lease_until IS NULL OR lease_until < $1) \
                       ORDER BY expires_at LIMIT $2{skip}) \
                     AND state IN {waiting}",
                    expired = MessageState::Expired.as_str(),
                    reason = relay_core::transition::REASON_EXPIRED,
                    waiting = $crate::backend::WAITING_STATES_SQL,
                    skip = dialect::SKIP_LOCKED,
                )))
                .bind(now.millis())
                .bind(i64::from(batch))
                .execute(&self.write)
                .await?;
                Ok(done.rows_affected())
            }

            async fn due_backlog(
                &self,
                endpoint_id: &str,
                now: Timestamp,
                after: Option<(Timestamp, String)>,
                limit: u32,
            ) -> Result<Option<$crate::Backlog>> {
                let Some(row) = sqlx::query::<$db>("SELECT * FROM endpoints WHERE id = $1 AND deleted_at IS NULL")
                    .bind(endpoint_id)
                    .fetch_optional(&self.read)
                    .await?
                else {
                    return Ok(None);
                };
                let endpoint = rows::endpoint(&row)?;
                let (after_due, after_id) = after
                    .map(|(t, id)| (t.millis(), id))
                    .unwrap_or((i64::MIN, String::new()));
                // `messages_live_due` (endpoint_id, next_attempt_at).
                let found = sqlx::query::<$db>(
                    "SELECT id, created_at, expires_at, attempts_used, next_attempt_at FROM messages \
                     WHERE endpoint_id = $1 AND state = 'scheduled' AND priority = 0 AND next_attempt_at <= $2 \
                     AND (lease_until IS NULL OR lease_until < $2) \
                     AND (next_attempt_at > $3 OR (next_attempt_at = $3 AND id > $4)) \
                     ORDER BY next_attempt_at, id LIMIT $5",
                )
                .bind(endpoint_id)
                .bind(now.millis())
                .bind(after_due)
                .bind(after_id)
                .bind(i64::from(limit))
                .fetch_all(&self.read)
                .await?;
                let messages = found
                    .iter()
                    .map(|r| {
                        Ok($crate::Waiting {
                            id: r.text("id")?,
                            created_at: r.ts("created_at")?,
                            expires_at: r.opt_ts("expires_at")?,
                            attempts_used: r.int("attempts_used")?,
                            next_attempt_at: r.ts("next_attempt_at")?,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(Some($crate::Backlog { endpoint, messages }))
            }

            async fn end_window_exceeded(&self, ids: &[String], now: Timestamp) -> Result<u64> {
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
                        q.push(", ").bind(Bind::Text(id.clone()));
                    }
                    q.push(")");
                    ended += $crate::txn::built::<$db>(&q).execute(&self.write).await?.rows_affected();
                }
                Ok(ended)
            }

            async fn create_job(&self, scope: &Scope, job: &Job, audit: &AuditEntry) -> Result<()> {
                let mut tx = self.write.begin().await?;
                sqlx::query::<$db>(
                    "INSERT INTO jobs (id, tenant_id, environment, kind, parameters, state, processed, affected, \
                     created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 'queued', 0, 0, $6, $6)",
                )
                .bind(&job.id)
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(&job.kind)
                .bind(json_text(&job.parameters))
                .bind(job.created_at.millis())
                .execute(&mut *tx)
                .await?;
                Self::insert_audit(&mut tx, scope, audit).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn get_job(&self, scope: &Scope, id: &str) -> Result<Option<Job>> {
                sqlx::query::<$db>("SELECT * FROM jobs WHERE tenant_id = $1 AND environment = $2 AND id = $3")
                    .bind(&scope.tenant_id)
                    .bind(scope.environment.as_str())
                    .bind(id)
                    .fetch_optional(&self.read)
                    .await?
                    .map(|r| rows::job(&r))
                    .transpose()
            }

            async fn lease_job(&self, owner: &str, now: Timestamp, lease_until: Timestamp) -> Result<Option<LeasedJob>> {
                let mut tx = self.write.begin().await?;
                let id: Option<String> = sqlx::query_scalar::<$db, String>(AssertSqlSafe(format!(
                    "SELECT id FROM jobs WHERE state IN ('queued', 'running') \
                     AND (lease_until IS NULL OR lease_until < $1) ORDER BY created_at LIMIT 1{}",
                    dialect::SKIP_LOCKED
                )))
                .bind(now.millis())
                .fetch_optional(&mut *tx)
                .await?;
                let Some(id) = id else {
                    tx.commit().await?;
                    return Ok(None);
                };
                sqlx::query::<$db>(
                    "UPDATE jobs SET state = 'running', lease_owner = $2, lease_until = $3, updated_at = $4 WHERE id = $1",
                )
                .bind(&id)
                .bind(owner)
                .bind(lease_until.millis())
                .bind(now.millis())
                .execute(&mut *tx)
                .await?;
                let row = sqlx::query::<$db>("SELECT * FROM jobs WHERE id = $1")
                    .bind(&id)
                    .fetch_one(&mut *tx)
                    .await?;
                let leased = LeasedJob {
                    job: rows::job(&row)?,
                    scope: Scope {
                        tenant_id: row.text("tenant_id")?,
                        environment: row.environment("environment")?,
                    },
                    cursor: row.opt_text("cursor")?,
                };
                tx.commit().await?;
                Ok(Some(leased))
            }

            async fn advance_bulk_retry(
                &self,
                job: &LeasedJob,
                filter: &MessageFilter,
                owner: &str,
                batch: u32,
                now: Timestamp,
                lease_until: Timestamp,
            ) -> Result<Job> {
                let (job, filter, owner) = (job.clone(), filter.clone(), owner.to_string());
                self.txns.run($crate::txn::Commit::Durable, move |x| {
                    Box::pin(async move {
                        $crate::txn::advance_bulk_retry(x, &job, &filter, &owner, batch, now, lease_until).await
                    })
                })
                .await
            }

            async fn publish_to_endpoint(
                &self,
                scope: &Scope,
                endpoint_id: &str,
                ev: NewEvent,
                owner: &str,
                lease_until: Timestamp,
            ) -> Result<Claimed> {
                let env = scope.environment.as_str();
                let now = ev.now.millis();
                let mut tx = self.write.begin().await?;
                let exists = sqlx::query_scalar::<$db, String>(
                    "SELECT id FROM endpoints WHERE tenant_id = $1 AND environment = $2 AND id = $3 \
                     AND deleted_at IS NULL",
                )
                .bind(&scope.tenant_id)
                .bind(env)
                .bind(endpoint_id)
                .fetch_optional(&mut *tx)
                .await?;
                if exists.is_none() {
                    return Err(StoreError::NotFound);
                }
                sqlx::query::<$db>(
                    "INSERT INTO events (tenant_id, environment, id, event_type, type_version, subject, data, \
                     consumer_id, ordering_key, seq, traceparent, expires_at, created_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULL, $10, $11, $12)",
                )
                .bind(&scope.tenant_id)
                .bind(env)
                .bind(&ev.id)
                .bind(&ev.event_type)
                .bind(ev.type_version)
                .bind(&ev.subject)
                .bind(ev.data.get())
                .bind(&ev.consumer_id)
                .bind(&ev.ordering_key)
                .bind(&ev.traceparent)
                .bind(ev.expires_at.map(Timestamp::millis))
                .bind(now)
                .execute(&mut *tx)
                .await
                .map_err(|e| unique_as_conflict(e, "event_id"))?;
                let message_id = $crate::new_id(relay_core::id::IdKind::Message, ev.now);
                sqlx::query::<$db>(
                    "INSERT INTO messages (id, tenant_id, environment, event_id, endpoint_id, event_type, state, \
                     next_attempt_at, lease_owner, lease_until, lease_version, created_at, updated_at, expires_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, 'scheduled', $7, $8, $9, 1, $7, $7, $10)",
                )
                .bind(&message_id)
                .bind(&scope.tenant_id)
                .bind(env)
                .bind(&ev.id)
                .bind(endpoint_id)
                .bind(&ev.event_type)
                .bind(now)
                .bind(owner)
                .bind(lease_until.millis())
                .bind(ev.expires_at.map(Timestamp::millis))
                .execute(&mut *tx)
                .await?;
                let mut claimed = $crate::txn::load_claimed(&mut *tx, &[message_id]).await?;
                tx.commit().await?;
                claimed.pop().ok_or(StoreError::NotFound)
            }

            async fn lease_for_manual_attempt(
                &self,
                scope: &Scope,
                message_id: &str,
                owner: &str,
                now: Timestamp,
                lease_until: Timestamp,
            ) -> Result<Option<Claimed>> {
                let mut tx = self.write.begin().await?;
                let found = sqlx::query::<$db>(
                    "SELECT e.deleted_at AS endpoint_deleted_at, v.expires_at FROM messages m \
                     JOIN endpoints e ON e.id = m.endpoint_id \
                     JOIN events v ON v.tenant_id = m.tenant_id AND v.environment = m.environment \
                     AND v.id = m.event_id \
                     WHERE m.tenant_id = $1 AND m.environment = $2 AND m.id = $3",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(message_id)
                .fetch_optional(&mut *tx)
                .await?;
                let Some(found) = found else {
                    return Err(StoreError::NotFound);
                };
                // Nothing to attempt, and no lease taken: the endpoint is
                // gone, or the event's time to live has passed.
                if found.opt_int("endpoint_deleted_at")?.is_some() {
                    return Err(StoreError::Conflict("endpoint_deleted"));
                }
                if found.opt_ts("expires_at")?.is_some_and(|t| t <= now) {
                    return Err(StoreError::Conflict("event_expired"));
                }
                // At most one attempt at a time: not while one is in flight or leased.
                let leased = sqlx::query::<$db>(
                    "UPDATE messages SET lease_owner = $2, lease_until = $3, lease_version = lease_version + 1 \
                     WHERE id = $1 AND state <> 'in_flight' AND (lease_until IS NULL OR lease_until < $4)",
                )
                .bind(message_id)
                .bind(owner)
                .bind(lease_until.millis())
                .bind(now.millis())
                .execute(&mut *tx)
                .await?;
                if leased.rows_affected() == 0 {
                    tx.commit().await?;
                    return Ok(None);
                }
                let mut claimed = $crate::txn::load_claimed(&mut *tx, &[message_id.to_string()]).await?;
                tx.commit().await?;
                Ok(claimed.pop())
            }

            async fn list_audit(&self, scope: &Scope, page: &PageRequest) -> Result<Page<AuditEntry>> {
                self.list_scoped("audit_log", scope, page, |_| {}, rows::audit_entry, |a| &a.id)
                    .await
            }

            async fn health_facts(&self, endpoint_id: &str, now: Timestamp) -> Result<HealthFacts> {
                let counts = |since: Timestamp| {
                    sqlx::query::<$db>(
                        "SELECT COUNT(*) AS total, \
                         COALESCE(SUM(CASE WHEN outcome = 'delivered' THEN 1 ELSE 0 END), 0) AS delivered \
                         FROM attempts WHERE endpoint_id = $1 AND started_at >= $2",
                    )
                    .bind(endpoint_id.to_string())
                    .bind(since.millis())
                };
                let hour = counts(now.plus_seconds(-3600)).fetch_one(&self.read).await?;
                let day = counts(now.plus_seconds(-86_400)).fetch_one(&self.read).await?;
                let mut latency = relay_core::histogram::Histogram::default();
                let since_hour = now.plus_seconds(-86_400).millis().div_euclid($crate::backend::HOUR_MILLIS);
                for r in sqlx::query::<$db>(
                    "SELECT bucket, CAST(SUM(count) AS BIGINT) AS n, MAX(max_ms) AS max_ms FROM endpoint_latency \
                     WHERE endpoint_id = $1 AND hour >= $2 GROUP BY bucket",
                )
                .bind(endpoint_id)
                .bind(since_hour)
                .fetch_all(&self.read)
                .await?
                {
                    let bucket = usize::try_from(r.int("bucket")?).unwrap_or(usize::MAX);
                    latency.add(bucket, u64::try_from(r.int("n")?).unwrap_or(0));
                    latency.max_ms = latency.max_ms.max(r.int("max_ms")?);
                }
                let last_success: Option<i64> = sqlx::query_scalar::<$db, Option<i64>>(
                    "SELECT MAX(started_at) FROM attempts WHERE endpoint_id = $1 AND outcome = 'delivered'",
                )
                .bind(endpoint_id)
                .fetch_one(&self.read)
                .await?;
                let backlog = sqlx::query::<$db>(
                    "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM messages \
                     WHERE endpoint_id = $1 AND state IN ('scheduled', 'in_flight', 'held')",
                )
                .bind(endpoint_id)
                .fetch_one(&self.read)
                .await?;
                let recent_errors = sqlx::query::<$db>(
                    "SELECT * FROM attempts WHERE endpoint_id = $1 AND outcome <> 'delivered' \
                     ORDER BY started_at DESC, id DESC LIMIT 20",
                )
                .bind(endpoint_id)
                .fetch_all(&self.read)
                .await?
                .iter()
                .map(rows::attempt)
                .collect::<Result<Vec<_>>>()?;
                Ok(HealthFacts {
                    last_hour: (hour.int("total")?, hour.int("delivered")?),
                    last_day: (day.int("total")?, day.int("delivered")?),
                    latency,
                    last_success_at: last_success.map(Timestamp),
                    backlog: backlog.int("n")?,
                    oldest_pending_at: backlog.opt_ts("oldest")?,
                    recent_errors,
                })
            }

            async fn endpoint_warnings(&self, endpoint_id: &str, limit: u32) -> Result<Vec<EndpointWarning>> {
                sqlx::query::<$db>(
                    "SELECT * FROM endpoint_warnings WHERE endpoint_id = $1 ORDER BY at DESC LIMIT $2",
                )
                .bind(endpoint_id)
                .bind(i64::from(limit))
                .fetch_all(&self.read)
                .await?
                .iter()
                .map(rows::endpoint_warning)
                .collect()
            }

            async fn get_endpoint(&self, scope: &Scope, id: &str) -> Result<Option<Endpoint>> {
                self.scoped_row(
                    "SELECT * FROM endpoints WHERE tenant_id = $1 AND environment = $2 AND id = $3 \
                     AND deleted_at IS NULL",
                    scope,
                    id,
                )
                .await?
                .map(|r| rows::endpoint(&r))
                .transpose()
            }

            async fn list_endpoints(
                &self,
                scope: &Scope,
                consumer_id: Option<&str>,
                page: &PageRequest,
            ) -> Result<Page<Endpoint>> {
                let mut q = SqlBuilder::new("SELECT * FROM endpoints WHERE deleted_at IS NULL AND tenant_id = ");
                q.bind(Bind::Text(scope.tenant_id.clone()))
                    .push(" AND environment = ")
                    .bind(Bind::Text(scope.environment.as_str().into()));
                if let Some(c) = consumer_id {
                    q.push(" AND consumer_id = ").bind(Bind::Text(c.into()));
                }
                q.paginate("id", page);
                let items = self
                    .fetch_built(&q)
                    .await?
                    .iter()
                    .map(rows::endpoint)
                    .collect::<Result<Vec<_>>>()?;
                Ok(to_page(items, page.limit, |e| &e.id))
            }

            async fn update_endpoint(
                &self,
                scope: &Scope,
                e: &Endpoint,
                audit: Option<&AuditEntry>,
            ) -> Result<()> {
                let mut tx = self.write.begin().await?;
                let update = sqlx::query::<$db>(
                    "UPDATE endpoints SET description = $4, kind = $5, destination_json = $6, event_types_json = $7, \
                     signature_scheme = $8, retry_schedule_json = $9, max_concurrency = $10, \
                     rate_limit_per_second = $11, snapshot_fields_json = $12, version = $13, state = $14, \
                     disabled_reason = $15, auto_disable = $16, updated_at = $17 \
                     WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND deleted_at IS NULL",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(&e.id);
                let update = Self::bind_endpoint_fields(update, e);
                let done = update
                .bind(e.updated_at.millis())
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::NotFound);
                }
                sqlx::query::<$db>("DELETE FROM endpoint_subscriptions WHERE endpoint_id = $1")
                    .bind(&e.id)
                    .execute(&mut *tx)
                    .await?;
                Self::insert_subscriptions(&mut tx, scope, e).await?;
                if let Some(audit) = audit {
                    Self::insert_audit(&mut tx, scope, audit).await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn delete_endpoint(
                &self,
                scope: &Scope,
                id: &str,
                now: Timestamp,
                audit: Option<&AuditEntry>,
            ) -> Result<()> {
                let mut tx = self.write.begin().await?;
                let done = sqlx::query::<$db>(
                    "UPDATE endpoints SET deleted_at = $4, updated_at = $4 \
                     WHERE tenant_id = $1 AND environment = $2 AND id = $3 AND deleted_at IS NULL",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(id)
                .bind(now.millis())
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() == 0 {
                    return Err(StoreError::NotFound);
                }
                sqlx::query::<$db>("DELETE FROM endpoint_subscriptions WHERE endpoint_id = $1")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                // Bumping lease_version makes any in-flight completion a no-op.
                sqlx::query::<$db>(AssertSqlSafe(format!(
                    "UPDATE messages SET state = 'dead_lettered', terminal_reason = 'endpoint_removed', \
                     next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL, \
                     lease_version = lease_version + 1, updated_at = $2 \
                     WHERE endpoint_id = $1 AND state IN {}",
                    $crate::backend::LIVE_STATES_SQL
                )))
                .bind(id)
                .bind(now.millis())
                .execute(&mut *tx)
                .await?;
                if let Some(audit) = audit {
                    Self::insert_audit(&mut tx, scope, audit).await?;
                }
                tx.commit().await?;
                Ok(())
            }

            fn set_intake(&self, intake: Option<std::sync::Arc<dyn $crate::Intake>>) {
                if let Ok(mut slot) = self.intake.write() {
                    *slot = intake;
                }
            }

            async fn publish(&self, scope: &Scope, event: NewEvent) -> Result<PublishOutcome> {
                let (reply, answer) = tokio::sync::oneshot::channel();
                self.publishes
                    .push($crate::group::PublishJob { scope: scope.clone(), event, reply });
                answer
                    .await
                    .map_err(|_| StoreError::Unavailable("the publish committer has stopped"))?
            }

            async fn get_event(&self, scope: &Scope, id: &str) -> Result<Option<Event>> {
                self.scoped_row(
                    "SELECT * FROM events WHERE tenant_id = $1 AND environment = $2 AND id = $3",
                    scope,
                    id,
                )
                .await?
                .map(|r| rows::event(&r))
                .transpose()
            }

            async fn get_message(&self, scope: &Scope, id: &str) -> Result<Option<Message>> {
                self.scoped_row(
                    "SELECT * FROM messages WHERE tenant_id = $1 AND environment = $2 AND id = $3",
                    scope,
                    id,
                )
                .await?
                .map(|r| rows::message(&r))
                .transpose()
            }

            async fn list_messages(
                &self,
                scope: &Scope,
                f: &MessageFilter,
                page: &PageRequest,
            ) -> Result<Page<Message>> {
                self.list_scoped(
                    "messages",
                    scope,
                    page,
                    |q| push_message_filter(q, f),
                    rows::message,
                    |m| &m.id,
                )
                .await
            }

            async fn list_attempts(&self, scope: &Scope, message_id: &str) -> Result<Vec<Attempt>> {
                sqlx::query::<$db>(
                    "SELECT * FROM attempts WHERE tenant_id = $1 AND environment = $2 AND message_id = $3 \
                     ORDER BY number, id",
                )
                .bind(&scope.tenant_id)
                .bind(scope.environment.as_str())
                .bind(message_id)
                .fetch_all(&self.read)
                .await?
                .iter()
                .map(rows::attempt)
                .collect()
            }

            async fn claim(&self, req: &ClaimRequest<'_>) -> Result<ClaimBatch> {
                let owner = req.owner.to_string();
                let room = req.room.to_vec();
                let after = req.recovery_after.map(str::to_string);
                let (now, lease_until, limit, recovery_limit) = (req.now, req.lease_until, req.limit, req.recovery_limit);
                self.txns.run($crate::txn::Commit::Lease, move |x| {
                    Box::pin(async move {
                        let req = ClaimRequest {
                            owner: &owner,
                            now,
                            lease_until,
                            limit,
                            recovery_limit,
                            room: &room,
                            recovery_after: after.as_deref(),
                        };
                        $crate::txn::claim(x, &req).await
                    })
                })
                .await
            }

            async fn complete(&self, batch: &[Completion]) -> Result<$crate::Completed> {
                let batch = batch.to_vec();
                self.txns.run($crate::txn::Commit::Durable, move |x| {
                    Box::pin(async move { $crate::txn::complete(x, &batch).await })
                })
                .await
            }

            async fn rescue_expired_leases(&self, now: Timestamp) -> Result<u64> {
                Ok(sqlx::query::<$db>(
AssertSqlSafe(format!(
                    "UPDATE messages SET state = {}, lease_owner = NULL, lease_until = NULL, \
                     lease_version = lease_version + 1, next_attempt_at = $1, updated_at = $1 \
                     WHERE state = 'in_flight' AND lease_until < $1",
                    $crate::lifecycle::SETTLED_STATE_SQL
                )))
                .bind(now.millis())
                .execute(&self.write)
                .await?
                .rows_affected())
            }

            async fn release_claims(&self, owner: &str, ids: &[String], now: Timestamp) -> Result<u64> {
                if ids.is_empty() {
                    return Ok(0);
                }
                let mut q = SqlBuilder::new(&format!(
                    "UPDATE messages SET state = {}, lease_owner = NULL, lease_until = NULL, \
                     lease_version = lease_version + 1, updated_at = ",
                    $crate::lifecycle::SETTLED_STATE_SQL
                ));
                q.bind(Bind::Int(now.millis()))
                    .push(" WHERE state = 'in_flight' AND lease_owner = ")
                    .bind(Bind::Text(owner.into()))
                    .push(" AND id IN ('-'");
                for id in ids {
                    q.push(", ").bind(Bind::Text(id.clone()));
                }
                q.push(")");
                Ok($crate::txn::built::<$db>(&q).execute(&self.write).await?.rows_affected())
            }

            async fn release_leases(&self, owner: &str, now: Timestamp) -> Result<u64> {
                Ok(sqlx::query::<$db>(
AssertSqlSafe(format!(
                    "UPDATE messages SET state = {}, lease_owner = NULL, lease_until = NULL, \
                     lease_version = lease_version + 1, updated_at = $2 \
                     WHERE state = 'in_flight' AND lease_owner = $1",
                    $crate::lifecycle::SETTLED_STATE_SQL
                )))
                .bind(owner)
                .bind(now.millis())
                .execute(&self.write)
                .await?
                .rows_affected())
            }

            async fn next_due_at(&self) -> Result<Option<Timestamp>> {
                let mut conn = self.read.acquire().await?;
                $crate::txn::next_due(&mut *conn).await
            }

            async fn recovery_due(&self, tenant_id: &str, now: Timestamp) -> Result<u64> {
                let n: i64 = sqlx::query_scalar::<$db, i64>(
                    "SELECT COUNT(*) FROM messages WHERE state = 'scheduled' AND priority = 1 \
                     AND tenant_id = $1 AND next_attempt_at <= $2",
                )
                .bind(tenant_id)
                .bind(now.millis())
                .fetch_one(&self.read)
                .await?;
                Ok(n.max(0) as u64)
            }

            async fn listen_for_wakeups(
                &self,
                notify: std::sync::Arc<tokio::sync::Notify>,
                endpoints: tokio::sync::mpsc::UnboundedSender<$crate::EndpointNotice>,
                stop: tokio::sync::watch::Receiver<bool>,
            ) -> Result<()> {
                dialect::listen_for_wakeups(&self.write, notify, endpoints, stop).await.map(drop)
            }
        }
    };
}

pub(crate) use impl_store;

#[cfg(test)]
mod tests {
    use super::{Bind, SqlBuilder};

    #[test]
    fn rows_as_arrays_have_one_text_for_every_batch_size() {
        let rows = |n: usize| {
            (0..n)
                .map(|i| {
                    vec![
                        Bind::Text(format!("m{i}")),
                        Bind::OptText((i % 2 == 0).then(|| "x".to_string())),
                        Bind::Int(i as i64),
                        Bind::OptInt(None),
                    ]
                })
                .collect::<Vec<_>>()
        };
        let text = |n: usize| {
            let mut q = SqlBuilder::new("WITH v (a, b, c, d) AS (");
            q.rows(rows(n), 100, true).push(")");
            q
        };
        let q = text(3);
        assert_eq!(
            q.sql,
            "WITH v (a, b, c, d) AS (SELECT * FROM UNNEST($1::text[], $2::text[], \
             $3::bigint[], $4::bigint[]))"
        );
        for n in [1, 2, 7, 100, 150] {
            assert_eq!(text(n).sql, q.sql, "{n} rows");
        }
        // One array per column, the rows in order, NULLs kept.
        let [Bind::Texts(a), Bind::Texts(b), Bind::Ints(c), Bind::Ints(d)] = &q.binds[..] else {
            panic!("four arrays: {:?}", q.binds.len());
        };
        assert_eq!(
            a,
            &[Some("m0".into()), Some("m1".into()), Some("m2".into())]
        );
        assert_eq!(b, &[Some("x".into()), None, Some("x".into())]);
        assert_eq!(c, &[Some(0), Some(1), Some(2)]);
        assert_eq!(d, &[None, None, None]);
        // Without arrays (SQLite), the padded VALUES list.
        let mut q = SqlBuilder::new("WITH v (a, b, c, d) AS (");
        q.rows(rows(3), 100, false).push(")");
        assert!(
            q.sql
                .starts_with("WITH v (a, b, c, d) AS (VALUES ($1, $2, $3, $4), ")
        );
        assert_eq!(q.binds.len(), 16);
        // An empty batch has nothing to bind either way.
        let mut q = SqlBuilder::new("");
        q.rows(Vec::new(), 100, true);
        assert_eq!((q.sql.as_str(), q.binds.len()), ("VALUES ", 0));
    }

    /// A row whose value has another type than its column's first row is
    /// a caller's bug, stopped in debug builds (tests) instead of bound as
    /// NULL without a word.
    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a value of another type in an integer column")]
    fn a_row_of_another_type_stops_debug_builds() {
        let mut q = SqlBuilder::new("");
        q.rows(
            vec![vec![Bind::Int(1)], vec![Bind::Text("one".into())]],
            100,
            true,
        );
    }

    #[test]
    fn padded_lists_have_one_text_per_power_of_two() {
        let rows = |n: usize| {
            (0..n)
                .map(|i| vec![Bind::Text(format!("m{i}")), Bind::Int(i as i64)])
                .collect::<Vec<_>>()
        };
        // (rows, the most a statement takes, rows after padding)
        for (n, max, padded) in [
            (1, 100, 1),
            (2, 100, 2),
            (3, 100, 4),
            (5, 100, 8),
            (64, 100, 64),
            (65, 100, 100),
            (100, 100, 100),
            (129, 200, 200),
        ] {
            let mut q = SqlBuilder::new("VALUES ");
            q.values_padded(rows(n), max);
            assert_eq!(q.binds.len(), padded * 2, "{n} rows");
            assert_eq!(q.sql.matches('(').count(), padded, "{n} rows");
            // The padding is typed NULLs.
            assert!(matches!(
                q.binds.last(),
                Some(Bind::OptInt(None)) | Some(Bind::Int(_))
            ));
            if padded > n {
                assert!(matches!(q.binds[n * 2], Bind::OptText(None)));
                assert!(matches!(q.binds[n * 2 + 1], Bind::OptInt(None)));
            }
            let mut again = SqlBuilder::new("VALUES ");
            again.values_padded(rows(padded), max);
            assert_eq!(q.sql, again.sql, "one text for {n} and {padded} rows");
        }
        let mut q = SqlBuilder::new("VALUES ");
        q.values_padded(Vec::new(), 100);
        assert_eq!(q.sql, "VALUES ");
        // An IN list repeats its last value.
        let mut q = SqlBuilder::new("id IN (");
        q.bind_list_padded(["a", "b", "c"].map(|s| Bind::Text(s.into())));
        assert_eq!(q.sql, "id IN ($1, $2, $3, $4");
        assert!(matches!(&q.binds[3], Bind::Text(t) if t == "c"));
    }
}
