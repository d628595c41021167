//! The router: every path of the API and the handler behind it.
//!
//! Paths follow `shared/API.md`. Unknown paths and methods answer with
//! problem+json too, so a client never has to parse anything else.

pub mod audit;
pub mod consumers;
pub mod endpoints;
pub mod event_types;
pub mod events;
pub mod health;
pub mod inbound;
pub mod messages;
pub mod ops;
pub mod portal;
pub mod portal_brand;
pub mod portal_page;
pub mod portal_tokens;
pub mod recovery;
pub mod secrets;
pub mod system_events;
pub mod tenants;
pub mod workflow_steps;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use relay_store::PageRequest;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::ApiError;

/// Every path of the API; on a worker (`[server] role = "worker"`) only
/// [`worker_router`]'s.
pub fn router(state: Arc<AppState>) -> Router {
    if state.settings.role == crate::Role::Worker {
        return worker_router(state);
    }
    let limit = state.settings.max_request_bytes;
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/openapi.json", get(ops::openapi_json))
        .route("/metrics", get(ops::metrics))
        .route("/v1/tenants", post(tenants::create).get(tenants::list))
        .route("/v1/tenants/{id}", get(tenants::get))
        .route(
            "/v1/tenants/{id}/api-keys",
            post(tenants::create_key).get(tenants::list_keys),
        )
        .route(
            "/v1/tenants/{id}/system-events",
            post(system_events::publish),
        )
        .route(
            "/v1/tenants/{id}/api-keys/{key_id}",
            axum::routing::delete(tenants::revoke_key),
        )
        .route("/v1/event-types", get(event_types::list))
        .route(
            "/v1/event-types/{name}",
            put(event_types::put).get(event_types::get),
        )
        .route(
            "/v1/consumers",
            post(consumers::create).get(consumers::list),
        )
        .route(
            "/v1/consumers/{id}",
            get(consumers::get)
                .patch(consumers::update)
                .delete(consumers::delete),
        )
        .route(
            "/v1/endpoints",
            post(endpoints::create).get(endpoints::list),
        )
        .route(
            "/v1/endpoints/{id}",
            get(endpoints::get)
                .patch(endpoints::update)
                .delete(endpoints::delete),
        )
        .route(
            "/v1/endpoints/{id}/signing-keys",
            get(endpoints::signing_keys),
        )
        .route("/v1/endpoints/{id}/rotate-key", post(endpoints::rotate_key))
        .route(
            "/v1/endpoints/{id}/versions",
            get(endpoints::payload::versions),
        )
        .route("/v1/audit-log", get(audit::list))
        .route("/v1/endpoints/{id}/pause", post(recovery::pause))
        .route("/v1/endpoints/{id}/resume", post(recovery::resume))
        .route("/v1/endpoints/{id}/enable", post(recovery::enable))
        .route("/v1/endpoints/{id}/disable", post(recovery::disable))
        .route("/v1/endpoints/{id}/recover", post(recovery::recover))
        .route("/v1/endpoints/{id}/replay", post(recovery::replay))
        .route("/v1/endpoints/{id}/test", post(recovery::test))
        .route("/v1/endpoints/{id}/health", get(health::get))
        .route(
            "/v1/endpoints/{id}/verify-ownership",
            post(endpoints::ownership::verify),
        )
        .route("/v1/endpoints/{id}/missed", get(recovery::missed))
        .route("/v1/messages/retry", post(recovery::bulk_retry))
        .route("/v1/jobs/{id}", get(recovery::job))
        .route("/v1/messages/{id}/cancel", post(recovery::cancel))
        .route("/v1/messages/{id}/resend", post(recovery::resend))
        .route("/v1/events", post(events::publish))
        .route("/v1/events/{id}", get(events::get))
        .route("/v1/messages", get(messages::list))
        .route("/v1/messages/{id}", get(messages::get))
        .route("/v1/messages/{id}/attempts", get(messages::attempts))
        .route("/v1/workflow-steps", post(workflow_steps::create))
        .route("/v1/workflow-steps/{step_key}", get(workflow_steps::get))
        .route("/v1/portal-tokens", post(portal_tokens::create))
        .route(
            "/v1/portal-tokens/{id}",
            get(portal_tokens::get).delete(portal_tokens::revoke),
        )
        .route(
            "/v1/portal-tokens/revoke-all",
            post(portal_tokens::revoke_all),
        )
        .route(
            "/v1/portal-brand",
            put(portal_tokens::put_brand).get(portal_tokens::get_brand),
        )
        .merge(portal::routes())
        .route(
            "/v1/inbound-sources",
            post(inbound::create).get(inbound::list),
        )
        .route(
            "/v1/inbound-sources/{id}",
            get(inbound::get)
                .patch(inbound::update)
                .delete(inbound::delete),
        )
        .route(
            "/v1/inbound-sources/{id}/rotate-secret",
            post(inbound::rotate_secret),
        )
        .route("/v1/inbound-receipts", get(inbound::list_receipts))
        .route("/v1/inbound-receipts/{id}", get(inbound::get_receipt))
        .route(
            "/v1/inbound-receipts/{id}/reprocess",
            post(inbound::reprocess),
        )
        .route("/v1/ledger", get(inbound::ledger))
        .route("/v1/aws/external-id", get(endpoints::aws::external_id))
        .route("/v1/secrets", get(secrets::list))
        .route(
            "/v1/secrets/{name}",
            put(secrets::put).get(secrets::get).delete(secrets::delete),
        )
        .route("/inbound/{token}", post(inbound::receive))
        .merge(portal_page::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::map_response(problem_for_rejections))
        .layer(axum::middleware::map_response_with_state(
            state.clone(),
            ops::close_when_shutting_down,
        ))
        .layer(DefaultBodyLimit::max(limit))
        .layer(axum::middleware::from_fn(crate::request_id::request_id))
        .with_state(state)
}

