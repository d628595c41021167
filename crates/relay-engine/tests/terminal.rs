//! Terminal states reached without an attempt, end to end (a real HTTPS
//! receiver on loopback, the injected clock): a waiting message whose
//! event's time-to-live passes is `expired` then, even while its endpoint
//! holds it; messages a rate-limited endpoint's backlog keeps out of their
//! window end `window_exceeded`, unattempted. And an endpoint's own retry
//! schedule is walked as it was set.

mod common;

use std::sync::Arc;

use common::{Env, Setup, WAIT};
use relay_core::model::{EndpointState, MessageState};
use relay_core::retry::{RetrySchedule, ScheduleBounds};
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
    use relay_core::lifecycle::{EndpointAction, decide};
    let from = relay_store::conformance::get_endpoint(e.store(), &e.scope, &e.endpoint.id)
        .await
        .unwrap()
        .unwrap()
        .state;
    let action = match (from, state) {
        (_, EndpointState::Paused) => EndpointAction::Pause,
        (_, EndpointState::Disabled) => EndpointAction::Disable,
        (EndpointState::Disabled, EndpointState::Active) => EndpointAction::Enable,
        (_, EndpointState::Active) => EndpointAction::Resume,
        (_, EndpointState::Unverified) => EndpointAction::ProofNeeded,
    };
    let change = decide(from, action).unwrap();
    relay_store::conformance::change_endpoint_state(
        e.store(),
        &e.scope,
        &e.endpoint.id,
        &change,
        &audit,
    )
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
        assert!(e.attempts(&m.id).await.is_empty());
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
    // An hour passes on the injected clock; the sweep service's next pass sees it.
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

/// Sets the endpoint's rate limit and retry schedule override.
async fn configure(e: &Env, rate: Option<u32>, waits: Option<Vec<u32>>) {
    let mut endpoint = e.endpoint_now().await;
    endpoint.rate_limit_per_second = rate;
    endpoint.retry_schedule_seconds = waits;
    endpoint.updated_at = e.clock.now();
    relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
}

fn count(messages: &[relay_core::model::Message], state: MessageState) -> usize {
    messages.iter().filter(|m| m.state == state).count()
}

async fn assert_never_attempted(e: &Env, state: MessageState) {
    for m in e.messages().await.iter().filter(|m| m.state == state) {
        assert_eq!(m.attempts_used, 0, "{m:?}");
        assert!(
            e.attempts(&m.id).await.is_empty(),
            "no attempt was spent on {m:?}"
        );
    }
}

#[tokio::test]
async fn a_rate_limited_backlog_whose_ttls_end_first_ends_window_exceeded_without_attempts() {
    for e in envs(|| Setup {
        verify: false,
        ..Default::default()
    })
    .await
    {
        // One per second; six messages that must go within three seconds.
        configure(&e, Some(1), None).await;
        e.store().set_intake(None);
        let expires = e.clock.now().plus_seconds(3);
        for i in 0..6 {
            e.publish_with(&format!("evt_w{i}"), DATA, Some(expires))
                .await;
        }
        // The burst (one token) takes the first.
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        assert_eq!(count(&e.messages().await, MessageState::Delivered), 1);
        // The next two can go at +1 s and +2 s; the three behind them only
        // at +3 s, when their TTL has passed: they end now, unattempted.
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
        let messages = e.messages().await;
        assert_eq!(
            count(&messages, MessageState::WindowExceeded),
            3,
            "{messages:?}"
        );
        assert_eq!(count(&messages, MessageState::Scheduled), 2);
        for m in messages
            .iter()
            .filter(|m| m.state == MessageState::WindowExceeded)
        {
            assert_eq!(m.terminal_reason.as_deref(), Some("window_exceeded"));
            assert!(
                ["evt_w3", "evt_w4", "evt_w5"].contains(&m.event_id.as_str()),
                "the last in the backlog: {m:?}"
            );
        }
        assert_never_attempted(&e, MessageState::WindowExceeded).await;
        // The two that fit are delivered in time, at the endpoint's rate.
        for second in 1..=2 {
            e.clock.advance_millis(1000);
            assert_eq!(e.dispatcher.run_once().await.unwrap(), 1, "at +{second} s");
        }
        let messages = e.messages().await;
        assert_eq!(count(&messages, MessageState::Delivered), 3, "{messages:?}");
        assert_eq!(e.receiver.count(), 3);
        e.db.cleanup().await;
    }
}

