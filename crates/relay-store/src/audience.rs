//! Who may receive an event, in SQL: the queries that create messages
//! (publish's fan-out, Relay's operational events, replay, a test send)
//! read only the endpoints, or events, that `relay_core::audience` allows,
//! then apply that rule to what they read ([`allowed_endpoint`],
//! [`allowed_event`]), so SQL that disagreed with it could only ever send
//! less. The conformance suite (`conformance/audience.rs`) checks on both
//! backends that the two agree, pair by pair.

use relay_core::audience::{self, Audience, Recipient, Sent};
use relay_core::model::{ConsumerKind, Endpoint};

use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};
use crate::{Result, StoreError};

/// Appends the subscription and audience conditions of a fan-out over
/// endpoints `e` (their subscriptions in `endpoint_subscriptions s`, from
/// ` AND s.event_type …` on, then the endpoint's consumer `c`) for an event
/// of `event_type` published for `consumer_id` in the tenant's
/// environment. The caller's query reads `endpoint_subscriptions s` inside
/// `e.id IN (…)`: this closes it.
pub fn fanout_conditions(
    q: &mut SqlBuilder,
    tenant_id: &str,
    environment: &str,
    event_type: &str,
    consumer_id: Option<&str>,
) {
    // Relay's built-in types are reached only by name (`*` never takes
    // them), and only by the tenant's own consumer.
    let operational = relay_core::operational::is_operational(event_type);
    q.push(" AND s.event_type IN (")
        .bind(Bind::Text(event_type.into()));
    q.push(if operational { "))" } else { ", '*'))" });
    if operational {
        q.push(" AND c.kind = 'tenant'");
    } else if let Some(c) = consumer_id {
        q.push(" AND e.consumer_id = ").bind(Bind::Text(c.into()));
    } else {
        q.push(
            " AND (c.kind = 'tenant' OR EXISTS (SELECT 1 FROM event_types t WHERE t.tenant_id = ",
        )
        .bind(Bind::Text(tenant_id.into()))
        .push(" AND t.environment = ")
        .bind(Bind::Text(environment.into()))
        .push(" AND t.name = ")
        .bind(Bind::Text(event_type.into()))
        .push(" AND t.audience = 'all_consumers'))");
    }
}

/// A select-list column `type_audience`: the audience of `event_type` in
/// the catalog of the row's endpoint `e` (NULL when the type is not in it).
pub fn endpoint_type_audience_column(q: &mut SqlBuilder, event_type: &str) {
    q.push(
        ", (SELECT t.audience FROM event_types t WHERE t.tenant_id = e.tenant_id \
         AND t.environment = e.environment AND t.name = ",
    )
    .bind(Bind::Text(event_type.into()))
    .push(") AS type_audience");
}

/// A select-list column `type_audience`: the audience of the type of the
/// row's event `e` (NULL when the type is not in the catalog).
pub const EVENT_TYPE_AUDIENCE_COLUMN: &str = ", (SELECT t.audience FROM event_types t \
     WHERE t.tenant_id = e.tenant_id AND t.environment = e.environment AND t.name = e.event_type) \
     AS type_audience";

/// The `type_audience` column: a type outside the catalog (Relay's own, or
/// one deleted) is [`Audience::Addressed`].
pub fn type_audience(row: &impl RowExt) -> Result<Audience> {
    match row.opt_text("type_audience")? {
        None => Ok(Audience::Addressed),
        Some(text) => Audience::parse(&text)
            .ok_or_else(|| StoreError::Corrupt(format!("event type audience `{text}`"))),
    }
}

/// A consumer's kind as stored.
pub fn consumer_kind(text: &str) -> Result<ConsumerKind> {
    ConsumerKind::parse(text).ok_or_else(|| StoreError::Corrupt(format!("consumer kind `{text}`")))
}

