//! One message at a time: cancel, manual resend (under a lease, never
//! beside an automatic attempt) and the endpoint's test send. Each is
//! audited in the transaction of its change: the cancel, the resend's
//! lease, the test send's event (`relay_store::manual_audit`).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::id::IdKind;
use relay_core::model::{Attempt, Message};
use relay_store::{Commit, ExecutorExt as _, StoreError, new_id};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::*;
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem, or_not_found};
use crate::extract::OptionalJsonBody;

/// Cancel a message
///
/// Ends a pending message (`scheduled`, `held` or `in_flight`) as
/// `cancelled`: nothing more is attempted (recover or bulk retry can bring
/// it back). An attempt already on the wire finishes, but its result no
/// longer changes the message. Audited as `message.cancelled`.
///
/// Tenant API key; `404` for an unknown message; `409`
/// `message_not_pending` for a message that has ended.
#[utoipa::path(operation_id = "messages.cancel", post, path = "/v1/messages/{id}/cancel", tag = "recovery",
    params(("id" = String, Path, description = "The message's id.")),
    responses((status = 200, body = Message), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("api_key" = [])))]
pub async fn cancel(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<Message>, ApiError> {
    let now = state.clock.now();
    let audit = entry(&auth, "message.cancelled", &id, serde_json::json!({}), now);
    let scope = auth.scope.clone();
    let message = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move {
                relay_store::messages::cancel(&mut x, &scope, &id, now, Some(&audit)).await
            })
        })
        .await
        .map_err(|e| match e {
            StoreError::Conflict(_) => ApiError::new(
                StatusCode::CONFLICT,
                "message_not_pending",
                "only a scheduled, held or in-flight message can be cancelled",
            ),
            other => or_not_found("message")(other),
        })?;
    Ok(Json(message))
}

/// A manual attempt the endpoint's lane refused: `429` with `Retry-After`.
fn manual_refused(e: relay_engine::ManualError) -> ApiError {
    match e {
        relay_engine::ManualError::CircuitOpen { retry_after_secs } => ApiError::too_many(
            "endpoint_circuit_open",
            "the endpoint's circuit is open after consecutive failures: nothing is sent to it \
             before its cool-down ends",
            retry_after_secs,
        ),
        relay_engine::ManualError::Limited { retry_after_secs } => ApiError::too_many(
            "manual_attempts_limited",
            "the endpoint has as many manual attempts (resends, test sends) waiting for its \
             concurrency as it may; retry later",
            retry_after_secs,
        ),
        _ => ApiError::internal(),
    }
}

/// A resend's result: the message after the attempt, and the attempt.
#[derive(Debug, Serialize, ToSchema)]
pub struct Resent {
    /// The message after the attempt.
    pub message: Message,
    /// The attempt made; `null` when none could be made (e.g. the event expired).
    pub attempt: Option<Attempt>,
}

/// Resend a message now
///
/// Makes one immediate attempt at the message, whatever its state but
/// `in_flight`, and answers when it has ended. A success delivers the
/// message (and cancels its remaining schedule); a failure changes nothing
/// and uses no attempt. It goes through the endpoint's lane (its
/// concurrency, rate limit and circuit), never beside another attempt of
/// the message. Audited as `message.resent`.
///
/// Tenant API key; `404` for an unknown message; `409`
/// `attempt_in_flight`, `event_expired` (its time to live passed) or
/// `endpoint_deleted`; `429` `manual_attempts_limited` or
/// `endpoint_circuit_open` (retry after `Retry-After`).
#[utoipa::path(operation_id = "messages.resend", post, path = "/v1/messages/{id}/resend", tag = "recovery",
    params(("id" = String, Path, description = "The message's id.")),
    responses((status = 200, body = Resent), (status = 404, body = Problem), (status = 409, body = Problem),
              (status = 429, description = "too many manual attempts pending for the endpoint, or its circuit is open; see `Retry-After`", body = Problem)),
    security(("api_key" = [])))]
