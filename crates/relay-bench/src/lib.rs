//! `relay bench <workload>`: Relay in-process (SQLite in a fresh temporary
//! data directory, or a fresh PostgreSQL database), a fast HTTPS receiver on
//! loopback (`relay_receiver`, count-only) and a publisher on the public HTTP
//! API, started by one command; prints a table (or `--json`).
//!
//! Threads: Relay runs on its own tokio runtime (`relay-worker` threads, plus
//! its SQLite worker threads); the receiver, the publisher and the `limit`
//! client run on another (`bench-worker`). Relay's CPU time is the process's
//! minus the `bench-*` threads' (from `/proc/self/task/*/stat`) and those of
//! a peer the bench runs in its process (`measure::peer_threads_started`).
//!
//! Latency is publish→receive: from the moment the publisher starts sending
//! the event's request to the moment the receiver has read a delivery's
//! whole body (matched by `webhook-id`, which is the event id the publisher
//! chose).
//!
//! This crate is on no production path: the `relay` binary hands [`run`] a
//! [`Launch`], the way to start a Relay from a configuration file exactly as
//! `relay serve` does, so the dependencies still point down (the bench knows
//! the store, for its seed data, the receiver, and the destinations' clients
//! for the raw side of the broker workloads; not the API or the
//! dispatcher). Map: `env` a run's Relay, tenant, endpoints and receiver;
//! `publish` the publisher; `track` arrivals and latencies; `limit` the
//! ceiling; one module per workload (`throughput` also holds `fanout` and
//! `latency`; `backlog`, `isolation`, `fairness`, `receipts`, `scale`); `broker` the
//! broker workload and the `Broker` trait, with one module per broker
//! (`nats`, `redis`, `rabbitmq`, `mqtt`, `kafka`, and `sqs` queues,
//! `sns` topics and `eventbridge` buses on a moto server of their own, `moto`;
//! `pubsub` on the Pub/Sub emulator behind its front door, `service_bus`
//! against the Service Bus judge); `s3` object storage against one too; `suite` runs `targets`,
//! judged by `targets`; `http` the API client; `measure` CPU, RSS,
//! percentiles.

mod backlog;
mod broker;
mod env;
mod eventbridge;
mod fairness;
mod http;
mod isolation;
mod kafka;
mod limit;
mod measure;
mod moto;
mod mqtt;
mod nats;
mod publish;
mod pubsub;
mod rabbitmq;
mod receipts;
mod redis;
mod s3;
mod scale;
mod service_bus;
mod sns;
mod sqs;
mod suite;
mod targets;
mod throughput;
mod track;

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use anyhow::Context;
use bytes::Bytes;
use hyper::Method;
use relay_core::model::{Environment, MessageState, SignatureScheme};
use relay_core::signature::{SigningKey, VerificationKey};
use relay_core::time::Timestamp;
use relay_receiver::{Arrival, Behavior, Receiver, ReceiverConfig, TestCa};
use serde_json::{Value, json};

use self::backlog::{Seed, backlog, insert_messages};
use self::fairness::fairness;
use self::http::{Conn, Tenant};
use self::isolation::isolation;
use self::limit::{limit_for_ratios, limit_workload};
use self::measure::{Cpu, Percentiles, micros, peak_rss_mib, round};
use self::publish::{payload, publish};
use self::receipts::receipts;
use self::suite::targets_workload;
use self::throughput::{fresh_latency, latency, paced, throughput};

/// A Relay started for a run: what the bench needs of it.
pub struct Launched {
    /// Where its HTTP API listens.
    pub api_addr: SocketAddr,
    /// Its store: `backend()` names it; the seed data goes through it.
    pub store: Arc<dyn relay_store::Store>,
    /// Send `true` to stop it (the API and the dispatcher).
    pub stop: tokio::sync::watch::Sender<bool>,
    /// Completes once the dispatcher has stopped.
    pub engine: tokio::task::JoinHandle<()>,
    /// Its `/metrics` text.
    pub metrics: Arc<dyn Fn() -> String + Send + Sync>,
}

/// How the binary starts a Relay: from the `relay.toml` at the path it is
/// given (no environment), wired as `relay serve` wires it, its API on a
/// free loopback port. Called on the Relay's own runtime.
pub type Launch = Arc<
    dyn Fn(std::path::PathBuf) -> Pin<Box<dyn Future<Output = anyhow::Result<Launched>> + Send>>
        + Send
        + Sync,
>;

