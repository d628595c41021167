//! Conformance cases for the one-attempt rule (issue #40 §2): at most one
//! attempt runs for a message at a time, whatever lands while it runs.
//!
//! Every path that changes a message is made to land while an attempt is on
//! the wire: an automatic one (a claim), a manual resend (of a failed
//! message, and of one held by a paused endpoint) and a test send. After
//! each, no second attempt may start (no claim takes the message, no manual
//! lease is given), and the running attempt's end still applies unless the
//! message was cancelled meanwhile. Then a failed attempt leaves the message
//! where the endpoint's state at its end puts it (§3d): waiting messages of
//! an active endpoint are `scheduled` and due, those of a paused or disabled
//! one `held`.

use super::*;

/// The attempt already on the wire when the interlopers land.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum First {
    /// An automatic attempt: the message was claimed (`in_flight`).
    Claim,
    /// A manual resend of an exhausted message.
    Resend,
    /// A manual resend of a message held by its paused endpoint.
    ResendHeld,
    /// The endpoint's test send (its new message is leased at once).
    TestSend,
}

/// A path that changes a message, landing while the first attempt runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Claim,
    Resend,
    TestSend,
    Recover,
    BulkRetry,
    Rescue,
    Replay,
    Cancel,
    Pause,
    Resume,
    Disable,
    Enable,
}

use Step::*;

/// The interleavings: each list lands, in order, while the first attempt
/// runs.
const SEQUENCES: &[&[Step]] = &[
    &[Claim],
    &[Resend],
    &[TestSend],
    &[Recover],
    &[BulkRetry],
    &[Rescue],
    &[Replay],
    &[Cancel],
    &[Cancel, Resend],
    &[Cancel, Recover],
    &[Cancel, BulkRetry],
    &[Cancel, Claim],
    &[Pause],
    &[Pause, Resume],
    &[Pause, Resume, Recover],
    &[Pause, Resume, Claim],
    &[Disable],
    &[Disable, Enable],
    &[Disable, Enable, BulkRetry],
    &[Resume],
    &[Resume, Claim],
    &[Resume, Recover],
];

/// How long every lease of the cases lasts.
const LEASE_SECS: i64 = 30;

/// One fresh tenant with one endpoint and one message for it; the message
/// put under `first`'s attempt at `base`. Returns the scope, the endpoint,
/// the leased message and the completion of a failed attempt at it.
async fn under_attempt(
    s: &dyn Store,
    first: First,
    base: Timestamp,
) -> (Scope, Endpoint, crate::Claimed, Completion) {
    let t = tenant(s, "one-attempt").await;
    let sc = scope(&t, Environment::Live);
    let c = consumer(s, &sc, "c").await;
    let e = endpoint(s, &sc, &c.id, &["order.shipped"]).await;
    let lease_until = base.plus_seconds(LEASE_SECS);
    let event = |id: &str| NewEvent {
        time: base,
        now: base,
        ..new_event(id, "order.shipped", None)
    };
    let mine = |claimed: Vec<crate::Claimed>| {
        claimed
            .into_iter()
            .find(|m| m.endpoint.id == e.id)
            .expect("the case's message is claimed")
    };
    let claimed = match first {
        First::Claim => {
            s.publish(&sc, event("evt_1")).await.unwrap();
            mine(
                claim_due(s, "w", base, lease_until, 1000, &[])
                    .await
                    .unwrap(),
            )
        }
        First::Resend => {
            s.publish(&sc, event("evt_1")).await.unwrap();
            let m = mine(
                claim_due(s, "w", base, base.plus_seconds(1), 1000, &[])
                    .await
                    .unwrap(),
            );
            let mut exhausted = completion(
                &m,
                "w",
                Progress {
                    state: MessageState::Exhausted,
                    attempts_used: 10,
                    next_attempt_at: None,
                    last_error_code: Some("http_503".into()),
                    terminal_reason: Some("attempts_exhausted".into()),
                    ..m.progress()
                },
            );
            exhausted.attempt = None;
            assert_eq!(complete(s, &[exhausted]).await.unwrap().applied, vec![true]);
            lease_for_manual_attempt(s, &sc, &m.message.id, "api", base, lease_until)
                .await
                .unwrap()
                .expect("free to lease")
        }
        First::ResendHeld => {
            act(s, &sc, &e.id, EndpointAction::Pause, base)
                .await
                .unwrap();
            s.publish(&sc, event("evt_1")).await.unwrap();
            let id = list_messages(s, &sc, &MessageFilter::default(), &page(10))
                .await
                .unwrap()
                .data[0]
                .id
                .clone();
            let m = lease_for_manual_attempt(s, &sc, &id, "api", base, lease_until)
                .await
                .unwrap()
                .expect("free to lease");
            assert_eq!(m.message.state, MessageState::Held);
            m
        }
        First::TestSend => {
            publish_to_endpoint(s, &sc, &e.id, event("evt_test"), "api", lease_until)
                .await
                .unwrap()
        }
    };
    let manual = first != First::Claim;
    let owner = if manual { "api" } else { "w" };
    // How the attempt fails: automatic, it uses an attempt and is due again
    // a minute later; manual, it changes nothing but the lease.
    let progress = if manual {
        claimed.progress()
    } else {
        Progress {
            state: MessageState::Scheduled,
            attempts_used: claimed.progress().attempts_used + 1,
            next_attempt_at: Some(base.plus_seconds(60)),
            last_error_code: Some("http_503".into()),
            ..claimed.progress()
        }
    };
    let mut failed = completion(&claimed, owner, progress);
    failed.manual = manual;
    failed.now = base.plus_seconds(5);
    let mut attempt = attempt_for(&claimed, AttemptOutcome::Retry);
    attempt.trigger = if manual {
        AttemptTrigger::Manual
    } else {
        AttemptTrigger::Scheduled
    };
    failed.attempt = Some(attempt);
    (sc, e, claimed, failed)
}

