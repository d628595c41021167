//! Manual resend (reference "Recovery"): one immediate attempt under a
//! lease, never beside an automatic one.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{Env, Setup, WAIT};
use relay_core::model::{AttemptTrigger, MessageState};
use relay_engine::ManualError;
use relay_receiver::Behavior;

const DATA: &str = r#"{"order_id":"1"}"#;

async fn env(behavior: Behavior) -> Env {
    Env::start(Setup {
        behavior,
        verify: false,
        ..Default::default()
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn a_successful_resend_during_the_schedule_delivers_and_cancels_pending_attempts() {
    let e = env(Behavior::status(503)).await;
    e.publish("evt_1", DATA).await;
    e.dispatcher.run_once().await.unwrap();
    let before = e.only_message().await;
    assert_eq!(
        (before.state, before.attempts_used),
        (MessageState::Scheduled, 1)
    );
    e.receiver.set_behavior(Behavior::ok());
    let out = e
        .dispatcher
        .resend(&e.scope, &before.id, "key_test")
        .await
        .unwrap();
    assert!(out.applied);
    let a = out.attempt.unwrap();
    assert_eq!(
        (a.trigger, a.status_code),
        (AttemptTrigger::Manual, Some(200))
    );
    let after = e.only_message().await;
    assert_eq!(after.state, MessageState::Delivered);
    assert_eq!(after.next_attempt_at, None, "no automatic attempt remains");
    e.clock.advance_millis(48 * 3600 * 1000);
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
}

#[tokio::test]
async fn a_failed_resend_leaves_the_schedule_and_does_not_count() {
    let e = env(Behavior::status(503)).await;
    e.publish("evt_1", DATA).await;
    e.dispatcher.run_once().await.unwrap();
    let before = e.only_message().await;
    let out = e
        .dispatcher
        .resend(&e.scope, &before.id, "key_test")
        .await
        .unwrap();
    assert_eq!(out.attempt.unwrap().status_code, Some(503));
    let after = e.only_message().await;
    assert_eq!(after.state, before.state);
    assert_eq!(
        after.attempts_used, before.attempts_used,
        "the manual attempt does not count"
    );
    assert_eq!(
        after.next_attempt_at, before.next_attempt_at,
        "the schedule is unchanged"
    );
    let attempts = e.attempts(&before.id).await;
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[1].trigger, AttemptTrigger::Manual);
}

#[tokio::test]
async fn a_resend_of_a_terminal_message_keeps_its_state_on_failure_and_delivers_on_success() {
    let e = env(Behavior::status(400)).await;
    e.publish("evt_1", DATA).await;
    e.dispatcher.run_once().await.unwrap();
    let failed = e.only_message().await;
    assert_eq!(failed.state, MessageState::FailedPermanent);
    e.dispatcher
        .resend(&e.scope, &failed.id, "key_test")
        .await
        .unwrap();
    let still = e.only_message().await;
    assert_eq!(still.state, MessageState::FailedPermanent);
    assert_eq!(still.terminal_reason, failed.terminal_reason);
    e.receiver.set_behavior(Behavior::ok());
    e.dispatcher
        .resend(&e.scope, &failed.id, "key_test")
        .await
        .unwrap();
    assert_eq!(e.only_message().await.state, MessageState::Delivered);
    // Resend keeps the event's id, so consumers' deduplication keeps working.
    let ids: Vec<String> = e
        .receiver
        .requests()
        .iter()
        .map(|r| r.header("webhook-id").unwrap().to_string())
        .collect();
    assert_eq!(ids, vec!["evt_1"; 3]);
}

#[tokio::test]
async fn a_resend_racing_an_automatic_attempt_never_runs_beside_it() {
    // Each attempt takes a while, so the two paths overlap in time.
    let e = Arc::new(env(Behavior::delay(Duration::from_millis(300), Behavior::ok())).await);
    e.publish("evt_race", DATA).await;
    let id = e.only_message().await.id;
    for _ in 0..3 {
        let auto = {
            let e = e.clone();
            tokio::spawn(async move { e.dispatcher.run_once().await.unwrap() })
        };
        let manual = {
            let e = e.clone();
            let id = id.clone();
            tokio::spawn(async move { e.dispatcher.resend(&e.scope, &id, "key_test").await })
        };
        let claimed = auto.await.unwrap();
        let resent = manual.await.unwrap();
        // Exactly one of the two made an attempt, or the second came after the first ended.
        match resent {
            Err(ManualError::Busy) => assert_eq!(claimed, 1),
            Ok(_) => {}
            Err(other) => panic!("{other}"),
        }
    }
    assert_eq!(
        e.receiver.max_concurrent("/hooks"),
        1,
        "never two attempts of one message at once"
    );
    e.receiver.wait_for(1, WAIT).await.unwrap();
}

#[tokio::test]
async fn an_automatic_claim_skips_a_message_under_a_manual_attempt() {
    let e = Arc::new(
        env(Behavior::delay(
            Duration::from_millis(500),
            Behavior::status(503),
        ))
        .await,
    );
    e.publish("evt_1", DATA).await;
    let id = e.only_message().await.id;
    let manual = {
        let e = e.clone();
        let id = id.clone();
        tokio::spawn(async move { e.dispatcher.resend(&e.scope, &id, "key_test").await })
    };
    e.receiver.wait_in_flight(1, WAIT).await.unwrap();
    assert_eq!(
        e.dispatcher.run_once().await.unwrap(),
        0,
        "the message is leased"
    );
    assert!(matches!(
        e.dispatcher.resend(&e.scope, &id, "key_test").await,
        Err(ManualError::Busy)
    ));
    manual.await.unwrap().unwrap();
    // Lease released: the automatic attempt proceeds.
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
    assert_eq!(e.receiver.max_concurrent("/hooks"), 1);
}

#[tokio::test]
async fn the_test_action_delivers_one_signed_sample_to_that_endpoint_only() {
    let e = Env::start(Setup::default()).await.unwrap();
    let now = relay_core::time::Clock::now(&*e.clock);
    let event = relay_store::NewEvent {
        id: "evt_test_1".into(),
        event_type: "order.shipped".into(),
        type_version: 1,
        subject: Some("relay/test".into()),
        data: serde_json::value::RawValue::from_string(r#"{"sample":true}"#.into()).unwrap(),
        consumer_id: Some(e.consumer.id.clone()),
        ordering_key: None,
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
        expires_at: None,
        time: now,
        now,
    };
    let (message_id, out) = e
        .dispatcher
        .send_test(&e.scope, &e.endpoint.id, event, "key_test")
        .await
        .unwrap();
    assert!(out.applied);
    assert_eq!(out.attempt.unwrap().status_code, Some(200));
    let got = e.receiver.wait_for(1, WAIT).await.unwrap();
    assert_eq!(got[0].signature_valid, Some(true));
    assert!(
        got[0]
            .body_str()
            .unwrap()
            .contains(r#""data":{"sample":true}"#)
    );
    let m = e.only_message().await;
    assert_eq!((m.id, m.state), (message_id, MessageState::Delivered));
    // Nothing else is due: the dispatcher has no second attempt to make.
    assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
}
