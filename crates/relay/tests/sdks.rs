//! Real deliveries from a running `relay serve`, verified with each verifier
//! SDK: `relay-verify` (Rust), `sdks/python` and `sdks/typescript` — during a
//! key rotation too (two signatures, either key alone verifies), and a
//! tampered body is refused by all three.
//!
//! The Python SDK runs from its source in the test environment's Python
//! (`RELAY_TEST_PYTHON`, which has its one dependency), the TypeScript SDK
//! from its build (`sdks/typescript/dist`); `scripts/test`, the README's test
//! command, makes both before it runs `cargo test`. Without either, or
//! without `node`, the test fails, saying what to run.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use base64::Engine;
use common::{curl, start};
use relay_receiver::{Receiver, ReceiverConfig, Recorded};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The interpreters and the TypeScript build the test needs; panics, saying
/// what to run, when one is missing.
fn sdks_available() -> PathBuf {
    let python = relay_receiver::judges::python();
    let ts = repo().join("sdks/typescript/dist/src/index.js");
    assert!(
        ts.exists(),
        "{} is missing: run `scripts/test` (or `npm --prefix sdks/typescript ci && \
         npm --prefix sdks/typescript run build`)",
        ts.display()
    );
    let node = Command::new("node").args(["-e", "0"]).output();
    assert!(
        node.as_ref().is_ok_and(|o| o.status.success()),
        "node is not usable ({node:?}): the TypeScript SDK needs Node.js 18 or later"
    );
    python
}

/// The request as JSON the Python and Node scripts read.
fn capture(r: &Recorded, body: &[u8]) -> Value {
    let headers: serde_json::Map<String, Value> =
        ["webhook-id", "webhook-timestamp", "webhook-signature"]
            .iter()
            .map(|h| (h.to_string(), json!(r.header(h).unwrap_or_default())))
            .collect();
    json!({
        "headers": headers,
        "body_b64": base64::engine::general_purpose::STANDARD.encode(body),
    })
}

const PYTHON: &str = r#"
import base64, json, sys
from relay_verify import Verifier
req = json.load(open(sys.argv[1]))
keys = json.loads(sys.argv[2])
try:
    Verifier(keys).verify(req["headers"], base64.b64decode(req["body_b64"]))
    print("ok")
except Exception as e:
    print("refused", type(e).__name__)
"#;

const NODE: &str = r#"
const fs = require("fs");
const { Verifier } = require(process.argv[1]);
const req = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const keys = JSON.parse(process.argv[3]);
try {
  new Verifier(keys).verify(req.headers, Buffer.from(req.body_b64, "base64"));
  console.log("ok");
} catch (e) {
  console.log("refused", e.code);
}
"#;

/// Verifies one captured request with the three SDKs; returns their answers.
fn verify_all(python: &Path, dir: &Path, r: &Recorded, body: &[u8], keys: &[&str]) -> [bool; 3] {
    let file = dir.join(format!("req-{}.json", r.seq));
    std::fs::write(&file, capture(r, body).to_string()).unwrap();
    let keys_json = serde_json::to_string(keys).unwrap();
    let rust = relay_verify::Verifier::new(keys.iter().copied())
        .unwrap()
        .verify(
            &relay_verify::SignatureHeaders {
                id: r.header("webhook-id").unwrap(),
                timestamp: r.header("webhook-timestamp").unwrap(),
                signature: r.header("webhook-signature").unwrap(),
            },
            body,
        )
        .is_ok();
    let py = Command::new(python)
        .args(["-c", PYTHON])
        .arg(&file)
        .arg(&keys_json)
        .env("PYTHONPATH", repo().join("sdks/python/src"))
        .output()
        .unwrap();
    let node = Command::new("node")
        .args(["-e", NODE])
        .arg(repo().join("sdks/typescript/dist/src/index.js"))
        .arg(&file)
        .arg(&keys_json)
        .output()
        .unwrap();
    let said_ok = |o: &std::process::Output| {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).trim() == "ok"
    };
    [rust, said_ok(&py), said_ok(&node)]
}

