//! `throughput`, `fanout` and `latency`: events published, deliveries timed.

use super::*;

pub(crate) async fn throughput(
    args: &BenchArgs,
    relay: Host,
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
    m.insert(
        "delivered_by_node".into(),
        json!(delivered_by_node(&env, arrived).await),
    );
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
    // Relay's CPU per delivery over the limit's whole process's per request
    // (issue 47: at most 2×).
    let cpu_ratio = lim
        .as_ref()
        .map(|l| relay_cpu * 1000.0 / arrived.max(1) as f64 / l.process_cpu_per_1000.max(1e-9));
    m.insert(
        "cpu_ratio_to_limit".into(),
        cpu_ratio.map_or(Value::Null, |r| json!(round(r))),
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
            cpu_ratio.map_or(String::new(), |r| {
                format!("{r:.1}× the limit's whole-process CPU")
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
pub(crate) async fn paced(
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

pub(crate) async fn latency(
    args: &BenchArgs,
    relay: Host,
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
pub(crate) async fn fresh_latency(
    env: &Env,
    n: u64,
    data: &Arc<str>,
) -> anyhow::Result<Percentiles> {
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

/// Each node's count of deliveries, once they add up to `arrived`: a node
/// counts a delivery when it writes the completion, a moment after the
/// receiver answered, so read at once the last few may be missing. Waits
/// 5 s at most, then reports what they say.
async fn delivered_by_node(env: &Env, arrived: u64) -> Vec<u64> {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let by = env.counter_by_node("relay_attempts_total{outcome=\"delivered\"}");
        if by.iter().sum::<u64>() >= arrived || Instant::now() >= deadline {
            return by;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
