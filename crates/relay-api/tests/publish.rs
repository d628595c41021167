//! Publishing events (issue 2, item 5): schema validation with the failing
//! JSON paths under `/data`, unknown types, fan-out to exactly the subscribed
//! endpoints (explicit lists, explicit `*`, empty lists), idempotent ids,
//! payload bytes kept as sent, trace context kept or generated, and the
//! message listing with filters and keyset pagination.

mod common;

use std::collections::BTreeSet;

use axum::http::{Method, StatusCode};
use common::*;
use relay_core::time::Timestamp;
use serde_json::{Value, json};

fn order_schema() -> Value {
    json!({
        "type": "object",
        "required": ["order_id", "total"],
        "properties": {
            "order_id": { "type": "integer" },
            "total": { "type": "number", "minimum": 0 },
            "items": { "type": "array", "items": { "type": "string" } },
            "customer": {
                "type": "object",
                "properties": { "email": { "type": "string", "format": "email" } }
            }
        }
    })
}

#[tokio::test]
async fn payloads_violating_the_schema_are_422_with_paths_under_data() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.event_type(&key, "order.created", order_schema()).await;
    let c = h.consumer(&key, "acme").await;
    h.endpoint(&key, &c, &["order.created"]).await;

    let r = h
        .publish(
            &key,
            json!({
                "id": "evt-bad",
                "type": "order.created",
                "data": {
                    "order_id": "secret-order-value",
                    "total": -1,
                    "items": ["ok", 2],
                    "customer": { "email": 5 }
                }
            }),
        )
        .await;
    let p = r.problem(StatusCode::UNPROCESSABLE_ENTITY, "schema_violation");
    let fields: BTreeSet<String> = r.error_fields().into_iter().collect();
    let expected: BTreeSet<String> = [
        "/data/order_id",
        "/data/total",
        "/data/items/1",
        "/data/customer/email",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(fields, expected, "{p}");
    assert!(
        !r.text().contains("secret-order-value"),
        "the problem echoes payload values: {p}"
    );
    // A missing required field is reported at the object that lacks it.
    let r = h
        .publish(
            &key,
            json!({ "type": "order.created", "data": { "order_id": 1 } }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "schema_violation");
    assert_eq!(r.error_fields(), vec!["/data"]);
    let r = h
        .publish(&key, json!({ "type": "order.created", "data": [] }))
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "schema_violation");
    assert_eq!(r.error_fields(), vec!["/data"]);

    // Nothing was stored.
    h.get("/v1/events/evt-bad", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    let messages = h.get("/v1/messages", &key).await.expect(StatusCode::OK);
    assert!(ids_in(&messages).is_empty());
}

#[tokio::test]
async fn unknown_types_and_bad_fields_are_422() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let r = h
        .publish(&key, json!({ "type": "order.deleted", "data": {} }))
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "unknown_event_type");
    assert_eq!(r.error_fields(), vec!["/type"]);
    let cases: Vec<(Value, &str, &str)> = vec![
        (json!({ "id": "" }), "validation_failed", "/id"),
        (json!({ "id": "has space" }), "validation_failed", "/id"),
        (json!({ "id": "x".repeat(256) }), "validation_failed", "/id"),
        (json!({ "subject": "" }), "validation_failed", "/subject"),
        (
            json!({ "subject": "s".repeat(1025) }),
            "validation_failed",
            "/subject",
        ),
        (
            json!({ "ordering_key": "" }),
            "validation_failed",
            "/ordering_key",
        ),
        (
            json!({ "ttl_seconds": 0 }),
            "validation_failed",
            "/ttl_seconds",
        ),
        (
            json!({ "ttl_seconds": 30 * 24 * 3600 + 1 }),
            "validation_failed",
            "/ttl_seconds",
        ),
        (
            json!({ "traceparent": "nope" }),
            "validation_failed",
            "/traceparent",
        ),
        (
            json!({ "traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01" }),
            "validation_failed",
            "/traceparent",
        ),
        (
            json!({ "traceparent": "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01" }),
            "validation_failed",
            "/traceparent",
        ),
        (
            json!({ "consumer_id": "con_nope" }),
            "unknown_reference",
            "/consumer_id",
        ),
    ];
    for (extra, code, field) in cases {
        let mut body = json!({ "type": "order.created", "data": {} });
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let r = h.publish(&key, body.clone()).await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(r.error_fields(), vec![field], "{body}: {}", r.text());
    }
    // The limits themselves are accepted.
    h.publish(
        &key,
        json!({ "type": "order.created", "data": {}, "ttl_seconds": 30 * 24 * 3600,
                "id": "x".repeat(255), "subject": "s".repeat(1024) }),
    )
    .await
    .expect(StatusCode::ACCEPTED);
}

