//! A2A push notifications end to end (issue 46 §2, docs/a2a.md), on SQLite
//! and on PostgreSQL: two A2A tasks' push configurations registered as
//! endpoints of `relay serve` (their token and credentials tenant secrets),
//! each task's status and artifact updates published, failures injected at
//! the receiver, and every request that reached it (retries included)
//! handed in arrival order to `scripts/judges/a2a_judge.py`, which parses
//! each body with the A2A SDK's own `StreamResponse` type (unknown fields
//! refused, REQUIRED fields checked) and checks what the A2A TCK checks of a
//! push delivery (`Authorization`, `X-A2A-Notification-Token`, the payload),
//! the Standard Webhooks signature with the endpoint's key, and that each
//! task's updates never went back. Beside it: what the API refuses at
//! registration and at publish, an update of another task never sent to a
//! task's endpoint, a redirect never followed, and no token or credentials
//! in any answer, attempt record or log.

mod harness;

use std::time::{Duration, Instant};

use harness::{PgDb, Settings, Sink, Tenant, eventually, id_of, start, tenant};
use relay_receiver::{Behavior, Recorded, Reply};
use serde_json::{Value, json};

const TOKEN_A: &str = "tok-a-7c1e0f2d9b";
const CRED_A: &str = "cred-a-41f8d2aa6e";
const CRED_B: &str = "cred-b-9d03be57c2";
const UPDATES: usize = 6;

#[test]
fn a2a_push_on_sqlite() {
    run("a2a-sqlite", None);
}

#[test]
fn a2a_push_on_postgres() {
    let Some(db) = PgDb::create("a2a_push") else {
        return;
    };
    run("a2a-pg", Some(&db.url));
}

/// Task `task`'s update number `seq` (1-based): submitted, working, two
/// artifact chunks, working, completed.
fn update(task: &str, seq: usize) -> (&'static str, Value) {
    let meta = json!({ "seq": seq });
    let status = |state: &str| {
        let mut s = json!({ "statusUpdate": { "taskId": task, "contextId": "ctx-1",
            "status": { "state": state, "timestamp": "2026-12-06T10:00:00Z" }, "metadata": meta } });
        if state == "TASK_STATE_COMPLETED" {
            s["statusUpdate"]["status"]["message"] = json!({ "messageId": format!("m-{task}"),
                "role": "ROLE_AGENT", "taskId": task, "parts": [{ "text": "done" }] });
        }
        ("a2a.task.status_updated", s)
    };
    let chunk = |n: usize, last: bool| {
        (
            "a2a.task.artifact_updated",
            json!({ "artifactUpdate": { "taskId": task,
            "contextId": "ctx-1", "append": n > 1, "lastChunk": last, "metadata": meta,
            "artifact": { "artifactId": "report", "name": "report.md",
                "parts": [{ "text": format!("chunk {n}"), "mediaType": "text/markdown" }] } } }),
        )
    };
    match seq {
        1 => status("TASK_STATE_SUBMITTED"),
        2 => status("TASK_STATE_WORKING"),
        3 => chunk(1, false),
        4 => chunk(2, true),
        5 => status("TASK_STATE_WORKING"),
        _ => status("TASK_STATE_COMPLETED"),
    }
}

fn publish(
    t: &Tenant,
    id: &str,
    consumer: &str,
    (event_type, data): (&str, Value),
) -> (u16, Value) {
    let body = json!({ "id": id, "type": event_type, "consumer_id": consumer, "data": data });
    t.api
        .try_call("POST", "/v1/events", Some(&body))
        .expect("publish")
}

/// A task's push config as an endpoint of its own consumer.
fn register(t: &Tenant, consumer: &str, url: &str, a2a_push: Value) -> Value {
    t.api.expect(
        "POST",
        "/v1/endpoints",
        Some(&json!({
            "consumer_id": consumer,
            "destination": { "kind": "https", "url": url, "a2a_push": a2a_push },
            "event_types": ["a2a.task.status_updated", "a2a.task.artifact_updated"],
            "retry_schedule_seconds": [1, 1, 1, 1, 1, 1, 1, 1],
        })),
        201,
    )
}

