//! The broker workloads (`nats`, `redis`, `rabbitmq`, `mqtt`, `kafka`, and
//! the queue services `sqs`, `sns` and `eventbridge` on a private moto
//! server, `pubsub` on the Pub/Sub emulator behind its front door and
//! `service-bus` against the Service Bus judge): E events
//! delivered to one endpoint of a broker kind, against the kind's client alone (no
//! store, no dispatcher, no API) publishing as many messages with the same
//! acknowledgement and the same concurrency, in one run, into the broker on
//! `127.0.0.1` (`.ci/run` starts each on its usual port).
//!
//! One workload for every kind: a kind is a [`Broker`], which says where
//! Relay's side and the raw side publish (two separate targets: streams,
//! stream keys, queues) and counts what each holds. Relay's rate is the
//! deliveries/s from the first publish to the moment the broker holds every
//! message (polled every 5 ms); the raw rate is acknowledgements/s from the
//! first publish to the last acknowledgement. The same JSON keys for every
//! kind (`broker`, `ack`, `relay_deliveries_per_s`, `raw_publishes_per_s`,
//! `ratio`, `relay_stored`, `raw_stored`, …).

use std::sync::atomic::AtomicUsize;

use relay_core::model::Event;
use relay_destinations::Config;
use relay_destinations::{Input, Prepared, Shared};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig, StaticResolver};
use serde_json::value::RawValue;

use super::*;

/// Which of the two publishers a target belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Relay's endpoint.
    Relay,
    /// The kind's client alone.
    Raw,
}

impl Side {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Side::Relay => "relay",
            Side::Raw => "raw",
        }
    }
}

/// A broker kind as the bench drives it. Made by the kind's module (which
/// creates its targets for the run: a stream, keys, an exchange and
/// queues), then handed to [`run`].
pub(crate) trait Broker {
    /// The workload's name (`nats`, `redis`, `rabbitmq`).
    fn name(&self) -> &'static str;
    /// What counts as the acknowledgement, for the report
    /// (`PubAck`, `XADD entry id`, `publisher confirm`).
    fn ack(&self) -> &'static str;
    /// The broker's port on 127.0.0.1 (Relay's guard allows it).
    fn port(&self) -> u16;
    /// The endpoint's destination for one side. Relay's is registered
    /// through the API as JSON; the raw side's client is built from it.
    fn destination(&self, side: Side) -> Config;
    /// How many messages the side's target holds now.
    async fn stored(&mut self, side: Side) -> anyhow::Result<u64>;
    /// Removes what the run created (best effort).
    async fn clean_up(&mut self);
    /// The kind's own client library alone, used as it is meant to be (for
    /// Kafka: librdkafka's producer with every record handed over at once),
    /// when that differs from the kind's client awaiting each
    /// acknowledgement: (seconds, failures) for `messages`. `None`: no such
    /// figure for this kind.
    async fn producer_alone(
        &mut self,
        _messages: &[Prepared],
    ) -> Option<anyhow::Result<(f64, u64)>> {
        None
    }
    /// The private moto server the kind runs against (`sqs`, `sns`): both
    /// sides' guards trust its CA, its credentials are tenant secrets
    /// (put through Relay's API before its endpoint is registered, and
    /// resolved for the raw side's client), and Relay's target is counted
    /// every 20 ms rather than 5 (counting slows the Python server).
    fn moto(&self) -> Option<&crate::moto::Moto> {
        None
    }
    /// The CA of a peer the bench serves over TLS with a CA of the run's
    /// own (a moto server's, the Pub/Sub front's, the Service Bus judge's),
    /// which both sides' guards trust.
    fn ca_pem(&self) -> Option<std::path::PathBuf> {
        self.moto().map(|m| m.ca_pem.clone())
    }
    /// The tenant secrets the destinations name (put through Relay's API
    /// before its endpoint is registered, resolved for the raw side's
    /// client): a moto server's credentials, a service account's key, a
    /// SAS key.
    fn tenant_secrets(&self) -> Vec<(&'static str, String)> {
        self.moto()
            .map(|_| crate::moto::tenant_secrets())
            .unwrap_or_default()
    }
    /// Whether counting slows the peer (a Python server, or an emulator
    /// counted by pulling): Relay's target is counted every 20 ms rather
    /// than 5.
    fn slow_to_count(&self) -> bool {
        self.moto().is_some()
    }
}

