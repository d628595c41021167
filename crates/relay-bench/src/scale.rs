//! `scale`: the cost at scale (issue 47). One Relay, one database, two
//! endpoints (as `throughput`), in this order:
//!
//! 1. `throughput` on the empty database (E events to the two endpoints);
//! 2. a history of `--history` delivered messages (their events, their one
//!    attempt each), created 40 to 31 days ago, split over the two
//!    endpoints, written through `relay_store::seed` 100,000 per
//!    transaction (PostgreSQL: then `VACUUM (ANALYZE)`, as autovacuum
//!    would have by then); its bytes on disk per delivery, by table, index
//!    and column (`relay_store::stats`);
//! 3. `throughput` again beside the history (the retention is 100 years
//!    until step 5, so nothing is purged): the slowdown against step 1;
//! 4. the tenant API's reads against the history: each list (and lookup)
//!    a few hundred times one after the other, p50/p99, the worst p99;
//! 5. the retention purge beside live traffic: `throughput` measured on a
//!    freshly restarted Relay on the same database each time: with nothing
//!    to purge, then three times with the default retention (30 days), so
//!    the engine's purge starts at once on the whole history and runs
//!    throughout, each followed by one with nothing to purge again (the
//!    restart ends the purge between two batches). The cost is 1 - the
//!    median with / the median without: both sides restarted alike, the
//!    drift of a growing database (autovacuum, a cold pool) on both sides,
//!    and one slow burst does not decide it.

use relay_store::ExecutorExt as _;

use super::*;

mod history;
mod purge;
use crate::backlog::now_millis;
use history::{History, prefix, seed_history};

/// The history's age: older than the purge's retention, younger than the
/// retention of the steps before it.
const HISTORY_FROM_DAYS: i64 = 40;
const HISTORY_TO_DAYS: i64 = 31;
/// The retention while nothing may be purged, and Relay's default.
const KEPT_DAYS: i64 = 36_500;
const RETENTION_DAYS: i64 = 30;
/// Deliveries written per transaction.
const CHUNK: u64 = 100_000;
/// Requests per read, at most, and the time each read is given.
const READS: usize = 300;
const READ_BUDGET: Duration = Duration::from_secs(15);
const DAY_MS: i64 = 86_400_000;

/// One `throughput` measurement on the running Relay.
struct Burst {
    per_s: f64,
    complete: bool,
    deliveries: u64,
    cpu_per_1000: f64,
    latency: Percentiles,
    /// PostgreSQL: what the server wrote to its log during the burst.
    wal: Option<relay_store::stats::WalWritten>,
}

impl Burst {
    fn json(&self) -> Value {
        let mut out = json!({
            "deliveries_per_s": round(self.per_s),
            "deliveries": self.deliveries,
            "complete": self.complete,
            "relay_cpu_s_per_1000": round(self.cpu_per_1000),
            "latency_ms": self.latency.json(),
        });
        if let Some(wal) = self.wal {
            let per = |v: i64| round(v as f64 / self.deliveries.max(1) as f64);
            out["wal_bytes_per_delivery"] = json!(per(wal.bytes));
            out["wal_full_pages_per_delivery"] = json!(per(wal.full_pages));
        }
        out
    }
}

/// E events to the `bench.published` endpoints, as fast as the publisher
/// goes; deliveries/s from the first publish to the last receipt.
async fn burst(
    env: &Env,
    args: &BenchArgs,
    events: u64,
    k: u64,
    data: &Arc<str>,
) -> anyhow::Result<Burst> {
    let phase = env.tracker.begin(events);
    let wal0 = wal_written(env).await?;
    let cpu0 = Cpu::now();
    let published = publish(env, &phase, "bench.published", data, args.concurrency, None).await?;
    let waited = phase
        .wait_accepted(k, Duration::from_secs(args.timeout_seconds))
        .await;
    let cpu1 = Cpu::now();
    let wal = match (wal0, wal_written(env).await?) {
        (Some(a), Some(b)) => Some(relay_store::stats::WalWritten {
            bytes: b.bytes - a.bytes,
            full_pages: b.full_pages - a.full_pages,
        }),
        _ => None,
    };
    let arrived = phase.arrived.load(Ordering::Acquire);
    let elapsed = phase
        .last_arrival()
        .saturating_duration_since(published.started)
        .as_secs_f64();
    Ok(Burst {
        per_s: arrived as f64 / elapsed.max(1e-9),
        complete: waited && published.errors == 0,
        deliveries: arrived,
        cpu_per_1000: cpu0.relay_since(&cpu1) * 1000.0 / arrived.max(1) as f64,
        latency: phase.percentiles(),
        wal,
    })
}

