//! Conformance cases for workflow steps (`crate::workflow_steps`): one
//! event to one endpoint of the caller's scope, idempotent by the step's
//! key (concurrent requests included), its message flagged so that the
//! dispatcher withholds the receiver's answer, never replayed to another
//! endpoint, held by a paused endpoint, its outcome read back, purged with
//! its event.

use super::*;
use crate::ExecutorExt as _;
use crate::workflow_steps::{self, Created, KEY_REUSED, NewStep};

fn step(key: &str, digest: &str, endpoint_id: &str, event_id: &str, at: Timestamp) -> NewStep {
    NewStep {
        step_key: key.into(),
        request_sha256: digest.into(),
        endpoint_id: endpoint_id.into(),
        event: NewEvent {
            time: at,
            now: at,
            ..new_event(event_id, "order.shipped", Some("order/7"))
        },
    }
}

async fn create_step(s: &dyn Store, sc: &Scope, step: &NewStep) -> Result<Created, StoreError> {
    let (sc, step) = (sc.clone(), step.clone());
    s.write(crate::Commit::Durable, move |mut x| {
        Box::pin(async move { workflow_steps::create(&mut x, &sc, &step).await })
    })
    .await
}

async fn get_step(s: &dyn Store, sc: &Scope, key: &str) -> Option<relay_core::model::WorkflowStep> {
    let (sc, key) = (sc.clone(), key.to_string());
    s.read(move |mut x| Box::pin(async move { workflow_steps::get(&mut x, &sc, &key).await }))
        .await
        .unwrap()
}

fn created(c: Created) -> relay_core::model::WorkflowStep {
    match c {
        Created::New(s) => s,
        Created::Existing(s) => panic!("expected a new step, found {s:?}"),
    }
}

