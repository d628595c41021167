//! Inbound provider webhooks through the API: sources (create, list,
//! update, rotate with an overlap, delete), the unauthenticated receiving
//! route (verify at receipt, `401` kept as a rejected receipt, `413`,
//! `429`, a repeat counted), the ledger writer's processing, receipts and
//! the ledger, tenant isolation, and that a source's secret is in no answer
//! and no `Debug` (the logs: `inbound_logs.rs`).

mod common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use common::{Harness, Resp, id_of, ids_in};
use relay_api::ApiSettings;
use relay_core::signature::{HmacSecret, SignedContent};
use relay_store::ExecutorExt as _;
use serde_json::{Value, json};

const WHSEC: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const WHSEC_2: &str = "whsec_dGhlIHNlY29uZCBzZWNyZXQgb2YgdGhlIHNvdXJjZQ==";

/// A Standard Webhooks request signed with `secret` at `ts` (unix seconds).
fn standard(secret: &str, id: &str, ts: i64, body: &str) -> Vec<(String, String)> {
    let key = HmacSecret::parse(secret).expect("whsec");
    let ts = ts.to_string();
    let sig = key.sign(&SignedContent {
        webhook_id: id,
        webhook_timestamp: &ts,
        body: body.as_bytes(),
    });
    vec![
        ("webhook-id".into(), id.into()),
        ("webhook-timestamp".into(), ts),
        ("webhook-signature".into(), format!("v1,{sig}")),
        ("content-type".into(), "application/json".into()),
    ]
}

async fn receive(h: &Harness, path: &str, headers: &[(String, String)], body: &[u8]) -> Resp {
    let mut req = Request::builder().method(Method::POST).uri(path);
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    h.request(req.body(Body::from(body.to_vec())).expect("request"))
        .await
}

fn event_body(kind: &str) -> String {
    json!({"type": kind, "timestamp": "2027-01-15T07:59:00Z", "data": {"id": 1}}).to_string()
}

async fn source(h: &Harness, key: &str, extra: Value) -> Value {
    let mut body = json!({"name": "our provider", "preset": "standard_webhooks", "secret": WHSEC});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            b.insert(k.clone(), v.clone());
        }
    }
    h.post("/v1/inbound-sources", key, body)
        .await
        .expect(StatusCode::CREATED)
}

fn path_of(s: &Value) -> String {
    s["path"].as_str().expect("path").to_string()
}

fn now_s(h: &Harness) -> i64 {
    use relay_core::time::Clock;
    h.clock.now().unix_seconds()
}

