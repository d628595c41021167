//! Conformance cases for publishing: fan-out, idempotency, grouped commits, ordering,
//! held messages, and listing messages.

use super::*;

pub async fn publish_fans_out_to_matching_endpoints_only(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    // Meant for every consumer (who gets what: `audience.rs`): this case
    // is about subscriptions, scopes and `consumer_id`.
    put_event_type(
        s,
        &live,
        &PutEventType {
            name: "order.shipped".into(),
            description: String::new(),
            schema: json!({"type": "object"}),
            sample: None,
            thin_fields: Vec::new(),
            personal_data_fields: Vec::new(),
            audience: relay_core::audience::Audience::AllConsumers,
            now: T0,
        },
    )
    .await
    .unwrap();
    let c = consumer(s, &live, "c").await;
    let other_c = consumer(s, &live, "other").await;
    let exact = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let wildcard = endpoint(s, &live, &other_c.id, &["*"]).await;
    let both = endpoint(s, &live, &c.id, &["order.shipped", "*"]).await;
    let _none = endpoint(s, &live, &c.id, &[]).await;
    let _other_type = endpoint(s, &live, &c.id, &["order.created"]).await;
    // Same tenant, other environment; other tenant: never targeted.
    let test = scope(&t, Environment::Test);
    let tc = consumer(s, &test, "c").await;
    endpoint(s, &test, &tc.id, &["*"]).await;
    let other = tenant(s, "b").await;
    let ob = scope(&other, Environment::Live);
    let oc = consumer(s, &ob, "c").await;
    endpoint(s, &ob, &oc.id, &["*"]).await;

    let out = s
        .publish(&live, new_event("evt_1", "order.shipped", None))
        .await
        .unwrap();
    assert!(!out.duplicate);
    assert_eq!(out.messages_created, 3);
    assert_eq!(
        out.event.data.get(),
        r#"{"order_id": 42,  "note":"kept as sent"}"#
    );
    let msgs = list_messages(
        s,
        &live,
        &MessageFilter {
            event_id: Some("evt_1".into()),
            ..Default::default()
        },
        &page(50),
    )
    .await
    .unwrap();
    let mut targets: Vec<_> = msgs.data.iter().map(|m| m.endpoint_id.clone()).collect();
    targets.sort();
    let mut expected = vec![exact.id.clone(), wildcard.id.clone(), both.id.clone()];
    expected.sort();
    assert_eq!(targets, expected);
    for m in &msgs.data {
        assert_eq!(m.state, MessageState::Scheduled);
        assert_eq!(m.next_attempt_at, Some(T0));
        assert_eq!(m.attempts_used, 0);
    }
    // consumer_id narrows the fan-out to that consumer's endpoints.
    let mut targeted = new_event("evt_2", "order.shipped", None);
    targeted.consumer_id = Some(other_c.id.clone());
    let out = s.publish(&live, targeted).await.unwrap();
    assert_eq!(out.messages_created, 1);
    let stored = get_event(s, &live, "evt_1").await.unwrap().expect("stored");
    assert_eq!(
        stored.data.get(),
        r#"{"order_id": 42,  "note":"kept as sent"}"#
    );
    assert_eq!(stored.event_type, "order.shipped");
    assert_eq!(
        get_event(s, &test, "evt_1").await.unwrap().map(|e| e.id),
        None
    );
}

pub async fn publishing_the_same_id_is_idempotent(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    for _ in 0..3 {
        endpoint(s, &live, &c.id, &["order.shipped"]).await;
    }
    let first = s
        .publish(&live, new_event("evt_x", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!(first.messages_created, 3);
    let mut again = new_event("evt_x", "order.shipped", None);
    again.data = RawValue::from_string("{}".into()).unwrap();
    let second = s.publish(&live, again).await.unwrap();
    assert!(second.duplicate);
    assert_eq!(second.messages_created, 0);
    assert_eq!(second.event.data.get(), first.event.data.get());
    let all = list_messages(s, &live, &MessageFilter::default(), &page(50))
        .await
        .unwrap();
    assert_eq!(all.data.len(), 3);
    // The same id in another tenant is another event.
    let other = tenant(s, "b").await;
    let out = s
        .publish(
            &scope(&other, Environment::Live),
            new_event("evt_x", "order.shipped", None),
        )
        .await
        .unwrap();
    assert!(!out.duplicate);
}

/// An event keeps when it happened (`time`, the CloudEvents `time`) apart
/// from when it was accepted (`created_at`), through publish, reads and claims.
pub async fn events_keep_the_time_they_happened(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let happened = T0.plus_millis(-86_400_123);
    let out = s
        .publish(
            &live,
            NewEvent {
                time: happened,
                ..new_event("evt_t", "order.shipped", Some("s"))
            },
        )
        .await
        .unwrap();
    assert_eq!((out.event.time, out.event.created_at), (happened, T0));
    let read = get_event(s, &live, "evt_t").await.unwrap().unwrap();
    assert_eq!((read.time, read.created_at), (happened, T0));
    // A duplicate publish answers the stored time, not its own.
    let again = s
        .publish(&live, new_event("evt_t", "order.shipped", Some("s")))
        .await
        .unwrap();
    assert!(again.duplicate);
    assert_eq!(again.event.time, happened);
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].event.time, happened);
    assert_eq!(claimed[0].event.created_at, T0);
}

