//! One circuit breaker per endpoint for the cluster (issue 42, item 1):
//! three `relay serve` processes on one PostgreSQL. The first node alone
//! sees the failures that open an endpoint's circuit; the two nodes started
//! after it hold the endpoint from their first claim and show the circuit
//! open, as does an API-only node; nothing reaches the endpoint before the
//! cool-down ends; after it, probes close the circuit on every node and the
//! held messages go.
//!
//! Needs PostgreSQL (`relay_store::testenv::postgres_url`); skipped (with
//! a SKIPPED line) without it, a failure under `RELAY_TEST_REQUIRE_ALL=1`.

mod harness;

use std::time::{Duration, Instant, UNIX_EPOCH};

use harness::{Api, PgDb, Settings, Sink, eventually, id_of, start, tenant};
use relay_core::time::Timestamp;
use relay_receiver::Behavior;
use serde_json::Value;

const COOL_DOWN_SECONDS: u64 = 6;

fn node(dir: &std::path::Path, sink: &Sink, db: &PgDb, i: usize) -> Settings {
    Settings::new(&dir.join(format!("node{i}")), sink)
        .database(Some(&db.url))
        .env("RELAY_DELIVERY__CIRCUIT_FAILURE_THRESHOLD", "3")
        .env(
            "RELAY_DELIVERY__CIRCUIT_COOL_DOWN_SECONDS",
            &COOL_DOWN_SECONDS.to_string(),
        )
        .env("RELAY_DELIVERY__CIRCUIT_HALF_OPEN_PROBES", "2")
}

/// The endpoint's circuit as the node behind `api` shows it.
fn circuit(api: &Api, endpoint_id: &str) -> Value {
    api.get(&format!("/v1/endpoints/{endpoint_id}/health"))["circuit"].clone()
}

#[test]
fn failures_one_node_saw_hold_the_endpoint_on_every_node() {
    let Some(db) = PgDb::create("cluster_breaker") else {
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    let sink = Sink::start(Behavior::status(503));
    let dir = tempfile::tempdir().unwrap();
    let first = start(&node(dir.path(), &sink, &db, 0));
    let t = tenant(&first.url, "breaker");
    let endpoint = id_of(&t.endpoint(&sink.receiver.url("/breaker"), "v1a"));
    for i in 0..3 {
        let (status, body) = t.api.publish(&format!("evt_open_{i}"), "order/1").unwrap();
        assert_eq!(status, 202, "{body}");
    }
    sink.wait_count(3, deadline).unwrap();
    let until: Timestamp = eventually("the first node's circuit to open", deadline, || {
        let c = circuit(&t.api, &endpoint);
        (c["state"] == "open").then(|| serde_json::from_value(c["until"].clone()).unwrap())
    });

    // Two more nodes, which never saw the endpoint fail, and an API-only
    // node, which attempts nothing and shows the cluster's circuit.
    let others: Vec<_> = (1..3)
        .map(|i| start(&node(dir.path(), &sink, &db, i)))
        .chain([start(&node(dir.path(), &sink, &db, 3).role("api"))])
        .collect();
    let apis: Vec<Api> = others.iter().map(|n| t.api.at(&n.url)).collect();
    let opened_at = Timestamp(
        std::time::SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64,
    );
    assert!(
        opened_at < until,
        "the nodes started within the cool-down ({COOL_DOWN_SECONDS} s); raise it"
    );
    for api in &apis {
        let c = circuit(api, &endpoint);
        assert_eq!(c["state"], "open", "{c}");
    }
    // A resend through the API-only node meets the cluster's open circuit
    // as through any node: refused, nothing sent.
    let api_only = apis.last().unwrap();
    let failed = api_only.get(&format!("/v1/messages?endpoint_id={endpoint}"));
    let message = failed["data"][0]["id"]
        .as_str()
        .expect("a message")
        .to_string();
    let (status, body) = api_only
        .try_call("POST", &format!("/v1/messages/{message}/resend"), None)
        .unwrap();
    assert_eq!(
        (status, body["code"].as_str()),
        (429, Some("endpoint_circuit_open")),
        "{body}"
    );
    sink.receiver.set_behavior(Behavior::ok());
    for (i, api) in apis.iter().cycle().take(6).enumerate() {
        let (status, body) = api.publish(&format!("evt_held_{i}"), "order/2").unwrap();
        assert_eq!(status, 202, "{body}");
    }

    // After the cool-down the circuit closes on every node and the held
    // messages are delivered; nothing arrived while it was open.
    sink.wait_count(9, deadline).unwrap();
    for api in std::iter::once(&t.api).chain(&apis) {
        eventually("every node's circuit to close", deadline, || {
            (circuit(api, &endpoint)["state"] == "closed").then_some(())
        });
    }
    let requests = sink.receiver.requests();
    for r in &requests[3..] {
        let at = r
            .received_at_system
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        // The nodes convert the database's end of the cool-down to their
        // own time; the same machine's clock, within a sync's rounding.
        assert!(
            at + 100 >= until.millis(),
            "a request {} ms before the circuit's cool-down ended",
            until.millis() - at
        );
    }
    // Closed again, a resend through the API-only node is attempted there.
    let (status, body) = api_only
        .try_call("POST", &format!("/v1/messages/{message}/resend"), None)
        .unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["attempt"]["outcome"], "delivered", "{body}");
    for n in std::iter::once(&first).chain(&others) {
        n.assert_no_panic();
    }
}
