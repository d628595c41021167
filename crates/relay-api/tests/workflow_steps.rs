//! The workflow step (issue 46 §3): a workflow engine has Relay deliver one
//! event to one registered endpoint, by id, idempotent by the step's key,
//! and learns only the delivery's outcome.
//!
//! `the_receivers_answer_never_comes_back` is the attacker's test: a
//! receiver on loopback answers a step with a marker in its body, in a
//! header and in a `Location` (a `302`), in a `503` with `Retry-After`, and
//! in a `200`; the dispatcher delivers, retries and a resend attempts
//! again; then every `GET` of the API description (tenant key, portal
//! token, operator token, every id the test knows in every path
//! parameter), `/metrics` and the log are searched: the marker is nowhere.
//! A control endpoint that is no step's, answered with another marker,
//! shows that the walk does read what attempts keep. On SQLite and
//! PostgreSQL.
//!
//! `a_step_is_idempotent_by_its_key_and_goes_to_its_endpoint_only`: the
//! rules of the route (same request → same step, `200`, nothing sent again;
//! another request with the key → `409 step_key_reused`; an endpoint of
//! another tenant or environment → `404`; not subscribed → `422`; a paused
//! endpoint holds the step; replay never gives its event to another
//! endpoint). On SQLite and PostgreSQL.

mod common;

use std::sync::{Arc, Mutex};

use axum::http::{Method, StatusCode};
use common::{Harness, OPERATOR, id_of};
use relay_net::{Guard, OutboundConfig, StaticResolver};
use relay_receiver::{Behavior, Receiver, ReceiverConfig, Reply};
use relay_store::conformance::TestDb;
use serde_json::{Value, json};

const HOOKS: &str = "hooks.workflow.test";
/// What the receiver puts in every answer to a step.
const MARK: &str = "wfmark7f3a";
/// What it puts in its answers to the control endpoint.
const CONTROL: &str = "ctlmark91c2";

/// What the log subscriber wrote.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

/// Everything this test binary logs, at every level, from every thread.
/// One global subscriber, set once: a subscriber set per test
/// (`set_default`) is its thread's alone, and the two backends' tests run
/// at once, so a callsite's cached interest could leave one test's
/// attempts unlogged (seen in CI: "the log was captured" failed).
fn captured_log() -> Captured {
    static LOG: std::sync::OnceLock<Captured> = std::sync::OnceLock::new();
    LOG.get_or_init(|| {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .finish();
        tracing::subscriber::set_global_default(subscriber)
            .expect("the only global subscriber of this test binary");
        captured
    })
    .clone()
}

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

async fn db(postgres: bool, name: &str) -> Option<TestDb> {
    if postgres {
        TestDb::postgres(name).await
    } else {
        Some(TestDb::sqlite().await)
    }
}