/// The bursts' deliveries/s, in their order (`6,120, 6,480, …`).
fn rates(bursts: &[Burst]) -> String {
    let r: Vec<String> = bursts.iter().map(|b| format!("{:.0}", b.per_s)).collect();
    r.join(", ")
}

/// PostgreSQL's log written so far (`None` on SQLite).
async fn wal_written(env: &Env) -> anyhow::Result<Option<relay_store::stats::WalWritten>> {
    env.read(|mut x| Box::pin(async move { relay_store::stats::wal_written(&mut x).await }))
        .await
}

/// The retention period of the Relay's configuration file.
fn retention(days: i64) -> impl FnOnce(&mut toml::Table) {
    move |config| {
        let mut t = toml::Table::new();
        t.insert("days".into(), days.into());
        config.insert("retention".into(), t.into());
    }
}

/// Bytes on disk of the database, the history tables, their indexes and
/// their columns, each also per delivery.
async fn bytes(env: &Env, deliveries: u64) -> anyhow::Result<Value> {
    let (sizes, columns) = env
        .read(|mut x| {
            Box::pin(async move {
                let sizes = relay_store::stats::sizes(&mut x).await?;
                let mut columns = Vec::new();
                for table in relay_store::stats::HISTORY_TABLES {
                    columns.push((
                        table,
                        relay_store::stats::column_bytes(&mut x, table).await?,
                    ));
                }
                Ok((sizes, columns))
            })
        })
        .await?;
    let per = |b: i64| round(b as f64 / deliveries.max(1) as f64);
    let history: i64 = sizes.by_object.iter().map(|o| o.bytes).sum();
    let table_of = |t: &str, index: bool| -> i64 {
        sizes
            .by_object
            .iter()
            .filter(|o| o.table == t && o.index == index)
            .map(|o| o.bytes)
            .sum()
    };
    Ok(json!({
        "deliveries": deliveries,
        "method": if sizes.by_object.is_empty() { "database size only (no dbstat)" } else if env.backend == "postgres" { "pg_table_size, pg_relation_size" } else { "page_count × page_size, dbstat" },
        "database_bytes": sizes.database_bytes,
        "free_bytes": sizes.free_bytes,
        "database_per_delivery": per(sizes.database_bytes),
        // The figure the target reports: the history's tables and indexes
        // when they are known one by one, else the whole database.
        "per_delivery": per(if history > 0 { history } else { sizes.database_bytes }),
        "by_table": relay_store::stats::HISTORY_TABLES.iter().map(|t| json!({
            "table": t,
            "rows_per_delivery": per(table_of(t, false)),
            "indexes_per_delivery": per(table_of(t, true)),
        })).collect::<Vec<_>>(),
        "by_object": sizes.by_object.iter().map(|o| json!({
            "name": o.name, "table": o.table, "index": o.index,
            "bytes": o.bytes, "per_delivery": per(o.bytes),
        })).collect::<Vec<_>>(),
        // Largest first.
        "columns_per_delivery": columns.iter().map(|(t, cs)| (t.to_string(), Value::Array(
            cs.iter().map(|(c, b)| json!({"column": c, "per_delivery": per(*b)})).collect()
        ))).collect::<serde_json::Map<_, _>>(),
    }))
}

/// A small generator of the history's numbers to read.
struct Pick(u64);

impl Pick {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below.max(1)
    }
}

