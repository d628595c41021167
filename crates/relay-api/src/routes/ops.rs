//! Operational endpoints: liveness, readiness and the OpenAPI document.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use relay_store::ExecutorExt as _;

use crate::AppState;
use crate::error::ApiError;

/// Liveness: the process answers.
pub async fn healthz() -> &'static str {
    "ok"
}

/// Readiness: the process is not shutting down and the database answers.
/// The answer names the role the process plays (`[server] role`):
/// `{"status":"ready","role":"worker"}`.
pub async fn readyz(State(state): State<Arc<AppState>>) -> Result<Response, ApiError> {
    if state.is_shutting_down() {
        return Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "shutting_down",
            "this instance is shutting down; send requests to another",
        ));
    }
    state
        .store
        .read(|mut x| {
            Box::pin(async move { relay_store::settings::get(&mut x, "readiness_probe").await })
        })
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "readiness check failed");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "not_ready",
                "the database is not reachable",
            )
        })?;
    Ok(Json(serde_json::json!({
        "status": "ready",
        "role": state.settings.role.as_str(),
    }))
    .into_response())
}

/// While shutting down, every answer closes its connection: a kept-alive
/// client opens its next one through the load balancer, to another instance.
pub async fn close_when_shutting_down(
    State(state): State<Arc<AppState>>,
    mut response: Response,
) -> Response {
    if state.is_shutting_down() {
        response.headers_mut().insert(
            axum::http::header::CONNECTION,
            axum::http::HeaderValue::from_static("close"),
        );
    }
    response
}

/// `relay_node_role{role="…"} 1`: the role this process plays, one series.
pub fn role_gauge(role: crate::Role) -> String {
    format!(
        "# HELP relay_node_role The role this process plays ([server] role): all, api or worker.\n\
         # TYPE relay_node_role gauge\nrelay_node_role{{role=\"{role}\"}} 1\n"
    )
}

pub async fn openapi_json() -> impl IntoResponse {
    Json(crate::openapi::document())
}

/// Prometheus metrics (text exposition format) on the API's listener,
/// unless the operator moved them to a listener of their own (then `404`,
/// like any unknown path). Labels never carry tenant or endpoint ids.
pub async fn metrics(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if state.settings.metrics.separate_listener {
        return ApiError::new(StatusCode::NOT_FOUND, "not_found", "no such path").into_response();
    }
    metrics_alone(State(state), headers).await
}

/// Prometheus metrics on the listener of their own (`[metrics] listen`).
/// With a token configured, only a caller presenting it reads them.
pub async fn metrics_alone(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    if let Some(digest) = &state.settings.metrics.token_sha256
        && !crate::auth::bearer_matches(&headers, digest)
    {
        let mut r = ApiError::unauthorized(
            "/metrics asks for the metrics token: Authorization: Bearer <token>",
        )
        .into_response();
        r.headers_mut().insert(
            axum::http::header::WWW_AUTHENTICATE,
            axum::http::HeaderValue::from_static("Bearer"),
        );
        return r;
    }
    let mut body = state
        .metrics
        .get()
        .map(|render| render())
        .unwrap_or_default();
    body.push_str(&role_gauge(state.settings.role));
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        body,
    )
        .into_response()
}
