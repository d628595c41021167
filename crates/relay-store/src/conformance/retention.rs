//! Retention: the purge never deletes what is still live, a completion whose
//! message was purged fails alone, and a bulk retry restarts nothing whose
//! event is outside retention.

use relay_core::id::IdKind;
use relay_core::model::{Environment, MessageState};
use relay_core::transition::Progress;
use serde_json::json;

use super::{
    T0, advance_bulk_retry, audit, cancel_message, claim_due, complete, completion, consumer,
    create_job, delivered, delivery_fixture, endpoint, get_event, get_message,
    lease_for_manual_attempt, lease_job, list_attempts, new_event, purge_before, scope, tenant,
};
use crate::{MessageFilter, NewEvent, Scope, Store, new_id};

async fn state_of(s: &dyn Store, sc: &Scope, event_id: &str) -> Vec<MessageState> {
    let filter = MessageFilter {
        event_id: Some(event_id.into()),
        ..Default::default()
    };
    let listed = super::listed(s, sc, filter).await;
    listed.into_iter().map(|m| m.state).collect()
}

fn at(event_id: &str, event_type: &str, seconds: i64) -> NewEvent {
    NewEvent {
        now: T0.plus_seconds(seconds),
        ..new_event(event_id, event_type, None)
    }
}

pub async fn purge_keeps_events_whose_messages_are_live(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    endpoint(s, &live, &c.id, &["order.shipped", "order.placed"]).await;
    let paused = endpoint(s, &live, &c.id, &["order.held"]).await;
    super::act(
        s,
        &live,
        &paused.id,
        relay_core::lifecycle::EndpointAction::Pause,
        T0,
    )
    .await
    .unwrap();
    // In flight: claimed, its attempt on the wire.
    s.publish(&live, at("evt_flight", "order.shipped", 0))
        .await
        .unwrap();
    let flight = claim_due(s, "w", T0, T0.plus_seconds(3600), 10, &[])
        .await
        .unwrap();
    assert_eq!(flight.len(), 1);
    // Delivered, then leased again for a manual resend (its state stays).
    s.publish(&live, at("evt_resent", "order.placed", 1))
        .await
        .unwrap();
    let resent = claim_due(s, "w", T0.plus_seconds(1), T0.plus_seconds(3600), 10, &[])
        .await
        .unwrap();
    complete(s, &[completion(&resent[0], "w", delivered(&resent[0]))])
        .await
        .unwrap();
    let manual = lease_for_manual_attempt(
        s,
        &live,
        &resent[0].message.id,
        "w",
        T0.plus_seconds(2),
        T0.plus_seconds(3600),
    )
    .await
    .unwrap()
    .expect("not busy");
    // Delivered and done: the only one the purge may take.
    s.publish(&live, at("evt_done", "order.placed", 3))
        .await
        .unwrap();
    let done = claim_due(s, "w", T0.plus_seconds(3), T0.plus_seconds(3600), 10, &[])
        .await
        .unwrap();
    assert_eq!(done.len(), 1);
    complete(s, &[completion(&done[0], "w", delivered(&done[0]))])
        .await
        .unwrap();
    // Scheduled (due, not yet claimed) and held (the endpoint is paused).
    s.publish(&live, at("evt_scheduled", "order.shipped", 4))
        .await
        .unwrap();
    s.publish(&live, at("evt_held", "order.held", 5))
        .await
        .unwrap();
    assert_eq!(state_of(s, &live, "evt_held").await, [MessageState::Held]);
    assert_eq!(
        state_of(s, &live, "evt_scheduled").await,
        [MessageState::Scheduled]
    );

    // Every event is older than the cutoff.
    let cutoff = T0.plus_seconds(86_400);
    assert_eq!(purge_before(s, cutoff, 10).await.unwrap(), 1);
    assert_eq!(purge_before(s, cutoff, 10).await.unwrap(), 0);
    assert!(get_event(s, &live, "evt_done").await.unwrap().is_none());
    for kept in ["evt_flight", "evt_resent", "evt_scheduled", "evt_held"] {
        assert!(
            get_event(s, &live, kept).await.unwrap().is_some(),
            "{kept} has a live message"
        );
        assert_eq!(state_of(s, &live, kept).await.len(), 1, "{kept}");
    }

    // Once they end, they go with the next purge.
    let mut manual_done = completion(&manual, "w", delivered(&manual));
    manual_done.manual = true;
    assert_eq!(
        complete(
            s,
            &[
                completion(&flight[0], "w", delivered(&flight[0])),
                manual_done
            ]
        )
        .await
        .unwrap()
        .applied,
        [true, true]
    );
    assert_eq!(purge_before(s, cutoff, 10).await.unwrap(), 2);
    assert!(get_event(s, &live, "evt_flight").await.unwrap().is_none());
    assert!(get_event(s, &live, "evt_resent").await.unwrap().is_none());
    assert!(
        get_event(s, &live, "evt_scheduled")
            .await
            .unwrap()
            .is_some()
    );
    assert!(get_event(s, &live, "evt_held").await.unwrap().is_some());
}

