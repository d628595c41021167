//! Conformance cases for delivery: claims, leases at publish, completions, a `410`,
//! released leases, signing keys.

use super::*;

/// A tenant, consumer and `n` endpoints subscribed to `order.shipped`, and
/// one published event (so one scheduled message per endpoint, due at T0).
pub(crate) async fn delivery_fixture(s: &dyn Store, n: usize) -> (Scope, Vec<Endpoint>) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let mut endpoints = Vec::new();
    for _ in 0..n {
        endpoints.push(endpoint(s, &live, &c.id, &["order.shipped"]).await);
    }
    s.publish(&live, new_event("evt_d", "order.shipped", Some("order/1")))
        .await
        .unwrap();
    (live, endpoints)
}

pub(crate) fn attempt_for(c: &crate::Claimed, outcome: AttemptOutcome) -> Attempt {
    Attempt {
        id: new_id(IdKind::Attempt, T0),
        message_id: c.message.id.clone(),
        endpoint_id: c.endpoint.id.clone(),
        number: 0,
        trigger: AttemptTrigger::Scheduled,
        started_at: T0,
        duration_ms: 12,
        destination_ip: Some("127.0.0.1".into()),
        status_code: Some(200),
        error_kind: None,
        error_code: None,
        body_sha256: "ab".repeat(32),
        signature: "v1a,sig".into(),
        response_body: Some("ok".into()),
        response_body_encoding: Some(relay_core::model::BodyEncoding::Utf8),
        outcome,
        detail: serde_json::json!({"status_code": 200, "response_body": "ok"}),
    }
}

pub(crate) fn completion(c: &crate::Claimed, owner: &str, progress: Progress) -> Completion {
    Completion {
        message_id: c.message.id.clone(),
        tenant_id: c.tenant_id.clone(),
        environment: c.message.environment,
        lease_owner: owner.into(),
        lease_version: c.lease_version,
        progress,
        attempt: Some(attempt_for(c, AttemptOutcome::Delivered)),
        disable_endpoint: false,
        manual: false,
        ordered: c.message.ordering_key.is_some(),
        event_type_version: None,
        health: relay_core::circuit::Signal::Neutral,
        warning: None,
        now: T0.plus_seconds(1),
    }
}

pub(crate) fn delivered(c: &crate::Claimed) -> Progress {
    Progress {
        state: MessageState::Delivered,
        attempts_used: 1,
        next_attempt_at: None,
        ..c.progress()
    }
}

