//! A cluster losing a node (issue 42 §4): three `relay serve` processes on
//! one PostgreSQL database deliver a burst; one of them is SIGKILLed while it
//! holds leases. Nothing is lost: the other two take its leases when they
//! expire (`relay_leases_rescued_total`) and deliver every message; the only
//! duplicates are messages the killed node had on the wire (a request
//! received before the kill).
//!
//! Needs PostgreSQL (`relay_store::testenv::postgres_url`); skipped (with a
//! SKIPPED line) without it, a failure under `RELAY_TEST_REQUIRE_ALL=1`.

mod harness;

use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use harness::{
    PgDb, Relay, Settings, Sink, by_message, id_of, metric, open_messages, start, tenant,
};
use relay_receiver::Behavior;

const NODES: usize = 3;
const EVENTS: usize = 900;
const PUBLISHERS: usize = 6;
/// Each request takes the receiver this long, so the killed node has
/// attempts on the wire and messages leased when it dies.
const DELAY: Duration = Duration::from_millis(100);
/// Short enough that the survivors rescue the dead node's leases within the
/// test; long enough for an attempt (the receiver answers in `DELAY`).
const LEASE_SECONDS: u64 = 30;
const PATH: &str = "/cluster/kill";

#[test]
fn killing_one_node_mid_burst_loses_nothing_and_the_others_take_its_leases() {
    let Some(db) = PgDb::create("cluster_kill") else {
        return;
    };
    let sink = Sink::start(Behavior::delay(DELAY, Behavior::ok()));
    let dir = tempfile::tempdir().unwrap();
    let mut nodes: Vec<Relay> = (0..NODES)
        .map(|i| {
            start(
                &Settings::new(&dir.path().join(format!("node{i}")), &sink)
                    .database(Some(&db.url))
                    .lease_seconds(LEASE_SECONDS),
            )
        })
        .collect();
    let t = tenant(&nodes[0].url, "cluster-kill");
    let endpoint = id_of(&t.endpoint(&sink.receiver.url(PATH), "v1a"));
    let apis: Vec<_> = nodes.iter().map(|n| t.api.at(&n.url)).collect();

    // Publish through every node's API; kill the victim once it is
    // delivering, with requests on the wire, in the middle of the burst. A
    // publish the victim did not answer is sent again (same event id) to a
    // survivor, and from the kill on only the survivors are used.
    let victim = NODES - 1;
    let killed = AtomicBool::new(false);
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let mut killed_at = None;
    let mut requests_at_kill = 0;
    std::thread::scope(|s| {
        for _ in 0..PUBLISHERS {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= EVENTS {
                        break;
                    }
                    let (id, subject) = (format!("evt_kill_{i:04}"), format!("order/{i}"));
                    let first = if killed.load(Ordering::Relaxed) {
                        &apis[i % victim]
                    } else {
                        &apis[i % NODES]
                    };
                    let mut answer = first.publish(&id, &subject);
                    if !matches!(answer, Ok((200 | 202, _))) {
                        answer = apis[i % victim].publish(&id, &subject);
                    }
                    match answer {
                        Ok((200 | 202, _)) => {}
                        other => failures.lock().unwrap().push(format!("{i}: {other:?}")),
                    }
                }
            });
        }
        let deadline = Instant::now() + Duration::from_secs(60);
        harness::eventually("the victim to deliver", deadline, || {
            let delivered = metric(
                &nodes[victim].metrics(),
                "relay_attempts_total{outcome=\"delivered\"}",
            )
            .unwrap_or(0.0);
            (delivered >= 20.0).then_some(())
        });
        requests_at_kill = sink.receiver.requests().len();
        killed.store(true, Ordering::Relaxed);
        nodes[victim].kill();
        killed_at = Some(Instant::now());
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "publishes failed: {failures:?}");
    let killed_at = killed_at.expect("the victim was killed");
    assert!(
        requests_at_kill < EVENTS / 2,
        "the burst was half over before the kill ({requests_at_kill} requests): make it longer"
    );

    // Every message arrives at least once.
    let wanted: HashSet<(String, String)> = (0..EVENTS)
        .map(|i| (PATH.to_string(), format!("evt_kill_{i:04}")))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(LEASE_SECONDS + 60);
    if let Err(e) = sink.wait_for_all(&wanted, harness::path_and_id, deadline) {
        panic!("messages lost: {e}\n{}", nodes[0].log_tail(20));
    }
    let survivors = &apis[..victim];
    // The victim's leases expire `LEASE_SECONDS` after they were taken
    // (before the kill); then a survivor rescues and attempts them again.
    let deadline = killed_at + Duration::from_secs(LEASE_SECONDS + 60);
    harness::eventually("every message to be terminal", deadline, || {
        (open_messages(&survivors[0], &endpoint) == 0).then_some(())
    });
    let messages = survivors[0].list_all(&format!("/v1/messages?endpoint_id={endpoint}"));
    assert_eq!(messages.len(), EVENTS, "one message per event");
    let not_delivered: Vec<String> = messages
        .iter()
        .filter(|m| m["state"] != "delivered")
        .map(|m| format!("{} {}", id_of(m), m["state"]))
        .collect();
    assert!(not_delivered.is_empty(), "not delivered: {not_delivered:?}");

    // The survivors took the dead node's leases.
    let rescued: f64 = nodes[..victim]
        .iter()
        .map(|n| metric(&n.metrics(), "relay_leases_rescued_total").unwrap_or(0.0))
        .sum();
    assert!(
        rescued > 0.0,
        "no lease of the killed node was rescued by the others"
    );

    // Duplicates only of messages that were on the wire at the kill: the
    // first request of every duplicated message came before it.
    let requests = sink.receiver.requests();
    let groups = by_message(&requests);
    let mut suspicious = Vec::new();
    let mut duplicated = 0;
    for (key, reqs) in &groups {
        if reqs.len() > 1 {
            duplicated += 1;
            if reqs[0].received_at > killed_at {
                suspicious.push(format!(
                    "{key:?}: {} requests, all after the kill",
                    reqs.len()
                ));
            }
        }
    }
    println!(
        "{NODES} nodes, one killed: {} messages, {} requests ({duplicated} duplicated), \
         {rescued} leases rescued, recovered in {:.1} s",
        EVENTS,
        requests.len(),
        killed_at.elapsed().as_secs_f64()
    );
    assert!(
        suspicious.is_empty(),
        "duplicates of messages that were not on the wire at the kill:\n{}",
        suspicious.join("\n")
    );
    for n in &nodes[..victim] {
        n.assert_no_panic();
    }
}