/// The runtime Relay runs on, and how to start one there.
#[derive(Clone)]
struct Host {
    runtime: tokio::runtime::Handle,
    launch: Launch,
}

impl Host {
    fn spawn<F>(&self, future: F) -> tokio::task::JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.runtime.spawn(future)
    }
}

/// What to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Workload {
    /// E events to K endpoints: deliveries/s, latency, CPU, peak RSS.
    Throughput,
    /// A fixed publish rate for a fixed time: latency percentiles.
    Latency,
    /// One event type, N endpoints subscribed, E events.
    Fanout,
    /// M messages scheduled in the future; idle CPU and a fresh message's latency.
    Backlog,
    /// One endpoint that never answers with messages queued, beside 10 healthy ones.
    Isolation,
    /// The ceiling: the bench's own client drives the receiver directly.
    Limit,
    /// Tenant B publishes live while tenant A bulk-retries M failed messages:
    /// B's latency with and without A's recovery running.
    Fairness,
    /// Inbound provider webhooks at `--rate` for `--seconds`: receipts/s,
    /// the `2xx` latency, and when the ledger writer has processed them all.
    Receipts,
    /// NATS JetStream: E events delivered to one `nats_jetstream` endpoint
    /// against the kind's client alone publishing as many messages with the
    /// same concurrency (PubAck awaited), in one run.
    Nats,
    /// Redis Streams: as `nats`, to a `redis_stream` endpoint (the `XADD`
    /// reply's entry id is the acknowledgement).
    Redis,
    /// RabbitMQ: as `nats`, to a `rabbitmq` endpoint (persistent, mandatory
    /// publishes; the publisher confirm is the acknowledgement).
    Rabbitmq,
    /// MQTT: as `nats`, to an `mqtt` endpoint (MQTT 5, QoS 1; the
    /// `PUBACK` of each publish's packet identifier is the acknowledgement).
    Mqtt,
    /// S3-compatible object storage: E events delivered to one `s3`
    /// endpoint with the default batch (500 events an object) into a
    /// private moto server (`--moto-server`), beside the kind's client
    /// alone writing as many objects of the same size: events/s and
    /// objects/s of each, and their ratio.
    S3,
    /// Amazon SQS: E events delivered to one `sqs` endpoint (a standard
    /// queue of a private moto server, `--moto-server`) beside the kind's
    /// client alone sending as many (`SendMessage`'s `MessageId`, MD5s
    /// checked) with the same concurrency: messages/s and their ratio.
    Sqs,
    /// Amazon SNS: as `sqs`, to one `sns` endpoint (a standard topic with
    /// an SQS queue subscribed, raw message delivery, which is counted)
    /// beside the kind's client alone publishing as many (`Publish`'s
    /// `MessageId`) to a second topic.
    Sns,
    /// Amazon EventBridge: as `sqs`, to one `eventbridge` endpoint (a bus
    /// whose rule routes to an SQS queue, which is counted) beside the
    /// kind's client alone putting as many (the entry's `EventId`) on a
    /// second bus.
    Eventbridge,
    /// Google Cloud Pub/Sub: as `sqs`, to one `pubsub` endpoint (a topic
    /// of the Google Cloud CLI's emulator behind Relay's tests' front door,
    /// `scripts/judges/pubsub_front.py`: TLS, the service account's JWT
    /// grant, bearer tokens) beside the kind's client alone publishing as
    /// many (the publish's `messageIds`) to a second topic.
    Pubsub,
    /// Azure Service Bus: as `sqs`, to one `azure_service_bus` endpoint (a
    /// queue of the Service Bus judge, `scripts/judges/servicebus_judge.py`,
    /// SAS checked on every send; no emulator exists) beside the kind's
    /// client alone sending as many (`201`) to a second queue.
    #[value(name = "service-bus")]
    ServiceBus,
    /// Kafka: as `nats`, to a `kafka` endpoint on librdkafka's mock
    /// cluster, which the bench starts on loopback (`acks=all`, idempotent
    /// producer; the delivery report is the acknowledgement); also
    /// librdkafka's producer alone with every record handed over at once.
    Kafka,
    /// The cost at scale: `throughput` on an empty database, then beside
    /// `--history` delivered messages (seeded), the API's reads against
    /// them, the retention purge's cost to live traffic, bytes on disk
    /// per delivery.
    Scale,
    /// Every target of the bench, measured in one command: `backlog`,
    /// `latency`, `isolation` and `throughput` on SQLite (and `throughput`
    /// on PostgreSQL with `--database-url`), each judged met or not.
    Targets,
}

