//! Nothing a sender of an inbound webhook sends reaches the log unescaped,
//! and no source secret reaches it (issue 28). The only test of its binary:
//! `tracing` caches whether a callsite is enabled process-wide, so a test
//! that captures the log with a scoped subscriber must not share its
//! process with tests that log without one.

mod common;

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use common::{Harness, Resp};
use serde_json::json;
use sha2::{Digest, Sha256};

async fn receive(h: &Harness, path: &str, headers: &[(String, String)], body: &[u8]) -> Resp {
    let mut req = Request::builder().method(Method::POST).uri(path);
    for (k, v) in headers {
        req = req.header(k.as_str(), v.as_str());
    }
    h.request(req.body(Body::from(body.to_vec())).expect("request"))
        .await
}

fn hmac_sha256(key: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut k = [0u8; 64];
    k[..key.len()].copy_from_slice(key);
    let inner: Vec<u8> = k.iter().map(|b| b ^ 0x36).collect();
    let outer: Vec<u8> = k.iter().map(|b| b ^ 0x5c).collect();
    let ih = Sha256::new()
        .chain_update(&inner)
        .chain_update(msg)
        .finalize();
    Sha256::new()
        .chain_update(&outer)
        .chain_update(ih)
        .finalize()
        .to_vec()
}

/// A `tracing` writer into a shared buffer.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn nothing_a_sender_sends_reaches_the_log_unescaped() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let h = Harness::new().await;
    let (_, key) = h.tenant_with_key("acme", "live").await;
    let secret = "generic-secret";
    let s = h
        .post(
            "/v1/inbound-sources",
            &key,
            json!({"name": "g", "preset": "generic_hmac", "secret": secret,
                   "options": {"generic": {"header": "X-Signature", "event_id": "json:/id",
                                           "event_type": "json:/type"}}}),
        )
        .await
        .expect(StatusCode::CREATED);
    let path = s["path"].as_str().expect("path").to_string();
    // An event id and type with a newline, an escape sequence and a fake log line.
    let evil = "evt\n2027-01-15T08:00:00Z  INFO forged: \u{1b}[31mINJECTED\r";
    let body = json!({"id": evil, "type": evil, "note": "\u{7}\u{0}"}).to_string();
    let sig = hex::encode(hmac_sha256(secret.as_bytes(), body.as_bytes()));
    let hs = vec![
        ("x-signature".to_string(), sig),
        ("x-junk".to_string(), "tab\there".to_string()),
    ];
    for _ in 0..2 {
        receive(&h, &path, &hs, body.as_bytes())
            .await
            .expect(StatusCode::OK);
    }
    h.dispatcher.process_receipts_once().await.unwrap();
    // Refused ones, with the same body.
    let refused = receive(
        &h,
        &path,
        &[("x-signature".into(), "00".into())],
        body.as_bytes(),
    )
    .await;
    refused.problem(StatusCode::UNAUTHORIZED, "signature_no_match");
    assert!(
        !refused.text().contains("INJECTED"),
        "the answer echoes the sender"
    );
    // A body without the event id: refused, logged with its code only.
    let not_json = b"\x1b[31mINJECTED\nnot json";
    let sig = hex::encode(hmac_sha256(secret.as_bytes(), not_json));
    receive(&h, &path, &[("x-signature".into(), sig)], not_json)
        .await
        .problem(StatusCode::UNAUTHORIZED, "event_id_missing");

    let ledger = h.get("/v1/ledger", &key).await.expect(StatusCode::OK);
    assert_eq!(
        ledger["data"][0]["provider_event_id"], evil,
        "kept exactly, shown as JSON"
    );

    let text = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        text.contains("INJECTED") && text.contains("event_id_missing"),
        "the route logged the repeat's event id (escaped) and the refusals:\n{text}"
    );
    assert!(
        !text.contains('\u{1b}') && !text.contains('\r') && !text.contains('\u{7}'),
        "a control character reached the log:\n{}",
        text.escape_debug()
    );
    for line in text.lines() {
        assert!(
            !line.starts_with("2027-01-15T08:00:00Z  INFO forged"),
            "a sender forged a log line:\n{text}"
        );
    }
    assert!(
        !text.contains(secret),
        "the source's secret reached the log"
    );
}
