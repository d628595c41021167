//! The Google Cloud Pub/Sub kind against the Pub/Sub emulator (one per
//! test process, `pubsub/emulator.rs`) behind a front door per test
//! (`scripts/judges/pubsub_front.py`: TLS with the test's own CA, trusted
//! through the operator's `extra_ca_certs`, the address allowed through
//! `allow_cidrs`; a token endpoint that verifies Relay's JWT assertion
//! with `google-auth`; the bearer tokens it issued checked on every
//! request; IAM's grant of a topic per account). What Relay published is
//! read back with the emulator's REST pull API (`pubsub/emulator_admin.py`).
//!
//! The emulator is the Google Cloud CLI's, not a registry's package: a
//! machine without it says SKIPPED, which CI (`RELAY_TEST_REQUIRE_ALL=1`)
//! makes a failure.
//!
//! The kind's client sends exactly as the engine calls it
//! (`relay_destinations::build`, `Client::deliver`, `classify`, `record`).

#[path = "pubsub/emulator.rs"]
mod emulator;
#[path = "common/listening.rs"]
mod listening;
#[path = "pubsub/peer.rs"]
mod peer;
#[path = "common/proxy.rs"]
mod proxy;
#[path = "pubsub/workload.rs"]
mod workload;

// The shared suite: a key the token endpoint refuses (retryable), an
// account without the topic's grant (permanent), hanging and down behind
// a loopback relay; binary mode's attributes read back by the peer.
relay_compliance::compliance_suite!(peer::PubsubPeer; binary);

use std::sync::Arc;
use std::time::Duration;

use relay_compliance::process::free_port;
use relay_core::model::{ContentMode, Environment, Event, SignatureScheme};
use relay_core::outcome::{FailureCode, OAuthError, Refusal, TokenFailure, Verdict};
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_core::signature::SigningKey;
use relay_core::time::{ManualClock, Timestamp};
use relay_core::transition::DeadLetterReason;
use relay_destinations::pubsub::{PubsubDestination, wire};
use relay_destinations::{Config, Input, Prepared, Shared};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig};
use serde_json::value::RawValue;

use emulator::{Account, Front};

const NOW: Timestamp = Timestamp::from_millis(1_800_000_000_000);

/// A front of its own (reached directly), or `None` after saying `SKIPPED`.
async fn front() -> Option<Front> {
    match emulator::shared() {
        Ok(e) => {
            let port = free_port();
            Some(Front::start(e, port, port, 3599).await)
        }
        Err(why) => {
            relay_store::testenv::skip("pubsub", &why);
            None
        }
    }
}

fn destination(f: &Front, topic: &str, mode: ContentMode, ordered: bool) -> PubsubDestination {
    PubsubDestination {
        topic: topic.into(),
        endpoint: f.url(),
        service_account_key: Some(SecretRef::Secret("sa".into())),
        workload_identity: false,
        token_url: f.token_url(),
        ordered,
        content_mode: mode,
    }
}

fn guard(f: &Front) -> Guard {
    Guard::from_config(&OutboundConfig {
        allow_ports: vec![f.public_port],
        allow_cidrs: vec!["127.0.0.1/32".into()],
        block_cidrs: vec![],
        extra_ca_certs: vec![f.ca_pem.clone()],
        allow_plaintext_credentials_to_loopback: false,
    })
    .expect("a guard")
}

fn secrets(account: &Account) -> Secrets {
    let mut s = Secrets::new();
    s.insert(
        SecretRef::Secret("sa".into()),
        SecretValue::new(std::fs::read(&account.file).unwrap()),
    );
    s
}

/// The endpoint's client with `account`'s key, on `clock`.
fn client_on(
    f: &Front,
    d: &PubsubDestination,
    account: &Account,
    clock: Arc<ManualClock>,
) -> relay_destinations::Client {
    relay_destinations::build(
        &Config::Pubsub(d.clone()),
        &Shared {
            https: HttpsClient::new(guard(f)),
            clock,
        },
        &secrets(account),
    )
    .expect("the key resolves and reads")
}

fn client(f: &Front, d: &PubsubDestination, account: &Account) -> relay_destinations::Client {
    client_on(f, d, account, Arc::new(ManualClock::default()))
}

