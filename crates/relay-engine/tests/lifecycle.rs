//! The endpoint lifecycle with a real receiver: pause stops new attempts at
//! once, including what the dispatcher has leased ahead; resume releases in
//! order; enable floods nothing, and `recover` is paced recovery traffic;
//! resend has nothing to attempt once the event expired or the endpoint is
//! gone.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Env, Setup, WAIT};
use relay_core::lifecycle::{EndpointAction, decide};
use relay_core::model::{EndpointState, MessageState};
use relay_core::time::Clock;
use relay_engine::ManualError;
use relay_receiver::Behavior;
use tokio::sync::{Notify, watch};

const DATA: &str = r#"{"order_id":"1"}"#;

fn audit(e: &Env, action: &str) -> relay_store::AuditEntry {
    let at = e.clock.now();
    relay_store::AuditEntry {
        id: relay_store::new_id(relay_core::id::IdKind::Audit, at),
        actor: "test".into(),
        action: action.into(),
        target: e.endpoint.id.clone(),
        parameters: serde_json::json!({}),
        at,
    }
}

/// What the API does: decide from the current state, apply conditionally,
/// tell the dispatcher.
async fn act(e: &Env, action: EndpointAction) {
    let from = e.endpoint_now().await.state;
    let change = decide(from, action).unwrap();
    relay_store::conformance::change_endpoint_state(
        e.store(),
        &e.scope,
        &e.endpoint.id,
        &change,
        &audit(e, action.as_str()),
    )
    .await
    .unwrap();
    e.dispatcher
        .endpoint_changed(&e.endpoint.id, change.to)
        .await;
}

async fn count(e: &Env, state: MessageState) -> usize {
    e.messages()
        .await
        .iter()
        .filter(|m| m.state == state)
        .count()
}

