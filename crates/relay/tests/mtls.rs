//! Mutual TLS end to end: `relay serve` delivering to a receiver that
//! requires client certificates of its own CA (`relay-receiver`'s mutual
//! TLS mode, on loopback through the operator's allow list). The
//! endpoint's chain and key are tenant secrets. The right certificate is
//! delivered (the receiver records which); an endpoint without one and an
//! endpoint with another CA's fail as TLS errors, retried and recorded; a
//! replaced secret is presented from the next attempt on; registration
//! refuses values that are no identity; and the private key never appears
//! in the log, an attempt record or an API answer.

mod harness;

use std::sync::Arc;
use std::time::{Duration, Instant};

use harness::{EVENT_TYPE, Settings, Sink, eventually, id_of, start, tenant};
use relay_receiver::{ReceiverConfig, TestCa};
use serde_json::{Value, json};

/// The base64 lines of a PEM text (what would show if it leaked).
fn pem_lines(pem: &str) -> Vec<String> {
    pem.lines()
        .filter(|l| !l.starts_with("-----") && l.len() >= 16)
        .map(str::to_string)
        .collect()
}

fn endpoint_body(consumer: &str, url: &str, auth: Value) -> Value {
    json!({
        "consumer_id": consumer,
        "destination": {"kind": "https", "url": url, "auth": auth},
        "event_types": [EVENT_TYPE],
        "snapshot_fields": ["*"],
    })
}

fn certificate(chain: &str, key: &str) -> Value {
    json!({"client_certificate": {"chain": chain, "key": key}})
}