pub async fn claims_lease_due_messages_with_their_delivery_context(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 3).await;
    assert_eq!(next_due_at(s,).await.unwrap(), Some(T0));
    // Nothing is due before T0.
    let early = claim_due(s, "w1", T0.plus_millis(-1), T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert!(early.is_empty());
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(30), 2, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 2, "the limit holds");
    let c = &claimed[0];
    assert_eq!(c.message.state, MessageState::InFlight);
    assert_eq!(c.event.id, "evt_d");
    assert_eq!(
        c.event.data.get(),
        r#"{"order_id": 42,  "note":"kept as sent"}"#
    );
    assert_eq!(c.event.seq, Some(1));
    assert_eq!(c.source, "/consumers/c");
    assert!(endpoints.iter().any(|e| e.id == c.endpoint.id));
    assert_eq!(c.tenant_id, live.tenant_id);
    // The leased ones are not claimed again; the third one is.
    let rest = claim_due(s, "w2", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(rest.len(), 1);
    assert!(claimed.iter().all(|c| c.message.id != rest[0].message.id));
    assert!(
        claim_due(s, "w3", T0, T0.plus_seconds(30), 10, &[])
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(next_due_at(s,).await.unwrap(), None);
    let m = get_message(s, &live, &c.message.id).await.unwrap().unwrap();
    assert_eq!(m.state, MessageState::InFlight);
}

/// An [`crate::Intake`] with room for the endpoints listed, that keeps what
/// it is handed and counts its reservations still alive.
struct TestIntake {
    room_for: Vec<String>,
    /// Every reservation is behind a backlog.
    behind: bool,
    taken: std::sync::Mutex<Vec<crate::Claimed>>,
    alive: Arc<std::sync::atomic::AtomicUsize>,
}

/// A [`TestIntake`] reservation: alive until dropped.
struct TestReservation(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for TestReservation {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl TestIntake {
    /// An intake with room for `room_for` (each reservation `behind` or
    /// not), set on `s`.
    fn set_on(s: &dyn Store, room_for: &str, behind: bool) -> Arc<TestIntake> {
        let intake = Arc::new(TestIntake {
            room_for: vec![room_for.to_string()],
            behind,
            taken: Default::default(),
            alive: Default::default(),
        });
        s.set_intake(Some(intake.clone()));
        intake
    }

    /// What was handed over since the last call.
    fn take_all(&self) -> Vec<crate::Claimed> {
        std::mem::take(&mut *self.taken.lock().unwrap())
    }

    /// Reservations neither dropped nor taken.
    fn alive(&self) -> usize {
        self.alive.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl crate::Intake for TestIntake {
    fn owner(&self) -> &str {
        "intake"
    }
    fn lease_millis(&self) -> i64 {
        30_000
    }
    fn reserve(&self, e: &crate::IntakeEndpoint<'_>, _now: Timestamp) -> Option<crate::Reserved> {
        assert_eq!(e.max_concurrency, 10);
        assert!(!e.rate_limited);
        self.room_for.iter().any(|id| id == e.id).then(|| {
            self.alive.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            crate::Reserved {
                behind: self.behind,
                hold: Box::new(TestReservation(self.alive.clone())),
            }
        })
    }
    fn take(&self, leased: Vec<(crate::Reserved, crate::Claimed)>) {
        let mut taken = self.taken.lock().unwrap();
        taken.extend(leased.into_iter().map(|(_, c)| c));
    }
}

pub async fn publishes_lease_what_the_intake_has_room_for(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let roomy = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let full = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let intake = TestIntake::set_on(s, &roomy.id, false);
    let out = s
        .publish(&live, new_event("evt_1", "order.shipped", Some("order/1")))
        .await
        .unwrap();
    assert_eq!((out.messages_created, out.messages_leased), (2, 1));
    let taken = intake.take_all();
    assert_eq!(taken.len(), 1, "handed over once committed");
    assert_eq!(intake.alive(), 0, "every reservation is released");
    let leased = &taken[0];
    // What a claim would have read for it.
    assert_eq!(leased.endpoint, roomy);
    assert_eq!(leased.source, "/consumers/c");
    assert_eq!(leased.tenant_id, live.tenant_id);
    assert_eq!(leased.event, out.event);
    assert_eq!(leased.event.seq, Some(1));
    assert_eq!(leased.lease_version, 1);
    assert!(!leased.recovery);
    let stored = get_message(s, &live, &leased.message.id)
        .await
        .unwrap()
        .expect("stored");
    assert_eq!(stored, leased.message);
    assert_eq!(stored.state, MessageState::InFlight);
    // The endpoint without room got a scheduled message: the only one a
    // claim finds.
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].endpoint.id, full.id);
    // The lease taken at publish completes like a claimed one.
    let applied = complete(s, &[completion(leased, "intake", delivered(leased))])
        .await
        .unwrap()
        .applied;
    assert_eq!(applied, vec![true]);
    // Publishes that share a transaction each get theirs.
    let outs = futures_util::future::join_all(
        (2..6).map(|i| s.publish(&live, new_event(&format!("evt_{i}"), "order.shipped", None))),
    )
    .await;
    for out in outs {
        assert_eq!(out.unwrap().messages_leased, 1);
    }
    let taken = intake.take_all();
    assert_eq!(taken.len(), 4);
    assert!(taken.iter().all(|c| c.endpoint.id == roomy.id));
    // A lease taken at publish that is never completed expires and is
    // rescued, like any other (these four and w1's claim).
    assert_eq!(
        rescue_expired_leases(s, T0.plus_seconds(31)).await.unwrap(),
        5
    );
    // Without an intake, everything is scheduled.
    s.set_intake(None);
    let out = s
        .publish(&live, new_event("evt_9", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!((out.messages_created, out.messages_leased), (2, 0));
    assert!(intake.take_all().is_empty());
}

pub async fn publishes_behind_a_backlog_lease_its_oldest_messages_in_order(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let ep = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    // A backlog of three, published a second apart.
    for i in 0..3 {
        let mut ev = new_event(&format!("evt_old_{i}"), "order.shipped", None);
        ev.now = T0.plus_seconds(i);
        s.publish(&live, ev).await.unwrap();
    }
    let intake = TestIntake::set_on(s, &ep.id, true);
    let publish = |id: &str, at: i64| {
        let mut ev = new_event(id, "order.shipped", None);
        ev.now = T0.plus_seconds(at);
        s.publish(&live, ev)
    };
    // Room for one: the oldest goes, the new one waits behind the rest.
    let out = publish("evt_new_0", 10).await.unwrap();
    assert_eq!((out.messages_created, out.messages_leased), (1, 0));
    let taken = intake.take_all();
    let events: Vec<&str> = taken.iter().map(|c| c.event.id.as_str()).collect();
    assert_eq!(events, ["evt_old_0"]);
    let c0 = &taken[0];
    assert_eq!(c0.message.state, MessageState::InFlight);
    assert_eq!(c0.lease_version, 1);
    let applied = complete(s, &[completion(c0, "intake", delivered(c0))])
        .await
        .unwrap()
        .applied;
    assert_eq!(applied, vec![true], "the lease is the intake's");
    // The next publish's room takes the next oldest; a publish's own new
    // message goes once the older ones are gone, in due order.
    publish("evt_new_1", 11).await.unwrap();
    publish("evt_new_2", 12).await.unwrap();
    publish("evt_new_3", 13).await.unwrap();
    publish("evt_new_4", 14).await.unwrap();
    let taken = intake.take_all();
    let events: Vec<&str> = taken.iter().map(|c| c.event.id.as_str()).collect();
    assert_eq!(
        events,
        ["evt_old_1", "evt_old_2", "evt_new_0", "evt_new_1"],
        "oldest first"
    );
    assert_eq!(intake.alive(), 0, "every reservation is released");
    // What is left is scheduled, for claims.
    let claimed = claim_due(s, "w1", T0.plus_seconds(20), T0.plus_seconds(50), 10, &[])
        .await
        .unwrap();
    let events: Vec<&str> = claimed.iter().map(|c| c.event.id.as_str()).collect();
    assert_eq!(events, ["evt_new_2", "evt_new_3", "evt_new_4"]);
    s.set_intake(None);
}

pub async fn concurrent_claimers_never_share_a_message(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    endpoint(s, &live, &c.id, &["order.shipped"]).await;
    for i in 0..40 {
        s.publish(&live, new_event(&format!("evt_{i}"), "order.shipped", None))
            .await
            .unwrap();
    }
    let owners: Vec<String> = (0..6).map(|i| format!("w{i}")).collect();
    let results = futures_util::future::join_all(
        owners
            .iter()
            .map(|o| claim_due(s, o, T0, T0.plus_seconds(30), 9, &[])),
    )
    .await;
    let mut ids: Vec<String> = results
        .into_iter()
        .flat_map(|r| r.expect("claim"))
        .map(|c| c.message.id)
        .collect();
    let total = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), total, "no message was claimed twice");
    assert_eq!(total, 40);
}

pub async fn completion_applies_only_while_the_lease_holds(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let (a, b) = (&claimed[0], &claimed[1]);
    // The right owner and version: applied.
    let applied = complete(s, &[completion(a, "w1", delivered(a))])
        .await
        .unwrap()
        .applied;
    assert_eq!(applied, vec![true]);
    let m = get_message(s, &live, &a.message.id).await.unwrap().unwrap();
    assert_eq!(m.state, MessageState::Delivered);
    assert_eq!(m.attempts_used, 1);
    // Completing again (a duplicate) changes nothing.
    assert_eq!(
        complete(s, &[completion(a, "w1", delivered(a))])
            .await
            .unwrap()
            .applied,
        vec![false]
    );
    let m2 = get_message(s, &live, &a.message.id).await.unwrap().unwrap();
    assert_eq!(m2.state, MessageState::Delivered);
    // Another owner, or a rescued lease: not applied, but the attempt is recorded.
    assert_eq!(
        complete(s, &[completion(b, "intruder", delivered(b))])
            .await
            .unwrap()
            .applied,
        vec![false]
    );
    assert_eq!(
        rescue_expired_leases(s, T0.plus_seconds(31)).await.unwrap(),
        1
    );
    let rescued = get_message(s, &live, &b.message.id).await.unwrap().unwrap();
    assert_eq!(rescued.state, MessageState::Scheduled);
    assert_eq!(rescued.next_attempt_at, Some(T0.plus_seconds(31)));
    assert_eq!(
        rescued.attempts_used, 0,
        "a lost lease does not use an attempt"
    );
    assert_eq!(
        complete(s, &[completion(b, "w1", delivered(b))])
            .await
            .unwrap()
            .applied,
        vec![false],
        "a late completion never overwrites a rescued message"
    );
    let still = get_message(s, &live, &b.message.id).await.unwrap().unwrap();
    assert_eq!(still.state, MessageState::Scheduled);
    let attempts = list_attempts(s, &live, &b.message.id, &PageRequest::first(250))
        .await
        .unwrap()
        .data;
    assert_eq!(attempts.len(), 2, "attempts that happened are recorded");
    assert_eq!(
        attempts.iter().map(|a| a.number).collect::<Vec<_>>(),
        vec![1, 2]
    );
    // A completion after cancellation-like removal: deleting the endpoint bumps the lease.
    let again = claim_due(s, "w2", T0.plus_seconds(31), T0.plus_seconds(60), 10, &[])
        .await
        .unwrap();
    assert_eq!(again.len(), 1);
    delete_endpoint(s, &live, &again[0].endpoint.id, T0.plus_seconds(32), None)
        .await
        .unwrap();
    assert_eq!(
        complete(s, &[completion(&again[0], "w2", delivered(&again[0]))])
            .await
            .unwrap()
            .applied,
        vec![false]
    );
    let gone = get_message(s, &live, &b.message.id).await.unwrap().unwrap();
    assert_eq!(gone.state, MessageState::DeadLettered);
}

pub async fn completions_batch_in_one_call_and_keep_retry_state(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 3).await;
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let retry_at = T0.plus_seconds(5);
    let batch: Vec<Completion> = claimed
        .iter()
        .map(|c| {
            let mut comp = completion(
                c,
                "w1",
                Progress {
                    state: MessageState::Scheduled,
                    attempts_used: 1,
                    next_attempt_at: Some(retry_at),
                    last_error_code: Some("http_503".into()),
                    ..c.progress()
                },
            );
            if let Some(a) = comp.attempt.as_mut() {
                a.status_code = Some(503);
                a.detail = serde_json::json!({"status_code": 503, "response_body": ""});
                a.response_body = Some(String::new());
                a.error_code = Some(FailureCode::HttpStatus(503));
                a.outcome = AttemptOutcome::Retry;
            }
            comp
        })
        .collect();
    assert_eq!(
        complete(s, &batch).await.unwrap().applied,
        vec![true, true, true]
    );
    assert_eq!(next_due_at(s,).await.unwrap(), Some(retry_at));
    let failed = list_messages(
        s,
        &live,
        &MessageFilter {
            error_code: Some("http_503".into()),
            ..Default::default()
        },
        &page(10),
    )
    .await
    .unwrap();
    assert_eq!(failed.data.len(), 3);
    for m in &failed.data {
        let p = progress_of(m);
        assert_eq!((p.state, p.attempts_used), (MessageState::Scheduled, 1));
    }
    assert!(
        claim_due(s, "w1", T0.plus_seconds(4), T0.plus_seconds(40), 10, &[])
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        claim_due(s, "w1", retry_at, T0.plus_seconds(40), 10, &[])
            .await
            .unwrap()
            .len(),
        3
    );
}

pub async fn a_410_disables_the_endpoint_and_holds_its_other_messages(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    s.publish(&live, new_event("evt_1", "order.shipped", None))
        .await
        .unwrap();
    s.publish(&live, new_event("evt_2", "order.shipped", None))
        .await
        .unwrap();
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
    comp.warning = Some(EndpointWarning {
        endpoint_id: e.id.clone(),
        kind: WarningKind::Other("gone".into()), // unknown here: read back as stored
        detail: "the endpoint answered 410 Gone".into(),
        at: T0,
    });
    assert_eq!(complete(s, &[comp]).await.unwrap().applied, vec![true]);
    let disabled = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    assert_eq!(disabled.state, EndpointState::Disabled);
    assert_eq!(
        disabled.disabled_reason.as_deref(),
        Some("endpoint_returned_410")
    );
    let other = list_messages(
        s,
        &live,
        &MessageFilter {
            event_id: Some("evt_2".into()),
            ..Default::default()
        },
        &page(10),
    )
    .await
    .unwrap();
    assert_eq!(other.data[0].state, MessageState::Held);
    assert!(
        claim_due(s, "w1", T0.plus_seconds(100), T0.plus_seconds(130), 10, &[])
            .await
            .unwrap()
            .is_empty()
    );
    let warnings = endpoint_warnings(s, &e.id, 20).await.unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].kind, WarningKind::Other("gone".into()));
}

