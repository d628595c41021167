//! Graceful shutdown on SIGTERM (issue 3, item 11): `relay serve` stops
//! claiming, lets the attempts in flight finish within the grace period,
//! writes their completions, and exits. After a restart on the same database
//! those messages are `delivered` with one attempt each and are never sent
//! again, and a message that was waiting for its retry (not claimed at the
//! shutdown) stayed `scheduled` and is delivered by the restarted process.
//! With `[server] shutdown_delay_seconds` (issue 43, item 5) readiness fails
//! at once while the API still takes publishes for the delay.

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

/// `[server] shutdown_delay_seconds`: after SIGTERM `/readyz` (and `relay
/// healthcheck --ready`) answers 503 at once while publishes are still
/// taken for the delay; then the process exits within its drain time, and
/// every message published before or during the delay is delivered exactly
/// once (by this process or the next), nothing lost and nothing sent twice.
#[test]
fn sigterm_with_a_delay_fails_readiness_at_once_and_still_takes_publishes() {
    const DELAY: Duration = Duration::from_secs(4);
    const BEFORE: usize = 20;
    const DURING: usize = 10;
    // Attempts at /long outlast the delay: in flight when it ends, they
    // finish within the delivery grace.
    const LONG: Duration = Duration::from_secs(6);
    let sink = Sink::start(Behavior::delay(Duration::from_millis(300), Behavior::ok()));
    sink.receiver
        .set_path_behavior("/long", Behavior::delay(LONG, Behavior::ok()));
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings::new(dir.path(), &sink).env(
        "RELAY_SERVER__SHUTDOWN_DELAY_SECONDS",
        &DELAY.as_secs().to_string(),
    );
    let mut relay = start(&settings);
    let t = tenant(&relay.url, "delay");
    let consumer = t.consumer("burst");
    t.endpoint_for(&consumer, &sink.receiver.url("/burst"), "v1a");
    let long_consumer = t.consumer("long");
    t.endpoint_for(&long_consumer, &sink.receiver.url("/long"), "v1a");
    let listen = relay.url.trim_start_matches("http://").to_string();
    assert_eq!(healthcheck(&listen, true).0, 0, "ready before the signal");

    // A burst in flight when the signal comes.
    let mut events: Vec<String> = (0..BEFORE).map(|i| format!("evt_before_{i}")).collect();
    for id in &events {
        t.api.publish_to(&consumer, id);
    }
    for id in ["evt_long_1", "evt_long_2"] {
        t.api.publish_to(&long_consumer, id);
        events.push(id.to_string());
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    sink.wait_in_flight(3, deadline)
        .expect("attempts in flight");

    let term = Instant::now();
    relay.sigterm();
    harness::eventually("/readyz to answer 503", term + DELAY, || {
        let (status, body) =
            harness::http("GET", &format!("{}/readyz", relay.url), None, None).ok()?;
        (status == 503).then_some(body)
    });
    let not_ready_after = term.elapsed();
    let (code, out) = healthcheck(&listen, true);
    assert_eq!(code, 1, "healthcheck --ready while shutting down: {out}");
    assert!(
        out.contains("503") && out.contains("shutting_down"),
        "{out}"
    );
    assert_eq!(healthcheck(&listen, false).0, 0, "still alive: {out}");
    for i in 0..DURING {
        let id = format!("evt_during_{i}");
        let (status, body) = t
            .api
            .try_call(
                "POST",
                "/v1/events",
                Some(&{
                    let mut b = harness::event_body(&id, "order/during");
                    b["consumer_id"] = consumer.clone().into();
                    b
                }),
            )
            .unwrap_or_else(|e| panic!("publish {id} during the delay: {e}"));
        assert_eq!(status, 202, "publish {id} during the delay: {body}");
        events.push(id);
    }
    let (status, _) = harness::http("GET", &format!("{}/readyz", relay.url), None, None)
        .expect("/readyz during the delay");
    assert_eq!(status, 503);
    let published_by = term.elapsed();
    assert!(
        published_by < DELAY,
        "the publishes took {published_by:?}, past the delay of {DELAY:?}"
    );

    // (No second signal: it would end the delay at once.)
    let status = relay
        .wait_exit(DELAY + GRACE)
        .unwrap_or_else(|| panic!("still running after the delay\n{}", relay.log_tail(20)));
    let took = term.elapsed();
    assert!(status.success(), "{status}\n{}", relay.log_tail(20));
    assert!(
        took >= DELAY,
        "exited after {took:?}, before the delay of {DELAY:?}"
    );
    assert!(
        harness::http("GET", &format!("{}/healthz", relay.url), None, None).is_err(),
        "the listener is closed after the exit"
    );
    let (code, out) = healthcheck(&listen, false);
    assert_eq!(code, 1, "healthcheck of a stopped relay: {out}");
    assert_eq!(sink.receiver.in_flight(), 0, "every attempt was answered");
    assert_eq!(sink.receiver.requests_to("/long").len(), 2);
    relay.assert_no_panic();
    println!(
        "SIGTERM with a {DELAY:?} delay: not ready after {not_ready_after:?}, \
         {DURING} publishes taken by {published_by:?}, exited after {took:?}"
    );
    drop(relay);

    // Every message is delivered, once, by this process or the next.
    let relay = start(&settings);
    let api = t.api.at(&relay.url);
    let ids: Vec<String> = events.iter().map(|e| message_of(&api, e)).collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    for id in &ids {
        harness::eventually("every message delivered", deadline, || {
            let m = api.get(&format!("/v1/messages/{id}"));
            (m["state"] == "delivered").then_some(())
        });
    }
    // One message per event (one endpoint): as many requests as events,
    // each with a webhook-id of its own.
    let requests = sink.receiver.requests();
    let sent = harness::by_message(&requests);
    assert_eq!(sent.len(), events.len(), "{:?}", sent.keys());
    for (key, times) in &sent {
        assert_eq!(times.len(), 1, "{key:?} was sent {} times", times.len());
    }
    assert_eq!(requests.len(), BEFORE + DURING + 2);
    for id in ["evt_long_1", "evt_long_2"] {
        let m = message_of(&api, id);
        assert_eq!(
            attempts_of(&api, &m).len(),
            1,
            "{id}: one attempt, recorded"
        );
    }
    relay.assert_no_panic();
}

/// A second SIGTERM during the delay ends it at once (an operator who
/// wants the process gone now).
#[test]
fn a_second_sigterm_ends_the_delay_at_once() {
    const DELAY: Duration = Duration::from_secs(60);
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let settings = Settings::new(dir.path(), &sink).env(
        "RELAY_SERVER__SHUTDOWN_DELAY_SECONDS",
        &DELAY.as_secs().to_string(),
    );
    let mut relay = start(&settings);
    let term = Instant::now();
    relay.sigterm();
    harness::eventually(
        "/readyz to answer 503",
        term + Duration::from_secs(10),
        || {
            let (status, _) =
                harness::http("GET", &format!("{}/readyz", relay.url), None, None).ok()?;
            (status == 503).then_some(())
        },
    );
    let (_, took) = sigterm_and_wait(&mut relay, Duration::from_secs(20));
    assert!(took < Duration::from_secs(15), "exited after {took:?}");
    relay.assert_no_panic();
}

/// `relay healthcheck [--ready] --listen <listen>`: (exit code, stdout and stderr).
fn healthcheck(listen: &str, ready: bool) -> (i32, String) {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_relay"));
    cmd.arg("healthcheck").arg("--listen").arg(listen);
    if ready {
        cmd.arg("--ready");
    }
    for (k, _) in std::env::vars() {
        if k.starts_with("RELAY_") {
            cmd.env_remove(k);
        }
    }
    let out = cmd.output().expect("run relay healthcheck");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
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
