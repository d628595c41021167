//! The retention purge under load: the injected clock moves the retention
//! period past a burst while it is being delivered, and the running
//! dispatcher's purge (and one more, called here) runs meanwhile. Nothing
//! live is purged, a completion whose message was purged (cancelled while
//! its attempt was on the wire) fails alone, every delivery completes
//! promptly and none is made twice.

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::{Env, Setup, WAIT};
use relay_core::model::MessageState;
use relay_core::time::Clock;
use relay_receiver::{Behavior, Gate};
use relay_store::{ExecutorExt as _, MessageFilter};
use tokio::sync::{Notify, watch};

const DATA: &str = r#"{"order_id":"1"}"#;
const BURST: usize = 100;
const SECOND_WAVE: usize = 20;
/// Attempts held on the wire while their messages are cancelled and purged.
const SLOW: usize = 3;

fn tune(c: &mut relay_engine::EngineConfig) {
    c.retention = Duration::from_secs(3600);
    // The running purge service purges every millisecond.
    c.purge_interval = Duration::from_millis(1);
    // Longer than the clock moves: no lease expires, nothing is rescued.
    c.lease = Duration::from_secs(86_400);
    c.rescue_interval = Duration::from_secs(600);
}

/// Polls `done` until it holds, at most `WAIT`.
async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done().await {
        assert!(Instant::now() < deadline, "stalled: {what} within {WAIT:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn messages_of(e: &Env, event_id: &str) -> Vec<relay_core::model::Message> {
    relay_store::conformance::list_messages(
        e.store(),
        &e.scope,
        &MessageFilter {
            event_id: Some(event_id.into()),
            ..Default::default()
        },
        &relay_store::PageRequest {
            after: None,
            limit: 10,
        },
    )
    .await
    .unwrap()
    .data
}

/// Publishes `ids` at once (one group commit, or a few).
async fn publish_all(e: &Env, ids: &[String]) {
    futures_util::future::join_all(ids.iter().map(|id| e.publish(id, DATA))).await;
}

async fn delivered_in_store(e: &Env, ids: &[String]) -> bool {
    for id in ids {
        let found = messages_of(e, id).await;
        if found.iter().any(|m| m.state != MessageState::Delivered) || found.is_empty() {
            return false;
        }
    }
    true
}

async fn purge_during_a_burst(postgres: bool) {
    // The first attempts are held on the wire until their messages were
    // cancelled and purged. (This test failed about 1 run in 3 on
    // PostgreSQL: the receiver chose a request's behaviour after recording
    // it, so the switch below could answer a first attempt at once; it now
    // chooses first.)
    let gate = Gate::new();
    let Some(e) = Env::start(Setup {
        behavior: Behavior::gated(&gate, Behavior::ok()),
        postgres,
        tune,
        ..Default::default()
    })
    .await
    else {
        return;
    };
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let handle = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
    let sent: Vec<String> = (0..BURST).map(|i| format!("evt_burst_{i:03}")).collect();
    publish_all(&e, &sent[..SLOW]).await;
    wake.notify_one();
    let slow = e
        .receiver
        .wait_for(SLOW, WAIT)
        .await
        .expect("first attempts");
    e.receiver
        .set_behavior(Behavior::delay(Duration::from_millis(50), Behavior::ok()));
    for r in &slow[..SLOW] {
        let event_id = r.header("webhook-id").expect("webhook-id").to_string();
        let m = messages_of(&e, &event_id).await;
        relay_store::conformance::cancel_message(
            e.store(),
            &e.scope,
            &m[0].id,
            e.clock.now(),
            None,
        )
        .await
        .expect("cancel while its attempt is on the wire");
    }
    publish_all(&e, &sent[SLOW..]).await;
    wake.notify_one();
    // Every event of the burst is now outside retention; most of its
    // messages are still scheduled or in flight.
    e.clock.advance_millis(2 * 3600 * 1000);
    // The running purge service purges every millisecond too, so this call may find them
    // gone already: what counts is that they are gone, whoever purged them.
    e.dispatcher.purge().await.unwrap();
    for r in &slow[..SLOW] {
        let event_id = r.header("webhook-id").expect("webhook-id");
        assert!(
            relay_store::conformance::get_event(e.store(), &e.scope, event_id)
                .await
                .unwrap()
                .is_none(),
            "the cancelled ones go: {event_id}"
        );
    }
    // Every attempt of the burst finishes, the held ones too: their
    // completions find no message.
    gate.open();
    let metrics = e.dispatcher.metrics();
    until("every attempt of the burst finished", async || {
        e.receiver.count() >= BURST as u64 && metrics.in_flight.load(Ordering::Relaxed) == 0
    })
    .await;
    let live: Vec<String> = sent[SLOW..].to_vec();
    // Completions go on being written (none is stuck behind the skipped
    // ones): a second wave is delivered and recorded promptly.
    let second: Vec<String> = (0..SECOND_WAVE)
        .map(|i| format!("evt_wave_{i:03}"))
        .collect();
    publish_all(&e, &second).await;
    wake.notify_one();
    until("the second wave delivered and recorded", async || {
        delivered_in_store(&e, &second).await
    })
    .await;
    stop.send(true).unwrap();
    handle.await.unwrap();
    assert_eq!(
        metrics.completions_message_gone.load(Ordering::Relaxed),
        SLOW as u64
    );
    // Exactly once each at the receiver, by webhook-id.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in e.receiver.requests() {
        *seen
            .entry(r.header("webhook-id").unwrap().to_string())
            .or_default() += 1;
    }
    let duplicates: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(duplicates.is_empty(), "duplicates: {duplicates:?}");
    for id in sent.iter().chain(&second) {
        assert_eq!(seen.get(id), Some(&1), "{id} delivered once");
    }
    assert_eq!(seen.len(), BURST + SECOND_WAVE);
    // What was live at the purge was kept until it ended: no live message
    // lost its event (its delivery was recorded, above), and the burst's
    // ended messages are purged now.
    e.dispatcher.purge().await.unwrap();
    for id in &live {
        assert!(
            relay_store::conformance::get_event(e.store(), &e.scope, id)
                .await
                .unwrap()
                .is_none()
        );
    }
    e.db.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_purge_during_a_burst_stalls_and_duplicates_nothing_sqlite() {
    purge_during_a_burst(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_purge_during_a_burst_stalls_and_duplicates_nothing_postgres() {
    purge_during_a_burst(true).await;
}

/// The service's pass over a backlog of history ends between two batches
/// once the engine is stopping (a large backlog never holds up a
/// shutdown); what it left, the next pass purges. Both backends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_engine_ends_the_purge_between_batches() {
    for postgres in [false, true] {
        let Some(e) = Env::start(Setup {
            postgres,
            tune: |c| {
                c.retention = Duration::from_secs(3600);
                c.purge_batch = 100;
            },
            ..Default::default()
        })
        .await
        else {
            continue;
        };
        let (scope, endpoint) = (e.scope.clone(), e.endpoint.id.clone());
        let old = e.clock.now().plus_seconds(-7200);
        e.db.store
            .write(relay_store::Commit::Durable, move |mut x| {
                Box::pin(async move {
                    let seed = relay_store::seed::Messages {
                        scope: &scope,
                        endpoint_id: &endpoint,
                        prefix: "evt_old_",
                        event_type: "order.created",
                        state: MessageState::Delivered,
                        due: None,
                        attempts_used: 1,
                        now: old,
                    };
                    relay_store::seed::messages(&mut x, &seed, 1, 1000).await
                })
            })
            .await
            .expect("a history past the retention period");
        let (_stopping, mut stop) = watch::channel(true);
        assert_eq!(
            e.dispatcher.purge_paced(Some(&mut stop)).await.unwrap(),
            100,
            "one batch, then the shutdown"
        );
        assert_eq!(e.dispatcher.purge().await.unwrap(), 900);
        assert_eq!(e.dispatcher.purge().await.unwrap(), 0);
        assert_eq!(
            e.dispatcher.metrics().purged_events.load(Ordering::Relaxed),
            1000,
            "relay_retention_purged_events_total counts every event purged"
        );
    }
}
