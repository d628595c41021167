//! The portal's consumer API (issue 27): its scope as a table, audit
//! actors, where a token may be used from (tokens and the brand themselves:
//! `portal_tokens.rs`).
//!
//! Every portal operation × (own object, the same tenant's other consumer's
//! object, another tenant's object, an expired token, a revoked token, a
//! read-only token) → the expected answer. A guard test checks that the
//! table covers every `/v1/portal/…` operation the OpenAPI document lists.

mod common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use common::*;
use serde_json::{Value, json};

/// What the table's cells expect.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    /// This status (a problem with this code when given).
    Is(StatusCode, Option<&'static str>),
    /// 200 with a `data` list holding none of the other consumers' or
    /// tenants' objects.
    ListOwnOnly,
}

use Want::*;

const OK: Want = Is(StatusCode::OK, None);
const NOT_FOUND: Want = Is(StatusCode::NOT_FOUND, Some("not_found"));
const EXPIRED: Want = Is(StatusCode::UNAUTHORIZED, Some("portal_token_expired"));
const REVOKED: Want = Is(StatusCode::UNAUTHORIZED, Some("portal_token_revoked"));
const READ_ONLY: Want = Is(StatusCode::FORBIDDEN, Some("capability_missing"));

/// The world the table runs in.
struct World {
    h: Harness,
    /// Tenant A's key; A1 is the token's consumer, A2 another of A's.
    key_a: String,
    consumer_a1: String,
    consumer_a2: String,
    /// Endpoints: A1's (own), A2's, B's (another tenant).
    own: String,
    other_consumer: String,
    other_tenant: String,
    /// A message of each.
    own_msg: String,
    other_consumer_msg: String,
    other_tenant_msg: String,
    /// Tokens of A1.
    full: String,
    full_id: String,
    read_only: String,
    expired: String,
    revoked: String,
}

async fn mint(h: &Harness, key: &str, body: Value) -> Value {
    h.post("/v1/portal-tokens", key, body)
        .await
        .expect(StatusCode::CREATED)
}

const ALL: [&str; 4] = ["manage_endpoints", "rotate_keys", "recover", "send_tests"];

async fn world() -> World {
    let h = Harness::new().await;
    let (_, key_a) = h.tenant_with_key("a", "live").await;
    let (_, key_b) = h.tenant_with_key("b", "live").await;
    let mut endpoints = Vec::new();
    let mut consumers = Vec::new();
    for (key, external) in [(&key_a, "a1"), (&key_a, "a2"), (&key_b, "b1")] {
        h.put(
            "/v1/event-types/order.created",
            key,
            json!({ "schema": { "type": "object" }, "sample": { "order_id": "o-1" } }),
        )
        .await;
        let c = h.consumer(key, external).await;
        endpoints.push(id_of(&h.endpoint(key, &c, &["order.created"]).await));
        consumers.push(c);
    }
    let mut messages = Vec::new();
    for (key, endpoint) in [
        (&key_a, &endpoints[0]),
        (&key_a, &endpoints[1]),
        (&key_b, &endpoints[2]),
    ] {
        let c = if endpoint == &endpoints[0] {
            &consumers[0]
        } else if endpoint == &endpoints[1] {
            &consumers[1]
        } else {
            &consumers[2]
        };
        let p = h
            .publish(
                key,
                json!({ "type": "order.created", "data": { "order_id": "o-2" }, "consumer_id": c }),
            )
            .await
            .expect(StatusCode::ACCEPTED);
        let list = h
            .get(&format!("/v1/messages?event_id={}", id_of(&p)), key)
            .await
            .expect(StatusCode::OK);
        let ids = ids_in(&list);
        assert_eq!(ids.len(), 1, "{list}");
        messages.push(ids[0].clone());
    }
    let c1 = consumers[0].clone();
    let full = mint(
        &h,
        &key_a,
        json!({ "consumer_id": c1, "capabilities": ALL }),
    )
    .await;
    let read_only = mint(&h, &key_a, json!({ "consumer_id": c1 })).await;
    let expired = mint(
        &h,
        &key_a,
        json!({ "consumer_id": c1, "capabilities": ALL, "lifetime_seconds": 60 }),
    )
    .await;
    let revoked = mint(
        &h,
        &key_a,
        json!({ "consumer_id": c1, "capabilities": ALL }),
    )
    .await;
    h.delete(&format!("/v1/portal-tokens/{}", id_of(&revoked)), &key_a)
        .await
        .expect(StatusCode::NO_CONTENT);
    // The 60-second token expires; the others (an hour) do not.
    h.clock.advance_millis(61_000);
    let token = |v: &Value| v["token"].as_str().unwrap().to_string();
    World {
        key_a,
        consumer_a1: c1,
        consumer_a2: consumers[1].clone(),
        own: endpoints[0].clone(),
        other_consumer: endpoints[1].clone(),
        other_tenant: endpoints[2].clone(),
        own_msg: messages[0].clone(),
        other_consumer_msg: messages[1].clone(),
        other_tenant_msg: messages[2].clone(),
        full_id: id_of(&full),
        full: token(&full),
        read_only: token(&read_only),
        expired: token(&expired),
        revoked: token(&revoked),
        h,
    }
}

