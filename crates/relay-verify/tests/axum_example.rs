//! The README's axum example (`examples/axum.rs`, included verbatim in the
//! README) runs and answers as documented.

#[path = "../examples/axum.rs"]
#[allow(dead_code)]
mod example;

use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use hmac::{KeyInit, Mac};
use relay_verify::Verifier;
use tower::ServiceExt as _;

const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

fn sign(id: &str, ts: &str, body: &[u8]) -> String {
    let key = BASE64
        .decode(SECRET.trim_start_matches("whsec_"))
        .unwrap_or_default();
    let mut mac =
        hmac::Hmac::<sha2::Sha256>::new_from_slice(&key).unwrap_or_else(|e| panic!("{e}"));
    mac.update(format!("{id}.{ts}.").as_bytes());
    mac.update(body);
    format!("v1,{}", BASE64.encode(mac.finalize().into_bytes()))
}

fn request(headers: &[(&str, &str)], body: &'static [u8]) -> Request<Body> {
    let mut r =
        Request::post("/webhooks/relay").header("content-type", "application/cloudevents+json");
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    r.body(Body::from(body)).unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test]
async fn the_readme_example_verifies_rejects_and_deduplicates() {
    let app = example::app(Verifier::new([SECRET]).unwrap_or_else(|e| panic!("{e}")));
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
        .to_string();
    let body: &'static [u8] =
        br#"{"specversion":"1.0","id":"evt_1","type":"order.paid","source":"/shop"}"#;
    let sig = sign("evt_1", &now, body);
    let good = [
        ("webhook-id", "evt_1"),
        ("webhook-timestamp", now.as_str()),
        ("webhook-signature", sig.as_str()),
    ];
    let status = |req: Request<Body>| {
        let app = app.clone();
        async move {
            app.oneshot(req)
                .await
                .map(|r| r.status())
                .unwrap_or_else(|e: std::convert::Infallible| match e {})
        }
    };
    // Tampered and unsigned requests are refused (and not remembered).
    let tampered: &'static [u8] =
        br#"{"specversion":"1.0","id":"evt_1","type":"order.paid","source":"/shop" }"#;
    assert_eq!(
        status(request(&good, tampered)).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        status(request(&good[..2], body)).await,
        StatusCode::UNAUTHORIZED
    );
    // The genuine request is accepted once; its replay gets a 2xx without being processed again.
    assert_eq!(status(request(&good, body)).await, StatusCode::NO_CONTENT);
    assert_eq!(status(request(&good, body)).await, StatusCode::OK);
    // Authentic but not JSON.
    let text: &'static [u8] = b"not json";
    let sig = sign("evt_2", &now, text);
    let headers = [
        ("webhook-id", "evt_2"),
        ("webhook-timestamp", now.as_str()),
        ("webhook-signature", sig.as_str()),
    ];
    assert_eq!(
        status(request(&headers, text)).await,
        StatusCode::BAD_REQUEST
    );
}

#[test]
fn the_readme_shows_the_example_verbatim() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
    let example = std::fs::read_to_string(dir.join("examples/axum.rs")).unwrap_or_default();
    assert!(!example.is_empty());
    assert!(
        readme.contains(&format!("```rust\n{example}```")),
        "README.md must contain examples/axum.rs verbatim in a ```rust block"
    );
}
