//! Terminal states reached without an attempt, end to end (a real HTTPS
//! receiver on loopback, the injected clock): a waiting message whose
//! event's time-to-live passes is `expired` then, even while its endpoint
//! holds it.

mod common;

use std::sync::Arc;

use common::{Env, Setup, WAIT};
use relay_core::model::{EndpointState, MessageState};
use relay_core::time::{Clock, Timestamp};
use tokio::sync::{Notify, watch};

const DATA: &str = r#"{"order_id":"1042"}"#;

/// Both backends: SQLite always, PostgreSQL when configured.
async fn envs(setup: fn() -> Setup) -> Vec<Env> {
    let mut out = vec![Env::start(setup()).await.expect("sqlite env")];
    if let Some(pg) = Env::start(Setup {
        postgres: true,
        ..setup()
    })
    .await
    {
        out.push(pg);
    }
    out
}

async fn set_state(e: &Env, state: EndpointState) {
    let at = e.clock.now();
    let audit = relay_store::AuditEntry {
        id: relay_store::new_id(relay_core::id::IdKind::Audit, at),
        actor: "test".into(),
        action: format!("endpoint.{}", state.as_str()),
        target: e.endpoint.id.clone(),
        parameters: serde_json::json!({}),
        at,
    };
    e.store()
        .set_endpoint_state(&e.scope, &e.endpoint.id, state, None, &audit)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_message_held_by_a_paused_endpoint_expires_when_its_ttl_passes_without_an_attempt() {
    for e in envs(Setup::default).await {
        set_state(&e, EndpointState::Paused).await;
        let expires = e.clock.now().plus_seconds(60);
        e.publish_with("evt_held_ttl", DATA, Some(expires)).await;
        e.publish("evt_held_forever", DATA).await;
        e.clock.set(expires.plus_millis(-1));
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
        assert!(
            e.messages()
                .await
                .iter()
                .all(|m| m.state == MessageState::Held)
        );
        e.clock.set(expires);
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 0, "nothing claimed");
        let messages = e.messages().await;
        let expired: Vec<_> = messages
            .iter()
            .filter(|m| m.state == MessageState::Expired)
            .collect();
        assert_eq!(expired.len(), 1, "{messages:?}");
        let m = expired[0];
        assert_eq!(m.event_id, "evt_held_ttl");
        assert_eq!(m.terminal_reason.as_deref(), Some("ttl_expired"));
        assert_eq!(m.attempts_used, 0);
        assert!(
            e.store()
                .list_attempts(&e.scope, &m.id)
                .await
                .unwrap()
                .is_empty()
        );
        // Resuming releases only the message still within its TTL.
        set_state(&e, EndpointState::Active).await;
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        e.receiver.wait_for(1, WAIT).await.unwrap();
        assert_eq!(e.receiver.count(), 1);
        assert_eq!(
            e.receiver.requests()[0].header("webhook-id"),
            Some("evt_held_forever")
        );
        e.db.cleanup().await;
    }
}

#[tokio::test]
async fn a_message_waiting_for_its_next_retry_expires_at_its_ttl_not_at_that_retry() {
    for e in envs(|| Setup {
        behavior: relay_receiver::Behavior::status(503),
        verify: false,
        ..Default::default()
    })
    .await
    {
        let expires = e.clock.now().plus_seconds(600);
        e.publish_with("evt_retry_ttl", DATA, Some(expires)).await;
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        let m = e.only_message().await;
        assert_eq!(m.state, MessageState::Scheduled);
        // The next retries (5 s, then 5 min) are before the TTL; after the
        // third attempt the next (30 min) is past it.
        for _ in 0..2 {
            e.clock.set(e.only_message().await.next_attempt_at.unwrap());
            assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        }
        let m = e.only_message().await;
        assert_eq!(m.attempts_used, 3);
        assert!(m.next_attempt_at.unwrap() > expires);
        e.clock.set(expires);
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
        let m = e.only_message().await;
        assert_eq!(m.state, MessageState::Expired);
        assert_eq!(m.updated_at, expires, "ended when the TTL passed");
        assert_eq!(e.receiver.count(), 3);
        e.db.cleanup().await;
    }
}

#[tokio::test]
async fn the_running_dispatcher_expires_held_messages_by_the_injected_clock() {
    let e = Env::start(Setup::default()).await.unwrap();
    set_state(&e, EndpointState::Paused).await;
    let expires = e.clock.now().plus_seconds(3600);
    e.publish_with("evt_loop_ttl", DATA, Some(expires)).await;
    let (stop, stop_rx) = watch::channel(false);
    let handle = e
        .dispatcher
        .clone()
        .start(Arc::new(Notify::new()), stop_rx)
        .await;
    // An hour passes on the injected clock; the loop's next sweep sees it.
    e.clock.set(Timestamp(expires.millis() + 1));
    let deadline = std::time::Instant::now() + WAIT;
    while e.only_message().await.state != MessageState::Expired {
        assert!(
            std::time::Instant::now() < deadline,
            "not expired within {WAIT:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    stop.send(true).unwrap();
    handle.await.unwrap();
    assert_eq!(e.receiver.count(), 0);
}