/// A worker's router (`[server] role = "worker"`): liveness, readiness
/// (which names the role) and `/metrics` (unless it has a listener of its
/// own); every other path, the API's and `POST /inbound/{token}` with them,
/// answers `404` problem+json, so a load balancer that sends API traffic
/// here by mistake gets a clear answer, not a half-served one.
pub fn worker_router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::map_response(problem_for_rejections))
        .layer(axum::middleware::map_response_with_state(
            state.clone(),
            ops::close_when_shutting_down,
        ))
        .layer(DefaultBodyLimit::max(1024))
        .layer(axum::middleware::from_fn(crate::request_id::request_id))
        .with_state(state)
}

/// The router of `/metrics` alone, for the listener of its own
/// (`[metrics] listen`).
pub fn metrics_router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/metrics", get(ops::metrics_alone))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

/// Errors produced outside the handlers (axum's own rejections, such as a
/// path segment that is not valid UTF-8) come as plain text; turn them into
/// problems so that every error a client sees is problem+json.
async fn problem_for_rejections(response: Response) -> Response {
    let status = response.status();
    let is_problem = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/problem+json"));
    if !(status.is_client_error() || status.is_server_error()) || is_problem {
        return response;
    }
    let code = match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::UNPROCESSABLE_ENTITY => "validation_failed",
        s if s.is_server_error() => "internal_error",
        _ => "bad_request",
    };
    // axum's rejection texts name the problem without echoing input at length.
    // Server errors keep their body to themselves.
    let detail = match axum::body::to_bytes(response.into_body(), 1024).await {
        Ok(b) if !b.is_empty() && status.is_client_error() => {
            String::from_utf8_lossy(&b).into_owned()
        }
        _ => status.canonical_reason().unwrap_or("error").to_string(),
    };
    ApiError::new(status, code, detail).into_response()
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such path")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        "this path does not accept that method",
    )
}

/// Keyset pagination parameters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Page size, 1 to 250 (default 50).
    #[param(minimum = 1, maximum = 250)]
    pub limit: Option<u32>,
    /// The `next_after` of the previous page.
    pub after: Option<String>,
}

pub const MAX_PAGE: u32 = 250;

pub fn page_request(limit: Option<u32>, after: Option<String>) -> Result<PageRequest, ApiError> {
    let limit = limit.unwrap_or(50);
    if limit == 0 || limit > MAX_PAGE {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_query",
            format!("limit must be between 1 and {MAX_PAGE}"),
        ));
    }
    Ok(PageRequest { after, limit })
}

impl ListQuery {
    pub fn page(self) -> Result<PageRequest, ApiError> {
        page_request(self.limit, self.after)
    }
}

/// Deserializes a present field as `Some(value)`, so `Option<Option<T>>`
/// tells "absent" (leave as is) from `null` (clear).
pub fn present<'de, T, D>(d: D) -> Result<Option<T>, D::Error>
where
    T: Deserialize<'de>,
    D: serde::Deserializer<'de>,
{
    T::deserialize(d).map(Some)
}
