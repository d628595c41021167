//! Conformance cases for bulk work in bounded chunks (recover, replay,
//! bulk retry): each chunk a transaction of its own, every message handled
//! once, an interrupted run resumed by running again, and a message under a
//! manual attempt's live lease left alone (at most one attempt at a time).

use super::*;
use crate::ExecutorExt as _;
use crate::recovery::{self, REPLAY_CHUNK, Recovered};

/// The size of the recover chunks the cases run one by one.
const CHUNK: u32 = 100;
use crate::seed;

/// Seeds `1..=n` of `prefix` for `endpoint_id` (events of `order.shipped`
/// created at `T0`), in `state`.
pub(super) async fn seed_messages(
    s: &dyn Store,
    sc: &Scope,
    endpoint_id: &str,
    prefix: &'static str,
    state: MessageState,
    n: u64,
) {
    let (sc, endpoint_id) = (sc.clone(), endpoint_id.to_string());
    s.write(crate::Commit::Durable, move |mut x| {
        Box::pin(async move {
            let seed = seed::Messages {
                scope: &sc,
                endpoint_id: &endpoint_id,
                prefix,
                event_type: "order.shipped",
                state,
                due: None,
                attempts_used: 10,
                now: T0,
            };
            seed::messages(&mut x, &seed, 1, n).await
        })
    })
    .await
    .expect("seed messages");
}

/// How many of the endpoint's messages are in `states`.
async fn count(s: &dyn Store, sc: &Scope, endpoint_id: &str, states: &[MessageState]) -> usize {
    list_messages(
        s,
        sc,
        &MessageFilter {
            endpoint_id: Some(endpoint_id.into()),
            states: Some(states.to_vec()),
            ..Default::default()
        },
        &page(10_000),
    )
    .await
    .unwrap()
    .data
    .len()
}

/// One chunk of a recover of `[T0, T0 + 1 s)`, after `after`, at `now`.
async fn recover_one_chunk(
    s: &dyn Store,
    sc: &Scope,
    endpoint_id: &str,
    after: &str,
    now: Timestamp,
) -> recovery::RecoverChunk {
    let (sc, endpoint_id, after) = (sc.clone(), endpoint_id.to_string(), after.to_string());
    s.write(crate::Commit::Durable, move |mut x| {
        Box::pin(async move {
            recovery::recover_chunk(
                &mut x,
                &sc,
                &endpoint_id,
                T0,
                T0.plus_seconds(1),
                &after,
                CHUNK,
                now,
                None,
            )
            .await
        })
    })
    .await
    .unwrap()
}

