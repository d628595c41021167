//! Bulk retry as a durable job, and reading a job.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::id::IdKind;
use relay_core::model::{BulkRetry, JobKind, JobState};
use relay_store::{Commit, ExecutorExt as _, new_id};

use super::*;
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem};
use crate::extract::OptionalJsonBody;

/// Retry failed messages in bulk
///
/// Queues a durable job that restarts the schedule of the failed messages
/// (`failed_permanent`, `exhausted`, `window_exceeded`, `dead_lettered`,
/// `cancelled`) the filter selects, across endpoints, as paced recovery
/// traffic; every field narrows the selection, and an empty body selects
/// every failed message within retention. The job works in batches and
/// resumes after a restart; follow it with `GET /v1/jobs/{id}`. Audited as
/// `messages.bulk_retry`.
///
/// Tenant API key. Refused with `422` `validation_failed` (a `state` that is
/// not a failed one, `until` not after `since`) or `outside_retention`.
#[utoipa::path(operation_id = "messages.retry", post, path = "/v1/messages/retry", tag = "recovery",
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
    let parameters = body.to_parameters();
    let job = relay_store::Job {
        id: new_id(IdKind::Job, now),
        kind: JobKind::BulkRetry,
        parameters: parameters.clone(),
        state: JobState::Queued,
        processed: 0,
        affected: 0,
        created_at: now,
        updated_at: now,
        finished_at: None,
    };
    let audit = entry(&auth, "messages.bulk_retry", &job.id, parameters, now);
    let (scope, queued) = (auth.scope.clone(), job.clone());
    state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(
                async move { relay_store::jobs::create(&mut x, &scope, &queued, &audit).await },
            )
        })
        .await?;
    Ok((StatusCode::ACCEPTED, Json(job)))
}

/// Get a job
///
/// Returns a durable job (a bulk retry) and its progress: messages
/// examined (`processed`), restarted (`affected`), its state. Tenant API
/// key; `404` for a job of another tenant or environment.
#[utoipa::path(operation_id = "jobs.get", get, path = "/v1/jobs/{id}", tag = "recovery",
    params(("id" = String, Path, description = "The job's id.")),
    responses((status = 200, body = relay_store::Job), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn job(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<relay_store::Job>, ApiError> {
    let scope = auth.scope.clone();
    state
        .store
        .read(move |mut x| {
            Box::pin(async move { relay_store::jobs::get(&mut x, &scope, &id).await })
        })
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("job"))
}
