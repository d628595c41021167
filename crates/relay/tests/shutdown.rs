//! Graceful shutdown on SIGTERM (issue 3, item 11): `relay serve` stops
//! claiming, lets the attempts in flight finish within the grace period,
//! writes their completions, and exits. After a restart on the same database
//! those messages are `delivered` with one attempt each and are never sent
//! again, and a message that was waiting for its retry (not claimed at the
//! shutdown) stayed `scheduled` and is delivered by the restarted process.

mod harness;

use std::time::{Duration, Instant};

use harness::{Settings, Sink, id_of, metric, start, tenant};
use relay_receiver::Behavior;
use serde_json::Value;

/// How long the receiver holds each request to `/slow`.
const SLOW: Duration = Duration::from_secs(1);
/// The dispatcher's shutdown grace (relay-engine `EngineConfig::new`).
const GRACE: Duration = Duration::from_secs(25);

#[test]
fn sigterm_finishes_attempts_in_flight_and_leaves_the_rest_scheduled() {
    let sink = Sink::start(Behavior::ok());
    sink.receiver
        .set_path_behavior("/slow", Behavior::delay(SLOW, Behavior::ok()));
    // The first request to /later fails: its retry is due ~5 s later, after the shutdown.
    sink.receiver
        .push_path_script("/later", vec![Behavior::status(503)]);
    let dir = tempfile::tempdir().unwrap();
    // The default 60 s lease: nothing below may depend on a lease expiring.
    let settings = Settings::new(dir.path(), &sink);
    let mut relay = start(&settings);
    let t = tenant(&relay.url, "shutdown");
    let slow_consumer = t.consumer("slow");
    let later_consumer = t.consumer("later");
    t.endpoint_for(&slow_consumer, &sink.receiver.url("/slow"), "v1a");
    t.endpoint_for(&later_consumer, &sink.receiver.url("/later"), "v1a");
    let deadline = Instant::now() + Duration::from_secs(30);

    // (b) A message waiting for its retry when the shutdown comes.
    t.api.publish_to(&later_consumer, "evt_later");
    sink.wait_count(1, deadline)
        .expect("the first attempt at evt_later");
    let later = message_of(&t.api, "evt_later");
    harness::eventually("evt_later to wait for its retry", deadline, || {
        let m = t.api.get(&format!("/v1/messages/{later}"));
        (m["state"] == "scheduled" && m["attempts_used"] == 1).then_some(())
    });

    // (a) Three attempts in flight at the receiver.
    let slow_ids = ["evt_slow_1", "evt_slow_2", "evt_slow_3"];
    for id in slow_ids {
        t.api.publish_to(&slow_consumer, id);
    }
    sink.wait_in_flight(3, deadline)
        .expect("three attempts in flight");
    let metrics = relay.metrics();
    assert!(
        metrics.contains("relay_attempts_total{outcome=\"delivered\"}"),
        "{metrics}"
    );
    assert_eq!(
        metric(&metrics, "relay_attempts_in_flight"),
        Some(3.0),
        "{metrics}"
    );

    let (status, took) = sigterm_and_wait(&mut relay, GRACE + Duration::from_secs(5));
    assert!(took < GRACE, "shutdown took {took:?}");
    assert_eq!(sink.receiver.in_flight(), 0, "every attempt was answered");
    let log = relay.log_text();
    assert!(log.contains("dispatcher stopped"), "{log}");
    relay.assert_no_panic();
    println!("SIGTERM with 3 attempts in flight: exited ({status}) after {took:?}");
    assert_eq!(sink.receiver.requests_to("/slow").len(), 3);
    assert_eq!(sink.receiver.requests_to("/later").len(), 1);
    drop(relay);

    // After a restart: the three finished attempts were recorded ...
    let relay = start(&settings);
    let api = t.api.at(&relay.url);
    for id in slow_ids {
        let m = api.get(&format!("/v1/messages/{}", message_of(&api, id)));
        assert_eq!(m["state"], "delivered", "{id}: {m}");
        let attempts = attempts_of(&api, &id_of(&m));
        assert_eq!(attempts.len(), 1, "{id}: {attempts:?}");
        let a = &attempts[0];
        assert_eq!(a["outcome"], "delivered", "{a}");
        assert_eq!(a["status_code"], 200, "{a}");
        assert!(
            a["duration_ms"].as_i64().unwrap_or(0) >= SLOW.as_millis() as i64 - 50,
            "the attempt waited for the answer: {a}"
        );
    }
    // ... and the waiting message is delivered by the new process.
    let deadline = Instant::now() + Duration::from_secs(30);
    sink.wait_count(5, deadline)
        .unwrap_or_else(|e| panic!("evt_later not retried: {e}\n{}", relay.log_tail(20)));
    harness::eventually("evt_later to be delivered", deadline, || {
        let m = api.get(&format!("/v1/messages/{later}"));
        (m["state"] == "delivered").then_some(())
    });
    let attempts = attempts_of(&api, &later);
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    assert_eq!(attempts[0]["status_code"], 503);
    assert_eq!(attempts[1]["status_code"], 200);
    // Nothing was sent twice: the restarted process claimed only evt_later.
    assert_eq!(sink.receiver.requests_to("/slow").len(), 3);
    assert_eq!(sink.receiver.requests_to("/later").len(), 2);
    assert_eq!(sink.receiver.count(), 5);
    relay.assert_no_panic();
}

