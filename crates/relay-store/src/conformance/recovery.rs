//! Conformance cases for what a tenant does after the fact: key rotation, pause and
//! resume, cancel, recover, manual attempts, replay, purge, bulk retry.

use super::*;

/// Applies a tenant's action to an endpoint (`Store::change_endpoint_state`).
pub(crate) async fn act(
    s: &dyn Store,
    scope: &Scope,
    endpoint_id: &str,
    action: EndpointAction,
    at: Timestamp,
) -> crate::Result<Endpoint> {
    let from = match s.get_endpoint(scope, endpoint_id).await? {
        Some(e) => e.state,
        None => EndpointState::Active,
    };
    let change = relay_core::lifecycle::decide(from, action)
        .map_err(|_| crate::StoreError::Conflict("illegal_transition"))?;
    s.change_endpoint_state(
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
    s.create_endpoint(
        &live,
        &e,
        &[rec("whk_1", SignatureScheme::V1a, T0)],
        LIMITS,
        None,
    )
    .await
    .unwrap();
    let t1 = T0.plus_seconds(10);
    let keys = s
        .rotate_endpoint_key(
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
    let ep = s.get_endpoint(&live, &e.id).await.unwrap().unwrap();
    assert_eq!(
        ep.signature_scheme,
        SignatureScheme::V1,
        "switching schemes goes through rotation"
    );
    assert_eq!(ep.updated_at, t1);
    // A second rotation inside the overlap never extends an earlier retirement.
    let t2 = t1.plus_seconds(60);
    let keys = s
        .rotate_endpoint_key(
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
        s.rotate_endpoint_key(
            &scope(&other, Environment::Live),
            &e.id,
            &rec("whk_4", SignatureScheme::V1, t2),
            t2,
            &audit("endpoint.key_rotated", &e.id, t2),
        )
        .await,
        Err(StoreError::NotFound)
    ));
    assert_eq!(s.endpoint_keys(&e.id).await.unwrap().len(), 3);
    let log = s.list_audit(&live, &page(10)).await.unwrap();
    assert_eq!(log.data.len(), 2);
    assert_eq!(log.data[0].action, "endpoint.key_rotated");
    assert_eq!(log.data[0].parameters, json!({"overlap_hours": 24}));
    assert!(
        s.list_audit(&scope(&other, Environment::Live), &page(10))
            .await
            .unwrap()
            .data
            .is_empty()
    );
    s.delete_endpoint(
        &live,
        &e.id,
        t2,
        Some(&audit("endpoint.deleted", &e.id, t2)),
    )
    .await
    .unwrap();
    let first = s.list_audit(&live, &page(2)).await.unwrap();
    let rest = s
        .list_audit(
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
    let msgs = s
        .list_messages(&live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    assert!(msgs.data.iter().all(|m| m.state == MessageState::Held));
    assert!(
        s.claim_due("w", T0.plus_seconds(60), T0.plus_seconds(90), 10, &[])
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
    let claimed = s
        .claim_due("w", T0.plus_seconds(60), T0.plus_seconds(90), 10, &[])
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
    let log = s.list_audit(&live, &page(10)).await.unwrap();
    assert_eq!(log.data.len(), 2);
}

pub async fn cancelling_ends_pending_attempts_and_beats_a_late_completion(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let msgs = s
        .list_messages(&live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    let (a, b) = (&msgs.data[0], &msgs.data[1]);
    let cancelled = s.cancel_message(&live, &a.id, T0, None).await.unwrap();
    assert_eq!(cancelled.state, MessageState::Cancelled);
    assert_eq!(cancelled.terminal_reason.as_deref(), Some("cancelled"));
    assert!(matches!(
        s.cancel_message(&live, &a.id, T0, None).await,
        Err(StoreError::Conflict(_))
    ));
    // In flight: the attempt's completion can no longer change it.
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].message.id, b.id);
    s.cancel_message(&live, &b.id, T0, None).await.unwrap();
    assert_eq!(
        s.complete(&[completion(&claimed[0], "w", delivered(&claimed[0]))])
            .await
            .unwrap()
            .applied,
        vec![false]
    );
    assert_eq!(
        s.get_message(&live, &b.id).await.unwrap().unwrap().state,
        MessageState::Cancelled
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        s.cancel_message(&scope(&other, Environment::Live), &b.id, T0, None)
            .await,
        Err(StoreError::NotFound)
    ));
}

pub async fn recover_restarts_failed_and_unattempted_messages_in_range(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
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
    s.complete(&[failed]).await.unwrap();
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
    let missed = s
        .list_messages(
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
        s.recover(
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
    let held = s
        .list_messages(
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
    let n = s
        .recover(
            &live,
            &e.id,
            T0,
            T0.plus_seconds(100),
            &audit("endpoint.recovered", &e.id, T0.plus_seconds(700)),
        )
        .await
        .unwrap();
    assert_eq!(n, 2);
    let all = s
        .list_messages(&live, &MessageFilter::default(), &page(10))
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
    let id = s
        .list_messages(&live, &MessageFilter::default(), &page(10))
        .await
        .unwrap()
        .data[0]
        .id
        .clone();
    let manual = s
        .lease_for_manual_attempt(&live, &id, "api", T0, T0.plus_seconds(30))
        .await
        .unwrap()
        .expect("free to lease");
    assert_eq!(
        manual.message.state,
        MessageState::Scheduled,
        "a manual lease keeps the state"
    );
    assert!(
        s.claim_due("w", T0, T0.plus_seconds(30), 10, &[])
            .await
            .unwrap()
            .is_empty(),
        "automatic claims skip it"
    );
    assert!(
        s.lease_for_manual_attempt(&live, &id, "api2", T0, T0.plus_seconds(30))
            .await
            .unwrap()
            .is_none()
    );
    // A failed manual attempt leaves the schedule as it was and frees the message.
    let mut done = completion(&manual, "api", manual.progress());
    done.manual = true;
    assert_eq!(s.complete(&[done]).await.unwrap().applied, vec![true]);
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert!(
        s.lease_for_manual_attempt(&live, &id, "api", T0, T0.plus_seconds(30))
            .await
            .unwrap()
            .is_none(),
        "not while in flight"
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        s.lease_for_manual_attempt(&scope(&other, Environment::Live), &id, "api", T0, T0)
            .await,
        Err(StoreError::NotFound)
    ));
}

pub async fn replay_delivers_retained_events_to_an_endpoint_once(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let other_c = consumer(s, &live, "other").await;
    for (i, (ty, at)) in [
        ("order.shipped", 0),
        ("order.created", 1),
        ("order.shipped", 2),
        ("order.shipped", 100),
    ]
    .into_iter()
    .enumerate()
    {
        let ev = NewEvent {
            now: T0.plus_seconds(at),
            ..new_event(&format!("evt_{i}"), ty, None)
        };
        s.publish(&live, ev).await.unwrap();
    }
    // An event meant for another consumer is never replayed to this one.
    let mut theirs = new_event("evt_theirs", "order.shipped", None);
    theirs.consumer_id = Some(other_c.id.clone());
    s.publish(&live, theirs).await.unwrap();
    // A new endpoint, added later.
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let n = s
        .replay(
            &live,
            &e.id,
            T0,
            T0.plus_seconds(50),
            None,
            &audit("endpoint.replayed", &e.id, T0.plus_seconds(200)),
        )
        .await
        .unwrap();
    assert_eq!(n, 2, "order.shipped within the range: evt_0 and evt_2");
    let mut ids: Vec<String> = s
        .list_messages(
            &live,
            &MessageFilter {
                endpoint_id: Some(e.id.clone()),
                ..Default::default()
            },
            &page(10),
        )
        .await
        .unwrap()
        .data
        .into_iter()
        .map(|m| m.event_id)
        .collect();
    ids.sort();
    assert_eq!(ids, vec!["evt_0", "evt_2"], "each event keeps its id");
    // Replaying again creates nothing: (endpoint_id, event_id) is unique.
    let again = s
        .replay(
            &live,
            &e.id,
            T0,
            T0.plus_seconds(500),
            None,
            &audit("endpoint.replayed", &e.id, T0.plus_seconds(201)),
        )
        .await
        .unwrap();
    assert_eq!(again, 1, "only evt_3 was still missing");
    let types = ["order.created".to_string()];
    let none = s
        .replay(
            &live,
            &e.id,
            T0,
            T0.plus_seconds(500),
            Some(&types),
            &audit("endpoint.replayed", &e.id, T0.plus_seconds(202)),
        )
        .await
        .unwrap();
    assert_eq!(
        none, 0,
        "types the endpoint does not subscribe to are not replayed"
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        s.replay(
            &scope(&other, Environment::Live),
            &e.id,
            T0,
            T0.plus_seconds(500),
            None,
            &audit("x", &e.id, T0)
        )
        .await,
        Err(StoreError::NotFound)
    ));
}

pub async fn purge_removes_old_events_with_their_messages_in_batches(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    s.complete(
        &claimed
            .iter()
            .map(|c| completion(c, "w", delivered(c)))
            .collect::<Vec<_>>(),
    )
    .await
    .unwrap();
    for i in 0..3 {
        let ev = NewEvent {
            now: T0.plus_seconds(10 + i),
            ..new_event(&format!("evt_old{i}"), "order.shipped", None)
        };
        s.publish(&live, ev).await.unwrap();
        // Ended: the purge keeps an event while a message of it is live.
        let messages = s
            .list_messages(
                &live,
                &MessageFilter {
                    event_id: Some(format!("evt_old{i}")),
                    ..Default::default()
                },
                &page(10),
            )
            .await
            .unwrap();
        for m in messages.data {
            s.cancel_message(&live, &m.id, T0, None).await.unwrap();
        }
    }
    let fresh = NewEvent {
        now: T0.plus_seconds(1000),
        ..new_event("evt_fresh", "order.shipped", None)
    };
    s.publish(&live, fresh).await.unwrap();
    let cutoff = T0.plus_seconds(500);
    assert_eq!(s.purge_before(cutoff, 2).await.unwrap(), 2);
    assert_eq!(s.purge_before(cutoff, 2).await.unwrap(), 2);
    assert_eq!(s.purge_before(cutoff, 2).await.unwrap(), 0);
    assert!(s.get_event(&live, "evt_d").await.unwrap().is_none());
    assert!(s.get_event(&live, "evt_fresh").await.unwrap().is_some());
    let left = s
        .list_messages(&live, &MessageFilter::default(), &page(50))
        .await
        .unwrap();
    assert!(
        left.data.iter().all(|m| m.event_id == "evt_fresh"),
        "{:?}",
        left.data
    );
    assert!(
        s.list_attempts(&live, &claimed[0].message.id)
            .await
            .unwrap()
            .is_empty()
    );
}

pub async fn bulk_retry_jobs_advance_by_cursor_and_resume_after_a_lost_worker(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 3).await;
    for i in 0..4 {
        s.publish(
            &live,
            new_event(&format!("evt_more{i}"), "order.shipped", None),
        )
        .await
        .unwrap();
    }
    // Exhaust everything, then delete one endpoint: its messages must not come back.
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 100, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 15);
    let failed: Vec<Completion> = claimed
        .iter()
        .map(|c| {
            let mut done = completion(
                c,
                "w",
                Progress {
                    state: MessageState::Exhausted,
                    attempts_used: 10,
                    next_attempt_at: None,
                    last_error_code: Some("http_503".into()),
                    terminal_reason: Some("attempts_exhausted".into()),
                    ..c.progress()
                },
            );
            done.attempt = None;
            done
        })
        .collect();
    s.complete(&failed).await.unwrap();
    s.delete_endpoint(&live, &endpoints[2].id, T0, None)
        .await
        .unwrap();
    let job = crate::Job {
        id: new_id(IdKind::Job, T0),
        kind: "bulk_retry".into(),
        parameters: json!({"error_code": "http_503"}),
        state: "queued".into(),
        processed: 0,
        affected: 0,
        created_at: T0,
        updated_at: T0,
        finished_at: None,
    };
    s.create_job(&live, &job, &audit("messages.bulk_retry", &job.id, T0))
        .await
        .unwrap();
    let filter = MessageFilter {
        error_code: Some("http_503".into()),
        ..Default::default()
    };
    let leased = s
        .lease_job("w1", T0, T0.plus_seconds(30))
        .await
        .unwrap()
        .expect("queued job");
    assert!(
        s.lease_job("w2", T0, T0.plus_seconds(30))
            .await
            .unwrap()
            .is_none(),
        "one worker at a time"
    );
    let after_one = s
        .advance_bulk_retry(&leased, &filter, "w1", 4, T0, T0.plus_seconds(30))
        .await
        .unwrap();
    assert_eq!(
        (after_one.state.as_str(), after_one.processed),
        ("running", 4)
    );
    // The worker dies; after its lease another one resumes from the cursor.
    let resumed = s
        .lease_job("w2", T0.plus_seconds(31), T0.plus_seconds(60))
        .await
        .unwrap()
        .expect("abandoned job");
    assert!(matches!(
        s.advance_bulk_retry(&leased, &filter, "w1", 4, T0, T0.plus_seconds(30))
            .await,
        Err(StoreError::Conflict(_))
    ));
    let mut last = after_one;
    while last.state != "done" {
        last = s
            .advance_bulk_retry(
                &resumed,
                &filter,
                "w2",
                4,
                T0.plus_seconds(32),
                T0.plus_seconds(60),
            )
            .await
            .unwrap();
    }
    assert_eq!(last.processed, 15, "every matching message examined once");
    assert_eq!(
        last.affected, 10,
        "the removed endpoint's 5 stay dead-lettered"
    );
    assert!(last.finished_at.is_some());
    let scheduled = s
        .list_messages(
            &live,
            &MessageFilter {
                state: Some(MessageState::Scheduled),
                ..Default::default()
            },
            &page(50),
        )
        .await
        .unwrap();
    assert_eq!(scheduled.data.len(), 10);
    assert!(scheduled.data.iter().all(|m| m.attempts_used == 0));
    assert_eq!(s.get_job(&live, &job.id).await.unwrap().unwrap(), last);
    let other = tenant(s, "b").await;
    assert!(
        s.get_job(&scope(&other, Environment::Live), &job.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        s.lease_job("w3", T0.plus_seconds(100), T0.plus_seconds(130))
            .await
            .unwrap()
            .is_none()
    );
}
