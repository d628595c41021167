//! Conformance cases for what a tenant does after the fact: key rotation, pause and
//! resume, cancel, recover, manual attempts (replay, purge and bulk retry: `bulk`).

use super::*;

/// Applies a tenant's action to an endpoint (`Store::change_endpoint_state`).
pub(crate) async fn act(
    s: &dyn Store,
    scope: &Scope,
    endpoint_id: &str,
    action: EndpointAction,
    at: Timestamp,
) -> crate::Result<Endpoint> {
    let from = match get_endpoint(s, scope, endpoint_id).await? {
        Some(e) => e.state,
        None => EndpointState::Active,
    };
    let change = relay_core::lifecycle::decide(from, action)
        .map_err(|_| crate::StoreError::Conflict("illegal_transition"))?;
    change_endpoint_state(
        s,
        scope,
        endpoint_id,
        &change,
        &audit(action.as_str(), endpoint_id, at),
    )
    .await
}

pub(crate) fn audit(action: &str, target: &str, at: Timestamp) -> crate::AuditEntry {
    crate::AuditEntry {
        id: new_id(IdKind::Audit, at),
        actor: "key_1".into(),
        action: action.into(),
        target: target.into(),
        parameters: json!({"overlap_hours": 24}),
        at,
    }
}

pub async fn key_rotation_retires_old_keys_and_is_audited(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint_value(&live, &c.id, &["order.shipped"]);
    let rec = |id: &str, scheme, at: Timestamp| EndpointKeyRecord {
        id: id.into(),
        endpoint_id: e.id.clone(),
        scheme,
        public_key: None,
        sealed_secret: format!("rk1:{id}"),
        created_at: at,
        retires_at: None,
    };
    create_endpoint(
        s,
        &live,
        &e,
        &[rec("whk_1", SignatureScheme::V1a, T0)],
        LIMITS,
        None,
    )
    .await
    .unwrap();
    let t1 = T0.plus_seconds(10);
    let keys = rotate_endpoint_key(
        s,
        &live,
        &e.id,
        &rec("whk_2", SignatureScheme::V1, t1),
        t1.plus_seconds(3600),
        &audit("endpoint.key_rotated", &e.id, t1),
    )
    .await
    .unwrap();
    assert_eq!(
        keys.iter()
            .map(|k| (k.id.as_str(), k.retires_at))
            .collect::<Vec<_>>(),
        vec![("whk_2", None), ("whk_1", Some(t1.plus_seconds(3600)))]
    );
    let ep = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    assert_eq!(
        ep.signature_scheme,
        SignatureScheme::V1,
        "switching schemes goes through rotation"
    );
    assert_eq!(ep.updated_at, t1);
    // A second rotation inside the overlap never extends an earlier retirement.
    let t2 = t1.plus_seconds(60);
    let keys = rotate_endpoint_key(
        s,
        &live,
        &e.id,
        &rec("whk_3", SignatureScheme::V1, t2),
        t2.plus_seconds(7200),
        &audit("endpoint.key_rotated", &e.id, t2),
    )
    .await
    .unwrap();
    assert_eq!(
        keys.iter()
            .map(|k| (k.id.as_str(), k.retires_at))
            .collect::<Vec<_>>(),
        vec![
            ("whk_3", None),
            ("whk_2", Some(t2.plus_seconds(7200))),
            ("whk_1", Some(t1.plus_seconds(3600)))
        ]
    );
    // Another scope cannot rotate it.
    let other = tenant(s, "b").await;
    assert!(matches!(
        rotate_endpoint_key(
            s,
            &scope(&other, Environment::Live),
            &e.id,
            &rec("whk_4", SignatureScheme::V1, t2),
            t2,
            &audit("endpoint.key_rotated", &e.id, t2),
        )
        .await,
        Err(StoreError::NotFound)
    ));
    assert_eq!(endpoint_keys(s, &e.id).await.unwrap().len(), 3);
    let log = list_audit(s, &live, &page(10)).await.unwrap();
    assert_eq!(log.data.len(), 2);
    assert_eq!(log.data[0].action, "endpoint.key_rotated");
    assert_eq!(log.data[0].parameters, json!({"overlap_hours": 24}));
    assert!(
        list_audit(s, &scope(&other, Environment::Live), &page(10))
            .await
            .unwrap()
            .data
            .is_empty()
    );
    delete_endpoint(
        s,
        &live,
        &e.id,
        t2,
        Some(&audit("endpoint.deleted", &e.id, t2)),
    )
    .await
    .unwrap();
    let first = list_audit(s, &live, &page(2)).await.unwrap();
    let rest = list_audit(
        s,
        &live,
        &PageRequest {
            after: first.next_after.clone(),
            limit: 2,
        },
    )
    .await
    .unwrap();
    assert_eq!((first.data.len(), rest.data.len()), (2, 1));
}