/// A disabled endpoint's `held` messages stay for the retention period
/// (reference, "Disabled endpoints"), then go with their event; a paused
/// endpoint's are kept until they end, and so is an event with another
/// message still in delivery.
pub async fn a_disabled_endpoints_held_messages_go_with_retention(s: &dyn Store) {
    use relay_core::lifecycle::EndpointAction;
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let disabled = endpoint(s, &live, &c.id, &["order.gone", "order.both"]).await;
    let paused = endpoint(s, &live, &c.id, &["order.paused", "order.both"]).await;
    super::act(s, &live, &disabled.id, EndpointAction::Disable, T0)
        .await
        .unwrap();
    super::act(s, &live, &paused.id, EndpointAction::Pause, T0)
        .await
        .unwrap();
    for (id, ty) in [
        ("evt_gone", "order.gone"),
        ("evt_paused", "order.paused"),
        ("evt_both", "order.both"),
    ] {
        s.publish(&live, at(id, ty, 1)).await.unwrap();
    }
    assert_eq!(state_of(s, &live, "evt_gone").await, [MessageState::Held]);
    assert_eq!(
        state_of(s, &live, "evt_both").await,
        [MessageState::Held, MessageState::Held]
    );
    // Within retention nothing goes: the missed list shows them.
    assert_eq!(purge_before(s, T0, 10).await.unwrap(), 0);
    let cutoff = T0.plus_seconds(86_400);
    assert_eq!(purge_before(s, cutoff, 10).await.unwrap(), 1);
    assert!(get_event(s, &live, "evt_gone").await.unwrap().is_none());
    assert!(state_of(s, &live, "evt_gone").await.is_empty());
    assert!(
        get_event(s, &live, "evt_paused").await.unwrap().is_some(),
        "a paused endpoint's held message is kept until it ends"
    );
    assert!(
        get_event(s, &live, "evt_both").await.unwrap().is_some(),
        "the paused endpoint's message keeps the event"
    );
}

pub async fn a_completion_whose_message_is_gone_is_skipped_and_the_rest_commit(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 1).await;
    s.publish(&live, new_event("evt_e", "order.shipped", None))
        .await
        .unwrap();
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 2);
    let (gone, kept) = if claimed[0].message.event_id == "evt_d" {
        (&claimed[0], &claimed[1])
    } else {
        (&claimed[1], &claimed[0])
    };
    // Cancelled while its attempt runs, then purged with its event.
    cancel_message(s, &live, &gone.message.id, T0, None)
        .await
        .unwrap();
    assert_eq!(purge_before(s, T0.plus_seconds(1), 10).await.unwrap(), 1);
    assert!(
        get_message(s, &live, &gone.message.id)
            .await
            .unwrap()
            .is_none()
    );
    // The late completion arrives in a batch with another one.
    let done = complete(
        s,
        &[
            completion(gone, "w", delivered(gone)),
            completion(kept, "w", delivered(kept)),
        ],
    )
    .await
    .expect("one vanished message does not fail the batch");
    assert_eq!(done.applied, [false, true]);
    assert_eq!(done.gone, std::slice::from_ref(&gone.message.id));
    let m = get_message(s, &live, &kept.message.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(m.state, MessageState::Delivered);
    assert_eq!(
        list_attempts(s, &live, &kept.message.id, &crate::PageRequest::first(250))
            .await
            .unwrap()
            .data
            .len(),
        1
    );
    assert!(
        list_attempts(s, &live, &gone.message.id, &crate::PageRequest::first(250))
            .await
            .unwrap()
            .data
            .is_empty()
    );
    // A completion that lost its lease (message still there) is not "gone".
    let again = complete(s, &[completion(kept, "w", delivered(kept))])
        .await
        .unwrap();
    assert_eq!(again.applied, [false]);
    assert!(again.gone.is_empty());
}

pub async fn a_bulk_retry_restarts_nothing_whose_event_is_outside_retention(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 1).await;
    s.publish(&live, at("evt_new", "order.shipped", 100))
        .await
        .unwrap();
    let claimed = claim_due(s, "w", T0.plus_seconds(100), T0.plus_seconds(130), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 2);
    let failed: Vec<_> = claimed
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
    complete(s, &failed).await.unwrap();
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
    let now = T0.plus_seconds(200);
    let leased = lease_job(s, "w", now, now.plus_seconds(30))
        .await
        .unwrap()
        .expect("queued job");
    // Retention began at T0 + 50 s: evt_d (T0) is gone or going.
    let filter = MessageFilter {
        events_since: Some(T0.plus_seconds(50)),
        ..Default::default()
    };
    let job = advance_bulk_retry(s, &leased, &filter, "w", 10, now, now.plus_seconds(30))
        .await
        .unwrap();
    assert_eq!((job.state.as_str(), job.affected), ("done", 1));
    assert_eq!(state_of(s, &live, "evt_d").await, [MessageState::Exhausted]);
    assert_eq!(
        state_of(s, &live, "evt_new").await,
        [MessageState::Scheduled]
    );
}
