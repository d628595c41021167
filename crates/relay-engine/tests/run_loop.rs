//! The background loop: a publish is attempted at once (in-process wake-up,
//! and `LISTEN/NOTIFY` from another process's publish on PostgreSQL), not
//! after the poll interval; shutdown lets attempts finish and releases the rest.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Env, Setup, WAIT};
use relay_core::model::MessageState;
use relay_core::time::Clock;
use relay_receiver::Behavior;
use tokio::sync::{Notify, watch};

const DATA: &str = r#"{"order_id":"1"}"#;

/// A poll interval far longer than any test waits: only a wake-up can explain a fast delivery.
fn slow_poll(c: &mut relay_engine::EngineConfig) {
    c.poll_interval = Duration::from_secs(600);
    c.rescue_interval = Duration::from_secs(600);
}

async fn started(
    setup: Setup,
) -> Option<(
    Env,
    Arc<Notify>,
    watch::Sender<bool>,
    tokio::task::JoinHandle<()>,
)> {
    let e = Env::start(Setup {
        wall_clock: true,
        tune: slow_poll,
        ..setup
    })
    .await?;
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let handle = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
    Some((e, wake, stop, handle))
}

#[tokio::test]
async fn an_in_process_wake_up_starts_the_attempt_at_once() {
    let (e, wake, stop, handle) = started(Setup::default()).await.unwrap();
    // Not leased at publish: scheduled, so only the wake-up can start it.
    e.store().set_intake(None);
    let t0 = Instant::now();
    e.publish("evt_wake", DATA).await;
    wake.notify_one();
    e.receiver.wait_for(1, WAIT).await.unwrap();
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    stop.send(true).unwrap();
    handle.await.unwrap();
    assert_eq!(e.only_message().await.state, MessageState::Delivered);
}

#[tokio::test]
async fn a_publish_hands_its_messages_to_the_running_dispatcher_without_a_claim() {
    // No wake-up and a poll of ten minutes: only the hand-over can start them.
    let (e, _wake, stop, handle) = started(Setup::default()).await.unwrap();
    for i in 0..5 {
        let out = e.publish(&format!("evt_handed_{i}"), DATA).await;
        assert_eq!((out.messages_created, out.messages_leased), (1, 1));
    }
    e.receiver.wait_for(5, WAIT).await.unwrap();
    let metrics = e.dispatcher.metrics();
    assert_eq!(
        metrics
            .leased_at_publish
            .load(std::sync::atomic::Ordering::Relaxed),
        5
    );
    stop.send(true).unwrap();
    handle.await.unwrap();
    let messages = e.messages().await;
    assert!(
        messages
            .iter()
            .all(|m| m.state == MessageState::Delivered && m.attempts_used == 1),
        "each delivered once: {messages:?}"
    );
    assert_eq!(e.receiver.count(), 5);
    // A stopped dispatcher takes nothing more.
    let out = e.publish("evt_after_stop", DATA).await;
    assert_eq!(out.messages_leased, 0);
}

#[tokio::test]
async fn publishes_lease_within_the_lane_and_behind_a_backlog() {
    let e = Env::start(Setup {
        tune: |c| c.max_in_flight = 40,
        ..Default::default()
    })
    .await
    .unwrap();
    let intake = e.dispatcher.intake();
    let now = e.clock.now();
    let endpoint = |id, max_concurrency, rate_limited| relay_store::IntakeEndpoint {
        id,
        max_concurrency,
        rate_limited,
    };
    // A lane of 2 takes 2 × (1 + AHEAD_DEPTH) at publish, then no more.
    let depth = 2 * (1 + relay_engine::AHEAD_DEPTH as usize);
    let mut held: Vec<_> = (0..depth)
        .map(|_| intake.reserve(&endpoint("ep_a", 2, false), now))
        .collect::<Option<_>>()
        .expect("room for a lane and its look-ahead");
    assert!(held.iter().all(|r| !r.behind));
    assert!(intake.reserve(&endpoint("ep_a", 2, false), now).is_none());
    // That message was scheduled: room freed later goes to it first (the
    // publish leases the oldest due message instead of its new one).
    held.pop();
    let behind = intake.reserve(&endpoint("ep_a", 2, false), now).unwrap();
    assert!(behind.behind, "not ahead of the backlog");
    held.push(behind);
    assert!(intake.reserve(&endpoint("ep_a", 2, false), now).is_none());
    // Rate-limited endpoints are always claimed.
    assert!(intake.reserve(&endpoint("ep_r", 5, true), now).is_none());
    // Within a quarter of max_in_flight (10) in all.
    let more: Vec<_> = (0..10)
        .map_while(|_| intake.reserve(&endpoint("ep_b", 100, false), now))
        .collect();
    assert_eq!(held.len() + more.len(), 10);
    drop(more);
    drop(held);
    // A claim that finds none of ep_a's due messages left (there are none in
    // this database) clears its backlog.
    e.dispatcher.run_once().await.unwrap();
    let ahead_again = intake.reserve(&endpoint("ep_a", 2, false), now).unwrap();
    assert!(!ahead_again.behind);
}

