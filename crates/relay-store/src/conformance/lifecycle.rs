//! Conformance cases of the endpoint lifecycle (`crate::lifecycle`): the
//! conditional state change, and where a message lands while its endpoint
//! is paused or disabled.

use relay_core::lifecycle::{EndpointAction, decide};
use relay_core::model::{EndpointState, MessageState};
use relay_core::transition::Progress;

use super::{
    T0, act, audit, change_endpoint_state, claim_due, complete, completion, delete_endpoint,
    delivery_fixture, get_endpoint, lease_for_manual_attempt, list_audit, list_messages, new_event,
    page, release_claims, rescue_expired_leases, scope, tenant,
};
use crate::{MessageFilter, Store, StoreError};

pub async fn an_endpoint_change_applies_only_from_the_state_it_was_decided_from(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    let pause = decide(EndpointState::Active, EndpointAction::Pause).unwrap();
    // Decided from `active` too, but applied after the pause committed: a
    // lost race.
    let stale = decide(EndpointState::Active, EndpointAction::Disable).unwrap();
    let paused = change_endpoint_state(
        s,
        &live,
        &e.id,
        &pause,
        &audit("endpoint.paused", &e.id, T0),
    )
    .await
    .unwrap();
    assert_eq!(paused.state, EndpointState::Paused);
    for change in [&stale, &pause] {
        assert!(
            matches!(
                change_endpoint_state(s, &live, &e.id, change, &audit("x", &e.id, T0)).await,
                Err(StoreError::Conflict("endpoint_state_changed"))
            ),
            "{change:?}"
        );
    }
    // Nothing of the refused changes was written.
    let now = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    assert_eq!(
        (now.state, now.disabled_reason),
        (EndpointState::Paused, None)
    );
    let log = list_audit(s, &live, &page(10)).await.unwrap();
    assert_eq!(log.data.len(), 1, "only the pause is audited");
    assert_eq!(log.data[0].parameters["from"], "active");
    assert_eq!(log.data[0].parameters["to"], "paused");
    // Another tenant's endpoint is not found, whatever the change.
    let other = tenant(s, "b").await;
    assert!(matches!(
        change_endpoint_state(
            s,
            &scope(&other, relay_core::model::Environment::Live),
            &e.id,
            &decide(EndpointState::Paused, EndpointAction::Resume).unwrap(),
            &audit("x", &e.id, T0)
        )
        .await,
        Err(StoreError::NotFound)
    ));
    // Decided from the state as it is now, it applies.
    let disabled = change_endpoint_state(
        s,
        &live,
        &e.id,
        &decide(EndpointState::Paused, EndpointAction::Disable).unwrap(),
        &audit("endpoint.disabled", &e.id, T0),
    )
    .await
    .unwrap();
    assert_eq!(
        (disabled.state, disabled.disabled_reason.as_deref()),
        (EndpointState::Disabled, Some("disabled_by_tenant"))
    );
}

