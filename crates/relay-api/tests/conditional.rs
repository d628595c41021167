//! Endpoint `PATCH` is a conditional update (issue #39, section 6): reads
//! answer the endpoint's `ETag` (its revision), `If-Match` makes a change
//! apply only while the endpoint is still what was read (`412` otherwise),
//! and a change decided from a stale read never undoes a concurrent pause
//! or disable. (The store's compare-and-set under interleavings is the
//! conformance case `an_endpoint_update_applies_only_at_the_revision_read`.)

mod common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use common::*;
use serde_json::{Value, json};

async fn send_if_match(
    h: &Harness,
    method: Method,
    path: &str,
    token: &str,
    tag: &str,
    body: Value,
) -> Resp {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::IF_MATCH, tag)
        .body(Body::from(body.to_string()))
        .unwrap();
    h.request(req).await
}

fn etag(r: &Resp) -> String {
    r.headers
        .get(header::ETAG)
        .unwrap_or_else(|| panic!("no ETag: {:?}", r.headers))
        .to_str()
        .unwrap()
        .to_string()
}

/// The attacker's race, serialised: a client reads the endpoint, the
/// endpoint is paused (or disabled) meanwhile, then the client's `PATCH`
/// decided from its read arrives. With `If-Match` it is refused (`412`);
/// without, it applies to the endpoint as it is now and leaves it paused.
#[tokio::test]
async fn a_patch_decided_before_a_pause_never_undoes_it() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let consumer = h.consumer(&key, "merchant-1").await;
    let id = id_of(&h.endpoint(&key, &consumer, &["order.shipped"]).await);
    let path = format!("/v1/endpoints/{id}");

    let read = h.get(&path, &key).await;
    assert_eq!(read.status, StatusCode::OK);
    let tag = etag(&read);
    assert_eq!(tag, format!("\"{}\"", read.json()["revision"]));

    h.post(&format!("{path}/pause"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    let stale = send_if_match(
        &h,
        Method::PATCH,
        &path,
        &key,
        &tag,
        json!({ "description": "from the stale read" }),
    )
    .await;
    stale.problem(StatusCode::PRECONDITION_FAILED, "precondition_failed");
    let now = h.get(&path, &key).await;
    assert_eq!(now.json()["state"], "paused");
    assert_eq!(now.json()["description"], "test endpoint");
    assert_ne!(etag(&now), tag, "the pause changed the ETag");

    // With the current ETag (or none) the change applies, and the state stays.
    let ok = send_if_match(
        &h,
        Method::PATCH,
        &path,
        &key,
        &etag(&now),
        json!({ "description": "renamed" }),
    )
    .await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text());
    assert_eq!(ok.json()["state"], "paused");
    assert_ne!(etag(&ok), etag(&now));
    assert_eq!(
        etag(&ok),
        etag(&h.get(&path, &key).await),
        "the answer's ETag is the endpoint's"
    );
    h.post(&format!("{path}/disable"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    let blind = h
        .patch(&path, &key, json!({ "description": "blind" }))
        .await
        .expect(StatusCode::OK);
    assert_eq!(blind["state"], "disabled");
    assert_eq!(blind["description"], "blind");

    // `*` matches any revision; a weak or unknown tag none.
    send_if_match(&h, Method::PATCH, &path, &key, "*", json!({}))
        .await
        .expect(StatusCode::OK);
    for tag in ["W/\"1\"", "\"999\"", "nonsense"] {
        send_if_match(&h, Method::PATCH, &path, &key, tag, json!({}))
            .await
            .problem(StatusCode::PRECONDITION_FAILED, "precondition_failed");
    }
}

/// Two payload changes decided from the same read: the first opens
/// version 2; the second, made with the same `If-Match`, is refused, so
/// no two endpoint versions share a number and the second's settings are
/// never recorded under the first's version.
#[tokio::test]
async fn two_payload_changes_from_one_read_cannot_share_a_version() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.event_type(
        &key,
        "order.shipped",
        json!({ "type": "object", "properties": {
            "order_id": { "type": "string" }, "carrier": { "type": "string" } } }),
    )
    .await;
    let consumer = h.consumer(&key, "merchant-1").await;
    let id = id_of(&h.endpoint(&key, &consumer, &["order.shipped"]).await);
    let path = format!("/v1/endpoints/{id}");
    let tag = etag(&h.get(&path, &key).await);
    let first = send_if_match(
        &h,
        Method::PATCH,
        &path,
        &key,
        &tag,
        json!({ "snapshot_fields": ["/order_id"] }),
    )
    .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.text());
    assert_eq!(first.json()["version"], 2);
    send_if_match(
        &h,
        Method::PATCH,
        &path,
        &key,
        &tag,
        json!({ "snapshot_fields": ["/carrier"] }),
    )
    .await
    .problem(StatusCode::PRECONDITION_FAILED, "precondition_failed");
    let versions = h
        .get(&format!("{path}/versions"), &key)
        .await
        .expect(StatusCode::OK);
    let list = versions["data"].as_array().unwrap();
    assert_eq!(list.len(), 2, "{versions}");
    assert_eq!(list[1]["snapshot_fields"], json!(["/order_id"]));
}

/// The portal's reads and `PATCH` follow the same rule.
#[tokio::test]
async fn the_portal_answers_etags_and_honours_if_match() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let consumer = h.consumer(&key, "merchant-1").await;
    let id = id_of(&h.endpoint(&key, &consumer, &["order.shipped"]).await);
    let token = h
        .post(
            "/v1/portal-tokens",
            &key,
            json!({ "consumer_id": consumer, "capabilities": ["manage_endpoints"] }),
        )
        .await
        .expect(StatusCode::CREATED)["token"]
        .as_str()
        .unwrap()
        .to_string();
    let path = format!("/v1/portal/endpoints/{id}");
    let read = h.get(&path, &token).await;
    assert_eq!(read.headers["access-control-expose-headers"], "etag");
    let tag = etag(&read);
    // An embedding page may send If-Match (CORS preflight).
    let preflight = h
        .request(
            Request::builder()
                .method(Method::OPTIONS)
                .uri(&path)
                .header(header::ORIGIN, "https://app.example.com")
                .header("access-control-request-method", "PATCH")
                .header("access-control-request-headers", "authorization, if-match")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    let allowed = preflight.headers["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(allowed.contains("if-match"), "{allowed}");
    h.post(&format!("/v1/endpoints/{id}/pause"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    send_if_match(
        &h,
        Method::PATCH,
        &path,
        &token,
        &tag,
        json!({ "url": "https://receiver.test:8443/moved" }),
    )
    .await
    .problem(StatusCode::PRECONDITION_FAILED, "precondition_failed");
    let fresh = etag(&h.get(&path, &token).await);
    let ok = send_if_match(
        &h,
        Method::PATCH,
        &path,
        &token,
        &fresh,
        json!({ "url": "https://receiver.test:8443/moved" }),
    )
    .await;
    assert_eq!(ok.status, StatusCode::OK, "{}", ok.text());
    assert_eq!(ok.json()["state"], "paused");
}