#[tokio::test]
async fn a_publish_on_another_node_wakes_the_dispatcher_through_listen_notify() {
    let Some((e, _wake, stop, handle)) = started(Setup {
        postgres: true,
        ..Default::default()
    })
    .await
    else {
        return;
    };
    // `start` returned: LISTEN is registered. Publish through the store, as
    // another node's API would; nothing in this process wakes the loop.
    let t0 = Instant::now();
    e.publish("evt_notify", DATA).await; // NOTIFY relay_wake in the publish transaction
    e.receiver.wait_for(1, WAIT).await.unwrap();
    assert!(
        t0.elapsed() < Duration::from_secs(10),
        "woken by NOTIFY, not the 600 s poll: {:?}",
        t0.elapsed()
    );
    stop.send(true).unwrap();
    handle.await.unwrap();
    e.db.cleanup().await;
}

#[tokio::test]
async fn shutdown_lets_attempts_in_flight_finish_and_records_them() {
    let (e, wake, stop, handle) = started(Setup {
        behavior: Behavior::delay(Duration::from_millis(700), Behavior::ok()),
        ..Default::default()
    })
    .await
    .unwrap();
    for i in 0..3 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    wake.notify_one();
    // All three requests are being answered slowly when shutdown is asked for.
    e.receiver
        .wait_in_flight(3, WAIT)
        .await
        .expect("three attempts in flight");
    stop.send(true).unwrap();
    handle.await.unwrap();
    let states: Vec<_> = e.messages().await.into_iter().map(|m| m.state).collect();
    assert_eq!(states, vec![MessageState::Delivered; 3]);
}

#[tokio::test]
async fn shutdown_releases_what_does_not_finish_within_the_grace() {
    let e = Env::start(Setup {
        behavior: Behavior::hang(),
        wall_clock: true,
        tune: |c| {
            c.poll_interval = Duration::from_secs(600);
            c.shutdown_grace = Duration::from_millis(300);
        },
        ..Default::default()
    })
    .await
    .unwrap();
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let handle = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
    e.publish("evt_hang", DATA).await;
    wake.notify_one();
    e.receiver.wait_in_flight(1, WAIT).await.unwrap();
    let t0 = Instant::now();
    stop.send(true).unwrap();
    handle.await.unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    let m = e.only_message().await;
    assert_eq!(
        m.state,
        MessageState::Scheduled,
        "released, to be attempted again"
    );
    assert_eq!(m.attempts_used, 0);
}