/// The tenant API's reads against the history, each one request at a time
/// on one connection: lists with and without filters, page 1 and a deep
/// page by cursor, and the lookups beside them (there is no list of events
/// or of an endpoint's attempts: an event, and a message's attempts, are
/// read by id).
async fn reads(env: &Env, history: History) -> anyhow::Result<Value> {
    let per = history.per.max(1);
    let e0 = &env.endpoint_ids[0];
    let deep = history.message_id(0, per / 2);
    let from = now_millis()? - HISTORY_FROM_DAYS * DAY_MS;
    let window = |ms: i64| relay_core::time::Timestamp::from_millis(ms).to_rfc3339();
    // A day in the middle of the history.
    let mid = from + (HISTORY_FROM_DAYS - HISTORY_TO_DAYS) * DAY_MS / 2;
    let (since, until) = (window(mid), window(mid + DAY_MS));
    let fixed: Vec<(&str, String)> = vec![
        ("messages, page 1", "/v1/messages?limit=50".into()),
        (
            "messages, deep page (cursor)",
            format!("/v1/messages?limit=50&after={deep}"),
        ),
        (
            "messages of an endpoint, page 1",
            format!("/v1/messages?endpoint_id={e0}&limit=50"),
        ),
        (
            "messages of an endpoint, deep page",
            format!("/v1/messages?endpoint_id={e0}&limit=50&after={deep}"),
        ),
        (
            "messages, state=delivered (all match)",
            "/v1/messages?state=delivered&limit=50".into(),
        ),
        (
            "messages of an endpoint, a day's window",
            format!("/v1/messages?endpoint_id={e0}&since={since}&until={until}&limit=50"),
        ),
        (
            "messages, state=exhausted (none match)",
            "/v1/messages?state=exhausted&limit=50".into(),
        ),
        (
            "messages, error_code=http_503 (none match)",
            "/v1/messages?error_code=http_503&limit=50".into(),
        ),
        (
            "missed messages of an endpoint (none)",
            format!("/v1/endpoints/{e0}/missed?limit=50"),
        ),
    ];
    let mut pick = Pick(u64::from_le_bytes(random_bytes::<8>()) | 1);
    let mut conn = Conn::plain(env.api_addr).await?;
    let auth = format!("Bearer {}", env.api_key);
    let mut cases = Vec::new();
    let (mut worst, mut worst_name) = (0.0f64, String::new());
    for case in 0..fixed.len() + 4 {
        let mut samples = Vec::new();
        let started = Instant::now();
        let mut name = String::new();
        while samples.len() < READS && (samples.is_empty() || started.elapsed() < READ_BUDGET) {
            let i = pick.next(per);
            let id = format!("{}{i:010}", prefix(0));
            let message = history.message_id(0, i);
            let (n, path) = match case {
                c if c < fixed.len() => (fixed[c].0, fixed[c].1.clone()),
                c if c == fixed.len() => (
                    "message's attempts",
                    format!("/v1/messages/{message}/attempts"),
                ),
                c if c == fixed.len() + 1 => ("a message by id", format!("/v1/messages/{message}")),
                c if c == fixed.len() + 2 => ("an event by id", format!("/v1/events/{id}")),
                _ => (
                    "messages of an event",
                    format!("/v1/messages?event_id={id}"),
                ),
            };
            name = n.to_string();
            let t0 = Instant::now();
            let (status, body) = conn
                .send(
                    Method::GET,
                    &path,
                    &[("authorization", &auth)],
                    Bytes::new(),
                )
                .await?;
            samples.push(micros(t0.elapsed()));
            anyhow::ensure!(
                status.is_success(),
                "GET {path}: {status}: {}",
                String::from_utf8_lossy(&body)
            );
        }
        let p = Percentiles::of(samples);
        eprintln!(
            "reads: {name}: p50 {:.2} ms, p99 {:.2} ms ({} requests)",
            p.p50, p.p99, p.count
        );
        if p.p99 > worst {
            (worst, worst_name) = (p.p99, name.clone());
        }
        cases.push(json!({"read": name, "latency_ms": p.json()}));
    }
    Ok(json!({"cases": cases, "worst_p99_ms": round(worst), "worst": worst_name}))
}

