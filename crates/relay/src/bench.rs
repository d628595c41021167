//! `relay bench <workload>`: Relay in-process (SQLite in a fresh temporary
//! data directory, or a fresh PostgreSQL database), a fast HTTPS receiver on
//! loopback (`relay_receiver`, count-only) and a publisher on the public HTTP
//! API, started by one command; prints a table (or `--json`).
//!
//! Threads: Relay runs on its own tokio runtime (`relay-worker` threads, plus
//! its SQLite worker threads); the receiver, the publisher and the `limit`
//! client run on another (`bench-worker`). Relay's CPU time is the process's
//! minus the `bench-*` threads' (from `/proc/self/task/*/stat`).
//!
//! Latency is publish→receive: from the moment the publisher starts sending
//! the event's request to the moment the receiver has read a delivery's
//! whole body (matched by `webhook-id`, which is the event id the publisher
//! chose).

mod http;
mod measure;
mod targets;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use anyhow::Context;
use bytes::Bytes;
use hyper::Method;
use relay_core::model::SignatureScheme;
use relay_core::signature::{SigningKey, VerificationKey};
use relay_core::time::Timestamp;
use relay_receiver::{Arrival, Behavior, Receiver, ReceiverConfig, TestCa};
use serde_json::{Value, json};

use self::http::{Conn, Tenant};
use self::measure::{Cpu, Percentiles, micros, peak_rss_mib, round};
use crate::config::{Config, Flags};

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
    /// Events per second (latency: 1000, isolation: 100, fairness: 50).
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
    /// Worker threads of the bench's own runtime (receiver, publisher).
    #[arg(long, default_value_t = 2)]
    bench_threads: usize,
}

/// Runs one workload and prints its report.
pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_env("RELAY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(crate::serve::log_colours())
        .with_writer(std::io::stderr)
        .try_init();
    let relay_rt = tokio::runtime::Builder::new_multi_thread()
        .thread_name("relay-worker")
        .enable_all()
        .build()?;
    let bench_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.bench_threads.max(1))
        .thread_name("bench-worker")
        .enable_all()
        .build()?;
    let relay = relay_rt.handle().clone();
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

// ----- tracking arrivals ------------------------------------------------------

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

impl Phase {
    fn new(prefix: String, events: u64) -> Arc<Phase> {
        Arc::new(Phase {
            prefix,
            base: Instant::now(),
            sends: (0..events).map(|_| AtomicU64::new(0)).collect(),
            latencies: Mutex::new(Vec::new()),
            arrived: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            last: AtomicU64::new(0),
        })
    }

    fn since_base(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.base).as_nanos()).unwrap_or(u64::MAX)
    }

    fn sent(&self, index: usize, at: Instant) {
        if let Some(s) = self.sends.get(index) {
            s.store(self.since_base(at) + 1, Ordering::Relaxed);
        }
    }

    fn arrival(&self, id: &str, at: Instant) {
        let Some(index) = id
            .strip_prefix(&self.prefix)
            .and_then(|i| i.parse::<usize>().ok())
        else {
            return;
        };
        let Some(sent) = self.sends.get(index).map(|s| s.load(Ordering::Relaxed)) else {
            return;
        };
        let now = self.since_base(at);
        if sent > 0 {
            let micros = now.saturating_sub(sent - 1) / 1000;
            self.latencies
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(u32::try_from(micros).unwrap_or(u32::MAX));
        }
        self.last.fetch_max(now, Ordering::Relaxed);
        self.arrived.fetch_add(1, Ordering::Release);
    }

    fn percentiles(&self) -> Percentiles {
        let v = self
            .latencies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        Percentiles::of(v)
    }

    /// Waits until `n` matched deliveries arrived; `false` on timeout.
    async fn wait(&self, n: u64, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while self.arrived.load(Ordering::Acquire) < n {
            if Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        true
    }

    /// Waits until every delivery of the publishes that did not fail
    /// arrived, `per_event` each: a run whose publishes were refused ends
    /// at once instead of waiting out `timeout` for deliveries that cannot
    /// come. (A publish that failed in transport may still have been
    /// accepted; the wait does not count on its deliveries.) `false` on
    /// timeout, said on stderr.
    async fn wait_accepted(&self, per_event: u64, timeout: Duration) -> bool {
        let events = self.sends.len() as u64;
        let accepted = events.saturating_sub(self.failed.load(Ordering::Acquire));
        let waited = self.wait(accepted * per_event, timeout).await;
        if !waited {
            let arrived = self.arrived.load(Ordering::Acquire);
            eprintln!(
                "timed out: {arrived} of {} deliveries arrived",
                events * per_event
            );
        }
        waited
    }

    fn last_arrival(&self) -> Instant {
        self.base + Duration::from_nanos(self.last.load(Ordering::Relaxed))
    }
}

/// Routes the receiver's arrivals to the current phase.
#[derive(Default)]
struct Tracker {
    current: RwLock<Option<Arc<Phase>>>,
    phases: AtomicU64,
}

impl Tracker {
    fn begin(&self, events: u64) -> Arc<Phase> {
        let n = self.phases.fetch_add(1, Ordering::Relaxed);
        let phase = Phase::new(format!("bench-p{n}-"), events);
        *self
            .current
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(phase.clone());
        phase
    }

    fn arrival(&self, a: Arrival<'_>) {
        let Some(id) = a.webhook_id else { return };
        let phase = self
            .current
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if let Some(p) = phase {
            p.arrival(id, a.at);
        }
    }
}

// ----- the environment ----------------------------------------------------------

struct EndpointSpec {
    path: String,
    event_type: &'static str,
}

/// Relay, the receiver and the tenant the publisher uses.
struct Env {
    api_addr: SocketAddr,
    operator_token: String,
    /// The receiver's port.
    port: u16,
    api_key: String,
    tenant_id: String,
    endpoint_ids: Vec<String>,
    receiver: Receiver,
    tracker: Arc<Tracker>,
    backend: &'static str,
    database_url: String,
    relay: tokio::runtime::Handle,
    stop: tokio::sync::watch::Sender<bool>,
    engine: tokio::task::JoinHandle<()>,
    pg_drop: Option<(String, String)>,
    limit_key: SigningKey,
    /// Relay's `/metrics` text.
    metrics: relay_api::MetricsRenderer,
    _dir: tempfile::TempDir,
}

impl Env {
    /// A counter of Relay's `/metrics` (0 when absent).
    fn counter(&self, name: &str) -> u64 {
        (self.metrics)()
            .lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or(0)
    }
}

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source");
    b
}

/// `url` with its database name replaced by `name`.
fn with_database(url: &str, name: &str) -> anyhow::Result<String> {
    let scheme_end = url.find("://").context("not a URL")? + 3;
    let (path_start, query) = match url[scheme_end..].find('/') {
        Some(i) => {
            let start = scheme_end + i;
            (start, url[start..].find('?').map(|q| &url[start + q..]))
        }
        None => (url.len(), None),
    };
    let base = &url[..path_start];
    Ok(format!("{base}/{name}{}", query.unwrap_or_default()))
}

