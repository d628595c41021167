//! An inbound source's signing secret given as a secret reference
//! (`secret_ref`) instead of a write-only value: resolved at registration
//! (`422` when it does not), resolved again at every receipt (a replaced
//! tenant secret verifies from the next request), rotated with an overlap
//! to and from values, kept from deletion while a source names it; every
//! change of a source audited without a secret.

mod common;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use common::{Harness, Resp, id_of};
use relay_core::signature::{HmacSecret, SignedContent};
use relay_store::ExecutorExt as _;
use serde_json::{Value, json};

const WHSEC: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const WHSEC_2: &str = "whsec_dGhlIHNlY29uZCBzZWNyZXQgb2YgdGhlIHNvdXJjZQ==";
const WHSEC_3: &str = "whsec_YSB0aGlyZCBzZWNyZXQsIGdpdmVuIGFzIGEgdmFsdWU=";

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

/// Sends a Standard Webhooks event `id` signed with `secret` to the source.
async fn send(h: &Harness, source: &Value, secret: &str, id: &str) -> Resp {
    use relay_core::time::Clock;
    let body =
        json!({"type": "x.y", "timestamp": "2027-01-15T07:59:00Z", "data": {"id": 1}}).to_string();
    let headers = standard(secret, id, h.clock.now().unix_seconds(), &body);
    let mut req = Request::builder()
        .method(Method::POST)
        .uri(source["path"].as_str().unwrap());
    for (k, v) in &headers {
        req = req.header(k.as_str(), v.as_str());
    }
    h.request(req.body(Body::from(body)).expect("request"))
        .await
}

#[tokio::test]
async fn a_source_verifies_with_the_tenant_secret_it_names() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let mut answers = String::new();
    let create =
        json!({"name": "ours", "preset": "standard_webhooks", "secret_ref": "secret:signing"});

    // The reference must resolve, to a secret the preset accepts.
    let r = h.post("/v1/inbound-sources", &key, create.clone()).await;
    let p = r.problem(StatusCode::UNPROCESSABLE_ENTITY, "secret_not_found");
    assert_eq!(p["errors"][0]["field"], "/secret_ref");
    h.put("/v1/secrets/signing", &key, json!({"value": "not-a-whsec"}))
        .await
        .expect(StatusCode::CREATED);
    let r = h.post("/v1/inbound-sources", &key, create.clone()).await;
    answers.push_str(&r.text());
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_secret");
    h.put("/v1/secrets/signing", &key, json!({"value": WHSEC}))
        .await
        .expect(StatusCode::OK);
    let r = h.post("/v1/inbound-sources", &key, create).await;
    answers.push_str(&r.text());
    let source = r.expect(StatusCode::CREATED);
    assert_eq!(
        source["secret"],
        json!({"kind": "reference", "reference": "secret:signing"})
    );
    let id = id_of(&source);

    // Both, neither, or a reference the operator does not allow.
    for (body, code) in [
        (
            json!({"name": "x", "preset": "standard_webhooks", "secret": WHSEC, "secret_ref": "secret:signing"}),
            "validation_failed",
        ),
        (
            json!({"name": "x", "preset": "standard_webhooks"}),
            "validation_failed",
        ),
        (
            json!({"name": "x", "preset": "standard_webhooks", "secret_ref": "env:SIGNING"}),
            "secret_env_not_allowed",
        ),
        (
            json!({"name": "x", "preset": "standard_webhooks", "secret_ref": WHSEC}),
            "validation_failed",
        ),
    ] {
        let r = h.post("/v1/inbound-sources", &key, body).await;
        answers.push_str(&r.text());
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
    }

    // Verified with the tenant secret's value.
    send(&h, &source, WHSEC, "evt_1")
        .await
        .expect(StatusCode::OK);
    send(&h, &source, WHSEC_2, "evt_2")
        .await
        .problem(StatusCode::UNAUTHORIZED, "signature_no_match");
    // Replaced: the next request verifies with the new value only.
    h.put("/v1/secrets/signing", &key, json!({"value": WHSEC_2}))
        .await
        .expect(StatusCode::OK);
    send(&h, &source, WHSEC_2, "evt_3")
        .await
        .expect(StatusCode::OK);
    send(&h, &source, WHSEC, "evt_4")
        .await
        .problem(StatusCode::UNAUTHORIZED, "signature_no_match");

    // The secret a source names is not deleted from under it.
    h.delete("/v1/secrets/signing", &key)
        .await
        .problem(StatusCode::CONFLICT, "secret_in_use");

    // Rotated to a value, the reference verifying beside it for an hour.
    let r = h
        .post(
            &format!("/v1/inbound-sources/{id}/rotate-secret"),
            &key,
            json!({"secret": WHSEC_3, "overlap_hours": 1}),
        )
        .await;
    answers.push_str(&r.text());
    let rotated = r.expect(StatusCode::OK);
    assert_eq!(rotated["secret"], json!({"kind": "value"}));
    send(&h, &source, WHSEC_3, "evt_5")
        .await
        .expect(StatusCode::OK);
    send(&h, &source, WHSEC_2, "evt_6")
        .await
        .expect(StatusCode::OK);
    h.clock.advance_millis(3_600_000);
    send(&h, &source, WHSEC_2, "evt_7")
        .await
        .problem(StatusCode::UNAUTHORIZED, "signature_no_match");
    // No source names it now.
    h.delete("/v1/secrets/signing", &key)
        .await
        .expect(StatusCode::NO_CONTENT);

    // And back to a reference.
    h.put("/v1/secrets/signing-2", &key, json!({"value": WHSEC}))
        .await
        .expect(StatusCode::CREATED);
    let r = h
        .post(
            &format!("/v1/inbound-sources/{id}/rotate-secret"),
            &key,
            json!({"secret_ref": "secret:signing-2", "overlap_hours": 0}),
        )
        .await;
    answers.push_str(&r.text());
    r.expect(StatusCode::OK);
    send(&h, &source, WHSEC, "evt_8")
        .await
        .expect(StatusCode::OK);
    send(&h, &source, WHSEC_3, "evt_9")
        .await
        .problem(StatusCode::UNAUTHORIZED, "signature_no_match");
    h.post(
        &format!("/v1/inbound-sources/{id}/rotate-secret"),
        &key,
        json!({"secret_ref": "secret:missing"}),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "secret_not_found");

    h.patch(
        &format!("/v1/inbound-sources/{id}"),
        &key,
        json!({"name": "renamed"}),
    )
    .await
    .expect(StatusCode::OK);
    h.delete(&format!("/v1/inbound-sources/{id}"), &key)
        .await
        .expect(StatusCode::NO_CONTENT);

    // Every change audited, none with a secret.
    let audit = h.get("/v1/audit-log?limit=100", &key).await;
    answers.push_str(&audit.text());
    let audit = audit.expect(StatusCode::OK);
    let source_actions: Vec<(&str, &Value)> = audit["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["target"] == id.as_str())
        .map(|a| (a["action"].as_str().unwrap(), &a["parameters"]))
        .collect();
    let actions: Vec<&str> = source_actions.iter().map(|(a, _)| *a).collect();
    assert_eq!(
        actions,
        [
            "inbound_source.created",
            "inbound_source.secret_rotated",
            "inbound_source.secret_rotated",
            "inbound_source.updated",
            "inbound_source.deleted",
        ]
    );
    assert_eq!(
        source_actions[0].1["secret"],
        json!({"kind": "reference", "reference": "secret:signing"})
    );
    assert_eq!(source_actions[1].1["overlap_hours"], 1);
    assert_eq!(source_actions[3].1["fields"], json!(["name"]));
    for secret in [WHSEC, WHSEC_2, WHSEC_3, "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"] {
        assert!(
            !answers.contains(secret),
            "a secret in an answer: {answers}"
        );
    }
}

