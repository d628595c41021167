//! Publishing events and reading them back.
//!
//! A publish is validated against the current version of its event type's
//! schema, then written with all of its messages in one transaction
//! (`relay_store::Publisher::publish`) before `202` is returned. Publishing
//! an `id` again returns the existing event (`200`, `duplicate: true`) and
//! creates nothing.
//!
//! Nothing is accepted that could not be delivered (see [`crate::deliverable`]):
//! the `subject` and `time` follow the envelope's own rules, and the
//! delivered body, counted for the longest consumer source, must fit the
//! engine's delivery limit.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use relay_core::envelope::Envelope;
use relay_core::id::IdKind;
use relay_core::model::{Event, Message, Page};
use relay_core::traceparent;
use relay_core::validate;
use relay_engine::telemetry::{EventTrace, PublishSpan};
use relay_store::{ExecutorExt as _, MessageFilter, NewEvent, PageRequest, new_id};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::TenantAuth;
use crate::deliverable;
use crate::error::{ApiError, Problem};
use crate::extract::JsonBody;
use crate::schema;

/// An event to publish.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PublishEvent {
    /// Your id for the event (becomes `webhook-id`); publishing it again is a no-op.
    pub id: Option<String>,
    /// The event type's name, from the catalog (`PUT /v1/event-types/{name}`).
    #[serde(rename = "type")]
    pub event_type: String,
    /// The CloudEvents `subject`: 1 to 1024 bytes, no control characters.
    pub subject: Option<String>,
    /// When the event happened (the CloudEvents `time`), RFC 3339; defaults
    /// to now. From 1970-01-01T00:00:00Z to 5 minutes after Relay's clock.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub time: Option<String>,
    /// The payload; it must satisfy the event type's current schema. Kept byte for byte.
    #[schema(value_type = Object)]
    pub data: Box<RawValue>,
    /// Deliver only to this consumer's endpoints. Without it, the event
    /// reaches your own consumer's (kind `tenant`) endpoints, and your
    /// customers' only when its type's `audience` is `all_consumers`.
    pub consumer_id: Option<String>,
    /// Kinds that partition (Kafka, NATS, RabbitMQ, MQTT topics) keep the
    /// messages of one key in order; without it, the `subject` is the key.
    /// 1 to 255 characters. An A2A update's key is its task id (given or
    /// not: another key is refused).
    pub ordering_key: Option<String>,
    /// Give up delivering after this many seconds (message state `expired`).
    pub ttl_seconds: Option<u64>,
    /// W3C trace context to continue; without it, the request's
    /// `traceparent` header (when valid), else a new trace is begun.
    pub traceparent: Option<String>,
}

/// A published event, with what the publish created.
#[derive(Debug, Serialize, ToSchema)]
pub struct Published {
    #[serde(flatten)]
    pub event: Event,
    /// Messages created by this publish (one per subscribed endpoint).
    pub messages_created: u64,
    /// True when an event with this id already existed; nothing new was created.
    pub duplicate: bool,
}

/// An event with every message it produced (one per endpoint it was for).
#[derive(Debug, Serialize, ToSchema)]
pub struct EventWithMessages {
    #[serde(flatten)]
    pub event: Event,
    /// The event's messages, with their states.
    pub messages: Vec<Message>,
}

fn check_optional_text(value: &Option<String>, field: &str, max: usize) -> Result<(), ApiError> {
    match value {
        Some(v) if v.is_empty() || v.len() > max => Err(ApiError::invalid(
            "validation_failed",
            field,
            format!("must be 1 to {max} characters"),
        )),
        _ => Ok(()),
    }
}

