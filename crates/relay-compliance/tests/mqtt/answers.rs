//! The MQTT kind's answers one by one against a private broker, each
//! through the kind's client and classification exactly as the engine
//! calls them.

use std::sync::Arc;
use std::time::Duration;

use relay_core::model::{ContentMode, Environment, Event, SignatureScheme};
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::sealed::MasterKey;
use relay_core::secret::{SecretValue, Secrets};
use relay_core::time::Timestamp;
use relay_core::transition::DeadLetterReason;
use relay_destinations::Config;
use relay_destinations::mqtt::MqttVersion;
use relay_destinations::{Delivery, Input, Prepared, Shared};
use relay_net::{Guard, HttpsClient, Limits};
use serde_json::value::RawValue;

use super::broker::Rules;
use super::consumer::{Consumer, Got};
use super::{broker, destination, outbound};

const NOW: Timestamp = Timestamp::from_millis(1_800_000_000_000);

fn prepared(id: &str, mode: ContentMode) -> (Prepared, String) {
    let event = Event {
        id: id.into(),
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
        time: NOW,
        created_at: NOW,
    };
    let master = MasterKey::from_bytes([9; 32]);
    let (_, key) = relay_store::keys::generate(&master, "ep_answers", SignatureScheme::V1, NOW);
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
        content_mode: mode,
        now: NOW,
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
        connect_timeout: Duration::from_secs(5),
        total_timeout: Duration::from_secs(5),
        ..Limits::default()
    };
    let d: Delivery = c.deliver(p, limits).await;
    let record = d.record();
    (d.classify(NOW), record.detail)
}

fn retry(r: Refusal) -> Verdict {
    Verdict::Retry {
        code: FailureCode::Refused(r),
        not_before: None,
    }
}

fn rejected(r: Refusal) -> Verdict {
    Verdict::Rejected {
        reason: DeadLetterReason::RejectedByDestination,
        code: FailureCode::Refused(r),
    }
}

fn verify(whsec: &str, g: &Got) {
    let verifier = relay_verify::Verifier::new([whsec.to_string()]).unwrap();
    let h = |k| g.props.user(k).expect("a signature property");
    let headers = relay_verify::SignatureHeaders {
        id: h("webhook-id"),
        timestamp: h("webhook-timestamp"),
        signature: h("webhook-signature"),
    };
    let at = u64::try_from(NOW.unix_seconds()).unwrap();
    verifier
        .verify_at(&headers, &g.payload, at)
        .expect("verifies");
}

/// Acked, then not authorized (0x87), then too large (0x95), then acked
/// again on the same connection; "no matching subscribers" (0x10) is a
/// success; the messages as the consumer reads them.
#[tokio::test]
async fn acks_and_refusals_as_the_broker_answers() {
    let Some(mut b) = broker("").await else {
        return;
    };
    let consumer = Consumer::start(b.port, "relay/#").await;
    let (p, whsec) = prepared("evt_answers_1", ContentMode::Structured);
    let d = destination(b.port, &b.password_file(), MqttVersion::V5);
    let c = client(b.port, Config::Mqtt(d.clone()), &b.password);

    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, Verdict::Delivered, "{detail}");
    assert_eq!(detail["topic"], "relay/live/order.shipped");
    assert_eq!(detail["reason_code"], 0);
    assert_eq!(detail["protocol_version"], "5");
    assert_eq!(detail["packet_id"], 1);

    b.reload(Rules {
        publish: false,
        size_limit: None,
    })
    .await;
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, retry(Refusal::AuthRefused), "{detail}");
    assert_eq!(detail["error"]["puback"]["reason_code"], 0x87);
    assert_eq!(
        detail["error"]["puback"]["packet_id"], 2,
        "the same connection"
    );

    b.reload(Rules {
        publish: true,
        size_limit: Some(10),
    })
    .await;
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, rejected(Refusal::TooLarge), "{detail}");
    assert_eq!(detail["error"]["puback"]["reason_code"], 0x95);

    b.reload(Rules::default()).await;
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, Verdict::Delivered, "{detail}");
    assert_eq!(detail["packet_id"], 4, "still the same connection");

    // Nobody subscribes to this topic: the broker takes it and says so.
    let mut elsewhere = d;
    elsewhere.topic = "nobody/{event_type}".into();
    let c = client(b.port, Config::Mqtt(elsewhere), &b.password);
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, Verdict::Delivered, "{detail}");
    assert_eq!(detail["reason_code"], 0x10);
    assert_eq!(detail["no_matching_subscribers"], true);

    // Two acknowledged publishes, signed, as a consumer reads them.
    let got = consumer.wait_for(2).await;
    assert_eq!(got.len(), 2, "{got:?}");
    for g in &got {
        assert_eq!(g.topic, "relay/live/order.shipped");
        assert_eq!(
            g.props.content_type.as_deref(),
            Some("application/cloudevents+json")
        );
        assert_eq!(g.props.user("webhook-id"), Some("evt_answers_1"));
        assert_eq!(g.props.user("relay-event-type"), Some("order.shipped"));
        assert_eq!(g.payload, p.body.to_vec());
        verify(&whsec, g);
    }
}

