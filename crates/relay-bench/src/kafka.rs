//! `kafka`: the broker workload ([`super::broker`]) against librdkafka's
//! mock cluster, which the bench starts on loopback for the run (one
//! broker: a real Kafka protocol peer, its log in memory). Each side
//! produces to its own topic (`bench-<tag>-relay`, `-raw`, `-producer`, 3
//! partitions); what a topic holds is the sum of its partitions' high
//! watermarks.
//!
//! Beside the kind's client alone (the broker workload's raw side: 10
//! workers, each awaiting its record's delivery report), the bench measures
//! librdkafka's producer alone with the same settings (`acks=all`, the
//! idempotent producer, `linger.ms` 0) used as a producer is meant to be:
//! every record handed over at once, the delivery reports counted as they
//! come ([`Broker::producer_alone`]).
//!
//! The mock cluster and the bench's consumer run on librdkafka's threads in
//! the bench's process, named as Relay's producer's are (`rdk:*`): they are
//! counted as the bench's ([`crate::measure::peer_threads_started`]), so
//! the Relay CPU the targets compare with the HTTPS kind's is Relay's own.

use std::sync::atomic::AtomicU64;

use rdkafka::ClientContext;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer as _};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::mocking::MockCluster;
use rdkafka::producer::{
    BaseRecord, DefaultProducerContext, DeliveryResult, Producer as _, ProducerContext,
    ThreadedProducer,
};
use relay_core::model::ContentMode;
use relay_destinations::Config;
use relay_destinations::Prepared;
use relay_destinations::kafka::{KafkaBroker, KafkaDestination};

use super::broker::{Broker, Side};
use super::*;

const PARTITIONS: i32 = 3;

/// Fields drop in order: the consumer before the cluster it reads.
pub(crate) struct Kafka {
    watermarks: BaseConsumer,
    port: u16,
    tag: String,
    cluster: MockCluster<'static, DefaultProducerContext>,
}

fn topic(tag: &str, side: &str) -> String {
    format!("bench-{tag}-{side}")
}

/// Starts the mock cluster and creates the run's topics.
pub(crate) fn kafka() -> anyhow::Result<Kafka> {
    let cluster = MockCluster::new(1).context("cannot start librdkafka's mock cluster")?;
    let bootstrap = cluster.bootstrap_servers();
    let port = bootstrap
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .with_context(|| format!("the mock cluster's address {bootstrap}"))?;
    let tag = hex::encode(random_bytes::<4>());
    for side in ["relay", "raw", "producer"] {
        cluster.create_topic(&topic(&tag, side), PARTITIONS, 1)?;
    }
    let watermarks: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .set("group.id", format!("bench-{tag}"))
        .create()?;
    let kafka = Kafka {
        cluster,
        port,
        tag,
        watermarks,
    };
    // Once the watermarks' consumer has met the broker, every `rdk:` thread
    // is the bench's (the mock cluster's, its client's, the consumer's):
    // Relay's producer starts its own later, and only those count as
    // Relay's CPU.
    kafka.held(&topic(&kafka.tag, "relay"))?;
    crate::measure::peer_threads_started("rdk:");
    Ok(kafka)
}

impl Kafka {
    /// The records `topic` holds: the sum of its partitions' high
    /// watermarks.
    fn held(&self, topic: &str) -> anyhow::Result<u64> {
        let mut n = 0;
        for p in 0..PARTITIONS {
            let (_, high) = self
                .watermarks
                .fetch_watermarks(topic, p, Duration::from_secs(5))?;
            n += u64::try_from(high).unwrap_or(0);
        }
        Ok(n)
    }
}

/// Counts the delivery reports of the producer alone.
#[derive(Default)]
struct Reports {
    acked: AtomicU64,
    failed: AtomicU64,
}

struct Counting(Arc<Reports>);

impl ClientContext for Counting {}

impl ProducerContext for Counting {
    type DeliveryOpaque = ();

    fn delivery(&self, result: &DeliveryResult<'_>, _: ()) {
        let counter = if result.is_ok() {
            &self.0.acked
        } else {
            &self.0.failed
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }
}

impl Broker for Kafka {
    fn name(&self) -> &'static str {
        "kafka"
    }