#[test]
fn every_sdk_verifies_real_deliveries_including_a_rotation() {
    let python = sdks_available();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let receiver = rt
        .block_on(Receiver::start(ReceiverConfig::default()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = receiver.port().to_string();
    let ca = receiver.ca_pem_path().to_str().unwrap().to_string();
    let relay = start(
        dir.path(),
        &[
            (
                "RELAY_OPERATOR_TOKEN",
                "rop_sdk_0f3c9a1e5b7d2f4a6c8e0b1d3f5a",
            ),
            ("RELAY_OUTBOUND__ALLOW_CIDRS", "127.0.0.1/32"),
            ("RELAY_OUTBOUND__ALLOW_PORTS", &port),
            ("RELAY_OUTBOUND__EXTRA_CA_CERTS", &ca),
        ],
    );
    let api = |method: &str, path: &str, token: &str, body: Option<Value>| -> Value {
        let (status, text) = curl(
            method,
            &format!("{}{path}", relay.url),
            token,
            body.map(|b| b.to_string()).as_deref(),
        );
        assert!(
            (200..300).contains(&status),
            "{method} {path}: {status} {text}"
        );
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };
    let tenant = api(
        "POST",
        "/v1/tenants",
        "rop_sdk_0f3c9a1e5b7d2f4a6c8e0b1d3f5a",
        Some(json!({"name": "acme"})),
    );
    let key = api(
        "POST",
        &format!("/v1/tenants/{}/api-keys", tenant["id"].as_str().unwrap()),
        "rop_sdk_0f3c9a1e5b7d2f4a6c8e0b1d3f5a",
        Some(json!({"environment": "live"})),
    )["key"]
        .as_str()
        .unwrap()
        .to_string();
    api(
        "PUT",
        "/v1/event-types/order.shipped",
        &key,
        Some(json!({"schema": {"type": "object"}})),
    );
    let consumer = api(
        "POST",
        "/v1/consumers",
        &key,
        Some(json!({"external_id": "m"})),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    let endpoint = |scheme: &str, path: &str| {
        api(
            "POST",
            "/v1/endpoints",
            &key,
            Some(json!({
                "consumer_id": consumer,
                "signature_scheme": scheme,
                "event_types": ["order.shipped"],
                "destination": {"kind": "https", "url": receiver.url(path)},
            })),
        )
    };
    let ed = endpoint("v1a", "/ed25519");
    let hmac = endpoint("v1", "/hmac");
    let old_pk = ed["public_key"].as_str().unwrap().to_string();
    let secret = hmac["secret"].as_str().unwrap().to_string();
    // Rotate the Ed25519 endpoint with an overlap: both keys sign, new first.
    let rotated = api(
        "POST",
        &format!("/v1/endpoints/{}/rotate-key", ed["id"].as_str().unwrap()),
        &key,
        Some(json!({"overlap_hours": 1})),
    );
    let new_pk = rotated["keys"][0]["public_key"]
        .as_str()
        .unwrap()
        .to_string();
    api(
        "POST",
        "/v1/events",
        &key,
        Some(json!({"type": "order.shipped", "consumer_id": consumer,
                    "data": {"order_id": "1042", "note": "ünïcødé"}})),
    );
    let got = rt
        .block_on(receiver.wait_for(2, Duration::from_secs(30)))
        .expect("both deliveries arrive");
    let by_path = |p: &str| got.iter().find(|r| r.path == p).unwrap().clone();
    let ed_req = by_path("/ed25519");
    let hmac_req = by_path("/hmac");
    let sig = ed_req.header("webhook-signature").unwrap();
    assert_eq!(
        sig.split(' ').count(),
        2,
        "two signatures during the overlap: {sig}"
    );
    assert!(sig.split(' ').all(|s| s.starts_with("v1a,")));

    let d = dir.path();
    for (label, keys) in [
        ("new key", vec![new_pk.as_str()]),
        ("old key", vec![old_pk.as_str()]),
        ("both keys", vec![new_pk.as_str(), old_pk.as_str()]),
    ] {
        assert_eq!(
            verify_all(&python, d, &ed_req, &ed_req.body, &keys),
            [true; 3],
            "v1a, {label}"
        );
    }
    assert_eq!(
        verify_all(&python, d, &hmac_req, &hmac_req.body, &[&secret]),
        [true; 3],
        "v1"
    );
    let mut tampered = hmac_req.body.to_vec();
    tampered[10] ^= 1;
    assert_eq!(
        verify_all(&python, d, &hmac_req, &tampered, &[&secret]),
        [false; 3],
        "tampered v1"
    );
    let mut tampered = ed_req.body.to_vec();
    tampered.push(b' ');
    assert_eq!(
        verify_all(&python, d, &ed_req, &tampered, &[&new_pk, &old_pk]),
        [false; 3],
        "tampered v1a"
    );
    // A key of the other endpoint never verifies.
    assert_eq!(
        verify_all(&python, d, &hmac_req, &hmac_req.body, &[&new_pk]),
        [false; 3]
    );
}
