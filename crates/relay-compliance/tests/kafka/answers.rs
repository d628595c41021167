//! The Kafka kind's answers one by one against the mock cluster, each
//! through the kind's client and classification exactly as the engine
//! calls them.

use std::sync::Arc;
use std::time::Duration;

use relay_core::model::{ContentMode, Environment, Event, SignatureScheme};
use relay_core::outcome::{FailureCode, TransportError, Verdict};
use relay_core::secret::Secrets;
use relay_core::signature::SigningKey;
use relay_core::time::Timestamp;
use relay_destinations::Config;
use relay_destinations::{Delivery, Input, Prepared, Shared};
use relay_net::{Guard, HttpsClient, Limits};
use serde_json::value::RawValue;

use super::cluster::{Cluster, Reader};
use super::{destination, outbound};

pub const NOW: Timestamp = Timestamp::from_millis(1_800_000_000_000);

/// The endpoint's signing key (`whsec_…`: [`SigningKey::Hmac`]).
pub fn signing_key() -> SigningKey {
    SigningKey::generate(SignatureScheme::V1, [9; 32])
}

/// `whsec_…` of [`signing_key`], for a judge.
pub fn whsec() -> String {
    match signing_key() {
        SigningKey::Hmac(h) => h.expose_whsec(),
        SigningKey::Ed25519(_) => unreachable!("a v1 key"),
    }
}

pub fn prepared(id: &str, key: Option<&str>, mode: ContentMode) -> Prepared {
    let event = Event {
        id: id.into(),
        event_type: "order.shipped".into(),
        type_version: 1,
        environment: Environment::Live,
        subject: Some("order/1042".into()),
        data: RawValue::from_string(r#"{"order_id":"1042"}"#.into()).unwrap(),
        consumer_id: None,
        ordering_key: key.map(Into::into),
        seq: None,
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
        expires_at: None,
        time: NOW,
        created_at: NOW,
    };
    relay_destinations::prepare(&Input {
        event: &event,
        source: "https://acme.example/merchants/42",
        keys: &[signing_key()],
        attempt_number: 1,
        max_payload_bytes: 1 << 20,
        content_mode: mode,
        now: NOW,
        shaped: None,
    })
    .expect("prepared")
}

/// The endpoint's client behind a guard that allows `ports` on 127.0.0.1.
pub fn client(ports: &[u16], d: Config) -> relay_destinations::Client {
    let (config, resolver) = outbound(ports);
    let guard = Guard::with_resolver(&config, Arc::new(resolver)).unwrap();
    relay_destinations::build(
        &d,
        &Shared {
            https: HttpsClient::new(guard),
            clock: Arc::new(relay_core::time::ManualClock::default()),
        },
        &Secrets::new(),
    )
    .expect("built")
}

pub fn limits(total: Duration) -> Limits {
    Limits {
        connect_timeout: Duration::from_secs(2),
        total_timeout: total,
        ..Limits::default()
    }
}

pub async fn deliver(
    c: &relay_destinations::Client,
    p: &Prepared,
    total: Duration,
) -> (Verdict, relay_destinations::Record) {
    let d: Delivery = c.deliver(p, limits(total)).await;
    (d.classify(NOW), d.record())
}

/// A cluster whose metadata advertises a broker at an address the guard
/// refuses (127.0.0.2: loopback, outside the allow list) never makes Relay
/// connect there: the partition it leads gets no record, the attempt is a
/// retry recorded as `blocked_address`, and a listener at that address
/// sees no connection. The same broker advertised at its real, allowed
/// address takes the record.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_advertised_broker_is_checked_by_the_guard() {
    let cluster = Cluster::start(2, "guarded", 1);
    let ports = cluster.ports();
    let trap = std::net::TcpListener::bind("127.0.0.2:0").expect("a listener on 127.0.0.2");
    trap.set_nonblocking(true).unwrap();
    let trap_port = trap.local_addr().unwrap().port();
    cluster.leader(0, 2);
    cluster.advertise(2, "127.0.0.2", trap_port);
    let mut allowed = ports.clone();
    allowed.push(trap_port);
    let c = client(
        &allowed,
        Config::Kafka(destination(&cluster, ContentMode::Structured)),
    );
    let (verdict, record) = deliver(
        &c,
        &prepared("evt_guard", None, ContentMode::Structured),
        Duration::from_secs(3),
    )
    .await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Transport(TransportError::BlockedAddress),
            not_before: None,
        },
        "{record:?}"
    );
    let (kind, text) = record.error.expect("an error");
    assert_eq!(kind.as_str(), "blocked_address", "{text}");
    assert!(text.contains("127.0.0.2"), "{text}");
    assert!(
        matches!(trap.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "Relay connected to the advertised, blocked address"
    );
    // The same broker at its real address: delivered, to it.
    cluster.advertise(2, "127.0.0.1", ports[1]);
    let mut delivered = None;
    for i in 0..5 {
        let (verdict, record) = deliver(
            &c,
            &prepared(&format!("evt_ok{i}"), None, ContentMode::Structured),
            Duration::from_secs(3),
        )
        .await;
        if verdict == Verdict::Delivered {
            delivered = Some(record);
            break;
        }
    }
    let record = delivered.expect("delivered once the broker is advertised at an allowed address");
    assert_eq!(record.detail["broker_id"], 2, "{record:?}");
    assert_eq!(
        record.destination.map(|a| a.to_string()),
        Some(format!("127.0.0.1:{}", ports[1]))
    );
}

