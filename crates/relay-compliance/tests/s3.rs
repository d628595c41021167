//! The S3-compatible object storage kind against a real S3-compatible
//! server: a private moto server per test (`s3/moto.rs`) on loopback,
//! serving TLS with the test's own CA (trusted through the operator's
//! `extra_ca_certs`, the address allowed through `allow_cidrs`), checking
//! every request's Signature Version 4 against an access key of its own.
//! What Relay wrote is read back with boto3, an independent client
//! (`s3/moto_admin.py`), and judged by the judges: the object's signature
//! by the Standard Webhooks library, every line by the CloudEvents SDK and
//! JSON Schema.
//!
//! The kind's client writes a batch's object exactly as the engine calls
//! it (`relay_destinations::build`, `Client::deliver`, `classify`,
//! `record`).

#[path = "s3/engine.rs"]
mod engine;
#[path = "common/listening.rs"]
mod listening;
#[path = "s3/moto.rs"]
mod moto;
#[path = "common/moto.rs"]
mod moto_server;
#[path = "s3/peer.rs"]
mod peer;
#[path = "common/proxy.rs"]
mod proxy;

// The shared suite, each message a batch (an object) of its own: the
// service refusing a wrong secret (retryable), a deleted bucket
// (permanent), hanging and down behind a loopback relay.
relay_compliance::compliance_suite!(peer::S3Peer);

use std::time::Duration;

use relay_core::model::{Environment, Event, SignatureScheme};
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::sealed::MasterKey;
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_core::signature::SigningKey;
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_destinations::Config;
use relay_destinations::s3::batch;
use relay_destinations::s3::{S3Addressing, S3Batch, S3Compression, S3Destination};
use relay_destinations::{Input, Shared};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig};
use relay_receiver::judges::Judges;
use serde_json::value::RawValue;

use moto::{BUCKET, Moto};

const NOW: Timestamp = Timestamp::from_millis(1_800_000_000_000);

/// The private server, or `None` after saying `SKIPPED`.
async fn moto() -> Option<Moto> {
    Some(Moto::start(moto_server::python_or_skip("s3")?).await)
}

fn destination(m: &Moto, prefix: &str) -> S3Destination {
    S3Destination {
        bucket: BUCKET.into(),
        prefix: prefix.into(),
        region: "us-east-1".into(),
        endpoint_url: Some(m.url()),
        addressing: S3Addressing::Path,
        access_key_id: SecretRef::Secret("s3-key-id".into()),
        secret_access_key: SecretRef::Secret("s3-secret".into()),
        session_token: None,
        batch: S3Batch::default(),
        compression: S3Compression::None,
    }
}

fn guard(m: &Moto) -> Guard {
    m.server.guard()
}

/// The endpoint's client with `key_id` and `secret` as the credentials.
fn client(m: &Moto, d: &S3Destination, key_id: &str, secret: &str) -> relay_destinations::Client {
    let mut secrets = Secrets::new();
    secrets.insert(d.access_key_id.clone(), SecretValue::from(key_id));
    secrets.insert(d.secret_access_key.clone(), SecretValue::from(secret));
    relay_destinations::build(
        &Config::S3(d.clone()),
        &Shared {
            https: HttpsClient::new(guard(m)),
            clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
        },
        &secrets,
    )
    .expect("every reference resolved")
}

fn key() -> (SigningKey, String) {
    let master = MasterKey::from_bytes([9; 32]);
    let (_, key) = relay_store::keys::generate(&master, "ep_s3", SignatureScheme::V1, NOW);
    let whsec = match &key {
        SigningKey::Hmac(h) => h.expose_whsec(),
        SigningKey::Ed25519(_) => unreachable!("v1 is HMAC"),
    };
    (key, whsec)
}

