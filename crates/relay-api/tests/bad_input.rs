//! Bad input never hurts (issue 2, item 7): every error is
//! `application/problem+json` with a stable `code`; malformed JSON is `400
//! malformed_json` with the line and column; a wrong shape is `422` naming the
//! field as a JSON Pointer; bodies over `max_request_bytes` are `413`; unknown
//! paths, wrong methods, bad path segments and invalid query parameters are
//! problems too.

mod common;

use axum::body::Body;
use axum::http::{Method, StatusCode};
use common::*;
use relay_api::ApiSettings;
use serde_json::json;

/// Every route that takes a JSON body, with the token kind it needs.
fn body_routes(tenant: &str) -> Vec<(Method, String, bool)> {
    vec![
        (Method::POST, "/v1/events".into(), true),
        (Method::POST, "/v1/endpoints".into(), true),
        (Method::PATCH, "/v1/endpoints/ep_x".into(), true),
        (Method::POST, "/v1/consumers".into(), true),
        (Method::PATCH, "/v1/consumers/con_x".into(), true),
        (Method::PUT, "/v1/event-types/order.created".into(), true),
        (Method::POST, "/v1/tenants".into(), false),
        (
            Method::POST,
            format!("/v1/tenants/{tenant}/api-keys"),
            false,
        ),
    ]
}

#[tokio::test]
async fn malformed_json_is_400_with_line_and_column() {
    let h = Harness::new().await;
    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    let cases: &[(&str, u64, u64)] = &[
        // (body, line, column) — positions as serde_json reports them.
        ("{", 1, 1),
        ("{\"type\": ", 1, 9),
        ("{\n  \"type\": \"order.created\",\n  oops\n}", 3, 3),
        ("[1, 2,,]", 1, 7),
        ("{\"a\": 1} trailing", 1, 10),
        ("nul", 1, 3),
        ("\u{feff}{}", 1, 1),
        ("", 1, 0),
    ];
    for (method, path, tenant_route) in body_routes(&tenant) {
        let token = if tenant_route { key.as_str() } else { OPERATOR };
        for (body, line, column) in cases {
            // An edit's body is all optional: empty means `{}` (optional_bodies.rs).
            if body.is_empty() && method == Method::PATCH {
                continue;
            }
            let r = h
                .send(method.clone(), &path, Some(token), body.to_string())
                .await;
            let p = r.problem(StatusCode::BAD_REQUEST, "malformed_json");
            assert_eq!(
                (p["line"].as_u64(), p["column"].as_u64()),
                (Some(*line), Some(*column)),
                "{method} {path} {body:?}: {p}"
            );
        }
    }
    // Invalid UTF-8 inside a string.
    let r = h
        .send(
            Method::POST,
            "/v1/consumers",
            Some(&key),
            Body::from(b"{\"external_id\": \"\xff\"}".to_vec()),
        )
        .await;
    let p = r.problem(StatusCode::BAD_REQUEST, "malformed_json");
    assert!(p["line"].is_u64() && p["column"].is_u64(), "{p}");
}

