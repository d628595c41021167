//! The endpoint health view: success rates, latency, last success, backlog,
//! disable reason, recent errors and health warnings.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use relay_core::model::EndpointState;
use relay_core::time::Timestamp;
use relay_store::{ExecutorExt as _, health};
use serde::Serialize;
use utoipa::ToSchema;

use crate::AppState;
use crate::auth::TenantAuth;
use crate::error::{ApiError, Problem};

/// Percentiles from the latency histogram (`relay_core::histogram`): each
/// is the upper bound of the bucket the percentile falls in, or the largest
/// duration seen when that is smaller.
#[derive(Debug, Serialize, ToSchema)]
pub struct Latency {
    /// The median attempt duration, in milliseconds.
    pub p50_ms: i64,
    /// The 90th percentile, in milliseconds.
    pub p90_ms: i64,
    /// The 99th percentile, in milliseconds.
    pub p99_ms: i64,
    /// The longest attempt, in milliseconds.
    pub max_ms: i64,
    /// How many attempts the histogram counts.
    pub samples: u64,
}

/// What the endpoint has still to deliver.
#[derive(Debug, Serialize, ToSchema)]
pub struct Backlog {
    /// Messages still to deliver (`scheduled`, `in_flight`, `held`).
    pub size: i64,
    /// Age of the oldest of them, in seconds; `null` when there are none.
    pub oldest_age_seconds: Option<i64>,
}

/// One failed attempt, as the health view lists it.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecentError {
    /// The attempt's id.
    pub attempt_id: String,
    /// The message attempted.
    pub message_id: String,
    /// When the attempt started.
    pub at: Timestamp,
    /// HTTPS: the answer's status code; `null` without an answer or for
    /// other kinds.
    pub status_code: Option<i64>,
    /// The kind of failure without a usable answer (`connect`, `timeout`,
    /// `tls`, `blocked_address`, …); `null` when there was an answer.
    #[schema(value_type = Option<String>)]
    pub error_kind: Option<relay_core::model::AttemptErrorKind>,
    /// What the attempt meant for its message.
    pub outcome: relay_core::outcome::AttemptOutcome,
}

/// A health warning: something about the endpoint that needs a person.
#[derive(Debug, Serialize, ToSchema)]
pub struct Warning {
    /// `blocked_address`, `redirect_not_followed`, `oauth_token_refused`,
    /// `secret_unresolved` or `failing_for_72_hours`.
    #[schema(value_type = String)]
    pub kind: relay_core::model::WarningKind,
    /// What happened, for people.
    pub detail: String,
    /// When it was written.
    pub at: Timestamp,
}

/// An endpoint's health: how its deliveries fare now and lately.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// The endpoint.
    pub endpoint_id: String,
    /// Its state.
    pub state: EndpointState,
    /// Why it is disabled, when it is.
    pub disabled_reason: Option<String>,
    /// The endpoint's circuit breaker: with several nodes (PostgreSQL) the
    /// cluster's, as this node's last sync read it (a quarter second old at
    /// most by default); a half-open one counts the probes out across nodes.
    pub circuit: relay_core::circuit::Circuit,
    /// Delivered attempts ÷ attempts over the last hour; `null` without attempts.
    pub success_rate_last_hour: Option<f64>,
    /// Delivered attempts ÷ attempts over the last 24 hours; `null` without attempts.
    pub success_rate_last_24h: Option<f64>,
    /// Attempts over the last hour.
    pub attempts_last_hour: i64,
    /// Attempts over the last 24 hours.
    pub attempts_last_24h: i64,
    /// Attempt durations over the last 24 hours, counted by the hour (the
    /// current hour and the 24 before it); `null` without attempts.
    pub latency: Option<Latency>,
    /// When an attempt last delivered; `null` if none has (within retention).
    pub last_success_at: Option<Timestamp>,
    /// What it has still to deliver.
    pub backlog: Backlog,
    /// The last 20 failed attempts, newest first.
    pub recent_errors: Vec<RecentError>,
    /// The last 20 health warnings, newest first.
    pub warnings: Vec<Warning>,
    /// Whether its receiver has proven that it wants the traffic, when a
    /// proof is owed (`verify_ownership`, or the installation's policy);
    /// `null` otherwise. While it is not proven the endpoint is
    /// `unverified`: this says why (the last challenge's failure) and when
    /// the next challenge goes out.
    pub ownership: Option<super::endpoints::ownership::Ownership>,
}

