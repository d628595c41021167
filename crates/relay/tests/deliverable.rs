//! What the API accepts is deliverable (issue 21, §3), end to end against a
//! real `relay serve`:
//!
//! - inputs that used to be answered `202` (or `201`) and then end
//!   `dead_lettered` (a subject with a control character, a consumer source
//!   that is not a URI reference, an external id that makes an invalid
//!   default source, a payload whose envelope is over the delivery limit
//!   while the request is under the request limit) are refused by the API;
//!   had one been accepted, the test follows it to its terminal state and
//!   fails with it;
//! - accepted publishes with edge-case values (a 512-byte source full of
//!   sub-delims, Unicode subjects, the largest payload that fits, a given
//!   `time`) are delivered, never dead-lettered, and the delivered CloudEvent
//!   carries the published `time`. On SQLite and, when
//!   `RELAY_TEST_POSTGRES_URL` is set, on PostgreSQL.

mod harness;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use harness::{Api, PgDb, Settings, Sink, eventually, id_of, path_and_id, start, tenant};
use relay_core::attributes::{self, MAX_SOURCE_LEN};
use relay_core::envelope::Envelope;
use relay_core::model::Environment;
use relay_core::time::Timestamp;
use relay_receiver::Behavior;
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// `[limits] max_request_bytes` by default, which is also the delivery limit.
const LIMIT: usize = 1024 * 1024;
const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const TYPE: &str = harness::EVENT_TYPE;

/// The terminal state of the one message of `event_id`.
fn final_state(api: &Api, event_id: &str) -> String {
    eventually(
        &format!("the message of {event_id} to end"),
        Instant::now() + Duration::from_secs(30),
        || {
            let ev = api.get(&format!("/v1/events/{event_id}"));
            let state = ev["messages"][0]["state"].as_str()?.to_string();
            (state != "scheduled" && state != "in_flight").then_some(state)
        },
    )
}

/// Whether `(status, body)` is the refusal `status`/`code`; if the API
/// accepted it instead, follows `event_id`'s message and says how it ended.
fn refused(
    api: &Api,
    what: &str,
    got: (u16, Value),
    status: u16,
    code: &str,
    event_id: &str,
) -> Result<(), String> {
    let (s, body) = got;
    if s == 202 {
        return Err(format!(
            "{what}: accepted with 202, then {}; expected {status} {code}",
            final_state(api, event_id)
        ));
    }
    if (s, body["code"].as_str()) != (status, Some(code)) {
        return Err(format!(
            "{what}: {s} {}; expected {status} {code}",
            body["code"]
        ));
    }
    Ok(())
}