#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// The workload.
    #[arg(value_enum)]
    workload: Workload,
    /// Events to publish (throughput: 10000, fanout: 20).
    #[arg(long)]
    events: Option<u64>,
    /// Endpoints subscribed (throughput: 2, latency: 1, fanout: 1000, isolation: 10 healthy,
    /// fairness: 8 of the retrying tenant).
    #[arg(long)]
    endpoints: Option<usize>,
    /// `max_concurrency` of every endpoint (Relay's default when absent).
    #[arg(long)]
    endpoint_concurrency: Option<u32>,
    /// Publisher connections (keep-alive), each one request at a time.
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// Size of each event's `data` (JSON).
    #[arg(long, default_value_t = 1024)]
    payload_bytes: usize,
    /// Print machine-readable JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Verify every delivery's signature at the receiver.
    #[arg(long)]
    verify: bool,
    /// PostgreSQL server URL (postgres://user@host/db): a fresh database is
    /// created next to `db` for the run and dropped afterwards. Default: SQLite.
    #[arg(long)]
    database_url: Option<String>,
    /// Events per second (latency: 1000, isolation: 100, fairness: 50,
    /// receipts: 1000).
    #[arg(long)]
    rate: Option<f64>,
    /// How long to publish at `--rate` (latency, isolation; fairness: each
    /// of the two runs).
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Messages scheduled in the future (backlog: 1000000), or failed and
    /// bulk-retried (fairness: 50000).
    #[arg(long)]
    messages: Option<u64>,
    /// Delivered messages of history seeded (scale: 10000000; targets'
    /// scale runs: 1000000).
    #[arg(long)]
    history: Option<u64>,
    /// Size of each history event's `data` (scale; default `--payload-bytes`).
    #[arg(long)]
    history_payload_bytes: Option<usize>,
    /// How long idle CPU is measured (backlog).
    #[arg(long, default_value_t = 10)]
    idle_seconds: u64,
    /// Messages queued for the endpoint that never answers (isolation).
    #[arg(long, default_value_t = 10_000)]
    queued: u64,
    /// Requests the `limit` workload sends.
    #[arg(long, default_value_t = 20_000)]
    requests: u64,
    /// Requests of the `limit` run made after other workloads, for the
    /// ratios (default: as many as deliveries, 2000 to 20000).
    #[arg(long)]
    limit_requests: Option<u64>,
    /// Connections of the `limit` client.
    #[arg(long, default_value_t = 32)]
    limit_concurrency: usize,
    /// Skip the `limit` run after other workloads (no ratios).
    #[arg(long)]
    no_limit: bool,
    /// Give up waiting for deliveries after this long.
    #[arg(long, default_value_t = 300)]
    timeout_seconds: u64,
    /// The port of the NATS server with JetStream on 127.0.0.1 (`nats`).
    #[arg(long, default_value_t = 4222)]
    nats_port: u16,
    /// The port of the Redis server on 127.0.0.1 (`redis`).
    #[arg(long, default_value_t = 6379)]
    redis_port: u16,
    /// The port of the RabbitMQ broker on 127.0.0.1, `guest`/`guest` (`rabbitmq`).
    #[arg(long, default_value_t = 5672)]
    rabbitmq_port: u16,
    /// The port of the MQTT broker on 127.0.0.1 (`mqtt`; anonymous
    /// publishing allowed).
    #[arg(long, default_value_t = 1883)]
    mqtt_port: u16,
    /// The moto server program (`s3`, `sqs`, `sns`, `eventbridge`; PyPI `moto[server]`), started on a
    /// free port on 127.0.0.1 for the run.
    #[arg(long, default_value = ".test-env/venv/bin/moto_server")]
    moto_server: std::path::PathBuf,
    /// The Google Cloud CLI's Pub/Sub emulator (`pubsub`; Java), started
    /// on a free port on 127.0.0.1 for the run.
    #[arg(
        long,
        default_value = "/usr/lib/google-cloud-sdk/platform/pubsub-emulator/bin/cloud-pubsub-emulator"
    )]
    pubsub_emulator: std::path::PathBuf,
    /// The Python of the test environment, which runs the judges
    /// (`pubsub`'s front door with `google-auth`, `service-bus`'s judge).
    #[arg(long, default_value = ".test-env/venv/bin/python")]
    python: std::path::PathBuf,
    /// The judges' directory (`scripts/judges` of the repository, whose
    /// `pubsub_front.py` and `servicebus_judge.py` the `pubsub` and
    /// `service-bus` workloads run).
    #[arg(long, default_value = "scripts/judges")]
    judges: std::path::PathBuf,
    /// Worker threads of the bench's own runtime (receiver, publisher).
    #[arg(long, default_value_t = 2)]
    bench_threads: usize,
    /// Relay nodes on one PostgreSQL database (`throughput`, `fanout`,
    /// `latency`; needs `--database-url`): each its own store, API and
    /// dispatcher, started in this process on Relay's runtime; publishers
    /// spread their connections over the nodes' APIs.
    #[arg(long, default_value_t = 1)]
    nodes: usize,
}