/// `[delivery] shutdown_grace_seconds` bounds the wait: an attempt that
/// outlasts it is abandoned, its lease released, and the message is
/// attempted again by the next process (at least once; nothing recorded
/// for the abandoned try).
#[test]
fn sigterm_abandons_attempts_that_outlast_the_configured_grace() {
    const HANG: Duration = Duration::from_secs(15);
    const SHORT: u64 = 1;
    let sink = Sink::start(Behavior::ok());
    sink.receiver
        .set_path_behavior("/hang", Behavior::delay(HANG, Behavior::ok()));
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings::new(dir.path(), &sink).shutdown_grace_seconds(SHORT);
    let mut relay = start(&settings);
    let t = tenant(&relay.url, "grace");
    let consumer = t.consumer("hang");
    t.endpoint_for(&consumer, &sink.receiver.url("/hang"), "v1a");
    let deadline = Instant::now() + Duration::from_secs(30);
    t.api.publish_to(&consumer, "evt_hang");
    sink.wait_in_flight(1, deadline)
        .expect("the attempt in flight");

    let (_, took) = sigterm_and_wait(&mut relay, HANG);
    assert!(
        took >= Duration::from_secs(SHORT) && took < HANG - Duration::from_secs(5),
        "shutdown took {took:?} with a grace of {SHORT} s"
    );
    let log = relay.log_text();
    assert!(log.contains("abandoned"), "{log}");
    assert!(log.contains("dispatcher stopped"), "{log}");
    relay.assert_no_panic();
    drop(relay);

    // The next process attempts the message again, at once: its lease was
    // released, not left to expire.
    sink.receiver.set_path_behavior("/hang", Behavior::ok());
    let relay = start(&settings);
    let api = t.api.at(&relay.url);
    let id = message_of(&api, "evt_hang");
    let deadline = Instant::now() + Duration::from_secs(30);
    harness::eventually("evt_hang to be delivered", deadline, || {
        let m = api.get(&format!("/v1/messages/{id}"));
        (m["state"] == "delivered").then_some(())
    });
    let attempts = attempts_of(&api, &id);
    assert_eq!(
        attempts.len(),
        1,
        "only the finished attempt is recorded: {attempts:?}"
    );
    assert_eq!(sink.receiver.requests_to("/hang").len(), 2);
    relay.assert_no_panic();
}

/// Sends SIGTERM and waits up to `within` for a successful exit; returns
/// the exit status and how long it took.
fn sigterm_and_wait(
    relay: &mut harness::Relay,
    within: Duration,
) -> (std::process::ExitStatus, Duration) {
    let term = Instant::now();
    relay.sigterm();
    let status = relay.wait_exit(within).unwrap_or_else(|| {
        panic!(
            "relay serve still running after SIGTERM\n{}",
            relay.log_tail(20)
        )
    });
    let took = term.elapsed();
    assert!(
        status.success(),
        "exit status {status}\n{}",
        relay.log_tail(20)
    );
    (status, took)
}

/// The id of the one message of event `event_id`.
fn message_of(api: &harness::Api, event_id: &str) -> String {
    let list = api.get(&format!("/v1/messages?event_id={event_id}"));
    let data = list["data"].as_array().expect("data");
    assert_eq!(data.len(), 1, "{list}");
    id_of(&data[0])
}

fn attempts_of(api: &harness::Api, message_id: &str) -> Vec<Value> {
    api.get(&format!("/v1/messages/{message_id}/attempts"))["data"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}