/// A harness over `db` whose guard reaches `receiver` as [`HOOKS`].
async fn harness(db: TestDb, receiver: &Receiver) -> Harness {
    let outbound = OutboundConfig {
        allow_ports: vec![receiver.port()],
        allow_cidrs: vec!["127.0.0.1/32".into()],
        block_cidrs: vec![],
        extra_ca_certs: vec![receiver.ca_pem_path().to_path_buf()],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new().with(HOOKS, ["127.0.0.1".parse().unwrap()]);
    let guard = Arc::new(Guard::with_resolver(&outbound, Arc::new(resolver)).expect("guard"));
    Harness::build(
        db,
        Default::default(),
        guard,
        relay_engine::EngineConfig::new("api-workflow"),
    )
    .await
}

async fn endpoint(
    h: &Harness,
    key: &str,
    consumer: &str,
    receiver: &Receiver,
    path: &str,
) -> String {
    id_of(
        &h.post(
            "/v1/endpoints",
            key,
            json!({
                "consumer_id": consumer,
                "destination": { "kind": "https", "url": receiver.url_for_host(HOOKS, path) },
                "event_types": ["order.paid"],
            }),
        )
        .await
        .expect(StatusCode::CREATED),
    )
}

fn step(key: &str, endpoint: &str, order: u32) -> Value {
    json!({ "step_key": key, "endpoint_id": endpoint,
            "event": { "type": "order.paid", "subject": format!("order/{order}"), "data": { "order": order } } })
}

/// A reply carrying `mark` in its body and a header.
fn marked(status: u16, mark: &str) -> Reply {
    Reply::new(status)
        .with_header("x-receiver-says", &format!("{mark}-header"))
        .with_body(format!("{{\"next_step\": \"{mark}-body\"}}"))
}

/// Every `GET` of the API description, with every value of `ids` in its
/// path parameter and each of `tokens`, plus the operator's unlisted
/// paths: the bodies of the answers, and how many were `200`.
async fn walk(h: &Harness, ids: &[String], tokens: &[&str]) -> (String, usize) {
    let doc = relay_api::openapi::document();
    let mut paths: Vec<String> = vec!["/metrics".into(), "/healthz".into(), "/readyz".into()];
    for (template, item) in doc["paths"].as_object().expect("paths") {
        if item.get("get").is_none() {
            continue;
        }
        let names: Vec<&str> = template
            .split('{')
            .skip(1)
            .filter_map(|p| p.split('}').next())
            .collect();
        match names.as_slice() {
            [] => paths.push(template.clone()),
            [name] => {
                for id in ids {
                    let encoded = id.replace('/', "%2F");
                    paths.push(template.replace(&format!("{{{name}}}"), &encoded));
                }
            }
            more => panic!(
                "{template}: a GET with {} parameters; extend the walk",
                more.len()
            ),
        }
    }
    let mut seen = String::new();
    let mut ok = 0;
    for path in paths {
        for token in tokens {
            let r = h.send(Method::GET, &path, Some(*token), "").await;
            if r.status == StatusCode::OK {
                ok += 1;
            }
            seen.push_str(&format!("\n== GET {path}: {}\n", r.status));
            seen.push_str(&r.text());
            for (name, value) in &r.headers {
                seen.push_str(&format!(
                    "\n{name}: {}",
                    String::from_utf8_lossy(value.as_bytes())
                ));
            }
        }
    }
    (seen, ok)
}

/// A step's (state, status code, attempts).
fn outcome_of(step: &Value) -> (Option<&str>, Option<i64>, Option<i64>) {
    (
        step["state"].as_str(),
        step["status_code"].as_i64(),
        step["attempts"].as_i64(),
    )
}

/// Where [`MARK`] is in `text`: each time, the request whose answer held it
/// and the text before it.
fn marked_places(text: &str) -> Vec<String> {
    text.match_indices(MARK)
        .map(|(at, _)| {
            let request = text[..at].rfind("\n== ").map_or(0, |f| f + 1);
            let request = text[request..].lines().next().unwrap_or("");
            let before: String = text[..at].chars().rev().take(120).collect();
            format!("{request} :: …{}", before.chars().rev().collect::<String>())
        })
        .collect()
}

async fn the_receivers_answer_never_comes_back(postgres: bool) {
    let Some(db) = db(postgres, "api_workflow_answer").await else {
        return;
    };
    let receiver = Receiver::start(ReceiverConfig {
        extra_names: vec![HOOKS.into()],
        ..Default::default()
    })
    .await
    .unwrap();
    let location = format!("https://{MARK}-location.example/next");
    receiver.set_path_behavior("/ok", Behavior::reply(marked(200, MARK)));
    receiver.set_path_behavior(
        "/moved",
        Behavior::reply(marked(302, MARK).with_header("location", &location)),
    );
    receiver.set_path_behavior(
        "/busy",
        Behavior::reply(marked(503, MARK).with_header("retry-after", "1")),
    );
    receiver.set_path_behavior("/control", Behavior::reply(marked(200, CONTROL)));
    let h = harness(db, &receiver).await;
    // `/metrics` renders the dispatcher's counters, with tenant labels, as
    // `relay serve` wires them.
    let metrics = h.dispatcher.metrics();
    metrics.set_tenant_labels(true);
    let _ = h.state.metrics.set(Arc::new(move || metrics.render()));

    let captured = captured_log();

    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    h.open_event_type(&key, "order.paid").await;
    let consumer = h.consumer(&key, "shop").await;
    let ok = endpoint(&h, &key, &consumer, &receiver, "/ok").await;
    let moved = endpoint(&h, &key, &consumer, &receiver, "/moved").await;
    let busy = endpoint(&h, &key, &consumer, &receiver, "/busy").await;
    let portal = h
        .post(
            "/v1/portal-tokens",
            &key,
            json!({ "consumer_id": consumer, "capabilities": ["manage_endpoints", "recover", "send_tests"] }),
        )
        .await
        .expect(StatusCode::CREATED);
    let portal_token = portal["token"].as_str().unwrap().to_string();

    let mut steps = Vec::new();
    for (n, (step_key, endpoint_id)) in [
        ("run-1/ok", &ok),
        ("run-1/moved", &moved),
        ("run-1/busy", &busy),
    ]
    .into_iter()
    .enumerate()
    {
        let made = h
            .post(
                "/v1/workflow-steps",
                &key,
                step(step_key, endpoint_id, n as u32),
            )
            .await
            .expect(StatusCode::ACCEPTED);
        assert_eq!(made["state"], "scheduled", "{made}");
        assert_eq!(made["attempts"], 0, "{made}");
        steps.push(made);
    }
    // The control: an ordinary event, to the control endpoint only.
    let control_consumer = h.consumer(&key, "control").await;
    let control_only = endpoint(&h, &key, &control_consumer, &receiver, "/control").await;
    h.publish(
        &key,
        json!({ "type": "order.paid", "data": { "order": 99 }, "consumer_id": control_consumer }),
    )
    .await
    .expect(StatusCode::ACCEPTED);

    assert_eq!(h.dispatcher.run_once().await.unwrap(), 4);
    // The 503's retry (its `Retry-After` defers it), then a resend of each
    // step's message: manual attempts keep nothing either.
    h.clock.advance_millis(60_000);
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 1);
    let mut resent = String::new();
    for s in &steps {
        let message = s["message_id"].as_str().unwrap();
        let r = h
            .post(&format!("/v1/messages/{message}/resend"), &key, json!({}))
            .await;
        resent.push_str(&format!(
            "\n== POST /v1/messages/{message}/resend: {}\n",
            r.status
        ));
        resent.push_str(&r.text());
        r.expect(StatusCode::OK);
    }
    assert_eq!(receiver.requests_to("/ok").len(), 2);
    assert_eq!(receiver.requests_to("/moved").len(), 2);
    assert_eq!(receiver.requests_to("/busy").len(), 3);

    // The outcomes: state, status code, attempts, times.
    let outcome = |k: &str| {
        let h = &h;
        let key = key.clone();
        let k = k.replace('/', "%2F");
        async move {
            h.get(&format!("/v1/workflow-steps/{k}"), &key)
                .await
                .expect(StatusCode::OK)
        }
    };
    let o = outcome("run-1/ok").await;
    assert_eq!(
        outcome_of(&o),
        (Some("delivered"), Some(200), Some(2)),
        "{o}"
    );
    let o = outcome("run-1/moved").await;
    assert_eq!(
        outcome_of(&o),
        (Some("failed_permanent"), Some(302), Some(2)),
        "{o}"
    );
    let o = outcome("run-1/busy").await;
    assert_eq!(
        outcome_of(&o),
        (Some("scheduled"), Some(503), Some(3)),
        "{o}"
    );
    assert!(o["last_attempt_at"].is_string(), "{o}");
    let mut fields: Vec<&str> = o.as_object().unwrap().keys().map(String::as_str).collect();
    fields.sort();
    let outcome = "attempts created_at endpoint_id event_id last_attempt_at message_id state \
        status_code step_key updated_at";
    assert_eq!(
        fields.join(" "),
        outcome,
        "the outcome view holds the outcome only: {o}"
    );
    // What a step's attempt keeps: the status code, and that the answer was withheld.
    for s in &steps {
        let message = s["message_id"].as_str().unwrap();
        let attempts = h
            .get(&format!("/v1/messages/{message}/attempts"), &key)
            .await
            .expect(StatusCode::OK);
        for a in attempts["data"].as_array().unwrap() {
            assert_eq!(a["response_body"], Value::Null, "{a}");
            assert_eq!(a["detail"]["answer_withheld"], true, "{a}");
            assert_eq!(a["detail"].as_object().unwrap().len(), 2, "{a}");
        }
    }

    // Every GET, with every id the test knows and every credential.
    let mut ids: Vec<String> = vec![
        tenant.clone(),
        consumer.clone(),
        control_consumer.clone(),
        "order.paid".into(),
    ];
    ids.extend([&ok, &moved, &busy, &control_only].map(|s| s.to_string()));
    for s in &steps {
        for f in ["step_key", "event_id", "message_id"] {
            ids.push(s[f].as_str().unwrap().to_string());
        }
    }
    let messages = h
        .get("/v1/messages?limit=250", &key)
        .await
        .expect(StatusCode::OK);
    ids.extend(common::ids_in(&messages));
    ids.push(id_of(&portal));
    ids.sort();
    ids.dedup();
    let tokens = [key.as_str(), portal_token.as_str(), OPERATOR];
    let (mut seen, answered) = walk(&h, &ids, &tokens).await;
    seen.push_str(&resent);
    assert!(
        answered > 60,
        "the walk read too little ({answered} answers)"
    );
    assert!(
        seen.contains(CONTROL),
        "the walk reads what attempts keep (the control's answer)"
    );
    assert!(
        seen.contains("redirect_not_followed"),
        "the walk reads the health warnings"
    );
    assert!(
        seen.contains("relay_attempts_total"),
        "the walk reads the metrics"
    );
    let logs = String::from_utf8_lossy(&captured.0.lock().unwrap()).into_owned();
    assert!(logs.contains("attempt finished"), "the log was captured");
    for (what, text) in [("an API answer", &seen), ("the log", &logs)] {
        let places = marked_places(text);
        assert!(
            places.is_empty(),
            "the receiver's answer reached {what}: {places:#?}"
        );
    }
    h.db.cleanup().await;
}