async fn create_pg_database(url: &str) -> anyhow::Result<(String, String)> {
    use sqlx::Connection as _;
    let name = format!("relay_bench_{}", hex::encode(random_bytes::<6>()));
    let mut conn = sqlx::PgConnection::connect(url)
        .await
        .context("cannot connect to PostgreSQL (--database-url)")?;
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .context("cannot create the bench database")?;
    conn.close().await?;
    Ok((with_database(url, &name)?, name))
}

async fn drop_pg_database(url: &str, name: &str) {
    use sqlx::Connection as _;
    if let Ok(mut conn) = sqlx::PgConnection::connect(url).await {
        let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
        )))
        .execute(&mut conn)
        .await;
        let _ = conn.close().await;
    }
}

impl Env {
    /// Starts Relay on the `relay` runtime, creates the tenant and the
    /// endpoints, then starts the receiver (knowing the endpoints' keys).
    async fn start(
        args: &BenchArgs,
        relay: tokio::runtime::Handle,
        endpoints: &[EndpointSpec],
    ) -> anyhow::Result<Env> {
        let dir = tempfile::Builder::new().prefix("relay-bench-").tempdir()?;
        let ca = Arc::new(TestCa::generate());
        let ca_pem = ca.write_ca_pem(dir.path())?;
        // The receiver starts after the endpoints exist (to know their keys),
        // on a port bound now and held until then (another process could
        // take a port that was only chosen).
        let socket = std::net::TcpListener::bind("127.0.0.1:0")?;
        let port = socket.local_addr()?.port();
        let (database_url, pg_drop) = match &args.database_url {
            Some(url) => {
                let (fresh, name) = create_pg_database(url).await?;
                (Some(fresh), Some((url.clone(), name)))
            }
            None => (None, None),
        };
        let operator_token = format!("rop_bench{}", hex::encode(random_bytes::<16>()));
        let mut toml = toml::Table::new();
        toml.insert("data_dir".into(), dir.path().display().to_string().into());
        if let Some(url) = &database_url {
            toml.insert("database_url".into(), url.clone().into());
        }
        toml.insert("operator_token".into(), operator_token.clone().into());
        toml.insert(
            "master_key".into(),
            hex::encode(random_bytes::<32>()).into(),
        );
        toml.insert("log_level".into(), "warn".into());
        let mut outbound = toml::Table::new();
        outbound.insert(
            "allow_ports".into(),
            toml::Value::Array(vec![i64::from(port).into()]),
        );
        outbound.insert(
            "allow_cidrs".into(),
            toml::Value::Array(vec!["127.0.0.1/32".into()]),
        );
        outbound.insert(
            "extra_ca_certs".into(),
            toml::Value::Array(vec![ca_pem.display().to_string().into()]),
        );
        toml.insert("outbound".into(), outbound.into());
        let mut limits = toml::Table::new();
        limits.insert("endpoints_per_tenant".into(), 100_000.into());
        limits.insert("endpoints_per_consumer".into(), 100_000.into());
        toml.insert("limits".into(), limits.into());
        // Attempts that hang (`isolation`) are abandoned at the end of a run
        // within the time `finish` waits, so the dispatcher releases their
        // leases and stops before the run's store is dropped.
        let mut delivery = toml::Table::new();
        delivery.insert(
            "shutdown_grace_seconds".into(),
            i64::try_from(FINISH_GRACE.as_secs()).unwrap_or(1).into(),
        );
        toml.insert("delivery".into(), delivery.into());
        let config_path = dir.path().join("relay.toml");
        std::fs::write(&config_path, toml::to_string(&toml)?)?;
        let config = Config::load_from(
            &Flags {
                config: Some(config_path),
                ..Flags::default()
            },
            &[],
        )?;
        let database_url = config.database_url();

        let (stop, engine, backend, api_addr, metrics) = relay
            .spawn(async move {
                let started = crate::serve::start(&config).await?;
                let metrics = started
                    .state
                    .metrics
                    .get()
                    .cloned()
                    .context("the dispatcher's metrics are not wired")?;
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let addr = listener.local_addr()?;
                let backend = started.store.backend();
                let mut stop_rx = started.stop.subscribe();
                tokio::spawn(relay_api::serve(listener, started.state, async move {
                    let _ = stop_rx.wait_for(|s| *s).await;
                }));
                anyhow::Ok((started.stop, started.engine, backend, addr, metrics))
            })
            .await??;

        let mut tenant = Tenant::create(
            api_addr,
            &operator_token,
            "bench",
            &[
                "bench.published",
                "fresh.published",
                "backlog.scheduled",
                "bad.queued",
                "recovery.retried",
            ],
        )
        .await?;
        let (tenant_id, api_key) = (tenant.id.clone(), tenant.api.token.clone());
        let mut endpoint_ids = Vec::with_capacity(endpoints.len());
        let mut keys = Vec::new();
        for spec in endpoints {
            let url = format!("https://127.0.0.1:{port}{}", spec.path);
            let id = tenant
                .endpoint(&url, spec.event_type, args.endpoint_concurrency)
                .await?;
            if args.verify {
                let k = tenant
                    .api
                    .call(
                        Method::GET,
                        &format!("/v1/endpoints/{id}/signing-keys"),
                        None,
                    )
                    .await?;
                for key in k["data"].as_array().into_iter().flatten() {
                    if let Some(pk) = key["public_key"].as_str() {
                        keys.push(VerificationKey::parse(pk)?);
                    }
                }
            }
            endpoint_ids.push(id);
        }
        let limit_key = SigningKey::generate(SignatureScheme::V1a, random_bytes::<32>());
        keys.push(limit_key.verification_key());
        let receiver = Receiver::start_on(
            ReceiverConfig {
                ca: Some(ca),
                record_bodies: false,
                verify: args.verify.then_some(keys),
                ..ReceiverConfig::default()
            },
            socket,
        )
        .await?;
        let tracker = Arc::new(Tracker::default());
        let t = tracker.clone();
        receiver.set_arrival_hook(Some(Arc::new(move |a| t.arrival(a))));
        Ok(Env {
            api_addr,
            operator_token,
            port,
            api_key,
            tenant_id,
            endpoint_ids,
            receiver,
            tracker,
            backend,
            database_url,
            relay,
            stop,
            engine,
            pg_drop,
            limit_key,
            metrics,
            _dir: dir,
        })
    }

    async fn finish(self) {
        let _ = self.stop.send(true);
        // Let the dispatcher finish: attempts that hang, as in `isolation`,
        // are abandoned after `FINISH_GRACE`, and their leases released.
        let _ = tokio::time::timeout(FINISH_GRACE + Duration::from_secs(2), self.engine).await;
        if let Some((url, name)) = &self.pg_drop {
            drop_pg_database(url, name).await;
        }
    }
}

/// How long a run's attempts in flight may finish when it ends (its
/// Relay's `[delivery] shutdown_grace_seconds`).
const FINISH_GRACE: Duration = Duration::from_secs(1);

// ----- publishing ------------------------------------------------------------------

/// The `data` of every event: a JSON object of about `bytes` bytes.
fn payload(bytes: usize) -> String {
    let pad = bytes.saturating_sub(12).max(1);
    format!("{{\"pad\":\"{}\"}}", "x".repeat(pad))
}

struct Published {
    started: Instant,
    finished: Instant,
    errors: u64,
    api: Percentiles,
}

