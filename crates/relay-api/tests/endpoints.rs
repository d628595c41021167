//! Endpoints (issue 2, item 5): the outbound guard refuses unsafe URLs at
//! registration with its own code; subscriptions must name catalog types;
//! operator limits per tenant and per consumer answer `limit_reached`; the
//! environment, consumer and signature scheme are fixed at creation; retry
//! schedules must fit the operator's bounds; several endpoints may share a URL.

mod common;

use axum::http::StatusCode;
use common::*;
use relay_api::ApiSettings;
use relay_store::EndpointLimits;
use serde_json::{Value, json};

fn with_url(consumer: &str, url: &str) -> Value {
    json!({
        "consumer_id": consumer,
        "destination": { "kind": "https", "url": url },
        "event_types": [],
    })
}

#[tokio::test]
async fn unsafe_urls_are_refused_with_the_guards_code() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let c = h.consumer(&key, "acme").await;
    let cases = [
        ("http://receiver.test:8443/hook", "scheme_not_allowed"),
        ("ftp://receiver.test/hook", "scheme_not_allowed"),
        ("https://10.0.0.1/", "blocked_address"),
        (
            "https://169.254.169.254/latest/meta-data",
            "blocked_address",
        ),
        ("https://[::1]:8443/", "blocked_address"),
        ("https://192.168.1.1/", "blocked_address"),
        ("https://private.test/", "blocked_address"),
        (
            "https://user:pass@receiver.test:8443/hook",
            "credentials_in_url",
        ),
        ("https://user@receiver.test:8443/hook", "credentials_in_url"),
        ("https://receiver.test:8080/hook", "port_not_allowed"),
        ("https://127.0.0.1:22/", "port_not_allowed"),
        ("not a url", "invalid_url"),
        ("", "invalid_url"),
        ("https://unknown.test/hook", "dns"),
    ];
    for (url, code) in cases {
        let r = h.post("/v1/endpoints", &key, with_url(&c, url)).await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(
            r.error_fields(),
            vec!["/destination/url"],
            "{url}: {}",
            r.text()
        );
    }
    // The same rules on PATCH.
    let ep = id_of(&h.endpoint(&key, &c, &[]).await);
    for (url, code) in cases {
        h.patch(
            &format!("/v1/endpoints/{ep}"),
            &key,
            json!({ "destination": { "kind": "https", "url": url } }),
        )
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, code);
    }
    let after = h
        .get(&format!("/v1/endpoints/{ep}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(after["destination"]["url"], GOOD_URL);
    // Allowed targets: a name resolving into the allowed range, an allowed IP literal.
    for url in [GOOD_URL, "https://127.0.0.1:8443/hook"] {
        h.post("/v1/endpoints", &key, with_url(&c, url))
            .await
            .expect(StatusCode::CREATED);
    }
    // `auth` is a closed object: an unknown member is a shape error; `{}`
    // is no client authentication, as `null` is.
    let mut body = with_url(&c, GOOD_URL);
    body["destination"]["auth"] = json!({ "kind": "mtls" });
    h.post("/v1/endpoints", &key, body)
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    let mut body = with_url(&c, GOOD_URL);
    body["destination"]["auth"] = json!({});
    h.post("/v1/endpoints", &key, body)
        .await
        .expect(StatusCode::CREATED);
    let mut body = with_url(&c, GOOD_URL);
    body["destination"]["auth"] = Value::Null;
    h.post("/v1/endpoints", &key, body)
        .await
        .expect(StatusCode::CREATED);
    // An unknown destination kind is a shape error.
    h.post(
        "/v1/endpoints",
        &key,
        json!({ "consumer_id": c, "event_types": [],
                "destination": { "kind": "carrier_pigeon", "url": GOOD_URL } }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
}

#[tokio::test]
async fn subscriptions_must_name_catalog_types() {
    let h = Harness::new().await;
    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let c = h.consumer(&key, "acme").await;
    let r = h
        .post(
            "/v1/endpoints",
            &key,
            endpoint_body(&c, &["order.created", "order.deleted"]),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "unknown_event_type");
    assert_eq!(r.error_fields(), vec!["/event_types/1"]);
    for bad in ["order.*", "Order.created", "order", "**"] {
        let r = h
            .post("/v1/endpoints", &key, endpoint_body(&c, &[bad]))
            .await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert_eq!(r.error_fields(), vec!["/event_types/0"], "{bad}");
    }
    let ep = id_of(&h.endpoint(&key, &c, &["order.created"]).await);
    h.patch(
        &format!("/v1/endpoints/{ep}"),
        &key,
        json!({ "event_types": ["order.shipped"] }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "unknown_event_type");
    // A type of the other environment does not count.
    let tenant_test_key = h.api_key(&tenant, "test").await;
    let tc = h.consumer(&tenant_test_key, "acme").await;
    h.post(
        "/v1/endpoints",
        &tenant_test_key,
        endpoint_body(&tc, &["order.created"]),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "unknown_event_type");
    // An unknown consumer.
    h.post("/v1/endpoints", &key, endpoint_body("con_nope", &[]))
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "unknown_reference");
}

#[tokio::test]
async fn endpoint_limits_per_tenant_and_per_consumer() {
    let h = Harness::with_settings(ApiSettings {
        endpoint_limits: EndpointLimits {
            per_tenant: 3,
            per_consumer: 2,
        },
        ..ApiSettings::default()
    })
    .await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let c1 = h.consumer(&key, "one").await;
    let c2 = h.consumer(&key, "two").await;
    let c3 = h.consumer(&key, "three").await;
    let a = id_of(&h.endpoint(&key, &c1, &[]).await);
    h.endpoint(&key, &c1, &[]).await;
    h.post("/v1/endpoints", &key, endpoint_body(&c1, &[]))
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "limit_reached");
    h.endpoint(&key, &c2, &[]).await;
    // The tenant's three are used up, whatever the consumer.
    h.post("/v1/endpoints", &key, endpoint_body(&c3, &[]))
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "limit_reached");
    // Deleting one frees a place.
    h.delete(&format!("/v1/endpoints/{a}"), &key)
        .await
        .expect(StatusCode::NO_CONTENT);
    h.endpoint(&key, &c3, &[]).await;
    h.post("/v1/endpoints", &key, endpoint_body(&c3, &[]))
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "limit_reached");
    let list = h.get("/v1/endpoints", &key).await.expect(StatusCode::OK);
    assert_eq!(ids_in(&list).len(), 3);
    // Another tenant has its own allowance.
    let (_, other) = h.tenant_with_key("other", "live").await;
    let oc = h.consumer(&other, "one").await;
    h.endpoint(&other, &oc, &[]).await;
}

