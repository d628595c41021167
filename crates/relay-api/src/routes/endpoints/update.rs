//! An endpoint's update, decided from a read and written as a
//! compare-and-set on the revision read (see [`super::changes`]): the
//! API's and the portal's `PATCH` both run [`update_with`].

use axum::Json;
use axum::http::HeaderMap;
use relay_core::model::Endpoint;
use relay_store::{Commit, ExecutorExt as _, endpoints};

use super::{EndpointOut, UpdateEndpoint, changes, payload, validate_settings};
use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, or_not_found};

/// How many times an update without `If-Match` reads the endpoint again
/// when it changed between the read and the write.
const UPDATE_TRIES: usize = 3;

/// Applies `change` (given the endpoint as read) to the endpoint `id`, as
/// a compare-and-set on the revision read: a concurrent change (a pause, a
/// disable, another update) is never undone. With `if_match`, the
/// endpoint must be at a revision it names (`412` otherwise, also when it
/// changes before the write); without, the change is decided again from a
/// fresh read, a few times, then `409 endpoint_changed`.
pub(crate) async fn update_with(
    state: &AppState,
    auth: &TenantAuth,
    id: &str,
    if_match: Option<changes::IfMatch>,
    change: impl Fn(&Endpoint) -> Result<UpdateEndpoint, ApiError>,
) -> Result<(HeaderMap, Json<EndpointOut>), ApiError> {
    for _ in 0..UPDATE_TRIES {
        let current = super::find(&*state.store, &auth.scope, id)
            .await?
            .ok_or_else(|| ApiError::not_found("endpoint"))?;
        if let Some(m) = &if_match
            && !m.matches(current.revision)
        {
            return Err(changes::precondition_failed(current.revision));
        }
        let body = change(&current)?;
        match apply_update(state, auth, current, body).await {
            Err(ApiError {
                code: "endpoint_changed",
                ..
            }) if if_match.is_none() => continue,
            Err(ApiError {
                code: "endpoint_changed",
                ..
            }) => {
                let now = super::find(&*state.store, &auth.scope, id).await?;
                return Err(changes::precondition_failed(now.map_or(0, |e| e.revision)));
            }
            other => return other,
        }
    }
    Err(changes::changed_concurrently())
}

/// One try of an update: `body` applied to `endpoint` (as read), checked,
/// audited and written only while the endpoint is still at the revision
/// read (`endpoint_changed` otherwise, nothing written).
async fn apply_update(
    state: &AppState,
    auth: &TenantAuth,
    mut endpoint: Endpoint,
    body: UpdateEndpoint,
) -> Result<(HeaderMap, Json<EndpointOut>), ApiError> {
    let read = endpoint.clone();
    if let Some(d) = body.description {
        endpoint.description = d;
    }
    if let Some(d) = body.destination {
        endpoint.destination = d.into();
    }
    if let Some(t) = body.event_types {
        endpoint.event_types = t;
    }
    let sets_schedule = body.retry_schedule_seconds.is_some();
    if let Some(s) = body.retry_schedule_seconds {
        endpoint.retry_schedule_seconds = s;
    }
    if let Some(c) = body.max_concurrency {
        endpoint.max_concurrency = c;
    }
    if let Some(r) = body.rate_limit_per_second {
        endpoint.rate_limit_per_second = r;
    }
    let before = endpoint.clone();
    if let Some(f) = body.snapshot_fields {
        endpoint.snapshot_fields = f;
    }
    if let Some(a) = body.allow_personal_data {
        endpoint.allow_personal_data = a;
    }
    if let Some(p) = body.event_type_versions {
        endpoint.event_type_versions = p;
    }
    // Turning automatic disabling off (or on again) is audited with the
    // change, in its transaction.
    let auto_disable_was = endpoint.auto_disable;
    if let Some(a) = body.auto_disable {
        endpoint.auto_disable = a;
    }
    if let Some(o) = body.ordering {
        endpoint.ordering = o;
    }
    if let Some(v) = body.verify_ownership {
        endpoint.verify_ownership = v;
    }
    let now = state.clock.now();
    endpoint.updated_at = now;
    if before.payload_changed(&endpoint) {
        endpoint.version += 1;
        endpoint.version_started_at = now;
    }
    let destination_changed = endpoint.destination != read.destination;
    let mut warnings = validate_settings(
        state,
        &auth.scope,
        &mut endpoint,
        sets_schedule,
        destination_changed,
    )
    .await?;
    warnings
        .extend(payload::check(state, &auth.scope, &endpoint, endpoint.version_started_at).await?);
    warnings.extend(changes::dropped_warning(
        &read.destination,
        &endpoint.destination,
        &state.guard,
    ));
    let mut audit = Vec::new();
    if endpoint.auto_disable != auto_disable_was {
        audit.push(crate::routes::audit::entry(
            auth,
            "endpoint.auto_disable_changed",
            &endpoint.id,
            serde_json::json!({ "from": auto_disable_was, "to": endpoint.auto_disable }),
            now,
        ));
    }
    if let Some(parameters) = changes::updated_entry(&read, &endpoint) {
        audit.push(crate::routes::audit::entry(
            auth,
            "endpoint.updated",
            &endpoint.id,
            parameters,
            now,
        ));
    }
    let (scope, written) = (auth.scope.clone(), endpoint.clone());
    let state_was = endpoint.state;
    endpoint.state = state
        .store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { endpoints::update(&mut x, &scope, &written, &audit).await })
        })
        .await
        .map_err(|e| match e {
            relay_store::StoreError::Conflict("endpoint_changed") => {
                changes::changed_concurrently()
            }
            other => or_not_found("endpoint")(other),
        })?;
    // A move to an origin not proven (or back to a proven one).
    if endpoint.state != state_was {
        state
            .engine
            .endpoint_changed(&endpoint.id, endpoint.state)
            .await;
        if endpoint.state == relay_core::model::EndpointState::Active {
            state.wake.notify_one();
        }
    }
    endpoint.revision += 1;
    Ok((
        changes::etag_headers(&endpoint),
        Json(EndpointOut { endpoint, warnings }),
    ))
}
