//! A tenant's customers see only what is theirs (issue 39, §4), each as
//! the attacker's test: a customer reading through the portal, or
//! receiving through a `*` subscription, what was not meant for it.
//!
//! - The portal shows a message's payload as its endpoint version shaped
//!   it (thin fields, snapshot allow list, personal data removed), never
//!   the event's data as published, even to a read-only token.
//! - Relay's own events (operational, system) never reach a customer's
//!   endpoint, by publish or by replay.
//! - An event published without a `consumer_id` reaches the tenant's own
//!   consumer, and a customer only when its type's audience is
//!   `all_consumers`; one with a `consumer_id` reaches that consumer only.
//!   Publish, replay and test sends apply the same rule.

mod common;

use axum::http::StatusCode;
use common::*;
use serde_json::{Value, json};

const TYPE: &str = "order.paid";

fn order_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": { "type": "string" },
            "total": { "type": "integer" },
            "customer": { "type": "object", "properties": {
                "id": { "type": "string" }, "email": { "type": "string" }, "name": { "type": "string" }
            } }
        }
    })
}

fn order() -> Value {
    json!({
        "id": "o-1",
        "total": 12,
        "customer": { "id": "cus_1", "email": "ann@example.com", "name": "Ann" }
    })
}

/// `order.paid` with thin field `/id` and personal data `/customer/email`,
/// with `audience` when given.
async fn order_type(h: &Harness, key: &str, audience: Option<&str>) -> Value {
    let mut body = json!({
        "schema": order_schema(),
        "sample": order(),
        "thin_fields": ["/id"],
        "personal_data_fields": ["/customer/email"],
    });
    if let Some(a) = audience {
        body["audience"] = json!(a);
    }
    let r = h.put(&format!("/v1/event-types/{TYPE}"), key, body).await;
    assert!(r.status.is_success(), "{}", r.text());
    r.json()
}

async fn endpoint_with(h: &Harness, key: &str, consumer: &str, extra: Value) -> String {
    let mut body = endpoint_body(consumer, &[TYPE]);
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    id_of(
        &h.post("/v1/endpoints", key, body)
            .await
            .expect(StatusCode::CREATED),
    )
}

async fn message_of(h: &Harness, key: &str, endpoint: &str, event: &str) -> String {
    let list = h
        .get(
            &format!("/v1/messages?endpoint_id={endpoint}&event_id={event}"),
            key,
        )
        .await
        .expect(StatusCode::OK);
    let ids = ids_in(&list);
    assert_eq!(ids.len(), 1, "{list}");
    ids[0].clone()
}

/// The event types of the messages an endpoint has.
async fn types_received(h: &Harness, key: &str, endpoint: &str) -> Vec<String> {
    let list = h
        .get(&format!("/v1/messages?endpoint_id={endpoint}"), key)
        .await
        .expect(StatusCode::OK);
    let mut types: Vec<String> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["event_type"].as_str().unwrap().to_string())
        .collect();
    types.sort();
    types
}

async fn consumer_of_kind(h: &Harness, key: &str, external_id: &str, kind: &str) -> String {
    id_of(
        &h.post(
            "/v1/consumers",
            key,
            json!({ "external_id": external_id, "kind": kind }),
        )
        .await
        .expect(StatusCode::CREATED),
    )
}

async fn replay(h: &Harness, key: &str, endpoint: &str, body: Value) -> u64 {
    h.post(&format!("/v1/endpoints/{endpoint}/replay"), key, body)
        .await
        .expect(StatusCode::OK)["messages_created"]
        .as_u64()
        .unwrap()
}

fn since() -> Value {
    json!("2027-01-15T07:00:00Z")
}