/// Event `id` with `ordering_key`, prepared in `mode`.
fn message(id: &str, ordering_key: Option<&str>, mode: ContentMode) -> Prepared {
    let event = Event {
        id: id.into(),
        event_type: "order.shipped".into(),
        type_version: 1,
        environment: Environment::Live,
        subject: None,
        data: RawValue::from_string(format!(r#"{{"order_id":"{id}","note":"é\n☃"}}"#)).unwrap(),
        consumer_id: None,
        ordering_key: ordering_key.map(str::to_string),
        seq: None,
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
        expires_at: None,
        time: NOW,
        created_at: NOW,
    };
    relay_destinations::prepare(&Input {
        event: &event,
        source: "https://acme.example/merchants/42",
        keys: &[SigningKey::generate(SignatureScheme::V1, [5; 32])],
        attempt_number: 1,
        max_payload_bytes: 1 << 20,
        content_mode: mode,
        now: NOW,
        shaped: None,
    })
    .expect("prepared")
}

async fn send(
    c: &relay_destinations::Client,
    m: &Prepared,
) -> (Verdict, relay_destinations::Record) {
    let limits = Limits {
        connect_timeout: Duration::from_secs(5),
        total_timeout: Duration::from_secs(15),
        ..Limits::default()
    };
    let d = c.deliver(m, limits).await;
    (d.classify(NOW), d.record())
}

/// A structured message as the emulator's pull gives it: the data byte
/// for byte, every attribute as sent, the ordering key, the message id
/// Pub/Sub acknowledged with.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_is_its_data_and_attributes() {
    let Some(f) = front().await else { return };
    let d = destination(&f, &f.topic, ContentMode::Structured, true);
    let c = client(&f, &d, &f.relay);
    let msg = message("evt_1", Some("customer/7"), ContentMode::Structured);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    assert_eq!(record.detail["status_code"], 200);
    assert_eq!(record.detail["topic"], f.topic.as_str());
    assert_eq!(record.detail["oauth2"]["token_fetched"], true);
    assert!(record.destination.is_some_and(|a| a.ip().is_loopback()));

    let got = f.drain();
    assert_eq!(got.len(), 1, "{got:?}");
    let r = &got[0];
    assert_eq!(r.data, msg.body.to_vec());
    assert_eq!(record.detail["message_id"], r.message_id.as_str());
    assert_eq!(
        r.attributes,
        wire::attributes(&msg).into_iter().collect(),
        "every attribute, as sent"
    );
    assert_eq!(r.attributes["Content-Type"], "application/cloudevents+json");
    assert_eq!(r.ordering_key.as_deref(), Some("customer/7"));
}

/// Binary mode: the data is the event's `data`, every context attribute
/// an attribute `ce-<name>`, `Content-Type` the `datacontenttype`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_mode_is_the_binding() {
    let Some(f) = front().await else { return };
    let d = destination(&f, &f.topic, ContentMode::Binary, false);
    let c = client(&f, &d, &f.relay);
    let msg = message("evt_b", Some("customer/7"), ContentMode::Binary);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    let got = f.drain();
    assert_eq!(got.len(), 1);
    let data: serde_json::Value = serde_json::from_slice(&got[0].data).unwrap();
    assert_eq!(data["order_id"], "evt_b");
    for (name, value) in &msg.attributes {
        assert_eq!(got[0].attributes[&format!("ce-{name}")], *value, "{name}");
    }
    assert_eq!(got[0].attributes["ce-id"], "evt_b");
    assert_eq!(
        got[0].attributes["Content-Type"],
        got[0].attributes["ce-datacontenttype"]
    );
    assert_eq!(got[0].ordering_key, None, "not ordered: no orderingKey");
}

/// Ordered: the ordering key is the `orderingKey`; a subscription with
/// message ordering gives one key's messages in the order published.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ordering_keys_order_the_subscription() {
    let Some(f) = front().await else { return };
    let d = destination(&f, &f.topic, ContentMode::Structured, true);
    let c = client(&f, &d, &f.relay);
    let sent = [
        ("evt_1", Some("customer/7")),
        ("evt_2", Some("customer/8")),
        ("evt_3", Some("customer/7")),
        ("evt_4", None),
        ("evt_5", Some("customer/7")),
    ];
    for (id, key) in sent {
        let (verdict, record) = send(&c, &message(id, key, ContentMode::Structured)).await;
        assert_eq!(verdict, Verdict::Delivered, "{record:?}");
        assert_eq!(record.detail["oauth2"]["token_fetched"], id == "evt_1");
    }
    let got = f.drain();
    assert_eq!(got.len(), 5);
    let key_of = |id: &str| {
        got.iter()
            .find(|m| m.attributes["webhook-id"] == id)
            .unwrap()
            .ordering_key
            .clone()
    };
    assert_eq!(key_of("evt_2").as_deref(), Some("customer/8"));
    assert_eq!(key_of("evt_4"), None);
    let seven: Vec<&str> = got
        .iter()
        .filter(|m| m.ordering_key.as_deref() == Some("customer/7"))
        .map(|m| m.attributes["webhook-id"].as_str())
        .collect();
    assert_eq!(seven, ["evt_1", "evt_3", "evt_5"], "one key, in order");
}

fn rejected(r: Refusal) -> Verdict {
    Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(r),
    }
}