pub async fn resend(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<Resent>, ApiError> {
    let outcome = state
        .engine
        .resend(&auth.scope, &id, &auth.key_id)
        .await
        .map_err(|e| match e {
            relay_engine::ManualError::NotFound => ApiError::not_found("message"),
            relay_engine::ManualError::Busy => ApiError::new(
                StatusCode::CONFLICT,
                "attempt_in_flight",
                "an attempt for this message is in flight; at most one runs at a time",
            ),
            relay_engine::ManualError::EventExpired => ApiError::new(
                StatusCode::CONFLICT,
                "event_expired",
                "the event's time to live has passed; it is not delivered again",
            ),
            relay_engine::ManualError::EndpointDeleted => ApiError::new(
                StatusCode::CONFLICT,
                "endpoint_deleted",
                "the message's endpoint was deleted; nothing is sent to it",
            ),
            e @ (relay_engine::ManualError::Limited { .. }
            | relay_engine::ManualError::CircuitOpen { .. }) => manual_refused(e),
            relay_engine::ManualError::Unverified => unverified(),
            relay_engine::ManualError::Store(s) => s.into(),
        })?;
    let message = state
        .store
        .read({
            let (sc, id) = (auth.scope.clone(), id.clone());
            move |mut x| Box::pin(async move { relay_store::messages::get(&mut x, &sc, &id).await })
        })
        .await?
        .ok_or_else(|| ApiError::not_found("message"))?;
    Ok(Json(Resent {
        message,
        attempt: outcome.attempt,
    }))
}

/// Which event type a test send samples.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TestSend {
    /// The type to send a sample of; default: the first type the endpoint
    /// subscribes to that has a sample payload.
    pub event_type: Option<String>,
}

/// A test send's result: the test message and its first attempt.
#[derive(Debug, Serialize, ToSchema)]
pub struct TestSent {
    /// The test message (a real one: if the attempt failed, it is retried).
    pub message: Message,
    /// The attempt made; `null` when none could be made.
    pub attempt: Option<Attempt>,
}

/// The `subject` of the sample events the test action sends.
const TEST_SUBJECT: &str = "relay/test";

/// The first event type by name that `subscriptions` name and whose current
/// version has a sample: the named ones looked up one by one, or for `*`
/// the catalog read a page at a time, never all at once.
async fn first_with_sample(
    state: &AppState,
    scope: &relay_store::Scope,
    subscriptions: &[String],
) -> Result<Option<relay_core::model::EventType>, ApiError> {
    let has_sample =
        |t: &relay_core::model::EventType| t.current().is_some_and(|v| v.sample.is_some());
    if !subscriptions.iter().any(|s| s == "*") {
        let mut names: Vec<&String> = subscriptions.iter().collect();
        names.sort();
        for name in names {
            if let Some(t) = crate::routes::event_types::find(&*state.store, scope, name).await?
                && has_sample(&t)
            {
                return Ok(Some(t));
            }
        }
        return Ok(None);
    }
    let mut page = relay_store::PageRequest::first(100);
    loop {
        let p = crate::routes::event_types::stored_page(&*state.store, scope, &page).await?;
        if let Some(t) = p.data.into_iter().find(has_sample) {
            return Ok(Some(t));
        }
        match p.next_after {
            Some(after) => page.after = Some(after),
            None => return Ok(None),
        }
    }
}

/// Send a test event to an endpoint
///
/// Publishes a real event of one of the endpoint's types, its sample
/// payload with the subject `relay/test`, addressed to the endpoint's
/// consumer and delivered to this endpoint alone, and makes its first
/// attempt at once; the answer carries the message and the attempt. A
/// failed test is retried on the schedule like any message. Without
/// `event_type`, the first subscribed type (by name) with a sample is used.
/// Audited as `endpoint.test_sent`.
///
/// Tenant API key; `404` for an unknown endpoint. Refused with `422`:
/// `not_subscribed`, `unknown_event_type`, `no_sample`,
/// `a2a_test_send_unavailable` (an A2A task update type); `413`
/// `envelope_too_large`; `429` `manual_attempts_limited` or
/// `endpoint_circuit_open`.
#[utoipa::path(operation_id = "endpoints.send_test", post, path = "/v1/endpoints/{id}/test", tag = "recovery",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body = Option<TestSend>,
    responses((status = 200, body = TestSent), (status = 404, body = Problem), (status = 422, body = Problem),
              (status = 429, description = "too many manual attempts pending for the endpoint, or its circuit is open; see `Retry-After`", body = Problem)),
    security(("api_key" = [])))]
