use relay_net::{OutboundConfig, StaticResolver};

use super::*;
use crate::test_message::prepared;

#[test]
fn structured_properties_carry_the_signature_and_the_format() {
    let p = prepared(ContentMode::Structured);
    let props = properties(&p);
    assert_eq!(
        props.content_type.as_deref(),
        Some("application/cloudevents+json")
    );
    assert_eq!(props.user("webhook-id"), Some("evt_1"));
    assert_eq!(
        props.user("webhook-timestamp"),
        Some(p.webhook_timestamp.as_str())
    );
    assert_eq!(
        props.user("webhook-signature"),
        Some(p.webhook_signature.as_str())
    );
    assert_eq!(props.user("relay-event-type"), Some("order.shipped"));
    assert_eq!(props.user("relay-attempt"), Some("2"));
    assert_eq!(
        props.user("id"),
        None,
        "structured: the attributes are in the body"
    );
}

#[test]
fn binary_properties_are_the_attributes_by_their_own_names() {
    let p = prepared(ContentMode::Binary);
    let props = properties(&p);
    assert_eq!(props.content_type.as_deref(), Some("application/json"));
    for (name, value) in &p.attributes {
        if *name == "datacontenttype" {
            assert_eq!(props.user(name), None);
        } else {
            assert_eq!(props.user(name), Some(value.as_str()), "{name}");
        }
    }
    assert_eq!(props.user("specversion"), Some("1.0"));
    assert_eq!(props.user("webhook-id"), Some("evt_1"));
}

#[test]
fn random_client_ids_are_what_every_broker_accepts() {
    let a = random_client_id();
    assert_eq!(a.len(), 23, "{a}");
    assert!(
        a.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    );
    assert_ne!(a, random_client_id());
}

fn client(password: &str) -> Client {
    let guard = Guard::with_resolver(
        &OutboundConfig {
            allow_ports: vec![1883],
            allow_cidrs: vec![],
            block_cidrs: vec![],
            extra_ca_certs: vec![],
            allow_plaintext_credentials_to_loopback: true,
        },
        Arc::new(StaticResolver::new()),
    )
    .unwrap();
    let r = relay_core::secret::SecretRef::Secret("pw".into());
    let mut s = Secrets::new();
    s.insert(r.clone(), SecretValue::from(password));
    Mqtt::build(
        &MqttDestination {
            host: "mqtt.example".into(),
            port: 1883,
            tls: false,
            topic: "t".into(),
            protocol_version: MqttVersion::V5,
            client_id: None,
            username: Some("relay".into()),
            password: Some(r),
            content_mode: ContentMode::Structured,
        },
        &Shared {
            https: relay_net::HttpsClient::new(guard),
            clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
        },
        &s,
    )
    .unwrap()
}

#[test]
fn a_broker_quoting_the_password_is_redacted() {
    let c = client("hunter2");
    let text = c
        .inner
        .redact(Some("bad password hunter2 for relay".into()))
        .unwrap();
    assert_eq!(text, "bad password <redacted> for relay");
    let r = Result::Refused {
        topic: "t".into(),
        refusal: Refusal::ConnAck {
            version: MqttVersion::V5,
            code: 0x86,
            reason: Some(text),
        },
        addr: None,
    };
    let record = Mqtt::record(&r);
    assert!(!format!("{r:?} {record:?}").contains("hunter2"));
    assert_eq!(record.detail["error"]["connack"]["reason_code"], 0x86);
    assert_eq!(
        record.detail["error"]["connack"]["description"],
        "bad user name or password"
    );
    let long = c.inner.redact(Some("x".repeat(2000))).unwrap();
    assert_eq!(long.len(), 512);
}