/// Whether a fan-out row (an endpoint with `consumer_kind` and
/// `type_audience`) may get a message of the event: the rule itself.
pub fn allowed_endpoint(
    row: &impl RowExt,
    event_type: &str,
    consumer_id: Option<&str>,
) -> Result<bool> {
    let subscriptions: Vec<String> = row.json("event_types_json")?;
    let endpoint_consumer = row.text("consumer_id")?;
    let kind = consumer_kind(&row.text("consumer_kind")?)?;
    Ok(audience::reaches(
        &Sent {
            event_type,
            consumer_id,
            audience: type_audience(row)?,
        },
        &Recipient {
            consumer_id: &endpoint_consumer,
            kind,
        },
        &subscriptions,
    ))
}

/// Appends the conditions under which an event `e` (a row of `events`) is
/// meant for the endpoint `endpoint` of a consumer of `kind`: its
/// subscriptions (narrowed to `event_types` when given) and the audience
/// rule. For replay, which reads events for one endpoint.
pub fn event_conditions(
    q: &mut SqlBuilder,
    endpoint: &Endpoint,
    kind: ConsumerKind,
    event_types: Option<&[String]>,
) {
    let subscribed: Vec<&String> = match event_types {
        Some(types) => types
            .iter()
            .filter(|t| audience::subscribes(&endpoint.event_types, t))
            .collect(),
        None => endpoint.event_types.iter().collect(),
    };
    // Subscriptions: named types, or `*`, which takes every type but
    // Relay's own.
    let named: Vec<&String> = subscribed.iter().copied().filter(|t| *t != "*").collect();
    let everything = subscribed.iter().any(|t| *t == "*");
    q.push(" AND (e.event_type IN ('-'");
    for t in &named {
        q.push(", ").bind(Bind::Text((*t).clone()));
    }
    q.push(")");
    if everything {
        q.push(" OR e.event_type NOT IN ('-'");
        for t in relay_core::operational::all() {
            q.push(", ").bind(Bind::Text(t.into()));
        }
        q.push(")");
    }
    q.push(")");
    // Audience: Relay's own events for the tenant's own consumer only; the
    // consumer's own events; those for no one that are meant for it.
    let builtins = |q: &mut SqlBuilder| {
        q.push("('-'");
        for t in relay_core::operational::all() {
            q.push(", ").bind(Bind::Text(t.into()));
        }
        q.push(")");
    };
    match kind {
        ConsumerKind::Tenant => {
            q.push(" AND (e.consumer_id IS NULL OR e.consumer_id = ")
                .bind(Bind::Text(endpoint.consumer_id.clone()))
                .push(" OR e.event_type IN ");
            builtins(q);
            q.push(")");
        }
        ConsumerKind::Customer => {
            q.push(" AND e.event_type NOT IN ");
            builtins(q);
            q.push(" AND (e.consumer_id = ")
                .bind(Bind::Text(endpoint.consumer_id.clone()))
                .push(
                    " OR (e.consumer_id IS NULL AND EXISTS (SELECT 1 FROM event_types t \
                     WHERE t.tenant_id = e.tenant_id AND t.environment = e.environment \
                     AND t.name = e.event_type AND t.audience = 'all_consumers')))",
                );
        }
    }
}

/// Whether an event row (`event_type`, `consumer_id`, `type_audience`)
/// read for `endpoint` of a consumer of `kind` may get a message: the rule
/// itself.
pub fn allowed_event(
    row: &impl RowExt,
    endpoint: &Endpoint,
    kind: ConsumerKind,
    event_types: Option<&[String]>,
) -> Result<bool> {
    let event_type = row.text("event_type")?;
    if event_types.is_some_and(|wanted| !wanted.contains(&event_type)) {
        return Ok(false);
    }
    let consumer_id = row.opt_text("consumer_id")?;
    Ok(audience::reaches(
        &Sent {
            event_type: &event_type,
            consumer_id: consumer_id.as_deref(),
            audience: type_audience(row)?,
        },
        &Recipient {
            consumer_id: &endpoint.consumer_id,
            kind,
        },
        &endpoint.event_types,
    ))
}