#[tokio::test]
async fn immutable_fields_cannot_be_patched() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let c = h.consumer(&key, "acme").await;
    let c2 = h.consumer(&key, "other").await;
    let ep = h.endpoint(&key, &c, &[]).await;
    let id = id_of(&ep);
    for (field, value) in [
        ("environment", json!("test")),
        ("consumer_id", json!(c2)),
        ("signature_scheme", json!("v1")),
        ("id", json!("ep_other")),
        ("environment", json!(null)),
        ("signature_scheme", json!(null)),
    ] {
        let mut body = json!({ "description": "changed" });
        body[field] = value;
        let r = h.patch(&format!("/v1/endpoints/{id}"), &key, body).await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "immutable_field");
        assert_eq!(r.error_fields(), vec![format!("/{field}")]);
    }
    let after = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    // The create response adds the key shown at creation; the endpoint is the rest.
    let mut created = ep.clone();
    if let Some(o) = created.as_object_mut() {
        o.remove("public_key");
        o.remove("secret");
    }
    assert_eq!(after, created, "a refused PATCH changed the endpoint");
    // Allowed changes apply, and absent fields stay.
    let changed = h
        .patch(
            &format!("/v1/endpoints/{id}"),
            &key,
            json!({ "description": null, "max_concurrency": 3, "auto_disable": false }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(changed["description"], Value::Null);
    assert_eq!(changed["max_concurrency"], 3);
    assert_eq!(changed["auto_disable"], false);
    assert_eq!(changed["consumer_id"], c.as_str());
    assert_eq!(changed["environment"], "live");
    assert_eq!(changed["signature_scheme"], ep["signature_scheme"]);
    assert_eq!(changed["destination"], ep["destination"]);
}

#[tokio::test]
async fn retry_schedules_and_other_settings_must_fit_the_bounds() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let c = h.consumer(&key, "acme").await;
    let with = |extra: Value| {
        let mut b = endpoint_body(&c, &[]);
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    // A schedule alone at fault answers the broken bound's own code.
    let schedules: Vec<(Value, &str)> = vec![
        (json!([4]), "retry_schedule_wait_below_minimum"),
        (json!([60, 0]), "retry_schedule_wait_below_minimum"),
        (json!([86_401]), "retry_schedule_wait_above_maximum"),
        (json!(vec![60; 15]), "retry_schedule_too_many_attempts"),
        (json!(vec![86_400; 5]), "retry_schedule_window_too_long"),
    ];
    for (waits, code) in &schedules {
        let r = h
            .post(
                "/v1/endpoints",
                &key,
                with(json!({ "retry_schedule_seconds": waits })),
            )
            .await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(r.error_fields(), vec!["/retry_schedule_seconds"], "{waits}");
    }
    let bad: Vec<(Value, &str)> = vec![
        (json!({ "max_concurrency": 0 }), "/max_concurrency"),
        (json!({ "max_concurrency": 101 }), "/max_concurrency"),
        (
            json!({ "rate_limit_per_second": 0 }),
            "/rate_limit_per_second",
        ),
        (
            json!({ "rate_limit_per_second": 100_001 }),
            "/rate_limit_per_second",
        ),
        (json!({ "snapshot_fields": ["a"] }), "/snapshot_fields/0"),
        (
            json!({ "snapshot_fields": ["/a", "*"] }),
            "/snapshot_fields/1",
        ),
        (json!({ "description": "d".repeat(501) }), "/description"),
    ];
    for (extra, field) in &bad {
        let r = h.post("/v1/endpoints", &key, with(extra.clone())).await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert_eq!(
            r.error_fields(),
            vec![field.to_string()],
            "{extra}: {}",
            r.text()
        );
    }
    // Several faults are listed together.
    let r = h
        .post(
            "/v1/endpoints",
            &key,
            with(json!({ "retry_schedule_seconds": [1], "max_concurrency": 0 })),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    assert_eq!(
        r.error_fields(),
        vec!["/retry_schedule_seconds", "/max_concurrency"]
    );
    // Within bounds: accepted, and kept.
    let ep = h
        .post(
            "/v1/endpoints",
            &key,
            with(
                json!({ "retry_schedule_seconds": [5, 60, 86_400], "max_concurrency": 100,
                         "rate_limit_per_second": 50, "signature_scheme": "v1" }),
            ),
        )
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(ep["retry_schedule_seconds"], json!([5, 60, 86_400]));
    assert_eq!(ep["signature_scheme"], "v1");
    let id = id_of(&ep);
    h.patch(
        &format!("/v1/endpoints/{id}"),
        &key,
        json!({ "retry_schedule_seconds": [3] }),
    )
    .await
    .problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "retry_schedule_wait_below_minimum",
    );
    let reset = h
        .patch(
            &format!("/v1/endpoints/{id}"),
            &key,
            json!({ "retry_schedule_seconds": null }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(reset["retry_schedule_seconds"], Value::Null);
    // Defaults.
    let d = h.endpoint(&key, &c, &[]).await;
    assert_eq!(d["signature_scheme"], "v1a");
    assert_eq!(d["max_concurrency"], 10);
    assert_eq!(d["auto_disable"], true);
    assert_eq!(d["state"], "active");
    assert_eq!(d["version"], 1);
    assert_eq!(d["environment"], "live");
    assert_eq!(d["destination"]["kind"], "https");
}

#[tokio::test]
async fn several_endpoints_may_share_a_url() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let c1 = h.consumer(&key, "one").await;
    let c2 = h.consumer(&key, "two").await;
    let a = id_of(&h.endpoint(&key, &c1, &["order.created"]).await);
    let b = id_of(&h.endpoint(&key, &c1, &["order.created"]).await);
    let c = id_of(&h.endpoint(&key, &c2, &["order.created"]).await);
    assert!(a != b && b != c && a != c);
    let p = h
        .publish(&key, json!({ "type": "order.created", "data": {} }))
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(p["messages_created"], 3);
    // Listing by consumer.
    let l = h
        .get(&format!("/v1/endpoints?consumer_id={c1}"), &key)
        .await
        .expect(StatusCode::OK);
    let mut ids = ids_in(&l);
    ids.sort();
    let mut expected = vec![a.clone(), b.clone()];
    expected.sort();
    assert_eq!(ids, expected);
    // Keyset pagination over endpoints.
    let p1 = h
        .get("/v1/endpoints?limit=2", &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(ids_in(&p1).len(), 2);
    let after = p1["next_after"].as_str().expect("a next page").to_string();
    let p2 = h
        .get(&format!("/v1/endpoints?limit=2&after={after}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(ids_in(&p2).len(), 1);
    assert!(p2["next_after"].is_null());
}

#[tokio::test]
async fn signing_keys_hmac_secret_is_shown_once_and_public_keys_stay_readable() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let c = h.consumer(&key, "acme").await;

    // v1a (default): the public key is in the create response and readable later.
    let ed = h.endpoint(&key, &c, &[]).await;
    let whpk = ed["public_key"].as_str().expect("public key").to_string();
    assert!(whpk.starts_with("whpk_"));
    assert!(ed.get("secret").is_none());
    let keys = h
        .get(&format!("/v1/endpoints/{}/signing-keys", id_of(&ed)), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(keys["data"][0]["public_key"], whpk);
    assert_eq!(keys["data"][0]["scheme"], "v1a");
    assert!(keys["data"][0]["retires_at"].is_null());

    // v1: the HMAC secret appears in the create response only.
    let mut body = endpoint_body(&c, &[]);
    body["signature_scheme"] = json!("v1");
    let created = h
        .post("/v1/endpoints", &key, body)
        .await
        .expect(StatusCode::CREATED);
    let secret = created["secret"]
        .as_str()
        .expect("secret shown once")
        .to_string();
    assert!(secret.starts_with("whsec_"));
    let id = id_of(&created);
    let secret_b64 = secret.trim_start_matches("whsec_").to_string();
    for path in [
        format!("/v1/endpoints/{id}"),
        format!("/v1/endpoints/{id}/signing-keys"),
        "/v1/endpoints".to_string(),
        "/v1/endpoints?limit=1".to_string(),
    ] {
        let text = h.get(&path, &key).await.text();
        assert!(
            !text.contains(&secret_b64),
            "{path} leaked the HMAC secret: {text}"
        );
    }
    let patched = h
        .patch(
            &format!("/v1/endpoints/{id}"),
            &key,
            json!({"description": "x"}),
        )
        .await
        .text();
    assert!(!patched.contains(&secret_b64));
    let refused = h
        .patch(
            &format!("/v1/endpoints/{id}"),
            &key,
            json!({"signature_scheme": "v1a"}),
        )
        .await
        .text();
    assert!(!refused.contains(&secret_b64));
    let keys = h
        .get(&format!("/v1/endpoints/{id}/signing-keys"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(keys["data"][0]["scheme"], "v1");
    assert!(keys["data"][0]["public_key"].is_null());
}

#[tokio::test]
async fn key_rotation_overlaps_then_retires_and_is_audited() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let c = h.consumer(&key, "acme").await;
    let ep = h.endpoint(&key, &c, &[]).await;
    let id = id_of(&ep);
    let old_pk = ep["public_key"].as_str().unwrap().to_string();

    let r = h
        .post(&format!("/v1/endpoints/{id}/rotate-key"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    assert!(
        r.get("secret").is_none(),
        "an Ed25519 rotation has no secret"
    );
    let keys = r["keys"].as_array().unwrap();
    assert_eq!(keys.len(), 2);
    assert!(
        keys[0]["retires_at"].is_null(),
        "the new key is first and current"
    );
    assert_ne!(keys[0]["public_key"], old_pk);
    assert_eq!(keys[1]["public_key"], old_pk);
    let retires =
        relay_core::time::Timestamp::parse_rfc3339(keys[1]["retires_at"].as_str().unwrap())
            .unwrap();
    let created =
        relay_core::time::Timestamp::parse_rfc3339(keys[0]["created_at"].as_str().unwrap())
            .unwrap();
    assert_eq!(
        retires.millis() - created.millis(),
        24 * 3600 * 1000,
        "24 h overlap by default"
    );

    // Switching to v1 goes through rotation; the secret is shown once, here.
    let r = h
        .post(
            &format!("/v1/endpoints/{id}/rotate-key"),
            &key,
            json!({"overlap_hours": 0, "signature_scheme": "v1"}),
        )
        .await
        .expect(StatusCode::OK);
    let secret = r["secret"]
        .as_str()
        .expect("v1 secret shown once")
        .to_string();
    assert!(secret.starts_with("whsec_"));
    assert_eq!(r["keys"][0]["scheme"], "v1");
    let now_keys = h
        .get(&format!("/v1/endpoints/{id}/signing-keys"), &key)
        .await;
    let text = now_keys.text();
    assert!(
        !text.contains(secret.trim_start_matches("whsec_")),
        "never readable again"
    );
    let endpoint = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(endpoint["signature_scheme"], "v1");
    // With no overlap, every older key retires at once.
    let listed = now_keys.expect(StatusCode::OK);
    let all = listed["data"].as_array().unwrap();
    assert_eq!(all.len(), 3);
    assert!(all[1]["retires_at"].is_string() && all[2]["retires_at"].is_string());

    for bad in [
        json!({"overlap_hours": 169}),
        json!({"overlap_hours": -1}),
        json!({"scheme": "v1"}),
    ] {
        let r = h
            .post(&format!("/v1/endpoints/{id}/rotate-key"), &key, bad)
            .await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.text());
    }
    let log = h.get("/v1/audit-log", &key).await.expect(StatusCode::OK);
    let actions: Vec<&str> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        vec![
            "endpoint.created",
            "endpoint.key_rotated",
            "endpoint.key_rotated"
        ]
    );
    assert_eq!(log["data"][2]["parameters"]["signature_scheme"], "v1");
    assert!(
        log["data"][0]["actor"]
            .as_str()
            .unwrap()
            .starts_with("key_")
    );
    assert!(
        !log.to_string()
            .contains(secret.trim_start_matches("whsec_"))
    );
}

#[tokio::test]
async fn turning_automatic_disabling_off_is_audited_with_the_change() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let c = h.consumer(&key, "acme").await;
    let ep = id_of(&h.endpoint(&key, &c, &["order.shipped"]).await);
    let actions = |log: Value| -> Vec<(String, Value)> {
        log["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["action"].as_str().unwrap().to_string(),
                    a["parameters"].clone(),
                )
            })
            .collect()
    };
    let before = actions(h.get("/v1/audit-log", &key).await.expect(StatusCode::OK));
    assert_eq!(before.last().unwrap().0, "endpoint.created");
    let off = h
        .patch(
            &format!("/v1/endpoints/{ep}"),
            &key,
            json!({"auto_disable": false}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(off["auto_disable"], false);
    // The same value again, or another field: not an opt-out change.
    for body in [json!({"auto_disable": false}), json!({"description": "x"})] {
        h.patch(&format!("/v1/endpoints/{ep}"), &key, body)
            .await
            .expect(StatusCode::OK);
    }
    let after = actions(h.get("/v1/audit-log", &key).await.expect(StatusCode::OK));
    assert_eq!(after.len(), before.len() + 1, "{after:?}");
    let (action, parameters) = after.last().unwrap();
    assert_eq!(action, "endpoint.auto_disable_changed");
    assert_eq!(parameters, &json!({"from": true, "to": false}));
}

/// OAuth 2.0 client credentials at registration: the token URL is checked
/// by the guard like the endpoint's, the client id, scopes and audience by
/// RFC 6749's rules, the client secret must resolve, and a custom
/// `Authorization` header cannot be combined with it; the answer shows the
/// secret's reference, never a value.
#[tokio::test]
async fn oauth2_credentials_are_checked_at_registration() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let c = h.consumer(&key, "acme").await;
    h.put(
        "/v1/secrets/oauth-client",
        &key,
        json!({ "value": "the-client-secret-value" }),
    )
    .await
    .expect(StatusCode::CREATED);
    let with_oauth = |oauth2: Value, headers: Value| {
        let mut body = with_url(&c, GOOD_URL);
        body["destination"]["auth"] = json!({ "oauth2": oauth2 });
        body["destination"]["headers"] = headers;
        body
    };
    let good = json!({
        "token_url": "https://receiver.test:8443/oauth/token",
        "client_id": "relay",
        "client_secret": "secret:oauth-client",
        "scopes": ["hooks:write"],
        "audience": "https://api.example",
        "method": "client_secret_post",
    });
    let created = h
        .post("/v1/endpoints", &key, with_oauth(good.clone(), json!([])))
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(created["destination"]["auth"]["oauth2"], good);
    assert!(!created.to_string().contains("the-client-secret-value"));
    let with = |field: &str, value: Value| {
        let mut o = good.clone();
        o[field] = value;
        o
    };
    let cases = [
        (
            with("token_url", json!("http://receiver.test:8443/t")),
            json!([]),
            "scheme_not_allowed",
            "/destination/auth/oauth2/token_url",
        ),
        (
            with("token_url", json!("https://receiver.test:9999/t")),
            json!([]),
            "port_not_allowed",
            "/destination/auth/oauth2/token_url",
        ),
        (
            with("token_url", json!("https://private.test/t")),
            json!([]),
            "blocked_address",
            "/destination/auth/oauth2/token_url",
        ),
        (
            with("token_url", json!("https://u:p@receiver.test:8443/t")),
            json!([]),
            "credentials_in_url",
            "/destination/auth/oauth2/token_url",
        ),
        (
            with("client_id", json!("")),
            json!([]),
            "invalid_client_id",
            "/destination/auth/oauth2/client_id",
        ),
        (
            with("scopes", json!(["a b"])),
            json!([]),
            "invalid_scope",
            "/destination/auth/oauth2/scopes",
        ),
        (
            with("audience", json!("")),
            json!([]),
            "invalid_audience",
            "/destination/auth/oauth2/audience",
        ),
        (
            good.clone(),
            json!([{ "name": "Authorization", "secret": "secret:bearer" }]),
            "authorization_header_conflict",
            "/destination/headers",
        ),
        (
            with("client_secret", json!("secret:missing")),
            json!([]),
            "secret_not_found",
            "/destination/auth/oauth2/client_secret",
        ),
    ];
    for (oauth2, headers, code, pointer) in cases {
        let p = h
            .post("/v1/endpoints", &key, with_oauth(oauth2, headers))
            .await
            .problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(p["errors"][0]["field"], pointer, "{p}");
    }
    // A secret value where a reference belongs, an unknown member or method:
    // shape errors.
    for oauth2 in [
        with("client_secret", json!("the-client-secret-value")),
        with("method", json!("private_key_jwt")),
        with("grant", json!("password")),
    ] {
        let r = h
            .post("/v1/endpoints", &key, with_oauth(oauth2, json!([])))
            .await;
        let p = r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert!(!p.to_string().contains("the-client-secret-value"), "{p}");
    }
}