/// Runs one workload and prints its report; every Relay it measures is
/// started by `launch`. (The caller sets up logging.)
pub fn run(args: BenchArgs, launch: Launch) -> anyhow::Result<()> {
    let relay_rt = tokio::runtime::Builder::new_multi_thread()
        .thread_name("relay-worker")
        .enable_all()
        .build()?;
    let bench_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.bench_threads.max(1))
        .thread_name("bench-worker")
        .enable_all()
        .build()?;
    let relay = Host {
        runtime: relay_rt.handle().clone(),
        launch,
    };
    let json_out = args.json;
    let report = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("bench-main".into())
            .spawn_scoped(s, || bench_rt.block_on(run_workload(args, relay)))
            .map_err(anyhow::Error::from)?
            .join()
            .map_err(|_| anyhow::anyhow!("the bench thread panicked"))?
    })?;
    if json_out {
        println!("{}", serde_json::to_string_pretty(&report.json)?);
    } else {
        report.print();
    }
    // Attempts may still hang (isolation): do not wait for them.
    relay_rt.shutdown_timeout(Duration::from_secs(1));
    bench_rt.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}

/// One workload's results: rows for the table and the JSON document.
struct Report {
    title: String,
    /// The third column's heading.
    third: &'static str,
    rows: Vec<(String, String, String)>,
    json: Value,
}

impl Report {
    fn print(&self) {
        println!("{}", self.title);
        let w0 = self.rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let w1 = self.rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
        println!("{:w0$}  {:>w1$}  {}", "metric", "value", self.third);
        println!("{}", "-".repeat(w0 + w1 + 12));
        for (k, v, r) in &self.rows {
            println!("{k:w0$}  {v:>w1$}  {r}");
        }
    }
}

/// One batch of events whose deliveries are timed: event ids are
/// `<prefix><index>`, send times are kept per index.
struct Phase {
    prefix: String,
    base: Instant,
    /// Nanoseconds after `base` + 1 when the event's publish started; 0 = not yet.
    sends: Vec<AtomicU64>,
    latencies: Mutex<Vec<u32>>,
    arrived: AtomicU64,
    /// Publishes that failed: no deliveries are awaited for them.
    failed: AtomicU64,
    /// Nanoseconds after `base` of the latest arrival.
    last: AtomicU64,
}

/// Routes the receiver's arrivals to the current phase.
#[derive(Default)]
struct Tracker {
    current: RwLock<Option<Arc<Phase>>>,
    phases: AtomicU64,
}

struct EndpointSpec {
    path: String,
    event_type: &'static str,
}

/// Relay, the receiver and the tenant the publisher uses.
struct Env {
    /// The first node's API (the one the tenant was made through).
    api_addr: SocketAddr,
    /// Every node's API, the first one first (`--nodes`).
    api_addrs: Vec<SocketAddr>,
    /// The nodes after the first (`--nodes`).
    others: Vec<Node>,
    operator_token: String,
    /// The receiver's port.
    port: u16,
    api_key: String,
    tenant_id: String,
    endpoint_ids: Vec<String>,
    receiver: Receiver,
    tracker: Arc<Tracker>,
    backend: &'static str,
    /// The running Relay's store (for seed data).
    store: Arc<dyn relay_store::Store>,
    relay: Host,
    stop: tokio::sync::watch::Sender<bool>,
    engine: tokio::task::JoinHandle<()>,
    /// The PostgreSQL server and the database made for the run.
    pg_drop: Option<(String, String)>,
    limit_key: SigningKey,
    /// Relay's `/metrics` text.
    metrics: Arc<dyn Fn() -> String + Send + Sync>,
    _dir: tempfile::TempDir,
}

/// A node after the first: its API, its stop signal, its dispatcher, its
/// `/metrics` text.
struct Node {
    stop: tokio::sync::watch::Sender<bool>,
    engine: tokio::task::JoinHandle<()>,
    metrics: Arc<dyn Fn() -> String + Send + Sync>,
}

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source");
    b
}

