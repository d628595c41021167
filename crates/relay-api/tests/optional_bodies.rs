//! A request whose body is all optional accepts an empty body (issue 21,
//! part 7): no bytes and no `Content-Type` take every default, as `{}` does.
//! The operations are found in the OpenAPI document (a body that is not
//! required), so a new one is covered as soon as it is declared; a body that
//! is required still refuses an empty request.

mod common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use common::*;
use serde_json::{Value, json};

/// Sends `method path` with no body and no `Content-Type`.
async fn send_empty(h: &Harness, method: &str, path: &str, token: &str) -> Resp {
    let req = Request::builder()
        .method(Method::from_bytes(method.as_bytes()).unwrap())
        .uri(path)
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .body(Body::empty())
        .unwrap();
    h.request(req).await
}

struct World {
    h: Harness,
    key: String,
    tenant: String,
    consumer: String,
    endpoint: String,
    /// A portal token of the consumer, with every capability.
    portal: String,
    source: String,
}

async fn world() -> World {
    let h = Harness::new().await;
    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    h.put(
        "/v1/event-types/order.shipped",
        &key,
        json!({"schema": {"type": "object"}, "sample": {"order_id": "sample-1"}}),
    )
    .await
    .expect(StatusCode::CREATED);
    let consumer = h.consumer(&key, "acme").await;
    let endpoint = id_of(&h.endpoint(&key, &consumer, &["order.shipped"]).await);
    let portal = h
        .post(
            "/v1/portal-tokens",
            &key,
            json!({
                "consumer_id": consumer,
                "capabilities": ["manage_endpoints", "rotate_keys", "recover", "send_tests"],
            }),
        )
        .await
        .expect(StatusCode::CREATED)["token"]
        .as_str()
        .unwrap()
        .to_string();
    let source = id_of(
        &h.post(
            "/v1/inbound-sources",
            &key,
            json!({"name": "s", "preset": "github", "secret": "s"}),
        )
        .await
        .expect(StatusCode::CREATED),
    );
    World {
        portal,
        source,
        h,
        key,
        tenant,
        consumer,
        endpoint,
    }
}

impl World {
    /// The path with real ids, and the token its operation takes.
    fn concrete(&self, path: &str) -> (String, &str) {
        let (id, token) = match path.split('/').nth(2) {
            Some("tenants") => (self.tenant.as_str(), OPERATOR),
            Some("consumers") => (self.consumer.as_str(), self.key.as_str()),
            Some("portal") => (self.endpoint.as_str(), self.portal.as_str()),
            Some("inbound-sources") => (self.source.as_str(), self.key.as_str()),
            _ => (self.endpoint.as_str(), self.key.as_str()),
        };
        let path = path
            .replace("{id}", id)
            .replace("{name}", "order.shipped")
            .replace("{key_id}", "key_unknown");
        (path, token)
    }
}

fn bodies(required: bool) -> Vec<(String, String)> {
    let doc = relay_api::openapi::document();
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            if let Some(body) = op.get("requestBody")
                && (body["required"] == true) == required
            {
                out.push((method.to_uppercase(), path.clone()));
            }
        }
    }
    out
}

#[tokio::test]
async fn every_optional_body_may_be_left_out() {
    let w = world().await;
    let optional = bodies(false);
    // Edits (PATCH), rotate-key, the test send and bulk retry at least.
    assert!(optional.len() >= 5, "{optional:?}");
    let mut faults = Vec::new();
    for (method, path) in &optional {
        let (concrete, token) = w.concrete(path);
        if path.ends_with("/enable") {
            // Enable applies to a disabled endpoint; its body is what is tested.
            w.h.post(
                &format!("/v1/endpoints/{}/disable", w.endpoint),
                &w.key,
                json!({}),
            )
            .await
            .expect(StatusCode::OK);
        }
        let r = send_empty(&w.h, method, &concrete, token).await;
        if path.ends_with("/rotate-secret") {
            // Its fields are each optional, but one of `secret` and
            // `secret_ref` must be given: the empty body is read as `{}`
            // and refused for its content, not as a malformed request.
            if r.status != StatusCode::UNPROCESSABLE_ENTITY {
                faults.push(format!("{method} {path}: {} {}", r.status, r.text()));
            }
            continue;
        }
        if !r.status.is_success() {
            faults.push(format!("{method} {path}: {} {}", r.status, r.text()));
        }
    }
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[tokio::test]
async fn a_required_body_still_refuses_an_empty_request() {
    let w = world().await;
    let required = bodies(true);
    assert!(required.len() >= 5, "{required:?}");
    for (method, path) in &required {
        let (concrete, token) = w.concrete(path);
        send_empty(&w.h, method, &concrete, token)
            .await
            .problem(StatusCode::BAD_REQUEST, "malformed_json");
    }
}

#[tokio::test]
async fn the_test_action_with_no_body_sends_the_default_sample() {
    let w = world().await;
    let r = send_empty(
        &w.h,
        "POST",
        &format!("/v1/endpoints/{}/test", w.endpoint),
        &w.key,
    )
    .await
    .expect(StatusCode::OK);
    assert_eq!(r["message"]["event_type"], "order.shipped");
    assert_eq!(r["message"]["endpoint_id"], w.endpoint.as_str());
    assert_eq!(r["attempt"]["trigger"], "manual");
    let event: Value =
        w.h.get(
            &format!("/v1/events/{}", r["message"]["event_id"].as_str().unwrap()),
            &w.key,
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(event["data"], json!({"order_id": "sample-1"}));
}