    fn ack(&self) -> &'static str {
        "delivery report (acks=all)"
    }

    fn port(&self) -> u16 {
        self.port
    }

    fn destination(&self, side: Side) -> Config {
        Config::Kafka(KafkaDestination {
            bootstrap: vec![KafkaBroker {
                host: "127.0.0.1".into(),
                port: self.port,
            }],
            topic: topic(&self.tag, side.as_str()),
            content_mode: ContentMode::Structured,
            tls: false,
            client_certificate: None,
            client_key: None,
            sasl: None,
        })
    }

    async fn stored(&mut self, side: Side) -> anyhow::Result<u64> {
        self.held(&topic(&self.tag, side.as_str()))
    }

    /// librdkafka's producer alone, with the kind's settings: once it has
    /// acknowledged a first record, every message handed over at once (the
    /// key, the value and the headers Relay would send), then the time
    /// until the last delivery report.
    async fn producer_alone(
        &mut self,
        messages: &[Prepared],
    ) -> Option<anyhow::Result<(f64, u64)>> {
        Some(self.produce_all(messages).await)
    }

    /// Counted by asking the broker for three partitions' watermarks, which
    /// takes the mock cluster's thread on the cores Relay runs on.
    fn slow_to_count(&self) -> bool {
        true
    }

    /// The mock cluster (and its topics) ends when the workload drops it.
    async fn clean_up(&mut self) {
        let _ = &self.cluster;
    }
}

impl Kafka {
    async fn produce_all(&mut self, messages: &[Prepared]) -> anyhow::Result<(f64, u64)> {
        anyhow::ensure!(!messages.is_empty(), "no messages to produce");
        let reports = Arc::new(Reports::default());
        let destination = match self.destination(Side::Raw) {
            Config::Kafka(k) => k,
            _ => unreachable!("a kafka destination"),
        };
        let mut config = ClientConfig::new();
        let limits = relay_net::Limits::default();
        for (k, v) in relay_destinations::kafka::settings(
            &destination,
            &Default::default(),
            &Default::default(),
            limits,
        ) {
            config.set(k, String::from_utf8(v)?);
        }
        let producer: ThreadedProducer<Counting> =
            config.create_with_context(Counting(reports.clone()))?;
        let topic = topic(&self.tag, "producer");
        // One record first, outside the clock: the producer's start (its
        // connection, the metadata, its producer id) is not what is
        // measured. The topic holds it too.
        let warm = messages.first().into_iter();
        let mut started = Instant::now();
        for (i, m) in warm.chain(messages).enumerate() {
            if i == 1 {
                let deadline = Instant::now() + Duration::from_secs(30);
                while reports.acked.load(Ordering::Relaxed) == 0 && Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                anyhow::ensure!(
                    reports.acked.load(Ordering::Relaxed) == 1,
                    "the producer's first record was not acknowledged"
                );
                started = Instant::now();
            }
            let mut headers = OwnedHeaders::new();
            for (name, value) in relay_destinations::kafka::headers(m) {
                headers = headers.insert(Header {
                    key: name.to_str()?,
                    value: Some(&value),
                });
            }
            let mut record = BaseRecord::to(&topic).payload(&m.body[..]).headers(headers);
            if let Some(k) = &m.ordering_key {
                record = record.key(k.as_bytes());
            }
            while let Err((e, r)) = producer.send(record) {
                match e {
                    KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull) => {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                        record = r;
                    }
                    e => return Err(e.into()),
                }
            }
        }
        let total = messages.len() as u64 + 1;
        let deadline = Instant::now() + Duration::from_secs(120);
        while reports.acked.load(Ordering::Relaxed) + reports.failed.load(Ordering::Relaxed) < total
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        let seconds = started.elapsed().as_secs_f64();
        producer.flush(Duration::from_secs(10))?;
        let failed = total - reports.acked.load(Ordering::Relaxed).min(total);
        let held = self.held(&topic)?;
        anyhow::ensure!(
            held == reports.acked.load(Ordering::Relaxed),
            "the producer's topic holds {held} records, {} acknowledged",
            reports.acked.load(Ordering::Relaxed)
        );
        Ok((seconds, failed))
    }
}