#[tokio::test]
async fn wrong_shapes_are_422_naming_the_field() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let consumer = h.consumer(&key, "acme").await;
    let endpoint = id_of(&h.endpoint(&key, &consumer, &["order.created"]).await);
    let cases: Vec<(Method, String, serde_json::Value, &str)> = vec![
        // Missing fields.
        (
            Method::POST,
            "/v1/events".into(),
            json!({ "data": {} }),
            "/type",
        ),
        (
            Method::POST,
            "/v1/events".into(),
            json!({ "type": "order.created" }),
            "/data",
        ),
        (
            Method::POST,
            "/v1/endpoints".into(),
            json!({ "consumer_id": consumer, "event_types": [] }),
            "/destination",
        ),
        (
            Method::POST,
            "/v1/endpoints".into(),
            json!({ "consumer_id": consumer, "event_types": [], "destination": { "kind": "https" } }),
            "/destination/url",
        ),
        (
            Method::POST,
            "/v1/consumers".into(),
            json!({}),
            "/external_id",
        ),
        (
            Method::PUT,
            "/v1/event-types/order.created".into(),
            json!({ "description": "no schema" }),
            "/schema",
        ),
        // Wrong types.
        (
            Method::POST,
            "/v1/events".into(),
            json!({ "type": 5, "data": {} }),
            "/type",
        ),
        (
            Method::POST,
            "/v1/events".into(),
            json!({ "type": "order.created", "data": {}, "ttl_seconds": "soon" }),
            "/ttl_seconds",
        ),
        (
            Method::POST,
            "/v1/events".into(),
            json!({ "type": "order.created", "data": {}, "ttl_seconds": -1 }),
            "/ttl_seconds",
        ),
        (
            Method::POST,
            "/v1/endpoints".into(),
            json!({ "consumer_id": consumer, "event_types": ["order.created", 5],
                    "destination": { "kind": "https", "url": GOOD_URL } }),
            "/event_types/1",
        ),
        (
            Method::POST,
            "/v1/endpoints".into(),
            json!({ "consumer_id": consumer, "event_types": "order.created",
                    "destination": { "kind": "https", "url": GOOD_URL } }),
            "/event_types",
        ),
        (
            Method::POST,
            "/v1/endpoints".into(),
            json!({ "consumer_id": consumer, "event_types": [],
                    "destination": { "kind": "https", "url": GOOD_URL }, "max_concurrency": 1e40 }),
            "/max_concurrency",
        ),
        (
            Method::PATCH,
            format!("/v1/endpoints/{endpoint}"),
            json!({ "retry_schedule_seconds": [60, "x"] }),
            "/retry_schedule_seconds/1",
        ),
        (
            Method::PATCH,
            format!("/v1/consumers/{consumer}"),
            json!({ "source": 7 }),
            "/source",
        ),
        (Method::POST, "/v1/consumers".into(), json!([]), "/"),
        // Unknown fields.
        (
            Method::POST,
            "/v1/events".into(),
            json!({ "type": "order.created", "data": {}, "bogus": 1 }),
            "/bogus",
        ),
        (
            Method::POST,
            "/v1/endpoints".into(),
            json!({ "consumer_id": consumer, "event_types": [],
                    "destination": { "kind": "https", "url": GOOD_URL, "extra": true } }),
            "/destination/extra",
        ),
        (
            Method::PATCH,
            format!("/v1/endpoints/{endpoint}"),
            json!({ "colour": "blue" }),
            "/colour",
        ),
        (
            Method::PUT,
            "/v1/event-types/order.created".into(),
            json!({ "schema": {}, "samples": [] }),
            "/samples",
        ),
    ];
    for (method, path, body, field) in cases {
        let r = h
            .send(method.clone(), &path, Some(&key), body.to_string())
            .await;
        let p = r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert_eq!(
            r.error_fields(),
            vec![field.to_string()],
            "{method} {path} {body}: {p}"
        );
        let name = field.rsplit('/').next().unwrap();
        assert!(
            p["detail"].as_str().unwrap().contains(name),
            "{method} {path}: the detail does not name `{name}`: {p}"
        );
    }
}

