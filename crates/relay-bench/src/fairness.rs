//! `fairness`: one tenant's bulk retry beside another tenant's live traffic.

use super::*;

/// Tenant B publishes live at `--rate` for `--seconds` (the baseline); then
/// tenant A, with `--messages` exhausted messages over `--endpoints`
/// endpoints, starts a bulk retry of them through the API, and B publishes
/// again for as long (the window). B's publish→delivery latency in both runs,
/// their ratio, and how much of A's recovery was delivered in the window.
pub(crate) async fn fairness(
    args: &BenchArgs,
    relay: Host,
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
                state: MessageState::Exhausted,
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