/// A `{"pad":"x…"}` payload length `n` such that the API's bound for this
/// publish is exactly `target` bytes.
fn pad_for(target: usize, id: &str, time: Timestamp) -> usize {
    let bound = |n: usize| {
        let data = RawValue::from_string(format!(r#"{{"pad":"{}"}}"#, "x".repeat(n))).unwrap();
        let schema = attributes::dataschema_uri(TYPE, 1);
        attributes::delivered_len_bound(&Envelope {
            id,
            source: "",
            event_type: TYPE,
            time: Some(time),
            subject: None,
            dataschema: Some(&schema),
            data: Some(&data),
            seq: None,
            traceparent: Some(TP),
            environment: Some(Environment::Live),
            endpoint_version: None,
        })
        .unwrap()
    };
    let n = target - bound(0);
    assert_eq!(bound(n), target);
    n
}

fn big(id: &str, n: usize, time: Timestamp) -> Value {
    json!({ "id": id, "type": TYPE, "traceparent": TP, "time": time.to_rfc3339(),
            "data": { "pad": "x".repeat(n) } })
}

#[test]
fn what_would_be_dead_lettered_is_refused_at_the_api() {
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let relay = start(&Settings::new(dir.path(), &sink));
    let t = tenant(&relay.url, "refused");
    t.endpoint(&sink.receiver.url("/refused"), "v1a");
    let api = &t.api;

    let publish = |body: Value| api.try_call("POST", "/v1/events", Some(&body)).unwrap();
    let mut failures: Vec<String> = Vec::new();
    let mut check = |r: Result<(), String>| failures.extend(r.err());
    check(refused(
        api,
        "a subject with a line break",
        publish(json!({ "id": "evt_nl", "type": TYPE, "subject": "line\nbreak", "data": {} })),
        422,
        "validation_failed",
        "evt_nl",
    ));
    check(refused(
        api,
        "a subject with an escape character",
        publish(json!({ "id": "evt_esc", "type": TYPE, "subject": "\u{1b}[31mred", "data": {} })),
        422,
        "validation_failed",
        "evt_esc",
    ));

    // The request is under the request limit, its envelope over the
    // delivery limit: the envelope adds the source, the schema, the time…
    let n = LIMIT - 200;
    let body = json!({ "id": "evt_big", "type": TYPE, "data": { "pad": "x".repeat(n) } });
    assert!(body.to_string().len() < LIMIT);
    check(refused(
        api,
        "an envelope over the limit",
        publish(body),
        413,
        "envelope_too_large",
        "evt_big",
    ));

    // Consumers whose source could not be in an envelope: had one been
    // created, an event to it would be dead-lettered.
    for (i, consumer) in [
        json!({ "external_id": "src-unicode", "source": "tenant/ü" }),
        json!({ "external_id": "src-bar", "source": "/consumers/a|b" }),
        json!({ "external_id": "src-hash", "source": "/a#b#c" }),
        json!({ "external_id": "acme|eu" }),
    ]
    .into_iter()
    .enumerate()
    {
        let (s, body) = api
            .try_call("POST", "/v1/consumers", Some(&consumer))
            .unwrap();
        if s == 201 {
            let c = id_of(&body);
            t.endpoint_for(&c, &sink.receiver.url(&format!("/consumer-{i}")), "v1a");
            let id = format!("evt_consumer_{i}");
            let ev = json!({ "id": id, "type": TYPE, "consumer_id": c, "data": {} });
            let what = format!("an event to consumer {consumer}, created with 201");
            check(refused(api, &what, publish(ev), 422, "invalid_source", &id));
        } else {
            check(refused(
                api,
                &consumer.to_string(),
                (s, body),
                422,
                "invalid_source",
                "",
            ));
        }
    }
    relay.assert_no_panic();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn accepted_edge_cases_are_delivered(database_url: Option<&str>) {
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let relay = start(&Settings::new(dir.path(), &sink).database(database_url));
    let t = tenant(&relay.url, "edge");
    let api = &t.api;

    // The longest source, with every kind of character a URI reference has.
    let prefix = "https://user:pw@shop.example:8443/m/it's(ok)!*+,;=$&~%20/a:b@c?q=/?#f/?";
    let source = format!("{prefix}{}", "x".repeat(MAX_SOURCE_LEN - prefix.len()));
    let longest = api.expect(
        "POST",
        "/v1/consumers",
        Some(&json!({ "external_id": "longest", "source": source })),
        201,
    );
    // A default source from an external id with every character ids allow but `|`.
    let derived = api.expect(
        "POST",
        "/v1/consumers",
        Some(&json!({ "external_id": "A-z_0.9:/@x" })),
        201,
    );
    assert_eq!(derived["source"], "/consumers/A-z_0.9:/@x");
    let sources = [
        ("/longest", longest["source"].as_str().unwrap().to_string()),
        ("/derived", derived["source"].as_str().unwrap().to_string()),
    ];
    assert_eq!(sources[0].1.len(), MAX_SOURCE_LEN);
    for ((path, _), consumer) in sources.iter().zip([&longest, &derived]) {
        t.endpoint_for(&id_of(consumer), &sink.receiver.url(path), "v1a");
    }

    let subjects = [
        "a\u{2028}b",
        "tést ünïcode 😀 \"quoted\" \\ back/slash",
        "\u{a0}nbsp",
    ];
    let mut published: Vec<(String, Value)> = Vec::new();
    for (i, subject) in subjects.iter().enumerate() {
        let id = format!("evt_subject_{i}");
        let r = api.expect(
            "POST",
            "/v1/events",
            Some(&json!({ "id": id, "type": TYPE, "subject": subject, "data": { "i": i } })),
            202,
        );
        published.push((id, r));
    }
    // A given time (an offset, more than millisecond precision), and none.
    let r = api.expect(
        "POST",
        "/v1/events",
        Some(&json!({ "id": "evt_time", "type": TYPE, "data": {},
                      "time": "2020-01-01T01:00:00.5+01:00" })),
        202,
    );
    assert_eq!(r["time"], "2020-01-01T00:00:00.5Z");
    published.push(("evt_time".into(), r));
    // The largest payload that fits the delivery limit whatever the source.
    let time = Timestamp(1_600_000_000_000);
    let n = pad_for(LIMIT, "evt_largest", time);
    let r = api.expect(
        "POST",
        "/v1/events",
        Some(&big("evt_largest", n, time)),
        202,
    );
    published.push(("evt_largest".into(), r));
    // One byte more is refused (not dead-lettered later).
    let (s, body) = api
        .try_call("POST", "/v1/events", Some(&big("evt_largesu", n + 1, time)))
        .unwrap();
    assert_eq!(
        (s, body["code"].as_str()),
        (413, Some("envelope_too_large")),
        "{body}"
    );

    let wanted: HashSet<(String, String)> = published
        .iter()
        .flat_map(|(id, _)| {
            sources
                .iter()
                .map(move |(p, _)| (p.to_string(), id.clone()))
        })
        .collect();
    let requests = sink
        .wait_for_all(
            &wanted,
            path_and_id,
            Instant::now() + Duration::from_secs(60),
        )
        .unwrap_or_else(|e| panic!("{e}\n{}", relay.log_tail(40)));
    for (id, event) in &published {
        for (path, source) in &sources {
            let r = requests
                .iter()
                .find(|r| path_and_id(r) == Some((path.to_string(), id.clone())))
                .unwrap_or_else(|| panic!("{id} at {path}"));
            assert!(r.body.len() <= LIMIT, "{id}: {} bytes", r.body.len());
            let ce: Value = serde_json::from_slice(&r.body).expect("a JSON CloudEvent");
            assert_eq!(ce["source"].as_str(), Some(source.as_str()), "{id}");
            assert_eq!(ce["subject"], event["subject"], "{id}");
            assert_eq!(ce["time"], event["time"], "{id}: the published time");
            assert_eq!(ce["data"], event["data"], "{id}");
        }
        let ev = api.get(&format!("/v1/events/{id}"));
        assert_eq!(ev["time"], event["time"]);
        let states: Vec<&str> = ev["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|m| m["state"].as_str())
            .collect();
        assert_eq!(states.len(), 2, "{ev}");
        assert!(!states.contains(&"dead_lettered"), "{id}: {states:?}");
    }
    let time_event = requests
        .iter()
        .find(|r| r.header("webhook-id") == Some("evt_time"))
        .map(|r| serde_json::from_slice::<Value>(&r.body).unwrap());
    assert_eq!(
        time_event.map(|ce| ce["time"].clone()),
        Some(json!("2020-01-01T00:00:00.5Z"))
    );
    // Without a `time`, the CloudEvent's time is when Relay accepted it.
    assert_eq!(published[0].1["time"], published[0].1["created_at"]);
    eventually(
        "every message delivered",
        Instant::now() + Duration::from_secs(30),
        || {
            let all = api.list_all("/v1/messages");
            (all.len() == published.len() * 2 && all.iter().all(|m| m["state"] == "delivered"))
                .then_some(())
        },
    );
    relay.assert_no_panic();
}

#[test]
fn accepted_edge_cases_are_delivered_on_sqlite() {
    accepted_edge_cases_are_delivered(None);
}

#[test]
fn accepted_edge_cases_are_delivered_on_postgres() {
    let Some(db) = PgDb::create("deliverable") else {
        return;
    };
    accepted_edge_cases_are_delivered(Some(&db.url));
}
