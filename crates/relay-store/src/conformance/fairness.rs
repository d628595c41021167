//! Conformance cases for recovery fairness across tenants, the failure clock, and
//! operational events.

use super::*;

/// Recovery messages (by replay, due at `at`) for `n` events of a new tenant
/// published before its endpoint existed; returns the scope and endpoint.
async fn tenant_with_recovery_backlog(
    s: &dyn Store,
    name: &str,
    n: usize,
    at: Timestamp,
) -> (Scope, Endpoint) {
    let t = tenant(s, name).await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    for i in 0..n {
        s.publish(
            &live,
            new_event(&format!("evt_{name}_{i}"), "order.shipped", None),
        )
        .await
        .unwrap();
    }
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let replayed = crate::recovery::replay(
        s,
        &live,
        &e.id,
        T0,
        at,
        None,
        &audit("endpoint.replayed", &e.id, at),
    )
    .await
    .unwrap();
    assert_eq!(replayed, n as u64);
    (live, e)
}

pub async fn recovery_traffic_is_shared_fairly_across_tenants(s: &dyn Store) {
    // Tenant A's backlog is four times B's and due earlier: oldest-due-first
    // alone would give A every claim until its backlog is gone.
    let (a, a_endpoint) = tenant_with_recovery_backlog(s, "a", 40, T0.plus_seconds(10)).await;
    let (b, b_endpoint) = tenant_with_recovery_backlog(s, "b", 10, T0.plus_seconds(20)).await;
    // A live message of tenant A, due after every recovery message.
    let live_event = NewEvent {
        now: T0.plus_seconds(25),
        ..new_event("evt_a_live", "order.shipped", None)
    };
    s.publish(&a, live_event).await.unwrap();
    let now = T0.plus_seconds(30);
    let mut cursor: Option<String> = None;
    let mut claim = async |limit: u32, recovery_limit: u32, skip: &[String]| {
        let room: Vec<(String, u32)> = skip.iter().map(|e| (e.clone(), 0)).collect();
        let batch = claim(
            s,
            &crate::ClaimRequest {
                owner: "w",
                now,
                lease_until: now.plus_seconds(30),
                limit,
                recovery_limit,
                room: &room,
                recovery_after: cursor.as_deref(),
            },
        )
        .await
        .unwrap();
        if batch.recovery_first.is_some() {
            cursor = batch.recovery_first.clone();
        }
        batch.claimed
    };
    let count = |claimed: &[crate::Claimed], tenant: &Scope| {
        claimed
            .iter()
            .filter(|c| c.recovery && c.tenant_id == tenant.tenant_id)
            .count()
    };

    // Live first, whatever is due before it; then the room left is split.
    let first = claim(5, 5, &[]).await;
    assert_eq!(first.len(), 5);
    let live: Vec<_> = first.iter().filter(|c| !c.recovery).collect();
    assert_eq!(live.len(), 1, "the live message is claimed");
    assert_eq!(live[0].event.id, "evt_a_live");
    assert_eq!(
        (count(&first, &a), count(&first, &b)),
        (2, 2),
        "the recovery room is split equally between the two tenants"
    );
    // The recovery limit caps recovery traffic, even with nothing live due.
    assert!(claim(4, 0, &[]).await.is_empty());
    // One slot at a time, the tenants take turns.
    let mut turns = Vec::new();
    for _ in 0..4 {
        let one = claim(1, 1, &[]).await;
        assert_eq!(one.len(), 1);
        turns.push(one[0].tenant_id.clone());
    }
    assert!(
        turns.windows(2).all(|w| w[0] != w[1]),
        "single slots alternate between tenants: {turns:?}"
    );
    let (mut got_a, mut got_b) = (4, 4);
    // A tenant whose lane is full leaves its share to the others.
    let skipped = claim(4, 4, std::slice::from_ref(&b_endpoint.id)).await;
    assert_eq!(
        count(&skipped, &a),
        4,
        "B's endpoint is skipped, A fills the room"
    );
    got_a += 4;
    // Odd-sized claims: the odd slot rotates, so neither tenant gets ahead
    // by more than one message while both have some due.
    let (mut since_a, mut since_b) = (0usize, 0usize);
    while got_b < 10 {
        let claimed = claim(3, 3, &[]).await;
        assert_eq!(claimed.len(), 3, "three recovery messages are due");
        let (na, nb) = (count(&claimed, &a), count(&claimed, &b));
        assert!(nb >= 1, "B gets a share of every claim: A {na}, B {nb}");
        since_a += na;
        since_b += nb;
        got_a += na;
        got_b += nb;
        if got_b < 10 {
            assert!(
                since_a.abs_diff(since_b) <= 1,
                "turns even out: A {since_a}, B {since_b}"
            );
        }
    }
    assert!(got_a < 40, "B finished while A still had a backlog");
    // With B done, A has every slot, up to its endpoint's max_concurrency
    // (10) per claim.
    let mut rest = Vec::new();
    loop {
        let more = claim(100, 100, &[]).await;
        if more.is_empty() {
            break;
        }
        assert!(more.len() <= 10, "at most the endpoint's room per claim");
        rest.extend(more);
    }
    assert_eq!(count(&rest, &a), 40 - got_a);
    assert_eq!(count(&rest, &b), 0);
    assert!(rest.iter().all(|c| c.endpoint.id == a_endpoint.id));
}

