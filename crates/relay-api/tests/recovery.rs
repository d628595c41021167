//! Recovery and delivery control over HTTP: pause and resume, disable and
//! enable, the missed-events list, recover, cancel and resend, and their audit.

mod common;

use axum::http::StatusCode;
use common::*;
use serde_json::{Value, json};

async fn setup() -> (Harness, String, String) {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let c = h.consumer(&key, "acme").await;
    let ep = h.endpoint(&key, &c, &["order.shipped"]).await;
    (h, key, id_of(&ep))
}

async fn states(h: &Harness, key: &str, endpoint: &str) -> Vec<String> {
    let list = h
        .get(&format!("/v1/messages?endpoint_id={endpoint}"), key)
        .await
        .expect(StatusCode::OK);
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["state"].as_str().unwrap().to_string())
        .collect()
}

async fn publish(h: &Harness, key: &str, id: &str) {
    h.publish(key, json!({"id": id, "type": "order.shipped", "data": {}}))
        .await
        .expect(StatusCode::ACCEPTED);
}

#[tokio::test]
async fn pause_holds_and_resume_releases_without_discarding() {
    let (h, key, ep) = setup().await;
    publish(&h, &key, "evt_1").await;
    let paused = h
        .post(&format!("/v1/endpoints/{ep}/pause"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    assert_eq!(paused["state"], "paused");
    publish(&h, &key, "evt_2").await;
    assert_eq!(states(&h, &key, &ep).await, vec!["held", "held"]);
    let missed = h
        .get(&format!("/v1/endpoints/{ep}/missed"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(missed["data"].as_array().unwrap().len(), 2);
    h.post(&format!("/v1/endpoints/{ep}/pause"), &key, json!({}))
        .await
        .problem(StatusCode::CONFLICT, "invalid_endpoint_state");
    let resumed = h
        .post(&format!("/v1/endpoints/{ep}/resume"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    assert_eq!(resumed["state"], "active");
    assert_eq!(states(&h, &key, &ep).await, vec!["scheduled", "scheduled"]);
}

#[tokio::test]
async fn enable_with_recover_queues_what_was_missed_as_recovery_traffic() {
    let (h, key, ep) = setup().await;
    h.post(&format!("/v1/endpoints/{ep}/disable"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    publish(&h, &key, "evt_a").await;
    publish(&h, &key, "evt_b").await;
    h.post(
        &format!("/v1/endpoints/{ep}/enable"),
        &key,
        json!({"since": T0.to_rfc3339()}),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    let enabled = h
        .post(
            &format!("/v1/endpoints/{ep}/enable"),
            &key,
            json!({"recover": true}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(enabled["state"], "active");
    assert_eq!(enabled["disabled_reason"], Value::Null);
    assert_eq!(enabled["requeued"], 2);
    assert_eq!(states(&h, &key, &ep).await, vec!["scheduled", "scheduled"]);
    h.post(&format!("/v1/endpoints/{ep}/enable"), &key, json!({}))
        .await
        .problem(StatusCode::CONFLICT, "invalid_endpoint_state");
}

#[tokio::test]
async fn disable_records_new_events_as_missed_and_recover_queues_them_after_enable() {
    let (h, key, ep) = setup().await;
    let disabled = h
        .post(&format!("/v1/endpoints/{ep}/disable"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    assert_eq!(disabled["state"], "disabled");
    assert_eq!(disabled["disabled_reason"], "disabled_by_tenant");
    publish(&h, &key, "evt_off").await;
    assert_eq!(states(&h, &key, &ep).await, vec!["held"]);
    let since = T0.plus_seconds(-86_400).to_rfc3339();
    let since = since.as_str();
    h.post(
        &format!("/v1/endpoints/{ep}/recover"),
        &key,
        json!({"since": since}),
    )
    .await
    .problem(StatusCode::CONFLICT, "invalid_endpoint_state");
    h.post(&format!("/v1/endpoints/{ep}/resume"), &key, json!({}))
        .await
        .problem(StatusCode::CONFLICT, "invalid_endpoint_state");
    h.post(&format!("/v1/endpoints/{ep}/enable"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    // Enabling floods nothing: what was held stays held, listed as missed.
    assert_eq!(states(&h, &key, &ep).await, vec!["held"]);
    let missed = h
        .get(&format!("/v1/endpoints/{ep}/missed"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(missed["data"].as_array().unwrap().len(), 1);
    let r = h
        .post(
            &format!("/v1/endpoints/{ep}/recover"),
            &key,
            json!({"since": since}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(r["requeued"], 1);
    assert_eq!(states(&h, &key, &ep).await, vec!["scheduled"]);
    // Cancel it, then recover brings it back onto the schedule.
    let m = h
        .get(&format!("/v1/messages?endpoint_id={ep}"), &key)
        .await
        .expect(StatusCode::OK)["data"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let cancelled = h
        .post(&format!("/v1/messages/{m}/cancel"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    assert_eq!(cancelled["state"], "cancelled");
    h.post(&format!("/v1/messages/{m}/cancel"), &key, json!({}))
        .await
        .problem(StatusCode::CONFLICT, "message_not_pending");
    let r = h
        .post(
            &format!("/v1/endpoints/{ep}/recover"),
            &key,
            json!({"since": since}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(r["requeued"], 1);
    assert_eq!(states(&h, &key, &ep).await, vec!["scheduled"]);
    h.post(
        &format!("/v1/endpoints/{ep}/recover"),
        &key,
        json!({"since": "2030-01-01T00:00:00Z", "until": "2029-01-01T00:00:00Z"}),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    let log = h.get("/v1/audit-log", &key).await.expect(StatusCode::OK);
    let actions: Vec<Value> = log["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].clone())
        .collect();
    assert_eq!(
        actions,
        vec![
            json!("endpoint.created"),
            json!("endpoint.disabled"),
            json!("endpoint.enabled"),
            json!("endpoint.recovered"),
            json!("message.cancelled"),
            json!("endpoint.recovered")
        ]
    );
}

#[tokio::test]
async fn resend_makes_one_manual_attempt_and_reports_it() {
    let (h, key, ep) = setup().await;
    publish(&h, &key, "evt_1").await;
    let m = h
        .get(&format!("/v1/messages?endpoint_id={ep}"), &key)
        .await
        .expect(StatusCode::OK)["data"][0]
        .clone();
    // Nothing listens behind the test endpoint: the attempt fails to connect.
    let r = h
        .post(
            &format!("/v1/messages/{}/resend", id_of(&m)),
            &key,
            json!({}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(r["attempt"]["trigger"], "manual");
    assert_eq!(r["attempt"]["error_kind"], "connect");
    assert_eq!(
        r["message"]["state"], "scheduled",
        "a failed resend changes nothing"
    );
    assert_eq!(r["message"]["attempts_used"], 0, "and does not count");
    assert_eq!(r["message"]["next_attempt_at"], m["next_attempt_at"]);
    h.post("/v1/messages/msg_missing/resend", &key, json!({}))
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn resend_of_an_expired_event_or_a_deleted_endpoint_makes_no_attempt() {
    let (h, key, ep) = setup().await;
    h.publish(
        &key,
        json!({"id": "evt_ttl", "type": "order.shipped", "data": {}, "ttl_seconds": 60}),
    )
    .await
    .expect(StatusCode::ACCEPTED);
    let m = id_of(
        &h.get(&format!("/v1/messages?endpoint_id={ep}"), &key)
            .await
            .expect(StatusCode::OK)["data"][0],
    );
    h.clock.advance_millis(61_000);
    h.post(&format!("/v1/messages/{m}/resend"), &key, json!({}))
        .await
        .problem(StatusCode::CONFLICT, "event_expired");
    // No attempt, and no lease held: asked again, the answer is the same
    // (not attempt_in_flight).
    h.post(&format!("/v1/messages/{m}/resend"), &key, json!({}))
        .await
        .problem(StatusCode::CONFLICT, "event_expired");
    let attempts = h
        .get(&format!("/v1/messages/{m}/attempts"), &key)
        .await
        .expect(StatusCode::OK);
    assert!(attempts["data"].as_array().unwrap().is_empty());
    publish(&h, &key, "evt_kept").await;
    let kept = h
        .get(&format!("/v1/messages?endpoint_id={ep}"), &key)
        .await
        .expect(StatusCode::OK)["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["event_id"] == "evt_kept")
        .map(id_of)
        .unwrap();
    h.delete(&format!("/v1/endpoints/{ep}"), &key)
        .await
        .expect(StatusCode::NO_CONTENT);
    h.post(&format!("/v1/messages/{kept}/resend"), &key, json!({}))
        .await
        .problem(StatusCode::CONFLICT, "endpoint_deleted");
    let attempts = h
        .get(&format!("/v1/messages/{kept}/attempts"), &key)
        .await
        .expect(StatusCode::OK);
    assert!(attempts["data"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn replay_delivers_past_events_to_a_new_endpoint_within_retention() {
    let (h, key, _old) = setup().await;
    publish(&h, &key, "evt_a").await;
    publish(&h, &key, "evt_b").await;
    let c = h.consumer(&key, "newcomer").await;
    let fresh = id_of(&h.endpoint(&key, &c, &["order.shipped"]).await);
    let since = T0.plus_seconds(-60).to_rfc3339();
    let r = h
        .post(
            &format!("/v1/endpoints/{fresh}/replay"),
            &key,
            json!({"since": since}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(r["messages_created"], 2);
    let again = h
        .post(
            &format!("/v1/endpoints/{fresh}/replay"),
            &key,
            json!({"since": since}),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(
        again["messages_created"], 0,
        "(endpoint_id, event_id) stays unique"
    );
    let events: Vec<String> = h
        .get(&format!("/v1/messages?endpoint_id={fresh}"), &key)
        .await
        .expect(StatusCode::OK)["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["event_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(events, vec!["evt_a", "evt_b"], "each event keeps its id");
    let too_old = T0.plus_seconds(-31 * 86_400).to_rfc3339();
    for path in ["replay", "recover"] {
        h.post(
            &format!("/v1/endpoints/{fresh}/{path}"),
            &key,
            json!({"since": too_old}),
        )
        .await
        .problem(StatusCode::UNPROCESSABLE_ENTITY, "outside_retention");
    }
    // A bulk retry refuses the same range, at either end, and queues no job.
    for body in [
        json!({"since": too_old}),
        json!({"until": too_old}),
        json!({"since": too_old, "until": T0.to_rfc3339()}),
    ] {
        h.post("/v1/messages/retry", &key, body)
            .await
            .problem(StatusCode::UNPROCESSABLE_ENTITY, "outside_retention");
    }
    let within = T0.plus_seconds(-29 * 86_400).to_rfc3339();
    h.post("/v1/messages/retry", &key, json!({"since": within}))
        .await
        .expect(StatusCode::ACCEPTED);
}

#[tokio::test]
async fn the_test_action_sends_the_sample_through_the_normal_path() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.put(
        "/v1/event-types/order.shipped",
        &key,
        json!({"schema": {"type": "object"}, "sample": {"order_id": "sample-1"}}),
    )
    .await
    .expect(StatusCode::CREATED);
    h.open_event_type(&key, "order.created").await;
    let c = h.consumer(&key, "acme").await;
    let ep = id_of(
        &h.endpoint(&key, &c, &["order.created", "order.shipped"])
            .await,
    );
    let r = h
        .post(&format!("/v1/endpoints/{ep}/test"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    // The type with a sample was chosen; the attempt went through the guard
    // (nothing listens behind the test URL: a connection error, retried later).
    assert_eq!(r["message"]["event_type"], "order.shipped");
    assert_eq!(r["message"]["endpoint_id"], ep);
    assert_eq!(r["attempt"]["trigger"], "manual");
    assert_eq!(r["attempt"]["error_kind"], "connect");
    assert_eq!(r["message"]["state"], "scheduled");
    let event = h
        .get(
            &format!("/v1/events/{}", r["message"]["event_id"].as_str().unwrap()),
            &key,
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(event["data"], json!({"order_id": "sample-1"}));
    assert_eq!(
        event["messages"].as_array().unwrap().len(),
        1,
        "only this endpoint"
    );
    // The health view counts the attempt: rates, the latency histogram, the error.
    let health = h
        .get(&format!("/v1/endpoints/{ep}/health"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(health["attempts_last_hour"], 1);
    assert_eq!(health["success_rate_last_hour"], 0.0);
    assert_eq!(health["latency"]["samples"], 1);
    let duration = r["attempt"]["duration_ms"].as_i64().unwrap();
    assert_eq!(health["latency"]["max_ms"], duration);
    assert!(health["latency"]["p50_ms"].as_i64().unwrap() >= duration);
    assert_eq!(health["recent_errors"][0]["error_kind"], "connect");
    assert_eq!(health["backlog"]["size"], 1);
    h.post(
        &format!("/v1/endpoints/{ep}/test"),
        &key,
        json!({"event_type": "invoice.paid"}),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "not_subscribed");
}

/// The audit log's entries of `action`.
async fn audited(h: &Harness, key: &str, action: &str) -> Vec<Value> {
    let log = h
        .get("/v1/audit-log?limit=250", key)
        .await
        .expect(StatusCode::OK);
    log["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["action"] == action)
        .cloned()
        .collect()
}

#[tokio::test]
async fn resends_and_test_sends_are_audited_with_their_actor_and_outcome() {
    let (h, key, ep) = setup().await;
    publish(&h, &key, "evt_1").await;
    let m = id_of(
        &h.get(&format!("/v1/messages?endpoint_id={ep}"), &key)
            .await
            .expect(StatusCode::OK)["data"][0],
    );
    let actor = audited(&h, &key, "endpoint.created").await[0]["actor"].clone();
    assert!(actor.as_str().unwrap().starts_with("key_"), "{actor}");
    let r = h
        .post(&format!("/v1/messages/{m}/resend"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    let resent = audited(&h, &key, "message.resent").await;
    assert_eq!(resent.len(), 1, "{resent:?}");
    assert_eq!(resent[0]["actor"], actor);
    assert_eq!(resent[0]["target"], m.as_str());
    assert_eq!(
        resent[0]["parameters"],
        json!({
            "message_id": m,
            "endpoint_id": ep,
            "event_id": "evt_1",
            "outcome": r["attempt"]["outcome"],
            "attempt_id": r["attempt"]["id"],
        })
    );
    // A refused resend changed nothing and is not audited.
    h.post("/v1/messages/msg_missing/resend", &key, json!({}))
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    assert_eq!(audited(&h, &key, "message.resent").await.len(), 1);

    let t = h
        .post(
            &format!("/v1/endpoints/{ep}/test"),
            &key,
            json!({"event_type": "order.shipped"}),
        )
        .await
        .expect(StatusCode::OK);
    let sent = audited(&h, &key, "endpoint.test_sent").await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["actor"], actor);
    assert_eq!(sent[0]["target"], ep.as_str());
    assert_eq!(sent[0]["parameters"]["message_id"], t["message"]["id"]);
    assert_eq!(sent[0]["parameters"]["event_id"], t["message"]["event_id"]);
    assert_eq!(sent[0]["parameters"]["endpoint_id"], ep.as_str());
    assert_eq!(sent[0]["parameters"]["outcome"], t["attempt"]["outcome"]);
    assert_eq!(sent[0]["parameters"]["attempt_id"], t["attempt"]["id"]);
    // A resend of an expired event: no attempt, no lease, no entry.
    h.publish(
        &key,
        json!({"id": "evt_ttl", "type": "order.shipped", "data": {}, "ttl_seconds": 60}),
    )
    .await
    .expect(StatusCode::ACCEPTED);
    let expiring = h
        .get(&format!("/v1/messages?endpoint_id={ep}"), &key)
        .await
        .expect(StatusCode::OK)["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["event_id"] == "evt_ttl")
        .map(id_of)
        .unwrap();
    h.clock.advance_millis(61_000);
    h.post(&format!("/v1/messages/{expiring}/resend"), &key, json!({}))
        .await
        .problem(StatusCode::CONFLICT, "event_expired");
    assert_eq!(audited(&h, &key, "message.resent").await.len(), 1);
}
