//! The hot-path transactions, written once over [`Exec`]: the publish batch,
//! the claim, the completion batch and a bulk retry's batch, with the writes
//! they share (messages, operational events, the failure clock).
//!
//! [`Exec`] runs one built statement on whatever holds the transaction. On
//! PostgreSQL that is the sqlx connection, and each statement is awaited. On
//! SQLite it is the `Writer` (`crate::sqlite`: its own rusqlite connection,
//! on a thread of its own), where every statement completes at once: the whole
//! transaction then runs as one call instead of one thread hop per statement.
//! So these functions await nothing but their [`Exec`]; `crate::sqlite`
//! checks that by polling each one exactly once.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::future::Future;

use relay_core::model::{EndpointState, Event, MessageState};
use relay_core::time::Timestamp;

use crate::backend::{
    Bind, COMPLETION_CHUNK, EVENT_CHUNK, FANOUT_CHUNK, HOUR_MILLIS, NewMessage, Room, SqlBuilder,
    applied_and, json_text,
};
use crate::rows::{self, RowExt};
use crate::{
    ClaimBatch, ClaimRequest, Claimed, Completion, Intake, IntakeEndpoint, NewEvent,
    PublishOutcome, Reserved, Result, Scope, StoreError,
};

/// How a transaction's commit must survive a power cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// On disk before the commit returns: publishes (before their `202`),
    /// completions (a delivery is recorded before it counts).
    Durable,
    /// Visible at once, on disk with the next durable commit (the log is
    /// written in order): claims. A claim lost in a power cut loses nothing,
    /// since the leases of a process that stopped expire and are rescued.
    Lease,
}

/// Runs built statements inside one open transaction, and names the
/// dialect's few differences the transactions below need.
pub trait Exec: Send {
    type Row: RowExt + Send;
    /// Candidates a claim looks at per message it may take.
    const CLAIM_CANDIDATES: i64;
    /// Appended to a claim's candidate scan.
    const SKIP_LOCKED: &'static str;
    /// Names the index of the recovery tenants' skip scan, where needed.
    const RECOVERY_INDEX: &'static str;
    /// Wakes other nodes' dispatchers when the transaction commits.
    const WAKE_NOTIFY: Option<&'static str>;
    /// Tells other nodes' dispatchers, when the transaction commits, that
    /// an endpoint's state changed (`$1`: `<state>:<endpoint id>`).
    const ENDPOINT_NOTIFY: Option<&'static str>;
    /// The live claim's dialect (see [`crate::backend::live_claim`]).
    const LIVE_CLAIM: &'static crate::backend::LiveClaimDialect;
    /// Batches bind a column as one array (see [`SqlBuilder::rows`]).
    const ARRAYS: bool;
    /// Appended to a read that must keep its rows from changing until the
    /// transaction ends (PostgreSQL: `FOR SHARE`; SQLite: one writer).
    const FOR_SHARE: &'static str;

    /// Runs `q`; returns the rows it changed.
    fn execute(&mut self, q: &SqlBuilder) -> impl Future<Output = Result<u64>> + Send;
    /// Runs `q`; returns its rows.
    fn fetch(&mut self, q: &SqlBuilder) -> impl Future<Output = Result<Vec<Self::Row>>> + Send;
}

macro_rules! impl_exec_for_sqlx {
    ($conn:ty, $db:ty, $dialect:path) => {
        impl Exec for $conn {
            type Row = <$db as sqlx::Database>::Row;
            const CLAIM_CANDIDATES: i64 = {
                use $dialect as d;
                d::CLAIM_CANDIDATES
            };
            const SKIP_LOCKED: &'static str = {
                use $dialect as d;
                d::SKIP_LOCKED
            };
            const RECOVERY_INDEX: &'static str = {
                use $dialect as d;
                d::RECOVERY_INDEX
            };
            const LIVE_CLAIM: &'static crate::backend::LiveClaimDialect = {
                use $dialect as d;
                &d::LIVE_CLAIM
            };
            const WAKE_NOTIFY: Option<&'static str> = {
                use $dialect as d;
                d::WAKE_NOTIFY
            };
            const ENDPOINT_NOTIFY: Option<&'static str> = {
                use $dialect as d;
                d::ENDPOINT_NOTIFY
            };
            const ARRAYS: bool = {
                use $dialect as d;
                d::ARRAYS
            };
            const FOR_SHARE: &'static str = {
                use $dialect as d;
                d::FOR_SHARE
            };

            async fn execute(&mut self, q: &SqlBuilder) -> Result<u64> {
                Ok(built::<$db>(q).execute(&mut *self).await?.rows_affected())
            }
            async fn fetch(&mut self, q: &SqlBuilder) -> Result<Vec<Self::Row>> {
                Ok(built::<$db>(q).fetch_all(&mut *self).await?)
            }
        }
    };
}

impl_exec_for_sqlx!(sqlx::SqliteConnection, sqlx::Sqlite, crate::sqlite::dialect);
impl_exec_for_sqlx!(sqlx::PgConnection, sqlx::Postgres, crate::postgres::dialect);

