//! Kafka passes the compliance suite against a real Kafka protocol peer:
//! librdkafka's mock cluster (`kafka/cluster.rs`), three brokers on
//! loopback ports that speak the Kafka protocol to any client (metadata,
//! idempotent producer ids, produce with `acks=all`, fetch), reached
//! through the operator's allow list by a bootstrap name the test resolver
//! answers; every broker the metadata advertises (127.0.0.1 and its port)
//! is checked by the guard too.
//!
//! Its modes: retryable = every Produce answered `TOPIC_AUTHORIZATION_FAILED`
//! (an ACL: retried as `auth_refused`); permanent = every Produce answered
//! `MESSAGE_TOO_LARGE`; hang = every broker answers 10 s late; down = every
//! broker down (connections dropped and refused).
//!
//! A consumer (librdkafka's, through `rdkafka`) reads every partition from
//! the beginning; the suite verifies each signature with `relay-verify`.
//! Beyond the suite (`kafka/answers.rs`): the guard on advertised brokers,
//! the key and its partition, binary mode against the binding, a broker
//! down in the middle of a burst, a leader change and injected errors; TLS
//! with a client certificate through terminators of the test's; SASL SCRAM
//! against Tansu, a broker that authenticates (`kafka/sasl.rs`).

#[path = "kafka/answers.rs"]
mod answers;
#[path = "kafka/cluster.rs"]
mod cluster;
#[path = "kafka/faults.rs"]
mod faults;
#[path = "kafka/independent.rs"]
mod independent;
#[path = "common/listening.rs"]
mod listening;
#[path = "kafka/sasl.rs"]
mod sasl;
#[path = "kafka/tansu.rs"]
mod tansu;
#[path = "kafka/tls.rs"]
mod tls;

use std::time::Duration;

use rdkafka::types::RDKafkaRespErr;
use relay_compliance::{Mode, Peer, Received, compliance_suite};
use relay_core::model::ContentMode;
use relay_destinations::Config;
use relay_destinations::kafka::{KafkaBroker, KafkaDestination};
use relay_net::{OutboundConfig, StaticResolver};

use cluster::{Cluster, Got, Reader};

const HOST: &str = "kafka.compliance.test";
const TOPIC: &str = "relay-events";
const PARTITIONS: i32 = 3;

fn outbound(ports: &[u16]) -> (OutboundConfig, StaticResolver) {
    (
        OutboundConfig {
            allow_ports: ports.to_vec(),
            allow_cidrs: vec!["127.0.0.1/32".into()],
            block_cidrs: vec![],
            extra_ca_certs: vec![],
            allow_plaintext_credentials_to_loopback: true,
        },
        StaticResolver::new().with(HOST, ["127.0.0.1".parse().unwrap()]),
    )
}

/// The destination: the first broker as bootstrap, by name.
fn destination(c: &Cluster, mode: ContentMode) -> KafkaDestination {
    KafkaDestination {
        bootstrap: vec![KafkaBroker {
            host: HOST.into(),
            port: c.ports()[0],
        }],
        topic: c.topic.clone(),
        content_mode: mode,
        tls: false,
        client_certificate: None,
        client_key: None,
        sasl: None,
    }
}

/// A record as the suite sees it: the signature values from the headers;
/// in binary mode (the content type is not a CloudEvents format, the
/// binding's rule) the attributes from the `ce_` headers and
/// `datacontenttype` from `content-type`.
fn received(g: &Got) -> Received {
    let get = |k: &str| g.header(k).unwrap_or_default();
    let content_type = get("content-type");
    let binary = (!content_type.starts_with("application/cloudevents")).then(|| {
        let mut attributes: Vec<(String, String)> = g
            .headers
            .iter()
            .filter_map(|(n, v)| {
                n.strip_prefix("ce_")
                    .map(|n| (n.to_string(), String::from_utf8_lossy(v).into_owned()))
            })
            .collect();
        attributes.push(("datacontenttype".into(), content_type.clone()));
        attributes
    });
    Received {
        body: g.value.clone(),
        webhook_id: get("webhook-id"),
        webhook_timestamp: get("webhook-timestamp"),
        webhook_signature: get("webhook-signature"),
        binary,
    }
}

struct KafkaPeer {
    cluster: Cluster,
    reader: Reader,
}

impl KafkaPeer {
    fn enter(&self, mode: Mode) {
        let c = &self.cluster;
        c.up(-1);
        c.rtt(-1, Duration::ZERO);
        c.produce_errors(RDKafkaRespErr::RD_KAFKA_RESP_ERR_NO_ERROR, 0);
        match mode {
            Mode::Accept => {}
            Mode::FailRetryable => c.produce_errors(
                RDKafkaRespErr::RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED,
                1000,
            ),
            Mode::FailPermanent => {
                c.produce_errors(RDKafkaRespErr::RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, 1000)
            }
            Mode::Hang => c.rtt(-1, Duration::from_secs(10)),
            Mode::Down => c.down(-1),
        }
    }
}

impl Peer for KafkaPeer {
    const KIND: &'static str = "kafka";

    async fn start() -> Option<Self> {
        let cluster = Cluster::start(3, TOPIC, PARTITIONS);
        let reader = Reader::start(&cluster);
        Some(KafkaPeer { cluster, reader })
    }

    fn destination(&self) -> Config {
        Config::Kafka(destination(&self.cluster, ContentMode::Structured))
    }

    fn outbound(&self) -> (OutboundConfig, StaticResolver) {
        outbound(&self.cluster.ports())
    }

    async fn set_mode(&self, mode: Mode) {
        self.enter(mode);
    }

    async fn received(&self) -> Vec<Received> {
        self.reader.got().iter().map(received).collect()
    }

    /// A broker that is down is noticed as a dropped or refused
    /// connection; the record then times out in the client.
    fn down_error_kinds() -> &'static [relay_core::model::ErrorKind] {
        &[
            relay_core::model::ErrorKind::Connect,
            relay_core::model::ErrorKind::Timeout,
        ]
    }
}

compliance_suite!(KafkaPeer; binary);

/// A record librdkafka would refuse for its size (over `message.max.bytes`,
/// 1,000,000 bytes with its key and headers, below Relay's 1 MiB delivery
/// limit) is known before the attempt: the message ends `dead_lettered`
/// (`payload_over_limit`) with no attempt made or recorded, and nothing
/// reaches the topic.
async fn over_message_max_bytes_is_dead_lettered_unsent(postgres: bool) {
    relay_compliance::cases::run::<KafkaPeer, _, _>(postgres, "kafka_over_limit", |h| async move {
        let data = format!(r#"{{"blob":"{}"}}"#, "x".repeat(999_990));
        h.publish_data(&data).await;
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(
            m.state,
            relay_core::model::MessageState::DeadLettered,
            "{m:?}"
        );
        assert_eq!(m.terminal_reason.as_deref(), Some("payload_over_limit"));
        assert_eq!(m.attempts_used, 0, "{m:?}");
        assert!(h.attempts(&m).await.is_empty(), "no attempt was made");
        assert!(h.peer.received().await.is_empty());
        assert!(
            h.logs
                .text()
                .contains("the destination cannot carry the message"),
            "the dispatcher says why"
        );
    })
    .await;
}

#[tokio::test]
async fn sqlite_over_message_max_bytes_is_dead_lettered_unsent() {
    over_message_max_bytes_is_dead_lettered_unsent(false).await;
}

#[tokio::test]
async fn postgres_over_message_max_bytes_is_dead_lettered_unsent() {
    over_message_max_bytes_is_dead_lettered_unsent(true).await;
}