/// Binary mode is the CloudEvents MQTT binding (§3.1): `data` as the
/// payload, `datacontenttype` as the Content Type property, every other
/// attribute a user property named as the attribute, unchanged.
#[tokio::test]
async fn binary_mode_follows_the_mqtt_binding() {
    let Some(b) = broker("").await else { return };
    let consumer = Consumer::start(b.port, "relay/#").await;
    let (p, whsec) = prepared("evt_binary_1", ContentMode::Binary);
    let mut d = destination(b.port, &b.password_file(), MqttVersion::V5);
    d.content_mode = ContentMode::Binary;
    let c = client(b.port, Config::Mqtt(d), &b.password);
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, Verdict::Delivered, "{detail}");
    let got = consumer.wait_for(1).await;
    let g = got.first().expect("a message");
    assert_eq!(g.payload, br#"{"order_id":"1042"}"#);
    assert_eq!(g.props.content_type.as_deref(), Some("application/json"));
    for (name, value) in [
        ("specversion", "1.0"),
        ("id", "evt_binary_1"),
        ("type", "order.shipped"),
        ("source", "https://acme.example/merchants/42"),
        ("subject", "order/1042"),
    ] {
        assert_eq!(g.props.user(name), Some(value), "{name}");
    }
    assert!(g.props.user("time").is_some());
    assert_eq!(
        g.props.user("datacontenttype"),
        None,
        "datacontenttype is the Content Type property"
    );
    assert!(
        !g.props.user.iter().any(|(n, _)| n.starts_with("ce")),
        "no prefix"
    );
    verify(&whsec, g);
}

/// MQTT 3.1.1: structured only, no properties, so the message carries the
/// CloudEvents JSON and no signature values; the PUBACK is still the
/// acknowledgement. A refused login is `auth_refused` in both versions,
/// and the password is in no record.
#[tokio::test]
async fn mqtt_3_1_1_and_refused_logins() {
    let Some(b) = broker("").await else { return };
    let consumer = Consumer::start(b.port, "relay/#").await;
    let (p, _) = prepared("evt_v311_1", ContentMode::Structured);
    let d = destination(b.port, &b.password_file(), MqttVersion::V311);
    let c = client(b.port, Config::Mqtt(d.clone()), &b.password);
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, Verdict::Delivered, "{detail}");
    assert_eq!(detail["protocol_version"], "3.1.1");
    let got = consumer.wait_for(1).await;
    let g = got.first().expect("a message");
    assert_eq!(g.payload, p.body.to_vec());
    assert_eq!(g.props.content_type, None);
    assert!(g.props.user.is_empty(), "3.1.1 has no properties");
    let event: serde_json::Value = serde_json::from_slice(&g.payload).unwrap();
    assert_eq!(event["id"], "evt_v311_1");

    let wrong = format!("{}-wrong", b.password);
    for version in [MqttVersion::V5, MqttVersion::V311] {
        let d = destination(b.port, &b.password_file(), version);
        let c = client(b.port, Config::Mqtt(d), &wrong);
        let (v, detail) = deliver(&c, &p).await;
        assert_eq!(v, retry(Refusal::AuthRefused), "{version:?} {detail}");
        assert!(detail["error"]["connack"]["reason_code"].as_u64().unwrap() > 0);
        assert!(!detail.to_string().contains(&wrong));
        assert!(!detail.to_string().contains(&b.password));
    }
}

/// Many publishes in flight on one connection: each attempt ends on the
/// PUBACK of its own packet identifier (a broker that lets 5 wait at a
/// time, so identifiers are reused), and the consumer reads every message
/// with its own signature.
#[tokio::test]
async fn each_publish_ends_on_its_own_puback() {
    let Some(b) = broker("max_inflight_messages 5\n").await else {
        return;
    };
    let consumer = Consumer::start(b.port, "relay/#").await;
    let d = destination(b.port, &b.password_file(), MqttVersion::V5);
    let c = client(b.port, Config::Mqtt(d), &b.password);
    let mut tasks = tokio::task::JoinSet::new();
    let mut keys = std::collections::HashMap::new();
    for i in 0..200 {
        let id = format!("evt_many_{i}");
        let (p, whsec) = prepared(&id, ContentMode::Structured);
        keys.insert(id, whsec);
        let c = c.clone();
        tasks.spawn(async move { deliver(&c, &p).await });
    }
    while let Some(r) = tasks.join_next().await {
        let (v, detail) = r.unwrap();
        assert_eq!(v, Verdict::Delivered, "{detail}");
    }
    let got = consumer.wait_for(200).await;
    assert_eq!(got.len(), 200);
    let mut ids: Vec<&str> = got
        .iter()
        .map(|g| g.props.user("webhook-id").unwrap())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 200, "every message once");
    for g in &got {
        verify(&keys[g.props.user("webhook-id").unwrap()], g);
    }
}

