//! The RabbitMQ kind's answers one by one against the private broker, each
//! through the kind's client and classification exactly as the engine
//! calls them.

use std::sync::Arc;

use relay_core::model::{Environment, Event, SignatureScheme};
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::sealed::MasterKey;
use relay_core::secret::{SecretValue, Secrets};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_destinations::Config;
use relay_destinations::{Delivery, Input, Prepared, Shared};
use relay_net::{Guard, HttpsClient, Limits};
use serde_json::value::RawValue;

use super::{Names, bind, destination, drain, node, outbound, set_up};

fn prepared(now: Timestamp) -> (Prepared, String) {
    let event = Event {
        id: "evt_answers_1".into(),
        event_type: "order.shipped".into(),
        type_version: 1,
        environment: Environment::Live,
        subject: Some("order/1042".into()),
        data: RawValue::from_string(r#"{"order_id":"1042"}"#.into()).unwrap(),
        consumer_id: None,
        ordering_key: None,
        seq: None,
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
        expires_at: None,
        time: now,
        created_at: now,
    };
    let master = MasterKey::from_bytes([9; 32]);
    let (_, key) = relay_store::keys::generate(&master, "ep_answers", SignatureScheme::V1, now);
    let whsec = match &key {
        relay_core::signature::SigningKey::Hmac(h) => h.expose_whsec(),
        relay_core::signature::SigningKey::Ed25519(_) => unreachable!("v1 is HMAC"),
    };
    let p = relay_destinations::prepare(&Input {
        event: &event,
        source: "https://acme.example/merchants/42",
        keys: &[key],
        attempt_number: 1,
        max_payload_bytes: 1 << 20,
        content_mode: relay_core::model::ContentMode::Structured,
        now,
        shaped: None,
    })
    .expect("prepared");
    (p, whsec)
}

/// The endpoint's client, with `password` as the resolved value of every
/// reference.
fn client(port: u16, d: Config, password: &str) -> relay_destinations::Client {
    let (config, resolver) = outbound(port);
    let guard = Guard::with_resolver(&config, Arc::new(resolver)).unwrap();
    let mut secrets = Secrets::new();
    for (_, r) in d.secret_refs() {
        secrets.insert(r.clone(), SecretValue::from(password));
    }
    relay_destinations::build(
        &d,
        &Shared {
            https: HttpsClient::new(guard),
            clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
        },
        &secrets,
    )
    .expect("every reference resolved")
}

async fn deliver(c: &relay_destinations::Client, p: &Prepared) -> (Verdict, serde_json::Value) {
    let limits = Limits {
        connect_timeout: std::time::Duration::from_secs(5),
        total_timeout: std::time::Duration::from_secs(5),
        ..Limits::default()
    };
    let d: Delivery = c.deliver(p, limits).await;
    (d.classify(Timestamp::from_millis(0)), d.record().detail)
}

fn rejected(r: Refusal) -> Verdict {
    Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(r),
    }
}

fn retry(r: Refusal) -> Verdict {
    Verdict::Retry {
        code: FailureCode::Refused(r),
        not_before: None,
    }
}

/// Ack, then nack (a full queue), then NO_ROUTE, then ack again on the
/// same endpoint client; the message as the consumer reads it.
#[tokio::test]
async fn ack_nack_and_no_route_as_the_broker_answers() {
    let Some(node) = node().await else { return };
    let names = Names::new();
    let mut admin = node.admin().await;
    set_up(&mut admin, &names).await;
    let now = Timestamp::from_millis(1_800_000_000_000);
    let (p, whsec) = prepared(now);
    let c = client(
        node.port,
        Config::RabbitMq(destination(
            node.port,
            &names.exchange,
            &node.password_file(),
        )),
        &node.password,
    );

    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, Verdict::Delivered, "{detail}");
    assert_eq!(detail["confirm"], "ack");
    assert_eq!(detail["routing_key"], "live.order.shipped");

    bind(&mut admin, &names.queue, &names.exchange, false).await;
    bind(&mut admin, &names.full, &names.exchange, true).await;
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, retry(Refusal::Nack), "{detail}");

    bind(&mut admin, &names.full, &names.exchange, false).await;
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, rejected(Refusal::Unroutable), "{detail}");
    assert_eq!(detail["returned"]["reply_code"], 312);

    bind(&mut admin, &names.queue, &names.exchange, true).await;
    let (v, _) = deliver(&c, &p).await;
    assert_eq!(v, Verdict::Delivered);

    // Two acknowledged publishes, persistent, signed, as a consumer reads them.
    let got = drain(&mut admin, &names.queue).await;
    assert_eq!(got.len(), 2);
    let verifier = relay_verify::Verifier::new([whsec]).unwrap();
    for (r, props) in &got {
        assert_eq!(props.delivery_mode, Some(2), "persistent");
        assert_eq!(
            props.content_type.as_deref(),
            Some("application/cloudevents+json")
        );
        assert_eq!(props.message_id.as_deref(), Some("evt_answers_1"));
        assert_eq!(props.kind.as_deref(), Some("order.shipped"));
        assert_eq!(r.webhook_id, "evt_answers_1");
        assert_eq!(r.body, p.body.to_vec());
        let headers = relay_verify::SignatureHeaders {
            id: &r.webhook_id,
            timestamp: &r.webhook_timestamp,
            signature: &r.webhook_signature,
        };
        let at = u64::try_from(now.unix_seconds()).unwrap();
        verifier.verify_at(&headers, &r.body, at).expect("verifies");
    }
}

/// A missing exchange closes the channel with 404: permanent,
/// `unknown_target`; the client recovers on the next attempt.
#[tokio::test]
async fn an_unknown_exchange_is_an_unknown_target() {
    let Some(node) = node().await else { return };
    let names = Names::new();
    let mut admin = node.admin().await;
    set_up(&mut admin, &names).await;
    let (p, _) = prepared(Timestamp::from_millis(1_800_000_000_000));
    let missing = client(
        node.port,
        Config::RabbitMq(destination(
            node.port,
            "relay-no-such-exchange",
            &node.password_file(),
        )),
        &node.password,
    );
    let (v, detail) = deliver(&missing, &p).await;
    assert_eq!(v, rejected(Refusal::UnknownTarget), "{detail}");
    assert_eq!(detail["closed"]["reply_code"], 404);
    let (v, _) = deliver(&missing, &p).await;
    assert_eq!(
        v,
        rejected(Refusal::UnknownTarget),
        "again, on a new connection"
    );
}

/// A wrong password (403 ACCESS_REFUSED) and a virtual host the user has
/// no permission on: `auth_refused`, retried; the password is in no
/// record.
#[tokio::test]
async fn refused_credentials_are_auth_refused() {
    let Some(node) = node().await else { return };
    let (p, _) = prepared(Timestamp::from_millis(1_800_000_000_000));
    let d = destination(node.port, "amq.direct", &node.password_file());
    let wrong = format!("{}-wrong", node.password);
    let c = client(node.port, Config::RabbitMq(d.clone()), &wrong);
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, retry(Refusal::AuthRefused), "{detail}");
    assert_eq!(detail["closed"]["reply_code"], 403, "{detail}");
    assert!(!detail.to_string().contains(&wrong));

    node.ctl(&["add_vhost", "relay-closed"]);
    let mut closed = d;
    closed.virtual_host = "relay-closed".into();
    let c = client(node.port, Config::RabbitMq(closed), &node.password);
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, retry(Refusal::AuthRefused), "{detail}");
    assert!(!detail.to_string().contains(&node.password));
}