fn rate((total, delivered): (i64, i64)) -> Option<f64> {
    (total > 0).then(|| delivered as f64 / total as f64)
}

/// Get an endpoint's health
///
/// Returns how the endpoint's deliveries fare: its state and circuit
/// breaker, success rates and attempt counts over the last hour and day,
/// attempt latency percentiles, the last success, its backlog, the last 20
/// failed attempts and the last 20 health warnings (a blocked address, a
/// redirect, a refused OAuth token, a secret that does not resolve, 72
/// hours of failure). Tenant API key; `404` for an unknown endpoint.
#[utoipa::path(operation_id = "endpoints.get_health", get, path = "/v1/endpoints/{id}/health", tag = "endpoints",
    params(("id" = String, Path, description = "The endpoint's id.")),
    responses((status = 200, body = Health), (status = 404, body = Problem)),
    security(("api_key" = [])))]
pub async fn get(
    State(state): State<Arc<AppState>>,
    auth: TenantAuth,
    Path(id): Path<String>,
) -> Result<Json<Health>, ApiError> {
    let endpoint = super::endpoints::find(&*state.store, &auth.scope, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("endpoint"))?;
    let now = state.clock.now();
    let endpoint_id = id.clone();
    let facts = state
        .store
        .read(move |mut x| Box::pin(async move { health::facts(&mut x, &endpoint_id, now).await }))
        .await?;
    let h = &facts.latency;
    let latency = match (h.percentile(50), h.percentile(90), h.percentile(99)) {
        (Some(p50_ms), Some(p90_ms), Some(p99_ms)) => Some(Latency {
            p50_ms,
            p90_ms,
            p99_ms,
            max_ms: h.max_ms,
            samples: h.total(),
        }),
        _ => None,
    };
    let endpoint_id = id.clone();
    let warnings = state
        .store
        .read(move |mut x| {
            Box::pin(async move { health::warnings(&mut x, &endpoint_id, 20).await })
        })
        .await?
        .into_iter()
        .map(|w| Warning {
            kind: w.kind,
            detail: w.detail,
            at: w.at,
        })
        .collect();
    let circuit = state.engine.circuit(&id).await?;
    let ownership = super::endpoints::ownership::of(&state, &id, endpoint.state).await?;
    Ok(Json(Health {
        endpoint_id: endpoint.id,
        state: endpoint.state,
        disabled_reason: endpoint.disabled_reason,
        circuit,
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
        ownership,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn success_rates() {
        assert_eq!(rate((0, 0)), None);
        assert_eq!(rate((4, 1)), Some(0.25));
    }

    /// The typed kinds are written as the bare codes the strings were, and
    /// a stored code this build does not know is shown as it was stored.
    #[test]
    fn kinds_are_written_as_their_codes() {
        use relay_core::model::{AttemptErrorKind, ErrorKind, WarningKind};
        let at = Timestamp(0);
        let warning = |kind| {
            serde_json::to_value(Warning {
                kind,
                detail: "d".into(),
                at,
            })
            .unwrap()
        };
        assert_eq!(
            warning(WarningKind::BlockedAddress),
            serde_json::json!({"kind": "blocked_address", "detail": "d", "at": at})
        );
        assert_eq!(warning(WarningKind::Other("gone".into()))["kind"], "gone");
        let error = |error_kind| {
            serde_json::to_value(RecentError {
                attempt_id: "att_1".into(),
                message_id: "msg_1".into(),
                at,
                status_code: None,
                error_kind,
                outcome: relay_core::outcome::AttemptOutcome::Retry,
            })
            .unwrap()["error_kind"]
                .clone()
        };
        assert_eq!(error(Some(ErrorKind::Connect.into())), "connect");
        assert_eq!(
            error(Some(AttemptErrorKind::parse("carrier_lost"))),
            "carrier_lost"
        );
        assert_eq!(error(None), serde_json::Value::Null);
    }
}
