//! The receiver's captured requests, judged by the judges.
//!
//! A CloudEvents request is built and signed here with relay-core, POSTed to
//! a [`Receiver`] over TLS, and the recorded request is written as judge
//! JSON and handed to `scripts/judges/swh_judge.py` (Standard Webhooks `v1`
//! with the PyPI `standardwebhooks` library, `v1a` with `cryptography`) and
//! `ce_validate.py` (the CloudEvents SDK, the official JSON Schema and the
//! spec's rules). A tampered body must be rejected.
//!
//! The judges run in the test environment `scripts/test` makes
//! (`RELAY_TEST_PYTHON`); without it the test fails, saying so.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use common::{Conn, connect, read_body};
use relay_core::envelope::{CONTENT_TYPE, Envelope};
use relay_core::model::{Environment, SignatureScheme};
use relay_core::signature::{SigningKey, sign_request};
use relay_core::time::Timestamp;
use relay_receiver::{Judges, Receiver, ReceiverConfig, Recorded};
use serde_json::value::RawValue;

const WAIT: Duration = Duration::from_secs(10);

fn now() -> Timestamp {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis();
    Timestamp::from_millis(i64::try_from(ms).expect("fits"))
}

/// A structured-mode CloudEvents body as Relay builds it.
fn cloudevent(id: &str, amount: u32) -> Vec<u8> {
    let data = RawValue::from_string(format!(r#"{{"id":"inv_123","amount":{amount}}}"#))
        .expect("raw JSON");
    Envelope {
        id,
        source: "https://relay.test/consumers/acme",
        event_type: "com.example.invoice.paid",
        time: Some(now()),
        subject: Some("inv_123"),
        dataschema: Some("https://relay.test/schemas/com.example.invoice.paid/1"),
        data: Some(&data),
        seq: Some(42),
        traceparent: Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        environment: Some(Environment::Live),
        endpoint_version: None,
    }
    .to_json()
    .expect("valid envelope")
}

/// POSTs `sent` with the signature headers of `signed` (made with `keys`)
/// and returns what the receiver recorded.
async fn deliver(
    receiver: &Receiver,
    conn: &mut Conn,
    keys: &[SigningKey],
    id: &str,
    signed: &[u8],
    sent: &[u8],
) -> Recorded {
    let h = sign_request(keys, id, now(), signed);
    let response = conn
        .send(
            "POST",
            "/hooks/judged",
            &[
                ("content-type", CONTENT_TYPE),
                ("webhook-id", &h.webhook_id),
                ("webhook-timestamp", &h.webhook_timestamp),
                ("webhook-signature", &h.webhook_signature),
            ],
            Bytes::copy_from_slice(sent),
        )
        .await
        .expect("response");
    assert_eq!(response.status(), 200);
    read_body(response).await;
    let n = receiver.count() as usize;
    let requests = receiver.wait_for(n, WAIT).await.expect("recorded");
    let recorded = requests.last().expect("a request").clone();
    assert_eq!(recorded.body, sent);
    recorded
}

#[tokio::test]
async fn captured_requests_satisfy_the_outside_judges() {
    let judges = Judges::find();
    let hmac = SigningKey::generate(SignatureScheme::V1, [0x11; 32]);
    let ed = SigningKey::generate(SignatureScheme::V1a, [0x22; 32]);
    let SigningKey::Hmac(secret) = &hmac else {
        panic!("not HMAC")
    };
    let SigningKey::Ed25519(ed_key) = &ed else {
        panic!("not Ed25519")
    };
    let whsec = secret.expose_whsec();
    let whpk = ed_key.public_key().to_whpk();
    let receiver = Receiver::start(ReceiverConfig {
        verify: Some(vec![hmac.verification_key(), ed.verification_key()]),
        ..ReceiverConfig::default()
    })
    .await
    .expect("receiver");
    let mut conn = connect(&receiver, "localhost").await;

    for (scheme, key, secret_arg) in [("v1", &hmac, &whsec), ("v1a", &ed, &whpk)] {
        let id = format!("evt_judged_{scheme}");
        let body = cloudevent(&id, 100);
        let keys = std::slice::from_ref(key);
        let good = deliver(&receiver, &mut conn, keys, &id, &body, &body).await;
        assert_eq!(good.signature_valid, Some(true), "{scheme}");
        let (ok, out) = judges.judge("swh_judge.py", &["--secret", secret_arg], &good);
        assert!(
            ok,
            "{scheme}: the signature judge rejects a good request\n{out}"
        );
        let (ok, out) = judges.judge("ce_validate.py", &[], &good);
        assert!(
            ok,
            "{scheme}: the CloudEvents judge rejects the event\n{out}"
        );

        // Same headers, body changed after signing.
        let tampered = cloudevent(&id, 999);
        let bad = deliver(&receiver, &mut conn, keys, &id, &body, &tampered).await;
        assert_eq!(bad.signature_valid, Some(false), "{scheme}");
        let (ok, out) = judges.judge("swh_judge.py", &["--secret", secret_arg], &bad);
        assert!(
            !ok,
            "{scheme}: the signature judge accepts a tampered body\n{out}"
        );
    }

    // Both schemes in one header, each judged with its own key.
    let id = "evt_judged_both";
    let body = cloudevent(id, 7);
    let both = deliver(
        &receiver,
        &mut conn,
        &[ed.clone(), hmac.clone()],
        id,
        &body,
        &body,
    )
    .await;
    let (ok, out) = judges.judge(
        "swh_judge.py",
        &["--secret", &whsec, "--secret", &whpk],
        &both,
    );
    assert!(ok, "rotation header rejected\n{out}");

    // A body that is not UTF-8 travels as body_b64 and still verifies.
    let binary = [0xffu8, 0x00, 0xc3, 0x28, b'x'];
    let raw = deliver(
        &receiver,
        &mut conn,
        std::slice::from_ref(&ed),
        "evt_binary",
        &binary,
        &binary,
    )
    .await;
    assert!(raw.to_judge_json().contains("\"body_b64\""));
    let (ok, out) = judges.judge("swh_judge.py", &["--secret", &whpk], &raw);
    assert!(ok, "body_b64 request rejected\n{out}");

    // The judges really judge: a wrong key is rejected too.
    let other = SigningKey::generate(SignatureScheme::V1a, [0x33; 32]);
    let SigningKey::Ed25519(other) = &other else {
        panic!("not Ed25519")
    };
    let (ok, out) = judges.judge(
        "swh_judge.py",
        &["--secret", &other.public_key().to_whpk()],
        &raw,
    );
    assert!(!ok, "a wrong key was accepted\n{out}");
    assert_eq!(receiver.invalid_signatures(), 2);
}
