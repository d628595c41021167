//! Destinations of every kind through the API: each kind's configuration
//! is checked at registration (through the guard), stored as given, and
//! refused with the kind's own codes.

mod common;

use axum::http::StatusCode;
use common::Harness;
use serde_json::{Value, json};

fn body(consumer_id: &str, destination: Value) -> Value {
    json!({
        "consumer_id": consumer_id,
        "destination": destination,
        "event_types": ["order.shipped"],
    })
}

#[tokio::test]
async fn a_redis_stream_endpoint_is_checked_and_stored_as_given() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let consumer = h.consumer(&key, "merchant-1").await;
    let redis = json!({
        "kind": "redis_stream", "host": "receiver.test", "port": 8443,
        "stream": "orders", "max_len": 1000
    });
    let created = h
        .post("/v1/endpoints", &key, body(&consumer, redis.clone()))
        .await
        .expect(StatusCode::CREATED);
    let id = created["id"].as_str().unwrap().to_string();
    let got = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(got["destination"]["kind"], "redis_stream");
    assert_eq!(got["destination"]["stream"], "orders");
    assert_eq!(got["destination"]["max_len"], 1000);
    assert_eq!(got["destination"]["tls"], false);

    let refused = [
        // A password is a secret reference, never the password itself.
        (json!({"password": "hunter2"}), "validation_failed"),
        // A reference resolves at registration, under the operator's policy.
        (json!({"password": "secret:redis-pw"}), "secret_not_found"),
        (
            json!({"password": "env:REDIS_PW"}),
            "secret_env_not_allowed",
        ),
        (
            json!({"password": "file:/run/secrets/redis"}),
            "secret_file_not_allowed",
        ),
        (json!({"username": "relay"}), "invalid_credentials"),
        (json!({"stream": ""}), "invalid_stream"),
        (json!({"database": 16}), "invalid_database"),
        (json!({"max_len": 0}), "invalid_max_len"),
        (json!({"port": 6379}), "port_not_allowed"),
        (json!({"host": "private.test"}), "blocked_address"),
    ];
    for (change, code) in refused {
        let mut d = redis.clone();
        for (k, v) in change.as_object().unwrap() {
            d[k] = v.clone();
        }
        let r = h.post("/v1/endpoints", &key, body(&consumer, d)).await;
        let problem = r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert!(
            !problem.to_string().contains("hunter2"),
            "a credential is never echoed: {problem}"
        );
    }
    // An unknown field is refused like any other shape error.
    let mut d = redis.clone();
    d["url"] = json!("https://receiver.test:8443/x");
    let r = h.post("/v1/endpoints", &key, body(&consumer, d)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn a_nats_jetstream_endpoint_is_checked_and_stored_as_given() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let consumer = h.consumer(&key, "merchant-1").await;
    let nats = json!({
        "kind": "nats_jetstream", "host": "receiver.test", "port": 8443,
        "subject": "orders.{environment}.{event_type}", "stream": "ORDERS"
    });
    let created = h
        .post("/v1/endpoints", &key, body(&consumer, nats.clone()))
        .await
        .expect(StatusCode::CREATED);
    let id = created["id"].as_str().unwrap().to_string();
    let got = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(got["destination"]["kind"], "nats_jetstream");
    assert_eq!(
        got["destination"]["subject"],
        "orders.{environment}.{event_type}"
    );
    assert_eq!(got["destination"]["stream"], "ORDERS");
    assert_eq!(got["destination"]["tls"], false);

    let refused = [
        // Credentials are secret references, never the values themselves.
        (json!({"password": "hunter2"}), "validation_failed"),
        (json!({"token": "hunter2"}), "validation_failed"),
        (json!({"token": "secret:nats-token"}), "secret_not_found"),
        (json!({"username": "relay"}), "invalid_credentials"),
        (json!({"subject": "orders.*"}), "invalid_subject"),
        (
            json!({"subject": "$JS.API.STREAM.DELETE.ORDERS"}),
            "invalid_subject",
        ),
        (json!({"stream": "a.b"}), "invalid_stream"),
        (json!({"port": 4222}), "port_not_allowed"),
        (json!({"host": "private.test"}), "blocked_address"),
    ];
    for (change, code) in refused {
        let mut d = nats.clone();
        for (k, v) in change.as_object().unwrap() {
            d[k] = v.clone();
        }
        let r = h.post("/v1/endpoints", &key, body(&consumer, d)).await;
        let problem = r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert!(
            !problem.to_string().contains("hunter2"),
            "a credential is never echoed: {problem}"
        );
    }
    let mut d = nats.clone();
    d["url"] = json!("nats://receiver.test:8443");
    let r = h.post("/v1/endpoints", &key, body(&consumer, d)).await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn a_rabbitmq_endpoint_is_checked_and_stored_as_given() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let consumer = h.consumer(&key, "merchant-1").await;
    let rabbit = json!({
        "kind": "rabbitmq", "host": "receiver.test", "port": 8443,
        "exchange": "orders", "routing_key": "{environment}.{event_type}"
    });
    let created = h
        .post("/v1/endpoints", &key, body(&consumer, rabbit.clone()))
        .await
        .expect(StatusCode::CREATED);
    let id = created["id"].as_str().unwrap().to_string();
    let got = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(got["destination"]["kind"], "rabbitmq");
    assert_eq!(got["destination"]["exchange"], "orders");
    assert_eq!(
        got["destination"]["routing_key"],
        "{environment}.{event_type}"
    );
    assert_eq!(got["destination"]["virtual_host"], "/", "the default");
    assert_eq!(got["destination"]["tls"], false);

    let refused = [
        // A password is a secret reference, never the password itself.
        (
            json!({"username": "relay", "password": "hunter2"}),
            "validation_failed",
        ),
        (
            json!({"username": "relay", "password": "secret:amqp-pw"}),
            "secret_not_found",
        ),
        (json!({"username": "relay"}), "invalid_credentials"),
        (
            json!({"password": "env:RELAY_SECRET_AMQP"}),
            "invalid_credentials",
        ),
        (json!({"virtual_host": ""}), "invalid_virtual_host"),
        (json!({"exchange": "e".repeat(256)}), "invalid_exchange"),
        (json!({"routing_key": "{subject}"}), "invalid_routing_key"),
        (json!({"port": 5672}), "port_not_allowed"),
        (json!({"host": "private.test"}), "blocked_address"),
    ];
    for (change, code) in refused {
        let mut d = rabbit.clone();
        for (k, v) in change.as_object().unwrap() {
            d[k] = v.clone();
        }
        let r = h.post("/v1/endpoints", &key, body(&consumer, d)).await;
        let problem = r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert!(
            !problem.to_string().contains("hunter2"),
            "a credential is never echoed: {problem}"
        );
    }
    let mut d = rabbit.clone();
    d.as_object_mut().unwrap().remove("exchange");
    let r = h.post("/v1/endpoints", &key, body(&consumer, d)).await;
    assert_eq!(
        r.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "the exchange is required"
    );
}

