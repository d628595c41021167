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