/// Three endpoints (active, paused, disabled), each with three messages
/// leased before the change: one completes with a retry due, one is given
/// back, one's lease expires and is rescued. Only the active endpoint's
/// become `scheduled`; the others' are `held`. Resume releases the paused
/// endpoint's; enable leaves the disabled endpoint's held (missed).
pub async fn completions_rescues_and_releases_land_held_while_paused_or_disabled(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 3).await;
    for id in ["evt_2", "evt_3"] {
        s.publish(&live, new_event(id, "order.shipped", None))
            .await
            .unwrap();
    }
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 20, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 9);
    act(s, &live, &endpoints[1].id, EndpointAction::Pause, T0)
        .await
        .unwrap();
    act(s, &live, &endpoints[2].id, EndpointAction::Disable, T0)
        .await
        .unwrap();
    let of = |e: usize, evt: &str| {
        claimed
            .iter()
            .find(|c| c.endpoint.id == endpoints[e].id && c.event.id == evt)
            .unwrap()
    };
    // The attempt that was on the wire finishes with a retry due.
    let retries: Vec<_> = (0..3)
        .map(|e| {
            let c = of(e, "evt_d");
            completion(
                c,
                "w",
                Progress {
                    state: MessageState::Scheduled,
                    attempts_used: 1,
                    next_attempt_at: Some(T0.plus_seconds(5)),
                    last_error_code: Some("http_503".into()),
                    ..c.progress()
                },
            )
        })
        .collect();
    assert_eq!(complete(s, &retries).await.unwrap().applied, vec![true; 3]);
    // Given back unattempted.
    let given: Vec<String> = (0..3).map(|e| of(e, "evt_2").message.id.clone()).collect();
    assert_eq!(
        release_claims(s, "w", &given, T0.plus_seconds(1))
            .await
            .unwrap(),
        3
    );
    // Lost with its process: rescued.
    assert_eq!(
        rescue_expired_leases(s, T0.plus_seconds(31)).await.unwrap(),
        3
    );
    assert_eq!(
        states(s, &live, &endpoints[0].id).await,
        vec![MessageState::Scheduled; 3]
    );
    assert_eq!(
        states(s, &live, &endpoints[1].id).await,
        vec![MessageState::Held; 3],
        "paused"
    );
    assert_eq!(
        states(s, &live, &endpoints[2].id).await,
        vec![MessageState::Held; 3],
        "disabled"
    );
    // Nothing of the held ones is claimed.
    let due = claim_due(s, "w2", T0.plus_seconds(60), T0.plus_seconds(90), 20, &[])
        .await
        .unwrap();
    assert!(due.iter().all(|c| c.endpoint.id == endpoints[0].id));
    assert_eq!(due.len(), 3);
    act(
        s,
        &live,
        &endpoints[1].id,
        EndpointAction::Resume,
        T0.plus_seconds(61),
    )
    .await
    .unwrap();
    act(
        s,
        &live,
        &endpoints[2].id,
        EndpointAction::Enable,
        T0.plus_seconds(61),
    )
    .await
    .unwrap();
    assert_eq!(
        states(s, &live, &endpoints[1].id).await,
        vec![MessageState::Scheduled; 3],
        "resumed"
    );
    assert_eq!(
        states(s, &live, &endpoints[2].id).await,
        vec![MessageState::Held; 3],
        "enabled: held until recovered"
    );
}

async fn states(s: &dyn Store, scope: &crate::Scope, endpoint_id: &str) -> Vec<MessageState> {
    let listed = super::messages_of(s, scope, endpoint_id).await;
    listed.into_iter().map(|m| m.state).collect()
}

/// A manual resend has nothing to attempt once the event's TTL has passed
/// or the endpoint is deleted: refused, and no lease is taken.
pub async fn a_manual_lease_refuses_expired_events_and_deleted_endpoints(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 2).await;
    s.publish(
        &live,
        crate::NewEvent {
            expires_at: Some(T0.plus_seconds(10)),
            ..new_event("evt_ttl", "order.shipped", None)
        },
    )
    .await
    .unwrap();
    let message_of = |e: usize, evt: &'static str| {
        let id = endpoints[e].id.clone();
        let live = live.clone();
        async move {
            list_messages(
                s,
                &live,
                &MessageFilter {
                    endpoint_id: Some(id),
                    event_id: Some(evt.into()),
                    ..Default::default()
                },
                &page(10),
            )
            .await
            .unwrap()
            .data
            .remove(0)
        }
    };
    let expiring = message_of(0, "evt_ttl").await;
    assert!(matches!(
        lease_for_manual_attempt(
            s,
            &live,
            &expiring.id,
            "api",
            T0.plus_seconds(10),
            T0.plus_seconds(40)
        )
        .await,
        Err(StoreError::Conflict("event_expired"))
    ));
    // No lease was taken: before its expiry it can still be leased.
    let before = lease_for_manual_attempt(
        s,
        &live,
        &expiring.id,
        "api",
        T0.plus_seconds(9),
        T0.plus_seconds(39),
    )
    .await
    .unwrap();
    assert!(before.is_some(), "the refused resend held no lease");
    let kept = message_of(1, "evt_d").await;
    delete_endpoint(s, &live, &endpoints[1].id, T0.plus_seconds(1), None)
        .await
        .unwrap();
    assert!(matches!(
        lease_for_manual_attempt(
            s,
            &live,
            &kept.id,
            "api",
            T0.plus_seconds(2),
            T0.plus_seconds(32)
        )
        .await,
        Err(StoreError::Conflict("endpoint_deleted"))
    ));
}
