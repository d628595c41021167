//! One tenant's CPU-heavy requests never delay another tenant (issue 39,
//! section 1): while a hostile tenant sends, several at a time, the worst
//! schemas and publishes it can craft (schemas whose `$ref`s and branches
//! blow up a naive walk, a validator or a backtracking regular expression;
//! the costliest publish the budget allows), another tenant's publishes and
//! `/healthz` answer within a second, and its deliveries go on.

mod harness;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use harness::{EVENT_TYPE, Settings, Sink, http, start, tenant};
use relay_receiver::Behavior;
use serde_json::{Value, json};

/// `n` definitions, each applying the next one twice; the last is `last`.
fn doubling_chain(n: usize, last: Value) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..n {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({"anyOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert(format!("d{n}"), last);
    Value::Object(defs)
}

/// The hostile requests, (method, path, body), sent round and round.
fn attacks() -> Vec<(&'static str, &'static str, Value)> {
    let self_loop = json!({
        "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}},
        "$ref": "#/$defs/a"
    });
    // Within every bound: each element costs 9,211 (weighted) subschemas.
    let costly = json!({
        "$defs": doubling_chain(10, json!({"type": "integer"})),
        "type": "array",
        "items": {"$ref": "#/$defs/d0"}
    });
    // As many elements as the budget allows, none valid: validation tries
    // every branch of each.
    let strings: Vec<String> = (0..2000)
        .map(|i| format!("{i}{}!", "a".repeat(21)))
        .collect();
    vec![
        (
            "PUT",
            "/v1/event-types/loop.created",
            json!({"schema": self_loop, "thin_fields": ["/x"], "personal_data_fields": ["/y"]}),
        ),
        (
            "PUT",
            "/v1/event-types/chain.created",
            json!({"schema": {"$defs": doubling_chain(30, json!({"type": "string"})), "$ref": "#/$defs/d0"}, "sample": 1}),
        ),
        (
            "PUT",
            "/v1/event-types/regex.created",
            json!({"schema": {"type": "array", "items": {"pattern": "(a*)*\\1b"}}, "sample": strings}),
        ),
        (
            "PUT",
            "/v1/event-types/costly.created",
            json!({"schema": costly}),
        ),
        (
            "POST",
            "/v1/events",
            json!({"type": "costly.created", "data": strings}),
        ),
    ]
}

#[test]
fn a_hostile_tenant_never_delays_another() {
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let relay = start(&Settings::new(dir.path(), &sink));
    let attacker = tenant(&relay.url, "attacker");
    let victim = tenant(&relay.url, "victim");
    victim.endpoint(&sink.receiver.url("/victim"), "v1a");
    // The costly type exists before the attack starts, so its publishes run.
    attacker.api.expect(
        "PUT",
        "/v1/event-types/costly.created",
        Some(&attacks()[3].2),
        201,
    );

    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicUsize::new(0));
    let slowest_attack = Arc::new(std::sync::Mutex::new(Duration::ZERO));
    let mut threads = Vec::new();
    for worker in 0..4 {
        let (stop, sent, slowest) = (stop.clone(), sent.clone(), slowest_attack.clone());
        let api = attacker.api.clone();
        threads.push(std::thread::spawn(move || {
            let attacks = attacks();
            let mut i = worker;
            while !stop.load(Ordering::Relaxed) {
                let (method, path, body) = &attacks[i % attacks.len()];
                let started = Instant::now();
                // Refusals (422, 429 busy) are what the attacker gets; an
                // error is a request that did not answer in 10 s.
                let _ = api.try_call(method, path, Some(body));
                let took = started.elapsed();
                let mut s = slowest.lock().unwrap();
                *s = (*s).max(took);
                sent.fetch_add(1, Ordering::Relaxed);
                i += 1;
            }
        }));
    }

    // The victim's traffic while the attack runs: at least 5 seconds and 20
    // rounds, and until the attacker has sent each attack several times.
    let started = Instant::now();
    let mut slowest = (Duration::ZERO, "");
    let mut published = 0u64;
    while started.elapsed() < Duration::from_secs(5)
        || published < 20
        || sent.load(Ordering::Relaxed) < 20
    {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the attacker's requests never answered"
        );
        let t = Instant::now();
        let (status, _) =
            http("GET", &format!("{}/healthz", relay.url), None, None).expect("/healthz answers");
        assert_eq!(status, 200);
        let took = t.elapsed();
        if took > slowest.0 {
            slowest = (took, "/healthz");
        }
        let t = Instant::now();
        let (status, body) = victim
            .api
            .try_call(
                "POST",
                "/v1/events",
                Some(&json!({
                    "type": EVENT_TYPE,
                    "data": {"order_id": format!("o{published}"), "carrier": "DHL"},
                })),
            )
            .expect("the victim's publish answers");
        assert_eq!(status, 202, "{body}");
        published += 1;
        let took = t.elapsed();
        if took > slowest.0 {
            slowest = (took, "the victim's publish");
        }
    }
    // Deliveries went on: every victim event reaches its endpoint.
    sink.wait_count(published, Instant::now() + Duration::from_secs(30))
        .expect("the victim's deliveries arrive during the attack");
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().unwrap();
    }
    eprintln!(
        "{} attacks sent (slowest answered in {:?}); {published} victim publishes; slowest victim request: {} in {:?}",
        sent.load(Ordering::Relaxed),
        slowest_attack.lock().unwrap(),
        slowest.1,
        slowest.0
    );
    assert!(
        slowest.0 < Duration::from_secs(1),
        "{} took {:?} during the attack",
        slowest.1,
        slowest.0
    );
    relay.assert_no_panic();
}
