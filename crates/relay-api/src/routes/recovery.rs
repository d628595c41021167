//! Recovery and delivery control: pause, resume, enable, disable, recover,
//! missed events, cancel and resend (reference "Recovery").
//!
//! Every state change here is audited. A manual resend goes through the
//! dispatcher under a lease, so it never runs beside an automatic attempt.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::id::IdKind;
use relay_core::lifecycle::EndpointAction;
use relay_core::model::{Attempt, Message, MessageState, Page};
use relay_core::time::Timestamp;
use relay_store::{MessageFilter, StoreError, new_id};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::audit::entry;
use super::endpoints::{EndpointOut, warnings_of};
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem, or_not_found};
use crate::extract::{JsonBody, OptionalJsonBody, QueryParams};

/// The states listed as missed: every terminal state but `delivered`, and
/// `held` (produced while the endpoint was paused or disabled).
pub const MISSED_STATES: [MessageState; 7] = [
    MessageState::FailedPermanent,
    MessageState::Exhausted,
    MessageState::Expired,
    MessageState::WindowExceeded,
    MessageState::DeadLettered,
    MessageState::Cancelled,
    MessageState::Held,
];

/// Applies `action` to the endpoint through the one rule
/// (`relay_core::lifecycle`), audited as `audit_action`, and tells the
/// dispatcher at once (pause and disable stop what it has leased ahead).
async fn change_state(
    state: &AppState,
    auth: &TenantAuth,
    id: &str,
    action: EndpointAction,
    audit_action: &str,
) -> Result<EndpointOut, ApiError> {
    let current = state
        .store
        .get_endpoint(&auth.scope, id)
        .await?
        .ok_or_else(|| ApiError::not_found("endpoint"))?;
    let change = relay_core::lifecycle::decide(current.state, action)?;
    let now = state.clock.now();
    let audit = entry(auth, audit_action, id, serde_json::json!({}), now);
    // Applied only while the endpoint is still as read: a change that
    // committed meanwhile makes this one a 409, not an overwrite.
    let endpoint = state
        .store
        .change_endpoint_state(&auth.scope, id, &change, &audit)
        .await
        .map_err(or_not_found("endpoint"))?;
    state.engine.endpoint_changed(id, change.to).await;
    if change.messages == relay_core::lifecycle::Messages::Release {
        state.wake.notify_one();
    }
    Ok(EndpointOut {
        warnings: warnings_of(&endpoint),
        endpoint,
    })
}