pub async fn pausing_holds_and_resuming_releases_in_due_order(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    let later = new_event("evt_later", "order.shipped", None);
    s.publish(
        &live,
        NewEvent {
            now: T0.plus_seconds(5),
            ..later
        },
    )
    .await
    .unwrap();
    let paused = act(s, &live, &e.id, EndpointAction::Pause, T0)
        .await
        .unwrap();
    assert_eq!(paused.state, EndpointState::Paused);
    let msgs = list_messages(s, &live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    assert!(msgs.data.iter().all(|m| m.state == MessageState::Held));
    assert!(
        claim_due(s, "w", T0.plus_seconds(60), T0.plus_seconds(90), 10, &[])
            .await
            .unwrap()
            .is_empty()
    );
    // Publishing while paused accumulates, nothing is discarded.
    s.publish(
        &live,
        NewEvent {
            now: T0.plus_seconds(6),
            ..new_event("evt_paused", "order.shipped", None)
        },
    )
    .await
    .unwrap();
    let resumed = act(s, &live, &e.id, EndpointAction::Resume, T0.plus_seconds(60))
        .await
        .unwrap();
    assert_eq!(resumed.state, EndpointState::Active);
    let claimed = claim_due(s, "w", T0.plus_seconds(60), T0.plus_seconds(90), 10, &[])
        .await
        .unwrap();
    let order: Vec<&str> = claimed.iter().map(|c| c.event.id.as_str()).collect();
    assert_eq!(
        order,
        vec!["evt_d", "evt_later", "evt_paused"],
        "drained in order of due time"
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        act(
            s,
            &scope(&other, Environment::Live),
            &e.id,
            EndpointAction::Pause,
            T0
        )
        .await,
        Err(StoreError::NotFound)
    ));
    let log = list_audit(s, &live, &page(10)).await.unwrap();
    assert_eq!(log.data.len(), 2);
}

pub async fn cancelling_ends_pending_attempts_and_beats_a_late_completion(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let msgs = list_messages(s, &live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    let (a, b) = (&msgs.data[0], &msgs.data[1]);
    let cancelled = cancel_message(s, &live, &a.id, T0, None).await.unwrap();
    assert_eq!(cancelled.state, MessageState::Cancelled);
    assert_eq!(cancelled.terminal_reason.as_deref(), Some("cancelled"));
    assert!(matches!(
        cancel_message(s, &live, &a.id, T0, None).await,
        Err(StoreError::Conflict(_))
    ));
    // In flight: the attempt's completion can no longer change it.
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].message.id, b.id);
    cancel_message(s, &live, &b.id, T0, None).await.unwrap();
    assert_eq!(
        complete(s, &[completion(&claimed[0], "w", delivered(&claimed[0]))])
            .await
            .unwrap()
            .applied,
        vec![false]
    );
    assert_eq!(
        get_message(s, &live, &b.id).await.unwrap().unwrap().state,
        MessageState::Cancelled
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        cancel_message(s, &scope(&other, Environment::Live), &b.id, T0, None).await,
        Err(StoreError::NotFound)
    ));
}