/// Publish an event
///
/// Validates the event against the current version of its type's schema
/// and stores it with one message per subscribed endpoint, in one
/// transaction, before answering `202`: from then on Relay delivers it, at
/// least once, to each endpoint. Without `consumer_id` it reaches the
/// endpoints of your own consumer (kind `tenant`), and your customers' only
/// when its type's `audience` is `all_consumers`; with one, that consumer's
/// endpoints only. Publishing an `id` again creates nothing and returns the
/// existing event (`200`, `duplicate: true`), so a publish can be retried
/// safely with the same `id`.
///
/// Tenant API key. Refused with `422`: `unknown_event_type`,
/// `reserved_event_type` (Relay's own operational types),
/// `schema_violation` (listing each field at fault), `validation_too_costly`,
/// `validation_failed` (`id`, `ttl_seconds`, `traceparent`, `ordering_key`,
/// `subject`, undecodable `data`), `unknown_reference` (no such
/// `consumer_id`), `invalid_time`, `time_out_of_range`; for the A2A update
/// types (`a2a.task.status_updated`, `a2a.task.artifact_updated`: `data` is
/// the task's A2A `StreamResponse`, docs/a2a.md) `a2a_invalid_update`,
/// `a2a_consumer_required`, `a2a_ordering_key_mismatch`; `413`
/// `envelope_too_large`; `429` `busy` (retry after `Retry-After`).
#[utoipa::path(operation_id = "events.publish", post, path = "/v1/events", tag = "events", request_body = PublishEvent,
    responses((status = 202, description = "accepted: stored with its messages", body = Published),
              (status = 200, description = "duplicate id: the existing event", body = Published),
              (status = 422, description = "invalid: `code` is `validation_failed`, `schema_violation`, `validation_too_costly` (the payload's values times the schema's cost per value is over the budget), `unknown_event_type`, `invalid_time`, `time_out_of_range`, …", body = Problem),
              (status = 429, description = "`busy`: the tenant already has 8 schema checks or validations running or waiting; retry after `Retry-After` seconds", body = Problem),
              (status = 413, description = "`payload_too_large` (the request) or `envelope_too_large` (the delivered CloudEvent could exceed the delivery limit)", body = Problem)),
    security(("api_key" = [])))]
pub async fn publish(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    headers: HeaderMap,
    JsonBody(body): JsonBody<PublishEvent>,
) -> Result<(StatusCode, Json<Published>), ApiError> {
    let started = std::time::Instant::now();
    let now = state.clock.now();
    if let Some(id) = &body.id {
        validate::client_id(id).map_err(|m| ApiError::invalid("validation_failed", "/id", m))?;
    }
    deliverable::subject(body.subject.as_deref())?;
    let time = deliverable::event_time(body.time.as_deref(), now)?;
    check_optional_text(&body.ordering_key, "/ordering_key", 255)?;
    let ttl = ttl_checked(&state, body.ttl_seconds)?;
    let given =
        match body.traceparent {
            Some(t) => Some(traceparent::TraceParent::parse(&t).map_err(|e| {
                ApiError::invalid("validation_failed", "/traceparent", e.to_string())
            })?),
            // A header that is not a valid traceparent is ignored (W3C Trace
            // Context: the receiver then begins a new trace).
            None => headers
                .get("traceparent")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| traceparent::TraceParent::parse(v).ok()),
        };
    let id = body.id.unwrap_or_else(|| new_id(IdKind::Event, now));
    let trace = match given {
        Some(t) => t.to_string(),
        None => new_trace(&auth.scope, &id)?,
    };
    let (event_type, type_version) = checked_type_and_data(
        &state,
        &auth.scope,
        &Draft {
            id: &id,
            event_type: &body.event_type,
            subject: body.subject.as_deref(),
            time,
            data: &body.data,
            traceparent: &trace,
        },
    )
    .await?;
    // An A2A task update is checked as the `StreamResponse` it is sent as,
    // and keyed by its task (`docs/a2a.md`).
    let ordering_key = if relay_core::a2a::is_update_type(&event_type) {
        Some(deliverable::a2a_update(
            &event_type,
            &decoded(&body.data, "/data")?,
            body.consumer_id.as_deref(),
            body.ordering_key,
        )?)
    } else {
        body.ordering_key
    };
    if let Some(c) = &body.consumer_id
        && super::consumers::find(&*state.store, &auth.scope, c)
            .await?
            .is_none()
    {
        return Err(ApiError::invalid(
            "unknown_reference",
            "/consumer_id",
            "no consumer with this id in this environment",
        ));
    }
    let outcome = state
        .store
        .publish(
            &auth.scope,
            NewEvent {
                id,
                event_type,
                type_version,
                subject: body.subject,
                data: body.data,
                consumer_id: body.consumer_id,
                ordering_key,
                traceparent: trace,
                expires_at: ttl.map(|t| now.plus_seconds(t as i64)),
                time,
                now,
            },
        )
        .await?;
    let answer = published(&state, outcome);
    if let Some(tracer) = state.engine.tracer() {
        let event = &answer.1.event;
        let environment = auth.scope.environment.as_str();
        if let Some(trace) = EventTrace::of(
            &auth.scope.tenant_id,
            environment,
            &event.id,
            &event.traceparent,
        ) {
            tracer.export(
                PublishSpan {
                    tenant_id: &auth.scope.tenant_id,
                    environment,
                    event_id: &event.id,
                    event_type: &event.event_type,
                    trace,
                    started: now,
                    elapsed: started.elapsed(),
                    messages_created: answer.1.messages_created,
                    duplicate: answer.1.duplicate,
                }
                .span(),
            );
        }
    }
    Ok(answer)
}

