//! Conformance cases for the proof of endpoint ownership
//! (`crate::ownership`): an endpoint that owes it is `unverified` and holds
//! its messages; a proof releases the tenant's endpoints of that origin
//! (never another tenant's); a failure is kept and the next challenge
//! backs off; a move to an origin not proven holds again; resume and
//! enable wait for the proof; two provers never take one endpoint at once.

use relay_core::lifecycle::{EndpointAction, decide};
use relay_core::model::Message;
use relay_core::ownership::Failure;

use super::*;
use crate::ownership::{Due, Status};
use crate::{Commit, ExecutorExt as _};

const ORIGIN: &str = "hooks.example:443";

/// An endpoint of `sc` subscribed to `order.shipped` that owes the proof
/// of `origin` (when given), created at `T0`; its state as created.
async fn owing(s: &dyn Store, sc: &Scope, consumer_id: &str, origin: Option<&str>) -> Endpoint {
    let mut e = endpoint_value(sc, consumer_id, &["order.shipped"]);
    e.verify_ownership = origin.is_some();
    e.ownership_origin = origin.map(str::to_string);
    e.state = create_endpoint(s, sc, &e, &[], LIMITS, None)
        .await
        .expect("create endpoint");
    e
}

async fn take(s: &dyn Store, now: Timestamp) -> Vec<Due> {
    let lease_until = now.plus_millis(120_000);
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { crate::ownership::take_due(&mut x, now, lease_until, 16).await })
    })
    .await
    .expect("take due")
}

async fn record(
    s: &dyn Store,
    due: &Due,
    answer: std::result::Result<(), Failure>,
    now: Timestamp,
) -> Vec<String> {
    let due = due.clone();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { crate::ownership::record(&mut x, &due, &answer, now).await })
    })
    .await
    .expect("record")
}

async fn status(s: &dyn Store, id: &str) -> Status {
    let id = id.to_string();
    s.read(move |mut x| Box::pin(async move { crate::ownership::status(&mut x, &id).await }))
        .await
        .expect("status")
        .expect("the endpoint")
}

async fn state_of(s: &dyn Store, sc: &Scope, id: &str) -> EndpointState {
    get_endpoint(s, sc, id).await.unwrap().unwrap().state
}

/// The states of the endpoint's messages, oldest first.
async fn message_states(s: &dyn Store, sc: &Scope, endpoint_id: &str) -> Vec<MessageState> {
    let filter = MessageFilter {
        endpoint_id: Some(endpoint_id.into()),
        ..Default::default()
    };
    let mut got: Vec<Message> = list_messages(s, sc, &filter, &page(100))
        .await
        .unwrap()
        .data;
    got.sort_by(|a, b| a.id.cmp(&b.id));
    got.into_iter().map(|m| m.state).collect()
}