#[tokio::test]
async fn an_mqtt_endpoint_is_checked_and_stored_as_given() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let consumer = h.consumer(&key, "merchant-1").await;
    let mqtt = json!({
        "kind": "mqtt", "host": "receiver.test", "port": 8443,
        "topic": "relay/{environment}/{event_type}"
    });
    let created = h
        .post("/v1/endpoints", &key, body(&consumer, mqtt.clone()))
        .await
        .expect(StatusCode::CREATED);
    let id = created["id"].as_str().unwrap().to_string();
    let got = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(got["destination"]["kind"], "mqtt");
    assert_eq!(
        got["destination"]["topic"],
        "relay/{environment}/{event_type}"
    );
    assert_eq!(got["destination"]["protocol_version"], "5", "the default");
    assert_eq!(got["destination"]["content_mode"], "structured");

    let refused = [
        (
            json!({"username": "relay", "password": "hunter2"}),
            "validation_failed",
        ),
        (
            json!({"password": "env:RELAY_SECRET_MQTT"}),
            "invalid_credentials",
        ),
        (
            json!({"protocol_version": "3.1.1", "content_mode": "binary"}),
            "binary_needs_mqtt5",
        ),
        (json!({"protocol_version": "4"}), "validation_failed"),
        (json!({"topic": "relay/#"}), "invalid_topic"),
        (json!({"client_id": "has space"}), "invalid_client_id"),
        (json!({"port": 1883}), "port_not_allowed"),
        (json!({"host": "private.test"}), "blocked_address"),
    ];
    for (change, code) in refused {
        let mut d = mqtt.clone();
        for (k, v) in change.as_object().unwrap() {
            d[k] = v.clone();
        }
        let r = h.post("/v1/endpoints", &key, body(&consumer, d)).await;
        let problem = r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert!(
            !problem.to_string().contains("hunter2"),
            "a credential is never echoed: {problem}"
        );
    }
    let mut binary = mqtt.clone();
    binary["content_mode"] = "binary".into();
    h.post("/v1/endpoints", &key, body(&consumer, binary))
        .await
        .expect(StatusCode::CREATED);
}