#[tokio::test]
async fn sources_are_managed_and_never_show_their_secret() {
    let h = Harness::with_settings(ApiSettings {
        public_url: Some("https://relay.example.com/".into()),
        ..ApiSettings::default()
    })
    .await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let mut answers: Vec<String> = Vec::new();

    let created = source(&h, &key, json!({"rate_limit_per_second": 50})).await;
    answers.push(created.to_string());
    let id = id_of(&created);
    let path = path_of(&created);
    assert!(path.starts_with("/inbound/") && path.len() == "/inbound/".len() + 32);
    assert_eq!(
        created["url"],
        format!("https://relay.example.com{path}").as_str()
    );
    assert_eq!(created["preset"], "standard_webhooks");
    assert_eq!(created["provider"], "standard_webhooks");
    assert_eq!(created["secret"], json!({"kind": "value"}));
    assert_eq!(created["rate_limit_per_second"], 50);
    assert_eq!(created["max_body_bytes"], 262_144);

    let got = h.get(&format!("/v1/inbound-sources/{id}"), &key).await;
    answers.push(got.text());
    assert_eq!(got.expect(StatusCode::OK), created);
    let listed = h.get("/v1/inbound-sources", &key).await;
    answers.push(listed.text());
    assert_eq!(ids_in(&listed.expect(StatusCode::OK)), vec![id.clone()]);

    // Validation: every field at fault, the secret by its preset's shape.
    let bad = h
        .post(
            "/v1/inbound-sources",
            &key,
            json!({"name": "", "preset": "github", "secret": "s", "provider": "Not Valid",
                   "rate_limit_per_second": 0, "options": {"tolerance_seconds": 60}}),
        )
        .await;
    bad.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    let mut fields = bad.error_fields();
    fields.sort();
    assert_eq!(
        fields,
        [
            "/name",
            "/options/tolerance_seconds",
            "/provider",
            "/rate_limit_per_second"
        ]
    );
    let secret_text = "not-a-whsec-secret-value";
    let bad = h
        .post(
            "/v1/inbound-sources",
            &key,
            json!({"name": "x", "preset": "standard_webhooks", "secret": secret_text}),
        )
        .await;
    bad.problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_secret");
    assert!(!bad.text().contains(secret_text));
    h.post(
        "/v1/inbound-sources",
        &key,
        json!({"name": "x", "preset": "generic_hmac", "secret": "k"}),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");

    // Update.
    let updated = h
        .patch(
            &format!("/v1/inbound-sources/{id}"),
            &key,
            json!({"name": "renamed", "options": {"tolerance_seconds": 60}, "max_body_bytes": 1024}),
        )
        .await;
    answers.push(updated.text());
    let updated = updated.expect(StatusCode::OK);
    assert_eq!(updated["name"], "renamed");
    assert_eq!(updated["options"], json!({"tolerance_seconds": 60}));
    assert_eq!(updated["path"], path.as_str());
    h.patch(
        &format!("/v1/inbound-sources/{id}"),
        &key,
        json!({"options": {"signed_url": "https://x.example.com"}}),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");

    // Rotate with an overlap.
    let rotated = h
        .post(
            &format!("/v1/inbound-sources/{id}/rotate-secret"),
            &key,
            json!({"secret": WHSEC_2, "overlap_hours": 2}),
        )
        .await;
    answers.push(rotated.text());
    let rotated = rotated.expect(StatusCode::OK);
    assert_eq!(
        rotated["previous_secret_expires_at"],
        "2027-01-15T10:00:00Z"
    );
    h.post(
        &format!("/v1/inbound-sources/{id}/rotate-secret"),
        &key,
        json!({"secret": WHSEC_2, "overlap_hours": 500}),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");

    for text in &answers {
        for secret in [WHSEC, WHSEC_2, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"] {
            assert!(!text.contains(secret), "an answer shows the secret: {text}");
        }
    }
    // Nor does the stored record's Debug.
    let token = path.trim_start_matches("/inbound/");
    let token = token.to_string();
    let record = h
        .state
        .store
        .read(move |mut x| {
            Box::pin(async move { relay_store::inbound::source_by_token(&mut x, &token).await })
        })
        .await
        .unwrap()
        .unwrap();
    let debug = format!("{record:?}");
    for secret in [WHSEC, WHSEC_2, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"] {
        assert!(!debug.contains(secret), "Debug shows the secret: {debug}");
    }

    // Delete: the path answers no more.
    h.delete(&format!("/v1/inbound-sources/{id}"), &key)
        .await
        .expect(StatusCode::NO_CONTENT);
    h.get(&format!("/v1/inbound-sources/{id}"), &key)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    let body = event_body("x");
    receive(
        &h,
        &path,
        &standard(WHSEC_2, "msg_1", now_s(&h), &body),
        body.as_bytes(),
    )
    .await
    .problem(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn receipts_are_verified_written_counted_and_processed_once() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let s = source(&h, &key, json!({"max_body_bytes": 2048})).await;
    let path = path_of(&s);
    let body = event_body("email.delivered");
    let headers = standard(WHSEC, "msg_1", now_s(&h), &body);

    let first = receive(&h, &path, &headers, body.as_bytes()).await;
    let first = first.expect(StatusCode::OK);
    assert_eq!(first["duplicate"], false);
    let receipt_id = first["receipt_id"].as_str().unwrap().to_string();
    let again = receive(&h, &path, &headers, body.as_bytes())
        .await
        .expect(StatusCode::OK);
    assert_eq!(again, json!({"receipt_id": receipt_id, "duplicate": true}));

    let r = h
        .get(&format!("/v1/inbound-receipts/{receipt_id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(r["verdict"], "verified");
    assert_eq!(r["state"], "pending");
    assert_eq!(r["received_count"], 2);
    assert_eq!(r["provider_event_id"], "msg_1");
    assert_eq!(r["headers"]["webhook-id"], "msg_1");
    assert!(r["headers"].get("webhook-signature").is_none());

    // The ledger writer processes it once.
    assert_eq!(h.dispatcher.process_receipts_once().await.unwrap(), 1);
    assert_eq!(h.dispatcher.process_receipts_once().await.unwrap(), 0);
    let ledger = h.get("/v1/ledger", &key).await.expect(StatusCode::OK);
    let entries = ledger["data"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["event_type"], "email.delivered");
    assert_eq!(entries[0]["provider_event_id"], "msg_1");
    assert_eq!(entries[0]["receipt_id"], receipt_id.as_str());
    assert_eq!(entries[0]["occurred_at"], "2027-01-15T07:59:00Z");
    // A repeat after processing is counted, not processed.
    receive(&h, &path, &headers, body.as_bytes())
        .await
        .expect(StatusCode::OK);
    assert_eq!(h.dispatcher.process_receipts_once().await.unwrap(), 0);
    let r = h
        .get(&format!("/v1/inbound-receipts/{receipt_id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(
        (r["state"].clone(), r["received_count"].clone()),
        (json!("processed"), json!(3))
    );

    // Reprocess: due again, and the ledger keeps one entry.
    h.post(
        &format!("/v1/inbound-receipts/{receipt_id}/reprocess"),
        &key,
        json!({}),
    )
    .await
    .expect(StatusCode::ACCEPTED);
    assert_eq!(h.dispatcher.process_receipts_once().await.unwrap(), 1);
    let ledger = h.get("/v1/ledger", &key).await.expect(StatusCode::OK);
    assert_eq!(ledger["data"].as_array().unwrap().len(), 1);

    // Refusals: 401 with the refusal's code, kept as rejected receipts.
    let mut tampered = body.clone().into_bytes();
    tampered[3] ^= 1;
    receive(&h, &path, &headers, &tampered)
        .await
        .problem(StatusCode::UNAUTHORIZED, "signature_no_match");
    receive(&h, &path, &headers[..2], body.as_bytes())
        .await
        .problem(StatusCode::UNAUTHORIZED, "signature_missing");
    let stale = standard(WHSEC, "msg_2", now_s(&h) - 301, &body);
    receive(&h, &path, &stale, body.as_bytes()).await.problem(
        StatusCode::UNAUTHORIZED,
        "signature_timestamp_out_of_tolerance",
    );
    let rejected = h
        .get("/v1/inbound-receipts?verdict=rejected", &key)
        .await
        .expect(StatusCode::OK);
    let codes: Vec<&str> = rejected["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["refusal"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "signature_no_match",
            "signature_missing",
            "signature_timestamp_out_of_tolerance"
        ]
    );
    assert!(
        rejected["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["state"] == "rejected")
    );
    let rejected_id = id_of(&rejected["data"][0]);
    h.post(
        &format!("/v1/inbound-receipts/{rejected_id}/reprocess"),
        &key,
        json!({}),
    )
    .await
    .problem(StatusCode::CONFLICT, "receipt_rejected");
    assert_eq!(h.dispatcher.process_receipts_once().await.unwrap(), 0);

    // Over the source's body limit: 413, nothing written.
    let big = "x".repeat(4096);
    receive(
        &h,
        &path,
        &standard(WHSEC, "msg_3", now_s(&h), &big),
        big.as_bytes(),
    )
    .await
    .problem(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
    // An unknown path.
    receive(
        &h,
        "/inbound/0123456789abcdef0123456789abcdef",
        &headers,
        body.as_bytes(),
    )
    .await
    .problem(StatusCode::NOT_FOUND, "not_found");
    receive(&h, "/inbound/short", &headers, body.as_bytes())
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    let all = h
        .get("/v1/inbound-receipts?limit=100", &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(all["data"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn the_rate_limit_answers_429_and_refills_with_time() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let s = source(&h, &key, json!({"rate_limit_per_second": 2})).await;
    let path = path_of(&s);
    let body = event_body("x");
    for i in 0..2 {
        let hs = standard(WHSEC, &format!("msg_{i}"), now_s(&h), &body);
        receive(&h, &path, &hs, body.as_bytes())
            .await
            .expect(StatusCode::OK);
    }
    let hs = standard(WHSEC, "msg_9", now_s(&h), &body);
    let refused = receive(&h, &path, &hs, body.as_bytes()).await;
    refused.problem(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    assert_eq!(refused.headers["retry-after"], "1");
    h.clock.advance_millis(1000);
    let hs = standard(WHSEC, "msg_9", now_s(&h), &body);
    receive(&h, &path, &hs, body.as_bytes())
        .await
        .expect(StatusCode::OK);
}

/// Anyone who knows a source's URL can send it requests; those that fail
/// verification spend a budget of their own, so a flood of them neither
/// starves the real provider nor fills the store with rejected receipts.
#[tokio::test]
async fn unverified_requests_spend_a_budget_of_their_own() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let s = source(&h, &key, json!({"rate_limit_per_second": 2})).await;
    let path = path_of(&s);
    let body = event_body("x");
    for i in 0..20 {
        let hs = standard(WHSEC_2, &format!("forged_{i}"), now_s(&h), &body);
        let r = receive(&h, &path, &hs, body.as_bytes()).await;
        if i < 2 {
            r.problem(StatusCode::UNAUTHORIZED, "signature_no_match");
        } else {
            r.problem(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
            assert_eq!(r.headers["retry-after"], "1");
        }
    }
    // The provider's own requests still have their whole budget ...
    for i in 0..2 {
        let hs = standard(WHSEC, &format!("msg_{i}"), now_s(&h), &body);
        receive(&h, &path, &hs, body.as_bytes())
            .await
            .expect(StatusCode::OK);
    }
    // ... and no more.
    let hs = standard(WHSEC, "msg_9", now_s(&h), &body);
    receive(&h, &path, &hs, body.as_bytes())
        .await
        .problem(StatusCode::TOO_MANY_REQUESTS, "rate_limited");
    // Only the unverified budget's worth of rejected receipts was kept.
    let all = h
        .get("/v1/inbound-receipts?limit=100", &key)
        .await
        .expect(StatusCode::OK);
    let mut verdicts: Vec<&str> = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["verdict"].as_str().unwrap_or("?"))
        .collect();
    verdicts.sort();
    assert_eq!(
        verdicts,
        ["rejected", "rejected", "verified", "verified"],
        "{all}"
    );
    // A second later both budgets are full again.
    h.clock.advance_millis(1000);
    let hs = standard(WHSEC_2, "forged_later", now_s(&h), &body);
    receive(&h, &path, &hs, body.as_bytes())
        .await
        .problem(StatusCode::UNAUTHORIZED, "signature_no_match");
    let hs = standard(WHSEC, "msg_later", now_s(&h), &body);
    receive(&h, &path, &hs, body.as_bytes())
        .await
        .expect(StatusCode::OK);
}

#[tokio::test]
async fn a_rotated_secret_verifies_until_its_overlap_ends() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let s = source(&h, &key, json!({})).await;
    let (id, path) = (id_of(&s), path_of(&s));
    h.post(
        &format!("/v1/inbound-sources/{id}/rotate-secret"),
        &key,
        json!({"secret": WHSEC_2, "overlap_hours": 1}),
    )
    .await
    .expect(StatusCode::OK);
    let body = event_body("x");
    for (secret, event) in [(WHSEC, "old_1"), (WHSEC_2, "new_1")] {
        let hs = standard(secret, event, now_s(&h), &body);
        receive(&h, &path, &hs, body.as_bytes())
            .await
            .expect(StatusCode::OK);
    }
    h.clock.advance_millis(3_600_001);
    let hs = standard(WHSEC, "old_2", now_s(&h), &body);
    receive(&h, &path, &hs, body.as_bytes())
        .await
        .problem(StatusCode::UNAUTHORIZED, "signature_no_match");
    let hs = standard(WHSEC_2, "new_2", now_s(&h), &body);
    receive(&h, &path, &hs, body.as_bytes())
        .await
        .expect(StatusCode::OK);
    // Without an overlap the old secret stops at once.
    h.post(
        &format!("/v1/inbound-sources/{id}/rotate-secret"),
        &key,
        json!({"secret": WHSEC, "overlap_hours": 0}),
    )
    .await
    .expect(StatusCode::OK);
    let hs = standard(WHSEC_2, "new_3", now_s(&h), &body);
    receive(&h, &path, &hs, body.as_bytes())
        .await
        .problem(StatusCode::UNAUTHORIZED, "signature_no_match");
}

#[tokio::test]
async fn inbound_objects_are_isolated_by_tenant_and_environment() {
    let h = Harness::new().await;
    let (_, a) = h.tenant_with_key("a", "live").await;
    let (b_id, b) = h.tenant_with_key("b", "live").await;
    let a_test = h.api_key(&b_id, "test").await;
    let s = source(&h, &a, json!({})).await;
    let body = event_body("x");
    let hs = standard(WHSEC, "m1", now_s(&h), &body);
    let r = receive(&h, &path_of(&s), &hs, body.as_bytes())
        .await
        .expect(StatusCode::OK);
    h.dispatcher.process_receipts_once().await.unwrap();
    let receipt = r["receipt_id"].as_str().unwrap();
    for other in [&b, &a_test] {
        h.get(&format!("/v1/inbound-sources/{}", id_of(&s)), other)
            .await
            .problem(StatusCode::NOT_FOUND, "not_found");
        h.get(&format!("/v1/inbound-receipts/{receipt}"), other)
            .await
            .problem(StatusCode::NOT_FOUND, "not_found");
        h.post(
            &format!("/v1/inbound-receipts/{receipt}/reprocess"),
            other,
            json!({}),
        )
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
        for list in ["/v1/inbound-sources", "/v1/inbound-receipts", "/v1/ledger"] {
            let page = h.get(list, other).await.expect(StatusCode::OK);
            assert!(page["data"].as_array().unwrap().is_empty(), "{list}");
        }
        h.delete(&format!("/v1/inbound-sources/{}", id_of(&s)), other)
            .await
            .problem(StatusCode::NOT_FOUND, "not_found");
    }
    let mine = h.get("/v1/ledger", &a).await.expect(StatusCode::OK);
    assert_eq!(mine["data"].as_array().unwrap().len(), 1);
    // The management routes want a tenant key.
    h.send(Method::GET, "/v1/ledger", None, Body::empty())
        .await
        .problem(StatusCode::UNAUTHORIZED, "unauthorized");
}
