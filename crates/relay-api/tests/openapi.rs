//! OpenAPI drift (issue 2, item 8): the committed `docs/openapi.json` must
//! equal the document generated from the handlers, the router must serve that
//! same document at `/openapi.json`, and every operation the document lists
//! must exist in the router.
//!
//! To refresh the committed file: `cargo run -p relay -- openapi > docs/openapi.json`
//! (or run this test once with `RELAY_BLESS=1`).

mod common;

use std::path::PathBuf;

use axum::body::Body;
use axum::http::{Method, StatusCode};
use common::*;
use serde_json::Value;

const REFRESH: &str =
    "run `cargo run -p relay -- openapi > docs/openapi.json` and commit the result";

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json")
}

#[test]
fn the_committed_document_matches_the_code() {
    let path = committed_path();
    let generated = relay_api::openapi::document_text();
    if std::env::var_os("RELAY_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).expect("write docs/openapi.json");
        eprintln!("wrote {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}; {REFRESH}", path.display()));
    if committed != generated {
        let first_difference = committed
            .lines()
            .zip(generated.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .map(|(i, (a, b))| {
                format!(
                    "first difference at line {}:\n  committed: {a}\n  generated: {b}",
                    i + 1
                )
            })
            .unwrap_or_else(|| "one is a prefix of the other".to_string());
        panic!("docs/openapi.json has drifted from the code; {REFRESH}.\n{first_difference}");
    }
}

#[tokio::test]
async fn the_router_serves_the_document() {
    let h = Harness::new().await;
    // No token needed.
    let r = h
        .send(Method::GET, "/openapi.json", None, Body::empty())
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(
        r.content_type().starts_with("application/json"),
        "{}",
        r.content_type()
    );
    let served: Value = r.json();
    assert_eq!(served, relay_api::openapi::document());
    let committed: Value = serde_json::from_str(
        &std::fs::read_to_string(committed_path()).expect("docs/openapi.json"),
    )
    .expect("docs/openapi.json is JSON");
    assert_eq!(served, committed, "{REFRESH}");
}

#[tokio::test]
async fn every_documented_operation_is_routed() {
    let h = Harness::new().await;
    let doc = relay_api::openapi::document();
    let paths = doc["paths"].as_object().expect("paths");
    assert!(paths.len() >= 15, "suspiciously few paths: {}", paths.len());
    for (path, item) in paths {
        let concrete = path
            .replace("{name}", "order.created")
            .replace("{key_id}", "key_x")
            .replace("{id}", "x");
        for (method, op) in item.as_object().expect("path item") {
            let m = Method::from_bytes(method.to_uppercase().as_bytes()).expect("method");
            let r = h.send(m.clone(), &concrete, None, "{}").await;
            // Every documented operation needs a token: an existing route says 401,
            // a missing one would say 404 `no such path` or 405.
            r.problem(StatusCode::UNAUTHORIZED, "unauthorized");
            assert!(
                op["security"].as_array().is_some_and(|s| !s.is_empty()),
                "{method} {path} documents no security requirement"
            );
            assert!(
                op["responses"].as_object().is_some_and(|r| !r.is_empty()),
                "{method} {path} documents no responses"
            );
        }
    }
}
