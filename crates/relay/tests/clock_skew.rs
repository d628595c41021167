//! Leases judged by one clock (issue 42 §2): three `relay serve` processes
//! share one PostgreSQL database, their own clocks 30 s behind, right and
//! 30 s ahead (`RELAY_TEST_CLOCK_OFFSET_MS`, honoured by debug builds only),
//! with a 20 s lease. Every node stamps and judges leases on the database's
//! clock (`relay_engine::clock_sync`), so none rescues or claims another's
//! live lease: a burst, published through all three APIs to a receiver that
//! answers slowly (leases are held while requests are on the wire), is
//! delivered with no duplicate beyond the attempts whose outcome was unknown
//! (a request Relay saw no answer to may have arrived).
//!
//! On each node's own clock instead, the node 30 s ahead sees every lease of
//! the node 30 s behind as expired the moment it is taken (20 s lease, 60 s
//! apart): it rescues and sends those messages again while their first
//! attempts are on the wire.
//!
//! Needs PostgreSQL (`relay_store::testenv::postgres_url`); skipped (with
//! a SKIPPED line) without it, a failure under `RELAY_TEST_REQUIRE_ALL=1`.

mod harness;

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use harness::{
    PgDb, Relay, Settings, Sink, by_message, id_of, metric, open_messages, path_and_id, start,
    tenant,
};
use relay_receiver::Behavior;
use serde_json::{Value, json};

/// Each node's clock against the true time, in milliseconds.
const SKEWS: [i64; 3] = [-30_000, 0, 30_000];
/// Short, and valid: `request_timeout_seconds` (5) + 2 + the 5 s margin.
const LEASE_SECONDS: u64 = 20;
const REQUEST_TIMEOUT_SECONDS: u64 = 5;
const EVENTS: usize = 60;
/// Each endpoint's `max_concurrency`.
const CONCURRENCY: u32 = 5;
const PUBLISHERS: usize = 6;
/// How long the receiver takes to answer: long enough that a lease judged
/// on a skewed clock expires under an attempt on the wire, well within the
/// request timeout.
const DELAY: Duration = Duration::from_millis(2_000);
const PATHS: [&str; 2] = ["/skew/a", "/skew/b"];