/// One row: an operation, how to address it, and its answers.
struct Row {
    method: Method,
    /// The OpenAPI path template.
    template: &'static str,
    /// `{e}` is replaced by an endpoint id, `{m}` by a message id.
    path: &'static str,
    body: Option<Value>,
    own: Want,
    /// For collections: the answer when the body names another consumer.
    other_consumer: Want,
    other_tenant: Want,
    /// Whether it changes anything (read-only tokens get 403).
    writes: bool,
}

fn rows() -> Vec<Row> {
    let row = |method: Method,
               template: &'static str,
               path: &'static str,
               body: Option<Value>,
               own: Want,
               writes: bool| Row {
        method,
        template,
        path,
        body,
        own,
        other_consumer: NOT_FOUND,
        other_tenant: NOT_FOUND,
        writes,
    };
    let collection = |r: Row, other: Want| Row {
        other_consumer: other,
        other_tenant: other,
        ..r
    };
    let since = json!({ "since": "2027-01-15T07:00:00Z" });
    vec![
        collection(
            row(
                Method::GET,
                "/v1/portal/session",
                "/v1/portal/session",
                None,
                OK,
                false,
            ),
            OK,
        ),
        collection(
            row(
                Method::GET,
                "/v1/portal/event-types",
                "/v1/portal/event-types",
                None,
                OK,
                false,
            ),
            OK,
        ),
        collection(
            row(
                Method::GET,
                "/v1/portal/endpoints",
                "/v1/portal/endpoints",
                None,
                ListOwnOnly,
                false,
            ),
            ListOwnOnly,
        ),
        // Creating: the consumer is the token's; a body naming one is refused.
        collection(
            row(
                Method::POST,
                "/v1/portal/endpoints",
                "/v1/portal/endpoints",
                Some(json!({ "url": GOOD_URL, "event_types": ["order.created"] })),
                Is(StatusCode::CREATED, None),
                true,
            ),
            Is(StatusCode::UNPROCESSABLE_ENTITY, Some("validation_failed")),
        ),
        row(
            Method::GET,
            "/v1/portal/endpoints/{id}",
            "/v1/portal/endpoints/{e}",
            None,
            OK,
            false,
        ),
        row(
            Method::PATCH,
            "/v1/portal/endpoints/{id}",
            "/v1/portal/endpoints/{e}",
            Some(json!({ "description": "changed in the portal" })),
            OK,
            true,
        ),
        row(
            Method::GET,
            "/v1/portal/endpoints/{id}/signing-keys",
            "/v1/portal/endpoints/{e}/signing-keys",
            None,
            OK,
            false,
        ),
        row(
            Method::POST,
            "/v1/portal/endpoints/{id}/rotate-key",
            "/v1/portal/endpoints/{e}/rotate-key",
            None,
            OK,
            true,
        ),
        row(
            Method::GET,
            "/v1/portal/endpoints/{id}/health",
            "/v1/portal/endpoints/{e}/health",
            None,
            OK,
            false,
        ),
        row(
            Method::GET,
            "/v1/portal/endpoints/{id}/messages",
            "/v1/portal/endpoints/{e}/messages",
            None,
            ListOwnOnly,
            false,
        ),
        row(
            Method::GET,
            "/v1/portal/endpoints/{id}/failed",
            "/v1/portal/endpoints/{e}/failed",
            None,
            OK,
            false,
        ),
        row(
            Method::GET,
            "/v1/portal/messages/{id}",
            "/v1/portal/messages/{m}",
            None,
            OK,
            false,
        ),
        row(
            Method::GET,
            "/v1/portal/messages/{id}/attempts",
            "/v1/portal/messages/{m}/attempts",
            None,
            OK,
            false,
        ),
        row(
            Method::POST,
            "/v1/portal/messages/{id}/resend",
            "/v1/portal/messages/{m}/resend",
            None,
            OK,
            true,
        ),
        row(
            Method::POST,
            "/v1/portal/endpoints/{id}/test",
            "/v1/portal/endpoints/{e}/test",
            None,
            OK,
            true,
        ),
        row(
            Method::POST,
            "/v1/portal/endpoints/{id}/recover",
            "/v1/portal/endpoints/{e}/recover",
            Some(since),
            OK,
            true,
        ),
        row(
            Method::POST,
            "/v1/portal/endpoints/{id}/disable",
            "/v1/portal/endpoints/{e}/disable",
            None,
            OK,
            true,
        ),
        row(
            Method::POST,
            "/v1/portal/endpoints/{id}/enable",
            "/v1/portal/endpoints/{e}/enable",
            None,
            OK,
            true,
        ),
        row(
            Method::DELETE,
            "/v1/portal/endpoints/{id}",
            "/v1/portal/endpoints/{e}",
            None,
            Is(StatusCode::NO_CONTENT, None),
            true,
        ),
    ]
}