/// Lands `step` at `now`. Refusals (a recover of a paused endpoint, a
/// cancel of a terminal message, an illegal state change) are part of the
/// interleaving, not failures of the case.
async fn land(s: &dyn Store, sc: &Scope, e: &Endpoint, id: &str, step: Step, now: Timestamp) {
    let lease_until = now.plus_seconds(LEASE_SECS);
    match step {
        Claim => {
            claim_due(s, "w2", now, lease_until, 1000, &[])
                .await
                .unwrap();
        }
        Resend => {
            lease_for_manual_attempt(s, sc, id, "api2", now, lease_until)
                .await
                .unwrap();
        }
        TestSend => {
            let ev = NewEvent {
                time: now,
                now,
                ..new_event(&new_id(IdKind::Message, now), "order.shipped", None)
            };
            publish_to_endpoint(s, sc, &e.id, ev, "api2", lease_until)
                .await
                .unwrap();
        }
        Recover => {
            let audit = audit("endpoint.recovered", &e.id, now);
            match crate::recovery::recover(s, sc, &e.id, T0, now, &audit).await {
                Ok(_) | Err(StoreError::Conflict("endpoint_not_active")) => {}
                Err(other) => panic!("recover: {other}"),
            }
        }
        BulkRetry => {
            let job = crate::Job {
                id: new_id(IdKind::Job, now),
                kind: relay_core::model::JobKind::BulkRetry,
                parameters: json!({}),
                state: relay_core::model::JobState::Queued,
                processed: 0,
                affected: 0,
                created_at: now,
                updated_at: now,
                finished_at: None,
            };
            create_job(s, sc, &job, &audit("messages.bulk_retry", &job.id, now))
                .await
                .unwrap();
            let leased = lease_job(s, "j", now, lease_until)
                .await
                .unwrap()
                .expect("the queued job");
            assert_eq!(leased.job.id, job.id);
            loop {
                let progress = advance_bulk_retry(
                    s,
                    &leased,
                    &MessageFilter::default(),
                    "j",
                    4,
                    now,
                    lease_until,
                )
                .await
                .unwrap();
                if progress.state == relay_core::model::JobState::Done {
                    break;
                }
            }
        }
        Rescue => {
            rescue_expired_leases(s, now).await.unwrap();
        }
        Replay => {
            let audit = audit("endpoint.replayed", &e.id, now);
            crate::recovery::replay(s, sc, &e.id, T0, now, None, &audit)
                .await
                .unwrap();
        }
        Cancel => {
            let audit = audit("message.cancelled", id, now);
            match cancel_message(s, sc, id, now, Some(&audit)).await {
                Ok(_) | Err(StoreError::Conflict("message_not_pending")) => {}
                Err(other) => panic!("cancel: {other}"),
            }
        }
        Pause | Resume | Disable | Enable => {
            let action = match step {
                Pause => EndpointAction::Pause,
                Resume => EndpointAction::Resume,
                Disable => EndpointAction::Disable,
                _ => EndpointAction::Enable,
            };
            match act(s, sc, &e.id, action, now).await {
                Ok(_) | Err(StoreError::Conflict("illegal_transition")) => {}
                Err(other) => panic!("{step:?}: {other}"),
            }
        }
    }
}