#[test]
fn mutual_tls_end_to_end() {
    let clients = Arc::new(TestCa::generate_named("Relay e2e client CA"));
    let sink = Sink::start_with(ReceiverConfig {
        client_ca: Some(Arc::clone(&clients)),
        ..ReceiverConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let relay = start(
        &Settings::new(dir.path(), &sink)
            .env("RELAY_LOG", "debug")
            .env("RELAY_LOG_FORMAT", "json"),
    );
    let t = tenant(&relay.url, "mtls");
    let api = &t.api;
    let right = clients.client_cert("relay-right");
    let next = clients.client_cert("relay-next");
    let other = TestCa::generate_named("Another CA").client_cert("relay-wrong");
    for (name, value) in [
        ("hooks-chain", right.chain_pem()),
        ("hooks-key", right.key_pem().to_string()),
        ("wrong-chain", other.chain_pem()),
        ("wrong-key", other.key_pem().to_string()),
    ] {
        api.expect(
            "PUT",
            &format!("/v1/secrets/{name}"),
            Some(&json!({ "value": value })),
            201,
        );
    }
    let url = |path: &str| sink.receiver.url(path);
    let mut answers = Vec::new();

    // Registration: references that resolve to no identity are refused,
    // by field, without the values.
    for (auth, code, pointer) in [
        (
            certificate("secret:hooks-key", "secret:hooks-key"),
            "invalid_client_certificate",
            "/destination/auth/client_certificate/chain",
        ),
        (
            certificate("secret:hooks-chain", "secret:hooks-chain"),
            "invalid_client_key",
            "/destination/auth/client_certificate/key",
        ),
        (
            certificate("secret:hooks-chain", "secret:wrong-key"),
            "client_key_mismatch",
            "/destination/auth/client_certificate/key",
        ),
        (
            certificate("secret:no-such", "secret:hooks-key"),
            "secret_not_found",
            "/destination/auth/client_certificate/chain",
        ),
    ] {
        let p = api.expect(
            "POST",
            "/v1/endpoints",
            Some(&endpoint_body(&t.consumer_id, &url("/x"), auth)),
            422,
        );
        assert_eq!(p["code"], code, "{p}");
        assert_eq!(p["errors"][0]["field"], pointer, "{p}");
        answers.push(p.to_string());
    }
    // The PEM itself where a reference belongs: refused, not echoed.
    let p = api.expect(
        "POST",
        "/v1/endpoints",
        Some(&endpoint_body(
            &t.consumer_id,
            &url("/x"),
            certificate(&right.chain_pem(), right.key_pem()),
        )),
        422,
    );
    answers.push(p.to_string());

    let good = api.expect(
        "POST",
        "/v1/endpoints",
        Some(&endpoint_body(
            &t.consumer_id,
            &url("/good"),
            certificate("secret:hooks-chain", "secret:hooks-key"),
        )),
        201,
    );
    answers.push(good.to_string());
    assert_eq!(
        good["destination"]["auth"],
        certificate("secret:hooks-chain", "secret:hooks-key"),
        "the answer holds the references"
    );
    let none = api.expect(
        "POST",
        "/v1/endpoints",
        Some(&endpoint_body(&t.consumer_id, &url("/none"), Value::Null)),
        201,
    );
    let wrong = api.expect(
        "POST",
        "/v1/endpoints",
        Some(&endpoint_body(
            &t.consumer_id,
            &url("/wrong"),
            certificate("secret:wrong-chain", "secret:wrong-key"),
        )),
        201,
    );

    api.publish("evt_mtls_1", "order/1").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    sink.wait_count(1, deadline)
        .expect("the mutual TLS delivery");
    let seen = sink.receiver.requests_to("/good");
    assert_eq!(seen.len(), 1);
    assert_eq!(
        seen[0].client_cert_sha256.as_deref(),
        Some(right.sha256_hex().as_str())
    );

    // No certificate, and another CA's: TLS errors, recorded, retried (the
    // schedule's second attempt, 5 s later, fails the same way).
    let deadline = Instant::now() + Duration::from_secs(60);
    for endpoint in [&none, &wrong] {
        let id = id_of(endpoint);
        let (m, attempts) = eventually("two TLS failures recorded", deadline, || {
            let messages = api.get(&format!("/v1/messages?endpoint_id={id}"));
            let m = messages["data"].get(0)?.clone();
            let attempts = api.get(&format!("/v1/messages/{}/attempts", id_of(&m)));
            (attempts["data"].as_array()?.len() >= 2).then_some((m, attempts))
        });
        for a in attempts["data"].as_array().unwrap() {
            assert_eq!(a["error_kind"], "tls", "{a}");
            assert_eq!(a["error_code"], "tls", "{a}");
            assert_eq!(a["outcome"], "retry", "{a}");
        }
        let m = api.get(&format!("/v1/messages/{}", id_of(&m)));
        assert!(
            m["state"] == "scheduled" || m["state"] == "in_flight",
            "still retried: {m}"
        );
        answers.push(attempts.to_string());
        answers.push(m.to_string());
    }
    assert!(sink.receiver.requests_to("/none").is_empty());
    assert!(sink.receiver.requests_to("/wrong").is_empty());
    assert!(sink.receiver.tls_failures() >= 2);

    // A replaced certificate is presented from the next attempt on.
    for (name, value) in [
        ("hooks-chain", next.chain_pem()),
        ("hooks-key", next.key_pem().to_string()),
    ] {
        api.expect(
            "PUT",
            &format!("/v1/secrets/{name}"),
            Some(&json!({ "value": value })),
            200,
        );
    }
    api.publish("evt_mtls_2", "order/2").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    eventually("the second delivery", deadline, || {
        (sink.receiver.requests_to("/good").len() == 2).then_some(())
    });
    let seen = sink.receiver.requests_to("/good");
    assert_eq!(
        seen[1].client_cert_sha256.as_deref(),
        Some(next.sha256_hex().as_str()),
        "the new certificate"
    );

    for path in [
        format!("/v1/endpoints/{}", id_of(&good)),
        "/v1/endpoints".to_string(),
        "/v1/secrets".to_string(),
        "/v1/secrets/hooks-key".to_string(),
        format!("/v1/messages?endpoint_id={}", id_of(&good)),
    ] {
        answers.push(api.get(&path).to_string());
    }
    let good_messages = api.get(&format!("/v1/messages?endpoint_id={}", id_of(&good)));
    for m in good_messages["data"].as_array().unwrap() {
        answers.push(
            api.get(&format!("/v1/messages/{}/attempts", id_of(m)))
                .to_string(),
        );
    }
    let log = relay.log_text();
    assert!(log.contains("attempt finished"), "the log was captured");
    for key in [right.key_pem(), next.key_pem(), other.key_pem()] {
        for line in pem_lines(key) {
            assert!(!log.contains(&line), "a private key in the log");
            for a in &answers {
                assert!(!a.contains(&line), "a private key in an answer: {a}");
            }
        }
    }
    relay.assert_no_panic();
}
