//! Operational endpoints: liveness, readiness and the OpenAPI document.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;

use crate::AppState;
use crate::error::ApiError;

/// Liveness: the process answers.
pub async fn healthz() -> &'static str {
    "ok"
}

/// Readiness: the database answers.
pub async fn readyz(State(state): State<Arc<AppState>>) -> Result<&'static str, ApiError> {
    state
        .store
        .get_setting("readiness_probe")
        .await
        .map_err(|e| {
            tracing::warn!(error = %e, "readiness check failed");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "not_ready",
                "the database is not reachable",
            )
        })?;
    Ok("ready")
}

pub async fn openapi_json() -> impl IntoResponse {
    Json(crate::openapi::document())
}

/// Prometheus metrics (text exposition format). Labels never carry tenant or endpoint ids.
pub async fn metrics(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    let body = state
        .metrics
        .get()
        .map(|render| render())
        .unwrap_or_default();
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        body,
    )
}
