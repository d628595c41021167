//! Conformance cases for ordered delivery per key (`crate::ordering`): only
//! the head of a key is claimable, each way a head ends lets the next one
//! go, publishes and claimers racing on one key keep the line, and a
//! restart re-enters at the tail.

use std::collections::HashMap;

use relay_core::model::Message;

use super::*;
use crate::{Commit, ExecutorExt as _};

/// A tenant, its consumer and one endpoint subscribed to `order.shipped`
/// that delivers in order per key.
async fn ordered_fixture(s: &dyn Store) -> (Scope, Endpoint) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let mut e = endpoint_value(&live, &c.id, &["order.shipped"]);
    e.ordering = relay_core::model::DeliveryOrder::PerKey;
    create_endpoint(s, &live, &e, &[], LIMITS, None)
        .await
        .expect("create endpoint");
    (live, e)
}

/// Publishes `id` with subject `key` (its ordering key) at `now`.
async fn publish_at(s: &dyn Store, sc: &Scope, id: &str, key: Option<&str>, now: Timestamp) {
    s.publish(
        sc,
        NewEvent {
            now,
            time: now,
            ..new_event(id, "order.shipped", key)
        },
    )
    .await
    .expect("publish");
}

/// Every message of `e`, by event id.
async fn by_event(s: &dyn Store, sc: &Scope, e: &Endpoint) -> HashMap<String, Message> {
    let filter = MessageFilter {
        endpoint_id: Some(e.id.clone()),
        ..Default::default()
    };
    let mut out = HashMap::new();
    let mut req = page(100);
    loop {
        let got = list_messages(s, sc, &filter, &req).await.unwrap();
        for m in got.data {
            out.insert(m.event_id.clone(), m);
        }
        match got.next_after {
            Some(after) => req.after = Some(after),
            None => return out,
        }
    }
}

/// The states of `ids`' messages, in that order.
async fn states(s: &dyn Store, sc: &Scope, e: &Endpoint, ids: &[&str]) -> Vec<MessageState> {
    let all = by_event(s, sc, e).await;
    ids.iter().map(|id| all[*id].state).collect()
}

fn ended(c: &crate::Claimed, state: MessageState, reason: Option<&str>) -> Progress {
    Progress {
        state,
        attempts_used: c.message.attempts_used as u32 + 1,
        next_attempt_at: None,
        terminal_reason: reason.map(str::to_string),
        ..c.progress()
    }
}

use MessageState::{
    Blocked, Cancelled, DeadLettered, Delivered, Exhausted, Expired, FailedPermanent, Scheduled,
    WindowExceeded,
};

pub async fn ordered_messages_are_claimed_one_at_a_time_per_key_in_publish_order(s: &dyn Store) {
    let (live, e) = ordered_fixture(s).await;
    for (i, (id, key)) in [
        ("a1", Some("a")),
        ("b1", Some("b")),
        ("a2", Some("a")),
        ("n1", None),
        ("a3", Some("a")),
        ("b2", Some("b")),
        ("n2", None),
    ]
    .into_iter()
    .enumerate()
    {
        publish_at(s, &live, id, key, T0.plus_millis(i as i64)).await;
    }
    let all = ["a1", "a2", "a3", "b1", "b2", "n1", "n2"];
    assert_eq!(
        states(s, &live, &e, &all).await,
        [
            Scheduled, Blocked, Blocked, Scheduled, Blocked, Scheduled, Scheduled
        ],
        "the first of each key and the keyless ones are due; the rest wait"
    );
    let m = &by_event(s, &live, &e).await["a2"];
    assert_eq!(m.ordering_key.as_deref(), Some("a"));
    assert_eq!(m.next_attempt_at, None, "a blocked message is not due");
    let now = T0.plus_seconds(1);
    let claimed = claim_due(s, "w", now, now.plus_seconds(30), 100, &[])
        .await
        .unwrap();
    let mut got: Vec<&str> = claimed.iter().map(|c| c.event.id.as_str()).collect();
    got.sort_unstable();
    assert_eq!(got, ["a1", "b1", "n1", "n2"], "heads and keyless only");
    assert!(
        claim_due(s, "w", now, now.plus_seconds(30), 100, &[])
            .await
            .unwrap()
            .is_empty(),
        "nothing else is claimable while the heads are in flight"
    );
    // Each key advances one message per completed head, in publish order.
    let mut order: Vec<String> = Vec::new();
    let mut in_flight = claimed;
    while !in_flight.is_empty() {
        let done: Vec<Completion> = in_flight
            .iter()
            .map(|c| completion(c, "w", delivered(c)))
            .collect();
        order.extend(in_flight.iter().map(|c| c.event.id.clone()));
        complete(s, &done).await.unwrap();
        in_flight = claim_due(s, "w", now, now.plus_seconds(30), 100, &[])
            .await
            .unwrap();
    }
    for key in ["a", "b"] {
        let line: Vec<&String> = order.iter().filter(|id| id.starts_with(key)).collect();
        let mut sorted = line.clone();
        sorted.sort();
        assert_eq!(line, sorted, "key {key} in publish order");
    }
    assert!(
        by_event(s, &live, &e)
            .await
            .values()
            .all(|m| m.state == Delivered)
    );
}