#[utoipa::path(operation_id = "endpoints_pause", post, path = "/v1/endpoints/{id}/pause", tag = "recovery",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, body = EndpointOut), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("api_key" = [])))]
pub async fn pause(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<EndpointOut>, ApiError> {
    change_state(&state, &auth, &id, EndpointAction::Pause, "endpoint.paused")
        .await
        .map(Json)
}

#[utoipa::path(operation_id = "endpoints_resume", post, path = "/v1/endpoints/{id}/resume", tag = "recovery",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, body = EndpointOut), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("api_key" = [])))]
pub async fn resume(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<EndpointOut>, ApiError> {
    change_state(
        &state,
        &auth,
        &id,
        EndpointAction::Resume,
        "endpoint.resumed",
    )
    .await
    .map(Json)
}

#[utoipa::path(operation_id = "endpoints_disable", post, path = "/v1/endpoints/{id}/disable", tag = "recovery",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, body = EndpointOut), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("api_key" = [])))]
pub async fn disable(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<EndpointOut>, ApiError> {
    change_state(
        &state,
        &auth,
        &id,
        EndpointAction::Disable,
        "endpoint.disabled",
    )
    .await
    .map(Json)
}

/// Enable's options; the body may be absent.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EnableBody {
    /// Also queue what was missed while disabled, as `recover` does from
    /// `since` (default: the start of the retention period): paced recovery
    /// traffic, never a flood of live traffic. Without it, held messages
    /// stay held (listed by `GET /v1/endpoints/{id}/missed`) until a recover.
    #[serde(default)]
    pub recover: bool,
    /// Where that recover starts (only with `recover`).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub since: Option<Timestamp>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Enabled {
    #[serde(flatten)]
    pub endpoint: EndpointOut,
    /// With `recover`: the messages queued as recovery traffic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requeued: Option<u64>,
}

#[utoipa::path(operation_id = "endpoints_enable", post, path = "/v1/endpoints/{id}/enable", tag = "recovery",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body(content = Option<EnableBody>),
    responses((status = 200, body = Enabled), (status = 404, body = Problem), (status = 409, body = Problem), (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn enable(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> Result<Json<Enabled>, ApiError> {
    // No body (or an empty one): the defaults.
    let body: EnableBody = if body.is_empty() {
        EnableBody::default()
    } else {
        crate::extract::parse_json(&body)?
    };
    if body.since.is_some() && !body.recover {
        return Err(ApiError::invalid(
            "validation_failed",
            "/since",
            "since applies only with recover: true",
        ));
    }
    let since = match body.since {
        Some(since) => Some(since),
        None if body.recover => Some(retention_start(&state)),
        None => None,
    };
    let until = since.map(|s| check_range(&state, s, None)).transpose()?;
    let endpoint = change_state(
        &state,
        &auth,
        &id,
        EndpointAction::Enable,
        "endpoint.enabled",
    )
    .await?;
    let requeued = match (since, until) {
        (Some(since), Some(until)) => Some(run_recover(&state, &auth, &id, since, until).await?),
        _ => None,
    };
    Ok(Json(Enabled { endpoint, requeued }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecoverBody {
    /// Requeue messages created at or after this time.
    #[schema(value_type = String, format = DateTime)]
    pub since: Timestamp,
    /// …and before this time (default: now).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub until: Option<Timestamp>,
}

/// The end of a `[since, until)` range (default: now), refusing ranges that
/// start before the retention period (those events are gone or going).
fn check_range(
    state: &AppState,
    since: Timestamp,
    until: Option<Timestamp>,
) -> Result<Timestamp, ApiError> {
    let now = state.clock.now();
    let until = until.unwrap_or(now.plus_millis(1));
    if until <= since {
        return Err(ApiError::invalid(
            "validation_failed",
            "/until",
            "must be after since",
        ));
    }
    within_retention(state, now, since, "/since")?;
    Ok(until)
}

/// Refuses a time before the retention period that ends at `now` (events
/// created then are gone or going): `outside_retention`.
fn within_retention(
    state: &AppState,
    now: Timestamp,
    at: Timestamp,
    pointer: &str,
) -> Result<(), ApiError> {
    let days = state.settings.retention_days;
    let oldest = now.plus_seconds(-i64::from(days) * 86_400);
    if at < oldest {
        return Err(ApiError::invalid(
            "outside_retention",
            pointer,
            format!(
                "events are kept for {days} days; {} must be after {}",
                &pointer[1..],
                oldest.to_rfc3339()
            ),
        ));
    }
    Ok(())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayBody {
    /// Replay events created at or after this time (within retention).
    #[schema(value_type = String, format = DateTime)]
    pub since: Timestamp,
    /// …and before this time (default: now).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub until: Option<Timestamp>,
    /// Only these types (each must be one the endpoint subscribes to).
    pub event_types: Option<Vec<String>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Replayed {
    /// Messages created (events the endpoint already had are skipped).
    pub messages_created: u64,
}

#[utoipa::path(operation_id = "endpoints_replay", post, path = "/v1/endpoints/{id}/replay", tag = "recovery",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body = ReplayBody,
    responses((status = 200, body = Replayed), (status = 404, body = Problem), (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn replay(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<ReplayBody>,
) -> Result<Json<Replayed>, ApiError> {
    let now = state.clock.now();
    let until = check_range(&state, body.since, body.until)?;
    let audit = entry(
        &auth,
        "endpoint.replayed",
        &id,
        serde_json::json!({ "since": body.since, "until": until, "event_types": body.event_types }),
        now,
    );
    let messages_created = state
        .store
        .replay(
            &auth.scope,
            &id,
            body.since,
            until,
            body.event_types.as_deref(),
            &audit,
        )
        .await
        .map_err(or_not_found("endpoint"))?;
    if messages_created > 0 {
        state.wake.notify_one();
    }
    Ok(Json(Replayed { messages_created }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Recovered {
    /// Messages whose schedule restarted.
    pub requeued: u64,
}

#[utoipa::path(operation_id = "endpoints_recover", post, path = "/v1/endpoints/{id}/recover", tag = "recovery",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body = RecoverBody,
    responses((status = 200, body = Recovered), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("api_key" = [])))]
pub async fn recover(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<RecoverBody>,
) -> Result<Json<Recovered>, ApiError> {
    let until = check_range(&state, body.since, body.until)?;
    let requeued = run_recover(&state, &auth, &id, body.since, until).await?;
    Ok(Json(Recovered { requeued }))
}

/// The start of the retention period (a second inside it, so a range from
/// it passes [`check_range`] on a clock that moved meanwhile).
fn retention_start(state: &AppState) -> Timestamp {
    let days = state.settings.retention_days;
    state
        .clock
        .now()
        .plus_seconds(-i64::from(days) * 86_400 + 1)
}

/// Restarts the endpoint's missed messages created in `[since, until)` as
/// recovery traffic (audited), and wakes the dispatcher for them.
async fn run_recover(
    state: &AppState,
    auth: &TenantAuth,
    id: &str,
    since: Timestamp,
    until: Timestamp,
) -> Result<u64, ApiError> {
    let now = state.clock.now();
    let audit = entry(
        auth,
        "endpoint.recovered",
        id,
        serde_json::json!({ "since": since, "until": until }),
        now,
    );
    let requeued = state
        .store
        .recover(&auth.scope, id, since, until, &audit)
        .await
        .map_err(|e| match e {
            StoreError::Conflict(_) => ApiError::new(
                StatusCode::CONFLICT,
                "invalid_endpoint_state",
                "recover needs an active endpoint: enable or resume it first",
            ),
            other => or_not_found("endpoint")(other),
        })?;
    if requeued > 0 {
        state.wake.notify_one();
    }
    Ok(requeued)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct MissedQuery {
    /// Created at or after (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    pub since: Option<Timestamp>,
    /// Created before (RFC 3339).
    #[param(value_type = Option<String>, format = DateTime)]
    pub until: Option<Timestamp>,
    /// Page size, 1 to 250 (default 50).
    #[param(minimum = 1, maximum = 250)]
    pub limit: Option<u32>,
    pub after: Option<String>,
}

#[utoipa::path(operation_id = "endpoints_missed", get, path = "/v1/endpoints/{id}/missed", tag = "recovery",
    params(("id" = String, Path, description = "The endpoint's id."), MissedQuery),
    responses((status = 200, body = Page<Message>), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn missed(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<MissedQuery>,
) -> Result<Json<Page<Message>>, ApiError> {
    if state.store.get_endpoint(&auth.scope, &id).await?.is_none() {
        return Err(ApiError::not_found("endpoint"));
    }
    let page = super::page_request(q.limit, q.after)?;
    let filter = MessageFilter {
        endpoint_id: Some(id),
        states: Some(MISSED_STATES.to_vec()),
        since: q.since,
        until: q.until,
        ..Default::default()
    };
    Ok(Json(
        state
            .store
            .list_messages(&auth.scope, &filter, &page)
            .await?,
    ))
}

#[utoipa::path(operation_id = "messages_cancel", post, path = "/v1/messages/{id}/cancel", tag = "recovery",
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
    let message = state
        .store
        .cancel_message(&auth.scope, &id, now, Some(&audit))
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

#[derive(Debug, Serialize, ToSchema)]
pub struct Resent {
    /// The message after the attempt.
    pub message: Message,
    /// The attempt made; `null` when none could be made (e.g. the event expired).
    pub attempt: Option<Attempt>,
}

#[utoipa::path(operation_id = "messages_resend", post, path = "/v1/messages/{id}/resend", tag = "recovery",
    params(("id" = String, Path, description = "The message's id.")),
    responses((status = 200, body = Resent), (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("api_key" = [])))]
pub async fn resend(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<Resent>, ApiError> {
    let outcome = state
        .engine
        .resend(&auth.scope, &id)
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
            relay_engine::ManualError::Store(s) => s.into(),
        })?;
    let message = state
        .store
        .get_message(&auth.scope, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("message"))?;
    Ok(Json(Resent {
        message,
        attempt: outcome.attempt,
    }))
}

/// The messages a bulk retry restarts; every field narrows the selection.
#[derive(Debug, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkRetry {
    pub endpoint_id: Option<String>,
    pub event_type: Option<String>,
    /// One of the failed states (`failed_permanent`, `exhausted`, `window_exceeded`, `dead_lettered`, `cancelled`).
    pub state: Option<MessageState>,
    pub error_code: Option<String>,
    /// Created at or after; within the retention period (else
    /// `outside_retention`). Default: the start of the retention period
    /// (messages whose event is older are never restarted).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub since: Option<Timestamp>,
    /// Created before; within the retention period.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub until: Option<Timestamp>,
}

#[utoipa::path(operation_id = "messages_bulk_retry", post, path = "/v1/messages/retry", tag = "recovery",
    request_body = Option<BulkRetry>,
    responses((status = 202, description = "queued as a durable job", body = relay_store::Job),
              (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn bulk_retry(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    OptionalJsonBody(body): OptionalJsonBody<BulkRetry>,
) -> Result<(StatusCode, Json<relay_store::Job>), ApiError> {
    if let Some(s) = body.state
        && !relay_core::transition::RESTARTABLE.contains(&s)
    {
        return Err(ApiError::invalid(
            "validation_failed",
            "/state",
            "bulk retry restarts failed messages: failed_permanent, exhausted, window_exceeded, dead_lettered or cancelled",
        ));
    }
    if let (Some(since), Some(until)) = (body.since, body.until)
        && until <= since
    {
        return Err(ApiError::invalid(
            "validation_failed",
            "/until",
            "must be after since",
        ));
    }
    let now = state.clock.now();
    // Only what retention keeps: `since` (when given) within it; without
    // `since`, the job restarts only messages whose event is still kept.
    if let Some(since) = body.since {
        within_retention(&state, now, since, "/since")?;
    }
    if let Some(until) = body.until {
        within_retention(&state, now, until, "/until")?;
    }
    let parameters = serde_json::to_value(&body).map_err(|_| ApiError::internal())?;
    let job = relay_store::Job {
        id: new_id(IdKind::Job, now),
        kind: "bulk_retry".into(),
        parameters: parameters.clone(),
        state: "queued".into(),
        processed: 0,
        affected: 0,
        created_at: now,
        updated_at: now,
        finished_at: None,
    };
    let audit = entry(&auth, "messages.bulk_retry", &job.id, parameters, now);
    state.store.create_job(&auth.scope, &job, &audit).await?;
    Ok((StatusCode::ACCEPTED, Json(job)))
}

#[utoipa::path(operation_id = "jobs_get", get, path = "/v1/jobs/{id}", tag = "recovery",
    params(("id" = String, Path, description = "The job's id.")),
    responses((status = 200, body = relay_store::Job), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn job(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<relay_store::Job>, ApiError> {
    state
        .store
        .get_job(&auth.scope, &id)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("job"))
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TestSend {
    /// The type to send a sample of; default: the first type the endpoint
    /// subscribes to that has a sample payload.
    pub event_type: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TestSent {
    /// The test message (a real one: if the attempt failed, it is retried).
    pub message: Message,
    pub attempt: Option<Attempt>,
}

/// The `subject` of the sample events the test action sends.
const TEST_SUBJECT: &str = "relay/test";

#[utoipa::path(operation_id = "endpoints_test", post, path = "/v1/endpoints/{id}/test", tag = "recovery",
    params(("id" = String, Path, description = "The endpoint's id.")),
    request_body = Option<TestSend>,
    responses((status = 200, body = TestSent), (status = 404, body = Problem), (status = 422, body = Problem)),
    security(("api_key" = [])))]
pub async fn test(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    OptionalJsonBody(body): OptionalJsonBody<TestSend>,
) -> Result<Json<TestSent>, ApiError> {
    let endpoint = state
        .store
        .get_endpoint(&auth.scope, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("endpoint"))?;
    let subscribed = |t: &str| endpoint.event_types.iter().any(|s| s == "*" || s == t);
    let event_type = match body.event_type {
        Some(t) if !subscribed(&t) => {
            return Err(ApiError::invalid(
                "not_subscribed",
                "/event_type",
                format!("the endpoint does not subscribe to `{t}`"),
            ));
        }
        Some(t) => state.store.get_event_type(&auth.scope, &t).await?.ok_or_else(|| {
            ApiError::invalid("unknown_event_type", "/event_type", format!("`{t}` is not in the event catalog"))
        })?,
        None => state
            .store
            .list_event_types(&auth.scope)
            .await?
            .into_iter()
            .find(|t| subscribed(&t.name) && t.current().is_some_and(|v| v.sample.is_some()))
            .ok_or_else(|| {
                ApiError::invalid(
                    "no_sample",
                    "/event_type",
                    "none of the endpoint's event types has a sample payload; add one with PUT /v1/event-types/{name}",
                )
            })?,
    };
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
        },
        state.engine.config().max_payload_bytes,
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
        .send_test(&auth.scope, &id, event)
        .await
        .map_err(|e| match e {
            relay_engine::ManualError::NotFound => ApiError::not_found("endpoint"),
            relay_engine::ManualError::Busy
            | relay_engine::ManualError::EventExpired
            | relay_engine::ManualError::EndpointDeleted => ApiError::internal(),
            relay_engine::ManualError::Store(s) => s.into(),
        })?;
    let message = state
        .store
        .get_message(&auth.scope, &message_id)
        .await?
        .ok_or_else(|| ApiError::not_found("message"))?;
    Ok(Json(TestSent {
        message,
        attempt: outcome.attempt,
    }))
}
