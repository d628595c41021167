//! `backlog`: messages scheduled in the future (seeded through the store's
//! `seed` operations), idle CPU, and a fresh message's latency beside them.

use super::*;

/// Messages written in bulk through the store's seed operations (see
/// [`insert_messages`]).
pub(crate) struct Seed<'a> {
    pub(crate) tenant_id: &'a str,
    pub(crate) endpoint_id: &'a str,
    /// Event ids are `<prefix><i>`, message ids `msg_<prefix><i>`.
    pub(crate) prefix: &'a str,
    pub(crate) event_type: &'a str,
    pub(crate) count: u64,
    /// `scheduled` (due at `due`) or a failed state (`due` = `None`).
    pub(crate) state: MessageState,
    pub(crate) due: Option<i64>,
}

pub(crate) fn now_millis() -> anyhow::Result<i64> {
    Ok(std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_millis() as i64)
}

/// Inserts `m` events and their messages, due in a day, for `endpoint_id`,
/// in batches through the store (SQL generating the rows).
pub(crate) async fn insert_backlog(env: &Env, endpoint_id: &str, m: u64) -> anyhow::Result<f64> {
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
            state: MessageState::Scheduled,
            due: Some(due),
        },
    )
    .await
}

/// Inserts the seed's events and messages in batches of 100,000, each one
/// transaction of the running Relay's store (`relay_store::seed`: SQL
/// generating the rows; a million through the API would take longer than
/// the measurement); returns the seconds it took.
pub(crate) async fn insert_messages(env: &Env, seed: &Seed<'_>) -> anyhow::Result<f64> {
    use relay_store::ExecutorExt as _;
    const BATCH: u64 = 100_000;
    let scope = relay_store::Scope {
        tenant_id: seed.tenant_id.to_owned(),
        environment: Environment::Live,
    };
    let endpoint = seed.endpoint_id.to_owned();
    let (prefix, event_type) = (seed.prefix.to_owned(), seed.event_type.to_owned());
    let (m, state, due) = (seed.count, seed.state, seed.due.map(Timestamp::from_millis));
    let store = Arc::clone(&env.store);
    let started = Instant::now();
    env.relay
        .spawn(async move {
            let now = Timestamp::from_millis(now_millis()?);
            let mut start = 0u64;
            while start < m {
                let end = (start + BATCH).min(m) - 1;
                let (scope, endpoint) = (scope.clone(), endpoint.clone());
                let (prefix, event_type) = (prefix.clone(), event_type.clone());
                store
                    .write(relay_store::Commit::Durable, move |mut x| {
                        Box::pin(async move {
                            let seed = relay_store::seed::Messages {
                                scope: &scope,
                                endpoint_id: &endpoint,
                                prefix: &prefix,
                                event_type: &event_type,
                                state,
                                due,
                                // Failed messages used their attempts.
                                attempts_used: if due.is_some() { 0 } else { 10 },
                                now,
                            };
                            relay_store::seed::messages(&mut x, &seed, start, end).await
                        })
                    })
                    .await?;
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

pub(crate) async fn backlog(
    args: &BenchArgs,
    relay: Host,
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
