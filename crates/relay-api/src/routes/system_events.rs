//! The system publisher: Relay's own event families
//! (`relay_core::operational::system`: delivery projection, skip and
//! failure, engagement, email feedback, consent and compliance,
//! subscriber/device/preference, quota and limits, waitpoints and agents),
//! published for a tenant with the operator credential. Like the webhook
//! operations, they reach only the endpoints of the tenant's own consumer
//! that name them, shaped by the type's thin fields like any event.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::envelope::Envelope;
use relay_core::id::IdKind;
use relay_core::model::Environment;
use relay_core::operational::system;
use relay_core::{traceparent, validate};
use relay_store::{NewEvent, Scope, new_id};
use serde::Deserialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

use super::events::Published;
use crate::AppState;
use crate::auth::OperatorAuth;
use crate::error::{ApiError, Problem};
use crate::extract::JsonBody;
use crate::{deliverable, schema};

/// An event of one of Relay's own system families, published for a tenant.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SystemEvent {
    /// The tenant's environment the event belongs to.
    pub environment: Environment,
    /// Your id for the event; publishing it again is a no-op.
    pub id: Option<String>,
    /// One of the system event types (`GET /v1/event-types` lists them with
    /// their schemas), e.g. `email.bounced`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// The CloudEvents `subject`: 1 to 1024 bytes, no control characters.
    pub subject: Option<String>,
    /// When it happened, RFC 3339; defaults to now.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub time: Option<String>,
    /// The payload; it must satisfy the type's schema.
    #[schema(value_type = Object)]
    pub data: Box<RawValue>,
}

/// Publish a system event for a tenant
///
/// Publishes one of Relay's own system event families (delivery reports,
/// engagement, email feedback, consent, quota, …; `GET /v1/event-types`
/// with a tenant key lists them with their schemas) into the tenant's
/// environment. Like Relay's operational events, they reach only the
/// endpoints of the tenant's own consumer (kind `tenant`) that name the
/// type, shaped by its thin fields like any event. Publishing an `id` again
/// returns the existing event (`200`, `duplicate: true`).
///
/// Operator token only; `404` when the tenant does not exist. Refused with
/// `422`: `unknown_system_event_type`, `validation_failed` (an invalid
/// `id`, `subject` or `data`), `schema_violation` (the data does not
/// satisfy the type's schema), `invalid_time`, `time_out_of_range`; `413`
/// `envelope_too_large` when the delivered CloudEvent could exceed the
/// delivery limit.
#[utoipa::path(operation_id = "tenants.system_events.publish", post, path = "/v1/tenants/{id}/system-events", tag = "tenants",
    params(("id" = String, Path, description = "The tenant's id.")),
    request_body = SystemEvent,
    responses((status = 202, description = "accepted", body = Published),
              (status = 200, description = "an event with this id exists already", body = Published),
              (status = 404, body = Problem), (status = 422, body = Problem)),
    security(("operator_token" = [])))]
pub async fn publish(
    State(state): State<Arc<AppState>>,
    _: OperatorAuth,
    Path(tenant_id): Path<String>,
    JsonBody(body): JsonBody<SystemEvent>,
) -> Result<(StatusCode, Json<Published>), ApiError> {
    if !super::tenants::tenant_exists(&state, &tenant_id).await? {
        return Err(ApiError::not_found("tenant"));
    }
    let Some(kind) = system::get(&body.event_type) else {
        let names: Vec<&str> = system::ALL.iter().map(|t| t.name).collect();
        return Err(ApiError::invalid(
            "unknown_system_event_type",
            "/type",
            format!(
                "`{}` is not a system event type; they are: {}",
                body.event_type,
                names.join(", ")
            ),
        ));
    };
    let now = state.clock.now();
    if let Some(id) = &body.id {
        validate::client_id(id).map_err(|m| ApiError::invalid("validation_failed", "/id", m))?;
    }
    deliverable::subject(body.subject.as_deref())?;
    let time = deliverable::event_time(body.time.as_deref(), now)?;
    let definition = kind.definition();
    let data: serde_json::Value = serde_json::from_str(body.data.get())
        .map_err(|_| ApiError::invalid("validation_failed", "/data", "cannot be decoded"))?;
    validate::json_nesting(&data)
        .map_err(|m| ApiError::invalid("validation_failed", "/data", m))?;
    schema::check(&schema::compile(&definition.schema)?, &data, "/data")?;
    let id = body.id.unwrap_or_else(|| new_id(IdKind::Event, now));
    let mut random = [0u8; 24];
    getrandom::fill(&mut random).map_err(|_| ApiError::internal())?;
    let trace = traceparent::generate(random);
    let dataschema = relay_core::attributes::dataschema_uri(kind.name, 1);
    deliverable::envelope_fits(
        &Envelope {
            id: &id,
            source: "",
            event_type: kind.name,
            time: Some(time),
            subject: body.subject.as_deref(),
            dataschema: Some(&dataschema),
            data: Some(&body.data),
            seq: None,
            traceparent: Some(&trace),
            environment: Some(body.environment),
            endpoint_version: None,
        },
        state.engine.max_payload_bytes(),
    )?;
    let scope = Scope {
        tenant_id,
        environment: body.environment,
    };
    let outcome = state
        .store
        .publish(
            &scope,
            NewEvent {
                id,
                event_type: kind.name.to_string(),
                type_version: 1,
                subject: body.subject,
                data: body.data,
                consumer_id: None,
                ordering_key: None,
                traceparent: trace,
                expires_at: None,
                time,
                now,
            },
        )
        .await?;
    Ok(super::events::published(&state, outcome))
}