/// Publishes `phase.sends.len()` events of `event_type` over `concurrency`
/// keep-alive connections, as fast as possible or at `rate` per second.
async fn publish(
    env: &Env,
    phase: &Arc<Phase>,
    event_type: &'static str,
    data: &Arc<str>,
    concurrency: usize,
    rate: Option<f64>,
) -> anyhow::Result<Published> {
    let total = phase.sends.len();
    let next = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency.max(1) {
        let mut conn = Conn::plain(env.api_addr).await?;
        let auth = format!("Bearer {}", env.api_key);
        let (phase, next, errors, data) =
            (phase.clone(), next.clone(), errors.clone(), data.clone());
        workers.spawn(async move {
            let mut api_micros = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                if i >= total {
                    break;
                }
                if let Some(rate) = rate {
                    let due = started + Duration::from_secs_f64(i as f64 / rate);
                    tokio::time::sleep_until(due.into()).await;
                }
                let body = format!(
                    "{{\"id\":\"{}{i}\",\"type\":\"{event_type}\",\"data\":{data}}}",
                    phase.prefix
                );
                let sent = Instant::now();
                phase.sent(i, sent);
                let result = conn
                    .send(
                        Method::POST,
                        "/v1/events",
                        &[
                            ("authorization", &auth),
                            ("content-type", "application/json"),
                        ],
                        Bytes::from(body),
                    )
                    .await;
                api_micros.push(micros(sent.elapsed()));
                match result {
                    Ok((status, _)) if status.as_u16() == 202 => {}
                    Ok((status, answer)) => {
                        phase.failed.fetch_add(1, Ordering::Release);
                        if errors.fetch_add(1, Ordering::Relaxed) < 3 {
                            eprintln!(
                                "publish failed: {status}: {}",
                                String::from_utf8_lossy(&answer)
                            );
                        }
                    }
                    Err(e) => {
                        phase.failed.fetch_add(1, Ordering::Release);
                        if errors.fetch_add(1, Ordering::Relaxed) < 3 {
                            eprintln!("publish failed: {e:#}");
                        }
                        match Conn::plain(conn.addr()).await {
                            Ok(c) => conn = c,
                            Err(_) => break,
                        }
                    }
                }
            }
            api_micros
        });
    }
    let mut all = Vec::with_capacity(total);
    while let Some(done) = workers.join_next().await {
        all.extend(done?);
    }
    Ok(Published {
        started,
        finished: Instant::now(),
        errors: errors.load(Ordering::Relaxed),
        api: Percentiles::of(all),
    })
}

// ----- limit ---------------------------------------------------------------------------

struct LimitResult {
    requests: u64,
    errors: u64,
    seconds: f64,
    requests_per_s: f64,
    loaded: Percentiles,
    unloaded: Percentiles,
    process_cpu_per_1000: f64,
}

impl LimitResult {
    fn json(&self) -> Value {
        json!({
            "requests": self.requests,
            "errors": self.errors,
            "seconds": round(self.seconds),
            "requests_per_s": round(self.requests_per_s),
            "latency_ms": self.loaded.json(),
            "unloaded_latency_ms": self.unloaded.json(),
            "process_cpu_s_per_1000": round(self.process_cpu_per_1000),
        })
    }
}

/// A CloudEvents body like the ones Relay sends, around `data`.
fn envelope(id: &str, data: &str) -> String {
    format!(
        "{{\"specversion\":\"1.0\",\"id\":\"{id}\",\"source\":\"/consumers/bench\",\"type\":\"bench.published\",\
         \"time\":\"2026-01-01T00:00:00.000Z\",\"datacontenttype\":\"application/json\",\"data\":{data}}}"
    )
}

/// The bench's own client against the receiver: keep-alive, the same kind
/// of body, one Ed25519 signature per request.
async fn limit(
    receiver: &Receiver,
    key: &SigningKey,
    requests: u64,
    concurrency: usize,
    data: &Arc<str>,
) -> anyhow::Result<LimitResult> {
    let tls = receiver.ca().client_config();
    let addr = receiver.addr();
    let run = |n: u64, c: usize| {
        let tls = tls.clone();
        let key = key.clone();
        let data = data.clone();
        async move {
            let next = Arc::new(AtomicU64::new(0));
            let errors = Arc::new(AtomicU64::new(0));
            let mut workers = tokio::task::JoinSet::new();
            let mut conns = Vec::new();
            for _ in 0..c.max(1) {
                conns.push(Conn::tls(addr, tls.clone()).await?);
            }
            let started = Instant::now();
            for mut conn in conns {
                let (next, errors, key, data) =
                    (next.clone(), errors.clone(), key.clone(), data.clone());
                workers.spawn(async move {
                    let mut lat = Vec::new();
                    let keys = [key];
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break;
                        }
                        let t0 = Instant::now();
                        let id = format!("limit-{i}");
                        let body = envelope(&id, &data);
                        let now = Timestamp::from_millis(
                            std::time::SystemTime::now()
                                .duration_since(std::time::UNIX_EPOCH)
                                .map_or(0, |d| d.as_millis() as i64),
                        );
                        let signed =
                            relay_core::signature::sign_request(&keys, &id, now, body.as_bytes());
                        let result = conn
                            .send(
                                Method::POST,
                                "/limit",
                                &[
                                    ("content-type", "application/cloudevents+json"),
                                    ("webhook-id", &signed.webhook_id),
                                    ("webhook-timestamp", &signed.webhook_timestamp),
                                    ("webhook-signature", &signed.webhook_signature),
                                    ("relay-event-type", "bench.published"),
                                    ("relay-attempt", "1"),
                                ],
                                Bytes::from(body),
                            )
                            .await;
                        lat.push(micros(t0.elapsed()));
                        match result {
                            Ok((s, _)) if s.is_success() => {}
                            _ => {
                                errors.fetch_add(1, Ordering::Relaxed);
                            }
                        }
                    }
                    lat
                });
            }
            let mut all = Vec::new();
            while let Some(l) = workers.join_next().await {
                all.extend(l?);
            }
            anyhow::Ok((started.elapsed(), all, errors.load(Ordering::Relaxed)))
        }
    };
    let unloaded_n = requests.clamp(1, 500);
    let (_, unloaded, _) = run(unloaded_n, 1).await?;
    let cpu0 = Cpu::now();
    let (elapsed, loaded, errors) = run(requests, concurrency).await?;
    let cpu1 = Cpu::now();
    let seconds = elapsed.as_secs_f64();
    Ok(LimitResult {
        requests,
        errors,
        seconds,
        requests_per_s: requests as f64 / seconds.max(1e-9),
        loaded: Percentiles::of(loaded),
        unloaded: Percentiles::of(unloaded),
        process_cpu_per_1000: cpu0.process_since(&cpu1) * 1000.0 / requests.max(1) as f64,
    })
}

// ----- workloads ---------------------------------------------------------------------