#[tokio::test]
async fn a_rate_limited_backlog_past_its_schedules_span_ends_window_exceeded() {
    for e in envs(|| Setup {
        verify: false,
        ..Default::default()
    })
    .await
    {
        // One attempt and one retry 5 s later: a span of 6 s with jitter.
        // One per second: the messages that the endpoint can take only 6 s
        // or more after their creation have no attempt left in the window.
        configure(&e, Some(1), Some(vec![5])).await;
        e.store().set_intake(None);
        for i in 0..10 {
            e.publish(&format!("evt_s{i}"), DATA).await;
        }
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 0);
        let messages = e.messages().await;
        // Behind the first: +1 s … +5 s fit, +6 s … +9 s do not.
        assert_eq!(
            count(&messages, MessageState::WindowExceeded),
            4,
            "{messages:?}"
        );
        assert_never_attempted(&e, MessageState::WindowExceeded).await;
        for _ in 0..5 {
            e.clock.advance_millis(1000);
            assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        }
        assert_eq!(count(&e.messages().await, MessageState::Delivered), 6);
        e.db.cleanup().await;
    }
}

#[tokio::test]
async fn without_a_rate_limit_nothing_ends_window_exceeded() {
    let e = Env::start(Setup {
        behavior: relay_receiver::Behavior::status(503),
        verify: false,
        ..Default::default()
    })
    .await
    .unwrap();
    configure(&e, None, Some(vec![5])).await;
    for i in 0..20 {
        e.publish(&format!("evt_n{i}"), DATA).await;
    }
    e.dispatcher.run_once().await.unwrap();
    e.dispatcher.run_once().await.unwrap();
    assert_eq!(count(&e.messages().await, MessageState::WindowExceeded), 0);
}

#[tokio::test]
async fn an_endpoints_retry_schedule_is_walked_as_set_even_after_the_bounds_tighten() {
    // The dispatcher's bounds now want waits of a minute or more; the
    // endpoint's override was accepted under the default bounds.
    fn tight(c: &mut relay_engine::EngineConfig) {
        c.retry_bounds = ScheduleBounds {
            min_wait_seconds: 60,
            ..ScheduleBounds::DEFAULT
        };
    }
    for e in envs(|| Setup {
        behavior: relay_receiver::Behavior::status(503),
        verify: false,
        tune: tight,
        ..Default::default()
    })
    .await
    {
        let waits = vec![10, 30];
        let accepted = RetrySchedule::new(&waits, &ScheduleBounds::DEFAULT).unwrap();
        assert!(RetrySchedule::new(&waits, &e.config.retry_bounds).is_err());
        configure(&e, None, Some(waits)).await;
        e.publish("evt_own_schedule", DATA).await;
        let id = e.only_message().await.id;
        let mut last = e.clock.now();
        assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
        for attempt in 2..=3u32 {
            let m = e.only_message().await;
            assert_eq!(m.state, MessageState::Scheduled, "{m:?}");
            let due = m.next_attempt_at.unwrap();
            assert_eq!(
                due.millis() - last.millis(),
                accepted.wait_millis(&id, attempt).unwrap(),
                "the endpoint's wait before attempt {attempt}"
            );
            e.clock.set(due.plus_millis(-1));
            assert_eq!(e.dispatcher.run_once().await.unwrap(), 0, "not early");
            e.clock.set(due);
            assert_eq!(e.dispatcher.run_once().await.unwrap(), 1);
            last = due;
        }
        let m = e.only_message().await;
        assert_eq!(m.state, MessageState::Exhausted, "three attempts, as set");
        assert_eq!(m.attempts_used, 3);
        assert_eq!(e.receiver.count(), 3);
        e.db.cleanup().await;
    }
}