/// The CAs both sides' guards trust besides the system's.
fn trusted_cas<B: Broker>(broker: &B) -> Vec<std::path::PathBuf> {
    broker.ca_pem().into_iter().collect()
}

/// The tenant secrets the destinations name.
fn tenant_secrets<B: Broker>(broker: &B) -> Vec<(&'static str, String)> {
    broker.tenant_secrets()
}

/// The messages the raw side publishes: prepared as Relay prepares them
/// (structured mode, one Ed25519 signature), ids `raw-<i>`.
pub(crate) fn raw_messages(events: u64, data: &str) -> anyhow::Result<Vec<Prepared>> {
    let key = SigningKey::generate(SignatureScheme::V1a, random_bytes::<32>());
    let now = Timestamp::from_millis(i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_millis(),
    )?);
    (0..events)
        .map(|i| {
            let event = Event {
                id: format!("raw-{i}"),
                event_type: "bench.published".into(),
                type_version: 1,
                environment: Environment::Live,
                subject: None,
                data: RawValue::from_string(data.to_owned())?,
                consumer_id: None,
                ordering_key: None,
                seq: None,
                traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
                expires_at: None,
                time: now,
                created_at: now,
            };
            relay_destinations::prepare(&Input {
                event: &event,
                source: "https://bench.example",
                keys: std::slice::from_ref(&key),
                attempt_number: 1,
                max_payload_bytes: 1 << 20,
                content_mode: Default::default(),
                now,
                shaped: None,
            })
            .map_err(|r| anyhow::anyhow!("cannot prepare: {}", r.as_str()))
        })
        .collect()
}

/// The wall clock, for a kind's client built here without a Relay.
pub(crate) struct WallClock;

impl relay_core::time::Clock for WallClock {
    fn now(&self) -> relay_core::time::Timestamp {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        relay_core::time::Timestamp::from_millis(ms)
    }
}

