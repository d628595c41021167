//! The workflow step end to end (issue 46 §3), on SQLite and PostgreSQL:
//! `relay serve` delivers a step's event to the registered endpoint, whose
//! receiver (on loopback) answers `302` with a marker in its body, a header
//! and its `Location`. The workflow engine reads back the outcome (state,
//! status code, one attempt); the marker is in no answer of the API (the
//! step, its event, its message and attempts, the endpoint's health, the
//! operator's tenant), nor in `/metrics`, nor in the process's log. The
//! whole walk of every route is `relay-api`'s `tests/workflow_steps.rs`.

mod harness;

use std::time::{Duration, Instant};

use harness::{EVENT_TYPE, PgDb, Settings, Sink, eventually, id_of, start, tenant};
use relay_receiver::{Behavior, Reply};
use serde_json::json;

const MARK: &str = "wfe2emark5d1";

fn a_steps_answer_stays_with_the_receiver(postgres: bool) {
    let pg = if postgres {
        match PgDb::create("workflow_step") {
            Some(db) => Some(db),
            None => return,
        }
    } else {
        None
    };
    let sink = Sink::start(Behavior::ok());
    sink.receiver.set_path_behavior(
        "/step",
        Behavior::reply(
            Reply::new(302)
                .with_header("location", &format!("https://{MARK}.example/next"))
                .with_header("x-next-step", MARK)
                .with_body(format!("{{\"next\": \"{MARK}\"}}")),
        ),
    );
    let dir = tempfile::tempdir().unwrap();
    let relay =
        start(&Settings::new(dir.path(), &sink).database(pg.as_ref().map(|db| db.url.as_str())));
    let t = tenant(&relay.url, "workflow");
    let endpoint = id_of(&t.endpoint(&sink.receiver.url("/step"), "v1a"));
    let made = t.api.expect(
        "POST",
        "/v1/workflow-steps",
        Some(
            &json!({ "step_key": "run-7/notify", "endpoint_id": endpoint,
                      "event": { "type": EVENT_TYPE, "data": { "order_id": "o-7" } } }),
        ),
        202,
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    let done = eventually("the step's delivery to end", deadline, || {
        let step = t.api.get("/v1/workflow-steps/run-7%2Fnotify");
        (step["state"] == "failed_permanent").then_some(step)
    });
    assert_eq!(done["status_code"], 302, "{done}");
    assert_eq!(done["attempts"], 1, "{done}");
    assert_eq!(done["message_id"], made["message_id"]);
    // The receiver got the event at the registered URL.
    let got = sink.receiver.requests_to("/step");
    assert_eq!(got.len(), 1);
    assert!(
        String::from_utf8_lossy(&got[0].body).contains("o-7"),
        "the step's event was delivered"
    );

    let message = made["message_id"].as_str().unwrap();
    let event = made["event_id"].as_str().unwrap();
    let mut answers = String::new();
    for path in [
        "/v1/workflow-steps/run-7%2Fnotify".to_string(),
        format!("/v1/messages/{message}"),
        format!("/v1/messages/{message}/attempts"),
        format!("/v1/events/{event}"),
        format!("/v1/endpoints/{endpoint}/health"),
        "/v1/messages".to_string(),
        "/v1/audit-log".to_string(),
    ] {
        answers.push_str(&t.api.get(&path).to_string());
    }
    let health = t.api.get(&format!("/v1/endpoints/{endpoint}/health"));
    assert!(
        health.to_string().contains("redirect_not_followed"),
        "{health}"
    );
    answers.push_str(
        &relay
            .operator()
            .get(&format!("/v1/tenants/{}", t.tenant_id))
            .to_string(),
    );
    let metrics = relay.metrics();
    assert!(metrics.contains("relay_attempts_total"), "{metrics}");
    relay.assert_no_panic();
    let log = relay.log_text();
    assert!(!log.is_empty(), "the process logged");
    for (what, text) in [
        ("an API answer", &answers),
        ("/metrics", &metrics),
        ("the log", &log),
    ] {
        assert!(
            !text.contains(MARK),
            "the receiver's answer reached {what}: {text}"
        );
    }
}

#[test]
fn a_steps_answer_stays_with_the_receiver_sqlite() {
    a_steps_answer_stays_with_the_receiver(false);
}

#[test]
fn a_steps_answer_stays_with_the_receiver_postgres() {
    a_steps_answer_stays_with_the_receiver(true);
}