fn fill(path: &str, endpoint: &str, message: &str) -> String {
    path.replace("{e}", endpoint).replace("{m}", message)
}

async fn call(w: &World, token: &str, method: Method, path: &str, body: Option<&Value>) -> Resp {
    w.h.send(
        method,
        path,
        Some(token),
        body.map(|b| b.to_string()).unwrap_or_default(),
    )
    .await
}

#[track_caller]
fn check(want: Want, r: &Resp, what: &str, foreign: &[&str]) {
    match want {
        Is(status, code) => {
            assert_eq!(r.status, status, "{what}: {}", r.text());
            if let Some(code) = code {
                r.problem(status, code);
            }
        }
        ListOwnOnly => {
            assert_eq!(r.status, StatusCode::OK, "{what}: {}", r.text());
            assert!(r.json()["data"].is_array(), "{what}: {}", r.text());
        }
    }
    let text = r.text();
    for id in foreign {
        assert!(!text.contains(id), "{what} revealed {id}: {text}");
    }
}

#[tokio::test]
async fn the_scope_table() {
    let w = world().await;
    let foreign = [
        w.other_consumer.as_str(),
        w.other_tenant.as_str(),
        w.other_consumer_msg.as_str(),
        w.other_tenant_msg.as_str(),
        w.consumer_a2.as_str(),
    ];
    for row in rows() {
        let body = row.body.as_ref();
        let own_path = fill(row.path, &w.own, &w.own_msg);
        let what = |col: &str| format!("{} {} [{col}]", row.method, row.template);
        // Refusals first, so the own-object call (which may change or delete
        // the object) comes last.
        let r = call(&w, &w.expired, row.method.clone(), &own_path, body).await;
        check(EXPIRED, &r, &what("expired token"), &foreign);
        let r = call(&w, &w.revoked, row.method.clone(), &own_path, body).await;
        check(REVOKED, &r, &what("revoked token"), &foreign);
        let r = call(&w, &w.read_only, row.method.clone(), &own_path, body).await;
        let want = if row.writes { READ_ONLY } else { row.own };
        check(want, &r, &what("read-only token"), &foreign);
        if row.path.contains('{') {
            let p = fill(row.path, &w.other_consumer, &w.other_consumer_msg);
            let r = call(&w, &w.full, row.method.clone(), &p, body).await;
            check(row.other_consumer, &r, &what("other consumer"), &foreign);
            let p = fill(row.path, &w.other_tenant, &w.other_tenant_msg);
            let r = call(&w, &w.full, row.method.clone(), &p, body).await;
            check(row.other_tenant, &r, &what("other tenant"), &foreign);
        } else if row.method == Method::POST {
            // A collection's create: the body cannot choose the consumer.
            let mut b = body.cloned().unwrap_or(json!({}));
            b["consumer_id"] = json!(w.consumer_a2);
            let r = call(&w, &w.full, row.method.clone(), &own_path, Some(&b)).await;
            check(row.other_consumer, &r, &what("other consumer"), &[]);
        } else {
            let r = call(&w, &w.full, row.method.clone(), &own_path, body).await;
            check(
                row.other_consumer,
                &r,
                &what("other consumer / tenant"),
                &foreign,
            );
        }
        let r = call(&w, &w.full, row.method.clone(), &own_path, body).await;
        check(row.own, &r, &what("own"), &foreign);
    }
    // The other consumer's and tenant's objects are all still there, unchanged.
    for e in [&w.other_consumer] {
        let r =
            w.h.get(&format!("/v1/endpoints/{e}"), &w.key_a)
                .await
                .expect(StatusCode::OK);
        assert_eq!(r["state"], "active", "{r}");
        assert_eq!(r["description"], "test endpoint", "{r}");
    }
}