#[tokio::test]
async fn the_receivers_answer_never_comes_back_sqlite() {
    the_receivers_answer_never_comes_back(false).await;
}

#[tokio::test]
async fn the_receivers_answer_never_comes_back_postgres() {
    the_receivers_answer_never_comes_back(true).await;
}

async fn a_step_is_idempotent_by_its_key_and_goes_to_its_endpoint_only(postgres: bool) {
    let Some(db) = db(postgres, "api_workflow_rules").await else {
        return;
    };
    let receiver = Receiver::start(ReceiverConfig {
        extra_names: vec![HOOKS.into()],
        ..Default::default()
    })
    .await
    .unwrap();
    let h = harness(db, &receiver).await;
    let (tenant, key) = h.tenant_with_key("acme", "live").await;
    let test_key = h.api_key(&tenant, "test").await;
    let (_, other_key) = h.tenant_with_key("other", "live").await;
    for k in [&key, &test_key, &other_key] {
        h.open_event_type(k, "order.paid").await;
        h.open_event_type(k, "order.refunded").await;
    }
    let consumer = h.consumer(&key, "shop").await;
    let target = endpoint(&h, &key, &consumer, &receiver, "/a").await;
    let sibling = endpoint(&h, &key, &consumer, &receiver, "/b").await;

    // Created once; the same request again is the same step, nothing more.
    let first = h
        .post("/v1/workflow-steps", &key, step("wf/1", &target, 1))
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(first["endpoint_id"], target.as_str());
    // Key order and spacing of `data` do not make another request.
    let again = h
        .send(
            Method::POST,
            "/v1/workflow-steps",
            Some(&key),
            format!(r#"{{"event": {{"data": {{ "order": 1 }}, "subject": "order/1", "type": "order.paid"}}, "endpoint_id": "{target}", "step_key": "wf/1"}}"#),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(again["message_id"], first["message_id"]);
    assert_eq!(again["event_id"], first["event_id"]);
    // Another request with the key: refused, whatever differs.
    for other in [
        step("wf/1", &target, 2),
        step("wf/1", &sibling, 1),
        json!({ "step_key": "wf/1", "endpoint_id": target,
                "event": { "type": "order.refunded", "subject": "order/1", "data": { "order": 1 } } }),
    ] {
        h.post("/v1/workflow-steps", &key, other)
            .await
            .problem(StatusCode::CONFLICT, "step_key_reused");
    }
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(receiver.requests().len(), 1);
    assert_eq!(receiver.requests_to("/a").len(), 1, "to its endpoint only");
    h.post("/v1/workflow-steps", &key, step("wf/1", &target, 1))
        .await
        .expect(StatusCode::OK);
    assert_eq!(
        h.dispatcher.run_once().await.unwrap(),
        0,
        "a repeated request sends nothing"
    );
    let done = h
        .get("/v1/workflow-steps/wf%2F1", &key)
        .await
        .expect(StatusCode::OK);
    assert_eq!(
        outcome_of(&done),
        (Some("delivered"), Some(200), Some(1)),
        "{done}"
    );

    // Another tenant's or environment's key: the endpoint and the step are
    // not found, and the key is free in its own scope.
    for k in [&test_key, &other_key] {
        h.post("/v1/workflow-steps", k, step("wf/2", &target, 1))
            .await
            .problem(StatusCode::NOT_FOUND, "not_found");
        h.get("/v1/workflow-steps/wf%2F1", k)
            .await
            .problem(StatusCode::NOT_FOUND, "not_found");
    }
    h.post(
        "/v1/workflow-steps",
        &key,
        step("wf/2", "ep_01KG9NFKFM762GEWQAX95228MG", 1),
    )
    .await
    .problem(StatusCode::NOT_FOUND, "not_found");
    // Refusals point at the request's fields.
    let r = h
        .post("/v1/workflow-steps", &key, step("wf 3", &target, 1))
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    assert_eq!(r.error_fields(), ["/step_key"]);
    let r = h
        .post(
            "/v1/workflow-steps",
            &key,
            json!({ "step_key": "wf/3", "endpoint_id": target,
                    "event": { "type": "order.paid", "subject": "", "data": {} } }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    assert_eq!(r.error_fields(), ["/event/subject"]);
    let r = h
        .post(
            "/v1/workflow-steps",
            &key,
            json!({ "step_key": "wf/3", "endpoint_id": target,
                    "event": { "type": "order.nope", "data": {} } }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "not_subscribed");
    assert_eq!(r.error_fields(), ["/event/type"]);
    h.patch(
        &format!("/v1/endpoints/{target}"),
        &key,
        json!({ "event_types": ["*"] }),
    )
    .await
    .expect(StatusCode::OK);
    let r = h
        .post(
            "/v1/workflow-steps",
            &key,
            json!({ "step_key": "wf/3", "endpoint_id": target,
                    "event": { "type": "order.nope", "data": {} } }),
        )
        .await;
    r.problem(StatusCode::UNPROCESSABLE_ENTITY, "unknown_event_type");
    assert_eq!(r.error_fields(), ["/event/type"]);
    h.post(
        "/v1/workflow-steps",
        &key,
        json!({ "step_key": "wf/3", "endpoint_id": target, "url": "https://evil.example/",
                "event": { "type": "order.paid", "data": {} } }),
    )
    .await
    .problem(StatusCode::UNPROCESSABLE_ENTITY, "validation_failed");
    h.get("/v1/workflow-steps/nothing-here", &key)
        .await
        .problem(StatusCode::NOT_FOUND, "not_found");

    // A paused endpoint holds the step as it holds any message; resumed, it goes.
    h.post(&format!("/v1/endpoints/{target}/pause"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    let held = h
        .post("/v1/workflow-steps", &key, step("wf/4", &target, 4))
        .await
        .expect(StatusCode::ACCEPTED);
    assert_eq!(held["state"], "held", "{held}");
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 0);
    h.post(&format!("/v1/endpoints/{target}/resume"), &key, json!({}))
        .await
        .expect(StatusCode::OK);
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(receiver.requests_to("/a").len(), 2);

    // Replay to the sibling (same consumer, subscribed to the type) never
    // gives it a step's event.
    let replayed = h
        .post(
            &format!("/v1/endpoints/{sibling}/replay"),
            &key,
            json!({ "since": "2027-01-14T08:00:00Z" }),
        )
        .await
        .expect(StatusCode::OK);
    assert_eq!(replayed["messages_created"], 0, "{replayed}");
    assert_eq!(h.dispatcher.run_once().await.unwrap(), 0);
    assert!(receiver.requests_to("/b").is_empty());
    h.db.cleanup().await;
}

#[tokio::test]
async fn a_step_is_idempotent_by_its_key_and_goes_to_its_endpoint_only_sqlite() {
    a_step_is_idempotent_by_its_key_and_goes_to_its_endpoint_only(false).await;
}

#[tokio::test]
async fn a_step_is_idempotent_by_its_key_and_goes_to_its_endpoint_only_postgres() {
    a_step_is_idempotent_by_its_key_and_goes_to_its_endpoint_only(true).await;
}