pub async fn test(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    OptionalJsonBody(body): OptionalJsonBody<TestSend>,
) -> Result<Json<TestSent>, ApiError> {
    let endpoint = crate::routes::endpoints::find(&*state.store, &auth.scope, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("endpoint"))?;
    // The rule publish applies (`relay_core::audience`): `*` takes every
    // type but Relay's own. The test event is addressed to the endpoint's
    // consumer.
    let subscribed = |t: &str| relay_core::audience::subscribes(&endpoint.event_types, t);
    let event_type = match body.event_type {
        Some(t) if !subscribed(&t) => {
            return Err(ApiError::invalid(
                "not_subscribed",
                "/event_type",
                format!("the endpoint does not subscribe to `{t}`"),
            ));
        }
        Some(t) => crate::routes::event_types::find(&*state.store, &auth.scope, &t).await?.ok_or_else(|| {
            ApiError::invalid("unknown_event_type", "/event_type", format!("`{t}` is not in the event catalog"))
        })?,
        None => first_with_sample(&state, &auth.scope, &endpoint.event_types)
            .await?
            .ok_or_else(|| {
                ApiError::invalid(
                    "no_sample",
                    "/event_type",
                    "none of the endpoint's event types has a sample payload; add one with PUT /v1/event-types/{name}",
                )
            })?,
    };
    // An A2A update belongs to one task, and an A2A push endpoint takes
    // only its own task's: a catalog sample is no task's update.
    if relay_core::a2a::is_update_type(&event_type.name) {
        return Err(ApiError::invalid(
            "a2a_test_send_unavailable",
            "/event_type",
            format!(
                "`{}` is an A2A task update: publish one for the endpoint's task instead (docs/a2a.md)",
                event_type.name
            ),
        ));
    }
    let current = event_type.current().ok_or_else(ApiError::internal)?;
    let sample = current
        .sample
        .clone()
        .unwrap_or_else(|| serde_json::json!({}));
    let data = serde_json::value::to_raw_value(&sample).map_err(|_| ApiError::internal())?;
    let now = state.clock.now();
    let mut random = [0u8; 24];
    getrandom::fill(&mut random).map_err(|_| ApiError::internal())?;
    let event_id = new_id(IdKind::Event, now);
    let traceparent = relay_core::traceparent::generate(random);
    let dataschema = relay_core::attributes::dataschema_uri(&event_type.name, current.version);
    crate::deliverable::envelope_fits(
        &relay_core::envelope::Envelope {
            id: &event_id,
            source: "",
            event_type: &event_type.name,
            time: Some(now),
            subject: Some(TEST_SUBJECT),
            dataschema: Some(&dataschema),
            data: Some(&data),
            seq: None,
            traceparent: Some(&traceparent),
            environment: Some(auth.scope.environment),
            endpoint_version: None,
        },
        state.engine.max_payload_bytes(),
    )?;
    let event = relay_store::NewEvent {
        id: event_id,
        event_type: event_type.name.clone(),
        type_version: current.version,
        subject: Some(TEST_SUBJECT.into()),
        data,
        consumer_id: Some(endpoint.consumer_id.clone()),
        ordering_key: None,
        traceparent,
        expires_at: None,
        time: now,
        now,
    };
    let (message_id, outcome) = state
        .engine
        .send_test(&auth.scope, &id, event, &auth.key_id)
        .await
        .map_err(|e| match e {
            relay_engine::ManualError::NotFound => ApiError::not_found("endpoint"),
            relay_engine::ManualError::Busy
            | relay_engine::ManualError::EventExpired
            | relay_engine::ManualError::EndpointDeleted => ApiError::internal(),
            e @ (relay_engine::ManualError::Limited { .. }
            | relay_engine::ManualError::CircuitOpen { .. }) => manual_refused(e),
            relay_engine::ManualError::Unverified => unverified(),
            relay_engine::ManualError::Store(s) => s.into(),
        })?;
    let message = state
        .store
        .read({
            let (sc, id) = (auth.scope.clone(), message_id.clone());
            move |mut x| Box::pin(async move { relay_store::messages::get(&mut x, &sc, &id).await })
        })
        .await?
        .ok_or_else(|| ApiError::not_found("message"))?;
    Ok(Json(TestSent {
        message,
        attempt: outcome.attempt,
    }))
}

/// `409 endpoint_unverified`: nothing goes to an endpoint whose receiver
/// has not proven ownership, not even by hand.
fn unverified() -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        "endpoint_unverified",
        "the endpoint's receiver has not proven that it wants the traffic; \
         see its health view and POST /v1/endpoints/{id}/verify-ownership",
    )
}