/// The ordering key is the record key: one key's records go to one
/// partition, and Relay's partition is the one the Java client's
/// partitioner (murmur2) picks; a message without one has its subject as
/// key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ordering_key_is_the_record_key() {
    let cluster = Cluster::start(3, "keyed", 6);
    let reader = Reader::start(&cluster);
    let c = client(
        &cluster.ports(),
        Config::Kafka(destination(&cluster, ContentMode::Structured)),
    );
    let keys = ["customer-1", "customer-2", "customer-3", "customer-4"];
    for round in 0..3 {
        for k in keys {
            let (v, r) = deliver(
                &c,
                &prepared(
                    &format!("evt_{k}_{round}"),
                    Some(k),
                    ContentMode::Structured,
                ),
                Duration::from_secs(5),
            )
            .await;
            assert_eq!(v, Verdict::Delivered, "{r:?}");
        }
    }
    let _ = deliver(
        &c,
        &prepared("evt_subject", None, ContentMode::Structured),
        Duration::from_secs(5),
    )
    .await;
    let got = wait(&reader, 13).await;
    for k in keys {
        let partitions: std::collections::BTreeSet<i32> = got
            .iter()
            .filter(|g| g.key.as_deref() == Some(k.as_bytes()))
            .map(|g| g.partition)
            .collect();
        assert_eq!(partitions.len(), 1, "{k}: {partitions:?}");
        let p = *partitions.first().unwrap();
        assert_eq!(p, murmur2_partition(k.as_bytes(), 6), "{k}");
    }
    let by_subject = got
        .iter()
        .find(|g| g.header("webhook-id").as_deref() == Some("evt_subject"))
        .unwrap();
    assert_eq!(by_subject.key.as_deref(), Some(&b"order/1042"[..]));
}

