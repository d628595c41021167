//! The kind's parts that need no peer: the key's checks, secrets out of
//! `Debug` and records, what is never sent. (Against the emulator, with a
//! token endpoint that judges the assertion: relay-compliance's
//! `tests/pubsub.rs`.)

use relay_core::model::ContentMode;
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig};

use super::*;
use crate::test_message::prepared;

const KEY: &str = include_str!("testdata/unit-test-key.json");

fn destination() -> PubsubDestination {
    PubsubDestination {
        topic: "projects/relay-test/topics/events".into(),
        endpoint: "https://127.0.0.1:9".into(),
        service_account_key: Some(SecretRef::Secret("sa".into())),
        workload_identity: false,
        token_url: GOOGLE_TOKEN_URL.into(),
        ordered: true,
        content_mode: ContentMode::Structured,
    }
}

fn shared() -> Shared {
    Shared {
        https: HttpsClient::new(
            Guard::from_config(&OutboundConfig {
                allow_ports: vec![9],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![],
                allow_plaintext_credentials_to_loopback: false,
            })
            .unwrap(),
        ),
        clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
    }
}

fn secrets(key: &str) -> Secrets {
    let mut s = Secrets::new();
    s.insert(SecretRef::Secret("sa".into()), SecretValue::from(key));
    s
}

fn private_key() -> String {
    let v: serde_json::Value = serde_json::from_str(KEY).unwrap();
    v["private_key"].as_str().unwrap().to_string()
}

/// Neither the client's `Debug` nor a failed attempt's record shows the
/// key (its token URL is unreachable here: the attempt fails fetching the
/// token).
#[tokio::test]
async fn the_key_never_shows() {
    let mut d = destination();
    d.token_url = "https://127.0.0.1:9/token".into();
    let mut v: serde_json::Value = serde_json::from_str(KEY).unwrap();
    v["token_uri"] = d.token_url.clone().into();
    let client = Pubsub::build(&d, &shared(), &secrets(&v.to_string())).unwrap();
    let sent = Pubsub::deliver(
        &client,
        &prepared(ContentMode::Structured),
        Limits::default(),
    )
    .await;
    assert!(
        matches!(sent.result, Err(Failure::Token { .. })),
        "{sent:?}"
    );
    let record = Pubsub::record(&sent);
    assert_eq!(record.detail["oauth2"]["token_fetch_failed"], true);
    let shown = format!("{client:?} {sent:?} {record:?}");
    let pem = private_key();
    for line in pem.lines().filter(|l| !l.starts_with("-----")) {
        assert!(!shown.contains(line), "key material in {shown}");
    }
    assert!(!shown.contains("PRIVATE KEY"));
    assert!(shown.contains("relay-test/topics/events"));
    assert!(matches!(
        Pubsub::classify(&sent, Timestamp::from_millis(0)),
        Verdict::Retry { .. }
    ));
}

/// At registration the key must be a usable service account key whose
/// `token_uri` is the configured token URL; refusals name no part of it.
#[test]
fn the_key_is_checked_at_registration() {
    let d = destination();
    assert_eq!(Pubsub::check_values(&d, &secrets(KEY)), Ok(()));
    // Unresolved is the API's own refusal, not this check's.
    assert_eq!(Pubsub::check_values(&d, &Secrets::new()), Ok(()));
    let mut v: serde_json::Value = serde_json::from_str(KEY).unwrap();
    v["token_uri"] = "https://elsewhere.example/token".into();
    let e = Pubsub::check_values(&d, &secrets(&v.to_string())).unwrap_err();
    assert_eq!(
        (e.code, e.pointer),
        (
            "invalid_service_account_key",
            "/destination/service_account_key"
        )
    );
    assert!(Pubsub::build(&d, &shared(), &secrets(&v.to_string())).is_err());
    let e = Pubsub::check_values(&d, &secrets("{\"private_key\": \"MIIsecret\"}")).unwrap_err();
    assert!(!e.message.contains("MIIsecret"), "{}", e.message);
}

/// Attributes Pub/Sub cannot carry are never sent: dead-lettered, recorded.
#[tokio::test]
async fn unsendable_attributes_are_rejected_unsent() {
    let client = Pubsub::build(&destination(), &shared(), &secrets(KEY)).unwrap();
    let mut m = prepared(ContentMode::Structured);
    m.event_type = "t".repeat(1025);
    let sent = Pubsub::deliver(&client, &m, Limits::default()).await;
    assert!(matches!(sent.result, Err(Failure::Unsendable(_))));
    assert!(matches!(
        Pubsub::classify(&sent, Timestamp::from_millis(0)),
        Verdict::Rejected { .. }
    ));
    assert_eq!(Pubsub::record(&sent).detail["error"]["code"], "unsendable");
}

/// The size counted is the request's: data in base64, attributes, key.
#[test]
fn message_bytes_count_the_request() {
    let m = prepared(ContentMode::Structured);
    let d = destination();
    let n = Pubsub::message_bytes(&d, &m);
    assert_eq!(
        n,
        wire::message_bytes(
            m.body.len(),
            &wire::attributes(&m),
            wire::ordering_key(&m).as_deref()
        )
    );
    assert!(n > m.body.len() as u64 * 4 / 3);
    let unordered = PubsubDestination {
        ordered: false,
        ..destination()
    };
    assert_eq!(
        Pubsub::message_bytes(&unordered, &m),
        n - "order/1042".len() as u64
    );
}

/// The hosts its credentials go to: the endpoint's and the token URL's.
#[test]
fn credential_hosts_are_the_endpoint_and_the_token_url() {
    let g = shared().https.guard().clone();
    assert_eq!(
        Pubsub::credential_hosts(&destination(), &g),
        [
            "127.0.0.1:9".to_string(),
            "oauth2.googleapis.com:443".to_string()
        ]
        .into()
    );
}