pub async fn every_way_a_head_ends_lets_the_next_of_its_key_go(s: &dyn Store) {
    let (live, e) = ordered_fixture(s).await;
    let line = ["k1", "k2", "k3", "k4", "k5", "k6", "k7"];
    for (i, id) in line.iter().enumerate() {
        let at = T0.plus_millis(i as i64);
        let mut ev = new_event(id, "order.shipped", Some("k"));
        (ev.now, ev.time) = (at, at);
        if *id == "k5" {
            ev.expires_at = Some(T0.plus_seconds(60));
        }
        s.publish(&live, ev).await.unwrap();
    }
    let mut now = T0.plus_seconds(1);
    let claim_one = |now: Timestamp| async move {
        let mut got = claim_due(s, "w", now, now.plus_seconds(30), 10, &[])
            .await
            .unwrap();
        assert_eq!(got.len(), 1, "one of the key at a time");
        got.pop().unwrap()
    };
    // k1 exhausted.
    let c = claim_one(now).await;
    assert_eq!(c.event.id, "k1");
    let p = ended(&c, Exhausted, Some("attempts_exhausted"));
    complete(s, &[completion(&c, "w", p)]).await.unwrap();
    assert_eq!(
        states(s, &live, &e, &["k1", "k2", "k3"]).await,
        [Exhausted, Scheduled, Blocked]
    );
    // k2 cancelled while due (never claimed).
    let k2 = by_event(s, &live, &e).await["k2"].id.clone();
    cancel_message(s, &live, &k2, now, None).await.unwrap();
    assert_eq!(
        states(s, &live, &e, &["k2", "k3", "k4"]).await,
        [Cancelled, Scheduled, Blocked]
    );
    // k3 retried: it keeps blocking k4 until it ends failed_permanent.
    let c = claim_one(now).await;
    assert_eq!(c.event.id, "k3");
    let retry = Progress {
        state: Scheduled,
        attempts_used: 1,
        next_attempt_at: Some(now.plus_seconds(10)),
        last_error_code: Some("http_500".into()),
        ..c.progress()
    };
    complete(s, &[completion(&c, "w", retry)]).await.unwrap();
    assert_eq!(
        states(s, &live, &e, &["k3", "k4"]).await,
        [Scheduled, Blocked]
    );
    assert!(
        claim_due(s, "w", now, now.plus_seconds(30), 10, &[])
            .await
            .unwrap()
            .is_empty(),
        "a retried head blocks its key until its retry is due"
    );
    now = now.plus_seconds(10);
    let c = claim_one(now).await;
    assert_eq!(c.event.id, "k3");
    let p = ended(&c, FailedPermanent, Some("rejected_by_endpoint"));
    complete(s, &[completion(&c, "w", p)]).await.unwrap();
    assert_eq!(
        states(s, &live, &e, &["k3", "k4"]).await,
        [FailedPermanent, Scheduled]
    );
    // k4 ends window_exceeded (the sweep's window rule).
    let k4 = by_event(s, &live, &e).await["k4"].id.clone();
    let n = s
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { crate::window::end_window_exceeded(&mut x, &[k4], now).await })
        })
        .await
        .unwrap();
    assert_eq!(n, 1);
    assert_eq!(
        states(s, &live, &e, &["k4", "k5"]).await,
        [WindowExceeded, Scheduled]
    );
    // k5's time-to-live passes while it waits.
    now = T0.plus_seconds(60);
    assert_eq!(expire_due(s, now, 100).await.unwrap(), 1);
    assert_eq!(
        states(s, &live, &e, &["k5", "k6"]).await,
        [Expired, Scheduled]
    );
    // k6 refused by the destination (dead-lettered), then k7 delivered.
    let c = claim_one(now).await;
    assert_eq!(c.event.id, "k6");
    let p = ended(&c, DeadLettered, Some("rejected_by_destination"));
    complete(s, &[completion(&c, "w", p)]).await.unwrap();
    let c = claim_one(now).await;
    assert_eq!(c.event.id, "k7");
    complete(s, &[completion(&c, "w", delivered(&c))])
        .await
        .unwrap();
    assert_eq!(
        states(s, &live, &e, &line).await,
        [
            Exhausted,
            Cancelled,
            FailedPermanent,
            WindowExceeded,
            Expired,
            DeadLettered,
            Delivered
        ]
    );
}

