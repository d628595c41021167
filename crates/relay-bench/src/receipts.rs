//! `receipts`: inbound provider webhooks (`docs/inbound.md`) at a fixed
//! rate. One Standard Webhooks source; each request a distinct provider
//! event, signed as a provider signs it, sent over keep-alive connections
//! to the source's receiving URL. Measures the `2xx` latency (send to the
//! whole answer: verification and the receipt's durable commit are inside
//! it), the receipts/s achieved, and how long the ledger writer took to
//! have every receipt processed.

use super::*;
use relay_core::signature::{HmacSecret, SignedContent};

pub(crate) async fn receipts(
    args: &BenchArgs,
    relay: Host,
    data: &Arc<str>,
) -> anyhow::Result<Report> {
    let rate = args.rate.unwrap_or(1000.0);
    let total = ((rate * args.seconds as f64).round() as u64).max(1);
    let env = Env::start(args, relay, &[]).await?;
    let mut api = http::Api {
        conn: Conn::plain(env.api_addr).await?,
        token: env.api_key.clone(),
    };
    let key = HmacSecret::generate(random_bytes::<32>());
    let source = api
        .call(
            Method::POST,
            "/v1/inbound-sources",
            Some(json!({
                "name": "bench",
                "preset": "standard_webhooks",
                "secret": key.expose_whsec(),
                "rate_limit_per_second": 10_000,
                "max_body_bytes": 1_048_576,
            })),
        )
        .await?;
    let path: Arc<str> = Arc::from(
        source["path"]
            .as_str()
            .context("the source has no path")?
            .to_owned(),
    );
    let key = Arc::new(key);
    let next = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let cpu0 = Cpu::now();
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..args.concurrency.max(1) {
        let mut conn = Conn::plain(env.api_addr).await?;
        let (next, errors, key, path, data) = (
            next.clone(),
            errors.clone(),
            key.clone(),
            path.clone(),
            data.clone(),
        );
        workers.spawn(async move {
            let mut micros_2xx = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break;
                }
                let due = started + Duration::from_secs_f64(i as f64 / rate);
                tokio::time::sleep_until(due.into()).await;
                let id = format!("msg_bench_{i}");
                let body = format!("{{\"type\":\"email.delivered\",\"data\":{data}}}");
                let ts = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_secs())
                    .unwrap_or(0)
                    .to_string();
                let signature = format!(
                    "v1,{}",
                    key.sign(&SignedContent {
                        webhook_id: &id,
                        webhook_timestamp: &ts,
                        body: body.as_bytes(),
                    })
                );
                let sent = Instant::now();
                let result = conn
                    .send(
                        Method::POST,
                        &path,
                        &[
                            ("content-type", "application/json"),
                            ("webhook-id", &id),
                            ("webhook-timestamp", &ts),
                            ("webhook-signature", &signature),
                        ],
                        Bytes::from(body),
                    )
                    .await;
                match result {
                    Ok((status, _)) if status.is_success() => {
                        micros_2xx.push(micros(sent.elapsed()));
                    }
                    Ok((status, answer)) => {
                        if errors.fetch_add(1, Ordering::Relaxed) < 3 {
                            eprintln!(
                                "receipt refused: {status}: {}",
                                String::from_utf8_lossy(&answer)
                            );
                        }
                    }
                    Err(e) => {
                        if errors.fetch_add(1, Ordering::Relaxed) < 3 {
                            eprintln!("receipt failed: {e:#}");
                        }
                        match Conn::plain(conn.addr()).await {
                            Ok(c) => conn = c,
                            Err(_) => break,
                        }
                    }
                }
            }
            micros_2xx
        });
    }
    let mut all = Vec::with_capacity(total as usize);
    while let Some(done) = workers.join_next().await {
        all.extend(done?);
    }
    let sent_for = started.elapsed();
    let cpu1 = Cpu::now();
    let accepted = all.len() as u64;
    let lat = Percentiles::of(all);
    // The ledger writer's backlog: wait until no receipt is left to process.
    let deadline = Instant::now() + Duration::from_secs(args.timeout_seconds);
    let mut processed_all = false;
    while Instant::now() < deadline {
        let mut open = 0;
        for state in ["pending", "processing"] {
            let page = api
                .call(
                    Method::GET,
                    &format!("/v1/inbound-receipts?state={state}&limit=1"),
                    None,
                )
                .await?;
            open += page["data"].as_array().map_or(0, Vec::len);
        }
        if open == 0 {
            processed_all = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let processed_in = started.elapsed();
    let achieved = accepted as f64 / sent_for.as_secs_f64();
    let relay_cpu = cpu0.relay_since(&cpu1);
    let mut m = common_json(args, env.backend);
    m.insert("rate".into(), json!(rate));
    m.insert("seconds".into(), json!(args.seconds));
    m.insert("receipts".into(), json!(total));
    m.insert("accepted".into(), json!(accepted));
    m.insert("errors".into(), json!(errors.load(Ordering::Relaxed)));
    m.insert("receipts_per_s".into(), json!(round(achieved)));
    m.insert("latency_2xx_ms".into(), lat.json());
    m.insert("processed".into(), json!(processed_all));
    m.insert(
        "processed_after_s".into(),
        json!(round(processed_in.as_secs_f64())),
    );
    m.insert(
        "relay_cpu_s_per_1000".into(),
        json!(round(relay_cpu * 1000.0 / accepted.max(1) as f64)),
    );
    m.insert("peak_rss_mib".into(), json!(round(peak_rss_mib())));
    let rows = vec![
        row("receipts accepted", format!("{accepted} of {total}"), ""),
        row("receipts/s achieved", format!("{achieved:.0}/s"), ""),
        row("2xx latency p50", ms(lat.p50), ""),
        row(
            "2xx latency p99",
            ms(lat.p99),
            "target ≤ 10 ms at 1,000/s (SQLite)",
        ),
        row("2xx latency max", ms(lat.max), ""),
        row(
            "all processed into the ledger after",
            format!("{:.2} s", processed_in.as_secs_f64()),
            if processed_all { "" } else { "timed out" },
        ),
    ];
    env.finish().await;
    Ok(Report {
        title: format!(
            "relay bench receipts ({}): {total} provider events at {rate}/s",
            m["backend"].as_str().unwrap_or("")
        ),
        third: "note",
        rows,
        json: Value::Object(m),
    })
}