/// `q` as a sqlx query with its values bound in order.
pub fn built<DB>(q: &SqlBuilder) -> sqlx::query::Query<'static, DB, DB::Arguments>
where
    DB: BindArrays,
    String: for<'a> sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    i64: for<'a> sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    Option<String>: for<'a> sqlx::Encode<'a, DB> + sqlx::Type<DB>,
    Option<i64>: for<'a> sqlx::Encode<'a, DB> + sqlx::Type<DB>,
{
    let mut query = sqlx::query::<DB>(sqlx::AssertSqlSafe(q.sql.clone()));
    for b in &q.binds {
        query = match b {
            Bind::Text(s) => query.bind(s.clone()),
            Bind::Int(i) => query.bind(*i),
            Bind::OptInt(i) => query.bind(*i),
            Bind::OptText(t) => query.bind(t.clone()),
            Bind::Texts(_) | Bind::Ints(_) => DB::bind_array(query, b),
        };
    }
    query
}

/// How a backend binds a column of values ([`Bind::Texts`], [`Bind::Ints`]).
pub trait BindArrays: sqlx::Database {
    fn bind_array(
        query: sqlx::query::Query<'static, Self, Self::Arguments>,
        array: &Bind,
    ) -> sqlx::query::Query<'static, Self, Self::Arguments>;
}

impl BindArrays for sqlx::Postgres {
    fn bind_array(
        query: sqlx::query::Query<'static, Self, Self::Arguments>,
        array: &Bind,
    ) -> sqlx::query::Query<'static, Self, Self::Arguments> {
        match array {
            Bind::Texts(v) => query.bind(v.clone()),
            Bind::Ints(v) => query.bind(v.clone()),
            _ => query.bind(Option::<String>::None),
        }
    }
}

impl BindArrays for sqlx::Sqlite {
    /// As JSON text ([`Bind::json_array`]): SQLite has no arrays.
    fn bind_array(
        query: sqlx::query::Query<'static, Self, Self::Arguments>,
        array: &Bind,
    ) -> sqlx::query::Query<'static, Self, Self::Arguments> {
        query.bind(array.json_array())
    }
}

/// An event's key: tenant, environment, id.
pub type EventKey = (String, &'static str, String);

/// The stored events among `keys`, one query per tenant and environment.
pub async fn events_by_key<X: Exec>(
    x: &mut X,
    keys: &[EventKey],
) -> Result<HashMap<EventKey, Event>> {
    let mut keys = keys.to_vec();
    keys.sort();
    keys.dedup();
    let mut events = HashMap::new();
    for scope in keys.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1) {
        let (tenant_id, env) = (&scope[0].0, scope[0].1);
        let mut q = SqlBuilder::new("SELECT * FROM events WHERE tenant_id = ");
        q.bind(Bind::Text(tenant_id.clone()))
            .push(" AND environment = ")
            .bind(Bind::Text(env.into()))
            .push(" AND id IN (")
            .bind_list_padded(scope.iter().map(|k| Bind::Text(k.2.clone())))
            .push(")");
        for r in x.fetch(&q).await? {
            let e = rows::event(&r)?;
            events.insert((tenant_id.clone(), env, e.id.clone()), e);
        }
    }
    Ok(events)
}

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
    for (message, tenant_id, lease_version, recovery) in claimed_rows {
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
        });
    }
    Ok(out)
}

