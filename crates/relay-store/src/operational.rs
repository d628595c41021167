//! Operational events: what Relay publishes about a tenant's endpoints
//! (disabled, failing, …) to the tenant's own consumer, inside the
//! transaction that changed them.

use relay_core::model::{EndpointState, MessageState};
use relay_core::time::Timestamp;

use crate::Result;
use crate::exec::Exec;
use crate::publish::insert_messages;
use crate::rows::RowExt;
use crate::sql::{Bind, NewMessage, SqlBuilder, json_text};

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
    // The endpoints the audience rule gives the event (`crate::audience`:
    // the tenant's own consumer's, naming the type).
    let mut q = SqlBuilder::new("SELECT e.*, c.kind AS consumer_kind");
    crate::audience::endpoint_type_audience_column(&mut q, event_type);
    q.push(
        " FROM endpoints e JOIN consumers c ON c.id = e.consumer_id \
         WHERE e.deleted_at IS NULL AND e.id IN (SELECT s.endpoint_id \
         FROM endpoint_subscriptions s WHERE s.tenant_id = ",
    )
    .bind(Bind::Text(tenant_id.clone()))
    .push(" AND s.environment = ")
    .bind(Bind::Text(environment.clone()));
    crate::audience::fanout_conditions(&mut q, &tenant_id, &environment, event_type, None);
    q.push(" ORDER BY e.id");
    let mut targets = Vec::new();
    for t in x.fetch(&q).await? {
        if crate::audience::allowed_endpoint(&t, event_type, None)? {
            targets.push(t);
        }
    }
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
    let endpoints: Vec<(String, i64, MessageState)> = targets
        .iter()
        .map(|t| {
            let state = EndpointState::parse(&t.text("state")?)
                .map(EndpointState::initial_message_state)
                .unwrap_or(MessageState::Held);
            Ok((t.text("id")?, t.int("version")?, state))
        })
        .collect::<Result<_>>()?;
    let messages: Vec<NewMessage<'_>> = endpoints
        .iter()
        .map(|(endpoint_id, endpoint_version, state)| NewMessage {
            tenant_id: &tenant_id,
            environment: &environment,
            event_id: &event_id,
            event_type,
            endpoint_id,
            endpoint_version: *endpoint_version,
            state: *state,
            at: now,
            lease: None,
            expires_at: None,
            // Relay's own events are not ordered (they carry no key).
            ordering: None,
        })
        .collect();
    insert_messages(x, &messages).await.map(drop)
}