#[tokio::test]
async fn a_portal_token_sees_the_payload_its_endpoint_received_never_the_published_data() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    order_type(&h, &key, None).await;
    let alice = h.consumer(&key, "alice").await;
    // Thin (the default), a snapshot, and every field without personal data.
    let thin = endpoint_with(&h, &key, &alice, json!({})).await;
    let snapshot = endpoint_with(
        &h,
        &key,
        &alice,
        json!({ "snapshot_fields": ["/total", "/customer/name"] }),
    )
    .await;
    let everything = endpoint_with(&h, &key, &alice, json!({ "snapshot_fields": ["*"] })).await;
    let event = id_of(
        &h.publish(
            &key,
            json!({ "type": TYPE, "consumer_id": alice, "data": order() }),
        )
        .await
        .expect(StatusCode::ACCEPTED),
    );
    let token = h
        .post("/v1/portal-tokens", &key, json!({ "consumer_id": alice }))
        .await
        .expect(StatusCode::CREATED)["token"]
        .as_str()
        .unwrap()
        .to_string();
    for (endpoint, want) in [
        (&thin, json!({ "id": "o-1" })),
        (
            &snapshot,
            json!({ "id": "o-1", "total": 12, "customer": { "name": "Ann" } }),
        ),
        (
            &everything,
            json!({ "id": "o-1", "total": 12, "customer": { "id": "cus_1", "name": "Ann" } }),
        ),
    ] {
        let m = message_of(&h, &key, endpoint, &event).await;
        let r = h.get(&format!("/v1/portal/messages/{m}"), &token).await;
        let body = r.expect(StatusCode::OK);
        assert_eq!(body["event"]["data"], want, "{endpoint}: {body}");
        assert_eq!(body["event"]["id"], event.as_str());
        assert!(!r.text().contains("ann@example.com"), "{}", r.text());
    }
}