#[test]
fn the_table_covers_every_portal_operation() {
    let doc = relay_api::openapi::document();
    let table = rows();
    let mut missing = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let portal = op["security"]
                .as_array()
                .is_some_and(|s| s.iter().any(|r| r.get("portal_token").is_some()));
            if !portal {
                continue;
            }
            assert!(path.starts_with("/v1/portal/"), "{path}");
            if !table
                .iter()
                .any(|r| r.template == path && r.method.as_str().eq_ignore_ascii_case(method))
            {
                missing.push(format!("{} {path}", method.to_uppercase()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "portal operations missing from the scope table: {missing:?}"
    );
}

#[tokio::test]
async fn resends_and_test_sends_are_audited_with_the_consumer_and_token_as_actor() {
    let w = world().await;
    let resent = call(
        &w,
        &w.full,
        Method::POST,
        &format!("/v1/portal/messages/{}/resend", w.own_msg),
        None,
    )
    .await
    .expect(StatusCode::OK);
    let tested = call(
        &w,
        &w.full,
        Method::POST,
        &format!("/v1/portal/endpoints/{}/test", w.own),
        None,
    )
    .await
    .expect(StatusCode::OK);
    let log =
        w.h.get("/v1/audit-log?limit=250", &w.key_a)
            .await
            .expect(StatusCode::OK);
    let actor = format!("portal:{}:{}", w.consumer_a1, w.full_id);
    let mine: Vec<&Value> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["actor"] == actor.as_str())
        .collect();
    assert_eq!(mine.len(), 2, "{log}");
    assert_eq!(mine[0]["action"], "message.resent");
    assert_eq!(mine[0]["target"], w.own_msg.as_str());
    assert_eq!(mine[0]["parameters"]["endpoint_id"], w.own.as_str());
    assert_eq!(
        mine[0]["parameters"]["outcome"],
        resent["attempt"]["outcome"]
    );
    assert_eq!(mine[1]["action"], "endpoint.test_sent");
    assert_eq!(mine[1]["target"], w.own.as_str());
    assert_eq!(mine[1]["parameters"]["message_id"], tested["message"]["id"]);
    assert!(
        !log.to_string().contains(w.full.as_str()),
        "no token in the log"
    );
}

#[tokio::test]
async fn changes_are_audited_with_the_consumer_and_token_as_actor() {
    let w = world().await;
    let created = call(
        &w,
        &w.full,
        Method::POST,
        "/v1/portal/endpoints",
        Some(&json!({ "url": GOOD_URL, "event_types": ["order.created"], "auto_disable": false })),
    )
    .await
    .expect(StatusCode::CREATED);
    let id = id_of(&created);
    assert_eq!(created["consumer_id"], w.consumer_a1);
    call(
        &w,
        &w.full,
        Method::POST,
        &format!("/v1/portal/endpoints/{id}/rotate-key"),
        None,
    )
    .await
    .expect(StatusCode::OK);
    call(
        &w,
        &w.full,
        Method::PATCH,
        &format!("/v1/portal/endpoints/{id}"),
        Some(&json!({ "auto_disable": true })),
    )
    .await
    .expect(StatusCode::OK);
    call(
        &w,
        &w.full,
        Method::DELETE,
        &format!("/v1/portal/endpoints/{id}"),
        None,
    )
    .await
    .expect(StatusCode::NO_CONTENT);
    let log =
        w.h.get("/v1/audit-log?limit=250", &w.key_a)
            .await
            .expect(StatusCode::OK);
    let actor = format!("portal:{}:{}", w.consumer_a1, w.full_id);
    let mine: Vec<&str> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["actor"] == actor.as_str())
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        mine,
        [
            "endpoint.created",
            "endpoint.key_rotated",
            "endpoint.auto_disable_changed",
            "endpoint.deleted"
        ],
        "{log}"
    );
    // Minting and revoking are audited with the tenant's key as actor, and
    // no token appears in the log.
    let text = log.to_string();
    for t in [&w.full, &w.read_only, &w.expired, &w.revoked] {
        assert!(
            !text.contains(t.as_str()),
            "a portal token in the audit log"
        );
    }
    assert!(text.contains("portal_token.created"));
    assert!(text.contains("portal_token.revoked"));
}

