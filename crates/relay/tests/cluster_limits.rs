//! One set of limits for the cluster (issue #42 §1): three `relay serve`
//! processes share one PostgreSQL database and deliver a burst to an
//! endpoint with `max_concurrency` 4; the receiver never sees more than 4
//! of its requests at once, though all three nodes deliver (each node's
//! lane holds its share of the limit, `relay_engine::shares`).
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
    // One after the other: the first one migrates the fresh database.
    let nodes: Vec<Relay> = (0..NODES)
        .map(|i| {
            start(
                &Settings::new(&dir.path().join(format!("node{i}")), &sink).database(Some(&db.url)),
            )
        })
        .collect();
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