pub async fn an_endpoint_owing_the_proof_holds_its_messages_until_its_receiver_proves_it(
    s: &dyn Store,
) {
    let a = tenant(s, "a").await;
    let live = scope(&a, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e1 = owing(s, &live, &c.id, Some(ORIGIN)).await;
    assert_eq!(e1.state, EndpointState::Unverified);
    let e2 = owing(s, &live, &c.id, Some(ORIGIN)).await;
    let free = owing(s, &live, &c.id, None).await;
    assert_eq!(free.state, EndpointState::Active, "no proof owed");
    // Another tenant's endpoint at the same origin owes its own proof.
    let b = tenant(s, "b").await;
    let b_live = scope(&b, Environment::Live);
    let bc = consumer(s, &b_live, "c").await;
    let other = owing(s, &b_live, &bc.id, Some(ORIGIN)).await;

    for (i, sc) in [(1, &live), (2, &b_live)] {
        s.publish(sc, new_event(&format!("evt_{i}"), "order.shipped", None))
            .await
            .expect("publish");
    }
    assert_eq!(message_states(s, &live, &e1.id).await, [MessageState::Held]);
    assert_eq!(message_states(s, &live, &e2.id).await, [MessageState::Held]);
    assert_eq!(
        message_states(s, &live, &free.id).await,
        [MessageState::Scheduled]
    );

    // Due from creation; a second prover finds nothing while it is taken.
    let now = T0.plus_millis(1_000);
    let taken = take(s, now).await;
    let mut ids: Vec<&str> = taken.iter().map(|d| d.endpoint_id.as_str()).collect();
    ids.sort();
    let mut want = vec![e1.id.as_str(), e2.id.as_str(), other.id.as_str()];
    want.sort();
    assert_eq!(ids, want);
    assert!(take(s, now).await.is_empty(), "taken once");
    let due1 = taken.iter().find(|d| d.endpoint_id == e1.id).unwrap();
    assert_eq!(due1.origin, ORIGIN);
    assert_eq!(due1.scope, live);

    // A failure is kept, the next challenge a minute later; still held.
    let failure = Failure::new("no_echo", "the answer's body is not the challenge");
    let released = record(s, due1, Err(failure.clone()), now).await;
    assert!(released.is_empty());
    let st = status(s, &e1.id).await;
    assert_eq!(st.failure, Some(failure));
    assert_eq!((st.checks, st.checked_at), (1, Some(now)));
    assert_eq!(st.next_check_at, Some(now.plus_millis(60_000)));
    assert_eq!(st.proven_at, None);
    assert_eq!(state_of(s, &live, &e1.id).await, EndpointState::Unverified);
    assert_eq!(message_states(s, &live, &e1.id).await, [MessageState::Held]);

    // A proof releases every endpoint of the tenant with that origin, and
    // no other tenant's.
    let later = now.plus_millis(5_000);
    let mut released = record(s, due1, Ok(()), later).await;
    released.sort();
    let mut want = vec![e1.id.clone(), e2.id.clone()];
    want.sort();
    assert_eq!(released, want);
    for id in [&e1.id, &e2.id] {
        assert_eq!(state_of(s, &live, id).await, EndpointState::Active);
        assert_eq!(
            message_states(s, &live, id).await,
            [MessageState::Scheduled]
        );
    }
    let st = status(s, &e1.id).await;
    assert_eq!(
        (st.proven_at, st.failure, st.next_check_at),
        (Some(later), None, None)
    );
    assert_eq!(
        state_of(s, &b_live, &other.id).await,
        EndpointState::Unverified
    );
    assert_eq!(
        message_states(s, &b_live, &other.id).await,
        [MessageState::Held]
    );
    assert_eq!(status(s, &other.id).await.proven_at, None);

    // A new endpoint of the tenant at a proven origin is active at once.
    let e3 = owing(s, &live, &c.id, Some(ORIGIN)).await;
    assert_eq!(e3.state, EndpointState::Active);
    // Relay's own release is audited with the system as actor.
    let entries = list_audit(s, &live, &page(100)).await.unwrap().data;
    assert!(
        entries
            .iter()
            .any(|a| a.target == e1.id && a.actor == "system" && a.action == "endpoint.active"),
        "{entries:?}"
    );
}

pub async fn a_move_to_an_origin_not_proven_holds_and_resume_or_enable_wait_for_the_proof(
    s: &dyn Store,
) {
    let a = tenant(s, "a").await;
    let live = scope(&a, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = owing(s, &live, &c.id, None).await;
    s.publish(&live, new_event("evt_1", "order.shipped", None))
        .await
        .expect("publish");
    assert_eq!(
        message_states(s, &live, &e.id).await,
        [MessageState::Scheduled]
    );

    // The tenant points it at a host whose receiver has proven nothing.
    let mut moved = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    moved.verify_ownership = true;
    moved.ownership_origin = Some("victim.example:443".into());
    let now = T0.plus_millis(2_000);
    moved.updated_at = now;
    let state = update_endpoint(s, &live, &moved, &[]).await.unwrap();
    assert_eq!(state, EndpointState::Unverified);
    assert_eq!(message_states(s, &live, &e.id).await, [MessageState::Held]);
    let st = status(s, &e.id).await;
    assert_eq!(
        st.next_check_at,
        Some(now),
        "its first challenge is due at once"
    );

    // Pause and resume: it comes back unverified, its messages held.
    let act = |from, action| decide(from, action).unwrap();
    let paused = change_endpoint_state(
        s,
        &live,
        &e.id,
        &act(EndpointState::Unverified, EndpointAction::Pause),
        &audit("endpoint.paused", &e.id, now),
    )
    .await
    .unwrap();
    assert_eq!(paused.state, EndpointState::Paused);
    let resumed = change_endpoint_state(
        s,
        &live,
        &e.id,
        &act(EndpointState::Paused, EndpointAction::Resume),
        &audit("endpoint.resumed", &e.id, now),
    )
    .await
    .unwrap();
    assert_eq!(resumed.state, EndpointState::Unverified);
    assert_eq!(message_states(s, &live, &e.id).await, [MessageState::Held]);
    // Disable and enable: the same.
    change_endpoint_state(
        s,
        &live,
        &e.id,
        &act(EndpointState::Unverified, EndpointAction::Disable),
        &audit("endpoint.disabled", &e.id, now),
    )
    .await
    .unwrap();
    let enabled = change_endpoint_state(
        s,
        &live,
        &e.id,
        &act(EndpointState::Disabled, EndpointAction::Enable),
        &audit("endpoint.enabled", &e.id, now),
    )
    .await
    .unwrap();
    assert_eq!(enabled.state, EndpointState::Unverified);

    // Back to owing nothing: active, its messages released.
    let mut back = enabled.clone();
    back.verify_ownership = false;
    back.ownership_origin = None;
    let state = update_endpoint(s, &live, &back, &[]).await.unwrap();
    assert_eq!(state, EndpointState::Active);
    assert_eq!(
        message_states(s, &live, &e.id).await,
        [MessageState::Scheduled]
    );
}