#[tokio::test]
async fn bodies_over_the_limit_are_413() {
    let h = Harness::with_settings(ApiSettings {
        max_request_bytes: 1024,
        ..ApiSettings::default()
    })
    .await;
    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;

    let publish_of_size = |size: usize| {
        let head = r#"{"type":"order.created","data":{"pad":""#;
        let tail = r#""}}"#;
        let pad = "x".repeat(size - head.len() - tail.len());
        let body = format!("{head}{pad}{tail}");
        assert_eq!(body.len(), size);
        body
    };
    // At the limit: accepted.
    h.send(
        Method::POST,
        "/v1/events",
        Some(&key),
        publish_of_size(1024),
    )
    .await
    .expect(StatusCode::ACCEPTED);
    // One byte over, and far over: 413 on every body route.
    for size in [1025, 64 * 1024, 3 * 1024 * 1024] {
        for (method, path, tenant_route) in body_routes(&tenant) {
            let token = if tenant_route { key.as_str() } else { OPERATOR };
            h.send(method.clone(), &path, Some(token), publish_of_size(size))
                .await
                .problem(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
        }
    }
}

#[tokio::test]
async fn unknown_paths_and_wrong_methods_are_problems() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    for path in [
        "/",
        "/v1",
        "/v2/events",
        "/v1/nope",
        "/v1/consumers/con_x/extra",
        "/v1/events/evt_x/messages/x",
        "/V1/EVENTS",
    ] {
        for token in [None, Some(key.as_str())] {
            h.send(Method::GET, path, token, Body::empty())
                .await
                .problem(StatusCode::NOT_FOUND, "not_found");
        }
    }
    for (method, path) in [
        (Method::DELETE, "/v1/events"),
        (Method::GET, "/v1/events"),
        (Method::PUT, "/v1/consumers"),
        (Method::POST, "/v1/consumers/con_x"),
        (Method::POST, "/v1/event-types"),
        (Method::DELETE, "/v1/event-types/order.created"),
        (Method::POST, "/v1/messages/msg_x"),
        (Method::PATCH, "/v1/tenants"),
        (Method::POST, "/openapi.json"),
        (Method::PUT, "/healthz"),
    ] {
        h.send(method.clone(), path, Some(&key), "{}")
            .await
            .problem(StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed");
    }
}

#[tokio::test]
async fn odd_path_segments_are_problems() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    for path in [
        "/v1/consumers/%FF",
        "/v1/endpoints/%C0%AF",
        "/v1/events/%00",
        "/v1/messages/%2e%2e%2fetc",
        "/v1/messages/%FF/attempts",
        "/v1/event-types/%E2%80%8B",
        "/v1/consumers/'%20OR%201=1--",
    ] {
        for method in [Method::GET, Method::DELETE, Method::PATCH] {
            let r = h.send(method.clone(), path, Some(&key), "{}").await;
            assert!(
                r.status.is_client_error(),
                "{method} {path}: {} {}",
                r.status,
                r.text()
            );
            r.any_problem();
        }
    }
}

#[tokio::test]
async fn invalid_query_parameters_are_400() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let lists = ["/v1/messages", "/v1/consumers", "/v1/endpoints"];
    for list in lists {
        for q in [
            "limit=0",
            "limit=abc",
            "limit=-1",
            "limit=251",
            "limit=99999999999",
            "limit=",
            "unknown=1",
        ] {
            let r = h.get(&format!("{list}?{q}"), &key).await;
            r.problem(StatusCode::BAD_REQUEST, "invalid_query");
        }
        for q in ["limit=1", "limit=250", "", "after=zzz"] {
            h.get(&format!("{list}?{q}"), &key)
                .await
                .expect(StatusCode::OK);
        }
    }
    for q in [
        "state=bogus",
        "state=",
        "since=yesterday",
        "until=2026-13-01T00:00:00Z",
        "limit=1&limit=2",
    ] {
        let r = h.get(&format!("/v1/messages?{q}"), &key).await;
        let p = r.problem(StatusCode::BAD_REQUEST, "invalid_query");
        let name = q.split('=').next().unwrap();
        assert!(
            p["detail"].as_str().unwrap().contains(name),
            "{q}: the detail does not name `{name}`: {p}"
        );
    }
    h.get("/v1/tenants?limit=0", OPERATOR)
        .await
        .problem(StatusCode::BAD_REQUEST, "invalid_query");
    for q in [
        "state=scheduled",
        "state=dead_lettered",
        "since=2026-01-01T00:00:00Z&until=2027-01-01T00:00:00%2B01:00",
    ] {
        h.get(&format!("/v1/messages?{q}"), &key)
            .await
            .expect(StatusCode::OK);
    }
}

#[tokio::test]
async fn errors_carry_the_problem_shape() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let r = h.get("/v1/consumers/con_missing", &key).await;
    let p = r.problem(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(p["type"], "urn:relay:problem:not_found");
    assert_eq!(p["title"], "Not Found");
    assert_eq!(p["status"], 404);
    // A duplicate external_id is a 409 problem.
    h.consumer(&key, "dup").await;
    h.post("/v1/consumers", &key, json!({ "external_id": "dup" }))
        .await
        .problem(StatusCode::CONFLICT, "conflict");
    // Deleting a consumer that still has endpoints is a 409 problem.
    h.open_event_type(&key, "order.created").await;
    let c = h.consumer(&key, "busy").await;
    h.endpoint(&key, &c, &["order.created"]).await;
    h.delete(&format!("/v1/consumers/{c}"), &key)
        .await
        .problem(StatusCode::CONFLICT, "conflict");
}