pub async fn concurrent_publishes_of_one_id_create_one_event(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    for _ in 0..2 {
        endpoint(s, &live, &c.id, &["order.shipped"]).await;
    }
    let results = futures_util::future::join_all(
        (0..8).map(|_| s.publish(&live, new_event("evt_race", "order.shipped", None))),
    )
    .await;
    let created: Vec<_> = results
        .into_iter()
        .map(|r| r.expect("publish"))
        .filter(|o| !o.duplicate)
        .collect();
    assert_eq!(created.len(), 1, "exactly one publish creates the event");
    assert_eq!(created[0].messages_created, 2);
    let all = list_messages(s, &live, &MessageFilter::default(), &page(50))
        .await
        .unwrap();
    assert_eq!(all.data.len(), 2);
}

/// Concurrent publishes share commits (group commit): every one is
/// answered, in order per subject, and one that fails (its tenant does not
/// exist) fails alone.
pub async fn concurrent_publishes_commit_together_and_fail_alone(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let ghost = Scope {
        tenant_id: "ten_does_not_exist".into(),
        environment: Environment::Live,
    };
    let good = (0..40).map(|i| {
        s.publish(
            &live,
            new_event(
                &format!("evt_group_{i:02}"),
                "order.shipped",
                Some("order/group"),
            ),
        )
    });
    let (results, bad) = futures_util::future::join(
        futures_util::future::join_all(good),
        s.publish(&ghost, new_event("evt_ghost", "order.shipped", None)),
    )
    .await;
    assert!(bad.is_err(), "a publish for a missing tenant fails");
    let mut seqs = Vec::new();
    for r in results {
        let out = r.expect("the others are committed");
        assert!(!out.duplicate);
        assert_eq!(out.messages_created, 1);
        seqs.push(out.event.seq.expect("subject given"));
    }
    seqs.sort_unstable();
    assert_eq!(
        seqs,
        (1..=40).collect::<Vec<i64>>(),
        "one seq each, no gaps"
    );
    for i in 0..40 {
        let id = format!("evt_group_{i:02}");
        assert!(
            get_event(s, &live, &id).await.unwrap().is_some(),
            "{id} stored"
        );
    }
    assert!(get_event(s, &ghost, "evt_ghost").await.unwrap().is_none());
}