/// How long a run's attempts in flight may finish when it ends (its
/// Relay's `[delivery] shutdown_grace_seconds`).
const FINISH_GRACE: Duration = Duration::from_secs(1);

struct Published {
    started: Instant,
    finished: Instant,
    errors: u64,
    api: Percentiles,
}

struct LimitResult {
    requests: u64,
    errors: u64,
    seconds: f64,
    requests_per_s: f64,
    loaded: Percentiles,
    unloaded: Percentiles,
    process_cpu_per_1000: f64,
}

async fn run_workload(args: BenchArgs, relay: Host) -> anyhow::Result<Report> {
    let data: Arc<str> = Arc::from(payload(args.payload_bytes));
    if args.nodes != 1 {
        anyhow::ensure!(
            matches!(
                args.workload,
                Workload::Throughput | Workload::Fanout | Workload::Latency
            ),
            "--nodes applies to the throughput, fanout and latency workloads"
        );
        anyhow::ensure!(
            args.database_url.is_some(),
            "--nodes needs --database-url: several nodes share one PostgreSQL database"
        );
        anyhow::ensure!((1..=16).contains(&args.nodes), "--nodes is from 1 to 16");
    }
    match args.workload {
        Workload::Limit => limit_workload(&args, &data).await,
        Workload::Throughput | Workload::Fanout => throughput(&args, relay, &data).await,
        Workload::Latency => latency(&args, relay, &data).await,
        Workload::Backlog => backlog(&args, relay, &data).await,
        Workload::Isolation => isolation(&args, relay, &data).await,
        Workload::Fairness => fairness(&args, relay, &data).await,
        Workload::Targets => targets_workload(&args, relay, &data).await,
        Workload::Receipts => receipts(&args, relay, &data).await,
        Workload::Scale => scale::scale(&args, relay, &data).await,
        Workload::Nats => broker::run(&args, relay, &data, nats::nats(args.nats_port).await?).await,
        Workload::Redis => {
            broker::run(&args, relay, &data, redis::redis(args.redis_port).await?).await
        }
        Workload::Rabbitmq => {
            let broker = rabbitmq::rabbitmq(args.rabbitmq_port).await?;
            broker::run(&args, relay, &data, broker).await
        }
        Workload::Mqtt => broker::run(&args, relay, &data, mqtt::mqtt(args.mqtt_port).await?).await,
        Workload::S3 => s3::s3(&args, relay, &data).await,
        Workload::Sqs => broker::run(&args, relay, &data, sqs::sqs(&args.moto_server).await?).await,
        Workload::Sns => broker::run(&args, relay, &data, sns::sns(&args.moto_server).await?).await,
        Workload::Eventbridge => {
            let broker = eventbridge::eventbridge(&args.moto_server).await?;
            broker::run(&args, relay, &data, broker).await
        }
        Workload::Pubsub => {
            let broker = pubsub::pubsub(&args.pubsub_emulator, &args.python, &args.judges).await?;
            broker::run(&args, relay, &data, broker).await
        }
        Workload::ServiceBus => {
            let broker = service_bus::service_bus(&args.python, &args.judges).await?;
            broker::run(&args, relay, &data, broker).await
        }
        Workload::Kafka => broker::run(&args, relay, &data, kafka::kafka()?).await,
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn common_json(args: &BenchArgs, backend: &str) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    m.insert(
        "workload".into(),
        json!(format!("{:?}", args.workload).to_lowercase()),
    );
    m.insert("backend".into(), json!(backend));
    m.insert("nodes".into(), json!(args.nodes));
    m.insert("payload_bytes".into(), json!(args.payload_bytes));
    m.insert("verify".into(), json!(args.verify));
    m.insert("concurrency".into(), json!(args.concurrency));
    m.insert(
        "endpoint_concurrency".into(),
        json!(args.endpoint_concurrency),
    );
    m.insert(
        "cpus".into(),
        json!(std::thread::available_parallelism().map_or(0, |n| n.get())),
    );
    m.insert("load_average".into(), json!(load_average()));
    m
}

fn ms(x: f64) -> String {
    format!("{x:.2} ms")
}

fn times(x: f64, of: Option<f64>) -> String {
    match of {
        Some(l) if l > 0.0 => format!("{:.1}× limit", x / l),
        _ => String::new(),
    }
}

fn row(k: &str, v: String, r: impl Into<String>) -> (String, String, String) {
    (k.to_owned(), v, r.into())
}