/// Fails the endpoint's only message at each of `hours` (from T0), through
/// claims and completions carrying a failure signal; returns the endpoint.
pub(crate) async fn fail_at_hours(s: &dyn Store, live: &Scope, endpoint: &Endpoint, hours: &[i64]) {
    let _ = live;
    for h in hours {
        let at = T0.plus_seconds(h * 3600);
        let claimed = claim_due(s, "w", at, at.plus_seconds(30), 10, &[])
            .await
            .unwrap();
        let c = claimed
            .iter()
            .find(|c| c.endpoint.id == endpoint.id)
            .expect("the message is due");
        let mut comp = completion(
            c,
            "w",
            Progress {
                state: MessageState::Scheduled,
                attempts_used: 1,
                next_attempt_at: Some(at.plus_seconds(3600)),
                ..c.progress()
            },
        );
        comp.health = relay_core::circuit::Signal::Failure;
        comp.now = at;
        if let Some(a) = comp.attempt.as_mut() {
            a.id = new_id(IdKind::Attempt, at);
            a.outcome = relay_core::outcome::AttemptOutcome::Retry;
        }
        complete(s, &[comp]).await.unwrap();
        // Due again at the next hour asked for.
        for other in claimed.iter().filter(|o| o.endpoint.id != endpoint.id) {
            release_claims(s, "w", std::slice::from_ref(&other.message.id), at)
                .await
                .unwrap();
        }
    }
}

pub async fn the_failure_clock_warns_at_72_hours_and_disables_at_5_days(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let mut keep = endpoint_value(&live, &c.id, &["order.created"]);
    keep.auto_disable = false;
    create_endpoint(s, &live, &keep, &[], LIMITS, None)
        .await
        .unwrap();
    s.publish(&live, new_event("evt_1", "order.shipped", None))
        .await
        .unwrap();
    s.publish(&live, new_event("evt_2", "order.created", None))
        .await
        .unwrap();
    fail_at_hours(s, &live, &e, &[0, 12, 71]).await;
    assert!(endpoint_warnings(s, &e.id, 10).await.unwrap().is_empty());
    fail_at_hours(s, &live, &e, &[72]).await;
    let w = endpoint_warnings(s, &e.id, 10).await.unwrap();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].kind, relay_core::model::WarningKind::FailingFor72Hours);
    fail_at_hours(s, &live, &e, &[119]).await;
    assert_eq!(
        get_endpoint(s, &live, &e.id).await.unwrap().unwrap().state,
        EndpointState::Active
    );
    fail_at_hours(s, &live, &e, &[120]).await;
    let disabled = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    assert_eq!(disabled.state, EndpointState::Disabled);
    assert_eq!(
        disabled.disabled_reason.as_deref(),
        Some("failing_for_5_days")
    );
    // The opted-out endpoint fails just as long and stays active.
    fail_at_hours(s, &live, &keep, &[0, 12, 72, 120, 130]).await;
    assert_eq!(
        get_endpoint(s, &live, &keep.id)
            .await
            .unwrap()
            .unwrap()
            .state,
        EndpointState::Active
    );
}