/// The endpoint ids of an event's messages.
async fn targets(h: &Harness, key: &str, event_id: &str) -> BTreeSet<String> {
    let ev = h
        .get(&format!("/v1/events/{event_id}"), key)
        .await
        .expect(StatusCode::OK);
    ev["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            assert_eq!(m["event_id"], event_id);
            assert_eq!(m["state"], "scheduled");
            m["endpoint_id"].as_str().unwrap().to_string()
        })
        .collect()
}

fn set(ids: &[&String]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

#[tokio::test]
async fn fan_out_follows_subscriptions_exactly() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    for t in ["order.created", "order.shipped", "order.paid"] {
        h.open_event_type(&key, t).await;
    }
    let c1 = h.consumer(&key, "one").await;
    let c2 = h.consumer(&key, "two").await;

    let created = h.endpoint(&key, &c1, &["order.created"]).await;
    assert_eq!(created["warnings"], json!([]));
    let e_created = id_of(&created);
    let e_both = id_of(
        &h.endpoint(&key, &c1, &["order.created", "order.shipped"])
            .await,
    );
    let wildcard = h.endpoint(&key, &c1, &["*"]).await;
    let warnings = wildcard["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{wildcard}");
    assert!(warnings[0].as_str().unwrap().contains('*'), "{wildcard}");
    let e_all = id_of(&wildcard);
    let empty = h.endpoint(&key, &c1, &[]).await;
    let warnings = empty["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{empty}");
    assert!(warnings[0].as_str().unwrap().contains("nothing"), "{empty}");
    let e_none = id_of(&empty);
    let e_shipped = id_of(&h.endpoint(&key, &c1, &["order.shipped"]).await);
    let dup = h
        .endpoint(&key, &c2, &["order.created", "order.created", "*"])
        .await;
    assert_eq!(dup["event_types"], json!(["order.created", "*"]));
    assert_eq!(dup["warnings"].as_array().unwrap().len(), 1);
    let e_c2 = id_of(&dup);
    let e_deleted = id_of(&h.endpoint(&key, &c2, &["order.created"]).await);
    h.delete(&format!("/v1/endpoints/{e_deleted}"), &key)
        .await
        .expect(StatusCode::NO_CONTENT);

    // Warnings are shown on reads too.
    for (id, n) in [(&e_all, 1), (&e_none, 1), (&e_created, 0)] {
        let ep = h
            .get(&format!("/v1/endpoints/{id}"), &key)
            .await
            .expect(StatusCode::OK);
        assert_eq!(ep["warnings"].as_array().unwrap().len(), n, "{ep}");
    }

    let cases: Vec<(Value, BTreeSet<String>)> = vec![
        (
            json!({ "type": "order.created", "data": {} }),
            set(&[&e_created, &e_both, &e_all, &e_c2]),
        ),
        (
            json!({ "type": "order.shipped", "data": {} }),
            set(&[&e_both, &e_all, &e_shipped, &e_c2]),
        ),
        (
            json!({ "type": "order.paid", "data": {} }),
            set(&[&e_all, &e_c2]),
        ),
        (
            json!({ "type": "order.created", "data": {}, "consumer_id": c2 }),
            set(&[&e_c2]),
        ),
        (
            json!({ "type": "order.shipped", "data": {}, "consumer_id": c1 }),
            set(&[&e_both, &e_all, &e_shipped]),
        ),
    ];
    for (body, expected) in cases {
        let p = h
            .publish(&key, body.clone())
            .await
            .expect(StatusCode::ACCEPTED);
        assert_eq!(p["duplicate"], false);
        assert_eq!(
            p["messages_created"].as_u64().unwrap() as usize,
            expected.len(),
            "{body}"
        );
        let got = targets(&h, &key, &id_of(&p)).await;
        assert_eq!(got, expected, "{body}");
        assert!(!got.contains(&e_none) && !got.contains(&e_deleted));
    }

    // Changing subscriptions changes the fan-out; `*` by PATCH warns too.
    let patched = h
        .patch(
            &format!("/v1/endpoints/{e_none}"),
            &key,
            json!({ "event_types": ["*"] }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(patched["warnings"].as_array().unwrap().len(), 1);
    let patched = h
        .patch(
            &format!("/v1/endpoints/{e_all}"),
            &key,
            json!({ "event_types": [] }),
        )
        .await
        .expect(StatusCode::OK);
    assert!(patched["warnings"][0].as_str().unwrap().contains("nothing"));
    let p = h
        .publish(&key, json!({ "type": "order.paid", "data": {} }))
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(targets(&h, &key, &id_of(&p)).await, set(&[&e_none, &e_c2]));
}

#[tokio::test]
async fn publishing_an_id_again_is_idempotent() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.event_type(&key, "order.created", order_schema()).await;
    let c = h.consumer(&key, "acme").await;
    h.endpoint(&key, &c, &["order.created"]).await;
    h.endpoint(&key, &c, &["*"]).await;

    let body = json!({ "id": "order-42", "type": "order.created",
                       "data": { "order_id": 42, "total": 1 } });
    let first = h
        .publish(&key, body.clone())
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(first["id"], "order-42");
    assert_eq!(first["duplicate"], false);
    assert_eq!(first["messages_created"], 2);

    // A new endpoint in between must not receive the replayed id.
    h.endpoint(&key, &c, &["order.created"]).await;
    h.clock.advance_millis(5_000);
    for again in [
        body.clone(),
        json!({ "id": "order-42", "type": "order.created",
                "data": { "order_id": 43, "total": 2 }, "subject": "other" }),
    ] {
        let r = h.publish(&key, again).await;
        let second = r.expect(StatusCode::OK);
        assert_eq!(second["duplicate"], true, "{second}");
        assert_eq!(second["messages_created"], 0);
        // The existing event, as first stored.
        for k in ["id", "type", "data", "created_at", "traceparent", "subject"] {
            assert_eq!(second[k], first[k], "{k}");
        }
    }
    let ev = h
        .get("/v1/events/order-42", &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(ev["messages"].as_array().unwrap().len(), 2);
    let all = h.get("/v1/messages", &key).await.expect(StatusCode::OK);
    assert_eq!(ids_in(&all).len(), 2);
}

#[tokio::test]
async fn data_is_stored_byte_for_byte() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let data = "{ \"z\" :1,\"a\":[1 , 2.50, 1.0e2, 12345678901234567890123],\n\t\"\u{e9}\\u00e9\":{\"y\":\"\\\"q\\\"\"} , \"a\":null }";
    // (a duplicate key, escapes, exponent, big integer, tabs and newlines)
    let body = format!("{{\"id\":\"evt-raw\",\"type\":\"order.created\",\"data\":   {data}   }}");
    let r = h.send(Method::POST, "/v1/events", Some(&key), body).await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.text());
    let expected = format!("\"data\":{data}");
    assert!(
        r.text().contains(&expected),
        "publish response changed the data: {}",
        r.text()
    );
    let read = h.get("/v1/events/evt-raw", &key).await;
    assert_eq!(read.status, StatusCode::OK);
    assert!(
        read.text().contains(&expected),
        "stored data changed: {}",
        read.text()
    );
}