#[tokio::test]
async fn replay_never_gives_a_customers_wildcard_endpoint_relays_own_events() {
    let h = Harness::new().await;
    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let own = consumer_of_kind(&h, &key, "acme-itself", "tenant").await;
    let bob = h.consumer(&key, "bob").await;
    // The tenant's own endpoint takes Relay's events about its endpoints
    // (bob's among them) and a system event with a recipient's address.
    id_of(
        &h.endpoint(&key, &own, &["webhook_endpoint.disabled", "email.bounced"])
            .await,
    );
    let bobs = id_of(&h.endpoint(&key, &bob, &["order.created"]).await);
    h.post(&format!("/v1/endpoints/{bobs}/disable"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    h.post(
        &format!("/v1/tenants/{tenant}/system-events"),
        OPERATOR,
        json!({
            "environment": "live",
            "type": "email.bounced",
            "data": { "bounce_type": "hard", "recipient": { "email": "bob@example.com" } }
        }),
    )
    .await
    .expect(StatusCode::ACCEPTED);
    let alice = h.consumer(&key, "alice").await;
    let alices = id_of(&h.endpoint(&key, &alice, &["*"]).await);
    // Everything since the start, and naming the types outright.
    assert_eq!(
        replay(&h, &key, &alices, json!({ "since": since() })).await,
        0
    );
    assert_eq!(
        replay(
            &h,
            &key,
            &alices,
            json!({ "since": since(), "event_types": ["webhook_endpoint.disabled", "email.bounced"] }),
        )
        .await,
        0
    );
    assert!(types_received(&h, &key, &alices).await.is_empty());
    // The tenant's own `*` endpoint does not take them either: they are
    // reached by name only.
    let owns_all = id_of(&h.endpoint(&key, &own, &["*"]).await);
    assert_eq!(
        replay(&h, &key, &owns_all, json!({ "since": since() })).await,
        0
    );
    // By name, the tenant's own endpoint does.
    let owns_named = id_of(
        &h.endpoint(&key, &own, &["webhook_endpoint.disabled", "email.bounced"])
            .await,
    );
    assert_eq!(
        replay(&h, &key, &owns_named, json!({ "since": since() })).await,
        2
    );
}

#[tokio::test]
async fn an_event_for_no_consumer_reaches_a_customer_only_when_its_type_is_for_all_consumers() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let created = order_type(&h, &key, None).await;
    assert_eq!(created["audience"], "addressed", "{created}");
    let announced = h
        .put(
            "/v1/event-types/catalog.updated",
            &key,
            json!({ "schema": { "type": "object" }, "sample": {}, "audience": "all_consumers" }),
        )
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(announced["audience"], "all_consumers");
    let own = consumer_of_kind(&h, &key, "acme-itself", "tenant").await;
    let alice = h.consumer(&key, "alice").await;
    let bob = h.consumer(&key, "bob").await;
    let owns = id_of(&h.endpoint(&key, &own, &["*"]).await);
    let alices = id_of(&h.endpoint(&key, &alice, &["*"]).await);
    let bobs = id_of(&h.endpoint(&key, &bob, &[TYPE]).await);

    let publish = |body: Value| {
        let h = &h;
        let key = &key;
        async move {
            h.publish(key, body).await.expect(StatusCode::ACCEPTED)["messages_created"]
                .as_u64()
                .unwrap()
        }
    };
    // For no one, of an addressed type: the tenant's own endpoint only.
    assert_eq!(publish(json!({ "type": TYPE, "data": order() })).await, 1);
    // For alice: alice's only, never bob's nor the tenant's.
    assert_eq!(
        publish(json!({ "type": TYPE, "data": order(), "consumer_id": alice })).await,
        1
    );
    // For no one, of a type for all consumers: everyone subscribed.
    assert_eq!(
        publish(json!({ "type": "catalog.updated", "data": {} })).await,
        2
    );
    assert_eq!(
        types_received(&h, &key, &owns).await,
        ["catalog.updated", TYPE]
    );
    assert_eq!(
        types_received(&h, &key, &alices).await,
        ["catalog.updated", TYPE]
    );
    assert!(types_received(&h, &key, &bobs).await.is_empty());

    // Replay gives a new endpoint of alice's what publish would have.
    let alices_new = id_of(&h.endpoint(&key, &alice, &["*"]).await);
    assert_eq!(
        replay(&h, &key, &alices_new, json!({ "since": since() })).await,
        2
    );
    assert_eq!(
        types_received(&h, &key, &alices_new).await,
        ["catalog.updated", TYPE]
    );
    let bobs_new = id_of(&h.endpoint(&key, &bob, &["*"]).await);
    assert_eq!(
        replay(&h, &key, &bobs_new, json!({ "since": since() })).await,
        1
    );
    assert_eq!(
        types_received(&h, &key, &bobs_new).await,
        ["catalog.updated"]
    );

    // The audience is the tenant's to change, and a bad one is refused.
    let narrowed = h
        .put(
            "/v1/event-types/catalog.updated",
            &key,
            json!({ "schema": { "type": "object" }, "sample": {} }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(narrowed["audience"], "addressed");
    assert_eq!(
        publish(json!({ "type": "catalog.updated", "data": {} })).await,
        1
    );
    h.put(
        "/v1/event-types/catalog.updated",
        &key,
        json!({ "schema": { "type": "object" }, "audience": "everyone" }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
}

#[tokio::test]
async fn a_portal_token_sees_no_payload_of_an_event_no_longer_meant_for_its_consumer() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let body = |audience: &str| json!({ "schema": { "type": "object" }, "sample": {}, "audience": audience });
    h.put(
        "/v1/event-types/catalog.updated",
        &key,
        body("all_consumers"),
    )
    .await
    .expect(StatusCode::CREATED);
    let alice = h.consumer(&key, "alice").await;
    let alices = endpoint_with(
        &h,
        &key,
        &alice,
        json!({ "event_types": ["catalog.updated"], "snapshot_fields": ["*"] }),
    )
    .await;
    let event = id_of(
        &h.publish(
            &key,
            json!({ "type": "catalog.updated", "data": { "v": 1 } }),
        )
        .await
        .expect(StatusCode::ACCEPTED),
    );
    let m = message_of(&h, &key, &alices, &event).await;
    let token = h
        .post("/v1/portal-tokens", &key, json!({ "consumer_id": alice }))
        .await
        .expect(StatusCode::CREATED)["token"]
        .as_str()
        .unwrap()
        .to_string();
    let shown = h
        .get(&format!("/v1/portal/messages/{m}"), &token)
        .await
        .expect(StatusCode::OK);
    assert_eq!(shown["event"]["data"], json!({ "v": 1 }), "{shown}");
    // The tenant narrows the type: the message is never sent now, and its
    // payload is not shown.
    h.put("/v1/event-types/catalog.updated", &key, body("addressed"))
        .await
        .expect(StatusCode::OK);
    h.clock.advance_millis(31_000);
    let shown = h
        .get(&format!("/v1/portal/messages/{m}"), &token)
        .await
        .expect(StatusCode::OK);
    assert_eq!(shown["event"], Value::Null, "{shown}");
}

#[tokio::test]
async fn a_test_send_uses_the_same_subscription_rule() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let alice = h.consumer(&key, "alice").await;
    let alices = id_of(&h.endpoint(&key, &alice, &["*"]).await);
    // `*` takes no built-in type, so a test of one is refused as it would
    // be for any type the endpoint does not take.
    h.post(
        &format!("/v1/endpoints/{alices}/test"),
        &key,
        json!({ "event_type": "webhook.attempt_exhausted" }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "not_subscribed");
}