#[tokio::test]
async fn a_hanging_endpoint_holds_only_its_own_lane() {
    let e = Env::start(Setup {
        wall_clock: true,
        tune: |c| {
            c.poll_interval = Duration::from_secs(600);
            c.max_in_flight = 8;
            c.limits.total_timeout = Duration::from_secs(10);
            c.shutdown_grace = Duration::from_millis(200);
        },
        ..Default::default()
    })
    .await
    .unwrap();
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let handle = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
    // A second endpoint of the same consumer that never answers, limited to 2 at once.
    let master = relay_core::sealed::MasterKey::from_bytes(common::MASTER);
    let now = common::wall_now();
    let slow_id = relay_store::new_id(relay_core::id::IdKind::Endpoint, now);
    let (record, _) = relay_store::keys::generate(
        &master,
        &slow_id,
        relay_core::model::SignatureScheme::V1a,
        now,
    );
    let mut slow = e.endpoint.clone();
    slow.id = slow_id.clone();
    slow.max_concurrency = 2;
    slow.destination =
        relay_core::model::fixture::https(e.receiver.url_for_host("receiver.test", "/slow"));
    relay_store::conformance::create_endpoint(
        e.store(),
        &e.scope,
        &slow,
        &[record],
        relay_store::EndpointLimits {
            per_tenant: 10,
            per_consumer: 10,
        },
        None,
    )
    .await
    .unwrap();
    e.receiver.set_path_behavior("/slow", Behavior::hang());
    for i in 0..30 {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    let t0 = Instant::now();
    wake.notify_one();
    // Every healthy delivery arrives while the slow endpoint hangs.
    e.receiver.wait_for(32, WAIT).await.unwrap();
    let healthy = e.receiver.requests_to("/hooks").len();
    assert_eq!(healthy, 30, "all healthy deliveries arrived");
    assert!(
        t0.elapsed() < Duration::from_secs(8),
        "not held up by the hanging endpoint: {:?}",
        t0.elapsed()
    );
    assert_eq!(
        e.receiver.max_concurrent("/slow"),
        2,
        "the slow endpoint never had more than its lane"
    );
    stop.send(true).unwrap();
    handle.await.unwrap();
}

#[tokio::test]
async fn a_full_lane_starts_its_next_messages_from_those_leased_ahead() {
    // Lanes of 10 (the test endpoint's max_concurrency) and 40 messages:
    // once the lane is full, a claim leases up to `AHEAD_DEPTH` × 10 more
    // ahead, and each
    // finished attempt starts the next at once.
    let (e, wake, stop, handle) = started(Setup {
        behavior: Behavior::delay(Duration::from_millis(20), Behavior::ok()),
        ..Default::default()
    })
    .await
    .unwrap();
    for i in 0..40 {
        e.publish(&format!("evt_ahead_{i}"), DATA).await;
    }
    wake.notify_one();
    e.receiver.wait_for(40, WAIT).await.unwrap();
    let metrics = e.dispatcher.metrics();
    let started = metrics
        .ahead_started
        .load(std::sync::atomic::Ordering::Relaxed);
    assert!(started > 0, "no attempt started from the look-ahead queue");
    stop.send(true).unwrap();
    handle.await.unwrap();
    let messages = e.messages().await;
    assert_eq!(messages.len(), 40);
    assert!(
        messages
            .iter()
            .all(|m| m.state == MessageState::Delivered && m.attempts_used == 1),
        "each delivered once: {messages:?}"
    );
    assert_eq!(e.receiver.count(), 40, "no message attempted twice");
}

#[tokio::test]
async fn messages_leased_ahead_that_wait_half_a_lease_are_given_back_unattempted() {
    // The injected clock: only the test moves it.
    let e = Env::start(Setup {
        behavior: Behavior::hang(),
        tune: |c| {
            c.poll_interval = Duration::from_secs(600);
            c.shutdown_grace = Duration::from_millis(200);
        },
        ..Default::default()
    })
    .await
    .unwrap();
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let handle = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
    // The lane (10) and as many as may be leased ahead of it, and more.
    let ahead = 10 * relay_engine::AHEAD_DEPTH as usize;
    for i in 0..10 + ahead + 10 {
        e.publish(&format!("evt_wait_{i}"), DATA).await;
    }
    wake.notify_one();
    // The lane (10) fills with attempts that hang.
    e.receiver.wait_in_flight(10, WAIT).await.unwrap();
    // The next claim leases `ahead` more, ahead of the full lane.
    let leased = || async {
        e.messages()
            .await
            .iter()
            .filter(|m| m.state == MessageState::InFlight)
            .count()
    };
    let t0 = Instant::now();
    while leased().await < 10 + ahead {
        assert!(t0.elapsed() < WAIT, "nothing was leased ahead");
        wake.notify_one();
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Half a lease later they have not started: they go back, unattempted.
    let lease = e.dispatcher.config().lease;
    e.clock.advance_millis(lease.as_millis() as i64 / 2 + 1);
    let metrics = e.dispatcher.metrics();
    let given_back = || {
        metrics
            .ahead_given_back
            .load(std::sync::atomic::Ordering::Relaxed)
    };
    let t0 = Instant::now();
    while given_back() < ahead as u64 {
        assert!(t0.elapsed() < WAIT, "given back: {}", given_back());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(given_back(), ahead as u64);
    assert_eq!(e.receiver.count(), 10, "only the lane's 10 were attempted");
    let messages = e.messages().await;
    assert!(
        messages.iter().all(|m| m.attempts_used == 0),
        "nothing used up: {messages:?}"
    );
    stop.send(true).unwrap();
    handle.await.unwrap();
}

/// Every task the dispatcher spawns holds the dispatcher: once the handle
/// `start` returned has completed, none may still hold it (the jobs task,
/// the endpoint-notice follower and the store's wake-up listener used to be
/// detached and outlive shutdown).
async fn no_task_outlives_shutdown(postgres: bool) {
    let Some(e) = Env::start(Setup {
        postgres,
        wall_clock: true,
        tune: slow_poll,
        ..Setup::default()
    })
    .await
    else {
        return;
    };
    let held = Arc::strong_count(&e.dispatcher);
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let handle = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
    e.publish("evt_stop", DATA).await;
    wake.notify_one();
    e.receiver.wait_for(1, WAIT).await.unwrap();
    assert!(Arc::strong_count(&e.dispatcher) > held, "tasks are running");
    stop.send(true).unwrap();
    handle.await.unwrap();
    assert_eq!(
        Arc::strong_count(&e.dispatcher),
        held,
        "a dispatcher task outlived the handle start returned"
    );
    // The store's wake-up listener (PostgreSQL) holds the wake-up too.
    assert_eq!(
        Arc::strong_count(&wake),
        1,
        "a task holding the wake-up (the store's listener) outlived the handle"
    );
    e.db.cleanup().await;
}

#[tokio::test]
async fn no_task_outlives_shutdown_on_sqlite() {
    no_task_outlives_shutdown(false).await;
}

#[tokio::test]
async fn no_task_outlives_shutdown_on_postgres() {
    no_task_outlives_shutdown(true).await;
}

/// A bulk retry paced behind 1,000 restarted messages that cannot be claimed
/// (no recovery slot) waits in its jobs task; shutdown must still end that
/// task before the handle completes.
#[tokio::test]
async fn a_paced_job_does_not_outlive_shutdown() {
    let e = Env::start(Setup {
        behavior: Behavior::status(400),
        verify: false,
        wall_clock: true,
        tune: |c| {
            slow_poll(c);
            c.max_recovery_in_flight = 0;
            c.lease = Duration::from_secs(600);
        },
        ..Setup::default()
    })
    .await
    .unwrap();
    let total = relay_engine::JOB_PACE_DUE + 10;
    for i in 0..total {
        e.publish(&format!("evt_{i}"), DATA).await;
    }
    while e.dispatcher.run_once().await.unwrap() > 0 {}
    let now = e.clock.now();
    let job = relay_store::Job {
        id: relay_store::new_id(relay_core::id::IdKind::Job, now),
        kind: relay_core::model::JobKind::BulkRetry,
        parameters: serde_json::json!({"state": "failed_permanent", "error_code": "http_400"}),
        state: relay_core::model::JobState::Queued,
        processed: 0,
        affected: 0,
        created_at: now,
        updated_at: now,
        finished_at: None,
    };
    let audit = relay_store::AuditEntry {
        id: relay_store::new_id(relay_core::id::IdKind::Audit, now),
        actor: "test".into(),
        action: "messages.bulk_retry".into(),
        target: job.id.clone(),
        parameters: job.parameters.clone(),
        at: now,
    };
    relay_store::conformance::create_job(e.store(), &e.scope, &job, &audit)
        .await
        .unwrap();
    let held = Arc::strong_count(&e.dispatcher);
    let wake = Arc::new(Notify::new());
    let (stop, stop_rx) = watch::channel(false);
    let handle = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
    // The job restarts batches until the pace holds it back.
    let deadline = Instant::now() + WAIT;
    loop {
        let j = relay_store::conformance::get_job(e.store(), &e.scope, &job.id)
            .await
            .unwrap()
            .unwrap();
        if j.affected >= relay_engine::JOB_PACE_DUE as i64 {
            assert_ne!(j.state, relay_core::model::JobState::Done, "{j:?}");
            break;
        }
        assert!(Instant::now() < deadline, "the job never got going: {j:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stop.send(true).unwrap();
    handle.await.unwrap();
    assert_eq!(
        Arc::strong_count(&e.dispatcher),
        held,
        "the jobs task outlived the handle start returned"
    );
}
