//! `isolation`: one endpoint that never answers, with messages queued,
//! beside healthy endpoints.

use super::*;

pub(crate) async fn isolation(
    args: &BenchArgs,
    relay: Host,
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