pub async fn workflow_steps_are_idempotent_by_key_and_reach_only_their_endpoint(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let test = scope(&t, Environment::Test);
    let other = scope(&tenant(s, "b").await, Environment::Live);
    let c = customer(s, &live, "shop").await;
    let target = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let sibling = endpoint(s, &live, &c.id, &["*"]).await;

    let made = created(
        create_step(s, &live, &step("k1", "d1", &target.id, "evt_s1", T0))
            .await
            .unwrap(),
    );
    assert_eq!(made.step_key, "k1");
    assert_eq!(made.endpoint_id, target.id);
    assert_eq!(made.event_id, "evt_s1");
    assert_eq!(made.state, MessageState::Scheduled);
    assert_eq!(
        (made.attempts, made.status_code, made.last_attempt_at),
        (0, None, None)
    );
    assert_eq!((made.created_at, made.updated_at), (T0, T0));
    // One message, for the target alone, addressed to its consumer.
    let messages = list_messages(s, &live, &MessageFilter::default(), &page(10))
        .await
        .unwrap()
        .data;
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].id, made.message_id);
    assert_eq!(messages[0].endpoint_id, target.id);
    let event = get_event(s, &live, "evt_s1").await.unwrap().unwrap();
    assert_eq!(event.consumer_id.as_deref(), Some(c.id.as_str()));
    assert_eq!(event.seq, Some(1), "numbered in its subject like a publish");

    // The same request: the same step, nothing written. Another: refused.
    let again = create_step(
        s,
        &live,
        &step("k1", "d1", &target.id, "evt_s1b", T0.plus_seconds(1)),
    )
    .await
    .unwrap();
    assert_eq!(again, Created::Existing(made.clone()));
    for other_request in [
        step("k1", "d2", &target.id, "evt_s1c", T0),
        step("k1", "d2", &sibling.id, "evt_s1d", T0),
    ] {
        assert!(matches!(
            create_step(s, &live, &other_request).await,
            Err(StoreError::Conflict(KEY_REUSED))
        ));
    }
    for absent in ["evt_s1b", "evt_s1c", "evt_s1d"] {
        assert!(
            get_event(s, &live, absent).await.unwrap().is_none(),
            "{absent}"
        );
    }

    // Another environment's or tenant's endpoint is not found, and the
    // refusal leaves nothing behind: no step, no event.
    for sc in [&test, &other] {
        assert!(matches!(
            create_step(s, sc, &step("k2", "d1", &target.id, "evt_s2", T0)).await,
            Err(StoreError::NotFound)
        ));
        assert!(get_step(s, sc, "k2").await.is_none());
        assert!(
            get_step(s, sc, "k1").await.is_none(),
            "a key is its scope's"
        );
        assert!(get_event(s, sc, "evt_s2").await.unwrap().is_none());
    }
    // Not subscribed: refused.
    let other_type = NewStep {
        event: NewEvent {
            event_type: "order.refunded".into(),
            ..new_event("evt_s3", "order.refunded", None)
        },
        ..step("k3", "d1", &target.id, "evt_s3", T0)
    };
    assert!(matches!(
        create_step(s, &live, &other_type).await,
        Err(StoreError::Conflict("not_addressed"))
    ));
    assert!(get_step(s, &live, "k3").await.is_none());

    // Claimed, the step's message carries the flag the dispatcher withholds
    // the answer by; a published message does not.
    s.publish(
        &live,
        NewEvent {
            consumer_id: Some(c.id.clone()),
            ..new_event("evt_pub", "order.shipped", None)
        },
    )
    .await
    .unwrap();
    let claimed = claim_due(s, "w1", T0.plus_seconds(1), T0.plus_seconds(31), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 3, "the step's message and the publish's two");
    for cl in &claimed {
        assert_eq!(
            cl.withhold_answer,
            cl.message.id == made.message_id,
            "{}",
            cl.message.id
        );
    }
    // A replay to the sibling never gives it the step's event.
    let replayed = crate::recovery::replay(
        s,
        &live,
        &sibling.id,
        T0.plus_seconds(-60),
        T0.plus_seconds(60),
        None,
        &super::recovery::audit("endpoint.replayed", &sibling.id, T0.plus_seconds(2)),
    )
    .await
    .unwrap();
    assert_eq!(replayed, 0);

    // The outcome: the last attempt's status code, the attempt count, the
    // message's state and time.
    let c1 = claimed.iter().find(|c| c.withhold_answer).unwrap();
    let mut failed = completion(
        c1,
        "w1",
        Progress {
            state: MessageState::FailedPermanent,
            attempts_used: 1,
            next_attempt_at: None,
            ..c1.progress()
        },
    );
    let attempt = failed.attempt.as_mut().unwrap();
    attempt.status_code = Some(302);
    attempt.response_body = None;
    attempt.response_body_encoding = None;
    attempt.outcome = AttemptOutcome::Permanent;
    attempt.detail = relay_core::workflow::withheld_detail(&json!({"status_code": 302}));
    complete(s, &[failed]).await.unwrap();
    let done = get_step(s, &live, "k1").await.unwrap();
    assert_eq!(done.state, MessageState::FailedPermanent);
    assert_eq!((done.attempts, done.status_code), (1, Some(302)));
    assert_eq!(done.last_attempt_at, Some(T0));
    assert_eq!(done.updated_at, T0.plus_seconds(1));

    // A paused endpoint holds a new step's message, as it holds any.
    super::recovery::act(
        s,
        &live,
        &target.id,
        EndpointAction::Pause,
        T0.plus_seconds(3),
    )
    .await
    .unwrap();
    let held = created(
        create_step(
            s,
            &live,
            &step("k4", "d1", &target.id, "evt_s4", T0.plus_seconds(4)),
        )
        .await
        .unwrap(),
    );
    assert_eq!(held.state, MessageState::Held);

    // The retention purge takes the step with its event; the key is free again.
    complete(
        s,
        &claimed
            .iter()
            .filter(|c| !c.withhold_answer)
            .map(|c| completion(c, "w1", delivered(c)))
            .collect::<Vec<_>>(),
    )
    .await
    .unwrap();
    super::recovery::act(
        s,
        &live,
        &target.id,
        EndpointAction::Resume,
        T0.plus_seconds(5),
    )
    .await
    .unwrap();
    cancel_message(s, &live, &held.message_id, T0.plus_seconds(6), None)
        .await
        .unwrap();
    assert_eq!(purge_before(s, T0.plus_seconds(60), 10).await.unwrap(), 3);
    assert!(get_step(s, &live, "k1").await.is_none());
    assert!(get_step(s, &live, "k4").await.is_none());
    created(
        create_step(
            s,
            &live,
            &step("k1", "d9", &target.id, "evt_s5", T0.plus_seconds(70)),
        )
        .await
        .unwrap(),
    );
}

pub async fn concurrent_requests_with_one_step_key_make_one_step(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    // Half of them the same request, half another.
    let steps: Vec<NewStep> = (0..8)
        .map(|i| {
            let digest = if i % 2 == 0 { "same" } else { "other" };
            step("k", digest, &e.id, &format!("evt_c{i}"), T0)
        })
        .collect();
    let tasks: Vec<_> = steps.iter().map(|st| create_step(s, &live, st)).collect();
    let results = futures_util::future::join_all(tasks).await;
    let new: Vec<_> = results
        .iter()
        .filter_map(|r| match r {
            Ok(Created::New(step)) => Some(step.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(new.len(), 1, "{results:?}");
    let winner = &new[0];
    for r in &results {
        match r {
            Ok(Created::New(_)) => {}
            Ok(Created::Existing(step)) => assert_eq!(step, winner),
            Err(StoreError::Conflict(KEY_REUSED)) => {}
            other => panic!("{other:?}"),
        }
    }
    let messages = list_messages(s, &live, &MessageFilter::default(), &page(20))
        .await
        .unwrap()
        .data;
    assert_eq!(messages.len(), 1, "one message for the one step");
    assert_eq!(messages[0].id, winner.message_id);
}
