//! One set of limits for the cluster (issue #42 §1): three `relay serve`
//! processes share one PostgreSQL database and deliver a burst to an
//! endpoint with `max_concurrency` 4; the receiver never sees more than 4
//! of its requests at once, though all three nodes deliver (each node's
//! lane holds its share of the limit, `relay_engine::shares`).
//!
//! And with a rate limit of 50 a second, the three nodes together send it
//! 50 a second, ± 10 %, over 20 s of a backlog that keeps all three busy.
//!
//! Needs PostgreSQL (`relay_store::testenv::postgres_url`); skipped (with
//! a SKIPPED line) without it, a failure under `RELAY_TEST_REQUIRE_ALL=1`.

mod harness;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use harness::{EVENT_TYPE, PgDb, Relay, Settings, Sink, id_of, metric, path_and_id, start, tenant};
use relay_receiver::Behavior;
use serde_json::json;

const NODES: usize = 3;
const EVENTS: usize = 80;
const PATH: &str = "/cluster/limited";
const LIMIT: usize = 4;

#[test]
fn three_nodes_hold_one_max_concurrency_between_them() {
    let Some(db) = PgDb::create("cluster_limits") else {
        return;
    };
    let sink = Sink::start(Behavior::delay(Duration::from_millis(100), Behavior::ok()));
    let dir = tempfile::tempdir().unwrap();
    let nodes = cluster(&db, &sink, dir.path());
    let t = tenant(&nodes[0].url, "cluster");
    id_of(&t.api.expect(
        "POST",
        "/v1/endpoints",
        Some(&json!({
            "consumer_id": t.consumer_id,
            "destination": { "kind": "https", "url": sink.receiver.url(PATH) },
            "event_types": [EVENT_TYPE],
            "signature_scheme": "v1a",
            "max_concurrency": LIMIT,
        })),
        201,
    ));
    // Published through every node's API: every node claims.
    let apis: Vec<_> = nodes.iter().map(|n| t.api.at(&n.url)).collect();
    for i in 0..EVENTS {
        match apis[i % NODES].publish(&format!("evt_cl_{i:03}"), &format!("order/{i}")) {
            Ok((202, _)) => {}
            other => panic!("publish {i}: {other:?}"),
        }
    }
    let wanted: HashSet<(String, String)> = (0..EVENTS)
        .map(|i| (PATH.to_string(), format!("evt_cl_{i:03}")))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    if let Err(e) = sink.wait_for_all(&wanted, path_and_id, deadline) {
        panic!("messages lost: {e}\n{}", nodes[0].log_tail(20));
    }
    let most = sink.receiver.max_concurrent(PATH);
    assert!(
        most <= LIMIT,
        "the endpoint saw {most} requests at once for a max_concurrency of {LIMIT}"
    );
    let split: Vec<f64> = nodes
        .iter()
        .map(|n| metric(&n.metrics(), "relay_attempts_total{outcome=\"delivered\"}").unwrap_or(0.0))
        .collect();
    println!("deliveries per node {split:?}; at most {most} at once");
    assert!(
        split.iter().filter(|d| **d > 0.0).count() >= 2,
        "one node made every delivery: {split:?}"
    );
    for n in &nodes {
        n.assert_no_panic();
    }
}

const RATE: f64 = 50.0;
/// 22 s of the rate: the measure leaves out the first second (the buckets'
/// burst) and what comes after the 20 s it measures.
const RATE_EVENTS: usize = 1_100;
const RATE_PATH: &str = "/cluster/paced";

#[test]
fn three_nodes_hold_one_rate_limit_between_them_over_20_seconds() {
    let Some(db) = PgDb::create("cluster_rate") else {
        return;
    };
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let nodes = cluster(&db, &sink, dir.path());
    let t = tenant(&nodes[0].url, "cluster-rate");
    id_of(&t.api.expect(
        "POST",
        "/v1/endpoints",
        Some(&json!({
            "consumer_id": t.consumer_id,
            "destination": { "kind": "https", "url": sink.receiver.url(RATE_PATH) },
            "event_types": [EVENT_TYPE],
            "signature_scheme": "v1a",
            "max_concurrency": 100,
            "rate_limit_per_second": RATE as u32,
        })),
        201,
    ));
    // The whole backlog first, through every node's API, from parallel
    // publishers: it takes a small part of the 22 s it needs.
    let apis: Vec<_> = nodes.iter().map(|n| t.api.at(&n.url)).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..6 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= RATE_EVENTS {
                        break;
                    }
                    match apis[i % NODES].publish(&format!("evt_rt_{i:04}"), &format!("order/{i}"))
                    {
                        Ok((202, _)) => {}
                        other => panic!("publish {i}: {other:?}"),
                    }
                }
            });
        }
    });
    let wanted: HashSet<(String, String)> = (0..RATE_EVENTS)
        .map(|i| (RATE_PATH.to_string(), format!("evt_rt_{i:04}")))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(90);
    let requests = match sink.wait_for_all(&wanted, path_and_id, deadline) {
        Ok(r) => r,
        Err(e) => panic!("messages lost: {e}\n{}", nodes[0].log_tail(20)),
    };
    let mut arrivals: Vec<Instant> = requests
        .iter()
        .filter(|r| r.path == RATE_PATH)
        .map(|r| r.received_at)
        .collect();
    arrivals.sort();
    // From the first second's end (past the buckets' burst) for 20 s.
    let from = arrivals[0] + Duration::from_secs(1);
    let until = from + Duration::from_secs(20);
    let in_window = arrivals
        .iter()
        .filter(|a| **a >= from && **a < until)
        .count();
    let rate = in_window as f64 / 20.0;
    let split: Vec<f64> = nodes
        .iter()
        .map(|n| metric(&n.metrics(), "relay_attempts_total{outcome=\"delivered\"}").unwrap_or(0.0))
        .collect();
    println!(
        "{in_window} requests in 20 s: {rate:.1}/s for a limit of {RATE}/s; deliveries per node {split:?}"
    );
    assert!(
        (RATE * 0.9..=RATE * 1.1).contains(&rate),
        "the endpoint received {rate:.1}/s for a rate limit of {RATE}/s"
    );
    assert_eq!(
        split.iter().filter(|d| **d > 0.0).count(),
        NODES,
        "every node delivers: {split:?}"
    );
    for n in &nodes {
        n.assert_no_panic();
    }
}

/// `NODES` nodes on `db`, delivering to `sink`'s receiver, started one
/// after the other: the first one migrates the fresh database.
fn cluster(db: &PgDb, sink: &Sink, dir: &std::path::Path) -> Vec<Relay> {
    (0..NODES)
        .map(|i| start(&Settings::new(&dir.join(format!("node{i}")), sink).database(Some(&db.url))))
        .collect()
}
