//! Registration checks of the Kafka kind's configuration, through a real
//! guard, and the building of its client from resolved references.

mod registration;

use std::sync::Arc;

use relay_core::model::ContentMode;
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::Config;
use relay_destinations::kafka::{KafkaBroker, KafkaDestination, KafkaSasl, SaslMechanism};
use relay_net::Guard;

fn guard(allow_loopback: bool) -> Guard {
    registration::guard(&[9092, 9093], "kafka.example", allow_loopback)
}

fn kafka(f: impl FnOnce(&mut KafkaDestination)) -> Config {
    let mut k = KafkaDestination {
        bootstrap: vec![KafkaBroker {
            host: "kafka.example".into(),
            port: 9092,
        }],
        topic: "orders".into(),
        content_mode: ContentMode::Structured,
        tls: false,
        client_certificate: None,
        client_key: None,
        sasl: None,
    };
    f(&mut k);
    Config::Kafka(k)
}

async fn code(d: Config) -> Option<(&'static str, &'static str)> {
    relay_destinations::validate(&d, &guard(false))
        .await
        .err()
        .map(|i| (i.code, i.pointer))
}

fn broker(host: &str, port: u16) -> KafkaBroker {
    KafkaBroker {
        host: host.into(),
        port,
    }
}

#[tokio::test]
async fn kafka_configurations() {
    assert_eq!(code(kafka(|_| {})).await, None);
    assert_eq!(
        code(kafka(|k| k.content_mode = ContentMode::Binary)).await,
        None
    );
    for bad in ["", ".", "..", "a/b", "a b", &"t".repeat(250)] {
        assert_eq!(
            code(kafka(|k| k.topic = bad.to_string())).await,
            Some(("invalid_topic", "/destination/topic")),
            "{bad:?}"
        );
    }
    assert_eq!(
        code(kafka(|k| k.bootstrap.clear())).await,
        Some(("invalid_bootstrap", "/destination/bootstrap"))
    );
    assert_eq!(
        code(kafka(
            |k| k.bootstrap = vec![broker("kafka.example", 9092); 17]
        ))
        .await,
        Some(("invalid_bootstrap", "/destination/bootstrap"))
    );
    assert_eq!(
        code(kafka(|k| k.sasl = Some(KafkaSasl {
            mechanism: SaslMechanism::ScramSha256,
            username: String::new(),
            password: SecretRef::Secret("pw".into()),
        })))
        .await,
        Some(("invalid_credentials", "/destination/sasl/username"))
    );
    assert_eq!(
        code(kafka(
            |k| k.client_key = Some(SecretRef::Secret("key".into()))
        ))
        .await,
        Some(("invalid_credentials", "/destination/client_certificate"))
    );
    // Every bootstrap broker is checked, not only the first.
    assert_eq!(
        code(kafka(|k| k.bootstrap.push(broker("kafka.example", 9094)))).await,
        Some(("port_not_allowed", "/destination/bootstrap"))
    );
    assert_eq!(
        code(kafka(|k| k.bootstrap.push(broker("local.example", 9092)))).await,
        Some(("blocked_address", "/destination/bootstrap")),
        "loopback is refused unless the operator allows it"
    );
    assert_eq!(
        relay_destinations::validate(
            &kafka(|k| k.bootstrap = vec![broker("local.example", 9093)]),
            &guard(true)
        )
        .await,
        Ok(())
    );
}

#[test]
fn the_configuration_reads_as_documented() {
    let d: Config = serde_json::from_value(serde_json::json!({
        "kind": "kafka",
        "bootstrap": [{"host": "kafka-1.internal.example"}, {"host": "kafka-2.internal.example", "port": 9093}],
        "topic": "orders-events", "tls": true,
        "client_certificate": "file:/etc/relay/kafka.crt", "client_key": "secret:kafka-key",
        "sasl": {"mechanism": "SCRAM-SHA-512", "username": "relay", "password": "env:KAFKA_PW"}
    }))
    .unwrap();
    let Config::Kafka(k) = &d else {
        panic!("{d:?}")
    };
    assert_eq!(k.bootstrap[0].port, 9092, "the default port");
    assert_eq!(k.bootstrap[1].port, 9093);
    assert_eq!(k.content_mode, ContentMode::Structured);
    assert_eq!(
        k.sasl.as_ref().unwrap().mechanism,
        SaslMechanism::ScramSha512
    );
    let refs: Vec<&str> = d.secret_refs().iter().map(|(p, _)| *p).collect();
    assert_eq!(
        refs,
        [
            "/destination/sasl/password",
            "/destination/client_certificate",
            "/destination/client_key"
        ]
    );
    let e = serde_json::from_value::<Config>(serde_json::json!({
        "kind": "kafka", "bootstrap": [{"host": "h"}], "topic": "t",
        "sasl": {"mechanism": "PLAIN", "username": "u", "password": "hunter2"}
    }))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("secret reference") && !e.contains("hunter2"),
        "{e}"
    );
}

#[tokio::test]
async fn building_needs_every_reference_resolved_and_never_shows_them() {
    let shared = relay_destinations::Shared {
        https: relay_net::HttpsClient::new(guard(false)),
        clock: Arc::new(relay_core::time::ManualClock::default()),
    };
    let (pw, cert, key) = (
        SecretRef::Secret("kafka-pw".into()),
        SecretRef::Secret("kafka-cert".into()),
        SecretRef::Secret("kafka-key".into()),
    );
    let d = kafka(|k| {
        k.tls = true;
        k.client_certificate = Some(cert.clone());
        k.client_key = Some(key.clone());
        k.sasl = Some(KafkaSasl {
            mechanism: SaslMechanism::Plain,
            username: "relay".into(),
            password: pw.clone(),
        });
    });
    let mut s = Secrets::new();
    s.insert(pw.clone(), SecretValue::from("hunter2"));
    s.insert(cert.clone(), SecretValue::from("CERTPEM"));
    assert!(
        relay_destinations::build(&d, &shared, &s).is_err(),
        "the key is not resolved"
    );
    s.insert(key, SecretValue::from("KEYPEM"));
    assert!(relay_destinations::build(&d, &shared, &s).is_ok());
    for shown in [format!("{d:?}"), format!("{s:?}")] {
        for secret in ["hunter2", "CERTPEM", "KEYPEM"] {
            assert!(!shown.contains(secret), "{shown}");
        }
    }
}

/// At registration, a client certificate and key that do not parse are
/// refused (as an HTTPS client certificate's), never echoed.
#[test]
fn a_client_certificate_that_does_not_parse_is_refused() {
    let (cert, key) = (
        SecretRef::Secret("kafka-cert".into()),
        SecretRef::Secret("kafka-key".into()),
    );
    let d = kafka(|k| {
        k.tls = true;
        k.client_certificate = Some(cert.clone());
        k.client_key = Some(key.clone());
    });
    let mut s = Secrets::new();
    assert_eq!(
        relay_destinations::check_values(&d, &s),
        Ok(()),
        "unresolved: checked before"
    );
    s.insert(cert, SecretValue::from("not a certificate"));
    s.insert(key, SecretValue::from("KEYPEM-not-a-key"));
    let e = relay_destinations::check_values(&d, &s).unwrap_err();
    assert!(e.pointer.starts_with("/destination/client_"), "{e:?}");
    assert!(!e.message.contains("KEYPEM"), "{e:?}");
    assert_eq!(
        relay_destinations::check_values(&kafka(|_| {}), &Secrets::new()),
        Ok(())
    );
}
