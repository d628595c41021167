//! `[server] role` as the HTTP surface sees it: a worker serves `/healthz`,
//! `/readyz` and `/metrics` and answers `404` problem+json to everything
//! else (the API, inbound provider webhooks, the portal, the OpenAPI
//! document); every role's `/readyz` names the role in JSON and `/metrics`
//! carries `relay_node_role{role="…"} 1`.

mod common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use common::{Harness, OPERATOR};
use http_body_util::BodyExt;
use relay_api::{ApiSettings, Role};
use serde_json::json;
use tower::ServiceExt;

async fn with_role(role: Role) -> Harness {
    Harness::with_settings(ApiSettings {
        role,
        ..ApiSettings::default()
    })
    .await
}

async fn get(h: &Harness, path: &str) -> common::Resp {
    h.request(
        Request::builder()
            .method(Method::GET)
            .uri(path)
            .body(Body::empty())
            .unwrap(),
    )
    .await
}

#[tokio::test]
async fn readiness_and_metrics_name_the_role_of_every_role() {
    for role in Role::EVERY {
        let h = with_role(role).await;
        let r = get(&h, "/readyz").await;
        assert_eq!(r.status, StatusCode::OK, "{role}: {}", r.text());
        assert_eq!(r.content_type(), "application/json", "{role}");
        assert_eq!(
            r.json(),
            json!({"status": "ready", "role": role.as_str()}),
            "{role}"
        );
        let r = get(&h, "/metrics").await;
        assert_eq!(r.status, StatusCode::OK, "{role}");
        let text = r.text();
        assert!(
            text.contains("# TYPE relay_node_role gauge\n"),
            "{role}: {text}"
        );
        let series: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("relay_node_role"))
            .collect();
        assert_eq!(
            series,
            [format!("relay_node_role{{role=\"{role}\"}} 1")],
            "{role}"
        );
        // Draining: the status as before, whatever the role.
        h.state.begin_shutdown();
        get(&h, "/readyz")
            .await
            .problem(StatusCode::SERVICE_UNAVAILABLE, "shutting_down");
    }
}

#[tokio::test]
async fn a_worker_serves_its_probes_and_metrics_and_nothing_of_the_api() {
    let h = with_role(Role::Worker).await;
    assert_eq!(get(&h, "/healthz").await.status, StatusCode::OK);
    assert_eq!(get(&h, "/readyz").await.status, StatusCode::OK);
    assert_eq!(get(&h, "/metrics").await.status, StatusCode::OK);
    for path in [
        "/v1/tenants",
        "/v1/events/evt_1",
        "/v1/messages",
        "/openapi.json",
        "/portal",
        "/nowhere",
    ] {
        let r = h.get(path, OPERATOR).await;
        r.problem(StatusCode::NOT_FOUND, "not_found");
    }
    // Writes too: publishing, creating a tenant, an inbound provider webhook.
    for path in ["/v1/events", "/v1/tenants", "/inbound/src_token"] {
        let r = h.post(path, OPERATOR, json!({"name": "x"})).await;
        r.problem(StatusCode::NOT_FOUND, "not_found");
    }
    // The probes keep their methods.
    let r = h.send(Method::POST, "/readyz", None, Body::empty()).await;
    r.problem(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    // The API-only and full roles serve the API.
    for role in [Role::Api, Role::All] {
        let h = with_role(role).await;
        let r = h.get("/v1/tenants", OPERATOR).await;
        assert_eq!(r.status, StatusCode::OK, "{role}: {}", r.text());
        let r = h.get("/openapi.json", OPERATOR).await;
        assert_eq!(r.status, StatusCode::OK, "{role}");
    }
}

#[tokio::test]
async fn a_worker_with_a_metrics_listener_of_its_own_answers_404_for_metrics_here() {
    let h = Harness::with_settings(ApiSettings {
        role: Role::Worker,
        metrics: relay_api::MetricsAccess {
            separate_listener: true,
            token_sha256: None,
        },
        ..ApiSettings::default()
    })
    .await;
    get(&h, "/metrics")
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(get(&h, "/readyz").await.status, StatusCode::OK);
    // The listener of its own names the role as well.
    let res = relay_api::routes::metrics_router(h.state.clone())
        .oneshot(
            Request::builder()
                .uri("/metrics")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        res.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let body = res.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&body);
    assert!(
        text.contains("relay_node_role{role=\"worker\"} 1"),
        "{text}"
    );
}
