//! Recovery and delivery control: pause, resume, enable, disable, recover,
//! missed events, cancel and resend (reference "Recovery").
//!
//! Every state change here is audited. A manual resend goes through the
//! dispatcher under a lease, so it never runs beside an automatic attempt.
//!
//! This module holds the endpoint's state changes and the retention checks
//! the others share; `recover` the missed list, recover and replay;
//! `messages` cancel, resend and the test send; `jobs` bulk retry.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use relay_core::lifecycle::EndpointAction;
use relay_core::model::MessageState;
use relay_core::time::Timestamp;
use relay_store::{Commit, ExecutorExt as _, endpoints};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::audit::entry;
use super::endpoints::{EndpointOut, warnings_of};
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem, or_not_found};

mod jobs;
mod messages;
mod recover;
pub use jobs::*;
pub use messages::*;
pub use recover::*;

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
    let current = super::endpoints::find(&*state.store, &auth.scope, id)
        .await?
        .ok_or_else(|| ApiError::not_found("endpoint"))?;
    let change = relay_core::lifecycle::decide(current.state, action)?;
    let now = state.clock.now();
    let audit = entry(auth, audit_action, id, serde_json::json!({}), now);
    // Applied only while the endpoint is still as read: a change that
    // committed meanwhile makes this one a 409, not an overwrite.
    let (scope, endpoint_id) = (auth.scope.clone(), id.to_string());
    let endpoint = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move {
                endpoints::change_state(&mut x, &scope, &endpoint_id, &change, &audit).await
            })
        })
        .await
        .map_err(or_not_found("endpoint"))?;
    // As applied: a resume or enable of an endpoint that owes the
    // ownership proof lands `unverified` and releases nothing.
    state.engine.endpoint_changed(id, endpoint.state).await;
    if endpoint.state == relay_core::model::EndpointState::Active
        && change.messages == relay_core::lifecycle::Messages::Release
    {
        state.wake.notify_one();
    }
    Ok(EndpointOut {
        warnings: warnings_of(&endpoint),
        endpoint,
    })
}

/// Pause an endpoint
///
/// Stops deliveries to an active endpoint at once: its due and new messages
/// are `held` (nothing is discarded, nothing attempted), also those the
/// dispatcher had leased ahead; an attempt already on the wire finishes.
/// Resume schedules them again. Audited as `endpoint.paused`.
///
/// Tenant API key; `404` for an unknown endpoint; `409`
/// `invalid_endpoint_state` unless the endpoint is active.
#[utoipa::path(operation_id = "endpoints.pause", post, path = "/v1/endpoints/{id}/pause", tag = "recovery",
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

/// Resume a paused endpoint
///
/// Makes a paused endpoint active again: its held messages are scheduled,
/// oldest due first, as live traffic within the endpoint's limits. Audited
/// as `endpoint.resumed`.
///
/// Tenant API key; `404` for an unknown endpoint; `409`
/// `invalid_endpoint_state` unless the endpoint is paused.
#[utoipa::path(operation_id = "endpoints.resume", post, path = "/v1/endpoints/{id}/resume", tag = "recovery",
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

/// Disable an endpoint
///
/// Disables an active or paused endpoint (`disabled_reason`:
/// `disabled_by_tenant`): its messages are held and kept for the retention
/// period, listed as missed, and the operational event
/// `webhook_endpoint.disabled` is published. Enable it, then recover what
/// it missed. Audited as `endpoint.disabled`.
///
/// Tenant API key; `404` for an unknown endpoint; `409`
/// `invalid_endpoint_state` when it is disabled already.
#[utoipa::path(operation_id = "endpoints.disable", post, path = "/v1/endpoints/{id}/disable", tag = "recovery",
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

/// Enable's options (the body may be absent): whether to recover what was
/// missed at once.
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

/// The enabled endpoint, and what was queued when `recover` was asked.
#[derive(Debug, Serialize, ToSchema)]
pub struct Enabled {
    #[serde(flatten)]
    pub endpoint: EndpointOut,
    /// With `recover`: the messages queued as recovery traffic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requeued: Option<u64>,
}

/// Enable a disabled endpoint
///
/// Makes a disabled endpoint active again, whatever disabled it, and
/// publishes `webhook_endpoint.recovered`. Its held messages stay held
/// (listed as missed) rather than flood an endpoint that just came back:
/// with `{"recover": true}` they are queued at once as paced recovery
/// traffic, as `recover` does from `since`, and the answer says how many
/// (`requeued`). Audited as `endpoint.enabled` (and `endpoint.recovered`).
///
/// Tenant API key; `404` for an unknown endpoint; `409`
/// `invalid_endpoint_state` unless the endpoint is disabled; `422`
/// `validation_failed` (`since` without `recover`) or `outside_retention`.
#[utoipa::path(operation_id = "endpoints.enable", post, path = "/v1/endpoints/{id}/enable", tag = "recovery",
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
        (Some(since), Some(until)) => Some(
            run_recover(&state, &auth, &id, since, until)
                .await?
                .requeued,
        ),
        _ => None,
    };
    Ok(Json(Enabled { endpoint, requeued }))
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

/// The start of the retention period (a second inside it, so a range from
/// it passes [`check_range`] on a clock that moved meanwhile).
fn retention_start(state: &AppState) -> Timestamp {
    let days = state.settings.retention_days;
    state
        .clock
        .now()
        .plus_seconds(-i64::from(days) * 86_400 + 1)
}