#[test]
fn nodes_whose_clocks_differ_by_a_minute_deliver_a_burst_without_duplicates() {
    let Some(db) = PgDb::create("clock_skew") else {
        return;
    };
    let began = Instant::now();
    let sink = Sink::start(Behavior::delay(DELAY, Behavior::ok()));
    let dir = tempfile::tempdir().unwrap();
    // One after the other: the first one migrates the fresh database.
    let nodes: Vec<Relay> = SKEWS
        .iter()
        .enumerate()
        .map(|(i, skew)| {
            start(
                &Settings::new(&dir.path().join(format!("node{i}")), &sink)
                    .database(Some(&db.url))
                    .lease_seconds(LEASE_SECONDS)
                    .env(
                        "RELAY_DELIVERY__REQUEST_TIMEOUT_SECONDS",
                        &REQUEST_TIMEOUT_SECONDS.to_string(),
                    )
                    .env("RELAY_TEST_CLOCK_OFFSET_MS", &skew.to_string()),
            )
        })
        .collect();

    let t = tenant(&nodes[0].url, "skew");
    // A few attempts at once per endpoint, so the burst is on the wire for
    // several rescue intervals (5 s) and every node's rescue meets it.
    let endpoints: Vec<String> = PATHS
        .iter()
        .map(|path| {
            let e = t.api.expect(
                "POST",
                "/v1/endpoints",
                Some(&json!({
                    "consumer_id": t.consumer_id,
                    "destination": { "kind": "https", "url": sink.receiver.url(path) },
                    "event_types": [harness::EVENT_TYPE],
                    "signature_scheme": "v1a",
                    "max_concurrency": CONCURRENCY,
                })),
                201,
            );
            id_of(&e)
        })
        .collect();

    // The burst, through every node's API.
    let apis: Vec<_> = nodes.iter().map(|n| t.api.at(&n.url)).collect();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..PUBLISHERS {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= EVENTS {
                        break;
                    }
                    let api = &apis[i % apis.len()];
                    match api.publish(&format!("evt_skew_{i:04}"), &format!("order/{i}")) {
                        Ok((202, _)) => {}
                        other => failures.lock().unwrap().push(format!("{i}: {other:?}")),
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "publishes failed: {failures:?}");

    let wanted: HashSet<(String, String)> = (0..EVENTS)
        .flat_map(|i| PATHS.map(|p| (p.to_string(), format!("evt_skew_{i:04}"))))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(90);
    if let Err(e) = sink.wait_for_all(&wanted, path_and_id, deadline) {
        panic!("messages lost: {e}\n{}", nodes[0].log_tail(20));
    }
    let api = &apis[1];
    let deadline = Instant::now() + Duration::from_secs(60);
    harness::eventually("every message to be terminal", deadline, || {
        endpoints
            .iter()
            .all(|e| open_messages(api, e) == 0)
            .then_some(())
    });
    // A message is terminal only once an attempt's completion was written
    // under a lease that held: a lease judged expired early was rescued and
    // attempted again before that, so its requests are all in by now.

    // Per message: the requests received against its attempt records.
    let requests = sink.receiver.requests();
    let groups = by_message(&requests);
    assert_eq!(groups.len(), wanted.len(), "unexpected requests");
    let messages: Vec<Value> = endpoints
        .iter()
        .flat_map(|e| api.list_all(&format!("/v1/messages?endpoint_id={e}")))
        .collect();
    assert_eq!(messages.len(), EVENTS * PATHS.len());
    let not_delivered: Vec<String> = messages
        .iter()
        .filter(|m| m["state"] != "delivered")
        .map(|m| format!("{} {}", id_of(m), m["state"]))
        .collect();
    assert!(not_delivered.is_empty(), "not delivered: {not_delivered:?}");
    let mut duplicates = Vec::new();
    let mut unknown_total = 0;
    for m in &messages {
        let id = id_of(m);
        let endpoint = m["endpoint_id"].as_str().unwrap_or_default();
        let path = PATHS[endpoints.iter().position(|e| e == endpoint).unwrap()];
        let key = (
            path.to_string(),
            m["event_id"].as_str().unwrap().to_string(),
        );
        let received = groups.get(&key).map_or(0, Vec::len);
        assert!(received > 0, "no request for {key:?}");
        let attempts = api.get(&format!("/v1/messages/{id}/attempts"));
        let attempts = attempts["data"].as_array().cloned().unwrap_or_default();
        // No answer read (a timeout, a broken connection): the request may
        // have arrived, and the retry after it is no duplicate.
        let unknown = attempts
            .iter()
            .filter(|a| a["status_code"].is_null())
            .count();
        unknown_total += unknown;
        if received > 1 + unknown {
            duplicates.push(format!(
                "{key:?}: {received} requests, {} attempt records ({unknown} of unknown outcome)",
                attempts.len()
            ));
        }
    }
    let split: Vec<f64> = nodes
        .iter()
        .map(|n| metric(&n.metrics(), "relay_attempts_total{outcome=\"delivered\"}").unwrap_or(0.0))
        .collect();
    let rescued: Vec<f64> = nodes
        .iter()
        .map(|n| metric(&n.metrics(), "relay_leases_rescued_total").unwrap_or(0.0))
        .collect();
    println!(
        "clocks {SKEWS:?} ms: {} messages, {} requests, {} duplicates, {unknown_total} attempts \
         of unknown outcome; deliveries per node {split:?}, leases rescued per node {rescued:?}; \
         {:.1} s",
        messages.len(),
        requests.len(),
        duplicates.len(),
        began.elapsed().as_secs_f64()
    );
    assert!(
        duplicates.is_empty(),
        "{} messages sent again while their first attempt's outcome was known:\n{}",
        duplicates.len(),
        duplicates.join("\n")
    );
    // Each node measured its skew away: its offset to the database's clock
    // is the opposite of its skew (the database runs on this machine).
    for (node, skew) in nodes.iter().zip(SKEWS) {
        let offset = metric(&node.metrics(), "relay_clock_offset_milliseconds")
            .expect("the clock offset gauge");
        assert!(
            (offset as i64 + skew).abs() < 2_000,
            "a node skewed by {skew} ms measured an offset of {offset} ms"
        );
    }
    // An API-only node runs no engine, yet what it stamps (publishes' due
    // times, a resend's lease) follows the database's clock too.
    let api_node = start(
        &Settings::new(&dir.path().join("api"), &sink)
            .database(Some(&db.url))
            .lease_seconds(LEASE_SECONDS)
            .env(
                "RELAY_DELIVERY__REQUEST_TIMEOUT_SECONDS",
                &REQUEST_TIMEOUT_SECONDS.to_string(),
            )
            .env("RELAY_SERVER__ROLE", "api")
            .env("RELAY_TEST_CLOCK_OFFSET_MS", "45000"),
    );
    let offset = metric(&api_node.metrics(), "relay_clock_offset_milliseconds")
        .expect("the clock offset gauge");
    assert!(
        (offset as i64 + 45_000).abs() < 2_000,
        "an API-only node skewed by 45 s measured an offset of {offset} ms"
    );
    for n in nodes.iter().chain([&api_node]) {
        n.assert_no_panic();
    }
}

/// `relay config check` and `relay serve` both refuse a lease shorter than
/// an attempt can take, naming the least lease; a shorter request timeout
/// makes the same lease valid.
#[test]
fn config_check_and_serve_refuse_a_lease_shorter_than_an_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str], vars: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_relay"));
        cmd.args(args).current_dir(dir.path());
        for (k, _) in std::env::vars() {
            if k.starts_with("RELAY_") {
                cmd.env_remove(k);
            }
        }
        cmd.env("RELAY_OPERATOR_TOKEN", harness::OPERATOR)
            .env("RELAY_MASTER_KEY", harness::MASTER_KEY)
            .env("RELAY_DATA_DIR", dir.path());
        for (k, v) in vars {
            cmd.env(k, v);
        }
        cmd.output().expect("run relay")
    };
    let lease = ("RELAY_DELIVERY__LEASE_SECONDS", "20");
    for args in [
        &["config", "check"][..],
        &["serve", "--listen", "127.0.0.1:0"],
    ] {
        let out = run(args, &[lease]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} accepted a 20 s lease");
        assert!(
            stderr.contains("delivery.lease_seconds is 20, but must be at least 27"),
            "{args:?}: {stderr}"
        );
    }
    let out = run(
        &["config", "check"],
        &[lease, ("RELAY_DELIVERY__REQUEST_TIMEOUT_SECONDS", "5")],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("request_timeout_seconds = 5"), "{stdout}");
}