async fn run_workload(args: BenchArgs, relay: tokio::runtime::Handle) -> anyhow::Result<Report> {
    let data: Arc<str> = Arc::from(payload(args.payload_bytes));
    match args.workload {
        Workload::Limit => limit_workload(&args, &data).await,
        Workload::Throughput | Workload::Fanout => throughput(&args, relay, &data).await,
        Workload::Latency => latency(&args, relay, &data).await,
        Workload::Backlog => backlog(&args, relay, &data).await,
        Workload::Isolation => isolation(&args, relay, &data).await,
        Workload::Fairness => fairness(&args, relay, &data).await,
        Workload::Targets => targets_workload(&args, relay, &data).await,
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

async fn limit_for_ratios(
    args: &BenchArgs,
    env: &Env,
    deliveries: u64,
    data: &Arc<str>,
) -> anyhow::Result<Option<LimitResult>> {
    if args.no_limit {
        return Ok(None);
    }
    // Relay is idle now (every delivery arrived); the limit runs beside it.
    let n = args
        .limit_requests
        .unwrap_or_else(|| deliveries.clamp(2000, 20_000));
    let phase = env.tracker.begin(0);
    drop(phase);
    Ok(Some(
        limit(
            &env.receiver,
            &env.limit_key,
            n,
            args.limit_concurrency,
            data,
        )
        .await?,
    ))
}

async fn limit_workload(args: &BenchArgs, data: &Arc<str>) -> anyhow::Result<Report> {
    let key = SigningKey::generate(SignatureScheme::V1a, random_bytes::<32>());
    let receiver = Receiver::start(ReceiverConfig {
        record_bodies: false,
        verify: args.verify.then(|| vec![key.verification_key()]),
        ..ReceiverConfig::default()
    })
    .await?;
    let r = limit(&receiver, &key, args.requests, args.limit_concurrency, data).await?;
    let mut m = common_json(args, "none");
    m.insert("concurrency".into(), json!(args.limit_concurrency));
    m.insert("received_total".into(), json!(receiver.count()));
    m.insert(
        "invalid_signatures".into(),
        json!(receiver.invalid_signatures()),
    );
    m.insert("peak_rss_mib".into(), json!(round(peak_rss_mib())));
    for (k, v) in r.json().as_object().into_iter().flatten() {
        m.insert(k.clone(), v.clone());
    }
    let rows = vec![
        row("requests", r.requests.to_string(), ""),
        row("received (both runs)", receiver.count().to_string(), ""),
        row("errors", r.errors.to_string(), ""),
        row("requests/s", format!("{:.0}", r.requests_per_s), ""),
        row("latency p50 (loaded)", ms(r.loaded.p50), ""),
        row("latency p99 (loaded)", ms(r.loaded.p99), ""),
        row("latency max (loaded)", ms(r.loaded.max), ""),
        row("latency p50 (1 connection)", ms(r.unloaded.p50), ""),
        row("latency p99 (1 connection)", ms(r.unloaded.p99), ""),
        row(
            "process CPU s / 1000 requests",
            format!("{:.3}", r.process_cpu_per_1000),
            "",
        ),
        row("peak RSS", format!("{:.1} MiB", peak_rss_mib()), ""),
    ];
    Ok(Report {
        third: "vs limit",
        title: format!(
            "relay bench limit: {} requests, {} connections, {} B payload, verify {}",
            args.requests, args.limit_concurrency, args.payload_bytes, args.verify
        ),
        rows,
        json: Value::Object(m),
    })
}

fn row(k: &str, v: String, r: impl Into<String>) -> (String, String, String) {
    (k.to_owned(), v, r.into())
}

async fn throughput(
    args: &BenchArgs,
    relay: tokio::runtime::Handle,
    data: &Arc<str>,
) -> anyhow::Result<Report> {
    let fanout = args.workload == Workload::Fanout;
    let events = args.events.unwrap_or(if fanout { 20 } else { 10_000 });
    let k = args.endpoints.unwrap_or(if fanout { 1000 } else { 2 });
    let specs: Vec<EndpointSpec> = (0..k)
        .map(|j| EndpointSpec {
            path: format!("/e{j}"),
            event_type: "bench.published",
        })
        .collect();
    let env = Env::start(args, relay, &specs).await?;
    let expected = events * k as u64;
    let phase = env.tracker.begin(events);
    let conns0 = env.receiver.connections();
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
    let waited = phase
        .wait_accepted(k as u64, Duration::from_secs(args.timeout_seconds))
        .await;
    let cpu1 = Cpu::now();
    let connections = env.receiver.connections() - conns0;
    let arrived = phase.arrived.load(Ordering::Acquire);
    let complete = waited && published.errors == 0;
    let elapsed = phase
        .last_arrival()
        .saturating_duration_since(published.started)
        .as_secs_f64();
    let per_s = arrived as f64 / elapsed.max(1e-9);
    let lat = phase.percentiles();
    let relay_cpu = cpu0.relay_since(&cpu1);
    let process_cpu = cpu0.process_since(&cpu1);
    let rss = peak_rss_mib();
    let invalid = env.receiver.invalid_signatures();
    let lim = limit_for_ratios(args, &env, expected, data).await?;
    let lrps = lim.as_ref().map(|l| l.requests_per_s);
    let lp50 = lim.as_ref().map(|l| l.unloaded.p50);
    let lp99 = lim.as_ref().map(|l| l.unloaded.p99);
    let ratio = lrps.map(|l| per_s / l);

    let mut m = common_json(args, env.backend);
    m.insert("events".into(), json!(events));
    m.insert("endpoints".into(), json!(k));
    m.insert("expected_deliveries".into(), json!(expected));
    m.insert("deliveries".into(), json!(arrived));
    m.insert("complete".into(), json!(complete));
    m.insert("timed_out".into(), json!(!waited));
    m.insert("publish_errors".into(), json!(published.errors));
    m.insert(
        "publish_seconds".into(),
        json!(round(
            (published.finished - published.started).as_secs_f64()
        )),
    );
    m.insert("publish_api_latency_ms".into(), published.api.json());
    m.insert("invalid_signatures".into(), json!(invalid));
    m.insert("receiver_connections".into(), json!(connections));
    let leased_at_publish = env.counter("relay_leased_at_publish_total");
    m.insert("leased_at_publish".into(), json!(leased_at_publish));
    m.insert("elapsed_s".into(), json!(round(elapsed)));
    m.insert("deliveries_per_s".into(), json!(round(per_s)));
    m.insert("latency_ms".into(), lat.json());
    m.insert("relay_cpu_s".into(), json!(round(relay_cpu)));
    m.insert(
        "relay_cpu_s_per_1000".into(),
        json!(round(relay_cpu * 1000.0 / arrived.max(1) as f64)),
    );
    m.insert("process_cpu_s".into(), json!(round(process_cpu)));
    m.insert("peak_rss_mib".into(), json!(round(rss)));
    m.insert(
        "limit".into(),
        lim.as_ref().map_or(Value::Null, |l| l.json()),
    );
    m.insert(
        "ratio_of_limit".into(),
        ratio.map_or(Value::Null, |r| json!(round(r))),
    );
    let rows = vec![
        row(
            "deliveries",
            format!("{arrived} of {expected}"),
            if invalid > 0 {
                format!("{invalid} invalid signatures")
            } else {
                String::new()
            },
        ),
        row("publish errors", published.errors.to_string(), ""),
        row("TLS connections Relay opened", connections.to_string(), ""),
        row(
            "leased at publish (no claim)",
            leased_at_publish.to_string(),
            format!(
                "{:.0} % of deliveries",
                leased_at_publish as f64 * 100.0 / arrived.max(1) as f64
            ),
        ),
        row(
            "elapsed (first publish → last receipt)",
            format!("{elapsed:.2} s"),
            "",
        ),
        row(
            "deliveries/s",
            format!("{per_s:.0}"),
            ratio.map_or(String::new(), |r| format!("{:.1} % of limit", r * 100.0)),
        ),
        row("latency p50", ms(lat.p50), times(lat.p50, lp50)),
        row("latency p99", ms(lat.p99), times(lat.p99, lp99)),
        row("latency max", ms(lat.max), ""),
        row(
            "publish API p50 / p99",
            format!("{} / {}", ms(published.api.p50), ms(published.api.p99)),
            "",
        ),
        row(
            "Relay CPU s / 1000 deliveries",
            format!("{:.3}", relay_cpu * 1000.0 / arrived.max(1) as f64),
            lim.as_ref().map_or(String::new(), |l| {
                format!(
                    "{:.1}× the limit's whole-process CPU",
                    relay_cpu / arrived.max(1) as f64 * 1000.0 / l.process_cpu_per_1000.max(1e-9)
                )
            }),
        ),
        row(
            "Relay CPU (whole process) s",
            format!("{relay_cpu:.2} ({process_cpu:.2})"),
            "",
        ),
        row("peak RSS (whole process)", format!("{rss:.1} MiB"), ""),
        row(
            "limit requests/s",
            lrps.map_or("-".into(), |l| format!("{l:.0}")),
            "",
        ),
    ];
    env.finish().await;
    Ok(Report {
        third: "vs limit",
        title: format!(
            "relay bench {}: {events} events × {k} endpoints, {} B payload, {} backend, {} publishers, verify {}, load {}",
            if fanout { "fanout" } else { "throughput" },
            args.payload_bytes,
            m["backend"].as_str().unwrap_or_default(),
            args.concurrency,
            args.verify,
            load_average()
        ),
        rows,
        json: Value::Object(m),
    })
}

/// Publishes at `rate` for `seconds` to the `bench.published` endpoints; waits
/// for every delivery of the accepted publishes; returns the phase, the
/// publish report and whether every publish was accepted and delivered.
async fn paced(
    args: &BenchArgs,
    env: &Env,
    rate: f64,
    endpoints: u64,
    data: &Arc<str>,
) -> anyhow::Result<(Arc<Phase>, Published, bool)> {
    let events = ((rate * args.seconds as f64).round() as u64).max(1);
    let phase = env.tracker.begin(events);
    let published = publish(
        env,
        &phase,
        "bench.published",
        data,
        args.concurrency,
        Some(rate),
    )
    .await?;
    let waited = phase
        .wait_accepted(endpoints, Duration::from_secs(args.timeout_seconds))
        .await;
    let complete = waited && published.errors == 0;
    Ok((phase, published, complete))
}

async fn latency(
    args: &BenchArgs,
    relay: tokio::runtime::Handle,
    data: &Arc<str>,
) -> anyhow::Result<Report> {
    let rate = args.rate.unwrap_or(1000.0);
    let k = args.endpoints.unwrap_or(1);
    let specs: Vec<EndpointSpec> = (0..k)
        .map(|j| EndpointSpec {
            path: format!("/e{j}"),
            event_type: "bench.published",
        })
        .collect();
    let env = Env::start(args, relay, &specs).await?;
    let conns0 = env.receiver.connections();
    let cpu0 = Cpu::now();
    let (phase, published, complete) = paced(args, &env, rate, k as u64, data).await?;
    let cpu1 = Cpu::now();
    let connections = env.receiver.connections() - conns0;
    let lat = phase.percentiles();
    let arrived = phase.arrived.load(Ordering::Acquire);
    let expected = phase.sends.len() as u64 * k as u64;
    let achieved =
        phase.sends.len() as f64 / (published.finished - published.started).as_secs_f64();
    let lim = limit_for_ratios(args, &env, expected, data).await?;
    let l = lim.as_ref().map(|l| l.unloaded);
    let mut m = common_json(args, env.backend);
    m.insert("rate".into(), json!(rate));
    m.insert("achieved_publish_rate".into(), json!(round(achieved)));
    m.insert("seconds".into(), json!(args.seconds));
    m.insert("endpoints".into(), json!(k));
    m.insert("expected_deliveries".into(), json!(expected));
    m.insert("deliveries".into(), json!(arrived));
    m.insert("complete".into(), json!(complete));
    m.insert("publish_errors".into(), json!(published.errors));
    m.insert("latency_ms".into(), lat.json());
    m.insert("publish_api_latency_ms".into(), published.api.json());
    m.insert("receiver_connections".into(), json!(connections));
    m.insert(
        "relay_cpu_s_per_1000".into(),
        json!(round(
            cpu0.relay_since(&cpu1) * 1000.0 / arrived.max(1) as f64
        )),
    );
    m.insert("peak_rss_mib".into(), json!(round(peak_rss_mib())));
    m.insert(
        "limit".into(),
        lim.as_ref().map_or(Value::Null, |l| l.json()),
    );
    let rows = vec![
        row("deliveries", format!("{arrived} of {expected}"), ""),
        row("publish rate achieved", format!("{achieved:.0}/s"), ""),
        row("TLS connections Relay opened", connections.to_string(), ""),
        row("latency p50", ms(lat.p50), times(lat.p50, l.map(|l| l.p50))),
        row("latency p99", ms(lat.p99), times(lat.p99, l.map(|l| l.p99))),
        row(
            "latency p99.9",
            ms(lat.p999),
            times(lat.p999, l.map(|l| l.p999)),
        ),
        row("latency max", ms(lat.max), ""),
        row(
            "publish API p50 / p99",
            format!("{} / {}", ms(published.api.p50), ms(published.api.p99)),
            "",
        ),
        row(
            "Relay CPU s / 1000 deliveries",
            format!(
                "{:.3}",
                cpu0.relay_since(&cpu1) * 1000.0 / arrived.max(1) as f64
            ),
            "",
        ),
    ];
    env.finish().await;
    Ok(Report {
        third: "vs limit",
        title: format!(
            "relay bench latency: {rate}/s for {} s to {k} endpoint(s), {} B payload, {} backend, load {}",
            args.seconds,
            args.payload_bytes,
            m["backend"].as_str().unwrap_or_default(),
            load_average()
        ),
        rows,
        json: Value::Object(m),
    })
}

/// Publishes `n` single events to the `fresh.published` endpoint one after the
/// other, each once the previous one arrived; their latencies.
async fn fresh_latency(env: &Env, n: u64, data: &Arc<str>) -> anyhow::Result<Percentiles> {
    let phase = env.tracker.begin(n);
    let mut conn = Conn::plain(env.api_addr).await?;
    let auth = format!("Bearer {}", env.api_key);
    for i in 0..n {
        let body = format!(
            "{{\"id\":\"{}{i}\",\"type\":\"fresh.published\",\"data\":{data}}}",
            phase.prefix
        );
        phase.sent(i as usize, Instant::now());
        let (status, answer) = conn
            .send(
                Method::POST,
                "/v1/events",
                &[
                    ("authorization", &auth),
                    ("content-type", "application/json"),
                ],
                Bytes::from(body),
            )
            .await?;
        if status.as_u16() != 202 {
            anyhow::bail!("publish: {status}: {}", String::from_utf8_lossy(&answer));
        }
        if !phase.wait(i + 1, Duration::from_secs(30)).await {
            anyhow::bail!("a fresh message did not arrive within 30 s");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(phase.percentiles())
}

/// Messages written straight into the database (see [`insert_messages`]).
struct Seed<'a> {
    tenant_id: &'a str,
    endpoint_id: &'a str,
    /// Event ids are `<prefix><i>`, message ids `msg_<prefix><i>`.
    prefix: &'a str,
    event_type: &'a str,
    count: u64,
    /// `scheduled` (due at `due`) or a failed state (`due` = `None`).
    state: &'a str,
    due: Option<i64>,
}

fn now_millis() -> anyhow::Result<i64> {
    Ok(std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_millis() as i64)
}

/// Inserts `m` events and their messages, due in a day, for `endpoint_id`,
/// straight into the database in batches (SQL generating the rows).
async fn insert_backlog(env: &Env, endpoint_id: &str, m: u64) -> anyhow::Result<f64> {
    let due = now_millis()? + 86_400_000;
    let tenant_id = env.tenant_id.clone();
    insert_messages(
        env,
        &Seed {
            tenant_id: &tenant_id,
            endpoint_id,
            prefix: "bk-",
            event_type: "backlog.scheduled",
            count: m,
            state: "scheduled",
            due: Some(due),
        },
    )
    .await
}

/// Inserts the seed's events and messages straight into the database in
/// batches (SQL generating the rows: a million through the API would take
/// longer than the measurement); returns the seconds it took.
async fn insert_messages(env: &Env, seed: &Seed<'_>) -> anyhow::Result<f64> {
    let url = env.database_url.clone();
    let tenant = seed.tenant_id.to_owned();
    let endpoint = seed.endpoint_id.to_owned();
    let (prefix, event_type, state) = (
        seed.prefix.to_owned(),
        seed.event_type.to_owned(),
        seed.state.to_owned(),
    );
    let (m, due) = (seed.count, seed.due);
    let sqlite = env.backend == "sqlite";
    let started = Instant::now();
    env.relay
        .spawn(async move {
            let now = now_millis()?;
            let trace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
            const BATCH: u64 = 100_000;
            // SQLite counts with a recursive CTE, PostgreSQL with generate_series.
            let (with, from) = if sqlite {
                (
                    "WITH RECURSIVE n(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM n WHERE i < $2) ",
                    "n",
                )
            } else {
                ("", "generate_series($1::bigint, $2::bigint) AS i")
            };
            // Failed messages used their attempts.
            let attempts = if due.is_some() { 0 } else { 10 };
            let events_sql = format!(
                "{with}INSERT INTO events (tenant_id, environment, id, event_type, type_version, data, traceparent, created_at) \
                 SELECT $3, 'live', $6 || i, $7, 1, '{{}}', $4, $5 FROM {from}"
            );
            let messages_sql = format!(
                "{with}INSERT INTO messages (id, tenant_id, environment, event_id, endpoint_id, event_type, state, \
                 attempts_used, next_attempt_at, created_at, updated_at) \
                 SELECT 'msg_' || $7 || i, $3, 'live', $7 || i, $4, $8, $9, {attempts}, $5, $6, $6 FROM {from}"
            );
            let mut start = 0u64;
            while start < m {
                let end = (start + BATCH).min(m) - 1;
                macro_rules! batch {
                    ($conn:ty) => {{
                        use sqlx::Connection as _;
                        let mut c = <$conn>::connect(&url).await?;
                        let mut tx = c.begin().await?;
                        sqlx::query(sqlx::AssertSqlSafe(events_sql.clone()))
                            .bind(start as i64)
                            .bind(end as i64)
                            .bind(&tenant)
                            .bind(trace)
                            .bind(now)
                            .bind(&prefix)
                            .bind(&event_type)
                            .execute(&mut *tx)
                            .await?;
                        sqlx::query(sqlx::AssertSqlSafe(messages_sql.clone()))
                            .bind(start as i64)
                            .bind(end as i64)
                            .bind(&tenant)
                            .bind(&endpoint)
                            .bind(due)
                            .bind(now)
                            .bind(&prefix)
                            .bind(&event_type)
                            .bind(&state)
                            .execute(&mut *tx)
                            .await?;
                        tx.commit().await?;
                        c.close().await?;
                    }};
                }
                if sqlite {
                    batch!(sqlx::SqliteConnection);
                } else {
                    batch!(sqlx::PgConnection);
                }
                start = end + 1;
                if m >= BATCH {
                    eprintln!("seed: {start} of {m} messages inserted");
                }
            }
            anyhow::Ok(())
        })
        .await??;
    Ok(started.elapsed().as_secs_f64())
}

async fn backlog(
    args: &BenchArgs,
    relay: tokio::runtime::Handle,
    data: &Arc<str>,
) -> anyhow::Result<Report> {
    let specs = [
        EndpointSpec {
            path: "/backlog".into(),
            event_type: "backlog.scheduled",
        },
        EndpointSpec {
            path: "/fresh".into(),
            event_type: "fresh.published",
        },
    ];
    let env = Env::start(args, relay, &specs).await?;
    // One after the other, 20 ms apart. With 20, the p50 ratio was 0.97×
    // to 2.75× over four runs (session 7); with 100, 0.82× to 1.31× over
    // three.
    const SAMPLES: u64 = 100;
    let empty = fresh_latency(&env, SAMPLES, data).await?;
    let cpu_e0 = Cpu::now();
    tokio::time::sleep(Duration::from_secs(args.idle_seconds)).await;
    let cpu_e1 = Cpu::now();
    let idle_empty = cpu_e0.relay_since(&cpu_e1) / args.idle_seconds.max(1) as f64;
    let messages = args.messages.unwrap_or(1_000_000);
    let insert_s = insert_backlog(&env, &env.endpoint_ids[0], messages).await?;
    // Let the dispatcher notice the new due time.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let cpu0 = Cpu::now();
    tokio::time::sleep(Duration::from_secs(args.idle_seconds)).await;
    let cpu1 = Cpu::now();
    let idle = cpu0.relay_since(&cpu1) / args.idle_seconds.max(1) as f64;
    let full = fresh_latency(&env, SAMPLES, data).await?;
    let lim = limit_for_ratios(args, &env, 2000, data).await?;
    let l = lim.as_ref().map(|l| l.unloaded);
    let mut m = common_json(args, env.backend);
    m.insert("messages".into(), json!(messages));
    m.insert("insert_seconds".into(), json!(round(insert_s)));
    m.insert("idle_seconds".into(), json!(args.idle_seconds));
    m.insert(
        "idle_cpu_percent_of_one_core".into(),
        json!(round(idle * 100.0)),
    );
    m.insert(
        "idle_cpu_percent_of_one_core_empty".into(),
        json!(round(idle_empty * 100.0)),
    );
    m.insert("fresh_latency_ms_empty".into(), empty.json());
    m.insert("fresh_latency_ms".into(), full.json());
    m.insert(
        "fresh_latency_ratio_to_empty_p50".into(),
        json!(round(full.p50 / empty.p50.max(1e-9))),
    );
    m.insert("peak_rss_mib".into(), json!(round(peak_rss_mib())));
    m.insert(
        "limit".into(),
        lim.as_ref().map_or(Value::Null, |l| l.json()),
    );
    let rows = vec![
        row(
            "backlog inserted",
            format!("{messages} in {insert_s:.1} s"),
            "",
        ),
        row(
            "idle CPU, backlog (% of one core)",
            format!("{:.2} %", idle * 100.0),
            "",
        ),
        row(
            "idle CPU, empty (% of one core)",
            format!("{:.2} %", idle_empty * 100.0),
            "",
        ),
        row(
            "fresh message p50, empty db",
            ms(empty.p50),
            times(empty.p50, l.map(|l| l.p50)),
        ),
        row(
            "fresh message p50, backlog",
            ms(full.p50),
            times(full.p50, l.map(|l| l.p50)),
        ),
        row(
            "fresh message max, empty / backlog",
            format!("{} / {}", ms(empty.max), ms(full.max)),
            "",
        ),
        row(
            "backlog / empty (p50)",
            format!("{:.2}×", full.p50 / empty.p50.max(1e-9)),
            "",
        ),
        row("peak RSS", format!("{:.1} MiB", peak_rss_mib()), ""),
    ];
    env.finish().await;
    Ok(Report {
        third: "vs limit",
        title: format!(
            "relay bench backlog: {} scheduled messages, {} backend, load {}",
            messages,
            m["backend"].as_str().unwrap_or_default(),
            load_average()
        ),
        rows,
        json: Value::Object(m),
    })
}

async fn isolation(
    args: &BenchArgs,
    relay: tokio::runtime::Handle,
    data: &Arc<str>,
) -> anyhow::Result<Report> {
    let rate = args.rate.unwrap_or(100.0);
    let k = args.endpoints.unwrap_or(10);
    let mut specs: Vec<EndpointSpec> = (0..k)
        .map(|j| EndpointSpec {
            path: format!("/h{j}"),
            event_type: "bench.published",
        })
        .collect();
    specs.push(EndpointSpec {
        path: "/bad".into(),
        event_type: "bad.queued",
    });
    let env = Env::start(args, relay, &specs).await?;
    env.receiver.set_path_behavior("/bad", Behavior::Hang);
    let (without, pub_a, complete_a) = paced(args, &env, rate, k as u64, data).await?;
    let a = without.percentiles();
    // Queue the bad endpoint's messages (through the API), then measure again.
    let bad = env.tracker.begin(args.queued);
    let bad_pub = publish(&env, &bad, "bad.queued", data, args.concurrency, None).await?;
    let (with, pub_b, complete_b) = paced(args, &env, rate, k as u64, data).await?;
    let b = with.percentiles();
    let expected = with.sends.len() as u64 * k as u64;
    let arrived_b = with.arrived.load(Ordering::Acquire);
    let lim = limit_for_ratios(args, &env, 2000, data).await?;
    let l = lim.as_ref().map(|l| l.unloaded);
    let mut m = common_json(args, env.backend);
    m.insert("rate".into(), json!(rate));
    m.insert("seconds".into(), json!(args.seconds));
    m.insert("healthy_endpoints".into(), json!(k));
    m.insert("queued_for_bad_endpoint".into(), json!(args.queued));
    m.insert("bad_publish_errors".into(), json!(bad_pub.errors));
    m.insert(
        "without".into(),
        json!({
            "latency_ms": a.json(), "complete": complete_a, "publish_errors": pub_a.errors,
            "deliveries": without.arrived.load(Ordering::Acquire),
        }),
    );
    m.insert(
        "with".into(),
        json!({
            "latency_ms": b.json(), "complete": complete_b, "publish_errors": pub_b.errors,
            "deliveries": arrived_b, "expected_deliveries": expected,
        }),
    );
    m.insert("p99_ratio".into(), json!(round(b.p99 / a.p99.max(1e-9))));
    m.insert(
        "limit".into(),
        lim.as_ref().map_or(Value::Null, |l| l.json()),
    );
    let rows = vec![
        row(
            "healthy p50 without",
            ms(a.p50),
            times(a.p50, l.map(|l| l.p50)),
        ),
        row(
            "healthy p99 without",
            ms(a.p99),
            times(a.p99, l.map(|l| l.p99)),
        ),
        row(
            "healthy p50 with",
            ms(b.p50),
            times(b.p50, l.map(|l| l.p50)),
        ),
        row(
            "healthy p99 with",
            ms(b.p99),
            times(b.p99, l.map(|l| l.p99)),
        ),
        row("healthy max with", ms(b.max), ""),
        row(
            "with / without (p99)",
            format!("{:.2}×", b.p99 / a.p99.max(1e-9)),
            "",
        ),
        row(
            "healthy deliveries with",
            format!("{arrived_b} of {expected}"),
            if complete_b { "" } else { "incomplete" },
        ),
    ];
    env.finish().await;
    Ok(Report {
        third: "vs limit",
        title: format!(
            "relay bench isolation: {k} healthy endpoints at {rate} events/s for {} s, one endpoint that never answers with {} queued, {} backend, load {}",
            args.seconds,
            args.queued,
            m["backend"].as_str().unwrap_or_default(),
            load_average()
        ),
        rows,
        json: Value::Object(m),
    })
}

/// Tenant B publishes live at `--rate` for `--seconds` (the baseline); then
/// tenant A, with `--messages` exhausted messages over `--endpoints`
/// endpoints, starts a bulk retry of them through the API, and B publishes
/// again for as long (the window). B's publish→delivery latency in both runs,
/// their ratio, and how much of A's recovery was delivered in the window.
async fn fairness(
    args: &BenchArgs,
    relay: tokio::runtime::Handle,
    data: &Arc<str>,
) -> anyhow::Result<Report> {
    if args.verify {
        anyhow::bail!(
            "fairness does not support --verify (tenant A's keys are made after the receiver starts)"
        );
    }
    let rate = args.rate.unwrap_or(50.0);
    let k = args.endpoints.unwrap_or(8).max(1);
    let messages = args.messages.unwrap_or(50_000);
    let specs = [EndpointSpec {
        path: "/live".into(),
        event_type: "bench.published",
    }];
    let env = Env::start(args, relay, &specs).await?;

    // Tenant A: its own key, consumer and endpoints, and its failed messages.
    let mut a = Tenant::create(
        env.api_addr,
        &env.operator_token,
        "bench-a",
        &["recovery.retried"],
    )
    .await?;
    let a_tenant = a.id.clone();
    let mut seed_s = 0.0;
    for j in 0..k {
        let url = format!("https://127.0.0.1:{}/a{j}", env.port);
        let endpoint_id = a
            .endpoint(&url, "recovery.retried", args.endpoint_concurrency)
            .await?;
        let share = messages / k as u64 + u64::from((j as u64) < messages % k as u64);
        seed_s += insert_messages(
            &env,
            &Seed {
                tenant_id: &a_tenant,
                endpoint_id: &endpoint_id,
                prefix: &format!("fa{j}-"),
                event_type: "recovery.retried",
                count: share,
                state: "exhausted",
                due: None,
            },
        )
        .await?;
    }

    // Baseline: B alone.
    let (without, pub_a, complete_a) = paced(args, &env, rate, 1, data).await?;
    let base = without.percentiles();
    // The window: A's bulk retry starts, B publishes as before.
    let received0 = env.receiver.count();
    let job = a
        .api
        .call(
            Method::POST,
            "/v1/messages/retry",
            Some(json!({"state": "exhausted"})),
        )
        .await?;
    let job_id = job["id"].as_str().context("job id")?.to_owned();
    let (with, pub_b, complete_b) = paced(args, &env, rate, 1, data).await?;
    let during = with.percentiles();
    let b_arrived = with.arrived.load(Ordering::Acquire);
    let a_delivered = (env.receiver.count() - received0).saturating_sub(b_arrived);
    let job = a
        .api
        .call(Method::GET, &format!("/v1/jobs/{job_id}"), None)
        .await?;
    let restarted = job["affected"].as_u64().unwrap_or(0);
    let ratio = during.p99 / base.p99.max(1e-9);
    let mut m = common_json(args, env.backend);
    m.insert("rate".into(), json!(rate));
    m.insert("seconds".into(), json!(args.seconds));
    m.insert("retrying_tenant_endpoints".into(), json!(k));
    m.insert("messages".into(), json!(messages));
    m.insert("seed_seconds".into(), json!(round(seed_s)));
    m.insert(
        "baseline".into(),
        json!({
            "latency_ms": base.json(), "complete": complete_a, "publish_errors": pub_a.errors,
            "deliveries": without.arrived.load(Ordering::Acquire),
        }),
    );
    m.insert(
        "during_bulk_retry".into(),
        json!({
            "latency_ms": during.json(), "complete": complete_b, "publish_errors": pub_b.errors,
            "deliveries": b_arrived,
        }),
    );
    m.insert("p99_ratio".into(), json!(round(ratio)));
    m.insert(
        "p50_ratio".into(),
        json!(round(during.p50 / base.p50.max(1e-9))),
    );
    m.insert("recovery_delivered_in_window".into(), json!(a_delivered));
    m.insert("recovery_restarted_in_window".into(), json!(restarted));
    m.insert("recovery_job_state".into(), job["state"].clone());
    let rows = vec![
        row(
            "B p50 / p99 / max, baseline",
            format!("{} / {} / {}", ms(base.p50), ms(base.p99), ms(base.max)),
            "",
        ),
        row(
            "B p50 / p99 / max, during A's retry",
            format!(
                "{} / {} / {}",
                ms(during.p50),
                ms(during.p99),
                ms(during.max)
            ),
            "",
        ),
        row("during / baseline (p99)", format!("{ratio:.2}×"), ""),
        row(
            "during / baseline (p50)",
            format!("{:.2}×", during.p50 / base.p50.max(1e-9)),
            "",
        ),
        row(
            "A restarted / delivered in the window",
            format!("{restarted} / {a_delivered} of {messages}"),
            "",
        ),
        row(
            "B deliveries, baseline / during",
            format!(
                "{} / {} of {}",
                without.arrived.load(Ordering::Acquire),
                b_arrived,
                with.sends.len()
            ),
            if complete_a && complete_b {
                ""
            } else {
                "incomplete"
            },
        ),
    ];
    env.finish().await;
    Ok(Report {
        third: "vs limit",
        title: format!(
            "relay bench fairness: tenant B live at {rate}/s for {} s, without and with tenant A bulk-retrying {messages} messages over {k} endpoints, {} backend, load {}",
            args.seconds,
            m["backend"].as_str().unwrap_or_default(),
            load_average()
        ),
        rows,
        json: Value::Object(m),
    })
}

/// `targets`: runs, one after the other in this process, each with a fresh
/// Relay and database, the workloads that measure the bench's targets, and
/// judges each target from their reports ([`targets::judge`]). In this
/// order: `throughput` first, before any run has written (and deleted) a
/// database of its own; `backlog` after the runs that stop cleanly, so its
/// idle CPU is its own; `isolation` last, as its hanging attempts outlive
/// it (a stopped dispatcher lets attempts finish for `shutdown_grace`).
/// The peak RSS is reset before `throughput`, so it is that run's.
/// The SQLite runs ignore `--database-url`; with it, `throughput` runs on
/// PostgreSQL too. `--rate` and `--endpoints` are not passed on: the
/// targets are stated at the workloads' defaults. The other flags are
/// (`--events`, `--seconds`, `--messages`, `--queued`, `--idle-seconds`,
/// `--concurrency`, `--endpoint-concurrency`, …), to shrink a smoke run.
async fn targets_workload(
    args: &BenchArgs,
    relay: tokio::runtime::Handle,
    data: &Arc<str>,
) -> anyhow::Result<Report> {
    use targets::Run;
    let sub = |workload: Workload, no_limit: bool, database_url: Option<String>| BenchArgs {
        workload,
        no_limit,
        database_url,
        rate: None,
        endpoints: None,
        ..args.clone()
    };
    let mut reports: Vec<(Run, Value)> = Vec::new();
    let rss_reset = measure::reset_peak_rss();
    let sqlite = throughput(&sub(Workload::Throughput, false, None), relay.clone(), data).await?;
    reports.push((Run::Throughput, sqlite.json));
    if let Some(url) = &args.database_url {
        let pg = throughput(
            &sub(Workload::Throughput, true, Some(url.clone())),
            relay.clone(),
            data,
        )
        .await?;
        reports.push((Run::ThroughputPostgres, pg.json));
    }
    let latency_run = latency(&sub(Workload::Latency, true, None), relay.clone(), data).await?;
    reports.push((Run::Latency, latency_run.json));
    let backlog_run = backlog(&sub(Workload::Backlog, true, None), relay.clone(), data).await?;
    reports.push((Run::Backlog, backlog_run.json));
    let isolation_run = isolation(&sub(Workload::Isolation, true, None), relay, data).await?;
    reports.push((Run::Isolation, isolation_run.json));
    let judged = targets::judge(&reports);
    let met = judged.iter().filter(|j| j.met == Some(true)).count();
    let backends = if args.database_url.is_some() {
        "sqlite, postgres"
    } else {
        "sqlite"
    };
    let mut m = common_json(args, backends);
    m.insert(
        "targets".into(),
        Value::Array(judged.iter().map(targets::Judged::json).collect()),
    );
    m.insert("met".into(), json!(met));
    m.insert("peak_rss_reset".into(), json!(rss_reset));
    m.insert(
        "runs".into(),
        Value::Object(
            reports
                .into_iter()
                .map(|(r, v)| (r.name().to_string(), v))
                .collect(),
        ),
    );
    let rows = judged
        .iter()
        .map(|j| {
            let mut verdict = format!("{} ({})", j.verdict(), j.stated);
            if !j.note.is_empty() {
                verdict.push_str(&format!(": {}", j.note));
            }
            row(j.name, j.shown.clone(), verdict)
        })
        .collect();
    Ok(Report {
        third: "verdict (target)",
        title: format!(
            "relay bench targets: {met} of {} met, one run each, load {}",
            judged.len(),
            load_average()
        ),
        rows,
        json: Value::Object(m),
    })
}