pub async fn pause_holds_only_heads_and_a_blocked_message_ends_without_its_turn(s: &dyn Store) {
    let (live, e) = ordered_fixture(s).await;
    for (i, id) in ["p1", "p2", "p3", "p4"].iter().enumerate() {
        let at = T0.plus_millis(i as i64);
        let mut ev = new_event(id, "order.shipped", Some("p"));
        (ev.now, ev.time) = (at, at);
        if *id == "p3" {
            ev.expires_at = Some(T0.plus_seconds(5));
        }
        s.publish(&live, ev).await.unwrap();
    }
    let now = T0.plus_seconds(1);
    act(s, &live, &e.id, EndpointAction::Pause, now)
        .await
        .unwrap();
    let ids = ["p1", "p2", "p3", "p4"];
    assert_eq!(
        states(s, &live, &e, &ids).await,
        [MessageState::Held, Blocked, Blocked, Blocked],
        "a pause holds the head; the others wait for it as before"
    );
    // A blocked message cancelled or expired ends alone: the head stays.
    let p2 = by_event(s, &live, &e).await["p2"].id.clone();
    cancel_message(s, &live, &p2, now, None).await.unwrap();
    assert_eq!(expire_due(s, T0.plus_seconds(5), 100).await.unwrap(), 1);
    assert_eq!(
        states(s, &live, &e, &ids).await,
        [MessageState::Held, Cancelled, Expired, Blocked]
    );
    // Cancelling the held head promotes the next one, held as well.
    let p1 = by_event(s, &live, &e).await["p1"].id.clone();
    cancel_message(s, &live, &p1, now, None).await.unwrap();
    assert_eq!(states(s, &live, &e, &["p4"]).await, [MessageState::Held]);
    act(s, &live, &e.id, EndpointAction::Resume, now)
        .await
        .unwrap();
    assert_eq!(states(s, &live, &e, &["p4"]).await, [Scheduled]);
}

pub async fn concurrent_publishes_of_one_key_keep_one_head_and_one_line(s: &dyn Store) {
    let (live, e) = ordered_fixture(s).await;
    // Each publish a transaction of its own (not one group commit).
    let writes = (0..24).map(|i| {
        let items = vec![(
            live.clone(),
            new_event(&format!("c{i:02}"), "order.shipped", Some("same")),
        )];
        s.write(Commit::Durable, move |mut x| {
            Box::pin(async move {
                crate::publish::publish_batch(&mut x, &items, None)
                    .await
                    .map(|p| p.outcomes.len())
            })
        })
    });
    for r in futures_util::future::join_all(writes).await {
        assert_eq!(r.unwrap(), 1);
    }
    let all = by_event(s, &live, &e).await;
    assert_eq!(all.len(), 24);
    let heads = all.values().filter(|m| m.state != Blocked).count();
    assert_eq!(heads, 1, "exactly one head whatever the interleaving");
    // Delivering head after head drains the key in seq order, one at a time.
    let mut seqs = Vec::new();
    let now = T0.plus_seconds(1);
    for _ in 0..24 {
        let got = claim_due(s, "w", now, now.plus_seconds(30), 100, &[])
            .await
            .unwrap();
        assert_eq!(got.len(), 1);
        seqs.push(got[0].event.seq.unwrap());
        complete(s, &[completion(&got[0], "w", delivered(&got[0]))])
            .await
            .unwrap();
    }
    assert_eq!(seqs, (1..=24).collect::<Vec<i64>>(), "publish order");
}