fn assert_valid_traceparent(t: &str) {
    assert!(
        relay_core::traceparent::TraceParent::parse(t).is_ok(),
        "invalid generated traceparent {t}"
    );
    let parts: Vec<&str> = t.split('-').collect();
    assert_eq!(parts.len(), 4, "{t}");
    assert_eq!(parts[0], "00");
    assert_eq!(parts[1].len(), 32);
    assert_eq!(parts[2].len(), 16);
    assert!(
        t.bytes()
            .all(|b| b == b'-' || b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
        "{t}"
    );
    assert_ne!(parts[1], "0".repeat(32));
    assert_ne!(parts[2], "0".repeat(16));
}

#[tokio::test]
async fn trace_context_is_kept_or_generated() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let given = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let p = h
        .publish(
            &key,
            json!({ "id": "evt-t1", "type": "order.created", "data": {}, "traceparent": given }),
        )
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(p["traceparent"], given);
    let read = h
        .get("/v1/events/evt-t1", &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(read["traceparent"], given);

    let mut seen = BTreeSet::new();
    for i in 0..3 {
        let p = h
            .publish(
                &key,
                json!({ "id": format!("evt-g{i}"), "type": "order.created", "data": {} }),
            )
            .await
            .expect(StatusCode::ACCEPTED);
        let t = p["traceparent"].as_str().unwrap().to_string();
        assert_valid_traceparent(&t);
        let read = h
            .get(&format!("/v1/events/evt-g{i}"), &key)
            .await
            .expect(StatusCode::OK);
        assert_eq!(read["traceparent"], t.as_str());
        seen.insert(t);
    }
    assert_eq!(seen.len(), 3, "generated trace contexts repeat: {seen:?}");
    let r = h
        .publish(
            &key,
            json!({ "id": "evt-t2", "type": "order.created", "data": {}, "traceparent": "00-xyz" }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    assert_eq!(r.error_fields(), vec!["/traceparent"]);
    h.get("/v1/events/evt-t2", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
}

/// A predicate over a listed message.
type Check<'a> = Box<dyn Fn(&Value) -> bool + 'a>;

/// Walks every page of `path` (which has no `after`) with `limit`.
async fn all_pages(h: &Harness, key: &str, path: &str, limit: u32) -> (Vec<String>, usize) {
    let mut ids = Vec::new();
    let mut pages = 0;
    let sep = if path.contains('?') { '&' } else { '?' };
    let mut after: Option<String> = None;
    loop {
        let url = match &after {
            Some(a) => format!("{path}{sep}limit={limit}&after={a}"),
            None => format!("{path}{sep}limit={limit}"),
        };
        let page = h.get(&url, key).await.expect(StatusCode::OK);
        pages += 1;
        let got = ids_in(&page);
        assert!(got.len() <= limit as usize, "{url}: page too long");
        ids.extend(got);
        match page["next_after"].as_str() {
            Some(next) => {
                assert_eq!(Some(next), ids.last().map(String::as_str), "{url}");
                after = Some(next.to_string());
            }
            None => break,
        }
        assert!(pages < 100, "pagination does not end");
    }
    (ids, pages)
}

#[tokio::test]
async fn messages_list_with_filters_and_keyset_pagination() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    for t in ["order.created", "order.shipped"] {
        h.open_event_type(&key, t).await;
    }
    let c = h.consumer(&key, "acme").await;
    let e1 = id_of(&h.endpoint(&key, &c, &["order.created"]).await);
    let e2 = id_of(&h.endpoint(&key, &c, &["*"]).await);

    // Batch one at T0: 3 created (2 messages each) + 1 shipped (1 message).
    for i in 0..3 {
        h.publish(
            &key,
            json!({ "id": format!("c{i}"), "type": "order.created", "data": {} }),
        )
        .await
        .expect(StatusCode::ACCEPTED);
    }
    h.publish(
        &key,
        json!({ "id": "s0", "type": "order.shipped", "data": {} }),
    )
    .await
    .expect(StatusCode::ACCEPTED);
    // Batch two an hour later: 1 created, 1 shipped.
    h.clock.advance_millis(3_600_000);
    h.publish(
        &key,
        json!({ "id": "c9", "type": "order.created", "data": {} }),
    )
    .await
    .expect(StatusCode::ACCEPTED);
    h.publish(
        &key,
        json!({ "id": "s9", "type": "order.shipped", "data": {} }),
    )
    .await
    .expect(StatusCode::ACCEPTED);

    let everything = h
        .get("/v1/messages?limit=250", &key)
        .await
        .expect(StatusCode::OK);
    assert!(everything["next_after"].is_null());
    let all = ids_in(&everything);
    assert_eq!(all.len(), 3 * 2 + 1 + 2 + 1);
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "messages are listed in id order");
    let unique: BTreeSet<&String> = all.iter().collect();
    assert_eq!(unique.len(), all.len());

    // Keyset pagination covers everything exactly once, for several page sizes.
    for limit in [1, 3, 4, 10] {
        let (ids, pages) = all_pages(&h, &key, "/v1/messages", limit).await;
        assert_eq!(ids, all, "limit {limit}");
        assert!(pages >= all.len().div_ceil(limit as usize), "limit {limit}");
    }

    let half = Timestamp(T0.0 + 1_800_000).to_rfc3339();
    let filters: Vec<(String, usize, Check<'_>)> = vec![
        (
            format!("endpoint_id={e1}"),
            4,
            Box::new(|m: &Value| m["endpoint_id"] == e1.as_str()),
        ),
        (
            format!("endpoint_id={e2}"),
            6,
            Box::new(|m: &Value| m["endpoint_id"] == e2.as_str()),
        ),
        (
            "event_type=order.shipped".into(),
            2,
            Box::new(|m: &Value| m["event_type"] == "order.shipped"),
        ),
        (
            "event_id=c1".into(),
            2,
            Box::new(|m: &Value| m["event_id"] == "c1"),
        ),
        (
            "state=scheduled".into(),
            10,
            Box::new(|m: &Value| m["state"] == "scheduled"),
        ),
        ("state=delivered".into(), 0, Box::new(|_: &Value| false)),
        ("error_code=timeout".into(), 0, Box::new(|_: &Value| false)),
        (
            format!("since={half}"),
            3,
            Box::new(|m: &Value| m["event_id"].as_str().unwrap().ends_with('9')),
        ),
        (
            format!("until={half}"),
            7,
            Box::new(|m: &Value| !m["event_id"].as_str().unwrap().ends_with('9')),
        ),
        (
            format!("endpoint_id={e2}&event_type=order.created&since={half}"),
            1,
            Box::new(|m: &Value| m["event_id"] == "c9"),
        ),
        (
            format!("endpoint_id={e1}&event_type=order.shipped"),
            0,
            Box::new(|_: &Value| false),
        ),
        ("endpoint_id=ep_nope".into(), 0, Box::new(|_: &Value| false)),
    ];
    for (query, count, check) in &filters {
        let path = format!("/v1/messages?{}", query.replace('+', "%2B"));
        let (ids, _) = all_pages(&h, &key, &path, 2).await;
        assert_eq!(ids.len(), *count, "{query}");
        for id in &ids {
            let m = h
                .get(&format!("/v1/messages/{id}"), &key)
                .await
                .expect(StatusCode::OK);
            assert!(check(&m), "{query}: {m}");
        }
    }

    // One message and its (still empty) attempts.
    let m = h
        .get(&format!("/v1/messages/{}", all[0]), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(m["state"], "scheduled");
    assert_eq!(m["environment"], "live");
    assert_eq!(m["attempts_used"], 0);
    assert!(m["next_attempt_at"].is_string());
    let attempts = h
        .get(&format!("/v1/messages/{}/attempts", all[0]), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(attempts["data"], json!([]));
    h.get("/v1/messages/msg_nope", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    h.get("/v1/messages/msg_nope/attempts", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
}

#[tokio::test]
async fn undecodable_data_is_422_not_500() {
    // Found by the property test: serde_json accepts these as raw JSON text
    // but cannot decode them into a value.
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    for data in [
        r#"{"a":"\ud800"}"#,
        r#"{"a":"\udc00\ud800"}"#,
        r#"{"a":1e400}"#,
        r#"{"a":-1e400}"#,
    ] {
        let body = format!(r#"{{"type":"order.created","data":{data}}}"#);
        let r = h.send(Method::POST, "/v1/events", Some(&key), body).await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert_eq!(r.error_fields(), vec!["/data"], "{data}: {}", r.text());
    }
    // A valid surrogate pair is fine, and kept as sent.
    let r = h
        .send(
            Method::POST,
            "/v1/events",
            Some(&key),
            r#"{"type":"order.created","data":{"a":"\ud83d\ude00"}}"#,
        )
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.text());
    assert!(r.text().contains(r#""data":{"a":"\ud83d\ude00"}"#));
}