/// Polls the store until `n` messages are in `state`.
async fn wait_for_state(e: &Env, state: MessageState, n: usize) {
    let give_up = std::time::Instant::now() + WAIT;
    while count(e, state).await < n {
        assert!(
            std::time::Instant::now() < give_up,
            "{:?}",
            e.messages().await
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn one_at_a_time(c: &mut relay_engine::EngineConfig) {
    c.poll_interval = Duration::from_millis(50);
}

#[tokio::test]
async fn pause_stops_what_is_leased_ahead_at_once_and_resume_releases_in_order() {
    let e = Env::start(Setup {
        behavior: Behavior::delay(Duration::from_millis(800), Behavior::ok()),
        verify: false,
        tune: one_at_a_time,
        ..Default::default()
    })
    .await
    .unwrap();
    // One attempt at a time: the rest waits leased ahead in the lane.
    let mut endpoint = e.endpoint_now().await;
    endpoint.max_concurrency = 1;
    relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let handle = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
    for i in 0..6 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    wake.notify_one();
    // The first is on the wire; more are leased (at publish or ahead).
    e.receiver.wait_in_flight(1, WAIT).await.unwrap();
    wait_for_state(&e, MessageState::InFlight, 3).await;
    act(&e, EndpointAction::Pause).await;
    // At once: only the attempt on the wire is still in flight.
    assert_eq!(count(&e, MessageState::InFlight).await, 1);
    assert_eq!(count(&e, MessageState::Held).await, 5);
    // It finishes (delivered); nothing else starts.
    wait_for_state(&e, MessageState::Delivered, 1).await;
    assert_eq!(count(&e, MessageState::Held).await, 5);
    wake.notify_one();
    tokio::task::yield_now().await;
    assert_eq!(e.receiver.count(), 1);
    assert_eq!(e.receiver.in_flight(), 0);
    // Resume: the held ones go in their order, one at a time.
    e.receiver.set_behavior(Behavior::ok());
    act(&e, EndpointAction::Resume).await;
    wake.notify_one();
    e.receiver.wait_for(6, WAIT).await.unwrap();
    let ids: Vec<String> = e
        .receiver
        .requests()
        .iter()
        .map(|r| r.header("webhook-id").unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        (0..6).map(|i| format!("evt_{i}")).collect::<Vec<_>>(),
        "in order"
    );
    assert_eq!(e.receiver.max_concurrent("/hooks"), 1, "within its limits");
    stop.send(true).unwrap();
    handle.await.unwrap();
    e.db.cleanup().await;
}

#[tokio::test]
async fn a_retry_of_an_attempt_on_the_wire_when_the_endpoint_is_disabled_is_held() {
    let e = Env::start(Setup {
        behavior: Behavior::delay(Duration::from_millis(500), Behavior::status(503)),
        verify: false,
        ..Default::default()
    })
    .await
    .unwrap();
    e.publish("evt_wire", DATA).await;
    let run = {
        let d = e.dispatcher.clone();
        tokio::spawn(async move { d.run_once().await.unwrap() })
    };
    e.receiver.wait_in_flight(1, WAIT).await.unwrap();
    act(&e, EndpointAction::Disable).await;
    assert_eq!(run.await.unwrap(), 1);
    let m = e.only_message().await;
    assert_eq!((m.state, m.attempts_used), (MessageState::Held, 1));
    // Due again, it is not attempted.
    e.clock.advance_millis(3_600_000);
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
    assert_eq!(e.receiver.count(), 1);
}

fn paced(c: &mut relay_engine::EngineConfig) {
    c.recovery_per_second = 10;
}

#[tokio::test]
async fn enable_floods_nothing_and_recover_is_paced_as_recovery_traffic() {
    let e = Env::start(Setup {
        verify: false,
        tune: paced,
        ..Default::default()
    })
    .await
    .unwrap();
    act(&e, EndpointAction::Disable).await;
    let since = e.clock.now();
    for i in 0..5 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    act(&e, EndpointAction::Enable).await;
    // Enabled, and nothing is attempted: the held messages are missed.
    assert_eq!(e.endpoint_now().await.state, EndpointState::Active);
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
    assert_eq!(count(&e, MessageState::Held).await, 5);
    assert_eq!(e.receiver.count(), 0);
    let requeued = relay_store::recovery::recover(
        e.store(),
        &e.scope,
        &e.endpoint.id,
        since,
        e.clock.now().plus_millis(1),
        &audit(&e, "endpoint.recovered"),
    )
    .await
    .unwrap();
    assert_eq!(requeued.requeued, 5);
    // Recovery traffic at `recovery_per_second` (10/s, one per 100 ms on
    // the injected clock), not all five at once.
    let mut delivered = 0;
    for _ in 0..5 {
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 0, "paced");
        delivered += 1;
        assert_eq!(e.receiver.count(), delivered);
        e.clock.advance_millis(100);
    }
    assert_eq!(count(&e, MessageState::Delivered).await, 5);
}

#[tokio::test]
async fn resend_of_an_expired_event_or_a_deleted_endpoint_makes_no_attempt() {
    let e = Env::start(Setup {
        verify: false,
        ..Default::default()
    })
    .await
    .unwrap();
    let expires = e.clock.now().plus_seconds(60);
    e.publish_with("evt_ttl", DATA, Some(expires)).await;
    let m = e.only_message().await;
    e.clock.set(expires);
    for _ in 0..2 {
        // Twice: the first held no lease (the second is not `Busy`).
        assert!(matches!(
            e.dispatcher.resend(&e.scope, &m.id, "key_test").await,
            Err(ManualError::EventExpired)
        ));
    }
    assert_eq!(e.receiver.count(), 0);
    assert!(e.attempts(&m.id).await.is_empty());
    e.publish("evt_kept", DATA).await;
    let kept = e
        .messages()
        .await
        .into_iter()
        .find(|m| m.event_id == "evt_kept")
        .unwrap();
    relay_store::conformance::delete_endpoint(
        e.store(),
        &e.scope,
        &e.endpoint.id,
        e.clock.now(),
        None,
    )
    .await
    .unwrap();
    assert!(matches!(
        e.dispatcher.resend(&e.scope, &kept.id, "key_test").await,
        Err(ManualError::EndpointDeleted)
    ));
    assert_eq!(e.receiver.count(), 0);
}

#[tokio::test]
async fn a_pause_on_another_node_gives_back_what_this_node_leased_ahead() {
    // PostgreSQL: nodes share it. The pause commits through the store, as
    // another node's API would; this process's dispatcher is not called.
    let Some(e) = Env::start(Setup {
        behavior: Behavior::delay(Duration::from_millis(800), Behavior::ok()),
        verify: false,
        postgres: true,
        tune: one_at_a_time,
        ..Default::default()
    })
    .await
    else {
        return;
    };
    let mut endpoint = e.endpoint_now().await;
    endpoint.max_concurrency = 1;
    relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    // `start` returned: LISTEN is registered.
    let handle = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
    for i in 0..6 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    wake.notify_one();
    // One on the wire; more leased ahead in this node's lane.
    e.receiver.wait_in_flight(1, WAIT).await.unwrap();
    wait_for_state(&e, MessageState::InFlight, 3).await;
    let from = e.endpoint_now().await.state;
    let change = decide(from, EndpointAction::Pause).unwrap();
    relay_store::conformance::change_endpoint_state(
        e.store(),
        &e.scope,
        &e.endpoint.id,
        &change,
        &audit(&e, "pause"),
    )
    .await
    .unwrap();
    // Told through `relay_endpoint`, the node gives back what it leased
    // ahead (held); the attempt on the wire finishes, nothing else starts.
    wait_for_state(&e, MessageState::Held, 5).await;
    wait_for_state(&e, MessageState::Delivered, 1).await;
    assert_eq!(count(&e, MessageState::Held).await, 5);
    assert_eq!(count(&e, MessageState::InFlight).await, 0);
    assert_eq!(e.receiver.count(), 1, "{:?}", e.messages().await);
    assert_eq!(e.receiver.in_flight(), 0);
    stop.send(true).unwrap();
    handle.await.unwrap();
    e.db.cleanup().await;
}
