use crate::kafka::{KafkaBroker, KafkaSasl, SaslMechanism};
use relay_core::secret::SecretRef;

use super::*;
use crate::test_message::prepared;

fn destination() -> KafkaDestination {
    KafkaDestination {
        bootstrap: vec![
            KafkaBroker {
                host: "kafka-1.example".into(),
                port: 9092,
            },
            KafkaBroker {
                host: "2001:db8::1".into(),
                port: 9093,
            },
        ],
        topic: "orders".into(),
        content_mode: ContentMode::Structured,
        tls: false,
        client_certificate: None,
        client_key: None,
        sasl: None,
    }
}

fn get<'a>(s: &'a [(&'static str, Vec<u8>)], k: &str) -> Option<&'a str> {
    s.iter()
        .find(|(n, _)| *n == k)
        .map(|(_, v)| std::str::from_utf8(v).unwrap())
}

#[test]
fn structured_headers_carry_the_signature_and_the_format() {
    let p = prepared(ContentMode::Structured);
    let h = headers(&p);
    let names: Vec<&str> = h.iter().map(|(n, _)| n.to_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "webhook-id",
            "webhook-timestamp",
            "webhook-signature",
            "content-type",
            "relay-event-type",
            "relay-attempt"
        ]
    );
    assert_eq!(h[0].1, p.webhook_id.as_bytes());
    assert_eq!(h[2].1, p.webhook_signature.as_bytes());
    assert_eq!(h[3].1, b"application/cloudevents+json");
    assert_eq!(h[5].1, b"2");
}

/// The CloudEvents Kafka binding: `ce_<name>` per attribute, values as
/// they are; `datacontenttype` is `content-type`.
#[test]
fn binary_headers_follow_the_binding() {
    let p = prepared(ContentMode::Binary);
    let h = headers(&p);
    let get = |n: &str| {
        h.iter()
            .find(|(k, _)| k.to_str().unwrap() == n)
            .map(|(_, v)| String::from_utf8(v.clone()).unwrap())
    };
    assert_eq!(get("content-type").as_deref(), Some("application/json"));
    assert_eq!(get("ce_id").as_deref(), Some("evt_1"));
    assert_eq!(get("ce_specversion").as_deref(), Some("1.0"));
    assert_eq!(get("ce_subject").as_deref(), Some("order/1042"));
    assert_eq!(get("ce_type").as_deref(), Some("order.shipped"));
    assert_eq!(get("ce_datacontenttype"), None);
    assert_eq!(get("webhook-id").as_deref(), Some("evt_1"));
    assert_eq!(p.ordering_key.as_deref(), Some("order/1042"), "the key");
}

#[test]
fn settings_make_an_idempotent_acks_all_producer() {
    let limits = Limits {
        connect_timeout: Duration::from_millis(1500),
        total_timeout: Duration::from_secs(7),
        ..Limits::default()
    };
    let s = settings(
        &destination(),
        &Credentials::default(),
        &Trust::default(),
        limits,
    );
    assert_eq!(
        get(&s, "bootstrap.servers"),
        Some("kafka-1.example:9092,[2001:db8::1]:9093")
    );
    assert_eq!(get(&s, "enable.idempotence"), Some("true"));
    assert_eq!(get(&s, "acks"), Some("all"));
    assert_eq!(get(&s, "message.timeout.ms"), Some("7000"));
    assert_eq!(get(&s, "socket.connection.setup.timeout.ms"), Some("1500"));
    assert_eq!(get(&s, "partitioner"), Some("murmur2_random"));
    assert_eq!(get(&s, "security.protocol"), Some("plaintext"));
    assert_eq!(get(&s, "sasl.password"), None);
}

#[test]
fn settings_for_tls_and_sasl() {
    let mut d = destination();
    let secrets = Credentials {
        password: Some(SecretValue::from("hunter2")),
        ..Credentials::default()
    };
    for (tls, mechanism, protocol) in [
        (false, SaslMechanism::Plain, "sasl_plaintext"),
        (true, SaslMechanism::ScramSha256, "sasl_ssl"),
        (true, SaslMechanism::ScramSha512, "sasl_ssl"),
    ] {
        d.tls = tls;
        d.sasl = Some(KafkaSasl {
            mechanism,
            username: "relay".into(),
            password: SecretRef::Secret("kafka-pw".into()),
        });
        let s = settings(&d, &secrets, &Trust::default(), Limits::default());
        assert_eq!(get(&s, "security.protocol"), Some(protocol));
        assert_eq!(get(&s, "sasl.mechanisms"), Some(mechanism.as_str()));
        assert_eq!(get(&s, "sasl.username"), Some("relay"));
        assert_eq!(get(&s, "sasl.password"), Some("hunter2"));
        assert_eq!(
            get(&s, "ssl.endpoint.identification.algorithm"),
            tls.then_some("https")
        );
    }
    d.sasl = None;
    d.tls = true;
    let s = settings(
        &d,
        &Credentials::default(),
        &Trust::default(),
        Limits::default(),
    );
    assert_eq!(get(&s, "security.protocol"), Some("ssl"));
    assert_eq!(get(&s, "ssl.certificate.pem"), None);
}

/// TLS with a client certificate: the certificate and key (resolved
/// references) are handed to librdkafka as PEM; never without `tls`.
#[test]
fn settings_for_a_client_certificate() {
    let mut d = destination();
    d.tls = true;
    d.client_certificate = Some(SecretRef::Secret("kafka-cert".into()));
    d.client_key = Some(SecretRef::Secret("kafka-key".into()));
    let secrets = Credentials {
        client_certificate: Some(SecretValue::from("-----BEGIN CERTIFICATE-----\nMIIB\n")),
        client_key: Some(SecretValue::from("-----BEGIN PRIVATE KEY-----\nMIIE\n")),
        ..Credentials::default()
    };
    let s = settings(&d, &secrets, &Trust::default(), Limits::default());
    assert_eq!(get(&s, "security.protocol"), Some("ssl"));
    assert_eq!(
        get(&s, "ssl.certificate.pem"),
        Some("-----BEGIN CERTIFICATE-----\nMIIB\n")
    );
    assert_eq!(
        get(&s, "ssl.key.pem"),
        Some("-----BEGIN PRIVATE KEY-----\nMIIE\n")
    );
    assert!(
        !format!("{secrets:?}").contains("MIIE"),
        "Debug shows no key"
    );
    d.tls = false;
    let s = settings(&d, &secrets, &Trust::default(), Limits::default());
    assert_eq!(get(&s, "ssl.key.pem"), None);
}

/// A client certificate without its key (or without `tls`) is refused at
/// registration, before the guard is asked anything.
#[tokio::test]
async fn a_client_certificate_needs_its_key_and_tls() {
    let guard = relay_net::Guard::with_resolver(
        &relay_net::OutboundConfig::default(),
        std::sync::Arc::new(relay_net::StaticResolver::new()),
    )
    .unwrap();
    let mut d = destination();
    d.tls = true;
    d.client_certificate = Some(SecretRef::Secret("kafka-cert".into()));
    let e = Kafka::validate(&d, &guard).await.unwrap_err();
    assert_eq!(
        (e.code, e.pointer),
        ("invalid_credentials", "/destination/client_certificate")
    );
    d.client_key = Some(SecretRef::Secret("kafka-key".into()));
    d.tls = false;
    let e = Kafka::validate(&d, &guard).await.unwrap_err();
    assert_eq!(e.code, "invalid_credentials");
}

#[test]
fn topic_names() {
    for ok in ["orders", "a", "orders.v1_live-2", &"x".repeat(249)] {
        assert!(valid_topic(ok), "{ok}");
    }
    for bad in [
        "",
        ".",
        "..",
        "orders/live",
        "ordérs",
        "a b",
        &"x".repeat(250),
    ] {
        assert!(!valid_topic(bad), "{bad}");
    }
}

#[test]
fn errors_never_show_the_password() {
    let secrets = Credentials {
        password: Some(SecretValue::from("hunter2")),
        client_key: Some(SecretValue::from("KEYPEM")),
        ..Credentials::default()
    };
    assert_eq!(
        redact("login hunter2 refused, key KEYPEM".into(), &secrets),
        "login <redacted> refused, key <redacted>"
    );
    assert_eq!(redact("refused".into(), &Credentials::default()), "refused");
}

/// With the operator's extra CAs, librdkafka is given them and the
/// system's CA file (naming one stops it from looking for the other);
/// without, it finds the system's on its own; never without `tls`.
#[test]
fn settings_for_the_trust_anchors() {
    let trust = Trust {
        system_ca_file: Some("/etc/ssl/certs/ca-certificates.crt".into()),
        extra_ca_pem: Some("-----BEGIN CERTIFICATE-----\nMIIC\n".into()),
    };
    let mut d = destination();
    d.tls = true;
    let s = settings(&d, &Credentials::default(), &trust, Limits::default());
    assert_eq!(
        get(&s, "ssl.ca.location"),
        Some("/etc/ssl/certs/ca-certificates.crt")
    );
    assert_eq!(
        get(&s, "ssl.ca.pem"),
        Some("-----BEGIN CERTIFICATE-----\nMIIC\n")
    );
    let s = settings(
        &d,
        &Credentials::default(),
        &Trust::default(),
        Limits::default(),
    );
    assert_eq!(get(&s, "ssl.ca.location"), None);
    assert_eq!(get(&s, "ssl.ca.pem"), None);
    d.tls = false;
    let s = settings(&d, &Credentials::default(), &trust, Limits::default());
    assert_eq!(get(&s, "ssl.ca.pem"), None);
}

/// A client-level error explains a record that timed out: TLS when
/// OpenSSL's words are in a transport error, and the summary "all brokers
/// down" never hides the cause noted before it.
#[test]
fn client_errors_name_the_cause() {
    use super::producer::{failure_kind, replaces};
    let alert = "ssl://k:9093/bootstrap: Receive failed: error:0A00045C:SSL routines::tlsv13 alert certificate required";
    assert_eq!(failure_kind(-195, alert), Some(ErrorKind::Tls));
    assert_eq!(
        failure_kind(
            -195,
            "k:9092/1: Connect to ipv4#10.0.0.1:9092 failed: Connection refused"
        ),
        Some(ErrorKind::Connect)
    );
    assert_eq!(failure_kind(-187, "1/1 brokers are down"), None);
    assert_eq!(
        failure_kind(
            -195,
            "k:9092/bootstrap: Connection setup timed out in state APIVERSION_QUERY"
        ),
        Some(ErrorKind::Timeout),
        "a broker that took the connection and never answered"
    );
    assert_eq!(
        failure_kind(
            -195,
            "k:9092/1: ApiVersionRequest failed: Local: Timed out: probably due to broker version < 0.10"
        ),
        Some(ErrorKind::Timeout),
        "a request on the connection that was never answered"
    );
    assert_eq!(failure_kind(-193, "resolve"), Some(ErrorKind::Dns));
    assert_eq!(failure_kind(-181, "handshake"), Some(ErrorKind::Tls));
    assert_eq!(failure_kind(-1, "other"), None);
    assert!(replaces(None, -187));
    assert!(!replaces(Some(ErrorKind::Tls), -187));
    assert!(!replaces(Some(ErrorKind::Connect), -187));
    assert!(!replaces(Some(ErrorKind::BlockedAddress), -195));
    assert!(!replaces(Some(ErrorKind::Tls), -195));
    assert!(replaces(Some(ErrorKind::Connect), -195));
    assert!(replaces(Some(ErrorKind::Timeout), -181));
}

/// A SASL exchange that failed is the cluster refusing the client, noted
/// apart from the way to a broker; nothing else is.
#[test]
fn a_failed_sasl_exchange_refuses_the_client() {
    use super::producer::{failure_kind, refuses_client};
    assert!(refuses_client(-169), "_AUTHENTICATION");
    for other in [-195, -193, -181, -185, -187, -192, 58] {
        assert!(!refuses_client(other), "{other}");
    }
    assert_eq!(
        failure_kind(
            -169,
            "k:9092/bootstrap: SASL authentication error: SASL SCRAM authentication failed: broker responded with unknown-user"
        ),
        None,
        "not a transport failure"
    );
}
