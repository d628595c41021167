//! `relay serve --role` (`[server] role`, issue #42 §3): the API and the
//! delivery workers scaled apart.
//!
//! - a worker-only node serves `/healthz`, `/readyz` (naming its role) and
//!   `/metrics`, and answers `404` problem+json to the API (SQLite);
//! - an API-only node alone takes publishes and delivers none of them; a
//!   manual attempt (resend) still runs on it, answered with the attempt
//!   (SQLite);
//! - an API-only node and a worker-only node on one PostgreSQL database:
//!   what is published through the API node is delivered by the worker,
//!   and the API node attempts nothing, leases nothing at publish (its
//!   `/metrics`), every attempt is the worker's (PostgreSQL; SKIPPED
//!   without it).

mod harness;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use harness::{Api, PgDb, Relay, Settings, Sink, id_of, metric, path_and_id, start, tenant};
use relay_receiver::Behavior;
use serde_json::{Value, json};

/// `GET path` of `relay`; (status, JSON body).
fn get_json(relay: &Relay, path: &str) -> (u16, Value) {
    let (status, body) = harness::http("GET", &format!("{}{path}", relay.url), None, None)
        .unwrap_or_else(|e| panic!("GET {path}: {e}"));
    let json = serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {body}"));
    (status, json)
}

/// The readiness answer names the role.
#[track_caller]
fn assert_ready_as(relay: &Relay, role: &str) {
    let (status, body) = get_json(relay, "/readyz");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"status": "ready", "role": role}));
    let metrics = relay.metrics();
    assert_eq!(
        metric(&metrics, &format!("relay_node_role{{role=\"{role}\"}}")),
        Some(1.0),
        "{metrics}"
    );
}