#[tokio::test]
async fn a_source_whose_secret_cannot_be_read_asks_the_provider_to_retry() {
    let h = Harness::new().await;
    let (tenant_id, key) = h.tenant_with_key("acme", "live").await;
    h.put("/v1/secrets/signing", &key, json!({"value": WHSEC}))
        .await
        .expect(StatusCode::CREATED);
    let source = h
        .post(
            "/v1/inbound-sources",
            &key,
            json!({"name": "ours", "preset": "standard_webhooks", "secret_ref": "secret:signing"}),
        )
        .await
        .expect(StatusCode::CREATED);
    // Removed beneath the source (the API refuses; the store does not).
    let scope = relay_store::Scope {
        tenant_id,
        environment: relay_core::model::Environment::Live,
    };
    h.state
        .store
        .write(relay_store::Commit::Durable, move |mut x| {
            Box::pin(
                async move { relay_store::secrets::delete(&mut x, &scope, "signing", None).await },
            )
        })
        .await
        .unwrap();
    let r = send(&h, &source, WHSEC, "evt_1").await;
    r.problem(StatusCode::SERVICE_UNAVAILABLE, "source_secret_unavailable");
    // Nothing was kept for a request that could not be judged.
    let receipts = h
        .get("/v1/inbound-receipts", &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(receipts["data"], json!([]));
}

#[test]
fn request_bodies_never_show_a_secret_in_debug() {
    let create: relay_api::routes::inbound::CreateInboundSource = serde_json::from_value(
        json!({"name": "x", "preset": "standard_webhooks", "secret": WHSEC}),
    )
    .unwrap();
    let rotate: relay_api::routes::inbound::RotateInboundSecret =
        serde_json::from_value(json!({"secret": WHSEC})).unwrap();
    for debug in [format!("{create:?}"), format!("{rotate:?}")] {
        assert!(
            !debug.contains("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
            "{debug}"
        );
    }
}