/// `ttl_seconds` within 1 and the operator's longest time-to-live.
pub(crate) fn ttl_checked(state: &AppState, ttl: Option<u64>) -> Result<Option<u64>, ApiError> {
    match ttl {
        Some(t) if t == 0 || t > state.settings.max_event_ttl_seconds => Err(ApiError::invalid(
            "validation_failed",
            "/ttl_seconds",
            format!(
                "must be between 1 and {}",
                state.settings.max_event_ttl_seconds
            ),
        )),
        other => Ok(other),
    }
}

/// An event as publish checks it (and the workflow step).
pub(crate) struct Draft<'a> {
    pub id: &'a str,
    pub event_type: &'a str,
    pub subject: Option<&'a str>,
    pub time: relay_core::time::Timestamp,
    pub data: &'a RawValue,
    pub traceparent: &'a str,
}

/// Publish's checks of an event's type and data: not one of Relay's own
/// types, in the catalog, the delivered envelope within the delivery
/// limit, `data` decodable, not too deep, and valid against the type's
/// current schema. Returns the type's name and current version.
pub(crate) async fn checked_type_and_data(
    state: &AppState,
    scope: &relay_store::Scope,
    draft: &Draft<'_>,
) -> Result<(String, i64), ApiError> {
    if relay_core::operational::is_operational(draft.event_type) {
        return Err(ApiError::invalid(
            "reserved_event_type",
            "/type",
            format!("`{}` is published by Relay itself", draft.event_type),
        ));
    }
    let cache_key = (
        scope.tenant_id.clone(),
        scope.environment.as_str(),
        draft.event_type.to_string(),
    );
    let cached = state.event_types.get(&cache_key);
    let event_type = match cached {
        Some(et) => Some(et),
        None => {
            let et = super::event_types::find(&*state.store, scope, draft.event_type)
                .await?
                .map(Arc::new);
            if let Some(et) = &et {
                state.event_types.insert(cache_key, et.clone());
            }
            et
        }
    };
    let event_type = event_type.ok_or_else(|| {
        ApiError::invalid(
            "unknown_event_type",
            "/type",
            format!("`{}` is not in the event catalog", draft.event_type),
        )
    })?;
    let current = event_type.current().ok_or_else(ApiError::internal)?;
    let dataschema = relay_core::attributes::dataschema_uri(&event_type.name, current.version);
    deliverable::envelope_fits(
        &Envelope {
            id: draft.id,
            source: "",
            event_type: &event_type.name,
            time: Some(draft.time),
            subject: draft.subject,
            dataschema: Some(&dataschema),
            data: Some(draft.data),
            seq: None,
            traceparent: Some(draft.traceparent),
            environment: Some(scope.environment),
            endpoint_version: None,
        },
        state.engine.max_payload_bytes(),
    )?;
    let compiled = state
        .schemas
        .get(
            &state.cpu,
            &scope.tenant_id,
            scope.environment.as_str(),
            &event_type.name,
            current.version,
            &current.schema,
        )
        .await
        .map_err(|e| stored_schema_refused(e, &event_type.name, current.version))?;
    // The raw bytes passed the syntax check, but serde_json only rejects a
    // lone surrogate escape (`"\ud800"`) or a number beyond f64 (`1e400`)
    // when it decodes them: the client's input, not a server fault.
    let data = decoded(draft.data, "/data")?;
    validate::json_nesting(&data)
        .map_err(|m| ApiError::invalid("validation_failed", "/data", m))?;
    schema::validate(&state.cpu, &scope.tenant_id, compiled, data, "/data").await?;
    Ok((event_type.name.clone(), current.version))
}