/// Kafka's default partitioner (the Java client's): murmur2 of the key,
/// positive, modulo the partitions. Written from the algorithm's
/// definition, to judge librdkafka's `murmur2_random` by.
fn murmur2_partition(key: &[u8], partitions: i32) -> i32 {
    let m: u32 = 0x5bd1_e995;
    let len = key.len() as u32;
    let mut h: u32 = 0x9747_b28c ^ len;
    let mut chunks = key.chunks_exact(4);
    for c in &mut chunks {
        let mut k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        k = k.wrapping_mul(m);
        k ^= k >> 24;
        k = k.wrapping_mul(m);
        h = h.wrapping_mul(m);
        h ^= k;
    }
    let rest = chunks.remainder();
    if rest.len() >= 3 {
        h ^= u32::from(rest[2]) << 16;
    }
    if rest.len() >= 2 {
        h ^= u32::from(rest[1]) << 8;
    }
    if !rest.is_empty() {
        h ^= u32::from(rest[0]);
        h = h.wrapping_mul(m);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(m);
    h ^= h >> 15;
    ((h & 0x7fff_ffff) % partitions as u32) as i32
}

pub async fn wait(reader: &Reader, n: usize) -> Vec<super::cluster::Got> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let got = reader.got();
        if got.len() >= n || tokio::time::Instant::now() >= deadline {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Log lines, kept.
#[derive(Clone, Default)]
pub struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl Captured {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

/// Every line logged by any thread of this test binary (librdkafka logs
/// from its own threads): installed once as the global subscriber; the
/// suite's cases log through their own thread's subscriber meanwhile.
pub fn global_logs() -> Captured {
    static LOGS: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    LOGS.get_or_init(|| {
        let logs = Captured::default();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(logs.clone())
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");
        logs
    })
    .clone()
}

/// The SASL password and the client certificate's key are handed to
/// librdkafka and nowhere else: attempts that fail with them (the mock
/// cluster speaks neither SASL nor TLS; a key that is not a key) leave
/// them out of the attempt records and of every log line, librdkafka's
/// included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_stay_out_of_records_and_logs() {
    use relay_core::secret::{SecretRef, SecretValue};
    use relay_destinations::kafka::{KafkaSasl, SaslMechanism};
    let logs = global_logs();
    let cluster = Cluster::start(1, "secrets", 1);
    let (config, resolver) = outbound(&cluster.ports());
    let guard = Guard::with_resolver(&config, Arc::new(resolver)).unwrap();
    let shared = Shared {
        https: HttpsClient::new(guard),
        clock: Arc::new(relay_core::time::ManualClock::default()),
    };
    let (pw, cert, key) = (
        SecretRef::Secret("kafka-pw".into()),
        SecretRef::Secret("kafka-cert".into()),
        SecretRef::Secret("kafka-key".into()),
    );
    let password = "sasl-hunter2-password";
    let key_pem =
        "-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1ieXRlcy1oZXJl\n-----END PRIVATE KEY-----\n";
    let cert_pem =
        "-----BEGIN CERTIFICATE-----\nY2VydGlmaWNhdGUtYnl0ZXM=\n-----END CERTIFICATE-----\n";
    let mut secrets = Secrets::new();
    secrets.insert(pw.clone(), SecretValue::from(password));
    secrets.insert(cert.clone(), SecretValue::from(cert_pem));
    secrets.insert(key.clone(), SecretValue::from(key_pem));
    let sasl = Some(KafkaSasl {
        mechanism: SaslMechanism::Plain,
        username: "relay".into(),
        password: pw,
    });
    let mut with_sasl = destination(&cluster, ContentMode::Structured);
    with_sasl.sasl = sasl.clone();
    let mut with_tls = with_sasl.clone();
    with_tls.tls = true;
    with_tls.client_certificate = Some(cert);
    with_tls.client_key = Some(key);
    let mut records = Vec::new();
    for d in [with_sasl, with_tls] {
        let c = relay_destinations::build(&Config::Kafka(d), &shared, &secrets).unwrap();
        let p = prepared("evt_secret", None, ContentMode::Structured);
        let (verdict, record) = deliver(&c, &p, Duration::from_secs(2)).await;
        assert!(
            matches!(verdict, Verdict::Retry { .. }),
            "{verdict:?} {record:?}"
        );
        records.push(format!("{record:?}"));
    }
    let logs = logs.text();
    assert!(
        logs.contains("librdkafka"),
        "librdkafka's lines were captured"
    );
    for secret in [
        password,
        "c2VjcmV0LWtleS1ieXRlcy1oZXJl",
        "Y2VydGlmaWNhdGUtYnl0ZXM=",
    ] {
        assert!(!logs.contains(secret), "a credential in the logs");
        for r in &records {
            assert!(!r.contains(secret), "a credential in a record: {r}");
        }
    }
}

/// Every attempt in flight while the cluster is down is recorded with why
/// no broker could be reached (the refused connection), not only the first
/// one to time out: the producer's note of it is read, not taken, and
/// forgotten only when a record is acknowledged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_attempt_in_flight_names_the_refused_connection() {
    let cluster = Cluster::start(1, "unreachable", 1);
    let c = client(
        &cluster.ports(),
        Config::Kafka(destination(&cluster, ContentMode::Structured)),
    );
    cluster.down(-1);
    let mut attempts = tokio::task::JoinSet::new();
    for i in 0..6 {
        let c = c.clone();
        attempts.spawn(async move {
            let p = prepared(&format!("evt_down_{i}"), None, ContentMode::Structured);
            deliver(&c, &p, Duration::from_secs(3)).await
        });
    }
    let connect = Verdict::Retry {
        code: FailureCode::Transport(TransportError::Connect),
        not_before: None,
    };
    while let Some(done) = attempts.join_next().await {
        let (verdict, record) = done.unwrap();
        assert_eq!(verdict, connect, "{record:?}");
    }
}
