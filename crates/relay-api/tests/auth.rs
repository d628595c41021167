//! Authentication and authorisation (issue 2, item 6): missing, garbage and
//! revoked tokens are 401 problem+json; the operator token is refused on
//! tenant routes and tenant keys on tenant management (403); an API key is
//! shown once at creation and never again (not even its hash).

mod common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use common::*;
use serde_json::json;

/// One tenant route and one operator route per method, enough to see that the
/// extractors guard every kind of handler.
const TENANT_ROUTES: &[(&str, &str)] = &[
    ("GET", "/v1/consumers"),
    ("POST", "/v1/consumers"),
    ("GET", "/v1/consumers/con_x"),
    ("PATCH", "/v1/consumers/con_x"),
    ("DELETE", "/v1/consumers/con_x"),
    ("GET", "/v1/endpoints"),
    ("POST", "/v1/endpoints"),
    ("GET", "/v1/endpoints/ep_x"),
    ("PATCH", "/v1/endpoints/ep_x"),
    ("DELETE", "/v1/endpoints/ep_x"),
    ("GET", "/v1/event-types"),
    ("GET", "/v1/event-types/order.shipped"),
    ("PUT", "/v1/event-types/order.shipped"),
    ("POST", "/v1/events"),
    ("GET", "/v1/events/evt_x"),
    ("GET", "/v1/messages"),
    ("GET", "/v1/messages/msg_x"),
    ("GET", "/v1/messages/msg_x/attempts"),
];

const OPERATOR_ROUTES: &[(&str, &str)] = &[
    ("GET", "/v1/tenants"),
    ("POST", "/v1/tenants"),
    ("GET", "/v1/tenants/ten_x"),
    ("POST", "/v1/tenants/ten_x/api-keys"),
    ("GET", "/v1/tenants/ten_x/api-keys"),
    ("DELETE", "/v1/tenants/ten_x/api-keys/key_x"),
];

async fn call(h: &Harness, method: &str, path: &str, authorization: Option<&str>) -> Resp {
    let mut req = Request::builder()
        .method(Method::from_bytes(method.as_bytes()).unwrap())
        .uri(path);
    if let Some(a) = authorization {
        req = req.header(header::AUTHORIZATION, a);
    }
    // A valid-looking body, so a handler that skipped auth would not fail on the body first.
    let body = if method == "GET" || method == "DELETE" {
        Body::empty()
    } else {
        Body::from(json!({ "name": "x" }).to_string())
    };
    h.request(req.body(body).unwrap()).await
}

#[tokio::test]
async fn missing_garbage_and_malformed_tokens_are_401() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let bad: &[Option<&str>] = &[
        None,
        Some(""),
        Some("Bearer"),
        Some("Bearer "),
        Some("Bearer garbage"),
        Some("Bearer rk_live_000000000000000000000000000000000000000000000000"),
        Some("Bearer rop_wrong"),
        Some("Basic dXNlcjpwYXNz"),
        Some("rop_test"),
        Some(&format!("Token {key}")),
    ];
    for (method, path) in TENANT_ROUTES.iter().chain(OPERATOR_ROUTES) {
        for auth in bad {
            let r = call(&h, method, path, *auth).await;
            r.problem(StatusCode::UNAUTHORIZED, "unauthorized");
            assert!(
                !r.text().contains(&key),
                "{method} {path} with {auth:?} echoed a key"
            );
        }
    }
    // Non-ASCII bytes in the header.
    let req = Request::builder()
        .uri("/v1/consumers")
        .header(
            header::AUTHORIZATION,
            axum::http::HeaderValue::from_bytes(b"Bearer \xff\xfe").unwrap(),
        )
        .body(Body::empty())
        .unwrap();
    h.request(req)
        .await
        .problem(StatusCode::UNAUTHORIZED, "unauthorized");
}

