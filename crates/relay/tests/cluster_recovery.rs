//! Recovery traffic on a cluster (issue #42 §1 and §4): three `relay serve`
//! processes on one PostgreSQL database; tenant A bulk-retries 20,000
//! failed messages while tenant B publishes live.
//!
//! - A's recovery attempts in flight stay within `[delivery]
//!   max_recovery_in_flight` for the cluster as a whole: the receiver, which
//!   answers A slowly so that the pace alone would put 40 of them on the
//!   wire, never sees more than the cap at once (each node holding the cap
//!   for itself would put three times as many);
//! - B's publish→delivery p99 during A's retry stays within 2× of B alone
//!   (the larger of before the retry and after it, A's endpoint paused).
//!
//! Needs PostgreSQL (`relay_store::testenv::postgres_url`); skipped (with
//! a SKIPPED line) without it, a failure under `RELAY_TEST_REQUIRE_ALL=1`.

mod harness;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use harness::{EVENT_TYPE, PgDb, Relay, Settings, Sink, Tenant, id_of, metric, start, tenant};
use relay_core::model::{Environment, MessageState};
use relay_core::time::Timestamp;
use relay_receiver::Behavior;
use relay_store::ExecutorExt as _;
use serde_json::json;

const NODES: usize = 3;
const FAILED: u64 = 20_000;
/// The cluster's cap on recovery attempts in flight.
const CAP: usize = 16;
/// The cluster's recovery pace: with A's receiver taking `SLOW` per
/// request, the pace alone would keep 40 attempts in flight.
const PACE: u32 = 200;
const SLOW: Duration = Duration::from_millis(200);
const RETRIED: &str = "/recovery/a";
const LIVE: &str = "/live/b";
/// B's live traffic: `LIVE_RATE` a second, measured over `WINDOW` after
/// `WARM_UP`, twice.
const LIVE_RATE: u32 = 40;
const WARM_UP: Duration = Duration::from_secs(2);
const WINDOW: Duration = Duration::from_secs(8);

#[test]
fn a_bulk_retry_on_three_nodes_keeps_its_cap_and_leaves_live_traffic_its_latency() {
    let Some(db) = PgDb::create("cluster_recovery") else {
        return;
    };
    let sink = Sink::start(Behavior::ok());
    sink.receiver
        .set_path_behavior(RETRIED, Behavior::delay(SLOW, Behavior::ok()));
    let dir = tempfile::tempdir().unwrap();
    let nodes: Vec<Relay> = (0..NODES)
        .map(|i| {
            start(
                &Settings::new(&dir.path().join(format!("node{i}")), &sink)
                    .database(Some(&db.url))
                    .env("RELAY_DELIVERY__MAX_RECOVERY_IN_FLIGHT", &CAP.to_string())
                    .env("RELAY_DELIVERY__RECOVERY_PER_SECOND", &PACE.to_string()),
            )
        })
        .collect();

    // Tenant A: one endpoint and 20,000 messages that used every attempt,
    // written straight into the database (20,000 publishes and failures
    // would take longer than the test).
    let a = tenant(&nodes[0].url, "retrying");
    let a_endpoint = endpoint(&a, &sink, RETRIED);
    seed_failed(&sink, &db.url, &a.tenant_id, &a_endpoint);
    let b = tenant(&nodes[0].url, "live");
    endpoint(&b, &sink, LIVE);
    let b_apis: Vec<_> = nodes.iter().map(|n| b.api.at(&n.url)).collect();

    let alone = live_latencies(&sink, &b_apis, "alone");
    let before = sink.receiver.count();
    let job = a.api.expect(
        "POST",
        "/v1/messages/retry",
        Some(&json!({ "state": "exhausted" })),
        202,
    );
    // The retry is on the wire before B's second window starts.
    if let Err(e) = sink.wait_count(
        before + 2 * CAP as u64,
        Instant::now() + Duration::from_secs(60),
    ) {
        panic!(
            "the bulk retry delivered nothing: {e}\n{}",
            nodes[0].log_tail(30)
        );
    }
    let retried_before = sink.receiver.requests_to(RETRIED).len();
    let during = live_latencies(&sink, &b_apis, "during");
    let retried_in_window = sink.receiver.requests_to(RETRIED).len() - retried_before;
    // B alone again, A's endpoint paused (its retry would run for minutes):
    // the baseline is the larger of B alone before and after, as the
    // machine's load moves under a run.
    let (status, body) = a
        .api
        .try_call("POST", &format!("/v1/endpoints/{a_endpoint}/pause"), None)
        .expect("pause A's endpoint");
    assert_eq!(status, 200, "pause: {body}");
    let after = live_latencies(&sink, &b_apis, "after");

    let most = sink.receiver.max_concurrent(RETRIED);
    let job = a.api.get(&format!("/v1/jobs/{}", id_of(&job)));
    let split: Vec<f64> = nodes
        .iter()
        .map(|n| metric(&n.metrics(), "relay_attempts_total{outcome=\"delivered\"}").unwrap_or(0.0))
        .collect();
    let (p_during, p_after) = (p99(&during), p99(&after));
    let p_alone = p99(&alone).max(p_after);
    println!(
        "B's p99 alone {:?} before and {p_after:?} after, during A's retry {p_during:?} ({:.2}×); A: {retried_in_window} delivered in the window, at most {most} in flight for a cap of {CAP}, job {}; deliveries per node {split:?}",
        p99(&alone),
        p_during.as_secs_f64() / p_alone.as_secs_f64().max(1e-9),
        job
    );
    assert!(
        most <= CAP,
        "the cluster had {most} recovery attempts in flight at once for a cap of {CAP}"
    );
    // The cap is what held it: the pace alone would have put 40 in flight.
    assert!(most >= CAP / 2, "the retry never came near its cap: {most}");
    assert!(
        retried_in_window as u64 >= 100,
        "the retry hardly ran beside B: {retried_in_window} delivered in {WINDOW:?}"
    );
    assert!(
        p_during <= p_alone * 2,
        "tenant B's live p99 went from {p_alone:?} alone to {p_during:?} during A's bulk retry"
    );
    assert!(
        split.iter().filter(|d| **d > 0.0).count() >= 2,
        "one node made every delivery: {split:?}"
    );
    for n in &nodes {
        n.assert_no_panic();
    }
}