pub async fn a_recover_works_in_chunks_and_restarts_each_message_once(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    // More failed messages than two chunks, among delivered ones it leaves.
    let failed = 2 * u64::from(CHUNK) + 17;
    seed_messages(s, &live, &e.id, "evt_f", MessageState::Exhausted, failed).await;
    seed_messages(s, &live, &e.id, "evt_ok", MessageState::Delivered, 40).await;

    // The first chunk alone (as if the recover stopped after it).
    let first = recover_one_chunk(s, &live, &e.id, "", T0.plus_seconds(10)).await;
    let cursor = first.next.clone().expect("more than one chunk");
    assert!(first.done.requeued > 0);
    assert!(first.done.requeued <= u64::from(CHUNK));
    // A message the first chunk restarted is attempted and fails again at
    // once (live evt_d first, then recovery traffic).
    let claimed = claim_due(s, "w", T0.plus_seconds(10), T0.plus_seconds(40), 2, &[])
        .await
        .unwrap();
    let again = claimed
        .iter()
        .find(|c| c.recovery)
        .expect("a restarted message is recovery traffic");
    let ended: Vec<Completion> = claimed
        .iter()
        .map(|c| {
            let mut done = completion(
                c,
                "w",
                Progress {
                    state: MessageState::Exhausted,
                    attempts_used: 10,
                    next_attempt_at: None,
                    terminal_reason: Some("attempts_exhausted".into()),
                    ..c.progress()
                },
            );
            done.attempt = None;
            done
        })
        .collect();
    complete(s, &ended).await.unwrap();
    // The rest of the same recover, from the first chunk's cursor, does not
    // restart it again: every message is looked at once.
    let mut rest = Recovered::default();
    let mut after = Some(cursor);
    let mut chunks = 1;
    while let Some(from) = after {
        let chunk = recover_one_chunk(s, &live, &e.id, &from, T0.plus_seconds(11)).await;
        rest.requeued += chunk.done.requeued;
        after = chunk.next;
        chunks += 1;
    }
    assert!(chunks >= 3, "{chunks} chunks");
    assert_eq!(
        first.done.requeued + rest.requeued,
        failed,
        "each failed message restarted once"
    );
    let still = count(s, &live, &e.id, &[MessageState::Exhausted]).await;
    assert_eq!(still, 2, "the one that failed again, and evt_d");
    assert_eq!(count(s, &live, &e.id, &[MessageState::Delivered]).await, 40);
    let restarted = get_message(s, &live, &again.message.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(restarted.state, MessageState::Exhausted);
    // Run again (what a client does after an interruption): it restarts
    // what is still failed, and nothing twice.
    let resumed = crate::recovery::recover(
        s,
        &live,
        &e.id,
        T0,
        T0.plus_seconds(1),
        &audit("endpoint.recovered", &e.id, T0.plus_seconds(12)),
    )
    .await
    .unwrap();
    assert_eq!(resumed.requeued, 2);
    assert_eq!(
        count(
            s,
            &live,
            &e.id,
            &[MessageState::Exhausted, MessageState::Held]
        )
        .await,
        0
    );
    let none = crate::recovery::recover(
        s,
        &live,
        &e.id,
        T0,
        T0.plus_seconds(1),
        &audit("endpoint.recovered", &e.id, T0.plus_seconds(13)),
    )
    .await
    .unwrap();
    assert_eq!(none, Recovered::default(), "nothing is left to restart");
    assert_eq!(
        recovery_due(s, &live.tenant_id, T0.plus_seconds(20))
            .await
            .unwrap(),
        failed + 1,
        "every failed message and evt_d, due as recovery traffic"
    );
    // A chunk of an endpoint no longer active is refused, and restarts nothing.
    super::recovery::act(s, &live, &e.id, EndpointAction::Pause, T0.plus_seconds(14))
        .await
        .unwrap();
    let paused = s
        .write(crate::Commit::Durable, {
            let (live, id) = (live.clone(), e.id.clone());
            move |mut x| {
                Box::pin(async move {
                    recovery::recover_chunk(
                        &mut x,
                        &live,
                        &id,
                        T0,
                        T0.plus_seconds(1),
                        "",
                        CHUNK,
                        T0.plus_seconds(15),
                        None,
                    )
                    .await
                })
            }
        })
        .await;
    assert!(matches!(
        paused,
        Err(StoreError::Conflict("endpoint_not_active"))
    ));
}

pub async fn recover_and_bulk_retry_leave_a_message_under_a_manual_attempt_alone(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let mut failed = completion(
        &claimed[0],
        "w",
        Progress {
            state: MessageState::Exhausted,
            attempts_used: 10,
            next_attempt_at: None,
            last_error_code: Some("http_503".into()),
            terminal_reason: Some("attempts_exhausted".into()),
            ..claimed[0].progress()
        },
    );
    failed.attempt = None;
    complete(s, &[failed]).await.unwrap();
    let id = claimed[0].message.id.clone();
    // A manual resend is on the wire.
    let manual = lease_for_manual_attempt(
        s,
        &live,
        &id,
        "api",
        T0.plus_seconds(1),
        T0.plus_seconds(31),
    )
    .await
    .unwrap()
    .expect("free to lease");
    // Recover lands meanwhile: it leaves the message and its lease alone.
    let recovered = crate::recovery::recover(
        s,
        &live,
        &e.id,
        T0,
        T0.plus_seconds(1),
        &audit("endpoint.recovered", &e.id, T0.plus_seconds(2)),
    )
    .await
    .unwrap();
    assert_eq!(
        recovered,
        Recovered {
            requeued: 0,
            in_flight: 1
        }
    );
    // So does a bulk retry.
    let job = crate::Job {
        id: new_id(IdKind::Job, T0),
        kind: relay_core::model::JobKind::BulkRetry,
        parameters: json!({}),
        state: relay_core::model::JobState::Queued,
        processed: 0,
        affected: 0,
        created_at: T0,
        updated_at: T0,
        finished_at: None,
    };
    create_job(s, &live, &job, &audit("messages.bulk_retry", &job.id, T0))
        .await
        .unwrap();
    let leased = lease_job(s, "j", T0.plus_seconds(2), T0.plus_seconds(60))
        .await
        .unwrap()
        .expect("queued job");
    let mut progress = advance_bulk_retry(
        s,
        &leased,
        &MessageFilter::default(),
        "j",
        4,
        T0.plus_seconds(2),
        T0.plus_seconds(60),
    )
    .await
    .unwrap();
    while progress.state != relay_core::model::JobState::Done {
        progress = advance_bulk_retry(
            s,
            &leased,
            &MessageFilter::default(),
            "j",
            4,
            T0.plus_seconds(2),
            T0.plus_seconds(60),
        )
        .await
        .unwrap();
    }
    assert_eq!((progress.processed, progress.affected), (1, 0));
    let m = get_message(s, &live, &id).await.unwrap().unwrap();
    assert_eq!(m.state, MessageState::Exhausted);
    // No automatic attempt can start beside the manual one.
    assert!(
        claim_due(s, "w2", T0.plus_seconds(3), T0.plus_seconds(33), 10, &[])
            .await
            .unwrap()
            .is_empty()
    );
    // The manual attempt's end still applies: its lease was kept.
    let mut done = completion(&manual, "api", manual.progress());
    done.manual = true;
    assert_eq!(complete(s, &[done]).await.unwrap().applied, vec![true]);
    // Once it has ended, recover restarts the message.
    let after = crate::recovery::recover(
        s,
        &live,
        &e.id,
        T0,
        T0.plus_seconds(1),
        &audit("endpoint.recovered", &e.id, T0.plus_seconds(4)),
    )
    .await
    .unwrap();
    assert_eq!(
        after,
        Recovered {
            requeued: 1,
            in_flight: 0
        }
    );
}

pub async fn a_replay_works_in_chunks_and_resumes_where_it_stopped(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let first = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    // Events all created at the same time: the chunks go by id within it.
    let n = 2 * u64::from(REPLAY_CHUNK) + 3;
    seed_messages(s, &live, &first.id, "evt_p", MessageState::Delivered, n).await;
    let added = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    // One chunk, then the replay stops.
    let (created, next) = s
        .write(crate::Commit::Durable, {
            let (live, id) = (live.clone(), added.id.clone());
            let a = audit("endpoint.replayed", &added.id, T0.plus_seconds(10));
            move |mut x| {
                Box::pin(async move {
                    recovery::replay_chunk(
                        &mut x,
                        &live,
                        &id,
                        T0,
                        T0.plus_seconds(1),
                        None,
                        None,
                        T0.plus_seconds(10),
                        Some(&a),
                    )
                    .await
                })
            }
        })
        .await
        .unwrap();
    assert_eq!(created, u64::from(REPLAY_CHUNK));
    assert!(next.is_some());
    // Replayed again, it creates only what is missing, across chunks.
    let rest = crate::recovery::replay(
        s,
        &live,
        &added.id,
        T0,
        T0.plus_seconds(1),
        None,
        &audit("endpoint.replayed", &added.id, T0.plus_seconds(11)),
    )
    .await
    .unwrap();
    assert_eq!(rest, n - u64::from(REPLAY_CHUNK));
    let again = crate::recovery::replay(
        s,
        &live,
        &added.id,
        T0,
        T0.plus_seconds(1),
        None,
        &audit("endpoint.replayed", &added.id, T0.plus_seconds(12)),
    )
    .await
    .unwrap();
    assert_eq!(again, 0);
    assert_eq!(
        count(s, &live, &added.id, &[MessageState::Scheduled]).await,
        n as usize,
        "one message per event"
    );
}