/// The CloudEvents structured JSON of event `id`, as `prepare` makes it.
fn line(id: &str, key: &SigningKey) -> Vec<u8> {
    let event = Event {
        id: id.into(),
        event_type: "order.shipped".into(),
        type_version: 1,
        environment: Environment::Live,
        subject: Some("order/1042".into()),
        data: RawValue::from_string(format!(r#"{{"order_id":"{id}","note":"a\nb"}}"#)).unwrap(),
        consumer_id: None,
        ordering_key: None,
        seq: None,
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
        expires_at: None,
        time: NOW,
        created_at: NOW,
    };
    relay_destinations::prepare(&Input {
        event: &event,
        source: "https://acme.example/merchants/42",
        keys: std::slice::from_ref(key),
        attempt_number: 1,
        max_payload_bytes: 1 << 20,
        content_mode: Default::default(),
        now: NOW,
        shaped: None,
    })
    .expect("prepared")
    .body
    .to_vec()
}

fn sealed(batch_id: &str, ids: &[&str], key: &SigningKey) -> batch::Sealed {
    let lines: Vec<Vec<u8>> = ids.iter().map(|id| line(id, key)).collect();
    let object = batch::lines(lines.iter().map(|l| &l[..]));
    batch::seal(batch_id, NOW, object.into(), std::slice::from_ref(key))
}

async fn write(
    c: &relay_destinations::Client,
    s: &batch::Sealed,
) -> (Verdict, relay_destinations::Record) {
    let limits = Limits {
        connect_timeout: Duration::from_secs(5),
        total_timeout: Duration::from_secs(10),
        ..Limits::default()
    };
    let d = c
        .deliver(&batch::prepared(s, Environment::Live, 1), limits)
        .await;
    (d.classify(NOW), d.record())
}

fn retried(r: Refusal) -> Verdict {
    Verdict::Retry {
        code: FailureCode::Refused(r),
        not_before: None,
    }
}

/// A batch is one object named after the batch: its lines are the
/// messages' CloudEvents in order, each valid by the CloudEvents SDK and
/// schema; its metadata carries a signature the Standard Webhooks library
/// verifies over the object's bytes; writing the batch again writes the
/// same object (same name, same ETag).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_one_signed_object_of_cloudevents_lines() {
    let Some(m) = moto().await else { return };
    let (key, whsec) = key();
    let d = destination(&m, "relay/orders/");
    let c = client(&m, &d, &m.access_key_id, &m.secret_access_key);
    let s = sealed("bat_01JEXAMPLE", &["evt_1", "evt_2", "evt_3"], &key);
    let (verdict, record) = write(&c, &s).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    let expected_key = "relay/orders/2027/01/15/08/bat_01JEXAMPLE.jsonl";
    assert_eq!(record.detail["key"], expected_key);
    assert_eq!(record.detail["bucket"], BUCKET);
    assert_eq!(record.detail["status_code"], 200);
    assert!(record.destination.is_some_and(|a| a.ip().is_loopback()));
    let etag = record.detail["etag"].as_str().expect("an ETag").to_string();

    let objects = m.objects();
    assert_eq!(objects.len(), 1, "{objects:?}");
    let o = &objects[0];
    assert_eq!(o.key, expected_key);
    assert_eq!(o.etag, etag);
    assert_eq!(o.content_type, "application/x-ndjson");
    assert_eq!(o.body, s.object.to_vec());
    assert_eq!(o.metadata["webhook-id"], "bat_01JEXAMPLE");
    assert_eq!(o.metadata["webhook-timestamp"], s.webhook_timestamp);

    // Judged by libraries Relay's code takes no part in.
    let judges = Judges::find();
    let dir = tempfile::tempdir().unwrap();
    let request = dir.path().join("object.json");
    use base64::Engine as _;
    std::fs::write(
        &request,
        serde_json::json!({
            "headers": {
                "webhook-id": o.metadata["webhook-id"],
                "webhook-timestamp": o.metadata["webhook-timestamp"],
                "webhook-signature": o.metadata["webhook-signature"],
            },
            "body_b64": base64::engine::general_purpose::STANDARD.encode(&o.body),
        })
        .to_string(),
    )
    .unwrap();
    let now = NOW.unix_seconds().to_string();
    let (ok, out) = judges.run(
        "swh_judge.py",
        &["--secret", &whsec, "--now", &now, request.to_str().unwrap()],
    );
    assert!(ok, "{out}");
    let text = String::from_utf8(o.body.clone()).expect("UTF-8 lines");
    assert!(text.ends_with('\n'));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    for (i, l) in lines.iter().enumerate() {
        let event: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
        assert_eq!(
            event["id"],
            format!("evt_{}", i + 1),
            "in the batch's order"
        );
        let file = dir.path().join(format!("line{i}.json"));
        std::fs::write(&file, l).unwrap();
        let (ok, out) = judges.run("ce_validate.py", &["--structured", file.to_str().unwrap()]);
        assert!(ok, "{out}");
    }

    // The same batch again: the same object, byte for byte.
    let (verdict, again) = write(&c, &s).await;
    assert_eq!(verdict, Verdict::Delivered);
    assert_eq!(again.detail["key"], expected_key);
    assert_eq!(again.detail["etag"], etag.as_str());
    let objects = m.objects();
    assert_eq!(objects.len(), 1);
    assert_eq!(objects[0].body, s.object.to_vec());
}

/// A wrong secret is refused by the server's own signature check (`403
/// SignatureDoesNotMatch`: retried, `auth_refused`), and neither the key id
/// nor the secret reaches the record or the client's `Debug`; a bucket that
/// does not exist is permanent (`404 NoSuchBucket`, `unknown_target`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_classified_and_credentials_never_recorded() {
    let Some(m) = moto().await else { return };
    let (key, _) = key();
    let d = destination(&m, "");
    let s = sealed("bat_refused", &["evt_1"], &key);

    let wrong = client(&m, &d, &m.access_key_id, "not-the-secret-0123456789");
    let (verdict, record) = write(&wrong, &s).await;
    assert_eq!(verdict, retried(Refusal::AuthRefused), "{record:?}");
    assert_eq!(record.detail["status_code"], 403);
    assert_eq!(record.detail["error"]["code"], "SignatureDoesNotMatch");
    let relay_destinations::Client::S3(kind_client) = &wrong else {
        unreachable!("an s3 destination builds an s3 client")
    };
    let shown = format!("{record:?} {} {kind_client:?}", record.detail);
    for secret in [m.access_key_id.as_str(), "not-the-secret-0123456789"] {
        assert!(!shown.contains(secret), "a credential in {shown}");
    }

    let unknown = client(&m, &d, "AKIANOTAKEY000000000", &m.secret_access_key);
    let (verdict, record) = write(&unknown, &s).await;
    assert_eq!(verdict, retried(Refusal::AuthRefused), "{record:?}");
    assert!(!format!("{record:?}").contains("AKIANOTAKEY000000000"));

    let mut other = d.clone();
    other.bucket = "no-such-bucket".into();
    let c = client(&m, &other, &m.access_key_id, &m.secret_access_key);
    let (verdict, record) = write(&c, &s).await;
    assert_eq!(
        verdict,
        Verdict::Rejected {
            reason: DeadLetterReason::RejectedByDestination,
            code: FailureCode::Refused(Refusal::UnknownTarget),
        },
        "{record:?}"
    );
    assert_eq!(record.detail["error"]["code"], "NoSuchBucket");
    assert!(m.objects().is_empty(), "nothing was stored");
}

/// The server's certificate is verified against the host name: a guard
/// without the test's CA refuses the connection (`tls`, retried).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_certificate_is_verified() {
    let Some(m) = moto().await else { return };
    let (key, _) = key();
    let d = destination(&m, "");
    let guard = Guard::from_config(&OutboundConfig {
        extra_ca_certs: vec![],
        ..moto_server::outbound(m.port, &m.ca_pem)
    })
    .unwrap();
    let mut secrets = Secrets::new();
    secrets.insert(
        d.access_key_id.clone(),
        SecretValue::from(m.access_key_id.as_str()),
    );
    secrets.insert(
        d.secret_access_key.clone(),
        SecretValue::from(m.secret_access_key.as_str()),
    );
    let c = relay_destinations::build(
        &Config::S3(d),
        &Shared {
            https: HttpsClient::new(guard),
            clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
        },
        &secrets,
    )
    .unwrap();
    let (verdict, record) = write(&c, &sealed("bat_tls", &["evt_1"], &key)).await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Transport(relay_core::outcome::TransportError::Tls),
            not_before: None,
        },
        "{record:?}"
    );
    assert!(m.objects().is_empty());
}