/// Asserts that no second attempt can start for `id` at `now`: no claim
/// takes it, no manual lease is given.
async fn no_second_attempt(s: &dyn Store, sc: &Scope, id: &str, now: Timestamp, case: &str) {
    let claimed = claim_due(s, "w3", now, now.plus_seconds(LEASE_SECS), 1000, &[])
        .await
        .unwrap();
    assert!(
        claimed.iter().all(|c| c.message.id != id),
        "{case}: a claim took the message while an attempt runs"
    );
    let manual = lease_for_manual_attempt(s, sc, id, "api3", now, now.plus_seconds(LEASE_SECS))
        .await
        .unwrap();
    assert!(
        manual.is_none(),
        "{case}: a manual lease was given while an attempt runs"
    );
}

/// Runs every sequence of [`SEQUENCES`] against `first`'s attempt, each on
/// a tenant of its own and an hour after the last (so every earlier lease
/// has lapsed).
async fn interleave(s: &dyn Store, first: First, hour: &mut i64) {
    for steps in SEQUENCES {
        *hour += 1;
        let base = T0.plus_seconds(3600 * *hour);
        let case = format!("{first:?} then {steps:?}");
        let (sc, e, claimed, failed) = under_attempt(s, first, base).await;
        let id = claimed.message.id.clone();
        for (i, step) in steps.iter().enumerate() {
            let now = base.plus_seconds(1 + i as i64);
            land(s, &sc, &e, &id, *step, now).await;
            no_second_attempt(s, &sc, &id, now, &case).await;
        }
        // Until its lease's last moment.
        let last = base.plus_seconds(LEASE_SECS);
        no_second_attempt(s, &sc, &id, last, &case).await;
        // The attempt ends (failed) within its lease: it applies unless the
        // message was cancelled meanwhile.
        // (An exhausted message is not pending: a cancel leaves it alone.)
        let cancelled = steps.contains(&Cancel) && first != First::Resend;
        let applied = complete(s, &[failed]).await.unwrap().applied;
        assert_eq!(applied, vec![!cancelled], "{case}: the attempt's end");
        let m = get_message(s, &sc, &id).await.unwrap().unwrap();
        let endpoint = get_endpoint(s, &sc, &e.id).await.unwrap().unwrap();
        if m.state.is_terminal() {
            continue;
        }
        // A waiting message goes where the endpoint's state now puts it.
        if endpoint.state == EndpointState::Active {
            assert_eq!(m.state, MessageState::Scheduled, "{case}: {m:?}");
            assert!(m.next_attempt_at.is_some(), "{case}: due again: {m:?}");
        } else {
            assert_eq!(m.state, MessageState::Held, "{case}: {m:?}");
        }
    }
}

pub async fn at_most_one_attempt_runs_under_an_automatic_attempt(s: &dyn Store) {
    interleave(s, First::Claim, &mut 0).await;
}

pub async fn at_most_one_attempt_runs_under_a_manual_resend(s: &dyn Store) {
    interleave(s, First::Resend, &mut 0).await;
}

pub async fn at_most_one_attempt_runs_under_a_resend_of_a_held_message(s: &dyn Store) {
    interleave(s, First::ResendHeld, &mut 0).await;
}

pub async fn at_most_one_attempt_runs_under_a_test_send(s: &dyn Store) {
    interleave(s, First::TestSend, &mut 0).await;
}

/// A cancelled message whose attempt was still on the wire is free again
/// once that attempt's lease has lapsed: its end no longer applies, and a
/// resend may then be made.
pub async fn a_cancelled_attempts_lease_lapses_and_frees_the_message(s: &dyn Store) {
    let base = T0;
    let (sc, _, claimed, failed) = under_attempt(s, First::Claim, base).await;
    let id = claimed.message.id.clone();
    let audit = audit("message.cancelled", &id, base);
    let m = cancel_message(s, &sc, &id, base.plus_seconds(1), Some(&audit))
        .await
        .unwrap();
    assert_eq!(m.state, MessageState::Cancelled);
    no_second_attempt(s, &sc, &id, base.plus_seconds(2), "cancelled in flight").await;
    assert_eq!(complete(s, &[failed]).await.unwrap().applied, vec![false]);
    let after = base.plus_seconds(LEASE_SECS + 1);
    let resend =
        lease_for_manual_attempt(s, &sc, &id, "api", after, after.plus_seconds(LEASE_SECS))
            .await
            .unwrap()
            .expect("free once the cancelled attempt's lease lapsed");
    assert_eq!(resend.message.state, MessageState::Cancelled);
}

/// What one racer got: the ids of the messages it may attempt.
type Got<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = Vec<String>> + Send + 'a>>;

