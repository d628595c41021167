//! What the API accepts is deliverable (issue 21, §3): a publish or a
//! consumer that could not make a valid CloudEvent is refused with a stable
//! problem code, by the same rule the envelope applies
//! (`relay_core::attributes`), instead of a `202` that ends dead-lettered.
//! Also the publish's `time`: stored, returned, bounded.

mod common;

use axum::http::StatusCode;
use common::*;
use relay_core::attributes::{self, MAX_SOURCE_LEN};
use relay_core::envelope::Envelope;
use relay_core::model::Environment;
use relay_core::time::Timestamp;
use serde_json::value::RawValue;
use serde_json::{Value, json};

const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// A tenant with an open `order.created` and one endpoint of one consumer.
async fn setup(h: &Harness) -> String {
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.created").await;
    let c = h.consumer(&key, "acme").await;
    h.endpoint(&key, &c, &["order.created"]).await;
    key
}

async fn nothing_published(h: &Harness, key: &str) {
    let messages = h.get("/v1/messages", key).await.expect(StatusCode::OK);
    assert!(ids_in(&messages).is_empty(), "{messages}");
}

#[tokio::test]
async fn a_subject_with_control_characters_is_refused() {
    let h = Harness::new().await;
    let key = setup(&h).await;
    for subject in [
        "a\nb",
        "tab\there",
        "cr\r",
        "nul\u{0}",
        "del\u{7f}",
        "c1\u{85}",
        "c1\u{9f}",
        "\u{1b}[31m",
    ] {
        let r = h
            .publish(
                &key,
                json!({ "type": "order.created", "subject": subject, "data": {} }),
            )
            .await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
        assert_eq!(r.error_fields(), vec!["/subject"], "{subject:?}");
    }
    nothing_published(&h, &key).await;
    // Unicode that is not a control character is a valid subject.
    for subject in ["a\u{2028}b", "tést ünïcode / 42", "\u{a0}nbsp", "emoji 😀"] {
        h.publish(
            &key,
            json!({ "type": "order.created", "subject": subject, "data": {} }),
        )
        .await
        .expect(StatusCode::ACCEPTED);
    }
}

#[tokio::test]
async fn a_source_that_is_not_a_uri_reference_is_refused_at_create_and_update() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let long = format!("/{}", "x".repeat(MAX_SOURCE_LEN));
    let bad = [
        "",
        "tenant/ü",
        "/consumers/a|b",
        "a#b#c",
        "/a\"b",
        "/a\\b",
        "/a{b}",
        "bad%zz",
        "has space",
        "/nl\n",
        "https://[not-ip]/x",
        long.as_str(),
    ];
    for (i, source) in bad.iter().enumerate() {
        let r = h
            .post(
                "/v1/consumers",
                &key,
                json!({ "external_id": format!("c{i}"), "source": source }),
            )
            .await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_source");
        assert_eq!(r.error_fields(), vec!["/source"], "{source:?}");
    }
    let listed = h.get("/v1/consumers", &key).await.expect(StatusCode::OK);
    assert!(ids_in(&listed).is_empty(), "{listed}");

    let c = h.consumer(&key, "acme").await;
    for source in bad {
        let r = h
            .patch(
                &format!("/v1/consumers/{c}"),
                &key,
                json!({ "source": source }),
            )
            .await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_source");
        assert_eq!(r.error_fields(), vec!["/source"], "{source:?}");
    }
    let kept = h
        .get(&format!("/v1/consumers/{c}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(kept["source"], "/consumers/acme");

    let longest = format!("/{}", "x".repeat(MAX_SOURCE_LEN - 1));
    for source in [
        "https://user@shop.example:8443/merchants/42?x=1#f",
        "urn:uuid:6e8bc430-9c3a-11d9-9669-0800200c9a66",
        "/a%20b/it's(ok)!*+,;=$&~",
        longest.as_str(),
    ] {
        let r = h
            .patch(
                &format!("/v1/consumers/{c}"),
                &key,
                json!({ "source": source }),
            )
            .await
            .expect(StatusCode::OK);
        assert_eq!(r["source"], source);
    }
}

#[tokio::test]
async fn an_external_id_that_makes_an_invalid_default_source_is_refused() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    // `|` is allowed in ids but not in a URI reference.
    let r = h
        .post("/v1/consumers", &key, json!({ "external_id": "acme|eu" }))
        .await;
    let p = r.problem(StatusCode::UNPROCESSABLE_ENTITY, "invalid_source");
    assert_eq!(r.error_fields(), vec!["/external_id"]);
    assert!(
        p["detail"]
            .as_str()
            .is_some_and(|d| d.contains("/consumers/acme|eu")),
        "{p}"
    );
    // With a source of its own, the id is fine.
    let c = h
        .post(
            "/v1/consumers",
            &key,
            json!({ "external_id": "acme|eu", "source": "/consumers/acme%7Ceu" }),
        )
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(c["source"], "/consumers/acme%7Ceu");
    // Every other character an id may have makes a valid default.
    let c = h
        .post(
            "/v1/consumers",
            &key,
            json!({ "external_id": "A-z_0.9:/@x" }),
        )
        .await
        .expect(StatusCode::CREATED);
    assert_eq!(c["source"], "/consumers/A-z_0.9:/@x");
}