pub async fn concurrent_claimers_never_hold_two_messages_of_one_key(s: &dyn Store) {
    let (live, e) = ordered_fixture(s).await;
    let keys = 8;
    let per_key = 6;
    for n in 0..per_key {
        for k in 0..keys {
            let at = T0.plus_millis(n * keys + k);
            publish_at(s, &live, &format!("e{k}_{n}"), Some(&format!("key{k}")), at).await;
        }
    }
    let now = T0.plus_seconds(1);
    let mut arrivals: HashMap<String, Vec<i64>> = HashMap::new();
    let mut rounds = 0;
    loop {
        rounds += 1;
        assert!(rounds < 100, "drains");
        let (a, b) = tokio::join!(
            claim_due(s, "node-a", now, now.plus_seconds(30), 5, &[]),
            claim_due(s, "node-b", now, now.plus_seconds(30), 5, &[]),
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        if a.is_empty() && b.is_empty() {
            break;
        }
        let mut held: HashMap<String, usize> = HashMap::new();
        for c in a.iter().chain(&b) {
            let key = c.message.ordering_key.clone().unwrap();
            *held.entry(key.clone()).or_default() += 1;
            arrivals.entry(key).or_default().push(c.event.seq.unwrap());
        }
        assert!(held.values().all(|n| *n == 1), "one per key: {held:?}");
        let done: Vec<Completion> = a
            .iter()
            .map(|c| completion(c, "node-a", delivered(c)))
            .chain(b.iter().map(|c| completion(c, "node-b", delivered(c))))
            .collect();
        // Each node completes its own, concurrently.
        let (da, db) = done.split_at(a.len());
        let (ra, rb) = tokio::join!(complete(s, da), complete(s, db));
        ra.unwrap();
        rb.unwrap();
    }
    assert_eq!(arrivals.len(), keys as usize);
    for (key, seqs) in arrivals {
        assert_eq!(seqs, (1..=per_key).collect::<Vec<i64>>(), "{key}");
    }
    assert!(
        by_event(s, &live, &e)
            .await
            .values()
            .all(|m| m.state == Delivered)
    );
}

pub async fn recover_of_an_ordered_message_reenters_at_the_tail_of_its_key(s: &dyn Store) {
    let (live, e) = ordered_fixture(s).await;
    for (i, id) in ["r1", "r2", "r3"].iter().enumerate() {
        publish_at(s, &live, id, Some("r"), T0.plus_millis(i as i64)).await;
    }
    let now = T0.plus_seconds(1);
    let c = claim_due(s, "w", now, now.plus_seconds(30), 10, &[])
        .await
        .unwrap()
        .pop()
        .unwrap();
    assert_eq!(c.event.id, "r1");
    let p = ended(&c, Exhausted, Some("attempts_exhausted"));
    complete(s, &[completion(&c, "w", p)]).await.unwrap();
    // r2 is the head now; r1 recovered goes behind r3.
    let recovered = crate::recovery::recover(
        s,
        &live,
        &e.id,
        T0,
        T0.plus_seconds(100),
        &audit("endpoint.recovered", &e.id, now),
    )
    .await
    .unwrap();
    assert_eq!(recovered.requeued, 1);
    assert_eq!(
        states(s, &live, &e, &["r1", "r2", "r3"]).await,
        [Blocked, Scheduled, Blocked]
    );
    let mut order = Vec::new();
    for _ in 0..3 {
        let got = claim_due(s, "w", now, now.plus_seconds(30), 10, &[])
            .await
            .unwrap();
        assert_eq!(got.len(), 1);
        order.push(got[0].event.id.clone());
        complete(s, &[completion(&got[0], "w", delivered(&got[0]))])
            .await
            .unwrap();
    }
    assert_eq!(order, ["r2", "r3", "r1"]);
    // Recovered alone (nothing else of its key live), it is due at once.
    publish_at(s, &live, "r4", Some("r"), now).await;
    let c = claim_due(s, "w", now, now.plus_seconds(30), 10, &[])
        .await
        .unwrap()
        .pop()
        .unwrap();
    let p = ended(&c, Exhausted, Some("attempts_exhausted"));
    complete(s, &[completion(&c, "w", p)]).await.unwrap();
    crate::recovery::recover(
        s,
        &live,
        &e.id,
        now,
        now.plus_seconds(100),
        &audit("endpoint.recovered", &e.id, now),
    )
    .await
    .unwrap();
    assert_eq!(states(s, &live, &e, &["r4"]).await, [Scheduled]);
}
