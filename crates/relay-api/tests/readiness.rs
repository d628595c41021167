//! Readiness at shutdown: once shutdown is asked for (`AppState::begin_shutdown`,
//! what `relay serve` does on SIGTERM), `/readyz` answers `503 shutting_down`
//! while every other route still answers, each answer closing its connection
//! so kept-alive clients reconnect through the load balancer elsewhere.

mod common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use common::Harness;

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
async fn readiness_fails_at_shutdown_while_the_api_still_answers() {
    let h = Harness::new().await;
    let r = get(&h, "/readyz").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.headers.get(header::CONNECTION).is_none());

    h.state.begin_shutdown();
    let r = get(&h, "/readyz").await;
    r.problem(StatusCode::SERVICE_UNAVAILABLE, "shutting_down");
    assert_eq!(r.headers[header::CONNECTION], "close");
    let r = get(&h, "/healthz").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.headers[header::CONNECTION], "close");
    let r = h.get("/v1/tenants", common::OPERATOR).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert_eq!(r.headers[header::CONNECTION], "close");
}