/// Every outcome of `relay_attempts_total`, summed.
fn attempts_total(metrics: &str) -> f64 {
    metrics
        .lines()
        .filter(|l| l.starts_with("relay_attempts_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[test]
fn a_worker_serves_health_readiness_and_metrics_and_no_api() {
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let worker = start(&Settings::new(dir.path(), &sink).role("worker"));
    let (status, body) =
        harness::http("GET", &format!("{}/healthz", worker.url), None, None).expect("GET /healthz");
    assert_eq!((status, body.as_str()), (200, "ok"));
    assert_ready_as(&worker, "worker");
    // The container's probe says the role as well.
    let listen = worker.url.trim_start_matches("http://");
    let out = relay(
        dir.path(),
        &["healthcheck", "--ready", "--listen", listen],
        &[],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout.contains("answered 200 (role worker)"), "{stdout}");

    let op = worker.operator();
    for (method, path, body) in [
        ("GET", "/v1/tenants", None),
        ("POST", "/v1/tenants", Some(json!({"name": "nope"}))),
        (
            "POST",
            "/v1/events",
            Some(harness::event_body("evt_w", "w")),
        ),
        ("GET", "/v1/messages", None),
        ("POST", "/inbound/isrc_token", Some(json!({}))),
        ("GET", "/openapi.json", None),
        ("GET", "/portal", None),
    ] {
        let (status, problem) = op
            .try_call(method, path, body.as_ref())
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert_eq!(status, 404, "{method} {path}: {problem}");
        assert_eq!(problem["code"], "not_found", "{method} {path}: {problem}");
    }
    worker.assert_no_panic();
}

#[test]
fn an_api_node_alone_takes_publishes_and_delivers_none_but_a_resend() {
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let api_node = start(&Settings::new(dir.path(), &sink).role("api"));
    assert_ready_as(&api_node, "api");
    let t = tenant(&api_node.url, "api-alone");
    let endpoint = id_of(&t.endpoint(&sink.receiver.url("/api-alone"), "v1"));
    let left = t.api.publish_to(&t.consumer_id, "evt_left");
    let resent = t.api.publish_to(&t.consumer_id, "evt_resent");
    let message_of = |event: &Value| -> String {
        let event_id = id_of(event);
        let list = t.api.get(&format!(
            "/v1/messages?endpoint_id={endpoint}&event_id={event_id}"
        ));
        id_of(&list["data"][0])
    };
    let (left, resent) = (message_of(&left), message_of(&resent));

    // A manual attempt runs here, through this node's lanes, and the
    // answer is the attempt.
    let answer = t
        .api
        .expect("POST", &format!("/v1/messages/{resent}/resend"), None, 200);
    assert_eq!(answer["message"]["state"], "delivered", "{answer}");
    assert!(answer["attempt"].is_object(), "{answer}");
    sink.wait_count(1, Instant::now() + Duration::from_secs(10))
        .expect("the resend arrives");

    // Both published before the resend; a claimer (or a lease at publish)
    // would have attempted the first by now. Nothing did: it waits for a
    // worker, unattempted.
    let m = t.api.get(&format!("/v1/messages/{left}"));
    assert_eq!(m["state"], "scheduled", "{m}");
    let attempts = t.api.get(&format!("/v1/messages/{left}/attempts"));
    assert_eq!(attempts["data"], json!([]), "{attempts}");
    let received: Vec<String> = sink
        .receiver
        .requests()
        .iter()
        .filter_map(|r| path_and_id(r).map(|(_, id)| id))
        .collect();
    assert_eq!(received, ["evt_resent"]);
    let metrics = api_node.metrics();
    assert_eq!(
        metric(&metrics, "relay_leased_at_publish_total"),
        Some(0.0),
        "{metrics}"
    );
    assert_eq!(
        attempts_total(&metrics),
        1.0,
        "the resend's alone: {metrics}"
    );
    api_node.assert_no_panic();
}

const EVENTS: usize = 40;

#[test]
fn an_api_node_and_a_worker_on_one_postgres_deliver_and_only_the_worker_attempts() {
    let Some(db) = PgDb::create("roles") else {
        return;
    };
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    // The API node first: it migrates the fresh database.
    let api_node = start(
        &Settings::new(&dir.path().join("api"), &sink)
            .database(Some(&db.url))
            .role("api"),
    );
    let worker = start(
        &Settings::new(&dir.path().join("worker"), &sink)
            .database(Some(&db.url))
            .role("worker"),
    );
    assert_ready_as(&api_node, "api");
    assert_ready_as(&worker, "worker");
    let t = tenant(&api_node.url, "roles");
    let endpoint = id_of(&t.endpoint(&sink.receiver.url("/roles"), "v1"));
    for i in 0..EVENTS {
        let (status, body) = t
            .api
            .publish(&format!("evt_roles_{i:03}"), &format!("order/{i}"))
            .expect("publish");
        assert_eq!(status, 202, "{body}");
    }
    let wanted: HashSet<(String, String)> = (0..EVENTS)
        .map(|i| ("/roles".to_string(), format!("evt_roles_{i:03}")))
        .collect();
    if let Err(e) = sink.wait_for_all(
        &wanted,
        path_and_id,
        Instant::now() + Duration::from_secs(60),
    ) {
        panic!(
            "not delivered: {e}\napi:\n{}\nworker:\n{}",
            api_node.log_tail(20),
            worker.log_tail(20)
        );
    }
    let api: &Api = &t.api;
    let deadline = Instant::now() + Duration::from_secs(30);
    harness::eventually("every message delivered", deadline, || {
        (harness::open_messages(api, &endpoint) == 0).then_some(())
    });
    let messages = api.list_all(&format!("/v1/messages?endpoint_id={endpoint}"));
    assert_eq!(messages.len(), EVENTS);
    assert!(messages.iter().all(|m| m["state"] == "delivered"));

    // The API node never claimed, leased at publish or attempted: every
    // attempt of every message is the worker's.
    let api_metrics = api_node.metrics();
    let worker_metrics = worker.metrics();
    assert_eq!(attempts_total(&api_metrics), 0.0, "{api_metrics}");
    assert_eq!(
        metric(&api_metrics, "relay_leased_at_publish_total"),
        Some(0.0),
        "{api_metrics}"
    );
    let recorded: usize = messages
        .iter()
        .map(|m| {
            let list = api.get(&format!("/v1/messages/{}/attempts", id_of(m)));
            list["data"].as_array().map_or(0, Vec::len)
        })
        .sum();
    assert_eq!(
        metric(
            &worker_metrics,
            "relay_attempts_total{outcome=\"delivered\"}"
        ),
        Some(EVENTS as f64),
        "{worker_metrics}"
    );
    assert_eq!(
        attempts_total(&worker_metrics) as usize,
        recorded,
        "the worker's counters hold every recorded attempt"
    );
    assert_eq!(recorded, sink.receiver.requests().len());
    // The worker, for its part, serves no API.
    let (status, _) = api
        .at(&worker.url)
        .try_call("GET", "/v1/messages", None)
        .expect("GET /v1/messages of the worker");
    assert_eq!(status, 404);
    api_node.assert_no_panic();
    worker.assert_no_panic();
}

/// `relay` with `args` in an empty directory, no `RELAY_*` but `env`.
fn relay(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_relay"));
    cmd.args(args).current_dir(dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("RELAY_") {
            cmd.env_remove(k);
        }
    }
    cmd.envs(env.iter().copied()).output().expect("run relay")
}

#[test]
fn config_check_and_serve_refuse_an_invalid_role_and_show_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    let wanted = "server.role must be one of \"all\", \"api\", \"worker\"";
    for (args, env) in [
        (
            vec!["config", "check"],
            vec![("RELAY_SERVER__ROLE", "workers")],
        ),
        (vec!["config", "check", "--role", "API"], vec![]),
        (
            vec![
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--data-dir",
                data,
                "--role",
                "both",
            ],
            vec![],
        ),
    ] {
        let out = relay(dir.path(), &args, &env);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} {env:?} succeeded");
        assert!(stderr.contains(wanted), "{args:?} {env:?}: {stderr}");
    }
    assert!(
        !std::path::Path::new(data).exists(),
        "serve stopped before it opened anything"
    );
    let out = relay(
        dir.path(),
        &["config", "check", "--role", "api"],
        &[("RELAY_SERVER__ROLE", "worker")],
    );
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("role = \"api\"") && l.contains("flag --role")),
        "{stdout}"
    );
}