pub async fn released_leases_are_due_again_at_once(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let claimed = claim_due(s, "w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(release_leases(s, "someone-else", T0).await.unwrap(), 0);
    assert_eq!(
        release_leases(s, "w1", T0.plus_seconds(1)).await.unwrap(),
        2
    );
    for c in &claimed {
        let m = get_message(s, &live, &c.message.id).await.unwrap().unwrap();
        assert_eq!(m.state, MessageState::Scheduled);
        assert_eq!(m.attempts_used, 0);
    }
    assert_eq!(
        claim_due(s, "w2", T0.plus_seconds(1), T0.plus_seconds(30), 10, &[])
            .await
            .unwrap()
            .len(),
        2
    );
}

pub async fn signing_keys_are_stored_with_the_endpoint(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint_value(&live, &c.id, &["order.shipped"]);
    let key = |id: &str, at: Timestamp, retires: Option<Timestamp>| EndpointKeyRecord {
        id: id.into(),
        endpoint_id: e.id.clone(),
        scheme: SignatureScheme::V1a,
        public_key: Some(format!("whpk_{id}")),
        sealed_secret: format!("rk1:{id}"),
        created_at: at,
        retires_at: retires,
    };
    let old = key("whk_old", T0, Some(T0.plus_seconds(3600)));
    let new = key("whk_new", T0.plus_seconds(1), None);
    create_endpoint(s, &live, &e, &[old.clone(), new.clone()], LIMITS, None)
        .await
        .unwrap();
    assert_eq!(endpoint_keys(s, &e.id).await.unwrap(), vec![new, old]);
    assert!(endpoint_keys(s, "ep_other").await.unwrap().is_empty());
}
