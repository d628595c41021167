//! The Amazon SNS kind against moto's server: a private one per test
//! (`sns/moto.rs`, on the harness of `common/moto.rs`) on loopback,
//! serving TLS with the test's own CA (trusted through the operator's
//! `extra_ca_certs`, the address allowed through `allow_cidrs`), checking
//! every request's Signature Version 4 and the signing user's IAM policy.
//! Each topic has an SQS queue subscribed with raw message delivery; what
//! Relay published is read back from it with boto3, an independent client
//! (`sns/moto_admin.py`).
//!
//! The kind's client publishes exactly as the engine calls it
//! (`relay_destinations::build`, `Client::deliver`, `classify`, `record`).

#[path = "common/listening.rs"]
mod listening;
#[path = "sns/moto.rs"]
mod moto;
#[path = "common/moto.rs"]
mod moto_server;
#[path = "sns/peer.rs"]
mod peer;
#[path = "common/proxy.rs"]
mod proxy;

// The shared suite on the standard topic: a wrong secret (retryable), a
// user without sns:Publish (permanent), hanging and down behind a loopback
// relay; binary mode's attributes undone by the peer.
relay_compliance::compliance_suite!(peer::SnsPeer; binary);

use relay_core::model::ContentMode;
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::aws::Credentials;
use relay_destinations::sns::{SnsDestination, wire};
use relay_destinations::{Config, Shared};
use relay_net::HttpsClient;

use moto::{FIFO_TOPIC, Key, Moto, TOPIC};
use moto_server::{message, rejected, send};

/// The private server, or `None` after saying `SKIPPED`.
async fn moto() -> Option<Moto> {
    Some(Moto::start(moto_server::python_or_skip("sns")?).await)
}

fn destination(m: &Moto, topic_arn: String, mode: ContentMode) -> SnsDestination {
    SnsDestination {
        topic_arn,
        endpoint_url: Some(m.url()),
        credentials: Credentials::keys(
            SecretRef::Secret("sns-key-id".into()),
            SecretRef::Secret("sns-secret".into()),
        ),
        content_mode: mode,
        max_message_bytes: 256 * 1024,
    }
}

/// The endpoint's client with `key` as its credentials.
fn client(m: &Moto, d: &SnsDestination, key: &Key) -> relay_destinations::Client {
    let mut secrets = Secrets::new();
    secrets.insert(
        d.credentials.access_key_id.clone().expect("keys"),
        SecretValue::from(key.id.as_str()),
    );
    secrets.insert(
        d.credentials.secret_access_key.clone().expect("keys"),
        SecretValue::from(key.secret.as_str()),
    );
    relay_destinations::build(
        &Config::Sns(d.clone()),
        &Shared {
            https: HttpsClient::new(m.server.guard()),
            clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
        },
        &secrets,
    )
    .expect("every reference resolved")
}

/// A structured message as boto3 receives it from the subscribed queue:
/// the message byte for byte (SQS's own MD5 of it is that of what Relay
/// published), the attributes of the binding; the record holds SNS's
/// `MessageId`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_is_its_body_and_attributes() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, m.topic_arn(TOPIC), ContentMode::Structured);
    let c = client(&m, &d, &m.relay);
    let msg = message("evt_1", None, ContentMode::Structured);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    assert_eq!(record.detail["status_code"], 200);
    assert!(record.detail["message_id"].is_string(), "{record:?}");
    assert!(record.destination.is_some_and(|a| a.ip().is_loopback()));

    let got = m.drain(TOPIC);
    assert_eq!(got.len(), 1, "{got:?}");
    let r = &got[0];
    assert_eq!(r.body, msg.body.to_vec());
    assert_eq!(
        r.md5_of_body,
        relay_destinations::sqs::wire::md5_of_body(std::str::from_utf8(&msg.body).unwrap())
    );
    let attributes = wire::attributes(&msg);
    assert_eq!(
        r.attributes,
        attributes.iter().cloned().collect(),
        "every attribute, as sent"
    );
    assert_eq!(r.attributes["webhook-id"], "evt_1");
    assert_eq!(r.attributes["content-type"], "application/cloudevents+json");
}

/// Binary mode: the message is the data, and with more context attributes
/// than places it still has ten attributes (SNS's limit, which moto does
/// not enforce: the rule is Relay's, checked here on what was delivered).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_mode_stays_within_ten_attributes() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, m.topic_arn(TOPIC), ContentMode::Binary);
    let c = client(&m, &d, &m.relay);
    let msg = message("evt_b", Some("customer/7"), ContentMode::Binary);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    let got = m.drain(TOPIC);
    assert_eq!(got.len(), 1);
    assert!(got[0].attributes.len() <= wire::MAX_ATTRIBUTES, "{got:?}");
    let data: serde_json::Value = serde_json::from_slice(&got[0].body).unwrap();
    assert_eq!(data["order_id"], "evt_b");
    let attrs = got[0].received().binary.expect("binary");
    let names: std::collections::BTreeSet<&str> = attrs.iter().map(|(n, _)| n.as_str()).collect();
    for name in msg.attributes.iter().map(|(n, _)| *n) {
        assert!(names.contains(name), "{name} carried: {names:?}");
    }
}

