//! The engine's services one pass at a time (`Service::run_once`, at the
//! injected clock's now), and the engine started and stopped as a whole.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Env, Setup, WAIT};
use relay_core::model::MessageState;
use relay_core::time::Clock;
use relay_engine::{Engine, Rescuer, Service, Sweeper};
use tokio::sync::{Notify, watch};

const DATA: &str = r#"{"order_id":"1"}"#;

/// Leases every due message as another process would, for `millis`.
async fn lease_elsewhere(e: &Env, millis: i64) -> usize {
    let now = e.clock.now();
    let room = [(e.endpoint.id.clone(), 10)];
    relay_store::conformance::claim(
        e.store(),
        &relay_store::ClaimRequest {
            owner: "a-process-that-crashed",
            now,
            lease_until: now.plus_millis(millis),
            limit: 10,
            recovery_limit: 0,
            room: &room,
            recovery_after: None,
        },
    )
    .await
    .unwrap()
    .claimed
    .len()
}

#[tokio::test]
async fn the_rescuer_rescues_once_a_lease_has_expired_and_not_before() {
    let e = Env::start(Setup::default()).await.unwrap();
    e.publish("evt_rescue", DATA).await;
    assert_eq!(lease_elsewhere(&e, 1_000).await, 1);
    let rescuer = Rescuer::new(e.dispatcher.clone());
    assert_eq!(rescuer.config().interval, e.config.rescue_interval);
    assert_eq!(rescuer.run_once().await.unwrap(), 0, "the lease holds");
    assert_eq!(
        e.dispatcher.run_once().await.unwrap(),
        0,
        "leased elsewhere"
    );
    e.clock.advance_millis(1_001);
    assert_eq!(rescuer.run_once().await.unwrap(), 1);
    assert_eq!(rescuer.run_once().await.unwrap(), 0, "nothing left");
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 1, "claimable again");
    assert_eq!(e.only_message().await.state, MessageState::Delivered);
}

#[tokio::test]
async fn the_sweeper_ends_what_waited_past_its_time_to_live() {
    let e = Env::start(Setup::default()).await.unwrap();
    let expires = e.clock.now().plus_seconds(60);
    // Nothing runs: it waits, scheduled.
    e.publish_with("evt_sweep", DATA, Some(expires)).await;
    let sweeper = Sweeper::new(e.dispatcher.clone());
    assert_eq!(sweeper.config().batch, e.config.sweep_batch);
    assert_eq!(sweeper.run_once().await.unwrap(), 0, "not yet");
    e.clock.advance_millis(61_000);
    assert_eq!(sweeper.run_once().await.unwrap(), 1);
    assert_eq!(e.only_message().await.state, MessageState::Expired);
    assert_eq!(e.receiver.count(), 0, "ended without an attempt");
}

#[tokio::test]
async fn the_engine_delivers_until_stopped_then_holds_no_lease() {
    let e = Env::start(Setup {
        wall_clock: true,
        tune: |c| c.poll_interval = Duration::from_secs(600),
        ..Default::default()
    })
    .await
    .unwrap();
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let engine = Engine::start(e.dispatcher.clone(), wake.clone(), stop_rx).await;
    let running = tokio::spawn(engine.run_until_stopped());
    e.publish("evt_engine", DATA).await;
    wake.notify_one();
    e.receiver.wait_for(1, WAIT).await.unwrap();
    stop.send(true).unwrap();
    tokio::time::timeout(WAIT, running)
        .await
        .expect("the engine stops")
        .unwrap();
    let m = e.only_message().await;
    assert_eq!(
        m.state,
        MessageState::Delivered,
        "its completion was written"
    );
    assert_eq!(
        relay_store::conformance::release_leases(e.store(), &e.config.owner, common::wall_now())
            .await
            .unwrap(),
        0,
        "every lease was released or completed"
    );
}
