//! The workflow step (docs/delivery.md, "The workflow step"): a workflow
//! engine asks Relay to deliver one step's event to one registered endpoint
//! of the caller's tenant and environment, named by its id (never a URL
//! taken from the event), idempotent by the step's key, and reads back the
//! delivery's outcome only: state, the last attempt's status code, the
//! number of attempts, times. Nothing of the receiver's answer but its
//! status code is recorded for the step's message (`relay_store::workflow_steps`,
//! `relay_core::workflow::withheld_detail`), so no API can show it.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::id::IdKind;
use relay_core::model::WorkflowStep;
use relay_core::validate;
use relay_core::workflow::{StepRequest, request_digest};
use relay_store::workflow_steps::{self, Created, NewStep};
use relay_store::{ExecutorExt as _, NewEvent, StoreError, new_id};
use serde::Deserialize;
use serde_json::value::RawValue;
use utoipa::ToSchema;

use super::events::{Draft, checked_type_and_data, decoded, new_trace, ttl_checked};
use crate::AppState;
use crate::auth::TenantAuth;
use crate::deliverable;
use crate::error::{ApiError, Problem};
use crate::extract::JsonBody;

/// The event a workflow step delivers.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StepEvent {
    /// The event type's name, from the catalog; the endpoint must subscribe to it.
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
    /// Give up delivering after this many seconds (state `expired`).
    pub ttl_seconds: Option<u64>,
}

/// A workflow step to run: deliver `event` to the endpoint `endpoint_id`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWorkflowStep {
    /// The workflow engine's key for the step, 1 to 255 of letters, digits
    /// and `_ - . : / @ |`; unique in the tenant's environment. Sending the
    /// same request again answers the same step; another request with the
    /// key is refused.
    pub step_key: String,
    /// The registered endpoint to deliver to (`ep_…`), of the key's tenant
    /// and environment. The only destination a step can name.
    pub endpoint_id: String,
    /// The event.
    pub event: StepEvent,
}

/// Prefixes the fields of `e`'s refusals with `/event`: the event's checks
/// are publish's, whose fields are at the top of its body.
fn under_event(mut e: ApiError) -> ApiError {
    for f in &mut e.errors {
        f.field = format!("/event{}", f.field);
    }
    e
}

/// The step `key` made before, answered as the same request (`200`) or
/// refused as another (`409 step_key_reused`).
fn repeated(step: WorkflowStep, same: bool) -> Result<(StatusCode, Json<WorkflowStep>), ApiError> {
    if same {
        return Ok((StatusCode::OK, Json(step)));
    }
    Err(key_reused(&step.step_key))
}

fn key_reused(key: &str) -> ApiError {
    ApiError::new(
        StatusCode::CONFLICT,
        workflow_steps::KEY_REUSED,
        format!(
            "the step key `{key}` was used by another request (another endpoint or event); use a new key"
        ),
    )
}

/// Run a workflow step
///
/// Delivers one event to one registered endpoint, for a workflow engine:
/// the endpoint is named by its id (it must be the key's tenant's and
/// environment's, and subscribe to the event's type), never by a URL. The
/// event is checked as a publish is, addressed to the endpoint's consumer,
/// stored with its one message before `202`, and delivered at least once
/// by the same rules as any message (retries, a paused or disabled endpoint
/// holds it). Its answer is never recorded beyond its status code: no body,
/// header or redirect target of it can be read back, here or anywhere.
///
/// Idempotent by `step_key`: the same request again answers the same step
/// (`200`) and delivers nothing more; another request with the key is
/// `409 step_key_reused`.
///
/// Tenant API key. `404` for an endpoint not found in the key's
/// environment. Refused with `422`: `validation_failed` (`step_key`,
/// `event/subject`, `event/ttl_seconds`, undecodable `event/data`),
/// `not_subscribed`, `unknown_event_type`, `reserved_event_type`,
/// `a2a_update_not_a_step`,
/// `schema_violation`, `validation_too_costly`, `invalid_time`,
/// `time_out_of_range`; `413` `envelope_too_large`.
#[utoipa::path(operation_id = "workflow_steps.create", post, path = "/v1/workflow-steps", tag = "workflow-steps",
    request_body = CreateWorkflowStep,
    responses((status = 202, description = "accepted: the step, its event and its message are stored", body = WorkflowStep),
              (status = 200, description = "the same request made this step before: the step, nothing more delivered", body = WorkflowStep),
              (status = 404, description = "`not_found`: no such endpoint in the key's environment", body = Problem),
              (status = 409, description = "`step_key_reused`: the key's step was made by another request", body = Problem),
              (status = 422, description = "invalid: `code` is `validation_failed`, `not_subscribed`, `schema_violation`, `unknown_event_type`, `invalid_time`, …", body = Problem),
              (status = 413, description = "`payload_too_large` (the request) or `envelope_too_large` (the delivered CloudEvent could exceed the delivery limit)", body = Problem)),
    security(("api_key" = [])))]