pub async fn seq_is_monotonic_per_subject(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let mut seqs = Vec::new();
    for i in 0..3 {
        let out = s
            .publish(
                &live,
                new_event(&format!("evt_a{i}"), "order.shipped", Some("order/1")),
            )
            .await
            .unwrap();
        seqs.push(out.event.seq);
    }
    assert_eq!(seqs, vec![Some(1), Some(2), Some(3)]);
    let other_subject = s
        .publish(&live, new_event("evt_b", "order.shipped", Some("order/2")))
        .await
        .unwrap();
    assert_eq!(other_subject.event.seq, Some(1));
    let no_subject = s
        .publish(&live, new_event("evt_c", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!(no_subject.event.seq, None);
    let test_env = s
        .publish(
            &scope(&t, Environment::Test),
            new_event("evt_d", "order.shipped", Some("order/1")),
        )
        .await
        .unwrap();
    assert_eq!(test_env.event.seq, Some(1));
}

pub async fn paused_and_disabled_endpoints_get_held_messages(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let mut paused = endpoint_value(&live, &c.id, &["order.shipped"]);
    paused.state = EndpointState::Paused;
    create_endpoint(s, &live, &paused, &[], LIMITS, None)
        .await
        .unwrap();
    let mut disabled = endpoint_value(&live, &c.id, &["order.shipped"]);
    disabled.state = EndpointState::Disabled;
    disabled.disabled_reason = Some("manual".into());
    create_endpoint(s, &live, &disabled, &[], LIMITS, None)
        .await
        .unwrap();
    s.publish(&live, new_event("evt_h", "order.shipped", None))
        .await
        .unwrap();
    let all = list_messages(s, &live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    assert_eq!(all.data.len(), 2);
    for m in all.data {
        assert_eq!(m.state, MessageState::Held);
        assert_eq!(m.next_attempt_at, None);
    }
}

pub async fn deleting_an_endpoint_dead_letters_its_pending_messages(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    s.publish(&live, new_event("evt_d1", "order.shipped", None))
        .await
        .unwrap();
    delete_endpoint(s, &live, &e.id, T0.plus_seconds(1), None)
        .await
        .unwrap();
    assert_eq!(get_endpoint(s, &live, &e.id).await.unwrap(), None);
    assert!(matches!(
        delete_endpoint(s, &live, &e.id, T0, None).await,
        Err(StoreError::NotFound)
    ));
    let msgs = list_messages(s, &live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    assert_eq!(msgs.data.len(), 1);
    assert_eq!(msgs.data[0].state, MessageState::DeadLettered);
    assert_eq!(
        msgs.data[0].terminal_reason.as_deref(),
        Some("endpoint_removed")
    );
    // A removed endpoint receives nothing new.
    let out = s
        .publish(&live, new_event("evt_d2", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!(out.messages_created, 0);
}

pub async fn updating_subscriptions_changes_the_fan_out(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let mut e = endpoint(s, &live, &c.id, &["order.created"]).await;
    let out = s
        .publish(&live, new_event("evt_u1", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!(out.messages_created, 0);
    e.event_types = vec!["order.shipped".into(), "order.shipped".into()];
    update_endpoint(s, &live, &e, &[]).await.unwrap();
    let out = s
        .publish(&live, new_event("evt_u2", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!(out.messages_created, 1);
}

pub async fn messages_filter_and_paginate_by_keyset(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e1 = endpoint(s, &live, &c.id, &["order.shipped", "order.created"]).await;
    let e2 = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    for i in 0..5 {
        let mut ev = new_event(&format!("evt_p{i}"), "order.shipped", None);
        ev.now = T0.plus_seconds(i);
        s.publish(&live, ev).await.unwrap();
    }
    let mut created = new_event("evt_c", "order.created", None);
    created.now = T0.plus_seconds(10);
    s.publish(&live, created).await.unwrap();

    let mut seen = Vec::new();
    let mut req = page(4);
    loop {
        let p = list_messages(s, &live, &MessageFilter::default(), &req)
            .await
            .unwrap();
        assert!(p.data.len() <= 4);
        seen.extend(p.data.iter().map(|m| m.id.clone()));
        match p.next_after {
            Some(after) => req.after = Some(after),
            None => break,
        }
    }
    assert_eq!(seen.len(), 11);
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, seen, "pages are ordered and never repeat an item");

    let live_ref = &live;
    let count = |f: MessageFilter| async move {
        list_messages(s, live_ref, &f, &page(100))
            .await
            .unwrap()
            .data
            .len()
    };
    assert_eq!(
        count(MessageFilter {
            endpoint_id: Some(e2.id.clone()),
            ..Default::default()
        })
        .await,
        5
    );
    assert_eq!(
        count(MessageFilter {
            endpoint_id: Some(e1.id.clone()),
            ..Default::default()
        })
        .await,
        6
    );
    assert_eq!(
        count(MessageFilter {
            event_type: Some("order.created".into()),
            ..Default::default()
        })
        .await,
        1
    );
    assert_eq!(
        count(MessageFilter {
            state: Some(MessageState::Scheduled),
            ..Default::default()
        })
        .await,
        11
    );
    assert_eq!(
        count(MessageFilter {
            state: Some(MessageState::Delivered),
            ..Default::default()
        })
        .await,
        0
    );
    assert_eq!(
        count(MessageFilter {
            since: Some(T0.plus_seconds(1)),
            until: Some(T0.plus_seconds(3)),
            ..Default::default()
        })
        .await,
        4
    );
    assert_eq!(
        count(MessageFilter {
            error_code: Some("timeout".into()),
            ..Default::default()
        })
        .await,
        0
    );
    let other = tenant(s, "b").await;
    let theirs = list_messages(
        s,
        &scope(&other, Environment::Live),
        &MessageFilter::default(),
        &page(100),
    )
    .await
    .unwrap();
    assert!(theirs.data.is_empty());
    let one = &seen[0];
    assert!(get_message(s, &live, one).await.unwrap().is_some());
    assert!(
        get_message(s, &scope(&other, Environment::Live), one)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        get_message(s, &scope(&t, Environment::Test), one)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        list_attempts(s, &live, one, &PageRequest::first(250))
            .await
            .unwrap()
            .data
            .is_empty()
    );
}
