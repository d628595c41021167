//! Recovering what an endpoint missed: the missed list, recover (restart
//! its failed messages) and replay (deliver its events again), each within
//! the retention period.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::model::{Message, Page};
use relay_core::time::Timestamp;
use relay_store::{MessageFilter, StoreError};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::*;
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem, or_not_found};
use crate::extract::{JsonBody, QueryParams};

/// The range of an endpoint's messages to recover, by creation time.
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

/// The range of events to deliver to an endpoint again, by creation time.
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

/// What a replay created.
#[derive(Debug, Serialize, ToSchema)]
pub struct Replayed {
    /// Messages created (events the endpoint already had are skipped).
    pub messages_created: u64,
}

/// Replay events to an endpoint
///
/// Creates messages for the endpoint for the events created in the range
/// (within the retention period) that it subscribes to and that were not
/// published to another consumer, optionally only some `event_types`.
/// Events the endpoint already has a message for are skipped, so an
/// interrupted replay is resumed by replaying again. The messages are paced
/// recovery traffic; each keeps its event's `id` (`webhook-id`). Audited as
/// `endpoint.replayed`.
///
/// Tenant API key; `404` for an unknown endpoint; `422`
/// `validation_failed` (`until` not after `since`) or `outside_retention`.
#[utoipa::path(operation_id = "endpoints.replay", post, path = "/v1/endpoints/{id}/replay", tag = "recovery",
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
    let messages_created = relay_store::recovery::replay(
        &*state.store,
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

/// What a recover restarted.
#[derive(Debug, Serialize, ToSchema)]
pub struct Recovered {
    /// Messages whose schedule restarted.
    pub requeued: u64,
    /// Messages in range left as they were because a manual attempt
    /// (resend) was on the wire: at most one attempt runs for a message at
    /// a time. Recover again once it has ended.
    pub in_flight: u64,
}

/// Recover what an endpoint missed
///
/// Restarts the schedule of every failed (`failed_permanent`, `exhausted`,
/// `window_exceeded`, `dead_lettered`, `cancelled`) and unattempted
/// (`held`) message of the endpoint created in the range, as paced recovery
/// traffic below live traffic. Works in chunks, each its own transaction:
/// an interrupted recover is resumed by sending it again. A message whose
/// manual resend is on the wire is left as it is and counted in
/// `in_flight`. Audited as `endpoint.recovered`.
///
/// Tenant API key; `404` for an unknown endpoint; `409`
/// `invalid_endpoint_state` (enable or resume it first) or
/// `endpoint_state_changed` (paused or disabled meanwhile); `422`
/// `validation_failed` or `outside_retention`.
#[utoipa::path(operation_id = "endpoints.recover", post, path = "/v1/endpoints/{id}/recover", tag = "recovery",
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
    let done = run_recover(&state, &auth, &id, body.since, until).await?;
    Ok(Json(Recovered {
        requeued: done.requeued,
        in_flight: done.in_flight,
    }))
}

/// Restarts the endpoint's missed messages created in `[since, until)` as
/// recovery traffic (audited), and wakes the dispatcher for them. The store
/// works in bounded chunks (a transaction each), so a large recover never
/// holds the writer for long.
pub(super) async fn run_recover(
    state: &AppState,
    auth: &TenantAuth,
    id: &str,
    since: Timestamp,
    until: Timestamp,
) -> Result<relay_store::Recovered, ApiError> {
    let now = state.clock.now();
    let audit = entry(
        auth,
        "endpoint.recovered",
        id,
        serde_json::json!({ "since": since, "until": until }),
        now,
    );
    let done = relay_store::recovery::recover(&*state.store, &auth.scope, id, since, until, &audit)
        .await
        .map_err(|e| match e {
            StoreError::Conflict("endpoint_state_changed") => ApiError::new(
                StatusCode::CONFLICT,
                "endpoint_state_changed",
                "the endpoint was paused or disabled while recover ran: what it restarted stays \
                 restarted; recover again once the endpoint is active",
            ),
            StoreError::Conflict(_) => ApiError::new(
                StatusCode::CONFLICT,
                "invalid_endpoint_state",
                "recover needs an active endpoint: enable or resume it first",
            ),
            other => or_not_found("endpoint")(other),
        })?;
    if done.requeued > 0 {
        state.wake.notify_one();
    }
    Ok(done)
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
    /// The `next_after` of the previous page.
    pub after: Option<String>,
}

/// List what an endpoint missed
///
/// Lists the endpoint's messages that were not delivered: every terminal
/// state but `delivered`, and `held` (made while it was paused or
/// disabled), optionally created in a range, a page at a time. These are
/// what `recover` restarts. Each page reads at most 10,000 of the
/// endpoint's messages: when few of them were missed, a page may hold fewer
/// than `limit`, or none, and still name `next_after`; page on until it is
/// `null`. Tenant API key; `404` for an unknown endpoint.
#[utoipa::path(operation_id = "endpoints.list_missed", get, path = "/v1/endpoints/{id}/missed", tag = "recovery",
    params(("id" = String, Path, description = "The endpoint's id."), MissedQuery),
    responses((status = 200, body = Page<Message>), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn missed(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
    QueryParams(q): QueryParams<MissedQuery>,
) -> Result<Json<Page<Message>>, ApiError> {
    if crate::routes::endpoints::find(&*state.store, &auth.scope, &id)
        .await?
        .is_none()
    {
        return Err(ApiError::not_found("endpoint"));
    }
    let page = crate::routes::page_request(q.limit, q.after)?;
    let filter = MessageFilter {
        endpoint_id: Some(id),
        states: Some(MISSED_STATES.to_vec()),
        since: q.since,
        until: q.until,
        ..Default::default()
    };
    Ok(Json(
        crate::routes::messages::page_of(&state, &auth.scope, filter, page).await?,
    ))
}
