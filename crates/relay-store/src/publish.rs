//! The publish transaction, written once over [`Exec`]: a batch of publishes
//! (the group committer's, `crate::group`) writes its events and fans them
//! out to one message per subscribed endpoint, leasing at once what the
//! publishing process's dispatcher has room for (see [`crate::Intake`]).

use std::collections::{BTreeMap, HashMap};

use relay_core::model::{EndpointState, Event, MessageState};
use relay_core::time::Timestamp;

use crate::claims::load_claimed;
use crate::exec::Exec;
use crate::rows::{self, RowExt};
use crate::sql::{Bind, EVENT_CHUNK, FANOUT_CHUNK, NewMessage, SqlBuilder};
use crate::{
    Claimed, Intake, IntakeEndpoint, NewEvent, PublishOutcome, Reserved, Result, Scope, StoreError,
};

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
        let last = take_seqs(x, tenant_id, environment, subject, n).await?;
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
        q.rows(rows, EVENT_CHUNK, x.dialect().arrays).push(&format!(
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
            // publish needs them (one read here, not one more later). Only
            // the endpoints the audience rule allows are read
            // (`crate::audience`), and the rule is applied to each.
            let mut fanout =
                SqlBuilder::new("SELECT e.*, c.source AS consumer_source, c.kind AS consumer_kind");
            crate::audience::endpoint_type_audience_column(&mut fanout, &e.event_type);
            fanout
                .push(
                    " FROM endpoints e JOIN consumers c ON c.id = e.consumer_id \
                     WHERE e.deleted_at IS NULL AND e.id IN (SELECT s.endpoint_id \
                     FROM endpoint_subscriptions s WHERE s.tenant_id = ",
                )
                .bind(Bind::Text(scope.tenant_id.clone()))
                .push(" AND s.environment = ")
                .bind(Bind::Text(env.into()));
            crate::audience::fanout_conditions(
                &mut fanout,
                &scope.tenant_id,
                env,
                &e.event_type,
                e.consumer_id.as_deref(),
            );
            fanout.push(" ORDER BY e.id");
            let mut found = Vec::new();
            for t in x.fetch(&fanout).await? {
                if !crate::audience::allowed_endpoint(&t, &e.event_type, e.consumer_id.as_deref())?
                {
                    continue;
                }
                let endpoint_state = t.text("state")?;
                let endpoint_state = EndpointState::parse(&endpoint_state).ok_or_else(|| {
                    StoreError::Corrupt(format!("endpoint state `{endpoint_state}`"))
                })?;
                let ordering = t.text("ordering")?;
                let ordering =
                    relay_core::model::DeliveryOrder::parse(&ordering).ok_or_else(|| {
                        StoreError::Corrupt(format!("endpoint ordering `{ordering}`"))
                    })?;
                found.push(Target {
                    id: t.text("id")?,
                    ordering,
                    version: t.int("version")?,
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
    // Ordered endpoints: each keyed message's place in its key's line, and
    // whether it waits there (`crate::ordering`).
    let keys: Vec<Option<&str>> = rows_out
        .iter()
        .map(|(i, g, t)| {
            let e = &outcomes[*i].event;
            relay_core::ordering::key(
                targets[*g][*t].ordering,
                e.ordering_key.as_deref(),
                e.subject.as_deref(),
            )
        })
        .collect();
    let mut placed: Vec<Option<(i64, MessageState)>> = vec![None; rows_out.len()];
    if keys.iter().any(Option::is_some) {
        let keyed: Vec<usize> = (0..rows_out.len()).filter(|n| keys[*n].is_some()).collect();
        let entries: Vec<crate::ordering::Entry<'_>> = keyed
            .iter()
            .map(|n| {
                let (_, g, t) = rows_out[*n];
                let target = &targets[g][t];
                crate::ordering::Entry {
                    endpoint_id: &target.id,
                    key: keys[*n].unwrap_or_default(),
                    initial: target.state,
                }
            })
            .collect();
        for (n, p) in keyed.iter().zip(crate::ordering::place(x, &entries).await?) {
            placed[*n] = Some(p);
        }
    }
    let state_of = |n: usize| {
        let (_, g, t) = rows_out[n];
        placed[n].map_or(targets[g][t].state, |(_, s)| s)
    };
    // Lease at publish what the intake has room for.
    let reservations: Vec<Option<Reserved>> = rows_out
        .iter()
        .enumerate()
        .map(|(n, (i, g, t))| {
            let target = &targets[*g][*t];
            let intake = intake.filter(|_| state_of(n) == MessageState::Scheduled)?;
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
        .enumerate()
        .map(|(n, ((i, g, t), reserved))| {
            let (scope, e) = (&items[*i].0, &outcomes[*i].event);
            let target = &targets[*g][*t];
            NewMessage {
                tenant_id: &scope.tenant_id,
                environment: e.environment.as_str(),
                event_id: &e.id,
                event_type: &e.event_type,
                endpoint_id: &target.id,
                endpoint_version: target.version,
                state: state_of(n),
                at: e.created_at,
                lease: reserved
                    .as_ref()
                    .filter(|r| !r.behind)
                    .map(|_| (owner, e.created_at.plus_millis(lease_millis))),
                expires_at: e.expires_at,
                ordering: keys[n].zip(placed[n].map(|(pos, _)| pos)),
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
                        endpoint_version: Some(m.endpoint_version),
                        event_type_version: None,
                        state: MessageState::InFlight,
                        ordering_key: m.ordering.map(|(k, _)| k.to_string()),
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
                    withhold_answer: false,
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
    if scheduled && let Some(notify) = x.dialect().wake_notify {
        x.execute(&SqlBuilder::new(notify)).await?;
    }
    Ok(Published { outcomes, leased })
}

/// Takes the next `n` sequence numbers of `subject` (one upsert); returns
/// the last of them (the first is that minus `n - 1`).
pub(crate) async fn take_seqs<X: Exec>(
    x: &mut X,
    tenant_id: &str,
    environment: &str,
    subject: &str,
    n: i64,
) -> Result<i64> {
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
    row.int("seq")
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
        let mut q = crate::live_claim::lease_update(owner, lease_until);
        let now = q.param(Bind::Int(now.millis()));
        let endpoint = q.param(Bind::Text(endpoint_id.clone()));
        let n = q.param(Bind::Int(reservations.len() as i64));
        q.push(&format!(
            "{now} WHERE id IN (SELECT id FROM messages WHERE endpoint_id = {endpoint} \
             AND state = 'scheduled' AND priority = 0 AND next_attempt_at <= {now} \
             AND (lease_until IS NULL OR lease_until < {now}) \
             ORDER BY next_attempt_at, id LIMIT CAST({n} AS BIGINT){skip}) RETURNING id",
            skip = x.dialect().skip_locked
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
    /// Its current version, which its new messages record.
    version: i64,
    /// The state its new messages start in.
    state: MessageState,
    /// Whether its messages keep an order per key.
    ordering: relay_core::model::DeliveryOrder,
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
        expires_at, endpoint_version, ordering_key, ordering_pos";
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
                Bind::Int(m.endpoint_version),
                Bind::OptText(m.ordering.map(|(k, _)| k.to_string())),
                Bind::OptInt(m.ordering.map(|(_, pos)| pos)),
            ]);
            ids.push(id);
        }
        let mut q = SqlBuilder::new(&format!("WITH v ({MESSAGE_COLUMNS}) AS ("));
        q.rows(rows, FANOUT_CHUNK, x.dialect().arrays)
            .push(&format!(
                ") INSERT INTO messages ({MESSAGE_COLUMNS}) SELECT {MESSAGE_COLUMNS} FROM v \
             WHERE v.id IS NOT NULL"
            ));
        x.execute(&q).await?;
    }
    Ok(ids)
}