#[tokio::test]
async fn time_is_stored_returned_and_bounded() {
    let h = Harness::new().await;
    let key = setup(&h).await;
    // Absent: now, which is also when it was accepted.
    let r = h
        .publish(
            &key,
            json!({ "id": "e0", "type": "order.created", "data": {} }),
        )
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(r["time"], T0.to_rfc3339());
    assert_eq!(r["time"], r["created_at"]);
    // Given with an offset and sub-millisecond digits: UTC, milliseconds.
    let r = h
        .publish(
            &key,
            json!({ "id": "e1", "type": "order.created", "data": {},
                    "time": "2020-01-01T01:00:00.123456+01:00" }),
        )
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(r["time"], "2020-01-01T00:00:00.123Z");
    assert_eq!(r["created_at"], T0.to_rfc3339());
    let ev = h.get("/v1/events/e1", &key).await.expect(StatusCode::OK);
    assert_eq!(ev["time"], "2020-01-01T00:00:00.123Z");
    // The bounds, inclusive.
    for (id, time) in [
        ("e2", "1970-01-01T00:00:00Z".to_string()),
        (
            "e3",
            T0.plus_millis(attributes::MAX_TIME_AHEAD_MILLIS)
                .to_rfc3339(),
        ),
    ] {
        let r = h
            .publish(
                &key,
                json!({ "id": id, "type": "order.created", "data": {}, "time": time }),
            )
            .await
            .expect(StatusCode::ACCEPTED);
        assert_eq!(r["time"], time);
    }
    let ahead = T0
        .plus_millis(attributes::MAX_TIME_AHEAD_MILLIS + 1)
        .to_rfc3339();
    let cases: Vec<(Value, &str)> = vec![
        (json!("yesterday"), "invalid_time"),
        (json!(""), "invalid_time"),
        (json!("2026-13-01T00:00:00Z"), "invalid_time"),
        (json!("2026-01-31T12:00:00"), "invalid_time"),
        (json!("2026-01-31T25:00:00Z"), "invalid_time"),
        (json!("1969-12-31T23:59:59.999Z"), "time_out_of_range"),
        (json!("0001-01-01T00:00:00Z"), "time_out_of_range"),
        (json!(ahead), "time_out_of_range"),
        (json!("9999-12-31T23:59:59Z"), "time_out_of_range"),
    ];
    for (i, (time, code)) in cases.into_iter().enumerate() {
        let r = h
            .publish(
                &key,
                json!({ "id": format!("bad{i}"), "type": "order.created", "data": {}, "time": time }),
            )
            .await;
        r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert_eq!(r.error_fields(), vec!["/time"], "{time}");
        h.get(&format!("/v1/events/bad{i}"), &key)
            .await
            .problem(StatusCode::NOT_FOUND, "not_found");
    }
    // Not a string at all: a shape error at the same field.
    let r = h
        .publish(
            &key,
            json!({ "type": "order.created", "data": {}, "time": 1_700_000_000 }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    assert_eq!(r.error_fields(), vec!["/time"]);
}

/// The bound the API applies to a publish of `{"pad":"x…"}` with `n` x's.
fn bound_for(n: usize, id: &str, time: Timestamp, subject: &str) -> usize {
    let data = RawValue::from_string(format!(r#"{{"pad":"{}"}}"#, "x".repeat(n))).unwrap();
    let schema = attributes::dataschema_uri("order.created", 1);
    attributes::delivered_len_bound(&Envelope {
        id,
        source: "",
        event_type: "order.created",
        time: Some(time),
        subject: Some(subject),
        dataschema: Some(&schema),
        data: Some(&data),
        seq: None,
        traceparent: Some(TP),
        environment: Some(Environment::Live),
        endpoint_version: None,
    })
    .unwrap()
}

#[tokio::test]
async fn an_envelope_over_the_delivery_limit_is_413_even_under_the_request_limit() {
    let h = Harness::new().await;
    let key = setup(&h).await;
    let limit = h.state.engine.max_payload_bytes();
    assert_eq!(
        limit, h.state.settings.max_request_bytes,
        "the harness keeps the two limits equal, as `relay serve` does"
    );
    let publish = |id: &str, n: usize| {
        json!({ "id": id, "type": "order.created", "subject": "order/1", "traceparent": TP,
                "time": T0.to_rfc3339(), "data": { "pad": "x".repeat(n) } })
    };
    // The largest payload that fits, and one byte more.
    let fits = limit - bound_for(0, "big-1", T0, "order/1");
    assert_eq!(bound_for(fits, "big-1", T0, "order/1"), limit);
    let over = publish("big-2", fits + 1);
    assert!(
        over.to_string().len() < h.state.settings.max_request_bytes,
        "the refused request is under the request limit"
    );
    let r = h.publish(&key, over).await;
    let p = r.problem(StatusCode::PAYLOAD_TOO_LARGE, "envelope_too_large");
    assert_eq!(r.error_fields(), vec!["/data"]);
    let detail = p["detail"].as_str().unwrap_or_default();
    assert!(detail.contains(&format!("{limit} bytes")), "{detail}");
    h.get("/v1/events/big-2", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");
    nothing_published(&h, &key).await;
    let r = h
        .publish(&key, publish("big-1", fits))
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(r["messages_created"], 1);
    // Over the request limit itself: the request's own 413.
    h.publish(&key, publish("big-3", limit))
        .await
        .problem(StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large");
}
