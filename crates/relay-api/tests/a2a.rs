//! The A2A push profile's API (issue 46 §2, docs/a2a.md): an endpoint with
//! `a2a_push` is ordered per key by default and receives only the A2A
//! update types; an update is checked at publish as the `StreamResponse`
//! it will be sent as, addressed to one consumer, keyed by its task; a test
//! send of an update type is refused; no answer holds a secret's value.

mod common;

use axum::http::StatusCode;
use common::*;
use serde_json::{Value, json};

const TOKEN: &str = "tok-0f3e9a1b27";
const CREDENTIALS: &str = "cred-5d2c8e7f10";

const STATUS: &str = "a2a.task.status_updated";
const ARTIFACT: &str = "a2a.task.artifact_updated";

fn a2a_endpoint(consumer: &str, extra: Value) -> Value {
    let mut body = json!({
        "consumer_id": consumer,
        "destination": { "kind": "https", "url": GOOD_URL, "a2a_push": {
            "task_id": "task-1", "token": "secret:a2a-token",
            "authentication": { "scheme": "Bearer", "credentials": "secret:a2a-cred" } } },
        "event_types": [STATUS, ARTIFACT],
    });
    if let (Value::Object(b), Value::Object(e)) = (&mut body, extra) {
        b.extend(e);
    }
    body
}

fn status_update(task: &str) -> Value {
    json!({ "statusUpdate": { "taskId": task, "contextId": "ctx",
        "status": { "state": "TASK_STATE_WORKING" } } })
}

async fn setup() -> (Harness, String, String) {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("agents", "live").await;
    for t in [STATUS, ARTIFACT, "order.created"] {
        h.open_event_type(&key, t).await;
    }
    for (name, value) in [("a2a-token", TOKEN), ("a2a-cred", CREDENTIALS)] {
        h.put(
            &format!("/v1/secrets/{name}"),
            &key,
            json!({ "value": value }),
        )
        .await
        .expect(StatusCode::CREATED);
    }
    let c = h.consumer(&key, "a2a-task-task-1").await;
    (h, key, c)
}

fn assert_no_secret(what: &str, v: &Value) {
    let text = v.to_string();
    for s in [TOKEN, CREDENTIALS] {
        assert!(!text.contains(s), "{what} holds a secret value: {text}");
    }
}