/// A manual lease of `id` as a racer.
fn manual_racer<'a>(s: &'a dyn Store, sc: &'a Scope, id: &'a str, owner: String) -> Got<'a> {
    Box::pin(async move {
        lease_for_manual_attempt(s, sc, id, &owner, T0.plus_seconds(2), T0.plus_seconds(32))
            .await
            .unwrap()
            .map(|m| vec![m.message.id])
            .unwrap_or_default()
    })
}

/// Paths racing at once (on PostgreSQL on separate connections) still give
/// each message to one attempt: claims and manual leases of the same due
/// messages; and manual leases of failed messages against a recover, a
/// bulk retry and a pause and resume, after which no claim takes them.
pub async fn racing_paths_give_each_message_to_one_attempt(s: &dyn Store) {
    const N: usize = 24;
    let (sc, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    for i in 1..N {
        s.publish(&sc, new_event(&format!("evt_{i}"), "order.shipped", None))
            .await
            .unwrap();
    }
    let ids: Vec<String> = list_messages(s, &sc, &MessageFilter::default(), &page(100))
        .await
        .unwrap()
        .data
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(ids.len(), N);
    let given = |got: Vec<Vec<String>>| {
        let mut count = std::collections::HashMap::<String, usize>::new();
        for id in got.into_iter().flatten() {
            *count.entry(id).or_default() += 1;
        }
        count
    };

    // Claims and manual leases of the same due messages.
    let mut racers: Vec<Got<'_>> = Vec::new();
    for w in 0..3 {
        racers.push(Box::pin(async move {
            claim_due(
                s,
                &format!("w{w}"),
                T0.plus_seconds(2),
                T0.plus_seconds(32),
                N as u32,
                &[],
            )
            .await
            .unwrap()
            .into_iter()
            .map(|c| c.message.id)
            .collect()
        }));
    }
    for id in &ids {
        for k in 0..2 {
            racers.push(manual_racer(s, &sc, id, format!("api{k}")));
        }
    }
    let count = given(futures_util::future::join_all(racers).await);
    for id in &ids {
        assert_eq!(
            count.get(id),
            Some(&1),
            "{id} given to one attempt: {count:?}"
        );
    }

    // Every message ends exhausted; then manual leases race a recover, a
    // bulk retry, and a pause and resume.
    let later = T0.plus_seconds(3600);
    // (The first race's leases have lapsed by now.)
    rescue_expired_leases(s, later).await.unwrap();
    // (A claim takes at most the endpoint's `max_concurrency`.)
    let mut claimed = Vec::new();
    while claimed.len() < N {
        let got = claim_due(s, "w", later, later.plus_seconds(1), N as u32, &[])
            .await
            .unwrap();
        assert!(!got.is_empty(), "every message is due");
        claimed.extend(got);
    }
    let exhausted: Vec<Completion> = claimed
        .iter()
        .map(|c| {
            let mut done = completion(
                c,
                "w",
                Progress {
                    state: MessageState::Exhausted,
                    next_attempt_at: None,
                    terminal_reason: Some("attempts_exhausted".into()),
                    ..c.progress()
                },
            );
            done.attempt = None;
            done
        })
        .collect();
    complete(s, &exhausted).await.unwrap();
    let now = later.plus_seconds(10);
    let sc = &sc;
    let mut racers: Vec<Got<'_>> = Vec::new();
    for id in &ids {
        for k in 0..2 {
            let owner = format!("api{k}");
            racers.push(Box::pin(async move {
                lease_for_manual_attempt(s, sc, id, &owner, now, now.plus_seconds(30))
                    .await
                    .unwrap()
                    .map(|m| vec![m.message.id])
                    .unwrap_or_default()
            }));
        }
    }
    racers.push(Box::pin(async move {
        // Between the pause and the resume, the recover is refused.
        land(s, sc, e, "", Recover, now).await;
        Vec::new()
    }));
    racers.push(Box::pin(async move {
        land(s, sc, e, "", BulkRetry, now).await;
        Vec::new()
    }));
    racers.push(Box::pin(async move {
        land(s, sc, e, "", Pause, now).await;
        land(s, sc, e, "", Resume, now).await;
        Vec::new()
    }));
    let count = given(futures_util::future::join_all(racers).await);
    for id in &ids {
        assert_eq!(count.get(id), Some(&1), "{id} leased once: {count:?}");
    }
    // Whether the recover, bulk retry or resume came first or last, no
    // claim takes a message whose manual attempt runs.
    let claimed = claim_due(s, "w9", now.plus_seconds(1), now.plus_seconds(31), 100, &[])
        .await
        .unwrap();
    assert!(
        claimed.is_empty(),
        "claimed beside a manual attempt: {claimed:?}"
    );
}