/// `data` decoded, or the client's `422` on `field`.
pub(crate) fn decoded(data: &RawValue, field: &str) -> Result<serde_json::Value, ApiError> {
    serde_json::from_str(data.get()).map_err(|e| {
        let message = e.to_string();
        let message = message.split(" at line ").next().unwrap_or_default();
        ApiError::invalid(
            "validation_failed",
            field,
            format!("cannot be decoded: {message}"),
        )
    })
}

/// A new trace for an event published without one: its parent is the
/// event's publish span (`relay_core::traceparent::publish_span_id`), the
/// trace's root, so the dispatcher's attempt spans find it.
pub(crate) fn new_trace(scope: &relay_store::Scope, event_id: &str) -> Result<String, ApiError> {
    let mut random = [0u8; 24];
    getrandom::fill(&mut random).map_err(|_| ApiError::internal())?;
    let generated = traceparent::TraceParent::generate(random);
    let span = traceparent::publish_span_id(
        &scope.tenant_id,
        scope.environment.as_str(),
        event_id,
        &generated.trace_id,
    );
    Ok(generated.child(span).to_string())
}

/// A version stored before today's bounds on schemas that exceeds them:
/// the publish is refused with the bound's code, naming the version to
/// replace (its `PUT` would be refused the same way).
fn stored_schema_refused(mut e: ApiError, name: &str, version: i64) -> ApiError {
    if e.status == StatusCode::UNPROCESSABLE_ENTITY {
        e.detail = format!(
            "version {version} of `{name}` has a schema Relay no longer runs ({}); PUT a new version of the event type",
            e.detail
        );
        for f in &mut e.errors {
            f.field = "/type".into();
        }
    }
    e
}

/// A publish's answer (`202`, or `200` for a duplicate), once the
/// dispatcher has been woken for the messages it did not lease at publish.
pub(crate) fn published(
    state: &AppState,
    outcome: relay_store::PublishOutcome,
) -> (StatusCode, Json<Published>) {
    if outcome.messages_created > outcome.messages_leased {
        state.wake.notify_one();
    }
    let status = if outcome.duplicate {
        StatusCode::OK
    } else {
        StatusCode::ACCEPTED
    };
    (
        status,
        Json(Published {
            event: outcome.event,
            messages_created: outcome.messages_created,
            duplicate: outcome.duplicate,
        }),
    )
}

/// Get an event and its messages
///
/// Returns the event as published (its `data` byte for byte) and every
/// message it produced, one per endpoint, with its state: where the event
/// is in its delivery everywhere. It is also how a thin event's whole
/// payload is read, by whoever holds the tenant's API key.
///
/// Tenant API key; events of the key's tenant and environment only (`404`
/// otherwise).
#[utoipa::path(operation_id = "events.get", get, path = "/v1/events/{id}", tag = "events",
    params(("id" = String, Path, description = "The event's id.")),
    responses((status = 200, body = EventWithMessages), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<EventWithMessages>, ApiError> {
    let (scope, event_id) = (auth.scope.clone(), id.clone());
    let event = state
        .store
        .read(move |mut x| {
            Box::pin(
                async move { relay_store::messages::get_event(&mut x, &scope, &event_id).await },
            )
        })
        .await?
        .ok_or_else(|| ApiError::not_found("event"))?;
    let mut messages = Vec::new();
    let mut page = PageRequest {
        after: None,
        limit: super::MAX_PAGE,
    };
    loop {
        let filter = MessageFilter {
            event_id: Some(id.clone()),
            ..Default::default()
        };
        let Page { data, next_after } =
            super::messages::page_of(&state, &auth.scope, filter, page.clone()).await?;
        messages.extend(data);
        match next_after {
            Some(after) => page.after = Some(after),
            None => break,
        }
    }
    Ok(Json(EventWithMessages { event, messages }))
}
