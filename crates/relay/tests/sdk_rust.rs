//! The Rust SDK's README quickstart (`sdks/rust/examples/quickstart.rs`,
//! shown verbatim in `sdks/rust/README.md`) run end to end against a real
//! `relay serve` (SQLite in a temporary directory): the event type,
//! consumer and endpoint are made, the publish is delivered to an HTTPS
//! receiver and verified with the quickstart's verifier, the message is
//! listed, a portal token minted, and a 422 surfaces as a typed error.
//!
//! It lives here, not in the SDK's crate, because only the `relay` crate's
//! tests are given the binary (`CARGO_BIN_EXE_relay`) by cargo.

mod harness;

#[allow(dead_code)] // its `main` is the example's
#[path = "../../../sdks/rust/examples/quickstart.rs"]
mod quickstart;

use std::time::{Duration, Instant};

use harness::{Api, OPERATOR, Settings, Sink, start};
use relay_receiver::Behavior;
use relay_sdk::types::PublishEvent;
use serde_json::json;

#[test]
fn the_readme_quickstart_runs_against_relay_serve() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sink = Sink::start(Behavior::default());
    let relay = start(&Settings::new(dir.path(), &sink));
    // The operator's part: a tenant and its live API key.
    let operator = Api::new(&relay.url, OPERATOR);
    let tenant = operator.expect("POST", "/v1/tenants", Some(&json!({ "name": "acme" })), 201);
    let path = format!(
        "/v1/tenants/{}/api-keys",
        tenant["id"].as_str().expect("id")
    );
    let key = operator.expect("POST", &path, Some(&json!({ "environment": "live" })), 201);
    let key = key["key"].as_str().expect("key").to_string();
    let webhook_url = format!("https://127.0.0.1:{}/webhooks", sink.receiver.port());

    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let q = rt
        .block_on(quickstart::quickstart(&key, &relay.url, &webhook_url))
        .unwrap_or_else(|e| panic!("the quickstart failed: {e}\n{}", relay.log_tail(30)));

    // The delivery arrives and the quickstart's verifier accepts it.
    sink.wait_count(1, Instant::now() + Duration::from_secs(60))
        .unwrap_or_else(|e| panic!("no delivery: {e}\n{}", relay.log_tail(30)));
    let delivery = sink.receiver.requests().remove(0);
    q.verifier
        .verify(&delivery.headers, &delivery.body)
        .expect("the delivery verifies");
    assert_eq!(delivery.header("webhook-id"), Some(q.event.id.as_str()));
    assert!(q.event.id.starts_with("evt_"), "{}", q.event.id);
    assert_eq!(q.event.messages_created, 1);
    // The message was listed, the portal token's link made.
    assert_eq!(q.messages.len(), 1);
    assert!(q.messages[0].id.starts_with("msg_"), "{}", q.messages[0].id);
    assert!(q.token.url.expose().contains("#token=rpt_"));
    assert!(!format!("{:?}", q.token).contains("rpt_"), "{:?}", q.token);
    // The refused publish (no `total`): 422 schema_violation at `/data`.
    assert_eq!(
        (q.refusal.status, q.refusal.code.as_str()),
        (422, "schema_violation")
    );
    assert_eq!(q.refusal.errors[0].field, "/data");
    assert!(
        q.refusal
            .request_id
            .as_deref()
            .is_some_and(|r| r.starts_with("req_"))
    );

    rt.block_on(async {
        // The same publish again, with the id the SDK chose: Relay's duplicate.
        let again = q
            .relay
            .events()
            .publish(PublishEvent {
                id: Some(q.event.id.clone()),
                r#type: "order.paid".into(),
                data: json!({ "id": "o_1042", "total": 4200 }),
                consumer_id: Some(q.consumer.id.clone()),
                ..Default::default()
            })
            .await
            .expect("the publish again");
        assert!(again.duplicate && again.id == q.event.id);
        // An unknown event type: a typed error too.
        let err = q
            .relay
            .events()
            .publish(PublishEvent {
                r#type: "no.such.type".into(),
                data: json!({}),
                ..Default::default()
            })
            .await
            .expect_err("an unknown event type");
        assert_eq!(err.code(), Some("unknown_event_type"));
        // Pagination over a real list: the consumer, by the generated method.
        let consumers = q.relay.consumers().list().all().await.expect("consumers");
        assert_eq!(consumers.len(), 1);
        assert_eq!(consumers[0].external_id, "acme-shop");
    });
    relay.assert_no_panic();
}