/// The kind's client alone: `concurrency` workers publishing `messages`,
/// each awaiting its acknowledgement. Returns (seconds, failures).
async fn raw_run<B: Broker>(
    broker: &B,
    messages: Vec<Prepared>,
    concurrency: usize,
) -> anyhow::Result<(f64, u64)> {
    let guard = Guard::with_resolver(
        &OutboundConfig {
            allow_ports: vec![broker.port()],
            allow_cidrs: vec!["127.0.0.1/32".into()],
            block_cidrs: vec![],
            extra_ca_certs: trusted_cas(broker),
            allow_plaintext_credentials_to_loopback: false,
        },
        Arc::new(StaticResolver::new()),
    )?;
    let shared = Shared {
        https: HttpsClient::new(guard),
        clock: Arc::new(WallClock),
    };
    let mut secrets = relay_core::secret::Secrets::new();
    for (name, value) in tenant_secrets(broker) {
        secrets.insert(
            relay_core::secret::SecretRef::Secret(name.into()),
            relay_core::secret::SecretValue::from(value.as_str()),
        );
    }
    let client = relay_destinations::build(&broker.destination(Side::Raw), &shared, &secrets)
        .map_err(|e| anyhow::anyhow!("unresolved: {}", e.0))?;
    let messages = Arc::new(messages);
    let next = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency.max(1) {
        let (client, messages, next, failures) = (
            client.clone(),
            messages.clone(),
            next.clone(),
            failures.clone(),
        );
        workers.spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(m) = messages.get(i) else { break };
                let d = client.deliver(m, Limits::default()).await;
                if d.classify(Timestamp::from_millis(0)) != relay_core::outcome::Verdict::Delivered
                {
                    failures.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    while workers.join_next().await.is_some() {}
    Ok((
        started.elapsed().as_secs_f64(),
        failures.load(Ordering::Relaxed),
    ))
}

/// A consumer named after the workload, and its one endpoint to
/// `destination` for `bench.published`, `concurrency` attempts at a time,
/// the whole payload in each message (as the raw client sends it).
pub(crate) async fn subscribe(
    api: &mut http::Api,
    name: &str,
    destination: &Config,
    concurrency: u32,
) -> anyhow::Result<()> {
    let consumer = api
        .call(
            Method::POST,
            "/v1/consumers",
            Some(json!({"external_id": format!("{name}-bench")})),
        )
        .await?;
    api.call(
        Method::POST,
        "/v1/endpoints",
        Some(json!({
            "consumer_id": consumer["id"],
            "destination": destination,
            "event_types": ["bench.published"],
            "max_concurrency": concurrency,
            "snapshot_fields": ["*"],
        })),
    )
    .await?;
    Ok(())
}

/// Runs the workload against `broker`, then cleans up after it (also when
/// the run failed).
pub(crate) async fn run<B: Broker>(
    args: &BenchArgs,
    relay: Host,
    data: &Arc<str>,
    mut broker: B,
) -> anyhow::Result<Report> {
    let result = measure(args, relay, data, &mut broker).await;
    broker.clean_up().await;
    result
}

async fn measure<B: Broker>(
    args: &BenchArgs,
    relay: Host,
    data: &Arc<str>,
    broker: &mut B,
) -> anyhow::Result<Report> {
    let events = args.events.unwrap_or(10_000);
    let concurrency = args.endpoint_concurrency.unwrap_or(10);
    let (name, ack) = (broker.name(), broker.ack());
    let relay_destination = broker.destination(Side::Relay);
    let kind = relay_destination.kind();

    let env = Env::start_trusting(args, relay, &[broker.port()], &trusted_cas(broker)).await?;
    let mut api = http::Api {
        conn: Conn::plain(env.api_addr).await?,
        token: env.api_key.clone(),
    };
    for (name, value) in tenant_secrets(broker) {
        api.call(
            Method::PUT,
            &format!("/v1/secrets/{name}"),
            Some(json!({ "value": value })),
        )
        .await?;
    }
    subscribe(&mut api, name, &relay_destination, concurrency).await?;
    // One event first, outside the clock, as the producer alone's first
    // record: the kind's start (a connection, Kafka's metadata and
    // producer id) is not what is measured, and the events published
    // meanwhile would be a backlog the whole run then claims.
    let warm = env.tracker.begin(1);
    publish(&env, &warm, "bench.published", data, 1, None).await?;
    let deadline = Instant::now() + Duration::from_secs(args.timeout_seconds);
    while broker.stored(Side::Relay).await? < 1 {
        anyhow::ensure!(
            Instant::now() < deadline,
            "the first event was not delivered within {} s",
            args.timeout_seconds
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let leased0 = env.counter("relay_leased_at_publish_total");
    let phase = env.tracker.begin(events);
    let cpu0 = Cpu::now();
    let published = publish(
        &env,
        &phase,
        "bench.published",
        data,
        args.concurrency,
        None,
    )
    .await?;
    let deadline = Instant::now() + Duration::from_secs(args.timeout_seconds);
    let mut stored = 0;
    while stored < events && Instant::now() < deadline {
        stored = broker.stored(Side::Relay).await?.saturating_sub(1);
        if stored < events {
            let every = if broker.slow_to_count() { 20 } else { 5 };
            tokio::time::sleep(Duration::from_millis(every)).await;
        }
    }
    let relay_s = published.started.elapsed().as_secs_f64();
    let relay_cpu = cpu0.relay_since(&Cpu::now());
    let relay_rate = stored as f64 / relay_s.max(1e-9);
    let backend = env.backend;
    let leased_at_publish = env.counter("relay_leased_at_publish_total") - leased0;
    env.finish().await;

    let messages = raw_messages(events, data)?;
    let alone = match broker.producer_alone(&messages).await {
        Some(r) => Some(r?),
        None => None,
    };
    let (raw_s, raw_failures) = raw_run(broker, messages, concurrency as usize).await?;
    let raw_rate = (events - raw_failures) as f64 / raw_s.max(1e-9);
    let raw_stored = broker.stored(Side::Raw).await?;
    let ratio = relay_rate / raw_rate.max(1e-9);
    let complete = stored == events && raw_failures == 0 && raw_stored == events;

    let mut m = common_json(args, backend);
    m.insert("broker".into(), json!(kind));
    m.insert("ack".into(), json!(ack));
    m.insert("events".into(), json!(events));
    m.insert("endpoint_concurrency".into(), json!(concurrency));
    m.insert("delivered".into(), json!(stored));
    m.insert("relay_stored".into(), json!(stored));
    m.insert("publish_errors".into(), json!(published.errors));
    m.insert("relay_seconds".into(), json!(round(relay_s)));
    m.insert("relay_deliveries_per_s".into(), json!(round(relay_rate)));
    m.insert("relay_cpu_s".into(), json!(round(relay_cpu)));
    m.insert("leased_at_publish".into(), json!(leased_at_publish));
    m.insert(
        "relay_cpu_s_per_1000".into(),
        json!(round(relay_cpu * 1000.0 / stored.max(1) as f64)),
    );
    if let Some((alone_s, alone_failures)) = alone {
        let rate = (events - alone_failures) as f64 / alone_s.max(1e-9);
        m.insert("producer_alone_failures".into(), json!(alone_failures));
        m.insert("producer_alone_per_s".into(), json!(round(rate)));
        m.insert(
            "producer_alone_ratio".into(),
            json!(round(relay_rate / rate.max(1e-9))),
        );
    }
    m.insert("raw_failures".into(), json!(raw_failures));
    m.insert("raw_seconds".into(), json!(round(raw_s)));
    m.insert("raw_publishes_per_s".into(), json!(round(raw_rate)));
    m.insert("raw_stored".into(), json!(raw_stored));
    m.insert("ratio".into(), json!(round(ratio)));
    m.insert("complete".into(), json!(complete));
    m.insert("target_met".into(), json!(complete && ratio >= 0.5));
    let mut rows = vec![
        row(
            "events",
            events.to_string(),
            format!("{concurrency} in flight"),
        ),
        row(
            "relay deliveries/s",
            format!("{relay_rate:.0}"),
            format!("{stored} stored in {relay_s:.2} s (publish → {ack}, held by the broker)"),
        ),
        row(
            "raw client publishes/s",
            format!("{raw_rate:.0}"),
            format!(
                "{raw_failures} failed, {raw_stored} stored, {raw_s:.2} s (the kind's client alone, {ack} awaited)"
            ),
        ),
    ];
    if let Some((alone_s, alone_failures)) = alone {
        let rate = (events - alone_failures) as f64 / alone_s.max(1e-9);
        rows.push(row(
            "producer alone/s",
            format!("{rate:.0}"),
            format!(
                "{alone_failures} failed, {alone_s:.2} s (every record handed over at once); relay is {:.1} % of it",
                relay_rate / rate.max(1e-9) * 100.0
            ),
        ));
    }
    rows.extend([
        row(
            "ratio",
            format!("{:.0} %", ratio * 100.0),
            if ratio >= 0.5 {
                "target ≥ 50 %: met"
            } else {
                "target ≥ 50 %: NOT met"
            },
        ),
        row(
            "relay cpu",
            format!("{relay_cpu:.2} s"),
            format!(
                "{:.3} s / 1000 deliveries",
                relay_cpu * 1000.0 / stored.max(1) as f64
            ),
        ),
        row(
            "leased at publish (no claim)",
            leased_at_publish.to_string(),
            format!(
                "{:.0} % of deliveries",
                leased_at_publish as f64 * 100.0 / stored.max(1) as f64
            ),
        ),
    ]);
    Ok(Report {
        title: format!(
            "relay bench {name}: {events} events to one {kind} endpoint vs the raw client ({backend})"
        ),
        third: "note",
        rows,
        json: Value::Object(m),
    })
}
