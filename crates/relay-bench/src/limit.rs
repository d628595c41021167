//! `limit`: the bench's own client against the receiver, with no Relay in
//! the path (the ceiling every result is compared with).

use super::*;

impl LimitResult {
    pub(crate) fn json(&self) -> Value {
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
pub(crate) fn envelope(id: &str, data: &str) -> String {
    format!(
        "{{\"specversion\":\"1.0\",\"id\":\"{id}\",\"source\":\"/consumers/bench\",\"type\":\"bench.published\",\
         \"time\":\"2026-01-01T00:00:00.000Z\",\"datacontenttype\":\"application/json\",\"data\":{data}}}"
    )
}

/// The bench's own client against the receiver: keep-alive, the same kind
/// of body, one Ed25519 signature per request.
pub(crate) async fn limit(
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

pub(crate) async fn limit_for_ratios(
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

pub(crate) async fn limit_workload(args: &BenchArgs, data: &Arc<str>) -> anyhow::Result<Report> {
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