#[tokio::test]
async fn an_https_endpoint_with_custom_headers_is_checked_and_stored_as_given() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let consumer = h.consumer(&key, "merchant-1").await;
    let headers = json!([{"name": "X-Tenant", "value": "acme"}]);
    let https = json!({
        "kind": "https", "url": "https://receiver.test:8443/hook", "headers": headers
    });
    let created = h
        .post("/v1/endpoints", &key, body(&consumer, https.clone()))
        .await
        .expect(StatusCode::CREATED);
    let id = created["id"].as_str().unwrap().to_string();
    let got = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(got["destination"]["headers"], headers);

    let refused = [
        // A secret header's value is a secret reference, never the value itself.
        (
            json!([{"name": "Authorization", "secret": "hunter2"}]),
            "validation_failed",
        ),
        (
            json!([{"name": "X-A", "value": "hunter2", "other": 1}]),
            "validation_failed",
        ),
        (
            json!([{"name": "X A", "value": "hunter2"}]),
            "invalid_header_name",
        ),
        (
            json!([{"name": "Host", "value": "hunter2"}]),
            "reserved_header",
        ),
        (
            json!([{"name": "Content-Type", "value": "hunter2"}]),
            "reserved_header",
        ),
        (
            json!([{"name": "webhook-signature", "value": "hunter2"}]),
            "reserved_header",
        ),
        (
            json!([{"name": "Relay-Attempt", "value": "hunter2"}]),
            "reserved_header",
        ),
        (
            json!([{"name": "X-A", "value": "hunter2\r\nX-B: c"}]),
            "invalid_header_value",
        ),
        (json!([{"name": "X-A"}]), "invalid_header_value"),
        (
            json!([{"name": "X-A", "value": "hunter2"}, {"name": "x-a", "value": "b"}]),
            "duplicate_header",
        ),
        (
            json!(
                (0..11)
                    .map(|i| json!({"name": format!("X-{i}"), "value": "hunter2"}))
                    .collect::<Vec<_>>()
            ),
            "too_many_headers",
        ),
    ];
    for (headers, code) in refused {
        let mut d = https.clone();
        d["headers"] = headers;
        let r = h.post("/v1/endpoints", &key, body(&consumer, d)).await;
        let problem = r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert!(
            !problem.to_string().contains("hunter2"),
            "a value is never echoed: {problem}"
        );
    }
}

/// A custom header's `secret` resolves at registration like any reference
/// (its pointer `/destination/headers`); answers hold the reference, never
/// the value.
#[tokio::test]
async fn an_https_header_secret_resolves_at_registration_and_is_never_answered() {
    const VALUE: &str = "Bearer hdr-s3cr3t-value";
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let consumer = h.consumer(&key, "merchant-1").await;
    let https = |reference: &str| {
        json!({
            "kind": "https", "url": "https://receiver.test:8443/hook",
            "headers": [{"name": "Authorization", "secret": reference}]
        })
    };
    let r = h
        .post(
            "/v1/endpoints",
            &key,
            body(&consumer, https("secret:hooks-token")),
        )
        .await;
    let problem = r.problem(StatusCode::UNPROCESSABLE_ENTITY, "secret_not_found");
    assert!(
        problem.to_string().contains("/destination/headers"),
        "{problem}"
    );
    h.put("/v1/secrets/hooks-token", &key, json!({ "value": VALUE }))
        .await
        .expect(StatusCode::CREATED);
    let created = h
        .post(
            "/v1/endpoints",
            &key,
            body(&consumer, https("secret:hooks-token")),
        )
        .await
        .expect(StatusCode::CREATED);
    let id = created["id"].as_str().unwrap().to_string();
    let got = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(
        got["destination"]["headers"],
        json!([{"name": "Authorization", "secret": "secret:hooks-token"}])
    );
    for answer in [created, got] {
        assert!(!answer.to_string().contains("s3cr3t"), "{answer}");
    }
}