fn refused(answer: (u16, Value), code: &str, field: &str) {
    let (status, body) = answer;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["code"], code, "{body}");
    let fields: Vec<&str> = body["errors"]
        .as_array()
        .map(|e| e.iter().filter_map(|f| f["field"].as_str()).collect())
        .unwrap_or_default();
    assert!(fields.contains(&field), "{field} not in {body}");
}

fn no_secret(what: &str, text: &str) {
    for secret in [TOKEN_A, CRED_A, CRED_B] {
        assert!(
            !text.contains(secret),
            "{what} holds a secret value: {text}"
        );
    }
}

fn run(name: &str, database: Option<&str>) {
    let judges = harness::judges();
    let sink = Sink::start(Behavior::ok());
    // Failures injected: task A's first request answers 500 echoing its
    // headers' values (which the attempt record must not keep), its fourth
    // 503; task B's second request loses its connection.
    let echo = format!("token={TOKEN_A} credentials={CRED_A} Bearer {CRED_A}");
    sink.receiver.push_path_script(
        "/a2a/a",
        vec![
            Behavior::reply(Reply::new(500).with_body(echo)),
            Behavior::ok(),
            Behavior::ok(),
            Behavior::status(503),
        ],
    );
    sink.receiver
        .push_path_script("/a2a/b", vec![Behavior::ok(), Behavior::close()]);
    let dir = tempfile::tempdir().unwrap();
    let relay = start(
        &Settings::new(dir.path(), &sink)
            .database(database)
            .env("RELAY_RETRY__MIN_WAIT_SECONDS", "1"),
    );
    let t = tenant(&relay.url, name);
    for ty in ["a2a.task.status_updated", "a2a.task.artifact_updated"] {
        let body = json!({ "description": "A2A", "schema": { "type": "object" } });
        let (status, answer) = t
            .api
            .try_call("PUT", &format!("/v1/event-types/{ty}"), Some(&body))
            .unwrap();
        assert!(status == 200 || status == 201, "{status} {answer}");
    }
    for (secret, value) in [
        ("a2a-a-token", TOKEN_A),
        ("a2a-a-cred", CRED_A),
        ("a2a-b-cred", CRED_B),
    ] {
        t.api.expect(
            "PUT",
            &format!("/v1/secrets/{secret}"),
            Some(&json!({ "value": value })),
            201,
        );
    }
    let (task_a, task_b) = (format!("{name}-task-a"), format!("{name}-task-b"));
    let consumer_a = t.consumer(&format!("a2a-task-{task_a}"));
    let consumer_b = t.consumer(&format!("a2a-task-{task_b}"));
    let url = |p: &str| sink.receiver.url(p);

    // Registration: ordered per task by default; what could not be an A2A
    // notification refused.
    let a = register(
        &t,
        &consumer_a,
        &url("/a2a/a"),
        json!({ "task_id": task_a,
        "token": "secret:a2a-a-token",
        "authentication": { "scheme": "Bearer", "credentials": "secret:a2a-a-cred" } }),
    );
    let b = register(
        &t,
        &consumer_b,
        &url("/a2a/b"),
        json!({ "task_id": task_b,
        "authentication": { "scheme": "Basic", "credentials": "secret:a2a-b-cred" } }),
    );
    assert_eq!(a["ordering"], "per_key", "{a}");
    assert_eq!(
        a["destination"]["a2a_push"]["token"], "secret:a2a-a-token",
        "{a}"
    );
    let base = |extra: Value| {
        let mut e = json!({ "consumer_id": consumer_a,
            "destination": { "kind": "https", "url": url("/a2a/x"), "a2a_push": { "task_id": task_a } },
            "event_types": ["a2a.task.status_updated"] });
        if let (Value::Object(e), Value::Object(x)) = (&mut e, extra) {
            e.extend(x);
        }
        t.api.try_call("POST", "/v1/endpoints", Some(&e)).unwrap()
    };
    refused(
        base(json!({ "ordering": "none" })),
        "a2a_ordering_required",
        "/ordering",
    );
    refused(
        base(json!({ "event_types": [harness::EVENT_TYPE] })),
        "a2a_event_type_not_allowed",
        "/event_types/0",
    );
    refused(
        base(
            json!({ "destination": { "kind": "https", "url": url("/a2a/x"),
            "a2a_push": { "task_id": task_a, "token": "secret:missing" } } }),
        ),
        "secret_not_found",
        "/destination/a2a_push/token",
    );
    let (status, body) = base(
        json!({ "destination": { "kind": "https", "url": url("/a2a/x"),
        "a2a_push": { "task_id": task_a, "token": TOKEN_A } } }),
    );
    assert_eq!(
        status, 422,
        "a literal token is no secret reference: {body}"
    );
    no_secret("the refusal of a literal token", &body.to_string());

    // Publish: checked as the StreamResponse it will be sent as.
    let mut v03 = update(&task_a, 2);
    v03.1["statusUpdate"]["kind"] = json!("status-update");
    refused(
        publish(&t, "evt_bad_1", &consumer_a, v03),
        "a2a_invalid_update",
        "/data/statusUpdate/kind",
    );
    let mut state = update(&task_a, 2);
    state.1["statusUpdate"]["status"]["state"] = json!("working");
    refused(
        publish(&t, "evt_bad_2", &consumer_a, state),
        "a2a_invalid_update",
        "/data/statusUpdate/status/state",
    );
    let (ty, data) = update(&task_a, 2);
    let no_consumer = json!({ "type": ty, "data": data });
    refused(
        t.api
            .try_call("POST", "/v1/events", Some(&no_consumer))
            .unwrap(),
        "a2a_consumer_required",
        "/consumer_id",
    );
    let other_key =
        json!({ "type": ty, "data": data, "consumer_id": consumer_a, "ordering_key": "k" });
    refused(
        t.api
            .try_call("POST", "/v1/events", Some(&other_key))
            .unwrap(),
        "a2a_ordering_key_mismatch",
        "/ordering_key",
    );

    // Each task's updates, interleaved, the key being the task.
    for seq in 1..=UPDATES {
        for (task, consumer) in [(&task_a, &consumer_a), (&task_b, &consumer_b)] {
            let (status, body) = publish(
                &t,
                &format!("evt_{task}_{seq}"),
                consumer,
                update(task, seq),
            );
            assert_eq!(status, 202, "{body}");
            assert_eq!(body["ordering_key"], task.as_str(), "{body}");
        }
    }
    // A config whose URL redirects: never followed (the HTTPS table: a
    // 3xx ends the message, `failed_permanent`), so a public URL cannot
    // bounce a notification elsewhere.
    let task_c = format!("{name}-task-c");
    let consumer_c = t.consumer(&format!("a2a-task-{task_c}"));
    sink.receiver
        .set_path_behavior("/a2a/c", Behavior::redirect(&url("/a2a/elsewhere")));
    register(
        &t,
        &consumer_c,
        &url("/a2a/c"),
        json!({ "task_id": task_c }),
    );
    let (status, body) = publish(&t, "evt_redirected", &consumer_c, update(&task_c, 1));
    assert_eq!(status, 202, "{body}");
    // An update of task A published to task B's consumer: accepted there,
    // never sent to task B's webhook.
    let (status, stray) = publish(&t, "evt_stray", &consumer_b, update(&task_a, 1));
    assert_eq!(status, 202, "{stray}");

    let deadline = Instant::now() + Duration::from_secs(90);
    let message = |event: &str| -> Value {
        let e = t.api.get(&format!("/v1/events/{event}"));
        e["messages"][0].clone()
    };
    for task in [&task_a, &task_b] {
        let last = format!("evt_{task}_{UPDATES}");
        eventually(&format!("{last} delivered"), deadline, || {
            (message(&last)["state"] == "delivered").then_some(())
        });
    }
    let stray = eventually("the stray update ended", deadline, || {
        let m = message("evt_stray");
        (m["state"] == "dead_lettered").then_some(m)
    });
    assert_eq!(stray["terminal_reason"], "not_addressed", "{stray}");
    let redirected = eventually("the redirected update ended", deadline, || {
        let m = message("evt_redirected");
        (m["state"] == "failed_permanent").then_some(m)
    });
    assert_eq!(sink.receiver.requests_to("/a2a/c").len(), 1, "{redirected}");
    assert!(
        sink.receiver.requests_to("/a2a/elsewhere").is_empty(),
        "a redirect was followed"
    );

    // Every request, failed ones included, in arrival order, judged.
    let keys = |e: &Value| -> String {
        let k = t
            .api
            .get(&format!("/v1/endpoints/{}/signing-keys", id_of(e)));
        k["data"][0]["public_key"]
            .as_str()
            .expect("a v1a key")
            .to_string()
    };
    let tmp = tempfile::tempdir().unwrap();
    for (path, endpoint, task, token, authorization, failures) in [
        (
            "/a2a/a",
            &a,
            &task_a,
            Some(TOKEN_A),
            format!("Bearer {CRED_A}"),
            2,
        ),
        ("/a2a/b", &b, &task_b, None, format!("Basic {CRED_B}"), 1),
    ] {
        let requests: Vec<Recorded> = sink.receiver.requests_to(path);
        // Each update once, and once more after each injected failure (a
        // lost connection may be retried by the client too: at least).
        assert!(
            requests.len() >= UPDATES + failures,
            "{path}: {} requests for {UPDATES} updates and {failures} failures",
            requests.len()
        );
        let ids: std::collections::BTreeSet<&str> = requests
            .iter()
            .filter_map(|r| r.header("webhook-id"))
            .collect();
        assert_eq!(ids.len(), UPDATES, "{path}: every update arrived: {ids:?}");
        assert!(
            requests
                .iter()
                .all(|r| r.header("webhook-id") != Some("evt_stray")),
            "{path}: another task's update was sent"
        );
        let mut args = vec![
            "--key".to_string(),
            keys(endpoint),
            "--task".into(),
            task.clone(),
        ];
        args.extend(["--authorization".into(), authorization, "--ordered".into()]);
        if let Some(token) = token {
            args.extend(["--token".to_string(), token.to_string()]);
        }
        for (n, r) in requests.iter().enumerate() {
            let file = tmp.path().join(format!("{}-{n}.json", &path[5..]));
            r.write_judge_json(&file).unwrap();
            args.push(file.to_str().unwrap().to_string());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (ok, out) = judges.run("a2a_judge.py", &args);
        assert!(ok, "{path}: the A2A judge refuses what Relay sent\n{out}");
        // The judge refuses what it should: another task expected.
        let mut wrong = args.clone();
        let at = wrong.iter().position(|a| *a == "--task").unwrap() + 1;
        wrong[at] = "another-task";
        assert!(
            !judges.run("a2a_judge.py", &wrong).0,
            "{path}: the judge accepts another task"
        );
    }

    // No token or credentials in answers, attempt records or the log.
    for e in [&a, &b] {
        no_secret("the create answer", &e.to_string());
        no_secret(
            "an endpoint read",
            &t.api
                .get(&format!("/v1/endpoints/{}", id_of(e)))
                .to_string(),
        );
    }
    let first = message(&format!("evt_{task_a}_1"));
    let attempts = t
        .api
        .get(&format!("/v1/messages/{}/attempts", id_of(&first)));
    assert_eq!(
        attempts["data"].as_array().map(Vec::len),
        Some(2),
        "{attempts}"
    );
    assert!(
        attempts.to_string().contains("[redacted]"),
        "the echo is kept, redacted: {attempts}"
    );
    no_secret("the attempts", &attempts.to_string());
    no_secret("the log", &relay.log_text());
    relay.assert_no_panic();
}