/// Refusals, each by the peer's own checks: a key the token endpoint's
/// `google-auth` does not verify (`400 invalid_grant`: retried, with a
/// health warning), an account not granted the topic (`403
/// PERMISSION_DENIED`: permanent), a topic that does not exist (the
/// emulator's `404 NOT_FOUND`: permanent, `unknown_target`). No key
/// material and no token reaches a record or the client's `Debug`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_classified_and_credentials_never_recorded() {
    let Some(f) = front().await else { return };
    let d = destination(&f, &f.topic, ContentMode::Structured, false);
    let msg = message("evt_r", None, ContentMode::Structured);

    let c = client(&f, &d, &f.wrong);
    let delivery = c.deliver(&msg, Limits::default()).await;
    let (verdict, record) = (delivery.classify(NOW), delivery.record());
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Token(TokenFailure::OAuth(OAuthError::InvalidGrant)),
            not_before: None,
        },
        "{record:?}"
    );
    assert!(delivery.health_warning().is_some());
    assert_eq!(record.detail["oauth2"]["error"], "invalid_grant");

    let c = client(&f, &d, &f.denied);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, rejected(Refusal::AuthRefused), "{record:?}");
    assert_eq!(record.detail["error"]["status"], "PERMISSION_DENIED");

    let gone = destination(&f, &f.missing_topic, ContentMode::Structured, false);
    let c = client(&f, &gone, &f.relay);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, rejected(Refusal::UnknownTarget), "{record:?}");
    assert_eq!(record.detail["error"]["status"], "NOT_FOUND");
    assert!(f.drain().is_empty(), "nothing was published");

    let relay_destinations::Client::Pubsub(kind_client) = &c else {
        unreachable!("a pubsub destination builds a pubsub client")
    };
    let shown = format!("{record:?} {} {kind_client:?}", record.detail);
    let secrets = f.secrets();
    assert!(secrets.len() > 3, "keys and tokens to look for");
    for secret in secrets {
        assert!(!shown.contains(&secret), "a secret in {shown}");
    }
}

/// The token is fetched once, reused until shortly before it expires by
/// the engine's clock, then fetched again; a token Pub/Sub no longer
/// takes (`401 UNAUTHENTICATED`) is forgotten and the publish made once
/// more with a new one, in the same attempt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_is_cached_refreshed_and_renewed_after_a_401() {
    let Some(f) = front().await else { return };
    let clock = Arc::new(ManualClock::default());
    clock.set(NOW);
    let d = destination(&f, &f.topic, ContentMode::Structured, false);
    let c = client_on(&f, &d, &f.relay, clock.clone());
    let fetched = |r: &relay_destinations::Record| r.detail["oauth2"]["token_fetched"] == true;

    let (v, r) = send(&c, &message("evt_1", None, ContentMode::Structured)).await;
    assert_eq!((v, fetched(&r)), (Verdict::Delivered, true), "{r:?}");
    clock.set(NOW.plus_seconds(3000));
    let (v, r) = send(&c, &message("evt_2", None, ContentMode::Structured)).await;
    assert_eq!(
        (v, fetched(&r)),
        (Verdict::Delivered, false),
        "cached: {r:?}"
    );
    // 3599 s less a minute: fetched again.
    clock.set(NOW.plus_seconds(3599 - 60));
    let (v, r) = send(&c, &message("evt_3", None, ContentMode::Structured)).await;
    assert_eq!(
        (v, fetched(&r)),
        (Verdict::Delivered, true),
        "refreshed: {r:?}"
    );
    assert_eq!(f.issued().len(), 2);

    f.revoke_tokens();
    let (v, r) = send(&c, &message("evt_4", None, ContentMode::Structured)).await;
    assert_eq!(v, Verdict::Delivered, "{r:?}");
    assert_eq!(r.detail["oauth2"]["retried_with_new_token"], true);
    assert_eq!(f.issued().len(), 3);
    let ids: Vec<String> = f
        .drain()
        .iter()
        .map(|m| m.attributes["webhook-id"].clone())
        .collect();
    assert_eq!(ids, ["evt_1", "evt_2", "evt_3", "evt_4"]);
}

/// Registration: the endpoint and the token URL through the guard (the
/// front's, allowed), the rules the guard does not know, and the key once
/// its reference resolves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_checks_the_endpoint_the_token_url_and_the_key() {
    let Some(f) = front().await else { return };
    let g = guard(&f);
    let d = destination(&f, &f.topic, ContentMode::Structured, true);
    relay_destinations::validate(&Config::Pubsub(d.clone()), &g)
        .await
        .expect("the front is allowed");
    let mut other_port = d.clone();
    other_port.endpoint = "https://127.0.0.1:1".into();
    let e = relay_destinations::validate(&Config::Pubsub(other_port), &g)
        .await
        .unwrap_err();
    assert_eq!(e.pointer, "/destination/endpoint", "{e:?}");
    let mut token_elsewhere = d.clone();
    token_elsewhere.token_url = "https://127.0.0.1:1/token".into();
    let e = relay_destinations::validate(&Config::Pubsub(token_elsewhere.clone()), &g)
        .await
        .unwrap_err();
    assert_eq!(e.pointer, "/destination/token_url", "{e:?}");
    let config = Config::Pubsub(d);
    relay_destinations::check_values(&config, &secrets(&f.relay)).expect("the key reads");
    // The key names another token URL than the destination's.
    let e = relay_destinations::check_values(
        &Config::Pubsub(PubsubDestination {
            token_url: "https://oauth2.googleapis.com/token".into(),
            ..destination(&f, &f.topic, ContentMode::Structured, false)
        }),
        &secrets(&f.relay),
    )
    .unwrap_err();
    assert_eq!(e.code, "invalid_service_account_key");
}