#[tokio::test]
async fn a_kafka_endpoint_is_checked_and_stored_as_given() {
    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.shipped").await;
    let consumer = h.consumer(&key, "merchant-1").await;
    let kafka = json!({
        "kind": "kafka", "bootstrap": [{"host": "receiver.test", "port": 8443}],
        "topic": "orders-events"
    });
    let created = h
        .post("/v1/endpoints", &key, body(&consumer, kafka.clone()))
        .await
        .expect(StatusCode::CREATED);
    let id = created["id"].as_str().unwrap().to_string();
    // librdkafka's message.max.bytes (1,000,000) is below Relay's 1 MiB
    // delivery limit: the answer says what happens to a larger message.
    let capacity = |answer: &serde_json::Value| {
        answer["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|w| w.as_str())
            .find(|w| w.contains("payload_over_limit"))
            .map(str::to_string)
    };
    let w = capacity(&created).expect("a capacity warning at create");
    assert!(w.contains("1000000 bytes"), "{w}");
    assert!(w.contains("message.max.bytes"), "{w}");
    let updated = h
        .patch(
            &format!("/v1/endpoints/{id}"),
            &key,
            json!({"description": "orders"}),
        )
        .await
        .expect(StatusCode::OK);
    assert!(capacity(&updated).is_some(), "and at update: {updated}");
    let got = h
        .get(&format!("/v1/endpoints/{id}"), &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(got["destination"]["kind"], "kafka");
    assert_eq!(got["destination"]["topic"], "orders-events");
    assert_eq!(got["destination"]["content_mode"], "structured");
    assert_eq!(got["destination"]["tls"], false);

    let refused = [
        (
            json!({"sasl": {"mechanism": "PLAIN", "username": "relay", "password": "hunter2"}}),
            "validation_failed",
        ),
        (
            json!({"sasl": {"mechanism": "GSSAPI", "username": "relay", "password": "secret:k"}}),
            "validation_failed",
        ),
        (
            json!({"sasl": {"mechanism": "SCRAM-SHA-512", "username": "relay", "password": "secret:kafka-pw"}}),
            "secret_not_found",
        ),
        (
            json!({"tls": true, "client_certificate": "secret:kafka-cert"}),
            "invalid_credentials",
        ),
        (json!({"topic": "orders/events"}), "invalid_topic"),
        (json!({"topic": ".."}), "invalid_topic"),
        (json!({"bootstrap": []}), "invalid_bootstrap"),
        (
            json!({"bootstrap": [{"host": "receiver.test", "port": 9092}]}),
            "port_not_allowed",
        ),
        (
            json!({"bootstrap": [{"host": "private.test", "port": 8443}]}),
            "blocked_address",
        ),
    ];
    for (change, code) in refused {
        let mut d = kafka.clone();
        for (k, v) in change.as_object().unwrap() {
            d[k] = v.clone();
        }
        let r = h.post("/v1/endpoints", &key, body(&consumer, d)).await;
        let problem = r.problem(StatusCode::UNPROCESSABLE_ENTITY, code);
        assert!(
            !problem.to_string().contains("hunter2"),
            "a credential is never echoed: {problem}"
        );
    }
    let mut binary = kafka.clone();
    binary["content_mode"] = "binary".into();
    h.post("/v1/endpoints", &key, body(&consumer, binary))
        .await
        .expect(StatusCode::CREATED);
}