/// An HTTPS endpoint of `t`'s consumer at the receiver's `path`.
fn endpoint(t: &Tenant, sink: &Sink, path: &str) -> String {
    id_of(&t.api.expect(
        "POST",
        "/v1/endpoints",
        Some(&json!({
            "consumer_id": t.consumer_id,
            "destination": { "kind": "https", "url": sink.receiver.url(path) },
            "event_types": [EVENT_TYPE],
            "signature_scheme": "v1a",
            "max_concurrency": 100,
        })),
        201,
    ))
}

/// `FAILED` exhausted messages of `endpoint_id`, through the store's bulk
/// writer (`relay_store::seed`, what `relay bench fairness` uses).
fn seed_failed(sink: &Sink, url: &str, tenant_id: &str, endpoint_id: &str) {
    let scope = relay_store::Scope {
        tenant_id: tenant_id.to_string(),
        environment: Environment::Live,
    };
    let endpoint_id = endpoint_id.to_string();
    let now = Timestamp::from_millis(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64,
    );
    sink.block_on(async move {
        let store = relay_store::open(url).await.expect("open the store");
        let written = store
            .write(relay_store::Commit::Durable, move |mut x| {
                Box::pin(async move {
                    let seed = relay_store::seed::Messages {
                        scope: &scope,
                        endpoint_id: &endpoint_id,
                        prefix: "evt_failed_",
                        event_type: EVENT_TYPE,
                        state: MessageState::Exhausted,
                        due: None,
                        attempts_used: 10,
                        now,
                    };
                    relay_store::seed::messages(&mut x, &seed, 0, FAILED - 1).await
                })
            })
            .await
            .expect("seed the failed messages");
        assert_eq!(written, FAILED);
    });
}

/// B publishes `LIVE_RATE` events a second for `WARM_UP` and `WINDOW`,
/// through the nodes in turn; the time from the publish to the arrival of
/// each event of the window. The warm-up's events are left out: the first
/// ones after a pause pay what a steady stream does not (the nodes'
/// connections to the receiver, their share of B's endpoint).
fn live_latencies(sink: &Sink, apis: &[harness::Api], run: &str) -> Vec<Duration> {
    let warm_up = LIVE_RATE * WARM_UP.as_secs() as u32;
    let total = warm_up + LIVE_RATE * WINDOW.as_secs() as u32;
    let every = Duration::from_secs(1) / LIVE_RATE;
    let started = Instant::now();
    let mut sent = HashMap::new();
    for i in 0..total {
        // The load's own pace (a publisher's clock, not a wait for Relay).
        if let Some(wait) = (started + every * i).checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let id = format!("evt_{run}_{i:04}");
        let at = Instant::now();
        match apis[i as usize % apis.len()].publish(&id, &format!("order/{i}")) {
            Ok((202, _)) => {}
            other => panic!("publish {id}: {other:?}"),
        }
        sent.insert(id, (at, i >= warm_up));
    }
    let wanted: HashSet<(String, String)> = sent
        .keys()
        .map(|id| (LIVE.to_string(), id.clone()))
        .collect();
    let requests = sink
        .wait_for_all(
            &wanted,
            harness::path_and_id,
            Instant::now() + Duration::from_secs(60),
        )
        .unwrap_or_else(|e| panic!("B's {run} events lost: {e}"));
    let mut first: HashMap<&str, Instant> = HashMap::new();
    for r in requests.iter().filter(|r| r.path == LIVE) {
        if let Some(id) = r.header("webhook-id") {
            let t = first.entry(id).or_insert(r.received_at);
            *t = (*t).min(r.received_at);
        }
    }
    sent.iter()
        .filter(|(_, (_, measured))| *measured)
        .map(|(id, (at, _))| first[id.as_str()].saturating_duration_since(*at))
        .collect()
}

fn p99(samples: &[Duration]) -> Duration {
    let mut s = samples.to_vec();
    s.sort();
    s[(s.len() * 99).div_ceil(100) - 1]
}