pub(crate) async fn scale(
    args: &BenchArgs,
    relay: Host,
    data: &Arc<str>,
) -> anyhow::Result<Report> {
    let history = args.history.unwrap_or(10_000_000);
    let events = args.events.unwrap_or(10_000);
    let k = 2usize;
    let specs: Vec<EndpointSpec> = (0..k)
        .map(|j| EndpointSpec {
            path: format!("/e{j}"),
            event_type: "bench.published",
        })
        .collect();
    let mut env = Env::start(args, relay, &specs).await?;
    // Nothing is purged until step 5.
    env.relaunch(retention(KEPT_DAYS)).await?;
    let empty = burst(&env, args, events, k as u64, data).await?;
    let endpoints = env.endpoint_ids.clone();
    let history_data: Arc<str> = match args.history_payload_bytes {
        Some(n) => Arc::from(payload(n)),
        None => data.clone(),
    };
    let shape = History::new(history, k as u64)?;
    let seed_s = seed_history(&env, &endpoints, history, shape, &history_data).await?;
    let stored = history + empty.deliveries;
    let bytes = bytes(&env, stored).await?;
    let without = burst(&env, args, events, k as u64, data).await?;
    let reads = reads(&env, shape).await?;
    // Step 5: the purge's cost (`purge`).
    let run = purge::run(&mut env, args, events, k as u64, data).await?;
    let (with, around, baseline) = (run.typical(), &run.around, run.baseline());
    let slowdown = empty.per_s / without.per_s.max(1e-9);
    let cost = 1.0 - run.with_per_s() / baseline.max(1e-9);
    let complete = [&empty, &without]
        .into_iter()
        .chain(around)
        .chain(&run.with)
        .all(|b| b.complete);

    let mut m = common_json(args, env.backend);
    m.insert("history".into(), json!(history));
    m.insert("history_payload_bytes".into(), json!(history_data.len()));
    m.insert("events".into(), json!(events));
    m.insert("endpoints".into(), json!(k));
    m.insert("complete".into(), json!(complete));
    m.insert(
        "seed".into(),
        json!({"seconds": round(seed_s), "deliveries_per_s": round(history as f64 / seed_s.max(1e-9)), "chunk": CHUNK}),
    );
    m.insert(
        "throughput".into(),
        json!({"empty": empty.json(), "history": without.json()}),
    );
    m.insert("throughput_slowdown".into(), json!(round(slowdown)));
    m.insert("reads".into(), reads.clone());
    m.insert(
        "purge".into(),
        json!({
            "without": around.iter().map(Burst::json).collect::<Vec<_>>(),
            "without_per_s": round(baseline), "with": with.json(),
            "with_runs": run.with.iter().map(Burst::json).collect::<Vec<_>>(),
            "with_per_s": round(run.with_per_s()), "cost": round(cost),
            "history_events_before": run.left0, "history_events_after": run.left1,
            "purged_during": run.during,
            "purged_per_s": round(run.during as f64 / run.window.max(1e-9)),
            "throughout": run.left1 > 0,
        }),
    );
    m.insert("bytes".into(), bytes.clone());
    m.insert("peak_rss_mib".into(), json!(round(peak_rss_mib())));
    let per_delivery = bytes["per_delivery"].as_f64().unwrap_or_default();
    let mut rows = vec![
        row(
            "history seeded",
            format!("{history} in {seed_s:.1} s"),
            format!("{:.0} deliveries/s", history as f64 / seed_s.max(1e-9)),
        ),
        row(
            "deliveries/s, empty database",
            format!("{:.0}", empty.per_s),
            format!("CPU {:.3} s / 1000", empty.cpu_per_1000),
        ),
        row(
            "deliveries/s, beside the history",
            format!("{:.0}", without.per_s),
            format!("CPU {:.3} s / 1000", without.cpu_per_1000),
        ),
        row(
            "slowdown (empty / history)",
            format!("{slowdown:.2}×"),
            "target <= 1.3×",
        ),
        row(
            "deliveries/s, restarted, nothing to purge",
            format!("{:.0}", baseline),
            format!(
                "median of {} (before the purge's runs and after each)",
                rates(around)
            ),
        ),
        row(
            "deliveries/s, restarted, purge running",
            format!("{:.0}", run.with_per_s()),
            format!(
                "median of {}; CPU {:.3} s / 1000 (the median's run)",
                rates(&run.with),
                with.cpu_per_1000
            ),
        ),
        row(
            "purge's cost (1 - with / without)",
            format!("{:.1} %", cost * 100.0),
            format!(
                "target < 10 %; {} events purged in {:.1} s{}",
                run.during,
                run.window,
                if run.left1 > 0 {
                    ", still running"
                } else {
                    ", purge ENDED during the run"
                }
            ),
        ),
    ];
    if let (Some(w), Some(b)) = (with.wal, around.first().and_then(|b| b.wal)) {
        let per = |bytes: i64, pages: i64, n: u64| {
            let n = n.max(1) as f64;
            format!(
                "{:.0} B ({:.2} full pages)",
                bytes as f64 / n,
                pages as f64 / n
            )
        };
        rows.push(row(
            "  PostgreSQL's log per delivery, purge running",
            per(w.bytes, w.full_pages, with.deliveries),
            format!(
                "before, nothing to purge: {}",
                per(b.bytes, b.full_pages, around[0].deliveries)
            ),
        ));
    }
    rows.push(row(
        "reads: worst p99",
        ms(reads["worst_p99_ms"].as_f64().unwrap_or_default()),
        format!(
            "target < 50 ms; {}",
            reads["worst"].as_str().unwrap_or_default()
        ),
    ));
    for c in reads["cases"].as_array().into_iter().flatten() {
        rows.push(row(
            &format!("  {}", c["read"].as_str().unwrap_or_default()),
            format!(
                "{} / {}",
                ms(c["latency_ms"]["p50"].as_f64().unwrap_or_default()),
                ms(c["latency_ms"]["p99"].as_f64().unwrap_or_default())
            ),
            format!("p50 / p99, {} requests", c["latency_ms"]["samples"]),
        ));
    }
    rows.push(row(
        "bytes on disk per delivery",
        format!("{per_delivery:.0} B"),
        format!(
            "events, messages, attempts and their indexes; whole database {:.0} B ({})",
            bytes["database_per_delivery"].as_f64().unwrap_or_default(),
            bytes["method"].as_str().unwrap_or_default()
        ),
    ));
    for o in bytes["by_object"].as_array().into_iter().flatten() {
        rows.push(row(
            &format!(
                "  {}{}",
                o["name"].as_str().unwrap_or_default(),
                if o["index"] == true { " (index)" } else { "" }
            ),
            format!("{:.0} B", o["per_delivery"].as_f64().unwrap_or_default()),
            "",
        ));
    }
    for (table, columns) in bytes["columns_per_delivery"]
        .as_object()
        .into_iter()
        .flatten()
    {
        let top: Vec<String> = columns
            .as_array()
            .into_iter()
            .flatten()
            .take(4)
            .map(|c| {
                let name = c["column"].as_str().unwrap_or_default();
                format!(
                    "{name} {:.0}",
                    c["per_delivery"].as_f64().unwrap_or_default()
                )
            })
            .collect();
        rows.push(row(
            &format!("  {table}'s largest columns"),
            String::new(),
            format!("{} B", top.join(", ")),
        ));
    }
    env.finish().await;
    Ok(Report {
        third: "note",
        title: format!(
            "relay bench scale: {history} delivered messages of history ({} B data each), {events} events × {k} endpoints, {} B payload, {} backend, load {}",
            history_data.len(),
            args.payload_bytes,
            m["backend"].as_str().unwrap_or_default(),
            load_average()
        ),
        rows,
        json: Value::Object(m),
    })
}
