//! SASL against a broker that authenticates (librdkafka's mock cluster
//! speaks no SASL): Tansu (`kafka/tansu.rs`) with two users, one per SCRAM
//! mechanism, each password a secret reference. Tansu offers SCRAM-SHA-256
//! and SCRAM-SHA-512, not PLAIN; PLAIN is librdkafka's own
//! `sasl.username`/`sasl.password` exchange, whose settings
//! `kafka/tests.rs` checks.

use std::sync::Arc;
use std::time::Duration;

use rdkafka::ClientConfig;
use rdkafka::Message;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::{Offset, TopicPartitionList};
use relay_core::model::ContentMode;
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::Config;
use relay_destinations::Shared;
use relay_destinations::kafka::{KafkaBroker, KafkaSasl, SaslMechanism};
use relay_net::{Guard, HttpsClient};

use super::answers::{deliver, global_logs, prepared};
use super::tansu::{Tansu, User};
use super::{HOST, outbound};

const TOPIC: &str = "sasl-events";
const PARTITIONS: u32 = 2;

const ALICE: User = User {
    name: "alice",
    password: "alice-scram-256-Pw!",
    mechanism: "scram256",
};
const BOB: User = User {
    name: "bob",
    password: "bob-scram-512-Pw!",
    mechanism: "scram512",
};
const WRONG: &str = "not-alices-password-77";

/// The private broker, or `None` after saying `SKIPPED`.
async fn tansu() -> Option<Tansu> {
    match super::tansu::missing() {
        // Advertised at 127.0.0.1, an address the guard checks like the
        // bootstrap name.
        Ok(program) => {
            Some(Tansu::start(program, "127.0.0.1", &[ALICE, BOB], TOPIC, PARTITIONS).await)
        }
        Err(why) => {
            relay_store::testenv::skip("kafka SASL against Tansu", &why);
            None
        }
    }
}

fn secrets() -> Secrets {
    let mut s = Secrets::new();
    for (name, value) in [
        ("alice-pw", ALICE.password),
        ("bob-pw", BOB.password),
        ("wrong-pw", WRONG),
    ] {
        s.insert(SecretRef::Secret(name.into()), SecretValue::from(value));
    }
    s
}

fn client(
    t: &Tansu,
    mechanism: SaslMechanism,
    username: &str,
    password: &str,
) -> relay_destinations::Client {
    let (config, resolver) = outbound(&[t.port]);
    let shared = Shared {
        https: HttpsClient::new(Guard::with_resolver(&config, Arc::new(resolver)).unwrap()),
        clock: Arc::new(relay_core::time::ManualClock::default()),
    };
    let d = relay_destinations::kafka::KafkaDestination {
        bootstrap: vec![KafkaBroker {
            host: HOST.into(),
            port: t.port,
        }],
        topic: TOPIC.into(),
        content_mode: ContentMode::Structured,
        tls: false,
        client_certificate: None,
        client_key: None,
        sasl: Some(KafkaSasl {
            mechanism,
            username: username.into(),
            password: SecretRef::Secret(password.into()),
        }),
    };
    relay_destinations::build(&Config::Kafka(d), &shared, &secrets()).expect("built")
}

/// What the topic holds, read by a consumer of librdkafka's that
/// authenticates as `user` with SCRAM-SHA-256: each record's value.
fn read_back(t: &Tansu, user: &User, n: usize) -> Vec<String> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", format!("127.0.0.1:{}", t.port))
        .set("security.protocol", "SASL_PLAINTEXT")
        .set("sasl.mechanisms", "SCRAM-SHA-256")
        .set("sasl.username", user.name)
        .set("sasl.password", user.password)
        .set("group.id", "relay-compliance-sasl")
        .set("enable.auto.commit", "false")
        .create()
        .expect("a consumer");
    let mut tpl = TopicPartitionList::new();
    for p in 0..PARTITIONS as i32 {
        tpl.add_partition_offset(TOPIC, p, Offset::Beginning)
            .unwrap();
    }
    consumer.assign(&tpl).expect("assigned");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut values = Vec::new();
    while values.len() < n && std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(100)) {
            values.push(String::from_utf8_lossy(m.payload().unwrap_or_default()).into_owned());
        }
    }
    values
}

fn auth_refused() -> Verdict {
    Verdict::Retry {
        code: FailureCode::Refused(Refusal::AuthRefused),
        not_before: None,
    }
}

/// Each SCRAM mechanism authenticates its user and delivers (the broker
/// acknowledges each record with its partition and offset, and a consumer
/// that authenticates on its own reads them back); a wrong password, a
/// user's other mechanism and PLAIN are each refused, recorded as
/// `auth_refused` with the broker's reason rather than as a broker that
/// never answered; no password appears in a record or a log line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scram_authenticates_and_refusals_are_auth_refused() {
    let logs = global_logs();
    let Some(t) = tansu().await else { return };
    let mut records = Vec::new();
    let mut ids = Vec::new();
    for (mechanism, user, pw) in [
        (SaslMechanism::ScramSha256, &ALICE, "alice-pw"),
        (SaslMechanism::ScramSha512, &BOB, "bob-pw"),
    ] {
        let c = client(&t, mechanism, user.name, pw);
        for i in 0..3 {
            let id = format!("evt_sasl_{}_{i}", user.name);
            let p = prepared(&id, Some(&format!("k{i}")), ContentMode::Structured);
            let (verdict, record) = deliver(&c, &p, Duration::from_secs(15)).await;
            assert_eq!(verdict, Verdict::Delivered, "{mechanism:?}: {record:?}");
            assert!(record.detail["offset"].as_i64().is_some(), "{record:?}");
            records.push(format!("{record:?}"));
            ids.push(id);
        }
    }
    let values = read_back(&t, &ALICE, ids.len());
    for id in &ids {
        assert!(
            values.iter().any(|v| v.contains(id.as_str())),
            "{id} read back from the topic: {values:?}"
        );
    }

    for (why, mechanism, user, pw) in [
        (
            "a wrong password",
            SaslMechanism::ScramSha256,
            ALICE.name,
            "wrong-pw",
        ),
        (
            "the user's other mechanism",
            SaslMechanism::ScramSha512,
            ALICE.name,
            "alice-pw",
        ),
        ("PLAIN", SaslMechanism::Plain, ALICE.name, "alice-pw"),
    ] {
        let c = client(&t, mechanism, user, pw);
        let p = prepared("evt_sasl_refused", None, ContentMode::Structured);
        let (verdict, record) = deliver(&c, &p, Duration::from_secs(4)).await;
        assert_eq!(verdict, auth_refused(), "{why}: {record:?}");
        let text = format!("{record:?}");
        assert!(text.contains("_AUTHENTICATION"), "{why}: {text}");
        records.push(text);
    }

    let logs = logs.text();
    assert!(
        logs.contains("librdkafka"),
        "librdkafka's lines were captured"
    );
    for secret in [ALICE.password, BOB.password, WRONG] {
        assert!(!logs.contains(secret), "a password in the logs");
        for r in &records {
            assert!(!r.contains(secret), "a password in a record: {r}");
        }
    }
}