pub async fn create(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    JsonBody(body): JsonBody<CreateWorkflowStep>,
) -> Result<(StatusCode, Json<WorkflowStep>), ApiError> {
    let now = state.clock.now();
    validate::client_id(&body.step_key)
        .map_err(|m| ApiError::invalid("validation_failed", "/step_key", m))?;
    let event = &body.event;
    deliverable::subject(event.subject.as_deref()).map_err(under_event)?;
    let time = deliverable::event_time(event.time.as_deref(), now).map_err(under_event)?;
    let ttl = ttl_checked(&state, event.ttl_seconds).map_err(under_event)?;
    let data = decoded(&event.data, "/data").map_err(under_event)?;
    let digest = request_digest(&StepRequest {
        endpoint_id: &body.endpoint_id,
        event_type: &event.event_type,
        data: &data,
        subject: event.subject.as_deref(),
        time: event.time.as_deref(),
        ttl_seconds: event.ttl_seconds,
    });
    // The key's step, if the same or another request made it: answered
    // before anything else is looked at (its endpoint may be gone since).
    if let Some((step, made_by)) = find(&state, &auth, &body.step_key).await? {
        return repeated(step, made_by == digest);
    }
    let endpoint = super::endpoints::find(&*state.store, &auth.scope, &body.endpoint_id)
        .await?
        .ok_or_else(|| ApiError::not_found("endpoint"))?;
    if !relay_core::audience::subscribes(&endpoint.event_types, &event.event_type) {
        return Err(ApiError::invalid(
            "not_subscribed",
            "/event/type",
            format!("the endpoint does not subscribe to `{}`", event.event_type),
        ));
    }
    let id = new_id(IdKind::Event, now);
    let trace = new_trace(&auth.scope, &id)?;
    let (event_type, type_version) = checked_type_and_data(
        &state,
        &auth.scope,
        &Draft {
            id: &id,
            event_type: &event.event_type,
            subject: event.subject.as_deref(),
            time,
            data: &event.data,
            traceparent: &trace,
        },
    )
    .await
    .map_err(under_event)?;
    // An A2A task update goes to its task's push configurations by its
    // consumer and task id (`POST /v1/events`), never as a step.
    if relay_core::a2a::is_update_type(&event_type) {
        return Err(ApiError::invalid(
            "a2a_update_not_a_step",
            "/event/type",
            format!("`{event_type}` is an A2A task update: publish it with POST /v1/events"),
        ));
    }
    let step = NewStep {
        step_key: body.step_key.clone(),
        request_sha256: digest,
        endpoint_id: body.endpoint_id.clone(),
        event: NewEvent {
            id,
            event_type,
            type_version,
            subject: event.subject.clone(),
            data: body.event.data,
            consumer_id: None,
            ordering_key: None,
            traceparent: trace,
            expires_at: ttl.map(|t| now.plus_seconds(t as i64)),
            time,
            now,
        },
    };
    let scope = auth.scope.clone();
    let created = state
        .store
        .write(relay_store::Commit::Durable, move |mut x| {
            Box::pin(async move { workflow_steps::create(&mut x, &scope, &step).await })
        })
        .await;
    match created {
        Ok(Created::New(step)) => {
            state.wake.notify_one();
            Ok((StatusCode::ACCEPTED, Json(step)))
        }
        // A concurrent request with the key made it first.
        Ok(Created::Existing(step)) => Ok((StatusCode::OK, Json(step))),
        Err(StoreError::Conflict(workflow_steps::KEY_REUSED)) => Err(key_reused(&body.step_key)),
        Err(StoreError::NotFound) => Err(ApiError::not_found("endpoint")),
        // Its subscriptions changed since they were read.
        Err(StoreError::Conflict("not_addressed")) => Err(ApiError::invalid(
            "not_subscribed",
            "/event/type",
            format!(
                "the endpoint does not subscribe to `{}`",
                body.event.event_type
            ),
        )),
        Err(e) => Err(e.into()),
    }
}

/// Get a workflow step's outcome
///
/// The delivery's outcome and nothing of the receiver's answer but its
/// status code: the message's state, the last attempt's `status_code`, how
/// many attempts were made, and when. A `step_key` with `/` is sent
/// percent-encoded (`%2F`).
///
/// Tenant API key; `404` for a key with no step in the key's tenant and
/// environment (or whose event the retention period has purged).
#[utoipa::path(operation_id = "workflow_steps.get", get, path = "/v1/workflow-steps/{step_key}", tag = "workflow-steps",
    params(("step_key" = String, Path, description = "The step's key.")),
    responses((status = 200, body = WorkflowStep), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(step_key): Path<String>,
) -> Result<Json<WorkflowStep>, ApiError> {
    find(&state, &auth, &step_key)
        .await?
        .map(|(step, _)| Json(step))
        .ok_or_else(|| ApiError::not_found("workflow step"))
}

/// The step `step_key` of the caller's scope, with the digest of the
/// request that made it.
async fn find(
    state: &AppState,
    auth: &TenantAuth,
    step_key: &str,
) -> Result<Option<(WorkflowStep, String)>, ApiError> {
    let (scope, key) = (auth.scope.clone(), step_key.to_string());
    Ok(state
        .store
        .read(move |mut x| {
            Box::pin(async move { workflow_steps::find(&mut x, &scope, &key).await })
        })
        .await?)
}
