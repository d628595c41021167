//! Inbound provider webhooks end to end with the real `relay` binary
//! (issue 28), on SQLite always and on PostgreSQL when the tests have one:
//!
//! - the same provider event sent 100 times at once is one receipt,
//!   counted 100 times, and one ledger entry;
//! - `relay serve` SIGKILLed after it answered `2xx` and before it
//!   processed (a node with `[inbound] processing = false`), then
//!   restarted: every receipt is processed exactly once into the ledger;
//! - SIGKILLed while it processes a burst (some receipts leased, some
//!   written): after the restart (leases expire after
//!   `[delivery] lease_seconds`) each receipt is in the ledger exactly once;
//! - split roles (PostgreSQL): an `api` node receives and leaves receipts
//!   pending, a `worker` answers `404` to the provider and writes them.
//!
//! Waits poll the API with a deadline; nothing sleeps to wait for behaviour.

mod harness;

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use harness::{Api, PgDb, Relay, Settings, Sink, eventually, id_of, start, tenant};
use relay_core::signature::{HmacSecret, SignedContent};
use relay_receiver::Behavior;
use serde_json::{Value, json};

const WHSEC: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// A Standard Webhooks request for event `id`: (headers, body).
fn signed(id: &str) -> (Vec<(String, String)>, String) {
    let body = json!({"type": "email.delivered", "timestamp": "2026-12-03T08:00:00Z",
                      "data": {"message_id": id}})
    .to_string();
    let ts = unix_now().to_string();
    let sig = HmacSecret::parse(WHSEC)
        .expect("whsec")
        .sign(&SignedContent {
            webhook_id: id,
            webhook_timestamp: &ts,
            body: body.as_bytes(),
        });
    let headers = vec![
        ("webhook-id".to_string(), id.to_string()),
        ("webhook-timestamp".to_string(), ts),
        ("webhook-signature".to_string(), format!("v1,{sig}")),
    ];
    (headers, body)
}

/// `POST` of raw `body` with `headers` on a fresh connection; (status, body).
fn post(url: &str, headers: &[(String, String)], body: &str) -> std::io::Result<(u16, String)> {
    let rest = url.strip_prefix("http://").expect("http URL");
    let (host, path) = rest.split_at(rest.find('/').expect("a path"));
    let mut stream = TcpStream::connect(host)?;
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

/// A Standard Webhooks source of the tenant; its receiving URL on `relay`.
fn source(api: &Api, relay: &Relay) -> String {
    let s = api.expect(
        "POST",
        "/v1/inbound-sources",
        Some(
            &json!({"name": "e2e", "preset": "standard_webhooks", "secret": WHSEC,
                     "rate_limit_per_second": 10_000}),
        ),
        201,
    );
    format!("{}{}", relay.url, s["path"].as_str().expect("path"))
}

fn ledger(api: &Api) -> Vec<Value> {
    api.list_all("/v1/ledger")
}

fn settings(dir: &std::path::Path, sink: &Sink, db: Option<&PgDb>) -> Settings {
    Settings::new(dir, sink)
        .database(db.map(|d| d.url.as_str()))
        .lease_seconds(9)
        // The shortest lease a 2 s request timeout allows (2 + 2 + 5 s).
        .env("RELAY_DELIVERY__REQUEST_TIMEOUT_SECONDS", "2")
}

fn backends(test: &str, run: impl Fn(&str, Option<&PgDb>)) {
    run("sqlite", None);
    if let Some(db) = PgDb::create(test) {
        run("postgres", Some(&db));
    }
}

#[test]
fn the_same_event_sent_100_times_at_once_is_one_ledger_entry() {
    backends("inbound_same_event_100_times", |backend, db| {
        let sink = Sink::start(Behavior::ok());
        let dir = tempfile::tempdir().unwrap();
        let relay = start(&settings(dir.path(), &sink, db));
        let t = tenant(&relay.url, "dup");
        let url = source(&t.api, &relay);
        let (headers, body) = signed("evt_same");
        let answers: Vec<(u16, String)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..100)
                .map(|_| s.spawn(|| post(&url, &headers, &body).expect("post")))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let statuses: Vec<u16> = answers.iter().map(|(s, _)| *s).collect();
        assert!(
            statuses.iter().all(|s| *s == 200),
            "{backend}: {statuses:?}"
        );
        let firsts = answers
            .iter()
            .filter(|(_, b)| b.contains("\"duplicate\":false"))
            .count();
        assert_eq!(firsts, 1, "{backend}: one answer says new");
        let deadline = Instant::now() + Duration::from_secs(30);
        let entries = eventually("the ledger entry", deadline, || {
            let l = ledger(&t.api);
            (!l.is_empty()).then_some(l)
        });
        assert_eq!(entries.len(), 1, "{backend}");
        assert_eq!(entries[0]["provider_event_id"], "evt_same");
        let receipts = t.api.list_all("/v1/inbound-receipts");
        assert_eq!(receipts.len(), 1, "{backend}");
        assert_eq!(receipts[0]["received_count"], 100, "{backend}");
        let processed = eventually("the receipt processed", deadline, || {
            let r = t
                .api
                .get(&format!("/v1/inbound-receipts/{}", id_of(&receipts[0])));
            (r["state"] == "processed").then_some(r)
        });
        assert_eq!(processed["attempts"], 1, "{backend}");
        // Later, once more: still one entry.
        post(&url, &headers, &body).expect("post");
        assert_eq!(ledger(&t.api).len(), 1, "{backend}");
        relay.assert_no_panic();
    });
}

