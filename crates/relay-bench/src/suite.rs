//! `targets`: every workload behind the bench's targets, one after the
//! other in this process, judged by [`targets::judge`](crate::targets::judge).

use super::*;

/// Events of each broker run and of the HTTPS run they are judged against
/// (unless `--events`).
const BROKER_EVENTS: u64 = 5_000;
/// Delivered messages of history of the `scale` runs (unless `--history`).
const TARGETS_HISTORY: u64 = 1_000_000;

/// `targets`: runs, one after the other in this process, each with a fresh
/// Relay and database, the workloads that measure the bench's targets, and
/// judges each target from their reports ([`targets::judge`]). In this
/// order: `throughput` first, before any run has written (and deleted) a
/// database of its own; the HTTPS kind to one endpoint and each broker
/// kind whose server answers (issue 47's CPU per delivery); `backlog`
/// after the runs that stop cleanly, so its idle CPU is its own;
/// `isolation` after it, as its hanging attempts outlive it (a stopped
/// dispatcher lets attempts finish for `shutdown_grace`); `scale` last,
/// as its retention purge outlives it.
/// The peak RSS is reset before `throughput`, so it is that run's.
/// The SQLite runs ignore `--database-url`; with it, `throughput` and
/// `scale` run on PostgreSQL too. `--rate` and `--endpoints` are not passed on: the
/// targets are stated at the workloads' defaults. The other flags are
/// (`--events`, `--seconds`, `--messages`, `--queued`, `--idle-seconds`,
/// `--concurrency`, `--endpoint-concurrency`, …), to shrink a smoke run.
pub(crate) async fn targets_workload(
    args: &BenchArgs,
    relay: Host,
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
    // Issue 47: the HTTPS kind to one endpoint, then every broker kind
    // whose server answers, with the same (modest) count and concurrency.
    let broker_args = |w: Workload| BenchArgs {
        events: Some(args.events.unwrap_or(BROKER_EVENTS)),
        ..sub(w, true, None)
    };
    let https = throughput(
        &BenchArgs {
            endpoints: Some(1),
            ..broker_args(Workload::Throughput)
        },
        relay.clone(),
        data,
    )
    .await?;
    reports.push((Run::HttpsOneEndpoint, https.json));
    for (run, workload) in [
        (Run::Redis, Workload::Redis),
        (Run::Nats, Workload::Nats),
        (Run::Mqtt, Workload::Mqtt),
        (Run::Rabbitmq, Workload::Rabbitmq),
        (Run::Kafka, Workload::Kafka),
    ] {
        let b = broker_args(workload);
        let made = match workload {
            Workload::Redis => match redis::redis(b.redis_port).await {
                Ok(k) => broker::run(&b, relay.clone(), data, k).await,
                Err(e) => Err(e),
            },
            Workload::Nats => match nats::nats(b.nats_port).await {
                Ok(k) => broker::run(&b, relay.clone(), data, k).await,
                Err(e) => Err(e),
            },
            Workload::Mqtt => match mqtt::mqtt(b.mqtt_port).await {
                Ok(k) => broker::run(&b, relay.clone(), data, k).await,
                Err(e) => Err(e),
            },
            Workload::Rabbitmq => match rabbitmq::rabbitmq(b.rabbitmq_port).await {
                Ok(k) => broker::run(&b, relay.clone(), data, k).await,
                Err(e) => Err(e),
            },
            _ => match kafka::kafka() {
                Ok(k) => broker::run(&b, relay.clone(), data, k).await,
                Err(e) => Err(e),
            },
        };
        // A broker that does not answer (or a run that failed) leaves its
        // target not measured, saying why; the other targets still are.
        let report = made.map_or_else(|e| json!({ "not_run": format!("{e:#}") }), |r| r.json);
        reports.push((run, report));
    }
    let latency_run = latency(&sub(Workload::Latency, true, None), relay.clone(), data).await?;
    reports.push((Run::Latency, latency_run.json));
    let backlog_run = backlog(&sub(Workload::Backlog, true, None), relay.clone(), data).await?;
    reports.push((Run::Backlog, backlog_run.json));
    let isolation_run =
        isolation(&sub(Workload::Isolation, true, None), relay.clone(), data).await?;
    reports.push((Run::Isolation, isolation_run.json));
    // `scale` last, PostgreSQL's first: its retention purge runs on after
    // the run (a purge pass runs to its end), until the database is
    // dropped; SQLite's until the process ends.
    let scale_args = |url: Option<String>| BenchArgs {
        history: Some(args.history.unwrap_or(TARGETS_HISTORY)),
        ..sub(Workload::Scale, true, url)
    };
    if let Some(url) = &args.database_url {
        let pg = scale::scale(&scale_args(Some(url.clone())), relay.clone(), data).await?;
        reports.push((Run::ScalePostgres, pg.json));
    }
    let sqlite_scale = scale::scale(&scale_args(None), relay, data).await?;
    reports.push((Run::Scale, sqlite_scale.json));
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