#[tokio::test]
async fn tokens_and_keys_stay_on_their_own_routes() {
    let w = world().await;
    // A portal token is no API key, and an API key opens no portal.
    w.h.get("/v1/endpoints", &w.full)
        .await
        .problem(StatusCode::UNAUTHORIZED, "unauthorized");
    w.h.get("/v1/portal/session", &w.key_a)
        .await
        .problem(StatusCode::UNAUTHORIZED, "unauthorized");
    w.h.get("/v1/portal/session", "rpt_unknown")
        .await
        .problem(StatusCode::UNAUTHORIZED, "unauthorized");
    let s =
        w.h.get("/v1/portal/session", &w.full)
            .await
            .expect(StatusCode::OK);
    assert_eq!(s["consumer_id"], w.consumer_a1);
    assert_eq!(s["capabilities"], json!(ALL));
}

async fn with_origin(w: &World, token: &str, origin: &str) -> Resp {
    let req = Request::builder()
        .method(Method::GET)
        .uri("/v1/portal/session")
        .header(header::HOST, "relay.example:8080")
        .header(header::ORIGIN, origin)
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .body(Body::empty())
        .unwrap();
    w.h.request(req).await
}

#[tokio::test]
async fn a_token_is_used_only_from_its_origins_or_relays_own_page() {
    let w = world().await;
    let scoped = mint(
        &w.h,
        &w.key_a,
        json!({ "consumer_id": w.consumer_a1, "allowed_origins": ["https://app.example.com"] }),
    )
    .await;
    let scoped = scoped["token"].as_str().unwrap().to_string();
    with_origin(&w, &scoped, "https://app.example.com")
        .await
        .expect(StatusCode::OK);
    // Relay's hosted page: same origin as the API.
    with_origin(&w, &scoped, "http://relay.example:8080")
        .await
        .expect(StatusCode::OK);
    with_origin(&w, &scoped, "https://evil.example")
        .await
        .problem(StatusCode::FORBIDDEN, "origin_not_allowed");
    // A token without origins: only Relay's own page.
    with_origin(&w, &w.full, "https://app.example.com")
        .await
        .problem(StatusCode::FORBIDDEN, "origin_not_allowed");
    // Preflight: answered without a token, no credentials.
    let req = Request::builder()
        .method(Method::OPTIONS)
        .uri("/v1/portal/endpoints")
        .header(header::ORIGIN, "https://app.example.com")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type",
        )
        .body(Body::empty())
        .unwrap();
    let r = w.h.request(req).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    assert_eq!(r.headers["access-control-allow-origin"], "*");
    assert!(r.headers.get("access-control-allow-credentials").is_none());
}
