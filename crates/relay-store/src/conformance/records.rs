//! Conformance cases for what a message and the audit log record: manual
//! attempts audited with their lease, Relay's own disables audited, the
//! event type version that shaped a message's payload, and an attempt's
//! `error_kind` read back as it was written.

use super::*;

fn manual_entry(action: &str, at: Timestamp) -> crate::AuditEntry {
    crate::AuditEntry {
        id: new_id(IdKind::Audit, at),
        actor: "key_1".into(),
        action: action.into(),
        target: String::new(),
        parameters: json!({}),
        at,
    }
}

async fn audit_log(s: &dyn Store, sc: &Scope) -> Vec<crate::AuditEntry> {
    list_audit(s, sc, &page(100)).await.unwrap().data
}

pub async fn manual_attempts_are_audited_with_their_lease(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    let id = list_messages(s, &live, &MessageFilter::default(), &page(10))
        .await
        .unwrap()
        .data[0]
        .id
        .clone();
    // The resend: the entry is written with the lease, its outcome pending.
    let resend = manual_entry("message.resent", T0);
    let leased =
        lease_for_manual_attempt_audited(s, &live, &id, "api", T0, T0.plus_seconds(30), &resend)
            .await
            .unwrap()
            .expect("free to lease");
    let log = audit_log(s, &live).await;
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].id, resend.id);
    assert_eq!(log[0].actor, "key_1");
    assert_eq!(log[0].action, "message.resent");
    assert_eq!(log[0].target, id);
    assert_eq!(
        log[0].parameters,
        json!({"message_id": id, "endpoint_id": e.id, "event_id": "evt_d", "outcome": "attempting"})
    );
    // Busy: nothing leased, nothing audited.
    let refused = manual_entry("message.resent", T0.plus_seconds(1));
    assert!(
        lease_for_manual_attempt_audited(s, &live, &id, "api2", T0, T0.plus_seconds(30), &refused)
            .await
            .unwrap()
            .is_none()
    );
    assert_eq!(audit_log(s, &live).await.len(), 1);
    // Another tenant's message: not found, nothing audited there.
    let other = scope(&tenant(s, "b").await, Environment::Live);
    assert!(matches!(
        lease_for_manual_attempt_audited(s, &other, &id, "api", T0, T0, &refused).await,
        Err(StoreError::NotFound)
    ));
    assert!(audit_log(s, &other).await.is_empty());
    // The attempt's end fills in the outcome, in the completion's transaction.
    let mut done = completion(&leased, "api", delivered(&leased));
    done.manual = true;
    let attempt_id = done.attempt.as_ref().unwrap().id.clone();
    let applied = complete_manual_audited(s, &live, &resend.id, &done)
        .await
        .unwrap();
    assert_eq!(applied.applied, vec![true]);
    let log = audit_log(s, &live).await;
    assert_eq!(log[0].parameters["outcome"], "delivered");
    assert_eq!(log[0].parameters["attempt_id"], attempt_id.as_str());
    assert_eq!(log[0].parameters["message_id"], id.as_str());
    assert_eq!(
        get_message(s, &live, &id).await.unwrap().unwrap().state,
        MessageState::Delivered
    );
    // The test send: the event, its message and the entry in one transaction.
    let test = manual_entry("endpoint.test_sent", T0.plus_seconds(2));
    let c = publish_to_endpoint_audited(
        s,
        &live,
        &e.id,
        new_event("evt_test", "order.shipped", None),
        "api",
        T0.plus_seconds(32),
        &test,
    )
    .await
    .unwrap();
    let log = audit_log(s, &live).await;
    assert_eq!(log.len(), 2);
    assert_eq!(log[1].action, "endpoint.test_sent");
    assert_eq!(log[1].target, e.id);
    assert_eq!(log[1].parameters["message_id"], c.message.id.as_str());
    assert_eq!(log[1].parameters["event_id"], "evt_test");
    assert_eq!(log[1].parameters["outcome"], "attempting");
    // A test send that fails writes nothing: not the event, not the entry.
    let again = manual_entry("endpoint.test_sent", T0.plus_seconds(3));
    assert!(
        publish_to_endpoint_audited(
            s,
            &live,
            &e.id,
            new_event("evt_test", "order.shipped", None),
            "api",
            T0.plus_seconds(33),
            &again,
        )
        .await
        .is_err(),
        "the event id is taken"
    );
    assert_eq!(audit_log(s, &live).await.len(), 2);
    // Ended without an attempt (e.g. its TTL passed): `no_attempt`.
    let mut ended = completion(&c, "api", c.progress());
    ended.manual = true;
    ended.attempt = None;
    complete_manual_audited(s, &live, &test.id, &ended)
        .await
        .unwrap();
    assert_eq!(
        audit_log(s, &live).await[1].parameters["outcome"],
        "no_attempt"
    );
}

