//! Proof of endpoint ownership, as the tenant sees it: the `ownership`
//! block of the endpoint's health view, and the challenge on demand
//! (`POST /v1/endpoints/{id}/verify-ownership`). The rules are in
//! `docs/security.md`, "Proof of endpoint ownership".

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use relay_core::model::EndpointState;
use relay_core::ownership::Failure;
use relay_core::time::Timestamp;
use relay_store::ExecutorExt as _;
use serde::Serialize;
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem};

/// Whether the endpoint's receiver has proven that it wants the traffic.
#[derive(Debug, Serialize, ToSchema)]
pub struct Ownership {
    /// The endpoint's state: `unverified` while the proof is owed (its
    /// messages are held and nothing is sent to it).
    pub state: EndpointState,
    /// The origin (`host:port`) whose receiver proves it.
    pub origin: String,
    /// Whether the tenant has the proof for this origin.
    pub proven: bool,
    /// When it was proven (by this endpoint or another of the tenant's with
    /// the same origin).
    pub proven_at: Option<Timestamp>,
    /// When the receiver was last challenged for it.
    pub last_checked_at: Option<Timestamp>,
    /// Challenges sent for this origin.
    pub checks: i64,
    /// Why the last challenge did not prove it; `null` after a proof.
    pub failure: Option<Failure>,
    /// When the next challenge goes out, while it is owed.
    pub next_check_at: Option<Timestamp>,
}

/// The endpoint's [`Ownership`]; `None` when no proof is owed (neither the
/// endpoint nor the installation asks for one).
pub async fn of(
    state: &AppState,
    endpoint_id: &str,
    endpoint_state: EndpointState,
) -> Result<Option<Ownership>, ApiError> {
    let id = endpoint_id.to_string();
    let status = state
        .store
        .read(move |mut x| {
            Box::pin(async move { relay_store::ownership::status(&mut x, &id).await })
        })
        .await?;
    Ok(status.and_then(|s| {
        Some(Ownership {
            state: endpoint_state,
            origin: s.origin?,
            proven: s.proven_at.is_some(),
            proven_at: s.proven_at,
            last_checked_at: s.checked_at,
            checks: s.checks,
            failure: s.failure,
            next_check_at: s.next_check_at,
        })
    }))
}

/// Challenge an endpoint's receiver now
///
/// Sends the ownership challenge to the endpoint's URL at once and answers
/// what came of it: an `OPTIONS` request with `WebHook-Request-Origin` and
/// the signature headers over an empty body, whose `webhook-id` the
/// receiver proves ownership by answering as its whole body (with a `2xx`).
/// A proof releases the held messages of every unverified endpoint of the
/// tenant with that origin. See docs/security.md, "Proof of endpoint
/// ownership".
///
/// Tenant API key. `404` for an unknown endpoint; `409`
/// `ownership_not_required`: the endpoint owes no proof (its
/// `verify_ownership` is off and the installation does not require it).
#[utoipa::path(operation_id = "endpoints.verify_ownership", post, path = "/v1/endpoints/{id}/verify-ownership", tag = "endpoints",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, description = "what the challenge proved", body = Ownership),
              (status = 404, body = Problem), (status = 409, body = Problem)),
    security(("api_key" = [])))]
pub async fn verify(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<Ownership>, ApiError> {
    let not_required = || {
        ApiError::new(
            StatusCode::CONFLICT,
            "ownership_not_required",
            "the endpoint owes no ownership proof: set `verify_ownership` to ask for one",
        )
    };
    // The answer is recorded; what it proved is read back below.
    let _answer = state
        .engine
        .verify_ownership(&auth.scope, &id)
        .await
        .map_err(|e| match e {
            relay_engine::ProofError::NotFound => ApiError::not_found("endpoint"),
            relay_engine::ProofError::NotRequired => not_required(),
            relay_engine::ProofError::Store(s) => s.into(),
        })?;
    let endpoint = super::find(&*state.store, &auth.scope, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("endpoint"))?;
    of(&state, &id, endpoint.state)
        .await?
        .map(Json)
        .ok_or_else(not_required)
}
