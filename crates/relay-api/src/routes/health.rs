//! The endpoint health view: success rates, latency, last success, backlog,
//! disable reason, recent errors and health warnings.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use relay_core::model::EndpointState;
use relay_core::time::Timestamp;
use serde::Serialize;
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem};

#[derive(Debug, Serialize, ToSchema)]
pub struct Latency {
    pub p50_ms: i64,
    pub p90_ms: i64,
    pub p99_ms: i64,
    /// How many attempts the percentiles are computed from.
    pub samples: usize,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Backlog {
    /// Messages still to deliver (`scheduled`, `in_flight`, `held`).
    pub size: i64,
    /// Age of the oldest of them, in seconds.
    pub oldest_age_seconds: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RecentError {
    pub attempt_id: String,
    pub message_id: String,
    pub at: Timestamp,
    pub status_code: Option<i64>,
    pub error_kind: Option<String>,
    pub outcome: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Warning {
    /// e.g. `redirect_not_followed`, `blocked_address`, `gone`.
    pub kind: String,
    pub detail: String,
    pub at: Timestamp,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    pub endpoint_id: String,
    pub state: EndpointState,
    pub disabled_reason: Option<String>,
    /// The circuit breaker as this node sees it (each node keeps its own).
    pub circuit: relay_core::circuit::Circuit,
    /// Delivered attempts ÷ attempts over the last hour; `null` without attempts.
    pub success_rate_last_hour: Option<f64>,
    pub success_rate_last_24h: Option<f64>,
    pub attempts_last_hour: i64,
    pub attempts_last_24h: i64,
    /// Attempt durations over the last 24 hours (the 10,000 most recent at most).
    pub latency: Option<Latency>,
    pub last_success_at: Option<Timestamp>,
    pub backlog: Backlog,
    /// The last 20 failed attempts, newest first.
    pub recent_errors: Vec<RecentError>,
    /// The last 20 health warnings, newest first.
    pub warnings: Vec<Warning>,
}

/// The nearest-rank percentile `p` (0–100) of `sorted` (ascending, non-empty).
pub fn percentile(sorted: &[i64], p: u32) -> i64 {
    let n = sorted.len();
    let rank = (u64::from(p) * n as u64).div_ceil(100).max(1) as usize;
    sorted[rank.min(n) - 1]
}

fn rate((total, delivered): (i64, i64)) -> Option<f64> {
    (total > 0).then(|| delivered as f64 / total as f64)
}

#[utoipa::path(operation_id = "endpoints_health", get, path = "/v1/endpoints/{id}/health", tag = "endpoints",
    responses((status = 200, body = Health), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<Health>, ApiError> {
    let endpoint = state
        .store
        .get_endpoint(&auth.scope, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("endpoint"))?;
    let now = state.clock.now();
    let facts = state.store.health_facts(&id, now).await?;
    let mut durations = facts.durations_ms;
    durations.sort_unstable();
    let latency = (!durations.is_empty()).then(|| Latency {
        p50_ms: percentile(&durations, 50),
        p90_ms: percentile(&durations, 90),
        p99_ms: percentile(&durations, 99),
        samples: durations.len(),
    });
    let warnings = state
        .store
        .endpoint_warnings(&id, 20)
        .await?
        .into_iter()
        .map(|w| Warning {
            kind: w.kind,
            detail: w.detail,
            at: w.at,
        })
        .collect();
    Ok(Json(Health {
        endpoint_id: endpoint.id,
        state: endpoint.state,
        disabled_reason: endpoint.disabled_reason,
        circuit: state.engine.circuit(&id),
        success_rate_last_hour: rate(facts.last_hour),
        success_rate_last_24h: rate(facts.last_day),
        attempts_last_hour: facts.last_hour.0,
        attempts_last_24h: facts.last_day.0,
        latency,
        last_success_at: facts.last_success_at,
        backlog: Backlog {
            size: facts.backlog,
            oldest_age_seconds: facts
                .oldest_pending_at
                .map(|t| (now.millis() - t.millis()).max(0) / 1000),
        },
        recent_errors: facts
            .recent_errors
            .into_iter()
            .map(|a| RecentError {
                attempt_id: a.id,
                message_id: a.message_id,
                at: a.started_at,
                status_code: a.status_code,
                error_kind: a.error_kind,
                outcome: a.outcome,
            })
            .collect(),
        warnings,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<i64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50), 50);
        assert_eq!(percentile(&v, 90), 90);
        assert_eq!(percentile(&v, 99), 99);
        assert_eq!(percentile(&[7], 99), 7);
        assert_eq!(percentile(&[1, 2], 50), 1);
        assert_eq!(percentile(&[1, 2], 51), 2);
        assert_eq!(rate((0, 0)), None);
        assert_eq!(rate((4, 1)), Some(0.25));
    }
}