/// Every receipt processed, each exactly once in the ledger.
fn assert_each_once(backend: &str, api: &Api, ids: &HashSet<String>) {
    let deadline = Instant::now() + Duration::from_secs(60);
    eventually("every receipt processed", deadline, || {
        let receipts = api.list_all("/v1/inbound-receipts");
        let done = receipts
            .iter()
            .filter(|r| r["state"] == "processed")
            .count();
        (receipts.len() == ids.len() && done == ids.len()).then_some(())
    });
    let entries = ledger(api);
    let seen: Vec<String> = entries
        .iter()
        .map(|e| e["provider_event_id"].as_str().unwrap().to_string())
        .collect();
    let unique: HashSet<String> = seen.iter().cloned().collect();
    assert_eq!(seen.len(), ids.len(), "{backend}: one entry per receipt");
    assert_eq!(&unique, ids, "{backend}: every event in the ledger");
    let receipts: HashSet<String> = entries
        .iter()
        .map(|e| e["receipt_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        receipts.len(),
        ids.len(),
        "{backend}: one entry per receipt"
    );
}

#[test]
fn sigkill_after_the_answer_before_processing_loses_nothing() {
    backends("inbound_sigkill_before_processing", |backend, db| {
        let sink = Sink::start(Behavior::ok());
        let dir = tempfile::tempdir().unwrap();
        let receiving_only =
            settings(dir.path(), &sink, db).env("RELAY_INBOUND__PROCESSING", "false");
        let mut first = start(&receiving_only);
        let t = tenant(&first.url, "kill");
        let url = source(&t.api, &first);
        let path = url.trim_start_matches(&first.url).to_string();
        let ids: HashSet<String> = (0..50).map(|i| format!("evt_{i:03}")).collect();
        for id in &ids {
            let (headers, body) = signed(id);
            let (status, answer) = post(&url, &headers, &body).expect("post");
            assert_eq!(status, 200, "{backend}: {answer}");
        }
        let pending = t.api.list_all("/v1/inbound-receipts?state=pending");
        assert_eq!(
            pending.len(),
            ids.len(),
            "{backend}: answered, not processed"
        );
        first.kill();
        first.assert_no_panic();

        let relay = start(&settings(dir.path(), &sink, db));
        let api = t.api.at(&relay.url);
        assert_each_once(backend, &api, &ids);
        // The receiving URL is the same after the restart.
        let (headers, body) = signed("evt_after");
        let (status, _) = post(&format!("{}{path}", relay.url), &headers, &body).expect("post");
        assert_eq!(status, 200);
        relay.assert_no_panic();
    });
}

#[test]
fn sigkill_while_processing_writes_each_receipt_once() {
    backends("inbound_sigkill_while_processing", |backend, db| {
        let sink = Sink::start(Behavior::ok());
        let dir = tempfile::tempdir().unwrap();
        let mut first = start(&settings(dir.path(), &sink, db));
        let t = tenant(&first.url, "burst");
        let url = source(&t.api, &first);
        let ids: Vec<String> = (0..400).map(|i| format!("evt_{i:04}")).collect();
        std::thread::scope(|s| {
            for chunk in ids.chunks(50) {
                let url = &url;
                s.spawn(move || {
                    for id in chunk {
                        let (headers, body) = signed(id);
                        let (status, answer) = post(url, &headers, &body).expect("post");
                        assert_eq!(status, 200, "{answer}");
                    }
                });
            }
        });
        // Killed right after the last answer: the ledger writer is mid-burst.
        let written = ledger(&t.api).len();
        first.kill();
        first.assert_no_panic();
        println!(
            "{backend}: {written} of {} in the ledger just before the kill",
            ids.len()
        );
        let relay = start(&settings(dir.path(), &sink, db));
        let api = t.api.at(&relay.url);
        let ids: HashSet<String> = ids.into_iter().collect();
        assert_each_once(backend, &api, &ids);
        relay.assert_no_panic();
    });
}

/// `[server] role` split (PostgreSQL): receiving is API traffic, writing
/// the ledger worker work. An `api` node answers the provider and keeps
/// the receipts pending; a `worker` answers `404` on the receiving path
/// and writes every receipt to the ledger, once.
#[test]
fn an_api_node_receives_and_a_worker_writes_the_ledger() {
    let Some(db) = PgDb::create("inbound_roles") else {
        return;
    };
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let api_node = start(&settings(&dir.path().join("api"), &sink, Some(&db)).role("api"));
    let t = tenant(&api_node.url, "roles");
    let url = source(&t.api, &api_node);
    let path = url.trim_start_matches(&api_node.url).to_string();
    let ids: HashSet<String> = (0..20).map(|i| format!("evt_role_{i:02}")).collect();
    for id in &ids {
        let (headers, body) = signed(id);
        let (status, answer) = post(&url, &headers, &body).expect("post");
        assert_eq!(status, 200, "{answer}");
    }
    let pending = t.api.list_all("/v1/inbound-receipts?state=pending");
    assert_eq!(pending.len(), ids.len(), "an api node writes no ledger");
    assert!(ledger(&t.api).is_empty());

    let worker = start(&settings(&dir.path().join("worker"), &sink, Some(&db)).role("worker"));
    let (headers, body) = signed("evt_to_the_worker");
    let (status, answer) = post(&format!("{}{path}", worker.url), &headers, &body).expect("post");
    assert_eq!(status, 404, "a worker takes no inbound webhook: {answer}");
    assert_each_once("postgres", &t.api, &ids);
    api_node.assert_no_panic();
    worker.assert_no_panic();
}