/// The endpoint's connection survives the broker's restart: the kept
/// connection is found broken and replaced within the same attempt.
#[tokio::test]
async fn a_restarted_broker_gets_a_new_connection() {
    let Some(mut b) = broker("").await else {
        return;
    };
    let (p, _) = prepared("evt_restart_1", ContentMode::Structured);
    let d = destination(b.port, &b.password_file(), MqttVersion::V5);
    let c = client(b.port, Config::Mqtt(d), &b.password);
    assert_eq!(deliver(&c, &p).await.0, Verdict::Delivered);
    b.stop();
    b.run().await;
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, Verdict::Delivered, "{detail}");
    assert_eq!(detail["packet_id"], 1, "a new connection");
}

/// The broker asks for a 10-second keep-alive (MQTT 5 Server Keep Alive,
/// its smallest `max_keepalive`): the idle connection sends a PINGREQ
/// after 5 seconds and stays open for the next attempt.
#[tokio::test]
async fn an_idle_connection_is_kept_alive() {
    let Some(b) = broker("max_keepalive 10\n").await else {
        return;
    };
    let (p, _) = prepared("evt_idle_1", ContentMode::Structured);
    let d = destination(b.port, &b.password_file(), MqttVersion::V5);
    let c = client(b.port, Config::Mqtt(d), &b.password);
    assert_eq!(deliver(&c, &p).await.0, Verdict::Delivered);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while b.pings() < 1 {
        assert!(tokio::time::Instant::now() < deadline, "no PINGREQ");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (v, detail) = deliver(&c, &p).await;
    assert_eq!(v, Verdict::Delivered, "{detail}");
    assert_eq!(
        detail["packet_id"], 2,
        "the same connection, after a PINGREQ"
    );
}

/// `tls: true`: the connection is TLS through the guard, the broker's
/// certificate verified against the host name (trusted through the
/// operator's `extra_ca_certs`); a name the certificate does not carry is
/// a `tls` failure, retried.
#[tokio::test]
async fn tls_is_verified_against_the_host_name() {
    let certs = tempfile::tempdir().unwrap();
    let ca = relay_receiver::TestCa::generate();
    let leaf = ca.leaf().without_defaults().name(super::HOST).build();
    let d = certs.path();
    std::fs::write(d.join("server.pem"), leaf.cert_pem()).unwrap();
    std::fs::write(d.join("server.key"), leaf.key_pem()).unwrap();
    let ca_pem = ca.write_ca_pem(d).unwrap();
    let tls_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let extra = format!(
        "listener {tls_port} 127.0.0.1\ncertfile {0}/server.pem\nkeyfile {0}/server.key\n",
        d.display()
    );
    let Some(b) = broker(&extra).await else {
        return;
    };
    let consumer = Consumer::start(b.port, "relay/#").await;
    let (p, whsec) = prepared("evt_tls_1", ContentMode::Structured);
    let guard = |host: &str| {
        let (mut config, _) = outbound(tls_port);
        config.extra_ca_certs = vec![ca_pem.clone()];
        let resolver = relay_net::StaticResolver::new().with(host, ["127.0.0.1".parse().unwrap()]);
        Guard::with_resolver(&config, Arc::new(resolver)).unwrap()
    };
    let build = |host: &str| {
        let mut dest = destination(tls_port, &b.password_file(), MqttVersion::V5);
        dest.host = host.into();
        dest.tls = true;
        let dest = Config::Mqtt(dest);
        let mut secrets = Secrets::new();
        for (_, r) in dest.secret_refs() {
            secrets.insert(r.clone(), SecretValue::from(b.password.as_str()));
        }
        relay_destinations::build(
            &dest,
            &Shared {
                https: HttpsClient::new(guard(host)),
                clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
            },
            &secrets,
        )
        .unwrap()
    };
    let (v, detail) = deliver(&build(super::HOST), &p).await;
    assert_eq!(v, Verdict::Delivered, "{detail}");
    let got = consumer.wait_for(1).await;
    verify(&whsec, got.first().expect("a message"));

    let (v, _) = deliver(&build("other.compliance.test"), &p).await;
    assert_eq!(
        v,
        Verdict::Retry {
            code: FailureCode::Transport(relay_core::outcome::TransportError::Tls),
            not_before: None,
        }
    );
}