#[tokio::test]
async fn an_a2a_endpoint_is_ordered_receives_only_updates_and_shows_no_secret() {
    let (h, key, c) = setup().await;
    let created = h
        .post("/v1/endpoints", &key, a2a_endpoint(&c, json!({})))
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(created["ordering"], "per_key", "{created}");
    assert_eq!(
        created["destination"]["a2a_push"],
        json!({ "task_id": "task-1", "token": "secret:a2a-token",
            "authentication": { "scheme": "Bearer", "credentials": "secret:a2a-cred" } })
    );
    assert_no_secret("the create answer", &created);
    let id = id_of(&created);
    let read = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_no_secret("a read", &read);
    let list = h.get("/v1/endpoints", &key).await.expect(StatusCode::OK);
    assert_no_secret("the list", &list);

    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "unordered",
            json!({ "ordering": "none" }),
            "a2a_ordering_required",
            "/ordering",
        ),
        (
            "another type",
            json!({ "event_types": [STATUS, "order.created"] }),
            "a2a_event_type_not_allowed",
            "/event_types/1",
        ),
        (
            "every type",
            json!({ "event_types": ["*"] }),
            "a2a_event_type_not_allowed",
            "/event_types/0",
        ),
        (
            "no type",
            json!({ "event_types": [] }),
            "a2a_event_type_not_allowed",
            "/event_types",
        ),
        (
            "a missing secret",
            json!({ "destination": { "kind": "https", "url": GOOD_URL,
            "a2a_push": { "task_id": "task-1", "token": "secret:nope" } } }),
            "secret_not_found",
            "/destination/a2a_push/token",
        ),
        (
            "a bad scheme",
            json!({ "destination": { "kind": "https", "url": GOOD_URL,
            "a2a_push": { "task_id": "task-1", "authentication": { "scheme": "Bea rer", "credentials": "secret:a2a-cred" } } } }),
            "validation_failed",
            "/destination/a2a_push/authentication/scheme",
        ),
        (
            "the token as a custom header",
            json!({ "destination": { "kind": "https", "url": GOOD_URL,
            "headers": [{ "name": "X-A2A-Notification-Token", "secret": "secret:a2a-token" }],
            "a2a_push": { "task_id": "task-1" } } }),
            "reserved_header",
            "/destination/headers",
        ),
    ];
    for (name, extra, code, field) in cases {
        let r = h.post("/v1/endpoints", &key, a2a_endpoint(&c, extra)).await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(r.error_fields(), vec![field.to_string()], "{name}");
    }
    let literal = h
        .post(
            "/v1/endpoints",
            &key,
            a2a_endpoint(
                &c,
                json!({ "destination": { "kind": "https", "url": GOOD_URL,
                "a2a_push": { "task_id": "task-1", "token": TOKEN } } }),
            ),
        )
        .await;
    assert_no_secret("a literal token's refusal", &literal.any_problem());
    // A change cannot make it unordered either.
    let r = h
        .patch(
            &format!("/v1/endpoints/{id}"),
            &key,
            json!({ "ordering": "none" }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "a2a_ordering_required");
    // A test send has no task's update to send.
    let r = h
        .post(
            &format!("/v1/endpoints/{id}/test"),
            &key,
            json!({ "event_type": STATUS }),
        )
        .await;
    r.problem(
        StatusCode::UNPROCESSABLE_ENTITY,
        "a2a_test_send_unavailable",
    );
}

#[tokio::test]
async fn an_update_is_checked_as_its_stream_response_and_keyed_by_its_task() {
    let (h, key, c) = setup().await;
    h.post("/v1/endpoints", &key, a2a_endpoint(&c, json!({})))
        .await
        .expect(StatusCode::CREATED);
    let ok = h
        .publish(
            &key,
            json!({ "type": STATUS, "consumer_id": c, "data": status_update("task-1") }),
        )
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(ok["ordering_key"], "task-1", "{ok}");
    assert_eq!(ok["messages_created"], 1, "{ok}");
    let same_key = json!({ "type": STATUS, "consumer_id": c, "ordering_key": "task-1",
        "data": status_update("task-1") });
    h.publish(&key, same_key).await.expect(StatusCode::ACCEPTED);

    let mut v03 = status_update("task-1");
    v03["statusUpdate"]["kind"] = json!("status-update");
    let cases: Vec<(&str, Value, &str, &str)> = vec![
        (
            "the v0.3 kind",
            json!({ "type": STATUS, "consumer_id": c, "data": v03 }),
            "a2a_invalid_update",
            "/data/statusUpdate/kind",
        ),
        (
            "the other member",
            json!({ "type": ARTIFACT, "consumer_id": c, "data": status_update("task-1") }),
            "a2a_invalid_update",
            "/data/statusUpdate",
        ),
        (
            "no consumer",
            json!({ "type": STATUS, "data": status_update("task-1") }),
            "a2a_consumer_required",
            "/consumer_id",
        ),
        (
            "another key",
            json!({ "type": STATUS, "consumer_id": c, "ordering_key": "task-2",
            "data": status_update("task-1") }),
            "a2a_ordering_key_mismatch",
            "/ordering_key",
        ),
    ];
    for (name, body, code, field) in cases {
        let r = h.publish(&key, body).await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(r.error_fields(), vec![field.to_string()], "{name}");
    }
    // Any other type is published as before, its key its own.
    h.publish(
        &key,
        json!({ "type": "order.created", "ordering_key": "k", "data": {} }),
    )
    .await
    .expect(StatusCode::ACCEPTED);
}