pub async fn recover_restarts_failed_and_unattempted_messages_in_range(s: &dyn Store) {
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
            terminal_reason: Some("attempts_exhausted".into()),
            ..claimed[0].progress()
        },
    );
    failed.attempt = None;
    complete(s, &[failed]).await.unwrap();
    act(s, &live, &e.id, EndpointAction::Disable, T0)
        .await
        .unwrap();
    // Produced while disabled: recorded (held), not attempted.
    s.publish(
        &live,
        NewEvent {
            now: T0.plus_seconds(10),
            ..new_event("evt_off", "order.shipped", None)
        },
    )
    .await
    .unwrap();
    s.publish(
        &live,
        NewEvent {
            now: T0.plus_seconds(500),
            ..new_event("evt_late", "order.shipped", None)
        },
    )
    .await
    .unwrap();
    let missed = list_messages(
        s,
        &live,
        &MessageFilter {
            endpoint_id: Some(e.id.clone()),
            states: Some(vec![MessageState::Exhausted, MessageState::Held]),
            ..Default::default()
        },
        &page(10),
    )
    .await
    .unwrap();
    assert_eq!(missed.data.len(), 3);
    assert!(matches!(
        crate::recovery::recover(
            s,
            &live,
            &e.id,
            T0,
            T0.plus_seconds(100),
            &audit("endpoint.recovered", &e.id, T0)
        )
        .await,
        Err(StoreError::Conflict("endpoint_not_active"))
    ));
    act(
        s,
        &live,
        &e.id,
        EndpointAction::Enable,
        T0.plus_seconds(600),
    )
    .await
    .unwrap();
    // Enabling releases nothing (no flood): what was held stays held, missed.
    let held = list_messages(
        s,
        &live,
        &MessageFilter {
            states: Some(vec![MessageState::Held]),
            ..Default::default()
        },
        &page(10),
    )
    .await
    .unwrap();
    assert_eq!(held.data.len(), 2, "held until recovered");
    // Recover restarts the exhausted and the held one in range, as recovery traffic.
    let n = crate::recovery::recover(
        s,
        &live,
        &e.id,
        T0,
        T0.plus_seconds(100),
        &audit("endpoint.recovered", &e.id, T0.plus_seconds(700)),
    )
    .await
    .unwrap();
    assert_eq!(n.requeued, 2);
    let all = list_messages(s, &live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    for m in &all.data {
        let want = if m.event_id == "evt_late" {
            MessageState::Held
        } else {
            MessageState::Scheduled
        };
        assert_eq!(m.state, want, "{m:?}");
    }
    let restarted = all.data.iter().find(|m| m.event_id == "evt_d").unwrap();
    assert_eq!(
        (restarted.attempts_used, restarted.terminal_reason.clone()),
        (0, None)
    );
    assert_eq!(restarted.next_attempt_at, Some(T0.plus_seconds(700)));
}

pub async fn a_manual_lease_excludes_automatic_attempts_and_vice_versa(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 1).await;
    let id = list_messages(s, &live, &MessageFilter::default(), &page(10))
        .await
        .unwrap()
        .data[0]
        .id
        .clone();
    let manual = lease_for_manual_attempt(s, &live, &id, "api", T0, T0.plus_seconds(30))
        .await
        .unwrap()
        .expect("free to lease");
    assert_eq!(
        manual.message.state,
        MessageState::Scheduled,
        "a manual lease keeps the state"
    );
    assert!(
        claim_due(s, "w", T0, T0.plus_seconds(30), 10, &[])
            .await
            .unwrap()
            .is_empty(),
        "automatic claims skip it"
    );
    assert!(
        lease_for_manual_attempt(s, &live, &id, "api2", T0, T0.plus_seconds(30))
            .await
            .unwrap()
            .is_none()
    );
    // A failed manual attempt leaves the schedule as it was and frees the message.
    let mut done = completion(&manual, "api", manual.progress());
    done.manual = true;
    assert_eq!(complete(s, &[done]).await.unwrap().applied, vec![true]);
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert!(
        lease_for_manual_attempt(s, &live, &id, "api", T0, T0.plus_seconds(30))
            .await
            .unwrap()
            .is_none(),
        "not while in flight"
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        lease_for_manual_attempt(s, &scope(&other, Environment::Live), &id, "api", T0, T0).await,
        Err(StoreError::NotFound)
    ));
}