pub async fn one_success_resets_the_failure_clock(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    fail_at_hours(s, &live, e, &[0, 12, 80]).await;
    // A success at hour 81.
    let at = T0.plus_seconds(81 * 3600);
    let claimed = claim_due(s, "w", at, at.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let mut ok = completion(
        &claimed[0],
        "w",
        Progress {
            state: MessageState::Scheduled,
            next_attempt_at: Some(at.plus_seconds(3600)),
            ..claimed[0].progress()
        },
    );
    ok.health = relay_core::circuit::Signal::Success;
    complete(s, &[ok]).await.unwrap();
    // Five more days of failure from hour 82 would be needed now.
    fail_at_hours(s, &live, e, &[82, 94, 200]).await;
    assert_eq!(
        get_endpoint(s, &live, &e.id).await.unwrap().unwrap().state,
        EndpointState::Active
    );
    fail_at_hours(s, &live, e, &[202]).await;
    assert_eq!(
        get_endpoint(s, &live, &e.id).await.unwrap().unwrap().state,
        EndpointState::Disabled,
        "120 hours after the clock restarted at hour 82"
    );
}

/// The first 50 messages `filter` lists, in the store's order.
pub(crate) async fn listed(
    s: &dyn Store,
    scope: &Scope,
    filter: MessageFilter,
) -> Vec<relay_core::model::Message> {
    list_messages(s, scope, &filter, &page(50))
        .await
        .unwrap()
        .data
}

/// The first 50 messages of one endpoint.
pub(crate) async fn messages_of(
    s: &dyn Store,
    scope: &Scope,
    endpoint_id: &str,
) -> Vec<relay_core::model::Message> {
    let filter = MessageFilter {
        endpoint_id: Some(endpoint_id.to_string()),
        ..Default::default()
    };
    listed(s, scope, filter).await
}

pub async fn operational_events_reach_subscribers_without_cascading(s: &dyn Store) {
    use relay_core::operational::{ATTEMPT_EXHAUSTED, ENDPOINT_DISABLED, ENDPOINT_RECOVERED};
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = customer(s, &live, "c").await;
    let own = tenant_side::tenant_consumer(s, &live).await;
    let failing = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let ops = endpoint(
        s,
        &live,
        &own.id,
        &[ATTEMPT_EXHAUSTED, ENDPOINT_DISABLED, ENDPOINT_RECOVERED],
    )
    .await;
    let _all = endpoint(s, &live, &c.id, &["*"]).await;
    // A customer's endpoint that names them (as one could before consumers
    // had a kind; the API refuses it now) receives none of them.
    let customer = endpoint(
        s,
        &live,
        &c.id,
        &[ATTEMPT_EXHAUSTED, ENDPOINT_DISABLED, ENDPOINT_RECOVERED],
    )
    .await;
    // An order of the customer's.
    s.publish(
        &live,
        NewEvent {
            consumer_id: Some(c.id.clone()),
            ..new_event("evt_1", "order.shipped", None)
        },
    )
    .await
    .unwrap();
    // Exhaust the failing endpoint's message.
    let claimed = claim_due(s, "w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let mine = claimed
        .iter()
        .find(|c| c.endpoint.id == failing.id)
        .unwrap();
    let mut exhausted = completion(
        mine,
        "w",
        Progress {
            state: MessageState::Exhausted,
            attempts_used: 10,
            next_attempt_at: None,
            last_error_code: Some("http_503".into()),
            terminal_reason: Some("attempts_exhausted".into()),
            ..mine.progress()
        },
    );
    exhausted.attempt = None;
    complete(s, &[exhausted]).await.unwrap();
    let others: Vec<String> = claimed
        .iter()
        .filter(|c| c.endpoint.id != failing.id)
        .map(|c| c.message.id.clone())
        .collect();
    release_claims(s, "w", &others, T0).await.unwrap();
    let got = messages_of(s, &live, &ops.id).await;
    assert_eq!(
        got.len(),
        1,
        "only the endpoint that names the type receives it (not `*`)"
    );
    assert_eq!(got[0].event_type, ATTEMPT_EXHAUSTED);
    let event = get_event(s, &live, &got[0].event_id)
        .await
        .unwrap()
        .unwrap();
    let data: serde_json::Value = serde_json::from_str(event.data.get()).unwrap();
    assert_eq!(data["message_id"], mine.message.id.as_str());
    assert_eq!(data["last_error_code"], "http_503");
    // That operational message exhausting produces nothing more.
    let claimed = claim_due(s, "w", T0.plus_seconds(1), T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let op = claimed
        .iter()
        .find(|c| c.endpoint.id == ops.id)
        .expect("the operational message is due");
    let mut op_exhausted = completion(
        op,
        "w",
        Progress {
            state: MessageState::Exhausted,
            attempts_used: 10,
            next_attempt_at: None,
            terminal_reason: Some("attempts_exhausted".into()),
            ..op.progress()
        },
    );
    op_exhausted.attempt = None;
    complete(s, &[op_exhausted]).await.unwrap();
    assert_eq!(messages_of(s, &live, &ops.id).await.len(), 1, "no cascade");
    // Disabling and enabling an endpoint: one event each.
    act(s, &live, &failing.id, EndpointAction::Disable, T0)
        .await
        .unwrap();
    assert!(matches!(
        act(s, &live, &failing.id, EndpointAction::Disable, T0).await,
        Err(StoreError::Conflict("illegal_transition"))
    ));
    act(s, &live, &failing.id, EndpointAction::Enable, T0)
        .await
        .unwrap();
    let types: Vec<String> = messages_of(s, &live, &ops.id)
        .await
        .into_iter()
        .map(|m| m.event_type)
        .collect();
    assert_eq!(
        types,
        vec![ATTEMPT_EXHAUSTED, ENDPOINT_DISABLED, ENDPOINT_RECOVERED]
    );
    let leaked: Vec<String> = messages_of(s, &live, &customer.id)
        .await
        .into_iter()
        .map(|m| m.event_type)
        .filter(|t| relay_core::operational::is_operational(t))
        .collect();
    assert!(leaked.is_empty(), "a customer learnt: {leaked:?}");
}
