//! Who may read `/metrics`: by default anyone who reaches the API's
//! listener; with a token configured only a caller who presents it; with a
//! listener of its own, nobody through the API's listener.

mod common;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use common::{Harness, OPERATOR};
use relay_api::{ApiSettings, MetricsAccess};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const METRICS_TOKEN: &str = "mtr_0f3c9a1e5b7d2f4a6c8e0b1d3f5a7c9e";

async fn harness(metrics: MetricsAccess) -> Harness {
    let h = Harness::with_settings(ApiSettings {
        metrics,
        ..ApiSettings::default()
    })
    .await;
    let _ = h
        .state
        .metrics
        .set(Arc::new(|| "relay_test_up 1\n".to_string()));
    h
}

/// What `/metrics` answers: the renderer's text, then the node's role.
fn page() -> String {
    format!(
        "relay_test_up 1\n{}",
        relay_api::routes::ops::role_gauge(relay_api::Role::All)
    )
}

async fn scrape(h: &Harness, token: Option<&str>) -> common::Resp {
    let mut req = Request::builder().method(Method::GET).uri("/metrics");
    if let Some(t) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    h.request(req.body(Body::empty()).unwrap()).await
}

#[tokio::test]
async fn by_default_metrics_answer_on_the_api_listener() {
    let h = harness(MetricsAccess::default()).await;
    let r = scrape(&h, None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.text(), page());
}

#[tokio::test]
async fn a_configured_token_is_asked_for() {
    let h = harness(MetricsAccess {
        separate_listener: false,
        token_sha256: Some(relay_api::auth::token_digest(METRICS_TOKEN)),
    })
    .await;
    for token in [None, Some("mtr_wrong"), Some(OPERATOR)] {
        let r = scrape(&h, token).await;
        r.problem(StatusCode::UNAUTHORIZED, "unauthorized");
        assert_eq!(r.headers[header::WWW_AUTHENTICATE], "Bearer");
        assert!(!r.text().contains("relay_test_up"), "{}", r.text());
    }
    let r = scrape(&h, Some(METRICS_TOKEN)).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.text(), page());
}

/// `GET path` with `Connection: close` on a raw connection; the whole answer.
async fn get(addr: std::net::SocketAddr, path: &str, token: Option<&str>) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: metrics.test\r\n{auth}Connection: close\r\n\r\n")
            .as_bytes(),
    )
    .await
    .unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(10), s.read_to_end(&mut out))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn metrics_on_a_listener_of_their_own_leave_the_api_listener() {
    let h = harness(MetricsAccess {
        separate_listener: true,
        token_sha256: Some(relay_api::auth::token_digest(METRICS_TOKEN)),
    })
    .await;
    // The API's listener knows no /metrics, with or without the token.
    scrape(&h, Some(METRICS_TOKEN))
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    // The metrics listener serves /metrics (with its token) and nothing else.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(relay_api::serve_metrics(listener, h.state.clone(), async {
        let _ = stopped.await;
    }));
    let ok = get(addr, "/metrics", Some(METRICS_TOKEN)).await;
    assert!(ok.starts_with("HTTP/1.1 200 "), "{ok}");
    assert!(ok.ends_with(&page()), "{ok}");
    let refused = get(addr, "/metrics", None).await;
    assert!(refused.starts_with("HTTP/1.1 401 "), "{refused}");
    for path in ["/healthz", "/v1/tenants", "/openapi.json"] {
        let other = get(addr, path, Some(OPERATOR)).await;
        assert!(other.starts_with("HTTP/1.1 404 "), "{path}: {other}");
    }
    let _ = stop.send(());
    server.await.unwrap().unwrap();
}