/// A FIFO topic: the ordering key is the `MessageGroupId`, the event id
/// the `MessageDeduplicationId` (both reach the subscribed FIFO queue);
/// one group's messages come back in the order published, and the same
/// event published again is acknowledged but delivered once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifo_groups_by_ordering_key_and_deduplicates_by_event_id() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, m.topic_arn(FIFO_TOPIC), ContentMode::Structured);
    let c = client(&m, &d, &m.relay);
    let sent = [
        message("evt_1", Some("customer/7"), ContentMode::Structured),
        message("evt_2", Some("customer/8"), ContentMode::Structured),
        message("evt_3", Some("customer/7"), ContentMode::Structured),
        message("evt_4", None, ContentMode::Structured),
    ];
    for msg in &sent {
        let (verdict, record) = send(&c, msg).await;
        assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    }
    // The same event again (a retry after a lost answer): acknowledged.
    let (verdict, _) = send(&c, &sent[0]).await;
    assert_eq!(verdict, Verdict::Delivered);

    let got = m.drain(FIFO_TOPIC);
    let ids: Vec<&str> = got
        .iter()
        .map(|r| r.attributes["webhook-id"].as_str())
        .collect();
    assert_eq!(got.len(), 4, "delivered once each: {ids:?}");
    let of = |id: &str| {
        got.iter()
            .find(|r| r.attributes["webhook-id"] == id)
            .unwrap()
    };
    for (id, group) in [
        ("evt_1", "customer/7"),
        ("evt_2", "customer/8"),
        ("evt_3", "customer/7"),
        ("evt_4", "evt_4"),
    ] {
        assert_eq!(of(id).system["MessageGroupId"], group, "{id}");
        assert_eq!(of(id).system["MessageDeduplicationId"], id, "{id}");
    }
    let group7: Vec<&str> = ids
        .iter()
        .copied()
        .filter(|id| of(id).system["MessageGroupId"] == "customer/7")
        .collect();
    assert_eq!(group7, ["evt_1", "evt_3"], "one group, in order");
}

/// Refusals, each by moto's own checks: a wrong secret (`403
/// SignatureDoesNotMatch`: retried, `auth_refused`), a user whose policy
/// has no `sns:Publish` (`403 AccessDenied`: permanent), a topic that
/// does not exist (`404 NotFound`: permanent, `unknown_target`). Neither
/// key id nor secret reaches a record or the client's `Debug`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_classified_and_credentials_never_recorded() {
    let Some(m) = moto().await else { return };
    let d = destination(&m, m.topic_arn(TOPIC), ContentMode::Structured);
    let msg = message("evt_r", None, ContentMode::Structured);
    let wrong = Key {
        id: m.relay.id.clone(),
        secret: "not-the-secret-0123456789".into(),
    };
    let c = client(&m, &d, &wrong);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Refused(Refusal::AuthRefused),
            not_before: None,
        },
        "{record:?}"
    );
    assert_eq!(record.detail["error"]["code"], "SignatureDoesNotMatch");
    let relay_destinations::Client::Sns(kind_client) = &c else {
        unreachable!("an sns destination builds an sns client")
    };
    let shown = format!("{record:?} {} {kind_client:?}", record.detail);
    for secret in [wrong.id.as_str(), wrong.secret.as_str()] {
        assert!(!shown.contains(secret), "a credential in {shown}");
    }

    let c = client(&m, &d, &m.denied);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, rejected(Refusal::AuthRefused), "{record:?}");
    assert_eq!(record.detail["error"]["code"], "AccessDenied");
    let shown = format!("{record:?}");
    assert!(!shown.contains(&m.denied.id) && !shown.contains(&m.denied.secret));

    let gone = destination(
        &m,
        "arn:aws:sns:us-east-1:123456789012:no-such-topic".into(),
        ContentMode::Structured,
    );
    let c = client(&m, &gone, &m.reader);
    let (verdict, record) = send(&c, &msg).await;
    assert_eq!(verdict, rejected(Refusal::UnknownTarget), "{record:?}");
    assert_eq!(record.detail["error"]["code"], "NotFound");
    assert!(m.drain(TOPIC).is_empty(), "nothing was delivered");
}

/// Registration: the endpoint URL through the guard (moto's, allowed), and
/// the rules the guard does not know (`https` only, the ARN's shape, an
/// AWS host in the ARN's region).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registration_checks_the_topic_and_the_endpoint() {
    let Some(m) = moto().await else { return };
    let g = m.server.guard();
    let d = destination(&m, m.topic_arn(FIFO_TOPIC), ContentMode::Structured);
    relay_destinations::validate(&Config::Sns(d.clone()), &g)
        .await
        .expect("moto's topic is allowed");
    let refused = |d: SnsDestination| {
        let g = g.clone();
        async move {
            relay_destinations::validate(&Config::Sns(d), &g)
                .await
                .unwrap_err()
        }
    };
    let mut plain = d.clone();
    plain.endpoint_url = Some(m.url().replace("https://", "http://"));
    let e = refused(plain).await;
    assert_eq!(
        (e.code, e.pointer),
        ("scheme_not_allowed", "/destination/endpoint_url")
    );
    let mut other_port = d.clone();
    other_port.endpoint_url = Some("https://127.0.0.1:1".into());
    let e = refused(other_port).await;
    assert_eq!(e.pointer, "/destination/endpoint_url", "{e:?}");
    let mut bad_arn = d.clone();
    bad_arn.topic_arn = "arn:aws:sqs:us-east-1:123456789012:relay-events".into();
    let e = refused(bad_arn).await;
    assert_eq!(
        (e.code, e.pointer),
        ("invalid_topic_arn", "/destination/topic_arn")
    );
    // AWS's own host for the ARN's region: refused by this guard (not
    // allowed), named at the ARN, whose region made it.
    let mut aws = d;
    aws.endpoint_url = None;
    let e = refused(aws).await;
    assert_eq!(e.pointer, "/destination/topic_arn", "{e:?}");
}