pub async fn relays_own_disables_are_audited_with_the_system_as_actor(s: &dyn Store) {
    // A `410`: disabled in the completion's transaction, audited there.
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(30), 1, &[])
        .await
        .unwrap();
    let mut comp = completion(
        &claimed[0],
        "w1",
        Progress {
            state: MessageState::FailedPermanent,
            attempts_used: 1,
            next_attempt_at: None,
            terminal_reason: Some("endpoint_gone".into()),
            last_error_code: Some("http_410".into()),
            ..claimed[0].progress()
        },
    );
    comp.disable_endpoint = true;
    complete(s, &[comp]).await.unwrap();
    let log = audit_log(s, &live).await;
    let gone: Vec<_> = log.iter().filter(|a| a.actor == "system").collect();
    assert_eq!(gone.len(), 1, "{log:?}");
    assert_eq!(gone[0].action, "endpoint.disabled");
    assert_eq!(gone[0].target, e.id);
    assert_eq!(
        gone[0].parameters,
        json!({"from": "active", "to": "disabled", "reason": "endpoint_returned_410"})
    );
    assert_eq!(gone[0].at, T0.plus_seconds(1));
    // A second `410` while disabled changes nothing, and audits nothing.
    let other = scope(&tenant(s, "b").await, Environment::Live);
    assert!(
        audit_log(s, &other).await.is_empty(),
        "the tenant's own log"
    );

    // Five days of failure.
    let t = tenant(s, "c").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let failing = endpoint(s, &live, &c.id, &["order.created"]).await;
    s.publish(&live, new_event("evt_5d", "order.created", None))
        .await
        .unwrap();
    fail_at_hours(s, &live, &failing, &[0, 12, 71, 72, 119]).await;
    assert!(
        audit_log(s, &live)
            .await
            .iter()
            .all(|a| a.actor != "system")
    );
    fail_at_hours(s, &live, &failing, &[120]).await;
    let log = audit_log(s, &live).await;
    let system: Vec<_> = log.iter().filter(|a| a.actor == "system").collect();
    assert_eq!(system.len(), 1, "{log:?}");
    assert_eq!(system[0].action, "endpoint.disabled");
    assert_eq!(system[0].target, failing.id);
    assert_eq!(
        system[0].parameters,
        json!({"from": "active", "to": "disabled", "reason": "failing_for_5_days"})
    );
}

pub async fn messages_record_the_event_type_version_that_shaped_them(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 2);
    assert_eq!(claimed[0].message.event_type_version, None, "not yet sent");
    // One is attempted with a payload shaped by version 1 and retried; the
    // other's completion had no shaped payload.
    let mut first = completion(
        &claimed[0],
        "w1",
        Progress {
            state: MessageState::Scheduled,
            attempts_used: 1,
            next_attempt_at: Some(T0.plus_seconds(5)),
            ..claimed[0].progress()
        },
    );
    first.event_type_version = Some(1);
    let second = completion(&claimed[1], "w1", delivered(&claimed[1]));
    complete(s, &[first, second]).await.unwrap();
    let live = &live;
    let m = |id: &str| {
        let id = id.to_string();
        async move { get_message(s, live, &id).await.unwrap().unwrap() }
    };
    assert_eq!(m(&claimed[0].message.id).await.event_type_version, Some(1));
    assert_eq!(m(&claimed[1].message.id).await.event_type_version, None);
    let listed = list_messages(s, live, &MessageFilter::default(), &page(10))
        .await
        .unwrap()
        .data;
    let first_listed = listed
        .iter()
        .find(|x| x.id == claimed[0].message.id)
        .unwrap();
    assert_eq!(first_listed.event_type_version, Some(1));
    assert_eq!(first_listed.endpoint_version, Some(1));
    // Claimed again, it carries it; a later attempt never changes it.
    let again = claim_due(s, "w1", T0.plus_seconds(5), T0.plus_seconds(35), 10, &[])
        .await
        .unwrap();
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].message.event_type_version, Some(1));
    let mut later = completion(&again[0], "w1", delivered(&again[0]));
    later.event_type_version = Some(2);
    complete(s, &[later]).await.unwrap();
    let after = m(&claimed[0].message.id).await;
    assert_eq!(after.state, MessageState::Delivered);
    assert_eq!(after.event_type_version, Some(1));
}

pub async fn attempt_error_kinds_read_back_as_written(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 3).await;
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 3);
    // A known kind, none, and a code this build does not know (as a row
    // written by another Relay version may hold): each reads back as it
    // was written, the unknown one as its text, and the read never fails.
    let kinds = [
        Some(AttemptErrorKind::Known(ErrorKind::Timeout)),
        None,
        Some(AttemptErrorKind::Other("carrier_lost".into())),
    ];
    let batch: Vec<Completion> = claimed
        .iter()
        .zip(&kinds)
        .map(|(c, kind)| {
            let mut comp = completion(c, "w1", delivered(c));
            if let Some(a) = comp.attempt.as_mut() {
                a.error_kind = kind.clone();
            }
            comp
        })
        .collect();
    assert_eq!(
        complete(s, &batch).await.unwrap().applied,
        vec![true, true, true]
    );
    for (c, kind) in claimed.iter().zip(&kinds) {
        let attempts = list_attempts(s, &live, &c.message.id, &PageRequest::first(250))
            .await
            .unwrap()
            .data;
        assert_eq!(attempts.len(), 1);
        assert_eq!(&attempts[0].error_kind, kind);
    }
}