/// Writes `items` as one transaction's work, set-based: one read for the
/// ids that exist already (idempotent re-publishes), the subject sequence
/// numbers in publish order, one insert per chunk of events, one fan-out
/// read per event type and consumer, one insert per chunk of messages (those
/// `intake` has room for leased at once), and one wake-up notification for
/// the rest. Any failure fails the whole
/// batch, and drops its reservations.
pub async fn publish_batch<X: Exec>(
    x: &mut X,
    items: &[(Scope, NewEvent)],
    intake: Option<&dyn Intake>,
) -> Result<Published> {
    let key = |(scope, event): &(Scope, NewEvent)| -> EventKey {
        (
            scope.tenant_id.clone(),
            scope.environment.as_str(),
            event.id.clone(),
        )
    };
    // Events that exist already (idempotent re-publishes).
    let keys: Vec<EventKey> = items.iter().map(key).collect();
    let existing = events_by_key(x, &keys).await?;
    // In publish order: duplicates, sequence numbers, new events.
    let mut outcomes: Vec<PublishOutcome> = Vec::with_capacity(items.len());
    let mut fresh: Vec<usize> = Vec::new();
    let mut seen: HashMap<EventKey, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let k = key(item);
        if let Some(e) = existing.get(&k) {
            outcomes.push(PublishOutcome {
                event: e.clone(),
                messages_created: 0,
                duplicate: true,
                messages_leased: 0,
            });
            continue;
        }
        if let Some(first) = seen.get(&k) {
            let event = outcomes[*first].event.clone();
            outcomes.push(PublishOutcome {
                event,
                messages_created: 0,
                duplicate: true,
                messages_leased: 0,
            });
            continue;
        }
        let (scope, ev) = item;
        seen.insert(k, i);
        fresh.push(i);
        outcomes.push(PublishOutcome {
            event: Event {
                id: ev.id.clone(),
                event_type: ev.event_type.clone(),
                type_version: ev.type_version,
                environment: scope.environment,
                subject: ev.subject.clone(),
                data: ev.data.clone(),
                consumer_id: ev.consumer_id.clone(),
                ordering_key: ev.ordering_key.clone(),
                seq: None,
                traceparent: ev.traceparent.clone(),
                expires_at: ev.expires_at,
                time: ev.time,
                created_at: ev.now,
            },
            messages_created: 0,
            duplicate: false,
            messages_leased: 0,
        });
    }
    // Sequence numbers: one upsert per subject, taking as many numbers as
    // it has new events (given out in publish order), the subjects in
    // sorted order so concurrent batches lock their rows in one order.
    let mut subjects: BTreeMap<(&str, &'static str, &str), Vec<usize>> = BTreeMap::new();
    for i in &fresh {
        let (scope, ev) = &items[*i];
        if let Some(subject) = &ev.subject {
            subjects
                .entry((&scope.tenant_id, scope.environment.as_str(), subject))
                .or_default()
                .push(*i);
        }
    }
    for ((tenant_id, environment, subject), numbered) in subjects {
        let n = numbered.len() as i64;
        let q = SqlBuilder::numbered(
            "INSERT INTO subject_seqs (tenant_id, environment, subject, seq) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (tenant_id, environment, subject) DO UPDATE SET seq = subject_seqs.seq + $4 \
             RETURNING seq",
            [
                Bind::Text(tenant_id.into()),
                Bind::Text(environment.into()),
                Bind::Text(subject.into()),
                Bind::Int(n),
            ],
        );
        let row = x.fetch(&q).await?;
        let row = row
            .first()
            .ok_or_else(|| StoreError::Corrupt("subject sequence not returned".into()))?;
        let last = row.int("seq")?;
        for (k, i) in numbered.into_iter().enumerate() {
            outcomes[i].event.seq = Some(last - n + 1 + k as i64);
        }
    }
    const EVENT_COLUMNS: &str = "tenant_id, environment, id, event_type, type_version, subject, \
        data, consumer_id, ordering_key, seq, traceparent, expires_at, occurred_at, created_at";
    for chunk in fresh.chunks(EVENT_CHUNK) {
        let rows = chunk
            .iter()
            .map(|i| {
                let (scope, e) = (&items[*i].0, &outcomes[*i].event);
                vec![
                    Bind::Text(scope.tenant_id.clone()),
                    Bind::Text(e.environment.as_str().into()),
                    Bind::Text(e.id.clone()),
                    Bind::Text(e.event_type.clone()),
                    Bind::Int(e.type_version),
                    Bind::OptText(e.subject.clone()),
                    Bind::Text(e.data.get().to_string()),
                    Bind::OptText(e.consumer_id.clone()),
                    Bind::OptText(e.ordering_key.clone()),
                    Bind::OptInt(e.seq),
                    Bind::Text(e.traceparent.clone()),
                    Bind::OptInt(e.expires_at.map(Timestamp::millis)),
                    Bind::Int(e.time.millis()),
                    Bind::Int(e.created_at.millis()),
                ]
            })
            .collect();
        let mut q = SqlBuilder::new(&format!("WITH v ({EVENT_COLUMNS}) AS ("));
        q.rows(rows, EVENT_CHUNK, X::ARRAYS).push(&format!(
            ") INSERT INTO events ({EVENT_COLUMNS}) SELECT {EVENT_COLUMNS} FROM v \
             WHERE v.id IS NOT NULL"
        ));
        x.execute(&q).await?;
    }
    // Fan-out: the subscribed endpoints, read once per scope, event type
    // and consumer; one message row per endpoint.
    type TargetKey = (String, &'static str, String, Option<String>);
    let mut groups: HashMap<TargetKey, usize> = HashMap::new();
    let mut targets: Vec<Vec<Target<X::Row>>> = Vec::new();
    // (publish, its endpoint group in `targets`, the endpoint in it)
    let mut rows_out: Vec<(usize, usize, usize)> = Vec::new();
    for i in &fresh {
        let (scope, e) = (&items[*i].0, &outcomes[*i].event);
        let env = scope.environment.as_str();
        let tkey = (
            scope.tenant_id.clone(),
            env,
            e.event_type.clone(),
            e.consumer_id.clone(),
        );
        let group = if let Some(g) = groups.get(&tkey) {
            *g
        } else {
            // Whole rows, with the consumer's source: a message leased at
            // publish needs them (one read here, not one more later).
            let mut fanout = SqlBuilder::new(
                "SELECT e.*, c.source AS consumer_source FROM endpoints e \
                 JOIN consumers c ON c.id = e.consumer_id \
                 WHERE e.id IN (SELECT s.endpoint_id FROM endpoint_subscriptions s \
                 WHERE s.tenant_id = ",
            );
            fanout
                .bind(Bind::Text(scope.tenant_id.clone()))
                .push(" AND s.environment = ")
                .bind(Bind::Text(env.into()))
                .push(" AND s.event_type IN (")
                .bind(Bind::Text(e.event_type.clone()))
                .push(", '*')) AND e.deleted_at IS NULL");
            if let Some(c) = &e.consumer_id {
                fanout
                    .push(" AND e.consumer_id = ")
                    .bind(Bind::Text(c.clone()));
            }
            fanout.push(" ORDER BY e.id");
            let mut found = Vec::new();
            for t in x.fetch(&fanout).await? {
                let endpoint_state = t.text("state")?;
                let endpoint_state = EndpointState::parse(&endpoint_state).ok_or_else(|| {
                    StoreError::Corrupt(format!("endpoint state `{endpoint_state}`"))
                })?;
                found.push(Target {
                    id: t.text("id")?,
                    state: endpoint_state.initial_message_state(),
                    max_concurrency: u32::try_from(t.int("max_concurrency")?).unwrap_or(1),
                    rate_limited: t.opt_int("rate_limit_per_second")?.is_some_and(|r| r > 0),
                    row: t,
                });
            }
            targets.push(found);
            groups.insert(tkey, targets.len() - 1);
            targets.len() - 1
        };
        rows_out.extend((0..targets[group].len()).map(|t| (*i, group, t)));
    }
    // Lease at publish what the intake has room for.
    let reservations: Vec<Option<Reserved>> = rows_out
        .iter()
        .map(|(i, g, t)| {
            let target = &targets[*g][*t];
            let intake = intake.filter(|_| target.state == MessageState::Scheduled)?;
            intake.reserve(
                &IntakeEndpoint {
                    id: &target.id,
                    max_concurrency: target.max_concurrency,
                    rate_limited: target.rate_limited,
                },
                outcomes[*i].event.created_at,
            )
        })
        .collect();
    let owner = intake.map(|k| k.owner()).unwrap_or_default();
    let lease_millis = intake.map(|k| k.lease_millis()).unwrap_or_default();
    let messages: Vec<NewMessage<'_>> = rows_out
        .iter()
        .zip(&reservations)
        .map(|((i, g, t), reserved)| {
            let (scope, e) = (&items[*i].0, &outcomes[*i].event);
            let target = &targets[*g][*t];
            NewMessage {
                tenant_id: &scope.tenant_id,
                environment: e.environment.as_str(),
                event_id: &e.id,
                event_type: &e.event_type,
                endpoint_id: &target.id,
                state: target.state,
                at: e.created_at,
                lease: reserved
                    .as_ref()
                    .filter(|r| !r.behind)
                    .map(|_| (owner, e.created_at.plus_millis(lease_millis))),
                expires_at: e.expires_at,
            }
        })
        .collect();
    let ids = insert_messages(x, &messages).await?;
    let (mut leased, mut leased_of) = (Vec::new(), Vec::new());
    // Endpoint → reservations behind its backlog.
    let mut behind: BTreeMap<String, Vec<Reserved>> = BTreeMap::new();
    if reservations.iter().any(Option::is_some) {
        // Each leased endpoint's row, read once.
        let mut endpoints: HashMap<&str, (relay_core::model::Endpoint, String)> = HashMap::new();
        for (((i, g, t), reserved), (m, id)) in rows_out
            .iter()
            .zip(reservations)
            .zip(messages.iter().zip(ids))
        {
            let Some(reserved) = reserved else { continue };
            if reserved.behind {
                behind
                    .entry(m.endpoint_id.to_string())
                    .or_default()
                    .push(reserved);
                continue;
            }
            let (endpoint, source) = match endpoints.get(m.endpoint_id) {
                Some(known) => known.clone(),
                None => {
                    let row = &targets[*g][*t].row;
                    let known = (rows::endpoint(row)?, row.text("consumer_source")?);
                    endpoints.insert(m.endpoint_id, known.clone());
                    known
                }
            };
            let event = &outcomes[*i].event;
            leased.push((
                reserved,
                Claimed {
                    message: relay_core::model::Message {
                        id,
                        event_id: event.id.clone(),
                        endpoint_id: endpoint.id.clone(),
                        event_type: event.event_type.clone(),
                        environment: event.environment,
                        state: MessageState::InFlight,
                        attempts_used: 0,
                        deferrals_used: 0,
                        next_attempt_at: Some(m.at),
                        last_error_code: None,
                        terminal_reason: None,
                        created_at: m.at,
                        updated_at: m.at,
                    },
                    tenant_id: m.tenant_id.to_string(),
                    lease_version: 1,
                    event: event.clone(),
                    endpoint,
                    source,
                    recovery: false,
                },
            ));
            leased_of.push(*i);
        }
    }
    if !behind.is_empty() {
        let now = items.iter().map(|(_, e)| e.now).max().unwrap_or_default();
        let lease_until = now.plus_millis(lease_millis);
        leased.extend(lease_oldest(x, behind, owner, now, lease_until).await?);
    }
    let scheduled = rows_out.len() > leased_of.len();
    for i in leased_of {
        outcomes[i].messages_leased += 1;
    }
    for (i, _, _) in &rows_out {
        outcomes[*i].messages_created += 1;
    }
    if scheduled && let Some(notify) = X::WAKE_NOTIFY {
        x.execute(&SqlBuilder::new(notify)).await?;
    }
    Ok(Published { outcomes, leased })
}

/// For each endpoint, leases its oldest due live messages, as many as it
/// has reservations behind its backlog (this publish's new messages are
/// among the candidates, due last), and pairs them with those reservations;
/// the reservations left over are dropped.
async fn lease_oldest<X: Exec>(
    x: &mut X,
    behind: BTreeMap<String, Vec<Reserved>>,
    owner: &str,
    now: Timestamp,
    lease_until: Timestamp,
) -> Result<Vec<(Reserved, Claimed)>> {
    let mut ids = Vec::new();
    for (endpoint_id, reservations) in &behind {
        let mut q = crate::backend::lease_update(owner, lease_until);
        let now = q.param(Bind::Int(now.millis()));
        let endpoint = q.param(Bind::Text(endpoint_id.clone()));
        let n = q.param(Bind::Int(reservations.len() as i64));
        q.push(&format!(
            "{now} WHERE id IN (SELECT id FROM messages WHERE endpoint_id = {endpoint} \
             AND state = 'scheduled' AND priority = 0 AND next_attempt_at <= {now} \
             AND (lease_until IS NULL OR lease_until < {now}) \
             ORDER BY next_attempt_at, id LIMIT CAST({n} AS BIGINT){skip}) RETURNING id",
            skip = X::SKIP_LOCKED
        ));
        for r in x.fetch(&q).await? {
            ids.push(r.text("id")?);
        }
    }
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut behind = behind;
    let mut out = Vec::with_capacity(ids.len());
    for claimed in load_claimed(x, &ids).await? {
        if let Some(reserved) = behind.get_mut(&claimed.endpoint.id).and_then(|r| r.pop()) {
            out.push((reserved, claimed));
        }
    }
    Ok(out)
}

/// An endpoint a publish fans out to, as the fan-out read it.
struct Target<R> {
    id: String,
    /// The state its new messages start in.
    state: MessageState,
    max_concurrency: u32,
    rate_limited: bool,
    /// Its whole row and its consumer's source (`consumer_source`), read
    /// into an `Endpoint` only if a message is leased at publish.
    row: R,
}

/// What a publish batch wrote: each publish's outcome, and the messages
/// leased at publish (see [`crate::Intake`]), to hand over once it commits.
pub struct Published {
    pub outcomes: Vec<PublishOutcome>,
    pub leased: Vec<(Reserved, Claimed)>,
}

/// Inserts `messages`, [`FANOUT_CHUNK`] rows per statement; a scheduled one
/// is due at once, a leased one is in flight. Returns their ids, in order.
pub async fn insert_messages<X: Exec>(
    x: &mut X,
    messages: &[NewMessage<'_>],
) -> Result<Vec<String>> {
    let mut ids = Vec::with_capacity(messages.len());
    const MESSAGE_COLUMNS: &str = "id, tenant_id, environment, event_id, endpoint_id, event_type, \
        state, next_attempt_at, lease_owner, lease_until, lease_version, created_at, updated_at, \
        expires_at";
    for chunk in messages.chunks(FANOUT_CHUNK) {
        let mut rows = Vec::with_capacity(chunk.len());
        for m in chunk {
            let at = m.at.millis();
            let id = crate::new_id(relay_core::id::IdKind::Message, m.at);
            let (state, due) = match m.lease {
                Some(_) => (MessageState::InFlight, Some(at)),
                None => (m.state, (m.state == MessageState::Scheduled).then_some(at)),
            };
            rows.push(vec![
                Bind::Text(id.clone()),
                Bind::Text(m.tenant_id.into()),
                Bind::Text(m.environment.into()),
                Bind::Text(m.event_id.into()),
                Bind::Text(m.endpoint_id.into()),
                Bind::Text(m.event_type.into()),
                Bind::Text(state.as_str().into()),
                Bind::OptInt(due),
                Bind::OptText(m.lease.map(|(owner, _)| owner.to_string())),
                Bind::OptInt(m.lease.map(|(_, until)| until.millis())),
                Bind::Int(i64::from(m.lease.is_some())),
                Bind::Int(at),
                Bind::Int(at),
                Bind::OptInt(m.expires_at.map(Timestamp::millis)),
            ]);
            ids.push(id);
        }
        let mut q = SqlBuilder::new(&format!("WITH v ({MESSAGE_COLUMNS}) AS ("));
        q.rows(rows, FANOUT_CHUNK, X::ARRAYS).push(&format!(
            ") INSERT INTO messages ({MESSAGE_COLUMNS}) SELECT {MESSAGE_COLUMNS} FROM v \
             WHERE v.id IS NOT NULL"
        ));
        x.execute(&q).await?;
    }
    Ok(ids)
}

/// The claim: leases live traffic first, up to the whole limit, then the
/// room left (within `recovery_limit`) shared across the tenants with
/// recovery traffic due; then reads what the leased messages need for their
/// attempts. On SQLite the reads cost no more inside the writer's
/// transaction than after it, and save the read pool's thread hops.
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

/// Leases up to `limit` due live messages, oldest due first, of each
/// endpoint at most its `room`, looking past the backlogs of endpoints that
/// are full or capped (see [`crate::backend::live_claim`]). Returns the ids
/// with their endpoints and lease versions.
async fn claim_live<X: Exec>(
    x: &mut X,
    req: &ClaimRequest<'_>,
    room: &HashMap<String, Room>,
    limit: u32,
) -> Result<Vec<(String, String, i64)>> {
    let q = crate::backend::live_claim(req, room, limit, X::LIVE_CLAIM);
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
/// first, of each endpoint at most its `room` (see `Store::claim`). Returns
/// the ids with their endpoints and lease versions.
async fn claim_recovery<X: Exec>(
    x: &mut X,
    req: &ClaimRequest<'_>,
    room: &HashMap<String, Room>,
    tenant: &str,
    limit: u32,
) -> Result<Vec<(String, String, i64)>> {
    let now = req.now.millis();
    let mut q = crate::backend::lease_update(req.owner, req.lease_until);
    q.bind(Bind::Int(now))
        // Candidates: the next due messages in order (a bounded index scan),
        // then at most each endpoint's room of them.
        .push(
            " WHERE id IN (SELECT r.id FROM (SELECT c.id, c.next_attempt_at, \
             ROW_NUMBER() OVER (PARTITION BY c.endpoint_id ORDER BY c.next_attempt_at, c.id) AS rn, ",
        );
    let caps = crate::backend::Caps::bind(&mut q, room);
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
    let full = crate::backend::full_lanes(room);
    if !full.is_empty() {
        q.push(" AND endpoint_id NOT IN (")
            .bind_list(full.into_iter().map(|e| Bind::Text(e.clone())))
            .push(")");
    }
    // Limits as `CAST($n AS BIGINT)`: SQLite re-prepares a statement whose
    // `LIMIT $n` is rebound, every time.
    q.push(" ORDER BY next_attempt_at LIMIT CAST(")
        .bind(Bind::Int(i64::from(limit) * X::CLAIM_CANDIDATES))
        .push(" AS BIGINT)")
        .push(X::SKIP_LOCKED)
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
    let idx = X::RECOVERY_INDEX;
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

/// Applies a batch of completions, each only while its lease holds; returns
/// whether each was applied. Every message's update is one statement per
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
    if !ids.is_empty() && !X::FOR_SHARE.is_empty() {
        let mut q = SqlBuilder::new("SELECT id FROM endpoints WHERE id IN (");
        q.bind_list_padded(ids.iter().map(|id| Bind::Text((*id).to_string())))
            .push(") ORDER BY id")
            .push(X::FOR_SHARE);
        x.fetch(&q).await?;
    }
    let mut updated = HashSet::new();
    for chunk in batch.chunks(COMPLETION_CHUNK) {
        let mut q = SqlBuilder::new(
            "WITH v (id, state, attempts_used, deferrals_used, next_attempt_at, last_error_code, \
             terminal_reason, updated_at, lease_owner, lease_version, manual) AS (",
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
                ]
            })
            .collect();
        // The padding's NULL ids match no message.
        // A retry due again is held while the endpoint is paused or
        // disabled (`relay_core::lifecycle::settle`).
        q.rows(rows, COMPLETION_CHUNK, X::ARRAYS).push(&format!(
            ") UPDATE messages SET state = CASE WHEN v.state = 'scheduled' THEN {settled} \
             ELSE v.state END, attempts_used = v.attempts_used, \
             deferrals_used = v.deferrals_used, next_attempt_at = v.next_attempt_at, \
             last_error_code = v.last_error_code, terminal_reason = v.terminal_reason, \
             lease_owner = NULL, lease_until = NULL, updated_at = v.updated_at FROM v \
             WHERE messages.id = v.id AND messages.lease_owner = v.lease_owner \
             AND messages.lease_version = v.lease_version \
             AND (messages.state = 'in_flight' OR v.manual = 1) RETURNING messages.id",
            settled = crate::lifecycle::SETTLED_STATE_SQL
        ));
        for r in x.fetch(&q).await? {
            updated.insert(r.text("id")?);
        }
    }
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
             duration_ms, destination_ip, status_code, error_kind, body_sha256, signature, \
             response_body, outcome) AS (",
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
                    Bind::OptInt(a.status_code),
                    Bind::OptText(a.error_kind.clone()),
                    Bind::Text(a.body_sha256.clone()),
                    Bind::Text(a.signature.clone()),
                    Bind::OptText(a.response_body.clone()),
                    Bind::Text(a.outcome.clone()),
                ]
            })
            .collect();
        q.rows(rows, COMPLETION_CHUNK, X::ARRAYS).push(
            ") INSERT INTO attempts (id, message_id, tenant_id, environment, endpoint_id, number, \
             trigger, started_at, duration_ms, destination_ip, status_code, error_kind, body_sha256, \
             signature, response_body, outcome) \
             SELECT v.id, v.message_id, v.tenant_id, v.environment, v.endpoint_id, \
             (SELECT COUNT(*) + 1 FROM attempts p WHERE p.message_id = v.message_id), \
             v.trigger, v.started_at, v.duration_ms, v.destination_ip, v.status_code, v.error_kind, \
             v.body_sha256, v.signature, v.response_body, v.outcome FROM v \
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
    Ok(crate::Completed { applied, gone })
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

async fn insert_warning<X: Exec>(
    x: &mut X,
    endpoint_id: &str,
    kind: &str,
    detail: &str,
    at: Timestamp,
) -> Result<()> {
    x.execute(&SqlBuilder::numbered(
        "INSERT INTO endpoint_warnings (endpoint_id, kind, detail, at) VALUES ($1, $2, $3, $4)",
        [
            Bind::Text(endpoint_id.into()),
            Bind::Text(kind.into()),
            Bind::Text(detail.into()),
            Bind::Int(at.millis()),
        ],
    ))
    .await?;
    Ok(())
}

/// Moves the endpoint's automatic-disable clock with one attempt's signal
/// (`relay_core::autodisable`): warns at hour 72, disables at 5 days unless
/// the tenant turned automatic disabling off. Returns whether the clock is
/// clear (no row) afterwards.
async fn observe_health<X: Exec>(
    x: &mut X,
    endpoint_id: &str,
    signal: relay_core::circuit::Signal,
    now: Timestamp,
) -> Result<bool> {
    use relay_core::autodisable::FailureClock;
    use relay_core::circuit::Signal;
    let found = x
        .fetch(&SqlBuilder::numbered(
            "SELECT * FROM endpoint_health WHERE endpoint_id = $1",
            [Bind::Text(endpoint_id.into())],
        ))
        .await?;
    let row = found.first();
    let clock = match row {
        Some(r) => FailureClock {
            window_first: r.opt_ts("window_first")?,
            last_failure: r.opt_ts("last_failure")?,
            started_at: r.opt_ts("started_at")?,
            warned: r.int("warned")? != 0,
        },
        None => FailureClock::default(),
    };
    let o = match signal {
        Signal::Success => {
            if row.is_none() {
                return Ok(true);
            }
            clock.success()
        }
        Signal::Failure => clock.failure(now),
        Signal::Neutral => return Ok(row.is_none()),
    };
    let clean = o.clock == FailureClock::default();
    if clean {
        x.execute(&SqlBuilder::numbered(
            "DELETE FROM endpoint_health WHERE endpoint_id = $1",
            [Bind::Text(endpoint_id.into())],
        ))
        .await?;
    } else {
        x.execute(&SqlBuilder::numbered(
            "INSERT INTO endpoint_health (endpoint_id, window_first, last_failure, started_at, warned) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (endpoint_id) DO UPDATE SET \
             window_first = $2, last_failure = $3, started_at = $4, warned = $5",
            [
                Bind::Text(endpoint_id.into()),
                Bind::OptInt(o.clock.window_first.map(Timestamp::millis)),
                Bind::OptInt(o.clock.last_failure.map(Timestamp::millis)),
                Bind::OptInt(o.clock.started_at.map(Timestamp::millis)),
                Bind::Int(i64::from(o.clock.warned)),
            ],
        ))
        .await?;
    }
    if o.warn {
        emit_operational(
            x,
            endpoint_id,
            relay_core::operational::ENDPOINT_FAILURE_WARNED,
            serde_json::json!({ "endpoint_id": endpoint_id }),
            now,
        )
        .await?;
        insert_warning(
            x,
            endpoint_id,
            "failing_for_72_hours",
            "every attempt has failed for 72 hours; the endpoint is disabled at 5 days unless it recovers",
            now,
        )
        .await?;
    }
    if o.disable {
        crate::lifecycle::apply_automatic(
            x,
            endpoint_id,
            relay_core::lifecycle::EndpointAction::FailingForFiveDays,
            now,
        )
        .await?;
    }
    Ok(clean)
}

/// Publishes an operational event (`relay_core::operational`) inside the
/// caller's transaction, to the endpoints of the tenant's own consumer
/// (kind `tenant`) in the endpoint's environment that subscribe to it by
/// name. Never to a customer's endpoint: the event describes the tenant's
/// endpoints, other customers' among them.
pub async fn emit_operational<X: Exec>(
    x: &mut X,
    about_endpoint: &str,
    event_type: &str,
    data: serde_json::Value,
    now: Timestamp,
) -> Result<()> {
    let found = x
        .fetch(&SqlBuilder::numbered(
            "SELECT tenant_id, environment FROM endpoints WHERE id = $1",
            [Bind::Text(about_endpoint.into())],
        ))
        .await?;
    let Some(scope) = found.first() else {
        return Ok(());
    };
    let (tenant_id, environment) = (scope.text("tenant_id")?, scope.text("environment")?);
    let targets = x
        .fetch(&SqlBuilder::numbered(
            "SELECT e.id, e.state FROM endpoint_subscriptions s JOIN endpoints e ON e.id = s.endpoint_id \
             JOIN consumers c ON c.id = e.consumer_id \
             WHERE s.tenant_id = $1 AND s.environment = $2 AND s.event_type = $3 AND e.deleted_at IS NULL \
             AND c.kind = 'tenant' ORDER BY e.id",
            [
                Bind::Text(tenant_id.clone()),
                Bind::Text(environment.clone()),
                Bind::Text(event_type.into()),
            ],
        ))
        .await?;
    if targets.is_empty() {
        return Ok(());
    }
    let event_id = crate::new_id(relay_core::id::IdKind::Event, now);
    let mut random = [0u8; 24];
    getrandom::fill(&mut random).expect("the operating system's random source is unavailable");
    x.execute(&SqlBuilder::numbered(
        "INSERT INTO events (tenant_id, environment, id, event_type, type_version, subject, data, \
         consumer_id, ordering_key, seq, traceparent, expires_at, occurred_at, created_at) \
         VALUES ($1, $2, $3, $4, 1, $5, $6, NULL, NULL, NULL, $7, NULL, $8, $8)",
        [
            Bind::Text(tenant_id.clone()),
            Bind::Text(environment.clone()),
            Bind::Text(event_id.clone()),
            Bind::Text(event_type.into()),
            Bind::Text(format!("endpoint/{about_endpoint}")),
            Bind::Text(json_text(&data)),
            Bind::Text(relay_core::traceparent::generate(random)),
            Bind::Int(now.millis()),
        ],
    ))
    .await?;
    let endpoints: Vec<(String, MessageState)> = targets
        .iter()
        .map(|t| {
            let state = EndpointState::parse(&t.text("state")?)
                .map(EndpointState::initial_message_state)
                .unwrap_or(MessageState::Held);
            Ok((t.text("id")?, state))
        })
        .collect::<Result<_>>()?;
    let messages: Vec<NewMessage<'_>> = endpoints
        .iter()
        .map(|(endpoint_id, state)| NewMessage {
            tenant_id: &tenant_id,
            environment: &environment,
            event_id: &event_id,
            event_type,
            endpoint_id,
            state: *state,
            at: now,
            lease: None,
            expires_at: None,
        })
        .collect();
    insert_messages(x, &messages).await.map(drop)
}

/// One batch of a bulk retry under the job's lease: restarts the next
/// `batch` messages the filter selects after the job's cursor (those in a
/// restartable state, whose endpoint is active), then moves the cursor and
/// the counts. One statement per message, the same text each time: on
/// SQLite a cached statement, so the batch holds the writer briefly.
pub async fn advance_bulk_retry<X: Exec>(
    x: &mut X,
    job: &crate::LeasedJob,
    filter: &crate::MessageFilter,
    owner: &str,
    batch: u32,
    now: Timestamp,
    lease_until: Timestamp,
) -> Result<crate::Job> {
    let found = x
        .fetch(&SqlBuilder::numbered(
            "SELECT cursor FROM jobs WHERE id = $1 AND lease_owner = $2 AND state = 'running'",
            [Bind::Text(job.job.id.clone()), Bind::Text(owner.into())],
        ))
        .await?;
    let cursor = found
        .first()
        .ok_or(StoreError::Conflict("job_lease_lost"))?
        .opt_text("cursor")?;
    let mut q = SqlBuilder::new(
        "SELECT id, state, endpoint_id, terminal_reason FROM messages WHERE tenant_id = ",
    );
    q.bind(Bind::Text(job.scope.tenant_id.clone()))
        .push(" AND environment = ")
        .bind(Bind::Text(job.scope.environment.as_str().into()));
    crate::backend::push_message_filter(&mut q, filter);
    // `paginate` fetches one more than its limit: ask for `fetch - 1`.
    let fetch = batch.max(2);
    q.paginate(
        "id",
        &crate::PageRequest {
            after: cursor,
            limit: fetch - 1,
        },
    );
    let found = x.fetch(&q).await?;
    let mut affected = 0u64;
    for m in &found {
        let state = MessageState::parse(&m.text("state")?);
        let removed = m.opt_text("terminal_reason")?.as_deref() == Some("endpoint_removed");
        if removed || !state.is_some_and(|s| relay_core::transition::RESTARTABLE.contains(&s)) {
            continue;
        }
        affected += x
            .execute(&SqlBuilder::numbered(
                "UPDATE messages SET state = 'scheduled', attempts_used = 0, deferrals_used = 0, priority = 1, \
                 next_attempt_at = $2, terminal_reason = NULL, lease_owner = NULL, lease_until = NULL, \
                 lease_version = lease_version + 1, updated_at = $2 \
                 WHERE id = $1 AND state = $3 AND EXISTS (SELECT 1 FROM endpoints e \
                 WHERE e.id = messages.endpoint_id AND e.deleted_at IS NULL AND e.state = 'active')",
                [
                    Bind::Text(m.text("id")?),
                    Bind::Int(now.millis()),
                    Bind::Text(m.text("state")?),
                ],
            ))
            .await?;
    }
    let last = found.last().map(|m| m.text("id")).transpose()?;
    let finished = (found.len() as u32) < fetch;
    x.execute(&SqlBuilder::numbered(
        "UPDATE jobs SET cursor = COALESCE($2, cursor), processed = processed + $3, affected = affected + $4, \
         state = $5, lease_until = $6, updated_at = $7, finished_at = $8 WHERE id = $1",
        [
            Bind::Text(job.job.id.clone()),
            Bind::OptText(last),
            Bind::Int(found.len() as i64),
            Bind::Int(affected as i64),
            Bind::Text(if finished { "done" } else { "running" }.into()),
            Bind::Int(lease_until.millis()),
            Bind::Int(now.millis()),
            Bind::OptInt(finished.then_some(now.millis())),
        ],
    ))
    .await?;
    if affected > 0
        && let Some(notify) = X::WAKE_NOTIFY
    {
        x.execute(&SqlBuilder::new(notify)).await?;
    }
    let row = x
        .fetch(&SqlBuilder::numbered(
            "SELECT * FROM jobs WHERE id = $1",
            [Bind::Text(job.job.id.clone())],
        ))
        .await?;
    rows::job(row.first().ok_or(StoreError::NotFound)?)
}
