//! Ordered delivery per key through the dispatcher: many keys published
//! interleaved to an endpoint with `ordering = per_key`, a receiver that
//! fails some attempts; per key, what arrives is in publish order (a
//! retried message arrives again before the next one), the keys proceed
//! in parallel, and everything ends delivered. On SQLite and PostgreSQL,
//! walked with `run_once` on the injected clock, and with the running
//! loop (leasing at publish and ahead).

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use common::{Env, Setup};
use relay_core::model::{DeliveryOrder, Endpoint, MessageState};
use relay_core::time::Clock;
use relay_receiver::{Behavior, Recorded};
use relay_store::NewEvent;
use serde_json::value::RawValue;
use tokio::sync::{Notify, watch};

const KEYS: usize = 12;
const PER_KEY: usize = 5;

fn ordered(e: &mut Endpoint) {
    e.ordering = DeliveryOrder::PerKey;
    e.max_concurrency = 8;
    e.retry_schedule_seconds = Some(vec![1; 6]);
}

/// Publishes `PER_KEY` events for each of `KEYS` subjects, interleaved.
async fn publish_all(e: &Env) {
    for n in 0..PER_KEY {
        for k in 0..KEYS {
            let now = e.clock.now();
            e.store()
                .publish(
                    &e.scope,
                    NewEvent {
                        id: format!("evt_{k:02}_{n}"),
                        event_type: "order.shipped".into(),
                        type_version: 1,
                        subject: Some(format!("order/{k:02}")),
                        data: RawValue::from_string(format!(r#"{{"n":{n}}}"#)).unwrap(),
                        consumer_id: Some(e.consumer.id.clone()),
                        ordering_key: None,
                        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
                            .into(),
                        expires_at: None,
                        time: now,
                        now,
                    },
                )
                .await
                .unwrap();
        }
    }
}

/// Every third request of the first ones fails (`500`): retried, the
/// message keeps its key's turn.
fn inject_failures(e: &Env) -> usize {
    let script: Vec<Behavior> = (0..KEYS * PER_KEY)
        .map(|i| {
            if i % 3 == 1 {
                Behavior::status(500)
            } else {
                Behavior::ok()
            }
        })
        .collect();
    let failures = script.len() / 3;
    e.receiver.push_script(script);
    failures
}

/// Per subject, the `seq` of every request that arrived, in arrival order.
fn arrivals(requests: &[Recorded]) -> BTreeMap<String, Vec<i64>> {
    let mut by_key: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for r in requests {
        let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        let key = body["subject"].as_str().unwrap().to_string();
        let seq = body["seq"].as_i64().unwrap();
        by_key.entry(key).or_default().push(seq);
    }
    by_key
}

fn assert_in_order(requests: &[Recorded], failures: usize) {
    assert_eq!(requests.len(), KEYS * PER_KEY + failures);
    let by_key = arrivals(requests);
    assert_eq!(by_key.len(), KEYS);
    for (key, seqs) in by_key {
        assert_eq!(
            relay_core::ordering::first_out_of_order(&seqs),
            None,
            "{key}: {seqs:?}"
        );
        assert!(
            seqs.is_sorted(),
            "{key}: {seqs:?}: retries come before the next"
        );
        let mut distinct = seqs.clone();
        distinct.dedup();
        assert_eq!(distinct, (1..=PER_KEY as i64).collect::<Vec<_>>(), "{key}");
    }
}

async fn stepped(postgres: bool) {
    let Some(e) = Env::start(Setup {
        postgres,
        endpoint: ordered,
        ..Default::default()
    })
    .await
    else {
        return;
    };
    let failures = inject_failures(&e);
    publish_all(&e).await;
    let mut rounds = 0;
    let mut first = None;
    loop {
        let n = e.dispatcher.run_once().await.unwrap();
        first.get_or_insert(n);
        let messages = e.messages().await;
        if messages.iter().all(|m| m.state == MessageState::Delivered) {
            break;
        }
        // Never two of a key in flight or due at once.
        let mut heads: BTreeMap<String, usize> = BTreeMap::new();
        for m in messages
            .iter()
            .filter(|m| !m.state.is_terminal() && m.state != MessageState::Blocked)
        {
            *heads.entry(m.ordering_key.clone().unwrap()).or_default() += 1;
        }
        assert!(heads.values().all(|n| *n == 1), "{heads:?}");
        e.clock.advance_millis(2_000);
        rounds += 1;
        assert!(rounds < 200, "drains");
    }
    assert_eq!(
        first,
        Some(8),
        "the first round takes one message of each key, up to the endpoint's concurrency"
    );
    assert_in_order(&e.receiver.requests(), failures);
    e.db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_key_order_holds_with_failures_on_sqlite() {
    stepped(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_key_order_holds_with_failures_on_postgres() {
    stepped(true).await;
}

async fn running(postgres: bool) {
    let Some(e) = Env::start(Setup {
        postgres,
        endpoint: ordered,
        wall_clock: true,
        ..Default::default()
    })
    .await
    else {
        return;
    };
    let failures = inject_failures(&e);
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let handle = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
    publish_all(&e).await;
    wake.notify_one();
    let got = e
        .receiver
        .wait_for(KEYS * PER_KEY + failures, Duration::from_secs(90))
        .await
        .unwrap();
    stop.send(true).unwrap();
    handle.await.unwrap();
    assert_in_order(&got, failures);
    assert!(
        e.messages()
            .await
            .iter()
            .all(|m| m.state == MessageState::Delivered)
    );
    e.db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_key_order_holds_in_the_running_loop_on_sqlite() {
    running(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_key_order_holds_in_the_running_loop_on_postgres() {
    running(true).await;
}