#[tokio::test]
async fn a_revoked_key_is_401_and_other_keys_keep_working() {
    let h = Harness::new().await;
    let tenant = h.tenant("acme").await;
    let created = h.api_key_object(&tenant, "live").await;
    let key = created["key"].as_str().unwrap().to_string();
    let other = h.api_key(&tenant, "live").await;
    h.get("/v1/consumers", &key).await.expect(StatusCode::OK);

    h.delete(
        &format!("/v1/tenants/{tenant}/api-keys/{}", id_of(&created)),
        OPERATOR,
    )
    .await
    .expect(StatusCode::NO_CONTENT);

    for (method, path) in TENANT_ROUTES {
        call(&h, method, path, Some(&format!("Bearer {key}")))
            .await
            .problem(StatusCode::UNAUTHORIZED, "unauthorized");
    }
    h.get("/v1/consumers", &other).await.expect(StatusCode::OK);
    // Revoking twice, or a key of another tenant, is 404.
    h.delete(
        &format!("/v1/tenants/{tenant}/api-keys/{}", id_of(&created)),
        OPERATOR,
    )
    .await
    .problem(StatusCode::NOT_FOUND, "not_found");
    let other_tenant = h.tenant("other").await;
    let other_key = h.api_key_object(&other_tenant, "live").await;
    h.delete(
        &format!("/v1/tenants/{tenant}/api-keys/{}", id_of(&other_key)),
        OPERATOR,
    )
    .await
    .problem(StatusCode::NOT_FOUND, "not_found");
    h.get("/v1/consumers", other_key["key"].as_str().unwrap())
        .await
        .expect(StatusCode::OK);
    // The listing shows the revocation.
    let keys = h
        .get(&format!("/v1/tenants/{tenant}/api-keys"), OPERATOR)
        .await
        .expect(StatusCode::OK);
    let revoked = keys["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == created["id"])
        .expect("revoked key listed");
    assert!(revoked["revoked_at"].is_string(), "{revoked}");
}

#[tokio::test]
async fn the_operator_token_is_403_on_tenant_routes() {
    let h = Harness::new().await;
    for (method, path) in TENANT_ROUTES {
        call(&h, method, path, Some(&format!("Bearer {OPERATOR}")))
            .await
            .problem(StatusCode::FORBIDDEN, "forbidden");
    }
}

#[tokio::test]
async fn tenant_keys_are_403_on_tenant_management() {
    let h = Harness::new().await;
    let (tenant, live) = h.tenant_with_key("acme", "live").await;
    let test = h.api_key(&tenant, "test").await;
    for key in [&live, &test] {
        for (method, path) in OPERATOR_ROUTES {
            let path = path.replace("ten_x", &tenant);
            call(&h, method, &path, Some(&format!("Bearer {key}")))
                .await
                .problem(StatusCode::FORBIDDEN, "forbidden");
        }
    }
    // Nothing was created by those attempts.
    let tenants = h.get("/v1/tenants", OPERATOR).await.expect(StatusCode::OK);
    assert_eq!(ids_in(&tenants), vec![tenant.clone()]);
    let keys = h
        .get(&format!("/v1/tenants/{tenant}/api-keys"), OPERATOR)
        .await
        .expect(StatusCode::OK);
    assert_eq!(keys["data"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn an_api_key_is_shown_once_and_stored_hashed() {
    let h = Harness::new().await;
    let tenant = h.tenant("acme").await;
    let mut secrets = Vec::new();
    for env in ["live", "test"] {
        let created = h.api_key_object(&tenant, env).await;
        let key = created["key"].as_str().expect("key shown at creation");
        assert!(key.starts_with(&format!("rk_{env}_")), "{key}");
        assert_eq!(created["environment"], env);
        assert_eq!(created["tenant_id"], tenant.as_str());
        let prefix = created["prefix"].as_str().unwrap();
        assert!(key.starts_with(prefix) && prefix.len() < key.len() / 2);
        // The key works.
        h.get("/v1/consumers", key).await.expect(StatusCode::OK);
        secrets.push(key.to_string());
    }
    let listed = h
        .get(&format!("/v1/tenants/{tenant}/api-keys"), OPERATOR)
        .await;
    let body = listed.expect(StatusCode::OK);
    let text = listed.text();
    assert_eq!(body["data"].as_array().unwrap().len(), 2);
    for k in body["data"].as_array().unwrap() {
        assert!(k.get("key").is_none(), "listing shows a key: {k}");
        assert!(k.get("key_hash").is_none(), "listing shows a hash: {k}");
    }
    for s in &secrets {
        let hash = relay_api::auth::token_digest_hex(s);
        assert!(!text.contains(s.as_str()), "listing contains the key");
        assert!(!text.contains(&hash), "listing contains the key's hash");
        assert!(
            !text.contains(&hash.to_uppercase()),
            "listing contains the key's hash"
        );
    }
    // Keys of a tenant that does not exist: 404.
    h.get("/v1/tenants/ten_nope/api-keys", OPERATOR)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    h.post(
        "/v1/tenants/ten_nope/api-keys",
        OPERATOR,
        json!({ "environment": "live" }),
    )
    .await
    .problem(StatusCode::NOT_FOUND, "not_found");
    // An unknown environment is a shape error.
    h.post(
        &format!("/v1/tenants/{tenant}/api-keys"),
        OPERATOR,
        json!({ "environment": "prod" }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
}

#[tokio::test]
async fn the_key_scopes_to_its_environment() {
    let h = Harness::new().await;
    let (tenant, live) = h.tenant_with_key("acme", "live").await;
    let test = h.api_key(&tenant, "test").await;
    let c_live = h
        .post("/v1/consumers", &live, json!({ "external_id": "a" }))
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(c_live["environment"], "live");
    let c_test = h
        .post("/v1/consumers", &test, json!({ "external_id": "a" }))
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(c_test["environment"], "test");
    // An environment in the body cannot override the key's.
    h.post(
        "/v1/consumers",
        &test,
        json!({ "external_id": "b", "environment": "live" }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
}
